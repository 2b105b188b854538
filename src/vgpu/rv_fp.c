// SPDX-License-Identifier: GPL-2.0
/*
 * IEEE 754 binary32 and binary64 in integers, as the RISC-V F and D
 * extensions define them (rv_fp.h says what each function does).
 *
 * One core serves both formats, parametrised by the widths of the
 * exponent and the fraction (struct rv_fmt):
 *  - rv_unpack() turns a finite nonzero value into a sign, an unbiased
 *    exponent e and a significand with its leading one at bit 62: the
 *    value is sig * 2^(e - 62). Bit 63 is left free for a carry.
 *  - each operation computes its exact result, or one with the bits below
 *    bit 0 "jammed" into bit 0 (sticky): enough for correct rounding, as
 *    at least two bits lie between the last fraction bit and bit 0;
 *  - rv_round_pack() rounds once, in the rounding mode, and packs,
 *    raising NX, UF (tiny after rounding and inexact) and OF.
 * Sums and products are carried out in 128 bits (__uint128_t), exact
 * but for the sticky bit of an operand shifted far right. There is no
 * 128-bit division in the kernel: division takes its quotient a few bits
 * at a time from u64 divisions, square root its root one bit at a time.
 */
#ifdef __KERNEL__
#include <linux/types.h>
#endif
#include "rv_fp.h"

/* The widths of a binary interchange format. */
struct rv_fmt {
	int ebits;	/* exponent field */
	int mbits;	/* fraction field (the significand has one more) */
	int bias;
};

static const struct rv_fmt rv_f32 = { 8, 23, 127 };
static const struct rv_fmt rv_f64 = { 11, 52, 1023 };

/* What rv_unpack() finds. */
enum rv_cls { RV_ZERO, RV_FINITE, RV_INF, RV_QNAN, RV_SNAN };

struct rv_num {
	enum rv_cls cls;
	bool sign;
	int e;		/* RV_FINITE: unbiased exponent */
	u64 sig;	/* RV_FINITE: leading one at bit 62 */
};

static inline u64 rv_emask(const struct rv_fmt *f)
{
	return (1ULL << f->ebits) - 1;
}

static inline u64 rv_mmask(const struct rv_fmt *f)
{
	return (1ULL << f->mbits) - 1;
}

static inline u64 rv_signbit(const struct rv_fmt *f)
{
	return 1ULL << (f->ebits + f->mbits);
}

static inline u64 rv_qnan(const struct rv_fmt *f)
{
	return (rv_emask(f) << f->mbits) | (1ULL << (f->mbits - 1));
}

static inline u64 rv_inf(const struct rv_fmt *f, bool sign)
{
	return (sign ? rv_signbit(f) : 0) | (rv_emask(f) << f->mbits);
}

static inline int rv_clz64(u64 v)
{
	return v ? __builtin_clzll(v) : 64;
}

static inline int rv_clz128(__uint128_t v)
{
	u64 hi = v >> 64;

	return hi ? rv_clz64(hi) : 64 + rv_clz64((u64)v);
}

/* v >> n, the bits shifted out ORed into bit 0. */
static inline u64 rv_shr_jam(u64 v, int n)
{
	if (n <= 0)
		return v;
	if (n >= 64)
		return v != 0;
	return (v >> n) | ((v & ((1ULL << n) - 1)) != 0);
}

static inline __uint128_t rv_shr_jam128(__uint128_t v, int n)
{
	if (n <= 0)
		return v;
	if (n >= 128)
		return v != 0;
	return (v >> n) | ((v & ((((__uint128_t)1) << n) - 1)) != 0);
}

/* A 128-bit significand with its leading one at bit 126, as 64 bits. */
static inline u64 rv_jam64(__uint128_t v)
{
	return (u64)(v >> 64) | ((u64)v != 0);
}

