// SPDX-License-Identifier: GPL-2.0
/*
 * One process's GPU fault whose page-in never completes must not stall the
 * other processes on the same GPU.
 *
 * Process A's GPU reads a page of a file on a FUSE file system whose server
 * (a minimal one over /dev/fuse, in this program) holds that READ without
 * answering: the fault path's hmm_range_fault() for A waits in the page
 * cache read. Meanwhile process B, with its own file, area and channel,
 * runs GPU work that must complete with exact data, and its close() must
 * return. Then the server answers (A's read completes with the file's
 * data) or dies (A's access is cancelled), and everything must be given
 * back. Every wait is bounded: a stall fails the case in seconds.
 *
 * A userfaultfd range nobody answers does not block the fault path
 * either: A's GPU access waits for the handler in its area's userfaultfd
 * thread, not in the fault path, so B works meanwhile; A's EXEC stops at
 * its timeout, and A's close() lets the access go (debugfs
 * uffd_unanswered); uffd_unanswered checks that (tests/uffd.c has the
 * rest).
 *
 * Cases: TEST_F_TIMEOUT() on the empty fixture blocking (150 s each). A
 * check made while the FUSE mount or A and B are still up does not end the
 * case before they are gone: it fails after the clean-up (check_b()'s
 * result) or cleans up in its ASSERT's failure block.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fuse.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "kselftest_harness.h"
#include "common.h"

#define GPC_A		0
#define GPC_B		1
#define FILE_PAGES	4
#define SLOW_INO	2
#define B_PAGES		64
/* Bounds, in ms: B's whole run, each EXEC of B, A's EXEC. */
#define B_WAIT_MS	15000
#define B_EXEC_MS	8000
#define A_EXEC_MS	60000
#define A_WAIT_MS	(A_EXEC_MS + 10000)
/* fuse_owner_killed_memory: A's anonymous memory, and how much must return. */
#define A_ANON_MB	128
#define A_BACK_KB	(A_ANON_MB * 1024 * 3 / 4)
/* How long a killed A's memory may take to come back. */
#define A_BACK_MS	5000

static uint64_t file_word(uint64_t off)
{
	return 0xf05e000000000000ULL | (off / 8);
}

/* What the processes of a case share. */
struct shared {
	/* the server */
	atomic_int read_seen;		/* READs of the slow file held */
	atomic_int answer;		/* answer them (1) */
	/* process A */
	atomic_int a_stage;
	int a_ret;
	struct nvsvm_exec a_exec;
	uint64_t a_result;
	uint64_t a_base;		/* A's userfaultfd area */
	unsigned int a_anon_mb;		/* A writes this much anon memory */
	unsigned int a_warps;		/* >1: A reads as that many warps */
	unsigned int a_gpc;		/* ...on this GPC */
	unsigned int a_exec_ms;		/* A's EXEC timeout, if not 0 */
	/* process B */
	atomic_int b_stage;
	int b_err;
	uint64_t b_ms;
	char b_msg[256];
};

FIXTURE_EMPTY(blocking)

static struct shared *sh;
struct fuse_srv;
/* The server of the case, whose descriptors a forked A or B closes. */
static struct fuse_srv *srv_of_case;

/* ---- A minimal FUSE server: one regular file, "slow", in the root. ---- */

struct fuse_srv {
	int dev;
	int ctl[2];			/* a byte on ctl[1]: look at sh again */
	char dir[64];
	pthread_t th;
	int mounted, running;
	uint64_t held[16];		/* unique ids of held READs */
	uint64_t held_off[16];
	uint32_t held_size[16];
	unsigned int nheld;
};

static int fuse_reply(struct fuse_srv *s, uint64_t unique, int err,
		      const void *data, size_t len)
{
	struct fuse_out_header h = {
		.len = sizeof(h) + (err ? 0 : len),
		.error = err,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)data, .iov_len = err ? 0 : len },
	};

	return writev(s->dev, iov, err || !len ? 1 : 2) < 0 ? -errno : 0;
}

static void fuse_attr_of(uint64_t ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = PAGE;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0444;
		a->size = FILE_PAGES * PAGE;
		a->blocks = a->size / 512;
	}
}

static void fuse_read_reply(struct fuse_srv *s, uint64_t unique,
			    uint64_t off, uint32_t size)
{
	static uint64_t buf[FILE_PAGES * WORDS];
	uint64_t end = FILE_PAGES * PAGE, i;

	if (off >= end) {
		fuse_reply(s, unique, 0, NULL, 0);
		return;
	}
	if (size > end - off)
		size = end - off;
	for (i = 0; i < size / 8; i++)
		buf[i] = file_word(off + 8 * i);
	fuse_reply(s, unique, 0, buf, size);
}

