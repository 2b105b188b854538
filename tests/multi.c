// SPDX-License-Identifier: GPL-2.0
/*
 * Two GPUs mirroring one process at once (nvsvm_vgpu count=2; tests/run.sh
 * loads the modules so for this program). Each GPU has its own page
 * tables; a munmap or an mprotect reaches both; both work in parallel on
 * the same memory, atomics included (in the exclusive-access mode each
 * GPU's take revokes the other's).
 *
 * Cases: TEST_F(gpus, ...), with both devices open (kselftest_harness.h).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
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
	CHK_OK(nvsvm_area_init(f->fd, WIN_ADDR, WIN_SIZE));
	CHK_OK(nvsvm_chan_create(f->fd, NVSVM_CHAN_JOIN_AREA, &f->chan));
	return KTAP_PASS;
}

/* Both GPUs, each with an area and a channel: self->g[0], self->g[1]. */
FIXTURE(gpus) {
	struct fx g[NGPU];
};

FIXTURE_SETUP(gpus)
{
	ASSERT_PASS(open_gpu(0, &self->g[0]));
	ASSERT_PASS(open_gpu(1, &self->g[1]));
}

FIXTURE_TEARDOWN(gpus)
{
	close(self->g[0].fd);
	close(self->g[1].fd);
}

