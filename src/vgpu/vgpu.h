/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual GP100: internal declarations shared by the files of
 * nvsvm_vgpu.ko. Written from docs/gp100.md, independently of the driver
 * core: nothing here comes from the core's headers.
 *
 * Locking, outermost first:
 *  - vgpu->sched_lock: GPC run queues, the program a GPC runs, channel
 *    program lists and channel state (error, dead).
 *  - vgpu->reg_lock: the register file (fault buffer registers, PUT, GET,
 *    OVERFLOW, invalidate PDB and status), the fault buffer memory writes,
 *    and the stall state of every warp (gpc->stalled).
 *  - gpc->lock: the micro-TLBs of the GPC's TPCs; also held across each
 *    translation and the data access that uses it, so that an invalidate
 *    returns only once no access of the GPC uses a translation it removed.
 * reg_lock is taken before gpc->lock (invalidate); a GPC never takes
 * reg_lock while it holds its own lock. sched_lock is never held together
 * with the other two.
 */
#ifndef _NVSVM_VGPU_H
#define _NVSVM_VGPU_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "nvsvm_gpu.h"
#include "uapi/nvsvm_vgpu.h"
#include "rv.h"

/* BAR0 registers (docs/gp100.md). */
#define VGPU_PMC_BOOT_0			0x000000
#define VGPU_BOOT_0_GP100		0x130000a1
#define VGPU_FB_ADDR_LO			0x002a70
#define  VGPU_FB_ADDR_LO_ENABLE		BIT(0)
#define  VGPU_FB_ADDR_LO_MASK		0xfffff000U
#define VGPU_FB_ADDR_HI			0x002a74
#define VGPU_FB_SIZE			0x002a78
#define VGPU_FB_GET			0x002a7c
#define VGPU_FB_PUT			0x002a80
#define  VGPU_FB_IDX_MASK		0x7fffffffU
#define  VGPU_FB_OVERFLOW		BIT(31)	/* PUT: set; GET: write clears */
#define VGPU_INV_STATUS			0x100c80
#define  VGPU_INV_STATUS_SLOTS		(0x10U << 16)
#define  VGPU_INV_STATUS_QUEUED		BIT(15)
#define VGPU_INV_PDB_LO			0x100cb8
#define VGPU_INV_PDB_HI			0x100cec
#define VGPU_INV_TRIGGER		0x100cbc
#define  VGPU_INV_GO			BIT(31)
#define  VGPU_INV_PAGE_ALL		BIT(0)
#define  VGPU_INV_ALL_PDB		BIT(1)
#define  VGPU_INV_HUB_ONLY		BIT(2)
#define  VGPU_INV_REPLAY(v)		(((v) >> 3) & 7)
#define   VGPU_INV_REPLAY_START		1
#define   VGPU_INV_REPLAY_CANCEL	3
#define  VGPU_INV_CLIENT(v)		(((v) >> 9) & 0x3f)
#define  VGPU_INV_GPC(v)		(((v) >> 15) & 0x1f)
#define  VGPU_INV_HUB(v)		(((v) >> 20) & 1)

/* Page-table entries. */
#define VGPU_PTE_VALID			BIT_ULL(0)
#define VGPU_PTE_APER(e)		(((e) >> 1) & 3)
#define VGPU_PTE_VOL			BIT_ULL(3)
#define VGPU_PTE_PRIV			BIT_ULL(5)
#define VGPU_PTE_RO			BIT_ULL(6)
#define VGPU_PTE_NO_ATOMIC		BIT_ULL(7)
#define VGPU_PTE_ADDR(e)		((((e) >> 8) & GENMASK_ULL(47, 0)) << 12)
#define VGPU_PTE_KIND(e)		((e) >> 56)
/* The PD0 low half as a PDE: LPT address >> 8 in bits 53..4 (256 B aligned). */
#define VGPU_PDE_BIG_ADDR(e)		((((e) >> 4) & GENMASK_ULL(49, 0)) << 8)
/* PTE aperture field values. */
#define VGPU_APER_PTE_VID		0
#define VGPU_APER_PTE_PEER		1
#define VGPU_APER_PTE_SYS		2
#define VGPU_APER_PTE_NCOH		3

