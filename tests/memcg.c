// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel memory a process makes the driver allocate is charged to its
 * memory cgroup, and a file cannot hold more than its share.
 *
 * Each case that needs a memory cgroup mounts cgroup2 on /sys/fs/cgroup if
 * it is not there yet, enables the memory controller below the root and
 * moves the case's process into a group of its own; it skips when the
 * kernel has no cgroup2 or no memory controller (the debug kernel built
 * without CONFIG_MEMCG). Memory figures come from the group's
 * memory.current (every page charged, including the per-CPU charge
 * batches) and memory.stat's `kernel` (kernel memory charged), compared
 * with the driver's own count of table memory (debugfs pt_bytes). The
 * slack allowed for per-CPU batching is 128 pages per CPU, and each case
 * makes the driver allocate several times that.
 */
#include "kselftest_harness.h"
#include "common.h"

/* At least this much per channel: its instance block, a page. */
#define CHAN_MIN_BYTES	4096ULL
/* Default of nvsvm.max_channels (uapi/nvsvm.h, docs/uapi.md). */
#define CHAN_LIMIT_DEFAULT	1024
#define BLOCK		(2 * MiB)

/* memory.current of the case's group, in bytes. */
static uint64_t cg_current(void)
{
	char buf[64];

	if (cg_read(cg_dir, "memory.current", buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 10);
}

/* The field @key of the group's @file (memory.stat, memory.events). */
static uint64_t cg_field(const char *file, const char *key)
{
	static char buf[8192];
	size_t klen = strlen(key);
	char *line;

	if (cg_read(cg_dir, file, buf, sizeof(buf)))
		return 0;
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoull(line + klen + 1, NULL, 10);
	}
	return 0;
}

static uint64_t cg_kernel(void)
{
	return cg_field("memory.stat", "kernel");
}

/* Allowed error of the figures: per-CPU charge batches and stat deltas. */
static uint64_t cg_slack(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	return 128ULL * PAGE * (cpus > 0 ? cpus : 1);
}

static uint64_t pt_bytes(void)
{
	uint64_t v = 0;

	nvsvm_stat_read(dev_index, "pt_bytes", &v);
	return v;
}

/*
 * @n 2 MiB blocks of never-mapped anonymous memory with the first page of
 * each touched by the CPU (its page and CPU page tables charged now, not
 * during what is measured).
 */
static char *sparse(uint64_t n)
{
	char *p = anon((n + 1) * BLOCK);
	uint64_t i;

	if (!p)
		return NULL;
	p = (char *)(((uintptr_t)p + BLOCK - 1) & ~(uintptr_t)(BLOCK - 1));
	/* One small page per block, not a THP each. */
	madvise(p, n * BLOCK, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * BLOCK] = 1;
	return p;
}

/* A GPU read of the touched word of each block of sparse(@n). */
static struct nvsvm_op *sparse_reads(uint64_t n)
{
	struct nvsvm_op *ops;
	char *p = sparse(n);
	uint64_t i;

	ops = p ? calloc(n, sizeof(*ops)) : NULL;
	for (i = 0; ops && i < n; i++)
		ops[i] = nvsvm_op_read(nvsvm_ptr(p + i * BLOCK));
	return ops;
}

/*
 * For the GPU cases: into a group of its own, sparse_reads(@n) in @ops, a
 * file with an area and a channel in @f.
 */
#define GPU_FIXTURE(n, ops, f) do {					\
	NEED_CAP(NVSVM_CAP_EXEC);					\
	CG_ENTER("max");						\
	ops = sparse_reads(n);						\
	ASSERT_NE(NULL, ops);						\
	FX_OPEN(&f);							\
} while (0)

/*
 * memory.max of the case's group, opened before the limit is set: opening
 * a file allocates, and at the limit that would be an OOM kill.
 */
static int cg_open_max(void)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/memory.max", cg_dir);
	return open(path, O_WRONLY);
}

