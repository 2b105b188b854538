// SPDX-License-Identifier: GPL-2.0
/*
 * clc-test: the OpenCL C built-in functions of the device library
 * (tools/cl/clc/, nvclc.bc) on the host. clc-kernels.cl, compiled and
 * linked with the library by tools/gpu/build-kernel.sh, runs in the SMs'
 * interpreter (src/vgpu/rv.c, through rv_host.h); global memory is the
 * host's, at the same addresses (an arena, checked). The results are
 * checked against the host: libm (long double for the double functions)
 * within the OpenCL ULP bounds, and exact answers for the integer
 * functions, conversions (with fesetround), half conversions (against a
 * search of all halves), atomics, work-item functions and vector
 * loads/stores. Prints KTAP; the largest error of each math function in
 * ulps goes to the diagnostics. Exit status: 0 when every test passed.
 */
#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "rv.h"
#include "clc-kernels.h"
#include "clc-kernels-cl12.h"

#define ARENA		(64UL << 20)
#define PRIV		(64U << 10)
#define LOCAL		4096U

struct targs {
	u64 fn, n;
	u64 x, y, z, r, r2, ri;
};

static u8 *arena;
static size_t arena_used;
/* The two builds of clc-kernels.cl: entry offsets of each, and its name. */
struct image {
	const char *tag;
	const u8 *bytes;
	u32 size;
	u32 mathf, mathd, mathf16, mathd3;
	u32 ints, convert, half, workitem, atomics, counter, misc;
	u32 async, c11;
};

#define IMAGE(tag, N, n, c11)						\
	{ tag, n##_image, sizeof(n##_image), N##_MATHF, N##_MATHD,	\
	  N##_MATHF16, N##_MATHD3,					\
	  N##_INTS, N##_CONVERT, N##_HALF, N##_WORKITEM, N##_ATOMICS,	\
	  N##_COUNTER, N##_MISC, N##_ASYNC, c11 }

static const struct image images[] = {
	IMAGE("CL2.0", GPU_CLC_KERNELS, gpu_clc_kernels, GPU_CLC_KERNELS_C11),
	IMAGE("CL1.2", GPU_CLC_KERNELS_CL12, gpu_clc_kernels_cl12, 0),
};

static const struct image *img;
static struct rv_prog *prog;
static u64 insns;	/* instructions retired by the last run */
static int num, failed;

/* Zeroed arena memory, 16-byte aligned; the whole arena is reset per test. */
static void *get(size_t bytes)
{
	void *p = arena + arena_used;

	arena_used += (bytes + 15) & ~15UL;
	if (arena_used > ARENA) {
		fprintf(stderr, "clc-test: arena full\n");
		exit(2);
	}
	return memset(p, 0, bytes);
}

static u64 va(const void *p)
{
	return (u64)(uintptr_t)p;
}

/* A fresh arena: the argument block, and n elements of es bytes for each array. */
static struct targs *args(u64 fn, int n, size_t es)
{
	struct targs *a;

	arena_used = 0;
	a = get(sizeof(*a));
	*a = (struct targs){ .fn = fn, .n = n, .x = va(get(n * es)),
			     .y = va(get(n * es)), .z = va(get(n * es)),
			     .r = va(get(n * es)), .r2 = va(get(n * es)),
			     .ri = va(get(n * 4)) };
	return a;
}

/* An array of the argument block. */
#define P(a, f)		((void *)(uintptr_t)(a)->f)

/* Global accesses: the arena only. */
static int host_global(void *env, struct rv_mem *m)
{
	u8 *p = (u8 *)(uintptr_t)m->va;
	u64 old = 0, new;

	(void)env;
	if (p < arena || p + m->size > arena + ARENA)
		return RV_MEM_STOP;
	memcpy(&old, p, m->size);
	if (m->kind == RV_LOAD) {
		m->val = old;
	} else if (m->kind == RV_STORE) {
		memcpy(p, &m->val, m->size);
	} else {
		if (rv_amo_new(m, old, &new))
			memcpy(p, &new, m->size);
		m->val = old;
	}
	return RV_MEM_OK;
}

static u8 local_mem[LOCAL];

/* The group of one launch: 1 dimension, n items in one group, unless set. */
static void group_init(struct rv_group *g, const struct targs *a, u32 items)
{
	int d;

	memset(g, 0, sizeof(*g));
	g->prog = prog;
	g->param = a;
	g->param_size = sizeof(*a);
	g->local = local_mem;
	g->local_size = LOCAL;
	g->priv_size = PRIV;
	g->global = host_global;
	for (d = 0; d < 3; d++) {
		g->csr[NVSVM_GPU_CSR_LOCAL_SIZE - NVSVM_GPU_CSR_GLOBAL_ID + d] = d ? 1 : items;
		g->csr[NVSVM_GPU_CSR_ENQUEUED_LOCAL_SIZE - NVSVM_GPU_CSR_GLOBAL_ID + d] = d ? 1 : items;
		g->csr[NVSVM_GPU_CSR_GLOBAL_SIZE - NVSVM_GPU_CSR_GLOBAL_ID + d] = d ? 1 : items;
		g->csr[NVSVM_GPU_CSR_NUM_GROUPS - NVSVM_GPU_CSR_GLOBAL_ID + d] = 1;
	}
	g->csr[NVSVM_GPU_CSR_WORK_DIM - NVSVM_GPU_CSR_GLOBAL_ID] = 1;
}

/*
 * Run @items work-items of @g from @entry, round robin @quantum
 * instructions at a time; a work-item at a barrier waits until every
 * work-item that has not ended is at it. Return: 0, or -1 on a trap or a
 * bad access.
 */
static int run_group(struct rv_group *g, u32 entry, u32 items, u32 quantum,
		     const u32 (*lid)[3])
{
	static u8 priv[16][PRIV];
	struct rv_hart h[16];
	bool done[16] = { false }, wait[16] = { false };
	u32 i, left = items, waiting = 0;
	struct rv_trap trap;
	int r;

	for (i = 0; i < items; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].priv = priv[i];
		h[i].budget = 1ULL << 40;
		if (lid)
			memcpy(h[i].lid, lid[i], sizeof(h[i].lid));
		else
			h[i].lid[0] = i;
		rv_hart_init(&h[i], g, entry);
	}
	insns = 0;
	while (left) {
		if (waiting == left) {	/* all at the barrier: go on */
			memset(wait, 0, sizeof(wait));
			waiting = 0;
		}
		for (i = 0; i < items; i++) {
			if (done[i] || wait[i])
				continue;
			r = rv_run(&h[i], g, quantum, &trap);
			insns += h[i].insns;
			h[i].insns = 0;
			if (r == RV_STOP_EXIT) {
				done[i] = true;
				left--;
			} else if (r == RV_STOP_BARRIER) {
				wait[i] = true;
				waiting++;
			} else if (r == RV_STOP_TRAP || r == RV_STOP_MEM) {
				printf("# item %u: %s cause %u pc %#llx tval %#llx\n",
				       i, r == RV_STOP_TRAP ? "trap" : "bad access",
				       trap.cause, (unsigned long long)trap.pc,
				       (unsigned long long)trap.tval);
				return -1;
			}
		}
	}
	return 0;
}

