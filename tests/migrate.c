// SPDX-License-Identifier: GPL-2.0
/*
 * Device-private VRAM and NVSVM_IOCTL_MIGRATE: pages moved to VRAM are
 * mapped by the GPU with the VRAM aperture (QUERY) and keep their data for
 * GPU reads and writes; a CPU access brings a page back with its data;
 * fork, munmap and exit with pages in VRAM are correct and give the VRAM
 * back (debugfs vram_pages); migrating more than the VRAM evicts the VRAM
 * chunks used least recently (by migration and GPU fault history) back to
 * system memory, losing no GPU or CPU write; bad input fails with the
 * documented errno and changes nothing.
 *
 * Where GET_INFO lacks NVSVM_CAP_DEVICE_PRIVATE (Debian's stock kernel has
 * no CONFIG_DEVICE_PRIVATE) every case but unsupported_or_works skips,
 * and that one checks MIGRATE fails with EOPNOTSUPP.
 *
 * Filling the default 64 MiB of VRAM takes minutes on the debug kernel,
 * so oversubscription runs in tests/guest-migrate.sh with nvsvm_vgpu
 * vram_mb=4:
 *   migrate              the cases below, with the modules' defaults
 *   migrate small-vram   oversubscription, eviction and LRU (and a few
 *                        basic cases again) with a small VRAM
 *   migrate hold         for the unload test of tests/guest-migrate.sh:
 *                        migrate pages to VRAM, close the device, print
 *                        "ready", wait for SIGUSR1, then check the data
 *                        (exit 0) after the GPU went away under them
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

#define IN_VRAM		(NVSVM_QUERY_VALID | NVSVM_QUERY_VRAM)
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
 * Least recently used, from GPU fault history: with the 4 MiB VRAM full
 * (A in the first 2 MiB chunk, B in the second), the GPU faults A in
 * again (after UNMAP), so B's chunk is the one used least recently: the
 * next move evicts B and A stays. Needs an empty VRAM of exactly 4 MiB
 * (pages are handed out first fit; offset 0 is never used).
 */
