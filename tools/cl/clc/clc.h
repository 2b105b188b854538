/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clc.h: what the files of the device library (tools/cl/clc/, nvclc.bc)
 * share. The library is OpenCL C compiled for riscv64-unknown-elf with
 * opencl-c-base.h only (types, macros, as_<type>): every built-in it
 * defines is declared here or by its own definition, overloadable, so that
 * clang mangles it as it mangles a user kernel's call (the address spaces
 * stay in the mangled names: PU8CLglobal, PU7CLlocal, PU9CLprivate,
 * PU10CLconstant, PU9CLgeneric).
 *
 * Vector versions are built from halves (VSPLIT): f(x) of an N-vector is
 * (f(x.lo), f(x.hi)), a 3-vector (f(x.s01), f(x.s2)), down to the scalar
 * function, which the optimiser inlines.
 */
#ifndef _NVCLC_H
#define _NVCLC_H

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define OVL	__attribute__((overloadable))
#define CST	__attribute__((overloadable, const))

/*
 * M(n, lo, hi, nlo, nhi, ...) for each vector size n: the halves' fields
 * and their sizes (empty: a scalar).
 */
#define VSPLIT(M, ...)					\
	M(2, lo, hi, , , __VA_ARGS__)			\
	M(3, s01, s2, 2, , __VA_ARGS__)			\
	M(4, lo, hi, 2, 2, __VA_ARGS__)			\
	M(8, lo, hi, 4, 4, __VA_ARGS__)			\
	M(16, lo, hi, 8, 8, __VA_ARGS__)

/* M(n, ...) for each vector size; VALL also for the scalar (n empty). */
#define VSIZES(M, ...)					\
	M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__)	\
	M(8, __VA_ARGS__) M(16, __VA_ARGS__)
#define VALL(M, ...)	M(, __VA_ARGS__) VSIZES(M, __VA_ARGS__)

/* R f(A x), R f(A x, B y), R f(A x, B y, C z) elementwise on vectors. */
#define V1_(n, lo, hi, nl, nh, R, A, f)					\
	CST R##n f(A##n x) { return (R##n)(f(x.lo), f(x.hi)); }
#define V2_(n, lo, hi, nl, nh, R, A, B, f)				\
	CST R##n f(A##n x, B##n y)					\
	{ return (R##n)(f(x.lo, y.lo), f(x.hi, y.hi)); }
#define V3_(n, lo, hi, nl, nh, R, A, B, C, f)				\
	CST R##n f(A##n x, B##n y, C##n z)				\
	{ return (R##n)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi)); }
#define VEC1(R, A, f)		VSPLIT(V1_, R, A, f)
#define VEC2(R, A, B, f)	VSPLIT(V2_, R, A, B, f)
#define VEC3(R, A, B, C, f)	VSPLIT(V3_, R, A, B, C, f)

/* f(vector, scalar) and f(vector, scalar, scalar) by broadcast. */
#define VS2_(n, R, A, B, f)						\
	CST R##n f(A##n x, B y) { return f(x, (B##n)y); }
#define VS3_(n, R, A, B, f)						\
	CST R##n f(A##n x, B y, B z) { return f(x, (B##n)y, (B##n)z); }
#define VECS2(R, A, B, f)	VSIZES(VS2_, R, A, B, f)
#define VECS3(R, A, B, f)	VSIZES(VS3_, R, A, B, f)

/*
 * R f(A x, AS B *p) elementwise: the private vector version from halves
 * (VPTRP), the others through a private temporary (VPTR).
 */
#define VP_(n, lo, hi, nl, nh, R, A, B, f)				\
	OVL R##n f(A##n x, __private B##n *p)				\
	{								\
		B##nl a;						\
		B##nh b;						\
		R##n r = (R##n)(f(x.lo, &a), f(x.hi, &b));		\
		*p = (B##n)(a, b);					\
		return r;						\
	}
#define VPTRP(R, A, B, f)	VSPLIT(VP_, R, A, B, f)
#define VPAS_(n, R, A, B, f, AS)					\
	OVL R##n f(A##n x, AS B##n *p)					\
	{								\
		B##n t;							\
		R##n r = f(x, &t);					\
		*p = t;							\
		return r;						\
	}
#define VPTR(AS, R, A, B, f)	VALL(VPAS_, R, A, B, f, AS)

/* M(AS, ...) for the address spaces a pointer argument may have. */
#define FOR_WAS(M, ...)							\
	M(__global, __VA_ARGS__) M(__local, __VA_ARGS__)		\
	M(__generic, __VA_ARGS__)
#define FOR_RAS(M, ...)	FOR_WAS(M, __VA_ARGS__) M(__constant, __VA_ARGS__)

/* The scalar types: M(type, unsigned type, bits, min, max, ...). */
#define FOR_INT(M, ...)							\
	M(char, uchar, 8, CHAR_MIN, CHAR_MAX, __VA_ARGS__)		\
	M(uchar, uchar, 8, 0, UCHAR_MAX, __VA_ARGS__)			\
	M(short, ushort, 16, SHRT_MIN, SHRT_MAX, __VA_ARGS__)		\
	M(ushort, ushort, 16, 0, USHRT_MAX, __VA_ARGS__)		\
	M(int, uint, 32, INT_MIN, INT_MAX, __VA_ARGS__)			\
	M(uint, uint, 32, 0, UINT_MAX, __VA_ARGS__)			\
	M(long, ulong, 64, LONG_MIN, LONG_MAX, __VA_ARGS__)		\
	M(ulong, ulong, 64, 0, ULONG_MAX, __VA_ARGS__)

/* M(type, ...) for every scalar type with vectors. */
#define FOR_ALLT(M, ...)						\
	M(char, __VA_ARGS__) M(uchar, __VA_ARGS__)			\
	M(short, __VA_ARGS__) M(ushort, __VA_ARGS__)			\
	M(int, __VA_ARGS__) M(uint, __VA_ARGS__)			\
	M(long, __VA_ARGS__) M(ulong, __VA_ARGS__)			\
	M(float, __VA_ARGS__) M(double, __VA_ARGS__)

/* M(float type, int type of its size, ...). */
#define FOR_FLT(M, ...)	M(float, int, __VA_ARGS__) M(double, long, __VA_ARGS__)


#endif /* _NVCLC_H */