static int run(u32 entry, const struct targs *a)
{
	struct rv_group g;

	group_init(&g, a, 1);
	return run_group(&g, entry, 1, 1U << 20, NULL);
}

static void result(bool ok, const char *name)
{
	printf("%sok %d %s %s\n", ok ? "" : "not ", ++num, name, img->tag);
	failed += !ok;
}

/* ---- random inputs ---- */

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double uni(double lo, double hi)
{
	return lo + (hi - lo) * (double)(rnd() >> 11) * 0x1p-53;
}

/* ---- math ---- */

enum dom { ANY, SMALL, UNIT, POS, TRIG, EXPD, GAM, INTY };

/* A math function: its number in clc-kernels.cl, reference, bound. */
struct mfn {
	int fn;
	const char *name;
	long double (*ref1)(long double);
	long double (*ref2)(long double, long double);
	double ulps;		/* the OpenCL bound, float and double alike */
	enum dom dom;
};

#define PI_L 3.14159265358979323846264338327950288L

/* sin (@c 0) or cos (@c 1) of pi x, reduced exactly to |r| <= 1/4. */
static long double r_scpi(long double x, int c)
{
	long double a = fabsl(x), n, r, v;
	int q;

	if (isinf(x) || isnan(x))
		return NAN;
	a = fmodl(a, 2);
	n = rintl(2 * a);
	r = a - n / 2;
	q = ((int)n + c) & 3;
	v = q == 0 ? sinl(PI_L * r) : q == 1 ? cosl(PI_L * r) :
	    q == 2 ? -sinl(PI_L * r) : -cosl(PI_L * r);
	if (v == 0)
		v = 0;
	return !c && signbit(x) ? -v : v;
}

static long double r_sinpi(long double x) { return r_scpi(x, 0); }
static long double r_cospi(long double x) { return r_scpi(x, 1); }
static long double r_tanpi(long double x) { return r_sinpi(x) / r_cospi(x); }
static long double r_exp10(long double x) { return powl(10, x); }
static long double r_rsqrt(long double x) { return 1 / sqrtl(x); }
static long double r_logb(long double x) { return logbl(x); }
static long double r_asinpi(long double x) { return asinl(x) / PI_L; }
static long double r_acospi(long double x) { return acosl(x) / PI_L; }
static long double r_atanpi(long double x) { return atanl(x) / PI_L; }
static long double r_atan2pi(long double y, long double x) { return atan2l(y, x) / PI_L; }
static bool mdbl;	/* the type under test is double */

/* x - y rounded once, in the type itself. */
static long double r_fdim(long double x, long double y)
{
	if (isnan(x) || isnan(y))
		return NAN;
	if (x <= y)
		return 0;
	return mdbl ? (double)x - (double)y : (float)x - (float)y;
}
static long double r_maxmag(long double x, long double y)
{
	return fabsl(x) > fabsl(y) ? x : fabsl(y) > fabsl(x) ? y : fmaxl(x, y);
}
static long double r_minmag(long double x, long double y)
{
	return fabsl(x) < fabsl(y) ? x : fabsl(y) < fabsl(x) ? y : fminl(x, y);
}
static long double r_powr(long double x, long double y)
{
	if (x < 0 || (x == 0 && y == 0) || (x == 1 && isinf(y)) || (isinf(x) && y == 0))
		return NAN;
	return powl(x, y);
}

static const struct mfn mfns[] = {
	{ 0, "sin", sinl, NULL, 4, TRIG }, { 1, "cos", cosl, NULL, 4, TRIG },
	{ 2, "tan", tanl, NULL, 5, TRIG }, { 3, "exp", expl, NULL, 3, EXPD },
	{ 4, "exp2", exp2l, NULL, 3, EXPD }, { 5, "exp10", r_exp10, NULL, 3, EXPD },
	{ 6, "expm1", expm1l, NULL, 3, EXPD }, { 7, "log", logl, NULL, 3, POS },
	{ 8, "log2", log2l, NULL, 3, POS }, { 9, "log10", log10l, NULL, 3, POS },
	{ 10, "log1p", log1pl, NULL, 2, POS }, { 11, "asin", asinl, NULL, 4, UNIT },
	{ 12, "acos", acosl, NULL, 4, UNIT }, { 13, "atan", atanl, NULL, 5, ANY },
	{ 14, "sinh", sinhl, NULL, 4, EXPD }, { 15, "cosh", coshl, NULL, 4, EXPD },
	{ 16, "tanh", tanhl, NULL, 5, SMALL }, { 17, "asinh", asinhl, NULL, 4, ANY },
	{ 18, "acosh", acoshl, NULL, 4, POS }, { 19, "atanh", atanhl, NULL, 5, UNIT },
	{ 20, "cbrt", cbrtl, NULL, 2, ANY }, { 21, "erf", erfl, NULL, 16, SMALL },
	{ 22, "erfc", erfcl, NULL, 16, SMALL }, { 23, "tgamma", tgammal, NULL, 16, GAM },
	{ 25, "sinpi", r_sinpi, NULL, 4, TRIG }, { 26, "cospi", r_cospi, NULL, 4, TRIG },
	{ 27, "tanpi", r_tanpi, NULL, 6, TRIG }, { 28, "sqrt", sqrtl, NULL, 0.5, POS },
	{ 29, "rsqrt", r_rsqrt, NULL, 2, POS }, { 30, "floor", floorl, NULL, 0, ANY },
	{ 31, "ceil", ceill, NULL, 0, ANY }, { 32, "trunc", truncl, NULL, 0, ANY },
	{ 33, "round", roundl, NULL, 0, ANY }, { 34, "rint", rintl, NULL, 0, ANY },
	{ 35, "logb", r_logb, NULL, 0, ANY }, { 36, "asinpi", r_asinpi, NULL, 5, UNIT },
	{ 37, "acospi", r_acospi, NULL, 5, UNIT }, { 38, "atanpi", r_atanpi, NULL, 5, ANY },
	{ 39, "fabs", fabsl, NULL, 0, ANY },
	{ 40, "pow", NULL, powl, 16, POS }, { 41, "atan2", NULL, atan2l, 6, ANY },
	{ 42, "hypot", NULL, hypotl, 4, ANY }, { 43, "fmod", NULL, fmodl, 0, ANY },
	{ 44, "remainder", NULL, remainderl, 0, ANY }, { 45, "fdim", NULL, r_fdim, 0, ANY },
	{ 46, "fmax", NULL, fmaxl, 0, ANY }, { 47, "fmin", NULL, fminl, 0, ANY },
	{ 49, "powr", NULL, r_powr, 16, POS }, { 50, "maxmag", NULL, r_maxmag, 0, ANY },
	{ 51, "minmag", NULL, r_minmag, 0, ANY }, { 52, "copysign", NULL, copysignl, 0, ANY },
	{ 53, "atan2pi", NULL, r_atan2pi, 6, ANY },
};

