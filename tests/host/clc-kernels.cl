// SPDX-License-Identifier: GPL-2.0
/*
 * The device side of tests/host/clc-test.c: OpenCL C calling the built-in
 * functions of nvclc.bc, built by tools/gpu/build-kernel.sh and run by the
 * interpreter (src/vgpu/rv.c) on the host, twice: as OpenCL C 2.0 (the
 * generic address space versions) and 1.2 (the named ones; without the
 * 2.0 functions). Each entry point takes the
 * argument block (struct targs, 8-byte fields, as in clc-test.c) and loops
 * over its n inputs; fn selects the function (the numbers are clc-test.c's
 * tables).
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

struct targs {
	ulong fn, n;
	ulong x, y, z, r, r2, ri;
};

#define G(T, p)	((__global T *)(p))

/*
 * One case: r[i] = e for every i (x, y: the i-th inputs, k the i-th int),
 * NW elements at a time: FV and IV the types of that many, LD and LDI
 * their loads, ST the store, CVT a conversion to FV (set per kernel).
 */
#define C(num, e)							\
	case num:							\
		for (i = 0; i + NW <= a->n; i += NW) {			\
			FV x = LD(X, i), y = LD(Y, i);			\
			IV k = LDI(K, i);				\
			(void)x; (void)y; (void)k;			\
			ST((e), R, i);					\
		}							\
		break;
/* One case with an int result in RI[i] (through &t), a second in R2[i]. */
#define CI(num, e)							\
	case num:							\
		for (i = 0; i + NW <= a->n; i += NW) {			\
			FV x = LD(X, i), y = LD(Y, i), s = 0;		\
			IV t = 0;					\
			(void)y;					\
			ST((e), R, i);					\
			STI(t, RI, i);					\
			ST(s, R2, i);					\
		}							\
		break;

#define MATH(F, name)							\
void nvgpu_kernel_##name(__global const struct targs *a);		\
void nvgpu_kernel_##name(__global const struct targs *a)		\
{									\
	__global const F *X = G(const F, a->x), *Y = G(const F, a->y);	\
	__global const int *K = G(const int, a->z);			\
	__global F *R = G(F, a->r), *R2 = G(F, a->r2);			\
	__global int *RI = G(int, a->ri);				\
	ulong i;							\
									\
	switch (a->fn) {						\
	C(0, sin(x)) C(1, cos(x)) C(2, tan(x)) C(3, exp(x))		\
	C(4, exp2(x)) C(5, exp10(x)) C(6, expm1(x)) C(7, log(x))	\
	C(8, log2(x)) C(9, log10(x)) C(10, log1p(x)) C(11, asin(x))	\
	C(12, acos(x)) C(13, atan(x)) C(14, sinh(x)) C(15, cosh(x))	\
	C(16, tanh(x)) C(17, asinh(x)) C(18, acosh(x)) C(19, atanh(x))	\
	C(20, cbrt(x)) C(21, erf(x)) C(22, erfc(x)) C(23, tgamma(x))	\
	C(24, lgamma(x)) C(25, sinpi(x)) C(26, cospi(x)) C(27, tanpi(x)) \
	C(28, sqrt(x)) C(29, rsqrt(x)) C(30, floor(x)) C(31, ceil(x))	\
	C(32, trunc(x)) C(33, round(x)) C(34, rint(x)) C(35, logb(x))	\
	C(36, asinpi(x)) C(37, acospi(x)) C(38, atanpi(x)) C(39, fabs(x)) \
	C(40, pow(x, y)) C(41, atan2(x, y)) C(42, hypot(x, y))		\
	C(43, fmod(x, y)) C(44, remainder(x, y)) C(45, fdim(x, y))	\
	C(46, fmax(x, y)) C(47, fmin(x, y)) C(48, nextafter(x, y))	\
	C(49, powr(x, y)) C(50, maxmag(x, y)) C(51, minmag(x, y))	\
	C(52, copysign(x, y)) C(53, atan2pi(x, y)) C(54, fma(x, y, x))	\
	C(60, ldexp(x, k)) C(61, pown(x, k)) C(62, rootn(x, k))		\
	CI(63, frexp(x, &t)) C(64, CVT(ilogb(x))) CI(65, remquo(x, y, &t)) \
	CI(66, fract(x, &s)) CI(67, modf(x, &s)) CI(68, sincos(x, &s))	\
	CI(69, lgamma_r(x, &t))						\
	}								\
}
/* The scalar kernels, then float16 and double3 ones (vectors by halves). */
#define NW		1
#define LD(p, i)	(p)[i]
#define LDI(p, i)	(p)[i]
#define ST(v, p, i)	((p)[i] = (v))
#define STI(v, p, i)	((p)[i] = (v))
#define IV		int
#define FV		F
#define CVT(e)		((F)(e))
#define F float
MATH(F, mathf)
#undef F
#define F double
MATH(F, mathd)
#undef F
#undef NW
#undef LD
#undef LDI
#undef ST
#undef STI
#undef IV
#undef FV
#undef CVT
#define LD(p, i)	VL(0, (p) + (i))
#define LDI(p, i)	VL(0, (p) + (i))
#define ST(v, p, i)	VS((v), 0, (p) + (i))
#define STI(v, p, i)	VS((v), 0, (p) + (i))
#define NW		16
#define VL		vload16
#define VS		vstore16
#define F float
#define FV		float16
#define IV		int16
#define CVT(e)		convert_float16(e)
MATH(F, mathf16)
#undef F
#undef FV
#undef IV
#undef CVT
#undef NW
#undef VL
#undef VS
#define NW		3
#define VL		vload3
#define VS		vstore3
#define F double
#define FV		double3
#define IV		int3
#define CVT(e)		convert_double3(e)
MATH(F, mathd3)
#undef F

