// SPDX-License-Identifier: GPL-2.0
/*
 * The driver at the scale of a GP100: programs run as hundreds of warps
 * at once (NVSVM_EXEC_WARPS), every warp a fault entry of its own, so
 * that a batch holds hundreds of faults, many to the same pages; and a
 * cancel of one warp's bad access, which the virtual GP100 applies to the
 * whole micro-TLB of its TPC, must leave the other warps of that TPC and
 * GPC alone (docs/gp100.md).
 *
 * Cases: TEST_F(chan, ...) on a channel in an area (kselftest_harness.h).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "common.h"

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA);

struct topo {
	unsigned int tpcs, sms, slots;
};

static int topo_read(struct topo *t)
{
	t->tpcs = vgpu_param("tpcs_per_gpc");
	t->sms = vgpu_param("sms_per_tpc");
	t->slots = t->tpcs * t->sms * vgpu_param("warps_per_sm");
	if (!t->slots)
		KTAP_FAIL_MSG("nvsvm_vgpu parameters unreadable");
	return KTAP_PASS;
}

/* The driver's counters a storm moves (debugfs, docs/tracing.md). */
enum {
	S_FAULTS, S_BATCHES, S_REPLAYS, S_INVALS, S_DUPS, S_RANGES,
	S_NS_DRAIN, S_NS_SORT, S_NS_SERVE, S_NS_HMM, S_NS_PTE, S_NS_REPLAY,
	NSTAT
};
static const char *const stat_names[NSTAT] = {
	"faults", "batches", "replays", "invalidates", "fault_dups", "ranges",
	"ns_drain", "ns_sort", "ns_serve", "ns_hmm", "ns_pte", "ns_replay",
};

/* @d: the counters now, minus what @d held (from a first call). */
static void stats_delta(uint64_t *d, bool first)
{
	uint64_t v;
	int i;

	for (i = 0; i < NSTAT; i++) {
		v = 0;
		nvsvm_stat_read(dev_index, stat_names[i], &v);
		d[i] = first ? v : v - d[i];
	}
}

/* Run @ops as warps on GPC @gpc of @f's channel; all must complete. */
static int warps_ok(struct fx *f, uint32_t gpc, struct nvsvm_op *ops,
		    unsigned int n)
{
	struct nvsvm_exec e;

	CHK_OK(nvsvm_exec_flags(f->fd, f->chan, gpc, NVSVM_EXEC_WARPS, ops, n,
				TIMEOUT_MS, &e));
	if (e.status != NVSVM_EXEC_OK)
		KTAP_FAIL_MSG("status %s after %u of %u ops (fault at %#llx)",
			      nvsvm_status_name(e.status), e.done, n,
			      (unsigned long long)e.fault_addr);
	CHK_EQ(e.done, n);
	return KTAP_PASS;
}

/*
 * A storm: one warp per page of memory the CPU wrote (so each page takes
 * one fault, with no read-only zero page to upgrade), each warp writing
 * its page, all faulting in the same round. The driver takes them in
 * batches as large as the buffer holds (up to its batch size), not a few
 * at a time, with at most one replay and one TLB invalidate per batch.
 */
