// SPDX-License-Identifier: GPL-2.0
/*
 * Self-tests of the virtual GP100, without the driver core: run at load
 * (selftest=1) on GPU 0 before it is registered with nvsvm.ko. They build
 * page tables by hand in DMA-coherent memory, drive the registers as a
 * driver would (the fault interrupt is routed here), run programs on the
 * GPCs and report KTAP lines to the kernel log:
 *
 *   nvsvm_vgpu_selftest: 1..N
 *   nvsvm_vgpu_selftest: ok K name
 *
 * The last, rv_interpreter, is the SMs' interpreter's own tests
 * (rv_selftest(), src/vgpu/rv_selftest.c), one diagnostics line per group.
 * The GPU is returned to its power-on state afterwards.
 */
#define pr_fmt(fmt) "nvsvm_vgpu_selftest: " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "vgpu.h"
#include "rv.h"

#define ST_TABLES	32
#define ST_TIMEOUT_MS	5000
#define ST_SYS		(VGPU_APER_PTE_SYS << 1)
#define ST_PDE_SYS	(ST_SYS | VGPU_PTE_VOL)

/* Virtual addresses used by the tests, each in its own 2 MiB range. */
#define ST_VA_4K	0x0000100000000ULL
#define ST_VA_64K	0x0000200000000ULL
#define ST_VA_2M	0x0000300000000ULL
#define ST_VA_DUAL	0x0000400000000ULL
#define ST_VA_SPARSE	0x0000500000000ULL
#define ST_VA_VRAM	0x1000600000000ULL	/* PD3 index 2 */
#define ST_VA_PERM	0x0000700000000ULL
#define ST_VA_TLB	0x0000800000000ULL
#define ST_VA_LPT2	0x0000a00000000ULL	/* and the next 2 MiB */
#define ST_VA_FAULT	0x0000900000000ULL
#define ST_VA_WARPS	0x0000b00000000ULL
#define ST_VA_RMW	0x0000c00000000ULL
#define ST_VA_INDEX	0x0000d00000000ULL	/* 4 KiB, 64 KiB, 2 MiB pages */

struct st_table {
	__le64 *cpu;
	dma_addr_t dma;
};

struct st {
	struct vgpu *vgpu;
	struct device *dev;
	int num;
	int failed;
	struct st_table tab[ST_TABLES];
	int ntab;
	struct st_table *pd3;
	__le64 *inst;
	dma_addr_t inst_dma;
	__le64 *inst_nr;		/* same PD3, no replay bits */
	dma_addr_t inst_nr_dma;
	void *fb;
	dma_addr_t fb_dma;
	size_t fb_size;
	u32 entries;
	struct vgpu_ctx ctx;
	struct vgpu_chan *chan;
	struct page *a, *b, *big;
	atomic_t intrs;
};

static struct st *st_current;

static void st_intr(struct vgpu *vgpu)
{
	atomic_inc(&st_current->intrs);
}

static void st_result(struct st *st, bool ok, const char *name)
{
	st->num++;
	if (!ok)
		st->failed++;
	pr_info("%sok %d %s\n", ok ? "" : "not ", st->num, name);
}

static bool st_ok(bool ok, const char *func, int line, const char *what)
{
	if (!ok)
		pr_info("# %s:%d: check failed: %s\n", func, line, what);
	return ok;
}

#define ST_OK(cond)	st_ok(cond, __func__, __LINE__, #cond)

/* rv_selftest()'s groups: diagnostics of the one result rv_interpreter */
static void st_rv_result(void *ctx, bool ok, const char *name)
{
	pr_info("# rv: %sok %s\n", ok ? "" : "not ", name);
}

static struct st_table *st_table_new(struct st *st)
{
	struct st_table *t;

	if (st->ntab == ST_TABLES)
		return NULL;
	t = &st->tab[st->ntab];
	t->cpu = dma_alloc_coherent(st->dev, PAGE_SIZE, &t->dma, GFP_KERNEL);
	if (!t->cpu)
		return NULL;
	memset(t->cpu, 0, PAGE_SIZE);
	st->ntab++;
	return t;
}

static __le64 *st_table_cpu(struct st *st, u64 dma)
{
	int i;

	for (i = 0; i < st->ntab; i++)
		if (st->tab[i].dma == dma)
			return st->tab[i].cpu;
	return NULL;
}

static u64 st_pde(dma_addr_t dma)
{
	return ((u64)dma >> 4) | ST_PDE_SYS;
}

static u64 st_pte(u64 pa, u32 aper, u64 flags)
{
	return (pa >> 4) | (aper << 1) | VGPU_PTE_VALID | flags;
}

static u64 st_sys_pte(struct page *page, u64 flags)
{
	return st_pte(page_to_phys(page), VGPU_APER_PTE_SYS,
		      VGPU_PTE_VOL | flags);
}

/* The next-level table of a directory entry, created if missing. */
static __le64 *st_next(struct st *st, __le64 *entry)
{
	struct st_table *t;

	if (!VGPU_PTE_APER(le64_to_cpu(*entry))) {
		t = st_table_new(st);
		if (!t)
			return NULL;
		WRITE_ONCE(*entry, cpu_to_le64(st_pde(t->dma)));
	}
	return st_table_cpu(st, VGPU_PTE_ADDR(le64_to_cpu(*entry)));
}

/*
 * The slot mapping @va with a page of 1 << @shift bytes: the PD0 low half
 * (21), an LPT entry (16) or an SPT entry (12); tables created on the way.
 */
static __le64 *st_slot(struct st *st, u64 va, u32 shift)
{
	static const u8 dir_shift[] = { 47, 38, 29 };
	__le64 *t = st->pd3->cpu, *pd0;
	int i;

	for (i = 0; i < ARRAY_SIZE(dir_shift) && t; i++)
		t = st_next(st, &t[(va >> dir_shift[i]) & 511]);
	if (!t)
		return NULL;
	pd0 = &t[((va >> 21) & 255) * 2];
	if (shift == 21)
		return pd0;
	t = st_next(st, shift == 16 ? &pd0[0] : &pd0[1]);
	if (!t)
		return NULL;
	return shift == 16 ? &t[(va >> 16) & 31] : &t[(va >> 12) & 511];
}

static bool st_set(struct st *st, u64 va, u32 shift, u64 pte)
{
	__le64 *slot = st_slot(st, va, shift);

	if (!slot)
		return false;
	WRITE_ONCE(*slot, cpu_to_le64(pte));
	return true;
}

static u32 st_rd(struct st *st, u32 reg)
{
	return vgpu_rd32(&st->vgpu->gpu, reg);
}

static void st_wr(struct st *st, u32 reg, u32 val)
{
	vgpu_wr32(&st->vgpu->gpu, reg, val);
}

static void st_invalidate(struct st *st, u32 type)
{
	st_wr(st, VGPU_INV_TRIGGER, VGPU_INV_GO | type);
}

static void st_invalidate_pdb(struct st *st, u64 pdb, u32 type)
{
	st_wr(st, VGPU_INV_PDB_HI, pdb >> 40);
	st_wr(st, VGPU_INV_PDB_LO, ((pdb >> 12) << 4) | ST_SYS);
	st_invalidate(st, VGPU_INV_PAGE_ALL | type);
}

static void st_replay(struct st *st)
{
	st_invalidate(st, 0x0b);
}

static void st_cancel(struct st *st, u32 gpc)
{
	st_invalidate(st, 0x1b | (gpc << 15));
}

static u32 st_gpc(struct st *st, u32 gpc)
{
	return gpc % st->vgpu->gpc_count;
}

static bool st_xlat(struct st *st, u32 gpc, u64 va, u32 access,
		    struct vgpu_xlat *x)
{
	struct vgpu_gpc *g = &st->vgpu->gpcs[st_gpc(st, gpc)];
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&g->lock, flags);
	ok = vgpu_mmu_translate(g, 0, &st->ctx, va, access, x);
	spin_unlock_irqrestore(&g->lock, flags);
	return ok;
}

static bool st_submit(struct st *st, struct vgpu_chan *chan, u32 gpc,
		      struct vgpu_prog *prog, struct nvsvm_op *ops, u32 nops)
{
	memset(prog, 0, sizeof(*prog));
	prog->ops = ops;
	prog->nops = nops;
	return !vgpu_prog_submit(chan, prog, st_gpc(st, gpc));
}

static u32 st_finish(struct vgpu_prog *prog, u32 timeout_ms)
{
	vgpu_prog_wait(prog, timeout_ms, false);
	vgpu_prog_reap(prog);
	return prog->status;
}

/* Run a program to its end; its status, or -1 if it could not start. */
static int st_run(struct st *st, struct vgpu_chan *chan, u32 gpc,
		  struct nvsvm_op *ops, u32 nops)
{
	struct vgpu_prog prog;

	if (!st_submit(st, chan, gpc, &prog, ops, nops))
		return -1;
	return st_finish(&prog, ST_TIMEOUT_MS);
}

/* One u64 read (or write of @val) by a GPC; true when it succeeded. */
static bool st_rw(struct st *st, u32 gpc, u64 va, bool write, u64 *val)
{
	struct nvsvm_op op = {
		.code = write ? NVSVM_OP_WRITE : NVSVM_OP_READ,
		.addr = va,
		.value = *val,
	};

	if (st_run(st, st->chan, gpc, &op, 1) != NVSVM_EXEC_OK)
		return false;
	if (!write)
		*val = op.result;
	return true;
}

static u64 *st_page_u64(struct page *page)
{
	return page_address(page);
}

/* Wait until PUT differs from @put (or OVERFLOW is set). */
static u32 st_wait_put(struct st *st, u32 put)
{
	u32 v = put;
	int i;

	for (i = 0; i < ST_TIMEOUT_MS && v == put; i++) {
		v = st_rd(st, VGPU_FB_PUT);
		if (v == put)
			usleep_range(1000, 2000);
	}
	return v;
}

