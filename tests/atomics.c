// SPDX-License-Identifier: GPL-2.0
/*
 * GPU atomics on system memory. A Pascal on PCIe (the virtual GP100's
 * default, sysmem_atomics=pcie) does them as a read and a write, so the
 * driver lets them run only where they are exact, and refuses (cancels)
 * them elsewhere. GET_INFO says where:
 *  - NVSVM_CAP_ATOMICS_EXCLUSIVE (kernels with CONFIG_DEVICE_PRIVATE:
 *    make_device_exclusive_range(), from 6.15 make_device_exclusive()):
 *    mappings have atomics disabled; a GPU atomic takes the page for
 *    exclusive device access and maps it with atomics enabled; a CPU
 *    access revokes that. A THP's page: PMD split (6.15+) or VRAM.
 *  - NVSVM_CAP_SYSMEM_ATOMICS: exact on private anonymous memory;
 *    NVSVM_CAP_SYSMEM_ATOMICS_ALL: on shared and file memory too (a link
 *    coherent for atomics, sysmem_atomics=coherent). Where neither holds
 *    (Debian's stock kernels on PCIe) every atomic on system memory is
 *    cancelled: FAULT, access ATOMIC.
 * Atomic adds are exact or refused while GPCs and CPU threads add at
 * once, and an atomic on read-only memory is cancelled.
 *
 * Cases: TEST_F(chan, ...), on a device with an area and a channel
 * (kselftest_harness.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

#define GPCS		4
#define ADDS		256
#define CPUS		2
#define CPU_ADDS	50000

static int exclusive(void)
{
	return !!(info.caps & NVSVM_CAP_ATOMICS_EXCLUSIVE);
}

/* Exact on private anonymous memory, on every writable mapping. */
static int sysmem_atomics(void)
{
	return !!(info.caps & NVSVM_CAP_SYSMEM_ATOMICS);
}

static int sysmem_atomics_all(void)
{
	return !!(info.caps & NVSVM_CAP_SYSMEM_ATOMICS_ALL);
}

#define NEED_EXCLUSIVE() do {						\
	if (!exclusive())						\
		SKIP(return, "no NVSVM_CAP_ATOMICS_EXCLUSIVE: the kernel has no CONFIG_DEVICE_PRIVATE (no exclusive device access to pages)"); \
} while (0)

static int query1(struct fx *f, const volatile void *p, uint32_t *e)
{
	CHK_OK(nvsvm_query(f->fd, nvsvm_ptr(p), 1, e));
	return KTAP_PASS;
}

/* The debugfs counter @name into *@v, or skip the case. */
#define STAT_OR_SKIP(name, v) do {					\
	int __r = nvsvm_stat_read(0, name, v);				\
									\
	if (__r)							\
		SKIP(return, "debugfs %s: %s", name, strerror(-__r));	\
} while (0)

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

/*
 * Which mode: a writable mapping has atomics exactly where they follow
 * write permission (no exclusive access, a link coherent for atomics).
 */
TEST_F(chan, mode_matches_mapping)
{
	volatile uint64_t *buf = anon(PAGE);
	uint64_t mapped;
	uint32_t e;

	ASSERT_NE(NULL, buf);
	buf[0] = 1;
	ASSERT_EQ(0, nvsvm_map(self->fx.fd, nvsvm_ptr(buf), PAGE, 0, &mapped));
	ASSERT_PASS(query1(&self->fx, buf, &e));
	TH_LOG("atomics mode: %s", exclusive() ? "exclusive access" :
		  sysmem_atomics_all() ? "follow write permission" :
		  "refused on system memory");
	ASSERT_TRUE(e & NVSVM_QUERY_WRITE) {
		TH_LOG("entry %#x", e);
	}
	ASSERT_EQ(!exclusive() && sysmem_atomics_all(),
		  !!(e & NVSVM_QUERY_ATOMIC));
}

/*
 * An atomic makes the page exclusive and maps it with atomics; a CPU read
 * revokes it (the GPU mapping goes), the value is right, and the next GPU
 * atomic takes it again.
 */
