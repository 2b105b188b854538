// SPDX-License-Identifier: GPL-2.0
/*
 * The HMM mirror: interval notifiers over the mirrored address space, and
 * hmm_range_fault() loops that fill the GPU page tables.
 *
 * The invariant: a valid GPU PTE always maps the page the CPU maps at that
 * address, with no more permission. PTEs are written only under
 * svmm->mutex after mmu_interval_read_retry() said the pages hmm returned
 * are still current; every CPU-side change goes through
 * nvsvm_mirror_invalidate(), which takes the same mutex, clears the PTEs,
 * invalidates the TLB and only then releases the DMA mappings and tables.
 */
#include <linux/dma-mapping.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "nvsvm_core.h"
#include "nvsvm_dmem.h"
#include "nvsvm_mirror.h"

static struct nvsvm_svmm *nvsvm_notifier_svmm(struct mmu_interval_notifier *mni)
{
	return container_of(mni, struct nvsvm_mirror_notifier, mni)->svmm;
}

static void nvsvm_mirror_release(void *priv, u64 pte, unsigned int shift)
{
	struct nvsvm_svmm *svmm = priv;
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;

	if (!(desc->pte_flags(pte) & NVSVM_PTE_VRAM))
		dma_unmap_page(svmm->ndev->gpu->dev, desc->pte_addr(pte),
			       1UL << shift, DMA_BIDIRECTIONAL);
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_PAGES_MAPPED,
		       -(1L << (shift - PAGE_SHIFT)));
}

/**
 * nvsvm_mirror_unmap_locked() - remove [start, end) from the GPU
 * @svmm: area, with @svmm->mutex held
 * @start: first address
 * @end: end (exclusive)
 *
 * Clears the PTEs, invalidates the TLB if one was valid, then releases the
 * pages' DMA mappings and the tables that became empty (after a second
 * invalidate, for the directory caches).
 */
void nvsvm_mirror_unmap_locked(struct nvsvm_svmm *svmm, u64 start, u64 end)
{
	struct nvsvm_vmm *vmm = &svmm->vmm;
	LIST_HEAD(freed);

	lockdep_assert_held(&svmm->mutex);
	if (nvsvm_vmm_invalidate(vmm, start, end))
		gp100_invalidate(svmm->ndev, nvsvm_vmm_pdb(vmm));
	if (nvsvm_vmm_release(vmm, start, end, nvsvm_mirror_release, svmm,
			      &freed)) {
		gp100_invalidate(svmm->ndev, nvsvm_vmm_pdb(vmm));
		nvsvm_vmm_free_tables(vmm, &freed);
	}
}

/*
 * Which events need the GPU mappings gone, and why the others do not:
 *  - MMU_NOTIFY_EXCLUSIVE for this device: it is this device taking
 *    exclusive access, after which it maps the page itself.
 * Everything else (unmap, clear, protection changes, soft-dirty, release,
 * migrations, this device's too: src/dmem.c relies on it to keep the GPU
 * off pages being copied, for every area of the mm) may remove or
 * downgrade what the CPU maps, so the GPU loses it too.
 */
static bool nvsvm_mirror_event_ignored(struct nvsvm_svmm *svmm,
				       const struct mmu_notifier_range *range)
{
	switch (range->event) {
	case MMU_NOTIFY_EXCLUSIVE:
		return range->owner == svmm->ndev;
	default:
		return false;
	}
}

static bool nvsvm_mirror_invalidate(struct mmu_interval_notifier *mni,
				    const struct mmu_notifier_range *range,
				    unsigned long cur_seq)
{
	struct nvsvm_svmm *svmm = nvsvm_notifier_svmm(mni);
	u64 start = max_t(u64, range->start, mni->interval_tree.start);
	u64 end = min_t(u64, range->end, mni->interval_tree.last + 1);

	if (nvsvm_mirror_event_ignored(svmm, range))
		return true;
	if (mmu_notifier_range_blockable(range))
		mutex_lock(&svmm->mutex);
	else if (!mutex_trylock(&svmm->mutex))
		return false;
	mmu_interval_set_seq(mni, cur_seq);
	nvsvm_mirror_unmap_locked(svmm, start, end);
	mutex_unlock(&svmm->mutex);
	return true;
}

static const struct mmu_interval_notifier_ops nvsvm_mirror_ops = {
	.invalidate = nvsvm_mirror_invalidate,
};

