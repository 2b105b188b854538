// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter's own tests (rv_selftest(), rv.h): a table of
 * hand-assembled programs, each run on a fresh hart against a fake
 * global memory and small windows, with the registers, memory, fflags
 * and stop reason it must end with. One result per instruction group.
 * Built into nvsvm_vgpu.ko (selftest=1, src/vgpu/selftest.c) and into
 * the host's tests/host/rv-test.
 */
#ifdef __KERNEL__
#define pr_fmt(fmt) "nvsvm_vgpu_selftest: " fmt	/* selftest.c's lines */
#include <linux/kernel.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#define rvst_log(...)	pr_info(__VA_ARGS__)
#else
#include <stdio.h>
#define rvst_log(...)	printf(__VA_ARGS__)
#endif

#include "rv.h"
#include "rv_fp.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Instruction formats. */
#define R_(f7, rs2, rs1, f3, rd, op) \
	((u32)(f7) << 25 | (u32)(rs2) << 20 | (u32)(rs1) << 15 | \
	 (u32)(f3) << 12 | (u32)(rd) << 7 | (u32)(op))
#define I_(imm, rs1, f3, rd, op) \
	(((u32)(imm) & 0xfff) << 20 | (u32)(rs1) << 15 | (u32)(f3) << 12 | \
	 (u32)(rd) << 7 | (u32)(op))
#define S_(imm, rs2, rs1, f3, op) \
	((((u32)(imm) >> 5) & 0x7f) << 25 | (u32)(rs2) << 20 | \
	 (u32)(rs1) << 15 | (u32)(f3) << 12 | ((u32)(imm) & 0x1f) << 7 | \
	 (u32)(op))
#define B_(off, rs1, rs2, f3) \
	((((u32)(off) >> 12) & 1) << 31 | (((u32)(off) >> 5) & 0x3f) << 25 | \
	 (u32)(rs2) << 20 | (u32)(rs1) << 15 | (u32)(f3) << 12 | \
	 (((u32)(off) >> 1) & 0xf) << 8 | (((u32)(off) >> 11) & 1) << 7 | 0x63)
#define J_(off, rd) \
	((((u32)(off) >> 20) & 1) << 31 | (((u32)(off) >> 1) & 0x3ff) << 21 | \
	 (((u32)(off) >> 11) & 1) << 20 | (((u32)(off) >> 12) & 0xff) << 12 | \
	 (u32)(rd) << 7 | 0x6f)

#define ADDI(d, s, i)	I_(i, s, 0, d, 0x13)
#define SLTI(d, s, i)	I_(i, s, 2, d, 0x13)
#define SLTIU(d, s, i)	I_(i, s, 3, d, 0x13)
#define XORI(d, s, i)	I_(i, s, 4, d, 0x13)
#define ORI(d, s, i)	I_(i, s, 6, d, 0x13)
#define ANDI(d, s, i)	I_(i, s, 7, d, 0x13)
#define SLLI(d, s, i)	I_(i, s, 1, d, 0x13)
#define SRLI(d, s, i)	I_(i, s, 5, d, 0x13)
#define SRAI(d, s, i)	I_(0x400 | (i), s, 5, d, 0x13)
#define ADDIW(d, s, i)	I_(i, s, 0, d, 0x1b)
#define SLLIW(d, s, i)	I_(i, s, 1, d, 0x1b)
#define SRLIW(d, s, i)	I_(i, s, 5, d, 0x1b)
#define SRAIW(d, s, i)	I_(0x400 | (i), s, 5, d, 0x1b)
#define OP(f7, f3, d, a, b)	R_(f7, b, a, f3, d, 0x33)
#define OPW(f7, f3, d, a, b)	R_(f7, b, a, f3, d, 0x3b)
#define LUI(d, i)	((u32)(i) << 12 | (u32)(d) << 7 | 0x37)
#define AUIPC(d, i)	((u32)(i) << 12 | (u32)(d) << 7 | 0x17)
#define JAL(d, off)	J_(off, d)
#define JALR(d, s, i)	I_(i, s, 0, d, 0x67)
#define BR(f3, a, b, off)	B_(off, a, b, f3)
#define LD_(f3, d, s, i)	I_(i, s, f3, d, 0x03)
#define ST_(f3, b, s, i)	S_(i, b, s, f3, 0x23)
#define AMO(f5, f3, d, a, b)	R_((f5) << 2, b, a, f3, d, 0x2f)
#define FLW(d, s, i)	I_(i, s, 2, d, 0x07)
#define FLD(d, s, i)	I_(i, s, 3, d, 0x07)
#define FSW(b, s, i)	S_(i, b, s, 2, 0x27)
#define FSD(b, s, i)	S_(i, b, s, 3, 0x27)
#define FOP(f7, b, a, rm, d)	R_(f7, b, a, rm, d, 0x53)
#define FMA(op, fmt, d, a, b, c, rm) \
	((u32)(c) << 27 | (u32)(fmt) << 25 | (u32)(b) << 20 | \
	 (u32)(a) << 15 | (u32)(rm) << 12 | (u32)(d) << 7 | (u32)(op))
#define CSR(f3, d, csr, s)	I_(csr, s, f3, d, 0x73)
#define ECALL		0x00000073U
#define EBREAK		0x00100073U
#define FENCE		0x0ff0000fU
#define FENCE_I		0x0000100fU
#define END		JALR(0, 0, 0)	/* to address 0: the item's end */

/* Registers of a case: x0..x31, f0..f31, fcsr, pc, insns. */
#define X(n)		(1 + (n))
#define F(n)		(33 + (n))
#define FCSR		65
#define PC		66
#define INSNS		67

#define T0	5
#define T1	6
#define A0	10
#define A1	11
#define A2	12
#define A7	17

#define G	0x10000ULL	/* the fake global memory */
#define IB	NVSVM_GPU_IMAGE_BASE
#define PB	NVSVM_GPU_PARAM_BASE
#define LB	NVSVM_GPU_LOCAL_BASE
#define VB	NVSVM_GPU_PRIV_BASE
#define WIN	64		/* bytes of each window but the image */

#define ONE_S	0xffffffff3f800000ULL	/* 1.0f, boxed */
#define TWO_S	0xffffffff40000000ULL
#define THREE_S	0xffffffff40400000ULL
#define QNAN_S	0xffffffff7fc00000ULL
#define ONE_D	0x3ff0000000000000ULL
#define TWO_D	0x4000000000000000ULL
#define THREE_D	0x4008000000000000ULL

struct rvst_reg {
	u8 r;
	u64 v;
};

/**
 * struct rvst_case - one program and what it must end with
 * @group: the result it counts in
 * @code: the words (up to the last non-zero one); END is appended
 * @in: initial registers (after rv_hart_init())
 * @out: registers at the end
 * @cause: the trap expected (0: none)
 * @tval: the trap's tval
 * @stop: the stop expected without a trap (0: RV_STOP_EXIT)
 * @budget: the hart's budget (0: 1000)
 * @stall_va: the fake memory stalls once at this address
 * @mem_va: a memory word to check (global or window)
 * @mem_val: its value
 */
struct rvst_case {
	const char *group;
	u32 code[8];
	struct rvst_reg in[5];
	struct rvst_reg out[4];
	u8 cause;
	u8 stop;
	u64 tval;
	u64 budget;
	u64 stall_va;
	u64 mem_va;
	u64 mem_val;
};