/* Instance block (docs/gp100.md, nvsvm layout). */
#define VGPU_INST_PDB			0x200
#define VGPU_INST_LIMIT			0x208
#define VGPU_INST_APER(w)		((w) & 3)
#define VGPU_INST_REPLAY_TEX		BIT_ULL(4)
#define VGPU_INST_REPLAY_GCC		BIT_ULL(5)
#define VGPU_INST_VER2			BIT_ULL(10)
#define VGPU_INST_BIG_64K		BIT_ULL(11)
#define VGPU_INST_ADDR(w)		((w) & GENMASK_ULL(63, 12))

#define VGPU_VA_BITS			49

/* Fault buffer entries. */
#define VGPU_FAULT_ENTRY_SIZE		32
#define VGPU_FAULT_VALID		BIT(31)
#define VGPU_FAULT_ENGINE_GR		0x40
#define VGPU_CLIENT_GPC_T1_0		0x00	/* T1_n is n: SM n of the GPC */

/* Fault types. */
#define VGPU_FT_PDE			0x00
#define VGPU_FT_PDE_SIZE		0x01
#define VGPU_FT_PTE			0x02
#define VGPU_FT_VA_LIMIT		0x03
#define VGPU_FT_UNBOUND_INST		0x04
#define VGPU_FT_RO			0x06
#define VGPU_FT_UNSUPPORTED_APER	0x0a
#define VGPU_FT_UNSUPPORTED_KIND	0x0c
#define VGPU_FT_ATOMIC			0x0f

/* Where a physical address points, after decoding an aperture field. */
enum vgpu_mem {
	VGPU_MEM_NONE,
	VGPU_MEM_VRAM,
	VGPU_MEM_SYS,
};

/**
 * struct vgpu_counters - event counters, shown in debugfs; each moves before
 *	the GPU acts on what it counts (docs/tracing.md)
 * @accesses: page-sized (or smaller) memory accesses performed
 * @tlb_hits: translations found in a GPC TLB
 * @tlb_misses: translations not found in a GPC TLB
 * @walks: page-table walks from the PDB
 * @faults: translation faults raised (replayable or fatal)
 * @replays: REPLAY START invalidates
 * @cancels: CANCEL_TARGETED invalidates
 * @invalidates: MMU invalidate triggers of any kind
 * @overflows: faults that found the buffer full
 * @copies: copy-engine operations (vgpu_copy())
 * @refaults: stalled accesses that a replay retried and that faulted again
 *	at once (part of @faults)
 * @early_gets: fault entries GET moved past before their VALID bit was set
 *	(a driver that does not wait for VALID)
 * @valid_uncleared: fault entries GET moved past with their VALID bit still
 *	set (a driver that does not clear VALID after reading an entry)
 * @cancel_misses: CANCEL_TARGETED writes that found no stalled access of
 *	their GPC, client and PDB (a cancel aimed at the wrong target)
 * @sysmem_rmws: atomics on system memory done as a read, a window and a
 *	write (sysmem_atomics=pcie), not atomic against the CPU
 * @insns: instructions retired by the work-items of LAUNCH programs
 * @stall_ns: warp-ns stalled on faults: per warp, from the fault that
 *	stalled it (its entry taken, or the overflow) to its release (a
 *	replay that lets it go on, a cancel, or its program's stop); a
 *	refault in a replay does not restart it. Counted at the release.
 * @lockdown_ns: warp-ns warps that were not stalled themselves waited for
 *	their micro-TLB's lockdown to end (vgpu_warp_locked_out())
 */
struct vgpu_counters {
	atomic64_t accesses;
	atomic64_t tlb_hits;
	atomic64_t tlb_misses;
	atomic64_t walks;
	atomic64_t faults;
	atomic64_t replays;
	atomic64_t cancels;
	atomic64_t invalidates;
	atomic64_t overflows;
	atomic64_t copies;
	atomic64_t refaults;
	atomic64_t early_gets;
	atomic64_t valid_uncleared;
	atomic64_t cancel_misses;
	atomic64_t sysmem_rmws;
	atomic64_t insns;
	atomic64_t stall_ns;
	atomic64_t lockdown_ns;
};