TEST_F(chan, atomic_takes_and_cpu_revokes)
{
	volatile uint64_t *buf = anon(PAGE);
	uint64_t x0, x1, old;
	uint32_t e;

	NEED_EXCLUSIVE();
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise((void *)buf, PAGE, MADV_NOHUGEPAGE));
	buf[3] = 40;
	STAT_OR_SKIP("atomic_exclusive", &x0);
	ASSERT_PASS(gpu_ok1(&self->fx,
			    nvsvm_op_atomic_add(nvsvm_ptr(&buf[3]), 2),
			    &old));
	ASSERT_EQ(40, old);
	ASSERT_PASS(query1(&self->fx, buf, &e));
	ASSERT_TRUE((e & NVSVM_QUERY_VALID) && (e & NVSVM_QUERY_ATOMIC) &&
		    NVSVM_QUERY_SHIFT(e) == 12) {
		TH_LOG("entry %#x", e);
	}
	ASSERT_EQ(0, nvsvm_stat_read(0, "atomic_exclusive", &x1));
	ASSERT_EQ(1, x1 - x0);

	ASSERT_EQ(42, buf[3]);		/* the CPU read revokes */
	ASSERT_PASS(query1(&self->fx, buf, &e));
	ASSERT_EQ(0, e & NVSVM_QUERY_ATOMIC);

	buf[4] = 7;			/* and a CPU write works */
	ASSERT_PASS(gpu_ok1(&self->fx,
			    nvsvm_op_atomic_add(nvsvm_ptr(&buf[4]), 1),
			    &old));
	ASSERT_EQ(7, old);
	ASSERT_PASS(query1(&self->fx, buf, &e));
	ASSERT_TRUE(e & NVSVM_QUERY_ATOMIC) {
		TH_LOG("entry %#x", e);
	}
	buf[5] = 9;			/* a CPU write revokes too */
	ASSERT_PASS(query1(&self->fx, buf, &e));
	ASSERT_EQ(0, e & NVSVM_QUERY_ATOMIC);
	ASSERT_EQ(8, buf[4]);
	ASSERT_PASS(gpu_read_eq(&self->fx, &buf[5], 9));
}

#define TIMESLICE_PARAM	"/sys/module/nvsvm/parameters/atomic_timeslice_us"
#define TIMESLICE_MAX_MS	100

/*
 * The GPU's timeslice on a page taken for its atomic: a CPU access within
 * atomic_timeslice_us of the take waits the rest of it (counted in
 * atomic_takeback_waits), and the value is right after. The take is after
 * the EXEC was issued, so the CPU's read ends no sooner than the timeslice
 * after that: with the largest timeslice (100 ms), that is a lower bound no
 * load can break. A value over the largest counts as the largest (the read
 * is back in seconds, not in the 4000 s asked). A munmap does not wait
 * (the memory goes: nothing to hand back), nor does a take-back with the
 * timeslice 0.
 */
TEST_F(chan, cpu_takeback_waits_timeslice)
{
	volatile uint64_t *buf = anon(3 * PAGE);
	uint64_t w0, w1, t0, t1, old;
	unsigned int slice = 0;
	int i;

	NEED_EXCLUSIVE();
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise((void *)buf, 3 * PAGE, MADV_NOHUGEPAGE));
	for (i = 0; i < 3; i++)
		buf[i * WORDS] = 10 * i;
	STAT_OR_SKIP("atomic_takeback_waits", &w0);
	ASSERT_EQ(0, set_param(TIMESLICE_PARAM, TIMESLICE_MAX_MS * 1000,
			       &slice));

	t0 = now_ms();
	ASSERT_PASS(gpu_ok1(&self->fx, nvsvm_op_atomic_add(nvsvm_ptr(buf), 5),
			    &old));
	ASSERT_EQ(0, old);
	ASSERT_EQ(5, buf[0]);		/* the take-back: waits */
	t1 = now_ms();
	ASSERT_EQ(0, nvsvm_stat_read(0, "atomic_takeback_waits", &w1));
	TH_LOG("timeslice %d ms: the CPU's read was back %llu ms after the EXEC",
	       TIMESLICE_MAX_MS, (unsigned long long)(t1 - t0));
	ASSERT_EQ(1, w1 - w0);
	ASSERT_LE(TIMESLICE_MAX_MS, t1 - t0);

	/* Over the largest: clamped to it. */
	ASSERT_EQ(0, set_param(TIMESLICE_PARAM, 4000000000u, NULL));
	t0 = now_ms();
	ASSERT_PASS(gpu_ok1(&self->fx,
			    nvsvm_op_atomic_add(nvsvm_ptr(&buf[WORDS]), 1),
			    &old));
	ASSERT_EQ(10, old);
	ASSERT_EQ(11, buf[WORDS]);
	t1 = now_ms();
	ASSERT_EQ(0, nvsvm_stat_read(0, "atomic_takeback_waits", &w0));
	ASSERT_EQ(1, w0 - w1);
	ASSERT_LE(TIMESLICE_MAX_MS, t1 - t0);
	ASSERT_GT(30000, t1 - t0);

	/* munmap does not wait. */
	ASSERT_PASS(gpu_ok1(&self->fx,
			    nvsvm_op_atomic_add(nvsvm_ptr(&buf[2 * WORDS]), 1),
			    &old));
	ASSERT_EQ(20, old);
	ASSERT_EQ(0, munmap((void *)&buf[2 * WORDS], PAGE));
	ASSERT_EQ(0, nvsvm_stat_read(0, "atomic_takeback_waits", &w1));
	ASSERT_EQ(w0, w1);

	/* Timeslice 0: the take-back does not wait. */
	ASSERT_EQ(0, set_param(TIMESLICE_PARAM, 0, NULL));
	ASSERT_PASS(gpu_ok1(&self->fx, nvsvm_op_atomic_add(nvsvm_ptr(buf), 1),
			    &old));
	ASSERT_EQ(5, old);
	ASSERT_EQ(6, buf[0]);
	ASSERT_EQ(0, nvsvm_stat_read(0, "atomic_takeback_waits", &w0));
	set_param(TIMESLICE_PARAM, slice, NULL);
	ASSERT_EQ(w1, w0);
}

