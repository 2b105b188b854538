// SPDX-License-Identifier: GPL-2.0
/*
 * Generic multi-level GPU page-table walker.
 *
 * The software tree mirrors the hardware one: each table has a DMA-coherent
 * frame the GPU reads, a count of its non-zero entries, and (directories
 * only) pointers to its children. Walks that only read or clear skip absent
 * directories, so clearing a huge range that is barely mapped costs as much
 * as the tables that exist. Tables are freed when their last entry goes;
 * since the GPU may still be walking an unlinked table until the caller's
 * TLB invalidate, freeing is a separate step (nvsvm_vmm_free_tables()).
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "nvsvm_vmm.h"

/* Spare tables kept on each cache list after a free. */
#define NVSVM_VMM_CACHE_MAX	16

/**
 * struct nvsvm_pt - one page table or directory
 * @head: on a cache or freed list
 * @cpu: table memory
 * @dma: its DMA address
 * @refs: non-zero entries (leaves) or children (directories)
 * @child: children, for directories; NULL for leaves
 */
struct nvsvm_pt {
	struct list_head head;
	void *cpu;
	dma_addr_t dma;
	unsigned int refs;
	struct nvsvm_pt **child;
};

static bool nvsvm_vmm_is_leaf(const struct nvsvm_vmm *vmm, unsigned int lvl)
{
	return lvl == vmm->desc->nlevels - 1;
}

static struct nvsvm_pt *nvsvm_pt_alloc(struct nvsvm_vmm *vmm, bool leaf,
				       gfp_t gfp)
{
	struct nvsvm_pt *pt;

	pt = kzalloc(sizeof(*pt), gfp);
	if (!pt)
		return NULL;
	if (!leaf) {
		pt->child = kcalloc(vmm->dir_entries, sizeof(*pt->child), gfp);
		if (!pt->child)
			goto err_free;
	}
	pt->cpu = dma_alloc_coherent(vmm->dev, vmm->desc->table_bytes,
				     &pt->dma, gfp);
	if (!pt->cpu)
		goto err_free;
	return pt;

err_free:
	kfree(pt->child);
	kfree(pt);
	return NULL;
}

static void nvsvm_pt_free(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt)
{
	dma_free_coherent(vmm->dev, vmm->desc->table_bytes, pt->cpu, pt->dma);
	kfree(pt->child);
	kfree(pt);
}

/* Take a zeroed table from the cache, or allocate one without sleeping. */
static struct nvsvm_pt *nvsvm_pt_get(struct nvsvm_vmm *vmm, bool leaf)
{
	struct nvsvm_pt *pt;

	spin_lock(&vmm->cache_lock);
	pt = list_first_entry_or_null(&vmm->cache[leaf], struct nvsvm_pt,
				      head);
	if (pt) {
		list_del(&pt->head);
		vmm->ncache[leaf]--;
	}
	spin_unlock(&vmm->cache_lock);
	if (!pt)
		pt = nvsvm_pt_alloc(vmm, leaf, GFP_NOWAIT | __GFP_NOWARN);
	return pt;
}

/**
 * nvsvm_vmm_reserve() - fill the table cache for a map of [start, end)
 * @vmm: address space
 * @start: first address
 * @end: end (exclusive)
 *
 * Called without the owner's lock; may sleep. Allocates as many tables as
 * a map of the range could need at most (bounded by 64 per call; a larger
 * map retries after -ENOMEM).
 *
 * Return: 0 or -ENOMEM.
 */