/* Inputs of a domain: specials, random bit patterns, then the range. */
static double input(enum dom dom, int i, bool dbl)
{
	static const double sp[] = { 0.0, -0.0, 1, -1, 0.5, -0.5, 2, INFINITY,
		-INFINITY, NAN, 1e-40, -1e-310, 1e30, 3, -3, 0.25 };
	u64 b = rnd();
	u32 b32 = b;
	double x, d;
	float f;

	if (i < (int)(sizeof(sp) / sizeof(sp[0])))
		return sp[i];
	if (i % 4 == 0) {
		memcpy(&d, &b, 8);
		memcpy(&f, &b32, 4);
		return dbl ? d : f;
	}
	switch (dom) {
	case SMALL:
		x = uni(-8, 8);
		break;
	case UNIT:
		x = uni(-1, 1);
		break;
	case POS:
		x = i % 3 ? exp2(uni(-60, 60)) : uni(0, 4);
		break;
	case TRIG:
		x = i % 3 ? uni(-10, 10) : uni(-1e6, 1e6);
		break;
	case EXPD:
		x = uni(dbl ? -750 : -110, dbl ? 750 : 110);
		break;
	case GAM:
		x = i % 3 ? uni(-30, 30) : uni(0, dbl ? 180 : 40);
		break;
	default:
		x = (i & 1 ? 1 : -1) * exp2(uni(-80, 80));
		break;
	}
	return dbl ? x : (float)x;
}

/* The error of @r against @ref in ulps of the type (24 or 53 bits). */
static double ulp_err(double r, long double ref, bool dbl)
{
	int mant = dbl ? 53 : 24, emin = dbl ? -1022 : -126, e;
	long double rr = dbl ? (long double)(double)ref : (long double)(float)ref;

	if (isnan(ref))
		return isnan(r) ? 0 : INFINITY;
	if (isnan(r))
		return INFINITY;
	if (isinf(rr) || isinf(r))
		return (long double)r == rr ? 0 : INFINITY;
	if (ref == 0 && r == 0)
		return !!signbit(r) == !!signbit(ref) ? 0 : INFINITY;
	if ((long double)r == rr)
		return 0;
	e = ilogbl(ref);
	if (e < emin)
		e = emin;
	return fabsl((long double)r - ref) / ldexpl(1, e - mant + 1);
}

/* @vec: the float16 or double3 kernel (n a multiple of 16 or 3). */
static void test_math(bool dbl, bool vec, int n)
{
	u32 entry = vec ? (dbl ? img->mathd3 : img->mathf16) : dbl ? img->mathd : img->mathf;
	const char *tn = vec ? (dbl ? "double3" : "float16") : dbl ? "double" : "float";
	size_t es = dbl ? 8 : 4;
	char name[64];
	unsigned int f;
	int i, bad, worst_i;
	double worst, e;

	mdbl = dbl;
	for (f = 0; f < sizeof(mfns) / sizeof(mfns[0]); f++) {
		const struct mfn *m = &mfns[f];
		struct targs *a = args(m->fn, n, es);
		u8 *x = P(a, x), *y = P(a, y), *r = P(a, r);

		for (i = 0; i < n; i++) {
			double xi = input(m->dom, i, dbl);
			double yi = m->fn == 40 && i % 5 == 0 ? (double)(int)uni(-40, 40) :
				    input(m->fn == 40 || m->fn == 49 ? SMALL : m->dom, (i * 7) % n, dbl);

			if (dbl) {
				((double *)x)[i] = xi;
				((double *)y)[i] = yi;
			} else {
				((float *)x)[i] = xi;
				((float *)y)[i] = yi;
			}
		}
		snprintf(name, sizeof(name), "%s_%s", m->name, tn);
		if (run(entry, a)) {
			result(false, name);
			continue;
		}
		bad = 0;
		worst = 0;
		worst_i = 0;
		for (i = 0; i < n; i++) {
			long double xi = dbl ? ((double *)x)[i] : ((float *)x)[i];
			long double yi = dbl ? ((double *)y)[i] : ((float *)y)[i];
			double ri = dbl ? ((double *)r)[i] : ((float *)r)[i];
			long double ref;

			if (!dbl) {	/* the float reference: libm in double */
				xi = (double)xi;
				yi = (double)yi;
			}
			ref = m->ref1 ? m->ref1(xi) : m->ref2(xi, yi);
			if (m->fn == 23 && xi < 0 && xi == floorl(xi))
				ref = NAN;	/* tgamma of a negative integer */
			e = ulp_err(ri, ref, dbl);
			if (e > worst) {
				worst = e;
				worst_i = i;
			}
			if (e > m->ulps) {
				if (bad++ < 3)
					printf("# %s(%.17Lg, %.17Lg) = %.17g, want %.17Lg (%.3g ulp)\n",
					       name, xi, yi, ri, ref, e);
			}
		}
		printf("# %s: max %.3g ulp (at %.17g), %llu instructions a call\n",
		       name, worst, dbl ? ((double *)x)[worst_i] : ((float *)x)[worst_i],
		       (unsigned long long)(insns / n));
		result(!bad, name);
	}
}

