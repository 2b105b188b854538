// SPDX-License-Identifier: GPL-2.0
/*
 * GPU atomics on system memory. Two modes (GET_INFO says which):
 *  - NVSVM_CAP_ATOMICS_EXCLUSIVE (kernels with make_device_exclusive_range,
 *    CONFIG_DEVICE_PRIVATE): mappings have atomics disabled; a GPU atomic
 *    takes the page for exclusive device access and maps it with atomics
 *    enabled; a CPU access revokes that.
 *  - otherwise (Debian's stock kernel): atomics follow write permission.
 * In both, atomic adds are exact while GPCs and CPU threads add at once,
 * and an atomic on read-only memory is cancelled.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ktap.h"
#include "common.h"

#define GPCS		4
#define ADDS		256
#define CPUS		2
#define CPU_ADDS	50000

static int exclusive(void)
{
	return !!(info.caps & NVSVM_CAP_ATOMICS_EXCLUSIVE);
}

#define NEED_EXCLUSIVE() do {						\
	if (!exclusive())						\
		SKIP("no NVSVM_CAP_ATOMICS_EXCLUSIVE: this kernel lacks make_device_exclusive_range (CONFIG_DEVICE_PRIVATE), atomics follow write permission"); \
} while (0)

static int query1(struct fx *f, const volatile void *p, uint32_t *e)
{
	EXPECT_OK(nvsvm_query(f->fd, nvsvm_ptr(p), 1, e));
	return KTAP_PASS;
}

static int stat_or_skip(const char *name, uint64_t *v)
{
	int ret = nvsvm_stat_read(0, name, v);

	if (ret)
		SKIP("debugfs %s: %s", name, strerror(-ret));
	return KTAP_PASS;
}

/* Which mode: a writable mapping has atomics exactly in the stock mode. */
static int mode_matches_mapping(void)
{
	volatile uint64_t *buf = anon(PAGE);
	uint64_t mapped;
	uint32_t e;
	struct fx f;

	ASSERT_MAP(buf);
	buf[0] = 1;
	FX_OPEN(&f);
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(buf), PAGE, 0, &mapped));
	CHECK(query1(&f, buf, &e));
	ktap_note("atomics mode: %s", exclusive() ? "exclusive access" :
		  "follow write permission");
	EXPECT_TRUE(e & NVSVM_QUERY_WRITE, "entry %#x", e);
	EXPECT_EQ(!!(e & NVSVM_QUERY_ATOMIC), !exclusive());
	return KTAP_PASS;
}

/*
 * An atomic makes the page exclusive and maps it with atomics; a CPU read
 * revokes it (the GPU mapping goes), the value is right, and the next GPU
 * atomic takes it again.
 */
static int atomic_takes_and_cpu_revokes(void)
{
	volatile uint64_t *buf = anon(PAGE);
	uint64_t x0, x1, old;
	uint32_t e;
	struct fx f;

	NEED_EXCLUSIVE();
	ASSERT_MAP(buf);
	ASSERT_SYS(madvise((void *)buf, PAGE, MADV_NOHUGEPAGE));
	buf[3] = 40;
	CHECK(stat_or_skip("atomic_exclusive", &x0));
	FX_OPEN(&f);
	CHECK(gpu_ok1(&f, nvsvm_op_atomic_add(nvsvm_ptr(&buf[3]), 2), &old));
	EXPECT_EQ(old, 40);
	CHECK(query1(&f, buf, &e));
	EXPECT_TRUE((e & NVSVM_QUERY_VALID) && (e & NVSVM_QUERY_ATOMIC) &&
		    NVSVM_QUERY_SHIFT(e) == 12, "entry %#x", e);
	EXPECT_OK(nvsvm_stat_read(0, "atomic_exclusive", &x1));
	EXPECT_EQ(x1 - x0, 1);

	EXPECT_EQ(buf[3], 42);		/* the CPU read revokes */
	CHECK(query1(&f, buf, &e));
	EXPECT_EQ(e & NVSVM_QUERY_ATOMIC, 0);

	buf[4] = 7;			/* and a CPU write works */
	CHECK(gpu_ok1(&f, nvsvm_op_atomic_add(nvsvm_ptr(&buf[4]), 1), &old));
	EXPECT_EQ(old, 7);
	CHECK(query1(&f, buf, &e));
	EXPECT_TRUE(e & NVSVM_QUERY_ATOMIC, "entry %#x", e);
	buf[5] = 9;			/* a CPU write revokes too */
	CHECK(query1(&f, buf, &e));
	EXPECT_EQ(e & NVSVM_QUERY_ATOMIC, 0);
	EXPECT_EQ(buf[4], 8);
	CHECK(gpu_read_eq(&f, &buf[5], 9));
	return KTAP_PASS;
}

