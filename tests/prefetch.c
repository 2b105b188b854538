// SPDX-License-Identifier: GPL-2.0
/*
 * Density prefetch in the fault path (nvsvm.prefetch_threshold): with it, a
 * sequential GPU pass takes far fewer faults than pages where the CPU
 * already grants what the GPU asks (a read pass, a write pass over memory
 * the CPU wrote); without it (0), one fault per page. A prefetch that meets
 * a page that cannot be had (another VMA, a file's end) stops there and
 * cancels nothing; it never grows into the unmanaged window; the pages it
 * adds get the permission the CPU already grants, and only those the CPU
 * has no page for at all, in a private anonymous writable VMA, are faulted
 * for writing (a fresh zeroed page, as the CPU's first write would give):
 * copy-on-write kept, file pages, the zero page and read-only VMAs left
 * alone (pagemap shows it). Pages in swap are left too, around a write
 * and around a read (issue 32 d1: swap_cow_kept, swap_read_left, on a
 * zram swap device the fixture sets up and takes down; they skip where
 * the kernel has no zram or swap). Needs root (the module parameter,
 * debugfs counters, pagemap pfns, swapon).
 *
 * Cases: TEST(), each opening the device after its own set-up (memory, a
 * child, the threshold); the storm cases TEST_F_TIMEOUT() on an empty
 * fixture, for their 150 s; the swap cases TEST_F() on FIXTURE(swap).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>

#include "kselftest_harness.h"
#include "common.h"

#define PARAM	"/sys/module/nvsvm/parameters/prefetch_threshold"
#define STORM	(16 * MiB)
#define BLOCK	(2 * MiB)
#define BPAGES	(BLOCK / PAGE)
/* A 2 MiB block below NVSVM_UNMANAGED_LIMIT, for areas with their own window. */
#define LOW_BLOCK	0xe000000000ULL

/* /proc/self/pagemap bits */
#define PM_PFN		((1ULL << 55) - 1)
#define PM_SOFT_DIRTY	(1ULL << 55)
#define PM_EXCLUSIVE	(1ULL << 56)
#define PM_FILE		(1ULL << 61)
#define PM_SWAP		(1ULL << 62)
#define PM_PRESENT	(1ULL << 63)

/* Set the threshold; the old value in *@old. */
static int set_threshold(unsigned int v, unsigned int *old)
{
	return set_param(PARAM, v, old);
}

static const char *const names[] = { "faults", "batches", "prefetch_ranges",
				     "cancels" };
#define NSTATS	4

