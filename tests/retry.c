// SPDX-License-Identifier: GPL-2.0
/*
 * The mirror's mmu_interval_read_retry() check: nvsvm_mirror_range() must
 * not write PTEs from an hmm_range_fault() snapshot that the CPU changed
 * since. Each case changes the CPU mapping of one page exactly in that
 * gap, through the TEST-ONLY hook of a test build (src/test.c, debugfs
 * nvsvm_test/park): the hook parks the MAP ioctl, or the fault worker,
 * after its snapshot and before it takes svmm->mutex; the case replaces
 * the page (MAP_FIXED of another page) or unmaps it, then lets the call
 * go. The GPU must then see the new page, or nothing (MAP's EFAULT, a
 * cancelled read), never the old one.
 *
 * The pages are pages of a memfd, which keeps the old one alive with its
 * data: a driver that skips the check maps it, and the GPU reads its old
 * data (no use after free, no luck needed). GPU reads run on GPC 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS	60000

#include "kselftest_harness.h"
#include "common.h"

#define PARK_DIR	"/sys/kernel/debug/nvsvm_test"
#define PARK		PARK_DIR "/park"
#define OLD		0x01d01d01d01d0000ULL
#define NEW		0x0e70e70e70e70000ULL

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA);

/* Write @cmd to the hook: 0 or the negative errno. */
static int park_cmd(const char *cmd)
{
	int fd = open(PARK, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The hook's state ("idle", "armed", "parked") into @buf. */
static int park_state(char *buf, size_t len)
{
	int ret = cg_read(PARK_DIR, "park", buf, len);

	buf[ret ? 0 : strcspn(buf, "\n")] = '\0';
	return ret;
}

/* Arm the hook for the page at @p. */
static int park_arm(const volatile void *p)
{
	char cmd[48];

	snprintf(cmd, sizeof(cmd), "arm %#llx",
		 (unsigned long long)nvsvm_ptr(p));
	CHK_OK(park_cmd(cmd));
	return KTAP_PASS;
}

/*
 * Wait until the armed call is parked: it got its snapshot and waits
 * before the PTE write. 20 s bound a call that never comes (a failure).
 */
static int park_wait(void)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	char st[16] = "";
	int i;

	for (i = 0; i < 20000; i++) {
		CHK_OK(park_state(st, sizeof(st)));
		if (!strcmp(st, "parked"))
			return KTAP_PASS;
		nanosleep(&ms, NULL);
	}
	KTAP_FAIL_MSG("hook still %s after 20 s: the call never parked", st);
}

/* Let the parked call go; it must still have been parked (not timed out). */
static int park_release(void)
{
	int ret = park_cmd("release");

	if (ret == -ESRCH)
		KTAP_FAIL_MSG("release: nothing parked any more (the call gave up waiting)");
	CHK_OK(ret);
	return KTAP_PASS;
}

/*
 * Two memfd pages, OLD in every word of page 0 and NEW in page 1; page 0
 * mapped shared at *@p (filled in), the memfd's descriptor returned.
 */
static int two_pages(volatile uint64_t **p, int *mfd)
{
	volatile uint64_t *all;
	uint64_t i;
	void *v;

	*mfd = memfd_create("nvsvm-retry", MFD_CLOEXEC);
	CHK_TRUE(*mfd >= 0, "memfd_create: %s", strerror(errno));
	CHK_SYS(ftruncate(*mfd, 2 * PAGE));
	v = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, *mfd, 0);
	CHK_MAP(v);
	all = v;
	for (i = 0; i < WORDS; i++) {
		all[i] = OLD + i;
		all[WORDS + i] = NEW + i;
	}
	CHK_SYS(munmap(v, 2 * PAGE));
	v = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, *mfd, 0);
	CHK_MAP(v);
	*p = v;
	CHK_EQ((*p)[WORDS - 1], OLD + WORDS - 1);
	return KTAP_PASS;
}

