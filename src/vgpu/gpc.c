// SPDX-License-Identifier: GPL-2.0
/*
 * GPCs: one kernel thread each, running the warps of programs of memory
 * operations through the MMU model, round robin, one access per warp and
 * round: a warp whose access faults stalls, the others go on. A GPC never
 * touches user memory through uaccess: every byte it reads or writes is
 * reached by translating a GPU virtual address, and mapped one 4 KiB page
 * at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "vgpu.h"

/* What a GPC does with the bytes of one translated page. */
enum vgpu_xop {
	VGPU_XOP_READ,		/* copy to buf */
	VGPU_XOP_WRITE,		/* copy from buf */
	VGPU_XOP_FILL,		/* store val in every u64 */
	VGPU_XOP_ATOMIC,	/* atomic add val to the u64, old value in val */
	VGPU_XOP_ADD,		/* non-atomic add val to the u64 */
	VGPU_XOP_SUM,		/* add every u64 to val */
	VGPU_XOP_RV,		/* a program's load, store or atomic: rv */
};

/*
 * The most 4 KiB pieces of one TLB entry's page a streaming operation
 * (FILL, SUM) does under one hold of gpc->lock and one translation: an
 * invalidate waits for at most this much work, with interrupts off.
 */
#define VGPU_RUN_PAGES		16

struct vgpu_xfer {
	enum vgpu_xop op;
	void *buf;
	u64 val;
	struct rv_mem *rv;
};

static void vgpu_xfer_sparse(struct vgpu_xfer *t, u32 len)
{
	if (t->op == VGPU_XOP_READ)
		memset(t->buf, 0, len);
	else if (t->op == VGPU_XOP_ATOMIC)
		t->val = 0;
	else if (t->op == VGPU_XOP_RV)
		t->rv->val = 0;
}

static bool vgpu_xop_is_rmw(const struct vgpu_xfer *t)
{
	return t->op == VGPU_XOP_ATOMIC ||
	       (t->op == VGPU_XOP_RV && t->rv->kind == RV_AMO);
}

/*
 * A program's atomic on a word the GPU reaches coherently (video memory,
 * or system memory over a link coherent for atomics): a compare-and-swap
 * loop, so every operation of rv.h is exact against the CPU and the other
 * GPCs. Only 4- and 8-byte words (rv.c traps on the others).
 */
static u64 vgpu_amo_exact(const struct rv_mem *m, void *p)
{
	u64 old, new;

	if (m->size == 4) {
		u32 *q = p, o = READ_ONCE(*q);

		for (;;) {
			if (!rv_amo_new(m, o, &new))
				return o;
			old = cmpxchg(q, o, (u32)new);
			if (old == o)
				return o;
			o = old;
		}
	} else {
		u64 *q = p, o = READ_ONCE(*q);

		for (;;) {
			if (!rv_amo_new(m, o, &new))
				return o;
			old = cmpxchg64(q, o, new);
			if (old == o)
				return o;
			o = old;
		}
	}
}

/* A program's load or store of 1, 2, 4 or 8 naturally aligned bytes. */
static void vgpu_xfer_rv(struct rv_mem *m, void *p)
{
	if (m->kind == RV_AMO) {
		m->val = vgpu_amo_exact(m, p);
		return;
	}
	switch (m->size) {
	case 1:
		if (m->kind == RV_LOAD)
			m->val = READ_ONCE(*(u8 *)p);
		else
			WRITE_ONCE(*(u8 *)p, m->val);
		break;
	case 2:
		if (m->kind == RV_LOAD)
			m->val = READ_ONCE(*(u16 *)p);
		else
			WRITE_ONCE(*(u16 *)p, m->val);
		break;
	case 4:
		if (m->kind == RV_LOAD)
			m->val = READ_ONCE(*(u32 *)p);
		else
			WRITE_ONCE(*(u32 *)p, m->val);
		break;
	default:
		if (m->kind == RV_LOAD)
			m->val = READ_ONCE(*(u64 *)p);
		else
			WRITE_ONCE(*(u64 *)p, m->val);
		break;
	}
}

static void vgpu_xfer_mem(struct vgpu_xfer *t, void *p, u32 len)
{
	u64 *q = p;
	u32 i;

	switch (t->op) {
	case VGPU_XOP_READ:
		memcpy(t->buf, p, len);
		break;
	case VGPU_XOP_WRITE:
		memcpy(p, t->buf, len);
		break;
	case VGPU_XOP_FILL:
		for (i = 0; i < len / 8; i++)
			WRITE_ONCE(q[i], t->val);
		break;
	case VGPU_XOP_ATOMIC:
		t->val = atomic64_fetch_add(t->val, (atomic64_t *)p);
		break;
	case VGPU_XOP_ADD:
		WRITE_ONCE(*q, READ_ONCE(*q) + t->val);
		break;
	case VGPU_XOP_SUM:
		for (i = 0; i < len / 8; i++)
			t->val += READ_ONCE(q[i]);
		break;
	case VGPU_XOP_RV:
		vgpu_xfer_rv(t->rv, p);
		break;
	}
}

