// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers in the unmanaged window (BUF_ALLOC, BUF_FREE, mmap of the file):
 * driver memory the GPU and the CPU see at the same address. Data goes
 * both ways; every bad input gets its errno and changes nothing; a freed
 * buffer is gone from the GPU even with its translations in the TLB;
 * nothing but BUF_FREE, AREA_FINI and close takes a buffer off the GPU
 * (not the CPU's munmap, not a prefetch just below the window); the
 * pages outlive the file while the CPU maps them; a memory cgroup limit
 * makes BUF_ALLOC fail with ENOMEM.
 *
 * GPU accesses that must be cancelled, and those that must see a TLB
 * entry made before, run on GPC 0.
 */
#include "kselftest_harness.h"
#include "common.h"

#define BUF_PAGES	16
#define BUF_SIZE	(BUF_PAGES * PAGE)
#define RW		(PROT_READ | PROT_WRITE)
#define PARAM		"/sys/module/nvsvm/parameters/prefetch_threshold"

FIXTURE_FX(dev, FX_NO_AREA, FX_NO_CHAN);
FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA);

/* A buffer of the test: handle, mmap offset, address and size. */
struct tbuf {
	uint32_t h;
	uint64_t off;
	uint64_t addr;
	uint64_t size;
	volatile uint64_t *p;
};

/* A buffer at @addr, mapped on the CPU there when @map. */
static int buf_new(struct fx *f, uint64_t addr, uint64_t size, int map,
		   struct tbuf *b)
{
	b->addr = addr;
	b->size = size;
	b->p = (volatile uint64_t *)(uintptr_t)addr;
	CHK_OK(nvsvm_buf_alloc(f->fd, addr, size, 0, &b->h, &b->off));
	CHK_TRUE(b->h != 0, "handle %u", b->h);
	if (map)
		CHK_OK(nvsvm_buf_mmap(f->fd, addr, size, b->off, RW));
	return KTAP_PASS;
}

/* One operation on GPC 0 that must complete; its result in *@result. */
static int gpc0_ok(struct fx *f, struct nvsvm_op op, uint64_t *result)
{
	struct nvsvm_exec e;

	CHECK(gpu_run_on(f, 0, TIMEOUT_MS, &op, 1, &e));
	if (e.status != NVSVM_EXEC_OK)
		KTAP_FAIL_MSG("op %u at %#llx on GPC 0: status %s, expected OK",
			      op.code, (unsigned long long)op.addr,
			      nvsvm_status_name(e.status));
	if (result)
		*result = op.result;
	return KTAP_PASS;
}

/* A read at @addr on GPC 0 is cancelled. */
static int gpc0_read_cancelled(struct fx *f, uint64_t addr)
{
	struct nvsvm_op op = nvsvm_op_read(addr);
	struct nvsvm_exec e;

	CHECK(gpu_run_on(f, 0, TIMEOUT_MS, &op, 1, &e));
	if (e.status != NVSVM_EXEC_FAULT)
		KTAP_FAIL_MSG("GPU read at %#llx: status %s (read %#llx), expected FAULT",
			      (unsigned long long)addr,
			      nvsvm_status_name(e.status),
			      (unsigned long long)op.result);
	CHK_EQ(e.fault_addr & ~(PAGE - 1), addr & ~(PAGE - 1));
	return KTAP_PASS;
}

/* The GPU sums the buffer @b and finds @want. */
static int gpu_buf_sum(struct fx *f, const struct tbuf *b, uint64_t want)
{
	return gpu_sum_eq(f, (const void *)b->p, b->size, want);
}

/* Sum of the words i * @mul + @add, i < @n. */
static uint64_t series(uint64_t n, uint64_t mul, uint64_t add)
{
	return mul * (n * (n - 1) / 2) + n * add;
}

/*
 * The CPU sees the zeroed pages, then what the GPU writes (FILL), the GPU
 * sees what the CPU writes (SUM, READ) and copies it within the buffer.
 */
TEST_F(chan, gpu_cpu_both_ways)
{
	struct fx *f = &self->fx;
	uint64_t i, half = BUF_SIZE / 2, n = BUF_SIZE / 8;
	struct tbuf b;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, 1, &b));
	ASSERT_PASS(cpu_check(b.p, n, 0));
	ASSERT_PASS(gpu_buf_sum(f, &b, 0));
	ASSERT_PASS(gpu_ok1(f, nvsvm_op_fill(b.addr, BUF_SIZE, 0xa5a5), NULL));
	ASSERT_PASS(cpu_check(b.p, n, 0xa5a5));
	for (i = 0; i < n / 2; i++)
		b.p[n / 2 + i] = 3 * i + 1;
	ASSERT_PASS(gpu_read_eq(f, &b.p[n - 1], 3 * (n / 2 - 1) + 1));
	ASSERT_PASS(gpu_ok1(f, nvsvm_op_copy(b.addr, b.addr + half, half),
			    NULL));
	for (i = 0; i < n / 2; i++) {
		ASSERT_EQ(3 * i + 1, b.p[i]);
		ASSERT_EQ(3 * i + 1, b.p[n / 2 + i]);
	}
	ASSERT_PASS(gpu_buf_sum(f, &b, 2 * series(n / 2, 3, 1)));
	/*
	 * Atomics work on buffer pages where the link is coherent for them;
	 * on PCIe the CPU's updates could be lost: refused.
	 */
	if (info.caps & NVSVM_CAP_SYSMEM_ATOMICS_ALL) {
		ASSERT_PASS(gpu_ok1(f, nvsvm_op_atomic_add(b.addr, 10), &i));
		ASSERT_EQ(1, i);
		ASSERT_EQ(11, b.p[0]);
	} else {
		ASSERT_PASS(gpu_fault(f, nvsvm_op_atomic_add(b.addr, 10),
				      b.addr, NVSVM_ACCESS_ATOMIC));
		ASSERT_EQ(1, b.p[0]);
	}
	ASSERT_EQ(0, nvsvm_buf_free(f->fd, b.h));
	ASSERT_EQ(0, munmap((void *)b.p, BUF_SIZE));
}

