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
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/hmm.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "nvsvm_core.h"
#include "nvsvm_dmem.h"
#include "nvsvm_gp100.h"
#include "nvsvm_mirror.h"
#include "nvsvm_prefetch.h"
#include "nvsvm_snapshot.h"
#include "nvsvm_test.h"
#include "nvsvm_thrash.h"
#include "nvsvm_vmm.h"

static struct nvsvm_svmm *nvsvm_notifier_svmm(struct mmu_interval_notifier *mni)
{
	return container_of(mni, struct nvsvm_mirror_notifier, mni)->svmm;
}

/* What one nvsvm_mirror_unmap() releases; pages_mapped goes down once. */
struct nvsvm_mirror_release_ctx {
	struct nvsvm_svmm *svmm;
	long pages;
};

/**
 * nvsvm_mirror_is_zero() - does a GPU PTE map the CPU's zero page?
 * @svmm: the area whose tables hold @pte
 * @pte: a leaf entry
 * @shift: its page shift
 *
 * Every 4 KiB PTE of the zero page holds the device's one DMA mapping of
 * it (&nvsvm_device.zero_dma), which no other page's mapping shares.
 *
 * Return: true for a valid system-memory 4 KiB PTE of the zero page.
 */
bool nvsvm_mirror_is_zero(struct nvsvm_svmm *svmm, u64 pte,
			  unsigned int shift)
{
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;
	u32 flags = desc->pte_flags(pte);

	return shift == PAGE_SHIFT && svmm->ndev->zero_dma != DMA_MAPPING_ERROR &&
	       (flags & (NVSVM_PTE_VALID | NVSVM_PTE_VRAM)) == NVSVM_PTE_VALID &&
	       desc->pte_addr(pte) == svmm->ndev->zero_dma;
}

static void nvsvm_mirror_release(void *priv, u64 pte, unsigned int shift)
{
	struct nvsvm_mirror_release_ctx *ctx = priv;
	struct nvsvm_svmm *svmm = ctx->svmm;
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;

	if (!(desc->pte_flags(pte) & NVSVM_PTE_VRAM) &&
	    !nvsvm_mirror_is_zero(svmm, pte, shift))
		dma_unmap_page(svmm->ndev->gpu->dev, desc->pte_addr(pte),
			       1UL << shift, DMA_BIDIRECTIONAL);
	ctx->pages += 1L << (shift - PAGE_SHIFT);
}

/*
 * Huge ranges are removed in chunks of one leaf table's span, at most 512
 * PTEs each, with a reschedule between them when the caller may sleep:
 * the teardown of a huge mirror must not hold the CPU for seconds. The
 * mutex stays held throughout, so nobody sees the tables half done.
 */
#define NVSVM_UNMAP_CHUNK	NVSVM_RANGE_MAX_BYTES

static u64 nvsvm_mirror_chunk(struct nvsvm_vmm *vmm, u64 addr, u64 end,
			      u64 *next)
{
	addr = nvsvm_vmm_next_used(vmm, addr, end, ilog2(NVSVM_UNMAP_CHUNK));
	*next = min_t(u64, ALIGN_DOWN(addr, NVSVM_UNMAP_CHUNK) +
			   NVSVM_UNMAP_CHUNK, end);
	return addr;
}

/**
 * nvsvm_mirror_invalidate_tlb() - make the GPU see changed valid PTEs
 * @svmm: area
 *
 * Invalidates the GPU TLB for the area's page directory. New PTEs need
 * none (the TLB never caches a missing translation); a valid PTE that
 * changed, or one cleared, does.
 */
void nvsvm_mirror_invalidate_tlb(struct nvsvm_svmm *svmm)
{
	gp100_invalidate(svmm->ndev, nvsvm_vmm_pdb(&svmm->vmm));
}

static void nvsvm_mirror_unmap(struct nvsvm_svmm *svmm, u64 start, u64 end,
			       bool resched)
{
	struct nvsvm_mirror_release_ctx ctx = { .svmm = svmm };
	struct nvsvm_vmm *vmm = &svmm->vmm;
	LIST_HEAD(detached);
	bool valid = false;
	LIST_HEAD(unlinked);
	LIST_HEAD(freed);
	u64 addr, next;

	lockdep_assert_held(&svmm->mutex);
	for (addr = nvsvm_mirror_chunk(vmm, start, end, &next); addr < end;
	     addr = nvsvm_mirror_chunk(vmm, next, end, &next)) {
		valid |= nvsvm_vmm_invalidate(vmm, addr, next, start, end,
					      &detached);
		if (resched)
			cond_resched();
	}
	if (valid)
		nvsvm_mirror_invalidate_tlb(svmm);
	/* Unreachable for the GPU now: theirs and the tables below go. */
	nvsvm_vmm_release_detached(vmm, &detached, nvsvm_mirror_release, &ctx,
				   &freed, resched);
	for (addr = nvsvm_mirror_chunk(vmm, start, end, &next); addr < end;
	     addr = nvsvm_mirror_chunk(vmm, next, end, &next)) {
		nvsvm_vmm_release(vmm, addr, next, nvsvm_mirror_release, &ctx,
				  &unlinked);
		if (resched)
			cond_resched();
	}
	if (ctx.pages)
		nvsvm_stat_add(svmm->ndev, NVSVM_STAT_PAGES_MAPPED, -ctx.pages);
	/* Emptied after the invalidate: the GPU may have cached them since. */
	if (!list_empty(&unlinked)) {
		nvsvm_mirror_invalidate_tlb(svmm);
		list_splice_tail_init(&unlinked, &freed);
	}
	nvsvm_vmm_free_tables(vmm, &freed, resched);
}

