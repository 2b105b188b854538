// SPDX-License-Identifier: GPL-2.0
/*
 * The real-GPU path (src/pascal.c) on the virtual GP100, and a GPU that
 * goes away while its files are open.
 *
 * The join cases drive the calls the patched nouveau makes,
 * nvsvm_pascal_join() and nvsvm_pascal_leave(), through the TEST-ONLY
 * module tests/kmod/nvsvm_pascal_test.ko (/dev/nvsvm_pascal_test: one open
 * file, one channel whose instance block the module owns and reuses).
 * main() loads that module and removes it at the end; without it (not in
 * the initramfs) those cases skip.
 *
 * The unbind cases unbind the virtual GPU's platform device through sysfs
 * with files open that have an area, GPU mappings and a channel (or
 * less), check the files' ioctls fail with ENODEV and close works, then
 * bind it again.
 * Those run last: the test module is removed first (it holds the GPU).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ktap.h"
#include "common.h"
#include "kmod/nvsvm_pascal_test.h"

#define PT_DEV		"/dev/nvsvm_pascal_test"
#define PT_MODULE	"nvsvm_pascal_test"
#define VGPU_DRIVER	"/sys/bus/platform/drivers/nvsvm_vgpu"
#define EXEC_MS		20000	/* bounds a broken run only */

