// SPDX-License-Identifier: GPL-2.0
/*
 * Recency without access counters: the GPU PTEs of sampled VRAM chunks go,
 * the data stays (issue 36 item 3).
 *
 * Pascal has no access counters, and the GPU does not fault on a page it
 * has mapped: once a VRAM page is mapped, its chunk's last use
 * (src/dmem.c) never moves, however hard the GPU works on it. Every
 * sample_ms, while sample_chunks is set, a sampling pass (a delayed work
 * per device) has src/dmem.c pick sample_chunks chunks in use from a clock
 * hand and stamp them (nvsvm_dmem_sample()), then removes from every area
 * of the device each 2 MiB GPU range (one leaf table's span) with a PTE
 * into a picked chunk (nvsvm_recency_drop()):
 * the PTEs are cleared and the TLB invalidated as for a CPU-side
 * invalidation (nvsvm_mirror_unmap_locked()), but the CPU keeps its
 * device-private entries and the VRAM keeps the data. The GPU's next
 * access to such a range faults; the fault path finds the same VRAM page
 * through hmm_range_fault() and maps it again (no copy), and with it the
 * rest of the block that is in VRAM, in the same batch (src/service.c,
 * nvsvm_fault_vram_block()), which stamps the chunks
 * (nvsvm_dmem_vram()). A chunk sampled and not stamped since is
 * cold, and evict_policy lru evicts cold chunks first: the software
 * "referenced bit" of Linux's NUMA hinting faults, for the GPU.
 *
 * A cold mark pays only when an eviction comes: a background pass that
 * finds more than sample_free chunks of VRAM free (by default the
 * evictor's high watermark, or one chunk without an evictor:
 * nvsvm_dmem_pressure()) samples nothing (counted in sample_idle).
 *
 * Only the mirrored ranges are walked, never the unmanaged window: the
 * driver buffers there (src/buf.c) are mapped once, and a fault on one is
 * fatal. A range is dropped whole even where only some of its PTEs point
 * into a sampled chunk (a fault brings back what of it is in VRAM:
 * src/service.c).
 *
 * Lifetime: the sampler of a device with VRAM lives from
 * nvsvm_recency_init() (the end of register) to nvsvm_recency_fini()
 * (unregister, after every area went and before nvsvm_dmem_fini()), which
 * stops the work's requeueing and waits for a pass under way. A write of
 * sample_chunks starts the works of every device at once.
 *
 * Locking: a pass holds the sampler's @pass mutex (one pass at a time, for
 * the clock hand), then the device's files_lock, each file's lock (its area stays while
 * it is held; file teardown takes the same locks, as
 * nvsvm_file_unplug_all() does) and the area's mutex, in the order of the
 * lock list (include/nvsvm_core.h); an area marked dead is passed over.
 * No allocation under the mutex.
 */
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "nvsvm_core.h"
#include "nvsvm_dmem.h"
#include "nvsvm_mirror.h"
#include "nvsvm_recency.h"
#include "nvsvm_vmm.h"

/**
 * struct nvsvm_recency - a device's recency sampler
 * @ndev: the device, with VRAM
 * @work: the passes, every sample_ms
 * @pass: one pass at a time (the work, the test knob)
 * @node: in nvsvm_recency_devs, under nvsvm_recency_lock
 * @stopping: set by nvsvm_recency_fini() under nvsvm_recency_lock: the
 *	work is not queued from then on
 */
struct nvsvm_recency {
	struct nvsvm_device *ndev;
	struct delayed_work work;
	struct mutex pass;		/* one pass at a time */
	struct list_head node;
	bool stopping;
};

/* The samplers, for a write of sample_chunks. */
static LIST_HEAD(nvsvm_recency_devs);
static DEFINE_MUTEX(nvsvm_recency_lock);	/* the list, @stopping */

#define NVSVM_SAMPLE_CHUNKS_MAX	2048	/* 4 GiB: the largest vram_mb */
#define NVSVM_SAMPLE_MS_MAX	60000
static unsigned int sample_chunks;
static unsigned int sample_ms = 100;
static unsigned int sample_free;

