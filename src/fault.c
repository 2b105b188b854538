// SPDX-License-Identifier: GPL-2.0
/*
 * The replayable fault pipeline.
 *
 * The fault interrupt queues the device's fault work (one ordered
 * workqueue per device). It drains the fault buffer in batches, sorts each
 * batch by (instance, address, access priority) and finds each instance's
 * SVM area: faults of a channel without an area are cancelled and stale
 * ones dropped right there, and each area's faults are handed to that
 * area's own work item (on nvsvm.ko's unbound area workqueue). The
 * device work never waits for memory, so one process whose page-in never
 * completes (a FUSE read nobody answers) stalls only its own area's work,
 * never another process's faults nor nvsvm_fault_flush().
 *
 * An area work may wait for a file page-in without the mm (src/service.c,
 * src/pagein.c). It touches the device (registers, DMA mappings,
 * page-table frames) only holding &nvsvm_device.fault.serve for read and
 * while the device is registered (!fault.off); the unregister sets
 * fault.off under it for write and so waits for no page-in. Each queued
 * area work holds a reference on nvsvm.ko: the core module cannot go while
 * one runs (rmmod nvsvm says EBUSY), the provider's module can.
 *
 * An area's work serves its faults, instance block by instance block
 * (nvsvm_fault_inst(), src/service.c: coalesced in 2 MiB ranges, each
 * served by one hmm_range_fault() loop), then writes at
 * most one TLB invalidate (only when a valid PTE changed) and the cancels
 * of the accesses that cannot be served (per-area suspect state), batch
 * after batch, and one REPLAY_START once it has served every fault of its
 * in the buffer (NVSVM_FAULT_AREA_BATCHES). The replay makes every stalled
 * access retry, other areas' too: those not served yet fault again, and
 * the device work drops the entries its area already has pending.
 */
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/wait.h>

#include "nvsvm_area.h"
#include "nvsvm_batch.h"
#include "nvsvm_core.h"
#include "nvsvm_fault.h"
#include "nvsvm_gp100.h"
#include "nvsvm_mirror.h"
#include "nvsvm_service.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/*
 * Faults an area holds for its work, and batches its work serves before
 * it replays. Every entry in the buffer is served before the replay (what
 * NVIDIA UVM's ONCE replay policy does; its default, BATCH_FLUSH, replays
 * after each batch and drops the entries left in the buffer): a replay
 * with faults still unserved makes each of their accesses fault again,
 * a new entry each, and a storm of many warps then refills the buffer
 * faster than it is served, and overflows it. The bound on batches keeps
 * the served accesses from waiting on a buffer that keeps filling.
 */
#define NVSVM_FAULT_PENDING	(4 * NVSVM_FAULT_BATCH)
#define NVSVM_FAULT_AREA_BATCHES	8

/*
 * Replay per micro-TLB (replay_utlb, docs/architecture.md "Replay per
 * micro-TLB"). GP100 has one replay, REPLAY_START, and it is global: every
 * stalled access of every GPC retries. So "the replay of a micro-TLB" is a
 * REPLAY_START written as soon as the whole micro-TLBs served so far
 * (batches are taken and sorted by micro-TLB) pay for it: their warps go
 * on at once. Every access not served yet retries in it and faults again
 * (a new entry each, its micro-TLB in lockdown), so the served faults must
 * be at least replay_utlb_min and at least the faults known to wait, and a
 * batch has one replay at most. Off by default: on the write storm of
 * nvsvm-bench it does not stall the warps less (docs/benchmarks.md,
 * 2026-12-06), the refaults cost what the early replays give. With it off
 * the area work replays once per run of batches
 * (NVSVM_FAULT_AREA_BATCHES).
 */
static bool replay_utlb;
module_param(replay_utlb, bool, 0644);
MODULE_PARM_DESC(replay_utlb,
		 "Replay as soon as a batch's first whole micro-TLBs are served and pay for it (Y), or once per run of batches (N, default)");

static unsigned int replay_utlb_min = 128;
module_param(replay_utlb_min, uint, 0644);
MODULE_PARM_DESC(replay_utlb_min,
		 "With replay_utlb: served faults that pay for a replay at least (default 128; 0 and 1: after every micro-TLB)");

/*
 * A replay owed for an overflow is left to the area works the faults went
 * to, unless none made progress for this long (one may be waiting for a
 * page-in that never completes). It is a fallback, not a deadline: a
 * replay while an area work still serves its faults retries every access
 * not served yet, which faults again (a new entry, and its micro-TLB in
 * lockdown). So progress is an entry read or a range served, not only a
 * batch (a batch of 256 faults in as many blocks took longer than 10 ms
 * in the test VM), and the window is long enough for a vCPU of a loaded
 * host to be scheduled again.
 */
#define NVSVM_FAULT_OWED_MS	100

/*
 * The area works of every device: nvsvm.ko's, not a device's, so that a
 * device's teardown waits for none of them (one may wait for a page-in as
 * long as a user's FUSE server likes). Unbound: an area work waiting for
 * a page-in keeps its worker.
 */
static struct workqueue_struct *nvsvm_area_wq;

/*
 * Pages whose wait for a userfaultfd handler failed (SIGBUS, no VMA, not
 * writable), remembered per area: their accesses are cancelled instead of
 * waiting again, until the mirror changes.
 */
#define NVSVM_UFFD_FAILED	16

/**
 * struct nvsvm_uffd_failed - a page whose wait for the handler failed
 * @addr: the page
 * @changes: &nvsvm_svmm.changes when it failed
 */
struct nvsvm_uffd_failed {
	u64 addr;
	unsigned int changes;
};

/**
 * struct nvsvm_fault_area - an area's share of the fault path
 * @pending: faults the device work handed over, not taken yet, oldest
 *	first
 * @npending: entries in @pending (both under &nvsvm_svmm.fault_lock)
 * @b: the area work's batch, with its own suspects
 * @parked: accesses waiting for a userfaultfd handler, oldest first:
 *	stalled on the GPU, no replay for them, until @uffd_task has
 *	faulted their page in and hands them back to @pending
 * @nparked: entries in @parked
 * @failed: pages whose wait failed, a ring (@nfailed counts them all)
 * @nfailed: waits that failed so far
 * @uffd_task: the area's userfaultfd thread, NULL until the first park
 *	(and after it ends)
 * @uffd_wq: where it waits for @parked
 * @uffd_off: the area is torn down: nothing parks any more, the thread
 *	ends
 *
 * All but @b under &nvsvm_svmm.fault_lock.
 */
