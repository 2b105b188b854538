// SPDX-License-Identifier: GPL-2.0
/*
 * GP100 (Pascal): page-table formats, instance block, fault buffer and
 * invalidate/replay/cancel registers, as docs/gp100.md describes them.
 */
#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iopoll.h>

#include "nvsvm_core.h"
#include "nvsvm_gp100.h"
#include "nvsvm_vmm.h"
#include "trace.h"

#define GP100_FAULT_ENTRY_BYTES		32
#define GP100_FAULT_MAX_ENTRIES		BIT(20)
#define GP100_FAULT_INFO_VALID		BIT(31)
/* How long an entry between GET and PUT may take to become valid. */
#define GP100_FAULT_VALID_WAIT_US	1000000

/* PTE/PDE fields. */
#define GP100_VALID		BIT_ULL(0)
#define GP100_APER_VRAM		(0ULL << 1)
#define GP100_APER_SYS_COH	(2ULL << 1)
#define GP100_APER_MASK		(3ULL << 1)
#define GP100_VOL		BIT_ULL(3)
#define GP100_READ_ONLY		BIT_ULL(6)
#define GP100_ATOMIC_DISABLE	BIT_ULL(7)
#define GP100_ADDR_MASK		GENMASK_ULL(55, 8)
/*
 * An entry invalidated but not yet released (nvsvm_vmm_invalidate() keeps
 * the address for the release after the TLB invalidate): VALID, APERTURE
 * and VOL clear, so that no level reads it as anything (a PD0 low half with
 * an aperture would be a PDE to the old page, read as a big-page table);
 * the KIND bits, ignored in an invalid entry, say it is one and where the
 * page was. Never zero, so the walker still counts and releases it.
 */
#define GP100_INV_PENDING	BIT_ULL(63)
#define GP100_INV_VRAM		BIT_ULL(62)

/* Instance block (offsets in nvsvm_gp100.h). */
#define  GP100_INST_VOL			BIT_ULL(2)
#define  GP100_INST_REPLAY_TEX		BIT_ULL(4)
#define  GP100_INST_REPLAY_GCC		BIT_ULL(5)
#define  GP100_INST_VER2		BIT_ULL(10)
#define  GP100_INST_BIG_64K		BIT_ULL(11)
#define GP100_VA_BITS			49

enum { GP100_PD3, GP100_PD2, GP100_PD1, GP100_PD0, GP100_LPT, GP100_SPT };

#define GP100_DIR(s, b, n) { .shift = (s), .bits = (b), .entry_bytes = 8, \
	.slots = 1, .next = { (n), NVSVM_VMM_NONE }, \
	.pte_slot = NVSVM_VMM_NONE, .table_bytes = 4096 }
#define GP100_PT(s, b, sz) { .shift = (s), .bits = (b), .entry_bytes = 8, \
	.slots = 1, .next = { NVSVM_VMM_NONE, NVSVM_VMM_NONE }, \
	.pte_slot = 0, .table_bytes = (sz) }

static const struct nvsvm_vmm_level gp100_levels[] = {
	[GP100_PD3] = GP100_DIR(47, 2, GP100_PD2),
	[GP100_PD2] = GP100_DIR(38, 9, GP100_PD1),
	[GP100_PD1] = GP100_DIR(29, 9, GP100_PD0),
	/*
	 * Dual PD0 entries: the low half points to the big-page table or
	 * holds a 2 MiB PTE, the high half points to the small-page table.
	 */
	[GP100_PD0] = { .shift = 21, .bits = 8, .entry_bytes = 16,
			.slots = 2, .next = { GP100_LPT, GP100_SPT },
			.pte_slot = 0, .table_bytes = 4096 },
	[GP100_LPT] = GP100_PT(16, 5, 256),
	[GP100_SPT] = GP100_PT(12, 9, 4096),
};

static u64 gp100_pde(dma_addr_t table)
{
	return GP100_APER_SYS_COH | GP100_VOL | ((u64)table >> 4);
}

