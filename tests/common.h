/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the nvsvm test programs share: the device fixture (one file, one
 * SVM area with the usual unmanaged window, one channel), GPU helpers that
 * run EXEC programs and check their status, and the main() every program
 * has (skip the whole program when the device or a capability is missing).
 *
 * Every program is on the kernel's kselftest_harness.h: it includes it
 * before this file and gets the fixtures below (FIXTURE_FX ...) and
 * test_harness_main(). A program that needs its own timeout defines
 * TIMEOUT_MS before including this file.
 *
 * One assertion style, in two layers:
 * - a helper (here or a program's own) that checks something returns
 *   check.h's KTAP_PASS/KTAP_FAIL (KTAP_SKIP through HELPER_SKIP) and says
 *   why in a note: CHECK, CHK_*, KTAP_FAIL_MSG; never the harness's
 *   ASSERT_*, so that helpers call helpers and run in children and threads;
 * - a case asserts with the harness: ASSERT_PASS(helper(...)) (or
 *   ASSERT_PASS_SKIP), ASSERT_SYS(call) for a call returning -1 and errno,
 *   ASSERT_MAP(p) for a mapping, ASSERT_EQ/LE/... on values. The macros
 *   below that open files (FX_OPEN, OPEN_DEV, OPEN_AREA, CG_ENTER) are
 *   ASSERT_PASS of a helper.
 * A helper that only reads a value (vgpu_stat_read(), set_param(),
 * cg_read(), ...) returns 0 or a negative errno, as libnvsvm does, and
 * asserts nothing.
 */
#ifndef NVSVM_TESTS_COMMON_H
#define NVSVM_TESTS_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libnvsvm.h"
#include "check.h"

#define WIN_ADDR	(1ULL << 36)
#define WIN_SIZE	(1ULL << 30)
#define PAGE		4096ULL
#define WORDS		(PAGE / 8)
#define MiB		(1ULL << 20)
#ifndef TIMEOUT_MS
#define TIMEOUT_MS	600000
#endif

/*
 * The device under test, /dev/nvsvm<dev_index>: 0, or $NVSVM_DEVICE (set
 * by test_harness_main()), to point the suite at another GPU, e.g. a real
 * one while nvsvm_vgpu is loaded too.
 */
static unsigned int dev_index;

/* GET_INFO of that device, filled before the cases run. */
static struct nvsvm_get_info info;

/* ioctl(2) with the kernel's errno as a negative return value. */
static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/* A case's device: the open file and a channel on it. */
struct fx {
	int fd;
	uint32_t chan;
};

/*
 * Provider-neutral tests. The device may be the virtual GP100 (nvsvm_vgpu) or
 * a real GP100-family GPU registered by the patched nouveau (src/pascal.c).
 * Only the virtual one runs EXEC programs (NVSVM_CAP_EXEC), has VRAM for
 * the core and the GPC count of its module parameter: a case that checks
 * one of those uses NEED_CAP(NVSVM_CAP_EXEC) or NEED_VGPU(); the rest (the
 * ioctl rules, the mirror seen through MAP/QUERY, the core's debugfs
 * counters) runs on any provider. is_vgpu() tells them apart by the parent
 * device of the misc device: the platform device "nvsvm_vgpu.N".
 */
static inline int is_vgpu(void)
{
	char path[64], link[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/misc/nvsvm%u/device",
		 dev_index);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	return !strncmp(base, "nvsvm_vgpu.", 11);
}

/* Anonymous private memory, never touched; NULL on failure. */
static inline void *anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Transparent huge pages. thp_block(): a 2 MiB-aligned block with
 * MADV_HUGEPAGE, not touched; NULL on failure. is_thp() and anon_huge_kb()
 * need root (/proc/self/pagemap pfns, /proc/kpageflags) to tell whether the
 * kernel really gave one: a case skips when it did not.
 */
#define THP_SIZE	(2 * MiB)
#define KPF_THP		22

static inline uint64_t *thp_block(void)
{
	char *p = anon(2 * THP_SIZE);

	if (!p)
		return NULL;
	p = (char *)(((uintptr_t)p + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (madvise(p, THP_SIZE, MADV_HUGEPAGE))
		return NULL;
	return (uint64_t *)p;
}

/* Does the page at @p belong to a THP? -1 when it cannot be told. */
static inline int is_thp(const void *p)
{
	uint64_t ent, flags;
	int fd, ret = -1;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &ent, 8, (uintptr_t)p / PAGE * 8) != 8 ||
	    !(ent & (1ULL << 63)) || !(ent & ((1ULL << 55) - 1)))
		goto out;
	close(fd);
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &flags, 8, (ent & ((1ULL << 55) - 1)) * 8) == 8)
		ret = !!(flags & (1ULL << KPF_THP));