static int pt_open(void)
{
	int fd = open(PT_DEV, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

#define PT_OPEN(pt) do {						\
	pt = pt_open();							\
	if (pt == -ENOENT)						\
		SKIP(PT_DEV " missing (" PT_MODULE ".ko not loaded)");	\
	if (pt < 0)							\
		KTAP_FAIL_MSG("open " PT_DEV ": %s", strerror(-pt));	\
} while (0)

static int pt_join(int pt, int fd)
{
	struct nvsvm_pt_join j = { .fd = fd };

	return xioctl(pt, NVSVM_PT_JOIN, &j);
}

static int pt_hold(int pt, int hold)
{
	struct nvsvm_pt_hold h = { .hold = hold };

	return xioctl(pt, NVSVM_PT_HOLD, &h);
}

/* One READ at @p on GPC @gpc of the joined channel; outcome in *@e. */
static int pt_read(int pt, const volatile void *p, uint32_t gpc,
		   struct nvsvm_exec *e, uint64_t *result)
{
	struct nvsvm_op op = nvsvm_op_read(nvsvm_ptr(p));
	int ret;

	memset(e, 0, sizeof(*e));
	e->gpc = gpc;
	e->ops = nvsvm_ptr(&op);
	e->nops = 1;
	e->timeout_ms = EXEC_MS;
	ret = xioctl(pt, NVSVM_PT_EXEC, e);
	if (result)
		*result = op.result;
	return ret;
}

/*
 * AREA_FINI detaches the channels joined to the area through nouveau too:
 * the joined channel's next access is cancelled (a live channel without
 * an area), not found stale and replayed for ever.
 */
static int area_fini_detaches_joined(void)
{
	uint64_t stale0, stale1, replays0, replays1, got;
	volatile uint64_t *buf;
	struct nvsvm_exec e;
	int fd, pt;

	NEED_VGPU();
	PT_OPEN(pt);
	OPEN_AREA(fd);
	buf = anon(PAGE);
	EXPECT_TRUE(buf, "mmap");
	buf[0] = 0x5a5a;
	EXPECT_OK(pt_join(pt, fd));
	/* Joined: the channel reads the process's memory. */
	EXPECT_OK(pt_read(pt, buf, 0, &e, &got));
	EXPECT_EQ(e.status, NVSVM_EXEC_OK);
	EXPECT_EQ(got, 0x5a5a);

	EXPECT_OK(nvsvm_area_fini(fd));
	EXPECT_OK(nvsvm_stat_read(0, "stale", &stale0));
	EXPECT_OK(nvsvm_stat_read(0, "replays", &replays0));
	EXPECT_OK(pt_read(pt, buf, 0, &e, NULL));
	EXPECT_OK(nvsvm_stat_read(0, "stale", &stale1));
	EXPECT_OK(nvsvm_stat_read(0, "replays", &replays1));
	ktap_note("after AREA_FINI: status %s, stale +%llu, replays +%llu",
		  nvsvm_status_name(e.status),
		  (unsigned long long)(stale1 - stale0),
		  (unsigned long long)(replays1 - replays0));
	EXPECT_EQ(e.status, NVSVM_EXEC_FAULT);
	EXPECT_EQ(e.fault_addr & ~(PAGE - 1), nvsvm_ptr(buf));
	EXPECT_EQ(stale1 - stale0, 0);
	/* A first sighting, a replay, the second sighting cancelled. */
	EXPECT_TRUE(replays1 - replays0 <= 4, "%llu replays",
		    (unsigned long long)(replays1 - replays0));
	EXPECT_OK(xioctl(pt, NVSVM_PT_LEAVE, NULL));
	close(pt);
	close(fd);
	return KTAP_PASS;
}

struct pt_job {
	int pt;
	const volatile void *p;
	struct nvsvm_exec e;
	int ret;
};

static void *pt_job_thread(void *arg)
{
	struct pt_job *j = arg;

	j->ret = pt_read(j->pt, j->p, 0, &j->e, NULL);
	return NULL;
}

/*
 * A fault entry of a channel that left is never taken for the channel
 * that reuses its instance block: leave reads the fault buffer before it
 * returns. The old channel (area of file 1) faults on x with the fault
 * interrupt held, so the entry stays unread; it stops and leaves; a new
 * channel on the same instance block joins file 2's area; the interrupt
 * is let through and the new channel's own access is served. x must not
 * be mapped in file 2's area.
 */
static int leave_reads_old_faults(void)
{
	uint64_t faults0 = 0, faults = 0, got;
	volatile uint64_t *x, *y;
	struct pt_job job = { 0 };
	uint32_t q = ~0U;
	pthread_t th;
	char *mem;
	int f1, f2, pt, i;

	NEED_VGPU();
	PT_OPEN(pt);
	OPEN_AREA(f1);
	OPEN_AREA(f2);
	/* x and y in two 2 MiB blocks: serving y never prefetches x. */
	mem = anon(8 * MiB);
	EXPECT_TRUE(mem, "mmap");
	x = (volatile uint64_t *)(((uintptr_t)mem + 2 * MiB - 1) & ~(2 * MiB - 1));
	y = x + (2 * MiB + 16 * PAGE) / 8;
	x[0] = 1;
	y[0] = 2;

	EXPECT_OK(pt_hold(pt, 1));
	EXPECT_OK(pt_join(pt, f1));
	EXPECT_OK(vgpu_stat_read("faults", &faults0));
	job.pt = pt;
	job.p = x;
	EXPECT_TRUE(!pthread_create(&th, NULL, pt_job_thread, &job),
		    "pthread_create");
	/* Wait for the entry in the buffer (a state, not a time). */
	for (i = 0; i < 2000; i++) {
		EXPECT_OK(vgpu_stat_read("faults", &faults));
		if (faults > faults0)
			break;
		usleep(5000);
	}
	if (faults == faults0) {
		xioctl(pt, NVSVM_PT_LEAVE, NULL);
		pthread_join(th, NULL);
		KTAP_FAIL_MSG("the old channel did not fault on x");
	}
	/* nouveau_channel_del(): the channel stops, then leaves. */
	EXPECT_OK(xioctl(pt, NVSVM_PT_LEAVE, NULL));
	pthread_join(th, NULL);
	EXPECT_OK(job.ret);
	EXPECT_NE(job.e.status, NVSVM_EXEC_OK);

	/* A new channel, the same instance block, another area. */
	EXPECT_OK(pt_join(pt, f2));
	EXPECT_OK(pt_hold(pt, 0));
	/* Its fault comes after x's entry: when it is served, x's was read. */
	EXPECT_OK(pt_read(pt, y, 1, &job.e, &got));
	EXPECT_EQ(job.e.status, NVSVM_EXEC_OK);
	EXPECT_EQ(got, 2);
	EXPECT_OK(nvsvm_query(f2, nvsvm_ptr(x), 1, &q));
	if (q)
		KTAP_FAIL_MSG("x is mapped (QUERY %#x) in the area of the new channel, which never touched it: the old channel's fault was served there",
			      q);
	EXPECT_OK(xioctl(pt, NVSVM_PT_LEAVE, NULL));
	close(pt);
	close(f1);
	close(f2);
	return KTAP_PASS;
}

static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* The platform device of /dev/nvsvm0: "nvsvm_vgpu.N". */
static int vgpu_device(char *name, size_t size)
{
	char link[256];
	const char *base;
	ssize_t n;

	n = readlink("/sys/class/misc/nvsvm0/device", link, sizeof(link) - 1);
	if (n <= 0)
		return -ENOENT;
	link[n] = 0;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= size)
		return -ENAMETOOLONG;
	strcpy(name, base);
	return 0;
}

/*
 * Unbind the virtual GPU's device while a file has an area, GPU mappings
 * and, if @chan, a channel that ran a program (a second file has
 * nothing): every ioctl of the files then fails with ENODEV, /dev/nvsvm0
 * is gone, the CPU's memory is untouched, close works (before or after
 * the munmap), nothing in the kernel log (the VM runner), no leak
 * (kmemleak). Then the device binds again and works.
 */