struct nvsvm_fault_area {
	struct nvsvm_fault pending[NVSVM_FAULT_PENDING];
	unsigned int npending;
	struct nvsvm_fault_batch b;
	struct nvsvm_fault parked[NVSVM_FAULT_PENDING];
	unsigned int nparked;
	struct nvsvm_uffd_failed failed[NVSVM_UFFD_FAILED];
	unsigned int nfailed;
	struct task_struct *uffd_task;
	wait_queue_head_t uffd_wq;
	bool uffd_off;
};

/**
 * struct nvsvm_fault_dev - the device work's share of the fault path
 * @drained: the entries gp100_fault_drain() read
 * @b: the device work's batch, with the suspects of channels without an
 *	area
 */
struct nvsvm_fault_dev {
	struct nvsvm_fault drained[NVSVM_FAULT_BATCH];
	struct nvsvm_fault_batch b;
};

static int nvsvm_fault_cmp(const void *a, const void *b)
{
	const struct nvsvm_fault *fa = &((const struct nvsvm_fault_entry *)a)->f;
	const struct nvsvm_fault *fb = &((const struct nvsvm_fault_entry *)b)->f;

	if (fa->inst != fb->inst)
		return fa->inst < fb->inst ? -1 : 1;
	if (fa->addr != fb->addr)
		return fa->addr < fb->addr ? -1 : 1;
	return nvsvm_fault_priority(fb->access) -
	       nvsvm_fault_priority(fa->access);
}

/* A micro-TLB's place in a batch sorted for replay_utlb. */
static u32 nvsvm_fault_utlb_key(const struct nvsvm_fault *f)
{
	return (u32)f->gpc << 16 | (u32)f->hub << 15 |
	       gp100_fault_utlb(f->client);
}

/* Sort by (instance, micro-TLB, address, access priority). */
static int nvsvm_fault_cmp_utlb(const void *a, const void *b)
{
	const struct nvsvm_fault *fa = &((const struct nvsvm_fault_entry *)a)->f;
	const struct nvsvm_fault *fb = &((const struct nvsvm_fault_entry *)b)->f;
	u32 ka = nvsvm_fault_utlb_key(fa), kb = nvsvm_fault_utlb_key(fb);

	if (fa->inst != fb->inst)
		return fa->inst < fb->inst ? -1 : 1;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return nvsvm_fault_cmp(a, b);
}

/* Batches an unservable access stays suspect, waiting to fault again. */
#define NVSVM_SUSPECT_BATCHES	16

/* Same access: same channel, page and GPC client. */
static bool nvsvm_fault_same(const struct nvsvm_fault *a,
			     const struct nvsvm_fault *b)
{
	return a->inst == b->inst && a->addr == b->addr && a->gpc == b->gpc &&
	       a->client == b->client && a->hub == b->hub;
}

/* Same micro-TLB (GPC and TPC) and page directory. */
static bool nvsvm_fault_same_utlb(const struct nvsvm_fault_entry *a,
				  const struct nvsvm_fault_entry *b)
{
	return a->f.gpc == b->f.gpc && a->f.hub == b->f.hub &&
	       gp100_fault_utlb(a->f.client) == gp100_fault_utlb(b->f.client) &&
	       a->pdb == b->pdb;
}

/*
 * A servable access of the batch shares @e's micro-TLB and context: the
 * cancel would fail it too (it stalls until the replay). The cancel waits
 * for a batch where the micro-TLB holds only what cannot be served; the
 * replay lets the others go on, and @e faults again.
 */
static bool nvsvm_fault_utlb_busy(const struct nvsvm_fault_batch *b,
				  unsigned int n,
				  const struct nvsvm_fault_entry *e)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (!b->e[k].unservable &&
		    b->e[k].f.access != NVSVM_ACCESS_PREFETCH &&
		    nvsvm_fault_same_utlb(&b->e[k], e))
			return true;
	return false;
}

/*
 * Cancel what cannot be served, but only an access seen unservable twice,
 * in two batches with a replay between, with no change to its area's
 * mirror between the two. A fault entry can outlive its access: the access
 * was replayed (after an overflow, or before its first entry was read),
 * faulted again, was served, and the program went on; its older entry is
 * read later, when the page may be gone. CANCEL_TARGETED names a GPC and
 * client, not an access, so cancelling on that entry would fail whatever
 * that client is stalled on now. An access that really cannot be served
 * faults again after the replay and is cancelled then. Two late entries of
 * two different accesses to one page (a buffer freed and mapped again
 * between them) look like one access seen twice; the munmap between them
 * changed the mirror, so they do not count as two sightings.
 */
static void nvsvm_fault_cancel(struct nvsvm_device *ndev,
			       struct nvsvm_fault_batch *b, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		struct nvsvm_fault_entry *e = &b->e[i];
		struct nvsvm_fault *f = &e->f;
		bool done = false;

		if (!e->cancel)
			continue;
		for (k = 0; k < b->nsuspect && !done; k++) {
			struct nvsvm_fault_suspect *s = &b->suspect[k];

			if (s->age < NVSVM_SUSPECT_BATCHES &&
			    s->changes == e->changes &&
			    nvsvm_fault_same(&s->f, f)) {
				s->age = NVSVM_SUSPECT_BATCHES;
				done = true;
			}
		}
		if (!done) {
			e->cancel = false;	/* first sighting */
			continue;
		}
		if (nvsvm_fault_utlb_busy(b, n, e)) {
			e->cancel = false;	/* after its neighbours */
			continue;
		}
		done = false;
		/*
		 * One cancel per micro-TLB and page directory: it fails all
		 * the stalled accesses of that context on the micro-TLB.
		 */
		for (k = 0; k < i && !done; k++)
			done = b->e[k].cancel &&
			       nvsvm_fault_same_utlb(&b->e[k], e);
		if (done)
			continue;
		trace_nvsvm_fault_cancel(ndev->index, f->addr, f->gpc, f->client,
					 f->access);
		gp100_cancel(ndev, f->gpc, f->client, f->hub, e->pdb);
	}
}

