// SPDX-License-Identifier: GPL-2.0
/*
 * Security properties (docs/security.md): a descriptor reaches only its
 * opener's address space, also once the opener has exited, and also for
 * channels (CHAN_DESTROY, EXEC) from another process; no kernel pointer,
 * physical address or pfn reaches user space through ioctl outputs,
 * debugfs or the tracepoint formats; the device node's mode.
 *
 * Cases: TEST() where a case opens what it needs itself (or nothing),
 * TEST_F(chan, ...) on a device with an area and a joined channel
 * (kselftest_harness.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "common.h"

#define SECRET		0x5ec2e75ec2e7ULL
#define FIXED_ADDR	0x7c0000000000ULL

/*
 * Every ioctl but GET_INFO from a process that is not the opener fails
 * with EPERM, whatever the arguments; @chan is the opener's channel,
 * @addr an address that holds the opener's data.
 */
static int all_eperm(int fd, uint32_t chan, uint64_t addr)
{
	struct nvsvm_op op = nvsvm_op_read(addr);
	struct nvsvm_chan_destroy cd = { .handle = chan };
	struct nvsvm_exec e = { 0 };
	struct nvsvm_get_info gi;
	struct nvsvm_migrate mg = { .addr = addr, .size = PAGE };
	uint32_t q = 0, h = 0;
	int ret;

	CHK_ERR(nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE), EPERM);
	CHK_ERR(nvsvm_area_fini(fd), EPERM);
	CHK_ERR(nvsvm_map(fd, addr, PAGE, NVSVM_MAP_FAULT, NULL), EPERM);
	CHK_ERR(nvsvm_unmap(fd, addr, PAGE), EPERM);
	CHK_ERR(nvsvm_query(fd, addr, 1, &q), EPERM);
	CHK_EQ(q, 0);
	CHK_ERR(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &h), EPERM);
	CHK_ERR(xioctl(fd, NVSVM_IOCTL_CHAN_DESTROY, &cd), EPERM);
	e.handle = chan;
	e.gpc = NVSVM_GPC_ANY;
	e.ops = nvsvm_ptr(&op);
	e.nops = 1;
	e.timeout_ms = 1000;
	CHK_ERR(xioctl(fd, NVSVM_IOCTL_EXEC, &e), EPERM);
	CHK_EQ(op.result, 0);
	/* MIGRATE: no handler yet (ENOTTY); once it exists, EPERM. */
	ret = xioctl(fd, NVSVM_IOCTL_MIGRATE, &mg);
	CHK_TRUE(ret == -EPERM || ret == -ENOTTY, "MIGRATE: %s",
		    strerror(-ret));
	CHK_OK(nvsvm_get_info(fd, &gi));
	CHK_EQ(gi.chipset, info.chipset);
	return KTAP_PASS;
}

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

struct handoff {
	uint32_t chan;
	uint64_t addr;
	uint64_t pages_mapped;
};

/*
 * The opener maps its secret for the GPU, hands the descriptor over a
 * socket and exits. The holder can do nothing with it but GET_INFO; the
 * GPU mappings of the dead address space are gone, and closing releases
 * the rest.
 */
