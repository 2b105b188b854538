// SPDX-License-Identifier: GPL-2.0
/*
 * GPCs: one kernel thread each, running programs of memory operations
 * through the MMU model. A GPC never touches user memory through uaccess:
 * every byte it reads or writes is reached by translating a GPU virtual
 * address, and mapped one 4 KiB page at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "vgpu.h"

/* What a GPC does with the bytes of one translated page. */
enum vgpu_xop {
	VGPU_XOP_READ,		/* copy to buf */
	VGPU_XOP_WRITE,		/* copy from buf */
	VGPU_XOP_FILL,		/* store val in every u64 */
	VGPU_XOP_ATOMIC,	/* atomic add val to the u64, old value in val */
	VGPU_XOP_ADD,		/* non-atomic add val to the u64 */
	VGPU_XOP_SUM,		/* add every u64 to val */
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
};

static void vgpu_xfer_sparse(struct vgpu_xfer *t, u32 len)
{
	if (t->op == VGPU_XOP_READ)
		memset(t->buf, 0, len);
	else if (t->op == VGPU_XOP_ATOMIC)
		t->val = 0;
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
	}
}

/* Only the operations without a buffer may go past the first page. */
static bool vgpu_xop_streams(enum vgpu_xop op)
{
	return op == VGPU_XOP_FILL || op == VGPU_XOP_SUM;
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

		if (x->sparse) {
			vgpu_xfer_sparse(t, n);
		} else {
			void *p = kmap_local_page(page);

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

/* The channel entered the error state: its programs stop. */
static bool vgpu_prog_stopped(struct vgpu_prog *prog)
{
	int abort = READ_ONCE(prog->abort);

	if (abort) {
		prog->status = abort;
		return true;
	}
	if (READ_ONCE(prog->vchan->error)) {
		prog->status = NVSVM_EXEC_CHANNEL_ERROR;
		return true;
	}
	return false;
}

/*
 * An access of up to @len bytes from @va, faulting and retrying as needed
 * until its first page translates; streaming operations go on through the
 * following pages of the same translation (vgpu_xfer_run()). Returns the
 * bytes done (> 0), or a negative errno when the program must stop (its
 * status is set).
 */
static s64 vgpu_access(struct vgpu_gpc *gpc, struct vgpu_prog *prog, u64 va,
		       u64 len, u32 access, struct vgpu_xfer *t)
{
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_xlat x;
	unsigned long flags;
	u64 done = 0;
	bool ok;
	int ret;

	for (;;) {
		if (vgpu_prog_stopped(prog))
			return -EINTR;

		spin_lock_irqsave(&gpc->lock, flags);
		ok = vgpu_mmu_translate(gpc, &prog->ctx, va, access, &x);
		if (ok)
			done = vgpu_xfer_run(vgpu, &x, va, len, t);
		spin_unlock_irqrestore(&gpc->lock, flags);

		if (ok) {
			atomic64_add(DIV_ROUND_UP(offset_in_page(va) + done,
						  PAGE_SIZE),
				     &vgpu->ctr.accesses);
			return done;
		}
		if (x.fatal) {
			atomic64_inc(&vgpu->ctr.faults);
			prog->status = NVSVM_EXEC_FATAL;
			prog->fault_addr = va;
			prog->fault_access = access;
			vgpu_chan_set_error(prog->vchan);
			return -EFAULT;
		}
		ret = vgpu_fault_raise(gpc, prog, va, access, x.fault);
		if (ret == -EINTR && !vgpu_prog_stopped(prog))
			prog->status = NVSVM_EXEC_CHANNEL_ERROR;
		if (ret)
			return ret;
	}
}

static u32 vgpu_page_left(u64 va)
{
	return PAGE_SIZE - offset_in_page(va);
}

static int vgpu_op_u64(struct vgpu_gpc *gpc, struct vgpu_prog *prog,
		       u64 va, u32 access, enum vgpu_xop xop, u64 *val)
{
	struct vgpu_xfer t = { .op = xop, .buf = val, .val = *val };
	s64 ret;

	ret = vgpu_access(gpc, prog, va, 8, access, &t);
	if (ret < 0)
		return ret;
	if (xop != VGPU_XOP_READ && xop != VGPU_XOP_WRITE)
		*val = t.val;
	return 0;
}

/* FILL and SUM: a stream of @op->len bytes, in runs (vgpu_access()). */
static int vgpu_op_stream(struct vgpu_gpc *gpc, struct vgpu_prog *prog,
			  struct nvsvm_op *op, u32 access,
			  struct vgpu_xfer *t)
{
	u64 va = op->addr, left = op->len;
	s64 n;

	while (left) {
		n = vgpu_access(gpc, prog, va, left, access, t);
		if (n < 0)
			return n;
		va += n;
		left -= n;
		cond_resched();
	}
	return 0;
}

static int vgpu_op_fill(struct vgpu_gpc *gpc, struct vgpu_prog *prog,
			struct nvsvm_op *op)
{
	struct vgpu_xfer t = { .op = VGPU_XOP_FILL, .val = op->value };

	return vgpu_op_stream(gpc, prog, op, NVSVM_ACCESS_WRITE, &t);
}

static int vgpu_op_copy(struct vgpu_gpc *gpc, struct vgpu_prog *prog,
			struct nvsvm_op *op)
{
	struct vgpu_xfer rd = { .op = VGPU_XOP_READ, .buf = gpc->bounce };
	struct vgpu_xfer wr = { .op = VGPU_XOP_WRITE, .buf = gpc->bounce };
	u64 dst = op->addr, src = op->src, left = op->len;
	s64 ret;

	while (left) {
		u32 n = min_t(u64, left, min(vgpu_page_left(src),
						 vgpu_page_left(dst)));

		/* Within one page of each: no short access. */
		ret = vgpu_access(gpc, prog, src, n, NVSVM_ACCESS_READ, &rd);
		if (ret >= 0)
			ret = vgpu_access(gpc, prog, dst, n,
					  NVSVM_ACCESS_WRITE, &wr);
		if (ret < 0)
			return ret;
		src += n;
		dst += n;
		left -= n;
		cond_resched();
	}
	return 0;
}

static int vgpu_op_sum(struct vgpu_gpc *gpc, struct vgpu_prog *prog,
		       struct nvsvm_op *op)
{
	struct vgpu_xfer t = { .op = VGPU_XOP_SUM };
	int ret;

	ret = vgpu_op_stream(gpc, prog, op, NVSVM_ACCESS_READ, &t);
	if (!ret)
		op->result = t.val;
	return ret;
}

/* An address the MMU refuses (VA limit) when node + offset wraps. */
static u64 vgpu_chase_addr(u64 node, u32 off)
{
	u64 va;

	if (check_add_overflow(node, (u64)off, &va))
		return ~7ULL;
	return va;
}

static int vgpu_op_chase(struct vgpu_gpc *gpc, struct vgpu_prog *prog,
			 struct nvsvm_op *op)
{
	u64 node = op->addr, visited = 0, val;
	int ret;

	op->result = 0;
	while (node && visited < op->len) {
		if (node & 7) {
			/* A misaligned node: the program stops, no MMU fault. */
			prog->status = NVSVM_EXEC_FAULT;
			prog->fault_addr = node;
			prog->fault_access = NVSVM_ACCESS_READ;
			return -EFAULT;
		}
		val = op->value;
		ret = vgpu_op_u64(gpc, prog, vgpu_chase_addr(node, op->off_data),
				  NVSVM_ACCESS_WRITE, VGPU_XOP_ADD, &val);
		if (!ret)
			ret = vgpu_op_u64(gpc, prog,
					  vgpu_chase_addr(node, op->off_next),
					  NVSVM_ACCESS_READ, VGPU_XOP_READ,
					  &node);
		if (ret)
			return ret;
		op->result = ++visited;
		cond_resched();
	}
	return 0;
}

static int vgpu_op_run(struct vgpu_gpc *gpc, struct vgpu_prog *prog,
		       struct nvsvm_op *op)
{
	u64 val = op->value;
	int ret;

	switch (op->code) {
	case NVSVM_OP_READ:
		ret = vgpu_op_u64(gpc, prog, op->addr, NVSVM_ACCESS_READ,
				  VGPU_XOP_READ, &val);
		if (!ret)
			op->result = val;
		return ret;
	case NVSVM_OP_WRITE:
		return vgpu_op_u64(gpc, prog, op->addr, NVSVM_ACCESS_WRITE,
				   VGPU_XOP_WRITE, &val);
	case NVSVM_OP_FILL:
		return vgpu_op_fill(gpc, prog, op);
	case NVSVM_OP_COPY:
		return vgpu_op_copy(gpc, prog, op);
	case NVSVM_OP_ATOMIC_ADD:
		ret = vgpu_op_u64(gpc, prog, op->addr, NVSVM_ACCESS_ATOMIC,
				  VGPU_XOP_ATOMIC, &val);
		if (!ret)
			op->result = val;
		return ret;
	case NVSVM_OP_CHASE:
		return vgpu_op_chase(gpc, prog, op);
	case NVSVM_OP_SUM:
		return vgpu_op_sum(gpc, prog, op);
	default:
		return 0;
	}
}

static void vgpu_prog_run(struct vgpu_gpc *gpc, struct vgpu_prog *prog)
{
	u32 i;

	vgpu_ctx_load(gpc->vgpu, &prog->ctx, prog->vchan->inst);
	prog->status = NVSVM_EXEC_OK;
	for (i = 0; i < prog->nops; i++) {
		if (vgpu_prog_stopped(prog))
			return;
		if (vgpu_op_run(gpc, prog, &prog->ops[i]))
			return;
		prog->done_ops = i + 1;
		cond_resched();
	}
}

static struct vgpu_prog *vgpu_gpc_next(struct vgpu_gpc *gpc)
{
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_prog *prog;

	spin_lock(&vgpu->sched_lock);
	prog = list_first_entry_or_null(&gpc->queue, struct vgpu_prog, node);
	if (prog) {
		list_del_init(&prog->node);
		prog->state = VGPU_PROG_RUNNING;
		gpc->cur = prog;
	}
	spin_unlock(&vgpu->sched_lock);
	return prog;
}

static bool vgpu_gpc_has_work(struct vgpu_gpc *gpc)
{
	bool work;

	if (kthread_should_stop())
		return true;
	spin_lock(&gpc->vgpu->sched_lock);
	work = !list_empty(&gpc->queue);
	spin_unlock(&gpc->vgpu->sched_lock);
	return work;
}

static int vgpu_gpc_thread(void *data)
{
	struct vgpu_gpc *gpc = data;
	struct vgpu *vgpu = gpc->vgpu;
	struct vgpu_prog *prog;

	while (!kthread_should_stop()) {
		wait_event_idle(gpc->wq, vgpu_gpc_has_work(gpc));
		prog = vgpu_gpc_next(gpc);
		if (!prog)
			continue;
		vgpu_prog_run(gpc, prog);

		spin_lock(&vgpu->sched_lock);
		gpc->cur = NULL;
		prog->state = VGPU_PROG_DONE;
		spin_unlock(&vgpu->sched_lock);
		complete(&prog->done);
	}
	return 0;
}

/**
 * vgpu_prog_submit() - queue a program on a GPC
 * @vchan: channel
 * @prog: program (ops, nops set); the rest is initialised here
 * @gpc: GPC number or NVSVM_GPC_ANY
 *
 * Return: 0, or -ENODEV when the channel is going away.
 */
int vgpu_prog_submit(struct vgpu_chan *vchan, struct vgpu_prog *prog, u32 gpc)
{
	struct vgpu *vgpu = vchan->vgpu;
	struct vgpu_gpc *g;

	if (gpc == NVSVM_GPC_ANY)
		gpc = (u32)atomic_inc_return(&vgpu->rr) % vgpu->gpc_count;
	g = &vgpu->gpcs[gpc];

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

	spin_lock(&vgpu->sched_lock);
	if (vchan->dead) {
		spin_unlock(&vgpu->sched_lock);
		return -ENODEV;
	}
	prog->state = VGPU_PROG_QUEUED;
	list_add_tail(&prog->chan_node, &vchan->progs);
	list_add_tail(&prog->node, &g->queue);
	spin_unlock(&vgpu->sched_lock);
	wake_up(&g->wq);
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
		wake_up(&prog->gpc->wq);
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
 * After this the program no longer references its channel.
 */
void vgpu_prog_reap(struct vgpu_prog *prog)
{
	struct vgpu_chan *vchan = prog->vchan;
	struct vgpu *vgpu = vchan->vgpu;

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

	spin_lock(&vgpu->sched_lock);
	WRITE_ONCE(vchan->error, true);
	spin_unlock(&vgpu->sched_lock);
}

/**
 * vgpu_gpcs_init() - create the GPCs and start their threads
 * @vgpu: the GPU
 * @count: number of GPCs
 * @tlb_entries: TLB entries per GPC
 *
 * Return: 0 or a negative errno (nothing left behind).
 */
int vgpu_gpcs_init(struct vgpu *vgpu, u32 count, u32 tlb_entries)
{
	u32 i;

	vgpu->gpcs = kcalloc(count, sizeof(*vgpu->gpcs), GFP_KERNEL);
	if (!vgpu->gpcs)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		struct vgpu_gpc *gpc = &vgpu->gpcs[i];

		gpc->vgpu = vgpu;
		gpc->id = i;
		spin_lock_init(&gpc->lock);
		INIT_LIST_HEAD(&gpc->queue);
		init_waitqueue_head(&gpc->wq);
		gpc->tlb_size = tlb_entries;
		gpc->tlb = kcalloc(tlb_entries, sizeof(*gpc->tlb), GFP_KERNEL);
		gpc->bounce = (void *)get_zeroed_page(GFP_KERNEL);
		if (!gpc->tlb || !gpc->bounce)
			goto fail;
		gpc->thread = kthread_run(vgpu_gpc_thread, gpc, "nvsvm_vgpu%u/%u",
					  vgpu->index, i);
		if (IS_ERR(gpc->thread)) {
			gpc->thread = NULL;
			goto fail;
		}
		vgpu->gpc_count = i + 1;
	}
	return 0;

fail:
	vgpu->gpc_count = i + 1;
	vgpu_gpcs_fini(vgpu);
	return -ENOMEM;
}

/**
 * vgpu_gpcs_fini() - stop the GPC threads and free the GPCs
 * @vgpu: the GPU; no channel is left
 */
void vgpu_gpcs_fini(struct vgpu *vgpu)
{
	u32 i;

	for (i = 0; i < vgpu->gpc_count; i++) {
		struct vgpu_gpc *gpc = &vgpu->gpcs[i];

		if (gpc->thread)
			kthread_stop(gpc->thread);
		free_page((unsigned long)gpc->bounce);
		kfree(gpc->tlb);
	}
	kfree(vgpu->gpcs);
	vgpu->gpcs = NULL;
	vgpu->gpc_count = 0;
}