/*
 * Remember this batch's first sightings of unservable accesses, and keep
 * the older ones a few batches: other clients' faults may fill the batches
 * before the suspect's access faults again.
 */
static void nvsvm_fault_suspects(struct nvsvm_fault_batch *b, unsigned int n)
{
	unsigned int i, k, m = 0;

	for (k = 0; k < b->nsuspect; k++) {
		if (b->suspect[k].age + 1 >= NVSVM_SUSPECT_BATCHES)
			continue;
		b->suspect[m] = b->suspect[k];
		b->suspect[m++].age++;
	}
	for (i = 0; i < n && m < NVSVM_FAULT_BATCH; i++) {
		if (!b->e[i].unservable || b->e[i].cancel)
			continue;
		b->suspect[m].f = b->e[i].f;
		b->suspect[m].changes = b->e[i].changes;
		b->suspect[m++].age = 0;
	}
	b->nsuspect = m;
}

/* Service latency, from the interrupt to the replay, in log2 buckets. */
static void nvsvm_fault_latency(struct nvsvm_device *ndev)
{
	s64 t0 = atomic64_xchg(&ndev->fault.intr_ns, 0);
	unsigned int bucket;
	u64 us;

	if (!t0)
		return;
	us = div_u64(max_t(s64, ktime_get_ns() - t0, 0), NSEC_PER_USEC);
	bucket = min_t(unsigned int, fls64(us), NVSVM_LATENCY_BUCKETS - 1);
	atomic64_inc(&ndev->fault.latency[bucket]);
}

/* One batch's serve time: the stage counter and the batch histogram. */
static void nvsvm_fault_served(struct nvsvm_device *ndev, u64 ns)
{
	unsigned int e = fls64(ns) - 1, bucket = 3 * 8;

	nvsvm_stat_add(ndev, NVSVM_STAT_NS_SERVE, ns);
	if (ns >= 8)
		bucket = min_t(unsigned int, 8 * e + ((ns >> (e - 3)) & 7),
			       NVSVM_SERVE_BUCKETS - 1);
	atomic64_inc(&ndev->fault.serve_hist[bucket]);
}

/* The @n faults at @f as a new batch; nothing found about them yet. */
static void nvsvm_fault_load(struct nvsvm_fault_batch *b,
			     const struct nvsvm_fault *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		b->e[i] = (struct nvsvm_fault_entry){ .f = f[i] };
}

/* Sort a batch, moving whole entries; by micro-TLB first with @utlb. */
static void nvsvm_fault_sort(struct nvsvm_device *ndev,
			     struct nvsvm_fault_batch *b, unsigned int n,
			     bool utlb)
{
	u64 t0 = local_clock();

	sort(b->e, n, sizeof(b->e[0]),
	     utlb ? nvsvm_fault_cmp_utlb : nvsvm_fault_cmp, NULL);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_SORT, nvsvm_ns_since(t0));
}

/* REPLAY_START; it also replays what an overflow dropped. */
static void nvsvm_fault_replay(struct nvsvm_device *ndev)
{
	u64 t0 = local_clock();

	atomic_set(&ndev->fault.replay_owed, 0);
	gp100_replay(ndev);
	nvsvm_stat_add(ndev, NVSVM_STAT_NS_REPLAY, nvsvm_ns_since(t0));
}

/* A worker's replay: what its batches served so far goes on. */
static void nvsvm_fault_batch_replay(struct nvsvm_device *ndev,
				     struct nvsvm_fault_batch *b)
{
	nvsvm_fault_replay(ndev);
	nvsvm_fault_latency(ndev);
	b->owed = 0;
	b->unreleased = 0;
}

/*
 * replay_utlb: do the faults @svmm's work served since its last replay pay
 * for one? replay_utlb_min of them, and at least as many as the replay
 * makes fault again that are known to wait: the @left faults of the batch
 * not served yet and the area's pending ones.
 */
static bool nvsvm_fault_utlb_pays(struct nvsvm_svmm *svmm,
				  const struct nvsvm_fault_batch *b,
				  unsigned int left)
{
	return b->unreleased >= READ_ONCE(replay_utlb_min) &&
	       b->unreleased >= left + READ_ONCE(svmm->fault->npending);
}

/*
 * replay_utlb: after the faults of a micro-TLB, the micro-TLBs served so
 * far in @svmm's batch (and what earlier batches left unreplayed) go on,
 * when they pay for it (nvsvm_fault_utlb_pays(), @left faults of the batch
 * to go). A valid PTE changed is invalidated first, as before any replay.
 *
 * Return: true when it replayed.
 */
static bool nvsvm_fault_replay_utlb(struct nvsvm_device *ndev,
				    struct nvsvm_svmm *svmm,
				    struct nvsvm_fault_batch *b,
				    unsigned int left)
{
	u64 t0;

	if (!nvsvm_fault_utlb_pays(svmm, b, left) || ndev->fault.off)
		return false;
	if (b->changed) {
		t0 = local_clock();
		nvsvm_mirror_invalidate_tlb(svmm);
		nvsvm_stat_add(ndev, NVSVM_STAT_NS_INVAL, nvsvm_ns_since(t0));
		b->changed = false;
	}
	nvsvm_stat_add(ndev, NVSVM_STAT_REPLAYS_UTLB, 1);
	nvsvm_fault_batch_replay(ndev, b);
	return true;
}

/*
 * The cancels of a served batch, its suspects, one replay. With @defer,
 * a batch with nothing to cancel leaves its replay to a later batch
 * (b->owed counts them). A batch with accesses to cancel replays the
 * accesses served before it first: a cancel fails every stalled access of
 * its micro-TLB, and nvsvm_fault_utlb_busy() only sees this batch's.
 *
 * Return: true when it replayed.
 */
static bool nvsvm_fault_finish(struct nvsvm_device *ndev,
			       struct nvsvm_fault_batch *b, unsigned int n,
			       bool defer)
{
	bool bad = false, parked = true;
	unsigned int i;

	nvsvm_stat_add(ndev, NVSVM_STAT_BATCHES, 1);
	for (i = 0; i < n; i++) {
		b->e[i].unservable = b->e[i].cancel;
		bad |= b->e[i].cancel;
		parked &= b->e[i].uffd;
	}
	/*
	 * Accesses parked for a userfaultfd handler (all of this batch's):
	 * a replay would only make them fault again, and put their
	 * micro-TLB in lockdown sooner. Their replay comes once served.
	 */
	if (parked)
		return false;
	if (defer && !bad) {
		b->owed++;
		return false;
	}
	if (bad && b->owed)
		nvsvm_fault_replay(ndev);
	nvsvm_fault_cancel(ndev, b, n);
	nvsvm_fault_suspects(b, n);
	nvsvm_fault_batch_replay(ndev, b);
	return true;
}

