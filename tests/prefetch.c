// SPDX-License-Identifier: GPL-2.0
/*
 * Density prefetch in the fault path (nvsvm.prefetch_threshold): with it, a
 * sequential GPU pass over never-mapped memory takes far fewer faults than
 * pages; without it (0), one fault per page. A prefetch that meets a page
 * that cannot be had (another VMA, a file's end) stops there and cancels
 * nothing; it never grows into the unmanaged window. Needs root (the
 * module parameter, debugfs counters).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "common.h"

#define PARAM	"/sys/module/nvsvm/parameters/prefetch_threshold"
#define STORM	(16 * MiB)
#define BLOCK	(2 * MiB)
#define BPAGES	(BLOCK / PAGE)
/* A 2 MiB block below NVSVM_UNMANAGED_LIMIT, for areas with their own window. */
#define LOW_BLOCK	0xe000000000ULL

/* Set the threshold; the old value in *@old. */
static int set_threshold(unsigned int v, unsigned int *old)
{
	char buf[16];
	int fd = open(PARAM, O_RDWR), n;

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		close(fd);
		return -EIO;
	}
	buf[n] = '\0';
	if (old)
		*old = strtoul(buf, NULL, 10);
	n = snprintf(buf, sizeof(buf), "%u\n", v);
	if (pwrite(fd, buf, n, 0) != n) {
		close(fd);
		return -errno;
	}
	close(fd);
	return 0;
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

/* A sequential FILL over 16 MiB of 4 KiB pages; counter deltas in @d. */
static int storm(unsigned int threshold, uint64_t *d)
{
	uint64_t before[NSTATS], after[NSTATS];
	uint64_t *buf = anon(STORM);
	unsigned int old;
	struct nvsvm_op op;
	struct fx f;
	int i, ret;

	ASSERT_MAP(buf);
	ASSERT_SYS(madvise(buf, STORM, MADV_NOHUGEPAGE));
	ret = set_threshold(threshold, &old);
	if (ret)
		SKIP("%s: %s", PARAM, strerror(-ret));
	ret = stats(before);
	if (ret) {
		set_threshold(old, NULL);
		SKIP("debugfs: %s", strerror(-ret));
	}
	FX_OPEN(&f);
	op = nvsvm_op_fill(nvsvm_ptr(buf), STORM, 0x9e7c);
	ret = gpu_ok(&f, &op, 1);
	set_threshold(old, NULL);
	CHECK(ret);
	EXPECT_OK(stats(after));
	CHECK(cpu_check(buf, STORM / 8, 0x9e7c));
	for (i = 0; i < NSTATS; i++)
		d[i] = after[i] - before[i];
	ktap_note("threshold %u: %llu pages, faults +%llu, batches +%llu, prefetch ranges +%llu",
		  threshold, STORM / PAGE, (unsigned long long)d[0],
		  (unsigned long long)d[1], (unsigned long long)d[2]);
	EXPECT_EQ(d[3], 0);
	return KTAP_PASS;
}

static int storm_prefetch_on(void)
{
	uint64_t d[NSTATS];

	CHECK(storm(51, d));
	EXPECT_TRUE(d[2] > 0, "no range grew");
	/* Density doubling per fault: about 10 faults per 2 MiB block. */
	EXPECT_TRUE(d[0] * 16 < STORM / PAGE, "%llu faults for %llu pages",
		    (unsigned long long)d[0], STORM / PAGE);
	return KTAP_PASS;
}

static int storm_prefetch_off(void)
{
	uint64_t d[NSTATS];

	CHECK(storm(0, d));
	EXPECT_EQ(d[2], 0);
	EXPECT_TRUE(d[0] >= STORM / PAGE, "%llu faults for %llu pages",
		    (unsigned long long)d[0], STORM / PAGE);
	return KTAP_PASS;
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

	EXPECT_OK(stats(before));
	for (i = 0; i < n; i++)
		CHECK(gpu_read_eq(f, &buf[i * WORDS], val(i)));
	EXPECT_OK(stats(after));
	EXPECT_EQ(after[3] - before[3], 0);
	EXPECT_TRUE(after[2] > before[2], "no range grew");
	EXPECT_OK(nvsvm_query(f->fd, nvsvm_ptr(buf), n + k, e));
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
static int stops_at_prot_none(void)
{
	uint64_t *buf = anon(32 * PAGE);
	unsigned int old;
	struct fx f;
	int ret;

	ASSERT_MAP(buf);
	ASSERT_SYS(mprotect((char *)buf + 10 * PAGE, 22 * PAGE, PROT_NONE));
	ret = set_threshold(51, &old);
	if (ret)
		SKIP("%s: %s", PARAM, strerror(-ret));
	FX_OPEN(&f);
	ret = walk_then_hole(&f, buf, 10, 22, zero);
	set_threshold(old, NULL);
	CHECK(ret);
	CHECK(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(&buf[10 * WORDS])),
			nvsvm_ptr(&buf[10 * WORDS]), NVSVM_ACCESS_READ));
	return KTAP_PASS;
}

