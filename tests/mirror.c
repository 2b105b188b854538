// SPDX-License-Identifier: GPL-2.0
/*
 * The HMM mirror through MAP/UNMAP/QUERY and EXEC: after MAP the GPU sees
 * the CPU's data and the CPU sees the GPU's writes; munmap, mprotect,
 * MADV_DONTNEED, mremap, fork with copy-on-write and ftruncate each remove
 * or downgrade GPU access (QUERY shows it, EXEC faults); the unmanaged
 * window is never mirrored; page-table memory is given back.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#define TIMEOUT_MS	60000

#include "ktap.h"
#include "common.h"

static uint64_t pat(uint64_t i)
{
	return 0xa5a5000000000000ULL | i;
}

static void *anon_filled(size_t size)
{
	uint64_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		return NULL;
	for (i = 0; i < size / 8; i++)
		p[i] = pat(i);
	return p;
}

/* No page of the range is writable by the GPU. */
static int query_not_writable(struct fx *f, const void *p, unsigned int n)
{
	uint32_t q[64];
	unsigned int i;

	EXPECT_OK(nvsvm_query(f->fd, nvsvm_ptr(p), n, q));
	for (i = 0; i < n; i++)
		if ((q[i] & NVSVM_QUERY_VALID) && (q[i] & NVSVM_QUERY_WRITE))
			KTAP_FAIL_MSG("QUERY page %u of %p: %#x, still VALID|WRITE",
				      i, p, q[i]);
	return KTAP_PASS;
}

static int map_all(struct fx *f, void *p, unsigned int n)
{
	uint64_t mapped = 0;

	EXPECT_OK(nvsvm_map(f->fd, nvsvm_ptr(p), n * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	EXPECT_EQ(mapped, n);
	return KTAP_PASS;
}

static int map_fault_counts(void)
{
	uint64_t *buf = anon_filled(16 * PAGE);
	struct fx f;

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, buf, 16));
	return KTAP_PASS;
}

static int map_present_only(void)
{
	char *buf = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t mapped = 0;
	uint32_t q[8];
	struct fx f;
	int i;

	ASSERT_MAP(buf);
	buf[0] = buf[2 * PAGE] = buf[5 * PAGE] = 1;	/* only 3 pages exist */
	FX_OPEN(&f);
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(buf), 8 * PAGE, NVSVM_MAP_WRITE,
			    &mapped));
	EXPECT_EQ(mapped, 3);
	EXPECT_OK(nvsvm_query(f.fd, nvsvm_ptr(buf), 8, q));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(q[i] & NVSVM_QUERY_VALID,
			  (i == 0 || i == 2 || i == 5) ? NVSVM_QUERY_VALID : 0);
	return KTAP_PASS;
}

static int map_fault_efault(void)
{
	char *buf = anon_filled(3 * PAGE);
	char *ro = anon_filled(PAGE);
	struct fx f;

	ASSERT_MAP(buf);
	ASSERT_MAP(ro);
	ASSERT_SYS(munmap(buf + PAGE, PAGE));		/* a hole: no VMA */
	ASSERT_SYS(mprotect(ro, PAGE, PROT_READ));
	FX_OPEN(&f);
	EXPECT_ERR(nvsvm_map(f.fd, nvsvm_ptr(buf), 3 * PAGE,
			     NVSVM_MAP_FAULT, NULL), EFAULT);
	EXPECT_ERR(nvsvm_map(f.fd, nvsvm_ptr(ro), PAGE,
			     NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL), EFAULT);
	/* Present-only mapping of the read-only page is fine. */
	EXPECT_OK(nvsvm_map(f.fd, nvsvm_ptr(ro), PAGE, NVSVM_MAP_FAULT, NULL));
	CHECK(query_expect(&f, ro, 1, NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
			   NVSVM_QUERY_VALID));
	return KTAP_PASS;
}

static int query_after_map(void)
{
	uint64_t *buf = anon_filled(16 * PAGE);
	uint32_t q[16];
	struct fx f;
	int i;

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, buf, 16));
	EXPECT_OK(nvsvm_query(f.fd, nvsvm_ptr(buf), 16, q));
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(q[i] & (NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE |
				  NVSVM_QUERY_VRAM),
			  NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE);
		EXPECT_EQ(NVSVM_QUERY_SHIFT(q[i]), 12);
	}
	return KTAP_PASS;
}

