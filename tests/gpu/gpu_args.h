/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The argument blocks of the programs of tests/gpu/, shared by the
 * device side (each program, through tools/gpu/nvgpu.h) and the host side
 * (tests/launch.c, tests/launch-fuzz.c): fixed-width fields, pointers as
 * u64, the same layout for both.
 */
#ifndef NVSVM_TESTS_GPU_ARGS_H
#define NVSVM_TESTS_GPU_ARGS_H

/* chase.c: work-item i follows list heads[i] to its end. */
struct gpu_node {
	__u64 next;	/* struct gpu_node *, 0 at the end */
	__u64 val;
};

struct chase_args {
	__u64 heads;	/* struct gpu_node *[n] */
	__u64 sums;	/* __u64[n]: sum of the list's vals */
	__u64 counts;	/* __u64[n]: its nodes */
};

/* histogram.c: bins[data[i] % nbins]++, atomically. */
struct histogram_args {
	__u64 data;	/* __u32[global size] */
	__u64 bins;	/* __u32[nbins] */
	__u32 nbins;
	__u32 pad;
};

/* touch.c: work-item i stores pattern ^ i at base + i * stride. */
struct touch_args {
	__u64 base;
	__u64 stride;
	__u64 pattern;
};

/* reduce.c: sums[g] = sum of in[] over work-group g; total += all. */
struct reduce_args {
	__u64 in;	/* __u64[global size] */
	__u64 sums;	/* __u64[groups] */
	__u64 total;	/* __u64 *, added to atomically */
};

/*
 * cancel.c: out[i] = pattern + i for every work-item; a barrier; then
 * work-item (local id) victim stores to bad.
 */
struct cancel_args {
	__u64 out;
	__u64 bad;
	__u64 pattern;
	__u32 victim;
	__u32 pad;
};

/* float.c: y[i] = a * x[i] + y[i]; dot[i] = sum over j of u[i*n+j]*v[j]. */
struct saxpy_args {
	__u64 x;	/* float[] */
	__u64 y;	/* float[] */
	float a;
	__u32 pad;
};

struct ddot_args {
	__u64 u;	/* double[global size * n] */
	__u64 v;	/* double[n] */
	__u64 dot;	/* double[global size] */
	__u64 n;
};

/* traps.c: each entry traps in its own way; buf a valid global buffer. */
struct trap_args {
	__u64 buf;
};

#endif /* NVSVM_TESTS_GPU_ARGS_H */