/* The functions with int arguments or results (fn 54, 60 to 69). */
static void test_math2(bool dbl, bool vec, int n)
{
	static const char *const names[] = { "fma", "ldexp", "pown", "rootn",
		"frexp", "ilogb", "remquo", "fract", "modf", "sincos", "lgamma_r" };
	static const int fns[] = { 54, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69 };
	u32 entry = vec ? (dbl ? img->mathd3 : img->mathf16) : dbl ? img->mathd : img->mathf;
	const char *tn = vec ? (dbl ? "double3" : "float16") : dbl ? "double" : "float";
	size_t es = dbl ? 8 : 4;
	char name[64];
	unsigned int f;
	int i, bad;

	for (f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		struct targs *a = args(fns[f], n, es);
		u8 *x = P(a, x), *y = P(a, y), *r = P(a, r), *r2 = P(a, r2);
		int *k = P(a, z), *ri = P(a, ri);

		for (i = 0; i < n; i++) {
			double xi = input(fns[f] == 61 || fns[f] == 62 ? POS : ANY, i, dbl);
			double yi = input(SMALL, (i * 7) % n, dbl);

			if (fns[f] == 62 && i % 3 == 0)
				xi = -xi;
			k[i] = fns[f] == 60 ? (int)uni(-300, 300) : (int)uni(-12, 12);
			if (dbl) {
				((double *)x)[i] = xi;
				((double *)y)[i] = yi;
			} else {
				((float *)x)[i] = xi;
				((float *)y)[i] = yi;
			}
		}
		snprintf(name, sizeof(name), "%s_%s", names[f], tn);
		if (run(entry, a)) {
			result(false, name);
			continue;
		}
		bad = 0;
		for (i = 0; i < n; i++) {
			double xi = dbl ? ((double *)x)[i] : ((float *)x)[i];
			double yi = dbl ? ((double *)y)[i] : ((float *)y)[i];
			double ri0 = dbl ? ((double *)r)[i] : ((float *)r)[i];
			double r2i = dbl ? ((double *)r2)[i] : ((float *)r2)[i];
			long double ref = 0, ref2 = 0;
			double e, e2 = 0, bound = 0;
			int q, ki = k[i];

			switch (fns[f]) {
			case 54:
				ref = dbl ? fma(xi, yi, xi) : fmaf(xi, yi, xi);
				break;
			case 60:
				ref = ldexpl(xi, ki);
				break;
			case 61:
				ref = powl(xi, ki);
				bound = 16;
				break;
			case 62:
				ref = ki == 0 || (xi < 0 && !(ki & 1)) ? NAN :
				      signbit(xi) && (ki & 1) ? -powl(-(long double)xi, 1.0L / ki) :
				      powl(xi, 1.0L / ki);
				bound = 16;
				break;
			case 63:
				ref = frexp(xi, &q);
				if (isfinite(xi) && q != ri[i])
					e2 = INFINITY;
				break;
			case 64:
				/* OpenCL's FP_ILOGBNAN is INT_MAX */
				ref = xi == 0 ? INT_MIN : isnan(xi) ? INT_MAX :
				      isinf(xi) ? INT_MAX : ilogb(xi);
				break;
			case 65:
				ref = remquo(xi, yi, &q);
				if (!isnan(ref) && ((q ^ ri[i]) & 7))
					e2 = INFINITY;
				break;
			case 66:
				ref = isinf(xi) ? copysign(0, xi) :
				      fmin(xi - floor(xi), dbl ? 0x1.fffffffffffffp-1 : 0x1.fffffep-1);
				ref2 = floor(xi);
				e2 = ulp_err(r2i, ref2, dbl);
				break;
			case 67:
				ref = modf(xi, &e);
				ref2 = e;
				e2 = ulp_err(r2i, ref2, dbl);
				break;
			case 68:
				ref = sinl(xi);
				ref2 = cosl(xi);
				e2 = ulp_err(r2i, ref2, dbl) > 4 ? INFINITY : 0;
				bound = 4;
				break;
			case 69:
				/* no bound in the specification: the sign, and near */
				ref = lgammal(xi);
				if (isfinite(xi) && xi != floor(xi) &&
				    (ri[i] < 0) != (signgam < 0))
					e2 = INFINITY;
				if (fabsl(ri0 - ref) < (dbl ? 0x1p-44 : 0x1p-20))
					ref = ri0;
				bound = 64;
				break;
			}
			e = ulp_err(ri0, ref, dbl);
			if (e > bound || e2 > 0) {
				if (bad++ < 3)
					printf("# %s(%.17g, %.17g, %d) = %.17g %.17g %d, want %.17Lg %.17Lg\n",
					       name, xi, yi, ki, ri0, r2i, ri[i], ref, ref2);
			}
		}
		result(!bad, name);
	}
}

/* ---- integer functions ---- */

struct ity {
	const char *name;
	int bits;
	bool sgn;
};

static const struct ity itys[8] = {
	{ "char", 8, true }, { "uchar", 8, false }, { "short", 16, true },
	{ "ushort", 16, false }, { "int", 32, true }, { "uint", 32, false },
	{ "long", 64, true }, { "ulong", 64, false },
};

typedef __int128 i128;
typedef unsigned __int128 u128;

/* @v as a value of type @t. */
static i128 ival(u64 v, const struct ity *t)
{
	u64 m = t->bits == 64 ? ~0ULL : (1ULL << t->bits) - 1;

	v &= m;
	if (t->sgn && (v >> (t->bits - 1)) & 1)
		return (i128)v - ((i128)1 << t->bits);
	return v;
}

static i128 imin(const struct ity *t)
{
	return t->sgn ? -((i128)1 << (t->bits - 1)) : 0;
}

static i128 imax(const struct ity *t)
{
	return t->sgn ? ((i128)1 << (t->bits - 1)) - 1 : ((i128)1 << t->bits) - 1;
}

static i128 isat(i128 v, const struct ity *t)
{
	return v < imin(t) ? imin(t) : v > imax(t) ? imax(t) : v;
}