#define M	RV_STOP_MEM
#define BAR	RV_STOP_BARRIER
#define T_ILL	NVSVM_TRAP_ILLEGAL
#define T_FETCH	NVSVM_TRAP_FETCH
#define T_MIS	NVSVM_TRAP_MISALIGNED
#define T_WIN	NVSVM_TRAP_WINDOW
#define T_BRK	NVSVM_TRAP_BREAK
#define T_BUD	NVSVM_TRAP_BUDGET

static const struct rvst_case rvst_cases[] = {
	/* RV64I immediates */
	{ "rv64i_imm", { ADDI(T0, 0, -2048) }, {},
	  { { X(T0), 0xfffffffffffff800ULL } } },
	{ "rv64i_imm", { ADDI(0, T0, 5), ADDI(T1, 0, 2047) }, { { X(T0), 1 } },
	  { { X(0), 0 }, { X(T1), 2047 } } },
	{ "rv64i_imm", { SLTI(T0, A1, 0), SLTIU(T1, A2, -1) },
	  { { X(A1), ~0ULL }, { X(A2), 1 } }, { { X(T0), 1 }, { X(T1), 1 } } },
	{ "rv64i_imm", { XORI(T0, A1, -1), ORI(T1, A1, 0x700), ANDI(A2, A1, 0x7f0) },
	  { { X(A1), 0x123 } }, { { X(T0), ~0x123ULL }, { X(T1), 0x723 },
	  { X(A2), 0x120 } } },
	/* shifts: by 63, by 64 (masked to 0), W forms */
	{ "rv64i_shift", { SLLI(T0, A1, 63), SRLI(T1, A2, 63), SRAI(A1, A2, 63) },
	  { { X(A1), 3 }, { X(A2), 1ULL << 63 } },
	  { { X(T0), 1ULL << 63 }, { X(T1), 1 }, { X(A1), ~0ULL } } },
	{ "rv64i_shift", { OP(0, 1, T0, A1, A2), OP(0, 5, T1, A1, A2),
	  OP(0x20, 5, A2, A1, A2) },
	  { { X(A1), 0x8000000000000010ULL }, { X(A2), 64 } },
	  { { X(T0), 0x8000000000000010ULL }, { X(T1), 0x8000000000000010ULL },
	  { X(A2), 0x8000000000000010ULL } } },
	{ "rv64i_shift", { OP(0, 1, T0, A1, A2), OP(0x20, 5, T1, A1, A2) },
	  { { X(A1), 0x8000000000000001ULL }, { X(A2), 127 } },
	  { { X(T0), 1ULL << 63 }, { X(T1), ~0ULL } } },
	{ "rv64i_shift", { SLLIW(T0, A1, 31), SRLIW(T1, T0, 31), SRAIW(A2, T0, 31) },
	  { { X(A1), 0x100000001ULL } },
	  { { X(T0), 0xffffffff80000000ULL }, { X(T1), 1 }, { X(A2), ~0ULL } } },
	{ "rv64i_shift", { OPW(0, 1, T0, A1, A2), OPW(0, 5, T1, A1, A2),
	  OPW(0x20, 5, A2, A1, A2) },
	  { { X(A1), 0xf80000000ULL | 0x80000000ULL }, { X(A2), 33 } },
	  { { X(T0), 0 }, { X(T1), 0x40000000 }, { X(A2), 0xffffffffc0000000ULL } } },
	{ "rv64i_shift", { SLLIW(T0, A1, 0), OPW(0, 1, T1, A1, A2) },
	  { { X(A1), 0x80000000ULL }, { X(A2), 32 } },
	  { { X(T0), 0xffffffff80000000ULL }, { X(T1), 0xffffffff80000000ULL } } },
	{ "rv64i_shift", { I_(0x020, A1, 1, T0, 0x1b) }, {}, {}, T_ILL,
	  .tval = I_(0x020, A1, 1, T0, 0x1b) },
	{ "rv64i_shift", { I_(0x840, A1, 1, T0, 0x13) }, {}, {}, T_ILL,
	  .tval = I_(0x840, A1, 1, T0, 0x13) },
	/* register-register */
	{ "rv64i_reg", { OP(0, 0, T0, A1, A2), OP(0x20, 0, T1, A2, A1),
	  OP(0, 2, A7, A1, A2), OP(0, 3, A0, A1, A2) },
	  { { X(A1), ~0ULL }, { X(A2), 2 } },
	  { { X(T0), 1 }, { X(T1), 3 }, { X(A7), 1 }, { X(A0), 0 } } },
	{ "rv64i_reg", { OP(0, 4, T0, A1, A2), OP(0, 6, T1, A1, A2),
	  OP(0, 7, A0, A1, A2) }, { { X(A1), 0xff00 }, { X(A2), 0x0ff0 } },
	  { { X(T0), 0xf0f0 }, { X(T1), 0xfff0 }, { X(A0), 0x0f00 } } },
	{ "rv64i_reg", { OPW(0, 0, T0, A1, A2), OPW(0x20, 0, T1, A2, A1),
	  ADDIW(A0, A1, 1) }, { { X(A1), 0x7fffffff }, { X(A2), 1 } },
	  { { X(T0), 0xffffffff80000000ULL }, { X(T1), 0xffffffff80000002ULL },
	  { X(A0), 0xffffffff80000000ULL } } },
	{ "rv64i_upper", { LUI(T0, 0x80000), AUIPC(T1, 0), AUIPC(A1, 1) }, {},
	  { { X(T0), 0xffffffff80000000ULL }, { X(T1), IB + 4 },
	  { X(A1), IB + 8 + 0x1000 } } },
	/* jumps and branches */
	{ "rv64i_jump", { JAL(1, 8), ADDI(T0, 0, 1), ADDI(T1, 0, 2) }, {},
	  { { X(1), IB + 4 }, { X(T0), 0 }, { X(T1), 2 } } },
	{ "rv64i_jump", { JALR(1, A1, 0), ADDI(T0, 0, 1), ADDI(T1, 0, 2) },
	  { { X(A1), IB + 9 } }, { { X(1), IB + 4 }, { X(T0), 0 }, { X(T1), 2 } } },
	{ "rv64i_jump", { JALR(T0, T0, 8), ADDI(T1, 0, 1) }, { { X(T0), IB } },
	  { { X(T0), IB + 4 }, { X(T1), 0 } } },
	{ "rv64i_jump", { ADDI(T0, 0, 1), JAL(0, -4 - 4) }, {},
	  { { X(T0), 1 }, { PC, IB - 4 }, { INSNS, 2 } }, T_FETCH, .tval = IB - 4 },
	{ "rv64i_branch", { BR(0, A1, A1, 8), ADDI(T0, 0, 1), BR(1, A1, A1, 8),
	  ADDI(T1, 0, 1) }, { { X(A1), 5 } }, { { X(T0), 0 }, { X(T1), 1 } } },
	{ "rv64i_branch", { BR(4, A1, A2, 8), ADDI(T0, 0, 1), BR(5, A1, A2, 8),
	  ADDI(T1, 0, 1) }, { { X(A1), ~0ULL }, { X(A2), 1 } },
	  { { X(T0), 0 }, { X(T1), 1 } } },
	{ "rv64i_branch", { BR(6, A1, A2, 8), ADDI(T0, 0, 1), BR(7, A1, A2, 8),
	  ADDI(T1, 0, 1) }, { { X(A1), ~0ULL }, { X(A2), 1 } },
	  { { X(T0), 1 }, { X(T1), 0 } } },
	{ "rv64i_branch", { BR(2, A1, A2, 8) }, {}, {}, T_ILL,
	  .tval = BR(2, A1, A2, 8) },
	/* loads: global (word 0: 0xfffffffe80000000) and every window */
	{ "rv64i_load", { LD_(0, T0, A1, 3), LD_(4, T1, A1, 3), LD_(1, A2, A1, 2),
	  LD_(5, A7, A1, 2) }, { { X(A1), G } },
	  { { X(T0), 0xffffffffffffff80ULL }, { X(T1), 0x80 },
	  { X(A2), 0xffffffffffff8000ULL }, { X(A7), 0x8000 } } },
	{ "rv64i_load", { LD_(2, T0, A1, 0), LD_(6, T1, A1, 0), LD_(3, A2, A1, 0) },
	  { { X(A1), G } }, { { X(T0), 0xffffffff80000000ULL },
	  { X(T1), 0x80000000ULL }, { X(A2), 0xfffffffe80000000ULL } } },
	{ "rv64i_load", { LD_(3, T0, A0, 8), LD_(3, T1, A1, WIN - 8),
	  LD_(2, A2, A7, 0) }, { { X(A1), LB }, { X(A7), IB } },
	  { { X(T0), 0x0123456789abcdefULL }, { X(T1), 0x55 },
	  { X(A2), LD_(3, T0, A0, 8) } } },
	{ "rv64i_load", { LD_(3, T0, 2, -8), LD_(0, T1, A1, 8) },
	  { { X(A1), PB } }, { { X(T0), 0x66 }, { X(T1), 0xffffffffffffffefULL } } },
	{ "rv64i_store", { ST_(0, A2, A1, 0), ST_(1, A2, A1, 2), ST_(2, A2, A1, 4) },
	  { { X(A1), G }, { X(A2), 0x1122334455667788ULL } }, {},
	  .mem_va = G, .mem_val = 0x5566778877880088ULL },
	{ "rv64i_store", { ST_(3, A2, A1, 16) },
	  { { X(A1), G }, { X(A2), 0x1122334455667788ULL } }, {},
	  .mem_va = G + 16, .mem_val = 0x1122334455667788ULL },
	{ "rv64i_store", { ST_(3, A2, A1, 8), LD_(3, T0, A1, 8) },
	  { { X(A1), LB }, { X(A2), 0xabcdef } }, { { X(T0), 0xabcdef } },
	  .mem_va = LB + 8, .mem_val = 0xabcdef },
	{ "rv64i_store", { ST_(2, A2, 2, -4) }, { { X(A2), 0x12345678 } }, {},
	  .mem_va = VB + WIN - 8, .mem_val = 0x1234567800000000ULL | 0x66 },
	/* misaligned: everywhere, before anything else */
	{ "misaligned", { LD_(1, T0, A1, 1) }, { { X(A1), G } },
	  { { X(T0), 0 }, { PC, IB }, { INSNS, 0 } }, T_MIS, .tval = G + 1 },
	{ "misaligned", { ST_(2, A2, A1, 2) }, { { X(A1), LB } }, {}, T_MIS,
	  .tval = LB + 2 },
	{ "misaligned", { ST_(3, A2, A1, 4) }, { { X(A1), IB } }, {}, T_MIS,
	  .tval = IB + 4 },
	{ "misaligned", { LD_(3, T0, A1, 0) }, { { X(A1), 3 } }, {}, T_MIS,
	  .tval = 3 },
	{ "misaligned", { AMO(0, 3, T0, A1, A2) }, { { X(A1), G + 4 } }, {}, T_MIS,
	  .tval = G + 4 },
	{ "misaligned", { AMO(2, 2, T0, A1, 0) }, { { X(A1), PB + 2 } }, {}, T_MIS,
	  .tval = PB + 2 },
	/* windows' bytes and rights */
	{ "window", { LD_(2, T0, A0, WIN - 8), LD_(3, T1, A0, WIN - 8) }, {},
	  { { X(T0), 0x66 }, { X(T1), 0 } }, T_WIN, .tval = PB + WIN - 8 },
	{ "window", { LD_(2, T1, A0, WIN) }, {}, {}, T_WIN, .tval = PB + WIN },
	{ "window", { LD_(3, T0, A1, 0) }, { { X(A1), LB + 0x7fffffffffffff8ULL } },
	  {}, T_WIN, .tval = LB + 0x7fffffffffffff8ULL },
	{ "window", { LD_(0, T0, 2, 0) }, {}, {}, T_WIN, .tval = VB + WIN },
	{ "window", { LD_(4, T0, A1, 8) }, { { X(A1), IB } }, {}, T_WIN,
	  .tval = IB + 8 },
	{ "window", { ST_(0, 0, A1, 0) }, { { X(A1), IB } }, {}, T_WIN, .tval = IB },
	{ "window", { ST_(3, 0, A0, 0) }, {}, {}, T_WIN, .tval = PB },
	{ "window", { AMO(0, 2, T0, A0, 0) }, {}, { { X(T0), 0 } }, T_WIN,
	  .tval = PB },
	{ "window", { LD_(3, T0, A1, 0) }, { { X(A1), 0x8000000000000000ULL } },
	  {}, .stop = M },
	{ "window", { LD_(3, T0, A1, 0) }, { { X(A1), G + 256 } }, {}, .stop = M },
	/* fetch */
	{ "fetch", { JALR(0, A1, 2) }, { { X(A1), IB } }, { { PC, IB + 2 } },
	  T_FETCH, .tval = IB + 2 },
	{ "fetch", { JALR(0, A1, 8) }, { { X(A1), IB } }, {}, T_FETCH,
	  .tval = IB + 8 },
	{ "fetch", { JALR(0, A1, 0) }, { { X(A1), 0x1000 } }, {}, T_FETCH,
	  .tval = 0x1000 },
	/* illegal words */
	{ "illegal", { 0, ADDI(0, 0, 0) }, {}, {}, T_ILL, .tval = 0 },
	{ "illegal", { 0xffffffffU }, {}, {}, T_ILL, .tval = 0xffffffffU },
	{ "illegal", { 0x00004501U }, {}, {}, T_ILL, .tval = 0x00004501U },
	{ "illegal", { 0x30200073U }, {}, {}, T_ILL, .tval = 0x30200073U },
	{ "illegal", { 0x10500073U }, {}, {}, T_ILL, .tval = 0x10500073U },
	{ "illegal", { R_(1, 0, 0, 0, 1, 0x73) }, {}, {}, T_ILL,
	  .tval = R_(1, 0, 0, 0, 1, 0x73) },
	{ "illegal", { LD_(7, T0, A1, 0) }, {}, {}, T_ILL,
	  .tval = LD_(7, T0, A1, 0) },
	{ "illegal", { ST_(4, T0, A1, 0) }, {}, {}, T_ILL,
	  .tval = ST_(4, T0, A1, 0) },
	{ "illegal", { I_(0, 0, 2, 0, 0x0f) }, {}, {}, T_ILL,
	  .tval = I_(0, 0, 2, 0, 0x0f) },
	{ "illegal", { OP(2, 0, T0, A1, A2) }, {}, {}, T_ILL,
	  .tval = OP(2, 0, T0, A1, A2) },
	{ "illegal", { AMO(5, 2, T0, A1, A2) }, {}, {}, T_ILL,
	  .tval = AMO(5, 2, T0, A1, A2) },
	{ "illegal", { AMO(2, 2, T0, A1, A2) }, {}, {}, T_ILL,
	  .tval = AMO(2, 2, T0, A1, A2) },
	{ "illegal", { AMO(0, 4, T0, A1, A2) }, {}, {}, T_ILL,
	  .tval = AMO(0, 4, T0, A1, A2) },
	{ "illegal", { FOP(0, 1, 2, 5, 3) }, {}, {}, T_ILL,
	  .tval = FOP(0, 1, 2, 5, 3) },
	{ "illegal", { FOP(0x06, 1, 2, 0, 3) }, {}, {}, T_ILL,
	  .tval = FOP(0x06, 1, 2, 0, 3) },
	{ "illegal", { FOP(0, 1, 2, 7, 3) }, { { FCSR, 5 << 5 } },
	  { { FCSR, 5 << 5 }, { PC, IB } }, T_ILL, .tval = FOP(0, 1, 2, 7, 3) },
	{ "illegal", { FOP(0x2c, 1, 2, 0, 3) }, {}, {}, T_ILL,
	  .tval = FOP(0x2c, 1, 2, 0, 3) },
	{ "illegal", { FLD(1, A1, 0) & ~0x7000U }, {}, {}, T_ILL,
	  .tval = FLD(1, A1, 0) & ~0x7000U },
	/* ecall, ebreak, fence */
	{ "ecall_ebreak_fence", { ECALL, ADDI(T0, 0, 1) }, { { X(A7), 0 } },
	  { { PC, IB + 4 }, { INSNS, 1 }, { X(T0), 0 } } },
	{ "ecall_ebreak_fence", { ECALL }, { { X(A7), 1 } },
	  { { PC, IB + 4 }, { INSNS, 1 } }, .stop = BAR },
	{ "ecall_ebreak_fence", { ECALL }, { { X(A7), 2 } }, { { INSNS, 0 } },
	  T_BRK },
	{ "ecall_ebreak_fence", { ADDI(T0, 0, 1), EBREAK }, {},
	  { { PC, IB + 4 }, { X(T0), 1 } }, T_BRK },
	{ "ecall_ebreak_fence", { FENCE, FENCE_I }, {}, { { INSNS, 3 } } },
	/* budget */
	{ "budget", { ADDI(T0, T0, 1), ADDI(T0, T0, 1), ADDI(T0, T0, 1),
	  ADDI(T0, T0, 1), ADDI(T0, T0, 1) }, {},
	  { { X(T0), 3 }, { PC, IB + 12 }, { INSNS, 3 } }, T_BUD, .budget = 3 },
	{ "budget", { ADDI(T0, T0, 1) }, {}, { { INSNS, 2 } }, .budget = 2 },
	{ "budget", { ADDI(T0, T0, 1), ADDI(T0, T0, 1) }, {},
	  { { X(T0), 2 }, { INSNS, 2 }, { PC, IB + 8 } }, T_BUD, .budget = 2 },
	/* M */
	{ "mul", { OP(1, 0, T0, A1, A2), OP(1, 1, T1, A1, A2), OP(1, 3, A0, A1, A2),
	  OP(1, 2, A7, A1, A2) }, { { X(A1), ~0ULL }, { X(A2), ~0ULL } },
	  { { X(T0), 1 }, { X(T1), 0 }, { X(A0), ~1ULL }, { X(A7), ~0ULL } } },
	{ "mul", { OP(1, 1, T0, A1, A1), OP(1, 2, T1, A1, A2), OP(1, 3, A0, A1, A2) },
	  { { X(A1), 1ULL << 63 }, { X(A2), 4 } },
	  { { X(T0), 1ULL << 62 }, { X(T1), ~1ULL }, { X(A0), 2 } } },
	{ "mul", { OP(1, 1, T0, A1, A2), OPW(1, 0, T1, A1, A2) },
	  { { X(A1), 0x123456789ULL }, { X(A2), 0x10000 } },
	  { { X(T0), 0 }, { X(T1), 0x67890000 } } },
	{ "div", { OP(1, 4, T0, A1, 0), OP(1, 6, T1, A1, 0), OP(1, 5, A0, A1, 0),
	  OP(1, 7, A7, A1, 0) }, { { X(A1), 7 } },
	  { { X(T0), ~0ULL }, { X(T1), 7 }, { X(A0), ~0ULL }, { X(A7), 7 } } },
	{ "div", { OP(1, 4, T0, A1, A2), OP(1, 6, T1, A1, A2) },
	  { { X(A1), 1ULL << 63 }, { X(A2), ~0ULL } },
	  { { X(T0), 1ULL << 63 }, { X(T1), 0 } } },
	{ "div", { OP(1, 4, T0, A1, A2), OP(1, 6, T1, A1, A2), OP(1, 5, A0, A1, A2),
	  OP(1, 7, A7, A1, A2) }, { { X(A1), -7ULL }, { X(A2), 2 } },
	  { { X(T0), -3ULL }, { X(T1), -1ULL }, { X(A0), (-7ULL) / 2 },
	  { X(A7), 1 } } },
	{ "div", { OPW(1, 4, T0, A1, A2), OPW(1, 6, T1, A1, A2), OPW(1, 4, A0, A1, 0),
	  OPW(1, 6, A7, A1, 0) }, { { X(A1), 0x80000000ULL }, { X(A2), ~0ULL } },
	  { { X(T0), 0xffffffff80000000ULL }, { X(T1), 0 }, { X(A0), ~0ULL },
	  { X(A7), 0xffffffff80000000ULL } } },
	{ "div", { OPW(1, 5, T0, A1, A2), OPW(1, 7, T1, A1, 0), OPW(1, 5, A0, A1, 0),
	  OPW(1, 7, A7, A1, A2) }, { { X(A1), 0x1ffffffffULL }, { X(A2), 2 } },
	  { { X(T0), 0x7fffffff }, { X(T1), ~0ULL }, { X(A0), ~0ULL },
	  { X(A7), 1 } } },
	/* CSRs: group 2 of 8 items, offset 100, lid (3, 1, 0), local size 8x4 */
	{ "csr", { CSR(2, T0, 0xcc0, 0), CSR(2, T1, 0xcc3, 0), CSR(2, A0, 0xcd9, 0),
	  CSR(2, A1, 0xcc6, 0) }, {}, { { X(T0), 119 }, { X(T1), 3 },
	  { X(A0), 11 }, { X(A1), 2 } } },
	{ "csr", { CSR(2, T0, 0xcd8, 0), CSR(2, T1, 0xcc5, 0), CSR(2, A0, 0xcca, 0),
	  CSR(2, A1, 0xc02, 0) }, {}, { { X(T0), 1 }, { X(T1), 0 },
	  { X(A0), 4 }, { X(A1), 3 } } },
	{ "csr", { CSR(2, T0, 0xc00, 0), CSR(2, T1, 0xc01, 0), CSR(6, A0, 0xcc0, 0),
	  CSR(3, A1, 0xcc0, 0) }, {}, { { X(T0), 0 }, { X(T1), 1 },
	  { X(A0), 119 }, { X(A1), 119 } } },
	{ "csr", { CSR(5, T0, 1, 0x1f), CSR(5, T1, 2, 3), CSR(2, A0, 3, 0) }, {},
	  { { X(T0), 0 }, { X(T1), 0 }, { X(A0), 0x7f }, { FCSR, 0x7f } } },
	{ "csr", { CSR(1, T0, 3, A1), CSR(3, T1, 1, A2), CSR(6, A0, 2, 4),
	  CSR(7, A7, 3, 1) }, { { X(A1), 0x1ff }, { X(A2), 0x3 } },
	  { { X(T0), 0 }, { X(T1), 0x1f }, { X(A0), 7 }, { FCSR, 0xfc } } },
	{ "csr", { CSR(1, T0, 0xc00, 0) }, {}, {}, T_ILL,
	  .tval = CSR(1, T0, 0xc00, 0) },
	{ "csr", { CSR(2, T0, 0xcc0, 1) }, {}, {}, T_ILL,
	  .tval = CSR(2, T0, 0xcc0, 1) },
	{ "csr", { CSR(7, T0, 0xcd9, 1) }, {}, {}, T_ILL,
	  .tval = CSR(7, T0, 0xcd9, 1) },
	{ "csr", { CSR(2, T0, 0x300, 0) }, {}, {}, T_ILL,
	  .tval = CSR(2, T0, 0x300, 0) },
	{ "csr", { CSR(2, T0, 0xcdc, 0) }, {}, {}, T_ILL,
	  .tval = CSR(2, T0, 0xcdc, 0) },
	/* LR/SC */
	{ "lr_sc", { AMO(2, 3, T0, A1, 0), AMO(3, 3, T1, A1, A2) },
	  { { X(A1), G }, { X(A2), 42 } },
	  { { X(T0), 0xfffffffe80000000ULL }, { X(T1), 0 } },
	  .mem_va = G, .mem_val = 42 },
	{ "lr_sc", { AMO(3, 3, T1, A1, A2) }, { { X(A1), G }, { X(A2), 42 } },
	  { { X(T1), 1 } }, .mem_va = G, .mem_val = 0xfffffffe80000000ULL },
	{ "lr_sc", { AMO(2, 2, T0, A1, 0), AMO(3, 2, T1, A0, A2) },
	  { { X(A1), G }, { X(A2), 42 }, { X(A0), G + 8 } },
	  { { X(T0), 0xffffffff80000000ULL }, { X(T1), 1 } },
	  .mem_va = G + 8, .mem_val = 0x0123456789abcdefULL },
	{ "lr_sc", { AMO(2, 3, T0, A1, 0), ST_(3, 0, A1, 0), AMO(3, 3, T1, A1, A2) },
	  { { X(A1), G }, { X(A2), 42 } }, { { X(T1), 1 } },
	  .mem_va = G, .mem_val = 0 },
	{ "lr_sc", { AMO(2, 2, T0, A1, 0), AMO(3, 2, T1, A1, A2),
	  AMO(3, 2, A0, A1, A2) }, { { X(A1), LB + 4 }, { X(A2), -5ULL } },
	  { { X(T0), 0xfffffffeULL | 0xffffffff00000000ULL }, { X(T1), 0 },
	  { X(A0), 1 } }, .mem_va = LB, .mem_val = 0xfffffffb80000000ULL },
	{ "lr_sc", { AMO(2, 3, T0, A1, 0), AMO(3, 3, T1, A0, A2) },
	  { { X(A1), G + 16 }, { X(A0), G + 24 }, { X(A2), 7 } },
	  { { X(T0), 0 }, { X(T1), 1 } }, .mem_va = G + 24, .mem_val = 0 },
	{ "lr_sc", { AMO(3, 3, T1, A0, A2) }, {}, {}, T_WIN, .tval = PB },
	{ "lr_sc", { AMO(3, 3, T1, A1, A2) }, { { X(A1), G + 4 } }, {}, T_MIS,
	  .tval = G + 4 },
	/* AMOs .W: results sign-extended, MIN/MAX signed and unsigned */
	{ "amo_w", { AMO(0, 2, T0, A1, A2) }, { { X(A1), G }, { X(A2), 1 } },
	  { { X(T0), 0xffffffff80000000ULL } },
	  .mem_va = G, .mem_val = 0xfffffffe80000001ULL },
	{ "amo_w", { AMO(0x10, 2, T0, A1, A2), AMO(0x18, 2, T1, A1, A2) },
	  { { X(A1), G + 8 }, { X(A2), ~0ULL } },
	  { { X(T0), 0xffffffff89abcdefULL }, { X(T1), 0xffffffff89abcdefULL } },
	  .mem_va = G + 8, .mem_val = 0x0123456789abcdefULL },
	{ "amo_w", { AMO(0x14, 2, T0, A1, A2) }, { { X(A1), G + 8 }, { X(A2), 1 } },
	  { { X(T0), 0xffffffff89abcdefULL } },
	  .mem_va = G + 8, .mem_val = 0x0123456700000001ULL },
	{ "amo_w", { AMO(0x1c, 2, T0, A1, A2), AMO(0x18, 2, T1, A1, A2) },
	  { { X(A1), G + 8 }, { X(A2), 1 } },
	  { { X(T0), 0xffffffff89abcdefULL }, { X(T1), 0xffffffff89abcdefULL } },
	  .mem_va = G + 8, .mem_val = 0x0123456700000001ULL },
	{ "amo_w", { AMO(1, 2, T0, A1, A2), AMO(4, 2, T1, A1, A2),
	  AMO(0xc, 2, A0, A1, A2), AMO(8, 2, A7, A1, A2) },
	  { { X(A1), LB + 8 }, { X(A2), 0xf0 } },
	  { { X(T0), 0xffffffff89abcdefULL }, { X(T1), 0xf0 }, { X(A0), 0 },
	  { X(A7), 0 } }, .mem_va = LB + 8, .mem_val = 0x01234567000000f0ULL },
	{ "amo_w", { AMO(0x10, 2, T0, A1, A2), AMO(0x14, 2, T1, A1, A2),
	  AMO(0x18, 2, A0, A1, A7) },
	  { { X(A1), LB + 8 }, { X(A2), 1 }, { X(A7), ~0ULL } },
	  { { X(T0), 0xffffffff89abcdefULL }, { X(T1), 0xffffffff89abcdefULL },
	  { X(A0), 1 } }, .mem_va = LB + 8, .mem_val = 0x0123456700000001ULL },
	/* AMOs .D */
	{ "amo_d", { AMO(0x10, 3, T0, A1, A2), AMO(0x1c, 3, T1, A1, A2) },
	  { { X(A1), G }, { X(A2), 5 } },
	  { { X(T0), 0xfffffffe80000000ULL }, { X(T1), 0xfffffffe80000000ULL } },
	  .mem_va = G, .mem_val = 0xfffffffe80000000ULL },
	{ "amo_d", { AMO(0x14, 3, T0, A1, A2), AMO(0x18, 3, T1, A1, A0) },
	  { { X(A1), G }, { X(A2), 5 }, { X(A0), 7 } },
	  { { X(T0), 0xfffffffe80000000ULL }, { X(T1), 5 } },
	  .mem_va = G, .mem_val = 5 },
	{ "amo_d", { AMO(0, 3, T0, A1, A2), AMO(1, 3, T1, A1, A0) },
	  { { X(A1), VB + 8 }, { X(A2), 1 }, { X(A0), 9 } },
	  { { X(T0), 0x0123456789abcdefULL }, { X(T1), 0x0123456789abcdf0ULL } },
	  .mem_va = VB + 8, .mem_val = 9 },
	{ "amo_d", { AMO(0x10, 3, T0, A1, A2), AMO(0x1c, 3, T1, A1, A2),
	  AMO(0x14, 3, A0, A1, A2), AMO(0x18, 3, A7, A1, A7) },
	  { { X(A1), VB }, { X(A2), 5 }, { X(A7), 7 } },
	  { { X(T0), 0xfffffffe80000000ULL }, { X(T1), 0xfffffffe80000000ULL },
	  { X(A0), 0xfffffffe80000000ULL }, { X(A7), 5 } },
	  .mem_va = VB, .mem_val = 5 },
	{ "amo_d", { AMO(4, 3, T0, A1, A2), AMO(0xc, 3, T1, A1, A2),
	  AMO(8, 3, A0, A1, A2) }, { { X(A1), G + 8 }, { X(A2), 0xff } },
	  { { X(T0), 0x0123456789abcdefULL }, { X(T1), 0x0123456789abcd10ULL },
	  { X(A0), 0x10 } }, .mem_va = G + 8, .mem_val = 0xff },
	/* a stalled access retries with nothing changed (checked each stall) */
	{ "stall_retry", { ADDI(T0, 0, 1), LD_(3, T1, A1, 8) }, { { X(A1), G } },
	  { { X(T1), 0x0123456789abcdefULL }, { INSNS, 3 } }, .stall_va = G + 8 },
	{ "stall_retry", { AMO(0, 2, T0, A1, A2) }, { { X(A1), G }, { X(A2), 1 } },
	  { { X(T0), 0xffffffff80000000ULL } }, .stall_va = G,
	  .mem_va = G, .mem_val = 0xfffffffe80000001ULL },
	{ "stall_retry", { AMO(2, 3, T0, A1, 0), AMO(3, 3, T1, A1, A2) },
	  { { X(A1), G + 16 }, { X(A2), 3 } }, { { X(T1), 0 } },
	  .stall_va = G + 16, .mem_va = G + 16, .mem_val = 3 },
	{ "stall_retry", { FSD(1, A1, 0) }, { { X(A1), G + 24 }, { F(1), ONE_D } },
	  {}, .stall_va = G + 24, .mem_va = G + 24, .mem_val = ONE_D },
	/* x0 */
	{ "x0", { LUI(0, 1), LD_(3, 0, A1, 0), AMO(0, 3, 0, A1, A2),
	  CSR(2, 0, 0xcc0, 0) }, { { X(A1), G }, { X(A2), 1 } }, { { X(0), 0 } },
	  .mem_va = G, .mem_val = 0xfffffffe80000001ULL },
	/* F/D loads, stores, moves; NaN-boxing */
	{ "fp_load_store", { FLW(1, A1, 8), FLD(2, A1, 8), FSW(2, A1, 0) }, { { X(A1), G } },
	  { { F(1), 0xffffffff89abcdefULL }, { F(2), 0x0123456789abcdefULL } },
	  .mem_va = G, .mem_val = 0xfffffffe89abcdefULL },
	{ "fp_load_store", { FLD(1, A1, 8), FSD(1, 2, -8) }, { { X(A1), PB } },
	  { { F(1), 0x0123456789abcdefULL } },
	  .mem_va = VB + WIN - 8, .mem_val = 0x0123456789abcdefULL },
	{ "fp_load_store", { FSW(1, A0, 0) }, {}, {}, T_WIN, .tval = PB },
	{ "fp_nan_boxing", { FOP(0, 2, 1, 0, 3), FOP(0x10, 2, 1, 0, 4),
	  FOP(0x70, 0, 1, 1, T0), FOP(0x70, 0, 1, 0, T1) },
	  { { F(1), 0x3f800000ULL }, { F(2), ONE_S } },
	  { { F(3), QNAN_S }, { F(4), QNAN_S }, { X(T0), 0x200 },
	  { X(T1), 0x3f800000ULL } } },
	{ "fp_nan_boxing", { FOP(0x70, 0, 1, 0, T0), FOP(0x78, 0, A1, 0, 2),
	  FOP(0x71, 0, 1, 0, T1), FOP(0x79, 0, A1, 0, 3) },
	  { { F(1), 0x1234567880000000ULL }, { X(A1), 0xaaaaaaaabf800000ULL } },
	  { { X(T0), 0xffffffff80000000ULL }, { F(2), 0xffffffffbf800000ULL },
	  { X(T1), 0x1234567880000000ULL }, { F(3), 0xaaaaaaaabf800000ULL } } },
	/* single precision, through rv_fp */
	{ "fp_single", { FOP(0, 2, 1, 0, 3), FOP(4, 1, 3, 0, 4), FOP(8, 2, 3, 0, 5),
	  FOP(0xc, 0, 1, 0, 6) }, { { F(1), ONE_S }, { F(2), TWO_S },
	  { F(0), 0xffffffff00000000ULL } },
	  { { F(3), THREE_S }, { F(4), TWO_S }, { F(5), 0xffffffff40c00000ULL },
	  { FCSR, RV_FF_DZ } } },
	{ "fp_single", { FOP(0x2c, 0, 1, 0, 3), FOP(0x14, 2, 1, 0, 4),
	  FOP(0x14, 5, 6, 1, 7) }, { { F(1), 0xffffffffbf800000ULL },
	  { F(2), 0xffffffff80000000ULL }, { F(5), QNAN_S }, { F(6), ONE_S } },
	  { { F(3), QNAN_S }, { F(4), 0xffffffffbf800000ULL }, { F(7), ONE_S },
	  { FCSR, RV_FF_NV } } },
	{ "fp_single", { FOP(0x14, 2, 1, 0, 4) },
	  { { F(1), 0xffffffff80000000ULL }, { F(2), 0xffffffff00000000ULL } },
	  { { F(4), 0xffffffff80000000ULL }, { FCSR, 0 } } },
	{ "fp_single", { FOP(0x50, 1, 5, 2, T0), FOP(0x50, 1, 5, 1, T1),
	  FOP(0x50, 2, 1, 0, A0), FOP(0x50, 1, 2, 1, A7) },
	  { { F(1), ONE_S }, { F(2), TWO_S }, { F(5), QNAN_S } },
	  { { X(T0), 0 }, { X(T1), 0 }, { X(A0), 1 }, { FCSR, RV_FF_NV } } },
	{ "fp_single", { FOP(0x60, 0, 1, 0, T0), FOP(0x60, 0, 1, 1, T1),
	  FOP(0x60, 0, 1, 7, A0), FOP(0x60, 1, 2, 0, A7) },
	  { { F(1), 0xffffffff40600000ULL }, { F(2), 0xffffffffbf800000ULL },
	  { FCSR, RV_RM_RTZ << 5 } },
	  { { X(T0), 4 }, { X(T1), 3 }, { X(A0), 3 },
	  { FCSR, RV_RM_RTZ << 5 | RV_FF_NX | RV_FF_NV } } },
	{ "fp_single", { FOP(0x60, 0, 5, 0, T0), FOP(0x68, 0, A1, 0, 1),
	  FOP(0x68, 3, A1, 0, 2), FOP(0x60, 2, 6, 1, T1) },
	  { { F(5), QNAN_S }, { X(A1), ~0ULL }, { F(6), 0xffffffffdf000000ULL } },
	  { { X(T0), 0x7fffffff }, { F(1), 0xffffffffbf800000ULL },
	  { F(2), 0xffffffff5f800000ULL }, { X(T1), 1ULL << 63 } } },
	{ "fp_single", { FMA(0x43, 0, 4, 2, 3, 1, 0), FMA(0x47, 0, 5, 2, 3, 1, 0),
	  FMA(0x4b, 0, 6, 2, 3, 1, 0), FMA(0x4f, 0, 7, 2, 3, 1, 0) },
	  { { F(1), ONE_S }, { F(2), TWO_S }, { F(3), THREE_S } },
	  { { F(4), 0xffffffff40e00000ULL }, { F(5), 0xffffffff40a00000ULL },
	  { F(6), 0xffffffffc0a00000ULL }, { F(7), 0xffffffffc0e00000ULL } } },
	{ "fp_single", { FOP(0x10, 2, 1, 1, 3), FOP(0x10, 2, 2, 2, 4),
	  FOP(0x70, 0, 5, 1, T0), FOP(0x70, 0, 1, 1, T1) },
	  { { F(1), ONE_S }, { F(2), 0xffffffffbf800000ULL },
	  { F(5), 0xffffffffff800000ULL } },
	  { { F(3), ONE_S }, { F(4), ONE_S }, { X(T0), 1 }, { X(T1), 0x40 } } },
	/* double precision */
	{ "fp_double", { FOP(1, 2, 1, 0, 3), FOP(5, 1, 3, 0, 4), FOP(9, 2, 3, 0, 5),
	  FOP(0xd, 3, 1, 0, 6) }, { { F(1), ONE_D }, { F(2), TWO_D } },
	  { { F(3), THREE_D }, { F(4), TWO_D }, { F(6), 0x3fd5555555555555ULL },
	  { FCSR, RV_FF_NX } } },
	{ "fp_double", { FOP(0x2d, 0, 1, 0, 3), FMA(0x43, 1, 4, 2, 3, 1, 0),
	  FOP(0x15, 2, 7, 0, 5), FOP(0x71, 0, 7, 1, T0) },
	  { { F(1), 0x4010000000000000ULL }, { F(2), TWO_D }, { F(3), THREE_D },
	  { F(7), 0x8000000000000000ULL } },
	  { { F(3), TWO_D }, { F(4), 0x4020000000000000ULL },
	  { F(5), 0x8000000000000000ULL }, { X(T0), 0x8 } } },
	{ "fp_double", { FOP(0x61, 2, 1, 0, T0), FOP(0x61, 3, 2, 0, T1),
	  FOP(0x69, 2, A1, 0, 3), FOP(0x61, 1, 2, 1, A0) },
	  { { F(1), 0x43e0000000000000ULL }, { F(2), 0xbff0000000000000ULL },
	  { X(A1), ~0ULL } },
	  { { X(T0), 0x7fffffffffffffffULL }, { X(T1), 0 },
	  { F(3), 0xbff0000000000000ULL }, { FCSR, RV_FF_NV } } },
	{ "fp_double", { FOP(0x20, 1, 1, 0, 3), FOP(0x21, 0, 4, 0, 5),
	  FOP(0x51, 2, 1, 2, T0), FOP(0x21, 0, 6, 0, 7) },
	  { { F(1), ONE_D }, { F(2), ONE_D }, { F(4), ONE_S },
	  { F(6), 0x3f800000ULL } },
	  { { F(3), ONE_S }, { F(5), ONE_D }, { X(T0), 1 },
	  { F(7), 0x7ff8000000000000ULL } } },
};

