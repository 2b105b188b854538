// SPDX-License-Identifier: GPL-2.0
/*
 * The HMM mirror through MAP/UNMAP/QUERY and EXEC: after MAP the GPU sees
 * the CPU's data and the CPU sees the GPU's writes; munmap, mprotect,
 * MADV_DONTNEED, mremap, fork with copy-on-write and ftruncate each remove
 * or downgrade GPU access (QUERY shows it, EXEC faults); the unmanaged
 * window is never mirrored; page-table memory is given back; MAP waits
 * for a userfaultfd handler, and a fatal signal ends that wait.
 *
 * Cases: TEST_F(chan, ...) on a device with an area and a channel joined
 * to it; TEST() where the case opens the device after a step of its own.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define TIMEOUT_MS	60000

#include "kselftest_harness.h"
#include "common.h"

static uint64_t pat(uint64_t i)
{
	return 0xa5a5000000000000ULL | i;
}

static void *anon_filled(size_t size)
{
	uint64_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		return NULL;
	for (i = 0; i < size / 8; i++)
		p[i] = pat(i);
	return p;
}

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

/* No page of the range is writable by the GPU. */
static int query_not_writable(struct fx *f, const void *p, unsigned int n)
{
	uint32_t q[64];
	unsigned int i;

	CHK_OK(nvsvm_query(f->fd, nvsvm_ptr(p), n, q));
	for (i = 0; i < n; i++)
		if ((q[i] & NVSVM_QUERY_VALID) && (q[i] & NVSVM_QUERY_WRITE))
			KTAP_FAIL_MSG("QUERY page %u of %p: %#x, still VALID|WRITE",
				      i, p, q[i]);
	return KTAP_PASS;
}

static int map_all(struct fx *f, void *p, unsigned int n)
{
	uint64_t mapped = 0;

	CHK_OK(nvsvm_map(f->fd, nvsvm_ptr(p), n * PAGE,
			 NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	CHK_EQ(mapped, n);
	return KTAP_PASS;
}

TEST_F(chan, map_fault_counts)
{
	uint64_t *buf = anon_filled(16 * PAGE);
	struct fx f = self->fx;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, buf, 16));
}

TEST_F(chan, map_present_only)
{
	char *buf = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t mapped = 0;
	uint32_t q[8];
	struct fx f = self->fx;
	int i;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	buf[0] = buf[2 * PAGE] = buf[5 * PAGE] = 1;	/* only 3 pages exist */
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(buf), 8 * PAGE, NVSVM_MAP_WRITE,
			       &mapped));
	ASSERT_EQ(3, mapped);
	ASSERT_EQ(0, nvsvm_query(f.fd, nvsvm_ptr(buf), 8, q));
	for (i = 0; i < 8; i++)
		ASSERT_EQ((i == 0 || i == 2 || i == 5) ? NVSVM_QUERY_VALID : 0,
			  q[i] & NVSVM_QUERY_VALID);
}

TEST_F(chan, map_fault_efault)
{
	char *buf = anon_filled(3 * PAGE);
	char *ro = anon_filled(PAGE);
	struct fx f = self->fx;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_TRUE(ro && (void *)ro != MAP_FAILED);
	ASSERT_LE(0, (long)(munmap(buf + PAGE, PAGE))) {
		TH_LOG("%s", strerror(errno));
	}		/* a hole: no VMA */
	ASSERT_LE(0, (long)(mprotect(ro, PAGE, PROT_READ))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_EQ(-EFAULT, nvsvm_map(f.fd, nvsvm_ptr(buf), 3 * PAGE,
				     NVSVM_MAP_FAULT, NULL));
	ASSERT_EQ(-EFAULT, nvsvm_map(f.fd, nvsvm_ptr(ro), PAGE,
				     NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL));
	/* Present-only mapping of the read-only page is fine. */
	ASSERT_EQ(0,
		  nvsvm_map(f.fd, nvsvm_ptr(ro), PAGE, NVSVM_MAP_FAULT, NULL));
	ASSERT_PASS(query_expect(&f, ro, 1, NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
				 NVSVM_QUERY_VALID));
}

TEST_F(chan, query_after_map)
{
	uint64_t *buf = anon_filled(16 * PAGE);
	uint32_t q[16];
	struct fx f = self->fx;
	int i;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, buf, 16));
	ASSERT_EQ(0, nvsvm_query(f.fd, nvsvm_ptr(buf), 16, q));
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
			  q[i] & (NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE |
				  NVSVM_QUERY_VRAM));
		ASSERT_EQ(12, NVSVM_QUERY_SHIFT(q[i]));
	}
}

TEST_F(chan, gpu_reads_cpu_data)
{
	uint64_t *buf = anon_filled(16 * PAGE), sum = 0, got, f0, f1;
	int have = !nvsvm_stat_read(dev_index, "faults", &f0);
	struct fx f = self->fx;
	size_t i;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, buf, 16));
	for (i = 0; i < 16 * WORDS; i++)
		sum += buf[i];
	ASSERT_PASS(gpu_read_eq(&f, &buf[0], pat(0)));
	ASSERT_PASS(gpu_read_eq(&f, &buf[7 * WORDS + 5], pat(7 * WORDS + 5)));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_sum(nvsvm_ptr(buf), 16 * PAGE), &got));
	ASSERT_EQ(sum, got);
	/* Everything was mapped ahead of time: no GPU fault was needed. */
	if (have && !nvsvm_stat_read(dev_index, "faults", &f1))
		ASSERT_EQ(0, f1 - f0);
}

TEST_F(chan, gpu_writes_seen_by_cpu)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f = self->fx;
	size_t i;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, (void *)buf, 4));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[3]), 0x1234), NULL));
	ASSERT_PASS(gpu_ok1(&f, nvsvm_op_fill(nvsvm_ptr(&buf[WORDS]), 2 * PAGE,
					     0xfeedULL), NULL));
	ASSERT_EQ(0x1234, buf[3]);
	ASSERT_EQ(pat(2), buf[2]);
	for (i = WORDS; i < 3 * WORDS; i++) {
		ASSERT_EQ(0xfeed, buf[i]) {
			TH_LOG("word %zu", i);
		}
	}
	ASSERT_EQ(pat(3 * WORDS), buf[3 * WORDS]);
}

