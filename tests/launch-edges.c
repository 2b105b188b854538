// SPDX-License-Identifier: GPL-2.0
/*
 * NVSVM_IOCTL_LAUNCH at its edges: work-groups spread over every GPC that
 * must all be resident at once; work-items that wait for the CPU, released
 * by a store while they run; a launch that never ends, ended by SIGKILL;
 * the state of a launch charged to the memory cgroup (ENOMEM at its limit,
 * no OOM kill). Programs: tests/gpu/edges.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "common.h"
#include "launch.h"
#include "gpu/edges_args.h"
#include "gpu/gpu_args.h"

#include "edges.h"
#include "touch.h"

#define IMG(file)	gpu_##file##_image, sizeof(gpu_##file##_image)
/* Spinning work-items: no budget ends them, the CPU does. */
#define SPIN_BUDGET	(1ULL << 36)
#define SPIN_ITEMS	256

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

/*
 * NVSVM_GPC_ALL: a part of the launch on each GPC, taking work-groups
 * from one counter, each part holding at most its share of the groups at
 * once (launch.c). Each group's first work-item raises a flag and waits
 * for every group's: the launch ends only if every group is resident at
 * the same time, so each GPC must run exactly its share, each group on an
 * SM of its own. 128 work-items a group: thousands of work-items at once.
 */
TEST_F(chan, all_gpcs_resident_together)
{
	unsigned int gpcs = info.gpc_count, i, g;
	unsigned int nsm = vgpu_param("tpcs_per_gpc") * vgpu_param("sms_per_tpc");
	unsigned int per = nsm < 4 ? nsm : 4, groups = gpcs * per;
	const unsigned int local = 128;
	unsigned int count[32] = { 0 };
	uint32_t *where;
	uint64_t *flags, *out;
	struct gather_args a;
	struct nvsvm_launch l;

	NEED_VGPU();
	if (vgpu_param("warps_per_sm") < local / 32 || gpcs > 32 || !nsm)
		SKIP(return, "needs 4 warp slots per SM and at most 32 GPCs");
	where = anon(groups * sizeof(*where));
	flags = anon(groups * sizeof(*flags));
	out = anon(groups * local * sizeof(*out));
	ASSERT_MAP(where);
	ASSERT_MAP(flags);
	ASSERT_MAP(out);
	a = (struct gather_args){
		.where = nvsvm_ptr(where), .flags = nvsvm_ptr(flags),
		.out = nvsvm_ptr(out), .groups = groups,
	};
	nvsvm_launch_init(&l, self->fx.chan, IMG(edges), GPU_EDGES_GATHER,
			  &a, sizeof(a), groups * local, local);
	l.gpc = NVSVM_GPC_ALL;
	l.insn_budget = SPIN_BUDGET;
	l.timeout_ms = 300000;
	ASSERT_EQ(0, launch_run(&self->fx, &l));
	ASSERT_EQ(NVSVM_EXEC_OK, l.status) {
		TH_LOG("status %s, trap %s at %#llx, fault %#llx",
		       nvsvm_status_name(l.status), nvsvm_trap_name(l.trap),
		       (unsigned long long)l.fault_pc,
		       (unsigned long long)l.fault_addr);
	}
	ASSERT_EQ(groups, l.groups_done);
	for (i = 0; i < groups * local; i++)
		ASSERT_EQ(i / local + 1, out[i]);
	for (g = 0; g < groups; g++) {
		unsigned int gpc = where[g] >> 16, sm = where[g] & 0xffff;

		ASSERT_LT(gpc, gpcs);
		ASSERT_LT(sm, per) {
			TH_LOG("group %u on GPC %u SM %u", g, gpc, sm);
		}
		/* One group per SM of a GPC: the SM ids of a GPC are 0..per-1. */
		ASSERT_EQ(0, count[gpc] & (1U << (sm + 8)));
		count[gpc] |= 1U << (sm + 8);
		count[gpc]++;
	}
	for (i = 0; i < gpcs; i++)
		ASSERT_EQ(per, count[i] & 0xff) {
			TH_LOG("GPC %u ran %u groups, not %u", i,
			       count[i] & 0xff, per);
		}
	TH_LOG("%u GPCs x %u groups x %u work-items resident at once, %llu instructions",
	       gpcs, per, local, (unsigned long long)l.insns);
}

