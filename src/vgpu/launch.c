// SPDX-License-Identifier: GPL-2.0
/*
 * NVSVM_IOCTL_LAUNCH: a compiled program run over an NDRange on the SMs of
 * one GPC, or of every GPC: then each GPC runs a part of it (a program of
 * its own), and the parts take the next work-group from one counter. The
 * work-groups are spread over a GPC's SMs, each group's
 * warps on one SM; a group takes all its warp slots at once (or waits),
 * so that its barriers never wait for a warp that has no slot. Work-items
 * run in warps of 32; each is a hart of the interpreter (rv.c), run a
 * quantum at a time, lane after lane. A global access goes through the
 * warp's micro-TLB (vgpu_warp_access()): a miss records a fault and
 * stalls the warp, with the work-item's instruction not retired, until a
 * replay retries it or a cancel fails the launch.
 *
 * What a launch makes the kernel keep (its program, its arguments, the
 * state of its resident work-groups) is allocated here, in the caller's
 * ioctl, charged to its memory cgroup, and bounded by
 * VGPU_LAUNCH_MEM_MAX: the number of work-groups resident at once is cut
 * to fit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "vgpu.h"

#define VGPU_WARP_SIZE		32
/* Instructions a work-item runs per turn of its warp. */
#define VGPU_LAUNCH_QUANTUM	32
/* Kernel memory of one launch's resident work-groups, at most. */
#define VGPU_LAUNCH_MEM_MAX	SZ_32M
/* Work-groups resident at once, at most. */
#define VGPU_LAUNCH_RESIDENT	256
#define VGPU_LAUNCH_MAX_GROUPS	BIT_ULL(40)
#define VGPU_LAUNCH_MAX_GLOBAL	BIT_ULL(48)
#define VGPU_LAUNCH_TIMEOUT_MAX	600000
/*
 * What a launch allocates is the caller's: charged to its memory cgroup,
 * and failing with ENOMEM at its limit rather than calling the OOM killer.
 */
#define VGPU_GFP_USER	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
			 __GFP_NOWARN)

/* Work-item states (struct vgpu_wg.state). */
enum {
	VGPU_ITEM_RUN,
	VGPU_ITEM_BARRIER,
	VGPU_ITEM_DONE,
};

/**
 * struct vgpu_wg - a resident work-group slot of a launch
 * @l: the launch
 * @g: what its work-items share (windows, CSRs, the global access)
 * @harts: its work-items (@l->group_items at most)
 * @state: a VGPU_ITEM_* for each
 * @local: local memory
 * @priv: private memory, @l->priv_mem bytes per work-item
 * @warps: its @l->wpg warps, in the program's warps
 * @cur: the warp running now (for vgpu_launch_global())
 * @sm: the SM its warps run on, numbered in the GPC
 * @items: work-items of the group running now
 * @live: those not ended
 * @waiting: those waiting at a barrier
 * @active: a work-group runs in this slot
 */
struct vgpu_wg {
	struct vgpu_launch *l;
	struct rv_group g;
	struct rv_hart *harts;
	u8 *state;
	void *local;
	void *priv;
	struct vgpu_warp *warps;
	struct vgpu_warp *cur;
	u32 sm;
	u32 items;
	u32 live;
	u32 waiting;
	bool active;
};

/**
 * struct vgpu_launch - a program and its NDRange
 * @rv: the decoded program
 * @param: the argument block
 * @param_size: its bytes
 * @entry: entry offset in the image
 * @dim: work_dim
 * @offset: global offset per dimension (0 beyond @dim)
 * @gsize: global size per dimension (1 beyond @dim)
 * @lsize: enqueued local size per dimension (1 beyond @dim)
 * @ngroups: work-groups per dimension
 * @groups: work-groups in all
 * @next: the next work-group to start (every part's GPC thread)
 * @local_mem: bytes of local memory per group
 * @priv_mem: bytes of private memory per work-item
 * @budget: instructions a work-item may run
 * @group_items: work-items of a full group
 * @wpg: warps per group
 * @insns: instructions retired
 * @groups_done: work-groups that ended
 * @nparts: GPCs it runs on
 * @parts: what each runs
 */
