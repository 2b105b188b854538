// SPDX-License-Identifier: GPL-2.0
/*
 * Replayable faults: the GPC that faulted takes the 32-byte entry at PUT of
 * the fault buffer (in memory the driver allocated and programmed through
 * 0x2a70/0x2a74), advances PUT, raises the fault interrupt and stalls the
 * access until a REPLAY (it retries at once), a CANCEL_TARGETED that
 * matches it (it fails) or the abort of its program. The entry itself, and
 * its VALID bit, are written only after the driver read PUT (and
 * fault_valid_delay_us more): the driver must wait for VALID
 * (docs/gp100.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/timekeeping.h>

#include "vgpu.h"

/* Deliver the fault interrupt: to the self-test, or to the core. */
static void vgpu_fault_intr(struct vgpu *vgpu)
{
	void (*hook)(struct vgpu *vgpu) = READ_ONCE(vgpu->intr_hook);

	if (hook)
		hook(vgpu);
	else if (READ_ONCE(vgpu->registered))
		nvsvm_gpu_fault_intr(&vgpu->gpu);
}

/*
 * Write the entry @gpc took, if it has not yet: its body, then the info
 * word with VALID. Dropped when the buffer was disabled or moved since.
 * Caller holds reg_lock.
 */
static void vgpu_fault_complete(struct vgpu *vgpu, struct vgpu_gpc *gpc)
{
	u64 pa = gpc->fb_addr + (u64)gpc->fb_slot * VGPU_FAULT_ENTRY_SIZE;
	struct page *page;
	__le32 *w;
	int i;

	lockdep_assert_held(&vgpu->reg_lock);
	if (!gpc->fb_pending)
		return;
	WRITE_ONCE(gpc->fb_pending, false);
	if (!vgpu->fb_enable || vgpu->fb_addr != gpc->fb_addr ||
	    gpc->fb_slot >= vgpu->fb_entries)
		return;
	page = vgpu_mem_page(vgpu, VGPU_MEM_SYS, pa);
	if (!page)
		return;
	w = kmap_local_page(page) + offset_in_page(pa);
	for (i = 0; i < 7; i++)
		WRITE_ONCE(w[i], cpu_to_le32(gpc->fb_words[i]));
	/* The entry body is visible before VALID. */
	dma_wmb();
	WRITE_ONCE(w[7], cpu_to_le32(gpc->fb_words[7]));
	kunmap_local(w);
}

/*
 * Take the entry at PUT for a fault of @gpc and advance PUT. The entry is
 * written later: after the driver read PUT and fault_valid_delay_us more,
 * or when the access stops stalling, whichever comes first; until then the
 * slot keeps whatever it held. Caller holds reg_lock.
 * Returns 0, -ENOSPC when the buffer is full (OVERFLOW set) or -ENODEV when
 * the buffer is disabled or not in memory.
 */
static int vgpu_fault_write(struct vgpu *vgpu, struct vgpu_gpc *gpc, u64 inst,
			    u64 va, u32 access, u8 type)
{
	u32 n = vgpu->fb_entries, put = vgpu->fb_put;
	u64 pa = vgpu->fb_addr + (u64)put * VGPU_FAULT_ENTRY_SIZE;
	u64 now = ktime_get_ns();
	u32 *e = gpc->fb_words;

	lockdep_assert_held(&vgpu->reg_lock);
	if (!vgpu->fb_enable || put >= n || !vgpu_mem_page(vgpu, VGPU_MEM_SYS, pa))
		return -ENODEV;
	if ((put + 1) % n == vgpu->fb_get) {
		vgpu->fb_overflow = true;
		atomic64_inc(&vgpu->ctr.overflows);
		return -ENOSPC;
	}
	/* One entry in flight per GPC: an older one is written now. */
	vgpu_fault_complete(vgpu, gpc);

	va &= PAGE_MASK;
	/* The aperture of the instance block: coherent system memory (2). */
	e[0] = (lower_32_bits(inst) & 0xfffff000U) | (VGPU_APER_PTE_SYS << 8);
	e[1] = upper_32_bits(inst);
	e[2] = lower_32_bits(va);
	e[3] = upper_32_bits(va);
	e[4] = lower_32_bits(now);
	e[5] = upper_32_bits(now);
	e[6] = VGPU_FAULT_ENGINE_GR;
	e[7] = VGPU_FAULT_VALID | (gpc->id << 24) | (access << 16) |
	       (VGPU_CLIENT_GPC_T1_0 << 8) | type;
	gpc->fb_slot = put;
	gpc->fb_addr = vgpu->fb_addr;
	gpc->fb_seq = vgpu->put_reads;
	WRITE_ONCE(gpc->fb_pending, true);
	vgpu->fb_put = (put + 1) % n;
	return 0;
}

/**
 * vgpu_fault_put_read() - the driver read PUT
 * @vgpu: the GPU; reg_lock held
 *
 * The GPCs whose entry is not written yet write it a little later.
 */