/* Floor division by 2^k of an i128. */
static i128 ishr(i128 v, int k)
{
	return v >> k;
}

static i128 iref(int op, i128 x, i128 y, i128 z, const struct ity *t)
{
	int b = t->bits, c = 0, j;
	u64 ux = (u64)x & (b == 64 ? ~0ULL : (1ULL << b) - 1);
	u128 p;

	switch (op) {
	case 0: return x < 0 ? -x : x;
	case 1: return x > y ? x - y : y - x;
	case 2: return isat(x + y, t);
	case 3: return isat(x - y, t);
	case 4: return ishr(x + y, 1);
	case 5: return ishr(x + y + 1, 1);
	case 6:
		for (j = b - 1; j >= 0 && !((ux >> j) & 1); j--)
			c++;
		return c;
	case 7: return __builtin_popcountll(ux);
	case 8:
	case 9:
		if (b == 64 && !t->sgn)
			p = ((u128)(u64)x * (u64)y) >> 64;
		else
			p = (u128)ishr(x * y, b);
		return (i128)p + (op == 9 ? z : 0);
	case 10:
		if (b == 64 && !t->sgn) {
			p = (u128)(u64)x * (u64)y + (u64)z;
			return p > (u128)imax(t) ? imax(t) : (i128)p;
		}
		return isat(x * y + z, t);
	case 11:
		j = (int)((u64)y & (b - 1));
		return j ? (i128)(((ux << j) | (ux >> (b - j)))) : (i128)ux;
	case 12: return x > y ? x : y;
	case 13: return x < y ? x : y;
	case 15:
		for (j = 0; j < b && !((ux >> j) & 1); j++)
			c++;
		return c;
	default: {
		i128 lo = y < z ? y : z, hi = y < z ? z : y;

		return x < lo ? lo : x > hi ? hi : x;
	}
	}
}

static u64 iedge(int i, const struct ity *t)
{
	static const i128 e[] = { 0, 1, -1, 2, -2, 3 };

	if (i < 6)
		return (u64)e[i];
	if (i == 6)
		return (u64)imin(t);
	if (i == 7)
		return (u64)imax(t);
	if (i == 8)
		return (u64)imax(t) - 1;
	return i % 3 ? rnd() >> (rnd() % 64) : rnd();
}

static void test_ints(int n)
{
	static const char *const ops[] = { "abs", "abs_diff", "add_sat",
		"sub_sat", "hadd", "rhadd", "clz", "popcount", "mul_hi",
		"mad_hi", "mad_sat", "rotate", "max", "min", "clamp", "ctz" };
	unsigned int ti, op;
	int i, bad;
	char name[64];

	for (ti = 0; ti < 8; ti++) {
		const struct ity *t = &itys[ti];
		u64 m = t->bits == 64 ? ~0ULL : (1ULL << t->bits) - 1;

		for (op = 0; op < (img->c11 ? 16U : 15U); op++) {
			struct targs *a = args(ti * 16 + op, n, 8);
			u64 *x = P(a, x), *y = P(a, y), *z = P(a, z), *r = P(a, r);

			for (i = 0; i < n; i++) {
				x[i] = iedge(i % 37 < 10 ? i % 37 : 99, t);
				y[i] = iedge((i / 10) % 10, t);
				z[i] = iedge(i % 11 < 9 ? i % 11 : 99, t);
				if (i > 100) {
					y[i] = iedge(99, t);
					z[i] = iedge(99, t);
				}
			}
			snprintf(name, sizeof(name), "%s_%s", ops[op], t->name);
			if (run(img->ints, a)) {
				result(false, name);
				continue;
			}
			bad = 0;
			for (i = 0; i < n; i++) {
				i128 ref = iref(op, ival(x[i], t), ival(y[i], t),
						ival(z[i], t), t);

				if ((r[i] & m) != ((u64)ref & m) && bad++ < 3)
					printf("# %s(%#llx, %#llx, %#llx) = %#llx, want %#llx\n",
					       name, (unsigned long long)(x[i] & m),
					       (unsigned long long)(y[i] & m),
					       (unsigned long long)(z[i] & m),
					       (unsigned long long)(r[i] & m),
					       (unsigned long long)((u64)ref & m));
			}
			result(!bad, name);
		}
	}
}

/* upsample, mul24, mad24 (fn 128 to 131). */
static void test_ints2(int n)
{
	static const char *const names[] = { "upsample_char", "upsample_uint",
		"mul24", "mad24" };
	int f, i, bad;

	for (f = 0; f < 4; f++) {
		struct targs *a = args(128 + f, n, 8);
		u64 *x = P(a, x), *y = P(a, y), *z = P(a, z), *r = P(a, r), ref;

		for (i = 0; i < n; i++) {
			x[i] = rnd();
			y[i] = rnd();
			z[i] = rnd();
		}
		if (run(img->ints, a)) {
			result(false, names[f]);
			continue;
		}
		bad = 0;
		for (i = 0; i < n; i++) {
			s32 x24 = (s32)((u32)x[i] << 8) >> 8, y24 = (s32)((u32)y[i] << 8) >> 8;

			switch (f) {
			case 0:
				ref = (u64)(s64)(s16)(((s8)x[i] << 8) | (u8)y[i]);
				break;
			case 1:
				ref = (x[i] << 32) | (u32)y[i];
				break;
			case 2:
				ref = (u64)(s64)(s32)(x24 * y24);
				break;
			default:
				ref = (u32)(((u32)x[i] & 0xffffff) * ((u32)y[i] & 0xffffff) + (u32)z[i]);
				break;
			}
			if (r[i] != ref && bad++ < 3)
				printf("# %s(%#llx, %#llx) = %#llx, want %#llx\n", names[f],
				       (unsigned long long)x[i], (unsigned long long)y[i],
				       (unsigned long long)r[i], (unsigned long long)ref);
		}
		result(!bad, names[f]);
	}
}

/* ---- conversions ---- */

/* double -> integer in [lo, hi]: rounded in mode @rm, saturated, NaN 0. */
static s64 sat_ref(double x, int rm, double lo, double hi)
{
	double r;

	fesetround(rm);
	r = nearbyint(x);
	fesetround(FE_TONEAREST);
	if (isnan(r))
		return 0;
	if (r <= lo)
		return (s64)lo;
	if (r >= hi)
		return hi >= 0x1p63 ? INT64_MAX : (s64)hi;
	return (s64)r;
}

