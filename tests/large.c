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
 *
 * Cases: TEST(); each opens the device itself (FX_OPEN) after setting up
 * its memory. collapse_followed and huge_teardown_reschedules keep their
 * own timeouts: TEST_F_TIMEOUT() on the empty fixture slow.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kselftest_harness.h"
#include "common.h"

#define BLOCK		(2 * MiB)
#define BLOCK_PAGES	(BLOCK / PAGE)

static uint64_t pat(uint64_t i)
{
	return 0x4c41524745000000ULL | i;
}

FIXTURE_EMPTY(slow)

/* Write a pattern over the block; skip unless it is one PMD-mapped THP. */
static int populate_thp(uint64_t *buf)
{
	size_t i;

	for (i = 0; i < BLOCK / 8; i++)
		buf[i] = pat(i);
	if (is_thp(buf) != 1 || anon_huge_kb(buf) < 2048)
		HELPER_SKIP("the kernel gave no THP for the block");
	return KTAP_PASS;
}

/* @buf from thp_block(): check it, populate_thp() it, then open @f. */
#define THP_OPEN(f, buf) do {						\
	ASSERT_MAP(buf);						\
	ASSERT_PASS_SKIP(populate_thp(buf));				\
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
	CHK_OK(nvsvm_query(f->fd, nvsvm_ptr(p), n, e));
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

/* Entries [from, to) of @e have none of @bits: they are @what. */
static int expect_none(const uint32_t *e, uint64_t from, uint64_t to,
		       uint32_t bits, const char *what)
{
	uint64_t i;

	for (i = from; i < to; i++)
		if (e[i] & bits)
			KTAP_FAIL_MSG("page %llu: entry %#x, expected %s",
				      (unsigned long long)i, e[i], what);
	return KTAP_PASS;
}

#define expect_invalid(e, from, to)					\
	expect_none(e, from, to, NVSVM_QUERY_VALID, "invalid")
#define expect_ro(e, from, to)						\
	expect_none(e, from, to, NVSVM_QUERY_WRITE, "read-only")

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

/*
 * One operation on any GPC, stopped after @ms: it must complete in time.
 * A livelock (the GPU faults for ever on what the driver thinks mapped)
 * ends as the EXEC's TIMEOUT, in seconds, not as the program's timeout.
 */
static int gpu_ok_within(struct fx *f, struct nvsvm_op *op, uint32_t ms)
{
	struct nvsvm_exec x;

	CHK_OK(nvsvm_exec(f->fd, f->chan, NVSVM_GPC_ANY, op, 1, ms, &x));
	if (x.status != NVSVM_EXEC_OK)
		KTAP_FAIL_MSG("GPU op %u at %#llx: status %s (fault at %#llx, %s), expected OK within %u ms",
			      op->code, (unsigned long long)op->addr,
			      nvsvm_status_name(x.status),
			      (unsigned long long)x.fault_addr,
			      nvsvm_access_name(x.fault_access), ms);
	return KTAP_PASS;
}

/* GPU write of @v at @p within @ms: no livelock (EXEC TIMEOUT). */
static int gpu_write_within(struct fx *f, volatile uint64_t *p, uint64_t v,
			    uint32_t ms)
{
	struct nvsvm_op op = nvsvm_op_write(nvsvm_ptr(p), v);

	CHECK(gpu_ok_within(f, &op, ms));
	CHK_EQ(*p, v);
	return KTAP_PASS;
}

/* GPU sum of the @size bytes at @p within @ms: @want. */
static int gpu_sum_within(struct fx *f, const void *p, size_t size,
			  uint64_t want, uint32_t ms)
{
	struct nvsvm_op op = nvsvm_op_sum(nvsvm_ptr(p), size);

	CHECK(gpu_ok_within(f, &op, ms));
	if (op.result != want)
		KTAP_FAIL_MSG("GPU SUM of %zu bytes at %p: %#llx, expected %#llx",
			      size, p, (unsigned long long)op.result,
			      (unsigned long long)want);
	return KTAP_PASS;
}

