// SPDX-License-Identifier: GPL-2.0
/*
 * Every work-item writes its result; after a barrier (so that all were
 * written) one stores to an address with no VMA: the launch is cancelled
 * there. The store carries the symbol nvgpu_mark_cancel_store, exported
 * as GPU_CANCEL_MARK_CANCEL_STORE: the fault_pc the test expects.
 */
#include "nvgpu.h"
#include "gpu_args.h"

NVGPU_KERNEL(cancel, struct cancel_args)
{
	size_t i = get_global_id(0);

	((uint64_t *)args->out)[i] = args->pattern + i;
	barrier(CLK_GLOBAL_MEM_FENCE);
	if (get_local_id(0) == args->victim)
		__asm__ volatile(".globl nvgpu_mark_cancel_store\n"
				 "nvgpu_mark_cancel_store:\n\t"
				 "sd %1, 0(%0)"
				 : : "r"(args->bad), "r"(args->pattern)
				 : "memory");
}
