/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nvsvm_vgpu: the virtual GP100's own ioctl, beside uapi/nvsvm.h.
 *
 * A real Pascal runs work through its own driver's channels (nouveau); the
 * virtual GP100 (nvsvm_vgpu.ko) has no such driver, so it offers a small
 * test instruction set instead: NVSVM_IOCTL_EXEC runs a program of memory
 * operations on a channel of /dev/nvsvmN and waits for it. It is the
 * virtual GPU's interface, kept apart from what a real GPU offers the way
 * lib/test_hmm_uapi.h is kept apart from the kernel's HMM; GET_INFO
 * reports NVSVM_CAP_EXEC on a GPU that has it.
 *
 * The conventions of uapi/nvsvm.h apply (fixed-width fields, reserved
 * fields zero, EINVAL for a size mismatch, EPERM from another address
 * space, ENODEV once the GPU is gone).
 */
#ifndef _UAPI_NVSVM_VGPU_H
#define _UAPI_NVSVM_VGPU_H

#include "nvsvm.h"

/* Operations of an EXEC program (struct nvsvm_op.code). */
enum nvsvm_opcode {
	NVSVM_OP_NOP = 0,
	NVSVM_OP_READ,		/* result = u64 at addr */
	NVSVM_OP_WRITE,		/* u64 at addr = value */
	NVSVM_OP_FILL,		/* every u64 of [addr, addr + len) = value */
	NVSVM_OP_COPY,		/* [addr, addr + len) = [src, src + len) */
	NVSVM_OP_ATOMIC_ADD,	/* result = old u64 at addr; it += value */
	NVSVM_OP_CHASE,		/* follow pointers, see below */
	NVSVM_OP_SUM,		/* result = sum of the u64 in [addr, addr + len) */
	NVSVM_OP_COUNT
};

/**
 * struct nvsvm_op - one memory operation of a program
 * @code: (in) enum nvsvm_opcode
 * @flags: (in) zero
 * @addr: (in) GPU virtual address, 8-byte aligned
 * @src: (in) COPY source, 8-byte aligned
 * @len: (in) bytes for FILL, COPY and SUM (multiple of 8, at most 1 GiB);
 *	most nodes to visit for CHASE (at most 1 << 24)
 * @value: (in) WRITE value, FILL pattern, ATOMIC_ADD operand, CHASE
 *	increment added to each node's data word
 * @off_next: (in) CHASE: offset of the next pointer in a node
 * @off_data: (in) CHASE: offset of the u64 data word in a node
 * @result: (out) READ, ATOMIC_ADD, SUM as above; CHASE: nodes visited
 *
 * CHASE starts at node @addr and, until the next pointer is 0 or @len
 * nodes were visited, adds @value to the data word and follows the next
 * pointer: a linked list built by the CPU with malloc, walked by the GPU.
 */
struct nvsvm_op {
	__u32 code;
	__u32 flags;
	__u64 addr;
	__u64 src;
	__u64 len;
	__u64 value;
	__u32 off_next;
	__u32 off_data;
	__u64 result;
};

#define NVSVM_EXEC_MAX_OPS	4096
#define NVSVM_GPC_ANY		0xffffffffU

/*
 * struct nvsvm_exec.flags. A program runs as one warp, its operations in
 * order, in warp slot NVSVM_EXEC_SLOT() of its GPC. With NVSVM_EXEC_WARPS
 * each operation is a warp of its own, all running at once: operation i
 * in warp slot (NVSVM_EXEC_SLOT() + i) modulo the GPC's warp slots (TPCs x
 * SMs x warps per SM, the module parameters of nvsvm_vgpu); operations
 * that share a slot run one after the other, in order; NOPs take no slot.
 * Warp slot s is in TPC s % tpcs_per_gpc, SM (s / tpcs_per_gpc) %
 * sms_per_tpc of that TPC: consecutive slots spread over the TPCs.
 */
#define NVSVM_EXEC_WARPS	0x1U
#define NVSVM_EXEC_SLOT(s)	((__u32)(s) << 16)
#define NVSVM_EXEC_FLAGS_SLOT(f)	((f) >> 16)

/* struct nvsvm_exec.status */
enum nvsvm_exec_status {
	NVSVM_EXEC_OK = 0,
	NVSVM_EXEC_FAULT,	/* an access was cancelled: see fault_* */
	NVSVM_EXEC_FATAL,	/* non-replayable fault: see fault_* */
	NVSVM_EXEC_TIMEOUT,	/* timeout_ms passed; the program was stopped */
	NVSVM_EXEC_CHANNEL_ERROR, /* channel already in error state */
};

/**
 * struct nvsvm_exec - run a program on a channel and wait for it
 * @handle: (in) channel
 * @gpc: (in) GPC to run on, or NVSVM_GPC_ANY
 * @ops: (in) user pointer to @nops struct nvsvm_op; results written back
 * @nops: (in) 1 to NVSVM_EXEC_MAX_OPS
 * @timeout_ms: (in) 1 to 600000
 * @status: (out) enum nvsvm_exec_status
 * @done: (out) operations completed
 * @fault_addr: (out) address of the failed access (FAULT, FATAL)
 * @fault_access: (out) NVSVM_ACCESS_* (uapi/nvsvm.h) of the failed access
 * @flags: (in) NVSVM_EXEC_WARPS, NVSVM_EXEC_SLOT(); other bits zero
 *
 * Fails with ENOTTY on a GPU without NVSVM_CAP_EXEC, ENOENT for an
 * unknown handle, EINVAL for a bad field or operation, EINTR when a fatal
 * signal stopped the program. A program that ran returns 0 with @status.
 * With NVSVM_EXEC_WARPS, @done counts the operations completed, and
 * @fault_* describe the first access that failed.
 */
struct nvsvm_exec {
	__u32 handle;
	__u32 gpc;
	__u64 ops;
	__u32 nops;
	__u32 timeout_ms;
	__u32 status;
	__u32 done;
	__u64 fault_addr;
	__u32 fault_access;
	__u32 flags;
};

#define NVSVM_IOCTL_EXEC	_IOWR(NVSVM_IOCTL_BASE, 0x08, struct nvsvm_exec)

#endif /* _UAPI_NVSVM_VGPU_H */