TEST(opener_exited)
{
	uint64_t pt0 = 0, pm0 = 0, pm = 0;
	struct handoff h;
	volatile uint64_t *mine;
	int sv[2], fd, have;
	pid_t pid;

	ASSERT_PASS(areas_settled(0));
	have = !nvsvm_stat_read(0, "pt_bytes", &pt0) &&
	       !nvsvm_stat_read(0, "pages_mapped", &pm0);
	ASSERT_LE(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t *p = mmap((void *)FIXED_ADDR, 16 * PAGE,
				   PROT_READ | PROT_WRITE, MAP_PRIVATE |
				   MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		struct handoff o = { 0 };
		struct fx f;
		size_t k;

		close(sv[0]);
		if (p == MAP_FAILED)
			_exit(10);
		for (k = 0; k < 16 * WORDS; k++)
			p[k] = SECRET;
		f.fd = nvsvm_open(0);
		if (f.fd < 0 || nvsvm_area_init(f.fd, WIN_ADDR, WIN_SIZE) ||
		    nvsvm_chan_create(f.fd, NVSVM_CHAN_JOIN_AREA, &f.chan))
			_exit(11);
		if (nvsvm_map(f.fd, nvsvm_ptr(p), 16 * PAGE, NVSVM_MAP_FAULT,
			      NULL))
			_exit(12);
		nvsvm_stat_read(0, "pages_mapped", &o.pages_mapped);
		o.chan = f.chan;
		o.addr = nvsvm_ptr(p);
		if (send_fd(sv[1], f.fd, &o, sizeof(o)))
			_exit(13);
		_exit(0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0], &h, sizeof(h));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_TRUE(h.pages_mapped >= pm0 + 16) {
		TH_LOG("pages_mapped %llu in the opener",
		       (unsigned long long)h.pages_mapped);
	}
	/* The holder's own memory at the same address: still unreachable. */
	mine = mmap((void *)(uintptr_t)h.addr, 16 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_NE(MAP_FAILED, mine);
	mine[0] = 1;
	ASSERT_PASS(all_eperm(fd, h.chan, h.addr));
	ASSERT_EQ(1, mine[0]);
	if (have) {
		/* The opener's address space is gone: so are its GPU pages. */
		ASSERT_EQ(0, nvsvm_stat_read(0, "pages_mapped", &pm));
		ASSERT_EQ(pm0, pm);
	}
	close(fd);
	if (have)
		ASSERT_PASS(stats_become(0, "pt_bytes", pt0, NULL, 0));
}

/*
 * A forked child (inherited descriptor) cannot destroy, run or create
 * channels of its parent; the parent's channel works afterwards.
 */
TEST_F(chan, chan_from_child)
{
	volatile uint64_t *buf = anon(PAGE);
	int *res = ktap_shared(sizeof(int));
	pid_t pid;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, res);
	buf[0] = SECRET;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* Same addresses, the child's own (copied) memory. */
		*res = all_eperm(self->fx.fd, self->fx.chan, nvsvm_ptr(buf));
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(KTAP_PASS, *res);
	/* The channel was not destroyed: it runs the parent's program. */
	ASSERT_PASS(gpu_read_eq(&self->fx, buf, SECRET));
}

/* ---- no kernel values in user space ------------------------------------ */

/* A value that looks like a kernel virtual address. */
static int kernel_looking(uint64_t v)
{
	return v >= 0xffff800000000000ULL && v != ~0ULL;
}

TEST_F(chan, ioctl_outputs)
{
	volatile uint64_t *buf = anon(16 * PAGE);
	struct nvsvm_get_info gi;
	struct nvsvm_op ops[4];
	struct nvsvm_exec e;
	uint32_t q[16], h;
	uint64_t mapped = 0;
	int i;

	ASSERT_NE(NULL, buf);
	memset(&gi, 0xff, sizeof(gi));
	ASSERT_EQ(0, nvsvm_get_info(self->fx.fd, &gi));
	ASSERT_TRUE(!kernel_looking(gi.vram_size) && !kernel_looking(gi.page_sizes)) {
		TH_LOG("GET_INFO %#llx %#llx",
		       (unsigned long long)gi.vram_size,
		       (unsigned long long)gi.page_sizes);
	}
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, gi.reserved[i]);
	/* Channel handles are small integers, not addresses. */
	ASSERT_EQ(0, nvsvm_chan_create(self->fx.fd, 0, &h));
	ASSERT_TRUE(h >= 1 && h < 0x10000) {
		TH_LOG("handle %#x", h);
	}
	buf[0] = 1;
	ASSERT_EQ(0, nvsvm_map(self->fx.fd, nvsvm_ptr(buf), 16 * PAGE,
			    NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	ASSERT_EQ(16, mapped);
	/* QUERY: flag bits and the page shift only, no frame number. */
	memset(q, 0xff, sizeof(q));
	ASSERT_EQ(0, nvsvm_query(self->fx.fd, nvsvm_ptr(buf), 16, q));
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, q[i] & ~0xff0fU);
		ASSERT_EQ(12, NVSVM_QUERY_SHIFT(q[i]));
	}
	/* EXEC: results are data; a cancelled access reports its address. */
	ops[0] = nvsvm_op_nop();
	ops[1] = nvsvm_op_read(nvsvm_ptr(&buf[1]));
	ops[2] = nvsvm_op_sum(nvsvm_ptr(buf), 16 * PAGE);
	ops[3] = nvsvm_op_atomic_add(nvsvm_ptr(&buf[2]), 5);
	ASSERT_PASS(gpu_ok(&self->fx, ops, 4));
	ASSERT_EQ(0, ops[0].result);
	ASSERT_EQ(0, ops[1].result);
	ASSERT_EQ(1, ops[2].result);
	ASSERT_EQ(0, ops[3].result);
	ops[0] = nvsvm_op_read(WIN_ADDR + 8 * PAGE + 16);
	ASSERT_EQ(0, nvsvm_exec(self->fx.fd, self->fx.chan, NVSVM_GPC_ANY, ops,
				1, 10000, &e));
	ASSERT_EQ(NVSVM_EXEC_FAULT, e.status);
	ASSERT_EQ(WIN_ADDR + 8 * PAGE, e.fault_addr & ~(PAGE - 1));
	ASSERT_EQ(0, ops[0].result);
	/* A channel without an area: FAULT, the address, nothing else. */
	ASSERT_EQ(0, nvsvm_exec(self->fx.fd, h, 0, &ops[1], 1, 10000, &e));
	ASSERT_EQ(NVSVM_EXEC_FAULT, e.status);
	ASSERT_EQ(nvsvm_ptr(buf), e.fault_addr & ~(PAGE - 1));
	ASSERT_TRUE(!kernel_looking(ops[1].result)) {
		TH_LOG("result %#llx", (unsigned long long)ops[1].result);
	}
}