static __always_inline struct rv_num rv_unpack(const struct rv_fmt *f, u64 x)
{
	struct rv_num n = { .sign = !!(x & rv_signbit(f)) };
	u64 exp = (x >> f->mbits) & rv_emask(f);
	u64 frac = x & rv_mmask(f);
	int p;

	if (exp == rv_emask(f)) {
		if (!frac)
			n.cls = RV_INF;
		else if (frac >> (f->mbits - 1))
			n.cls = RV_QNAN;
		else
			n.cls = RV_SNAN;
	} else if (exp) {
		n.cls = RV_FINITE;
		n.e = (int)exp - f->bias;
		n.sig = (frac | (1ULL << f->mbits)) << (62 - f->mbits);
	} else if (frac) {
		n.cls = RV_FINITE;
		p = 63 - rv_clz64(frac);
		n.e = p + 1 - f->bias - f->mbits;
		n.sig = frac << (62 - p);
	} else {
		n.cls = RV_ZERO;
	}
	return n;
}

static inline bool rv_is_nan(const struct rv_num *n)
{
	return n->cls == RV_QNAN || n->cls == RV_SNAN;
}

/*
 * sig >> n rounded in @rm to an integer (1 <= n <= 63), with *@inexact
 * set when bits were lost.
 */
static __always_inline u64 rv_round_shift(u64 sig, int n, bool sign, u32 rm,
					  bool *inexact)
{
	u64 q = sig >> n;
	u64 rem = sig & ((1ULL << n) - 1);
	u64 half = 1ULL << (n - 1);
	bool up;

	*inexact = rem != 0;
	switch (rm) {
	case RV_RM_RNE:
		up = rem > half || (rem == half && (q & 1));
		break;
	case RV_RM_RMM:
		up = rem >= half;
		break;
	case RV_RM_RDN:
		up = sign && rem;
		break;
	case RV_RM_RUP:
		up = !sign && rem;
		break;
	default:	/* RTZ */
		up = false;
		break;
	}
	return q + up;
}

/* The largest finite value, or infinity, as @rm rounds an overflow. */
static u64 rv_overflow(const struct rv_fmt *f, bool sign, u32 rm, u32 *ff)
{
	bool to_inf;

	*ff |= RV_FF_OF | RV_FF_NX;
	switch (rm) {
	case RV_RM_RTZ:
		to_inf = false;
		break;
	case RV_RM_RDN:
		to_inf = sign;
		break;
	case RV_RM_RUP:
		to_inf = !sign;
		break;
	default:
		to_inf = true;
		break;
	}
	if (to_inf)
		return rv_inf(f, sign);
	return (sign ? rv_signbit(f) : 0) | (((rv_emask(f) - 1) << f->mbits) | rv_mmask(f));
}

/*
 * sig * 2^(e - 62), sig nonzero with its leading one at bit 62 (the bits
 * below bit 0 jammed into it), rounded once in @rm and packed.
 */
static __always_inline u64 rv_round_pack(const struct rv_fmt *f, bool sign,
					 int e, u64 sig, u32 rm, u32 *ff)
{
	int n = 62 - f->mbits;
	int be = e + f->bias;
	bool inexact, tiny = false;
	u64 q, bits;

	if (be >= (int)rv_emask(f))
		return rv_overflow(f, sign, rm, ff);
	if (be <= 0) {
		/*
		 * Below the normal range. Tiny after rounding unless the
		 * value rounded to full precision with an unbounded exponent
		 * reaches the smallest normal, which only a significand of
		 * all ones at be == 0 can do.
		 */
		tiny = be < 0 ||
		       rv_round_shift(sig, n, sign, rm, &inexact) >> (f->mbits + 1) == 0;
		q = rv_round_shift(rv_shr_jam(sig, 1 - be), n, sign, rm, &inexact);
		bits = q;	/* a carry into bit mbits is the smallest normal */
	} else {
		q = rv_round_shift(sig, n, sign, rm, &inexact);
		/* q holds the implicit one: it adds one to the exponent. */
		bits = ((u64)(be - 1) << f->mbits) + q;
	}
	if (inexact) {
		*ff |= RV_FF_NX;
		if (tiny)
			*ff |= RV_FF_UF;
	}
	if ((bits >> f->mbits) >= rv_emask(f))
		return rv_overflow(f, sign, rm, ff);
	return (sign ? rv_signbit(f) : 0) | bits;
}

