// SPDX-License-Identifier: GPL-2.0
/*
 * Device-private memory and page migration (nvsvm_dmem_migrate(); the
 * MIGRATE ioctl over it is in src/svmm.c, above the mirror).
 *
 * Where the kernel has CONFIG_DEVICE_PRIVATE, the provider's video memory
 * becomes ZONE_DEVICE pages of type MEMORY_DEVICE_PRIVATE (memremap_pages()
 * over a free physical range from request_free_mem_region(), owner = the
 * nvsvm device). The CPU cannot address them: a CPU page table holds a
 * device-private swap entry, and a CPU access calls ->migrate_to_ram(),
 * which copies the page back to system memory. HMM hands such pages to this
 * device's mirror as valid pfns (dev_private_owner = the device), and the
 * mirror maps them with the video-memory aperture (nvsvm_dmem_vram()).
 *
 * Every byte moves through the provider's ->copy() op: the core never
 * touches video memory. The core owns all of the provider's video memory;
 * it hands it out in 4 KiB pages from a bitmap. Offset 0 is never handed
 * out: an invalidated GPU PTE keeps its address and flags until released,
 * and the GP100 encoding of a writable, atomic video memory page at offset
 * 0 is all zeroes once VALID is cleared, which the page-table manager
 * would read as an empty entry (and leak the table).
 *
 * Lifetime. Device-private pages belong to the page tables of the
 * processes that hold them, not to a file: they outlive the file that
 * migrated them (the process keeps its data), and go when the process
 * unmaps them or exits (->page_free() returns the VRAM page). The device's
 * dmem state therefore lives from nvsvm_gpu_register() to
 * nvsvm_gpu_unregister(), which first migrates every page still in VRAM
 * back to system memory (migrate_device_range()), then waits for the last
 * page reference in memunmap_pages(). An area's fault work may outlive the
 * area's teardown (it may be in a page-in that never completes), so
 * unregister does not wait for it before this: what it reads of the dmem
 * state (nvsvm_dmem_hmm_fixup()) it reads under a reference on the pgmap,
 * which memunmap_pages() waits for (nvsvm_dmem_get()).
 *
 * GPU mappings. Every migration goes through migrate_vma_setup(), whose
 * MMU_NOTIFY_MIGRATE notification makes each mirror of the mm drop its GPU
 * PTEs for the range (src/mirror.c does not ignore it), so no GPU access
 * reaches a page while it is copied; after a move to VRAM the MIGRATE
 * ioctl maps the range again through the ordinary mirror path
 * (nvsvm_mirror_map()). This file calls nothing of the mirror's.
 *
 * Oversubscription. VRAM is handed out by 2 MiB chunks of video memory
 * (NVSVM_DMEM_CHUNK pages; UVM's root chunk size). Pascal has no access
 * counters, so each chunk's last use is judged from history: a stamp from
 * a device-wide clock, taken when a migration allocates one of its pages
 * and when the mirror maps one of its pages on the GPU (a GPU fault, MAP,
 * MIGRATE's re-map: nvsvm_dmem_vram()). When a move to VRAM finds no free
 * page, it evicts a victim chunk back to system memory. Which one is the
 * evict_policy parameter's, read once per victim: "lru" (the default) the
 * chunk used least recently by those stamps; "uvm" the chunk whose last
 * page allocation is the oldest, however recently the GPU used it, as
 * NVIDIA UVM picks its root chunks (allocation order; its own TODO says
 * access order would be better), the baseline of the oversubscription
 * benchmark (docs/benchmarks.md). Either way the victim is evicted
 * (migrate_device_range(), as at unregister: the pages this move just
 * filled are locked, so they stay) and carries on; each chunk is tried at
 * most once per move, so a move stops when none is left. Whose pages they
 * are does not matter: VRAM
 * is the device's; the evicted pages keep their owner's memcg charge (the
 * kernel moves it back to the new system page).
 *
 * Free-VRAM watermark: with evict_low (chunks' worth of free pages; 0, the
 * default, off) a work item per device, nvsvm_dmem_evictor(), evicts
 * evict_policy's victims in the background once a move to VRAM (each
 * piece of at most 2 MiB) has left free pages below evict_low, until
 * evict_high are free, so that a move does not wait
 * for an eviction copy; a move that finds VRAM full still evicts itself.
 * The evictor leaves the chunks holding a block that src/thrash.c pinned
 * (@pinned_until, set by nvsvm_dmem_count_move()).
 *
 * 2 MiB folios. Where the kernel has large device-private folios
 * (NVSVM_DMEM_LARGE, include/nvsvm_compat.h: 7.3), migrations select
 * compound pages (but in a VMA with MADV_NOHUGEPAGE): a 2 MiB-aligned,
 * PMD-mapped THP (or an untouched, aligned 2 MiB of anonymous memory)
 * moves to VRAM as one order-9 folio
 * that takes a whole free chunk (never chunk 0, whose page 0 is
 * reserved), copied by 512 ->copy() calls of 4 KiB over one DMA mapping;
 * the CPU page table holds one device-private PMD, hmm_range_fault()
 * reports it with map order 9, and the mirror maps it with one 2 MiB GPU
 * PTE. When no whole chunk is free, or the source is no whole PMD-mapped
 * THP (a range not aligned, a THP the CPU maps with PTEs), the move uses
 * 4 KiB pages and the kernel splits the THP. A CPU fault through the PMD,
 * a MIGRATE to system memory and an eviction bring the folio back whole,
 * as a THP mapped by a PMD when one can be had at once; else, with a VMA,
 * as 4 KiB pages (the kernel splits the VRAM folio), and an eviction
 * leaves it in VRAM (migrate_device_pages() does not split); unregister
 * then moves it through the process it came from (nvsvm_dmem_evict()).
 * A folio the
 * kernel split (a partial munmap or move) is freed page by page. Its chunk
 * is one chunk of the eviction policy and one block of the thrashing
 * history, like 512 pages of it. Elsewhere every VRAM page is 4 KiB.
 *
 * Thrashing: MIGRATE to VRAM asks src/thrash.c whether a 2 MiB block is
 * pinned in system memory before it moves pages of it, and tells it each
 * block it moved, once per call (nvsvm_dmem_count_move()).
 *
 * Locking: dmem->lock (a spinlock, taken with interrupts off since pages
 * can be freed from any context) protects the bitmap, its first-fit
 * hint, the free count and @stopping, under which the evictor is queued.
 * The chunks' stamps are read and written without it (a stale stamp only
 * makes the choice of victim less exact).
 * Migrations hold the mm's mmap lock for read (migrate_vma_*() need it) and
 * never hold an svmm mutex; the notifiers they trigger take it.
 */
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/hmm.h>
#include <linux/ioport.h>
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "nvsvm_core.h"
#include "nvsvm_dmem.h"
#include "nvsvm_test.h"
#include "nvsvm_thrash.h"

/* Pages per migrate_vma_setup() call: one leaf table's span. */
#define NVSVM_DMEM_CHUNK	NVSVM_RANGE_MAX_PAGES
/* The order of a 2 MiB VRAM folio: a whole chunk (NVSVM_DMEM_LARGE). */
#define NVSVM_DMEM_LARGE_ORDER	const_ilog2(NVSVM_DMEM_CHUNK)
/* Video memory pages never handed out (see above): offset 0. */
#define NVSVM_DMEM_RESERVED	1

/**
 * struct nvsvm_dmem - a device's video memory as device-private pages
 * @ndev: the device (also the pgmap owner)
 * @pgmap: the ZONE_DEVICE map
 * @res: the physical range the pages were given
 * @base_pfn: pfn of the page for video memory offset 0
 * @npages: pages of video memory
 * @lock: protects @used and @hint
 * @used: one bit per video memory page handed out (or reserved)
 * @hint: no page below it is free (first fit: the lowest free page goes
 *	first, so that moves fill the chunks in order)
 * @nfree: pages free (not in @used), under @lock
 * @stopping: set under @lock by nvsvm_dmem_fini(): the evictor is not
 *	queued from then on, and a pass under way stops
 * @nchunks: 2 MiB chunks of video memory (the last one may be partial)
 * @clock: the last stamp given out
 * @chunks: per 2 MiB chunk, its last use, last allocation and last eviction
 *	attempts, and the end of a thrashing pin
 * @evict_work: the background evictor (nvsvm_dmem_evictor())
 * @evict_pfns: its scratch (2 * NVSVM_DMEM_CHUNK entries)
 * @hand: the next chunk the recency sampler looks at (a clock hand;
 *	nvsvm_dmem_sample()'s callers serialize it)
 */
