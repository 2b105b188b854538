// SPDX-License-Identifier: GPL-2.0
/*
 * Device-private VRAM and NVSVM_IOCTL_MIGRATE: pages moved to VRAM are
 * mapped by the GPU with the VRAM aperture (QUERY) and keep their data for
 * GPU reads and writes; a CPU access brings a page back with its data;
 * fork, munmap and exit with pages in VRAM are correct and give the VRAM
 * back (debugfs vram_pages); migrating more than the VRAM evicts the VRAM
 * chunks used least recently (by migration and GPU fault history; with
 * evict_policy=uvm the ones allocated least recently) back to system memory, losing no GPU or CPU write; with a free-VRAM watermark
 * (evict_low) a background evictor does it ahead of the moves, leaving
 * thrashing-pinned blocks (evict_*); bad input fails with the
 * documented errno and changes nothing. With NVSVM_CAP_VRAM_2M (7.3) a
 * 2 MiB-aligned THP moves as one 2 MiB VRAM page the GPU maps with one
 * 2 MiB PTE and comes back as a THP, by a CPU touch, MIGRATE or eviction;
 * other sources fall back to 4 KiB pages (thp_*, evict_2m_folio; they skip
 * elsewhere).
 *
 * Where GET_INFO lacks NVSVM_CAP_DEVICE_PRIVATE (Debian's stock kernel has
 * no CONFIG_DEVICE_PRIVATE) every case but unsupported_or_works skips,
 * and that one checks MIGRATE fails with EOPNOTSUPP.
 *
 * Filling the default 64 MiB of VRAM takes minutes on the debug kernel,
 * so oversubscription runs in tests/guest-migrate.sh with nvsvm_vgpu
 * vram_mb=4:
 *   migrate              the cases below, with the modules' defaults
 *   migrate small-vram   oversubscription, eviction (of a 2 MiB VRAM
 *                        page too), LRU and the uvm policy (and a few
 *                        basic cases again) with a small VRAM
 *   migrate odd-vram     eviction with a partial last 2 MiB chunk
 *                        (nvsvm_vgpu vram_mb=3)
 *   migrate hold         for the unload test of tests/guest-migrate.sh:
 *                        migrate pages to VRAM, close the device, print
 *                        "ready", wait for SIGUSR1, then check the data
 *                        (exit 0) after the GPU went away under them
 *   migrate hold-2m      the same with a 2 MiB-aligned THP moved as one
 *                        2 MiB VRAM page (NVSVM_CAP_VRAM_2M, else exit 4)
 *   migrate hold-evict   the same with the background evictor busy (the
 *                        caller sets nvsvm.evict_low): 8 MiB of 4 KiB
 *                        pages to VRAM, close, rmmod nvsvm_vgpu at once,
 *                        check the data
 * Cases: TEST(), each opening the device after its own checks and memory;
 * main() drops from the harness's list the cases a mode does not run.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define TIMEOUT_MS	120000

#include "kselftest_harness.h"
#include "common.h"

#define NEED_DMEM() do {						\
	if (!(info.caps & NVSVM_CAP_DEVICE_PRIVATE))			\
		SKIP(return, "%s",					\
		     info.vram_size && (info.caps & NVSVM_CAP_EXEC) ?	\
		     "kernel without CONFIG_DEVICE_PRIVATE" :		\
		     "GPU without VRAM or copy engine");		\
	NEED_CAP(NVSVM_CAP_EXEC);					\
} while (0)

/* The start of most cases: NEED_DMEM, @n pages of the pattern, the fixture. */
#define DMEM_OPEN(f, buf, n) do {					\
	NEED_DMEM();							\
	buf = anon_filled((n) * PAGE);					\
	ASSERT_NE(NULL, buf);						\
	FX_OPEN(f);							\
} while (0)

static uint64_t pat(uint64_t i)
{
	return 0x3c3c000000000000ULL | i;
}

static uint64_t *anon_filled(size_t size)
{
	uint64_t *p = anon(size);
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < size / 8; i++)
		p[i] = pat(i);
	return p;
}

static int vram_pages(uint64_t *v)
{
	int ret = nvsvm_stat_read(0, "vram_pages", v);

	if (ret)
		KTAP_FAIL_MSG("debugfs vram_pages: %s", strerror(-ret));
	return KTAP_PASS;
}

/*
 * Wait until vram_pages is @want: pages are freed when the last mapping
 * goes, which for an exiting process may finish just after waitpid().
 */
static int vram_pages_become(uint64_t want)
{
	return stats_become(0, "vram_pages", want, NULL, 0);
}

static int migrate(struct fx *f, const void *p, size_t size, uint32_t target,
		   uint64_t want)
{
	uint64_t moved = ~0ULL;

	CHK_OK(nvsvm_migrate(f->fd, nvsvm_ptr(p), size, target, &moved));
	if (moved != want)
		KTAP_FAIL_MSG("MIGRATE %s of %zu pages at %p: moved %llu, expected %llu",
			      target == NVSVM_MIGRATE_TO_VRAM ? "to VRAM" :
			      "to sysmem", (size_t)(size / PAGE), p,
			      (unsigned long long)moved,
			      (unsigned long long)want);
	return KTAP_PASS;
}

/*
 * Move the @n pages at @p to VRAM: all of them move, and the debugfs
 * vram_pages grows by exactly @n from *@v0 (read before the move).
 */
static int to_vram_counted(struct fx *f, const void *p, size_t n,
			   uint64_t *v0)
{
	uint64_t v1;

	CHECK(vram_pages(v0));
	CHECK(migrate(f, p, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	CHECK(vram_pages(&v1));
	CHK_EQ(v1 - *v0, n);
	return KTAP_PASS;
}

#define ALIGN_UP(x, a)	(((x) + (a) - 1) / (a) * (a))

static uint64_t pat_sum(size_t first, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = first; i < first + n; i++)
		s += pat(i);
	return s;
}

static int cpu_pat(const volatile uint64_t *p, size_t first, size_t n)
{
	size_t i;

	for (i = first; i < first + n; i++)
		if (p[i] != pat(i))
			KTAP_FAIL_MSG("word %zu: %#llx, expected %#llx", i,
				      (unsigned long long)p[i],
				      (unsigned long long)pat(i));
	return KTAP_PASS;
}

/* MIGRATE works exactly when GET_INFO says so; EOPNOTSUPP otherwise. */
TEST(unsupported_or_works)
{
	uint64_t *buf = anon_filled(4 * PAGE);
	uint64_t moved = ~0ULL;
	struct fx f;
	int ret;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	FX_OPEN(&f);
	ret = nvsvm_migrate(f.fd, nvsvm_ptr(buf), 4 * PAGE,
			    NVSVM_MIGRATE_TO_VRAM, &moved);
	if (!(info.caps & NVSVM_CAP_DEVICE_PRIVATE)) {
		ASSERT_EQ(-EOPNOTSUPP, ret);
		TH_LOG("no NVSVM_CAP_DEVICE_PRIVATE: MIGRATE is EOPNOTSUPP");
	} else {
		ASSERT_EQ(0, ret);
		ASSERT_EQ(4, moved);
	}
	ASSERT_PASS(cpu_pat(buf, 0, 4 * WORDS));
}

/* To VRAM: GPU reads and writes the data there; back: the CPU sees both. */
TEST(gpu_uses_vram)
{
	const size_t n = 16;
	uint64_t *buf, v0;
	struct fx f;

	DMEM_OPEN(&f, buf, n);
	ASSERT_PASS(to_vram_counted(&f, buf, n, &v0));
	ASSERT_PASS(query_expect(&f, buf, n, IN_VRAM | NVSVM_QUERY_WRITE,
				 IN_VRAM | NVSVM_QUERY_WRITE));
	/* Already there: nothing moves again. */
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, 0));

	ASSERT_PASS(gpu_sum_eq(&f, buf, n * PAGE, pat_sum(0, n * WORDS)));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_fill(nvsvm_ptr(&buf[3 * WORDS]), PAGE,
					      0x7777), NULL));
	ASSERT_PASS(gpu_read_eq(&f, &buf[3 * WORDS + 5], 0x7777));
	ASSERT_PASS(query_expect(&f, buf, n, IN_VRAM, IN_VRAM));

	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_SYSMEM, n));
	ASSERT_PASS(vram_pages_become(v0));
	ASSERT_PASS(query_expect(&f, buf, n, NVSVM_QUERY_VRAM, 0));
	ASSERT_PASS(cpu_pat(buf, 0, 3 * WORDS));
	ASSERT_PASS(cpu_check(&buf[3 * WORDS], WORDS, 0x7777));
	ASSERT_PASS(cpu_pat(buf, 4 * WORDS, (n - 4) * WORDS));
}

/* A CPU access migrates that page back, data intact; the rest stays. */
TEST(cpu_touch_brings_back)
{
	const size_t n = 8;
	uint64_t *buf, s0, s1;
	struct fx f;

	DMEM_OPEN(&f, buf, n);
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[2 * WORDS + 1]),
					       0xabcdef), NULL));
	ASSERT_EQ(0, nvsvm_stat_read(0, "migrated_to_sysmem", &s0));
	/* CPU read of page 2, CPU write of page 5. */
	ASSERT_EQ(0xabcdef, buf[2 * WORDS + 1]);
	ASSERT_EQ(pat(2 * WORDS), buf[2 * WORDS]);
	buf[5 * WORDS + 7] = 0x5555;
	ASSERT_EQ(0, nvsvm_stat_read(0, "migrated_to_sysmem", &s1));
	ASSERT_EQ(2, s1 - s0);
	ASSERT_PASS(query_expect(&f, &buf[2 * WORDS], 1, NVSVM_QUERY_VRAM, 0));
	ASSERT_PASS(query_expect(&f, &buf[5 * WORDS], 1, NVSVM_QUERY_VRAM, 0));
	ASSERT_PASS(query_expect(&f, buf, 2, IN_VRAM, IN_VRAM));
	ASSERT_PASS(query_expect(&f, &buf[6 * WORDS], 2, IN_VRAM, IN_VRAM));
	/* The GPU sees the CPU's write (it faults the page in again). */
	ASSERT_PASS(gpu_read_eq(&f, &buf[5 * WORDS + 7], 0x5555));
	ASSERT_PASS(gpu_read_eq(&f, &buf[7 * WORDS + 9], pat(7 * WORDS + 9)));
	/* Every other word came back intact. */
	buf[2 * WORDS + 1] = pat(2 * WORDS + 1);
	buf[5 * WORDS + 7] = pat(5 * WORDS + 7);
	ASSERT_PASS(cpu_pat(buf, 0, n * WORDS));
}

/*
 * Make the next @n copies of the virtual GPU's copy engine fail with EIO
 * (its debugfs copy_fail); skip where there is no such knob.
 */
static int copy_fail(unsigned int n)
{
	char path[96];
	FILE *fp;

	if (!is_vgpu())
		HELPER_SKIP("not the virtual GP100 (nvsvm_vgpu)");
	snprintf(path, sizeof(path), NVSVM_VGPU_DEBUGFS_FMT "/copy_fail",
		 dev_index);
	fp = fopen(path, "w");
	if (!fp)
		HELPER_SKIP("%s: %s", path, strerror(errno));
	fprintf(fp, "%u\n", n);
	if (fclose(fp))
		KTAP_FAIL_MSG("write %s: %s", path, strerror(errno));
	return KTAP_PASS;
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* Read *@p; 1 in *@bus if that raised SIGBUS, else 0 and the value in *@v. */
static int read_or_sigbus(const volatile uint64_t *p, uint64_t *v, int *bus)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;

	CHK_SYS(sigaction(SIGBUS, &sa, &old));
	*bus = 0;
	if (!sigsetjmp(bus_jmp, 1))
		*v = *p;
	else
		*bus = 1;
	CHK_SYS(sigaction(SIGBUS, &old, NULL));
	return KTAP_PASS;
}

/*
 * A CPU access to a page in VRAM whose copy back fails gets SIGBUS (one
 * failed copy, injected). It used to get VM_FAULT_OOM, which retries the
 * access: with a copy that keeps failing, forever; here the retry's copy
 * worked and the read went through. The page stays in VRAM with its data,
 * and the next access brings it back.
 */
TEST(copy_failure_sigbus)
{
	const size_t n = 2;
	uint64_t *buf, v = 0, v0, v1;
	int bus;
	struct fx f;

	DMEM_OPEN(&f, buf, n);
	ASSERT_PASS(to_vram_counted(&f, buf, n, &v0));
	ASSERT_PASS(copy_fail(1));
	ASSERT_PASS(read_or_sigbus(&buf[WORDS + 3], &v, &bus));
	ASSERT_PASS(copy_fail(0));
	ASSERT_TRUE(bus) {
		TH_LOG("read %#llx, expected SIGBUS", (unsigned long long)v);
	}
	ASSERT_PASS(vram_pages(&v1));
	ASSERT_EQ(n, v1 - v0);
	ASSERT_PASS(read_or_sigbus(&buf[WORDS + 3], &v, &bus));
	ASSERT_EQ(0, bus);
	ASSERT_EQ(pat(WORDS + 3), v);
	ASSERT_PASS(vram_pages(&v1));
	ASSERT_EQ(n - 1, v1 - v0);
	ASSERT_PASS(cpu_pat(buf, 0, n * WORDS));
}

/* Never-touched anonymous memory moves as zero pages. */
TEST(untouched_moves_as_zero)
{
	const size_t n = 4;
	uint64_t *buf;
	struct fx f;

	NEED_DMEM();
	buf = anon(n * PAGE);
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	ASSERT_PASS(query_expect(&f, buf, n, IN_VRAM, IN_VRAM));
	ASSERT_PASS(gpu_sum_eq(&f, buf, n * PAGE, 0));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[WORDS]), 9), NULL));
	ASSERT_EQ(9, buf[WORDS]);
	ASSERT_PASS(cpu_check(buf, WORDS, 0));
	ASSERT_PASS(cpu_check(&buf[2 * WORDS], 2 * WORDS, 0));
}