/* The canonical NaN, NV when an operand is signaling (or @nv). */
static u64 rv_nan(const struct rv_fmt *f, const struct rv_num *a,
		  const struct rv_num *b, const struct rv_num *c, bool nv,
		  u32 *ff)
{
	if (nv || a->cls == RV_SNAN || (b && b->cls == RV_SNAN) ||
	    (c && c->cls == RV_SNAN))
		*ff |= RV_FF_NV;
	return rv_qnan(f);
}

/* An exact zero sum of two values of opposite signs: -0 only in RDN. */
static inline u64 rv_zero_sum(const struct rv_fmt *f, bool sa, bool sb, u32 rm)
{
	if (sa == sb)
		return sa ? rv_signbit(f) : 0;
	return rm == RV_RM_RDN ? rv_signbit(f) : 0;
}

/*
 * a + b, both finite and nonzero, significands with their leading one at
 * bit 126 (or exact with fewer bits): one rounding.
 */
static u64 rv_add_core(const struct rv_fmt *f, bool sa, int ea, __uint128_t ma,
		       bool sb, int eb, __uint128_t mb, u32 rm, u32 *ff)
{
	__uint128_t m;
	int lz;

	if (eb > ea || (eb == ea && mb > ma))
		return rv_add_core(f, sb, eb, mb, sa, ea, ma, rm, ff);
	mb = rv_shr_jam128(mb, ea - eb);
	if (sa == sb) {
		m = ma + mb;
		if (m >> 127) {
			m = rv_shr_jam128(m, 1);
			ea++;
		}
	} else {
		m = ma - mb;
		if (!m)
			return rv_zero_sum(f, sa, sb, rm);
	}
	lz = rv_clz128(m);
	m <<= lz - 1;
	ea -= lz - 1;
	return rv_round_pack(f, sa, ea, rv_jam64(m), rm, ff);
}

static __always_inline u64 rv_add(const struct rv_fmt *f, u64 x, u64 y,
				  bool neg_y, u32 rm, u32 *ff)
{
	struct rv_num a = rv_unpack(f, x), b = rv_unpack(f, y);

	if (neg_y) {
		b.sign = !b.sign;
		y ^= rv_signbit(f);
	}
	if (rv_is_nan(&a) || rv_is_nan(&b))
		return rv_nan(f, &a, &b, NULL, false, ff);
	if (a.cls == RV_INF || b.cls == RV_INF) {
		if (a.cls == RV_INF && b.cls == RV_INF && a.sign != b.sign)
			return rv_nan(f, &a, &b, NULL, true, ff);
		return rv_inf(f, a.cls == RV_INF ? a.sign : b.sign);
	}
	if (a.cls == RV_ZERO)
		return b.cls == RV_ZERO ? rv_zero_sum(f, a.sign, b.sign, rm) : y;
	if (b.cls == RV_ZERO)
		return x;
	return rv_add_core(f, a.sign, a.e, (__uint128_t)a.sig << 64,
			   b.sign, b.e, (__uint128_t)b.sig << 64, rm, ff);
}

/* The exact product of two significands at bit 62, leading one at 126. */
static __always_inline __uint128_t rv_mul_sig(u64 ma, u64 mb, int *e)
{
	__uint128_t p = (__uint128_t)ma * mb;	/* leading one at 124 or 125 */

	if (p >> 125) {
		(*e)++;
		return p << 1;
	}
	return p << 2;
}

