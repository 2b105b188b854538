// SPDX-License-Identifier: GPL-2.0
/*
 * Stress, bounded in time: GPU workers on several channels and GPCs fill
 * and sum patterns in a set of slots while CPU threads munmap/mmap,
 * mprotect (read-only and none), madvise(MADV_DONTNEED), mremap away and
 * back, and fork over the same slots.
 *
 * Rules the data must follow (checked under the slot's lock):
 * - a program that completed (EXEC OK) on a slot that no destructive CPU
 *   operation (munmap, DONTNEED) touched meanwhile wrote every word: the
 *   CPU reads the pattern in each word, and the GPU's SUM agrees;
 * - a cancelled access (EXEC FAULT) is expected only when a CPU operation
 *   ran on that slot meanwhile, and its address is in the slot; a cancel
 *   on a slot that no CPU operation touched is a failure;
 * - no program times out (a lost fault or replay would).
 * Afterwards every page table is released. Figures are printed as notes.
 *
 *	stress [seconds]	(or NVSVM_STRESS_SECONDS; default 30)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "common.h"

#define DEF_SECONDS	30
#define SLOTS		16
#define SLOT_PAGES	16
#define SLOT_BYTES	(SLOT_PAGES * PAGE)
#define SLOT_WORDS	(SLOT_BYTES / 8)
#define MAX_GPU		4
#define CPU_THREADS	2
#define EXEC_MS		30000

enum { M_REMAP, M_PROT_RO, M_PROT_NONE, M_DONTNEED, M_MREMAP, M_FORK,
       M_COUNT };
static const char *const m_names[M_COUNT] = {
	"munmap+mmap", "mprotect-ro", "mprotect-none", "dontneed", "mremap",
	"fork",
};

struct slot {
	pthread_mutex_t lock;	/* CPU operations and CPU checks */
	pthread_mutex_t gpu;	/* one GPU writer at a time */
	unsigned int gen;	/* odd while a CPU operation runs */
	unsigned int destroyed;	/* destructive CPU operations */
	uint8_t *addr;
};

static struct slot slots[SLOTS];
static uint8_t *spare;		/* mremap destinations, one per thread */
static volatile int stop;
static unsigned int seconds = DEF_SECONDS;
static int fd;

struct gstats {
	unsigned long execs, ok, faults, checked_words, unchecked, maps,
		      map_err;
	char err[256];
	int bad;
};

struct gpu_worker {
	pthread_t t;
	unsigned int gpc;
	uint32_t chan;
	uint64_t rng;
	struct gstats s;
};

static unsigned long mut[M_COUNT];
static char cpu_err[256];
static int cpu_bad;

static uint64_t xs(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static unsigned int ld(unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void bump(unsigned int *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_ACQ_REL);
}

static void __attribute__((format(printf, 3, 4)))
fail(int *bad, char *buf, const char *fmt, ...)
{
	va_list ap;

	if ((*bad)++)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, 256, fmt, ap);
	va_end(ap);
}

/* Check the slot's words under its lock; 0 or the index of a bad word + 1. */
static size_t check_words(const uint64_t *p, uint64_t v)
{
	size_t i;

	for (i = 0; i < SLOT_WORDS; i++)
		if (p[i] != v)
			return i + 1;
	return 0;
}

static void gpu_step(struct gpu_worker *w)
{
	unsigned int i = xs(&w->rng) % SLOTS, g0, d0, g1, d1;
	struct slot *s = &slots[i];
	uint64_t v = (uint64_t)(w->gpc + 1) << 56 | (w->s.execs & 0xffffffffffULL);
	uint64_t a = nvsvm_ptr(s->addr);
	struct nvsvm_op ops[2] = {
		nvsvm_op_fill(a, SLOT_BYTES, v),
		nvsvm_op_sum(a, SLOT_BYTES),
	};
	struct nvsvm_exec e;
	size_t bad;
	int ret;

	if (pthread_mutex_trylock(&s->gpu))
		return;
	g0 = ld(&s->gen);
	d0 = ld(&s->destroyed);
	if (g0 & 1)
		goto out;
	if (!(xs(&w->rng) % 4)) {
		w->s.maps++;
		if (nvsvm_map(fd, a, SLOT_BYTES,
			      NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL))
			w->s.map_err++;
	}
	w->s.execs++;
	ret = nvsvm_exec(fd, w->chan, w->gpc, ops, 2, EXEC_MS, &e);
	if (ret) {
		fail(&w->s.bad, w->s.err, "EXEC: %s", strerror(-ret));
		goto out;
	}
	pthread_mutex_lock(&s->lock);
	g1 = s->gen;
	d1 = s->destroyed;
	switch (e.status) {
	case NVSVM_EXEC_OK:
		w->s.ok++;
		if (d1 != d0) {
			w->s.unchecked++;
			break;
		}
		bad = check_words((const uint64_t *)s->addr, v);
		if (bad)
			fail(&w->s.bad, w->s.err,
			     "slot %u word %zu: %#llx, the GPU wrote %#llx (gen %u..%u)",
			     i, bad - 1,
			     (unsigned long long)((uint64_t *)s->addr)[bad - 1],
			     (unsigned long long)v, g0, g1);
		else if (ops[1].result != v * SLOT_WORDS)
			fail(&w->s.bad, w->s.err,
			     "slot %u: GPU sum %#llx, expected %#llx", i,
			     (unsigned long long)ops[1].result,
			     (unsigned long long)(v * SLOT_WORDS));
		else
			w->s.checked_words += SLOT_WORDS;
		break;
	case NVSVM_EXEC_FAULT:
		w->s.faults++;
		if (g1 == g0)
			fail(&w->s.bad, w->s.err,
			     "slot %u: access cancelled at %#llx (%s) with no CPU operation on it",
			     i, (unsigned long long)e.fault_addr,
			     nvsvm_access_name(e.fault_access));
		else if (e.fault_addr < a || e.fault_addr >= a + SLOT_BYTES)
			fail(&w->s.bad, w->s.err,
			     "slot %u: fault at %#llx, outside [%#llx, +%#llx)",
			     i, (unsigned long long)e.fault_addr,
			     (unsigned long long)a, SLOT_BYTES);
		break;
	default:
		fail(&w->s.bad, w->s.err, "slot %u: EXEC status %s", i,
		     nvsvm_status_name(e.status));
	}
	pthread_mutex_unlock(&s->lock);
	if (e.status != NVSVM_EXEC_OK) {
		nvsvm_chan_destroy(fd, w->chan);
		ret = nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &w->chan);
		if (ret) {
			fail(&w->s.bad, w->s.err, "CHAN_CREATE: %s",
			     strerror(-ret));
			stop = 1;
		}
	}