struct nvsvm_dmem {
	struct nvsvm_device *ndev;
	struct dev_pagemap pgmap;
	struct resource *res;
	unsigned long base_pfn;
	unsigned long npages;
	spinlock_t lock;		/* @used, @hint, @nfree, @stopping */
	unsigned long *used;
	unsigned long hint;
	unsigned long nfree;
	bool stopping;
	unsigned long nchunks;
	atomic_long_t clock;
	struct nvsvm_dmem_chunk *chunks;
	struct work_struct evict_work;
	unsigned long *evict_pfns;
	unsigned long hand;
};

/**
 * struct nvsvm_dmem_chunk - a 2 MiB chunk of video memory
 * @last_use: the stamp of its last use (allocation or GPU mapping)
 * @last_alloc: the stamp of the last allocation of one of its pages
 * @tried: the stamp of the last move that tried to evict it
 * @mm: the address space the last 2 MiB folio in it moved to VRAM from
 *	(mmgrab()ed; NVSVM_DMEM_LARGE only), or NULL; under dmem->lock
 * @addr: where in @mm
 * @bg_tried: the stamp of the last evictor pass that tried to evict it
 * @pinned_until: the background evictor leaves it until then
 *	(ktime_get_ns()): it holds pages of a block found thrashing; 0 once
 *	all of its pages are free
 * @sampled: the stamp of the last sampling pass that dropped the GPU PTEs
 *	of its pages (src/recency.c); the chunk is cold while @last_use is
 *	older
 */
struct nvsvm_dmem_chunk {
	unsigned long last_use;
	unsigned long last_alloc;
	unsigned long tried;
	struct mm_struct *mm;
	unsigned long addr;
	unsigned long bg_tried;
	u64 pinned_until;
	unsigned long sampled;
};

/* The victim of an eviction (the evict_policy parameter). */
enum nvsvm_evict_policy {
	NVSVM_EVICT_LRU,	/* the chunk used least recently */
	NVSVM_EVICT_UVM,	/* the chunk allocated least recently */
};

static const char *const nvsvm_evict_names[] = {
	[NVSVM_EVICT_LRU] = "lru",
	[NVSVM_EVICT_UVM] = "uvm",
};

static int evict_policy = NVSVM_EVICT_LRU;

/* A known name only: anything else is -EINVAL and changes nothing. */
static int nvsvm_evict_policy_set(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nvsvm_evict_names); i++) {
		if (sysfs_streq(val, nvsvm_evict_names[i])) {
			WRITE_ONCE(*(int *)kp->arg, i);
			return 0;
		}
	}
	return -EINVAL;
}

static int nvsvm_evict_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  nvsvm_evict_names[READ_ONCE(*(int *)kp->arg)]);
}

static const struct kernel_param_ops nvsvm_evict_policy_ops = {
	.set = nvsvm_evict_policy_set,
	.get = nvsvm_evict_policy_get,
};

module_param_cb(evict_policy, &nvsvm_evict_policy_ops, &evict_policy, 0644);
MODULE_PARM_DESC(evict_policy,
		 "VRAM chunk evicted under oversubscription: lru, the one used least recently (default), or uvm, the one allocated least recently (NVIDIA UVM's order)");

/*
 * The free-VRAM watermarks, in 2 MiB chunks' worth of pages: below
 * evict_low free the background evictor starts, and evicts until
 * evict_high (0: evict_low) are free. evict_low 0: no evictor.
 */
#define NVSVM_EVICT_MARK_MAX	2048	/* 4 GiB: the largest vram_mb */
static unsigned int evict_low;
static unsigned int evict_high;

/*
 * A number of chunks up to NVSVM_EVICT_MARK_MAX, with evict_low <=
 * evict_high where both are set; anything else is -EINVAL and changes
 * nothing. Writes to the parameters are serialized by the kernel's
 * kernel_param_lock.
 */
static int nvsvm_evict_mark_set(const char *val, const struct kernel_param *kp)
{
	bool low = kp->arg == &evict_low;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > NVSVM_EVICT_MARK_MAX)
		return -EINVAL;
	if (v && (low ? evict_high && v > evict_high : v < evict_low))
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops nvsvm_evict_mark_ops = {
	.set = nvsvm_evict_mark_set,
	.get = param_get_uint,
};

module_param_cb(evict_low, &nvsvm_evict_mark_ops, &evict_low, 0644);
MODULE_PARM_DESC(evict_low,
		 "free VRAM, in 2 MiB chunks, below which a background evictor evicts chunks (evict_policy's victims) ahead of the moves to VRAM; 0 (default): none, a move evicts when it finds VRAM full");
module_param_cb(evict_high, &nvsvm_evict_mark_ops, &evict_high, 0644);
MODULE_PARM_DESC(evict_high,
		 "free VRAM, in 2 MiB chunks, at which the background evictor stops (at least evict_low; 0, the default: evict_low)");

/*
 * Is @ch cold: did a recency sampling pass (src/recency.c) drop its GPU mappings with no use of it
 * (a GPU fault that mapped one of its pages, an allocation) since?
 */
static bool nvsvm_dmem_cold(const struct nvsvm_dmem_chunk *ch)
{
	return READ_ONCE(ch->sampled) > READ_ONCE(ch->last_use);
}

static struct nvsvm_dmem *nvsvm_page_dmem(struct page *page)
{
	return container_of(page_pgmap(page), struct nvsvm_dmem, pgmap);
}

static u64 nvsvm_dmem_offset(struct nvsvm_dmem *dmem, struct page *page)
{
	return (u64)(page_to_pfn(page) - dmem->base_pfn) << PAGE_SHIFT;
}

/* A new stamp, later than every stamp given out before. */
static unsigned long nvsvm_dmem_tick(struct nvsvm_dmem *dmem)
{
	return atomic_long_inc_return(&dmem->clock);
}

/* Stamp the chunk of VRAM page @idx with @stamp (a later one stays). */
static void nvsvm_dmem_touch(struct nvsvm_dmem *dmem, unsigned long idx,
			     unsigned long stamp)
{
	unsigned long *last = &dmem->chunks[idx / NVSVM_DMEM_CHUNK].last_use;

	if (READ_ONCE(*last) < stamp)
		WRITE_ONCE(*last, stamp);
}

/* Pages of chunk @c: NVSVM_DMEM_CHUNK, fewer for a partial last chunk. */
static unsigned long nvsvm_dmem_chunk_pages(struct nvsvm_dmem *dmem,
					    unsigned long c)
{
	return min_t(unsigned long, NVSVM_DMEM_CHUNK,
		     dmem->npages - c * NVSVM_DMEM_CHUNK);
}

/*
 * Is any page of the VRAM pages [@first, @first + @n) in use? The range
 * lies inside the @dmem->npages bits of the bitmap.
 */
static bool nvsvm_dmem_in_use(struct nvsvm_dmem *dmem, unsigned long first,
			      unsigned long n)
{
	unsigned long end = first + n;

	first = max_t(unsigned long, first, NVSVM_DMEM_RESERVED);
	return first < end && find_next_bit(dmem->used, end, first) < end;
}

/*
 * The watermarks of @dmem in free pages, from evict_low and evict_high: at
 * most the pages of whole chunks it has (page 0 reserved). *@low is 0 when
 * there is no evictor.
 */
static void nvsvm_dmem_marks(struct nvsvm_dmem *dmem, unsigned long *low,
			     unsigned long *high)
{
	unsigned long most = (dmem->npages - NVSVM_DMEM_RESERVED) /
			     NVSVM_DMEM_CHUNK;
	unsigned long l = min_t(unsigned long, READ_ONCE(evict_low), most);
	unsigned long h = min_t(unsigned long, READ_ONCE(evict_high), most);

	*low = l * NVSVM_DMEM_CHUNK;
	*high = max(h, l) * NVSVM_DMEM_CHUNK;
}

/*
 * After a move to VRAM: below the low watermark, the evictor starts (it
 * then runs beside what follows the move, the GPU's work on it), unless
 * VRAM is going (@stopping, read under the lock that nvsvm_dmem_fini()
 * sets it under).
 */
static void nvsvm_dmem_kick(struct nvsvm_dmem *dmem)
{
	unsigned long flags, low, high;

	nvsvm_dmem_marks(dmem, &low, &high);
	if (!low || READ_ONCE(dmem->nfree) >= low)
		return;
	spin_lock_irqsave(&dmem->lock, flags);
	if (!dmem->stopping)
		queue_work(nvsvm_system_dfl_wq, &dmem->evict_work);
	spin_unlock_irqrestore(&dmem->lock, flags);
}

/*
 * A free video memory page, referenced and locked for migration, its chunk
 * stamped @stamp; or NULL. With @large (NVSVM_DMEM_LARGE only) a 2 MiB
 * folio, a whole free chunk (never chunk 0, whose page 0 is reserved); the
 * first fit of the 4 KiB pages is not moved by it.
 */