TEST(map_thp_one_pte)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), before, after, mapped;
	struct fx f;
	int ret;

	THP_OPEN(&f, buf);
	ASSERT_PASS(areas_settled(0));
	ret = nvsvm_stat_read(0, "pt_bytes", &before);
	if (ret)
		SKIP(return, "debugfs pt_bytes: %s", strerror(-ret));
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(buf), BLOCK, 0, &mapped));
	ASSERT_EQ(BLOCK_PAGES, mapped);
	ASSERT_EQ(0, nvsvm_stat_read(0, "pt_bytes", &after));
	ASSERT_PASS(block_entries(&f, buf, e, 21));
	/* PD2, PD1 and PD0 below the root; no 4 KiB or 64 KiB table. */
	ASSERT_EQ(3 * 4096, after - before);
	/* Bounded: a PD0 entry the GPU does not find livelocks the EXEC. */
	ASSERT_PASS(gpu_sum_within(&f, buf, BLOCK, pat_sum(0, BLOCK / 8),
				   10000));
	ASSERT_PASS(gpu_write_within(&f, &buf[BLOCK / 8 - 1], 0xfeed, 10000));
	ASSERT_EQ(pat(BLOCK / 8 - 2), buf[BLOCK / 8 - 2]);
}

/*
 * The PD0 index, seen from the GPU: a block MAPped ahead (one 2 MiB PTE in
 * its PD0 entry where the kernel gave a THP, else a small-page table
 * there) between two blocks the GPU never touched, neither at either end
 * of its PD0 table. Three warps of one EXEC, bounded to 10 s, read a word
 * in each block at once: each must read its own block's data. The driver's
 * tables agree with themselves whatever the index (MAP and QUERY go through
 * the same one): with the index off by one, the GPU finds the middle
 * block's entry where it looks for a neighbour's and that warp reads the
 * middle block's data at once, while the middle block's read faults for
 * ever (the fault path finds it mapped) until the EXEC times out. A wrong
 * word, in seconds, not a hang until the program's timeout.
 */
TEST(pd0_index_neighbours)
{
	const uint64_t off = 5 * PAGE + 7 * 8;
	char *raw = anon(6 * BLOCK), *b;
	struct nvsvm_op ops[3];
	struct nvsvm_exec x;
	uint64_t *w, mapped, i, k, want, wrong;
	uint32_t q;
	struct fx f;

	ASSERT_MAP(raw);
	b = (char *)(((uintptr_t)raw + BLOCK - 1) & ~(BLOCK - 1));
	/* The middle block neither first nor last of its PD0 table. */
	k = ((uintptr_t)b / BLOCK + 1) % 256;
	if (k == 0 || k == 255)
		b += (k == 0 ? 1 : 2) * BLOCK;
	ASSERT_SYS(madvise(b + BLOCK, BLOCK, MADV_HUGEPAGE));
	w = (uint64_t *)b;
	for (i = 0; i < 3 * BLOCK / 8; i++)
		w[i] = pat(i);
	FX_OPEN(&f);
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b + BLOCK), BLOCK, 0, &mapped));
	ASSERT_EQ(BLOCK_PAGES, mapped);
	ASSERT_EQ(0, nvsvm_query(f.fd, nvsvm_ptr(b + BLOCK), 1, &q));
	TH_LOG("middle block: QUERY %#x (page shift %u)", q,
	       NVSVM_QUERY_SHIFT(q));
	ASSERT_NE(0, q & NVSVM_QUERY_VALID);
	for (k = 0; k < 3; k++)
		ops[k] = nvsvm_op_read(nvsvm_ptr(b + k * BLOCK + off));
	ASSERT_EQ(0, nvsvm_exec_flags(f.fd, f.chan, NVSVM_GPC_ANY,
				      NVSVM_EXEC_WARPS, ops, 3, 10000, &x));
	for (k = 0, wrong = 0; k < 3; k++) {
		want = pat((k * BLOCK + off) / 8);
		if (ops[k].result == want)
			continue;
		TH_LOG("block %llu of 3 (the middle one MAPped): the GPU read %#llx, expected %#llx",
		       (unsigned long long)k, (unsigned long long)ops[k].result,
		       (unsigned long long)want);
		wrong++;
	}
	ASSERT_EQ(0, wrong);
	ASSERT_EQ(NVSVM_EXEC_OK, x.status) {
		TH_LOG("status %s after %u of 3 reads, expected OK within 10 s",
		       nvsvm_status_name(x.status), x.done);
	}
}