/**
 * struct vgpu_ctx - a channel's MMU context, loaded from its instance block
 * @inst: physical address of the instance block
 * @pdb: physical address of PD3
 * @pdb_mem: memory PD3 lives in
 * @limit: highest valid virtual address
 * @gen: value of vgpu->inst_gen when loaded; reloaded when it moves
 * @replay: both replay bits set: faults are replayable
 * @ver2: VER2 page-table format selected
 * @big64: 64 KiB big pages selected
 * @bound: the instance block could be read
 */
struct vgpu_ctx {
	u64 inst;
	u64 pdb;
	enum vgpu_mem pdb_mem;
	u64 limit;
	int gen;
	bool replay;
	bool ver2;
	bool big64;
	bool bound;
};

/* The page sizes a translation may have: 4 KiB, 64 KiB, 2 MiB (mmu.c). */
#define VGPU_TLB_SIZES	3

/**
 * struct vgpu_tlbe - one cached translation
 * @valid: entry in use
 * @pdb_vram: tag: PD3 is in VRAM
 * @pdb: tag: PD3 address
 * @vpn: virtual address >> @shift
 * @pa: physical address of the page
 * @shift: page size (12, 16 or 21)
 * @mem: memory the page is in
 * @sparse: sparse range: reads zero, writes dropped
 * @ro: READ_ONLY
 * @no_atomic: ATOMIC_DISABLE
 * @linked: on a chain of the micro-TLB's hash index (filled once; an
 *	invalidate leaves it there, invalid, until it is filled again)
 * @chain: the next entry on that chain, plus one (0: the last)
 */
struct vgpu_tlbe {
	bool valid;
	bool pdb_vram;
	u64 pdb;
	u64 vpn;
	u64 pa;
	u8 shift;
	u8 mem;
	bool sparse;
	bool ro;
	bool no_atomic;
	bool linked;
	u16 chain;
};

/* Warp stall states (struct vgpu_warp.stall). */
enum vgpu_stall {
	VGPU_STALL_NONE,
	VGPU_STALL_WAIT,
	VGPU_STALL_REPLAY,
	VGPU_STALL_CANCEL,
};

struct vgpu;
struct vgpu_prog;
struct vgpu_wg;
struct vgpu_launch;

/**
 * struct vgpu_utlb - the micro-TLB of one TPC (gpc->lock)
 * @tlb: @size cached translations
 * @size: entries in @tlb
 * @next: next entry to replace (round robin)
 * @last: entry of the last hit or fill, tried first
 * @valid: valid entries in @tlb
 * @lockdown: stalled warps of the TPC whose access a replay retried and
 *	that faulted again: while non-zero, the TPC's other warps issue no
 *	access (vgpu->reg_lock to change)
 * @index: hash index of the entries, @index_mask + 1 chain heads, each an
 *	entry plus one (0: an empty chain); keyed by page number and size
 * @index_mask: chain heads less one (a power of two less one)
 * @linked: entries on the index, per page size (VGPU_TLB_SIZES)
 */
struct vgpu_utlb {
	struct vgpu_tlbe *tlb;
	u32 size;
	u32 next;
	u32 last;
	u32 valid;
	u32 lockdown;
	u16 *index;
	u32 index_mask;
	u32 linked[VGPU_TLB_SIZES];
};

