// SPDX-License-Identifier: GPL-2.0
/*
 * TEST ONLY, part of src/vmm.c in a test build (NVSVM_TEST), which
 * includes it at its end for its static functions: the self-test of
 * nvsvm_vmm_valid()'s direct look (nvsvm_pt_valid()) against the generic
 * walk (nvsvm_pt_valid_iter()) and against nvsvm_vmm_lookup() page by
 * page, on tables built for it in a scratch address space of the chip's
 * description that no GPU walks.
 *
 * The tables hold every mix the description allows, 2 MiB block by
 * block, through the map (nvsvm_vmm_map(), which keeps the shadowing
 * rules) and through raw writes that do not (a valid large PTE over valid
 * small ones, a valid 2 MiB PTE beside a small-page table): 4 KiB, 64 KiB
 * and 2 MiB PTEs, valid and invalidated (nvsvm_vmm_invalidate(), and raw
 * desc->pte_invalid() entries), holes, sparse and full tables, dual
 * entries with both tables, blocks with no table at all; and after an
 * invalidate of random ranges of them, which detaches whole tables. Each
 * comparison starts from the same random bits in all three bitmaps (the
 * contract leaves the other bits alone) and compares them whole.
 *
 * Read /sys/kernel/debug/nvsvm/nvsvmN/vmm_selftest (root; src/debugfs.c)
 * for KTAP lines, "ok N name" or "not ok N name" with "#" diagnostics, and
 * the cost of both looks per 2 MiB block; tests/vmm.c checks them.
 */
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/seq_file.h>

#define ST_BLOCK	SZ_2M
#define ST_BLOCK_PAGES	(ST_BLOCK >> PAGE_SHIFT)
/* Blocks of the run, across two PD1 entries (512 MiB each). */
#define ST_BLOCKS	24
#define ST_BASE		(BIT_ULL(40) + SZ_1G - 8 * ST_BLOCK)
/* Windows of the comparisons: at most this many pages. */
#define ST_MAX_PAGES	(3 * ST_BLOCK_PAGES)
#define ST_BITS		(ST_MAX_PAGES + BITS_PER_LONG)
#define ST_SEED		0x6e7673766d766d6dULL
#define ST_TIMED_ROUNDS	64

/* What a block holds (block i holds kind i % ST_KINDS). */
enum {
	ST_EMPTY,		/* no table */
	ST_4K_HALF,		/* map: random half of the 4 KiB pages */
	ST_4K_FULL,		/* map: all 512 */
	ST_64K_SOME,		/* map: random 64 KiB pages */
	ST_2M,			/* map: one 2 MiB PTE */
	ST_2M_INVALID,		/* map, invalidate: a 2 MiB PTE invalidated */
	ST_DUAL_MAP,		/* map: 64 KiB pages, 4 KiB pages beside them */
	ST_2M_INV_4K,		/* map: 4 KiB pages under an invalidated 2 MiB */
	ST_RAW_SHADOW,		/* raw: valid 64 KiB over valid 4 KiB */
	ST_RAW_2M_SPT,		/* raw: valid 2 MiB beside a small-page table */
	ST_RAW_MIX,		/* raw: every entry empty, valid or invalid */
	ST_RAW_SPARSE,		/* raw: a few entries, half invalid */
	ST_RAW_MIX_DENSE,	/* raw: as ST_RAW_MIX, few holes */
	ST_KINDS
};

struct nvsvm_vmm_st {
	struct nvsvm_vmm vmm;
	struct mutex lock;		/* the vmm's owner lock */
	atomic64_t pt_bytes;
	struct rnd_state rnd;
	struct seq_file *m;
	const char *sfx;		/* after each case's name */
	struct list_head detached;
	unsigned int num;
	bool fail;			/* the case being run failed */
	unsigned long windows;		/* windows compared */
	unsigned long direct;		/* of them, without the iterator */
	unsigned long set;		/* bits the looks set, in all */
	u32 kinds[4];			/* valid 4K, 64K, 2M PTEs; invalid */
	DECLARE_BITMAP(a, ST_BITS);
	DECLARE_BITMAP(b, ST_BITS);
	DECLARE_BITMAP(c, ST_BITS);
	DECLARE_BITMAP(fill, ST_BITS);
};

