// SPDX-License-Identifier: GPL-2.0
/*
 * Work-item functions, barriers and fences: csrr of the work-item CSRs of
 * uapi/nvsvm_vgpu.h (enum nvsvm_gpu_csr; the CSR number is an immediate,
 * so each function switches over the three dimensions), ecall
 * NVSVM_GPU_ECALL_BARRIER, fence. A dimension at or above 3 reads as
 * OpenCL says: ids and offsets 0, sizes 1 (a dimension at or above
 * get_work_dim() but below 3 reads so from the CSRs themselves).
 */
#include "clc.h"
#include "nvsvm_vgpu.h"

#define CSRR(csr) ({							\
	ulong __v;							\
	__asm__("csrr %0, %1" : "=r"(__v) : "i"(csr));			\
	__v;								\
})

#define DIM_FN(name, base, none)					\
	CST size_t name(uint d)						\
	{								\
		switch (d) {						\
		case 0:							\
			return CSRR((base) + 0);			\
		case 1:							\
			return CSRR((base) + 1);			\
		case 2:							\
			return CSRR((base) + 2);			\
		default:						\
			return (none);					\
		}							\
	}

DIM_FN(get_global_id, NVSVM_GPU_CSR_GLOBAL_ID, 0)
DIM_FN(get_local_id, NVSVM_GPU_CSR_LOCAL_ID, 0)
DIM_FN(get_group_id, NVSVM_GPU_CSR_GROUP_ID, 0)
DIM_FN(get_local_size, NVSVM_GPU_CSR_LOCAL_SIZE, 1)
DIM_FN(get_enqueued_local_size, NVSVM_GPU_CSR_ENQUEUED_LOCAL_SIZE, 1)
DIM_FN(get_global_size, NVSVM_GPU_CSR_GLOBAL_SIZE, 1)
DIM_FN(get_num_groups, NVSVM_GPU_CSR_NUM_GROUPS, 1)
DIM_FN(get_global_offset, NVSVM_GPU_CSR_GLOBAL_OFFSET, 0)

CST uint get_work_dim(void)
{
	return CSRR(NVSVM_GPU_CSR_WORK_DIM);
}

CST size_t get_local_linear_id(void)
{
	return CSRR(NVSVM_GPU_CSR_LOCAL_LINEAR_ID);
}

/* OpenCL 2.0's definition; unused dimensions have id 0 and size 1. */
CST size_t get_global_linear_id(void)
{
	size_t i0 = get_global_id(0) - get_global_offset(0);
	size_t i1 = get_global_id(1) - get_global_offset(1);
	size_t i2 = get_global_id(2) - get_global_offset(2);

	return (i2 * get_global_size(1) + i1) * get_global_size(0) + i0;
}

/* Every work-item of the group waits here; it orders memory too. */
OVL void barrier(cl_mem_fence_flags flags)
{
	__asm__ volatile("mv a0, %0\n\tli a7, %1\n\tecall"
			 : : "r"((ulong)flags), "i"(NVSVM_GPU_ECALL_BARRIER)
			 : "a0", "a7", "memory");
}

OVL void work_group_barrier(cl_mem_fence_flags flags)
{
	barrier(flags);
}

OVL void work_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
{
	(void)scope;
	barrier(flags);
}

OVL void mem_fence(cl_mem_fence_flags flags)
{
	(void)flags;
	__asm__ volatile("fence rw, rw" : : : "memory");
}

OVL void read_mem_fence(cl_mem_fence_flags flags)
{
	(void)flags;
	__asm__ volatile("fence r, r" : : : "memory");
}

OVL void write_mem_fence(cl_mem_fence_flags flags)
{
	(void)flags;
	__asm__ volatile("fence w, w" : : : "memory");
}