TEST_F(chan, munmap_removes)
{
	uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f = self->fx;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, buf, 4));
	ASSERT_LE(0, (long)(munmap(buf, 4 * PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(query_expect(&f, buf, 4, NVSVM_QUERY_VALID, 0));
	GPU_PART();
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(buf) + 2 * PAGE),
			      nvsvm_ptr(buf) + 2 * PAGE, NVSVM_ACCESS_READ));
}

TEST_F(chan, mprotect_read_downgrades)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	uint64_t p1 = nvsvm_ptr(buf) + PAGE;
	struct fx f = self->fx;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, (void *)buf, 4));
	ASSERT_LE(0, (long)(mprotect((void *)buf, 4 * PAGE, PROT_READ))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(query_not_writable(&f, (void *)buf, 4));
	GPU_PART();
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_write(p1 + 16, 99), p1,
			      NVSVM_ACCESS_WRITE));
	ASSERT_EQ(pat(WORDS + 2), buf[WORDS + 2]);	/* not written */
	ASSERT_PASS(gpu_read_eq(&f, &buf[WORDS + 2], pat(WORDS + 2)));
}

TEST_F(chan, mprotect_none_removes)
{
	uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f = self->fx;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, buf, 4));
	ASSERT_LE(0, (long)(mprotect(buf, 4 * PAGE, PROT_NONE))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(query_expect(&f, buf, 4, NVSVM_QUERY_VALID, 0));
	GPU_PART();
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(buf) + 3 * PAGE + 8),
			      nvsvm_ptr(buf) + 3 * PAGE, NVSVM_ACCESS_READ));
}

TEST_F(chan, dontneed_gives_zero)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	struct fx f = self->fx;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, (void *)buf, 4));
	ASSERT_PASS(gpu_read_eq(&f, &buf[WORDS], pat(WORDS)));
	ASSERT_LE(0, (long)(madvise((void *)buf, 4 * PAGE, MADV_DONTNEED))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(query_expect(&f, (void *)buf, 4, NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(gpu_read_eq(&f, &buf[WORDS], 0));
	ASSERT_PASS(gpu_read_eq(&f, &buf[3 * WORDS + 1], 0));
	ASSERT_EQ(0, buf[WORDS]);
}

/*
 * QUERY marks a GPU PTE of the CPU's zero page (NVSVM_QUERY_ZERO): pages
 * the CPU read but never wrote (4 KiB pages: no THP, whose read would map
 * the huge zero page), and no more once the CPU or the GPU wrote them.
 */
TEST_F(chan, query_zero_page)
{
	const uint32_t bits = NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE |
			      NVSVM_QUERY_ZERO;
	volatile uint64_t *buf;
	struct fx f = self->fx;
	uint64_t mapped = 0;
	struct nvsvm_op op;
	uint32_t q[4];

	buf = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)buf);
	ASSERT_EQ(0, madvise((void *)buf, 4 * PAGE, MADV_NOHUGEPAGE)) {
		TH_LOG("%s", strerror(errno));
	}
	/* Pages 0 and 1 read, page 2 written, page 3 never touched. */
	ASSERT_EQ(0, buf[0] + buf[WORDS]);
	buf[2 * WORDS] = 7;
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(buf), 4 * PAGE, 0, &mapped));
	ASSERT_EQ(3, mapped);
	ASSERT_EQ(0, nvsvm_query(f.fd, nvsvm_ptr(buf), 4, q));
	EXPECT_EQ(NVSVM_QUERY_VALID | NVSVM_QUERY_ZERO, q[0] & bits);
	EXPECT_EQ(NVSVM_QUERY_VALID | NVSVM_QUERY_ZERO, q[1] & bits);
	EXPECT_EQ(12, NVSVM_QUERY_SHIFT(q[0]));
	EXPECT_EQ(NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE, q[2] & bits);
	EXPECT_EQ(0, q[3]);

	/* A CPU write replaces page 0's zero page (COW): a new PTE. */
	buf[0] = 5;
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(buf), 2 * PAGE, 0, &mapped));
	ASSERT_EQ(0, nvsvm_query(f.fd, nvsvm_ptr(buf), 2, q));
	EXPECT_EQ(NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE, q[0] & bits);
	EXPECT_EQ(NVSVM_QUERY_VALID | NVSVM_QUERY_ZERO, q[1] & bits);
	if (!(info.caps & NVSVM_CAP_EXEC))
		goto out;

	/* The GPU reads zeros through page 1's PTE; its write replaces it. */
	ASSERT_PASS(gpu_read_eq(&f, &buf[WORDS + 3], 0));
	op = nvsvm_op_write(nvsvm_ptr(&buf[WORDS]), 9);
	ASSERT_PASS(gpu_ok(&f, &op, 1));
	ASSERT_EQ(0, nvsvm_query(f.fd, nvsvm_ptr(&buf[WORDS]), 1, q));
	EXPECT_EQ(NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE, q[0] & bits);
	EXPECT_EQ(9, buf[WORDS]);
	EXPECT_EQ(5, buf[0]);
out:
	munmap((void *)buf, 4 * PAGE);
}

/* A handler that fills @want missing pages, word i of page P: P + i. */
struct uffd_filler {
	int uffd;
	unsigned int want;
	unsigned int served;
};