out:
	close(fd);
	return ret;
}

/* kB of AnonHugePages (PMD-mapped THP) of the VMA holding @p; -1 error. */
static inline long anon_huge_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long lo, hi, v;
	char line[256];
	int inside = 0;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			if (inside)
				break;
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (inside &&
			   sscanf(line, "AnonHugePages: %lu kB", &v) == 1) {
			kb = v;
		}
	}
	fclose(f);
	return kb;
}

/*
 * Run @n operations on GPC @gpc (or NVSVM_GPC_ANY), stopped after
 * @timeout_ms; the outcome is in *@e. A program that stopped on a fault
 * leaves its channel in the error state: replace it, so that the next call
 * runs on a working channel.
 */
static inline int gpu_run_on(struct fx *f, uint32_t gpc, uint32_t timeout_ms,
			     struct nvsvm_op *ops, unsigned int n,
			     struct nvsvm_exec *e)
{
	CHK_OK(nvsvm_exec(f->fd, f->chan, gpc, ops, n, timeout_ms, e));
	if (e->status != NVSVM_EXEC_OK) {
		CHK_OK(nvsvm_chan_destroy(f->fd, f->chan));
		CHK_OK(nvsvm_chan_create(f->fd, NVSVM_CHAN_JOIN_AREA,
					    &f->chan));
	}
	return KTAP_PASS;
}

/* Run @n operations on any GPC; the outcome is in *@e (gpu_run_on()). */
static inline int gpu_run(struct fx *f, struct nvsvm_op *ops, unsigned int n,
			  struct nvsvm_exec *e)
{
	return gpu_run_on(f, NVSVM_GPC_ANY, TIMEOUT_MS, ops, n, e);
}

/* Run @n operations that must all complete; results are in @ops. */
static inline int gpu_ok(struct fx *f, struct nvsvm_op *ops, unsigned int n)
{
	struct nvsvm_exec e;

	CHECK(gpu_run(f, ops, n, &e));
	if (e.status != NVSVM_EXEC_OK)
		KTAP_FAIL_MSG("status %s after %u of %u ops (first op %u at %#llx), expected OK (fault at %#llx, %s)",
			      nvsvm_status_name(e.status), e.done, n,
			      ops[0].code, (unsigned long long)ops[0].addr,
			      (unsigned long long)e.fault_addr,
			      nvsvm_access_name(e.fault_access));
	CHK_EQ(e.done, n);
	return KTAP_PASS;
}

/* One operation that must complete; its result in *@result if not NULL. */
static inline int gpu_ok1(struct fx *f, struct nvsvm_op op, uint64_t *result)
{
	CHECK(gpu_ok(f, &op, 1));
	if (result)
		*result = op.result;
	return KTAP_PASS;
}

static inline int gpu_read_eq(struct fx *f, const volatile void *p,
			      uint64_t want)
{
	uint64_t got;

	CHECK(gpu_ok1(f, nvsvm_op_read(nvsvm_ptr(p)), &got));
	if (got != want)
		KTAP_FAIL_MSG("GPU read at %p: expected %#llx, got %#llx",
			      (const void *)p, (unsigned long long)want,
			      (unsigned long long)got);
	return KTAP_PASS;
}

/* The GPU sums the @size bytes at @p and finds @want. */
static inline int gpu_sum_eq(struct fx *f, const void *p, size_t size,
			     uint64_t want)
{
	uint64_t got;

	CHECK(gpu_ok1(f, nvsvm_op_sum(nvsvm_ptr(p), size), &got));
	if (got != want)
		KTAP_FAIL_MSG("GPU SUM of %zu bytes at %p: %#llx, expected %#llx",
			      size, p, (unsigned long long)got,
			      (unsigned long long)want);
	return KTAP_PASS;
}