/**
 * nvsvm_mirror_unmap_locked() - remove [start, end) from the GPU
 * @svmm: area, with @svmm->mutex held
 * @start: first address
 * @end: end (exclusive)
 *
 * Clears the PTEs and unlinks the tables that hold nothing outside the
 * range, invalidates the TLB if one was valid or a table went, then
 * releases the pages' DMA mappings and frees those tables. A table that
 * became empty only in the release (none, as the walks go) is freed after
 * a second invalidate, for the directory caches. May sleep: a huge range
 * goes in chunks, with cond_resched() between them.
 */
void nvsvm_mirror_unmap_locked(struct nvsvm_svmm *svmm, u64 start, u64 end)
{
	lockdep_assert_held(&svmm->mutex);
	nvsvm_mirror_unmap(svmm, start, end, true);
}

/*
 * The timeslice of an exclusive take: the CPU takes a page back at its
 * first access, within microseconds, while the GPU's replayed atomic comes
 * when its SM issues it again, which may be much later. A CPU thread that
 * keeps touching the page would take it back before every retry, and the
 * GPU would never complete an atomic there. So a CPU access that takes the
 * page back within atomic_timeslice_us of the take waits until the
 * timeslice is over (nvsvm_mirror_takeback_wait()): the GPU's atomics on
 * the page go on meanwhile. As Xe's atomic_svm_timeslice_ms (5 ms).
 */
#define NVSVM_ATOMIC_TIMESLICE_MAX_US	100000
static unsigned int atomic_timeslice_us = 5000;
module_param(atomic_timeslice_us, uint, 0644);
MODULE_PARM_DESC(atomic_timeslice_us,
		 "how long a page taken for a GPU atomic stays the GPU's before a CPU access takes it back (0-100000, default 5000; 0: at once)");

/* Now, in the microseconds the takes' deadlines are kept in. */
static u64 nvsvm_mirror_now_us(void)
{
	return div_u64(ktime_get_ns(), NSEC_PER_USEC);
}

/**
 * nvsvm_mirror_atomic_taken() - a page taken for a GPU atomic is mapped
 * @svmm: area
 * @addr: page address
 *
 * Its timeslice starts (atomic_timeslice_us, above). Called with the page
 * still locked, so that no CPU access can take it back before its
 * deadline is recorded. A record that cannot be allocated only costs the
 * take its timeslice.
 */
void nvsvm_mirror_atomic_taken(struct nvsvm_svmm *svmm, u64 addr)
{
	unsigned int slice = min_t(unsigned int,
				   READ_ONCE(atomic_timeslice_us),
				   NVSVM_ATOMIC_TIMESLICE_MAX_US);

	if (slice)
		xa_store(&svmm->takes, addr >> PAGE_SHIFT,
			 xa_mk_value(nvsvm_mirror_now_us() + slice),
			 GFP_KERNEL_ACCOUNT);
}

/*
 * Can @range be a CPU access taking an exclusive page back? It is one
 * page, and an MMU_NOTIFY_EXCLUSIVE event without our owner (a CPU fault
 * restoring the PTE, or another device's take: 6.1, 6.12) or an
 * MMU_NOTIFY_CLEAR (the restore raises that in 7.3; so do reclaim and
 * zap of one page, which then wait too).
 */
static bool nvsvm_mirror_takeback(struct nvsvm_svmm *svmm,
				  const struct mmu_notifier_range *range)
{
	if (!mmu_notifier_range_blockable(range) ||
	    range->end - range->start != PAGE_SIZE)
		return false;
	return range->event == MMU_NOTIFY_CLEAR ||
	       (range->event == MMU_NOTIFY_EXCLUSIVE &&
		range->owner != svmm->ndev);
}

/*
 * A take's timeslice runs out, for @range, an event nvsvm does not ignore:
 * where @range may be a CPU access taking back a page that was taken for
 * a GPU atomic less than atomic_timeslice_us ago, sleeps until the
 * timeslice is over (counted in atomic_takeback_waits first), before the
 * notifier removes the GPU mapping. The GPU makes progress on the page
 * however hard the CPU hammers it: a CPU access is delayed by at most
 * NVSVM_ATOMIC_TIMESLICE_MAX_US. Only for events that may sleep, without
 * a lock held; not in a dead area.
 */
