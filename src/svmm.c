// SPDX-License-Identifier: GPL-2.0
/*
 * SVM areas: one file's mirror of its process's address space on the GPU,
 * with an unmanaged window left to driver-managed buffers, and the
 * MAP/UNMAP/QUERY/MIGRATE ioctls over it.
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsvm_area.h"
#include "nvsvm_core.h"
#include "nvsvm_dmem.h"
#include "nvsvm_fault.h"
#include "nvsvm_mirror.h"
#include "nvsvm_svmm.h"
#include "nvsvm_vmm.h"

/* QUERY results are copied out in chunks of this many pages. */
#define NVSVM_QUERY_CHUNK	512

long nvsvm_ioctl_area_init(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_area_init args;
	struct nvsvm_svmm *svmm;
	u64 end;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags || args.reserved)
		return -EINVAL;
	if (!PAGE_ALIGNED(args.unmanaged_addr) ||
	    !PAGE_ALIGNED(args.unmanaged_size) ||
	    check_add_overflow(args.unmanaged_addr, args.unmanaged_size, &end) ||
	    end > NVSVM_UNMANAGED_LIMIT)
		return -EINVAL;

	svmm = nvsvm_svmm_create(nf->ndev, nf->mm, args.unmanaged_addr, end);
	if (IS_ERR(svmm))
		return PTR_ERR(svmm);
	ret = nvsvm_fault_svmm_init(svmm);
	if (ret) {
		nvsvm_svmm_put(svmm);
		return ret;
	}

	mutex_lock(&nf->lock);
	if (nf->svmm) {
		ret = -EBUSY;
		goto err_unlock;
	}
	ret = nvsvm_mirror_init(svmm);
	if (ret)
		goto err_unlock;
	nf->svmm = svmm;
	mutex_unlock(&nf->lock);
	return 0;

err_unlock:
	mutex_unlock(&nf->lock);
	nvsvm_svmm_put(svmm);
	return ret;
}

/**
 * nvsvm_svmm_fini() - tear down an area its file has let go
 * @svmm: the area, taken out of its file; no channel points at it any
 *	more (nvsvm_chan_detach_svmm(), see nvsvm_file_area_fini())
 *
 * No one maps any more (dead), every GPU mapping is released while the
 * notifiers still run, and the mirror stops. Drops the file's reference.
 * Waits for no MAP or fault work: one may be in a page-in that does not
 * complete (a FUSE read held, say); it finds the area dead under the
 * mutex and writes nothing.
 */
void nvsvm_svmm_fini(struct nvsvm_svmm *svmm)
{
	struct nvsvm_device *ndev = svmm->ndev;

	/* Until the last reference goes, see nvsvm_svmm_release(). */
	nvsvm_stat_add(ndev, NVSVM_STAT_AREAS_CLOSING, 1);

	mutex_lock(&svmm->mutex);
	WRITE_ONCE(svmm->dead, true);
	nvsvm_mirror_unmap_locked(svmm, 0, svmm->limit);
	mutex_unlock(&svmm->mutex);
	/* Accesses waiting for a userfaultfd handler: let go, cancelled. */
	nvsvm_fault_svmm_fini(svmm);
	nvsvm_mirror_fini(svmm);
	/* Empty now: nvsvm_svmm_unplug_all() may free its frames. */
	spin_lock(&ndev->closing_lock);
	list_add(&svmm->closing, &ndev->closing);
	spin_unlock(&ndev->closing_lock);
	nvsvm_svmm_put(svmm);
}

/**
 * nvsvm_svmm_unplug_all() - free the table frames of a GPU's areas
 * @ndev: device being unregistered: every area of it torn down, and no
 *	area work touching it any more (nvsvm_fault_unplug())
 *
 * An area torn down is freed with its last reference, which an area work
 * waiting for a page-in may hold for as long as a user's FUSE server
 * likes. Its page-table frames are DMA-mapped for the provider's device,
 * which goes with the unregister: they are freed here (each was emptied by
 * nvsvm_svmm_fini()), and the area's release frees plain memory only.
 * They stay until the release otherwise: a channel a driver joined to the
 * area (src/pascal.c) walks the emptied PD3 until it leaves.
 */
void nvsvm_svmm_unplug_all(struct nvsvm_device *ndev)
{
	struct nvsvm_svmm *svmm;

	spin_lock(&ndev->closing_lock);
	list_for_each_entry(svmm, &ndev->closing, closing) {
		if (svmm->frames_gone)
			continue;
		nvsvm_vmm_fini(&svmm->vmm);
		svmm->frames_gone = true;
	}
	spin_unlock(&ndev->closing_lock);
}

/**
 * nvsvm_svmm_get_range() - the file's area, for an ioctl on a range
 * @nf: file
 * @addr: start of the range
 * @size: its size
 * @psvmm: (out) the area, referenced (nvsvm_svmm_put() it)
 *
 * Return: 0, or -EINVAL when the range is not page aligned, empty,
 * wrapping or not mirrored, or the file has no area.
 */
