// SPDX-License-Identifier: GPL-2.0
/*
 * Math functions (OpenCL C 3.0 section 6.15.2) for double, written from
 * the functions' definitions: argument reduction (exact for the
 * trigonometric functions: Payne-Hanek with the bits of 2/pi), Taylor or
 * Stirling series, and double-double arithmetic where a result is the sum
 * of a large and a small part (log, pow, exp of a computed argument). The
 * float functions are the double ones rounded once to float, within an ulp
 * or so; the SMs have IEEE double, round to nearest, and no denormal
 * flush. No libm call: floor, rint etc. are written here too, since LLVM 14
 * lowers its intrinsics for them to libm calls on RISC-V.
 */
#include "clc.h"

/* Constants as double-double (value + low part) from 3000-bit values. */
#define LN2_HI		0x1.62e42fefa3800p-1	/* 42 bits: k * LN2_HI is exact */
#define LN2_LO		0x1.ef35793c76730p-45
#define INV_LN2		0x1.71547652b82fep+0
#define INV_LN2_L	0x1.777d0ffda0d24p-56
#define INV_LN10	0x1.bcb7b1526e50ep-2
#define INV_LN10_L	0x1.95355baaafad3p-57
#define LN2		0x1.62e42fefa39efp-1
#define LN2_L		0x1.abc9e3b39803fp-56
#define LN10		0x1.26bb1bbb55516p+1
#define LN10_L		-0x1.f48ad494ea3e9p-53
#define PI_H		0x1.921fb54442d18p+1
#define PI_L		0x1.1a62633145c07p-53
#define PIO2_H		0x1.921fb54442d18p+0
#define PIO2_L		0x1.1a62633145c07p-54
#define PIO4_H		0x1.921fb54442d18p-1
#define PIO4_L		0x1.1a62633145c07p-55
#define TWO_SQRTPI	0x1.20dd750429b6dp+0
#define TWO_SQRTPI_L	0x1.1ae3a914fed80p-56
#define INV_SQRTPI	0x1.20dd750429b6dp-1
#define HALF_LN_2PI	0x1.d67f1c864beb5p-1
#define LOG_PI		0x1.250d048e7a1bdp+0
#define DNAN		as_double(0x7ff8000000000000UL)
#define DINF		as_double(0x7ff0000000000000UL)

/* 2/pi in 32-bit words, most significant first: 1536 bits. */
static __constant uint two_over_pi[48] = {
	0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
	0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c,
	0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
	0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
	0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
	0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
	0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d, 0xa9e39161, 0x5ee61b08,
	0x6599855f, 0x14a06840, 0x8dffd880, 0x4d732731, 0x06061556, 0xca73a8c9,
};

/* ---- Exact operations ---- */

CST double trunc(double x)
{
	if (!(fabs(x) < 0x1p52))
		return x;
	return copysign((double)(long)x, x);
}

CST double floor(double x)
{
	double t = trunc(x);

	return t > x ? t - 1 : t;
}

CST double ceil(double x)
{
	double t = trunc(x);

	return t < x ? t + 1 : t;
}

/* Halfway cases away from zero. */
CST double round(double x)
{
	double t = trunc(x);

	return fabs(x - t) >= 0.5 ? t + copysign(1.0, x) : t;
}

/* To nearest even: adding 2^52 rounds the fraction away (round to nearest). */
CST double rint(double x)
{
	double a = fabs(x);

	if (!(a < 0x1p52))
		return x;
	return copysign((a + 0x1p52) - 0x1p52, x);
}

/* 2^k for -1022 <= k <= 1023. */
static double pow2i(int k)
{
	return as_double((ulong)(k + 1023) << 52);
}

/* x * 2^k, rounded once where the result is normal. */
static double scale(double x, int k)
{
	if (k > 1023) {
		x *= 0x1p1023;
		k -= 1023;
		if (k > 1023) {
			x *= 0x1p1023;
			k = min(k - 1023, 1023);
		}
	} else if (k < -1022) {
		x *= 0x1p-969;
		k += 969;
		if (k < -1022) {
			x *= 0x1p-969;
			k = max(k + 969, -1022);
		}
	}
	return x * pow2i(k);
}

CST double ldexp(double x, int k)
{
	return scale(x, clamp(k, -2200, 2200));
}

CST int ilogb(double x)
{
	ulong b = as_ulong(x) & 0x7fffffffffffffffUL;
	int e = b >> 52;

	if (b == 0)
		return FP_ILOGB0;
	if (e == 0x7ff)
		return b == 0x7ff0000000000000UL ? INT_MAX : FP_ILOGBNAN;
	if (e == 0)
		return -1011 - (int)clz(b);
	return e - 1023;
}

CST double logb(double x)
{
	if (x == 0)
		return -DINF;
	if (!isfinite(x))
		return x * x;
	return ilogb(x);
}

OVL double frexp(double x, __private int *e)
{
	int k;

	if (x == 0 || !isfinite(x)) {
		*e = 0;
		return x;
	}
	k = ilogb(x) + 1;
	*e = k;
	return scale(x, -k);
}

OVL double modf(double x, __private double *ip)
{
	double t = trunc(x);

	*ip = t;
	return copysign(isinf(x) ? 0.0 : x - t, x);
}