/* Shared memory and holes do not move; the call still succeeds. */
TEST(best_effort_skips)
{
	uint64_t *shm, *buf;
	struct fx f;

	NEED_DMEM();
	shm = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(shm && (void *)shm != MAP_FAILED);
	shm[0] = 0x51;
	buf = anon_filled(8 * PAGE);
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_LE(0, (long)(munmap(&buf[2 * WORDS], 2 * PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, shm, 4 * PAGE, NVSVM_MIGRATE_TO_VRAM, 0));
	ASSERT_EQ(0x51, shm[0]);
	/* A hole in the middle: the 6 pages around it move. */
	ASSERT_PASS(migrate(&f, buf, 8 * PAGE, NVSVM_MIGRATE_TO_VRAM, 6));
	ASSERT_PASS(query_expect(&f, &buf[2 * WORDS], 2, NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(gpu_sum_eq(&f, &buf[4 * WORDS], 4 * PAGE,
			       pat_sum(4 * WORDS, 4 * WORDS)));
	ASSERT_PASS(cpu_pat(buf, 0, 2 * WORDS));
}

/*
 * fork with pages in VRAM: both sides share them copy-on-write. The parent
 * writes word 0 through the GPU first (the GPU must break the
 * copy-on-write of a device-private page), then the child checks it still
 * sees the old data everywhere and writes word 0 with the CPU; each side
 * sees only its own value, and the rest is intact on both.
 */
TEST(fork_with_vram)
{
	const size_t n = 4;
	volatile uint64_t *shared = ktap_shared(PAGE);
	int to_child[2];
	uint64_t *buf;
	char c = 0;
	struct fx f;
	pid_t pid;

	NEED_DMEM();
	buf = anon_filled(n * PAGE);
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_TRUE(shared && (void *)shared != MAP_FAILED);
	ASSERT_LE(0, (long)(pipe(to_child))) {
		TH_LOG("%s", strerror(errno));
	}
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	pid = fork();
	ASSERT_LE(0, (long)(pid)) {
		TH_LOG("%s", strerror(errno));
	}
	if (!pid) {
		size_t i;

		if (read(to_child[0], &c, 1) != 1)
			_exit(2);
		shared[2] = 1;
		for (i = 0; i < n * WORDS; i++)
			if (buf[i] != pat(i))
				shared[2] = 0;
		buf[0] = 0xc1c1;
		shared[0] = buf[0];
		_exit(0);
	}
	/* fork write-protected the parent's pages: so must the GPU be. */
	ASSERT_PASS(query_expect(&f, buf, n, NVSVM_QUERY_WRITE, 0));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[0]), 0xd1d1), NULL));
	ASSERT_PASS(gpu_read_eq(&f, &buf[0], 0xd1d1));
	ASSERT_PASS(gpu_sum_eq(&f, &buf[WORDS], (n - 1) * PAGE,
			       pat_sum(WORDS, (n - 1) * WORDS)));
	ASSERT_LE(0, (long)(write(to_child[1], &c, 1))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(1, shared[2]);
	ASSERT_EQ(0xc1c1, shared[0]);
	ASSERT_EQ(0xd1d1, buf[0]);
	ASSERT_PASS(cpu_pat(buf, 1, n * WORDS - 1));
}

/* munmap of pages in VRAM frees them at once. */
TEST(munmap_frees_vram)
{
	const size_t n = 32;
	uint64_t *buf, v0;
	struct fx f;

	DMEM_OPEN(&f, buf, n);
	ASSERT_PASS(to_vram_counted(&f, buf, n, &v0));
	ASSERT_LE(0, (long)(munmap(buf, n * PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(vram_pages_become(v0));
}

/*
 * A process that exits with pages in VRAM (fd still open, nothing
 * unmapped) gives them back; so does one that closed the fd first and
 * keeps running, its data still reachable.
 */
TEST(exit_frees_vram)
{
	const size_t n = 32;
	uint64_t *buf, v0;
	struct fx f;
	pid_t pid;

	NEED_DMEM();
	ASSERT_PASS(vram_pages(&v0));
	pid = fork();
	ASSERT_LE(0, (long)(pid)) {
		TH_LOG("%s", strerror(errno));
	}
	if (!pid) {
		uint64_t moved = 0;

		buf = anon_filled(n * PAGE);
		f.fd = nvsvm_open(0);
		if (!buf || f.fd < 0 || nvsvm_area_init(f.fd, WIN_ADDR, WIN_SIZE) ||
		    nvsvm_migrate(f.fd, nvsvm_ptr(buf), n * PAGE,
				  NVSVM_MIGRATE_TO_VRAM, &moved) || moved != n)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_PASS(vram_pages_become(v0));

	buf = anon_filled(n * PAGE);
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	close(f.fd);
	ASSERT_PASS(cpu_pat(buf, 0, WORDS));
	ASSERT_PASS(vram_pages_become(v0 + n - 1));
	ASSERT_LE(0, (long)(munmap(buf, n * PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(vram_pages_become(v0));
}

/* Read the debugfs counter @name into *@v. */
static int counter(const char *name, uint64_t *v)
{
	int ret = nvsvm_stat_read(0, name, v);

	if (ret)
		KTAP_FAIL_MSG("debugfs %s: %s", name, strerror(-ret));
	return KTAP_PASS;
}

#define BLOCK		(2 * MiB)
#define BLOCK_PAGES	(BLOCK / PAGE)

/*
 * @nb 2 MiB blocks of anonymous memory, 2 MiB aligned, without THP, filled
 * with pat(); NULL on failure.
 */
static uint64_t *blocks_filled(size_t nb)
{
	char *p = anon((nb + 1) * BLOCK);
	uint64_t *b;
	size_t i;

	if (!p)
		return NULL;
	b = (uint64_t *)(((uintptr_t)p + BLOCK - 1) & ~(BLOCK - 1));
	if (madvise(b, nb * BLOCK, MADV_NOHUGEPAGE))
		return NULL;
	for (i = 0; i < nb * BLOCK / 8; i++)
		b[i] = pat(i);
	return b;
}

/* Pages of [@p, @p + @n pages) the GPU maps in VRAM, into *@in. */
static int count_in_vram(struct fx *f, const void *p, size_t n, size_t *in)
{
	uint32_t q[512];
	size_t i, j, k;

	*in = 0;
	for (i = 0; i < n; i += k) {
		k = n - i < 512 ? n - i : 512;
		CHK_OK(nvsvm_query(f->fd, nvsvm_ptr((const char *)p + i * PAGE),
				   k, q));
		for (j = 0; j < k; j++)
			*in += (q[j] & IN_VRAM) == IN_VRAM;
	}
	return KTAP_PASS;
}

/* No page of [@p, @p + @n pages) is in VRAM. */
static int none_in_vram(struct fx *f, const void *p, size_t n)
{
	size_t in;

	CHECK(count_in_vram(f, p, n, &in));
	if (in)
		KTAP_FAIL_MSG("%zu of %zu pages at %p still in VRAM", in, n, p);
	return KTAP_PASS;
}

/*
 * A MIGRATE to VRAM of pages already there moves nothing and leaves them
 * mapped on the GPU: the move's migrate_vma_setup() invalidates the range
 * all the same, and the GPU then faulted every page back (issue 36 item
 * 1: the hot set of the oversubscription benchmark). After the second
 * MIGRATE, QUERY: valid, writable, in VRAM; a GPU SUM right, no fault.
 */
TEST(migrate_again_keeps_mapped)
{
	const size_t n = 16;
	uint64_t *buf, f0, f1, i0, i1;
	struct fx f;

	DMEM_OPEN(&f, buf, n);
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	ASSERT_PASS(query_expect(&f, buf, n, IN_VRAM | NVSVM_QUERY_WRITE,
				 IN_VRAM | NVSVM_QUERY_WRITE));
	/* All resident: not even unmapped, so no TLB invalidate. */
	ASSERT_EQ(0, vgpu_stat_read("invalidates", &i0));
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, 0));
	ASSERT_EQ(0, vgpu_stat_read("invalidates", &i1));
	ASSERT_EQ(0, i1 - i0);
	ASSERT_PASS(query_expect(&f, buf, n, IN_VRAM | NVSVM_QUERY_WRITE,
				 IN_VRAM | NVSVM_QUERY_WRITE));
	ASSERT_PASS(counter("faults", &f0));
	ASSERT_PASS(gpu_sum_eq(&f, buf, n * PAGE, pat_sum(0, n * WORDS)));
	ASSERT_PASS(counter("faults", &f1));
	ASSERT_EQ(0, f1 - f0);
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_SYSMEM, n));
	ASSERT_PASS(cpu_pat(buf, 0, n * WORDS));
}

/*
 * Oversubscription: four times the VRAM moves, page by page, evicting the
 * VRAM chunks used least recently back to system memory. The last block
 * moved is in VRAM, the first is not; the debugfs counters add up; the GPU
 * and then the CPU see every word.
 */
TEST(oversubscription)
{
	size_t vram = info.vram_size / PAGE, n, in;
	uint64_t *buf, moved = 0, e0, e1, p0, p1;
	struct fx f;

	NEED_DMEM();
	ASSERT_PASS(vram_pages_become(0));
	n = ALIGN_UP(4 * vram, BLOCK_PAGES);
	buf = blocks_filled(n / BLOCK_PAGES);
	ASSERT_NE(NULL, buf);
	FX_OPEN(&f);
	ASSERT_PASS(counter("evictions", &e0));
	ASSERT_PASS(counter("evicted_pages", &p0));
	ASSERT_EQ(0, nvsvm_migrate(f.fd, nvsvm_ptr(buf), n * PAGE,
				   NVSVM_MIGRATE_TO_VRAM, &moved));
	ASSERT_EQ(n, moved);
	ASSERT_PASS(counter("evictions", &e1));
	ASSERT_PASS(counter("evicted_pages", &p1));
	ASSERT_PASS(count_in_vram(&f, buf, n, &in));
	TH_LOG("%zu pages moved through %zu of VRAM: %llu evictions, %llu pages evicted, %zu in VRAM",
	       n, vram, (unsigned long long)(e1 - e0),
	       (unsigned long long)(p1 - p0), in);
	ASSERT_LT(0, e1 - e0);
	ASSERT_EQ(n - in, p1 - p0);
	ASSERT_PASS(query_expect(&f, &buf[(n - BLOCK_PAGES) * WORDS],
				 BLOCK_PAGES, IN_VRAM, IN_VRAM));
	ASSERT_PASS(none_in_vram(&f, buf, BLOCK_PAGES));
	ASSERT_PASS(gpu_sum_eq(&f, buf, n * PAGE, pat_sum(0, n * WORDS)));
	ASSERT_PASS(cpu_pat(buf, 0, n * WORDS));
	/* The CPU brought everything back. */
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_SYSMEM, 0));
	ASSERT_PASS(vram_pages_become(0));
}

/*
 * An eviction keeps what the GPU wrote in VRAM (block 0: a GPU copy of
 * other data) and what the CPU wrote before a page went (back) to VRAM
 * (block 1: one word, written while the page was in system memory, then
 * migrated again). Blocks 2 and 3 then push both out.
 */
TEST(eviction_keeps_writes)
{
	size_t vram = info.vram_size / PAGE, i, cw = 7 * WORDS + 3;
	uint64_t *buf, *src, e0, e1;
	struct fx f;

	NEED_DMEM();
	if (vram > 4 * BLOCK_PAGES)
		SKIP(return, "VRAM over 8 MiB (run with nvsvm_vgpu vram_mb=4)");
	ASSERT_PASS(vram_pages_become(0));
	buf = blocks_filled(4);
	src = anon(BLOCK);
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, src);
	for (i = 0; i < BLOCK / 8; i++)
		src[i] = ~pat(i);
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, buf, BLOCK, NVSVM_MIGRATE_TO_VRAM, BLOCK_PAGES));
	ASSERT_PASS(query_expect(&f, buf, BLOCK_PAGES, IN_VRAM, IN_VRAM));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_copy(nvsvm_ptr(buf), nvsvm_ptr(src),
					      BLOCK), NULL));
	ASSERT_PASS(query_expect(&f, buf, BLOCK_PAGES, IN_VRAM, IN_VRAM));

	ASSERT_PASS(migrate(&f, &buf[BLOCK / 8], BLOCK, NVSVM_MIGRATE_TO_VRAM,
			    BLOCK_PAGES));
	buf[BLOCK / 8 + cw] = 0xc0ffee;
	ASSERT_PASS(query_expect(&f, &buf[BLOCK / 8 + 7 * WORDS], 1,
				 NVSVM_QUERY_VRAM, 0));
	ASSERT_PASS(migrate(&f, &buf[BLOCK / 8], BLOCK, NVSVM_MIGRATE_TO_VRAM,
			    1));

	ASSERT_PASS(counter("evictions", &e0));
	ASSERT_PASS(migrate(&f, &buf[2 * BLOCK / 8], 2 * BLOCK,
			    NVSVM_MIGRATE_TO_VRAM, 2 * BLOCK_PAGES));
	ASSERT_PASS(counter("evictions", &e1));
	ASSERT_LT(0, e1 - e0);
	ASSERT_PASS(none_in_vram(&f, buf, 2 * BLOCK_PAGES));

	ASSERT_PASS(gpu_sum_eq(&f, &buf[BLOCK / 8], BLOCK,
			       pat_sum(BLOCK / 8, BLOCK / 8) -
			       pat(BLOCK / 8 + cw) + 0xc0ffee));
	for (i = 0; i < BLOCK / 8; i++)
		ASSERT_EQ(~pat(i), buf[i]) {
			TH_LOG("block 0 word %zu (GPU write)", i);
		}
	ASSERT_EQ(0xc0ffee, buf[BLOCK / 8 + cw]);
	buf[BLOCK / 8 + cw] = pat(BLOCK / 8 + cw);
	ASSERT_PASS(cpu_pat(buf, BLOCK / 8, 3 * BLOCK / 8));
}

/*
 * Least recently used, from GPU fault history, with an empty VRAM of chunk
 * 0 (512 pages, offset 0 never used) and chunk 1 of @nb pages: A fills
 * chunk 0 (511 pages, first fit), B chunk 1; the GPU faults A in again
 * (after UNMAP; with @again a MIGRATE of A, all in VRAM, tells the use
 * instead), so B's chunk is the one used least recently: a move of C
 * evicts exactly B's @nb pages, puts C there, and A stays. With @uvm
 * (evict_policy=uvm, NVIDIA UVM's allocation order, set by the caller) C's
 * move evicts A's 511 pages instead, the chunk allocated first although
 * the GPU used it last, and B stays. Every word is right, and the VRAM
 * empty once the CPU read everything back.
 */
