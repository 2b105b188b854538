// SPDX-License-Identifier: GPL-2.0
/*
 * Prefetch policy of the fault path (what NVIDIA UVM's uvm_perf_prefetch.c
 * decides): how far a fault's range grows, which pages it fills, how it is
 * cut into spans of one request, and when it grows to a THP's block.
 *
 * Every function here decides from data it is given: the faults' request
 * flags and the GPU's valid pages of a 2 MiB block (bitmaps indexed by
 * page), the bounds the mirror allows, hmm's output, a VMA and the kind
 * of a CPU PTE the mirror read. None calls hmm, takes a lock or touches a
 * page table: the fault path (src/fault.c) and the mirror (src/mirror.c)
 * gather the data and act on the answers.
 *
 * Density. A fault's range grows to the largest aligned power-of-two
 * region of its 2 MiB block, of 2 to 512 pages around a faulted page, in
 * which more than prefetch_threshold percent of the pages is faulted in
 * this batch or already mapped on the GPU. The growth stays inside the
 * bounds the mirror gives (nvsvm_mirror_bounds(): the managed part of the
 * block on the faults' side of the unmanaged window, below the area's
 * limit, inside the readable VMAs of the first and last fault). The pages
 * it adds ask nothing of the CPU (a snapshot): each the CPU maps is mapped
 * as the CPU maps it (hmm reports write where the CPU PTE is writable), so
 * a prefetch never breaks copy-on-write, dirties a shared file page or
 * replaces the zero page; only the faults' own pages are faulted for
 * writing. If hmm still fails on the grown range, the fault path serves
 * the faults alone, so a prefetch never cancels anything.
 *
 * Fill. The added pages not valid on the GPU form the fill set
 * (&nvsvm_range_req.fill); valid ones are only snapshotted, which keeps
 * them where a fault would revoke a page our GPU atomic holds
 * exclusively. After the snapshot, the mirror faults in those the CPU has
 * nothing for: around a write (&nvsvm_range_req.fill_write), for writing,
 * only where that gives a fresh zeroed page and nothing else (a private
 * anonymous writable VMA), as a first CPU write there would; around
 * reads, for reading (a page the CPU never touched maps the zero page).
 * It leaves what the CPU or another device holds: swap, migration,
 * device-private and device-exclusive entries (issue 32: a write fault of
 * a swapped page broke its copy-on-write; a read fault revoked another
 * GPU's atomic or moved its page out of its VRAM). A first-touch write
 * storm then takes about one fault per doubling, not one per page, and
 * never maps the zero page read-only ahead of its writes (each write
 * would replace it through an invalidate).
 *
 * Spans. When a page needs a fault, hmm_range_fault() faults it and every
 * page after it to the end of its walk step (up to the range's end) with
 * that page's flags, whatever those pages asked: one page asked for
 * writing would write-fault the pages after it, and any fault would fault
 * the pages not asked again (taking back a page a GPU atomic holds
 * exclusively). So a range is served in spans of pages that all ask the
 * same. A span grows to a THP's whole block only if it asks for writing
 * or no page of the range does.
 */
#include <linux/bitmap.h>
#include <linux/hmm.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/userfaultfd_k.h>

#include "nvsvm_core.h"
#include "nvsvm_prefetch.h"

static unsigned int prefetch_threshold = 51;
module_param(prefetch_threshold, uint, 0644);
MODULE_PARM_DESC(prefetch_threshold,
		 "prefetch a region around a fault when more than this percentage of it is faulted or mapped (1-100, default 51; 0 = off)");

/**
 * nvsvm_prefetch_threshold() - the density threshold, read once per range
 *
 * Return: a percentage from 1 to 100, or 0 when the prefetch is off.
 */
unsigned int nvsvm_prefetch_threshold(void)
{
	unsigned int thr = READ_ONCE(prefetch_threshold);

	return thr > 100 ? 0 : thr;
}

/*
 * Pages of @dense set in the aligned region of @n pages at @r: @n a power
 * of two of at most NVSVM_RANGE_MAX_PAGES, @r a multiple of it. Whole
 * words from 64 pages up, one masked word below.
 */
static unsigned long nvsvm_prefetch_count(const unsigned long *dense,
					  unsigned long r, unsigned long n)
{
	if (n >= BITS_PER_LONG)
		return bitmap_weight(dense + BIT_WORD(r), n);
	return hweight_long((dense[BIT_WORD(r)] >> (r % BITS_PER_LONG)) &
			    BITMAP_LAST_WORD_MASK(n));
}