static int stats(uint64_t *v)
{
	int i, ret;

	for (i = 0; i < NSTATS; i++) {
		ret = nvsvm_stat_read(0, names[i], &v[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* What storm() runs over its buffer. */
enum storm_kind {
	STORM_FILL,		/* FILL never-touched memory */
	STORM_FILL_WRITTEN,	/* FILL memory the CPU wrote */
	STORM_SUM,		/* SUM never-touched memory */
};

static const char *const storm_names[] = { "FILL", "FILL of CPU-written",
					   "SUM" };

/*
 * A sequential pass over 16 MiB of 4 KiB pages; every word checked (the
 * CPU reads what FILL wrote, SUM finds 0); counter deltas in @d.
 */
static int storm(unsigned int threshold, enum storm_kind kind, uint64_t *d)
{
	uint64_t before[NSTATS], after[NSTATS];
	uint64_t *buf = anon(STORM);
	unsigned int old;
	struct nvsvm_op op;
	struct fx f;
	int i, ret;

	CHK_MAP(buf);
	CHK_SYS(madvise(buf, STORM, MADV_NOHUGEPAGE));
	if (kind == STORM_FILL_WRITTEN)
		memset(buf, 0x5a, STORM);
	ret = set_threshold(threshold, &old);
	if (ret)
		HELPER_SKIP("%s: %s", PARAM, strerror(-ret));
	ret = stats(before);
	if (ret) {
		set_threshold(old, NULL);
		HELPER_SKIP("debugfs: %s", strerror(-ret));
	}
	CHECK(fx_open(&f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	if (kind == STORM_SUM)
		op = nvsvm_op_sum(nvsvm_ptr(buf), STORM);
	else
		op = nvsvm_op_fill(nvsvm_ptr(buf), STORM, 0x9e7c);
	ret = gpu_ok(&f, &op, 1);
	set_threshold(old, NULL);
	CHECK(ret);
	CHK_OK(stats(after));
	if (kind == STORM_SUM)
		CHK_EQ(op.result, 0);
	else
		CHECK(cpu_check(buf, STORM / 8, 0x9e7c));
	for (i = 0; i < NSTATS; i++)
		d[i] = after[i] - before[i];
	ktap_note("threshold %u, %s: %llu pages, faults +%llu, batches +%llu, prefetch ranges +%llu",
		  threshold, storm_names[kind], STORM / PAGE,
		  (unsigned long long)d[0], (unsigned long long)d[1],
		  (unsigned long long)d[2]);
	CHK_EQ(d[3], 0);
	return KTAP_PASS;
}

/* The storm cases open the device themselves, after the threshold. */
FIXTURE_EMPTY(storm)

/* Density doubling per fault: about 10 faults per 2 MiB block. */
static int few_faults(const uint64_t *d)
{
	CHK_TRUE(d[2] > 0, "no range grew");
	CHK_TRUE(d[0] * 16 < STORM / PAGE, "%llu faults for %llu pages",
		 (unsigned long long)d[0], STORM / PAGE);
	return KTAP_PASS;
}

/*
 * Never-touched private anonymous memory: the prefetch around each write
 * fills the pages ahead with fresh pages, mapped writable, so the FILL
 * takes few faults too.
 */
TEST_F_TIMEOUT(storm, storm_prefetch_on, 150)
{
	uint64_t d[NSTATS];

	ASSERT_PASS(storm(51, STORM_FILL, d));
	ASSERT_PASS(few_faults(d));
}

/* Memory the CPU wrote: the neighbours come writable, few faults. */
TEST_F_TIMEOUT(storm, storm_prefetch_written, 150)
{
	uint64_t d[NSTATS];

	ASSERT_PASS(storm(51, STORM_FILL_WRITTEN, d));
	ASSERT_PASS(few_faults(d));
}

/* A read pass over never-touched memory: few faults. */
TEST_F_TIMEOUT(storm, storm_prefetch_read, 150)
{
	uint64_t d[NSTATS];

	ASSERT_PASS(storm(51, STORM_SUM, d));
	ASSERT_PASS(few_faults(d));
}

TEST_F_TIMEOUT(storm, storm_prefetch_off, 150)
{
	uint64_t d[NSTATS];

	ASSERT_PASS(storm(0, STORM_FILL, d));
	ASSERT_EQ(0, d[2]);
	ASSERT_TRUE(d[0] >= STORM / PAGE) {
		TH_LOG("%llu faults for %llu pages", (unsigned long long)d[0],
		       STORM / PAGE);
	}
}

/*
 * Touch pages 0..@n-1 of @buf one by one with the GPU (reads), then check
 * that pages @n..@n+@k-1 have no GPU mapping and nothing was cancelled.
 */
static int walk_then_hole(struct fx *f, uint64_t *buf, unsigned int n,
			  unsigned int k, uint64_t (*val)(unsigned int))
{
	uint64_t before[NSTATS], after[NSTATS];
	uint32_t e[64];
	unsigned int i;

	CHK_OK(stats(before));
	for (i = 0; i < n; i++)
		CHECK(gpu_read_eq(f, &buf[i * WORDS], val(i)));
	CHK_OK(stats(after));
	CHK_EQ(after[3] - before[3], 0);
	CHK_TRUE(after[2] > before[2], "no range grew");
	CHK_OK(nvsvm_query(f->fd, nvsvm_ptr(buf), n + k, e));
	for (i = 0; i < n + k; i++)
		if (!(e[i] & NVSVM_QUERY_VALID) != (i >= n))
			KTAP_FAIL_MSG("page %u: entry %#x", i, e[i]);
	return KTAP_PASS;
}

static uint64_t zero(unsigned int i)
{
	(void)i;
	return 0;
}

static uint64_t page_no(unsigned int i)
{
	return 0x1000 + i;
}

/* Pages 10..31 are PROT_NONE: another VMA, where the prefetch stops. */
TEST(stops_at_prot_none)
{
	uint64_t *buf = anon(32 * PAGE);
	unsigned int old;
	struct fx f;
	int ret;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_LE(0, (long)(mprotect((char *)buf + 10 * PAGE, 22 * PAGE, PROT_NONE))) {
		TH_LOG("%s", strerror(errno));
	}
	ret = set_threshold(51, &old);
	if (ret)
		SKIP(return, "%s: %s", PARAM, strerror(-ret));
	FX_OPEN(&f);
	ret = walk_then_hole(&f, buf, 10, 22, zero);
	set_threshold(old, NULL);
	ASSERT_PASS(ret);
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(&buf[10 * WORDS])),
			      nvsvm_ptr(&buf[10 * WORDS]), NVSVM_ACCESS_READ));
}

/*
 * An unlinked file in /tmp of @n pages, page i starting with @base + i;
 * its descriptor in *@fd.
 */
static int tmp_file(unsigned int n, uint64_t base, int *fd)
{
	char name[] = "/tmp/nvsvm-prefetch-XXXXXX";
	uint64_t page[WORDS] = { 0 };
	unsigned int i;

	*fd = mkstemp(name);
	if (*fd < 0)
		KTAP_FAIL_MSG("mkstemp: %s", strerror(errno));
	unlink(name);
	for (i = 0; i < n; i++) {
		page[0] = base + i;
		CHK_EQ(write(*fd, page, PAGE), (ssize_t)PAGE);
	}
	return KTAP_PASS;
}

/*
 * A shared file mapping of 32 pages over a 10-page file: pages 10..31 lie
 * past the end in the same VMA, hmm cannot fault them in: the prefetch
 * leaves them unmapped and cancels nothing.
 */
TEST(stops_at_file_end)
{
	unsigned int old;
	uint64_t *buf;
	struct fx f;
	int fd, ret;

	ASSERT_PASS(tmp_file(10, page_no(0), &fd));
	buf = mmap(NULL, 32 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ret = set_threshold(51, &old);
	if (ret)
		SKIP(return, "%s: %s", PARAM, strerror(-ret));
	FX_OPEN(&f);
	ret = walk_then_hole(&f, buf, 10, 22, page_no);
	set_threshold(old, NULL);
	ASSERT_PASS(ret);
}

/* The pagemap entries of the @n pages at @p. */
static int pagemap(const volatile void *p, unsigned int n, uint64_t *e)
{
	ssize_t want = n * sizeof(*e);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		KTAP_FAIL_MSG("/proc/self/pagemap: %s", strerror(errno));
	if (pread(fd, e, want, nvsvm_ptr(p) / PAGE * 8) != want) {
		close(fd);
		KTAP_FAIL_MSG("pagemap: %s", strerror(errno));
	}
	close(fd);
	return KTAP_PASS;
}

/* mmap() of @size bytes at a 2 MiB-aligned address; NULL on failure. */
static void *aligned_map(size_t size, int prot, int flags, int fd)
{
	char *r = mmap(NULL, size + BLOCK, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a, *p;

	if (r == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)r + BLOCK - 1) & ~(uintptr_t)(BLOCK - 1));
	p = mmap(a, size, prot, flags | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		munmap(r, size + BLOCK);
		return NULL;
	}
	if (a > r)
		munmap(r, a - r);
	munmap(a + size, r + BLOCK - a);
	return p;
}

/* The block @p (from mmap()): no THP, and page i holds @base + i. */
static int block_init(volatile uint64_t *p, uint64_t base)
{
	unsigned int i;

	CHK_MAP(p);
	CHK_SYS(madvise((void *)p, BLOCK, MADV_NOHUGEPAGE));
	for (i = 0; i < BPAGES; i++)
		p[i * WORDS] = base + i;
	return KTAP_PASS;
}

/*
 * The block LOW_BLOCK, every page written by the CPU (page i holds
 * 0x5000 + i), in an area whose unmanaged window is its pages
 * [@w, @w + @nw), at its end or its start. MAP maps the managed pages but
 * @fault, then a GPU read at @fault makes the whole block dense. The range
 * must not grow into the window: a GPU read there is cancelled, before
 * and (@freed) after the window's pages were unmapped and freed.
 */
static void window_case(struct __test_metadata *_metadata, unsigned int w,
			unsigned int nw, unsigned int fault, int freed)
{
	volatile uint64_t *p = mmap((void *)LOW_BLOCK, BLOCK,
				    PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS |
				    MAP_FIXED_NOREPLACE, -1, 0);
	unsigned int m0 = w ? 0 : nw, m1 = w ? w : BPAGES, old;
	uint64_t win = LOW_BLOCK + w * PAGE, last = win + (nw - 1) * PAGE;
	uint32_t e;
	struct fx f;
	int ret;

	ASSERT_PASS(block_init(p, 0x5000));
	OPEN_DEV(f.fd);
	ASSERT_EQ(0, nvsvm_area_init(f.fd, win, nw * PAGE));
	ASSERT_EQ(0, nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan));
	ret = set_threshold(51, &old);
	if (ret)
		SKIP(return, "%s: %s", PARAM, strerror(-ret));
	if (fault > m0)
		ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(&p[m0 * WORDS]),
				       (fault - m0) * PAGE, 0, NULL));
	if (fault + 1 < m1)
		ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(&p[(fault + 1) * WORDS]),
				       (m1 - fault - 1) * PAGE, 0, NULL));
	ret = gpu_read_eq(&f, &p[fault * WORDS], 0x5000 + fault);
	set_threshold(old, NULL);
	ASSERT_PASS(ret);
	ASSERT_PASS(query_expect(&f, (void *)&p[m0 * WORDS], m1 - m0,
				 NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
	ASSERT_EQ(-EINVAL, nvsvm_query(f.fd, win, 1, &e));
	if (freed) {
		ASSERT_EQ(0, munmap((void *)win, nw * PAGE)) {
			TH_LOG("%s", strerror(errno));
		}
	}
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(win), win, NVSVM_ACCESS_READ));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(last), last, NVSVM_ACCESS_READ));
	ASSERT_PASS(gpu_read_eq(&f, &p[m0 * WORDS], 0x5000 + m0));
}