long nvsvm_svmm_get_range(struct nvsvm_file *nf, u64 addr, u64 size,
			  struct nvsvm_svmm **psvmm)
{
	struct nvsvm_svmm *svmm;
	u64 end;

	if (!PAGE_ALIGNED(addr) || !PAGE_ALIGNED(size) || !size ||
	    check_add_overflow(addr, size, &end))
		return -EINVAL;
	mutex_lock(&nf->lock);
	svmm = nf->svmm;
	if (svmm)
		nvsvm_svmm_get(svmm);
	mutex_unlock(&nf->lock);
	if (!svmm)
		return -EINVAL;
	if (!nvsvm_svmm_managed(svmm, addr, end)) {
		nvsvm_svmm_put(svmm);
		return -EINVAL;
	}
	*psvmm = svmm;
	return 0;
}

/**
 * nvsvm_ioctl_map() - NVSVM_IOCTL_MAP
 * @nf: the file
 * @uarg: struct nvsvm_map
 * @uffd: (out) pending when the MAP met pages a userfaultfd handler must
 *	fill (then -EFAULT): the caller faults them in outside its locks
 *	(nvsvm_mirror_uffd_wait()) and calls again
 *
 * Return: 0 or an errno (docs/uapi.md).
 */
long nvsvm_ioctl_map(struct nvsvm_file *nf, void __user *uarg,
		     struct nvsvm_uffd_wait *uffd)
{
	struct nvsvm_svmm *svmm;
	struct nvsvm_map args;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags & ~NVSVM_MAP_FLAGS || args.reserved || args.mapped)
		return -EINVAL;
	ret = nvsvm_svmm_get_range(nf, args.addr, args.size, &svmm);
	if (ret)
		return ret;
	ret = nvsvm_mirror_map(svmm, args.addr, args.addr + args.size,
			       args.flags, &args.mapped, uffd);
	nvsvm_svmm_put(svmm);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

long nvsvm_ioctl_unmap(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_svmm *svmm;
	struct nvsvm_unmap args;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags || args.reserved)
		return -EINVAL;
	ret = nvsvm_svmm_get_range(nf, args.addr, args.size, &svmm);
	if (ret)
		return ret;
	mutex_lock(&svmm->mutex);
	nvsvm_mirror_unmap_locked(svmm, args.addr, args.addr + args.size);
	mutex_unlock(&svmm->mutex);
	nvsvm_svmm_put(svmm);
	return 0;
}

/*
 * Is every page of [@start, @end) valid on the GPU? A snapshot under the
 * area's mutex (nvsvm_mirror_valid()), one 2 MiB block at a time. Sleeps.
 */
static bool nvsvm_svmm_all_valid(struct nvsvm_svmm *svmm, u64 start, u64 end)
{
	DECLARE_BITMAP(valid, NVSVM_RANGE_MAX_PAGES);
	u64 block, lo, hi;

	for (block = ALIGN_DOWN(start, NVSVM_RANGE_MAX_BYTES); block < end;
	     block += NVSVM_RANGE_MAX_BYTES) {
		lo = (max(start, block) - block) >> PAGE_SHIFT;
		hi = (min(end, block + NVSVM_RANGE_MAX_BYTES) - block) >>
		     PAGE_SHIFT;
		nvsvm_mirror_valid(svmm, block, valid);
		if (find_next_zero_bit(valid, hi, lo) < hi)
			return false;
		cond_resched();
	}
	return true;
}

/* The chunk of the VRAM page at @vram counts as used at the stamp. */
struct nvsvm_svmm_use {
	struct nvsvm_device *ndev;
	unsigned long stamp;
};

static void nvsvm_svmm_used(void *data, u64 vram)
{
	struct nvsvm_svmm_use *u = data;

	nvsvm_dmem_used(u->ndev, vram, u->stamp);
}

/*
 * Is every page of [@start, @end) mapped on the GPU in its own VRAM? Then a
 * MIGRATE to VRAM has nothing to move, and migrate_vma_setup() would only
 * unmap the range from the GPU for the re-map to map it again (about 0.5 ms
 * a 2 MiB block under TCG, the cost of every hit of a runtime's prefetch).
 * The chunks of the pages seen count as used (evict_policy lru), as the
 * re-map would have stamped them. One walk per 2 MiB block under the
 * area's mutex (nvsvm_vmm_vram()); a page found otherwise stops it. Sleeps.
 */
static bool nvsvm_svmm_resident(struct nvsvm_svmm *svmm, u64 start, u64 end)
{
	struct nvsvm_svmm_use use = {
		.ndev = svmm->ndev,
		.stamp = nvsvm_dmem_stamp(svmm->ndev),
	};
	u64 addr, next;
	bool all;

	for (addr = start; addr < end; addr = next) {
		next = min(end, ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) +
				NVSVM_RANGE_MAX_BYTES);
		mutex_lock(&svmm->mutex);
		all = nvsvm_vmm_vram(&svmm->vmm, addr,
				     (next - addr) >> PAGE_SHIFT,
				     nvsvm_svmm_used, &use);
		mutex_unlock(&svmm->mutex);
		if (!all)
			return false;
		cond_resched();
	}
	return true;
}