struct vgpu_launch {
	struct rv_prog *rv;
	void *param;
	u32 param_size;
	u32 entry;
	u32 dim;
	u64 offset[3];
	u64 gsize[3];
	u32 lsize[3];
	u64 ngroups[3];
	u64 groups;
	atomic64_t next;
	u32 local_mem;
	u32 priv_mem;
	u64 budget;
	u32 group_items;
	u32 wpg;
	atomic64_t insns;
	atomic64_t groups_done;
	u32 nparts;
	struct vgpu_lpart *parts;
};

/**
 * struct vgpu_lpart - the part of a launch that one GPC runs
 * @prog: its program on that GPC
 * @l: the launch
 * @resident: work-group slots (@wgs)
 * @wgs: the slots
 * @trap: enum nvsvm_launch_trap of the trap that stopped it
 */
struct vgpu_lpart {
	struct vgpu_prog prog;
	struct vgpu_launch *l;
	u32 resident;
	struct vgpu_wg *wgs;
	u32 trap;
};

static struct vgpu_lpart *vgpu_lpart(struct vgpu_prog *prog)
{
	return container_of(prog, struct vgpu_lpart, prog);
}

/* The warp slot of warp @k of work-group slot @r: one SM per group. */
static u32 vgpu_launch_slot(struct vgpu *vgpu, struct vgpu_launch *l, u32 r,
			    u32 k)
{
	u32 nsm = vgpu->tpcs * vgpu->sms, sm = r % nsm;
	u32 nth = (r / nsm) * l->wpg + k;

	return sm % vgpu->tpcs + vgpu->tpcs * (sm / vgpu->tpcs +
					       vgpu->sms * nth);
}

/* rv_group.global: a work-item's access to global memory. */
static int vgpu_launch_global(void *env, struct rv_mem *m)
{
	struct vgpu_wg *wg = env;
	s64 ret = vgpu_warp_access(wg->cur, m);

	if (ret > 0)
		return RV_MEM_OK;
	return ret ? RV_MEM_STOP : RV_MEM_STALL;
}

/**
 * vgpu_launch_start() - a launch starts on its GPC: its warps, placed
 * @gpc: the GPC
 * @prog: the program; @prog->launch set, its context loaded
 *
 * Context: the GPC thread.
 */
void vgpu_launch_start(struct vgpu_gpc *gpc, struct vgpu_prog *prog)
{
	struct vgpu_lpart *part = vgpu_lpart(prog);
	struct vgpu_launch *l = prog->launch;
	struct vgpu *vgpu = gpc->vgpu;
	u32 r, k;

	prog->live = 1;
	for (r = 0; r < part->resident; r++) {
		struct vgpu_wg *wg = &part->wgs[r];

		wg->warps = &prog->warps[r * l->wpg];
		wg->sm = r % (vgpu->tpcs * vgpu->sms);
		for (k = 0; k < l->wpg; k++) {
			struct vgpu_warp *w = &wg->warps[k];

			w->gpc = gpc;
			w->prog = prog;
			w->index = r * l->wpg + k;
			w->wg = wg;
			w->lane0 = k * VGPU_WARP_SIZE;
			INIT_LIST_HEAD(&w->stall_node);
			vgpu_warp_place(vgpu, w, vgpu_launch_slot(vgpu, l, r, k));
		}
	}
}

static void vgpu_wg_csr(struct vgpu_wg *wg, u32 csr, u32 d, u64 val)
{
	wg->g.csr[csr - NVSVM_GPU_CSR_GLOBAL_ID + d] = val;
}

/*
 * Start the next work-group in slot @wg if there is one and its warp
 * slots are free: all of them at once. True when it started.
 */