TEST(fault_maps_whole_block)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block();
	uint64_t w = 300 * WORDS + 9;
	struct fx f;

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	/* The GPU touches the block first; one write fault. */
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[w]), 0x77), NULL));
	if (is_thp(&buf[w]) != 1 || anon_huge_kb(buf) < 2048)
		SKIP(return, "the kernel gave no THP for the block");
	ASSERT_PASS(block_entries(&f, buf, e, 21));
	ASSERT_EQ(0x77, buf[w]);
	ASSERT_PASS(cpu_check(buf, w, 0));
	ASSERT_PASS(gpu_read_eq(&f, &buf[BLOCK / 8 - 1], 0));
}

TEST(partial_map_64k)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), mapped;
	char *b;
	struct fx f;

	THP_OPEN(&f, buf);
	b = (char *)buf;
	/* Not the whole block: 64 KiB pages of the THP, 4 KiB at the edge. */
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b + 64 * 1024),
			       MiB + 3 * PAGE, 0, &mapped));
	ASSERT_EQ(MiB / PAGE + 3, mapped);
	ASSERT_PASS(query(&f, buf, BLOCK_PAGES, e));
	ASSERT_PASS(expect_invalid(e, 0, 16));
	ASSERT_PASS(expect_entries(e, 16, 16 + MiB / PAGE, 16, NVSVM_QUERY_WRITE));
	ASSERT_PASS(expect_entries(e, 16 + MiB / PAGE, 19 + MiB / PAGE, 12,
				   NVSVM_QUERY_WRITE));
	ASSERT_PASS(expect_invalid(e, 19 + MiB / PAGE, BLOCK_PAGES));
	ASSERT_PASS(gpu_sum_eq(&f, b + 64 * 1024, MiB, pat_sum(8192, MiB / 8)));
}

/*
 * Make page 37 read-only: the CPU splits the PMD. The 2 MiB PTE goes
 * whole; mapped again, the block gets 64 KiB pages where the run is
 * uniform, 4 KiB pages in the run of the read-only page.
 */