/* Only the operations without a buffer may go past the first page. */
static bool vgpu_xop_streams(enum vgpu_xop op)
{
	return op == VGPU_XOP_FILL || op == VGPU_XOP_SUM;
}

/*
 * A GPU atomic on system memory as a Pascal on PCIe does it
 * (sysmem_atomics=pcie): PCIe 3 gives a GPU no atomic operation on host
 * memory that the CPU would respect (CUDA reports hostNativeAtomicSupported
 * 0 there), so the L2 reads the word, adds, and writes the sum back. The
 * atomics of this GPU's GPCs are atomic among themselves (the L2
 * serialises them: vgpu->atomic_lock), but a CPU store, or another GPU's,
 * between the read and the write is lost. The window between the two is
 * the sysmem_atomic_window_us parameter, wide enough for a test to see it.
 *
 * Called with gpc->lock held, which the invalidate waits for: an RMW
 * through a translation an invalidate removes ends before the invalidate
 * returns, so the driver can make the page the GPU's alone (exclusive
 * access) for as long as it maps it with atomics.
 */
static void vgpu_atomic_pcie(struct vgpu *vgpu, void *p, struct vgpu_xfer *t)
{
	s64 inv = atomic64_read(&vgpu->ctr.invalidates);
	struct rv_mem *m = t->op == VGPU_XOP_RV ? t->rv : NULL;
	u64 *q = p, old, new, until;
	bool write = true;

	spin_lock(&vgpu->atomic_lock);
	if (m && m->size == 4)
		old = READ_ONCE(*(u32 *)p);
	else
		old = READ_ONCE(*q);
	if (m)
		write = rv_amo_new(m, old, &new);
	else
		new = old + t->val;
	WRITE_ONCE(vgpu->rmw_word, q);
	udelay(min_t(u32, READ_ONCE(vgpu_atomic_window_us),
		     VGPU_MAX_ATOMIC_WINDOW_US));
	/* Self-test only: keep the window open until an invalidate starts. */
	until = ktime_get_ns() + NSEC_PER_SEC;
	while (READ_ONCE(vgpu->rmw_hold) &&
	       atomic64_read(&vgpu->ctr.invalidates) == inv &&
	       ktime_get_ns() < until)
		cpu_relax();
	if (write && m && m->size == 4)
		WRITE_ONCE(*(u32 *)p, (u32)new);
	else if (write)
		WRITE_ONCE(*q, new);
	WRITE_ONCE(vgpu->rmw_word, NULL);
	spin_unlock(&vgpu->atomic_lock);
	if (m)
		m->val = old;
	else
		t->val = old;
	atomic64_inc(&vgpu->ctr.sysmem_rmws);
}

/*
 * The data of an access from @va whose first page @x translated, page by
 * page, for as long as the pages lie in the same TLB entry's page and at
 * most VGPU_RUN_PAGES of them. Returns the bytes done (at least the first
 * page's piece). Called with gpc->lock held.
 */
static u64 vgpu_xfer_run(struct vgpu *vgpu, const struct vgpu_xlat *x,
			 u64 va, u64 len, struct vgpu_xfer *t)
{
	u64 done = 0, pa = x->pa;
	struct page *page = x->page;
	unsigned int pages = 0;

	for (;;) {
		u32 n = min_t(u64, len - done, PAGE_SIZE - offset_in_page(pa));

		/* Counted before the data moves (docs/tracing.md). */
		atomic64_inc(&vgpu->ctr.accesses);
		if (x->sparse) {
			vgpu_xfer_sparse(t, n);
		} else {
			void *p = kmap_local_page(page);

			if (vgpu_xop_is_rmw(t) && x->mem == VGPU_MEM_SYS &&
			    vgpu->sysmem_pcie)
				vgpu_atomic_pcie(vgpu, p + offset_in_page(pa), t);
			else
				vgpu_xfer_mem(t, p + offset_in_page(pa), n);
			kunmap_local(p);
		}
		done += n;
		pa += n;
		if (done == len || ++pages == VGPU_RUN_PAGES ||
		    !vgpu_xop_streams(t->op) ||
		    (va + done) >> x->shift != va >> x->shift)
			return done;
		if (!x->sparse) {
			/* A page the aperture does not reach faults alone. */
			page = vgpu_mem_page(vgpu, x->mem, pa);
			if (!page)
				return done;
		}
	}
}

