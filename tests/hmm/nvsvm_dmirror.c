// SPDX-License-Identifier: GPL-2.0
/*
 * TEST ONLY: nvsvm_dmirror.ko registers /dev/hmm_dmirror0 and 1 with the
 * ABI of lib/test_hmm_uapi.h of the kernel it is built for, so that the
 * kernel's own hmm-tests (tools/testing/selftests/{vm,mm}/hmm-tests.c)
 * judge nvsvm. Not part of the nvsvm package.
 *
 * It keeps no mirror of its own. Each open file opens /dev/nvsvmN (N the
 * dmirror unit; nvsvm0 when there is no such GPU) for the caller and makes
 * an SVM area of the caller's address space, as a user of nvsvm would: at
 * its first command, as open() runs under the misc device lock that
 * opening /dev/nvsvmN takes too.
 * Every command then goes through nvsvm's user interface, from the
 * caller's own context:
 *  READ/WRITE       one GPU COPY between the mirrored range and the
 *                   caller's buffer, on a channel joined to the area, one
 *                   warp per 64 KiB: the virtual GP100 faults, nvsvm
 *                   serves the replayable faults through HMM. faults is 1 when the GPU page
 *                   tables lacked a page (or write access) for the
 *                   range before the copy, 0 when all was mapped.
 *  SNAPSHOT         MAP without faulting (what the CPU has), then QUERY
 *                   of the GPU page tables (NVSVM_QUERY_ZERO: the CPU's
 *                   zero page, HMM_DMIRROR_PROT_ZERO).
 *  MIGRATE_TO_DEV   nvsvm's MIGRATE to VRAM (device-private memory), then
 *                   a GPU COPY of the range into the buffer; ENOENT when
 *                   QUERY then shows a page outside this GPU's VRAM.
 *  MIGRATE_TO_SYS   MIGRATE to system memory.
 *  RELEASE          MIGRATE of the command's range to system memory.
 *  EXCLUSIVE        a GPU ATOMIC_ADD of 0 on each page (a GPU atomic takes
 *                   the page for exclusive access), then a GPU COPY. Where
 *                   there is no exclusive access and the GPU's link is not
 *                   coherent for atomics (a PCIe GPU on a kernel without
 *                   CONFIG_DEVICE_PRIVATE), nvsvm refuses the atomic: the
 *                   EXEC faults and EXCLUSIVE fails.
 *  CHECK_EXCLUSIVE  EPERM while QUERY shows an atomic mapping, where nvsvm
 *                   takes pages for exclusive access (NVSVM_CAP_ATOMICS_
 *                   EXCLUSIVE); without it GPU atomics never hold a page
 *                   exclusively: 0.
 *  FLAGS            (where the uapi has it) FAIL_ALLOC makes dmirror's next
 *                   huge device page allocation fail; nvsvm has nothing to
 *                   fail on request: a 2 MiB VRAM page (7.3) that cannot
 *                   be had falls back to 4 KiB pages by itself.
 *  READ_UNLOCKED    (where the uapi has it) MAP with NVSVM_MAP_FAULT,
 *                   which waits for a userfaultfd handler in the caller's
 *                   context, then READ.
 * nvsvm's ioctls take user pointers: each command maps a scratch area in
 * the caller's address space (vm_mmap) for their arguments and unmaps it
 * before it returns.
 */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "test_hmm_uapi.h"
#include "nvsvm_vgpu.h"

#define DM_UNITS	2
#define DM_TIMEOUT_MS	600000
#define DM_COPY_MAX	BIT_ULL(30)	/* bytes of one COPY operation */
#define DM_COPY_WARP	SZ_64K		/* bytes per warp of a copy, at least */
#define DM_PMD_SHIFT	21
#define DM_PUD_SHIFT	30

struct dm_file {
	struct mutex lock;	/* guards the opening of @nv */
	struct file *nv;	/* /dev/nvsvmN, opened by the caller, or NULL */
	struct mm_struct *mm;	/* the opener's */
	unsigned int unit;
	u32 caps;		/* NVSVM_CAP_* of @nv */
};

/* Argument memory in the caller's address space, for nvsvm's ioctls. */
struct dm_scratch {
	unsigned long base;
	unsigned long size;
};