static void fuse_handle(struct fuse_srv *s, const char *msg)
{
	const struct fuse_in_header *in = (const void *)msg;
	const void *arg = msg + sizeof(*in);

	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *ii = arg;
		struct fuse_init_out o = {
			.major = FUSE_KERNEL_VERSION,
			.minor = ii->minor < 31 ? ii->minor : 31,
			/* No readahead: one READ per page fault. */
			.max_readahead = 0,
			.max_write = PAGE,
			.max_background = 4,
			.congestion_threshold = 3,
			.time_gran = 1,
		};

		fuse_reply(s, in->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out o = { 0 };

		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "slow")) {
			fuse_reply(s, in->unique, -ENOENT, NULL, 0);
			break;
		}
		o.nodeid = SLOW_INO;
		o.generation = 1;
		o.entry_valid = 3600;
		o.attr_valid = 3600;
		fuse_attr_of(SLOW_INO, &o.attr);
		fuse_reply(s, in->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out o = { .attr_valid = 3600 };

		fuse_attr_of(in->nodeid, &o.attr);
		fuse_reply(s, in->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		struct fuse_open_out o = { .fh = 1 };

		fuse_reply(s, in->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_READ: {
		const struct fuse_read_in *r = arg;

		if (in->nodeid == SLOW_INO && !atomic_load(&sh->answer) &&
		    s->nheld < 16) {
			/* Held: the page-in does not complete. */
			s->held[s->nheld] = in->unique;
			s->held_off[s->nheld] = r->offset;
			s->held_size[s->nheld++] = r->size;
			atomic_fetch_add(&sh->read_seen, 1);
			break;
		}
		fuse_read_reply(s, in->unique, r->offset, r->size);
		break;
	}
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		fuse_reply(s, in->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;		/* no reply */
	default:
		fuse_reply(s, in->unique, -ENOSYS, NULL, 0);
	}
}

/* Serve until ctl says stop; answer the held READs once sh->answer is set. */
static void *fuse_thread(void *arg)
{
	static char msg[FUSE_MIN_READ_BUFFER + 65536];
	struct fuse_srv *s = arg;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = s->dev, .events = POLLIN },
			{ .fd = s->ctl[0], .events = POLLIN },
		};
		char c;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents) {
			if (read(s->ctl[0], &c, 1) != 1 || c == 'q')
				break;
			if (atomic_load(&sh->answer)) {
				while (s->nheld) {
					s->nheld--;
					fuse_read_reply(s, s->held[s->nheld],
							s->held_off[s->nheld],
							s->held_size[s->nheld]);
				}
			}
		}
		if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL))
			break;
		if (p[0].revents & POLLIN) {
			ssize_t n = read(s->dev, msg, sizeof(msg));

			if (n < 0 && (errno == EINTR || errno == EAGAIN ||
				      errno == ENOENT))
				continue;
			if (n < (ssize_t)sizeof(struct fuse_in_header))
				break;
			fuse_handle(s, msg);
		}
	}
	return NULL;
}

static void fuse_poke(struct fuse_srv *s, char c)
{
	if (write(s->ctl[1], &c, 1) != 1)
		perror("fuse ctl");
}

/*
 * Mount the server at a fresh directory; KTAP_SKIP (HELPER_SKIP) when
 * there is no FUSE in this kernel.
 */
static int fuse_start(struct fuse_srv *s)
{
	char opts[128];

	memset(s, 0, sizeof(*s));
	s->dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (s->dev < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			HELPER_SKIP("/dev/fuse: %s (no FUSE in this kernel)",
				    strerror(errno));
		KTAP_FAIL_MSG("open /dev/fuse: %s", strerror(errno));
	}
	CHK_SYS(pipe2(s->ctl, O_CLOEXEC));
	snprintf(s->dir, sizeof(s->dir), "/tmp/nvsvm-fuse-XXXXXX");
	if (!mkdtemp(s->dir))
		KTAP_FAIL_MSG("mkdtemp: %s", strerror(errno));
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", s->dev);
	if (mount("nvsvm-test", s->dir, "fuse", MS_NOSUID | MS_NODEV,
		  opts) < 0)
		KTAP_FAIL_MSG("mount fuse: %s", strerror(errno));
	s->mounted = 1;
	CHK_EQ(pthread_create(&s->th, NULL, fuse_thread, s), 0);
	s->running = 1;
	return KTAP_PASS;
}

/*
 * Stop the server thread; @abort: close the device first (as when the
 * daemon dies), which fails every request in flight.
 */
