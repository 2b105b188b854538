// SPDX-License-Identifier: GPL-2.0
/*
 * Large GPU pages: where the CPU maps a THP with a PMD the GPU maps one
 * 2 MiB PTE (no small-page table), a physically contiguous, aligned and
 * uniformly mapped 64 KiB run gets one 64 KiB PTE, a fault in a THP block
 * maps the whole block, and a THP split or collapse is followed (the large
 * PTE goes whole, the next map uses the sizes that fit again).
 *
 * Needs root for /proc/self/pagemap pfns and /proc/kpageflags (to know
 * whether the kernel really gave a THP; a case skips when it did not).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ktap.h"
#include "common.h"

#define BLOCK		(2 * MiB)
#define BLOCK_PAGES	(BLOCK / PAGE)

static uint64_t pat(uint64_t i)
{
	return 0x4c41524745000000ULL | i;
}

/* Write a pattern over the block; skip unless it is one PMD-mapped THP. */
#define POPULATE_THP(buf) do {						\
	size_t i_;							\
	for (i_ = 0; i_ < BLOCK / 8; i_++)				\
		(buf)[i_] = pat(i_);					\
	if (is_thp(buf) != 1 || anon_huge_kb(buf) < 2048)		\
		SKIP("the kernel gave no THP for the block");		\
} while (0)

/* @buf from thp_block(): check it, POPULATE_THP() it, then open @f. */
#define THP_OPEN(f, buf) do {						\
	ASSERT_MAP(buf);						\
	POPULATE_THP(buf);						\
	FX_OPEN(f);							\
} while (0)

/* The sum of pat() over words [first, first + n). */
static uint64_t pat_sum(uint64_t first, uint64_t n)
{
	uint64_t s = 0, i;

	for (i = first; i < first + n; i++)
		s += pat(i);
	return s;
}

static int query(struct fx *f, const void *p, uint64_t n, uint32_t *e)
{
	EXPECT_OK(nvsvm_query(f->fd, nvsvm_ptr(p), n, e));
	return KTAP_PASS;
}

/* Entries [from, to) of @e are valid, of page shift @shift, with @bits. */
static int expect_entries(const uint32_t *e, uint64_t from, uint64_t to,
			  unsigned int shift, uint32_t bits)
{
	uint64_t i;

	for (i = from; i < to; i++) {
		if (!(e[i] & NVSVM_QUERY_VALID) ||
		    NVSVM_QUERY_SHIFT(e[i]) != shift ||
		    (e[i] & bits) != bits)
			KTAP_FAIL_MSG("page %llu: entry %#x, expected valid, shift %u, bits %#x",
				      (unsigned long long)i, e[i], shift,
				      bits);
	}
	return KTAP_PASS;
}

static int expect_invalid(const uint32_t *e, uint64_t from, uint64_t to)
{
	uint64_t i;

	for (i = from; i < to; i++)
		if (e[i] & NVSVM_QUERY_VALID)
			KTAP_FAIL_MSG("page %llu: entry %#x, expected invalid",
				      (unsigned long long)i, e[i]);
	return KTAP_PASS;
}

/*
 * QUERY the whole block at @p into @e: every page valid, writable, of
 * page shift @shift.
 */
static int block_entries(struct fx *f, const void *p, uint32_t *e,
			 unsigned int shift)
{
	CHECK(query(f, p, BLOCK_PAGES, e));
	return expect_entries(e, 0, BLOCK_PAGES, shift, NVSVM_QUERY_WRITE);
}

static int map_thp_one_pte(void)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), before, after, mapped;
	struct fx f;
	int ret;

	THP_OPEN(&f, buf);
	ret = nvsvm_stat_read(0, "pt_bytes", &before);
	if (ret)
		SKIP("debugfs pt_bytes: %s", strerror(-ret));
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(buf), BLOCK, 0, &mapped));
	EXPECT_EQ(mapped, BLOCK_PAGES);
	EXPECT_OK(nvsvm_stat_read(0, "pt_bytes", &after));
	CHECK(block_entries(&f, buf, e, 21));
	/* PD2, PD1 and PD0 below the root; no 4 KiB or 64 KiB table. */
	EXPECT_EQ(after - before, 3 * 4096);
	CHECK(gpu_sum_eq(&f, buf, BLOCK, pat_sum(0, BLOCK / 8)));
	CHECK(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[BLOCK / 8 - 1]),
					 0xfeed), NULL));
	EXPECT_EQ(buf[BLOCK / 8 - 1], 0xfeed);
	EXPECT_EQ(buf[BLOCK / 8 - 2], pat(BLOCK / 8 - 2));
	return KTAP_PASS;
}