static u64 f2u(float f)
{
	u32 b;

	memcpy(&b, &f, 4);
	return b;
}

static u64 d2u(double d)
{
	u64 b;

	memcpy(&b, &d, 8);
	return b;
}

/* The reference of conversion @fn of (x, l), rounded as it says. */
static u64 cv_ref(int fn, double x, s64 l)
{
	static const int rm[] = { FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD };
	float f = (float)x, fr;
	double dr;
	u64 v;

	switch (fn) {
	case 0: case 1: case 2: case 3:
		return (u32)sat_ref(f, rm[fn], INT32_MIN, INT32_MAX);
	case 4:
		return (u32)sat_ref(f, FE_TOWARDZERO, INT32_MIN, INT32_MAX);
	case 5:
		return (u8)sat_ref(x, FE_TONEAREST, 0, 255);
	case 6:
		return (u64)sat_ref(x, FE_DOWNWARD, -0x1p63, 0x1p63);
	case 7:
		fesetround(FE_UPWARD);
		dr = nearbyint(x);
		fesetround(FE_TONEAREST);
		return isnan(dr) || dr <= 0 ? 0 : dr >= 0x1p64 ? UINT64_MAX : (u64)dr;
	case 8:
		return (u16)(l < INT16_MIN ? INT16_MIN : l > INT16_MAX ? INT16_MAX : l);
	case 9:
		return (u8)(l < 0 ? 0 : l > 255 ? 255 : l);
	case 23:
		return (u32)sat_ref(f, FE_TONEAREST, INT32_MIN, INT32_MAX);
	case 24:
		return (u32)sat_ref(f, FE_TONEAREST, INT32_MIN, INT32_MAX);
	}
	/* to float or double, in a rounding mode */
	fesetround(fn == 10 || fn == 14 || fn == 16 || fn == 20 || fn == 25 ? FE_TOWARDZERO :
		   fn == 11 || fn == 15 || fn == 17 || fn == 21 ? FE_UPWARD :
		   fn == 12 || fn == 18 || fn == 22 ? FE_DOWNWARD : FE_TONEAREST);
	switch (fn) {
	case 10: case 11: case 12: case 13: case 25:
		fr = (float)*(volatile s64 *)&l;
		v = f2u(fr);
		break;
	case 14: case 15:
		fr = (float)*(volatile u64 *)&l;
		v = f2u(fr);
		break;
	case 16: case 17: case 18: case 19:
		fr = (float)*(volatile double *)&x;
		v = f2u(fr);
		break;
	case 20:
		dr = (double)*(volatile s64 *)&l;
		v = d2u(dr);
		break;
	case 21:
		dr = (double)*(volatile u64 *)&l;
		v = d2u(dr);
		break;
	default:
		fr = (float)(s32)*(volatile s64 *)&l;
		v = f2u(fr);
		break;
	}
	fesetround(FE_TONEAREST);
	return v;
}

static void test_convert(int n)
{
	int fn, i, bad;
	char name[32];

	for (fn = 0; fn < 26; fn++) {
		struct targs *a;
		double *x;
		s64 *l;
		u64 *r, ref;

		arena_used = 0;
		a = get(sizeof(*a));
		x = get(n * 8);
		l = get(n * 8);
		r = get(n * 8);
		for (i = 0; i < n; i++) {
			double s = exp2(uni(-4, 66)) * (i & 1 ? -1 : 1);

			x[i] = i % 5 == 0 ? rint(s) + 0.5 : i % 5 == 1 ? (float)s :
			       i % 5 == 2 ? uni(-300, 300) : s;
			if (i < 8)
				x[i] = (double[]){ NAN, INFINITY, -INFINITY, 0x1p31, -0x1p31,
						   2147483520.0, 1e300, -0.5 }[i];
			l[i] = (s64)(rnd() >> (rnd() % 64)) * (i & 2 ? -1 : 1);
		}
		*a = (struct targs){ .fn = fn, .n = n, .x = va(x), .y = va(l), .r = va(r) };
		snprintf(name, sizeof(name), "convert_%d", fn);
		if (run(img->convert, a)) {
			result(false, name);
			continue;
		}
		bad = 0;
		for (i = 0; i < n; i++) {
			ref = cv_ref(fn, x[i], l[i]);
			if (r[i] != ref && bad++ < 3)
				printf("# %s(%.17g, %lld) = %#llx, want %#llx\n", name, x[i],
				       (long long)l[i], (unsigned long long)r[i],
				       (unsigned long long)ref);
		}
		result(!bad, name);
	}
}

/* ---- half ---- */

static double half_val(u16 h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;

	if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
	return h & 0x8000 ? -v : v;
}

/* x to half in mode 0 (nearest even), 1 (zero), 2 (up), 3 (down), by search. */
static u16 half_ref(double x, int mode)
{
	u16 s = signbit(x) ? 0x8000 : 0, lo = 0, hi = 0x7c00, mid;
	double a = fabs(x), vl, vh;
	bool away;

	if (isnan(x))
		return 0x7e00;
	while (hi - lo > 1) {	/* half_val(lo) <= a < half_val(hi) */
		mid = (lo + hi) / 2;
		if (half_val(mid) <= a)
			lo = mid;
		else
			hi = mid;
	}
	vl = half_val(lo);
	if (isinf(a))
		return s | 0x7c00;
	if (a == vl)
		return s | lo;
	vh = hi == 0x7c00 ? 65536.0 : half_val(hi);
	if (mode == 0)
		away = a > (vl + vh) / 2 || (a == (vl + vh) / 2 && (lo & 1));
	else if (mode == 1)
		away = false;
	else
		away = (mode == 2) != (s != 0);
	return s | (away ? hi : lo);
}

