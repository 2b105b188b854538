/* SPDX-License-Identifier: GPL-2.0 */
/* The HMM mirror's interface to the MAP ioctl and the fault path. */
#ifndef _NVSVM_MIRROR_H
#define _NVSVM_MIRROR_H

#include <linux/mmu_notifier.h>
#include <linux/sizes.h>
#include <linux/types.h>

/* A range served at once: at most one leaf table's span. */
#define NVSVM_RANGE_MAX_BYTES	SZ_2M
#define NVSVM_RANGE_MAX_PAGES	(NVSVM_RANGE_MAX_BYTES >> PAGE_SHIFT)

struct nvsvm_svmm;

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
 * @pfns: room for the range's pages
 * @req: per-page HMM_PFN_REQ_* flags, or NULL to use @default_flags
 * @default_flags: HMM_PFN_REQ_* flags for every page
 * @mapped: (out) pages valid on the GPU
 * @changed: (out) a valid PTE changed: a TLB invalidate is due
 */
struct nvsvm_range_req {
	u64 start;
	u64 end;
	unsigned long *pfns;
	const unsigned long *req;
	unsigned long default_flags;
	u64 mapped;
	bool changed;
};

int nvsvm_mirror_range(struct nvsvm_svmm *svmm, struct nvsvm_range_req *req);

#endif /* _NVSVM_MIRROR_H */