static u32 st_rand(struct nvsvm_vmm_st *st, u32 n)
{
	return n ? prandom_u32_state(&st->rnd) % n : 0;
}

/* A PTE for @addr of 1 << @shift bytes, its flags and address random. */
static u64 st_pte(struct nvsvm_vmm_st *st, u64 addr, unsigned int shift)
{
	static const u32 flags[] = {
		0, NVSVM_PTE_WRITE, NVSVM_PTE_WRITE | NVSVM_PTE_ATOMIC,
		NVSVM_PTE_VRAM, NVSVM_PTE_VRAM | NVSVM_PTE_WRITE,
	};
	u64 phys = ((u64)st_rand(st, 1U << 20) << shift) & GENMASK_ULL(47, 0);

	return st->vmm.desc->pte(phys, flags[st_rand(st, ARRAY_SIZE(flags))]);
}

static void st_count(struct nvsvm_vmm_st *st, u64 pte, unsigned int shift)
{
	if (!(st->vmm.desc->pte_flags(pte) & NVSVM_PTE_VALID))
		st->kinds[3]++;
	else
		st->kinds[shift >= 21 ? 2 : shift >= 16 ? 1 : 0]++;
}

static u64 st_map_fn(void *priv, u64 addr, unsigned int shift, u64 pte)
{
	struct nvsvm_vmm_st *st = priv;

	pte = st_pte(st, addr, shift);
	st_count(st, pte, shift);
	return pte;
}

/* Map [addr, addr + len) with pages of 1 << @shift bytes. */
static int st_map(struct nvsvm_vmm_st *st, u64 addr, u64 len,
		  unsigned int shift)
{
	u64 shadowed = 0;
	int ret;

	ret = nvsvm_vmm_map(&st->vmm, addr, addr + len, shift, st_map_fn, st,
			    &shadowed);
	return ret == -EEXIST ? 0 : ret;
}

/*
 * Map the pages of 1 << @shift bytes of the block at @addr but about 1 in
 * @skip of them (0: all).
 */
static int st_map_share(struct nvsvm_vmm_st *st, u64 addr, unsigned int shift,
			unsigned int skip)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ST_BLOCK >> shift && !ret; i++)
		if (!skip || st_rand(st, skip))
			ret = st_map(st, addr + ((u64)i << shift), 1ULL << shift,
				     shift);
	return ret;
}

/*
 * Write @pte for the page of 1 << @shift bytes at @addr, linking tables on
 * the way, with none of the map's shadowing rules. -EEXIST where a PTE
 * holds the slot a table would take, or a table the PTE's.
 */
static int st_raw(struct nvsvm_vmm_st *st, u64 addr, unsigned int shift,
		  u64 pte)
{
	struct nvsvm_vmm *vmm = &st->vmm;
	const struct nvsvm_vmm_path *path = NULL;
	struct nvsvm_pt *pt = vmm->root;
	unsigned int i, d, idx, slot;
	int ret;
	u64 old;

	for (i = 0; i < vmm->npaths; i++)
		if (vmm->paths[i].shift == shift)
			path = &vmm->paths[i];
	if (!path)
		return -EINVAL;
	for (d = 0; d + 1 < path->depth; d++) {
		pt = nvsvm_pt_child_get(vmm, pt, nvsvm_pt_index(vmm, pt, addr),
					path->slot[d], &ret);
		if (!pt)
			return ret;
	}
	idx = nvsvm_pt_index(vmm, pt, addr);
	slot = path->slot[d];
	if (nvsvm_lvl_is_dir(nvsvm_lvl(vmm, pt->level)) &&
	    *nvsvm_pt_child(vmm, pt, idx, slot))
		return -EEXIST;
	old = READ_ONCE(*nvsvm_pt_entry(vmm, pt, idx, slot));
	nvsvm_pt_write(vmm, pt, idx, slot, pte);
	pt->refs += !old - !pte;
	if (pte)
		st_count(st, pte, shift);
	return 0;
}