static bool vgpu_wg_start(struct vgpu_prog *prog, struct vgpu_wg *wg)
{
	struct vgpu_launch *l = prog->launch;
	struct vgpu_gpc *gpc = prog->gpc;
	u64 id, gid[3];
	u32 ls[3], i, d;

	if (atomic64_read(&l->next) >= l->groups)
		return false;
	for (i = 0; i < l->wpg; i++)
		if (gpc->slots[wg->warps[i].slot])
			return false;
	/* Another GPC's part may have taken the last one meanwhile. */
	id = atomic64_fetch_inc(&l->next);
	if (id >= l->groups)
		return false;
	for (i = 0; i < l->wpg; i++) {
		gpc->slots[wg->warps[i].slot] = &wg->warps[i];
		wg->warps[i].has_slot = true;
	}

	id = div64_u64_rem(id, l->ngroups[0], &gid[0]);
	gid[2] = div64_u64_rem(id, l->ngroups[1], &gid[1]);
	for (d = 0; d < 3; d++) {
		/* The last group of a dimension may be smaller. */
		ls[d] = min_t(u64, l->lsize[d],
			      l->gsize[d] - gid[d] * l->lsize[d]);
		vgpu_wg_csr(wg, NVSVM_GPU_CSR_GROUP_ID, d, gid[d]);
		vgpu_wg_csr(wg, NVSVM_GPU_CSR_LOCAL_SIZE, d, ls[d]);
		vgpu_wg_csr(wg, NVSVM_GPU_CSR_ENQUEUED_LOCAL_SIZE, d,
			    l->lsize[d]);
		vgpu_wg_csr(wg, NVSVM_GPU_CSR_GLOBAL_SIZE, d, l->gsize[d]);
		vgpu_wg_csr(wg, NVSVM_GPU_CSR_NUM_GROUPS, d, l->ngroups[d]);
		vgpu_wg_csr(wg, NVSVM_GPU_CSR_GLOBAL_OFFSET, d, l->offset[d]);
	}
	vgpu_wg_csr(wg, NVSVM_GPU_CSR_WORK_DIM, 0, l->dim);
	vgpu_wg_csr(wg, NVSVM_GPU_CSR_GPC_ID, 0, gpc->id);
	vgpu_wg_csr(wg, NVSVM_GPU_CSR_SM_ID, 0, wg->sm);

	wg->items = ls[0] * ls[1] * ls[2];
	wg->live = wg->items;
	wg->waiting = 0;
	if (l->local_mem)
		memset(wg->local, 0, l->local_mem);
	for (i = 0; i < wg->items; i++) {
		struct rv_hart *h = &wg->harts[i];

		rv_hart_init(h, &wg->g, l->entry);
		h->insns = 0;
		h->budget = l->budget;
		h->lid[0] = i % ls[0];
		h->lid[1] = (i / ls[0]) % ls[1];
		h->lid[2] = i / (ls[0] * ls[1]);
		h->priv = wg->priv + (size_t)i * l->priv_mem;
		wg->state[i] = VGPU_ITEM_RUN;
	}
	wg->active = true;
	return true;
}

/* The work-group in slot @wg ended (or the launch stopped): its slots go. */
static void vgpu_wg_end(struct vgpu_prog *prog, struct vgpu_wg *wg)
{
	struct vgpu_launch *l = prog->launch;
	u32 i;

	for (i = 0; i < l->wpg; i++) {
		struct vgpu_warp *w = &wg->warps[i];

		if (w->has_slot) {
			prog->gpc->slots[w->slot] = NULL;
			w->has_slot = false;
		}
		vgpu_warp_lockout_end(w);
		w->hart = NULL;
	}
	for (i = 0; i < wg->items; i++)
		atomic64_add(wg->harts[i].insns, &l->insns);
	if (!wg->live)
		atomic64_inc(&l->groups_done);
	wg->active = false;
}

/* A work-item trapped: the launch fails, its channel enters the error state. */
static void vgpu_launch_trap(struct vgpu_prog *prog, const struct rv_trap *t)
{
	if (prog->status == NVSVM_EXEC_OK) {
		prog->status = NVSVM_EXEC_TRAP;
		prog->fault_addr = t->tval;
		prog->fault_pc = t->pc;
		vgpu_lpart(prog)->trap = t->cause;
	}
	vgpu_chan_set_error(prog->vchan);
}

/*
 * One turn of warp @w: each of its running work-items a quantum, until
 * one stalls on a fault (the warp stalls with it). Returns 1 when it
 * retired an instruction, 0 when it waits, -1 when the launch stops.
 */
