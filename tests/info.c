// SPDX-License-Identifier: GPL-2.0
/*
 * GET_INFO fields and the generic ioctl rules of uapi/nvsvm.h: unknown
 * numbers fail with ENOTTY, a size that does not match the struct with
 * EINVAL, non-zero flags or reserved fields with EINVAL (and change
 * nothing), bad user pointers with EFAULT.
 *
 * Cases: TEST() where a case opens nothing, TEST_F(dev, ...) on an open
 * device, TEST_F(area, ...) on one with an area (kselftest_harness.h).
 */
#include <stdint.h>
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "common.h"

FIXTURE_FX(dev, FX_NO_AREA, FX_NO_CHAN)
FIXTURE_FX(area, FX_AREA, FX_NO_CHAN)

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

TEST(info_api_version)
{
	struct nvsvm_get_info gi;

	ASSERT_EQ(0, get_info_raw(&gi));
	ASSERT_EQ(NVSVM_API_VERSION, gi.api_version);
}

TEST(info_chipset)
{
	struct nvsvm_get_info gi;

	ASSERT_EQ(0, get_info_raw(&gi));
	/* nvsvm accepts GP100-family chips only; the virtual one is a GP100. */
	ASSERT_TRUE(gi.chipset >= 0x130 && gi.chipset <= 0x13b) {
		TH_LOG("got %#x", gi.chipset);
	}
	if (is_vgpu())
		ASSERT_EQ(0x130, gi.chipset);
}

TEST(info_va_bits)
{
	struct nvsvm_get_info gi;

	ASSERT_EQ(0, get_info_raw(&gi));
	ASSERT_EQ(49, gi.va_bits);
}

TEST(info_page_sizes)
{
	uint64_t want = (1ULL << 12) | (1ULL << 16) | (1ULL << 21);
	struct nvsvm_get_info gi;

	ASSERT_EQ(0, get_info_raw(&gi));
	ASSERT_EQ(want, gi.page_sizes & want);
}

TEST(info_fault_buffer)
{
	struct nvsvm_get_info gi;

	ASSERT_EQ(0, get_info_raw(&gi));
	ASSERT_TRUE(gi.fault_buffer_entries > 0) {
		TH_LOG("got %u", gi.fault_buffer_entries);
	}
}

TEST(info_gpc_count)
{
	struct nvsvm_get_info gi;

	ASSERT_EQ(0, get_info_raw(&gi));
	ASSERT_TRUE(gi.gpc_count >= 1 && gi.gpc_count <= 32) {
		TH_LOG("got %u", gi.gpc_count);
	}
	if (is_vgpu())
		ASSERT_EQ(6, gi.gpc_count);	/* nvsvm_vgpu default (GP100) */
}

TEST(info_vram_size)
{
	struct nvsvm_get_info gi;

	NEED_VGPU();	/* a real GPU's VRAM is nouveau's, not nvsvm's */
	ASSERT_EQ(0, get_info_raw(&gi));
	ASSERT_TRUE(gi.vram_size > 0) {
		TH_LOG("got %llu", (unsigned long long)gi.vram_size);
	}
}

TEST(info_caps)
{
	uint32_t want = NVSVM_CAP_REPLAYABLE_FAULTS;
	struct nvsvm_get_info gi;

	ASSERT_EQ(0, get_info_raw(&gi));
	ASSERT_EQ(want, gi.caps & want);
	/* EXEC is the virtual GP100's alone. */
	ASSERT_EQ(is_vgpu() ? NVSVM_CAP_EXEC : 0, gi.caps & NVSVM_CAP_EXEC);
	ASSERT_EQ(0, gi.caps & ~0xffU);		/* no undefined bit */
	/* 2 MiB VRAM pages are VRAM pages. */
	if (gi.caps & NVSVM_CAP_VRAM_2M)
		ASSERT_TRUE(gi.caps & NVSVM_CAP_DEVICE_PRIVATE);
	/* Exact on every mapping implies exact on private memory. */
	if (gi.caps & NVSVM_CAP_SYSMEM_ATOMICS_ALL)
		ASSERT_TRUE(gi.caps & NVSVM_CAP_SYSMEM_ATOMICS);
	/* On PCIe, private memory only through exclusive access or VRAM. */
	if ((gi.caps & NVSVM_CAP_SYSMEM_ATOMICS) &&
	    !(gi.caps & NVSVM_CAP_SYSMEM_ATOMICS_ALL))
		ASSERT_TRUE(gi.caps & NVSVM_CAP_ATOMICS_EXCLUSIVE);
	if (is_vgpu()) {
		char mode[16] = "";
		FILE *f = fopen("/sys/module/nvsvm_vgpu/parameters/sysmem_atomics",
				"r");

		ASSERT_TRUE(f && fscanf(f, "%15s", mode) == 1);
		fclose(f);
		/* Every mapping exact: the coherent model alone. */
		ASSERT_EQ(!strcmp(mode, "coherent") ?
			  NVSVM_CAP_SYSMEM_ATOMICS_ALL : 0,
			  gi.caps & NVSVM_CAP_SYSMEM_ATOMICS_ALL);
	}
}