static void test_half(void)
{
	int fn, i, n = 4000, bad;
	char name[32];

	for (fn = 0; fn < 10; fn++) {
		struct targs *a;
		double *x;
		u16 *h, *hin;
		float *r;

		arena_used = 0;
		a = get(sizeof(*a));
		x = get(n * 8);
		h = get(n * 2);
		hin = get(65536 * 2);
		r = get(65536 * 4);
		for (i = 0; i < 65536; i++)
			hin[i] = i;
		for (i = 0; i < n; i++) {
			x[i] = (i & 1 ? -1 : 1) * (i % 3 ? exp2(uni(-27, 17)) :
						     half_val(rnd() & 0x7fff) * (1 + (rnd() % 3) * 0x1p-11));
			if (fn < 5 || fn == 9)
				x[i] = (float)x[i];
		}
		x[0] = 65520;
		x[1] = -65519.99;
		x[2] = 0x1p-25;
		x[3] = 0x1.8p-25;
		x[4] = NAN;
		x[5] = -INFINITY;
		x[6] = fn < 5 || fn == 9 ? FLT_MAX : 1e300;
		x[7] = fn < 5 || fn == 9 ? -FLT_MAX : -1e300;
		x[8] = 65504;
		x[9] = -0x1p16;
		*a = (struct targs){ .fn = fn, .n = fn ? n : 65536, .x = va(x),
				     .y = va(hin), .r = va(r), .r2 = va(h) };
		snprintf(name, sizeof(name), fn ? "vstore_half_%d" : "vload_half", fn);
		if (run(img->half, a)) {
			result(false, name);
			continue;
		}
		bad = 0;
		for (i = 0; i < (fn ? n : 65536); i++) {
			if (!fn) {
				double v = half_val(i);

				if (!(r[i] == v || (isnan(v) && isnan(r[i]))) ||
				    !!signbit(r[i]) != !!signbit(v)) {
					if (bad++ < 3)
						printf("# vload_half(%#x) = %g\n", i, r[i]);
				}
				continue;
			}
			{
				u16 want = half_ref(x[i], (fn - 1) & 3);

				if (fn == 9)
					want = half_ref(x[i], 0);
				if (h[i] != want && !(isnan(x[i]) && (h[i] & 0x7e00) == 0x7e00) &&
				    bad++ < 3)
					printf("# %s(%.17g) = %#x, want %#x\n", name, x[i], h[i], want);
			}
		}
		result(!bad, name);
	}
}

/* ---- work-item functions, atomics, memory ---- */

static void test_workitem(void)
{
	static const u64 grp[3] = { 2, 1, 3 }, enq[3] = { 4, 2, 2 }, lsz[3] = { 4, 2, 1 },
		gsz[3] = { 11, 4, 7 }, ngr[3] = { 3, 2, 4 }, off[3] = { 5, 0, 9 };
	static const u32 lid[1][3] = { { 3, 1, 0 } };
	struct targs *a;
	struct rv_group g;
	u64 *r, want[40], *w = want, gid[3];
	int d, bad = 0;

	arena_used = 0;
	a = get(sizeof(*a));
	r = get(sizeof(want));
	*a = (struct targs){ .r = va(r) };
	group_init(&g, a, 1);
	for (d = 0; d < 3; d++) {
		g.csr[NVSVM_GPU_CSR_GROUP_ID - NVSVM_GPU_CSR_GLOBAL_ID + d] = grp[d];
		g.csr[NVSVM_GPU_CSR_ENQUEUED_LOCAL_SIZE - NVSVM_GPU_CSR_GLOBAL_ID + d] = enq[d];
		g.csr[NVSVM_GPU_CSR_LOCAL_SIZE - NVSVM_GPU_CSR_GLOBAL_ID + d] = lsz[d];
		g.csr[NVSVM_GPU_CSR_GLOBAL_SIZE - NVSVM_GPU_CSR_GLOBAL_ID + d] = gsz[d];
		g.csr[NVSVM_GPU_CSR_NUM_GROUPS - NVSVM_GPU_CSR_GLOBAL_ID + d] = ngr[d];
		g.csr[NVSVM_GPU_CSR_GLOBAL_OFFSET - NVSVM_GPU_CSR_GLOBAL_ID + d] = off[d];
	}
	g.csr[NVSVM_GPU_CSR_WORK_DIM - NVSVM_GPU_CSR_GLOBAL_ID] = 3;
	*w++ = 3;
	for (d = 0; d < 4; d++) {
		if (d < 3)
			gid[d] = grp[d] * enq[d] + lid[0][d] + off[d];
		*w++ = d < 3 ? gid[d] : 0;
		*w++ = d < 3 ? lid[0][d] : 0;
		*w++ = d < 3 ? grp[d] : 0;
		*w++ = d < 3 ? lsz[d] : 1;
		*w++ = d < 3 ? enq[d] : 1;
		*w++ = d < 3 ? gsz[d] : 1;
		*w++ = d < 3 ? ngr[d] : 1;
		*w++ = d < 3 ? off[d] : 0;
	}
	*w++ = ((gid[2] - off[2]) * gsz[1] + (gid[1] - off[1])) * gsz[0] + gid[0] - off[0];
	*w++ = lid[0][0] + lid[0][1] * lsz[0] + lid[0][2] * lsz[0] * lsz[1];
	if (run_group(&g, img->workitem, 1, 1U << 20, lid)) {
		result(false, "work-item functions");
		return;
	}
	for (d = 0; d < w - want; d++)
		if (r[d] != want[d] && bad++ < 3)
			printf("# work-item value %d: %llu, want %llu\n", d,
			       (unsigned long long)r[d], (unsigned long long)want[d]);
	result(!bad, "work-item functions");
}

static void test_atomics(void)
{
	/* the old values in the order of clc-kernels.cl, then the floats * 4 */
	static const s64 want[] = { 10, 15, 8, -100, -99, -100, 42, 42, -3, 9, 4,
		4, 0x34, 0xcb, 1, 0x100000001LL, -1, -1, 0, 3, 4, 4, 10 };
	struct targs *a;
	s32 *g;
	s64 *gl, *r;
	float one = 1;
	int i, bad = 0;

	arena_used = 0;
	a = get(sizeof(*a));
	g = get(8);
	gl = get(8);
	r = get(sizeof(want) + 8);
	g[0] = 10;
	memcpy(&g[1], &one, 4);
	gl[0] = 1;
	memset(local_mem, 0, sizeof(local_mem));
	*a = (struct targs){ .x = va(g), .y = va(gl), .r = va(r) };
	if (run(img->atomics, a)) {
		result(false, "atomics");
		return;
	}
	for (i = 0; i < (int)(sizeof(want) / 8); i++)
		if (r[i] != want[i] && bad++ < 5)
			printf("# atomic step %d: %lld, want %lld\n", i, (long long)r[i],
			       (long long)want[i]);
	result(!bad, "atomics");

	/* 8 work-items, 3 instructions at a time: AMOs and LR/SC loops */
	arena_used = 0;
	a = get(sizeof(*a));
	g = get(8);
	*a = (struct targs){ .n = 50, .x = va(g) };
	{
		struct rv_group grp;

		group_init(&grp, a, 8);
		bad = run_group(&grp, img->counter, 8, 3, NULL);
	}
	if (bad || g[0] != 400 || g[1] != 800)
		printf("# counters %d %d, want 400 800\n", g[0], g[1]);
	result(!bad && g[0] == 400 && g[1] == 800, "atomics of 8 work-items");
}

