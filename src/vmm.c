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
 * from them the path of each page size. Walks that only read or clear go
 * from used entry to used entry (find_next_bit() on the bitmap), so
 * clearing a huge, barely mapped range costs as much as the entries in
 * use, not the span of the tables that exist: a munmap of 1 GiB around
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

/* Does any slot under @pt hold something in [addr, end)? */
static bool nvsvm_pt_busy(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			  u64 addr, u64 end)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	unsigned int idx;

	while (nvsvm_pt_skip(vmm, pt, &addr, end, &idx)) {
		u64 next = nvsvm_pt_next(vmm, pt, addr, end);
		unsigned int s;

		for (s = 0; s < l->slots; s++) {
			struct nvsvm_pt *c = nvsvm_lvl_is_dir(l) ?
				*nvsvm_pt_child(vmm, pt, idx, s) : NULL;

			if (c ? nvsvm_pt_busy(vmm, c, addr, next) :
			    READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx, s)) != 0)
				return true;
		}
		addr = next;
	}
	return false;
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

		if (c && nvsvm_pt_busy(vmm, c, addr, end))
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
		child = *nvsvm_pt_child(vmm, pt, idx, slot);
		if (!child) {
			/* A PTE where the pointer goes: the caller goes smaller. */
			if (READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx, slot)))
				return -EEXIST;
			child = nvsvm_pt_link(vmm, pt, idx, slot);
			if (!child)
				return -ENOMEM;
		}
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
 * Call @fn for every valid PTE under @pt that maps part of [addr, end),
 * with the entry and the part of the range it maps. Empty tables and slots
 * cost little: the invalidation callback walks huge ranges this way.
 */
static void nvsvm_vmm_walk_valid(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				 u64 addr, u64 end,
				 void (*fn)(struct nvsvm_vmm *vmm, u64 *e,
					    u64 addr, u64 next, void *priv),
				 void *priv)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	bool dir = nvsvm_lvl_is_dir(l);
	struct nvsvm_pt_span span = { };
	unsigned int idx;

	if (!pt->refs)
		return;
	while (nvsvm_pt_skip(vmm, pt, &addr, end, &idx)) {
		u64 next = nvsvm_pt_next(vmm, pt, addr, end);
		unsigned int s;

		for (s = 0; s < l->slots; s++) {
			struct nvsvm_pt *c = dir ?
				*nvsvm_pt_child(vmm, pt, idx, s) : NULL;
			u64 *e = nvsvm_pt_entry(vmm, pt, idx, s);
			u64 pte;

			if (c) {
				nvsvm_vmm_walk_valid(vmm, c, addr, next, fn,
						     priv);
				continue;
			}
			pte = READ_ONCE(*e);
			if (!pte || s != l->pte_slot || !nvsvm_pte_valid(vmm, pte))
				continue;
			fn(vmm, e, addr, next, priv);
			if (READ_ONCE(*e) != pte)
				nvsvm_pt_span_add(&span, e);
		}
		addr = next;
	}
	nvsvm_pt_span_sync(vmm, pt, &span);
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

/* @lo, @hi: the whole range being removed (nvsvm_vmm_invalidate()). */
struct nvsvm_vmm_inval_args {
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
 * Clear the VALID bit of the PTEs under @pt in [addr, end) (a large page
 * goes whole), and unlink each child table that holds nothing outside the
 * range, its content kept: nothing of it would stay after the release,
 * and unlinked before the TLB invalidate, it needs no second one for the
 * directory caches. A child whose whole span lies in the range being
 * removed (args->lo, args->hi; [addr, end) may be one chunk of it) is
 * unlinked without a look inside: once the invalidate is done no walk
 * reaches its PTEs, valid or not, and the release takes them all, also
 * those of later chunks. Return: @pt itself holds nothing outside the
 * range (no child kept, no entry in use outside it).
 */
static bool nvsvm_vmm_inval_lvl(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				u64 addr, u64 end,
				struct nvsvm_vmm_inval_args *args)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	bool dir = nvsvm_lvl_is_dir(l), whole = true;
	struct nvsvm_pt_span span = { };
	u64 start = addr;
	unsigned int idx;

	if (!pt->refs)
		return true;
	while (nvsvm_pt_skip(vmm, pt, &addr, end, &idx)) {
		u64 next = nvsvm_pt_next(vmm, pt, addr, end);
		unsigned int s;

		for (s = 0; s < l->slots; s++) {
			struct nvsvm_pt **cp = dir ?
				nvsvm_pt_child(vmm, pt, idx, s) : NULL;
			u64 *e = nvsvm_pt_entry(vmm, pt, idx, s);
			u64 pte;

			if (cp && *cp) {
				struct nvsvm_pt *c = *cp;

				if (nvsvm_pt_entry_inside(vmm, pt, addr,
							  args->lo, args->hi) ||
				    nvsvm_vmm_inval_lvl(vmm, c, addr, next, args))
					nvsvm_pt_unlink(vmm, pt, idx, s, &span,
							args->detached);
				else
					whole = false;
				continue;
			}
			pte = READ_ONCE(*e);
			if (!pte || s != l->pte_slot || !nvsvm_pte_valid(vmm, pte))
				continue;
			WRITE_ONCE(*e, vmm->desc->pte_invalid(pte));
			nvsvm_pt_span_add(&span, e);
			args->any = true;
		}
		addr = next;
	}
	nvsvm_pt_span_sync(vmm, pt, &span);
	return whole && nvsvm_pt_within(vmm, pt, start, end);
}

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
		.detached = detached,
		.lo = lo,
		.hi = hi,
	};

	nvsvm_vmm_inval_lvl(vmm, vmm->root, start, end, &args);
	return args.any || !list_empty(detached);
}