/*
 * Memory that cannot be made exclusive (shared): exact atomics on a link
 * coherent for atomics, else refused, the word unchanged.
 */
TEST_F(chan, atomic_on_shared_memory)
{
	volatile uint64_t *buf = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t old, refused0, refused1;
	uint32_t e;

	ASSERT_NE(MAP_FAILED, buf);
	buf[0] = 100;
	if (!sysmem_atomics_all()) {
		STAT_OR_SKIP("atomic_refused", &refused0);
		ASSERT_PASS(gpu_fault(&self->fx,
				      nvsvm_op_atomic_add(nvsvm_ptr(buf), 5),
				      nvsvm_ptr(buf), NVSVM_ACCESS_ATOMIC));
		ASSERT_EQ(100, buf[0]);
		ASSERT_EQ(0, nvsvm_stat_read(0, "atomic_refused", &refused1));
		ASSERT_LE(1, refused1 - refused0);
		ASSERT_PASS(query1(&self->fx, buf, &e));
		ASSERT_EQ(0, e & NVSVM_QUERY_ATOMIC);
		return;
	}
	ASSERT_PASS(gpu_ok1(&self->fx, nvsvm_op_atomic_add(nvsvm_ptr(buf), 5), &old));
	ASSERT_EQ(100, old);
	ASSERT_EQ(105, buf[0]);
	ASSERT_PASS(query1(&self->fx, buf, &e));
	ASSERT_TRUE(!(e & NVSVM_QUERY_VALID) || (e & NVSVM_QUERY_ATOMIC)) {
		TH_LOG("entry %#x", e);
	}
}

/*
 * A GPU atomic on page @page of a PMD-mapped THP, the first access of the
 * GPU to it:
 *  - where atomics follow write permission (a coherent link, no exclusive
 *    access): the GPU's 2 MiB PTE gets atomics, the CPU keeps its PMD, in
 *    one batch and one replay;
 *  - in the exclusive mode the page is made the GPU's alone: from 6.15 the
 *    PMD is split (atomic_split) and the page taken (atomic_exclusive),
 *    before it the page is moved to VRAM (atomic_vram), which splits the
 *    THP; either way the CPU's PMD is gone and the GPU maps the page 4 KiB
 *    with atomics (on a coherent link too: exclusive access comes first);
 *  - elsewhere (stock kernels on PCIe) the atomic is refused: FAULT,
 *    access ATOMIC, the word, the THP and the CPU's PMD unchanged.
 * (The take of the head page used to split the PMD, then fault on the
 * device-exclusive entry each try had left until HMM's 1 s timeout.)
 */
