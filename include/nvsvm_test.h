/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TEST ONLY: hooks for the test module tests/kmod/nvsvm_pascal_test.ko,
 * which drives the nvsvm_pascal_* calls nouveau makes against a virtual
 * GP100, and nvsvm.ko's own hook of a test build (src/test.c). Neither
 * drivers nor user space use these; they are no part of the nvsvm
 * interface (uapi/, include/nvsvm_pascal.h).
 */
#ifndef _NVSVM_TEST_H
#define _NVSVM_TEST_H

#include <linux/types.h>

/*
 * EXPORT_SYMBOL_NVSVM_TESTS_ONLY(sym): export @sym in a test build alone
 * (Kbuild: CONFIG_NVSVM_TEST=y defines NVSVM_TEST), as DRM's
 * EXPORT_SYMBOL_FOR_TESTS_ONLY() does; a product build (make, DKMS)
 * exports none of the hooks below, so no other module can call them.
 */
#ifdef NVSVM_TEST
#include <linux/export.h>
#define EXPORT_SYMBOL_NVSVM_TESTS_ONLY(sym)	EXPORT_SYMBOL_GPL(sym)
#else
#define EXPORT_SYMBOL_NVSVM_TESTS_ONLY(sym)
#endif

struct nvsvm_chan;
struct nvsvm_exec;
struct nvsvm_gpu;
struct nvsvm_pascal;

/* nvsvm.ko, src/pascal.c */
struct nvsvm_pascal *nvsvm_pascal_test_attach(struct nvsvm_gpu *gpu);
void nvsvm_pascal_test_detach(struct nvsvm_pascal *np);

/* nvsvm_vgpu.ko, src/vgpu/main.c */
struct nvsvm_gpu *nvsvm_vgpu_test_gpu(unsigned int index);
void nvsvm_vgpu_test_hold_intr(struct nvsvm_gpu *gpu, bool hold);
int nvsvm_vgpu_test_exec(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan,
			 struct nvsvm_exec *args);

/*
 * nvsvm.ko, src/test.c: only in a test build (Kbuild: CONFIG_NVSVM_TEST=y
 * defines NVSVM_TEST); a product build compiles these calls to nothing.
 * nvsvm_test_park() parks a range between its hmm_range_fault() snapshot
 * and its PTE write when a test armed it (debugfs nvsvm_test/park) and
 * returns the jiffies it waited, 0 otherwise. nvsvm_test_fail_thp() says
 * whether a system THP allocation for a 2 MiB VRAM page should fail
 * (debugfs nvsvm_test/fail_thp).
 */
struct mm_struct;

#ifdef NVSVM_TEST
#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(nvsvm_test_park_key);
unsigned long nvsvm_test_park_range(struct mm_struct *mm, u64 start, u64 end);
void nvsvm_test_init(void);
void nvsvm_test_fini(void);
bool nvsvm_test_fail_thp(void);

static inline unsigned long nvsvm_test_park(struct mm_struct *mm, u64 start,
					    u64 end)
{
	if (static_branch_unlikely(&nvsvm_test_park_key))
		return nvsvm_test_park_range(mm, start, end);
	return 0;
}
#else
static inline unsigned long nvsvm_test_park(struct mm_struct *mm, u64 start,
					    u64 end)
{
	return 0;
}

static inline void nvsvm_test_init(void)
{
}

static inline bool nvsvm_test_fail_thp(void)
{
	return false;
}

static inline void nvsvm_test_fini(void)
{
}
#endif

#endif /* _NVSVM_TEST_H */
