/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SMs' instruction set: an interpreter of RV64IMAFD programs (the
 * RISC-V unprivileged ISA, no compressed instructions), written from the
 * RISC-V unprivileged specification and the device ABI of
 * uapi/nvsvm_vgpu.h (NVSVM_IOCTL_LAUNCH). A program is hostile input run
 * in the kernel: every decode path is bounds-checked, every access to a
 * window is checked against the window's bytes, every other access goes
 * to the model's MMU through rv_group.global, and nothing a program does
 * reaches any other kernel address.
 *
 * rv.c knows nothing of warps, GPCs or the MMU: the model (launch.c)
 * gives it a work-group's windows and a function for global accesses,
 * and runs each work-item's hart for a quantum at a time. The same file
 * is built into the host's test program (tests/host/rv-test.c) with the
 * shim rv_host.h, so the instruction tests run on the host as well as in
 * the kernel (selftest=1).
 */
#ifndef _NVSVM_VGPU_RV_H
#define _NVSVM_VGPU_RV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/gfp.h>
#include "uapi/nvsvm_vgpu.h"
#else
#include "rv_host.h"
#endif

/* Standard CSRs the SMs implement (read-only but for the FP ones). */
#define RV_CSR_FFLAGS		0x001
#define RV_CSR_FRM		0x002
#define RV_CSR_FCSR		0x003
#define RV_CSR_CYCLE		0xc00	/* reads the hart's retired count */
#define RV_CSR_TIME		0xc01	/* likewise */
#define RV_CSR_INSTRET		0xc02

/* Global memory accesses (struct rv_mem.kind). */
enum rv_kind {
	RV_LOAD,
	RV_STORE,
	RV_AMO,
};

/* AMO operations (struct rv_mem.amo), on @size bytes. */
enum rv_amo_op {
	RV_AMO_SWAP,
	RV_AMO_ADD,
	RV_AMO_XOR,
	RV_AMO_AND,
	RV_AMO_OR,
	RV_AMO_MIN,
	RV_AMO_MAX,
	RV_AMO_MINU,
	RV_AMO_MAXU,
	RV_AMO_CAS,	/* SC.W/SC.D: store @val if the word is still @cmp */
};

#define RV_ORDER_RL		0x1	/* the aq/rl bits of an AMO, LR or SC */
#define RV_ORDER_AQ		0x2

/**
 * struct rv_mem - one global memory access of a work-item
 * @va: address, naturally aligned (the interpreter traps otherwise)
 * @size: 1, 2, 4 or 8
 * @kind: enum rv_kind
 * @amo: enum rv_amo_op (RV_AMO)
 * @order: RV_ORDER_* (RV_AMO)
 * @val: store value, AMO operand; (out) a load's value, an AMO's old
 *	value, zero-extended from @size bytes
 * @cmp: RV_AMO_CAS: the value the word must hold
 */
struct rv_mem {
	u64 va;
	u8 size;
	u8 kind;
	u8 amo;
	u8 order;
	u64 val;
	u64 cmp;
};

/* What rv_group.global returns. */
enum rv_mem_res {
	RV_MEM_OK,	/* done; the instruction retires */
	RV_MEM_STALL,	/* not done (a fault): the instruction retries later */
	RV_MEM_STOP,	/* not done, and the launch stops (the caller knows why) */
};

struct rv_prog;

/**
 * struct rv_group - what the work-items of one work-group share
 * @prog: the loaded program (rv_prog_load())
 * @param: the argument block (NVSVM_GPU_PARAM_BASE), read only
 * @param_size: its bytes
 * @local: the group's local memory (NVSVM_GPU_LOCAL_BASE)
 * @local_size: its bytes
 * @priv_size: bytes of each work-item's private memory
 * @csr: values of the work-item CSRs, indexed by csr - NVSVM_GPU_CSR_GLOBAL_ID;
 *	the interpreter itself gives the per-item ones (GLOBAL_ID, LOCAL_ID,
 *	LOCAL_LINEAR_ID) from the hart's @lid and these
 * @global: performs a global access (any address outside the windows)
 * @env: passed to @global
 */
struct rv_group {
	const struct rv_prog *prog;
	const void *param;
	u32 param_size;
	void *local;
	u32 local_size;
	u32 priv_size;
	u64 csr[NVSVM_GPU_CSR_END - NVSVM_GPU_CSR_GLOBAL_ID];
	int (*global)(void *env, struct rv_mem *m);
	void *env;
};

