// SPDX-License-Identifier: GPL-2.0
/*
 * Replayable faults: the warp that faulted takes the 32-byte entry at PUT
 * of the fault buffer (in memory the driver allocated and programmed
 * through 0x2a70/0x2a74), advances PUT and stalls its access until a
 * REPLAY (it retries at once), a CANCEL_TARGETED of its micro-TLB (it
 * fails) or the end of its program; its GPC raises the fault interrupt at
 * the end of the round and runs its other warps meanwhile. The entry itself, and
 * its VALID bit, are written only after the driver read PUT (and
 * fault_valid_delay_us more): the driver must wait for VALID
 * (docs/gp100.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
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
 * Write the entry warp @w took, if it has not yet: its body, then the info
 * word with VALID. Dropped when the buffer was disabled or moved since.
 * Caller holds reg_lock.
 */
static void vgpu_fault_complete(struct vgpu *vgpu, struct vgpu_warp *w)
{
	u64 pa = w->fb_addr + (u64)w->fb_slot * VGPU_FAULT_ENTRY_SIZE;
	struct page *page;
	__le32 *t;
	int i;

	lockdep_assert_held(&vgpu->reg_lock);
	if (!w->fb_pending)
		return;
	WRITE_ONCE(w->fb_pending, false);
	w->gpc->fb_pending--;
	if (!vgpu->fb_enable || vgpu->fb_addr != w->fb_addr ||
	    w->fb_slot >= vgpu->fb_entries)
		return;
	clear_bit(w->fb_slot, vgpu->fb_taken);
	page = vgpu_mem_page(vgpu, VGPU_MEM_SYS, pa);
	if (!page)
		return;
	t = kmap_local_page(page) + offset_in_page(pa);
	for (i = 0; i < 7; i++)
		WRITE_ONCE(t[i], cpu_to_le32(w->fb_words[i]));
	/* The entry body is visible before VALID. */
	dma_wmb();
	WRITE_ONCE(t[7], cpu_to_le32(w->fb_words[7]));
	kunmap_local(t);
}

/*
 * Take the entry at PUT for a fault of warp @w and advance PUT. The entry
 * is written later: after the driver read PUT and fault_valid_delay_us
 * more, or when the access stops stalling, whichever comes first; until
 * then the slot keeps whatever it held. Caller holds reg_lock.
 * Returns 0, -ENOSPC when the buffer is full (OVERFLOW set) or -ENODEV when
 * the buffer is disabled or not in memory.
 */
static int vgpu_fault_write(struct vgpu *vgpu, struct vgpu_warp *w, u64 inst,
			    u64 va, u32 access, u8 type)
{
	u32 n = vgpu->fb_entries, put = vgpu->fb_put;
	u64 pa = vgpu->fb_addr + (u64)put * VGPU_FAULT_ENTRY_SIZE;
	u64 now = ktime_get_ns();
	u32 *e = w->fb_words;

	lockdep_assert_held(&vgpu->reg_lock);
	if (!vgpu->fb_enable || put >= n || !vgpu_mem_page(vgpu, VGPU_MEM_SYS, pa))
		return -ENODEV;
	if ((put + 1) % n == vgpu->fb_get) {
		vgpu->fb_overflow = true;
		atomic64_inc(&vgpu->ctr.overflows);
		return -ENOSPC;
	}
	/* One entry in flight per warp: an older one is written now. */
	vgpu_fault_complete(vgpu, w);

	va &= PAGE_MASK;
	/* The aperture of the instance block: coherent system memory (2). */
	e[0] = (lower_32_bits(inst) & 0xfffff000U) | (VGPU_APER_PTE_SYS << 8);
	e[1] = upper_32_bits(inst);
	e[2] = lower_32_bits(va);
	e[3] = upper_32_bits(va);
	e[4] = lower_32_bits(now);
	e[5] = upper_32_bits(now);
	e[6] = VGPU_FAULT_ENGINE_GR;
	e[7] = VGPU_FAULT_VALID | (w->gpc->id << 24) | (access << 16) |
	       (w->client << 8) | type;
	w->fb_slot = put;
	w->fb_addr = vgpu->fb_addr;
	w->fb_seq = vgpu->put_reads;
	WRITE_ONCE(w->fb_pending, true);
	w->gpc->fb_pending++;
	set_bit(put, vgpu->fb_taken);
	vgpu->fb_put = (put + 1) % n;
	return 0;
}