/* Each GPU has its own tables: a MAP on one leaves the other empty. */
TEST_F(gpus, own_tables)
{
	uint64_t *buf = anon(8 * PAGE), mapped;
	struct fx *g = self->g;

	ASSERT_NE(NULL, buf);
	buf[0] = 1;
	ASSERT_EQ(0, nvsvm_map(g[0].fd, nvsvm_ptr(buf), 8 * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_PASS(query_expect(&g[0], buf, 8, NVSVM_QUERY_VALID,
			   NVSVM_QUERY_VALID));
	ASSERT_PASS(query_expect(&g[1], buf, 8, NVSVM_QUERY_VALID, 0));
	/* What GPU 0 writes, GPU 1 and the CPU read. */
	ASSERT_PASS(gpu_ok1(&g[0], nvsvm_op_write(nvsvm_ptr(&buf[3 * WORDS]), 0x33),
		      NULL));
	ASSERT_PASS(gpu_read_eq(&g[1], &buf[3 * WORDS], 0x33));
	ASSERT_EQ(0x33, buf[3 * WORDS]);
}

TEST_F(gpus, munmap_seen_by_both)
{
	uint64_t *buf = anon(16 * PAGE), mapped;
	struct fx *g = self->g;
	int i;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < NGPU; i++) {
		ASSERT_EQ(0, nvsvm_map(g[i].fd, nvsvm_ptr(buf), 16 * PAGE,
				    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
		ASSERT_PASS(query_expect(&g[i], buf, 16, NVSVM_QUERY_VALID,
				   NVSVM_QUERY_VALID));
	}
	ASSERT_EQ(0, munmap(buf + 4 * WORDS, 8 * PAGE));
	for (i = 0; i < NGPU; i++) {
		ASSERT_PASS(query_expect(&g[i], buf, 4, NVSVM_QUERY_VALID,
				   NVSVM_QUERY_VALID));
		ASSERT_PASS(query_expect(&g[i], buf + 4 * WORDS, 8,
				   NVSVM_QUERY_VALID, 0));
		ASSERT_PASS(query_expect(&g[i], buf + 12 * WORDS, 4,
				   NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
		ASSERT_PASS(gpu_fault(&g[i],
				nvsvm_op_read(nvsvm_ptr(&buf[6 * WORDS])),
				nvsvm_ptr(&buf[6 * WORDS]), NVSVM_ACCESS_READ));
	}
}

TEST_F(gpus, mprotect_seen_by_both)
{
	uint64_t *buf = anon(4 * PAGE), mapped;
	struct fx *g = self->g;
	int i;

	ASSERT_NE(NULL, buf);
	buf[WORDS] = 0x77;
	for (i = 0; i < NGPU; i++)
		ASSERT_EQ(0, nvsvm_map(g[i].fd, nvsvm_ptr(buf), 4 * PAGE,
				    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(0, mprotect(buf, 4 * PAGE, PROT_READ));
	for (i = 0; i < NGPU; i++) {
		ASSERT_PASS(query_expect(&g[i], buf, 4, NVSVM_QUERY_WRITE, 0));
		ASSERT_PASS(gpu_fault(&g[i],
				nvsvm_op_write(nvsvm_ptr(&buf[WORDS]), 1),
				nvsvm_ptr(&buf[WORDS]), NVSVM_ACCESS_WRITE));
		ASSERT_PASS(gpu_read_eq(&g[i], &buf[WORDS], 0x77));
	}
	ASSERT_EQ(0x77, buf[WORDS]);
}

/* Run every job at once, each on its own channel; all must complete. */
static int run_jobs(struct gpu_job *jobs, unsigned int n)
{
	CHECK(gpu_jobs_chans(jobs, n));
	return gpu_jobs_run(jobs, n);
}

/* Both GPUs fill their halves of 8 MiB at once, on fresh memory. */
TEST_F(gpus, parallel_fill)
{
	static struct gpu_job jobs[NGPU];
	uint64_t *buf = anon(8 * MiB);
	struct fx *g = self->g;
	int i;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < NGPU; i++) {
		jobs[i].fd = g[i].fd;
		jobs[i].gpc = NVSVM_GPC_ANY;
		jobs[i].ops[0] = nvsvm_op_fill(nvsvm_ptr(buf + i * MiB / 2),
					       4 * MiB, 0xa0 + i);
		jobs[i].nops = 1;
	}
	ASSERT_PASS(run_jobs(jobs, NGPU));
	ASSERT_PASS(cpu_check(buf, MiB / 2, 0xa0));
	ASSERT_PASS(cpu_check(buf + MiB / 2, MiB / 2, 0xa1));
}

/*
 * Two GPCs of each GPU add 1 to one word at once: the total is exact. Two
 * GPUs over PCIe are not atomic against each other on system memory: the
 * adds are served only where GET_INFO promises exact atomics there
 * (exclusive access: each GPU's take revokes the other's), and refused
 * (FAULT, access ATOMIC, nothing added) elsewhere.
 */
TEST_F_TIMEOUT(gpus, parallel_atomics, 300)
{
	static struct gpu_job jobs[NGPU * GPCS];
	static unsigned char seen[NGPU * GPCS * ADDS];
	volatile uint64_t *buf = anon(PAGE);
	struct fx *g = self->g;
	int i, k;

	if (!(info.caps & NVSVM_CAP_ATOMICS))
		SKIP(return, "no NVSVM_CAP_ATOMICS");
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise((void *)buf, PAGE, MADV_NOHUGEPAGE));
	buf[0] = 0;
	for (i = 0; i < NGPU * GPCS; i++) {
		jobs[i].fd = g[i / GPCS].fd;
		jobs[i].gpc = i % GPCS;
		for (k = 0; k < ADDS; k++)
			jobs[i].ops[k] = nvsvm_op_atomic_add(nvsvm_ptr(buf), 1);
		jobs[i].nops = ADDS;
	}
	if (!(info.caps & NVSVM_CAP_SYSMEM_ATOMICS)) {
		pthread_barrier_t bar;

		ASSERT_PASS(gpu_jobs_chans(jobs, NGPU * GPCS));
		pthread_barrier_init(&bar, NULL, NGPU * GPCS);
		ASSERT_PASS(gpu_jobs_start(jobs, NGPU * GPCS, &bar));
		for (i = 0; i < NGPU * GPCS; i++)
			pthread_join(jobs[i].th, NULL);
		pthread_barrier_destroy(&bar);
		for (i = 0; i < NGPU * GPCS; i++) {
			ASSERT_EQ(0, jobs[i].ret);
			ASSERT_EQ(NVSVM_EXEC_FAULT, jobs[i].e.status);
			ASSERT_EQ(NVSVM_ACCESS_ATOMIC, jobs[i].e.fault_access);
			ASSERT_EQ(0, jobs[i].e.done);
		}
		ASSERT_EQ(0, buf[0]);
		return;
	}
	ASSERT_PASS(run_jobs(jobs, NGPU * GPCS));
	ASSERT_EQ(NGPU * GPCS * ADDS, buf[0]);
	ASSERT_PASS(gpu_jobs_adds_once(jobs, NGPU * GPCS, NGPU * GPCS * ADDS,
				       seen));
}

int main(int argc, char **argv)
{
	int fd = nvsvm_open(1);

	if (fd < 0)
		ksft_exit_skip("/dev/nvsvm1: %s (load nvsvm_vgpu count=2)\n",
			       strerror(-fd));
	close(fd);
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