static void *uffd_fill(void *arg)
{
	static uint64_t page[WORDS] __attribute__((aligned(PAGE)));
	struct uffd_filler *h = arg;
	struct uffdio_copy copy = { .len = PAGE };
	struct uffd_msg msg;
	unsigned int i;

	while (h->served < h->want &&
	       read(h->uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT) {
		copy.dst = msg.arg.pagefault.address & ~(uint64_t)(PAGE - 1);
		for (i = 0; i < WORDS; i++)
			page[i] = copy.dst + i;
		copy.src = nvsvm_ptr(page);
		if (ioctl(h->uffd, UFFDIO_COPY, &copy) < 0)
			break;
		h->served++;
	}
	return NULL;
}

/*
 * MAP with NVSVM_MAP_FAULT of pages a userfaultfd handler fills waits for
 * the handler (one message per page), then maps what it filled: the GPU
 * reads the handler's data. (Before: EFAULT at once, nothing asked.)
 */
TEST_F(chan, uffd_map_waits)
{
	struct uffd_filler h = { .want = 4 };
	volatile uint64_t *buf;
	struct fx f = self->fx;
	uint64_t mapped = 0;
	pthread_t thread;
	void *p;
	int ret;

	ASSERT_PASS_SKIP(uffd_region(O_CLOEXEC, 4, &p, &h.uffd));
	buf = p;
	ASSERT_EQ(0, pthread_create(&thread, NULL, uffd_fill, &h));
	ret = nvsvm_map(f.fd, nvsvm_ptr(p), 4 * PAGE, NVSVM_MAP_FAULT, &mapped);
	ASSERT_EQ(0, ret) {
		TH_LOG("MAP: %s, %u pages served", strerror(-ret), h.served);
		pthread_cancel(thread);
		pthread_join(thread, NULL);
	}
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(4, h.served);
	ASSERT_EQ(4, mapped);
	ASSERT_PASS(query_expect(&f, p, 4, NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
	ASSERT_EQ(nvsvm_ptr(&buf[3 * WORDS]) + 5, buf[3 * WORDS + 5]);
	if (info.caps & NVSVM_CAP_EXEC)
		ASSERT_PASS(gpu_read_eq(&f, &buf[2 * WORDS + 7],
					nvsvm_ptr(&buf[2 * WORDS]) + 7));
	close(h.uffd);
}

/*
 * A child's MAP of a page its userfaultfd handler never fills. Returns
 * only when MAP returned (it then writes MAP's result to @out).
 */
static int uffd_map_child(int sock, int out)
{
	uint64_t mapped;
	void *p;
	int fd, uffd, ret;

	fd = nvsvm_open(dev_index);
	if (fd < 0 || nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE))
		return 10;
	if (uffd_region(O_CLOEXEC, 1, &p, &uffd) != KTAP_PASS)
		return 11;
	if (send_fd(sock, uffd, "u", 1))
		return 12;
	ret = nvsvm_map(fd, nvsvm_ptr(p), PAGE, NVSVM_MAP_FAULT, &mapped);
	return write(out, &ret, sizeof(ret)) == sizeof(ret) ? 0 : 13;
}

/*
 * A MAP waiting for a userfaultfd handler that never answers holds up
 * neither another process's MAP and GPU work nor its own process's
 * SIGKILL: the child's MAP is seen waiting (its userfault message comes;
 * this process holds the userfaultfd, so the child's death does not
 * release it), this process maps and the GPU reads its own page, then
 * SIGKILL ends the child, which must not return from MAP first.
 */
TEST_F(chan, uffd_map_killed)
{
	uint64_t *mine = anon_filled(PAGE);
	struct fx f = self->fx;
	struct pollfd pfd[2];
	struct uffd_msg msg;
	int sv[2], res[2];
	int uffd, ret = 0;
	char c;
	pid_t pid;

	ASSERT_TRUE(mine && (void *)mine != MAP_FAILED);
	ASSERT_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	ASSERT_SYS(pipe2(res, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(uffd_map_child(sv[1], res[1]));
	close(sv[1]);
	close(res[1]);
	uffd = recv_fd(sv[0], &c, 1);
	ASSERT_LE(0, uffd) {
		TH_LOG("child: exit %d", wait_child(pid));
	}
	pfd[0] = (struct pollfd){ .fd = uffd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = res[0], .events = POLLIN };
	ASSERT_SYS(poll(pfd, 2, -1));
	ASSERT_FALSE(pfd[1].revents) {
		if (read(res[0], &ret, sizeof(ret)) != sizeof(ret))
			ret = 0;
		TH_LOG("MAP returned %d (%s) without waiting; child exit %d",
		       ret, strerror(-ret), wait_child(pid));
	}
	ASSERT_EQ((ssize_t)sizeof(msg), read(uffd, &msg, sizeof(msg))) {
		kill(pid, SIGKILL);
		wait_child(pid);
	}
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* This process meanwhile: MAP and GPU work go on. */
	ASSERT_PASS(map_all(&f, mine, 1)) {
		kill(pid, SIGKILL);
		wait_child(pid);
	}
	if (info.caps & NVSVM_CAP_EXEC)
		ASSERT_PASS(gpu_read_eq(&f, &mine[9], pat(9))) {
			kill(pid, SIGKILL);
			wait_child(pid);
		}

	ASSERT_SYS(kill(pid, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, wait_child(pid));
	ASSERT_EQ(0, read(res[0], &ret, sizeof(ret)));	/* no result */
	close(uffd);
}

TEST_F(chan, mremap_moves)
{
	uint64_t *buf = anon_filled(4 * PAGE), *dst, *moved;
	struct fx f = self->fx;

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	dst = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	ASSERT_TRUE(dst && (void *)dst != MAP_FAILED);
	ASSERT_PASS(map_all(&f, buf, 4));
	moved = mremap(buf, 4 * PAGE, 4 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		       dst);
	ASSERT_TRUE(moved && (void *)moved != MAP_FAILED);
	ASSERT_EQ(nvsvm_ptr(dst), nvsvm_ptr(moved));
	ASSERT_PASS(query_expect(&f, buf, 4, NVSVM_QUERY_VALID, 0));
	GPU_PART();
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(buf)), nvsvm_ptr(buf),
			      NVSVM_ACCESS_READ));
	ASSERT_PASS(gpu_read_eq(&f, &moved[2 * WORDS + 3], pat(2 * WORDS + 3)));
}

/*
 * fork: the child holds the original pages; @who says which side writes
 * after the fork. The child reports its view of word 0 through @shared.
 */
enum { PARENT_CPU, PARENT_GPU, CHILD_CPU };

static void fork_cow(struct __test_metadata *_metadata,
		     const struct fx *fx, int who)
{
	volatile uint64_t *buf = anon_filled(4 * PAGE);
	volatile uint64_t *shared = ktap_shared(PAGE);
	int to_child[2], to_parent[2], status;
	char c = 0;
	struct fx f = *fx;
	pid_t pid;

	NEED_CAP(NVSVM_CAP_EXEC);

	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_TRUE(shared && (void *)shared != MAP_FAILED);
	ASSERT_LE(0, (long)(pipe(to_child))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_LE(0, (long)(pipe(to_parent))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(map_all(&f, (void *)buf, 4));
	pid = fork();
	ASSERT_LE(0, (long)(pid)) {
		TH_LOG("%s", strerror(errno));
	}
	if (!pid) {
		if (who == CHILD_CPU)
			buf[0] = 0xc0c0;
		if (write(to_parent[1], &c, 1) != 1 ||
		    read(to_child[0], &c, 1) != 1)
			_exit(2);
		shared[0] = buf[0];
		shared[1] = buf[1];
		_exit(0);
	}
	ASSERT_LE(0, (long)(read(to_parent[0], &c, 1))) {
		TH_LOG("%s", strerror(errno));
	}
	/* fork write-protected the parent's pages: so must the GPU be. */
	ASSERT_PASS(query_not_writable(&f, (void *)buf, 4));
	if (who == PARENT_CPU) {
		buf[0] = 0xb0b0;
		ASSERT_PASS(gpu_read_eq(&f, &buf[0], 0xb0b0));
	} else if (who == PARENT_GPU) {
		ASSERT_PASS(gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(&buf[0]), 0xd0d0),
				   NULL));
		ASSERT_EQ(0xd0d0, buf[0]);
	} else {
		ASSERT_PASS(gpu_read_eq(&f, &buf[0], pat(0)));
		ASSERT_EQ(pat(0), buf[0]);
	}
	ASSERT_PASS(gpu_read_eq(&f, &buf[1], pat(1)));
	ASSERT_LE(0, (long)(write(to_child[1], &c, 1))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_LE(0, (long)(waitpid(pid, &status, 0))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("status %#x", status);
	}
	ASSERT_EQ(who == CHILD_CPU ? 0xc0c0 : pat(0), shared[0]);
	ASSERT_EQ(pat(1), shared[1]);
}

TEST_F(chan, fork_cow_parent_cpu_write)
{
	fork_cow(_metadata, &self->fx, PARENT_CPU);
}

TEST_F(chan, fork_cow_parent_gpu_write)
{
	fork_cow(_metadata, &self->fx, PARENT_GPU);
}

TEST_F(chan, fork_cow_child_cpu_write)
{
	fork_cow(_metadata, &self->fx, CHILD_CPU);
}

static int tmp_file(void)
{
	char name[] = "/tmp/nvsvm-mirror-XXXXXX";
	int fd = mkstemp(name);

	if (fd >= 0) {
		unlink(name);
		return fd;
	}
	return memfd_create("nvsvm-mirror", 0);
}

TEST_F(chan, ftruncate_removes)
{
	uint64_t data[4 * WORDS];
	volatile uint64_t *map;
	struct fx f = self->fx;
	size_t i;
	int fd;

	NEED_CAP(NVSVM_CAP_EXEC);

	for (i = 0; i < 4 * WORDS; i++)
		data[i] = pat(i);
	fd = tmp_file();
	ASSERT_LE(0, (long)(fd)) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_EQ(sizeof(data), pwrite(fd, data, sizeof(data), 0));
	map = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(map && (void *)map != MAP_FAILED);
	ASSERT_PASS(map_all(&f, (void *)map, 4));
	ASSERT_PASS(gpu_read_eq(&f, &map[WORDS + 1], pat(WORDS + 1)));
	ASSERT_LE(0, (long)(ftruncate(fd, 0))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(query_expect(&f, (void *)map, 4, NVSVM_QUERY_VALID, 0));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(&map[WORDS + 1])),
			      nvsvm_ptr(map) + PAGE, NVSVM_ACCESS_READ));
	/* Extended again: new, zeroed pages, never the old contents. */
	ASSERT_LE(0, (long)(ftruncate(fd, 4 * PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(gpu_read_eq(&f, &map[WORDS + 1], 0));
	ASSERT_PASS(gpu_read_eq(&f, &map[3 * WORDS], 0));
	ASSERT_EQ(0, map[WORDS + 1]);
}

/*
 * QUERY on the window: the uAPI does not say whether it is refused (the
 * window is not part of the area) or reports empty entries; accept both.
 */
static int window_not_valid(struct fx *f)
{
	uint32_t q[2] = { ~0U, ~0U };
	int ret = nvsvm_query(f->fd, WIN_ADDR, 2, q);

	if (ret == -EINVAL)
		return KTAP_PASS;
	CHK_OK(ret);
	CHK_EQ(q[0] & NVSVM_QUERY_VALID, 0);
	CHK_EQ(q[1] & NVSVM_QUERY_VALID, 0);
	return KTAP_PASS;
}

TEST_F(chan, unmanaged_never_mirrored)
{
	volatile uint64_t *win;
	uint64_t c0 = 0, c1 = 0;
	int have;
	struct fx f = self->fx;

	win = mmap((void *)WIN_ADDR, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_TRUE(win && (void *)win != MAP_FAILED);
	win[0] = 42;
	win[WORDS] = 43;
	ASSERT_EQ(-EINVAL, nvsvm_map(f.fd, WIN_ADDR, 2 * PAGE,
				     NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL));
	ASSERT_PASS(window_not_valid(&f));
	GPU_PART();
	have = !nvsvm_stat_read(dev_index, "cancels", &c0);
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(WIN_ADDR), WIN_ADDR,
			      NVSVM_ACCESS_READ));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_write(WIN_ADDR + PAGE, 1),
			      WIN_ADDR + PAGE, NVSVM_ACCESS_WRITE));
	ASSERT_PASS(window_not_valid(&f));
	ASSERT_EQ(43, win[WORDS]);
	if (have && !nvsvm_stat_read(dev_index, "cancels", &c1)) {
		ASSERT_TRUE(c1 - c0 >= 2) {
			TH_LOG("cancels went %llu -> %llu",
			       (unsigned long long)c0, (unsigned long long)c1);
		}
	}
}

static int read_stat(const char *name, uint64_t *v)
{
	return nvsvm_stat_read(dev_index, name, v);
}

TEST(pt_bytes_return)
{
	uint64_t pt0, pt1, pt2, pt3, pm1, pm2, pm3;
	const size_t chunk = 8 * PAGE;
	void *bufs[4];
	struct fx f;
	int i, ret;

	ASSERT_PASS(areas_settled(dev_index));
	ret = read_stat("pt_bytes", &pt0);
	if (ret || read_stat("pages_mapped", &pm1))
		SKIP(return, "debugfs pt_bytes/pages_mapped: %s",
		     strerror(-ret ?: ENOENT));
	FX_OPEN(&f);
	ASSERT_EQ(0, read_stat("pt_bytes", &pt1));
	ASSERT_EQ(0, read_stat("pages_mapped", &pm1));
	/* Spread over distinct page tables: 1 GiB apart. */
	for (i = 0; i < 4; i++) {
		bufs[i] = mmap((void *)(0x7e0000000000ULL + ((uint64_t)i << 30)),
			       chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE((bufs[i]) && (void *)(bufs[i]) != MAP_FAILED);
		memset(bufs[i], i + 1, chunk);
		ASSERT_PASS(map_all(&f, bufs[i], chunk / PAGE));
	}
	ASSERT_EQ(0, read_stat("pt_bytes", &pt2));
	ASSERT_EQ(0, read_stat("pages_mapped", &pm2));
	ASSERT_TRUE(pt2 > pt1) {
		TH_LOG("pt_bytes %llu -> %llu after MAP",
		       (unsigned long long)pt1, (unsigned long long)pt2);
	}
	ASSERT_TRUE(pm2 - pm1 >= 4 * chunk / PAGE) {
		TH_LOG("pages_mapped %llu -> %llu", (unsigned long long)pm1,
		       (unsigned long long)pm2);
	}
	for (i = 0; i < 4; i++) {
		ASSERT_LE(0, (long)(munmap(bufs[i], chunk))) {
			TH_LOG("%s", strerror(errno));
		}
	}
	ASSERT_EQ(0, read_stat("pt_bytes", &pt3));
	ASSERT_EQ(0, read_stat("pages_mapped", &pm3));
	ASSERT_EQ(pt1, pt3);
	ASSERT_EQ(0, pm3);
	/* Closing the file frees the rest (the root directory). */
	close(f.fd);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, read_stat("pt_bytes", &pt3));
		if (pt3 == pt0)
			break;
		usleep(10000);
	}
	ASSERT_EQ(pt0, pt3);
}