static void fuse_stop(struct fuse_srv *s, int abort)
{
	if (abort && s->dev >= 0) {
		fuse_poke(s, 'q');
		if (s->running)
			pthread_join(s->th, NULL);
		s->running = 0;
		close(s->dev);
		s->dev = -1;
	}
	if (s->running) {
		fuse_poke(s, 'q');
		pthread_join(s->th, NULL);
		s->running = 0;
	}
	if (s->mounted)
		umount2(s->dir, MNT_DETACH);
	s->mounted = 0;
	if (s->dev >= 0)
		close(s->dev);
	s->dev = -1;
	rmdir(s->dir);
}

/* ---- the processes ---- */

/*
 * In a forked A or B: close the server's descriptors. The server dies
 * when the last descriptor of /dev/fuse is closed; a child's copy would
 * keep it alive.
 */
static void drop_server_fds(void)
{
	if (!srv_of_case)
		return;
	if (srv_of_case->dev >= 0)
		close(srv_of_case->dev);
	close(srv_of_case->ctl[0]);
	close(srv_of_case->ctl[1]);
}

/* Wait up to @ms for *@v to reach @want. */
static int wait_atomic(atomic_int *v, int want, uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	while (atomic_load(v) < want) {
		if (now_ms() >= end)
			return -1;
		usleep(5000);
	}
	return 0;
}

/*
 * Process B: its own file, area and channel, GPU work on GPC_B checked by
 * the CPU, then close(). Exit 0, or the stage that failed (b_msg says).
 */
static void run_b(void)
{
	uint64_t *src = anon(B_PAGES * PAGE), *dst = anon(B_PAGES * PAGE);
	uint64_t want = 0, t0, i;
	struct nvsvm_exec e;
	struct nvsvm_op op;
	struct fx f;
	int ret;

	drop_server_fds();
#define B_FAIL(stage, ...) do {						\
	snprintf(sh->b_msg, sizeof(sh->b_msg), __VA_ARGS__);		\
	sh->b_err = stage;						\
	_exit(stage);							\
} while (0)

	if (!src || !dst)
		B_FAIL(1, "mmap: %s", strerror(errno));
	for (i = 0; i < B_PAGES * WORDS; i++) {
		src[i] = 0xb0b0000000000000ULL + i * 7;
		want += src[i];
	}
	f.fd = nvsvm_open(dev_index);
	if (f.fd < 0)
		B_FAIL(1, "open: %s", strerror(-f.fd));
	ret = nvsvm_area_init(f.fd, WIN_ADDR, WIN_SIZE);
	if (!ret)
		ret = nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan);
	if (ret)
		B_FAIL(1, "area/channel: %s", strerror(-ret));
	atomic_store(&sh->b_stage, 1);

	op = nvsvm_op_sum(nvsvm_ptr(src), B_PAGES * PAGE);
	ret = nvsvm_exec(f.fd, f.chan, GPC_B, &op, 1, B_EXEC_MS, &e);
	if (ret || e.status != NVSVM_EXEC_OK)
		B_FAIL(2, "GPU SUM of %llu pages: ret %d, status %s",
		       (unsigned long long)B_PAGES, ret,
		       ret ? "-" : nvsvm_status_name(e.status));
	if (op.result != want)
		B_FAIL(2, "GPU SUM %#llx, expected %#llx",
		       (unsigned long long)op.result,
		       (unsigned long long)want);
	atomic_store(&sh->b_stage, 2);

	op = nvsvm_op_fill(nvsvm_ptr(dst), B_PAGES * PAGE, 0xb1b2b3b4ULL);
	ret = nvsvm_exec(f.fd, f.chan, GPC_B, &op, 1, B_EXEC_MS, &e);
	if (ret || e.status != NVSVM_EXEC_OK)
		B_FAIL(3, "GPU FILL of %llu pages: ret %d, status %s",
		       (unsigned long long)B_PAGES, ret,
		       ret ? "-" : nvsvm_status_name(e.status));
	for (i = 0; i < B_PAGES * WORDS; i++)
		if (dst[i] != 0xb1b2b3b4ULL)
			B_FAIL(3, "word %llu after the GPU FILL: %#llx",
			       (unsigned long long)i,
			       (unsigned long long)dst[i]);
	atomic_store(&sh->b_stage, 3);

	/* Channel destroy and area teardown both wait for fault work. */
	t0 = now_ms();
	close(f.fd);
	sh->b_ms = now_ms() - t0;
	atomic_store(&sh->b_stage, 4);
	_exit(0);
#undef B_FAIL
}

/* In a forked A or B: its file, area and joined channel, or _exit(1). */
static void child_open(struct fx *f)
{
	int ret;

	f->fd = nvsvm_open(dev_index);
	if (f->fd < 0)
		_exit(1);
	ret = nvsvm_area_init(f->fd, WIN_ADDR, WIN_SIZE);
	if (!ret)
		ret = nvsvm_chan_create(f->fd, NVSVM_CHAN_JOIN_AREA, &f->chan);
	if (ret)
		_exit(1);
}

