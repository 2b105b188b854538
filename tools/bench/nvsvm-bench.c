// SPDX-License-Identifier: GPL-2.0
/*
 * nvsvm-bench: the figures of issue 8, measured on /dev/nvsvm0 (through
 * libnvsvm) and, side by side, on the kernel's HMM test driver
 * lib/test_hmm.ko (/dev/hmm_dmirror0, through its uAPI header, which the
 * build takes from the linux-source tree: nothing of it is copied here).
 *
 * usage: nvsvm-bench [-r REPS] [-g GPCS] [-W WARPS] [-w WORKLOADS] [-t MHZ] [-P]
 *                    [SIZE_MIB...]
 *
 *   -r REPS       repetitions of every measurement; the median is printed
 *                 (default 3; e takes 2 * REPS + 5, its munmap being short)
 *   -g GPCS       GPCs the GPU workloads are spread over, each running one
 *                 EXEC on a contiguous share of the range (default: all)
 *   -W WARPS      each GPC's EXEC runs as WARPS warps at once
 *                 (NVSVM_EXEC_WARPS), each a FILL or SUM of 1/WARPS of
 *                 its share, as a GPU kernel touches a buffer (default 256;
 *                 1: one warp per GPC, the storm before vgpu-scale)
 *   -w WORKLOADS  letters of the workloads to run (default abcdefghkmpr)
 *   -t MHZ        the TSC's frequency (x86-64; see now()), default: measured
 *   -P            no peer, even when /dev/hmm_dmirror0 exists
 *
 * Workloads, each on fresh memory of SIZE MiB of 4 KiB pages:
 *   a  GPU first-touch read of CPU-populated anonymous memory through
 *      faults (EXEC SUM, no MAP); peer: HMM_DMIRROR_READ
 *   b  GPU first-touch write to never-touched memory (EXEC FILL); peer:
 *      HMM_DMIRROR_WRITE. Also gives f: the fault counters of this storm,
 *      and b.cpu: b over the CPU's own first touch (memset of fresh
 *      anonymous memory of the same size). a/x and b/x: a (b) over the
 *      same EXEC run again on the range it mapped (no fault): 1 when the
 *      faults cost nothing
 *   c  explicit MAP (NVSVM_MAP_WRITE) of a populated range; also gives g:
 *      pt_bytes per mapped byte, and pt_bytes left after munmap, and
 *      (a '#' line) the GPU's SUM and FILL rates over the mapped range:
 *      the model's execution cost per page with no fault, also given as
 *      x.sum and x.fill in ns per page; and a/c: a over c (when a ran)
 *   d  munmap of a GPU-mapped (peer: dmirror-mirrored) populated range
 *      against munmap of the same populated range with no GPU mapping
 *   e  munmap of 1 GiB with one page GPU-mapped against none (once, not
 *      per size)
 *   h  a and b on THP-backed memory (MADV_HUGEPAGE, 2 MiB aligned), with
 *      h.a/x, h.b/x as a/x, and h.b.cpu: h.b over the CPU's memset of
 *      fresh THP-backed memory
 *   k  compiled programs (NVSVM_IOCTL_LAUNCH, tests/gpu/): touch (one
 *      store per page of a fresh 16 MiB), saxpy and ddot (arithmetic on
 *      mapped memory) and chase (a malloc'd list); per program the
 *      interpreter's instructions per second (k.NAME) and, as notes, the
 *      vgpu's faults and replays and the core's batches during it (once,
 *      not per size)
 *   p  a CPU/GPU ping-pong on 16 pages (MIGRATE to VRAM, GPU FILL, CPU
 *      read and write), rounds per second with thrashing detection on
 *      against off (nvsvm.thrashing_enable), interleaved (once, not per
 *      size; skipped without device-private memory); "#" lines give each
 *      mode's counters per round and the time of each phase of the rounds
 *      that moved pages and of those that did not
 *   m  MIGRATE throughput (issue 37 item 2): half the VRAM (at most 32
 *      MiB) of populated 4 KiB pages, then of THPs, moved to VRAM and back;
 *      GB/s each way (m.vram.4k, m.sys.4k; with NVSVM_CAP_VRAM_2M (7.3),
 *      where THPs move as 2 MiB VRAM pages, m.vram.2m, m.sys.2m too; else
 *      a note says n/a) (once, not per size; skipped without
 *      device-private memory)
 *   r  the b storm under each replay policy (issue 36 item 5): nvsvm's
 *      replay_utlb N (a replay per run of batches) against Y (a replay as
 *      soon as a batch's first micro-TLBs are served), interleaved; per
 *      policy the GPU's warp-us stalled on faults (r.*-SIZE, stall_us),
 *      with the lockdown wait (r.*.wait), replays per 1000 fault entries
 *      (r.*.f) and per 1000 first faults (r.*.f1), pages/s (r.*.b); the
 *      ratios r.stall and r.wait (Y over N). Per size
 *   o  oversubscription (issue 36 item 1; not in the default letters:
 *      guest.sh runs "-w o" alone with a small VRAM, nvsvm_vgpu vram_mb):
 *      working sets of 125, 150 and 200 % of the VRAM, a sequential
 *      sweep, a hot-set walk and CPU/GPU turns, each with evict_policy=uvm
 *      (NVIDIA UVM's allocation order, the baseline: o.NAME.uvm) and lru
 *      (o.NAME), interleaved; MiB/s of 2 MiB blocks the GPU accessed, and
 *      the counters per run (once, not per size: SIZE_MIB is not needed
 *      with -w o alone; see oversub())
 *
 * Every GPU result is checked against the data (sums, filled words), so a
 * broken run stops with an error instead of printing a figure. Output, on
 * stdout, one line per figure:
 *
 *   result NAME SIDE VALUE UNIT
 *
 * with SIDE "ours" or "peer"; lines starting with '#' are notes (the
 * samples, counters, THP coverage). tools/bench/report.py turns the
 * results into the table, results.json and the plot. Exit status: 0, 1 on
 * an error (message on stderr), 2 for bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libnvsvm.h"
#include "gpu/gpu_args.h"	/* tests/gpu/: the programs' argument blocks */
#include "chase.h"		/* build/tests/gpu/: the images */
#include "float.h"
#include "touch.h"

#ifdef TEST_HMM_UAPI
#include TEST_HMM_UAPI		/* lib/test_hmm_uapi.h of the kernel tree */
#define HAVE_PEER	1
#else
#define HAVE_PEER	0
#endif

#define PAGE		4096UL
#define WORDS		(PAGE / 8)
#define MIB		(1UL << 20)
#define HUGE		(2UL << 20)
#define GIB		(1UL << 30)
#define MAX_GPCS	32
#define MAX_REPS	101
#define EXEC_TIMEOUT_MS	600000
#define PEER_DEV	"/dev/hmm_dmirror0"

static const char *prog = "nvsvm-bench";

