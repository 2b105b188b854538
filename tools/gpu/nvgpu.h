/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nvgpu.h: the device runtime of a C program for the virtual GP100's SMs
 * (RV64IMAFD, the device ABI of uapi/nvsvm_vgpu.h). Header only: a program
 * is one C file, compiled and linked by tools/gpu/build-kernel.sh, with no
 * libc. What OpenCL C's work-item functions, barrier() and local memory
 * give a kernel, in C:
 *
 *	struct args { unsigned long *out; };
 *
 *	NVGPU_KERNEL(fill, struct args)
 *	{
 *		args->out[get_global_id(0)] = 1;
 *	}
 *
 * - NVGPU_KERNEL(name, type) defines an entry point, the function
 *   nvgpu_kernel_<name>(const type *args): a0 holds NVSVM_GPU_PARAM_BASE,
 *   where the launch's argument block is. build-kernel.sh exports the
 *   entry offset of each as GPU_<FILE>_<NAME> (a file may have several).
 *   The work-item ends when the function returns (ra is 0) or calls
 *   nvgpu_exit().
 * - Work-item functions: csrr of enum nvsvm_gpu_csr (the CSR number is an
 *   immediate, so each reads one of three per dimension); a dimension at or
 *   above 3 reads as OpenCL says (ids and offsets 0, sizes 1).
 * - barrier(flags): ecall NVSVM_GPU_ECALL_BARRIER; every work-item of the
 *   group must reach it (or end), as in OpenCL.
 * - Atomics: the compiler's __atomic builtins (AMO and LR/SC).
 * - Local memory: nvgpu_local(), the work-group's local_mem bytes, zeroed
 *   at group start; private memory is the stack (priv_mem bytes).
 * - No writable data in the image: build-kernel.sh fails on .data/.bss.
 */
#ifndef _NVGPU_H
#define _NVGPU_H

#include "nvsvm_vgpu.h"	/* uapi/, with tools/gpu/include for its includes */

#if !defined(__riscv) || __riscv_xlen != 64
#error "nvgpu.h is for programs of the SMs: clang --target=riscv64-unknown-elf"
#endif

typedef unsigned long size_t;
typedef unsigned long uintptr_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;

#define NULL			((void *)0)
#define CLK_LOCAL_MEM_FENCE	NVSVM_GPU_FENCE_LOCAL
#define CLK_GLOBAL_MEM_FENCE	NVSVM_GPU_FENCE_GLOBAL

/* csrr of one work-item CSR; @csr a constant expression. */
#define nvgpu_csrr(csr) ({						\
	unsigned long __v;						\
	__asm__("csrr %0, %1" : "=r"(__v) : "i"(csr));			\
	__v;								\
})

/* One of three CSRs by dimension @d; @none for d >= 3. */
#define nvgpu_csr_dim(base, d, none) ({					\
	unsigned long __r;						\
	switch (d) {							\
	case 0:								\
		__r = nvgpu_csrr((base) + 0);				\
		break;							\
	case 1:								\
		__r = nvgpu_csrr((base) + 1);				\
		break;							\
	case 2:								\
		__r = nvgpu_csrr((base) + 2);				\
		break;							\
	default:							\
		__r = (none);						\
		break;							\
	}								\
	__r;								\
})

/* size_t name(unsigned int d): the CSR @base + d, @none for d >= 3. */
#define NVGPU_DIM_FN(name, base, none)					\
	static inline size_t name(unsigned int d)			\
	{								\
		return nvgpu_csr_dim(base, d, none);			\
	}

NVGPU_DIM_FN(get_global_id, NVSVM_GPU_CSR_GLOBAL_ID, 0)
NVGPU_DIM_FN(get_local_id, NVSVM_GPU_CSR_LOCAL_ID, 0)
NVGPU_DIM_FN(get_group_id, NVSVM_GPU_CSR_GROUP_ID, 0)
/* This work-group's size: smaller in the last group of a non-uniform NDRange. */
NVGPU_DIM_FN(get_local_size, NVSVM_GPU_CSR_LOCAL_SIZE, 1)
NVGPU_DIM_FN(get_enqueued_local_size, NVSVM_GPU_CSR_ENQUEUED_LOCAL_SIZE, 1)
NVGPU_DIM_FN(get_global_size, NVSVM_GPU_CSR_GLOBAL_SIZE, 1)
NVGPU_DIM_FN(get_num_groups, NVSVM_GPU_CSR_NUM_GROUPS, 1)
NVGPU_DIM_FN(get_global_offset, NVSVM_GPU_CSR_GLOBAL_OFFSET, 0)

static inline unsigned int get_work_dim(void)
{
	return nvgpu_csrr(NVSVM_GPU_CSR_WORK_DIM);
}

static inline size_t get_local_linear_id(void)
{
	return nvgpu_csrr(NVSVM_GPU_CSR_LOCAL_LINEAR_ID);
}

/* Wait for every work-item of the work-group (CLK_*_MEM_FENCE flags). */
static inline void barrier(unsigned int flags)
{
	register unsigned long a0 __asm__("a0") = flags;
	register unsigned long a7 __asm__("a7") = NVSVM_GPU_ECALL_BARRIER;

	__asm__ volatile("ecall" : "+r"(a0) : "r"(a7) : "memory");
}

/* End this work-item now. */
static inline __attribute__((noreturn)) void nvgpu_exit(void)
{
	register unsigned long a7 __asm__("a7") = NVSVM_GPU_ECALL_EXIT;

	__asm__ volatile("ecall" : : "r"(a7) : "memory");
	__builtin_unreachable();
}

/* The work-group's local memory (the launch's local_mem bytes). */
static inline void *nvgpu_local(void)
{
	return (void *)NVSVM_GPU_LOCAL_BASE;
}

/* OpenCL C's atomic_inc/atomic_add on global or local memory, relaxed. */
#define atomic_add(p, v)	__atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define atomic_inc(p)		atomic_add((p), 1)

/*
 * An entry point: nvgpu_kernel_<name>(const @type *args). Not inlined, and
 * kept, so that its symbol marks its offset in the image.
 */
#define NVGPU_KERNEL(name, type)					\
	__attribute__((used, noinline)) void				\
	nvgpu_kernel_##name(const type *args __attribute__((unused)));	\
	__attribute__((used, noinline)) void				\
	nvgpu_kernel_##name(const type *args __attribute__((unused)))

#endif /* _NVGPU_H */
