// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers in the unmanaged window: driver memory mapped on the GPU at an
 * address of the area's window and, through mmap(2) of the file, on the
 * CPU at the same address (BUF_ALLOC, BUF_FREE).
 *
 * A buffer is zeroed system memory charged to the caller's memory cgroup.
 * Its handle in the file's table holds one reference, each CPU VMA one;
 * the pages go with the last (each page also has the references of the
 * CPU PTEs that map it). While the handle exists the buffer is mapped on
 * the GPU: BUF_FREE, AREA_FINI and close clear its PTEs, invalidate the
 * GPU TLB and release the DMA mappings (nvsvm_mirror_unmap_locked(), under
 * svmm->mutex) before the handle's reference goes. Nothing else writes
 * PTEs in the window: no notifier covers it, and MAP, UNMAP, MIGRATE, the
 * fault path and its prefetch stay out of it (nvsvm_svmm_managed()).
 *
 * mmap(2) of the file maps a buffer at its own address only: the file's
 * get_unmapped_area gives that address whatever the hint (EEXIST when
 * something is mapped there, unless MAP_FIXED replaces it), and checks
 * everything mmap will, so that a call that fails has unmapped nothing.
 *
 * Locks: the file's lock (held by BUF_ALLOC, BUF_FREE and area teardown)
 * serialises changes of the table and keeps the area; svmm->mutex is taken
 * inside it for the PTEs. mmap(2), under the mmap lock, only looks a handle
 * up under the table's xa_lock.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsvm_buf.h"
#include "nvsvm_core.h"
#include "nvsvm_mirror.h"
#include "nvsvm_vmm.h"

/**
 * struct nvsvm_buf - a buffer in the unmanaged window
 * @kref: the handle holds one, each CPU VMA one
 * @addr: GPU (and CPU) address
 * @size: bytes
 * @npages: pages in @pages
 * @pages: the buffer's pages, each with a reference of the buffer
 */
struct nvsvm_buf {
	struct kref kref;
	u64 addr;
	u64 size;
	unsigned long npages;
	struct page **pages;
};

static void nvsvm_buf_release(struct kref *kref)
{
	struct nvsvm_buf *buf = container_of(kref, struct nvsvm_buf, kref);
	unsigned long i;

	for (i = 0; i < buf->npages; i++)
		if (buf->pages[i])
			put_page(buf->pages[i]);
	kvfree(buf->pages);
	kfree(buf);
}

static void nvsvm_buf_put(struct nvsvm_buf *buf)
{
	kref_put(&buf->kref, nvsvm_buf_release);
}

/* Zeroed pages for @size bytes, charged to the caller's memory cgroup. */
static struct nvsvm_buf *nvsvm_buf_create(u64 addr, u64 size)
{
	struct nvsvm_buf *buf;
	unsigned long i;

	buf = kzalloc(sizeof(*buf), NVSVM_GFP_USER);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	kref_init(&buf->kref);
	buf->addr = addr;
	buf->size = size;
	buf->npages = size >> PAGE_SHIFT;
	buf->pages = kvcalloc(buf->npages, sizeof(*buf->pages),
			      NVSVM_GFP_USER | __GFP_NOWARN);
	if (!buf->pages) {
		kfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < buf->npages; i++) {
		if (fatal_signal_pending(current)) {
			nvsvm_buf_put(buf);
			return ERR_PTR(-EINTR);
		}
		buf->pages[i] = alloc_page(NVSVM_GFP_USER | __GFP_ZERO |
					   __GFP_NOWARN);
		if (!buf->pages[i]) {
			nvsvm_buf_put(buf);
			return ERR_PTR(-ENOMEM);
		}
		cond_resched();
	}
	return buf;
}

struct nvsvm_buf_map_ctx {
	struct nvsvm_svmm *svmm;
	struct nvsvm_buf *buf;
	int err;
};