static int gpu_reads_cpu_data(void)
{
	uint64_t *buf = anon_filled(16 * PAGE), sum = 0, got, f0, f1;
	int have = !nvsvm_stat_read(dev_index, "faults", &f0);
	struct fx f;
	size_t i;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, buf, 16));
	for (i = 0; i < 16 * WORDS; i++)
		sum += buf[i];
	CHECK(gpu_read_eq(&f, &buf[0], pat(0)));
	CHECK(gpu_read_eq(&f, &buf[7 * WORDS + 5], pat(7 * WORDS + 5)));
	CHECK(gpu_ok1(&f, nvsvm_op_sum(nvsvm_ptr(buf), 16 * PAGE), &got));
	EXPECT_EQ(got, sum);
	/* Everything was mapped ahead of time: no GPU fault was needed. */
	if (have && !nvsvm_stat_read(dev_index, "faults", &f1))
		EXPECT_EQ(f1 - f0, 0);
	return KTAP_PASS;
}

static int gpu_writes_seen_by_cpu(void)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f;
	size_t i;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, (void *)buf, 4));
	CHECK(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[3]), 0x1234), NULL));
	CHECK(gpu_ok1(&f, nvsvm_op_fill(nvsvm_ptr(&buf[WORDS]), 2 * PAGE,
				       0xfeedULL), NULL));
	EXPECT_EQ(buf[3], 0x1234);
	EXPECT_EQ(buf[2], pat(2));
	for (i = WORDS; i < 3 * WORDS; i++)
		if (buf[i] != 0xfeed)
			KTAP_FAIL_MSG("word %zu: %#llx, expected 0xfeed", i,
				      (unsigned long long)buf[i]);
	EXPECT_EQ(buf[3 * WORDS], pat(3 * WORDS));
	return KTAP_PASS;
}

static int munmap_removes(void)
{
	uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f;

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, buf, 4));
	ASSERT_SYS(munmap(buf, 4 * PAGE));
	CHECK(query_expect(&f, buf, 4, NVSVM_QUERY_VALID, 0));
	GPU_PART();
	CHECK(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(buf) + 2 * PAGE),
			nvsvm_ptr(buf) + 2 * PAGE, NVSVM_ACCESS_READ));
	return KTAP_PASS;
}

static int mprotect_read_downgrades(void)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	uint64_t p1 = nvsvm_ptr(buf) + PAGE;
	struct fx f;

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, (void *)buf, 4));
	ASSERT_SYS(mprotect((void *)buf, 4 * PAGE, PROT_READ));
	CHECK(query_not_writable(&f, (void *)buf, 4));
	GPU_PART();
	CHECK(gpu_fault(&f, nvsvm_op_write(p1 + 16, 99), p1,
			NVSVM_ACCESS_WRITE));
	EXPECT_EQ(buf[WORDS + 2], pat(WORDS + 2));	/* not written */
	CHECK(gpu_read_eq(&f, &buf[WORDS + 2], pat(WORDS + 2)));
	return KTAP_PASS;
}

static int mprotect_none_removes(void)
{
	uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f;

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, buf, 4));
	ASSERT_SYS(mprotect(buf, 4 * PAGE, PROT_NONE));
	CHECK(query_expect(&f, buf, 4, NVSVM_QUERY_VALID, 0));
	GPU_PART();
	CHECK(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(buf) + 3 * PAGE + 8),
			nvsvm_ptr(buf) + 3 * PAGE, NVSVM_ACCESS_READ));
	return KTAP_PASS;
}

static int dontneed_gives_zero(void)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, (void *)buf, 4));
	CHECK(gpu_read_eq(&f, &buf[WORDS], pat(WORDS)));
	ASSERT_SYS(madvise((void *)buf, 4 * PAGE, MADV_DONTNEED));
	CHECK(query_expect(&f, (void *)buf, 4, NVSVM_QUERY_VALID, 0));
	CHECK(gpu_read_eq(&f, &buf[WORDS], 0));
	CHECK(gpu_read_eq(&f, &buf[3 * WORDS + 1], 0));
	EXPECT_EQ(buf[WORDS], 0);
	return KTAP_PASS;
}

