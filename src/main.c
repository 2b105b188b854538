// SPDX-License-Identifier: GPL-2.0
/*
 * nvsvm: shared virtual memory for NVIDIA Pascal GPUs.
 *
 * Module entry points and the provider registration interface: each GPU a
 * provider registers becomes /dev/nvsvmN.
 */
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "nvsvm_core.h"
#include "nvsvm_debugfs.h"
#include "nvsvm_dmem.h"
#include "nvsvm_recency.h"
#include "nvsvm_fault.h"
#include "nvsvm_file.h"
#include "nvsvm_gp100.h"
#include "nvsvm_svmm.h"
#include "nvsvm_test.h"

static DEFINE_IDA(nvsvm_ida);

static void nvsvm_zero_unmap(struct nvsvm_device *ndev)
{
	if (ndev->zero_dma != DMA_MAPPING_ERROR)
		dma_unmap_page(ndev->gpu->dev, ndev->zero_dma, PAGE_SIZE,
			       DMA_TO_DEVICE);
}

/**
 * nvsvm_gpu_register() - make a GPU available as /dev/nvsvmN
 * @gpu: filled by the provider: @dev, @owner, @ops (rd32 and wr32 at
 *	least), @vram_size, @gpc_count, @exec_caps
 *
 * Context: process context; the provider keeps @gpu alive until
 * nvsvm_gpu_unregister().
 *
 * Return: 0, -ENODEV for a chip without replayable faults, or an errno.
 */
int nvsvm_gpu_register(struct nvsvm_gpu *gpu)
{
	struct nvsvm_device *ndev;
	u32 chipset;
	int ret;

	if (!gpu->dev || !gpu->ops || !gpu->ops->rd32 || !gpu->ops->wr32)
		return -EINVAL;

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		return -ENOMEM;
	ndev->gpu = gpu;
	ndev->owner = gpu->owner;
	kref_init(&ndev->kref);
	init_rwsem(&ndev->unplug);
	mutex_init(&ndev->files_lock);
	INIT_LIST_HEAD(&ndev->files);
	mutex_init(&ndev->chan_lock);
	gpu->priv = ndev;
	xa_init(&ndev->chans);
	spin_lock_init(&ndev->inval_lock);
	spin_lock_init(&ndev->closing_lock);
	INIT_LIST_HEAD(&ndev->closing);

	chipset = gp100_chipset(ndev);
	if (!gp100_chipset_supported(chipset)) {
		dev_err(gpu->dev, "chipset 0x%03x is not a Pascal GPU\n",
			chipset);
		ret = -ENODEV;
		goto err_free;
	}

	ndev->null_pd.cpu = dma_alloc_coherent(gpu->dev, PAGE_SIZE,
					       &ndev->null_pd.dma, GFP_KERNEL);
	if (!ndev->null_pd.cpu) {
		ret = -ENOMEM;
		goto err_free;
	}

	ndev->zero_dma = dma_map_page(gpu->dev, ZERO_PAGE(0), 0, PAGE_SIZE,
				      DMA_TO_DEVICE);
	if (dma_mapping_error(gpu->dev, ndev->zero_dma))
		ndev->zero_dma = DMA_MAPPING_ERROR;

	ret = nvsvm_fault_init(ndev);
	if (ret)
		goto err_null_pd;

	ret = ida_alloc_max(&nvsvm_ida, NVSVM_MAX_DEVICES - 1, GFP_KERNEL);
	if (ret < 0)
		goto err_fault;
	ndev->index = ret;
	snprintf(ndev->name, sizeof(ndev->name), "nvsvm%d", ndev->index);
	nvsvm_debugfs_add(ndev);

	/* Without device-private memory the GPU works, without MIGRATE. */
	ret = nvsvm_dmem_init(ndev);
	if (ret)
		dev_warn(gpu->dev, "%s: no device-private memory: %d\n",
			 ndev->name, ret);

	ndev->misc.minor = MISC_DYNAMIC_MINOR;
	ndev->misc.name = ndev->name;
	ndev->misc.fops = &nvsvm_fops;
	ndev->misc.parent = gpu->dev;
	ndev->misc.mode = 0660;
	ret = misc_register(&ndev->misc);
	if (ret)
		goto err_ida;

	dev_info(gpu->dev, "%s: chipset 0x%03x, %u fault buffer entries%s\n",
		 ndev->name, chipset, ndev->fault.entries,
		 ndev->dmem ? ", device-private VRAM" : "");
	nvsvm_recency_init(ndev);
	return 0;

err_ida:
	nvsvm_dmem_fini(ndev);
	nvsvm_debugfs_remove(ndev);
	ida_free(&nvsvm_ida, ndev->index);
err_fault:
	nvsvm_fault_fini(ndev);
err_null_pd:
	nvsvm_zero_unmap(ndev);
	dma_free_coherent(gpu->dev, PAGE_SIZE, ndev->null_pd.cpu,
			  ndev->null_pd.dma);
err_free:
	gpu->priv = NULL;
	kfree(ndev);
	return ret;
}
EXPORT_SYMBOL_GPL(nvsvm_gpu_register);

