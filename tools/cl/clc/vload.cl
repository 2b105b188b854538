// SPDX-License-Identifier: GPL-2.0
/*
 * Vector data loads and stores (vloadN, vstoreN, the half ones), shuffle,
 * shuffle2, the async copies, prefetch (OpenCL C 3.0 sections 6.15.11,
 * 6.15.12, 6.15.13). The pointers of vloadN/vstoreN are only element
 * aligned: the vectors go through types of the element's alignment, which
 * the compiler splits into element accesses where it must (the SMs trap on
 * a misaligned access). Half values are converted in software.
 */
#include "clc.h"

/* Vectors aligned as their element. */
#define UTYPE_(n, T)							\
	typedef T T##n##_u __attribute__((ext_vector_type(n), aligned(sizeof(T))));
#define UTYPES(T, ...)	UTYPE_(2, T) UTYPE_(4, T) UTYPE_(8, T) UTYPE_(16, T)
FOR_ALLT(UTYPES)

#define VLS_(n, T, AS)							\
	OVL T##n vload##n(size_t o, const AS T *p)			\
	{ return *(const AS T##n##_u *)(p + o * n); }
#define VSS_(n, T, AS)							\
	OVL void vstore##n(T##n v, size_t o, AS T *p)			\
	{ *(AS T##n##_u *)(p + o * n) = v; }
#define VL(AS, T)							\
	VLS_(2, T, AS) VLS_(4, T, AS) VLS_(8, T, AS) VLS_(16, T, AS)	\
	OVL T##3 vload3(size_t o, const AS T *p)			\
	{ p += o * 3; return (T##3)(p[0], p[1], p[2]); }
#define VS(AS, T)							\
	VSS_(2, T, AS) VSS_(4, T, AS) VSS_(8, T, AS) VSS_(16, T, AS)	\
	OVL void vstore3(T##3 v, size_t o, AS T *p)			\
	{ p += o * 3; p[0] = v.x; p[1] = v.y; p[2] = v.z; }
#define VLT(T, ...)	FOR_RAS(VL, T) VL(__private, T)
#define VST(T, ...)	FOR_WAS(VS, T) VS(__private, T)
FOR_ALLT(VLT)
FOR_ALLT(VST)

/* ---- half ---- */

/* A half's bits to float (exact). */
static float h2f(ushort h)
{
	uint s = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;

	if (e == 0)
		return as_float(s | as_uint((float)m * 0x1p-24f));
	if (e == 31)
		return as_float(s | 0x7f800000 | (m << 13));
	return as_float(s | ((e + 112) << 23) | (m << 13));
}

/*
 * A double to a half's bits, rounded per @mode (0 nearest even, 1 toward
 * zero, 2 up, 3 down): a = mi * q + rest, q the half's quantum at a's
 * exponent (2^-24 for the subnormals), and the bits are
 * ((E + 15) << 10) + mi - 1024, which also carries mi == 2048 into the
 * exponent and gives the subnormals' bits.
 */
static ushort f2h(double d, int mode)
{
	ushort s = signbit(d) ? 0x8000 : 0;
	double a = fabs(d), m, mi, fr;
	int e, bits;
	bool up;

	if (a != a)
		return s | 0x7e00 | (ushort)((as_ulong(d) >> 42) & 0x1ff);
	if (isinf(a))
		return s | 0x7c00;
	if (a >= 0x1p16) {
		bits = 0x7c00;	/* beyond the largest half, whatever the mode */
	} else {
		e = a < 0x1p-14 ? -14 : ilogb(a);
		m = ldexp(a, 10 - e);
		mi = trunc(m);
		fr = m - mi;
		if (mode == 0)
			up = fr > 0.5 || (fr == 0.5 && fmod(mi, 2.0) != 0);
		else if (mode == 1)
			up = false;
		else
			up = fr > 0 && ((mode == 2) != (s != 0));
		bits = ((e + 15) << 10) + (int)mi + up - 1024;
	}
	if (bits >= 0x7c00) {
		/* beyond the largest half: infinity, or 65504 toward zero */
		bool inf = mode == 0 || (mode == 2 && !s) || (mode == 3 && s);

		bits = inf ? 0x7c00 : 0x7bff;
	}
	return s | (ushort)bits;
}

#define HP(AS, p)	((AS ushort *)(p))

/* vload_half, vload_halfN, vloada_halfN from one address space. */
#define VLH_(n, AS, STRIDE)						\
	OVL float##n vload_half##n(size_t o, const AS half *p)		\
	{								\
		float##n r;						\
		for (int i = 0; i < n; i++)				\
			r[i] = h2f(HP(const AS, p)[o * n + i]);		\
		return r;						\
	}								\
	OVL float##n vloada_half##n(size_t o, const AS half *p)		\
	{								\
		float##n r;						\
		for (int i = 0; i < n; i++)				\
			r[i] = h2f(HP(const AS, p)[o * STRIDE + i]);	\
		return r;						\
	}
#define VLH(AS, ...)								\
	OVL float vload_half(size_t o, const AS half *p)		\
	{ return h2f(HP(const AS, p)[o]); }				\
	OVL float vloada_half(size_t o, const AS half *p)		\
	{ return h2f(HP(const AS, p)[o]); }				\
	VLH_(2, AS, 2) VLH_(3, AS, 4) VLH_(4, AS, 4) VLH_(8, AS, 8)	\
	VLH_(16, AS, 16)
FOR_RAS(VLH)
VLH(__private)

/* vstore_half[N][_mode], vstorea_half[N][_mode] of float and double. */
#define VSH_(n, AS, F, M, MODE, STRIDE)					\
	OVL void vstore_half##n##M(F##n v, size_t o, AS half *p)	\
	{								\
		for (int i = 0; i < n; i++)				\
			HP(AS, p)[o * n + i] = f2h(v[i], MODE);		\
	}								\
	OVL void vstorea_half##n##M(F##n v, size_t o, AS half *p)	\
	{								\
		for (int i = 0; i < n; i++)				\
			HP(AS, p)[o * STRIDE + i] = f2h(v[i], MODE);	\
	}
#define VSH1(AS, F, M, MODE)						\
	OVL void vstore_half##M(F v, size_t o, AS half *p)		\
	{ HP(AS, p)[o] = f2h(v, MODE); }				\
	OVL void vstorea_half##M(F v, size_t o, AS half *p)		\
	{ HP(AS, p)[o] = f2h(v, MODE); }				\
	VSH_(2, AS, F, M, MODE, 2) VSH_(3, AS, F, M, MODE, 4)		\
	VSH_(4, AS, F, M, MODE, 4) VSH_(8, AS, F, M, MODE, 8)		\
	VSH_(16, AS, F, M, MODE, 16)
#define VSHM(AS, F)							\
	VSH1(AS, F, , 0) VSH1(AS, F, _rte, 0) VSH1(AS, F, _rtz, 1)	\
	VSH1(AS, F, _rtp, 2) VSH1(AS, F, _rtn, 3)
#define VSH(AS, ...)	VSHM(AS, float) VSHM(AS, double)
FOR_WAS(VSH)
VSH(__private)

/* ---- shuffle, shuffle2 ---- */

#define SHUF_(m, n, T, U)						\
	CST T##m shuffle(T##n x, U##m k)				\
	{								\
		T##m r;							\
		for (int i = 0; i < m; i++)				\
			r[i] = x[k[i] & (n - 1)];			\
		return r;						\
	}								\
	CST T##m shuffle2(T##n x, T##n y, U##m k)			\
	{								\
		T##m r;							\
		for (int i = 0; i < m; i++) {				\
			uint j = k[i] & (2 * n - 1);			\
			r[i] = j < n ? x[j] : y[j - n];			\
		}							\
		return r;						\
	}
#define SHUFN(n, T, U)							\
	SHUF_(2, n, T, U) SHUF_(4, n, T, U) SHUF_(8, n, T, U) SHUF_(16, n, T, U)
#define SHUF(T, U)							\
	SHUFN(2, T, U) SHUFN(4, T, U) SHUFN(8, T, U) SHUFN(16, T, U)
SHUF(char, uchar)
SHUF(uchar, uchar)
SHUF(short, ushort)
SHUF(ushort, ushort)
SHUF(int, uint)
SHUF(uint, uint)
SHUF(long, ulong)
SHUF(ulong, ulong)
SHUF(float, uint)
SHUF(double, ulong)

/* ---- async copies: every work-item copies its share ---- */

#define ASYNC_(n, T, DAS, SAS)						\
	OVL event_t async_work_group_copy(DAS T##n *d, const SAS T##n *s, \
					  size_t num, event_t ev)	\
	{								\
		for (size_t i = get_local_linear_id(); i < num;		\
		     i += get_local_size(0) * get_local_size(1) * get_local_size(2)) \
			d[i] = s[i];					\
		return ev;						\
	}
#define ASYNC_ST(n, T)							\
	OVL event_t async_work_group_strided_copy(__local T##n *d,	\
		const __global T##n *s, size_t num, size_t stride, event_t ev) \
	{								\
		for (size_t i = get_local_linear_id(); i < num;		\
		     i += get_local_size(0) * get_local_size(1) * get_local_size(2)) \
			d[i] = s[i * stride];				\
		return ev;						\
	}								\
	OVL event_t async_work_group_strided_copy(__global T##n *d,	\
		const __local T##n *s, size_t num, size_t stride, event_t ev) \
	{								\
		for (size_t i = get_local_linear_id(); i < num;		\
		     i += get_local_size(0) * get_local_size(1) * get_local_size(2)) \
			d[i * stride] = s[i];				\
		return ev;						\
	}
#define PREFETCH(n, T)							\
	OVL void prefetch(const __global T##n *p, size_t num)		\
	{ (void)p; (void)num; }
#define ASYNC(n, T)							\
	ASYNC_(n, T, __local, __global) ASYNC_(n, T, __global, __local)	\
	ASYNC_ST(n, T) PREFETCH(n, T)
#define ASYNCT(T, ...)	VALL(ASYNC, T)
FOR_ALLT(ASYNCT)

/* The copies are done when every work-item has done its share. */
OVL void wait_group_events(int num, __private event_t *ev)
{
	(void)num;
	(void)ev;
	barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

OVL void wait_group_events(int num, __generic event_t *ev)
{
	(void)num;
	(void)ev;
	barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