/**
 * vgpu_prog_stopped() - must a program stop?
 * @prog: the program
 *
 * It was aborted, or its channel entered the error state; its status says
 * why from now on.
 *
 * Context: the GPC thread.
 * Return: true when it must stop.
 */
bool vgpu_prog_stopped(struct vgpu_prog *prog)
{
	int abort = READ_ONCE(prog->abort);

	if (abort) {
		prog->status = abort;
		return true;
	}
	if (READ_ONCE(prog->vchan->error)) {
		if (prog->status == NVSVM_EXEC_OK)
			prog->status = NVSVM_EXEC_CHANNEL_ERROR;
		return true;
	}
	return false;
}

/**
 * vgpu_prog_fail() - an access of a program failed: the channel's error
 * @prog: the program
 * @va: address of the access
 * @access: its NVSVM_ACCESS_*
 * @status: enum nvsvm_exec_status to report, if none was yet
 *
 * Context: the GPC thread.
 */
void vgpu_prog_fail(struct vgpu_prog *prog, u64 va, u32 access, u32 status)
{
	if (prog->status == NVSVM_EXEC_OK) {
		prog->status = status;
		prog->fault_addr = va;
		prog->fault_access = access;
	}
	vgpu_chan_set_error(prog->vchan);
}

/*
 * One access of warp @w of up to @len bytes from @va: streaming operations
 * go on through the following pages of the same translation
 * (vgpu_xfer_run()). Returns the bytes done (> 0); 0 when the access
 * faulted and the warp stalls (its fault is recorded); a negative errno
 * when the program must stop (its status is set).
 */
static s64 vgpu_access(struct vgpu_warp *w, u64 va, u64 len, u32 access,
		       struct vgpu_xfer *t)
{
	struct vgpu_gpc *gpc = w->gpc;
	struct vgpu_prog *prog = w->prog;
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_xlat x;
	unsigned long flags;
	u64 done = 0;
	bool ok;

	if (vgpu_prog_stopped(prog))
		return -EINTR;

	spin_lock_irqsave(&gpc->lock, flags);
	ok = vgpu_mmu_translate(gpc, w->tpc, &prog->ctx, va, access, &x);
	if (ok)
		done = vgpu_xfer_run(vgpu, &x, va, len, t);
	spin_unlock_irqrestore(&gpc->lock, flags);

	if (ok)
		return done;
	if (x.fatal) {
		atomic64_inc(&vgpu->ctr.faults);
		vgpu_prog_fail(prog, va, access, NVSVM_EXEC_FATAL);
		return -EFAULT;
	}
	return vgpu_fault_raise(w, va, access, x.fault);
}

static u32 vgpu_page_left(u64 va)
{
	return PAGE_SIZE - offset_in_page(va);
}

/* One u64 access: > 0 done, 0 stalled, < 0 the program stops. */
static s64 vgpu_u64(struct vgpu_warp *w, u64 va, u32 access,
		    enum vgpu_xop xop, u64 *val)
{
	struct vgpu_xfer t = { .op = xop, .buf = val, .val = *val };
	s64 ret;

	ret = vgpu_access(w, va, 8, access, &t);
	if (ret > 0 && xop != VGPU_XOP_READ && xop != VGPU_XOP_WRITE)
		*val = t.val;
	return ret;
}

/* FILL and SUM: one run of the stream (vgpu_access()). */
static s64 vgpu_op_stream(struct vgpu_warp *w, struct nvsvm_op *op,
			  u32 access, struct vgpu_xfer *t)
{
	s64 n;

	if (w->pos == op->len)
		return 1;
	n = vgpu_access(w, op->addr + w->pos, op->len - w->pos, access, t);
	if (n <= 0)
		return n;
	w->pos += n;
	return w->pos == op->len;
}

/* One page piece of a COPY: read, then write; both again after a fault. */
static s64 vgpu_op_copy(struct vgpu_warp *w, struct nvsvm_op *op)
{
	struct vgpu_xfer rd = { .op = VGPU_XOP_READ, .buf = w->gpc->bounce };
	struct vgpu_xfer wr = { .op = VGPU_XOP_WRITE, .buf = w->gpc->bounce };
	u64 dst = op->addr + w->pos, src = op->src + w->pos;
	u32 n;
	s64 ret;

	if (w->pos == op->len)
		return 1;
	n = min_t(u64, op->len - w->pos,
		  min(vgpu_page_left(src), vgpu_page_left(dst)));
	/* Within one page of each: no short access. */
	ret = vgpu_access(w, src, n, NVSVM_ACCESS_READ, &rd);
	if (ret > 0)
		ret = vgpu_access(w, dst, n, NVSVM_ACCESS_WRITE, &wr);
	if (ret <= 0)
		return ret;
	w->pos += n;
	return w->pos == op->len;
}