OVL double fract(double x, __private double *ip)
{
	double f = floor(x);

	*ip = f;
	if (isinf(x))
		return copysign(0.0, x);
	return fmin(x - f, 0x1.fffffffffffffp-1);
}

#define NEXTAFTER(F, I, TINY)						\
	CST F nextafter(F x, F y)					\
	{								\
		I b;							\
									\
		if (x != x || y != y)					\
			return x + y;					\
		if (x == y)						\
			return y;					\
		if (x == 0)						\
			return copysign(TINY, y);			\
		b = as_##I(x);						\
		b += ((x < y) == (x > 0)) ? 1 : -1;			\
		return as_##F(b);					\
	}
NEXTAFTER(double, long, 0x1p-1074)
NEXTAFTER(float, int, 0x1p-149f)

CST double fdim(double x, double y)
{
	if (x != x || y != y)
		return x + y;
	return x > y ? x - y : 0.0;
}

CST double maxmag(double x, double y)
{
	double a = fabs(x), b = fabs(y);

	return a > b ? x : b > a ? y : fmax(x, y);
}

CST double minmag(double x, double y)
{
	double a = fabs(x), b = fabs(y);

	return a < b ? x : b < a ? y : fmin(x, y);
}

CST double mad(double a, double b, double c)
{
	return a * b + c;
}

CST double fma(double a, double b, double c)
{
	return __builtin_fma(a, b, c);
}

CST float fma(float a, float b, float c)
{
	return __builtin_fmaf(a, b, c);
}

CST double sqrt(double x)
{
	return __builtin_sqrt(x);
}

CST float sqrt(float x)
{
	return __builtin_sqrtf(x);
}

CST double rsqrt(double x)
{
	return 1 / sqrt(x);
}

CST double nan(ulong code)
{
	return as_double(0x7ff8000000000000UL | (code & 0x7ffffffffffffUL));
}

CST float nan(uint code)
{
	return as_float(0x7fc00000U | (code & 0x3fffffU));
}

/*
 * |x| rem |y| with the quotient's low bits (@q), subtracting |y| * 2^k
 * (exact) from the highest k down; @nearest: remainder()'s rounding of the
 * quotient, ties to even. x, y finite, y not 0.
 */
static double rem_core(double x, double y, uint *q, bool nearest)
{
	double ax = fabs(x), ay = fabs(y), r = ax, t;
	int ey = ilogb(ay), k;
	uint n = 0;

	while (r >= ay) {
		k = ilogb(r) - ey;
		t = scale(ay, k);
		if (t > r)
			t = scale(ay, --k);
		r -= t;
		if (k < 32)
			n += 1U << k;
	}
	if (nearest) {
		bool up = ay < 0x1p-1020 ? 2 * r > ay || (2 * r == ay && (n & 1))
					 : r > 0.5 * ay || (r == 0.5 * ay && (n & 1));
		if (up) {
			r -= ay;
			n++;
		}
	}
	*q = n;
	r = signbit(x) ? -r : r;
	return r == 0 ? copysign(0.0, x) : r;
}

CST double fmod(double x, double y)
{
	uint q;

	if (x != x || y != y || isinf(x) || y == 0)
		return DNAN;
	if (isinf(y))
		return x;
	return rem_core(x, y, &q, false);
}

CST double remainder(double x, double y)
{
	uint q;

	if (x != x || y != y || isinf(x) || y == 0)
		return DNAN;
	if (isinf(y))
		return x;
	return rem_core(x, y, &q, true);
}

/* The quotient's sign and its low 7 bits. */
OVL double remquo(double x, double y, __private int *quo)
{
	uint q;
	double r;

	*quo = 0;
	if (x != x || y != y || isinf(x) || y == 0)
		return DNAN;
	if (isinf(y))
		return x;
	r = rem_core(x, y, &q, true);
	*quo = (signbit(x) != signbit(y)) ? -(int)(q & 0x7f) : (int)(q & 0x7f);
	return r;
}

/* ---- Exponentials and logarithms ---- */

/* e^r - 1 for |r| <= ln2/2 + a little: Taylor to r^14. */
static double expm1_k(double r)
{
	double p = 1.0 / 87178291200.0;

	p = p * r + 1.0 / 6227020800.0;
	p = p * r + 1.0 / 479001600.0;
	p = p * r + 1.0 / 39916800.0;
	p = p * r + 1.0 / 3628800.0;
	p = p * r + 1.0 / 362880.0;
	p = p * r + 1.0 / 40320.0;
	p = p * r + 1.0 / 5040.0;
	p = p * r + 1.0 / 720.0;
	p = p * r + 1.0 / 120.0;
	p = p * r + 1.0 / 24.0;
	p = p * r + 1.0 / 6.0;
	p = p * r + 0.5;
	return r + r * r * p;
}

/* e^(x + xl), |xl| much smaller than an ulp of x. */
static double exp_dd(double x, double xl)
{
	double k, r;

	if (x != x)
		return x;
	if (x > 709.8)
		return DINF;
	if (x < -745.2)
		return 0;
	k = rint(x * INV_LN2);
	r = (x - k * LN2_HI) - k * LN2_LO + xl;
	return scale(1 + expm1_k(r), (int)k);
}

CST double exp(double x)
{
	return exp_dd(x, 0);
}