/**
 * struct vgpu_warp - one warp of a program, in one warp slot of a GPC
 * @gpc: the GPC
 * @prog: its program
 * @stall_node: on gpc->stalled while @stall is VGPU_STALL_WAIT
 *	(vgpu->reg_lock)
 * @index: warp number in the program
 * @slot: warp slot of the GPC it runs in
 * @tpc: TPC of @slot, whose micro-TLB translates its accesses
 * @client: fault client id of its SM (GPCCLIENT_T1_n)
 * @op: index of the operation it runs (or runs next)
 * @stride: distance to its next operation
 * @has_slot: it holds gpc->slots[@slot]
 * @locks: it counts in its micro-TLB's lockdown (vgpu->reg_lock)
 * @started: @op has started (its progress below is valid)
 * @done: no operation left, or the program stopped
 * @pos: progress in @op: bytes (FILL, SUM, COPY), nodes (CHASE)
 * @acc: SUM's sum so far; CHASE's current node
 * @phase: CHASE: the node's data word was updated, next pointer to read
 * @stall: enum vgpu_stall of its access (vgpu->reg_lock to change)
 * @stall_pdb: PD3 address of the stalled access's context
 * @stall_pdb_vram: that PD3 is in video memory
 * @stall_va: its address
 * @stall_access: its NVSVM_ACCESS_*
 * @fb_pending: the warp took the fault buffer entry @fb_slot (PUT moved
 *	past it) and has not written it yet (vgpu->reg_lock to change)
 * @fb_slot: index of that entry
 * @fb_addr: the fault buffer address when it was taken
 * @fb_seq: vgpu->put_reads when it was taken
 * @fb_words: its contents, info word (with VALID) last
 * @wg: LAUNCH: the work-group slot the warp belongs to
 * @lane0: LAUNCH: its first work-item in the group
 * @hart: LAUNCH: the work-item whose instruction runs now
 * @stall_pc: LAUNCH: pc of the stalled access's instruction
 * @stall_since: ktime_get_ns() of the fault that stalled it, 0 when it is
 *	not stalled (reg_lock)
 * @lock_since: ktime_get_ns() when another warp's lockdown of its
 *	micro-TLB first held it back, 0 when none does (its GPC thread)
 */
struct vgpu_warp {
	struct vgpu_gpc *gpc;
	struct vgpu_prog *prog;
	struct list_head stall_node;
	u32 index;
	u32 slot;
	u32 tpc;
	u32 client;
	u32 op;
	u32 stride;
	bool has_slot;
	bool locks;
	bool started;
	bool done;
	u8 phase;
	u64 pos;
	u64 acc;
	int stall;
	u64 stall_pdb;
	bool stall_pdb_vram;
	u64 stall_va;
	u32 stall_access;
	bool fb_pending;
	u32 fb_slot;
	u64 fb_addr;
	u32 fb_seq;
	u32 fb_words[VGPU_FAULT_ENTRY_SIZE / 4];
	struct vgpu_wg *wg;
	u32 lane0;
	struct rv_hart *hart;
	u64 stall_pc;
	u64 stall_since;
	u64 lock_since;
	u64 retry_at;
};

/**
 * struct vgpu_gpc - one graphics processing cluster
 * @vgpu: the GPU
 * @id: GPC number
 * @thread: the kernel thread running the warps of its programs
 * @lock: protects the micro-TLBs in @utlb; held across each translation
 *	and the data access that uses it
 * @utlb: one micro-TLB per TPC
 * @slots: warp slots (TPCs x SMs x warps per SM): the warp in each
 *	(GPC thread only)
 * @queue: programs waiting for this GPC (vgpu->sched_lock)
 * @running: programs the GPC runs (GPC thread only)
 * @wq: the thread waits here for work
 * @kick: set (then @wq woken) by whoever gives the thread work: a
 *	program, a replay, a cancel, an abort, a read of PUT
 * @stalled: warps stalled on a fault (vgpu->reg_lock)
 * @fb_pending: entries its warps took and have not written
 *	(vgpu->reg_lock)
 * @due_at: when the entries the driver may read are written (ns; 0:
 *	none due yet) (GPC thread only)
 * @retry_at: when the first replayed access that waits is issued again
 *	(ns; 0: none waits) (GPC thread only)
 * @intr: a fault was recorded in this round: raise the interrupt
 * @bounce: a page for COPY and SUM
 */
struct vgpu_gpc {
	struct vgpu *vgpu;
	u32 id;
	struct task_struct *thread;
	spinlock_t lock;	/* micro-TLBs; held across translate + access */
	struct vgpu_utlb *utlb;
	struct vgpu_warp **slots;
	struct list_head queue;
	struct list_head running;
	wait_queue_head_t wq;
	atomic_t kick;
	struct list_head stalled;
	u32 fb_pending;
	u64 due_at;
	u64 retry_at;
	bool intr;
	void *bounce;
};