/* Page 1 of the memfd in place of page 0 at @p. */
static int replace_page(volatile uint64_t *p, int mfd)
{
	void *v = mmap((void *)p, PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, mfd, PAGE);

	CHK_TRUE(v == (void *)p, "mmap MAP_FIXED at %p: %p (%s)", (void *)p,
		 v, strerror(errno));
	CHK_EQ(p[0], NEW);
	return KTAP_PASS;
}

/* A MAP of one page (NVSVM_MAP_FAULT) in a thread of its own. */
struct map_call {
	pthread_t thread;
	int fd;
	uint64_t addr;
	uint64_t mapped;
	int ret;
};

static void *map_thread(void *arg)
{
	struct map_call *m = arg;

	m->ret = nvsvm_map(m->fd, m->addr, PAGE, NVSVM_MAP_FAULT, &m->mapped);
	return NULL;
}

/*
 * An EXEC of @nops operations on GPC 0 in a thread of its own: a fault of
 * theirs is served by the fault worker, which the hook may park.
 */
struct exec_call {
	pthread_t thread;
	struct fx *f;
	uint32_t flags;
	struct nvsvm_op ops[2];
	uint32_t nops;
	struct nvsvm_exec e;
	int ret;
	volatile int done;
};

static void *exec_thread(void *arg)
{
	struct exec_call *x = arg;

	x->ret = nvsvm_exec_flags(x->f->fd, x->f->chan, 0, x->flags, x->ops,
				  x->nops, TIMEOUT_MS, &x->e);
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The GPU, on GPC 0, reads the first and last word of @p: @want + i. */
static int gpc0_page_is(struct fx *f, volatile uint64_t *p, uint64_t want)
{
	struct nvsvm_op ops[2] = {
		nvsvm_op_read(nvsvm_ptr(p)),
		nvsvm_op_read(nvsvm_ptr(&p[WORDS - 1])),
	};
	struct nvsvm_exec e;

	CHK_OK(nvsvm_exec(f->fd, f->chan, 0, ops, 2, TIMEOUT_MS, &e));
	if (e.status != NVSVM_EXEC_OK)
		KTAP_FAIL_MSG("GPU read at %p: status %s, expected OK",
			      (void *)p, nvsvm_status_name(e.status));
	if (ops[0].result != want || ops[1].result != want + WORDS - 1)
		KTAP_FAIL_MSG("GPU read at %p: %#llx and %#llx, expected %#llx and %#llx%s",
			      (void *)p, (unsigned long long)ops[0].result,
			      (unsigned long long)ops[1].result,
			      (unsigned long long)want,
			      (unsigned long long)(want + WORDS - 1),
			      ops[0].result == OLD ? " (the old page)" : "");
	return KTAP_PASS;
}

/*
 * Skip without the hook (a product build, or no debugfs); disarm what a
 * failed case before may have left armed.
 */
#define NEED_PARK() do {						\
	char st_[16];							\
	if (park_state(st_, sizeof(st_)))				\
		SKIP(return, "no %s: not a test build (Kbuild, CONFIG_NVSVM_TEST)", PARK); \
	park_cmd("release");						\
	ASSERT_EQ(0, park_state(st_, sizeof(st_)));			\
	ASSERT_STREQ("idle", st_);					\
} while (0)

/*
 * A MAP of page 0 at *@p (two_pages()) parked after its snapshot; the page
 * replaced by page 1 (@unmap 0) or unmapped (@unmap 1) meanwhile; the MAP
 * let go and its outcome in *@m.
 */
static int map_parked(struct fx *f, volatile uint64_t **p, int unmap,
		      struct map_call *m)
{
	int mfd;

	CHECK(two_pages(p, &mfd));
	memset(m, 0, sizeof(*m));
	m->fd = f->fd;
	m->addr = nvsvm_ptr(*p);
	CHECK(park_arm(*p));
	CHK_OK(-pthread_create(&m->thread, NULL, map_thread, m));
	CHECK(park_wait());
	if (unmap)
		CHK_SYS(munmap((void *)*p, PAGE));
	else
		CHECK(replace_page(*p, mfd));
	CHECK(park_release());
	CHK_OK(-pthread_join(m->thread, NULL));
	close(mfd);
	return KTAP_PASS;
}

