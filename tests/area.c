// SPDX-License-Identifier: GPL-2.0
/*
 * SVM area life cycle and bad input: AREA_INIT once (EBUSY after), the
 * unmanaged window rules, calls in the wrong order, a file used from
 * another address space (EPERM), and every MAP/UNMAP/QUERY/EXEC field
 * tried with bad values.
 *
 * Cases: TEST_F(dev, ...) on an open device, TEST_F(area, ...) on one with
 * an area, TEST() where the case opens the device itself
 * (kselftest_harness.h).
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "common.h"

#define VA_LIMIT	(1ULL << 49)

FIXTURE_FX(dev, FX_NO_AREA, FX_NO_CHAN)
FIXTURE_FX(area, FX_AREA, FX_NO_CHAN)

static void *anon_set(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		memset(p, 0x5a, size);
	return p;
}

TEST_F(dev, area_init_once)
{
	int fd = self->fx.fd;

	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	ASSERT_EQ(-EBUSY, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	ASSERT_EQ(-EBUSY, nvsvm_area_init(fd, 0, 0));
}

TEST_F(dev, area_init_empty_window)
{
	int fd = self->fx.fd;

	ASSERT_EQ(0, nvsvm_area_init(fd, 0, 0));
}

TEST_F(dev, area_window_unaligned)
{
	int fd = self->fx.fd;

	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, WIN_ADDR + 8, WIN_SIZE));
	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE + 8));
	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, WIN_ADDR + 2048, PAGE));
	/* None of them left an area behind. */
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
}

TEST_F(dev, area_window_wrapping)
{
	int fd = self->fx.fd;

	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, ~0ULL - PAGE + 1, 2 * PAGE));
	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, WIN_ADDR, ~0ULL - PAGE + 1));
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
}

TEST_F(dev, area_window_above_1_40)
{
	const uint64_t lim = 1ULL << 40;
	int fd = self->fx.fd;

	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, lim - PAGE, 2 * PAGE));
	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, lim, PAGE));
	ASSERT_EQ(-EINVAL, nvsvm_area_init(fd, 1ULL << 45, 1ULL << 30));
	/* Ending exactly at 1 << 40 is allowed. */
	ASSERT_EQ(0, nvsvm_area_init(fd, lim - (1ULL << 30), 1ULL << 30));
}

TEST_F(dev, no_area_einval)
{
	uint64_t *buf = anon_set(PAGE);
	uint32_t q, h;
	int fd = self->fx.fd;

	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(-EINVAL, nvsvm_map(fd, nvsvm_ptr(buf), PAGE, NVSVM_MAP_FAULT, NULL));
	ASSERT_EQ(-EINVAL, nvsvm_unmap(fd, nvsvm_ptr(buf), PAGE));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, nvsvm_ptr(buf), 1, &q));
	ASSERT_EQ(-EINVAL, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &h));
	/* A channel that does not join an area needs none. */
	ASSERT_EQ(0, nvsvm_chan_create(fd, 0, &h));
	ASSERT_EQ(0, nvsvm_chan_destroy(fd, h));
}

TEST_F(area, area_fini_then_init)
{
	uint64_t *buf = anon_set(4 * PAGE), mapped = 0;
	uint32_t q[4];
	int fd = self->fx.fd;

	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, nvsvm_map(fd, nvsvm_ptr(buf), 4 * PAGE, NVSVM_MAP_FAULT,
			    &mapped));
	ASSERT_EQ(4, mapped);
	ASSERT_EQ(0, nvsvm_area_fini(fd));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, nvsvm_ptr(buf), 4, q));
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	/* A fresh area: nothing mapped until asked. */
	ASSERT_EQ(0, nvsvm_query(fd, nvsvm_ptr(buf), 4, q));
	ASSERT_EQ(0, q[0] & NVSVM_QUERY_VALID);
	ASSERT_EQ(0, nvsvm_map(fd, nvsvm_ptr(buf), 4 * PAGE, NVSVM_MAP_FAULT,
			    &mapped));
	ASSERT_EQ(4, mapped);
	ASSERT_EQ(0, nvsvm_query(fd, nvsvm_ptr(buf), 4, q));
	ASSERT_EQ(NVSVM_QUERY_VALID, q[3] & NVSVM_QUERY_VALID);
}