struct spin {
	struct fx *fx;
	struct nvsvm_launch l;
	int ret;
};

static void *spin_thread(void *arg)
{
	struct spin *s = arg;

	s->ret = nvsvm_launch(s->fx->fd, &s->l);
	return NULL;
}

static void spin_init(struct nvsvm_launch *l, uint32_t chan,
		      struct spin_args *a, uint64_t *started,
		      uint64_t *release, uint64_t *out, uint32_t timeout_ms)
{
	*a = (struct spin_args){
		.started = nvsvm_ptr(started), .release = nvsvm_ptr(release),
		.out = nvsvm_ptr(out),
	};
	nvsvm_launch_init(l, chan, IMG(edges), GPU_EDGES_SPIN, a, sizeof(*a),
			  SPIN_ITEMS, 64);
	l->insn_budget = SPIN_BUDGET;
	l->timeout_ms = timeout_ms;
}

/* Every work-item has set its started word (volatile reads), or 60 s passed. */
static int all_started(const volatile uint64_t *started, unsigned int n)
{
	unsigned int i, tries;

	for (tries = 0; tries < 60000; tries++) {
		for (i = 0; i < n && started[i]; i++)
			;
		if (i == n)
			return KTAP_PASS;
		usleep(1000);
	}
	KTAP_FAIL_MSG("%u of %u work-items started", i, n);
}

/*
 * 256 work-items spin on a word the CPU writes while they run: the GPU
 * sees the CPU's store, every work-item ends with it. The launch has no
 * timeout (an OpenCL runtime's): it returns when they end.
 */
TEST_F(chan, cpu_releases_spinning_items)
{
	uint64_t *started = anon(SPIN_ITEMS * 8), *out = anon(SPIN_ITEMS * 8);
	uint64_t *release = anon(PAGE);
	struct spin s = { .fx = &self->fx };
	struct spin_args a;
	pthread_t t;
	unsigned int i;

	ASSERT_MAP(started);
	ASSERT_MAP(out);
	ASSERT_MAP(release);
	spin_init(&s.l, self->fx.chan, &a, started, release, out,
		  NVSVM_LAUNCH_NO_TIMEOUT);
	ASSERT_EQ(0, pthread_create(&t, NULL, spin_thread, &s));
	ASSERT_PASS(all_started(started, SPIN_ITEMS));
	/* Still spinning: nothing written yet. */
	for (i = 0; i < SPIN_ITEMS; i++)
		ASSERT_EQ(0, out[i]);
	__atomic_store_n(release, 7, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, s.ret);
	ASSERT_EQ(NVSVM_EXEC_OK, s.l.status);
	for (i = 0; i < SPIN_ITEMS; i++)
		ASSERT_EQ(7 + i, out[i]);
}

/*
 * A launch that nothing ends but its timeout (10 minutes), or that has
 * none (NVSVM_LAUNCH_NO_TIMEOUT, as the OpenCL ICD's), holds no process
 * hostage: SIGKILL ends the process at once, the GPU stops its
 * work-items, and the same device runs the next launch right.
 */