/* Index of the same access as @f in @list[0..@n), or @n. */
static unsigned int nvsvm_fault_find(const struct nvsvm_fault *list,
				     unsigned int n,
				     const struct nvsvm_fault *f)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (nvsvm_fault_same(&list[k], f) && list[k].access == f->access)
			break;
	return k;
}

/*
 * Add @f to @fa's pending faults, unless the same access is pending (or
 * there is no room: it faults again after the replay). fault_lock held.
 * Return: false for a duplicate.
 */
static bool nvsvm_fault_pend(struct nvsvm_fault_area *fa,
			     const struct nvsvm_fault *f)
{
	if (nvsvm_fault_find(fa->pending, fa->npending, f) < fa->npending)
		return false;
	if (fa->npending < NVSVM_FAULT_PENDING)
		fa->pending[fa->npending++] = *f;
	return true;
}

/*
 * Queue @svmm's work, with a reference on the area that goes with the
 * queueing (the caller's), and one on this module until it returns.
 */
static void nvsvm_fault_queue(struct nvsvm_svmm *svmm)
{
	if (queue_work(nvsvm_area_wq, &svmm->fault_work))
		__module_get(THIS_MODULE);
	else
		nvsvm_svmm_put(svmm);
}

/*
 * replay_utlb: take whole micro-TLBs from @fa's pending faults into @b,
 * oldest first: every pending fault of the oldest one's (instance,
 * micro-TLB), then of the next oldest, while the batch holds them (a
 * micro-TLB with more than a batch's faults fills one alone). The others
 * keep their order. Caller holds &nvsvm_svmm.fault_lock.
 * Return: how many.
 */
static unsigned int nvsvm_fault_take_utlbs(struct nvsvm_fault_area *fa,
					   struct nvsvm_fault_batch *b)
{
	unsigned int n = 0, i, m, cnt;
	u32 key;
	u64 inst;

	while (fa->npending && n < NVSVM_FAULT_BATCH) {
		key = nvsvm_fault_utlb_key(&fa->pending[0]);
		inst = fa->pending[0].inst;
		for (i = 0, cnt = 0; i < fa->npending; i++)
			cnt += fa->pending[i].inst == inst &&
			       nvsvm_fault_utlb_key(&fa->pending[i]) == key;
		if (n && n + cnt > NVSVM_FAULT_BATCH)
			break;
		for (i = 0, m = 0; i < fa->npending; i++) {
			if (fa->pending[i].inst == inst &&
			    nvsvm_fault_utlb_key(&fa->pending[i]) == key &&
			    n < NVSVM_FAULT_BATCH)
				b->e[n++] = (struct nvsvm_fault_entry){
					.f = fa->pending[i] };
			else
				fa->pending[m++] = fa->pending[i];
		}
		fa->npending = m;
	}
	return n;
}

/*
 * Take up to a batch of @fa's pending faults into @b, oldest first (whole
 * micro-TLBs with @utlb). Return: how many.
 */
static unsigned int nvsvm_fault_take(struct nvsvm_svmm *svmm,
				     struct nvsvm_fault_area *fa,
				     struct nvsvm_fault_batch *b, bool utlb)
{
	unsigned int n;

	spin_lock(&svmm->fault_lock);
	if (utlb && fa->npending > NVSVM_FAULT_BATCH) {
		n = nvsvm_fault_take_utlbs(fa, b);
		spin_unlock(&svmm->fault_lock);
		return n;
	}
	n = min_t(unsigned int, fa->npending, NVSVM_FAULT_BATCH);
	nvsvm_fault_load(b, fa->pending, n);
	fa->npending -= n;
	memmove(fa->pending, fa->pending + n,
		fa->npending * sizeof(fa->pending[0]));
	spin_unlock(&svmm->fault_lock);
	return n;
}

/*
 * GPU accesses to pages that a userfaultfd handler must fill.
 *
 * hmm_range_fault() cannot wait for a userfault (it faults without
 * FAULT_FLAG_ALLOW_RETRY), and an area work must not: it holds the
 * device's serve lock. So the service marks such an access (uffd, see
 * src/service.c) and the area work parks it here, without a replay: the
 * warp stays stalled. The area's userfaultfd thread, a kthread started at
 * the first park, faults the pages in one at a time with
 * fixup_user_fault() (FAULT_FLAG_ALLOW_RETRY, FAULT_FLAG_KILLABLE), as a
 * CPU access would, holding the mm's users and nothing of nvsvm's, then
 * hands the accesses back to the area work, which serves them and
 * replays. A kthread can wait there: handle_userfault() on 6.1 to 7.3
 * asks nothing of the faulting task but that it is not exiting (and
 * FAULT_FLAG_USER only for UFFD_USER_MODE_ONLY, which refuses this access
 * as it refuses any access from the kernel); a workqueue worker could too,
 * but only a thread of its own can be told to stop waiting: the wait is
 * killable, and the thread takes SIGKILL with its default action (a
 * kthread ignores signals otherwise), so that the teardown's SIGKILL is
 * fatal_signal_pending() for it and ends fixup_user_fault() with -EINTR.
 * A replay meanwhile (another area's) makes a parked access fault again:
 * the device work drops that entry as a duplicate. Only the faulting area
 * waits: other areas' works, the device's work and its unregister do not.
 */

/* Remember that the wait for @addr failed. fault_lock held. */
static void nvsvm_fault_uffd_fail(struct nvsvm_svmm *svmm, u64 addr)
{
	struct nvsvm_fault_area *fa = svmm->fault;

	fa->failed[fa->nfailed++ % NVSVM_UFFD_FAILED] =
		(struct nvsvm_uffd_failed){
			.addr = addr,
			.changes = atomic_read(&svmm->changes),
		};
}