static int vgpu_launch_warp(struct vgpu_warp *w)
{
	struct vgpu_wg *wg = w->wg;
	u32 end = min(w->lane0 + VGPU_WARP_SIZE, wg->items);
	int ret, did = 0;
	struct rv_trap trap;
	u32 i;

	if (w->lane0 >= wg->items)
		return 0;
	ret = vgpu_warp_resume(w);
	if (ret <= 0)
		return ret;
	/* Its micro-TLB is in lockdown: it waits for the cancel or replay. */
	if (vgpu_warp_locked_out(w))
		return 0;

	wg->cur = w;
	for (i = w->lane0; i < end; i++) {
		struct rv_hart *h = &wg->harts[i];
		u64 before = h->insns;

		if (wg->state[i] != VGPU_ITEM_RUN)
			continue;
		w->hart = h;
		ret = rv_run(h, &wg->g, VGPU_LAUNCH_QUANTUM, &trap);
		if (h->insns != before)
			did = 1;
		switch (ret) {
		case RV_STOP_QUANTUM:
			break;
		case RV_STOP_BARRIER:
			wg->state[i] = VGPU_ITEM_BARRIER;
			wg->waiting++;
			break;
		case RV_STOP_EXIT:
			wg->state[i] = VGPU_ITEM_DONE;
			wg->live--;
			break;
		case RV_STOP_STALL:
			/* The warp stalls: its other work-items wait too. */
			return did;
		case RV_STOP_TRAP:
			vgpu_launch_trap(w->prog, &trap);
			return -1;
		default:
			return -1;
		}
	}
	return did;
}

/* Every running work-item of @wg waits at a barrier: they all go on. */
static void vgpu_wg_barrier(struct vgpu_wg *wg)
{
	u32 i;

	if (!wg->waiting || wg->waiting != wg->live)
		return;
	/* What each wrote before the barrier, the others see after it. */
	smp_mb();
	for (i = 0; i < wg->items; i++)
		if (wg->state[i] == VGPU_ITEM_BARRIER)
			wg->state[i] = VGPU_ITEM_RUN;
	wg->waiting = 0;
}

/* The launch stops: every warp leaves its stall, every group its slots. */
static void vgpu_launch_stop(struct vgpu_prog *prog)
{
	struct vgpu_lpart *part = vgpu_lpart(prog);
	struct vgpu_launch *l = prog->launch;
	u32 r, k;

	for (r = 0; r < part->resident; r++) {
		struct vgpu_wg *wg = &part->wgs[r];

		if (!wg->active)
			continue;
		for (k = 0; k < l->wpg; k++)
			if (READ_ONCE(wg->warps[k].stall) != VGPU_STALL_NONE)
				vgpu_fault_release(&wg->warps[k]);
		vgpu_wg_end(prog, wg);
	}
	prog->live = 0;
}

/**
 * vgpu_launch_round() - one round of a launch: each warp one turn
 * @prog: the program; @prog->launch set
 *
 * Starts work-groups in the free slots, runs every warp of the running
 * ones, releases barriers, ends the groups whose work-items all ended;
 * sets @prog->live to 0 once no group is left, or when it stops.
 *
 * Context: the GPC thread.
 * Return: true when something happened (another round may do more).
 */
bool vgpu_launch_round(struct vgpu_prog *prog)
{
	struct vgpu_lpart *part = vgpu_lpart(prog);
	struct vgpu_launch *l = prog->launch;
	bool busy = false, running = false;
	u32 r, k;

	if (!prog->live)
		return false;
	if (vgpu_prog_stopped(prog)) {
		vgpu_launch_stop(prog);
		return true;
	}
	for (r = 0; r < part->resident; r++) {
		struct vgpu_wg *wg = &part->wgs[r];
		int ret = 0;

		if (!wg->active && !vgpu_wg_start(prog, wg))
			continue;
		for (k = 0; k < l->wpg && ret >= 0; k++) {
			ret = vgpu_launch_warp(&wg->warps[k]);
			if (ret)
				busy = true;
		}
		if (ret < 0) {
			vgpu_launch_stop(prog);
			return true;
		}
		vgpu_wg_barrier(wg);
		if (!wg->live) {
			vgpu_wg_end(prog, wg);
			busy = true;
		} else {
			running = true;
		}
		/*
		 * A launch's round is long: its faults are raised at the end
		 * of each group's turn, not of the round.
		 */
		if (prog->gpc->intr) {
			prog->gpc->intr = false;
			vgpu_fault_intr_pending(prog->gpc->vgpu);
		}
		cond_resched();
	}
	if (!running && atomic64_read(&l->next) >= l->groups) {
		prog->live = 0;
		busy = true;
	}
	return busy;
}

