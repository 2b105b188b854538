// SPDX-License-Identifier: GPL-2.0
/*
 * Channels: an instance block whose page directory is the file's SVM area
 * (or an empty one), registered with the provider's engine.
 *
 * The fault path finds a channel's area by instance block address in the
 * device's xarray; chan->svmm changes only under that xarray's lock.
 */
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsvm_core.h"

static void nvsvm_chan_release(struct kref *kref)
{
	struct nvsvm_core_chan *chan = container_of(kref, typeof(*chan), kref);
	struct nvsvm_device *ndev = chan->file->ndev;
	struct nvsvm_gpu *gpu = ndev->gpu;

	if (gpu->ops->chan_fini)
		gpu->ops->chan_fini(gpu, &chan->pub);
	xa_erase(&ndev->chans, chan->pub.inst_addr >> PAGE_SHIFT);
	/*
	 * Fault entries of this channel may still be in the buffer. Once
	 * the instance block is freed, a new channel can get the same
	 * address and such an entry would be taken for its own: served in
	 * the wrong area, even cancelled on a GPC the new channel runs on.
	 * Let the device's fault work read them first; they are found stale
	 * (erased). One it handed to the area's work before is found stale
	 * there, unless a new channel of the same area has the block by
	 * then: it is served in that area, which is where it belongs.
	 */
	nvsvm_fault_flush(ndev);
	dma_free_coherent(gpu->dev, PAGE_SIZE, chan->inst, chan->pub.inst_addr);
	kfree(chan);
}

static void nvsvm_chan_put(struct nvsvm_core_chan *chan)
{
	kref_put(&chan->kref, nvsvm_chan_release);
}

/*
 * Point the channel at the empty directory: it loses its area. After the
 * invalidate, the GPU walks from the new directory.
 */
static void nvsvm_chan_detach(struct nvsvm_core_chan *chan)
{
	struct nvsvm_device *ndev = chan->file->ndev;
	struct nvsvm_svmm *svmm = chan->svmm;

	if (!svmm)
		return;
	gp100_inst_write(chan->inst, ndev->null_pd.dma,
			 !(chan->flags & NVSVM_CHAN_NO_REPLAY));
	xa_lock(&ndev->chans);
	chan->svmm = NULL;
	xa_unlock(&ndev->chans);
	gp100_invalidate(ndev, nvsvm_vmm_pdb(&svmm->vmm));
}

/**
 * nvsvm_chan_detach_svmm() - detach every channel of a file from its area
 * @nf: file, locked
 * @svmm: the area going away
 */
void nvsvm_chan_detach_svmm(struct nvsvm_file *nf, struct nvsvm_svmm *svmm)
{
	struct nvsvm_core_chan *chan;
	unsigned long id;

	xa_for_each(&nf->chans, id, chan)
		if (chan->svmm == svmm)
			nvsvm_chan_detach(chan);
}

/**
 * nvsvm_chan_svmm_get() - the area of the channel with an instance block
 * @ndev: device
 * @inst_addr: instance block address from a fault entry
 *
 * Return: the area with a reference taken; NULL for a channel without an
 * area; ERR_PTR(-ENOENT) when no channel has this instance block (any
 * more: a fault entry written before the channel was destroyed).
 */
struct nvsvm_svmm *nvsvm_chan_svmm_get(struct nvsvm_device *ndev,
				       u64 inst_addr)
{
	struct nvsvm_core_chan *chan;
	struct nvsvm_svmm *svmm = ERR_PTR(-ENOENT);

	xa_lock(&ndev->chans);
	chan = xa_load(&ndev->chans, inst_addr >> PAGE_SHIFT);
	if (chan) {
		svmm = chan->svmm;
		if (svmm)
			kref_get(&svmm->kref);
	}
	xa_unlock(&ndev->chans);
	return svmm;
}

