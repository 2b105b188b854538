// SPDX-License-Identifier: GPL-2.0
/*
 * fp-test: the soft float of the SMs (src/vgpu/rv_fp.c) against the
 * host's x86-64 hardware, which rounds as IEEE 754 says and detects
 * tininess after rounding, as RISC-V does.
 *
 * Every function of rv_fp.h runs on the edge values (all pairs, all
 * triples for fma) and on at least a million random operand sets (random
 * bit patterns, values near the ends of the exponent range, near each
 * other's exponent for cancellation, near 2^31, 2^32, 2^63, 2^64, and
 * values of few significant bits, whose results are often exact ties),
 * in each rounding mode the host has (RNE, RTZ, RDN, RUP). Each result
 * and each set of flags must equal the host's:
 *  - arithmetic: the host's float/double operation, fma()/fmaf(),
 *    sqrt()/sqrtf() and conversions, in the mode set in MXCSR,
 *    flags read from MXCSR; where the host's result is a NaN, ours must
 *    be the canonical NaN;
 *  - conversions to integers: RISC-V saturates where x86 returns the
 *    "integer indefinite", so the reference rounds with the host's
 *    rint() and applies the RISC-V rules (NaN: the largest integer, out
 *    of range: the nearest end, both NV and not NX);
 *  - FMIN/FMAX, FEQ/FLT/FLE and FCLASS: the host's comparisons and
 *    classification, with the RISC-V rules for NaNs, zeros and flags.
 *
 * RMM (to nearest, ties away from zero) has no x86 rounding mode. It
 * equals RNE except on an exact tie, where it is the host's result
 * rounded away from zero (RUP for a positive result, RDN for a negative
 * one); the flags are RNE's. A result is a tie when the exact value is
 * the midpoint of RNE's and the away result: the midpoint has one bit
 * more than the format, so it is exact in a wider host format (double for
 * binary32, the x87's 64-bit long double for binary64), and the exact
 * value equals it only if the same operation in that wider format is
 * exact (no inexact flag) and returns it. Conversions to integers use the
 * C library's round(), which is RMM to an integer.
 *
 * It prints the counts of each function, the first mismatches, a
 * micro-benchmark (ns per binary64 add, mul, fma, div) and exits 1 on
 * any mismatch. Usage: fp-test [-n RANDOM_SETS] [-s SEED].
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rv_fp.h"

enum ty { F32, F64, I32, U32, I64, U64 };

static const char *const rm_name[] = { "RNE", "RTZ", "RDN", "RUP", "RMM" };
/* MXCSR's rounding control (bits 13-14) for RNE, RTZ, RDN, RUP. */
static const u32 host_rc[] = { 0, 3, 1, 2 };

/* xorshift64*: a fixed seed, printed, so a failure can be replayed. */
static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

/* Bit patterns and values: F(), D() read them, BF(), BD() write them. */
union f32_bits { float f; u32 u; };
union f64_bits { double f; u64 u; };

static float F(u64 x) { return (union f32_bits){ .u = (u32)x }.f; }
static double D(u64 x) { return (union f64_bits){ .u = x }.f; }
static u64 BF(float f) { return (union f32_bits){ .f = f }.u; }
static u64 BD(double f) { return (union f64_bits){ .f = f }.u; }

/* Keep the compiler from moving arithmetic across the flag accesses. */
#define OPAQUE(v) __asm__ volatile("" : "+m"(v))

/*
 * The flags of the SSE unit, which does the host's float and double
 * arithmetic, straight from MXCSR: feclearexcept() also rewrites the x87
 * environment, which costs more than the operation under test. The wide
 * operations (x87 long double) use fe*() (wclear(), wflags()).
 */
#define MXCSR_FLAGS 0x3f

static void hclear(void)
{
	u32 m;

	__asm__ volatile("stmxcsr %0" : "=m"(m));
	m &= ~MXCSR_FLAGS;
	__asm__ volatile("ldmxcsr %0" : : "m"(m));
}

/* MXCSR's IE, DE, ZE, OE, UE, PE as RV_FF_* (DE, a denormal operand, is no flag of RISC-V). */
static u32 hflags(void)
{
	u32 m;

	__asm__ volatile("stmxcsr %0" : "=m"(m));
	return (m & 0x20 ? RV_FF_NX : 0) | (m & 0x10 ? RV_FF_UF : 0) |
	       (m & 0x08 ? RV_FF_OF : 0) | (m & 0x04 ? RV_FF_DZ : 0) |
	       (m & 0x01 ? RV_FF_NV : 0);
}