static struct page *nvsvm_dmem_alloc(struct nvsvm_dmem *dmem,
				     unsigned long stamp, bool large)
{
	unsigned long flags, idx, n = large ? NVSVM_DMEM_CHUNK : 1;
	struct page *page;

	spin_lock_irqsave(&dmem->lock, flags);
	if (large)
		idx = bitmap_find_next_zero_area(dmem->used, dmem->npages, 0,
						 n, n - 1);
	else
		idx = find_next_zero_bit(dmem->used, dmem->npages, dmem->hint);
	if (idx < dmem->npages) {
		bitmap_set(dmem->used, idx, n);
		/* A 4 KiB page is the first free one from the hint. */
		if (!large || dmem->hint == idx)
			dmem->hint = idx + n;
		dmem->nfree -= n;
	}
	spin_unlock_irqrestore(&dmem->lock, flags);
	if (idx >= dmem->npages)
		return NULL;

	nvsvm_dmem_touch(dmem, idx, stamp);
	WRITE_ONCE(dmem->chunks[idx / NVSVM_DMEM_CHUNK].last_alloc, stamp);
	nvsvm_stat_add(dmem->ndev, NVSVM_STAT_VRAM_PAGES, n);
	page = pfn_to_page(dmem->base_pfn + idx);
	if (large)
		nvsvm_zone_device_folio_init(page, &dmem->pgmap,
					     NVSVM_DMEM_LARGE_ORDER);
	else
		nvsvm_zone_device_page_init(page, &dmem->pgmap);
	return page;
}

/*
 * The last reference to a device-private folio went (@page its head): its
 * VRAM is free, a whole chunk for a 2 MiB folio. A 2 MiB folio the kernel
 * split (a partial munmap, a move of part of it) is freed page by page.
 */
static void nvsvm_dmem_page_free(struct page *page)
{
	struct nvsvm_dmem *dmem = nvsvm_page_dmem(page);
	unsigned long flags, i, c, idx = page_to_pfn(page) - dmem->base_pfn;
	unsigned long n = folio_nr_pages(page_folio(page));
	bool lost = false;

	spin_lock_irqsave(&dmem->lock, flags);
	for (i = idx; i < idx + n; i++)
		lost |= !__test_and_clear_bit(i, dmem->used);
	dmem->hint = min(dmem->hint, idx);
	dmem->nfree += n;
	/* A chunk all free holds no pinned block any more. */
	c = idx / NVSVM_DMEM_CHUNK;
	if (!nvsvm_dmem_in_use(dmem, c * NVSVM_DMEM_CHUNK,
			       nvsvm_dmem_chunk_pages(dmem, c)))
		WRITE_ONCE(dmem->chunks[c].pinned_until, 0);
	spin_unlock_irqrestore(&dmem->lock, flags);
	WARN_ON_ONCE(lost);
	nvsvm_stat_add(dmem->ndev, NVSVM_STAT_VRAM_PAGES, -(long)n);
}

/*
 * Copy @n pages between the VRAM pages from @vpage and the physically
 * contiguous system pages from @spage (one folio): one DMA mapping, one
 * ->copy() per 4 KiB page (the copy op moves at most a page).
 */
static int nvsvm_dmem_copy_n(struct nvsvm_dmem *dmem, struct page *vpage,
			     struct page *spage, unsigned long n, bool to_vram)
{
	struct nvsvm_gpu *gpu = dmem->ndev->gpu;
	enum dma_data_direction dir = to_vram ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	u64 vram = nvsvm_dmem_offset(dmem, vpage);
	unsigned long i;
	dma_addr_t dma;
	int ret = 0;

	dma = dma_map_page(gpu->dev, spage, 0, n << PAGE_SHIFT, dir);
	if (dma_mapping_error(gpu->dev, dma))
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = gpu->ops->copy(gpu, vram + (i << PAGE_SHIFT),
				     dma + (i << PAGE_SHIFT), PAGE_SIZE,
				     to_vram);
	dma_unmap_page(gpu->dev, dma, n << PAGE_SHIFT, dir);
	return ret;
}

/* Copy one page between the VRAM page @vpage and the system page @spage. */
static int nvsvm_dmem_copy(struct nvsvm_dmem *dmem, struct page *vpage,
			   struct page *spage, bool to_vram)
{
	return nvsvm_dmem_copy_n(dmem, vpage, spage, 1, to_vram);
}

/*
 * A locked system THP for a 2 MiB VRAM folio moving back: from @vma's
 * memory policy at @addr, or without a VMA (eviction) from anywhere, with
 * the extra flags @gfp (unregister: __GFP_RETRY_MAYFAIL, reclaim and
 * compaction); NULL when none could be had (4 KiB pages, or unregister's
 * fallbacks, do instead).
 */
static struct page *nvsvm_dmem_sys_thp(struct vm_area_struct *vma,
				       unsigned long addr, gfp_t gfp)
{
	struct folio *folio;

	if (nvsvm_test_fail_thp())
		return NULL;
	if (vma)
		folio = nvsvm_vma_alloc_folio(GFP_TRANSHUGE,
					      NVSVM_DMEM_LARGE_ORDER, vma, addr);
	else
		folio = folio_alloc(GFP_TRANSHUGE | gfp,
				    NVSVM_DMEM_LARGE_ORDER);
	if (!folio)
		return NULL;
	folio_lock(folio);
	return &folio->page;
}

/*
 * Copy the @n VRAM pages from @spage (one folio) to the locked system
 * folio @dpage. When the copy fails @dpage is released (-EIO), except when
 * the VRAM is going (@lose): then it gets zeroes.
 */
static int nvsvm_dmem_to_sys(struct page *spage, struct page *dpage,
			     unsigned long n, bool lose)
{
	struct nvsvm_dmem *dmem = nvsvm_page_dmem(spage);
	unsigned long i;

	if (!nvsvm_dmem_copy_n(dmem, spage, dpage, n, false))
		return 0;
	if (!lose) {
		unlock_page(dpage);
		put_page(dpage);
		return -EIO;
	}
	for (i = 0; i < n; i++)
		clear_highpage(pfn_to_page(page_to_pfn(dpage) + i));
	dev_err_ratelimited(dmem->ndev->gpu->dev,
			    "VRAM page lost on eviction\n");
	return 0;
}

/*
 * Destinations for a move to system memory of the device pages in @src.
 * With a @vma the new pages follow its memory policy; without one
 * (eviction) they come from @gfp. Where an allocation or copy fails the
 * page stays in VRAM, except under __GFP_NOFAIL (unregister: the VRAM
 * goes away), where a page whose copy failed is replaced by zeroes.
 *
 * A 2 MiB VRAM folio (an entry flagged MIGRATE_PFN_COMPOUND, then 511
 * empty ones) comes back as a THP when one can be had; else, with a @vma,
 * as 4 KiB pages, for which the kernel splits the VRAM folio
 * (migrate_vma_pages()); without one it stays, since
 * migrate_device_pages() does not split (unregister tries harder for the
 * THP, then goes through the folio's process: nvsvm_dmem_evict()).
 *
 * Return: pages that could not be given a destination; *@copy_failed
 * (when not NULL) is set if the copy of one of them failed, as opposed
 * to the allocation of its page.
 */