/* e^(x * c) for c = ch + cl, with the product as double-double. */
static double exp_mul(double x, double ch, double cl)
{
	double h = x * ch;

	if (!isfinite(h))
		return exp_dd(h, 0);
	return exp_dd(h, fma(x, ch, -h) + x * cl);
}

CST double exp2(double x)
{
	return exp_mul(x, LN2, LN2_L);
}

CST double exp10(double x)
{
	return exp_mul(x, LN10, LN10_L);
}

CST double expm1(double x)
{
	double k, r, p, t;

	if (x == 0 || x != x)
		return x;
	if (x > 709.8)
		return DINF;
	if (x < -40)
		return -1;
	k = rint(x * INV_LN2);
	r = (x - k * LN2_HI) - k * LN2_LO;
	p = expm1_k(r);
	if (k == 0)
		return p;
	if (k > 56)
		return scale(1 + p, (int)k) - 1;
	t = pow2i((int)k);
	return t * p + (t - 1);
}

/*
 * log(x) as hi + *lo for finite x > 0: x = 2^e * m with m in
 * (sqrt(1/2), sqrt(2)], f = m - 1 (exact), s = f / (2 + f) as
 * double-double, log(m) = 2s + 2s^3/3 + 2s^5/5 + ... (|s| <= 0.172).
 */
static double log_dd(double x, double *lo)
{
	ulong b;
	int e = 0;
	double m, f, u, ul, s, sl, z, p, t, ah, h, err, l, r;

	if (x < DBL_MIN) {
		x *= 0x1p54;
		e = -54;
	}
	b = as_ulong(x);
	e += (int)(b >> 52) - 1023;
	m = as_double((b & 0xfffffffffffffUL) | 0x3ff0000000000000UL);
	if (m > M_SQRT2) {
		m *= 0.5;
		e++;
	}
	f = m - 1;
	u = 2 + f;
	ul = f - (u - 2);
	s = f / u;
	sl = (fma(-s, u, f) - s * ul) / u;
	z = s * s;
	p = 2.0 / 25;
	p = p * z + 2.0 / 23;
	p = p * z + 2.0 / 21;
	p = p * z + 2.0 / 19;
	p = p * z + 2.0 / 17;
	p = p * z + 2.0 / 15;
	p = p * z + 2.0 / 13;
	p = p * z + 2.0 / 11;
	p = p * z + 2.0 / 9;
	p = p * z + 2.0 / 7;
	p = p * z + 2.0 / 5;
	p = p * z + 2.0 / 3;
	t = s * z * p;
	ah = e * LN2_HI;
	h = ah + 2 * s;
	err = fabs(ah) > fabs(2 * s) ? (ah - h) + 2 * s : (2 * s - h) + ah;
	l = err + (e * LN2_LO + (2 * sl + t));
	r = h + l;
	*lo = l - (r - h);
	return r;
}

/* NaN, +inf, 0, negative: what every logarithm returns; 1 for the others. */
static int log_special(double x, double *r)
{
	if (x != x || x == DINF) {
		*r = x;
		return 0;
	}
	if (x == 0) {
		*r = -DINF;
		return 0;
	}
	if (x < 0) {
		*r = DNAN;
		return 0;
	}
	return 1;
}

CST double log(double x)
{
	double r, l;

	if (!log_special(x, &r))
		return r;
	return log_dd(x, &l);
}

/* log(x) * (ch + cl), with the products as double-double. */
static double log_mul(double x, double ch, double cl)
{
	double r, l, h;

	if (!log_special(x, &r))
		return r;
	h = log_dd(x, &l);
	r = h * ch;
	return r + (fma(h, ch, -r) + (l * ch + h * cl));
}

CST double log2(double x)
{
	return log_mul(x, INV_LN2, INV_LN2_L);
}

CST double log10(double x)
{
	return log_mul(x, INV_LN10, INV_LN10_L);
}

/* log(1 + x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded. */
CST double log1p(double x)
{
	double u = 1 + x, h, l;

	if (x != x || x == DINF)
		return x;
	if (x == -1)
		return -DINF;
	if (x < -1)
		return DNAN;
	if (u == 1)
		return x;
	h = log_dd(u, &l);
	return h + (l + (x - (u - 1)) / u);
}

static bool is_int(double y)
{
	return rint(y) == y;
}

static bool is_odd(double y)
{
	return fabs(y) < 0x1p53 && is_int(y) && ((long)y & 1);
}

/* |x|^y for finite x != 0: e^(y log|x|) in double-double. */
static double pow_k(double ax, double y)
{
	double l, h = log_dd(ax, &l), p = y * h;

	if (!isfinite(p))
		return p > 0 ? DINF : 0;
	return exp_dd(p, fma(y, h, -p) + y * l);
}

CST double pow(double x, double y)
{
	double ax = fabs(x), r;

	if (y == 0 || x == 1)
		return 1;
	if (x != x || y != y)
		return x + y;
	if (isinf(y)) {
		if (ax == 1)
			return 1;
		return (ax < 1) == (y < 0) ? DINF : 0;
	}
	if (x < 0 && !isinf(x) && !is_int(y))
		return DNAN;
	if (ax == 0)
		r = y < 0 ? DINF : 0;
	else if (isinf(ax))
		r = y < 0 ? 0 : DINF;
	else
		r = pow_k(ax, y);
	return signbit(x) && is_odd(y) ? -r : r;
}

CST double pown(double x, int n)
{
	return pow(x, (double)n);
}

