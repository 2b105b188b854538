// SPDX-License-Identifier: GPL-2.0
/*
 * nvsvm_vgpu: a virtual NVIDIA GP100 (Pascal) for nvsvm.ko. Each GPU is a
 * platform device (for the DMA API) with a register file, an MMU model,
 * GPC threads running programs of memory operations, video memory and
 * replayable faults, registered with the core as a GPU provider.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvsvm_test.h"
#include "vgpu.h"

#define VGPU_MAX_GPUS		8
#define VGPU_MAX_GPCS		32	/* the GPC field of a fault entry */
#define VGPU_MAX_T1_CLIENTS	40	/* GPCCLIENT_T1_0 to T1_39 */
#define VGPU_MAX_WARPS_PER_SM	64
#define VGPU_MAX_VRAM_MB	4096
#define VGPU_MAX_FAULT_ENTRIES	BIT(20)
#define VGPU_MAX_TLB_ENTRIES	4096
#define VGPU_MAX_VALID_DELAY_US	100000

static unsigned int count = 1;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "number of virtual GPUs (1-8, default 1)");

static unsigned int gpcs = 6;
module_param(gpcs, uint, 0444);
MODULE_PARM_DESC(gpcs, "GPCs per GPU (1-32, default 6 as GP100)");

static unsigned int tpcs_per_gpc = 5;
module_param(tpcs_per_gpc, uint, 0444);
MODULE_PARM_DESC(tpcs_per_gpc,
		 "TPCs per GPC, one micro-TLB each (1-40, default 5 as GP100)");

static unsigned int sms_per_tpc = 2;
module_param(sms_per_tpc, uint, 0444);
MODULE_PARM_DESC(sms_per_tpc,
		 "SMs per TPC, one fault client each (1-40, TPCs x SMs at most 40, default 2 as GP100)");

static unsigned int warps_per_sm = 64;
module_param(warps_per_sm, uint, 0444);
MODULE_PARM_DESC(warps_per_sm,
		 "resident warps per SM (1-64, default 64 as GP100)");

static unsigned int vram_mb = 64;
module_param(vram_mb, uint, 0444);
MODULE_PARM_DESC(vram_mb, "video memory per GPU in MiB (0-4096, default 64)");

static unsigned int fault_entries = 1024;
module_param(fault_entries, uint, 0444);
MODULE_PARM_DESC(fault_entries,
		 "replayable fault buffer entries (2-1048576, default 1024)");

static unsigned int tlb_entries = 64;
module_param(tlb_entries, uint, 0444);
MODULE_PARM_DESC(tlb_entries,
		 "micro-TLB entries per TPC (1-4096, default 64)");

static unsigned int fault_valid_delay_us = 50;
module_param(fault_valid_delay_us, uint, 0444);
MODULE_PARM_DESC(fault_valid_delay_us,
		 "a fault entry's VALID bit is set this long after the driver read PUT (0-100000, default 50)");

static char *sysmem_atomics = "pcie";
module_param(sysmem_atomics, charp, 0444);
MODULE_PARM_DESC(sysmem_atomics,
		 "GPU atomics on system memory: pcie (default, as a Pascal on PCIe: a read, a window, a write, not atomic against the CPU or another GPU) or coherent (CPU atomics, as a link coherent for atomics)");

unsigned int vgpu_atomic_window_us = 20;
module_param_named(sysmem_atomic_window_us, vgpu_atomic_window_us, uint,
		   0644);
MODULE_PARM_DESC(sysmem_atomic_window_us,
		 "pcie: time between the read and the write of an atomic on system memory, in microseconds (0-1000, default 20; may change at any time)");

unsigned int vgpu_replay_delay_us;
module_param_named(replay_delay_us, vgpu_replay_delay_us, uint, 0644);
MODULE_PARM_DESC(replay_delay_us,
		 "a replayed access is issued again this long after the replay, in microseconds (0-100000, default 0: at once; may change at any time)");

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the model's self-tests on GPU 0 at load (KTAP)");

static const struct nvsvm_gpu_ops vgpu_ops = {
	.rd32 = vgpu_rd32,
	.wr32 = vgpu_wr32,
	.chan_init = vgpu_chan_init,
	.chan_fini = vgpu_chan_fini,
	.copy = vgpu_copy,
};

/* The virtual GP100's own ioctl (uapi/nvsvm_vgpu.h). */
static const struct nvsvm_gpu_ioctl vgpu_ioctls[] = {
	{ .cmd = NVSVM_IOCTL_EXEC, .func = vgpu_ioctl_exec },
	{ .cmd = NVSVM_IOCTL_LAUNCH, .func = vgpu_ioctl_launch },
};

