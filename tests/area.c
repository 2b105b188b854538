// SPDX-License-Identifier: GPL-2.0
/*
 * SVM area life cycle and bad input: AREA_INIT once (EBUSY after), the
 * unmanaged window rules, calls in the wrong order, a file used from
 * another address space (EPERM), and every MAP/UNMAP/QUERY/EXEC field
 * tried with bad values.
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ktap.h"
#include "common.h"

#define VA_LIMIT	(1ULL << 49)

static void *anon_set(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		memset(p, 0x5a, size);
	return p;
}

static int area_init_once(void)
{
	int fd;

	OPEN_DEV(fd);
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	EXPECT_ERR(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE), EBUSY);
	EXPECT_ERR(nvsvm_area_init(fd, 0, 0), EBUSY);
	return KTAP_PASS;
}

static int area_init_empty_window(void)
{
	int fd;

	OPEN_DEV(fd);
	EXPECT_OK(nvsvm_area_init(fd, 0, 0));
	return KTAP_PASS;
}

static int area_window_unaligned(void)
{
	int fd;

	OPEN_DEV(fd);
	EXPECT_ERR(nvsvm_area_init(fd, WIN_ADDR + 8, WIN_SIZE), EINVAL);
	EXPECT_ERR(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE + 8), EINVAL);
	EXPECT_ERR(nvsvm_area_init(fd, WIN_ADDR + 2048, PAGE), EINVAL);
	/* None of them left an area behind. */
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	return KTAP_PASS;
}

static int area_window_wrapping(void)
{
	int fd;

	OPEN_DEV(fd);
	EXPECT_ERR(nvsvm_area_init(fd, ~0ULL - PAGE + 1, 2 * PAGE), EINVAL);
	EXPECT_ERR(nvsvm_area_init(fd, WIN_ADDR, ~0ULL - PAGE + 1), EINVAL);
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	return KTAP_PASS;
}

static int area_window_above_1_40(void)
{
	const uint64_t lim = 1ULL << 40;
	int fd;

	OPEN_DEV(fd);
	EXPECT_ERR(nvsvm_area_init(fd, lim - PAGE, 2 * PAGE), EINVAL);
	EXPECT_ERR(nvsvm_area_init(fd, lim, PAGE), EINVAL);
	EXPECT_ERR(nvsvm_area_init(fd, 1ULL << 45, 1ULL << 30), EINVAL);
	/* Ending exactly at 1 << 40 is allowed. */
	EXPECT_OK(nvsvm_area_init(fd, lim - (1ULL << 30), 1ULL << 30));
	return KTAP_PASS;
}

static int no_area_einval(void)
{
	uint64_t *buf = anon_set(PAGE);
	uint32_t q, h;
	int fd;

	ASSERT_MAP(buf);
	OPEN_DEV(fd);
	EXPECT_ERR(nvsvm_map(fd, nvsvm_ptr(buf), PAGE, NVSVM_MAP_FAULT, NULL),
		   EINVAL);
	EXPECT_ERR(nvsvm_unmap(fd, nvsvm_ptr(buf), PAGE), EINVAL);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 1, &q), EINVAL);
	EXPECT_ERR(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &h), EINVAL);
	/* A channel that does not join an area needs none. */
	EXPECT_OK(nvsvm_chan_create(fd, 0, &h));
	EXPECT_OK(nvsvm_chan_destroy(fd, h));
	return KTAP_PASS;
}

static int area_fini_then_init(void)
{
	uint64_t *buf = anon_set(4 * PAGE), mapped = 0;
	uint32_t q[4];
	int fd;

	ASSERT_MAP(buf);
	OPEN_AREA(fd);
	EXPECT_OK(nvsvm_map(fd, nvsvm_ptr(buf), 4 * PAGE, NVSVM_MAP_FAULT,
			    &mapped));
	EXPECT_EQ(mapped, 4);
	EXPECT_OK(nvsvm_area_fini(fd));
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 4, q), EINVAL);
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	/* A fresh area: nothing mapped until asked. */
	EXPECT_OK(nvsvm_query(fd, nvsvm_ptr(buf), 4, q));
	EXPECT_EQ(q[0] & NVSVM_QUERY_VALID, 0);
	EXPECT_OK(nvsvm_map(fd, nvsvm_ptr(buf), 4 * PAGE, NVSVM_MAP_FAULT,
			    &mapped));
	EXPECT_EQ(mapped, 4);
	EXPECT_OK(nvsvm_query(fd, nvsvm_ptr(buf), 4, q));
	EXPECT_EQ(q[3] & NVSVM_QUERY_VALID, NVSVM_QUERY_VALID);
	return KTAP_PASS;
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
	EXPECT_ERR(r->area_init, EPERM);
	EXPECT_ERR(r->map, EPERM);
	EXPECT_ERR(r->query, EPERM);
	EXPECT_ERR(r->chan_create, EPERM);
	EXPECT_ERR(r->exec, EPERM);
	EXPECT_ERR(r->area_fini, EPERM);
	EXPECT_OK(r->get_info);
	EXPECT_EQ(r->chipset, info.chipset);
	return KTAP_PASS;
}

