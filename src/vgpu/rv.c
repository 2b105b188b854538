// SPDX-License-Identifier: GPL-2.0
/*
 * The SMs' RV64IMAFD interpreter (rv.h): rv_prog_load() decodes every word
 * of an image once into a compact entry (an opcode of enum rv_op and its
 * operands); rv_run() dispatches on that opcode and never decodes again.
 * Written from the RISC-V unprivileged specification (RV64I, M, A, F, D,
 * Zicsr, Zifencei) and the device ABI of uapi/nvsvm_vgpu.h.
 *
 * Everything a program gives is bounded here: register numbers are 5-bit
 * fields, a pc indexes the decoded table only after a bounds check, a
 * window access only after its last byte was checked against the
 * window's bytes, and every other address goes to rv_group.global. Shift
 * amounts are masked, division by zero and overflow give RISC-V's values,
 * so no program reaches undefined behaviour of C or a host trap.
 *
 * The windows are little-endian byte arrays read and written with
 * memcpy(): the model runs on little-endian hosts (x86-64, arm64).
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/barrier.h>
#endif

#include "rv.h"
#include "rv_fp.h"

enum rv_op {
	RV_ILLEGAL,
	RV_LUI, RV_AUIPC, RV_JAL, RV_JALR,
	RV_BEQ, RV_BNE, RV_BLT, RV_BGE, RV_BLTU, RV_BGEU,
	RV_LB, RV_LH, RV_LW, RV_LD, RV_LBU, RV_LHU, RV_LWU,
	RV_SB, RV_SH, RV_SW, RV_SD,
	RV_ADDI, RV_SLTI, RV_SLTIU, RV_XORI, RV_ORI, RV_ANDI,
	RV_SLLI, RV_SRLI, RV_SRAI,
	RV_ADD, RV_SUB, RV_SLL, RV_SLT, RV_SLTU, RV_XOR, RV_SRL, RV_SRA,
	RV_OR, RV_AND,
	RV_ADDIW, RV_SLLIW, RV_SRLIW, RV_SRAIW,
	RV_ADDW, RV_SUBW, RV_SLLW, RV_SRLW, RV_SRAW,
	RV_FENCE, RV_ECALL, RV_EBREAK,
	RV_CSR_READ,		/* a read-only CSR, read */
	RV_CSRRW, RV_CSRRS, RV_CSRRC,	/* fflags, frm, fcsr */
	RV_CSRRWI, RV_CSRRSI, RV_CSRRCI,
	RV_MUL, RV_MULH, RV_MULHSU, RV_MULHU, RV_DIV, RV_DIVU, RV_REM,
	RV_REMU, RV_MULW, RV_DIVW, RV_DIVUW, RV_REMW, RV_REMUW,
	RV_LR, RV_SC, RV_AMO_OP,	/* aux: size 4 or 8; rm: enum rv_amo_op */
	RV_FLW, RV_FLD, RV_FSW, RV_FSD,
	RV_FMADD_S, RV_FMSUB_S, RV_FNMSUB_S, RV_FNMADD_S,
	RV_FADD_S, RV_FSUB_S, RV_FMUL_S, RV_FDIV_S, RV_FSQRT_S,
	RV_FSGNJ_S, RV_FSGNJN_S, RV_FSGNJX_S, RV_FMIN_S, RV_FMAX_S,
	RV_FCVT_W_S, RV_FCVT_WU_S, RV_FCVT_L_S, RV_FCVT_LU_S,
	RV_FCVT_S_W, RV_FCVT_S_WU, RV_FCVT_S_L, RV_FCVT_S_LU,
	RV_FMV_X_W, RV_FMV_W_X, RV_FEQ_S, RV_FLT_S, RV_FLE_S, RV_FCLASS_S,
	RV_FMADD_D, RV_FMSUB_D, RV_FNMSUB_D, RV_FNMADD_D,
	RV_FADD_D, RV_FSUB_D, RV_FMUL_D, RV_FDIV_D, RV_FSQRT_D,
	RV_FSGNJ_D, RV_FSGNJN_D, RV_FSGNJX_D, RV_FMIN_D, RV_FMAX_D,
	RV_FCVT_W_D, RV_FCVT_WU_D, RV_FCVT_L_D, RV_FCVT_LU_D,
	RV_FCVT_D_W, RV_FCVT_D_WU, RV_FCVT_D_L, RV_FCVT_D_LU,
	RV_FMV_X_D, RV_FMV_D_X, RV_FEQ_D, RV_FLT_D, RV_FLE_D, RV_FCLASS_D,
	RV_FCVT_S_D, RV_FCVT_D_S,
};

/**
 * struct rv_insn - one decoded word
 * @op: enum rv_op
 * @rd: destination register
 * @rs1: first source (the 5-bit immediate of CSRR?I)
 * @rs2: second source
 * @rs3: third source (fused multiply-add)
 * @rm: rounding mode (F, D: RV_RM_*, RV_RM_DYN) or enum rv_amo_op (A)
 * @aux: access size (A), RV_ORDER_* in bits 5..4 (A)
 * @pad: zero
 * @imm: immediate, sign-extended; the CSR number; the raw word (ILLEGAL)
 */
struct rv_insn {
	u8 op;
	u8 rd;
	u8 rs1;
	u8 rs2;
	u8 rs3;
	u8 rm;
	u8 aux;
	u8 pad;
	s32 imm;
};

/**
 * struct rv_prog - a loaded program
 * @size: bytes of the image
 * @image: the image's copy (the image window's data), after @insn
 * @insn: one decoded entry per word
 */
struct rv_prog {
	u32 size;
	const u8 *image;
	struct rv_insn insn[];
};

#define RV_WIN_END	0x8000000000000000ULL	/* windows: IMAGE_BASE to here */

static inline s64 rv_sext32(u64 v)
{
	return (s64)(s32)(u32)v;
}

/* Bits @hi..@lo of @w. */
static inline u32 rv_bits(u32 w, u32 hi, u32 lo)
{
	return (w >> lo) & ((1U << (hi - lo + 1)) - 1);
}

static s32 rv_imm_i(u32 w)
{
	return (s32)w >> 20;
}

static s32 rv_imm_s(u32 w)
{
	return ((s32)(w & 0xfe000000) >> 20) | (s32)rv_bits(w, 11, 7);
}

static s32 rv_imm_b(u32 w)
{
	return ((s32)(w & 0x80000000) >> 19) | (s32)(rv_bits(w, 7, 7) << 11) |
	       (s32)(rv_bits(w, 30, 25) << 5) | (s32)(rv_bits(w, 11, 8) << 1);
}

