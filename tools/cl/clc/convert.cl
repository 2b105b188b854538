// SPDX-License-Identifier: GPL-2.0
/*
 * Explicit conversions convert_<type><n>[_sat][_rte|_rtz|_rtp|_rtn] for
 * every pair of the ten scalar types and their vectors (OpenCL C 3.0
 * section 6.4.3). Float to integer: rounded as asked (rtz by default),
 * then saturated, NaN to 0 (the specification leaves an unsaturated value
 * out of range undefined; saturating makes it defined). To a float type:
 * rounded to nearest, then moved one step where the mode asks, from the
 * exact sign of the rounding error. Vectors elementwise.
 */
#include "clc.h"

/* Rounding of a float to an integer value, per mode suffix. */
#define RND(x)		trunc(x)
#define RND_rte(x)	rint(x)
#define RND_rtz(x)	trunc(x)
#define RND_rtp(x)	ceil(x)
#define RND_rtn(x)	floor(x)
/* Mode numbers for a float destination. */
#define MODE		0
#define MODE_rte	0
#define MODE_rtz	1
#define MODE_rtp	2
#define MODE_rtn	3

/* Sign of r - x, exact: r is x rounded to a float type. */
static OVL int cmp(double r, char x) { return (r > x) - (r < x); }
static OVL int cmp(double r, uchar x) { return (r > x) - (r < x); }
static OVL int cmp(double r, short x) { return (r > x) - (r < x); }
static OVL int cmp(double r, ushort x) { return (r > x) - (r < x); }
static OVL int cmp(double r, int x) { return (r > x) - (r < x); }
static OVL int cmp(double r, uint x) { return (r > x) - (r < x); }
static OVL int cmp(double r, float x) { return (r > x) - (r < x); }
static OVL int cmp(double r, double x) { return (r > x) - (r < x); }
static OVL int cmp(double r, long x)
{
	long t;

	if (r >= 0x1p63)
		return 1;
	t = (long)r;
	return (t > x) - (t < x);
}

static OVL int cmp(double r, ulong x)
{
	ulong t;

	if (r >= 0x1p64)
		return 1;
	t = (ulong)r;
	return (t > x) - (t < x);
}

/* r = x rounded to nearest; one step toward the mode's direction. */
#define TOFLT(D, x, mode) ({						\
	D __r = (D)(x);							\
	int __c = cmp((double)__r, x);					\
	if ((mode) == 1 && (x < 0 ? __c < 0 : __c > 0))			\
		__r = nextafter(__r, (D)0);				\
	else if ((mode) == 2 && __c < 0)				\
		__r = nextafter(__r, (D)INFINITY);			\
	else if ((mode) == 3 && __c > 0)				\
		__r = nextafter(__r, -(D)INFINITY);			\
	__r;								\
})

/* One scalar conversion S -> D with suffix SAT M and its vectors. */
#define CV_V(n, lo, hi, nl, nh, D, S, SM)				\
	CST D##n convert_##D##n##SM(S##n x)				\
	{ return (D##n)(convert_##D##nl##SM(x.lo), convert_##D##nh##SM(x.hi)); }
#define CV(D, S, SM, body)						\
	CST D convert_##D##SM(S x) { body; }				\
	VSPLIT(CV_V, D, S, SM)

/* Integer to integer: modulo, or saturated. */
#define II(D, DMIN, DMAX, S, M)						\
	CV(D, S, M, return (D)x)					\
	CV(D, S, _sat##M,						\
	   return x < (S)0 ?						\
		((long)x < (long)(DMIN) ? (D)(DMIN) : (D)x) :		\
		((ulong)x > (ulong)(DMAX) ? (D)(DMAX) : (D)x))
/* Float to integer. */
#define FI_BODY(D, DMIN, DMAX, M)					\
	double r = RND##M((double)x);					\
	return r != r ? (D)0 : r <= (double)(DMIN) ? (D)(DMIN) :	\
	       r >= (double)(DMAX) ? (D)(DMAX) : (D)r
#define FI(D, DMIN, DMAX, S, M)						\
	CV(D, S, M, FI_BODY(D, DMIN, DMAX, M))				\
	CV(D, S, _sat##M, FI_BODY(D, DMIN, DMAX, M))

#define MODES(M, ...)							\
	M(__VA_ARGS__, ) M(__VA_ARGS__, _rte) M(__VA_ARGS__, _rtz)	\
	M(__VA_ARGS__, _rtp) M(__VA_ARGS__, _rtn)

/* To each integer type D from every source type. */
#define TO_INT(D, DMIN, DMAX)						\
	MODES(II, D, DMIN, DMAX, char) MODES(II, D, DMIN, DMAX, uchar)	\
	MODES(II, D, DMIN, DMAX, short) MODES(II, D, DMIN, DMAX, ushort) \
	MODES(II, D, DMIN, DMAX, int) MODES(II, D, DMIN, DMAX, uint)	\
	MODES(II, D, DMIN, DMAX, long) MODES(II, D, DMIN, DMAX, ulong)	\
	MODES(FI, D, DMIN, DMAX, float) MODES(FI, D, DMIN, DMAX, double)

/* To a float type D from S. */
#define TF(D, S, M)	CV(D, S, M, return TOFLT(D, x, MODE##M))
#define TO_FLT(D)							\
	MODES(TF, D, char) MODES(TF, D, uchar) MODES(TF, D, short)	\
	MODES(TF, D, ushort) MODES(TF, D, int) MODES(TF, D, uint)	\
	MODES(TF, D, long) MODES(TF, D, ulong) MODES(TF, D, float)	\
	MODES(TF, D, double)

TO_INT(char, CHAR_MIN, CHAR_MAX)
TO_INT(uchar, 0, UCHAR_MAX)
TO_INT(short, SHRT_MIN, SHRT_MAX)
TO_INT(ushort, 0, USHRT_MAX)
TO_INT(int, INT_MIN, INT_MAX)
TO_INT(uint, 0, UINT_MAX)
TO_INT(long, LONG_MIN, LONG_MAX)
TO_INT(ulong, 0, ULONG_MAX)
TO_FLT(float)
TO_FLT(double)