/*
 * CHAN_CREATE charges the caller's group at least CHAN_MIN_BYTES per
 * channel, and closing the file gives it all back.
 */
TEST(chan_create_charged)
{
	const unsigned int n = 1000;
	uint64_t cur0, k0, cur1, k1, cur2, k2, slack = cg_slack();
	uint32_t h;
	unsigned int i;
	int fd;

	CG_ENTER("max");
	OPEN_DEV(fd);
	ASSERT_EQ(0, nvsvm_chan_create(fd, 0, &h));
	cur0 = cg_current();
	k0 = cg_kernel();
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, nvsvm_chan_create(fd, 0, &h));
	cur1 = cg_current();
	k1 = cg_kernel();
	close(fd);
	cur2 = cg_current();
	k2 = cg_kernel();
	cg_leave();
	TH_LOG("%u channels: memory.current +%lld, kernel +%lld; after close %+lld, %+lld (slack %llu)",
	       n, (long long)(cur1 - cur0), (long long)(k1 - k0),
	       (long long)(cur2 - cur0), (long long)(k2 - k0),
	       (unsigned long long)slack);
	ASSERT_TRUE(cur1 >= cur0 + n * CHAN_MIN_BYTES - slack) {
		TH_LOG("memory.current %llu -> %llu", (unsigned long long)cur0,
		       (unsigned long long)cur1);
	}
	ASSERT_TRUE(k1 >= k0 + n * CHAN_MIN_BYTES - slack) {
		TH_LOG("memory.stat kernel %llu -> %llu",
		       (unsigned long long)k0, (unsigned long long)k1);
	}
	ASSERT_TRUE(k2 <= k0 + slack) {
		TH_LOG("kernel %llu after close, %llu before",
		       (unsigned long long)k2, (unsigned long long)k0);
	}
}

/* The limit of nvsvm.max_channels (or its documented default). */
static unsigned int chan_limit(void)
{
	char buf[32];

	if (cg_read("/sys/module/nvsvm/parameters", "max_channels", buf,
		    sizeof(buf)))
		return CHAN_LIMIT_DEFAULT;
	return strtoul(buf, NULL, 10);
}

/*
 * A file holds at most max_channels channels: the next CHAN_CREATE fails
 * with ENOSPC and creates nothing; a destroyed channel makes room for one;
 * another file has its own budget.
 */
TEST(chan_limit_enospc)
{
	unsigned int i, limit = chan_limit();
	uint32_t h, h2;
	int fd, fd2;

	TH_LOG("max_channels %u", limit);
	ASSERT_TRUE(limit >= 1 && limit <= 65536) {
		TH_LOG("limit %u", limit);
	}
	OPEN_DEV(fd);
	for (i = 0; i < limit; i++)
		ASSERT_EQ(0, nvsvm_chan_create(fd, 0, &h));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(-ENOSPC, nvsvm_chan_create(fd, 0, &h));
	ASSERT_EQ(-ENOENT, nvsvm_chan_destroy(fd, limit + 1));
	ASSERT_EQ(0, nvsvm_chan_destroy(fd, 5));
	ASSERT_EQ(0, nvsvm_chan_create(fd, 0, &h));
	ASSERT_EQ(5, h);
	ASSERT_EQ(-ENOSPC, nvsvm_chan_create(fd, 0, &h));
	OPEN_DEV(fd2);
	ASSERT_EQ(0, nvsvm_chan_create(fd2, 0, &h2));
	ASSERT_EQ(1, h2);
	close(fd2);
	close(fd);
}

/*
 * Tables for @n sparse blocks were made (pt_bytes @pt0 -> @pt1), and the
 * group's kernel memory (@k0 -> @k1) grew at least as much.
 */
static int tables_charged(uint64_t n, uint64_t pt0, uint64_t pt1,
			  uint64_t k0, uint64_t k1)
{
	CHK_TRUE(pt1 - pt0 >= n * PAGE, "pt_bytes %llu -> %llu",
		 (unsigned long long)pt0, (unsigned long long)pt1);
	CHK_TRUE(k1 + cg_slack() >= k0 + (pt1 - pt0),
		 "memory.stat kernel %llu -> %llu", (unsigned long long)k0,
		 (unsigned long long)k1);
	return KTAP_PASS;
}