/*
 * A shared file mapping of 32 pages over a 10-page file: pages 10..31 lie
 * past the end in the same VMA, hmm cannot fault them, the grown range
 * fails and the faults are served alone.
 */
static int stops_at_file_end(void)
{
	char name[] = "/tmp/nvsvm-prefetch-XXXXXX";
	uint64_t page[WORDS] = { 0 };
	unsigned int old, i;
	uint64_t *buf;
	struct fx f;
	int fd, ret;

	fd = mkstemp(name);
	if (fd < 0)
		KTAP_FAIL_MSG("mkstemp: %s", strerror(errno));
	unlink(name);
	for (i = 0; i < 10; i++) {
		page[0] = page_no(i);
		EXPECT_EQ(write(fd, page, PAGE), (ssize_t)PAGE);
	}
	buf = mmap(NULL, 32 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_MAP(buf);
	ret = set_threshold(51, &old);
	if (ret)
		SKIP("%s: %s", PARAM, strerror(-ret));
	FX_OPEN(&f);
	ret = walk_then_hole(&f, buf, 10, 22, page_no);
	set_threshold(old, NULL);
	CHECK(ret);
	return KTAP_PASS;
}

/* The block @p (from mmap()): no THP, and page i holds @base + i. */
static int block_init(volatile uint64_t *p, uint64_t base)
{
	unsigned int i;

	ASSERT_MAP(p);
	ASSERT_SYS(madvise((void *)p, BLOCK, MADV_NOHUGEPAGE));
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
static int window_case(unsigned int w, unsigned int nw, unsigned int fault,
		       int freed)
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

	CHECK(block_init(p, 0x5000));
	FX_OPEN_DEV(&f);
	EXPECT_OK(nvsvm_area_init(f.fd, win, nw * PAGE));
	EXPECT_OK(nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan));
	ret = set_threshold(51, &old);
	if (ret)
		SKIP("%s: %s", PARAM, strerror(-ret));
	if (fault > m0)
		EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(&p[m0 * WORDS]),
				    (fault - m0) * PAGE, 0, NULL));
	if (fault + 1 < m1)
		EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(&p[(fault + 1) * WORDS]),
				    (m1 - fault - 1) * PAGE, 0, NULL));
	ret = gpu_read_eq(&f, &p[fault * WORDS], 0x5000 + fault);
	set_threshold(old, NULL);
	CHECK(ret);
	CHECK(query_expect(&f, (void *)&p[m0 * WORDS], m1 - m0,
			   NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
	EXPECT_ERR(nvsvm_query(f.fd, win, 1, &e), EINVAL);
	if (freed)
		ASSERT_SYS(munmap((void *)win, nw * PAGE));
	CHECK(gpu_fault(&f, nvsvm_op_read(win), win, NVSVM_ACCESS_READ));
	CHECK(gpu_fault(&f, nvsvm_op_read(last), last, NVSVM_ACCESS_READ));
	CHECK(gpu_read_eq(&f, &p[m0 * WORDS], 0x5000 + m0));
	return KTAP_PASS;
}

/* The window is the last 512 KiB of the block; the fault just below it. */
static int window_end(void)
{
	return window_case(384, 128, 383, 0);
}

static int window_end_freed(void)
{
	return window_case(384, 128, 383, 1);
}

/* The window is the first 512 KiB; the fault just above it. */
static int window_start(void)
{
	return window_case(0, 128, 128, 0);
}

static int window_start_freed(void)
{
	return window_case(0, 128, 128, 1);
}

static const struct ktap_case cases[] = {
	KTAP_CASE_T(storm_prefetch_on, 150),
	KTAP_CASE_T(storm_prefetch_off, 150),
	KTAP_CASE(stops_at_prot_none),
	KTAP_CASE(stops_at_file_end),
	KTAP_CASE(window_end),
	KTAP_CASE(window_end_freed),
	KTAP_CASE(window_start),
	KTAP_CASE(window_start_freed),
};

int main(void)
{
	return test_main(cases, KTAP_ARRAY_SIZE(cases), NVSVM_CAP_EXEC);
}
