// SPDX-License-Identifier: GPL-2.0
/*
 * A work-group's sum in local memory, a tree of barriers: the group's
 * items (get_local_size(0): fewer in the last group of a non-uniform
 * NDRange) padded with zeros to the enqueued size, a power of two.
 */
#include "nvgpu.h"
#include "gpu_args.h"

NVGPU_KERNEL(reduce, struct reduce_args)
{
	uint64_t *tmp = nvgpu_local();
	size_t lid = get_local_id(0);
	size_t step;

	tmp[lid] = ((const uint64_t *)args->in)[get_global_id(0)];
	/* The missing items of a short group are already zero (local memory). */
	barrier(CLK_LOCAL_MEM_FENCE);
	for (step = get_enqueued_local_size(0) / 2; step; step /= 2) {
		if (lid < step)
			tmp[lid] += tmp[lid + step];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid == 0) {
		((uint64_t *)args->sums)[get_group_id(0)] = tmp[0];
		__atomic_fetch_add((uint64_t *)args->total, tmp[0],
				   __ATOMIC_RELAXED);
	}
}