TEST(split_followed)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), mapped;
	char *b;
	struct fx f;

	THP_OPEN(&f, buf);
	b = (char *)buf;
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK, 0, &mapped));
	ASSERT_PASS(block_entries(&f, buf, e, 21));

	ASSERT_SYS(mprotect(b + 37 * PAGE, PAGE, PROT_READ));
	ASSERT_PASS(query(&f, buf, BLOCK_PAGES, e));
	ASSERT_PASS(expect_invalid(e, 0, BLOCK_PAGES));
	ASSERT_EQ(0, anon_huge_kb(b));

	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK, 0, &mapped));
	ASSERT_EQ(BLOCK_PAGES, mapped);
	ASSERT_PASS(query(&f, buf, BLOCK_PAGES, e));
	ASSERT_PASS(expect_entries(e, 0, 32, 16, NVSVM_QUERY_WRITE));
	ASSERT_PASS(expect_entries(e, 32, 37, 12, NVSVM_QUERY_WRITE));
	ASSERT_PASS(expect_entries(e, 37, 38, 12, 0));
	ASSERT_EQ(0, e[37] & NVSVM_QUERY_WRITE);
	ASSERT_PASS(expect_entries(e, 38, 48, 12, NVSVM_QUERY_WRITE));
	ASSERT_PASS(expect_entries(e, 48, BLOCK_PAGES, 16, NVSVM_QUERY_WRITE));
	ASSERT_PASS(gpu_sum_eq(&f, b, BLOCK, pat_sum(0, BLOCK / 8)));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_write(nvsvm_ptr(b + 37 * PAGE), 1),
			      nvsvm_ptr(b + 37 * PAGE), NVSVM_ACCESS_WRITE));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(b + 36 * PAGE), 5), NULL));
	ASSERT_EQ(5, buf[36 * WORDS]);
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
TEST_F_TIMEOUT(slow, collapse_followed, 60)
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
	ASSERT_PASS_SKIP(populate_thp(buf));
	b = (char *)buf;
	ASSERT_SYS(mprotect(b + PAGE, PAGE, PROT_READ));
	ASSERT_SYS(mprotect(b + PAGE, PAGE, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, anon_huge_kb(b));
	FX_OPEN(&f);
	/* Ask for write: mprotect may have left page 1 read-only. */
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK,
			       NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_PASS(block_entries(&f, buf, e, 16));

	if (write_sysfs(sleep_ms, "10", old, sizeof(old)))
		SKIP(return, "cannot set %s", sleep_ms);
	for (i = 0; i < 1500 && anon_huge_kb(b) < 2048; i++)
		nanosleep(&ts, NULL);
	write_sysfs(sleep_ms, old, NULL, 0);
	if (anon_huge_kb(b) < 2048)
		SKIP(return, "khugepaged did not collapse the block in 30 s");

	ASSERT_PASS(query(&f, buf, BLOCK_PAGES, e));
	ASSERT_PASS(expect_invalid(e, 0, BLOCK_PAGES));
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b), BLOCK, 0, &mapped));
	ASSERT_PASS(block_entries(&f, buf, e, 21));
	ASSERT_PASS(gpu_sum_eq(&f, b, BLOCK, pat_sum(0, BLOCK / 8)));
}

/*
 * Four neighbouring THP blocks, split, mapped with 64 KiB pages: each block
 * has its own big-page table, and those are 256 bytes, several to a page.
 * The GPU must reach every block through its own table: sums per block,
 * then a GPU fill of one block that leaves the others alone.
 */
#define NBLOCKS	4
TEST(lpts_side_by_side)
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
			SKIP(return, "the kernel gave no THP for block %llu",
			     (unsigned long long)k);
		/* Split the PMD: 4 KiB PTEs over contiguous pages. */
		ASSERT_SYS(mprotect(b + k * BLOCK, PAGE, PROT_READ));
		ASSERT_SYS(mprotect(b + k * BLOCK, PAGE,
				    PROT_READ | PROT_WRITE));
	}
	ASSERT_EQ(0, anon_huge_kb(b));
	FX_OPEN(&f);
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b), NBLOCKS * BLOCK,
			       NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(NBLOCKS * BLOCK_PAGES, mapped);
	ASSERT_PASS(query(&f, buf, NBLOCKS * BLOCK_PAGES, e));
	ASSERT_PASS(expect_entries(e, 0, NBLOCKS * BLOCK_PAGES, 16,
				   NVSVM_QUERY_WRITE));
	for (k = 0; k < NBLOCKS; k++) {
		ASSERT_PASS(gpu_sum_eq(&f, b + k * BLOCK, BLOCK,
				       pat_sum(k * BLOCK / 8, BLOCK / 8)));
	}
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_fill(nvsvm_ptr(b + 2 * BLOCK), BLOCK,
					      0x10b), NULL));
	for (i = 0; i < NBLOCKS * BLOCK / 8; i++) {
		uint64_t want = i / (BLOCK / 8) == 2 ? 0x10b : pat(i);

		ASSERT_EQ(want, buf[i]) {
			TH_LOG("word %llu: %#llx, expected %#llx",
			       (unsigned long long)i,
			       (unsigned long long)buf[i],
			       (unsigned long long)want);
		}
	}
}

/*
 * The CPU maps the THP at @b read-only although the page is exclusive
 * (the next CPU write fault makes the mapping writable in place, with no
 * mmu notifier): mprotect the block read-only and back (the PMD stays
 * read-only). With @split, mprotect page 0 too, which splits the PMD: the
 * pages keep read-only PTEs, physically contiguous, page 0 writable. (A
 * fork would not do here: a write to a PTE-mapped THP page the child
 * shared copies it, and the notifier drops the GPU mapping.)
 */