/*
 * The SSE unit's rounding mode, for all the host's arithmetic but the
 * wide operations, which run on the x87 in its default, RNE.
 * fesetround() also sets the x87's, which costs more than a check.
 */
static void set_mode(u32 rm)
{
	u32 m;

	__asm__ volatile("stmxcsr %0" : "=m"(m));
	m = (m & ~(3U << 13)) | host_rc[rm] << 13;
	__asm__ volatile("ldmxcsr %0" : : "m"(m));
}

static void wclear(void)
{
	feclearexcept(FE_ALL_EXCEPT);
}

static u32 wflags(void)
{
	int e = fetestexcept(FE_ALL_EXCEPT);

	return (e & FE_INEXACT ? RV_FF_NX : 0) | (e & FE_UNDERFLOW ? RV_FF_UF : 0) |
	       (e & FE_OVERFLOW ? RV_FF_OF : 0) | (e & FE_DIVBYZERO ? RV_FF_DZ : 0) |
	       (e & FE_INVALID ? RV_FF_NV : 0);
}

static int mbits(enum ty t)
{
	return t == F32 ? 23 : 52;
}

static int ebits(enum ty t)
{
	return t == F32 ? 8 : 11;
}

static u64 expo(enum ty t, u64 x)
{
	return (x >> mbits(t)) & ((1ULL << ebits(t)) - 1);
}

static u64 frac(enum ty t, u64 x)
{
	return x & ((1ULL << mbits(t)) - 1);
}

static int is_nan(enum ty t, u64 x)
{
	return (t == F32 || t == F64) && expo(t, x) == (1ULL << ebits(t)) - 1 && frac(t, x);
}

static int is_snan(enum ty t, u64 x)
{
	return is_nan(t, x) && !(frac(t, x) >> (mbits(t) - 1));
}

static int is_inf(enum ty t, u64 x)
{
	return expo(t, x) == (1ULL << ebits(t)) - 1 && !frac(t, x);
}

static u64 signbit_of(enum ty t)
{
	return t == F32 ? 1ULL << 31 : 1ULL << 63;
}

static u64 qnan_of(enum ty t)
{
	return t == F32 ? RV_F32_QNAN : RV_F64_QNAN;
}

/* An operation under test: ours, the host's, and the wide one for RMM. */
struct op;
typedef u64 (*ours_fn)(u64 a, u64 b, u64 c, u32 rm, u32 *ff);
typedef u64 (*host_fn)(const struct op *op, u64 a, u64 b, u64 c, u32 rm, u32 *ff);
typedef long double (*wide_fn)(u64 a, u64 b, u64 c);

struct op {
	const char *name;
	enum ty in, out;
	int nargs;
	ours_fn ours;
	host_fn host;
	wide_fn wide;	/* NULL: the result does not depend on the mode */
	unsigned long edge, random, checks, fails;
	unsigned long ties;	/* RMM rounded away from RNE's result */
};

