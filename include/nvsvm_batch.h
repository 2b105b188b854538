/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fault path's batch: the entries a fault worker serves at once and
 * what serving them found. Shared by the pipeline (src/fault.c: the
 * device's work and each area's work) and the service of an area's
 * faults (src/service.c).
 */
#ifndef _NVSVM_BATCH_H
#define _NVSVM_BATCH_H

#include <linux/bitmap.h>
#include <linux/types.h>

#include "nvsvm_core.h"
#include "nvsvm_pagein.h"

#define NVSVM_FAULT_BATCH	256

/**
 * struct nvsvm_fault_entry - one fault of a batch and what serving it found
 * @f: the decoded fault
 * @pdb: the PD3 its channel used when the cancel was decided
 * @changes: its area's &nvsvm_svmm.changes before it was served
 * @cancel: the access must be cancelled
 * @unservable: found unservable (cancelled or a first sighting)
 * @uffd: its page is missing where userfaultfd watches: the access waits
 *	(parked, no replay for it) until its area's userfaultfd thread has
 *	faulted the page in through the handler (src/fault.c)
 */
struct nvsvm_fault_entry {
	struct nvsvm_fault f;
	dma_addr_t pdb;
	unsigned int changes;
	bool cancel;
	bool unservable;
	bool uffd;
};

/**
 * struct nvsvm_fault_suspect - an access a recent batch found unservable
 *	and did not cancel
 * @f: its fault
 * @changes: &nvsvm_fault_entry.changes when it was found
 * @age: batches since it was found
 */
struct nvsvm_fault_suspect {
	struct nvsvm_fault f;
	unsigned int changes;
	u8 age;
};

/**
 * struct nvsvm_fault_batch - a fault worker's scratch space (the device's
 *	work, and each area's work, have one each)
 * @e: the batch's entries, sorted (nvsvm_fault_sort())
 * @suspect: accesses recent batches found unservable and did not cancel
 * @nsuspect: entries in @suspect
 * @changed: serving this batch changed a valid GPU PTE (the area work
 *	invalidates the TLB once when it is done)
 * @owed: batches served since the last replay (an area work's)
 * @unreleased: faults served since the last replay (an area work's)
 * @pfns: hmm output for one range
 * @req: hmm requests for one range
 * @asked: the pages of the range's block @req asks something of
 * @dense: prefetch: the pages of the block faulted (@asked) or valid on
 *	the GPU
 * @fill: prefetch: the pages it added, faulted in after the snapshot
 *	where the CPU has nothing for them (&nvsvm_range_req.fill)
 * @pagein: the file pages of one range, read without the mm
 */
struct nvsvm_fault_batch {
	struct nvsvm_fault_entry e[NVSVM_FAULT_BATCH];
	struct nvsvm_fault_suspect suspect[NVSVM_FAULT_BATCH];
	unsigned int nsuspect;
	bool changed;
	unsigned int owed;
	unsigned int unreleased;
	unsigned long pfns[NVSVM_RANGE_MAX_PAGES];
	unsigned long req[NVSVM_RANGE_MAX_PAGES];
	DECLARE_BITMAP(asked, NVSVM_RANGE_MAX_PAGES);
	DECLARE_BITMAP(dense, NVSVM_RANGE_MAX_PAGES);
	DECLARE_BITMAP(fill, NVSVM_RANGE_MAX_PAGES);
	struct nvsvm_pagein pagein;
};

/*
 * A batch is sorted by (instance, address, access priority), so that the
 * first fault on a page is the one that serves most. Higher serves more:
 * one mapping that satisfies them all.
 */
static inline int nvsvm_fault_priority(u8 access)
{
	switch (access) {
	case NVSVM_ACCESS_ATOMIC:
		return 3;
	case NVSVM_ACCESS_WRITE:
		return 2;
	case NVSVM_ACCESS_READ:
		return 1;
	default:
		return 0;
	}
}

#endif /* _NVSVM_BATCH_H */
