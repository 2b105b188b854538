// SPDX-License-Identifier: GPL-2.0
/*
 * The GP100 MMU model: instance-block decoding, the five-level page-table
 * walk (read from memory on every TLB miss) and the micro-TLB of each TPC,
 * which keeps translations until an invalidate removes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "vgpu.h"

/**
 * vgpu_ctx_load() - decode a channel's instance block
 * @vgpu: the GPU
 * @ctx: filled from the instance block
 * @inst: physical address of the instance block (coherent system memory)
 *
 * Reads the PDB word (offset 0x200) and the VA limit (0x208) from memory.
 * Called when a program starts and after each invalidate that reached the
 * GPCs.
 */
void vgpu_ctx_load(struct vgpu *vgpu, struct vgpu_ctx *ctx, u64 inst)
{
	u64 pdb, limit;

	memset(ctx, 0, sizeof(*ctx));
	ctx->inst = inst;
	ctx->gen = atomic_read(&vgpu->inst_gen);
	if ((inst & ~PAGE_MASK) ||
	    vgpu_mem_read64(vgpu, VGPU_MEM_SYS, inst + VGPU_INST_PDB, &pdb) ||
	    vgpu_mem_read64(vgpu, VGPU_MEM_SYS, inst + VGPU_INST_LIMIT, &limit))
		return;

	ctx->bound = true;
	ctx->pdb = VGPU_INST_ADDR(pdb);
	switch (VGPU_INST_APER(pdb)) {
	case VGPU_APER_PTE_VID:
		ctx->pdb_mem = VGPU_MEM_VRAM;
		break;
	case VGPU_APER_PTE_SYS:
	case VGPU_APER_PTE_NCOH:
		ctx->pdb_mem = VGPU_MEM_SYS;
		break;
	default:
		ctx->pdb_mem = VGPU_MEM_NONE;
		break;
	}
	ctx->replay = (pdb & VGPU_INST_REPLAY_TEX) &&
		      (pdb & VGPU_INST_REPLAY_GCC);
	ctx->ver2 = pdb & VGPU_INST_VER2;
	ctx->big64 = pdb & VGPU_INST_BIG_64K;
	ctx->limit = min_t(u64, limit, BIT_ULL(VGPU_VA_BITS) - 1);
}

/* A PDE's aperture: 0 invalid, 1 video memory, 2 and 3 system memory. */
static enum vgpu_mem vgpu_pde_mem(u64 pde)
{
	switch (VGPU_PTE_APER(pde)) {
	case 1:
		return VGPU_MEM_VRAM;
	case VGPU_APER_PTE_SYS:
	case VGPU_APER_PTE_NCOH:
		return VGPU_MEM_SYS;
	default:
		return VGPU_MEM_NONE;
	}
}

/* A PTE's aperture: 0 video memory, 1 peer (unsupported), 2, 3 system. */
static enum vgpu_mem vgpu_pte_mem(u64 pte)
{
	switch (VGPU_PTE_APER(pte)) {
	case VGPU_APER_PTE_VID:
		return VGPU_MEM_VRAM;
	case VGPU_APER_PTE_SYS:
	case VGPU_APER_PTE_NCOH:
		return VGPU_MEM_SYS;
	default:
		return VGPU_MEM_NONE;
	}
}

/*
 * The walker returns 0 or VGPU_WALK_FAULT(type): fault type 0 (PDE) must
 * not read as success.
 */
#define VGPU_WALK_FAULT(type)	(0x100 | (type))

/* Fill @e from a valid PTE mapping a page of 1 << @shift bytes. */
static int vgpu_pte_decode(u64 pte, u8 shift, struct vgpu_tlbe *e)
{
	if (VGPU_PTE_KIND(pte))
		return VGPU_WALK_FAULT(VGPU_FT_UNSUPPORTED_KIND);
	e->mem = vgpu_pte_mem(pte);
	if (e->mem == VGPU_MEM_NONE)
		return VGPU_WALK_FAULT(VGPU_FT_UNSUPPORTED_APER);
	/* Address bits below the page size are ignored. */
	e->pa = VGPU_PTE_ADDR(pte) & ~(BIT_ULL(shift) - 1);
	e->shift = shift;
	e->ro = pte & VGPU_PTE_RO;
	e->no_atomic = pte & VGPU_PTE_NO_ATOMIC;
	return 0;
}

static int vgpu_walk_read(struct vgpu *vgpu, enum vgpu_mem mem, u64 table,
			  u64 index, u32 size, u64 *val)
{
	return vgpu_mem_read64(vgpu, mem, table + index * size, val);
}