static u64 gp100_pte(u64 addr, u32 flags)
{
	u64 pte = GP100_VALID | ((addr >> 4) & GP100_ADDR_MASK);

	if (flags & NVSVM_PTE_VRAM)
		pte |= GP100_APER_VRAM;
	else
		pte |= GP100_APER_SYS_COH | GP100_VOL;
	if (!(flags & NVSVM_PTE_WRITE))
		pte |= GP100_READ_ONLY;
	if (!(flags & NVSVM_PTE_ATOMIC))
		pte |= GP100_ATOMIC_DISABLE;
	return pte;
}

static u64 gp100_pte_invalid(u64 pte)
{
	u64 inv = (pte & GP100_ADDR_MASK) | GP100_INV_PENDING;

	if ((pte & GP100_APER_MASK) == GP100_APER_VRAM)
		inv |= GP100_INV_VRAM;
	return inv;
}

static u32 gp100_pte_flags(u64 pte)
{
	u32 flags = 0;

	if (pte & GP100_INV_PENDING)
		return pte & GP100_INV_VRAM ? NVSVM_PTE_VRAM : 0;
	if (pte & GP100_VALID)
		flags |= NVSVM_PTE_VALID;
	if (!(pte & GP100_READ_ONLY))
		flags |= NVSVM_PTE_WRITE;
	if (!(pte & GP100_ATOMIC_DISABLE))
		flags |= NVSVM_PTE_ATOMIC;
	if ((pte & GP100_APER_MASK) == GP100_APER_VRAM)
		flags |= NVSVM_PTE_VRAM;
	return flags;
}

static u64 gp100_pte_addr(u64 pte)
{
	return (pte & GP100_ADDR_MASK) << 4;
}

const struct nvsvm_vmm_desc gp100_vmm_desc = {
	.levels = gp100_levels,
	.nlevels = ARRAY_SIZE(gp100_levels),
	.pde = gp100_pde,
	.pte = gp100_pte,
	.pte_invalid = gp100_pte_invalid,
	.pte_flags = gp100_pte_flags,
	.pte_addr = gp100_pte_addr,
	/* VALID set and no invalidated entry's INV_PENDING: gp100_pte_flags(). */
	.pte_valid_mask = GP100_VALID | GP100_INV_PENDING,
	.pte_valid_bits = GP100_VALID,
};

static u32 nv_rd32(struct nvsvm_device *ndev, u32 reg)
{
	return ndev->gpu->ops->rd32(ndev->gpu, reg);
}

static void nv_wr32(struct nvsvm_device *ndev, u32 reg, u32 val)
{
	ndev->gpu->ops->wr32(ndev->gpu, reg, val);
}

/**
 * gp100_gpu_chipset() - read the chipset from PMC_BOOT_0
 * @gpu: a GPU whose ->rd32 works (registered or not)
 *
 * Return: 0x130 for GP100, and so on.
 */
u32 gp100_gpu_chipset(struct nvsvm_gpu *gpu)
{
	return (gpu->ops->rd32(gpu, NV_PMC_BOOT_0) >> 20) & 0x1ff;
}

/**
 * gp100_chipset() - the chipset of a registered GPU
 * @ndev: device
 *
 * Return: as gp100_gpu_chipset().
 */
u32 gp100_chipset(struct nvsvm_device *ndev)
{
	return gp100_gpu_chipset(ndev->gpu);
}

/**
 * gp100_chipset_supported() - is a chipset one of the GP100 family
 * @chipset: from gp100_gpu_chipset()
 *
 * Return: true for GP100_CHIPSET_FIRST to GP100_CHIPSET_LAST.
 */
bool gp100_chipset_supported(u32 chipset)
{
	return chipset >= GP100_CHIPSET_FIRST && chipset <= GP100_CHIPSET_LAST;
}

/**
 * gp100_gpu_gpc_count() - graphics processing clusters of a GPU
 * @gpu: a GPU whose ->rd32 works
 *
 * Return: the GPC count PTOP reports.
 */
u32 gp100_gpu_gpc_count(struct nvsvm_gpu *gpu)
{
	return gpu->ops->rd32(gpu, NV_PTOP_SCAL_NUM_GPCS) & 0x1f;
}

