// SPDX-License-Identifier: GPL-2.0
/*
 * The service of an area's faults: what an area's work does with the
 * faults of one instance block once the pipeline (src/fault.c) has sorted
 * them and found their area.
 *
 * It coalesces the faults inside one 2 MiB block into a range, lets the
 * prefetch policy grow it (src/prefetch.c, on what the mirror says is
 * valid and how far the VMAs go), serves it through the mirror with one
 * hmm_range_fault() loop per span of pages that ask the same
 * (nvsvm_mirror_range()), and serves the atomic faults of the range
 * through exclusive access (src/atomic.c). A fault that finds its page in
 * this device's VRAM maps the block's other VRAM pages with it
 * (nvsvm_fault_vram_block()). When a range fails as a whole,
 * it goes page by page and marks the accesses that cannot be served; the
 * pipeline's cancel policy decides which of those it cancels.
 *
 * A page missing where userfaultfd watches is not faulted here: its
 * faults are marked (&nvsvm_fault_entry.uffd) and parked by the pipeline
 * until its area's userfaultfd thread has had the handler fill the page
 * (nvsvm_fault_uffd_wait()).
 *
 * An area work reads the file pages it is about to fault in without the
 * mm (src/pagein.c): while it waits for such a read it holds the file and
 * its area, not the process's address space, nor anything the device's
 * teardown waits for. It touches the device (registers, DMA mappings,
 * page-table frames) only holding &nvsvm_device.fault.serve for read and
 * while the device is registered (!fault.off): the read lets go of it.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>

#include "nvsvm_area.h"
#include "nvsvm_atomic.h"
#include "nvsvm_batch.h"
#include "nvsvm_core.h"
#include "nvsvm_dmem.h"
#include "nvsvm_mirror.h"
#include "nvsvm_pagein.h"
#include "nvsvm_prefetch.h"
#include "nvsvm_service.h"
#include "nvsvm_snapshot.h"
#include "trace.h"

/**
 * nvsvm_chan_svmm_get() - the area of the channel with an instance block
 * @ndev: device
 * @inst_addr: instance block address from a fault entry
 * @pdb: (out) for a channel without an area, the PD3 it walks: where a
 *	cancel of its accesses must be aimed
 *
 * Return: the area with a reference taken; NULL for a channel without an
 * area; ERR_PTR(-ENOENT) when no channel has this instance block (any
 * more: a fault entry written before the channel was destroyed).
 *
 * src/chan.c owns the table (nvsvm_chan_bind()/nvsvm_chan_unbind() write
 * it, with the fault flush); the fault path only reads it, under xa_lock.
 */
struct nvsvm_svmm *
nvsvm_chan_svmm_get(struct nvsvm_device *ndev, u64 inst_addr, dma_addr_t *pdb)
{
	struct nvsvm_core_chan *chan;
	struct nvsvm_svmm *svmm = ERR_PTR(-ENOENT);

	xa_lock(&ndev->chans);
	chan = xa_load(&ndev->chans, inst_addr >> PAGE_SHIFT);
	if (chan) {
		svmm = chan->svmm;
		*pdb = chan->pdb;
		if (svmm)
			nvsvm_svmm_get(svmm);
	}
	xa_unlock(&ndev->chans);
	return svmm;
}

static unsigned long nvsvm_fault_hmm_flags(u8 access)
{
	switch (access) {
	case NVSVM_ACCESS_ATOMIC:
	case NVSVM_ACCESS_WRITE:
		return HMM_PFN_REQ_FAULT | HMM_PFN_REQ_WRITE;
	default:
		return HMM_PFN_REQ_FAULT;
	}
}

/*
 * Serve one page at the access of @f; @atomic: with atomics enabled in any
 * mode; @uffd: NULL, or where to record that the page is missing where
 * userfaultfd watches (then -EFAULT). 0 or an hmm errno.
 */
static int nvsvm_fault_page(struct nvsvm_svmm *svmm,
			    struct nvsvm_fault_batch *b,
			    const struct nvsvm_fault *f, bool atomic,
			    struct nvsvm_uffd_wait *uffd)
{
	struct nvsvm_range_req req = {
		.start = f->addr,
		.end = f->addr + PAGE_SIZE,
		.base = f->addr,
		.pfns = b->pfns,
		.req = b->req,
		.atomic = atomic,
		.uffd = uffd,
	};
	int ret;