/* One operation that must be cancelled on the page @page with @access. */
static inline int gpu_fault(struct fx *f, struct nvsvm_op op, uint64_t page,
			    uint32_t access)
{
	struct nvsvm_exec e;

	CHECK(gpu_run(f, &op, 1, &e));
	if (e.status != NVSVM_EXEC_FAULT)
		KTAP_FAIL_MSG("op %u at %#llx: status %s, expected FAULT",
			      op.code, (unsigned long long)op.addr,
			      nvsvm_status_name(e.status));
	CHK_EQ(e.fault_addr & ~(PAGE - 1), page);
	if (e.fault_access != access)
		KTAP_FAIL_MSG("fault_access %s, expected %s",
			      nvsvm_access_name(e.fault_access),
			      nvsvm_access_name(access));
	CHK_EQ(e.done, 0);
	return KTAP_PASS;
}

/*
 * Several EXECs at once: one thread per job, all released together by a
 * barrier, so that their faults meet in the same batches. The caller
 * fills in fd, chan, gpc, ops and nops (and timeout_ms, or 0 for
 * TIMEOUT_MS; flags, NVSVM_EXEC_WARPS and NVSVM_EXEC_SLOT(), or 0); the
 * outcome is in ret and e, the results in ops.
 */
#define GPU_JOB_OPS	256

struct gpu_job {
	int fd;
	uint32_t chan, gpc, timeout_ms, flags;
	struct nvsvm_op ops[GPU_JOB_OPS];
	unsigned int nops;
	pthread_barrier_t *bar;
	pthread_t th;
	struct nvsvm_exec e;
	int ret;
};

static inline void *gpu_job_thread(void *arg)
{
	struct gpu_job *j = arg;

	pthread_barrier_wait(j->bar);
	j->ret = nvsvm_exec_flags(j->fd, j->chan, j->gpc, j->flags, j->ops,
				  j->nops, j->timeout_ms ? j->timeout_ms :
				  TIMEOUT_MS, &j->e);
	return NULL;
}

/* A channel of its own for each of the @n jobs, on the job's fd. */
static inline int gpu_jobs_chans(struct gpu_job *jobs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		CHK_OK(nvsvm_chan_create(jobs[i].fd, NVSVM_CHAN_JOIN_AREA,
					    &jobs[i].chan));
	return KTAP_PASS;
}

/*
 * Start the threads of @n jobs, waiting at @bar (which counts them and
 * whatever other threads the caller starts at the same time).
 */
static inline int gpu_jobs_start(struct gpu_job *jobs, unsigned int n,
				 pthread_barrier_t *bar)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		jobs[i].bar = bar;
		CHK_EQ(pthread_create(&jobs[i].th, NULL, gpu_job_thread,
					 &jobs[i]), 0);
	}
	return KTAP_PASS;
}

/* Wait for the @n jobs: each must have completed all its operations. */
static inline int gpu_jobs_finish(struct gpu_job *jobs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pthread_join(jobs[i].th, NULL);
	for (i = 0; i < n; i++) {
		CHK_OK(jobs[i].ret);
		if (jobs[i].e.status != NVSVM_EXEC_OK)
			KTAP_FAIL_MSG("job %u (GPC %u): status %s after %u of %u ops (fault at %#llx, %s)",
				      i, jobs[i].gpc,
				      nvsvm_status_name(jobs[i].e.status),
				      jobs[i].e.done, jobs[i].nops,
				      (unsigned long long)jobs[i].e.fault_addr,
				      nvsvm_access_name(jobs[i].e.fault_access));
		CHK_EQ(jobs[i].e.done, jobs[i].nops);
	}
	return KTAP_PASS;
}

/* Run @n jobs at once; all must complete. */
static inline int gpu_jobs_run(struct gpu_job *jobs, unsigned int n)
{
	pthread_barrier_t bar;

	pthread_barrier_init(&bar, NULL, n);
	/* On failure threads may wait at @bar: the case ends anyway. */
	CHECK(gpu_jobs_start(jobs, n, &bar));
	CHECK(gpu_jobs_finish(jobs, n));
	pthread_barrier_destroy(&bar);
	return KTAP_PASS;
}