static int evict_case(struct fx *f, uint64_t *buf, size_t nb, bool uvm,
		      bool again)
{
	const size_t na = BLOCK_PAGES - 1, nc = 16;
	uint64_t *a = buf, *b = &buf[BLOCK / 8], *c = &buf[2 * BLOCK / 8];
	uint64_t e0, e1, p0, p1;

	CHECK(counter("evictions", &e0));
	CHECK(counter("evicted_pages", &p0));
	CHECK(migrate(f, a, na * PAGE, NVSVM_MIGRATE_TO_VRAM, na));
	CHECK(migrate(f, b, nb * PAGE, NVSVM_MIGRATE_TO_VRAM, nb));
	CHECK(counter("evictions", &e1));
	CHK_EQ(e1, e0);
	CHECK(vram_pages_become(na + nb));

	if (again) {
		CHECK(migrate(f, a, na * PAGE, NVSVM_MIGRATE_TO_VRAM, 0));
	} else {
		CHK_OK(nvsvm_unmap(f->fd, nvsvm_ptr(a), na * PAGE));
		CHECK(query_expect(f, a, na, NVSVM_QUERY_VALID, 0));
		CHECK(gpu_sum_eq(f, a, na * PAGE, pat_sum(0, na * WORDS)));
	}
	CHECK(query_expect(f, a, na, IN_VRAM, IN_VRAM));

	CHECK(migrate(f, c, nc * PAGE, NVSVM_MIGRATE_TO_VRAM, nc));
	CHECK(counter("evictions", &e1));
	CHECK(counter("evicted_pages", &p1));
	CHK_EQ(e1 - e0, 1);
	CHK_EQ(p1 - p0, uvm ? na : nb);
	CHECK(vram_pages_become((uvm ? nb : na) + nc));
	CHECK(query_expect(f, uvm ? b : a, uvm ? nb : na, IN_VRAM, IN_VRAM));
	CHECK(none_in_vram(f, uvm ? a : b, uvm ? na : nb));
	CHECK(query_expect(f, c, nc, IN_VRAM, IN_VRAM));
	CHECK(gpu_sum_eq(f, b, nb * PAGE, pat_sum(BLOCK / 8, nb * WORDS)));
	CHECK(gpu_sum_eq(f, a, na * PAGE, pat_sum(0, na * WORDS)));
	CHECK(cpu_pat(buf, 0, BLOCK / 8 + nb * WORDS));
	CHECK(cpu_pat(buf, 2 * BLOCK / 8, nc * WORDS));
	return vram_pages_become(0);
}

/*
 * The 4 MiB VRAM (vram_mb=4): two whole chunks, empty (else skip); @buf
 * three blocks filled, @f open.
 */
#define SMALL_VRAM_OPEN(f, buf) do {					\
	NEED_DMEM();							\
	if (info.vram_size != 2 * BLOCK)				\
		SKIP(return, "VRAM not 4 MiB (run with nvsvm_vgpu vram_mb=4)");\
	ASSERT_PASS(vram_pages_become(0));				\
	buf = blocks_filled(3);						\
	ASSERT_NE(NULL, buf);						\
	FX_OPEN(f);							\
} while (0)

/* The 4 MiB VRAM (vram_mb=4): two whole chunks. */
TEST(lru_keeps_faulted)
{
	uint64_t *buf;
	struct fx f;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_PASS(evict_case(&f, buf, BLOCK_PAGES, false, false));
}

/*
 * The same with the use told by a MIGRATE of A that moves nothing (A all in
 * VRAM and mapped: the MIGRATE returns before migrate_vma_setup()): its
 * chunk still counts as used, and B's goes.
 */
TEST(lru_keeps_migrated)
{
	uint64_t *buf;
	struct fx f;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_PASS(evict_case(&f, buf, BLOCK_PAGES, false, true));
}

#define EVICT_POLICY	"/sys/module/nvsvm/parameters/evict_policy"

/*
 * Read nvsvm's evict_policy into @old (@n bytes, newline dropped) when
 * @old is not NULL, then write @v unless it is NULL. Return: 0 or -errno
 * (of the write: what the kernel refused).
 */
static int evict_policy(const char *v, char *old, size_t n)
{
	int fd = open(EVICT_POLICY, O_RDWR), ret = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	if (old) {
		r = pread(fd, old, n - 1, 0);
		if (r <= 0) {
			close(fd);
			return -EIO;
		}
		old[r] = '\0';
		old[strcspn(old, "\n")] = '\0';
	}
	if (v && pwrite(fd, v, strlen(v), 0) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The 4 MiB VRAM (vram_mb=4), the policy switched at run time on the same
 * memory: evict_case() with evict_policy=uvm (A evicted, B kept), then
 * with "lru\n" (B evicted, A kept); the policy before is put back.
 */
TEST(evict_policy_uvm_then_lru)
{
	char old[16];
	uint64_t *buf;
	struct fx f;
	int ret;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_EQ(0, evict_policy("uvm", old, sizeof(old)));
	ret = evict_case(&f, buf, BLOCK_PAGES, true, false);
	if (ret == KTAP_PASS) {
		ret = evict_policy("lru\n", NULL, 0);
		if (!ret)
			ret = evict_case(&f, buf, BLOCK_PAGES, false, false);
	}
	ASSERT_EQ(0, evict_policy(old, NULL, 0));
	ASSERT_PASS(ret);
}

/*
 * After @good, each of @bad[] is refused with EINVAL and @good still reads
 * back. Return: KTAP_PASS, or KTAP_FAIL with a note.
 */
static int policy_refuses(const char *good, const char *const *bad, size_t n)
{
	char now[16];
	size_t i;
	int ret;

	CHK_OK(evict_policy(good, NULL, 0));
	for (i = 0; i < n; i++) {
		ret = evict_policy(bad[i], NULL, 0);
		if (ret != -EINVAL)
			KTAP_FAIL_MSG("evict_policy \"%s\" after %s: %s, not EINVAL",
				      bad[i], good, strerror(-ret));
		CHK_OK(evict_policy(NULL, now, sizeof(now)));
		if (strcmp(now, good))
			KTAP_FAIL_MSG("evict_policy reads \"%s\" after \"%s\", not %s",
				      now, bad[i], good);
	}
	return KTAP_PASS;
}

/*
 * A bad evict_policy is refused with EINVAL and changes nothing: after
 * "uvm", each bad value leaves "uvm"; after "lru", "lru". (A write of no
 * byte never reaches the module: not tried.)
 */
TEST(evict_policy_bad_value)
{
	static const char *const bad[] = {
		"\n", "LRU", "uvm2", "lr", "fifo", "0", "uvm lru", " uvm",
	};
	char old[16];
	int ret;

	NEED_DMEM();
	ASSERT_EQ(0, evict_policy(NULL, old, sizeof(old)));
	ASSERT_STREQ("lru", old);
	ret = policy_refuses("uvm", bad, ARRAY_SIZE(bad));
	if (ret == KTAP_PASS)
		ret = policy_refuses("lru", bad, ARRAY_SIZE(bad));
	ASSERT_EQ(0, evict_policy(old, NULL, 0));
	ASSERT_PASS(ret);
}

/*
 * A partial last chunk (vram_mb=3: chunk 1 has 256 pages): its eviction
 * moves its 256 pages. The scan for the victim reads each chunk's bits in
 * use; the last one's must stop at the bitmap's end (it asked for 512, and
 * read past the end when none of the 256 was in use at that moment).
 */
TEST(evict_partial_chunk)
{
	uint64_t *buf;
	struct fx f;

	NEED_DMEM();
	if (info.vram_size != 3 * BLOCK / 2)
		SKIP(return, "VRAM not 3 MiB (run with nvsvm_vgpu vram_mb=3)");
	ASSERT_PASS(vram_pages_become(0));
	buf = blocks_filled(3);
	ASSERT_NE(NULL, buf);
	FX_OPEN(&f);
	ASSERT_PASS(evict_case(&f, buf, BLOCK_PAGES / 2, false, false));
}

/*
 * 2 MiB VRAM pages (NVSVM_CAP_VRAM_2M: the kernel has large device-private
 * folios, 7.3). NEED_2M skips elsewhere: there a THP moves as 4 KiB pages,
 * which the cases above cover.
 */
#define NEED_2M() do {							\
	NEED_DMEM();							\
	if (!(info.caps & NVSVM_CAP_VRAM_2M))				\
		SKIP(return, "no NVSVM_CAP_VRAM_2M: kernel without large device-private folios (MIGRATE_VMA_SELECT_COMPOUND)");\
} while (0)

/* @nb 2 MiB blocks, 2 MiB aligned, MADV_HUGEPAGE, untouched; or NULL. */
static uint64_t *thp_blocks(size_t nb)
{
	char *p = anon((nb + 1) * BLOCK);

	if (!p)
		return NULL;
	p = (char *)(((uintptr_t)p + BLOCK - 1) & ~(BLOCK - 1));
	if (madvise(p, nb * BLOCK, MADV_HUGEPAGE))
		return NULL;
	return (uint64_t *)p;
}

/* Fill block @b of @buf with pat(). */
static void block_fill(uint64_t *buf, size_t b)
{
	uint64_t *p = &buf[b * BLOCK / 8];
	size_t i;

	for (i = 0; i < BLOCK / 8; i++)
		p[i] = pat(b * BLOCK / 8 + i);
}

/* Fill block @b of @buf with pat(); skip unless it is a PMD-mapped THP. */
static int thp_filled(uint64_t *buf, size_t b)
{
	block_fill(buf, b);
	if (is_thp(&buf[b * BLOCK / 8]) != 1)
		HELPER_SKIP("the kernel gave no THP for block %zu", b);
	return KTAP_PASS;
}

/* The block at @p is a PMD-mapped THP in system memory again. */
static int is_thp_again(const void *p)
{
	if (is_thp(p) != 1)
		KTAP_FAIL_MSG("block %p: pagemap/kpageflags say no THP", p);
	if (anon_huge_kb(p) < 2048)
		KTAP_FAIL_MSG("block %p: AnonHugePages %ld kB", p,
			      anon_huge_kb(p));
	return KTAP_PASS;
}

/*
 * QUERY of the @n pages at @p: every one in VRAM, mapped by a 2 MiB PTE
 * (@large), or by smaller PTEs (!@large).
 */
static int range_in_vram(struct fx *f, const void *p, size_t n, bool large)
{
	uint32_t q[BLOCK_PAGES];
	size_t i;

	if (n > BLOCK_PAGES)
		KTAP_FAIL_MSG("range_in_vram: n %zu", n);
	CHK_OK(nvsvm_query(f->fd, nvsvm_ptr(p), n, q));
	for (i = 0; i < n; i++) {
		if ((q[i] & IN_VRAM) != IN_VRAM)
			KTAP_FAIL_MSG("page %zu of %p: %#x, not in VRAM", i, p,
				      q[i]);
		if ((NVSVM_QUERY_SHIFT(q[i]) == 21) != large)
			KTAP_FAIL_MSG("page %zu of %p: page shift %u, expected %s",
				      i, p, NVSVM_QUERY_SHIFT(q[i]),
				      large ? "21" : "below 21");
	}
	return KTAP_PASS;
}

/* The same for the 2 MiB block at @p. */
static int block_in_vram(struct fx *f, const void *p, bool large)
{
	return range_in_vram(f, p, BLOCK_PAGES, large);
}

/*
 * A 2 MiB-aligned THP moves to VRAM as one 2 MiB folio: 512 pages moved
 * into one whole VRAM chunk (vram_pages), mapped by one 2 MiB GPU PTE in
 * VRAM; the GPU reads and writes it; a CPU read of one word brings the
 * whole folio back (migrated_to_sysmem +512) as a THP again (pagemap's
 * THP bit, AnonHugePages), the GPU's write and the rest intact.
 */
TEST(thp_moves_as_2m)
{
	uint64_t *buf, v0, v1, s0, s1;
	struct fx f;

	NEED_2M();
	buf = thp_blocks(1);
	ASSERT_NE(NULL, buf);
	ASSERT_PASS_SKIP(thp_filled(buf, 0));
	FX_OPEN(&f);
	ASSERT_PASS(to_vram_counted(&f, buf, BLOCK_PAGES, &v0));
	ASSERT_PASS(block_in_vram(&f, buf, true));
	ASSERT_PASS(gpu_sum_eq(&f, buf, BLOCK, pat_sum(0, BLOCK / 8)));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_fill(nvsvm_ptr(&buf[300 * WORDS]),
					      PAGE, 0x2222), NULL));
	ASSERT_PASS(block_in_vram(&f, buf, true));

	ASSERT_PASS(counter("migrated_to_sysmem", &s0));
	ASSERT_EQ(pat(77 * WORDS + 5), buf[77 * WORDS + 5]);
	ASSERT_PASS(counter("migrated_to_sysmem", &s1));
	ASSERT_EQ(BLOCK_PAGES, s1 - s0);
	ASSERT_PASS(vram_pages(&v1));
	ASSERT_EQ(v0, v1);
	ASSERT_PASS(is_thp_again(buf));
	ASSERT_PASS(none_in_vram(&f, buf, BLOCK_PAGES));
	ASSERT_PASS(cpu_check(&buf[300 * WORDS], WORDS, 0x2222));
	ASSERT_PASS(cpu_pat(buf, 0, 300 * WORDS));
	ASSERT_PASS(cpu_pat(buf, 301 * WORDS, BLOCK / 8 - 301 * WORDS));
}

/*
 * MIGRATE to system memory of a 2 MiB VRAM folio brings it back whole as
 * a THP; a CPU write after it stays in system memory; an untouched,
 * aligned 2 MiB moves to VRAM as one zeroed folio too.
 */
TEST(thp_migrate_back_as_thp)
{
	uint64_t *buf, *zero, v0;
	struct fx f;

	NEED_2M();
	buf = thp_blocks(1);
	zero = thp_blocks(1);
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, zero);
	ASSERT_PASS_SKIP(thp_filled(buf, 0));
	FX_OPEN(&f);
	ASSERT_PASS(to_vram_counted(&f, buf, BLOCK_PAGES, &v0));
	ASSERT_PASS(block_in_vram(&f, buf, true));
	ASSERT_PASS(migrate(&f, buf, BLOCK, NVSVM_MIGRATE_TO_SYSMEM,
			    BLOCK_PAGES));
	ASSERT_PASS(vram_pages_become(v0));
	ASSERT_PASS(is_thp_again(buf));
	ASSERT_PASS(cpu_pat(buf, 0, BLOCK / 8));

	ASSERT_PASS(to_vram_counted(&f, zero, BLOCK_PAGES, &v0));
	ASSERT_PASS(block_in_vram(&f, zero, true));
	ASSERT_PASS(gpu_sum_eq(&f, zero, BLOCK, 0));
	ASSERT_PASS(migrate(&f, zero, BLOCK, NVSVM_MIGRATE_TO_SYSMEM,
			    BLOCK_PAGES));
	ASSERT_PASS(vram_pages_become(v0));
	ASSERT_PASS(cpu_check(zero, BLOCK / 8, 0));
}

/*
 * Where the source is no whole PMD-mapped THP the move falls back to
 * 4 KiB VRAM pages, data intact: a range that starts inside the THP, a
 * THP with one page dropped (MADV_DONTNEED splits its PMD: 511 pages and
 * a hole, which moves as zeroes), and a block without THP between two
 * THPs in one MIGRATE (those two move as 2 MiB folios).
 */