TEST(lru_keeps_faulted)
{
	size_t vram = info.vram_size / PAGE;
	const size_t na = BLOCK_PAGES - 1, nb = BLOCK_PAGES, nc = 16;
	uint64_t *buf, *a, *b, *c, e0, e1;
	struct fx f;

	NEED_DMEM();
	if (vram != 2 * BLOCK_PAGES)
		SKIP(return, "VRAM not 4 MiB (run with nvsvm_vgpu vram_mb=4)");
	ASSERT_PASS(vram_pages_become(0));
	buf = blocks_filled(3);
	ASSERT_NE(NULL, buf);
	a = buf;
	b = &buf[BLOCK / 8];
	c = &buf[2 * BLOCK / 8];
	FX_OPEN(&f);
	ASSERT_PASS(counter("evictions", &e0));
	ASSERT_PASS(migrate(&f, a, na * PAGE, NVSVM_MIGRATE_TO_VRAM, na));
	ASSERT_PASS(migrate(&f, b, nb * PAGE, NVSVM_MIGRATE_TO_VRAM, nb));
	ASSERT_PASS(counter("evictions", &e1));
	ASSERT_EQ(e0, e1);
	ASSERT_PASS(vram_pages_become(na + nb));

	ASSERT_EQ(0, nvsvm_unmap(f.fd, nvsvm_ptr(a), na * PAGE));
	ASSERT_PASS(query_expect(&f, a, na, NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(gpu_sum_eq(&f, a, na * PAGE, pat_sum(0, na * WORDS)));
	ASSERT_PASS(query_expect(&f, a, na, IN_VRAM, IN_VRAM));

	ASSERT_PASS(migrate(&f, c, nc * PAGE, NVSVM_MIGRATE_TO_VRAM, nc));
	ASSERT_PASS(counter("evictions", &e1));
	ASSERT_EQ(e0 + 1, e1);
	ASSERT_PASS(query_expect(&f, a, na, IN_VRAM, IN_VRAM));
	ASSERT_PASS(none_in_vram(&f, b, nb));
	ASSERT_PASS(query_expect(&f, c, nc, IN_VRAM, IN_VRAM));
	ASSERT_PASS(cpu_pat(buf, 0, 2 * BLOCK / 8 + nc * WORDS));
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
 * ROUNDS rounds of a CPU/GPU ping-pong on the first page of the @n pages
 * at @buf: MIGRATE them to VRAM (pages moved in @moves[round]), the GPU
 * writes word 0, the CPU reads it and writes word 1, the GPU reads that.
 */
static int ping_pong(struct fx *f, volatile uint64_t *buf, size_t n,
		     uint64_t *moves)
{
	unsigned int i;

	for (i = 0; i < ROUNDS; i++) {
		CHK_OK(nvsvm_migrate(f->fd, nvsvm_ptr(buf), n * PAGE,
				     NVSVM_MIGRATE_TO_VRAM, &moves[i]));
		CHECK(gpu_ok1(f, nvsvm_op_write(nvsvm_ptr(&buf[0]), 0x6000 + i),
			      NULL));
		CHK_EQ(buf[0], 0x6000 + i);
		buf[1] = 0x7000 + i;
		CHECK(gpu_read_eq(f, &buf[1], 0x7000 + i));
	}
	return KTAP_PASS;
}

/*
 * Run the ping-pong with the thrashing parameters @v; @want[round]: the
 * pages each round's MIGRATE must move; @pinned: the block must be found
 * thrashing once. The data of every round and of the other pages is
 * checked.
 */
static int thrash_case(const unsigned int *v, const uint64_t *want,
		       int pinned)
{
	const size_t n = 4;
	uint64_t moves[ROUNDS], t0, t1, s0, s1, *buf;
	unsigned int old[4], i, skips = 0;
	struct fx f;
	int ret;

	buf = blocks_filled(1);
	if (!buf)
		KTAP_FAIL_MSG("mmap: %s", strerror(errno));
	CHECK(fx_open(&f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	CHECK(counter("thrashing", &t0));
	CHECK(counter("thrash_skips", &s0));
	CHECK(thrash_params(v, old));
	ret = ping_pong(&f, buf, n, moves);
	thrash_restore(old);
	CHECK(ret);
	CHECK(counter("thrashing", &t1));
	CHECK(counter("thrash_skips", &s1));
	for (i = 0; i < ROUNDS; i++) {
		if (moves[i] != want[i])
			KTAP_FAIL_MSG("round %u: MIGRATE moved %llu pages, expected %llu",
				      i, (unsigned long long)moves[i],
				      (unsigned long long)want[i]);
		skips += !want[i];
	}
	CHK_EQ(t1 - t0, (uint64_t)!!pinned);
	CHK_EQ(s1 - s0, (uint64_t)skips);
	/* Pages 1 to 3 went to VRAM in round 0 and stayed, data intact. */
	CHECK(query_expect(&f, &buf[WORDS], n - 1, IN_VRAM, IN_VRAM));
	CHECK(cpu_pat(buf, 2, n * WORDS - 2));
	close(f.fd);
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
	ASSERT_PASS(thrash_case(v, want, 1));
}

/*
 * With detection off (nvsvm.thrashing_enable=0), every round moves. (No
 * case for moves further apart than the lapse: that depends on the
 * guest's clock, a 4 ms jiffies clock in some test VMs.)
 */
TEST(thrashing_off)
{
	const unsigned int off[4] = { 0, 3, 60000000, 300 };
	const uint64_t want[ROUNDS] = { 4, 1, 1, 1, 1, 1, 1, 1 };

	NEED_DMEM();
	ASSERT_PASS(thrash_case(off, want, 0));
}

/*
 * Pin a block by a ping-pong (60 s lapse), munmap it and map fresh memory
 * at the same address: the new memory moves to VRAM at once, because a
 * munmap forgets the block's history (before: the pin carried over, so
 * MIGRATE skipped the new memory for 300 lapses).
 */
static int remap_after_pin(struct fx *f, uint64_t *buf, uint64_t *moves,
			   uint64_t *moved)
{
	const size_t n = 4;
	size_t i;

	CHECK(ping_pong(f, buf, n, moves));
	if (munmap(buf, BLOCK))
		KTAP_FAIL_MSG("munmap: %s", strerror(errno));
	if (mmap(buf, BLOCK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != buf)
		KTAP_FAIL_MSG("mmap at the old address: %s", strerror(errno));
	if (madvise(buf, BLOCK, MADV_NOHUGEPAGE))
		KTAP_FAIL_MSG("madvise: %s", strerror(errno));
	for (i = 0; i < n * WORDS; i++)
		buf[i] = pat(i);
	CHK_OK(nvsvm_migrate(f->fd, nvsvm_ptr(buf), n * PAGE,
			     NVSVM_MIGRATE_TO_VRAM, moved));
	return KTAP_PASS;
}

TEST(munmap_forgets_thrashing)
{
	const unsigned int v[4] = { 1, 3, 60000000, 300 };
	uint64_t moves[ROUNDS], moved = 0, s0, s1, *buf;
	unsigned int old[4];
	struct fx f;
	int ret;

	NEED_DMEM();
	buf = blocks_filled(1);
	ASSERT_TRUE(buf);
	FX_OPEN(&f);
	ASSERT_PASS(counter("thrash_skips", &s0));
	ASSERT_PASS(thrash_params(v, old));
	ret = remap_after_pin(&f, buf, moves, &moved);
	thrash_restore(old);
	ASSERT_PASS(ret);
	ASSERT_PASS(counter("thrash_skips", &s1));
	/* Pinned before the munmap: the last rounds moved nothing. */
	ASSERT_EQ(0, moves[ROUNDS - 1]);
	ASSERT_EQ(ROUNDS - 3, s1 - s0);
	/* The new memory moved, all four pages, and its data is right. */
	ASSERT_EQ(4, moved);
	ASSERT_PASS(query_expect(&f, buf, 4, IN_VRAM, IN_VRAM));
	ASSERT_PASS(cpu_pat(buf, 0, 4 * WORDS));
	close(f.fd);
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

/* "migrate hold": see the top of the file. Exit 0, 1 (failed), 4 (skip). */
static int hold(void)
{
	const size_t n = 64;
	uint64_t *buf, moved = 0;
	sigset_t block, old;
	size_t i;
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
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR1, on_usr1);
	buf = anon_filled(n * PAGE);
	if (!buf || nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE) ||
	    nvsvm_migrate(fd, nvsvm_ptr(buf), n * PAGE,
			  NVSVM_MIGRATE_TO_VRAM, &moved) || moved != n) {
		printf("# MIGRATE to VRAM: moved %llu of %zu\n",
		       (unsigned long long)moved, n);
		return 1;
	}
	close(fd);
	printf("ready %zu\n", n);
	fflush(stdout);
	while (!released)
		sigsuspend(&old);
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

/* The cases that need a small VRAM: "migrate small-vram" only. */
static const char *const small_only[] = {
	"oversubscription", "eviction_keeps_writes", "lru_keeps_faulted", NULL
};

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

static int default_case(const char *name, const void *arg)
{
	(void)arg;
	return !listed(small_only, name);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "hold"))
		return hold();
	if (argc > 1 && !strcmp(argv[1], "small-vram")) {
		/* Skip as a whole (exit 4), for tests/guest-migrate.sh. */
		int fd = nvsvm_open(0);

		if (fd >= 0 && !nvsvm_get_info(fd, &info) &&
		    !(info.caps & NVSVM_CAP_DEVICE_PRIVATE))
			ksft_exit_skip("no NVSVM_CAP_DEVICE_PRIVATE (kernel without CONFIG_DEVICE_PRIVATE?)\n");
		if (fd >= 0)
			close(fd);
		harness_keep_cases(small_vram_case, NULL);
	} else {
		harness_keep_cases(default_case, NULL);
	}
	/* The mode is not an option of the harness. */
	return test_harness_main(1, argv, 0);
}