/* Queue @r's next pass after @ms, unless it is stopping. */
static void nvsvm_recency_queue(struct nvsvm_recency *r, unsigned int ms)
{
	lockdep_assert_held(&nvsvm_recency_lock);
	if (!r->stopping)
		queue_delayed_work(nvsvm_system_dfl_wq, &r->work,
				   msecs_to_jiffies(ms));
}

/*
 * At most NVSVM_SAMPLE_CHUNKS_MAX; else -EINVAL, nothing changed. A value
 * above 0 starts every device's sampler (one already queued keeps its
 * time).
 */
static int nvsvm_sample_chunks_set(const char *val,
				   const struct kernel_param *kp)
{
	struct nvsvm_recency *r;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > NVSVM_SAMPLE_CHUNKS_MAX)
		return -EINVAL;
	mutex_lock(&nvsvm_recency_lock);
	WRITE_ONCE(sample_chunks, v);
	if (v)
		list_for_each_entry(r, &nvsvm_recency_devs, node)
			nvsvm_recency_queue(r, 0);
	mutex_unlock(&nvsvm_recency_lock);
	return 0;
}

/* 1 to NVSVM_SAMPLE_MS_MAX ms; else -EINVAL, nothing changed. */
static int nvsvm_sample_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || !v || v > NVSVM_SAMPLE_MS_MAX)
		return -EINVAL;
	WRITE_ONCE(sample_ms, v);
	return 0;
}

/* 0 to NVSVM_SAMPLE_CHUNKS_MAX chunks; else -EINVAL, nothing changed. */
static int nvsvm_sample_free_set(const char *val,
				 const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > NVSVM_SAMPLE_CHUNKS_MAX)
		return -EINVAL;
	WRITE_ONCE(sample_free, v);
	return 0;
}

static const struct kernel_param_ops nvsvm_sample_chunks_ops = {
	.set = nvsvm_sample_chunks_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops nvsvm_sample_ms_ops = {
	.set = nvsvm_sample_ms_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops nvsvm_sample_free_ops = {
	.set = nvsvm_sample_free_set,
	.get = param_get_uint,
};

module_param_cb(sample_chunks, &nvsvm_sample_chunks_ops, &sample_chunks, 0644);
MODULE_PARM_DESC(sample_chunks,
		 "VRAM chunks (2 MiB) whose GPU mappings the recency sampler drops per pass, to see which the GPU faults back (evict_policy lru evicts the others first); 0 (default): no sampler");
module_param_cb(sample_ms, &nvsvm_sample_ms_ops, &sample_ms, 0644);
MODULE_PARM_DESC(sample_ms,
		 "ms between the recency sampler's passes (1 to 60000; default 100)");
module_param_cb(sample_free, &nvsvm_sample_free_ops, &sample_free, 0644);
MODULE_PARM_DESC(sample_free,
		 "the recency sampler's passes sample nothing while more than this many VRAM chunks (2 MiB) are free (0 to 2048; 0, the default: evict_high, else evict_low, else 1)");

/* The walk of one 2 MiB range: does a PTE point into a sampled chunk? */
struct nvsvm_recency_hit {
	const unsigned long *chunks;
	unsigned long nchunks;
	bool hit;
};

static void nvsvm_recency_used(void *data, u64 vram)
{
	struct nvsvm_recency_hit *h = data;
	unsigned long c = vram / NVSVM_RANGE_MAX_BYTES;

	if (c < h->nchunks && test_bit(c, h->chunks))
		h->hit = true;
}

/*
 * Drop the 2 MiB ranges of [@start, @end) of @svmm (a mirrored side of
 * its window) that map a page of a chunk in @chunks. Return: how many.
 */
static unsigned long nvsvm_recency_area(struct nvsvm_svmm *svmm, u64 start,
					u64 end, const unsigned long *chunks,
					unsigned long nchunks)
{
	struct nvsvm_recency_hit h = { .chunks = chunks, .nchunks = nchunks };
	struct nvsvm_vmm *vmm = &svmm->vmm;
	unsigned long dropped = 0;
	u64 addr, next;

	lockdep_assert_held(&svmm->mutex);
	for (addr = start; addr < end; addr = next) {
		addr = nvsvm_vmm_next_used(vmm, addr, end,
					   ilog2(NVSVM_RANGE_MAX_BYTES));
		if (addr >= end)
			break;
		addr = max(ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES), start);
		next = min_t(u64, ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) +
				  NVSVM_RANGE_MAX_BYTES, end);
		h.hit = false;
		nvsvm_vmm_vram_each(vmm, addr, (next - addr) >> PAGE_SHIFT,
				    nvsvm_recency_used, &h);
		if (!h.hit)
			continue;
		nvsvm_mirror_unmap_locked(svmm, addr, next);
		dropped++;
	}
	return dropped;
}