/**
 * struct vgpu_chan - provider state of a channel
 * @vgpu: the GPU
 * @inst: physical address of the instance block
 * @error: the channel took a cancelled or fatal fault (sched_lock to set)
 * @dead: chan_fini started; no new programs (sched_lock)
 * @progs: programs submitted and not yet reaped (sched_lock)
 * @wq: chan_fini waits here for @progs to empty
 */
struct vgpu_chan {
	struct vgpu *vgpu;
	u64 inst;
	bool error;
	bool dead;
	struct list_head progs;
	wait_queue_head_t wq;
};

/* Program states (struct vgpu_prog.state). */
enum vgpu_prog_state {
	VGPU_PROG_QUEUED,
	VGPU_PROG_RUNNING,
	VGPU_PROG_DONE,
};

/**
 * struct vgpu_prog - a program of memory operations and its outcome
 * @node: on gpc->queue while queued, then on gpc->running
 * @chan_node: on vchan->progs from submit until reaped
 * @vchan: channel
 * @gpc: GPC it was queued to
 * @ops: the operations; results are written into them
 * @nops: number of @ops
 * @flags: NVSVM_EXEC_WARPS: each operation is a warp of its own
 * @slot: warp slot of the first warp (NVSVM_EXEC_SLOT())
 * @warps: its warps (@nwarps)
 * @nwarps: one, or with NVSVM_EXEC_WARPS as many as the operations (at
 *	most the GPC's warp slots: then each warp runs every slots-th one)
 * @live: warps not done (GPC thread only)
 * @state: enum vgpu_prog_state (sched_lock)
 * @abort: non-zero asks the GPC to stop; the enum nvsvm_exec_status to
 *	report (written once, read locklessly)
 * @ctx: MMU context while running
 * @done_ops: operations completed
 * @status: enum nvsvm_exec_status
 * @fault_addr: address of the failed access
 * @fault_access: NVSVM_ACCESS_* of the failed access
 * @fault_pc: LAUNCH: pc of the failed access or trap
 * @launch: LAUNCH: the compiled program run over an NDRange (launch.c);
 *	NULL for a program of operations
 * @done: completed when the GPC no longer touches the program
 */
struct vgpu_prog {
	struct list_head node;
	struct list_head chan_node;
	struct vgpu_chan *vchan;
	struct vgpu_gpc *gpc;
	struct nvsvm_op *ops;
	u32 nops;
	u32 flags;
	u32 slot;
	struct vgpu_warp *warps;
	u32 nwarps;
	u32 live;
	int state;
	int abort;
	struct vgpu_ctx ctx;
	u32 done_ops;
	u32 status;
	u64 fault_addr;
	u32 fault_access;
	u64 fault_pc;
	struct vgpu_launch *launch;
	struct completion done;
};

/**
 * struct vgpu - one virtual GP100
 * @gpu: what is registered with nvsvm.ko
 * @index: GPU number
 * @pdev: platform device, for the DMA API
 * @registered: @gpu is registered with the core
 * @intr_hook: if set, receives fault interrupts instead of the core
 *	(self-tests)
 * @reg_lock: see the top of this file
 * @fb_addr: fault buffer address (0x2a70/0x2a74 without ENABLE)
 * @fb_enable: fault buffer enabled
 * @fb_entries: entries of the fault buffer (0x2a78)
 * @fb_get: GET
 * @fb_put: PUT
 * @fb_overflow: OVERFLOW
 * @fb_valid_delay_us: how long after the driver read PUT an entry's VALID
 *	bit is set (module parameter fault_valid_delay_us)
 * @put_reads: reads of PUT so far
 * @intr_pending: a fault was recorded during a register write; the
 *	interrupt is raised when the write returns
 * @inv_pdb_lo: 0x100cb8
 * @inv_pdb_hi: 0x100cec
 * @inv_status: 0x100c80
 * @inst_gen: moves on each GPC invalidate; contexts reload
 * @unknown_regs: accesses to registers that are not modelled
 * @sched_lock: see the top of this file
 * @rr: round-robin GPC choice
 * @gpcs: the GPCs
 * @gpc_count: number of @gpcs
 * @tpcs: TPCs per GPC
 * @sms: SMs per TPC
 * @warps_per_sm: warp slots per SM
 * @slots: warp slots per GPC (@tpcs * @sms * @warps_per_sm)
 * @fb_taken: fault buffer entries taken and not written yet, by index
 *	(vgpu->reg_lock)
 * @vram: one page per 4 KiB of video memory
 * @vram_size: bytes of video memory
 * @dir: debugfs directory
 * @ctr: counters
 * @copy_fail: fault injection: while positive, vgpu_copy() fails with
 *	-EIO and decrements it (debugfs copy_fail, root only)
 */
