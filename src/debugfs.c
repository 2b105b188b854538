// SPDX-License-Identifier: GPL-2.0
/*
 * Counters in debugfs: /sys/kernel/debug/nvsvm/nvsvmN/<counter>, one
 * decimal number each. They hold counts and byte totals only, never an
 * address. Each is counted before what it counts becomes visible
 * (docs/tracing.md), so a reader that saw the event finds it counted.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "nvsvm_core.h"
#include "nvsvm_debugfs.h"
#include "nvsvm_gp100.h"

static struct dentry *nvsvm_debugfs_root;

static const char *const nvsvm_stat_names[NVSVM_STAT_COUNT] = {
	[NVSVM_STAT_PT_BYTES] = "pt_bytes",
	[NVSVM_STAT_PAGES_MAPPED] = "pages_mapped",
	[NVSVM_STAT_FAULTS] = "faults",
	[NVSVM_STAT_FAULT_DUPS] = "fault_dups",
	[NVSVM_STAT_BATCHES] = "batches",
	[NVSVM_STAT_RANGES] = "ranges",
	[NVSVM_STAT_FAULT_PAGES] = "fault_pages",
	[NVSVM_STAT_REPLAYS] = "replays",
	[NVSVM_STAT_CANCELS] = "cancels",
	[NVSVM_STAT_INVALIDATES] = "invalidates",
	[NVSVM_STAT_OVERFLOWS] = "overflows",
	[NVSVM_STAT_STALE] = "stale",
	[NVSVM_STAT_PREFETCH_RANGES] = "prefetch_ranges",
	[NVSVM_STAT_ATOMIC_EXCLUSIVE] = "atomic_exclusive",
	[NVSVM_STAT_ATOMIC_SHARED] = "atomic_shared",
	[NVSVM_STAT_ATOMIC_REFUSED] = "atomic_refused",
	[NVSVM_STAT_ATOMIC_SPLIT] = "atomic_split",
	[NVSVM_STAT_ATOMIC_VRAM] = "atomic_vram",
	[NVSVM_STAT_ATOMIC_TAKEBACK_WAITS] = "atomic_takeback_waits",
	[NVSVM_STAT_VRAM_PAGES] = "vram_pages",
	[NVSVM_STAT_MIGRATED_VRAM] = "migrated_to_vram",
	[NVSVM_STAT_MIGRATED_SYS] = "migrated_to_sysmem",
	[NVSVM_STAT_EVICTIONS] = "evictions",
	[NVSVM_STAT_EVICTED_PAGES] = "evicted_pages",
	[NVSVM_STAT_EVICTIONS_BG] = "evictions_bg",
	[NVSVM_STAT_EVICTOR_RUNS] = "evictor_runs",
	[NVSVM_STAT_EVICTIONS_COLD] = "evictions_cold",
	[NVSVM_STAT_SAMPLE_PASSES] = "sample_passes",
	[NVSVM_STAT_SAMPLED_CHUNKS] = "sampled_chunks",
	[NVSVM_STAT_SAMPLED_BLOCKS] = "sampled_blocks",
	[NVSVM_STAT_SAMPLE_REFAULTS] = "sample_refaults",
	[NVSVM_STAT_SAMPLE_IDLE] = "sample_idle",
	[NVSVM_STAT_VRAM_BLOCKS] = "vram_block_maps",
	[NVSVM_STAT_THRASHING] = "thrashing",
	[NVSVM_STAT_THRASH_SKIPS] = "thrash_skips",
	[NVSVM_STAT_AREAS_CLOSING] = "areas_closing",
	[NVSVM_STAT_REPLAYS_UTLB] = "replays_utlb",
	[NVSVM_STAT_UFFD_SERVED] = "uffd_served",
	[NVSVM_STAT_UFFD_UNANSWERED] = "uffd_unanswered",
	[NVSVM_STAT_NS_WAKE] = "ns_wake",
	[NVSVM_STAT_NS_DRAIN] = "ns_drain",
	[NVSVM_STAT_NS_SORT] = "ns_sort",
	[NVSVM_STAT_NS_SERVE] = "ns_serve",
	[NVSVM_STAT_NS_HMM] = "ns_hmm",
	[NVSVM_STAT_NS_PTE] = "ns_pte",
	[NVSVM_STAT_NS_INVAL] = "ns_invalidate",
	[NVSVM_STAT_NS_REPLAY] = "ns_replay",
	[NVSVM_STAT_NS_PREFETCH] = "ns_prefetch",
	[NVSVM_STAT_NS_PAGEIN] = "ns_pagein",
	[NVSVM_STAT_NS_MAP] = "ns_map",
	[NVSVM_STAT_NS_EVICT_SYNC] = "ns_evict_sync",
	[NVSVM_STAT_NS_SAMPLE] = "ns_sample",
};

static int nvsvm_stat_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(nvsvm_stat_fops, nvsvm_stat_get, NULL, "%llu\n");

/* fault_latency_us: one line per bucket, "<upper bound in us> <count>". */
static int nvsvm_latency_show(struct seq_file *m, void *unused)
{
	struct nvsvm_device *ndev = m->private;
	int i;

	for (i = 0; i < NVSVM_LATENCY_BUCKETS; i++)
		seq_printf(m, "%llu %lld\n", 1ULL << i,
			   atomic64_read(&ndev->fault.latency[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvsvm_latency);

/*
 * batch_serve_ns: the per-batch serve time histogram, one line per bucket
 * that counted anything: "<bucket> <lower bound in ns> <count>"
 * (NVSVM_SERVE_BUCKETS: bucket 8 * e + m starts at (8 + m) << (e - 3),
 * but the first at 0).
 */
static int nvsvm_serve_show(struct seq_file *m, void *unused)
{
	struct nvsvm_device *ndev = m->private;
	unsigned int i;
	s64 n;

	for (i = 3 * 8; i < NVSVM_SERVE_BUCKETS; i++) {
		n = atomic64_read(&ndev->fault.serve_hist[i]);
		if (n)
			seq_printf(m, "%u %llu %lld\n", i, i == 3 * 8 ? 0 :
				   (u64)(8 + i % 8) << (i / 8 - 3), n);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvsvm_serve);

#ifdef NVSVM_TEST
/*
 * TEST ONLY: vmm_selftest (root, read only): each read runs the GPU page
 * tables' self-test (src/vmm_selftest.c) on a scratch address space of
 * this device and gives its KTAP lines (tests/vmm.c). Under the device's
 * unplug lock, as an ioctl: ENODEV once it is gone.
 */
static int nvsvm_vmm_selftest_show(struct seq_file *m, void *unused)
{
	struct nvsvm_device *ndev = m->private;
	int ret;

	down_read(&ndev->unplug);
	if (READ_ONCE(ndev->gone))
		ret = -ENODEV;
	else
		ret = nvsvm_vmm_selftest(m, ndev->gpu->dev, &gp100_vmm_desc);
	up_read(&ndev->unplug);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(nvsvm_vmm_selftest);

static void nvsvm_debugfs_test(struct nvsvm_device *ndev)
{
	debugfs_create_file("vmm_selftest", 0400, ndev->debugfs, ndev,
			    &nvsvm_vmm_selftest_fops);
}
#else
static void nvsvm_debugfs_test(struct nvsvm_device *ndev)
{
}
#endif

/**
 * nvsvm_debugfs_add() - create a device's counter files
 * @ndev: device, with its name set
 */
void nvsvm_debugfs_add(struct nvsvm_device *ndev)
{
	int i;

	ndev->debugfs = debugfs_create_dir(ndev->name, nvsvm_debugfs_root);
	for (i = 0; i < NVSVM_STAT_COUNT; i++)
		debugfs_create_file_unsafe(nvsvm_stat_names[i], 0444,
					   ndev->debugfs, &ndev->stats[i],
					   &nvsvm_stat_fops);
	debugfs_create_file("fault_latency_us", 0444, ndev->debugfs, ndev,
			    &nvsvm_latency_fops);
	debugfs_create_file("batch_serve_ns", 0444, ndev->debugfs, ndev,
			    &nvsvm_serve_fops);
	nvsvm_debugfs_test(ndev);
}

/**
 * nvsvm_debugfs_remove() - remove a device's counter files
 * @ndev: device
 */
void nvsvm_debugfs_remove(struct nvsvm_device *ndev)
{
	debugfs_remove_recursive(ndev->debugfs);
	ndev->debugfs = NULL;
}

/** nvsvm_debugfs_init() - create the nvsvm directory */
void nvsvm_debugfs_init(void)
{
	nvsvm_debugfs_root = debugfs_create_dir("nvsvm", NULL);
}

/** nvsvm_debugfs_fini() - remove the nvsvm directory */
void nvsvm_debugfs_fini(void)
{
	debugfs_remove_recursive(nvsvm_debugfs_root);
}