TEST_F(chan, storm_full_batches)
{
	uint64_t *buf, d[NSTAT];
	struct nvsvm_op *ops;
	unsigned int n, i;
	struct topo t;

	NEED_VGPU();
	ASSERT_PASS(topo_read(&t));
	n = t.slots < NVSVM_EXEC_MAX_OPS ? t.slots : NVSVM_EXEC_MAX_OPS;
	buf = anon((size_t)n * PAGE);
	ops = calloc(n, sizeof(*ops));
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, ops);
	ASSERT_EQ(0, madvise(buf, (size_t)n * PAGE, MADV_NOHUGEPAGE));
	memset(buf, 0x11, (size_t)n * PAGE);
	for (i = 0; i < n; i++)
		ops[i] = nvsvm_op_write(nvsvm_ptr(&buf[i * WORDS + i % WORDS]),
					0x5000 + i);
	stats_delta(d, true);
	ASSERT_PASS(warps_ok(&self->fx, 0, ops, n));
	stats_delta(d, false);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0x5000 + i, buf[i * WORDS + i % WORDS]);
	TH_LOG("%u warps: %llu faults in %llu batches, %llu replays, %llu invalidates",
	       n, (unsigned long long)d[S_FAULTS],
	       (unsigned long long)d[S_BATCHES],
	       (unsigned long long)d[S_REPLAYS],
	       (unsigned long long)d[S_INVALS]);
	/* Every warp faulted before the interrupt: the first batch is full. */
	ASSERT_GE(d[S_FAULTS], n);
	ASSERT_GE(d[S_FAULTS], 32 * d[S_BATCHES]);
	ASSERT_LE(d[S_REPLAYS], d[S_BATCHES]);
	ASSERT_LE(d[S_INVALS], d[S_BATCHES]);
	free(ops);
}

/*
 * Many warps on few pages: 8 pages, every warp writing a word of its own.
 * The duplicates are dropped before the mirror is asked: a handful of
 * ranges for hundreds of entries.
 */
TEST_F(chan, storm_duplicates)
{
	uint64_t *buf, d[NSTAT];
	struct nvsvm_op *ops;
	unsigned int n, i;
	struct topo t;

	NEED_VGPU();
	ASSERT_PASS(topo_read(&t));
	n = t.slots < 8 * WORDS ? t.slots : 8 * WORDS;
	buf = anon(8 * PAGE);
	ops = calloc(n, sizeof(*ops));
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, ops);
	ASSERT_EQ(0, madvise(buf, 8 * PAGE, MADV_NOHUGEPAGE));
	for (i = 0; i < n; i++)
		ops[i] = nvsvm_op_write(nvsvm_ptr(&buf[(i % 8) * WORDS + i / 8]),
					0x6000 + i);
	stats_delta(d, true);
	ASSERT_PASS(warps_ok(&self->fx, 1, ops, n));
	stats_delta(d, false);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0x6000 + i, buf[(i % 8) * WORDS + i / 8]);
	TH_LOG("%u warps on 8 pages: %llu faults, %llu duplicates, %llu ranges",
	       n, (unsigned long long)d[S_FAULTS],
	       (unsigned long long)d[S_DUPS], (unsigned long long)d[S_RANGES]);
	ASSERT_GE(d[S_FAULTS], n);
	ASSERT_LE(d[S_RANGES], 8);
}

/*
 * The first-touch write storm of nvsvm-bench's b, small: every warp fills
 * a piece of its own of never-touched memory, page by page. A write fault
 * is served writable, and the pages prefetched around it are not mapped
 * read-only on the zero page (each would be upgraded through a TLB
 * invalidate at its write): no invalidate at all. And every entry in the
 * buffer is served before the one replay, so that a warp whose page was
 * not served yet does not fault again: at most 1.25 faults per page (one
 * replay per batch of 256 makes it nearly two).
 */
