/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU side of the mirror's snapshot: userfaultfd and the prefetch's
 * fill pages, for nvsvm_mirror_range() (src/snapshot.c).
 */
#ifndef _NVSVM_SNAPSHOT_H
#define _NVSVM_SNAPSHOT_H

#include <linux/types.h>

struct hmm_range;
struct mm_struct;
struct nvsvm_range_req;

bool nvsvm_mirror_uffd(struct mm_struct *mm, u64 start, u64 end);
int nvsvm_mirror_uffd_check(struct nvsvm_range_req *req, unsigned long first,
			    unsigned long last);
int nvsvm_mirror_uffd_wait(struct mm_struct *mm,
			   const struct nvsvm_uffd_wait *w);
int nvsvm_mirror_fill(struct mm_struct *mm, struct nvsvm_range_req *req,
		      const struct hmm_range *snap, unsigned long first,
		      unsigned long last);

#endif /* _NVSVM_SNAPSHOT_H */
