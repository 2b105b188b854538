// SPDX-License-Identifier: GPL-2.0
/*
 * Atomics: OpenCL 1.x atomic_* and the cl_khr_*_atomics atom_* (relaxed,
 * as the 1.x specification has them), and the C11 atomics of OpenCL C 2.0
 * and 3.0 (generic, __global and __local objects), all through clang's
 * builtins: the SMs have AMOs and LR/SC (RV64A), and the whole memory is
 * one address space, so every scope is the device.
 */
#include "clc.h"

#define RLX	__ATOMIC_RELAXED

/* OpenCL 1.x: f(volatile AS T *p, T v) for atomic_f and atom_f. */
#define OLD2(f, AS, T, op)						\
	OVL T atomic_##f(volatile AS T *p, T v) { return op(p, v, RLX); } \
	OVL T atom_##f(volatile AS T *p, T v) { return op(p, v, RLX); }
#define OLDT(AS, T)							\
	OLD2(add, AS, T, __atomic_fetch_add)				\
	OLD2(sub, AS, T, __atomic_fetch_sub)				\
	OLD2(xchg, AS, T, __atomic_exchange_n)				\
	OLD2(min, AS, T, __atomic_fetch_min)				\
	OLD2(max, AS, T, __atomic_fetch_max)				\
	OLD2(and, AS, T, __atomic_fetch_and)				\
	OLD2(or, AS, T, __atomic_fetch_or)				\
	OLD2(xor, AS, T, __atomic_fetch_xor)				\
	OVL T atomic_inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, RLX); } \
	OVL T atom_inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, RLX); } \
	OVL T atomic_dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, RLX); } \
	OVL T atom_dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, RLX); } \
	OVL T atomic_cmpxchg(volatile AS T *p, T cmp, T val)		\
	{								\
		__atomic_compare_exchange_n(p, &cmp, val, false, RLX, RLX); \
		return cmp;						\
	}								\
	OVL T atom_cmpxchg(volatile AS T *p, T cmp, T val)		\
	{ return atomic_cmpxchg(p, cmp, val); }
#define OLDAS(AS)							\
	OLDT(AS, int) OLDT(AS, uint) OLDT(AS, long) OLDT(AS, ulong)	\
	OVL float atomic_xchg(volatile AS float *p, float v)		\
	{ return as_float(atomic_xchg((volatile AS int *)p, as_int(v))); }
OLDAS(__global)
OLDAS(__local)

/*
 * C11 atomics on an object in AS: the _explicit version with order and
 * scope, and those without (seq_cst, device scope).
 */
#define SEQ	memory_order_seq_cst
#define DEV	memory_scope_device