/*
 * Five pages GPU-mapped across 1 GiB (1 GiB aligned): the first and last
 * entries of a page table, the last entry of the first PD0 (512 MiB per
 * PD0) and the first of the next, the last page. The walks that remove a
 * range go from used entry to used entry (src/vmm.c); each page must be
 * found whatever range holds it, and a range between them must take none.
 * The ranges between them are MADV_DONTNEED (a notifier event over just
 * the range): a munmap that splits a VMA inside a 2 MiB block also has
 * the kernel clear that whole block (__split_huge_pmd(), before it looks
 * for a huge PMD), so only munmaps of aligned ranges are exact.
 */
#define SPARSE_SPAN	(1024 * MiB)
#define SPARSE_PAGES	5

static const uint64_t sparse_off[SPARSE_PAGES] = {
	0, 2 * MiB - PAGE, 512 * MiB - PAGE, 512 * MiB, SPARSE_SPAN - PAGE,
};

/* Pages [from, to) of sparse_off are still mapped and read right. */
static int sparse_mapped(struct fx *f, char *b, int from, int to)
{
	int i;

	for (i = from; i < to; i++) {
		CHECK(query_expect(f, b + sparse_off[i], 1,
				   NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
				   NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE));
		CHECK(gpu_read_eq(f, b + sparse_off[i] + 8, pat(i)));
	}
	return KTAP_PASS;
}