/* PD0 with an LPT and/or an SPT: the dual page table rule. */
static int vgpu_walk_pt(struct vgpu *vgpu, struct vgpu_ctx *ctx, u64 va,
			u64 lo, u64 hi, struct vgpu_tlbe *e)
{
	enum vgpu_mem lpt_mem = vgpu_pde_mem(lo);
	enum vgpu_mem spt_mem = vgpu_pde_mem(hi);
	u64 pte;

	if (lpt_mem == VGPU_MEM_NONE && spt_mem == VGPU_MEM_NONE)
		return VGPU_WALK_FAULT(VGPU_FT_PDE);

	if (lpt_mem != VGPU_MEM_NONE) {
		if (!ctx->big64)
			return VGPU_WALK_FAULT(VGPU_FT_PDE_SIZE);
		if (vgpu_walk_read(vgpu, lpt_mem, VGPU_PDE_BIG_ADDR(lo),
				   (va >> 16) & 31, 8, &pte))
			return VGPU_WALK_FAULT(VGPU_FT_UNSUPPORTED_APER);
		if (pte & VGPU_PTE_VALID)
			return vgpu_pte_decode(pte, 16, e);
	}
	if (spt_mem != VGPU_MEM_NONE) {
		if (vgpu_walk_read(vgpu, spt_mem, VGPU_PTE_ADDR(hi),
				   (va >> 12) & 511, 8, &pte))
			return VGPU_WALK_FAULT(VGPU_FT_UNSUPPORTED_APER);
		if (pte & VGPU_PTE_VALID)
			return vgpu_pte_decode(pte, 12, e);
	}
	return VGPU_WALK_FAULT(VGPU_FT_PTE);
}

/* Walk the tables of @ctx for @va: 0 and @e filled, or a fault. */
static int vgpu_walk(struct vgpu *vgpu, struct vgpu_ctx *ctx, u64 va,
		     struct vgpu_tlbe *e)
{
	static const u8 dir_shift[] = { 47, 38, 29 };
	enum vgpu_mem mem = ctx->pdb_mem;
	u64 table = ctx->pdb, pde, lo, hi;
	int i;

	atomic64_inc(&vgpu->ctr.walks);
	if (mem == VGPU_MEM_NONE)
		return VGPU_WALK_FAULT(VGPU_FT_UNSUPPORTED_APER);

	for (i = 0; i < ARRAY_SIZE(dir_shift); i++) {
		if (vgpu_walk_read(vgpu, mem, table,
				   (va >> dir_shift[i]) & 511, 8, &pde))
			return VGPU_WALK_FAULT(VGPU_FT_UNSUPPORTED_APER);
		mem = vgpu_pde_mem(pde);
		if (mem == VGPU_MEM_NONE)
			return VGPU_WALK_FAULT(VGPU_FT_PDE);
		table = VGPU_PTE_ADDR(pde);
	}

	/* PD0: 16-byte entries. */
	if (vgpu_walk_read(vgpu, mem, table, ((va >> 21) & 255) * 2, 8, &lo) ||
	    vgpu_walk_read(vgpu, mem, table, ((va >> 21) & 255) * 2 + 1, 8,
			   &hi))
		return VGPU_WALK_FAULT(VGPU_FT_UNSUPPORTED_APER);

	if (lo & VGPU_PTE_VALID)
		return vgpu_pte_decode(lo, 21, e);
	if (VGPU_PTE_APER(lo) == 0 && (lo & VGPU_PTE_VOL)) {
		e->sparse = true;
		e->shift = 21;
		return 0;
	}
	return vgpu_walk_pt(vgpu, ctx, va, lo, hi, e);
}

static bool vgpu_tlb_match(const struct vgpu_tlbe *e, u64 pdb, bool vram,
			   u64 va)
{
	return e->valid && e->pdb == pdb && e->pdb_vram == vram &&
	       e->vpn == va >> e->shift;
}

/*
 * The micro-TLB is fully associative: any entry may hold any translation.
 * A lookup does not compare every entry (64 by default, on every access
 * that is not to the last entry's page): each entry filled is also on a
 * chain of a hash index keyed by its page number and size, and a lookup
 * walks one chain per page size the TLB holds. An invalidate only clears
 * @valid (vgpu_tlb_match() checks it): the entry stays on its chain until
 * it is filled again, so that the index changes only on a fill.
 */
static const u8 vgpu_tlb_shift[VGPU_TLB_SIZES] = { 12, 16, 21 };

