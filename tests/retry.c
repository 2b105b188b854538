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

/* A GPU read on GPC 0 in a thread of its own: it faults, the worker serves. */
struct read_call {
	pthread_t thread;
	struct fx *f;
	struct nvsvm_op op;
	struct nvsvm_exec e;
	int ret;
};

static void *read_thread(void *arg)
{
	struct read_call *r = arg;

	r->ret = nvsvm_exec(r->f->fd, r->f->chan, 0, &r->op, 1, TIMEOUT_MS,
			    &r->e);
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
	struct read_call r = { .f = f };
	volatile uint64_t *p;
	int mfd;

	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_PARK();
	ASSERT_PASS(two_pages(&p, &mfd));
	r.op = nvsvm_op_read(nvsvm_ptr(&p[7]));
	ASSERT_PASS(park_arm(p));
	ASSERT_EQ(0, pthread_create(&r.thread, NULL, read_thread, &r));
	ASSERT_PASS(park_wait());
	ASSERT_PASS(replace_page(p, mfd));
	ASSERT_PASS(park_release());
	ASSERT_EQ(0, pthread_join(r.thread, NULL));
	ASSERT_EQ(0, r.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, r.e.status);
	if (r.op.result != NEW + 7)
		TH_LOG("GPU read %#llx, expected %#llx%s",
		       (unsigned long long)r.op.result,
		       (unsigned long long)(NEW + 7),
		       r.op.result == OLD + 7 ? " (the old page)" : "");
	ASSERT_EQ(NEW + 7, r.op.result);
	ASSERT_PASS(gpc0_page_is(f, p, NEW));
	close(mfd);
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
