// SPDX-License-Identifier: GPL-2.0
/*
 * TEST ONLY, compiled in a test build alone (CONFIG_NVSVM_TEST=y, Kbuild;
 * tools/scripts/build-modules.sh makes one for every VM lane): a hook that
 * stops the driver at a chosen point so that a test can change the CPU
 * mapping there, every time, instead of by a lucky race. A product build
 * (make, DKMS) has none of it; in a test build the hook point costs a
 * static branch while nothing is armed.
 *
 * /sys/kernel/debug/nvsvm_test/park (root only, 0600) parks the next
 * nvsvm_mirror_range() of the writer's address space whose range holds a
 * given address, after its hmm_range_fault() snapshot and before it takes
 * svmm->mutex to check mmu_interval_read_retry() and write the PTEs; the
 * MAP ioctl and the fault path both come through there.
 *
 *   write "arm ADDR"  arm it (EBUSY while armed or parked)
 *   write "release"   let the parked call go; ESRCH when none is parked
 *                     (it never came, or gave up after
 *                     NVSVM_TEST_PARK_MAX_MS): an armed hook is disarmed
 *   read              "idle", "armed" or "parked"
 *
 * A parked call goes on by itself after NVSVM_TEST_PARK_MAX_MS or on a
 * fatal signal, so that nothing waits on a test that went away.
 *
 * /sys/kernel/debug/nvsvm_test/fail_thp (root only, 0600): write N and the
 * next N allocations of a system THP for a 2 MiB VRAM page moving back
 * (src/dmem.c, nvsvm_dmem_sys_thp()) fail as if none could be had; read:
 * how many of the N are left. Unregister's fallbacks for a 2 MiB VRAM page
 * (tests/guest-migrate.sh) are pinned with it.
 */
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "nvsvm_core.h"
#include "nvsvm_test.h"

#define NVSVM_TEST_PARK_MAX_MS	30000

enum nvsvm_test_park_state {
	NVSVM_TEST_IDLE,
	NVSVM_TEST_ARMED,
	NVSVM_TEST_PARKED,
};

static const char *const nvsvm_test_park_names[] = {
	[NVSVM_TEST_IDLE] = "idle",
	[NVSVM_TEST_ARMED] = "armed",
	[NVSVM_TEST_PARKED] = "parked",
};

DEFINE_STATIC_KEY_FALSE(nvsvm_test_park_key);

/* The hook's state. */
static struct {
	struct mutex lock;	/* state, mm, addr; the static key's changes */
	wait_queue_head_t wait;
	enum nvsvm_test_park_state state;
	struct mm_struct *mm;	/* armed for it: mmgrab()ed */
	u64 addr;
} nvsvm_test_park_hook;

static struct dentry *nvsvm_test_dir;

/* THP allocations still to fail (debugfs fail_thp). */
static atomic_t nvsvm_test_thp_fails = ATOMIC_INIT(0);

/**
 * nvsvm_test_fail_thp() - TEST ONLY: should this THP allocation fail?
 *
 * Return: true while debugfs fail_thp counts down (one per call).
 */
bool nvsvm_test_fail_thp(void)
{
	return atomic_dec_if_positive(&nvsvm_test_thp_fails) >= 0;
}

/* Back to idle, the caller holding the lock. */
static void nvsvm_test_park_idle(void)
{
	lockdep_assert_held(&nvsvm_test_park_hook.lock);
	if (nvsvm_test_park_hook.state == NVSVM_TEST_IDLE)
		return;
	nvsvm_test_park_hook.state = NVSVM_TEST_IDLE;
	mmdrop(nvsvm_test_park_hook.mm);
	nvsvm_test_park_hook.mm = NULL;
	static_branch_disable(&nvsvm_test_park_key);
	wake_up_all(&nvsvm_test_park_hook.wait);
}

/**
 * nvsvm_test_park_range() - TEST ONLY: park here if armed for this range
 * @mm: the range's address space
 * @start: first address of the range
 * @end: its end (exclusive)
 *
 * Called through nvsvm_test_park() between a range's snapshot and its PTE
 * write, with no lock held.
 *
 * Return: the jiffies spent parked, for the caller's own time limit.
 */