static u32 vgpu_tlb_size(u8 shift)
{
	u32 s;

	for (s = 0; s < VGPU_TLB_SIZES - 1; s++)
		if (vgpu_tlb_shift[s] == shift)
			break;
	return s;
}

static u16 *vgpu_tlb_head(struct vgpu_utlb *u, u64 va, u32 s)
{
	u64 vpn = va >> vgpu_tlb_shift[s];

	return &u->index[hash_64(vpn * VGPU_TLB_SIZES + s, 32) &
			 u->index_mask];
}

/* Take entry @i off its chain. */
static void vgpu_tlb_unlink(struct vgpu_utlb *u, u32 i)
{
	struct vgpu_tlbe *e = &u->tlb[i];
	u32 s = vgpu_tlb_size(e->shift);
	u16 *p = vgpu_tlb_head(u, e->vpn << e->shift, s);

	while (*p != i + 1)
		p = &u->tlb[*p - 1].chain;
	*p = e->chain;
	e->linked = false;
	u->linked[s]--;
}

/* Put entry @i, just filled, at the head of its chain. */
static void vgpu_tlb_link(struct vgpu_utlb *u, u32 i)
{
	struct vgpu_tlbe *e = &u->tlb[i];
	u32 s = vgpu_tlb_size(e->shift);
	u16 *p = vgpu_tlb_head(u, e->vpn << e->shift, s);

	e->chain = *p;
	*p = i + 1;
	e->linked = true;
	u->linked[s]++;
}

/*
 * The entry of the last hit or fill is tried first: a GPC streaming
 * through memory asks for the same translation again and again (the
 * 4 KiB pieces of a large page, the words of a page). Otherwise the
 * chains of the index.
 */
static struct vgpu_tlbe *vgpu_tlb_lookup(struct vgpu_utlb *u,
					 struct vgpu_ctx *ctx, u64 va)
{
	bool vram = ctx->pdb_mem == VGPU_MEM_VRAM;
	u32 s, i;

	if (vgpu_tlb_match(&u->tlb[u->last], ctx->pdb, vram, va))
		return &u->tlb[u->last];
	if (!u->valid)
		return NULL;
	for (s = 0; s < VGPU_TLB_SIZES; s++) {
		if (!u->linked[s])
			continue;
		for (i = *vgpu_tlb_head(u, va, s); i; i = u->tlb[i - 1].chain) {
			if (vgpu_tlb_match(&u->tlb[i - 1], ctx->pdb, vram, va)) {
				u->last = i - 1;
				return &u->tlb[i - 1];
			}
		}
	}
	return NULL;
}

static struct vgpu_tlbe *vgpu_tlb_insert(struct vgpu_utlb *u,
					 struct vgpu_ctx *ctx, u64 va,
					 const struct vgpu_tlbe *walked)
{
	u32 i = u->next;
	struct vgpu_tlbe *e = &u->tlb[i];

	u->last = i;
	u->next = (i + 1) % u->size;
	if (e->linked)
		vgpu_tlb_unlink(u, i);
	if (!e->valid)
		u->valid++;
	*e = *walked;
	e->valid = true;
	e->pdb = ctx->pdb;
	e->pdb_vram = ctx->pdb_mem == VGPU_MEM_VRAM;
	e->vpn = va >> e->shift;
	vgpu_tlb_link(u, i);
	return e;
}

/**
 * vgpu_utlb_init() - allocate a micro-TLB, empty
 * @u: the micro-TLB (zeroed)
 * @entries: its entries (at most 65535)
 *
 * Return: 0 or -ENOMEM; vgpu_utlb_fini() frees what it allocated.
 */
int vgpu_utlb_init(struct vgpu_utlb *u, u32 entries)
{
	u32 heads = roundup_pow_of_two(max(2 * entries, 16U));

	u->size = entries;
	u->tlb = kcalloc(entries, sizeof(*u->tlb), GFP_KERNEL);
	u->index = kcalloc(heads, sizeof(*u->index), GFP_KERNEL);
	u->index_mask = heads - 1;
	return u->tlb && u->index ? 0 : -ENOMEM;
}

/**
 * vgpu_utlb_fini() - free a micro-TLB
 * @u: the micro-TLB, as vgpu_utlb_init() left it (allocated or not)
 */
void vgpu_utlb_fini(struct vgpu_utlb *u)
{
	kfree(u->tlb);
	kfree(u->index);
}

