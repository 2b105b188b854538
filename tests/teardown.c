// SPDX-License-Identifier: GPL-2.0
/*
 * Teardown while the GPU is working: close of the descriptor by another
 * thread during EXEC, AREA_FINI, CHAN_DESTROY and munmap while faults are in
 * flight, SIGKILL and exit of a process in the middle of a fault storm, the
 * mapping replaced under the GPU, and a storm from every GPC (with a tiny
 * fault buffer, tests/guest-overflow.sh makes it overflow).
 *
 * In every case a second process (the bystander) runs verified GPU work on
 * its own memory from several GPCs at once; its results must stay exact:
 * a stale fault of the process being torn down must never cancel it. After
 * each case the device still serves faults and its page-table memory and
 * mapped-page counters are back where they started.
 *
 * Modes (environment):
 *   NVSVM_TEARDOWN_STORM=1   run only the storm, and require the fault
 *                            buffer to overflow (tests/guest-overflow.sh)
 *   NVSVM_TEARDOWN_HOLD=1    keep an area, a channel and GPU work going
 *                            until stdin reaches EOF, then check the data
 *                            and exit 0 (tests/guest-lifecycle.sh)
 *   NVSVM_TEARDOWN_CASES=a,b run only the cases named
 *
 * Cases: TEST_F_TIMEOUT() on an empty fixture (each case opens the device
 * after its bystander); main() drops the cases a mode does not run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "common.h"

#define BIG		(4 * MiB)
#define MAX_GPCS	32
#define BY_GPCS		4	/* bystander threads (one GPC each) */
#define BY_PAGES	32	/* pages per bystander round */
#define STORM_ROUNDS	8	/* storm rounds when an overflow is required */

static uint64_t stat_or(const char *name, uint64_t dflt)
{
	uint64_t v;

	return nvsvm_stat_read(0, name, &v) ? dflt : v;
}

/* Spin (yielding) until *@p is @v or *@done is set; true if seen. */
static int wait_word(const volatile uint64_t *p, uint64_t v,
		     const volatile int *done)
{
	while (*p != v) {
		if (done && *done)
			return *p == v;
		sched_yield();
	}
	return 1;
}

/*
 * The bystander: a separate process with its own descriptor, area and one
 * channel per GPC; each thread fills fresh memory through faults, has the
 * GPU sum it and the CPU check it, round after round, until told to stop
 * (and at least once after that).
 */
struct by_shared {
	volatile int stop;
	volatile int started;
	volatile uint64_t rounds;
	volatile int bad;
	char why[256];
};

struct by_thread {
	int fd, gpc;
	struct by_shared *sh;
};

static void by_fail(struct by_shared *sh, const char *fmt, uint64_t a,
		    uint64_t b)
{
	if (!__sync_lock_test_and_set(&sh->bad, 1))
		snprintf(sh->why, sizeof(sh->why), fmt,
			 (unsigned long long)a, (unsigned long long)b);
}

static void *by_thread_fn(void *arg)
{
	struct by_thread *t = arg;
	struct by_shared *sh = t->sh;
	uint64_t round = 0;
	uint32_t chan;

	if (nvsvm_chan_create(t->fd, NVSVM_CHAN_JOIN_AREA, &chan)) {
		by_fail(sh, "chan_create %llu %llu", t->gpc, 0);
		return NULL;
	}
	do {
		uint64_t *buf = anon(BY_PAGES * PAGE);
		uint64_t v = ((uint64_t)t->gpc << 48) | ++round, i;
		struct nvsvm_op ops[2];
		struct nvsvm_exec e;

		if (!buf) {
			by_fail(sh, "mmap %llu %llu", t->gpc, round);
			return NULL;
		}
		ops[0] = nvsvm_op_fill(nvsvm_ptr(buf), BY_PAGES * PAGE, v);
		ops[1] = nvsvm_op_sum(nvsvm_ptr(buf), BY_PAGES * PAGE);
		if (nvsvm_exec(t->fd, chan, t->gpc, ops, 2, TIMEOUT_MS, &e) ||
		    e.status != NVSVM_EXEC_OK) {
			by_fail(sh, "GPC %llu: EXEC status %llu", t->gpc,
				e.status);
			return NULL;
		}
		if (ops[1].result != v * BY_PAGES * WORDS)
			by_fail(sh, "GPC %llu: GPU sum %#llx", t->gpc,
				ops[1].result);
		for (i = 0; i < BY_PAGES * WORDS; i++)
			if (buf[i] != v) {
				by_fail(sh, "word %llu: %#llx", i, buf[i]);
				break;
			}
		munmap(buf, BY_PAGES * PAGE);
		__sync_fetch_and_add(&sh->rounds, 1);
		if (t->gpc == 0)
			sh->started = 1;
	} while (!sh->stop && !sh->bad);
	return NULL;
}

