// SPDX-License-Identifier: GPL-2.0
/*
 * GPU atomics on system memory through exclusive access, for the fault
 * path (nvsvm_mirror_atomic(); the modes: nvsvm_mirror_exclusive_atomics(),
 * src/mirror.c).
 *
 * An atomic fault on a private anonymous page takes the page for exclusive
 * device access (make_device_exclusive()) and has the mirror map it with
 * atomics enabled, after the sequence check of the mirror's notifier
 * (nvsvm_mirror_notifier(), nvsvm_mirror_map_exclusive()), while the page
 * is still locked; a page of a large folio that cannot be taken (before
 * 6.15) is moved to VRAM (src/dmem.c). A page that cannot be made
 * exclusive gets atomics on the writable GPU PTE that maps it, on a link
 * coherent for atomics only. The functions keep the mirror's names: they
 * are the mirror's atomics, in a file of their own above it.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>
#include <linux/rmap.h>
#include <linux/xarray.h>

#include "nvsvm_atomic.h"
#include "nvsvm_core.h"
#include "nvsvm_dmem.h"
#include "nvsvm_mirror.h"
#include "nvsvm_thrash.h"
#include "nvsvm_vmm.h"

#if NVSVM_HAVE_DEVICE_EXCLUSIVE
/*
 * Tries of one exclusive take before the access is left to its replay. A
 * try fails only when the mirror changed between the sequence read and the
 * check (anywhere in the notifier's interval): each try starts afresh, so
 * a few suffice, and the fault worker never waits on HMM's timeout.
 */
#define NVSVM_ATOMIC_TRIES	4

/* Does a PMD (a THP) map @addr? The mmap lock held. */
static bool nvsvm_mirror_pmd_mapped(struct mm_struct *mm, u64 addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;

	nvsvm_mmap_assert_locked(mm);
	if (pgd_none(READ_ONCE(*pgd)))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)))
		return false;
	pud = pud_offset(p4d, addr);
	if (pud_none(READ_ONCE(*pud)) || pud_leaf(READ_ONCE(*pud)))
		return false;
	pmd = pmd_offset(pud, addr);
	return pmd_trans_huge(READ_ONCE(*pmd));
}

/*
 * Before each try, outside the notifier's read window: fault the page in
 * for writing, and tell whether nvsvm takes it for exclusive access: an
 * anonymous page of a private mapping (a written page of a private file
 * mapping too, such as a program's globals), not KSM. A page of a large folio (a THP) can be
 * taken from 6.15 on (make_device_exclusive() takes one page of a
 * PTE-mapped folio): the PMD that maps it is split here first
 * (FOLL_SPLIT_PMD), counted in atomic_split. Before 6.15,
 * make_device_exclusive_range() takes the head page of a large folio
 * only and then replaces the PTEs of the whole folio, and refuses a tail
 * page: such a page can only be moved to VRAM (-EXDEV). The fault
 * restores a device-exclusive entry an earlier try left (an
 * MMU_NOTIFY_EXCLUSIVE event without owner): inside the window, that
 * event would fail every later try.
 *
 * Return: 0 when the page can be taken, -EXDEV when it is a private
 * anonymous page of a large folio that cannot, -EAGAIN when it is not
 * private anonymous (shared, a file's page cache, KSM), or the errno of
 * the fault (-EFAULT: not writable).
 */