/* Words of a case's program: up to its last non-zero one. */
static u32 rvst_words(const struct rvst_case *c)
{
	u32 n = ARRAY_SIZE(c->code);

	while (n && !c->code[n - 1])
		n--;
	return n;
}

/**
 * struct rvst - the tests' machine
 * @gmem: the fake global memory at G
 * @param: the argument block
 * @local: local memory
 * @priv: private memory
 * @stall_va: the fake memory stalls once at this address
 * @stalls: stalls it returned
 * @g: the group
 * @h: the hart
 * @snap: the hart before a run
 * @image: the case's program
 */
struct rvst {
	u8 gmem[256];
	u8 param[WIN];
	u8 local[WIN];
	u8 priv[WIN];
	u64 stall_va;
	u32 stalls;
	struct rv_group g;
	struct rv_hart h;
	struct rv_hart snap;
	u32 image[ARRAY_SIZE(rvst_cases[0].code) + 1];
};

static u64 rvst_get(const u8 *p, u32 size)
{
	u64 v = 0;

	memcpy(&v, p, size);	/* little-endian hosts */
	return v;
}

static void rvst_set(u8 *p, u32 size, u64 v)
{
	memcpy(p, &v, size);
}

/* The fake global memory: the tests' model of the MMU and memory. */
static int rvst_global(void *env, struct rv_mem *m)
{
	struct rvst *st = env;
	u64 off = m->va - G, old, v = m->val;
	s64 so, sv;
	u8 *p;

	if (m->va < G || off >= sizeof(st->gmem) ||
	    sizeof(st->gmem) - off < m->size)
		return RV_MEM_STOP;
	if (st->stall_va && m->va == st->stall_va) {
		st->stall_va = 0;
		st->stalls++;
		return RV_MEM_STALL;
	}
	p = st->gmem + off;
	old = rvst_get(p, m->size);
	so = m->size == 4 ? (s32)old : (s64)old;
	sv = m->size == 4 ? (s32)v : (s64)v;
	if (m->kind == RV_LOAD) {
		m->val = old;
		return RV_MEM_OK;
	}
	if (m->kind == RV_AMO) {
		switch (m->amo) {
		case RV_AMO_ADD:
			v += old;
			break;
		case RV_AMO_XOR:
			v ^= old;
			break;
		case RV_AMO_AND:
			v &= old;
			break;
		case RV_AMO_OR:
			v |= old;
			break;
		case RV_AMO_MIN:
			v = so < sv ? old : v;
			break;
		case RV_AMO_MAX:
			v = so > sv ? old : v;
			break;
		case RV_AMO_MINU:
			v = old < v ? old : v;
			break;
		case RV_AMO_MAXU:
			v = old > v ? old : v;
			break;
		case RV_AMO_CAS:
			v = old == m->cmp ? v : old;
			break;
		}
		m->val = old;
	}
	rvst_set(p, m->size, v);
	return RV_MEM_OK;
}

