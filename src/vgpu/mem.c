// SPDX-License-Identifier: GPL-2.0
/*
 * Physical memory as the virtual GP100 sees it: video memory (its own pages,
 * addressed from 0 in the video-memory aperture) and system memory (any
 * valid page frame). An address that reaches no page is reported to the
 * caller, which turns it into a fault: the model never dereferences it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "vgpu.h"

/**
 * vgpu_vram_init() - allocate video memory
 * @vgpu: the GPU
 * @size: bytes, a multiple of PAGE_SIZE
 *
 * Allocated as single zeroed pages so that no large contiguous block is
 * needed.
 *
 * Return: 0 or -ENOMEM.
 */
int vgpu_vram_init(struct vgpu *vgpu, u64 size)
{
	unsigned long i, n = size >> PAGE_SHIFT;

	vgpu->vram = kvcalloc(n, sizeof(*vgpu->vram), GFP_KERNEL);
	if (!vgpu->vram)
		return -ENOMEM;
	vgpu->vram_size = size;
	for (i = 0; i < n; i++) {
		vgpu->vram[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!vgpu->vram[i]) {
			vgpu_vram_fini(vgpu);
			return -ENOMEM;
		}
		cond_resched();
	}
	return 0;
}

/**
 * vgpu_vram_fini() - free video memory
 * @vgpu: the GPU
 */
void vgpu_vram_fini(struct vgpu *vgpu)
{
	unsigned long i, n = vgpu->vram_size >> PAGE_SHIFT;

	if (!vgpu->vram)
		return;
	for (i = 0; i < n; i++)
		if (vgpu->vram[i])
			__free_page(vgpu->vram[i]);
	kvfree(vgpu->vram);
	vgpu->vram = NULL;
	vgpu->vram_size = 0;
}

/**
 * vgpu_vram_rw() - copy between video memory and a kernel buffer
 * @vgpu: the GPU
 * @off: byte offset in video memory
 * @buf: kernel buffer
 * @len: bytes
 * @write: copy @buf to video memory (else from it)
 *
 * For engines of the model (a copy engine, tests); not ordered against GPC
 * accesses beyond what each byte copy gives.
 *
 * Return: 0, or -EINVAL when the range is outside video memory.
 */
int vgpu_vram_rw(struct vgpu *vgpu, u64 off, void *buf, size_t len,
		 bool write)
{
	if (off >= vgpu->vram_size || len > vgpu->vram_size - off)
		return -EINVAL;

	while (len) {
		size_t in = offset_in_page(off);
		size_t n = min_t(size_t, len, PAGE_SIZE - in);
		void *va = kmap_local_page(vgpu->vram[off >> PAGE_SHIFT]);

		if (write)
			memcpy(va + in, buf, n);
		else
			memcpy(buf, va + in, n);
		kunmap_local(va);
		off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/**
 * vgpu_copy() - the copy engine: move bytes between video and system memory
 * @gpu: the GPU
 * @vram: byte offset in video memory
 * @sys: system memory address (DMA address; physical on this model)
 * @len: bytes, at most a page, crossing no page boundary on either side
 * @to_vram: copy system memory to video memory (else the reverse)
 *
 * The core calls it for pages no GPU PTE maps (a page being migrated), so
 * no GPC access races with the copy.
 *
 * Return: 0, -EINVAL when a side reaches no memory or @len is too long, or
 * -EIO while the debugfs copy_fail count (fault injection) is positive.
 */
int vgpu_copy(struct nvsvm_gpu *gpu, u64 vram, dma_addr_t sys, u32 len,
	      bool to_vram)
{
	struct vgpu *vgpu = to_vgpu(gpu);
	struct page *vpage, *spage;
	void *v, *s;

	if (!len || len > PAGE_SIZE || offset_in_page(vram) + len > PAGE_SIZE ||
	    offset_in_page(sys) + len > PAGE_SIZE)
		return -EINVAL;
	vpage = vgpu_mem_page(vgpu, VGPU_MEM_VRAM, vram);
	spage = vgpu_mem_page(vgpu, VGPU_MEM_SYS, sys);
	if (!vpage || !spage)
		return -EINVAL;
	if (atomic_dec_if_positive(&vgpu->copy_fail) >= 0)
		return -EIO;
	v = kmap_local_page(vpage);
	s = kmap_local_page(spage);
	if (to_vram)
		memcpy(v + offset_in_page(vram), s + offset_in_page(sys), len);
	else
		memcpy(s + offset_in_page(sys), v + offset_in_page(vram), len);
	kunmap_local(s);
	kunmap_local(v);
	atomic64_inc(&vgpu->ctr.copies);
	return 0;
}

/**
 * vgpu_mem_page() - the page behind a physical address
 * @vgpu: the GPU
 * @mem: aperture class
 * @pa: physical address (video memory offset for VGPU_MEM_VRAM)
 *
 * Return: the page holding @pa, or NULL if @pa reaches no memory.
 */
struct page *vgpu_mem_page(struct vgpu *vgpu, enum vgpu_mem mem, u64 pa)
{
	unsigned long pfn;

	switch (mem) {
	case VGPU_MEM_VRAM:
		if (pa >= vgpu->vram_size)
			return NULL;
		return vgpu->vram[pa >> PAGE_SHIFT];
	case VGPU_MEM_SYS:
		pfn = PHYS_PFN(pa);
		if ((u64)PFN_PHYS(pfn) != (pa & PAGE_MASK) || !pfn_valid(pfn))
			return NULL;
		return pfn_to_page(pfn);
	default:
		return NULL;
	}
}

/**
 * vgpu_mem_read64() - read a little-endian 64-bit word of physical memory
 * @vgpu: the GPU
 * @mem: aperture class
 * @pa: physical address, 8-byte aligned
 * @val: the value read
 *
 * Used for page tables and instance blocks, which the driver updates with
 * single 64-bit stores.
 *
 * Return: 0, or -EFAULT if @pa reaches no memory.
 */
int vgpu_mem_read64(struct vgpu *vgpu, enum vgpu_mem mem, u64 pa, u64 *val)
{
	struct page *page = vgpu_mem_page(vgpu, mem, pa);
	__le64 *p;

	if (!page || (pa & 7))
		return -EFAULT;
	p = kmap_local_page(page) + offset_in_page(pa);
	*val = le64_to_cpu(READ_ONCE(*p));
	kunmap_local(p);
	return 0;
}
