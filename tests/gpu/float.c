// SPDX-License-Identifier: GPL-2.0
/*
 * Floating point: single-precision saxpy and double-precision dot products,
 * compiled with -ffp-contract=off (tools/gpu/build-kernel.sh) as
 * tests/launch.c's reference is (tests/Makefile): no fused multiply-add on
 * either side, so the results must agree bit for bit.
 */
#include "nvgpu.h"
#include "gpu_args.h"

NVGPU_KERNEL(saxpy, struct saxpy_args)
{
	size_t i = get_global_id(0);
	const float *x = (const float *)args->x;
	float *y = (float *)args->y;

	y[i] = args->a * x[i] + y[i];
}

NVGPU_KERNEL(ddot, struct ddot_args)
{
	size_t i = get_global_id(0), j;
	const double *u = (const double *)args->u + i * args->n;
	const double *v = (const double *)args->v;
	double s = 0;

	for (j = 0; j < args->n; j++)
		s += u[j] * v[j];
	((double *)args->dot)[i] = s;
}