/* A raw PTE for @addr, invalidated 1 time in @invalid. */
static u64 st_raw_pte(struct nvsvm_vmm_st *st, u64 addr, unsigned int shift,
		      unsigned int invalid)
{
	u64 pte = st_pte(st, addr, shift);

	return st_rand(st, invalid) ? pte : st->vmm.desc->pte_invalid(pte);
}

/*
 * Raw entries for the pages of 1 << @shift bytes of the block at @addr:
 * a hole 1 time in @holes, else valid or invalidated (st_raw_pte()).
 */
static int st_raw_block(struct nvsvm_vmm_st *st, u64 addr, unsigned int shift,
			unsigned int holes, unsigned int invalid)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ST_BLOCK >> shift && !ret; i++) {
		u64 a = addr + ((u64)i << shift);

		if (st_rand(st, holes))
			ret = st_raw(st, a, shift,
				     st_raw_pte(st, a, shift, invalid));
	}
	return ret;
}

/* Invalidate [addr, addr + len): entries invalidated, tables detached. */
static void st_invalidate(struct nvsvm_vmm_st *st, u64 addr, u64 len)
{
	nvsvm_vmm_invalidate(&st->vmm, addr, addr + len, addr, addr + len,
			     &st->detached);
}

/* Fill the block at @addr with @kind; the lock held, tables reserved. */
static int st_block(struct nvsvm_vmm_st *st, u64 addr, unsigned int kind)
{
	unsigned int i, n;
	int ret = 0;

	switch (kind) {
	case ST_EMPTY:
		break;
	case ST_4K_HALF:
		ret = st_map_share(st, addr, PAGE_SHIFT, 2);
		break;
	case ST_4K_FULL:
		ret = st_map_share(st, addr, PAGE_SHIFT, 0);
		break;
	case ST_64K_SOME:
		ret = st_map_share(st, addr, 16, 3);
		break;
	case ST_2M:
	case ST_2M_INVALID:
	case ST_2M_INV_4K:
		ret = st_map(st, addr, ST_BLOCK, 21);
		if (ret || kind == ST_2M)
			break;
		st_invalidate(st, addr, ST_BLOCK);
		if (kind == ST_2M_INV_4K)
			ret = st_map_share(st, addr, PAGE_SHIFT, 2);
		break;
	case ST_DUAL_MAP:
		/* 64 KiB pages first, then 4 KiB over the whole block. */
		ret = st_map_share(st, addr, 16, 2);
		if (!ret)
			ret = st_map_share(st, addr, PAGE_SHIFT, 3);
		break;
	case ST_RAW_SHADOW:
		ret = st_raw_block(st, addr, PAGE_SHIFT, 3, 4);
		if (!ret)
			ret = st_raw_block(st, addr, 16, 2, 4);
		break;
	case ST_RAW_2M_SPT:
		ret = st_raw_block(st, addr, PAGE_SHIFT, 2, 3);
		if (!ret)
			ret = st_raw(st, addr, 21, st_pte(st, addr, 21));
		break;
	case ST_RAW_MIX:
	case ST_RAW_MIX_DENSE:
		n = kind == ST_RAW_MIX ? 2 : 8;
		ret = st_raw_block(st, addr, 16, n, 3);
		if (!ret)
			ret = st_raw_block(st, addr, PAGE_SHIFT, n, 3);
		break;
	case ST_RAW_SPARSE:
		for (i = 0; i < 6 && !ret; i++) {
			u64 a = addr + ((u64)st_rand(st, ST_BLOCK_PAGES) <<
					PAGE_SHIFT);

			ret = st_raw(st, a, PAGE_SHIFT,
				     st_raw_pte(st, a, PAGE_SHIFT, 2));
		}
		break;
	}
	return ret;
}

/*
 * Compare the three on [start, start + npages pages): the direct look
 * (which must not need the iterator when @direct), the generic walk and
 * one nvsvm_vmm_lookup() per page, each from the same random bits.
 */