static unsigned long nvsvm_dmem_fill_sys(unsigned long *src,
					 unsigned long *dst,
					 unsigned long npages,
					 struct vm_area_struct *vma,
					 unsigned long start, gfp_t gfp,
					 bool *copy_failed)
{
	bool lose = !vma && (gfp & __GFP_NOFAIL);
	unsigned long i, j, n, failed = 0;

	for (i = 0; i < npages; i += n) {
		struct page *spage = migrate_pfn_to_page(src[i]);
		unsigned long addr = start + (i << PAGE_SHIFT);
		struct page *dpage;

		n = 1;
		if (src[i] & NVSVM_MIGRATE_PFN_COMPOUND)
			n = min_t(unsigned long, npages - i, NVSVM_DMEM_CHUNK);
		memset(&dst[i], 0, n * sizeof(*dst));
		if (!spage || !(src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		if (n > 1) {
			dpage = nvsvm_dmem_sys_thp(vma, addr, lose ?
						   __GFP_RETRY_MAYFAIL : 0);
			if (dpage) {
				if (nvsvm_dmem_to_sys(spage, dpage, n, lose)) {
					failed += n;
					if (copy_failed)
						*copy_failed = true;
					continue;
				}
				dst[i] = migrate_pfn(page_to_pfn(dpage)) |
					 NVSVM_MIGRATE_PFN_COMPOUND;
				continue;
			}
			if (!vma) {
				failed += n;
				continue;
			}
		}
		for (j = 0; j < n; j++, addr += PAGE_SIZE) {
			if (vma)
				dpage = alloc_page_vma(GFP_HIGHUSER_MOVABLE, vma,
						       addr);
			else
				dpage = alloc_page(gfp);
			if (!dpage) {
				failed++;
				continue;
			}
			lock_page(dpage);
			if (nvsvm_dmem_to_sys(pfn_to_page(page_to_pfn(spage) + j),
					      dpage, 1, lose)) {
				failed++;
				if (copy_failed)
					*copy_failed = true;
				continue;
			}
			dst[i + j] = migrate_pfn(page_to_pfn(dpage));
		}
	}
	return failed;
}

/*
 * Pages of a finished migration that moved: an entry flagged
 * MIGRATE_PFN_COMPOUND that moved is a 2 MiB folio, moved whole.
 */
static unsigned long nvsvm_dmem_moved(const unsigned long *src,
				      const unsigned long *dst,
				      unsigned long npages)
{
	unsigned long i, moved = 0;

	for (i = 0; i < npages; i++)
		if ((src[i] & MIGRATE_PFN_MIGRATE) && dst[i])
			moved += src[i] & NVSVM_MIGRATE_PFN_COMPOUND ?
				 NVSVM_DMEM_CHUNK : 1;
	return moved;
}

/*
 * The pfns of the pages in use among the @n VRAM pages from @first, into
 * @pfns, in order (a 2 MiB folio's head, then its 511 other pages, as
 * migrate_device_pfns() takes them). Return: how many.
 */
static unsigned long nvsvm_dmem_used_pfns(struct nvsvm_dmem *dmem,
					  unsigned long first, unsigned long n,
					  unsigned long *pfns)
{
	unsigned long flags, idx = max_t(unsigned long, first,
					 NVSVM_DMEM_RESERVED), k = 0;

	spin_lock_irqsave(&dmem->lock, flags);
	for_each_set_bit_from(idx, dmem->used, first + n)
		pfns[k++] = dmem->base_pfn + idx;
	spin_unlock_irqrestore(&dmem->lock, flags);
	return k;
}

/*
 * Move the pages in use among the @n VRAM pages from @first back to system
 * memory, with @pfns (2 * NVSVM_DMEM_CHUNK entries) as scratch and new
 * pages from @gfp. Pages locked elsewhere (being migrated or freed) stay.
 * Where VRAM folios may be large the pages in use are listed (see
 * nvsvm_migrate_device_pfns() in include/nvsvm_compat.h).
 * Return: pages moved.
 */
static unsigned long nvsvm_dmem_evict_range(struct nvsvm_dmem *dmem,
					    unsigned long first,
					    unsigned long n,
					    unsigned long *pfns, gfp_t gfp)
{
	unsigned long *src = pfns, *dst = pfns + NVSVM_DMEM_CHUNK, moved;

	if (NVSVM_DMEM_LARGE) {
		n = nvsvm_dmem_used_pfns(dmem, first, n, src);
		if (!n)
			return 0;
		nvsvm_migrate_device_pfns(src, n);
	} else {
		migrate_device_range(src, dmem->base_pfn + first, n);
	}
	nvsvm_dmem_fill_sys(src, dst, n, NULL, 0, gfp, NULL);
	migrate_device_pages(src, dst, n);
	moved = nvsvm_dmem_moved(src, dst, n);
	nvsvm_stat_add(dmem->ndev, NVSVM_STAT_MIGRATED_SYS, moved);
	migrate_device_finalize(src, dst, n);
	return moved;
}

/*
 * Make room in VRAM for the move (or evictor pass: @bg) that started at
 * @stamp: evict the chunk in use that it has not tried yet and whose stamp
 * is the oldest, with @pfns as scratch: its last use (evict_policy lru) or
 * its last allocation (uvm). Pages locked elsewhere stay
 * (migrate_device_range() skips them): those a move is filling, those
 * another eviction or a migration holds. The evictor leaves the chunks
 * holding a thrashing-pinned block; its tries are its own (@bg_tried), so
 * that a move and a pass never reset each other's.
 * Return: pages evicted; 0 when no chunk is left to try.
 */
static unsigned long nvsvm_dmem_evict_one(struct nvsvm_dmem *dmem,
					  unsigned long stamp,
					  unsigned long *pfns, bool bg)
{
	unsigned long c, victim, oldest, first, n, moved = 0;
	u64 now = bg ? ktime_get_ns() : 0;
	bool uvm, cold, victim_cold;

	while (!moved) {
		uvm = READ_ONCE(evict_policy) == NVSVM_EVICT_UVM;
		victim = dmem->nchunks;
		oldest = ULONG_MAX;
		victim_cold = false;
		for (c = 0; c < dmem->nchunks; c++) {
			struct nvsvm_dmem_chunk *ch = &dmem->chunks[c];
			unsigned long last = uvm ? READ_ONCE(ch->last_alloc) :
						   READ_ONCE(ch->last_use);
			unsigned long tried = bg ? READ_ONCE(ch->bg_tried) :
						   READ_ONCE(ch->tried);

			/* lru: a cold chunk (sampler) before any other. */
			cold = !uvm && nvsvm_dmem_cold(ch);
			if (victim_cold > cold ||
			    (victim_cold == cold && last >= oldest) ||
			    tried == stamp ||
			    (bg && now < READ_ONCE(ch->pinned_until)))
				continue;
			/* The last chunk may be partial: scan its pages only. */
			if (nvsvm_dmem_in_use(dmem, c * NVSVM_DMEM_CHUNK,
					      nvsvm_dmem_chunk_pages(dmem, c))) {
				oldest = last;
				victim = c;
				victim_cold = cold;
			}
		}
		if (victim == dmem->nchunks)
			return 0;
		if (bg)
			WRITE_ONCE(dmem->chunks[victim].bg_tried, stamp);
		else
			WRITE_ONCE(dmem->chunks[victim].tried, stamp);
		first = victim * NVSVM_DMEM_CHUNK;
		n = nvsvm_dmem_chunk_pages(dmem, victim);
		/* A page that gets no system page stays: no warning. */
		moved = nvsvm_dmem_evict_range(dmem, first, n, pfns,
					       GFP_HIGHUSER_MOVABLE |
					       __GFP_RETRY_MAYFAIL |
					       __GFP_NOWARN);
		nvsvm_stat_add(dmem->ndev, NVSVM_STAT_EVICTIONS, 1);
		nvsvm_stat_add(dmem->ndev, NVSVM_STAT_EVICTED_PAGES, moved);
		if (victim_cold)
			nvsvm_stat_add(dmem->ndev, NVSVM_STAT_EVICTIONS_COLD, 1);
		if (bg)
			nvsvm_stat_add(dmem->ndev, NVSVM_STAT_EVICTIONS_BG, 1);
	}
	return moved;
}

/*
 * The background evictor: one pass evicts evict_policy's victims (never a
 * chunk holding a thrashing-pinned block) while fewer than the high
 * watermark's pages are free, each chunk at most once, and stops early
 * when nvsvm_dmem_fini() sets @stopping. Queued by nvsvm_dmem_kick()
 * below the low watermark; nvsvm_dmem_fini() stops the queueing and waits
 * for a pass under way (cancel_work_sync()) before it evicts the rest.
 * Like unregister's eviction it works on device pfns, without an mm: the
 * pages' owners keep their memcg charge (the kernel moves it to the new
 * system page).
 */
static void nvsvm_dmem_evictor(struct work_struct *work)
{
	struct nvsvm_dmem *dmem = container_of(work, struct nvsvm_dmem,
					       evict_work);
	unsigned long stamp = nvsvm_dmem_tick(dmem), low, high;

	nvsvm_dmem_marks(dmem, &low, &high);
	while (low && READ_ONCE(dmem->nfree) < high &&
	       !READ_ONCE(dmem->stopping) &&
	       nvsvm_dmem_evict_one(dmem, stamp, dmem->evict_pfns, true))
		cond_resched();
	nvsvm_stat_add(dmem->ndev, NVSVM_STAT_EVICTOR_RUNS, 1);
}

/*
 * Copy to the @n VRAM pages from @vpage the system pages from @spage (one
 * folio), or zeroes for a never-touched range (@spage NULL).
 */
static int nvsvm_dmem_to_vram(struct nvsvm_dmem *dmem, struct page *vpage,
			      struct page *spage, unsigned long n)
{
	unsigned long i;
	int ret = 0;

	if (spage)
		return nvsvm_dmem_copy_n(dmem, vpage, spage, n, true);
	for (i = 0; i < n && !ret; i++)
		ret = nvsvm_dmem_copy(dmem,
				      pfn_to_page(page_to_pfn(vpage) + i),
				      ZERO_PAGE(0), true);
	return ret;
}

/* Release the VRAM pages of @dst[0, @n) that a move will not use. */
static void nvsvm_dmem_drop(unsigned long *dst, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct page *page = migrate_pfn_to_page(dst[i]);

		if (page) {
			unlock_page(page);
			put_page(page);
		}
		dst[i] = 0;
	}
}

/*
 * Destinations for a move to VRAM: a VRAM page with the data for each page
 * that may migrate (never-touched anonymous pages get zeroes). When VRAM
 * is full, a chunk (evict_policy's victim) is evicted to make room for a
 * page with data (@evict: scratch for it, or NULL not to evict); when
 * nothing can be evicted, or for a never-touched page, the rest stays in
 * system memory.
 *
 * An entry flagged MIGRATE_PFN_COMPOUND (NVSVM_DMEM_LARGE: a PMD-mapped THP
 * or an empty 2 MiB, aligned, with 511 empty entries after it) gets a 2 MiB
 * VRAM folio when a whole chunk is free; else 4 KiB pages, for which the
 * kernel splits the THP (migrate_vma_pages()). An empty 2 MiB gets all of
 * its 4 KiB pages or none: the kernel would map each of its entries.
 */
static void nvsvm_dmem_fill_vram(struct nvsvm_dmem *dmem,
				 struct migrate_vma *args,
				 unsigned long *evict)
{
	unsigned long i, j, n, stamp = nvsvm_dmem_tick(dmem);
	unsigned long *dst = args->dst;

	for (i = 0; i < args->npages; i += n) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct page *dpage;

		n = 1;
		if (args->src[i] & NVSVM_MIGRATE_PFN_COMPOUND)
			n = min_t(unsigned long, args->npages - i,
				  NVSVM_DMEM_CHUNK);
		memset(&dst[i], 0, n * sizeof(*dst));
		if (!(args->src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		if (n > 1) {
			dpage = nvsvm_dmem_alloc(dmem, stamp, true);
			if (dpage) {
				if (nvsvm_dmem_to_vram(dmem, dpage, spage, n)) {
					unlock_page(dpage);
					put_page(dpage);
					continue;
				}
				dst[i] = migrate_pfn(page_to_pfn(dpage)) |
					 NVSVM_MIGRATE_PFN_COMPOUND;
				continue;
			}
		}
		for (j = 0; j < n; j++) {
			struct page *sp = spage && n > 1 ?
				pfn_to_page(page_to_pfn(spage) + j) : spage;

			dpage = nvsvm_dmem_alloc(dmem, stamp, false);
			/*
			 * Evict only for data: a never-touched page would come
			 * back as a new system page for each one evicted, so
			 * that a MIGRATE of a large untouched range would fill
			 * system memory.
			 */
			if (!dpage && evict && spage) {
				u64 t0 = local_clock();

				while (!dpage &&
				       nvsvm_dmem_evict_one(dmem, stamp, evict,
							    false))
					dpage = nvsvm_dmem_alloc(dmem, stamp,
								 false);
				nvsvm_stat_add(dmem->ndev,
					       NVSVM_STAT_NS_EVICT_SYNC,
					       nvsvm_ns_since(t0));
			}
			if (!dpage || nvsvm_dmem_to_vram(dmem, dpage, sp, 1)) {
				if (dpage) {
					unlock_page(dpage);
					put_page(dpage);
				}
				/* An empty 2 MiB: none of it. */
				if (!spage && n > 1) {
					nvsvm_dmem_drop(&dst[i], j);
					break;
				}
				if (!dpage) {
					/* VRAM is full: the rest stays. */
					memset(&dst[i + n], 0, (args->npages -
						i - n) * sizeof(*dst));
					return;
				}
				continue;
			}
			dst[i + j] = migrate_pfn(page_to_pfn(dpage));
		}
	}
}

/*
 * Note for each 2 MiB folio a move to VRAM (@args, not finalized) placed
 * where it went, for unregister (nvsvm_dmem_evict_owner()): the chunk is
 * the folio's until it is freed, and keeps the note until the chunk's
 * next 2 MiB folio or unregister (an mm_struct, not the address space).
 */
static void nvsvm_dmem_note_owner(struct nvsvm_dmem *dmem,
				  struct migrate_vma *args)
{
	struct mm_struct *mm = args->vma->vm_mm, *old;
	unsigned long flags, i, c;
	struct page *page;

	for (i = 0; i < args->npages; i++) {
		if (!(args->src[i] & MIGRATE_PFN_MIGRATE) ||
		    !(args->dst[i] & NVSVM_MIGRATE_PFN_COMPOUND))
			continue;
		page = migrate_pfn_to_page(args->dst[i]);
		c = (page_to_pfn(page) - dmem->base_pfn) / NVSVM_DMEM_CHUNK;
		mmgrab(mm);
		spin_lock_irqsave(&dmem->lock, flags);
		old = dmem->chunks[c].mm;
		dmem->chunks[c].mm = mm;
		dmem->chunks[c].addr = args->start + (i << PAGE_SHIFT);
		spin_unlock_irqrestore(&dmem->lock, flags);
		if (old)
			mmdrop(old);
	}
}

/*
 * Do migrations in @vma select 2 MiB folios? Where the kernel has them,
 * unless the VMA refuses THPs (MADV_NOHUGEPAGE): an untouched 2 MiB would
 * come back from VRAM as one.
 */
static bool nvsvm_dmem_large_vma(struct vm_area_struct *vma)
{
	return NVSVM_DMEM_LARGE && !(vma->vm_flags & VM_NOHUGEPAGE);
}

/*
 * Migrate [start, end) of @vma, at most NVSVM_DMEM_CHUNK pages (the mmap
 * lock held for read); @evict: scratch for an eviction (2 *
 * NVSVM_DMEM_CHUNK entries), or NULL for a move to VRAM that evicts
 * nothing. Return: pages moved, or a negative errno from
 * migrate_vma_setup().
 */
static long nvsvm_dmem_migrate_vma(struct nvsvm_dmem *dmem,
				   struct vm_area_struct *vma,
				   unsigned long start, unsigned long end,
				   bool to_vram, unsigned long *src,
				   unsigned long *dst, unsigned long *evict)
{
	struct migrate_vma args = {
		.vma = vma,
		.start = start,
		.end = end,
		.src = src,
		.dst = dst,
		.pgmap_owner = dmem->ndev,
		.flags = (to_vram ? MIGRATE_VMA_SELECT_SYSTEM :
			  MIGRATE_VMA_SELECT_DEVICE_PRIVATE) |
			 (nvsvm_dmem_large_vma(vma) ?
			  NVSVM_MIGRATE_VMA_SELECT_COMPOUND : 0),
	};
	unsigned long moved;
	int ret;

	nvsvm_mmap_assert_locked(vma->vm_mm);
	ret = migrate_vma_setup(&args);
	if (ret)
		return ret;
	if (!args.cpages)
		return 0;
	if (to_vram)
		nvsvm_dmem_fill_vram(dmem, &args, evict);
	else
		nvsvm_dmem_fill_sys(src, dst, args.npages, vma, start, 0, NULL);
	migrate_vma_pages(&args);
	moved = nvsvm_dmem_moved(src, dst, args.npages);
	if (to_vram && NVSVM_DMEM_LARGE)
		nvsvm_dmem_note_owner(dmem, &args);
	migrate_vma_finalize(&args);
	nvsvm_stat_add(dmem->ndev, to_vram ? NVSVM_STAT_MIGRATED_VRAM :
			NVSVM_STAT_MIGRATED_SYS, moved);
	if (to_vram)
		nvsvm_dmem_kick(dmem);
	return moved;
}

/*
 * A CPU access to a device-private page: bring that page back. When that
 * fails the page stays in VRAM and the access fails: VM_FAULT_OOM when no
 * system page could be had (the kernel retries the access), VM_FAULT_SIGBUS
 * when the copy failed (a copy engine error does not go away by retrying;
 * the access would refault forever).
 *
 * A 2 MiB VRAM folio mapped by a PMD (the fault came through the PMD:
 * vmf->pte is NULL, vmf->page its head) comes back whole, as a THP when one
 * can be had, else as 4 KiB pages (nvsvm_dmem_fill_sys()). A 2 MiB folio
 * the CPU maps with PTEs (its PMD was split) is split by the move of the
 * one page.
 */
static vm_fault_t nvsvm_dmem_migrate_to_ram(struct vm_fault *vmf)
{
	struct nvsvm_dmem *dmem = nvsvm_page_dmem(vmf->page);
	bool large = nvsvm_dmem_large_vma(vmf->vma) && !vmf->pte &&
		     folio_test_large(page_folio(vmf->page));
	unsigned long one[2] = {}, *src = one, npages = 1, idx = 0, first;
	unsigned long size = large ? NVSVM_RANGE_MAX_BYTES : PAGE_SIZE;
	struct migrate_vma args = {
		.vma = vmf->vma,
		.start = ALIGN_DOWN(vmf->address, size),
		.end = ALIGN_DOWN(vmf->address, size) + size,
		.pgmap_owner = dmem->ndev,
		.flags = MIGRATE_VMA_SELECT_DEVICE_PRIVATE,
		.fault_page = vmf->page,
	};
	bool copy_failed = false;
	vm_fault_t ret = 0;

	if (large) {
		npages = NVSVM_DMEM_CHUNK;
		idx = (vmf->address - args.start) >> PAGE_SHIFT;
		src = kcalloc(2 * npages, sizeof(*src), GFP_KERNEL);
		if (!src)
			return VM_FAULT_OOM;
		args.flags |= NVSVM_MIGRATE_VMA_SELECT_COMPOUND;
	}
	args.src = src;
	args.dst = src + npages;
	if (migrate_vma_setup(&args)) {
		ret = VM_FAULT_SIGBUS;
		goto out;
	}
	/* Nothing collected: someone else moved it; the access retries. */
	if (!args.cpages)
		goto out;
	nvsvm_dmem_fill_sys(args.src, args.dst, npages, vmf->vma, args.start,
			    0, &copy_failed);
	/*
	 * The faulting page, collected, got no system page: a 2 MiB folio
	 * collected whole is its first entry, and has its destination there
	 * too unless it comes back as 4 KiB pages.
	 */
	first = args.src[0] & NVSVM_MIGRATE_PFN_COMPOUND ? 0 : idx;
	if ((args.src[first] & MIGRATE_PFN_MIGRATE) &&
	    !args.dst[args.dst[0] & NVSVM_MIGRATE_PFN_COMPOUND ? 0 : idx])
		ret = copy_failed ? VM_FAULT_SIGBUS : VM_FAULT_OOM;
	migrate_vma_pages(&args);
	nvsvm_stat_add(dmem->ndev, NVSVM_STAT_MIGRATED_SYS,
		       nvsvm_dmem_moved(args.src, args.dst, npages));
	migrate_vma_finalize(&args);
out:
	if (large)
		kfree(src);
	return ret;
}

NVSVM_DEFINE_PAGEMAP_FREE(nvsvm_dmem_page_free)

static const struct dev_pagemap_ops nvsvm_dmem_ops = {
	NVSVM_PAGEMAP_FREE(nvsvm_dmem_page_free),
	.migrate_to_ram = nvsvm_dmem_migrate_to_ram,
};

/**
 * nvsvm_dmem_vram() - is an HMM pfn one of this device's VRAM pages?
 * @ndev: the device
 * @hmm_pfn: a valid pfn from hmm_range_fault()
 * @vram: (out) its byte offset in video memory
 *
 * The mirror asks when it maps a page on the GPU: a VRAM page's chunk
 * counts as used now (evict_policy lru evicts the chunk used least
 * recently).
 *
 * Return: true for a device-private page of @ndev (map it with the video
 * memory aperture at @vram); false for a system memory page.
 */
bool nvsvm_dmem_vram(struct nvsvm_device *ndev, unsigned long hmm_pfn,
		     u64 *vram)
{
	struct page *page = hmm_pfn_to_page(hmm_pfn);
	struct nvsvm_dmem *dmem;

	if (!NVSVM_HAVE_DEVICE_PRIVATE || !is_device_private_page(page) ||
	    page_pgmap(page)->owner != ndev)
		return false;
	dmem = nvsvm_page_dmem(page);
	*vram = nvsvm_dmem_offset(dmem, page);
	/* A sampled chunk the GPU uses again: warm from now on. */
	if (nvsvm_dmem_cold(&dmem->chunks[(*vram >> PAGE_SHIFT) /
					  NVSVM_DMEM_CHUNK]))
		nvsvm_stat_add(ndev, NVSVM_STAT_SAMPLE_REFAULTS, 1);
	nvsvm_dmem_touch(dmem, *vram >> PAGE_SHIFT, nvsvm_dmem_tick(dmem));
	return true;
}

/**
 * nvsvm_dmem_is_ours() - is an HMM pfn one of this device's VRAM pages?
 * @ndev: the device
 * @hmm_pfn: a pfn from hmm_range_fault(), valid or not, read while the
 *	device is registered (the fault path's serve lock, !fault.off)
 *
 * A question only: unlike nvsvm_dmem_vram() no chunk counts as used.
 *
 * Return: true for a valid pfn of a device-private page of @ndev.
 */
bool nvsvm_dmem_is_ours(struct nvsvm_device *ndev, unsigned long hmm_pfn)
{
	struct page *page;

	if (!NVSVM_HAVE_DEVICE_PRIVATE || !(hmm_pfn & HMM_PFN_VALID))
		return false;
	page = hmm_pfn_to_page(hmm_pfn);
	return is_device_private_page(page) && page_pgmap(page)->owner == ndev;
}

/**
 * nvsvm_dmem_pressure() - is VRAM full enough for the recency sampler?
 * @ndev: the device, with dmem (the sampler's caller keeps it)
 * @mark: free chunks at most, or 0 for the default mark
 *
 * A cold mark pays only when an eviction comes. By default that is when
 * no more than the background evictor's high watermark is free
 * (evict_high, else evict_low; it evicts below evict_low), or one chunk
 * when there is no evictor (a move evicts when it finds VRAM full): above
 * it no move evicts soon, and a sampling pass would only cost refaults.
 *
 * Return: true when at most @mark chunks' worth of pages is free.
 */
bool nvsvm_dmem_pressure(struct nvsvm_device *ndev, unsigned int mark)
{
	struct nvsvm_dmem *dmem = ndev->dmem;
	unsigned long low, high, most = NVSVM_DMEM_CHUNK;

	if (mark) {
		most = (unsigned long)mark * NVSVM_DMEM_CHUNK;
	} else {
		nvsvm_dmem_marks(dmem, &low, &high);
		most = max(most, high);
	}
	return READ_ONCE(dmem->nfree) <= most;
}

/**
 * nvsvm_dmem_stamp() - a new use stamp of the device's VRAM
 * @ndev: the device; an ioctl's caller, so that @ndev->dmem stays
 *
 * Return: a stamp later than every one given out before, for
 * nvsvm_dmem_used().
 */
unsigned long nvsvm_dmem_stamp(struct nvsvm_device *ndev)
{
	return nvsvm_dmem_tick(ndev->dmem);
}

/**
 * nvsvm_dmem_used() - the GPU uses the VRAM page at @vram
 * @ndev: the device; an ioctl's caller, so that @ndev->dmem stays
 * @vram: the page's byte offset in video memory, from a GPU PTE
 * @stamp: from nvsvm_dmem_stamp()
 *
 * Its chunk counts as used at @stamp (evict_policy lru), as when the mirror
 * maps the page (nvsvm_dmem_vram()).
 */
void nvsvm_dmem_used(struct nvsvm_device *ndev, u64 vram, unsigned long stamp)
{
	struct nvsvm_dmem *dmem = ndev->dmem;

	if ((vram >> PAGE_SHIFT) < dmem->npages)
		nvsvm_dmem_touch(dmem, vram >> PAGE_SHIFT, stamp);
}

/**
 * nvsvm_dmem_nchunks() - the 2 MiB chunks of the device's VRAM
 * @ndev: the device, with dmem (the caller keeps it: see nvsvm_dmem_sample())
 *
 * Return: the chunks, the last one maybe partial.
 */
unsigned long nvsvm_dmem_nchunks(struct nvsvm_device *ndev)
{
	return ndev->dmem->nchunks;
}

/**
 * nvsvm_dmem_sample() - pick the chunks of a recency sampling pass
 * @ndev: the device, with dmem: the sampler (src/recency.c) runs from
 *	register to unregister's nvsvm_recency_fini(), before
 *	nvsvm_dmem_fini(); one pass at a time (the clock hand)
 * @n: chunks at most
 * @pick: bitmap of nvsvm_dmem_nchunks() bits, zeroed: a bit is set for
 *	each chunk picked
 *
 * From the clock hand on, up to @n chunks in use that are not cold already
 * get the pass's stamp in @sampled; the caller then drops their GPU
 * mappings. The stamp comes first: a map of one of their pages after it,
 * even before the drop, makes the chunk warm again (the drop then costs it
 * one more fault, no wrong victim).
 *
 * Return: chunks picked.
 */
unsigned long nvsvm_dmem_sample(struct nvsvm_device *ndev, unsigned int n,
				unsigned long *pick)
{
	struct nvsvm_dmem *dmem = ndev->dmem;
	unsigned long c, i, stamp = nvsvm_dmem_tick(dmem), got = 0;

	for (i = 0; i < dmem->nchunks && got < n; i++) {
		c = dmem->hand;
		dmem->hand = (c + 1) % dmem->nchunks;
		if (nvsvm_dmem_cold(&dmem->chunks[c]) ||
		    !nvsvm_dmem_in_use(dmem, c * NVSVM_DMEM_CHUNK,
				       nvsvm_dmem_chunk_pages(dmem, c)))
			continue;
		WRITE_ONCE(dmem->chunks[c].sampled, stamp);
		__set_bit(c, pick);
		got++;
	}
	return got;
}

/*
 * The device's dmem, referenced (nvsvm_dmem_put() it), or NULL when it has
 * none or it is going. For a caller that runs outside the ioctls'
 * ndev->unplug, i.e. an area's fault work, which unregister does not wait
 * for before nvsvm_dmem_fini(): @ndev->dmem is read once, under RCU, and
 * used only with a live reference on its pgmap, which memunmap_pages() in
 * nvsvm_dmem_fini() waits for before the struct pages and @dmem go;
 * nvsvm_dmem_fini() clears @ndev->dmem and waits for a grace period first,
 * so that no reader holds the pointer without the reference.
 */
static struct nvsvm_dmem *nvsvm_dmem_get(struct nvsvm_device *ndev)
{
	struct nvsvm_dmem *dmem;

	rcu_read_lock();
	dmem = READ_ONCE(ndev->dmem);
	if (dmem && !percpu_ref_tryget_live(&dmem->pgmap.ref))
		dmem = NULL;
	rcu_read_unlock();
	return dmem;
}

static void nvsvm_dmem_put(struct nvsvm_dmem *dmem)
{
	percpu_ref_put(&dmem->pgmap.ref);
}

/**
 * nvsvm_dmem_hmm_fixup() - move back VRAM pages the GPU wants to write
 * @ndev: the device
 * @range: a range hmm_range_fault() just filled, the mmap lock still held
 *	for read
 * @req: the per-page HMM_PFN_REQ_* flags it was given, indexed from
 *	@range->start, or NULL
 *
 * hmm_range_fault() returns this device's pages as they are, without
 * faulting: a page the CPU maps read-only (after fork, both processes
 * share it copy-on-write) comes back without HMM_PFN_WRITE even when write
 * access was asked for, and the GPU write would fault forever. Such pages
 * are migrated to system memory here, so that the retried
 * hmm_range_fault() breaks the copy-on-write like for any page.
 *
 * Runs in an area's fault work too, which unregister does not wait for
 * before nvsvm_dmem_fini(): the device memory and the pfns' struct pages
 * are used under a reference on the pgmap (nvsvm_dmem_get()); when the
 * device memory is going, nothing is done (unregister tore the areas down
 * first: nothing is mapped after this).
 *
 * Return: 0, or -EBUSY when a page moved: the caller retries.
 */
int nvsvm_dmem_hmm_fixup(struct nvsvm_device *ndev, struct hmm_range *range,
			 const unsigned long *req)
{
	unsigned long i, npages = (range->end - range->start) >> PAGE_SHIFT;
	struct nvsvm_dmem *dmem = NULL;
	unsigned long src, dst;
	bool moved = false;
	u64 vram;

	nvsvm_mmap_assert_locked(range->notifier->mm);
	/* A hint, not dereferenced: see nvsvm_dmem_get(). */
	if (!READ_ONCE(ndev->dmem))
		return 0;
	for (i = 0; i < npages; i++) {
		unsigned long want = range->default_flags;
		unsigned long hpfn = range->hmm_pfns[i];
		unsigned long addr = range->start + (i << PAGE_SHIFT);
		struct vm_area_struct *vma;

		if (req)
			want |= req[i] & range->pfn_flags_mask;
		if (!(want & HMM_PFN_REQ_WRITE) || !(hpfn & HMM_PFN_VALID) ||
		    (hpfn & HMM_PFN_WRITE))
			continue;
		/*
		 * Before the pfn's struct page is read: unregister may have
		 * moved the page back and be freeing the VRAM's pages.
		 */
		if (!dmem) {
			dmem = nvsvm_dmem_get(ndev);
			if (!dmem)
				return 0;
		}
		if (!nvsvm_dmem_vram(ndev, hpfn, &vram))
			continue;
		vma = vma_lookup(range->notifier->mm, addr);
		if (vma && nvsvm_dmem_migrate_vma(dmem, vma, addr,
						  addr + PAGE_SIZE, false,
						  &src, &dst, NULL) > 0)
			moved = true;
	}
	if (dmem)
		nvsvm_dmem_put(dmem);
	return moved ? -EBUSY : 0;
}

/*
 * Count the move of this call into the block at *@pending, if any (a move
 * to VRAM that moved pages of it), and clear *@pending. Once per block per
 * call: a block made of several VMAs is migrated in several pieces, and
 * each piece is not a move of its own (it would make one MIGRATE of a
 * three-VMA block a thrashing one). A block found thrashing pins the VRAM
 * chunks allocated from since @since (a stamp taken before its first
 * piece), against the background evictor, for as long as the block is
 * pinned: its pages, and maybe pages another move allocated meanwhile.
 */
static void nvsvm_dmem_count_move(struct nvsvm_dmem *dmem,
				  struct xarray *blocks, u64 *pending,
				  unsigned long since)
{
	unsigned long c;
	u64 until;

	if (*pending == U64_MAX)
		return;
	until = nvsvm_thrash_moved(blocks, *pending, ktime_get_ns());
	if (until) {
		nvsvm_stat_add(dmem->ndev, NVSVM_STAT_THRASHING, 1);
		for (c = 0; c < dmem->nchunks; c++)
			if (READ_ONCE(dmem->chunks[c].last_alloc) > since)
				WRITE_ONCE(dmem->chunks[c].pinned_until, until);
	}
	*pending = U64_MAX;
}

/**
 * nvsvm_dmem_migrate() - move the anonymous pages of a range
 * @ndev: device, with device-private memory
 * @mm: the caller's address space
 * @start: first address, page aligned
 * @end: end (exclusive), page aligned, above @start
 * @to_vram: to VRAM, else back to system memory
 * @blocks: the area's migration history by 2 MiB block (thrashing)
 * @moved: (out) pages moved
 *
 * Best effort: holes, pages that cannot move (file-backed, pinned, locked
 * elsewhere) and what does not fit in VRAM, even after evicting every
 * other VRAM chunk (evict_policy's order), stay where they are; so do the blocks found
 * thrashing (src/thrash.c); a block counts one move per call,
 * after its last piece. Takes the mmap lock for read, one VMA chunk at a
 * time.
 *
 * Return: 0, -EINTR on a fatal signal, -ENOMEM.
 */
long nvsvm_dmem_migrate(struct nvsvm_device *ndev, struct mm_struct *mm,
			u64 start, u64 end, bool to_vram,
			struct xarray *blocks, u64 *moved)
{
	bool track = to_vram && nvsvm_thrash_enabled();
	struct nvsvm_dmem *dmem = ndev->dmem;
	/* The block whose move is still to be counted, or U64_MAX. */
	u64 addr, pending = U64_MAX;
	unsigned long *src, *dst, since = 0;
	long ret = 0;

	*moved = 0;
	/* src, dst and an eviction's scratch */
	src = kmalloc_array(4 * NVSVM_DMEM_CHUNK, sizeof(*src),
			    NVSVM_GFP_USER);
	if (!src)
		return -ENOMEM;
	dst = src + NVSVM_DMEM_CHUNK;

	for (addr = start; addr < end; ) {
		struct vm_area_struct *vma;
		u64 next;

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		mmap_read_lock(mm);
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start >= end) {
			mmap_read_unlock(mm);
			break;
		}
		addr = max_t(u64, addr, vma->vm_start);
		/* Past the block moved before: count it (not under the lock). */
		if (pending != U64_MAX &&
		    ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) != pending) {
			mmap_read_unlock(mm);
			nvsvm_dmem_count_move(dmem, blocks, &pending, since);
			continue;
		}
		next = min3((u64)vma->vm_end, end,
			    ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) +
			    NVSVM_RANGE_MAX_BYTES);
		/* A pinned block is skipped whole: one skip, all its VMAs. */
		if (track && nvsvm_thrash_pinned(blocks, addr, ktime_get_ns())) {
			mmap_read_unlock(mm);
			nvsvm_stat_add(ndev, NVSVM_STAT_THRASH_SKIPS, 1);
			next = min(end, ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) +
					NVSVM_RANGE_MAX_BYTES);
			addr = next;
			continue;
		}
		/* Before the block's first piece: see nvsvm_dmem_count_move(). */
		if (track && pending == U64_MAX)
			since = nvsvm_dmem_tick(dmem);
		/* A VMA migrate_vma_setup() refuses is skipped. */
		ret = nvsvm_dmem_migrate_vma(dmem, vma, addr, next, to_vram,
					     src, dst, dst + NVSVM_DMEM_CHUNK);
		mmap_read_unlock(mm);
		if (ret > 0) {
			*moved += ret;
			if (track)
				pending = ALIGN_DOWN(addr,
						     NVSVM_RANGE_MAX_BYTES);
		}
		ret = 0;
		addr = next;
		cond_resched();
	}
	nvsvm_dmem_count_move(dmem, blocks, &pending, since);
	kfree(src);
	return ret;
}