	b->req[0] = nvsvm_fault_hmm_flags(f->access);
	ret = nvsvm_mirror_range(svmm, &req);
	b->changed |= req.changed;
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_NS_HMM, req.hmm_ns);
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_NS_PTE, req.pte_ns);
	return ret;
}

/*
 * Set the requests of the faults [first, last) in b->req, 0 elsewhere,
 * and their pages in b->asked.
 */
static void nvsvm_fault_req(struct nvsvm_fault_batch *b, u64 block,
			    unsigned int first, unsigned int last)
{
	unsigned int i;

	memset(b->req, 0, sizeof(b->req));
	bitmap_zero(b->asked, NVSVM_RANGE_MAX_PAGES);
	bitmap_zero(b->fill, NVSVM_RANGE_MAX_PAGES);
	for (i = last; i-- > first;) {
		unsigned long k = (b->e[i].f.addr - block) >> PAGE_SHIFT;

		b->req[k] = nvsvm_fault_hmm_flags(b->e[i].f.access);
		__set_bit(k, b->asked);
	}
}

/*
 * Grow [req->start, req->end) of @block by density, within what the
 * mirror allows, and set the pages to fill (src/prefetch.c).
 *
 * Return: true when the range grew.
 */
static bool nvsvm_fault_prefetch(struct nvsvm_svmm *svmm,
				 struct nvsvm_fault_batch *b, u64 block,
				 struct nvsvm_range_req *req)
{
	unsigned int thr = nvsvm_prefetch_threshold();
	u64 glo = req->start, ghi = req->end;

	if (!thr)
		return false;
	nvsvm_mirror_valid(svmm, block, b->dense);
	bitmap_or(b->dense, b->dense, b->asked, NVSVM_RANGE_MAX_PAGES);
	if (!nvsvm_prefetch_region(thr, block, b->req, b->asked, b->dense,
				   &glo, &ghi, &req->fill_write))
		return false;
	nvsvm_mirror_bounds(svmm, req->start, req->end, &glo, &ghi);
	if (glo >= req->start && ghi <= req->end)
		return false;
	nvsvm_prefetch_fill_set(block, b->dense, glo, ghi, b->fill);
	req->start = glo;
	req->end = ghi;
	return true;
}

/* The first page from @i below @n that the probe left: asked, or to fill. */
static unsigned long nvsvm_fault_left(const struct nvsvm_fault_batch *b,
				      unsigned long i, unsigned long n)
{
	return min(find_next_bit(b->asked, n, i), find_next_bit(b->fill, n, i));
}

/*
 * Fault in and map req->start..req->end of b->req's block: first one
 * snapshot of the whole range that faults nothing (&nvsvm_range_req.probe),
 * which maps every page the CPU maps and every page asked for that it
 * finds as asked (present, writable where written); then what it left, in
 * spans (nvsvm_prefetch_span()): the pages asked for that it did not find
 * so, each span asking the same, and the runs of the prefetch's fill pages
 * it did not find valid, each filled after its own snapshot. A range the
 * CPU maps whole takes one hmm_range_fault() call, not one per span; a
 * fault or fill that moves a page (a NUMA hinting fault migrates it)
 * restarts its span only, never the whole range. On return, req covers
 * the range again, with the pages mapped by all calls.
 *
 * Return: 0 or the first error (the spans after it are not served).
 */
static int nvsvm_fault_spans(struct nvsvm_svmm *svmm,
			     struct nvsvm_fault_batch *b,
			     struct nvsvm_range_req *req)
{
	u64 start = req->start, end = req->end, mapped = 0;
	unsigned long i = (start - req->base) >> PAGE_SHIFT;
	unsigned long n = (end - req->base) >> PAGE_SHIFT, j, k;
	bool thp = req->grow_thp;
	bool writes = nvsvm_prefetch_writes(b->req, b->asked, i, n);
	int ret;