static __always_inline u64 rv_mul(const struct rv_fmt *f, u64 x, u64 y, u32 rm,
				  u32 *ff)
{
	struct rv_num a = rv_unpack(f, x), b = rv_unpack(f, y);
	bool sign = a.sign ^ b.sign;
	__uint128_t p;
	int e;

	if (rv_is_nan(&a) || rv_is_nan(&b))
		return rv_nan(f, &a, &b, NULL, false, ff);
	if (a.cls == RV_INF || b.cls == RV_INF) {
		if (a.cls == RV_ZERO || b.cls == RV_ZERO)
			return rv_nan(f, &a, &b, NULL, true, ff);
		return rv_inf(f, sign);
	}
	if (a.cls == RV_ZERO || b.cls == RV_ZERO)
		return sign ? rv_signbit(f) : 0;
	e = a.e + b.e;
	p = rv_mul_sig(a.sig, b.sig, &e);
	return rv_round_pack(f, sign, e, rv_jam64(p), rm, ff);
}

static u64 rv_fma(const struct rv_fmt *f, u64 x, u64 y, u64 z, u32 rm,
		  u32 *ff)
{
	struct rv_num a = rv_unpack(f, x), b = rv_unpack(f, y);
	struct rv_num c = rv_unpack(f, z);
	bool sp = a.sign ^ b.sign;
	bool pinf = a.cls == RV_INF || b.cls == RV_INF;
	bool pzero = a.cls == RV_ZERO || b.cls == RV_ZERO;
	__uint128_t p;
	int e;

	/* RISC-V: inf * 0 is invalid even when the addend is a quiet NaN. */
	if (pinf && pzero)
		return rv_nan(f, &a, &b, &c, true, ff);
	if (rv_is_nan(&a) || rv_is_nan(&b) || rv_is_nan(&c))
		return rv_nan(f, &a, &b, &c, false, ff);
	if (pinf || c.cls == RV_INF) {
		if (pinf && c.cls == RV_INF && sp != c.sign)
			return rv_nan(f, &a, &b, &c, true, ff);
		return rv_inf(f, pinf ? sp : c.sign);
	}
	if (pzero)
		return c.cls == RV_ZERO ? rv_zero_sum(f, sp, c.sign, rm) : z;
	e = a.e + b.e;
	p = rv_mul_sig(a.sig, b.sig, &e);
	if (c.cls == RV_ZERO)
		return rv_round_pack(f, sp, e, rv_jam64(p), rm, ff);
	return rv_add_core(f, sp, e, p, c.sign, c.e, (__uint128_t)c.sig << 64,
			   rm, ff);
}

/*
 * a / b: the quotient of the integer significands, k bits at a time by
 * u64 division (k as large as the remainder allows: 11 bits for binary64,
 * 40 for binary32), until it has two bits more than the significand.
 */
static u64 rv_div(const struct rv_fmt *f, u64 x, u64 y, u32 rm, u32 *ff)
{
	struct rv_num a = rv_unpack(f, x), b = rv_unpack(f, y);
	bool sign = a.sign ^ b.sign;
	int k = 63 - f->mbits, steps = (f->mbits + 1 + k) / k;
	u64 d, rem, q = 0;
	int i, p;

	if (rv_is_nan(&a) || rv_is_nan(&b))
		return rv_nan(f, &a, &b, NULL, false, ff);
	if (a.cls == RV_INF)
		return b.cls == RV_INF ? rv_nan(f, &a, &b, NULL, true, ff) : rv_inf(f, sign);
	if (b.cls == RV_INF || a.cls == RV_ZERO) {
		if (b.cls == RV_ZERO)
			return rv_nan(f, &a, &b, NULL, true, ff);
		return sign ? rv_signbit(f) : 0;
	}
	if (b.cls == RV_ZERO) {
		*ff |= RV_FF_DZ;
		return rv_inf(f, sign);
	}
	/* both below 2^(mbits + 1): rem << k fits */
	d = b.sig >> (62 - f->mbits);
	rem = a.sig >> (62 - f->mbits);
	for (i = 0; i < steps; i++) {
		rem <<= k;
		q = (q << k) | (rem / d);
		rem %= d;
	}
	/* q = a / b * 2^(steps * k), of steps * k or one more bits */
	p = 63 - rv_clz64(q);
	return rv_round_pack(f, sign, a.e - b.e + p - steps * k,
			     (q << (62 - p)) | (rem != 0), rm, ff);
}

