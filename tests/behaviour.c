// SPDX-License-Identifier: GPL-2.0
/*
 * Behaviours of TESTING.md that the other programs do not reach: the kernel
 * migrating a GPU-mapped page (move_pages(2) between the two NUMA nodes the
 * test VM emulates), KSM merging a GPU-mapped page, a process exiting with
 * GPU mappings, mixed read/write/atomic faults on one page from several
 * GPCs at once, and batches holding duplicate faults.
 *
 * Cases: TEST(exit_with_mappings) and TEST_F(chan, ...) on a device with an
 * area and a channel (kselftest_harness.h).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "common.h"

#define KSM_DIR		"/sys/kernel/mm/ksm/"
#define MPOL_MF_MOVE	(1 << 1)

static int read_stat(const char *name, uint64_t *v)
{
	return nvsvm_stat_read(0, name, v);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint32_t query1(struct fx *f, const volatile void *p)
{
	uint32_t e = 0xffffffff;

	if (nvsvm_query(f->fd, nvsvm_ptr(p), 1, &e))
		return 0xffffffff;
	return e;
}

/* ---- page migration ---------------------------------------------------- */

static long move_pages(int pid, unsigned long n, void **pages,
		       const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, pid, n, pages, nodes, status, flags);
}

static int node_of(void *p)
{
	int st = -1;

	if (move_pages(0, 1, &p, NULL, &st, 0))
		return -errno;
	return st;
}

#define MIG_PAGES	16

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

/*
 * The GPU has pages mapped; the kernel moves them to the other node. The
 * GPU mapping must go with the old page, and the GPU must then see (and
 * write) the page the CPU sees.
 */
TEST_F(chan, migrate_move_pages)
{
	volatile uint64_t *buf = anon(MIG_PAGES * PAGE);
	void *pages[MIG_PAGES];
	int nodes[MIG_PAGES], st[MIG_PAGES], from, to, i;
	uint64_t mapped = 0, sum = 0, want = 0;
	struct nvsvm_op op;
	struct fx *f = &self->fx;
	size_t w;

	if (access("/sys/devices/system/node/node1", F_OK))
		SKIP(return, "one NUMA node only: nothing to migrate to (boot with numa=fake=2)");
	ASSERT_NE(NULL, buf);
	for (w = 0; w < MIG_PAGES * WORDS; w++) {
		buf[w] = 0x6d6967000000ULL + w;
		want += buf[w];
	}
	from = node_of((void *)buf);
	if (from < 0)
		SKIP(return, "move_pages: %s", strerror(-from));
	to = !from;
	/*
	 * Each page where page 0 is: the thread that touched them first may
	 * have moved to a CPU of the other node meanwhile (a loaded host),
	 * and a page already on the target node would not move below.
	 */
	for (i = 0; i < MIG_PAGES; i++) {
		pages[i] = (void *)&buf[i * WORDS];
		nodes[i] = from;
		st[i] = -1;
	}
	ASSERT_EQ(0, move_pages(0, MIG_PAGES, pages, nodes, st, MPOL_MF_MOVE));
	for (i = 0; i < MIG_PAGES; i++) {
		ASSERT_EQ(from, st[i]);
		nodes[i] = to;
		st[i] = -1;
	}
	ASSERT_EQ(0, nvsvm_map(f->fd, nvsvm_ptr(buf), MIG_PAGES * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(MIG_PAGES, mapped);
	ASSERT_EQ(0, move_pages(0, MIG_PAGES, pages, nodes, st, MPOL_MF_MOVE)) {
		TH_LOG("move_pages: %s", strerror(errno));
	}
	for (i = 0; i < MIG_PAGES; i++) {
		ASSERT_EQ(to, st[i]) {
			TH_LOG("page %d: move_pages status %d, expected node %d",
			       i, st[i], to);
		}
		ASSERT_EQ(to, node_of(pages[i]));
		/* The PTE pointing at the old page is gone. */
		ASSERT_EQ(0, query1(f, pages[i]) & NVSVM_QUERY_VALID) {
			TH_LOG("page %d still valid on the GPU", i);
		}
	}
	op = nvsvm_op_sum(nvsvm_ptr(buf), MIG_PAGES * PAGE);
	ASSERT_PASS(gpu_ok(f, &op, 1));
	ASSERT_EQ(want, op.result);
	/* A GPU write lands in the new page: the CPU sees it. */
	op = nvsvm_op_fill(nvsvm_ptr(buf), MIG_PAGES * PAGE, 0x4e4f444531ULL);
	ASSERT_PASS(gpu_ok(f, &op, 1));
	ASSERT_PASS(cpu_check(buf, MIG_PAGES * WORDS, 0x4e4f444531ULL));
	/* And back: the CPU writes, the pages move again, the GPU sums. */
	for (w = 0; w < MIG_PAGES * WORDS; w++)
		buf[w] = w;
	for (i = 0; i < MIG_PAGES; i++)
		nodes[i] = from;
	ASSERT_EQ(0, move_pages(0, MIG_PAGES, pages, nodes, st, MPOL_MF_MOVE)) {
		TH_LOG("move_pages: %s", strerror(errno));
	}
	for (i = 0; i < MIG_PAGES; i++)
		ASSERT_EQ(from, st[i]);
	op = nvsvm_op_sum(nvsvm_ptr(buf), MIG_PAGES * PAGE);
	ASSERT_PASS(gpu_ok(f, &op, 1));
	for (w = 0; w < MIG_PAGES * WORDS; w++)
		sum += w;
	ASSERT_EQ(sum, op.result);
}

/* ---- KSM ----------------------------------------------------------------- */

static int ksm_write(const char *file, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), KSM_DIR "%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Physical frame of @p from /proc/self/pagemap (root only); 0 if unknown. */
static uint64_t pfn_of(const volatile void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, (nvsvm_ptr(p) / PAGE) * 8) != 8)
		e = 0;
	close(fd);
	if (!(e & (1ULL << 63)))
		return 0;
	return e & ((1ULL << 55) - 1);
}