/*
 * The @n jobs were atomic adds (all their ops) on one word: every add
 * returned a different old value below @total, i.e. each was applied
 * exactly once. @seen: @total bytes, all zero.
 */
static inline int gpu_jobs_adds_once(const struct gpu_job *jobs,
				     unsigned int n, uint64_t total,
				     unsigned char *seen)
{
	unsigned int i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < jobs[i].nops; k++) {
			uint64_t r = jobs[i].ops[k].result;

			CHK_TRUE(r < total && !seen[r],
				    "job %u (GPC %u) add %u returned %llu", i,
				    jobs[i].gpc, k, (unsigned long long)r);
			seen[r] = 1;
		}
	return KTAP_PASS;
}

/* QUERY bits of a page the GPU maps in its VRAM. */
#define IN_VRAM		(NVSVM_QUERY_VALID | NVSVM_QUERY_VRAM)

/* Every page of [p, p + n pages) has (QUERY entry & mask) == want. */
static inline int query_expect(struct fx *f, const void *p, unsigned int n,
			       uint32_t mask, uint32_t want)
{
	uint32_t q[512];
	unsigned int i;

	if (n > 512)
		KTAP_FAIL_MSG("query_expect: n %u", n);
	CHK_OK(nvsvm_query(f->fd, nvsvm_ptr(p), n, q));
	for (i = 0; i < n; i++)
		if ((q[i] & mask) != want)
			KTAP_FAIL_MSG("QUERY page %u of %p: %#x, expected (x & %#x) == %#x",
				      i, p, q[i], mask, want);
	return KTAP_PASS;
}

/* Every one of @nwords words at @p is @v. */
static inline int cpu_check(const volatile uint64_t *p, size_t nwords,
			    uint64_t v)
{
	size_t i;

	for (i = 0; i < nwords; i++)
		if (p[i] != v)
			KTAP_FAIL_MSG("word %zu at %p: %#llx, expected %#llx",
				      i, (const void *)&p[i],
				      (unsigned long long)p[i],
				      (unsigned long long)v);
	return KTAP_PASS;
}

/*
 * The exit status of the child @pid once it ended: its exit code, 128 +
 * the signal that killed it, or -1 if waitpid() failed. A case that runs
 * a check in a forked child has it _exit() 0 (or a code naming the step
 * that failed, or the result) and checks CHK_EQ(wait_child(pid), 0).
 */
static inline int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Pass the descriptor @fd to another process over the AF_UNIX socket
 * @sock (SCM_RIGHTS), with the @len bytes at @data (at least one) as the
 * message. 0, or -1 with errno set.
 */
static inline int send_fd(int sock, int fd, const void *data, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == (ssize_t)len ? 0 : -1;
}

/*
 * Receive what send_fd() sent: the @len bytes of the message into @data;
 * returns the new descriptor, or -1.
 */
static inline int recv_fd(int sock, void *data, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = data, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_WAITALL) != (ssize_t)len)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * Wait until the debugfs counter @name of device @dev is @want and, if
 * @name2 is not NULL, @name2 is @want2 at the same time; fail if that
 * does not happen within about 5 s. A bounded wait for a state, not a
 * timed assertion: counters drop when the last reference goes, which for
 * an exiting process or a closed file may be just after waitpid() or
 * close() returned.
 */
static inline int stats_become(unsigned int dev, const char *name,
			       uint64_t want, const char *name2,
			       uint64_t want2)
{
	uint64_t v = 0, v2 = want2;
	int i;

	for (i = 0; i < 500; i++) {
		CHK_OK(nvsvm_stat_read(dev, name, &v));
		if (name2)
			CHK_OK(nvsvm_stat_read(dev, name2, &v2));
		if (v == want && v2 == want2)
			return KTAP_PASS;
		usleep(10000);
	}
	KTAP_FAIL_MSG("debugfs %s %llu, expected %llu; %s %llu, expected %llu",
		      name, (unsigned long long)v, (unsigned long long)want,
		      name2 ? name2 : "-", (unsigned long long)v2,
		      (unsigned long long)want2);
}