TEST_F(chan, write_storm_fresh)
{
	const unsigned int per = 4;
	uint64_t *buf, d[NSTAT];
	struct nvsvm_op *ops;
	unsigned int n, i;
	size_t len;
	struct topo t;

	NEED_VGPU();
	ASSERT_PASS(topo_read(&t));
	n = t.slots < NVSVM_EXEC_MAX_OPS ? t.slots : NVSVM_EXEC_MAX_OPS;
	len = (size_t)n * per * PAGE;
	buf = anon(len);
	ops = calloc(n, sizeof(*ops));
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, ops);
	ASSERT_EQ(0, madvise(buf, len, MADV_NOHUGEPAGE));
	for (i = 0; i < n; i++)
		ops[i] = nvsvm_op_fill(nvsvm_ptr(&buf[i * per * WORDS]),
				       per * PAGE, 0x7000 + i);
	stats_delta(d, true);
	ASSERT_PASS(warps_ok(&self->fx, 3, ops, n));
	stats_delta(d, false);
	for (i = 0; i < n; i++)
		ASSERT_PASS(cpu_check(&buf[i * per * WORDS], per * WORDS,
				      0x7000 + i));
	TH_LOG("%u warps x %u fresh pages: %llu faults in %llu batches, %llu replays, %llu invalidates",
	       n, per, (unsigned long long)d[S_FAULTS],
	       (unsigned long long)d[S_BATCHES],
	       (unsigned long long)d[S_REPLAYS],
	       (unsigned long long)d[S_INVALS]);
	ASSERT_EQ(0, d[S_INVALS]);
	ASSERT_LE(4 * d[S_FAULTS], 5ULL * n * per);
	/*
	 * The stage clocks run (docs/tracing.md). Only the stages that take
	 * tens of milliseconds here are asserted: a guest clock may tick every
	 * 4 ms, under which twelve sorts of a batch can well add up to 0.
	 */
	TH_LOG("stages, ns per fault: drain %llu sort %llu serve %llu (hmm %llu, PTE %llu) replay %llu",
	       (unsigned long long)(d[S_NS_DRAIN] / d[S_FAULTS]),
	       (unsigned long long)(d[S_NS_SORT] / d[S_FAULTS]),
	       (unsigned long long)(d[S_NS_SERVE] / d[S_FAULTS]),
	       (unsigned long long)(d[S_NS_HMM] / d[S_FAULTS]),
	       (unsigned long long)(d[S_NS_PTE] / d[S_FAULTS]),
	       (unsigned long long)(d[S_NS_REPLAY] / d[S_FAULTS]));
	ASSERT_NE(0, d[S_NS_SERVE]);
	ASSERT_NE(0, d[S_NS_HMM]);
	free(ops);
	munmap(buf, len);
}

/*
 * One warp writes never-touched pages in order: after a few pages the
 * region around its fault is dense, and a prefetch that faulted the
 * pages ahead of it in for reading would map the zero page read-only
 * there, to be upgraded through an invalidate at the next write. The
 * prefetch fills them for writing instead (private anonymous memory):
 * about one fault per doubling, and nothing is invalidated.
 */
TEST_F(chan, write_fill_no_upgrade)
{
	const unsigned int pages = 64;
	uint64_t *buf, d[NSTAT];
	struct nvsvm_op op;
	struct topo t;

	NEED_VGPU();
	ASSERT_PASS(topo_read(&t));
	buf = anon(pages * PAGE);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise(buf, pages * PAGE, MADV_NOHUGEPAGE));
	op = nvsvm_op_fill(nvsvm_ptr(buf), pages * PAGE, 0x77);
	stats_delta(d, true);
	ASSERT_PASS(warps_ok(&self->fx, 4, &op, 1));
	stats_delta(d, false);
	ASSERT_PASS(cpu_check(buf, pages * WORDS, 0x77));
	TH_LOG("one warp, %u fresh pages: %llu faults, %llu invalidates",
	       pages, (unsigned long long)d[S_FAULTS],
	       (unsigned long long)d[S_INVALS]);
	ASSERT_EQ(0, d[S_INVALS]);
	ASSERT_TRUE(d[S_FAULTS] >= 1 && d[S_FAULTS] <= pages / 2) {
		TH_LOG("%llu faults for %u pages",
		       (unsigned long long)d[S_FAULTS], pages);
	}
	munmap(buf, pages * PAGE);
}

/*
 * Two warps of one TPC (slot 0: SM 0, slot tpcs: SM 1, clients T1_0 and
 * T1_1) read PROT_NONE memory. They share one micro-TLB, and a cancel
 * naming either client fails both: the driver cancels once per micro-TLB.
 * A second cancel would find nothing stalled (the model's cancel_misses).
 */
