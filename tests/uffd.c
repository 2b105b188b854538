// SPDX-License-Identifier: GPL-2.0
/*
 * GPU faults on userfaultfd-registered memory wait for the handler
 * (issue 37, item 4).
 *
 * A GPU access to a missing page of a range a userfaultfd watches is
 * parked: the warp stays stalled while the area's userfaultfd thread
 * faults the page in through the handler, then it is served and replayed
 * (src/fault.c). Only that area waits: another process's GPU work on the
 * same GPU goes on. A handler that never answers holds up nothing but
 * that access: AREA_FINI, close and a kill of its process end the wait
 * (debugfs uffd_unanswered counts what was let go), and the area is freed
 * (areas_closing back to 0: its thread let go of it).
 *
 * The order is pinned, never slept on: a userfault message arrives only
 * once the GPU's access is parked and the thread waits for the handler,
 * so each case reads the message first and only then answers, checks the
 * other process or tears down. The GPU's result proves it read the
 * handler's data, not a zero page.
 *
 * tests/guest-uffd-held.sh uses the helper mode of this program
 * (NVSVM_UFFD_HOLD=DIR): both modules unload while a handler never
 * answers.
 */
#define _GNU_SOURCE
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define TIMEOUT_MS	60000

#include "kselftest_harness.h"
#include "common.h"

/* Bounds, in ms: the userfault message, a child's end, B's GPU work. */
#define MSG_MS		20000
#define CHILD_MS	20000
#define B_EXEC_MS	15000
#define B_PAGES		64

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

/* What the handler writes: word i of the page at @page. */
static uint64_t pattern(uint64_t page, unsigned int i)
{
	return 0x0ffd000000000000ULL ^ (page + 8 * i);
}

/*
 * The next userfault message of @uffd within @ms: its page in *@page,
 * its flags in *@flags.
 */
static int uffd_msg_wait(int uffd, unsigned int ms, uint64_t *page,
			 uint64_t *flags)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;
	int ret;

	ret = poll(&pfd, 1, ms);
	if (ret < 0)
		KTAP_FAIL_MSG("poll: %s", strerror(errno));
	if (!ret || !(pfd.revents & POLLIN))
		KTAP_FAIL_MSG("no userfault message in %u ms (revents %#x)",
			      ms, pfd.revents);
	/* O_NONBLOCK: a read that finds nothing fails, never hangs. */
	CHK_EQ(read(uffd, &msg, sizeof(msg)), (ssize_t)sizeof(msg));
	CHK_EQ(msg.event, UFFD_EVENT_PAGEFAULT);
	*page = msg.arg.pagefault.address & ~(PAGE - 1);
	*flags = msg.arg.pagefault.flags;
	return KTAP_PASS;
}

/* Answer the fault on @page with pattern(). */
static int uffd_answer(int uffd, uint64_t page)
{
	static uint64_t buf[WORDS] __attribute__((aligned(4096)));
	struct uffdio_copy copy = {
		.dst = page,
		.src = nvsvm_ptr(buf),
		.len = PAGE,
	};
	unsigned int i;

	for (i = 0; i < WORDS; i++)
		buf[i] = pattern(page, i);
	CHK_SYS(ioctl(uffd, UFFDIO_COPY, &copy));
	return KTAP_PASS;
}

/* One EXEC in a thread of its own. */
struct gpu_bg {
	int fd;
	uint32_t chan, gpc, timeout_ms;
	struct nvsvm_op op;
	struct nvsvm_exec e;
	int ret;
	int done;
	pthread_t th;
};