static __le32 *st_entry(struct st *st, u32 index)
{
	return st->fb + index * VGPU_FAULT_ENTRY_SIZE;
}

static bool st_valid(struct st *st, u32 index)
{
	return le32_to_cpu(READ_ONCE(st_entry(st, index)[7])) &
	       VGPU_FAULT_VALID;
}

/* Wait for the VALID bit of an entry PUT moved past (PUT was read). */
static bool st_wait_valid(struct st *st, u32 index)
{
	int i;

	for (i = 0; i < ST_TIMEOUT_MS && !st_valid(st, index); i++)
		usleep_range(1000, 2000);
	return st_valid(st, index);
}

/*
 * Consume entries up to PUT as the driver does: wait for VALID, clear it,
 * write GET.
 */
static void st_consume(struct st *st)
{
	u32 get = st_rd(st, VGPU_FB_GET);
	u32 put = st_rd(st, VGPU_FB_PUT) & VGPU_FB_IDX_MASK;
	u32 n = st_rd(st, VGPU_FB_SIZE);
	bool wait = true;

	for (; get != put; get = (get + 1) % n) {
		__le32 *w = st_entry(st, get);

		/* After one entry that never came, wait for no other. */
		wait = wait && st_wait_valid(st, get);
		WRITE_ONCE(w[7], cpu_to_le32(le32_to_cpu(w[7]) &
					     ~VGPU_FAULT_VALID));
	}
	st_wr(st, VGPU_FB_GET, get);
}

static bool st_prog_stalled(struct vgpu_prog *prog)
{
	msleep(20);
	return !completion_done(&prog->done);
}

/* ---- the tests ---- */

static bool st_regs(struct st *st)
{
	if (!ST_OK(((st_rd(st, VGPU_PMC_BOOT_0) >> 20) & 0x1ff) == 0x130))
		return false;
	if (!ST_OK(st_rd(st, VGPU_FB_SIZE) == st->vgpu->fb_entries))
		return false;
	st_wr(st, VGPU_FB_SIZE, 3);
	if (!ST_OK(st_rd(st, VGPU_FB_SIZE) == st->vgpu->fb_entries))
		return false;
	if (!ST_OK(st_rd(st, 0x123454) == 0))
		return false;
	if (!ST_OK(st_rd(st, VGPU_INV_STATUS) & (0xff << 16)))
		return false;
	if (!ST_OK(st_rd(st, VGPU_FB_ADDR_LO) ==
		   (lower_32_bits(st->fb_dma) | VGPU_FB_ADDR_LO_ENABLE)))
		return false;
	if (!ST_OK(st_rd(st, VGPU_FB_ADDR_HI) == upper_32_bits(st->fb_dma)))
		return false;
	st_invalidate(st, VGPU_INV_PAGE_ALL | VGPU_INV_ALL_PDB);
	if (!ST_OK(st_rd(st, VGPU_INV_STATUS) & VGPU_INV_STATUS_QUEUED))
		return false;
	return true;
}

static bool st_spt_4k(struct st *st)
{
	struct vgpu_xlat x;
	u64 v = 0x1111;

	if (!ST_OK(st_set(st, ST_VA_4K, 12, st_sys_pte(st->a, 0))))
		return false;
	if (!ST_OK(st_xlat(st, 0, ST_VA_4K + 0x18, NVSVM_ACCESS_WRITE, &x)))
		return false;
	if (!ST_OK(x.shift == 12 && x.mem == VGPU_MEM_SYS && !x.sparse))
		return false;
	if (!ST_OK(x.pa == page_to_phys(st->a) + 0x18 && x.page == st->a))
		return false;
	st_page_u64(st->a)[1] = 0x5a5a;
	if (!ST_OK(st_rw(st, 0, ST_VA_4K + 8, false, &v) && v == 0x5a5a))
		return false;
	v = 0x2222;
	if (!ST_OK(st_rw(st, 1, ST_VA_4K + 16, true, &v)))
		return false;
	if (!ST_OK(st_page_u64(st->a)[2] == 0x2222))
		return false;
	return true;
}