/*
 * MAP parked after its snapshot of page 0; the page is replaced by page 1
 * (MAP_FIXED); MAP goes on: it maps page 1, and the GPU reads NEW.
 */
TEST_F(chan, map_page_replaced)
{
	struct fx *f = &self->fx;
	struct map_call m;
	volatile uint64_t *p;

	NEED_PARK();
	ASSERT_PASS(map_parked(f, &p, 0, &m));
	ASSERT_EQ(0, m.ret);
	ASSERT_EQ(1, m.mapped);
	ASSERT_PASS(query_expect(f, (const void *)p, 1, NVSVM_QUERY_VALID,
				 NVSVM_QUERY_VALID));
	GPU_PART();
	ASSERT_PASS(gpc0_page_is(f, p, NEW));
}

/*
 * MAP parked after its snapshot; the page is unmapped; MAP goes on: it
 * finds no page to fault in (EFAULT), nothing is mapped there, and a GPU
 * read is cancelled.
 */
TEST_F(chan, map_page_unmapped)
{
	struct fx *f = &self->fx;
	struct map_call m;
	volatile uint64_t *p;

	NEED_PARK();
	ASSERT_PASS(map_parked(f, &p, 1, &m));
	if (m.ret != -EFAULT)
		TH_LOG("MAP: %d (%s), %llu mapped", m.ret, strerror(-m.ret),
		       (unsigned long long)m.mapped);
	ASSERT_EQ(-EFAULT, m.ret);
	ASSERT_EQ(0, m.mapped);
	ASSERT_PASS(query_expect(f, (const void *)p, 1, NVSVM_QUERY_VALID, 0));
	GPU_PART();
	ASSERT_PASS(gpu_fault(f, nvsvm_op_read(m.addr), m.addr,
			      NVSVM_ACCESS_READ));
}

/*
 * The fault path: a GPU read of page 0 faults; the worker parks after its
 * snapshot; the page is replaced by page 1; the worker goes on: the read
 * completes with NEW.
 */
TEST_F(chan, fault_page_replaced)
{
	struct fx *f = &self->fx;
	struct exec_call r = { .f = f, .nops = 1 };
	volatile uint64_t *p;
	int mfd;

	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_PARK();
	ASSERT_PASS(two_pages(&p, &mfd));
	r.ops[0] = nvsvm_op_read(nvsvm_ptr(&p[7]));
	ASSERT_PASS(park_arm(p));
	ASSERT_EQ(0, pthread_create(&r.thread, NULL, exec_thread, &r));
	ASSERT_PASS(park_wait());
	ASSERT_PASS(replace_page(p, mfd));
	ASSERT_PASS(park_release());
	ASSERT_EQ(0, pthread_join(r.thread, NULL));
	ASSERT_EQ(0, r.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, r.e.status);
	if (r.ops[0].result != NEW + 7)
		TH_LOG("GPU read %#llx, expected %#llx%s",
		       (unsigned long long)r.ops[0].result,
		       (unsigned long long)(NEW + 7),
		       r.ops[0].result == OLD + 7 ? " (the old page)" : "");
	ASSERT_EQ(NEW + 7, r.ops[0].result);
	ASSERT_PASS(gpc0_page_is(f, p, NEW));
	close(mfd);
}

#define REPLAY_UTLB	"/sys/module/nvsvm/parameters/replay_utlb"
#define REPLAY_UTLB_MIN	"/sys/module/nvsvm/parameters/replay_utlb_min"
#define HOLD_MS		300
#define BLOCK		(2UL << 20)	/* a range of the fault path at most */
#define FILL_A		0x0a0a0a0a0a0a0a0aULL
#define FILL_B		0x0b0b0b0b0b0b0b0bULL

static uint64_t mono_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
}

/*
 * The GPU's stall counter (nvsvm_vgpu stall_us, warp-us from a fault to
 * its replay) on a pinned case: an EXEC on mapped memory adds nothing;
 * one warp's one fault, its service held HOLD_MS by the hook, adds at
 * least HOLD_MS and at most the EXEC's own time, and no lockdown wait (no
 * other warp).
 */