/*
 * One sampling pass over @n chunks: src/dmem.c picks and stamps them, then
 * their GPU mappings go. Return: chunks sampled, or -ENOMEM.
 */
static long nvsvm_recency_pass(struct nvsvm_recency *r, unsigned int n)
{
	struct nvsvm_device *ndev = r->ndev;
	unsigned long nchunks = nvsvm_dmem_nchunks(ndev), got, blocks = 0;
	u64 t0 = local_clock();
	unsigned long *pick;

	pick = bitmap_zalloc(nchunks, GFP_KERNEL);
	if (!pick)
		return -ENOMEM;
	mutex_lock(&r->pass);
	got = nvsvm_dmem_sample(ndev, n, pick);
	if (got)
		blocks = nvsvm_recency_drop(ndev, pick, nchunks);
	mutex_unlock(&r->pass);
	bitmap_free(pick);
	nvsvm_stat_add(ndev, NVSVM_STAT_SAMPLE_PASSES, 1);
	nvsvm_stat_add(ndev, NVSVM_STAT_SAMPLED_CHUNKS, got);
	nvsvm_stat_add(ndev, NVSVM_STAT_SAMPLED_BLOCKS, blocks);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_SAMPLE, nvsvm_ns_since(t0));
	return got;
}

/*
 * The sampler: a pass every sample_ms while sample_chunks is set, which
 * samples only under pressure (nvsvm_dmem_pressure(): at most sample_free
 * chunks free); a write of sample_chunks above 0 starts it again.
 */
static void nvsvm_recency_work(struct work_struct *work)
{
	struct nvsvm_recency *r = container_of(to_delayed_work(work),
					       struct nvsvm_recency, work);
	unsigned int n = READ_ONCE(sample_chunks);

	if (!n)
		return;
	/* No eviction coming: a cold mark would buy nothing. */
	if (nvsvm_dmem_pressure(r->ndev, READ_ONCE(sample_free)))
		nvsvm_recency_pass(r, n);
	else
		nvsvm_stat_add(r->ndev, NVSVM_STAT_SAMPLE_IDLE, 1);
	mutex_lock(&nvsvm_recency_lock);
	nvsvm_recency_queue(r, READ_ONCE(sample_ms));
	mutex_unlock(&nvsvm_recency_lock);
}

#ifdef NVSVM_TEST
/*
 * TEST ONLY: /sys/kernel/debug/nvsvm/nvsvmN/sample (root, write only):
 * write N (1 to NVSVM_SAMPLE_CHUNKS_MAX) and one sampling pass over N
 * chunks runs before the write returns, whatever sample_chunks says and
 * however much VRAM is free. Under
 * the device's unplug lock, as an ioctl: ENODEV once it is gone, and
 * unregister waits for a pass under way before nvsvm_recency_fini().
 */
static ssize_t nvsvm_recency_knob_write(struct file *file,
					const char __user *ubuf, size_t len,
					loff_t *ppos)
{
	struct nvsvm_device *ndev = file->private_data;
	unsigned int n;
	long ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &n);
	if (ret)
		return ret;
	if (!n || n > NVSVM_SAMPLE_CHUNKS_MAX)
		return -EINVAL;
	down_read(&ndev->unplug);
	if (READ_ONCE(ndev->gone) || !ndev->recency)
		ret = -ENODEV;
	else
		ret = nvsvm_recency_pass(ndev->recency, n);
	up_read(&ndev->unplug);
	return ret < 0 ? ret : len;
}

