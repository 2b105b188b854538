// SPDX-License-Identifier: GPL-2.0
/*
 * rv-test: the interpreter's self-tests (src/vgpu/rv_selftest.c) on the
 * host, as KTAP, then its speed: instructions per second on a tight
 * hand-assembled loop of ld/add/sd/addi/bne on the private window.
 * Exit status: 0 when every group passed.
 */
#include <stdio.h>
#include <time.h>

#include "rv.h"

static int num;

static void result(void *ctx, bool ok, const char *name)
{
	(void)ctx;
	printf("%sok %d %s\n", ok ? "" : "not ", ++num, name);
}

/* The enclosing address of all four windows is never global here. */
static int no_global(void *env, struct rv_mem *m)
{
	(void)env;
	(void)m;
	return RV_MEM_STOP;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 2^22 iterations of five instructions: ld, add, sd, addi, bne. */
static const u32 bench_image[] = {
	0x004002b7,	/* lui  t0, 0x400       t0 = 2^22 */
	0xff010113,	/* addi sp, sp, -16 */
	0x00013303,	/* ld   t1, 0(sp)       loop: */
	0x00530333,	/* add  t1, t1, t0 */
	0x00613023,	/* sd   t1, 0(sp) */
	0xfff28293,	/* addi t0, t0, -1 */
	0xfe0298e3,	/* bne  t0, x0, loop */
	0x00000067,	/* jalr x0, 0(x0)       the end */
};

static int bench(void)
{
	static u8 priv[64];
	struct rv_group g = { .priv_size = sizeof(priv), .global = no_global };
	struct rv_hart h = { .priv = priv, .budget = 1ULL << 30 };
	struct rv_trap trap;
	u64 sum, n = 1ULL << 22;
	double t;
	int r;

	g.prog = rv_prog_load(bench_image, sizeof(bench_image), GFP_KERNEL);
	if (IS_ERR(g.prog))
		return 1;
	rv_hart_init(&h, &g, 0);
	t = now();
	do
		r = rv_run(&h, &g, 1U << 16, &trap);
	while (r == RV_STOP_QUANTUM);
	t = now() - t;
	memcpy(&sum, priv + sizeof(priv) - 16, 8);
	printf("# bench: %s, %llu instructions in %.3f s: %.1f M instructions/s\n",
	       r == RV_STOP_EXIT && sum == n * (n + 1) / 2 ? "right" : "WRONG",
	       (unsigned long long)h.insns, t, h.insns / t / 1e6);
	rv_prog_free((struct rv_prog *)g.prog);
	return r != RV_STOP_EXIT || sum != n * (n + 1) / 2;
}

int main(void)
{
	int failed = rv_selftest(result, NULL);

	printf("1..%d\n", num);
	printf("# %d/%d failed\n", failed, num);
	return bench() || failed;
}