static bool vgpu_xlat_fault(struct vgpu_xlat *x, u8 type, bool fatal)
{
	x->fault = type;
	x->fatal = fatal;
	return false;
}

/* Permission checks and the final physical page, from a TLB entry. */
static bool vgpu_xlat_finish(struct vgpu *vgpu, const struct vgpu_tlbe *e,
			     u64 va, u32 access, struct vgpu_xlat *x)
{
	x->shift = e->shift;
	if (e->sparse) {
		x->sparse = true;
		return true;
	}
	if (access != NVSVM_ACCESS_READ && e->ro)
		return vgpu_xlat_fault(x, VGPU_FT_RO, false);
	if (access == NVSVM_ACCESS_ATOMIC && e->no_atomic)
		return vgpu_xlat_fault(x, VGPU_FT_ATOMIC, false);

	x->mem = e->mem;
	x->pa = e->pa + (va & (BIT_ULL(e->shift) - 1));
	x->page = vgpu_mem_page(vgpu, e->mem, x->pa);
	if (!x->page)
		return vgpu_xlat_fault(x, VGPU_FT_UNSUPPORTED_APER, false);
	x->off = offset_in_page(x->pa);
	return true;
}

/**
 * vgpu_mmu_translate() - translate a GPU virtual address for one access
 * @gpc: the GPC doing the access; its lock must be held
 * @tpc: the TPC doing it: its micro-TLB translates
 * @ctx: the channel's MMU context (reloaded here after an invalidate)
 * @va: virtual address
 * @access: NVSVM_ACCESS_READ, _WRITE or _ATOMIC
 * @x: result
 *
 * Looks in the TPC's micro-TLB first; on a miss walks the tables from memory and
 * caches the translation (also when the access then fails a permission
 * check, as the translation itself is valid).
 *
 * Return: true if @x describes the memory to access; false with
 * @x->fault (and @x->fatal) set when the access faults.
 */
bool vgpu_mmu_translate(struct vgpu_gpc *gpc, u32 tpc, struct vgpu_ctx *ctx,
			u64 va, u32 access, struct vgpu_xlat *x)
{
	struct vgpu_utlb *u = &gpc->utlb[tpc];
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_tlbe walked = {}, *e;
	int ret;

	lockdep_assert_held(&gpc->lock);
	memset(x, 0, sizeof(*x));

	if (ctx->gen != atomic_read(&vgpu->inst_gen))
		vgpu_ctx_load(vgpu, ctx, ctx->inst);
	if (!ctx->bound || !ctx->ver2)
		return vgpu_xlat_fault(x, VGPU_FT_UNBOUND_INST, true);
	if (va > ctx->limit)
		return vgpu_xlat_fault(x, VGPU_FT_VA_LIMIT, false);

	e = vgpu_tlb_lookup(u, ctx, va);
	if (e) {
		atomic64_inc(&vgpu->ctr.tlb_hits);
		x->hit = true;
		return vgpu_xlat_finish(vgpu, e, va, access, x);
	}
	atomic64_inc(&vgpu->ctr.tlb_misses);

	ret = vgpu_walk(vgpu, ctx, va, &walked);
	if (ret)
		return vgpu_xlat_fault(x, ret & 0xff, false);
	e = vgpu_tlb_insert(u, ctx, va, &walked);
	return vgpu_xlat_finish(vgpu, e, va, access, x);
}

/**
 * vgpu_tlb_invalidate() - drop cached translations of a GPC's micro-TLBs
 * @gpc: the GPC
 * @all_pdb: drop the translations of every PDB
 * @pdb_vram: else only those of this PDB: PD3 in video memory
 * @pdb: and at this address
 *
 * Waits for the access in progress on the GPC (it holds gpc->lock), also
 * when the TLB holds nothing to drop.
 */
void vgpu_tlb_invalidate(struct vgpu_gpc *gpc, bool all_pdb, bool pdb_vram,
			 u64 pdb)
{
	unsigned long flags;
	u32 i, t;

	spin_lock_irqsave(&gpc->lock, flags);
	for (t = 0; t < gpc->vgpu->tpcs; t++) {
		struct vgpu_utlb *u = &gpc->utlb[t];

		for (i = 0; u->valid && i < u->size; i++) {
			struct vgpu_tlbe *e = &u->tlb[i];

			if (e->valid && (all_pdb || (e->pdb == pdb &&
						     e->pdb_vram == pdb_vram))) {
				e->valid = false;
				u->valid--;
			}
		}
	}
	spin_unlock_irqrestore(&gpc->lock, flags);
}
