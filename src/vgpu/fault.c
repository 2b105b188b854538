// SPDX-License-Identifier: GPL-2.0
/*
 * Replayable faults: the GPC that faulted writes a 32-byte entry at PUT of
 * the fault buffer (in memory the driver allocated and programmed through
 * 0x2a70/0x2a74), advances PUT, raises the fault interrupt and stalls the
 * access until a REPLAY (it retries), a CANCEL_TARGETED that matches it (it
 * fails) or the abort of its program.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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
 * Write one entry at PUT and advance PUT. Caller holds reg_lock.
 * Returns 0, -ENOSPC when the buffer is full (OVERFLOW set) or -ENODEV when
 * the buffer is disabled or not in memory.
 */
static int vgpu_fault_write(struct vgpu *vgpu, u32 gpc, u64 inst, u64 va,
			    u32 access, u8 type)
{
	u32 n = vgpu->fb_entries, put = vgpu->fb_put;
	u64 pa = vgpu->fb_addr + (u64)put * VGPU_FAULT_ENTRY_SIZE;
	u64 now = ktime_get_ns();
	struct page *page;
	__le32 *w;

	lockdep_assert_held(&vgpu->reg_lock);
	if (!vgpu->fb_enable || put >= n)
		return -ENODEV;
	if ((put + 1) % n == vgpu->fb_get) {
		vgpu->fb_overflow = true;
		atomic64_inc(&vgpu->ctr.overflows);
		return -ENOSPC;
	}
	page = vgpu_mem_page(vgpu, VGPU_MEM_SYS, pa);
	if (!page)
		return -ENODEV;

	va &= PAGE_MASK;
	w = kmap_local_page(page) + offset_in_page(pa);
	/* The aperture of the instance block: coherent system memory (2). */
	WRITE_ONCE(w[0], cpu_to_le32((lower_32_bits(inst) & 0xfffff000U) |
				     (VGPU_APER_PTE_SYS << 8)));
	WRITE_ONCE(w[1], cpu_to_le32(upper_32_bits(inst)));
	WRITE_ONCE(w[2], cpu_to_le32(lower_32_bits(va)));
	WRITE_ONCE(w[3], cpu_to_le32(upper_32_bits(va)));
	WRITE_ONCE(w[4], cpu_to_le32(lower_32_bits(now)));
	WRITE_ONCE(w[5], cpu_to_le32(upper_32_bits(now)));
	WRITE_ONCE(w[6], cpu_to_le32(VGPU_FAULT_ENGINE_GR));
	/* The entry body is visible before VALID... */
	dma_wmb();
	WRITE_ONCE(w[7], cpu_to_le32(VGPU_FAULT_VALID | (gpc << 24) |
				     (access << 16) |
				     (VGPU_CLIENT_GPC_T1_0 << 8) | type));
	kunmap_local(w);
	/* ...and VALID before PUT moves. */
	wmb();
	vgpu->fb_put = (put + 1) % n;
	return 0;
}

static bool vgpu_stall_over(struct vgpu_gpc *gpc, struct vgpu_prog *prog)
{
	return READ_ONCE(gpc->stall) != VGPU_STALL_WAIT ||
	       READ_ONCE(prog->abort) || kthread_should_stop();
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

	atomic64_inc(&vgpu->ctr.faults);
	pr_debug("gpu%u: gpc%u fault type %#x access %u at %#llx\n",
		 vgpu->index, gpc->id, type, access, va);
	if (!prog->ctx.replay) {
		vgpu_fault_fail(prog, va, access, NVSVM_EXEC_FATAL);
		return -EFAULT;
	}

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	ret = vgpu_fault_write(vgpu, gpc->id, prog->ctx.inst, va, access, type);
	if (ret != -ENODEV) {
		gpc->stall = VGPU_STALL_WAIT;
		gpc->stall_pdb = prog->ctx.pdb;
		gpc->stall_pdb_vram = prog->ctx.pdb_mem == VGPU_MEM_VRAM;
	}
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	if (ret == -ENODEV) {
		vgpu_fault_fail(prog, va, access, NVSVM_EXEC_FATAL);
		return -EFAULT;
	}

	vgpu_fault_intr(vgpu);
	wait_event_idle(gpc->wq, vgpu_stall_over(gpc, prog));

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	stall = gpc->stall;
	gpc->stall = VGPU_STALL_NONE;
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

/**
 * vgpu_fault_replay() - every stalled access retries
 * @vgpu: the GPU; reg_lock held
 */
void vgpu_fault_replay(struct vgpu *vgpu)
{
	u32 i;

	lockdep_assert_held(&vgpu->reg_lock);
	for (i = 0; i < vgpu->gpc_count; i++) {
		struct vgpu_gpc *gpc = &vgpu->gpcs[i];

		if (gpc->stall == VGPU_STALL_WAIT) {
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
		return;
	g = &vgpu->gpcs[gpc];
	if (!all_pdb && (g->stall_pdb != pdb || g->stall_pdb_vram != pdb_vram))
		return;
	if (g->stall == VGPU_STALL_WAIT) {
		WRITE_ONCE(g->stall, VGPU_STALL_CANCEL);
		wake_up(&g->wq);
	}
}