static void thp_atomic_page(struct __test_metadata *_metadata, struct fx *f,
			    unsigned int page)
{
	static const char *const names[] = { "batches", "replays",
					     "atomic_exclusive",
					     "atomic_shared", "atomic_split",
					     "atomic_vram", "atomic_refused" };
	uint64_t *buf = thp_block(), before[7], after[7], old;
	const size_t w = page * WORDS + 5;
	struct timespec t0, t1;
	uint32_t e;
	size_t i;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < THP_SIZE / 8; i++)
		buf[i] = 1000 + i;
	if (is_thp(buf) != 1 || anon_huge_kb(buf) < 2048)
		SKIP(return, "the kernel gave no THP for the block");
	for (i = 0; i < 7; i++)
		STAT_OR_SKIP(names[i], &before[i]);
	if (!sysmem_atomics()) {
		ASSERT_PASS(gpu_fault(f, nvsvm_op_atomic_add(nvsvm_ptr(&buf[w]), 7),
				      nvsvm_ptr(&buf[page * WORDS]),
				      NVSVM_ACCESS_ATOMIC));
		for (i = 0; i < 7; i++)
			ASSERT_EQ(0, nvsvm_stat_read(0, names[i], &after[i]));
		ASSERT_EQ(1000 + w, buf[w]);
		ASSERT_LE(1, after[6] - before[6]);
		ASSERT_EQ(0, after[2] - before[2]);
		ASSERT_EQ(1, is_thp(&buf[w]));
		ASSERT_EQ(2048, anon_huge_kb(buf));
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_PASS(gpu_ok1(f, nvsvm_op_atomic_add(nvsvm_ptr(&buf[w]), 7), &old));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < 7; i++)
		ASSERT_EQ(0, nvsvm_stat_read(0, names[i], &after[i]));
	/* The time is for the record only: the counters are what is checked. */
	TH_LOG("page %u: %ld ms; batches +%llu, replays +%llu, exclusive +%llu, shared +%llu, split +%llu, vram +%llu",
	       page, (t1.tv_sec - t0.tv_sec) * 1000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000000,
	       (unsigned long long)(after[0] - before[0]),
	       (unsigned long long)(after[1] - before[1]),
	       (unsigned long long)(after[2] - before[2]),
	       (unsigned long long)(after[3] - before[3]),
	       (unsigned long long)(after[4] - before[4]),
	       (unsigned long long)(after[5] - before[5]));
	/* Before a CPU access takes the page back from the GPU. */
	ASSERT_PASS(query1(f, &buf[page * WORDS], &e));
	ASSERT_EQ(1000 + w, old);
	ASSERT_EQ(1007 + w, buf[w]);
	ASSERT_EQ(999 + w, buf[w - 1]);
	ASSERT_EQ(1001 + w, buf[w + 1]);
	ASSERT_EQ(0, after[6] - before[6]);
	if (!exclusive()) {
		ASSERT_EQ(1, after[0] - before[0]);
		ASSERT_EQ(1, after[1] - before[1]);
		ASSERT_EQ(0, after[2] - before[2]);
		ASSERT_EQ(0, after[3] - before[3]);
		ASSERT_EQ(1, is_thp(&buf[w]));
		ASSERT_EQ(2048, anon_huge_kb(buf));
		ASSERT_TRUE((e & NVSVM_QUERY_VALID) &&
			    (e & NVSVM_QUERY_ATOMIC) &&
			    NVSVM_QUERY_SHIFT(e) == 21) {
			TH_LOG("entry %#x", e);
		}
		return;
	}
	/* One way or the other, once: split and taken, or moved. */
	ASSERT_EQ(1, (after[4] - before[4]) + (after[5] - before[5]));
	ASSERT_EQ(after[4] - before[4], after[2] - before[2]);
	ASSERT_EQ(0, after[3] - before[3]);
	ASSERT_EQ(0, anon_huge_kb(buf));
	ASSERT_TRUE((e & NVSVM_QUERY_VALID) && (e & NVSVM_QUERY_ATOMIC) &&
		    NVSVM_QUERY_SHIFT(e) == 12) {
		TH_LOG("entry %#x", e);
	}
}

TEST_F(chan, thp_atomic_head)
{
	thp_atomic_page(_metadata, &self->fx, 0);
}

TEST_F(chan, thp_atomic_tail)
{
	thp_atomic_page(_metadata, &self->fx, 300);
}