/* The PTE of one page of the buffer: a DMA mapping of it. */
static u64 nvsvm_buf_pte(void *priv, u64 addr, unsigned int shift, u64 old)
{
	struct nvsvm_buf_map_ctx *ctx = priv;
	struct nvsvm_svmm *svmm = ctx->svmm;
	const struct nvsvm_vmm_desc *desc = svmm->vmm.desc;
	struct device *dev = svmm->ndev->gpu->dev;
	struct page *page;
	dma_addr_t dma;

	/* Mapped by an earlier pass (the walker retried after -ENOMEM). */
	if (old || ctx->err)
		return old;
	page = ctx->buf->pages[(addr - ctx->buf->addr) >> PAGE_SHIFT];
	dma = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, dma)) {
		ctx->err = -ENOMEM;
		return old;
	}
	nvsvm_stat_add(svmm->ndev, NVSVM_STAT_PAGES_MAPPED, 1);
	/* The CPU maps it too: GPU atomics only where the link is coherent. */
	return desc->pte(dma, NVSVM_PTE_VALID | NVSVM_PTE_WRITE |
			 (svmm->ndev->gpu->host_atomics ? NVSVM_PTE_ATOMIC : 0));
}

/*
 * Map @buf on the GPU with 4 KiB PTEs in @nf's area @svmm; the range
 * empty (inside the window, no other buffer there: nvsvm_buf_check() under
 * the file's lock, still held). On failure what was mapped is removed
 * again.
 */
static int nvsvm_buf_gpu_map(struct nvsvm_file *nf, struct nvsvm_svmm *svmm,
			     struct nvsvm_buf *buf)
{
	struct nvsvm_buf_map_ctx ctx = { .svmm = svmm, .buf = buf };
	u64 start = buf->addr, end = buf->addr + buf->size;
	u64 addr, next, shadowed = 0;
	int ret = 0;

	lockdep_assert_held(&nf->lock);

	for (addr = start; addr < end && !ret; addr = next) {
		next = min(ALIGN_DOWN(addr, NVSVM_RANGE_MAX_BYTES) +
			   NVSVM_RANGE_MAX_BYTES, end);
		for (;;) {
			ret = nvsvm_vmm_reserve(&svmm->vmm, addr, next);
			if (ret)
				break;
			mutex_lock(&svmm->mutex);
			ret = nvsvm_vmm_map(&svmm->vmm, addr, next, PAGE_SHIFT,
					    nvsvm_buf_pte, &ctx, &shadowed);
			mutex_unlock(&svmm->mutex);
			if (ret != -ENOMEM)
				break;
		}
		if (!ret)
			ret = ctx.err;
		/* Nothing maps the window but buffers, with small pages. */
		if (!ret && shadowed)
			ret = -EEXIST;
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		cond_resched();
	}
	if (ret) {
		mutex_lock(&svmm->mutex);
		nvsvm_mirror_unmap_locked(svmm, start, end);
		mutex_unlock(&svmm->mutex);
	}
	return ret;
}

/*
 * Can [@addr, @end) take a buffer? -EINVAL without an area or outside its
 * window, -EEXIST over another buffer.
 */
static int nvsvm_buf_check(struct nvsvm_file *nf, u64 addr, u64 end)
{
	struct nvsvm_svmm *svmm = nf->svmm;
	struct nvsvm_buf *other;
	unsigned long idx;

	lockdep_assert_held(&nf->lock);

	if (!svmm || addr < svmm->unmanaged_start || end > svmm->unmanaged_end)
		return -EINVAL;
	xa_for_each(&nf->bufs, idx, other)
		if (addr < other->addr + other->size && other->addr < end)
			return -EEXIST;
	return 0;
}

/**
 * nvsvm_ioctl_buf_alloc() - NVSVM_IOCTL_BUF_ALLOC
 * @nf: the file
 * @uarg: struct nvsvm_buf_alloc
 *
 * The pages are allocated (charged, zeroed) outside the file's lock, then
 * the range is checked again, the handle reserved, the pages mapped on
 * the GPU, and only then the handle made visible to mmap(2).
 *
 * Return: 0 with the handle and mmap offset written back; -EINVAL (bad
 * fields, no area, outside its window), -EEXIST (over another buffer),
 * -ENOMEM, -ENOSPC (handles), -EINTR, -EFAULT.
 */