/*
 * sqrt(a): the integer root of the significand (times 2 for an odd
 * exponent), one bit a time, to two bits more than the significand; the
 * root's exponent is floor(e / 2). The remainder stays below 2^58.
 */
static u64 rv_sqrt(const struct rv_fmt *f, u64 x, u32 rm, u32 *ff)
{
	struct rv_num a = rv_unpack(f, x);
	int nq = f->mbits + 3;
	u64 src, rem = 0, r = 0, t, ge;
	int i, odd;

	if (rv_is_nan(&a))
		return rv_nan(f, &a, NULL, NULL, false, ff);
	if (a.cls == RV_ZERO)
		return x;
	if (a.sign)
		return rv_nan(f, &a, NULL, NULL, true, ff);
	if (a.cls == RV_INF)
		return x;
	/* the radicand's bits, two by two from bit 63 */
	odd = a.e & 1;
	src = a.sig << odd;
	for (i = 0; i < nq; i++) {
		rem = (rem << 2) | (src >> 62);
		src <<= 2;
		t = (r << 2) | 1;
		ge = rem >= t;	/* without a branch: it goes either way */
		rem -= t & -ge;
		r = (r << 1) | ge;
	}
	return rv_round_pack(f, false, (a.e - odd) / 2,
			     (r << (63 - nq)) | (rem != 0 || src != 0), rm, ff);
}

/* Signed-magnitude order of two non-NaN values: -1, 0, 1; -0 < +0 if @tot. */
static int rv_cmp(const struct rv_fmt *f, u64 x, u64 y, bool tot)
{
	u64 s = rv_signbit(f);
	u64 mx = x & ~s, my = y & ~s;

	if (!tot && !mx && !my)
		return 0;
	if ((x ^ y) & s)
		return x & s ? -1 : 1;
	if (mx == my)
		return 0;
	return (mx < my) ^ !!(x & s) ? -1 : 1;
}

static u64 rv_minmax(const struct rv_fmt *f, u64 x, u64 y, bool max, u32 *ff)
{
	struct rv_num a = rv_unpack(f, x), b = rv_unpack(f, y);

	if (a.cls == RV_SNAN || b.cls == RV_SNAN)
		*ff |= RV_FF_NV;
	if (rv_is_nan(&a))
		return rv_is_nan(&b) ? rv_qnan(f) : y;
	if (rv_is_nan(&b))
		return x;
	return (rv_cmp(f, x, y, true) < 0) ^ max ? x : y;
}

/* FEQ (@quiet), FLT (@lt), FLE. */
static u32 rv_compare(const struct rv_fmt *f, u64 x, u64 y, bool quiet,
		      bool lt, u32 *ff)
{
	struct rv_num a = rv_unpack(f, x), b = rv_unpack(f, y);
	int c;

	if (rv_is_nan(&a) || rv_is_nan(&b)) {
		if (!quiet || a.cls == RV_SNAN || b.cls == RV_SNAN)
			*ff |= RV_FF_NV;
		return 0;
	}
	c = rv_cmp(f, x, y, false);
	if (quiet)
		return c == 0;
	return lt ? c < 0 : c <= 0;
}

static u32 rv_class(const struct rv_fmt *f, u64 x)
{
	struct rv_num a = rv_unpack(f, x);
	bool sub = a.cls == RV_FINITE && !((x >> f->mbits) & rv_emask(f));

	switch (a.cls) {
	case RV_SNAN:
		return 1U << 8;
	case RV_QNAN:
		return 1U << 9;
	case RV_INF:
		return a.sign ? 1U << 0 : 1U << 7;
	case RV_ZERO:
		return a.sign ? 1U << 3 : 1U << 4;
	default:
		if (sub)
			return a.sign ? 1U << 2 : 1U << 5;
		return a.sign ? 1U << 1 : 1U << 6;
	}
}

/*
 * FCVT to a @bits-bit integer, signed or not, as RISC-V: NaN and values
 * out of range after rounding saturate with NV (no NX); a NaN is the
 * largest positive value.
 */
