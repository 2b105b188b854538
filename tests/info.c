// SPDX-License-Identifier: GPL-2.0
/*
 * GET_INFO fields and the generic ioctl rules of uapi/nvsvm.h: unknown
 * numbers fail with ENOTTY, a size that does not match the struct with
 * EINVAL, non-zero flags or reserved fields with EINVAL (and change
 * nothing), bad user pointers with EFAULT.
 */
#include <stdint.h>
#include <sys/ioctl.h>

#include "ktap.h"
#include "common.h"

static int get_info_raw(struct nvsvm_get_info *gi)
{
	int fd, ret;

	fd = nvsvm_open(dev_index);
	if (fd < 0)
		return fd;
	memset(gi, 0xa5, sizeof(*gi));
	ret = xioctl(fd, NVSVM_IOCTL_GET_INFO, gi);
	close(fd);
	return ret;
}

static int info_api_version(void)
{
	struct nvsvm_get_info gi;

	EXPECT_OK(get_info_raw(&gi));
	EXPECT_EQ(gi.api_version, NVSVM_API_VERSION);
	return KTAP_PASS;
}

static int info_chipset(void)
{
	struct nvsvm_get_info gi;

	EXPECT_OK(get_info_raw(&gi));
	/* nvsvm accepts GP100-family chips only; the virtual one is a GP100. */
	EXPECT_TRUE(gi.chipset >= 0x130 && gi.chipset <= 0x13b, "got %#x",
		    gi.chipset);
	if (is_vgpu())
		EXPECT_EQ(gi.chipset, 0x130);
	return KTAP_PASS;
}

static int info_va_bits(void)
{
	struct nvsvm_get_info gi;

	EXPECT_OK(get_info_raw(&gi));
	EXPECT_EQ(gi.va_bits, 49);
	return KTAP_PASS;
}

static int info_page_sizes(void)
{
	uint64_t want = (1ULL << 12) | (1ULL << 16) | (1ULL << 21);
	struct nvsvm_get_info gi;

	EXPECT_OK(get_info_raw(&gi));
	EXPECT_EQ(gi.page_sizes & want, want);
	return KTAP_PASS;
}

static int info_fault_buffer(void)
{
	struct nvsvm_get_info gi;

	EXPECT_OK(get_info_raw(&gi));
	EXPECT_TRUE(gi.fault_buffer_entries > 0, "got %u",
		    gi.fault_buffer_entries);
	return KTAP_PASS;
}

static int info_gpc_count(void)
{
	struct nvsvm_get_info gi;

	EXPECT_OK(get_info_raw(&gi));
	EXPECT_TRUE(gi.gpc_count >= 1 && gi.gpc_count <= 32, "got %u",
		    gi.gpc_count);
	if (is_vgpu())
		EXPECT_EQ(gi.gpc_count, 4);	/* nvsvm_vgpu default */
	return KTAP_PASS;
}

static int info_vram_size(void)
{
	struct nvsvm_get_info gi;

	NEED_VGPU();	/* a real GPU's VRAM is nouveau's, not nvsvm's */
	EXPECT_OK(get_info_raw(&gi));
	EXPECT_TRUE(gi.vram_size > 0, "got %llu",
		    (unsigned long long)gi.vram_size);
	return KTAP_PASS;
}

static int info_caps(void)
{
	uint32_t want = NVSVM_CAP_REPLAYABLE_FAULTS;
	struct nvsvm_get_info gi;

	EXPECT_OK(get_info_raw(&gi));
	EXPECT_EQ(gi.caps & want, want);
	/* EXEC is the virtual GP100's alone. */
	EXPECT_EQ(gi.caps & NVSVM_CAP_EXEC, is_vgpu() ? NVSVM_CAP_EXEC : 0);
	EXPECT_EQ(gi.caps & ~0x1fU, 0);		/* no undefined bit */
	return KTAP_PASS;
}

static int info_reserved_zero(void)
{
	struct nvsvm_get_info gi;
	int i;

	/* get_info_raw() filled the struct with 0xa5 first. */
	EXPECT_OK(get_info_raw(&gi));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(gi.reserved[i], 0);
	return KTAP_PASS;
}

static int ioctl_unknown_nr(void)
{
	struct nvsvm_get_info gi;
	int fd;

	OPEN_DEV(fd);
	EXPECT_ERR(xioctl(fd, _IOR('V', 0x0a, struct nvsvm_get_info), &gi),
		   ENOTTY);
	EXPECT_ERR(xioctl(fd, _IOWR('V', 0x7f, struct nvsvm_get_info), &gi),
		   ENOTTY);
	EXPECT_ERR(xioctl(fd, _IO('V', 0x3c), NULL), ENOTTY);
	return KTAP_PASS;
}