static struct dentry *vgpu_debugfs_root;
static DEFINE_MUTEX(vgpus_lock);		/* @vgpus */
static struct vgpu *vgpus[VGPU_MAX_GPUS];
static struct platform_device *vgpu_pdevs[VGPU_MAX_GPUS];

static int vgpu_counter_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vgpu_counter_fops, vgpu_counter_get, NULL, "%llu\n");

/* stall_us, lockdown_us: warp-µs of the waits ended so far. */
static int vgpu_stall_us_get(void *data, u64 *val)
{
	*val = div_u64(atomic64_read(data), NSEC_PER_USEC);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vgpu_stall_us_fops, vgpu_stall_us_get, NULL, "%llu\n");

/* fault_pending: entries PUT moved past and GET has not (yet). */
static int vgpu_fault_pending_get(void *data, u64 *val)
{
	struct vgpu *vgpu = data;
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	n = vgpu->fb_entries;
	*val = n ? (vgpu->fb_put + n - vgpu->fb_get % n) % n : 0;
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vgpu_fault_pending_fops, vgpu_fault_pending_get,
			 NULL, "%llu\n");

static void vgpu_debugfs_init(struct vgpu *vgpu)
{
	static const struct {
		const char *name;
		size_t offset;
	} files[] = {
#define VGPU_CTR(x) { #x, offsetof(struct vgpu_counters, x) }
		VGPU_CTR(accesses), VGPU_CTR(tlb_hits), VGPU_CTR(tlb_misses),
		VGPU_CTR(walks), VGPU_CTR(faults), VGPU_CTR(replays),
		VGPU_CTR(cancels), VGPU_CTR(invalidates), VGPU_CTR(overflows),
		VGPU_CTR(copies), VGPU_CTR(refaults), VGPU_CTR(early_gets),
		VGPU_CTR(valid_uncleared), VGPU_CTR(cancel_misses),
		VGPU_CTR(sysmem_rmws), VGPU_CTR(insns),
#undef VGPU_CTR
	};
	char name[16];
	int i;

	snprintf(name, sizeof(name), "gpu%u", vgpu->index);
	vgpu->dir = debugfs_create_dir(name, vgpu_debugfs_root);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		debugfs_create_file_unsafe(files[i].name, 0444, vgpu->dir,
					   (void *)&vgpu->ctr + files[i].offset,
					   &vgpu_counter_fops);
	debugfs_create_file_unsafe("fault_pending", 0444, vgpu->dir, vgpu,
				   &vgpu_fault_pending_fops);
	debugfs_create_file_unsafe("stall_us", 0444, vgpu->dir,
				   &vgpu->ctr.stall_ns, &vgpu_stall_us_fops);
	debugfs_create_file_unsafe("lockdown_us", 0444, vgpu->dir,
				   &vgpu->ctr.lockdown_ns, &vgpu_stall_us_fops);
	debugfs_create_atomic_t("copy_fail", 0600, vgpu->dir,
				&vgpu->copy_fail);
}

static void vgpu_destroy(struct vgpu *vgpu)
{
	if (vgpu->registered) {
		nvsvm_gpu_unregister(&vgpu->gpu);
		WRITE_ONCE(vgpu->registered, false);
	}
	debugfs_remove_recursive(vgpu->dir);
	vgpu_gpcs_fini(vgpu);
	vgpu_vram_fini(vgpu);
	bitmap_free(vgpu->fb_taken);
	kfree(vgpu);
}

static struct platform_device *vgpu_pdev_create(u32 index)
{
	struct platform_device_info info = {
		.name = KBUILD_MODNAME,
		.id = index,
		.dma_mask = DMA_BIT_MASK(64),
	};

	return platform_device_register_full(&info);
}