/*
 * Scan a text: any token that reads as a kernel address (0xffff8...,
 * 16 hex digits as %p prints, or a decimal at or above 0xffff8...) fails.
 */
static int scan_text(const char *path, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *s = p;
		unsigned long long v;
		size_t hex = 0, dec = 0;

		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		while (isxdigit((unsigned char)p[hex]))
			hex++;
		while (isdigit((unsigned char)p[dec]))
			dec++;
		if (hex >= 16 && p == s + 2)
			KTAP_FAIL_MSG("%s: pointer-like %.*s", path,
				      (int)(hex + 2), s);
		if (hex == 16 && (s == text || !isalnum((unsigned char)s[-1])))
			KTAP_FAIL_MSG("%s: %%p-like %.16s", path, p);
		if (dec > 0 && dec == hex) {
			v = strtoull(p, NULL, 10);
			if (kernel_looking(v))
				KTAP_FAIL_MSG("%s: kernel-looking %llu", path, v);
		}
		p += hex ? hex : 1;
	}
	return KTAP_PASS;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int scan_dir(const char *dir, unsigned int *files)
{
	static char text[65536];
	char path[512];
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(dir);

	if (!dp)
		return KTAP_PASS;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (scan_dir(path, files) != KTAP_PASS) {
				closedir(dp);
				return KTAP_FAIL;
			}
			continue;
		}
		if (st.st_mode & 0022) {
			closedir(dp);
			KTAP_FAIL_MSG("%s: mode %o, writable by group or others",
				      path, st.st_mode & 07777);
		}
		if (read_file(path, text, sizeof(text)))
			continue;
		(*files)++;
		if (scan_text(path, text) != KTAP_PASS) {
			closedir(dp);
			return KTAP_FAIL;
		}
	}
	closedir(dp);
	return KTAP_PASS;
}

/*
 * debugfs (root only: the mount's mode) holds counters and a histogram;
 * none of it reads as a kernel address. Scanned after some work, with
 * the device open.
 */