static void rvst_fill(u8 *p, u32 size)
{
	static const u64 pattern[4] = { 0xfffffffe80000000ULL,
		0x0123456789abcdefULL, 0, 0 };

	memset(p, 0, size);
	memcpy(p, pattern, sizeof(pattern));
	rvst_set(p + WIN - 8, 8, 0x55);
}

static void rvst_reset(struct rvst *st)
{
	static const u64 csr[NVSVM_GPU_CSR_END - NVSVM_GPU_CSR_GLOBAL_ID] = {
		[0xcc6 - 0xcc0] = 2,			/* GROUP_ID */
		[0xcc9 - 0xcc0] = 8, 4, 1,		/* LOCAL_SIZE */
		[0xccc - 0xcc0] = 8, 4, 1,		/* ENQUEUED_LOCAL_SIZE */
		[0xccf - 0xcc0] = 64, 4, 1,		/* GLOBAL_SIZE */
		[0xcd2 - 0xcc0] = 8, 1, 1,		/* NUM_GROUPS */
		[0xcd5 - 0xcc0] = 100,			/* GLOBAL_OFFSET */
		[0xcd8 - 0xcc0] = 1,			/* WORK_DIM */
	};

	rvst_fill(st->gmem, sizeof(st->gmem));
	rvst_fill(st->param, WIN);
	rvst_set(st->param + WIN - 8, 8, 0x66);
	rvst_fill(st->local, WIN);
	rvst_fill(st->priv, WIN);
	rvst_set(st->priv + WIN - 8, 8, 0x66);
	st->stall_va = 0;
	st->stalls = 0;
	memset(&st->g, 0, sizeof(st->g));
	memcpy(st->g.csr, csr, sizeof(csr));
	st->g.param = st->param;
	st->g.param_size = WIN - 4;	/* its last word is half in */
	st->g.local = st->local;
	st->g.local_size = WIN;
	st->g.priv_size = WIN;
	st->g.global = rvst_global;
	st->g.env = st;
}

