/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GP100 facts the core and the Pascal provider share: register offsets,
 * instance-block layout and chip identification (docs/gp100.md), and the
 * helpers of src/gp100.c that use them. These are their only definitions;
 * src/gp100.c keeps the page-table formats and the fault-entry layout,
 * which no other file needs.
 */
#ifndef _NVSVM_GP100_H
#define _NVSVM_GP100_H

#include <linux/bits.h>
#include <linux/types.h>

struct nvsvm_device;
struct nvsvm_fault;
struct nvsvm_gpu;
struct nvsvm_vmm_desc;

/* Registers (BAR0 offsets). */
#define NV_PMC_BOOT_0			0x000000

#define NV_FAULT_BUF_LO			0x002a70
#define  NV_FAULT_BUF_LO_ENABLE		BIT(0)
#define NV_FAULT_BUF_HI			0x002a74
#define NV_FAULT_BUF_SIZE		0x002a78
#define NV_FAULT_BUF_GET		0x002a7c
#define NV_FAULT_BUF_PUT		0x002a80
#define  NV_FAULT_BUF_OVERFLOW		BIT(31)

#define NV_PTOP_SCAL_NUM_GPCS		0x022430

#define NV_MMU_INVALIDATE_PDB_LO	0x100cb8
#define NV_MMU_INVALIDATE_PDB_HI	0x100cec
#define NV_MMU_INVALIDATE		0x100cbc
#define  NV_MMU_INVALIDATE_TRIGGER	BIT(31)
#define  NV_MMU_INVALIDATE_PAGE_ALL	BIT(0)
#define  NV_MMU_INVALIDATE_ALL_PDB	BIT(1)
#define  NV_MMU_INVALIDATE_REPLAY_START	BIT(3)
#define  NV_MMU_INVALIDATE_REPLAY_CANCEL (BIT(4) | BIT(3))
#define  NV_MMU_INVALIDATE_CLIENT(c)	(((c) & 0x3f) << 9)
#define  NV_MMU_INVALIDATE_GPC(g)	(((g) & 0x1f) << 15)
#define  NV_MMU_INVALIDATE_HUB		BIT(20)
#define NV_MMU_CTRL			0x100c80
#define  NV_MMU_CTRL_SLOTS		GENMASK(23, 16)
#define  NV_MMU_CTRL_QUEUED		BIT(15)

/* Instance block: byte offsets of the 64-bit words nvsvm writes. */
#define GP100_INST_PDB			0x200
#define GP100_INST_LIMIT		0x208

/* PMC_BOOT_0 chipsets of the GP100 family: GP100 to GP10B. */
#define GP100_CHIPSET_FIRST		0x130
#define GP100_CHIPSET_LAST		0x13b

/**
 * struct gp100_inst_words - the instance-block words of a channel
 * @pdb: the 64-bit word at GP100_INST_PDB (page directory with its flags)
 * @limit: the 64-bit word at GP100_INST_LIMIT (VA limit - 1)
 */
struct gp100_inst_words {
	u64 pdb;
	u64 limit;
};

/*
 * Fault clients of a GPC: GPCCLIENT_T1_n (n < 40) is a texture unit, two
 * per TPC on Pascal, and the two of TPC t share its micro-TLB (LTP t): a
 * CANCEL_TARGETED naming either fails the stalled accesses of both
 * (docs/gp100.md). Other GPC clients are a micro-TLB of their own here.
 */
#define GP100_CLIENT_T1_COUNT		40
#define GP100_T1_PER_TPC		2

static inline u32 gp100_fault_utlb(u32 client)
{
	return client < GP100_CLIENT_T1_COUNT ? client / GP100_T1_PER_TPC :
						client;
}

u32 gp100_gpu_chipset(struct nvsvm_gpu *gpu);
bool gp100_chipset_supported(u32 chipset);
u32 gp100_gpu_gpc_count(struct nvsvm_gpu *gpu);
void gp100_inst_words(dma_addr_t pd, bool replay,
		      struct gp100_inst_words *words);

/* The core's (src/gp100.c), on a registered GPU. */
extern const struct nvsvm_vmm_desc gp100_vmm_desc;
u32 gp100_chipset(struct nvsvm_device *ndev);
void gp100_inst_write(void *inst, dma_addr_t pd, bool replay);
void gp100_invalidate(struct nvsvm_device *ndev, dma_addr_t pdb);
void gp100_invalidate_all(struct nvsvm_device *ndev);
void gp100_replay(struct nvsvm_device *ndev);
void gp100_cancel(struct nvsvm_device *ndev, u32 gpc, u32 client, bool hub,
		  dma_addr_t pdb);
int gp100_fault_buffer_init(struct nvsvm_device *ndev);
unsigned int gp100_fault_drain(struct nvsvm_device *ndev,
			       struct nvsvm_fault *out, unsigned int max,
			       bool *overflow);
bool gp100_fault_pending(struct nvsvm_device *ndev);
void gp100_fault_buffer_fini(struct nvsvm_device *ndev);

#endif /* _NVSVM_GP100_H */