static int fault_maps_whole_block(void)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block();
	uint64_t w = 300 * WORDS + 9;
	struct fx f;

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	/* The GPU touches the block first; one write fault. */
	CHECK(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[w]), 0x77), NULL));
	if (is_thp(&buf[w]) != 1 || anon_huge_kb(buf) < 2048)
		SKIP("the kernel gave no THP for the block");
	CHECK(block_entries(&f, buf, e, 21));
	EXPECT_EQ(buf[w], 0x77);
	CHECK(cpu_check(buf, w, 0));
	CHECK(gpu_read_eq(&f, &buf[BLOCK / 8 - 1], 0));
	return KTAP_PASS;
}

static int partial_map_64k(void)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), mapped;
	char *b;
	struct fx f;

	THP_OPEN(&f, buf);
	b = (char *)buf;
	/* Not the whole block: 64 KiB pages of the THP, 4 KiB at the edge. */
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(b + 64 * 1024),
			    MiB + 3 * PAGE, 0, &mapped));
	EXPECT_EQ(mapped, MiB / PAGE + 3);
	CHECK(query(&f, buf, BLOCK_PAGES, e));
	CHECK(expect_invalid(e, 0, 16));
	CHECK(expect_entries(e, 16, 16 + MiB / PAGE, 16, NVSVM_QUERY_WRITE));
	CHECK(expect_entries(e, 16 + MiB / PAGE, 19 + MiB / PAGE, 12,
			     NVSVM_QUERY_WRITE));
	CHECK(expect_invalid(e, 19 + MiB / PAGE, BLOCK_PAGES));
	CHECK(gpu_sum_eq(&f, b + 64 * 1024, MiB, pat_sum(8192, MiB / 8)));
	return KTAP_PASS;
}

/*
 * Make page 37 read-only: the CPU splits the PMD. The 2 MiB PTE goes
 * whole; mapped again, the block gets 64 KiB pages where the run is
 * uniform, 4 KiB pages in the run of the read-only page.
 */
static int split_followed(void)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), mapped;
	char *b;
	struct fx f;

	THP_OPEN(&f, buf);
	b = (char *)buf;
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK, 0, &mapped));
	CHECK(block_entries(&f, buf, e, 21));

	ASSERT_SYS(mprotect(b + 37 * PAGE, PAGE, PROT_READ));
	CHECK(query(&f, buf, BLOCK_PAGES, e));
	CHECK(expect_invalid(e, 0, BLOCK_PAGES));
	EXPECT_EQ(anon_huge_kb(b), 0);

	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK, 0, &mapped));
	EXPECT_EQ(mapped, BLOCK_PAGES);
	CHECK(query(&f, buf, BLOCK_PAGES, e));
	CHECK(expect_entries(e, 0, 32, 16, NVSVM_QUERY_WRITE));
	CHECK(expect_entries(e, 32, 37, 12, NVSVM_QUERY_WRITE));
	CHECK(expect_entries(e, 37, 38, 12, 0));
	EXPECT_EQ(e[37] & NVSVM_QUERY_WRITE, 0);
	CHECK(expect_entries(e, 38, 48, 12, NVSVM_QUERY_WRITE));
	CHECK(expect_entries(e, 48, BLOCK_PAGES, 16, NVSVM_QUERY_WRITE));
	CHECK(gpu_sum_eq(&f, b, BLOCK, pat_sum(0, BLOCK / 8)));
	CHECK(gpu_fault(&f, nvsvm_op_write(nvsvm_ptr(b + 37 * PAGE), 1),
			nvsvm_ptr(b + 37 * PAGE), NVSVM_ACCESS_WRITE));
	CHECK(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(b + 36 * PAGE), 5), NULL));
	EXPECT_EQ(buf[36 * WORDS], 5);
	return KTAP_PASS;
}

static int write_sysfs(const char *path, const char *val, char *old,
		       size_t oldsz)
{
	int fd = open(path, O_RDWR);
	ssize_t n;

	if (fd < 0)
		return -1;
	if (old) {
		n = read(fd, old, oldsz - 1);
		old[n > 0 ? n : 0] = '\0';
	}
	n = pwrite(fd, val, strlen(val), 0);
	close(fd);
	return n < 0 ? -1 : 0;
}

/*
 * Split the PMD (mprotect a page and back), map: 64 KiB pages. Let
 * khugepaged collapse the block again: the GPU mapping goes with the old
 * page tables, and the next map is one 2 MiB PTE.
 */
