/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IEEE 754 binary32 and binary64 arithmetic in software, as the RISC-V F
 * and D extensions define it, for the SMs' interpreter (rv.c): the kernel
 * does not use the CPU's floating-point unit, and a program's results
 * must not depend on the host's. Written from IEEE 754-2008 and the RISC-V
 * unprivileged specification, chapters "F" and "D".
 *
 * Values are bit patterns (u32 for binary32, u64 for binary64); NaN
 * boxing is the interpreter's business. @rm is a RISC-V rounding mode
 * (RV_RM_*, never DYN: the interpreter resolves it). Each function ORs
 * the exceptions it raises into *@fflags (RV_FF_*). A NaN result is the
 * canonical NaN (RV_F32_QNAN, RV_F64_QNAN), as RISC-V requires.
 * Tininess is detected after rounding, as on RISC-V.
 */
#ifndef _NVSVM_VGPU_RV_FP_H
#define _NVSVM_VGPU_RV_FP_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "rv_host.h"
#endif

#define RV_RM_RNE	0	/* to nearest, ties to even */
#define RV_RM_RTZ	1	/* towards zero */
#define RV_RM_RDN	2	/* down */
#define RV_RM_RUP	3	/* up */
#define RV_RM_RMM	4	/* to nearest, ties away from zero */
#define RV_RM_DYN	7	/* in an instruction: frm */

#define RV_FF_NX	0x01	/* inexact */
#define RV_FF_UF	0x02	/* underflow */
#define RV_FF_OF	0x04	/* overflow */
#define RV_FF_DZ	0x08	/* divide by zero */
#define RV_FF_NV	0x10	/* invalid */

#define RV_F32_QNAN	0x7fc00000U
#define RV_F64_QNAN	0x7ff8000000000000ULL

/* a + b, a - b, a * b, a / b, sqrt(a), a * b + c with one rounding. */
u32 rv_f32_add(u32 a, u32 b, u32 rm, u32 *fflags);
u32 rv_f32_sub(u32 a, u32 b, u32 rm, u32 *fflags);
u32 rv_f32_mul(u32 a, u32 b, u32 rm, u32 *fflags);
u32 rv_f32_div(u32 a, u32 b, u32 rm, u32 *fflags);
u32 rv_f32_sqrt(u32 a, u32 rm, u32 *fflags);
u32 rv_f32_fma(u32 a, u32 b, u32 c, u32 rm, u32 *fflags);
/* FMIN/FMAX (minimumNumber: -0 < +0; one NaN: the other operand). */
u32 rv_f32_min(u32 a, u32 b, u32 *fflags);
u32 rv_f32_max(u32 a, u32 b, u32 *fflags);
/* FEQ (NV on a signaling NaN), FLT and FLE (NV on any NaN): 0 or 1. */
u32 rv_f32_eq(u32 a, u32 b, u32 *fflags);
u32 rv_f32_lt(u32 a, u32 b, u32 *fflags);
u32 rv_f32_le(u32 a, u32 b, u32 *fflags);
/* FCLASS: one bit of ten. */
u32 rv_f32_class(u32 a);
/* FCVT to integers: saturating, NV when out of range or NaN, as RISC-V. */
s32 rv_f32_to_i32(u32 a, u32 rm, u32 *fflags);
u32 rv_f32_to_u32(u32 a, u32 rm, u32 *fflags);
s64 rv_f32_to_i64(u32 a, u32 rm, u32 *fflags);
u64 rv_f32_to_u64(u32 a, u32 rm, u32 *fflags);
u32 rv_i32_to_f32(s32 v, u32 rm, u32 *fflags);
u32 rv_u32_to_f32(u32 v, u32 rm, u32 *fflags);
u32 rv_i64_to_f32(s64 v, u32 rm, u32 *fflags);
u32 rv_u64_to_f32(u64 v, u32 rm, u32 *fflags);

u64 rv_f64_add(u64 a, u64 b, u32 rm, u32 *fflags);
u64 rv_f64_sub(u64 a, u64 b, u32 rm, u32 *fflags);
u64 rv_f64_mul(u64 a, u64 b, u32 rm, u32 *fflags);
u64 rv_f64_div(u64 a, u64 b, u32 rm, u32 *fflags);
u64 rv_f64_sqrt(u64 a, u32 rm, u32 *fflags);
u64 rv_f64_fma(u64 a, u64 b, u64 c, u32 rm, u32 *fflags);
u64 rv_f64_min(u64 a, u64 b, u32 *fflags);
u64 rv_f64_max(u64 a, u64 b, u32 *fflags);
u32 rv_f64_eq(u64 a, u64 b, u32 *fflags);
u32 rv_f64_lt(u64 a, u64 b, u32 *fflags);
u32 rv_f64_le(u64 a, u64 b, u32 *fflags);
u32 rv_f64_class(u64 a);
s32 rv_f64_to_i32(u64 a, u32 rm, u32 *fflags);
u32 rv_f64_to_u32(u64 a, u32 rm, u32 *fflags);
s64 rv_f64_to_i64(u64 a, u32 rm, u32 *fflags);
u64 rv_f64_to_u64(u64 a, u32 rm, u32 *fflags);
u64 rv_i32_to_f64(s32 v, u32 rm, u32 *fflags);
u64 rv_u32_to_f64(u32 v, u32 rm, u32 *fflags);
u64 rv_i64_to_f64(s64 v, u32 rm, u32 *fflags);
u64 rv_u64_to_f64(u64 v, u32 rm, u32 *fflags);

/* FCVT.D.S (exact) and FCVT.S.D. */
u64 rv_f32_to_f64(u32 a, u32 *fflags);
u32 rv_f64_to_f32(u64 a, u32 rm, u32 *fflags);

#endif /* _NVSVM_VGPU_RV_FP_H */