	/* It faults nothing: it may grow to a THP's block whatever it asks. */
	req->probe = true;
	ret = nvsvm_mirror_range(svmm, req);
	req->probe = false;
	b->changed |= req->changed;
	if (!ret)
		mapped += req->mapped;
	/* Left for the spans: the pages asked or to fill it did not map. */
	for (k = nvsvm_fault_left(b, i, n); !ret && k < n;
	     k = nvsvm_fault_left(b, k + 1, n))
		if (req->pfns[k] & HMM_PFN_VALID) {
			__clear_bit(k, b->asked);
			__clear_bit(k, b->fill);
		}
	if (!ret)
		i = nvsvm_fault_left(b, i, n);
	while (i < n && !ret) {
		if (test_bit(i, b->asked))
			j = nvsvm_prefetch_span(b->req, b->asked, i, n, thp,
						writes, &req->grow_thp);
		else
			j = nvsvm_prefetch_span(b->req, b->fill, i, n, thp,
						writes, &req->grow_thp);
		req->start = req->base + (i << PAGE_SHIFT);
		req->end = req->base + (j << PAGE_SHIFT);
		ret = nvsvm_mirror_range(svmm, req);
		b->changed |= req->changed;
		if (!ret)
			mapped += req->mapped;
		/* A span grown to its THP's block covers the rest. */
		k = (req->end - req->base) >> PAGE_SHIFT;
		i = nvsvm_fault_left(b, max(j, k), n);
	}
	req->start = min(start, req->start);
	req->end = max(end, req->end);
	req->grow_thp = thp;
	req->mapped = mapped;
	return ret;
}

/*
 * After the faults [first, last) of @block were served in @req: when one
 * of them found a page in this device's VRAM (a refault after the recency
 * sampler dropped the block's PTEs, src/recency.c, or after any other
 * invalidation that left the pages in place), the rest of the block is
 * most likely there too, and mapping it costs no copy and no CPU fault.
 * The density prefetch cannot tell, since nothing of the block is valid
 * on the GPU any more: a refault of a 2 MiB range would come back in many
 * batches. So the block around the range, within nvsvm_mirror_bounds()
 * (the managed side of the window, the limit, the readable VMAs of the
 * range's ends), is snapshotted and what the snapshot finds is mapped, as
 * the range's own probe does: this device's VRAM pages and the pages the
 * CPU maps, each with the permission the CPU gives. The snapshot faults
 * nothing, so another device's device-private pages, swap, migration and
 * device-exclusive entries stay as they are and unmapped; the pages
 * already valid keep their PTEs. Only while the prefetch is on, and only
 * where the block has pages not valid on the GPU (b->dense, the
 * prefetch's snapshot, has a gap in the bounds).
 *
 * Return: the pages it mapped.
 */
static u64 nvsvm_fault_vram_block(struct nvsvm_device *ndev,
				  struct nvsvm_svmm *svmm,
				  struct nvsvm_fault_batch *b, u64 block,
				  unsigned int first, unsigned int last,
				  const struct nvsvm_range_req *req)
{
	u64 lo = block, hi = block + NVSVM_RANGE_MAX_BYTES, mapped = 0;
	struct nvsvm_range_req side = {
		.base = block,
		.pfns = b->pfns,
	};
	unsigned long k, n;
	unsigned int i;

	/* b->dense is the prefetch's: valid on the GPU, or asked. */
	if (!nvsvm_prefetch_threshold() ||
	    bitmap_full(b->dense, NVSVM_RANGE_MAX_PAGES))
		return 0;
	for (i = first; i < last; i++) {
		k = (b->e[i].f.addr - block) >> PAGE_SHIFT;
		if (nvsvm_dmem_is_ours(ndev, b->pfns[k]))
			break;
	}
	if (i == last)
		return 0;
	nvsvm_mirror_bounds(svmm, req->start, req->end, &lo, &hi);
	n = (hi - block) >> PAGE_SHIFT;
	if (find_next_zero_bit(b->dense, n, (lo - block) >> PAGE_SHIFT) >= n)
		return 0;
	/* The sides of the range: it was served (and snapshotted) itself. */
	if (lo < req->start) {
		side.start = lo;
		side.end = req->start;
		if (!nvsvm_mirror_range(svmm, &side))
			mapped += side.mapped;
		b->changed |= side.changed;
	}
	if (req->end < hi) {
		side.start = req->end;
		side.end = hi;
		if (!nvsvm_mirror_range(svmm, &side))
			mapped += side.mapped;
		b->changed |= side.changed;
	}
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_HMM, side.hmm_ns);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_PTE, side.pte_ns);
	if (mapped)
		nvsvm_stat_add(ndev, NVSVM_STAT_VRAM_BLOCKS, 1);
	return mapped;
}