/* The window is the last 512 KiB of the block; the fault just below it. */
TEST(window_end)
{
	window_case(_metadata, 384, 128, 383, 0);
}

TEST(window_end_freed)
{
	window_case(_metadata, 384, 128, 383, 1);
}

/* The window is the first 512 KiB; the fault just above it. */
TEST(window_start)
{
	window_case(_metadata, 0, 128, 128, 0);
}

TEST(window_start_freed)
{
	window_case(_metadata, 0, 128, 128, 1);
}

/* Pages MAP maps before the GPU write that makes the block dense. */
#define DENSE_AT	300

/*
 * With prefetch on, MAP the pages [0, DENSE_AT) of the block @p as the CPU
 * maps them, then the GPU writes @v to page DENSE_AT: the block is then
 * dense enough that the range grows to all of it.
 */
static int map_then_write(struct fx *f, volatile uint64_t *p, uint64_t v)
{
	uint64_t mapped = 0;
	unsigned int old;
	int ret;

	ret = set_threshold(51, &old);
	if (ret)
		HELPER_SKIP("%s: %s", PARAM, strerror(-ret));
	CHK_OK(nvsvm_map(f->fd, nvsvm_ptr(p), DENSE_AT * PAGE, 0, &mapped));
	CHK_EQ(mapped, DENSE_AT);
	ret = gpu_ok1(f, nvsvm_op_write(nvsvm_ptr(&p[DENSE_AT * WORDS]), v),
		      NULL);
	set_threshold(old, NULL);
	CHECK(ret);
	CHK_EQ(p[DENSE_AT * WORDS], v);
	return KTAP_PASS;
}