/* A buffer may fill the window exactly, at its first and last page. */
TEST_F(chan, window_edges)
{
	struct fx *f = &self->fx;
	uint64_t last = WIN_ADDR + WIN_SIZE - PAGE;
	struct tbuf a, z;

	ASSERT_PASS(buf_new(f, WIN_ADDR, PAGE, 1, &a));
	ASSERT_PASS(buf_new(f, last, PAGE, 1, &z));
	a.p[0] = 0x1111;
	z.p[WORDS - 1] = 0x2222;
	GPU_PART();
	ASSERT_PASS(gpu_read_eq(f, &a.p[0], 0x1111));
	ASSERT_PASS(gpu_read_eq(f, &z.p[WORDS - 1], 0x2222));
	ASSERT_PASS(gpu_fault(f, nvsvm_op_read(WIN_ADDR + PAGE),
			      WIN_ADDR + PAGE, NVSVM_ACCESS_READ));
	ASSERT_PASS(gpu_fault(f, nvsvm_op_read(last - PAGE), last - PAGE,
			      NVSVM_ACCESS_READ));
}

/* The raw ioctl, with any field set. */
static int buf_alloc_raw(int fd, struct nvsvm_buf_alloc a)
{
	return xioctl(fd, NVSVM_IOCTL_BUF_ALLOC, &a);
}

/*
 * Every bad BUF_ALLOC gets its errno and maps nothing (a GPU read there
 * is still cancelled, a buffer there can be had afterwards); the buffer
 * already there keeps its data.
 */
TEST_F(chan, alloc_bad_input)
{
	struct fx *f = &self->fx;
	uint64_t end = WIN_ADDR + WIN_SIZE, at = WIN_ADDR + 64 * PAGE;
	struct nvsvm_buf_alloc a;
	struct tbuf b, c;
	uint32_t h = 0;
	char *low;

	ASSERT_PASS(buf_new(f, at, BUF_SIZE, 1, &b));
	b.p[0] = 0x77;
	/* Unaligned address or size, zero size, wrapping. */
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, WIN_ADDR + 8, PAGE, 0, &h,
					   NULL));
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, WIN_ADDR, PAGE + 8, 0, &h,
					   NULL));
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, WIN_ADDR, 0, 0, &h, NULL));
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, ~0ULL - PAGE + 1, 2 * PAGE,
					   0, &h, NULL));
	/* Outside the window, or partly: below, above, in mirrored memory. */
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, WIN_ADDR - PAGE, 2 * PAGE,
					   0, &h, NULL));
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, end - PAGE, 2 * PAGE, 0, &h,
					   NULL));
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, end, PAGE, 0, &h, NULL));
	low = anon(PAGE);
	ASSERT_NE(NULL, low);
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(f->fd, nvsvm_ptr(low), PAGE, 0, &h,
					   NULL));
	/* Over the buffer: inside, across its start, across its end. */
	ASSERT_EQ(-EEXIST, nvsvm_buf_alloc(f->fd, at + PAGE, PAGE, 0, &h,
					   NULL));
	ASSERT_EQ(-EEXIST, nvsvm_buf_alloc(f->fd, at - PAGE, 2 * PAGE, 0, &h,
					   NULL));
	ASSERT_EQ(-EEXIST, nvsvm_buf_alloc(f->fd, at + BUF_SIZE - PAGE,
					   2 * PAGE, 0, &h, NULL));
	/* Unknown flags; the results not zero on input. */
	a = (struct nvsvm_buf_alloc){ .addr = WIN_ADDR, .size = PAGE,
				      .flags = 1 };
	ASSERT_EQ(-EINVAL, buf_alloc_raw(f->fd, a));
	a.flags = 0x80000000;
	ASSERT_EQ(-EINVAL, buf_alloc_raw(f->fd, a));
	a.flags = 0;
	a.handle = 1;
	ASSERT_EQ(-EINVAL, buf_alloc_raw(f->fd, a));
	a.handle = 0;
	a.mmap_offset = PAGE;
	ASSERT_EQ(-EINVAL, buf_alloc_raw(f->fd, a));
	ASSERT_EQ(0, h);

	/* Nothing of it happened: the pages around are free still. */
	ASSERT_EQ(b.p[0], 0x77);
	if (info.caps & NVSVM_CAP_EXEC) {
		ASSERT_PASS(gpu_read_eq(f, &b.p[0], 0x77));
		ASSERT_PASS(gpu_fault(f, nvsvm_op_read(WIN_ADDR), WIN_ADDR,
				      NVSVM_ACCESS_READ));
		ASSERT_PASS(gpu_fault(f, nvsvm_op_read(at - PAGE), at - PAGE,
				      NVSVM_ACCESS_READ));
		ASSERT_PASS(gpu_fault(f, nvsvm_op_read(at + BUF_SIZE),
				      at + BUF_SIZE, NVSVM_ACCESS_READ));
	}
	ASSERT_PASS(buf_new(f, at - PAGE, PAGE, 0, &c));
	ASSERT_PASS(buf_new(f, at + BUF_SIZE, PAGE, 0, &c));
	ASSERT_PASS(buf_new(f, WIN_ADDR, PAGE, 0, &c));
	ASSERT_PASS(buf_new(f, end - PAGE, PAGE, 0, &c));
}