/*
 * pt_bytes and pages_mapped of this device, once no earlier area is being
 * freed; skips without debugfs.
 */
#define NEED_PT_STATS(pt, pm) do {					\
	ASSERT_PASS(areas_settled(dev_index));				\
	if (nvsvm_stat_read(dev_index, "pt_bytes", &(pt)) ||		\
	    nvsvm_stat_read(dev_index, "pages_mapped", &(pm)))		\
		SKIP(return, "no debugfs pt_bytes/pages_mapped");	\
} while (0)

/* Counter @name is @want (debugfs, this device). */
static int stat_is(const char *name, uint64_t want)
{
	uint64_t v;

	CHK_OK(nvsvm_stat_read(dev_index, name, &v));
	CHK_EQ(v, want);
	return KTAP_PASS;
}

/* No valid PTE for the @n pages at @p; the GPU's read at @probe faults. */
static int pages_gone(struct fx *f, char *p, unsigned int n, char *probe)
{
	CHECK(query_expect(f, p, n, NVSVM_QUERY_VALID, 0));
	return gpu_fault(f, nvsvm_op_read(nvsvm_ptr(probe)), nvsvm_ptr(probe),
			 NVSVM_ACCESS_READ);
}

TEST_F(chan, munmap_sparse_skips)
{
	char *raw = anon(2 * SPARSE_SPAN), *b;
	uint64_t pt0, pm0, mapped;
	struct fx f = self->fx;
	int i;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_MAP(raw);
	NEED_PT_STATS(pt0, pm0);
	b = (char *)(((uintptr_t)raw + SPARSE_SPAN - 1) & ~(SPARSE_SPAN - 1));
	ASSERT_SYS(madvise(b, SPARSE_SPAN, MADV_NOHUGEPAGE));
	for (i = 0; i < SPARSE_PAGES; i++) {
		((uint64_t *)(b + sparse_off[i]))[1] = pat(i);
		ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b + sparse_off[i]),
				       PAGE, NVSVM_MAP_WRITE, &mapped));
		ASSERT_EQ(1, mapped);
	}
	ASSERT_PASS(stat_is("pages_mapped", pm0 + SPARSE_PAGES));

	/*
	 * Between them: inside one page table (entries 1-510), over empty
	 * PD0 entries up to the entry before a used one, across PD0s.
	 */
	ASSERT_SYS(madvise(b + PAGE, 2 * MiB - 2 * PAGE, MADV_DONTNEED));
	ASSERT_SYS(madvise(b + 2 * MiB, 510 * MiB - PAGE, MADV_DONTNEED));
	ASSERT_SYS(madvise(b + 512 * MiB + PAGE, 512 * MiB - 2 * PAGE,
			   MADV_DONTNEED));
	ASSERT_PASS(stat_is("pages_mapped", pm0 + SPARSE_PAGES));
	ASSERT_PASS(sparse_mapped(&f, b, 0, SPARSE_PAGES));

	/* Over empty PD0 entries to the last, across to the next PD0. */
	ASSERT_SYS(munmap(b + 2 * MiB, 512 * MiB));
	ASSERT_PASS(stat_is("pages_mapped", pm0 + 3));
	ASSERT_PASS(pages_gone(&f, b + 512 * MiB - PAGE, 2, b + 512 * MiB));
	ASSERT_PASS(sparse_mapped(&f, b, 0, 2));
	ASSERT_PASS(sparse_mapped(&f, b, 4, 5));

	/* The rest in one go: every table goes back. */
	ASSERT_SYS(munmap(raw, 2 * SPARSE_SPAN));
	ASSERT_PASS(stat_is("pages_mapped", pm0));
	ASSERT_PASS(stat_is("pt_bytes", pt0));
}