static bool st_lpt_64k(struct st *st)
{
	u64 va = ST_VA_64K + 0x10000, v = 0x6464;
	struct vgpu_xlat x;

	if (!ST_OK(st_set(st, va, 16, st_sys_pte(st->big, 0))))
		return false;
	if (!ST_OK(st_xlat(st, 0, va + 0x5008, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.shift == 16 && x.pa == page_to_phys(st->big) + 0x5008))
		return false;
	if (!ST_OK(st_rw(st, 2, va + 0x5008, true, &v)))
		return false;
	if (!ST_OK(st_page_u64(st->big + 5)[1] == 0x6464))
		return false;
	/* Neighbouring LPT entries are not valid. */
	if (!ST_OK(!st_xlat(st, 0, ST_VA_64K, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_PTE && !x.fatal))
		return false;
	return true;
}

/*
 * Two LPTs in one page, at offsets 0 and 0x100, for two neighbouring 2 MiB
 * ranges: the low half of a PD0 entry has 256-byte granularity, so each
 * range walks its own LPT.
 */
static bool st_lpt_256(struct st *st)
{
	u64 va = ST_VA_LPT2, v = 0x256;
	struct st_table *t = st_table_new(st);
	struct vgpu_xlat x;
	__le64 *pd0;

	if (!ST_OK(t && st_slot(st, va, 21) == st_slot(st, va + SZ_2M, 21) - 2))
		return false;
	pd0 = st_slot(st, va, 21);
	/* Range 0: LPT entry 0 valid. Range 1: LPT entry 1 valid. */
	WRITE_ONCE(t->cpu[0], cpu_to_le64(st_sys_pte(st->big, 0)));
	WRITE_ONCE(t->cpu[32 + 1], cpu_to_le64(st_sys_pte(st->big, 0)));
	WRITE_ONCE(pd0[0], cpu_to_le64(st_pde(t->dma)));
	WRITE_ONCE(pd0[2], cpu_to_le64(st_pde(t->dma + 0x100)));

	if (!ST_OK(st_xlat(st, 0, va + 0x3000, NVSVM_ACCESS_READ, &x) &&
		   x.shift == 16 && x.pa == page_to_phys(st->big) + 0x3000))
		return false;
	if (!ST_OK(!st_xlat(st, 0, va + 0x10000, NVSVM_ACCESS_READ, &x) &&
		   x.fault == VGPU_FT_PTE))
		return false;
	if (!ST_OK(!st_xlat(st, 0, va + SZ_2M, NVSVM_ACCESS_READ, &x) &&
		   x.fault == VGPU_FT_PTE))
		return false;
	if (!ST_OK(st_xlat(st, 0, va + SZ_2M + 0x14008, NVSVM_ACCESS_READ,
			   &x) &&
		   x.shift == 16 && x.pa == page_to_phys(st->big) + 0x4008))
		return false;
	if (!ST_OK(st_rw(st, 1, va + SZ_2M + 0x14008, true, &v)))
		return false;
	return ST_OK(st_page_u64(st->big + 4)[1] == 0x256);
}

static bool st_pd0_2m(struct st *st)
{
	u64 v = 0x2020, off = SZ_2M + 0x123458, got = 0;
	struct vgpu_xlat x;

	if (!ST_OK(st_set(st, ST_VA_2M, 21,
			  st_pte(SZ_2M, VGPU_APER_PTE_VID, 0))))
		return false;
	if (!ST_OK(st_xlat(st, 0, ST_VA_2M + 0x123458, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.shift == 21 && x.mem == VGPU_MEM_VRAM && x.pa == off))
		return false;
	if (!ST_OK(st_rw(st, 3, ST_VA_2M + 0x123458, true, &v)))
		return false;
	if (!ST_OK(!vgpu_vram_rw(st->vgpu, off, &got, 8, false) && got == v))
		return false;
	return true;
}

static bool st_dual_pd0(struct st *st)
{
	u64 va = ST_VA_DUAL, v = 0;
	struct vgpu_xlat x;

	/* LPT 0: invalid but not zero (an address kept while unmapping). */
	if (!ST_OK(st_set(st, va, 16,
			  st_sys_pte(st->big, 0) & ~VGPU_PTE_VALID)))
		return false;
	if (!ST_OK(st_set(st, va + 0x10000, 16, st_sys_pte(st->big, 0))))
		return false;
	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->a, 0))))
		return false;
	if (!ST_OK(st_xlat(st, 0, va + 8, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.shift == 12 && x.page == st->a))
		return false;
	if (!ST_OK(st_xlat(st, 0, va + 0x10000, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.shift == 16 && x.page == st->big))
		return false;
	/* LPT 0 invalid, SPT entry 1 invalid: a PTE fault. */
	if (!ST_OK(!st_xlat(st, 0, va + 0x1000, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_PTE))
		return false;
	st_page_u64(st->a)[1] = 0xd0d0;
	if (!ST_OK(st_rw(st, 1, va + 8, false, &v) && v == 0xd0d0))
		return false;
	return true;
}

static bool st_sparse(struct st *st)
{
	u32 put = st_rd(st, VGPU_FB_PUT);
	u64 faults = atomic64_read(&st->vgpu->ctr.faults), v = 77;
	struct vgpu_xlat x;

	if (!ST_OK(st_set(st, ST_VA_SPARSE, 21, VGPU_PTE_VOL)))
		return false;
	if (!ST_OK(st_xlat(st, 0, ST_VA_SPARSE + 0x4000, NVSVM_ACCESS_WRITE, &x)))
		return false;
	if (!ST_OK(x.sparse))
		return false;
	if (!ST_OK(st_rw(st, 0, ST_VA_SPARSE + 0x4000, true, &v)))
		return false;
	if (!ST_OK(st_rw(st, 0, ST_VA_SPARSE + 0x4000, false, &v) && v == 0))
		return false;
	if (!ST_OK(st_rd(st, VGPU_FB_PUT) == put))
		return false;
	if (!ST_OK(atomic64_read(&st->vgpu->ctr.faults) == faults))
		return false;
	return true;
}

static bool st_vram(struct st *st)
{
	u64 v = 0x7777, got = 0;
	struct vgpu_xlat x;

	if (!ST_OK(st_set(st, ST_VA_VRAM, 12,
			  st_pte(0x5000, VGPU_APER_PTE_VID, 0))))
		return false;
	if (!ST_OK(st_xlat(st, 0, ST_VA_VRAM + 0x10, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.mem == VGPU_MEM_VRAM && x.pa == 0x5010))
		return false;
	if (!ST_OK(st_rw(st, 2, ST_VA_VRAM + 0x10, true, &v)))
		return false;
	if (!ST_OK(!vgpu_vram_rw(st->vgpu, 0x5010, &got, 8, false) && got == v))
		return false;
	/* Beyond the end of video memory: an aperture fault, no access. */
	if (!ST_OK(st_set(st, ST_VA_VRAM + 0x1000, 12,
			  st_pte(st->vgpu->vram_size, VGPU_APER_PTE_VID, 0))))
		return false;
	if (!ST_OK(!st_xlat(st, 0, ST_VA_VRAM + 0x1000, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_UNSUPPORTED_APER))
		return false;
	return true;
}

static bool st_read_only(struct st *st)
{
	u64 va = ST_VA_PERM, v = 0;
	struct vgpu_xlat x;

	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->a, VGPU_PTE_RO))))
		return false;
	if (!ST_OK(st_xlat(st, 0, va, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(!st_xlat(st, 0, va, NVSVM_ACCESS_WRITE, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_RO))
		return false;
	if (!ST_OK(!st_xlat(st, 0, va, NVSVM_ACCESS_ATOMIC, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_RO))
		return false;
	st_page_u64(st->a)[0] = 0x0e0e;
	if (!ST_OK(st_rw(st, 3, va, false, &v) && v == 0x0e0e))
		return false;
	return true;
}

static bool st_atomics(struct st *st)
{
	u64 va = ST_VA_PERM + 0x1000;
	struct nvsvm_op op = {
		.code = NVSVM_OP_ATOMIC_ADD, .addr = va + 24, .value = 7,
	};
	struct vgpu_xlat x;

	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->a, 0))))
		return false;
	st_page_u64(st->a)[3] = 5;
	if (!ST_OK(st_run(st, st->chan, 0, &op, 1) == NVSVM_EXEC_OK))
		return false;
	if (!ST_OK(op.result == 5 && st_page_u64(st->a)[3] == 12))
		return false;

	if (!ST_OK(st_set(st, va + 0x1000, 12,
			  st_sys_pte(st->a, VGPU_PTE_NO_ATOMIC))))
		return false;
	if (!ST_OK(st_xlat(st, 0, va + 0x1000, NVSVM_ACCESS_WRITE, &x)))
		return false;
	if (!ST_OK(!st_xlat(st, 0, va + 0x1000, NVSVM_ACCESS_ATOMIC, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_ATOMIC))
		return false;
	return true;
}

/*
 * Wait until a GPC's system-memory RMW is between its read and write.
 * Busy: the GPC holds its lock with interrupts off meanwhile, and a timer
 * of ours on its CPU would not fire before the RMW ends.
 */
static bool st_wait_rmw(struct st *st, u64 *word)
{
	u64 until = ktime_get_ns() + (u64)ST_TIMEOUT_MS * NSEC_PER_MSEC;

	while (ktime_get_ns() < until) {
		if (READ_ONCE(st->vgpu->rmw_word) == word)
			return true;
		cond_resched();
		cpu_relax();
	}
	return false;
}

/*
 * sysmem_atomics=pcie: an atomic on system memory is a read and a write;
 * a CPU add between them is lost, and an invalidate issued while the RMW
 * is between them returns only after its write. The RMW holds its window
 * open until the invalidate has started (vgpu->rmw_hold), so the CPU add
 * lands inside it whatever the timing.
 */
static bool st_atomic_pcie(struct st *st)
{
	struct vgpu *vgpu = st->vgpu;
	u64 *word = &st_page_u64(st->a)[40], rmws;
	struct nvsvm_op op = {
		.code = NVSVM_OP_ATOMIC_ADD, .addr = ST_VA_RMW + 40 * 8,
		.value = 5,
	};
	bool pcie = vgpu->sysmem_pcie, ok = false;
	struct vgpu_gpc *gpc = &vgpu->gpcs[st_gpc(st, 1)];
	struct vgpu_prog prog;

	if (!ST_OK(st_set(st, ST_VA_RMW, 12, st_sys_pte(st->a, 0))))
		return false;
	/* The GPC on CPU 0, this thread on CPU 1: both run at once. */
	if (!ST_OK(!set_cpus_allowed_ptr(gpc->thread, cpumask_of(0)) &&
		   !set_cpus_allowed_ptr(current, cpumask_of(1))))
		goto out;
	WRITE_ONCE(*word, 100);
	rmws = atomic64_read(&vgpu->ctr.sysmem_rmws);
	vgpu->sysmem_pcie = true;
	WRITE_ONCE(vgpu->rmw_hold, true);
	if (!ST_OK(st_submit(st, st->chan, 1, &prog, &op, 1)))
		goto out;
	if (ST_OK(st_wait_rmw(st, word))) {
		/* Lost: the GPU writes back what it read plus 5. */
		atomic64_add(1000, (atomic64_t *)word);
		st_invalidate(st, VGPU_INV_PAGE_ALL | VGPU_INV_ALL_PDB);
		/* The invalidate returned: the RMW is over, its write done. */
		ok = ST_OK(!READ_ONCE(vgpu->rmw_word)) &&
		     ST_OK(READ_ONCE(*word) == 105);
	}
	WRITE_ONCE(vgpu->rmw_hold, false);
	ok &= ST_OK(st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_OK) &&
	      ST_OK(op.result == 100) &&
	      ST_OK(atomic64_read(&vgpu->ctr.sysmem_rmws) == rmws + 1);
out:
	vgpu->sysmem_pcie = pcie;
	WRITE_ONCE(vgpu->rmw_hold, false);
	set_cpus_allowed_ptr(gpc->thread, cpu_possible_mask);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	return ok;
}

/* Video memory atomics stay exact in either mode: no RMW window. */
static bool st_atomic_vram(struct st *st)
{
	struct vgpu *vgpu = st->vgpu;
	struct nvsvm_op op = {
		.code = NVSVM_OP_ATOMIC_ADD, .addr = ST_VA_VRAM + 0x2008,
		.value = 3,
	};
	u64 v = 9, rmws = atomic64_read(&vgpu->ctr.sysmem_rmws);
	bool pcie = vgpu->sysmem_pcie, ok;

	if (!ST_OK(st_set(st, ST_VA_VRAM + 0x2000, 12,
			  st_pte(0x6000, VGPU_APER_PTE_VID, 0))) ||
	    !ST_OK(!vgpu_vram_rw(vgpu, 0x6008, &v, 8, true)))
		return false;
	vgpu->sysmem_pcie = true;
	ok = ST_OK(st_run(st, st->chan, 0, &op, 1) == NVSVM_EXEC_OK) &&
	     ST_OK(op.result == 9) &&
	     ST_OK(!vgpu_vram_rw(vgpu, 0x6008, &v, 8, false) && v == 12) &&
	     ST_OK(atomic64_read(&vgpu->ctr.sysmem_rmws) == rmws);
	vgpu->sysmem_pcie = pcie;
	return ok;
}

static bool st_va_limit(struct st *st)
{
	struct vgpu_xlat x;

	if (!ST_OK(!st_xlat(st, 0, BIT_ULL(VGPU_VA_BITS), NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_VA_LIMIT && !x.fatal))
		return false;
	if (!ST_OK(!st_xlat(st, 0, 0x10000000000ULL, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_PDE))
		return false;
	return true;
}

static bool st_tlb_stale(struct st *st)
{
	u64 va = ST_VA_TLB, v = 0, hits;
	struct vgpu_xlat x;

	st_page_u64(st->a)[0] = 0xaaaa;
	st_page_u64(st->b)[0] = 0xbbbb;
	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->a, 0))))
		return false;
	if (!ST_OK(st_rw(st, 1, va, false, &v) && v == 0xaaaa))
		return false;

	/* New PTE, no invalidate: the GPC still reaches the old page. */
	hits = atomic64_read(&st->vgpu->ctr.tlb_hits);
	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->b, 0))))
		return false;
	if (!ST_OK(st_rw(st, 1, va, false, &v) && v == 0xaaaa))
		return false;
	if (!ST_OK(atomic64_read(&st->vgpu->ctr.tlb_hits) > hits))
		return false;
	/* HUB_ONLY and another PDB leave the GPC TLB alone. */
	st_invalidate(st, VGPU_INV_PAGE_ALL | VGPU_INV_ALL_PDB |
		      VGPU_INV_HUB_ONLY);
	if (!ST_OK(st_rw(st, 1, va, false, &v) && v == 0xaaaa))
		return false;
	st_invalidate_pdb(st, st->pd3->dma + SZ_1M, 0);
	if (!ST_OK(st_rw(st, 1, va, false, &v) && v == 0xaaaa))
		return false;
	/* Without PAGE_ALL nothing happens. */
	st_invalidate(st, VGPU_INV_ALL_PDB);
	if (!ST_OK(st_rw(st, 1, va, false, &v) && v == 0xaaaa))
		return false;
	/* PAGE_ALL for this PDB: the new page. */
	st_invalidate_pdb(st, st->pd3->dma, 0);
	if (!ST_OK(st_rw(st, 1, va, false, &v) && v == 0xbbbb))
		return false;

	/* Cleared PTE without invalidate: still the old page... */
	if (!ST_OK(st_set(st, va, 12, 0)))
		return false;
	if (!ST_OK(st_rw(st, 1, va, false, &v) && v == 0xbbbb))
		return false;
	/* ...until the invalidate; then it faults. */
	st_invalidate(st, VGPU_INV_PAGE_ALL | VGPU_INV_ALL_PDB);
	if (!ST_OK(!st_xlat(st, 1, va, NVSVM_ACCESS_READ, &x)))
		return false;
	if (!ST_OK(x.fault == VGPU_FT_PTE))
		return false;
	return true;
}

