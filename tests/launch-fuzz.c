// SPDX-License-Identifier: GPL-2.0
/*
 * NVSVM_IOCTL_LAUNCH with hostile programs: random images, and the
 * compiled programs of tests/gpu/ mutated (bit flips, word swaps, random
 * words inserted), each run with a small insn_budget and timeout over 32
 * work-items whose argument block points every field at one valid buffer.
 * Every launch must return 0 with status OK, FAULT, TRAP or TIMEOUT; after
 * the lot, the same device runs a clean launch right. (Without
 * NVSVM_CAP_SYSMEM_ATOMICS, the atomics of histogram and reduce are
 * cancelled: FAULT.)
 *
 * The seed is fixed (0x5eed, or $NVSVM_FUZZ_SEED) and printed: a failure
 * replays with the same seed. The buffer sits in the middle of 64 KiB of
 * its own mapping, so that a mutated program's loads and stores near the
 * pointers it was given land there, not in this process's heap or stack
 * (a program can reach any address of the process: that is SVM).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "common.h"
#include "launch.h"
#include "gpu/gpu_args.h"

#include "chase.h"
#include "histogram.h"
#include "touch.h"
#include "reduce.h"
#include "cancel.h"
#include "float.h"

#define MAX_WORDS	1024
#define FUZZ_SPAN	(64 * 1024)

FIXTURE_FX(chan, FX_AREA, NVSVM_CHAN_JOIN_AREA)

static uint64_t fuzz_seed(void)
{
	const char *env = getenv("NVSVM_FUZZ_SEED");

	return env && *env ? strtoull(env, NULL, 0) : 0x5eed;
}

struct corpus {
	const unsigned char *image;
	uint32_t size, entry;
};

static const struct corpus corpus[] = {
	{ gpu_chase_image, GPU_CHASE_SIZE, GPU_CHASE_CHASE },
	{ gpu_histogram_image, GPU_HISTOGRAM_SIZE, GPU_HISTOGRAM_HISTOGRAM },
	{ gpu_touch_image, GPU_TOUCH_SIZE, GPU_TOUCH_TOUCH },
	{ gpu_reduce_image, GPU_REDUCE_SIZE, GPU_REDUCE_REDUCE },
	{ gpu_cancel_image, GPU_CANCEL_SIZE, GPU_CANCEL_CANCEL },
	{ gpu_float_image, GPU_FLOAT_SIZE, GPU_FLOAT_SAXPY },
	{ gpu_float_image, GPU_FLOAT_SIZE, GPU_FLOAT_DDOT },
};

#define NCORPUS	(sizeof(corpus) / sizeof(corpus[0]))

struct fuzz {
	uint32_t words[MAX_WORDS];
	uint32_t nwords, entry;
	uint64_t param[8];
	unsigned int counts[NVSVM_EXEC_TRAP + 1];
};

/* Random words, one in two with the low bits of a 32-bit instruction. */
static void random_image(struct fuzz *z)
{
	unsigned int i;

	z->nwords = 4 + rnd() % 252;
	for (i = 0; i < z->nwords; i++) {
		z->words[i] = rnd() >> 32;
		if (rnd() & 1)
			z->words[i] |= 3;
	}
	z->entry = (rnd() % z->nwords) * 4;
}

/* A compiled program with 1 to 4 mutations. */
static void mutated_image(struct fuzz *z)
{
	const struct corpus *c = &corpus[rnd() % NCORPUS];
	unsigned int i, j, k, n = 1 + rnd() % 4;
	uint32_t t;

	z->nwords = c->size / 4;
	memcpy(z->words, c->image, c->size);
	z->entry = c->entry;
	for (k = 0; k < n; k++) {
		i = rnd() % z->nwords;
		switch (rnd() % 3) {
		case 0:		/* bit flips */
			z->words[i] ^= 1U << (rnd() % 32);
			if (rnd() & 1)
				z->words[i] ^= 1U << (rnd() % 32);
			break;
		case 1:		/* two words swapped */
			j = rnd() % z->nwords;
			t = z->words[i];
			z->words[i] = z->words[j];
			z->words[j] = t;
			break;
		default:	/* a random word inserted */
			if (z->nwords == MAX_WORDS)
				break;
			memmove(&z->words[i + 1], &z->words[i],
				(z->nwords - i) * 4);
			z->words[i] = rnd() >> 32;
			z->nwords++;
			break;
		}
	}
}