static int collapse_followed(void)
{
	static const char sleep_ms[] =
		"/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs";
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), mapped;
	char old[32];
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct fx f;
	char *b;
	int i;

	ASSERT_MAP(buf);
	POPULATE_THP(buf);
	b = (char *)buf;
	ASSERT_SYS(mprotect(b + PAGE, PAGE, PROT_READ));
	ASSERT_SYS(mprotect(b + PAGE, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(anon_huge_kb(b), 0);
	FX_OPEN(&f);
	/* Ask for write: mprotect may have left page 1 read-only. */
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	CHECK(block_entries(&f, buf, e, 16));

	if (write_sysfs(sleep_ms, "10", old, sizeof(old)))
		SKIP("cannot set %s", sleep_ms);
	for (i = 0; i < 1500 && anon_huge_kb(b) < 2048; i++)
		nanosleep(&ts, NULL);
	write_sysfs(sleep_ms, old, NULL, 0);
	if (anon_huge_kb(b) < 2048)
		SKIP("khugepaged did not collapse the block in 30 s");

	CHECK(query(&f, buf, BLOCK_PAGES, e));
	CHECK(expect_invalid(e, 0, BLOCK_PAGES));
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK, 0, &mapped));
	CHECK(block_entries(&f, buf, e, 21));
	CHECK(gpu_sum_eq(&f, b, BLOCK, pat_sum(0, BLOCK / 8)));
	return KTAP_PASS;
}

/*
 * Four neighbouring THP blocks, split, mapped with 64 KiB pages: each block
 * has its own big-page table, and those are 256 bytes, several to a page.
 * The GPU must reach every block through its own table: sums per block,
 * then a GPU fill of one block that leaves the others alone.
 */
#define NBLOCKS	4
static int lpts_side_by_side(void)
{
	static uint32_t e[NBLOCKS * BLOCK_PAGES];
	char *raw = anon((NBLOCKS + 1) * BLOCK), *b;
	uint64_t *buf, mapped, i, k;
	struct fx f;

	ASSERT_MAP(raw);
	b = (char *)(((uintptr_t)raw + BLOCK - 1) & ~(BLOCK - 1));
	buf = (uint64_t *)b;
	ASSERT_SYS(madvise(b, NBLOCKS * BLOCK, MADV_HUGEPAGE));
	for (i = 0; i < NBLOCKS * BLOCK / 8; i++)
		buf[i] = pat(i);
	for (k = 0; k < NBLOCKS; k++) {
		if (is_thp(b + k * BLOCK) != 1)
			SKIP("the kernel gave no THP for block %llu",
			     (unsigned long long)k);
		/* Split the PMD: 4 KiB PTEs over contiguous pages. */
		ASSERT_SYS(mprotect(b + k * BLOCK, PAGE, PROT_READ));
		ASSERT_SYS(mprotect(b + k * BLOCK, PAGE,
				    PROT_READ | PROT_WRITE));
	}
	EXPECT_EQ(anon_huge_kb(b), 0);
	FX_OPEN(&f);
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(b), NBLOCKS * BLOCK,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	EXPECT_EQ(mapped, NBLOCKS * BLOCK_PAGES);
	CHECK(query(&f, buf, NBLOCKS * BLOCK_PAGES, e));
	CHECK(expect_entries(e, 0, NBLOCKS * BLOCK_PAGES, 16,
			     NVSVM_QUERY_WRITE));
	for (k = 0; k < NBLOCKS; k++)
		CHECK(gpu_sum_eq(&f, b + k * BLOCK, BLOCK,
				 pat_sum(k * BLOCK / 8, BLOCK / 8)));
	CHECK(gpu_ok1(&f, nvsvm_op_fill(nvsvm_ptr(b + 2 * BLOCK), BLOCK,
					0x10b), NULL));
	for (i = 0; i < NBLOCKS * BLOCK / 8; i++) {
		uint64_t want = i / (BLOCK / 8) == 2 ? 0x10b : pat(i);

		if (buf[i] != want)
			KTAP_FAIL_MSG("word %llu: %#llx, expected %#llx",
				      (unsigned long long)i,
				      (unsigned long long)buf[i],
				      (unsigned long long)want);
	}
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	KTAP_CASE(map_thp_one_pte),
	KTAP_CASE(fault_maps_whole_block),
	KTAP_CASE(partial_map_64k),
	KTAP_CASE(split_followed),
	KTAP_CASE_T(collapse_followed, 60),
	KTAP_CASE(lpts_side_by_side),
};

int main(void)
{
	return test_main(cases, KTAP_ARRAY_SIZE(cases), NVSVM_CAP_EXEC);
}