TEST_F(chan, sigkill_ends_endless_launch)
{
	static const uint32_t timeouts[] = { 600000, NVSVM_LAUNCH_NO_TIMEOUT };
	uint64_t *started = mmap(NULL, SPIN_ITEMS * 8, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t out[64];
	struct touch_args t = {
		.base = nvsvm_ptr(out), .stride = 8, .pattern = 0x5a,
	};
	struct nvsvm_launch l;
	unsigned int i, k;
	pid_t pid;

	ASSERT_MAP(started);
	for (k = 0; k < 2; k++) {
		memset(started, 0, SPIN_ITEMS * 8);
		memset(out, 0, sizeof(out));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			uint64_t *release = anon(PAGE);
			uint64_t *o = anon(SPIN_ITEMS * 8);
			struct spin_args a;
			struct fx f;

			if (!release || !o ||
			    fx_open(&f, FX_AREA, NVSVM_CHAN_JOIN_AREA) !=
			    KTAP_PASS)
				_exit(2);
			spin_init(&l, f.chan, &a, started, release, o,
				  timeouts[k]);
			nvsvm_launch(f.fd, &l);
			/* Only the timeout could bring it here. */
			_exit(3);
		}
		ASSERT_PASS(all_started(started, SPIN_ITEMS));
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(128 + SIGKILL, wait_child(pid));

		nvsvm_launch_init(&l, self->fx.chan, IMG(touch),
				  GPU_TOUCH_TOUCH, &t, sizeof(t), 64, 32);
		ASSERT_EQ(0, launch_run(&self->fx, &l));
		ASSERT_EQ(NVSVM_EXEC_OK, l.status);
		for (i = 0; i < 64; i++)
			ASSERT_EQ(0x5a ^ i, out[i]);
	}
}

struct cpu_adder {
	uint64_t *counter;
	volatile int stop;
	uint64_t adds;
};

static void *cpu_adder(void *arg)
{
	struct cpu_adder *c = arg;

	while (!c->stop) {
		__atomic_fetch_add(c->counter, 1, __ATOMIC_SEQ_CST);
		c->adds++;
	}
	return NULL;
}

#define ATOMIC_WINDOW_PARAM "/sys/module/nvsvm_vgpu/parameters/sysmem_atomic_window_us"
#define REPLAY_DELAY_PARAM "/sys/module/nvsvm_vgpu/parameters/replay_delay_us"
#define REPLAY_DELAY_US	2000

/*
 * A program's atomics and the CPU's on one word of malloc'd memory: where
 * GET_INFO promises NVSVM_CAP_SYSMEM_ATOMICS, none is lost, and the GPU's
 * get done however hard the CPU hammers the word. On PCIe the model's
 * atomic on system memory is a read, a window and a write
 * (sysmem_atomics=pcie, the window widened to 200 us here): only the
 * driver's exclusive access keeps the CPU out of the window. The CPU adds
 * from before the launch to after it.
 *
 * Pinned: each replayed access is issued again 2 ms after its replay
 * (replay_delay_us), as an SM may take that long, and the CPU's adder
 * touches the page all the time. Without the driver's timeslice the CPU
 * takes the page back before every retry and the launch ends in TIMEOUT
 * (atomic_timeslice_us=0 shows it); with the default 5 ms it completes.
 */
TEST_F(chan, program_and_cpu_atomics_exact)
{
	uint64_t *counter = anon(PAGE);
	struct cpu_adder c = { .counter = counter };
	struct adds_args a = { .counter = nvsvm_ptr(counter), .count = 16 };
	const unsigned int items = 64;
	unsigned int old = 0, old_delay = 0;
	uint64_t takes0 = 0, takes1 = 0, waits0 = 0, waits1 = 0;
	struct nvsvm_launch l;
	pthread_t t;
	int ret;

	NEED_VGPU();
	NEED_CAP(NVSVM_CAP_SYSMEM_ATOMICS);
	ASSERT_MAP(counter);
	*counter = 0;
	ASSERT_EQ(0, set_param(ATOMIC_WINDOW_PARAM, 200, &old));
	ASSERT_EQ(0, set_param(REPLAY_DELAY_PARAM, REPLAY_DELAY_US,
			       &old_delay));
	nvsvm_stat_read(0, "atomic_exclusive", &takes0);
	nvsvm_stat_read(0, "atomic_takeback_waits", &waits0);
	ASSERT_EQ(0, pthread_create(&t, NULL, cpu_adder, &c));
	while (__atomic_load_n(counter, __ATOMIC_RELAXED) < 1000)
		;
	nvsvm_launch_init(&l, self->fx.chan, IMG(edges), GPU_EDGES_ADDS, &a,
			  sizeof(a), items, 32);
	ret = launch_run(&self->fx, &l);
	c.stop = 1;
	pthread_join(t, NULL);
	set_param(ATOMIC_WINDOW_PARAM, old, NULL);
	set_param(REPLAY_DELAY_PARAM, old_delay, NULL);
	nvsvm_stat_read(0, "atomic_exclusive", &takes1);
	nvsvm_stat_read(0, "atomic_takeback_waits", &waits1);
	TH_LOG("%llu exclusive takes, %llu CPU take-backs waited",
	       (unsigned long long)(takes1 - takes0),
	       (unsigned long long)(waits1 - waits0));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(NVSVM_EXEC_OK, l.status) {
		TH_LOG("status %s at %#llx (%s)", nvsvm_status_name(l.status),
		       (unsigned long long)l.fault_addr,
		       nvsvm_access_name(l.fault_access));
	}
	TH_LOG("CPU adds %llu, GPU adds %u, counter %llu",
	       (unsigned long long)c.adds, items * 16,
	       (unsigned long long)*counter);
	ASSERT_EQ(c.adds + items * 16, *counter);
}