/**
 * gp100_inst_words() - the instance-block words of a page directory
 * @pd: DMA address of PD3 (coherent system memory)
 * @replay: enable replayable faults for the channel
 * @words: filled: the PDB word (aperture, VOL, VER2, 64 KiB big pages,
 *	replay bits) and the VA limit
 */
void gp100_inst_words(dma_addr_t pd, bool replay,
		      struct gp100_inst_words *words)
{
	words->pdb = (u64)pd | (GP100_APER_SYS_COH >> 1) | GP100_INST_VOL |
		     GP100_INST_VER2 | GP100_INST_BIG_64K;
	if (replay)
		words->pdb |= GP100_INST_REPLAY_TEX | GP100_INST_REPLAY_GCC;
	words->limit = BIT_ULL(GP100_VA_BITS) - 1;
}

/**
 * gp100_inst_write() - point an instance block at a page directory
 * @inst: CPU address of the instance block
 * @pd: DMA address of PD3 (coherent system memory)
 * @replay: enable replayable faults for the channel
 */
void gp100_inst_write(void *inst, dma_addr_t pd, bool replay)
{
	struct gp100_inst_words words;
	__le32 *w = inst;

	gp100_inst_words(pd, replay, &words);
	w[GP100_INST_LIMIT / 4] = cpu_to_le32(lower_32_bits(words.limit));
	w[GP100_INST_LIMIT / 4 + 1] = cpu_to_le32(upper_32_bits(words.limit));
	w[GP100_INST_PDB / 4 + 1] = cpu_to_le32(upper_32_bits(words.pdb));
	/* The low word carries the flags: publish it last. */
	dma_wmb();
	WRITE_ONCE(w[GP100_INST_PDB / 4], cpu_to_le32(lower_32_bits(words.pdb)));
}

static u32 nv_rd32_ctrl(struct nvsvm_device *ndev)
{
	return nv_rd32(ndev, NV_MMU_CTRL);
}

/*
 * Wait for a free invalidate slot, write the PDB and the trigger. The GPU
 * acts on the trigger at once (a cancelled program may end before this
 * returns): callers count the write before it (docs/tracing.md).
 */
static void gp100_invalidate_write(struct nvsvm_device *ndev, dma_addr_t pdb,
				   u32 type)
{
	unsigned long flags;
	u32 v;

	trace_nvsvm_invalidate(ndev->index, type);
	spin_lock_irqsave(&ndev->inval_lock, flags);
	if (readx_poll_timeout_atomic(nv_rd32_ctrl, ndev, v,
				      v & NV_MMU_CTRL_SLOTS, 1, 100000))
		dev_err_ratelimited(ndev->gpu->dev, "no invalidate slot\n");
	nv_wr32(ndev, NV_MMU_INVALIDATE_PDB_LO,
		lower_32_bits((u64)pdb >> 8) | (u32)GP100_APER_SYS_COH);
	nv_wr32(ndev, NV_MMU_INVALIDATE_PDB_HI, upper_32_bits(pdb) >> 8);
	nv_wr32(ndev, NV_MMU_INVALIDATE, NV_MMU_INVALIDATE_TRIGGER | type);
	if (readx_poll_timeout_atomic(nv_rd32_ctrl, ndev, v,
				      v & NV_MMU_CTRL_QUEUED, 1, 100000))
		dev_err_ratelimited(ndev->gpu->dev, "invalidate not queued\n");
	spin_unlock_irqrestore(&ndev->inval_lock, flags);
}

/**
 * gp100_invalidate() - invalidate the GPU TLBs for one page directory
 * @ndev: device
 * @pdb: DMA address of the PD3 whose translations go
 *
 * Every level of the walk caches goes too. May be called in atomic context.
 */
void gp100_invalidate(struct nvsvm_device *ndev, dma_addr_t pdb)
{
	nvsvm_stat_add(ndev, NVSVM_STAT_INVALIDATES, 1);
	gp100_invalidate_write(ndev, pdb, NV_MMU_INVALIDATE_PAGE_ALL);
}

/**
 * gp100_invalidate_all() - invalidate the GPU TLBs for every directory
 * @ndev: device
 */