/* An address the MMU refuses (VA limit) when node + offset wraps. */
static u64 vgpu_chase_addr(u64 node, u32 off)
{
	u64 va;

	if (check_add_overflow(node, (u64)off, &va))
		return ~7ULL;
	return va;
}

/* One node step of a CHASE: its data word, then its next pointer. */
static s64 vgpu_op_chase(struct vgpu_warp *w, struct nvsvm_op *op)
{
	u64 node = w->acc, val;
	s64 ret;

	if (!node || w->pos >= op->len)
		return 1;
	if (node & 7) {
		/* A misaligned node: the program stops, no MMU fault. */
		w->prog->status = NVSVM_EXEC_FAULT;
		w->prog->fault_addr = node;
		w->prog->fault_access = NVSVM_ACCESS_READ;
		return -EFAULT;
	}
	if (!w->phase) {
		val = op->value;
		ret = vgpu_u64(w, vgpu_chase_addr(node, op->off_data),
			       NVSVM_ACCESS_WRITE, VGPU_XOP_ADD, &val);
		if (ret <= 0)
			return ret;
		w->phase = 1;
	}
	ret = vgpu_u64(w, vgpu_chase_addr(node, op->off_next),
		       NVSVM_ACCESS_READ, VGPU_XOP_READ, &w->acc);
	if (ret <= 0)
		return ret;
	w->phase = 0;
	op->result = ++w->pos;
	return 0;
}

/*
 * One step of warp @w's operation: at most one access. Returns 1 when the
 * operation is complete, 0 when it goes on (or the warp stalled), a
 * negative errno when the program stops.
 */
static s64 vgpu_op_step(struct vgpu_warp *w, struct nvsvm_op *op)
{
	struct vgpu_xfer t;
	u64 val = op->value;
	s64 ret;

	if (!w->started) {
		w->started = true;
		w->pos = 0;
		w->acc = op->code == NVSVM_OP_CHASE ? op->addr : 0;
		w->phase = 0;
		if (op->code == NVSVM_OP_CHASE)
			op->result = 0;
	}
	switch (op->code) {
	case NVSVM_OP_READ:
		ret = vgpu_u64(w, op->addr, NVSVM_ACCESS_READ, VGPU_XOP_READ,
			       &val);
		if (ret > 0)
			op->result = val;
		return ret > 0 ? 1 : ret;
	case NVSVM_OP_WRITE:
		ret = vgpu_u64(w, op->addr, NVSVM_ACCESS_WRITE, VGPU_XOP_WRITE,
			       &val);
		return ret > 0 ? 1 : ret;
	case NVSVM_OP_ATOMIC_ADD:
		ret = vgpu_u64(w, op->addr, NVSVM_ACCESS_ATOMIC,
			       VGPU_XOP_ATOMIC, &val);
		if (ret > 0)
			op->result = val;
		return ret > 0 ? 1 : ret;
	case NVSVM_OP_FILL:
		t = (struct vgpu_xfer){ .op = VGPU_XOP_FILL, .val = op->value };
		return vgpu_op_stream(w, op, NVSVM_ACCESS_WRITE, &t);
	case NVSVM_OP_SUM:
		t = (struct vgpu_xfer){ .op = VGPU_XOP_SUM, .val = w->acc };
		ret = vgpu_op_stream(w, op, NVSVM_ACCESS_READ, &t);
		if (ret >= 0)
			w->acc = t.val;
		if (ret == 1)
			op->result = w->acc;
		return ret;
	case NVSVM_OP_COPY:
		return vgpu_op_copy(w, op);
	case NVSVM_OP_CHASE:
		return vgpu_op_chase(w, op);
	default:
		return 1;
	}
}

/**
 * vgpu_warp_place() - put a warp in a warp slot of its GPC
 * @vgpu: the GPU
 * @w: the warp
 * @slot: the slot; the warp's TPC, and the client id of its SM, follow
 */
void vgpu_warp_place(struct vgpu *vgpu, struct vgpu_warp *w, u32 slot)
{
	u32 sm = (slot / vgpu->tpcs) % vgpu->sms;

	w->slot = slot;
	w->tpc = slot % vgpu->tpcs;
	w->client = VGPU_CLIENT_GPC_T1_0 + w->tpc * vgpu->sms + sm;
}