TEST(thp_fallback_4k)
{
	uint64_t *buf, v0;
	size_t in;
	struct fx f;

	NEED_2M();
	buf = thp_blocks(5);
	ASSERT_NE(NULL, buf);
	ASSERT_SYS(madvise(&buf[3 * BLOCK / 8], BLOCK, MADV_NOHUGEPAGE));
	ASSERT_PASS_SKIP(thp_filled(buf, 0));
	ASSERT_PASS_SKIP(thp_filled(buf, 1));
	ASSERT_PASS_SKIP(thp_filled(buf, 2));
	block_fill(buf, 3);
	ASSERT_PASS_SKIP(thp_filled(buf, 4));
	FX_OPEN(&f);

	/* Not aligned: pages 1..511 of block 0. */
	ASSERT_PASS(to_vram_counted(&f, &buf[WORDS], BLOCK_PAGES - 1, &v0));
	ASSERT_PASS(count_in_vram(&f, buf, BLOCK_PAGES, &in));
	ASSERT_EQ(BLOCK_PAGES - 1, in);
	ASSERT_PASS(range_in_vram(&f, &buf[WORDS], BLOCK_PAGES - 1, false));
	ASSERT_PASS(gpu_sum_eq(&f, buf, BLOCK, pat_sum(0, BLOCK / 8)));

	/* Block 1 with page 9 dropped: 4 KiB pages, page 9 zeroes. */
	ASSERT_SYS(madvise(&buf[BLOCK / 8 + 9 * WORDS], PAGE, MADV_DONTNEED));
	ASSERT_PASS(to_vram_counted(&f, &buf[BLOCK / 8], BLOCK_PAGES, &v0));
	ASSERT_PASS(block_in_vram(&f, &buf[BLOCK / 8], false));
	ASSERT_PASS(gpu_sum_eq(&f, &buf[BLOCK / 8], BLOCK,
			       pat_sum(BLOCK / 8, BLOCK / 8) -
			       pat_sum(BLOCK / 8 + 9 * WORDS, WORDS)));

	/* Blocks 2, 3, 4 in one MIGRATE: THP, no THP, THP. */
	ASSERT_PASS(to_vram_counted(&f, &buf[2 * BLOCK / 8], 3 * BLOCK_PAGES,
				    &v0));
	ASSERT_PASS(block_in_vram(&f, &buf[2 * BLOCK / 8], true));
	ASSERT_PASS(block_in_vram(&f, &buf[3 * BLOCK / 8], false));
	ASSERT_PASS(block_in_vram(&f, &buf[4 * BLOCK / 8], true));
	ASSERT_PASS(gpu_sum_eq(&f, &buf[2 * BLOCK / 8], 3 * BLOCK,
			       pat_sum(2 * BLOCK / 8, 3 * BLOCK / 8)));

	/* The CPU reads everything back. */
	ASSERT_PASS(cpu_pat(buf, 0, BLOCK / 8 + 9 * WORDS));
	ASSERT_PASS(cpu_check(&buf[BLOCK / 8 + 9 * WORDS], WORDS, 0));
	ASSERT_PASS(cpu_pat(buf, BLOCK / 8 + 10 * WORDS,
			    4 * BLOCK / 8 - 10 * WORDS));
	ASSERT_PASS(none_in_vram(&f, buf, 5 * BLOCK_PAGES));
}

/*
 * Eviction of a 2 MiB folio (the 4 MiB VRAM: chunk 0 has 511 pages to
 * give, chunk 1 is whole). THP A moves into chunk 1 as a 2 MiB folio, the
 * GPU writes a page of it; THP B finds no whole chunk free and falls back
 * to 4 KiB pages: 511 fill chunk 0, the last one evicts A's chunk (used
 * least recently), whose folio comes back to system memory as one THP
 * with the GPU's write, and takes a page there. Every word is right.
 */
TEST(evict_2m_folio)
{
	uint64_t *buf, *a, *b, e0, e1, p0, p1;
	struct fx f;

	NEED_2M();
	if (info.vram_size != 2 * BLOCK)
		SKIP(return, "VRAM not 4 MiB (run with nvsvm_vgpu vram_mb=4)");
	ASSERT_PASS(vram_pages_become(0));
	buf = thp_blocks(2);
	ASSERT_NE(NULL, buf);
	a = buf;
	b = &buf[BLOCK / 8];
	ASSERT_PASS_SKIP(thp_filled(buf, 0));
	ASSERT_PASS_SKIP(thp_filled(buf, 1));
	FX_OPEN(&f);
	ASSERT_PASS(counter("evictions", &e0));
	ASSERT_PASS(counter("evicted_pages", &p0));
	ASSERT_PASS(migrate(&f, a, BLOCK, NVSVM_MIGRATE_TO_VRAM, BLOCK_PAGES));
	ASSERT_PASS(block_in_vram(&f, a, true));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_fill(nvsvm_ptr(&a[42 * WORDS]), PAGE,
					      0x4242), NULL));

	ASSERT_PASS(migrate(&f, b, BLOCK, NVSVM_MIGRATE_TO_VRAM, BLOCK_PAGES));
	ASSERT_PASS(counter("evictions", &e1));
	ASSERT_PASS(counter("evicted_pages", &p1));
	ASSERT_EQ(1, e1 - e0);
	ASSERT_EQ(BLOCK_PAGES, p1 - p0);
	ASSERT_PASS(vram_pages_become(BLOCK_PAGES));
	ASSERT_PASS(block_in_vram(&f, b, false));
	ASSERT_PASS(none_in_vram(&f, a, BLOCK_PAGES));
	ASSERT_PASS(is_thp_again(a));
	ASSERT_PASS(cpu_check(&a[42 * WORDS], WORDS, 0x4242));
	ASSERT_PASS(cpu_pat(a, 0, 42 * WORDS));
	ASSERT_PASS(cpu_pat(a, 43 * WORDS, BLOCK / 8 - 43 * WORDS));
	ASSERT_PASS(gpu_sum_eq(&f, b, BLOCK, pat_sum(BLOCK / 8, BLOCK / 8)));
	ASSERT_PASS(cpu_pat(buf, BLOCK / 8, BLOCK / 8));
	ASSERT_PASS(vram_pages_become(0));
}

#define THRASH_PARAMS	"/sys/module/nvsvm/parameters/thrashing_"

/* Set nvsvm's thrashing_@name to @v, the value before in *@old; -errno. */
static int thrash_param(const char *name, unsigned int v, unsigned int *old)
{
	char path[96];

	snprintf(path, sizeof(path), THRASH_PARAMS "%s", name);
	return set_param(path, v, old);
}

static const char *const thrash_names[] = {
	"enable", "threshold", "lapse_usec", "pin"
};

/*
 * Set the four thrashing parameters to @v (in thrash_names[] order), the
 * values before in @old.
 */
static int thrash_params(const unsigned int *v, unsigned int *old)
{
	unsigned int i, j, dummy;
	int ret;

	for (i = 0; i < 4; i++) {
		ret = thrash_param(thrash_names[i], v[i], &old[i]);
		if (ret) {
			for (j = 0; j < i; j++)
				thrash_param(thrash_names[j], old[j], &dummy);
			KTAP_FAIL_MSG("%s%s: %s", THRASH_PARAMS,
				      thrash_names[i], strerror(-ret));
		}
	}
	return KTAP_PASS;
}

static void thrash_restore(const unsigned int *old)
{
	unsigned int i, dummy;

	for (i = 0; i < 4; i++)
		thrash_param(thrash_names[i], old[i], &dummy);
}

#define ROUNDS	8

/*
 * A thrashing case: @fn runs on @buf, a fresh 2 MiB block filled with
 * pat(), and the device @f (an area), with the thrashing parameters @v;
 * @thrashing and @skips: what the debugfs counters moved by meanwhile.
 */
struct thrash_run {
	const unsigned int *v;
	int (*fn)(struct thrash_run *r);
	const void *arg;
	struct fx f;
	uint64_t *buf;
	uint64_t moves[ROUNDS];
	uint64_t thrashing;
	uint64_t skips;
};

