// SPDX-License-Identifier: GPL-2.0
/*
 * File page-ins without the mm, for the fault path.
 *
 * hmm_range_fault() faults with FAULT_FLAG_REMOTE and without
 * FAULT_FLAG_ALLOW_RETRY: it holds the mmap lock, and its caller the mm's
 * users, across a file read. A read that a user's FUSE server holds
 * (FUSE's request_wait_answer() waits uninterruptibly once the server has
 * read the request) would then keep the whole address space of a killed
 * process until the server answers. So before the fault path asks hmm to
 * fault pages of a file mapping in, it finds them here under the mmap
 * lock (nvsvm_pagein_find(): the file and the page indices), lets the mm
 * go, and reads them into the page cache holding only the file
 * (nvsvm_pagein_read()). It keeps a reference on each folio read until
 * the hmm_range_fault() that maps it is done (nvsvm_pagein_release()):
 * that one finds the pages uptodate in the page cache and waits for no
 * file system. Shared memory (shmem), anonymous memory, DAX and hugetlbfs
 * are left to hmm: no user's server stands behind their page-ins.
 */
#include <linux/fs.h>
#include <linux/hmm.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>

#include "nvsvm_pagein.h"

/* A VMA whose page-ins read a regular file through the page cache. */
static bool nvsvm_pagein_vma(struct vm_area_struct *vma)
{
	struct file *file = vma->vm_file;
	struct address_space *mapping;

	if (!file || vma_is_anonymous(vma) || vma_is_dax(vma) ||
	    is_vm_hugetlb_page(vma) || shmem_file(file) ||
	    (vma->vm_flags & (VM_IO | VM_PFNMAP | VM_MIXEDMAP)) ||
	    !(vma->vm_flags & VM_READ) || !S_ISREG(file_inode(file)->i_mode))
		return false;
	mapping = file->f_mapping;
	return mapping && mapping->a_ops && mapping->a_ops->read_folio;
}

/*
 * @req asks hmm to fault the page at @addr in, or may: a page the density
 * prefetch added around reads (@req->fill without @req->fill_write) is
 * faulted in for reading where the CPU has nothing (nvsvm_mirror_fill()).
 */
static bool nvsvm_pagein_asked(const struct nvsvm_range_req *req, u64 addr)
{
	unsigned long i = (addr - req->base) >> PAGE_SHIFT;
	unsigned long flags = req->req ? req->req[i] : req->default_flags;

	if (flags & HMM_PFN_REQ_FAULT)
		return true;
	return req->fill && !req->fill_write && test_bit(i, req->fill);
}

/**
 * nvsvm_pagein_find() - the next file pages of a range to read
 * @mm: the address space; the caller holds a reference on its users
 * @req: the range (@req->start to @req->end) and what it asks of each page
 * @addr: (in/out) where to look from, in the range; on return, past the
 *	VMA of the pages found (the range's end when none were)
 * @pi: (out) @pi->file (referenced: nvsvm_pagein_read() drops it) and
 *	@pi->index: the pages of one file VMA at or after @addr that @req
 *	asks to fault in
 *
 * Takes the mmap lock for read.
 *
 * Return: true when pages were found.
 */
bool nvsvm_pagein_find(struct mm_struct *mm, const struct nvsvm_range_req *req,
		       u64 *addr, struct nvsvm_pagein *pi)
{
	struct vm_area_struct *vma;
	u64 a = *addr, end;

	pi->n = 0;
	mmap_read_lock(mm);
	while (a < req->end && !pi->n) {
		vma = find_vma(mm, a);
		if (!vma || vma->vm_start >= req->end) {
			a = req->end;
			break;
		}
		a = max_t(u64, a, vma->vm_start);
		end = min_t(u64, req->end, vma->vm_end);
		if (!nvsvm_pagein_vma(vma)) {
			a = end;
			continue;
		}
		for (; a < end; a += PAGE_SIZE)
			if (nvsvm_pagein_asked(req, a))
				pi->index[pi->n++] = vma->vm_pgoff +
					((a - vma->vm_start) >> PAGE_SHIFT);
		if (pi->n)
			pi->file = get_file(vma->vm_file);
	}
	mmap_read_unlock(mm);
	*addr = a;
	return pi->n;
}

/**
 * nvsvm_pagein_read() - read the pages nvsvm_pagein_find() found
 * @pi: the file and page indices; the file's reference is dropped
 *
 * Brings each page into the page cache (with the file's readahead) and
 * adds a reference on its folio to @pi->held. A page past the file's end
 * or that cannot be read is left to hmm_range_fault(), which fails on it
 * as the CPU's fault would.
 *
 * Context: process; the caller holds no mm, lock or reference anyone but
 * the file system waits for: this may wait as long as the file system
 * takes (a FUSE server that holds a READ).
 */
void nvsvm_pagein_read(struct nvsvm_pagein *pi)
{
	struct file *file = pi->file;
	struct address_space *mapping = file->f_mapping;
	pgoff_t size = DIV_ROUND_UP(i_size_read(file_inode(file)), PAGE_SIZE);
	struct folio *folio = NULL;
	unsigned int i;

	for (i = 0; i < pi->n && pi->nheld < ARRAY_SIZE(pi->held); i++) {
		pgoff_t index = pi->index[i];

		if (index >= size)
			break;
		/* Still in the large folio held last. */
		if (folio && index >= folio->index &&
		    index < folio->index + folio_nr_pages(folio))
			continue;
		folio = nvsvm_filemap_get_folio(mapping, index);
		if (folio && !folio_test_uptodate(folio)) {
			folio_put(folio);
			folio = NULL;
		}
		if (!folio) {
			page_cache_sync_readahead(mapping, &file->f_ra, file,
						  index,
						  pi->index[pi->n - 1] - index + 1);
			folio = read_mapping_folio(mapping, index, file);
			if (IS_ERR(folio))
				break;
		}
		pi->held[pi->nheld++] = folio;
	}
	pi->file = NULL;
	fput(file);
}

/**
 * nvsvm_pagein_release() - drop the folios nvsvm_pagein_read() held
 * @pi: the page-in
 */
void nvsvm_pagein_release(struct nvsvm_pagein *pi)
{
	while (pi->nheld)
		folio_put(pi->held[--pi->nheld]);
}
