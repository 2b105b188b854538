/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HMM mirror's interface to the MAP ioctl, the fault path and the
 * GPU atomics (src/atomic.c).
 */
#ifndef _NVSVM_MIRROR_H
#define _NVSVM_MIRROR_H

#include <linux/mmu_notifier.h>
#include <linux/sizes.h>
#include <linux/types.h>

/* A range served at once: at most one leaf table's span. */
#define NVSVM_RANGE_MAX_BYTES	SZ_2M
#define NVSVM_RANGE_MAX_PAGES	(NVSVM_RANGE_MAX_BYTES >> PAGE_SHIFT)

struct nvsvm_device;
struct nvsvm_svmm;
struct page;

/**
 * struct nvsvm_mirror_notifier - an interval notifier of an area
 * @mni: the notifier
 * @svmm: its area
 * @inserted: registered with the mm
 */
struct nvsvm_mirror_notifier {
	struct mmu_interval_notifier mni;
	struct nvsvm_svmm *svmm;
	bool inserted;
};

/**
 * struct nvsvm_range_req - one range for nvsvm_mirror_range()
 * @start: first address
 * @end: end (exclusive), at most NVSVM_RANGE_MAX_BYTES past @start, in
 *	the same leaf span
 * @base: address of @pfns[0] and @req[0], at or below @start, in the
 *	same 2 MiB block (0 is a block like any other)
 * @pfns: room for the pages from @base to the end of its block
 * @req: per-page HMM_PFN_REQ_* flags, or NULL to use @default_flags
 * @default_flags: HMM_PFN_REQ_* flags for every page
 * @fill: bitmap indexed as @req, or NULL: pages (the density prefetch's)
 *	that ask nothing of the CPU but are faulted in after the snapshot
 *	where that takes nothing the CPU or another device has
 *	(nvsvm_mirror_fill())
 * @fill_write: @fill pages are faulted in for writing, only where the CPU
 *	has nothing and a write gives a fresh page; for reading otherwise
 * @grow_thp: the range may grow to its whole 2 MiB block (which must be
 *	mirrored, on one side of the window, and covered by @req) when the
 *	CPU maps a THP there, so that the GPU maps it with one 2 MiB PTE
 * @atomic: enable GPU atomics on writable pages even in the
 *	exclusive-access mode (no exclusive access to be had for them)
 * @mapped: (out) pages valid on the GPU
 * @changed: (out) a valid PTE changed: a TLB invalidate is due
 * @hmm_ns: (in/out) ns spent in hmm_range_fault(), added to
 * @pte_ns: (in/out) ns spent writing PTEs, added to
 */
struct nvsvm_range_req {
	u64 start;
	u64 end;
	u64 base;
	unsigned long *pfns;
	const unsigned long *req;
	unsigned long default_flags;
	const unsigned long *fill;
	bool fill_write;
	bool grow_thp;
	bool atomic;
	u64 mapped;
	bool changed;
	u64 hmm_ns;
	u64 pte_ns;
};

int nvsvm_mirror_range(struct nvsvm_svmm *svmm, struct nvsvm_range_req *req);
void nvsvm_mirror_invalidate_tlb(struct nvsvm_svmm *svmm);
void nvsvm_mirror_valid(struct nvsvm_svmm *svmm, u64 block,
			unsigned long *valid);
void nvsvm_mirror_bounds(struct nvsvm_svmm *svmm, u64 start, u64 end,
			 u64 *lo, u64 *hi);
bool nvsvm_mirror_exclusive_atomics(void);
bool nvsvm_mirror_atomics_follow(struct nvsvm_device *ndev);
struct mmu_interval_notifier *nvsvm_mirror_notifier(struct nvsvm_svmm *svmm,
						    u64 start);
int nvsvm_mirror_map_exclusive(struct nvsvm_svmm *svmm, u64 addr,
			       struct page *page, bool *changed);

#endif /* _NVSVM_MIRROR_H */