/**
 * vgpu_fault_put_read() - the driver read PUT
 * @vgpu: the GPU; reg_lock held
 *
 * The warps whose entry is not written yet write it a little later.
 */
void vgpu_fault_put_read(struct vgpu *vgpu)
{
	u32 i;

	lockdep_assert_held(&vgpu->reg_lock);
	vgpu->put_reads++;
	for (i = 0; i < vgpu->gpc_count; i++)
		if (vgpu->gpcs[i].fb_pending)
			vgpu_gpc_kick(&vgpu->gpcs[i]);
}

/**
 * vgpu_fault_entries() - write the entries the driver may read by now
 * @gpc: the GPC; called by its thread after each round
 *
 * An entry taken before the driver's last read of PUT is written
 * fault_valid_delay_us after the thread first saw it so.
 */
void vgpu_fault_entries(struct vgpu_gpc *gpc)
{
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_warp *w;
	unsigned long flags;
	bool due = false;
	u64 now;

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	list_for_each_entry(w, &gpc->stalled, stall_node)
		if (w->fb_pending && w->fb_seq != vgpu->put_reads) {
			due = true;
			break;
		}
	if (!due) {
		gpc->due_at = 0;
		goto out;
	}
	now = ktime_get_ns();
	if (!gpc->due_at) {
		gpc->due_at = now + (u64)vgpu->fb_valid_delay_us * NSEC_PER_USEC;
		if (vgpu->fb_valid_delay_us)
			goto out;
	} else if (now < gpc->due_at) {
		goto out;
	}
	list_for_each_entry(w, &gpc->stalled, stall_node)
		if (w->fb_pending && w->fb_seq != vgpu->put_reads)
			vgpu_fault_complete(vgpu, w);
	gpc->due_at = 0;
out:
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
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
	u32 n = vgpu->fb_entries, i;

	lockdep_assert_held(&vgpu->reg_lock);
	if (!vgpu->fb_enable || get >= n || vgpu->fb_get >= n) {
		vgpu->fb_get = get;
		return;
	}
	for (i = vgpu->fb_get; i != get; i = (i + 1) % n) {
		u64 pa = vgpu->fb_addr + (u64)i * VGPU_FAULT_ENTRY_SIZE;
		struct page *page = vgpu_mem_page(vgpu, VGPU_MEM_SYS, pa);
		__le32 *w;
		u32 info;

		if (test_bit(i, vgpu->fb_taken)) {
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

/**
 * vgpu_fault_raise() - an access of a warp failed translation
 * @w: the warp (its GPC's lock not held)
 * @va: faulting address
 * @access: NVSVM_ACCESS_*
 * @type: fault type
 *
 * For a replayable channel, records the fault (or the overflow) and
 * stalls the warp until its access is replayed, cancelled or its program
 * stops; the GPC raises the interrupt at the end of its round. Otherwise
 * (no replay bits, or the fault buffer is disabled) the fault is fatal.
 *
 * Context: the GPC thread.
 * Return: 0 (the warp stalls), or -EFAULT when the access failed
 * (@w->prog's status set, channel in error).
 */
int vgpu_fault_raise(struct vgpu_warp *w, u64 va, u32 access, u8 type)
{
	struct vgpu_prog *prog = w->prog;
	struct vgpu_gpc *gpc = w->gpc;
	struct vgpu *vgpu = gpc->vgpu;
	unsigned long flags;
	int ret;

	atomic64_inc(&vgpu->ctr.faults);
	pr_debug("gpu%u: gpc%u tpc%u client %#x fault type %#x access %u at %#llx\n",
		 vgpu->index, gpc->id, w->tpc, w->client, type, access, va);
	if (!prog->ctx.replay) {
		vgpu_prog_fail(prog, va, access, NVSVM_EXEC_FATAL);
		return -EFAULT;
	}

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	ret = vgpu_fault_write(vgpu, w, prog->ctx.inst, va, access, type);
	if (ret != -ENODEV) {
		WRITE_ONCE(w->stall, VGPU_STALL_WAIT);
		w->stall_pdb = prog->ctx.pdb;
		w->stall_pdb_vram = prog->ctx.pdb_mem == VGPU_MEM_VRAM;
		w->stall_va = va;
		w->stall_access = access;
		w->stall_since = ktime_get_ns();
		list_add_tail(&w->stall_node, &gpc->stalled);
		vgpu->intr_pending = true;
		gpc->intr = true;
	}
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	if (ret == -ENODEV) {
		vgpu_prog_fail(prog, va, access, NVSVM_EXEC_FATAL);
		return -EFAULT;
	}
	return 0;
}

/*
 * The warp's stall ends: its length goes into stall_ns (the warp-time the
 * faults cost). Caller holds reg_lock.
 */
static void vgpu_fault_stall_end(struct vgpu *vgpu, struct vgpu_warp *w)
{
	if (!w->stall_since)
		return;
	atomic64_add(max_t(s64, ktime_get_ns() - w->stall_since, 0),
		     &vgpu->ctr.stall_ns);
	w->stall_since = 0;
}

/* The warp no longer holds its micro-TLB in lockdown. Caller holds reg_lock. */
static void vgpu_fault_unlock(struct vgpu_warp *w)
{
	if (w->locks) {
		w->locks = false;
		w->gpc->utlb[w->tpc].lockdown--;
	}
}

/**
 * vgpu_warp_locked_out() - does the warp's micro-TLB hold it in lockdown?
 * @w: a warp that is not stalled itself
 *
 * While another warp of its TPC keeps the micro-TLB in lockdown, @w
 * issues nothing: that wait is a stall on faults too, and goes into
 * lockdown_ns when it ends (here, or at vgpu_warp_lockout_end()).
 *
 * Context: the GPC thread.
 * Return: true when @w must wait.
 */
bool vgpu_warp_locked_out(struct vgpu_warp *w)
{
	if (READ_ONCE(w->gpc->utlb[w->tpc].lockdown)) {
		if (!w->lock_since)
			w->lock_since = ktime_get_ns();
		return true;
	}
	vgpu_warp_lockout_end(w);
	return false;
}

/**
 * vgpu_warp_lockout_end() - count the end of a warp's lockdown wait
 * @w: the warp; it issues again, or its program stopped
 *
 * Context: the GPC thread.
 */
void vgpu_warp_lockout_end(struct vgpu_warp *w)
{
	if (!w->lock_since)
		return;
	atomic64_add(max_t(s64, ktime_get_ns() - w->lock_since, 0),
		     &w->gpc->vgpu->ctr.lockdown_ns);
	w->lock_since = 0;
}

/**
 * vgpu_fault_release() - a warp leaves its stall
 * @w: the warp; replayed, cancelled, or its program stopped
 *
 * Its entry, if not written yet, is written now; the warp is off
 * gpc->stalled and its stall state is VGPU_STALL_NONE.
 *
 * Context: the GPC thread.
 */
void vgpu_fault_release(struct vgpu_warp *w)
{
	struct vgpu *vgpu = w->gpc->vgpu;
	unsigned long flags;

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	list_del_init(&w->stall_node);
	WRITE_ONCE(w->stall, VGPU_STALL_NONE);
	vgpu_fault_stall_end(vgpu, w);
	vgpu_fault_complete(vgpu, w);
	vgpu_fault_unlock(w);
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
}

/*
 * The stalled access of warp @w retries at once, in the replay's register
 * write: true when it may go on (it translates now, or fails in a way the
 * GPC reports itself), false when it faulted again (a new entry, or
 * OVERFLOW) and stays stalled. One that may go on is issued again
 * replay_delay_us later, translated again then (vgpu_fault_unstall()).
 */
static bool vgpu_fault_retry(struct vgpu *vgpu, struct vgpu_warp *w)
{
	struct vgpu_prog *prog = w->prog;
	struct vgpu_gpc *gpc = w->gpc;
	struct vgpu_xlat x;
	bool ok;
	int ret;

	if (READ_ONCE(prog->abort) || READ_ONCE(prog->vchan->error))
		return true;
	spin_lock(&gpc->lock);
	ok = vgpu_mmu_translate(gpc, w->tpc, &prog->ctx, w->stall_va,
				w->stall_access, &x);
	spin_unlock(&gpc->lock);
	if (ok || x.fatal)
		return true;
	atomic64_inc(&vgpu->ctr.faults);
	atomic64_inc(&vgpu->ctr.refaults);
	ret = vgpu_fault_write(vgpu, w, prog->ctx.inst, w->stall_va,
			       w->stall_access, x.fault);
	if (ret == -ENODEV)
		return true;
	/* The context may have been reloaded: a cancel names its PDB now. */
	w->stall_pdb = prog->ctx.pdb;
	w->stall_pdb_vram = prog->ctx.pdb_mem == VGPU_MEM_VRAM;
	vgpu->intr_pending = true;
	/* Its fault came back: the micro-TLB takes no new access. */
	if (!w->locks) {
		w->locks = true;
		gpc->utlb[w->tpc].lockdown++;
	}
	return false;
}

/*
 * Warp @w leaves its stall with @state; its GPC thread takes it on. A
 * replayed access is issued again replay_delay_us from now: until then a
 * CPU access may take its page back, as on hardware, where the SM issues
 * it again when it gets to it.
 */
static void vgpu_fault_unstall(struct vgpu *vgpu, struct vgpu_warp *w,
			       int state)
{
	u32 delay = min_t(u32, READ_ONCE(vgpu_replay_delay_us),
			  VGPU_MAX_REPLAY_DELAY_US);

	list_del_init(&w->stall_node);
	vgpu_fault_stall_end(vgpu, w);
	vgpu_fault_complete(vgpu, w);
	vgpu_fault_unlock(w);
	w->retry_at = state == VGPU_STALL_REPLAY && delay ?
		      ktime_get_ns() + (u64)delay * NSEC_PER_USEC : 0;
	/* @retry_at before the state that makes the thread read it. */
	smp_store_release(&w->stall, state);
	vgpu_gpc_kick(w->gpc);
}

/**
 * vgpu_fault_replay() - every stalled access retries
 * @vgpu: the GPU; reg_lock held
 *
 * At once, warp by warp: an access whose translation still fails faults
 * again here (a new entry, the interrupt when the register write returns)
 * and stays stalled; the others go on.
 */
void vgpu_fault_replay(struct vgpu *vgpu)
{
	struct vgpu_warp *w, *tmp;
	LIST_HEAD(again);
	u32 i;

	lockdep_assert_held(&vgpu->reg_lock);
	for (i = 0; i < vgpu->gpc_count; i++) {
		struct vgpu_gpc *gpc = &vgpu->gpcs[i];

		list_for_each_entry_safe(w, tmp, &gpc->stalled, stall_node) {
			if (vgpu_fault_retry(vgpu, w))
				vgpu_fault_unstall(vgpu, w, VGPU_STALL_REPLAY);
			else
				list_move_tail(&w->stall_node, &again);
		}
		/* The accesses that faulted again, in the order they did. */
		list_splice_tail_init(&again, &gpc->stalled);
	}
}

/**
 * vgpu_fault_cancel() - the stalled accesses of one micro-TLB fail
 * @vgpu: the GPU; reg_lock held
 * @gpc: target GPC
 * @client: target client id: GPCCLIENT_T1_n names the micro-TLB of TPC
 *	n / SMs per TPC
 * @hub: target is a hub client
 * @all_pdb: whatever page directory the stalled access uses
 * @pdb_vram: else only an access whose context's PD3 is in video memory...
 * @pdb: ...or system memory, at this address
 *
 * Every stalled access of that micro-TLB (each SM of the TPC, each warp)
 * in a context with that PDB fails. A cancel aimed at a hub client or at a
 * client the GPC does not have matches nothing. A cancel aimed at one PDB
 * leaves an access of another context stalled on the same micro-TLB alone:
 * a fault entry the driver read may be older than what that TPC runs now.
 */
void vgpu_fault_cancel(struct vgpu *vgpu, u32 gpc, u32 client, bool hub,
		       bool all_pdb, bool pdb_vram, u64 pdb)
{
	struct vgpu_warp *w, *tmp;
	bool hit = false;
	u32 tpc;

	lockdep_assert_held(&vgpu->reg_lock);
	if (hub || client < VGPU_CLIENT_GPC_T1_0 ||
	    client - VGPU_CLIENT_GPC_T1_0 >= vgpu->tpcs * vgpu->sms ||
	    gpc >= vgpu->gpc_count)
		goto miss;
	tpc = (client - VGPU_CLIENT_GPC_T1_0) / vgpu->sms;
	list_for_each_entry_safe(w, tmp, &vgpu->gpcs[gpc].stalled, stall_node) {
		if (w->tpc != tpc)
			continue;
		if (!all_pdb && (w->stall_pdb != pdb ||
				 w->stall_pdb_vram != pdb_vram))
			continue;
		vgpu_fault_unstall(vgpu, w, VGPU_STALL_CANCEL);
		hit = true;
	}
	if (hit)
		return;
miss:
	atomic64_inc(&vgpu->ctr.cancel_misses);
}
