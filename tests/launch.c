// SPDX-License-Identifier: GPL-2.0
/*
 * NVSVM_IOCTL_LAUNCH: compiled C programs (tests/gpu/<name>.c, built by
 * tools/gpu/build-kernel.sh into build/tests/gpu/<name>.h) run over an
 * NDRange on the virtual GP100's SMs, every global access through its MMU.
 * Each case checks the program's results on data against the same
 * computation on the CPU; the trap and EINVAL cases check the launch's
 * out fields exactly (fault_pc from the image's nvgpu_mark_* labels).
 *
 * Floating point: this file is compiled with -ffp-contract=off
 * (tests/Makefile), as the programs are: no fused multiply-add on either
 * side, results equal bit for bit.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "common.h"
#include "launch.h"
#include "gpu/gpu_args.h"

#include "chase.h"
#include "histogram.h"
#include "touch.h"
#include "reduce.h"
#include "cancel.h"
#include "float.h"
#include "traps.h"

#define IMG(file)	gpu_##file##_image, sizeof(gpu_##file##_image)
#define LAUNCH_TIMEOUT	60000

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

/* Run @l on @f's channel (launch_run()): it must end with @status. */
static int launch_status(struct fx *f, struct nvsvm_launch *l,
			 uint32_t status)
{
	CHK_OK(launch_run(f, l));
	if (l->status != status)
		KTAP_FAIL_MSG("status %s, expected %s (trap %s, fault_addr %#llx %s, fault_pc %#llx, insns %llu, groups_done %llu)",
			      nvsvm_status_name(l->status),
			      nvsvm_status_name(status),
			      nvsvm_trap_name(l->trap),
			      (unsigned long long)l->fault_addr,
			      nvsvm_access_name(l->fault_access),
			      (unsigned long long)l->fault_pc,
			      (unsigned long long)l->insns,
			      (unsigned long long)l->groups_done);
	return KTAP_PASS;
}

static int launch_ok(struct fx *f, struct nvsvm_launch *l)
{
	CHECK(launch_status(f, l, NVSVM_EXEC_OK));
	CHK_TRUE(l->insns > 0, "insns %llu", (unsigned long long)l->insns);
	return KTAP_PASS;
}

/*
 * Pointer chase: 32 lists of 200 nodes each, every node its own malloc,
 * allocated in a shuffled order so that the nodes of a list lie all over
 * the heap; work-item i walks list i.
 */
#define CHASE_LISTS	32
#define CHASE_NODES	200

TEST_F(chan, chase_malloc_list)
{
	static struct gpu_node *pool[CHASE_LISTS * CHASE_NODES];
	uint64_t heads[CHASE_LISTS], want[CHASE_LISTS];
	uint64_t *sums = calloc(CHASE_LISTS, 8), *counts = calloc(CHASE_LISTS, 8);
	struct chase_args a;
	struct nvsvm_launch l;
	unsigned int i, j, n = CHASE_LISTS * CHASE_NODES;

	rnd_state = 0xc4a5e;
	ASSERT_TRUE(sums && counts);
	for (i = 0; i < n; i++) {
		pool[i] = malloc(sizeof(*pool[i]) + (rnd() % 5) * 16);
		ASSERT_TRUE(pool[i] != NULL);
	}
	for (i = n - 1; i > 0; i--) {	/* Fisher-Yates */
		struct gpu_node *t;

		j = rnd() % (i + 1);
		t = pool[i];
		pool[i] = pool[j];
		pool[j] = t;
	}
	for (i = 0; i < CHASE_LISTS; i++) {
		want[i] = 0;
		for (j = 0; j < CHASE_NODES; j++) {
			struct gpu_node *nd = pool[i * CHASE_NODES + j];

			nd->val = rnd() >> 8;
			want[i] += nd->val;
			nd->next = j + 1 < CHASE_NODES ?
				nvsvm_ptr(pool[i * CHASE_NODES + j + 1]) : 0;
		}
		heads[i] = nvsvm_ptr(pool[i * CHASE_NODES]);
	}
	a = (struct chase_args){
		.heads = nvsvm_ptr(heads),
		.sums = nvsvm_ptr(sums),
		.counts = nvsvm_ptr(counts),
	};
	nvsvm_launch_init(&l, 0, IMG(chase), GPU_CHASE_CHASE, &a, sizeof(a),
			  CHASE_LISTS, 8);
	ASSERT_PASS(launch_ok(&self->fx, &l));
	for (i = 0; i < CHASE_LISTS; i++) {
		ASSERT_EQ(CHASE_NODES, counts[i]);
		ASSERT_EQ(want[i], sums[i]);
	}
	ASSERT_EQ(CHASE_LISTS / 8, l.groups_done);
}