/*
 * Two pages with the same contents, one of them GPU-mapped writable, are
 * merged by KSM into one write-protected page. The GPU must lose write
 * access; a GPU write afterwards breaks the merge like a CPU write would,
 * and the other copy keeps its contents.
 */
TEST_F_TIMEOUT(chan, ksm_merge, 90)
{
	volatile uint64_t *buf = anon(2 * PAGE), *a, *b;
	uint64_t pa = 0, pb = 0, mapped = 0, got;
	struct nvsvm_op op;
	struct fx *f = &self->fx;
	int ret, i;
	size_t w;

	if (access(KSM_DIR "run", W_OK))
		SKIP(return, "no KSM (" KSM_DIR "run: %s)", strerror(errno));
	ASSERT_NE(NULL, buf);
	a = buf;
	b = buf + WORDS;
	for (w = 0; w < WORDS; w++)
		a[w] = b[w] = 0x6b736d0000000000ULL ^ (w * 0x9e3779b97f4a7c15ULL);
	ASSERT_EQ(0, nvsvm_map(f->fd, nvsvm_ptr(a), PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(1, mapped);
	ASSERT_TRUE(query1(f, a) & NVSVM_QUERY_WRITE) {
		TH_LOG("entry %#x", query1(f, a));
	}
	if (!pfn_of(a))
		SKIP(return, "no physical frames in /proc/self/pagemap (needs root)");
	ASSERT_EQ(0, madvise((void *)buf, 2 * PAGE, MADV_MERGEABLE)) {
		TH_LOG("madvise: %s", strerror(errno));
	}
	ret = ksm_write("sleep_millisecs", "10");
	if (!ret)
		ret = ksm_write("pages_to_scan", "1000");
	if (!ret)
		ret = ksm_write("run", "1");
	if (ret)
		SKIP(return, "cannot start ksmd: %s", strerror(-ret));
	/* Wait (bounded) until ksmd has merged the two pages. */
	for (i = 0; i < 3000; i++) {
		pa = pfn_of(a);
		pb = pfn_of(b);
		if (pa && pa == pb)
			break;
		sleep_ms(10);
	}
	ksm_write("run", "0");
	ASSERT_TRUE(pa && pa == pb) {
		TH_LOG("ksmd did not merge the pages in 30 s (pfn %#llx, %#llx)",
		       (unsigned long long)pa, (unsigned long long)pb);
	}
	/* The merged page is read-only: no writable GPU PTE may remain. */
	ASSERT_EQ(0, query1(f, a) & NVSVM_QUERY_WRITE);
	ASSERT_PASS(gpu_read_eq(f, &a[5], b[5]));
	op = nvsvm_op_write(nvsvm_ptr(&a[5]), 0x475055ULL);
	ASSERT_PASS(gpu_ok(f, &op, 1));
	ASSERT_EQ(0x475055ULL, a[5]);
	ASSERT_EQ(0x6b736d0000000000ULL ^ (5 * 0x9e3779b97f4a7c15ULL), b[5]);
	ASSERT_NE(pfn_of(b), pfn_of(a));
	/* The other copy, read by the GPU, is unchanged too. */
	ASSERT_PASS(gpu_ok1(f, nvsvm_op_read(nvsvm_ptr(&b[5])), &got));
	ASSERT_EQ(b[5], got);
	for (w = 0; w < WORDS; w++)
		if (w != 5)
			ASSERT_EQ(b[w], a[w]);
}

/* ---- process exit --------------------------------------------------------- */

/*
 * A child opens the GPU, maps memory through MAP and through faults, and
 * exits without closing anything: every table and mapping comes back.
 */
TEST(exit_with_mappings)
{
	uint64_t *res = ktap_shared(4 * sizeof(uint64_t));
	uint64_t pt0, pm0;
	pid_t pid;

	ASSERT_NE(NULL, res);
	ASSERT_PASS(areas_settled(dev_index));
	if (read_stat("pt_bytes", &pt0) || read_stat("pages_mapped", &pm0))
		SKIP(return, "no debugfs counters");
	pid = fork();
	ASSERT_LE(0, pid) {
		TH_LOG("fork: %s", strerror(errno));
	}
	if (!pid) {
		uint64_t *big = anon(8 * MiB), *far;
		struct nvsvm_op op;
		struct fx f;

		if (!big)
			_exit(10);
		far = mmap((void *)0x7d0000000000ULL, 4 * PAGE,
			   PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (far == MAP_FAILED)
			_exit(11);
		f.fd = nvsvm_open(0);
		if (f.fd < 0 || nvsvm_area_init(f.fd, WIN_ADDR, WIN_SIZE) ||
		    nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan))
			_exit(12);
		op = nvsvm_op_fill(nvsvm_ptr(big), 8 * MiB, 7);
		if (gpu_ok(&f, &op, 1) != KTAP_PASS || big[12345] != 7)
			_exit(13);
		if (nvsvm_map(f.fd, nvsvm_ptr(far), 4 * PAGE,
			      NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL))
			_exit(14);
		read_stat("pt_bytes", &res[0]);
		read_stat("pages_mapped", &res[1]);
		_exit(0);	/* fd, area and channel still open */
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_TRUE(res[0] > pt0) {
		TH_LOG("pt_bytes %llu in the child, %llu before",
		       (unsigned long long)res[0], (unsigned long long)pt0);
	}
	ASSERT_TRUE(res[1] >= pm0 + 8 * MiB / PAGE + 4) {
		TH_LOG("pages_mapped %llu in the child", (unsigned long long)res[1]);
	}
	/* The last fput may run just after the exit is reported. */
	ASSERT_PASS(stats_become(0, "pt_bytes", pt0, "pages_mapped", pm0));
}

/* ---- several GPCs on one page ------------------------------------------- */

#define MAX_GPCS	8
#define ROUNDS		8
#define CHAIN		16

/* One GPC per job; all on the fixture's channel (the driver dedups per channel). */
static void setup_jobs(struct fx *f, struct gpu_job *jobs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		jobs[i].fd = f->fd;
		jobs[i].gpc = i;
		jobs[i].chan = f->chan;
	}
}

static unsigned int gpcs(void)
{
	return info.gpc_count < MAX_GPCS ? info.gpc_count : MAX_GPCS;
}

/*
 * Every GPC runs the same walk over CHAIN fresh pages, all on one channel
 * (so that faults on one page are of one instance block and can be
 * merged by access priority: atomic over write over read). The first fault
 * stalls all of them; the one REPLAY_GLOBAL of a batch releases them
 * together, so that they reach the next page at about the same time and
 * their faults on it meet in one batch.
 */
TEST_F(chan, mixed_rwa_one_page)
{
	unsigned int n = gpcs(), i, r, k;
	volatile uint64_t *buf = anon(ROUNDS * CHAIN * PAGE);
	static struct gpu_job jobs[MAX_GPCS];
	uint64_t c0 = 0, c1 = 0, d0 = 0, d1 = 0;
	struct fx *f = &self->fx;

	if (!(info.caps & NVSVM_CAP_ATOMICS))
		SKIP(return, "no NVSVM_CAP_ATOMICS");
	if (n < 2)
		SKIP(return, "one GPC only");
	ASSERT_NE(NULL, buf);
	setup_jobs(f, jobs, n);
	ASSERT_EQ(0, read_stat("cancels", &c0));
	ASSERT_EQ(0, read_stat("fault_dups", &d0));
	for (r = 0; r < ROUNDS; r++) {
		volatile uint64_t *pg = buf + r * CHAIN * WORDS;

		/* GPC i on page k: read, write or atomic by (i + k) % 3. */
		for (i = 0; i < n; i++) {
			for (k = 0; k < CHAIN; k++) {
				uint64_t p = nvsvm_ptr(pg + k * WORDS);

				switch ((i + k) % 3) {
				case 0:
					jobs[i].ops[k] = nvsvm_op_read(p + 8 * (64 + i));
					break;
				case 1:
					jobs[i].ops[k] = nvsvm_op_write(p + 8 * (8 + i),
									1000 * k + i);
					break;
				default:
					jobs[i].ops[k] = nvsvm_op_atomic_add(p, 1);
				}
			}
			jobs[i].nops = CHAIN;
		}
		ASSERT_PASS(gpu_jobs_run(jobs, n));
		for (k = 0; k < CHAIN; k++) {
			volatile uint64_t *p = pg + k * WORDS;
			uint64_t adds = 0;

			for (i = 0; i < n; i++) {
				switch ((i + k) % 3) {
				case 0:
					ASSERT_EQ(0, jobs[i].ops[k].result);
					ASSERT_EQ(0, p[8 + i]);
					break;
				case 1:
					ASSERT_EQ(1000 * k + i, p[8 + i]);
					break;
				default:
					adds++;
					ASSERT_EQ(0, p[8 + i]);
				}
				ASSERT_EQ(0, p[64 + i]);
			}
			/* Each add was applied exactly once. */
			ASSERT_EQ(adds, p[0]);
		}
	}
	ASSERT_EQ(0, read_stat("cancels", &c1));
	ASSERT_EQ(c0, c1);
	ASSERT_EQ(0, read_stat("fault_dups", &d1));
	TH_LOG("%u walks of %u pages on %u GPCs: %llu duplicate faults",
	       ROUNDS, CHAIN, n, (unsigned long long)(d1 - d0));
}

/*
 * Every GPC reads the same words of the same fresh pages in the same
 * order (the lockstep walk above) on one shared channel: their faults are
 * duplicates (same instance block, page and access). Each must see the
 * CPU's values, no fault is cancelled, and each page is mapped once.
 * Whether duplicates met in one batch depends on timing: when none did,
 * the case says so as a skip.
 */
TEST_F(chan, batch_duplicates)
{
	unsigned int n = gpcs(), i, r, k;
	volatile uint64_t *buf = anon(ROUNDS * CHAIN * PAGE);
	static struct gpu_job jobs[MAX_GPCS];
	uint64_t c0 = 0, c1 = 0, d0 = 0, d1 = 0, pm0 = 0, pm1 = 0;
	struct fx *f = &self->fx;

	if (n < 2)
		SKIP(return, "one GPC only");
	ASSERT_NE(NULL, buf);
	for (r = 0; r < ROUNDS * CHAIN; r++)
		buf[r * WORDS + 3] = 0x64757000 + r;
	setup_jobs(f, jobs, n);
	ASSERT_EQ(0, read_stat("cancels", &c0));
	ASSERT_EQ(0, read_stat("fault_dups", &d0));
	ASSERT_PASS(areas_settled(dev_index));
	ASSERT_EQ(0, read_stat("pages_mapped", &pm0));
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < n; i++) {
			for (k = 0; k < CHAIN; k++)
				jobs[i].ops[k] = nvsvm_op_read(nvsvm_ptr(&buf[(r * CHAIN + k) * WORDS + 3]));
			jobs[i].nops = CHAIN;
		}
		ASSERT_PASS(gpu_jobs_run(jobs, n));
		for (i = 0; i < n; i++)
			for (k = 0; k < CHAIN; k++)
				ASSERT_EQ(0x64757000 + r * CHAIN + k, jobs[i].ops[k].result);
	}
	ASSERT_EQ(0, read_stat("cancels", &c1));
	ASSERT_EQ(0, read_stat("fault_dups", &d1));
	ASSERT_EQ(0, read_stat("pages_mapped", &pm1));
	ASSERT_EQ(c0, c1);
	ASSERT_EQ(ROUNDS * CHAIN, pm1 - pm0);
	for (r = 0; r < ROUNDS * CHAIN; r++)
		ASSERT_EQ(1, query1(f, &buf[r * WORDS]) & NVSVM_QUERY_VALID);
	TH_LOG("%u walks of %u pages on %u GPCs: %llu duplicate faults",
	       ROUNDS, CHAIN, n, (unsigned long long)(d1 - d0));
	if (d1 == d0)
		SKIP(return, "no duplicate faults met in one batch (timing)");
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