void gp100_invalidate_all(struct nvsvm_device *ndev)
{
	nvsvm_stat_add(ndev, NVSVM_STAT_INVALIDATES, 1);
	gp100_invalidate_write(ndev, 0, NV_MMU_INVALIDATE_PAGE_ALL |
			       NV_MMU_INVALIDATE_ALL_PDB);
}

/**
 * gp100_replay() - REPLAY_START: every stalled faulting access retries
 * @ndev: device
 *
 * The replay rides on an invalidate that names no translation of a
 * channel (no PAGE_ALL, this device's empty page directory), as NVIDIA
 * UVM's Pascal replay does (it invalidates VA 0 of its own page tree): a
 * replay invalidates nothing the driver relies on, so every PTE change the
 * GPU may have cached comes with its own invalidate first.
 */
void gp100_replay(struct nvsvm_device *ndev)
{
	nvsvm_stat_add(ndev, NVSVM_STAT_REPLAYS, 1);
	gp100_invalidate_write(ndev, ndev->null_pd.dma,
			       NV_MMU_INVALIDATE_REPLAY_START);
}

/**
 * gp100_cancel() - CANCEL_TARGETED: fail the stalled accesses of a client
 * @ndev: device
 * @gpc: GPC id from the fault entry
 * @client: client id from the fault entry
 * @hub: the client is a hub client
 * @pdb: DMA address of the PD3 the faulting channel uses now
 *
 * Targeted at one page directory, not ALL_PDB: by the time the cancel is
 * written the GPC may be stalled on another context's access (the entry's
 * channel was detached or destroyed meanwhile), which must not fail.
 */
void gp100_cancel(struct nvsvm_device *ndev, u32 gpc, u32 client, bool hub,
		  dma_addr_t pdb)
{
	u32 type = NV_MMU_INVALIDATE_PAGE_ALL |
		   NV_MMU_INVALIDATE_REPLAY_CANCEL |
		   NV_MMU_INVALIDATE_GPC(gpc) | NV_MMU_INVALIDATE_CLIENT(client);

	if (hub)
		type |= NV_MMU_INVALIDATE_HUB;
	nvsvm_stat_add(ndev, NVSVM_STAT_CANCELS, 1);
	gp100_invalidate_write(ndev, pdb, type);
}

static u64 gp100_fault_entry_inst(const __le32 *w)
{
	return ((u64)le32_to_cpu(w[1]) << 32) | (le32_to_cpu(w[0]) & ~0xfffU);
}

static u32 gp100_fault_entry_info(__le32 *w)
{
	return le32_to_cpu(READ_ONCE(w[7]));
}

/**
 * gp100_fault_drain() - read new entries from the replayable fault buffer
 * @ndev: device
 * @out: where to decode them
 * @max: room in @out
 * @overflow: set when the buffer overflowed (the flag is cleared)
 *
 * Reads from GET up to PUT, clears each entry's VALID bit and writes GET.
 * PUT may move before an entry is written, and entries may be written out
 * of order: each entry is read only once its VALID bit is set. With
 * entries in hand, the first one not valid yet ends the batch (the caller
 * drains again); with none, it is waited for (up to 1 s).
 *
 * Context: process; may sleep.
 * Return: entries decoded.
 */