/*
 * A munmap that takes the last page of its tables: the tables are
 * unlinked before the TLB invalidate, so one invalidate covers the PTE and
 * the directory caches (the model counts them); the GPU's read then
 * faults, and every table is back.
 */
TEST_F(chan, munmap_one_invalidate)
{
	char *raw = anon(8 * MiB), *p;
	uint64_t pt0, pm0, i0, i1, mapped;
	struct fx f = self->fx;

	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_VGPU();
	ASSERT_MAP(raw);
	NEED_PT_STATS(pt0, pm0);
	p = raw + 4 * MiB + 5 * PAGE;
	((uint64_t *)p)[1] = pat(1);
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(p), PAGE, NVSVM_MAP_WRITE,
			       &mapped));
	ASSERT_EQ(1, mapped);
	ASSERT_PASS(gpu_read_eq(&f, p + 8, pat(1)));
	ASSERT_EQ(0, vgpu_stat_read("invalidates", &i0));
	ASSERT_SYS(munmap(raw, 8 * MiB));
	ASSERT_EQ(0, vgpu_stat_read("invalidates", &i1));
	ASSERT_EQ(1, i1 - i0);
	ASSERT_PASS(stat_is("pages_mapped", pm0));
	ASSERT_PASS(stat_is("pt_bytes", pt0));
	ASSERT_PASS(gpu_fault(&f, nvsvm_op_read(nvsvm_ptr(p)), nvsvm_ptr(p),
			      NVSVM_ACCESS_READ));
}

/* QUERY entries [from, to) of @q: valid, of page shift @shift. */
static int entries_shift(const uint32_t *q, int from, int to,
			 unsigned int shift)
{
	int i;

	for (i = from; i < to; i++)
		if (!(q[i] & NVSVM_QUERY_VALID) ||
		    NVSVM_QUERY_SHIFT(q[i]) != shift)
			KTAP_FAIL_MSG("page %d: entry %#x, expected valid, shift %u",
				      i, q[i], shift);
	return KTAP_PASS;
}

/* The sum of pat() over words [first, first + n). */
static uint64_t pat_sum(uint64_t first, uint64_t n)
{
	uint64_t s = 0, i;

	for (i = first; i < first + n; i++)
		s += pat(i);
	return s;
}

/* Pages [from, to) of the block @b: mapped, and the GPU sums them right. */
static int block_run_mapped(struct fx *f, char *b, int from, int to,
			    unsigned int shift)
{
	static uint32_t q[512];

	CHK_OK(nvsvm_query(f->fd, nvsvm_ptr(b), 512, q));
	CHECK(entries_shift(q, from, to, shift));
	return gpu_sum_eq(f, b + from * PAGE, (to - from) * PAGE,
			  pat_sum(from * WORDS, (to - from) * WORDS));
}

/*
 * One PD0 entry with both slots in use: a THP whose PMD was split (page
 * 37 made read-only) maps with 64 KiB PTEs (the big-page table, slot 0)
 * except for the run of page 37, pages 32-47, in 4 KiB PTEs (the
 * small-page table, slot 1). A munmap that empties one of the two tables
 * must leave the entry to the other: still mapped, read right, and given
 * back by the last munmap (pages_mapped, pt_bytes).
 */
static void munmap_dual(struct __test_metadata *_metadata,
			const struct fx *fx, int small_first)
{
	uint64_t *buf = thp_block(), pt0, pm0, mapped, i;
	char *b = (char *)buf;
	struct fx f = *fx;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_MAP(buf);
	for (i = 0; i < THP_SIZE / 8; i++)
		buf[i] = pat(i);
	if (is_thp(buf) != 1)
		SKIP(return, "the kernel gave no THP for the block");
	NEED_PT_STATS(pt0, pm0);
	ASSERT_SYS(mprotect(b + 37 * PAGE, PAGE, PROT_READ));
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b), THP_SIZE, 0, &mapped));
	ASSERT_EQ(512, mapped);
	ASSERT_PASS(block_run_mapped(&f, b, 0, 32, 16));
	ASSERT_PASS(block_run_mapped(&f, b, 32, 48, 12));
	ASSERT_PASS(block_run_mapped(&f, b, 48, 512, 16));

	if (small_first) {
		ASSERT_SYS(munmap(b + 32 * PAGE, 16 * PAGE));
		ASSERT_PASS(stat_is("pages_mapped", pm0 + 512 - 16));
		ASSERT_PASS(pages_gone(&f, b + 32 * PAGE, 16, b + 40 * PAGE));
		ASSERT_PASS(block_run_mapped(&f, b, 0, 32, 16));
		ASSERT_PASS(block_run_mapped(&f, b, 48, 512, 16));
		ASSERT_SYS(munmap(b, 32 * PAGE));
		ASSERT_SYS(munmap(b + 48 * PAGE, THP_SIZE - 48 * PAGE));
	} else {
		ASSERT_SYS(munmap(b, 32 * PAGE));
		ASSERT_SYS(munmap(b + 48 * PAGE, THP_SIZE - 48 * PAGE));
		ASSERT_PASS(stat_is("pages_mapped", pm0 + 16));
		ASSERT_PASS(query_expect(&f, b, 32, NVSVM_QUERY_VALID, 0));
		ASSERT_PASS(pages_gone(&f, b + 48 * PAGE, 464, b + 48 * PAGE));
		ASSERT_PASS(block_run_mapped(&f, b, 32, 48, 12));
		ASSERT_SYS(munmap(b + 32 * PAGE, 16 * PAGE));
	}
	ASSERT_PASS(stat_is("pages_mapped", pm0));
	ASSERT_PASS(stat_is("pt_bytes", pt0));
}