/* No area: EINVAL; nor after AREA_FINI. */
TEST_F(dev, alloc_without_area)
{
	uint32_t h = 0;

	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(self->fx.fd, WIN_ADDR, PAGE, 0, &h,
					   NULL));
	ASSERT_EQ(0, nvsvm_area_init(self->fx.fd, WIN_ADDR, WIN_SIZE));
	ASSERT_EQ(0, nvsvm_area_fini(self->fx.fd));
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(self->fx.fd, WIN_ADDR, PAGE, 0, &h,
					   NULL));
	/* An area with an empty window has no room either. */
	ASSERT_EQ(0, nvsvm_area_init(self->fx.fd, WIN_ADDR, 0));
	ASSERT_EQ(-EINVAL, nvsvm_buf_alloc(self->fx.fd, WIN_ADDR, PAGE, 0, &h,
					   NULL));
	ASSERT_EQ(0, h);
	ASSERT_EQ(-EINVAL, nvsvm_buf_free(self->fx.fd, 1));
}

/* BUF_FREE: unknown handles, flags, twice. */
TEST_F(chan, free_bad_input)
{
	struct nvsvm_buf_free fr = { 0 };
	struct fx *f = &self->fx;
	struct tbuf b;

	ASSERT_EQ(-EINVAL, nvsvm_buf_free(f->fd, 0));
	ASSERT_EQ(-EINVAL, nvsvm_buf_free(f->fd, 1));
	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, 1, &b));
	b.p[1] = 0x99;
	ASSERT_EQ(-EINVAL, nvsvm_buf_free(f->fd, b.h + 1));
	ASSERT_EQ(-EINVAL, nvsvm_buf_free(f->fd, ~0U));
	fr.handle = b.h;
	fr.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(f->fd, NVSVM_IOCTL_BUF_FREE, &fr));
	/* Still there. */
	if (info.caps & NVSVM_CAP_EXEC)
		ASSERT_PASS(gpu_read_eq(f, &b.p[1], 0x99));
	ASSERT_EQ(0, nvsvm_buf_free(f->fd, b.h));
	ASSERT_EQ(-EINVAL, nvsvm_buf_free(f->fd, b.h));
	/* The CPU mapping keeps the pages. */
	ASSERT_EQ(0x99, b.p[1]);
	ASSERT_EQ(0, munmap((void *)b.p, BUF_SIZE));
}

static void *mmap_buf(int fd, uint64_t addr, uint64_t size, int flags,
		      uint64_t off)
{
	return mmap((void *)(uintptr_t)addr, size, RW, flags, fd, (off_t)off);
}

/*
 * mmap(2) only at the buffer's address and size, shared, with its offset:
 * EINVAL otherwise, and nothing mapped.
 */