/* What another address space got from each ioctl on the file. */
struct foreign {
	int area_init, map, query, chan_create, exec, area_fini, get_info;
	uint32_t chipset;
};

static void try_foreign(int fd, uint64_t addr, uint32_t chan,
			struct foreign *r)
{
	struct nvsvm_op op = nvsvm_op_read(addr);
	struct nvsvm_get_info gi;
	uint32_t q, h;

	r->area_init = nvsvm_area_init(fd, 0, 0);
	r->map = nvsvm_map(fd, addr, PAGE, NVSVM_MAP_FAULT, NULL);
	r->query = nvsvm_query(fd, addr, 1, &q);
	r->chan_create = nvsvm_chan_create(fd, 0, &h);
	r->exec = (info.caps & NVSVM_CAP_EXEC) ?
		nvsvm_exec(fd, chan, NVSVM_GPC_ANY, &op, 1, 1000, NULL) :
		-EPERM;
	r->area_fini = nvsvm_area_fini(fd);
	r->get_info = nvsvm_get_info(fd, &gi);
	r->chipset = gi.chipset;
}

static int check_foreign(const struct foreign *r)
{
	CHK_ERR(r->area_init, EPERM);
	CHK_ERR(r->map, EPERM);
	CHK_ERR(r->query, EPERM);
	CHK_ERR(r->chan_create, EPERM);
	CHK_ERR(r->exec, EPERM);
	CHK_ERR(r->area_fini, EPERM);
	CHK_OK(r->get_info);
	CHK_EQ(r->chipset, info.chipset);
	return KTAP_PASS;
}

TEST_F(area, fork_child_eperm)
{
	struct foreign *r = ktap_shared(sizeof(*r));
	uint64_t *buf = anon_set(PAGE), mapped = 0;
	uint32_t chan;
	pid_t pid;
	int fd = self->fx.fd;

	ASSERT_NE(NULL, r);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		try_foreign(fd, nvsvm_ptr(buf), chan, r);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_PASS(check_foreign(r));
	/* The owner is unaffected: its area is still there. */
	ASSERT_EQ(0, nvsvm_map(fd, nvsvm_ptr(buf), PAGE, NVSVM_MAP_FAULT,
			    &mapped));
	ASSERT_EQ(1, mapped);
}

/* The device is opened after the fork: no fixture. */
TEST(scm_rights_eperm)
{
	struct foreign *r = ktap_shared(sizeof(*r));
	uint64_t *buf = anon_set(PAGE);
	int sv[2], fd, rfd;
	uint32_t chan;
	pid_t pid;

	ASSERT_NE(NULL, r);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	/* The receiver exists before the device is opened: it inherits nothing. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sv[0]);
		/* The sender's channel handle travels with the descriptor. */
		rfd = recv_fd(sv[1], &chan, sizeof(chan));
		if (rfd < 0)
			_exit(2);
		try_foreign(rfd, nvsvm_ptr(buf), chan, r);
		_exit(0);
	}
	close(sv[1]);
	fd = nvsvm_open(dev_index);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nvsvm_chan_create(fd, 0, &chan));
	ASSERT_EQ(0, send_fd(sv[0], fd, &chan, sizeof(chan)));
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_PASS(check_foreign(r));
	/* The receiver's AREA_INIT did not bind the file to its mm. */
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
}

struct range {
	uint64_t addr, size;
	const char *what;
};

static int bad_ranges(const uint64_t base, struct range *r, int n)
{
	r[0] = (struct range){ base + 8, PAGE, "unaligned addr" };
	r[1] = (struct range){ base, PAGE + 8, "unaligned size" };
	r[2] = (struct range){ base, 0, "size 0" };
	r[3] = (struct range){ base, 0 - base + PAGE, "wrapping" };
	r[4] = (struct range){ VA_LIMIT, PAGE, "at 1 << 49" };
	r[5] = (struct range){ VA_LIMIT - PAGE, 2 * PAGE, "ending past 1 << 49" };
	r[6] = (struct range){ ~0ULL - PAGE + 1, PAGE, "top page of u64" };
	return n < 7 ? n : 7;
}