static void nvsvm_mirror_takeback_wait(struct nvsvm_svmm *svmm,
				       const struct mmu_notifier_range *range)
{
	void *entry;
	u64 now;

	if (!nvsvm_mirror_takeback(svmm, range) || READ_ONCE(svmm->dead))
		return;
	entry = xa_load(&svmm->takes, range->start >> PAGE_SHIFT);
	if (!xa_is_value(entry))
		return;
	now = nvsvm_mirror_now_us();
	if (xa_to_value(entry) <= now)
		return;
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_ATOMIC_TAKEBACK_WAITS, 1);
	fsleep(min_t(u64, xa_to_value(entry) - now,
		     NVSVM_ATOMIC_TIMESLICE_MAX_US));
}

/*
 * The GPU mappings of [@start, @end) are going: the timeslices of the
 * takes there end; whatever takes a page there again starts a new one.
 * Does not sleep.
 */
static void nvsvm_mirror_forget_takes(struct nvsvm_svmm *svmm, u64 start,
				      u64 end)
{
	unsigned long idx;
	void *entry;

	xa_for_each_range(&svmm->takes, idx, entry, start >> PAGE_SHIFT,
			  (end - 1) >> PAGE_SHIFT)
		xa_erase(&svmm->takes, idx);
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
	if (range->event == MMU_NOTIFY_UNMAP)
		nvsvm_thrash_forget(&svmm->blocks, start, end);
	/* A CPU access waits out the timeslice of a GPU atomic's take. */
	nvsvm_mirror_takeback_wait(svmm, range);
	nvsvm_mirror_forget_takes(svmm, start, end);
	atomic_inc(&svmm->changes);
	if (mmu_notifier_range_blockable(range))
		mutex_lock(&svmm->mutex);
	else if (!mutex_trylock(&svmm->mutex))
		return false;
	mmu_interval_set_seq(mni, cur_seq);
	/* Not blockable (the OOM reaper): one go, without sleeping. */
	nvsvm_mirror_unmap(svmm, start, end,
			   mmu_notifier_range_blockable(range));
	mutex_unlock(&svmm->mutex);
	return true;
}

static const struct mmu_interval_notifier_ops nvsvm_mirror_ops = {
	.invalidate = nvsvm_mirror_invalidate,
};

/**
 * nvsvm_mirror_valid() - which pages of a 2 MiB block are valid on the GPU
 * @svmm: area
 * @block: address of the block, NVSVM_RANGE_MAX_BYTES aligned
 * @valid: bitmap of NVSVM_RANGE_MAX_PAGES bits, written whole: bit i is
 *	set when a valid PTE of any size maps @block + i pages
 *
 * A snapshot under @svmm->mutex, for a policy such as the fault path's
 * prefetch: a page may become valid or invalid right after.
 */
void nvsvm_mirror_valid(struct nvsvm_svmm *svmm, u64 block,
			unsigned long *valid)
{
	bitmap_zero(valid, NVSVM_RANGE_MAX_PAGES);
	mutex_lock(&svmm->mutex);
	nvsvm_vmm_valid(&svmm->vmm, block, NVSVM_RANGE_MAX_PAGES, valid);
	mutex_unlock(&svmm->mutex);
}

/**
 * nvsvm_mirror_bounds() - how far a range may grow
 * @svmm: area; the caller holds a reference on the mm's users
 * @start: first address of the range, mirrored
 * @end: its end (exclusive), on the same side of the unmanaged window
 * @lo: (in/out) start of the grown range, at or below @start
 * @hi: (in/out) end of the grown range, at or above @end
 *
 * Shrinks [*@lo, *@hi) to what nvsvm_mirror_range() may serve together
 * with [@start, @end): the mirrored part on the range's side of the
 * unmanaged window (one notifier covers it, the one nvsvm_mirror_range()
 * picks for the start; nothing is mapped in the window, where no notifier
 * would unmap it), below the limit, and inside the readable VMAs that hold
 * @start and @end - 1 (where one of those is missing or not readable, that
 * side does not grow). Takes the mmap lock for read.
 */
void nvsvm_mirror_bounds(struct nvsvm_svmm *svmm, u64 start, u64 end,
			 u64 *lo, u64 *hi)
{
	struct vm_area_struct *vma;

	if (start >= svmm->unmanaged_end)
		*lo = max_t(u64, *lo, svmm->unmanaged_end);
	else
		*hi = min_t(u64, *hi, svmm->unmanaged_start);
	*hi = min_t(u64, *hi, svmm->limit);

	mmap_read_lock(svmm->mm);
	vma = vma_lookup(svmm->mm, start);
	*lo = vma && (vma->vm_flags & VM_READ) ?
	      max_t(u64, *lo, vma->vm_start) : start;
	vma = vma_lookup(svmm->mm, end - 1);
	*hi = vma && (vma->vm_flags & VM_READ) ?
	      min_t(u64, *hi, vma->vm_end) : end;
	mmap_read_unlock(svmm->mm);
}

/**
 * nvsvm_mirror_init() - start mirroring an area's address space
 * @svmm: area with its window and limit set
 *
 * The mirror holds its own reference on the mm (mmgrab()) for its
 * notifiers, dropped by nvsvm_mirror_fini().
 *
 * Return: 0 or an errno from the notifier registration (then nothing is
 * left to undo).
 */