static int thp_wrprotect(char *b, int split)
{
	CHK_SYS(mprotect(b, BLOCK, PROT_READ));
	CHK_SYS(mprotect(b, BLOCK, PROT_READ | PROT_WRITE));
	if (split) {
		CHK_SYS(mprotect(b, PAGE, PROT_READ));
		CHK_SYS(mprotect(b, PAGE, PROT_READ | PROT_WRITE));
		CHK_EQ(anon_huge_kb(b), 0);
		/* khugepaged must not collapse it back meanwhile. */
		CHK_SYS(madvise(b, BLOCK, MADV_NOHUGEPAGE));
	}
	return KTAP_PASS;
}

/*
 * MAP the block without WRITE: pages [from, to) must then be read-only
 * PTEs of page shift @shift (skip if the kernel left them writable).
 */
static int map_ro(struct fx *f, char *b, uint32_t *e, uint64_t from,
		  uint64_t to, unsigned int shift)
{
	uint64_t mapped;

	CHK_OK(nvsvm_map(f->fd, nvsvm_ptr(b), BLOCK, 0, &mapped));
	CHK_EQ(mapped, BLOCK_PAGES);
	CHECK(query(f, b, BLOCK_PAGES, e));
	if (e[from] & NVSVM_QUERY_WRITE)
		HELPER_SKIP("the CPU maps the block writable: nothing read-only to test");
	CHECK(expect_entries(e, from, to, shift, 0));
	return expect_ro(e, from, to);
}

/*
 * @buf from thp_block(): populate it, split it read-only (thp_wrprotect()),
 * open @f, MAP it without WRITE: read-only 64 KiB PTEs from page 16 on.
 */
