/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TEST ONLY: hooks for the test module tests/kmod/nvsvm_pascal_test.ko,
 * which drives the nvsvm_pascal_* calls nouveau makes against a virtual
 * GP100. Neither drivers nor user space use these; they are no part of
 * the nvsvm interface (uapi/, include/nvsvm_pascal.h).
 */
#ifndef _NVSVM_TEST_H
#define _NVSVM_TEST_H

#include <linux/types.h>

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

#endif /* _NVSVM_TEST_H */
