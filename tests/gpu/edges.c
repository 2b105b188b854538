// SPDX-License-Identifier: GPL-2.0
/*
 * Programs of tests/launch-edges.c: work-groups that must all run at once
 * (gather), and work-items that wait for the CPU (spin).
 */
#include "nvgpu.h"
#include "edges_args.h"

/*
 * Work-item 0 of each group records where its group runs and raises its
 * flag, then waits for every group's flag: the launch ends only if all
 * its groups are resident together.
 */
NVGPU_KERNEL(gather, struct gather_args)
{
	volatile uint64_t *flags = (volatile uint64_t *)args->flags;
	size_t g = get_group_id(0), i;

	if (get_local_id(0) == 0) {
		((uint32_t *)args->where)[g] =
			nvgpu_csrr(NVSVM_GPU_CSR_GPC_ID) << 16 |
			nvgpu_csrr(NVSVM_GPU_CSR_SM_ID);
		flags[g] = 1;
		for (i = 0; i < args->groups; i++)
			while (!flags[i])
				;
	}
	barrier(CLK_GLOBAL_MEM_FENCE);
	((uint64_t *)args->out)[get_global_id(0)] = g + 1;
}

/* Each work-item says it started, waits until the CPU releases it, ends. */
NVGPU_KERNEL(spin, struct spin_args)
{
	size_t i = get_global_id(0);

	((volatile uint64_t *)args->started)[i] = 1;
	while (!*(volatile uint64_t *)args->release)
		;
	((uint64_t *)args->out)[i] = *(volatile uint64_t *)args->release + i;
}

/* Each work-item adds 1 to *counter, count times, atomically. */
NVGPU_KERNEL(adds, struct adds_args)
{
	uint64_t i;

	for (i = 0; i < args->count; i++)
		__atomic_fetch_add((uint64_t *)args->counter, 1,
				   __ATOMIC_SEQ_CST);
}