/*
 * Pages [@from, BPAGES) of the block, whose pagemap entries are @e[0...],
 * with @bit set (@bit 0: the pfn is @pfn) where they should not, or clear
 * where they should: page DENSE_AT alone should have it. Fails naming how
 * many and the first.
 */
static int only_dense_from(const uint64_t *e, unsigned int from,
			   uint64_t bit, uint64_t pfn)
{
	unsigned int i, bad = 0, first = 0;

	for (i = from; i < BPAGES; i++) {
		uint64_t v = e[i - from];
		int has = bit ? !!(v & bit) : (v & PM_PFN) != pfn;

		if (!(v & PM_PRESENT) || has != (i == DENSE_AT)) {
			if (!bad++)
				first = i;
		}
	}
	if (bad)
		KTAP_FAIL_MSG("%u pages wrong (first: page %u, pagemap %#llx); the GPU wrote page %u only",
			      bad, first, (unsigned long long)e[first - from],
			      DENSE_AT);
	return KTAP_PASS;
}

/* only_dense_from() for the whole block. */
static int only_dense_at(const uint64_t *e, uint64_t bit, uint64_t pfn)
{
	return only_dense_from(e, 0, bit, pfn);
}

/*
 * Fork a child that, once *@go is written to, checks that the @n pages
 * from @p still hold @base + i (page i) and exits 0, or 1 if not. Its
 * pages stay shared copy-on-write with ours until then.
 */
static int fork_checker(volatile uint64_t *p, unsigned int n, uint64_t base,
			int *go, pid_t *pid)
{
	int fds[2];
	unsigned int i;
	char c;

	CHK_SYS(pipe(fds));
	*pid = fork();
	if (*pid < 0)
		KTAP_FAIL_MSG("fork: %s", strerror(errno));
	if (!*pid) {
		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(2);
		for (i = 0; i < n; i++)
			if (p[i * WORDS] != base + i)
				_exit(1);
		_exit(0);
	}
	close(fds[0]);
	*go = fds[1];
	return KTAP_PASS;
}

/*
 * After a fork, with the child alive, the parent's pages are shared
 * copy-on-write. The prefetch around a GPU write must not break that for
 * the neighbours: only the written page becomes the parent's own
 * (pagemap's exclusive bit), and the child sees the old data everywhere.
 */