static u64 *rvst_reg(struct rvst *st, u8 r, u64 *tmp)
{
	if (r < F(0))
		return &st->h.x[r - X(0)];
	if (r < FCSR)
		return &st->h.f[r - F(0)];
	if (r == PC)
		return &st->h.pc;
	if (r == INSNS)
		return &st->h.insns;
	*tmp = st->h.fcsr;
	return tmp;
}

static u8 *rvst_mem(struct rvst *st, u64 va)
{
	if (va >= G && va - G <= sizeof(st->gmem) - 8)
		return st->gmem + (va - G);
	if (va >= LB && va - LB <= WIN - 8)
		return st->local + (va - LB);
	if (va >= VB && va - VB <= WIN - 8)
		return st->priv + (va - VB);
	return NULL;
}

#define RVST_FAIL(...)	do {					\
		rvst_log("# rv: case %u (%s): " __VA_ARGS__);	\
		ok = false;					\
	} while (0)

/* Run case @i. Return: it passed. */
static bool rvst_case(struct rvst *st, u32 i)
{
	const struct rvst_case *c = &rvst_cases[i];
	const char *name = c->group;
	struct rv_trap trap = {};
	u32 n = rvst_words(c), k, runs;
	struct rv_prog *prog;
	bool ok = true;
	u64 tmp, *reg;
	u8 *mem;
	int r = RV_STOP_QUANTUM;

	rvst_reset(st);
	memcpy(st->image, c->code, n * 4);
	st->image[n] = END;
	prog = rv_prog_load(st->image, (n + 1) * 4, GFP_KERNEL);
	if (IS_ERR(prog)) {
		RVST_FAIL("load: %ld\n", i, name, PTR_ERR(prog));
		return false;
	}
	st->g.prog = prog;
	rv_hart_init(&st->h, &st->g, 0);
	st->h.priv = st->priv;
	st->h.lid[0] = 3;
	st->h.lid[1] = 1;
	st->h.budget = c->budget ? c->budget : 1000;
	for (k = 0; k < ARRAY_SIZE(c->in) && c->in[k].r; k++) {
		if (c->in[k].r == FCSR)
			st->h.fcsr = c->in[k].v;
		else
			*rvst_reg(st, c->in[k].r, &tmp) = c->in[k].v;
	}
	st->stall_va = c->stall_va;
	/*
	 * Quantum 2: the runs stop and go on mid-program; 1 with a stall,
	 * so that the hart before the run is the hart before the stalled
	 * instruction, which must leave it as it was.
	 */
	for (runs = 0; runs < 64; runs++) {
		st->snap = st->h;
		r = rv_run(&st->h, &st->g, c->stall_va ? 1 : 2, &trap);
		if (r == RV_STOP_STALL &&
		    memcmp(&st->snap, &st->h, sizeof(st->h)))
			RVST_FAIL("a stall changed the hart\n", i, name);
		if (r != RV_STOP_QUANTUM && r != RV_STOP_STALL)
			break;
	}
	if (c->cause) {
		if (r != RV_STOP_TRAP || trap.cause != c->cause ||
		    trap.tval != c->tval)
			RVST_FAIL("stop %d cause %u tval %llx, not trap %u tval %llx\n",
				  i, name, r, trap.cause,
				  (unsigned long long)trap.tval, c->cause,
				  (unsigned long long)c->tval);
		else if (trap.pc != st->h.pc)
			RVST_FAIL("trap pc %llx, hart pc %llx\n", i, name,
				  (unsigned long long)trap.pc,
				  (unsigned long long)st->h.pc);
	} else if (r != (c->stop ? c->stop : RV_STOP_EXIT)) {
		RVST_FAIL("stop %d (trap %u tval %llx)\n", i, name, r,
			  trap.cause, (unsigned long long)trap.tval);
	}
	if (st->stalls != (c->stall_va ? 1 : 0))
		RVST_FAIL("%u stalls\n", i, name, st->stalls);
	for (k = 0; k < ARRAY_SIZE(c->out) && c->out[k].r; k++) {
		reg = rvst_reg(st, c->out[k].r, &tmp);
		if (*reg != c->out[k].v)
			RVST_FAIL("register %u: %llx, not %llx\n", i, name,
				  c->out[k].r, (unsigned long long)*reg,
				  (unsigned long long)c->out[k].v);
	}
	if (c->mem_va) {
		mem = rvst_mem(st, c->mem_va);
		if (!mem || rvst_get(mem, 8) != c->mem_val)
			RVST_FAIL("memory %llx: %llx, not %llx\n", i, name,
				  (unsigned long long)c->mem_va,
				  mem ? (unsigned long long)rvst_get(mem, 8) : 0,
				  (unsigned long long)c->mem_val);
	}
	rv_prog_free(prog);
	return ok;
}