/* Entry @index: a fault of client @client of @gpc. */
/* The pages of the micro-TLB index test (st_tlb_index()). */
struct st_index {
	u32 n, n4, n16, n21;
};

/*
 * Its @i-th translation: 4 KiB, 64 KiB and 2 MiB pages in turn while
 * each size lasts, at ST_VA_INDEX (4 KiB), + 2 MiB (64 KiB) and + 4 MiB
 * (2 MiB); generation @gen of its PTE maps VRAM at @pa.
 */
static u32 st_index_page(const struct st_index *ix, u32 i, u32 gen, u64 *va,
			 u64 *pa)
{
	u32 k = i / 3;

	if (i % 3 == 2 && k < ix->n21) {
		*va = ST_VA_INDEX + SZ_4M + (u64)k * SZ_2M;
		*pa = SZ_4M + gen * SZ_8M + (u64)k * SZ_2M;
		return 21;
	}
	if (i % 3 == 1 && k < ix->n16) {
		*va = ST_VA_INDEX + SZ_2M + (u64)k * SZ_64K;
		*pa = SZ_2M + gen * SZ_1M + (u64)k * SZ_64K;
		return 16;
	}
	/* Those of the other sizes before it are not 4 KiB pages. */
	k = i - min(i / 3, ix->n21) - min((i + 1) / 3, ix->n16);
	*va = ST_VA_INDEX + (u64)k * SZ_4K;
	*pa = gen * SZ_1M + (u64)k * SZ_4K;
	return 12;
}

/* Every PTE of the test to generation @gen, no invalidate. */
static bool st_index_set(struct st *st, const struct st_index *ix, u32 gen)
{
	u32 i, shift;
	u64 va, pa;

	for (i = 0; i < ix->n; i++) {
		shift = st_index_page(ix, i, gen, &va, &pa);
		if (!st_set(st, va, shift, st_pte(pa, VGPU_APER_PTE_VID, 0)))
			return false;
	}
	return true;
}

/* Translation @i, inside its page: a hit or not, to generation @gen. */
static bool st_index_look(struct st *st, const struct st_index *ix, u32 i,
			  bool hit, u32 gen)
{
	struct vgpu_xlat x;
	u64 va, pa, off;
	u32 shift;

	shift = st_index_page(ix, i, gen, &va, &pa);
	off = (0x18 + (u64)i * 0x1238) & (BIT_ULL(shift) - 8);
	return st_xlat(st, 0, va + off, NVSVM_ACCESS_READ, &x) &&
	       x.hit == hit && x.shift == shift && x.mem == VGPU_MEM_VRAM &&
	       x.pa == pa + off;
}

/*
 * The micro-TLB is fully associative over three page sizes: each of its
 * entries is found, whatever its size and whichever entry was used last,
 * until a fill replaces it (round robin) or an invalidate drops it. The
 * PTEs change under the TLB without an invalidate, so that a hit (the old
 * page) tells itself from a walk (the new one).
 */
static bool st_tlb_index(struct st *st)
{
	struct st_index ix = { .n = st->vgpu->gpcs[0].utlb[0].size };
	u32 i, j;
	u64 va;

	ix.n21 = min(ix.n / 8, 4U);
	ix.n16 = min(ix.n / 4, 16U);
	ix.n4 = ix.n - ix.n16 - ix.n21;
	if (!ST_OK(st_index_set(st, &ix, 0)))
		return false;
	/* n fills: every entry is one of these. */
	for (i = 0; i < ix.n; i++)
		if (!ST_OK(st_index_look(st, &ix, i, false, 0)))
			return false;
	if (!ST_OK(st_index_set(st, &ix, 1)))
		return false;
	for (i = ix.n; i-- > 0;)
		if (!ST_OK(st_index_look(st, &ix, i, true, 0)))
			return false;
	for (j = 0; j < 7; j++)
		for (i = j; i < ix.n; i += 7)
			if (!ST_OK(st_index_look(st, &ix, i, true, 0)))
				return false;
	/* An invalidate of the PDB drops them all; n walks fill them again. */
	st_invalidate_pdb(st, st->pd3->dma, 0);
	for (i = 0; i < ix.n; i++)
		if (!ST_OK(st_index_look(st, &ix, i, false, 1)))
			return false;
	if (!ST_OK(st_index_set(st, &ix, 0)))
		return false;
	for (i = ix.n; i-- > 0;)
		if (!ST_OK(st_index_look(st, &ix, i, true, 1)))
			return false;
	/* Three more fills replace the three oldest entries, no other. */
	for (i = 0; i < 3; i++) {
		struct vgpu_xlat x;

		va = ST_VA_INDEX + SZ_1M + i * SZ_4K;
		if (!ST_OK(st_set(st, va, 12, st_pte(SZ_16M + i * SZ_4K,
						     VGPU_APER_PTE_VID, 0))) ||
		    !ST_OK(st_xlat(st, 0, va, NVSVM_ACCESS_READ, &x) && !x.hit))
			return false;
	}
	for (i = 3; i < ix.n; i++)
		if (!ST_OK(st_index_look(st, &ix, i, true, 1)))
			return false;
	for (i = 0; i < 3; i++)
		if (!ST_OK(st_index_look(st, &ix, i, false, 0)))
			return false;
	return true;
}

static bool st_check_client(struct st *st, u32 index, u64 va, u32 gpc,
			    u32 client, u32 access, u32 type, u64 t0)
{
	__le32 *w = st_entry(st, index);
	u32 info = VGPU_FAULT_VALID | (gpc << 24) | (access << 16) |
		   (client << 8) | type;
	u64 t;

	/* The entry is written after PUT moved: its VALID bit comes last. */
	if (!ST_OK(st_wait_valid(st, index)))
		return false;
	t = le32_to_cpu(w[4]) | ((u64)le32_to_cpu(w[5]) << 32);
	if (!ST_OK(le32_to_cpu(w[0]) == ((lower_32_bits(st->inst_dma) &
					0xfffff000U) | (2 << 8))))
		return false;
	if (!ST_OK(le32_to_cpu(w[1]) == upper_32_bits(st->inst_dma)))
		return false;
	if (!ST_OK(le32_to_cpu(w[2]) == lower_32_bits(va & PAGE_MASK)))
		return false;
	if (!ST_OK(le32_to_cpu(w[3]) == upper_32_bits(va)))
		return false;
	if (!ST_OK(t >= t0 && t <= ktime_get_ns()))
		return false;
	if (!ST_OK(le32_to_cpu(w[6]) == VGPU_FAULT_ENGINE_GR))
		return false;
	if (le32_to_cpu(w[7]) != info)
		pr_info("# entry info %#x, expected %#x\n",
			le32_to_cpu(w[7]), info);
	if (!ST_OK(le32_to_cpu(w[7]) == info))
		return false;
	return true;
}

/* A fault of the first warp slot (TPC 0, SM 0: GPCCLIENT_T1_0). */
static bool st_check_entry(struct st *st, u32 index, u64 va, u32 gpc,
			   u32 access, u32 type, u64 t0)
{
	return st_check_client(st, index, va, gpc, VGPU_CLIENT_GPC_T1_0,
			       access, type, t0);
}

/* A stalled read, its entry, then a replay after the PTE is fixed. */
static bool st_fault_replay(struct st *st, bool *replay_ok)
{
	u64 va = ST_VA_4K + 0x3008, t0 = ktime_get_ns();
	u32 gpc = st_gpc(st, 2), put = st_rd(st, VGPU_FB_PUT);
	int intrs = atomic_read(&st->intrs);
	struct nvsvm_op op = { .code = NVSVM_OP_READ, .addr = va };
	struct vgpu_prog prog;
	bool ok = false;

	*replay_ok = false;
	if (!st_submit(st, st->chan, gpc, &prog, &op, 1))
		return false;
	if (st_wait_put(st, put) != (put + 1) % st->vgpu->fb_entries)
		goto out;
	if (!st_check_entry(st, put, va, gpc, NVSVM_ACCESS_READ,
			    VGPU_FT_PTE, t0))
		goto out;
	if (atomic_read(&st->intrs) == intrs || !st_prog_stalled(&prog))
		goto out;
	ok = true;

	st_consume(st);
	st_page_u64(st->b)[1] = 0x4e4e;
	st_set(st, va, 12, st_sys_pte(st->b, 0));
	/* A replay without a fixed PTE faults again: fixed first. */
	st_replay(st);
	*replay_ok = st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_OK &&
		     op.result == 0x4e4e && prog.done_ops == 1;
	return ok;
out:
	st_cancel(st, gpc);
	st_finish(&prog, ST_TIMEOUT_MS);
	return false;
}

