// SPDX-License-Identifier: GPL-2.0
/*
 * Two GPUs mirroring one process at once (nvsvm_vgpu count=2; tests/run.sh
 * loads the modules so for this program). Each GPU has its own page
 * tables; a munmap or an mprotect reaches both; both work in parallel on
 * the same memory, atomics included (in the exclusive-access mode each
 * GPU's take revokes the other's); one GPU's density prefetch never takes
 * a page the other holds exclusively or in its VRAM (issue 32 d6), nor
 * does its refault after a sampling pass map the other's VRAM.
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

/* Density prefetch threshold (tests/prefetch.c) and the pages below. */
#define PARAM		"/sys/module/nvsvm/parameters/prefetch_threshold"
#define BLOCK		(2 * MiB)
#define BPAGES		(BLOCK / PAGE)
#define HELD		256	/* the page GPU 0 holds */
#define DENSE_AT	300	/* GPU 1 reads it, the block dense for it */

/*
 * A 2 MiB-aligned private anonymous block without THP, page i holding
 * @base + i; NULL on failure.
 */
static volatile uint64_t *held_block(uint64_t base)
{
	char *r = mmap(NULL, 2 * BLOCK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile uint64_t *p;
	unsigned int i;

	if (r == MAP_FAILED)
		return NULL;
	p = (volatile uint64_t *)(((uintptr_t)r + BLOCK - 1) &
				  ~(uintptr_t)(BLOCK - 1));
	if (madvise((void *)p, BLOCK, MADV_NOHUGEPAGE))
		return NULL;
	for (i = 0; i < BPAGES; i++)
		p[i * WORDS] = base + i;
	return p;
}

/*
 * GPU 1 maps pages [0, DENSE_AT) of @p as the CPU maps them but HELD
 * (which GPU 0 took meanwhile: the caller checks it is not valid on GPU
 * 1), then reads page DENSE_AT with the prefetch on: 299 of the 512 pages
 * mapped and one faulted, the range grows to the whole block, HELD
 * included.
 */
static int dense_read(struct fx *g1, volatile uint64_t *p, uint64_t base)
{
	unsigned int old;
	int ret;

	ret = set_param(PARAM, 51, &old);
	if (ret)
		HELPER_SKIP("%s: %s", PARAM, strerror(-ret));
	ret = gpu_read_eq(g1, &p[DENSE_AT * WORDS], base + DENSE_AT);
	set_param(PARAM, old, NULL);
	CHECK(ret);
	CHECK(query_expect(g1, (void *)p, HELD, NVSVM_QUERY_VALID,
			   NVSVM_QUERY_VALID));
	CHECK(query_expect(g1, (void *)&p[(HELD + 1) * WORDS],
			   DENSE_AT - HELD, NVSVM_QUERY_VALID,
			   NVSVM_QUERY_VALID));
	return KTAP_PASS;
}

/* GPU 1 maps pages [0, DENSE_AT) of @p, none faulted. */
static int map_below(struct fx *g1, volatile uint64_t *p)
{
	uint64_t mapped = 0;

	CHK_OK(nvsvm_map(g1->fd, nvsvm_ptr(p), DENSE_AT * PAGE, 0, &mapped));
	CHK_EQ(mapped, DENSE_AT);
	return KTAP_PASS;
}

/*
 * Issue 32 d6: GPU 0 takes page HELD of a block for an atomic (exclusive
 * device access: the CPU PTE is a device-exclusive entry, GPU 0's QUERY
 * shows it valid with atomics); GPU 1's density prefetch around its read
 * of page DENSE_AT must leave it: GPU 0's QUERY of it is unchanged, GPU 1
 * does not map it, and a CPU read afterwards still finds the exclusive
 * entry (the read revokes GPU 0's atomics then, and sees its result).
 */
TEST_F(gpus, prefetch_leaves_exclusive)
{
	volatile uint64_t *p = held_block(0x8000);
	struct fx *g = self->g;
	uint32_t q0, q1;
	uint64_t old;

	if (!(info.caps & NVSVM_CAP_ATOMICS_EXCLUSIVE))
		SKIP(return, "no NVSVM_CAP_ATOMICS_EXCLUSIVE: the kernel has no CONFIG_DEVICE_PRIVATE (no make_device_exclusive), atomics follow write permission");
	ASSERT_NE(NULL, p);
	ASSERT_PASS(map_below(&g[1], p));
	ASSERT_PASS(gpu_ok1(&g[0], nvsvm_op_atomic_add(
				nvsvm_ptr(&p[HELD * WORDS]), 0x10), &old));
	ASSERT_EQ(0x8000 + HELD, old);
	ASSERT_EQ(0, nvsvm_query(g[0].fd, nvsvm_ptr(&p[HELD * WORDS]), 1, &q0));
	ASSERT_TRUE((q0 & NVSVM_QUERY_VALID) && (q0 & NVSVM_QUERY_ATOMIC) &&
		    NVSVM_QUERY_SHIFT(q0) == 12) {
		TH_LOG("GPU 0's QUERY of page %u after its atomic: %#x", HELD,
		       q0);
	}
	/* The take revoked GPU 1's mapping of the page. */
	ASSERT_PASS(query_expect(&g[1], (void *)&p[HELD * WORDS], 1,
				 NVSVM_QUERY_VALID, 0));

	ASSERT_PASS_SKIP(dense_read(&g[1], p, 0x8000));
	ASSERT_EQ(0, nvsvm_query(g[0].fd, nvsvm_ptr(&p[HELD * WORDS]), 1, &q1));
	ASSERT_EQ(q0, q1) {
		TH_LOG("GPU 0's QUERY of page %u: %#x before GPU 1's prefetch, %#x after",
		       HELD, q0, q1);
	}
	ASSERT_PASS(query_expect(&g[1], (void *)&p[HELD * WORDS], 1,
				 NVSVM_QUERY_VALID, 0));
	/* The CPU read restores the entry: GPU 0's atomics go only now. */
	ASSERT_EQ(0x8000 + HELD + 0x10, p[HELD * WORDS]);
	ASSERT_PASS(query_expect(&g[0], (void *)&p[HELD * WORDS], 1,
				 NVSVM_QUERY_ATOMIC, 0));
}

/*
 * The same with page HELD in GPU 0's VRAM (MIGRATE): GPU 1's prefetch
 * must not move it back. GPU 0's QUERY (VRAM aperture) and its
 * vram_pages are unchanged; GPU 1 does not map it; the CPU reads GPU 0's
 * data afterwards (its own fault moves the page back).
 */
TEST_F(gpus, prefetch_leaves_vram)
{
	volatile uint64_t *p = held_block(0x9000);
	struct fx *g = self->g;
	uint64_t moved = 0, v0, v1;
	uint32_t q0, q1;

	if (!(info.caps & NVSVM_CAP_DEVICE_PRIVATE) || !info.vram_size)
		SKIP(return, "no NVSVM_CAP_DEVICE_PRIVATE or no VRAM: the kernel has no CONFIG_DEVICE_PRIVATE");
	ASSERT_NE(NULL, p);
	ASSERT_PASS(map_below(&g[1], p));
	ASSERT_EQ(0, nvsvm_migrate(g[0].fd, nvsvm_ptr(&p[HELD * WORDS]), PAGE,
				   NVSVM_MIGRATE_TO_VRAM, &moved));
	ASSERT_EQ(1, moved);
	ASSERT_EQ(0, nvsvm_query(g[0].fd, nvsvm_ptr(&p[HELD * WORDS]), 1, &q0));
	ASSERT_TRUE((q0 & NVSVM_QUERY_VALID) && (q0 & NVSVM_QUERY_VRAM)) {
		TH_LOG("GPU 0's QUERY of page %u after MIGRATE: %#x", HELD,
		       q0);
	}
	ASSERT_PASS(query_expect(&g[1], (void *)&p[HELD * WORDS], 1,
				 NVSVM_QUERY_VALID, 0));
	ASSERT_EQ(0, nvsvm_stat_read(0, "vram_pages", &v0));

	ASSERT_PASS_SKIP(dense_read(&g[1], p, 0x9000));
	ASSERT_EQ(0, nvsvm_query(g[0].fd, nvsvm_ptr(&p[HELD * WORDS]), 1, &q1));
	ASSERT_EQ(q0, q1) {
		TH_LOG("GPU 0's QUERY of page %u: %#x before GPU 1's prefetch, %#x after",
		       HELD, q0, q1);
	}
	ASSERT_EQ(0, nvsvm_stat_read(0, "vram_pages", &v1));
	ASSERT_EQ(v0, v1);
	ASSERT_PASS(query_expect(&g[1], (void *)&p[HELD * WORDS], 1,
				 NVSVM_QUERY_VALID, 0));
	ASSERT_EQ(0x9000 + HELD, p[HELD * WORDS]);
}

/*
 * The refault after a sampling pass maps the rest of its block's VRAM only
 * where the VRAM is this GPU's (src/service.c, nvsvm_fault_vram_block()).
 * In one block, pages [0, HALF) in GPU 0's VRAM, [HALF, BPAGES) in GPU
 * 1's, each GPU mapping its own half; a pass on GPU 0 drops GPU 0's PTEs.
 * A GPU 0 read in its half maps that whole half in VRAM and nothing of
 * GPU 1's (another owner's device-private pages); GPU 1 keeps its half,
 * mapped, and its VRAM. Then GPU 0 reads a page of GPU 1's half right,
 * and the CPU every page.
 */
#define HALF		(BPAGES / 2)
#define SAMPLE_DIR	"/sys/kernel/debug/nvsvm/nvsvm0"	/* "sample" */

TEST_F(gpus, sample_refault_leaves_other_vram)
{
	volatile uint64_t *p = held_block(0xa000);
	uint64_t moved = 0, m0, m1, v0, v1;
	struct fx *g = self->g;
	unsigned int i;

	if (!(info.caps & NVSVM_CAP_DEVICE_PRIVATE) || !info.vram_size)
		SKIP(return, "no NVSVM_CAP_DEVICE_PRIVATE or no VRAM: the kernel has no CONFIG_DEVICE_PRIVATE");
	if (access(SAMPLE_DIR "/sample", W_OK))
		SKIP(return, "no %s/sample: not a test build", SAMPLE_DIR);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, nvsvm_migrate(g[0].fd, nvsvm_ptr(p), HALF * PAGE,
				   NVSVM_MIGRATE_TO_VRAM, &moved));
	ASSERT_EQ(HALF, moved);
	ASSERT_EQ(0, nvsvm_migrate(g[1].fd, nvsvm_ptr(&p[HALF * WORDS]),
				   HALF * PAGE, NVSVM_MIGRATE_TO_VRAM, &moved));
	ASSERT_EQ(HALF, moved);
	ASSERT_PASS(query_expect(&g[0], (void *)p, HALF, IN_VRAM, IN_VRAM));
	ASSERT_PASS(query_expect(&g[1], (void *)&p[HALF * WORDS], HALF,
				 IN_VRAM, IN_VRAM));
	ASSERT_EQ(0, nvsvm_stat_read(1, "vram_pages", &v0));

	ASSERT_EQ(0, cg_write(SAMPLE_DIR, "sample", "16"));
	ASSERT_PASS(query_expect(&g[0], (void *)p, BPAGES, NVSVM_QUERY_VALID,
				 0));
	ASSERT_PASS(query_expect(&g[1], (void *)&p[HALF * WORDS], HALF,
				 IN_VRAM, IN_VRAM));

	ASSERT_EQ(0, nvsvm_stat_read(0, "vram_block_maps", &m0));
	ASSERT_PASS(gpu_read_eq(&g[0], &p[7 * WORDS], 0xa000 + 7));
	ASSERT_EQ(0, nvsvm_stat_read(0, "vram_block_maps", &m1));
	EXPECT_EQ(1, m1 - m0);
	ASSERT_PASS(query_expect(&g[0], (void *)p, HALF, IN_VRAM, IN_VRAM));
	ASSERT_PASS(query_expect(&g[0], (void *)&p[HALF * WORDS], HALF,
				 NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(query_expect(&g[1], (void *)&p[HALF * WORDS], HALF,
				 IN_VRAM, IN_VRAM));
	ASSERT_EQ(0, nvsvm_stat_read(1, "vram_pages", &v1));
	ASSERT_EQ(v0, v1);

	ASSERT_PASS(gpu_read_eq(&g[0], &p[(HALF + 9) * WORDS],
				0xa000 + HALF + 9));
	for (i = 0; i < BPAGES; i++)
		ASSERT_EQ(0xa000 + i, p[i * WORDS]);
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
