/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * uapi/nvsvm.h's <linux/ioctl.h> for a program compiled for the SMs: the
 * device side issues no ioctl, so the numbers only need to expand.
 */
#ifndef _NVGPU_LINUX_IOCTL_H
#define _NVGPU_LINUX_IOCTL_H

#define _IO(type, nr)			0
#define _IOR(type, nr, size)		0
#define _IOW(type, nr, size)		0
#define _IOWR(type, nr, size)		0

#endif /* _NVGPU_LINUX_IOCTL_H */