/**
 * nvsvm_prefetch_region() - the dense region around the faults of a block
 * @thr: nvsvm_prefetch_threshold(), not 0
 * @block: address of the 2 MiB block
 * @req: per page of the block, the faults' HMM_PFN_REQ_* flags (0: none)
 * @asked: per page of the block, set where @req is not 0
 * @dense: per page of the block, faulted (@asked) or valid on the GPU
 * @lo: (in/out) the faults' first address; lowered to the region's start
 * @hi: (in/out) the faults' end; raised to the region's end
 * @fill_write: (out) set when a fault asks for writing
 *
 * Each fault's region is the largest dense aligned one around it; a fault
 * inside the region found for an earlier one has that region too (every
 * larger aligned region holding it holds the earlier fault), so only the
 * faults past the last region found are counted: one word count per order
 * and region, not one pass over the block per fault.
 *
 * Return: true when some region around a fault is dense (*@lo and *@hi
 * then cover it, to be cut to the mirror's bounds by the caller).
 */
bool nvsvm_prefetch_region(unsigned int thr, u64 block,
			   const unsigned long *req, const unsigned long *asked,
			   const unsigned long *dense, u64 *lo, u64 *hi,
			   bool *fill_write)
{
	unsigned long first = ULONG_MAX, last = 0, covered = 0, i;
	unsigned int order;

	for_each_set_bit(i, asked, NVSVM_RANGE_MAX_PAGES) {
		if (req[i] & HMM_PFN_REQ_WRITE)
			*fill_write = true;
		if (i < covered)
			continue;
		for (order = ilog2(NVSVM_RANGE_MAX_PAGES); order > 0; order--) {
			unsigned long n = 1UL << order, r = ALIGN_DOWN(i, n);

			if (nvsvm_prefetch_count(dense, r, n) * 100UL > thr * n) {
				first = min(first, r);
				last = max(last, r + n);
				covered = r + n;
				break;
			}
		}
	}
	if (last <= first)
		return false;
	/* The faults lie on one side of the window (nvsvm_fault_inst()). */
	*lo = min_t(u64, block + (first << PAGE_SHIFT), *lo);
	*hi = max_t(u64, block + (last << PAGE_SHIFT), *hi);
	return true;
}

/**
 * nvsvm_prefetch_fill_set() - the pages of a grown range to fill
 * @block: address of the 2 MiB block
 * @dense: the pages faulted or valid, as for nvsvm_prefetch_region()
 * @lo: the grown range's start, in @block
 * @hi: its end
 * @fill: bitmap per page of the block, zeroed by the caller: the pages
 *	of [@lo, @hi) neither faulted nor valid on the GPU are set
 */
void nvsvm_prefetch_fill_set(u64 block, const unsigned long *dense, u64 lo,
			     u64 hi, unsigned long *fill)
{
	bitmap_set(fill, (lo - block) >> PAGE_SHIFT, (hi - lo) >> PAGE_SHIFT);
	bitmap_andnot(fill, fill, dense, NVSVM_RANGE_MAX_PAGES);
}

/**
 * nvsvm_prefetch_writes() - does a page of a range ask for writing?
 * @req: flags per page
 * @asked: set where @req is not 0
 * @i: first page
 * @n: end (exclusive)
 *
 * Return: true when one of pages [@i, @n) asks for writing.
 */
bool nvsvm_prefetch_writes(const unsigned long *req,
			   const unsigned long *asked, unsigned long i,
			   unsigned long n)
{
	for (i = find_next_bit(asked, n, i); i < n;
	     i = find_next_bit(asked, n, i + 1))
		if (req[i] & HMM_PFN_REQ_WRITE)
			return true;
	return false;
}

/**
 * nvsvm_prefetch_span() - the span of a range that starts at a page
 * @req: flags per page
 * @asked: set where @req is not 0
 * @i: its first page
 * @n: the range's end (exclusive), above @i
 * @thp: the range may grow to a THP's block
 * @writes: nvsvm_prefetch_writes() of the range
 * @grow_thp: (out) this span may grow to a THP's block: only if it asks
 *	for writing or no page of the range does
 *
 * Return: the end of the span: the pages from @i that ask what @i asks
 * (a run of pages asking nothing ends at the next page asked).
 */
unsigned long nvsvm_prefetch_span(const unsigned long *req,
				  const unsigned long *asked, unsigned long i,
				  unsigned long n, bool thp, bool writes,
				  bool *grow_thp)
{
	unsigned long j;

	if (!test_bit(i, asked))
		j = find_next_bit(asked, n, i + 1);
	else
		for (j = i + 1; j < n && test_bit(j, asked) && req[j] == req[i];
		     j++)
			;
	*grow_thp = thp && (!writes || (req[i] & HMM_PFN_REQ_WRITE));
	return j;
}