static int dm_scratch_map(struct dm_scratch *s, size_t size)
{
	unsigned long addr;

	s->size = PAGE_ALIGN(size);
	addr = vm_mmap(NULL, 0, s->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	s->base = addr;
	return 0;
}

static void dm_scratch_unmap(struct dm_scratch *s)
{
	vm_munmap(s->base, s->size);
}

/* nvsvm ioctl @cmd with @arg (@size bytes) passed at user address @u. */
static long dm_nv(struct dm_file *df, unsigned int cmd, unsigned long u,
		  void *arg, size_t size)
{
	long ret;

	if (copy_to_user((void __user *)u, arg, size))
		return -EFAULT;
	ret = df->nv->f_op->unlocked_ioctl(df->nv, cmd, u);
	if (!ret && copy_from_user(arg, (void __user *)u, size))
		return -EFAULT;
	return ret;
}

/* nvsvm ioctl @cmd with @arg in a scratch area of its own. */
static long dm_nv_call(struct dm_file *df, unsigned int cmd, void *arg,
		       size_t size)
{
	struct dm_scratch s;
	long ret;

	ret = dm_scratch_map(&s, size);
	if (ret)
		return ret;
	ret = dm_nv(df, cmd, s.base, arg, size);
	dm_scratch_unmap(&s);
	return ret;
}

/*
 * At the first command: /dev/nvsvmN for the opener, with an area of its
 * whole address space (no unmanaged window).
 */
static long dm_nv_open(struct dm_file *df)
{
	struct nvsvm_area_init ai = { };
	struct nvsvm_get_info info = { };
	struct file *nv;
	char path[24];
	long ret = 0;

	if (current->mm != df->mm)
		return -EINVAL;
	mutex_lock(&df->lock);
	if (df->nv)
		goto out;
	snprintf(path, sizeof(path), "/dev/nvsvm%u", df->unit);
	nv = filp_open(path, O_RDWR, 0);
	if (IS_ERR(nv) && df->unit)
		nv = filp_open("/dev/nvsvm0", O_RDWR, 0);
	if (IS_ERR(nv)) {
		ret = PTR_ERR(nv);
		goto out;
	}
	df->nv = nv;
	ret = dm_nv_call(df, NVSVM_IOCTL_GET_INFO, &info, sizeof(info));
	if (!ret)
		ret = dm_nv_call(df, NVSVM_IOCTL_AREA_INIT, &ai, sizeof(ai));
	df->caps = info.caps;
	if (ret) {
		df->nv = NULL;
		fput(nv);
	}
out:
	mutex_unlock(&df->lock);
	return ret;
}

/*
 * Run @nops operations on a new channel joined to the area, and destroy
 * it (a cancelled access leaves a channel in error). @ops get the results.
 * Each operation is a warp of its own (NVSVM_EXEC_WARPS), as a GPU kernel
 * runs many threads: their faults reach nvsvm in batches, not one by one.
 */
static long dm_exec(struct dm_file *df, struct nvsvm_op *ops, u32 nops,
		    struct nvsvm_exec *ex)
{
	struct nvsvm_chan_create cc = { .flags = NVSVM_CHAN_JOIN_AREA };
	struct nvsvm_chan_destroy cd = { };
	size_t osize = array_size(nops, sizeof(*ops));
	struct dm_scratch s;
	void __user *uops;
	long ret;

	ret = dm_scratch_map(&s, PAGE_SIZE + osize);
	if (ret)
		return ret;
	uops = (void __user *)(s.base + PAGE_SIZE);
	ret = dm_nv(df, NVSVM_IOCTL_CHAN_CREATE, s.base, &cc, sizeof(cc));
	if (ret)
		goto out;
	if (copy_to_user(uops, ops, osize)) {
		ret = -EFAULT;
		goto destroy;
	}
	memset(ex, 0, sizeof(*ex));
	ex->handle = cc.handle;
	ex->gpc = NVSVM_GPC_ANY;
	ex->ops = (unsigned long)uops;
	ex->nops = nops;
	ex->timeout_ms = DM_TIMEOUT_MS;
	ex->flags = NVSVM_EXEC_WARPS;
	ret = dm_nv(df, NVSVM_IOCTL_EXEC, s.base, ex, sizeof(*ex));
	if (!ret && copy_from_user(ops, uops, osize))
		ret = -EFAULT;
destroy:
	cd.handle = cc.handle;
	dm_nv(df, NVSVM_IOCTL_CHAN_DESTROY, s.base, &cd, sizeof(cd));
out:
	dm_scratch_unmap(&s);
	return ret;
}

/*
 * The errno hmm_range_fault() gives for the access the GPU could not
 * make at @addr: EPERM for a write to a readable, read-only mapping of
 * the mirrored range [@start, @end), EFAULT otherwise.
 */
static long dm_fault_errno(u64 addr, u32 access, u64 start, u64 end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	long ret = -EFAULT;

	if (addr < start || addr >= end || access == NVSVM_ACCESS_READ)
		return ret;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && (vma->vm_flags & VM_READ) && !(vma->vm_flags & VM_WRITE))
		ret = -EPERM;
	mmap_read_unlock(mm);
	return ret;
}

