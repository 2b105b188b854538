// SPDX-License-Identifier: GPL-2.0
/*
 * Generic multi-level GPU page-table walker.
 *
 * The software tree mirrors the hardware one: each table has memory the
 * GPU reads (streaming-mapped, charged to the owner's memory cgroup;
 * synced for the device after the CPU writes entries: each at once on the
 * map path, once per table for the walks that clear), a count of its
 * non-zero slots (children linked or PTEs), a bitmap of the entries with
 * a non-zero slot, and, for directories, pointers to its children, per
 * slot. The chip code describes the kinds of tables; the walker derives
 * from them the path of each page size. The map has its loop; every other
 * walk of a range (invalidate, release, valid, next_used) is an operation
 * on one iterator, nvsvm_vmm_iter(). It goes from used entry to used
 * entry (find_next_bit() on the bitmap), so clearing a huge, barely
 * mapped range costs as much as the entries in use, not the span of the
 * tables that exist: a munmap of 1 GiB around
 * one GPU-mapped page looks at one entry per level, not at the 256 of its
 * PD0 and the 512 of its page table. Tables are unlinked when their last
 * slot empties; since the GPU may still walk an unlinked table until the
 * caller's TLB invalidate, freeing is a separate step
 * (nvsvm_vmm_free_tables()).
 */
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "nvsvm_vmm.h"

/* Spare tables kept per level after a free; tables reserved per call. */
#define NVSVM_VMM_CACHE_MAX	16
#define NVSVM_VMM_RESERVE_MAX	64
/* Index bits of a table at most: the size of each table's used bitmap. */
#define NVSVM_VMM_MAX_BITS	9

/**
 * struct nvsvm_pt - one page table or directory
 * @head: on a cache or freed list
 * @cpu: table memory
 * @dma: its DMA address
 * @level: index into the chip's levels
 * @refs: non-zero slots: linked children and PTEs
 * @used: entries with a non-zero slot (a linked child's slot holds its PDE)
 * @child: per entry and slot, the child table (directories only)
 */
struct nvsvm_pt {
	struct list_head head;
	void *cpu;
	dma_addr_t dma;
	u8 level;
	unsigned int refs;
	DECLARE_BITMAP(used, 1U << NVSVM_VMM_MAX_BITS);
	struct nvsvm_pt *child[];
};

/*
 * The nearest dual entry above a walk: its slots below @slot shadow the
 * walk, its slots above must be empty under a large page.
 */
struct nvsvm_vmm_dual {
	struct nvsvm_pt *pt;
	unsigned int idx;
	unsigned int slot;
};

static const struct nvsvm_vmm_level *
nvsvm_lvl(const struct nvsvm_vmm *vmm, unsigned int level)
{
	return &vmm->desc->levels[level];
}

static bool nvsvm_lvl_is_dir(const struct nvsvm_vmm_level *l)
{
	return l->next[0] != NVSVM_VMM_NONE ||
	       (l->slots > 1 && l->next[1] != NVSVM_VMM_NONE);
}

static unsigned int nvsvm_lvl_children(const struct nvsvm_vmm_level *l)
{
	return nvsvm_lvl_is_dir(l) ? (1U << l->bits) * l->slots : 0;
}

/*
 * Table memory: whole pages, or for tables smaller than a page a kmalloc
 * object of that (power of two) size, which kmalloc aligns to its size.
 * Neither dma_alloc_coherent() nor a DMA pool is charged to a memory
 * cgroup; these are, with __GFP_ACCOUNT.
 */
static void *nvsvm_pt_mem_alloc(unsigned int bytes, gfp_t gfp)
{
	struct page *page;

	if (bytes < PAGE_SIZE)
		return kzalloc(bytes, gfp);
	page = alloc_pages(gfp | __GFP_ZERO, get_order(bytes));
	return page ? page_address(page) : NULL;
}

static void nvsvm_pt_mem_free(void *cpu, unsigned int bytes)
{
	if (bytes < PAGE_SIZE)
		kfree(cpu);
	else
		free_pages((unsigned long)cpu, get_order(bytes));
}

/*
 * A zeroed table, charged to the address space's memory cgroup even when
 * the fault worker allocates it, and mapped for the device (which only
 * reads it). @gfp: GFP_KERNEL, or GFP_NOWAIT | __GFP_NOWARN under the
 * owner's lock; a charge beyond the group's limit fails rather than
 * invoking the OOM killer.
 */
static struct nvsvm_pt *nvsvm_pt_alloc(struct nvsvm_vmm *vmm,
				       unsigned int level, gfp_t gfp)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, level);
	struct mem_cgroup *old;
	struct nvsvm_pt *pt;

	gfp |= __GFP_ACCOUNT;
	if (gfpflags_allow_blocking(gfp))
		gfp |= __GFP_RETRY_MAYFAIL;
	old = set_active_memcg(vmm->memcg);
	pt = kzalloc(struct_size(pt, child, nvsvm_lvl_children(l)), gfp);
	if (pt)
		pt->cpu = nvsvm_pt_mem_alloc(l->table_bytes, gfp);
	set_active_memcg(old);
	if (!pt)
		return NULL;
	if (!pt->cpu)
		goto err_free;
	pt->level = level;
	pt->dma = dma_map_single(vmm->dev, pt->cpu, l->table_bytes,
				 DMA_TO_DEVICE);
	if (dma_mapping_error(vmm->dev, pt->dma))
		goto err_free;
	if (!IS_ALIGNED(pt->dma, l->table_bytes)) {
		/* An IOMMU that did not keep the alignment. */
		dma_unmap_single(vmm->dev, pt->dma, l->table_bytes,
				 DMA_TO_DEVICE);
		goto err_free;
	}
	return pt;

err_free:
	if (pt->cpu)
		nvsvm_pt_mem_free(pt->cpu, l->table_bytes);
	kfree(pt);
	return NULL;
}

static void nvsvm_pt_free(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);

	dma_unmap_single(vmm->dev, pt->dma, l->table_bytes, DMA_TO_DEVICE);
	nvsvm_pt_mem_free(pt->cpu, l->table_bytes);
	kfree(pt);
}

/* Take a zeroed table from the cache, or allocate one without sleeping. */
static struct nvsvm_pt *nvsvm_pt_get(struct nvsvm_vmm *vmm,
				     unsigned int level)
{
	struct nvsvm_pt *pt;

	spin_lock(&vmm->cache_lock);
	pt = list_first_entry_or_null(&vmm->cache[level], struct nvsvm_pt,
				      head);
	if (pt) {
		list_del(&pt->head);
		vmm->ncache[level]--;
	}
	spin_unlock(&vmm->cache_lock);
	if (!pt)
		pt = nvsvm_pt_alloc(vmm, level, GFP_NOWAIT | __GFP_NOWARN);
	return pt;
}

/**
 * nvsvm_vmm_reserve() - fill the table cache for a map of [start, end)
 * @vmm: address space
 * @start: first address
 * @end: end (exclusive)
 *
 * Called without the owner's lock; may sleep. Allocates as many tables of
 * each level as a map of the range could need at most, whatever the page
 * size (bounded per call; a larger map retries after -ENOMEM).
 *
 * Return: 0 or -ENOMEM.
 */