/* Launch z's image: any outcome but a failed ioctl or another status. */
static int fuzz_launch(struct fx *f, struct fuzz *z, unsigned int n)
{
	struct nvsvm_launch l;
	int ret;

	nvsvm_launch_init(&l, f->chan, z->words, z->nwords * 4, z->entry,
			  z->param, sizeof(z->param), 32, 16);
	l.local_mem = 256;
	l.priv_mem = 1024;
	l.insn_budget = 1000 + rnd() % 1000;
	l.timeout_ms = 2000;
	ret = launch_run(f, &l);
	if (ret)
		KTAP_FAIL_MSG("launch %u (%u words, entry %u): %s", n,
			      z->nwords, z->entry, strerror(-ret));
	if (l.status != NVSVM_EXEC_OK && l.status != NVSVM_EXEC_FAULT &&
	    l.status != NVSVM_EXEC_TRAP && l.status != NVSVM_EXEC_TIMEOUT)
		KTAP_FAIL_MSG("launch %u: status %s (%u)", n,
			      nvsvm_status_name(l.status), l.status);
	z->counts[l.status]++;
	if (l.status == NVSVM_EXEC_TIMEOUT)	/* allowed, but worth a look */
		ktap_note("launch %u (%u words, entry %u): TIMEOUT after %llu instructions",
			  n, z->nwords, z->entry,
			  (unsigned long long)l.insns);
	return KTAP_PASS;
}

/* After the fuzzing: a clean launch of 64 stores, exact. */
static int clean_launch(struct fx *f)
{
	uint64_t out[64] = { 0 };
	struct touch_args a = {
		.base = nvsvm_ptr(out), .stride = 8, .pattern = 0xc1ea,
	};
	struct nvsvm_launch l;
	unsigned int i;

	nvsvm_launch_init(&l, f->chan, gpu_touch_image, GPU_TOUCH_SIZE,
			  GPU_TOUCH_TOUCH, &a, sizeof(a), 64, 32);
	CHK_OK(nvsvm_launch(f->fd, &l));
	CHK_EQ(l.status, NVSVM_EXEC_OK);
	for (i = 0; i < 64; i++)
		CHK_EQ(out[i], a.pattern ^ i);
	return KTAP_PASS;
}

static void fuzz_run(struct __test_metadata *_metadata, struct fx *f,
		     unsigned int n, void (*make)(struct fuzz *))
{
	static struct fuzz z;
	uint8_t *span = anon(FUZZ_SPAN);
	uint64_t buf;
	unsigned int i;

	ASSERT_MAP(span);
	memset(&z, 0, sizeof(z));
	rnd_state = fuzz_seed();
	TH_LOG("seed %#llx (NVSVM_FUZZ_SEED), %u launches",
	       (unsigned long long)rnd_state, n);
	buf = nvsvm_ptr(span + FUZZ_SPAN / 2);
	for (i = 0; i < 8; i++)
		z.param[i] = buf;
	for (i = 0; i < n; i++) {
		make(&z);
		ASSERT_PASS(fuzz_launch(f, &z, i));
	}
	TH_LOG("OK %u, FAULT %u, TRAP %u, TIMEOUT %u",
	       z.counts[NVSVM_EXEC_OK], z.counts[NVSVM_EXEC_FAULT],
	       z.counts[NVSVM_EXEC_TRAP], z.counts[NVSVM_EXEC_TIMEOUT]);
	ASSERT_PASS(clean_launch(f));
}

TEST_F(chan, random_images)
{
	fuzz_run(_metadata, &self->fx, 150, random_image);
}

TEST_F(chan, mutated_programs)
{
	fuzz_run(_metadata, &self->fx, 250, mutated_image);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, NVSVM_CAP_EXEC);
}