TEST_F(chan, munmap_dual_small_first)
{
	munmap_dual(_metadata, &self->fx, 1);
}

TEST_F(chan, munmap_dual_big_first)
{
	munmap_dual(_metadata, &self->fx, 0);
}

/* The GPC the warm-TLB cases pin their programs to. */
static uint32_t warm_gpc(void)
{
	return info.gpc_count > 1 ? 1 : 0;
}

/*
 * 16 pages in one 2 MiB block, from its second page on (no aligned 64 KiB
 * group of them, so the GPU maps them with 4 KiB PTEs of one small-page
 * table), not a THP, filled with pat(); NULL on failure.
 */
static uint64_t *leaf_pages(void)
{
	char *raw = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *p;
	size_t i;

	if (raw == MAP_FAILED)
		return NULL;
	p = (uint64_t *)(((uintptr_t)raw + 2 * MiB - 1) & ~(2 * MiB - 1));
	madvise(p, 2 * MiB, MADV_NOHUGEPAGE);
	p += WORDS;
	for (i = 0; i < 16 * WORDS; i++)
		p[i] = pat(i);
	return p;
}

/*
 * A warm TLB and a partial unmap: a GPC reads 15 mapped pages (its TLB
 * now holds them), munmap removes 4 of them from the middle of their page
 * table (the table stays), the same GPC reads one of the 4 again: it must
 * fault, never see the old data; the pages around it still read.
 */
TEST_F(chan, munmap_partial_warm_tlb)
{
	uint64_t *buf = leaf_pages(), inv0 = 0, inv1 = 0, hit0 = 0, hit1 = 0;
	uint32_t gpc = warm_gpc();
	struct nvsvm_op ops[16];
	struct nvsvm_exec e;
	struct fx f = self->fx;
	int i;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	ASSERT_PASS(map_all(&f, buf, 16));
	ASSERT_PASS(query_expect(&f, buf, 16, NVSVM_QUERY_VALID, NVSVM_QUERY_VALID));
	/*
	 * A first partial unmap releases whatever table the mapping left
	 * empty (with its own invalidate): the one under test releases none.
	 */
	ASSERT_LE(0, (long)(munmap(&buf[15 * WORDS], PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	for (i = 0; i < 15; i++)
		ops[i] = nvsvm_op_read(nvsvm_ptr(&buf[i * WORDS + 3]));
	ASSERT_PASS(gpu_run_on(&f, gpc, 10000, ops, 15, &e));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	for (i = 0; i < 15; i++)
		ASSERT_EQ(pat(i * WORDS + 3), ops[i].result);

	vgpu_stat_read("invalidates", &inv0);
	ASSERT_LE(0, (long)(munmap(&buf[4 * WORDS], 4 * PAGE))) {
		TH_LOG("%s", strerror(errno));
	}
	vgpu_stat_read("invalidates", &inv1);
	ASSERT_PASS(query_expect(&f, &buf[4 * WORDS], 4, NVSVM_QUERY_VALID, 0));

	ops[0] = nvsvm_op_read(nvsvm_ptr(&buf[5 * WORDS + 3]));
	vgpu_stat_read("tlb_hits", &hit0);
	ASSERT_PASS(gpu_run_on(&f, gpc, 10000, ops, 1, &e));
	vgpu_stat_read("tlb_hits", &hit1);
	TH_LOG("munmap: %llu model invalidates; re-read: %llu TLB hits",
	       (unsigned long long)(inv1 - inv0),
	       (unsigned long long)(hit1 - hit0));
	ASSERT_FALSE(e.status == NVSVM_EXEC_OK) {
		TH_LOG("GPC %u read an unmapped page: %#llx (the old data is %#llx)",
		       gpc, (unsigned long long)ops[0].result,
		       (unsigned long long)pat(5 * WORDS + 3));
	}
	ASSERT_EQ(NVSVM_EXEC_FAULT, e.status);
	ASSERT_EQ(nvsvm_ptr(&buf[5 * WORDS]), e.fault_addr & ~(PAGE - 1));

	ops[0] = nvsvm_op_read(nvsvm_ptr(&buf[3 * WORDS + 3]));
	ops[1] = nvsvm_op_read(nvsvm_ptr(&buf[8 * WORDS + 3]));
	ASSERT_PASS(gpu_run_on(&f, gpc, 10000, ops, 2, &e));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	ASSERT_EQ(pat(3 * WORDS + 3), ops[0].result);
	ASSERT_EQ(pat(8 * WORDS + 3), ops[1].result);
}

/*
 * A munmap over whole tables: a table whose span the range covers is
 * unlinked without a look inside, its PTEs still valid in table memory, so
 * only the TLB invalidate keeps the GPU off them and only the release gives
 * their pages back. One PD0 span (512 MiB, aligned) holds a THP mapped by a
 * 2 MiB PTE, two small-page tables and a page far from them; a GPC reads
 * them all (its TLB warm), munmap takes the span whole: one invalidate
 * (the PD0 table goes whole, its 2 MiB PTE with it), every page and table
 * back, the same GPC's reads fault, and memory mapped
 * again at the same addresses reads its new content.
 */
#define WHOLE_SPAN	(512 * MiB)

TEST_F(chan, munmap_whole_tables_warm_tlb)
{
	static const uint64_t off[] = {
		0, THP_SIZE - PAGE, 2 * MiB + PAGE, 4 * MiB + 3 * PAGE,
		256 * MiB,
	};
	const unsigned int n = sizeof(off) / sizeof(off[0]);
	uint64_t pt0, pm0, i0, i1, mapped;
	char *raw = anon(2 * WHOLE_SPAN), *b;
	uint32_t gpc = warm_gpc(), q[512];
	struct nvsvm_op ops[8];
	struct fx f = self->fx;
	struct nvsvm_exec e;
	unsigned int i;

	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_VGPU();
	ASSERT_MAP(raw);
	NEED_PT_STATS(pt0, pm0);
	b = (char *)(((uintptr_t)raw + WHOLE_SPAN - 1) & ~(WHOLE_SPAN - 1));
	ASSERT_SYS(madvise(b, THP_SIZE, MADV_HUGEPAGE));
	ASSERT_SYS(madvise(b + THP_SIZE, WHOLE_SPAN - THP_SIZE,
			   MADV_NOHUGEPAGE));
	memset(b, 0x5a, THP_SIZE);
	if (is_thp(b) != 1)
		SKIP(return, "the kernel gave no THP for the block");
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b), THP_SIZE, NVSVM_MAP_WRITE,
			       &mapped));
	ASSERT_EQ(512, mapped);
	ASSERT_EQ(0, nvsvm_query(f.fd, nvsvm_ptr(b), 512, q));
	ASSERT_PASS(entries_shift(q, 0, 512, 21));
	for (i = 0; i < n; i++) {
		((uint64_t *)(b + off[i]))[1] = pat(i);
		if (off[i] >= THP_SIZE) {
			ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b + off[i]), PAGE,
					       NVSVM_MAP_WRITE, &mapped));
			ASSERT_EQ(1, mapped);
		}
		ops[i] = nvsvm_op_read(nvsvm_ptr(b + off[i] + 8));
	}
	ASSERT_PASS(stat_is("pages_mapped", pm0 + 512 + n - 2));
	ASSERT_PASS(gpu_run_on(&f, gpc, 10000, ops, n, &e));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	for (i = 0; i < n; i++)
		ASSERT_EQ(pat(i), ops[i].result);

	ASSERT_EQ(0, vgpu_stat_read("invalidates", &i0));
	ASSERT_SYS(munmap(b, WHOLE_SPAN));
	ASSERT_EQ(0, vgpu_stat_read("invalidates", &i1));
	ASSERT_EQ(1, i1 - i0);
	ASSERT_PASS(stat_is("pages_mapped", pm0));
	ASSERT_PASS(stat_is("pt_bytes", pt0));
	for (i = 0; i < n; i++) {
		ops[0] = nvsvm_op_read(nvsvm_ptr(b + off[i] + 8));
		ASSERT_PASS(gpu_run_on(&f, gpc, 10000, ops, 1, &e));
		ASSERT_EQ(NVSVM_EXEC_FAULT, e.status) {
			TH_LOG("GPC %u read page %u of an unmapped span: %#llx",
			       gpc, i, (unsigned long long)ops[0].result);
		}
		ASSERT_EQ(nvsvm_ptr(b + off[i]), e.fault_addr & ~(PAGE - 1));
	}

	/* The same addresses, new memory: the GPU reads what is there now. */
	ASSERT_EQ((void *)b, mmap(b, 8 * MiB, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	ASSERT_SYS(madvise(b, 8 * MiB, MADV_NOHUGEPAGE));
	for (i = 0; i < n - 1; i++) {
		((uint64_t *)(b + off[i]))[1] = pat(i + 100);
		ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(b + off[i]), PAGE,
				       NVSVM_MAP_WRITE, &mapped));
		ops[i] = nvsvm_op_read(nvsvm_ptr(b + off[i] + 8));
	}
	ASSERT_PASS(gpu_run_on(&f, gpc, 10000, ops, n - 1, &e));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	for (i = 0; i < n - 1; i++)
		ASSERT_EQ(pat(i + 100), ops[i].result);
	ASSERT_SYS(munmap(raw, 2 * WHOLE_SPAN));
	ASSERT_PASS(stat_is("pages_mapped", pm0));
	ASSERT_PASS(stat_is("pt_bytes", pt0));
}