/* The warp leaves its slot; the program has one warp less to wait for. */
static void vgpu_warp_finish(struct vgpu_warp *w)
{
	vgpu_warp_lockout_end(w);
	if (w->has_slot) {
		w->gpc->slots[w->slot] = NULL;
		w->has_slot = false;
	}
	w->done = true;
	w->prog->live--;
}

/* Skip NOPs: they take no slot. False when no operation is left. */
static bool vgpu_warp_next_op(struct vgpu_warp *w)
{
	struct vgpu_prog *prog = w->prog;

	while (w->op < prog->nops && prog->ops[w->op].code == NVSVM_OP_NOP) {
		if (prog->flags & NVSVM_EXEC_WARPS)
			prog->done_ops++;
		else
			prog->done_ops = w->op + 1;
		w->op += w->stride;
	}
	return w->op < prog->nops;
}

/*
 * A replayed access of warp @w whose time has not come yet
 * (replay_delay_us): the GPC thread wakes for the first of them.
 */
static bool vgpu_warp_retry_later(struct vgpu_warp *w)
{
	struct vgpu_gpc *gpc = w->gpc;

	if (!w->retry_at || vgpu_prog_stopped(w->prog) ||
	    ktime_get_ns() >= w->retry_at)
		return false;
	if (!gpc->retry_at || w->retry_at < gpc->retry_at)
		gpc->retry_at = w->retry_at;
	return true;
}

/**
 * vgpu_warp_resume() - may a warp issue, after its stall if it had one?
 * @w: the warp
 *
 * A warp whose stall a replay, a cancel or its program's end released
 * leaves it here (its fault entry written, its lockdown count dropped).
 *
 * Context: the GPC thread.
 * Return: 1 when it may issue, 0 when it stays stalled, -1 when it stops:
 * its access was cancelled (the program failed with it) or its program
 * stopped.
 */
int vgpu_warp_resume(struct vgpu_warp *w)
{
	struct vgpu_prog *prog = w->prog;
	/* Pairs with the release in vgpu_fault_unstall(): @retry_at. */
	int stall = smp_load_acquire(&w->stall);

	if (stall != VGPU_STALL_NONE) {
		if (stall == VGPU_STALL_WAIT && !vgpu_prog_stopped(prog))
			return 0;
		if (stall == VGPU_STALL_REPLAY && vgpu_warp_retry_later(w))
			return 0;
		/* Replayed, cancelled, or its program stopped. */
		vgpu_fault_release(w);
		if (stall == VGPU_STALL_CANCEL) {
			if (prog->status == NVSVM_EXEC_OK)
				prog->fault_pc = w->stall_pc;
			vgpu_prog_fail(prog, w->stall_va, w->stall_access,
				       NVSVM_EXEC_FAULT);
			return -1;
		}
	}
	return vgpu_prog_stopped(prog) ? -1 : 1;
}

/**
 * vgpu_warp_access() - a program's global load, store or atomic
 * @w: the warp of the work-item making it (@w->hart)
 * @m: the access (rv.h); its result is written there
 *
 * Through the warp's micro-TLB and the page tables, as an operation's
 * access is: a miss records a fault and stalls the warp.
 *
 * Context: the GPC thread.
 * Return: > 0 done, 0 stalled, < 0 the program stops (status set).
 */
s64 vgpu_warp_access(struct vgpu_warp *w, struct rv_mem *m)
{
	struct vgpu_xfer t = { .op = VGPU_XOP_RV, .rv = m };
	u32 access = m->kind == RV_LOAD ? NVSVM_ACCESS_READ :
		     m->kind == RV_STORE ? NVSVM_ACCESS_WRITE :
		     NVSVM_ACCESS_ATOMIC;
	struct vgpu_prog *prog = w->prog;
	bool ok = prog->status == NVSVM_EXEC_OK;
	s64 ret;

	/*
	 * aq/rl: full barriers around the atomic, whatever carries it out
	 * (over PCIe, a read and a write under the L2's lock, which orders
	 * nothing by itself).
	 */
	if (m->kind == RV_AMO && (m->order & RV_ORDER_RL))
		smp_mb(); /* release: what the hart did before, before it */
	ret = vgpu_access(w, m->va, m->size, access, &t);
	if (m->kind == RV_AMO && (m->order & RV_ORDER_AQ))
		smp_mb(); /* acquire: what it does after, after it */
	if (ret == 0)
		w->stall_pc = w->hart->pc;
	else if (ret < 0 && ok && prog->status != NVSVM_EXEC_OK)
		prog->fault_pc = w->hart->pc;
	return ret;
}

/*
 * Run warp @w one step, if it can. Returns true when it did something
 * (another round may do more), false when it waits (stalled, or its slot
 * is taken).
 */