static void st_compare(struct nvsvm_vmm_st *st, u64 start,
		       unsigned int npages, bool direct)
{
	struct nvsvm_vmm *vmm = &st->vmm;
	u64 end = start + ((u64)npages << PAGE_SHIFT);
	unsigned int i, iter, shift;

	prandom_bytes_state(&st->rnd, st->fill, sizeof(st->fill));
	bitmap_copy(st->a, st->fill, ST_BITS);
	bitmap_copy(st->b, st->fill, ST_BITS);
	bitmap_copy(st->c, st->fill, ST_BITS);

	iter = npages ? nvsvm_pt_valid(vmm, vmm->root, start, start, end,
				       st->a) : 0;
	nvsvm_pt_valid_iter(vmm, vmm->root, start, start, end, st->b);
	for (i = 0; i < npages; i++)
		if (nvsvm_vmm_lookup(vmm, start + ((u64)i << PAGE_SHIFT),
				     &shift))
			__set_bit(i, st->c);

	st->windows++;
	st->direct += !iter;
	bitmap_andnot(st->fill, st->c, st->fill, ST_BITS);
	st->set += bitmap_weight(st->fill, ST_BITS);
	if (bitmap_equal(st->a, st->b, ST_BITS) &&
	    bitmap_equal(st->a, st->c, ST_BITS) && (!direct || !iter))
		return;
	if (!st->fail)
		seq_printf(st->m,
			   "# [%llx, +%u pages): direct %*pbl (iterator %u), walk %*pbl, lookup %*pbl\n",
			   start, npages, ST_BITS, st->a, iter, ST_BITS,
			   st->b, ST_BITS, st->c);
	st->fail = true;
}

static void st_result(struct nvsvm_vmm_st *st, const char *name)
{
	st->num++;
	seq_printf(st->m, "%sok %u %s%s\n", st->fail ? "not " : "", st->num,
		   name, st->sfx);
	st->fail = false;
}

/* Every block as the prefetch looks at it, then windows inside blocks. */
static void st_blocks(struct nvsvm_vmm_st *st, const char *name)
{
	unsigned int b;

	for (b = 0; b < ST_BLOCKS; b++)
		st_compare(st, ST_BASE + b * ST_BLOCK, ST_BLOCK_PAGES, true);
	st_result(st, name);
}

static void st_within(struct nvsvm_vmm_st *st, const char *name)
{
	unsigned int b, k;

	for (b = 0; b < ST_BLOCKS; b++)
		for (k = 0; k < 16; k++) {
			unsigned int first = st_rand(st, ST_BLOCK_PAGES);

			st_compare(st, ST_BASE + b * ST_BLOCK +
				   ((u64)first << PAGE_SHIFT),
				   1 + st_rand(st, ST_BLOCK_PAGES - first),
				   true);
		}
	st_result(st, name);
}

/* Windows anywhere around the run, across blocks and the PD1 boundary. */
static void st_across(struct nvsvm_vmm_st *st, const char *name)
{
	u64 lo = ST_BASE - 2 * ST_BLOCK;
	unsigned int k;

	for (k = 0; k < 256; k++)
		st_compare(st, lo + ((u64)st_rand(st, (ST_BLOCKS + 4) *
						  ST_BLOCK_PAGES) << PAGE_SHIFT),
			   st_rand(st, ST_MAX_PAGES + 1), false);
	/* Where no directory below the top one exists. */
	st_compare(st, BIT_ULL(46), ST_BLOCK_PAGES, true);
	st_compare(st, ST_BASE - SZ_1G, ST_MAX_PAGES, false);
	st_result(st, name);
}

/* ns per block of one look over the whole run, ST_TIMED_ROUNDS times. */
static u64 st_time_one(struct nvsvm_vmm_st *st, bool direct)
{
	struct nvsvm_vmm *vmm = &st->vmm;
	u64 t0 = ktime_get_ns();
	unsigned int r, b;

	for (r = 0; r < ST_TIMED_ROUNDS; r++)
		for (b = 0; b < ST_BLOCKS; b++) {
			u64 a = ST_BASE + b * ST_BLOCK;

			if (direct)
				nvsvm_pt_valid(vmm, vmm->root, a, a,
					       a + ST_BLOCK, st->a);
			else
				nvsvm_pt_valid_iter(vmm, vmm->root, a, a,
						    a + ST_BLOCK, st->a);
		}
	return div_u64(ktime_get_ns() - t0, ST_TIMED_ROUNDS * ST_BLOCKS);
}