static uint64_t cg_u64(const char *file, const char *key)
{
	static char buf[8192];
	char *p;

	if (cg_read(cg_dir, file, buf, sizeof(buf)))
		return ~0ULL;
	if (!key)
		return strtoull(buf, NULL, 10);
	p = strstr(buf, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : ~0ULL;
}

/*
 * The state of a launch's work-groups is the caller's kernel memory: 1024
 * work-items with 16 KiB of private memory each (16 MiB) under a
 * memory.max 2 MiB above what the group uses fail with ENOMEM, nobody is
 * OOM killed, and with the limit lifted the same launch runs, exact.
 */
TEST(launch_over_memcg_limit_enomem)
{
	const unsigned int n = 1024;
	uint64_t *out, kills0, kills1;
	struct touch_args t;
	struct nvsvm_launch l;
	char max[192];
	struct fx f;
	int maxfd, ret;
	unsigned int i;

	NEED_VGPU();
	CG_ENTER("max");
	out = anon(n * 8);
	ASSERT_MAP(out);
	memset(out, 0, n * 8);
	ASSERT_PASS(fx_open(&f, FX_AREA, NVSVM_CHAN_JOIN_AREA));
	snprintf(max, sizeof(max), "%s/memory.max", cg_dir);
	maxfd = open(max, O_WRONLY);
	ASSERT_LE(0, maxfd);
	t = (struct touch_args){
		.base = nvsvm_ptr(out), .stride = 8, .pattern = 0xabc,
	};
	nvsvm_launch_init(&l, f.chan, IMG(touch), GPU_TOUCH_TOUCH, &t,
			  sizeof(t), n, n);
	l.priv_mem = 16384;

	kills0 = cg_u64("memory.events", "oom_kill ");
	snprintf(max, sizeof(max), "%llu",
		 (unsigned long long)(cg_u64("memory.current", NULL) + 2 * MiB));
	ASSERT_LT(0, write(maxfd, max, strlen(max)));
	ret = nvsvm_launch(f.fd, &l);
	/* Lift the limit before anything else allocates. */
	ASSERT_LT(0, write(maxfd, "max", 3));
	close(maxfd);
	kills1 = cg_u64("memory.events", "oom_kill ");
	TH_LOG("LAUNCH of 16 MiB of group state under memory.max = current + 2 MiB: %s, oom_kill %llu -> %llu",
	       ret ? strerror(-ret) : "success", (unsigned long long)kills0,
	       (unsigned long long)kills1);
	ASSERT_EQ(-ENOMEM, ret);
	ASSERT_EQ(kills0, kills1);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, out[i]);

	ASSERT_EQ(0, nvsvm_launch(f.fd, &l));
	ASSERT_EQ(NVSVM_EXEC_OK, l.status);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0xabc ^ i, out[i]);
	close(f.fd);
	cg_leave();
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