/*
 * Integer functions on type T: x, y, z and r are arrays of ulong (the
 * value converted to and from T).
 */
#define IC(num, e)							\
	case num:							\
		for (i = 0; i < a->n; i++) {				\
			T x = (T)X[i], y = (T)Y[i], z = (T)Z[i];	\
			(void)y; (void)z;				\
			R[i] = (ulong)(e);				\
		}							\
		break;
#define IOPS(T, base)							\
	IC(base + 0, abs(x)) IC(base + 1, abs_diff(x, y))		\
	IC(base + 2, add_sat(x, y)) IC(base + 3, sub_sat(x, y))	\
	IC(base + 4, hadd(x, y)) IC(base + 5, rhadd(x, y))		\
	IC(base + 6, clz(x)) IC(base + 7, popcount(x))			\
	IC(base + 8, mul_hi(x, y)) IC(base + 9, mad_hi(x, y, z))	\
	IC(base + 10, mad_sat(x, y, z)) IC(base + 11, rotate(x, y))	\
	IC(base + 12, max(x, y)) IC(base + 13, min(x, y))		\
	IC(base + 14, clamp(x, min(y, z), max(y, z))) IC(base + 15, CTZ(x))
/* ctz is OpenCL C 2.0's (clc-test runs it on that image only) */
#if __OPENCL_C_VERSION__ >= 200
#define CTZ(x)	ctz(x)
#else
#define CTZ(x)	((void)(x), 0)
#endif
void nvgpu_kernel_ints(__global const struct targs *a);
void nvgpu_kernel_ints(__global const struct targs *a)
{
	__global const ulong *X = G(const ulong, a->x), *Y = G(const ulong, a->y);
	__global const ulong *Z = G(const ulong, a->z);
	__global ulong *R = G(ulong, a->r);
	ulong i;

	switch (a->fn) {
#define T char
	IOPS(char, 0)
#undef T
#define T uchar
	IOPS(uchar, 16)
#undef T
#define T short
	IOPS(short, 32)
#undef T
#define T ushort
	IOPS(ushort, 48)
#undef T
#define T int
	IOPS(int, 64)
#undef T
#define T uint
	IOPS(uint, 80)
#undef T
#define T long
	IOPS(long, 96)
#undef T
#define T ulong
	IOPS(ulong, 112)
	IC(128, upsample((char)x, (uchar)y)) IC(129, upsample((uint)x, (uint)y))
	IC(130, mul24((int)x << 8 >> 8, (int)y << 8 >> 8))
	IC(131, mad24((uint)x & 0xffffff, (uint)y & 0xffffff, (uint)z))
#undef T
	}
}

/*
 * Conversions: x double, l long (y as ulong bits); r and r2 receive the
 * results as ulong bits (float results as their bits).
 */
#define CVC(num, e)							\
	case num:							\
		for (i = 0; i < a->n; i++) {				\
			double x = X[i];				\
			long l = L[i];					\
			float f = (float)x;				\
			(void)f; (void)l;				\
			R[i] = (e);					\
		}							\
		break;