static u64 rv_to_int(const struct rv_fmt *f, u64 x, int bits, bool is_signed,
		     u32 rm, u32 *ff)
{
	struct rv_num a = rv_unpack(f, x);
	u64 max = is_signed ? (1ULL << (bits - 1)) - 1 : ~0ULL >> (64 - bits);
	u64 min = is_signed ? 1ULL << (bits - 1) : 0;	/* its magnitude */
	bool inexact = false;
	u64 q;

	if (rv_is_nan(&a)) {
		*ff |= RV_FF_NV;
		return max;
	}
	if (a.cls == RV_ZERO)
		return 0;
	if (a.cls == RV_INF || a.e > 63)
		goto invalid;
	if (a.e >= 62)
		q = a.sig << (a.e - 62);
	else if (a.e >= -1)
		q = rv_round_shift(a.sig, 62 - a.e, a.sign, rm, &inexact);
	else	/* below 1/2: a sticky bit is all that matters */
		q = rv_round_shift(1, 63, a.sign, rm, &inexact);
	if (a.sign ? q > min : q > max)
		goto invalid;
	if (inexact)
		*ff |= RV_FF_NX;
	return a.sign ? -q : q;
invalid:
	*ff |= RV_FF_NV;
	return a.sign ? (is_signed ? -min : 0) : max;
}

