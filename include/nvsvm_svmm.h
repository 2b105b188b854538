/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The area's ioctls (src/svmm.c): AREA_INIT, MAP, UNMAP, QUERY, MIGRATE,
 * and an area's teardown.
 */
#ifndef _NVSVM_SVMM_H
#define _NVSVM_SVMM_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct nvsvm_device;
struct nvsvm_file;
struct nvsvm_svmm;

long nvsvm_ioctl_area_init(struct nvsvm_file *nf, void __user *uarg);
long nvsvm_ioctl_map(struct nvsvm_file *nf, void __user *uarg,
		     struct nvsvm_uffd_wait *uffd);
long nvsvm_ioctl_unmap(struct nvsvm_file *nf, void __user *uarg);
long nvsvm_ioctl_query(struct nvsvm_file *nf, void __user *uarg);
long nvsvm_ioctl_migrate(struct nvsvm_file *nf, void __user *uarg);
void nvsvm_svmm_fini(struct nvsvm_svmm *svmm);
void nvsvm_svmm_unplug_all(struct nvsvm_device *ndev);
long nvsvm_svmm_get_range(struct nvsvm_file *nf, u64 addr, u64 size,
			  struct nvsvm_svmm **psvmm);

#endif /* _NVSVM_SVMM_H */
