// SPDX-License-Identifier: GPL-2.0
/*
 * The real Pascal provider: what nouveau calls (include/nvsvm_pascal.h) to
 * register a GP100-family GPU, forward its replayable-fault interrupt and
 * let its channels join an SVM area.
 *
 * The provider is thin: registers are nouveau's BAR0 mapping, DMA goes
 * through the GPU's struct device, and there is no work submission of its
 * own (no EXEC ioctl, so NVSVM_CAP_EXEC is not reported); programs reach the
 * GPU through nouveau's channels.
 *
 * Interrupt: the replayable-fault interrupt stays pending while the fault
 * buffer holds unread entries, so the forwarder masks it and queues the
 * fault worker; the worker acknowledges entries by writing GET, and that
 * write unmasks the interrupt again (see nvsvm_pascal_wr32()).
 *
 * Joined channels: nouveau owns their instance blocks (usually in video
 * memory). A join registers the instance block address in the device's
 * channel table for the fault worker (nvsvm_chan_bind()), with a reference
 * on the nvsvm file and on its area, so the page directory the channel
 * walks stays allocated until nvsvm_pascal_leave(), and closing the file
 * cannot tear the area down under a running channel. AREA_FINI detaches
 * the channel (src/chan.c) without touching its instance block: the
 * directory is emptied, so its accesses fault, and as a channel without
 * an area its faults are cancelled. Leaving unbinds the instance block,
 * which reads the fault buffer first (nvsvm_chan_unbind()).
 */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "nvsvm_area.h"
#include "nvsvm_chan.h"
#include "nvsvm_core.h"
#include "nvsvm_gp100.h"
#include "nvsvm_pascal.h"
#include "nvsvm_test.h"
#include "nvsvm_vmm.h"

/* nvsvm_pascal.h tells nouveau the instance-block layout gp100.c defines. */
static_assert(NVSVM_PASCAL_INST_PDB == GP100_INST_PDB);
static_assert(NVSVM_PASCAL_INST_LIMIT == GP100_INST_LIMIT);

/**
 * struct nvsvm_pascal - one GPU nouveau registered
 * @gpu: what the core sees
 * @ndev: the core's device of @gpu (of another provider's GPU for a test
 *	attach, nvsvm_pascal_test_attach())
 * @bar0: nouveau's BAR0 mapping
 * @intr_enable: nouveau's interrupt mask callback
 * @data: for @intr_enable
 * @ready: the core is set up; the fault interrupt may be unmasked
 * @lock: serialises joins and leaves
 * @joins: joined channels by instance block address >> PAGE_SHIFT
 */
struct nvsvm_pascal {
	struct nvsvm_gpu gpu;
	struct nvsvm_device *ndev;
	void __iomem *bar0;
	void (*intr_enable)(void *data, bool enable);
	void *data;
	bool ready;
	struct mutex lock;		/* @joins */
	struct xarray joins;
};

/**
 * struct nvsvm_pascal_join - a nouveau channel joined to an SVM area
 * @chan: the entry in the device's channel table; @chan.svmm is cleared
 *	when the area is torn down (AREA_FINI) while the channel is joined
 * @svmm: the area joined, referenced until the channel leaves: its PD3 is
 *	what the channel's instance block points at
 * @file: the nvsvm file of the area, referenced
 */
struct nvsvm_pascal_join {
	struct nvsvm_core_chan chan;
	struct nvsvm_svmm *svmm;
	struct file *file;
};

static struct nvsvm_pascal *to_pascal(struct nvsvm_gpu *gpu)
{
	return container_of(gpu, struct nvsvm_pascal, gpu);
}

static u32 nvsvm_pascal_rd32(struct nvsvm_gpu *gpu, u32 reg)
{
	return ioread32(to_pascal(gpu)->bar0 + reg);
}

static void nvsvm_pascal_wr32(struct nvsvm_gpu *gpu, u32 reg, u32 val)
{
	struct nvsvm_pascal *np = to_pascal(gpu);

	iowrite32(val, np->bar0 + reg);
	/* GET moved: the worker has read what it could; listen again. */
	if (reg == NV_FAULT_BUF_GET && READ_ONCE(np->ready))
		np->intr_enable(np->data, true);
}