int nvsvm_mirror_init(struct nvsvm_svmm *svmm)
{
	const u64 start[2] = { 0, svmm->unmanaged_end };
	const u64 end[2] = { svmm->unmanaged_start, svmm->limit };
	int i, ret;

	mmgrab(svmm->mm);
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
 * @svmm: area, marked dead, whose nvsvm_mirror_init() succeeded; once
 *
 * Waits for invalidations in progress, then drops the mirror's reference
 * on the mm.
 */
void nvsvm_mirror_fini(struct nvsvm_svmm *svmm)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (svmm->notifier[i].inserted)
			mmu_interval_notifier_remove(&svmm->notifier[i].mni);
		svmm->notifier[i].inserted = false;
	}
	mmdrop(svmm->mm);
}

/**
 * nvsvm_mirror_notifier() - the interval notifier of a range
 * @svmm: area
 * @start: first address of a mirrored range, which must not cross the
 *	unmanaged window
 *
 * Return: the notifier that covers the range: the one whose sequence a
 * snapshot of it reads and checks.
 */
struct mmu_interval_notifier *nvsvm_mirror_notifier(struct nvsvm_svmm *svmm,
						    u64 start)
{
	return &svmm->notifier[start >= svmm->unmanaged_end].mni;
}

struct nvsvm_map_ctx {
	struct nvsvm_svmm *svmm;
	struct nvsvm_range_req *req;
	bool atomic;
	int err;
};

/* Index of @addr in @req's pfns and req arrays. */
static unsigned long nvsvm_req_idx(const struct nvsvm_range_req *req, u64 addr)
{
	return (addr - req->base) >> PAGE_SHIFT;
}

/**
 * nvsvm_mirror_exclusive_atomics() - how GPU atomics on system memory work
 *
 * A GPU atomic on system memory is exact against the CPU only where the
 * link makes it so (gpu->host_atomics) or where the CPU cannot touch the
 * page meanwhile. Where the kernel has make_device_exclusive()
 * (NVSVM_HAVE_DEVICE_EXCLUSIVE, include/nvsvm_compat.h), pages are mapped
 * with atomics disabled, and an atomic fault takes the page for exclusive
 * device access and maps it with atomics enabled until the CPU touches it
 * again (nvsvm_mirror_atomic()). Without it (Debian's stock kernels), atomics
 * follow write permission where the link is coherent for atomics, and
 * are refused (cancelled) on PCIe.
 *
 * Return: true in the exclusive-access mode.
 */
bool nvsvm_mirror_exclusive_atomics(void)
{
	return NVSVM_HAVE_DEVICE_EXCLUSIVE;
}

/**
 * nvsvm_mirror_atomics_follow() - do GPU atomics follow write permission?
 * @ndev: the device
 *
 * Return: true when every writable system-memory page is mapped with
 * atomics enabled: the link is coherent for atomics and there is no
 * exclusive access to take.
 */
bool nvsvm_mirror_atomics_follow(struct nvsvm_device *ndev)
{
	return ndev->gpu->host_atomics && !nvsvm_mirror_exclusive_atomics();
}

/*
 * The PTE flags for a page hmm returned; @atomic: enable atomics on it
 * (exclusive access held, or atomics follow write permission: see
 * nvsvm_mirror_atomic()).
 */
static u32 nvsvm_mirror_flags(unsigned long hpfn, bool atomic)
{
	u32 flags = NVSVM_PTE_VALID;

	if (hpfn & HMM_PFN_WRITE) {
		flags |= NVSVM_PTE_WRITE;
		if (atomic)
			flags |= NVSVM_PTE_ATOMIC;
	}
	return flags;
}

/*
 * The GPU page size for the run of @n valid pages of @req at @addr, at most
 * 1 << @max bytes: 2 MiB where the CPU maps the aligned block with a PMD,
 * 64 KiB where 16 pages at a 64 KiB-aligned address are physically
 * contiguous and aligned with the same permissions, 4 KiB otherwise.
 * Comparing hmm pfns whole compares the pfn and every flag at once.
 */
static unsigned int nvsvm_mirror_shift(const struct nvsvm_range_req *req,
				       u64 addr, unsigned long n,
				       unsigned int max)
{
	static const unsigned int shifts[] = { 21, 16 };
	const unsigned long *pfns = &req->pfns[nvsvm_req_idx(req, addr)];
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(shifts); k++) {
		unsigned int shift = shifts[k];
		unsigned long i, cnt = 1UL << (shift - PAGE_SHIFT);

		if (shift > max || cnt > n || !IS_ALIGNED(addr, 1UL << shift))
			continue;
		if (shift == 21 &&
		    hmm_pfn_to_map_order(pfns[0]) < shift - PAGE_SHIFT)
			continue;
		if (!IS_ALIGNED(page_to_pfn(hmm_pfn_to_page(pfns[0])), cnt))
			continue;
		for (i = 1; i < cnt; i++)
			if (pfns[i] != pfns[0] + i)
				break;
		if (i == cnt)
			return shift;
	}
	return PAGE_SHIFT;
}