static int ioctl_unknown_type(void)
{
	struct nvsvm_get_info gi;
	int fd;

	OPEN_DEV(fd);
	EXPECT_ERR(xioctl(fd, _IOR('Z', 0x00, struct nvsvm_get_info), &gi),
		   ENOTTY);
	EXPECT_ERR(xioctl(fd, _IOWR(0xc4, 0x03, struct nvsvm_map), &gi),
		   ENOTTY);
	return KTAP_PASS;
}

static const unsigned long all_cmds[] = {
	NVSVM_IOCTL_GET_INFO, NVSVM_IOCTL_AREA_INIT, NVSVM_IOCTL_AREA_FINI,
	NVSVM_IOCTL_MAP, NVSVM_IOCTL_UNMAP, NVSVM_IOCTL_QUERY,
	NVSVM_IOCTL_CHAN_CREATE, NVSVM_IOCTL_CHAN_DESTROY, NVSVM_IOCTL_EXEC,
	NVSVM_IOCTL_MIGRATE, NVSVM_IOCTL_QUERY_OLD,
};

/*
 * MIGRATE is in the uAPI but may be missing (no device-private memory):
 * a well-formed call then fails with ENOTTY or EOPNOTSUPP.
 */
static int migrate_supported(int fd)
{
	static char buf[PAGE] __attribute__((aligned(4096)));
	int ret = nvsvm_migrate(fd, nvsvm_ptr(buf), PAGE,
				NVSVM_MIGRATE_TO_SYSMEM, NULL);

	return ret != -ENOTTY && ret != -EOPNOTSUPP;
}

static unsigned long resize(unsigned long cmd, int delta)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
		    _IOC_SIZE(cmd) + delta);
}

static int ioctl_wrong_size(void)
{
	uint64_t buf[64];
	unsigned int i;
	int fd;

	OPEN_DEV(fd);
	for (i = 0; i < KTAP_ARRAY_SIZE(all_cmds); i++) {
		if (all_cmds[i] == NVSVM_IOCTL_MIGRATE && !migrate_supported(fd)) {
			ktap_note("MIGRATE not implemented: size not checked");
			continue;
		}
		memset(buf, 0, sizeof(buf));
		if (xioctl(fd, resize(all_cmds[i], 8), buf) != -EINVAL ||
		    xioctl(fd, resize(all_cmds[i], -4), buf) != -EINVAL)
			KTAP_FAIL_MSG("ioctl nr %#lx with size %lu+8 or -4: not EINVAL (%s)",
				      _IOC_NR(all_cmds[i]),
				      _IOC_SIZE(all_cmds[i]), strerror(errno));
	}
	/* Nothing happened: the area can still be created once. */
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	return KTAP_PASS;
}

static int area_init_reserved(void)
{
	struct nvsvm_area_init a = { .unmanaged_addr = WIN_ADDR,
				     .unmanaged_size = WIN_SIZE };
	int fd;

	OPEN_DEV(fd);
	a.reserved = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a), EINVAL);
	a.reserved = 0;
	a.flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a), EINVAL);
	a.flags = 1U << 31;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a), EINVAL);
	a.flags = 0;
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a));
	return KTAP_PASS;
}

static int area_fini_reserved(void)
{
	struct nvsvm_area_fini f = { .reserved = 1 };
	int fd;

	OPEN_AREA(fd);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_AREA_FINI, &f), EINVAL);
	f.reserved = 0;
	f.flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_AREA_FINI, &f), EINVAL);
	/* The area survived both. */
	EXPECT_ERR(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE), EBUSY);
	EXPECT_OK(nvsvm_area_fini(fd));
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	return KTAP_PASS;
}

static int map_reserved(void)
{
	struct nvsvm_map m = { .size = 4 * PAGE, .flags = NVSVM_MAP_FAULT };
	uint32_t q[4];
	char *buf;
	int fd, i;

	OPEN_AREA(fd);
	buf = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_MAP(buf);
	memset(buf, 1, 4 * PAGE);
	m.addr = nvsvm_ptr(buf);
	m.reserved = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MAP, &m), EINVAL);
	m.reserved = 0;
	m.flags = NVSVM_MAP_FAULT | (1U << 2);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MAP, &m), EINVAL);
	m.flags = 1U << 31;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MAP, &m), EINVAL);
	/* mapped is (in/out): zero on input. */
	m.flags = NVSVM_MAP_FAULT;
	m.mapped = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MAP, &m), EINVAL);
	EXPECT_EQ(m.mapped, 1);
	EXPECT_OK(nvsvm_query(fd, m.addr, 4, q));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(q[i] & NVSVM_QUERY_VALID, 0);
	return KTAP_PASS;
}

