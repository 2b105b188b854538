/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations of nvsvm.ko shared between its files: the objects
 * (device, file, area, channel) and their locks.
 *
 * THE LOCK LIST. Outermost first: a lock is taken only with none of those
 * below it held. Each entry: what it protects; who takes it; what must
 * not be done under it. Every function that needs one held says so with
 * lockdep_assert_held() or nvsvm_mmap_assert_locked(), not in a comment.
 *
 * 1. nvsvm_device->unplug (rwsem)
 *    protects: @gone. Read by every ioctl and by release (and a test
 *    build's sampling knob, src/recency.c); written once by unregister, to
 *    wait out those that started before @gone.
 *    not under it: waiting for unregister; files_lock only in the knob's
 *    sampling pass (never the other way round).
 * 2. nvsvm_device->files_lock (mutex)
 *    protects: @files, the device's open files. Also held by a recency
 *    sampling pass (src/recency.c) around each file's lock, as by
 *    nvsvm_file_unplug_all().
 *    not under it: any other lock of this list.
 * 3. nvsvm_file->lock (mutex)
 *    protects: @svmm, @chans, and changes of @bufs. Held through
 *    AREA_INIT (the notifier insert may take the mmap lock for write),
 *    BUF_ALLOC, BUF_FREE and area teardown (src/file.c, src/buf.c).
 *    not under it: waiting for a fault work or a page-in (teardown waits
 *    for none: svmm->dead tells them).
 * 4. nvsvm_pascal->lock (mutex, src/pascal.c)
 *    protects: a GPU's joined channels.
 * 5. nvsvm_device->chan_lock (mutex)
 *    protects: binds, unbinds and detaches of @chans entries (src/chan.c).
 *    not under it: the fault flush of an unbind (it waits for the device's
 *    fault work; nvsvm_chan_unbind() drops chan_lock first).
 * 6. nvsvm_device->fault.serve (rwsem, src/fault.c)
 *    protects: @fault.off. Read by an area's fault work while it touches
 *    the device (not during its file page-ins); written once by
 *    unregister, to mark the device gone and wait out those touching it.
 *    not under it: a file page-in (src/pagein.c), which may never end.
 * 7. the mm's mmap lock (read)
 *    taken by: hmm_range_fault() and VMA look-ups (src/mirror.c), the
 *    exclusive take (src/atomic.c), the fault path's VMA look-up
 *    (src/pagein.c), MIGRATE (src/dmem.c). The mm holds it when it calls
 *    the notifiers.
 *    not under it: a file page-in's read (a FUSE server may hold it).
 * 8. the page lock
 *    held: on a page being migrated (src/dmem.c; the kernel's migration,
 *    whose notifier takes svmm->mutex) and on the page of a GPU atomic
 *    while it is mapped (src/atomic.c).
 * 9. nvsvm_svmm->mutex
 *    protects: @vmm (the area's GPU page tables) and the notifier sequence
 *    check before a PTE write. Taken by src/mirror.c (PTE writes, the
 *    notifier callback, nvsvm_mirror_valid()), src/atomic.c (the PTEs of
 *    GPU atomics), src/svmm.c (UNMAP, QUERY, teardown) and src/buf.c
 *    (buffer PTEs in the window); the vmm asserts it
 *    (nvsvm_vmm_set_lock()).
 *    not under it: any allocation that may enter reclaim, or a wait for
 *    one. The notifier callback takes it, and reclaim calls the notifiers:
 *    tables are allocated GFP_NOWAIT under it, or reserved before it
 *    (nvsvm_vmm_reserve()). Area init primes lockdep with this
 *    dependency, so a GFP_KERNEL allocation under it warns at once.
 *
 * Spinlocks, innermost; none is held while another is taken, and nothing
 * sleeps under them:
 *    nvsvm_vmm->cache_lock        the vmm's cache of free table frames
 *    nvsvm_svmm->fault_lock       faults handed to the area's fault work,
 *                                 those parked for a userfaultfd handler
 *                                 and the area's userfaultfd thread
 *    nvsvm_device->inval_lock     the invalidate/replay/cancel registers
 *    nvsvm_device->chans xa_lock  a channel's svmm pointer
 *    nvsvm_file->bufs xa_lock     mmap(2)'s look-up of a buffer
 *                                 (src/buf.c), under the mmap lock
 *    nvsvm_device->fault.lock     (irq) the fault workqueue, against the
 *                                 fault interrupt
 *    nvsvm_svmm->blocks xa_lock   MIGRATE's per-block move records
 *                                 (src/thrash.c)
 *    nvsvm_dmem->lock             (irqsave, src/dmem.c) the VRAM allocator
 *    nvsvm_device->closing_lock   the areas torn down and not freed yet,
 *                                 and the freeing of their table frames
 *
 * Fault workers (src/fault.c): the device's work (one ordered workqueue)
 * drains the fault buffer and takes only the chans xa_lock, fault_lock
 * and inval_lock: it never waits for memory. Each area's work (nvsvm.ko's
 * unbound workqueue) holds fault.serve for read while it touches the
 * device, and serves its faults (src/service.c) through the mirror
 * (src/mirror.c) and the atomics (src/atomic.c), which take the mmap lock
 * and, after dropping it, svmm->mutex (fault.c and service.c take
 * neither). The file pages it faults in it reads holding neither the mm
 * nor fault.serve (src/pagein.c): it may wait for such a page-in as long
 * as it takes, and only its own area's accesses wait with it; neither the
 * process's exit nor the device's unregister does. An access whose page a
 * userfaultfd handler must fill is parked; the area's userfaultfd thread
 * (a kthread) waits for the handler holding the mm's users and none of
 * the locks above, and the area's teardown ends that wait (SIGKILL).
 */
#ifndef _NVSVM_CORE_H
#define _NVSVM_CORE_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "nvsvm_gpu.h"
#include "nvsvm_vmm.h"
#include "uapi/nvsvm.h"

#define NVSVM_MAX_DEVICES	32
/* The unmanaged window must end at or below this (40-bit engines). */
#define NVSVM_UNMANAGED_LIMIT	BIT_ULL(40)
/*
 * Memory a user's call makes the driver allocate: charged to the caller's
 * memory cgroup; beyond its memory.max the allocation fails (the call
 * returns -ENOMEM) instead of invoking the OOM killer.
 */
#define NVSVM_GFP_USER		(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)
/* Buffers (src/buf.c) one file may hold: handles 1 to this (ENOSPC). */
#define NVSVM_BUF_MAX		BIT(20)
/* Fault service latency histogram: bucket k counts [2^(k-1), 2^k) us. */
#define NVSVM_LATENCY_BUCKETS	24
/*
 * The serve time of each fault batch (NVSVM_STAT_NS_SERVE's share of one
 * batch), in eighth-octave buckets: bucket 8 * e + m counts the times of
 * [(8 + m) << (e - 3), (9 + m) << (e - 3)) ns, e >= 3, about 9 % wide;
 * the first (24) also counts the times under 8 ns (a clock of coarse
 * steps gives 0), the last is open ended (2^32 ns and more).
 */
#define NVSVM_SERVE_BUCKETS	(32 * 8)

/*
 * Counters shown in debugfs, one file each. Each moves before what it
 * counts becomes visible (a register write the GPU acts on, the end of an
 * ioctl): docs/tracing.md, "When a counter moves".
 */
enum nvsvm_stat {
	NVSVM_STAT_PT_BYTES,	/* GPU page-table memory in use */
	NVSVM_STAT_PAGES_MAPPED,	/* valid 4 KiB PTEs */
	NVSVM_STAT_FAULTS,	/* fault-buffer entries read */
	NVSVM_STAT_FAULT_DUPS,	/* entries dropped as duplicates */
	NVSVM_STAT_BATCHES,	/* fault batches serviced */
	NVSVM_STAT_RANGES,	/* coalesced ranges served */
	NVSVM_STAT_FAULT_PAGES,	/* pages mapped by the fault path */
	NVSVM_STAT_REPLAYS,	/* REPLAY_START written */
	NVSVM_STAT_CANCELS,	/* CANCEL_TARGETED written */
	NVSVM_STAT_INVALIDATES,	/* TLB invalidates written */
	NVSVM_STAT_OVERFLOWS,	/* fault buffer overflows seen */
	NVSVM_STAT_STALE,	/* faults found already served or moot */
	NVSVM_STAT_PREFETCH_RANGES,	/* fault ranges grown by prefetch */
	NVSVM_STAT_ATOMIC_EXCLUSIVE,	/* pages taken for exclusive access */
	NVSVM_STAT_ATOMIC_SHARED,	/* atomic pages not exclusive-capable */
	NVSVM_STAT_ATOMIC_REFUSED,	/* atomics cancelled: none exact there */
	NVSVM_STAT_ATOMIC_SPLIT,	/* THP PMDs split for an exclusive take */
	NVSVM_STAT_ATOMIC_VRAM,	/* atomic pages moved to VRAM */
	NVSVM_STAT_ATOMIC_TAKEBACK_WAITS,	/* CPU take-backs that waited out a timeslice */
	NVSVM_STAT_VRAM_PAGES,	/* device-private VRAM pages in use */
	NVSVM_STAT_MIGRATED_VRAM,	/* pages migrated to VRAM */
	NVSVM_STAT_MIGRATED_SYS,	/* pages migrated back to system memory */
	NVSVM_STAT_EVICTIONS,	/* VRAM chunks evicted to make room */
	NVSVM_STAT_EVICTED_PAGES,	/* pages those evictions moved back */
	NVSVM_STAT_EVICTIONS_BG,	/* of those chunks, evicted by the background evictor */
	NVSVM_STAT_EVICTOR_RUNS,	/* background evictor passes finished */
	NVSVM_STAT_EVICTIONS_COLD,	/* of the evicted chunks, cold ones (sampler) */
	NVSVM_STAT_SAMPLE_PASSES,	/* recency sampler passes */
	NVSVM_STAT_SAMPLED_CHUNKS,	/* VRAM chunks those passes sampled */
	NVSVM_STAT_SAMPLED_BLOCKS,	/* 2 MiB GPU ranges whose PTEs they dropped */
	NVSVM_STAT_SAMPLE_REFAULTS,	/* sampled chunks the GPU mapped again */
	NVSVM_STAT_SAMPLE_IDLE,	/* sampler passes that found VRAM free enough */
	NVSVM_STAT_VRAM_BLOCKS,	/* fault ranges that mapped their block's VRAM */
	NVSVM_STAT_THRASHING,	/* 2 MiB blocks found thrashing (pinned) */
	NVSVM_STAT_THRASH_SKIPS,	/* moves to VRAM of a pinned block skipped */
	NVSVM_STAT_AREAS_CLOSING,	/* areas let go by their file, not freed yet */
	NVSVM_STAT_REPLAYS_UTLB,	/* replays after a micro-TLB, mid-batch */
	NVSVM_STAT_UFFD_SERVED,	/* GPU faults that waited for a userfaultfd handler, then served */
	NVSVM_STAT_UFFD_UNANSWERED,	/* such faults still waiting when their area went */
	/* Where the fault path's time goes, cumulative ns (local_clock()): */
	NVSVM_STAT_NS_WAKE,	/* fault interrupt to the device work running */
	NVSVM_STAT_NS_DRAIN,	/* reading the fault buffer */
	NVSVM_STAT_NS_SORT,	/* sorting batches (device and area works) */
	NVSVM_STAT_NS_SERVE,	/* area works serving batches, hmm and PTEs in */
	NVSVM_STAT_NS_HMM,	/* hmm_range_fault() for faults, mmap lock in */
	NVSVM_STAT_NS_PTE,	/* PTE writes for faults, svmm->mutex in */
	NVSVM_STAT_NS_INVAL,	/* the fault path's TLB invalidates */
	NVSVM_STAT_NS_REPLAY,	/* REPLAY_START writes */
	NVSVM_STAT_NS_PREFETCH,	/* fault ranges' density prefetch, in ns_serve */
	NVSVM_STAT_NS_PAGEIN,	/* fault ranges' file page-ins, in ns_serve */
	NVSVM_STAT_NS_MAP,	/* fault ranges' hmm loops, hmm and PTEs in */
	/* A move to VRAM (MIGRATE, atomics) waiting for its own evictions: */
	NVSVM_STAT_NS_EVICT_SYNC,
	NVSVM_STAT_NS_SAMPLE,	/* recency sampler passes, PTE drops in */
	NVSVM_STAT_COUNT
};

/**
 * struct nvsvm_fault - one decoded replayable fault
 * @inst: instance block address of the faulting channel
 * @addr: page address
 * @time: GPU timestamp
 * @gpc: GPC id
 * @client: client id
 * @access: NVSVM_ACCESS_*
 * @type: hardware fault type
 * @hub: a hub client faulted
 */
struct nvsvm_fault {
	u64 inst;
	u64 addr;
	u64 time;
	u8 gpc;
	u8 client;
	u8 access;
	u8 type;
	bool hub;
};

/* A range served at once: at most one leaf table's span. */
#define NVSVM_RANGE_MAX_BYTES	SZ_2M
#define NVSVM_RANGE_MAX_PAGES	(NVSVM_RANGE_MAX_BYTES >> PAGE_SHIFT)

/**
 * struct nvsvm_mirror_notifier - an interval notifier of an area
 * @mni: the notifier
 * @svmm: its area
 * @inserted: registered with the mm
 */
struct nvsvm_mirror_notifier {
	struct mmu_interval_notifier mni;
	struct nvsvm_svmm *svmm;
	bool inserted;
};

/**
 * struct nvsvm_uffd_wait - pages a MAP must fault in through a
 *	userfaultfd handler, outside nvsvm's locks (nvsvm_mirror_uffd_wait())
 * @pending: set by the snapshot that found such a page missing
 * @start: first page of the rest of the range
 * @end: end (exclusive)
 * @write: fault them in for writing
 */
struct nvsvm_uffd_wait {
	bool pending;
	u64 start;
	u64 end;
	bool write;
};

/**
 * struct nvsvm_range_req - one range for nvsvm_mirror_range()
 * @start: first address
 * @end: end (exclusive), at most NVSVM_RANGE_MAX_BYTES past @start, in
 *	the same leaf span
 * @base: address of @pfns[0] and @req[0], at or below @start, in the
 *	same 2 MiB block (0 is a block like any other)
 * @pfns: room for the pages from @base to the end of its block
 * @req: per-page HMM_PFN_REQ_* flags, or NULL to use @default_flags
 * @default_flags: HMM_PFN_REQ_* flags for every page
 * @fill: bitmap indexed as @req, or NULL: pages (the density prefetch's)
 *	that ask nothing of the CPU but are faulted in after the snapshot
 *	where that takes nothing the CPU or another device has
 *	(nvsvm_mirror_fill())
 * @fill_write: @fill pages are faulted in for writing, only where the CPU
 *	has nothing and a write gives a fresh page; for reading otherwise
 * @grow_thp: the range may grow to its whole 2 MiB block (which must be
 *	mirrored, on one side of the window, and covered by @req) when the
 *	CPU maps a THP there, so that the GPU maps it with one 2 MiB PTE
 * @atomic: enable GPU atomics on writable pages even in the
 *	exclusive-access mode (no exclusive access to be had for them)
 * @probe: a snapshot that faults nothing, @fill pages included: the
 *	pages @req asks to fault in that it does not find as asked (valid,
 *	and writable where a write is asked) are left out of the PTE
 *	writes, with their pfns cleared, for the caller to fault in
 * @mapped: (out) pages valid on the GPU
 * @changed: (out) a valid PTE changed: a TLB invalidate is due
 * @hmm_ns: (in/out) ns spent in hmm_range_fault(), added to
 * @pte_ns: (in/out) ns spent writing PTEs, added to
 * @uffd: where userfaultfd watches a page asked for that the CPU lacks,
 *	record it here and fail with -EFAULT (the MAP ioctl's caller
 *	faults it in, waiting for the handler, and maps again; the fault
 *	path parks the access for its area's userfaultfd thread); NULL:
 *	fail with -EFAULT only
 */
struct nvsvm_range_req {
	u64 start;
	u64 end;
	u64 base;
	unsigned long *pfns;
	const unsigned long *req;
	unsigned long default_flags;
	const unsigned long *fill;
	bool fill_write;
	bool grow_thp;
	bool atomic;
	bool probe;
	u64 mapped;
	bool changed;
	u64 hmm_ns;
	u64 pte_ns;
	struct nvsvm_uffd_wait *uffd;
};

struct nvsvm_fault_area;
struct nvsvm_fault_dev;
struct nvsvm_dmem;
struct nvsvm_recency;

/**
 * struct nvsvm_device - core state of one registered GPU
 * @gpu: the provider's GPU; NULL once unregistered
 * @owner: the provider's module (@gpu->owner), pinned by each open file
 * @kref: the registration and each open file hold one; the last frees
 * @gone: set by unregister: ioctls fail with -ENODEV (read under @unplug)
 * @unplug: ioctls and release hold it for read; unregister takes it for
 *	write once, to wait for those that started before @gone
 * @files_lock: protects @files
 * @files: open files (struct nvsvm_file.node), torn down at unregister
 * @chan_lock: serialises binds, unbinds and detaches of @chans entries
 * @index: N of /dev/nvsvmN
 * @name: "nvsvmN"
 * @misc: the character device
 * @stats: counters, see enum nvsvm_stat
 * @chans: channels by instance block address >> 12, for the fault path:
 *	both the files' channels (src/chan.c) and the channels a driver
 *	joined (src/pascal.c); nvsvm_chan_bind() and nvsvm_chan_unbind()
 * @inval_lock: serialises writes to the invalidate registers
 * @null_pd: an empty PD3 for channels without an SVM area
 * @zero_dma: the CPU's zero page, DMA-mapped once (read-only) for every
 *	GPU PTE that maps it, so that QUERY can tell such a PTE by its
 *	address; DMA_MAPPING_ERROR when that mapping failed (each PTE then
 *	maps the zero page on its own, unmarked)
 * @fault: fault buffer and worker state, see fault.c: the device's
 *	ordered work drains the buffer and hands each area's faults to the
 *	area's work, queued on nvsvm.ko's area workqueue (unbound); the area
 *	works touch the device only under @fault.serve, while !@fault.off
 * @closing_lock: protects @closing and the areas' @frames_gone
 * @closing: areas torn down (struct nvsvm_svmm.closing) whose last
 *	reference has not gone yet: unregister frees their table frames
 * @debugfs: the device's debugfs directory
 * @dmem: device-private VRAM (src/dmem.c), or NULL without it
 * @recency: the recency sampler (src/recency.c), or NULL without VRAM
 */
struct nvsvm_device {
	struct nvsvm_gpu *gpu;
	struct module *owner;
	struct kref kref;
	bool gone;
	struct rw_semaphore unplug;
	struct mutex files_lock;	/* @files */
	struct list_head files;
	struct mutex chan_lock;		/* binds, unbinds, detaches */
	int index;
	char name[16];
	struct miscdevice misc;
	atomic64_t stats[NVSVM_STAT_COUNT];
	struct xarray chans;
	spinlock_t inval_lock;		/* invalidate registers */
	struct {
		void *cpu;
		dma_addr_t dma;
	} null_pd;
	dma_addr_t zero_dma;
	struct {
		void *cpu;
		dma_addr_t dma;
		u32 entries;
		u32 get;
		struct work_struct work;
		spinlock_t lock;	/* protects wq against the interrupt */
		struct workqueue_struct *wq;
		struct rw_semaphore serve;	/* @off, area works' use */
		bool off;	/* unregistered: area works touch nothing */
		struct nvsvm_fault_dev *dev;	/* the device work's */
		struct delayed_work owed_work;	/* replay owed to an overflow */
		atomic_t replay_owed;
		s64 owed_mark;	/* owed_work's progress mark */
		atomic64_t intr_ns;	/* first interrupt not yet served */
		atomic64_t wake_ns;	/* first interrupt the work has not seen */
		atomic64_t latency[NVSVM_LATENCY_BUCKETS];
		atomic64_t serve_hist[NVSVM_SERVE_BUCKETS];	/* per batch */
	} fault;
	struct dentry *debugfs;
	struct nvsvm_dmem *dmem;
	struct nvsvm_recency *recency;
	spinlock_t closing_lock;	/* @closing, areas' frames_gone */
	struct list_head closing;
};

static inline void nvsvm_device_free(struct kref *kref)
{
	kfree(container_of(kref, struct nvsvm_device, kref));
}

/**
 * nvsvm_device_put() - drop a reference on a device
 * @ndev: device; freed with the last reference (unregistered, no file, no
 *	area): the registration (src/main.c), each open file and each area
 *	hold one
 */
static inline void nvsvm_device_put(struct nvsvm_device *ndev)
{
	kref_put(&ndev->kref, nvsvm_device_free);
}

static inline void nvsvm_stat_add(struct nvsvm_device *ndev,
				  enum nvsvm_stat stat, s64 v)
{
	atomic64_add(v, &ndev->stats[stat]);
}

/* ns from @t0 (an earlier local_clock() on any CPU) to now, never negative. */
static inline u64 nvsvm_ns_since(u64 t0)
{
	u64 t = local_clock();

	return t > t0 ? t - t0 : 0;
}

/**
 * struct nvsvm_svmm - an SVM area: one mm mirrored on one GPU
 * @ndev: the GPU (a reference: an area may outlive its unregister)
 * @mm: the mirrored address space (mmgrab'd by the area, and by its
 *	mirror for the notifiers)
 * @kref: the file holds a reference, the device's fault work one while it
 *	looks at the area, each queueing of @fault_work one, and each
 *	channel a driver joined to it; taken and dropped through src/area.c
 *	alone
 * @notifier: interval notifiers below and above the unmanaged window
 * @unmanaged_start: the unmanaged window, never mirrored
 * @unmanaged_end: end of the window (exclusive)
 * @limit: end of the mirrored address space
 * @mutex: protects @vmm; PTEs are written only under it, after checking
 *	the notifier sequence, by src/mirror.c alone; in the unmanaged
 *	window, by src/buf.c alone (its buffers)
 * @dead: set by fini under @mutex, before it removes every mapping: no
 *	PTE is written after it (each writer of new PTEs checks it under
 *	@mutex; the atomics upgrade finds none valid), so a fault work still
 *	in a page-in of the area delays no teardown
 * @changes: bumped by every invalidation of the mirror; the fault worker
 *	cancels an access found unservable twice only if it did not move
 *	between the two
 * @vmm: the GPU page tables
 * @fault_lock: protects what the device's fault work hands over in @fault
 * @fault_work: serves the area's faults (src/fault.c)
 * @fault: the faults handed over, and the area work's batch and suspects
 * @blocks: MIGRATE's history per 2 MiB block, for thrashing (src/thrash.c)
 * @takes: the timeslice deadlines (us) of the pages taken for GPU atomics,
 *	by page index (src/mirror.c)
 * @closing: in the device's list of areas torn down and not freed yet
 * @frames_gone: @vmm's table frames are freed (at the device's
 *	unregister, when the area outlives it); under the device's
 *	closing_lock
 */
struct nvsvm_svmm {
	struct nvsvm_device *ndev;
	struct mm_struct *mm;
	struct kref kref;
	struct nvsvm_mirror_notifier notifier[2];
	u64 unmanaged_start;
	u64 unmanaged_end;
	u64 limit;
	struct mutex mutex;		/* @vmm */
	bool dead;
	atomic_t changes;
	struct nvsvm_vmm vmm;
	spinlock_t fault_lock;		/* @fault's pending faults */
	struct work_struct fault_work;
	struct nvsvm_fault_area *fault;
	struct xarray blocks;
	struct xarray takes;
	struct list_head closing;
	bool frames_gone;
};

/**
 * struct nvsvm_file - one open /dev/nvsvmN
 * @ndev: the GPU (a reference)
 * @node: in the device's list of open files
 * @mm: address space of the opener; every ioctl but GET_INFO must come
 *	from it
 * @lock: protects @svmm and @chans, and changes of @bufs
 * @svmm: the SVM area, or NULL
 * @chans: channels by handle
 * @bufs: buffers in the area's window by handle (src/buf.c); looked up
 *	by mmap(2) under its xa_lock alone
 */
struct nvsvm_file {
	struct nvsvm_device *ndev;
	struct list_head node;
	struct mm_struct *mm;
	struct mutex lock;		/* @svmm, @chans */
	struct nvsvm_svmm *svmm;
	struct xarray chans;
	struct xarray bufs;
};

/**
 * struct nvsvm_core_chan - a channel and its instance block
 * @pub: what the provider sees
 * @kref: the file's table and each EXEC hold one
 * @ndev: the GPU
 * @file: owner; NULL for a channel a driver joined (src/pascal.c)
 * @svmm: area joined, or NULL; written under the device's chans xa_lock
 * @pdb: the PD3 the instance block points at (cancels target it); the
 *	empty one for a detached channel of a file; a detached joined
 *	channel keeps its emptied area PD3 until it leaves. Written under
 *	the xa_lock too.
 * @inst: CPU address of the instance block; NULL when a driver owns it
 * @flags: NVSVM_CHAN_*
 */
struct nvsvm_core_chan {
	struct nvsvm_chan pub;
	struct kref kref;
	struct nvsvm_device *ndev;
	struct nvsvm_file *file;
	struct nvsvm_svmm *svmm;
	dma_addr_t pdb;
	void *inst;
	u32 flags;
};

/*
 * The operations of /dev/nvsvmN (src/file.c): a struct file is an nvsvm
 * file when its f_op is this one. nvsvm_file_of(): the nvsvm file behind
 * @file, or NULL when it is another kind of file.
 */
extern const struct file_operations nvsvm_fops;

static inline struct nvsvm_file *nvsvm_file_of(struct file *file)
{
	return file->f_op == &nvsvm_fops ? file->private_data : NULL;
}

#endif /* _NVSVM_CORE_H */