TEST(info_reserved_zero)
{
	struct nvsvm_get_info gi;
	int i;

	/* get_info_raw() filled the struct with 0xa5 first. */
	ASSERT_EQ(0, get_info_raw(&gi));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, gi.reserved[i]);
}

TEST_F(dev, ioctl_unknown_nr)
{
	struct nvsvm_get_info gi;
	int fd = self->fx.fd;

	ASSERT_EQ(-ENOTTY, xioctl(fd, _IOR('V', 0x0c, struct nvsvm_get_info), &gi));
	ASSERT_EQ(-ENOTTY, xioctl(fd, _IOWR('V', 0x7f, struct nvsvm_get_info), &gi));
	ASSERT_EQ(-ENOTTY, xioctl(fd, _IO('V', 0x3c), NULL));
}

TEST_F(dev, ioctl_unknown_type)
{
	struct nvsvm_get_info gi;
	int fd = self->fx.fd;

	ASSERT_EQ(-ENOTTY, xioctl(fd, _IOR('Z', 0x00, struct nvsvm_get_info), &gi));
	ASSERT_EQ(-ENOTTY, xioctl(fd, _IOWR(0xc4, 0x03, struct nvsvm_map), &gi));
}

static const unsigned long all_cmds[] = {
	NVSVM_IOCTL_GET_INFO, NVSVM_IOCTL_AREA_INIT, NVSVM_IOCTL_AREA_FINI,
	NVSVM_IOCTL_MAP, NVSVM_IOCTL_UNMAP, NVSVM_IOCTL_QUERY,
	NVSVM_IOCTL_CHAN_CREATE, NVSVM_IOCTL_CHAN_DESTROY, NVSVM_IOCTL_EXEC,
	NVSVM_IOCTL_MIGRATE, NVSVM_IOCTL_QUERY_OLD, NVSVM_IOCTL_BUF_ALLOC,
	NVSVM_IOCTL_BUF_FREE,
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

TEST_F(dev, ioctl_wrong_size)
{
	uint64_t buf[64];
	unsigned int i;
	int fd = self->fx.fd;

	for (i = 0; i < ARRAY_SIZE(all_cmds); i++) {
		if (all_cmds[i] == NVSVM_IOCTL_MIGRATE && !migrate_supported(fd)) {
			TH_LOG("MIGRATE not implemented: size not checked");
			continue;
		}
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(-EINVAL, xioctl(fd, resize(all_cmds[i], 8), buf)) {
			TH_LOG("ioctl nr %#lx with size %lu+8",
			       _IOC_NR(all_cmds[i]), _IOC_SIZE(all_cmds[i]));
		}
		ASSERT_EQ(-EINVAL, xioctl(fd, resize(all_cmds[i], -4), buf)) {
			TH_LOG("ioctl nr %#lx with size %lu-4",
			       _IOC_NR(all_cmds[i]), _IOC_SIZE(all_cmds[i]));
		}
	}
	/* Nothing happened: the area can still be created once. */
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
}

TEST_F(dev, area_init_reserved)
{
	struct nvsvm_area_init a = { .unmanaged_addr = WIN_ADDR,
				     .unmanaged_size = WIN_SIZE };
	int fd = self->fx.fd;

	a.reserved = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a));
	a.reserved = 0;
	a.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a));
	a.flags = 1U << 31;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a));
	a.flags = 0;
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_AREA_INIT, &a));
}