static void test_misc(void)
{
	struct targs *a;
	u8 *b, *wb;
	u64 *r, want[18];
	float f13 = 12.0 / 13, c;
	int i, bad = 0;
	u32 u;

	arena_used = 0;
	a = get(sizeof(*a));
	b = get(256);
	wb = get(256);
	r = get(sizeof(want));
	for (i = 0; i < 256; i++)
		b[i] = i * 7 + 3;
	*a = (struct targs){ .x = va(b), .y = va(wb), .r = va(r) };
	if (run(img->misc, a)) {
		result(false, "vector loads, stores and misc");
		return;
	}
	memcpy(&u, b + 4, 4);
	want[0] = u;
	memcpy(&u, b + 16, 4);
	want[0] |= (u64)u << 32;
	memcpy(&u, b + 16, 4);
	want[1] = u;
	memcpy(&u, b + 24, 4);
	want[1] |= (u64)u << 32;
	memcpy(&want[2], b + 16, 8);
	want[3] = b[1] | (u64)b[16] << 8;
	want[4] = 0xfffffffeffffffffULL;
	want[5] = 3 | 1 << 8;
	want[6] = f2u(INFINITY) | f2u(-2.0f) << 32;
	want[7] = 2 | 8ULL << 32;
	want[8] = 7 | 10ULL << 32;
	want[9] = f2u(13) | f2u(11) << 32;
	want[10] = f2u(f13) | f2u(-13.5f) << 32;
	want[11] = f2u(sqrt(152.25)) |
		   f2u(sqrt((double)3e30f * 3e30f + (double)4e30f * 4e30f)) << 32;
	want[12] = f2u(0.15625f) | f2u(1.5f) << 32;
	c = -0.0f;
	want[13] = f2u(2) | f2u(c) << 32;
	want[14] = f2u(-1.0f) | f2u(0.0f) << 32;
	want[15] = d2u(-1 / sqrt(2.0));
	want[16] = 0xfffe0003ULL | 8ULL << 32;
	want[17] = 0x80 | 0xfffffffffffffffeULL << 8;
	for (i = 0; i < 18; i++)
		if (r[i] != want[i] && bad++ < 5)
			printf("# misc value %d: %#llx, want %#llx\n", i,
			       (unsigned long long)r[i], (unsigned long long)want[i]);
	{
		static const u8 st[] = { 7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0 };
		static const u16 sh[] = { 1, 2, 3, 4, 5, 6, 7, 0xffff };
		double d2[2];

		memcpy(d2, wb + 56, 16);
		if (memcmp(wb + 16, st, 12) || memcmp(wb + 30, sh, 16) ||
		    d2[0] != 1.5 || d2[1] != -2.5 || wb[15] || wb[28] || wb[29] || wb[46]) {
			printf("# vstore3/vstore8/vstore2 bytes wrong\n");
			bad++;
		}
	}
	result(!bad, "vector loads, stores and misc");
}

static void test_async(void)
{
	int n = 300, i, bad = 0;
	struct targs *a = args(0, n, 4);
	int *x = P(a, x), *r = P(a, r), *r2 = P(a, r2);
	struct rv_group g;

	for (i = 0; i < n; i++)
		x[i] = i * 3 + 1;
	group_init(&g, a, 4);
	if (run_group(&g, img->async, 4, 7, NULL)) {
		result(false, "async copies of 4 work-items");
		return;
	}
	for (i = 0; i < n; i++)
		if (r[i] != x[i] && bad++ < 3)
			printf("# async copy [%d] = %d\n", i, r[i]);
	for (i = 0; i < n / 3; i++)
		if (r2[2 * i] != x[3 * i] && bad++ < 3)
			printf("# strided copy [%d] = %d\n", 2 * i, r2[2 * i]);
	result(!bad, "async copies of 4 work-items");
}

static void test_c11(void)
{
	/* in the order of clc-kernels.cl */
	static const s64 want[] = { 5, 15, 12, 0x10c, 0x10d, 0x10d, 3, 50, 0, 77,
		1, 1, -7, 0, 0xfffffff9, 0xfffffff9, 1, 16, 8, 100, 0xffffffff,
		0, 1, 0 };
	struct targs *a = args(0, 64, 8);
	s64 *r = P(a, r);
	int i, bad = 0;

	memset(local_mem, 0, sizeof(local_mem));
	if (run(img->c11, a)) {
		result(false, "C11 atomics");
		return;
	}
	for (i = 0; i < (int)(sizeof(want) / 8); i++)
		if (r[i] != want[i] && bad++ < 5)
			printf("# C11 atomics step %d: %lld, want %lld\n", i,
			       (long long)r[i], (long long)want[i]);
	result(!bad, "C11 atomics");
}

int main(void)
{
	arena = aligned_alloc(4096, ARENA);
	if (!arena)
		return 2;
	printf("KTAP version 1\n");
	for (img = images; img < images + 2; img++) {
		prog = rv_prog_load(img->bytes, img->size, GFP_KERNEL);
		if (IS_ERR(prog))
			return 2;
		test_math(false, false, 20000);
		test_math(true, false, 10000);
		test_math2(false, false, 10000);
		test_math2(true, false, 10000);
		test_math(false, true, 4000);
		test_math(true, true, 3000);
		test_math2(false, true, 4000);
		test_math2(true, true, 3000);
		test_ints(4000);
		test_ints2(400);
		test_convert(20000);
		test_half();
		test_atomics();
		test_async();
		test_misc();
		if (img->c11) {	/* OpenCL C 2.0 */
			test_workitem();
			test_c11();
		}
		rv_prog_free(prog);
	}
	printf("1..%d\n", num);
	printf("# %d/%d failed\n", failed, num);
	return failed != 0;
}