/**
 * nvsvm_gpu_unregister() - remove a GPU registered with nvsvm_gpu_register()
 * @gpu: the GPU
 *
 * Files may still be open (the provider's device was unbound or
 * unplugged): their channels and areas are torn down, every GPU mapping
 * goes, their ioctls fail with -ENODEV from then on, and the core state
 * they point at is freed at the last close. When this returns the core
 * no longer touches @gpu.
 *
 * Context: process context.
 */
void nvsvm_gpu_unregister(struct nvsvm_gpu *gpu)
{
	struct nvsvm_device *ndev = gpu->priv;

	if (!ndev)
		return;
	/* No open from now on (misc_open() runs under misc_deregister()'s lock). */
	misc_deregister(&ndev->misc);
	WRITE_ONCE(ndev->gone, true);
	/*
	 * Channels and areas go while the fault worker still runs: EXECs on
	 * them fault on the empty directory and are cancelled. Then wait for
	 * every ioctl that started before @gone, and tear down what such an
	 * ioctl may have made meanwhile.
	 */
	nvsvm_file_unplug_all(ndev);
	down_write(&ndev->unplug);
	up_write(&ndev->unplug);
	nvsvm_file_unplug_all(ndev);
	/*
	 * Every area is torn down; some may outlive this (an area work
	 * waiting for a page-in that a user's FUSE server holds keeps its
	 * area). None touches the device from here on, and their table
	 * frames, DMA-mapped for it, go now: nothing waits for that page-in.
	 */
	nvsvm_fault_unplug(ndev);
	nvsvm_svmm_unplug_all(ndev);

	nvsvm_recency_fini(ndev);
	nvsvm_dmem_fini(ndev);
	nvsvm_debugfs_remove(ndev);
	ida_free(&nvsvm_ida, ndev->index);
	nvsvm_fault_fini(ndev);
	WARN_ON(!xa_empty(&ndev->chans));
	xa_destroy(&ndev->chans);
	nvsvm_zero_unmap(ndev);
	dma_free_coherent(gpu->dev, PAGE_SIZE, ndev->null_pd.cpu,
			  ndev->null_pd.dma);
	gpu->priv = NULL;
	ndev->gpu = NULL;
	nvsvm_device_put(ndev);
}
EXPORT_SYMBOL_GPL(nvsvm_gpu_unregister);

static int __init nvsvm_init(void)
{
	int ret = nvsvm_fault_mod_init();

	if (ret)
		return ret;
	nvsvm_debugfs_init();
	nvsvm_test_init();
	return 0;
}

static void __exit nvsvm_exit(void)
{
	nvsvm_test_fini();
	nvsvm_fault_mod_exit();
	nvsvm_debugfs_fini();
	ida_destroy(&nvsvm_ida);
}

module_init(nvsvm_init);
module_exit(nvsvm_exit);
MODULE_DESCRIPTION("Shared virtual memory for NVIDIA Pascal GPUs (HMM)");
MODULE_LICENSE("GPL");