void nvgpu_kernel_convert(__global const struct targs *a);
void nvgpu_kernel_convert(__global const struct targs *a)
{
	__global const double *X = G(const double, a->x);
	__global const long *L = G(const long, a->y);
	__global ulong *R = G(ulong, a->r);
	ulong i;

	switch (a->fn) {
	CVC(0, (uint)convert_int_sat_rte(f)) CVC(1, (uint)convert_int_sat_rtz(f))
	CVC(2, (uint)convert_int_sat_rtp(f)) CVC(3, (uint)convert_int_sat_rtn(f))
	CVC(4, (uint)convert_int_sat(f)) CVC(5, convert_uchar_sat_rte(x))
	CVC(6, (ulong)convert_long_sat_rtn(x)) CVC(7, convert_ulong_sat_rtp(x))
	CVC(8, (ushort)convert_short_sat(l)) CVC(9, convert_uchar_sat(l))
	CVC(10, as_uint(convert_float_rtz(l))) CVC(11, as_uint(convert_float_rtp(l)))
	CVC(12, as_uint(convert_float_rtn(l))) CVC(13, as_uint(convert_float(l)))
	CVC(14, as_uint(convert_float_rtz((ulong)l)))
	CVC(15, as_uint(convert_float_rtp((ulong)l)))
	CVC(16, as_uint(convert_float_rtz(x))) CVC(17, as_uint(convert_float_rtp(x)))
	CVC(18, as_uint(convert_float_rtn(x))) CVC(19, as_uint(convert_float_rte(x)))
	CVC(20, as_ulong(convert_double_rtz(l))) CVC(21, as_ulong(convert_double_rtp((ulong)l)))
	CVC(22, as_uint(convert_float_rtn((int)l))) CVC(23, (uint)convert_int_rte(f))
	/* vectors: lane j of a vector of inputs i..i+3 */
	CVC(24, (uint)convert_int4_sat_rte(convert_float4(vload4(0, X + (i & ~3UL))))[i & 3])
	CVC(25, as_uint(convert_float8_rtz(vload8(0, L + (i & ~7UL)))[i & 7]))
	}
}

/* Half: vload_half of every bit pattern; vstore_half in each mode. */
void nvgpu_kernel_half(__global const struct targs *a);
void nvgpu_kernel_half(__global const struct targs *a)
{
	__global const double *X = G(const double, a->x);
	__global half *H = G(half, a->r2);
	__global float *R = G(float, a->r);
	ulong i;

	for (i = 0; i < a->n; i++) {
		double x = X[i];
		float f = (float)x;

		switch (a->fn) {
		case 0:
			R[i] = vload_half(i, (__global const half *)G(half, a->y));
			break;
		case 1: vstore_half_rte(f, i, H); break;
		case 2: vstore_half_rtz(f, i, H); break;
		case 3: vstore_half_rtp(f, i, H); break;
		case 4: vstore_half_rtn(f, i, H); break;
		case 5: vstore_half_rte(x, i, H); break;
		case 6: vstore_half_rtz(x, i, H); break;
		case 7: vstore_half_rtp(x, i, H); break;
		case 8: vstore_half_rtn(x, i, H); break;
		case 9: vstore_half(f, i, H); break;
		}
	}
}

/*
 * Work-item functions: r[] gets get_work_dim(), then for d = 0..3 the
 * global id, local id, group id, local size, enqueued local size, global
 * size, number of groups and global offset, then the linear ids.
 */
void nvgpu_kernel_workitem(__global const struct targs *a);
void nvgpu_kernel_workitem(__global const struct targs *a)
{
	__global ulong *R = G(ulong, a->r);
	uint d;

	*R++ = get_work_dim();
	for (d = 0; d < 4; d++) {
		*R++ = get_global_id(d);
		*R++ = get_local_id(d);
		*R++ = get_group_id(d);
		*R++ = get_local_size(d);
#if __OPENCL_C_VERSION__ >= 200
		*R++ = get_enqueued_local_size(d);
#else
		*R++ = 0;
#endif
		*R++ = get_global_size(d);
		*R++ = get_num_groups(d);
		*R++ = get_global_offset(d);
	}
#if __OPENCL_C_VERSION__ >= 200
	*R++ = get_global_linear_id();
	*R++ = get_local_linear_id();
#endif
	barrier(CLK_LOCAL_MEM_FENCE);
	mem_fence(CLK_GLOBAL_MEM_FENCE);
}

/*
 * Atomics on global int x[0..], long y[0..] and a local int: r[] gets the
 * old values in order (clc-test.c replays them on the host).
 */