/* Unregister's wait between passes that left a page in VRAM. */
#define NVSVM_DMEM_EVICT_WAIT_MS	10

/*
 * Unregister, for chunk @c, which holds a 2 MiB folio no system THP could
 * be had for: move it back through the process it moved to VRAM from, if
 * that process still maps it where it did (nvsvm_dmem_note_owner()), with
 * a VMA, so as 4 KiB pages if need be (the kernel splits the folio).
 * @pfns: scratch (2 * NVSVM_DMEM_CHUNK entries). Return: pages moved.
 */
static long nvsvm_dmem_evict_owner(struct nvsvm_dmem *dmem, unsigned long c,
				   unsigned long *pfns)
{
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	unsigned long flags, addr;
	long moved = 0;

	spin_lock_irqsave(&dmem->lock, flags);
	mm = dmem->chunks[c].mm;
	addr = dmem->chunks[c].addr;
	if (mm && !mmget_not_zero(mm))
		mm = NULL;
	spin_unlock_irqrestore(&dmem->lock, flags);
	if (!mm)
		return 0;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && addr + NVSVM_RANGE_MAX_BYTES <= vma->vm_end)
		moved = nvsvm_dmem_migrate_vma(dmem, vma, addr,
					       addr + NVSVM_RANGE_MAX_BYTES,
					       false, pfns,
					       pfns + NVSVM_DMEM_CHUNK, NULL);
	mmap_read_unlock(mm);
	mmput(mm);
	return max(moved, 0L);
}