static void vgpu_launch_free(struct vgpu_launch *l)
{
	u32 i, r;

	if (!l)
		return;
	for (i = 0; l->parts && i < l->nparts; i++) {
		struct vgpu_lpart *part = &l->parts[i];

		for (r = 0; part->wgs && r < part->resident; r++) {
			kvfree(part->wgs[r].harts);
			kvfree(part->wgs[r].state);
			kvfree(part->wgs[r].local);
			kvfree(part->wgs[r].priv);
		}
		kvfree(part->wgs);
	}
	kvfree(l->parts);
	kvfree(l->param);
	if (!IS_ERR_OR_NULL(l->rv))
		rv_prog_free(l->rv);
	kfree(l);
}

/* The NDRange of @a into @l; -EINVAL when it is not one. */
static int vgpu_launch_range(struct vgpu_launch *l,
			     const struct nvsvm_launch *a)
{
	u64 items = 1, end;
	u32 d;

	if (a->work_dim < 1 || a->work_dim > 3)
		return -EINVAL;
	l->dim = a->work_dim;
	l->groups = 1;
	for (d = 0; d < 3; d++) {
		if (d >= a->work_dim) {
			/* Unused dimensions are zero, and read as OpenCL says. */
			if (a->global_size[d] || a->local_size[d] ||
			    a->global_offset[d])
				return -EINVAL;
			l->gsize[d] = 1;
			l->lsize[d] = 1;
			l->ngroups[d] = 1;
			continue;
		}
		if (!a->global_size[d] || !a->local_size[d] ||
		    check_add_overflow(a->global_offset[d], a->global_size[d],
				       &end) || end > VGPU_LAUNCH_MAX_GLOBAL)
			return -EINVAL;
		l->offset[d] = a->global_offset[d];
		l->gsize[d] = a->global_size[d];
		l->lsize[d] = a->local_size[d];
		l->ngroups[d] = DIV_ROUND_UP_ULL(l->gsize[d], l->lsize[d]);
		items *= l->lsize[d];
		if (items > NVSVM_LAUNCH_MAX_GROUP ||
		    check_mul_overflow(l->groups, l->ngroups[d], &l->groups))
			return -EINVAL;
	}
	if (l->groups > VGPU_LAUNCH_MAX_GROUPS)
		return -EINVAL;
	l->group_items = items;
	l->wpg = DIV_ROUND_UP(l->group_items, VGPU_WARP_SIZE);
	return 0;
}

static int vgpu_launch_check(struct vgpu *vgpu, const struct nvsvm_launch *a)
{
	if (a->flags || !a->timeout_ms ||
	    (a->timeout_ms > VGPU_LAUNCH_TIMEOUT_MAX &&
	     a->timeout_ms != NVSVM_LAUNCH_NO_TIMEOUT) ||
	    (a->gpc != NVSVM_GPC_ANY && a->gpc != NVSVM_GPC_ALL &&
	     a->gpc >= vgpu->gpc_count) ||
	    a->image_size < 4 || a->image_size > NVSVM_LAUNCH_MAX_IMAGE ||
	    a->image_size % 4 || a->entry % 4 || a->entry >= a->image_size ||
	    a->param_size > NVSVM_LAUNCH_MAX_PARAM ||
	    a->local_mem > NVSVM_LAUNCH_MAX_LOCAL || a->local_mem % 8 ||
	    a->priv_mem > NVSVM_LAUNCH_MAX_PRIV || a->priv_mem % 16 ||
	    a->insn_budget > NVSVM_LAUNCH_MAX_BUDGET)
		return -EINVAL;
	return 0;
}

/*
 * How many GPCs run it (@gpc: one, or NVSVM_GPC_ALL), and how many
 * work-groups each runs at once: as many as a GPC's SMs have warp slots
 * for, and the memory limit allows. -E2BIG when not even one group fits.
 */