static void by_main(struct by_shared *sh)
{
	struct by_thread t[BY_GPCS];
	pthread_t th[BY_GPCS];
	int fd, i, n = info.gpc_count < BY_GPCS ? info.gpc_count : BY_GPCS;

	/* A case that fails early does not leave the device open. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = nvsvm_open(0);
	if (fd < 0 || nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE)) {
		by_fail(sh, "open/area_init %llu %llu", 0, 0);
		_exit(1);
	}
	for (i = 0; i < n; i++) {
		t[i] = (struct by_thread){ .fd = fd, .gpc = i, .sh = sh };
		pthread_create(&th[i], NULL, by_thread_fn, &t[i]);
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	close(fd);
	_exit(sh->bad ? 1 : 0);
}

/* Start the bystander and wait until it completed a round. */
static pid_t by_start(struct by_shared **psh)
{
	struct by_shared *sh = ktap_shared(sizeof(*sh));
	pid_t pid;

	*psh = sh;
	if (!sh)
		return -1;
	pid = fork();
	if (!pid)
		by_main(sh);
	while (pid > 0 && !sh->started && !sh->bad)
		sched_yield();
	return pid;
}

static int by_stop(pid_t pid, struct by_shared *sh)
{
	uint64_t before = sh->rounds;
	int status;

	/* One more verified round after the teardown, then stop. */
	while (sh->rounds == before && !sh->bad)
		sched_yield();
	sh->stop = 1;
	CHK_EQ(waitpid(pid, &status, 0), pid);
	if (sh->bad)
		KTAP_FAIL_MSG("bystander: %s", sh->why);
	CHK_TRUE(WIFEXITED(status) && !WEXITSTATUS(status),
		 "bystander status %#x", status);
	ktap_note("bystander: %llu verified rounds",
		  (unsigned long long)sh->rounds);
	return KTAP_PASS;
}

/* by_start() that checks the bystander started. */
static int by_start_ok(pid_t *pid, struct by_shared **sh)
{
	*pid = by_start(sh);
	CHK_TRUE(*pid > 0, "bystander fork");
	if ((*sh)->bad)
		KTAP_FAIL_MSG("bystander: %s", (*sh)->why);
	return KTAP_PASS;
}

/* The counters that must come back when everything is closed. */
struct baseline {
	uint64_t pt_bytes, pages_mapped;
	int have;
};

static void base_read(struct baseline *b)
{
	b->have = !nvsvm_stat_read(0, "pt_bytes", &b->pt_bytes) &&
		  !nvsvm_stat_read(0, "pages_mapped", &b->pages_mapped);
}

/*
 * The device still serves faults (a fresh file, a fault on never touched
 * memory, from every GPC), and once that file is closed too, the page
 * tables and mapped pages are back to @b. The new faults are served after
 * every fault of the teardown (one ordered worker), so the worker holds
 * no reference on the old areas any more.
 */
static int still_works(const struct baseline *b)
{
	uint64_t *buf = anon(info.gpc_count * PAGE);
	struct baseline a;
	struct fx f;
	uint32_t g;

	CHK_MAP(buf);
	CHECK(fx_open(&f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	for (g = 0; g < info.gpc_count; g++) {
		struct nvsvm_op op = nvsvm_op_fill(nvsvm_ptr(buf + g * WORDS),
						   PAGE, 0xa110c + g);
		struct nvsvm_exec e;

		CHK_OK(nvsvm_exec(f.fd, f.chan, g, &op, 1, TIMEOUT_MS, &e));
		CHK_EQ(e.status, NVSVM_EXEC_OK);
		CHECK(cpu_check(buf + g * WORDS, WORDS, 0xa110c + g));
	}
	CHK_OK(nvsvm_close(f.fd));
	munmap(buf, info.gpc_count * PAGE);
	if (!b->have)
		return KTAP_PASS;
	base_read(&a);
	CHK_TRUE(a.have, "debugfs counters vanished");
	CHK_EQ(a.pt_bytes, b->pt_bytes);
	CHK_EQ(a.pages_mapped, b->pages_mapped);
	return KTAP_PASS;
}

/* One EXEC in a thread: a FILL of @len bytes at @buf on @gpc. */
struct exec_job {
	int fd;
	uint32_t chan, gpc;
	struct nvsvm_op op;
	struct nvsvm_exec e;
	int ret;
	volatile int done;
	pthread_t th;
};

static void *exec_fn(void *arg)
{
	struct exec_job *j = arg;

	j->ret = nvsvm_exec(j->fd, j->chan, j->gpc, &j->op, 1, TIMEOUT_MS,
			    &j->e);
	j->done = 1;
	return NULL;
}

static int exec_start(struct exec_job *j, int fd, uint32_t chan, uint32_t gpc,
		      struct nvsvm_op op)
{
	memset(j, 0, sizeof(*j));
	j->fd = fd;
	j->chan = chan;
	j->gpc = gpc;
	j->op = op;
	CHK_EQ(pthread_create(&j->th, NULL, exec_fn, j), 0);
	return KTAP_PASS;
}

/*
 * A FILL of @npages pages at @buf with @v that may have been stopped by a
 * fault: the pages below the fault are all @v. With status OK, every page
 * is. Only the first @check pages are still mapped and looked at.
 */
static int fill_prefix(const struct exec_job *j, const uint64_t *buf,
		       uint64_t npages, uint64_t check, uint64_t v)
{
	uint64_t stop = npages, p;

	CHK_OK(j->ret);
	if (j->e.status == NVSVM_EXEC_FAULT) {
		uint64_t fa = j->e.fault_addr & ~(PAGE - 1);

		CHK_TRUE(fa >= nvsvm_ptr(buf) &&
			 fa < nvsvm_ptr(buf) + npages * PAGE,
			 "fault at %#llx outside the buffer",
			 (unsigned long long)j->e.fault_addr);
		CHK_EQ(j->e.fault_access, NVSVM_ACCESS_WRITE);
		CHK_EQ(j->e.done, 0);
		stop = (fa - nvsvm_ptr(buf)) / PAGE;
	} else if (j->e.status != NVSVM_EXEC_OK) {
		KTAP_FAIL_MSG("EXEC status %s", nvsvm_status_name(j->e.status));
	}
	for (p = 0; p < stop && p < check; p++)
		CHECK(cpu_check(buf + p * WORDS, WORDS, v));
	ktap_note("EXEC %s after %llu of %llu pages",
		  nvsvm_status_name(j->e.status), (unsigned long long)stop,
		  (unsigned long long)npages);
	return KTAP_PASS;
}

/*
 * What the *_during_exec cases share: the counters' baseline, the
 * bystander, the file (its fixture), and the EXEC of a FILL of BIG bytes
 * at a buffer with a value, in a thread, seen under way.
 */
struct during {
	struct baseline b;
	struct by_shared *sh;
	pid_t by;
	struct fx f;
	struct exec_job j;
};

/* Read the baseline, start the bystander, open the file. */
static int during_open(struct during *d)
{
	base_read(&d->b);
	CHECK(by_start_ok(&d->by, &d->sh));
	CHECK(fx_open(&d->f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	return KTAP_PASS;
}

/* Start the FILL of @buf with @v on GPC 0; return once it wrote a word. */
static int during_fill(struct during *d, uint64_t *buf, uint64_t v)
{
	CHECK(exec_start(&d->j, d->f.fd, d->f.chan, 0,
			 nvsvm_op_fill(nvsvm_ptr(buf), BIG, v)));
	wait_word(buf, v, &d->j.done);
	return KTAP_PASS;
}

/* The file closed: the bystander was never hurt, the device works. */
static int during_end(struct during *d)
{
	CHECK(by_stop(d->by, d->sh));
	return still_works(&d->b);
}

/* The cases open the device themselves; TEST_F_TIMEOUT for their time. */
FIXTURE_EMPTY(slow)

/*
 * Another thread closes the descriptor while an EXEC on it is faulting:
 * the file lives until the EXEC returns, which completes with every word
 * written; only then is the area torn down.
 */
TEST_F_TIMEOUT(slow, close_during_exec, 240)
{
	uint64_t *buf = anon(BIG), v = 0xc105e;
	struct during d;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(during_open(&d));
	ASSERT_PASS(during_fill(&d, buf, v));
	ASSERT_EQ(0, nvsvm_close(d.f.fd));
	pthread_join(d.j.th, NULL);
	ASSERT_EQ(0, d.j.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, d.j.e.status);
	ASSERT_PASS(cpu_check(buf, BIG / 8, v));
	/* The number is gone from this process. */
	ASSERT_EQ(-EBADF, nvsvm_area_fini(d.f.fd));
	ASSERT_PASS(during_end(&d));
}

/*
 * AREA_FINI while an EXEC of the same file faults: the channel loses the
 * area, the EXEC either completed or stops on a cancelled fault in the
 * buffer, with everything below it written. The file gets a new area that
 * works.
 */
TEST_F_TIMEOUT(slow, area_fini_during_exec, 240)
{
	uint64_t *buf = anon(BIG), v = 0xf1f1, s0, s1;
	struct during d;
	uint32_t q;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	s0 = stat_or("stale", 0);
	ASSERT_PASS(during_open(&d));
	ASSERT_PASS(during_fill(&d, buf, v));
	ASSERT_EQ(0, nvsvm_area_fini(d.f.fd));
	pthread_join(d.j.th, NULL);
	ASSERT_PASS(fill_prefix(&d.j, buf, BIG / PAGE, BIG / PAGE, v));
	s1 = stat_or("stale", 0);
	TH_LOG("stale faults +%llu", (unsigned long long)(s1 - s0));

	/* No area: QUERY and MAP refuse; a new area and channel work. */
	ASSERT_EQ(-EINVAL, nvsvm_query(d.f.fd, nvsvm_ptr(buf), 1, &q));
	ASSERT_EQ(0, nvsvm_area_init(d.f.fd, WIN_ADDR, WIN_SIZE));
	ASSERT_EQ(0, nvsvm_chan_create(d.f.fd, NVSVM_CHAN_JOIN_AREA, &d.f.chan));
	ASSERT_PASS(gpu_read_eq(&d.f, &buf[0], v));
	ASSERT_PASS(gpu_read_eq(&d.f, &buf[BIG / 8 - 1],
				d.j.e.status == NVSVM_EXEC_OK ? v : 0));
	ASSERT_EQ(0, nvsvm_close(d.f.fd));
	ASSERT_PASS(during_end(&d));
}

/* CHAN_DESTROY while its EXEC faults: the EXEC ends, the file goes on. */
TEST_F_TIMEOUT(slow, chan_destroy_during_exec, 240)
{
	uint64_t *buf = anon(BIG), v = 0xde57;
	struct exec_job *j;
	struct during d;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(during_open(&d));
	ASSERT_PASS(during_fill(&d, buf, v));
	j = &d.j;
	ASSERT_EQ(0, nvsvm_chan_destroy(d.f.fd, d.f.chan));
	pthread_join(j->th, NULL);
	ASSERT_EQ(0, j->ret);
	ASSERT_TRUE(j->e.status == NVSVM_EXEC_OK ||
		    j->e.status == NVSVM_EXEC_FAULT ||
		    j->e.status == NVSVM_EXEC_CHANNEL_ERROR) {
		TH_LOG("status %s", nvsvm_status_name(j->e.status));
	}
	if (j->e.status != NVSVM_EXEC_CHANNEL_ERROR)
		ASSERT_PASS(fill_prefix(j, buf, BIG / PAGE, BIG / PAGE, v));
	ASSERT_EQ(-ENOENT, nvsvm_chan_destroy(d.f.fd, d.f.chan));
	ASSERT_EQ(0, nvsvm_chan_create(d.f.fd, NVSVM_CHAN_JOIN_AREA, &d.f.chan));
	ASSERT_PASS(gpu_read_eq(&d.f, &buf[0], v));
	ASSERT_EQ(0, nvsvm_close(d.f.fd));
	ASSERT_PASS(during_end(&d));
}

/*
 * munmap of the upper half while the GPU fills the whole buffer: the EXEC
 * completes, or reports a write fault in the unmapped half with the lower
 * half written. A second channel of the same file, on another GPC, fills
 * its own memory meanwhile and must not be cancelled.
 */
TEST_F_TIMEOUT(slow, munmap_during_exec, 240)
{
	uint64_t *buf = anon(BIG), *other = anon(BIG), v = 0x3a3a, w = 0x4b4b;
	struct exec_job k;
	struct during d;
	uint32_t chan2;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_TRUE(other && (void *)other != MAP_FAILED);
	if (info.gpc_count < 2)
		SKIP(return, "one GPC");
	ASSERT_PASS(during_open(&d));
	ASSERT_EQ(0, nvsvm_chan_create(d.f.fd, NVSVM_CHAN_JOIN_AREA, &chan2));
	ASSERT_PASS(exec_start(&k, d.f.fd, chan2, 1,
			       nvsvm_op_fill(nvsvm_ptr(other), BIG, w)));
	ASSERT_PASS(during_fill(&d, buf, v));
	ASSERT_LE(0, (long)(munmap(buf + BIG / 16, BIG / 2))) {
		TH_LOG("%s", strerror(errno));
	}
	pthread_join(d.j.th, NULL);
	pthread_join(k.th, NULL);
	ASSERT_PASS(fill_prefix(&d.j, buf, BIG / PAGE, BIG / PAGE / 2, v));
	if (d.j.e.status == NVSVM_EXEC_FAULT) {
		ASSERT_TRUE(d.j.e.fault_addr >= nvsvm_ptr(buf) + BIG / 2) {
			TH_LOG("fault at %#llx in the mapped half",
			       (unsigned long long)d.j.e.fault_addr);
		}
	}
	ASSERT_EQ(0, k.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, k.e.status);
	ASSERT_PASS(cpu_check(other, BIG / 8, w));
	ASSERT_EQ(0, nvsvm_close(d.f.fd));
	ASSERT_PASS(during_end(&d));
}

/*
 * The mapping is replaced (MAP_FIXED, the same file pages) again and again
 * while the GPU sums it through faults: the address is always valid, so
 * faults made stale by the invalidations are served again, never
 * cancelled, and every sum is exact. The remaps are paced: a CPU thread
 * that invalidates a range without pause can keep hmm_range_fault()
 * retrying on it (as with any mirror), which is not what is tested here.
 */
#define REMAP_PAGES	256
#define REMAP_SUMS	4	/* at least, and until the remaps are done */
#define REMAPS		100
#define REMAP_PAUSE_US	5000	/* pacing only: lets the fault worker through */

struct remap_arg {
	uint64_t *buf;
	int mfd;
	volatile int stop;
	int err;
	unsigned int done;
};

static void *remap_fn(void *arg)
{
	struct remap_arg *r = arg;

	while (!r->stop && r->done < REMAPS) {
		void *p = mmap(r->buf, REMAP_PAGES * PAGE,
			       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			       r->mfd, 0);

		if (p != r->buf) {
			r->err = errno ? errno : EFAULT;
			break;
		}
		r->done++;
		usleep(REMAP_PAUSE_US);
	}
	return NULL;
}

TEST_F_TIMEOUT(slow, remap_during_faults, 240)
{
	struct remap_arg r = { 0 };
	uint64_t want = 0, i, sums = 0;
	struct nvsvm_exec e;
	struct nvsvm_op op;
	pthread_t th;
	struct fx f;

	r.mfd = memfd_create("nvsvm-remap", 0);
	ASSERT_TRUE(r.mfd >= 0) {
		TH_LOG("memfd_create: %s", strerror(errno));
	}
	ASSERT_LE(0, (long)(ftruncate(r.mfd, REMAP_PAGES * PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	r.buf = mmap(NULL, REMAP_PAGES * PAGE, PROT_READ | PROT_WRITE,
		     MAP_SHARED, r.mfd, 0);
	ASSERT_TRUE(r.buf && (void *)r.buf != MAP_FAILED);
	for (i = 0; i < REMAP_PAGES * WORDS; i++) {
		r.buf[i] = i * 7 + 1;
		want += i * 7 + 1;
	}
	FX_OPEN(&f);
	ASSERT_EQ(0, pthread_create(&th, NULL, remap_fn, &r));
	while ((sums < REMAP_SUMS || r.done < REMAPS) && !r.err) {
		op = nvsvm_op_sum(nvsvm_ptr(r.buf), REMAP_PAGES * PAGE);
		ASSERT_EQ(0, nvsvm_exec(f.fd, f.chan, NVSVM_GPC_ANY, &op, 1,
					TIMEOUT_MS, &e));
		if (e.status != NVSVM_EXEC_OK) {
			r.stop = 1;
			pthread_join(th, NULL);
			ASSERT_TRUE(0) {
				TH_LOG("sum %llu: status %s at %#llx (%s), remap %u",
				       (unsigned long long)sums,
				       nvsvm_status_name(e.status),
				       (unsigned long long)e.fault_addr,
				       nvsvm_access_name(e.fault_access),
				       r.done);
			}
		}
		if (op.result != want) {
			r.stop = 1;
			pthread_join(th, NULL);
			ASSERT_TRUE(0) {
				TH_LOG("sum %llu: %#llx, expected %#llx",
				       (unsigned long long)sums,
				       (unsigned long long)op.result,
				       (unsigned long long)want);
			}
		}
		sums++;
	}
	r.stop = 1;
	pthread_join(th, NULL);
	ASSERT_EQ(0, r.err);
	ASSERT_TRUE(r.done > 0) {
		TH_LOG("no remap");
	}
	TH_LOG("%llu exact sums across %u remaps", (unsigned long long)sums,
	       r.done);
}

/*
 * A child in a fault storm from every GPC it can use, one channel each,
 * is killed (@how == SIGKILL) or exits from another thread (@how == 0)
 * while the faults are in flight. Its faults become stale (its mm exits
 * before its file is released); the bystander must not notice.
 */
struct storm_child {
	volatile int started;
};

struct storm_thread {
	int fd;
	uint32_t gpc;
	uint64_t *buf;
};

static void *storm_child_fn(void *arg)
{
	struct storm_thread *t = arg;
	struct nvsvm_op op = nvsvm_op_fill(nvsvm_ptr(t->buf), BIG,
					   0x5700 + t->gpc);
	struct nvsvm_exec e;
	uint32_t chan;

	if (nvsvm_chan_create(t->fd, NVSVM_CHAN_JOIN_AREA, &chan))
		_exit(3);
	/* Round after round: the parent ends it. */
	for (;;)
		nvsvm_exec(t->fd, chan, t->gpc, &op, 1, TIMEOUT_MS, &e);
	return NULL;
}

static void storm_child_main(struct storm_child *sc, int how)
{
	struct storm_thread t[BY_GPCS];
	pthread_t th[BY_GPCS];
	int fd, i, n = info.gpc_count < BY_GPCS ? info.gpc_count : BY_GPCS;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = nvsvm_open(0);
	if (fd < 0 || nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE))
		_exit(3);
	for (i = 0; i < n; i++) {
		t[i] = (struct storm_thread){ .fd = fd, .gpc = i,
					      .buf = anon(BIG) };
		if (!t[i].buf)
			_exit(3);
		pthread_create(&th[i], NULL, storm_child_fn, &t[i]);
	}
	for (i = 0; i < n; i++)
		wait_word(t[i].buf, 0x5700 + i, NULL);
	sc->started = 1;
	if (how)
		for (;;)
			pause();
	/* exit_group() from this thread, the others in EXEC. */
	_exit(0);
}

static void kill_mid_storm(struct __test_metadata *_metadata, int how)
{
	struct storm_child *sc = ktap_shared(sizeof(*sc));
	uint64_t s0, s1, c0, c1;
	struct by_shared *sh;
	struct baseline b;
	pid_t by, child;
	int status;

	ASSERT_TRUE(sc != NULL) {
		TH_LOG("mmap");
	}
	base_read(&b);
	s0 = stat_or("stale", 0);
	c0 = stat_or("cancels", 0);
	ASSERT_PASS(by_start_ok(&by, &sh));
	child = fork();
	ASSERT_TRUE(child >= 0) {
		TH_LOG("fork: %s", strerror(errno));
	}
	if (!child)
		storm_child_main(sc, how);
	while (!sc->started) {
		ASSERT_EQ(0, waitpid(child, &status, WNOHANG));
		sched_yield();
	}
	if (how)
		ASSERT_EQ(0, kill(child, how) ? -errno : 0);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	if (how) {
		ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == how) {
			TH_LOG("child status %#x", status);
		}
	} else {
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("child status %#x", status);
		}
	}
	ASSERT_PASS(by_stop(by, sh));
	s1 = stat_or("stale", 0);
	c1 = stat_or("cancels", 0);
	TH_LOG("stale faults +%llu, cancels +%llu",
	       (unsigned long long)(s1 - s0), (unsigned long long)(c1 - c0));
	/*
	 * Every address of the child and the bystander is valid: a cancel
	 * could only come from a stale fault of the dead child, and would
	 * have hit whatever its GPC ran next.
	 */
	ASSERT_EQ(0, c1 - c0);
	ASSERT_PASS(still_works(&b));
}

TEST_F_TIMEOUT(slow, sigkill_mid_storm, 240)
{
	kill_mid_storm(_metadata, SIGKILL);
}

TEST_F_TIMEOUT(slow, exit_mid_storm, 240)
{
	kill_mid_storm(_metadata, 0);
}

/*
 * A storm from every GPC at once, one channel and 256 KiB of never touched
 * memory each: every word is written (no fault lost, also when the buffer
 * overflows and faults are dropped until the replay), and never more than
 * one replay per batch. With @need_overflow, rounds repeat (at most
 * STORM_ROUNDS) until the fault buffer overflowed, which must happen.
 */
#define STORM_BYTES	(256 * 1024ULL)
struct storm_job {
	int fd;
	uint32_t chan, gpc;
	uint64_t *buf;
	pthread_barrier_t *bar;
	struct nvsvm_exec e;
	int ret;
};

static void *storm_fn(void *arg)
{
	struct storm_job *j = arg;
	struct nvsvm_op op = nvsvm_op_fill(nvsvm_ptr(j->buf), STORM_BYTES,
					   0x0f0f0000ULL + j->gpc);

	pthread_barrier_wait(j->bar);
	j->ret = nvsvm_exec(j->fd, j->chan, j->gpc, &op, 1, TIMEOUT_MS,
			    &j->e);
	return NULL;
}

static void storm(struct __test_metadata *_metadata, int need_overflow)
{
	static const char *const names[] = { "batches", "replays", "faults",
					     "overflows", "cancels" };
	static struct storm_job jobs[MAX_GPCS];
	uint64_t before[5], after[5];
	uint32_t n = info.gpc_count, g;
	pthread_barrier_t bar;
	pthread_t th[MAX_GPCS];
	int round, rounds = 0, i, ret;
	struct fx f;

	if (n > MAX_GPCS)
		n = MAX_GPCS;
	for (i = 0; i < 5; i++) {
		ret = nvsvm_stat_read(0, names[i], &before[i]);
		if (ret)
			SKIP(return, "debugfs %s: %s", names[i], strerror(-ret));
	}
	FX_OPEN(&f);
	for (g = 0; g < n; g++) {
		jobs[g].fd = f.fd;
		jobs[g].gpc = g;
		ASSERT_EQ(0, nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA,
					       &jobs[g].chan));
	}
	TH_LOG("%u GPCs, %u fault buffer entries", n, info.fault_buffer_entries);
	for (round = 1; round <= (need_overflow ? STORM_ROUNDS : 1); round++) {
		pthread_barrier_init(&bar, NULL, n);
		for (g = 0; g < n; g++) {
			jobs[g].buf = anon(STORM_BYTES);
			ASSERT_TRUE((jobs[g].buf) && (void *)(jobs[g].buf) != MAP_FAILED);
			jobs[g].bar = &bar;
			ASSERT_EQ(0, pthread_create(&th[g], NULL, storm_fn,
						    &jobs[g]));
		}
		for (g = 0; g < n; g++)
			pthread_join(th[g], NULL);
		pthread_barrier_destroy(&bar);
		for (g = 0; g < n; g++) {
			ASSERT_EQ(0, jobs[g].ret);
			ASSERT_FALSE(jobs[g].e.status != NVSVM_EXEC_OK) {
				TH_LOG("round %d GPC %u: status %s at %#llx",
				       round, g,
				       nvsvm_status_name(jobs[g].e.status),
				       (unsigned long long)jobs[g].e.fault_addr);
			}
			ASSERT_PASS(cpu_check(jobs[g].buf, STORM_BYTES / 8,
					      0x0f0f0000ULL + g));
			munmap(jobs[g].buf, STORM_BYTES);
		}
		for (i = 0; i < 5; i++)
			ASSERT_EQ(0, nvsvm_stat_read(0, names[i], &after[i]));
		rounds = round;
		if (after[3] > before[3])
			break;
	}
	TH_LOG("rounds %d: batches +%llu, replays +%llu, faults +%llu, overflows +%llu, cancels +%llu",
	       rounds, (unsigned long long)(after[0] - before[0]),
	       (unsigned long long)(after[1] - before[1]),
	       (unsigned long long)(after[2] - before[2]),
	       (unsigned long long)(after[3] - before[3]),
	       (unsigned long long)(after[4] - before[4]));
	/* One replay per batch, and one per overflow found with no entry. */
	ASSERT_TRUE(after[1] - before[1] <=
		    after[0] - before[0] + after[3] - before[3]) {
		TH_LOG("more replays than batches and overflows");
	}
	ASSERT_EQ(before[4], after[4]);
	if (need_overflow) {
		ASSERT_TRUE(after[3] > before[3]) {
			TH_LOG("no overflow in %d rounds of %u GPCs on %u entries",
			       STORM_ROUNDS, n, info.fault_buffer_entries);
		}
	}
}

TEST_F_TIMEOUT(slow, storm_every_gpc, 240)
{
	storm(_metadata, 0);
}

TEST_F_TIMEOUT(slow, storm_overflow, 500)
{
	storm(_metadata, 1);
}

/*
 * Hold mode for tests/guest-lifecycle.sh: an area, a channel and GPU
 * rounds (fill through faults, then check) until stdin reaches EOF; prints
 * "ready" once the first round is verified. Exit 0 only if every round was
 * exact and the file closes.
 */
static volatile int hold_eof;

static void *hold_stdin(void *arg)
{
	char c;

	(void)arg;
	while (read(0, &c, 1) > 0)
		;
	hold_eof = 1;
	return NULL;
}

TEST_F_TIMEOUT(slow, hold, 590)
{
	uint64_t round = 0;
	pthread_t th;
	struct fx f;

	FX_OPEN(&f);
	ASSERT_EQ(0, pthread_create(&th, NULL, hold_stdin, NULL));
	do {
		uint64_t *buf = anon(64 * PAGE), v = 0x401d0000 + ++round;
		struct nvsvm_op op = nvsvm_op_fill(nvsvm_ptr(buf), 64 * PAGE,
						   v);

		ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
		ASSERT_PASS(gpu_ok(&f, &op, 1));
		ASSERT_PASS(cpu_check(buf, 64 * WORDS, v));
		munmap(buf, 64 * PAGE);
		if (round == 1) {
			printf("# hold: ready\n");
			fflush(stdout);
		}
	} while (!hold_eof);
	pthread_join(th, NULL);
	ASSERT_EQ(0, nvsvm_close(f.fd));
	TH_LOG("hold: %llu verified rounds", (unsigned long long)round);
}

/* The cases of the default run; storm_overflow and hold are modes. */
static int default_case(const char *name, const void *arg)
{
	(void)arg;
	return strcmp(name, "storm_overflow") && strcmp(name, "hold");
}

static int named_case(const char *name, const void *arg)
{
	return !strcmp(name, arg);
}

/* NVSVM_TEARDOWN_CASES="a,b": only the cases named (a comma list). */
static int listed_case(const char *name, const void *arg)
{
	const char *list = arg, *p = list;
	size_t len = strlen(name);

	if (!default_case(name, NULL))
		return 0;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return 1;
		p += len;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *list = getenv("NVSVM_TEARDOWN_CASES");

	if (list) {
		if (!harness_keep_cases(listed_case, list)) {
			fprintf(stderr, "no case in '%s'\n", list);
			return 1;
		}
	} else if (getenv("NVSVM_TEARDOWN_STORM")) {
		harness_keep_cases(named_case, "storm_overflow");
	} else if (getenv("NVSVM_TEARDOWN_HOLD")) {
		harness_keep_cases(named_case, "hold");
	} else {
		harness_keep_cases(default_case, NULL);
	}
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