/*
 * The GPU page tables of a sparse MAP are charged to the caller's group:
 * memory.stat's kernel grows at least by what pt_bytes says the tables
 * take, and goes back at close.
 */
TEST(map_tables_charged)
{
	const uint64_t n = 1024;
	uint64_t cur0, k0, pt0, cur1, k1, pt1, k2, slack = cg_slack();
	struct nvsvm_map m;
	char *p;
	int fd;

	CG_ENTER("max");
	p = sparse(n);
	ASSERT_TRUE(p && (void *)p != MAP_FAILED);
	OPEN_AREA(fd);
	ASSERT_PASS(areas_settled(dev_index));
	pt0 = pt_bytes();
	cur0 = cg_current();
	k0 = cg_kernel();
	m = (struct nvsvm_map){ .addr = nvsvm_ptr(p), .size = n * BLOCK };
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	ASSERT_EQ(n, m.mapped);
	pt1 = pt_bytes();
	cur1 = cg_current();
	k1 = cg_kernel();
	close(fd);
	ASSERT_PASS(stats_become(dev_index, "pt_bytes", pt0, NULL, 0));
	k2 = cg_kernel();
	cg_leave();
	TH_LOG("MAP of %llu sparse blocks: pt_bytes +%lld, memory.current +%lld, kernel +%lld; after close kernel %+lld (slack %llu)",
	       (unsigned long long)n, (long long)(pt1 - pt0),
	       (long long)(cur1 - cur0), (long long)(k1 - k0),
	       (long long)(k2 - k0), (unsigned long long)slack);
	ASSERT_PASS(tables_charged(n, pt0, pt1, k0, k1));
	ASSERT_TRUE(cur1 + slack >= cur0 + (pt1 - pt0)) {
		TH_LOG("memory.current %llu -> %llu", (unsigned long long)cur0,
		       (unsigned long long)cur1);
	}
	ASSERT_TRUE(k2 <= k0 + slack) {
		TH_LOG("kernel %llu after close, %llu before",
		       (unsigned long long)k2, (unsigned long long)k0);
	}
}

/*
 * Tables the fault worker allocates while serving GPU faults are charged
 * to the group of the process whose area they belong to, not to the
 * worker (which would be charged to no one).
 */
TEST(fault_tables_charged)
{
	const uint64_t n = 1024;
	uint64_t k0, pt0, k1, pt1, slack = cg_slack(), i;
	struct nvsvm_op *ops;
	struct fx f;

	GPU_FIXTURE(n, ops, f);
	ASSERT_PASS(areas_settled(dev_index));
	pt0 = pt_bytes();
	k0 = cg_kernel();
	ASSERT_PASS(gpu_ok(&f, ops, n));
	pt1 = pt_bytes();
	k1 = cg_kernel();
	for (i = 0; i < n; i++)
		ASSERT_EQ(1, ops[i].result);
	close(f.fd);
	ASSERT_PASS(stats_become(dev_index, "pt_bytes", pt0, NULL, 0));
	cg_leave();
	TH_LOG("GPU faults on %llu sparse blocks: pt_bytes +%lld, kernel +%lld (slack %llu)",
	       (unsigned long long)n, (long long)(pt1 - pt0),
	       (long long)(k1 - k0), (unsigned long long)slack);
	ASSERT_PASS(tables_charged(n, pt0, pt1, k0, k1));
}

/*
 * With memory.max 1 MiB above what the group uses, a sparse MAP that needs
 * 8 MiB of tables fails with ENOMEM: no OOM kill in the group, the caller
 * alive. Once the limit is lifted the same MAP completes, and closing the
 * file gives every table back.
 */
