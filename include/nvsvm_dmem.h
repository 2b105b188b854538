/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device-private memory: the provider's video memory as ZONE_DEVICE pages
 * that CPU page tables can hold (as device-private swap entries), and the
 * migration of anonymous pages between system memory and it (the MIGRATE
 * ioctl over it is in src/svmm.c).
 * See src/dmem.c.
 */
#ifndef _NVSVM_DMEM_H
#define _NVSVM_DMEM_H

#include <linux/types.h>

struct hmm_range;
struct mm_struct;
struct nvsvm_device;
struct xarray;

int nvsvm_dmem_init(struct nvsvm_device *ndev);
void nvsvm_dmem_fini(struct nvsvm_device *ndev);
bool nvsvm_dmem_vram(struct nvsvm_device *ndev, unsigned long hmm_pfn,
		     u64 *vram);
bool nvsvm_dmem_is_ours(struct nvsvm_device *ndev, unsigned long hmm_pfn);
bool nvsvm_dmem_pressure(struct nvsvm_device *ndev, unsigned int mark);
void nvsvm_dmem_used(struct nvsvm_device *ndev, u64 vram, unsigned long stamp);
unsigned long nvsvm_dmem_stamp(struct nvsvm_device *ndev);
unsigned long nvsvm_dmem_nchunks(struct nvsvm_device *ndev);
unsigned long nvsvm_dmem_sample(struct nvsvm_device *ndev, unsigned int n,
				unsigned long *pick);
int nvsvm_dmem_hmm_fixup(struct nvsvm_device *ndev, struct hmm_range *range,
			 const unsigned long *req);
long nvsvm_dmem_migrate(struct nvsvm_device *ndev, struct mm_struct *mm,
			u64 start, u64 end, bool to_vram,
			struct xarray *blocks, u64 *moved);

#endif /* _NVSVM_DMEM_H */