/*
 * Process A: a GPU read on GPC_A of @p (a mapping whose page-in the test
 * controls), the outcome in sh. Exit 0, or 1 if it could not set up.
 */
static void run_a(const volatile uint64_t *p)
{
	struct nvsvm_op op = nvsvm_op_read(nvsvm_ptr(p)), ops[8];
	struct fx f;
	unsigned int i;

	drop_server_fds();
	if (!p)
		_exit(1);
	if (sh->a_anon_mb) {
		size_t i, len = (size_t)sh->a_anon_mb << 20;
		volatile uint8_t *m = anon(len);

		if (!m)
			_exit(1);
		for (i = 0; i < len; i += PAGE)
			m[i] = 1;
	}
	child_open(&f);
	atomic_store(&sh->a_stage, 1);
	if (sh->a_warps > 1) {
		/* Words of the same page, one warp each. */
		for (i = 0; i < sh->a_warps && i < 8; i++)
			ops[i] = nvsvm_op_read(nvsvm_ptr(p + i));
		sh->a_ret = nvsvm_exec_flags(f.fd, f.chan, sh->a_gpc,
					     NVSVM_EXEC_WARPS, ops, i,
					     A_EXEC_MS, &sh->a_exec);
		op = ops[0];
	} else {
		sh->a_ret = nvsvm_exec(f.fd, f.chan, GPC_A, &op, 1,
				       sh->a_exec_ms ?: A_EXEC_MS,
				       &sh->a_exec);
	}
	sh->a_result = op.result;
	atomic_store(&sh->a_stage, 2);
	close(f.fd);
	atomic_store(&sh->a_stage, 3);
	_exit(0);
}

/* Process A on word 5 of the second page of @p, the slow file's. */
static pid_t start_a(volatile uint64_t *p)
{
	pid_t a = fork();

	if (!a)
		run_a(p + WORDS + 5);
	return a;
}

static pid_t start_b(void)
{
	pid_t pid = fork();

	if (!pid)
		run_b();
	return pid;
}

/*
 * In process A: @pages of anonymous memory registered with a userfaultfd
 * (missing pages) that nobody reads; NULL on failure, the reason in
 * sh->b_msg. The registration is A's own: a fork does not inherit it.
 */
static volatile uint64_t *uffd_area(unsigned int pages)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	volatile uint64_t *p = anon(pages * PAGE);
	int uffd;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (!p || uffd < 0 || ioctl(uffd, UFFDIO_API, &api) < 0)
		return NULL;
	reg.range.start = nvsvm_ptr(p);
	reg.range.len = pages * PAGE;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
		return NULL;
	sh->a_base = nvsvm_ptr(p);
	return p;
}

/* GPU work, and the memory the processes of the case share. */
static int need_exec(void)
{
	if (!(info.caps & NVSVM_CAP_EXEC))
		HELPER_SKIP("no NVSVM_CAP_EXEC");
	sh = ktap_shared(sizeof(*sh));
	CHK_MAP(sh);
	return KTAP_PASS;
}

static int need_two_gpcs(void)
{
	if (info.gpc_count < 2)
		HELPER_SKIP("one GPC only: A and B need a GPC each");
	return need_exec();
}

/* B ran to the end: exact data, close() returned. */
static int check_b(int status)
{
	if (status == -1 && sh->b_err)
		KTAP_FAIL_MSG("B failed (%s), then its exit did not end within %u ms: close() hangs",
			      sh->b_msg, B_WAIT_MS);
	if (status == -1)
		KTAP_FAIL_MSG("B did not finish within %u ms (stage %d: %s)",
			      B_WAIT_MS, atomic_load(&sh->b_stage),
			      atomic_load(&sh->b_stage) == 3 ?
			      "close() did not return" : "GPU work stalled");
	if (status)
		KTAP_FAIL_MSG("B exited %d: %s", status, sh->b_msg);
	ktap_note("B: GPU work exact, close() took %llu ms",
		  (unsigned long long)sh->b_ms);
	return KTAP_PASS;
}

/* This device's pages_mapped and pt_bytes, once no earlier area closes. */
static int stats_baseline(uint64_t *pm, uint64_t *pt)
{
	CHECK(areas_settled(dev_index));
	CHK_OK(nvsvm_stat_read(dev_index, "pages_mapped", pm));
	CHK_OK(nvsvm_stat_read(dev_index, "pt_bytes", pt));
	return KTAP_PASS;
}

/*
 * The server's file "slow" (the case's server from now on), mapped shared
 * and read-only; NULL, with the server stopped, if that fails.
 */
