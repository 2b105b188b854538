// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU side of the mirror's snapshot: what nvsvm_mirror_range()'s
 * hmm_range_fault() call may fault in, decided on what the CPU maps, under
 * the mmap lock the snapshot holds.
 *
 * - Nothing where userfaultfd watches a VMA of the range: the snapshot
 *   then faults nothing, and its result is checked against what was asked
 *   (nvsvm_mirror_uffd(), nvsvm_mirror_uffd_check()). A MAP ioctl then
 *   faults the missing pages in from its caller's context, outside
 *   nvsvm's locks, waiting for the handler (nvsvm_mirror_uffd_wait());
 *   a GPU fault there waits the same way, in its area's userfaultfd
 *   thread (src/fault.c).
 * - The density prefetch's fill pages, after the snapshot, where the CPU's
 *   page table holds nothing (nvsvm_mirror_fill()): the VMA and page-table
 *   reads are here, the decisions are the prefetch policy's
 *   (src/prefetch.c).
 *
 * No GPU page table, no lock of the area: the mirror writes the PTEs of
 * what the snapshot found, after its sequence check (src/mirror.c).
 */
#include <linux/bitmap.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>
#include <linux/userfaultfd_k.h>

#include "nvsvm_core.h"
#include "nvsvm_prefetch.h"
#include "nvsvm_snapshot.h"

/**
 * nvsvm_mirror_uffd() - does userfaultfd watch a range?
 * @mm: the mm, its mmap lock held
 * @start: first address
 * @end: end (exclusive)
 *
 * A page missing in a VMA that userfaultfd watches would be a userfault.
 * hmm_range_fault() faults without FAULT_FLAG_ALLOW_RETRY, so the
 * userfault would fail anyway (SIGBUS, after a warning on DEBUG_VM
 * kernels): the snapshot of such a range faults nothing, and a MAP or
 * the area's userfaultfd thread waits for the handler
 * (nvsvm_mirror_uffd_wait()).
 *
 * Return: true when a VMA of [@start, @end) has userfaultfd armed.
 */
bool nvsvm_mirror_uffd(struct mm_struct *mm, u64 start, u64 end)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;

	nvsvm_mmap_assert_locked(mm);
	for_each_vma_range(vmi, vma, end)
		if (userfaultfd_armed(vma))
			return true;
	return false;
}

/**
 * nvsvm_mirror_uffd_check() - did a snapshot that faulted nothing find
 *	what was asked?
 * @req: the range, its snapshot in @req->pfns (nvsvm_mirror_uffd())
 * @first: index of its first page in @req->pfns
 * @last: end (exclusive)
 *
 * Return: 0, or -EFAULT when a page of [@first, @last) lacks what was
 * asked of it, as hmm_range_fault() would have said had it faulted.
 */
int nvsvm_mirror_uffd_check(struct nvsvm_range_req *req, unsigned long first,
			    unsigned long last)
{
	unsigned long i, want;

	for (i = first; i < last; i++) {
		want = req->req ? req->req[i] : req->default_flags;
		if (((want & HMM_PFN_REQ_FAULT) &&
		     !(req->pfns[i] & HMM_PFN_VALID)) ||
		    ((want & HMM_PFN_REQ_WRITE) &&
		     !(req->pfns[i] & HMM_PFN_WRITE)))
			break;
	}
	if (i == last)
		return 0;
	if (req->uffd) {
		/* The rest of the range asks the same (a MAP's). */
		req->uffd->pending = true;
		req->uffd->start = req->base + (i << PAGE_SHIFT);
		req->uffd->end = req->base + (last << PAGE_SHIFT);
		req->uffd->write = want & HMM_PFN_REQ_WRITE;
	}
	return -EFAULT;
}