static int fork_child_eperm(void)
{
	struct foreign *r = ktap_shared(sizeof(*r));
	uint64_t *buf = anon_set(PAGE), mapped = 0;
	uint32_t chan;
	pid_t pid;
	int fd;

	ASSERT_MAP(r);
	ASSERT_MAP(buf);
	OPEN_AREA(fd);
	EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
	pid = fork();
	ASSERT_SYS(pid);
	if (!pid) {
		try_foreign(fd, nvsvm_ptr(buf), chan, r);
		_exit(0);
	}
	EXPECT_EQ(wait_child(pid), 0);
	if (check_foreign(r))
		return KTAP_FAIL;
	/* The owner is unaffected: its area is still there. */
	EXPECT_OK(nvsvm_map(fd, nvsvm_ptr(buf), PAGE, NVSVM_MAP_FAULT,
			    &mapped));
	EXPECT_EQ(mapped, 1);
	return KTAP_PASS;
}

static int scm_rights_eperm(void)
{
	struct foreign *r = ktap_shared(sizeof(*r));
	uint64_t *buf = anon_set(PAGE);
	int sv[2], fd, rfd;
	uint32_t chan;
	pid_t pid;

	ASSERT_MAP(r);
	ASSERT_MAP(buf);
	ASSERT_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	/* The receiver exists before the device is opened: it inherits nothing. */
	pid = fork();
	ASSERT_SYS(pid);
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
	OPEN_DEV(fd);
	EXPECT_OK(nvsvm_chan_create(fd, 0, &chan));
	ASSERT_SYS(send_fd(sv[0], fd, &chan, sizeof(chan)));
	EXPECT_EQ(wait_child(pid), 0);
	if (check_foreign(r))
		return KTAP_FAIL;
	/* The receiver's AREA_INIT did not bind the file to its mm. */
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	return KTAP_PASS;
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

static int map_bad_fields(void)
{
	uint64_t *buf = anon_set(PAGE), mapped;
	struct nvsvm_map m = { 0 };
	struct range r[7];
	int fd, i, n;

	ASSERT_MAP(buf);
	OPEN_AREA(fd);
	n = bad_ranges(nvsvm_ptr(buf), r, 7);
	for (i = 0; i < n; i++) {
		int ret = nvsvm_map(fd, r[i].addr, r[i].size, NVSVM_MAP_FAULT,
				    &mapped);

		if (ret != -EINVAL)
			KTAP_FAIL_MSG("MAP %s [%#llx +%#llx): expected EINVAL, got %d",
				      r[i].what, (unsigned long long)r[i].addr,
				      (unsigned long long)r[i].size, ret);
	}
	m.addr = nvsvm_ptr(buf);
	m.size = PAGE;
	m.flags = 1U << 2;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MAP, &m), EINVAL);
	m.flags = NVSVM_MAP_FAULT;
	m.reserved = 0x80000000U;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MAP, &m), EINVAL);
	m.reserved = 0;
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_MAP, &m));
	EXPECT_EQ(m.mapped, 1);
	return KTAP_PASS;
}

static int unmap_bad_fields(void)
{
	uint64_t *buf = anon_set(PAGE);
	struct nvsvm_unmap u = { 0 };
	struct range r[7];
	int fd, i, n;

	ASSERT_MAP(buf);
	OPEN_AREA(fd);
	n = bad_ranges(nvsvm_ptr(buf), r, 7);
	for (i = 0; i < n; i++) {
		int ret = nvsvm_unmap(fd, r[i].addr, r[i].size);

		if (ret != -EINVAL)
			KTAP_FAIL_MSG("UNMAP %s [%#llx +%#llx): expected EINVAL, got %d",
				      r[i].what, (unsigned long long)r[i].addr,
				      (unsigned long long)r[i].size, ret);
	}
	u.addr = nvsvm_ptr(buf);
	u.size = PAGE;
	u.flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_UNMAP, &u), EINVAL);
	u.flags = 0;
	u.reserved = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_UNMAP, &u), EINVAL);
	u.reserved = 0;
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_UNMAP, &u));
	return KTAP_PASS;
}

static int query_bad_fields(void)
{
	uint64_t *buf = anon_set(PAGE);
	uint32_t q[2];
	int fd;

	ASSERT_MAP(buf);
	OPEN_AREA(fd);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf) + 8, 1, q), EINVAL);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 0, q), EINVAL);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), NVSVM_QUERY_MAX + 1ULL, q),
		   EINVAL);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 1ULL << 63, q), EINVAL);
	EXPECT_ERR(nvsvm_query(fd, VA_LIMIT, 1, q), EINVAL);
	EXPECT_ERR(nvsvm_query(fd, VA_LIMIT - PAGE, 2, q), EINVAL);
	EXPECT_ERR(nvsvm_query(fd, ~0ULL - PAGE + 1, 2, q), EINVAL);
	EXPECT_OK(nvsvm_query(fd, nvsvm_ptr(buf), 2, q));
	EXPECT_EQ(q[0] & NVSVM_QUERY_VALID, 0);
	return KTAP_PASS;
}