/* Did the wait for the page of @e fail, with the mirror as it was then? */
static bool nvsvm_fault_uffd_failed(const struct nvsvm_fault_area *fa,
				    const struct nvsvm_fault_entry *e)
{
	unsigned int k, n = min_t(unsigned int, fa->nfailed,
				  NVSVM_UFFD_FAILED);

	for (k = 0; k < n; k++)
		if (fa->failed[k].addr == e->f.addr &&
		    fa->failed[k].changes == e->changes)
			return true;
	return false;
}

/*
 * The next page for the userfaultfd thread: the oldest parked one, for
 * writing when any access parked on it writes. Return: 1 (*@addr and
 * *@write set), 0 when none is parked, -1 once the area is torn down.
 */
static int nvsvm_fault_uffd_next(struct nvsvm_svmm *svmm, u64 *addr,
				 bool *write)
{
	struct nvsvm_fault_area *fa = svmm->fault;
	unsigned int k;
	int ret = 0;

	spin_lock(&svmm->fault_lock);
	if (fa->uffd_off) {
		ret = -1;
	} else if (fa->nparked) {
		*addr = fa->parked[0].addr;
		*write = false;
		for (k = 0; k < fa->nparked; k++)
			if (fa->parked[k].addr == *addr)
				*write |= fa->parked[k].access ==
					  NVSVM_ACCESS_WRITE ||
					  fa->parked[k].access ==
					  NVSVM_ACCESS_ATOMIC;
		ret = 1;
	}
	spin_unlock(&svmm->fault_lock);
	return ret;
}

/*
 * The wait for @addr ended (@ret 0: the page is there) or failed: hand
 * the accesses parked on it back to the area work, which serves them or,
 * when the wait failed, cancels them (nvsvm_fault_park()). With @addr
 * ~0, all of them, as failed (the thread ends without a teardown).
 */
static void nvsvm_fault_uffd_done(struct nvsvm_svmm *svmm, u64 addr,
				  int ret)
{
	struct nvsvm_fault_area *fa = svmm->fault;
	unsigned int k, m = 0, served = 0;

	spin_lock(&svmm->fault_lock);
	if (fa->uffd_off) {
		spin_unlock(&svmm->fault_lock);
		return;
	}
	for (k = 0; k < fa->nparked; k++) {
		struct nvsvm_fault *f = &fa->parked[k];

		if (addr != ~0ULL && f->addr != addr) {
			fa->parked[m++] = *f;
			continue;
		}
		if (ret)
			nvsvm_fault_uffd_fail(svmm, f->addr);
		else
			served++;
		nvsvm_fault_pend(fa, f);
	}
	fa->nparked = m;
	spin_unlock(&svmm->fault_lock);
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_UFFD_SERVED, served);
	nvsvm_svmm_get(svmm);
	nvsvm_fault_queue(svmm);
}

/*
 * The area's userfaultfd thread: it holds a reference on the area and on
 * this module, and ends at the area's teardown (nvsvm_fault_svmm_fini():
 * SIGKILL) or on a SIGKILL from anyone else.
 */
static int nvsvm_fault_uffd_thread(void *arg)
{
	struct nvsvm_svmm *svmm = arg;
	struct nvsvm_fault_area *fa = svmm->fault;
	bool write = false;
	u64 addr = 0;
	int next, ret;

	/* Fatal, as for a user thread: see above. */
	kernel_sigaction(SIGKILL, SIG_DFL);
	for (;;) {
		/*
		 * Woken after a park (or by the teardown's SIGKILL, the one
		 * signal it takes); idle, it counts in no load average.
		 */
		if (wait_event_interruptible(fa->uffd_wq,
					     READ_ONCE(fa->nparked) ||
					     READ_ONCE(fa->uffd_off)))
			break;
		next = nvsvm_fault_uffd_next(svmm, &addr, &write);
		if (next < 0)
			break;
		if (!next)
			continue;
		ret = nvsvm_fault_uffd_wait(svmm, addr, write);
		if (fatal_signal_pending(current))
			break;
		nvsvm_fault_uffd_done(svmm, addr, ret);
	}
	spin_lock(&svmm->fault_lock);
	fa->uffd_task = NULL;
	spin_unlock(&svmm->fault_lock);
	/* Killed from outside: its accesses are cancelled. */
	nvsvm_fault_uffd_done(svmm, ~0ULL, -EINTR);
	nvsvm_svmm_put(svmm);
	module_put_and_kthread_exit(0);
}

/* Start @svmm's userfaultfd thread, if it has none. */
static void nvsvm_fault_uffd_start(struct nvsvm_svmm *svmm)
{
	struct nvsvm_fault_area *fa = svmm->fault;
	struct task_struct *t;

	if (READ_ONCE(fa->uffd_task))
		return;
	t = kthread_create(nvsvm_fault_uffd_thread, svmm, "nvsvm_uffd/%d",
			   svmm->ndev->index);
	if (IS_ERR(t))
		return;
	spin_lock(&svmm->fault_lock);
	/* Only this area's work starts one: nobody else did meanwhile. */
	if (fa->uffd_off) {
		spin_unlock(&svmm->fault_lock);
		kthread_stop(t);	/* it never runs its function */
		return;
	}
	fa->uffd_task = t;
	nvsvm_svmm_get(svmm);
	__module_get(THIS_MODULE);
	spin_unlock(&svmm->fault_lock);
	wake_up_process(t);
}

/*
 * Park the accesses of the @n served faults of @b that wait for a
 * userfaultfd handler (uffd): no replay for them, the userfaultfd thread
 * faults their pages in. One whose page's wait failed (and the mirror did
 * not change since), or that finds no room or no thread, is cancelled
 * instead; once the area is torn down, none parks (the batch's replay
 * sends it to the empty directory, where it is cancelled).
 */
static void nvsvm_fault_park(struct nvsvm_svmm *svmm,
			     struct nvsvm_fault_batch *b, unsigned int n)
{
	struct nvsvm_fault_area *fa = svmm->fault;
	unsigned int i, stale = 0;
	bool any = false, wake = false;