static int vgpu_launch_size(struct vgpu *vgpu, struct vgpu_launch *l, u32 gpc)
{
	u64 per_group, fit_mem;
	u32 fit, i;

	if (l->wpg > vgpu->warps_per_sm)
		return -E2BIG;
	per_group = l->local_mem + (u64)l->group_items *
		    (l->priv_mem + sizeof(struct rv_hart) + 1);
	fit_mem = div64_u64(VGPU_LAUNCH_MEM_MAX, per_group);
	if (!fit_mem)
		return -E2BIG;
	l->nparts = gpc == NVSVM_GPC_ALL ? vgpu->gpc_count : 1;
	l->nparts = min_t(u64, l->nparts, min(l->groups, fit_mem));
	fit = vgpu->tpcs * vgpu->sms * (vgpu->warps_per_sm / l->wpg);
	fit = min_t(u64, fit, div64_u64(fit_mem, l->nparts));
	fit = min_t(u64, fit, VGPU_LAUNCH_RESIDENT);
	fit = min_t(u64, fit, DIV_ROUND_UP_ULL(l->groups, l->nparts));

	l->parts = kvcalloc(l->nparts, sizeof(*l->parts), VGPU_GFP_USER);
	if (!l->parts)
		return -ENOMEM;
	for (i = 0; i < l->nparts; i++) {
		l->parts[i].l = l;
		l->parts[i].resident = fit;
	}
	return 0;
}

/* The state of a part's resident work-groups. */
static int vgpu_lpart_alloc(struct vgpu_launch *l, struct vgpu_lpart *part)
{
	u32 r;

	part->wgs = kvcalloc(part->resident, sizeof(*part->wgs),
			     VGPU_GFP_USER);
	if (!part->wgs)
		return -ENOMEM;
	for (r = 0; r < part->resident; r++) {
		struct vgpu_wg *wg = &part->wgs[r];

		wg->l = l;
		wg->harts = kvcalloc(l->group_items, sizeof(*wg->harts),
				     VGPU_GFP_USER);
		wg->state = kvcalloc(l->group_items, 1, VGPU_GFP_USER);
		/* Zeroed: no kernel data reaches a program. */
		if (l->local_mem)
			wg->local = kvzalloc(l->local_mem, VGPU_GFP_USER);
		if (l->priv_mem)
			wg->priv = kvzalloc(array_size(l->group_items,
						       l->priv_mem),
					    VGPU_GFP_USER);
		if (!wg->harts || !wg->state ||
		    (l->local_mem && !wg->local) ||
		    (l->priv_mem && !wg->priv))
			return -ENOMEM;
		wg->g = (struct rv_group){
			.prog = l->rv,
			.param = l->param,
			.param_size = l->param_size,
			.local = wg->local,
			.local_size = l->local_mem,
			.priv_size = l->priv_mem,
			.global = vgpu_launch_global,
			.env = wg,
		};
	}
	part->prog.launch = l;
	part->prog.nwarps = part->resident * l->wpg;
	return 0;
}

