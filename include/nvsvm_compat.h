/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for differences between kernel versions. Force-included in
 * every object by Kbuild, before any other header: what follows is macros
 * only, expanded where the sources use them, after their own includes.
 *
 * Each difference is tested by feature, not by version, because a
 * distribution may backport the change: Kbuild compiles src/probes/NAME.c
 * against the target kernel and defines NVSVM_HAVE_<NAME> when it
 * compiles. Each entry names the upstream version and commit that made
 * the change. Supported: Debian 12's 6.1, 6.12 (bookworm-backports,
 * Debian 13) and 7.3 (trixie-backports).
 */
#ifndef _NVSVM_COMPAT_H
#define _NVSVM_COMPAT_H

#include <linux/kconfig.h>
#include <linux/version.h>

/*
 * The oldest kernel supported is Debian 12's 6.1 (dkms.conf's
 * BUILD_EXCLUSIVE_KERNEL says the same to DKMS). The only version test:
 * what follows is tested by feature.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "nvsvm needs Linux 6.1 or later (Debian 12's kernel or newer)"
#endif

/*
 * Device-private memory (src/dmem.c) needs ZONE_DEVICE pages of type
 * MEMORY_DEVICE_PRIVATE and migrate_vma_*()/migrate_device_*(): the kernel
 * must have CONFIG_DEVICE_PRIVATE (which selects GET_FREE_REGION) and
 * CONFIG_DEVICE_MIGRATION. Debian's stock 6.1 has the latter only; there
 * the code is compiled but dead (IS_ENABLED() is false, so no reference
 * to a symbol the kernel lacks survives), and MIGRATE fails with
 * EOPNOTSUPP. migrate_device_range() (used to evict VRAM at unregister)
 * is in 6.1 from 6.1.y stable on.
 */
#define NVSVM_HAVE_DEVICE_PRIVATE \
	(IS_ENABLED(CONFIG_DEVICE_PRIVATE) && IS_ENABLED(CONFIG_DEVICE_MIGRATION))

/*
 * 5.14, b756a3b5e7ea ("mm: device exclusive memory access"):
 * make_device_exclusive_range() (make_device_exclusive() from 6.15, below)
 * is built with CONFIG_DEVICE_PRIVATE alone (mm/rmap.c). Where it exists,
 * a GPU atomic on system memory takes its page for exclusive device
 * access (src/atomic.c, nvsvm_mirror_atomic()); Debian's stock kernels
 * lack it, and atomics follow the link's coherence there.
 */
#define NVSVM_HAVE_DEVICE_EXCLUSIVE	IS_ENABLED(CONFIG_DEVICE_PRIVATE)

/*
 * 6.11, 0edb555a65d1 ("platform: Make platform_driver::remove() return
 * void"): before it,
 * remove() returns int. NVSVM_PLATFORM_REMOVE(fn) sets .remove to a void
 * fn, through an int wrapper that NVSVM_DEFINE_PLATFORM_REMOVE(fn)
 * defines on older kernels.
 */
#ifdef NVSVM_HAVE_PLATFORM_REMOVE_VOID
#define NVSVM_DEFINE_PLATFORM_REMOVE(fn)
#define NVSVM_PLATFORM_REMOVE(fn) .remove = fn
#else
#define NVSVM_DEFINE_PLATFORM_REMOVE(fn)				\
	static int fn##_int(struct platform_device *pdev)		\
	{								\
		fn(pdev);						\
		return 0;						\
	}
#define NVSVM_PLATFORM_REMOVE(fn) .remove = fn##_int
#endif

/*
 * 6.5, ca5e863233e8 ("mm/gup: remove vmas parameter from
 * get_user_pages_remote()").
 */
#ifdef NVSVM_HAVE_GUP_REMOTE_NO_VMAS
#define nvsvm_get_user_pages_remote(mm, start, n, flags, pages, locked) \
	get_user_pages_remote(mm, start, n, flags, pages, locked)
#else
#define nvsvm_get_user_pages_remote(mm, start, n, flags, pages, locked) \
	get_user_pages_remote(mm, start, n, flags, pages, NULL, locked)
#endif

/*
 * 6.15, 82ba975e4c43 ("mm: allow compound zone device pages"): the pgmap
 * of a ZONE_DEVICE page moved from struct page to the folio, read with
 * page_pgmap().
 */