/*
 * Wait until no area let go by its file is still being freed on device
 * @dev (debugfs areas_closing 0): an area goes when its fault work lets go
 * of it, which may be after the process that closed it was reaped, so an
 * earlier case's area may still hold page tables. A case that takes the
 * device-wide pt_bytes or pages_mapped as its baseline calls this first.
 * Passes at once without the counter; fails after about 10 s.
 */
static inline int areas_settled(unsigned int dev)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 1000; i++) {
		if (nvsvm_stat_read(dev, "areas_closing", &v) || !v)
			return KTAP_PASS;
		usleep(10000);
	}
	KTAP_FAIL_MSG("debugfs areas_closing still %llu after 10 s",
		      (unsigned long long)v);
}

/*
 * A counter of the virtual GP100 behind the device under test
 * (/sys/kernel/debug/nvsvm_vgpu/gpu<N>/<name>, docs/gp100.md): 0, or a
 * negative errno (-ENOENT: not the virtual GP100, or no debugfs), as
 * nvsvm_vgpu_stat_read().
 */
static inline int vgpu_stat_read(const char *name, uint64_t *val)
{
	return nvsvm_vgpu_stat_read(dev_index, name, val);
}

/*
 * A module parameter of nvsvm_vgpu (tpcs_per_gpc, sms_per_tpc, ...: the
 * warp slot to TPC and client mapping of uapi/nvsvm_vgpu.h); 0 when it
 * cannot be read.
 */
static inline unsigned int vgpu_param(const char *name)
{
	char path[128];
	unsigned int v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/nvsvm_vgpu/parameters/%s",
		 name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%u", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/*
 * Write @v to the module parameter file @path; the value it held before
 * in *@old unless @old is NULL (a bool reads back as Y or N). 0 or -errno.
 */
static inline int set_param(const char *path, unsigned int v,
			    unsigned int *old)
{
	char buf[32];
	int fd = open(path, O_RDWR), n, ret = 0;

	if (fd < 0)
		return errno ? -errno : -EIO;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		close(fd);
		return -EIO;
	}
	buf[n] = '\0';
	if (old)
		*old = buf[0] == 'Y' ? 1 : buf[0] == 'N' ? 0 :
		       strtoul(buf, NULL, 10);
	n = snprintf(buf, sizeof(buf), "%u\n", v);
	if (pwrite(fd, buf, n, 0) != n)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * The device under test: pick it ($NVSVM_DEVICE, default 0) and read its
 * GET_INFO into @info. 0, or -1 with why the whole program cannot run
 * (the device is missing or lacks @need_caps) in @why.
 */
static inline int test_device(uint32_t need_caps, char *why, size_t len)
{
	const char *env = getenv("NVSVM_DEVICE");
	int fd, ret;

	if (env && *env)
		dev_index = strtoul(env, NULL, 10);
	fd = nvsvm_open(dev_index);
	if (fd < 0) {
		snprintf(why, len, "/dev/nvsvm%u: %s", dev_index,
			 strerror(-fd));
		return -1;
	}
	ret = nvsvm_get_info(fd, &info);
	close(fd);
	if (ret) {
		snprintf(why, len, "GET_INFO: %s", strerror(-ret));
		return -1;
	}
	if ((info.caps & need_caps) != need_caps) {
		snprintf(why, len, "capabilities %#x missing",
			 need_caps & ~info.caps);
		return -1;
	}
	return 0;
}

/* CLOCK_MONOTONIC in ms. */
static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/*
 * Wait up to @ms for the child @pid: its status as wait_child() gives it,
 * -1 if still running, -2 if it is not a child.
 */
static inline int wait_child_ms(pid_t pid, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
			       128 + WTERMSIG(status);
		if (r < 0)
			return -2;
		if (now_ms() >= end)
			return -1;
		usleep(10000);
	}
}

/*
 * The helper modes of the guest scripts that hold something across the
 * modules' removal (tests/guest-pagein-held.sh, guest-uffd-held.sh):
 * write @st to DIR/ready, then wait for DIR/answer, at most 120 s.
 */