out:
	pthread_mutex_unlock(&s->gpu);
}

static void *gpu_thread(void *arg)
{
	struct gpu_worker *w = arg;

	while (!stop && !w->s.bad)
		gpu_step(w);
	return NULL;
}

static void cpu_op(unsigned int t, uint64_t *rng)
{
	unsigned int i = xs(rng) % SLOTS, m = xs(rng) % M_COUNT;
	struct slot *s = &slots[i];
	uint8_t *tmp = spare + t * SLOT_BYTES;
	void *p;
	pid_t pid;
	int st;

	pthread_mutex_lock(&s->lock);
	bump(&s->gen);
	switch (m) {
	case M_REMAP:
		bump(&s->destroyed);
		if (munmap(s->addr, SLOT_BYTES))
			goto err;
		p = mmap(s->addr, SLOT_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p != s->addr)
			goto err;
		break;
	case M_PROT_RO:
	case M_PROT_NONE:
		if (mprotect(s->addr, SLOT_BYTES,
			     m == M_PROT_RO ? PROT_READ : PROT_NONE))
			goto err;
		sched_yield();
		if (mprotect(s->addr, SLOT_BYTES, PROT_READ | PROT_WRITE))
			goto err;
		break;
	case M_DONTNEED:
		bump(&s->destroyed);
		if (madvise(s->addr, SLOT_BYTES, MADV_DONTNEED))
			goto err;
		break;
	case M_MREMAP:
		p = mremap(s->addr, SLOT_BYTES, SLOT_BYTES,
			   MREMAP_MAYMOVE | MREMAP_FIXED, tmp);
		if (p != tmp)
			goto err;
		sched_yield();
		p = mremap(tmp, SLOT_BYTES, SLOT_BYTES,
			   MREMAP_MAYMOVE | MREMAP_FIXED, s->addr);
		if (p != s->addr)
			goto err;
		/* Keep the spare range reserved (mremap left a hole). */
		if (mmap(tmp, SLOT_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED | MAP_NORESERVE, -1, 0) != tmp)
			goto err;
		break;
	case M_FORK:
		/* The child writes its copy: the parent's data must not move. */
		pid = fork();
		if (pid < 0)
			goto err;
		if (!pid) {
			memset(s->addr, 0xc1, SLOT_BYTES);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			goto err;
		break;
	}
	__atomic_add_fetch(&mut[m], 1, __ATOMIC_RELAXED);
	bump(&s->gen);
	pthread_mutex_unlock(&s->lock);
	return;
err:
	fail(&cpu_bad, cpu_err, "%s on slot %u: %s", m_names[m], i,
	     strerror(errno));
	stop = 1;
	bump(&s->gen);
	pthread_mutex_unlock(&s->lock);
}

static void *cpu_thread(void *arg)
{
	unsigned int t = (unsigned int)(uintptr_t)arg;
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (t + 1);

	while (!stop)
		cpu_op(t, &rng);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The device is opened after the slots are set up and closed before the end. */
TEST(stress)
{
	static const char *const stats[] = { "faults", "fault_dups", "batches",
		"replays", "cancels", "invalidates", "stale" };
	static struct gpu_worker gw[MAX_GPU];
	uint64_t s0[7] = { 0 }, s1[7] = { 0 }, pt0 = 0, pm0 = 0;
	unsigned int ngpu = info.gpc_count < MAX_GPU ? info.gpc_count : MAX_GPU;
	pthread_t ct[CPU_THREADS];
	struct gstats tot = { 0 };
	unsigned int i, k;
	uint8_t *base;
	double t0;
	int have;

	ASSERT_PASS(areas_settled(0));
	have = !nvsvm_stat_read(0, "pt_bytes", &pt0) &&
	       !nvsvm_stat_read(0, "pages_mapped", &pm0);
	base = mmap(NULL, (SLOTS + CPU_THREADS) * 2 * SLOT_BYTES, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, base);
	/* Slots two slot-sizes apart, so that VMAs never merge. */
	for (i = 0; i < SLOTS; i++) {
		slots[i].addr = base + 2 * i * SLOT_BYTES;
		pthread_mutex_init(&slots[i].lock, NULL);
		pthread_mutex_init(&slots[i].gpu, NULL);
		ASSERT_EQ(0, mprotect(slots[i].addr, SLOT_BYTES,
				      PROT_READ | PROT_WRITE));
	}
	spare = base + 2 * SLOTS * SLOT_BYTES;
	fd = nvsvm_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	for (k = 0; k < ARRAY_SIZE(stats); k++)
		nvsvm_stat_read(0, stats[k], &s0[k]);
	for (i = 0; i < ngpu; i++) {
		gw[i].gpc = i;
		gw[i].rng = 0x1234567ULL * (i + 1);
		ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA,
					       &gw[i].chan));
	}
	t0 = now_s();
	for (i = 0; i < ngpu; i++)
		ASSERT_EQ(0, pthread_create(&gw[i].t, NULL, gpu_thread, &gw[i]));
	for (i = 0; i < CPU_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&ct[i], NULL, cpu_thread,
					    (void *)(uintptr_t)i));
	while (!stop && now_s() - t0 < seconds)
		usleep(100000);
	stop = 1;
	for (i = 0; i < ngpu; i++)
		pthread_join(gw[i].t, NULL);
	for (i = 0; i < CPU_THREADS; i++)
		pthread_join(ct[i], NULL);
	for (k = 0; k < ARRAY_SIZE(stats); k++)
		nvsvm_stat_read(0, stats[k], &s1[k]);
	for (i = 0; i < ngpu; i++) {
		tot.execs += gw[i].s.execs;
		tot.ok += gw[i].s.ok;
		tot.faults += gw[i].s.faults;
		tot.checked_words += gw[i].s.checked_words;
		tot.unchecked += gw[i].s.unchecked;
		tot.maps += gw[i].s.maps;
		tot.map_err += gw[i].s.map_err;
	}
	TH_LOG("%.1f s, %u GPU workers, %u CPU threads, %u slots of %u pages",
	       now_s() - t0, ngpu, CPU_THREADS, SLOTS, SLOT_PAGES);
	TH_LOG("GPU: %lu programs, %lu ok (%lu checked, %lu words; %lu after a destructive CPU op), %lu cancelled; %lu MAPs (%lu failed)",
	       tot.execs, tot.ok, tot.ok - tot.unchecked,
	       tot.checked_words, tot.unchecked, tot.faults, tot.maps,
	       tot.map_err);
	TH_LOG("CPU: %s %lu, %s %lu, %s %lu, %s %lu, %s %lu, %s %lu",
	       m_names[0], mut[0], m_names[1], mut[1], m_names[2], mut[2],
	       m_names[3], mut[3], m_names[4], mut[4], m_names[5], mut[5]);
	TH_LOG("driver: faults %llu, dups %llu, batches %llu, replays %llu, cancels %llu, invalidates %llu, stale %llu",
	       (unsigned long long)(s1[0] - s0[0]),
	       (unsigned long long)(s1[1] - s0[1]),
	       (unsigned long long)(s1[2] - s0[2]),
	       (unsigned long long)(s1[3] - s0[3]),
	       (unsigned long long)(s1[4] - s0[4]),
	       (unsigned long long)(s1[5] - s0[5]),
	       (unsigned long long)(s1[6] - s0[6]));
	ASSERT_EQ(0, cpu_bad) {
		TH_LOG("CPU thread: %s", cpu_err);
	}
	for (i = 0; i < ngpu; i++)
		ASSERT_EQ(0, gw[i].s.bad) {
			TH_LOG("GPU worker %u: %s", i, gw[i].s.err);
		}
	ASSERT_TRUE(tot.ok - tot.unchecked > 0) {
		TH_LOG("no program was checked");
	}
	/* The first CPU operation that never ran, if any. */
	for (k = 0; k < M_COUNT; k++)
		if (!mut[k])
			break;
	ASSERT_EQ(M_COUNT, k) {
		TH_LOG("no %s ran", k < M_COUNT ? m_names[k] : "?");
	}
	/* Everything comes back. */
	close(fd);
	if (have)
		ASSERT_PASS(stats_become(0, "pt_bytes", pt0, "pages_mapped",
					 pm0));
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : getenv("NVSVM_STRESS_SECONDS");

	if (s && *s)
		seconds = strtoul(s, NULL, 0);
	/* The case's timeout follows its length: the harness's object of TEST(stress). */
	_stress_object.timeout = seconds + 180;
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