static s32 rv_imm_j(u32 w)
{
	return ((s32)(w & 0x80000000) >> 11) | (s32)(w & 0xff000) |
	       (s32)(rv_bits(w, 20, 20) << 11) |
	       (s32)(rv_bits(w, 30, 21) << 1);
}

static bool rv_csr_known(u32 csr)
{
	switch (csr) {
	case RV_CSR_FFLAGS:
	case RV_CSR_FRM:
	case RV_CSR_FCSR:
	case RV_CSR_CYCLE:
	case RV_CSR_TIME:
	case RV_CSR_INSTRET:
		return true;
	}
	return csr >= NVSVM_GPU_CSR_GLOBAL_ID && csr < NVSVM_GPU_CSR_END;
}

/* SYSTEM: ecall, ebreak, Zicsr. */
static u8 rv_decode_system(u32 w, struct rv_insn *in)
{
	static const u8 ops[8] = { 0, RV_CSRRW, RV_CSRRS, RV_CSRRC,
				   0, RV_CSRRWI, RV_CSRRSI, RV_CSRRCI };
	u32 f3 = rv_bits(w, 14, 12), csr = w >> 20;
	bool writes;

	if (f3 == 0) {
		if (in->rd || in->rs1)
			return RV_ILLEGAL;
		if (csr == 0)
			return RV_ECALL;
		return csr == 1 ? RV_EBREAK : RV_ILLEGAL;
	}
	if (!ops[f3] || !rv_csr_known(csr))
		return RV_ILLEGAL;
	in->imm = csr;
	/* CSRRS/CSRRC (and their I forms) with x0 or 0 only read */
	writes = (f3 & 3) == 1 || in->rs1;
	if (csr <= RV_CSR_FCSR)
		return ops[f3];
	return writes ? RV_ILLEGAL : RV_CSR_READ;
}

/* AMO: LR, SC and the AMOs, .W and .D. */
static u8 rv_decode_amo(u32 w, struct rv_insn *in)
{
	static const s8 amo[32] = {
		[0x00] = RV_AMO_ADD, [0x01] = RV_AMO_SWAP, [0x04] = RV_AMO_XOR,
		[0x08] = RV_AMO_OR, [0x0c] = RV_AMO_AND, [0x10] = RV_AMO_MIN,
		[0x14] = RV_AMO_MAX, [0x18] = RV_AMO_MINU, [0x1c] = RV_AMO_MAXU,
		[0x02] = -1, [0x03] = -1,
		[0x05] = -1, [0x06] = -1, [0x07] = -1, [0x09] = -1,
		[0x0a] = -1, [0x0b] = -1, [0x0d] = -1, [0x0e] = -1,
		[0x0f] = -1, [0x11] = -1, [0x12] = -1, [0x13] = -1,
		[0x15] = -1, [0x16] = -1, [0x17] = -1, [0x19] = -1,
		[0x1a] = -1, [0x1b] = -1, [0x1d] = -1, [0x1e] = -1,
		[0x1f] = -1,
	};
	u32 f3 = rv_bits(w, 14, 12), f5 = rv_bits(w, 31, 27);

	if (f3 != 2 && f3 != 3)
		return RV_ILLEGAL;
	in->aux = (f3 == 2 ? 4 : 8) | (rv_bits(w, 26, 25) << 4);
	if (f5 == 0x02)
		return in->rs2 ? RV_ILLEGAL : RV_LR;
	if (f5 == 0x03)
		return RV_SC;
	if (amo[f5] < 0)
		return RV_ILLEGAL;
	in->rm = amo[f5];
	return RV_AMO_OP;
}

/* OP (0x33) and OP-32 (0x3b): funct7 0, 0x20 (SUB, SRA) or 1 (M). */
static u8 rv_decode_op(u32 w, bool word)
{
	static const u8 op[8] = { RV_ADD, RV_SLL, RV_SLT, RV_SLTU,
				  RV_XOR, RV_SRL, RV_OR, RV_AND };
	static const u8 mul[8] = { RV_MUL, RV_MULH, RV_MULHSU, RV_MULHU,
				   RV_DIV, RV_DIVU, RV_REM, RV_REMU };
	static const u8 opw[8] = { RV_ADDW, RV_SLLW, 0, 0, 0, RV_SRLW, 0, 0 };
	static const u8 mulw[8] = { RV_MULW, 0, 0, 0,
				    RV_DIVW, RV_DIVUW, RV_REMW, RV_REMUW };
	u32 f3 = rv_bits(w, 14, 12), f7 = w >> 25;

	if (f7 == 1)
		return word ? mulw[f3] : mul[f3];
	if (f7 == 0)
		return word ? opw[f3] : op[f3];
	if (f7 != 0x20)
		return RV_ILLEGAL;
	if (f3 == 0)
		return word ? RV_SUBW : RV_SUB;
	if (f3 == 5)
		return word ? RV_SRAW : RV_SRA;
	return RV_ILLEGAL;
}

/* OP-IMM (0x13) and OP-IMM-32 (0x1b). */
static u8 rv_decode_op_imm(u32 w, struct rv_insn *in, bool word)
{
	static const u8 op[8] = { RV_ADDI, 0, RV_SLTI, RV_SLTIU,
				  RV_XORI, 0, RV_ORI, RV_ANDI };
	u32 f3 = rv_bits(w, 14, 12), f6 = w >> 26, f7 = w >> 25;

	if (f3 != 1 && f3 != 5) {
		if (word)
			return f3 == 0 ? RV_ADDIW : RV_ILLEGAL;
		return op[f3];
	}
	in->imm = rv_bits(w, 25, 20);
	if (word) {
		if (f7 != 0 && !(f3 == 5 && f7 == 0x20))
			return RV_ILLEGAL;
		in->imm &= 31;
		if (f3 == 1)
			return RV_SLLIW;
		return f7 ? RV_SRAIW : RV_SRLIW;
	}
	if (f6 != 0 && !(f3 == 5 && f6 == 0x10))
		return RV_ILLEGAL;
	if (f3 == 1)
		return RV_SLLI;
	return f6 ? RV_SRAI : RV_SRLI;
}

/*
 * OP-FP (0x53): the operations of one format; @d: double. Single and
 * double opcodes are laid out alike, the double one @dd after.
 */