static inline void hold_ready_wait(const char *dir, int st)
{
	char path[256];
	uint64_t end;
	int fd;

	snprintf(path, sizeof(path), "%s/ready", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dprintf(fd, "%d\n", st);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/answer", dir);
	end = now_ms() + 120000;
	while (access(path, F_OK) && now_ms() < end)
		usleep(20000);
}

#ifdef __KSELFTEST_HARNESS_H
/*
 * Programs on the kernel's kselftest_harness.h. What it lacks, each kept
 * here with its reason:
 * - TEST_TIMEOUT_DEFAULT: 6.1's harness gives a case 30 s; under TCG and
 *   on the debug kernel the cases need 120 s.
 *   TEST()/TEST_F() read the default where they are used, so redefining
 *   it here is enough (TEST_F_TIMEOUT for more).
 * - $KTAP_CASES: 6.1's harness has no option to run some cases only
 *   (test_harness_run() ignores argv); test_harness_main() turns the cases
 *   not listed into skips, so the plan stays the same.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	120

/* A helper of this file or check.h passed (its note says why not). */
#define ASSERT_PASS(x)	ASSERT_EQ(KTAP_PASS, (x))

#define NEED_CAP(cap) do {						\
	if (!(info.caps & (cap)))					\
		SKIP(return, "no " #cap);				\
} while (0)

#define NEED_VGPU() do {						\
	if (!is_vgpu())							\
		SKIP(return, "not the virtual GP100 (nvsvm_vgpu)");	\
} while (0)

/*
 * What follows in a case makes the GPU access memory: without
 * NVSVM_CAP_EXEC, end the case here, having checked what came before (the
 * mirror side, through MAP and QUERY), and say so in a note.
 */
#define GPU_PART() do {							\
	if (!(info.caps & NVSVM_CAP_EXEC)) {				\
		TH_LOG("no NVSVM_CAP_EXEC: GPU half not run");		\
		return;							\
	}								\
} while (0)

#define FX_NO_AREA	0
#define FX_AREA		1
#define FX_NO_CHAN	(~0U)

/*
 * Open the device under test into *@fd; with FX_AREA an area of the usual
 * window.
 */
static inline int dev_open(int *fd, int area)
{
	*fd = nvsvm_open(dev_index);
	if (*fd < 0)
		KTAP_FAIL_MSG("open /dev/nvsvm%u: %s", dev_index,
			      strerror(-*fd));
	if (area)
		CHK_OK(nvsvm_area_init(*fd, WIN_ADDR, WIN_SIZE));
	return KTAP_PASS;
}

/*
 * Open the device under test into @f, as dev_open(); unless @cflags is
 * FX_NO_CHAN a channel created with @cflags.
 */
static inline int fx_open(struct fx *f, int area, uint32_t cflags)
{
	CHECK(dev_open(&f->fd, area));
	if (cflags != FX_NO_CHAN)
		CHK_OK(nvsvm_chan_create(f->fd, cflags, &f->chan));
	return KTAP_PASS;
}

/*
 * FIXTURE_FX(name, area, cflags): the fixture @name, whose self->fx is set
 * up by fx_open(&self->fx, area, cflags) and closed after the case. The
 * usual ones: FIXTURE_FX(dev, FX_NO_AREA, FX_NO_CHAN),
 * FIXTURE_FX(area, FX_AREA, FX_NO_CHAN) and
 * FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA).
 */
#define FIXTURE_FX(name, area, cflags)					\
	FIXTURE(name) {							\
		struct fx fx;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		ASSERT_PASS(fx_open(&self->fx, area, cflags));		\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		close(self->fx.fd);					\
	}

static void ktap_not_selected(struct __test_metadata *_metadata,
			      struct __fixture_variant_metadata *variant)
{
	(void)variant;
	SKIP(return, "not in KTAP_CASES");
}

/* Turn the cases not in $KTAP_CASES (as "name" or "fixture.name") into skips. */
static inline void harness_select_cases(void)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	char full[256];

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next) {
			snprintf(full, sizeof(full), "%s.%s", f->name,
				 t->name);
			if (!ktap_selected(t->name) && !ktap_selected(full))
				t->fn = ktap_not_selected;
		}
}