static const struct file_operations nvsvm_recency_knob_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = nvsvm_recency_knob_write,
};

static void nvsvm_recency_knob(struct nvsvm_device *ndev)
{
	debugfs_create_file("sample", 0200, ndev->debugfs, ndev,
			    &nvsvm_recency_knob_fops);
}
#else
static void nvsvm_recency_knob(struct nvsvm_device *ndev)
{
}
#endif

/**
 * nvsvm_recency_drop() - remove the GPU mappings of sampled VRAM chunks
 * @ndev: the device; the caller holds its dmem (the sampler's work, or a
 *	pgmap reference)
 * @chunks: bitmap of the VRAM chunks (2 MiB of video memory each) sampled
 * @nchunks: its bits
 *
 * In every area of the device, each 2 MiB range of the mirrored address
 * space with a valid PTE into one of @chunks loses its PTEs, and the GPU
 * TLB is invalidated; the pages stay where they are. Sleeps.
 *
 * Return: the 2 MiB ranges dropped.
 */
unsigned long nvsvm_recency_drop(struct nvsvm_device *ndev,
				 const unsigned long *chunks,
				 unsigned long nchunks)
{
	unsigned long dropped = 0;
	struct nvsvm_file *nf;

	mutex_lock(&ndev->files_lock);
	list_for_each_entry(nf, &ndev->files, node) {
		struct nvsvm_svmm *svmm;

		mutex_lock(&nf->lock);
		svmm = nf->svmm;
		if (svmm) {
			mutex_lock(&svmm->mutex);
			if (!svmm->dead) {
				dropped += nvsvm_recency_area(svmm, 0,
						svmm->unmanaged_start,
						chunks, nchunks);
				dropped += nvsvm_recency_area(svmm,
						svmm->unmanaged_end,
						svmm->limit, chunks, nchunks);
			}
			mutex_unlock(&svmm->mutex);
		}
		mutex_unlock(&nf->lock);
		cond_resched();
	}
	mutex_unlock(&ndev->files_lock);
	return dropped;
}

/**
 * nvsvm_recency_init() - a device's recency sampler
 * @ndev: the device, registered; nothing without VRAM
 *
 * Starts at once when sample_chunks is set. Without memory for it the
 * device has none (a notice).
 */
void nvsvm_recency_init(struct nvsvm_device *ndev)
{
	struct nvsvm_recency *r;

	if (!ndev->dmem)
		return;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		dev_notice(ndev->gpu->dev, "%s: no recency sampler\n",
			   ndev->name);
		return;
	}
	r->ndev = ndev;
	INIT_DELAYED_WORK(&r->work, nvsvm_recency_work);
	mutex_init(&r->pass);
	ndev->recency = r;
	nvsvm_recency_knob(ndev);
	mutex_lock(&nvsvm_recency_lock);
	list_add(&r->node, &nvsvm_recency_devs);
	if (READ_ONCE(sample_chunks))
		nvsvm_recency_queue(r, READ_ONCE(sample_ms));
	mutex_unlock(&nvsvm_recency_lock);
}

/**
 * nvsvm_recency_fini() - stop a device's recency sampler
 * @ndev: the device, being unregistered: gone, no ioctl (nor test knob)
 *	under way, every area torn down; before nvsvm_dmem_fini()
 *
 * Nothing queues the work from then on; a pass under way is waited for.
 */
void nvsvm_recency_fini(struct nvsvm_device *ndev)
{
	struct nvsvm_recency *r = ndev->recency;

	if (!r)
		return;
	mutex_lock(&nvsvm_recency_lock);
	r->stopping = true;
	list_del(&r->node);
	mutex_unlock(&nvsvm_recency_lock);
	cancel_delayed_work_sync(&r->work);
	ndev->recency = NULL;
	kfree(r);
}