struct vgpu {
	struct nvsvm_gpu gpu;
	u32 index;
	struct platform_device *pdev;
	bool registered;
	void (*intr_hook)(struct vgpu *vgpu);

	spinlock_t reg_lock;	/* registers, fault buffer, GPC stall */
	u64 fb_addr;
	bool fb_enable;
	u32 fb_entries;
	u32 fb_get;
	u32 fb_put;
	bool fb_overflow;
	u32 fb_valid_delay_us;
	u32 put_reads;
	bool intr_pending;
	u32 inv_pdb_lo;
	u32 inv_pdb_hi;
	u32 inv_status;
	atomic_t inst_gen;
	atomic64_t unknown_regs;

	spinlock_t sched_lock;	/* run queues, programs, channels */
	atomic_t rr;
	struct vgpu_gpc *gpcs;
	u32 gpc_count;
	u32 tpcs;
	u32 sms;
	u32 warps_per_sm;
	u32 slots;
	unsigned long *fb_taken;

	struct page **vram;
	u64 vram_size;

	struct dentry *dir;
	struct vgpu_counters ctr;
	atomic_t copy_fail;

	/* GPU atomics on system memory (see vgpu_atomic_pcie() in gpc.c) */
	bool sysmem_pcie;
	spinlock_t atomic_lock;	/* the L2: one RMW of this GPU at a time */
	u64 *rmw_word;		/* between the read and the write of an RMW */
	bool rmw_hold;		/* self-test: an RMW waits for an invalidate */
};

/* main.c: the sysmem_atomic_window_us parameter, at most this */
#define VGPU_MAX_ATOMIC_WINDOW_US	1000
extern unsigned int vgpu_atomic_window_us;

/* main.c: the replay_delay_us parameter, at most this */
#define VGPU_MAX_REPLAY_DELAY_US	100000
extern unsigned int vgpu_replay_delay_us;

static inline struct vgpu *to_vgpu(struct nvsvm_gpu *gpu)
{
	return container_of(gpu, struct vgpu, gpu);
}

/* regs.c */
u32 vgpu_rd32(struct nvsvm_gpu *gpu, u32 reg);
void vgpu_wr32(struct nvsvm_gpu *gpu, u32 reg, u32 val);

/* mem.c */
int vgpu_vram_init(struct vgpu *vgpu, u64 size);
void vgpu_vram_fini(struct vgpu *vgpu);
int vgpu_vram_rw(struct vgpu *vgpu, u64 off, void *buf, size_t len,
		 bool write);
int vgpu_copy(struct nvsvm_gpu *gpu, u64 vram, dma_addr_t sys, u32 len,
	      bool to_vram);
struct page *vgpu_mem_page(struct vgpu *vgpu, enum vgpu_mem mem, u64 pa);
int vgpu_mem_read64(struct vgpu *vgpu, enum vgpu_mem mem, u64 pa, u64 *val);

/* mmu.c */

/**
 * struct vgpu_xlat - result of a translation
 * @page: the 4 KiB page reached (NULL when sparse)
 * @off: byte offset in @page
 * @mem: memory of @page
 * @pa: physical address reached
 * @shift: page size of the mapping
 * @sparse: sparse: reads zero, writes dropped
 * @hit: found in the TLB
 * @fault: fault type when the translation failed
 * @fatal: the failure cannot be replayed (instance block unusable)
 */