/*
 * Move every page still in VRAM back to system memory. A 2 MiB folio
 * without a VMA needs a whole system THP (migrate_device_pages() does not
 * split): unregister asks for one with reclaim and compaction, and where
 * none can be had moves the folio through its process
 * (nvsvm_dmem_evict_owner()). What is left (a page being freed or migrated
 * meanwhile; a folio that moved, or another process shares since a fork)
 * waits for the next pass, NVSVM_DMEM_EVICT_WAIT_MS later, with a
 * ratelimited notice.
 */
static void nvsvm_dmem_evict(struct nvsvm_dmem *dmem)
{
	unsigned long *pfns, i, n, passes = 0, split = 0;
	atomic64_t *vram_pages = &dmem->ndev->stats[NVSVM_STAT_VRAM_PAGES];
	struct device *dev = dmem->ndev->gpu->dev;

	pfns = kmalloc_array(2 * NVSVM_DMEM_CHUNK, sizeof(*pfns),
			     GFP_KERNEL | __GFP_NOFAIL);
	while (nvsvm_dmem_in_use(dmem, 0, dmem->npages)) {
		if (passes++) {
			dev_notice_ratelimited(dev, "unregister: %lld pages still in VRAM after %lu passes, waiting\n",
					       atomic64_read(vram_pages),
					       passes - 1);
			msleep(NVSVM_DMEM_EVICT_WAIT_MS);
		}
		for (i = 0; i < dmem->npages; i += n) {
			n = min_t(unsigned long, NVSVM_DMEM_CHUNK,
				  dmem->npages - i);
			if (!nvsvm_dmem_in_use(dmem, i, n))
				continue;
			nvsvm_dmem_evict_range(dmem, i, n, pfns,
					       GFP_HIGHUSER_MOVABLE |
					       __GFP_NOFAIL);
			if (NVSVM_DMEM_LARGE && nvsvm_dmem_in_use(dmem, i, n) &&
			    nvsvm_dmem_evict_owner(dmem, i / NVSVM_DMEM_CHUNK,
						   pfns) > 0)
				split++;
		}
		cond_resched();
	}
	if (split)
		dev_info(dev, "unregister: %lu 2 MiB VRAM pages moved back through their processes (no system THP without one)\n",
			 split);
	for (i = 0; i < dmem->nchunks; i++)
		if (dmem->chunks[i].mm)
			mmdrop(dmem->chunks[i].mm);
	kfree(pfns);
}

