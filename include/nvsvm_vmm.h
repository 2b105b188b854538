/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generic multi-level GPU page-table manager. The chip code describes the
 * levels (struct nvsvm_vmm_desc); the walker knows no chip constant.
 *
 * Every function here but init, fini and reserve is called with the
 * owner's lock held (the svmm mutex), which an MMU notifier may take:
 * nothing here allocates with GFP_KERNEL. Tables come from a small cache
 * that nvsvm_vmm_reserve() fills, without the lock, before the caller
 * maps.
 *
 * Table memory is ordinary kernel memory charged to the memory cgroup of
 * the address space's owner (whichever task allocates it: the ioctl or
 * the fault worker) and mapped for the device with the streaming DMA API;
 * every CPU write of an entry is synced for the device.
 */
#ifndef _NVSVM_VMM_H
#define _NVSVM_VMM_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct device;
struct mem_cgroup;
struct mm_struct;

#define NVSVM_VMM_MAX_LEVELS	8
#define NVSVM_VMM_NONE		0xff

/**
 * struct nvsvm_vmm_level - one kind of table
 * @shift: lowest virtual address bit this level indexes
 * @bits: index bits
 * @entry_bytes: bytes per entry
 * @slots: 8-byte slots per entry: 1, or 2 for dual entries
 * @next: per slot, the level of the table it points to, or
 *	NVSVM_VMM_NONE
 * @pte_slot: the slot that may hold a PTE of (1 << @shift) bytes instead
 *	of a pointer, or NVSVM_VMM_NONE
 * @table_bytes: size of one table
 *
 * In a dual entry, a lower slot shadows the higher ones wherever it maps
 * a valid page (GP100: a valid 2 MiB PTE or big-page PTE wins over the
 * small-page table).
 */
struct nvsvm_vmm_level {
	u8 shift;
	u8 bits;
	u8 entry_bytes;
	u8 slots;
	u8 next[2];
	u8 pte_slot;
	u16 table_bytes;
};

/* Flags for nvsvm_vmm_desc::pte() and returned by ::pte_flags(). */
#define NVSVM_PTE_VALID		BIT(0)
#define NVSVM_PTE_WRITE		BIT(1)
#define NVSVM_PTE_ATOMIC	BIT(2)
#define NVSVM_PTE_VRAM		BIT(3)

/**
 * struct nvsvm_vmm_desc - what the chip code tells the walker
 * @levels: kinds of tables; [0] is the top level
 * @nlevels: number of @levels
 * @pde: encode a directory entry pointing to a table in system memory
 * @pte: encode a valid leaf entry for @addr with NVSVM_PTE_* @flags
 * @pte_invalid: an entry the hardware ignores at any level (not a PTE, not a
 *	PDE, not sparse), never 0, from which @pte_flags still tells
 *	%NVSVM_PTE_VRAM and @pte_addr the address of @pte
 * @pte_flags: decode NVSVM_PTE_* from a leaf entry
 * @pte_addr: decode the address from a leaf entry
 * @pte_valid_mask: optional (0: none): a leaf entry is a valid PTE, as
 *	@pte_flags says with %NVSVM_PTE_VALID, exactly when its bits under
 *	this mask are @pte_valid_bits; lets nvsvm_vmm_valid() read a page
 *	table without a call per entry (nvsvm_vmm_init() checks it on
 *	samples)
 * @pte_valid_bits: see @pte_valid_mask; never 0
 */
struct nvsvm_vmm_desc {
	const struct nvsvm_vmm_level *levels;
	unsigned int nlevels;
	u64 (*pde)(dma_addr_t table);
	u64 (*pte)(u64 addr, u32 flags);
	u64 (*pte_invalid)(u64 pte);
	u32 (*pte_flags)(u64 pte);
	u64 (*pte_addr)(u64 pte);
	u64 pte_valid_mask;
	u64 pte_valid_bits;
};

/**
 * struct nvsvm_vmm_path - the tables a page size is mapped through
 * @shift: page shift
 * @depth: tables on the path, the one holding the PTE last
 * @level: level of each
 * @slot: slot taken in each; in the last, the PTE's slot
 */
struct nvsvm_vmm_path {
	u8 shift;
	u8 depth;
	u8 level[NVSVM_VMM_MAX_LEVELS];
	u8 slot[NVSVM_VMM_MAX_LEVELS];
};

struct nvsvm_pt;

/**
 * struct nvsvm_vmm - one GPU address space
 * @dev: device for DMA allocations
 * @desc: chip description
 * @root: top-level table
 * @paths: how each page size is reached, largest first
 * @npaths: entries in @paths
 * @memcg: memory cgroup every table is charged to (a reference)
 * @cache_lock: protects @cache and @ncache (filled without the owner's lock)
 * @cache: per level, spare tables ready for use under the lock
 * @ncache: entries on each @cache list
 * @pt_bytes: where to account table memory in use, the root excepted
 */
