/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recency sampler (src/recency.c): passes that drop the GPU mappings
 * of sampled VRAM chunks; src/dmem.c picks the chunks and uses what the
 * GPU faults back.
 */
#ifndef _NVSVM_RECENCY_H
#define _NVSVM_RECENCY_H

#include <linux/types.h>

struct nvsvm_device;

void nvsvm_recency_init(struct nvsvm_device *ndev);
void nvsvm_recency_fini(struct nvsvm_device *ndev);
unsigned long nvsvm_recency_drop(struct nvsvm_device *ndev,
				 const unsigned long *chunks,
				 unsigned long nchunks);

#endif /* _NVSVM_RECENCY_H */