/**
 * nvsvm_mirror_uffd_wait() - fault in what a MAP found missing where
 *	userfaultfd watches, waiting for the handler
 * @mm: the mm, its users held: the caller's own (the MAP ioctl runs in
 *	it), or the area's (its userfaultfd thread, nvsvm_fault_uffd_wait())
 * @w: the pages, as nvsvm_mirror_uffd_check() recorded them
 *
 * As a CPU access of the caller would: fixup_user_fault() with
 * FAULT_FLAG_ALLOW_RETRY and FAULT_FLAG_KILLABLE, so that the userfault
 * drops the mmap lock and sleeps until the handler resolves it (or closes
 * the userfaultfd), and a fatal signal ends the wait. The caller holds no
 * lock of nvsvm's, of the area or of the device: a handler that never
 * answers holds up this call only, never another's faults, the area's
 * teardown or the device's unregister.
 *
 * Return: 0 (the caller maps again), -EINTR on a fatal signal, or the
 * fault's errno (-EFAULT: no VMA, not writable, SIGBUS from the handler).
 */
int nvsvm_mirror_uffd_wait(struct mm_struct *mm,
			   const struct nvsvm_uffd_wait *w)
{
	unsigned int flags = w->write ? FAULT_FLAG_WRITE : 0;
	bool unlocked = false;
	u64 addr;
	int ret = 0;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	for (addr = w->start; addr < w->end && !ret; addr += PAGE_SIZE)
		ret = fixup_user_fault(mm, addr, flags, &unlocked);
	mmap_read_unlock(mm);
	return ret;
}

/*
 * What the CPU's page table holds at @addr of @mm, read without faulting
 * or locking it: hmm's snapshot reports every entry that is not a present
 * page the same way (not valid), whether the CPU has nothing there or a
 * swap, migration, device-private or device-exclusive entry (or a marker):
 * NVSVM_CPU_OTHER is all of those. The caller holds the mmap lock and
 * found @addr inside a VMA, so no table above the last level goes away
 * (free_pgtables() keeps those a live VMA uses); a last-level table can
 * be freed under the read lock from 6.5 on (khugepaged, empty-table
 * reclaim), after an RCU grace period: RCU keeps it readable here (on
 * 64-bit it is in the direct map: pte_offset_kernel() reaches it). The
 * answer may be stale at once: the caller acts on it only through
 * hmm_range_fault() with the snapshot's notifier sequence, and every
 * change from an empty entry to one of the others passes through a
 * present page whose removal is an invalidation (-EBUSY then).
 */
static enum nvsvm_cpu_pte nvsvm_mirror_cpu_pte(struct mm_struct *mm,
					       u64 addr)
{
	enum nvsvm_cpu_pte ret;
	pgd_t *pgdp = pgd_offset(mm, addr);
	p4d_t *p4dp;
	pud_t pud;
	pmd_t pmd;
	pte_t pte;

	if (pgd_none(READ_ONCE(*pgdp)))
		return NVSVM_CPU_NONE;
	if (pgd_bad(READ_ONCE(*pgdp)))
		return NVSVM_CPU_OTHER;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(READ_ONCE(*p4dp)))
		return NVSVM_CPU_NONE;
	if (p4d_bad(READ_ONCE(*p4dp)))
		return NVSVM_CPU_OTHER;
	pud = READ_ONCE(*pud_offset(p4dp, addr));
	if (pud_none(pud))
		return NVSVM_CPU_NONE;
	if (!pud_present(pud))
		return NVSVM_CPU_OTHER;
	if (pud_leaf(pud))
		return NVSVM_CPU_PRESENT;
	if (pud_bad(pud))
		return NVSVM_CPU_OTHER;
	pmd = READ_ONCE(*pmd_offset(&pud, addr));
	if (pmd_none(pmd))
		return NVSVM_CPU_NONE;
	if (!pmd_present(pmd))
		return NVSVM_CPU_OTHER;	/* a THP's migration entry */
	if (pmd_leaf(pmd))
		return NVSVM_CPU_PRESENT;
	if (pmd_bad(pmd))
		return NVSVM_CPU_OTHER;
	rcu_read_lock();
	pte = ptep_get(pte_offset_kernel(&pmd, addr));
	rcu_read_unlock();
	if (pte_none(pte))
		ret = NVSVM_CPU_NONE;
	else if (pte_present(pte))
		ret = NVSVM_CPU_PRESENT;
	else
		ret = NVSVM_CPU_OTHER;
	return ret;
}