/* Run @r: set the parameters, run @r->fn, put the old ones back. */
static int thrash_run(struct thrash_run *r)
{
	uint64_t t0, t1, s0, s1;
	unsigned int old[4];
	int ret;

	r->buf = blocks_filled(1);
	if (!r->buf)
		KTAP_FAIL_MSG("mmap: %s", strerror(errno));
	CHECK(fx_open(&r->f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	CHECK(counter("thrashing", &t0));
	CHECK(counter("thrash_skips", &s0));
	CHECK(thrash_params(r->v, old));
	ret = r->fn(r);
	thrash_restore(old);
	CHECK(ret);
	CHECK(counter("thrashing", &t1));
	CHECK(counter("thrash_skips", &s1));
	r->thrashing = t1 - t0;
	r->skips = s1 - s0;
	return KTAP_PASS;
}

/*
 * ROUNDS rounds of a CPU/GPU ping-pong on the first page of the 4 pages
 * at @r->buf: MIGRATE them to VRAM (pages moved in @r->moves[round]), the
 * GPU writes word 0, the CPU reads it and writes word 1, the GPU reads
 * that.
 */
static int ping_pong(struct thrash_run *r)
{
	volatile uint64_t *buf = r->buf;
	unsigned int i;

	for (i = 0; i < ROUNDS; i++) {
		CHK_OK(nvsvm_migrate(r->f.fd, nvsvm_ptr(r->buf), 4 * PAGE,
				     NVSVM_MIGRATE_TO_VRAM, &r->moves[i]));
		CHECK(gpu_ok1(&r->f, nvsvm_op_write(nvsvm_ptr(&buf[0]),
						    0x6000 + i), NULL));
		CHK_EQ(buf[0], 0x6000 + i);
		buf[1] = 0x7000 + i;
		CHECK(gpu_read_eq(&r->f, &buf[1], 0x7000 + i));
	}
	return KTAP_PASS;
}

/*
 * CLOCK_MONOTONIC in ns: the clock the kernel stamps moves with
 * (ktime_get_ns()). A stamp taken inside a call lies between this clock's
 * readings before and after it, and a sleep of d puts d between the
 * readings around it, whatever the clock's resolution (some test VMs run
 * a 4 ms jiffies clock): the spacing of moves is bounded by construction.
 */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#define MS	1000000ULL	/* ns */

/*
 * MIGRATE the @n pages at @r->buf to VRAM: pages moved into *@moved, the
 * call's start and end into *@t0 and *@t1. The kernel stamps the block's
 * move between the two.
 */
static int mig_timed(struct thrash_run *r, size_t n, uint64_t *moved,
		     uint64_t *t0, uint64_t *t1)
{
	*t0 = mono_ns();
	CHK_OK(nvsvm_migrate(r->f.fd, nvsvm_ptr(r->buf), n * PAGE,
			     NVSVM_MIGRATE_TO_VRAM, moved));
	*t1 = mono_ns();
	return KTAP_PASS;
}

/* A CPU write of word @w (the value it holds): its page comes back. */
static void cpu_touch(struct thrash_run *r, size_t w)
{
	((volatile uint64_t *)r->buf)[w] = pat(w);
}

/* Sleep @ns, whole. */
static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL,
			       .tv_nsec = ns % 1000000000ULL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Rounds spaced by a sleep: @gap ns at least, all within @span_max. */
struct spacing {
	uint64_t gap;
	uint64_t span_max;
};

/*
 * ROUNDS rounds on the 4 pages at @r->buf: MIGRATE them to VRAM (pages
 * moved in @r->moves[round]), the CPU writes page 0 back, then a sleep of
 * @sp->gap (@sp = @r->arg): the kernel's time between two moves is at
 * least that. At most, it is the time from the start of a MIGRATE to the
 * end of the next: measured, it must stay under @sp->span_max, else the
 * case cannot tell what it is about.
 */
static int spaced_rounds(struct thrash_run *r)
{
	const struct spacing *sp = r->arg;
	uint64_t t0, t1, prev = 0, span = 0;
	unsigned int i;

	for (i = 0; i < ROUNDS; i++) {
		CHECK(mig_timed(r, 4, &r->moves[i], &t0, &t1));
		if (i && t1 - prev > span)
			span = t1 - prev;
		prev = t0;
		cpu_touch(r, 0);
		sleep_ns(sp->gap);
	}
	ktap_note("moves %llu ms apart at least, %llu ms at most",
		  (unsigned long long)(sp->gap / MS),
		  (unsigned long long)(span / MS));
	if (span >= sp->span_max)
		KTAP_FAIL_MSG("MIGRATEs up to %llu ms apart: the case needs under %llu ms",
			      (unsigned long long)(span / MS),
			      (unsigned long long)(sp->span_max / MS));
	return KTAP_PASS;
}

/*
 * Run the ping-pong, or with @sp the spaced rounds, with the thrashing
 * parameters @v; @want[round]: the pages each round's MIGRATE must move;
 * @pinned: the block must be found thrashing once. The data of every
 * round and of the other pages is checked.
 */
static int thrash_case(const unsigned int *v, const uint64_t *want,
		       int pinned, const struct spacing *sp)
{
	struct thrash_run r = { .v = v, .fn = sp ? spaced_rounds : ping_pong,
				.arg = sp };
	unsigned int i, skips = 0;

	CHECK(thrash_run(&r));
	for (i = 0; i < ROUNDS; i++) {
		if (r.moves[i] != want[i])
			KTAP_FAIL_MSG("round %u: MIGRATE moved %llu pages, expected %llu",
				      i, (unsigned long long)r.moves[i],
				      (unsigned long long)want[i]);
		skips += !want[i];
	}
	CHK_EQ(r.thrashing, (uint64_t)!!pinned);
	CHK_EQ(r.skips, (uint64_t)skips);
	/* Pages 1 to 3 went to VRAM in round 0 and stayed, data intact. */
	CHECK(query_expect(&r.f, &r.buf[WORDS], 3, IN_VRAM, IN_VRAM));
	CHECK(cpu_pat(r.buf, 2, 4 * WORDS - 2));
	close(r.f.fd);
	return KTAP_PASS;
}

/*
 * Thrashing: the third move to VRAM of a block, each within the lapse
 * (set to 60 s, so that the emulated machine's speed does not matter) of
 * the one before, makes it thrashing: later MIGRATEs leave it in system
 * memory (the GPU maps it there), the ping-pong goes on, data right.
 */
TEST(thrashing_pins_block)
{
	const unsigned int v[4] = { 1, 3, 60000000, 300 };
	const uint64_t want[ROUNDS] = { 4, 1, 1, 0, 0, 0, 0, 0 };

	NEED_DMEM();
	ASSERT_PASS(thrash_case(v, want, 1, NULL));
}

/*
 * Five rounds on the THP at @buf: MIGRATE it to VRAM (pages moved in
 * @moved[round]; in the first three as one 2 MiB VRAM page), then a CPU
 * read of one word, which brings the whole folio back.
 */
static int thp_rounds(struct fx *f, uint64_t *buf, uint64_t *moved)
{
	volatile uint64_t *p = buf;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		CHK_OK(nvsvm_migrate(f->fd, nvsvm_ptr(buf), BLOCK,
				     NVSVM_MIGRATE_TO_VRAM, &moved[i]));
		if (i < 3)
			CHECK(block_in_vram(f, buf, true));
		CHK_EQ(p[7], pat(7));
	}
	return KTAP_PASS;
}

/*
 * A 2 MiB VRAM page is one block to the thrashing history: a THP that
 * moves to VRAM whole and comes back whole three times (60 s lapse,
 * threshold 3) is pinned once, at the third move, and the next two
 * MIGRATEs leave it in system memory (thrash_skips +2); 512 pages moved
 * each of the first three times, data intact.
 */
TEST(thrashing_2m_folio)
{
	const unsigned int v[4] = { 1, 3, 60000000, 300 };
	const uint64_t want[5] = { BLOCK_PAGES, BLOCK_PAGES, BLOCK_PAGES, 0, 0 };
	uint64_t *buf, moved[5] = { 0 }, t0, t1, s0, s1;
	unsigned int old[4], i;
	struct fx f;
	int ret;

	NEED_2M();
	buf = thp_blocks(1);
	ASSERT_NE(NULL, buf);
	ASSERT_PASS_SKIP(thp_filled(buf, 0));
	FX_OPEN(&f);
	ASSERT_PASS(counter("thrashing", &t0));
	ASSERT_PASS(counter("thrash_skips", &s0));
	ASSERT_PASS(thrash_params(v, old));
	ret = thp_rounds(&f, buf, moved);
	thrash_restore(old);
	ASSERT_PASS(ret);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(want[i], moved[i]) {
			TH_LOG("round %u", i);
		}
	ASSERT_PASS(counter("thrashing", &t1));
	ASSERT_PASS(counter("thrash_skips", &s1));
	ASSERT_EQ(1, t1 - t0);
	ASSERT_EQ(2, s1 - s0);
	ASSERT_PASS(cpu_pat(buf, 0, BLOCK / 8));
}

/*
 * The ping-pong of nvsvm-bench's p on the 4 pages at @r->buf: MIGRATE them
 * to VRAM, the GPU fills them with the round's value, the CPU checks a
 * word of each and writes another, which takes all four back. The GPU
 * faults counted from the fourth round (the block pinned by then) to the
 * end: in *@r->arg.
 */
static int fill_rounds(struct thrash_run *r)
{
	volatile uint64_t *buf = r->buf;
	uint64_t *faults = (uint64_t *)r->arg, f0 = 0, f1;
	unsigned int i, p;

	for (i = 0; i < ROUNDS; i++) {
		if (i == 3)
			CHECK(counter("faults", &f0));
		CHK_OK(nvsvm_migrate(r->f.fd, nvsvm_ptr(r->buf), 4 * PAGE,
				     NVSVM_MIGRATE_TO_VRAM, &r->moves[i]));
		CHECK(gpu_ok1(&r->f, nvsvm_op_fill(nvsvm_ptr(r->buf), 4 * PAGE,
						   0x8000 + i), NULL));
		for (p = 0; p < 4; p++) {
			CHK_EQ(buf[p * WORDS + 1], 0x8000 + i);
			buf[p * WORDS] = 0x9000 + i;
		}
	}
	CHECK(counter("faults", &f1));
	*faults = f1 - f0;
	return KTAP_PASS;
}

/*
 * A pinned block costs the GPU no fault: the MIGRATE that leaves it in
 * system memory maps its pages there, as a move maps what it moved. The
 * third move pins the block (60 s lapse); the CPU had taken its four
 * pages back, so the GPU held no PTE of them. Before: the fill of every
 * first pinned round faulted them in again (fault batches, each paying
 * the model's fault latency: the ping-pong ran slower with detection on
 * than off, issue 36 item 2).
 */
TEST(thrashing_pinned_block_mapped)
{
	const unsigned int v[4] = { 1, 3, 60000000, 300 };
	uint64_t faults = ~0ULL;
	struct thrash_run r = { .v = v, .fn = fill_rounds, .arg = &faults };
	unsigned int i;

	NEED_DMEM();
	ASSERT_PASS(thrash_run(&r));
	for (i = 0; i < ROUNDS; i++)
		ASSERT_EQ(i < 3 ? 4 : 0, r.moves[i]);
	ASSERT_EQ(1, r.thrashing);
	ASSERT_EQ(ROUNDS - 3, r.skips);
	ASSERT_EQ(0, faults);
	/* Valid on the GPU, in system memory, writable. */
	ASSERT_PASS(query_expect(&r.f, r.buf, 4,
				 IN_VRAM | NVSVM_QUERY_WRITE,
				 NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE));
	close(r.f.fd);
}

/*
 * With detection off (nvsvm.thrashing_enable=0), every round moves. (Moves
 * further apart than the lapse: thrashing_default_lapse_spaced.)
 */
TEST(thrashing_off)
{
	const unsigned int off[4] = { 0, 3, 60000000, 300 };
	const uint64_t want[ROUNDS] = { 4, 1, 1, 1, 1, 1, 1, 1 };

	NEED_DMEM();
	ASSERT_PASS(thrash_case(off, want, 0, NULL));
}

/*
 * Pin a block by a ping-pong (60 s lapse), munmap it and map fresh memory
 * at the same address: the new memory moves to VRAM at once, because a
 * munmap forgets the block's history (before: the pin carried over, so
 * MIGRATE skipped the new memory for 300 lapses). Its pages moved: in
 * *@r->arg.
 */
static int remap_after_pin(struct thrash_run *r)
{
	uint64_t *buf = r->buf, *moved = (uint64_t *)r->arg;
	size_t i;

	CHECK(ping_pong(r));
	if (munmap(buf, BLOCK))
		KTAP_FAIL_MSG("munmap: %s", strerror(errno));
	if (mmap(buf, BLOCK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != buf)
		KTAP_FAIL_MSG("mmap at the old address: %s", strerror(errno));
	if (madvise(buf, BLOCK, MADV_NOHUGEPAGE))
		KTAP_FAIL_MSG("madvise: %s", strerror(errno));
	for (i = 0; i < 4 * WORDS; i++)
		buf[i] = pat(i);
	CHK_OK(nvsvm_migrate(r->f.fd, nvsvm_ptr(buf), 4 * PAGE,
			     NVSVM_MIGRATE_TO_VRAM, moved));
	return KTAP_PASS;
}

TEST(munmap_forgets_thrashing)
{
	const unsigned int v[4] = { 1, 3, 60000000, 300 };
	uint64_t moved = 0;
	struct thrash_run r = { .v = v, .fn = remap_after_pin,
				.arg = &moved };

	NEED_DMEM();
	ASSERT_PASS(thrash_run(&r));
	/* Pinned before the munmap: the last rounds moved nothing. */
	ASSERT_EQ(0, r.moves[ROUNDS - 1]);
	ASSERT_EQ(ROUNDS - 3, r.skips);
	/* The new memory moved, all four pages, and its data is right. */
	ASSERT_EQ(4, moved);
	ASSERT_PASS(query_expect(&r.f, r.buf, 4, IN_VRAM, IN_VRAM));
	ASSERT_PASS(cpu_pat(r.buf, 0, 4 * WORDS));
	close(r.f.fd);
}

/*
 * The default lapse, 500 us: moves 20 ms apart (a sleep between rounds)
 * are never within it, so no block is ever thrashing: every round moves.
 * Were the lapse read in milliseconds (500 ms, over the rounds' spacing,
 * checked) the third move would pin the block.
 */
TEST(thrashing_default_lapse_spaced)
{
	const unsigned int v[4] = { 1, 3, 500, 300 };
	const uint64_t want[ROUNDS] = { 4, 1, 1, 1, 1, 1, 1, 1 };
	const struct spacing sp = { 20 * MS, 500 * MS };

	NEED_DMEM();
	ASSERT_PASS(thrash_case(v, want, 0, &sp));
}

/*
 * Moves within the lapse make the block thrashing at the third: a 1 s
 * lapse, moves at least 10 ms apart (a sleep) and at most 1 s (measured,
 * checked). Under emulation three MIGRATE calls cannot be made within
 * 500 us, and one call counts one move per block (see
 * thrashing_three_vma_block), so the lapse is set to what the rounds
 * provably fit in. Were it read in nanoseconds (1 us), no move would be
 * within it and every round would move.
 */
TEST(thrashing_within_lapse)
{
	const unsigned int v[4] = { 1, 3, 1000000, 300 };
	const uint64_t want[ROUNDS] = { 4, 1, 1, 0, 0, 0, 0, 0 };
	const struct spacing sp = { 10 * MS, 1000 * MS };

	NEED_DMEM();
	ASSERT_PASS(thrash_case(v, want, 1, &sp));
}

/*
 * The end of a pin, with the default lapse (500 us): threshold 1 pins the
 * block at its first move, for 4000 lapses (2 s). 20 ms later MIGRATE
 * skips it (checked: within the 2 s); 2.2 s after the first move it moves
 * again (and is pinned again). Were the lapse read in nanoseconds the pin
 * would be 2 ms and the second MIGRATE would move; in milliseconds, 2000 s
 * and the third would not.
 */
static int pin_ends(struct thrash_run *r)
{
	uint64_t t[6], now;

	CHECK(mig_timed(r, 4, &r->moves[0], &t[0], &t[1]));
	cpu_touch(r, 0);
	sleep_ns(20 * MS);
	CHECK(mig_timed(r, 4, &r->moves[1], &t[2], &t[3]));
	ktap_note("second MIGRATE %llu to %llu ms after the first's start",
		  (unsigned long long)((t[2] - t[0]) / MS),
		  (unsigned long long)((t[3] - t[0]) / MS));
	/* It must come inside the 2 s pin to mean anything. */
	if (t[3] - t[0] >= 2000 * MS)
		KTAP_FAIL_MSG("the second MIGRATE ended after the pin");
	CHECK(query_expect(&r->f, r->buf, 1, NVSVM_QUERY_VRAM, 0));
	/* The pin ends 2 s after a stamp taken before t[1]. */
	now = mono_ns();
	if (now < t[1] + 2200 * MS)
		sleep_ns(t[1] + 2200 * MS - now);
	CHECK(mig_timed(r, 4, &r->moves[2], &t[4], &t[5]));
	CHECK(query_expect(&r->f, r->buf, 4, IN_VRAM, IN_VRAM));
	return KTAP_PASS;
}

TEST(thrashing_pin_ends)
{
	const unsigned int v[4] = { 1, 1, 500, 4000 };
	struct thrash_run r = { .v = v, .fn = pin_ends };

	NEED_DMEM();
	ASSERT_PASS(thrash_run(&r));
	ASSERT_EQ(4, r.moves[0]);
	ASSERT_EQ(0, r.moves[1]);
	ASSERT_EQ(1, r.moves[2]);
	ASSERT_EQ(2, r.thrashing);
	ASSERT_EQ(1, r.skips);
	ASSERT_PASS(cpu_pat(r.buf, 0, 4 * WORDS));
	close(r.f.fd);
}

/*
 * Issue 32 d5: one MIGRATE of a block made of three VMAs (the middle one
 * read-only) is one move of the block, not three. With a 60 s lapse the
 * block becomes thrashing at the third MIGRATE that moves pages of it,
 * the fourth is skipped. Before: the first MIGRATE counted each VMA's
 * piece as a move and pinned the block, so the second moved nothing.
 * The debugfs thrashing after each round, less the one before: in
 * @r->arg.
 */
static int three_vma_rounds(struct thrash_run *r)
{
	uint64_t *thr = (uint64_t *)r->arg, t0, t1, base;
	const size_t n = 12;
	unsigned int i;

	/* Pages 0-3 read-write, 4-7 read-only, 8-11 read-write: 3 VMAs. */
	if (mprotect(&r->buf[4 * WORDS], 4 * PAGE, PROT_READ))
		KTAP_FAIL_MSG("mprotect: %s", strerror(errno));
	CHECK(counter("thrashing", &base));
	for (i = 0; i < 4; i++) {
		/* The page the CPU took back last (none before round 0). */
		const void *last = &r->buf[(i % 2) * 8 * WORDS];

		CHECK(mig_timed(r, n, &r->moves[i], &t0, &t1));
		CHECK(counter("thrashing", &thr[i]));
		thr[i] -= base;
		if (i == 0)
			CHECK(query_expect(&r->f, r->buf, n, IN_VRAM, IN_VRAM));
		else if (r->moves[i])
			CHECK(query_expect(&r->f, last, 1, IN_VRAM, IN_VRAM));
		else
			CHECK(query_expect(&r->f, last, 1, NVSVM_QUERY_VRAM, 0));
		/* Page 8 (third VMA) in even rounds, page 0 in odd ones. */
		cpu_touch(r, (i % 2 ? 0 : 8) * WORDS);
	}
	return KTAP_PASS;
}

TEST(thrashing_three_vma_block)
{
	const unsigned int v[4] = { 1, 3, 60000000, 300 };
	uint64_t thr[4];
	struct thrash_run r = { .v = v, .fn = three_vma_rounds, .arg = thr };

	NEED_DMEM();
	ASSERT_PASS(thrash_run(&r));
	ASSERT_EQ(12, r.moves[0]);
	ASSERT_EQ(0, thr[0]);
	ASSERT_EQ(1, r.moves[1]);
	ASSERT_EQ(0, thr[1]);
	ASSERT_EQ(1, r.moves[2]);
	ASSERT_EQ(1, thr[2]);
	ASSERT_EQ(0, r.moves[3]);
	ASSERT_EQ(1, thr[3]);
	ASSERT_EQ(1, r.skips);
	ASSERT_PASS(cpu_pat(r.buf, 0, 12 * WORDS));
	close(r.f.fd);
}

/*
 * The free-VRAM watermark and the background evictor (nvsvm.evict_low,
 * evict_high: free VRAM in 2 MiB chunks; 0, the default, no evictor).
 */
#define EVICT_MARK	"/sys/module/nvsvm/parameters/evict_"

/* Set nvsvm's evict_@name (low, high) to @v, the value before in *@old. */
static int evict_mark(const char *name, unsigned int v, unsigned int *old)
{
	char path[80];

	snprintf(path, sizeof(path), EVICT_MARK "%s", name);
	return set_param(path, v, old);
}

/* Turn the evictor off (evict_low, then evict_high, 0). */
static int evict_marks_off(void)
{
	int ret = evict_mark("low", 0, NULL);

	return ret ? ret : evict_mark("high", 0, NULL);
}

/*
 * Wait until the debugfs counter @name is at least @min (about 5 s at
 * most): the evictor runs in a work item, and counts each pass at its end.
 */
static int counter_reaches(const char *name, uint64_t min)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 500; i++) {
		CHECK(counter(name, &v));
		if (v >= min)
			return KTAP_PASS;
		usleep(10000);
	}
	KTAP_FAIL_MSG("debugfs %s %llu, expected at least %llu", name,
		      (unsigned long long)v, (unsigned long long)min);
}

