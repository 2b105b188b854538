// SPDX-License-Identifier: GPL-2.0
/*
 * The BAR0 register file of the virtual GP100: chip identification, the
 * replayable fault buffer registers and the MMU invalidate, replay and
 * cancel registers. Registers that are not modelled read 0 and ignore
 * writes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/printk.h>
#include <linux/spinlock.h>

#include "vgpu.h"

static u32 vgpu_rd32_locked(struct vgpu *vgpu, u32 reg)
{
	switch (reg) {
	case VGPU_PMC_BOOT_0:
		return VGPU_BOOT_0_GP100;
	case VGPU_FB_ADDR_LO:
		return lower_32_bits(vgpu->fb_addr) |
		       (vgpu->fb_enable ? VGPU_FB_ADDR_LO_ENABLE : 0);
	case VGPU_FB_ADDR_HI:
		return upper_32_bits(vgpu->fb_addr);
	case VGPU_FB_SIZE:
		return vgpu->fb_entries;
	case VGPU_FB_GET:
		return vgpu->fb_get;
	case VGPU_FB_PUT:
		vgpu_fault_put_read(vgpu);
		return vgpu->fb_put |
		       (vgpu->fb_overflow ? VGPU_FB_OVERFLOW : 0);
	case VGPU_INV_STATUS:
		/* Invalidates complete at once: slots are always free. */
		return VGPU_INV_STATUS_SLOTS | vgpu->inv_status;
	case VGPU_INV_PDB_LO:
		return vgpu->inv_pdb_lo;
	case VGPU_INV_PDB_HI:
		return vgpu->inv_pdb_hi;
	default:
		atomic64_inc(&vgpu->unknown_regs);
		pr_debug("gpu%u: read of unknown register %#x\n",
			 vgpu->index, reg);
		return 0;
	}
}

/**
 * vgpu_rd32() - read a BAR0 register
 * @gpu: the GPU
 * @reg: register offset
 *
 * Context: any; takes vgpu->reg_lock.
 * Return: the register value; 0 for registers that are not modelled.
 */
u32 vgpu_rd32(struct nvsvm_gpu *gpu, u32 reg)
{
	struct vgpu *vgpu = to_vgpu(gpu);
	unsigned long flags;
	u32 val;

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	val = vgpu_rd32_locked(vgpu, reg);
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	return val;
}

/*
 * An MMU invalidate: drop the GPC translations of one PDB (or all), then
 * run the replay or cancel it carries. Synchronous: when this returns no
 * GPC uses a translation it removed, so bit 15 of the status register is
 * set at once.
 */
static void vgpu_invalidate(struct vgpu *vgpu, u32 val)
{
	u64 pdb;
	bool pdb_vram;
	u32 i;

	atomic64_inc(&vgpu->ctr.invalidates);
	pdb = ((u64)vgpu->inv_pdb_hi << 40) |
	      ((u64)(vgpu->inv_pdb_lo >> 4) << 12);
	/* Aperture bits 2..1: 0 (or 1) video memory, 2 and 3 system memory. */
	pdb_vram = ((vgpu->inv_pdb_lo >> 1) & 3) < 2;

	if ((val & VGPU_INV_PAGE_ALL) && !(val & VGPU_INV_HUB_ONLY)) {
		for (i = 0; i < vgpu->gpc_count; i++)
			vgpu_tlb_invalidate(&vgpu->gpcs[i],
					    val & VGPU_INV_ALL_PDB, pdb_vram,
					    pdb);
		atomic_inc(&vgpu->inst_gen);
	}

	switch (VGPU_INV_REPLAY(val)) {
	case VGPU_INV_REPLAY_START:
		atomic64_inc(&vgpu->ctr.replays);
		vgpu_fault_replay(vgpu);
		break;
	case VGPU_INV_REPLAY_CANCEL:
		atomic64_inc(&vgpu->ctr.cancels);
		vgpu_fault_cancel(vgpu, VGPU_INV_GPC(val), VGPU_INV_CLIENT(val),
				  VGPU_INV_HUB(val), val & VGPU_INV_ALL_PDB,
				  pdb_vram, pdb);
		break;
	default:
		break;
	}
	vgpu->inv_status |= VGPU_INV_STATUS_QUEUED;
}

static void vgpu_wr32_locked(struct vgpu *vgpu, u32 reg, u32 val)
{
	switch (reg) {
	case VGPU_FB_ADDR_LO:
		vgpu->fb_addr = (vgpu->fb_addr & GENMASK_ULL(63, 32)) |
				(val & VGPU_FB_ADDR_LO_MASK);
		vgpu->fb_enable = val & VGPU_FB_ADDR_LO_ENABLE;
		/* Entries taken in the old buffer are never written here. */
		bitmap_zero(vgpu->fb_taken, vgpu->fb_entries);
		break;
	case VGPU_FB_ADDR_HI:
		vgpu->fb_addr = ((u64)val << 32) | lower_32_bits(vgpu->fb_addr);
		bitmap_zero(vgpu->fb_taken, vgpu->fb_entries);
		break;
	case VGPU_FB_GET:
		vgpu_fault_get_write(vgpu, val & VGPU_FB_IDX_MASK);
		if (val & VGPU_FB_OVERFLOW)
			vgpu->fb_overflow = false;
		break;
	case VGPU_INV_PDB_LO:
		vgpu->inv_pdb_lo = val & ~(BIT(3) | BIT(0));
		break;
	case VGPU_INV_PDB_HI:
		vgpu->inv_pdb_hi = val & GENMASK(23, 0);
		break;
	case VGPU_INV_TRIGGER:
		if (val & VGPU_INV_GO)
			vgpu_invalidate(vgpu, val);
		break;
	default:
		/* PMC_BOOT_0, ENTRIES, PUT and status are read-only. */
		atomic64_inc(&vgpu->unknown_regs);
		pr_debug("gpu%u: write %#x to register %#x ignored\n",
			 vgpu->index, val, reg);
		break;
	}
}

/**
 * vgpu_wr32() - write a BAR0 register
 * @gpu: the GPU
 * @reg: register offset
 * @val: value
 *
 * An invalidate completes before this returns (it may wait for a GPC to
 * finish the access in progress, never for a stalled one), and so does
 * the first retry of the accesses a replay releases.
 *
 * Context: any; takes vgpu->reg_lock and the GPC locks.
 */
void vgpu_wr32(struct nvsvm_gpu *gpu, u32 reg, u32 val)
{
	struct vgpu *vgpu = to_vgpu(gpu);
	unsigned long flags;

	bool intr;

	spin_lock_irqsave(&vgpu->reg_lock, flags);
	vgpu_wr32_locked(vgpu, reg, val);
	intr = vgpu->intr_pending;
	spin_unlock_irqrestore(&vgpu->reg_lock, flags);
	/* A replay whose accesses faulted again at once. */
	if (intr)
		vgpu_fault_intr_pending(vgpu);
}
