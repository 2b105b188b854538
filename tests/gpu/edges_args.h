/* SPDX-License-Identifier: GPL-2.0 */
/* Argument blocks of tests/gpu/edges.c, for it and tests/launch-edges.c. */
#ifndef NVSVM_TESTS_GPU_EDGES_ARGS_H
#define NVSVM_TESTS_GPU_EDGES_ARGS_H

struct gather_args {
	__u64 where;	/* __u32[groups]: GPC << 16 | SM of each group */
	__u64 flags;	/* __u64[groups], zero */
	__u64 out;	/* __u64[global size]: group id + 1 */
	__u64 groups;
};

struct spin_args {
	__u64 started;	/* __u64[global size]: set when the work-item runs */
	__u64 release;	/* __u64 *: the CPU sets it non-zero */
	__u64 out;	/* __u64[global size]: *release + global id */
};

struct adds_args {
	__u64 counter;	/* __u64 * */
	__u64 count;	/* adds per work-item */
};

#endif /* NVSVM_TESTS_GPU_EDGES_ARGS_H */