/*
 * Read the file pages @req asks to fault in without holding the mm (see
 * src/pagein.c), so that a page-in that does not complete keeps the file
 * and the area, not the process's memory, and not the device's teardown:
 * the mm's users and the serve lock are let go while it reads. The folios
 * stay held (b->pagein) until the caller's nvsvm_pagein_release().
 *
 * Return: 0, the mm's users held again; -ESRCH when the mm has no users
 * any more or the device was unregistered meanwhile (the mm's reference
 * is dropped then; the serve lock is held either way).
 */
static int nvsvm_fault_pagein(struct nvsvm_device *ndev,
			      struct nvsvm_svmm *svmm,
			      struct nvsvm_fault_batch *b,
			      const struct nvsvm_range_req *req)
{
	u64 addr = req->start;

	lockdep_assert_held_read(&ndev->fault.serve);
	while (addr < req->end &&
	       nvsvm_pagein_find(svmm->mm, req, &addr, &b->pagein)) {
		mmput(svmm->mm);
		up_read(&ndev->fault.serve);
		nvsvm_pagein_read(&b->pagein);
		down_read(&ndev->fault.serve);
		if (ndev->fault.off || !mmget_not_zero(svmm->mm))
			return -ESRCH;
	}
	return 0;
}

/*
 * Serve faults [first, last) of one area and one 2 MiB block. When the
 * range as a whole fails, go page by page to find the faults to cancel.
 *
 * Return: 0, or -ESRCH from nvsvm_fault_pagein() (nothing served, the
 * mm's reference dropped).
 */
static int nvsvm_fault_range(struct nvsvm_device *ndev,
			     struct nvsvm_svmm *svmm,
			     struct nvsvm_fault_batch *b, unsigned int first,
			     unsigned int last)
{
	u64 start = b->e[first].f.addr;
	u64 block = ALIGN_DOWN(start, NVSVM_RANGE_MAX_BYTES);
	struct nvsvm_range_req req = {
		.start = start,
		.end = b->e[last - 1].f.addr + PAGE_SIZE,
		.base = block,
		.pfns = b->pfns,
		.req = b->req,
		.fill = b->fill,
		/* Where the CPU maps a THP, map its whole block at once. */
		.grow_thp = nvsvm_svmm_managed(svmm, block,
					       block + NVSVM_RANGE_MAX_BYTES),
	};
	u64 end = req.end, t0;
	unsigned int i;
	bool grown;
	int ret;

	nvsvm_fault_req(b, block, first, last);
	t0 = local_clock();
	grown = nvsvm_fault_prefetch(svmm, b, block, &req);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_PREFETCH, nvsvm_ns_since(t0));
	t0 = local_clock();
	ret = nvsvm_fault_pagein(ndev, svmm, b, &req);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_PAGEIN, nvsvm_ns_since(t0));
	if (ret)
		return -ESRCH;
	t0 = local_clock();
	ret = nvsvm_fault_spans(svmm, b, &req);
	if (grown && !ret)
		nvsvm_stat_add(ndev, NVSVM_STAT_PREFETCH_RANGES, 1);
	if (grown && (ret == -EFAULT || ret == -EPERM)) {
		/* The prefetch met a hole: serve the faults alone. */
		nvsvm_fault_req(b, block, first, last);
		req.start = start;
		req.end = end;
		ret = nvsvm_fault_spans(svmm, b, &req);
	}
	if (!ret)
		req.mapped += nvsvm_fault_vram_block(ndev, svmm, b, block, first,
						     last, &req);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_MAP, nvsvm_ns_since(t0));
	nvsvm_stat_add(ndev, NVSVM_STAT_RANGES, 1);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_HMM, req.hmm_ns);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_PTE, req.pte_ns);
	trace_nvsvm_fault_range(ndev->index, req.start, req.end, last - first,
				req.mapped, ret);
	if (!ret) {
		nvsvm_stat_add(ndev, NVSVM_STAT_FAULT_PAGES, req.mapped);
		return 0;
	}
	if (ret != -EFAULT && ret != -EPERM)
		return 0; /* -EBUSY, -ENOMEM: the replay makes them fault again */

	for (i = first; i < last; i++) {
		struct nvsvm_fault_entry *e = &b->e[i];
		struct nvsvm_uffd_wait uffd = { };

		/*
		 * Faults on one page are sorted by priority: first is best.
		 * One that waits for a userfaultfd handler, its followers
		 * wait with it.
		 */
		if (i > first && e->f.addr == e[-1].f.addr && !e[-1].cancel &&
		    nvsvm_fault_priority(e[-1].f.access) >=
		    nvsvm_fault_priority(e->f.access)) {
			e->uffd = e[-1].uffd &&
				  e->f.access != NVSVM_ACCESS_PREFETCH;
			continue;
		}
		ret = nvsvm_fault_page(svmm, b, &e->f, false, &uffd);
		if (ret == -EFAULT && uffd.pending)
			e->uffd = e->f.access != NVSVM_ACCESS_PREFETCH;
		else if (ret)
			e->cancel = e->f.access != NVSVM_ACCESS_PREFETCH;
	}
	return 0;
}