TEST_F(area, map_bad_fields)
{
	uint64_t *buf = anon_set(PAGE), mapped;
	struct nvsvm_map m = { 0 };
	struct range r[7];
	int fd = self->fx.fd, i, n;

	ASSERT_NE(MAP_FAILED, buf);
	n = bad_ranges(nvsvm_ptr(buf), r, 7);
	for (i = 0; i < n; i++) {
		int ret = nvsvm_map(fd, r[i].addr, r[i].size, NVSVM_MAP_FAULT,
				    &mapped);

		ASSERT_EQ(-EINVAL, ret) {
			TH_LOG("MAP %s [%#llx +%#llx)", r[i].what,
			       (unsigned long long)r[i].addr,
			       (unsigned long long)r[i].size);
		}
	}
	m.addr = nvsvm_ptr(buf);
	m.size = PAGE;
	m.flags = 1U << 2;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	m.flags = NVSVM_MAP_FAULT;
	m.reserved = 0x80000000U;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	m.reserved = 0;
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	ASSERT_EQ(1, m.mapped);
}

TEST_F(area, unmap_bad_fields)
{
	uint64_t *buf = anon_set(PAGE);
	struct nvsvm_unmap u = { 0 };
	struct range r[7];
	int fd = self->fx.fd, i, n;

	ASSERT_NE(MAP_FAILED, buf);
	n = bad_ranges(nvsvm_ptr(buf), r, 7);
	for (i = 0; i < n; i++) {
		int ret = nvsvm_unmap(fd, r[i].addr, r[i].size);

		ASSERT_EQ(-EINVAL, ret) {
			TH_LOG("UNMAP %s [%#llx +%#llx)", r[i].what,
			       (unsigned long long)r[i].addr,
			       (unsigned long long)r[i].size);
		}
	}
	u.addr = nvsvm_ptr(buf);
	u.size = PAGE;
	u.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_UNMAP, &u));
	u.flags = 0;
	u.reserved = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_UNMAP, &u));
	u.reserved = 0;
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_UNMAP, &u));
}

TEST_F(area, query_bad_fields)
{
	uint64_t *buf = anon_set(PAGE);
	uint32_t q[2];
	int fd = self->fx.fd;

	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, nvsvm_ptr(buf) + 8, 1, q));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, nvsvm_ptr(buf), 0, q));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, nvsvm_ptr(buf), NVSVM_QUERY_MAX + 1ULL, q));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, nvsvm_ptr(buf), 1ULL << 63, q));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, VA_LIMIT, 1, q));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, VA_LIMIT - PAGE, 2, q));
	ASSERT_EQ(-EINVAL, nvsvm_query(fd, ~0ULL - PAGE + 1, 2, q));
	ASSERT_EQ(0, nvsvm_query(fd, nvsvm_ptr(buf), 2, q));
	ASSERT_EQ(0, q[0] & NVSVM_QUERY_VALID);
}

TEST_F(area, query_bad_entries)
{
	uint64_t *buf = anon_set(PAGE);
	void *ro;
	int fd = self->fx.fd;

	ASSERT_NE(MAP_FAILED, buf);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(-EFAULT, nvsvm_query(fd, nvsvm_ptr(buf), 1, NULL));
	ASSERT_EQ(-EFAULT, nvsvm_query(fd, nvsvm_ptr(buf), 1, ro));
	ASSERT_EQ(-EFAULT, nvsvm_query(fd, nvsvm_ptr(buf), 2,
				       (uint32_t *)((char *)ro + PAGE - 4)));
}

