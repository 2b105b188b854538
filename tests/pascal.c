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

#include "kselftest_harness.h"
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
		SKIP(return, PT_DEV " missing (" PT_MODULE ".ko not loaded)"); \
	ASSERT_LE(0, pt) {						\
		TH_LOG("open " PT_DEV ": %s", strerror(-pt));		\
	}								\
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
TEST(area_fini_detaches_joined)
{
	uint64_t stale0, stale1, replays0, replays1, got;
	volatile uint64_t *buf;
	struct nvsvm_exec e;
	int fd, pt;

	NEED_VGPU();
	PT_OPEN(pt);
	OPEN_AREA(fd);
	buf = anon(PAGE);
	ASSERT_NE(NULL, buf);
	buf[0] = 0x5a5a;
	ASSERT_EQ(0, pt_join(pt, fd));
	/* Joined: the channel reads the process's memory. */
	ASSERT_EQ(0, pt_read(pt, buf, 0, &e, &got));
	ASSERT_EQ(NVSVM_EXEC_OK, e.status);
	ASSERT_EQ(0x5a5a, got);

	ASSERT_EQ(0, nvsvm_area_fini(fd));
	ASSERT_EQ(0, nvsvm_stat_read(0, "stale", &stale0));
	ASSERT_EQ(0, nvsvm_stat_read(0, "replays", &replays0));
	ASSERT_EQ(0, pt_read(pt, buf, 0, &e, NULL));
	ASSERT_EQ(0, nvsvm_stat_read(0, "stale", &stale1));
	ASSERT_EQ(0, nvsvm_stat_read(0, "replays", &replays1));
	TH_LOG("after AREA_FINI: status %s, stale +%llu, replays +%llu",
	       nvsvm_status_name(e.status),
	       (unsigned long long)(stale1 - stale0),
	       (unsigned long long)(replays1 - replays0));
	ASSERT_EQ(NVSVM_EXEC_FAULT, e.status);
	ASSERT_EQ(nvsvm_ptr(buf), e.fault_addr & ~(PAGE - 1));
	ASSERT_EQ(0, stale1 - stale0);
	/* A first sighting, a replay, the second sighting cancelled. */
	ASSERT_TRUE(replays1 - replays0 <= 4) {
		TH_LOG("%llu replays",
		       (unsigned long long)(replays1 - replays0));
	}
	ASSERT_EQ(0, xioctl(pt, NVSVM_PT_LEAVE, NULL));
	close(pt);
	close(fd);
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
TEST(leave_reads_old_faults)
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
	ASSERT_NE(NULL, mem);
	x = (volatile uint64_t *)(((uintptr_t)mem + 2 * MiB - 1) & ~(2 * MiB - 1));
	y = x + (2 * MiB + 16 * PAGE) / 8;
	x[0] = 1;
	y[0] = 2;

	ASSERT_EQ(0, pt_hold(pt, 1));
	ASSERT_EQ(0, pt_join(pt, f1));
	ASSERT_EQ(0, vgpu_stat_read("faults", &faults0));
	job.pt = pt;
	job.p = x;
	ASSERT_TRUE(!pthread_create(&th, NULL, pt_job_thread, &job)) {
		TH_LOG("pthread_create");
	}
	/* Wait for the entry in the buffer (a state, not a time). */
	for (i = 0; i < 2000; i++) {
		ASSERT_EQ(0, vgpu_stat_read("faults", &faults));
		if (faults > faults0)
			break;
		usleep(5000);
	}
	if (faults == faults0) {
		xioctl(pt, NVSVM_PT_LEAVE, NULL);
		pthread_join(th, NULL);
		ASSERT_TRUE(0) {
			TH_LOG("the old channel did not fault on x");
		}
	}
	/* nouveau_channel_del(): the channel stops, then leaves. */
	ASSERT_EQ(0, xioctl(pt, NVSVM_PT_LEAVE, NULL));
	pthread_join(th, NULL);
	ASSERT_EQ(0, job.ret);
	ASSERT_NE(NVSVM_EXEC_OK, job.e.status);

	/* A new channel, the same instance block, another area. */
	ASSERT_EQ(0, pt_join(pt, f2));
	ASSERT_EQ(0, pt_hold(pt, 0));
	/* Its fault comes after x's entry: when it is served, x's was read. */
	ASSERT_EQ(0, pt_read(pt, y, 1, &job.e, &got));
	ASSERT_EQ(NVSVM_EXEC_OK, job.e.status);
	ASSERT_EQ(2, got);
	ASSERT_EQ(0, nvsvm_query(f2, nvsvm_ptr(x), 1, &q));
	ASSERT_EQ(0, q) {
		TH_LOG("x is mapped (QUERY %#x) in the area of the new channel, which never touched it: the old channel's fault was served there",
		       q);
	}
	ASSERT_EQ(0, xioctl(pt, NVSVM_PT_LEAVE, NULL));
	close(pt);
	close(f1);
	close(f2);
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
static void unbind_case(struct __test_metadata *_metadata, int with_chan)
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
	ASSERT_EQ(0, vgpu_device(dev, sizeof(dev)));
	/* The test module holds the GPU: it goes first. */
	if (system("rmmod " PT_MODULE " 2>/dev/null"))
		TH_LOG(PT_MODULE " was not loaded");

	OPEN_AREA(fd);
	OPEN_DEV(fd2);
	buf = anon(16 * PAGE);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < 16; i++)
		buf[i * WORDS] = i + 1;
	ASSERT_EQ(0, nvsvm_map(fd, nvsvm_ptr(buf), 16 * PAGE, NVSVM_MAP_WRITE,
			    &mapped));
	ASSERT_EQ(16, mapped);
	ASSERT_EQ(0, nvsvm_query(fd, nvsvm_ptr(buf), 16, q));
	ASSERT_TRUE(q[15] & NVSVM_QUERY_VALID) {
		TH_LOG("QUERY %#x", q[15]);
	}
	op = nvsvm_op_read(nvsvm_ptr(&buf[3 * WORDS]));
	if (with_chan) {
		ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &chan));
		ASSERT_EQ(0, nvsvm_exec(fd, chan, 0, &op, 1, EXEC_MS, &e));
		ASSERT_EQ(NVSVM_EXEC_OK, e.status);
		ASSERT_EQ(4, op.result);
	}

	ASSERT_EQ(0, sysfs_write(VGPU_DRIVER "/unbind", dev));
	ASSERT_TRUE(access("/dev/nvsvm0", F_OK) && errno == ENOENT) {
		TH_LOG("/dev/nvsvm0 still there");
	}
	ASSERT_EQ(-ENODEV, nvsvm_get_info(fd, &gi));
	ASSERT_EQ(-ENODEV, nvsvm_get_info(fd2, &gi));
	ASSERT_EQ(-ENODEV, nvsvm_map(fd, nvsvm_ptr(buf), PAGE, 0, &mapped));
	ASSERT_EQ(-ENODEV, nvsvm_query(fd, nvsvm_ptr(buf), 16, q));
	ASSERT_EQ(-ENODEV, nvsvm_unmap(fd, nvsvm_ptr(buf), PAGE));
	ASSERT_EQ(-ENODEV, nvsvm_exec(fd, chan, 0, &op, 1, EXEC_MS, &e));
	ASSERT_EQ(-ENODEV, nvsvm_chan_create(fd, 0, &chan2));
	ASSERT_EQ(-ENODEV, nvsvm_chan_destroy(fd, chan));
	ASSERT_EQ(-ENODEV, nvsvm_area_fini(fd));
	ASSERT_EQ(-ENODEV, nvsvm_area_init(fd2, WIN_ADDR, WIN_SIZE));
	/* The CPU side is untouched. */
	for (i = 0; i < 16; i++)
		ASSERT_EQ(i + 1, buf[i * WORDS]);
	ASSERT_EQ(0, close(fd2));
	if (with_chan) {
		ASSERT_EQ(0, close(fd));
		ASSERT_EQ(0, munmap(buf, 16 * PAGE));
	} else {
		ASSERT_EQ(0, munmap(buf, 16 * PAGE));
		ASSERT_EQ(0, close(fd));
	}

	/* Bound again, the GPU works. */
	ASSERT_EQ(0, sysfs_write(VGPU_DRIVER "/bind", dev));
	OPEN_DEV(fd);
	ASSERT_EQ(0, nvsvm_get_info(fd, &gi));
	ASSERT_EQ(NVSVM_API_VERSION, gi.api_version);
	close(fd);
}

/*
 * Last (the harness runs cases in this order): they remove the test
 * module and rebind the GPU. Without a channel, the old unregister did
 * not even warn.
 */
TEST(unbind_with_area_no_channel)
{
	unbind_case(_metadata, 0);
}

TEST(unbind_with_files_open)
{
	unbind_case(_metadata, 1);
}

int main(int argc, char **argv)
{
	int ret;

	if (access(PT_DEV, F_OK) &&
	    system("modprobe " PT_MODULE " 2>/dev/null"))
		printf("# " PT_MODULE ".ko could not be loaded: the join cases skip\n");
	ret = test_harness_main(argc, argv, NVSVM_CAP_EXEC);
	if (!access(PT_DEV, F_OK) && system("rmmod " PT_MODULE))
		ret = 1;
	return ret;
}