static const struct nvsvm_gpu_ops nvsvm_pascal_ops = {
	.rd32 = nvsvm_pascal_rd32,
	.wr32 = nvsvm_pascal_wr32,
};

/**
 * nvsvm_pascal_register() - give a Pascal GPU to nvsvm as /dev/nvsvmN
 * @info: the GPU; copied, @info itself need not stay
 *
 * Only chipsets 0x130 (GP100) to 0x13b (GP10B) are accepted; anything else
 * is refused with one line in the kernel log. On success the replayable
 * fault buffer belongs to nvsvm and its interrupt is unmasked.
 *
 * Context: process context.
 *
 * Return: the handle for the other calls, or an ERR_PTR: -ENODEV for a
 * chip that is not GP100-family, -EINVAL for incomplete @info, or another
 * errno.
 */
struct nvsvm_pascal *nvsvm_pascal_register(const struct nvsvm_pascal_info *info)
{
	struct nvsvm_pascal *np;
	u32 chipset;
	int ret;

	if (!info->dev || !info->bar0 || !info->intr_enable)
		return ERR_PTR(-EINVAL);

	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return ERR_PTR(-ENOMEM);
	np->bar0 = info->bar0;
	np->intr_enable = info->intr_enable;
	np->data = info->data;
	mutex_init(&np->lock);
	xa_init(&np->joins);
	np->gpu.dev = info->dev;
	np->gpu.owner = info->owner;
	np->gpu.ops = &nvsvm_pascal_ops;

	chipset = gp100_gpu_chipset(&np->gpu);
	if (!gp100_chipset_supported(chipset)) {
		dev_info(info->dev,
			 "nvsvm: chipset 0x%03x is not GP100-family (0x%03x-0x%03x), not used for SVM\n",
			 chipset, GP100_CHIPSET_FIRST, GP100_CHIPSET_LAST);
		ret = -ENODEV;
		goto err_free;
	}
	np->gpu.gpc_count = gp100_gpu_gpc_count(&np->gpu);

	ret = nvsvm_gpu_register(&np->gpu);
	if (ret)
		goto err_free;
	np->ndev = np->gpu.priv;
	WRITE_ONCE(np->ready, true);
	np->intr_enable(np->data, true);
	return np;

err_free:
	xa_destroy(&np->joins);
	mutex_destroy(&np->lock);
	kfree(np);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(nvsvm_pascal_register);

/*
 * Remove a join from both tables (the device's reads the fault buffer, so
 * no entry of the channel is left to be taken for the next user of its
 * instance block); the caller drops its references.
 */
static void nvsvm_pascal_unlink(struct nvsvm_pascal *np,
				struct nvsvm_pascal_join *j)
{
	xa_erase(&np->joins, j->chan.pub.inst_addr >> PAGE_SHIFT);
	nvsvm_chan_unbind(&j->chan);
}

static void nvsvm_pascal_join_free(struct nvsvm_pascal_join *j)
{
	nvsvm_svmm_put(j->svmm);
	fput(j->file);
	kfree(j);
}

/**
 * nvsvm_pascal_unregister() - take a GPU back from nvsvm
 * @np: from nvsvm_pascal_register(); NULL or an ERR_PTR is ignored
 *
 * The caller has already stopped calling nvsvm_pascal_fault_intr() (its
 * interrupt path no longer sees @np); a handler still running is waited
 * for. Channels still joined lose their area.
 *
 * Context: process context.
 */
void nvsvm_pascal_unregister(struct nvsvm_pascal *np)
{
	struct nvsvm_pascal_join *j;
	unsigned long key;

	if (IS_ERR_OR_NULL(np))
		return;
	WRITE_ONCE(np->ready, false);
	np->intr_enable(np->data, false);
	/* Interrupt handlers are RCU readers: wait for the last one. */
	synchronize_rcu();

	mutex_lock(&np->lock);
	xa_for_each(&np->joins, key, j) {
		nvsvm_pascal_unlink(np, j);
		nvsvm_pascal_join_free(j);
	}
	mutex_unlock(&np->lock);

	nvsvm_gpu_unregister(&np->gpu);
	xa_destroy(&np->joins);
	mutex_destroy(&np->lock);
	kfree(np);
}
EXPORT_SYMBOL_GPL(nvsvm_pascal_unregister);

/**
 * nvsvm_pascal_fault_intr() - the replayable-fault interrupt fired
 * @np: from nvsvm_pascal_register()
 *
 * Masks the interrupt and wakes the fault worker; the worker unmasks it
 * once it has read the buffer.
 *
 * Context: any, including the driver's hard interrupt handler.
 */
void nvsvm_pascal_fault_intr(struct nvsvm_pascal *np)
{
	np->intr_enable(np->data, false);
	if (READ_ONCE(np->ready))
		nvsvm_gpu_fault_intr(&np->gpu);
}
EXPORT_SYMBOL_GPL(nvsvm_pascal_fault_intr);

/*
 * The nvsvm file behind @file, if it is one of this GPU opened by the
 * caller's process.
 */
static int nvsvm_pascal_file(struct nvsvm_pascal *np, struct file *file,
			     struct nvsvm_file **pnf)
{
	struct nvsvm_file *nf = nvsvm_file_of(file);