static void *gpu_bg_thread(void *arg)
{
	struct gpu_bg *g = arg;

	g->ret = nvsvm_exec(g->fd, g->chan, g->gpc, &g->op, 1, g->timeout_ms,
			    &g->e);
	__atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static uint64_t stat_of(const char *name)
{
	uint64_t v = 0;

	if (nvsvm_stat_read(dev_index, name, &v))
		return ~0ULL;
	return v;
}

/*
 * The GPU's @op on a missing page that the handler fills only after its
 * message came: the access waits, then completes with the handler's data.
 */
static void gpu_waits(struct __test_metadata *_metadata, struct fx *f,
		      int write)
{
	struct gpu_bg g = { .fd = f->fd, .chan = f->chan,
			    .gpc = NVSVM_GPC_ANY, .timeout_ms = TIMEOUT_MS };
	uint64_t page, flags, served0, want;
	volatile uint64_t *buf;
	int uffd, done;
	void *p;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_PASS_SKIP(uffd_region(O_CLOEXEC | O_NONBLOCK, 4, &p, &uffd));
	buf = p;
	served0 = stat_of("uffd_served");
	g.op = write ? nvsvm_op_write(nvsvm_ptr(&buf[2 * WORDS + 7]), 0x5eed) :
		       nvsvm_op_read(nvsvm_ptr(&buf[2 * WORDS + 7]));
	ASSERT_EQ(0, pthread_create(&g.th, NULL, gpu_bg_thread, &g));
	ASSERT_PASS(uffd_msg_wait(uffd, MSG_MS, &page, &flags)) {
		close(uffd);	/* ends the wait: the EXEC returns */
		pthread_join(g.th, NULL);
	}
	/* The GPU's access waits for this answer. */
	done = __atomic_load_n(&g.done, __ATOMIC_ACQUIRE);
	ASSERT_PASS(uffd_answer(uffd, page));
	ASSERT_EQ(0, pthread_join(g.th, NULL));
	ASSERT_EQ(0, done);
	ASSERT_EQ(nvsvm_ptr(buf) + 2 * PAGE, page);
	ASSERT_EQ(write ? UFFD_PAGEFAULT_FLAG_WRITE : 0,
		  flags & UFFD_PAGEFAULT_FLAG_WRITE);
	ASSERT_EQ(0, g.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, g.e.status) {
		TH_LOG("status %s (fault at %#llx)",
		       nvsvm_status_name(g.e.status),
		       (unsigned long long)g.e.fault_addr);
	}
	want = pattern(page, 7);
	if (write) {
		ASSERT_EQ(0x5eed, buf[2 * WORDS + 7]);
		ASSERT_EQ(pattern(page, 6), buf[2 * WORDS + 6]);
	} else {
		ASSERT_EQ(want, g.op.result);
	}
	ASSERT_NE(~0ULL, served0);
	ASSERT_LE(served0 + 1, stat_of("uffd_served"));
	close(uffd);
	munmap(p, 4 * PAGE);
}

TEST_F(chan, gpu_read_waits)
{
	gpu_waits(_metadata, &self->fx, 0);
}

TEST_F(chan, gpu_write_waits)
{
	gpu_waits(_metadata, &self->fx, 1);
}

/* ---- A: a child whose GPU access waits for a handler in its parent ---- */

enum a_mode { A_WAIT, A_FINI, A_CLOSE, A_KILL };

/* What A reports on its pipe. */
struct a_report {
	int ret;		/* EXEC's */
	struct nvsvm_exec e;
	uint64_t result;
	int fini_ret;		/* AREA_FINI's or close()'s */
	uint64_t fini_ms;	/* how long it took */
};

/*
 * A: its own file, area and channel on GPC 0 and a userfaultfd over 2
 * pages, sent to @sock; a GPU read of word 5 of page 1. A_FINI: AREA_FINI
 * from another thread once a byte comes on @sock. A_CLOSE: the EXEC stops
 * after 3 s, then close(). Writes a struct a_report to @out; exit 0, or
 * the step that failed.
 */
static int run_a(int sock, int out, enum a_mode mode)
{
	struct gpu_bg g = { .gpc = 0, .timeout_ms = TIMEOUT_MS };
	struct a_report r = { 0 };
	uint64_t t0;
	void *p;
	int uffd;
	char c;

	g.fd = nvsvm_open(dev_index);
	if (g.fd < 0 || nvsvm_area_init(g.fd, WIN_ADDR, WIN_SIZE) ||
	    nvsvm_chan_create(g.fd, NVSVM_CHAN_JOIN_AREA, &g.chan))
		return 10;
	if (uffd_region(O_CLOEXEC | O_NONBLOCK, 2, &p, &uffd) != KTAP_PASS)
		return 11;
	if (send_fd(sock, uffd, "u", 1))
		return 12;
	close(uffd);	/* the parent's copy keeps it */
	g.op = nvsvm_op_read(nvsvm_ptr(p) + PAGE + 5 * 8);
	if (mode == A_CLOSE)
		g.timeout_ms = 3000;
	if (pthread_create(&g.th, NULL, gpu_bg_thread, &g))
		return 13;
	if (mode == A_FINI) {
		if (read(sock, &c, 1) != 1)
			return 14;
		t0 = now_ms();
		r.fini_ret = nvsvm_area_fini(g.fd);
		r.fini_ms = now_ms() - t0;
	}
	pthread_join(g.th, NULL);
	if (mode == A_CLOSE) {
		t0 = now_ms();
		r.fini_ret = close(g.fd);
		r.fini_ms = now_ms() - t0;
	}
	r.ret = g.ret;
	r.e = g.e;
	r.result = g.op.result;
	return write(out, &r, sizeof(r)) == sizeof(r) ? 0 : 15;
}

/* A's report within @ms, or KTAP_FAIL. */
static int a_report(int fd, unsigned int ms, struct a_report *r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		KTAP_FAIL_MSG("no report from A in %u ms", ms);
	CHK_EQ(read(fd, r, sizeof(*r)), (ssize_t)sizeof(*r));
	return KTAP_PASS;
}

/* Is there a report from A already? */
static int a_reported(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/* A started, its userfaultfd in *@uffd, its GPU access parked. */
struct a_proc {
	pid_t pid;
	int sock, res, uffd;
	uint64_t page;
};

static int a_start(struct a_proc *a, enum a_mode mode)
{
	int sv[2], res[2];
	uint64_t flags;
	char c;

	CHK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	CHK_SYS(pipe2(res, O_CLOEXEC));
	a->pid = fork();
	CHK_SYS(a->pid);
	if (!a->pid) {
		close(sv[0]);
		close(res[0]);
		_exit(run_a(sv[1], res[1], mode));
	}
	close(sv[1]);
	close(res[1]);
	a->sock = sv[0];
	a->res = res[0];
	a->uffd = recv_fd(a->sock, &c, 1);
	if (a->uffd < 0) {
		kill(a->pid, SIGKILL);
		KTAP_FAIL_MSG("A: no userfaultfd (exit %d)", wait_child(a->pid));
	}
	/* A's GPU read is parked: the userfaultfd thread waits for us. */
	if (uffd_msg_wait(a->uffd, MSG_MS, &a->page, &flags) != KTAP_PASS) {
		kill(a->pid, SIGKILL);
		KTAP_FAIL_MSG("A's GPU read brought no userfault (exit %d)",
			      wait_child(a->pid));
	}
	return KTAP_PASS;
}

static void a_stop(struct a_proc *a)
{
	if (wait_child_ms(a->pid, 0) == -1) {
		kill(a->pid, SIGKILL);
		wait_child(a->pid);
	}
	close(a->uffd);
	close(a->sock);
	close(a->res);
}

/*
 * While A's GPU read waits for a handler (this process, which answers only
 * at the end), this process's own GPU work on another GPC of the same GPU
 * faults and completes with exact data; then the answer ends A's wait.
 */
TEST_F(chan, other_process_served)
{
	uint64_t *src = anon(B_PAGES * PAGE), want = 0, i;
	struct fx f = self->fx;
	struct nvsvm_exec e;
	struct nvsvm_op op;
	struct a_report r;
	struct a_proc a;
	int busy;

	NEED_CAP(NVSVM_CAP_EXEC);
	if (info.gpc_count < 2)
		SKIP(return, "one GPC: A and B need a GPC each");
	ASSERT_MAP(src);
	for (i = 0; i < B_PAGES * WORDS; i++) {
		src[i] = 0xb0b0000000000000ULL + i * 7;
		want += src[i];
	}
	ASSERT_PASS(a_start(&a, A_WAIT));
	op = nvsvm_op_sum(nvsvm_ptr(src), B_PAGES * PAGE);
	ASSERT_PASS(gpu_run_on(&f, 1, B_EXEC_MS, &op, 1, &e)) {
		a_stop(&a);
	}
	busy = !a_reported(a.res);
	ASSERT_EQ(NVSVM_EXEC_OK, e.status) {
		TH_LOG("B: status %s while A waits",
		       nvsvm_status_name(e.status));
		a_stop(&a);
	}
	ASSERT_EQ(want, op.result) {
		a_stop(&a);
	}
	ASSERT_TRUE(busy) {
		TH_LOG("A's read ended before its handler answered");
		a_stop(&a);
	}
	ASSERT_PASS(uffd_answer(a.uffd, a.page)) {
		a_stop(&a);
	}
	ASSERT_PASS(a_report(a.res, CHILD_MS, &r)) {
		a_stop(&a);
	}
	ASSERT_EQ(0, wait_child_ms(a.pid, CHILD_MS));
	a_stop(&a);
	ASSERT_EQ(0, r.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, r.e.status) {
		TH_LOG("A: status %s", nvsvm_status_name(r.e.status));
	}
	ASSERT_EQ(pattern(a.page, 5), r.result);
	munmap(src, B_PAGES * PAGE);
}

/*
 * A handler that never answers: A's AREA_FINI (from another thread), its
 * close() after its EXEC stopped, or its death ends the wait. The parked
 * access is counted in uffd_unanswered, and A's area goes (its
 * userfaultfd thread let go of it).
 */
static void unanswered(struct __test_metadata *_metadata, enum a_mode mode)
{
	uint64_t u0, closing = 0;
	struct a_report r;
	struct a_proc a;
	int status;

	NEED_CAP(NVSVM_CAP_EXEC);
	if (nvsvm_stat_read(dev_index, "areas_closing", &closing))
		SKIP(return, "no debugfs areas_closing");
	ASSERT_PASS(areas_settled(dev_index));
	u0 = stat_of("uffd_unanswered");
	ASSERT_PASS(a_start(&a, mode));
	if (mode == A_KILL)
		ASSERT_SYS(kill(a.pid, SIGKILL));
	if (mode == A_FINI)
		ASSERT_EQ(1, write(a.sock, "f", 1));
	status = wait_child_ms(a.pid, CHILD_MS);
	if (mode != A_KILL && status == 0)
		ASSERT_PASS(a_report(a.res, 0, &r));
	a_stop(&a);
	ASSERT_NE(-1, status) {
		TH_LOG("A did not end within %u ms, its handler silent",
		       CHILD_MS);
	}
	if (mode == A_KILL) {
		ASSERT_EQ(128 + SIGKILL, status);
	} else {
		ASSERT_EQ(0, status);
		ASSERT_EQ(0, r.ret);
		ASSERT_EQ(0, r.fini_ret);
		ktap_note("%s took %llu ms", mode == A_FINI ? "AREA_FINI" :
			  "close", (unsigned long long)r.fini_ms);
	}
	if (mode == A_FINI) {
		/* Cancelled on the empty directory, at its page. */
		ASSERT_EQ(NVSVM_EXEC_FAULT, r.e.status) {
			TH_LOG("A: status %s", nvsvm_status_name(r.e.status));
		}
		ASSERT_EQ(a.page, r.e.fault_addr & ~(PAGE - 1));
	}
	if (mode == A_CLOSE)
		ASSERT_EQ(NVSVM_EXEC_TIMEOUT, r.e.status);
	ASSERT_NE(~0ULL, u0);
	ASSERT_PASS(stats_become(dev_index, "uffd_unanswered", u0 + 1,
				 "areas_closing", 0));
}

TEST_F(chan, unanswered_area_fini)
{
	unanswered(_metadata, A_FINI);
}

TEST_F(chan, unanswered_close)
{
	unanswered(_metadata, A_CLOSE);
}

TEST_F(chan, unanswered_killed)
{
	unanswered(_metadata, A_KILL);
}

/*
 * The helper of tests/guest-uffd-held.sh (NVSVM_UFFD_HOLD=DIR): A's GPU
 * read waits for this process's handler, A is killed and reaped, then
 * DIR/ready is created (A's status in it); the userfaultfd stays open,
 * never answered, until DIR/answer exists (at most 120 s). Exit 0, or 1
 * with the reason on stderr.
 */
static int hold_main(const char *dir)
{
	struct a_proc a;
	int st;

	if (a_start(&a, A_KILL) != KTAP_PASS) {
		fprintf(stderr, "hold: A's GPU read did not wait\n");
		return 1;
	}
	kill(a.pid, SIGKILL);
	st = wait_child_ms(a.pid, CHILD_MS);
	hold_ready_wait(dir, st);
	a_stop(&a);
	if (st != 128 + SIGKILL) {
		fprintf(stderr, "hold: A ended with %d, not by SIGKILL\n", st);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *hold = getenv("NVSVM_UFFD_HOLD");

	if (hold && *hold)
		return hold_main(hold);
	return test_harness_main(argc, argv, 0);
}