static volatile uint64_t *slow_map(struct fuse_srv *srv)
{
	char path[96];
	void *p;
	int fd;

	srv_of_case = srv;
	snprintf(path, sizeof(path), "%s/slow", srv->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ktap_note("open %s: %s", path, strerror(errno));
		fuse_stop(srv, 1);
		return NULL;
	}
	p = mmap(NULL, FILE_PAGES * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		ktap_note("mmap %s: %s", path, strerror(errno));
		fuse_stop(srv, 1);
		return NULL;
	}
	return p;
}

/*
 * The FUSE cases. @abort: the server dies instead of answering. A's
 * expected outcome: the file's word (answer), or a cancelled read of the
 * page (abort). The server, its mount, A and B are gone before any check
 * ends the case.
 */
static void fuse_case(struct __test_metadata *_metadata, int abort)
{
	uint64_t pm0 = 0, pt0 = 0;
	int b_status, a_status, a_stage, ret = KTAP_PASS;
	struct fuse_srv srv;
	volatile uint64_t *p;
	pid_t a, b = -1;

	ASSERT_PASS_SKIP(need_two_gpcs());
	ASSERT_PASS(stats_baseline(&pm0, &pt0));
	ASSERT_PASS_SKIP(fuse_start(&srv));
	p = slow_map(&srv);
	ASSERT_NE(NULL, p);
	a = start_a(p);
	/* The fault path is now waiting for the server's READ answer. */
	ASSERT_EQ(0, wait_atomic(&sh->read_seen, 1, 10000)) {
		atomic_store(&sh->answer, 1);
		fuse_poke(&srv, 'a');
		wait_child_ms(a, A_WAIT_MS);
		fuse_stop(&srv, 1);
		TH_LOG("no READ of the file reached the server in 10 s (A stage %d)",
		       atomic_load(&sh->a_stage));
	}

	b = start_b();
	b_status = wait_child_ms(b, B_WAIT_MS);
	if (b_status == -1) {
		/* Unblock the fault path, so that B and A can end. */
		ret = check_b(b_status);
		atomic_store(&sh->answer, 1);
		fuse_poke(&srv, 'a');
		if (wait_child_ms(b, B_WAIT_MS) == -1) {
			kill(b, SIGKILL);
			wait_child_ms(b, B_WAIT_MS);
		}
	} else {
		ret = check_b(b_status);
	}
	/* A still waits on its page: B's work did not depend on it. */
	a_stage = atomic_load(&sh->a_stage);

	if (abort) {
		fuse_stop(&srv, 1);
	} else {
		atomic_store(&sh->answer, 1);
		fuse_poke(&srv, 'a');
	}
	a_status = wait_child_ms(a, A_WAIT_MS);
	fuse_stop(&srv, 1);
	munmap((void *)p, FILE_PAGES * PAGE);
	/* Cleaned up: from here on a check may end the case. */
	ASSERT_PASS(ret);
	ASSERT_EQ(1, a_stage) {
		TH_LOG("A's read ended before the server answered (A stage %d)",
		       a_stage);
	}
	ASSERT_NE(-1, a_status) {
		TH_LOG("A did not finish (stage %d)",
		       atomic_load(&sh->a_stage));
	}
	ASSERT_EQ(0, a_status);
	ASSERT_EQ(0, sh->a_ret);
	if (abort) {
		ASSERT_EQ(NVSVM_EXEC_FAULT, sh->a_exec.status) {
			TH_LOG("A: status %s, expected FAULT (server gone)",
			       nvsvm_status_name(sh->a_exec.status));
		}
		ASSERT_EQ(nvsvm_ptr(p) + PAGE,
			  sh->a_exec.fault_addr & ~(PAGE - 1));
	} else {
		ASSERT_EQ(NVSVM_EXEC_OK, sh->a_exec.status) {
			TH_LOG("A: status %s, expected OK once answered",
			       nvsvm_status_name(sh->a_exec.status));
		}
		ASSERT_EQ(file_word(PAGE + 8 * 5), sh->a_result);
	}
	/* Every table and mapping of A and B is given back. */
	ASSERT_PASS(stats_become(dev_index, "pages_mapped", pm0, "pt_bytes",
				 pt0));
}

TEST_F_TIMEOUT(blocking, fuse_read_unanswered, 150)
{
	fuse_case(_metadata, 0);
}

TEST_F_TIMEOUT(blocking, fuse_server_dies, 150)
{
	fuse_case(_metadata, 1);
}

/*
 * A is killed while the fault path waits in the page-in of its GPU read.
 * A must end before the server answers: its area's teardown waits for no
 * fault work. The area, let go by A's file but still held by the fault
 * work in the page-in, counts in debugfs areas_closing (areas_settled()
 * relies on it); once the server answers, it goes with every table.
 */
