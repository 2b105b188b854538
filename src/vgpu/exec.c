// SPDX-License-Identifier: GPL-2.0
/*
 * Channels and the EXEC entry point: the provider side of
 * NVSVM_IOCTL_CHAN_CREATE/DESTROY and NVSVM_IOCTL_EXEC. Programs are copied
 * in and validated here, run by a GPC thread, and their results copied
 * back to the caller.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "vgpu.h"

#define VGPU_EXEC_TIMEOUT_MAX	600000
#define VGPU_OP_LEN_MAX		SZ_1G
#define VGPU_CHASE_MAX		BIT_ULL(24)
#define VGPU_WAIT_SLICE		(10UL * HZ)

/**
 * vgpu_chan_create() - provider state for a channel
 * @vgpu: the GPU
 * @inst: physical address of the channel's instance block
 *
 * Return: the channel, or NULL.
 */
struct vgpu_chan *vgpu_chan_create(struct vgpu *vgpu, u64 inst)
{
	/* Made by the caller's CHAN_CREATE: charged to its memory cgroup. */
	struct vgpu_chan *vchan = kzalloc(sizeof(*vchan), GFP_KERNEL_ACCOUNT);

	if (!vchan)
		return NULL;
	vchan->vgpu = vgpu;
	vchan->inst = inst;
	INIT_LIST_HEAD(&vchan->progs);
	init_waitqueue_head(&vchan->wq);
	return vchan;
}

static bool vgpu_chan_idle(struct vgpu_chan *vchan)
{
	bool idle;

	spin_lock(&vchan->vgpu->sched_lock);
	idle = list_empty(&vchan->progs);
	spin_unlock(&vchan->vgpu->sched_lock);
	return idle;
}

/**
 * vgpu_chan_destroy() - abort a channel's programs, wait, free it
 * @vchan: the channel
 *
 * Returns once no GPC touches the channel and every waiter of one of its
 * programs has let go of it.
 */
void vgpu_chan_destroy(struct vgpu_chan *vchan)
{
	struct vgpu *vgpu = vchan->vgpu;
	struct vgpu_prog *prog;

	spin_lock(&vgpu->sched_lock);
	vchan->dead = true;
	list_for_each_entry(prog, &vchan->progs, chan_node)
		vgpu_prog_abort_locked(prog, NVSVM_EXEC_CHANNEL_ERROR);
	spin_unlock(&vgpu->sched_lock);

	wait_event(vchan->wq, vgpu_chan_idle(vchan));
	/* The last reaper woke us under sched_lock: let it leave. */
	spin_lock(&vgpu->sched_lock);
	spin_unlock(&vgpu->sched_lock);
	kfree(vchan);
}

/**
 * vgpu_chan_init() - provider callback: a channel was created
 * @gpu: the GPU
 * @chan: the channel; @chan->inst_addr is its instance block
 *
 * Return: 0 or -ENOMEM.
 */
int vgpu_chan_init(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan)
{
	struct vgpu_chan *vchan = vgpu_chan_create(to_vgpu(gpu),
						   chan->inst_addr);

	if (!vchan)
		return -ENOMEM;
	chan->provider_data = vchan;
	return 0;
}

/**
 * vgpu_chan_fini() - provider callback: a channel goes away
 * @gpu: the GPU
 * @chan: the channel
 *
 * Aborts the channel's programs and waits until no GPC touches it.
 */
void vgpu_chan_fini(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan)
{
	struct vgpu_chan *vchan = chan->provider_data;

	if (!vchan)
		return;
	chan->provider_data = NULL;
	vgpu_chan_destroy(vchan);
}

/**
 * vgpu_prog_wait() - wait for a submitted program
 * @prog: the program
 * @timeout_ms: stop it after this long (status NVSVM_EXEC_TIMEOUT), or
 *	NVSVM_LAUNCH_NO_TIMEOUT: wait for its end (@killable must be true)
 * @killable: a fatal signal aborts it too
 *
 * On return the GPC no longer touches @prog; the caller reaps it.
 *
 * Return: 0, or -EINTR when a fatal signal stopped it.
 */
int vgpu_prog_wait(struct vgpu_prog *prog, u32 timeout_ms, bool killable)
{
	bool forever = timeout_ms == NVSVM_LAUNCH_NO_TIMEOUT && killable;
	unsigned long left = msecs_to_jiffies(timeout_ms);
	long ret = 0;

	/* In slices, so that a long program is not taken for a hung task. */
	while (forever || left) {
		unsigned long t = forever ? VGPU_WAIT_SLICE :
				  min(left, VGPU_WAIT_SLICE);

		if (killable)
			ret = wait_for_completion_killable_timeout(&prog->done,
								   t);
		else
			ret = wait_for_completion_timeout(&prog->done, t);
		if (ret)
			break;
		if (!forever)
			left -= t;
	}
	if (ret > 0)
		return 0;

	vgpu_prog_abort(prog, ret ? NVSVM_EXEC_CHANNEL_ERROR :
			NVSVM_EXEC_TIMEOUT);
	wait_for_completion(&prog->done);
	return ret ? -EINTR : 0;
}

static bool vgpu_range_ok(u64 addr, u64 len)
{
	u64 end;

	return !(addr & 7) && !(len & 7) && len <= VGPU_OP_LEN_MAX &&
	       !check_add_overflow(addr, len, &end);
}