TEST_F(chan, atomic_readonly_cancelled)
{
	volatile uint64_t *buf = anon(PAGE);

	ASSERT_NE(NULL, buf);
	buf[0] = 1;
	ASSERT_EQ(0, mprotect((void *)buf, PAGE, PROT_READ));
	ASSERT_PASS(gpu_fault(&self->fx, nvsvm_op_atomic_add(nvsvm_ptr(buf), 1),
			nvsvm_ptr(buf), NVSVM_ACCESS_ATOMIC));
	ASSERT_EQ(1, buf[0]);
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
 * is exact and every GPU add saw a different old value; or, where GET_INFO
 * promises no exact atomics on system memory, every GPU add is refused
 * and the total is the CPU's.
 */
TEST_F_TIMEOUT(chan, exact_gpu_and_cpu, 300)
{
	static struct gpu_job g[GPCS];
	static unsigned char seen[GPCS * ADDS + CPUS * CPU_ADDS];
	volatile uint64_t *buf = anon(PAGE);
	struct cpu_job c[CPUS];
	pthread_t tc[CPUS];
	pthread_barrier_t bar;
	uint64_t total = GPCS * ADDS + CPUS * CPU_ADDS;
	int i, k;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise((void *)buf, PAGE, MADV_NOHUGEPAGE));
	buf[0] = 0;
	pthread_barrier_init(&bar, NULL, GPCS + CPUS);
	for (i = 0; i < GPCS; i++) {
		g[i].fd = self->fx.fd;
		g[i].gpc = i % info.gpc_count;
		for (k = 0; k < ADDS; k++)
			g[i].ops[k] = nvsvm_op_atomic_add(nvsvm_ptr(buf), 1);
		g[i].nops = ADDS;
	}
	ASSERT_PASS(gpu_jobs_chans(g, GPCS));
	for (i = 0; i < CPUS; i++) {
		c[i].p = buf;
		c[i].bar = &bar;
	}
	ASSERT_PASS(gpu_jobs_start(g, GPCS, &bar));
	for (i = 0; i < CPUS; i++)
		ASSERT_EQ(0, pthread_create(&tc[i], NULL, cpu_thread, &c[i]));
	for (i = 0; i < CPUS; i++)
		pthread_join(tc[i], NULL);
	if (!sysmem_atomics()) {
		/* Refused: every program cancelled at its first add. */
		for (i = 0; i < GPCS; i++)
			pthread_join(g[i].th, NULL);
		for (i = 0; i < GPCS; i++) {
			ASSERT_EQ(0, g[i].ret);
			ASSERT_EQ(NVSVM_EXEC_FAULT, g[i].e.status);
			ASSERT_EQ(NVSVM_ACCESS_ATOMIC, g[i].e.fault_access);
			ASSERT_EQ(0, g[i].e.done);
		}
		ASSERT_EQ(CPUS * CPU_ADDS, buf[0]);
		return;
	}
	ASSERT_PASS(gpu_jobs_finish(g, GPCS));
	ASSERT_EQ(total, buf[0]);
	ASSERT_PASS(gpu_jobs_adds_once(g, GPCS, total, seen));
}

/*
 * CPU and GPU atomics on one counter, on each kind of page: GPCS_MIX GPCs
 * add 1 MIX_ADDS times each while a CPU thread adds 1 in a loop from
 * before the first GPU add to after the last (or MIX_CPU_MAX adds). What
 * the GPU does must be exact or refused, never a lost update (a Pascal on
 * PCIe does an atomic
 * on system memory as a read and a write: the virtual GP100's default,
 * sysmem_atomics=pcie, leaves a window between them):
 *  - every GPU add that was served is counted once and the total is
 *    exact (checked first, whatever GET_INFO says);
 *  - GET_INFO says which kinds are served: NVSVM_CAP_SYSMEM_ATOMICS the
 *    private anonymous ones (4 KiB and THP), NVSVM_CAP_SYSMEM_ATOMICS_ALL
 *    shared and file pages too; the others are refused: each program
 *    ends FAULT, access ATOMIC, on the counter, nothing added.
 */
#define GPCS_MIX	2
#define MIX_ADDS	128
/*
 * The CPU stops after this many adds if the GPU is not done by then: where
 * each CPU access revokes the GPU's exclusive access, a CPU adding without
 * end could keep the GPU's atomics from ever completing. (On the PCIe
 * model without the driver's refusal, the first ones lost millions.)
 */