TEST(map_over_limit_enomem)
{
	const uint64_t n = 2048;
	uint64_t pt0, cur, kills0, kills1;
	struct nvsvm_map m;
	int fd, maxfd, ret;
	char max[32], *p;

	CG_ENTER("max");
	p = sparse(n);
	ASSERT_TRUE(p && (void *)p != MAP_FAILED);
	OPEN_AREA(fd);
	maxfd = cg_open_max();
	ASSERT_LE(0, (long)(maxfd)) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(areas_settled(dev_index));
	pt0 = pt_bytes();
	kills0 = cg_field("memory.events", "oom_kill");
	cur = cg_current();
	snprintf(max, sizeof(max), "%llu", (unsigned long long)(cur + MiB));
	ASSERT_LE(0, (long)(write(maxfd, max, strlen(max)))) {
		TH_LOG("%s", strerror(errno));
	}

	m = (struct nvsvm_map){ .addr = nvsvm_ptr(p), .size = n * BLOCK };
	ret = xioctl(fd, NVSVM_IOCTL_MAP, &m);
	/* Lift the limit before anything else allocates. */
	ASSERT_LE(0, (long)(write(maxfd, "max", 3))) {
		TH_LOG("%s", strerror(errno));
	}
	close(maxfd);
	kills1 = cg_field("memory.events", "oom_kill");
	TH_LOG("MAP under memory.max = current + 1 MiB: %s, pt_bytes +%lld, oom_kill %llu -> %llu",
	       ret ? strerror(-ret) : "success", (long long)(pt_bytes() - pt0),
	       (unsigned long long)kills0, (unsigned long long)kills1);
	ASSERT_EQ(-ENOMEM, ret);
	ASSERT_EQ(kills0, kills1);

	m = (struct nvsvm_map){ .addr = nvsvm_ptr(p), .size = n * BLOCK };
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	ASSERT_EQ(n, m.mapped);
	close(fd);
	ASSERT_PASS(stats_become(dev_index, "pt_bytes", pt0, NULL, 0));
	cg_leave();
}

/*
 * The fault worker cannot charge tables beyond memory.max either: GPU reads
 * of 1024 sparse blocks with 256 KiB of room do not complete (the faults
 * are replayed until the program's timeout, or cancelled), nobody is OOM
 * killed, and once the limit is lifted the same program completes.
 */
TEST(fault_over_limit)
{
	const uint64_t n = 1024;
	uint64_t pt0, kills0, kills1, i;
	struct nvsvm_exec e = { 0 };
	struct nvsvm_op *ops;
	int maxfd, ret;
	char max[32];
	struct fx f;

	GPU_FIXTURE(n, ops, f);
	maxfd = cg_open_max();
	ASSERT_LE(0, (long)(maxfd)) {
		TH_LOG("%s", strerror(errno));
	}
	ASSERT_PASS(areas_settled(dev_index));
	pt0 = pt_bytes();
	kills0 = cg_field("memory.events", "oom_kill");
	snprintf(max, sizeof(max), "%llu",
		 (unsigned long long)(cg_current() + 256 * 1024));
	ASSERT_LE(0, (long)(write(maxfd, max, strlen(max)))) {
		TH_LOG("%s", strerror(errno));
	}

	ret = nvsvm_exec(f.fd, f.chan, NVSVM_GPC_ANY, ops, n, 2000, &e);
	ASSERT_LE(0, (long)(write(maxfd, "max", 3))) {
		TH_LOG("%s", strerror(errno));
	}
	close(maxfd);
	kills1 = cg_field("memory.events", "oom_kill");
	TH_LOG("GPU reads of %llu sparse blocks with 256 KiB of room: %s, %s after %u ops, pt_bytes +%lld, oom_kill %llu -> %llu",
	       (unsigned long long)n, ret ? strerror(-ret) : "EXEC ok",
	       nvsvm_status_name(e.status), e.done,
	       (long long)(pt_bytes() - pt0), (unsigned long long)kills0,
	       (unsigned long long)kills1);
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(e.status == NVSVM_EXEC_TIMEOUT ||
		    e.status == NVSVM_EXEC_FAULT) {
		TH_LOG("status %s", nvsvm_status_name(e.status));
	}
	ASSERT_TRUE(e.done < n) {
		TH_LOG("done %u", e.done);
	}
	ASSERT_EQ(kills0, kills1);

	ASSERT_EQ(0, nvsvm_chan_destroy(f.fd, f.chan));
	ASSERT_EQ(0, nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan));
	ASSERT_PASS(gpu_ok(&f, ops, n));
	for (i = 0; i < n; i++)
		ASSERT_EQ(1, ops[i].result);
	close(f.fd);
	ASSERT_PASS(stats_become(dev_index, "pt_bytes", pt0, NULL, 0));
	cg_leave();
}