long nvsvm_ioctl_buf_alloc(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_buf_alloc args;
	struct nvsvm_svmm *svmm;
	struct nvsvm_buf *buf;
	u64 end;
	u32 handle;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags || args.handle || args.mmap_offset ||
	    !PAGE_ALIGNED(args.addr) || !PAGE_ALIGNED(args.size) ||
	    !args.size || check_add_overflow(args.addr, args.size, &end))
		return -EINVAL;

	/* Check first: no allocation for a call that must fail. */
	mutex_lock(&nf->lock);
	ret = nvsvm_buf_check(nf, args.addr, end);
	mutex_unlock(&nf->lock);
	if (ret)
		return ret;

	buf = nvsvm_buf_create(args.addr, args.size);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	/* Again under the lock: the area or the table may have changed. */
	mutex_lock(&nf->lock);
	ret = nvsvm_buf_check(nf, args.addr, end);
	if (ret)
		goto out_put;
	svmm = nf->svmm;
	ret = xa_alloc(&nf->bufs, &handle, NULL,
		       XA_LIMIT(1, NVSVM_BUF_MAX), NVSVM_GFP_USER);
	if (ret == -EBUSY)
		ret = -ENOSPC;
	if (ret)
		goto out_put;
	ret = nvsvm_buf_gpu_map(nf, svmm, buf);
	if (ret) {
		xa_erase(&nf->bufs, handle);
		goto out_put;
	}
	/* Visible to mmap(2) from here: the reference is the table's. */
	xa_store(&nf->bufs, handle, buf, 0);
	mutex_unlock(&nf->lock);

	args.handle = handle;
	args.mmap_offset = (u64)handle << PAGE_SHIFT;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;	/* the buffer stays, as CHAN_CREATE's channel */
	return 0;

out_put:
	mutex_unlock(&nf->lock);
	nvsvm_buf_put(buf);
	return ret;
}

/* Off the GPU (its file's area @svmm), out of the table. */
static void nvsvm_buf_remove(struct nvsvm_file *nf, struct nvsvm_svmm *svmm,
			     u32 handle, struct nvsvm_buf *buf)
{
	lockdep_assert_held(&nf->lock);
	if (svmm) {
		mutex_lock(&svmm->mutex);
		nvsvm_mirror_unmap_locked(svmm, buf->addr,
					  buf->addr + buf->size);
		mutex_unlock(&svmm->mutex);
	}
	xa_erase(&nf->bufs, handle);
	nvsvm_buf_put(buf);
}

/**
 * nvsvm_ioctl_buf_free() - NVSVM_IOCTL_BUF_FREE
 * @nf: the file
 * @uarg: struct nvsvm_buf_free
 *
 * Return: 0 once the buffer is off the GPU and its handle gone; -EINVAL
 * for flags or an unknown handle, -EFAULT.
 */
long nvsvm_ioctl_buf_free(struct nvsvm_file *nf, void __user *uarg)
{
	struct nvsvm_buf_free args;
	struct nvsvm_buf *buf;
	long ret = -EINVAL;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags)
		return -EINVAL;
	mutex_lock(&nf->lock);
	buf = xa_load(&nf->bufs, args.handle);
	if (buf) {
		nvsvm_buf_remove(nf, nf->svmm, args.handle, buf);
		ret = 0;
	}
	mutex_unlock(&nf->lock);
	return ret;
}

/**
 * nvsvm_buf_fini_all() - drop every buffer of a file whose area goes
 * @nf: the file, its lock held
 * @svmm: its area, still whole (PTEs, notifiers), or NULL when gone
 *
 * Each buffer leaves the GPU (PTEs cleared, TLB invalidated, DMA mappings
 * released) before its handle's reference goes; CPU mappings keep their
 * pages until they go.
 */
void nvsvm_buf_fini_all(struct nvsvm_file *nf, struct nvsvm_svmm *svmm)
{
	struct nvsvm_buf *buf;
	unsigned long handle;

	lockdep_assert_held(&nf->lock);
	xa_for_each(&nf->bufs, handle, buf)
		nvsvm_buf_remove(nf, svmm, handle, buf);
}

static void nvsvm_buf_vm_open(struct vm_area_struct *vma)
{
	struct nvsvm_buf *buf = vma->vm_private_data;

	kref_get(&buf->kref);
}

static void nvsvm_buf_vm_close(struct vm_area_struct *vma)
{
	nvsvm_buf_put(vma->vm_private_data);
}