int nvsvm_vmm_reserve(struct nvsvm_vmm *vmm, u64 start, u64 end)
{
	unsigned int level;

	for (level = 1; level < vmm->desc->nlevels; level++) {
		const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, level);
		unsigned int span = l->shift + l->bits;
		u64 need = ((end - 1) >> span) - (start >> span) + 1;

		need = min_t(u64, need, NVSVM_VMM_RESERVE_MAX);
		for (;;) {
			struct nvsvm_pt *pt;
			bool enough;

			spin_lock(&vmm->cache_lock);
			enough = vmm->ncache[level] >= need;
			spin_unlock(&vmm->cache_lock);
			if (enough)
				break;
			pt = nvsvm_pt_alloc(vmm, level, GFP_KERNEL);
			if (!pt)
				return -ENOMEM;
			spin_lock(&vmm->cache_lock);
			list_add(&pt->head, &vmm->cache[level]);
			vmm->ncache[level]++;
			spin_unlock(&vmm->cache_lock);
		}
	}
	return 0;
}

static u64 *nvsvm_pt_entry(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			   unsigned int idx, unsigned int slot)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);

	return pt->cpu + idx * l->entry_bytes + slot * sizeof(u64);
}

/*
 * Entries of one table a walk wrote, from the lowest to the highest: made
 * visible to the device with one sync when the walk leaves the table.
 */
struct nvsvm_pt_span {
	u64 *lo;
	u64 *hi;
};

/* Make the CPU's writes of the entries [@lo, @hi] of @pt visible. */
static void nvsvm_pt_sync(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			  u64 *lo, u64 *hi)
{
	dma_sync_single_for_device(vmm->dev, pt->dma + ((void *)lo - pt->cpu),
				   (void *)(hi + 1) - (void *)lo,
				   DMA_TO_DEVICE);
}

static void nvsvm_pt_span_add(struct nvsvm_pt_span *span, u64 *e)
{
	if (!span->lo || e < span->lo)
		span->lo = e;
	if (!span->hi || e > span->hi)
		span->hi = e;
}

static void nvsvm_pt_span_sync(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			       const struct nvsvm_pt_span *span)
{
	if (span->lo)
		nvsvm_pt_sync(vmm, pt, span->lo, span->hi);
}

/*
 * Write slot @slot of entry @idx of @pt, not synced yet, and keep the
 * entry's bit in @pt->used: set while any of its slots is non-zero.
 */
static u64 *nvsvm_pt_set(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			 unsigned int idx, unsigned int slot, u64 val)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	u64 *e = nvsvm_pt_entry(vmm, pt, idx, slot);
	unsigned int s;

	WRITE_ONCE(*e, val);
	if (val) {
		__set_bit(idx, pt->used);
		return e;
	}
	for (s = 0; s < l->slots; s++)
		if (READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx, s)))
			return e;
	__clear_bit(idx, pt->used);
	return e;
}

/* nvsvm_pt_set(), made visible to the device at once. */
static void nvsvm_pt_write(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			   unsigned int idx, unsigned int slot, u64 val)
{
	u64 *e = nvsvm_pt_set(vmm, pt, idx, slot, val);

	nvsvm_pt_sync(vmm, pt, e, e);
}

static struct nvsvm_pt **nvsvm_pt_child(struct nvsvm_vmm *vmm,
					struct nvsvm_pt *pt, unsigned int idx,
					unsigned int slot)
{
	return &pt->child[idx * nvsvm_lvl(vmm, pt->level)->slots + slot];
}

static unsigned int nvsvm_pt_index(struct nvsvm_vmm *vmm,
				   struct nvsvm_pt *pt, u64 addr)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);

	return (addr >> l->shift) & ((1U << l->bits) - 1);
}

/* End of the entry of @pt that holds @addr, clamped to @end. */
static u64 nvsvm_pt_next(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			 u64 addr, u64 end)
{
	u64 size = 1ULL << nvsvm_lvl(vmm, pt->level)->shift;

	return min((addr & ~(size - 1)) + size, end);
}

/*
 * The first entry of @pt that holds something (a non-zero slot) in
 * [*@addr, @end), a range inside @pt's span: its index in *@idx, and
 * *@addr moved up to its start when it is not the entry of *@addr.
 * One find_next_bit() over the used bitmap, whatever the empty span.
 *
 * Return: false when no entry in the range holds anything.
 */
static bool nvsvm_pt_skip(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			  u64 *addr, u64 end, unsigned int *idx)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	u64 base = *addr & ~((1ULL << (l->shift + l->bits)) - 1);
	unsigned int first, last, i;

	if (*addr >= end)
		return false;
	first = nvsvm_pt_index(vmm, pt, *addr);
	if (test_bit(first, pt->used)) {
		/* A dense table: no search (the walks come here per entry). */
		*idx = first;
		return true;
	}
	last = min_t(u64, (end - 1 - base) >> l->shift, (1U << l->bits) - 1);
	i = find_next_bit(pt->used, last + 1, first);
	if (i > last)
		return false;
	*addr = base + ((u64)i << l->shift);
	*idx = i;
	return true;
}

static bool nvsvm_pte_valid(struct nvsvm_vmm *vmm, u64 pte)
{
	return vmm->desc->pte_flags(pte) & NVSVM_PTE_VALID;
}

/**
 * struct nvsvm_vmm_iter_lvl - where a walk is in one table
 * @pt: the table
 * @start: first address the walk asked of it
 * @end: end of the walk in it
 * @addr: the entry being walked: its start, or @start in the first one
 * @next: its end, clamped to @end
 * @idx: its index
 * @slot: the slot being walked
 * @kept: for the operation: something stays in @pt
 * @span: entries of @pt the operation wrote, synced when the walk leaves it
 */
struct nvsvm_vmm_iter_lvl {
	struct nvsvm_pt *pt;
	u64 start;
	u64 end;
	u64 addr;
	u64 next;
	unsigned int idx;
	unsigned int slot;
	bool kept;
	struct nvsvm_pt_span span;
};

struct nvsvm_vmm_iter;

/**
 * struct nvsvm_vmm_iter_ops - one operation on the walk of nvsvm_vmm_iter()
 * @enter: a table that holds something is reached; false: the walk does
 *	not look at its entries (the operation dealt with them). NULL: true.
 * @child: the slot being walked points to @c; false: the walk does not
 *	descend into it. NULL: true.
 * @leave: the walk is back from @c, the child at the slot being walked;
 *	its own state is at @it->lvl[@it->depth + 1]. May be NULL.
 * @pte: the slot being walked, at @e, points to no table (it may hold a
 *	PTE, valid or not, or nothing). May be NULL.
 *
 * Each is called with @it->lvl[@it->depth] the table the walk is in.
 */
struct nvsvm_vmm_iter_ops {
	bool (*enter)(struct nvsvm_vmm_iter *it, struct nvsvm_pt *pt);
	bool (*child)(struct nvsvm_vmm_iter *it, struct nvsvm_pt *c);
	void (*leave)(struct nvsvm_vmm_iter *it, struct nvsvm_pt *c);
	void (*pte)(struct nvsvm_vmm_iter *it, u64 *e);
};

/**
 * struct nvsvm_vmm_iter - a walk of the tables under a range
 * @vmm: address space
 * @ops: the operation
 * @lvl: per table on the way down, from the one the walk starts in
 * @depth: index in @lvl of the table the walk is in
 * @stop: set by the operation: the walk ends (no more callbacks; the
 *	tables it is in are synced)
 */
struct nvsvm_vmm_iter {
	struct nvsvm_vmm *vmm;
	const struct nvsvm_vmm_iter_ops *ops;
	struct nvsvm_vmm_iter_lvl *lvl;
	unsigned int depth;
	bool stop;
};