/**
 * nvsvm_mirror_init() - start mirroring an area's address space
 * @svmm: area with its window and limit set
 *
 * Return: 0 or an errno from the notifier registration.
 */
int nvsvm_mirror_init(struct nvsvm_svmm *svmm)
{
	const u64 start[2] = { 0, svmm->unmanaged_end };
	const u64 end[2] = { svmm->unmanaged_start, svmm->limit };
	int i, ret;

	for (i = 0; i < 2; i++) {
		struct nvsvm_mirror_notifier *n = &svmm->notifier[i];

		n->svmm = svmm;
		if (start[i] >= end[i])
			continue;
		ret = mmu_interval_notifier_insert(&n->mni, svmm->mm, start[i],
						   end[i] - start[i],
						   &nvsvm_mirror_ops);
		if (ret)
			goto err_remove;
		n->inserted = true;
	}
	return 0;

err_remove:
	nvsvm_mirror_fini(svmm);
	return ret;
}

/**
 * nvsvm_mirror_fini() - stop mirroring
 * @svmm: area, marked dead
 *
 * Waits for invalidations in progress.
 */
void nvsvm_mirror_fini(struct nvsvm_svmm *svmm)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (svmm->notifier[i].inserted)
			mmu_interval_notifier_remove(&svmm->notifier[i].mni);
		svmm->notifier[i].inserted = false;
	}
}

/* The notifier that covers [start, end), which must not cross the window. */
static struct mmu_interval_notifier *
nvsvm_mirror_notifier(struct nvsvm_svmm *svmm, u64 start)
{
	return &svmm->notifier[start >= svmm->unmanaged_end].mni;
}

struct nvsvm_map_ctx {
	struct nvsvm_svmm *svmm;
	struct nvsvm_range_req *req;
	int err;
};

static u64 nvsvm_mirror_pte(void *priv, u64 addr, unsigned int shift,
			    u64 old)
{
	struct nvsvm_map_ctx *ctx = priv;
	struct nvsvm_range_req *req = ctx->req;
	struct nvsvm_svmm *svmm = ctx->svmm;
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;
	unsigned long hpfn = req->pfns[(addr - req->start) >> PAGE_SHIFT];
	u32 flags = NVSVM_PTE_VALID;
	dma_addr_t dma;
	u64 new, vram;

	/* GPU atomics on system memory follow write permission. */
	if (hpfn & HMM_PFN_WRITE)
		flags |= NVSVM_PTE_WRITE | NVSVM_PTE_ATOMIC;

	if (desc->pte_flags(old) & NVSVM_PTE_VALID) {
		/* Same page (the invariant above); only permissions change. */
		new = desc->pte(desc->pte_addr(old),
				flags | (desc->pte_flags(old) & NVSVM_PTE_VRAM));
		req->changed |= new != old;
		req->mapped += 1UL << (shift - PAGE_SHIFT);
		return new;
	}

	if (nvsvm_dmem_vram(svmm->ndev, hpfn, &vram)) {
		/* A device-private page: the VRAM aperture. */
		dma = vram;
		flags |= NVSVM_PTE_VRAM;
	} else {
		dma = dma_map_page(svmm->ndev->gpu->dev, hmm_pfn_to_page(hpfn),
				   0, 1UL << shift, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(svmm->ndev->gpu->dev, dma)) {
			ctx->err = -ENOMEM;
			return old;
		}
	}
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_PAGES_MAPPED,
		       1L << (shift - PAGE_SHIFT));
	req->mapped += 1UL << (shift - PAGE_SHIFT);
	return desc->pte(dma, flags);
}

/* Write the PTEs of every valid pfn of @req; svmm->mutex held. */
static int nvsvm_mirror_write(struct nvsvm_svmm *svmm,
			      struct nvsvm_range_req *req)
{
	unsigned long npages = (req->end - req->start) >> PAGE_SHIFT;
	struct nvsvm_map_ctx ctx = { .svmm = svmm, .req = req };
	unsigned long i = 0, j;
	int ret;

	while (i < npages) {
		if (!(req->pfns[i] & HMM_PFN_VALID)) {
			i++;
			continue;
		}
		for (j = i + 1; j < npages; j++)
			if (!(req->pfns[j] & HMM_PFN_VALID))
				break;
		ret = nvsvm_vmm_map(&svmm->vmm,
				    req->start + ((u64)i << PAGE_SHIFT),
				    req->start + ((u64)j << PAGE_SHIFT),
				    PAGE_SHIFT, nvsvm_mirror_pte, &ctx,
				    &req->mapped);
		if (ret)
			return ret;
		if (ctx.err)
			return ctx.err;
		i = j;
	}
	return 0;
}