static void st_time(struct nvsvm_vmm_st *st)
{
	u64 direct = st_time_one(st, true);

	seq_printf(st->m, "# per 2 MiB block: direct %llu ns, iterator %llu ns\n",
		   direct, st_time_one(st, false));
}

static void st_release_fn(void *priv, u64 pte, unsigned int shift)
{
}

/* Build the run; each step's tables reserved without the lock. */
static void st_build(struct nvsvm_vmm_st *st, const char *name)
{
	unsigned int b;
	int ret = 0;

	for (b = 0; b < ST_BLOCKS && !ret; b++) {
		u64 addr = ST_BASE + b * ST_BLOCK;

		ret = nvsvm_vmm_reserve(&st->vmm, addr, addr + ST_BLOCK);
		if (ret)
			break;
		mutex_lock(&st->lock);
		ret = st_block(st, addr, b % ST_KINDS);
		mutex_unlock(&st->lock);
	}
	if (ret)
		seq_printf(st->m, "# block %u: %d\n", b - 1, ret);
	seq_printf(st->m, "# built: %u valid 4K, %u valid 64K, %u valid 2M PTEs, %u invalid\n",
		   st->kinds[0], st->kinds[1], st->kinds[2], st->kinds[3]);
	st->fail = ret || !st->kinds[0] || !st->kinds[1] || !st->kinds[2] ||
		   !st->kinds[3];
	st_result(st, name);
}

/* Invalidate random ranges: some whole blocks, whose tables detach. */
static void st_invalidate_some(struct nvsvm_vmm_st *st)
{
	unsigned int k;

	mutex_lock(&st->lock);
	for (k = 0; k < 12; k++) {
		u64 addr = ST_BASE + ((u64)st_rand(st, ST_BLOCKS *
						   ST_BLOCK_PAGES) << PAGE_SHIFT);

		st_invalidate(st, addr, (1 + (u64)st_rand(st, ST_BLOCK_PAGES))
			      << PAGE_SHIFT);
	}
	st_invalidate(st, ST_BASE + 3 * ST_BLOCK, ST_BLOCK);
	st_invalidate(st, ST_BASE + 10 * ST_BLOCK + SZ_64K, SZ_1M);
	mutex_unlock(&st->lock);
}

/* Everything goes: invalidate, release, free; no table memory left. */
static void st_teardown(struct nvsvm_vmm_st *st, const char *name)
{
	u64 lo = ST_BASE, hi = ST_BASE + ST_BLOCKS * ST_BLOCK;
	LIST_HEAD(freed);

	mutex_lock(&st->lock);
	nvsvm_vmm_invalidate(&st->vmm, lo, hi, lo, hi, &st->detached);
	nvsvm_vmm_release(&st->vmm, lo, hi, st_release_fn, st, &freed);
	nvsvm_vmm_release_detached(&st->vmm, &st->detached, st_release_fn, st,
				   &freed, false);
	nvsvm_vmm_free_tables(&st->vmm, &freed, false);
	st->fail = st->vmm.root->refs || atomic64_read(&st->pt_bytes);
	mutex_unlock(&st->lock);
	if (st->fail)
		seq_printf(st->m, "# left: %u root entries, %lld bytes of tables\n",
			   st->vmm.root->refs, atomic64_read(&st->pt_bytes));
	st_result(st, name);
}

/*
 * One run of the self-test on @desc, its cases named with @sfx; the KTAP
 * numbers go on from *@num.
 */