static int query_bad_entries(void)
{
	uint64_t *buf = anon_set(PAGE);
	void *ro;
	int fd;

	ASSERT_MAP(buf);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAP(ro);
	OPEN_AREA(fd);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 1, NULL), EFAULT);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 1, ro), EFAULT);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 2,
			       (uint32_t *)((char *)ro + PAGE - 4)), EFAULT);
	return KTAP_PASS;
}

static int query_max_npages(void)
{
	uint32_t *q = malloc(NVSVM_QUERY_MAX * sizeof(*q));
	uint64_t i;
	int fd;

	EXPECT_TRUE(q != NULL, "malloc");
	memset(q, 0xff, NVSVM_QUERY_MAX * sizeof(*q));
	OPEN_AREA(fd);
	/*
	 * 4 GiB of never-used user address space (1 << 46 is below the CPU's
	 * 47-bit limit): nothing is there.
	 */
	EXPECT_OK(nvsvm_query(fd, 1ULL << 46, NVSVM_QUERY_MAX, q));
	for (i = 0; i < NVSVM_QUERY_MAX; i++)
		if (q[i] & NVSVM_QUERY_VALID)
			KTAP_FAIL_MSG("entry %llu: %#x, expected not VALID",
				      (unsigned long long)i, q[i]);
	return KTAP_PASS;
}

static int map_in_unmanaged_window(void)
{
	uint64_t mapped = 0;
	void *p;
	int fd;

	OPEN_AREA(fd);
	p = mmap((void *)WIN_ADDR, 4 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_MAP(p);
	memset(p, 1, 4 * PAGE);
	EXPECT_ERR(nvsvm_map(fd, WIN_ADDR, 4 * PAGE, NVSVM_MAP_FAULT, &mapped),
		   EINVAL);
	EXPECT_ERR(nvsvm_map(fd, WIN_ADDR + WIN_SIZE - PAGE, PAGE, 0, &mapped),
		   EINVAL);
	return KTAP_PASS;
}

static int exec_bad_args(void)
{
	static struct nvsvm_op ops[NVSVM_EXEC_MAX_OPS + 1];
	struct nvsvm_exec e = { .gpc = NVSVM_GPC_ANY, .timeout_ms = 1000,
				.nops = 1 };
	uint32_t chan;
	int fd;

	NEED_CAP(NVSVM_CAP_EXEC);
	OPEN_AREA(fd);
	EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
	e.ops = nvsvm_ptr(ops);
	e.handle = chan;
	e.nops = 0;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EINVAL);
	e.nops = NVSVM_EXEC_MAX_OPS + 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EINVAL);
	e.nops = 1;
	e.timeout_ms = 0;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EINVAL);
	e.timeout_ms = 600001;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EINVAL);
	e.timeout_ms = 1000;
	e.gpc = info.gpc_count;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EINVAL);
	e.gpc = NVSVM_GPC_ANY;
	e.handle = chan + 1000;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), ENOENT);
	/* The largest program is fine (all NOPs). */
	e.handle = chan;
	e.nops = NVSVM_EXEC_MAX_OPS;
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	EXPECT_EQ(e.status, NVSVM_EXEC_OK);
	EXPECT_EQ(e.done, NVSVM_EXEC_MAX_OPS);
	return KTAP_PASS;
}

static int exec_bad_ops(void)
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
	int fd, ret;

	NEED_CAP(NVSVM_CAP_EXEC);
	OPEN_AREA(fd);
	EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
	for (i = 0; i < KTAP_ARRAY_SIZE(bad); i++) {
		var = 0;
		ops[0] = nvsvm_op_write(v, 5);
		ops[1] = bad[i];
		ret = nvsvm_exec(fd, chan, NVSVM_GPC_ANY, ops, 2, 1000, NULL);
		if (ret != -EINVAL || var != 0)
			KTAP_FAIL_MSG("bad op %u (code %u): expected EINVAL and no op run, got %d, var %llu",
				      i, bad[i].code, ret,
				      (unsigned long long)var);
	}
	ops[1] = nvsvm_op_nop();
	EXPECT_OK(nvsvm_exec(fd, chan, NVSVM_GPC_ANY, ops, 2, 1000, NULL));
	EXPECT_EQ(var, 5);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	KTAP_CASE(area_init_once),
	KTAP_CASE(area_init_empty_window),
	KTAP_CASE(area_window_unaligned),
	KTAP_CASE(area_window_wrapping),
	KTAP_CASE(area_window_above_1_40),
	KTAP_CASE(no_area_einval),
	KTAP_CASE(area_fini_then_init),
	KTAP_CASE(fork_child_eperm),
	KTAP_CASE(scm_rights_eperm),
	KTAP_CASE(map_bad_fields),
	KTAP_CASE(unmap_bad_fields),
	KTAP_CASE(query_bad_fields),
	KTAP_CASE(query_bad_entries),
	KTAP_CASE(query_max_npages),
	KTAP_CASE(map_in_unmanaged_window),
	KTAP_CASE(exec_bad_args),
	KTAP_CASE(exec_bad_ops),
};

int main(void)
{
	return test_main(cases, KTAP_ARRAY_SIZE(cases), 0);
}