/*
 * A new PTE for the 1 << @shift bytes from the page of @hpfn (an hmm pfn,
 * or a bare pfn), with @flags: its DMA mapping, or its VRAM address for a
 * device-private page of ours. 0 with *@err set when it cannot be had:
 * -ENOMEM, or -EEXIST when the address is not aligned to the page size.
 */
static u64 nvsvm_mirror_new_pte(struct nvsvm_svmm *svmm, unsigned long hpfn,
				unsigned int shift, u32 flags, int *err)
{
	struct device *dev = svmm->ndev->gpu->dev;
	dma_addr_t dma;
	u64 vram;

	if (nvsvm_dmem_vram(svmm->ndev, hpfn, &vram)) {
		/* A device-private page: the VRAM aperture, exact atomics. */
		dma = vram;
		flags |= NVSVM_PTE_VRAM;
		if (flags & NVSVM_PTE_WRITE)
			flags |= NVSVM_PTE_ATOMIC;
	} else if (shift == PAGE_SHIFT &&
		   svmm->ndev->zero_dma != DMA_MAPPING_ERROR &&
		   is_zero_pfn(page_to_pfn(hmm_pfn_to_page(hpfn)))) {
		/* Read-only: a write fault would have replaced it (COW). */
		dma = svmm->ndev->zero_dma;
	} else {
		dma = dma_map_page(dev, hmm_pfn_to_page(hpfn), 0, 1UL << shift,
				   DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, dma)) {
			*err = -ENOMEM;
			return 0;
		}
	}
	if (!IS_ALIGNED(dma, 1UL << shift)) {
		/* An IOMMU (or VRAM) that did not keep the alignment. */
		if (!(flags & NVSVM_PTE_VRAM))
			dma_unmap_page(dev, dma, 1UL << shift,
				       DMA_BIDIRECTIONAL);
		*err = -EEXIST;
		return 0;
	}
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_PAGES_MAPPED,
		       1L << (shift - PAGE_SHIFT));
	return svmm->vmm.desc->pte(dma, flags);
}

static u64 nvsvm_mirror_pte(void *priv, u64 addr, unsigned int shift,
			    u64 old)
{
	struct nvsvm_map_ctx *ctx = priv;
	struct nvsvm_range_req *req = ctx->req;
	struct nvsvm_svmm *svmm = ctx->svmm;
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;
	unsigned long hpfn = req->pfns[nvsvm_req_idx(req, addr)];
	u32 flags = nvsvm_mirror_flags(hpfn, ctx->atomic);
	u64 new;

	if (desc->pte_flags(old) & NVSVM_PTE_VALID) {
		/*
		 * Same page (the invariant above); only permissions change.
		 * Atomics granted before stay while the page is writable: a
		 * page held exclusively would have come back from hmm only
		 * after its restore had removed this PTE.
		 */
		if ((desc->pte_flags(old) & (NVSVM_PTE_ATOMIC | NVSVM_PTE_VRAM)) &&
		    (flags & NVSVM_PTE_WRITE))
			flags |= NVSVM_PTE_ATOMIC;
		new = desc->pte(desc->pte_addr(old),
				flags | (desc->pte_flags(old) & NVSVM_PTE_VRAM));
		req->changed |= new != old;
		req->mapped += 1UL << (shift - PAGE_SHIFT);
		return new;
	}

	new = nvsvm_mirror_new_pte(svmm, hpfn, shift, flags, &ctx->err);
	if (!new)
		return old;
	req->mapped += 1UL << (shift - PAGE_SHIFT);
	return new;
}

/*
 * The pages of a large PTE that nvsvm_mirror_split() removed, mapped again
 * as they were: same pages (@pfn is the first), same @flags.
 */
struct nvsvm_keep_ctx {
	struct nvsvm_svmm *svmm;
	u64 base;
	unsigned long pfn;
	u32 flags;
	int err;
};

static u64 nvsvm_mirror_keep_pte(void *priv, u64 addr, unsigned int shift,
				 u64 old)
{
	struct nvsvm_keep_ctx *k = priv;
	u64 new;

	if (k->svmm->vmm.desc->pte_flags(old) & NVSVM_PTE_VALID)
		return old;
	new = nvsvm_mirror_new_pte(k->svmm,
				   k->pfn + ((addr - k->base) >> PAGE_SHIFT),
				   shift, k->flags, &k->err);
	return new ?: old;
}

/* Map [addr, end) of @k again: 64 KiB pages where they fit and @big. */
static int nvsvm_mirror_keep(struct nvsvm_keep_ctx *k, u64 addr, u64 end,
			     bool big)
{
	u64 shadowed = 0;
	int ret;

	while (addr < end) {
		unsigned int shift = PAGE_SHIFT;
		u64 next = min(end, ALIGN_DOWN(addr, SZ_64K) + SZ_64K);

		if (big && IS_ALIGNED(addr, SZ_64K) && next == addr + SZ_64K)
			shift = 16;
		k->err = 0;
		ret = nvsvm_vmm_map(&k->svmm->vmm, addr, next, shift,
				    nvsvm_mirror_keep_pte, k, &shadowed);
		if (!ret)
			ret = k->err;
		if (ret == -EEXIST && shift > PAGE_SHIFT) {
			/* Not aligned for the GPU: 4 KiB pages here. */
			k->err = 0;
			ret = nvsvm_vmm_map(&k->svmm->vmm, addr, next,
					    PAGE_SHIFT, nvsvm_mirror_keep_pte,
					    k, &shadowed);
			if (!ret)
				ret = k->err;
		}
		if (ret)
			return ret;
		addr = next;
	}
	return 0;
}