/*
 * Histogram: 4096 work-items in groups of 128, 7 bins; exact counts. GPU
 * atomics on malloc'd memory need NVSVM_CAP_SYSMEM_ATOMICS (on PCIe, the
 * driver's exclusive access); atomic_cancelled_without_cap checks the
 * other side.
 */
TEST_F(chan, histogram_atomics)
{
	enum { N = 4096, BINS = 7 };
	uint32_t *data = malloc(N * 4), *bins = calloc(BINS, 4);
	uint32_t want[BINS] = { 0 };
	struct histogram_args a;
	struct nvsvm_launch l;
	unsigned int i;

	NEED_CAP(NVSVM_CAP_SYSMEM_ATOMICS);
	rnd_state = 0x4157;
	ASSERT_TRUE(data && bins);
	for (i = 0; i < N; i++) {
		data[i] = rnd() >> 32;
		want[data[i] % BINS]++;
	}
	a = (struct histogram_args){
		.data = nvsvm_ptr(data), .bins = nvsvm_ptr(bins), .nbins = BINS,
	};
	nvsvm_launch_init(&l, 0, IMG(histogram), GPU_HISTOGRAM_HISTOGRAM, &a,
			  sizeof(a), N, 128);
	ASSERT_PASS(launch_ok(&self->fx, &l));
	for (i = 0; i < BINS; i++)
		ASSERT_EQ(want[i], bins[i]);
	ASSERT_EQ(N / 128, l.groups_done);
}

/*
 * One store per page of a fresh 256-page malloc (never touched by the
 * CPU): every page faults at least once on the GPU (the virtual GP100's
 * "faults" counter), and every page holds its work-item's value. The
 * density prefetch is off for it (nvsvm.prefetch_threshold 0, restored
 * after), or it would map most pages ahead of their faults.
 */
#define PREFETCH_PARAM	"/sys/module/nvsvm/parameters/prefetch_threshold"

TEST_F(chan, fault_every_page)
{
	enum { PAGES = 256 };
	const uint64_t pat = 0x7e57000000000000ULL;
	uint64_t before, after;
	unsigned int old_thr;
	int ran;
	struct touch_args a;
	struct nvsvm_launch l;
	uint8_t *buf = malloc(PAGES * PAGE + PAGE);
	uint8_t *base;
	unsigned int i;

	ASSERT_TRUE(buf != NULL);
	base = (uint8_t *)(((uintptr_t)buf + PAGE - 1) & ~(PAGE - 1));
	a = (struct touch_args){
		.base = nvsvm_ptr(base), .stride = PAGE, .pattern = pat,
	};
	nvsvm_launch_init(&l, 0, IMG(touch), GPU_TOUCH_TOUCH, &a, sizeof(a),
			  PAGES, 64);
	ASSERT_EQ(0, set_param(PREFETCH_PARAM, 0, &old_thr));
	ASSERT_EQ(0, vgpu_stat_read("faults", &before));
	ran = launch_ok(&self->fx, &l);
	ASSERT_EQ(0, vgpu_stat_read("faults", &after));
	set_param(PREFETCH_PARAM, old_thr, NULL);
	ASSERT_PASS(ran);
	for (i = 0; i < PAGES; i++)
		ASSERT_EQ(pat ^ i, *(uint64_t *)(base + i * PAGE));
	TH_LOG("%u pages, %llu GPU faults", PAGES,
	       (unsigned long long)(after - before));
	ASSERT_GE(after - before, PAGES);
	free(buf);
}

/*
 * Sums in local memory with barriers: 1000 items in groups of 256, the
 * last group 232 items (non-uniform); each group's sum and the total.
 */
