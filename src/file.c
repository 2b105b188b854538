// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/nvsvmN: open, release and the ioctl dispatcher.
 *
 * An open file belongs to the address space that opened it. Every ioctl
 * but GET_INFO is refused with -EPERM from any other address space, so an
 * inherited or received descriptor can never reach the opener's memory.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsvm_buf.h"
#include "nvsvm_chan.h"
#include "nvsvm_core.h"
#include "nvsvm_file.h"
#include "nvsvm_gp100.h"
#include "nvsvm_mirror.h"
#include "nvsvm_snapshot.h"
#include "nvsvm_svmm.h"

static int nvsvm_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct nvsvm_device *ndev = container_of(misc, struct nvsvm_device,
						 misc);
	struct nvsvm_file *nf;

	if (!current->mm)
		return -EINVAL;
	/* The provider module stays while its GPU is open. */
	if (!try_module_get(ndev->owner))
		return -ENODEV;
	nf = kzalloc(sizeof(*nf), NVSVM_GFP_USER);
	if (!nf) {
		module_put(ndev->owner);
		return -ENOMEM;
	}
	nf->ndev = ndev;
	nf->mm = current->mm;
	mmgrab(nf->mm);
	mutex_init(&nf->lock);
	xa_init_flags(&nf->chans, XA_FLAGS_ALLOC1);
	xa_init_flags(&nf->bufs, XA_FLAGS_ALLOC1);
	/*
	 * misc_open() calls this under the lock misc_deregister() takes:
	 * the device is not unregistered yet, and unregister finds nf.
	 */
	kref_get(&ndev->kref);
	mutex_lock(&ndev->files_lock);
	list_add(&nf->node, &ndev->files);
	mutex_unlock(&ndev->files_lock);
	file->private_data = nf;
	return 0;
}

/*
 * The file's area goes, if it has one. Every channel loses
 * the area first: the file's (their instance blocks point at the empty
 * directory) and those a driver joined to it (they keep walking its PD3,
 * emptied by nvsvm_svmm_fini()). The buffers in its window leave the GPU
 * before their pages can go.
 */
static void nvsvm_file_area_fini(struct nvsvm_file *nf)
{
	struct nvsvm_svmm *svmm = nf->svmm;

	lockdep_assert_held(&nf->lock);
	if (!svmm)
		return;
	nf->svmm = NULL;
	nvsvm_chan_detach_svmm(nf->ndev, svmm);
	nvsvm_buf_fini_all(nf, svmm);
	nvsvm_svmm_fini(svmm);
}

/* The file's channels, then its area, go. */
static void nvsvm_file_teardown(struct nvsvm_file *nf)
{
	lockdep_assert_held(&nf->lock);
	nvsvm_chan_destroy_all(nf);
	nvsvm_file_area_fini(nf);
}

static long nvsvm_ioctl_area_fini(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_area_fini args;
	long ret = 0;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags || args.reserved)
		return -EINVAL;
	mutex_lock(&nf->lock);
	if (nf->svmm)
		nvsvm_file_area_fini(nf);
	else
		ret = -EINVAL;
	mutex_unlock(&nf->lock);
	return ret;
}

static int nvsvm_release(struct inode *inode, struct file *file)
{
	struct nvsvm_file *nf = file->private_data;
	struct nvsvm_device *ndev = nf->ndev;
	struct module *owner = ndev->owner;

	/* Unregister waits for this, or has torn the file down already. */
	down_read(&ndev->unplug);
	mutex_lock(&nf->lock);
	nvsvm_file_teardown(nf);
	mutex_unlock(&nf->lock);
	up_read(&ndev->unplug);

	mutex_lock(&ndev->files_lock);
	list_del(&nf->node);
	mutex_unlock(&ndev->files_lock);
	xa_destroy(&nf->chans);
	xa_destroy(&nf->bufs);
	mmdrop(nf->mm);
	kfree(nf);
	nvsvm_device_put(ndev);
	module_put(owner);
	return 0;
}

/**
 * nvsvm_file_unplug_all() - tear down every open file of a GPU going away
 * @ndev: device, being unregistered
 *
 * Their channels and areas go (GPU work on them is stopped or ends with a
 * cancelled fault); the files stay open, and their ioctls fail with
 * -ENODEV from then on.
 */
void nvsvm_file_unplug_all(struct nvsvm_device *ndev)
{
	struct nvsvm_file *nf;

	mutex_lock(&ndev->files_lock);
	list_for_each_entry(nf, &ndev->files, node) {
		mutex_lock(&nf->lock);
		nvsvm_file_teardown(nf);
		mutex_unlock(&nf->lock);
	}
	mutex_unlock(&ndev->files_lock);
}