static int ro_64k_open(struct fx *f, uint64_t *buf, uint32_t *e)
{
	int ret;

	CHK_MAP(buf);
	ret = populate_thp(buf);
	if (ret != KTAP_PASS)
		return ret;
	CHECK(thp_wrprotect((char *)buf, 1));
	CHECK(fx_open(f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	return map_ro(f, (char *)buf, e, 16, BLOCK_PAGES, 16);
}

/*
 * MAP page 37 of the block at @b with WRITE, over a read-only large PTE:
 * QUERY (into @e) must show it writable at 4 KiB (a 4 KiB PTE written
 * under the valid large one would be shadowed by it), and the other pages
 * of its 64 KiB page still mapped, at 4 KiB.
 */
static int map_write_37(struct fx *f, char *b, uint32_t *e)
{
	uint64_t mapped;

	CHK_OK(nvsvm_map(f->fd, nvsvm_ptr(b + 37 * PAGE), PAGE,
			 NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	CHK_EQ(mapped, 1);
	CHECK(query(f, b, BLOCK_PAGES, e));
	CHECK(expect_entries(e, 37, 38, 12, NVSVM_QUERY_WRITE));
	CHECK(expect_entries(e, 32, 37, 12, 0));
	return expect_entries(e, 38, 48, 12, 0);
}

/* Close the area: no GPU mapping or table may be left behind. */
static int close_no_leak(struct fx *f)
{
	CHK_OK(nvsvm_close(f->fd));
	return stats_become(0, "pages_mapped", 0, "pt_bytes", 0);
}

/*
 * A read-only 64 KiB PTE over split THP pages the CPU maps read-only but
 * would make writable in place. MAP one page with WRITE: that page must
 * become a writable 4 KiB PTE (a 4 KiB PTE under the valid 64 KiB one
 * would be shadowed by it), the others of the 64 KiB page stay mapped
 * read-only, as the CPU maps them; the other 64 KiB pages are untouched.
 */
TEST(write_under_ro_64k)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), i;
	char *b = (char *)buf;
	struct fx f;

	ASSERT_PASS_SKIP(ro_64k_open(&f, buf, e));

	ASSERT_PASS(map_write_37(&f, b, e));
	ASSERT_PASS(expect_ro(e, 32, 37));
	ASSERT_PASS(expect_ro(e, 38, 48));
	ASSERT_PASS(expect_entries(e, 16, 32, 16, 0));
	ASSERT_PASS(expect_entries(e, 48, BLOCK_PAGES, 16, 0));
	ASSERT_PASS(expect_ro(e, 48, BLOCK_PAGES));

	ASSERT_PASS(gpu_write_within(&f, &buf[37 * WORDS + 5], 0x3737, 10000));
	for (i = 0; i < BLOCK / 8; i++) {
		if (i == 37 * WORDS + 5)
			continue;
		ASSERT_EQ(pat(i), buf[i]) {
			TH_LOG("word %llu: %#llx, expected %#llx",
			       (unsigned long long)i,
			       (unsigned long long)buf[i],
			       (unsigned long long)pat(i));
		}
	}
	ASSERT_PASS(gpu_sum_eq(&f, b, BLOCK, pat_sum(0, BLOCK / 8) -
			       pat(37 * WORDS + 5) + 0x3737));
	ASSERT_PASS(query(&f, buf, BLOCK_PAGES, e));
	ASSERT_PASS(expect_ro(e, 38, 48));
	ASSERT_PASS(close_no_leak(&f));
}

/*
 * The same 64 KiB page, written by the GPU without a MAP first: the write
 * fault must make the page writable and complete (it used to be served
 * again and again, as the new 4 KiB PTE stayed shadowed, until the EXEC
 * timed out). A bounded EXEC timeout: the write takes milliseconds.
 */
TEST(gpu_write_under_ro_64k)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block();
	char *b = (char *)buf;
	struct fx f;

	ASSERT_PASS_SKIP(ro_64k_open(&f, buf, e));

	ASSERT_PASS(gpu_write_within(&f, &buf[40 * WORDS], 0x4040, 10000));
	ASSERT_PASS(query(&f, buf, BLOCK_PAGES, e));
	ASSERT_PASS(expect_entries(e, 40, 41, 12, NVSVM_QUERY_WRITE));
	/*
	 * hmm_range_fault() write-faults from the first page asked to the
	 * end of the range: the CPU grants pages 41 and up; not those below.
	 */
	ASSERT_PASS(expect_entries(e, 32, 40, 12, 0));
	ASSERT_PASS(expect_ro(e, 32, 40));
	ASSERT_PASS(gpu_sum_eq(&f, b, BLOCK, pat_sum(0, BLOCK / 8) -
			       pat(40 * WORDS) + 0x4040));
	ASSERT_PASS(close_no_leak(&f));
}

/*
 * A read-only 2 MiB PTE over a THP the CPU maps with a read-only PMD after
 * a fork whose child exited (the next CPU write reuses the THP in place).
 * MAP of a 4 KiB page, then of a 64 KiB page inside it, with WRITE: each
 * becomes writable at its size; every other page stays mapped, with its
 * data.
 */
TEST(write_under_ro_2m)
{
	static uint32_t e[BLOCK_PAGES];
	uint64_t *buf = thp_block(), mapped;
	struct fx f;
	pid_t pid;
	char *b;

	ASSERT_MAP(buf);
	ASSERT_PASS_SKIP(populate_thp(buf));
	b = (char *)buf;
	pid = fork();
	ASSERT_SYS(pid);
	if (!pid)
		_exit(0);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(1, anon_huge_kb(b) >= 2048);
	FX_OPEN(&f);
	ASSERT_PASS_SKIP(map_ro(&f, b, e, 0, BLOCK_PAGES, 21));

	ASSERT_PASS(map_write_37(&f, b, e));
	ASSERT_PASS(expect_entries(e, 0, 32, 16, 0));
	ASSERT_PASS(expect_entries(e, 48, BLOCK_PAGES, 16, 0));

	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b + 64 * PAGE), 16 * PAGE,
			       NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(16, mapped);
	ASSERT_PASS(query(&f, buf, BLOCK_PAGES, e));
	ASSERT_PASS(expect_entries(e, 64, 80, 16, NVSVM_QUERY_WRITE));
	ASSERT_PASS(expect_entries(e, 37, 38, 12, NVSVM_QUERY_WRITE));

	ASSERT_PASS(gpu_write_within(&f, &buf[37 * WORDS], 0x37, 10000));
	ASSERT_PASS(gpu_write_within(&f, &buf[70 * WORDS], 0x70, 10000));
	ASSERT_PASS(gpu_sum_eq(&f, b, BLOCK, pat_sum(0, BLOCK / 8) -
			       pat(37 * WORDS) + 0x37 - pat(70 * WORDS) + 0x70));
	ASSERT_PASS(close_no_leak(&f));
}