CST double powr(double x, double y)
{
	if (x < 0 || x != x || y != y)
		return DNAN;
	if (x == 0 && y == 0)
		return DNAN;
	if ((x == 1 && isinf(y)) || (isinf(x) && y == 0))
		return DNAN;
	return pow(x, y);
}

/* x^(1/n): log(|x|) / n as double-double. */
CST double rootn(double x, int n)
{
	double ax = fabs(x), h, l, q, r;
	bool odd = n & 1;

	if (n == 0 || x != x || (x < 0 && !odd))
		return DNAN;
	if (ax == 0 || isinf(ax))
		r = (ax == 0) == (n < 0) ? DINF : 0;
	else {
		h = log_dd(ax, &l);
		q = h / n;
		r = exp_dd(q, (fma(-q, (double)n, h) + l) / n);
	}
	return signbit(x) && odd ? -r : r;
}

CST double cbrt(double x)
{
	double a = fabs(x), m, y;
	int e, k, i;

	if (a == 0 || !isfinite(a))
		return x;
	e = ilogb(a);
	k = e >= 0 ? e / 3 : -((2 - e) / 3);
	m = scale(a, -3 * k);	/* [1, 8) */
	y = 1.4;
	for (i = 0; i < 7; i++)
		y = (2 * y + m / (y * y)) / 3;
	y -= fma(y * y, y, -m) / (3 * y * y);
	return copysign(scale(y, k), x);
}

CST double hypot(double x, double y)
{
	double a = fabs(x), b = fabs(y), t;
	int k;

	if (isinf(a) || isinf(b))
		return DINF;
	if (a != a || b != b)
		return a + b;
	if (a < b) {
		t = a;
		a = b;
		b = t;
	}
	if (b == 0)
		return a;
	k = ilogb(a);
	a = scale(a, -k);
	b = scale(b, -k);
	return scale(sqrt(a * a + b * b), k);
}

/* ---- Trigonometric functions ---- */

/*
 * x (finite, >= 0) = (4j + q) * pi/2 + y + yl, |y| <= pi/4; returns q.
 * x * 2/pi * 2^126 modulo 2^128 from the products of x's 53-bit mantissa
 * with the words of 2/pi that reach those bits: the top two bits are the
 * quadrant, the other 126 the fraction, rounded to the nearest quadrant.
 */
static int rem_pio2(double x, double *y, double *yl)
{
	ulong b = as_ulong(x), m = (b & 0xfffffffffffffUL) | (1UL << 52);
	int e = (int)(b >> 52) - 1075, i, t, q;
	unsigned __int128 acc = 0, p;
	__int128 f;
	long fh;
	double ah, al, s, v, h, l, yh;

	if (x <= PIO4_H) {
		*y = x;
		*yl = 0;
		return 0;
	}
	for (i = 0; i < 48; i++) {
		t = e - 32 * i + 94;
		if (t >= 128)
			continue;
		if (t < -90)
			break;
		p = (unsigned __int128)m * two_over_pi[i];
		acc += t >= 0 ? p << t : p >> -t;
	}
	q = (int)((acc + ((unsigned __int128)1 << 125)) >> 126) & 3;
	f = (__int128)(acc << 2) >> 2;
	/* f = fh * 2^64 + (low 64 bits) as double-double */
	fh = (long)(f >> 64);
	ah = (double)fh;
	al = (double)(fh - (long)ah);
	s = ah * 0x1p64;
	v = al * 0x1p64 + (double)(ulong)f;
	h = s + v;
	l = (s - h) + v;
	h *= 0x1p-126;
	l *= 0x1p-126;
	yh = h * PIO2_H;
	l = fma(h, PIO2_H, -yh) + (h * PIO2_L + l * PIO2_H);
	*y = yh + l;
	*yl = l - (*y - yh);
	return q;
}

/* sin(y + yl), |y| <= pi/4: Taylor to y^17. */
static double sin_k(double y, double yl)
{
	double z = y * y, s = 1.0 / 355687428096000.0;

	s = s * z - 1.0 / 1307674368000.0;
	s = s * z + 1.0 / 6227020800.0;
	s = s * z - 1.0 / 39916800.0;
	s = s * z + 1.0 / 362880.0;
	s = s * z - 1.0 / 5040.0;
	s = s * z + 1.0 / 120.0;
	s = s * z - 1.0 / 6.0;
	return y + (y * z * s + yl * (1 - 0.5 * z));
}

/* cos(y + yl), |y| <= pi/4: Taylor to y^18. */
static double cos_k(double y, double yl)
{
	double z = y * y, c = 1.0 / 6402373705728000.0, hz = 0.5 * z, w;

	c = c * z - 1.0 / 20922789888000.0;
	c = c * z + 1.0 / 87178291200.0;
	c = c * z - 1.0 / 479001600.0;
	c = c * z + 1.0 / 3628800.0;
	c = c * z - 1.0 / 40320.0;
	c = c * z + 1.0 / 720.0;
	c = c * z - 1.0 / 24.0;
	w = 1 - hz;
	return w + (((1 - w) - hz) + (z * z * -c - y * yl));
}

/* sin (@cos false) or cos of y + yl + q * pi/2. */
static double sincos_q(int q, double y, double yl, bool cos)
{
	q = (q + cos) & 3;
	switch (q) {
	case 0:
		return sin_k(y, yl);
	case 1:
		return cos_k(y, yl);
	case 2:
		return -sin_k(y, yl);
	default:
		return -cos_k(y, yl);
	}
}