/* Pages [@from, @to) of the 2 MiB block @p resident (@in) or not. */
static int resident(void *p, unsigned int from, unsigned int to, int in)
{
	unsigned char v[BLOCK / PAGE];
	unsigned int i;

	CHK_SYS(mincore(p, BLOCK, v));
	for (i = from; i < to; i++)
		if (!(v[i] & 1) != !in)
			KTAP_FAIL_MSG("page %u %s resident", i, in ? "not" : "");
	return KTAP_PASS;
}

/*
 * A GPU write that makes a block dense fills the block's untouched private
 * anonymous pages (tests/prefetch.c) only with room to spare below
 * memory.max: with 1 MiB of room, the write completes, the 211 pages above
 * it stay absent and nobody is OOM killed. With the limit lifted, the next
 * write fills them.
 */
TEST(fill_needs_room)
{
	const unsigned int dense = 300, pages = BLOCK / PAGE;
	uint64_t kills0, kills1, mapped = 0;
	unsigned int old, i;
	int maxfd, ret;
	char max[32], *p;
	struct fx f;

	NEED_CAP(NVSVM_CAP_EXEC);
	CG_ENTER("max");
	p = sparse(1);
	ASSERT_NE(NULL, p);
	for (i = 0; i < dense; i++)
		p[i * PAGE] = 1;
	FX_OPEN(&f);
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(p), dense * PAGE, 0, &mapped));
	ASSERT_EQ(dense, mapped);
	maxfd = cg_open_max();
	ASSERT_LE(0, (long)(maxfd)) {
		TH_LOG("%s", strerror(errno));
	}
	ret = set_param("/sys/module/nvsvm/parameters/prefetch_threshold", 51,
			&old);
	if (ret)
		SKIP(return, "prefetch_threshold: %s", strerror(-ret));
	kills0 = cg_field("memory.events", "oom_kill");
	snprintf(max, sizeof(max), "%llu",
		 (unsigned long long)(cg_current() + MiB));
	ASSERT_LE(0, (long)(write(maxfd, max, strlen(max)))) {
		TH_LOG("%s", strerror(errno));
	}
	ret = gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(p + dense * PAGE), 7),
		      NULL);
	ASSERT_LE(0, (long)(write(maxfd, "max", 3))) {
		TH_LOG("%s", strerror(errno));
	}
	close(maxfd);
	kills1 = cg_field("memory.events", "oom_kill");
	if (ret == KTAP_PASS)
		ret = resident(p, dense + 1, pages, 0);
	if (ret == KTAP_PASS)
		ret = gpu_ok1(&f, nvsvm_op_write(nvsvm_ptr(p + (dense + 1) *
							   PAGE), 8), NULL);
	set_param("/sys/module/nvsvm/parameters/prefetch_threshold", old,
		  NULL);
	ASSERT_PASS(ret);
	ASSERT_EQ(kills0, kills1);
	ASSERT_EQ(7, p[dense * PAGE]);
	ASSERT_EQ(8, p[(dense + 1) * PAGE]);
	ASSERT_PASS(resident(p, 0, pages, 1));
	close(f.fd);
	cg_leave();
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, 0);
}