static int vgpu_create(struct platform_device *pdev, struct vgpu **out)
{
	u32 index = pdev->id;
	struct vgpu *vgpu;
	int ret;

	vgpu = kzalloc(sizeof(*vgpu), GFP_KERNEL);
	if (!vgpu)
		return -ENOMEM;
	vgpu->index = index;
	vgpu->pdev = pdev;
	spin_lock_init(&vgpu->reg_lock);
	spin_lock_init(&vgpu->sched_lock);
	vgpu->fb_entries = fault_entries;
	vgpu->fb_valid_delay_us = fault_valid_delay_us;
	spin_lock_init(&vgpu->atomic_lock);
	vgpu->sysmem_pcie = strcmp(sysmem_atomics, "coherent");
	atomic_set(&vgpu->rr, -1);

	ret = vgpu_vram_init(vgpu, (u64)vram_mb << 20);
	if (ret)
		goto fail;
	vgpu->fb_taken = bitmap_zalloc(fault_entries, GFP_KERNEL);
	if (!vgpu->fb_taken) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = vgpu_gpcs_init(vgpu, gpcs, tpcs_per_gpc, sms_per_tpc,
			     warps_per_sm, tlb_entries);
	if (ret)
		goto fail;
	vgpu_debugfs_init(vgpu);

	vgpu->gpu.dev = &pdev->dev;
	vgpu->gpu.owner = THIS_MODULE;
	vgpu->gpu.ops = &vgpu_ops;
	vgpu->gpu.ioctls = vgpu_ioctls;
	vgpu->gpu.num_ioctls = ARRAY_SIZE(vgpu_ioctls);
	vgpu->gpu.vram_size = vgpu->vram_size;
	vgpu->gpu.gpc_count = vgpu->gpc_count;
	vgpu->gpu.exec_caps = NVSVM_CAP_EXEC | NVSVM_CAP_ATOMICS;
	vgpu->gpu.host_atomics = !vgpu->sysmem_pcie;

	if (selftest && index == 0)
		vgpu_selftest(vgpu);

	ret = nvsvm_gpu_register(&vgpu->gpu);
	if (ret)
		goto fail;
	WRITE_ONCE(vgpu->registered, true);
	*out = vgpu;
	return 0;

fail:
	pr_err("gpu%u: creation failed: %d\n", index, ret);
	vgpu_destroy(vgpu);
	return ret;
}

/*
 * Each virtual GPU is a platform device "nvsvm_vgpu.N" bound to this
 * driver: probe builds the model and registers it with the core, remove
 * (module unload, or an unbind through sysfs) unregisters and frees it.
 */
static int vgpu_probe(struct platform_device *pdev)
{
	struct vgpu *vgpu;
	int ret;

	if (pdev->id < 0 || pdev->id >= VGPU_MAX_GPUS)
		return -EINVAL;
	ret = vgpu_create(pdev, &vgpu);
	if (ret)
		return ret;
	platform_set_drvdata(pdev, vgpu);
	mutex_lock(&vgpus_lock);
	vgpus[pdev->id] = vgpu;
	mutex_unlock(&vgpus_lock);
	return 0;
}

static void vgpu_remove(struct platform_device *pdev)
{
	struct vgpu *vgpu = platform_get_drvdata(pdev);

	mutex_lock(&vgpus_lock);
	vgpus[pdev->id] = NULL;
	mutex_unlock(&vgpus_lock);
	vgpu_destroy(vgpu);
}

NVSVM_DEFINE_PLATFORM_REMOVE(vgpu_remove)

static struct platform_driver vgpu_driver = {
	.probe = vgpu_probe,
	NVSVM_PLATFORM_REMOVE(vgpu_remove),
	.driver = {
		.name = KBUILD_MODNAME,
	},
};

/* Test hooks for tests/kmod (include/nvsvm_test.h); nothing else uses them. */

/**
 * nvsvm_vgpu_test_gpu() - TEST ONLY: the registered GPU of nvsvm_vgpu.N
 * @index: N
 *
 * Return: the GPU, or NULL when that device is not bound. The caller
 * keeps the device bound while it uses the GPU.
 */
struct nvsvm_gpu *nvsvm_vgpu_test_gpu(unsigned int index)
{
	struct nvsvm_gpu *gpu = NULL;

	mutex_lock(&vgpus_lock);
	if (index < VGPU_MAX_GPUS && vgpus[index])
		gpu = &vgpus[index]->gpu;
	mutex_unlock(&vgpus_lock);
	return gpu;
}
EXPORT_SYMBOL_NVSVM_TESTS_ONLY(nvsvm_vgpu_test_gpu);

static void vgpu_intr_held(struct vgpu *vgpu)
{
}

/**
 * nvsvm_vgpu_test_hold_intr() - TEST ONLY: hold back the fault interrupt
 * @gpu: from nvsvm_vgpu_test_gpu()
 * @hold: true: faults are written to the buffer but no interrupt reaches
 *	the core; false: deliver one now and every one after
 *
 * Lets a test keep fault entries unread in the buffer while it changes
 * the channel that wrote them. The core still reads them when it flushes
 * the buffer itself.
 */
