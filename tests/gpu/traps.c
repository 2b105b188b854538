// SPDX-License-Identifier: GPL-2.0
/*
 * One entry per trap cause (enum nvsvm_launch_trap). The instruction that
 * traps carries a global symbol nvgpu_mark_<name>, exported by
 * tools/gpu/build-kernel.sh as GPU_TRAPS_MARK_<NAME>: the fault_pc the
 * test expects.
 */
#include "nvgpu.h"
#include "gpu_args.h"

#define MARK(name)	".globl nvgpu_mark_" #name "\nnvgpu_mark_" #name ":\n\t"

/*
 * 0x0000006b: a 32-bit word of major opcode 1101011, reserved in the
 * RISC-V base opcode map. (Not 0x00000000, illegal too, but a 16-bit
 * parcel that build-kernel.sh's check for compressed code rejects.)
 */
NVGPU_KERNEL(illegal, struct trap_args)
{
	__asm__ volatile(MARK(illegal) ".word 0x0000006b" : : : "memory");
}

/* A store to the image window, which is read and execute only. */
NVGPU_KERNEL(image_store, struct trap_args)
{
	__asm__ volatile(MARK(image_store) "sd zero, 0(%0)"
			 : : "r"(NVSVM_GPU_IMAGE_BASE + 8) : "memory");
}

/* A store to the argument block, read only too. */
NVGPU_KERNEL(param_store, struct trap_args)
{
	__asm__ volatile(MARK(param_store) "sd zero, 0(%0)"
			 : : "r"(args) : "memory");
}

/* A load past the end of private memory (priv_mem bytes). */
NVGPU_KERNEL(priv_past_end, struct trap_args)
{
	uint64_t v;

	__asm__ volatile(MARK(priv_past_end) "ld %0, 0(%1)"
			 : "=r"(v) : "r"(NVSVM_GPU_PRIV_BASE + 65536)
			 : "memory");
}

/* An 8-byte load from buf + 1 (global memory, not naturally aligned). */
NVGPU_KERNEL(misaligned, struct trap_args)
{
	uint64_t v;

	__asm__ volatile(MARK(misaligned) "ld %0, 1(%1)"
			 : "=r"(v) : "r"(args->buf) : "memory");
}

/* Never ends: the launch's insn_budget stops it. */
NVGPU_KERNEL(forever, struct trap_args)
{
	for (;;)
		__asm__ volatile("" : : : "memory");
}

NVGPU_KERNEL(ebreak, struct trap_args)
{
	__asm__ volatile(MARK(ebreak) "ebreak" : : : "memory");
}

/* An ecall the device ABI does not define (a7 = 99). */
NVGPU_KERNEL(bad_ecall, struct trap_args)
{
	__asm__ volatile("li a7, 99\n\t" MARK(bad_ecall) "ecall"
			 : : : "a7", "memory");
}

/* A jump to an address inside the image that is not 4-byte aligned. */
NVGPU_KERNEL(fetch, struct trap_args)
{
	__asm__ volatile(MARK(fetch) "jr %0"
			 : : "r"(NVSVM_GPU_IMAGE_BASE + 2) : "memory");
}

/* An 8-byte load from buf, whatever it is (a global address). */
NVGPU_KERNEL(load_at, struct trap_args)
{
	uint64_t v;

	__asm__ volatile(MARK(load_at) "ld %0, 0(%1)"
			 : "=r"(v) : "r"(args->buf) : "memory");
}