/**
 * nvsvm_prefetch_thp() - grow a range to the THP the CPU maps there?
 * @req: a range hmm_range_fault() just reported (&nvsvm_range_req.pfns)
 *
 * When the range may grow to its block (&nvsvm_range_req.grow_thp), does
 * not cover it whole, and the CPU maps it with a PMD, the range becomes
 * the whole 2 MiB block, so that the GPU maps it with one 2 MiB PTE. The
 * range lies in one block, under one PMD: its first valid page tells (a
 * THP split or collapsed during the walk is an invalidation, which the
 * sequence check after it catches).
 *
 * Return: true when @req grew (the caller reports the block again).
 */
bool nvsvm_prefetch_thp(struct nvsvm_range_req *req)
{
	u64 block = ALIGN_DOWN(req->start, SZ_2M);
	u64 addr;

	if (!req->grow_thp || (req->start == block &&
			       req->end == block + SZ_2M))
		return false;
	for (addr = req->start; addr < req->end; addr += PAGE_SIZE) {
		unsigned long hpfn = req->pfns[(addr - req->base) >> PAGE_SHIFT];

		if (!(hpfn & HMM_PFN_VALID))
			continue;
		if (hmm_pfn_to_map_order(hpfn) < 21 - PAGE_SHIFT)
			return false;
		req->start = block;
		req->end = block + SZ_2M;
		return true;
	}
	return false;
}

/**
 * nvsvm_prefetch_fill_vma() - may a page of the fill set be faulted in here?
 * @vma: the VMA at @addr (the caller's look-up, under its mmap lock), or
 *	NULL
 * @addr: the page
 * @fill_write: the fill is for writing (&nvsvm_range_req.fill_write)
 *
 * For writing, only in a private anonymous writable VMA: there a write to
 * a missing page allocates a zeroed page of the process, as the CPU's own
 * first write would; in a file mapping it would make a private copy of a
 * file page (or dirty a shared one); a VMA userfaultfd watches is never
 * faulted at all. For reading, in any readable VMA.
 *
 * Return: true when the VMA allows it.
 */
bool nvsvm_prefetch_fill_vma(struct vm_area_struct *vma, u64 addr,
			     bool fill_write)
{
	if (vma)
		nvsvm_mmap_assert_locked(vma->vm_mm);
	if (!fill_write)
		return vma && (vma->vm_flags & VM_READ);
	return vma && addr >= vma->vm_start && addr < vma->vm_end &&
	       vma_is_anonymous(vma) && (vma->vm_flags & VM_WRITE) &&
	       !(vma->vm_flags & VM_SHARED) &&
	       !userfaultfd_armed(vma);
}

/**
 * nvsvm_prefetch_fill_pte() - may a page be faulted in over this CPU PTE?
 * @pte: what the CPU's page table holds there (nvsvm_mirror_cpu_pte())
 * @fill_write: the fill is for writing
 *
 * Around a write, only where the CPU has nothing at all; around a read,
 * where it has nothing or a present page it did not grant (a NUMA hinting
 * entry). Never a swap entry (a write fault would break its copy-on-write,
 * a read would be I/O and memory for a page reclaim chose and nobody asked
 * for), a migration entry, another device's device-private page (it would
 * migrate back from its VRAM) or a device-exclusive entry (it would revoke
 * another device's atomic access): those stay unmapped on the GPU.
 *
 * Return: true when the fault takes nothing the CPU or a device holds.
 */
bool nvsvm_prefetch_fill_pte(enum nvsvm_cpu_pte pte, bool fill_write)
{
	return pte == NVSVM_CPU_NONE ||
	       (!fill_write && pte == NVSVM_CPU_PRESENT);
}

/**
 * nvsvm_prefetch_fill_room() - room for a write fill of more pages?
 * @mm: the area's mm
 * @pages: pages the fill would add
 *
 * Filled pages are a prefetch: one that brought a memory cgroup (or the
 * system) to reclaim or to an OOM kill for pages nobody asked for would be
 * a regression, so a fill needs its size twice over plus a 2 MiB block of
 * headroom below memory.max of the mm's group and each ancestor, and
 * twice its size plus 1/64 of RAM available in the system.
 *
 * Return: true when there is room.
 */
bool nvsvm_prefetch_fill_room(struct mm_struct *mm, unsigned long pages)
{
	bool room = si_mem_available() >= 2 * pages + (totalram_pages() >> 6);
#ifdef CONFIG_MEMCG
	unsigned long want = 2 * pages + (SZ_2M >> PAGE_SHIFT);
	struct mem_cgroup *memcg = get_mem_cgroup_from_mm(mm), *m;

	for (m = memcg; m && room; m = parent_mem_cgroup(m))
		room = page_counter_read(&m->memory) + want <=
		       READ_ONCE(m->memory.max);
	mem_cgroup_put(memcg);
#endif
	return room;
}
