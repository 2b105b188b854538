// SPDX-License-Identifier: GPL-2.0
/*
 * Channels: an instance block whose page directory is the file's SVM area
 * (or an empty one), registered with the provider's engine.
 *
 * The device's channel table (instance block address -> channel) is the
 * fault path's route from a fault entry to an area. It holds the files'
 * channels and the channels a driver joined (src/pascal.c); both go in
 * with nvsvm_chan_bind() and out with nvsvm_chan_unbind(), which reads the
 * fault buffer before the address can be reused. chan->svmm and chan->pdb
 * change only under that xarray's lock.
 */
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsvm_chan.h"
#include "nvsvm_core.h"
#include "nvsvm_fault.h"
#include "nvsvm_gp100.h"
#include "nvsvm_vmm.h"

/*
 * Channels one file may hold at once; CHAN_CREATE fails with -ENOSPC
 * beyond. Each costs its owner's memory cgroup an instance block (a page)
 * and a few hundred bytes.
 */
static unsigned int max_channels = NVSVM_CHAN_MAX_DEFAULT;
module_param(max_channels, uint, 0644);
MODULE_PARM_DESC(max_channels,
		 "channels one open file may hold (CHAN_CREATE: ENOSPC beyond)");

/*
 * The instance block: a page charged to the caller's memory cgroup (a
 * coherent DMA allocation would not be), mapped for the GPU, which reads
 * it.
 */
static int nvsvm_chan_inst_alloc(struct nvsvm_core_chan *chan)
{
	struct device *dev = chan->pub.gpu->dev;
	struct page *page;

	page = alloc_page(NVSVM_GFP_USER | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	chan->pub.inst_addr = dma_map_page(dev, page, 0, PAGE_SIZE,
					   DMA_TO_DEVICE);
	if (dma_mapping_error(dev, chan->pub.inst_addr)) {
		__free_page(page);
		return -ENOMEM;
	}
	if (!PAGE_ALIGNED(chan->pub.inst_addr)) {
		/* The GPU needs it 4 KiB aligned; an IOMMU did not keep it. */
		dma_unmap_page(dev, chan->pub.inst_addr, PAGE_SIZE,
			       DMA_TO_DEVICE);
		__free_page(page);
		return -ENOMEM;
	}
	chan->inst = page_address(page);
	return 0;
}

static void nvsvm_chan_inst_free(struct nvsvm_core_chan *chan)
{
	dma_unmap_page(chan->pub.gpu->dev, chan->pub.inst_addr, PAGE_SIZE,
		       DMA_TO_DEVICE);
	free_page((unsigned long)chan->inst);
}

/* Point the instance block at @pd and make it visible to the GPU. */
static void nvsvm_chan_inst_write(struct nvsvm_core_chan *chan,
				  dma_addr_t pd)
{
	gp100_inst_write(chan->inst, pd, !(chan->flags & NVSVM_CHAN_NO_REPLAY));
	dma_sync_single_for_device(chan->pub.gpu->dev, chan->pub.inst_addr,
				   PAGE_SIZE, DMA_TO_DEVICE);
}

/**
 * nvsvm_chan_bind() - enter a channel in its device's channel table
 * @chan: channel with @ndev, @pub.inst_addr, @svmm and @pdb set
 *
 * From then on the fault worker serves the faults of that instance block
 * from @chan->svmm.
 *
 * Return: 0, -EBUSY when the instance block is in the table already, or
 * -ENOMEM.
 */
int nvsvm_chan_bind(struct nvsvm_core_chan *chan)
{
	struct nvsvm_device *ndev = chan->ndev;
	int ret;

	mutex_lock(&ndev->chan_lock);
	ret = xa_insert(&ndev->chans, chan->pub.inst_addr >> PAGE_SHIFT, chan,
			NVSVM_GFP_USER);
	mutex_unlock(&ndev->chan_lock);
	return ret;
}

/**
 * nvsvm_chan_unbind() - remove a channel from the channel table
 * @chan: a bound channel that no longer runs
 *
 * Fault entries of this channel may still be in the buffer. Once its
 * instance block is freed, a new channel can get the same address and
 * such an entry would be taken for its own: served in the wrong area, even
 * cancelled on a GPC the new channel runs on. So the device's fault work
 * reads them before this returns; they are found stale (no channel). One
 * it handed to the area's work before is found stale there, unless a new
 * channel of the same area has the block by then: it is served in that
 * area, which is where it belongs.
 *
 * Context: process, may sleep; not from the fault worker.
 */
void nvsvm_chan_unbind(struct nvsvm_core_chan *chan)
{
	struct nvsvm_device *ndev = chan->ndev;

	mutex_lock(&ndev->chan_lock);
	xa_erase(&ndev->chans, chan->pub.inst_addr >> PAGE_SHIFT);
	mutex_unlock(&ndev->chan_lock);
	nvsvm_fault_flush(ndev);
}

static void nvsvm_chan_release(struct kref *kref)
{
	struct nvsvm_core_chan *chan = container_of(kref, typeof(*chan), kref);
	struct nvsvm_gpu *gpu = chan->ndev->gpu;

	if (gpu->ops->chan_fini)
		gpu->ops->chan_fini(gpu, &chan->pub);
	nvsvm_chan_unbind(chan);
	nvsvm_chan_inst_free(chan);
	kfree(chan);
}

static void nvsvm_chan_put(struct nvsvm_core_chan *chan)
{
	kref_put(&chan->kref, nvsvm_chan_release);
}

/*
 * The channel loses its area; chan_lock held. A file's channel points at
 * the empty directory. A joined channel's instance block belongs to the
 * driver: it keeps walking the area's PD3, which its join keeps allocated
 * and the area's teardown empties, so that it faults there, and cancels
 * target that PD3. After the invalidate, the GPU walks from the new state.
 */
static void nvsvm_chan_detach_locked(struct nvsvm_core_chan *chan)
{
	struct nvsvm_device *ndev = chan->ndev;
	struct nvsvm_svmm *svmm = chan->svmm;

	lockdep_assert_held(&ndev->chan_lock);
	if (!svmm)
		return;
	if (chan->inst)
		nvsvm_chan_inst_write(chan, ndev->null_pd.dma);
	xa_lock(&ndev->chans);
	chan->svmm = NULL;
	if (chan->inst)
		chan->pdb = ndev->null_pd.dma;
	xa_unlock(&ndev->chans);
	gp100_invalidate(ndev, nvsvm_vmm_pdb(&svmm->vmm));
}

static void nvsvm_chan_detach(struct nvsvm_core_chan *chan)
{
	mutex_lock(&chan->ndev->chan_lock);
	nvsvm_chan_detach_locked(chan);
	mutex_unlock(&chan->ndev->chan_lock);
}

/**
 * nvsvm_chan_detach_svmm() - detach every channel from an area going away
 * @ndev: device
 * @svmm: the area: the file's channels and those a driver joined to it
 */
void nvsvm_chan_detach_svmm(struct nvsvm_device *ndev,
			    struct nvsvm_svmm *svmm)
{
	struct nvsvm_core_chan *chan;
	unsigned long key;

	mutex_lock(&ndev->chan_lock);
	xa_for_each(&ndev->chans, key, chan)
		if (chan->svmm == svmm)
			nvsvm_chan_detach_locked(chan);
	mutex_unlock(&ndev->chan_lock);
}

long nvsvm_ioctl_chan_create(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_device *ndev = nf->ndev;
	struct nvsvm_gpu *gpu = ndev->gpu;
	struct nvsvm_chan_create args;
	unsigned int max = min_t(unsigned int, READ_ONCE(max_channels),
				 INT_MAX);
	struct nvsvm_core_chan *chan;
	dma_addr_t pd;
	u32 id;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags & ~NVSVM_CHAN_FLAGS || args.handle)
		return -EINVAL;
	if (!max)
		return -ENOSPC;

	chan = kzalloc(sizeof(*chan), NVSVM_GFP_USER);
	if (!chan)
		return -ENOMEM;
	kref_init(&chan->kref);
	chan->ndev = ndev;
	chan->file = nf;
	chan->flags = args.flags;
	chan->pub.gpu = gpu;
	ret = nvsvm_chan_inst_alloc(chan);
	if (ret) {
		kfree(chan);
		return ret;
	}

	mutex_lock(&nf->lock);
	if ((args.flags & NVSVM_CHAN_JOIN_AREA) && !nf->svmm) {
		ret = -EINVAL;
		goto err_unlock;
	}
	chan->svmm = args.flags & NVSVM_CHAN_JOIN_AREA ? nf->svmm : NULL;
	pd = chan->svmm ? nvsvm_vmm_pdb(&chan->svmm->vmm) : ndev->null_pd.dma;
	chan->pdb = pd;
	nvsvm_chan_inst_write(chan, pd);

	ret = nvsvm_chan_bind(chan);
	if (ret)
		goto err_unlock;
	/*
	 * Handles are 1 and up. XA_FLAGS_ALLOC1 alone does not ensure it:
	 * xa_erase(0) by a CHAN_DESTROY of handle 0 marks index 0 free. At
	 * most @max of them: no free handle left is the file's limit.
	 */
	ret = xa_alloc(&nf->chans, &id, chan, XA_LIMIT(1, max),
		       NVSVM_GFP_USER);
	if (ret == -EBUSY)
		ret = -ENOSPC;
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
	nvsvm_chan_unbind(chan);
err_unlock:
	mutex_unlock(&nf->lock);
	nvsvm_chan_inst_free(chan);
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
	/* A provider call (EXEC) still running holds a reference; it ends. */
	nvsvm_chan_put(chan);
	return 0;
}

