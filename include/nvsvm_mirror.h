/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HMM mirror (src/mirror.c): an area's interval notifiers and PTE
 * writes; its interface to the area's ioctls, the buffers, the fault path
 * and the GPU atomics (src/atomic.c).
 */
#ifndef _NVSVM_MIRROR_H
#define _NVSVM_MIRROR_H

#include <linux/types.h>

struct nvsvm_device;
struct nvsvm_range_req;
struct nvsvm_svmm;
struct page;

int nvsvm_mirror_init(struct nvsvm_svmm *svmm);
void nvsvm_mirror_fini(struct nvsvm_svmm *svmm);
long nvsvm_mirror_map(struct nvsvm_svmm *svmm, u64 start, u64 end,
		      u32 flags, u64 *mapped, struct nvsvm_uffd_wait *uffd);
void nvsvm_mirror_unmap_locked(struct nvsvm_svmm *svmm, u64 start, u64 end);
int nvsvm_mirror_range(struct nvsvm_svmm *svmm, struct nvsvm_range_req *req);
void nvsvm_mirror_invalidate_tlb(struct nvsvm_svmm *svmm);
void nvsvm_mirror_valid(struct nvsvm_svmm *svmm, u64 block,
			unsigned long *valid);
void nvsvm_mirror_bounds(struct nvsvm_svmm *svmm, u64 start, u64 end,
			 u64 *lo, u64 *hi);
bool nvsvm_mirror_exclusive_atomics(void);
bool nvsvm_mirror_is_zero(struct nvsvm_svmm *svmm, u64 pte,
			  unsigned int shift);
bool nvsvm_mirror_atomics_follow(struct nvsvm_device *ndev);
struct mmu_interval_notifier *nvsvm_mirror_notifier(struct nvsvm_svmm *svmm,
						    u64 start);
int nvsvm_mirror_map_exclusive(struct nvsvm_svmm *svmm, u64 addr,
			       struct page *page, bool *changed);
void nvsvm_mirror_atomic_taken(struct nvsvm_svmm *svmm, u64 addr);

#endif /* _NVSVM_MIRROR_H */