unsigned long nvsvm_test_park_range(struct mm_struct *mm, u64 start, u64 end)
{
	unsigned long t0 = jiffies;
	bool park;

	mutex_lock(&nvsvm_test_park_hook.lock);
	park = nvsvm_test_park_hook.state == NVSVM_TEST_ARMED &&
	       nvsvm_test_park_hook.mm == mm &&
	       nvsvm_test_park_hook.addr >= start &&
	       nvsvm_test_park_hook.addr < end;
	if (park)
		nvsvm_test_park_hook.state = NVSVM_TEST_PARKED;
	mutex_unlock(&nvsvm_test_park_hook.lock);
	if (!park)
		return 0;

	wait_event_killable_timeout(nvsvm_test_park_hook.wait,
				    READ_ONCE(nvsvm_test_park_hook.state) !=
				    NVSVM_TEST_PARKED,
				    msecs_to_jiffies(NVSVM_TEST_PARK_MAX_MS));
	mutex_lock(&nvsvm_test_park_hook.lock);
	if (nvsvm_test_park_hook.state == NVSVM_TEST_PARKED)
		nvsvm_test_park_idle();	/* gave up: "release" says ESRCH */
	mutex_unlock(&nvsvm_test_park_hook.lock);
	return jiffies - t0;
}

static ssize_t nvsvm_test_park_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char line[16];
	int n;

	mutex_lock(&nvsvm_test_park_hook.lock);
	n = scnprintf(line, sizeof(line), "%s\n",
		      nvsvm_test_park_names[nvsvm_test_park_hook.state]);
	mutex_unlock(&nvsvm_test_park_hook.lock);
	return simple_read_from_buffer(ubuf, count, ppos, line, n);
}

static ssize_t nvsvm_test_park_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	char line[32], *arg;
	u64 addr;
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	arg = strim(line);

	mutex_lock(&nvsvm_test_park_hook.lock);
	if (!strcmp(arg, "release")) {
		ret = nvsvm_test_park_hook.state == NVSVM_TEST_PARKED ?
		      0 : -ESRCH;
		nvsvm_test_park_idle();
	} else if (!strncmp(arg, "arm ", 4)) {
		ret = kstrtou64(arg + 4, 0, &addr);
		if (!ret && !current->mm)
			ret = -EINVAL;
		if (!ret && nvsvm_test_park_hook.state != NVSVM_TEST_IDLE)
			ret = -EBUSY;
		if (!ret) {
			mmgrab(current->mm);
			nvsvm_test_park_hook.mm = current->mm;
			nvsvm_test_park_hook.addr = addr;
			nvsvm_test_park_hook.state = NVSVM_TEST_ARMED;
			static_branch_enable(&nvsvm_test_park_key);
		}
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&nvsvm_test_park_hook.lock);
	return ret ? ret : count;
}

static const struct file_operations nvsvm_test_park_fops = {
	.owner = THIS_MODULE,
	.read = nvsvm_test_park_read,
	.write = nvsvm_test_park_write,
	.llseek = default_llseek,
};

/** nvsvm_test_init() - TEST ONLY: create /sys/kernel/debug/nvsvm_test/ */
void nvsvm_test_init(void)
{
	mutex_init(&nvsvm_test_park_hook.lock);
	init_waitqueue_head(&nvsvm_test_park_hook.wait);
	nvsvm_test_dir = debugfs_create_dir("nvsvm_test", NULL);
	debugfs_create_file("park", 0600, nvsvm_test_dir, NULL,
			    &nvsvm_test_park_fops);
	debugfs_create_atomic_t("fail_thp", 0600, nvsvm_test_dir,
				&nvsvm_test_thp_fails);
}

/** nvsvm_test_fini() - TEST ONLY: remove it; nothing is parked by then */
void nvsvm_test_fini(void)
{
	debugfs_remove_recursive(nvsvm_test_dir);
	mutex_lock(&nvsvm_test_park_hook.lock);
	nvsvm_test_park_idle();
	mutex_unlock(&nvsvm_test_park_hook.lock);
	atomic_set(&nvsvm_test_thp_fails, 0);
}