static int unmap_reserved(void)
{
	struct nvsvm_unmap u = { .size = 4 * PAGE, .reserved = 1 };
	uint64_t mapped;
	uint32_t q[4];
	char *buf;
	int fd, i;

	OPEN_AREA(fd);
	buf = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAP(buf);
	memset(buf, 1, 4 * PAGE);
	u.addr = nvsvm_ptr(buf);
	EXPECT_OK(nvsvm_map(fd, u.addr, 4 * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	EXPECT_EQ(mapped, 4);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_UNMAP, &u), EINVAL);
	u.reserved = 0;
	u.flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_UNMAP, &u), EINVAL);
	EXPECT_OK(nvsvm_query(fd, u.addr, 4, q));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(q[i] & NVSVM_QUERY_VALID, NVSVM_QUERY_VALID);
	return KTAP_PASS;
}

static int query_reserved(void)
{
	uint32_t q[4] = { 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef };
	struct nvsvm_query a = { .npages = 4, .reserved = 1 };
	static char buf[4 * PAGE] __attribute__((aligned(4096)));
	int fd, i;

	OPEN_AREA(fd);
	a.addr = nvsvm_ptr(buf);
	a.entries = nvsvm_ptr(q);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_QUERY, &a), EINVAL);
	a.reserved = 0;
	a.flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_QUERY, &a), EINVAL);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(q[i], 0xdeadbeef);
	return KTAP_PASS;
}

/*
 * QUERY is _IOWR (it writes user memory); its first number, _IOW, is an
 * alias for binaries built before: both succeed with the same entries,
 * and both refuse the same bad input.
 */
static int query_both_numbers(void)
{
	static char buf[4 * PAGE] __attribute__((aligned(4096)));
	uint32_t qn[4], qo[4];
	struct nvsvm_query a = { .npages = 4 };
	uint64_t mapped;
	int fd, i;

	OPEN_AREA(fd);
	EXPECT_NE(NVSVM_IOCTL_QUERY, NVSVM_IOCTL_QUERY_OLD);
	EXPECT_EQ(_IOC_DIR(NVSVM_IOCTL_QUERY), _IOC_READ | _IOC_WRITE);
	memset(buf, 1, sizeof(buf));
	a.addr = nvsvm_ptr(buf);
	EXPECT_OK(nvsvm_map(fd, a.addr + PAGE, 2 * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	EXPECT_EQ(mapped, 2);
	memset(qn, 0xa5, sizeof(qn));
	memset(qo, 0x5a, sizeof(qo));
	a.entries = nvsvm_ptr(qn);
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_QUERY, &a));
	a.entries = nvsvm_ptr(qo);
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_QUERY_OLD, &a));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(qn[i], qo[i]);
		EXPECT_EQ(!!(qn[i] & NVSVM_QUERY_VALID), i == 1 || i == 2);
	}
	a.flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_QUERY, &a), EINVAL);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_QUERY_OLD, &a), EINVAL);
	return KTAP_PASS;
}

static int chan_create_flags(void)
{
	struct nvsvm_chan_create c = { .flags = NVSVM_CHAN_JOIN_AREA };
	uint32_t h;
	int fd;

	OPEN_AREA(fd);
	EXPECT_ERR(nvsvm_chan_create(fd, 1U << 2, &h), EINVAL);
	EXPECT_ERR(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA | (1U << 31), &h),
		   EINVAL);
	/* handle is (in/out): zero on input; nothing is created. */
	c.handle = 7;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_CHAN_CREATE, &c), EINVAL);
	EXPECT_EQ(c.handle, 7);
	EXPECT_ERR(nvsvm_chan_destroy(fd, 7), ENOENT);
	EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &h));
	EXPECT_OK(nvsvm_chan_destroy(fd, h));
	return KTAP_PASS;
}

static int chan_destroy_flags(void)
{
	struct nvsvm_chan_destroy d = { .flags = 1 };
	int fd;

	OPEN_AREA(fd);
	EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &d.handle));
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_CHAN_DESTROY, &d), EINVAL);
	/* Still there: destroyed once, then gone. */
	EXPECT_OK(nvsvm_chan_destroy(fd, d.handle));
	EXPECT_ERR(nvsvm_chan_destroy(fd, d.handle), ENOENT);
	return KTAP_PASS;
}

