/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tests/launch.c and tests/launch-fuzz.c share: a deterministic
 * generator and a LAUNCH that keeps the channel usable. Include after
 * common.h.
 */
#ifndef NVSVM_TESTS_LAUNCH_H
#define NVSVM_TESTS_LAUNCH_H

#include "common.h"

/* xorshift64*: the same numbers for the same seed, on every run. */
static uint64_t rnd_state;

static inline uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

/*
 * Run @l on @f's channel; 0 or the ioctl's -errno. A launch that did not
 * end OK may leave the channel in error: it is replaced, as gpu_run_on()
 * does, so that the next launch runs on a working one.
 */
static inline int launch_run(struct fx *f, struct nvsvm_launch *l)
{
	int ret;

	l->handle = f->chan;
	ret = nvsvm_launch(f->fd, l);
	if (!ret && l->status != NVSVM_EXEC_OK) {
		ret = nvsvm_chan_destroy(f->fd, f->chan);
		if (!ret)
			ret = nvsvm_chan_create(f->fd, NVSVM_CHAN_JOIN_AREA,
						&f->chan);
	}
	return ret;
}

#endif /* NVSVM_TESTS_LAUNCH_H */