/*
 * A warm TLB and a permission upgrade in place: after fork the parent's
 * pages are write-protected; the child writes its own copies and exits, so
 * the parent's pages are its alone. A GPC reads them (mapped read-only, in
 * its TLB so), then writes them: the CPU makes the same pages writable
 * without a notifier, the driver upgrades the PTEs, and only its own
 * invalidate (a replay invalidates nothing) lets the write through. One
 * fault per page (vgpu counters), every write lands.
 */
TEST_F(chan, write_upgrade_warm_tlb)
{
	volatile uint64_t *buf = anon_filled(64 * PAGE);
	uint64_t f0 = 0, f1 = 0, r0 = 0, r1 = 0;
	uint32_t gpc = warm_gpc();
	struct nvsvm_op ops[4];
	struct nvsvm_exec e;
	struct fx f = self->fx;
	pid_t pid;
	int i;

	NEED_CAP(NVSVM_CAP_EXEC);
	NEED_VGPU();
	ASSERT_TRUE(buf && (void *)buf != MAP_FAILED);
	pid = fork();
	ASSERT_LE(0, (long)(pid)) {
		TH_LOG("%s", strerror(errno));
	}
	if (!pid) {
		for (i = 0; i < 4; i++)
			buf[i * WORDS] = 0xc0c0;
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	for (i = 0; i < 4; i++)
		ops[i] = nvsvm_op_read(nvsvm_ptr(&buf[i * WORDS + 1]));
	ASSERT_PASS(gpu_run_on(&f, gpc, 10000, ops, 4, &e));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pat(i * WORDS + 1), ops[i].result);
	ASSERT_PASS(query_expect(&f, (void *)buf, 4,
				 NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE,
				 NVSVM_QUERY_VALID));

	ASSERT_EQ(0, vgpu_stat_read("faults", &f0));
	ASSERT_EQ(0, vgpu_stat_read("refaults", &r0));
	for (i = 0; i < 4; i++)
		ops[i] = nvsvm_op_write(nvsvm_ptr(&buf[i * WORDS + 2]), 0xd0 + i);
	ASSERT_PASS(gpu_run_on(&f, gpc, 5000, ops, 4, &e));
	ASSERT_EQ(0, vgpu_stat_read("faults", &f1));
	ASSERT_EQ(0, vgpu_stat_read("refaults", &r1));
	ASSERT_FALSE(e.status != NVSVM_EXEC_OK) {
		TH_LOG("writes on GPC %u: status %s after %u of 4, %llu faults (%llu again at once)",
		       gpc, nvsvm_status_name(e.status), e.done,
		       (unsigned long long)(f1 - f0),
		       (unsigned long long)(r1 - r0));
	}
	ASSERT_TRUE(f1 - f0 <= 4) {
		TH_LOG("%llu faults for 4 writes (%llu again at once)",
		       (unsigned long long)(f1 - f0),
		       (unsigned long long)(r1 - r0));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0xd0 + i, buf[i * WORDS + 2]);
		ASSERT_EQ(pat(i * WORDS), buf[i * WORDS]);
	}
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, 0);
}