TEST_F(chan, mmap_bad_input)
{
	const int fixed = MAP_SHARED | MAP_FIXED_NOREPLACE;
	struct fx *f = &self->fx;
	uint64_t at = WIN_ADDR + 32 * PAGE;
	struct tbuf b, c;
	void *p;

	ASSERT_PASS(buf_new(f, at, BUF_SIZE, 0, &b));
	ASSERT_PASS(buf_new(f, WIN_ADDR, PAGE, 0, &c));
	/* Another fixed address: below, above (a hint: mmap_null_hint). */
	p = mmap_buf(f->fd, at - PAGE, BUF_SIZE, fixed, b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap_buf(f->fd, at + PAGE, BUF_SIZE, fixed, b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	/* Other size: part of it, more. */
	p = mmap_buf(f->fd, at, BUF_SIZE - PAGE, fixed, b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap_buf(f->fd, at, BUF_SIZE + PAGE, fixed, b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	/* Private: a copy-on-write copy would split the CPU and GPU views. */
	p = mmap_buf(f->fd, at, BUF_SIZE, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
		     b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	/* Another buffer's offset, an unknown one. */
	p = mmap_buf(f->fd, at, BUF_SIZE, fixed, c.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap_buf(f->fd, at, BUF_SIZE, fixed, b.off + 8 * PAGE);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap_buf(f->fd, at, BUF_SIZE, fixed, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	/* Nothing was mapped: the right call still finds the range free. */
	p = mmap_buf(f->fd, at, BUF_SIZE, fixed, b.off);
	ASSERT_EQ((void *)(uintptr_t)at, p);
	/* A mapping never moves (the GPU sees the buffer there). */
	ASSERT_EQ(MAP_FAILED, mremap(p, BUF_SIZE, BUF_SIZE,
				     MREMAP_MAYMOVE | MREMAP_FIXED,
				     (void *)(uintptr_t)(at + 64 * PAGE)));
	ASSERT_EQ(MAP_FAILED, mremap(p, BUF_SIZE, 2 * BUF_SIZE, 0));
	((volatile uint64_t *)p)[0] = 5;
	ASSERT_EQ(5, b.p[0]);
	/* After BUF_FREE its offset is unknown. */
	ASSERT_EQ(0, munmap(p, BUF_SIZE));
	ASSERT_EQ(0, nvsvm_buf_free(f->fd, b.h));
	p = mmap_buf(f->fd, at, BUF_SIZE, fixed, b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
}

/* mmap(2) of the file fails with @err, mapping nothing. */
static int mmap_err(int fd, uint64_t addr, uint64_t size, int flags,
		    uint64_t off, int err)
{
	void *p = mmap_buf(fd, addr, size, flags, off);

	if (p != MAP_FAILED) {
		munmap(p, size);
		KTAP_FAIL_MSG("mmap(%#llx, %#llx, flags %#x, offset %#llx): %p, expected %s",
			      (unsigned long long)addr,
			      (unsigned long long)size, flags,
			      (unsigned long long)off, p, strerror(err));
	}
	if (errno != err)
		KTAP_FAIL_MSG("mmap(%#llx, %#llx, flags %#x, offset %#llx): %s, expected %s",
			      (unsigned long long)addr,
			      (unsigned long long)size, flags,
			      (unsigned long long)off, strerror(errno),
			      strerror(err));
	return KTAP_PASS;
}

/* Mappings of /dev/nvsvm* in the process (/proc/self/maps), or -1. */
static int dev_maps(void)
{
	FILE *m = fopen("/proc/self/maps", "re");
	char line[512];
	int n = 0;

	if (!m)
		return -1;
	while (fgets(line, sizeof(line), m))
		if (strstr(line, "/dev/nvsvm"))
			n++;
	fclose(m);
	return n;
}

/* [@addr, @addr + @size) is mapped, every word i of it @v + i. */
static int anon_intact(uint64_t addr, uint64_t size, uint64_t v)
{
	const volatile uint64_t *p = (const volatile uint64_t *)(uintptr_t)addr;
	unsigned char vec[BUF_PAGES + 1];
	uint64_t i;

	CHK_TRUE(size <= sizeof(vec) * PAGE, "size %llu",
		 (unsigned long long)size);
	/* mincore() fails with ENOMEM where nothing is mapped. */
	if (mincore((void *)(uintptr_t)addr, size, vec))
		KTAP_FAIL_MSG("[%#llx, +%#llx) no longer mapped: %s",
			      (unsigned long long)addr,
			      (unsigned long long)size, strerror(errno));
	for (i = 0; i < size / 8; i++)
		if (p[i] != v + i)
			KTAP_FAIL_MSG("word %llu at %#llx: %#llx, expected %#llx",
				      (unsigned long long)i,
				      (unsigned long long)addr,
				      (unsigned long long)p[i],
				      (unsigned long long)(v + i));
	return KTAP_PASS;
}

/* Private anonymous memory at @addr, fixed, word i = @v + i. */
static int anon_at(uint64_t addr, uint64_t size, uint64_t v)
{
	volatile uint64_t *p;
	uint64_t i;

	p = mmap((void *)(uintptr_t)addr, size, RW,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHK_TRUE((void *)p == (void *)(uintptr_t)addr, "mmap at %#llx: %p (%s)",
		 (unsigned long long)addr, (void *)p, strerror(errno));
	for (i = 0; i < size / 8; i++)
		p[i] = v + i;
	return KTAP_PASS;
}

/*
 * mmap(NULL, ...) gives the buffer's own address (the file's
 * get_unmapped_area), and the CPU and the GPU see the same data there.
 */
TEST_F(chan, mmap_null_hint)
{
	struct fx *f = &self->fx;
	uint64_t at = WIN_ADDR + 32 * PAGE, i, n = BUF_SIZE / 8;
	volatile uint64_t *p;
	struct tbuf b;

	ASSERT_PASS(buf_new(f, at, BUF_SIZE, 0, &b));
	p = mmap_buf(f->fd, 0, BUF_SIZE, MAP_SHARED, b.off);
	if (p != MAP_FAILED && (uint64_t)(uintptr_t)p != at)
		munmap((void *)p, BUF_SIZE);
	if (p == MAP_FAILED)
		TH_LOG("mmap(NULL): %s", strerror(errno));
	ASSERT_EQ((void *)(uintptr_t)at, (void *)p);
	ASSERT_EQ(1, dev_maps());
	ASSERT_PASS(cpu_check(p, n, 0));
	GPU_PART();
	ASSERT_PASS(gpu_ok1(f, nvsvm_op_fill(at, BUF_SIZE, 0x0d2), NULL));
	ASSERT_PASS(cpu_check(p, n, 0x0d2));
	for (i = 0; i < n; i++)
		p[i] = i;
	ASSERT_PASS(gpu_buf_sum(f, &b, series(n, 1, 0)));
	ASSERT_PASS(gpu_read_eq(f, &p[n - 1], n - 1));
	ASSERT_EQ(0, munmap((void *)p, BUF_SIZE));
}

/*
 * A hint is only a hint: one elsewhere in the window, one in mirrored
 * memory (taken), one low in the address space all give the buffer's
 * address. MAP_FIXED_NOREPLACE elsewhere stays EINVAL (mmap_bad_input).
 */
TEST_F(chan, mmap_hint_elsewhere)
{
	struct fx *f = &self->fx;
	uint64_t at = WIN_ADDR + 32 * PAGE, hints[3];
	unsigned int i;
	struct tbuf b;
	void *p;

	ASSERT_PASS(buf_new(f, at, BUF_SIZE, 0, &b));
	hints[0] = at + 64 * PAGE;
	hints[1] = nvsvm_ptr(anon(PAGE));
	hints[2] = 1ULL << 32;
	for (i = 0; i < 3; i++) {
		p = mmap_buf(f->fd, hints[i], BUF_SIZE, MAP_SHARED, b.off);
		if (p != MAP_FAILED && (uint64_t)(uintptr_t)p != at)
			munmap(p, BUF_SIZE);
		if (p != (void *)(uintptr_t)at)
			TH_LOG("hint %#llx: %p (%s)",
			       (unsigned long long)hints[i], p,
			       p == MAP_FAILED ? strerror(errno) : "elsewhere");
		ASSERT_EQ((void *)(uintptr_t)at, p);
		((volatile uint64_t *)p)[i] = 0x417 + i;
		ASSERT_EQ(0, munmap(p, BUF_SIZE));
	}
	ASSERT_EQ(0, dev_maps());
	GPU_PART();
	for (i = 0; i < 3; i++)
		ASSERT_PASS(gpu_read_eq(f, &b.p[i], 0x417 + i));
}

/*
 * Something mapped where the buffer goes: without MAP_FIXED, EEXIST (NULL
 * or the buffer's address as the hint), and the mapping there keeps its
 * data; MAP_FIXED replaces it, as anywhere.
 */
TEST_F(chan, mmap_address_taken)
{
	struct fx *f = &self->fx;
	uint64_t at = WIN_ADDR + 32 * PAGE;
	struct tbuf b;
	void *p;

	ASSERT_PASS(buf_new(f, at, BUF_SIZE, 0, &b));
	ASSERT_PASS(anon_at(at + BUF_SIZE - PAGE, PAGE, 0x7a4e0));
	ASSERT_PASS(mmap_err(f->fd, 0, BUF_SIZE, MAP_SHARED, b.off, EEXIST));
	ASSERT_PASS(mmap_err(f->fd, at, BUF_SIZE, MAP_SHARED, b.off, EEXIST));
	ASSERT_EQ(0, dev_maps());
	ASSERT_PASS(anon_intact(at + BUF_SIZE - PAGE, PAGE, 0x7a4e0));
	/* MAP_FIXED: the buffer's pages replace the anonymous one. */
	p = mmap_buf(f->fd, at, BUF_SIZE, MAP_SHARED | MAP_FIXED, b.off);
	ASSERT_EQ((void *)(uintptr_t)at, p);
	ASSERT_PASS(cpu_check(b.p, BUF_SIZE / 8, 0));
	ASSERT_EQ(0, munmap(p, BUF_SIZE));
	/* Free again: NULL works. */
	p = mmap_buf(f->fd, 0, BUF_SIZE, MAP_SHARED, b.off);
	ASSERT_EQ((void *)(uintptr_t)at, p);
	ASSERT_EQ(0, munmap(p, BUF_SIZE));
}

/*
 * A bad mmap(2) changes nothing, MAP_FIXED included: with private memory
 * over the buffer's range, each call below fails with EINVAL before the
 * kernel unmaps anything, and the memory keeps its data; with a NULL hint
 * nothing of the file gets mapped.
 */
TEST_F(chan, mmap_bad_changes_nothing)
{
	const int fixed = MAP_SHARED | MAP_FIXED;
	struct fx *f = &self->fx;
	uint64_t at = WIN_ADDR + 32 * PAGE, v = 0xa40000;
	struct tbuf b, c;
	void *p;

	ASSERT_PASS(buf_new(f, at, BUF_SIZE, 0, &b));
	ASSERT_PASS(buf_new(f, WIN_ADDR, PAGE, 0, &c));
	ASSERT_PASS(anon_at(at, BUF_SIZE, v));
	/* An unknown offset, another buffer's, 0. */
	ASSERT_PASS(mmap_err(f->fd, at, BUF_SIZE, fixed, b.off + PAGE, EINVAL));
	ASSERT_PASS(anon_intact(at, BUF_SIZE, v));
	ASSERT_PASS(mmap_err(f->fd, at, BUF_SIZE, fixed, c.off, EINVAL));
	ASSERT_PASS(mmap_err(f->fd, at, BUF_SIZE, fixed, 0, EINVAL));
	ASSERT_PASS(anon_intact(at, BUF_SIZE, v));
	/* Part of the size, more. */
	ASSERT_PASS(mmap_err(f->fd, at, BUF_SIZE - PAGE, fixed, b.off, EINVAL));
	ASSERT_PASS(mmap_err(f->fd, at, BUF_SIZE + PAGE, fixed, b.off, EINVAL));
	ASSERT_PASS(anon_intact(at, BUF_SIZE, v));
	/* Private; another address over the same memory. */
	ASSERT_PASS(mmap_err(f->fd, at, BUF_SIZE,
			     MAP_PRIVATE | MAP_FIXED, b.off, EINVAL));
	ASSERT_PASS(mmap_err(f->fd, at + PAGE, BUF_SIZE, fixed, b.off, EINVAL));
	ASSERT_PASS(anon_intact(at, BUF_SIZE, v));
	ASSERT_EQ(0, dev_maps());
	/* The same with a NULL hint: EINVAL, nothing mapped. */
	ASSERT_EQ(0, munmap((void *)(uintptr_t)at, BUF_SIZE));
	ASSERT_PASS(mmap_err(f->fd, 0, BUF_SIZE,
			     MAP_SHARED, b.off + PAGE, EINVAL));
	ASSERT_PASS(mmap_err(f->fd, 0, BUF_SIZE - PAGE,
			     MAP_SHARED, b.off, EINVAL));
	ASSERT_PASS(mmap_err(f->fd, 0, BUF_SIZE, MAP_PRIVATE, b.off, EINVAL));
	ASSERT_EQ(0, dev_maps());
	/* The buffer is whole: the right call maps it. */
	p = mmap_buf(f->fd, 0, BUF_SIZE, MAP_SHARED, b.off);
	ASSERT_EQ((void *)(uintptr_t)at, p);
	ASSERT_PASS(cpu_check(b.p, BUF_SIZE / 8, 0));
	ASSERT_EQ(0, munmap(p, BUF_SIZE));
}

/*
 * A file opened read-only: a shared read-only mapping works (the kernel
 * clears VM_SHARED there, not VM_MAYSHARE), a writable one is the VFS's
 * EACCES, a private one still EINVAL.
 */
TEST(mmap_readonly_file)
{
	char path[32];
	struct tbuf b;
	struct fx f;
	void *p;

	snprintf(path, sizeof(path), "/dev/nvsvm%u", dev_index);
	f.fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, f.fd);
	ASSERT_EQ(0, nvsvm_area_init(f.fd, WIN_ADDR, WIN_SIZE));
	ASSERT_PASS(buf_new(&f, WIN_ADDR, BUF_SIZE, 0, &b));
	p = mmap((void *)(uintptr_t)b.addr, BUF_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, f.fd, (off_t)b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EACCES, errno);
	p = mmap((void *)(uintptr_t)b.addr, BUF_SIZE, PROT_READ,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, f.fd, (off_t)b.off);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap((void *)(uintptr_t)b.addr, BUF_SIZE, PROT_READ,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, f.fd, (off_t)b.off);
	ASSERT_EQ((void *)(uintptr_t)b.addr, p);
	ASSERT_PASS(cpu_check(b.p, BUF_SIZE / 8, 0));
	ASSERT_EQ(0, munmap(p, BUF_SIZE));
	close(f.fd);
}

/*
 * After BUF_FREE the GPU loses the buffer at once, even with its
 * translations in the TLB (a read on the same GPC just before): a read
 * is cancelled, and must not see the freed page. A neighbour buffer in
 * the same page table keeps the table, so that only the invalidate that
 * follows the PTEs' clearing (not the one after a table's unlinking) can
 * remove the translations. With a CPU mapping still there, the CPU keeps
 * the pages and their data.
 */
static void free_warm_case(struct __test_metadata *_metadata, struct fx *f,
			   int cpu_map)
{
	struct tbuf b, n;
	uint64_t v, i;

	ASSERT_PASS(buf_new(f, WIN_ADDR + BUF_SIZE, PAGE, 0, &n));
	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, cpu_map, &b));
	ASSERT_PASS(gpc0_ok(f, nvsvm_op_fill(b.addr, BUF_SIZE, 0xfeed), NULL));
	for (i = 0; i < BUF_PAGES; i++) {
		ASSERT_PASS(gpc0_ok(f, nvsvm_op_read(b.addr + i * PAGE), &v));
		ASSERT_EQ(0xfeed, v);
	}
	ASSERT_EQ(0, nvsvm_buf_free(f->fd, b.h));
	for (i = 0; i < BUF_PAGES; i++)
		ASSERT_PASS(gpc0_read_cancelled(f, b.addr + i * PAGE));
	ASSERT_PASS(gpc0_ok(f, nvsvm_op_read(n.addr), &v));
	ASSERT_EQ(0, v);
	if (cpu_map) {
		ASSERT_PASS(cpu_check(b.p, BUF_SIZE / 8, 0xfeed));
		ASSERT_EQ(0, munmap((void *)b.p, BUF_SIZE));
	}
	/* A new buffer there is a new, zeroed one. */
	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, 0, &b));
	ASSERT_PASS(gpu_buf_sum(f, &b, 0));
}

TEST_F(chan, free_cancels_warm_tlb)
{
	NEED_CAP(NVSVM_CAP_EXEC);
	free_warm_case(_metadata, &self->fx, 0);
}

TEST_F(chan, free_cancels_warm_tlb_cpu_mapped)
{
	NEED_CAP(NVSVM_CAP_EXEC);
	free_warm_case(_metadata, &self->fx, 1);
}

/*
 * The CPU's munmap of the buffer (an mmu notifier event over the window)
 * leaves the GPU mapping alone; a new mmap sees what the GPU wrote since.
 */
TEST_F(chan, munmap_keeps_gpu)
{
	struct fx *f = &self->fx;
	uint64_t i, n = BUF_SIZE / 8;
	struct tbuf b;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, 1, &b));
	for (i = 0; i < n; i++)
		b.p[i] = i;
	ASSERT_PASS(gpc0_ok(f, nvsvm_op_read(b.addr), NULL));
	ASSERT_EQ(0, munmap((void *)b.p, BUF_SIZE));
	ASSERT_PASS(gpu_buf_sum(f, &b, series(n, 1, 0)));
	ASSERT_PASS(gpc0_ok(f, nvsvm_op_write(b.addr + 8, 0xbeef), NULL));
	/* Part of it only: the VMA is split, the rest still works. */
	ASSERT_EQ(0, nvsvm_buf_mmap(f->fd, b.addr, b.size, b.off, RW));
	ASSERT_EQ(0xbeef, b.p[1]);
	ASSERT_EQ(0, munmap((void *)(b.p + WORDS), PAGE));
	ASSERT_EQ(3, b.p[3]);
	ASSERT_EQ(2 * WORDS, b.p[2 * WORDS]);
	ASSERT_PASS(gpu_read_eq(f, &b.p[WORDS + 1], WORDS + 1));
	ASSERT_EQ(0, nvsvm_buf_free(f->fd, b.h));
	ASSERT_EQ(5, b.p[5]);
}

/*
 * Prefetch from a fault just below the window does not touch a buffer at
 * the window's start: the block below is dense (every page written by the
 * CPU), the buffer's CPU mapping right above would give hmm pages too. The
 * buffer keeps its GPU mapping through the fault and through munmap of
 * the memory below (whose notifier clears what the prefetch mapped).
 */
TEST(prefetch_below_window)
{
	const uint64_t block = 0xe000000000ULL, bpages = 512, w = 384;
	uint64_t win = block + w * PAGE, i;
	volatile uint64_t *p;
	unsigned int old;
	struct tbuf b;
	struct fx f;
	int ret;

	NEED_CAP(NVSVM_CAP_EXEC);
	p = mmap((void *)block, bpages * PAGE, RW,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ((void *)block, (void *)p);
	for (i = 0; i < w; i++)
		p[i * WORDS] = 0x5000 + i;
	OPEN_DEV(f.fd);
	ASSERT_EQ(0, nvsvm_area_init(f.fd, win, (bpages - w) * PAGE));
	ASSERT_EQ(0, nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan));
	ASSERT_EQ(0, munmap((void *)win, (bpages - w) * PAGE));
	ASSERT_PASS(buf_new(&f, win, 64 * PAGE, 1, &b));
	for (i = 0; i < 64; i++)
		b.p[i * WORDS] = 0xb000 + i;
	ASSERT_PASS(gpc0_ok(&f, nvsvm_op_read(win), NULL));
	ASSERT_EQ(0, nvsvm_map(f.fd, block, (w - 1) * PAGE, 0, NULL));
	ret = set_param(PARAM, 51, &old);
	if (ret)
		SKIP(return, "%s: %s", PARAM, strerror(-ret));
	ret = gpu_read_eq(&f, &p[(w - 1) * WORDS], 0x5000 + w - 1);
	set_param(PARAM, old, NULL);
	ASSERT_PASS(ret);
	for (i = 0; i < 64; i++)
		ASSERT_PASS(gpu_read_eq(&f, &b.p[i * WORDS], 0xb000 + i));
	ASSERT_EQ(0, munmap((void *)p, w * PAGE));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(win - PAGE), win - PAGE,
			      NVSVM_ACCESS_READ));
	for (i = 0; i < 64; i++)
		ASSERT_PASS(gpu_read_eq(&f, &b.p[i * WORDS], 0xb000 + i));
	ASSERT_EQ(0, nvsvm_buf_free(f.fd, b.h));
	ASSERT_PASS(gpc0_read_cancelled(&f, win));
	ASSERT_EQ(0, munmap((void *)b.p, b.size));
	close(f.fd);
}