struct nvsvm_vmm {
	struct device *dev;
	const struct nvsvm_vmm_desc *desc;
	struct nvsvm_pt *root;
	struct nvsvm_vmm_path paths[NVSVM_VMM_MAX_LEVELS];
	unsigned int npaths;
	struct mem_cgroup *memcg;
	spinlock_t cache_lock;		/* @cache, @ncache */
	struct list_head cache[NVSVM_VMM_MAX_LEVELS];
	unsigned int ncache[NVSVM_VMM_MAX_LEVELS];
	atomic64_t *pt_bytes;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map *lock_dep_map;
#endif
};

/*
 * nvsvm_vmm_set_lock(vmm, lock): the owner's lock (a mutex, a rwsem...)
 * that serialises every change and walk of the tree; the vmm asserts it is
 * held in each of them (map, invalidate, release, next_used, lookup,
 * valid), as drm_gpusvm_driver_set_lock() does. Without lockdep, nothing.
 * nvsvm_vmm_reserve(), init and fini run without it.
 */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
#define nvsvm_vmm_set_lock(vmm, lock) \
	nvsvm_vmm_set_lock_map(vmm, &(lock)->dep_map)

static inline void nvsvm_vmm_set_lock_map(struct nvsvm_vmm *vmm,
					  struct lockdep_map *map)
{
	vmm->lock_dep_map = map;
}

static inline void nvsvm_vmm_assert_locked(const struct nvsvm_vmm *vmm)
{
	lockdep_assert(!vmm->lock_dep_map || lock_is_held(vmm->lock_dep_map));
}
#else
#define nvsvm_vmm_set_lock(vmm, lock)	((void)(vmm), (void)(lock))

static inline void nvsvm_vmm_assert_locked(const struct nvsvm_vmm *vmm)
{
}
#endif

/*
 * Map callback: given the current entry for the page of (1 << @shift)
 * bytes at @addr (0, or a valid entry for the same page), return the new
 * one; returning @pte leaves the entry alone.
 */
typedef u64 (*nvsvm_vmm_pte_fn)(void *priv, u64 addr, unsigned int shift,
				u64 pte);

int nvsvm_vmm_init(struct nvsvm_vmm *vmm, struct device *dev,
		   const struct nvsvm_vmm_desc *desc, struct mm_struct *mm,
		   atomic64_t *pt_bytes);
void nvsvm_vmm_fini(struct nvsvm_vmm *vmm);
dma_addr_t nvsvm_vmm_pdb(struct nvsvm_vmm *vmm);
int nvsvm_vmm_reserve(struct nvsvm_vmm *vmm, u64 start, u64 end);
int nvsvm_vmm_map(struct nvsvm_vmm *vmm, u64 start, u64 end,
		  unsigned int shift, nvsvm_vmm_pte_fn fn, void *priv,
		  u64 *shadowed);
bool nvsvm_vmm_invalidate(struct nvsvm_vmm *vmm, u64 start, u64 end,
			  u64 lo, u64 hi, struct list_head *detached);
bool nvsvm_vmm_release(struct nvsvm_vmm *vmm, u64 start, u64 end,
		       void (*release)(void *priv, u64 pte,
				       unsigned int shift),
		       void *priv, struct list_head *freed);
void nvsvm_vmm_release_detached(struct nvsvm_vmm *vmm,
				struct list_head *detached,
				void (*release)(void *priv, u64 pte,
						unsigned int shift),
				void *priv, struct list_head *freed,
				bool resched);
void nvsvm_vmm_free_tables(struct nvsvm_vmm *vmm, struct list_head *freed,
			   bool resched);
u64 nvsvm_vmm_next_used(struct nvsvm_vmm *vmm, u64 addr, u64 end,
			unsigned int shift);
u64 nvsvm_vmm_lookup(struct nvsvm_vmm *vmm, u64 addr, unsigned int *shift);
void nvsvm_vmm_valid(struct nvsvm_vmm *vmm, u64 start, unsigned int npages,
		     unsigned long *valid);
bool nvsvm_vmm_vram(struct nvsvm_vmm *vmm, u64 start, unsigned int npages,
		    void (*used)(void *data, u64 vram), void *data);
void nvsvm_vmm_vram_each(struct nvsvm_vmm *vmm, u64 start, unsigned int npages,
			 void (*used)(void *data, u64 vram), void *data);

#ifdef NVSVM_TEST
struct seq_file;

/* TEST ONLY (src/vmm_selftest.c): the direct look against the walk. */
int nvsvm_vmm_selftest(struct seq_file *m, struct device *dev,
		       const struct nvsvm_vmm_desc *desc);
#endif

#endif /* _NVSVM_VMM_H */