TEST_F(chan, stall_counter_pinned)
{
	struct fx *f = &self->fx;
	struct exec_call x = { .f = f, .nops = 1 };
	uint64_t s0, s1, l0, l1, t0, t1;
	volatile uint64_t *p;
	void *v;

	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_PARK();
	if (vgpu_stat_read("stall_us", &s0))
		SKIP(return, "no nvsvm_vgpu stall_us: not the virtual GP100");
	v = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, v);
	p = v;
	/* Mapped: no fault, no stall. */
	p[0] = 1;
	ASSERT_EQ(0, nvsvm_map(f->fd, nvsvm_ptr(p), PAGE, NVSVM_MAP_WRITE,
			       NULL));
	x.ops[0] = nvsvm_op_fill(nvsvm_ptr(p), PAGE, FILL_A);
	ASSERT_EQ(0, vgpu_stat_read("stall_us", &s0));
	exec_thread(&x);
	ASSERT_EQ(0, x.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, x.e.status);
	ASSERT_EQ(FILL_A, p[WORDS - 1]);
	ASSERT_EQ(0, vgpu_stat_read("stall_us", &s1));
	ASSERT_EQ(s0, s1);

	/* One fault, held. */
	x.ops[0] = nvsvm_op_fill(nvsvm_ptr(&p[WORDS]), PAGE, FILL_B);
	x.done = 0;
	ASSERT_EQ(0, vgpu_stat_read("lockdown_us", &l0));
	ASSERT_PASS(park_arm(&p[WORDS]));
	t0 = mono_us();
	ASSERT_EQ(0, pthread_create(&x.thread, NULL, exec_thread, &x));
	ASSERT_PASS(park_wait());
	usleep(HOLD_MS * 1000);
	ASSERT_PASS(park_release());
	ASSERT_EQ(0, pthread_join(x.thread, NULL));
	t1 = mono_us();
	ASSERT_EQ(0, x.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, x.e.status);
	ASSERT_EQ(FILL_B, p[2 * WORDS - 1]);
	ASSERT_EQ(0, vgpu_stat_read("stall_us", &s1));
	ASSERT_EQ(0, vgpu_stat_read("lockdown_us", &l1));
	TH_LOG("stall %llu us, held %u ms, EXEC %llu us",
	       (unsigned long long)(s1 - s0), HOLD_MS,
	       (unsigned long long)(t1 - t0));
	ASSERT_GE(s1 - s0, HOLD_MS * 1000ULL);
	ASSERT_LE(s1 - s0, t1 - t0);
	ASSERT_EQ(l0, l1);
	munmap(v, 2 * PAGE);
}

/*
 * Two warps of GPC 0 on two micro-TLBs (slots 0 and 1: TPCs 0 and 1)
 * fault in one round, A's page in one 2 MiB block and B's in another:
 * both entries are written together (one fault_valid_delay_us after the
 * driver read PUT), so one batch holds both, A's micro-TLB sorted first.
 * The hook holds the service of B's range. With @utlb (and
 * replay_utlb_min 1) the replay after A's micro-TLB lets A's warp go on
 * and fill its page while B's stays stalled; with the per-batch replay
 * nothing is replayed before B is served, so A's page stays empty while B
 * is held. Then B goes, and both complete.
 */