	if (!nf)
		return -EINVAL;
	if (nf->ndev != np->ndev)
		return -EXDEV;
	if (nf->mm != current->mm)
		return -EPERM;
	*pnf = nf;
	return 0;
}

/**
 * nvsvm_pascal_join() - make a driver channel walk an SVM area
 * @np: from nvsvm_pascal_register()
 * @fd: an open /dev/nvsvmN of the same GPU, from the calling process,
 *	with an area (NVSVM_IOCTL_AREA_INIT)
 * @inst: the channel's instance block address as the GPU reports it in
 *	fault entries (4 KiB aligned)
 * @write: called once, under nvsvm's lock, to store @words in the
 *	instance block (see struct nvsvm_pascal_inst); returns 0 or an errno
 * @data: for @write
 *
 * The channel must be idle. After @write, the GPU's TLBs are invalidated;
 * the channel's replayable faults are served from the area from then on.
 * The channel keeps the area's page directory (and the nvsvm file) until
 * nvsvm_pascal_leave(), even if the process closes the file. When the
 * area is torn down first (NVSVM_IOCTL_AREA_FINI), the channel is
 * detached from it: the directory it walks is emptied, and its accesses
 * fault and are cancelled, as those of any channel without an area.
 *
 * Context: process context of the process that opened @fd.
 *
 * Return: 0; -EBADF for a bad @fd; -EINVAL when @fd is not an nvsvm file
 * or @inst is not aligned; -EXDEV for another GPU; -EPERM for another
 * process; -ENOENT when the file has no area; -EBUSY when @inst already
 * joined; an errno from @write or allocation.
 */
int nvsvm_pascal_join(struct nvsvm_pascal *np, int fd, u64 inst,
		      int (*write)(void *data,
				   const struct nvsvm_pascal_inst *words),
		      void *data)
{
	struct nvsvm_device *ndev = np->ndev;
	unsigned long key = inst >> PAGE_SHIFT;
	struct nvsvm_pascal_inst words;
	struct gp100_inst_words iw;
	struct nvsvm_pascal_join *j;
	struct nvsvm_svmm *svmm;
	struct nvsvm_file *nf;
	struct file *file;
	int ret;

	if (!inst || !PAGE_ALIGNED(inst))
		return -EINVAL;
	file = fget(fd);
	if (!file)
		return -EBADF;
	ret = nvsvm_pascal_file(np, file, &nf);
	if (ret)
		goto err_fput;
	/* A user's channel joins: charged to its memory cgroup. */
	j = kzalloc(sizeof(*j), NVSVM_GFP_USER);
	if (!j) {
		ret = -ENOMEM;
		goto err_fput;
	}

	/* The file's lock: AREA_FINI either detaches this join or follows. */
	mutex_lock(&nf->lock);
	svmm = nf->svmm;
	if (!svmm) {
		ret = -ENOENT;
		goto err_unlock;
	}
	gp100_inst_words(nvsvm_vmm_pdb(&svmm->vmm), true, &iw);
	words.pdb = iw.pdb;
	words.limit = iw.limit;
	nvsvm_svmm_get(svmm);
	kref_init(&j->chan.kref);
	j->chan.ndev = ndev;
	j->chan.pub.gpu = ndev->gpu;
	j->chan.pub.inst_addr = inst;
	j->chan.svmm = svmm;
	j->chan.pdb = nvsvm_vmm_pdb(&svmm->vmm);
	j->svmm = svmm;
	j->file = file;

	mutex_lock(&np->lock);
	ret = xa_insert(&np->joins, key, j, NVSVM_GFP_USER);
	if (ret)
		goto err_np;
	ret = nvsvm_chan_bind(&j->chan);
	if (ret) {
		xa_erase(&np->joins, key);
		goto err_np;
	}
	ret = write(data, &words);
	if (ret) {
		nvsvm_pascal_unlink(np, j);
		goto err_np;
	}
	gp100_invalidate_all(ndev);
	mutex_unlock(&np->lock);
	mutex_unlock(&nf->lock);
	return 0;

err_np:
	mutex_unlock(&np->lock);
	nvsvm_svmm_put(svmm);
err_unlock:
	mutex_unlock(&nf->lock);
	kfree(j);
err_fput:
	fput(file);
	return ret;
}
EXPORT_SYMBOL_GPL(nvsvm_pascal_join);

/**
 * nvsvm_pascal_leave() - a joined channel is gone
 * @np: from nvsvm_pascal_register()
 * @inst: the instance block address given to nvsvm_pascal_join()
 *
 * Call once the channel can no longer run (after the driver has torn it
 * down), before its instance block is reused. The fault entries the
 * channel left in the buffer are read (and found stale) before this
 * returns, so none is taken for a channel that reuses the instance block.
 * Unknown @inst is ignored.
 *
 * Context: process context.
 */
void nvsvm_pascal_leave(struct nvsvm_pascal *np, u64 inst)
{
	struct nvsvm_pascal_join *j;

	mutex_lock(&np->lock);
	j = xa_load(&np->joins, inst >> PAGE_SHIFT);
	if (j)
		nvsvm_pascal_unlink(np, j);
	mutex_unlock(&np->lock);
	if (j)
		nvsvm_pascal_join_free(j);
}
EXPORT_SYMBOL_GPL(nvsvm_pascal_leave);

/**
 * nvsvm_pascal_test_attach() - TEST ONLY: a handle for the join and leave
 *	calls on a GPU another provider registered
 * @gpu: a registered GPU (the virtual GP100: nvsvm_vgpu_test_gpu())
 *
 * For tests/kmod, which makes the calls nouveau makes on a virtual GP100.
 * The caller keeps @gpu registered until nvsvm_pascal_test_detach().
 *
 * Return: the handle, or NULL.
 */
struct nvsvm_pascal *nvsvm_pascal_test_attach(struct nvsvm_gpu *gpu)
{
	struct nvsvm_pascal *np;

	if (!gpu || !gpu->priv)
		return NULL;
	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return NULL;
	mutex_init(&np->lock);
	xa_init(&np->joins);
	np->ndev = gpu->priv;
	return np;
}
EXPORT_SYMBOL_NVSVM_TESTS_ONLY(nvsvm_pascal_test_attach);

/**
 * nvsvm_pascal_test_detach() - TEST ONLY: end nvsvm_pascal_test_attach()
 * @np: the handle; channels still joined leave
 */
void nvsvm_pascal_test_detach(struct nvsvm_pascal *np)
{
	struct nvsvm_pascal_join *j;
	unsigned long key;

	if (!np)
		return;
	xa_for_each(&np->joins, key, j)
		nvsvm_pascal_leave(np, key << PAGE_SHIFT);
	xa_destroy(&np->joins);
	mutex_destroy(&np->lock);
	kfree(np);
}
EXPORT_SYMBOL_NVSVM_TESTS_ONLY(nvsvm_pascal_test_detach);