TEST_F(area, area_fini_reserved)
{
	struct nvsvm_area_fini f = { .reserved = 1 };
	int fd = self->fx.fd;

	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_AREA_FINI, &f));
	f.reserved = 0;
	f.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_AREA_FINI, &f));
	/* The area survived both. */
	ASSERT_EQ(-EBUSY, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	ASSERT_EQ(0, nvsvm_area_fini(fd));
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
}

TEST_F(area, map_reserved)
{
	struct nvsvm_map m = { .size = 4 * PAGE, .flags = NVSVM_MAP_FAULT };
	uint32_t q[4];
	char *buf;
	int fd = self->fx.fd, i;

	buf = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 1, 4 * PAGE);
	m.addr = nvsvm_ptr(buf);
	m.reserved = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	m.reserved = 0;
	m.flags = NVSVM_MAP_FAULT | (1U << 2);
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	m.flags = 1U << 31;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	/* mapped is (in/out): zero on input. */
	m.flags = NVSVM_MAP_FAULT;
	m.mapped = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MAP, &m));
	ASSERT_EQ(1, m.mapped);
	ASSERT_EQ(0, nvsvm_query(fd, m.addr, 4, q));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, q[i] & NVSVM_QUERY_VALID);
}

TEST_F(area, unmap_reserved)
{
	struct nvsvm_unmap u = { .size = 4 * PAGE, .reserved = 1 };
	uint64_t mapped;
	uint32_t q[4];
	char *buf;
	int fd = self->fx.fd, i;

	buf = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 1, 4 * PAGE);
	u.addr = nvsvm_ptr(buf);
	ASSERT_EQ(0, nvsvm_map(fd, u.addr, 4 * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(4, mapped);
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_UNMAP, &u));
	u.reserved = 0;
	u.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_UNMAP, &u));
	ASSERT_EQ(0, nvsvm_query(fd, u.addr, 4, q));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(NVSVM_QUERY_VALID, q[i] & NVSVM_QUERY_VALID);
}

TEST_F(area, query_reserved)
{
	uint32_t q[4] = { 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef };
	struct nvsvm_query a = { .npages = 4, .reserved = 1 };
	static char buf[4 * PAGE] __attribute__((aligned(4096)));
	int fd = self->fx.fd, i;

	a.addr = nvsvm_ptr(buf);
	a.entries = nvsvm_ptr(q);
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_QUERY, &a));
	a.reserved = 0;
	a.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_QUERY, &a));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0xdeadbeef, q[i]);
}

/*
 * QUERY is _IOWR (it writes user memory); its first number, _IOW, is an
 * alias for binaries built before: both succeed with the same entries,
 * and both refuse the same bad input.
 */
TEST_F(area, query_both_numbers)
{
	static char buf[4 * PAGE] __attribute__((aligned(4096)));
	uint32_t qn[4], qo[4];
	struct nvsvm_query a = { .npages = 4 };
	uint64_t mapped;
	int fd = self->fx.fd, i;

	ASSERT_NE(NVSVM_IOCTL_QUERY_OLD, NVSVM_IOCTL_QUERY);
	ASSERT_EQ(_IOC_READ | _IOC_WRITE, _IOC_DIR(NVSVM_IOCTL_QUERY));
	memset(buf, 1, sizeof(buf));
	a.addr = nvsvm_ptr(buf);
	ASSERT_EQ(0, nvsvm_map(fd, a.addr + PAGE, 2 * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(2, mapped);
	memset(qn, 0xa5, sizeof(qn));
	memset(qo, 0x5a, sizeof(qo));
	a.entries = nvsvm_ptr(qn);
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_QUERY, &a));
	a.entries = nvsvm_ptr(qo);
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_QUERY_OLD, &a));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(qo[i], qn[i]);
		ASSERT_EQ(i == 1 || i == 2, !!(qn[i] & NVSVM_QUERY_VALID));
	}
	a.flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_QUERY, &a));
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_QUERY_OLD, &a));
}