int nvsvm_vmm_reserve(struct nvsvm_vmm *vmm, u64 start, u64 end)
{
	const struct nvsvm_vmm_desc *desc = vmm->desc;
	unsigned int need[2] = { 0, 0 };
	unsigned int lvl, leaf;

	for (lvl = 1; lvl < desc->nlevels; lvl++) {
		unsigned int s = desc->levels[lvl].shift + desc->levels[lvl].bits;
		u64 n = ((end - 1) >> s) - (start >> s) + 1;

		leaf = nvsvm_vmm_is_leaf(vmm, lvl);
		need[leaf] = min_t(u64, need[leaf] + n, 64);
	}

	for (leaf = 0; leaf < 2; leaf++) {
		for (;;) {
			struct nvsvm_pt *pt;

			spin_lock(&vmm->cache_lock);
			if (vmm->ncache[leaf] >= need[leaf]) {
				spin_unlock(&vmm->cache_lock);
				break;
			}
			spin_unlock(&vmm->cache_lock);

			pt = nvsvm_pt_alloc(vmm, leaf, GFP_KERNEL);
			if (!pt)
				return -ENOMEM;
			spin_lock(&vmm->cache_lock);
			list_add(&pt->head, &vmm->cache[leaf]);
			vmm->ncache[leaf]++;
			spin_unlock(&vmm->cache_lock);
		}
	}
	return 0;
}

static u64 *nvsvm_pt_entry(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			   unsigned int lvl, unsigned int idx)
{
	const struct nvsvm_vmm_level *l = &vmm->desc->levels[lvl];

	return pt->cpu + idx * l->entry_bytes + l->ptr_offset;
}

static unsigned int nvsvm_pt_index(struct nvsvm_vmm *vmm, unsigned int lvl,
				   u64 addr)
{
	const struct nvsvm_vmm_level *l = &vmm->desc->levels[lvl];

	return (addr >> l->shift) & ((1U << l->bits) - 1);
}

/* End of the entry of level @lvl that holds @addr, clamped to @end. */
static u64 nvsvm_pt_next(struct nvsvm_vmm *vmm, unsigned int lvl, u64 addr,
			 u64 end)
{
	u64 size = 1ULL << vmm->desc->levels[lvl].shift;
	u64 next = (addr & ~(size - 1)) + size;

	return min(next, end);
}

/* Link a new child under @pt at @idx. */
static struct nvsvm_pt *nvsvm_pt_link(struct nvsvm_vmm *vmm,
				      struct nvsvm_pt *pt, unsigned int lvl,
				      unsigned int idx)
{
	struct nvsvm_pt *child;

	child = nvsvm_pt_get(vmm, nvsvm_vmm_is_leaf(vmm, lvl + 1));
	if (!child)
		return NULL;
	pt->child[idx] = child;
	pt->refs++;
	atomic64_add(vmm->desc->table_bytes, vmm->pt_bytes);
	/* The table's zeroed content must be visible before the PDE. */
	dma_wmb();
	WRITE_ONCE(*nvsvm_pt_entry(vmm, pt, lvl, idx),
		   vmm->desc->pde(child->dma));
	return child;
}

static int nvsvm_vmm_map_lvl(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
			     unsigned int lvl, u64 addr, u64 end,
			     nvsvm_vmm_pte_fn fn, void *priv)
{
	while (addr < end) {
		unsigned int idx = nvsvm_pt_index(vmm, lvl, addr);
		u64 next = nvsvm_pt_next(vmm, lvl, addr, end);

		if (nvsvm_vmm_is_leaf(vmm, lvl)) {
			u64 *e = nvsvm_pt_entry(vmm, pt, lvl, idx);
			u64 old = READ_ONCE(*e);
			u64 new = fn(priv, addr, old);

			if (new != old) {
				WRITE_ONCE(*e, new);
				pt->refs += !old;
			}
		} else {
			struct nvsvm_pt *child = pt->child[idx];
			int ret;

			if (!child) {
				child = nvsvm_pt_link(vmm, pt, lvl, idx);
				if (!child)
					return -ENOMEM;
			}
			ret = nvsvm_vmm_map_lvl(vmm, child, lvl + 1, addr,
						next, fn, priv);
			if (ret)
				return ret;
		}
		addr = next;
	}
	return 0;
}

/**
 * nvsvm_vmm_map() - write leaf entries for every page of [start, end)
 * @vmm: address space
 * @start: first address (page aligned)
 * @end: end (exclusive)
 * @fn: returns the new entry of each page, given the current one
 * @priv: for @fn
 *
 * Tables are allocated, for each leaf table's span, before @fn is called
 * for a page in it: when this fails with -ENOMEM, @fn has been called for
 * a prefix of the range only (the caller knows which from its calls), and
 * the caller may reserve and retry the rest.
 *
 * Return: 0 or -ENOMEM.
 */
