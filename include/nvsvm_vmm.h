/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generic multi-level GPU page-table manager. The chip code describes the
 * levels (struct nvsvm_vmm_desc); the walker knows no chip constant.
 *
 * Every function here is called with the owner's lock held (the svmm
 * mutex), which may be taken by an MMU notifier: nothing here allocates
 * with GFP_KERNEL. Tables come from a small cache that nvsvm_vmm_reserve()
 * fills, without the lock, before the caller maps.
 */
#ifndef _NVSVM_VMM_H
#define _NVSVM_VMM_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct device;

/**
 * struct nvsvm_vmm_level - one level of the 4 KiB-page path
 * @shift: lowest virtual address bit this level indexes
 * @bits: index bits
 * @entry_bytes: bytes per entry
 * @ptr_offset: byte offset, inside an entry, of the pointer used on this
 *	path (for dual entries: which half)
 */
struct nvsvm_vmm_level {
	u8 shift;
	u8 bits;
	u8 entry_bytes;
	u8 ptr_offset;
};

/* Flags for nvsvm_vmm_desc::pte() and returned by ::pte_flags(). */
#define NVSVM_PTE_VALID		BIT(0)
#define NVSVM_PTE_WRITE		BIT(1)
#define NVSVM_PTE_ATOMIC	BIT(2)
#define NVSVM_PTE_VRAM		BIT(3)

/**
 * struct nvsvm_vmm_desc - what the chip code tells the walker
 * @levels: from the top level to the 4 KiB leaf
 * @nlevels: number of @levels
 * @table_bytes: size of one table's memory
 * @pde: encode a directory entry pointing to a table in system memory
 * @pte: encode a valid leaf entry for @addr with NVSVM_PTE_* @flags
 * @pte_invalid: @pte without its VALID bit, keeping the address
 * @pte_flags: decode NVSVM_PTE_* from a leaf entry
 * @pte_addr: decode the address from a leaf entry
 */
struct nvsvm_vmm_desc {
	const struct nvsvm_vmm_level *levels;
	unsigned int nlevels;
	unsigned int table_bytes;
	u64 (*pde)(dma_addr_t table);
	u64 (*pte)(u64 addr, u32 flags);
	u64 (*pte_invalid)(u64 pte);
	u32 (*pte_flags)(u64 pte);
	u64 (*pte_addr)(u64 pte);
};

struct nvsvm_pt;

/**
 * struct nvsvm_vmm - one GPU address space
 * @dev: device for DMA allocations
 * @desc: chip description
 * @root: top-level table
 * @dir_entries: most entries of any directory level
 * @cache_lock: protects @cache and @ncache (filled without the owner's lock)
 * @cache: spare tables ready for use under the lock, [0] directories,
 *	[1] leaves
 * @ncache: entries on each @cache list
 * @pt_bytes: where to account table memory in use, the root excepted
 */
struct nvsvm_vmm {
	struct device *dev;
	const struct nvsvm_vmm_desc *desc;
	struct nvsvm_pt *root;
	unsigned int dir_entries;
	spinlock_t cache_lock;		/* @cache, @ncache */
	struct list_head cache[2];
	unsigned int ncache[2];
	atomic64_t *pt_bytes;
};

/*
 * Map callback: given the current leaf entry for @addr, return the new one.
 * It must return a valid entry: nvsvm_vmm_map() allocates the tables for
 * the whole range before it calls it.
 */
typedef u64 (*nvsvm_vmm_pte_fn)(void *priv, u64 addr, u64 pte);

int nvsvm_vmm_init(struct nvsvm_vmm *vmm, struct device *dev,
		   const struct nvsvm_vmm_desc *desc, atomic64_t *pt_bytes);
void nvsvm_vmm_fini(struct nvsvm_vmm *vmm);
dma_addr_t nvsvm_vmm_pdb(struct nvsvm_vmm *vmm);
int nvsvm_vmm_reserve(struct nvsvm_vmm *vmm, u64 start, u64 end);
int nvsvm_vmm_map(struct nvsvm_vmm *vmm, u64 start, u64 end,
		  nvsvm_vmm_pte_fn fn, void *priv);
bool nvsvm_vmm_invalidate(struct nvsvm_vmm *vmm, u64 start, u64 end);
bool nvsvm_vmm_release(struct nvsvm_vmm *vmm, u64 start, u64 end,
		       void (*release)(void *priv, u64 pte), void *priv,
		       struct list_head *freed);
void nvsvm_vmm_free_tables(struct nvsvm_vmm *vmm, struct list_head *freed);
u64 nvsvm_vmm_lookup(struct nvsvm_vmm *vmm, u64 addr);

#endif /* _NVSVM_VMM_H */