/* The counters the evictor cases compare. */
enum { EV_EVICTIONS, EV_BG, EV_PAGES, EV_RUNS, EV_SYNC_NS, EV_N };
static const char *const ev_names[EV_N] = {
	"evictions", "evictions_bg", "evicted_pages", "evictor_runs",
	"ns_evict_sync",
};

static int ev_read(uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < EV_N; i++)
		CHECK(counter(ev_names[i], &v[i]));
	return KTAP_PASS;
}

/*
 * The 4 MiB VRAM (1023 pages; one chunk's worth is the most a watermark
 * keeps free), evict_low 1: A (511 pages, all of chunk 0) moves, the GPU
 * writes all of it (a copy of other data), and 512 pages are still free:
 * no eviction. B's 16 pages go below the watermark: the evictor evicts
 * A's chunk (the one used least recently) in the background, exactly its
 * 511 pages, and no move waited for an eviction (ns_evict_sync unchanged);
 * then B alone is in VRAM, free pages >= 512, and the CPU finds every word
 * of A (the GPU's) and of B.
 */
static int watermark_case(struct fx *f, uint64_t *buf)
{
	const size_t na = BLOCK_PAGES - 1, nb = 16;
	uint64_t *a = buf, *b = &buf[BLOCK / 8], *src, v0[EV_N], v1[EV_N];
	size_t i;

	src = anon(na * PAGE);
	if (!src)
		KTAP_FAIL_MSG("mmap: %s", strerror(errno));
	for (i = 0; i < na * WORDS; i++)
		src[i] = ~pat(i);
	CHECK(ev_read(v0));
	CHECK(migrate(f, a, na * PAGE, NVSVM_MIGRATE_TO_VRAM, na));
	CHECK(gpu_ok1(f, nvsvm_op_copy(nvsvm_ptr(a), nvsvm_ptr(src),
				       na * PAGE), NULL));
	CHECK(query_expect(f, a, na, IN_VRAM, IN_VRAM));
	CHECK(ev_read(v1));
	CHK_EQ(v1[EV_EVICTIONS], v0[EV_EVICTIONS]);
	CHK_EQ(v1[EV_RUNS], v0[EV_RUNS]);

	CHECK(migrate(f, b, nb * PAGE, NVSVM_MIGRATE_TO_VRAM, nb));
	CHECK(counter_reaches("evictor_runs", v0[EV_RUNS] + 1));
	CHECK(vram_pages_become(nb));
	CHECK(ev_read(v1));
	ktap_note("evictor: %llu runs, %llu chunks, %llu pages; %llu ns waited",
	       (unsigned long long)(v1[EV_RUNS] - v0[EV_RUNS]),
	       (unsigned long long)(v1[EV_BG] - v0[EV_BG]),
	       (unsigned long long)(v1[EV_PAGES] - v0[EV_PAGES]),
	       (unsigned long long)(v1[EV_SYNC_NS] - v0[EV_SYNC_NS]));
	CHK_EQ(v1[EV_BG] - v0[EV_BG], 1);
	CHK_EQ(v1[EV_EVICTIONS] - v0[EV_EVICTIONS], 1);
	CHK_EQ(v1[EV_PAGES] - v0[EV_PAGES], na);
	CHK_EQ(v1[EV_SYNC_NS], v0[EV_SYNC_NS]);
	CHECK(none_in_vram(f, a, na));
	CHECK(query_expect(f, b, nb, IN_VRAM, IN_VRAM));
	for (i = 0; i < na * WORDS; i++)
		if (a[i] != ~pat(i))
			KTAP_FAIL_MSG("A word %zu: %#llx, expected %#llx (GPU write)",
				      i, (unsigned long long)a[i],
				      (unsigned long long)~pat(i));
	CHECK(cpu_pat(buf, BLOCK / 8, nb * WORDS));
	munmap(src, na * PAGE);
	return vram_pages_become(0);
}

/* @fn on @f and @buf with evict_low 1, the evictor off again after. */
static int with_low1(struct fx *f, uint64_t *buf,
		     int (*fn)(struct fx *f, uint64_t *buf))
{
	int ret;

	CHK_OK(evict_mark("low", 1, NULL));
	ret = fn(f, buf);
	CHK_OK(evict_marks_off());
	return ret;
}

TEST(evict_watermark_holds)
{
	uint64_t *buf;
	struct fx f;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_PASS(with_low1(&f, buf, watermark_case));
}

/* A MIGRATE of the @n pages at @p in @dir that moves at most @n. */
static int migrate_at_most(struct fx *f, uint64_t *p, size_t n, uint32_t dir)
{
	uint64_t moved;

	CHK_OK(nvsvm_migrate(f->fd, nvsvm_ptr(p), n * PAGE, dir, &moved));
	CHK_TRUE(moved <= n, "moved %llu of %zu", (unsigned long long)moved, n);
	return KTAP_PASS;
}

/*
 * MIGRATEs racing the evictor on the same chunk (4 MiB VRAM, evict_low
 * 1): ROUNDS times, A (511 pages) moves to VRAM, B's 16 pages then kick
 * the evictor, which evicts A's chunk while A moves back to system memory
 * (MIGRATE) and then to VRAM again, and the GPU sums A wherever its pages
 * are. Whichever takes a page first moves it; no move fails, none moves
 * more than asked, every GPU sum and then every CPU word is right, and the
 * VRAM is empty at the end. The evictor ran (evictor_runs).
 */
static int race_case(struct fx *f, uint64_t *buf)
{
	const size_t na = BLOCK_PAGES - 1, nb = 16;
	uint64_t *a = buf, *b = &buf[BLOCK / 8], v0[EV_N], v1[EV_N];
	unsigned int r;

	CHECK(ev_read(v0));
	for (r = 0; r < ROUNDS; r++) {
		CHECK(migrate_at_most(f, a, na, NVSVM_MIGRATE_TO_VRAM));
		CHECK(migrate_at_most(f, b, nb, NVSVM_MIGRATE_TO_VRAM));
		CHECK(migrate_at_most(f, a, na, NVSVM_MIGRATE_TO_SYSMEM));
		CHECK(migrate_at_most(f, a, na, NVSVM_MIGRATE_TO_VRAM));
		CHECK(gpu_sum_eq(f, a, na * PAGE, pat_sum(0, na * WORDS)));
		CHECK(migrate_at_most(f, b, nb, NVSVM_MIGRATE_TO_SYSMEM));
	}
	CHECK(counter_reaches("evictor_runs", v0[EV_RUNS] + 1));
	CHECK(ev_read(v1));
	ktap_note("%u rounds: evictor %llu runs, %llu chunks; %llu evictions in moves",
	       ROUNDS, (unsigned long long)(v1[EV_RUNS] - v0[EV_RUNS]),
	       (unsigned long long)(v1[EV_BG] - v0[EV_BG]),
	       (unsigned long long)(v1[EV_EVICTIONS] - v0[EV_EVICTIONS] -
				    (v1[EV_BG] - v0[EV_BG])));
	CHECK(cpu_pat(buf, 0, na * WORDS));
	CHECK(cpu_pat(buf, BLOCK / 8, nb * WORDS));
	return vram_pages_become(0);
}

TEST(evict_bg_races_migrate)
{
	uint64_t *buf;
	struct fx f;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_PASS(with_low1(&f, buf, race_case));
}

/*
 * A thrashing-pinned block keeps its VRAM against the evictor (4 MiB
 * VRAM): with a lapse of a minute and a long pin, A (511 pages of block 0:
 * all of chunk 0) moves to VRAM and back twice, then a third time, which
 * pins the block (thrashing +1) with its pages in VRAM. With evict_low 1,
 * B's 16 pages (block 1) kick the evictor: the least recently used chunk,
 * A's, is pinned and stays, every page of A in VRAM; at most B's pages are
 * evicted. Without the pin (evict_watermark_holds) A's chunk is the one
 * evicted. The CPU then reads every word.
 */
static int pinned_case(struct fx *f, uint64_t *buf)
{
	static const unsigned int v[4] = { 1, 3, 60000000, 1000 };
	const size_t na = BLOCK_PAGES - 1, nb = 16;
	uint64_t *a = buf, *b = &buf[BLOCK / 8], v0[EV_N], v1[EV_N], t0, t1;
	unsigned int old[4], r;
	int ret = KTAP_PASS;

	CHECK(counter("thrashing", &t0));
	CHECK(thrash_params(v, old));
	for (r = 0; r < 3 && ret == KTAP_PASS; r++) {
		ret = migrate(f, a, na * PAGE, NVSVM_MIGRATE_TO_VRAM, na);
		if (ret == KTAP_PASS && r < 2)
			ret = migrate(f, a, na * PAGE, NVSVM_MIGRATE_TO_SYSMEM,
				      na);
	}
	if (ret == KTAP_PASS)
		ret = counter("thrashing", &t1);
	if (ret == KTAP_PASS && t1 - t0 != 1) {
		thrash_restore(old);
		KTAP_FAIL_MSG("thrashing +%llu after three moves, expected +1",
			      (unsigned long long)(t1 - t0));
	}
	if (ret == KTAP_PASS)
		ret = ev_read(v0);
	if (ret == KTAP_PASS && evict_mark("low", 1, NULL))
		ret = KTAP_FAIL;
	if (ret == KTAP_PASS)
		ret = migrate(f, b, nb * PAGE, NVSVM_MIGRATE_TO_VRAM, nb);
	if (ret == KTAP_PASS)
		ret = counter_reaches("evictor_runs", v0[EV_RUNS] + 1);
	evict_marks_off();
	if (ret == KTAP_PASS)
		ret = ev_read(v1);
	if (ret == KTAP_PASS)
		ret = query_expect(f, a, na, IN_VRAM, IN_VRAM);
	thrash_restore(old);
	CHECK(ret);
	ktap_note("evictor: %llu runs, %llu chunks, %llu pages",
	       (unsigned long long)(v1[EV_RUNS] - v0[EV_RUNS]),
	       (unsigned long long)(v1[EV_BG] - v0[EV_BG]),
	       (unsigned long long)(v1[EV_PAGES] - v0[EV_PAGES]));
	CHK_TRUE(v1[EV_PAGES] - v0[EV_PAGES] <= nb, "%llu pages evicted",
		 (unsigned long long)(v1[EV_PAGES] - v0[EV_PAGES]));
	CHECK(cpu_pat(buf, 0, na * WORDS));
	CHECK(cpu_pat(buf, BLOCK / 8, nb * WORDS));
	return vram_pages_become(0);
}

TEST(evict_bg_skips_pinned)
{
	uint64_t *buf;
	struct fx f;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_PASS(pinned_case(&f, buf));
}

/*
 * A value of evict_low or evict_high that is no number of chunks up to
 * 2048, or would put evict_low above a set evict_high, is refused with
 * EINVAL and leaves both as they were. Both read 0 (off) by default.
 */
static int mark_refused(const char *name, const char *val,
			unsigned int low, unsigned int high)
{
	char path[80];
	unsigned int l, h;
	int fd, ret = 0;

	snprintf(path, sizeof(path), EVICT_MARK "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		KTAP_FAIL_MSG("%s: %s", path, strerror(errno));
	if (pwrite(fd, val, strlen(val), 0) >= 0)
		ret = -1;
	else if (errno != EINVAL)
		ret = errno;
	close(fd);
	if (ret)
		KTAP_FAIL_MSG("evict_%s \"%s\": %s, not EINVAL", name, val,
			      ret < 0 ? "taken" : strerror(ret));
	/* Read both back (writing what was read). */
	CHK_OK(evict_mark("low", low, &l));
	CHK_OK(evict_mark("high", high, &h));
	if (l != low || h != high)
		KTAP_FAIL_MSG("after evict_%s \"%s\": low %u high %u, expected %u %u",
			      name, val, l, h, low, high);
	return KTAP_PASS;
}

static int marks_case(void)
{
	static const char *const bad[] = {
		"abc", "-1", "2049", "1x", "99999999999", " ", "\n", "1 2",
	};
	unsigned int l, h, i;

	CHK_OK(evict_mark("low", 0, &l));
	CHK_OK(evict_mark("high", 0, &h));
	CHK_EQ(l, 0);
	CHK_EQ(h, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(mark_refused("low", bad[i], 0, 0));
		CHECK(mark_refused("high", bad[i], 0, 0));
	}
	CHK_OK(evict_mark("high", 8, NULL));
	CHECK(mark_refused("low", "9", 0, 8));
	CHK_OK(evict_mark("low", 8, NULL));
	CHECK(mark_refused("high", "7", 8, 8));
	/* evict_high 0: as evict_low; a set evict_low may be anything then. */
	CHK_OK(evict_mark("high", 0, NULL));
	CHK_OK(evict_mark("low", 2048, NULL));
	CHECK(mark_refused("high", "2047", 2048, 0));
	return KTAP_PASS;
}

TEST(evict_mark_bad_value)
{
	int ret = marks_case();

	ASSERT_EQ(0, evict_marks_off());
	ASSERT_PASS(ret);
}

/* Bad input: the documented errno, and nothing moved. */
TEST(bad_input)
{
	uint64_t *buf = anon_filled(4 * PAGE), v0, v1;
	struct nvsvm_migrate m = { .size = 4 * PAGE,
				   .target = NVSVM_MIGRATE_TO_VRAM };
	struct fx f;
	pid_t pid;
	int fd;

	NEED_DMEM();
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(vram_pages(&v0));
	m.addr = nvsvm_ptr(buf);
	/* No area yet. */
	OPEN_DEV(fd);
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
	close(fd);

	FX_OPEN(&f);
	m.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.flags = 1U << 31;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.flags = 0;
	m.target = 2;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.target = NVSVM_MIGRATE_TO_VRAM;
	m.moved = 1;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.moved = 0;
	m.addr += 8;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.addr -= 8;
	m.size = 100;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.size = 0;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.size = -PAGE;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.size = 4 * PAGE;
	/* The unmanaged window, and a range touching it. */
	m.addr = WIN_ADDR;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.addr = WIN_ADDR - PAGE;
	ASSERT_EQ(-EINVAL, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	m.addr = nvsvm_ptr(buf);
	ASSERT_EQ(-EFAULT, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, (void *)8));

	/* Another address space: EPERM. */
	pid = fork();
	ASSERT_LE(0, (long)(pid)) {
		TH_LOG("%s", strerror(errno));
	}
	if (!pid)
		_exit(xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m) == -EPERM ? 0 : 2);
	/* The child exits 0 when its MIGRATE failed with EPERM. */
	ASSERT_EQ(0, wait_child(pid));

	ASSERT_PASS(vram_pages(&v1));
	ASSERT_EQ(v0, v1);
	ASSERT_PASS(query_expect(&f, buf, 4, NVSVM_QUERY_VRAM, 0));
	/* And the same call, well formed, works. */
	ASSERT_EQ(0, xioctl(f.fd, NVSVM_IOCTL_MIGRATE, &m));
	ASSERT_EQ(4, m.moved);
	ASSERT_PASS(cpu_pat(buf, 0, 4 * WORDS));
}

