// SPDX-License-Identifier: GPL-2.0
/*
 * OpenCL C's printf (6.15.14) on the SMs: the format's address and the
 * arguments, as one record, into the launch's printf buffer; the ICD
 * formats the records on the host when the kernel has ended
 * (tools/cl/printf.c). The buffer, the regions of the work-groups and the
 * record are described in nvcl.h. C, not OpenCL C: OpenCL C has no
 * va_arg.
 *
 * What clang-14 passes for riscv64 (lp64d): every argument in 8-byte slots
 * of the integer registers, then the stack; char, short and int widened to
 * 64 bits, float and half promoted to double (cl_khr_fp64 is always on);
 * a vector of up to 8 bytes in one slot, of 16 bytes in an aligned pair of
 * slots (as __int128), a larger one by reference.
 *
 * noinline: the compiler (compile.c, rewrite()) knows a program calls
 * printf by the function's name in the IR it links.
 */
#include <stdarg.h>
#include <stdint.h>

#include "nvsvm_vgpu.h"
#include "../nvcl.h"

#define STAGE		1024	/* the largest record, on the stack */

#define CSRR(csr) ({							\
	uint64_t __v;							\
	__asm__ volatile("csrr %0, %1" : "=r"(__v) : "i"(csr));	\
	__v;								\
})

int printf(const char *fmt, ...);

static void copy(uint8_t *d, const uint8_t *s, uint64_t n)
{
	while (n--)
		*d++ = *s++;
}

static uint64_t round8(uint64_t n)
{
	return (n + 7) & ~7ULL;
}

/* One argument into the record at @st + *@n; 0, or -1 when it is full. */
static int stage_arg(const struct nvcl_pspec *s, va_list *ap, uint8_t *st,
		     uint64_t *n)
{
	if (s->conv == 's') {
		const char *str = va_arg(*ap, const char *);
		uint64_t l = 0;

		if (!str)
			str = "(null)";
		while (str[l] && l < STAGE)
			l++;
		if (*n + 8 + round8(l) > STAGE)
			return -1;
		copy(st + *n, (const uint8_t *)&l, 8);
		copy(st + *n + 8, (const uint8_t *)str, l);
		*n += 8 + round8(l);
	} else if (s->vec) {
		uint64_t b = nvcl_pelem(s) * (s->vec == 3 ? 4 : s->vec);

		if (*n + round8(b) > STAGE)
			return -1;
		if (b <= 8) {
			uint64_t v = va_arg(*ap, uint64_t);

			copy(st + *n, (const uint8_t *)&v, 8);
		} else if (b == 16) {
			unsigned __int128 v = va_arg(*ap, unsigned __int128);

			copy(st + *n, (const uint8_t *)&v, 16);
		} else {
			copy(st + *n, va_arg(*ap, const uint8_t *), b);
		}
		*n += round8(b);
	} else {
		/* Integers, pointers and doubles alike: the slot's 64 bits. */
		uint64_t v = va_arg(*ap, uint64_t);

		if (*n + 8 > STAGE)
			return -1;
		copy(st + *n, (const uint8_t *)&v, 8);
		*n += 8;
	}
	return 0;
}

__attribute__((noinline)) int printf(const char *fmt, ...)
{
	uint64_t stage[STAGE / 8];
	uint8_t *st = (uint8_t *)stage, *dst;
	const char *p = fmt;
	uint64_t n = 16, buf, group, old;
	uint32_t region;
	va_list ap;
	int ret = 0;

	va_start(ap, fmt);
	while (*p) {
		struct nvcl_pspec s;

		if (*p++ != '%')
			continue;
		if (*p == '%') {
			p++;
			continue;
		}
		p = nvcl_pspec(p, &s);
		if (s.conv && stage_arg(&s, &ap, st, &n)) {
			ret = -1;
			break;
		}
	}
	va_end(ap);
	if (ret)
		return ret;
	buf = *(const uint64_t *)NVSVM_GPU_PARAM_BASE;
	region = *(const uint32_t *)(NVSVM_GPU_PARAM_BASE + 8);
	if (!buf)
		return -1;
	old = __atomic_fetch_add((uint64_t *)NVSVM_GPU_LOCAL_BASE, n,
				 __ATOMIC_RELAXED);
	if (old >= region || n > region - old)
		return -1;
	group = CSRR(NVSVM_GPU_CSR_GROUP_ID) +
		CSRR(NVSVM_GPU_CSR_NUM_GROUPS) *
		(CSRR(NVSVM_GPU_CSR_GROUP_ID + 1) +
		 CSRR(NVSVM_GPU_CSR_NUM_GROUPS + 1) *
		 CSRR(NVSVM_GPU_CSR_GROUP_ID + 2));
	dst = (uint8_t *)(buf + group * region + old);
	stage[1] = (uint64_t)(uintptr_t)fmt;
	copy(dst + 8, st + 8, n - 8);
	/* The length last: a record cut short has none. */
	__atomic_store_n((uint64_t *)dst,
			 n | (uint64_t)NVCL_PRINTF_MAGIC << 32, __ATOMIC_RELEASE);
	return 0;
}