/* The program, its arguments and its parts' resident groups. */
static int vgpu_launch_alloc(struct vgpu_launch *l, const struct nvsvm_launch *a)
{
	void *image;
	u32 i;
	int ret;

	image = kvmalloc(a->image_size, VGPU_GFP_USER);
	if (!image)
		return -ENOMEM;
	if (copy_from_user(image, u64_to_user_ptr(a->image), a->image_size)) {
		kvfree(image);
		return -EFAULT;
	}
	l->rv = rv_prog_load(image, a->image_size, VGPU_GFP_USER);
	kvfree(image);
	if (IS_ERR(l->rv))
		return PTR_ERR(l->rv);

	if (a->param_size) {
		l->param = kvmalloc(a->param_size, VGPU_GFP_USER);
		if (!l->param)
			return -ENOMEM;
		if (copy_from_user(l->param, u64_to_user_ptr(a->param),
				   a->param_size))
			return -EFAULT;
	}
	for (i = 0; i < l->nparts; i++) {
		ret = vgpu_lpart_alloc(l, &l->parts[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Submit every part, and wait for all of them: when one times out or a
 * fatal signal comes, the others are stopped too. Returns 0 (outcome in
 * the parts) or -EINTR.
 */
static int vgpu_launch_run(struct vgpu_chan *vchan, struct vgpu_launch *l,
			   const struct nvsvm_launch *a)
{
	bool forever = a->timeout_ms == NVSVM_LAUNCH_NO_TIMEOUT;
	unsigned long deadline = jiffies +
		msecs_to_jiffies(forever ? 0 : a->timeout_ms);
	u32 i, n, gpc = a->gpc == NVSVM_GPC_ALL ? 0 : a->gpc;
	int ret = 0;

	for (n = 0; n < l->nparts; n++) {
		struct vgpu_prog *prog = &l->parts[n].prog;

		if (READ_ONCE(vchan->error) ||
		    vgpu_prog_submit(vchan, prog, a->gpc == NVSVM_GPC_ALL ?
				     gpc + n : gpc)) {
			prog->status = NVSVM_EXEC_CHANNEL_ERROR;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		struct vgpu_prog *prog = &l->parts[i].prog;
		long left = (long)(deadline - jiffies);

		if (ret || (!forever && left <= 0) || n < l->nparts) {
			vgpu_prog_abort(prog, ret || n < l->nparts ?
					NVSVM_EXEC_CHANNEL_ERROR :
					NVSVM_EXEC_TIMEOUT);
			wait_for_completion(&prog->done);
		} else {
			ret = vgpu_prog_wait(prog, forever ? a->timeout_ms :
					     max(jiffies_to_msecs(left), 1U),
					     true);
		}
		vgpu_prog_reap(prog);
	}
	return ret;
}

/* How telling a part's status is: the launch reports the most telling. */
static int vgpu_status_rank(u32 status)
{
	switch (status) {
	case NVSVM_EXEC_OK:
		return 0;
	case NVSVM_EXEC_CHANNEL_ERROR:
		return 1;
	case NVSVM_EXEC_TIMEOUT:
		return 2;
	default:
		return 3;
	}
}

static void vgpu_launch_outcome(struct vgpu_launch *l, struct nvsvm_launch *a)
{
	struct vgpu_lpart *best = &l->parts[0];
	u32 i;

	for (i = 1; i < l->nparts; i++)
		if (vgpu_status_rank(l->parts[i].prog.status) >
		    vgpu_status_rank(best->prog.status))
			best = &l->parts[i];
	a->status = best->prog.status;
	a->fault_addr = best->prog.fault_addr;
	a->fault_access = best->prog.fault_access;
	a->fault_pc = best->prog.fault_pc;
	a->trap = a->status == NVSVM_EXEC_TRAP ? best->trap : NVSVM_TRAP_NONE;
	a->insns = atomic64_read(&l->insns);
	a->groups_done = atomic64_read(&l->groups_done);
}

static int vgpu_launch(struct vgpu *vgpu, struct vgpu_chan *vchan,
		       struct nvsvm_launch *a)
{
	struct vgpu_launch *l;
	int ret;

	ret = vgpu_launch_check(vgpu, a);
	if (ret)
		return ret;
	l = kzalloc(sizeof(*l), VGPU_GFP_USER);
	if (!l)
		return -ENOMEM;
	l->entry = a->entry;
	l->param_size = a->param_size;
	l->local_mem = a->local_mem;
	l->priv_mem = a->priv_mem;
	l->budget = a->insn_budget ?: NVSVM_LAUNCH_DEFAULT_BUDGET;
	ret = vgpu_launch_range(l, a);
	if (!ret)
		ret = vgpu_launch_size(vgpu, l, a->gpc);
	if (!ret)
		ret = vgpu_launch_alloc(l, a);
	if (!ret)
		ret = vgpu_launch_run(vchan, l, a);
	if (!ret) {
		vgpu_launch_outcome(l, a);
		atomic64_add(a->insns, &vgpu->ctr.insns);
	}
	vgpu_launch_free(l);
	return ret;
}

/**
 * vgpu_ioctl_launch() - NVSVM_IOCTL_LAUNCH (struct nvsvm_gpu_ioctl)
 * @gpu: the GPU
 * @nf: the calling file, whose channel handle @uarg names
 * @uarg: user pointer to struct nvsvm_launch; (out) fields written back
 *
 * Context: process; sleeps.
 * Return: 0 (outcome in the status field), -EFAULT, -EINVAL, -E2BIG,
 * -ENOENT for an unknown handle, -ENODEV, -ENOMEM, or -EINTR when a fatal
 * signal stopped the program.
 */
long vgpu_ioctl_launch(struct nvsvm_gpu *gpu, struct nvsvm_file *nf,
		       void __user *uarg)
{
	struct nvsvm_launch args;
	struct nvsvm_chan *chan;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	chan = nvsvm_file_chan_get(nf, args.handle);
	if (!chan)
		return -ENOENT;
	if (chan->provider_data)
		ret = vgpu_launch(to_vgpu(gpu), chan->provider_data, &args);
	else
		ret = -ENODEV;
	nvsvm_file_chan_put(chan);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}
