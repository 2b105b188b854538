/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffers in the unmanaged window (src/buf.c): BUF_ALLOC/BUF_FREE, mmap,
 * and their teardown with the area.
 */
#ifndef _NVSVM_BUF_H
#define _NVSVM_BUF_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct file;
struct nvsvm_file;
struct nvsvm_svmm;
struct vm_area_struct;

long nvsvm_ioctl_buf_alloc(struct nvsvm_file *nf, void __user *uarg);
long nvsvm_ioctl_buf_free(struct nvsvm_file *nf, void __user *uarg);
void nvsvm_buf_fini_all(struct nvsvm_file *nf, struct nvsvm_svmm *svmm);
unsigned long nvsvm_buf_get_unmapped_area(struct file *file,
					  unsigned long addr, unsigned long len,
					  unsigned long pgoff,
					  unsigned long flags);
int nvsvm_buf_mmap(struct file *file, struct vm_area_struct *vma);

#endif /* _NVSVM_BUF_H */
