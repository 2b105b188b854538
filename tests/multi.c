// SPDX-License-Identifier: GPL-2.0
/*
 * Two GPUs mirroring one process at once (nvsvm_vgpu count=2; tests/run.sh
 * loads the modules so for this program). Each GPU has its own page
 * tables; a munmap or an mprotect reaches both; both work in parallel on
 * the same memory, atomics included (in the exclusive-access mode each
 * GPU's take revokes the other's).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "common.h"

#define NGPU	2
#define GPCS	2
#define ADDS	256

/* Device @i with an area and a channel. */
static int open_gpu(unsigned int i, struct fx *f)
{
	f->fd = nvsvm_open(i);
	if (f->fd < 0)
		KTAP_FAIL_MSG("open /dev/nvsvm%u: %s", i, strerror(-f->fd));
	EXPECT_OK(nvsvm_area_init(f->fd, WIN_ADDR, WIN_SIZE));
	EXPECT_OK(nvsvm_chan_create(f->fd, NVSVM_CHAN_JOIN_AREA, &f->chan));
	return KTAP_PASS;
}

#define OPEN_BOTH(g) do {						\
	CHECK(open_gpu(0, &(g)[0]));					\
	CHECK(open_gpu(1, &(g)[1]));					\
} while (0)

/* Each GPU has its own tables: a MAP on one leaves the other empty. */
static int own_tables(void)
{
	uint64_t *buf = anon(8 * PAGE), mapped;
	struct fx g[NGPU];

	ASSERT_MAP(buf);
	buf[0] = 1;
	OPEN_BOTH(g);
	EXPECT_OK(nvsvm_map(g[0].fd, nvsvm_ptr(buf), 8 * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	CHECK(query_expect(&g[0], buf, 8, NVSVM_QUERY_VALID,
			   NVSVM_QUERY_VALID));
	CHECK(query_expect(&g[1], buf, 8, NVSVM_QUERY_VALID, 0));
	/* What GPU 0 writes, GPU 1 and the CPU read. */
	CHECK(gpu_ok1(&g[0], nvsvm_op_write(nvsvm_ptr(&buf[3 * WORDS]), 0x33),
		      NULL));
	CHECK(gpu_read_eq(&g[1], &buf[3 * WORDS], 0x33));
	EXPECT_EQ(buf[3 * WORDS], 0x33);
	return KTAP_PASS;
}

static int munmap_seen_by_both(void)
{
	uint64_t *buf = anon(16 * PAGE), mapped;
	struct fx g[NGPU];
	int i;

	ASSERT_MAP(buf);
	OPEN_BOTH(g);
	for (i = 0; i < NGPU; i++) {
		EXPECT_OK(nvsvm_map(g[i].fd, nvsvm_ptr(buf), 16 * PAGE,
				    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
		CHECK(query_expect(&g[i], buf, 16, NVSVM_QUERY_VALID,
				   NVSVM_QUERY_VALID));
	}
	ASSERT_SYS(munmap(buf + 4 * WORDS, 8 * PAGE));
	for (i = 0; i < NGPU; i++) {
		CHECK(query_expect(&g[i], buf, 4, NVSVM_QUERY_VALID,
				   NVSVM_QUERY_VALID));
		CHECK(query_expect(&g[i], buf + 4 * WORDS, 8,
				   NVSVM_QUERY_VALID, 0));
		CHECK(query_expect(&g[i], buf + 12 * WORDS, 4,
				   NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
		CHECK(gpu_fault(&g[i],
				nvsvm_op_read(nvsvm_ptr(&buf[6 * WORDS])),
				nvsvm_ptr(&buf[6 * WORDS]), NVSVM_ACCESS_READ));
	}
	return KTAP_PASS;
}

static int mprotect_seen_by_both(void)
{
	uint64_t *buf = anon(4 * PAGE), mapped;
	struct fx g[NGPU];
	int i;

	ASSERT_MAP(buf);
	buf[WORDS] = 0x77;
	OPEN_BOTH(g);
	for (i = 0; i < NGPU; i++)
		EXPECT_OK(nvsvm_map(g[i].fd, nvsvm_ptr(buf), 4 * PAGE,
				    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_SYS(mprotect(buf, 4 * PAGE, PROT_READ));
	for (i = 0; i < NGPU; i++) {
		CHECK(query_expect(&g[i], buf, 4, NVSVM_QUERY_WRITE, 0));
		CHECK(gpu_fault(&g[i],
				nvsvm_op_write(nvsvm_ptr(&buf[WORDS]), 1),
				nvsvm_ptr(&buf[WORDS]), NVSVM_ACCESS_WRITE));
		CHECK(gpu_read_eq(&g[i], &buf[WORDS], 0x77));
	}
	EXPECT_EQ(buf[WORDS], 0x77);
	return KTAP_PASS;
}

/* Run every job at once, each on its own channel; all must complete. */
static int run_jobs(struct gpu_job *jobs, unsigned int n)
{
	CHECK(gpu_jobs_chans(jobs, n));
	return gpu_jobs_run(jobs, n);
}

/* Both GPUs fill their halves of 8 MiB at once, on fresh memory. */
static int parallel_fill(void)
{
	static struct gpu_job jobs[NGPU];
	uint64_t *buf = anon(8 * MiB);
	struct fx g[NGPU];
	int i;

	ASSERT_MAP(buf);
	OPEN_BOTH(g);
	for (i = 0; i < NGPU; i++) {
		jobs[i].fd = g[i].fd;
		jobs[i].gpc = NVSVM_GPC_ANY;
		jobs[i].ops[0] = nvsvm_op_fill(nvsvm_ptr(buf + i * MiB / 2),
					       4 * MiB, 0xa0 + i);
		jobs[i].nops = 1;
	}
	CHECK(run_jobs(jobs, NGPU));
	CHECK(cpu_check(buf, MiB / 2, 0xa0));
	CHECK(cpu_check(buf + MiB / 2, MiB / 2, 0xa1));
	return KTAP_PASS;
}

/* Two GPCs of each GPU add 1 to one word at once: the total is exact. */
static int parallel_atomics(void)
{
	static struct gpu_job jobs[NGPU * GPCS];
	static unsigned char seen[NGPU * GPCS * ADDS];
	volatile uint64_t *buf = anon(PAGE);
	struct fx g[NGPU];
	int i, k;

	if (!(info.caps & NVSVM_CAP_ATOMICS))
		SKIP("no NVSVM_CAP_ATOMICS");
	ASSERT_MAP(buf);
	ASSERT_SYS(madvise((void *)buf, PAGE, MADV_NOHUGEPAGE));
	buf[0] = 0;
	OPEN_BOTH(g);
	for (i = 0; i < NGPU * GPCS; i++) {
		jobs[i].fd = g[i / GPCS].fd;
		jobs[i].gpc = i % GPCS;
		for (k = 0; k < ADDS; k++)
			jobs[i].ops[k] = nvsvm_op_atomic_add(nvsvm_ptr(buf), 1);
		jobs[i].nops = ADDS;
	}
	CHECK(run_jobs(jobs, NGPU * GPCS));
	EXPECT_EQ(buf[0], NGPU * GPCS * ADDS);
	return gpu_jobs_adds_once(jobs, NGPU * GPCS, NGPU * GPCS * ADDS, seen);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(own_tables),
	KTAP_CASE(munmap_seen_by_both),
	KTAP_CASE(mprotect_seen_by_both),
	KTAP_CASE(parallel_fill),
	KTAP_CASE_T(parallel_atomics, 300),
};

int main(void)
{
	int fd = nvsvm_open(1);

	if (fd < 0)
		ktap_skip_all("/dev/nvsvm1: %s (load nvsvm_vgpu count=2)",
			      strerror(-fd));
	close(fd);
	return test_main(cases, KTAP_ARRAY_SIZE(cases), NVSVM_CAP_EXEC);
}