TEST_F(chan, reduce_local_barrier)
{
	enum { N = 1000, G = 256, GROUPS = (N + G - 1) / G };
	uint64_t *in = malloc(N * 8), *sums = calloc(GROUPS, 8), total = 0;
	uint64_t want[GROUPS] = { 0 }, want_total = 0;
	struct reduce_args a;
	struct nvsvm_launch l;
	unsigned int i;

	NEED_CAP(NVSVM_CAP_SYSMEM_ATOMICS);
	rnd_state = 0x5ed;
	ASSERT_TRUE(in && sums);
	for (i = 0; i < N; i++) {
		in[i] = rnd() >> 20;
		want[i / G] += in[i];
		want_total += in[i];
	}
	a = (struct reduce_args){
		.in = nvsvm_ptr(in), .sums = nvsvm_ptr(sums),
		.total = nvsvm_ptr(&total),
	};
	nvsvm_launch_init(&l, 0, IMG(reduce), GPU_REDUCE_REDUCE, &a, sizeof(a),
			  N, G);
	l.local_mem = G * 8;
	ASSERT_PASS(launch_ok(&self->fx, &l));
	for (i = 0; i < GROUPS; i++)
		ASSERT_EQ(want[i], sums[i]);
	ASSERT_EQ(want_total, total);
	ASSERT_EQ(GROUPS, l.groups_done);
}

/*
 * Cancelled mid-run: 64 work-items (one group) write their results, pass
 * a barrier, then work-item 37 stores to a page with no VMA. The launch
 * ends FAULT at that address, a WRITE, at the store's pc; the results
 * written before stand.
 */
TEST_F(chan, cancel_no_vma)
{
	enum { N = 64 };
	const uint64_t pat = 0xca7ce1000ULL;
	uint64_t *out = calloc(N, 8);
	uint8_t *hole = anon(4 * PAGE);
	struct cancel_args a;
	struct nvsvm_launch l;
	unsigned int i;

	ASSERT_TRUE(out != NULL);
	ASSERT_MAP(hole);
	ASSERT_SYS(munmap(hole, 4 * PAGE));
	a = (struct cancel_args){
		.out = nvsvm_ptr(out), .bad = nvsvm_ptr(hole + PAGE + 0x48),
		.pattern = pat, .victim = 37,
	};
	nvsvm_launch_init(&l, 0, IMG(cancel), GPU_CANCEL_CANCEL, &a, sizeof(a),
			  N, N);
	ASSERT_PASS(launch_status(&self->fx, &l, NVSVM_EXEC_FAULT));
	ASSERT_EQ(a.bad, l.fault_addr);
	ASSERT_EQ(NVSVM_ACCESS_WRITE, l.fault_access);
	ASSERT_EQ(NVSVM_GPU_IMAGE_BASE + GPU_CANCEL_MARK_CANCEL_STORE,
		  l.fault_pc);
	ASSERT_EQ(0, l.groups_done);
	for (i = 0; i < N; i++)
		ASSERT_EQ(pat + i, out[i]);
}

/* saxpy in single precision, bit for bit against the CPU. */
TEST_F(chan, float_saxpy)
{
	enum { N = 777 };
	float *x = malloc(N * 4), *y = malloc(N * 4), *want = malloc(N * 4);
	struct saxpy_args a;
	struct nvsvm_launch l;
	unsigned int i;

	rnd_state = 0xf10a7;
	ASSERT_TRUE(x && y && want);
	for (i = 0; i < N; i++) {
		x[i] = (float)(int64_t)(rnd() >> 1) / 0x1p53f;
		y[i] = (float)(int64_t)rnd() / 0x1p40f;
	}
	a = (struct saxpy_args){
		.x = nvsvm_ptr(x), .y = nvsvm_ptr(y), .a = -3.14159265f,
	};
	for (i = 0; i < N; i++)
		want[i] = a.a * x[i] + y[i];
	nvsvm_launch_init(&l, 0, IMG(float), GPU_FLOAT_SAXPY, &a, sizeof(a),
			  N, 64);
	ASSERT_PASS(launch_ok(&self->fx, &l));
	for (i = 0; i < N && !memcmp(&want[i], &y[i], 4); i++)
		;
	if (i < N)
		TH_LOG("y[%u] = %a, expected %a", i, y[i], want[i]);
	ASSERT_EQ(N, i);
}