static int vgpu_op_check(const struct nvsvm_op *op)
{
	u64 end;

	if (op->code >= NVSVM_OP_COUNT || op->flags)
		return -EINVAL;

	switch (op->code) {
	case NVSVM_OP_READ:
	case NVSVM_OP_WRITE:
	case NVSVM_OP_ATOMIC_ADD:
		return vgpu_range_ok(op->addr, 8) ? 0 : -EINVAL;
	case NVSVM_OP_FILL:
	case NVSVM_OP_SUM:
		return vgpu_range_ok(op->addr, op->len) ? 0 : -EINVAL;
	case NVSVM_OP_COPY:
		return vgpu_range_ok(op->addr, op->len) &&
		       vgpu_range_ok(op->src, op->len) ? 0 : -EINVAL;
	case NVSVM_OP_CHASE:
		if ((op->addr | op->off_next | op->off_data) & 7 ||
		    op->len > VGPU_CHASE_MAX ||
		    check_add_overflow(op->addr, (u64)op->off_next + 8, &end) ||
		    check_add_overflow(op->addr, (u64)op->off_data + 8, &end))
			return -EINVAL;
		return 0;
	default:
		return 0;
	}
}

static int vgpu_exec_check(struct vgpu *vgpu, const struct nvsvm_exec *args)
{
	if ((args->flags & ~(NVSVM_EXEC_WARPS | NVSVM_EXEC_SLOT(0xffff))) ||
	    NVSVM_EXEC_FLAGS_SLOT(args->flags) >= vgpu->slots ||
	    !args->nops || args->nops > NVSVM_EXEC_MAX_OPS ||
	    !args->timeout_ms || args->timeout_ms > VGPU_EXEC_TIMEOUT_MAX)
		return -EINVAL;
	if (args->gpc != NVSVM_GPC_ANY && args->gpc >= vgpu->gpc_count)
		return -EINVAL;
	return 0;
}

/* Run @prog on @vchan and wait; 0 (outcome in @prog) or -EINTR. */
static int vgpu_exec_run(struct vgpu_chan *vchan, struct vgpu_prog *prog,
			 const struct nvsvm_exec *args)
{
	int ret;

	if (READ_ONCE(vchan->error) ||
	    vgpu_prog_submit(vchan, prog, args->gpc)) {
		prog->status = NVSVM_EXEC_CHANNEL_ERROR;
		return 0;
	}
	ret = vgpu_prog_wait(prog, args->timeout_ms, true);
	vgpu_prog_reap(prog);
	return ret;
}

/**
 * vgpu_exec() - run a program on a channel and wait for it
 * @gpu: the GPU
 * @chan: the channel
 * @args: the copied-in EXEC arguments; (out) fields are filled
 *
 * Context: process; sleeps; copies the operations from and to user memory.
 * Return: 0 (outcome in @args->status), -EINVAL for a bad program,
 * -EFAULT, -ENOMEM, or -EINTR when a fatal signal stopped the program.
 */
int vgpu_exec(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan,
	      struct nvsvm_exec *args)
{
	struct nvsvm_op __user *uops = u64_to_user_ptr(args->ops);
	struct vgpu_chan *vchan = chan->provider_data;
	struct vgpu *vgpu = to_vgpu(gpu);
	struct vgpu_prog *prog;
	size_t size;
	int ret;
	u32 i;

	ret = vgpu_exec_check(vgpu, args);
	if (ret)
		return ret;
	if (!vchan)
		return -ENODEV;
	size = array_size(args->nops, sizeof(struct nvsvm_op));

	/* The program and its copy are charged to the caller's memory cgroup. */
	prog = kzalloc(sizeof(*prog), GFP_KERNEL_ACCOUNT);
	if (!prog)
		return -ENOMEM;
	prog->nops = args->nops;
	prog->flags = args->flags & NVSVM_EXEC_WARPS;
	prog->slot = NVSVM_EXEC_FLAGS_SLOT(args->flags);
	prog->ops = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!prog->ops) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(prog->ops, uops, size)) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < prog->nops; i++) {
		ret = vgpu_op_check(&prog->ops[i]);
		if (ret)
			goto out;
	}

	ret = vgpu_exec_run(vchan, prog, args);
	if (ret)
		goto out;
	args->status = prog->status;
	args->done = prog->done_ops;
	args->fault_addr = prog->fault_addr;
	args->fault_access = prog->fault_access;
	if (copy_to_user(uops, prog->ops, size))
		ret = -EFAULT;
out:
	kvfree(prog->ops);
	kfree(prog);
	return ret;
}

/**
 * vgpu_ioctl_exec() - NVSVM_IOCTL_EXEC (struct nvsvm_gpu_ioctl)
 * @gpu: the GPU
 * @nf: the calling file, whose channel handle @uarg names
 * @uarg: user pointer to struct nvsvm_exec; (out) fields written back
 *
 * Context: process; sleeps.
 * Return: 0 (outcome in the status field), -EFAULT, -EINVAL, -ENOENT for
 * an unknown handle, or an errno of vgpu_exec().
 */
long vgpu_ioctl_exec(struct nvsvm_gpu *gpu, struct nvsvm_file *nf,
		     void __user *uarg)
{
	struct nvsvm_chan *chan;
	struct nvsvm_exec args;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	chan = nvsvm_file_chan_get(nf, args.handle);
	if (!chan)
		return -ENOENT;
	ret = vgpu_exec(gpu, chan, &args);
	nvsvm_file_chan_put(chan);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}