TEST_F(area, query_max_npages)
{
	uint32_t *q = malloc(NVSVM_QUERY_MAX * sizeof(*q));
	uint64_t i;
	int fd = self->fx.fd;

	ASSERT_NE(NULL, q);
	memset(q, 0xff, NVSVM_QUERY_MAX * sizeof(*q));
	/*
	 * 4 GiB of never-used user address space (1 << 46 is below the CPU's
	 * 47-bit limit): nothing is there.
	 */
	ASSERT_EQ(0, nvsvm_query(fd, 1ULL << 46, NVSVM_QUERY_MAX, q));
	/* The first VALID entry, if any. */
	for (i = 0; i < NVSVM_QUERY_MAX; i++)
		if (q[i] & NVSVM_QUERY_VALID)
			break;
	ASSERT_EQ(NVSVM_QUERY_MAX, i) {
		TH_LOG("entry %llu is VALID", (unsigned long long)i);
	}
}

TEST_F(area, map_in_unmanaged_window)
{
	uint64_t mapped = 0;
	void *p;
	int fd = self->fx.fd;

	p = mmap((void *)WIN_ADDR, 4 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, 4 * PAGE);
	ASSERT_EQ(-EINVAL, nvsvm_map(fd, WIN_ADDR, 4 * PAGE, NVSVM_MAP_FAULT,
				     &mapped));
	ASSERT_EQ(-EINVAL, nvsvm_map(fd, WIN_ADDR + WIN_SIZE - PAGE, PAGE, 0,
				     &mapped));
}

TEST_F(area, exec_bad_args)
{
	static struct nvsvm_op ops[NVSVM_EXEC_MAX_OPS + 1];
	struct nvsvm_exec e = { .gpc = NVSVM_GPC_ANY, .timeout_ms = 1000,
				.nops = 1 };
	uint32_t chan;
	int fd = self->fx.fd;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
	e.ops = nvsvm_ptr(ops);
	e.handle = chan;
	e.nops = 0;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.nops = NVSVM_EXEC_MAX_OPS + 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.nops = 1;
	e.timeout_ms = 0;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.timeout_ms = 600001;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.timeout_ms = 1000;
	e.gpc = info.gpc_count;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.gpc = NVSVM_GPC_ANY;
	e.handle = chan + 1000;
	ASSERT_EQ(-ENOENT, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	/* The largest program is fine (all NOPs). */
	e.handle = chan;
	e.nops = NVSVM_EXEC_MAX_OPS;
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	ASSERT_EQ(NVSVM_EXEC_MAX_OPS, e.done);
}

TEST_F(area, exec_bad_ops)
{
	static volatile uint64_t var, src[4];
	uint64_t v = nvsvm_ptr(&var), s = nvsvm_ptr(src);
	struct nvsvm_op bad[] = {
		{ .code = NVSVM_OP_COUNT },
		{ .code = 0xffffffffU },
		nvsvm_op_read(v + 4),
		nvsvm_op_write(v + 1, 1),
		nvsvm_op_atomic_add(v + 2, 1),
		nvsvm_op_copy(v, s + 4, 8),
		nvsvm_op_fill(v, 12, 0),
		nvsvm_op_sum(s, 6),
		nvsvm_op_fill(v, (1ULL << 30) + 8, 0),
		nvsvm_op_copy(v, s, 2ULL << 30),
		nvsvm_op_chase(v, (1ULL << 24) + 1, 1, 0, 8),
	};
	struct nvsvm_op ops[2];
	uint32_t chan;
	unsigned int i;
	int fd = self->fx.fd, ret;

	NEED_CAP(NVSVM_CAP_EXEC);
	ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		var = 0;
		ops[0] = nvsvm_op_write(v, 5);
		ops[1] = bad[i];
		ret = nvsvm_exec(fd, chan, NVSVM_GPC_ANY, ops, 2, 1000, NULL);
		ASSERT_TRUE(ret == -EINVAL && var == 0) {
			TH_LOG("bad op %u (code %u): expected EINVAL and no op run, got %d, var %llu",
			       i, bad[i].code, ret, (unsigned long long)var);
		}
	}
	ops[1] = nvsvm_op_nop();
	ASSERT_EQ(0, nvsvm_exec(fd, chan, NVSVM_GPC_ANY, ops, 2, 1000, NULL));
	ASSERT_EQ(5, var);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, 0);
}