/*
 * Large pages at the window's edges: a THP whose 2 MiB block holds the
 * window [1 MiB, 1 MiB + 256 KiB) (the CPU maps its own pages there; the
 * GPU sees the buffer). MAP of the block's mirrored parts maps them with
 * 64 KiB PTEs up to the window on both sides, never a 2 MiB one over it;
 * the buffer keeps its pages through that and through munmap of the THP.
 */
TEST(large_pages_beside_window)
{
	const uint64_t block = 0xe000400000ULL, wpages = 64;
	const uint64_t win = block + MiB, wend = win + wpages * PAGE;
	uint64_t i, n = 2 * MiB / PAGE, mapped = 0;
	volatile uint64_t *p;
	uint32_t q[512];
	struct tbuf b;
	struct fx f;

	NEED_CAP(NVSVM_CAP_EXEC);
	p = mmap((void *)block, 2 * MiB, RW,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ((void *)block, (void *)p);
	ASSERT_EQ(0, madvise((void *)p, 2 * MiB, MADV_HUGEPAGE));
	for (i = 0; i < n; i++)
		p[i * WORDS] = 0x7000 + i;
	if (is_thp((const void *)p) != 1)
		SKIP(return, "no THP at %#llx", (unsigned long long)block);
	OPEN_DEV(f.fd);
	ASSERT_EQ(0, nvsvm_area_init(f.fd, win, wpages * PAGE));
	ASSERT_EQ(0, nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan));
	ASSERT_PASS(buf_new(&f, win, wpages * PAGE, 0, &b));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_fill(win, wpages * PAGE, 0xb0b0),
			    NULL));
	ASSERT_EQ(0, nvsvm_map(f.fd, block, win - block, 0, &mapped));
	ASSERT_EQ((win - block) / PAGE, mapped);
	ASSERT_EQ(0, nvsvm_map(f.fd, wend, block + 2 * MiB - wend, 0,
			       &mapped));
	ASSERT_EQ((block + 2 * MiB - wend) / PAGE, mapped);
	ASSERT_EQ(0, nvsvm_query(f.fd, win - 16 * PAGE, 16, q));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(16, NVSVM_QUERY_SHIFT(q[i]));
	ASSERT_EQ(0, nvsvm_query(f.fd, wend, 16, q));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(16, NVSVM_QUERY_SHIFT(q[i]));
	/* The CPU's pages around the window, the buffer in it. */
	ASSERT_PASS(gpu_read_eq(&f, &p[(win - block) / 8 - WORDS],
				0x7000 + (win - block) / PAGE - 1));
	ASSERT_PASS(gpu_read_eq(&f, &p[(wend - block) / 8],
				0x7000 + (wend - block) / PAGE));
	ASSERT_PASS(gpu_sum_eq(&f, (const void *)b.p, b.size,
			       0xb0b0 * (b.size / 8)));
	ASSERT_EQ(0x7000 + wpages / 2 + (win - block) / PAGE,
		  p[(win - block) / 8 + wpages / 2 * WORDS]);
	ASSERT_EQ(0, munmap((void *)p, 2 * MiB));
	ASSERT_PASS(gpu_sum_eq(&f, (const void *)b.p, b.size,
			       0xb0b0 * (b.size / 8)));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(win - PAGE), win - PAGE,
			      NVSVM_ACCESS_READ));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(wend), wend,
			      NVSVM_ACCESS_READ));
	ASSERT_EQ(0, nvsvm_buf_free(f.fd, b.h));
	ASSERT_PASS(gpc0_read_cancelled(&f, win));
	close(f.fd);
}

