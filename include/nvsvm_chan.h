/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Channels (src/chan.c): CHAN_CREATE/DESTROY and the device's channel
 * table, its one writer (bind, unbind, detach).
 */
#ifndef _NVSVM_CHAN_H
#define _NVSVM_CHAN_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct nvsvm_core_chan;
struct nvsvm_device;
struct nvsvm_file;
struct nvsvm_svmm;

long nvsvm_ioctl_chan_create(struct nvsvm_file *nf, void __user *uarg);
long nvsvm_ioctl_chan_destroy(struct nvsvm_file *nf, void __user *uarg);
void nvsvm_chan_destroy_all(struct nvsvm_file *nf);
int nvsvm_chan_bind(struct nvsvm_core_chan *chan);
void nvsvm_chan_unbind(struct nvsvm_core_chan *chan);
void nvsvm_chan_detach_svmm(struct nvsvm_device *ndev,
			    struct nvsvm_svmm *svmm);

#endif /* _NVSVM_CHAN_H */
