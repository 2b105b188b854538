/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An area's life (src/area.c): create, get, put; the one owner of its
 * reference count.
 */
#ifndef _NVSVM_AREA_H
#define _NVSVM_AREA_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct mm_struct;
struct nvsvm_device;
struct nvsvm_svmm;

struct nvsvm_svmm *nvsvm_svmm_create(struct nvsvm_device *ndev,
				     struct mm_struct *mm, u64 unmanaged_start,
				     u64 unmanaged_end);
void nvsvm_svmm_get(struct nvsvm_svmm *svmm);
void nvsvm_svmm_put(struct nvsvm_svmm *svmm);
bool nvsvm_svmm_managed(struct nvsvm_svmm *svmm, u64 start, u64 end);

#endif /* _NVSVM_AREA_H */