#define C11_V(AS, A, T, f, body)					\
	OVL void f##_explicit(volatile AS A *o, T v, memory_order m,	\
			      memory_scope s)				\
	{ body; }							\
	OVL void f##_explicit(volatile AS A *o, T v, memory_order m)	\
	{ f##_explicit(o, v, m, DEV); }					\
	OVL void f(volatile AS A *o, T v) { f##_explicit(o, v, SEQ, DEV); }

#define C11_R(AS, A, T, R, f, op)					\
	OVL R f##_explicit(volatile AS A *o, T v, memory_order m,	\
			   memory_scope s)				\
	{ return op(o, v, m, s); }					\
	OVL R f##_explicit(volatile AS A *o, T v, memory_order m)	\
	{ return op(o, v, m, DEV); }					\
	OVL R f(volatile AS A *o, T v) { return op(o, v, SEQ, DEV); }

#define C11_CX1(AS, A, T, EAS, f, weak)					\
	OVL bool f##_explicit(volatile AS A *o, EAS T *e, T d,		\
			      memory_order ms, memory_order mf,		\
			      memory_scope s)				\
	{								\
		T x = *e;						\
		bool ok = weak ?					\
			__opencl_atomic_compare_exchange_weak(o, &x, d, ms, mf, s) : \
			__opencl_atomic_compare_exchange_strong(o, &x, d, ms, mf, s); \
		*e = x;							\
		return ok;						\
	}								\
	OVL bool f##_explicit(volatile AS A *o, EAS T *e, T d,		\
			      memory_order ms, memory_order mf)		\
	{ return f##_explicit(o, e, d, ms, mf, DEV); }			\
	OVL bool f(volatile AS A *o, EAS T *e, T d)			\
	{ return f##_explicit(o, e, d, SEQ, SEQ, DEV); }
#define C11_CX(AS, A, T, EAS)						\
	C11_CX1(AS, A, T, EAS, atomic_compare_exchange_strong, 0)	\
	C11_CX1(AS, A, T, EAS, atomic_compare_exchange_weak, 1)

/* load, store, exchange, init, compare-exchange: every atomic type. */
#define C11_ANY(AS, A, T, CXAS)						\
	OVL void atomic_init(volatile AS A *o, T v)			\
	{ __opencl_atomic_init(o, v); }					\
	C11_V(AS, A, T, atomic_store, __opencl_atomic_store(o, v, m, s)) \
	OVL T atomic_load_explicit(volatile AS A *o, memory_order m,	\
				   memory_scope s)			\
	{ return __opencl_atomic_load(o, m, s); }			\
	OVL T atomic_load_explicit(volatile AS A *o, memory_order m)	\
	{ return __opencl_atomic_load(o, m, DEV); }			\
	OVL T atomic_load(volatile AS A *o)				\
	{ return __opencl_atomic_load(o, SEQ, DEV); }			\
	C11_R(AS, A, T, T, atomic_exchange, __opencl_atomic_exchange)	\
	CXAS(C11_CX, AS, A, T)

/* The fetch-and-modify operations of the integer types. */
#define C11_INT(AS, A, T, CXAS)						\
	C11_ANY(AS, A, T, CXAS)						\
	C11_R(AS, A, T, T, atomic_fetch_add, __opencl_atomic_fetch_add)	\
	C11_R(AS, A, T, T, atomic_fetch_sub, __opencl_atomic_fetch_sub)	\
	C11_R(AS, A, T, T, atomic_fetch_or, __opencl_atomic_fetch_or)	\
	C11_R(AS, A, T, T, atomic_fetch_xor, __opencl_atomic_fetch_xor)	\
	C11_R(AS, A, T, T, atomic_fetch_and, __opencl_atomic_fetch_and)	\
	C11_R(AS, A, T, T, atomic_fetch_min, __opencl_atomic_fetch_min)	\
	C11_R(AS, A, T, T, atomic_fetch_max, __opencl_atomic_fetch_max)

/* Where compare-exchange's expected value may be. */
#define CX_GEN(M, AS, A, T)	M(AS, A, T, __generic)
#define CX_NAMED(M, AS, A, T)						\
	M(AS, A, T, __global) M(AS, A, T, __local) M(AS, A, T, __private)

/* opencl-c.h also declares these bitwise and min/max mixes of signedness. */
#define C11_MIX(AS, A, T, R)						\
	C11_R(AS, A, T, R, atomic_fetch_or, __opencl_atomic_fetch_or)	\
	C11_R(AS, A, T, R, atomic_fetch_xor, __opencl_atomic_fetch_xor)	\
	C11_R(AS, A, T, R, atomic_fetch_and, __opencl_atomic_fetch_and)	\
	C11_R(AS, A, T, R, atomic_fetch_min, __opencl_atomic_fetch_min)	\
	C11_R(AS, A, T, R, atomic_fetch_max, __opencl_atomic_fetch_max)

#define C11_AS(AS, CXAS)						\
	C11_INT(AS, atomic_int, int, CXAS)				\
	C11_INT(AS, atomic_uint, uint, CXAS)				\
	C11_INT(AS, atomic_long, long, CXAS)				\
	C11_INT(AS, atomic_ulong, ulong, CXAS)				\
	C11_ANY(AS, atomic_float, float, CXAS)				\
	C11_ANY(AS, atomic_double, double, CXAS)			\
	C11_R(AS, atomic_uintptr_t, ptrdiff_t, uintptr_t,		\
	      atomic_fetch_add, __opencl_atomic_fetch_add)		\
	C11_R(AS, atomic_uintptr_t, ptrdiff_t, uintptr_t,		\
	      atomic_fetch_sub, __opencl_atomic_fetch_sub)		\
	C11_MIX(AS, atomic_uintptr_t, intptr_t, uintptr_t)		\
	C11_MIX(AS, atomic_intptr_t, uintptr_t, intptr_t)		\
	OVL bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *o, \
						   memory_order m, memory_scope s) \
	{ return __opencl_atomic_exchange((volatile AS atomic_int *)o, 1, m, s); } \
	OVL bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *o, \
						   memory_order m)	\
	{ return atomic_flag_test_and_set_explicit(o, m, DEV); }	\
	OVL bool atomic_flag_test_and_set(volatile AS atomic_flag *o)	\
	{ return atomic_flag_test_and_set_explicit(o, SEQ, DEV); }	\
	OVL void atomic_flag_clear_explicit(volatile AS atomic_flag *o,	\
					    memory_order m, memory_scope s) \
	{ __opencl_atomic_store((volatile AS atomic_int *)o, 0, m, s); } \
	OVL void atomic_flag_clear_explicit(volatile AS atomic_flag *o,	\
					    memory_order m)		\
	{ atomic_flag_clear_explicit(o, m, DEV); }			\
	OVL void atomic_flag_clear(volatile AS atomic_flag *o)		\
	{ atomic_flag_clear_explicit(o, SEQ, DEV); }

C11_AS(__generic, CX_GEN)
C11_AS(__global, CX_NAMED)
C11_AS(__local, CX_NAMED)

OVL void atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order,
				memory_scope scope)
{
	(void)flags;
	(void)scope;
	if (order != memory_order_relaxed)
		__asm__ volatile("fence rw, rw" : : : "memory");
}