/*
 * Pages of 1 << @shift bytes at [addr, next) were found shadowed by a
 * valid larger PTE (the GPU walks no further). When any of them needs
 * other flags than it gives (a write or an atomic under a read-only
 * 64 KiB or 2 MiB page), it goes: cleared, TLB invalidated, its DMA
 * mapping released (nvsvm_mirror_unmap_locked()). Its other pages are
 * mapped again as they were, 4 KiB or 64 KiB: the same pages with the
 * same flags, which is still what the CPU maps with at least that
 * permission (any CPU change would have removed the large PTE first).
 * The caller then writes [addr, next) again.
 *
 * Return: 1 when the large PTE went, 0 when it maps the pages as asked,
 * or -ENOMEM (the pages not mapped again fault in later).
 */
static int nvsvm_mirror_split(struct nvsvm_map_ctx *ctx, u64 addr, u64 next,
			      unsigned int shift)
{
	struct nvsvm_svmm *svmm = ctx->svmm;
	struct nvsvm_range_req *req = ctx->req;
	struct nvsvm_keep_ctx k = { .svmm = svmm };
	unsigned long hpfn = req->pfns[nvsvm_req_idx(req, addr)];
	unsigned int lshift = PAGE_SHIFT;
	u64 pte, end, a;
	int ret;

	pte = nvsvm_vmm_lookup(&svmm->vmm, addr, &lshift);
	if (!pte || lshift <= shift)
		return 0;
	k.flags = svmm->vmm.desc->pte_flags(pte) &
		  (NVSVM_PTE_VALID | NVSVM_PTE_WRITE | NVSVM_PTE_ATOMIC);
	for (a = addr; a < next; a += PAGE_SIZE) {
		u32 flags = nvsvm_mirror_flags(req->pfns[nvsvm_req_idx(req, a)],
					       ctx->atomic);

		/* As nvsvm_mirror_pte() keeps atomics on a writable page. */
		if ((k.flags & NVSVM_PTE_ATOMIC) && (flags & NVSVM_PTE_WRITE))
			flags |= NVSVM_PTE_ATOMIC;
		if (flags != k.flags)
			break;
	}
	if (a == next)
		return 0;	/* Mapped as asked already. */

	k.base = ALIGN_DOWN(addr, 1ULL << lshift);
	end = k.base + (1ULL << lshift);
	k.pfn = page_to_pfn(hmm_pfn_to_page(hpfn)) -
		((addr - k.base) >> PAGE_SHIFT);
	nvsvm_mirror_unmap_locked(svmm, k.base, end);
	/* The large page was mapped from an aligned pfn (see the shift). */
	if (!IS_ALIGNED(k.pfn, 1UL << (lshift - PAGE_SHIFT)))
		return 1;
	ret = nvsvm_mirror_keep(&k, k.base, addr, lshift > 16);
	if (!ret)
		ret = nvsvm_mirror_keep(&k, next, end, lshift > 16);
	return ret ?: 1;
}

/*
 * Map the valid pfns of [addr, end) with pages of at most 1 << @max bytes;
 * a large page that meets smaller ones already there (-EEXIST) is mapped
 * with the next size down; small pages found under a valid large PTE that
 * gives them less than they need replace it (nvsvm_mirror_split()).
 */
static int nvsvm_mirror_write_span(struct nvsvm_map_ctx *ctx, u64 addr,
				   u64 end, unsigned int max)
{
	struct nvsvm_range_req *req = ctx->req;
	struct nvsvm_vmm *vmm = &ctx->svmm->vmm;
	int ret;

	while (addr < end) {
		unsigned long i = nvsvm_req_idx(req, addr), n;
		u64 stop = min(end, ALIGN_DOWN(addr, SZ_2M) + SZ_2M);
		u64 next, shadowed;
		unsigned int shift;

		if (!(req->pfns[i] & HMM_PFN_VALID)) {
			addr += PAGE_SIZE;
			continue;
		}
		/*
		 * Only a 2 MiB page needs the run counted to the block's end;
		 * anything else is written at most to the next 64 KiB
		 * boundary, so counting further would only be counted again.
		 */
		if (max < 21 || !IS_ALIGNED(addr, SZ_2M))
			stop = min(stop, ALIGN_DOWN(addr, SZ_64K) + SZ_64K);
		for (n = 1; addr + (n << PAGE_SHIFT) < stop; n++)
			if (!(req->pfns[i + n] & HMM_PFN_VALID))
				break;
		shift = nvsvm_mirror_shift(req, addr, n, max);
		if (shift > PAGE_SHIFT)
			next = addr + (1ULL << shift);
		else
			next = min(addr + (n << PAGE_SHIFT),
				   ALIGN_DOWN(addr, SZ_64K) + SZ_64K);
		shadowed = 0;
		ret = nvsvm_vmm_map(vmm, addr, next, shift, nvsvm_mirror_pte,
				    ctx, &shadowed);
		if (!ret && shadowed) {
			ret = nvsvm_mirror_split(ctx, addr, next, shift);
			if (ret > 0) {
				shadowed = 0;
				ret = nvsvm_vmm_map(vmm, addr, next, shift,
						    nvsvm_mirror_pte, ctx,
						    &shadowed);
			}
		}
		req->mapped += shadowed;
		if (!ret && ctx->err == -EEXIST) {
			ctx->err = 0;
			ret = -EEXIST;
		}
		if (ret == -EEXIST && shift > PAGE_SHIFT)
			ret = nvsvm_mirror_write_span(ctx, addr, next,
						      shift - 1);
		if (ret)
			return ret;
		if (ctx->err)
			return ctx->err;
		addr = next;
	}
	return 0;
}

