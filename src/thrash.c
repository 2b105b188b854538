// SPDX-License-Identifier: GPL-2.0
/*
 * Thrashing policy for MIGRATE to VRAM (what NVIDIA UVM's
 * uvm_perf_thrashing.c decides, from migration history alone: Pascal has
 * no access counters).
 *
 * Pages the CPU and the GPU use in turn move back and forth: each CPU
 * access brings its page back, each MIGRATE takes it to VRAM again. Per
 * 2 MiB block of an area (struct nvsvm_thrash_block, in the area's
 * xarray), a MIGRATE to VRAM that moved pages of it is one move, however
 * many VMAs the block is made of; when thrashing_threshold of them (UVM's
 * default: 3) follow each other, each within thrashing_lapse_usec (500) of
 * the one before, the block is thrashing: for thrashing_pin lapses (300)
 * MIGRATE leaves it in system memory, where the GPU maps it (remote
 * access, UVM's "pin"). Nothing loops: a pinned block is skipped, not
 * retried. A munmap that touches a block forgets its history
 * (nvsvm_thrash_forget(), from the mirror's notifier), so what is mapped
 * there later starts afresh.
 *
 * This file decides from its block records only; the migration that asks
 * it (which blocks moved, when) is src/dmem.c's. The records are read and
 * written under the xarray's lock alone.
 */
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "nvsvm_core.h"
#include "nvsvm_thrash.h"

static bool thrashing_enable = true;
module_param(thrashing_enable, bool, 0644);
MODULE_PARM_DESC(thrashing_enable,
		 "detect blocks moving back and forth between VRAM and system memory, and keep them in system memory (default 1)");
static unsigned int thrashing_threshold = 3;
module_param(thrashing_threshold, uint, 0644);
MODULE_PARM_DESC(thrashing_threshold,
		 "moves of a 2 MiB block to VRAM, each within the lapse of the one before, that make it thrashing (default 3, as UVM)");
static unsigned int thrashing_lapse_usec = 500;
module_param(thrashing_lapse_usec, uint, 0644);
MODULE_PARM_DESC(thrashing_lapse_usec,
		 "longest time between two such moves, in microseconds (default 500, as UVM)");
static unsigned int thrashing_pin = 300;
module_param(thrashing_pin, uint, 0644);
MODULE_PARM_DESC(thrashing_pin,
		 "how long a thrashing block stays in system memory, in lapses (default 300, as UVM)");

/**
 * struct nvsvm_thrash_block - migration history of a 2 MiB block of an area
 * @last: time of its last move to VRAM (ktime_get_ns())
 * @pinned_until: it stays in system memory until then
 * @moves: moves to VRAM in a row, each within the lapse of the one before
 *
 * In the area's xarray (index: address / 2 MiB), under its xa_lock.
 */
struct nvsvm_thrash_block {
	u64 last;
	u64 pinned_until;
	unsigned int moves;
};

/**
 * nvsvm_thrash_enabled() - is thrashing detection on?
 *
 * Return: the thrashing_enable parameter, read once for one MIGRATE.
 */
bool nvsvm_thrash_enabled(void)
{
	return READ_ONCE(thrashing_enable);
}

/**
 * nvsvm_thrash_pinned() - is a block pinned in system memory?
 * @blocks: an area's migration history
 * @addr: an address in the block
 * @now: ktime_get_ns()
 *
 * Return: true when MIGRATE to VRAM is to skip the block at @now.
 */
bool nvsvm_thrash_pinned(struct xarray *blocks, u64 addr, u64 now)
{
	struct nvsvm_thrash_block *b;
	bool pinned;

	xa_lock(blocks);
	b = xa_load(blocks, addr / NVSVM_RANGE_MAX_BYTES);
	pinned = b && now < b->pinned_until;
	xa_unlock(blocks);
	return pinned;
}

/**
 * nvsvm_thrash_moved() - count a move of a block to VRAM
 * @blocks: an area's migration history
 * @addr: an address in the block
 * @now: ktime_get_ns() when it moved
 *
 * The block's history is made here if need be; without memory for it,
 * nothing is tracked. A block found thrashing is pinned in system memory
 * for thrashing_pin lapses from @now.
 *
 * Context: process; may allocate.
 * Return: when the block is thrashing now, the time (ktime_get_ns()) it is
 * pinned until, so that the VRAM it holds can be kept too (src/dmem.c's
 * background evictor leaves it); else 0.
 */
u64 nvsvm_thrash_moved(struct xarray *blocks, u64 addr, u64 now)
{
	u64 lapse = (u64)READ_ONCE(thrashing_lapse_usec) * NSEC_PER_USEC, pin;
	unsigned long idx = addr / NVSVM_RANGE_MAX_BYTES;
	struct nvsvm_thrash_block *b, *new = NULL;
	u64 thrashing = 0;

	if (check_mul_overflow(lapse, (u64)READ_ONCE(thrashing_pin), &pin) ||
	    check_add_overflow(now, pin, &pin))
		pin = U64_MAX;
	if (!xa_load(blocks, idx)) {
		new = kzalloc(sizeof(*new), NVSVM_GFP_USER);
		if (!new)
			return 0;
	}
	xa_lock(blocks);
	b = xa_load(blocks, idx);
	if (!b && new) {
		/* Nodes for the new slot, without sleeping. */
		if (xa_err(__xa_store(blocks, idx, new, GFP_NOWAIT |
				      __GFP_ACCOUNT | __GFP_NOWARN)))
			goto out;
		b = new;
		new = NULL;
	}
	if (!b)
		goto out;
	if (b->moves && now - b->last <= lapse)
		b->moves++;
	else
		b->moves = 1;
	b->last = now;
	if (b->moves >= READ_ONCE(thrashing_threshold)) {
		b->moves = 0;
		b->pinned_until = pin;
		thrashing = pin;
	}
out:
	xa_unlock(blocks);
	kfree(new);
	return thrashing;
}

/**
 * nvsvm_thrash_forget() - drop the history of unmapped blocks
 * @blocks: an area's migration history
 * @start: first unmapped address
 * @end: end of the unmapped range, exclusive, above @start
 *
 * Every 2 MiB block that [@start, @end) touches loses its history, as UVM
 * drops a VA block's at munmap: memory mapped there later starts afresh
 * instead of inheriting a pin. Does not sleep (the notifier of the OOM
 * reaper calls it); the history is only ever used under the xarray's lock,
 * so a migration running beside it just starts the block's count again.
 */
void nvsvm_thrash_forget(struct xarray *blocks, u64 start, u64 end)
{
	XA_STATE(xas, blocks, start / NVSVM_RANGE_MAX_BYTES);
	struct nvsvm_thrash_block *b;

	xas_lock(&xas);
	xas_for_each(&xas, b, (end - 1) / NVSVM_RANGE_MAX_BYTES) {
		xas_store(&xas, NULL);
		kfree(b);
	}
	xas_unlock(&xas);
}

/**
 * nvsvm_thrash_free() - free an area's migration history
 * @blocks: the xarray of its records; no migration of the area runs
 */
void nvsvm_thrash_free(struct xarray *blocks)
{
	struct nvsvm_thrash_block *b;
	unsigned long idx;

	xa_for_each(blocks, idx, b)
		kfree(b);
	xa_destroy(blocks);
}