int nvsvm_vmm_map(struct nvsvm_vmm *vmm, u64 start, u64 end,
		  nvsvm_vmm_pte_fn fn, void *priv)
{
	return nvsvm_vmm_map_lvl(vmm, vmm->root, 0, start, end, fn, priv);
}

static bool nvsvm_vmm_inval_lvl(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				unsigned int lvl, u64 addr, u64 end)
{
	const struct nvsvm_vmm_desc *desc = vmm->desc;
	bool any = false;

	while (addr < end) {
		unsigned int idx = nvsvm_pt_index(vmm, lvl, addr);
		u64 next = nvsvm_pt_next(vmm, lvl, addr, end);

		if (nvsvm_vmm_is_leaf(vmm, lvl)) {
			u64 *e = nvsvm_pt_entry(vmm, pt, lvl, idx);
			u64 old = READ_ONCE(*e);

			if (desc->pte_flags(old) & NVSVM_PTE_VALID) {
				WRITE_ONCE(*e, desc->pte_invalid(old));
				any = true;
			}
		} else if (pt->child[idx]) {
			any |= nvsvm_vmm_inval_lvl(vmm, pt->child[idx], lvl + 1,
						   addr, next);
		}
		addr = next;
	}
	return any;
}

/**
 * nvsvm_vmm_invalidate() - clear the VALID bit of every entry in a range
 * @vmm: address space
 * @start: first address
 * @end: end (exclusive)
 *
 * The entries keep their address, for nvsvm_vmm_release() after the
 * caller's TLB invalidate.
 *
 * Return: true when a valid entry was cleared (a TLB invalidate is due).
 */
bool nvsvm_vmm_invalidate(struct nvsvm_vmm *vmm, u64 start, u64 end)
{
	return nvsvm_vmm_inval_lvl(vmm, vmm->root, 0, start, end);
}

struct nvsvm_vmm_release_args {
	void (*release)(void *priv, u64 pte);
	void *priv;
	struct list_head *freed;
};

static void nvsvm_vmm_release_lvl(struct nvsvm_vmm *vmm, struct nvsvm_pt *pt,
				  unsigned int lvl, u64 addr, u64 end,
				  struct nvsvm_vmm_release_args *args)
{
	const struct nvsvm_vmm_desc *desc = vmm->desc;

	while (addr < end) {
		unsigned int idx = nvsvm_pt_index(vmm, lvl, addr);
		u64 next = nvsvm_pt_next(vmm, lvl, addr, end);
		u64 *e = nvsvm_pt_entry(vmm, pt, lvl, idx);

		if (nvsvm_vmm_is_leaf(vmm, lvl)) {
			u64 old = READ_ONCE(*e);

			if (old && !(desc->pte_flags(old) & NVSVM_PTE_VALID)) {
				args->release(args->priv, old);
				WRITE_ONCE(*e, 0);
				pt->refs--;
			}
		} else if (pt->child[idx]) {
			struct nvsvm_pt *child = pt->child[idx];

			nvsvm_vmm_release_lvl(vmm, child, lvl + 1, addr, next,
					      args);
			if (!child->refs) {
				WRITE_ONCE(*e, 0);
				pt->child[idx] = NULL;
				pt->refs--;
				atomic64_sub(desc->table_bytes, vmm->pt_bytes);
				list_add_tail(&child->head, args->freed);
			}
		}
		addr = next;
	}
}

/**
 * nvsvm_vmm_release() - drop invalidated entries and empty tables
 * @vmm: address space
 * @start: first address
 * @end: end (exclusive)
 * @release: called with each entry nvsvm_vmm_invalidate() cleared, after
 *	the TLB invalidate, to release what it points to
 * @priv: for @release
 * @freed: tables that became empty are unlinked and put here
 *
 * Return: true when tables were unlinked: the caller invalidates the TLB
 * again, then calls nvsvm_vmm_free_tables().
 */