/* Write the PTEs of every valid pfn of @req; svmm->mutex held. */
static int nvsvm_mirror_write(struct nvsvm_svmm *svmm,
			      struct nvsvm_range_req *req)
{
	struct nvsvm_map_ctx ctx = {
		.svmm = svmm,
		.req = req,
		.atomic = req->atomic ||
			  nvsvm_mirror_atomics_follow(svmm->ndev),
	};

	lockdep_assert_held(&svmm->mutex);
	return nvsvm_mirror_write_span(&ctx, req->start, req->end, 21);
}

/**
 * nvsvm_mirror_map_exclusive() - map a page held for exclusive access
 * @svmm: area, with @svmm->mutex held and not dead, its notifier's
 *	sequence checked since the page was taken
 * @addr: page address, where no valid PTE maps anything any more
 * @page: the page, locked, the CPU's PTE a device-exclusive entry
 * @changed: set when a TLB invalidate is due
 *
 * Writes the 4 KiB PTE of @page, writable, with atomics enabled
 * (src/atomic.c, nvsvm_mirror_atomic()).
 *
 * Return: 0, -ENOMEM, or -EEXIST when the DMA address is not aligned.
 */
int nvsvm_mirror_map_exclusive(struct nvsvm_svmm *svmm, u64 addr,
			       struct page *page, bool *changed)
{
	unsigned long hpfn = page_to_pfn(page) | HMM_PFN_VALID | HMM_PFN_WRITE;
	struct nvsvm_range_req req = {
		.start = addr,
		.end = addr + PAGE_SIZE,
		.base = addr,
		.pfns = &hpfn,
	};
	struct nvsvm_map_ctx ctx = { .svmm = svmm, .req = &req, .atomic = true };
	int ret;

	lockdep_assert_held(&svmm->mutex);
	ret = nvsvm_vmm_map(&svmm->vmm, addr, addr + PAGE_SIZE, PAGE_SHIFT,
			    nvsvm_mirror_pte, &ctx, &req.mapped);
	if (!ret)
		ret = ctx.err;
	*changed |= req.changed;
	return ret;
}

/*
 * A probe's snapshot (&nvsvm_range_req.probe) in @req->pfns: clear the
 * pfns of the pages asked to be faulted in that it did not find as asked,
 * so that they are not mapped: their faults are the caller's.
 */
static void nvsvm_mirror_probe_left(struct nvsvm_range_req *req)
{
	unsigned long i, last = nvsvm_req_idx(req, req->end);

	for (i = nvsvm_req_idx(req, req->start); i < last; i++) {
		unsigned long want = req->req ? req->req[i] : req->default_flags;

		if (((want & HMM_PFN_REQ_FAULT) &&
		     !(req->pfns[i] & HMM_PFN_VALID)) ||
		    ((want & HMM_PFN_REQ_WRITE) &&
		     !(req->pfns[i] & HMM_PFN_WRITE)))
			req->pfns[i] = 0;
	}
}

/**
 * nvsvm_mirror_range() - fault in and map one range
 * @svmm: area; the caller holds a reference on it and on the mm's users
 * @req: the range (inside one leaf table's span, not crossing the
 *	unmanaged window) and what to ask of each page
 *
 * Return: 0, or -EFAULT/-EPERM from hmm_range_fault() when a page asked
 * for could not be had, -EBUSY when the range kept changing or the area
 * is dead (nothing written), -ENOMEM.
 */