static bool st_cancel_test(struct st *st)
{
	u64 va = ST_VA_PERM, t0 = ktime_get_ns();
	u32 gpc = st_gpc(st, 3), put = st_rd(st, VGPU_FB_PUT);
	struct nvsvm_op ops[2] = {
		{ .code = NVSVM_OP_READ, .addr = va },
		{ .code = NVSVM_OP_FILL, .addr = va, .len = 64, .value = 1 },
	};
	struct vgpu_chan *chan;
	struct vgpu_prog prog;
	bool ok;

	chan = vgpu_chan_create(st->vgpu, st->inst_dma);
	if (!chan)
		return false;
	ok = st_submit(st, chan, gpc, &prog, ops, 2);
	if (!ok)
		goto out;
	ok = st_wait_put(st, put) != put &&
	     st_check_entry(st, put, va, gpc, NVSVM_ACCESS_WRITE,
			    VGPU_FT_RO, t0);
	st_consume(st);
	/* A cancel aimed at another GPC or a hub client leaves it. */
	if (st->vgpu->gpc_count > 1)
		st_cancel(st, (gpc + 1) % st->vgpu->gpc_count);
	st_invalidate(st, 0x1b | (gpc << 15) | BIT(20));
	ok = ok && st_prog_stalled(&prog);
	st_cancel(st, gpc);
	ok = st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_FAULT && ok;
	ok = ok && prog.fault_addr == va && prog.done_ops == 1 &&
	     prog.fault_access == NVSVM_ACCESS_WRITE && chan->error;
	/* The channel is in the error state: nothing runs on it. */
	ok = ok && st_run(st, chan, 0, ops, 1) == NVSVM_EXEC_CHANNEL_ERROR;
out:
	vgpu_chan_destroy(chan);
	return ok;
}

static void st_fb_reset(struct st *st, u32 entries)
{
	unsigned long flags;

	spin_lock_irqsave(&st->vgpu->reg_lock, flags);
	st->vgpu->fb_entries = entries;
	st->vgpu->fb_put = 0;
	st->vgpu->fb_get = 0;
	st->vgpu->fb_overflow = false;
	spin_unlock_irqrestore(&st->vgpu->reg_lock, flags);
}

static bool st_overflow(struct st *st)
{
	u64 va = ST_VA_FAULT, ovf = atomic64_read(&st->vgpu->ctr.overflows);
	struct nvsvm_op ops[2] = {
		{ .code = NVSVM_OP_READ, .addr = va },
		{ .code = NVSVM_OP_READ, .addr = va + 0x1000 },
	};
	struct vgpu_prog prog[2];
	bool ok = true;
	u32 put;

	/* A two-entry buffer holds one fault: the second overflows. */
	st_fb_reset(st, 2);
	if (!st_submit(st, st->chan, 0, &prog[0], &ops[0], 1))
		return false;
	ok = st_wait_put(st, 0) == 1;
	if (!st_submit(st, st->chan, 1, &prog[1], &ops[1], 1)) {
		ok = false;
		goto out;
	}
	put = st_wait_put(st, 1);
	ok = ok && put == (1 | VGPU_FB_OVERFLOW);
	ok = ok && atomic64_read(&st->vgpu->ctr.overflows) > ovf;
	ok = ok && st_wait_valid(st, 0) && !st_valid(st, 1);
	ok = ok && st_prog_stalled(&prog[0]) && st_prog_stalled(&prog[1]);

	/* Drain, clear OVERFLOW, map both pages, replay: both complete. */
	st_consume(st);
	st_wr(st, VGPU_FB_GET, st_rd(st, VGPU_FB_GET) | VGPU_FB_OVERFLOW);
	ok = ok && !(st_rd(st, VGPU_FB_PUT) & VGPU_FB_OVERFLOW);
	st_page_u64(st->a)[0] = 0x0f0f;
	st_set(st, va, 12, st_sys_pte(st->a, 0));
	st_set(st, va + 0x1000, 12, st_sys_pte(st->a, 0));
	st_replay(st);
	ok = st_finish(&prog[1], ST_TIMEOUT_MS) == NVSVM_EXEC_OK && ok;
	ok = ok && ops[1].result == 0x0f0f;
out:
	ok = st_finish(&prog[0], ST_TIMEOUT_MS) == NVSVM_EXEC_OK && ok;
	ok = ok && ops[0].result == 0x0f0f;
	st_fb_reset(st, st->entries);
	return ok;
}

static bool st_submit_flags(struct st *st, struct vgpu_chan *chan, u32 gpc,
			    struct vgpu_prog *prog, struct nvsvm_op *ops,
			    u32 nops, u32 flags)
{
	memset(prog, 0, sizeof(*prog));
	prog->ops = ops;
	prog->nops = nops;
	prog->flags = flags & NVSVM_EXEC_WARPS;
	prog->slot = NVSVM_EXEC_FLAGS_SLOT(flags);
	return !vgpu_prog_submit(chan, prog, st_gpc(st, gpc));
}

/* The fault client of warp slot @slot (docs/gp100.md). */
static u32 st_slot_client(struct st *st, u32 slot)
{
	struct vgpu *vgpu = st->vgpu;

	return (slot % vgpu->tpcs) * vgpu->sms + (slot / vgpu->tpcs) % vgpu->sms;
}

/* CANCEL_TARGETED of @gpc/@client/@hub aimed at one PD3: @pdb in @vram or not. */
static void st_cancel_at(struct st *st, u32 gpc, u32 client, bool hub,
			 u64 pdb, bool vram)
{
	st_wr(st, VGPU_INV_PDB_HI, pdb >> 40);
	st_wr(st, VGPU_INV_PDB_LO, ((pdb >> 12) << 4) | (vram ? 0 : ST_SYS));
	st_invalidate(st, VGPU_INV_PAGE_ALL | (VGPU_INV_REPLAY_CANCEL << 3) |
		      (gpc << 15) | (client << 9) | (hub ? BIT(20) : 0));
}

/*
 * A CANCEL_TARGETED that names no stalled access fails nothing and counts
 * one cancel_miss, whatever it got wrong: a hub client, another GPC, the
 * client of another TPC, a client the GPC does not have, another PD3
 * address, the right address in the other aperture. The access (a warp of
 * the last TPC, SM 0: not client 0) stays stalled through each; the cancel
 * that names it fails it and counts no miss.
 */
static bool st_cancel_misses(struct st *st)
{
	struct vgpu *vgpu = st->vgpu;
	u32 gpc = st_gpc(st, 2), slot = vgpu->tpcs - 1, i;
	u32 client = st_slot_client(st, slot);
	u64 va = ST_VA_FAULT + 0x70000, pdb = st->pd3->dma, misses;
	u32 put = st_rd(st, VGPU_FB_PUT) & VGPU_FB_IDX_MASK;
	struct nvsvm_op op = { .code = NVSVM_OP_READ, .addr = va };
	const struct {
		u32 gpc, client;
		bool hub, vram;
		u64 pdb;
	} wrong[] = {
		{ gpc, client, true, false, pdb },
		{ (gpc + 1) % vgpu->gpc_count, client, false, false, pdb },
		{ gpc, st_slot_client(st, 0), false, false, pdb },
		{ gpc, vgpu->tpcs * vgpu->sms, false, false, pdb },
		{ gpc, client, false, false, pdb + PAGE_SIZE },
		{ gpc, client, false, true, pdb },
	};
	struct vgpu_chan *chan;
	struct vgpu_prog prog;
	bool ok;

	/* Tables down to the PTEs: a PTE fault. */
	if (!ST_OK(st_set(st, va + 0x1000, 12, st_sys_pte(st->a, 0))))
		return false;
	/* A channel of its own: the last cancel puts it in error. */
	chan = vgpu_chan_create(vgpu, st->inst_dma);
	if (!ST_OK(chan && st_submit_flags(st, chan, gpc, &prog, &op, 1,
					   NVSVM_EXEC_SLOT(slot)))) {
		if (chan)
			vgpu_chan_destroy(chan);
		return false;
	}
	ok = ST_OK(st_wait_put(st, put) != put);
	ok = ok && st_check_client(st, put, va, gpc, client, NVSVM_ACCESS_READ,
				   VGPU_FT_PTE, 0);
	st_consume(st);
	misses = atomic64_read(&vgpu->ctr.cancel_misses);
	for (i = 0; i < ARRAY_SIZE(wrong); i++) {
		/* Another GPC, another TPC only when there is one. */
		if ((i == 1 && vgpu->gpc_count == 1) ||
		    (i == 2 && vgpu->tpcs == 1))
			continue;
		st_cancel_at(st, wrong[i].gpc, wrong[i].client, wrong[i].hub,
			     wrong[i].pdb, wrong[i].vram);
		misses++;
		if (!ST_OK(atomic64_read(&vgpu->ctr.cancel_misses) == misses) ||
		    !ST_OK(READ_ONCE(prog.warps[0].stall) == VGPU_STALL_WAIT)) {
			pr_info("# wrong cancel %u hit or was not counted\n", i);
			ok = false;
		}
	}
	st_cancel_at(st, gpc, client, false, pdb, false);
	ok = ST_OK(st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_FAULT) && ok;
	ok = ok && ST_OK(atomic64_read(&vgpu->ctr.cancel_misses) == misses);
	ok = ok && ST_OK(prog.fault_addr == va && chan->error);
	vgpu_chan_destroy(chan);
	return ok;
}

#define ST_WARPS	4

/*
 * One program as warps on one GPC: slot 0 (TPC 0, SM 0) and slot tpcs
 * (TPC 0, SM 1) read the same page, slot 1 (TPC 1) another page, slot
 * tpcs * sms (TPC 0, SM 0, its second warp) a third; a second program in
 * slot 2 runs to its end meanwhile. Four entries, one per warp, with the
 * client of each SM; a replay after the TPC 1 page is mapped lets that
 * warp finish, the others fault again, which puts TPC 0's micro-TLB in
 * lockdown: a warp of another channel (same page directory) in slot
 * 3 * tpcs (TPC 0, SM 1) issues nothing meanwhile. A cancel naming SM 1's
 * client fails every stalled warp of TPC 0's micro-TLB, and nothing else:
 * the waiting warp then runs.
 */