static long nvsvm_ioctl_get_info(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_device *ndev = nf->ndev;
	struct nvsvm_gpu *gpu = ndev->gpu;
	struct nvsvm_get_info info = {
		.api_version = NVSVM_API_VERSION,
		.chipset = gp100_chipset(ndev),
		.va_bits = 49,
		.page_sizes = SZ_4K | SZ_64K | SZ_2M,
		.vram_size = gpu->vram_size,
		.fault_buffer_entries = ndev->fault.entries,
		.gpc_count = gpu->gpc_count,
		.caps = gpu->exec_caps & (NVSVM_CAP_EXEC | NVSVM_CAP_ATOMICS),
	};

	if (ndev->fault.entries)
		info.caps |= NVSVM_CAP_REPLAYABLE_FAULTS;
	if ((info.caps & NVSVM_CAP_ATOMICS) && nvsvm_mirror_exclusive_atomics())
		info.caps |= NVSVM_CAP_ATOMICS_EXCLUSIVE;
	/*
	 * Exact on private anonymous memory: exclusive access, and for a
	 * THP before 6.15 a move to VRAM (nvsvm_mirror_atomic()); on every
	 * writable mapping: a link coherent for atomics.
	 */
	if ((info.caps & NVSVM_CAP_ATOMICS) && gpu->host_atomics)
		info.caps |= NVSVM_CAP_SYSMEM_ATOMICS |
			     NVSVM_CAP_SYSMEM_ATOMICS_ALL;
	if ((info.caps & NVSVM_CAP_ATOMICS_EXCLUSIVE) &&
	    (NVSVM_EXCLUSIVE_LARGE_FOLIO || ndev->dmem))
		info.caps |= NVSVM_CAP_SYSMEM_ATOMICS;
	if (ndev->dmem)
		info.caps |= NVSVM_CAP_DEVICE_PRIVATE;
	if (ndev->dmem && NVSVM_DMEM_LARGE)
		info.caps |= NVSVM_CAP_VRAM_2M;
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/*
 * A number uapi/nvsvm.h does not define: the provider's, if its table has
 * it (the virtual GP100's EXEC), with the checks the core's ioctls get.
 * Its table is read only while the GPU is registered.
 */
static long nvsvm_ioctl_provider(struct nvsvm_file *nf, unsigned int cmd,
				 void __user *uarg)
{
	struct nvsvm_device *ndev = nf->ndev;
	const struct nvsvm_gpu_ioctl *pio = NULL;
	struct nvsvm_gpu *gpu;
	unsigned int i;
	long ret;

	down_read(&ndev->unplug);
	ret = -ENODEV;
	if (READ_ONCE(ndev->gone))
		goto out;
	gpu = ndev->gpu;
	for (i = 0; i < gpu->num_ioctls && !pio; i++)
		if (_IOC_NR(gpu->ioctls[i].cmd) == _IOC_NR(cmd))
			pio = &gpu->ioctls[i];
	ret = -ENOTTY;
	if (!pio)
		goto out;
	ret = -EINVAL;
	if (cmd != pio->cmd)
		goto out;
	ret = -EPERM;
	if (current->mm != nf->mm)
		goto out;
	ret = pio->func(gpu, nf, uarg);
out:
	up_read(&ndev->unplug);
	return ret;
}

/* MAP's entry in the table below (nvsvm_ioctl() calls the one after). */
static long nvsvm_ioctl_map_once(struct nvsvm_file *nf, void __user *uarg)
{
	return nvsvm_ioctl_map(nf, uarg, NULL);
}

/*
 * MAP: where it meets pages that a userfaultfd handler must fill, they are
 * faulted in here, as the caller's own access would, waiting for the
 * handler (or a fatal signal) with none of nvsvm's locks held: not the
 * unregister's (@unplug), nor the file's or the area's. Then MAP starts
 * again; what it mapped before stays mapped.
 */
static long nvsvm_ioctl_map_wait(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_device *ndev = nf->ndev;
	struct nvsvm_uffd_wait uffd;
	long ret;

	for (;;) {
		uffd.pending = false;
		down_read(&ndev->unplug);
		if (READ_ONCE(ndev->gone))
			ret = -ENODEV;
		else
			ret = nvsvm_ioctl_map(nf, uarg, &uffd);
		up_read(&ndev->unplug);
		if (ret != -EFAULT || !uffd.pending)
			return ret;
		ret = nvsvm_mirror_uffd_wait(nf->mm, &uffd);
		if (ret)
			return ret;
		cond_resched();
	}
}

static long nvsvm_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	static long (*const ioctls[])(struct nvsvm_file *nf,
				      void __user *uarg) = {
		[_IOC_NR(NVSVM_IOCTL_GET_INFO)] = nvsvm_ioctl_get_info,
		[_IOC_NR(NVSVM_IOCTL_AREA_INIT)] = nvsvm_ioctl_area_init,
		[_IOC_NR(NVSVM_IOCTL_AREA_FINI)] = nvsvm_ioctl_area_fini,
		[_IOC_NR(NVSVM_IOCTL_MAP)] = nvsvm_ioctl_map_once,
		[_IOC_NR(NVSVM_IOCTL_UNMAP)] = nvsvm_ioctl_unmap,
		[_IOC_NR(NVSVM_IOCTL_QUERY)] = nvsvm_ioctl_query,
		[_IOC_NR(NVSVM_IOCTL_CHAN_CREATE)] = nvsvm_ioctl_chan_create,
		[_IOC_NR(NVSVM_IOCTL_CHAN_DESTROY)] = nvsvm_ioctl_chan_destroy,
		[_IOC_NR(NVSVM_IOCTL_MIGRATE)] = nvsvm_ioctl_migrate,
		[_IOC_NR(NVSVM_IOCTL_BUF_ALLOC)] = nvsvm_ioctl_buf_alloc,
		[_IOC_NR(NVSVM_IOCTL_BUF_FREE)] = nvsvm_ioctl_buf_free,
	};
	static const unsigned int cmds[ARRAY_SIZE(ioctls)] = {
		[_IOC_NR(NVSVM_IOCTL_GET_INFO)] = NVSVM_IOCTL_GET_INFO,
		[_IOC_NR(NVSVM_IOCTL_AREA_INIT)] = NVSVM_IOCTL_AREA_INIT,
		[_IOC_NR(NVSVM_IOCTL_AREA_FINI)] = NVSVM_IOCTL_AREA_FINI,
		[_IOC_NR(NVSVM_IOCTL_MAP)] = NVSVM_IOCTL_MAP,
		[_IOC_NR(NVSVM_IOCTL_UNMAP)] = NVSVM_IOCTL_UNMAP,
		[_IOC_NR(NVSVM_IOCTL_QUERY)] = NVSVM_IOCTL_QUERY,
		[_IOC_NR(NVSVM_IOCTL_CHAN_CREATE)] = NVSVM_IOCTL_CHAN_CREATE,
		[_IOC_NR(NVSVM_IOCTL_CHAN_DESTROY)] = NVSVM_IOCTL_CHAN_DESTROY,
		[_IOC_NR(NVSVM_IOCTL_MIGRATE)] = NVSVM_IOCTL_MIGRATE,
		[_IOC_NR(NVSVM_IOCTL_BUF_ALLOC)] = NVSVM_IOCTL_BUF_ALLOC,
		[_IOC_NR(NVSVM_IOCTL_BUF_FREE)] = NVSVM_IOCTL_BUF_FREE,
	};
	struct nvsvm_file *nf = file->private_data;
	struct nvsvm_device *ndev = nf->ndev;
	unsigned int nr = _IOC_NR(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != NVSVM_IOCTL_BASE)
		return -ENOTTY;
	if (nr >= ARRAY_SIZE(ioctls) || !ioctls[nr])
		return nvsvm_ioctl_provider(nf, cmd, (void __user *)arg);
	/* QUERY's first number (_IOW), for binaries built before it changed. */
	if (cmd == NVSVM_IOCTL_QUERY_OLD)
		cmd = NVSVM_IOCTL_QUERY;
	/* Same number, other size or direction: an ABI mismatch. */
	if (cmd != cmds[nr])
		return -EINVAL;
	if (cmd != NVSVM_IOCTL_GET_INFO && current->mm != nf->mm)
		return -EPERM;
	if (cmd == NVSVM_IOCTL_MAP)
		return nvsvm_ioctl_map_wait(nf, (void __user *)arg);
	/* The GPU was unregistered (unbound, unplugged): nothing to do. */
	down_read(&ndev->unplug);
	if (READ_ONCE(ndev->gone))
		ret = -ENODEV;
	else
		ret = ioctls[nr](nf, (void __user *)arg);
	up_read(&ndev->unplug);
	return ret;
}

const struct file_operations nvsvm_fops = {
	.owner = THIS_MODULE,
	.open = nvsvm_open,
	.release = nvsvm_release,
	.unlocked_ioctl = nvsvm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.get_unmapped_area = nvsvm_buf_get_unmapped_area,
	.mmap = nvsvm_buf_mmap,
	.llseek = noop_llseek,
};