static inline u64 rv_abs(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/* An integer of magnitude @v, negative if @sign, rounded into format @f. */
static u64 rv_from_int(const struct rv_fmt *f, bool sign, u64 v, u32 rm,
		       u32 *ff)
{
	int lz = rv_clz64(v);

	if (!v)
		return 0;
	return rv_round_pack(f, sign, 63 - lz, rv_shr_jam(v << lz, 1), rm, ff);
}

/* A value of format @from, in format @to: exact when @to is wider. */
static u64 rv_convert(const struct rv_fmt *from, const struct rv_fmt *to,
		      u64 x, u32 rm, u32 *ff)
{
	struct rv_num a = rv_unpack(from, x);

	switch (a.cls) {
	case RV_QNAN:
	case RV_SNAN:
		return rv_nan(to, &a, NULL, NULL, false, ff);
	case RV_INF:
		return rv_inf(to, a.sign);
	case RV_ZERO:
		return a.sign ? rv_signbit(to) : 0;
	default:
		return rv_round_pack(to, a.sign, a.e, a.sig, rm, ff);
	}
}

/*
 * The functions of rv_fp.h, each one call of the core, for both formats
 * (RV_FP_OPS(f32) defines rv_f32_add() and the rest); RV_FMT_f32 is the
 * type of a binary32 value.
 */
#define RV_FMT_f32	u32
#define RV_FMT_f64	u64
#define RV_FP_OPS(fmt)								\
RV_FMT_##fmt rv_##fmt##_add(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 rm, u32 *fflags)	\
{									\
	return rv_add(&rv_##fmt, a, b, false, rm, fflags);		\
}									\
RV_FMT_##fmt rv_##fmt##_sub(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 rm, u32 *fflags)	\
{									\
	return rv_add(&rv_##fmt, a, b, true, rm, fflags);		\
}									\
RV_FMT_##fmt rv_##fmt##_mul(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 rm, u32 *fflags)	\
{									\
	return rv_mul(&rv_##fmt, a, b, rm, fflags);			\
}									\
RV_FMT_##fmt rv_##fmt##_div(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 rm, u32 *fflags)	\
{									\
	return rv_div(&rv_##fmt, a, b, rm, fflags);			\
}									\
RV_FMT_##fmt rv_##fmt##_sqrt(RV_FMT_##fmt a, u32 rm, u32 *fflags)	\
{									\
	return rv_sqrt(&rv_##fmt, a, rm, fflags);			\
}									\
RV_FMT_##fmt rv_##fmt##_fma(RV_FMT_##fmt a, RV_FMT_##fmt b,		\
			    RV_FMT_##fmt c, u32 rm, u32 *fflags)	\
{									\
	return rv_fma(&rv_##fmt, a, b, c, rm, fflags);			\
}									\
RV_FMT_##fmt rv_##fmt##_min(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 *fflags)	\
{									\
	return rv_minmax(&rv_##fmt, a, b, false, fflags);		\
}									\
RV_FMT_##fmt rv_##fmt##_max(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 *fflags)	\
{									\
	return rv_minmax(&rv_##fmt, a, b, true, fflags);		\
}									\
u32 rv_##fmt##_eq(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 *fflags)		\
{									\
	return rv_compare(&rv_##fmt, a, b, true, false, fflags);	\
}									\
u32 rv_##fmt##_lt(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 *fflags)		\
{									\
	return rv_compare(&rv_##fmt, a, b, false, true, fflags);	\
}									\
u32 rv_##fmt##_le(RV_FMT_##fmt a, RV_FMT_##fmt b, u32 *fflags)		\
{									\
	return rv_compare(&rv_##fmt, a, b, false, false, fflags);	\
}									\
u32 rv_##fmt##_class(RV_FMT_##fmt a)					\
{									\
	return rv_class(&rv_##fmt, a);					\
}									\
s32 rv_##fmt##_to_i32(RV_FMT_##fmt a, u32 rm, u32 *fflags)		\
{									\
	return rv_to_int(&rv_##fmt, a, 32, true, rm, fflags);		\
}									\
u32 rv_##fmt##_to_u32(RV_FMT_##fmt a, u32 rm, u32 *fflags)		\
{									\
	return rv_to_int(&rv_##fmt, a, 32, false, rm, fflags);		\
}									\
s64 rv_##fmt##_to_i64(RV_FMT_##fmt a, u32 rm, u32 *fflags)		\
{									\
	return rv_to_int(&rv_##fmt, a, 64, true, rm, fflags);		\
}									\
u64 rv_##fmt##_to_u64(RV_FMT_##fmt a, u32 rm, u32 *fflags)		\
{									\
	return rv_to_int(&rv_##fmt, a, 64, false, rm, fflags);		\
}									\
RV_FMT_##fmt rv_i32_to_##fmt(s32 v, u32 rm, u32 *fflags)		\
{									\
	return rv_from_int(&rv_##fmt, v < 0, rv_abs(v), rm, fflags);	\
}									\
RV_FMT_##fmt rv_u32_to_##fmt(u32 v, u32 rm, u32 *fflags)		\
{									\
	return rv_from_int(&rv_##fmt, false, v, rm, fflags);		\
}									\
RV_FMT_##fmt rv_i64_to_##fmt(s64 v, u32 rm, u32 *fflags)		\
{									\
	return rv_from_int(&rv_##fmt, v < 0, rv_abs(v), rm, fflags);	\
}									\
RV_FMT_##fmt rv_u64_to_##fmt(u64 v, u32 rm, u32 *fflags)		\
{									\
	return rv_from_int(&rv_##fmt, false, v, rm, fflags);		\
}

RV_FP_OPS(f32)
RV_FP_OPS(f64)

/**
 * rv_f32_to_f64() - FCVT.D.S: a binary32 value as binary64, exactly
 * @a: the binary32 value
 * @fflags: (out) NV ORed in for a signaling NaN
 *
 * Return: the binary64 value; a NaN becomes the canonical NaN.
 */
u64 rv_f32_to_f64(u32 a, u32 *fflags)
{
	return rv_convert(&rv_f32, &rv_f64, a, RV_RM_RNE, fflags);
}

/**
 * rv_f64_to_f32() - FCVT.S.D: a binary64 value rounded to binary32
 * @a: the binary64 value
 * @rm: RV_RM_*
 * @fflags: (out) the exceptions raised, ORed in
 *
 * Return: the binary32 value; a NaN becomes the canonical NaN.
 */
u32 rv_f64_to_f32(u64 a, u32 rm, u32 *fflags)
{
	return rv_convert(&rv_f64, &rv_f32, a, rm, fflags);
}