TEST_F(chan, cancel_once_per_utlb)
{
	uint64_t m0 = 0, m1 = 0, c0 = 0, c1 = 0;
	struct nvsvm_op *ops;
	struct nvsvm_exec e;
	struct topo t;
	unsigned int i;
	char *hole;

	NEED_VGPU();
	ASSERT_PASS(topo_read(&t));
	if (t.sms < 2)
		SKIP(return, "needs 2 SMs per TPC");
	hole = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ops = calloc(t.tpcs + 1, sizeof(*ops));
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_NE(NULL, ops);
	for (i = 0; i <= t.tpcs; i++)
		ops[i] = (struct nvsvm_op){ .code = NVSVM_OP_NOP };
	ops[0] = nvsvm_op_read(nvsvm_ptr(hole));
	ops[t.tpcs] = nvsvm_op_read(nvsvm_ptr(hole) + 64);
	ASSERT_EQ(0, vgpu_stat_read("cancel_misses", &m0));
	ASSERT_EQ(0, nvsvm_stat_read(dev_index, "cancels", &c0));
	ASSERT_EQ(0, nvsvm_exec_flags(self->fx.fd, self->fx.chan, 3,
				      NVSVM_EXEC_WARPS, ops, t.tpcs + 1,
				      TIMEOUT_MS, &e));
	ASSERT_EQ(0, vgpu_stat_read("cancel_misses", &m1));
	ASSERT_EQ(0, nvsvm_stat_read(dev_index, "cancels", &c1));
	ASSERT_EQ(NVSVM_EXEC_FAULT, e.status);
	ASSERT_EQ(nvsvm_ptr(hole), e.fault_addr & ~(PAGE - 1));
	ASSERT_EQ(m0, m1) {
		TH_LOG("%llu cancels found nothing stalled (%llu cancels)",
		       (unsigned long long)(m1 - m0),
		       (unsigned long long)(c1 - c0));
	}
	ASSERT_EQ(c0 + 1, c1);
	free(ops);
}

/* One EXEC of a thread, released with the others by a barrier. */
struct job {
	int fd;
	uint32_t chan, gpc, flags;
	struct nvsvm_op *ops;
	unsigned int n;
	pthread_barrier_t *bar;
	pthread_t th;
	struct nvsvm_exec e;
	int ret;
};

static void *job_run(void *arg)
{
	struct job *j = arg;

	pthread_barrier_wait(j->bar);
	j->ret = nvsvm_exec_flags(j->fd, j->chan, j->gpc, j->flags, j->ops,
				  j->n, TIMEOUT_MS, &j->e);
	return NULL;
}

/*
 * Bystander warps: slot 1 (TPC 1) and slot tpcs (TPC 0, SM 1) each fill
 * 16 MiB of fresh memory at @buf (through faults, a 2 MiB block at a
 * time), with @val and @val + 1.
 */
static void bystander_ops(const struct topo *t, struct nvsvm_op *ops,
			  uint64_t *buf, uint64_t val)
{
	unsigned int i;

	for (i = 0; i <= t->tpcs; i++)
		ops[i] = (struct nvsvm_op){ .code = NVSVM_OP_NOP };
	ops[1] = nvsvm_op_fill(nvsvm_ptr(buf), 16 * MiB, val);
	ops[t->tpcs] = nvsvm_op_fill(nvsvm_ptr(buf + 2 * MiB), 16 * MiB,
				     val + 1);
}

/*
 * One warp's access cannot be served (PROT_NONE memory) and is
 * cancelled: the virtual GP100 fails every stalled access of that TPC's
 * micro-TLB in that page directory. At the same time, on the same GPC,
 * warps of another channel of the process (same page directory) in the
 * same TPC (its other SM) and in another TPC, and the same warps of
 * another process, fill fresh memory through faults. Only the bad
 * access's program fails; the others complete, their data checked.
 */
