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
#define NVSVM_GPC_ALL		0xfffffffeU	/* LAUNCH: every GPC */

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
	NVSVM_EXEC_TRAP,	/* LAUNCH: a work-item trapped: see trap */
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

/*
 * Programs: NVSVM_IOCTL_LAUNCH runs a compiled program over an NDRange,
 * every work-item an RV64IMAFD hart (the RISC-V unprivileged ISA without
 * compressed instructions; docs/gp100.md "Programs"). The device ABI:
 *
 * - Global addresses are the process's: every load, store and atomic
 *   outside the windows below is translated by the GPU's MMU (micro-TLB,
 *   page tables, replayable faults), as an EXEC operation's is.
 * - Windows, above the GPU's VA limit (so never a global address), each
 *   reached without the MMU:
 *   NVSVM_GPU_IMAGE_BASE  the program image, read and execute only;
 *                         link the program to run there;
 *   NVSVM_GPU_PARAM_BASE  the argument block, read only;
 *   NVSVM_GPU_LOCAL_BASE  the work-group's local memory (local_mem bytes),
 *                         shared by its work-items, zeroed at group start;
 *   NVSVM_GPU_PRIV_BASE   the work-item's private memory (priv_mem bytes),
 *                         its own; the stack grows down from its end.
 *   An access outside a window's bytes, a store to a read-only one, or a
 *   misaligned access anywhere traps.
 * - Entry: pc = NVSVM_GPU_IMAGE_BASE + entry, a0 = NVSVM_GPU_PARAM_BASE,
 *   sp = NVSVM_GPU_PRIV_BASE + priv_mem, ra = 0, every other register and
 *   fcsr zero. A work-item ends when it jumps to address 0 (its entry
 *   function returns) or makes ecall NVSVM_GPU_ECALL_EXIT.
 * - Work-item functions are read-only CSRs (csrr): enum nvsvm_gpu_csr,
 *   plus dimension 0..2 for the per-dimension ones. Dimensions at or
 *   above work_dim read as OpenCL says: ids and offsets 0, sizes 1.
 * - ecall: a7 selects the call (NVSVM_GPU_ECALL_*). BARRIER waits until
 *   every work-item of the work-group has reached a barrier or ended; it
 *   orders memory too (a0: NVSVM_GPU_FENCE_* flags, advisory).
 * - fence, and the aq/rl bits of atomics, order memory as the RISC-V
 *   memory model says; an atomic on system memory is atomic against the
 *   CPU only where nvsvm maps the page with atomics (uapi/nvsvm.h,
 *   NVSVM_CAP_SYSMEM_ATOMICS).
 */
#define NVSVM_GPU_IMAGE_BASE	0x4000000000000000ULL
#define NVSVM_GPU_PARAM_BASE	0x4800000000000000ULL
#define NVSVM_GPU_LOCAL_BASE	0x5000000000000000ULL
#define NVSVM_GPU_PRIV_BASE	0x6000000000000000ULL

enum nvsvm_gpu_csr {
	NVSVM_GPU_CSR_GLOBAL_ID = 0xcc0,	/* + dimension */
	NVSVM_GPU_CSR_LOCAL_ID = 0xcc3,
	NVSVM_GPU_CSR_GROUP_ID = 0xcc6,
	NVSVM_GPU_CSR_LOCAL_SIZE = 0xcc9,	/* this work-group's */
	NVSVM_GPU_CSR_ENQUEUED_LOCAL_SIZE = 0xccc,
	NVSVM_GPU_CSR_GLOBAL_SIZE = 0xccf,
	NVSVM_GPU_CSR_NUM_GROUPS = 0xcd2,
	NVSVM_GPU_CSR_GLOBAL_OFFSET = 0xcd5,
	NVSVM_GPU_CSR_WORK_DIM = 0xcd8,
	NVSVM_GPU_CSR_LOCAL_LINEAR_ID = 0xcd9,
	NVSVM_GPU_CSR_GPC_ID = 0xcda,	/* the GPC the work-group runs on */
	NVSVM_GPU_CSR_SM_ID = 0xcdb,	/* its SM, numbered in the GPC */
	NVSVM_GPU_CSR_END = 0xcdc,
};

#define NVSVM_GPU_ECALL_EXIT		0
#define NVSVM_GPU_ECALL_BARRIER		1
#define NVSVM_GPU_FENCE_LOCAL		0x1
#define NVSVM_GPU_FENCE_GLOBAL		0x2

/* struct nvsvm_launch.trap: why a work-item trapped (status TRAP). */
enum nvsvm_launch_trap {
	NVSVM_TRAP_NONE = 0,
	NVSVM_TRAP_ILLEGAL,	/* an instruction the SMs do not execute */
	NVSVM_TRAP_FETCH,	/* pc outside the image, or not 4-byte aligned */
	NVSVM_TRAP_MISALIGNED,	/* a load, store or atomic not naturally aligned */
	NVSVM_TRAP_WINDOW,	/* outside a window's bytes, or a store to a read-only one */
	NVSVM_TRAP_BREAK,	/* ebreak, or an unknown ecall */
	NVSVM_TRAP_BUDGET,	/* a work-item ran insn_budget instructions */
};