/*
 * @detached: every PTE goes, valid or not (a table no walk reaches);
 * @resched: cond_resched() after each page table of those.
 */
struct nvsvm_vmm_release_args {
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

static void nvsvm_vmm_release_lvl(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				  u64 addr, u64 end,
				  struct nvsvm_vmm_release_args *args)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	bool dir = nvsvm_lvl_is_dir(l);
	struct nvsvm_pt_span span = { };
	unsigned int idx;

	if (!pt->refs)
		return;
	if (args->detached && !dir && l->slots == 1) {
		nvsvm_pt_release_leaf(vmm, pt, args);
		if (args->resched)
			cond_resched();
		return;
	}
	while (nvsvm_pt_skip(vmm, pt, &addr, end, &idx)) {
		u64 next = nvsvm_pt_next(vmm, pt, addr, end);
		unsigned int s;

		for (s = 0; s < l->slots; s++) {
			struct nvsvm_pt **cp = dir ?
				nvsvm_pt_child(vmm, pt, idx, s) : NULL;
			u64 *e = nvsvm_pt_entry(vmm, pt, idx, s);
			u64 old;

			if (cp && *cp) {
				struct nvsvm_pt *c = *cp;

				nvsvm_vmm_release_lvl(vmm, c, addr, next, args);
				if (!c->refs)
					nvsvm_pt_unlink(vmm, pt, idx, s, &span,
							args->freed);
				continue;
			}
			old = READ_ONCE(*e);
			if (old && (args->detached ||
				    !nvsvm_pte_valid(vmm, old))) {
				args->release(args->priv, old, l->shift);
				nvsvm_pt_span_add(&span,
						  nvsvm_pt_set(vmm, pt, idx, s, 0));
				pt->refs--;
			}
		}
		addr = next;
	}
	nvsvm_pt_span_sync(vmm, pt, &span);
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
		.release = release,
		.priv = priv,
		.freed = freed,
	};

	nvsvm_vmm_release_lvl(vmm, vmm->root, start, end, &args);
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
		nvsvm_vmm_release_lvl(vmm, pt, 0, 1ULL << (l->shift + l->bits),
				      &args);
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

static u64 nvsvm_pt_next_used(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			      u64 addr, u64 end, unsigned int shift)
{
	const struct nvsvm_vmm_level *l = nvsvm_lvl(vmm, pt->level);
	bool dir = nvsvm_lvl_is_dir(l);
	unsigned int idx;

	if (!pt->refs)
		return end;
	while (nvsvm_pt_skip(vmm, pt, &addr, end, &idx)) {
		u64 next = nvsvm_pt_next(vmm, pt, addr, end);
		unsigned int s;

		for (s = 0; s < l->slots; s++) {
			struct nvsvm_pt *c = dir ?
				*nvsvm_pt_child(vmm, pt, idx, s) : NULL;

			if (c && l->shift > shift) {
				u64 r = nvsvm_pt_next_used(vmm, c, addr, next,
							   shift);

				if (r < next)
					return r;
			} else if (c || READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx,
								    s))) {
				return addr;
			}
		}
		addr = next;
	}
	return end;
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
	return nvsvm_pt_lookup(vmm, vmm->root, addr, shift);
}

struct nvsvm_vmm_valid_args {
	u64 base;
	unsigned long *valid;
};

static void nvsvm_vmm_valid_pte(struct nvsvm_vmm *vmm, u64 *e, u64 addr,
				u64 next, void *priv)
{
	struct nvsvm_vmm_valid_args *args = priv;

	bitmap_set(args->valid, (addr - args->base) >> PAGE_SHIFT,
		   (next - addr) >> PAGE_SHIFT);
}

/**
 * nvsvm_vmm_valid() - which pages of a range a valid PTE maps
 * @vmm: address space
 * @start: first address, page aligned
 * @npages: pages from @start
 * @valid: bitmap of @npages bits; bit i is set when a valid PTE of any
 *	size maps @start + i pages (the other bits are left alone)
 *
 * One walk of the tables under the range, for callers that would
 * otherwise call nvsvm_vmm_lookup() for every page.
 */
void nvsvm_vmm_valid(struct nvsvm_vmm *vmm, u64 start, unsigned int npages,
		     unsigned long *valid)
{
	struct nvsvm_vmm_valid_args args = { .base = start, .valid = valid };

	nvsvm_vmm_walk_valid(vmm, vmm->root, start,
			     start + ((u64)npages << PAGE_SHIFT),
			     nvsvm_vmm_valid_pte, &args);
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

/**
 * nvsvm_vmm_init() - set up an empty address space
 * @vmm: to initialise
 * @dev: device for DMA allocations
 * @desc: chip description; every table size a power of two, at most
 *	1 << NVSVM_VMM_MAX_BITS entries per table
 * @mm: the address space's owner: every table is charged to its memory
 *	cgroup, whoever allocates it
 * @pt_bytes: counter of table memory in use
 *
 * Return: 0, -ENOMEM, or -EINVAL for a table size that is not a power of
 * two or a table of more entries.
 */
int nvsvm_vmm_init(struct nvsvm_vmm *vmm, struct device *dev,
		   const struct nvsvm_vmm_desc *desc, struct mm_struct *mm,
		   atomic64_t *pt_bytes)
{
	struct nvsvm_vmm_path path = { };
	unsigned int level;

	memset(vmm, 0, sizeof(*vmm));
	for (level = 0; level < desc->nlevels; level++)
		if (!is_power_of_2(desc->levels[level].table_bytes) ||
		    desc->levels[level].bits > NVSVM_VMM_MAX_BITS)
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