static int exec_flags(void)
{
	static volatile uint64_t var;
	struct nvsvm_exec e = { .gpc = NVSVM_GPC_ANY, .timeout_ms = 10000 };
	struct nvsvm_op ops[2];
	int fd;

	if (!(info.caps & NVSVM_CAP_EXEC))
		SKIP("no NVSVM_CAP_EXEC");
	OPEN_AREA(fd);
	EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &e.handle));
	var = 0;
	ops[0] = nvsvm_op_write(nvsvm_ptr(&var), 7);
	ops[1] = nvsvm_op_nop();
	e.ops = nvsvm_ptr(ops);
	e.nops = 2;
	e.flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EINVAL);
	e.flags = 0;
	ops[1].flags = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EINVAL);
	EXPECT_EQ(var, 0);		/* op 0 never ran */
	ops[1].flags = 0;
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	EXPECT_EQ(e.status, NVSVM_EXEC_OK);
	EXPECT_EQ(var, 7);
	return KTAP_PASS;
}

static int migrate_flags(void)
{
	static char buf[4 * PAGE] __attribute__((aligned(4096)));
	struct nvsvm_migrate m = { .size = sizeof(buf), .flags = 1,
				   .target = NVSVM_MIGRATE_TO_SYSMEM };
	int fd;

	OPEN_AREA(fd);
	m.addr = nvsvm_ptr(buf);
	if (!(info.caps & NVSVM_CAP_DEVICE_PRIVATE)) {
		/* Documented: EOPNOTSUPP whatever the fields say. */
		EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MIGRATE, &m), EOPNOTSUPP);
		ktap_note("no NVSVM_CAP_DEVICE_PRIVATE: EOPNOTSUPP checked");
		return KTAP_PASS;
	}
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MIGRATE, &m), EINVAL);
	m.flags = 1U << 31;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MIGRATE, &m), EINVAL);
	m.flags = 0;
	m.target = NVSVM_MIGRATE_TO_SYSMEM + 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MIGRATE, &m), EINVAL);
	m.target = NVSVM_MIGRATE_TO_SYSMEM;
	m.moved = 1;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MIGRATE, &m), EINVAL);
	/* Well formed: nothing is in VRAM, nothing moves. */
	m.moved = 0;
	EXPECT_OK(xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
	EXPECT_EQ(m.moved, 0);
	return KTAP_PASS;
}

static int bad_pointer_efault(void)
{
	void *ro;
	int fd;

	OPEN_DEV(fd);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAP(ro);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_GET_INFO, NULL), EFAULT);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_GET_INFO, ro), EFAULT);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_AREA_INIT, (void *)8), EFAULT);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_CHAN_CREATE, NULL), EFAULT);
	EXPECT_OK(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_MAP, NULL), EFAULT);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_QUERY, (void *)-4096L), EFAULT);
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, NULL), EFAULT);
	return KTAP_PASS;
}

static int exec_bad_ops_pointer(void)
{
	struct nvsvm_exec e = { .gpc = NVSVM_GPC_ANY, .timeout_ms = 1000,
				.nops = 1 };
	int fd;

	if (!(info.caps & NVSVM_CAP_EXEC))
		SKIP("no NVSVM_CAP_EXEC");
	OPEN_AREA(fd);
	EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &e.handle));
	e.ops = 0;
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EFAULT);
	e.ops = 1ULL << 47;	/* above the user address space */
	EXPECT_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EFAULT);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	KTAP_CASE(info_api_version),
	KTAP_CASE(info_chipset),
	KTAP_CASE(info_va_bits),
	KTAP_CASE(info_page_sizes),
	KTAP_CASE(info_fault_buffer),
	KTAP_CASE(info_gpc_count),
	KTAP_CASE(info_vram_size),
	KTAP_CASE(info_caps),
	KTAP_CASE(info_reserved_zero),
	KTAP_CASE(ioctl_unknown_nr),
	KTAP_CASE(ioctl_unknown_type),
	KTAP_CASE(ioctl_wrong_size),
	KTAP_CASE(area_init_reserved),
	KTAP_CASE(area_fini_reserved),
	KTAP_CASE(map_reserved),
	KTAP_CASE(unmap_reserved),
	KTAP_CASE(query_reserved),
	KTAP_CASE(query_both_numbers),
	KTAP_CASE(chan_create_flags),
	KTAP_CASE(chan_destroy_flags),
	KTAP_CASE(exec_flags),
	KTAP_CASE(migrate_flags),
	KTAP_CASE(bad_pointer_efault),
	KTAP_CASE(exec_bad_ops_pointer),
};

int main(void)
{
	return test_main(cases, KTAP_ARRAY_SIZE(cases), 0);
}