/*
 * Does nvsvm_mirror_fill() fault in page @i of @req? Only a page of
 * req->fill the snapshot found not valid, where the prefetch policy
 * allows it for the VMA (*@vma caches the look-up) and for what the CPU's
 * page table holds there (nvsvm_prefetch_fill_vma(),
 * nvsvm_prefetch_fill_pte()).
 */
static bool nvsvm_mirror_fill_page(struct mm_struct *mm,
				   const struct nvsvm_range_req *req,
				   unsigned long i, struct vm_area_struct **vma)
{
	u64 addr = req->base + (i << PAGE_SHIFT);

	if (!test_bit(i, req->fill) ||
	    (req->pfns[i] & (HMM_PFN_VALID | HMM_PFN_ERROR)))
		return false;
	if (!*vma || addr < (*vma)->vm_start || addr >= (*vma)->vm_end)
		*vma = vma_lookup(mm, addr);
	if (!nvsvm_prefetch_fill_vma(*vma, addr, req->fill_write))
		return false;
	return nvsvm_prefetch_fill_pte(nvsvm_mirror_cpu_pte(mm, addr),
				       req->fill_write);
}

/**
 * nvsvm_mirror_fill() - fault in the prefetch's fill pages after a snapshot
 * @mm: the mm, its mmap lock held since the snapshot
 * @req: the range, its snapshot in @req->pfns
 * @snap: the snapshot's hmm range (its notifier and sequence)
 * @first: index of the range's first page in @req->pfns
 * @last: end (exclusive)
 *
 * After the snapshot @snap: fault in the pages of req->fill (the
 * density prefetch's) that nvsvm_mirror_fill_page() picks, for writing
 * around a write (req->fill_write: a first-touch write storm then needs
 * about one fault per doubling of the prefetch instead of one per page),
 * for reading otherwise. Pages the CPU maps are left as the snapshot
 * found them: copy-on-write, the zero page and file pages stay; so are
 * swap, migration, device-private and device-exclusive entries. Each run
 * of such pages is its own hmm_range_fault() call, with the snapshot's
 * notifier sequence: a change since (fork write-protects, munmap,
 * migration, swap-out) is -EBUSY and the caller starts over; the mmap
 * lock held since the snapshot keeps the VMAs. A page the CPU maps in
 * between (a read maps the zero page) is replaced by a zeroed page of its
 * own, which reads the same. A write run without room
 * (nvsvm_prefetch_fill_room()) or a run that cannot be had (a file's end) is
 * left unmapped on the GPU: it was only a prefetch.
 *
 * Return: 0 or -EBUSY.
 */
int nvsvm_mirror_fill(struct mm_struct *mm, struct nvsvm_range_req *req,
		      const struct hmm_range *snap, unsigned long first,
		      unsigned long last)
{
	struct vm_area_struct *vma = NULL;
	struct hmm_range run = *snap;
	unsigned long i, j;
	int ret;

	nvsvm_mmap_assert_locked(mm);
	run.default_flags = HMM_PFN_REQ_FAULT;
	if (req->fill_write)
		run.default_flags |= HMM_PFN_REQ_WRITE;
	run.pfn_flags_mask = 0;
	for (i = first; i < last; i = j) {
		j = i + 1;
		if (!nvsvm_mirror_fill_page(mm, req, i, &vma))
			continue;
		while (j < last && nvsvm_mirror_fill_page(mm, req, j, &vma))
			j++;
		if (req->fill_write && !nvsvm_prefetch_fill_room(mm, j - i))
			continue;
		run.start = req->base + (i << PAGE_SHIFT);
		run.end = req->base + (j << PAGE_SHIFT);
		run.hmm_pfns = &req->pfns[i];
		ret = hmm_range_fault(&run);
		if (ret == -EBUSY)
			return ret;
		if (ret)
			memset(&req->pfns[i], 0, (j - i) * sizeof(req->pfns[0]));
	}
	return 0;
}