/*
 * Teardown of a huge mirror must let the CPU go now and then. A sparse
 * mirror, one 4 KiB page (the zero page: no memory) in every 2 MiB block
 * of TEARDOWN_GIB GiB (less on a kernel too slow to set it up in
 * TEARDOWN_SETUP_S), costs a leaf table and a page per block: removing
 * it took many seconds (TCG) under the area's mutex without a reschedule.
 * It is torn down twice, by munmap (the notifier) and by close (the
 * release of the area), while a thread on the same CPU measures how long
 * it waits to run: it must get the CPU many times during the teardown,
 * i.e. never wait half of the teardown's time (or TEARDOWN_MIN_GAP_MS): a
 * teardown that never reschedules makes it wait nearly all of it (about
 * 90% for munmap, whose own CPU page-table zap reschedules). A ratio, so
 * that a slow or loaded host slows both alike. -DTEARDOWN_WATCHDOG=N
 * lowers the soft-lockup watchdog to N s for the case (a lockup after
 * twice that panics the VM); not by default: on a host at load 20 the
 * guest saw a 3 s "soft lockup" in a user page fault (a vCPU starved).
 */
#ifndef TEARDOWN_GIB
#define TEARDOWN_GIB		64
#endif
#define TEARDOWN_SETUP_S	30
#ifndef TEARDOWN_WATCHDOG
#define TEARDOWN_WATCHDOG	0
#endif
#define TEARDOWN_MIN_GAP_MS	100
#define WATCHDOG_THRESH		"/proc/sys/kernel/watchdog_thresh"