/*
 * MAP, UNMAP and MIGRATE stay out of the window (EINVAL), buffer or not:
 * the buffer keeps its GPU mapping.
 */
TEST_F(chan, window_calls_refused)
{
	struct fx *f = &self->fx;
	uint64_t moved = 0;
	struct tbuf b;
	uint32_t q;

	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, 1, &b));
	b.p[0] = 0x42;
	ASSERT_EQ(-EINVAL, nvsvm_map(f->fd, b.addr, BUF_SIZE, NVSVM_MAP_FAULT,
				     NULL));
	ASSERT_EQ(-EINVAL, nvsvm_unmap(f->fd, b.addr, BUF_SIZE));
	ASSERT_EQ(-EINVAL, nvsvm_unmap(f->fd, b.addr - PAGE, 2 * PAGE));
	ASSERT_EQ(-EINVAL, nvsvm_query(f->fd, b.addr, 1, &q));
	if (info.caps & NVSVM_CAP_DEVICE_PRIVATE)
		ASSERT_EQ(-EINVAL, nvsvm_migrate(f->fd, b.addr, BUF_SIZE,
						 NVSVM_MIGRATE_TO_VRAM,
						 &moved));
	GPU_PART();
	ASSERT_PASS(gpu_read_eq(f, &b.p[0], 0x42));
}