CST double sin(double x)
{
	double y, yl, r;
	int q;

	if (!isfinite(x))
		return x - x;
	q = rem_pio2(fabs(x), &y, &yl);
	r = sincos_q(q, y, yl, false);
	return signbit(x) ? -r : r;
}

CST double cos(double x)
{
	double y, yl;
	int q;

	if (!isfinite(x))
		return x - x;
	q = rem_pio2(fabs(x), &y, &yl);
	return sincos_q(q, y, yl, true);
}

OVL double sincos(double x, __private double *c)
{
	double y, yl, r;
	int q;

	if (!isfinite(x)) {
		*c = x - x;
		return x - x;
	}
	q = rem_pio2(fabs(x), &y, &yl);
	*c = sincos_q(q, y, yl, true);
	r = sincos_q(q, y, yl, false);
	return signbit(x) ? -r : r;
}

CST double tan(double x)
{
	double y, yl, s, c;
	int q;

	if (!isfinite(x))
		return x - x;
	q = rem_pio2(fabs(x), &y, &yl);
	s = sin_k(y, yl);
	c = cos_k(y, yl);
	s = q & 1 ? -c / s : s / c;
	return signbit(x) ? -s : s;
}

/*
 * sin or cos of pi * x: x = n/2 + f exactly, |f| <= 1/4, and f * pi as
 * double-double. Exact zeros are +0.
 */
static double sincospi(double x, bool cos)
{
	double a = fabs(x), n, f, y, yl, r;
	int q;

	if (!isfinite(x))
		return x - x;
	if (a >= 0x1p52) {
		if (!cos)
			return copysign(0.0, x);
		return a < 0x1p53 && ((long)a & 1) ? -1 : 1;
	}
	n = rint(2 * a);
	f = a - 0.5 * n;
	q = (int)((long)n & 3);
	y = f * PI_H;
	yl = fma(f, PI_H, -y) + f * PI_L;
	r = sincos_q(q, y, yl, cos);
	if (r == 0)
		r = 0;
	return !cos && signbit(x) ? -r : r;
}

CST double sinpi(double x)
{
	return sincospi(x, false);
}

CST double cospi(double x)
{
	return sincospi(x, true);
}

CST double tanpi(double x)
{
	return sinpi(x) / cospi(x);
}

/*
 * atan(t), 0 <= t <= 1: t > tan(pi/8) as pi/4 + atan((t-1)/(t+1)), then
 * the series t - t^3/3 + t^5/5 ... to t^43 (t^2 <= 0.172).
 */
static double atan_k(double t)
{
	double off = 0, offl = 0, z, p = 0;

	if (t > 0.41421356237309503) {
		t = (t - 1) / (t + 1);
		off = PIO4_H;
		offl = PIO4_L;
	}
	z = t * t;
	/* (-1)^k / (2k + 1), folded by the compiler */
#define AT(k)	p = p * z + ((k) & 1 ? -1.0 : 1.0) / (2 * (k) + 1);
	AT(21) AT(20) AT(19) AT(18) AT(17) AT(16) AT(15) AT(14) AT(13) AT(12)
	AT(11) AT(10) AT(9) AT(8) AT(7) AT(6) AT(5) AT(4) AT(3) AT(2) AT(1)
#undef AT
	return off + (t + (t * z * p + offl));
}

/* pi/2 - a (@c 1), or pi - a (@c 2), with pi as double-double. */
static double pi_minus(double a, int c)
{
	return c == 1 ? (PIO2_H - a) + PIO2_L : (PI_H - a) + PI_L;
}

CST double atan(double x)
{
	double a = fabs(x), r;

	if (x != x)
		return x;
	r = a > 1 ? pi_minus(atan_k(1 / a), 1) : atan_k(a);
	return copysign(r, x);
}

CST double atan2(double y, double x)
{
	double ax = fabs(x), ay = fabs(y), r;

	if (x != x || y != y)
		return x + y;
	if (ay == 0)
		r = signbit(x) ? PI_H : 0;
	else if (ax == 0 || (isinf(ay) && !isinf(ax)))
		r = PIO2_H;
	else if (isinf(ax))
		r = isinf(ay) ? (signbit(x) ? 3 * PIO4_H : PIO4_H) :
				(signbit(x) ? PI_H : 0);
	else {
		r = ay > ax ? pi_minus(atan_k(ax / ay), 1) : atan_k(ay / ax);
		if (signbit(x))
			r = pi_minus(r, 2);
	}
	return copysign(r, y);
}

CST double asin(double x)
{
	if (fabs(x) > 1)
		return DNAN;
	return atan2(x, sqrt((1 - x) * (1 + x)));
}

CST double acos(double x)
{
	if (fabs(x) > 1)
		return DNAN;
	return atan2(sqrt((1 - x) * (1 + x)), x);
}

CST double asinpi(double x) { return asin(x) / M_PI; }
CST double acospi(double x) { return acos(x) / M_PI; }
CST double atanpi(double x) { return atan(x) / M_PI; }
CST double atan2pi(double y, double x) { return atan2(y, x) / M_PI; }

/* ---- Hyperbolic functions ---- */