/* Dot products in double precision (sums of 100 products), bit for bit. */
TEST_F(chan, float_ddot)
{
	enum { N = 96, K = 100 };
	double *u = malloc(N * K * 8), *v = malloc(K * 8), *dot = calloc(N, 8);
	struct ddot_args a;
	struct nvsvm_launch l;
	unsigned int i, j;

	rnd_state = 0xd0d07;
	ASSERT_TRUE(u && v && dot);
	for (i = 0; i < N * K; i++)
		u[i] = (double)(int64_t)rnd() / 0x1p61;
	for (j = 0; j < K; j++)
		v[j] = (double)(int64_t)rnd() / 0x1p29;
	a = (struct ddot_args){
		.u = nvsvm_ptr(u), .v = nvsvm_ptr(v), .dot = nvsvm_ptr(dot),
		.n = K,
	};
	nvsvm_launch_init(&l, 0, IMG(float), GPU_FLOAT_DDOT, &a, sizeof(a),
			  N, 32);
	ASSERT_PASS(launch_ok(&self->fx, &l));
	for (i = 0; i < N; i++) {
		double s = 0;

		for (j = 0; j < K; j++)
			s += u[i * K + j] * v[j];
		if (memcmp(&s, &dot[i], 8))
			TH_LOG("dot[%u] = %a, expected %a", i, dot[i], s);
		ASSERT_EQ(0, memcmp(&s, &dot[i], 8));
	}
}

/*
 * Traps: one work-item runs an entry of tests/gpu/traps.c; the launch
 * ends TRAP with the cause, the pc of the marked instruction, and (where
 * the ABI names one) the address concerned.
 */
struct trap_case {
	const char *name;
	uint32_t entry, mark, trap;
	int addr_kind;	/* 0: fault_addr not checked; 1: @addr; 2: buf + 1 */
	uint64_t addr;
	uint64_t budget;
};

static int run_trap(struct fx *f, const struct trap_case *c)
{
	static uint64_t buf[4];
	struct trap_args a = { .buf = nvsvm_ptr(buf) };
	struct nvsvm_launch l;

	nvsvm_launch_init(&l, 0, IMG(traps), c->entry, &a, sizeof(a), 1, 1);
	l.insn_budget = c->budget;
	CHECK(launch_status(f, &l, NVSVM_EXEC_TRAP));
	if (l.trap != c->trap)
		KTAP_FAIL_MSG("%s: trap %s, expected %s", c->name,
			      nvsvm_trap_name(l.trap), nvsvm_trap_name(c->trap));
	if (c->mark != ~0U)
		CHK_EQ(l.fault_pc, NVSVM_GPU_IMAGE_BASE + c->mark);
	if (c->addr_kind == 1)
		CHK_EQ(l.fault_addr, c->addr);
	else if (c->addr_kind == 2)
		CHK_EQ(l.fault_addr, nvsvm_ptr(buf) + 1);
	return KTAP_PASS;
}