/**
 * nvsvm_ioctl_migrate() - NVSVM_IOCTL_MIGRATE
 * @nf: the file
 * @uarg: struct nvsvm_migrate
 *
 * Best effort (nvsvm_dmem_migrate()). After a move to VRAM the range's
 * present pages are mapped on the GPU. So are they when the move moved
 * nothing: blocks left in system memory because they are thrashing (the
 * GPU is to work on them where they are, without a fault per page: UVM's
 * pin maps the pages remotely), pages in VRAM already (the move's
 * migrate_vma_setup() unmapped them from the GPU all the same); a range
 * mapped whole still is left as it is, without another hmm_range_fault();
 * a range all mapped in this GPU's VRAM is not even unmapped
 * (nvsvm_svmm_resident()).
 *
 * Return: 0 with @moved set; -EOPNOTSUPP without device-private memory,
 * -EINVAL for bad fields, no area or a range that is not mirrored,
 * -EINTR on a fatal signal, -ENOMEM, -EFAULT.
 */
long nvsvm_ioctl_migrate(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_migrate args;
	struct nvsvm_svmm *svmm;
	u64 end, mapped, moved;
	bool to_vram;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (!nf->ndev->dmem)
		return -EOPNOTSUPP;
	if (args.flags || args.moved || args.target > NVSVM_MIGRATE_TO_SYSMEM)
		return -EINVAL;
	ret = nvsvm_svmm_get_range(nf, args.addr, args.size, &svmm);
	if (ret)
		return ret;
	to_vram = args.target == NVSVM_MIGRATE_TO_VRAM;
	end = args.addr + args.size;
	if (to_vram && nvsvm_svmm_resident(svmm, args.addr, end)) {
		nvsvm_svmm_put(svmm);
		args.moved = 0;
		return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
	}
	ret = nvsvm_dmem_migrate(nf->ndev, current->mm, args.addr, end,
				 to_vram, &svmm->blocks, &moved);
	args.moved = moved;
	/*
	 * Map what is now in VRAM, what thrashing left in system memory, and
	 * what was in VRAM already: migrate_vma_setup() invalidated the GPU's
	 * mappings of the whole range, moved pages or not, and the GPU would
	 * fault each page back (the hot blocks of the oversubscription
	 * benchmark); a failure here only costs GPU faults.
	 */
	if (!ret && to_vram &&
	    (moved || !nvsvm_svmm_all_valid(svmm, args.addr, end)))
		nvsvm_mirror_map(svmm, args.addr, end, 0, &mapped, NULL);
	nvsvm_svmm_put(svmm);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

static u32 nvsvm_query_bits(struct nvsvm_svmm *svmm, u64 pte,
			    unsigned int shift)
{
	u32 flags = svmm->vmm.desc->pte_flags(pte);
	u32 bits = 0;

	if (!(flags & NVSVM_PTE_VALID))
		return 0;
	bits = NVSVM_QUERY_VALID | (shift << 8);
	if (flags & NVSVM_PTE_WRITE)
		bits |= NVSVM_QUERY_WRITE;
	if (flags & NVSVM_PTE_ATOMIC)
		bits |= NVSVM_QUERY_ATOMIC;
	if (flags & NVSVM_PTE_VRAM)
		bits |= NVSVM_QUERY_VRAM;
	if (nvsvm_mirror_is_zero(svmm, pte, shift))
		bits |= NVSVM_QUERY_ZERO;
	return bits;
}

long nvsvm_ioctl_query(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_svmm *svmm;
	struct nvsvm_query args;
	u32 __user *uentries;
	u64 done = 0;
	u32 *buf;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags || args.reserved || !args.npages ||
	    args.npages > NVSVM_QUERY_MAX)
		return -EINVAL;
	ret = nvsvm_svmm_get_range(nf, args.addr, args.npages << PAGE_SHIFT,
				   &svmm);
	if (ret)
		return ret;
	buf = kmalloc_array(NVSVM_QUERY_CHUNK, sizeof(*buf), NVSVM_GFP_USER);
	if (!buf) {
		ret = -ENOMEM;
		goto out_put;
	}
	uentries = u64_to_user_ptr(args.entries);
	while (done < args.npages) {
		unsigned int i, n = min_t(u64, args.npages - done,
					  NVSVM_QUERY_CHUNK);
		u64 addr = args.addr + (done << PAGE_SHIFT);

		mutex_lock(&svmm->mutex);
		for (i = 0; i < n; i++) {
			unsigned int shift = PAGE_SHIFT;
			u64 pte = nvsvm_vmm_lookup(&svmm->vmm, addr, &shift);

			buf[i] = nvsvm_query_bits(svmm, pte, shift);
			addr += PAGE_SIZE;
		}
		mutex_unlock(&svmm->mutex);
		if (copy_to_user(uentries + done, buf, n * sizeof(*buf))) {
			ret = -EFAULT;
			break;
		}
		done += n;
	}
	kfree(buf);
out_put:
	nvsvm_svmm_put(svmm);
	return ret;
}