#define NVSVM_LAUNCH_MAX_IMAGE		(1U << 20)
#define NVSVM_LAUNCH_MAX_PARAM		4096
#define NVSVM_LAUNCH_MAX_GROUP		1024	/* work-items per work-group */
#define NVSVM_LAUNCH_MAX_LOCAL		(48U << 10)
#define NVSVM_LAUNCH_MAX_PRIV		(64U << 10)
#define NVSVM_LAUNCH_MAX_BUDGET		(1ULL << 40)
#define NVSVM_LAUNCH_DEFAULT_BUDGET	(1ULL << 24)
/* struct nvsvm_launch.timeout_ms: until the end, or a fatal signal. */
#define NVSVM_LAUNCH_NO_TIMEOUT		0xffffffffU

/**
 * struct nvsvm_launch - run a program over an NDRange and wait for it
 * @handle: (in) channel
 * @gpc: (in) GPC to run on, NVSVM_GPC_ANY (one, round robin), or
 *	NVSVM_GPC_ALL: the work-groups spread over every GPC
 * @image: (in) user pointer to the program image
 * @image_size: (in) bytes, a multiple of 4, 4 to NVSVM_LAUNCH_MAX_IMAGE
 * @entry: (in) byte offset of the entry point in the image, a multiple of 4
 * @param: (in) user pointer to the argument block
 * @param_size: (in) its bytes, 0 to NVSVM_LAUNCH_MAX_PARAM
 * @work_dim: (in) 1 to 3
 * @global_offset: (in) added to every global id; in the dimensions at or
 *	above @work_dim, @global_offset, @global_size and @local_size are zero
 * @global_size: (in) work-items in each dimension used, at least 1; with
 *	@global_offset, below 1 << 48. The last work-group of a dimension
 *	may be smaller than @local_size (OpenCL 2.0's non-uniform groups).
 * @local_size: (in) work-group size in each dimension used, at least 1;
 *	their product at most NVSVM_LAUNCH_MAX_GROUP
 * @local_mem: (in) bytes of local memory per work-group, a multiple of 8,
 *	at most NVSVM_LAUNCH_MAX_LOCAL
 * @priv_mem: (in) bytes of private memory per work-item, a multiple of 16,
 *	at most NVSVM_LAUNCH_MAX_PRIV
 * @timeout_ms: (in) 1 to 600000, or NVSVM_LAUNCH_NO_TIMEOUT: the launch
 *	then ends only when its work-items do or a fatal signal stops it (a
 *	real GPU's compute has no watchdog; this is what an OpenCL runtime
 *	wants)
 * @insn_budget: (in) most instructions a work-item may run (0: the default,
 *	NVSVM_LAUNCH_DEFAULT_BUDGET; at most NVSVM_LAUNCH_MAX_BUDGET)
 * @flags: (in) zero
 * @status: (out) enum nvsvm_exec_status
 * @fault_addr: (out) FAULT, FATAL: address of the failed access; TRAP: the
 *	address or instruction word concerned
 * @fault_access: (out) FAULT, FATAL: its NVSVM_ACCESS_*
 * @trap: (out) TRAP: enum nvsvm_launch_trap
 * @fault_pc: (out) FAULT, FATAL, TRAP: pc of the instruction
 * @insns: (out) instructions retired by all work-items
 * @groups_done: (out) work-groups that ran to their end
 *
 * Fails as EXEC does (ENOTTY, ENOENT, EINVAL, EINTR), and with E2BIG when
 * one work-group's state does not fit the model's per-launch memory
 * limit. The image, the argument block and each resident work-group's
 * state are kernel memory charged to the caller's memory cgroup.
 */
struct nvsvm_launch {
	__u32 handle;
	__u32 gpc;
	__u64 image;
	__u32 image_size;
	__u32 entry;
	__u64 param;
	__u32 param_size;
	__u32 work_dim;
	__u64 global_offset[3];
	__u64 global_size[3];
	__u32 local_size[3];
	__u32 local_mem;
	__u32 priv_mem;
	__u32 timeout_ms;
	__u64 insn_budget;
	__u32 flags;
	__u32 status;
	__u64 fault_addr;
	__u32 fault_access;
	__u32 trap;
	__u64 fault_pc;
	__u64 insns;
	__u64 groups_done;
};

#define NVSVM_IOCTL_LAUNCH	_IOWR(NVSVM_IOCTL_BASE, 0x20, struct nvsvm_launch)

#endif /* _UAPI_NVSVM_VGPU_H */