static int mremap_moves(void)
{
	uint64_t *buf = anon_filled(4 * PAGE), *dst, *moved;
	struct fx f;

	ASSERT_MAP(buf);
	dst = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	ASSERT_MAP(dst);
	FX_OPEN(&f);
	CHECK(map_all(&f, buf, 4));
	moved = mremap(buf, 4 * PAGE, 4 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		       dst);
	ASSERT_MAP(moved);
	EXPECT_EQ(nvsvm_ptr(moved), nvsvm_ptr(dst));
	CHECK(query_expect(&f, buf, 4, NVSVM_QUERY_VALID, 0));
	GPU_PART();
	CHECK(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(buf)), nvsvm_ptr(buf),
			NVSVM_ACCESS_READ));
	CHECK(gpu_read_eq(&f, &moved[2 * WORDS + 3], pat(2 * WORDS + 3)));
	return KTAP_PASS;
}

/*
 * fork: the child holds the original pages; @who says which side writes
 * after the fork. The child reports its view of word 0 through @shared.
 */
enum { PARENT_CPU, PARENT_GPU, CHILD_CPU };

static int fork_cow(int who)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	volatile uint64_t *shared = ktap_shared(PAGE);
	int to_child[2], to_parent[2], status;
	char c = 0;
	struct fx f;
	pid_t pid;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_MAP(buf);
	ASSERT_MAP(shared);
	ASSERT_SYS(pipe(to_child));
	ASSERT_SYS(pipe(to_parent));
	FX_OPEN(&f);
	CHECK(map_all(&f, (void *)buf, 4));
	pid = fork();
	ASSERT_SYS(pid);
	if (!pid) {
		if (who == CHILD_CPU)
			buf[0] = 0xc0c0;
		if (write(to_parent[1], &c, 1) != 1 ||
		    read(to_child[0], &c, 1) != 1)
			_exit(2);
		shared[0] = buf[0];
		shared[1] = buf[1];
		_exit(0);
	}
	ASSERT_SYS(read(to_parent[0], &c, 1));
	/* fork write-protected the parent's pages: so must the GPU be. */
	CHECK(query_not_writable(&f, (void *)buf, 4));
	if (who == PARENT_CPU) {
		buf[0] = 0xb0b0;
		CHECK(gpu_read_eq(&f, &buf[0], 0xb0b0));
	} else if (who == PARENT_GPU) {
		CHECK(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[0]), 0xd0d0),
			     NULL));
		EXPECT_EQ(buf[0], 0xd0d0);
	} else {
		CHECK(gpu_read_eq(&f, &buf[0], pat(0)));
		EXPECT_EQ(buf[0], pat(0));
	}
	CHECK(gpu_read_eq(&f, &buf[1], pat(1)));
	ASSERT_SYS(write(to_child[1], &c, 1));
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status), "status %#x",
		    status);
	EXPECT_EQ(shared[0], who == CHILD_CPU ? 0xc0c0 : pat(0));
	EXPECT_EQ(shared[1], pat(1));
	return KTAP_PASS;
}

static int fork_cow_parent_cpu_write(void)
{
	return fork_cow(PARENT_CPU);
}

static int fork_cow_parent_gpu_write(void)
{
	return fork_cow(PARENT_GPU);
}

static int fork_cow_child_cpu_write(void)
{
	return fork_cow(CHILD_CPU);
}

static int tmp_file(void)
{
	char name[] = "/tmp/nvsvm-mirror-XXXXXX";
	int fd = mkstemp(name);

	if (fd >= 0) {
		unlink(name);
		return fd;
	}
	return memfd_create("nvsvm-mirror", 0);
}

static int ftruncate_removes(void)
{
	uint64_t data[4 * WORDS];
	volatile uint64_t *map;
	struct fx f;
	size_t i;
	int fd;

	NEED_CAP(NVSVM_CAP_EXEC);

	for (i = 0; i < 4 * WORDS; i++)
		data[i] = pat(i);
	fd = tmp_file();
	ASSERT_SYS(fd);
	EXPECT_EQ(pwrite(fd, data, sizeof(data), 0), sizeof(data));
	map = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_MAP(map);
	FX_OPEN(&f);
	CHECK(map_all(&f, (void *)map, 4));
	CHECK(gpu_read_eq(&f, &map[WORDS + 1], pat(WORDS + 1)));
	ASSERT_SYS(ftruncate(fd, 0));
	CHECK(query_expect(&f, (void *)map, 4, NVSVM_QUERY_VALID, 0));
	CHECK(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(&map[WORDS + 1])),
			nvsvm_ptr(map) + PAGE, NVSVM_ACCESS_READ));
	/* Extended again: new, zeroed pages, never the old contents. */
	ASSERT_SYS(ftruncate(fd, 4 * PAGE));
	CHECK(gpu_read_eq(&f, &map[WORDS + 1], 0));
	CHECK(gpu_read_eq(&f, &map[3 * WORDS], 0));
	EXPECT_EQ(map[WORDS + 1], 0);
	return KTAP_PASS;
}