/**
 * nvsvm_mirror_range() - fault in and map one range
 * @svmm: area; the caller holds @svmm->use for read, checked it is not
 *	dead, and holds a reference on the mm's users
 * @req: the range (inside one leaf table's span, not crossing the
 *	unmanaged window) and what to ask of each page
 *
 * Return: 0, or -EFAULT/-EPERM from hmm_range_fault() when a page asked
 * for could not be had, -EBUSY when the range kept changing, -ENOMEM.
 */
int nvsvm_mirror_range(struct nvsvm_svmm *svmm, struct nvsvm_range_req *req)
{
	unsigned long timeout = jiffies +
				msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	unsigned long npages = (req->end - req->start) >> PAGE_SHIFT;
	struct hmm_range range = {
		.notifier = nvsvm_mirror_notifier(svmm, req->start),
		.start = req->start,
		.end = req->end,
		.hmm_pfns = req->pfns,
		.default_flags = req->default_flags,
		.pfn_flags_mask = req->req ? HMM_PFN_REQ_FAULT |
					     HMM_PFN_REQ_WRITE : 0,
		.dev_private_owner = svmm->ndev,
	};
	unsigned long i;
	int ret;

	req->changed = false;
	for (;;) {
		if (time_after(jiffies, timeout))
			return -EBUSY;
		ret = nvsvm_vmm_reserve(&svmm->vmm, req->start, req->end);
		if (ret)
			return ret;
		for (i = 0; i < npages; i++)
			req->pfns[i] = req->req ? req->req[i] : 0;

		range.notifier_seq = mmu_interval_read_begin(range.notifier);
		mmap_read_lock(svmm->mm);
		ret = hmm_range_fault(&range);
		if (!ret)
			ret = nvsvm_dmem_hmm_fixup(svmm->ndev, &range, req->req);
		mmap_read_unlock(svmm->mm);
		if (ret == -EBUSY)
			continue;
		if (ret)
			return ret;

		mutex_lock(&svmm->mutex);
		if (mmu_interval_read_retry(range.notifier,
					    range.notifier_seq)) {
			mutex_unlock(&svmm->mutex);
			continue;
		}
		req->mapped = 0;
		ret = nvsvm_mirror_write(svmm, req);
		mutex_unlock(&svmm->mutex);
		if (ret != -ENOMEM)
			return ret;
	}
}

/**
 * nvsvm_mirror_map() - the MAP ioctl: map [start, end) in leaf-table chunks
 * @svmm: area; the range is mirrored (checked by the caller)
 * @start: first address
 * @end: end (exclusive)
 * @flags: NVSVM_MAP_*
 * @mapped: pages valid on the GPU afterwards
 *
 * Return: 0, -EFAULT (a page could not be faulted in), -EINTR, -ENOMEM,
 * -EBUSY, or -EINVAL when the area was torn down meanwhile.
 */
long nvsvm_mirror_map(struct nvsvm_svmm *svmm, u64 start, u64 end,
		      u32 flags, u64 *mapped)
{
	struct nvsvm_range_req req = { };
	u64 addr = start;
	long ret = 0;

	req.pfns = kmalloc_array(NVSVM_RANGE_MAX_PAGES, sizeof(*req.pfns),
				 GFP_KERNEL);
	if (!req.pfns)
		return -ENOMEM;
	if (flags & NVSVM_MAP_FAULT) {
		req.default_flags = HMM_PFN_REQ_FAULT;
		if (flags & NVSVM_MAP_WRITE)
			req.default_flags |= HMM_PFN_REQ_WRITE;
	}

	*mapped = 0;
	down_read(&svmm->use);
	while (addr < end && !svmm->dead) {
		u64 next = min(ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) +
			       NVSVM_RANGE_MAX_BYTES, end);
		bool changed;

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		req.start = addr;
		req.end = next;
		ret = nvsvm_mirror_range(svmm, &req);
		if (ret == -EPERM)
			ret = -EFAULT;
		if (ret)
			break;
		changed = req.changed;
		if (changed)
			gp100_invalidate(svmm->ndev, nvsvm_vmm_pdb(&svmm->vmm));
		*mapped += req.mapped;
		addr = next;
	}
	if (svmm->dead)
		ret = -EINVAL;
	up_read(&svmm->use);
	kfree(req.pfns);
	return ret;
}