static u8 rv_decode_op_fp(u32 w, struct rv_insn *in, bool d)
{
	u32 f3 = rv_bits(w, 14, 12), f5 = w >> 27, rs2 = in->rs2;
	u8 dd = d ? RV_FMADD_D - RV_FMADD_S : 0;

	switch (f5) {
	case 0x00:
		return RV_FADD_S + dd;
	case 0x01:
		return RV_FSUB_S + dd;
	case 0x02:
		return RV_FMUL_S + dd;
	case 0x03:
		return RV_FDIV_S + dd;
	case 0x0b:
		return rs2 ? RV_ILLEGAL : RV_FSQRT_S + dd;
	case 0x04:
		in->rm = RV_RM_RNE;	/* no rounding: f3 selects */
		return f3 < 3 ? RV_FSGNJ_S + dd + f3 : RV_ILLEGAL;
	case 0x05:
		in->rm = RV_RM_RNE;
		return f3 < 2 ? RV_FMIN_S + dd + f3 : RV_ILLEGAL;
	case 0x08:	/* FCVT.S.D (d: false), FCVT.D.S (d: true) */
		if (rs2 != (d ? 0 : 1))
			return RV_ILLEGAL;
		return d ? RV_FCVT_D_S : RV_FCVT_S_D;
	case 0x14:
		in->rm = RV_RM_RNE;
		if (f3 == 2)
			return RV_FEQ_S + dd;
		if (f3 == 1)
			return RV_FLT_S + dd;
		return f3 ? RV_ILLEGAL : RV_FLE_S + dd;
	case 0x18:
		return rs2 < 4 ? RV_FCVT_W_S + dd + rs2 : RV_ILLEGAL;
	case 0x1a:
		return rs2 < 4 ? RV_FCVT_S_W + dd + rs2 : RV_ILLEGAL;
	case 0x1c:
		if (rs2)
			return RV_ILLEGAL;
		in->rm = RV_RM_RNE;
		if (f3 == 0)
			return RV_FMV_X_W + dd;
		return f3 == 1 ? RV_FCLASS_S + dd : RV_ILLEGAL;
	case 0x1e:
		in->rm = RV_RM_RNE;
		return rs2 || f3 ? RV_ILLEGAL : RV_FMV_W_X + dd;
	}
	return RV_ILLEGAL;
}

static u8 rv_decode_fp(u32 w, struct rv_insn *in)
{
	u32 opc = w & 0x7f, fmt = rv_bits(w, 26, 25);
	u8 op;

	if (fmt > 1)
		return RV_ILLEGAL;
	in->rm = rv_bits(w, 14, 12);
	if (opc == 0x53)
		op = rv_decode_op_fp(w, in, fmt);
	else
		op = RV_FMADD_S + (opc - 0x43) / 4 +
		     (fmt ? RV_FMADD_D - RV_FMADD_S : 0);
	/* reserved rounding modes: 5 and 6 (7 is frm, checked at run) */
	if (in->rm == 5 || in->rm == 6)
		return RV_ILLEGAL;
	return op;
}

static u8 rv_decode_load(u32 w)
{
	static const u8 op[8] = { RV_LB, RV_LH, RV_LW, RV_LD,
				  RV_LBU, RV_LHU, RV_LWU, RV_ILLEGAL };

	return op[rv_bits(w, 14, 12)];
}

static u8 rv_decode_branch(u32 w)
{
	static const u8 op[8] = { RV_BEQ, RV_BNE, 0, 0,
				  RV_BLT, RV_BGE, RV_BLTU, RV_BGEU };

	return op[rv_bits(w, 14, 12)];
}

static void rv_decode(u32 w, struct rv_insn *in)
{
	static const u8 store[8] = { RV_SB, RV_SH, RV_SW, RV_SD };
	u32 f3 = rv_bits(w, 14, 12);
	u8 op = RV_ILLEGAL;

	memset(in, 0, sizeof(*in));
	in->rd = rv_bits(w, 11, 7);
	in->rs1 = rv_bits(w, 19, 15);
	in->rs2 = rv_bits(w, 24, 20);
	in->rs3 = w >> 27;
	in->imm = rv_imm_i(w);
	switch (w & 0x7f) {
	case 0x37:
		op = RV_LUI;
		in->imm = (s32)(w & 0xfffff000);
		break;
	case 0x17:
		op = RV_AUIPC;
		in->imm = (s32)(w & 0xfffff000);
		break;
	case 0x6f:
		op = RV_JAL;
		in->imm = rv_imm_j(w);
		break;
	case 0x67:
		op = f3 ? RV_ILLEGAL : RV_JALR;
		break;
	case 0x63:
		op = rv_decode_branch(w);
		in->imm = rv_imm_b(w);
		break;
	case 0x03:
		op = rv_decode_load(w);
		break;
	case 0x23:
		op = f3 < 4 ? store[f3] : RV_ILLEGAL;
		in->imm = rv_imm_s(w);
		break;
	case 0x13:
		op = rv_decode_op_imm(w, in, false);
		break;
	case 0x1b:
		op = rv_decode_op_imm(w, in, true);
		break;
	case 0x33:
		op = rv_decode_op(w, false);
		break;
	case 0x3b:
		op = rv_decode_op(w, true);
		break;
	case 0x0f:	/* FENCE, FENCE.I (FENCE.TSO, PAUSE: FENCE too) */
		op = f3 < 2 ? RV_FENCE : RV_ILLEGAL;
		break;
	case 0x73:
		op = rv_decode_system(w, in);
		break;
	case 0x2f:
		op = rv_decode_amo(w, in);
		break;
	case 0x07:
		op = f3 == 2 ? RV_FLW : f3 == 3 ? RV_FLD : RV_ILLEGAL;
		break;
	case 0x27:
		op = f3 == 2 ? RV_FSW : f3 == 3 ? RV_FSD : RV_ILLEGAL;
		in->imm = rv_imm_s(w);
		break;
	case 0x43:
	case 0x47:
	case 0x4b:
	case 0x4f:
	case 0x53:
		op = rv_decode_fp(w, in);
		break;
	}
	if (op == RV_ILLEGAL) {
		memset(in, 0, sizeof(*in));
		in->imm = (s32)w;
	}
	in->op = op;
}

struct rv_prog *rv_prog_load(const void *image, u32 size, gfp_t gfp)
{
	struct rv_prog *p;
	u32 i, n, w;
	u8 *copy;

	if (!size || size % 4 || size > NVSVM_LAUNCH_MAX_IMAGE)
		return ERR_PTR(-EINVAL);
	n = size / 4;
	/* n <= 2^18: no overflow */
	p = kvzalloc(sizeof(*p) + n * sizeof(p->insn[0]) + size, gfp);
	if (!p)
		return ERR_PTR(-ENOMEM);
	copy = (u8 *)&p->insn[n];
	memcpy(copy, image, size);
	p->size = size;
	p->image = copy;
	for (i = 0; i < n; i++) {
		memcpy(&w, copy + 4 * i, 4);
		rv_decode(w, &p->insn[i]);
	}
	return p;
}