/**
 * nvsvm_chan_destroy_all() - destroy every channel of a closing file
 * @nf: file, locked; no provider call (EXEC) can be running
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

/**
 * nvsvm_file_chan_get() - the channel of a handle, for a provider's ioctl
 * @nf: the calling file (struct nvsvm_gpu_ioctl)
 * @handle: a handle from CHAN_CREATE
 *
 * The channel stays allocated until nvsvm_file_chan_put(), even when
 * CHAN_DESTROY or the file's teardown removes it meanwhile (its work then
 * faults and ends, see nvsvm_chan_detach()).
 *
 * Context: process, may sleep (takes @nf->lock).
 *
 * Return: the channel, or NULL for an unknown handle.
 */
struct nvsvm_chan *nvsvm_file_chan_get(struct nvsvm_file *nf, u32 handle)
{
	struct nvsvm_core_chan *chan;

	mutex_lock(&nf->lock);
	chan = xa_load(&nf->chans, handle);
	if (chan)
		kref_get(&chan->kref);
	mutex_unlock(&nf->lock);
	return chan ? &chan->pub : NULL;
}
EXPORT_SYMBOL_GPL(nvsvm_file_chan_get);

/**
 * nvsvm_file_chan_put() - let go of a channel from nvsvm_file_chan_get()
 * @chan: the channel
 *
 * Context: process, may sleep (the last reference frees the channel).
 */
void nvsvm_file_chan_put(struct nvsvm_chan *chan)
{
	nvsvm_chan_put(container_of(chan, struct nvsvm_core_chan, pub));
}
EXPORT_SYMBOL_GPL(nvsvm_file_chan_put);