/* Start the walk of [addr, end) in @pt, at @it->lvl[@it->depth]. */
static __always_inline void nvsvm_vmm_iter_push(struct nvsvm_vmm_iter *it,
						struct nvsvm_pt *pt, u64 addr,
						u64 end)
{
	struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth];

	t->pt = pt;
	t->start = addr;
	t->end = end;
	t->next = addr;
	/* No entry taken yet: the loop looks for the first one in use. */
	t->slot = nvsvm_lvl(it->vmm, pt->level)->slots;
	t->kept = false;
	t->span.lo = NULL;
	t->span.hi = NULL;
	if (!pt->refs || (it->ops->enter && !it->ops->enter(it, pt)))
		t->next = end;
}

/*
 * The walk of [@addr, @end) under @pt, the only one of this file but the
 * map's (as nvkm_vmm_iter() is nvkm's): one loop, depth first over the
 * levels with a stack of nvsvm_vmm_iter_lvl, from entry in use to entry in
 * use (nvsvm_pt_skip(): an empty table or span costs nothing), and in each
 * entry slot by slot, lower slots first (they shadow the higher ones). A
 * child table is walked over the part of the range its entry holds; a
 * table's entries the operation wrote are synced for the device once, when
 * the walk leaves it. The tables are at most desc->nlevels deep
 * (nvsvm_vmm_init() checks that each level points only to later ones).
 * Always inlined: each operation gets its own copy, with direct calls.
 */
static __always_inline void nvsvm_vmm_iter(struct nvsvm_vmm_iter *it,
					   struct nvsvm_pt *pt, u64 addr,
					   u64 end)
{
	const struct nvsvm_vmm_iter_ops *ops = it->ops;
	struct nvsvm_vmm_iter_lvl lvl[NVSVM_VMM_MAX_LEVELS];
	struct nvsvm_vmm *vmm = it->vmm;

	it->lvl = lvl;
	it->depth = 0;
	it->stop = false;
	nvsvm_vmm_iter_push(it, pt, addr, end);
	for (;;) {
		struct nvsvm_vmm_iter_lvl *t = &lvl[it->depth];
		const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, t->pt->level);
		struct nvsvm_pt *c = NULL;

		if (it->stop || t->slot >= l->slots) {
			t->addr = t->next;
			if (!it->stop &&
			    nvsvm_pt_skip(vmm, t->pt, &t->addr, t->end, &t->idx)) {
				t->next = nvsvm_pt_next(vmm, t->pt, t->addr,
							t->end);
				t->slot = 0;
			} else {
				/* Done with this table: back up a level. */
				nvsvm_pt_span_sync(vmm, t->pt, &t->span);
				if (!it->depth)
					return;
				it->depth--;
				if (ops->leave && !it->stop)
					ops->leave(it, t->pt);
				lvl[it->depth].slot++;
				continue;
			}
		}
		if (nvsvm_lvl_is_dir(l))
			c = *nvsvm_pt_child(vmm, t->pt, t->idx, t->slot);
		if (c && (!ops->child || ops->child(it, c))) {
			it->depth++;
			nvsvm_vmm_iter_push(it, c, t->addr, t->next);
			continue;
		}
		if (!c && ops->pte)
			ops->pte(it, nvsvm_pt_entry(vmm, t->pt, t->idx,
						    t->slot));
		t->slot++;
	}
}

/* The entry at @e if it is the PTE slot of its level and valid, else 0. */
static u64 nvsvm_vmm_iter_valid(struct nvsvm_vmm_iter *it, u64 *e)
{
	const struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth];
	u64 pte;

	if (t->slot != nvsvm_lvl(it->vmm, t->pt->level)->pte_slot)
		return 0;
	pte = READ_ONCE(*e);
	return pte && nvsvm_pte_valid(it->vmm, pte) ? pte : 0;
}

/* The walk for nvsvm_vmm_next_used(). */
struct nvsvm_vmm_used_args {
	struct nvsvm_vmm_iter it;
	unsigned int shift;
	u64 found;
};

/* A table at a level of entries no larger than 1 << shift counts whole. */
static bool nvsvm_vmm_used_child(struct nvsvm_vmm_iter *it,
				 struct nvsvm_pt *c)
{
	struct nvsvm_vmm_used_args *args =
		container_of(it, struct nvsvm_vmm_used_args, it);
	const struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth];

	if (nvsvm_lvl(it->vmm, t->pt->level)->shift > args->shift)
		return true;
	args->found = t->addr;
	it->stop = true;
	return false;
}

static void nvsvm_vmm_used_pte(struct nvsvm_vmm_iter *it, u64 *e)
{
	struct nvsvm_vmm_used_args *args =
		container_of(it, struct nvsvm_vmm_used_args, it);

	if (!READ_ONCE(*e))
		return;
	args->found = it->lvl[it->depth].addr;
	it->stop = true;
}

static const struct nvsvm_vmm_iter_ops nvsvm_vmm_used_ops = {
	.child = nvsvm_vmm_used_child,
	.pte = nvsvm_vmm_used_pte,
};

/*
 * The first address in [addr, end) under @pt whose entry of 1 << @shift
 * bytes (or a larger PTE over it) holds something, or @end. With @shift
 * 0: does any slot under @pt hold something in the range?
 */
static u64 nvsvm_pt_next_used(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			      u64 addr, u64 end, unsigned int shift)
{
	struct nvsvm_vmm_used_args args = {
		.it = { .vmm = vmm, .ops = &nvsvm_vmm_used_ops },
		.shift = shift,
		.found = end,
	};

	nvsvm_vmm_iter(&args.it, pt, addr, end);
	return args.found;
}

/* The valid PTE that maps @addr under @pt, 0 if none; its shift. */
static u64 nvsvm_pt_lookup(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			   u64 addr, unsigned int *shift)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	unsigned int idx = nvsvm_pt_index(vmm, pt, addr);
	unsigned int s;

	/* Lower slots first: they shadow the higher ones. */
	for (s = 0; s < l->slots; s++) {
		struct nvsvm_pt *c = nvsvm_lvl_is_dir(l) ?
			*nvsvm_pt_child(vmm, pt, idx, s) : NULL;
		u64 pte;

		if (c) {
			pte = nvsvm_pt_lookup(vmm, c, addr, shift);
			if (pte)
				return pte;
		} else if (s == l->pte_slot) {
			pte = READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx, s));
			if (nvsvm_pte_valid(vmm, pte)) {
				*shift = l->shift;
				return pte;
			}
		}
	}
	return 0;
}

/* A valid PTE in a slot of @dual below its slot maps @addr. */
static bool nvsvm_dual_shadowed(struct nvsvm_vmm *vmm,
				const struct nvsvm_vmm_dual *dual, u64 addr)
{
	const struct nvsvm_vmm_level *l;
	unsigned int s, shift;

	if (!dual->pt)
		return false;
	l = nvsvm_lvl(vmm, dual->pt->level);
	for (s = 0; s < dual->slot; s++) {
		struct nvsvm_pt *c = *nvsvm_pt_child(vmm, dual->pt, dual->idx, s);

		u64 pte = READ_ONCE(*nvsvm_pt_entry(vmm, dual->pt, dual->idx, s));

		if (c ? nvsvm_pt_lookup(vmm, c, addr, &shift) != 0 :
		    s == l->pte_slot && nvsvm_pte_valid(vmm, pte))
			return true;
	}
	return false;
}