static bool vgpu_warp_run(struct vgpu_warp *w)
{
	struct vgpu_prog *prog = w->prog;
	struct vgpu_gpc *gpc = w->gpc;
	s64 ret;

	switch (vgpu_warp_resume(w)) {
	case 0:
		return false;
	case -1:
		vgpu_warp_finish(w);
		return true;
	}
	if (!w->started && !vgpu_warp_next_op(w)) {
		vgpu_warp_finish(w);
		return true;
	}
	/* Its micro-TLB is in lockdown: it waits for the cancel or replay. */
	if (vgpu_warp_locked_out(w))
		return false;
	if (!w->has_slot) {
		if (gpc->slots[w->slot])
			return false;
		gpc->slots[w->slot] = w;
		w->has_slot = true;
	}

	ret = vgpu_op_step(w, &prog->ops[w->op]);
	if (ret < 0) {
		vgpu_warp_finish(w);
		return true;
	}
	if (ret == 1) {
		w->started = false;
		if (prog->flags & NVSVM_EXEC_WARPS)
			prog->done_ops++;
		else
			prog->done_ops = w->op + 1;
		w->op += w->stride;
	}
	return READ_ONCE(w->stall) == VGPU_STALL_NONE;
}

/* A program starts on its GPC: its context, its warps in their slots. */
static void vgpu_prog_start(struct vgpu_gpc *gpc, struct vgpu_prog *prog)
{
	struct vgpu *vgpu = gpc->vgpu;
	u32 i;

	vgpu_ctx_load(vgpu, &prog->ctx, prog->vchan->inst);
	prog->status = NVSVM_EXEC_OK;
	prog->live = prog->nwarps;
	if (prog->launch) {
		vgpu_launch_start(gpc, prog);
		return;
	}
	for (i = 0; i < prog->nwarps; i++) {
		struct vgpu_warp *w = &prog->warps[i];

		w->gpc = gpc;
		w->prog = prog;
		w->index = i;
		w->op = i;
		w->stride = prog->nwarps;
		INIT_LIST_HEAD(&w->stall_node);
		vgpu_warp_place(vgpu, w, (prog->slot + i) % vgpu->slots);
	}
}

/* Take the queued programs; they run beside those already running. */
static void vgpu_gpc_admit(struct vgpu_gpc *gpc)
{
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_prog *prog, *tmp;
	LIST_HEAD(list);

	spin_lock(&vgpu->sched_lock);
	list_for_each_entry(prog, &gpc->queue, node)
		prog->state = VGPU_PROG_RUNNING;
	list_splice_init(&gpc->queue, &list);
	spin_unlock(&vgpu->sched_lock);

	list_for_each_entry_safe(prog, tmp, &list, node) {
		vgpu_prog_start(gpc, prog);
		list_move_tail(&prog->node, &gpc->running);
	}
}

/*
 * One round: each warp of each running program, in order, one step.
 * Returns true when a warp did something.
 */
static bool vgpu_gpc_round(struct vgpu_gpc *gpc)
{
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_prog *prog, *tmp;
	bool busy = false;
	u32 i;

	list_for_each_entry_safe(prog, tmp, &gpc->running, node) {
		if (prog->launch && vgpu_launch_round(prog))
			busy = true;
		for (i = 0; !prog->launch && i < prog->nwarps; i++)
			if (!prog->warps[i].done &&
			    vgpu_warp_run(&prog->warps[i]))
				busy = true;
		if (prog->live)
			continue;
		list_del_init(&prog->node);
		spin_lock(&vgpu->sched_lock);
		prog->state = VGPU_PROG_DONE;
		spin_unlock(&vgpu->sched_lock);
		complete(&prog->done);
		busy = true;
	}
	if (gpc->intr) {
		gpc->intr = false;
		vgpu_fault_intr_pending(vgpu);
	}
	return busy;
}

static bool vgpu_gpc_woken(struct vgpu_gpc *gpc)
{
	return atomic_read(&gpc->kick) || kthread_should_stop();
}

/*
 * Sleep until @at (ns) or a kick: the entries the driver may read are
 * written then, or a replayed access is issued again.
 */
static void vgpu_gpc_wait(struct vgpu_gpc *gpc, u64 at)
{
	u64 now = ktime_get_ns();

	if (at > now)
		wait_event_interruptible_hrtimeout(gpc->wq,
						   vgpu_gpc_woken(gpc),
						   ns_to_ktime(at - now));
}

/* The first time something is due: @due_at or @retry_at; 0 if none. */
static u64 vgpu_gpc_next(const struct vgpu_gpc *gpc)
{
	if (!gpc->due_at || !gpc->retry_at)
		return gpc->due_at | gpc->retry_at;
	return min(gpc->due_at, gpc->retry_at);
}

