// SPDX-License-Identifier: GPL-2.0
/*
 * TEST ONLY: nvsvm_pascal_test.ko makes the calls the patched nouveau
 * makes (nvsvm_pascal_join(), nvsvm_pascal_leave()) on the virtual GP100
 * nvsvm_vgpu.0, for tests/pascal.c. Not part of the nvsvm package.
 *
 * Each open /dev/nvsvm_pascal_test is one channel: a 4 KiB instance block
 * this module owns, as nouveau owns its channels' (the block is kept
 * across LEAVE and JOIN, so a new channel reuses its address), and the
 * virtual GPU's engine state for it. JOIN starts the channel and joins an
 * area; LEAVE stops it (its programs end) and then leaves, the order of
 * nouveau_channel_del(). EXEC runs a program on it; a test calls LEAVE
 * during an EXEC only once the program runs (it faulted).
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsvm_gpu.h"
#include "nvsvm_pascal.h"
#include "nvsvm_test.h"
#include "nvsvm_pascal_test.h"

static struct nvsvm_gpu *pt_gpu;
static struct nvsvm_pascal *pt_np;

struct pt_chan {
	struct mutex lock;	/* @joined, @held */
	struct nvsvm_chan chan;
	__le32 *inst;
	bool joined;
	bool held;
};

/* nouveau_nvsvm_inst_write(): limit first, then the PDB, low word last. */
static int pt_inst_write(void *data, const struct nvsvm_pascal_inst *words)
{
	struct pt_chan *pc = data;
	const unsigned int pdb = NVSVM_PASCAL_INST_PDB / 4;
	const unsigned int limit = NVSVM_PASCAL_INST_LIMIT / 4;

	pc->inst[limit] = cpu_to_le32(lower_32_bits(words->limit));
	pc->inst[limit + 1] = cpu_to_le32(upper_32_bits(words->limit));
	pc->inst[pdb + 1] = cpu_to_le32(upper_32_bits(words->pdb));
	dma_wmb();
	WRITE_ONCE(pc->inst[pdb], cpu_to_le32(lower_32_bits(words->pdb)));
	return 0;
}

static int pt_open(struct inode *inode, struct file *file)
{
	struct pt_chan *pc = kzalloc(sizeof(*pc), GFP_KERNEL);

	if (!pc)
		return -ENOMEM;
	mutex_init(&pc->lock);
	pc->chan.gpu = pt_gpu;
	pc->inst = dma_alloc_coherent(pt_gpu->dev, PAGE_SIZE,
				      &pc->chan.inst_addr, GFP_KERNEL);
	if (!pc->inst) {
		kfree(pc);
		return -ENOMEM;
	}
	file->private_data = pc;
	return 0;
}

/* The channel stops (nouveau destroys it), then leaves. pc->lock held. */
static void pt_leave(struct pt_chan *pc)
{
	pt_gpu->ops->chan_fini(pt_gpu, &pc->chan);
	nvsvm_pascal_leave(pt_np, pc->chan.inst_addr);
	WRITE_ONCE(pc->joined, false);
}

static int pt_release(struct inode *inode, struct file *file)
{
	struct pt_chan *pc = file->private_data;

	mutex_lock(&pc->lock);
	if (pc->joined)
		pt_leave(pc);
	if (pc->held)
		nvsvm_vgpu_test_hold_intr(pt_gpu, false);
	mutex_unlock(&pc->lock);
	dma_free_coherent(pt_gpu->dev, PAGE_SIZE, pc->inst, pc->chan.inst_addr);
	kfree(pc);
	return 0;
}

static long pt_join(struct pt_chan *pc, void __user *uarg)
{
	struct nvsvm_pt_join args;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	mutex_lock(&pc->lock);
	ret = -EBUSY;
	if (pc->joined)
		goto out;
	memset(pc->inst, 0, PAGE_SIZE);
	ret = pt_gpu->ops->chan_init(pt_gpu, &pc->chan);
	if (ret)
		goto out;
	ret = nvsvm_pascal_join(pt_np, args.fd, pc->chan.inst_addr,
				pt_inst_write, pc);
	if (ret)
		pt_gpu->ops->chan_fini(pt_gpu, &pc->chan);
	else
		WRITE_ONCE(pc->joined, true);
out:
	mutex_unlock(&pc->lock);
	return ret;
}

static long pt_exec(struct pt_chan *pc, void __user *uarg)
{
	struct nvsvm_exec args;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (!READ_ONCE(pc->joined))
		return -ENOENT;
	ret = nvsvm_vgpu_test_exec(pt_gpu, &pc->chan, &args);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

static long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pt_chan *pc = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct nvsvm_pt_hold hold;
	long ret = 0;

	switch (cmd) {
	case NVSVM_PT_JOIN:
		return pt_join(pc, uarg);
	case NVSVM_PT_EXEC:
		return pt_exec(pc, uarg);
	case NVSVM_PT_LEAVE:
		mutex_lock(&pc->lock);
		if (pc->joined)
			pt_leave(pc);
		else
			ret = -ENOENT;
		mutex_unlock(&pc->lock);
		return ret;
	case NVSVM_PT_HOLD:
		if (copy_from_user(&hold, uarg, sizeof(hold)))
			return -EFAULT;
		mutex_lock(&pc->lock);
		pc->held = hold.hold;
		nvsvm_vgpu_test_hold_intr(pt_gpu, pc->held);
		mutex_unlock(&pc->lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

static const struct file_operations pt_fops = {
	.owner = THIS_MODULE,
	.open = pt_open,
	.release = pt_release,
	.unlocked_ioctl = pt_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice pt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nvsvm_pascal_test",
	.fops = &pt_fops,
	.mode = 0600,
};

static int __init pt_init(void)
{
	int ret;

	pt_gpu = nvsvm_vgpu_test_gpu(0);
	if (!pt_gpu)
		return -ENODEV;
	pt_np = nvsvm_pascal_test_attach(pt_gpu);
	if (!pt_np)
		return -ENOMEM;
	ret = misc_register(&pt_misc);
	if (ret)
		nvsvm_pascal_test_detach(pt_np);
	return ret;
}

static void __exit pt_exit(void)
{
	misc_deregister(&pt_misc);
	nvsvm_pascal_test_detach(pt_np);
}

module_init(pt_init);
module_exit(pt_exit);
MODULE_DESCRIPTION("TEST ONLY: nvsvm_pascal_* calls on a virtual GP100");
MODULE_LICENSE("GPL");