	for (i = 0; i < n && !any; i++)
		any = b->e[i].uffd;
	if (!any)
		return;
	nvsvm_fault_uffd_start(svmm);
	spin_lock(&svmm->fault_lock);
	for (i = 0; i < n; i++) {
		struct nvsvm_fault_entry *e = &b->e[i];

		if (!e->uffd)
			continue;
		if (fa->uffd_off) {
			e->uffd = false;
			stale++;
		} else if (!fa->uffd_task || nvsvm_fault_uffd_failed(fa, e)) {
			e->uffd = false;
			e->cancel = true;
		} else if (nvsvm_fault_find(fa->parked, fa->nparked, &e->f) <
			   fa->nparked) {
			continue;
		} else if (fa->nparked < NVSVM_FAULT_PENDING) {
			fa->parked[fa->nparked++] = e->f;
			wake = true;
		} else {
			e->uffd = false;
			e->cancel = true;
		}
	}
	spin_unlock(&svmm->fault_lock);
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_STALE, stale);
	if (wake)
		wake_up(&fa->uffd_wq);
}

/*
 * An area's work: serve what the device work handed over, batch by batch,
 * and replay once, when the buffer holds no more of its faults (or after
 * NVSVM_FAULT_AREA_BATCHES batches). Once the device is unregistered, what
 * is left is dropped: no register is written, nothing is mapped.
 */
static void nvsvm_fault_area_work(struct work_struct *work)
{
	struct nvsvm_svmm *svmm = container_of(work, struct nvsvm_svmm,
					       fault_work);
	struct nvsvm_device *ndev = svmm->ndev;
	struct nvsvm_fault_area *fa = svmm->fault;
	struct nvsvm_fault_batch *b = &fa->b;
	bool flushed = false, utlb, early, defer;
	unsigned int i, j, n;
	u64 t0, served;

	down_read(&ndev->fault.serve);
	for (;;) {
		if (ndev->fault.off) {
			/* Unregistered: the faults are moot. */
			spin_lock(&svmm->fault_lock);
			n = fa->npending;
			fa->npending = 0;
			spin_unlock(&svmm->fault_lock);
			nvsvm_stat_add(ndev, NVSVM_STAT_STALE, n);
			b->owed = 0;
			b->unreleased = 0;
			break;
		}
		utlb = READ_ONCE(replay_utlb);
		n = nvsvm_fault_take(svmm, fa, b, utlb);
		if (!n) {
			if (!b->owed)
				break;
			/*
			 * Entries the device work has not read yet may be
			 * ours: have them handed over first (the device work
			 * never waits for an area's).
			 */
			if (!flushed && b->owed < NVSVM_FAULT_AREA_BATCHES &&
			    gp100_fault_pending(ndev)) {
				nvsvm_fault_flush(ndev);
				flushed = true;
				continue;
			}
			nvsvm_fault_batch_replay(ndev, b);
			break;
		}
		flushed = false;
		nvsvm_fault_sort(ndev, b, n, utlb);
		b->changed = false;
		early = false;
		served = 0;
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n; j++)
				if (b->e[j].f.inst != b->e[i].f.inst ||
				    (utlb && nvsvm_fault_utlb_key(&b->e[j].f) !=
					     nvsvm_fault_utlb_key(&b->e[i].f)))
					break;
			t0 = local_clock();
			nvsvm_fault_inst(ndev, svmm, b, i, j);
			served += nvsvm_ns_since(t0);
			b->unreleased += j - i;
			if (utlb && !early && j < n)
				early = nvsvm_fault_replay_utlb(ndev, svmm, b,
								n - j);
		}
		nvsvm_fault_park(svmm, b, n);
		nvsvm_fault_served(ndev, served);
		if (ndev->fault.off)
			continue;	/* gone during a page-in */
		if (b->changed) {
			t0 = local_clock();
			nvsvm_mirror_invalidate_tlb(svmm);
			nvsvm_stat_add(ndev, NVSVM_STAT_NS_INVAL,
				       nvsvm_ns_since(t0));
		}
		/*
		 * With replay_utlb, what the batch served after its replay,
		 * or what does not pay for one, waits for the next batch's
		 * (or the end of the work's): at most one replay per batch,
		 * as with one replay per run of batches.
		 */
		defer = b->owed + 1 < NVSVM_FAULT_AREA_BATCHES &&
			(!utlb || early || !nvsvm_fault_utlb_pays(svmm, b, 0));
		nvsvm_fault_finish(ndev, b, n, defer);
	}
	up_read(&ndev->fault.serve);
	/* The references of this queueing; the area's may be the last one. */
	nvsvm_svmm_put(svmm);
	/* The module exit's destroy_workqueue() waits for the return. */
	module_put(THIS_MODULE);
}

/*
 * Hand the faults of the @n entries at @e to their area (the reference
 * taken on @svmm goes with them) and queue its work, which holds a
 * reference on this module until it returns. An entry of an access
 * that is pending already is dropped (a replay made it fault again before
 * its area served it), and so is one that finds @pending full: the area
 * work replays when it is done, and what it has not served faults again.
 */
static void nvsvm_fault_hand(struct nvsvm_device *ndev,
			     struct nvsvm_svmm *svmm,
			     const struct nvsvm_fault_entry *e, unsigned int n)
{
	struct nvsvm_fault_area *fa = svmm->fault;
	unsigned int i, dups = 0;

	spin_lock(&svmm->fault_lock);
	for (i = 0; i < n; i++) {
		/* A parked access that a replay made fault again. */
		if (nvsvm_fault_find(fa->parked, fa->nparked, &e[i].f) <
		    fa->nparked)
			dups++;
		else
			dups += !nvsvm_fault_pend(fa, &e[i].f);
	}
	spin_unlock(&svmm->fault_lock);
	nvsvm_stat_add(ndev, NVSVM_STAT_FAULT_DUPS, dups);
	nvsvm_fault_queue(svmm);
}

/*
 * The device work's part of the faults [first, last) of one instance
 * block. Return: true when they need this batch's replay (cancelled or
 * stale here), false when they went to their area.
 */
static bool nvsvm_fault_dispatch(struct nvsvm_device *ndev,
				 struct nvsvm_fault_batch *b,
				 unsigned int first, unsigned int last)
{
	struct nvsvm_svmm *svmm;
	unsigned int i;
	dma_addr_t pdb;

	svmm = nvsvm_chan_svmm_get(ndev, b->e[first].f.inst, &pdb);
	if (!svmm) {
		/* A live channel that has no area: its accesses fail. */
		for (i = first; i < last; i++) {
			b->e[i].cancel = b->e[i].f.access !=
					 NVSVM_ACCESS_PREFETCH;
			b->e[i].pdb = pdb;
			b->e[i].changes = 0;
		}
		return true;
	}
	if (IS_ERR(svmm)) {
		/* The channel is gone: see nvsvm_fault_inst(). */
		nvsvm_stat_add(ndev, NVSVM_STAT_STALE, last - first);
		return true;
	}
	nvsvm_fault_hand(ndev, svmm, &b->e[first], last - first);
	return false;
}

