/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thrashing policy: per 2 MiB block of an area, the history of its moves
 * to VRAM, and whether MIGRATE leaves it in system memory. See
 * src/thrash.c.
 */
#ifndef _NVSVM_THRASH_H
#define _NVSVM_THRASH_H

#include <linux/types.h>

struct xarray;

bool nvsvm_thrash_enabled(void);
bool nvsvm_thrash_pinned(struct xarray *blocks, u64 addr, u64 now);
u64 nvsvm_thrash_moved(struct xarray *blocks, u64 addr, u64 now);
void nvsvm_thrash_forget(struct xarray *blocks, u64 start, u64 end);
void nvsvm_thrash_free(struct xarray *blocks);

#endif /* _NVSVM_THRASH_H */
