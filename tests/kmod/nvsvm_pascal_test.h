/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TEST ONLY: the ioctls of /dev/nvsvm_pascal_test (nvsvm_pascal_test.ko,
 * built from tests/kmod, never installed). Each open file is one channel
 * the way nouveau has them: an instance block the module owns (kept, and
 * reused, across LEAVE and JOIN), on the virtual GP100 nvsvm_vgpu.0, that
 * joins an nvsvm area with nvsvm_pascal_join() and leaves it with
 * nvsvm_pascal_leave(), as the patched nouveau does.
 */
#ifndef _NVSVM_PASCAL_TEST_H
#define _NVSVM_PASCAL_TEST_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include "nvsvm_vgpu.h"

/* JOIN: the channel starts and joins the area of the nvsvm file @fd. */
struct nvsvm_pt_join {
	__s32 fd;
	__u32 pad;
};

/* HOLD: @hold != 0 keeps the GPU's fault interrupt from the core. */
struct nvsvm_pt_hold {
	__u32 hold;
	__u32 pad;
};

#define NVSVM_PT_BASE	'T'
/* nvsvm_pascal_join(); errno as it returns, EBUSY if already joined. */
#define NVSVM_PT_JOIN	_IOW(NVSVM_PT_BASE, 0x00, struct nvsvm_pt_join)
/* Run a program on the joined channel: struct nvsvm_exec (handle ignored). */
#define NVSVM_PT_EXEC	_IOWR(NVSVM_PT_BASE, 0x01, struct nvsvm_exec)
/* Stop the channel (its programs end), then nvsvm_pascal_leave(). */
#define NVSVM_PT_LEAVE	_IO(NVSVM_PT_BASE, 0x02)
#define NVSVM_PT_HOLD	_IOW(NVSVM_PT_BASE, 0x03, struct nvsvm_pt_hold)

#endif /* _NVSVM_PASCAL_TEST_H */