/*
 * The atomic faults of [first, last), already served as writes. Where
 * atomics follow write permission (nvsvm_mirror_atomics_follow(): a link
 * coherent for atomics, no exclusive access) that was all. Otherwise each
 * page is taken for exclusive access and mapped with atomics enabled, or
 * moved to VRAM and mapped there (nvsvm_mirror_atomic()). A page that
 * allows neither (shared, file-backed; any page on a kernel without
 * CONFIG_DEVICE_PRIVATE) is mapped with atomics enabled on a coherent link
 * only; on PCIe the GPU's atomic there would be a read and a write that
 * loses the CPU's updates in between, so it is refused: cancelled, the
 * program ends with a FAULT of access ATOMIC.
 */
static void nvsvm_fault_atomics(struct nvsvm_device *ndev,
				struct nvsvm_svmm *svmm,
				struct nvsvm_fault_batch *b, unsigned int first,
				unsigned int last)
{
	unsigned int i;
	int ret;

	if (nvsvm_mirror_atomics_follow(ndev))
		return;
	for (i = first; i < last; i++) {
		struct nvsvm_fault_entry *e = &b->e[i];

		if (e->f.access != NVSVM_ACCESS_ATOMIC || e->cancel || e->uffd ||
		    (i > first && e->f.addr == e[-1].f.addr &&
		     e[-1].f.access == NVSVM_ACCESS_ATOMIC))
			continue;
		ret = nvsvm_mirror_atomic(svmm, e->f.addr, &b->changed);
		if (!ret) {
			nvsvm_stat_add(ndev, NVSVM_STAT_ATOMIC_EXCLUSIVE, 1);
		} else if (ret > 0) {
			/* In VRAM now (counted in atomic_vram): map it. */
			ret = nvsvm_fault_page(svmm, b, &e->f, false, NULL);
		} else if (ret == -EAGAIN && ndev->gpu->host_atomics) {
			nvsvm_stat_add(ndev, NVSVM_STAT_ATOMIC_SHARED, 1);
			ret = nvsvm_fault_page(svmm, b, &e->f, true, NULL);
		} else if (ret == -EAGAIN) {
			nvsvm_stat_add(ndev, NVSVM_STAT_ATOMIC_REFUSED, 1);
			e->cancel = true;
		}
		if (ret == -EFAULT || ret == -EPERM)
			e->cancel = true;
	}
}

/**
 * nvsvm_fault_inst() - serve the faults of one instance block in an area
 * @ndev: device, with &nvsvm_device.fault.serve held for read
 * @svmm: the area the device work handed the faults to
 * @b: the area work's batch, sorted (the faults of one instance block are
 *	consecutive)
 * @first: first fault of the instance block in @b
 * @last: end (exclusive)
 *
 * In an area's work: serve the faults [@first, @last) of one instance
 * block, handed over as the channel's of @svmm. Sets &nvsvm_fault_entry
 * .cancel of the accesses that cannot be served, &nvsvm_fault_batch
 * .changed when a valid GPU PTE changed; the caller invalidates, cancels
 * (its policy decides which) and replays. Faults found stale, and all of
 * them once the device is unregistered during a page-in, are dropped.
 */