/**
 * nvsvm_dmem_init() - make the provider's VRAM device-private memory
 * @ndev: the device, named
 *
 * Does nothing (and MIGRATE fails with EOPNOTSUPP) when the kernel lacks
 * CONFIG_DEVICE_PRIVATE, the provider has no VRAM or no ->copy().
 *
 * Return: 0, or an errno when the memory could not be set up.
 */
int nvsvm_dmem_init(struct nvsvm_device *ndev)
{
	struct nvsvm_gpu *gpu = ndev->gpu;
	u64 size = ALIGN_DOWN(gpu->vram_size, PAGE_SIZE);
	struct nvsvm_dmem *dmem;
	void *addr;
	int ret;

	if (!NVSVM_HAVE_DEVICE_PRIVATE || size <= NVSVM_DMEM_RESERVED * PAGE_SIZE ||
	    !gpu->ops->copy)
		return 0;
	dmem = kzalloc(sizeof(*dmem), GFP_KERNEL);
	if (!dmem)
		return -ENOMEM;
	dmem->ndev = ndev;
	dmem->npages = size >> PAGE_SHIFT;
	spin_lock_init(&dmem->lock);
	dmem->used = bitmap_zalloc(dmem->npages, GFP_KERNEL);
	if (!dmem->used) {
		ret = -ENOMEM;
		goto err_free;
	}
	bitmap_set(dmem->used, 0, NVSVM_DMEM_RESERVED);
	dmem->nfree = dmem->npages - NVSVM_DMEM_RESERVED;
	INIT_WORK(&dmem->evict_work, nvsvm_dmem_evictor);
	dmem->evict_pfns = kmalloc_array(2 * NVSVM_DMEM_CHUNK,
					 sizeof(*dmem->evict_pfns), GFP_KERNEL);
	if (!dmem->evict_pfns) {
		ret = -ENOMEM;
		goto err_free;
	}
	dmem->nchunks = DIV_ROUND_UP(dmem->npages, NVSVM_DMEM_CHUNK);
	dmem->chunks = kcalloc(dmem->nchunks, sizeof(*dmem->chunks),
			       GFP_KERNEL);
	if (!dmem->chunks) {
		ret = -ENOMEM;
		goto err_free;
	}
	dmem->hint = NVSVM_DMEM_RESERVED;
	/* Memory hotplug works in 2 MiB subsections. */
	dmem->res = request_free_mem_region(&iomem_resource,
					    ALIGN(size, SZ_2M), ndev->name);
	if (IS_ERR(dmem->res)) {
		ret = PTR_ERR(dmem->res);
		goto err_free;
	}
	dmem->pgmap.type = MEMORY_DEVICE_PRIVATE;
	dmem->pgmap.range.start = dmem->res->start;
	dmem->pgmap.range.end = dmem->res->start + ALIGN(size, SZ_2M) - 1;
	dmem->pgmap.nr_range = 1;
	dmem->pgmap.ops = &nvsvm_dmem_ops;
	dmem->pgmap.owner = ndev;
	addr = memremap_pages(&dmem->pgmap, dev_to_node(gpu->dev));
	if (IS_ERR(addr)) {
		ret = PTR_ERR(addr);
		goto err_region;
	}
	dmem->base_pfn = PHYS_PFN(dmem->res->start);
	ndev->dmem = dmem;
	return 0;

err_region:
	release_mem_region(dmem->res->start, resource_size(dmem->res));
err_free:
	kfree(dmem->evict_pfns);
	kfree(dmem->chunks);
	bitmap_free(dmem->used);
	kfree(dmem);
	return ret;
}