static int vgpu_gpc_thread(void *data)
{
	struct vgpu_gpc *gpc = data;
	bool busy = false;
	u64 next;

	while (!kthread_should_stop()) {
		next = vgpu_gpc_next(gpc);
		if (!busy && !next)
			wait_event_idle(gpc->wq, vgpu_gpc_woken(gpc));
		else if (!busy)
			vgpu_gpc_wait(gpc, next);
		/* Only a kick brings programs, or entries to write. */
		if (atomic_xchg(&gpc->kick, 0))
			vgpu_gpc_admit(gpc);
		/* The round notes the replayed accesses that still wait. */
		gpc->retry_at = 0;
		busy = vgpu_gpc_round(gpc);
		if (READ_ONCE(gpc->fb_pending) || gpc->due_at)
			vgpu_fault_entries(gpc);
		cond_resched();
	}
	return 0;
}

/**
 * vgpu_gpc_kick() - give a GPC thread something to look at
 * @gpc: the GPC
 *
 * Context: any.
 */
void vgpu_gpc_kick(struct vgpu_gpc *gpc)
{
	atomic_set(&gpc->kick, 1);
	wake_up(&gpc->wq);
}

/**
 * vgpu_prog_submit() - queue a program on a GPC
 * @vchan: channel
 * @prog: program (ops, nops, flags, slot set); the rest is initialised
 *	here
 * @gpc: GPC number or NVSVM_GPC_ANY
 *
 * Return: 0, -ENOMEM, or -ENODEV when the channel is going away.
 */
int vgpu_prog_submit(struct vgpu_chan *vchan, struct vgpu_prog *prog, u32 gpc)
{
	struct vgpu *vgpu = vchan->vgpu;
	struct vgpu_gpc *g;

	if (gpc == NVSVM_GPC_ANY)
		gpc = (u32)atomic_inc_return(&vgpu->rr) % vgpu->gpc_count;
	g = &vgpu->gpcs[gpc];

	/* A launch has its warps counted already (launch.c). */
	if (!prog->launch)
		prog->nwarps = prog->flags & NVSVM_EXEC_WARPS ?
			       min(prog->nops, vgpu->slots) : 1;
	prog->warps = kvcalloc(prog->nwarps, sizeof(*prog->warps),
			       GFP_KERNEL_ACCOUNT);
	if (!prog->warps)
		return -ENOMEM;
	INIT_LIST_HEAD(&prog->node);
	INIT_LIST_HEAD(&prog->chan_node);
	init_completion(&prog->done);
	prog->vchan = vchan;
	prog->gpc = g;
	prog->abort = 0;
	prog->done_ops = 0;
	prog->status = NVSVM_EXEC_OK;
	prog->fault_addr = 0;
	prog->fault_access = 0;
	prog->fault_pc = 0;

	spin_lock(&vgpu->sched_lock);
	if (vchan->dead) {
		spin_unlock(&vgpu->sched_lock);
		kvfree(prog->warps);
		prog->warps = NULL;
		return -ENODEV;
	}
	prog->state = VGPU_PROG_QUEUED;
	list_add_tail(&prog->chan_node, &vchan->progs);
	list_add_tail(&prog->node, &g->queue);
	spin_unlock(&vgpu->sched_lock);
	vgpu_gpc_kick(g);
	return 0;
}

/**
 * vgpu_prog_abort_locked() - ask a submitted program to stop
 * @prog: the program
 * @status: enum nvsvm_exec_status to report
 *
 * A queued program is dropped at once; a running one stops at its next
 * access, or leaves its stall. Wait for @prog->done afterwards.
 *
 * Context: vgpu->sched_lock held.
 */
void vgpu_prog_abort_locked(struct vgpu_prog *prog, u32 status)
{
	lockdep_assert_held(&prog->vchan->vgpu->sched_lock);
	if (prog->state == VGPU_PROG_QUEUED) {
		list_del_init(&prog->node);
		prog->state = VGPU_PROG_DONE;
		prog->status = status;
		complete(&prog->done);
	} else if (prog->state == VGPU_PROG_RUNNING && !prog->abort) {
		WRITE_ONCE(prog->abort, status);
		vgpu_gpc_kick(prog->gpc);
	}
}

/**
 * vgpu_prog_abort() - ask a submitted program to stop
 * @prog: the program
 * @status: enum nvsvm_exec_status to report
 *
 * See vgpu_prog_abort_locked().
 */
void vgpu_prog_abort(struct vgpu_prog *prog, u32 status)
{
	struct vgpu *vgpu = prog->vchan->vgpu;

	spin_lock(&vgpu->sched_lock);
	vgpu_prog_abort_locked(prog, status);
	spin_unlock(&vgpu->sched_lock);
}