int nvsvm_mirror_range(struct nvsvm_svmm *svmm, struct nvsvm_range_req *req)
{
	unsigned long timeout = jiffies +
				msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	struct hmm_range range = {
		.notifier = nvsvm_mirror_notifier(svmm, req->start),
		.dev_private_owner = svmm->ndev,
	};
	unsigned long i, first, last;
	bool uffd, snap;
	u64 t0;
	int ret;

	req->changed = false;
	for (;;) {
		if (time_after(jiffies, timeout))
			return -EBUSY;
		ret = nvsvm_vmm_reserve(&svmm->vmm, req->start, req->end);
		if (ret)
			return ret;
		first = nvsvm_req_idx(req, req->start);
		last = nvsvm_req_idx(req, req->end);
		for (i = first; i < last; i++)
			req->pfns[i] = req->req ? req->req[i] : 0;
		range.start = req->start;
		range.end = req->end;
		range.hmm_pfns = &req->pfns[first];

		range.notifier_seq = mmu_interval_read_begin(range.notifier);
		t0 = local_clock();
		mmap_read_lock(svmm->mm);
		uffd = (req->req || req->fill ||
			req->default_flags & HMM_PFN_REQ_FAULT) &&
		       nvsvm_mirror_uffd(svmm->mm, req->start, req->end);
		snap = uffd || req->probe;
		range.default_flags = snap ? 0 : req->default_flags;
		range.pfn_flags_mask = snap || !req->req ? 0 :
				       HMM_PFN_REQ_FAULT | HMM_PFN_REQ_WRITE;
		ret = hmm_range_fault(&range);
		if (!ret && uffd && !req->probe)
			ret = nvsvm_mirror_uffd_check(req, first, last);
		else if (!ret && req->fill && !uffd && !req->probe)
			ret = nvsvm_mirror_fill(svmm->mm, req, &range, first,
						last);
		if (!ret)
			ret = nvsvm_dmem_hmm_fixup(svmm->ndev, &range,
						   req->req ? &req->req[first] :
						   NULL);
		mmap_read_unlock(svmm->mm);
		req->hmm_ns += nvsvm_ns_since(t0);
		if (ret == -EBUSY)
			continue;
		if (ret)
			return ret;
		if (nvsvm_prefetch_thp(req))
			continue;
		if (req->probe)
			nvsvm_mirror_probe_left(req);
		/* Nothing outside a test build (include/nvsvm_test.h). */
		timeout += nvsvm_test_park(svmm->mm, req->start, req->end);

		t0 = local_clock();
		mutex_lock(&svmm->mutex);
		if (svmm->dead) {
			mutex_unlock(&svmm->mutex);
			return -EBUSY;
		}
		if (mmu_interval_read_retry(range.notifier,
					    range.notifier_seq)) {
			mutex_unlock(&svmm->mutex);
			continue;
		}
		req->mapped = 0;
		ret = nvsvm_mirror_write(svmm, req);
		mutex_unlock(&svmm->mutex);
		req->pte_ns += nvsvm_ns_since(t0);
		if (ret != -ENOMEM)
			return ret;
	}
}

/*
 * Without NVSVM_MAP_FAULT nothing can be mapped where the CPU has no
 * readable VMA (hmm_range_fault() would only report holes there): return
 * the first address at or after @addr inside a readable VMA, or @end, so
 * that a huge sparse range costs one step per VMA instead of one per
 * 2 MiB. The caller is the owner of @mm (the ioctl runs in it).
 */
static u64 nvsvm_mirror_next_readable(struct mm_struct *mm, u64 addr, u64 end)
{
	VMA_ITERATOR(vmi, mm, addr);
	struct vm_area_struct *vma;
	u64 next = end;

	mmap_read_lock(mm);
	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_flags & VM_READ) {
			next = max_t(u64, addr, vma->vm_start);
			break;
		}
	}
	mmap_read_unlock(mm);
	return next;
}

/**
 * nvsvm_mirror_map() - the MAP ioctl: map [start, end) in leaf-table chunks
 * @svmm: area; the range is mirrored (checked by the caller)
 * @start: first address
 * @end: end (exclusive)
 * @flags: NVSVM_MAP_*
 * @mapped: pages valid on the GPU afterwards
 * @uffd: NULL, or where to record pages a userfaultfd handler must fill
 *	(then -EFAULT; the caller waits for them, without nvsvm's locks,
 *	and maps again: nvsvm_mirror_uffd_wait())
 *
 * Return: 0, -EFAULT (a page could not be faulted in), -EINTR, -ENOMEM,
 * -EBUSY, or -EINVAL when the area was torn down meanwhile.
 */
long nvsvm_mirror_map(struct nvsvm_svmm *svmm, u64 start, u64 end,
		      u32 flags, u64 *mapped, struct nvsvm_uffd_wait *uffd)
{
	struct nvsvm_range_req req = { .uffd = uffd };
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
	while (addr < end && !READ_ONCE(svmm->dead)) {
		u64 next;
		bool changed;

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
		if (!(flags & NVSVM_MAP_FAULT)) {
			addr = nvsvm_mirror_next_readable(svmm->mm, addr, end);
			if (addr >= end)
				break;
		}
		next = min(ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) +
			   NVSVM_RANGE_MAX_BYTES, end);
		req.start = addr;
		req.end = next;
		req.base = addr;
		ret = nvsvm_mirror_range(svmm, &req);
		if (ret == -EPERM)
			ret = -EFAULT;
		if (ret)
			break;
		changed = req.changed;
		if (changed)
			nvsvm_mirror_invalidate_tlb(svmm);
		*mapped += req.mapped;
		addr = next;
	}
	/* Torn down meanwhile (nvsvm_mirror_range() wrote nothing then). */
	if (READ_ONCE(svmm->dead))
		ret = -EINVAL;
	kfree(req.pfns);
	return ret;
}