static int nvsvm_mirror_exclusive_prepare(struct nvsvm_svmm *svmm, u64 addr)
{
	struct mm_struct *mm = svmm->mm;
	unsigned int gup = FOLL_GET | FOLL_WRITE;
	struct vm_area_struct *vma;
	bool split = false;
	struct page *page;
	long n;
	int ret;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma) {
		ret = -EFAULT;
	} else if (vma->vm_flags & VM_SHARED) {
		ret = -EAGAIN;
	} else {
		if (NVSVM_EXCLUSIVE_LARGE_FOLIO &&
		    nvsvm_mirror_pmd_mapped(mm, addr)) {
			gup |= FOLL_SPLIT_PMD;
			split = true;
		}
		n = nvsvm_get_user_pages_remote(mm, addr, 1, gup, &page, NULL);
		if (n == 1) {
			if (!PageAnon(page) || folio_test_ksm(page_folio(page)))
				ret = -EAGAIN;
			else if (PageCompound(page) &&
				 !NVSVM_EXCLUSIVE_LARGE_FOLIO)
				ret = -EXDEV;
			else
				ret = 0;
			put_page(page);
			if (split)
				nvsvm_stat_add(svmm->ndev,
					       NVSVM_STAT_ATOMIC_SPLIT, 1);
		} else {
			ret = n < 0 ? n : -EFAULT;
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * A private anonymous page of a large folio that cannot be taken for
 * exclusive access (before 6.15): move it to VRAM, where the GPU's
 * atomics are exact (migrate_vma splits the THP). The caller maps it.
 * Without thrashing detection: each move is what an atomic needs.
 *
 * Return: 1 when it is in VRAM now, -EAGAIN when it could not be moved
 * (no VRAM, a page pinned or locked elsewhere), -EINTR, -ENOMEM.
 */
static int nvsvm_mirror_atomic_vram(struct nvsvm_svmm *svmm, u64 addr)
{
	struct xarray history;
	u64 moved = 0;
	long ret;

	if (!svmm->ndev->dmem)
		return -EAGAIN;
	xa_init(&history);
	ret = nvsvm_dmem_migrate(svmm->ndev, svmm->mm, addr, addr + PAGE_SIZE,
				 true, &history, &moved);
	nvsvm_thrash_free(&history);
	if (ret)
		return ret;
	if (!moved)
		return -EAGAIN;
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_ATOMIC_VRAM, 1);
	return 1;
}

/* A valid writable PTE gets atomics enabled (see nvsvm_mirror_shared()). */
static u64 nvsvm_mirror_pte_atomic(void *priv, u64 addr, unsigned int shift,
				   u64 old)
{
	struct nvsvm_svmm *svmm = priv;
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;
	u32 flags = desc->pte_flags(old);

	if ((flags & (NVSVM_PTE_VALID | NVSVM_PTE_WRITE)) !=
	    (NVSVM_PTE_VALID | NVSVM_PTE_WRITE))
		return old;
	return desc->pte(desc->pte_addr(old), flags | NVSVM_PTE_ATOMIC);
}

/*
 * A page that cannot be made exclusive, on a link coherent for atomics
 * (gpu->host_atomics): enable atomics on the GPU PTE that maps it now,
 * whatever its size (a 2 MiB PTE of a THP, a 64 KiB one of a run of a
 * large folio or of shared memory), when it is writable. A 4 KiB
 * mapping of the page alone would be shadowed by it. No hmm walk is needed:
 * under the mutex, a valid writable PTE maps the page the CPU maps
 * writable (the invariant at the top), and atomics on it are what the
 * shared rule grants. Where nothing valid maps it, the caller's map of the
 * page does.
 */
static void nvsvm_mirror_shared(struct nvsvm_svmm *svmm, u64 addr,
				bool *changed)
{
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;
	unsigned int shift = PAGE_SHIFT;
	u64 pte, start, skipped = 0;

	/* Nothing valid is left in a dead area: nothing to upgrade there. */
	mutex_lock(&svmm->mutex);
	pte = nvsvm_vmm_lookup(&svmm->vmm, addr, &shift);
	if ((desc->pte_flags(pte) & (NVSVM_PTE_VALID | NVSVM_PTE_WRITE |
				     NVSVM_PTE_ATOMIC)) ==
	    (NVSVM_PTE_VALID | NVSVM_PTE_WRITE)) {
		start = ALIGN_DOWN(addr, 1ULL << shift);
		if (!nvsvm_vmm_map(&svmm->vmm, start, start + (1ULL << shift),
				   shift, nvsvm_mirror_pte_atomic, svmm,
				   &skipped))
			*changed = true;
	}
	mutex_unlock(&svmm->mutex);
}

/**
 * nvsvm_mirror_atomic() - serve a GPU atomic through exclusive access
 * @svmm: area, as for nvsvm_mirror_range()
 * @addr: page address
 * @changed: set when a TLB invalidate is due
 *
 * Takes the page for exclusive device access: the CPU's PTE becomes a
 * device-exclusive entry (the MMU_NOTIFY_EXCLUSIVE event this raises with
 * the device as owner is ours and ignored), then maps it 4 KiB with
 * atomics enabled, under the mutex and after the sequence check, while the
 * page is still locked; its timeslice starts (atomic_timeslice_us). A CPU
 * access later restores its PTE through an MMU_NOTIFY_EXCLUSIVE event
 * without owner (MMU_NOTIFY_CLEAR in 7.3), which removes the GPU mapping
 * once the timeslice is over (src/mirror.c).
 * At most NVSVM_ATOMIC_TRIES tries, each after
 * nvsvm_mirror_exclusive_prepare().
 *
 * A private anonymous page of a large folio that cannot be taken (before
 * 6.15) is moved to VRAM instead (nvsvm_mirror_atomic_vram()).
 *
 * Return: 0; 1 when the page was moved to VRAM (the caller maps it as
 * for any fault); -EAGAIN when the page cannot be made exclusive (not
 * private anonymous, KSM; a large folio with no VRAM to move it to): on a
 * link coherent for atomics (gpu->host_atomics), atomics are then enabled
 * on a writable GPU PTE that maps it, and the caller maps it with atomics
 * enabled where none does; otherwise the caller refuses the atomic.
 * -EFAULT or -EPERM when it cannot be had for writing; -EBUSY when it
 * could not be taken this time (the fault is replayed), -ENOMEM, -EINTR.
 */
int nvsvm_mirror_atomic(struct nvsvm_svmm *svmm, u64 addr, bool *changed)
{
	struct mmu_interval_notifier *mni = nvsvm_mirror_notifier(svmm, addr);
	struct page *page;
	unsigned long seq;
	unsigned int try;
	bool dead;
	int ret;

	for (try = 0; try < NVSVM_ATOMIC_TRIES; try++) {
		ret = nvsvm_vmm_reserve(&svmm->vmm, addr, addr + PAGE_SIZE);
		if (ret)
			return ret;
		ret = nvsvm_mirror_exclusive_prepare(svmm, addr);
		if (ret == -EXDEV)
			ret = nvsvm_mirror_atomic_vram(svmm, addr);
		if (ret == -EAGAIN && svmm->ndev->gpu->host_atomics)
			nvsvm_mirror_shared(svmm, addr, changed);
		if (ret)
			return ret;
		seq = mmu_interval_read_begin(mni);
		mmap_read_lock(svmm->mm);
		page = nvsvm_make_device_exclusive(svmm->mm, addr, svmm->ndev);
		mmap_read_unlock(svmm->mm);
		/* Not anonymous any more (7.3): the next check says so. */
		if (page == ERR_PTR(-EOPNOTSUPP))
			continue;
		if (IS_ERR(page))
			return PTR_ERR(page);
		if (!page)
			continue;	/* lost a race: folio lock, PTE */

		mutex_lock(&svmm->mutex);
		dead = svmm->dead;
		if (dead || mmu_interval_read_retry(mni, seq)) {
			mutex_unlock(&svmm->mutex);
			unlock_page(page);
			put_page(page);
			if (dead)
				return -EBUSY;
			continue;
		}
		/* A valid PTE there (4 KiB or larger) would shadow the new one. */
		nvsvm_mirror_unmap_locked(svmm, addr, addr + PAGE_SIZE);
		ret = nvsvm_mirror_map_exclusive(svmm, addr, page, changed);
		mutex_unlock(&svmm->mutex);
		if (!ret)
			nvsvm_mirror_atomic_taken(svmm, addr);
		unlock_page(page);
		put_page(page);
		if (ret != -ENOMEM)
			return ret;
	}
	return -EBUSY;
}
#else
int nvsvm_mirror_atomic(struct nvsvm_svmm *svmm, u64 addr, bool *changed)
{
	return -EAGAIN;
}
#endif