CST double sinh(double x)
{
	double a = fabs(x), e, r;

	if (a < 22) {
		e = expm1(a);
		r = 0.5 * (e + e / (e + 1));
	} else if (a < 709) {
		r = 0.5 * exp(a);
	} else {
		e = exp(0.5 * a);
		r = 0.5 * e * e;
	}
	return copysign(r, x);
}

CST double cosh(double x)
{
	double a = fabs(x), e;

	if (a < 22) {
		e = exp(a);
		return 0.5 * (e + 1 / e);
	}
	if (a < 709)
		return 0.5 * exp(a);
	e = exp(0.5 * a);
	return 0.5 * e * e;
}

CST double tanh(double x)
{
	double a = fabs(x), e;

	if (x != x)
		return x;
	if (a >= 22)
		return copysign(1.0, x);
	e = expm1(2 * a);
	return copysign(e / (e + 2), x);
}

CST double asinh(double x)
{
	double a = fabs(x), r;

	if (!isfinite(x))
		return x;
	if (a > 0x1p28)
		r = log(a) + LN2;
	else if (a > 2)
		r = log(2 * a + 1 / (sqrt(a * a + 1) + a));
	else
		r = log1p(a + a * a / (1 + sqrt(1 + a * a)));
	return copysign(r, x);
}

CST double acosh(double x)
{
	double t;

	if (x < 1 || x != x)
		return x != x ? x : DNAN;
	if (x > 0x1p28)
		return isinf(x) ? x : log(x) + LN2;
	if (x > 2)
		return log(2 * x - 1 / (x + sqrt(x * x - 1)));
	t = x - 1;
	return log1p(t + sqrt(2 * t + t * t));
}

CST double atanh(double x)
{
	double a = fabs(x);

	if (!(a <= 1))
		return DNAN;
	return copysign(0.5 * log1p(2 * a / (1 - a)), x);
}

/* ---- Error and gamma functions ---- */

/* (-1)^n / (n! (2n+1)), n = 0..25, from 200-bit values. */
static __constant double erf_c[26] = {
	0x1.0000000000000p+0, -0x1.5555555555555p-2, 0x1.999999999999ap-4,
	-0x1.8618618618618p-6, 0x1.2f684bda12f68p-8, -0x1.8d3018d3018d3p-11,
	0x1.c01c01c01c01cp-14, -0x1.bbd779334ef0bp-17, 0x1.87a00187a0018p-20,
	-0x1.3777c55568ccdp-23, 0x1.c2e3054870b38p-27, -0x1.2b67310aa9f3ap-30,
	0x1.6f448e13e85e1p-34, -0x1.a289ee7e40f74p-38, 0x1.bd577e658d020p-42,
	-0x1.bc6250fb14231p-46, 0x1.a173a167fba4dp-50, -0x1.7271cbe5863ecp-54,
	0x1.377c2110f2083p-58, -0x1.f1b4073b34a68p-63, 0x1.7abd72258fb6ep-67,
	-0x1.13246abce1bddp-71, 0x1.7e6b81382cd42p-76, -0x1.fd6bebd65107ap-81,
	0x1.45c0a838efe59p-85, -0x1.909c9de3a31c5p-90,
};

/* erf(x) for |x| < 1: 2/sqrt(pi) * x * sum erf_c[n] x^2n (Horner). */
static double erf_s(double x)
{
	double z = x * x, s = 0;
	int n;

	for (n = 25; n >= 0; n--)
		s = s * z + erf_c[n];
	s *= x;
	return s * TWO_SQRTPI + s * TWO_SQRTPI_L;
}

/*
 * erfc(x) for x >= 1: e^-x^2 / sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x
 * + ...)))), the continued fraction evaluated from its depth up.
 */
static double erfc_cf(double x)
{
	double f = x, h, l;
	int k;

	if (x > 27.3)
		return 0;
	/* depths that reach 2^-56 (measured against a 100-bit erfc) */
	k = x < 1.25 ? 300 : x < 1.5 ? 160 : x < 2 ? 100 : x < 3 ? 60 :
	    x < 6 ? 40 : 20;
	for (; k >= 1; k--)
		f = x + 0.5 * k / f;
	h = x * x;
	l = fma(x, x, -h);
	return exp_dd(-h, -l) * INV_SQRTPI / f;
}

CST double erf(double x)
{
	double a = fabs(x);

	if (x != x || x == 0)
		return x;
	if (a < 1)
		return erf_s(x);
	return copysign(1 - erfc_cf(a), x);
}

CST double erfc(double x)
{
	if (x != x)
		return x;
	if (x >= 1)
		return erfc_cf(x);
	if (x > -1)
		return 1 - erf_s(x);
	return 2 - erfc_cf(-x);
}

/*
 * log(gamma(z)) for z >= 10, as hi + *lo: Stirling's series
 * (z - 1/2) log z - z + log(2 pi)/2 + sum B2k / (2k (2k-1) z^(2k-1)).
 */