#define MIX_CPU_MAX	10000000
/* The PCIe RMW's window while they run: 256 ms of windows in all. */
#define MIX_WINDOW_US	1000
#define WINDOW_PARAM	"/sys/module/nvsvm_vgpu/parameters/sysmem_atomic_window_us"

enum kind { KIND_ANON, KIND_THP, KIND_SHMEM, KIND_FILE };

static const char *const kind_names[] = {
	"anonymous 4 KiB", "THP", "shared anonymous", "shared file",
};

struct cpu_loop {
	volatile uint64_t *p;
	pthread_barrier_t *bar;
	int stop;
	int cpu;
	uint64_t adds;
};

static void *cpu_loop_thread(void *arg)
{
	struct cpu_loop *c = arg;

	pthread_barrier_wait(c->bar);
	if (c->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(c->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE) &&
	       c->adds < MIX_CPU_MAX) {
		__atomic_fetch_add(c->p, 1, __ATOMIC_SEQ_CST);
		c->adds++;
	}
	return NULL;
}

/*
 * Pin the threads of GPCs [0, n) of the device (nvsvm_vgpuD/G) to @cpu,
 * or let them run anywhere again (@cpu < 0). The CPU's adders run on the
 * other CPU: each GPU atomic then runs while the CPU adds, on every try.
 */
static void pin_gpcs(unsigned int n, int cpu)
{
	char want[32], comm[32], path[300];
	struct dirent *d;
	cpu_set_t set;
	unsigned int g;
	DIR *dir;
	FILE *fp;

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	else
		for (g = 0; g < CPU_SETSIZE; g++)
			CPU_SET(g, &set);
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		if (!fgets(comm, sizeof(comm), fp))
			comm[0] = 0;
		fclose(fp);
		comm[strcspn(comm, "\n")] = 0;
		for (g = 0; g < n; g++) {
			snprintf(want, sizeof(want), "nvsvm_vgpu%u/%u",
				 dev_index, g);
			if (!strcmp(comm, want))
				sched_setaffinity(atoi(d->d_name), sizeof(set),
						  &set);
		}
	}
	closedir(dir);
}

static int served(enum kind k)
{
	if (info.caps & NVSVM_CAP_SYSMEM_ATOMICS_ALL)
		return 1;
	return (info.caps & NVSVM_CAP_SYSMEM_ATOMICS) &&
	       (k == KIND_ANON || k == KIND_THP);
}

static int tmp_file(void)
{
	char name[] = "/tmp/nvsvm-atomics-XXXXXX";
	int fd = mkstemp(name);

	if (fd >= 0) {
		unlink(name);
		return fd;
	}
	return memfd_create("nvsvm-atomics", 0);
}

/* The memory of kind @k, its counter word at *@w; NULL on failure. */
static volatile uint64_t *kind_map(enum kind k, size_t *w, size_t *len)
{
	void *p = MAP_FAILED;
	uint64_t *t;
	int fd;

	*w = 5;
	*len = PAGE;
	switch (k) {
	case KIND_ANON:
		p = anon(PAGE);
		if (p && madvise(p, PAGE, MADV_NOHUGEPAGE))
			return NULL;
		return p;
	case KIND_THP:
		t = thp_block();
		if (!t)
			return NULL;
		memset(t, 0, THP_SIZE);
		*w = 300 * WORDS + 5;	/* a tail page */
		*len = THP_SIZE;
		return t;
	case KIND_SHMEM:
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		break;
	case KIND_FILE:
		fd = tmp_file();
		if (fd < 0)
			return NULL;
		if (!ftruncate(fd, PAGE))
			p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
		close(fd);
		break;
	}
	return p == MAP_FAILED ? NULL : p;
}

static void cpu_and_gpu_atomics(struct __test_metadata *_metadata,
				struct fx *f, enum kind k)
{
	static struct gpu_job g[GPCS_MIX];
	struct cpu_loop c = { 0 };
	unsigned char *seen;
	volatile uint64_t *buf, *word;
	pthread_barrier_t bar;
	uint64_t gpu_adds = 0, total, rmw0 = 0, rmw1 = 0;
	unsigned int window = 0;
	int set;
	size_t w, len;
	pthread_t tc;
	int i, j;