/* The CPU and the GPU see a buffer at the same address: it never moves. */
static int nvsvm_buf_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static vm_fault_t nvsvm_buf_vm_fault(struct vm_fault *vmf)
{
	struct nvsvm_buf *buf = vmf->vma->vm_private_data;
	u64 i = (vmf->address - buf->addr) >> PAGE_SHIFT;

	if (vmf->address < buf->addr || i >= buf->npages)
		return VM_FAULT_SIGBUS;
	vmf->page = buf->pages[i];
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct nvsvm_buf_vm_ops = {
	.open = nvsvm_buf_vm_open,
	.close = nvsvm_buf_vm_close,
	.mremap = nvsvm_buf_vm_mremap,
	.fault = nvsvm_buf_vm_fault,
};

/**
 * nvsvm_buf_get_unmapped_area() - where mmap(2) of /dev/nvsvmN maps: the
 *	buffer's own address
 * @file: the file
 * @addr: the caller's address: a hint, or with MAP_FIXED the address
 * @len: bytes, page aligned
 * @pgoff: the buffer's mmap_offset in pages
 * @flags: mmap(2)'s flags (MAP_FIXED for MAP_FIXED_NOREPLACE and mremap(2)
 *	to a fixed address too)
 *
 * Called under the mmap lock before mmap(2) unmaps anything for MAP_FIXED:
 * the checks of nvsvm_buf_mmap() are made here first, so that a call that
 * must fail leaves the caller's mappings as they were. Without MAP_FIXED
 * the hint does not matter: the buffer can only be at its address.
 *
 * Return: the buffer's address; -EPERM from another address space than
 * the opener's; -EINVAL for a private mapping, an unknown offset, another
 * size than the buffer's, or MAP_FIXED at another address; -EEXIST without
 * MAP_FIXED when something is mapped in the buffer's range.
 */
unsigned long nvsvm_buf_get_unmapped_area(struct file *file,
					  unsigned long addr, unsigned long len,
					  unsigned long pgoff,
					  unsigned long flags)
{
	struct nvsvm_file *nf = file->private_data;
	u64 start = 0, size = 0;
	struct nvsvm_buf *buf;

	if (current->mm != nf->mm)
		return -EPERM;
	if ((flags & MAP_TYPE) == MAP_PRIVATE || pgoff > U32_MAX)
		return -EINVAL;
	/* The address and size of a buffer never change. */
	xa_lock(&nf->bufs);
	buf = xa_load(&nf->bufs, pgoff);
	if (buf) {
		start = buf->addr;
		size = buf->size;
	}
	xa_unlock(&nf->bufs);
	if (!buf || len != size)
		return -EINVAL;
	if (flags & MAP_FIXED)
		return addr == start ? addr : -EINVAL;
	if (find_vma_intersection(current->mm, start, start + size))
		return -EEXIST;
	return start;
}

/**
 * nvsvm_buf_mmap() - mmap(2) of /dev/nvsvmN: a buffer on the CPU
 * @file: the file
 * @vma: the new mapping: MAP_SHARED, at the buffer's address, its size,
 *	offset the buffer's mmap_offset
 *
 * Called with the mmap lock held for write: the handle is looked up under
 * the table's xa_lock only. The VMA holds a reference on the buffer; its
 * pages are mapped on CPU faults.
 *
 * Return: 0; -EPERM from another address space than the opener's,
 * -EINVAL for an unknown offset, a private mapping, another address or
 * size than the buffer's.
 */
int nvsvm_buf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct nvsvm_file *nf = file->private_data;
	struct nvsvm_buf *buf;

	nvsvm_mmap_assert_write_locked(vma->vm_mm);
	if (vma->vm_mm != nf->mm)
		return -EPERM;
	/* VM_MAYSHARE: MAP_SHARED, also of a file opened read-only. */
	if (!(vma->vm_flags & VM_MAYSHARE) || vma->vm_pgoff > U32_MAX)
		return -EINVAL;
	xa_lock(&nf->bufs);
	buf = xa_load(&nf->bufs, vma->vm_pgoff);
	if (buf && vma->vm_start == buf->addr &&
	    vma->vm_end - vma->vm_start == buf->size)
		kref_get(&buf->kref);
	else
		buf = NULL;
	xa_unlock(&nf->bufs);
	if (!buf)
		return -EINVAL;
	nvsvm_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = buf;
	vma->vm_ops = &nvsvm_buf_vm_ops;
	return 0;
}