static volatile sig_atomic_t released;

static void on_usr1(int sig)
{
	(void)sig;
	released = 1;
}

/* What the hold modes move to VRAM. */
enum hold_kind {
	HOLD_4K,	/* anonymous 4 KiB pages */
	HOLD_BLOCKS,	/* 2 MiB blocks of 4 KiB pages: no 2 MiB VRAM page */
	HOLD_2M,	/* one THP, as one 2 MiB VRAM page */
};

/*
 * For the hold modes: open the device, move @n pages of pat() of @kind to
 * VRAM in an area (HOLD_BLOCKS: each page is one more for an eviction),
 * close the device.
 * Return: 0, 1 (failed, said why), or KSFT_SKIP without device-private
 * memory (or, for HOLD_2M, without 2 MiB VRAM pages or a THP).
 */
static int hold_moved(size_t n, enum hold_kind kind, uint64_t **buf)
{
	uint64_t moved = 0;
	uint32_t q = 0;
	int fd;

	fd = nvsvm_open(0);
	if (fd < 0 || nvsvm_get_info(fd, &info)) {
		printf("# /dev/nvsvm0: %s\n", strerror(fd < 0 ? -fd : EIO));
		return 1;
	}
	if (!(info.caps & NVSVM_CAP_DEVICE_PRIVATE)) {
		printf("skip no NVSVM_CAP_DEVICE_PRIVATE\n");
		return KSFT_SKIP;
	}
	if (kind == HOLD_2M && !(info.caps & NVSVM_CAP_VRAM_2M)) {
		printf("skip no NVSVM_CAP_VRAM_2M\n");
		return KSFT_SKIP;
	}
	if (kind == HOLD_2M) {
		*buf = thp_blocks(n / BLOCK_PAGES);
		if (*buf)
			block_fill(*buf, 0);
		if (*buf && is_thp(*buf) != 1) {
			printf("skip the kernel gave no THP\n");
			return KSFT_SKIP;
		}
	} else if (kind == HOLD_BLOCKS) {
		*buf = blocks_filled(n / BLOCK_PAGES);
	} else {
		*buf = anon_filled(n * PAGE);
	}
	if (!*buf || nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE) ||
	    nvsvm_migrate(fd, nvsvm_ptr(*buf), n * PAGE,
			  NVSVM_MIGRATE_TO_VRAM, &moved) || moved != n) {
		printf("# MIGRATE to VRAM: moved %llu of %zu\n",
		       (unsigned long long)moved, n);
		return 1;
	}
	/* One 2 MiB VRAM page: its last 4 KiB page is in VRAM, shift 21. */
	if (kind == HOLD_2M &&
	    (nvsvm_query(fd, nvsvm_ptr(&(*buf)[(n - 1) * WORDS]), 1, &q) ||
	     (q & IN_VRAM) != IN_VRAM || NVSVM_QUERY_SHIFT(q) != 21)) {
		printf("# QUERY of the last page: %#x, no 2 MiB VRAM page\n",
		       q);
		return 1;
	}
	close(fd);
	return 0;
}

/* The hold modes' end: every word of the @n pages at @buf is pat()'s. */
static int hold_intact(const uint64_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n * WORDS; i++)
		if (buf[i] != pat(i)) {
			printf("# word %zu: %#llx, expected %#llx\n", i,
			       (unsigned long long)buf[i],
			       (unsigned long long)pat(i));
			return 1;
		}
	printf("intact\n");
	return 0;
}

/*
 * "migrate hold" (HOLD_4K) and "migrate hold-2m" (HOLD_2M): see the top of
 * the file. Exit 0, 1 (failed), 4 (skip).
 */
static int hold(enum hold_kind kind)
{
	const size_t n = kind == HOLD_2M ? BLOCK_PAGES : 64;
	sigset_t block, old;
	uint64_t *buf;
	int ret;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR1, on_usr1);
	ret = hold_moved(n, kind, &buf);
	if (ret)
		return ret;
	printf("ready %zu\n", n);
	fflush(stdout);
	while (!released)
		sigsuspend(&old);
	return hold_intact(buf, n);
}

/*
 * "migrate hold-evict": see the top of the file. The evictor is busy when
 * nvsvm_vgpu goes: 8 MiB move to VRAM through a VRAM whose watermark keeps
 * most of it free, and the process takes the GPU away right after.
 * Exit 0, 1 (failed), 4 (skip).
 */
static int hold_evict(void)
{
	static const char *const names[3] = {
		"vram_pages", "evictor_runs", "evictions_bg",
	};
	const size_t n = 2048;
	uint64_t *buf, v[3] = {};
	size_t i;
	int ret;

	ret = hold_moved(n, HOLD_BLOCKS, &buf);
	if (ret)
		return ret;
	for (i = 0; i < 3; i++)
		nvsvm_stat_read(0, names[i], &v[i]);
	printf("# at rmmod: vram_pages %llu, evictor_runs %llu, evictions_bg %llu\n",
	       (unsigned long long)v[0], (unsigned long long)v[1],
	       (unsigned long long)v[2]);
	fflush(stdout);
	if (system("rmmod nvsvm_vgpu")) {
		printf("# rmmod nvsvm_vgpu failed\n");
		return 1;
	}
	return hold_intact(buf, n);
}

/*
 * The recency sampler (src/recency.c). SAMPLE_KNOB, a test build's
 * debugfs file, runs one sampling pass over N VRAM chunks before the
 * write returns; the parameters drive the background passes.
 */
#define SAMPLE_KNOB	"/sys/kernel/debug/nvsvm/nvsvm0", "sample"
#define SAMPLE_PARAM	"/sys/module/nvsvm/parameters"

/* One sampling pass over @n chunks, now. */
static int sample_now(unsigned int n)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", n);
	CHK_OK(cg_write(SAMPLE_KNOB, v));
	return KTAP_PASS;
}

/* The counters a sampling case looks at, in this order. */
static const char *const sample_ctrs[] = {
	"faults", "sampled_chunks", "sampled_blocks", "sample_refaults",
	"migrated_to_vram", "evictions", "evictions_cold", "evicted_pages",
};

enum { S_FAULTS, S_CHUNKS, S_BLOCKS, S_REFAULTS, S_TO_VRAM, S_EVICTIONS,
	S_COLD, S_EVICTED, S_N };

static int sample_counters(uint64_t *v)
{
	size_t i;

	for (i = 0; i < S_N; i++)
		CHECK(counter(sample_ctrs[i], &v[i]));
	return KTAP_PASS;
}

/*
 * A sampling pass over the chunk of @n pages at @p (in VRAM, mapped, the
 * only ones in VRAM): their GPU PTEs go (QUERY: not valid; the pages stay
 * in VRAM: no move), a GPU read after it faults although the GPU read the
 * range just before (a TLB that kept the translation would not fault),
 * reads the right data from the same VRAM (sample_refaults +1, nothing
 * migrated) and maps it again (@large: with a 2 MiB PTE).
 */
static int sample_refault(struct fx *f, const uint64_t *p, size_t n,
			  uint64_t sum, bool large)
{
	uint64_t a[S_N], b[S_N];

	CHECK(gpu_sum_eq(f, p, n * PAGE, sum));
	CHECK(range_in_vram(f, p, n, large));
	CHECK(sample_counters(a));
	CHECK(sample_now(16));
	CHECK(sample_counters(b));
	CHK_EQ(b[S_CHUNKS] - a[S_CHUNKS], 1);
	/* One 2 MiB range, two where the pages straddle a boundary. */
	if (b[S_BLOCKS] - a[S_BLOCKS] < 1 || b[S_BLOCKS] - a[S_BLOCKS] > 2)
		KTAP_FAIL_MSG("%llu ranges dropped",
			      (unsigned long long)(b[S_BLOCKS] - a[S_BLOCKS]));
	CHECK(query_expect(f, p, n, NVSVM_QUERY_VALID, 0));
	CHECK(gpu_sum_eq(f, p, n * PAGE, sum));
	CHECK(sample_counters(a));
	if (a[S_FAULTS] == b[S_FAULTS])
		KTAP_FAIL_MSG("no GPU fault after the sample: stale TLB?");
	CHK_EQ(a[S_REFAULTS] - b[S_REFAULTS], 1);
	CHK_EQ(a[S_TO_VRAM], b[S_TO_VRAM]);
	CHK_EQ(a[S_EVICTIONS], b[S_EVICTIONS]);
	return range_in_vram(f, p, n, large);
}

/*
 * Sampling keeps the data and the placement; the GPU faults the pages
 * back in place. The driver buffers of the unmanaged window (the EXEC's
 * program and arguments) are never dropped: the EXECs after the pass
 * work. A second pass finds the chunk warm again and samples it anew.
 */
TEST(sample_refaults_in_place)
{
	const size_t n = 64;
	uint64_t *buf;
	struct fx f;

	DMEM_OPEN(&f, buf, n);
	ASSERT_PASS(vram_pages_become(0));
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	ASSERT_PASS(sample_refault(&f, buf, n, pat_sum(0, n * WORDS), false));
	ASSERT_PASS(sample_refault(&f, buf, n, pat_sum(0, n * WORDS), false));
	ASSERT_PASS(cpu_pat(buf, 0, n * WORDS));
	ASSERT_PASS(vram_pages_become(0));
}

/*
 * The same for a 2 MiB VRAM page mapped by one 2 MiB GPU PTE
 * (NVSVM_CAP_VRAM_2M): it comes back as one 2 MiB PTE, not moved.
 */
TEST(sample_refaults_2m)
{
	uint64_t *buf;
	struct fx f;

	NEED_DMEM();
	NEED_CAP(NVSVM_CAP_VRAM_2M);
	ASSERT_PASS(vram_pages_become(0));
	buf = thp_blocks(1);
	ASSERT_NE(NULL, buf);
	ASSERT_PASS(thp_filled(buf, 0));
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, buf, BLOCK, NVSVM_MIGRATE_TO_VRAM,
			    BLOCK_PAGES));
	ASSERT_PASS(block_in_vram(&f, buf, true));
	ASSERT_PASS(sample_refault(&f, buf, BLOCK_PAGES,
				   pat_sum(0, BLOCK / 8), true));
	ASSERT_PASS(cpu_pat(buf, 0, BLOCK / 8));
	ASSERT_PASS(vram_pages_become(0));
}

/*
 * Bad values are refused with EINVAL and change nothing: sample_chunks
 * and sample_free above 2048, sample_ms 0 or above 60000, the knob 0 or
 * not a number.
 */
TEST(sample_bad_values)
{
	static const char *const bad_ms[] = { "0", "60001", "-1", "x" };
	static const char *const bad_n[] = { "2049", "-1", "x" };
	char c0[32], m0[32], f0[32], c1[32], m1[32], f1[32];
	size_t i;

	NEED_DMEM();
	ASSERT_EQ(0, cg_read(SAMPLE_PARAM, "sample_chunks", c0, sizeof(c0)));
	ASSERT_EQ(0, cg_read(SAMPLE_PARAM, "sample_ms", m0, sizeof(m0)));
	ASSERT_EQ(0, cg_read(SAMPLE_PARAM, "sample_free", f0, sizeof(f0)));
	for (i = 0; i < ARRAY_SIZE(bad_ms); i++)
		EXPECT_EQ(-EINVAL, cg_write(SAMPLE_PARAM, "sample_ms", bad_ms[i]));
	for (i = 0; i < ARRAY_SIZE(bad_n); i++) {
		EXPECT_EQ(-EINVAL, cg_write(SAMPLE_PARAM, "sample_chunks",
					    bad_n[i]));
		EXPECT_EQ(-EINVAL, cg_write(SAMPLE_PARAM, "sample_free",
					    bad_n[i]));
	}
	ASSERT_EQ(0, cg_read(SAMPLE_PARAM, "sample_chunks", c1, sizeof(c1)));
	ASSERT_EQ(0, cg_read(SAMPLE_PARAM, "sample_ms", m1, sizeof(m1)));
	ASSERT_EQ(0, cg_read(SAMPLE_PARAM, "sample_free", f1, sizeof(f1)));
	EXPECT_STREQ(c0, c1);
	EXPECT_STREQ(m0, m1);
	EXPECT_STREQ(f0, f1);
	EXPECT_EQ(-EINVAL, cg_write(SAMPLE_KNOB, "0"));
	EXPECT_EQ(-EINVAL, cg_write(SAMPLE_KNOB, "x"));
}

/*
 * Set the sampler's parameters (strings: sample_chunks, sample_ms,
 * sample_free); the old ones into @old, in that order.
 */
static int sampler_set(const char *n, const char *ms, const char *free,
		       char old[3][32])
{
	if (old) {
		CHK_OK(cg_read(SAMPLE_PARAM, "sample_chunks", old[0], 32));
		CHK_OK(cg_read(SAMPLE_PARAM, "sample_ms", old[1], 32));
		CHK_OK(cg_read(SAMPLE_PARAM, "sample_free", old[2], 32));
	}
	CHK_OK(cg_write(SAMPLE_PARAM, "sample_ms", ms));
	CHK_OK(cg_write(SAMPLE_PARAM, "sample_free", free));
	CHK_OK(cg_write(SAMPLE_PARAM, "sample_chunks", n));
	return KTAP_PASS;
}

/*
 * The background sampler (every chunk, every 1 ms, whatever VRAM is free:
 * sample_free 2048) racing the GPU's reads, MIGRATE back to system
 * memory, munmap, and a child's exit with pages in VRAM: every read right,
 * the VRAM empty at the end; the debug kernels' KASAN, lockdep and
 * kmemleak see the races.
 */
TEST(sampler_races)
{
	const size_t n = 128;
	char old[3][32];
	uint64_t p0, p1;
	int i, ok = 1;
	struct fx f;

	NEED_DMEM();
	ASSERT_PASS(vram_pages_become(0));
	FX_OPEN(&f);
	ASSERT_PASS(counter("sample_passes", &p0));
	ASSERT_PASS(sampler_set("64", "1", "2048", old));
	for (i = 0; i < 20 && ok; i++) {
		uint64_t *buf = anon_filled(n * PAGE);
		pid_t pid;
		int st;

		ok = buf != NULL;
		if (!ok)
			break;
		ok = migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n) ==
		     KTAP_PASS &&
		     gpu_sum_eq(&f, buf, n * PAGE, pat_sum(0, n * WORDS)) ==
		     KTAP_PASS;
		usleep(2000);
		ok = ok && gpu_sum_eq(&f, buf, n * PAGE,
				      pat_sum(0, n * WORDS)) == KTAP_PASS;
		if (i & 1) {
			ok = ok && migrate(&f, buf, n / 2 * PAGE,
					   NVSVM_MIGRATE_TO_SYSMEM,
					   n / 2) == KTAP_PASS;
			ok = ok && cpu_pat(buf, 0, n * WORDS) == KTAP_PASS;
		}
		pid = fork();
		if (!pid)
			_exit(0);	/* its copy of the VRAM pages goes */
		waitpid(pid, &st, 0);
		munmap(buf, n * PAGE);
	}
	ASSERT_PASS(sampler_set(old[0], old[1], old[2], NULL));
	ASSERT_TRUE(ok);
	ASSERT_PASS(counter("sample_passes", &p1));
	EXPECT_LT(p0, p1);
	ASSERT_PASS(vram_pages_become(0));
}