static bool st_warps(struct st *st)
{
	struct vgpu *vgpu = st->vgpu;
	u32 nops = vgpu->tpcs * vgpu->sms + 1, gpc = st_gpc(st, 1);
	u32 slot[ST_WARPS] = { 0, 1, vgpu->tpcs, vgpu->tpcs * vgpu->sms };
	u64 va[ST_WARPS] = { ST_VA_WARPS, ST_VA_WARPS + 0x1000, ST_VA_WARPS,
			     ST_VA_WARPS + 0x2000 };
	u64 t0 = ktime_get_ns(), misses, v;
	u32 put = st_rd(st, VGPU_FB_PUT), n = vgpu->fb_entries, i;
	struct nvsvm_op side = { .code = NVSVM_OP_READ, .addr = ST_VA_4K };
	struct nvsvm_op late = { .code = NVSVM_OP_READ, .addr = ST_VA_4K };
	struct vgpu_prog *progs, *prog, *prog2, *prog3;
	struct vgpu_chan *chan;
	struct nvsvm_op *ops;
	bool ok = false;

	ops = kcalloc(nops, sizeof(*ops), GFP_KERNEL);
	progs = kcalloc(3, sizeof(*progs), GFP_KERNEL);
	chan = vgpu_chan_create(vgpu, st->inst_dma);
	if (!ops || !progs || !chan)
		goto out_free;
	prog = &progs[0];
	prog2 = &progs[1];
	prog3 = &progs[2];
	for (i = 0; i < ST_WARPS; i++) {
		ops[slot[i]].code = NVSVM_OP_READ;
		ops[slot[i]].addr = va[i] + 8 * i;
	}
	v = st_page_u64(st->a)[0];
	/* Tables down to the PTEs: the warps' faults are PTE faults. */
	if (!ST_OK(st_set(st, ST_VA_WARPS + 0x8000, 12,
			  st_sys_pte(st->a, 0))))
		goto out_free;
	ok = st_submit_flags(st, chan, gpc, prog, ops, nops,
			     NVSVM_EXEC_WARPS);
	if (!ST_OK(ok))
		goto out_free;
	/* Every warp faults in the first round: four entries, in order. */
	for (i = 0; i < 100 && st_rd(st, VGPU_FB_PUT) != (put + ST_WARPS) % n;
	     i++)
		usleep_range(1000, 2000);
	ok = ST_OK(st_rd(st, VGPU_FB_PUT) == (put + ST_WARPS) % n);
	for (i = 0; ok && i < ST_WARPS; i++)
		ok = st_check_client(st, (put + i) % n, va[i], gpc,
				     st_slot_client(st, slot[i]),
				     NVSVM_ACCESS_READ, VGPU_FT_PTE, t0);
	st_consume(st);
	/* Another program of the GPC, in its own slot, is not held up. */
	ok = ok && ST_OK(st_submit_flags(st, chan, gpc, prog2, &side, 1,
					 NVSVM_EXEC_SLOT(2)));
	if (ok) {
		ok = ST_OK(st_finish(prog2, ST_TIMEOUT_MS) == NVSVM_EXEC_OK);
		ok = ok && ST_OK(side.result == v);
	}
	ok = ok && ST_OK(st_prog_stalled(prog));

	/* TPC 1's page mapped: its warp finishes, the three others refault. */
	st_page_u64(st->b)[1] = 0x7171;
	st_set(st, va[1], 12, st_sys_pte(st->b, 0));
	put = st_rd(st, VGPU_FB_PUT);
	st_replay(st);
	ok = ok && ST_OK(st_rd(st, VGPU_FB_PUT) == (put + ST_WARPS - 1) % n);
	st_consume(st);
	ok = ok && ST_OK(st_prog_stalled(prog));
	/* Lockdown: a new warp of TPC 0 waits, without a fault. */
	put = st_rd(st, VGPU_FB_PUT);
	if (!ST_OK(st_submit_flags(st, st->chan, gpc, prog3, &late, 1,
				   NVSVM_EXEC_SLOT(3 * vgpu->tpcs)))) {
		ok = false;
		prog3->vchan = NULL;
	}
	ok = ok && ST_OK(prog3->vchan && st_prog_stalled(prog3));
	ok = ok && ST_OK(st_rd(st, VGPU_FB_PUT) == put);

	/* A cancel of another TPC's client misses; SM 1's hits all TPC 0. */
	misses = atomic64_read(&vgpu->ctr.cancel_misses);
	st_invalidate(st, 0x1b | (gpc << 15) |
		      (st_slot_client(st, 1) << 9));
	ok = ok && ST_OK(atomic64_read(&vgpu->ctr.cancel_misses) == misses + 1);
	ok = ok && ST_OK(st_prog_stalled(prog));
	st_invalidate(st, 0x1b | (gpc << 15) |
		      (st_slot_client(st, slot[2]) << 9));
	ok = ST_OK(st_finish(prog, ST_TIMEOUT_MS) == NVSVM_EXEC_FAULT) && ok;
	ok = ok && ST_OK(atomic64_read(&vgpu->ctr.cancel_misses) == misses + 1);
	if (prog3->vchan) {
		ok = ST_OK(st_finish(prog3, ST_TIMEOUT_MS) == NVSVM_EXEC_OK) &&
		     ok;
		ok = ok && ST_OK(late.result == v);
	}
	ok = ok && ST_OK(ops[1].result == 0x7171 &&
			 prog->done_ops == nops - (ST_WARPS - 1));
	ok = ok && ST_OK(prog->fault_access == NVSVM_ACCESS_READ &&
			 (prog->fault_addr & PAGE_MASK) == ST_VA_WARPS);
	ok = ok && ST_OK(chan->error);
out_free:
	if (chan)
		vgpu_chan_destroy(chan);
	kfree(progs);
	kfree(ops);
	return ok;
}

/*
 * The buffer full in the middle of one round of warps: the warps that
 * found no room stay stalled without an entry, and fault again after the
 * replay; every warp finishes once its page is mapped.
 */
static bool st_warps_overflow(struct st *st)
{
	u64 va = ST_VA_WARPS + 0x10000;
	struct nvsvm_op ops[3];
	struct vgpu_prog prog;
	bool ok = true;
	u32 i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 3; i++) {
		ops[i].code = NVSVM_OP_READ;
		ops[i].addr = va + i * 0x1000;
	}
	/* A three-entry buffer holds two faults: the third overflows. */
	st_fb_reset(st, 3);
	if (!st_submit_flags(st, st->chan, 0, &prog, ops, 3, NVSVM_EXEC_WARPS))
		return false;
	ok = ST_OK(st_wait_put(st, 0) != 0);
	for (i = 0; i < 100 && !(st_rd(st, VGPU_FB_PUT) & VGPU_FB_OVERFLOW);
	     i++)
		usleep_range(1000, 2000);
	ok = ok && ST_OK(st_rd(st, VGPU_FB_PUT) == (2 | VGPU_FB_OVERFLOW));
	ok = ok && ST_OK(st_prog_stalled(&prog));
	st_consume(st);
	st_wr(st, VGPU_FB_GET, st_rd(st, VGPU_FB_GET) | VGPU_FB_OVERFLOW);
	/* Only the first page: the two others fault again, with room now. */
	st_page_u64(st->a)[0] = 0x3a3a;
	st_set(st, va, 12, st_sys_pte(st->a, 0));
	st_replay(st);
	ok = ok && ST_OK(st_rd(st, VGPU_FB_PUT) == 1);
	st_consume(st);
	st_set(st, va + 0x1000, 12, st_sys_pte(st->a, 0));
	st_set(st, va + 0x2000, 12, st_sys_pte(st->a, 0));
	st_replay(st);
	ok = ST_OK(st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_OK) && ok;
	for (i = 0; i < 3; i++)
		ok = ok && ST_OK(ops[i].result == 0x3a3a);
	st_fb_reset(st, st->entries);
	return ok;
}

static bool st_no_replay(struct st *st)
{
	u64 va = ST_VA_FAULT + 0x10000;
	u32 put = st_rd(st, VGPU_FB_PUT);
	struct nvsvm_op op = { .code = NVSVM_OP_WRITE, .addr = va };
	struct vgpu_chan *chan;
	bool ok;

	chan = vgpu_chan_create(st->vgpu, st->inst_nr_dma);
	if (!chan)
		return false;
	ok = st_run(st, chan, 1, &op, 1) == NVSVM_EXEC_FATAL;
	ok = ok && st_rd(st, VGPU_FB_PUT) == put && chan->error;
	vgpu_chan_destroy(chan);
	if (!ST_OK(ok))
		return false;
	return true;
}

static bool st_buffer_disabled(struct st *st)
{
	u64 va = ST_VA_FAULT + 0x20000;
	struct nvsvm_op op = { .code = NVSVM_OP_READ, .addr = va };
	struct vgpu_chan *chan;
	bool ok;

	chan = vgpu_chan_create(st->vgpu, st->inst_dma);
	if (!chan)
		return false;
	st_wr(st, VGPU_FB_ADDR_LO, lower_32_bits(st->fb_dma));
	ok = st_run(st, chan, 0, &op, 1) == NVSVM_EXEC_FATAL;
	st_wr(st, VGPU_FB_ADDR_LO,
	      lower_32_bits(st->fb_dma) | VGPU_FB_ADDR_LO_ENABLE);
	vgpu_chan_destroy(chan);
	if (!ST_OK(ok))
		return false;
	return true;
}