TEST_F(chan, cancel_spares_bystanders)
{
	struct nvsvm_op badop, *ops, *cops;
	uint64_t *bad, *mine, *theirs;
	pthread_barrier_t bar;
	struct job jobs[2];
	struct topo t;
	uint32_t chan2;
	int sync[2], i;
	pid_t pid;
	char c;

	NEED_VGPU();
	ASSERT_PASS(topo_read(&t));
	if (t.tpcs < 2 || t.sms < 2)
		SKIP(return, "needs 2 TPCs of 2 SMs");
	mine = anon(32 * MiB);
	theirs = anon(32 * MiB);
	/* PROT_NONE: no access can be served, nothing maps over it. */
	bad = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ops = calloc(t.tpcs + 1, sizeof(*ops));
	cops = calloc(t.tpcs + 1, sizeof(*cops));
	ASSERT_NE(NULL, mine);
	ASSERT_NE(NULL, theirs);
	ASSERT_NE(MAP_FAILED, bad);
	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, cops);
	ASSERT_EQ(0, pipe(sync));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct fx cf;
		struct nvsvm_exec e;

		if (fx_open(&cf, FX_AREA, NVSVM_CHAN_JOIN_AREA) != KTAP_PASS)
			_exit(2);
		bystander_ops(&t, cops, theirs, 0x71);
		if (read(sync[0], &c, 1) != 1)
			_exit(3);
		if (nvsvm_exec_flags(cf.fd, cf.chan, 2, NVSVM_EXEC_WARPS, cops,
				     t.tpcs + 1, TIMEOUT_MS, &e) ||
		    e.status != NVSVM_EXEC_OK)
			_exit(4);
		if (cpu_check(theirs, 2 * MiB, 0x71) != KTAP_PASS ||
		    cpu_check(theirs + 2 * MiB, 2 * MiB, 0x72) != KTAP_PASS)
			_exit(5);
		_exit(0);
	}

	ASSERT_EQ(0, nvsvm_chan_create(self->fx.fd, NVSVM_CHAN_JOIN_AREA,
				       &chan2));
	bystander_ops(&t, ops, mine, 0x61);
	/* The bad access: one warp in slot 0 (TPC 0, SM 0) of GPC 2. */
	badop = nvsvm_op_write(nvsvm_ptr(bad), 1);
	memset(jobs, 0, sizeof(jobs));
	pthread_barrier_init(&bar, NULL, 2);
	jobs[0] = (struct job){ .fd = self->fx.fd, .chan = self->fx.chan,
				.gpc = 2, .ops = &badop, .n = 1, .bar = &bar };
	jobs[1] = (struct job){ .fd = self->fx.fd, .chan = chan2, .gpc = 2,
				.flags = NVSVM_EXEC_WARPS, .ops = ops,
				.n = t.tpcs + 1, .bar = &bar };
	ASSERT_EQ(1, write(sync[1], "g", 1));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&jobs[i].th, NULL, job_run,
					    &jobs[i]));
	for (i = 0; i < 2; i++)
		pthread_join(jobs[i].th, NULL);
	ASSERT_EQ(0, jobs[0].ret);
	ASSERT_EQ(NVSVM_EXEC_FAULT, jobs[0].e.status);
	ASSERT_EQ(nvsvm_ptr(bad), jobs[0].e.fault_addr);
	ASSERT_EQ(0, jobs[1].ret);
	if (jobs[1].e.status != NVSVM_EXEC_OK)
		TH_LOG("bystanders: status %s, %u ops done",
		       nvsvm_status_name(jobs[1].e.status), jobs[1].e.done);
	ASSERT_EQ(NVSVM_EXEC_OK, jobs[1].e.status);
	ASSERT_PASS(cpu_check(mine, 2 * MiB, 0x61));
	ASSERT_PASS(cpu_check(mine + 2 * MiB, 2 * MiB, 0x62));
	ASSERT_EQ(0, wait_child(pid));
	free(ops);
	free(cops);
}