/*
 * QUERY on the window: the uAPI does not say whether it is refused (the
 * window is not part of the area) or reports empty entries; accept both.
 */
static int window_not_valid(struct fx *f)
{
	uint32_t q[2] = { ~0U, ~0U };
	int ret = nvsvm_query(f->fd, WIN_ADDR, 2, q);

	if (ret == -EINVAL)
		return KTAP_PASS;
	EXPECT_OK(ret);
	EXPECT_EQ(q[0] & NVSVM_QUERY_VALID, 0);
	EXPECT_EQ(q[1] & NVSVM_QUERY_VALID, 0);
	return KTAP_PASS;
}

static int unmanaged_never_mirrored(void)
{
	volatile uint64_t *win;
	uint64_t c0 = 0, c1 = 0;
	int have;
	struct fx f;

	FX_OPEN(&f);
	win = mmap((void *)WIN_ADDR, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_MAP(win);
	win[0] = 42;
	win[WORDS] = 43;
	EXPECT_ERR(nvsvm_map(f.fd, WIN_ADDR, 2 * PAGE,
			     NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL), EINVAL);
	CHECK(window_not_valid(&f));
	GPU_PART();
	have = !nvsvm_stat_read(dev_index, "cancels", &c0);
	CHECK(gpu_fault(&f, nvsvm_op_read(WIN_ADDR), WIN_ADDR,
			NVSVM_ACCESS_READ));
	CHECK(gpu_fault(&f, nvsvm_op_write(WIN_ADDR + PAGE, 1),
			WIN_ADDR + PAGE, NVSVM_ACCESS_WRITE));
	CHECK(window_not_valid(&f));
	EXPECT_EQ(win[WORDS], 43);
	if (have && !nvsvm_stat_read(dev_index, "cancels", &c1))
		EXPECT_TRUE(c1 - c0 >= 2, "cancels went %llu -> %llu",
			    (unsigned long long)c0, (unsigned long long)c1);
	return KTAP_PASS;
}

static int read_stat(const char *name, uint64_t *v)
{
	return nvsvm_stat_read(dev_index, name, v);
}

static int pt_bytes_return(void)
{
	uint64_t pt0, pt1, pt2, pt3, pm1, pm2, pm3;
	const size_t chunk = 8 * PAGE;
	void *bufs[4];
	struct fx f;
	int i, ret;

	ret = read_stat("pt_bytes", &pt0);
	if (ret || read_stat("pages_mapped", &pm1))
		SKIP("debugfs pt_bytes/pages_mapped: %s", strerror(-ret ?: ENOENT));
	FX_OPEN(&f);
	EXPECT_OK(read_stat("pt_bytes", &pt1));
	EXPECT_OK(read_stat("pages_mapped", &pm1));
	/* Spread over distinct page tables: 1 GiB apart. */
	for (i = 0; i < 4; i++) {
		bufs[i] = mmap((void *)(0x7e0000000000ULL + ((uint64_t)i << 30)),
			       chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_MAP(bufs[i]);
		memset(bufs[i], i + 1, chunk);
		CHECK(map_all(&f, bufs[i], chunk / PAGE));
	}
	EXPECT_OK(read_stat("pt_bytes", &pt2));
	EXPECT_OK(read_stat("pages_mapped", &pm2));
	EXPECT_TRUE(pt2 > pt1, "pt_bytes %llu -> %llu after MAP",
		    (unsigned long long)pt1, (unsigned long long)pt2);
	EXPECT_TRUE(pm2 - pm1 >= 4 * chunk / PAGE, "pages_mapped %llu -> %llu",
		    (unsigned long long)pm1, (unsigned long long)pm2);
	for (i = 0; i < 4; i++)
		ASSERT_SYS(munmap(bufs[i], chunk));
	EXPECT_OK(read_stat("pt_bytes", &pt3));
	EXPECT_OK(read_stat("pages_mapped", &pm3));
	EXPECT_EQ(pt3, pt1);
	EXPECT_EQ(pm3, 0);
	/* Closing the file frees the rest (the root directory). */
	close(f.fd);
	for (i = 0; i < 100; i++) {
		EXPECT_OK(read_stat("pt_bytes", &pt3));
		if (pt3 == pt0)
			break;
		usleep(10000);
	}
	EXPECT_EQ(pt3, pt0);
	return KTAP_PASS;
}

/* The GPC the warm-TLB cases pin their programs to. */
static uint32_t warm_gpc(void)
{
	return info.gpc_count > 1 ? 1 : 0;
}

/*
 * 16 pages in one 2 MiB block, from its second page on (no aligned 64 KiB
 * group of them, so the GPU maps them with 4 KiB PTEs of one small-page
 * table), not a THP, filled with pat(); NULL on failure.
 */
static uint64_t *leaf_pages(void)
{
	char *raw = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *p;
	size_t i;

	if (raw == MAP_FAILED)
		return NULL;
	p = (uint64_t *)(((uintptr_t)raw + 2 * MiB - 1) & ~(2 * MiB - 1));
	madvise(p, 2 * MiB, MADV_NOHUGEPAGE);
	p += WORDS;
	for (i = 0; i < 16 * WORDS; i++)
		p[i] = pat(i);
	return p;
}

/*
 * A warm TLB and a partial unmap: a GPC reads 15 mapped pages (its TLB
 * now holds them), munmap removes 4 of them from the middle of their page
 * table (the table stays), the same GPC reads one of the 4 again: it must
 * fault, never see the old data; the pages around it still read.
 */
static int munmap_partial_warm_tlb(void)
{
	uint64_t *buf = leaf_pages(), inv0 = 0, inv1 = 0, hit0 = 0, hit1 = 0;
	uint32_t gpc = warm_gpc();
	struct nvsvm_op ops[16];
	struct nvsvm_exec e;
	struct fx f;
	int i;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_MAP(buf);
	FX_OPEN(&f);
	CHECK(map_all(&f, buf, 16));
	CHECK(query_expect(&f, buf, 16, NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
	/*
	 * A first partial unmap releases whatever table the mapping left
	 * empty (with its own invalidate): the one under test releases none.
	 */
	ASSERT_SYS(munmap(&buf[15 * WORDS], PAGE));
	for (i = 0; i < 15; i++)
		ops[i] = nvsvm_op_read(nvsvm_ptr(&buf[i * WORDS + 3]));
	CHECK(gpu_run_on(&f, gpc, 10000, ops, 15, &e));
	EXPECT_EQ(e.status, NVSVM_EXEC_OK);
	for (i = 0; i < 15; i++)
		EXPECT_EQ(ops[i].result, pat(i * WORDS + 3));

	vgpu_stat_read("invalidates", &inv0);
	ASSERT_SYS(munmap(&buf[4 * WORDS], 4 * PAGE));
	vgpu_stat_read("invalidates", &inv1);
	CHECK(query_expect(&f, &buf[4 * WORDS], 4, NVSVM_QUERY_VALID, 0));

	ops[0] = nvsvm_op_read(nvsvm_ptr(&buf[5 * WORDS + 3]));
	vgpu_stat_read("tlb_hits", &hit0);
	CHECK(gpu_run_on(&f, gpc, 10000, ops, 1, &e));
	vgpu_stat_read("tlb_hits", &hit1);
	ktap_note("munmap: %llu model invalidates; re-read: %llu TLB hits",
		  (unsigned long long)(inv1 - inv0),
		  (unsigned long long)(hit1 - hit0));
	if (e.status == NVSVM_EXEC_OK)
		KTAP_FAIL_MSG("GPC %u read an unmapped page: %#llx (the old data is %#llx)",
			      gpc, (unsigned long long)ops[0].result,
			      (unsigned long long)pat(5 * WORDS + 3));
	EXPECT_EQ(e.status, NVSVM_EXEC_FAULT);
	EXPECT_EQ(e.fault_addr & ~(PAGE - 1), nvsvm_ptr(&buf[5 * WORDS]));

	ops[0] = nvsvm_op_read(nvsvm_ptr(&buf[3 * WORDS + 3]));
	ops[1] = nvsvm_op_read(nvsvm_ptr(&buf[8 * WORDS + 3]));
	CHECK(gpu_run_on(&f, gpc, 10000, ops, 2, &e));
	EXPECT_EQ(e.status, NVSVM_EXEC_OK);
	EXPECT_EQ(ops[0].result, pat(3 * WORDS + 3));
	EXPECT_EQ(ops[1].result, pat(8 * WORDS + 3));
	return KTAP_PASS;
}

/*
 * A warm TLB and a permission upgrade in place: after fork the parent's
 * pages are write-protected; the child writes its own copies and exits, so
 * the parent's pages are its alone. A GPC reads them (mapped read-only, in
 * its TLB so), then writes them: the CPU makes the same pages writable
 * without a notifier, the driver upgrades the PTEs, and only its own
 * invalidate (a replay invalidates nothing) lets the write through. One
 * fault per page (vgpu counters), every write lands.
 */
static int write_upgrade_warm_tlb(void)
{
	volatile uint64_t *buf = anon_filled(64 * PAGE);
	uint64_t f0 = 0, f1 = 0, r0 = 0, r1 = 0;
	uint32_t gpc = warm_gpc();
	struct nvsvm_op ops[4];
	struct nvsvm_exec e;
	struct fx f;
	pid_t pid;
	int i;

	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_VGPU();
	ASSERT_MAP(buf);
	FX_OPEN(&f);
	pid = fork();
	ASSERT_SYS(pid);
	if (!pid) {
		for (i = 0; i < 4; i++)
			buf[i * WORDS] = 0xc0c0;
		_exit(0);
	}
	EXPECT_EQ(wait_child(pid), 0);
	for (i = 0; i < 4; i++)
		ops[i] = nvsvm_op_read(nvsvm_ptr(&buf[i * WORDS + 1]));
	CHECK(gpu_run_on(&f, gpc, 10000, ops, 4, &e));
	EXPECT_EQ(e.status, NVSVM_EXEC_OK);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(ops[i].result, pat(i * WORDS + 1));
	CHECK(query_expect(&f, (void *)buf, 4,
			   NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
			   NVSVM_QUERY_VALID));

	EXPECT_OK(vgpu_stat_read("faults", &f0));
	EXPECT_OK(vgpu_stat_read("refaults", &r0));
	for (i = 0; i < 4; i++)
		ops[i] = nvsvm_op_write(nvsvm_ptr(&buf[i * WORDS + 2]), 0xd0 + i);
	CHECK(gpu_run_on(&f, gpc, 5000, ops, 4, &e));
	EXPECT_OK(vgpu_stat_read("faults", &f1));
	EXPECT_OK(vgpu_stat_read("refaults", &r1));
	if (e.status != NVSVM_EXEC_OK)
		KTAP_FAIL_MSG("writes on GPC %u: status %s after %u of 4, %llu faults (%llu again at once)",
			      gpc, nvsvm_status_name(e.status), e.done,
			      (unsigned long long)(f1 - f0),
			      (unsigned long long)(r1 - r0));
	EXPECT_TRUE(f1 - f0 <= 4, "%llu faults for 4 writes (%llu again at once)",
		    (unsigned long long)(f1 - f0),
		    (unsigned long long)(r1 - r0));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(buf[i * WORDS + 2], 0xd0 + i);
		EXPECT_EQ(buf[i * WORDS], pat(i * WORDS));
	}
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	KTAP_CASE(map_fault_counts),
	KTAP_CASE(map_present_only),
	KTAP_CASE(map_fault_efault),
	KTAP_CASE(query_after_map),
	KTAP_CASE(gpu_reads_cpu_data),
	KTAP_CASE(gpu_writes_seen_by_cpu),
	KTAP_CASE(munmap_removes),
	KTAP_CASE(mprotect_read_downgrades),
	KTAP_CASE(mprotect_none_removes),
	KTAP_CASE(dontneed_gives_zero),
	KTAP_CASE(mremap_moves),
	KTAP_CASE(fork_cow_parent_cpu_write),
	KTAP_CASE(fork_cow_parent_gpu_write),
	KTAP_CASE(fork_cow_child_cpu_write),
	KTAP_CASE(ftruncate_removes),
	KTAP_CASE(unmanaged_never_mirrored),
	KTAP_CASE(pt_bytes_return),
	KTAP_CASE(munmap_partial_warm_tlb),
	KTAP_CASE(write_upgrade_warm_tlb),
};

int main(void)
{
	return test_main(cases, KTAP_ARRAY_SIZE(cases), 0);
}