/**
 * vgpu_prog_reap() - forget a finished program
 * @prog: the program; @prog->done has completed
 *
 * After this the program no longer references its channel; its warps
 * are freed.
 */
void vgpu_prog_reap(struct vgpu_prog *prog)
{
	struct vgpu_chan *vchan = prog->vchan;
	struct vgpu *vgpu = vchan->vgpu;

	kvfree(prog->warps);
	prog->warps = NULL;

	spin_lock(&vgpu->sched_lock);
	list_del_init(&prog->chan_node);
	if (list_empty(&vchan->progs))
		wake_up(&vchan->wq);
	spin_unlock(&vgpu->sched_lock);
}

/**
 * vgpu_chan_set_error() - put a channel in the error state
 * @vchan: the channel
 */
void vgpu_chan_set_error(struct vgpu_chan *vchan)
{
	struct vgpu *vgpu = vchan->vgpu;

	struct vgpu_prog *prog;

	spin_lock(&vgpu->sched_lock);
	WRITE_ONCE(vchan->error, true);
	/* Its stalled warps leave their stall. */
	list_for_each_entry(prog, &vchan->progs, chan_node)
		if (prog->state == VGPU_PROG_RUNNING)
			vgpu_gpc_kick(prog->gpc);
	spin_unlock(&vgpu->sched_lock);
}

/**
 * vgpu_gpcs_init() - create the GPCs and start their threads
 * @vgpu: the GPU
 * @count: number of GPCs
 * @tpcs: TPCs per GPC
 * @sms: SMs per TPC
 * @warps_per_sm: warp slots per SM
 * @tlb_entries: micro-TLB entries per TPC
 *
 * Return: 0 or a negative errno (nothing left behind).
 */
int vgpu_gpcs_init(struct vgpu *vgpu, u32 count, u32 tpcs, u32 sms,
		   u32 warps_per_sm, u32 tlb_entries)
{
	u32 i, t;

	vgpu->tpcs = tpcs;
	vgpu->sms = sms;
	vgpu->warps_per_sm = warps_per_sm;
	vgpu->slots = tpcs * sms * warps_per_sm;
	vgpu->gpcs = kcalloc(count, sizeof(*vgpu->gpcs), GFP_KERNEL);
	if (!vgpu->gpcs)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		struct vgpu_gpc *gpc = &vgpu->gpcs[i];

		gpc->vgpu = vgpu;
		gpc->id = i;
		spin_lock_init(&gpc->lock);
		INIT_LIST_HEAD(&gpc->queue);
		INIT_LIST_HEAD(&gpc->running);
		INIT_LIST_HEAD(&gpc->stalled);
		init_waitqueue_head(&gpc->wq);
		vgpu->gpc_count = i + 1;
		gpc->utlb = kcalloc(tpcs, sizeof(*gpc->utlb), GFP_KERNEL);
		gpc->slots = kvcalloc(vgpu->slots, sizeof(*gpc->slots),
				      GFP_KERNEL);
		gpc->bounce = (void *)get_zeroed_page(GFP_KERNEL);
		if (!gpc->utlb || !gpc->slots || !gpc->bounce)
			goto fail;
		for (t = 0; t < tpcs; t++)
			if (vgpu_utlb_init(&gpc->utlb[t], tlb_entries))
				goto fail;
		gpc->thread = kthread_run(vgpu_gpc_thread, gpc, "nvsvm_vgpu%u/%u",
					  vgpu->index, i);
		if (IS_ERR(gpc->thread)) {
			gpc->thread = NULL;
			goto fail;
		}
	}
	return 0;

fail:
	vgpu_gpcs_fini(vgpu);
	return -ENOMEM;
}

/**
 * vgpu_gpcs_fini() - stop the GPC threads and free the GPCs
 * @vgpu: the GPU; no channel is left
 */
void vgpu_gpcs_fini(struct vgpu *vgpu)
{
	u32 i, t;

	for (i = 0; i < vgpu->gpc_count; i++) {
		struct vgpu_gpc *gpc = &vgpu->gpcs[i];

		if (gpc->thread)
			kthread_stop(gpc->thread);
		free_page((unsigned long)gpc->bounce);
		for (t = 0; gpc->utlb && t < vgpu->tpcs; t++)
			vgpu_utlb_fini(&gpc->utlb[t]);
		kfree(gpc->utlb);
		kvfree(gpc->slots);
	}
	kfree(vgpu->gpcs);
	vgpu->gpcs = NULL;
	vgpu->gpc_count = 0;
}
