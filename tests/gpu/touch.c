// SPDX-License-Identifier: GPL-2.0
/* One store per work-item, stride bytes apart: a page each for a fresh malloc. */
#include "nvgpu.h"
#include "gpu_args.h"

NVGPU_KERNEL(touch, struct touch_args)
{
	size_t i = get_global_id(0);

	*(volatile uint64_t *)(args->base + i * args->stride) = args->pattern ^ i;
}
