/* SPDX-License-Identifier: GPL-2.0 */
/* GPU atomics through exclusive access, for the fault path (src/atomic.c). */
#ifndef _NVSVM_ATOMIC_H
#define _NVSVM_ATOMIC_H

#include <linux/types.h>

struct nvsvm_svmm;

int nvsvm_mirror_atomic(struct nvsvm_svmm *svmm, u64 addr, bool *changed);

#endif /* _NVSVM_ATOMIC_H */