void nvgpu_kernel_atomics(__global const struct targs *a);
void nvgpu_kernel_atomics(__global const struct targs *a)
{
	volatile __global int *g = G(int, a->x);
	volatile __global long *gl = G(long, a->y);
	volatile __local int *l = (volatile __local int *)0x5000000000000000UL;
	__global long *R = G(long, a->r);
	float f;

	*R++ = atomic_add(g, 5);
	*R++ = atomic_sub(g, 7);
	*R++ = atomic_xchg(g, -100);
	*R++ = atomic_inc(g);
	*R++ = atomic_dec(g);
	*R++ = atomic_cmpxchg(g, -100, 42);
	*R++ = atomic_cmpxchg(g, -100, 43);
	*R++ = atomic_min(g, -3);
	*R++ = atomic_max(g, 9);
	*R++ = atomic_min((volatile __global uint *)g, 4);
	*R++ = atomic_and(g, 0x0c);
	*R++ = atomic_or(g, 0x30);
	*R++ = atomic_xor(g, 0xff);
	*R++ = *g;
	*R++ = atom_add(gl, 0x100000000L);
	*R++ = atom_cmpxchg(gl, 0x100000001L, -1L);
	*R++ = atom_max((volatile __global ulong *)gl, 7UL);
	*R++ = *gl;
	*R++ = atomic_add(l, 3);
	*R++ = atomic_inc(l);
	*R++ = *l;
	f = atomic_xchg((volatile __global float *)(g + 1), 2.5f);
	*R++ = (long)(f * 4);
	*R++ = (long)(*(__global float *)(g + 1) * 4);
}

/* Many work-items add to one counter: with AMOs and with cmpxchg loops. */
void nvgpu_kernel_counter(__global const struct targs *a);
void nvgpu_kernel_counter(__global const struct targs *a)
{
	volatile __global int *g = G(int, a->x);
	ulong i;
	int old;

	for (i = 0; i < a->n; i++) {
		atomic_inc(g);
		do
			old = g[1];
		while (atomic_cmpxchg(g + 1, old, old + 2) != old);
	}
}

/*
 * vloadN/vstoreN at element (not vector) alignment, shuffles, relational,
 * common and geometric functions: r[] gets the results as ulong bits.
 */
void nvgpu_kernel_misc(__global const struct targs *a);
void nvgpu_kernel_misc(__global const struct targs *a)
{
	__global const uchar *B = G(const uchar, a->x);
	__global uchar *W = G(uchar, a->y);
	__global ulong *R = G(ulong, a->r);
	float4 f = vload4(0, (__global const float *)(B + 4));
	int3 i3 = vload3(1, (__global const int *)(B + 4));
	double2 d = vload2(0, (__global const double *)(B + 8));
	uchar16 c = vload16(0, B + 1);
	float4 v = (float4)(1.0f, -2.0f, NAN, INFINITY);
	float3 p = (float3)(3, 4, 12), q = (float3)(-1, 2, 0.5f);

	*R++ = as_uint(f.x) | (ulong)as_uint(f.w) << 32;
	*R++ = (uint)i3.x | (ulong)(uint)i3.z << 32;
	*R++ = as_ulong(d.y);
	*R++ = c.s0 | (ulong)c.sf << 8;
	vstore3((int3)(7, 8, 9), 1, (__global int *)(W + 4));
	vstore8((short8)(1, 2, 3, 4, 5, 6, 7, -1), 0, (__global short *)(W + 30));
	vstore2((double2)(1.5, -2.5), 0, (__global double *)(W + 56));
	*R++ = as_ulong((isnan(v) | isinf(v) << 1 | signbit(v) << 2).zw);
	*R++ = (ulong)(isnan(v).z & 3) | (ulong)any(isinf(v)) << 8 | (ulong)all(isinf(v)) << 9;
	*R++ = as_uint(shuffle(v, (uint4)(3, 0, 5, 1)).x) | (ulong)as_uint(shuffle(v, (uint4)(3, 0, 5, 1)).z) << 32;
	*R++ = shuffle2((int4)(1, 2, 3, 4), (int4)(5, 6, 7, 8), (uint8)(7, 0, 4, 9, 1, 1, 2, 6)).s3 |
	       (ulong)shuffle2((int4)(1, 2, 3, 4), (int4)(5, 6, 7, 8), (uint8)(7, 0, 4, 9, 1, 1, 2, 6)).s0 << 32;
	*R++ = select((int4)(1, 2, 3, 4), (int4)(5, 6, 7, 8), (int4)(-1, 0, INT_MIN, 1)).z |
	       (ulong)select(10, 20, 0) << 32;
	*R++ = as_uint(length(p)) | (ulong)as_uint(dot(p, q)) << 32;
	*R++ = as_uint(normalize(p).z) | (ulong)as_uint(cross(p, q).y) << 32;
	*R++ = as_uint(distance(p, q)) | (ulong)as_uint(length((float2)(3e30f, 4e30f))) << 32;
	*R++ = as_uint(smoothstep(0.0f, 2.0f, 0.5f)) | (ulong)as_uint(mix(1.0f, 3.0f, 0.25f)) << 32;
	*R++ = as_uint(clamp(5.0f, 1.0f, 2.0f)) | (ulong)as_uint(sign(-0.0f)) << 32;
	*R++ = as_uint(bitselect(1.0f, -2.0f, as_float(0x80000000))) |
	       (ulong)as_uint(step(1.0f, 0.5f)) << 32;
	*R++ = as_ulong(normalize((double4)(INFINITY, 1, -INFINITY, 0)).z);
	*R++ = (ulong)(uint)upsample((short)-2, (ushort)3) | (ulong)popcount((uchar16)(0xff)).s7 << 32;
	*R++ = (add_sat((char4)(100, -100, 5, 0), (char4)(100, -100, 5, 0)).y & 0xff) |
	       (ulong)(mul_hi((ulong2)(~0UL, 3), (ulong2)(~0UL, 3)).x) << 8;
}