/*
 * AREA_FINI takes every buffer off the GPU (the handles go too); CPU
 * mappings keep their pages and data.
 */
TEST_F(chan, area_fini_drops_buffers)
{
	struct fx *f = &self->fx;
	struct tbuf b;

	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, 1, &b));
	b.p[7] = 0x1234;
	ASSERT_EQ(0, nvsvm_area_fini(f->fd));
	ASSERT_EQ(-EINVAL, nvsvm_buf_free(f->fd, b.h));
	ASSERT_EQ(0x1234, b.p[7]);
	ASSERT_EQ(0, nvsvm_area_init(f->fd, WIN_ADDR, WIN_SIZE));
	/* The old buffer is not in the new area. */
	ASSERT_EQ(0, nvsvm_chan_destroy(f->fd, f->chan));
	ASSERT_EQ(0, nvsvm_chan_create(f->fd, NVSVM_CHAN_JOIN_AREA, &f->chan));
	if (info.caps & NVSVM_CAP_EXEC)
		ASSERT_PASS(gpu_fault(f, nvsvm_op_read(b.addr), b.addr,
				      NVSVM_ACCESS_READ));
	ASSERT_EQ(0x1234, b.p[7]);
	ASSERT_EQ(0, munmap((void *)b.p, BUF_SIZE));
}