unsigned int gp100_fault_drain(struct nvsvm_device *ndev,
			       struct nvsvm_fault *out, unsigned int max,
			       bool *overflow)
{
	u32 put = nv_rd32(ndev, NV_FAULT_BUF_PUT);
	u32 get = ndev->fault.get;
	unsigned int n = 0;

	*overflow = put & NV_FAULT_BUF_OVERFLOW;
	put &= ~NV_FAULT_BUF_OVERFLOW;
	if (put >= ndev->fault.entries)
		put = get;	/* never trust an index we did not expect */
	while (get != put && n < max) {
		__le32 *w = ndev->fault.cpu + get * GP100_FAULT_ENTRY_BYTES;
		u32 info = gp100_fault_entry_info(w);
		struct nvsvm_fault *f = &out[n];

		if (!(info & GP100_FAULT_INFO_VALID)) {
			if (n)
				break;
			if (read_poll_timeout(gp100_fault_entry_info, info,
					      info & GP100_FAULT_INFO_VALID,
					      10, GP100_FAULT_VALID_WAIT_US,
					      false, w)) {
				dev_err_ratelimited(ndev->gpu->dev,
						    "fault entry %u never became valid\n",
						    get);
				break;
			}
		}
		/* The entry body is read after its VALID bit. */
		dma_rmb();
		f->inst = gp100_fault_entry_inst(w);
		f->addr = ((u64)le32_to_cpu(w[3]) << 32) |
			  (le32_to_cpu(w[2]) & PAGE_MASK);
		f->time = ((u64)le32_to_cpu(w[5]) << 32) | le32_to_cpu(w[4]);
		f->gpc = (info >> 24) & 0x1f;
		f->hub = !!(info & BIT(20));
		f->access = (info >> 16) & 0xf;
		f->client = (info >> 8) & 0x7f;
		f->type = info & 0x1f;
		/* Cleared, or the next lap would read this entry as new. */
		WRITE_ONCE(w[7], cpu_to_le32(info & ~GP100_FAULT_INFO_VALID));
		if (++get == ndev->fault.entries)
			get = 0;
		n++;
	}
	WRITE_ONCE(ndev->fault.get, get);
	nv_wr32(ndev, NV_FAULT_BUF_GET,
		get | (*overflow ? NV_FAULT_BUF_OVERFLOW : 0));
	return n;
}

/**
 * gp100_fault_pending() - does the fault buffer hold entries not read yet?
 * @ndev: device
 *
 * A hint for a fault worker other than the one that drains the buffer: the
 * answer may change right after.
 *
 * Return: true when PUT is not where the last gp100_fault_drain() stopped.
 */
bool gp100_fault_pending(struct nvsvm_device *ndev)
{
	u32 put = nv_rd32(ndev, NV_FAULT_BUF_PUT) & ~NV_FAULT_BUF_OVERFLOW;

	return put < ndev->fault.entries && put != READ_ONCE(ndev->fault.get);
}

/**
 * gp100_fault_buffer_init() - allocate and enable the fault buffer
 * @ndev: device
 *
 * Return: 0, or -ENOMEM, or -ENODEV when the GPU has no fault buffer.
 */
int gp100_fault_buffer_init(struct nvsvm_device *ndev)
{
	u32 entries = nv_rd32(ndev, NV_FAULT_BUF_SIZE);
	dma_addr_t dma;

	if (!entries || entries > GP100_FAULT_MAX_ENTRIES)
		return -ENODEV;
	ndev->fault.cpu = dma_alloc_coherent(ndev->gpu->dev,
					     entries * GP100_FAULT_ENTRY_BYTES,
					     &dma, GFP_KERNEL);
	if (!ndev->fault.cpu)
		return -ENOMEM;
	ndev->fault.dma = dma;
	ndev->fault.entries = entries;
	ndev->fault.get = nv_rd32(ndev, NV_FAULT_BUF_PUT) &
			  ~NV_FAULT_BUF_OVERFLOW;
	if (ndev->fault.get >= entries)
		ndev->fault.get = 0;
	nv_wr32(ndev, NV_FAULT_BUF_GET, ndev->fault.get | NV_FAULT_BUF_OVERFLOW);
	nv_wr32(ndev, NV_FAULT_BUF_HI, upper_32_bits(dma));
	nv_wr32(ndev, NV_FAULT_BUF_LO,
		(lower_32_bits(dma) & PAGE_MASK) | NV_FAULT_BUF_LO_ENABLE);
	return 0;
}

/**
 * gp100_fault_buffer_fini() - disable and free the fault buffer
 * @ndev: device
 */
void gp100_fault_buffer_fini(struct nvsvm_device *ndev)
{
	if (!ndev->fault.cpu)
		return;
	nv_wr32(ndev, NV_FAULT_BUF_LO, 0);
	nv_wr32(ndev, NV_FAULT_BUF_HI, 0);
	dma_free_coherent(ndev->gpu->dev,
			  ndev->fault.entries * GP100_FAULT_ENTRY_BYTES,
			  ndev->fault.cpu, ndev->fault.dma);
	ndev->fault.cpu = NULL;
}