/*
 * async_work_group_copy of x[0..n) into local memory and back to r, by
 * every work-item of the group; strided: every 3rd int of x to r2.
 */
void nvgpu_kernel_async(__global const struct targs *a);
void nvgpu_kernel_async(__global const struct targs *a)
{
	__local int *l = (__local int *)0x5000000000000000UL;
	event_t e;

	e = async_work_group_copy(l, G(const int, a->x), a->n, 0);
	wait_group_events(1, &e);
	e = async_work_group_copy(G(int, a->r), (const __local int *)l, a->n, 0);
	wait_group_events(1, &e);
	e = async_work_group_strided_copy(l, G(const int, a->x), a->n / 3, 3, 0);
	wait_group_events(1, &e);
	e = async_work_group_strided_copy(G(int, a->r2), (const __local int *)l,
					  a->n / 3, 2, 0);
	wait_group_events(1, &e);
}

#if __OPENCL_C_VERSION__ >= 200
/* C11 atomics on global x (int, long, float) and local: r gets the results. */
void nvgpu_kernel_c11(__global const struct targs *a);
void nvgpu_kernel_c11(__global const struct targs *a)
{
	volatile __global atomic_int *i = G(atomic_int, a->x);
	volatile __global atomic_long *l = G(atomic_long, a->x + 8);
	volatile __global atomic_float *f = G(atomic_float, a->x + 16);
	volatile __local atomic_uint *u = (volatile __local atomic_uint *)0x5000000000000000UL;
	volatile __global atomic_flag *fl = G(atomic_flag, a->x + 20);
	__global long *R = G(long, a->r);
	int e = 5;
	long el = 0;
	float ef = 1.5f;

	atomic_init(i, 5);
	atomic_store(l, -7);
	atomic_store_explicit(f, 1.5f, memory_order_release);
	atomic_init(u, 100);
	*R++ = atomic_fetch_add(i, 10);
	*R++ = atomic_fetch_sub_explicit(i, 3, memory_order_acq_rel);
	*R++ = atomic_fetch_or(i, 0x100);
	*R++ = atomic_fetch_xor(i, 1);
	*R++ = atomic_fetch_and(i, 0x10f);
	*R++ = atomic_fetch_min(i, 3);
	*R++ = atomic_fetch_max_explicit(i, 50, memory_order_relaxed, memory_scope_device);
	*R++ = atomic_exchange(i, 77);
	*R++ = atomic_compare_exchange_strong(i, &e, 1);	/* fails: e = 77 */
	*R++ = e;
	*R++ = atomic_compare_exchange_weak(i, &e, 1) || atomic_compare_exchange_weak(i, &e, 1);
	*R++ = atomic_load(i);
	*R++ = atomic_fetch_add(l, 0x100000000L);
	*R++ = atomic_compare_exchange_strong(l, &el, 3);
	*R++ = el;
	*R++ = atomic_load_explicit(l, memory_order_acquire);
	*R++ = atomic_compare_exchange_strong(f, &ef, 4.0f);
	*R++ = (long)(atomic_exchange(f, 2.0f) * 4);
	*R++ = (long)(atomic_load(f) * 4);
	*R++ = atomic_fetch_sub(u, 101);
	*R++ = atomic_load(u);
	*R++ = atomic_flag_test_and_set(fl);
	*R++ = atomic_flag_test_and_set(fl);
	atomic_flag_clear(fl);
	*R++ = atomic_flag_test_and_set_explicit(fl, memory_order_seq_cst);
	atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
}
#endif
