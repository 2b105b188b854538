// SPDX-License-Identifier: GPL-2.0
/* Pointer chase: work-item i walks the CPU-built list heads[i] (tests/launch.c). */
#include "nvgpu.h"
#include "gpu_args.h"

NVGPU_KERNEL(chase, struct chase_args)
{
	size_t i = get_global_id(0);
	const struct gpu_node *n = ((const struct gpu_node **)args->heads)[i];
	uint64_t sum = 0, count = 0;

	while (n) {
		sum += n->val;
		count++;
		n = (const struct gpu_node *)n->next;
	}
	((uint64_t *)args->sums)[i] = sum;
	((uint64_t *)args->counts)[i] = count;
}