void rv_prog_free(struct rv_prog *prog)
{
	kvfree(prog);
}

void rv_hart_init(struct rv_hart *h, const struct rv_group *g, u32 entry)
{
	memset(h->x, 0, sizeof(h->x));
	memset(h->f, 0, sizeof(h->f));
	h->pc = NVSVM_GPU_IMAGE_BASE + entry;
	h->x[10] = NVSVM_GPU_PARAM_BASE;
	h->x[2] = NVSVM_GPU_PRIV_BASE + g->priv_size;
	h->insns = 0;
	h->resv = false;
	h->resv_va = 0;
	h->resv_val = 0;
	h->fcsr = 0;
}

/* High 64 bits of the unsigned 128-bit product. */
static u64 rv_mulhu(u64 a, u64 b)
{
	u64 a0 = (u32)a, a1 = a >> 32, b0 = (u32)b, b1 = b >> 32;
	u64 p01 = a0 * b1, p10 = a1 * b0;
	u64 mid = ((a0 * b0) >> 32) + (u32)p01 + (u32)p10;

	return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

static u64 rv_mulh(u64 a, u64 b)
{
	u64 hi = rv_mulhu(a, b);

	if ((s64)a < 0)
		hi -= b;
	if ((s64)b < 0)
		hi -= a;
	return hi;
}

static u64 rv_mulhsu(u64 a, u64 b)
{
	u64 hi = rv_mulhu(a, b);

	if ((s64)a < 0)
		hi -= b;
	return hi;
}

static u64 rv_div(u64 a, u64 b)
{
	if (!b)
		return ~0ULL;
	if (a == 1ULL << 63 && b == ~0ULL)
		return a;
	return (u64)((s64)a / (s64)b);
}

static u64 rv_rem(u64 a, u64 b)
{
	if (!b)
		return a;
	if (a == 1ULL << 63 && b == ~0ULL)
		return 0;
	return (u64)((s64)a % (s64)b);
}

static u64 rv_divw(u64 a, u64 b)
{
	s32 x = (s32)a, y = (s32)b;

	if (!y)
		return ~0ULL;
	if (x == (s32)0x80000000 && y == -1)
		return (u64)(s64)x;
	return (u64)(s64)(x / y);
}

static u64 rv_remw(u64 a, u64 b)
{
	s32 x = (s32)a, y = (s32)b;

	if (!y)
		return (u64)(s64)x;
	if (x == (s32)0x80000000 && y == -1)
		return 0;
	return (u64)(s64)(x % y);
}

static u64 rv_divuw(u64 a, u64 b)
{
	if (!(u32)b)
		return ~0ULL;
	return rv_sext32((u32)a / (u32)b);
}

static u64 rv_remuw(u64 a, u64 b)
{
	if (!(u32)b)
		return rv_sext32(a);
	return rv_sext32((u32)a % (u32)b);
}

/* A single from a register: a non-boxed value is the canonical NaN. */
static inline u32 rv_unbox(u64 f)
{
	return (f >> 32) == 0xffffffffU ? (u32)f : RV_F32_QNAN;
}

static inline u64 rv_box(u32 v)
{
	return 0xffffffff00000000ULL | v;
}

/* A work-item CSR's value from the group, by its name's end. */
#define RV_CSR(name)	\
	g->csr[NVSVM_GPU_CSR_##name - NVSVM_GPU_CSR_GLOBAL_ID]

static u64 rv_csr_read(const struct rv_hart *h, const struct rv_group *g,
		       u32 csr, u64 insns)
{
	u32 d;

	switch (csr) {
	case RV_CSR_FFLAGS:
		return h->fcsr & 0x1f;
	case RV_CSR_FRM:
		return (h->fcsr >> 5) & 7;
	case RV_CSR_FCSR:
		return h->fcsr & 0xff;
	case RV_CSR_CYCLE:
	case RV_CSR_TIME:
	case RV_CSR_INSTRET:
		return insns;
	case NVSVM_GPU_CSR_LOCAL_LINEAR_ID:
		return h->lid[0] + h->lid[1] * RV_CSR(LOCAL_SIZE) +
		       h->lid[2] * RV_CSR(LOCAL_SIZE) * RV_CSR(LOCAL_SIZE + 1);
	}
	/* decode let through only NVSVM_GPU_CSR_GLOBAL_ID to _END */
	if (csr < NVSVM_GPU_CSR_LOCAL_ID + 3) {
		d = csr - (csr < NVSVM_GPU_CSR_LOCAL_ID ?
			   NVSVM_GPU_CSR_GLOBAL_ID : NVSVM_GPU_CSR_LOCAL_ID);
		if (csr >= NVSVM_GPU_CSR_LOCAL_ID)
			return h->lid[d];
		return RV_CSR(GROUP_ID + d) * RV_CSR(ENQUEUED_LOCAL_SIZE + d) +
		       h->lid[d] + RV_CSR(GLOBAL_OFFSET + d);
	}
	return g->csr[csr - NVSVM_GPU_CSR_GLOBAL_ID];
}

static void rv_csr_write(struct rv_hart *h, u32 csr, u64 v)
{
	if (csr == RV_CSR_FFLAGS)
		h->fcsr = (h->fcsr & ~0x1fU) | (v & 0x1f);
	else if (csr == RV_CSR_FRM)
		h->fcsr = (h->fcsr & ~0xe0U) | ((v & 7) << 5);
	else
		h->fcsr = v & 0xff;
}

/* Where an access lands; RV_W_GLOBAL: not in a window. */
enum rv_where {
	RV_W_GLOBAL,
	RV_W_HOST,	/* *host points at the bytes */
	RV_W_TRAP,	/* the trap is filled */
};

/*
 * Resolve an access of @size bytes (a power of two, at most 8) at @va.
 * Misalignment traps first, everywhere; then a window's bounds, on the
 * access's last byte; a store (@write) to the image or param window traps.
 */
static int rv_where(struct rv_hart *h, const struct rv_group *g, u64 va,
		    u32 size, bool write, u8 **host, struct rv_trap *trap)
{
	u64 off, wsize;
	u8 *base;

	if (va & (size - 1)) {
		trap->cause = NVSVM_TRAP_MISALIGNED;
		goto trap;
	}
	if (va < NVSVM_GPU_IMAGE_BASE || va >= RV_WIN_END)
		return RV_W_GLOBAL;
	trap->cause = NVSVM_TRAP_WINDOW;
	if (va < NVSVM_GPU_PARAM_BASE) {
		if (write)
			goto trap;
		off = va - NVSVM_GPU_IMAGE_BASE;
		wsize = g->prog->size;
		base = (u8 *)g->prog->image;
	} else if (va < NVSVM_GPU_LOCAL_BASE) {
		if (write)
			goto trap;
		off = va - NVSVM_GPU_PARAM_BASE;
		wsize = g->param_size;
		base = (u8 *)g->param;
	} else if (va < NVSVM_GPU_PRIV_BASE) {
		off = va - NVSVM_GPU_LOCAL_BASE;
		wsize = g->local_size;
		base = g->local;
	} else {
		off = va - NVSVM_GPU_PRIV_BASE;
		wsize = g->priv_size;
		base = h->priv;
	}
	if (off >= wsize || wsize - off < size || !base)
		goto trap;
	*host = base + off;
	return RV_W_HOST;
trap:
	trap->pc = h->pc;
	trap->tval = va;
	return RV_W_TRAP;
}

static u64 rv_host_load(const u8 *p, u32 size)
{
	u8 b;
	u16 hw;
	u32 w;
	u64 d;

	switch (size) {
	case 1:
		memcpy(&b, p, 1);
		return b;
	case 2:
		memcpy(&hw, p, 2);
		return hw;
	case 4:
		memcpy(&w, p, 4);
		return w;
	}
	memcpy(&d, p, 8);
	return d;
}

static void rv_host_store(u8 *p, u32 size, u64 v)
{
	u8 b = v;
	u16 hw = v;
	u32 w = v;

	switch (size) {
	case 1:
		memcpy(p, &b, 1);
		break;
	case 2:
		memcpy(p, &hw, 2);
		break;
	case 4:
		memcpy(p, &w, 4);
		break;
	default:
		memcpy(p, &v, 8);
	}
}

static u64 rv_amo_apply(u32 op, u32 size, u64 old, u64 val)
{
	s64 so = size == 4 ? rv_sext32(old) : (s64)old;
	s64 sv = size == 4 ? rv_sext32(val) : (s64)val;
	u64 uo = size == 4 ? (u32)old : old, uv = size == 4 ? (u32)val : val;

	switch (op) {
	case RV_AMO_SWAP:
		return val;
	case RV_AMO_ADD:
		return old + val;
	case RV_AMO_XOR:
		return old ^ val;
	case RV_AMO_AND:
		return old & val;
	case RV_AMO_OR:
		return old | val;
	case RV_AMO_MIN:
		return so < sv ? old : val;
	case RV_AMO_MAX:
		return so > sv ? old : val;
	case RV_AMO_MINU:
		return uo < uv ? old : val;
	default:		/* RV_AMO_MAXU */
		return uo > uv ? old : val;
	}
}

/**
 * rv_amo_new() - the value an atomic leaves in the word it works on
 * @m: the access (RV_AMO): its operation, size, operand and compare value
 * @old: what the word held, zero-extended from @m->size bytes
 * @new: (out) what it holds after the atomic, zero-extended
 *
 * The one definition of the AMOs, for the windows here and for global
 * memory in the model (gpc.c), whichever way it carries them out.
 *
 * Return: false when the atomic leaves the word alone (an SC whose
 * compare failed).
 */
bool rv_amo_new(const struct rv_mem *m, u64 old, u64 *new)
{
	u64 mask = m->size == 8 ? ~0ULL : (1ULL << (8 * m->size)) - 1;

	if (m->amo == RV_AMO_CAS) {
		if ((old & mask) != (m->cmp & mask))
			return false;
		*new = m->val & mask;
		return true;
	}
	*new = rv_amo_apply(m->amo, m->size, old & mask, m->val & mask) & mask;
	return true;
}

/*
 * Perform a load, store or AMO (@m: va, size, kind, amo, val, cmp) for the
 * hart's current instruction. Return: -1 to go on (@m->val holds the
 * value read), or the enum rv_stop to return with.
 */
static int rv_access(struct rv_hart *h, const struct rv_group *g,
		     struct rv_mem *m, struct rv_trap *trap)
{
	u8 *p = NULL;
	u64 old, new;
	int r;

	r = rv_where(h, g, m->va, m->size, m->kind != RV_LOAD, &p, trap);
	if (r == RV_W_TRAP)
		return RV_STOP_TRAP;
	if (r == RV_W_GLOBAL) {
		r = g->global(g->env, m);
		if (r == RV_MEM_OK)
			return -1;
		return r == RV_MEM_STALL ? RV_STOP_STALL : RV_STOP_MEM;
	}
	if (m->kind == RV_LOAD) {
		m->val = rv_host_load(p, m->size);
		return -1;
	}
	if (m->kind == RV_STORE) {
		rv_host_store(p, m->size, m->val);
		return -1;
	}
	/* a plain read-modify-write: the window is this thread's alone */
	old = rv_host_load(p, m->size);
	if (rv_amo_new(m, old, &new))
		rv_host_store(p, m->size, new);
	m->val = old;
	return -1;
}

static inline u64 rv_size_mask(u32 size)
{
	return size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

/* Sign-extend a value of @size bytes. */
static inline u64 rv_sext(u64 v, u32 size)
{
	switch (size) {
	case 1:
		return (u64)(s64)(s8)v;
	case 2:
		return (u64)(s64)(s16)v;
	case 4:
		return (u64)rv_sext32(v);
	}
	return v;
}

/*
 * The rounding mode of an F/D instruction: its own, or frm for DYN.
 * Return: RV_RM_*, or -1 if frm holds a reserved mode.
 */
static inline int rv_rm(const struct rv_hart *h, const struct rv_insn *in)
{
	u32 rm = in->rm;

	if (rm == RV_RM_DYN)
		rm = (h->fcsr >> 5) & 7;
	return rm <= RV_RM_RMM ? (int)rm : -1;
}

#define RV_SGN32	0x80000000U
#define RV_SGN64	0x8000000000000000ULL

/*
 * The F and D computational instructions (no memory). Return: false if
 * the instruction is illegal (frm reserved).
 */
static bool rv_exec_fp(struct rv_hart *h, const struct rv_insn *in)
{
	u64 *x = h->x, *f = h->f;
	u32 a = rv_unbox(f[in->rs1]), b = rv_unbox(f[in->rs2]);
	u32 c = rv_unbox(f[in->rs3]);
	u64 da = f[in->rs1], db = f[in->rs2], dc = f[in->rs3];
	u64 xa = x[in->rs1];
	u32 ff = 0;
	int rm = rv_rm(h, in);

	if (rm < 0)
		return false;
	switch (in->op) {
	case RV_FMADD_S:
		f[in->rd] = rv_box(rv_f32_fma(a, b, c, rm, &ff));
		break;
	case RV_FMSUB_S:
		f[in->rd] = rv_box(rv_f32_fma(a, b, c ^ RV_SGN32, rm, &ff));
		break;
	case RV_FNMSUB_S:
		f[in->rd] = rv_box(rv_f32_fma(a ^ RV_SGN32, b, c, rm, &ff));
		break;
	case RV_FNMADD_S:
		f[in->rd] = rv_box(rv_f32_fma(a ^ RV_SGN32, b, c ^ RV_SGN32,
					      rm, &ff));
		break;
	case RV_FADD_S:
		f[in->rd] = rv_box(rv_f32_add(a, b, rm, &ff));
		break;
	case RV_FSUB_S:
		f[in->rd] = rv_box(rv_f32_sub(a, b, rm, &ff));
		break;
	case RV_FMUL_S:
		f[in->rd] = rv_box(rv_f32_mul(a, b, rm, &ff));
		break;
	case RV_FDIV_S:
		f[in->rd] = rv_box(rv_f32_div(a, b, rm, &ff));
		break;
	case RV_FSQRT_S:
		f[in->rd] = rv_box(rv_f32_sqrt(a, rm, &ff));
		break;
	case RV_FSGNJ_S:
		f[in->rd] = rv_box((a & ~RV_SGN32) | (b & RV_SGN32));
		break;
	case RV_FSGNJN_S:
		f[in->rd] = rv_box((a & ~RV_SGN32) | (~b & RV_SGN32));
		break;
	case RV_FSGNJX_S:
		f[in->rd] = rv_box(a ^ (b & RV_SGN32));
		break;
	case RV_FMIN_S:
		f[in->rd] = rv_box(rv_f32_min(a, b, &ff));
		break;
	case RV_FMAX_S:
		f[in->rd] = rv_box(rv_f32_max(a, b, &ff));
		break;
	case RV_FCVT_W_S:
		x[in->rd] = (u64)(s64)rv_f32_to_i32(a, rm, &ff);
		break;
	case RV_FCVT_WU_S:
		x[in->rd] = rv_sext32(rv_f32_to_u32(a, rm, &ff));
		break;
	case RV_FCVT_L_S:
		x[in->rd] = (u64)rv_f32_to_i64(a, rm, &ff);
		break;
	case RV_FCVT_LU_S:
		x[in->rd] = rv_f32_to_u64(a, rm, &ff);
		break;
	case RV_FCVT_S_W:
		f[in->rd] = rv_box(rv_i32_to_f32((s32)xa, rm, &ff));
		break;
	case RV_FCVT_S_WU:
		f[in->rd] = rv_box(rv_u32_to_f32((u32)xa, rm, &ff));
		break;
	case RV_FCVT_S_L:
		f[in->rd] = rv_box(rv_i64_to_f32((s64)xa, rm, &ff));
		break;
	case RV_FCVT_S_LU:
		f[in->rd] = rv_box(rv_u64_to_f32(xa, rm, &ff));
		break;
	case RV_FMV_X_W:
		x[in->rd] = rv_sext32(da);
		break;
	case RV_FMV_W_X:
		f[in->rd] = rv_box((u32)xa);
		break;
	case RV_FEQ_S:
		x[in->rd] = rv_f32_eq(a, b, &ff);
		break;
	case RV_FLT_S:
		x[in->rd] = rv_f32_lt(a, b, &ff);
		break;
	case RV_FLE_S:
		x[in->rd] = rv_f32_le(a, b, &ff);
		break;
	case RV_FCLASS_S:
		x[in->rd] = rv_f32_class(a);
		break;
	case RV_FMADD_D:
		f[in->rd] = rv_f64_fma(da, db, dc, rm, &ff);
		break;
	case RV_FMSUB_D:
		f[in->rd] = rv_f64_fma(da, db, dc ^ RV_SGN64, rm, &ff);
		break;
	case RV_FNMSUB_D:
		f[in->rd] = rv_f64_fma(da ^ RV_SGN64, db, dc, rm, &ff);
		break;
	case RV_FNMADD_D:
		f[in->rd] = rv_f64_fma(da ^ RV_SGN64, db, dc ^ RV_SGN64, rm,
				       &ff);
		break;
	case RV_FADD_D:
		f[in->rd] = rv_f64_add(da, db, rm, &ff);
		break;
	case RV_FSUB_D:
		f[in->rd] = rv_f64_sub(da, db, rm, &ff);
		break;
	case RV_FMUL_D:
		f[in->rd] = rv_f64_mul(da, db, rm, &ff);
		break;
	case RV_FDIV_D:
		f[in->rd] = rv_f64_div(da, db, rm, &ff);
		break;
	case RV_FSQRT_D:
		f[in->rd] = rv_f64_sqrt(da, rm, &ff);
		break;
	case RV_FSGNJ_D:
		f[in->rd] = (da & ~RV_SGN64) | (db & RV_SGN64);
		break;
	case RV_FSGNJN_D:
		f[in->rd] = (da & ~RV_SGN64) | (~db & RV_SGN64);
		break;
	case RV_FSGNJX_D:
		f[in->rd] = da ^ (db & RV_SGN64);
		break;
	case RV_FMIN_D:
		f[in->rd] = rv_f64_min(da, db, &ff);
		break;
	case RV_FMAX_D:
		f[in->rd] = rv_f64_max(da, db, &ff);
		break;
	case RV_FCVT_W_D:
		x[in->rd] = (u64)(s64)rv_f64_to_i32(da, rm, &ff);
		break;
	case RV_FCVT_WU_D:
		x[in->rd] = rv_sext32(rv_f64_to_u32(da, rm, &ff));
		break;
	case RV_FCVT_L_D:
		x[in->rd] = (u64)rv_f64_to_i64(da, rm, &ff);
		break;
	case RV_FCVT_LU_D:
		x[in->rd] = rv_f64_to_u64(da, rm, &ff);
		break;
	case RV_FCVT_D_W:
		f[in->rd] = rv_i32_to_f64((s32)xa, rm, &ff);
		break;
	case RV_FCVT_D_WU:
		f[in->rd] = rv_u32_to_f64((u32)xa, rm, &ff);
		break;
	case RV_FCVT_D_L:
		f[in->rd] = rv_i64_to_f64((s64)xa, rm, &ff);
		break;
	case RV_FCVT_D_LU:
		f[in->rd] = rv_u64_to_f64(xa, rm, &ff);
		break;
	case RV_FMV_X_D:
		x[in->rd] = da;
		break;
	case RV_FMV_D_X:
		f[in->rd] = xa;
		break;
	case RV_FEQ_D:
		x[in->rd] = rv_f64_eq(da, db, &ff);
		break;
	case RV_FLT_D:
		x[in->rd] = rv_f64_lt(da, db, &ff);
		break;
	case RV_FLE_D:
		x[in->rd] = rv_f64_le(da, db, &ff);
		break;
	case RV_FCLASS_D:
		x[in->rd] = rv_f64_class(da);
		break;
	case RV_FCVT_S_D:
		f[in->rd] = rv_box(rv_f64_to_f32(da, rm, &ff));
		break;
	case RV_FCVT_D_S:
		f[in->rd] = rv_f32_to_f64(a, &ff);
		break;
	}
	h->fcsr |= ff & 0x1f;
	return true;
}

/*
 * A memory instruction (loads, stores, LR, SC, AMOs, FP loads and
 * stores). Return: -1 when it retired, else the enum rv_stop.
 */
static int rv_exec_mem(struct rv_hart *h, const struct rv_group *g,
		       const struct rv_insn *in, struct rv_trap *trap)
{
	static const u8 size[] = {
		[RV_LB] = 1, [RV_LH] = 2, [RV_LW] = 4, [RV_LD] = 8,
		[RV_LBU] = 1, [RV_LHU] = 2, [RV_LWU] = 4,
		[RV_SB] = 1, [RV_SH] = 2, [RV_SW] = 4, [RV_SD] = 8,
		[RV_FLW] = 4, [RV_FLD] = 8, [RV_FSW] = 4, [RV_FSD] = 8,
	};
	struct rv_mem m = { .va = h->x[in->rs1] };
	u64 *x = h->x;
	u8 *hp;
	int r;

	switch (in->op) {
	case RV_LR:
	case RV_SC:
	case RV_AMO_OP:
		m.size = in->aux & 0xf;
		m.order = in->aux >> 4;
		break;
	default:
		m.va += (s64)in->imm;
		m.size = size[in->op];
	}
	switch (in->op) {
	case RV_SB:
	case RV_SH:
	case RV_SW:
	case RV_SD:
		m.kind = RV_STORE;
		m.val = x[in->rs2] & rv_size_mask(m.size);
		break;
	case RV_FSW:
		m.kind = RV_STORE;
		m.val = (u32)h->f[in->rs2];
		break;
	case RV_FSD:
		m.kind = RV_STORE;
		m.val = h->f[in->rs2];
		break;
	case RV_SC:
		m.kind = RV_AMO;
		m.amo = RV_AMO_CAS;
		m.val = x[in->rs2] & rv_size_mask(m.size);
		m.cmp = h->resv_val;
		/* misaligned and read-only windows trap even without LR */
		if (rv_where(h, g, m.va, m.size, true, &hp, trap) == RV_W_TRAP)
			return RV_STOP_TRAP;
		if (!h->resv || h->resv_va != m.va) {
			h->resv = false;
			x[in->rd] = 1;
			return -1;
		}
		break;
	case RV_AMO_OP:
		m.kind = RV_AMO;
		m.amo = in->rm;
		m.val = x[in->rs2] & rv_size_mask(m.size);
		break;
	default:
		m.kind = RV_LOAD;
	}
	r = rv_access(h, g, &m, trap);
	if (r >= 0)
		return r;
	switch (in->op) {
	case RV_LB:
	case RV_LH:
	case RV_LW:
	case RV_LD:
	case RV_AMO_OP:
		x[in->rd] = rv_sext(m.val, m.size);
		break;
	case RV_LBU:
	case RV_LHU:
	case RV_LWU:
		x[in->rd] = m.val;
		break;
	case RV_LR:
		h->resv = true;
		h->resv_va = m.va;
		h->resv_val = m.val;
		x[in->rd] = rv_sext(m.val, m.size);
		break;
	case RV_SC:
		h->resv = false;
		x[in->rd] = m.val != h->resv_val;
		break;
	case RV_FLW:
		h->f[in->rd] = rv_box((u32)m.val);
		break;
	case RV_FLD:
		h->f[in->rd] = m.val;
		break;
	}
	return -1;
}

static int rv_trap(struct rv_trap *trap, u32 cause, u64 pc, u64 tval)
{
	trap->cause = cause;
	trap->pc = pc;
	trap->tval = tval;
	return RV_STOP_TRAP;
}

/* Sign-extended immediate, as an unsigned addend. */
#define IMM	((u64)(s64)in->imm)
#define RS1	x[in->rs1]
#define RS2	x[in->rs2]
#define RD	x[in->rd]

int rv_run(struct rv_hart *h, const struct rv_group *g, u32 quantum,
	   struct rv_trap *trap)
{
	const struct rv_prog *p = g->prog;
	const struct rv_insn *in;
	u64 *x = h->x;
	u64 pc = h->pc, off, limit = quantum, n = 0;
	bool budget_bound = false;
	int r = RV_STOP_QUANTUM, s;
	u32 v32;
	u64 v;

	if (h->insns >= h->budget) {
		limit = 0;
		budget_bound = true;
	} else if (h->budget - h->insns < limit) {
		limit = h->budget - h->insns;
		budget_bound = true;
	}
	for (;;) {
		if (!pc) {
			r = RV_STOP_EXIT;
			break;
		}
		if (n == limit) {
			if (budget_bound)
				r = rv_trap(trap, NVSVM_TRAP_BUDGET, pc, 0);
			break;
		}
		off = pc - NVSVM_GPU_IMAGE_BASE;
		if (off >= p->size || (off & 3)) {
			r = rv_trap(trap, NVSVM_TRAP_FETCH, pc, pc);
			break;
		}
		in = &p->insn[off >> 2];
		switch (in->op) {
		case RV_LUI:
			RD = IMM;
			break;
		case RV_AUIPC:
			RD = pc + IMM;
			break;
		case RV_JAL:
			RD = pc + 4;
			pc += IMM;
			goto next;
		case RV_JALR:
			v = (RS1 + IMM) & ~1ULL;
			RD = pc + 4;
			pc = v;
			goto next;
		case RV_BEQ:
			if (RS1 == RS2)
				goto branch;
			break;
		case RV_BNE:
			if (RS1 != RS2)
				goto branch;
			break;
		case RV_BLT:
			if ((s64)RS1 < (s64)RS2)
				goto branch;
			break;
		case RV_BGE:
			if ((s64)RS1 >= (s64)RS2)
				goto branch;
			break;
		case RV_BLTU:
			if (RS1 < RS2)
				goto branch;
			break;
		case RV_BGEU:
			if (RS1 >= RS2)
				goto branch;
			break;
		case RV_ADDI:
			RD = RS1 + IMM;
			break;
		case RV_SLTI:
			RD = (s64)RS1 < (s64)IMM;
			break;
		case RV_SLTIU:
			RD = RS1 < IMM;
			break;
		case RV_XORI:
			RD = RS1 ^ IMM;
			break;
		case RV_ORI:
			RD = RS1 | IMM;
			break;
		case RV_ANDI:
			RD = RS1 & IMM;
			break;
		case RV_SLLI:	/* imm: 0..63 (decode) */
			RD = RS1 << in->imm;
			break;
		case RV_SRLI:
			RD = RS1 >> in->imm;
			break;
		case RV_SRAI:
			RD = (u64)((s64)RS1 >> in->imm);
			break;
		case RV_ADD:
			RD = RS1 + RS2;
			break;
		case RV_SUB:
			RD = RS1 - RS2;
			break;
		case RV_SLL:
			RD = RS1 << (RS2 & 63);
			break;
		case RV_SLT:
			RD = (s64)RS1 < (s64)RS2;
			break;
		case RV_SLTU:
			RD = RS1 < RS2;
			break;
		case RV_XOR:
			RD = RS1 ^ RS2;
			break;
		case RV_SRL:
			RD = RS1 >> (RS2 & 63);
			break;
		case RV_SRA:
			RD = (u64)((s64)RS1 >> (RS2 & 63));
			break;
		case RV_OR:
			RD = RS1 | RS2;
			break;
		case RV_AND:
			RD = RS1 & RS2;
			break;
		case RV_ADDIW:
			RD = rv_sext32(RS1 + IMM);
			break;
		case RV_SLLIW:	/* imm: 0..31 (decode) */
			RD = rv_sext32((u32)RS1 << in->imm);
			break;
		case RV_SRLIW:
			RD = rv_sext32((u32)RS1 >> in->imm);
			break;
		case RV_SRAIW:
			RD = (u64)(s64)((s32)RS1 >> in->imm);
			break;
		case RV_ADDW:
			RD = rv_sext32(RS1 + RS2);
			break;
		case RV_SUBW:
			RD = rv_sext32(RS1 - RS2);
			break;
		case RV_SLLW:
			RD = rv_sext32((u32)RS1 << (RS2 & 31));
			break;
		case RV_SRLW:
			RD = rv_sext32((u32)RS1 >> (RS2 & 31));
			break;
		case RV_SRAW:
			RD = (u64)(s64)((s32)RS1 >> (RS2 & 31));
			break;
		case RV_MUL:
			RD = RS1 * RS2;
			break;
		case RV_MULH:
			RD = rv_mulh(RS1, RS2);
			break;
		case RV_MULHSU:
			RD = rv_mulhsu(RS1, RS2);
			break;
		case RV_MULHU:
			RD = rv_mulhu(RS1, RS2);
			break;
		case RV_DIV:
			RD = rv_div(RS1, RS2);
			break;
		case RV_DIVU:
			RD = RS2 ? RS1 / RS2 : ~0ULL;
			break;
		case RV_REM:
			RD = rv_rem(RS1, RS2);
			break;
		case RV_REMU:
			RD = RS2 ? RS1 % RS2 : RS1;
			break;
		case RV_MULW:
			RD = rv_sext32((u32)RS1 * (u32)RS2);
			break;
		case RV_DIVW:
			RD = rv_divw(RS1, RS2);
			break;
		case RV_DIVUW:
			RD = rv_divuw(RS1, RS2);
			break;
		case RV_REMW:
			RD = rv_remw(RS1, RS2);
			break;
		case RV_REMUW:
			RD = rv_remuw(RS1, RS2);
			break;
		case RV_LB:
		case RV_LH:
		case RV_LW:
		case RV_LD:
		case RV_LBU:
		case RV_LHU:
		case RV_LWU:
		case RV_SB:
		case RV_SH:
		case RV_SW:
		case RV_SD:
		case RV_LR:
		case RV_SC:
		case RV_AMO_OP:
		case RV_FLW:
		case RV_FLD:
		case RV_FSW:
		case RV_FSD:
			h->pc = pc;
			s = rv_exec_mem(h, g, in, trap);
			if (s >= 0) {
				r = s;
				goto out;
			}
			break;
		case RV_FENCE:
			/* orders this hart's accesses as any RISC-V fence */
			smp_mb();
			break;
		case RV_ECALL:
			if (x[17] == NVSVM_GPU_ECALL_EXIT) {
				r = RV_STOP_EXIT;
			} else if (x[17] == NVSVM_GPU_ECALL_BARRIER) {
				/* the group's accesses before it, before after */
				smp_mb();
				r = RV_STOP_BARRIER;
			} else {
				r = rv_trap(trap, NVSVM_TRAP_BREAK, pc, 0);
				goto out;
			}
			pc += 4;
			n++;
			goto out;
		case RV_EBREAK:
			r = rv_trap(trap, NVSVM_TRAP_BREAK, pc, 0);
			goto out;
		case RV_CSR_READ:
			RD = rv_csr_read(h, g, in->imm, h->insns + n);
			break;
		case RV_CSRRW:
		case RV_CSRRS:
		case RV_CSRRC:
		case RV_CSRRWI:
		case RV_CSRRSI:
		case RV_CSRRCI:
			v = rv_csr_read(h, g, in->imm, 0);
			off = in->op >= RV_CSRRWI ? in->rs1 : RS1;
			if (in->op == RV_CSRRS || in->op == RV_CSRRSI)
				off |= v;
			else if (in->op == RV_CSRRC || in->op == RV_CSRRCI)
				off = v & ~off;
			rv_csr_write(h, in->imm, off);
			RD = v;
			break;
		case RV_ILLEGAL:
			r = rv_trap(trap, NVSVM_TRAP_ILLEGAL, pc, (u32)in->imm);
			goto out;
		default:
			if (!rv_exec_fp(h, in)) {	/* frm reserved */
				memcpy(&v32, p->image + off, 4);
				r = rv_trap(trap, NVSVM_TRAP_ILLEGAL, pc, v32);
				goto out;
			}
		}
		pc += 4;
		goto next;
branch:
		pc += IMM;
next:
		x[0] = 0;
		n++;
	}
out:
	x[0] = 0;
	h->pc = pc;
	h->insns += n;
	return r;
}