/*
 * A refault maps the block's VRAM at once: the first half of a 2 MiB block
 * in VRAM, the second in system memory (the CPU wrote it), all of it
 * mapped (a GPU SUM), then dropped by a sampling pass (QUERY: nothing
 * valid). A GPU read of one word of page 10 (no valid page around it: the
 * density prefetch grows nothing) maps the whole block in the same batch
 * (vram_block_maps +1): the first half in VRAM, the second as the CPU
 * maps it (valid, not VRAM); nothing moved either way. Every word right.
 */
TEST(sample_refault_maps_block)
{
	const size_t half = BLOCK_PAGES / 2;
	uint64_t a[2], b[2], m0, m1;
	uint64_t *buf;
	struct fx f;

	NEED_DMEM();
	ASSERT_PASS(vram_pages_become(0));
	buf = blocks_filled(1);
	ASSERT_NE(NULL, buf);
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, buf, half * PAGE, NVSVM_MIGRATE_TO_VRAM, half));
	ASSERT_PASS(gpu_sum_eq(&f, buf, BLOCK, pat_sum(0, BLOCK / 8)));
	ASSERT_PASS(query_expect(&f, buf, half, IN_VRAM, IN_VRAM));
	ASSERT_PASS(query_expect(&f, &buf[half * WORDS], half, IN_VRAM,
				 NVSVM_QUERY_VALID));
	ASSERT_PASS(sample_now(16));
	ASSERT_PASS(query_expect(&f, buf, BLOCK_PAGES, NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(counter("vram_block_maps", &a[0]));
	ASSERT_PASS(counter("migrated_to_vram", &a[1]));
	ASSERT_PASS(counter("migrated_to_sysmem", &m0));
	ASSERT_PASS(gpu_read_eq(&f, &buf[10 * WORDS + 3], pat(10 * WORDS + 3)));
	ASSERT_PASS(counter("vram_block_maps", &b[0]));
	ASSERT_PASS(counter("migrated_to_vram", &b[1]));
	ASSERT_PASS(counter("migrated_to_sysmem", &m1));
	EXPECT_EQ(1, b[0] - a[0]);
	EXPECT_EQ(a[1], b[1]);
	EXPECT_EQ(m0, m1);
	ASSERT_PASS(query_expect(&f, buf, half, IN_VRAM, IN_VRAM));
	ASSERT_PASS(query_expect(&f, &buf[half * WORDS], half, IN_VRAM,
				 NVSVM_QUERY_VALID));
	ASSERT_PASS(gpu_sum_eq(&f, buf, BLOCK, pat_sum(0, BLOCK / 8)));
	ASSERT_PASS(cpu_pat(buf, 0, BLOCK / 8));
	ASSERT_PASS(vram_pages_become(0));
}

/*
 * The refault's block stops where the VMAs do, and keeps the CPU's
 * permission: in a 2 MiB block, A (pages 0-127, its VMA ends mid-block),
 * a hole (128-255), C (256-511, another VMA), both in VRAM, mapped, then
 * dropped by a sampling pass. A GPU read in A maps all of A in VRAM and
 * nothing of C; C made read-only (mprotect), a GPU read in C maps all of C
 * in VRAM, not writable. Every word right.
 */
TEST(sample_refault_block_bounds)
{
	const size_t na = 128, hole = 128, nc = BLOCK_PAGES - na - hole;
	uint64_t *b, *c, x, y;
	struct fx f;
	char *p;
	size_t i;

	NEED_DMEM();
	ASSERT_PASS(vram_pages_become(0));
	p = anon(2 * BLOCK);
	ASSERT_NE(NULL, p);
	b = (uint64_t *)(((uintptr_t)p + BLOCK - 1) & ~(BLOCK - 1));
	ASSERT_EQ(0, madvise(b, BLOCK, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, munmap(&b[na * WORDS], hole * PAGE));
	c = &b[(na + hole) * WORDS];
	for (i = 0; i < na * WORDS; i++)
		b[i] = pat(i);
	for (i = 0; i < nc * WORDS; i++)
		c[i] = pat((na + hole) * WORDS + i);
	FX_OPEN(&f);
	ASSERT_PASS(migrate(&f, b, na * PAGE, NVSVM_MIGRATE_TO_VRAM, na));
	ASSERT_PASS(migrate(&f, c, nc * PAGE, NVSVM_MIGRATE_TO_VRAM, nc));
	ASSERT_PASS(query_expect(&f, b, na, IN_VRAM, IN_VRAM));
	ASSERT_PASS(query_expect(&f, c, nc, IN_VRAM, IN_VRAM));
	ASSERT_PASS(sample_now(16));
	ASSERT_PASS(query_expect(&f, b, na, NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(query_expect(&f, c, nc, NVSVM_QUERY_VALID, 0));

	ASSERT_PASS(counter("vram_block_maps", &x));
	ASSERT_PASS(gpu_read_eq(&f, &b[5 * WORDS + 1], pat(5 * WORDS + 1)));
	ASSERT_PASS(counter("vram_block_maps", &y));
	EXPECT_EQ(1, y - x);
	ASSERT_PASS(query_expect(&f, b, na, IN_VRAM | NVSVM_QUERY_WRITE,
				 IN_VRAM | NVSVM_QUERY_WRITE));
	ASSERT_PASS(query_expect(&f, c, nc, NVSVM_QUERY_VALID, 0));

	ASSERT_EQ(0, mprotect(c, nc * PAGE, PROT_READ));
	ASSERT_PASS(gpu_read_eq(&f, &c[40 * WORDS], pat((na + hole + 40) *
							WORDS)));
	ASSERT_PASS(query_expect(&f, c, nc, IN_VRAM | NVSVM_QUERY_WRITE,
				 IN_VRAM));
	ASSERT_PASS(query_expect(&f, b, na, IN_VRAM, IN_VRAM));
	ASSERT_PASS(gpu_sum_eq(&f, b, na * PAGE, pat_sum(0, na * WORDS)));
	ASSERT_PASS(gpu_sum_eq(&f, c, nc * PAGE,
			       pat_sum((na + hole) * WORDS, nc * WORDS)));
	ASSERT_PASS(cpu_pat(b, 0, na * WORDS));
	ASSERT_PASS(cpu_pat(b, (na + hole) * WORDS, nc * WORDS));
	ASSERT_PASS(vram_pages_become(0));
}

/*
 * The background sampler samples only under pressure: with most of the
 * VRAM free and sample_free 0 (the default mark: one chunk, no evictor),
 * its passes sample nothing (sample_idle grows; sample_passes and
 * sampled_chunks do not) and the pages in VRAM stay mapped (QUERY);
 * with sample_free 2048 (any free VRAM) the same passes sample.
 * Parameters put back.
 */
TEST(sampler_idle_with_free_vram)
{
	const size_t n = 64;
	uint64_t i0, c0, p0, c1, p1;
	char old[3][32];
	uint64_t *buf;
	struct fx f;
	int ok;

	DMEM_OPEN(&f, buf, n);
	if (info.vram_size < 4 * BLOCK)
		SKIP(return, "VRAM below 8 MiB");
	ASSERT_PASS(vram_pages_become(0));
	ASSERT_PASS(migrate(&f, buf, n * PAGE, NVSVM_MIGRATE_TO_VRAM, n));
	ASSERT_PASS(query_expect(&f, buf, n, IN_VRAM, IN_VRAM));
	ASSERT_PASS(counter("sample_idle", &i0));
	ASSERT_PASS(counter("sampled_chunks", &c0));
	ASSERT_PASS(counter("sample_passes", &p0));
	ASSERT_PASS(sampler_set("64", "1", "0", old));
	ok = counter_reaches("sample_idle", i0 + 10) == KTAP_PASS;
	ASSERT_PASS(sampler_set("0", old[1], old[2], NULL));
	ASSERT_TRUE(ok);
	ASSERT_PASS(counter("sampled_chunks", &c1));
	ASSERT_PASS(counter("sample_passes", &p1));
	EXPECT_EQ(c0, c1);
	EXPECT_EQ(p0, p1);
	ASSERT_PASS(query_expect(&f, buf, n, IN_VRAM, IN_VRAM));

	ASSERT_PASS(sampler_set("64", "1", "2048", NULL));
	ok = counter_reaches("sampled_chunks", c0 + 1) == KTAP_PASS;
	ASSERT_PASS(sampler_set(old[0], old[1], old[2], NULL));
	ASSERT_TRUE(ok);
	ASSERT_PASS(gpu_sum_eq(&f, buf, n * PAGE, pat_sum(0, n * WORDS)));
	ASSERT_PASS(cpu_pat(buf, 0, n * WORDS));
	ASSERT_PASS(vram_pages_become(0));
}

/*
 * The victim is the chunk the GPU did not use since the sample: A (511
 * pages, chunk 0) then B (512 pages, chunk 1) move to VRAM, mapped by the
 * MIGRATEs; the GPU then reads A alone, which faults nothing, so by the
 * stamps A is still the chunk used least recently. Without a sample
 * (@sample false) a move of C evicts A, the chunk the GPU works on: the
 * gap. With a sampling pass over both chunks before A's read, the read
 * faults A back (sample_refaults +1), B stays cold, and C's move evicts
 * exactly B (evictions_cold +1); A stays in VRAM. Every word right.
 */
static int sampled_case(struct fx *f, uint64_t *buf, bool sample)
{
	const size_t na = BLOCK_PAGES - 1, nb = BLOCK_PAGES, nc = 16;
	uint64_t *a = buf, *b = &buf[BLOCK / 8], *c = &buf[2 * BLOCK / 8];
	uint64_t x[S_N], y[S_N];

	CHECK(migrate(f, a, na * PAGE, NVSVM_MIGRATE_TO_VRAM, na));
	CHECK(migrate(f, b, nb * PAGE, NVSVM_MIGRATE_TO_VRAM, nb));
	CHECK(vram_pages_become(na + nb));
	CHECK(sample_counters(x));
	if (sample)
		CHECK(sample_now(2));
	CHECK(gpu_sum_eq(f, a, na * PAGE, pat_sum(0, na * WORDS)));
	CHECK(migrate(f, c, nc * PAGE, NVSVM_MIGRATE_TO_VRAM, nc));
	CHECK(sample_counters(y));
	CHK_EQ(y[S_CHUNKS] - x[S_CHUNKS], sample ? 2 : 0);
	CHK_EQ(y[S_REFAULTS] - x[S_REFAULTS], sample ? 1 : 0);
	CHK_EQ(y[S_EVICTIONS] - x[S_EVICTIONS], 1);
	CHK_EQ(y[S_COLD] - x[S_COLD], sample ? 1 : 0);
	CHK_EQ(y[S_EVICTED] - x[S_EVICTED], sample ? nb : na);
	CHECK(query_expect(f, sample ? a : b, sample ? na : nb, IN_VRAM,
			   IN_VRAM));
	CHECK(none_in_vram(f, sample ? b : a, sample ? nb : na));
	CHECK(gpu_sum_eq(f, b, nb * PAGE, pat_sum(BLOCK / 8, nb * WORDS)));
	CHECK(gpu_sum_eq(f, a, na * PAGE, pat_sum(0, na * WORDS)));
	CHECK(cpu_pat(buf, 0, BLOCK / 8 + nb * WORDS));
	CHECK(cpu_pat(buf, 2 * BLOCK / 8, nc * WORDS));
	return vram_pages_become(0);
}

TEST(lru_evicts_exec_only)
{
	uint64_t *buf;
	struct fx f;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_PASS(sampled_case(&f, buf, false));
}

TEST(lru_keeps_sampled_hot)
{
	uint64_t *buf;
	struct fx f;

	SMALL_VRAM_OPEN(&f, buf);
	ASSERT_PASS(sampled_case(&f, buf, true));
}

/* The cases that need a small VRAM: "migrate small-vram" only. */
static const char *const small_only[] = {
	"oversubscription", "eviction_keeps_writes", "lru_keeps_faulted",
	"lru_keeps_migrated", "evict_policy_uvm_then_lru", "evict_2m_folio",
	"evict_watermark_holds", "evict_bg_races_migrate",
	"evict_bg_skips_pinned", "lru_evicts_exec_only",
	"lru_keeps_sampled_hot", NULL
};

/* The case that needs a 3 MiB VRAM: "migrate odd-vram" only. */
static const char *const odd_only[] = { "evict_partial_chunk", NULL };

/* The cases "migrate small-vram" runs again with a small VRAM. */
static const char *const small_too[] = {
	"gpu_uses_vram", "cpu_touch_brings_back", "munmap_frees_vram", NULL
};

static int listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return 1;
	return 0;
}

static int small_vram_case(const char *name, const void *arg)
{
	(void)arg;
	return listed(small_only, name) || listed(small_too, name);
}

static int odd_vram_case(const char *name, const void *arg)
{
	(void)arg;
	return listed(odd_only, name);
}

static int default_case(const char *name, const void *arg)
{
	(void)arg;
	return !listed(small_only, name) && !listed(odd_only, name);
}

int main(int argc, char **argv)
{
	int small = argc > 1 && !strcmp(argv[1], "small-vram");

	if (argc > 1 && !strcmp(argv[1], "hold"))
		return hold(HOLD_4K);
	if (argc > 1 && !strcmp(argv[1], "hold-2m"))
		return hold(HOLD_2M);
	if (argc > 1 && !strcmp(argv[1], "hold-evict"))
		return hold_evict();
	if (small || (argc > 1 && !strcmp(argv[1], "odd-vram"))) {
		/* Skip as a whole (exit 4), for tests/guest-migrate.sh. */
		int fd = nvsvm_open(0);

		if (fd >= 0 && !nvsvm_get_info(fd, &info) &&
		    !(info.caps & NVSVM_CAP_DEVICE_PRIVATE))
			ksft_exit_skip("no NVSVM_CAP_DEVICE_PRIVATE (kernel without CONFIG_DEVICE_PRIVATE?)\n");
		if (fd >= 0)
			close(fd);
		harness_keep_cases(small ? small_vram_case : odd_vram_case,
				   NULL);
	} else {
		harness_keep_cases(default_case, NULL);
	}
	/* The mode is not an option of the harness. */
	return test_harness_main(1, argv, 0);
}