void vgpu_fault_put_read(struct vgpu *vgpu)
{
	u32 i;

	lockdep_assert_held(&vgpu->reg_lock);
	vgpu->put_reads++;
	for (i = 0; i < vgpu->gpc_count; i++)
		if (vgpu->gpcs[i].fb_pending)
			wake_up(&vgpu->gpcs[i].wq);
}

/**
 * vgpu_fault_get_write() - the driver wrote GET
 * @vgpu: the GPU; reg_lock held
 * @get: the new GET
 *
 * Each entry GET moves past must have been written (its VALID bit came)
 * and read by the driver (who clears VALID): the model counts the entries
 * that were not (early_gets, valid_uncleared). The hardware does not check
 * this; it is how a driver that does not wait for VALID, or does not clear
 * it, fails a test deterministically.
 */
void vgpu_fault_get_write(struct vgpu *vgpu, u32 get)
{
	u32 n = vgpu->fb_entries, i, k;

	lockdep_assert_held(&vgpu->reg_lock);
	if (!vgpu->fb_enable || get >= n || vgpu->fb_get >= n) {
		vgpu->fb_get = get;
		return;
	}
	for (i = vgpu->fb_get; i != get; i = (i + 1) % n) {
		u64 pa = vgpu->fb_addr + (u64)i * VGPU_FAULT_ENTRY_SIZE;
		struct page *page = vgpu_mem_page(vgpu, VGPU_MEM_SYS, pa);
		bool pending = false;
		__le32 *w;
		u32 info;

		for (k = 0; k < vgpu->gpc_count && !pending; k++)
			pending = vgpu->gpcs[k].fb_pending &&
				  vgpu->gpcs[k].fb_slot == i &&
				  vgpu->gpcs[k].fb_addr == vgpu->fb_addr;
		if (pending) {
			atomic64_inc(&vgpu->ctr.early_gets);
			continue;
		}
		if (!page)
			continue;
		w = kmap_local_page(page) + offset_in_page(pa);
		info = le32_to_cpu(READ_ONCE(w[7]));
		kunmap_local(w);
		if (info & VGPU_FAULT_VALID)
			atomic64_inc(&vgpu->ctr.valid_uncleared);
	}
	vgpu->fb_get = get;
}

/**
 * vgpu_fault_intr_pending() - raise the interrupt a register write owed
 * @vgpu: the GPU; reg_lock not held
 */
void vgpu_fault_intr_pending(struct vgpu *vgpu)
{
	unsigned long flags;
	bool intr;

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	intr = vgpu->intr_pending;
	vgpu->intr_pending = false;
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	if (intr)
		vgpu_fault_intr(vgpu);
}

static bool vgpu_stall_over(struct vgpu_gpc *gpc, struct vgpu_prog *prog)
{
	return READ_ONCE(gpc->stall) != VGPU_STALL_WAIT ||
	       READ_ONCE(prog->abort) || kthread_should_stop();
}

/* The entry is taken, not written, and the driver read PUT since. */
static bool vgpu_entry_due(struct vgpu_gpc *gpc)
{
	return READ_ONCE(gpc->fb_pending) &&
	       READ_ONCE(gpc->vgpu->put_reads) != READ_ONCE(gpc->fb_seq);
}

static void vgpu_fault_fail(struct vgpu_prog *prog, u64 va, u32 access,
			    u32 status)
{
	prog->status = status;
	prog->fault_addr = va;
	prog->fault_access = access;
	vgpu_chan_set_error(prog->vchan);
}

/**
 * vgpu_fault_raise() - a GPC access failed translation
 * @gpc: the GPC (its lock not held)
 * @prog: the program it runs
 * @va: faulting address
 * @access: NVSVM_ACCESS_*
 * @type: fault type
 *
 * For a replayable channel, records the fault (or the overflow), raises
 * the interrupt and stalls until the access is replayed, cancelled or
 * aborted. Otherwise (no replay bits, or the fault buffer is disabled) the
 * fault is fatal.
 *
 * Context: the GPC thread; sleeps.
 * Return: 0 to retry the access; -EFAULT when it failed (@prog->status
 * set, channel in error); -EINTR when the program was aborted.
 */