/*
 * A storm larger than the fault buffer: warps on as many GPCs as it takes
 * to outnumber the buffer's entries each write one never-touched page in
 * a 2 MiB block of its own, so that every fault is a range of its own and
 * a batch of them takes a while. The buffer overflows: the accesses that
 * found it full fault again after a replay, as they must. But an access
 * whose entry the driver read is not replayed before it is served: the
 * replay owed to the overflow waits while the fault path makes progress
 * (entries read, ranges served), and the area's own replay comes when its
 * pending faults are served. So no entry repeats an access the area holds
 * (fault_dups 0; the pages differ, so entries of one drain never share
 * one either). A replay owed after 10 ms without a whole batch served
 * retried hundreds of pending accesses here.
 */
TEST_F(chan, overflow_storm_no_early_replay)
{
	uint64_t *buf, d[NSTAT], o0 = 0, o1 = 0, r0 = 0, r1 = 0;
	unsigned int per, entries, ngpc, g, k, n;
	pthread_barrier_t bar;
	struct job jobs[8];
	struct nvsvm_op *ops;
	size_t len;
	struct topo t;

	NEED_VGPU();
	ASSERT_PASS(topo_read(&t));
	per = t.slots < NVSVM_EXEC_MAX_OPS ? t.slots : NVSVM_EXEC_MAX_OPS;
	entries = vgpu_param("fault_entries");
	ASSERT_NE(0, entries);
	ngpc = entries / per + 1;
	if (ngpc > vgpu_param("gpcs") || ngpc > 8)
		SKIP(return, "needs %u GPCs of %u warps", ngpc, per);
	n = ngpc * per;
	len = (size_t)n * 2 * MiB;
	buf = anon(len);
	ops = calloc(n, sizeof(*ops));
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, ops);
	ASSERT_EQ(0, madvise(buf, len, MADV_NOHUGEPAGE));
	for (k = 0; k < n; k++)
		ops[k] = nvsvm_op_write(nvsvm_ptr(buf + k * (2 * MiB / 8) +
						  k % WORDS), 0x8000 + k);

	ASSERT_EQ(0, vgpu_stat_read("overflows", &o0));
	ASSERT_EQ(0, vgpu_stat_read("refaults", &r0));
	stats_delta(d, true);
	pthread_barrier_init(&bar, NULL, ngpc);
	for (g = 0; g < ngpc; g++) {
		jobs[g] = (struct job){ .fd = self->fx.fd,
					.chan = self->fx.chan, .gpc = g,
					.flags = NVSVM_EXEC_WARPS,
					.ops = ops + g * per, .n = per,
					.bar = &bar };
		ASSERT_EQ(0, pthread_create(&jobs[g].th, NULL, job_run,
					    &jobs[g]));
	}
	for (g = 0; g < ngpc; g++)
		pthread_join(jobs[g].th, NULL);
	stats_delta(d, false);
	ASSERT_EQ(0, vgpu_stat_read("overflows", &o1));
	ASSERT_EQ(0, vgpu_stat_read("refaults", &r1));
	for (g = 0; g < ngpc; g++) {
		ASSERT_EQ(0, jobs[g].ret);
		ASSERT_EQ(NVSVM_EXEC_OK, jobs[g].e.status) {
			TH_LOG("GPC %u: %s after %u ops", g,
			       nvsvm_status_name(jobs[g].e.status),
			       jobs[g].e.done);
		}
	}
	for (k = 0; k < n; k++)
		ASSERT_EQ(0x8000 + k, buf[k * (2 * MiB / 8) + k % WORDS]);
	TH_LOG("%u warps on %u GPCs, %u entries: %llu faults, %llu duplicates, %llu batches, %llu replays; GPU: %llu overflows, %llu refaults",
	       n, ngpc, entries, (unsigned long long)d[S_FAULTS],
	       (unsigned long long)d[S_DUPS],
	       (unsigned long long)d[S_BATCHES],
	       (unsigned long long)d[S_REPLAYS],
	       (unsigned long long)(o1 - o0), (unsigned long long)(r1 - r0));
	ASSERT_EQ(0, d[S_DUPS]);
	free(ops);
	munmap(buf, len);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