TEST_F_TIMEOUT(blocking, fuse_owner_killed, 150)
{
	uint64_t pm0 = 0, pt0 = 0, closing = 0;
	int a_status, early, ret;
	struct fuse_srv srv;
	volatile uint64_t *p;
	pid_t a;

	ASSERT_PASS_SKIP(need_exec());
	if (nvsvm_stat_read(dev_index, "areas_closing", &closing))
		SKIP(return, "no debugfs areas_closing");
	ASSERT_PASS(stats_baseline(&pm0, &pt0));
	ASSERT_PASS_SKIP(fuse_start(&srv));
	p = slow_map(&srv);
	ASSERT_NE(NULL, p);
	a = start_a(p);
	ret = wait_atomic(&sh->read_seen, 1, 10000);
	kill(a, SIGKILL);
	early = wait_child_ms(a, B_WAIT_MS);
	/* The READ still held: A's area waits for its fault work. */
	if (nvsvm_stat_read(dev_index, "areas_closing", &closing))
		closing = ~0ULL;
	atomic_store(&sh->answer, 1);
	fuse_poke(&srv, 'a');
	a_status = early == -1 ? wait_child_ms(a, A_WAIT_MS) : early;
	fuse_stop(&srv, 1);
	munmap((void *)p, FILE_PAGES * PAGE);
	/* Cleaned up: from here on a check may end the case. */
	ASSERT_EQ(0, ret) {
		TH_LOG("no READ of the file reached the server in 10 s");
	}
	ASSERT_EQ(128 + SIGKILL, a_status) {
		TH_LOG("A did not end by SIGKILL (stage %d)",
		       atomic_load(&sh->a_stage));
	}
	ASSERT_NE(-1, early) {
		TH_LOG("A's exit waited for its page-in (%d ms)", B_WAIT_MS);
	}
	ASSERT_EQ(1, closing);
	ASSERT_PASS(stats_become(dev_index, "areas_closing", 0, NULL, 0));
	ASSERT_PASS(stats_become(dev_index, "pages_mapped", pm0, "pt_bytes",
				 pt0));
}