long nvsvm_ioctl_chan_create(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_device *ndev = nf->ndev;
	struct nvsvm_gpu *gpu = ndev->gpu;
	struct nvsvm_chan_create args;
	struct nvsvm_core_chan *chan;
	dma_addr_t pd;
	u32 id;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags & ~NVSVM_CHAN_FLAGS || args.handle)
		return -EINVAL;

	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return -ENOMEM;
	kref_init(&chan->kref);
	chan->file = nf;
	chan->flags = args.flags;
	chan->pub.gpu = gpu;
	chan->inst = dma_alloc_coherent(gpu->dev, PAGE_SIZE,
					&chan->pub.inst_addr, GFP_KERNEL);
	if (!chan->inst) {
		kfree(chan);
		return -ENOMEM;
	}

	mutex_lock(&nf->lock);
	if ((args.flags & NVSVM_CHAN_JOIN_AREA) && !nf->svmm) {
		ret = -EINVAL;
		goto err_unlock;
	}
	chan->svmm = args.flags & NVSVM_CHAN_JOIN_AREA ? nf->svmm : NULL;
	pd = chan->svmm ? nvsvm_vmm_pdb(&chan->svmm->vmm) : ndev->null_pd.dma;
	gp100_inst_write(chan->inst, pd, !(args.flags & NVSVM_CHAN_NO_REPLAY));

	ret = xa_insert(&ndev->chans, chan->pub.inst_addr >> PAGE_SHIFT, chan,
			GFP_KERNEL);
	if (ret)
		goto err_unlock;
	/*
	 * Handles are 1 and up. XA_FLAGS_ALLOC1 alone does not ensure it:
	 * xa_erase(0) by a CHAN_DESTROY of handle 0 marks index 0 free.
	 */
	ret = xa_alloc(&nf->chans, &id, chan, XA_LIMIT(1, INT_MAX),
		       GFP_KERNEL);
	if (ret)
		goto err_erase;
	chan->pub.id = id;
	if (gpu->ops->chan_init) {
		ret = gpu->ops->chan_init(gpu, &chan->pub);
		if (ret)
			goto err_free_id;
	}
	mutex_unlock(&nf->lock);

	args.handle = id;
	if (copy_to_user(uarg, &args, sizeof(args))) {
		/* The caller cannot learn the handle: undo. */
		mutex_lock(&nf->lock);
		if (xa_erase(&nf->chans, id) == chan) {
			nvsvm_chan_detach(chan);
			nvsvm_chan_put(chan);
		}
		mutex_unlock(&nf->lock);
		return -EFAULT;
	}
	return 0;

err_free_id:
	xa_erase(&nf->chans, id);
err_erase:
	xa_erase(&ndev->chans, chan->pub.inst_addr >> PAGE_SHIFT);
err_unlock:
	mutex_unlock(&nf->lock);
	dma_free_coherent(gpu->dev, PAGE_SIZE, chan->inst, chan->pub.inst_addr);
	kfree(chan);
	return ret;
}

long nvsvm_ioctl_chan_destroy(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_chan_destroy args;
	struct nvsvm_core_chan *chan;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags)
		return -EINVAL;
	mutex_lock(&nf->lock);
	chan = xa_erase(&nf->chans, args.handle);
	if (chan)
		nvsvm_chan_detach(chan);
	mutex_unlock(&nf->lock);
	if (!chan)
		return -ENOENT;
	/* An EXEC still running holds a reference; it faults and ends. */
	nvsvm_chan_put(chan);
	return 0;
}

/**
 * nvsvm_chan_destroy_all() - destroy every channel of a closing file
 * @nf: file, locked; no EXEC can be running
 */
void nvsvm_chan_destroy_all(struct nvsvm_file *nf)
{
	struct nvsvm_core_chan *chan;
	unsigned long id;

	xa_for_each(&nf->chans, id, chan) {
		xa_erase(&nf->chans, id);
		nvsvm_chan_detach(chan);
		nvsvm_chan_put(chan);
	}
}

long nvsvm_ioctl_exec(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_gpu *gpu = nf->ndev->gpu;
	struct nvsvm_core_chan *chan;
	struct nvsvm_exec args;
	long ret;

	if (!gpu->ops->exec)
		return -EOPNOTSUPP;
	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags)
		return -EINVAL;

	mutex_lock(&nf->lock);
	chan = xa_load(&nf->chans, args.handle);
	if (chan)
		kref_get(&chan->kref);
	mutex_unlock(&nf->lock);
	if (!chan)
		return -ENOENT;

	ret = gpu->ops->exec(gpu, &chan->pub, &args);
	nvsvm_chan_put(chan);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}