/* rv_prog_load()'s checks, and rv_hart_init()'s entry state. */
static bool rvst_load(struct rvst *st)
{
	static const u32 bad[] = { 0, 3, 6, NVSVM_LAUNCH_MAX_IMAGE + 4 };
	struct rv_prog *prog;
	bool ok = true;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		prog = rv_prog_load(st->image, bad[i], GFP_KERNEL);
		if (PTR_ERR(prog) != -EINVAL) {
			rvst_log("# rv: load of %u bytes: %ld\n", bad[i],
				 PTR_ERR(prog));
			ok = false;
			if (!IS_ERR(prog))
				rv_prog_free(prog);
		}
	}
	rv_prog_free(NULL);
	rvst_reset(st);
	st->image[0] = END;
	st->image[1] = END;
	prog = rv_prog_load(st->image, 8, GFP_KERNEL);
	if (IS_ERR(prog))
		return false;
	memset(&st->h, 0xa5, sizeof(st->h));
	rv_hart_init(&st->h, &st->g, 4);
	if (st->h.pc != IB + 4 || st->h.x[A0] != PB || st->h.x[2] != VB + WIN ||
	    st->h.x[1] || st->h.x[T0] || st->h.f[0] || st->h.fcsr ||
	    st->h.insns || st->h.resv) {
		rvst_log("# rv: entry state wrong\n");
		ok = false;
	}
	rv_prog_free(prog);
	return ok;
}

int rv_selftest(void (*result)(void *ctx, bool ok, const char *name),
		void *ctx)
{
	struct rvst *st;
	int failed = 0;
	bool ok = true;
	u32 i;

	st = kvzalloc(sizeof(*st), GFP_KERNEL);
	if (!st) {
		result(ctx, false, "rv_setup");
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(rvst_cases); i++) {
		ok &= rvst_case(st, i);
		if (i + 1 < ARRAY_SIZE(rvst_cases) &&
		    !strcmp(rvst_cases[i + 1].group, rvst_cases[i].group))
			continue;
		result(ctx, ok, rvst_cases[i].group);
		failed += !ok;
		ok = true;
	}
	ok = rvst_load(st);
	result(ctx, ok, "prog_load_entry");
	failed += !ok;
	kvfree(st);
	return failed;
}