/*
 * main() of a test program: skip the whole program (exit 4) if the device
 * is missing or lacks @need_caps, select the cases, run the harness.
 */
static inline int test_harness_main(int argc, char **argv,
				    uint32_t need_caps)
{
	char why[128];

	if (test_device(need_caps, why, sizeof(why)))
		ksft_exit_skip("%s\n", why);
	harness_select_cases();
	/* Results reach tests/run.sh as they come, even if killed. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return test_harness_run(argc, argv);
}

#endif /* __KSELFTEST_HARNESS_H */

/* harness3 */
#ifdef __KSELFTEST_HARNESS_H
/*
 * For a case that opens its files itself (after a step of its own, or
 * several): @fd of device 0, with an area; FX_OPEN(f): fx_open() with an
 * area and a channel joined to it.
 */
#define OPEN_DEV(fd)	ASSERT_PASS(dev_open(&(fd), FX_NO_AREA))
#define OPEN_AREA(fd)	ASSERT_PASS(dev_open(&(fd), FX_AREA))

#define FX_OPEN(f) ASSERT_PASS(fx_open(f, FX_AREA, NVSVM_CHAN_JOIN_AREA))

/*
 * ASSERT_SYS(call): @call (returning -1 and setting errno on failure)
 * succeeded; ASSERT_MAP(p): @p is a mapping, not NULL or MAP_FAILED. A
 * failure logs errno's text.
 */
#define ASSERT_SYS(call) do {						\
	long __r = (long)(call);					\
	int __e = errno;						\
									\
	ASSERT_LE(0, __r) {						\
		TH_LOG("%s failed: %s", #call, strerror(__e));		\
	}								\
} while (0)

#define ASSERT_MAP(p) do {						\
	int __e = errno;						\
									\
	ASSERT_TRUE((p) && (void *)(p) != MAP_FAILED) {			\
		TH_LOG("%s failed: %s", #p, strerror(__e));		\
	}								\
} while (0)

/*
 * A helper returning KTAP_PASS/KTAP_FAIL/KTAP_SKIP skips with
 * HELPER_SKIP(fmt, ...) (a note too); the case calls it with
 * ASSERT_PASS_SKIP(), which skips the case with that reason, or with
 * ASSERT_PASS() where a skip of the helper fails the case.
 */
static char helper_why[128] __attribute__((unused));

#define HELPER_SKIP(fmt, ...) do {					\
	snprintf(helper_why, sizeof(helper_why), fmt, ##__VA_ARGS__);	\
	ktap_note("%s", helper_why);					\
	return KTAP_SKIP;						\
} while (0)

#define ASSERT_PASS_SKIP(x) do {					\
	int __r = (x);							\
									\
	if (__r == KTAP_SKIP)						\
		SKIP(return, "%s", helper_why);				\
	ASSERT_PASS(__r);						\
} while (0)

/*
 * FIXTURE_EMPTY(name): a fixture with nothing to set up, for cases that
 * open the device themselves but need TEST_F_TIMEOUT() (6.1's harness has
 * no TEST_TIMEOUT()).
 */
#define FIXTURE_EMPTY(name)						\
	FIXTURE(name) {							\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
	}

/*
 * Memory cgroups (memcg.c, buf.c): cg_enter() mounts cgroup2 on CG_ROOT if
 * it is not there yet, enables the memory controller below the root and
 * moves the process into a group of its own, cg_dir; cg_leave() goes back.
 */
#define CG_ROOT		"/sys/fs/cgroup"
#define CG2_MAGIC	0x63677270

static char cg_dir[128] __attribute__((unused));

static inline int cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
	close(fd);
	return ret;
}

