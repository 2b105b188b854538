/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prefetch policy: how far a fault's range grows, which of the added
 * pages are filled, how a range is cut into spans, when a range grows to
 * a THP's block. Decisions on data the caller gives (request and validity
 * bitmaps, hmm's output, a VMA, a CPU PTE's kind); no hmm call, no lock.
 * See src/prefetch.c.
 */
#ifndef _NVSVM_PREFETCH_H
#define _NVSVM_PREFETCH_H

#include <linux/types.h>

struct mm_struct;
struct nvsvm_range_req;
struct vm_area_struct;

/* What the CPU's page table holds at an address (nvsvm_mirror_cpu_pte()). */
enum nvsvm_cpu_pte {
	NVSVM_CPU_NONE,		/* nothing: no table, or an empty entry */
	NVSVM_CPU_PRESENT,	/* a present entry (a page, a THP, the zero page) */
	NVSVM_CPU_OTHER,	/* anything else */
};

unsigned int nvsvm_prefetch_threshold(void);
bool nvsvm_prefetch_region(unsigned int thr, u64 block,
			   const unsigned long *req, const unsigned long *asked,
			   const unsigned long *dense, u64 *lo, u64 *hi,
			   bool *fill_write);
void nvsvm_prefetch_fill_set(u64 block, const unsigned long *dense, u64 lo,
			     u64 hi, unsigned long *fill);
bool nvsvm_prefetch_writes(const unsigned long *req,
			   const unsigned long *asked, unsigned long i,
			   unsigned long n);
unsigned long nvsvm_prefetch_span(const unsigned long *req,
				  const unsigned long *asked, unsigned long i,
				  unsigned long n, bool thp, bool writes,
				  bool *grow_thp);
bool nvsvm_prefetch_thp(struct nvsvm_range_req *req);
bool nvsvm_prefetch_fill_vma(struct vm_area_struct *vma, u64 addr,
			     bool fill_write);
bool nvsvm_prefetch_fill_pte(enum nvsvm_cpu_pte pte, bool fill_write);
bool nvsvm_prefetch_fill_room(struct mm_struct *mm, unsigned long pages);

#endif /* _NVSVM_PREFETCH_H */