TEST(cow_fork_kept)
{
	volatile uint64_t *p = aligned_map(BLOCK, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint64_t e[BPAGES];
	unsigned int i;
	char c = 0;
	struct fx f;
	pid_t pid;
	int go;

	ASSERT_PASS(block_init(p, 0xc000));
	ASSERT_PASS(fork_checker(p, BPAGES, 0xc000, &go, &pid));
	FX_OPEN(&f);
	ASSERT_PASS(map_then_write(&f, p, 0xabc));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(only_dense_at(e, PM_EXCLUSIVE, 0));
	for (i = 0; i < BPAGES; i++)
		if (i != DENSE_AT)
			ASSERT_EQ(0xc000 + i, p[i * WORDS]);
	ASSERT_EQ(1, write(go, &c, 1));
	ASSERT_EQ(0, wait_child(pid));
}

/*
 * cow_fork_kept in the first 2 MiB block of the address space, from
 * mmap_min_addr up: a range's block address is 0 there, which must not be
 * taken for "no block" (the requests would apply to pages further on).
 */
TEST(cow_fork_kept_block0)
{
	unsigned long min = 0;
	struct nvsvm_exec ex;
	struct nvsvm_op op;
	volatile uint64_t *p;
	unsigned int i, from, n;
	uint64_t e[BPAGES];
	uint64_t mapped = 0;
	unsigned int old;
	int go, ret;
	char c = 0;
	struct fx f;
	FILE *fp;
	pid_t pid;

	fp = fopen("/proc/sys/vm/mmap_min_addr", "r");
	if (!fp || fscanf(fp, "%lu", &min) != 1)
		SKIP(return, "no /proc/sys/vm/mmap_min_addr");
	fclose(fp);
	from = (min + PAGE - 1) / PAGE;
	if (!from)
		from = 1;
	if (from + 16 > DENSE_AT)
		SKIP(return, "mmap_min_addr %#lx leaves too little of block 0",
		     min);
	n = BPAGES - from;
	p = mmap((void *)(uintptr_t)(from * PAGE), n * PAGE,
		 PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		SKIP(return, "mmap at %#llx: %s",
		     (unsigned long long)from * PAGE, strerror(errno));
	ASSERT_LE(0, (long)(madvise((void *)p, n * PAGE, MADV_NOHUGEPAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	for (i = from; i < BPAGES; i++)
		p[(i - from) * WORDS] = 0xd000 + i;
	ASSERT_PASS(fork_checker(p, n, 0xd000 + from, &go, &pid));
	FX_OPEN(&f);
	ret = set_threshold(51, &old);
	if (ret)
		SKIP(return, "%s: %s", PARAM, strerror(-ret));
	ret = nvsvm_map(f.fd, from * PAGE, (DENSE_AT - from) * PAGE, 0,
			&mapped);
	op = nvsvm_op_write(DENSE_AT * PAGE, 0xabc);
	if (!ret)
		ret = gpu_run_on(&f, NVSVM_GPC_ANY, 5000, &op, 1, &ex);
	set_threshold(old, NULL);
	ASSERT_PASS(ret);
	ASSERT_EQ(DENSE_AT - from, mapped);
	/* Which pages were write-faulted tells more than the status. */
	ASSERT_PASS(pagemap(p, n, e));
	ASSERT_PASS(only_dense_from(e, from, PM_EXCLUSIVE, 0));
	ASSERT_FALSE(ex.status != NVSVM_EXEC_OK) {
		TH_LOG("GPU write at page %u: status %s", DENSE_AT,
		       nvsvm_status_name(ex.status));
	}
	ASSERT_EQ(0xabc, p[(DENSE_AT - from) * WORDS]);
	for (i = from; i < BPAGES; i++)
		if (i != DENSE_AT)
			ASSERT_EQ(0xd000 + i, p[(i - from) * WORDS]);
	ASSERT_EQ(1, write(go, &c, 1));
	ASSERT_EQ(0, wait_child(pid));
}

/*
 * A shared file mapping, every page read by the CPU, then made clean for
 * soft-dirty tracking (clear_refs 4 write-protects the PTEs). A GPU write
 * to one page write-faults that page alone: the prefetched neighbours are
 * mapped read-only, not dirtied (pagemap's soft-dirty bit), the file
 * holds the new value in that page only.
 */
TEST(shared_file_clean)
{
	volatile uint64_t *p, *probe = anon(PAGE);
	uint64_t e[BPAGES], v;
	unsigned int i;
	struct fx f;
	int fd, cr;

	ASSERT_PASS(tmp_file(BPAGES, 0xf000, &fd));
	p = aligned_map(BLOCK, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	ASSERT_TRUE(p && (void *)p != MAP_FAILED);
	for (i = 0; i < BPAGES; i++)
		ASSERT_EQ(0xf000 + i, p[i * WORDS]);
	ASSERT_TRUE(probe && (void *)probe != MAP_FAILED);
	probe[0] = 1;
	FX_OPEN(&f);
	cr = open("/proc/self/clear_refs", O_WRONLY);
	if (cr < 0)
		SKIP(return, "/proc/self/clear_refs: %s", strerror(errno));
	ASSERT_EQ(1, write(cr, "4", 1));
	close(cr);
	/* A CPU write after clear_refs: soft-dirty, if the kernel tracks it. */
	probe[0] = 2;
	ASSERT_PASS(pagemap(probe, 1, e));
	if (!(e[0] & PM_SOFT_DIRTY))
		SKIP(return, "no soft-dirty tracking (CONFIG_MEM_SOFT_DIRTY)");
	ASSERT_PASS(pagemap(p, BPAGES, e));
	for (i = 0; i < BPAGES; i++) {
		ASSERT_TRUE(!(e[i] & PM_SOFT_DIRTY)) {
			TH_LOG("page %u: %#llx", i, (unsigned long long)e[i]);
		}
	}
	ASSERT_PASS(map_then_write(&f, p, 0xabc));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(only_dense_at(e, PM_SOFT_DIRTY, 0));
	for (i = 0; i < BPAGES; i++) {
		ASSERT_EQ(8, pread(fd, &v, 8, i * PAGE));
		ASSERT_EQ(i == DENSE_AT ? 0xabc : 0xf000 + i, v);
	}
}

/*
 * Anonymous memory the CPU only read: every page is the zero page. A GPU
 * write to one page gives that page a page of its own; the prefetched
 * neighbours stay on the zero page.
 */
TEST(zero_page_kept)
{
	volatile uint64_t *p = aligned_map(BLOCK, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint64_t e[BPAGES], zero_pfn;
	unsigned int i;
	struct fx f;

	ASSERT_TRUE(p && (void *)p != MAP_FAILED);
	ASSERT_LE(0, (long)(madvise((void *)p, BLOCK, MADV_NOHUGEPAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(cpu_check(p, BLOCK / 8, 0));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	zero_pfn = e[0] & PM_PFN;
	if (!zero_pfn)
		SKIP(return, "pagemap shows no pfns (needs CAP_SYS_ADMIN)");
	for (i = 0; i < BPAGES; i++) {
		ASSERT_TRUE((e[i] & PM_PRESENT) &&
			    (e[i] & PM_PFN) == zero_pfn) {
			TH_LOG("page %u: %#llx", i, (unsigned long long)e[i]);
		}
	}
	FX_OPEN(&f);
	ASSERT_PASS(map_then_write(&f, p, 0xabc));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(only_dense_at(e, 0, zero_pfn));
	p[DENSE_AT * WORDS] = 0;
	ASSERT_PASS(cpu_check(p, BLOCK / 8, 0));
}

/*
 * Pages 0..255 of a block are PROT_READ, 256..511 read-write, all written
 * by the CPU. A dense read in the read-only half grows over that half
 * only, mapped read-only; a dense write in the other half grows over that
 * half only; the read-only half never becomes writable on the GPU.
 */
TEST(prot_read_neighbour)
{
	volatile uint64_t *p = aligned_map(BLOCK, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	unsigned int old;
	struct fx f;
	int ret;

	ASSERT_PASS(block_init(p, 0x7000));
	ASSERT_LE(0, (long)(mprotect((void *)p, 256 * PAGE, PROT_READ))) {
		TH_LOG("%s", strerror(errno));
	}
	FX_OPEN(&f);
	ret = set_threshold(51, &old);
	if (ret)
		SKIP(return, "%s: %s", PARAM, strerror(-ret));
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(p), 200 * PAGE, 0, NULL));
	ret = gpu_read_eq(&f, &p[200 * WORDS], 0x7000 + 200);
	if (ret == KTAP_PASS)
		ret = query_expect(&f, (void *)p, 256, NVSVM_QUERY_VALID |
				   NVSVM_QUERY_WRITE, NVSVM_QUERY_VALID);
	if (ret == KTAP_PASS)
		ret = query_expect(&f, (void *)&p[256 * WORDS], 256,
				   NVSVM_QUERY_VALID, 0);
	if (ret == KTAP_PASS)
		ret = nvsvm_map(f.fd, nvsvm_ptr(&p[256 * WORDS]), 200 * PAGE,
				0, NULL) ? KTAP_FAIL : KTAP_PASS;
	if (ret == KTAP_PASS)
		ret = gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&p[456 * WORDS]),
						 0xabc), NULL);
	set_threshold(old, NULL);
	ASSERT_PASS(ret);
	ASSERT_EQ(0xabc, p[456 * WORDS]);
	ASSERT_PASS(query_expect(&f, (void *)p, 256,
				 NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
				 NVSVM_QUERY_VALID));
	ASSERT_PASS(query_expect(&f, (void *)&p[256 * WORDS], 256,
				 NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
				 NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_write(nvsvm_ptr(&p[100 * WORDS]), 1),
			      nvsvm_ptr(&p[100 * WORDS]), NVSVM_ACCESS_WRITE));
	ASSERT_EQ(0x7000 + 100, p[100 * WORDS]);
}

/* Pages [@from, @to) of the block: each @what, per pagemap's @e. */
static int pages_are(const uint64_t *e, unsigned int from, unsigned int to,
		     int (*ok)(uint64_t), const char *what)
{
	unsigned int i, bad = 0, first = 0;

	for (i = from; i < to; i++)
		if (!ok(e[i]) && !bad++)
			first = i;
	if (bad)
		KTAP_FAIL_MSG("%u of pages %u..%u not %s (first: page %u, pagemap %#llx)",
			      bad, from, to - 1, what, first,
			      (unsigned long long)e[first]);
	return KTAP_PASS;
}

static int own_page(uint64_t e)
{
	return (e & PM_PRESENT) && (e & PM_EXCLUSIVE) && !(e & PM_FILE);
}

static int absent(uint64_t e)
{
	return !(e & PM_PRESENT);
}

/* Not a private anonymous copy: absent, or the file's own page. */
static int no_anon_copy(uint64_t e)
{
	return !(e & PM_PRESENT) || (e & PM_FILE);
}

/*
 * A private anonymous block the CPU wrote below DENSE_AT and never touched
 * above. The GPU write that makes it dense fills the rest: each page is
 * the process's own zeroed page, mapped writable on the GPU, so a GPU
 * write there takes no fault, and the CPU reads zeroes and what the GPU
 * wrote.
 */
TEST(fill_fresh_anon)
{
	volatile uint64_t *p = aligned_map(BLOCK, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint64_t e[BPAGES], before[NSTATS], after[NSTATS];
	unsigned int i;
	struct fx f;

	ASSERT_PASS(block_init(p, 0xe000));
	ASSERT_LE(0, (long)(madvise((void *)&p[DENSE_AT * WORDS],
				    (BPAGES - DENSE_AT) * PAGE,
				    MADV_DONTNEED))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(pages_are(e, DENSE_AT, BPAGES, absent, "absent"));
	FX_OPEN(&f);
	ASSERT_PASS(map_then_write(&f, p, 0xabc));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(pages_are(e, 0, BPAGES, own_page, "the process's own"));
	ASSERT_PASS(query_expect(&f, (void *)p, BPAGES,
				 NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
				 NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE));
	ASSERT_EQ(0, stats(before));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&p[500 * WORDS]),
					       0x501), NULL));
	ASSERT_EQ(0, stats(after));
	ASSERT_EQ(before[0], after[0]);
	ASSERT_EQ(0x501, p[500 * WORDS]);
	p[500 * WORDS] = 0;
	ASSERT_EQ(0xabc, p[DENSE_AT * WORDS]);
	p[DENSE_AT * WORDS] = 0;
	for (i = 0; i < DENSE_AT; i++)
		ASSERT_EQ(0xe000 + i, p[i * WORDS]);
	ASSERT_PASS(cpu_check(&p[DENSE_AT * WORDS],
			      (BPAGES - DENSE_AT) * WORDS, 0));
}

/*
 * A private file mapping the CPU read below DENSE_AT: the GPU write there
 * gives that page a private copy, and nothing else. The pages above were
 * never touched and stay the file's: a later write to the file shows
 * through the mapping, which a private copy made ahead would hide.
 */
TEST(fill_not_private_file)
{
	volatile uint64_t *p;
	uint64_t e[BPAGES], v = 0x5eed;
	unsigned int i;
	struct fx f;
	int fd;

	ASSERT_PASS(tmp_file(BPAGES, 0x9000, &fd));
	p = aligned_map(BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd);
	ASSERT_TRUE(p && (void *)p != MAP_FAILED);
	for (i = 0; i < DENSE_AT; i++)
		ASSERT_EQ(0x9000 + i, p[i * WORDS]);
	FX_OPEN(&f);
	ASSERT_PASS(map_then_write(&f, p, 0xabc));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(pages_are(e, DENSE_AT + 1, BPAGES, no_anon_copy,
			      "the file's"));
	ASSERT_EQ(8, pwrite(fd, &v, 8, 400 * PAGE));
	ASSERT_EQ(v, p[400 * WORDS]);
	ASSERT_EQ(0x9000 + 401, p[401 * WORDS]);
}

/*
 * Shared anonymous memory (shmem underneath) the CPU wrote below DENSE_AT:
 * the pages above stay absent, as in any file: a page there would be
 * shared with every process mapping it.
 */
TEST(fill_not_shared_anon)
{
	volatile uint64_t *p = aligned_map(BLOCK, PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_ANONYMOUS, -1);
	uint64_t e[BPAGES];
	unsigned int i;
	struct fx f;

	ASSERT_TRUE(p && (void *)p != MAP_FAILED);
	for (i = 0; i < DENSE_AT; i++)
		p[i * WORDS] = 0x4000 + i;
	FX_OPEN(&f);
	ASSERT_PASS(map_then_write(&f, p, 0xabc));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(pages_are(e, DENSE_AT + 1, BPAGES, absent, "absent"));
	ASSERT_PASS(query_expect(&f, (void *)&p[(DENSE_AT + 1) * WORDS],
				 BPAGES - DENSE_AT - 1, NVSVM_QUERY_VALID, 0));
	ASSERT_EQ(0xabc, p[DENSE_AT * WORDS]);
}

/*
 * Swap for the paged-out cases: a zram device of 64 MiB (the kernel's
 * zram module), made swap with mkswap and swapon(2) by the fixture and
 * taken away by its teardown, so that the programs after this one run
 * without swap, as before. A kernel without zram or swap (the debug
 * kernels: tinyconfig has no BLOCK) skips with the reason.
 */
#define ZRAM		"/sys/block/zram0"
#define ZRAM_DEV	"/dev/zram0"

FIXTURE(swap) {
	int on;
	char why[128];
};

/* Write @val to the sysfs file @path; 0 or -errno. */
static int sys_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;
	ssize_t n = strlen(val);

	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

FIXTURE_SETUP(swap)
{
	int ret;

	self->on = 0;
	if (system("modprobe zram num_devices=1 2>/dev/null") ||
	    access(ZRAM, F_OK)) {
		snprintf(self->why, sizeof(self->why),
			 "no zram (CONFIG_ZRAM) in this kernel: no swap to page out to");
		return;
	}
	ret = sys_write(ZRAM "/disksize", "64M");
	if (ret) {
		snprintf(self->why, sizeof(self->why),
			 "%s/disksize: %s (zram0 in use?)", ZRAM,
			 strerror(-ret));
		return;
	}
	if (system("mkswap " ZRAM_DEV " >/dev/null 2>&1") ||
	    swapon(ZRAM_DEV, 0)) {
		snprintf(self->why, sizeof(self->why),
			 "mkswap/swapon %s failed (no CONFIG_SWAP?): %s",
			 ZRAM_DEV, strerror(errno));
		sys_write(ZRAM "/reset", "1");
		return;
	}
	self->on = 1;
}

FIXTURE_TEARDOWN(swap)
{
	if (!self->on)
		return;
	/* Not EXPECT_*(): after a failed ASSERT_*() their blocks would run. */
	if (swapoff(ZRAM_DEV))
		TH_LOG("swapoff %s: %s", ZRAM_DEV, strerror(errno));
	else if (sys_write(ZRAM "/reset", "1") ||
		 system("rmmod zram 2>/dev/null"))
		TH_LOG("zram stays loaded");
}

static int swapped(uint64_t e)
{
	return !(e & PM_PRESENT) && (e & PM_SWAP);
}

/* Still in swap, or mapped but shared with the child (not our own copy). */
static int swapped_or_shared(uint64_t e)
{
	return swapped(e) || ((e & PM_PRESENT) && !(e & PM_EXCLUSIVE));
}

/*
 * The block @p, page i holding @base + i, with pages [DENSE_AT + 1,
 * BPAGES) paged out (MADV_PAGEOUT) and the pagemap saying so.
 */
static int block_paged_out(volatile uint64_t *p, uint64_t base)
{
	uint64_t e[BPAGES];

	CHECK(block_init(p, base));
	CHK_SYS(madvise((void *)&p[(DENSE_AT + 1) * WORDS],
			(BPAGES - DENSE_AT - 1) * PAGE, MADV_PAGEOUT));
	CHECK(pagemap(p, BPAGES, e));
	CHECK(pages_are(e, 0, DENSE_AT + 1, own_page, "the process's own"));
	CHECK(pages_are(e, DENSE_AT + 1, BPAGES, swapped, "swapped out"));
	return KTAP_PASS;
}

/*
 * Issue 32 d1: pages 301..511 of a block the CPU wrote are paged out, the
 * process forks (the swap entries are shared with the child), MAP maps
 * pages 0..299 and the GPU writes page 300. The prefetch must not read
 * the swapped neighbours back for writing: each would become a private
 * copy of the parent (copy-on-write broken). They stay in swap (or, read
 * back by something else, shared with the child); the GPU does not map
 * them; both processes read their old data.
 */
TEST_F(swap, swap_cow_kept)
{
	volatile uint64_t *p = aligned_map(BLOCK, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint64_t e[BPAGES];
	unsigned int i;
	char c = 0;
	struct fx f;
	pid_t pid;
	int go;

	if (!self->on)
		SKIP(return, "%s", self->why);
	ASSERT_PASS(block_paged_out(p, 0x3000));
	ASSERT_PASS(fork_checker(p, BPAGES, 0x3000, &go, &pid));
	FX_OPEN(&f);
	ASSERT_PASS(map_then_write(&f, p, 0xabc));
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(pages_are(e, DENSE_AT + 1, BPAGES, swapped_or_shared,
			      "in swap or shared with the child"));
	ASSERT_PASS(query_expect(&f, (void *)p, DENSE_AT + 1,
				 NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
	ASSERT_PASS(query_expect(&f, (void *)&p[(DENSE_AT + 1) * WORDS],
				 BPAGES - DENSE_AT - 1, NVSVM_QUERY_VALID, 0));
	for (i = 0; i < BPAGES; i++)
		if (i != DENSE_AT)
			ASSERT_EQ(0x3000 + i, p[i * WORDS]);
	ASSERT_EQ(1, write(go, &c, 1));
	ASSERT_EQ(0, wait_child(pid));
}

/*
 * The same block without a fork, and a GPU read of page 300: the read
 * prefetch does not read the swapped neighbours back in either (a swap-in
 * nobody asked for: I/O and memory on the fault's path, for pages reclaim
 * chose as cold). They stay in swap and unmapped on the GPU; a GPU read
 * of one of them then takes it as the CPU's own read would.
 */
TEST_F(swap, swap_read_left)
{
	volatile uint64_t *p = aligned_map(BLOCK, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint64_t e[BPAGES], mapped = 0;
	unsigned int old;
	struct fx f;
	int ret;

	if (!self->on)
		SKIP(return, "%s", self->why);
	ASSERT_PASS(block_paged_out(p, 0x6000));
	FX_OPEN(&f);
	ret = set_threshold(51, &old);
	if (ret)
		SKIP(return, "%s: %s", PARAM, strerror(-ret));
	ret = nvsvm_map(f.fd, nvsvm_ptr(p), DENSE_AT * PAGE, 0, &mapped) ?
	      KTAP_FAIL : KTAP_PASS;
	if (ret == KTAP_PASS)
		ret = gpu_read_eq(&f, &p[DENSE_AT * WORDS], 0x6000 + DENSE_AT);
	set_threshold(old, NULL);
	ASSERT_PASS(ret);
	ASSERT_EQ(DENSE_AT, mapped);
	ASSERT_PASS(pagemap(p, BPAGES, e));
	ASSERT_PASS(pages_are(e, DENSE_AT + 1, BPAGES, swapped, "in swap"));
	ASSERT_PASS(query_expect(&f, (void *)&p[(DENSE_AT + 1) * WORDS],
				 BPAGES - DENSE_AT - 1, NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(gpu_read_eq(&f, &p[400 * WORDS], 0x6000 + 400));
	ASSERT_PASS(pagemap(&p[400 * WORDS], 1, e));
	ASSERT_TRUE(e[0] & PM_PRESENT) {
		TH_LOG("page 400 after the GPU read: pagemap %#llx",
		       (unsigned long long)e[0]);
	}
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