void nvsvm_vgpu_test_hold_intr(struct nvsvm_gpu *gpu, bool hold)
{
	struct vgpu *vgpu = to_vgpu(gpu);

	WRITE_ONCE(vgpu->intr_hook, hold ? vgpu_intr_held : NULL);
	if (!hold)
		nvsvm_gpu_fault_intr(gpu);
}
EXPORT_SYMBOL_NVSVM_TESTS_ONLY(nvsvm_vgpu_test_hold_intr);

/**
 * nvsvm_vgpu_test_exec() - TEST ONLY: run a program on a channel
 * @gpu: from nvsvm_vgpu_test_gpu()
 * @chan: a channel of @gpu the caller keeps alive (tests/kmod's own)
 * @args: the EXEC arguments, copied in; (out) fields are filled
 *
 * What NVSVM_IOCTL_EXEC does for a channel of /dev/nvsvmN, for a channel
 * the test module made the way nouveau makes its own.
 *
 * Return: as vgpu_exec().
 */
int nvsvm_vgpu_test_exec(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan,
			 struct nvsvm_exec *args)
{
	return vgpu_exec(gpu, chan, args);
}
EXPORT_SYMBOL_NVSVM_TESTS_ONLY(nvsvm_vgpu_test_exec);

static bool vgpu_params_ok(void)
{
	return count >= 1 && count <= VGPU_MAX_GPUS &&
	       gpcs >= 1 && gpcs <= VGPU_MAX_GPCS &&
	       tpcs_per_gpc >= 1 && sms_per_tpc >= 1 &&
	       tpcs_per_gpc * sms_per_tpc <= VGPU_MAX_T1_CLIENTS &&
	       warps_per_sm >= 1 && warps_per_sm <= VGPU_MAX_WARPS_PER_SM &&
	       vram_mb <= VGPU_MAX_VRAM_MB &&
	       fault_entries >= 2 && fault_entries <= VGPU_MAX_FAULT_ENTRIES &&
	       tlb_entries >= 1 && tlb_entries <= VGPU_MAX_TLB_ENTRIES &&
	       fault_valid_delay_us <= VGPU_MAX_VALID_DELAY_US &&
	       vgpu_atomic_window_us <= VGPU_MAX_ATOMIC_WINDOW_US &&
	       vgpu_replay_delay_us <= VGPU_MAX_REPLAY_DELAY_US &&
	       (!strcmp(sysmem_atomics, "pcie") ||
		!strcmp(sysmem_atomics, "coherent"));
}

static void vgpu_exit_gpus(void)
{
	int i;

	for (i = VGPU_MAX_GPUS - 1; i >= 0; i--) {
		if (vgpu_pdevs[i])
			platform_device_unregister(vgpu_pdevs[i]);
		vgpu_pdevs[i] = NULL;
	}
	platform_driver_unregister(&vgpu_driver);
	debugfs_remove_recursive(vgpu_debugfs_root);
	vgpu_debugfs_root = NULL;
}

static int __init vgpu_init(void)
{
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	if (!vgpu_params_ok()) {
		pr_err("invalid module parameters\n");
		return -EINVAL;
	}
	vgpu_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = platform_driver_register(&vgpu_driver);
	if (ret) {
		debugfs_remove_recursive(vgpu_debugfs_root);
		return ret;
	}
	for (i = 0; i < count; i++) {
		pdev = vgpu_pdev_create(i);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto fail;
		}
		vgpu_pdevs[i] = pdev;
		/* Probed as it was added; a failed probe leaves it unbound. */
		if (!platform_get_drvdata(pdev)) {
			ret = -ENODEV;
			goto fail;
		}
	}
	pr_info("%u virtual GP100 GPU(s), %u GPCs x %u TPCs x %u SMs x %u warps, %u MiB VRAM each, %s system-memory atomics\n",
		count, gpcs, tpcs_per_gpc, sms_per_tpc, warps_per_sm, vram_mb,
		sysmem_atomics);
	return 0;

fail:
	vgpu_exit_gpus();
	return ret;
}

static void __exit vgpu_exit(void)
{
	vgpu_exit_gpus();
}

module_init(vgpu_init);
module_exit(vgpu_exit);

MODULE_DESCRIPTION("nvsvm virtual NVIDIA GP100 (Pascal) GPU");
MODULE_AUTHOR("nvsvm developers");
MODULE_LICENSE("GPL");
