/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters in debugfs (src/debugfs.c).
 */
#ifndef _NVSVM_DEBUGFS_H
#define _NVSVM_DEBUGFS_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct nvsvm_device;

void nvsvm_debugfs_init(void);
void nvsvm_debugfs_fini(void);
void nvsvm_debugfs_add(struct nvsvm_device *ndev);
void nvsvm_debugfs_remove(struct nvsvm_device *ndev);

#endif /* _NVSVM_DEBUGFS_H */
