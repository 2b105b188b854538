// SPDX-License-Identifier: GPL-2.0
/*
 * An area's life: the one place that creates a struct nvsvm_svmm, takes
 * and drops references on it, and frees it.
 *
 * Who holds a reference: the file (from AREA_INIT to its teardown,
 * nvsvm_svmm_fini()), an ioctl on a range while it runs
 * (nvsvm_svmm_get_range()), the device's fault work while it looks at the
 * area and each queueing of the area's fault work (src/fault.c), and each
 * channel a driver joined to the area (src/pascal.c). The last put frees
 * it, possibly from the area's own fault work.
 *
 * This file sits below the fault path and the mirror, which hold
 * references, and calls only the bottom floor (vmm.c, the thrashing
 * records, the device's reference): the release frees what the layers
 * above attached to the area (the fault path's share, one allocation)
 * without calling back up. Each of them sets up its own part after
 * nvsvm_svmm_create() (nvsvm_fault_svmm_init(), nvsvm_mirror_init(), from
 * AREA_INIT in src/svmm.c); the mirror holds its own reference on the mm
 * for its notifiers.
 */
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "nvsvm_area.h"
#include "nvsvm_core.h"
#include "nvsvm_gp100.h"
#include "nvsvm_thrash.h"
#include "nvsvm_vmm.h"

/*
 * Tell lockdep now that reclaim takes @svmm->mutex: the notifier callback
 * takes it, and reclaim (try_to_unmap(), migration) calls the notifiers.
 * An allocation that may enter reclaim under the mutex then warns at its
 * first run on a lockdep kernel, not only when a reclaim happens to meet
 * it (the rule is in nvsvm_core.h's lock list).
 */
static void nvsvm_svmm_prime_lockdep(struct nvsvm_svmm *svmm)
{
	if (!IS_ENABLED(CONFIG_LOCKDEP))
		return;
	fs_reclaim_acquire(GFP_KERNEL);
	might_lock(&svmm->mutex);
	fs_reclaim_release(GFP_KERNEL);
}

/**
 * nvsvm_svmm_create() - a new area, with one reference (the caller's)
 * @ndev: its GPU; the area holds a reference on it
 * @mm: the address space to mirror; the area holds it with mmgrab()
 * @unmanaged_start: the unmanaged window, page aligned
 * @unmanaged_end: its end (exclusive), at or above @unmanaged_start
 *
 * The area's page tables are charged to the caller's memory cgroup (see
 * src/vmm.c). Nothing mirrors yet: the caller sets up the fault path's
 * share and the mirror, and drops its reference with nvsvm_svmm_put() if
 * that fails.
 *
 * Return: the area or ERR_PTR(-ENOMEM).
 */
struct nvsvm_svmm *nvsvm_svmm_create(struct nvsvm_device *ndev,
				     struct mm_struct *mm, u64 unmanaged_start,
				     u64 unmanaged_end)
{
	struct nvsvm_svmm *svmm;
	int ret;

	svmm = kzalloc(sizeof(*svmm), NVSVM_GFP_USER);
	if (!svmm)
		return ERR_PTR(-ENOMEM);
	svmm->ndev = ndev;
	svmm->mm = mm;
	mmgrab(mm);
	kref_init(&svmm->kref);
	mutex_init(&svmm->mutex);
	nvsvm_svmm_prime_lockdep(svmm);
	xa_init(&svmm->blocks);
	xa_init(&svmm->takes);
	INIT_LIST_HEAD(&svmm->closing);
	svmm->unmanaged_start = unmanaged_start;
	svmm->unmanaged_end = unmanaged_end;
	svmm->limit = min_t(u64, mm->task_size, BIT_ULL(49));
	ret = nvsvm_vmm_init(&svmm->vmm, ndev->gpu->dev, &gp100_vmm_desc, mm,
			     &ndev->stats[NVSVM_STAT_PT_BYTES]);
	if (ret) {
		mmdrop(mm);
		kfree(svmm);
		return ERR_PTR(ret);
	}
	nvsvm_vmm_set_lock(&svmm->vmm, &svmm->mutex);
	kref_get(&ndev->kref);	/* put by nvsvm_svmm_release() */
	return svmm;
}

/**
 * nvsvm_svmm_get() - take a reference on an area
 * @svmm: area, on which the caller holds a reference or which it found
 *	under a lock that keeps it (the file's lock, the channel table's)
 *
 * Context: any; does not sleep.
 */
void nvsvm_svmm_get(struct nvsvm_svmm *svmm)
{
	kref_get(&svmm->kref);
}

static void nvsvm_svmm_release(struct kref *kref)
{
	struct nvsvm_svmm *svmm = container_of(kref, typeof(*svmm), kref);
	struct nvsvm_device *ndev = svmm->ndev;

	/* Unless the unregister freed them: nvsvm_svmm_unplug_all(). */
	spin_lock(&ndev->closing_lock);
	if (!svmm->frames_gone)
		nvsvm_vmm_fini(&svmm->vmm);
	list_del(&svmm->closing);
	spin_unlock(&ndev->closing_lock);
	/* The fault path's share: one block, see nvsvm_fault_svmm_init(). */
	kvfree(svmm->fault);
	nvsvm_thrash_free(&svmm->blocks);
	xa_destroy(&svmm->takes);
	mmdrop(svmm->mm);
	/* Its memory is back: nvsvm_svmm_fini() counted it closing. */
	if (svmm->dead)
		nvsvm_stat_add(ndev, NVSVM_STAT_AREAS_CLOSING, -1);
	kfree(svmm);
	nvsvm_device_put(ndev);
}

/**
 * nvsvm_svmm_put() - drop a reference on an area
 * @svmm: area; the last reference frees it
 */
void nvsvm_svmm_put(struct nvsvm_svmm *svmm)
{
	kref_put(&svmm->kref, nvsvm_svmm_release);
}

/**
 * nvsvm_svmm_managed() - is [start, end) mirrored?
 * @svmm: area
 * @start: first address
 * @end: end, exclusive; a range that wraps is not mirrored
 *
 * Return: true when the range is below the mirror's limit and does not
 * touch the unmanaged window.
 */
bool nvsvm_svmm_managed(struct nvsvm_svmm *svmm, u64 start, u64 end)
{
	/* A range that wraps (the last page of the 64-bit space) is none. */
	if (end <= start || end > svmm->limit)
		return false;
	return end <= svmm->unmanaged_start || start >= svmm->unmanaged_end;
}
