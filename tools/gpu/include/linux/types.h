/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The device side has no libc and no kernel headers: uapi/nvsvm.h's
 * <linux/types.h>, for a program compiled for the SMs (tools/gpu/nvgpu.h).
 * The types have the sizes of the kernel's for any LP64 target.
 */
#ifndef _NVGPU_LINUX_TYPES_H
#define _NVGPU_LINUX_TYPES_H

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;

#endif /* _NVGPU_LINUX_TYPES_H */
