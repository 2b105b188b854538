/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device-private memory: the provider's video memory as ZONE_DEVICE pages
 * that CPU page tables can hold (as device-private swap entries), and the
 * MIGRATE ioctl that moves anonymous pages between system memory and it.
 * See src/dmem.c.
 */
#ifndef _NVSVM_DMEM_H
#define _NVSVM_DMEM_H

#include <linux/types.h>

struct hmm_range;
struct nvsvm_device;
struct nvsvm_file;

int nvsvm_dmem_init(struct nvsvm_device *ndev);
void nvsvm_dmem_fini(struct nvsvm_device *ndev);
bool nvsvm_dmem_vram(struct nvsvm_device *ndev, unsigned long hmm_pfn,
		     u64 *vram);
int nvsvm_dmem_hmm_fixup(struct nvsvm_device *ndev, struct hmm_range *range,
			 const unsigned long *req);
long nvsvm_ioctl_migrate(struct nvsvm_file *nf, void __user *uarg);

#endif /* _NVSVM_DMEM_H */