/* ---- ours, as one signature ---- */
#define OURS2(fn, T) \
static u64 o_##fn(u64 a, u64 b, u64 c, u32 rm, u32 *ff) \
{ (void)c; return (T)rv_##fn(a, b, rm, ff); }
#define OURS1(fn, T, IT) \
static u64 o_##fn(u64 a, u64 b, u64 c, u32 rm, u32 *ff) \
{ (void)b; (void)c; return (T)rv_##fn((IT)a, rm, ff); }
#define OURS_NORM(fn) \
static u64 o_##fn(u64 a, u64 b, u64 c, u32 rm, u32 *ff) \
{ (void)c; (void)rm; return rv_##fn(a, b, ff); }

OURS2(f32_add, u32) OURS2(f32_sub, u32) OURS2(f32_mul, u32) OURS2(f32_div, u32)
OURS2(f64_add, u64) OURS2(f64_sub, u64) OURS2(f64_mul, u64) OURS2(f64_div, u64)
OURS1(f32_sqrt, u32, u32) OURS1(f64_sqrt, u64, u64)
OURS_NORM(f32_min) OURS_NORM(f32_max) OURS_NORM(f32_eq) OURS_NORM(f32_lt) OURS_NORM(f32_le)
OURS_NORM(f64_min) OURS_NORM(f64_max) OURS_NORM(f64_eq) OURS_NORM(f64_lt) OURS_NORM(f64_le)
OURS1(f32_to_i32, u32, u32) OURS1(f32_to_u32, u32, u32)
OURS1(f32_to_i64, u64, u32) OURS1(f32_to_u64, u64, u32)
OURS1(f64_to_i32, u32, u64) OURS1(f64_to_u32, u32, u64)
OURS1(f64_to_i64, u64, u64) OURS1(f64_to_u64, u64, u64)
OURS1(i32_to_f32, u32, s32) OURS1(u32_to_f32, u32, u32)
OURS1(i64_to_f32, u32, s64) OURS1(u64_to_f32, u32, u64)
OURS1(i32_to_f64, u64, s32) OURS1(u32_to_f64, u64, u32)
OURS1(i64_to_f64, u64, s64) OURS1(u64_to_f64, u64, u64)
OURS1(f64_to_f32, u32, u64)

static u64 o_f32_fma(u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	return rv_f32_fma(a, b, c, rm, ff);
}

static u64 o_f64_fma(u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	return rv_f64_fma(a, b, c, rm, ff);
}

static u64 o_f32_class(u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	(void)b; (void)c; (void)rm; (void)ff;
	return rv_f32_class(a);
}

static u64 o_f64_class(u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	(void)b; (void)c; (void)rm; (void)ff;
	return rv_f64_class(a);
}

static u64 o_f32_to_f64(u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	(void)b; (void)c; (void)rm;
	return rv_f32_to_f64(a, ff);
}

/* ---- the host's arithmetic, in the mode set_mode() set ---- */
#define HOST_F(name, T, FROM, TO, expr) \
static u64 h_##name(const struct op *op, u64 ua, u64 ub, u64 uc, u32 rm, u32 *ff) \
{ \
	T a = FROM(ua), b = FROM(ub), c = FROM(uc), r; \
	(void)op; (void)rm; (void)b; (void)c; \
	hclear(); \
	OPAQUE(a); OPAQUE(b); OPAQUE(c); \
	r = (expr); \
	OPAQUE(r); \
	*ff = hflags(); \
	return TO(r); \
}
HOST_F(f32_add, float, F, BF, a + b)
HOST_F(f32_sub, float, F, BF, a - b)
HOST_F(f32_mul, float, F, BF, a * b)
HOST_F(f32_div, float, F, BF, a / b)
HOST_F(f32_sqrt, float, F, BF, sqrtf(a))
HOST_F(f32_fma, float, F, BF, fmaf(a, b, c))
HOST_F(f64_add, double, D, BD, a + b)
HOST_F(f64_sub, double, D, BD, a - b)
HOST_F(f64_mul, double, D, BD, a * b)
HOST_F(f64_div, double, D, BD, a / b)
HOST_F(f64_sqrt, double, D, BD, sqrt(a))
HOST_F(f64_fma, double, D, BD, fma(a, b, c))

/*
 * RISC-V: inf * 0 + c is invalid even when c is a quiet NaN, where x86
 * returns c and raises nothing.
 */
static u64 h_fma(const struct op *op, u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	enum ty t = op->in;
	u64 mag = ~signbit_of(t) & (t == F32 ? 0xffffffffULL : ~0ULL);
	u64 r = t == F32 ? h_f32_fma(op, a, b, c, rm, ff) : h_f64_fma(op, a, b, c, rm, ff);

	if ((is_inf(t, a) && !(b & mag)) || (!(a & mag) && is_inf(t, b)))
		*ff |= RV_FF_NV;
	return r;
}

/* Conversions between formats and from integers. */
#define HOST_CVT(name, IT, FROM, RT, TO) \
static u64 h_##name(const struct op *op, u64 ua, u64 ub, u64 uc, u32 rm, u32 *ff) \
{ \
	IT a = (IT)FROM(ua); \
	RT r; \
	(void)op; (void)ub; (void)uc; (void)rm; \
	hclear(); \
	OPAQUE(a); \
	r = (RT)a; \
	OPAQUE(r); \
	*ff = hflags(); \
	return TO(r); \
}
#define ID(x) (x)
HOST_CVT(f32_to_f64, float, F, double, BD)
HOST_CVT(f64_to_f32, double, D, float, BF)
HOST_CVT(i32_to_f32, s32, ID, float, BF)
HOST_CVT(u32_to_f32, u32, ID, float, BF)
HOST_CVT(i64_to_f32, s64, ID, float, BF)
HOST_CVT(u64_to_f32, u64, ID, float, BF)
HOST_CVT(i32_to_f64, s32, ID, double, BD)
HOST_CVT(u32_to_f64, u32, ID, double, BD)
HOST_CVT(i64_to_f64, s64, ID, double, BD)
HOST_CVT(u64_to_f64, u64, ID, double, BD)

/*
 * To an integer: the host rounds (rint() on the SSE unit in the mode
 * set, round() for RMM: both exact on every binary32 and binary64
 * value), the RISC-V rules saturate. The bounds are compared in the
 * x87's long double, which holds both ends of every integer range.
 */
static u64 h_to_int(const struct op *op, u64 ua, u64 ub, u64 uc, u32 rm, u32 *ff)
{
	int sgn = op->out == I32 || op->out == I64;
	int bits = op->out == I32 || op->out == U32 ? 32 : 64;
	u64 max = sgn ? (1ULL << (bits - 1)) - 1 : ~0ULL >> (64 - bits);
	u64 min = sgn ? -(1ULL << (bits - 1)) : 0;
	long double lo = sgn ? -(long double)(1ULL << (bits - 1)) : 0;
	long double hi = (long double)max;
	double x, r;

	(void)ub; (void)uc;
	*ff = 0;
	if (is_nan(op->in, ua)) {
		*ff = RV_FF_NV;
		return bits == 32 ? (u32)max : max;
	}
	x = op->in == F32 ? (double)F(ua) : D(ua);
	OPAQUE(x);
	r = rm == RV_RM_RMM ? round(x) : rint(x);
	OPAQUE(r);
	if ((long double)r < lo || (long double)r > hi) {
		*ff = RV_FF_NV;
		return bits == 32 ? (u32)(x < 0 ? min : max) : (x < 0 ? min : max);
	}
	if (r != x)
		*ff = RV_FF_NX;
	if (sgn)
		return bits == 32 ? (u32)(s32)r : (u64)(s64)r;
	return bits == 32 ? (u32)r : (u64)r;
}

/* FMIN/FMAX, FEQ/FLT/FLE, FCLASS: the host's order, RISC-V's rules. */
static long double as_ld(enum ty t, u64 x)
{
	return t == F32 ? F(x) : D(x);
}

static u64 h_minmax(const struct op *op, u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	enum ty t = op->in;
	int max = strstr(op->name, "max") != NULL;
	long double x = as_ld(t, a), y = as_ld(t, b);

	(void)c; (void)rm;
	*ff = is_snan(t, a) || is_snan(t, b) ? RV_FF_NV : 0;
	if (is_nan(t, a) && is_nan(t, b))
		return qnan_of(t);
	if (is_nan(t, a))
		return b;
	if (is_nan(t, b))
		return a;
	if (x < y)
		return max ? b : a;
	if (y < x)
		return max ? a : b;
	/* equal: only -0 and +0 differ, -0 < +0 */
	if ((a & signbit_of(t)) != (b & signbit_of(t)))
		return !!(a & signbit_of(t)) == !max ? a : b;
	return a;
}

static u64 h_compare(const struct op *op, u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	enum ty t = op->in;
	long double x = as_ld(t, a), y = as_ld(t, b);
	int eq = strstr(op->name, "_eq") != NULL;

	(void)c; (void)rm;
	*ff = 0;
	if (is_nan(t, a) || is_nan(t, b)) {
		if (!eq || is_snan(t, a) || is_snan(t, b))
			*ff = RV_FF_NV;
		return 0;
	}
	if (eq)
		return x == y;
	return strstr(op->name, "_lt") ? x < y : x <= y;
}

static u64 h_class(const struct op *op, u64 a, u64 b, u64 c, u32 rm, u32 *ff)
{
	enum ty t = op->in;
	int neg = !!(a & signbit_of(t));

	(void)b; (void)c; (void)rm;
	*ff = 0;
	if (is_nan(t, a))
		return is_snan(t, a) ? 1 << 8 : 1 << 9;
	switch (fpclassify(as_ld(t, a))) {
	case FP_INFINITE:
		return neg ? 1 << 0 : 1 << 7;
	case FP_ZERO:
		return neg ? 1 << 3 : 1 << 4;
	case FP_SUBNORMAL:	/* as the format's: long double holds it as normal */
	case FP_NORMAL:
		if (!expo(t, a))
			return neg ? 1 << 2 : 1 << 5;
		return neg ? 1 << 1 : 1 << 6;
	}
	return 0;
}

/* ---- the wide operations that find the ties for RMM ---- */
#define WIDE(name, T, FROM, expr) \
static long double w_##name(u64 ua, u64 ub, u64 uc) \
{ \
	T a = FROM(ua), b = FROM(ub), c = FROM(uc), r; \
	(void)b; (void)c; \
	OPAQUE(a); OPAQUE(b); OPAQUE(c); \
	r = (expr); \
	OPAQUE(r); \
	return r; \
}
#define FD(x) ((double)F(x))
#define DL(x) ((long double)D(x))
WIDE(f32_add, double, FD, a + b)
WIDE(f32_sub, double, FD, a - b)
WIDE(f32_mul, double, FD, a * b)
WIDE(f32_div, double, FD, a / b)
WIDE(f32_sqrt, double, FD, sqrt(a))
WIDE(f32_fma, double, FD, fma(a, b, c))
WIDE(f64_add, long double, DL, a + b)
WIDE(f64_sub, long double, DL, a - b)
WIDE(f64_mul, long double, DL, a * b)
WIDE(f64_div, long double, DL, a / b)
WIDE(f64_sqrt, long double, DL, sqrtl(a))
WIDE(f64_fma, long double, DL, fmal(a, b, c))
WIDE(f64_to_f32, long double, DL, a)
#define SI32(x) ((long double)(s32)(x))
#define UI32(x) ((long double)(u32)(x))
#define SI64(x) ((long double)(s64)(x))
#define UI64(x) ((long double)(u64)(x))
WIDE(i32, long double, SI32, a)
WIDE(u32, long double, UI32, a)
WIDE(i64, long double, SI64, a)
WIDE(u64, long double, UI64, a)

#define OP(n, i, o, k, h, w) { #n, i, o, k, o_##n, h, w, 0, 0, 0, 0, 0 }
static struct op ops[] = {
	OP(f32_add, F32, F32, 2, h_f32_add, w_f32_add),
	OP(f32_sub, F32, F32, 2, h_f32_sub, w_f32_sub),
	OP(f32_mul, F32, F32, 2, h_f32_mul, w_f32_mul),
	OP(f32_div, F32, F32, 2, h_f32_div, w_f32_div),
	OP(f32_sqrt, F32, F32, 1, h_f32_sqrt, w_f32_sqrt),
	OP(f32_fma, F32, F32, 3, h_fma, w_f32_fma),
	OP(f32_min, F32, F32, 2, h_minmax, NULL),
	OP(f32_max, F32, F32, 2, h_minmax, NULL),
	OP(f32_eq, F32, U32, 2, h_compare, NULL),
	OP(f32_lt, F32, U32, 2, h_compare, NULL),
	OP(f32_le, F32, U32, 2, h_compare, NULL),
	OP(f32_class, F32, U32, 1, h_class, NULL),
	OP(f32_to_i32, F32, I32, 1, h_to_int, NULL),
	OP(f32_to_u32, F32, U32, 1, h_to_int, NULL),
	OP(f32_to_i64, F32, I64, 1, h_to_int, NULL),
	OP(f32_to_u64, F32, U64, 1, h_to_int, NULL),
	OP(i32_to_f32, I32, F32, 1, h_i32_to_f32, w_i32),
	OP(u32_to_f32, U32, F32, 1, h_u32_to_f32, w_u32),
	OP(i64_to_f32, I64, F32, 1, h_i64_to_f32, w_i64),
	OP(u64_to_f32, U64, F32, 1, h_u64_to_f32, w_u64),
	OP(f64_add, F64, F64, 2, h_f64_add, w_f64_add),
	OP(f64_sub, F64, F64, 2, h_f64_sub, w_f64_sub),
	OP(f64_mul, F64, F64, 2, h_f64_mul, w_f64_mul),
	OP(f64_div, F64, F64, 2, h_f64_div, w_f64_div),
	OP(f64_sqrt, F64, F64, 1, h_f64_sqrt, w_f64_sqrt),
	OP(f64_fma, F64, F64, 3, h_fma, w_f64_fma),
	OP(f64_min, F64, F64, 2, h_minmax, NULL),
	OP(f64_max, F64, F64, 2, h_minmax, NULL),
	OP(f64_eq, F64, U32, 2, h_compare, NULL),
	OP(f64_lt, F64, U32, 2, h_compare, NULL),
	OP(f64_le, F64, U32, 2, h_compare, NULL),
	OP(f64_class, F64, U32, 1, h_class, NULL),
	OP(f64_to_i32, F64, I32, 1, h_to_int, NULL),
	OP(f64_to_u32, F64, U32, 1, h_to_int, NULL),
	OP(f64_to_i64, F64, I64, 1, h_to_int, NULL),
	OP(f64_to_u64, F64, U64, 1, h_to_int, NULL),
	OP(i32_to_f64, I32, F64, 1, h_i32_to_f64, w_i32),
	OP(u32_to_f64, U32, F64, 1, h_u32_to_f64, w_u32),
	OP(i64_to_f64, I64, F64, 1, h_i64_to_f64, w_i64),
	OP(u64_to_f64, U64, F64, 1, h_u64_to_f64, w_u64),
	OP(f32_to_f64, F32, F64, 1, h_f32_to_f64, NULL),
	OP(f64_to_f32, F64, F32, 1, h_f64_to_f32, w_f64_to_f32),
};

/* Conversions to integers round: they take RMM from round() instead. */
static int to_int(const struct op *op)
{
	return op->host == h_to_int;
}

/* ---- operands ---- */
#define MAX_EDGE 256
static u64 edge[6][MAX_EDGE];
static int nedge[6];

static void add_edge(enum ty t, u64 v)
{
	int i;

	for (i = 0; i < nedge[t]; i++)
		if (edge[t][i] == v)
			return;
	if (nedge[t] < MAX_EDGE)
		edge[t][nedge[t]++] = v;
}

static void add_float_edge(enum ty t, long double v)
{
	int s;

	for (s = 0; s < 2; s++) {
		long double x = s ? -v : v;

		if (t == F32) {
			float f = x;

			add_edge(t, BF(f));
			add_edge(t, BF(nextafterf(f, 0)));
			add_edge(t, BF(nextafterf(f, INFINITY)));
			add_edge(t, BF(nextafterf(f, -INFINITY)));
		} else {
			double d = x;

			add_edge(t, BD(d));
			add_edge(t, BD(nextafter(d, 0)));
			add_edge(t, BD(nextafter(d, INFINITY)));
			add_edge(t, BD(nextafter(d, -INFINITY)));
		}
	}
}

static void make_edges(void)
{
	static const long double base[] = {
		0, 1, 0.5, 1.5, 2.5, 3.5, 0x1p24, 0x1p31, 0x1p32, 0x1p53, 0x1p63, 0x1p64,
	};
	static const u64 ints[] = {
		0, 1, 2, 3, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff,
		0x1000001, 0x1000003, 0x2000002, 0x7fffffc0, 0x20000000000001ULL,
		0x20000000000003ULL, 0x8000008000000000ULL, 0x8000000000000400ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, 0x8000000000000001ULL,
		0xffffffffffffffffULL, 0x7fffff8000000000ULL, 0x7ffffffffffffe00ULL,
		0xfffffffffffff800ULL, 0x1000001ULL << 30,
	};
	unsigned int i;
	int t;

	for (t = F32; t <= F64; t++) {
		u64 sb = signbit_of(t), inf = t == F32 ? 0x7f800000 : 0x7ff0000000000000ULL;
		u64 minn = 1ULL << mbits(t), maxs = minn - 1, maxn = inf - 1;
		u64 sv[] = { 1, maxs, minn, maxn, minn + 1, maxs - 1, inf };

		for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
			add_float_edge(t, base[i]);
		for (i = 0; i < sizeof(sv) / sizeof(sv[0]); i++) {
			add_edge(t, sv[i]);
			add_edge(t, sv[i] | sb);
		}
		add_edge(t, qnan_of(t));
		add_edge(t, qnan_of(t) | sb | 1);
		add_edge(t, inf | 1);			/* sNaN */
		add_edge(t, inf | sb | 0x123);		/* negative sNaN */
	}
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		add_edge(I64, ints[i]);
		add_edge(U64, ints[i]);
		add_edge(I64, -ints[i]);
		add_edge(I32, (u32)ints[i]);
		add_edge(U32, (u32)ints[i]);
		add_edge(I32, (u32)-ints[i]);
	}
}

/* A random value of type @t; @near: a biased exponent to stay close to. */
static u64 gen(enum ty t, int near)
{
	int mb, eb, emax;
	u64 r = rnd(), m, e;
	int k;

	if (t != F32 && t != F64) {
		u64 v = rnd() >> (r % 64);

		if (r % 5 == 0)	/* few significant bits: ties */
			v = ((rnd() & 0xff) | 1) << ((r >> 8) % 56);
		if ((t == I32 || t == I64) && (r >> 20) & 1)
			v = -v;
		if ((r >> 30) % 16 == 0)
			v = edge[t][(r >> 40) % nedge[t]];
		return t == I32 || t == U32 ? (u32)v : v;
	}
	mb = mbits(t);
	eb = ebits(t);
	emax = (1 << eb) - 1;
	m = rnd() & ((1ULL << mb) - 1);
	switch (r % 10) {
	case 0:
	case 1:		/* any bit pattern */
		return rnd() & (t == F32 ? 0xffffffffULL : ~0ULL);
	case 2:
		return edge[t][(r >> 8) % nedge[t]];
	case 3:		/* few significant bits; for binary64, 25 of them too */
		k = 1 + (r >> 8) % 6;
		if (t == F64 && (r >> 24) % 3 == 0)
			k = 24;
		m &= ~((1ULL << (mb - k)) - 1);
		e = (1 << (eb - 1)) - 8 + (r >> 16) % 16;
		break;
	case 4:		/* near and below the smallest normal */
		e = (r >> 8) % 3;
		if ((r >> 12) & 1)
			m &= ~((1ULL << (mb - 1 - (r >> 16) % 8)) - 1);
		break;
	case 5:		/* near the largest */
		e = emax - 1 - (r >> 8) % 3;
		break;
	case 6:		/* near 1 */
		e = (1 << (eb - 1)) - 4 + (r >> 8) % 8;
		break;
	case 7:		/* near 2^31, 2^32, 2^63, 2^64 */
		e = (1 << (eb - 1)) - 1 + 30 + (r >> 8) % 4 + ((r >> 12) & 1) * 32;
		if ((r >> 13) & 1)
			m = (r >> 14) & 1 ? m | ((1ULL << mb) - 1) << 4 : m >> mb / 2;
		m &= (1ULL << mb) - 1;
		break;
	default:	/* near @near: cancellation, alignment */
		if (near < 0)
			e = 1 + (r >> 8) % (emax - 1);
		else
			e = near - 2 + (int)((r >> 8) % 5);
		if (e < 1 || e >= (u64)emax)
			e = 1;
		break;
	}
	return ((r >> 63) ? signbit_of(t) : 0) | (e << mb) | m;
}

/* ---- the checks ---- */
static unsigned long total_fails;

static void report(const struct op *op, u32 rm, u64 a, u64 b, u64 c, u64 got,
		   u32 gff, u64 want, u32 wff)
{
	if (total_fails++ >= 20)
		return;
	printf("FAIL %s %s a=%#llx b=%#llx c=%#llx: got %#llx flags %#x, want %#llx flags %#x\n",
	       op->name, rm_name[rm], (unsigned long long)a, (unsigned long long)b,
	       (unsigned long long)c, (unsigned long long)got, gff,
	       (unsigned long long)want, wff);
}

static int same(const struct op *op, u64 got, u64 want)
{
	if (is_nan(op->out, want))
		return got == qnan_of(op->out);
	return got == want;
}

/* One operand set in RNE, RTZ, RDN, RUP and, where the mode matters, RMM. */
static void check(struct op *op, u64 a, u64 b, u64 c)
{
	u64 want[4], got, away, rmm;
	u32 wff[4], gff;
	int m;

	for (m = 0; m < 4; m++) {
		set_mode(m);
		want[m] = op->host(op, a, b, c, m, &wff[m]);
		gff = 0;
		got = op->ours(a, b, c, m, &gff);
		op->checks++;
		if (!same(op, got, want[m]) || gff != wff[m]) {
			op->fails++;
			report(op, m, a, b, c, got, gff, want[m], wff[m]);
		}
	}
	set_mode(RV_RM_RNE);
	if (!op->wide && !to_int(op))
		return;
	gff = 0;
	got = op->ours(a, b, c, RV_RM_RMM, &gff);
	if (to_int(op)) {
		away = want[0];
		want[0] = op->host(op, a, b, c, RV_RM_RMM, &wff[0]);
		op->ties += away != want[0];
	} else if (!is_nan(op->out, want[0])) {
		/* want[0] is RNE's; the tie, if any, rounds away from zero */
		away = want[0] & signbit_of(op->out) ? want[2] : want[3];
		if (away != want[0] && !is_inf(op->out, away)) {
			long double mid, w;

			if (op->out == F32)
				mid = ((long double)F(want[0]) + F(away)) / 2;
			else
				mid = ((long double)D(want[0]) + D(away)) / 2;
			wclear();
			w = op->wide(a, b, c);
			rmm = !(wflags() & RV_FF_NX) && w == mid;
			if (rmm) {
				want[0] = away;
				op->ties++;
			}
		}
	}
	op->checks++;
	if (!same(op, got, want[0]) || gff != wff[0]) {
		op->fails++;
		report(op, RV_RM_RMM, a, b, c, got, gff, want[0], wff[0]);
	}
}

static void run(struct op *op, unsigned long nrand)
{
	enum ty t = op->in;
	int i, j, k, nk = op->nargs > 2 ? nedge[t] : 1;
	int nj = op->nargs > 1 ? nedge[t] : 1;
	unsigned long n;

	for (i = 0; i < nedge[t]; i++)
		for (j = 0; j < nj; j++)
			for (k = 0; k < nk; k++, op->edge++)
				check(op, edge[t][i], edge[t][j], edge[t][k]);
	for (n = 0; n < nrand; n++, op->random++) {
		u64 a = gen(t, -1), b, c;
		int ea = expo(t, a), eb;

		b = gen(t, ea);
		eb = expo(t, b);
		/* c near the product's exponent: cancellation in fma */
		c = gen(t, ea + eb - (t == F32 ? 127 : 1023));
		check(op, a, b, c);
	}
}

/* ---- the micro-benchmark, in this thread's CPU time (a busy host) ---- */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench(void)
{
	enum { N = 1024, ROUNDS = 2000 };
	static u64 v[N];
	const char *names[] = { "add", "mul", "fma", "div", "sqrt" };
	volatile u64 sink;
	u32 ff = 0;
	int i, r, w;

	for (i = 0; i < N; i++)
		v[i] = BD((1.0 + (double)(rnd() >> 12) / 0x1p52) * ((rnd() & 1) ? 3.0 : -0.75));
	printf("bench (CPU ns per binary64 operation, %d each):", N * ROUNDS);
	for (w = 0; w < 5; w++) {
		double t0 = now_ns(), t1;
		u64 acc = 0;

		for (r = 0; r < ROUNDS; r++) {
			for (i = 0; i < N - 2; i++) {
				switch (w) {
				case 0:
					acc ^= rv_f64_add(v[i], v[i + 1], RV_RM_RNE, &ff);
					break;
				case 1:
					acc ^= rv_f64_mul(v[i], v[i + 1], RV_RM_RNE, &ff);
					break;
				case 2:
					acc ^= rv_f64_fma(v[i], v[i + 1], v[i + 2], RV_RM_RNE, &ff);
					break;
				case 3:
					acc ^= rv_f64_div(v[i], v[i + 1], RV_RM_RNE, &ff);
					break;
				default:
					acc ^= rv_f64_sqrt(v[i] & ~(1ULL << 63), RV_RM_RNE, &ff);
					break;
				}
			}
		}
		t1 = now_ns();
		sink = acc;
		printf(" %s %.1f", names[w], (t1 - t0) / ((double)ROUNDS * (N - 2)));
	}
	(void)sink;
	printf("\n");
}

int main(int argc, char **argv)
{
	unsigned long nrand = 1000000, sets = 0, checks = 0;
	u64 seed = rng;
	unsigned int i;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		if (opt == 'n')
			nrand = strtoul(optarg, NULL, 0);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	rng = seed ? seed : 1;
	printf("fp-test: seed %#llx, %lu random operand sets per function\n",
	       (unsigned long long)seed, nrand);
	make_edges();
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct op *op = &ops[i];

		run(op, nrand);
		printf("%-11s %7lu edge + %lu random sets, %8lu checks (%5lu RMM ties), %lu mismatches\n",
		       op->name, op->edge, op->random, op->checks, op->ties, op->fails);
		sets += op->edge + op->random;
		checks += op->checks;
	}
	bench();
	printf("fp-test: %u functions, %lu operand sets, %lu checks, %lu mismatches\n",
	       i, sets, checks, total_fails);
	return total_fails ? 1 : 0;
}