struct vgpu_xlat {
	struct page *page;
	u32 off;
	enum vgpu_mem mem;
	u64 pa;
	u8 shift;
	bool sparse;
	bool hit;
	u8 fault;
	bool fatal;
};

void vgpu_ctx_load(struct vgpu *vgpu, struct vgpu_ctx *ctx, u64 inst);
bool vgpu_mmu_translate(struct vgpu_gpc *gpc, u32 tpc, struct vgpu_ctx *ctx,
			u64 va, u32 access, struct vgpu_xlat *x);
void vgpu_tlb_invalidate(struct vgpu_gpc *gpc, bool all_pdb, bool pdb_vram,
			 u64 pdb);
int vgpu_utlb_init(struct vgpu_utlb *u, u32 entries);
void vgpu_utlb_fini(struct vgpu_utlb *u);

/* fault.c */
int vgpu_fault_raise(struct vgpu_warp *w, u64 va, u32 access, u8 type);
void vgpu_fault_release(struct vgpu_warp *w);
bool vgpu_warp_locked_out(struct vgpu_warp *w);
void vgpu_warp_lockout_end(struct vgpu_warp *w);
void vgpu_fault_entries(struct vgpu_gpc *gpc);
void vgpu_fault_replay(struct vgpu *vgpu);
void vgpu_fault_put_read(struct vgpu *vgpu);
void vgpu_fault_get_write(struct vgpu *vgpu, u32 get);
void vgpu_fault_intr_pending(struct vgpu *vgpu);
void vgpu_fault_cancel(struct vgpu *vgpu, u32 gpc, u32 client, bool hub,
		       bool all_pdb, bool pdb_vram, u64 pdb);

/* gpc.c */
int vgpu_gpcs_init(struct vgpu *vgpu, u32 count, u32 tpcs, u32 sms,
		   u32 warps_per_sm, u32 tlb_entries);
void vgpu_gpc_kick(struct vgpu_gpc *gpc);
void vgpu_gpcs_fini(struct vgpu *vgpu);
int vgpu_prog_submit(struct vgpu_chan *vchan, struct vgpu_prog *prog,
		     u32 gpc);
void vgpu_prog_abort_locked(struct vgpu_prog *prog, u32 status);
void vgpu_prog_abort(struct vgpu_prog *prog, u32 status);
void vgpu_prog_reap(struct vgpu_prog *prog);
void vgpu_chan_set_error(struct vgpu_chan *vchan);
void vgpu_prog_fail(struct vgpu_prog *prog, u64 va, u32 access, u32 status);
bool vgpu_prog_stopped(struct vgpu_prog *prog);
void vgpu_warp_place(struct vgpu *vgpu, struct vgpu_warp *w, u32 slot);
int vgpu_warp_resume(struct vgpu_warp *w);
s64 vgpu_warp_access(struct vgpu_warp *w, struct rv_mem *m);

/* launch.c */
long vgpu_ioctl_launch(struct nvsvm_gpu *gpu, struct nvsvm_file *nf,
		       void __user *uarg);
void vgpu_launch_start(struct vgpu_gpc *gpc, struct vgpu_prog *prog);
bool vgpu_launch_round(struct vgpu_prog *prog);

/* exec.c */
int vgpu_chan_init(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan);
void vgpu_chan_fini(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan);
int vgpu_exec(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan,
	      struct nvsvm_exec *args);
long vgpu_ioctl_exec(struct nvsvm_gpu *gpu, struct nvsvm_file *nf,
		     void __user *uarg);
struct vgpu_chan *vgpu_chan_create(struct vgpu *vgpu, u64 inst);
void vgpu_chan_destroy(struct vgpu_chan *vchan);
int vgpu_prog_wait(struct vgpu_prog *prog, u32 timeout_ms, bool killable);

/* selftest.c */
void vgpu_selftest(struct vgpu *vgpu);

#endif /* _NVSVM_VGPU_H */