static int unbind_case(int with_chan)
{
	struct nvsvm_get_info gi;
	struct nvsvm_exec e;
	struct nvsvm_op op;
	uint64_t mapped = 0;
	uint32_t q[16], chan = 1, chan2;
	char dev[64];
	uint64_t *buf;
	int fd, fd2, i;

	NEED_VGPU();
	EXPECT_OK(vgpu_device(dev, sizeof(dev)));
	/* The test module holds the GPU: it goes first. */
	if (system("rmmod " PT_MODULE " 2>/dev/null"))
		ktap_note(PT_MODULE " was not loaded");

	OPEN_AREA(fd);
	OPEN_DEV(fd2);
	buf = anon(16 * PAGE);
	EXPECT_TRUE(buf, "mmap");
	for (i = 0; i < 16; i++)
		buf[i * WORDS] = i + 1;
	EXPECT_OK(nvsvm_map(fd, nvsvm_ptr(buf), 16 * PAGE, NVSVM_MAP_WRITE,
			    &mapped));
	EXPECT_EQ(mapped, 16);
	EXPECT_OK(nvsvm_query(fd, nvsvm_ptr(buf), 16, q));
	EXPECT_TRUE(q[15] & NVSVM_QUERY_VALID, "QUERY %#x", q[15]);
	op = nvsvm_op_read(nvsvm_ptr(&buf[3 * WORDS]));
	if (with_chan) {
		EXPECT_OK(nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
		EXPECT_OK(nvsvm_exec(fd, chan, 0, &op, 1, EXEC_MS, &e));
		EXPECT_EQ(e.status, NVSVM_EXEC_OK);
		EXPECT_EQ(op.result, 4);
	}

	EXPECT_OK(sysfs_write(VGPU_DRIVER "/unbind", dev));
	EXPECT_TRUE(access("/dev/nvsvm0", F_OK) && errno == ENOENT,
		    "/dev/nvsvm0 still there");
	EXPECT_ERR(nvsvm_get_info(fd, &gi), ENODEV);
	EXPECT_ERR(nvsvm_get_info(fd2, &gi), ENODEV);
	EXPECT_ERR(nvsvm_map(fd, nvsvm_ptr(buf), PAGE, 0, &mapped), ENODEV);
	EXPECT_ERR(nvsvm_query(fd, nvsvm_ptr(buf), 16, q), ENODEV);
	EXPECT_ERR(nvsvm_unmap(fd, nvsvm_ptr(buf), PAGE), ENODEV);
	EXPECT_ERR(nvsvm_exec(fd, chan, 0, &op, 1, EXEC_MS, &e), ENODEV);
	EXPECT_ERR(nvsvm_chan_create(fd, 0, &chan2), ENODEV);
	EXPECT_ERR(nvsvm_chan_destroy(fd, chan), ENODEV);
	EXPECT_ERR(nvsvm_area_fini(fd), ENODEV);
	EXPECT_ERR(nvsvm_area_init(fd2, WIN_ADDR, WIN_SIZE), ENODEV);
	/* The CPU side is untouched. */
	for (i = 0; i < 16; i++)
		EXPECT_EQ(buf[i * WORDS], i + 1);
	EXPECT_OK(close(fd2));
	if (with_chan) {
		EXPECT_OK(close(fd));
		EXPECT_OK(munmap(buf, 16 * PAGE));
	} else {
		EXPECT_OK(munmap(buf, 16 * PAGE));
		EXPECT_OK(close(fd));
	}

	/* Bound again, the GPU works. */
	EXPECT_OK(sysfs_write(VGPU_DRIVER "/bind", dev));
	OPEN_DEV(fd);
	EXPECT_OK(nvsvm_get_info(fd, &gi));
	EXPECT_EQ(gi.api_version, NVSVM_API_VERSION);
	close(fd);
	return KTAP_PASS;
}

static int unbind_with_files_open(void)
{
	return unbind_case(1);
}

/* Without a channel, the old unregister did not even warn. */
static int unbind_with_area_no_channel(void)
{
	return unbind_case(0);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(area_fini_detaches_joined),
	KTAP_CASE(leave_reads_old_faults),
	/* Last: they remove the test module and rebind the GPU. */
	KTAP_CASE(unbind_with_area_no_channel),
	KTAP_CASE(unbind_with_files_open),
};

int main(void)
{
	int ret;

	if (access(PT_DEV, F_OK) &&
	    system("modprobe " PT_MODULE " 2>/dev/null"))
		printf("# " PT_MODULE ".ko could not be loaded: the join cases skip\n");
	ret = test_main(cases, KTAP_ARRAY_SIZE(cases), NVSVM_CAP_EXEC);
	if (!access(PT_DEV, F_OK) && system("rmmod " PT_MODULE))
		ret = 1;
	return ret;
}