/* Something in a slot of @dual above its slot lies in [addr, end). */
static bool nvsvm_dual_busy_above(struct nvsvm_vmm *vmm,
				  const struct nvsvm_vmm_dual *dual,
				  u64 addr, u64 end)
{
	const struct nvsvm_vmm_level *l;
	unsigned int s;

	if (!dual->pt)
		return false;
	l = nvsvm_lvl(vmm, dual->pt->level);
	for (s = dual->slot + 1; s < l->slots; s++) {
		struct nvsvm_pt *c = *nvsvm_pt_child(vmm, dual->pt, dual->idx, s);

		if (c && nvsvm_pt_next_used(vmm, c, addr, end, 0) < end)
			return true;
	}
	return false;
}

/* Link a new child under @pt at (@idx, @slot). */
static struct nvsvm_pt *nvsvm_pt_link(struct nvsvm_vmm *vmm,
				      struct nvsvm_pt *pt, unsigned int idx,
				      unsigned int slot)
{
	unsigned int level = nvsvm_lvl(vmm, pt->level)->next[slot];
	struct nvsvm_pt *child;

	child = nvsvm_pt_get(vmm, level);
	if (!child)
		return NULL;
	*nvsvm_pt_child(vmm, pt, idx, slot) = child;
	pt->refs++;
	atomic64_add(nvsvm_lvl(vmm, level)->table_bytes, vmm->pt_bytes);
	/* The table's zeroed content must be visible before the PDE. */
	dma_wmb();
	nvsvm_pt_write(vmm, pt, idx, slot, vmm->desc->pde(child->dma));
	return child;
}

/*
 * The child at (@idx, @slot) of @pt, linked now where there is none. NULL
 * with *@err -EEXIST where a PTE holds the slot (a map goes smaller), or
 * -ENOMEM.
 */
static struct nvsvm_pt *nvsvm_pt_child_get(struct nvsvm_vmm *vmm,
					   struct nvsvm_pt *pt,
					   unsigned int idx, unsigned int slot,
					   int *err)
{
	struct nvsvm_pt *child = *nvsvm_pt_child(vmm, pt, idx, slot);

	if (child)
		return child;
	*err = -EEXIST;
	if (READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx, slot)))
		return NULL;
	*err = -ENOMEM;
	return nvsvm_pt_link(vmm, pt, idx, slot);
}

struct nvsvm_vmm_map_args {
	const struct nvsvm_vmm_path *path;
	nvsvm_vmm_pte_fn fn;
	void *priv;
	u64 shadowed;
};

static int nvsvm_vmm_map_pte(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			     unsigned int idx, unsigned int slot, u64 addr,
			     u64 next, const struct nvsvm_vmm_dual *dual,
			     struct nvsvm_vmm_map_args *args)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	struct nvsvm_vmm_dual here = { pt, idx, slot };
	u64 *e = nvsvm_pt_entry(vmm, pt, idx, slot);
	u64 old, new;

	if (l->slots > 1)
		dual = &here;
	if (nvsvm_dual_shadowed(vmm, dual, addr)) {
		args->shadowed += (next - addr) >> PAGE_SHIFT;
		return 0;
	}
	/* A large page needs its slot and the slots it shadows empty. */
	if ((nvsvm_lvl_is_dir(l) && *nvsvm_pt_child(vmm, pt, idx, slot)) ||
	    nvsvm_dual_busy_above(vmm, dual, addr, next))
		return -EEXIST;

	old = READ_ONCE(*e);
	new = args->fn(args->priv, addr, l->shift, old);
	if (new != old) {
		nvsvm_pt_write(vmm, pt, idx, slot, new);
		pt->refs += !old - !new;
	}
	return 0;
}

static int nvsvm_vmm_map_lvl(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			     unsigned int depth, u64 addr, u64 end,
			     const struct nvsvm_vmm_dual *dual,
			     struct nvsvm_vmm_map_args *args)
{
	const struct nvsvm_vmm_path *path = args->path;
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	unsigned int slot = path->slot[depth];
	int ret = 0;

	while (addr < end && !ret) {
		unsigned int idx = nvsvm_pt_index(vmm, pt, addr);
		u64 next = nvsvm_pt_next(vmm, pt, addr, end);
		struct nvsvm_vmm_dual here = { pt, idx, slot };
		struct nvsvm_pt *child;

		if (depth == path->depth - 1) {
			ret = nvsvm_vmm_map_pte(vmm, pt, idx, slot, addr, next,
						dual, args);
			addr = next;
			continue;
		}
		if (l->slots > 1 &&
		    nvsvm_dual_shadowed(vmm, &here, addr) &&
		    nvsvm_dual_shadowed(vmm, &here, next - 1) &&
		    !*nvsvm_pt_child(vmm, pt, idx, 0)) {
			/* A large PTE of a lower slot maps the whole entry. */
			args->shadowed += (next - addr) >> PAGE_SHIFT;
			addr = next;
			continue;
		}
		child = nvsvm_pt_child_get(vmm, pt, idx, slot, &ret);
		if (!child)
			return ret;
		ret = nvsvm_vmm_map_lvl(vmm, child, depth + 1, addr, next,
					l->slots > 1 ? &here : dual, args);
		addr = next;
	}
	return ret;
}

/**
 * nvsvm_vmm_map() - write PTEs of one page size over [start, end)
 * @vmm: address space
 * @start: first address, aligned to the page size
 * @end: end (exclusive), aligned to the page size
 * @shift: page shift; one of the chip's page sizes
 * @fn: returns the new entry of each page, given the current one
 * @priv: for @fn
 * @shadowed: adds the 4 KiB pages skipped because a larger valid PTE
 *	already maps them
 *
 * Tables are allocated before @fn is called for a page under them. When
 * this fails, @fn has been called for a prefix of the range only: with
 * -ENOMEM the caller may reserve and retry; with -EEXIST the range holds
 * smaller pages (or a table where a large PTE would go), and the caller
 * maps it with a smaller page size.
 *
 * Return: 0, -ENOMEM, -EEXIST, or -EINVAL for an unknown page size.
 */
int nvsvm_vmm_map(struct nvsvm_vmm *vmm, u64 start, u64 end,
		  unsigned int shift, nvsvm_vmm_pte_fn fn, void *priv,
		  u64 *shadowed)
{
	struct nvsvm_vmm_map_args args = { .fn = fn, .priv = priv };
	struct nvsvm_vmm_dual none = { };
	unsigned int i;
	int ret;

	nvsvm_vmm_assert_locked(vmm);
	for (i = 0; i < vmm->npaths; i++)
		if (vmm->paths[i].shift == shift)
			args.path = &vmm->paths[i];
	if (!args.path)
		return -EINVAL;
	ret = nvsvm_vmm_map_lvl(vmm, vmm->root, 0, start, end, &none, &args);
	*shadowed += args.shadowed;
	return ret;
}

/*
 * Unlink the child table at (@idx, @slot) of @pt onto @list (the PDE's
 * write noted in @span); the caller frees it after a TLB invalidate.
 */
static void nvsvm_pt_unlink(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			    unsigned int idx, unsigned int slot,
			    struct nvsvm_pt_span *span, struct list_head *list)
{
	struct nvsvm_pt **cp = nvsvm_pt_child(vmm, pt, idx, slot);
	struct nvsvm_pt *c = *cp;

	nvsvm_pt_span_add(span, nvsvm_pt_set(vmm, pt, idx, slot, 0));
	*cp = NULL;
	pt->refs--;
	atomic64_sub(nvsvm_lvl(vmm, c->level)->table_bytes, vmm->pt_bytes);
	list_add_tail(&c->head, list);
}