/* What every measurement uses: the GPU, its channels, the peer. */
static struct {
	int fd;
	uint32_t chan[MAX_GPCS];
	unsigned int gpcs;
	unsigned int warps;
	int peer;		/* dmirror descriptor, or -1 */
	unsigned int reps;
} B = { .fd = -1, .peer = -1, .warps = 256 };

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The clock of every measurement. A tinyconfig guest without ACPI has no
 * HPET or PM timer: its kernel marks the TSC unstable for want of a
 * reference and runs on jiffies, a 4 ms clock, too coarse for a munmap.
 * The TSC itself is fine (QEMU reads the host's invariant TSC; KVM passes
 * it through), so on x86-64 the TSC is read directly, at the rate -t
 * gives (the host's TSC frequency, which run-bench.sh passes). Without -t
 * the rate is calibrated against CLOCK_MONOTONIC between two of its ticks
 * (clock_calibrate()); but a loaded host delays the guest's timer ticks,
 * and the jiffies clock then runs slow (by 15-30 % seen here), so that
 * calibration is only printed when -t is given. Elsewhere CLOCK_MONOTONIC
 * is used.
 */
static double tsc_hz;

#if defined(__x86_64__)
static uint64_t tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* Wait for CLOCK_MONOTONIC to move; the TSC and the clock at that edge. */
static void clock_edge(uint64_t *c, double *t)
{
	double t0 = mono();

	do {
		*c = tsc();
		*t = mono();
	} while (*t == t0);
}

static void clock_calibrate(double given_hz)
{
	struct timespec res, sl = { .tv_sec = 1 };
	double t0, t1, hz = 0;
	uint64_t c0, c1;

	clock_getres(CLOCK_MONOTONIC, &res);
	clock_edge(&c0, &t0);
	nanosleep(&sl, NULL);
	clock_edge(&c1, &t1);
	if (c1 > c0 && t1 > t0)
		hz = (c1 - c0) / (t1 - t0);
	tsc_hz = given_hz ? given_hz : hz;
	printf("# clock: CLOCK_MONOTONIC resolution %.3g s; %s\n",
	       res.tv_sec + res.tv_nsec / 1e9,
	       tsc_hz ? "timing with the TSC" : "TSC unusable, timing with that clock");
	printf("# clock: TSC %.6g MHz by CLOCK_MONOTONIC over %.3f s; %s %.6g MHz\n",
	       hz / 1e6, t1 - t0, given_hz ? "using the given" : "using",
	       tsc_hz / 1e6);
}

static double now(void)
{
	return tsc_hz ? tsc() / tsc_hz : mono();
}
#else
static void clock_calibrate(double given_hz)
{
	(void)given_hz;
	printf("# clock: CLOCK_MONOTONIC\n");
}

static double now(void)
{
	return mono();
}
#endif

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n samples (sorted in place). */
static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double maximum(const double *v, unsigned int n)
{
	double m = v[0];
	unsigned int i;

	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static void samples(const char *name, const char *side, const char *what,
		    const double *v, unsigned int n)
{
	unsigned int i;

	printf("# %s %s %s:", name, side, what);
	for (i = 0; i < n; i++)
		printf(" %.6g", v[i]);
	printf("\n");
}

static void result(const char *name, const char *side, double value,
		   const char *unit)
{
	printf("result %s %s %.6g %s\n", name, side, value, unit);
	fflush(stdout);
}

static uint64_t stat_get(const char *name)
{
	uint64_t v;
	int ret = nvsvm_stat_read(0, name, &v);

	if (ret)
		die("debugfs counter %s: %s (is debugfs mounted?)", name,
		    strerror(-ret));
	return v;
}

/*
 * A counter of the virtual GP100 (docs/gp100.md: what the GPU saw, beside
 * what the driver did); 0 when there is none (another GPU, no debugfs).
 */
static uint64_t vgpu_stat_get(const char *name)
{
	uint64_t v = 0;

	nvsvm_vgpu_stat_read(0, name, &v);
	return v;
}

/* Anonymous memory; @align a power of two >= PAGE. *@base/@len to unmap. */
static uint64_t *anon(size_t size, size_t align, bool thp, void **base,
		      size_t *len)
{
	size_t l = size + (align > PAGE ? align : 0);
	char *p = mmap(NULL, l, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		die("mmap %zu bytes: %s", l, strerror(errno));
	a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	if (thp && madvise((void *)a, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	if (!thp)
		madvise((void *)a, size, MADV_NOHUGEPAGE);
	*base = p;
	*len = l;
	return (uint64_t *)a;
}

static void unmap(void *base, size_t len)
{
	if (munmap(base, len))
		die("munmap: %s", strerror(errno));
}

static uint64_t pat(uint64_t i)
{
	return 0x6e76000000000000ULL ^ (i * 0x9e3779b97f4a7c15ULL);
}

/* Write one word of every page (the page is then populated). */
static uint64_t populate(uint64_t *p, size_t size)
{
	uint64_t i, sum = 0;

	for (i = 0; i < size / PAGE; i++) {
		p[i * WORDS] = pat(i);
		sum += pat(i);
	}
	return sum;
}

/* Percent of [p, p + size) that /proc/self/smaps shows as AnonHugePages. */
static double thp_percent(const void *p, size_t size)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + size, s, e;
	unsigned long kb, huge = 0;
	bool in = false;
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* A mapping's header starts with its (lower-case) address. */
		if (!isupper((unsigned char)line[0]) &&
		    sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			in = s < hi && e > lo;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			huge += kb;
	}
	fclose(f);
	return 100.0 * huge * 1024 / size;
}

/* One EXEC per GPC, started together; returns the wall time in seconds. */
struct job {
	pthread_t t;
	pthread_barrier_t *bar;
	uint32_t chan, gpc;
	struct nvsvm_op *ops;
	unsigned int nops;
	struct nvsvm_exec e;
	int ret;
};

static void *job_thread(void *arg)
{
	struct job *j = arg;

	pthread_barrier_wait(j->bar);
	j->ret = nvsvm_exec_flags(B.fd, j->chan, j->gpc,
				  j->nops > 1 ? NVSVM_EXEC_WARPS : 0, j->ops,
				  j->nops, EXEC_TIMEOUT_MS, &j->e);
	return NULL;
}

/*
 * [a, a + l) (whole pages) as up to B.warps operations @code, the pages
 * shared evenly: the first (pages mod warps) warps take one page more.
 * Not the remainder on the last warp: with 2730 pages over 256 warps
 * that one had 180 pages and the others 10, and its page after page of
 * faults, one warp per GPC, were the storm's last 170 replays.
 */
static void job_ops(struct job *j, int code, uint64_t a, size_t l,
		    uint64_t value)
{
	size_t pages = l / PAGE, off = 0, n;
	unsigned int k;

	j->nops = pages >= B.warps ? B.warps : 1;
	j->ops = calloc(j->nops, sizeof(*j->ops));
	if (!j->ops)
		die("calloc %u ops", j->nops);
	for (k = 0; k < j->nops; k++) {
		n = j->nops == 1 ? l :
		    (pages / j->nops + (k < pages % j->nops)) * PAGE;
		j->ops[k] = code == NVSVM_OP_SUM ?
			    nvsvm_op_sum(a + off, n) :
			    nvsvm_op_fill(a + off, n, value);
		off += n;
	}
}

/* @code NVSVM_OP_SUM or _FILL over [p, p + size) split over the GPCs. */
static double gpu_run(int code, uint64_t *p, size_t size, uint64_t value,
		      uint64_t *sum)
{
	struct job jobs[MAX_GPCS];
	/* Whole pages: FILL and SUM take multiples of 8 bytes. */
	size_t share = size / B.gpcs / PAGE * PAGE;
	pthread_barrier_t bar;
	unsigned int i, k;
	double t0, t1;

	pthread_barrier_init(&bar, NULL, B.gpcs + 1);
	for (i = 0; i < B.gpcs; i++) {
		uint64_t a = nvsvm_ptr(p) + i * share;
		size_t l = i == B.gpcs - 1 ? size - i * share : share;

		jobs[i].bar = &bar;
		jobs[i].chan = B.chan[i];
		jobs[i].gpc = i;
		job_ops(&jobs[i], code, a, l, value);
		if (pthread_create(&jobs[i].t, NULL, job_thread, &jobs[i]))
			die("pthread_create failed");
	}
	pthread_barrier_wait(&bar);
	t0 = now();
	for (i = 0; i < B.gpcs; i++)
		pthread_join(jobs[i].t, NULL);
	t1 = now();
	pthread_barrier_destroy(&bar);
	*sum = 0;
	for (i = 0; i < B.gpcs; i++) {
		if (jobs[i].ret)
			die("EXEC on GPC %u: %s", i, strerror(-jobs[i].ret));
		if (jobs[i].e.status != NVSVM_EXEC_OK)
			die("EXEC on GPC %u: %s at %#llx (%s)", i,
			    nvsvm_status_name(jobs[i].e.status),
			    (unsigned long long)jobs[i].e.fault_addr,
			    nvsvm_access_name(jobs[i].e.fault_access));
		for (k = 0; k < jobs[i].nops; k++)
			*sum += jobs[i].ops[k].result;
		free(jobs[i].ops);
	}
	return t1 - t0;
}

static void check_fill(const uint64_t *p, size_t size, uint64_t value)
{
	size_t i;

	for (i = 0; i < size / 8; i += 61)
		if (p[i] != value)
			die("word %zu is %#llx after FILL, expected %#llx", i,
			    (unsigned long long)p[i],
			    (unsigned long long)value);
	if (p[size / 8 - 1] != value)
		die("last word not filled");
}

static void name_of(char *buf, size_t n, const char *w, size_t mib)
{
	if (mib >= 1024 && !(mib % 1024))
		snprintf(buf, n, "%s-%zuG", w, mib / 1024);
	else
		snprintf(buf, n, "%s-%zuM", w, mib);
}

/*
 * Fault counters around the b storms, summed over the repetitions; from
 * FSTAGE on, the fault path's stages in ns (docs/tracing.md).
 */
static const char *const fcnt[] = { "faults", "batches", "replays",
				    "invalidates", "fault_dups", "overflows",
				    "ns_wake", "ns_drain", "ns_sort",
				    "ns_serve", "ns_hmm", "ns_pte",
				    "ns_invalidate", "ns_replay", "ns_prefetch",
				    "ns_pagein", "ns_map" };
#define NFCNT	(sizeof(fcnt) / sizeof(fcnt[0]))
#define FSTAGE	6
/* The GPU's side of the same storms. */
static const char *const gcnt[] = { "faults", "refaults", "overflows" };
#define NGCNT	(sizeof(gcnt) / sizeof(gcnt[0]))

/*
 * The per-batch serve time histogram (debugfs batch_serve_ns, "<bucket>
 * <lower bound ns> <count>" lines; NVSVM_SERVE_BUCKETS eighth-octave
 * buckets of the core): counts added to @hist (subtracted with @sign -1).
 */
#define SERVE_BUCKETS	256
static void serve_hist(int64_t *hist, int sign)
{
	char path[128], line[128];
	unsigned int k;
	unsigned long long lo, n;
	FILE *f;

	snprintf(path, sizeof(path), NVSVM_DEBUGFS_FMT "/batch_serve_ns", 0);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %llu %llu", &k, &lo, &n) == 3 &&
		    k < SERVE_BUCKETS)
			hist[k] += sign * (int64_t)n;
	fclose(f);
}

/* The upper bound in us of the bucket where fraction @q of @hist lies. */
static double serve_quantile(const int64_t *hist, double q)
{
	int64_t total = 0, seen = 0;
	unsigned int k;

	for (k = 0; k < SERVE_BUCKETS; k++)
		total += hist[k];
	for (k = 0; k < SERVE_BUCKETS && total; k++) {
		seen += hist[k];
		if (hist[k] && seen >= q * total)
			return (double)((9ULL + k % 8) << (k / 8 - 3)) / 1e3;
	}
	return 0;
}

/* a's median at the size being measured, for a/c (0: a did not run). */
static double a_rate;

/*
 * The CPU's first touch: memset of fresh anonymous memory (THP-backed with
 * @thp), pages/s.
 */
static double cpu_first_touch(size_t size, unsigned int r, bool thp)
{
	void *base;
	size_t len;
	uint64_t *p = anon(size, thp ? HUGE : PAGE, thp, &base, &len);
	double t0 = now(), t;

	memset(p, 0x40 + r, size);
	t = now() - t0;
	if (p[size / 8 - 1] != (0x40 + r) * 0x0101010101010101ULL)
		die("memset did not write");
	unmap(base, len);
	return size / PAGE / t;
}

/*
 * The same EXEC again over the range its first run mapped: the model's
 * own cost with no fault, pages/s (a FILL writes @r's pattern + 1).
 */
static double again(bool write, uint64_t *p, size_t size, uint64_t want,
		    unsigned int r, const char *name)
{
	uint64_t f0 = stat_get("faults"), got;
	double t;

	t = gpu_run(write ? NVSVM_OP_FILL : NVSVM_OP_SUM, p, size,
		    pat(r + 1), &got);
	if (write)
		check_fill(p, size, pat(r + 1));
	else if (got != want)
		die("%s again: GPU sum %#llx, CPU wrote %#llx", name,
		    (unsigned long long)got, (unsigned long long)want);
	if (stat_get("faults") != f0)
		die("%s again: %llu faults on mapped pages", name,
		    (unsigned long long)(stat_get("faults") - f0));
	return size / PAGE / t;
}

/* a and b (and h, with @thp): pages per second, ours then the peer's. */
static void first_touch(size_t mib, bool write, bool thp)
{
	size_t size = mib * MIB, len, npages = size / PAGE;
	double v[MAX_REPS], pv[MAX_REPS], thpv[MAX_REPS], cpu[MAX_REPS];
	double x[MAX_REPS];
	char wx[8];
	uint64_t before[NFCNT], total[NFCNT] = { 0 };
	uint64_t gbefore[NGCNT], gtotal[NGCNT] = { 0 };
	int64_t served[SERVE_BUCKETS] = { 0 };
	double tsum = 0;
	const char *w = thp ? (write ? "h.b" : "h.a") : (write ? "b" : "a");
	char name[32];
	unsigned int r, k;
	void *base;

	name_of(name, sizeof(name), w, mib);
	for (r = 0; r < B.reps; r++) {
		uint64_t *p = anon(size, thp ? HUGE : PAGE, thp, &base, &len);
		uint64_t want = 0, got;
		double t;

		if (!write)
			want = populate(p, size);
		for (k = 0; k < NFCNT; k++)
			before[k] = stat_get(fcnt[k]);
		for (k = 0; k < NGCNT; k++)
			gbefore[k] = vgpu_stat_get(gcnt[k]);
		serve_hist(served, -1);
		if (write) {
			t = gpu_run(NVSVM_OP_FILL, p, size, pat(r), &got);
			check_fill(p, size, pat(r));
		} else {
			t = gpu_run(NVSVM_OP_SUM, p, size, 0, &got);
			if (got != want)
				die("%s: GPU sum %#llx, CPU wrote %#llx", name,
				    (unsigned long long)got,
				    (unsigned long long)want);
		}
		for (k = 0; k < NFCNT; k++)
			total[k] += stat_get(fcnt[k]) - before[k];
		for (k = 0; k < NGCNT; k++)
			gtotal[k] += vgpu_stat_get(gcnt[k]) - gbefore[k];
		serve_hist(served, 1);
		thpv[r] = thp ? thp_percent(p, size) : 0;
		v[r] = npages / t;
		tsum += t;
		x[r] = again(write, p, size, want, r, name);
		unmap(base, len);
		if (write)
			cpu[r] = cpu_first_touch(size, r, thp);
	}
	samples(name, "ours", "pages/s", v, B.reps);
	printf("# %s ours counters over %u runs:", name, B.reps);
	for (k = 0; k < FSTAGE; k++)
		printf(" %s %llu", fcnt[k], (unsigned long long)total[k]);
	printf("; GPU:");
	for (k = 0; k < NGCNT; k++)
		printf(" %s %llu", gcnt[k], (unsigned long long)gtotal[k]);
	printf("\n");
	if (total[0]) {
		/* Serving includes hmm and the PTE writes. */
		printf("# %s ours fault stages, ns per fault:", name);
		for (k = FSTAGE; k < NFCNT; k++)
			printf(" %s %.0f", fcnt[k] + 3,
			       (double)total[k] / total[0]);
		printf(" (wall %.0f)\n", 1e9 * tsum / total[0]);
	}
	if (total[1] && !thp) {
		/*
		 * Issue 36 item 6: the time serving the batches against its
		 * floor, hmm_range_fault() and the PTE writes alone (both
		 * inside the serve time), and the serve time of one batch.
		 */
		uint64_t floor = total[FSTAGE + 4] + total[FSTAGE + 5];
		char sname[48], fig[16];

		printf("# %s ours serve per batch: p50 %.1f us, p99 %.1f us, "
		       "mean %.1f us over %llu batches; floor (hmm + PTE) "
		       "%.1f us per batch\n", name,
		       serve_quantile(served, 0.5),
		       serve_quantile(served, 0.99),
		       total[FSTAGE + 3] / 1e3 / total[1],
		       (unsigned long long)total[1], floor / 1e3 / total[1]);
		snprintf(fig, sizeof(fig), "%s.serve", w);
		name_of(sname, sizeof(sname), fig, mib);
		result(sname, "ours", floor ?
		       (double)total[FSTAGE + 3] / floor : 0, "ratio");
		snprintf(fig, sizeof(fig), "%s.p50", w);
		name_of(sname, sizeof(sname), fig, mib);
		result(sname, "ours", serve_quantile(served, 0.5), "us");
		snprintf(fig, sizeof(fig), "%s.p99", w);
		name_of(sname, sizeof(sname), fig, mib);
		result(sname, "ours", serve_quantile(served, 0.99), "us");
	}
	if (thp)
		samples(name, "ours", "THP-backed %", thpv, B.reps);
	result(name, "ours", median(v, B.reps), "pages/s");
	if (!write && !thp)
		a_rate = median(v, B.reps);
	samples(name, "ours", "the same EXEC again, mapped, pages/s", x,
		B.reps);
	snprintf(wx, sizeof(wx), "%s/x", w);
	name_of(name, sizeof(name), wx, mib);
	result(name, "ours", median(v, B.reps) / median(x, B.reps), "ratio");
	name_of(name, sizeof(name), w, mib);
	if (write) {
		samples(name, "ours", thp ?
			"CPU memset of fresh THP memory, pages/s" :
			"CPU memset of fresh memory, pages/s", cpu, B.reps);
		name_of(name, sizeof(name), thp ? "h.b.cpu" : "b.cpu", mib);
		result(name, "ours", median(v, B.reps) / median(cpu, B.reps),
		       "ratio");
		name_of(name, sizeof(name), w, mib);
	}

	if (write && !thp && total[0]) {
		/* f: the fault pipeline during the storm of every GPC's warps. */
		name_of(name, sizeof(name), "f", mib);
		result(name, "ours", 1000.0 * total[2] / total[0],
		       "replays/1000faults");
		name_of(name, sizeof(name), "f.batch", mib);
		result(name, "ours", total[1] ? (double)total[0] / total[1] : 0,
		       "faults/batch");
		name_of(name, sizeof(name), "f.dups", mib);
		result(name, "ours", total[1] ? (double)total[4] / total[1] : 0,
		       "duplicates/batch");
		name_of(name, sizeof(name), "f.inval", mib);
		result(name, "ours", 1000.0 * total[3] / total[0],
		       "invalidates/1000faults");
		name_of(name, sizeof(name), w, mib);
	}

#if HAVE_PEER
	if (B.peer < 0 || thp)
		return;
	for (r = 0; r < B.reps; r++) {
		uint64_t *p = anon(size, PAGE, false, &base, &len);
		uint64_t *buf = malloc(size), i;
		struct hmm_dmirror_cmd cmd = { 0 };
		double t0;

		if (!buf)
			die("malloc %zu", size);
		memset(buf, 0, size);	/* the bounce side is populated */
		if (write)
			for (i = 0; i < npages; i++)
				buf[i * WORDS] = pat(i + r);
		else
			populate(p, size);
		cmd.addr = nvsvm_ptr(p);
		cmd.ptr = nvsvm_ptr(buf);
		cmd.npages = npages;
		t0 = now();
		if (ioctl(B.peer, write ? HMM_DMIRROR_WRITE : HMM_DMIRROR_READ,
			  &cmd))
			die("dmirror %s: %s", write ? "WRITE" : "READ",
			    strerror(errno));
		pv[r] = npages / (now() - t0);
		if (cmd.cpages != npages)
			die("dmirror copied %llu of %zu pages",
			    (unsigned long long)cmd.cpages, npages);
		for (i = 0; i < npages; i++)
			if ((write ? p : buf)[i * WORDS] !=
			    (write ? pat(i + r) : pat(i)))
				die("dmirror %s: page %llu differs",
				    write ? "WRITE" : "READ",
				    (unsigned long long)i);
		free(buf);
		unmap(base, len);
	}
	samples(name, "peer", "pages/s", pv, B.reps);
	result(name, "peer", median(pv, B.reps), "pages/s");
#else
	(void)pv;
#endif
}

/* c and g: MAP of a populated range, and the page-table bytes it took. */
static void map_populated(size_t mib)
{
	size_t size = mib * MIB, len, npages = size / PAGE;
	double v[MAX_REPS], pt[MAX_REPS], left[MAX_REPS];
	double xs[MAX_REPS], xf[MAX_REPS];
	uint64_t xfaults = 0;
	char name[32];
	unsigned int r;
	void *base;

	for (r = 0; r < B.reps; r++) {
		uint64_t *p = anon(size, PAGE, false, &base, &len);
		uint64_t mapped = 0, pt0, pt1, want, got, f0;
		double t0, t;
		int ret;

		want = populate(p, size);
		pt0 = stat_get("pt_bytes");
		t0 = now();
		ret = nvsvm_map(B.fd, nvsvm_ptr(p), size, NVSVM_MAP_WRITE,
				&mapped);
		t = now() - t0;
		if (ret)
			die("MAP: %s", strerror(-ret));
		if (mapped != npages)
			die("MAP mapped %llu of %zu pages",
			    (unsigned long long)mapped, npages);
		pt1 = stat_get("pt_bytes");
		v[r] = npages / t;
		pt[r] = 100.0 * (double)(pt1 - pt0) / size;
		/*
		 * The model's execution cost alone: SUM, then FILL, over the
		 * pages MAP mapped (no fault expected; counted if any).
		 */
		f0 = stat_get("faults");
		xs[r] = npages / gpu_run(NVSVM_OP_SUM, p, size, 0, &got);
		if (got != want)
			die("GPU SUM over the mapped range %#llx, expected %#llx",
			    (unsigned long long)got, (unsigned long long)want);
		xf[r] = npages / gpu_run(NVSVM_OP_FILL, p, size, pat(r), &got);
		check_fill(p, size, pat(r));
		xfaults += stat_get("faults") - f0;
		unmap(base, len);
		left[r] = (double)(int64_t)(stat_get("pt_bytes") - pt0);
	}
	name_of(name, sizeof(name), "c", mib);
	samples(name, "ours", "pages/s", v, B.reps);
	result(name, "ours", median(v, B.reps), "pages/s");
	samples(name, "ours", "GPU SUM over the mapped range, pages/s", xs,
		B.reps);
	samples(name, "ours", "GPU FILL over the mapped range, pages/s", xf,
		B.reps);
	printf("# %s ours GPU execution on mapped pages: SUM %.6g, FILL %.6g pages/s (medians), %llu faults\n",
	       name, median(xs, B.reps), median(xf, B.reps),
	       (unsigned long long)xfaults);
	if (a_rate) {
		name_of(name, sizeof(name), "a/c", mib);
		result(name, "ours", a_rate / median(v, B.reps), "ratio");
	}
	/* The model's own cost per page, beside the fault figures. */
	name_of(name, sizeof(name), "x.sum", mib);
	result(name, "ours", 1e9 / median(xs, B.reps), "ns/page");
	name_of(name, sizeof(name), "x.fill", mib);
	result(name, "ours", 1e9 / median(xf, B.reps), "ns/page");
	name_of(name, sizeof(name), "g", mib);
	samples(name, "ours", "pt_bytes % of mapped bytes", pt, B.reps);
	result(name, "ours", median(pt, B.reps), "%");
	name_of(name, sizeof(name), "g.after", mib);
	samples(name, "ours", "pt_bytes left after munmap", left, B.reps);
	result(name, "ours", maximum(left, B.reps), "bytes");
}

/*
 * The time of one munmap of a @size range populated with @touch pages
 * (every page when @touch is 0), GPU-mapped first when @mapped: by MAP on
 * ours, by HMM_DMIRROR_READ on the peer.
 */
static double munmap_time(size_t size, size_t touch, bool mapped, bool peer)
{
	size_t len, bytes = touch ? touch * PAGE : size;
	uint64_t *p, *q;
	void *base;
	double t0;

	p = anon(size, PAGE, false, &base, &len);
	q = p + (size - bytes) / 2 / PAGE * WORDS;	/* the middle page */
	populate(q, bytes);
	if (mapped && !peer) {
		int ret = nvsvm_map(B.fd, nvsvm_ptr(q), bytes,
				    NVSVM_MAP_WRITE, NULL);

		if (ret)
			die("MAP: %s", strerror(-ret));
	}
#if HAVE_PEER
	if (mapped && peer) {
		struct hmm_dmirror_cmd cmd = { 0 };
		void *buf = malloc(bytes);

		if (!buf)
			die("malloc %zu", bytes);
		cmd.addr = nvsvm_ptr(q);
		cmd.ptr = nvsvm_ptr(buf);
		cmd.npages = bytes / PAGE;
		if (ioctl(B.peer, HMM_DMIRROR_READ, &cmd))
			die("dmirror READ: %s", strerror(errno));
		free(buf);
	}
#endif
	t0 = now();
	unmap(base, len);
	return now() - t0;
}

/* d (and e with @touch = 1): the munmap slowdown, mapped against not. */
static void munmap_ratio(const char *w, size_t mib, size_t touch, bool peer)
{
	double m[MAX_REPS], u[MAX_REPS], mm, um;
	const char *side = peer ? "peer" : "ours";
	/* A munmap of one page is short and noisy: more samples. */
	unsigned int r, n = touch ? 2 * B.reps + 5 : B.reps;
	char name[32];

	if (n > MAX_REPS)
		n = MAX_REPS;
	/* Interleaved, so that drift in the machine hits both alike. */
	for (r = 0; r < n; r++) {
		u[r] = munmap_time(mib * MIB, touch, false, peer);
		m[r] = munmap_time(mib * MIB, touch, true, peer);
	}
	name_of(name, sizeof(name), w, mib);
	samples(name, side, "munmap s, GPU-mapped", m, n);
	samples(name, side, "munmap s, not mapped", u, n);
	mm = median(m, n);
	um = median(u, n);
	result(name, side, mm / um, "x");
}

#define THRASH_ENABLE	"/sys/module/nvsvm/parameters/thrashing_enable"
#define PP_PAGES	16
#define PP_ROUNDS	64

/* Write @v to the module parameter file @path. */
static void param_write(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(v, f) < 0 || fclose(f))
		die("%s: %s", path, strerror(errno));
}

#define REPLAY_UTLB	"/sys/module/nvsvm/parameters/replay_utlb"

/*
 * r: the write storm of b under each replay policy (nvsvm.replay_utlb N,
 * one replay per run of batches; Y, a replay as soon as a batch's first
 * micro-TLBs are served), interleaved, the order swapped every
 * repetition. Per policy: the GPU's warp-time stalled on faults (stall_us)
 * and held back by micro-TLB lockdown (lockdown_us), replays per 1000
 * fault entries read (f) and per 1000 first faults (the GPU's faults less
 * its refaults: an early replay makes every access not served yet fault
 * again, which pads f's denominator), pages/s. Once per size.
 */
static const char *const rcnt[] = { "faults", "replays", "replays_utlb" };
static const char *const rgcnt[] = { "stall_us", "lockdown_us", "faults",
				     "refaults", "overflows" };
#define NRCNT	(sizeof(rcnt) / sizeof(rcnt[0]))
#define NRGCNT	(sizeof(rgcnt) / sizeof(rgcnt[0]))

static void replay_policies(size_t mib)
{
	static const char *const pol[2] = { "N", "Y" };
	static const char *const tag[2] = { "r.batch", "r.utlb" };
	size_t size = mib * MIB, len;
	double stall[2][MAX_REPS], wait[2][MAX_REPS], v[2][MAX_REPS];
	uint64_t d[2][NRCNT] = { { 0 } }, g[2][NRGCNT] = { { 0 } };
	uint64_t before[NRCNT], gbefore[NRGCNT], got;
	char name[48], was[8] = "Y";
	unsigned int r, k, q;
	FILE *f = fopen(REPLAY_UTLB, "r");
	double t;
	void *base;

	if (!f) {
		printf("# r: no %s, skipped\n", REPLAY_UTLB);
		return;
	}
	if (!fgets(was, sizeof(was), f))
		die("%s: empty", REPLAY_UTLB);
	fclose(f);
	for (r = 0; r < B.reps; r++) {
		for (q = 0; q < 2; q++) {
			unsigned int m = (q + r) % 2;
			uint64_t *p = anon(size, PAGE, false, &base, &len);

			param_write(REPLAY_UTLB, pol[m]);
			for (k = 0; k < NRCNT; k++)
				before[k] = stat_get(rcnt[k]);
			for (k = 0; k < NRGCNT; k++)
				gbefore[k] = vgpu_stat_get(rgcnt[k]);
			t = gpu_run(NVSVM_OP_FILL, p, size, pat(r), &got);
			check_fill(p, size, pat(r));
			for (k = 0; k < NRCNT; k++)
				d[m][k] += stat_get(rcnt[k]) - before[k];
			for (k = 0; k < NRGCNT; k++)
				g[m][k] += vgpu_stat_get(rgcnt[k]) - gbefore[k];
			stall[m][r] = vgpu_stat_get("stall_us") - gbefore[0];
			wait[m][r] = stall[m][r] + vgpu_stat_get("lockdown_us") -
				     gbefore[1];
			v[m][r] = size / PAGE / t;
			unmap(base, len);
		}
	}
	param_write(REPLAY_UTLB, was);
	for (q = 0; q < 2; q++) {
		name_of(name, sizeof(name), tag[q], mib);
		printf("# %s ours counters over %u runs: faults %llu replays %llu replays_utlb %llu; GPU: stall_us %llu lockdown_us %llu faults %llu refaults %llu overflows %llu\n",
		       name, B.reps, (unsigned long long)d[q][0],
		       (unsigned long long)d[q][1], (unsigned long long)d[q][2],
		       (unsigned long long)g[q][0], (unsigned long long)g[q][1],
		       (unsigned long long)g[q][2], (unsigned long long)g[q][3],
		       (unsigned long long)g[q][4]);
		samples(name, "ours", "stall warp-us", stall[q], B.reps);
		samples(name, "ours", "stall + lockdown warp-us", wait[q],
			B.reps);
		samples(name, "ours", "pages/s", v[q], B.reps);
		result(name, "ours", median(stall[q], B.reps), "stall-warp-us");
		name_of(name, sizeof(name), q ? "r.utlb.wait" : "r.batch.wait",
			mib);
		result(name, "ours", median(wait[q], B.reps), "warp-us");
		name_of(name, sizeof(name), q ? "r.utlb.f" : "r.batch.f", mib);
		result(name, "ours", d[q][0] ? 1000.0 * d[q][1] / d[q][0] : 0,
		       "replays/1000faults");
		name_of(name, sizeof(name), q ? "r.utlb.f1" : "r.batch.f1",
			mib);
		result(name, "ours", g[q][2] > g[q][3] ?
		       1000.0 * d[q][1] / (g[q][2] - g[q][3]) : 0,
		       "replays/1000firstfaults");
		name_of(name, sizeof(name), q ? "r.utlb.b" : "r.batch.b", mib);
		result(name, "ours", median(v[q], B.reps), "pages/s");
	}
	name_of(name, sizeof(name), "r.stall", mib);
	result(name, "ours", median(stall[1], B.reps) /
	       median(stall[0], B.reps), "ratio");
	name_of(name, sizeof(name), "r.wait", mib);
	result(name, "ours", median(wait[1], B.reps) /
	       median(wait[0], B.reps), "ratio");
}

/* Write @v to nvsvm's thrashing_enable. */
static void thrash_enable(const char *v)
{
	param_write(THRASH_ENABLE, v);
}

/*
 * What the rounds of one mode cost: seconds in MIGRATE, EXEC FILL and the
 * CPU's turn, summed over the rounds whose MIGRATE moved pages ([1]) and
 * those where it moved none ([0]: the block pinned in system memory),
 * rounds of each, and the driver's counters (pp_stats[]).
 */
struct pp_cost {
	double phase[2][3];
	unsigned int rounds[2];
	uint64_t stats[7];
};

/*
 * One CPU/GPU ping-pong of PP_ROUNDS rounds on PP_PAGES pages: MIGRATE
 * them to VRAM, the GPU fills them with the round's number, the CPU checks
 * one word of each and writes another (taking each page back). Returns
 * rounds per second.
 */
static double ping_pong_rate(struct pp_cost *c)
{
	const size_t size = PP_PAGES * PAGE;
	struct nvsvm_op op;
	struct nvsvm_exec e;
	unsigned int r, i;
	uint64_t *p;
	void *base;
	size_t len;
	double t0, t;
	int ret;

	p = anon(HUGE, HUGE, false, &base, &len);
	populate(p, size);
	t0 = now();
	for (r = 1; r <= PP_ROUNDS; r++) {
		double ph[3];
		uint64_t moved;

		t = now();
		ret = nvsvm_migrate(B.fd, nvsvm_ptr(p), size,
				    NVSVM_MIGRATE_TO_VRAM, &moved);
		if (ret)
			die("MIGRATE: %s", strerror(-ret));
		ph[0] = now() - t;
		t = now();
		op = nvsvm_op_fill(nvsvm_ptr(p), size, r);
		ret = nvsvm_exec(B.fd, B.chan[0], 0, &op, 1, EXEC_TIMEOUT_MS,
				 &e);
		if (ret || e.status != NVSVM_EXEC_OK)
			die("EXEC FILL: %s", ret ? strerror(-ret) :
			    nvsvm_status_name(e.status));
		ph[1] = now() - t;
		t = now();
		for (i = 0; i < PP_PAGES; i++) {
			if (p[i * WORDS + 7] != r)
				die("ping-pong round %u: page %u holds %#llx",
				    r, i, (unsigned long long)p[i * WORDS + 7]);
			p[i * WORDS] = r;
		}
		ph[2] = now() - t;
		for (i = 0; i < 3; i++)
			c->phase[!!moved][i] += ph[i];
		c->rounds[!!moved]++;
	}
	t = now() - t0;
	unmap(base, len);
	return PP_ROUNDS / t;
}

/* The driver's counters a ping-pong round pays for, per mode. */
static const char *const pp_stats[] = {
	"faults", "batches", "replays", "invalidates", "migrated_to_vram",
	"migrated_to_sysmem", "thrash_skips",
};
#define PP_NSTATS	(sizeof(pp_stats) / sizeof(pp_stats[0]))
_Static_assert(PP_NSTATS == sizeof(((struct pp_cost *)0)->stats) /
	       sizeof(uint64_t), "pp_cost.stats holds pp_stats[]");

/* One ping_pong_rate(), adding what it cost to @c. */
static double ping_pong_counted(struct pp_cost *c)
{
	uint64_t before[PP_NSTATS];
	unsigned int i;
	double rate;

	for (i = 0; i < PP_NSTATS; i++)
		before[i] = stat_get(pp_stats[i]);
	rate = ping_pong_rate(c);
	for (i = 0; i < PP_NSTATS; i++)
		c->stats[i] += stat_get(pp_stats[i]) - before[i];
	return rate;
}

/*
 * "#" lines: the counters @c moved by over @reps runs of PP_ROUNDS
 * rounds, per round, and the time of each phase of the rounds that moved
 * pages and of those that did not, per round.
 */
static void ping_pong_costs(const char *mode, const struct pp_cost *c,
			    unsigned int reps)
{
	static const char *const kind[2] = { "moved none", "moved" };
	unsigned int i, k;

	printf("# p.%s per round:", mode);
	for (i = 0; i < PP_NSTATS; i++)
		printf(" %s %.2f", pp_stats[i],
		       (double)c->stats[i] / reps / PP_ROUNDS);
	printf("\n");
	for (k = 2; k-- > 0; ) {
		unsigned int n = c->rounds[k] ? c->rounds[k] : 1;

		printf("# p.%s %u rounds %s, us per round: migrate %.1f fill %.1f cpu %.1f\n",
		       mode, c->rounds[k], kind[k],
		       c->phase[k][0] * 1e6 / n, c->phase[k][1] * 1e6 / n,
		       c->phase[k][2] * 1e6 / n);
	}
}

/*
 * p: the ping-pong's rounds per second with thrashing detection on (the
 * module's parameters) against off, interleaved in the same run.
 */
static void ping_pong(void)
{
	struct pp_cost con = { 0 }, coff = { 0 };
	double on[MAX_REPS], off[MAX_REPS];
	uint64_t t0 = stat_get("thrashing");
	unsigned int r;

	for (r = 0; r < B.reps; r++) {
		thrash_enable("0");
		off[r] = ping_pong_counted(&coff);
		thrash_enable("1");
		on[r] = ping_pong_counted(&con);
	}
	printf("# p: %u rounds on %u pages; %llu blocks found thrashing\n",
	       PP_ROUNDS, PP_PAGES,
	       (unsigned long long)(stat_get("thrashing") - t0));
	ping_pong_costs("on", &con, B.reps);
	ping_pong_costs("off", &coff, B.reps);
	samples("p.on-64K", "ours", "rounds/s, detection on", on, B.reps);
	samples("p.off-64K", "ours", "rounds/s, detection off", off, B.reps);
	result("p.on-64K", "ours", median(on, B.reps), "rounds/s");
	result("p.off-64K", "ours", median(off, B.reps), "rounds/s");
}

#define EVICT_POLICY	"/sys/module/nvsvm/parameters/evict_policy"
#define OS_SEQ_SWEEPS	3
#define OS_HOT_STEPS	256
#define OS_TURN_ROUNDS	2

/* Write @v to nvsvm's evict_policy. */
static void evict_policy(const char *v)
{
	param_write(EVICT_POLICY, v);
}

/* Wait (up to 2 s) for the VRAM to be empty: munmap frees pages late. */
static void vram_empty(void)
{
	unsigned int i;

	for (i = 0; i < 200 && stat_get("vram_pages"); i++)
		usleep(10000);
	if (stat_get("vram_pages"))
		die("%llu pages still in VRAM before an oversubscription run",
		    (unsigned long long)stat_get("vram_pages"));
}

/* The counters of one oversubscription run, as os_stats[] names them. */
static const char *const os_stats[] = {
	"migrated_to_vram", "migrated_to_sysmem", "evicted_pages",
	"evictions", "thrashing", "thrash_skips", "faults",
	"evictions_bg", "ns_evict_sync", "batches", "ns_serve",
	"evictions_cold", "sampled_blocks", "sample_refaults", "ns_sample",
	"sample_idle", "vram_block_maps",
};
#define OS_NSTATS	(sizeof(os_stats) / sizeof(os_stats[0]))

/*
 * One run: seconds, of which in MIGRATE, in EXEC and in the CPU's turns;
 * blocks the GPU accessed; counter deltas.
 */
struct os_run {
	double secs, mig, exec, cpu;
	unsigned long steps, hot_vram;
	uint64_t stats[OS_NSTATS];
};

/* A fixed-seed generator (xorshift64), the same walk for both policies. */
static uint64_t os_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * One GPU access of block @b of @p: MIGRATE it to VRAM (the runtime's
 * prefetch before a kernel), then @code (SUM or FILL of @value) over its
 * 512 pages on the GPU; the times go to @r. Return: the SUM.
 */
static uint64_t os_access(struct os_run *r, uint64_t *p, unsigned long b,
			  int code, uint64_t value)
{
	uint64_t *blk = p + b * (HUGE / 8), sum;
	double t = now();
	int ret = nvsvm_migrate(B.fd, nvsvm_ptr(blk), HUGE,
				NVSVM_MIGRATE_TO_VRAM, NULL);

	if (ret)
		die("MIGRATE block %lu: %s", b, strerror(-ret));
	r->mig += now() - t;
	r->exec += gpu_run(code, blk, HUGE, value, &sum);
	r->steps++;
	return sum;
}

/* os_access() with a SUM, checked against @want. */
static void os_gpu_sum(struct os_run *r, uint64_t *p, unsigned long b,
		       uint64_t want)
{
	uint64_t sum = os_access(r, p, b, NVSVM_OP_SUM, 0);

	if (sum != want)
		die("oversubscription: block %lu sums to %#llx, expected %#llx",
		    b, (unsigned long long)sum, (unsigned long long)want);
}

#define OS_REC_ROUNDS	16
#define SAMPLE_CHUNKS	"/sys/module/nvsvm/parameters/sample_chunks"
#define SAMPLE_MS	"/sys/module/nvsvm/parameters/sample_ms"

/* An EXEC-only SUM of block @b (no MIGRATE: placed before), checked. */
static void os_exec_sum(struct os_run *r, uint64_t *p, unsigned long b,
			uint64_t want)
{
	uint64_t sum;

	r->exec += gpu_run(NVSVM_OP_SUM, p + b * (HUGE / 8), HUGE, 0, &sum);
	r->steps++;
	if (sum != want)
		die("recency: block %lu sums to %#llx, expected %#llx", b,
		    (unsigned long long)sum, (unsigned long long)want);
}

/* Pages of the 2 MiB block @b of @p the GPU maps in VRAM. */
static unsigned long os_vram_pages(uint64_t *p, unsigned long b)
{
	static uint32_t q[HUGE / PAGE];
	unsigned long i, n = 0;
	int ret = nvsvm_query(B.fd, nvsvm_ptr(p + b * (HUGE / 8)),
			      HUGE / PAGE, q);

	if (ret)
		die("QUERY: %s", strerror(-ret));
	for (i = 0; i < HUGE / PAGE; i++)
		n += !!(q[i] & NVSVM_QUERY_VRAM);
	return n;
}

/*
 * One run of @pattern on @nb 2 MiB blocks of fresh memory, filled with
 * pat() per word; see oversub() and oversub_recency() for the patterns.
 */
static void os_run(char pattern, unsigned long nb, struct os_run *r)
{
	const size_t size = nb * HUGE;
	uint64_t before[OS_NSTATS], *p, *sums, x = 0x5eed0f36ULL, w;
	unsigned long b, i, k, nhot = nb / 5 ? (nb + 2) / 5 : 1;
	void *base;
	size_t len;
	double t0;

	p = anon(size, HUGE, false, &base, &len);
	sums = calloc(nb, sizeof(*sums));
	if (!sums)
		die("calloc %lu sums", nb);
	for (i = 0; i < size / 8; i++) {
		p[i] = pat(i);
		sums[i / (HUGE / 8)] += pat(i);
	}
	vram_empty();
	for (i = 0; i < OS_NSTATS; i++)
		before[i] = stat_get(os_stats[i]);
	memset(r, 0, sizeof(*r));
	t0 = now();
	switch (pattern) {
	case 's':
		for (k = 0; k < OS_SEQ_SWEEPS; k++)
			for (b = 0; b < nb; b++)
				os_gpu_sum(r, p, b, sums[b]);
		break;
	case 'h':
		for (k = 0; k < OS_HOT_STEPS; k++) {
			if (os_rand(&x) % 10 < 9 || nhot == nb)
				b = os_rand(&x) % nhot;
			else
				b = nhot + os_rand(&x) % (nb - nhot);
			os_gpu_sum(r, p, b, sums[b]);
		}
		break;
	case 'f':
		/*
		 * VRAM free: each access's MIGRATE finds room (the run's
		 * blocks fit), then the block goes back (MIGRATE, not timed
		 * as the access's).
		 */
		for (k = 0; k < OS_SEQ_SWEEPS; k++)
			for (b = 0; b < nb; b++) {
				os_gpu_sum(r, p, b, sums[b]);
				if (nvsvm_migrate(B.fd,
						  nvsvm_ptr(p + b * (HUGE / 8)),
						  HUGE, NVSVM_MIGRATE_TO_SYSMEM,
						  NULL))
					die("MIGRATE block %lu back", b);
			}
		break;
	case 'r':
		/*
		 * The hot set (the first @nhot blocks, half the VRAM) is
		 * placed once (MIGRATE, EXEC), then used by EXEC alone; each
		 * round one cold block streams through (MIGRATE, EXEC), which
		 * evicts once VRAM is full. At the end the sampler stops (a
		 * pass under way has 100 ms to finish), the hot set is read
		 * once more (a sampled block faults back) and QUERY counts
		 * its pages still in VRAM.
		 */
		nhot = nb * 100 / 150 / 2 ? nb * 100 / 150 / 2 : 1;
		for (b = 0; b < nhot; b++)
			os_gpu_sum(r, p, b, sums[b]);
		for (k = 0; k < OS_REC_ROUNDS; k++) {
			for (b = 0; b < nhot; b++)
				os_exec_sum(r, p, b, sums[b]);
			b = nhot + k % (nb - nhot);
			os_gpu_sum(r, p, b, sums[b]);
		}
		param_write(SAMPLE_CHUNKS, "0");
		usleep(100000);
		for (b = 0; b < nhot; b++) {
			os_exec_sum(r, p, b, sums[b]);
			r->hot_vram += os_vram_pages(p, b);
		}
		r->hot_vram = r->hot_vram * 100 / (nhot * (HUGE / PAGE));
		break;
	case 't':
		/*
		 * The GPU sweeps the buffer (MIGRATE, FILL of the round's
		 * value), then the CPU checks a word of every page and writes
		 * another, which takes each page back to system memory.
		 */
		for (k = 1; k <= OS_TURN_ROUNDS; k++) {
			double t;

			for (b = 0; b < nb; b++)
				os_access(r, p, b, NVSVM_OP_FILL, k);
			t = now();
			for (i = 0; i < size / 8; i += WORDS) {
				w = p[i + 7];
				if (w != k)
					die("turns round %lu: word %lu is %#llx",
					    k, i + 7, (unsigned long long)w);
				p[i] = k;
			}
			r->cpu += now() - t;
		}
		break;
	}
	r->secs = now() - t0;
	for (i = 0; i < OS_NSTATS; i++)
		r->stats[i] = stat_get(os_stats[i]) - before[i];
	free(sums);
	unmap(base, len);
}

#define EVICT_LOW	"/sys/module/nvsvm/parameters/evict_low"
/* The watermark of the serve runs: 2 chunks (4 MiB) of free VRAM. */
#define OS_MARK		"2"

/* Print the "#" line of @n runs summed in @sum, named @name. */
static void os_line(const char *name, unsigned long nb,
		    const struct os_run *sum, unsigned int n)
{
	unsigned int i;

	printf("# %s %lu blocks, ms per access: migrate %.2f exec %.1f cpu %.1f; per run: %lu accesses",
	       name, nb, sum->mig * 1e3 / sum->steps,
	       sum->exec * 1e3 / sum->steps, sum->cpu * 1e3 / sum->steps,
	       sum->steps / n);
	for (i = 0; i < OS_NSTATS; i++)
		printf(" %s %.1f", os_stats[i], (double)sum->stats[i] / n);
	printf("\n");
}

static void os_add(struct os_run *sum, const struct os_run *run)
{
	unsigned int i;

	sum->steps += run->steps;
	sum->hot_vram += run->hot_vram;
	sum->secs += run->secs;
	sum->mig += run->mig;
	sum->exec += run->exec;
	sum->cpu += run->cpu;
	for (i = 0; i < OS_NSTATS; i++)
		sum->stats[i] += run->stats[i];
}

/*
 * o.serve (issue 36 item 4): the time a GPU access's MIGRATE takes (ms,
 * the mean of a run; median of REPS runs) at 150 % of the VRAM, seq and
 * hot with evict_policy lru, with nvsvm.evict_low 0 (off: the MIGRATE
 * that finds VRAM full evicts) and OS_MARK (the background evictor keeps
 * that much free), interleaved; against the same access with VRAM free
 * (o.serve.free: half the VRAM's blocks, each moved back after its
 * access, so that each MIGRATE moves a whole block into free VRAM).
 */
static void oversub_serve(uint64_t vram)
{
	static const char *const pname[] = { "seq", "hot" };
	static const char *const mark[] = { "0", OS_MARK };
	static const char *const on[] = { "off", "on" };
	static const char pats[] = "sh";
	unsigned long nb = (vram * 150 / 100 + HUGE - 1) / HUGE;
	unsigned long nf = vram / HUGE / 2 ? vram / HUGE / 2 : 1;
	double fr[MAX_REPS], ms[2][2][MAX_REPS], mf, m[2][2];
	struct os_run run, fsum = { 0 }, sum[2][2] = { 0 };
	unsigned int q, j, k, r;
	char name[48];

	printf("# o.serve: ms per MIGRATE of a 2 MiB block at 150 %% of VRAM, evict_policy lru, evict_low 0 (off) and " OS_MARK " chunks (on), against VRAM free\n");
	evict_policy("lru");
	for (r = 0; r < B.reps; r++) {
		param_write(EVICT_LOW, "0");
		os_run('f', nf, &run);
		fr[r] = run.mig * 1e3 / run.steps;
		os_add(&fsum, &run);
		for (q = 0; q < 2; q++) {
			for (j = 0; j < 2; j++) {
				/* off first in even repetitions. */
				k = j ^ (r & 1);
				param_write(EVICT_LOW, mark[k]);
				os_run(pats[q], nb, &run);
				ms[q][k][r] = run.mig * 1e3 / run.steps;
				os_add(&sum[q][k], &run);
			}
		}
	}
	param_write(EVICT_LOW, "0");
	samples("o.serve.free-150%", "ours", "ms per MIGRATE", fr, B.reps);
	os_line("o.serve.free-150%", nf, &fsum, B.reps);
	mf = median(fr, B.reps);
	result("o.serve.free-150%", "ours", mf, "ms");
	for (q = 0; q < 2; q++) {
		for (k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "o.serve.%s.%s-150%%",
				 pname[q], on[k]);
			samples(name, "ours", "ms per MIGRATE", ms[q][k], B.reps);
			os_line(name, nb, &sum[q][k], B.reps);
			m[q][k] = median(ms[q][k], B.reps);
			result(name, "ours", m[q][k], "ms");
		}
		printf("# o.serve.%s-150%%: MIGRATE over VRAM free: off %.2f, on %.2f (goal on <= 1.2)\n",
		       pname[q], mf > 0 ? m[q][0] / mf : 0,
		       mf > 0 ? m[q][1] / mf : 0);
	}
}

/*
 * o.recency (issue 36 item 3): pattern r at 150 % of the VRAM, a hot set
 * the GPU uses by EXEC alone after one placement, evict_policy lru, with
 * the recency sampler off ("off"), over every chunk every 10 ms ("all10",
 * the first measured setting), over every chunk every 100 ms ("all100")
 * and over a quarter of the chunks every 100 ms ("q100"), interleaved (the
 * order rotates per repetition); sample_free stays the module's (0:
 * sample under pressure only). Figures: MiB/s of blocks the GPU accessed
 * (median); "#" lines: the hot set's pages still in VRAM at the end (%,
 * mean), the counters (faults and ns_serve: what the refaults cost;
 * ns_sample: the passes; sample_idle: passes that found VRAM free
 * enough), per run.
 */
#define OS_REC_SETTINGS	4
static void oversub_recency(uint64_t vram)
{
	static const char *const tag[OS_REC_SETTINGS] = {
		"off", "all10", "all100", "q100"
	};
	static const char *const ms[OS_REC_SETTINGS] = {
		"10", "10", "100", "100"
	};
	unsigned long nb = (vram * 150 / 100 + HUGE - 1) / HUGE;
	unsigned long nch = vram / HUGE ? vram / HUGE : 1;
	double rate[OS_REC_SETTINGS][MAX_REPS];
	struct os_run run, sum[OS_REC_SETTINGS] = { 0 };
	char name[48], chunks[OS_REC_SETTINGS][16];
	unsigned int j, k, r;

	snprintf(chunks[0], sizeof(chunks[0]), "0");
	snprintf(chunks[1], sizeof(chunks[1]), "%lu", nch);
	snprintf(chunks[2], sizeof(chunks[2]), "%lu", nch);
	snprintf(chunks[3], sizeof(chunks[3]), "%lu", nch / 4 ? nch / 4 : 1);
	printf("# o.recency: a hot set of half the VRAM used by EXEC alone after one MIGRATE, a cold block streaming through per round, 150 %% of VRAM, evict_policy lru, recency sampler off, all10 (sample_chunks %s, sample_ms 10), all100 (%s, 100), q100 (%s, 100)\n",
	       chunks[1], chunks[2], chunks[3]);
	evict_policy("lru");
	for (r = 0; r < B.reps; r++) {
		for (j = 0; j < OS_REC_SETTINGS; j++) {
			k = (j + r) % OS_REC_SETTINGS;
			param_write(SAMPLE_MS, ms[k]);
			param_write(SAMPLE_CHUNKS, chunks[k]);
			os_run('r', nb, &run);
			rate[k][r] = run.steps * 2.0 / run.secs;
			os_add(&sum[k], &run);
		}
	}
	param_write(SAMPLE_CHUNKS, "0");
	param_write(SAMPLE_MS, "100");
	for (k = 0; k < OS_REC_SETTINGS; k++) {
		snprintf(name, sizeof(name), "o.recency.%s-150%%", tag[k]);
		samples(name, "ours", "MiB/s", rate[k], B.reps);
		os_line(name, nb, &sum[k], B.reps);
		printf("# %s: hot set in VRAM at the end %.0f %%\n", name,
		       (double)sum[k].hot_vram / B.reps);
		result(name, "ours", median(rate[k], B.reps), "MiB/s");
	}
}

/*
 * o: oversubscription (issue 36 item 1), once, on the GPU's VRAM V
 * (GET_INFO; guest.sh reloads nvsvm_vgpu with a small vram_mb for it):
 * working sets of 125, 150 and 200 % of V in 2 MiB blocks, three
 * patterns, each run with evict_policy=uvm (the baseline: allocation
 * order) and lru (nvsvm's), interleaved (uvm first, then lru first),
 * REPS times. A GPU access is a MIGRATE of a 2 MiB block to VRAM and a
 * GPU SUM (FILL for t) of it:
 *   s  sequential sweep: blocks 0..n-1, OS_SEQ_SWEEPS times
 *   h  hot set: OS_HOT_STEPS blocks of a fixed-seed walk, 90 % of them
 *      among the first 20 % of the blocks
 *   t  turns: OS_TURN_ROUNDS rounds of a GPU sweep (FILL) and a CPU
 *      sweep (a read and a write per page) of the same buffer
 * Figures: MiB/s of blocks the GPU accessed (median), and ("#" lines) the
 * time per access in MIGRATE, EXEC and the CPU's turns, and per run the
 * counters' means; the thrashing counters count blocks
 * (thrash_skips: MIGRATEs of a whole block left in system memory).
 * First o.recency: oversub_recency(); last o.serve: oversub_serve().
 */
static void oversub(uint64_t vram)
{
	static const unsigned int pct[] = { 125, 150, 200 };
	static const char *const pname[] = { "seq", "hot", "turns" };
	static const char pats[] = "sht";
	static const char *const pol[] = { "uvm", "lru" };
	unsigned long nb;
	unsigned int s, q, j, k, r;
	char name[48];

	oversub_recency(vram);
	printf("# o: VRAM %llu MiB; a GPU access: MIGRATE of a 2 MiB block, then EXEC over it; evict_policy uvm (baseline) and lru, interleaved\n",
	       (unsigned long long)(vram >> 20));
	for (q = 0; q < 3; q++) {
		for (s = 0; s < 3; s++) {
			double rate[2][MAX_REPS], med[2];
			struct os_run sum[2] = { 0 };

			nb = (vram * pct[s] / 100 + HUGE - 1) / HUGE;
			for (r = 0; r < B.reps; r++) {
				for (j = 0; j < 2; j++) {
					struct os_run run;

					/* uvm first in even repetitions. */
					k = j ^ (r & 1);
					evict_policy(pol[k]);
					os_run(pats[q], nb, &run);
					rate[k][r] = run.steps * 2.0 / run.secs;
					os_add(&sum[k], &run);
				}
			}
			for (k = 0; k < 2; k++) {
				snprintf(name, sizeof(name), "o.%s%s-%u%%",
					 pname[q], k ? "" : ".uvm", pct[s]);
				samples(name, "ours", "MiB/s", rate[k], B.reps);
				os_line(name, nb, &sum[k], B.reps);
				med[k] = median(rate[k], B.reps);
				result(name, "ours", med[k], "MiB/s");
			}
			/*
			 * The same ratio in the driver's own time (MIGRATE's:
			 * the moves, evictions and re-maps), without the
			 * model's EXEC, which TCG makes 10-20 ms per 2 MiB
			 * where a GP100 takes microseconds.
			 */
			printf("# o.%s-%u%%: lru/uvm %.3f; in MIGRATE time %.3f\n",
			       pname[q], pct[s], med[1] / med[0],
			       sum[1].mig > 0 ? sum[0].mig / sum[1].mig : 0);
		}
	}
	evict_policy("lru");
	oversub_serve(vram);
}


#define MIG_MAX_MIB	32

/*
 * One MIGRATE of @size bytes at @p to @target: seconds; every page moves
 * (else the run stops).
 */
static double mig_once(uint64_t *p, size_t size, uint32_t target)
{
	uint64_t moved = 0;
	double t = now();
	int ret = nvsvm_migrate(B.fd, nvsvm_ptr(p), size, target, &moved);

	t = now() - t;
	if (ret)
		die("MIGRATE: %s", strerror(-ret));
	if (moved != size / PAGE)
		die("MIGRATE %s moved %llu of %zu pages",
		    target == NVSVM_MIGRATE_TO_VRAM ? "to VRAM" : "to sysmem",
		    (unsigned long long)moved, size / PAGE);
	return t;
}

/* Blocks of [@p, @p + @size) the GPU maps with one 2 MiB PTE in VRAM. */
static size_t vram_2m_blocks(const uint64_t *p, size_t size)
{
	uint32_t q;
	size_t b, n = 0;
	int ret;

	for (b = 0; b < size / HUGE; b++) {
		ret = nvsvm_query(B.fd, nvsvm_ptr(p + b * HUGE / 8), 1, &q);
		if (ret)
			die("QUERY: %s", strerror(-ret));
		n += (q & NVSVM_QUERY_VRAM) && NVSVM_QUERY_SHIFT(q) == 21;
	}
	return n;
}

/*
 * m: MIGRATE throughput (issue 37 item 2): @size bytes of populated
 * anonymous memory, of 4 KiB pages (MADV_NOHUGEPAGE) or of THPs
 * (MADV_HUGEPAGE, 2 MiB aligned: @thp), moved to VRAM and back REPS
 * times, thrashing detection off (the same blocks move every round);
 * GB/s of each direction (median). The notes say how many blocks the GPU
 * mapped with 2 MiB VRAM pages and how much was THP after the moves back;
 * the data is checked after the last one.
 */
static void migrate_rate(size_t size, bool thp)
{
	double to[MAX_REPS], back[MAX_REPS];
	const char *k = thp ? "2m" : "4k";
	size_t len, big = 0;
	uint64_t *p, sum, s = 0, i;
	char name[64];
	unsigned int r;
	void *base;

	p = anon(size, HUGE, thp, &base, &len);
	sum = populate(p, size);
	printf("# m.%s: %.0f %% THP before\n", k, thp_percent(p, size));
	thrash_enable("0");
	for (r = 0; r < B.reps; r++) {
		vram_empty();
		to[r] = size / mig_once(p, size, NVSVM_MIGRATE_TO_VRAM) / 1e9;
		if (!r)
			big = vram_2m_blocks(p, size);
		back[r] = size / mig_once(p, size, NVSVM_MIGRATE_TO_SYSMEM) /
			  1e9;
	}
	thrash_enable("1");
	printf("# m.%s: %zu of %zu blocks in 2 MiB VRAM pages; %.0f %% THP after the moves back\n",
	       k, big, size / HUGE, thp_percent(p, size));
	for (i = 0; i < size / PAGE; i++)
		s += p[i * WORDS];
	if (s != sum)
		die("m.%s: data changed by the moves", k);
	unmap(base, len);
	snprintf(name, sizeof(name), "m.vram.%s-%zuM", k, size / MIB);
	samples(name, "ours", "GB/s to VRAM", to, B.reps);
	result(name, "ours", median(to, B.reps), "GB/s");
	snprintf(name, sizeof(name), "m.sys.%s-%zuM", k, size / MIB);
	samples(name, "ours", "GB/s to system memory", back, B.reps);
	result(name, "ours", median(back, B.reps), "GB/s");
}

/*
 * m: both page sizes on half the VRAM (at most MIG_MAX_MIB MiB), so that
 * no move evicts and whole 2 MiB chunks are free.
 */
static void migrate_rates(uint64_t vram, uint32_t caps)
{
	size_t size = vram / 2 / HUGE * HUGE;

	if (size > MIG_MAX_MIB * MIB)
		size = MIG_MAX_MIB * MIB;
	if (!size)
		die("m: VRAM of %llu bytes, under 4 MiB",
		    (unsigned long long)vram);
	printf("# m: MIGRATE of %zu MiB to VRAM and back; %s\n", size / MIB,
	       caps & NVSVM_CAP_VRAM_2M ?
	       "NVSVM_CAP_VRAM_2M: THPs move as 2 MiB VRAM pages" :
	       "no NVSVM_CAP_VRAM_2M: m.*.2m n/a (THPs would move as 4 KiB VRAM pages)");
	migrate_rate(size, false);
	if (caps & NVSVM_CAP_VRAM_2M)
		migrate_rate(size, true);
}
/*
 * k: run one launch of @l (1-dimensional, groups of 64) on channel 0 and
 * print its instructions per second and the fault counters it moved.
 */
static void kernel_run(const char *name, struct nvsvm_launch *l)
{
	uint64_t f0 = vgpu_stat_get("faults"), r0 = vgpu_stat_get("replays");
	uint64_t b0 = stat_get("batches");
	uint64_t h0 = vgpu_stat_get("tlb_hits");
	uint64_t m0 = vgpu_stat_get("tlb_misses");
	double t;
	int ret;

	l->handle = B.chan[0];
	t = now();
	ret = nvsvm_launch(B.fd, l);
	t = now() - t;
	if (ret)
		die("%s: LAUNCH: %s", name, strerror(-ret));
	if (l->status != NVSVM_EXEC_OK)
		die("%s: status %s (trap %s at pc %#llx, address %#llx)", name,
		    nvsvm_status_name(l->status), nvsvm_trap_name(l->trap),
		    (unsigned long long)l->fault_pc,
		    (unsigned long long)l->fault_addr);
	printf("# %s: %llu instructions in %.3f s, %llu work-groups; vgpu faults +%llu, replays +%llu, TLB hits +%llu, misses +%llu; core batches +%llu\n",
	       name, (unsigned long long)l->insns, t,
	       (unsigned long long)l->groups_done,
	       (unsigned long long)(vgpu_stat_get("faults") - f0),
	       (unsigned long long)(vgpu_stat_get("replays") - r0),
	       (unsigned long long)(vgpu_stat_get("tlb_hits") - h0),
	       (unsigned long long)(vgpu_stat_get("tlb_misses") - m0),
	       (unsigned long long)(stat_get("batches") - b0));
	result(name, "ours", l->insns / t, "insn/s");
}

#define K_PAGES		4096	/* touch: 16 MiB */
#define K_SAXPY		(64 * 1024)
#define K_DOT_N		512
#define K_DOT_K		512
#define K_LISTS		64
#define K_NODES		256

static void kernels(void)
{
	struct nvsvm_launch l;
	unsigned int i, j, r;
	size_t len;
	void *base;

	{	/* touch: one store per page of fresh memory, all faults */
		uint64_t *p = anon(K_PAGES * PAGE, PAGE, false, &base,
				   &len);
		struct touch_args a = {
			.base = (uintptr_t)p, .stride = PAGE, .pattern = 0xbe7c,
		};

		nvsvm_launch_init(&l, 0, gpu_touch_image, GPU_TOUCH_SIZE,
				  GPU_TOUCH_TOUCH, &a, sizeof(a), K_PAGES, 64);
		kernel_run("k.touch-16M", &l);
		for (i = 0; i < K_PAGES; i++)
			if (p[i * WORDS] != (a.pattern ^ i))
				die("k.touch: page %u holds %#llx", i,
				    (unsigned long long)p[i * WORDS]);
		unmap(base, len);
	}
	{	/* saxpy, single precision, checked bit for bit */
		float *x = malloc(K_SAXPY * 4), *y = malloc(K_SAXPY * 4);
		struct saxpy_args a = {
			.x = (uintptr_t)x, .y = (uintptr_t)y, .a = 1.5f,
		};

		if (!x || !y)
			die("k.saxpy: out of memory");
		for (i = 0; i < K_SAXPY; i++) {
			x[i] = i * 0.25f;
			y[i] = 1.0f / (i + 1);
		}
		nvsvm_launch_init(&l, 0, gpu_float_image, GPU_FLOAT_SIZE,
				  GPU_FLOAT_SAXPY, &a, sizeof(a), K_SAXPY, 64);
		kernel_run("k.saxpy-0M", &l);
		for (i = 0; i < K_SAXPY; i++) {
			float want = a.a * x[i] + 1.0f / (i + 1);

			if (memcmp(&want, &y[i], 4))
				die("k.saxpy: y[%u] = %a, expected %a", i,
				    y[i], want);
		}
		free(x);
		free(y);
	}
	{	/* ddot: K_DOT_N dot products of K_DOT_K doubles */
		double *u = malloc(K_DOT_N * K_DOT_K * 8);
		double *v = malloc(K_DOT_K * 8), *dot = calloc(K_DOT_N, 8);
		struct ddot_args a = {
			.u = (uintptr_t)u, .v = (uintptr_t)v,
			.dot = (uintptr_t)dot, .n = K_DOT_K,
		};

		if (!u || !v || !dot)
			die("k.ddot: out of memory");
		for (i = 0; i < K_DOT_N * K_DOT_K; i++)
			u[i] = 1.0 / (i + 3);
		for (j = 0; j < K_DOT_K; j++)
			v[j] = j * 0.5 - 7;
		nvsvm_launch_init(&l, 0, gpu_float_image, GPU_FLOAT_SIZE,
				  GPU_FLOAT_DDOT, &a, sizeof(a), K_DOT_N, 64);
		kernel_run("k.ddot-0M", &l);
		/* Again on the same memory, mapped now: the model alone. */
		for (r = 0; r < B.reps; r++) {
			memset(dot, 0, K_DOT_N * 8);
			kernel_run("k.ddot-warm", &l);
		}
		for (i = 0; i < K_DOT_N; i++) {
			double want = 0;

			for (j = 0; j < K_DOT_K; j++)
				want += u[i * K_DOT_K + j] * v[j];
			if (memcmp(&want, &dot[i], 8))
				die("k.ddot: dot[%u] = %a, expected %a", i,
				    dot[i], want);
		}
		free(u);
		free(v);
		free(dot);
	}
	{	/* chase: K_LISTS lists of K_NODES malloc'd nodes */
		static struct gpu_node *nodes[K_LISTS * K_NODES];
		uint64_t heads[K_LISTS], sums[K_LISTS], counts[K_LISTS];
		struct chase_args a = {
			.heads = (uintptr_t)heads, .sums = (uintptr_t)sums,
			.counts = (uintptr_t)counts,
		};

		for (i = 0; i < K_LISTS * K_NODES; i++) {
			nodes[i] = malloc(sizeof(*nodes[i]));
			if (!nodes[i])
				die("k.chase: out of memory");
			nodes[i]->val = i;
		}
		for (i = 0; i < K_LISTS * K_NODES; i++)	/* interleaved */
			nodes[i]->next = i + K_LISTS < K_LISTS * K_NODES ?
				(uintptr_t)nodes[i + K_LISTS] : 0;
		for (i = 0; i < K_LISTS; i++)
			heads[i] = (uintptr_t)nodes[i];
		nvsvm_launch_init(&l, 0, gpu_chase_image, GPU_CHASE_SIZE,
				  GPU_CHASE_CHASE, &a, sizeof(a), K_LISTS, 64);
		kernel_run("k.chase-0M", &l);
		for (i = 0; i < K_LISTS; i++)
			if (counts[i] != K_NODES ||
			    sums[i] != (uint64_t)K_NODES * i +
				       (uint64_t)K_LISTS * K_NODES *
				       (K_NODES - 1) / 2)
				die("k.chase: list %u: %llu nodes, sum %llu", i,
				    (unsigned long long)counts[i],
				    (unsigned long long)sums[i]);
		for (i = 0; i < K_LISTS * K_NODES; i++)
			free(nodes[i]);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [-r REPS] [-g GPCS] [-W WARPS] [-w WORKLOADS] [-t TSC_MHZ] [-P] SIZE_MIB...\n"
		"Workloads (default abcdefghkmpr): a first-touch read, b first-touch\n"
		"write (and f, its fault counters), c MAP (and g, page-table\n"
		"bytes), d munmap slowdown, e munmap of 1 GiB with one page mapped,\n"
		"h a and b on THP, k compiled programs (LAUNCH), m MIGRATE GB/s,\n"
		"4 KiB against 2 MiB pages, p CPU/GPU\n"
		"ping-pong, thrashing detection on\n"
		"against off; r b under each replay policy (nvsvm.replay_utlb),\n"
		"stall warp-us and replays; o oversubscription, evict_policy lru against uvm\n"
		"(not by default; needs no SIZE_MIB when alone). The peer is\n"
		PEER_DEV " (lib/test_hmm.ko).\n",
		prog);
}

int main(int argc, char **argv)
{
	const char *work = "abcdefghkmpr";
	struct nvsvm_get_info info;
	unsigned int gpcs = 0, i;
	bool no_peer = false;
	double tsc_mhz = 0;
	int c, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	B.reps = 3;
	while ((c = getopt(argc, argv, "r:g:W:w:t:Ph")) != -1) {
		switch (c) {
		case 'W':
			B.warps = strtoul(optarg, NULL, 0);
			break;
		case 't':
			tsc_mhz = strtod(optarg, NULL);
			break;
		case 'r':
			B.reps = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			gpcs = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			work = optarg;
			break;
		case 'P':
			no_peer = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if ((optind >= argc && strpbrk(work, "abcdfghr")) || B.reps < 1 || B.reps > MAX_REPS ||
	    gpcs > MAX_GPCS || B.warps < 1 || B.warps > NVSVM_EXEC_MAX_OPS) {
		usage(stderr);
		return 2;
	}

	B.fd = nvsvm_open(0);
	if (B.fd < 0)
		die("open /dev/nvsvm0: %s", strerror(-B.fd));
	ret = nvsvm_get_info(B.fd, &info);
	if (ret)
		die("GET_INFO: %s", strerror(-ret));
	if (!(info.caps & NVSVM_CAP_EXEC))
		die("the GPU cannot EXEC (not the virtual GP100?)");
	B.gpcs = gpcs ? gpcs : info.gpc_count;
	if (B.gpcs > info.gpc_count || B.gpcs > MAX_GPCS)
		die("%u GPCs asked, the GPU has %u", B.gpcs, info.gpc_count);
	ret = nvsvm_area_init(B.fd, 0, 0);
	if (ret)
		die("AREA_INIT: %s", strerror(-ret));
	for (i = 0; i < B.gpcs; i++) {
		ret = nvsvm_chan_create(B.fd, NVSVM_CHAN_JOIN_AREA, &B.chan[i]);
		if (ret)
			die("CHAN_CREATE: %s", strerror(-ret));
	}
	if (HAVE_PEER && !no_peer) {
		B.peer = open(PEER_DEV, O_RDWR | O_CLOEXEC);
		if (B.peer < 0)
			printf("# peer: %s: %s; no peer figures\n", PEER_DEV,
			       strerror(errno));
	}
	clock_calibrate(tsc_mhz * 1e6);
	printf("# nvsvm-bench: %u repetitions (median), %u GPCs of %u, peer %s\n",
	       B.reps, B.gpcs, info.gpc_count,
	       B.peer >= 0 ? PEER_DEV : "none");

	for (i = optind; i < (unsigned int)argc; i++) {
		size_t mib = strtoul(argv[i], NULL, 0);

		if (!mib || mib % 2)
			die("bad size %s MiB", argv[i]);
		a_rate = 0;
		if (strchr(work, 'a'))
			first_touch(mib, false, false);
		if (strchr(work, 'b') || strchr(work, 'f'))
			first_touch(mib, true, false);
		if (strchr(work, 'c') || strchr(work, 'g'))
			map_populated(mib);
		if (strchr(work, 'd')) {
			munmap_ratio("d", mib, 0, false);
			if (B.peer >= 0)
				munmap_ratio("d", mib, 0, true);
		}
		if (strchr(work, 'h')) {
			first_touch(mib, false, true);
			first_touch(mib, true, true);
		}
		if (strchr(work, 'r'))
			replay_policies(mib);
	}
	if (strchr(work, 'e'))
		munmap_ratio("e", 1024, 1, false);
	if (strchr(work, 'k'))
		kernels();
	if (strchr(work, 'p')) {
		if (info.caps & NVSVM_CAP_DEVICE_PRIVATE)
			ping_pong();
		else
			printf("# p: no device-private memory, skipped\n");
	}
	if (strchr(work, 'm')) {
		if (info.caps & NVSVM_CAP_DEVICE_PRIVATE)
			migrate_rates(info.vram_size, info.caps);
		else
			printf("# m: no device-private memory, skipped\n");
	}
	if (strchr(work, 'o')) {
		if (info.caps & NVSVM_CAP_DEVICE_PRIVATE)
			oversub(info.vram_size);
		else
			printf("# o: no device-private memory, skipped\n");
	}
	return 0;
}