/* MemAvailable, in kB; 0 if /proc/meminfo cannot be read. */
static uint64_t mem_available_kb(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Wait up to @ms for MemAvailable to reach @want kB; the last value read. */
static uint64_t wait_mem_available(uint64_t want, uint64_t ms)
{
	uint64_t end = now_ms() + ms, kb;

	for (;;) {
		kb = mem_available_kb();
		if (kb >= want || now_ms() >= end)
			return kb;
		usleep(20000);
	}
}

/*
 * A, with A_ANON_MB of anonymous memory written, is killed while the
 * fault path waits in the page-in of its GPU read. Its memory must come
 * back before the server answers: what waits for the server holds the
 * file, not A's address space (issue 32 d3: the area work's mm reference
 * kept all of it until the answer).
 */
TEST_F_TIMEOUT(blocking, fuse_owner_killed_memory, 150)
{
	uint64_t m0, m1, m2 = 0;
	int a_status, early, ret;
	struct fuse_srv srv;
	volatile uint64_t *p;
	pid_t a;

	ASSERT_PASS_SKIP(need_exec());
	ASSERT_PASS_SKIP(fuse_start(&srv));
	p = slow_map(&srv);
	ASSERT_NE(NULL, p);
	sh->a_anon_mb = A_ANON_MB;
	m0 = mem_available_kb();
	a = start_a(p);
	ret = wait_atomic(&sh->read_seen, 1, 10000);
	/* A wrote its memory before it opened the GPU: it is all in use. */
	m1 = mem_available_kb();
	kill(a, SIGKILL);
	early = wait_child_ms(a, B_WAIT_MS);
	if (!ret && early != -1)
		m2 = wait_mem_available(m1 + A_BACK_KB, A_BACK_MS);
	atomic_store(&sh->answer, 1);
	fuse_poke(&srv, 'a');
	a_status = early == -1 ? wait_child_ms(a, A_WAIT_MS) : early;
	fuse_stop(&srv, 1);
	munmap((void *)p, FILE_PAGES * PAGE);
	/* Cleaned up: from here on a check may end the case. */
	ASSERT_EQ(0, ret) {
		TH_LOG("no READ of the file reached the server in 10 s");
	}
	ASSERT_EQ(128 + SIGKILL, a_status);
	ASSERT_NE(-1, early) {
		TH_LOG("A's exit waited for its page-in (%d ms)", B_WAIT_MS);
	}
	ASSERT_LE(m1 + A_BACK_KB, m0) {
		TH_LOG("A's %u MiB did not show in MemAvailable: %llu -> %llu kB",
		       A_ANON_MB, (unsigned long long)m0,
		       (unsigned long long)m1);
	}
	ASSERT_LE(m1 + A_BACK_KB, m2) {
		TH_LOG("MemAvailable %llu kB before A, %llu with A's %u MiB, %llu %u ms after A was reaped, the READ still held: A's memory is kept",
		       (unsigned long long)m0, (unsigned long long)m1,
		       A_ANON_MB, (unsigned long long)m2, A_BACK_MS);
	}
	ktap_note("MemAvailable %llu -> %llu -> %llu kB",
		  (unsigned long long)m0, (unsigned long long)m1,
		  (unsigned long long)m2);
}

/*
 * owed_replay_behind_held_pagein: an overflow whose only entries went to
 * an area whose work waits in a held page-in, while another process's
 * access was dropped: the replay that access needs can come only from the
 * device's owed-replay fallback (nvsvm_fault_owed_work()). Pinned on the
 * model (docs/gp100.md): a replay retries the stalled accesses GPC by
 * GPC, in order; a retry that faults again takes an entry at once; an
 * entry is readable fault_valid_delay_us after the driver read PUT. With
 * 4 entries (3 usable) and a 100 ms delay: A's 3 warps on GPC 1 wait in
 * the held page-in; B's one warp on GPC 0 sums OWED_PAGES pages. Each
 * replay lets B's served access go on and A's 3 accesses fault again,
 * filling the buffer for at least 100 ms; B's next access, on the next
 * page, finds it full and is dropped (OVERFLOW). The device work then
 * reads A's 3 entries alone: only the fallback replays B's access. Without
 * it, B's EXEC times out.
 */
#define OWED_PAGES	6
#define OWED_EXEC_MS	20000
#define OWED_DELAY_US	50000

/* Process B of that case: SUM of OWED_PAGES pages on GPC 0. */
static void run_b_owed(void)
{
	uint64_t *src = anon(OWED_PAGES * PAGE), want = 0, i;
	struct nvsvm_exec e;
	struct nvsvm_op op;
	struct fx f;
	int ret;

	drop_server_fds();
	if (!src)
		_exit(1);
	for (i = 0; i < OWED_PAGES * WORDS; i++) {
		src[i] = 0x0bed000000000000ULL + i;
		want += src[i];
	}
	child_open(&f);
	op = nvsvm_op_sum(nvsvm_ptr(src), OWED_PAGES * PAGE);
	ret = nvsvm_exec(f.fd, f.chan, 0, &op, 1, OWED_EXEC_MS, &e);
	if (ret || e.status != NVSVM_EXEC_OK) {
		snprintf(sh->b_msg, sizeof(sh->b_msg),
			 "GPU SUM of %u pages: ret %d, status %s", OWED_PAGES,
			 ret, ret ? "-" : nvsvm_status_name(e.status));
		_exit(2);
	}
	if (op.result != want) {
		snprintf(sh->b_msg, sizeof(sh->b_msg), "GPU SUM %#llx, expected %#llx",
			 (unsigned long long)op.result,
			 (unsigned long long)want);
		_exit(2);
	}
	close(f.fd);
	_exit(0);
}

TEST_F_TIMEOUT(blocking, owed_replay_behind_held_pagein, 150)
{
	uint64_t ov0 = 0, ov1 = 0;
	int b_status, a_status, ret;
	struct fuse_srv srv;
	volatile uint64_t *p;
	pid_t a, b;

	ASSERT_PASS_SKIP(need_two_gpcs());
	if (info.fault_buffer_entries != 4 ||
	    vgpu_param("fault_valid_delay_us") < OWED_DELAY_US ||
	    vgpu_param("tpcs_per_gpc") < 3)
		SKIP(return, "needs nvsvm_vgpu fault_entries=4 fault_valid_delay_us>=%u (tests/guest-owed-replay.sh)",
		     OWED_DELAY_US);
	ASSERT_PASS_SKIP(fuse_start(&srv));
	p = slow_map(&srv);
	ASSERT_NE(NULL, p);
	/* A: 3 warps on 3 TPCs of GPC 1, one page of the slow file. */
	sh->a_warps = 3;
	sh->a_gpc = 1;
	a = start_a(p);
	ret = wait_atomic(&sh->read_seen, 1, 10000);
	if (nvsvm_stat_read(dev_index, "overflows", &ov0))
		ov0 = ~0ULL;
	b = fork();
	if (!b)
		run_b_owed();
	b_status = ret ? -1 : wait_child_ms(b, OWED_EXEC_MS + 5000);
	if (nvsvm_stat_read(dev_index, "overflows", &ov1))
		ov1 = 0;
	if (b_status == -1) {
		kill(b, SIGKILL);
		wait_child_ms(b, B_WAIT_MS);
	}
	atomic_store(&sh->answer, 1);
	fuse_poke(&srv, 'a');
	a_status = wait_child_ms(a, A_WAIT_MS);
	if (a_status == -1) {
		kill(a, SIGKILL);
		wait_child_ms(a, B_WAIT_MS);
	}
	fuse_stop(&srv, 1);
	munmap((void *)p, FILE_PAGES * PAGE);
	/* Cleaned up: from here on a check may end the case. */
	ASSERT_EQ(0, ret) {
		TH_LOG("no READ of the file reached the server in 10 s");
	}
	ASSERT_EQ(0, b_status) {
		TH_LOG("B: %s (exit %d): its dropped access was never replayed",
		       sh->b_msg, b_status);
	}
	/* The premise: B's accesses were dropped by overflows. */
	ASSERT_LT(ov0, ov1) {
		TH_LOG("no overflow while B ran (overflows %llu -> %llu)",
		       (unsigned long long)ov0, (unsigned long long)ov1);
	}
	ktap_note("overflows while B ran: %llu",
		  (unsigned long long)(ov1 - ov0));
	ASSERT_EQ(0, a_status);
	ASSERT_EQ(0, sh->a_ret);
}

/*
 * A's GPU read hits a userfaultfd-registered page that nobody serves: it
 * waits (its EXEC stops after UFFD_A_EXEC_MS, the access still parked),
 * B works meanwhile; A's close() lets the access go, counted in
 * uffd_unanswered.
 */
#define UFFD_A_EXEC_MS	5000

TEST_F_TIMEOUT(blocking, uffd_unanswered, 150)
{
	int uffd, b_status, a_status;
	uint64_t u0 = 0;
	pid_t a, b;

	ASSERT_PASS_SKIP(need_two_gpcs());
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	close(uffd);
	ASSERT_EQ(0, nvsvm_stat_read(dev_index, "uffd_unanswered", &u0));

	sh->a_exec_ms = UFFD_A_EXEC_MS;
	a = fork();
	if (!a) {
		volatile uint64_t *p = uffd_area(4);

		run_a(p ? p + 2 * WORDS : NULL);
	}
	b = start_b();
	b_status = wait_child_ms(b, B_WAIT_MS);
	a_status = wait_child_ms(a, A_WAIT_MS);
	if (b_status == -1 || a_status == -1) {
		kill(a, SIGKILL);
		wait_child_ms(b, B_WAIT_MS);
		wait_child_ms(a, A_WAIT_MS);
	}
	ASSERT_PASS(check_b(b_status));
	ASSERT_NE(-1, a_status) {
		TH_LOG("A did not finish (stage %d)",
		       atomic_load(&sh->a_stage));
	}
	ASSERT_EQ(0, a_status);
	ASSERT_EQ(0, sh->a_ret);
	ASSERT_EQ(NVSVM_EXEC_TIMEOUT, sh->a_exec.status) {
		TH_LOG("A: status %s, expected TIMEOUT (waiting)",
		       nvsvm_status_name(sh->a_exec.status));
	}
	ASSERT_PASS(stats_become(dev_index, "uffd_unanswered", u0 + 1, NULL,
				 0));
}

/*
 * The helper of tests/guest-pagein-held.sh (NVSVM_BLOCKING_HOLD=DIR): A's
 * GPU read waits in a held page-in, A is killed and reaped (its file is
 * closed), then DIR/ready is created; the READ is answered once DIR/answer
 * exists (at most 120 s later). Exit 0, or 1 with the reason on stderr.
 */
static int hold_main(const char *dir)
{
	struct fuse_srv srv;
	volatile uint64_t *p;
	pid_t a;
	int st;

	sh = ktap_shared(sizeof(*sh));
	if (!sh || fuse_start(&srv) != KTAP_PASS) {
		fprintf(stderr, "hold: no shared memory or FUSE\n");
		return 1;
	}
	p = slow_map(&srv);
	if (!p)
		return 1;
	a = start_a(p);
	if (wait_atomic(&sh->read_seen, 1, 10000)) {
		fprintf(stderr, "hold: no READ reached the server in 10 s\n");
		atomic_store(&sh->answer, 1);
		fuse_poke(&srv, 'a');
		wait_child_ms(a, A_WAIT_MS);
		fuse_stop(&srv, 1);
		return 1;
	}
	kill(a, SIGKILL);
	st = wait_child_ms(a, B_WAIT_MS);
	hold_ready_wait(dir, st);
	atomic_store(&sh->answer, 1);
	fuse_poke(&srv, 'a');
	if (st == -1)
		st = wait_child_ms(a, A_WAIT_MS);
	fuse_stop(&srv, 1);
	munmap((void *)p, FILE_PAGES * PAGE);
	if (st != 128 + SIGKILL) {
		fprintf(stderr, "hold: A ended with %d, not by SIGKILL\n", st);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *hold = getenv("NVSVM_BLOCKING_HOLD");

	if (hold && *hold)
		return hold_main(hold);
	return test_harness_main(argc, argv, 0);
}