/* Is every entry in use of @pt (if any) one of those of [addr, end)? */
static bool nvsvm_pt_within(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			    u64 addr, u64 end)
{
	unsigned int n = 1U << nvsvm_lvl(vmm, pt->level)->bits;

	if (!pt->refs)
		return true;
	return find_first_bit(pt->used, n) >= nvsvm_pt_index(vmm, pt, addr) &&
	       find_last_bit(pt->used, n) <= nvsvm_pt_index(vmm, pt, end - 1);
}

/*
 * The walk of nvsvm_vmm_invalidate(); @lo, @hi: the whole range being
 * removed.
 */
struct nvsvm_vmm_inval_args {
	struct nvsvm_vmm_iter it;
	bool any;
	struct list_head *detached;
	u64 lo;
	u64 hi;
};

/* Does the entry of @pt that holds @addr lie inside [lo, hi)? */
static bool nvsvm_pt_entry_inside(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				  u64 addr, u64 lo, u64 hi)
{
	u64 size = 1ULL << nvsvm_lvl(vmm, pt->level)->shift;
	u64 base = addr & ~(size - 1);

	return base >= lo && base + size - 1 <= hi - 1;
}

/*
 * The walk of nvsvm_vmm_invalidate(): clear the VALID bit of the PTEs in
 * [addr, end) (a large page goes whole), and unlink each child table that
 * holds nothing outside the range, its content kept: nothing of it would
 * stay after the release, and unlinked before the TLB invalidate, it
 * needs no second one for the directory caches. A child whose whole span
 * lies in the range being removed (args->lo, args->hi; [addr, end) may be
 * one chunk of it) is unlinked without a look inside: once the invalidate
 * is done no walk reaches its PTEs, valid or not, and the release takes
 * them all, also those of later chunks.
 */
static bool nvsvm_vmm_inval_child(struct nvsvm_vmm_iter *it,
				  struct nvsvm_pt *c)
{
	struct nvsvm_vmm_inval_args *args =
		container_of(it, struct nvsvm_vmm_inval_args, it);
	struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth];

	if (!nvsvm_pt_entry_inside(it->vmm, t->pt, t->addr, args->lo, args->hi))
		return true;
	nvsvm_pt_unlink(it->vmm, t->pt, t->idx, t->slot, &t->span,
			args->detached);
	return false;
}

/* A child holds nothing outside the range: no child kept, no entry. */
static void nvsvm_vmm_inval_leave(struct nvsvm_vmm_iter *it,
				  struct nvsvm_pt *c)
{
	struct nvsvm_vmm_inval_args *args =
		container_of(it, struct nvsvm_vmm_inval_args, it);
	struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth], *ct = t + 1;

	if (!ct->kept && nvsvm_pt_within(it->vmm, c, ct->start, ct->end))
		nvsvm_pt_unlink(it->vmm, t->pt, t->idx, t->slot, &t->span,
				args->detached);
	else
		t->kept = true;
}

static void nvsvm_vmm_inval_pte(struct nvsvm_vmm_iter *it, u64 *e)
{
	struct nvsvm_vmm_inval_args *args =
		container_of(it, struct nvsvm_vmm_inval_args, it);
	u64 pte = nvsvm_vmm_iter_valid(it, e);

	if (!pte)
		return;
	WRITE_ONCE(*e, it->vmm->desc->pte_invalid(pte));
	nvsvm_pt_span_add(&it->lvl[it->depth].span, e);
	args->any = true;
}

static const struct nvsvm_vmm_iter_ops nvsvm_vmm_inval_ops = {
	.child = nvsvm_vmm_inval_child,
	.leave = nvsvm_vmm_inval_leave,
	.pte = nvsvm_vmm_inval_pte,
};

/**
 * nvsvm_vmm_invalidate() - clear the VALID bit of every PTE in a range
 * @vmm: address space
 * @start: first address
 * @end: end (exclusive)
 * @lo: first address of the whole range the caller removes, of which
 *	[@start, @end) is a chunk
 * @hi: its end (exclusive)
 * @detached: tables unlinked whole are put here
 *
 * A large page that overlaps the range is invalidated whole. The entries
 * keep their address, for nvsvm_vmm_release() after the caller's TLB
 * invalidate. A table whose entries in use all lie in the range is
 * unlinked at once with what it holds and put on @detached, for
 * nvsvm_vmm_release_detached() after the same invalidate; so is a table
 * that [@start, @end) reaches and whose whole span lies in [@lo, @hi),
 * without a look at its PTEs, which stay valid in it.
 *
 * Return: true when a valid entry was cleared or a table unlinked (a TLB
 * invalidate is due).
 */
bool nvsvm_vmm_invalidate(struct nvsvm_vmm *vmm, u64 start, u64 end,
			  u64 lo, u64 hi, struct list_head *detached)
{
	struct nvsvm_vmm_inval_args args = {
		.it = { .vmm = vmm, .ops = &nvsvm_vmm_inval_ops },
		.detached = detached,
		.lo = lo,
		.hi = hi,
	};

	nvsvm_vmm_assert_locked(vmm);
	nvsvm_vmm_iter(&args.it, vmm->root, start, end);
	return args.any || !list_empty(detached);
}

/*
 * The walk of nvsvm_vmm_release() and nvsvm_vmm_release_detached().
 * @detached: every PTE goes, valid or not (a table no walk reaches);
 * @resched: cond_resched() after each page table of those.
 */
struct nvsvm_vmm_release_args {
	struct nvsvm_vmm_iter it;
	void (*release)(void *priv, u64 pte, unsigned int shift);
	void *priv;
	struct list_head *freed;
	bool detached;
	bool resched;
};

/*
 * A detached page table: every entry in use holds a PTE that goes, so the
 * entries are taken from the used bitmap, with no walk by address. Its
 * memory ends all zero, as the table cache wants it.
 */
static void nvsvm_pt_release_leaf(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				  struct nvsvm_vmm_release_args *args)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	unsigned int n = 1U << l->bits, idx;
	struct nvsvm_pt_span span = { };

	for_each_set_bit(idx, pt->used, n) {
		u64 *e = nvsvm_pt_entry(vmm, pt, idx, l->pte_slot);

		args->release(args->priv, READ_ONCE(*e), l->shift);
		WRITE_ONCE(*e, 0);
		nvsvm_pt_span_add(&span, e);
		pt->refs--;
	}
	bitmap_zero(pt->used, n);
	nvsvm_pt_span_sync(vmm, pt, &span);
}

/* A detached page table goes at once, from its used bitmap. */
static bool nvsvm_vmm_release_enter(struct nvsvm_vmm_iter *it,
				    struct nvsvm_pt *pt)
{
	struct nvsvm_vmm_release_args *args =
		container_of(it, struct nvsvm_vmm_release_args, it);
	const struct nvsvm_vmm_level *l = nvsvm_lvl(it->vmm, pt->level);

	if (!args->detached || nvsvm_lvl_is_dir(l) || l->slots != 1)
		return true;
	nvsvm_pt_release_leaf(it->vmm, pt, args);
	if (args->resched)
		cond_resched();
	return false;
}

/* A child emptied goes on the freed list. */
static void nvsvm_vmm_release_leave(struct nvsvm_vmm_iter *it,
				    struct nvsvm_pt *c)
{
	struct nvsvm_vmm_release_args *args =
		container_of(it, struct nvsvm_vmm_release_args, it);
	struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth];

	if (!c->refs)
		nvsvm_pt_unlink(it->vmm, t->pt, t->idx, t->slot, &t->span,
				args->freed);
}