static double lgamma_st(double z, double *lo)
{
	double l, h = log_dd(z, &l), a = z - 0.5, p, pl, q, ql, w = 1 / z;
	double w2 = w * w, s, t, r;

	p = a * h;
	if (isinf(p)) {
		*lo = 0;
		return p;
	}
	pl = fma(a, h, -p) + a * l;
	q = p - z;
	ql = ((p - q) - z) + pl;
	s = -3617.0 / 122400;
	s = s * w2 + 1.0 / 156;
	s = s * w2 - 691.0 / 360360;
	s = s * w2 + 1.0 / 1188;
	s = s * w2 - 1.0 / 1680;
	s = s * w2 + 1.0 / 1260;
	s = s * w2 - 1.0 / 360;
	s = s * w2 + 1.0 / 12;
	t = ql + (HALF_LN_2PI + s * w);
	r = q + t;
	*lo = (q - r) + t;
	return r;
}

/* a + b as hi + *lo, exactly. */
static double two_sum(double a, double b, double *lo)
{
	double s = a + b, bb = s - a;

	*lo = (a - (s - bb)) + (b - bb);
	return s;
}

/*
 * gamma(z + zl) for z > 0 as e^hi+lo / (p + pl): shifted up to 10 by
 * gamma(z+1) = z gamma(z), the argument and the product kept as
 * double-double, and Stirling's series corrected for the low part by
 * zl * digamma(z) (digamma(z) ~ log z - 1/(2z) - 1/(12z^2) for z >= 10).
 */
static double gamma_k(double z, double zl, double *lo, double *p, double *pl)
{
	double t, h, l;

	*p = 1;
	*pl = 0;
	while (z < 10) {
		t = *p * z;
		*pl = fma(*p, z, -t) + (*p * zl + *pl * z);
		*p = t;
		z = two_sum(z, 1, &t);
		zl += t;
	}
	h = lgamma_st(z, &l);
	*lo = l + zl * (log(z) - 0.5 / z - 1 / (12 * z * z));
	return h;
}

/* log|gamma(x)| for x > 0. */
static double lgamma_pos(double x)
{
	double l, p, pl, h;

	if (x == DINF)
		return x;
	if (x == 1 || x == 2)
		return 0;
	h = gamma_k(x, 0, &l, &p, &pl);
	return h - log(p) + (l - pl / p);
}

OVL double lgamma_r(double x, __private int *sign)
{
	double s;

	*sign = 1;
	if (x != x)
		return x;
	if (x > 0)
		return lgamma_pos(x);
	if (x == 0) {
		*sign = signbit(x) ? -1 : 1;
		return DINF;
	}
	if (isinf(x) || is_int(x)) {
		*sign = 0;
		return DINF;
	}
	if (x > -0x1p-60) {
		*sign = -1;
		return -log(-x);
	}
	/* reflection: gamma(x) gamma(1 - x) = pi / sin(pi x) */
	s = sinpi(x);
	*sign = s < 0 ? -1 : 1;
	return LOG_PI - log(fabs(s)) - lgamma_pos(1 - x);
}

CST double lgamma(double x)
{
	int s;

	return lgamma_r(x, &s);
}

/* gamma(z + zl), z > 0, z + zl <= 171.7. */
static double tgamma_pos(double z, double zl)
{
	double l, p, pl, h = gamma_k(z, zl, &l, &p, &pl), r;

	r = exp_dd(h, l) / p;
	return isinf(r) ? r : r - r * (pl / p);
}

CST double tgamma(double x)
{
	double s, g, zl, z;

	if (x != x || x == DINF)
		return x;
	if (x == 0)
		return copysign(DINF, x);
	if (x < 0) {
		if (isinf(x) || is_int(x))
			return DNAN;
		s = sinpi(x);
		if (x < -184)
			return copysign(0.0, s);
		/* reflection, gamma(1 - x) of 1 - x as double-double */
		z = two_sum(1, -x, &zl);
		if (z > 171.7)
			return copysign(0.0, s);
		g = tgamma_pos(z, zl);
		return M_PI / s / g;
	}
	if (x > 171.7)
		return DINF;
	return tgamma_pos(x, 0);
}

/* ---- Vector versions of the double functions ---- */

#define D1(f)	VEC1(double, double, f)
#define D2(f)	VEC2(double, double, double, f)
D1(trunc) D1(floor) D1(ceil) D1(round) D1(rint) D1(logb)
D1(sqrt) D1(rsqrt) D1(cbrt)
D1(exp) D1(exp2) D1(exp10) D1(expm1) D1(log) D1(log2) D1(log10) D1(log1p)
D1(sin) D1(cos) D1(tan) D1(sinpi) D1(cospi) D1(tanpi)
D1(asin) D1(acos) D1(atan) D1(asinpi) D1(acospi) D1(atanpi)
D1(sinh) D1(cosh) D1(tanh) D1(asinh) D1(acosh) D1(atanh)
D1(erf) D1(erfc) D1(lgamma) D1(tgamma)
D2(nextafter) D2(fdim) D2(maxmag) D2(minmag) D2(fmod) D2(remainder)
D2(pow) D2(powr) D2(hypot) D2(atan2) D2(atan2pi)
VEC3(double, double, double, double, fma)
VEC3(double, double, double, double, mad)
VEC2(double, double, int, ldexp) VECS2(double, double, int, ldexp)
VEC2(double, double, int, pown) VEC2(double, double, int, rootn)
VEC1(int, double, ilogb) VEC1(double, ulong, nan)

/* ---- float: the double function, rounded once ---- */

#define F1(f)								\
	CST float f(float x) { return (float)f((double)x); }		\
	VEC1(float, float, f)