#ifndef NVSVM_HAVE_PAGE_PGMAP
#define page_pgmap(page) ((page)->pgmap)
#endif

/*
 * 6.15, 599b684a7854 ("mm/rmap: convert make_device_exclusive_range() to
 * make_device_exclusive()"): one page, retried inside on a lost race.
 * nvsvm_make_device_exclusive(mm, addr, owner) takes the page at @addr
 * for exclusive device access and returns it locked and referenced; NULL
 * when a race was lost (older kernels), or an ERR_PTR(). The mmap lock
 * is held for read.
 */
#ifdef NVSVM_HAVE_MAKE_DEVICE_EXCLUSIVE
#define nvsvm_make_device_exclusive(mm, addr, owner) ({		\
	struct folio *folio_;						\
	make_device_exclusive(mm, addr, owner, &folio_);		\
})
#else
#define nvsvm_make_device_exclusive(mm, addr, owner) ({		\
	unsigned long addr_ = (addr);					\
	struct page *page_ = NULL;					\
	int n_ = make_device_exclusive_range(mm, addr_, addr_ + PAGE_SIZE, \
					     &page_, owner);		\
	n_ < 0 ? ERR_PTR(n_) : n_ ? page_ : NULL;			\
})
#endif

/*
 * 6.15's make_device_exclusive() (599b684a7854, above) takes one page of
 * a PTE-mapped large folio (a THP whose PMD was split);
 * make_device_exclusive_range() before it refuses a tail page and takes a
 * head page only with every PTE of the folio. NVSVM_EXCLUSIVE_LARGE_FOLIO:
 * a page of a large folio can be taken alone.
 */
#ifdef NVSVM_HAVE_MAKE_DEVICE_EXCLUSIVE
#define NVSVM_EXCLUSIVE_LARGE_FOLIO	1
#else
#define NVSVM_EXCLUSIVE_LARGE_FOLIO	0
#endif

/*
 * After 6.12 (7.3 has them; the exact release is not checked here),
 * 3a5a06554566 ("mm/zone_device: rename page_free callback to folio_free")
 * and d245f9b4ab80 ("mm/zone_device: support large zone device private
 * folios") (the device-private THP series): dev_pagemap_ops frees a
 * folio, and zone_device_page_init() takes the pgmap and an order.
 * NVSVM_PAGEMAP_FREE(fn) sets the free callback to a fn(struct page *),
 * through a folio wrapper that NVSVM_DEFINE_PAGEMAP_FREE(fn) defines on
 * newer kernels, which passes the folio's head page (fn reads the order
 * from its folio); nvsvm_zone_device_page_init() makes an order-0 page.
 */
#ifdef NVSVM_HAVE_FOLIO_FREE
#define NVSVM_DEFINE_PAGEMAP_FREE(fn)					\
	static void fn##_folio(struct folio *folio)			\
	{								\
		fn(&folio->page);					\
	}
#define NVSVM_PAGEMAP_FREE(fn) .folio_free = fn##_folio
#else
#define NVSVM_DEFINE_PAGEMAP_FREE(fn)
#define NVSVM_PAGEMAP_FREE(fn) .page_free = fn
#endif

#ifdef NVSVM_HAVE_ZONE_DEVICE_PAGE_INIT_ORDER
#define nvsvm_zone_device_page_init(page, pgmap) \
	zone_device_page_init(page, pgmap, 0)
#else
#define nvsvm_zone_device_page_init(page, pgmap) zone_device_page_init(page)
#endif

/*
 * After 6.12 (7.3 has it), the device-private THP series above (d245f9b4ab80
 * and the migrate_vma changes with it): with MIGRATE_VMA_SELECT_COMPOUND,
 * migrate_vma_setup() collects a 2 MiB-aligned, PMD-mapped THP, a
 * device-private PMD or an empty aligned 2 MiB as one entry flagged
 * MIGRATE_PFN_COMPOUND; a destination flagged so is one order-9 folio,
 * made for device memory by zone_device_folio_init(), and is mapped by
 * one PMD; migrate_device_range() collects a large device folio the same
 * way, and hmm_range_fault() reports a device-private PMD with map order
 * 9. The kernel moves PMD migration entries only with
 * thp_migration_supported(). NVSVM_DMEM_LARGE: nvsvm's VRAM pages may be
 * 2 MiB folios (src/dmem.c); without it every VRAM page is 4 KiB and the
 * COMPOUND flags are 0, so that a THP is split by the move as before.
 * nvsvm_vma_alloc_folio() is vma_alloc_folio() of those kernels (its
 * arguments changed before them), NULL before. nvsvm_migrate_device_pfns()
 * is migrate_device_pfns() (src/dmem.c evicts with it where VRAM folios
 * may be large; it is not called elsewhere).
 *
 * A freed 2 MiB device folio keeps its head page's compound state until
 * that page is handed out again, and migrate_device_range() reads the
 * order of every page it meets, free or not: over a chunk whose head page
 * is free but a later page was handed out alone it would skip that page.
 * So an eviction there lists the pages in use (migrate_device_pfns()),
 * whose state is current.
 */