/* An invalidated entry (any entry, in a detached table) goes. */
static void nvsvm_vmm_release_pte(struct nvsvm_vmm_iter *it, u64 *e)
{
	struct nvsvm_vmm_release_args *args =
		container_of(it, struct nvsvm_vmm_release_args, it);
	struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth];
	u64 old = READ_ONCE(*e);

	if (!old || (!args->detached && nvsvm_pte_valid(it->vmm, old)))
		return;
	args->release(args->priv, old,
		      nvsvm_lvl(it->vmm, t->pt->level)->shift);
	nvsvm_pt_span_add(&t->span,
			  nvsvm_pt_set(it->vmm, t->pt, t->idx, t->slot, 0));
	t->pt->refs--;
}

static const struct nvsvm_vmm_iter_ops nvsvm_vmm_release_ops = {
	.enter = nvsvm_vmm_release_enter,
	.leave = nvsvm_vmm_release_leave,
	.pte = nvsvm_vmm_release_pte,
};

/* The walk of nvsvm_vmm_release() and nvsvm_vmm_release_detached(). */
static void nvsvm_vmm_release_walk(struct nvsvm_vmm_release_args *args,
				   struct nvsvm_pt *pt, u64 addr, u64 end)
{
	nvsvm_vmm_iter(&args->it, pt, addr, end);
}

/**
 * nvsvm_vmm_release() - drop invalidated entries and empty tables
 * @vmm: address space
 * @start: first address
 * @end: end (exclusive)
 * @release: called with each entry nvsvm_vmm_invalidate() cleared and its
 *	page shift, after the TLB invalidate, to release what it points to
 * @priv: for @release
 * @freed: tables that became empty are unlinked and put here
 *
 * Return: true when tables were unlinked: the caller invalidates the TLB
 * again, then calls nvsvm_vmm_free_tables().
 */
bool nvsvm_vmm_release(struct nvsvm_vmm *vmm, u64 start, u64 end,
		       void (*release)(void *priv, u64 pte,
				       unsigned int shift),
		       void *priv, struct list_head *freed)
{
	struct nvsvm_vmm_release_args args = {
		.it = { .vmm = vmm, .ops = &nvsvm_vmm_release_ops },
		.release = release,
		.priv = priv,
		.freed = freed,
	};

	nvsvm_vmm_assert_locked(vmm);
	nvsvm_vmm_release_walk(&args, vmm->root, start, end);
	return !list_empty(freed);
}

/**
 * nvsvm_vmm_release_detached() - release tables nvsvm_vmm_invalidate()
 *	unlinked
 * @vmm: address space
 * @detached: the list; emptied
 * @release: as for nvsvm_vmm_release(), for each PTE they hold, valid
 *	or not
 * @priv: for @release
 * @freed: the tables, and the tables below them, are put here
 * @resched: the caller may sleep: cond_resched() after each page table
 *	(a detached directory may hold a huge range)
 *
 * After the TLB invalidate that followed nvsvm_vmm_invalidate(): no walk
 * of the GPU reaches them any more, so nvsvm_vmm_free_tables() may free
 * them with no further invalidate.
 */
void nvsvm_vmm_release_detached(struct nvsvm_vmm *vmm,
				struct list_head *detached,
				void (*release)(void *priv, u64 pte,
						unsigned int shift),
				void *priv, struct list_head *freed,
				bool resched)
{
	struct nvsvm_vmm_release_args args = {
		.it = { .vmm = vmm, .ops = &nvsvm_vmm_release_ops },
		.release = release,
		.priv = priv,
		.freed = freed,
		.detached = true,
		.resched = resched,
	};
	struct nvsvm_pt *pt, *tmp;

	list_for_each_entry_safe(pt, tmp, detached, head) {
		const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);

		list_del(&pt->head);
		/* Indices only: the whole table, from its first entry. */
		nvsvm_vmm_release_walk(&args, pt, 0,
				       1ULL << (l->shift + l->bits));
		WARN_ON_ONCE(pt->refs);
		list_add_tail(&pt->head, freed);
	}
}

/**
 * nvsvm_vmm_free_tables() - free tables unlinked by nvsvm_vmm_release()
 * @vmm: address space
 * @freed: the list; emptied
 * @resched: the caller may sleep: cond_resched() now and then
 *
 * Only after the TLB invalidate that followed the unlinking. A few tables
 * go back to the cache; their memory is all zero already.
 */
void nvsvm_vmm_free_tables(struct nvsvm_vmm *vmm, struct list_head *freed,
			   bool resched)
{
	struct nvsvm_pt *pt, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(pt, tmp, freed, head) {
		if (resched && !(++n % 64))
			cond_resched();
		list_del(&pt->head);
		spin_lock(&vmm->cache_lock);
		if (vmm->ncache[pt->level] < NVSVM_VMM_CACHE_MAX) {
			list_add(&pt->head, &vmm->cache[pt->level]);
			vmm->ncache[pt->level]++;
			pt = NULL;
		}
		spin_unlock(&vmm->cache_lock);
		if (pt)
			nvsvm_pt_free(vmm, pt);
	}
}

/**
 * nvsvm_vmm_next_used() - skip the empty part of a range
 * @vmm: address space
 * @addr: first address
 * @end: end (exclusive)
 * @shift: granularity: the span of an entry at some level
 *
 * Walks only the tables that exist, so that a caller going through a huge
 * range in chunks of 1 << @shift bytes spends nothing on empty ones.
 *
 * Return: the first address in [@addr, @end) whose entry of 1 << @shift
 * bytes (or a larger PTE over it) holds something (a table, a PTE, valid
 * or only invalidated), or @end if none does.
 */
u64 nvsvm_vmm_next_used(struct nvsvm_vmm *vmm, u64 addr, u64 end,
			unsigned int shift)
{
	nvsvm_vmm_assert_locked(vmm);
	return nvsvm_pt_next_used(vmm, vmm->root, addr, end, shift);
}

/**
 * nvsvm_vmm_lookup() - the valid PTE that maps @addr
 * @vmm: address space
 * @addr: address
 * @shift: its page shift, when one is found
 *
 * Return: the entry as in table memory, 0 where none is valid.
 */
u64 nvsvm_vmm_lookup(struct nvsvm_vmm *vmm, u64 addr, unsigned int *shift)
{
	nvsvm_vmm_assert_locked(vmm);
	return nvsvm_pt_lookup(vmm, vmm->root, addr, shift);
}

/* The walk of nvsvm_vmm_valid() and nvsvm_vmm_vram(). */
struct nvsvm_vmm_valid_args {
	struct nvsvm_vmm_iter it;
	u64 base;
	unsigned long *valid;
	void (*used)(void *data, u64 vram);
	void *data;
};

/*
 * A valid PTE sets the bits of the pages of the range it maps. With @used
 * (nvsvm_vmm_vram()) only one of video memory does, and is told; one of
 * system memory stops the walk, or without @valid (nvsvm_vmm_vram_each(),
 * which only tells) is passed over.
 */
