/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replayable fault path (src/fault.c): the device's fault work and
 * each area's.
 */
#ifndef _NVSVM_FAULT_H
#define _NVSVM_FAULT_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct nvsvm_device;
struct nvsvm_svmm;

int nvsvm_fault_init(struct nvsvm_device *ndev);
void nvsvm_fault_flush(struct nvsvm_device *ndev);
void nvsvm_fault_unplug(struct nvsvm_device *ndev);
void nvsvm_fault_fini(struct nvsvm_device *ndev);
int nvsvm_fault_mod_init(void);
void nvsvm_fault_mod_exit(void);
int nvsvm_fault_svmm_init(struct nvsvm_svmm *svmm);
void nvsvm_fault_svmm_fini(struct nvsvm_svmm *svmm);

#endif /* _NVSVM_FAULT_H */