/**
 * struct rv_hart - one work-item
 * @x: integer registers (x[0] reads 0 whatever is written)
 * @f: floating-point registers, 64 bits (singles NaN-boxed)
 * @pc: program counter
 * @insns: instructions retired
 * @budget: the hart traps (NVSVM_TRAP_BUDGET) instead of retiring
 *	instruction number @budget + 1
 * @resv_va: LR's reservation: address
 * @resv_val: LR's reservation: the value it read
 * @resv: a reservation is held
 * @fcsr: fflags (bits 4..0) and frm (bits 7..5)
 * @lid: local id in each dimension
 * @priv: its private memory (rv_group.priv_size bytes)
 */
struct rv_hart {
	u64 x[32];
	u64 f[32];
	u64 pc;
	u64 insns;
	u64 budget;
	u64 resv_va;
	u64 resv_val;
	bool resv;
	u32 fcsr;
	u32 lid[3];
	void *priv;
};

/* Why rv_run() returned. */
enum rv_stop {
	RV_STOP_QUANTUM,	/* ran its quantum; it goes on */
	RV_STOP_STALL,		/* a global access stalled; the instruction retries */
	RV_STOP_BARRIER,	/* retired a barrier ecall: waits for its group */
	RV_STOP_EXIT,		/* the work-item ended */
	RV_STOP_TRAP,		/* the launch fails: see struct rv_trap */
	RV_STOP_MEM,		/* rv_group.global returned RV_MEM_STOP */
};

/**
 * struct rv_trap - why and where a hart trapped
 * @cause: enum nvsvm_launch_trap
 * @pc: the instruction's address
 * @tval: the address concerned (FETCH, MISALIGNED, WINDOW), or the
 *	instruction word (ILLEGAL), or 0
 */
struct rv_trap {
	u32 cause;
	u64 pc;
	u64 tval;
};

bool rv_amo_new(const struct rv_mem *m, u64 old, u64 *new);

/**
 * rv_prog_load() - check and decode a program image
 * @image: the image, linked to run at NVSVM_GPU_IMAGE_BASE
 * @size: its bytes, a multiple of 4, 4 to NVSVM_LAUNCH_MAX_IMAGE
 * @gfp: allocation flags (GFP_KERNEL_ACCOUNT from an ioctl)
 *
 * Every word is decoded once; words that are not instructions the SMs
 * execute (data, or bad input) decode to a trap, raised only if executed.
 *
 * Return: the program (its own copy of @image), or an ERR_PTR: -EINVAL
 * for a bad size, -ENOMEM.
 */
struct rv_prog *rv_prog_load(const void *image, u32 size, gfp_t gfp);

/**
 * rv_prog_free() - free a program from rv_prog_load()
 * @prog: the program, or NULL
 */
void rv_prog_free(struct rv_prog *prog);

/**
 * rv_hart_init() - a work-item's state at its entry (uapi/nvsvm_vgpu.h)
 * @h: the hart; @h->priv, @h->lid and @h->budget are the caller's, set
 *	before or after
 * @g: its work-group
 * @entry: byte offset of the entry point in the image
 */
void rv_hart_init(struct rv_hart *h, const struct rv_group *g, u32 entry);

/**
 * rv_run() - run a hart for at most @quantum instructions
 * @h: the hart
 * @g: its work-group
 * @quantum: most instructions to retire now (at least 1)
 * @trap: (out) filled for RV_STOP_TRAP
 *
 * Stops early at a global access that stalls (the instruction has not
 * retired: pc unchanged, no register written), at a barrier, at the
 * work-item's end, at a trap.
 *
 * Return: enum rv_stop.
 */
int rv_run(struct rv_hart *h, const struct rv_group *g, u32 quantum,
	   struct rv_trap *trap);

/**
 * rv_selftest() - the interpreter's own tests (rv_selftest.c)
 * @result: called once per instruction group with its outcome and name
 * @ctx: passed to @result
 *
 * Runs hand-assembled programs on edge values against a fake global
 * memory, in the kernel (selftest=1) or on the host (tests/host/rv-test).
 *
 * Return: the number of groups that failed.
 */
int rv_selftest(void (*result)(void *ctx, bool ok, const char *name),
		void *ctx);

#endif /* _NVSVM_VGPU_RV_H */