/*
 * Read one batch: hand each area its faults, cancel or drop the others.
 * Return: true when some went to an area (whose work replays).
 */
static bool nvsvm_fault_service(struct nvsvm_device *ndev,
				struct nvsvm_fault_dev *fd, unsigned int n,
				bool overflow)
{
	struct nvsvm_fault_batch *b = &fd->b;
	bool replay = false, handed = false;
	unsigned int i, j, dups = 0;

	nvsvm_stat_add(ndev, NVSVM_STAT_FAULTS, n);
	nvsvm_fault_load(b, fd->drained, n);
	nvsvm_fault_sort(ndev, b, n, false);
	for (i = 1; i < n; i++)
		dups += b->e[i].f.inst == b->e[i - 1].f.inst &&
			b->e[i].f.addr == b->e[i - 1].f.addr;
	nvsvm_stat_add(ndev, NVSVM_STAT_FAULT_DUPS, dups);
	trace_nvsvm_fault_batch(ndev->index, n, dups, overflow);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n; j++)
			if (b->e[j].f.inst != b->e[i].f.inst)
				break;
		if (nvsvm_fault_dispatch(ndev, b, i, j))
			replay = true;
		else
			handed = true;
	}
	if (replay)
		nvsvm_fault_finish(ndev, b, n, false);
	return handed;
}

/*
 * The fault path's progress mark: entries read, ranges and batches served
 * so far.
 */
static s64 nvsvm_fault_progress(struct nvsvm_device *ndev)
{
	return atomic64_read(&ndev->stats[NVSVM_STAT_FAULTS]) +
	       atomic64_read(&ndev->stats[NVSVM_STAT_RANGES]) +
	       atomic64_read(&ndev->stats[NVSVM_STAT_BATCHES]);
}

/*
 * The replay owed for an overflow, if no area work replayed since and none
 * is making progress (see NVSVM_FAULT_OWED_MS), and the device work is not
 * reading the buffer: it may be waiting for the VALID bit of entries it is
 * about to hand over, and a replay now would retry their accesses.
 */
static void nvsvm_fault_owed_work(struct work_struct *work)
{
	struct nvsvm_device *ndev = container_of(to_delayed_work(work),
						 struct nvsvm_device,
						 fault.owed_work);
	s64 progress = nvsvm_fault_progress(ndev);

	if (!atomic_read(&ndev->fault.replay_owed))
		return;
	if (progress != ndev->fault.owed_mark ||
	    work_busy(&ndev->fault.work)) {
		ndev->fault.owed_mark = progress;
		schedule_delayed_work(&ndev->fault.owed_work,
				      msecs_to_jiffies(NVSVM_FAULT_OWED_MS));
		return;
	}
	nvsvm_fault_replay(ndev);
}

static void nvsvm_fault_work(struct work_struct *work)
{
	struct nvsvm_device *ndev = container_of(work, struct nvsvm_device,
						 fault.work);
	struct nvsvm_fault_dev *fd = ndev->fault.dev;
	bool overflow, dropped = false, handed = false;
	s64 woke = atomic64_xchg(&ndev->fault.wake_ns, 0);
	unsigned int n;
	u64 t0;

	if (woke)
		nvsvm_stat_add(ndev, NVSVM_STAT_NS_WAKE,
			       max_t(s64, ktime_get_ns() - woke, 0));
	for (;;) {
		t0 = local_clock();
		n = gp100_fault_drain(ndev, fd->drained, NVSVM_FAULT_BATCH,
				      &overflow);
		nvsvm_stat_add(ndev, NVSVM_STAT_NS_DRAIN, nvsvm_ns_since(t0));
		if (overflow) {
			nvsvm_stat_add(ndev, NVSVM_STAT_OVERFLOWS, 1);
			dropped = true;
		}
		if (!n)
			break;
		handed |= nvsvm_fault_service(ndev, fd, n, overflow);
		cond_resched();
	}
	if (!dropped)
		return;
	/*
	 * Accesses were dropped: they wait for a replay. A lost replay would
	 * stall a GPC forever; one now, while the area works still serve what
	 * was read, would make every access they have not served yet fault
	 * again and refill the buffer. The area works' replays serve them;
	 * if none comes, nvsvm_fault_owed_work() replays.
	 */
	if (!handed) {
		nvsvm_fault_replay(ndev);
		return;
	}
	atomic_set(&ndev->fault.replay_owed, 1);
	ndev->fault.owed_mark = nvsvm_fault_progress(ndev);
	schedule_delayed_work(&ndev->fault.owed_work,
			      msecs_to_jiffies(NVSVM_FAULT_OWED_MS));
}

/**
 * nvsvm_gpu_fault_intr() - the replayable fault interrupt
 * @gpu: the GPU whose fault buffer PUT moved or overflowed
 *
 * Context: any, including hard interrupt.
 */
void nvsvm_gpu_fault_intr(struct nvsvm_gpu *gpu)
{
	struct nvsvm_device *ndev = gpu->priv;
	unsigned long flags;
	s64 now;

	if (!ndev)
		return;
	now = ktime_get_ns();
	atomic64_cmpxchg(&ndev->fault.intr_ns, 0, now);
	atomic64_cmpxchg(&ndev->fault.wake_ns, 0, now);
	spin_lock_irqsave(&ndev->fault.lock, flags);
	if (ndev->fault.wq)
		queue_work(ndev->fault.wq, &ndev->fault.work);
	spin_unlock_irqrestore(&ndev->fault.lock, flags);
}
EXPORT_SYMBOL_GPL(nvsvm_gpu_fault_intr);

/**
 * nvsvm_fault_flush() - read every fault entry written so far
 * @ndev: device
 *
 * Queues the device's fault work and waits for it, so that the entries in
 * the buffer now have been read when this returns: found stale, cancelled,
 * or handed to their area (whose work finds them stale if their channel
 * is gone by then). It does not wait for any area's work, which may be
 * waiting for a page-in that does not complete.
 *
 * Context: process, may sleep; not from the device's fault work (an
 * area's work may: the device work never waits for one).
 */
