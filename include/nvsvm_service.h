/* SPDX-License-Identifier: GPL-2.0 */
/* The service of an area's faults, for the fault pipeline (src/service.c). */
#ifndef _NVSVM_SERVICE_H
#define _NVSVM_SERVICE_H

#include <linux/types.h>

struct nvsvm_device;
struct nvsvm_fault_batch;
struct nvsvm_svmm;

struct nvsvm_svmm *nvsvm_chan_svmm_get(struct nvsvm_device *ndev, u64 inst_addr,
				       dma_addr_t *pdb);
void nvsvm_fault_inst(struct nvsvm_device *ndev, struct nvsvm_svmm *svmm,
		      struct nvsvm_fault_batch *b, unsigned int first,
		      unsigned int last);
int nvsvm_fault_uffd_wait(struct nvsvm_svmm *svmm, u64 addr, bool write);

#endif /* _NVSVM_SERVICE_H */