/**
 * nvsvm_dmem_fini() - give the VRAM back to the provider
 * @ndev: the device; no file of it is open
 *
 * Pages still in VRAM (processes that migrated and kept running after
 * closing the device) are migrated back to system memory first.
 */
void nvsvm_dmem_fini(struct nvsvm_device *ndev)
{
	struct nvsvm_dmem *dmem = ndev->dmem;

	if (!dmem)
		return;
	/*
	 * An area's fault work may still run (nvsvm_dmem_hmm_fixup()): from
	 * the grace period on, none holds @dmem without a pgmap reference,
	 * and memunmap_pages() waits for those.
	 */
	WRITE_ONCE(ndev->dmem, NULL);
	synchronize_rcu();
	/*
	 * The evictor first: no move queues it from now on (under the lock
	 * that its queueing takes), a pass under way stops at its next chunk,
	 * and is waited for. Then nothing but this evicts.
	 */
	spin_lock_irq(&dmem->lock);
	dmem->stopping = true;
	spin_unlock_irq(&dmem->lock);
	cancel_work_sync(&dmem->evict_work);
	nvsvm_dmem_evict(dmem);
	memunmap_pages(&dmem->pgmap);
	release_mem_region(dmem->res->start, resource_size(dmem->res));
	kfree(dmem->evict_pfns);
	kfree(dmem->chunks);
	bitmap_free(dmem->used);
	kfree(dmem);
}