	buf = kind_map(k, &w, &len);
	ASSERT_NE(NULL, buf);
	word = &buf[w];
	*word = 0;
	if (k == KIND_THP && is_thp((const void *)buf) != 1)
		SKIP(return, "the kernel gave no THP for the block");
	pthread_barrier_init(&bar, NULL, GPCS_MIX + 2);
	for (i = 0; i < GPCS_MIX; i++) {
		g[i].fd = f->fd;
		g[i].gpc = i % info.gpc_count;
		for (j = 0; j < MIX_ADDS; j++)
			g[i].ops[j] = nvsvm_op_atomic_add(nvsvm_ptr(word), 1);
		g[i].nops = MIX_ADDS;
	}
	ASSERT_PASS(gpu_jobs_chans(g, GPCS_MIX));
	c.p = word;
	c.bar = &bar;
	c.cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : -1;
	if (c.cpu >= 0)
		pin_gpcs(GPCS_MIX, 0);
	/* Wide windows (the virtual GP100's PCIe mode), over many slices. */
	set = set_param(WINDOW_PARAM, MIX_WINDOW_US, &window);
	vgpu_stat_read("sysmem_rmws", &rmw0);
	ASSERT_EQ(0, pthread_create(&tc, NULL, cpu_loop_thread, &c));
	ASSERT_PASS(gpu_jobs_start(g, GPCS_MIX, &bar));
	/* The CPU adds from before the GPU's first add to after its last. */
	pthread_barrier_wait(&bar);
	for (i = 0; i < GPCS_MIX; i++)
		pthread_join(g[i].th, NULL);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tc, NULL);
	pthread_barrier_destroy(&bar);
	if (c.cpu >= 0)
		pin_gpcs(GPCS_MIX, -1);
	if (!set)
		set_param(WINDOW_PARAM, window, NULL);

	for (i = 0; i < GPCS_MIX; i++) {
		ASSERT_EQ(0, g[i].ret);
		if (g[i].e.status == NVSVM_EXEC_OK)
			gpu_adds += g[i].e.done;
	}
	total = gpu_adds + c.adds;
	vgpu_stat_read("sysmem_rmws", &rmw1);
	TH_LOG("%s: CPU %llu adds, GPU %llu served (%llu as PCIe RMWs); counter %llu, %lld lost",
	       kind_names[k], (unsigned long long)c.adds,
	       (unsigned long long)gpu_adds,
	       (unsigned long long)(rmw1 - rmw0), (unsigned long long)*word,
	       (long long)(total - *word));
	/* No lost update, whatever was served. */
	ASSERT_EQ(total, *word);
	if (served(k)) {
		ASSERT_PASS(gpu_jobs_finish(g, GPCS_MIX));
		seen = calloc(total, 1);
		ASSERT_NE(NULL, seen);
		ASSERT_PASS(gpu_jobs_adds_once(g, GPCS_MIX, total, seen));
		free(seen);
		return;
	}
	for (i = 0; i < GPCS_MIX; i++) {
		ASSERT_EQ(NVSVM_EXEC_FAULT, g[i].e.status) {
			TH_LOG("GPC %u: status %s, expected the atomic refused",
			       g[i].gpc, nvsvm_status_name(g[i].e.status));
		}
		ASSERT_EQ(NVSVM_ACCESS_ATOMIC, g[i].e.fault_access);
		ASSERT_EQ(nvsvm_ptr(word) & ~(PAGE - 1),
			  g[i].e.fault_addr & ~(PAGE - 1));
		ASSERT_EQ(0, g[i].e.done);
	}
}

TEST_F_TIMEOUT(chan, cpu_gpu_atomics_anon, 300)
{
	cpu_and_gpu_atomics(_metadata, &self->fx, KIND_ANON);
}

TEST_F_TIMEOUT(chan, cpu_gpu_atomics_thp, 300)
{
	cpu_and_gpu_atomics(_metadata, &self->fx, KIND_THP);
}

TEST_F_TIMEOUT(chan, cpu_gpu_atomics_shmem, 300)
{
	cpu_and_gpu_atomics(_metadata, &self->fx, KIND_SHMEM);
}

TEST_F_TIMEOUT(chan, cpu_gpu_atomics_file, 300)
{
	cpu_and_gpu_atomics(_metadata, &self->fx, KIND_FILE);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv,
				 NVSVM_CAP_EXEC | NVSVM_CAP_ATOMICS);
}