static inline int cg_read(const char *dir, const char *file, char *buf,
			  size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/*
 * Move the calling process into a new memory cgroup with memory.max
 * @max ("max" for none). KTAP_PASS, KTAP_SKIP without cgroup2 or its
 * memory controller (HELPER_SKIP), KTAP_FAIL.
 */
static inline int cg_enter(const char *max)
{
	char buf[512];
	struct statfs sf;
	int ret;

	if (statfs(CG_ROOT, &sf) || sf.f_type != CG2_MAGIC) {
		if (access(CG_ROOT, F_OK))
			HELPER_SKIP("no %s: kernel without CONFIG_CGROUPS", CG_ROOT);
		if (mount("none", CG_ROOT, "cgroup2", 0, NULL)) {
			if (errno == ENODEV)
				HELPER_SKIP("no cgroup2 file system");
			KTAP_FAIL_MSG("mount cgroup2 on %s: %s", CG_ROOT,
				      strerror(errno));
		}
	}
	ret = cg_read(CG_ROOT, "cgroup.controllers", buf, sizeof(buf));
	if (ret)
		KTAP_FAIL_MSG("read cgroup.controllers: %s", strerror(-ret));
	if (!strstr(buf, "memory"))
		HELPER_SKIP("no memory controller: kernel without CONFIG_MEMCG");
	ret = cg_write(CG_ROOT, "cgroup.subtree_control", "+memory");
	if (ret)
		KTAP_FAIL_MSG("enable +memory: %s", strerror(-ret));
	snprintf(cg_dir, sizeof(cg_dir), "%s/nvsvm-memcg.%d", CG_ROOT,
		 (int)getpid());
	if (mkdir(cg_dir, 0755) && errno != EEXIST)
		KTAP_FAIL_MSG("mkdir %s: %s", cg_dir, strerror(errno));
	ret = cg_write(cg_dir, "memory.max", max);
	if (ret)
		KTAP_FAIL_MSG("memory.max %s: %s", max, strerror(-ret));
	ret = cg_write(cg_dir, "cgroup.procs", "0");
	if (ret)
		KTAP_FAIL_MSG("join %s: %s", cg_dir, strerror(-ret));
	ret = cg_read(cg_dir, "memory.stat", buf, sizeof(buf));
	if (ret || !strstr(buf, "kernel "))
		HELPER_SKIP("memory.stat has no kernel field");
	return KTAP_PASS;
}

/* Back to the root group; the case's group goes. */
static inline void cg_leave(void)
{
	cg_write(CG_ROOT, "cgroup.procs", "0");
	rmdir(cg_dir);
}

#define CG_ENTER(max)	ASSERT_PASS_SKIP(cg_enter(max))

/*
 * Drop from the harness's list the cases for which @keep(name, @arg) is
 * false (a program's modes run different sets; 6.1's harness has no
 * option for it). Returns how many are left.
 */
static inline unsigned int
harness_keep_cases(int (*keep)(const char *name, const void *arg),
		   const void *arg)
{
	struct __test_metadata *t, *next, **link;
	struct __fixture_metadata *f;
	unsigned int n = 0;

	for (f = __fixture_list; f; f = f->next) {
		for (t = f->tests; t; t = next) {
			next = t->next;
			if (keep(t->name, arg)) {
				n++;
				continue;
			}
			/* Unlink: only prev is circular (the head's is the tail). */
			link = t == f->tests ? &f->tests : &t->prev->next;
			*link = next;
			if (next)
				next->prev = t->prev;
			else if (f->tests)
				f->tests->prev = t->prev;
		}
	}
	return n;
}

/*
 * A userfaultfd (missing pages, opened with @flags) over @pages of fresh
 * anonymous memory at *@p; KTAP_SKIP without userfaultfd.
 */
static inline int uffd_region(int flags, unsigned int pages, void **p,
			      int *uffd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	*p = anon(pages * PAGE);
	if (!*p)
		KTAP_FAIL_MSG("mmap: %s", strerror(errno));
	*uffd = syscall(SYS_userfaultfd, flags);
	if (*uffd < 0)
		HELPER_SKIP("no userfaultfd");
	CHK_SYS(ioctl(*uffd, UFFDIO_API, &api));
	reg.range.start = nvsvm_ptr(*p);
	reg.range.len = pages * PAGE;
	CHK_SYS(ioctl(*uffd, UFFDIO_REGISTER, &reg));
	return KTAP_PASS;
}
#endif /* __KSELFTEST_HARNESS_H */

#endif /* NVSVM_TESTS_COMMON_H */