static int two_utlbs_run(struct fx *f, bool utlb)
{
	struct exec_call x = { .f = f, .nops = 2, .flags = NVSVM_EXEC_WARPS };
	volatile uint64_t *a, *b;
	uint64_t r0, r1;
	int i, ret = KTAP_PASS;
	void *v;

	v = mmap(NULL, 8 * BLOCK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHK_MAP(v);
	a = v;
	b = (volatile uint64_t *)((char *)v + 4 * BLOCK);
	x.ops[0] = nvsvm_op_fill(nvsvm_ptr(a), PAGE, FILL_A);
	x.ops[1] = nvsvm_op_fill(nvsvm_ptr(b), PAGE, FILL_B);
	CHK_OK(nvsvm_stat_read(dev_index, "replays_utlb", &r0));
	CHECK(park_arm(b));
	CHK_OK(-pthread_create(&x.thread, NULL, exec_thread, &x));
	CHECK(park_wait());
	/* A's warp is released by then, or never before B. */
	for (i = 0; i < (utlb ? 20000 : HOLD_MS); i++) {
		if (__atomic_load_n(&a[WORDS - 1], __ATOMIC_ACQUIRE) == FILL_A)
			break;
		usleep(1000);
	}
	if (utlb && a[WORDS - 1] != FILL_A) {
		ktap_note("A's page not filled while B is held: its warp was not replayed");
		ret = KTAP_FAIL;
	} else if (!utlb && a[0] != 0) {
		ktap_note("A's page filled while B is held, with the per-batch replay");
		ret = KTAP_FAIL;
	}
	if (b[0] != 0 || __atomic_load_n(&x.done, __ATOMIC_ACQUIRE)) {
		ktap_note("B's warp went on while its service was held");
		ret = KTAP_FAIL;
	}
	CHK_OK(nvsvm_stat_read(dev_index, "replays_utlb", &r1));
	if ((r1 > r0) != utlb) {
		ktap_note("replays_utlb +%llu", (unsigned long long)(r1 - r0));
		ret = KTAP_FAIL;
	}
	CHECK(park_release());
	CHK_OK(-pthread_join(x.thread, NULL));
	CHK_OK(x.ret);
	CHK_EQ(x.e.status, NVSVM_EXEC_OK);
	CHK_EQ(a[WORDS - 1], FILL_A);
	CHK_EQ(b[WORDS - 1], FILL_B);
	munmap(v, 8 * BLOCK);
	return ret;
}

/* two_utlbs_run() with replay_utlb @utlb and replay_utlb_min 1. */
static int two_utlbs(struct fx *f, bool utlb)
{
	unsigned int old_utlb, old_min;
	int ret;

	CHK_OK(set_param(REPLAY_UTLB, utlb, &old_utlb));
	CHK_OK(set_param(REPLAY_UTLB_MIN, 1, &old_min));
	ret = two_utlbs_run(f, utlb);
	CHK_OK(set_param(REPLAY_UTLB, old_utlb, NULL));
	CHK_OK(set_param(REPLAY_UTLB_MIN, old_min, NULL));
	return ret;
}

/* Replay per micro-TLB: the served micro-TLB goes on, the held one waits. */
TEST_F(chan, utlb_replay_releases_served_utlb)
{
	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_PARK();
	if (access(REPLAY_UTLB, W_OK))
		SKIP(return, "no %s", REPLAY_UTLB);
	ASSERT_PASS(two_utlbs(&self->fx, true));
}

/* The same with one replay per batch: A waits for B (the control). */
TEST_F(chan, batch_replay_holds_served_utlb)
{
	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_PARK();
	if (access(REPLAY_UTLB, W_OK))
		SKIP(return, "no %s", REPLAY_UTLB);
	ASSERT_PASS(two_utlbs(&self->fx, false));
}

/* The hook itself: release with nothing parked, arm twice, bad input. */
TEST(park_hook_rules)
{
	char st[16];
	int x;

	NEED_PARK();
	ASSERT_EQ(-ESRCH, park_cmd("release"));
	ASSERT_EQ(-EINVAL, park_cmd("arm"));
	ASSERT_EQ(-EINVAL, park_cmd("arm zz"));
	ASSERT_EQ(-EINVAL, park_cmd("park"));
	ASSERT_PASS(park_arm(&x));
	ASSERT_EQ(-EBUSY, park_cmd("arm 0x1000"));
	ASSERT_EQ(0, park_state(st, sizeof(st)));
	ASSERT_STREQ("armed", st);
	/* Disarmed by release, which says nothing was parked. */
	ASSERT_EQ(-ESRCH, park_cmd("release"));
	ASSERT_EQ(0, park_state(st, sizeof(st)));
	ASSERT_STREQ("idle", st);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, 0);
}