/* Memory that cannot be made exclusive (shared) still gets exact atomics. */
static int atomic_on_shared_memory(void)
{
	volatile uint64_t *buf = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t old;
	uint32_t e;
	struct fx f;

	ASSERT_MAP(buf);
	buf[0] = 100;
	FX_OPEN(&f);
	CHECK(gpu_ok1(&f, nvsvm_op_atomic_add(nvsvm_ptr(buf), 5), &old));
	EXPECT_EQ(old, 100);
	EXPECT_EQ(buf[0], 105);
	CHECK(query1(&f, buf, &e));
	EXPECT_TRUE(!(e & NVSVM_QUERY_VALID) || (e & NVSVM_QUERY_ATOMIC),
		    "entry %#x", e);
	return KTAP_PASS;
}

/*
 * A GPU atomic on page @page of a PMD-mapped THP, the first access of the
 * GPU to it. A page of a large folio cannot be made exclusive, so in the
 * exclusive mode it is served shared (atomic_shared), as in the stock mode
 * by write permission: the GPU's 2 MiB PTE gets atomics, the CPU keeps its
 * PMD. Either way the access is served in the batch its fault came in:
 * one batch, one replay. (The take of the head page used to split the PMD,
 * then fault on the device-exclusive entry each try had left until HMM's
 * 1 s timeout; the access came back in a second batch.)
 */
static int thp_atomic_page(unsigned int page)
{
	static const char *const names[] = { "batches", "replays",
					     "atomic_exclusive",
					     "atomic_shared" };
	uint64_t *buf = thp_block(), before[4], after[4], old;
	const size_t w = page * WORDS + 5;
	struct timespec t0, t1;
	uint32_t e;
	struct fx f;
	size_t i;

	ASSERT_MAP(buf);
	for (i = 0; i < THP_SIZE / 8; i++)
		buf[i] = 1000 + i;
	if (is_thp(buf) != 1 || anon_huge_kb(buf) < 2048)
		SKIP("the kernel gave no THP for the block");
	FX_OPEN(&f);
	for (i = 0; i < 4; i++)
		CHECK(stat_or_skip(names[i], &before[i]));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(gpu_ok1(&f, nvsvm_op_atomic_add(nvsvm_ptr(&buf[w]), 7), &old));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < 4; i++)
		EXPECT_OK(nvsvm_stat_read(0, names[i], &after[i]));
	/* The time is for the record only: the counters are what is checked. */
	ktap_note("page %u: %ld ms; batches +%llu, replays +%llu, exclusive +%llu, shared +%llu",
		  page, (t1.tv_sec - t0.tv_sec) * 1000 +
		  (t1.tv_nsec - t0.tv_nsec) / 1000000,
		  (unsigned long long)(after[0] - before[0]),
		  (unsigned long long)(after[1] - before[1]),
		  (unsigned long long)(after[2] - before[2]),
		  (unsigned long long)(after[3] - before[3]));
	EXPECT_EQ(old, 1000 + w);
	EXPECT_EQ(buf[w], 1007 + w);
	EXPECT_EQ(buf[w - 1], 999 + w);
	EXPECT_EQ(after[0] - before[0], 1);
	EXPECT_EQ(after[1] - before[1], 1);
	EXPECT_EQ(after[2] - before[2], 0);
	EXPECT_EQ(after[3] - before[3], exclusive() ? 1 : 0);
	EXPECT_EQ(is_thp(&buf[w]), 1);
	EXPECT_EQ(anon_huge_kb(buf), 2048);
	CHECK(query1(&f, &buf[page * WORDS], &e));
	EXPECT_TRUE((e & NVSVM_QUERY_VALID) && (e & NVSVM_QUERY_ATOMIC) &&
		    NVSVM_QUERY_SHIFT(e) == 21, "entry %#x", e);
	return KTAP_PASS;
}