TEST_F(chan, debugfs_values)
{
	volatile uint64_t *buf = anon(8 * PAGE);
	unsigned int files = 0;
	struct nvsvm_op op;
	struct stat st;

	if (stat("/sys/kernel/debug/nvsvm", &st))
		SKIP(return, "no /sys/kernel/debug/nvsvm: %s", strerror(errno));
	ASSERT_NE(NULL, buf);
	op = nvsvm_op_fill(nvsvm_ptr(buf), 8 * PAGE, 3);
	ASSERT_PASS(gpu_ok(&self->fx, &op, 1));
	ASSERT_PASS(gpu_fault(&self->fx, nvsvm_op_read(WIN_ADDR), WIN_ADDR,
			NVSVM_ACCESS_READ));
	ASSERT_EQ(0, stat("/sys/kernel/debug", &st));
	ASSERT_TRUE(!(st.st_mode & 0077)) {
		TH_LOG("/sys/kernel/debug mode %o", st.st_mode & 07777);
	}
	ASSERT_PASS(scan_dir("/sys/kernel/debug/nvsvm", &files));
	ASSERT_PASS(scan_dir("/sys/kernel/debug/nvsvm_vgpu", &files));
	ASSERT_TRUE(files >= 12) {
		TH_LOG("only %u debugfs files read", files);
	}
	TH_LOG("%u debugfs files scanned", files);
}

/*
 * Read every event format under @root (counted in *@n): none prints %p or
 * pfns.
 */
static int scan_formats(const char *root, unsigned int *n)
{
	static char text[8192];
	char path[512];
	struct dirent *d;
	DIR *dp;

	dp = opendir(root);
	if (!dp)
		KTAP_FAIL_MSG("%s: %s", root, strerror(errno));
	while ((d = readdir(dp))) {
		char *fmt, *c;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/format", root, d->d_name);
		if (read_file(path, text, sizeof(text)))
			continue;
		(*n)++;
		fmt = strstr(text, "print fmt:");
		if (!fmt) {
			closedir(dp);
			KTAP_FAIL_MSG("%s: no print fmt", path);
		}
		for (c = fmt; (c = strchr(c, '%')); c++) {
			if (c[1] == 'p' || c[1] == 'n') {
				closedir(dp);
				KTAP_FAIL_MSG("%s: prints %%%c: %s", path,
					      c[1], fmt);
			}
		}
		for (c = text; *c; c++)
			*c = tolower((unsigned char)*c);
		if (strstr(text, "pfn") || strstr(text, "phys") ||
		    strstr(text, " dma") || strstr(text, "ptr")) {
			closedir(dp);
			KTAP_FAIL_MSG("%s: a pfn/physical/pointer field: %s",
				      path, text);
		}
	}
	closedir(dp);
	return KTAP_PASS;
}

/* The tracepoints print user addresses and counts, never %p or pfns. */
TEST(trace_formats)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing/events/nvsvm",
		"/sys/kernel/debug/tracing/events/nvsvm",
	};
	const char *root = NULL;
	unsigned int n = 0, i;

	for (i = 0; i < ARRAY_SIZE(roots) && !root; i++)
		if (!access(roots[i], R_OK))
			root = roots[i];
	if (!root)
		SKIP(return, "no tracefs events/nvsvm (CONFIG_EVENT_TRACING or tracefs missing)");
	ASSERT_PASS(scan_formats(root, &n));
	ASSERT_TRUE(n >= 4) {
		TH_LOG("%u nvsvm events found", n);
	}
	TH_LOG("%u event formats read under %s", n, root);
}

/* The node is 0660 root:root: only root or a group a udev rule names. */
TEST(node_mode)
{
	struct stat st;

	ASSERT_LE(0, stat("/dev/nvsvm0", &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode)) {
		TH_LOG("mode %o", st.st_mode);
	}
	ASSERT_EQ(0660, st.st_mode & 07777);
	ASSERT_EQ(0, st.st_uid);
	ASSERT_EQ(0, st.st_gid);
}

/* Without the group's permission an unprivileged user cannot open it. */
TEST(node_unprivileged)
{
	int *res = ktap_shared(sizeof(int));
	pid_t pid;

	ASSERT_NE(NULL, res);
	if (geteuid())
		SKIP(return, "not root: cannot switch to an unprivileged user");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		*res = open("/dev/nvsvm0", O_RDWR) < 0 ? errno : 0;
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(EACCES, *res);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