/*
 * close(2) with the CPU mapping live: the mapping keeps the file (and the
 * buffer) until munmap; the data stays readable and writable.
 */
TEST(close_with_cpu_mapping)
{
	struct tbuf b;
	struct fx f;

	NEED_CAP(NVSVM_CAP_EXEC);
	FX_OPEN(&f);
	ASSERT_PASS(buf_new(&f, WIN_ADDR, BUF_SIZE, 1, &b));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_fill(b.addr, BUF_SIZE, 0xc105e),
			    NULL));
	ASSERT_EQ(0, close(f.fd));
	ASSERT_PASS(cpu_check(b.p, BUF_SIZE / 8, 0xc105e));
	b.p[3] = 1;
	ASSERT_EQ(1, b.p[3]);
	ASSERT_EQ(0, munmap((void *)b.p, BUF_SIZE));
}

/* The same, by exit: the process ends with the mapping and the file. */
TEST(exit_with_cpu_mapping)
{
	pid_t pid;

	NEED_CAP(NVSVM_CAP_EXEC);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct tbuf b;
		struct fx f;

		if (fx_open(&f, FX_AREA, NVSVM_CHAN_JOIN_AREA) != KTAP_PASS ||
		    buf_new(&f, WIN_ADDR, BUF_SIZE, 1, &b) != KTAP_PASS)
			_exit(1);
		if (gpu_ok1(&f, nvsvm_op_fill(b.addr, BUF_SIZE, 7), NULL) !=
		    KTAP_PASS || b.p[9] != 7)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
}

/*
 * fork(2): the child shares the buffer's pages (MAP_SHARED), sees what the
 * GPU wrote, and what it writes the parent and the GPU see; its calls on
 * the parent's file fail with EPERM, mmap(2) included. Its exit leaves
 * the parent's buffer alone.
 */
TEST_F(chan, fork_shares_pages)
{
	struct fx *f = &self->fx;
	struct tbuf b;
	pid_t pid;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_PASS(buf_new(f, WIN_ADDR, BUF_SIZE, 1, &b));
	ASSERT_PASS(gpu_ok1(f, nvsvm_op_fill(b.addr, BUF_SIZE, 0xf0), NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint32_t h;
		void *p;

		if (b.p[WORDS] != 0xf0)
			_exit(1);
		b.p[WORDS] = 0xc41d;
		if (nvsvm_buf_free(f->fd, b.h) != -EPERM)
			_exit(2);
		if (nvsvm_buf_alloc(f->fd, WIN_ADDR + BUF_SIZE, PAGE, 0, &h,
				    NULL) != -EPERM)
			_exit(3);
		if (munmap((void *)b.p, BUF_SIZE))
			_exit(4);
		p = mmap_buf(f->fd, b.addr, BUF_SIZE, MAP_SHARED | MAP_FIXED,
			     b.off);
		if (p != MAP_FAILED || errno != EPERM)
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0xc41d, b.p[WORDS]);
	ASSERT_PASS(gpu_read_eq(f, &b.p[WORDS], 0xc41d));
	ASSERT_PASS(gpu_read_eq(f, &b.p[0], 0xf0));
}

/*
 * The pages are charged to the caller's memory cgroup: beyond its
 * memory.max BUF_ALLOC fails with ENOMEM (no OOM kill) and leaves nothing
 * mapped; within it, a buffer can be had.
 */
TEST(alloc_memcg_limit)
{
	const uint64_t big = 64 * MiB;
	uint32_t h = 0;
	struct tbuf b;
	struct fx f;

	CG_ENTER("16M");
	ASSERT_PASS(fx_open(&f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	ASSERT_EQ(-ENOMEM, nvsvm_buf_alloc(f.fd, WIN_ADDR, big, 0, &h, NULL));
	ASSERT_EQ(0, h);
	if (info.caps & NVSVM_CAP_EXEC) {
		ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(WIN_ADDR), WIN_ADDR,
				      NVSVM_ACCESS_READ));
		ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(WIN_ADDR + big - PAGE),
				      WIN_ADDR + big - PAGE,
				      NVSVM_ACCESS_READ));
	}
	ASSERT_PASS(buf_new(&f, WIN_ADDR, MiB, 1, &b));
	ASSERT_PASS(cpu_check(b.p, MiB / 8, 0));
	ASSERT_EQ(0, munmap((void *)b.p, MiB));
	close(f.fd);
	cg_leave();
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, 0);
}
