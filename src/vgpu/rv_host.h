/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel definitions rv.c and rv_fp.c use, for building them in
 * user space (tests/host/): the host's test programs run the interpreter
 * and the soft float on the host, with the same source as the kernel.
 * Never included in the kernel (rv.h and rv_fp.h include it only without
 * __KERNEL__).
 */
#ifndef _NVSVM_VGPU_RV_HOST_H
#define _NVSVM_VGPU_RV_HOST_H

#ifdef __KERNEL__
#error "rv_host.h is for user-space builds only"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/cdefs.h>	/* __always_inline, as the kernel has it */

#include "../../uapi/nvsvm_vgpu.h"

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

/* A macro, not a typedef: no new type, the kernel's is a bitwise int. */
#define gfp_t unsigned int
#define GFP_KERNEL		0U
#define GFP_KERNEL_ACCOUNT	0U

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE(ptr);
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR_VALUE(ptr);
}

static inline void *kvzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size ? size : 1);
}

static inline void *kvmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kvmalloc_array(n, size, gfp);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

/* Each argument evaluated once, as in the kernel's. */
#define min(a, b) ({ __auto_type _a = (a); __auto_type _b = (b); \
		     _a < _b ? _a : _b; })
#define max(a, b) ({ __auto_type _a = (a); __auto_type _b = (b); \
		     _a > _b ? _a : _b; })
#define min_t(t, a, b) ({ t _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b) ({ t _a = (a), _b = (b); _a > _b ? _a : _b; })

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* A full barrier, as the kernel's: the host's seq_cst fence. */
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif /* _NVSVM_VGPU_RV_HOST_H */