TEST_F(area, chan_create_flags)
{
	struct nvsvm_chan_create c = { .flags = NVSVM_CHAN_JOIN_AREA };
	uint32_t h;
	int fd = self->fx.fd;

	ASSERT_EQ(-EINVAL, nvsvm_chan_create(fd, 1U << 2, &h));
	ASSERT_EQ(-EINVAL,
		  nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA | (1U << 31), &h));
	/* handle is (in/out): zero on input; nothing is created. */
	c.handle = 7;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_CHAN_CREATE, &c));
	ASSERT_EQ(7, c.handle);
	ASSERT_EQ(-ENOENT, nvsvm_chan_destroy(fd, 7));
	ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &h));
	ASSERT_EQ(0, nvsvm_chan_destroy(fd, h));
}

TEST_F(area, chan_destroy_flags)
{
	struct nvsvm_chan_destroy d = { .flags = 1 };
	int fd = self->fx.fd;

	ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &d.handle));
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_CHAN_DESTROY, &d));
	/* Still there: destroyed once, then gone. */
	ASSERT_EQ(0, nvsvm_chan_destroy(fd, d.handle));
	ASSERT_EQ(-ENOENT, nvsvm_chan_destroy(fd, d.handle));
}

TEST_F(area, exec_flags)
{
	static volatile uint64_t var;
	struct nvsvm_exec e = { .gpc = NVSVM_GPC_ANY, .timeout_ms = 10000 };
	struct nvsvm_op ops[2];
	int fd = self->fx.fd;

	if (!(info.caps & NVSVM_CAP_EXEC))
		SKIP(return, "no NVSVM_CAP_EXEC");
	ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &e.handle));
	var = 0;
	ops[0] = nvsvm_op_write(nvsvm_ptr(&var), 7);
	ops[1] = nvsvm_op_nop();
	e.ops = nvsvm_ptr(ops);
	e.nops = 2;
	/* A flag not defined, and a first warp slot past the GPC's. */
	e.flags = 0x2;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.flags = NVSVM_EXEC_SLOT(0xffff);
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.flags = 0;
	ops[1].flags = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	ASSERT_EQ(0, var);		/* op 0 never ran */
	ops[1].flags = 0;
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	ASSERT_EQ(7, var);
}

TEST_F(area, migrate_flags)
{
	static char buf[4 * PAGE] __attribute__((aligned(4096)));
	struct nvsvm_migrate m = { .size = sizeof(buf), .flags = 1,
				   .target = NVSVM_MIGRATE_TO_SYSMEM };
	int fd = self->fx.fd;

	m.addr = nvsvm_ptr(buf);
	if (!(info.caps & NVSVM_CAP_DEVICE_PRIVATE)) {
		/* Documented: EOPNOTSUPP whatever the fields say. */
		ASSERT_EQ(-EOPNOTSUPP, xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
		TH_LOG("no NVSVM_CAP_DEVICE_PRIVATE: EOPNOTSUPP checked");
		return;
	}
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
	m.flags = 1U << 31;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
	m.flags = 0;
	m.target = NVSVM_MIGRATE_TO_SYSMEM + 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
	m.target = NVSVM_MIGRATE_TO_SYSMEM;
	m.moved = 1;
	ASSERT_EQ(-EINVAL, xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
	/* Well formed: nothing is in VRAM, nothing moves. */
	m.moved = 0;
	ASSERT_EQ(0, xioctl(fd, NVSVM_IOCTL_MIGRATE, &m));
	ASSERT_EQ(0, m.moved);
}

TEST_F(dev, bad_pointer_efault)
{
	void *ro;
	int fd = self->fx.fd;

	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_GET_INFO, NULL));
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_GET_INFO, ro));
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_AREA_INIT, (void *)8));
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_CHAN_CREATE, NULL));
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_MAP, NULL));
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_QUERY, (void *)-4096L));
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_EXEC, NULL));
}

TEST_F(area, exec_bad_ops_pointer)
{
	struct nvsvm_exec e = { .gpc = NVSVM_GPC_ANY, .timeout_ms = 1000,
				.nops = 1 };
	int fd = self->fx.fd;

	if (!(info.caps & NVSVM_CAP_EXEC))
		SKIP(return, "no NVSVM_CAP_EXEC");
	ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &e.handle));
	e.ops = 0;
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
	e.ops = 1ULL << 47;	/* above the user address space */
	ASSERT_EQ(-EFAULT, xioctl(fd, NVSVM_IOCTL_EXEC, &e));
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, 0);
}