static long dm_exec_errno(const struct nvsvm_exec *ex, u64 start, u64 end)
{
	switch (ex->status) {
	case NVSVM_EXEC_OK:
		return 0;
	case NVSVM_EXEC_FAULT:
	case NVSVM_EXEC_FATAL:
		return dm_fault_errno(ex->fault_addr, ex->fault_access,
				      start, end);
	case NVSVM_EXEC_TIMEOUT:
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

/*
 * GPU COPY of @size bytes from @src to @dst, one warp per DM_COPY_WARP
 * bytes (more when that would pass NVSVM_EXEC_MAX_OPS warps); errno as for
 * [start, end).
 */
static long dm_gpu_copy(struct dm_file *df, u64 dst, u64 src, u64 size,
			u64 start, u64 end)
{
	struct nvsvm_exec ex;
	struct nvsvm_op *ops;
	u64 chunk;
	u32 i, nops;
	long ret;

	if (size > NVSVM_EXEC_MAX_OPS * DM_COPY_MAX || (dst | src) & 7)
		return -EINVAL;
	chunk = max_t(u64, DM_COPY_WARP,
		      round_up(DIV_ROUND_UP_ULL(size, NVSVM_EXEC_MAX_OPS),
			       PAGE_SIZE));
	nops = DIV_ROUND_UP_ULL(size, chunk);
	ops = kcalloc(nops, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < nops; i++) {
		u64 off = (u64)i * chunk;

		ops[i].code = NVSVM_OP_COPY;
		ops[i].addr = dst + off;
		ops[i].src = src + off;
		ops[i].len = min(size - off, chunk);
	}
	ret = dm_exec(df, ops, nops, &ex);
	if (!ret)
		ret = dm_exec_errno(&ex, start, end);
	kfree(ops);
	return ret;
}

/* The GPU page tables' NVSVM_QUERY_* bits of @npages pages from @addr. */
static long dm_query(struct dm_file *df, u64 addr, u64 npages, u32 *bits)
{
	struct nvsvm_query q = { .addr = addr, .npages = npages };
	struct dm_scratch s;
	size_t size = array_size(npages, sizeof(*bits));
	long ret;

	if (npages > NVSVM_QUERY_MAX)
		return -EINVAL;
	ret = dm_scratch_map(&s, PAGE_SIZE + size);
	if (ret)
		return ret;
	q.entries = s.base + PAGE_SIZE;
	ret = dm_nv(df, NVSVM_IOCTL_QUERY, s.base, &q, sizeof(q));
	if (!ret && copy_from_user(bits, u64_to_user_ptr(q.entries), size))
		ret = -EFAULT;
	dm_scratch_unmap(&s);
	return ret;
}

/* QUERY of a command's range into a new array (kvfree() it). */
static long dm_query_alloc(struct dm_file *df, struct hmm_dmirror_cmd *cmd,
			   u32 **pbits)
{
	u32 *bits = kvmalloc_array(cmd->npages, sizeof(*bits), GFP_KERNEL);
	long ret;

	if (!bits)
		return -ENOMEM;
	ret = dm_query(df, cmd->addr, cmd->npages, bits);
	if (ret) {
		kvfree(bits);
		return ret;
	}
	*pbits = bits;
	return 0;
}

/*
 * Whether some page of the command's range has other than @want in the
 * @mask bits of its GPU page table entry (@found).
 */
static long dm_query_find(struct dm_file *df, struct hmm_dmirror_cmd *cmd,
			  u32 mask, u32 want, bool *found)
{
	u32 *bits;
	long ret;
	u64 i;

	ret = dm_query_alloc(df, cmd, &bits);
	if (ret)
		return ret;
	*found = false;
	for (i = 0; i < cmd->npages && !*found; i++)
		*found = (bits[i] & mask) != want;
	kvfree(bits);
	return 0;
}

static long dm_read_write(struct dm_file *df, struct hmm_dmirror_cmd *cmd,
			  bool write)
{
	u32 need = NVSVM_QUERY_VALID | (write ? NVSVM_QUERY_WRITE : 0);
	u64 size = cmd->npages << PAGE_SHIFT;
	u64 end = cmd->addr + size;
	bool missing;
	long ret;

	/* One device fault round when the GPU lacked some page. */
	ret = dm_query_find(df, cmd, need, need, &missing);
	if (ret)
		return ret;
	cmd->faults = missing;
	if (write)
		ret = dm_gpu_copy(df, cmd->addr, cmd->ptr, size, cmd->addr,
				  end);
	else
		ret = dm_gpu_copy(df, cmd->ptr, cmd->addr, size, cmd->addr,
				  end);
	if (!ret)
		cmd->cpages = cmd->npages;
	return ret;
}

#ifdef HMM_DMIRROR_READ_UNLOCKED
/*
 * dmirror's READ_UNLOCKED faults the range in with the mmap lock let go
 * during a fault (a userfaultfd handler may fill the pages), then reads:
 * nvsvm's MAP with NVSVM_MAP_FAULT, which waits for such a handler in the
 * caller's context, then READ.
 */
static long dm_read_unlocked(struct dm_file *df, struct hmm_dmirror_cmd *cmd)
{
	struct nvsvm_map map = {
		.addr = cmd->addr,
		.size = cmd->npages << PAGE_SHIFT,
		.flags = NVSVM_MAP_FAULT,
	};
	long ret;

	ret = dm_nv_call(df, NVSVM_IOCTL_MAP, &map, sizeof(map));
	if (ret)
		return ret;
	return dm_read_write(df, cmd, false);
}
#endif

/* EINVAL unless every page of the range is in a readable VMA. */
static long dm_check_vmas(u64 start, u64 end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	long ret = 0;
	u64 addr;

	mmap_read_lock(mm);
	for (addr = start; addr < end; addr = vma->vm_end) {
		vma = vma_lookup(mm, addr);
		if (!vma || !(vma->vm_flags & VM_READ)) {
			ret = -EINVAL;
			break;
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

static long dm_migrate(struct dm_file *df, struct hmm_dmirror_cmd *cmd,
		       u32 target)
{
	struct nvsvm_migrate m = {
		.addr = cmd->addr,
		.size = cmd->npages << PAGE_SHIFT,
		.target = target,
	};
	long ret;

	ret = dm_check_vmas(m.addr, m.addr + m.size);
	if (ret)
		return ret;
	ret = dm_nv_call(df, NVSVM_IOCTL_MIGRATE, &m, sizeof(m));
	if (ret)
		return ret;
	cmd->cpages = m.moved;
	return 0;
}

/*
 * As dmirror: after the migration the device reads the range back, and a
 * page not in this GPU's VRAM then (left in system memory, or in another
 * GPU's) is ENOENT. Pages already in its VRAM count as migrated: nvsvm's
 * moved counts only the pages this call moved.
 */
static long dm_migrate_to_dev(struct dm_file *df, struct hmm_dmirror_cmd *cmd)
{
	u32 want = NVSVM_QUERY_VALID | NVSVM_QUERY_VRAM;
	u64 size = cmd->npages << PAGE_SHIFT;
	bool missing;
	long ret;

	ret = dm_migrate(df, cmd, NVSVM_MIGRATE_TO_VRAM);
	if (!ret)
		ret = dm_gpu_copy(df, cmd->ptr, cmd->addr, size, cmd->addr,
				  cmd->addr + size);
	if (!ret)
		ret = dm_query_find(df, cmd, want, want, &missing);
	if (ret)
		return ret;
	if (missing)
		return -ENOENT;
	cmd->cpages = cmd->npages;
	return 0;
}

static long dm_exclusive(struct dm_file *df, struct hmm_dmirror_cmd *cmd)
{
	u64 size = cmd->npages << PAGE_SHIFT;
	u64 end = cmd->addr + size;
	struct nvsvm_exec ex;
	struct nvsvm_op *ops;
	u64 addr = cmd->addr;
	long ret = 0;
	u32 i, n;

	ops = kcalloc(NVSVM_EXEC_MAX_OPS, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	while (!ret && addr < end) {
		n = min_t(u64, (end - addr) >> PAGE_SHIFT, NVSVM_EXEC_MAX_OPS);
		memset(ops, 0, n * sizeof(*ops));
		for (i = 0; i < n; i++) {
			ops[i].code = NVSVM_OP_ATOMIC_ADD;
			ops[i].addr = addr + ((u64)i << PAGE_SHIFT);
		}
		ret = dm_exec(df, ops, n, &ex);
		if (!ret)
			ret = dm_exec_errno(&ex, cmd->addr, end);
		addr += (u64)n << PAGE_SHIFT;
	}
	kfree(ops);
	if (!ret)
		ret = dm_gpu_copy(df, cmd->ptr, cmd->addr, size, cmd->addr,
				  end);
	if (!ret)
		cmd->cpages = cmd->npages;
	return ret;
}

static long dm_check_exclusive(struct dm_file *df,
			       struct hmm_dmirror_cmd *cmd)
{
	bool atomic;
	long ret;

	if (!(df->caps & NVSVM_CAP_ATOMICS_EXCLUSIVE))
		return 0;
	ret = dm_query_find(df, cmd, NVSVM_QUERY_ATOMIC, 0, &atomic);
	if (!ret && atomic)
		ret = -EPERM;
	return ret;
}

/* HMM_DMIRROR_PROT_* of a page the GPU page tables have as @bits. */
static u8 dm_prot(struct mm_struct *mm, u64 addr, u32 bits)
{
	struct vm_area_struct *vma;
	unsigned int shift;
	u8 prot;

	if (!(bits & NVSVM_QUERY_VALID)) {
		/* hmm_range_fault(): an error without a readable VMA. */
		vma = vma_lookup(mm, addr);
		if (!vma || !(vma->vm_flags & VM_READ))
			return HMM_DMIRROR_PROT_ERROR;
		return HMM_DMIRROR_PROT_NONE;
	}
	prot = bits & NVSVM_QUERY_VRAM ? HMM_DMIRROR_PROT_DEV_PRIVATE_LOCAL : 0;
	prot |= bits & NVSVM_QUERY_WRITE ? HMM_DMIRROR_PROT_WRITE :
		HMM_DMIRROR_PROT_READ;
	if (bits & NVSVM_QUERY_ZERO)
		prot |= HMM_DMIRROR_PROT_ZERO;
	shift = NVSVM_QUERY_SHIFT(bits);
	if (shift == DM_PMD_SHIFT)
		prot |= HMM_DMIRROR_PROT_PMD;
	else if (shift == DM_PUD_SHIFT)
		prot |= HMM_DMIRROR_PROT_PUD;
	return prot;
}

static long dm_snapshot(struct dm_file *df, struct hmm_dmirror_cmd *cmd)
{
	struct nvsvm_map map = {
		.addr = cmd->addr,
		.size = cmd->npages << PAGE_SHIFT,
	};
	struct mm_struct *mm = current->mm;
	u32 *bits;
	u8 *prot;
	long ret;
	u64 i;

	/* Without NVSVM_MAP_FAULT: what the CPU has, with its permissions. */
	ret = dm_nv_call(df, NVSVM_IOCTL_MAP, &map, sizeof(map));
	if (ret)
		return ret;
	ret = dm_query_alloc(df, cmd, &bits);
	if (ret)
		return ret;
	prot = kvmalloc(cmd->npages, GFP_KERNEL);
	if (!prot) {
		kvfree(bits);
		return -ENOMEM;
	}
	mmap_read_lock(mm);
	for (i = 0; i < cmd->npages; i++)
		prot[i] = dm_prot(mm, cmd->addr + (i << PAGE_SHIFT), bits[i]);
	mmap_read_unlock(mm);
	if (copy_to_user(u64_to_user_ptr(cmd->ptr), prot, cmd->npages))
		ret = -EFAULT;
	else
		cmd->cpages = cmd->npages;
	kvfree(prot);
	kvfree(bits);
	return ret;
}

static long dm_ioctl(struct file *file, unsigned int command,
		     unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct dm_file *df = file->private_data;
	struct hmm_dmirror_cmd cmd;
	long ret;

	ret = dm_nv_open(df);
	if (ret)
		return ret;
	if (copy_from_user(&cmd, uarg, sizeof(cmd)))
		return -EFAULT;
#ifdef HMM_DMIRROR_FLAGS
	if (command == HMM_DMIRROR_FLAGS)
		return cmd.npages & ~HMM_DMIRROR_FLAG_FAIL_ALLOC ? -EINVAL : 0;
#endif
	if (!PAGE_ALIGNED(cmd.addr) || !cmd.npages ||
	    cmd.npages > (U64_MAX >> PAGE_SHIFT) ||
	    cmd.addr + (cmd.npages << PAGE_SHIFT) <= cmd.addr)
		return -EINVAL;
	cmd.cpages = 0;
	cmd.faults = 0;

	switch (command) {
#ifdef HMM_DMIRROR_READ_UNLOCKED
	case HMM_DMIRROR_READ_UNLOCKED:
		ret = dm_read_unlocked(df, &cmd);
		break;
#endif
	case HMM_DMIRROR_READ:
		ret = dm_read_write(df, &cmd, false);
		break;
	case HMM_DMIRROR_WRITE:
		ret = dm_read_write(df, &cmd, true);
		break;
	case HMM_DMIRROR_MIGRATE_TO_DEV:
		ret = dm_migrate_to_dev(df, &cmd);
		break;
	case HMM_DMIRROR_MIGRATE_TO_SYS:
	case HMM_DMIRROR_RELEASE:
		ret = dm_migrate(df, &cmd, NVSVM_MIGRATE_TO_SYSMEM);
		break;
	case HMM_DMIRROR_SNAPSHOT:
		ret = dm_snapshot(df, &cmd);
		break;
	case HMM_DMIRROR_EXCLUSIVE:
		ret = dm_exclusive(df, &cmd);
		break;
	case HMM_DMIRROR_CHECK_EXCLUSIVE:
		ret = dm_check_exclusive(df, &cmd);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	if (copy_to_user(uarg, &cmd, sizeof(cmd)))
		return -EFAULT;
	return 0;
}

static struct miscdevice dm_misc[DM_UNITS];

static int dm_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct dm_file *df;

	if (!current->mm)
		return -EINVAL;
	df = kzalloc(sizeof(*df), GFP_KERNEL);
	if (!df)
		return -ENOMEM;
	mutex_init(&df->lock);
	df->unit = misc - dm_misc;
	df->mm = current->mm;
	mmgrab(df->mm);
	file->private_data = df;
	return 0;
}

static int dm_release(struct inode *inode, struct file *file)
{
	struct dm_file *df = file->private_data;

	if (df->nv)
		fput(df->nv);
	mmdrop(df->mm);
	kfree(df);
	return 0;
}

/* As dmirror: the device file maps zeroed pages of its own. */
static int dm_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long addr;

	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		int ret;

		if (!page)
			return -ENOMEM;
		ret = vm_insert_page(vma, addr, page);
		put_page(page);
		if (ret)
			return ret;
	}
	return 0;
}

static const struct file_operations dm_fops = {
	.owner = THIS_MODULE,
	.open = dm_open,
	.release = dm_release,
	.mmap = dm_mmap,
	.unlocked_ioctl = dm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static const char *const dm_names[DM_UNITS] = {
	"hmm_dmirror0", "hmm_dmirror1",
};

static void dm_deregister(unsigned int n)
{
	while (n--)
		misc_deregister(&dm_misc[n]);
}

static int __init dm_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < DM_UNITS; i++) {
		dm_misc[i].minor = MISC_DYNAMIC_MINOR;
		dm_misc[i].name = dm_names[i];
		dm_misc[i].fops = &dm_fops;
		dm_misc[i].mode = 0666;
		ret = misc_register(&dm_misc[i]);
		if (ret) {
			dm_deregister(i);
			return ret;
		}
	}
	return 0;
}

static void __exit dm_exit(void)
{
	dm_deregister(DM_UNITS);
}

module_init(dm_init);
module_exit(dm_exit);
MODULE_DESCRIPTION("TEST ONLY: lib/test_hmm's /dev/hmm_dmirrorN served by nvsvm");
MODULE_LICENSE("GPL");