#define TRAP_CASE(test, e, m, t, kind, a, b)				\
TEST_F(chan, trap_##test)						\
{									\
	const struct trap_case c = {					\
		.name = #test, .entry = GPU_TRAPS_##e, .mark = m,	\
		.trap = NVSVM_TRAP_##t, .addr_kind = kind, .addr = a,	\
		.budget = b,						\
	};								\
	ASSERT_PASS(run_trap(&self->fx, &c));				\
}

/* fault_addr of ILLEGAL: the instruction word. */
TRAP_CASE(illegal, ILLEGAL, GPU_TRAPS_MARK_ILLEGAL, ILLEGAL, 1, 0x6b, 0)
TRAP_CASE(image_store, IMAGE_STORE, GPU_TRAPS_MARK_IMAGE_STORE, WINDOW, 1,
	  NVSVM_GPU_IMAGE_BASE + 8, 0)
TRAP_CASE(param_store, PARAM_STORE, GPU_TRAPS_MARK_PARAM_STORE, WINDOW, 1,
	  NVSVM_GPU_PARAM_BASE, 0)
/* priv_mem is NVSVM_LAUNCH_DEFAULT_PRIV (4096): 65536 is past its end. */
TRAP_CASE(priv_past_end, PRIV_PAST_END, GPU_TRAPS_MARK_PRIV_PAST_END, WINDOW,
	  1, NVSVM_GPU_PRIV_BASE + 65536, 0)
TRAP_CASE(misaligned, MISALIGNED, GPU_TRAPS_MARK_MISALIGNED, MISALIGNED, 2,
	  0, 0)
TRAP_CASE(budget, FOREVER, ~0U, BUDGET, 0, 0, 1000)
TRAP_CASE(ebreak, EBREAK, GPU_TRAPS_MARK_EBREAK, BREAK, 0, 0, 0)
TRAP_CASE(bad_ecall, BAD_ECALL, GPU_TRAPS_MARK_BAD_ECALL, BREAK, 0, 0, 0)

/*
 * A jump to a pc that is not 4-byte aligned: FETCH. The RISC-V spec lets
 * the trap be taken on the jump or at the target: either pc is accepted.
 */
TEST_F(chan, trap_fetch_misaligned_pc)
{
	static uint64_t buf[4];
	struct trap_args a = { .buf = nvsvm_ptr(buf) };
	struct nvsvm_launch l;

	nvsvm_launch_init(&l, 0, IMG(traps), GPU_TRAPS_FETCH, &a, sizeof(a),
			  1, 1);
	ASSERT_PASS(launch_status(&self->fx, &l, NVSVM_EXEC_TRAP));
	ASSERT_EQ(NVSVM_TRAP_FETCH, l.trap);
	ASSERT_TRUE(l.fault_pc == NVSVM_GPU_IMAGE_BASE + 2 ||
		    l.fault_pc == NVSVM_GPU_IMAGE_BASE + GPU_TRAPS_MARK_FETCH) {
		TH_LOG("fault_pc %#llx", (unsigned long long)l.fault_pc);
	}
}

/*
 * A global load above the GPU's VA limit (49 bits) that is not in a window:
 * nothing can map it, so the launch ends FAULT (cancelled) at that exact
 * address, READ, at the load's pc, within its 5 s timeout. Every address
 * is tried (EXPECT), so that a failure names each one that failed. Found by
 * launch-fuzz (seed 0x5eed, random_images launch 33: lbu at a7 - 296 =
 * 0xfffffffffffffed8 with a7 zero), which ended TIMEOUT with 0
 * instructions retired.
 */
#define EXPECT_PASS(x)	EXPECT_EQ(KTAP_PASS, (x))

static int load_above_limit(struct fx *f, uint64_t va)
{
	struct trap_args a = { .buf = va };
	struct nvsvm_launch l;

	nvsvm_launch_init(&l, 0, IMG(traps), GPU_TRAPS_LOAD_AT, &a, sizeof(a),
			  1, 1);
	l.timeout_ms = 5000;
	CHECK(launch_status(f, &l, NVSVM_EXEC_FAULT));
	CHK_EQ(l.fault_addr, va);
	CHK_EQ(l.fault_access, NVSVM_ACCESS_READ);
	CHK_EQ(l.fault_pc, NVSVM_GPU_IMAGE_BASE + GPU_TRAPS_MARK_LOAD_AT);
	return KTAP_PASS;
}

TEST_F(chan, fault_above_va_limit)
{
	EXPECT_PASS(load_above_limit(&self->fx, 1ULL << 56));
	EXPECT_PASS(load_above_limit(&self->fx, 0x8000000000000000ULL));
	/* The last page but one, and the last page of the 64-bit space. */
	EXPECT_PASS(load_above_limit(&self->fx, 0xffffffffffffe008ULL));
	EXPECT_PASS(load_above_limit(&self->fx, 0xfffffffffffffed8ULL));
}

/*
 * The budget counts per work-item: with insn_budget 1000, 64 work-items of
 * a program that ends in about ten instructions all run to their end.
 */
TEST_F(chan, budget_per_item)
{
	uint64_t out[64] = { 0 };
	struct touch_args a = {
		.base = nvsvm_ptr(out), .stride = 8, .pattern = 0xb0d6e7,
	};
	struct nvsvm_launch l;
	unsigned int i;

	nvsvm_launch_init(&l, 0, IMG(touch), GPU_TOUCH_TOUCH, &a, sizeof(a),
			  64, 32);
	l.insn_budget = 1000;
	ASSERT_PASS(launch_ok(&self->fx, &l));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(a.pattern ^ i, out[i]);
	ASSERT_LT(l.insns, 64 * 1000);
}

/*
 * Without NVSVM_CAP_SYSMEM_ATOMICS (Debian's stock kernels on PCIe, the
 * model's default sysmem_atomics=pcie), a GPU atomic on malloc'd memory
 * is cancelled: FAULT, access ATOMIC, at the AMO's address (uapi/nvsvm.h).
 */
TEST_F(chan, atomic_cancelled_without_cap)
{
	uint32_t data[32] = { 0 }, *bins = calloc(1, 4);
	struct histogram_args a = {
		.data = nvsvm_ptr(data), .bins = nvsvm_ptr(bins), .nbins = 1,
	};
	struct nvsvm_launch l;

	if (info.caps & NVSVM_CAP_SYSMEM_ATOMICS)
		SKIP(return, "NVSVM_CAP_SYSMEM_ATOMICS: atomics are exact here");
	ASSERT_TRUE(bins != NULL);
	nvsvm_launch_init(&l, 0, IMG(histogram), GPU_HISTOGRAM_HISTOGRAM, &a,
			  sizeof(a), 32, 32);
	ASSERT_PASS(launch_status(&self->fx, &l, NVSVM_EXEC_FAULT));
	ASSERT_EQ(NVSVM_ACCESS_ATOMIC, l.fault_access);
	ASSERT_EQ(nvsvm_ptr(bins), l.fault_addr);
	ASSERT_EQ(0, bins[0]);
}

/*
 * Every bad field of struct nvsvm_launch, one at a time, on an otherwise
 * valid launch of touch (64 items, 32 a group, one store each): EINVAL (ENOENT for an
 * unknown channel, EFAULT for no image, E2BIG for a work-group whose
 * state exceeds the model's per-launch memory), and nothing ran (the
 * words stay zero).
 */
struct bad_field {
	const char *name;
	void (*set)(struct nvsvm_launch *l);
	int err;
};

#define BAD(nm, expr)							\
	static void bad_##nm(struct nvsvm_launch *l) { expr; }
#define BAD_ROW(nm, e)	{ #nm, bad_##nm, e }

BAD(handle, l->handle += 1000)
BAD(gpc, l->gpc = 1000)
BAD(image_null, l->image = 0)
BAD(image_size_0, l->image_size = 0)
BAD(image_size_odd, l->image_size -= 2)
BAD(image_size_big, l->image_size = NVSVM_LAUNCH_MAX_IMAGE + 4)
BAD(entry_odd, l->entry = 2)
BAD(entry_past, l->entry = l->image_size)
BAD(param_size_big, l->param_size = NVSVM_LAUNCH_MAX_PARAM + 8)
BAD(work_dim_0, l->work_dim = 0)
BAD(work_dim_4, l->work_dim = 4)
BAD(global_size_0, l->global_size[0] = 0)
BAD(global_size_dim1_0, (l->work_dim = 2, l->local_size[1] = 1))
BAD(unused_dim_set, l->global_size[2] = 1)
BAD(global_end, l->global_offset[0] = (1ULL << 48) - 32)
BAD(local_size_0, l->local_size[0] = 0)
BAD(local_size_big, l->local_size[0] = NVSVM_LAUNCH_MAX_GROUP + 1)
BAD(local_product, (l->work_dim = 2, l->global_size[1] = 64,
		    l->local_size[0] = 64, l->local_size[1] = 32))
/* 1024 work-items of 64 KiB private memory each: above the model's limit. */
BAD(group_too_big, (l->global_size[0] = 1024, l->local_size[0] = 1024,
		    l->priv_mem = NVSVM_LAUNCH_MAX_PRIV))
BAD(local_mem_odd, l->local_mem = 12)
BAD(local_mem_big, l->local_mem = NVSVM_LAUNCH_MAX_LOCAL + 8)
BAD(priv_mem_odd, l->priv_mem = 4104)
BAD(priv_mem_big, l->priv_mem = NVSVM_LAUNCH_MAX_PRIV + 16)
BAD(timeout_0, l->timeout_ms = 0)
BAD(timeout_big, l->timeout_ms = 600001)
BAD(timeout_below_none, l->timeout_ms = NVSVM_LAUNCH_NO_TIMEOUT - 1)
BAD(budget_big, l->insn_budget = NVSVM_LAUNCH_MAX_BUDGET + 1)
BAD(flags, l->flags = 1)

static const struct bad_field bad_fields[] = {
	BAD_ROW(handle, ENOENT),
	BAD_ROW(gpc, EINVAL),
	BAD_ROW(image_null, EFAULT),
	BAD_ROW(image_size_0, EINVAL),
	BAD_ROW(image_size_odd, EINVAL),
	BAD_ROW(image_size_big, EINVAL),
	BAD_ROW(entry_odd, EINVAL),
	BAD_ROW(entry_past, EINVAL),
	BAD_ROW(param_size_big, EINVAL),
	BAD_ROW(work_dim_0, EINVAL),
	BAD_ROW(work_dim_4, EINVAL),
	BAD_ROW(global_size_0, EINVAL),
	BAD_ROW(global_size_dim1_0, EINVAL),
	BAD_ROW(unused_dim_set, EINVAL),
	BAD_ROW(global_end, EINVAL),
	BAD_ROW(local_size_0, EINVAL),
	BAD_ROW(local_size_big, EINVAL),
	BAD_ROW(local_product, EINVAL),
	BAD_ROW(group_too_big, E2BIG),
	BAD_ROW(local_mem_odd, EINVAL),
	BAD_ROW(local_mem_big, EINVAL),
	BAD_ROW(priv_mem_odd, EINVAL),
	BAD_ROW(priv_mem_big, EINVAL),
	BAD_ROW(timeout_0, EINVAL),
	BAD_ROW(timeout_big, EINVAL),
	BAD_ROW(timeout_below_none, EINVAL),
	BAD_ROW(budget_big, EINVAL),
	BAD_ROW(flags, EINVAL),
};

static void touch_launch(struct nvsvm_launch *l, uint32_t chan,
			 struct touch_args *a, uint64_t *out)
{
	*a = (struct touch_args){
		.base = nvsvm_ptr(out), .stride = 8, .pattern = 0xe1a1,
	};
	nvsvm_launch_init(l, chan, IMG(touch), GPU_TOUCH_TOUCH, a, sizeof(*a),
			  64, 32);
}

static int bad_field_rejected(struct fx *f, const struct bad_field *b)
{
	uint64_t out[64] = { 0 };
	struct touch_args a;
	struct nvsvm_launch l;
	unsigned int i;
	int ret;

	touch_launch(&l, f->chan, &a, out);
	b->set(&l);
	ret = nvsvm_launch(f->fd, &l);
	if (ret != -b->err)
		KTAP_FAIL_MSG("%s: expected -%s, got %d (%s)", b->name,
			      strerror(b->err), ret,
			      ret ? strerror(-ret) : "success");
	for (i = 0; i < 64; i++)
		CHK_EQ(out[i], 0);
	return KTAP_PASS;
}

TEST_F(chan, einval_each_field)
{
	unsigned int i, failed = 0;
	uint64_t out[64] = { 0 };
	struct touch_args a;
	struct nvsvm_launch l;

	for (i = 0; i < sizeof(bad_fields) / sizeof(bad_fields[0]); i++)
		if (bad_field_rejected(&self->fx, &bad_fields[i]) != KTAP_PASS)
			failed++;
	ASSERT_EQ(0, failed);
	/* The same launch, unchanged, runs: each row changed one field only. */
	touch_launch(&l, self->fx.chan, &a, out);
	ASSERT_PASS(launch_ok(&self->fx, &l));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(a.pattern ^ i, out[i]);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
