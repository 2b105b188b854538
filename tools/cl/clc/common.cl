// SPDX-License-Identifier: GPL-2.0
/*
 * Common, geometric and relational functions (OpenCL C 3.0 sections
 * 6.15.4-6.15.6, 6.15.8 and 6.15.9 less the integer ones): one expression
 * each where OpenCL C's vector operators give the vector version too.
 */
#include "clc.h"

/*
 * Relational: 1/0 (int) for a scalar, -1/0 (I##n) for a vector: the
 * operators give exactly that.
 */
#define REL2(F, R, name, e)	CST R name(F x, F y) { return e; }
#define REL1(F, R, name, e)	CST R name(F x) { return e; }
#define RELS(n, F, I, R, MIN)						\
	REL2(F##n, R##n, isequal, x == y)				\
	REL2(F##n, R##n, isnotequal, x != y)				\
	REL2(F##n, R##n, isgreater, x > y)				\
	REL2(F##n, R##n, isgreaterequal, x >= y)			\
	REL2(F##n, R##n, isless, x < y)					\
	REL2(F##n, R##n, islessequal, x <= y)				\
	REL2(F##n, R##n, islessgreater, (x < y) | (x > y))		\
	REL2(F##n, R##n, isordered, (x == x) & (y == y))		\
	REL2(F##n, R##n, isunordered, (x != x) | (y != y))		\
	REL1(F##n, R##n, isnan, x != x)					\
	REL1(F##n, R##n, isinf, fabs(x) == (F)INFINITY)			\
	REL1(F##n, R##n, isfinite, fabs(x) < (F)INFINITY)		\
	REL1(F##n, R##n, isnormal, (fabs(x) >= MIN) & (fabs(x) < (F)INFINITY)) \
	REL1(F##n, R##n, signbit, as_##I##n(x) < (I)0)
#define RELV(n, F, I, MIN)	RELS(n, F, I, I, MIN)

/* Common functions of one float type, the scalar and vector forms alike. */
#define COMMON(n, F, I)							\
	CST F##n fabs(F##n x)						\
	{ return as_##F##n(as_##I##n(x) & (I)~((ulong)1 << (sizeof(F) * 8 - 1))); } \
	CST F##n copysign(F##n x, F##n y)				\
	{								\
		I##n s = (I)((ulong)1 << (sizeof(F) * 8 - 1));		\
		return as_##F##n((as_##I##n(x) & ~s) | (as_##I##n(y) & s)); \
	}								\
	CST F##n fmax(F##n x, F##n y)					\
	{ return x != x ? y : y != y ? x : x < y ? y : x; }		\
	CST F##n fmin(F##n x, F##n y)					\
	{ return x != x ? y : y != y ? x : y < x ? y : x; }		\
	CST F##n max(F##n x, F##n y) { return fmax(x, y); }		\
	CST F##n min(F##n x, F##n y) { return fmin(x, y); }		\
	CST F##n clamp(F##n x, F##n lo, F##n hi) { return fmin(fmax(x, lo), hi); } \
	CST F##n degrees(F##n r) { return r * (F)(180 / M_PI); }	\
	CST F##n radians(F##n d) { return d * (F)(M_PI / 180); }	\
	CST F##n mix(F##n x, F##n y, F##n a) { return x + (y - x) * a; } \
	CST F##n step(F##n edge, F##n x) { return x < edge ? (F##n)0 : (F##n)1; } \
	CST F##n smoothstep(F##n e0, F##n e1, F##n x)			\
	{								\
		F##n t = clamp((x - e0) / (e1 - e0), (F##n)0, (F##n)1);	\
		return t * t * (3 - 2 * t);				\
	}								\
	CST F##n sign(F##n x)						\
	{								\
		return x != x ? (F##n)0 : x > 0 ? (F##n)1 :		\
		       x < 0 ? (F##n)-1 : copysign((F##n)0, x);		\
	}								\
	CST F##n bitselect(F##n a, F##n b, F##n c)			\
	{ return as_##F##n((as_##I##n(a) & ~as_##I##n(c)) | (as_##I##n(b) & as_##I##n(c))); }

/* The scalar-argument forms of the vector functions. */
#define COMMON_S(n, F)							\
	CST F##n fmax(F##n x, F y) { return fmax(x, (F##n)y); }		\
	CST F##n fmin(F##n x, F y) { return fmin(x, (F##n)y); }		\
	CST F##n max(F##n x, F y) { return fmax(x, (F##n)y); }		\
	CST F##n min(F##n x, F y) { return fmin(x, (F##n)y); }		\
	CST F##n clamp(F##n x, F lo, F hi) { return clamp(x, (F##n)lo, (F##n)hi); } \
	CST F##n mix(F##n x, F##n y, F a) { return mix(x, y, (F##n)a); } \
	CST F##n step(F e, F##n x) { return step((F##n)e, x); }		\
	CST F##n smoothstep(F e0, F e1, F##n x)				\
	{ return smoothstep((F##n)e0, (F##n)e1, x); }

/*
 * The scalar ternary on a vector condition would be an error: the scalar
 * forms need their own (x != x etc. are ints there).
 */
VALL(COMMON, float, int)
VALL(COMMON, double, long)
VSIZES(COMMON_S, float)
VSIZES(COMMON_S, double)
RELS(, float, int, int, FLT_MIN)
RELS(, double, long, int, DBL_MIN)
VSIZES(RELV, float, int, FLT_MIN)
VSIZES(RELV, double, long, DBL_MIN)

/* any, all: the most significant bit of any or all components. */
#define ANYALL(n, T)							\
	CST int any(T##n x) { return !!__builtin_reduce_or(x < (T)0); }	\
	CST int all(T##n x) { return !!__builtin_reduce_and(x < (T)0); }
#define ANYALL1(T)							\
	CST int any(T x) { return x < 0; }				\
	CST int all(T x) { return x < 0; }				\
	VSIZES(ANYALL, T)
ANYALL1(char)
ANYALL1(short)
ANYALL1(int)
ANYALL1(long)

/*
 * select(a, b, c): b where c (a scalar) is non-zero, or where a vector
 * component of c has its most significant bit set; else a. bitselect for
 * the integer types.
 */
#define SELV(n, T, S, U)						\
	CST T##n select(T##n a, T##n b, S##n c) { return c < (S)0 ? b : a; } \
	CST T##n select(T##n a, T##n b, U##n c)				\
	{ return as_##S##n(c) < (S)0 ? b : a; }
#define SEL(T, S, U)							\
	CST T select(T a, T b, S c) { return c ? b : a; }		\
	CST T select(T a, T b, U c) { return c ? b : a; }		\
	VSIZES(SELV, T, S, U)
#define SELI(T, S, U)							\
	SEL(T, S, U)							\
	VALL(BITSEL, T)
#define BITSEL(n, T)							\
	CST T##n bitselect(T##n a, T##n b, T##n c) { return (a & ~c) | (b & c); }
SELI(char, char, uchar)
SELI(uchar, char, uchar)
SELI(short, short, ushort)
SELI(ushort, short, ushort)
SELI(int, int, uint)
SELI(uint, int, uint)
SELI(long, long, ulong)
SELI(ulong, long, ulong)
SEL(float, int, uint)
SEL(double, long, ulong)

/* Geometric functions, on 1 to 4 components. */
#define SUM_(v)		(v)
#define SUM_2(v)	((v).x + (v).y)
#define SUM_3(v)	((v).x + (v).y + (v).z)
#define SUM_4(v)	((v).x + (v).y + (v).z + (v).w)
#define MAX_(v)		(v)
#define MAX_2(v)	fmax((v).x, (v).y)
#define MAX_3(v)	fmax(fmax((v).x, (v).y), (v).z)
#define MAX_4(v)	fmax(fmax((v).x, (v).y), fmax((v).z, (v).w))

/*
 * float: sums of squares in double, which neither overflows nor
 * underflows for floats; double: scaled by the largest component first.
 * An infinite component makes normalize() the vector of the infinities'
 * signs (1 or -1 there, 0 elsewhere), normalised.
 */
#define GEOF(n)								\
	CST float dot(float##n a, float##n b) { return SUM_##n(a * b); } \
	CST float length(float##n p)					\
	{								\
		double##n d = convert_double##n(p);			\
		return (float)sqrt(SUM_##n(d * d));			\
	}								\
	CST float distance(float##n a, float##n b) { return length(a - b); } \
	CST float##n normalize(float##n p)				\
	{								\
		double##n d = convert_double##n(p);			\
		double l = sqrt(SUM_##n(d * d));			\
		if (l == 0 || l != l)					\
			return l == 0 ? p : (float##n)NAN;		\
		if (isinf(l)) {						\
			d = isinf(d) ? copysign((double##n)1, d) : 0;	\
			l = sqrt(SUM_##n(d * d));			\
		}							\
		return convert_float##n(d / l);				\
	}								\
	CST float fast_length(float##n p) { return length(p); }		\
	CST float fast_distance(float##n a, float##n b) { return distance(a, b); } \
	CST float##n fast_normalize(float##n p) { return normalize(p); }
#define GEOD(n)								\
	CST double dot(double##n a, double##n b) { return SUM_##n(a * b); } \
	CST double length(double##n p)					\
	{								\
		double m = MAX_##n(fabs(p));				\
		if (m == 0 || isinf(m) || m != m)			\
			return m;					\
		p /= m;							\
		return sqrt(SUM_##n(p * p)) * m;			\
	}								\
	CST double distance(double##n a, double##n b) { return length(a - b); } \
	CST double##n normalize(double##n p)				\
	{								\
		double m = MAX_##n(fabs(p));				\
		if (m == 0 || m != m)					\
			return m == 0 ? p : (double##n)NAN;		\
		if (isinf(m))						\
			p = isinf(p) ? copysign((double##n)1, p) : 0;	\
		else							\
			p /= m;						\
		return p / sqrt(SUM_##n(p * p));			\
	}
GEOF() GEOF(2) GEOF(3) GEOF(4)
GEOD() GEOD(2) GEOD(3) GEOD(4)

#define CROSS(F)							\
	CST F##3 cross(F##3 a, F##3 b)					\
	{ return a.yzx * b.zxy - a.zxy * b.yzx; }			\
	CST F##4 cross(F##4 a, F##4 b)					\
	{ return (F##4)(cross(a.xyz, b.xyz), 0); }
CROSS(float)
CROSS(double)