int vgpu_fault_raise(struct vgpu_gpc *gpc, struct vgpu_prog *prog, u64 va,
		     u32 access, u8 type)
{
	struct vgpu *vgpu = gpc->vgpu;
	unsigned long flags;
	int ret, stall;
	u32 delay;

	atomic64_inc(&vgpu->ctr.faults);
	pr_debug("gpu%u: gpc%u fault type %#x access %u at %#llx\n",
		 vgpu->index, gpc->id, type, access, va);
	if (!prog->ctx.replay) {
		vgpu_fault_fail(prog, va, access, NVSVM_EXEC_FATAL);
		return -EFAULT;
	}

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	ret = vgpu_fault_write(vgpu, gpc, prog->ctx.inst, va, access, type);
	if (ret != -ENODEV) {
		gpc->stall = VGPU_STALL_WAIT;
		gpc->stall_pdb = prog->ctx.pdb;
		gpc->stall_pdb_vram = prog->ctx.pdb_mem == VGPU_MEM_VRAM;
		gpc->stall_prog = prog;
		gpc->stall_va = va;
		gpc->stall_access = access;
	}
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	if (ret == -ENODEV) {
		vgpu_fault_fail(prog, va, access, NVSVM_EXEC_FATAL);
		return -EFAULT;
	}

	vgpu_fault_intr(vgpu);
	for (;;) {
		wait_event_idle(gpc->wq, vgpu_stall_over(gpc, prog) ||
				vgpu_entry_due(gpc));
		if (vgpu_stall_over(gpc, prog))
			break;
		/* PUT was read: VALID comes a little later. */
		delay = READ_ONCE(vgpu->fb_valid_delay_us);
		if (delay)
			usleep_range(delay, delay + delay / 4 + 1);
		spin_lock_irqsave(&vgpu->reg_lock, flags);
		vgpu_fault_complete(vgpu, gpc);
		spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	}

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	stall = gpc->stall;
	gpc->stall = VGPU_STALL_NONE;
	gpc->stall_prog = NULL;
	vgpu_fault_complete(vgpu, gpc);
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);

	switch (stall) {
	case VGPU_STALL_REPLAY:
		return 0;
	case VGPU_STALL_CANCEL:
		vgpu_fault_fail(prog, va, access, NVSVM_EXEC_FAULT);
		return -EFAULT;
	default:
		return -EINTR;
	}
}

/*
 * The stalled access of @gpc retries at once, in the replay's register
 * write: true when it may go on (it translates now, or fails in a way the
 * GPC reports itself), false when it faulted again (a new entry, or
 * OVERFLOW) and stays stalled.
 */
static bool vgpu_fault_retry(struct vgpu *vgpu, struct vgpu_gpc *gpc)
{
	struct vgpu_prog *prog = gpc->stall_prog;
	struct vgpu_xlat x;
	bool ok;
	int ret;

	if (!prog || READ_ONCE(prog->abort) ||
	    READ_ONCE(prog->vchan->error))
		return true;
	spin_lock(&gpc->lock);
	ok = vgpu_mmu_translate(gpc, &prog->ctx, gpc->stall_va,
				gpc->stall_access, &x);
	spin_unlock(&gpc->lock);
	if (ok || x.fatal)
		return true;
	atomic64_inc(&vgpu->ctr.faults);
	atomic64_inc(&vgpu->ctr.refaults);
	ret = vgpu_fault_write(vgpu, gpc, prog->ctx.inst, gpc->stall_va,
			       gpc->stall_access, x.fault);
	if (ret == -ENODEV)
		return true;
	/* The context may have been reloaded: a cancel names its PDB now. */
	gpc->stall_pdb = prog->ctx.pdb;
	gpc->stall_pdb_vram = prog->ctx.pdb_mem == VGPU_MEM_VRAM;
	vgpu->intr_pending = true;
	return false;
}

/**
 * vgpu_fault_replay() - every stalled access retries
 * @vgpu: the GPU; reg_lock held
 *
 * At once: an access whose translation still fails faults again here (a
 * new entry, the interrupt when the register write returns) and stays
 * stalled; the others go on.
 */
void vgpu_fault_replay(struct vgpu *vgpu)
{
	u32 i;

	lockdep_assert_held(&vgpu->reg_lock);
	for (i = 0; i < vgpu->gpc_count; i++) {
		struct vgpu_gpc *gpc = &vgpu->gpcs[i];

		if (gpc->stall == VGPU_STALL_WAIT &&
		    vgpu_fault_retry(vgpu, gpc)) {
			WRITE_ONCE(gpc->stall, VGPU_STALL_REPLAY);
			wake_up(&gpc->wq);
		}
	}
}

/**
 * vgpu_fault_cancel() - the stalled accesses of one client fail
 * @vgpu: the GPU; reg_lock held
 * @gpc: target GPC
 * @client: target client id
 * @hub: target is a hub client
 * @all_pdb: whatever page directory the stalled access uses
 * @pdb_vram: else only an access whose context's PD3 is in video memory...
 * @pdb: ...or system memory, at this address
 *
 * Every GPC access is made by client GPCCLIENT_T1_0 with HUB = 0; a cancel
 * aimed at anything else matches nothing. A cancel aimed at one PDB leaves
 * an access of another context stalled on the same GPC alone: a fault entry
 * the driver read may be older than what that GPC runs now.
 */
void vgpu_fault_cancel(struct vgpu *vgpu, u32 gpc, u32 client, bool hub,
		       bool all_pdb, bool pdb_vram, u64 pdb)
{
	struct vgpu_gpc *g;

	lockdep_assert_held(&vgpu->reg_lock);
	if (hub || client != VGPU_CLIENT_GPC_T1_0 || gpc >= vgpu->gpc_count)
		goto miss;
	g = &vgpu->gpcs[gpc];
	if (!all_pdb && (g->stall_pdb != pdb || g->stall_pdb_vram != pdb_vram))
		goto miss;
	if (g->stall != VGPU_STALL_WAIT)
		goto miss;
	WRITE_ONCE(g->stall, VGPU_STALL_CANCEL);
	wake_up(&g->wq);
	return;
miss:
	atomic64_inc(&vgpu->ctr.cancel_misses);
}