static void nvsvm_vmm_valid_pte(struct nvsvm_vmm_iter *it, u64 *e)
{
	struct nvsvm_vmm_valid_args *args =
		container_of(it, struct nvsvm_vmm_valid_args, it);
	const struct nvsvm_vmm_iter_lvl *t = &it->lvl[it->depth];
	const struct nvsvm_vmm_desc *desc = it->vmm->desc;
	u64 pte = nvsvm_vmm_iter_valid(it, e);

	if (!pte)
		return;
	if (args->used) {
		if (!(desc->pte_flags(pte) & NVSVM_PTE_VRAM)) {
			it->stop = !!args->valid;
			return;
		}
		args->used(args->data, desc->pte_addr(pte));
		if (!args->valid)
			return;
	}
	bitmap_set(args->valid, (t->addr - args->base) >> PAGE_SHIFT,
		   (t->next - t->addr) >> PAGE_SHIFT);
}

static const struct nvsvm_vmm_iter_ops nvsvm_vmm_valid_ops = {
	.pte = nvsvm_vmm_valid_pte,
};

/*
 * nvsvm_vmm_valid()'s generic walk of [@addr, @end) under @pt: the
 * iterator, slot by slot and level by level. Out of line: its stack of
 * levels stays off the direct look's recursion.
 */
static noinline void nvsvm_pt_valid_iter(struct nvsvm_vmm *vmm,
					 struct nvsvm_pt *pt, u64 base,
					 u64 addr, u64 end,
					 unsigned long *valid)
{
	struct nvsvm_vmm_valid_args args = {
		.it = { .vmm = vmm, .ops = &nvsvm_vmm_valid_ops },
		.base = base,
		.valid = valid,
	};

	nvsvm_vmm_iter(&args.it, pt, addr, end);
}

/*
 * The PTEs of a page table (a level with no directory slot) in [@addr,
 * @end), a range inside its span: a tight loop over the entries its used
 * bitmap names, a word of it at a time, with no call per entry where the
 * description gives a valid mask. Each valid PTE sets the bits of the
 * pages it maps within the range; the iterator does the same, entry by
 * entry.
 */
static void nvsvm_pt_valid_leaf(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				u64 base, u64 addr, u64 end,
				unsigned long *valid)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	const struct nvsvm_vmm_desc *desc = vmm->desc;
	u64 vmask = desc->pte_valid_mask, vbits = desc->pte_valid_bits;
	u64 mask = ~((1ULL << (l->shift + l->bits)) - 1);
	unsigned int first = nvsvm_pt_index(vmm, pt, addr);
	unsigned int last = nvsvm_pt_index(vmm, pt, end - 1);
	u64 table = addr & mask;
	unsigned int w;

	if (l->pte_slot == NVSVM_VMM_NONE)
		return;
	for (w = BIT_WORD(first); w <= BIT_WORD(last); w++) {
		unsigned long bits = pt->used[w];

		if (w == BIT_WORD(first))
			bits &= BITMAP_FIRST_WORD_MASK(first);
		if (w == BIT_WORD(last))
			bits &= BITMAP_LAST_WORD_MASK(last + 1);
		while (bits) {
			unsigned int idx = w * BITS_PER_LONG + __ffs(bits);
			u64 pte = READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx,
							    l->pte_slot));
			u64 lo, hi;

			bits &= bits - 1;
			if (vmask ? (pte & vmask) != vbits :
			    !pte || !nvsvm_pte_valid(vmm, pte))
				continue;
			lo = table + ((u64)idx << l->shift);
			if (l->shift == PAGE_SHIFT) {
				__set_bit((lo - base) >> PAGE_SHIFT, valid);
				continue;
			}
			hi = min(lo + (1ULL << l->shift), end);
			lo = max(lo, addr);
			bitmap_set(valid, (lo - base) >> PAGE_SHIFT,
				   (hi - lo) >> PAGE_SHIFT);
		}
	}
}

/*
 * nvsvm_vmm_valid()'s direct look at [@addr, @end) under @pt, a range
 * inside @pt's span. Down the directories while the range lies in one
 * entry: there, slot by slot, a child is looked at over the range, a
 * valid PTE of the entry's size sets the whole range (nothing below it
 * can add a bit). A page table is read by nvsvm_pt_valid_leaf(). A range
 * that spans several entries of a directory goes to the iterator from
 * there (a 2 MiB block never does on GP100).
 *
 * The result is the iterator's: the union of the pages every valid PTE
 * in the range maps, whichever slot holds it, shadowed or not. Returns
 * the iterator's calls (0 for the direct path alone), for the self-test.
 * At most desc->nlevels deep.
 */
static unsigned int nvsvm_pt_valid(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				   u64 base, u64 addr, u64 end,
				   unsigned long *valid)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	unsigned int idx, s, iter = 0;

	if (!pt->refs)
		return 0;
	if (!nvsvm_lvl_is_dir(l)) {
		nvsvm_pt_valid_leaf(vmm, pt, base, addr, end, valid);
		return 0;
	}
	if ((addr >> l->shift) != ((end - 1) >> l->shift)) {
		nvsvm_pt_valid_iter(vmm, pt, base, addr, end, valid);
		return 1;
	}
	idx = nvsvm_pt_index(vmm, pt, addr);
	if (!test_bit(idx, pt->used))
		return 0;
	for (s = 0; s < l->slots; s++) {
		struct nvsvm_pt *c = *nvsvm_pt_child(vmm, pt, idx, s);
		u64 pte;

		if (c) {
			iter += nvsvm_pt_valid(vmm, c, base, addr, end, valid);
			continue;
		}
		if (s != l->pte_slot)
			continue;
		pte = READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx, s));
		if (pte && nvsvm_pte_valid(vmm, pte)) {
			bitmap_set(valid, (addr - base) >> PAGE_SHIFT,
				   (end - addr) >> PAGE_SHIFT);
			break;
		}
	}
	return iter;
}

/**
 * nvsvm_vmm_valid() - which pages of a range a valid PTE maps
 * @vmm: address space
 * @start: first address, page aligned
 * @npages: pages from @start
 * @valid: bitmap of @npages bits; bit i is set when a valid PTE of any
 *	size maps @start + i pages (the other bits are left alone)
 *
 * One look at the tables under the range, for callers that would
 * otherwise call nvsvm_vmm_lookup() for every page: straight down to the
 * tables under a range that one directory entry holds (a 2 MiB block),
 * then a loop over their PTEs; the generic walk for the rest.
 */
void nvsvm_vmm_valid(struct nvsvm_vmm *vmm, u64 start, unsigned int npages,
		     unsigned long *valid)
{
	nvsvm_vmm_assert_locked(vmm);
	if (npages)
		nvsvm_pt_valid(vmm, vmm->root, start, start,
			       start + ((u64)npages << PAGE_SHIFT), valid);
}

/**
 * nvsvm_vmm_vram() - is a range all mapped in video memory?
 * @vmm: address space
 * @start: first address, page aligned
 * @npages: pages from @start, at most 2 MiB of them
 * @used: told the video memory address of each valid PTE seen
 * @data: for @used
 *
 * One walk of the tables under the range, which stops at the first valid
 * PTE of system memory.
 *
 * Return: true when valid video memory PTEs map all @npages pages.
 */
bool nvsvm_vmm_vram(struct nvsvm_vmm *vmm, u64 start, unsigned int npages,
		    void (*used)(void *data, u64 vram), void *data)
{
	DECLARE_BITMAP(vram, SZ_2M >> PAGE_SHIFT);
	struct nvsvm_vmm_valid_args args = {
		.it = { .vmm = vmm, .ops = &nvsvm_vmm_valid_ops },
		.base = start,
		.valid = vram,
		.used = used,
		.data = data,
	};

	if (WARN_ON_ONCE(npages > SZ_2M >> PAGE_SHIFT))
		return false;
	nvsvm_vmm_assert_locked(vmm);
	bitmap_zero(vram, SZ_2M >> PAGE_SHIFT);
	nvsvm_vmm_iter(&args.it, vmm->root, start,
		       start + ((u64)npages << PAGE_SHIFT));
	return !args.it.stop && bitmap_full(vram, npages);
}