#ifdef NVSVM_HAVE_MIGRATE_VMA_SELECT_COMPOUND
#define NVSVM_DMEM_LARGE \
	(NVSVM_HAVE_DEVICE_PRIVATE && thp_migration_supported())
#define NVSVM_MIGRATE_VMA_SELECT_COMPOUND	MIGRATE_VMA_SELECT_COMPOUND
#define NVSVM_MIGRATE_PFN_COMPOUND		MIGRATE_PFN_COMPOUND
#define nvsvm_zone_device_folio_init(page, pgmap, order) \
	zone_device_folio_init(page_folio(page), pgmap, order)
#define nvsvm_vma_alloc_folio(gfp, order, vma, addr) \
	vma_alloc_folio(gfp, order, vma, addr)
#define nvsvm_migrate_device_pfns(src, n)	migrate_device_pfns(src, n)
#else
#define NVSVM_DMEM_LARGE			0
#define NVSVM_MIGRATE_VMA_SELECT_COMPOUND	0
#define NVSVM_MIGRATE_PFN_COMPOUND		0
#define nvsvm_zone_device_folio_init(page, pgmap, order) \
	nvsvm_zone_device_page_init(page, pgmap)
#define nvsvm_vma_alloc_folio(gfp, order, vma, addr) \
	((void)(vma), (void)(addr), (struct folio *)NULL)
#define nvsvm_migrate_device_pfns(src, n) \
	do { (void)(src); (void)(n); } while (0)
#endif

/*
 * 6.3, bc292ab00f6c ("mm: introduce vma->vm_flags wrapper functions"),
 * made vma->vm_flags read-only: changes go through vm_flags_set().
 */
#ifdef NVSVM_HAVE_VM_FLAGS_SET
#define nvsvm_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#else
#define nvsvm_vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#endif

/*
 * 6.3, 66dabbb65d67 ("mm: return an ERR_PTR from __filemap_get_folio"):
 * filemap_get_folio() returns ERR_PTR(-ENOENT) for a page not in the page
 * cache, where it returned NULL before. nvsvm_filemap_get_folio() returns
 * NULL for it on both; the two conventions are told apart by the value,
 * without a probe.
 */
#define nvsvm_filemap_get_folio(mapping, index) ({			\
	struct folio *__nvsvm_folio = filemap_get_folio(mapping, index);\
									\
	IS_ERR(__nvsvm_folio) ? NULL : __nvsvm_folio;			\
})

/*
 * The unbound system workqueue (src/dmem.c's background evictor): newer
 * kernels (6.12's stable series among them) also name it system_dfl_wq,
 * and 7.3 warns once that system_unbound_wq is deprecated when work is
 * queued on it; 6.1 has only system_unbound_wq.
 * nvsvm_system_dfl_wq is the one the kernel has.
 */
#ifdef NVSVM_HAVE_SYSTEM_DFL_WQ
#define nvsvm_system_dfl_wq	system_dfl_wq
#else
#define nvsvm_system_dfl_wq	system_unbound_wq
#endif

/*
 * mmap_assert_locked() and mmap_assert_write_locked() call dump_mm() under
 * CONFIG_DEBUG_VM, which mm/debug.c exports to modules only after 6.1
 * (7.3 does). nvsvm_mmap_assert_locked(mm) and
 * nvsvm_mmap_assert_write_locked(mm) assert the same through lockdep
 * alone, on every kernel.
 */
#define nvsvm_mmap_assert_locked(mm)	lockdep_assert_held(&(mm)->mmap_lock)
#define nvsvm_mmap_assert_write_locked(mm) \
	lockdep_assert_held_write(&(mm)->mmap_lock)

#endif /* _NVSVM_COMPAT_H */