void nvsvm_fault_flush(struct nvsvm_device *ndev)
{
	bool queued = false;

	spin_lock_irq(&ndev->fault.lock);
	if (ndev->fault.wq) {
		queue_work(ndev->fault.wq, &ndev->fault.work);
		queued = true;
	}
	spin_unlock_irq(&ndev->fault.lock);
	if (queued)
		flush_work(&ndev->fault.work);
}

/**
 * nvsvm_fault_init() - set up the fault buffer and its worker
 * @ndev: device
 *
 * Return: 0 or an errno.
 */
int nvsvm_fault_init(struct nvsvm_device *ndev)
{
	struct workqueue_struct *wq;
	int ret;

	spin_lock_init(&ndev->fault.lock);
	init_rwsem(&ndev->fault.serve);
	INIT_WORK(&ndev->fault.work, nvsvm_fault_work);
	INIT_DELAYED_WORK(&ndev->fault.owed_work, nvsvm_fault_owed_work);
	ndev->fault.dev = kvzalloc(sizeof(*ndev->fault.dev), GFP_KERNEL);
	if (!ndev->fault.dev)
		return -ENOMEM;
	wq = alloc_ordered_workqueue("nvsvm_fault", WQ_HIGHPRI);
	if (!wq) {
		ret = -ENOMEM;
		goto err_batch;
	}
	ret = gp100_fault_buffer_init(ndev);
	if (ret)
		goto err_wq;
	spin_lock_irq(&ndev->fault.lock);
	ndev->fault.wq = wq;
	spin_unlock_irq(&ndev->fault.lock);
	return 0;

err_wq:
	destroy_workqueue(wq);
err_batch:
	kvfree(ndev->fault.dev);
	return ret;
}

/**
 * nvsvm_fault_unplug() - stop the area works touching a device
 * @ndev: device being unregistered, its areas torn down (dead)
 *
 * Waits for every area work serving faults of @ndev's areas outside a
 * page-in (bounded: no user holds that up), and makes every area work
 * from then on drop its faults without touching the device. An area work
 * waiting for a page-in is not waited for: it finds the device gone when
 * its read ends. The device's own fault work still runs (it cancels the
 * accesses of channels without an area) until nvsvm_fault_fini().
 */
void nvsvm_fault_unplug(struct nvsvm_device *ndev)
{
	down_write(&ndev->fault.serve);
	ndev->fault.off = true;
	up_write(&ndev->fault.serve);
}

/**
 * nvsvm_fault_fini() - stop the worker, disable and free the fault buffer
 * @ndev: device, after nvsvm_fault_unplug()
 *
 * Waits for the device's fault work, not for any area's.
 */
void nvsvm_fault_fini(struct nvsvm_device *ndev)
{
	struct workqueue_struct *wq;

	spin_lock_irq(&ndev->fault.lock);
	wq = ndev->fault.wq;
	ndev->fault.wq = NULL;
	spin_unlock_irq(&ndev->fault.lock);
	/* The device work first: it is what queues area works. */
	if (wq)
		destroy_workqueue(wq);
	/* Only the device work schedules it. */
	cancel_delayed_work_sync(&ndev->fault.owed_work);
	gp100_fault_buffer_fini(ndev);
	kvfree(ndev->fault.dev);
	ndev->fault.dev = NULL;
}

/**
 * nvsvm_fault_svmm_init() - an area's share of the fault path
 * @svmm: new area
 *
 * @svmm->fault is one kvzalloc()ed block with nothing to undo but its
 * allocation: the area frees it with kvfree() at its last reference
 * (nvsvm_svmm_put(), src/area.c), so no lower layer calls back here.
 *
 * Return: 0 or -ENOMEM.
 */
int nvsvm_fault_svmm_init(struct nvsvm_svmm *svmm)
{
	spin_lock_init(&svmm->fault_lock);
	INIT_WORK(&svmm->fault_work, nvsvm_fault_area_work);
	svmm->fault = kvzalloc(sizeof(*svmm->fault), NVSVM_GFP_USER);
	if (!svmm->fault)
		return -ENOMEM;
	init_waitqueue_head(&svmm->fault->uffd_wq);
	return 0;
}

/**
 * nvsvm_fault_svmm_fini() - the fault path lets go of an area torn down
 * @svmm: the area, its channels detached (they walk the empty directory)
 *
 * The accesses parked for a userfaultfd handler are let go (counted in
 * uffd_unanswered) and replayed: each faults again on the empty directory
 * and is cancelled there, as any access of a channel without an area. The
 * area's userfaultfd thread gets SIGKILL, which ends its wait for the
 * handler; it drops its references when it returns. Waits for nothing.
 *
 * Context: process, the device registered (the file's teardown, or the
 * unregister's before nvsvm_fault_unplug()).
 */
void nvsvm_fault_svmm_fini(struct nvsvm_svmm *svmm)
{
	struct nvsvm_fault_area *fa = svmm->fault;
	struct task_struct *t;
	unsigned int n;

	spin_lock(&svmm->fault_lock);
	fa->uffd_off = true;
	n = fa->nparked;
	fa->nparked = 0;
	t = fa->uffd_task;
	if (t)
		get_task_struct(t);
	spin_unlock(&svmm->fault_lock);
	if (t) {
		send_sig(SIGKILL, t, 1);
		put_task_struct(t);
	}
	if (n) {
		nvsvm_stat_add(svmm->ndev, NVSVM_STAT_UFFD_UNANSWERED, n);
		nvsvm_fault_replay(svmm->ndev);
	}
}

/**
 * nvsvm_fault_mod_init() - the module's area workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int nvsvm_fault_mod_init(void)
{
	nvsvm_area_wq = alloc_workqueue("nvsvm_fault_area",
					WQ_UNBOUND | WQ_HIGHPRI, 0);
	return nvsvm_area_wq ? 0 : -ENOMEM;
}

/**
 * nvsvm_fault_mod_exit() - destroy the module's area workqueue
 *
 * No area work is queued or running: each holds a module reference.
 */
void nvsvm_fault_mod_exit(void)
{
	destroy_workqueue(nvsvm_area_wq);
}