/**
 * nvsvm_vmm_vram_each() - the video memory PTEs of a range
 * @vmm: address space
 * @start: first address, page aligned
 * @npages: pages from @start, at most 2 MiB of them
 * @used: told the video memory address of each valid video memory PTE
 * @data: for @used
 *
 * One walk of the tables under the range, as nvsvm_vmm_vram(), that passes
 * over the PTEs of system memory (the recency sampler, src/recency.c).
 */
void nvsvm_vmm_vram_each(struct nvsvm_vmm *vmm, u64 start, unsigned int npages,
			 void (*used)(void *data, u64 vram), void *data)
{
	struct nvsvm_vmm_valid_args args = {
		.it = { .vmm = vmm, .ops = &nvsvm_vmm_valid_ops },
		.base = start,
		.used = used,
		.data = data,
	};

	if (WARN_ON_ONCE(npages > SZ_2M >> PAGE_SHIFT))
		return;
	nvsvm_vmm_assert_locked(vmm);
	nvsvm_vmm_iter(&args.it, vmm->root, start,
		       start + ((u64)npages << PAGE_SHIFT));
}

/**
 * nvsvm_vmm_pdb() - address of the top-level table
 * @vmm: address space
 *
 * Return: DMA address for the instance block.
 */
dma_addr_t nvsvm_vmm_pdb(struct nvsvm_vmm *vmm)
{
	return vmm->root->dma;
}

/* Record the paths to every page size below @level, depth first. */
static void nvsvm_vmm_paths(struct nvsvm_vmm *vmm, struct nvsvm_vmm_path *p,
			    unsigned int level, unsigned int depth)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, level);
	unsigned int s;

	if (depth >= NVSVM_VMM_MAX_LEVELS)
		return;
	p->level[depth] = level;
	for (s = 0; s < l->slots; s++) {
		p->slot[depth] = s;
		if (s == l->pte_slot && vmm->npaths < NVSVM_VMM_MAX_LEVELS) {
			p->shift = l->shift;
			p->depth = depth + 1;
			vmm->paths[vmm->npaths++] = *p;
		}
		if (l->next[s] != NVSVM_VMM_NONE)
			nvsvm_vmm_paths(vmm, p, l->next[s], depth + 1);
	}
}

/*
 * A power-of-two table of at most 1 << NVSVM_VMM_MAX_BITS entries, whose
 * slots point only to later levels: so a walk goes at most desc->nlevels
 * tables deep (nvsvm_vmm_iter()).
 */
static bool nvsvm_lvl_valid(const struct nvsvm_vmm_desc *desc,
			    unsigned int level)
{
	const struct nvsvm_vmm_level *l = &desc->levels[level];
	unsigned int s;

	if (!is_power_of_2(l->table_bytes) || l->bits > NVSVM_VMM_MAX_BITS ||
	    !l->slots || l->slots > ARRAY_SIZE(l->next))
		return false;
	for (s = 0; s < l->slots; s++)
		if (l->next[s] != NVSVM_VMM_NONE &&
		    (l->next[s] <= level || l->next[s] >= desc->nlevels))
			return false;
	return true;
}

/*
 * The description's valid mask, if any, says what ->pte_flags() says of
 * NVSVM_PTE_VALID: of 0, and of a PTE of each kind and its invalidated
 * entry.
 */
static bool nvsvm_desc_valid_mask_ok(const struct nvsvm_vmm_desc *desc)
{
	static const u32 flags[] = {
		0, NVSVM_PTE_WRITE | NVSVM_PTE_ATOMIC, NVSVM_PTE_VRAM,
		NVSVM_PTE_VRAM | NVSVM_PTE_WRITE | NVSVM_PTE_ATOMIC,
	};
	u64 mask = desc->pte_valid_mask, bits = desc->pte_valid_bits;
	unsigned int i, k;

	if (!mask)
		return true;
	if (!bits || (bits & ~mask))
		return false;
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		u64 pte = desc->pte(SZ_2M, flags[i]);

		for (k = 0; k < 2; k++) {
			bool valid = desc->pte_flags(pte) & NVSVM_PTE_VALID;

			if (((pte & mask) == bits) != valid)
				return false;
			pte = desc->pte_invalid(pte);
		}
	}
	return true;
}

/**
 * nvsvm_vmm_init() - set up an empty address space
 * @vmm: to initialise
 * @dev: device for DMA allocations
 * @desc: chip description: at most NVSVM_VMM_MAX_LEVELS levels, every
 *	table size a power of two, at most 1 << NVSVM_VMM_MAX_BITS entries
 *	per table, one or two slots per entry, each pointing to a later
 *	level; a valid mask, if any, that agrees with ->pte_flags()
 * @mm: the address space's owner: every table is charged to its memory
 *	cgroup, whoever allocates it
 * @pt_bytes: counter of table memory in use
 *
 * Return: 0, -ENOMEM, or -EINVAL for a description that breaks one of
 * these rules.
 */
int nvsvm_vmm_init(struct nvsvm_vmm *vmm, struct device *dev,
		   const struct nvsvm_vmm_desc *desc, struct mm_struct *mm,
		   atomic64_t *pt_bytes)
{
	struct nvsvm_vmm_path path = { };
	unsigned int level;

	memset(vmm, 0, sizeof(*vmm));
	if (!desc->nlevels || desc->nlevels > NVSVM_VMM_MAX_LEVELS ||
	    !nvsvm_desc_valid_mask_ok(desc))
		return -EINVAL;
	for (level = 0; level < desc->nlevels; level++)
		if (!nvsvm_lvl_valid(desc, level))
			return -EINVAL;
	vmm->dev = dev;
	vmm->desc = desc;
	vmm->pt_bytes = pt_bytes;
	spin_lock_init(&vmm->cache_lock);
	for (level = 0; level < NVSVM_VMM_MAX_LEVELS; level++)
		INIT_LIST_HEAD(&vmm->cache[level]);
	nvsvm_vmm_paths(vmm, &path, 0, 0);

	vmm->memcg = get_mem_cgroup_from_mm(mm);
	vmm->root = nvsvm_pt_alloc(vmm, 0, GFP_KERNEL);
	if (!vmm->root) {
		mem_cgroup_put(vmm->memcg);
		return -ENOMEM;
	}
	return 0;
}

/**
 * nvsvm_vmm_fini() - free an address space
 * @vmm: an address space whose every mapping was released, and that no
 *	GPU uses any more
 */
void nvsvm_vmm_fini(struct nvsvm_vmm *vmm)
{
	struct nvsvm_pt *pt, *tmp;
	unsigned int level;

	WARN_ON_ONCE(vmm->root->refs);
	nvsvm_pt_free(vmm, vmm->root);
	vmm->root = NULL;
	for (level = 0; level < NVSVM_VMM_MAX_LEVELS; level++) {
		list_for_each_entry_safe(pt, tmp, &vmm->cache[level], head)
			nvsvm_pt_free(vmm, pt);
		INIT_LIST_HEAD(&vmm->cache[level]);
		vmm->ncache[level] = 0;
	}
	mem_cgroup_put(vmm->memcg);
	vmm->memcg = NULL;
}

#ifdef NVSVM_TEST
#include "vmm_selftest.c"
#endif