void nvsvm_fault_inst(struct nvsvm_device *ndev, struct nvsvm_svmm *svmm,
		      struct nvsvm_fault_batch *b, unsigned int first,
		      unsigned int last)
{
	struct nvsvm_svmm *now;
	unsigned int i, j;
	dma_addr_t pdb;
	int ret;

	lockdep_assert_held_read(&ndev->fault.serve);
	/*
	 * Stale faults: the channel is gone or left the area since the
	 * device work handed them over (its faults from now on go where it
	 * is now), or its process's mm has no users. No access of theirs
	 * is stalled here any more (a destroyed channel's programs were
	 * stopped; a task leaves EXEC before it drops its mm), so nothing
	 * is cancelled: CANCEL_TARGETED hits a GPC and client, and that GPC
	 * may be stalled on another process's live work by now. The replay
	 * of the batch is all they need.
	 */
	now = nvsvm_chan_svmm_get(ndev, b->e[first].f.inst, &pdb);
	if (!IS_ERR_OR_NULL(now))
		nvsvm_svmm_put(now);
	if (now != svmm || !mmget_not_zero(svmm->mm)) {
		nvsvm_stat_add(ndev, NVSVM_STAT_STALE, last - first);
		return;
	}

	for (i = first; i < last; i++) {
		b->e[i].pdb = pdb;
		b->e[i].changes = atomic_read(&svmm->changes);
	}
	for (i = first; i < last; i = j) {
		u64 addr = b->e[i].f.addr;
		u64 block = ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES);

		/* A hint: what settles it is the check under svmm->mutex. */
		if (READ_ONCE(svmm->dead)) {
			/* Torn down: the channel is detached, the replay
			 * finds it without an area.
			 */
			nvsvm_stat_add(ndev, NVSVM_STAT_STALE, last - i);
			break;
		}
		if (!nvsvm_svmm_managed(svmm, addr, addr + PAGE_SIZE)) {
			b->e[i].cancel = b->e[i].f.access !=
					 NVSVM_ACCESS_PREFETCH;
			j = i + 1;
			continue;
		}
		/* Same block, and on the same side of the window. */
		for (j = i + 1; j < last; j++) {
			u64 a = b->e[j].f.addr;

			if (ALIGN_DOWN(a, NVSVM_RANGE_MAX_BYTES) != block ||
			    !nvsvm_svmm_managed(svmm, addr, a + PAGE_SIZE))
				break;
		}
		ret = nvsvm_fault_range(ndev, svmm, b, i, j);
		if (!ret)
			nvsvm_fault_atomics(ndev, svmm, b, i, j);
		nvsvm_pagein_release(&b->pagein);
		if (ret) {
			/* The mm lost its users, or the device went. */
			nvsvm_stat_add(ndev, NVSVM_STAT_STALE, last - i);
			return;
		}
	}
	mmput(svmm->mm);
}

/**
 * nvsvm_fault_uffd_wait() - fault in a page a userfaultfd handler must
 *	fill, for a parked GPU access
 * @svmm: the area (the caller holds a reference)
 * @addr: the page
 * @write: fault it in for writing
 *
 * In the area's userfaultfd thread (src/fault.c), holding no lock of
 * nvsvm's and not the device: the mm's users are held while the fault
 * waits for the handler (nvsvm_mirror_uffd_wait(): fixup_user_fault()
 * with FAULT_FLAG_ALLOW_RETRY and FAULT_FLAG_KILLABLE; the userfault
 * drops the mmap lock and sleeps until the handler answers, closes the
 * userfaultfd, or the thread gets SIGKILL from the area's teardown).
 *
 * Return: 0 (the page is there now, or was never missing), -EINTR on the
 * teardown's SIGKILL, -ESRCH when the mm has no users any more, or the
 * fault's errno (-EFAULT: no VMA, not writable, SIGBUS from the handler).
 */
int nvsvm_fault_uffd_wait(struct nvsvm_svmm *svmm, u64 addr, bool write)
{
	const struct nvsvm_uffd_wait w = {
		.pending = true,
		.start = addr,
		.end = addr + PAGE_SIZE,
		.write = write,
	};
	int ret;

	if (!mmget_not_zero(svmm->mm))
		return -ESRCH;
	ret = nvsvm_mirror_uffd_wait(svmm->mm, &w);
	mmput(svmm->mm);
	return ret;
}
