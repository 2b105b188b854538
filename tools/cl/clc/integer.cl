// SPDX-License-Identifier: GPL-2.0
/*
 * Integer functions (OpenCL C 3.0 section 6.15.4) for every integer type
 * and its vectors, and the integer max/min/clamp of the common functions.
 * Scalar versions here, vectors elementwise (clc.h).
 */
#include "clc.h"

/* The type twice as wide, for mul_hi and mad_sat. */
#define WIDE_char	int
#define WIDE_uchar	uint
#define WIDE_short	int
#define WIDE_ushort	uint
#define WIDE_int	long
#define WIDE_uint	ulong
#define WIDE_long	__int128
#define WIDE_ulong	unsigned __int128
#define WIDE(T)		WIDE_##T

#define INT_SCALAR(T, U, B, MIN, MAX, X)				\
CST U abs(T x) { return x < (T)0 ? (U)((U)0 - (U)x) : (U)x; }		\
CST U abs_diff(T x, T y)						\
{ return x > y ? (U)((U)x - (U)y) : (U)((U)y - (U)x); }		\
CST T add_sat(T x, T y)							\
{ T r; return __builtin_add_overflow(x, y, &r) ? (x < (T)0 ? (T)MIN : (T)MAX) : r; } \
CST T sub_sat(T x, T y)							\
{ T r; return __builtin_sub_overflow(x, y, &r) ? (x < y ? (T)MIN : (T)MAX) : r; } \
CST T hadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + (x & y & 1)); }	\
CST T rhadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + ((x | y) & 1)); } \
CST T max(T x, T y) { return x > y ? x : y; }				\
CST T min(T x, T y) { return x < y ? x : y; }				\
CST T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }		\
CST T clz(T x)								\
{									\
	if (!x)								\
		return B;						\
	return (T)(B == 64 ? __builtin_clzl((ulong)x) :		\
		   __builtin_clz((uint)(U)x) - (32 - B));		\
}									\
CST T ctz(T x)								\
{									\
	if (!x)								\
		return B;						\
	return (T)(B == 64 ? __builtin_ctzl((ulong)x) :		\
		   __builtin_ctz((uint)(U)x));				\
}									\
CST T popcount(T x)							\
{									\
	return (T)(B == 64 ? __builtin_popcountl((ulong)x) :		\
		   __builtin_popcount((uint)(U)x));			\
}									\
CST T mul_hi(T x, T y)							\
{ return (T)(((WIDE(T))x * (WIDE(T))y) >> B); }			\
CST T mad_hi(T x, T y, T z) { return mul_hi(x, y) + z; }		\
CST T mad_sat(T x, T y, T z)						\
{									\
	/* exact: |x*y + z| < 2^(2B) even for ulong */			\
	WIDE(T) p = (WIDE(T))x * (WIDE(T))y + (WIDE(T))z;		\
	return p < (WIDE(T))(T)(MIN) ? (T)(MIN) :			\
	       p > (WIDE(T))(T)(MAX) ? (T)(MAX) : (T)p;		\
}									\
CST T rotate(T v, T i)							\
{									\
	U n = (U)i & (B - 1), u = (U)v;					\
	return (T)(U)((U)(u << n) | (U)(u >> ((B - n) & (B - 1))));	\
}

FOR_INT(INT_SCALAR, 0)

#define INT_VEC(T, U, B, MIN, MAX, X)					\
	VEC1(U, T, abs) VEC2(U, T, T, abs_diff)				\
	VEC2(T, T, T, add_sat) VEC2(T, T, T, sub_sat)			\
	VEC2(T, T, T, hadd) VEC2(T, T, T, rhadd)			\
	VEC2(T, T, T, max) VEC2(T, T, T, min)				\
	VECS2(T, T, T, max) VECS2(T, T, T, min)				\
	VEC3(T, T, T, T, clamp) VECS3(T, T, T, clamp)			\
	VEC1(T, T, clz) VEC1(T, T, ctz) VEC1(T, T, popcount)		\
	VEC2(T, T, T, mul_hi) VEC3(T, T, T, T, mad_hi)			\
	VEC3(T, T, T, T, mad_sat) VEC2(T, T, T, rotate)

FOR_INT(INT_VEC, 0)

/* upsample(hi, lo): the type twice as wide, hi's signedness. */
#define UPS(T, U, W)							\
	CST W upsample(T hi, U lo)					\
	{ return (W)((W)hi << (sizeof(T) * 8)) | (W)lo; }		\
	VEC2(W, T, U, upsample)
UPS(char, uchar, short)
UPS(uchar, uchar, ushort)
UPS(short, ushort, int)
UPS(ushort, ushort, uint)
UPS(int, uint, long)
UPS(uint, uint, ulong)

/* mad24, mul24: the arguments are 24-bit integers (else undefined). */
#define I24(T)								\
	CST T mul24(T x, T y) { return x * y; }				\
	CST T mad24(T x, T y, T z) { return x * y + z; }		\
	VEC2(T, T, T, mul24) VEC3(T, T, T, T, mad24)
I24(int)
I24(uint)