static int st_run(struct seq_file *m, struct device *dev,
		  const struct nvsvm_vmm_desc *desc, const char *sfx,
		  unsigned int *num)
{
	struct nvsvm_vmm_st *st = kzalloc(sizeof(*st), GFP_KERNEL);
	int ret;

	if (!st)
		return -ENOMEM;
	st->m = m;
	st->sfx = sfx;
	st->num = *num;
	mutex_init(&st->lock);
	INIT_LIST_HEAD(&st->detached);
	prandom_seed_state(&st->rnd, ST_SEED);
	ret = nvsvm_vmm_init(&st->vmm, dev, desc, current->mm, &st->pt_bytes);
	if (ret) {
		kfree(st);
		return ret;
	}
	nvsvm_vmm_set_lock(&st->vmm, &st->lock);

	st_build(st, "vmm_valid_build");
	mutex_lock(&st->lock);
	st_blocks(st, "vmm_valid_blocks");
	st_within(st, "vmm_valid_within_blocks");
	st_across(st, "vmm_valid_across_blocks");
	st_time(st);
	mutex_unlock(&st->lock);
	st_invalidate_some(st);
	mutex_lock(&st->lock);
	st_blocks(st, "vmm_valid_blocks_invalidated");
	st_within(st, "vmm_valid_within_invalidated");
	st_across(st, "vmm_valid_across_invalidated");
	mutex_unlock(&st->lock);
	seq_printf(m, "# %lu windows, %lu by the direct look alone, %lu bits set\n",
		   st->windows, st->direct, st->set);
	st->fail = !st->set || st->direct * 2 < st->windows;
	st_result(st, "vmm_valid_not_vacuous");
	st_teardown(st, "vmm_valid_teardown");

	*num = st->num;
	nvsvm_vmm_fini(&st->vmm);
	mutex_destroy(&st->lock);
	kfree(st);
	return 0;
}

/*
 * nvsvm_vmm_init() of @desc with a valid mask that is wrong in way @how:
 * 0 if refused with -EINVAL, else -EINVAL (the address space is freed).
 */
static int st_bad_mask(struct device *dev, const struct nvsvm_vmm_desc *desc,
		       unsigned int how)
{
	struct nvsvm_vmm_desc bad = *desc;
	struct nvsvm_vmm *vmm;
	atomic64_t pt_bytes = ATOMIC64_INIT(0);
	u64 pte = desc->pte(SZ_2M, 0);
	int ret;

	switch (how) {
	case 0:		/* every bit of a valid PTE: its address too */
		bad.pte_valid_mask = ~0ULL;
		bad.pte_valid_bits = pte;
		break;
	case 1:		/* an empty entry would be valid */
		bad.pte_valid_mask = pte;
		bad.pte_valid_bits = 0;
		break;
	default:	/* bits outside the mask */
		bad.pte_valid_mask = desc->pte_valid_mask ?: pte;
		bad.pte_valid_bits = ~bad.pte_valid_mask;
		break;
	}
	vmm = kzalloc(sizeof(*vmm), GFP_KERNEL);
	if (!vmm)
		return -ENOMEM;
	ret = nvsvm_vmm_init(vmm, dev, &bad, current->mm, &pt_bytes);
	if (!ret)
		nvsvm_vmm_fini(vmm);
	kfree(vmm);
	return ret == -EINVAL ? 0 : -EINVAL;
}

/**
 * nvsvm_vmm_selftest() - TEST ONLY: nvsvm_vmm_valid()'s self-test
 * @m: where the KTAP lines go
 * @dev: device for the tables' DMA mappings (the GPU never walks them)
 * @desc: the chip's description
 *
 * Builds a scratch address space charged to the caller's memory cgroup,
 * compares, frees it all; twice: with @desc, then with a copy of it
 * without the valid mask (each PTE's flags decoded by a call). Sleeps.
 *
 * Return: 0, or the errno of an address space that could not be set up.
 */
int nvsvm_vmm_selftest(struct seq_file *m, struct device *dev,
		       const struct nvsvm_vmm_desc *desc)
{
	struct nvsvm_vmm_desc nomask = *desc;
	unsigned int num = 0;
	int ret;

	nomask.pte_valid_mask = 0;
	nomask.pte_valid_bits = 0;
	seq_puts(m, "1..19\n");
	ret = st_run(m, dev, desc, "", &num);
	if (!ret)
		ret = st_run(m, dev, &nomask, "_flags", &num);
	if (ret)
		return ret;
	/* A mask that disagrees with ->pte_flags() is refused. */
	ret = st_bad_mask(dev, desc, 0);
	ret = ret ?: st_bad_mask(dev, desc, 1);
	ret = ret ?: st_bad_mask(dev, desc, 2);
	seq_printf(m, "%sok %u vmm_valid_mask_checked\n", ret ? "not " : "",
		   ++num);
	return 0;
}
