/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook a GPU driver (nouveau) calls to give a real Pascal GPU to nvsvm.
 *
 * The driver keeps owning the GPU: it maps BAR0, handles the interrupt line
 * and creates channels. nvsvm.ko borrows BAR0 for the registers of
 * docs/gp100.md (fault buffer, invalidate/replay/cancel), does its DMA on the
 * GPU's struct device, and tells the driver what to write into the instance
 * block of a channel that joins an SVM area.
 *
 * Sequence on the driver's side:
 *   probe:   np = nvsvm_pascal_register(&info)   (an ERR_PTR when refused)
 *            publish np to the interrupt path
 *   irq:     replayable fault pending -> nvsvm_pascal_fault_intr(np)
 *   channel: nvsvm_pascal_join(np, fd, inst, write, data) once, while the
 *            channel is idle; nvsvm_pascal_leave(np, inst) before its
 *            instance block is freed
 *   remove:  unpublish np from the interrupt path, nvsvm_pascal_unregister()
 */
#ifndef _NVSVM_PASCAL_H
#define _NVSVM_PASCAL_H

#include <linux/device.h>
#include <linux/types.h>

struct module;
struct nvsvm_pascal;

/* Instance-block words a joining channel gets (byte offsets, docs/gp100.md). */
#define NVSVM_PASCAL_INST_PDB		0x200	/* 64-bit PDB with flags */
#define NVSVM_PASCAL_INST_LIMIT		0x208	/* 64-bit VA limit - 1 */

/**
 * struct nvsvm_pascal_info - a GPU the driver offers to nvsvm
 * @dev: the GPU's device (PCI or platform); nvsvm uses it for the DMA API
 *	and as the parent of /dev/nvsvmN
 * @bar0: the driver's mapping of BAR0 (registers up to 0x101000 at least)
 * @owner: the driver's module; pinned while /dev/nvsvmN is open
 * @intr_enable: mask (@enable false) or unmask the replayable-fault
 *	interrupt at the GPU's interrupt controller. Called from any
 *	context, including the driver's own hard interrupt handler.
 * @data: passed to @intr_enable
 */
struct nvsvm_pascal_info {
	struct device *dev;
	void __iomem *bar0;
	struct module *owner;
	void (*intr_enable)(void *data, bool enable);
	void *data;
};

/**
 * struct nvsvm_pascal_inst - what a channel joining an area must hold
 * @pdb: value for the 64-bit word at NVSVM_PASCAL_INST_PDB: the area's
 *	page directory, its aperture, VER2, 64 KiB big pages and both
 *	replayable-fault bits
 * @limit: value for the 64-bit word at NVSVM_PASCAL_INST_LIMIT
 *
 * Write @limit first, then the high word of @pdb, then its low word.
 */
struct nvsvm_pascal_inst {
	u64 pdb;
	u64 limit;
};

struct nvsvm_pascal *nvsvm_pascal_register(const struct nvsvm_pascal_info *info);
void nvsvm_pascal_unregister(struct nvsvm_pascal *np);
void nvsvm_pascal_fault_intr(struct nvsvm_pascal *np);
int nvsvm_pascal_join(struct nvsvm_pascal *np, int fd, u64 inst,
		      int (*write)(void *data,
				   const struct nvsvm_pascal_inst *words),
		      void *data);
void nvsvm_pascal_leave(struct nvsvm_pascal *np, u64 inst);

#endif /* _NVSVM_PASCAL_H */