/* A stalled program stopped by its timeout frees the GPC. */
static bool st_timeout(struct st *st)
{
	u64 va = ST_VA_FAULT + 0x30000, v = 0;
	u32 put = st_rd(st, VGPU_FB_PUT);
	struct nvsvm_op op = { .code = NVSVM_OP_READ, .addr = va };
	struct vgpu_prog prog;

	if (!ST_OK(st_submit(st, st->chan, 2, &prog, &op, 1)))
		return false;
	/*
	 * Stalled first (however long a loaded host takes to get there),
	 * then stopped by a short timeout.
	 */
	if (!ST_OK(st_wait_put(st, put) != put)) {
		st_finish(&prog, 50);
		return false;
	}
	if (!ST_OK(st_finish(&prog, 50) == NVSVM_EXEC_TIMEOUT))
		return false;
	if (!ST_OK(prog.done_ops == 0))
		return false;
	st_consume(st);
	if (!ST_OK(!st->chan->error))
		return false;
	if (!ST_OK(st_rw(st, 2, ST_VA_4K + 8, false, &v)))
		return false;
	return true;
}

static bool st_chase(struct st *st)
{
	u64 va = ST_VA_PERM + 0x3000, *p = st_page_u64(st->b);
	struct nvsvm_op ops[2] = {
		{ .code = NVSVM_OP_CHASE, .addr = va, .len = 10, .value = 3,
		  .off_next = 0, .off_data = 8 },
		{ .code = NVSVM_OP_SUM, .addr = va, .len = 64 },
	};

	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->b, 0))))
		return false;
	memset(p, 0, 64);
	p[0] = va + 32;		/* node 0 -> node 2 -> end */
	p[1] = 1;
	p[4] = 0;
	p[5] = 2;
	if (!ST_OK(st_run(st, st->chan, 0, ops, 2) == NVSVM_EXEC_OK))
		return false;
	if (!ST_OK(ops[0].result == 2 && p[1] == 4 && p[5] == 5))
		return false;
	if (!ST_OK(ops[1].result == va + 32 + 4 + 5))
		return false;
	return true;
}

/* Set the model's VALID delay; returns the old one. */
static u32 st_valid_delay(struct st *st, u32 us)
{
	u32 old = st->vgpu->fb_valid_delay_us;

	WRITE_ONCE(st->vgpu->fb_valid_delay_us, us);
	return old;
}

/* PUT as the model holds it, without reading the register. */
static u32 st_put_peek(struct st *st)
{
	return READ_ONCE(st->vgpu->fb_put);
}

/* Wait until the model moved PUT past @put, without reading PUT. */
static bool st_wait_put_peek(struct st *st, u32 put)
{
	int i;

	for (i = 0; i < ST_TIMEOUT_MS && st_put_peek(st) == put; i++)
		usleep_range(1000, 2000);
	return st_put_peek(st) != put;
}

/*
 * PUT moves before the entry is written: its VALID bit stays clear until
 * the driver read PUT, and for fault_valid_delay_us after that.
 */
static bool st_valid_late(struct st *st)
{
	u64 va = ST_VA_FAULT + 0x40028, t0 = ktime_get_ns();
	u32 put = st_put_peek(st), delay = st_valid_delay(st, 200000);
	struct nvsvm_op op = { .code = NVSVM_OP_READ, .addr = va };
	struct vgpu_prog prog;
	bool ok;

	if (!ST_OK(st_submit(st, st->chan, 1, &prog, &op, 1)))
		goto out;
	ok = ST_OK(st_wait_put_peek(st, put));
	/* PUT not read: nothing is written, however long we wait. */
	msleep(50);
	ok = ok && ST_OK(!st_valid(st, put));
	/* Read: still not valid right after (200 ms). */
	ok = ok && ST_OK((st_rd(st, VGPU_FB_PUT) & VGPU_FB_IDX_MASK) ==
			 (put + 1) % st->vgpu->fb_entries);
	ok = ok && ST_OK(!st_valid(st, put));
	/* Then the whole entry comes. */
	ok = ok && st_check_entry(st, put, va, st_gpc(st, 1),
				  NVSVM_ACCESS_READ, VGPU_FT_PTE, t0);
	st_consume(st);
	st_page_u64(st->a)[5] = 0x7a7a;
	st_set(st, va, 12, st_sys_pte(st->a, 0));
	st_replay(st);
	ok = st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_OK && ok;
	ok = ok && ST_OK(op.result == 0x7a7a);
	st_valid_delay(st, delay);
	return ok;
out:
	st_valid_delay(st, delay);
	return false;
}

/*
 * The model counts GET moved past an entry not yet valid, or one whose
 * VALID bit the driver did not clear.
 */
static bool st_get_checks(struct st *st)
{
	struct vgpu_counters *c = &st->vgpu->ctr;
	u64 early = atomic64_read(&c->early_gets);
	u64 unclr = atomic64_read(&c->valid_uncleared);
	u32 put = st_put_peek(st), delay = st_valid_delay(st, 200000);
	struct nvsvm_op op = { .code = NVSVM_OP_READ,
			       .addr = ST_VA_FAULT + 0x50000 };
	struct vgpu_chan *chan;
	struct vgpu_prog prog;
	bool ok;

	/* A channel of its own: the cancel at the end puts it in error. */
	chan = vgpu_chan_create(st->vgpu, st->inst_dma);
	if (!ST_OK(chan && st_submit(st, chan, 2, &prog, &op, 1)))
		goto out;
	/* GET past an entry not written yet. */
	ok = ST_OK(st_wait_put_peek(st, put));
	if (!ok) {
		st_cancel(st, st_gpc(st, 2));
		st_finish(&prog, ST_TIMEOUT_MS);
		goto out;
	}
	st_wr(st, VGPU_FB_GET, st_rd(st, VGPU_FB_PUT) & VGPU_FB_IDX_MASK);
	ok = ok && ST_OK(atomic64_read(&c->early_gets) == early + 1);
	ok = ok && ST_OK(atomic64_read(&c->valid_uncleared) == unclr);
	/* The entry comes anyway; a replay makes the access fault again. */
	ok = ok && ST_OK(st_wait_valid(st, put));
	st_replay(st);
	ok = ok && ST_OK(st_put_peek(st) == (put + 2) % st->vgpu->fb_entries);
	st_rd(st, VGPU_FB_PUT);
	ok = ok && ST_OK(st_wait_valid(st, (put + 1) % st->vgpu->fb_entries));
	/* GET past a valid entry whose VALID bit was not cleared. */
	if (ok)
		st_wr(st, VGPU_FB_GET, (put + 2) % st->vgpu->fb_entries);
	ok = ok && ST_OK(atomic64_read(&c->valid_uncleared) == unclr + 1);
	ok = ok && ST_OK(atomic64_read(&c->early_gets) == early + 1);
	st_cancel(st, st_gpc(st, 2));
	ok = st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_FAULT && ok;
	st_entry(st, put)[7] = 0;
	st_entry(st, (put + 1) % st->vgpu->fb_entries)[7] = 0;
	st_valid_delay(st, delay);
	vgpu_chan_destroy(chan);
	return ok;
out:
	st_valid_delay(st, delay);
	if (chan)
		vgpu_chan_destroy(chan);
	return false;
}

/*
 * A replay retries at once, in the register write: an access that still
 * cannot translate faults again there (a new entry, the interrupt) and
 * stays stalled.
 */
static bool st_replay_refault(struct st *st)
{
	u64 va = ST_VA_FAULT + 0x60018, refaults;
	u32 put = st_rd(st, VGPU_FB_PUT) & VGPU_FB_IDX_MASK;
	struct nvsvm_op op = { .code = NVSVM_OP_READ, .addr = va };
	struct vgpu_prog prog;
	int intrs;
	bool ok;

	if (!ST_OK(st_submit(st, st->chan, 3, &prog, &op, 1)))
		return false;
	ok = ST_OK(st_wait_put(st, put) != put);
	st_consume(st);
	refaults = atomic64_read(&st->vgpu->ctr.refaults);
	intrs = atomic_read(&st->intrs);
	st_replay(st);
	/* Already done when the write returned. */
	ok = ok && ST_OK(st_put_peek(st) == (put + 2) % st->vgpu->fb_entries);
	ok = ok && ST_OK(atomic64_read(&st->vgpu->ctr.refaults) == refaults + 1);
	ok = ok && ST_OK(atomic_read(&st->intrs) > intrs);
	ok = ok && ST_OK(st_prog_stalled(&prog));
	st_consume(st);
	st_page_u64(st->a)[3] = 0x5e5e;
	st_set(st, va, 12, st_sys_pte(st->a, 0));
	st_replay(st);
	ok = st_finish(&prog, ST_TIMEOUT_MS) == NVSVM_EXEC_OK && ok;
	ok = ok && ST_OK(op.result == 0x5e5e);
	ok = ok && ST_OK(atomic64_read(&st->vgpu->ctr.refaults) == refaults + 1);
	return ok;
}

/*
 * A replay invalidates what its invalidate fields name, nothing more: a
 * replay without PAGE_ALL leaves a stale translation in the TLB.
 */
static bool st_replay_keeps_tlb(struct st *st)
{
	u64 va = ST_VA_TLB + 0x1000, v = 0;
	struct vgpu_xlat x;

	st_page_u64(st->a)[0] = 0xa1a1;
	st_page_u64(st->b)[0] = 0xb1b1;
	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->a, VGPU_PTE_RO))))
		return false;
	if (!ST_OK(st_rw(st, 0, va, false, &v) && v == 0xa1a1))
		return false;
	if (!ST_OK(st_set(st, va, 12, st_sys_pte(st->b, 0))))
		return false;
	st_invalidate(st, VGPU_INV_REPLAY_START << 3);
	if (!ST_OK(st_rw(st, 0, va, false, &v) && v == 0xa1a1))
		return false;
	/* The cached READ_ONLY still refuses a write. */
	if (!ST_OK(!st_xlat(st, 0, va, NVSVM_ACCESS_WRITE, &x) &&
		   x.fault == VGPU_FT_RO))
		return false;
	/* REPLAY with PAGE_ALL and ALL_PDB: a full invalidate too. */
	st_replay(st);
	if (!ST_OK(st_rw(st, 0, va, false, &v) && v == 0xb1b1))
		return false;
	return true;
}