struct ticker {
	/* The teardown's span: 0 until it starts, and until it ends. */
	_Atomic uint64_t start_ns, end_ns;
	uint64_t max_gap_ns;
	pthread_t th;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Sleep 1 ms at a time; record the longest time between two wakeups, of
 * the part of it that lies inside the teardown. Before and after it the
 * teardown's thread sleeps (usleep(), pthread_join()), and a wakeup on an
 * idle CPU may come late: on the 7.3 debug kernel under TCG make check saw
 * waits of 1 to 3 s, and a trace showed one of 0.3 s that began after
 * munmap() had returned. That wait is not the teardown's.
 */
static void *ticker_thread(void *arg)
{
	struct timespec ms = { 0, 1000 * 1000 };
	struct ticker *t = arg;
	uint64_t last = now_ns(), now, from, to, start, end = 0;

	while (!end) {
		nanosleep(&ms, NULL);
		now = now_ns();
		start = atomic_load(&t->start_ns);
		end = atomic_load(&t->end_ns);
		from = last > start ? last : start;
		to = end && end < now ? end : now;
		if (start && to > from && to - from > t->max_gap_ns)
			t->max_gap_ns = to - from;
		last = now;
	}
	return NULL;
}

/*
 * The sparse mirror: map @p's zero pages, one per 2 MiB block, 1 GiB at a
 * time, up to *@gib GiB, or fewer once TEARDOWN_SETUP_S went by (a slow
 * kernel tears down slowly too); *@gib: the GiB mapped.
 */
static int sparse_mirror(struct fx *f, char *p, uint64_t *gib)
{
	uint64_t off, g, mapped, total = 0, t0 = now_ns();

	for (g = 0; g < *gib; g++) {
		char *q = p + (g << 30);

		if (now_ns() - t0 > TEARDOWN_SETUP_S * 1000000000ULL)
			break;
		for (off = 0; off < (1ULL << 30); off += BLOCK)
			(void)*(volatile char *)(q + off);
		CHK_OK(nvsvm_map(f->fd, nvsvm_ptr(q), 1ULL << 30, 0,
				 &mapped));
		CHK_EQ(mapped, (1ULL << 30) / BLOCK);
		total += mapped;
	}
	*gib = g;
	ktap_note("%llu pages mapped in %llu ms", (unsigned long long)total,
		  (unsigned long long)(now_ns() - t0) / 1000000);
	return KTAP_PASS;
}

/* Run @what (munmap or close of @f) with the ticker beside it. */
static int timed_teardown(struct fx *f, char *p, uint64_t size, int unmap)
{
	struct ticker t = { 0 };
	uint64_t t0, t1;
	int ret;

	CHK_EQ(pthread_create(&t.th, NULL, ticker_thread, &t), 0);
	usleep(20000);
	t0 = now_ns();
	atomic_store(&t.start_ns, t0);
	ret = unmap ? munmap(p, size) : nvsvm_close(f->fd);
	t1 = now_ns();
	atomic_store(&t.end_ns, t1);
	pthread_join(t.th, NULL);
	t0 = t1 - t0;
	CHK_EQ(ret, 0);
	ktap_note("%s: %llu ms, longest wait of a thread on the same CPU %llu ms",
		  unmap ? "munmap" : "close", (unsigned long long)t0 / 1000000,
		  (unsigned long long)t.max_gap_ns / 1000000);
	CHK_TRUE(t.max_gap_ns < t0 / 2 ||
		 t.max_gap_ns < TEARDOWN_MIN_GAP_MS * 1000000ULL,
		 "a thread on the teardown's CPU waited %llu ms of %llu",
		 (unsigned long long)t.max_gap_ns / 1000000,
		 (unsigned long long)t0 / 1000000);
	return KTAP_PASS;
}

TEST_F_TIMEOUT(slow, huge_teardown_reschedules, 600)
{
	const uint64_t size = (uint64_t)TEARDOWN_GIB << 30;
	uint64_t gib = TEARDOWN_GIB;
	char old[32] = "", val[16];
	cpu_set_t cpu;
	struct fx f;
	char *p;
	int ret;

	/* The teardown and the ticker share CPU 0. */
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	ASSERT_SYS(sched_setaffinity(0, sizeof(cpu), &cpu));
	if (TEARDOWN_WATCHDOG) {
		snprintf(val, sizeof(val), "%d", TEARDOWN_WATCHDOG);
		if (write_sysfs(WATCHDOG_THRESH, val, old, sizeof(old)))
			TH_LOG("cannot lower %s", WATCHDOG_THRESH);
	}
	FX_OPEN(&f);
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0);
	ASSERT_MAP(p == MAP_FAILED ? NULL : p);
	/* Not the huge zero page: one 4 KiB page per block. */
	ASSERT_SYS(madvise(p, size, MADV_NOHUGEPAGE));

	ret = sparse_mirror(&f, p, &gib);
	if (ret == KTAP_PASS)
		ret = timed_teardown(&f, p, size, 1);
	if (ret == KTAP_PASS)
		ret = stats_become(0, "pages_mapped", 0, NULL, 0);
	if (ret == KTAP_PASS) {
		p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED || madvise(p, size, MADV_NOHUGEPAGE))
			ret = KTAP_FAIL;
	}
	if (ret == KTAP_PASS)
		ret = sparse_mirror(&f, p, &gib);
	if (ret == KTAP_PASS)
		ret = timed_teardown(&f, p, size, 0);
	if (old[0])
		write_sysfs(WATCHDOG_THRESH, old, NULL, 0);
	ASSERT_PASS(ret);
	ASSERT_PASS(stats_become(0, "pages_mapped", 0, "pt_bytes", 0));
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