bool nvsvm_vmm_release(struct nvsvm_vmm *vmm, u64 start, u64 end,
		       void (*release)(void *priv, u64 pte), void *priv,
		       struct list_head *freed)
{
	struct nvsvm_vmm_release_args args = {
		.release = release,
		.priv = priv,
		.freed = freed,
	};

	nvsvm_vmm_release_lvl(vmm, vmm->root, 0, start, end, &args);
	return !list_empty(freed);
}

/**
 * nvsvm_vmm_free_tables() - free tables unlinked by nvsvm_vmm_release()
 * @vmm: address space
 * @freed: the list; emptied
 *
 * Only after the TLB invalidate that followed the unlinking. A few tables
 * go back to the cache; their memory is all zero already.
 */
void nvsvm_vmm_free_tables(struct nvsvm_vmm *vmm, struct list_head *freed)
{
	struct nvsvm_pt *pt, *tmp;

	list_for_each_entry_safe(pt, tmp, freed, head) {
		bool leaf = !pt->child;

		list_del(&pt->head);
		spin_lock(&vmm->cache_lock);
		if (vmm->ncache[leaf] < NVSVM_VMM_CACHE_MAX) {
			list_add(&pt->head, &vmm->cache[leaf]);
			vmm->ncache[leaf]++;
			pt = NULL;
		}
		spin_unlock(&vmm->cache_lock);
		if (pt)
			nvsvm_pt_free(vmm, pt);
	}
}

/**
 * nvsvm_vmm_lookup() - read the leaf entry that maps @addr
 * @vmm: address space
 * @addr: address
 *
 * Return: the entry as in table memory, 0 where no table exists.
 */
u64 nvsvm_vmm_lookup(struct nvsvm_vmm *vmm, u64 addr)
{
	struct nvsvm_pt *pt = vmm->root;
	unsigned int lvl;

	for (lvl = 0; !nvsvm_vmm_is_leaf(vmm, lvl); lvl++) {
		pt = pt->child[nvsvm_pt_index(vmm, lvl, addr)];
		if (!pt)
			return 0;
	}
	return READ_ONCE(*nvsvm_pt_entry(vmm, pt, lvl,
					 nvsvm_pt_index(vmm, lvl, addr)));
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

/**
 * nvsvm_vmm_init() - set up an empty address space
 * @vmm: to initialise
 * @dev: device for DMA allocations
 * @desc: chip description
 * @pt_bytes: counter of table memory in use
 *
 * Return: 0 or -ENOMEM.
 */
int nvsvm_vmm_init(struct nvsvm_vmm *vmm, struct device *dev,
		   const struct nvsvm_vmm_desc *desc, atomic64_t *pt_bytes)
{
	unsigned int lvl;

	vmm->dev = dev;
	vmm->desc = desc;
	vmm->pt_bytes = pt_bytes;
	vmm->dir_entries = 0;
	for (lvl = 0; lvl + 1 < desc->nlevels; lvl++)
		vmm->dir_entries = max(vmm->dir_entries,
				       1U << desc->levels[lvl].bits);
	spin_lock_init(&vmm->cache_lock);
	INIT_LIST_HEAD(&vmm->cache[0]);
	INIT_LIST_HEAD(&vmm->cache[1]);
	vmm->ncache[0] = 0;
	vmm->ncache[1] = 0;
	vmm->root = nvsvm_pt_alloc(vmm, false, GFP_KERNEL);
	return vmm->root ? 0 : -ENOMEM;
}

/**
 * nvsvm_vmm_fini() - free an address space
 * @vmm: an address space whose every mapping was released, and that no
 *	GPU uses any more
 */
void nvsvm_vmm_fini(struct nvsvm_vmm *vmm)
{
	struct nvsvm_pt *pt, *tmp;
	unsigned int leaf;

	WARN_ON_ONCE(vmm->root->refs);
	nvsvm_pt_free(vmm, vmm->root);
	vmm->root = NULL;
	for (leaf = 0; leaf < 2; leaf++) {
		list_for_each_entry_safe(pt, tmp, &vmm->cache[leaf], head)
			nvsvm_pt_free(vmm, pt);
		INIT_LIST_HEAD(&vmm->cache[leaf]);
		vmm->ncache[leaf] = 0;
	}
}