#define F2(f)								\
	CST float f(float x, float y) { return (float)f((double)x, (double)y); } \
	VEC2(float, float, float, f)
F1(trunc) F1(floor) F1(ceil) F1(round) F1(rint) F1(logb) F1(cbrt)
F1(exp) F1(exp2) F1(exp10) F1(expm1) F1(log) F1(log2) F1(log10) F1(log1p)
F1(sin) F1(cos) F1(tan) F1(sinpi) F1(cospi) F1(tanpi)
F1(asin) F1(acos) F1(atan) F1(asinpi) F1(acospi) F1(atanpi)
F1(sinh) F1(cosh) F1(tanh) F1(asinh) F1(acosh) F1(atanh)
F1(erf) F1(erfc) F1(lgamma) F1(tgamma) F1(rsqrt)
F2(fdim) F2(maxmag) F2(minmag) F2(fmod) F2(remainder)
F2(pow) F2(powr) F2(hypot) F2(atan2) F2(atan2pi)
VEC1(float, float, sqrt) VEC2(float, float, float, nextafter)
VEC3(float, float, float, float, fma)

CST float mad(float a, float b, float c)
{
	return a * b + c;
}

CST float ldexp(float x, int k)
{
	return (float)ldexp((double)x, k);
}

CST int ilogb(float x)
{
	if (x != x)
		return FP_ILOGBNAN;
	return ilogb((double)x);
}

CST float pown(float x, int n)
{
	return (float)pown((double)x, n);
}

CST float rootn(float x, int n)
{
	return (float)rootn((double)x, n);
}

VEC3(float, float, float, float, mad)
VEC2(float, float, int, ldexp) VECS2(float, float, int, ldexp)
VEC2(float, float, int, pown) VEC2(float, float, int, rootn)
VEC1(int, float, ilogb) VEC1(float, uint, nan)

/* The pointer functions, float scalar (private) from the double ones. */
OVL float frexp(float x, __private int *e)
{
	return (float)frexp((double)x, e);
}

OVL float modf(float x, __private float *ip)
{
	double i, r = modf((double)x, &i);

	*ip = (float)i;
	return (float)r;
}

OVL float fract(float x, __private float *ip)
{
	double i;

	fract((double)x, &i);
	*ip = (float)i;
	if (isinf(x))
		return copysign(0.0f, x);
	return fmin(x - (float)i, 0x1.fffffep-1f);
}

OVL float sincos(float x, __private float *c)
{
	double dc, s = sincos((double)x, &dc);

	*c = (float)dc;
	return (float)s;
}

OVL float lgamma_r(float x, __private int *sign)
{
	return (float)lgamma_r((double)x, sign);
}

OVL float remquo(float x, float y, __private int *quo)
{
	return (float)remquo((double)x, (double)y, quo);
}

/* Their vector and other-address-space versions. */
#define PTRFN(F, I)							\
	VPTRP(F, F, I, frexp) VPTRP(F, F, F, modf)			\
	VPTRP(F, F, F, fract) VPTRP(F, F, F, sincos)			\
	VPTRP(F, F, I, lgamma_r)					\
	FOR_WAS(VPTR, F, F, I, frexp) FOR_WAS(VPTR, F, F, F, modf)	\
	FOR_WAS(VPTR, F, F, F, fract) FOR_WAS(VPTR, F, F, F, sincos)	\
	FOR_WAS(VPTR, F, F, I, lgamma_r)
PTRFN(float, int)
PTRFN(double, int)

#define RQ_(n, lo, hi, nl, nh, F)					\
	OVL F##n remquo(F##n x, F##n y, __private int##n *q)		\
	{								\
		int##nl a;						\
		int##nh b;						\
		F##n r = (F##n)(remquo(x.lo, y.lo, &a), remquo(x.hi, y.hi, &b)); \
		*q = (int##n)(a, b);					\
		return r;						\
	}
#define RQAS_(n, F, AS)							\
	OVL F##n remquo(F##n x, F##n y, AS int##n *q)			\
	{								\
		int##n t;						\
		F##n r = remquo(x, y, &t);				\
		*q = t;							\
		return r;						\
	}
#define RQ(AS, F)	VALL(RQAS_, F, AS)
VSPLIT(RQ_, float)
VSPLIT(RQ_, double)
FOR_WAS(RQ, float)
FOR_WAS(RQ, double)

/*
 * native_* and half_*: the full-precision functions (they are within the
 * looser bounds those ask for).
 */
#define NAT1(f)								\
	CST float native_##f(float x) { return f(x); }			\
	CST float half_##f(float x) { return f(x); }			\
	VEC1(float, float, native_##f) VEC1(float, float, half_##f)
#define NAT2(f, e)							\
	CST float native_##f(float x, float y) { return e; }		\
	CST float half_##f(float x, float y) { return e; }		\
	VEC2(float, float, float, native_##f) VEC2(float, float, float, half_##f)
NAT1(cos) NAT1(sin) NAT1(tan) NAT1(exp) NAT1(exp2) NAT1(exp10)
NAT1(log) NAT1(log2) NAT1(log10) NAT1(sqrt) NAT1(rsqrt)
NAT2(divide, x / y)
NAT2(powr, powr(x, y))

CST float native_recip(float x) { return 1 / x; }
CST float half_recip(float x) { return 1 / x; }
VEC1(float, float, native_recip) VEC1(float, float, half_recip)