static bool st_counters(struct st *st)
{
	struct vgpu_counters *c = &st->vgpu->ctr;

	if (!ST_OK(atomic64_read(&c->accesses) && atomic64_read(&c->walks)))
		return false;
	if (!ST_OK(atomic64_read(&c->tlb_hits) && atomic64_read(&c->tlb_misses)))
		return false;
	if (!ST_OK(atomic64_read(&c->faults) && atomic64_read(&c->replays)))
		return false;
	if (!ST_OK(atomic64_read(&c->cancels) && atomic64_read(&c->overflows)))
		return false;
	if (!ST_OK(atomic64_read(&c->invalidates)))
		return false;
	return true;
}

/* ---- setup and the runner ---- */

static int st_setup(struct st *st)
{
	u64 pdb;

	st->dev = st->vgpu->gpu.dev;
	st->entries = st->vgpu->fb_entries;
	st->a = alloc_page(GFP_KERNEL | __GFP_ZERO);
	st->b = alloc_page(GFP_KERNEL | __GFP_ZERO);
	st->big = alloc_pages(GFP_KERNEL | __GFP_ZERO, 4);
	st->pd3 = st_table_new(st);
	st->inst = dma_alloc_coherent(st->dev, PAGE_SIZE, &st->inst_dma,
				      GFP_KERNEL);
	st->inst_nr = dma_alloc_coherent(st->dev, PAGE_SIZE, &st->inst_nr_dma,
					 GFP_KERNEL);
	st->fb_size = (size_t)st->entries * VGPU_FAULT_ENTRY_SIZE;
	st->fb = dma_alloc_coherent(st->dev, st->fb_size, &st->fb_dma,
				    GFP_KERNEL);
	if (!st->a || !st->b || !st->big || !st->pd3 || !st->inst ||
	    !st->inst_nr || !st->fb)
		return -ENOMEM;

	memset(st->inst, 0, PAGE_SIZE);
	memset(st->inst_nr, 0, PAGE_SIZE);
	memset(st->fb, 0, st->fb_size);
	pdb = st->pd3->dma | VGPU_APER_PTE_SYS | BIT(2) | VGPU_INST_VER2 |
	      VGPU_INST_BIG_64K;
	st->inst[VGPU_INST_LIMIT / 8] = cpu_to_le64(BIT_ULL(VGPU_VA_BITS) - 1);
	st->inst_nr[VGPU_INST_LIMIT / 8] = st->inst[VGPU_INST_LIMIT / 8];
	st->inst_nr[VGPU_INST_PDB / 8] = cpu_to_le64(pdb);
	st->inst[VGPU_INST_PDB / 8] = cpu_to_le64(pdb | VGPU_INST_REPLAY_TEX |
						  VGPU_INST_REPLAY_GCC);
	vgpu_ctx_load(st->vgpu, &st->ctx, st->inst_dma);

	st->chan = vgpu_chan_create(st->vgpu, st->inst_dma);
	if (!st->chan)
		return -ENOMEM;

	/* Program the fault buffer as the driver does. */
	st_wr(st, VGPU_FB_ADDR_HI, upper_32_bits(st->fb_dma));
	st_wr(st, VGPU_FB_ADDR_LO,
	      lower_32_bits(st->fb_dma) | VGPU_FB_ADDR_LO_ENABLE);
	st_wr(st, VGPU_FB_GET, st_rd(st, VGPU_FB_PUT) & VGPU_FB_IDX_MASK);
	return 0;
}

static void st_teardown(struct st *st)
{
	int i;

	if (st->chan)
		vgpu_chan_destroy(st->chan);
	/* Back to the power-on state for the driver core. */
	st_wr(st, VGPU_FB_ADDR_LO, 0);
	st_wr(st, VGPU_FB_ADDR_HI, 0);
	st_fb_reset(st, st->entries);
	st_invalidate(st, VGPU_INV_PAGE_ALL | VGPU_INV_ALL_PDB);

	if (st->fb)
		dma_free_coherent(st->dev, st->fb_size, st->fb, st->fb_dma);
	if (st->inst_nr)
		dma_free_coherent(st->dev, PAGE_SIZE, st->inst_nr,
				  st->inst_nr_dma);
	if (st->inst)
		dma_free_coherent(st->dev, PAGE_SIZE, st->inst, st->inst_dma);
	for (i = 0; i < st->ntab; i++)
		dma_free_coherent(st->dev, PAGE_SIZE, st->tab[i].cpu,
				  st->tab[i].dma);
	if (st->big)
		__free_pages(st->big, 4);
	if (st->b)
		__free_page(st->b);
	if (st->a)
		__free_page(st->a);
}

#define ST_TESTS	32

/**
 * vgpu_selftest() - run the self-tests on a GPU not yet registered
 * @vgpu: the GPU; nothing else uses it during the tests
 *
 * Results go to the kernel log as KTAP. Failures do not fail the load.
 */
void vgpu_selftest(struct vgpu *vgpu)
{
	bool replay_ok, big = vgpu->vram_size >= SZ_4M;
	struct st *st;

	pr_info("1..%d\n", ST_TESTS);
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st) {
		pr_info("not ok 1 setup # out of memory\n");
		return;
	}
	st->vgpu = vgpu;
	st_current = st;
	WRITE_ONCE(vgpu->intr_hook, st_intr);

	st_result(st, !st_setup(st), "setup");
	if (st->failed) {
		while (st->num < ST_TESTS)
			st_result(st, false, "not_run # setup failed");
		goto out;
	}
	st_result(st, st_regs(st), "registers");
	st_result(st, st_spt_4k(st), "pte_4k_spt");
	st_result(st, st_lpt_64k(st), "pte_64k_lpt");
	st_result(st, st_lpt_256(st), "lpt_256_byte_aligned");
	if (big) {
		st_result(st, st_pd0_2m(st), "pde_2m_vram");
	} else {
		st->num++;
		pr_info("ok %d pde_2m_vram # SKIP vram_mb < 4\n", st->num);
	}
	st_result(st, st_dual_pd0(st), "dual_pd0_fall_through");
	st_result(st, st_sparse(st), "sparse_pd0");
	if (vgpu->vram_size >= SZ_64K) {
		st_result(st, st_vram(st), "vram_aperture");
	} else {
		st->num++;
		pr_info("ok %d vram_aperture # SKIP no VRAM\n", st->num);
	}
	st_result(st, st_read_only(st), "read_only");
	st_result(st, st_atomics(st), "atomic_disable");
	if (cpu_online(0) && cpu_online(1)) {
		st_result(st, st_atomic_pcie(st),
			  "atomic_pcie_rmw_invalidate_waits");
	} else {
		st->num++;
		pr_info("ok %d atomic_pcie_rmw_invalidate_waits # SKIP needs CPUs 0 and 1\n",
			st->num);
	}
	if (vgpu->vram_size >= SZ_64K) {
		st_result(st, st_atomic_vram(st), "atomic_vram_exact");
	} else {
		st->num++;
		pr_info("ok %d atomic_vram_exact # SKIP no VRAM\n", st->num);
	}
	st_result(st, st_va_limit(st), "va_limit");
	st_result(st, st_tlb_stale(st), "tlb_stale_until_invalidate");
	if (vgpu->vram_size >= SZ_32M && vgpu->gpcs[0].utlb[0].size >= 8 &&
	    vgpu->gpcs[0].utlb[0].size <= 200) {
		st_result(st, st_tlb_index(st), "tlb_index_every_size");
	} else {
		st->num++;
		pr_info("ok %d tlb_index_every_size # SKIP needs 32 MiB of VRAM and 8 to 200 micro-TLB entries\n",
			st->num);
	}
	st_result(st, st_fault_replay(st, &replay_ok), "fault_entry_fields");
	st_result(st, replay_ok, "replay");
	st_result(st, st_cancel_test(st), "cancel_targeted");
	st_result(st, st_cancel_misses(st), "cancel_misses_every_kind");
	if (vgpu->gpc_count > 1) {
		st_result(st, st_overflow(st), "overflow");
	} else {
		st->num++;
		pr_info("ok %d overflow # SKIP needs two GPCs\n", st->num);
	}
	if (vgpu->tpcs > 1 && vgpu->sms > 1 && vgpu->warps_per_sm > 1) {
		st_result(st, st_warps(st), "warps_per_tpc_utlb");
	} else {
		st->num++;
		pr_info("ok %d warps_per_tpc_utlb # SKIP needs 2 TPCs, 2 SMs, 2 warps\n",
			st->num);
	}
	st_result(st, st_warps_overflow(st), "warps_overflow");
	st_result(st, st_no_replay(st), "no_replay_fatal");
	st_result(st, st_buffer_disabled(st), "buffer_disabled_fatal");
	st_result(st, st_timeout(st), "timeout_while_stalled");
	st_result(st, st_valid_late(st), "fault_valid_after_put_read");
	st_result(st, st_get_checks(st), "get_past_invalid_or_uncleared");
	st_result(st, st_replay_refault(st), "replay_retries_at_once");
	st_result(st, st_replay_keeps_tlb(st), "replay_without_page_all_keeps_tlb");
	st_result(st, st_chase(st) && st_counters(st), "chase_sum_counters");
	st_result(st, !rv_selftest(st_rv_result, NULL), "rv_interpreter");
out:
	st_teardown(st);
	WRITE_ONCE(vgpu->intr_hook, NULL);
	pr_info("# %d/%d failed\n", st->failed, st->num);
	st_current = NULL;
	kfree(st);
}
