// SPDX-License-Identifier: GPL-2.0
/* Histogram: many work-items, few bins, one atomic increment each. */
#include "nvgpu.h"
#include "gpu_args.h"

NVGPU_KERNEL(histogram, struct histogram_args)
{
	const uint32_t *data = (const uint32_t *)args->data;
	uint32_t *bins = (uint32_t *)args->bins;

	atomic_inc(&bins[data[get_global_id(0)] % args->nbins]);
}