static int thp_atomic_head(void)
{
	return thp_atomic_page(0);
}

static int thp_atomic_tail(void)
{
	return thp_atomic_page(300);
}

static int atomic_readonly_cancelled(void)
{
	volatile uint64_t *buf = anon(PAGE);
	struct fx f;

	ASSERT_MAP(buf);
	buf[0] = 1;
	ASSERT_SYS(mprotect((void *)buf, PAGE, PROT_READ));
	FX_OPEN(&f);
	CHECK(gpu_fault(&f, nvsvm_op_atomic_add(nvsvm_ptr(buf), 1),
			nvsvm_ptr(buf), NVSVM_ACCESS_ATOMIC));
	EXPECT_EQ(buf[0], 1);
	return KTAP_PASS;
}

struct cpu_job {
	volatile uint64_t *p;
	pthread_barrier_t *bar;
};

static void *cpu_thread(void *arg)
{
	struct cpu_job *j = arg;
	int i;

	pthread_barrier_wait(j->bar);
	for (i = 0; i < CPU_ADDS; i++)
		__atomic_fetch_add(j->p, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Four GPCs and two CPU threads add 1 to the same word at once: the total
 * is exact and every GPU add saw a different old value. A neighbouring
 * word on the same page is written by the CPU meanwhile and stays right.
 */
static int exact_gpu_and_cpu(void)
{
	static struct gpu_job g[GPCS];
	static unsigned char seen[GPCS * ADDS + CPUS * CPU_ADDS];
	volatile uint64_t *buf = anon(PAGE);
	struct cpu_job c[CPUS];
	pthread_t tc[CPUS];
	pthread_barrier_t bar;
	uint64_t total = GPCS * ADDS + CPUS * CPU_ADDS;
	struct fx f;
	int i, k;

	ASSERT_MAP(buf);
	ASSERT_SYS(madvise((void *)buf, PAGE, MADV_NOHUGEPAGE));
	buf[0] = 0;
	FX_OPEN(&f);
	pthread_barrier_init(&bar, NULL, GPCS + CPUS);
	for (i = 0; i < GPCS; i++) {
		g[i].fd = f.fd;
		g[i].gpc = i % info.gpc_count;
		for (k = 0; k < ADDS; k++)
			g[i].ops[k] = nvsvm_op_atomic_add(nvsvm_ptr(buf), 1);
		g[i].nops = ADDS;
	}
	CHECK(gpu_jobs_chans(g, GPCS));
	for (i = 0; i < CPUS; i++) {
		c[i].p = buf;
		c[i].bar = &bar;
	}
	CHECK(gpu_jobs_start(g, GPCS, &bar));
	for (i = 0; i < CPUS; i++)
		EXPECT_EQ(pthread_create(&tc[i], NULL, cpu_thread, &c[i]), 0);
	for (i = 0; i < CPUS; i++)
		pthread_join(tc[i], NULL);
	CHECK(gpu_jobs_finish(g, GPCS));
	EXPECT_EQ(buf[0], total);
	return gpu_jobs_adds_once(g, GPCS, total, seen);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(mode_matches_mapping),
	KTAP_CASE(atomic_takes_and_cpu_revokes),
	KTAP_CASE(atomic_on_shared_memory),
	KTAP_CASE(atomic_readonly_cancelled),
	KTAP_CASE(thp_atomic_head),
	KTAP_CASE(thp_atomic_tail),
	KTAP_CASE_T(exact_gpu_and_cpu, 300),
};

int main(void)
{
	return test_main(cases, KTAP_ARRAY_SIZE(cases),
			 NVSVM_CAP_EXEC | NVSVM_CAP_ATOMICS);
}
