/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nvsvm: shared virtual memory between a process and an NVIDIA Pascal GPU.
 *
 * Each GPU appears as /dev/nvsvmN. An open file is bound to the address
 * space (mm) of the process that opened it: every ioctl except
 * NVSVM_IOCTL_GET_INFO fails with EPERM when called from another address
 * space (a forked child, or a process that received the fd over a socket).
 * A process can therefore only ever make its own memory visible to the GPU.
 *
 * Life of a file:
 *  1. NVSVM_IOCTL_AREA_INIT mirrors the caller's address space on the GPU,
 *     except an "unmanaged window" kept for driver-managed buffers. Once per
 *     file (EBUSY after), until NVSVM_IOCTL_AREA_FINI or close.
 *  2. Channels (work submission queues) are created with
 *     NVSVM_IOCTL_CHAN_CREATE; with NVSVM_CHAN_JOIN_AREA their GPU page
 *     directory is the area's, so any valid CPU pointer is a valid GPU
 *     pointer. GPU accesses to unmapped addresses raise replayable faults
 *     that the driver serves by asking HMM for the CPU pages.
 *  3. NVSVM_IOCTL_MAP/UNMAP fill or clear the GPU page tables ahead of time;
 *     NVSVM_IOCTL_QUERY reports what the GPU page tables say.
 *  4. NVSVM_IOCTL_BUF_ALLOC puts a buffer of driver memory in the window,
 *     mapped on the GPU and, through mmap(2) of the file, on the CPU at
 *     the same address; NVSVM_IOCTL_BUF_FREE drops it.
 *  5. Work runs on the channels through the GPU's own driver (nouveau for
 *     a real Pascal). The virtual GP100 adds its test instruction set,
 *     NVSVM_IOCTL_EXEC, in uapi/nvsvm_vgpu.h (NVSVM_CAP_EXEC).
 *
 * Conventions: every struct has fixed-width fields; user pointers travel as
 * __u64; fields marked (in) are read, (out) are written, (in/out) both.
 * Reserved fields and flags bits must be zero (EINVAL otherwise), and so
 * must the results MAP, CHAN_CREATE and BUF_ALLOC write back
 * (nvsvm_map.mapped, nvsvm_chan_create.handle, nvsvm_buf_alloc.handle and
 * .mmap_offset), on input. The
 * ioctl number encodes the struct size: a mismatch fails with EINVAL, an
 * unknown number with ENOTTY. Addresses and sizes are bytes, page aligned
 * (4 KiB), non-wrapping and below 1 << va_bits (EINVAL otherwise). Numbers
 * of NVSVM_IOCTL_BASE not defined here belong to the GPU's provider: 0x08
 * and 0x20 are the virtual GP100's EXEC and LAUNCH (uapi/nvsvm_vgpu.h); on
 * a GPU whose provider has none they fail with ENOTTY like any unknown
 * number. Once
 * the GPU is gone (its device unbound or unplugged while the file is
 * open), every ioctl fails with ENODEV; close still works.
 * No physical address or pfn ever crosses this interface.
 *
 * Kernel memory: what a file makes the driver allocate (the file, its
 * area, GPU page tables, channels and their instance blocks, window
 * buffers, per-call buffers) is charged to the memory cgroup of the
 * process that opened it, page tables too when the fault handler
 * allocates them. Beyond the
 * cgroup's memory.max the call fails with ENOMEM instead of invoking the
 * OOM killer (a GPU fault whose page tables cannot be had is replayed and
 * faults again). A file holds at most NVSVM_CHAN_MAX_DEFAULT channels, or
 * what the module parameter nvsvm.max_channels says (ENOSPC beyond).
 */
#ifndef _UAPI_NVSVM_H
#define _UAPI_NVSVM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NVSVM_API_VERSION		1

/* Capability flags reported by GET_INFO. */
#define NVSVM_CAP_DEVICE_PRIVATE	(1U << 0) /* MIGRATE to VRAM works */
#define NVSVM_CAP_ATOMICS		(1U << 1) /* the engine runs atomics */
#define NVSVM_CAP_EXEC			(1U << 2) /* nvsvm_vgpu.h: EXEC works */
#define NVSVM_CAP_REPLAYABLE_FAULTS	(1U << 3) /* fault buffer present */
/*
 * With NVSVM_CAP_ATOMICS: GPU mappings have atomics disabled until a GPU
 * atomic takes the page for exclusive device access, which a CPU access
 * revokes (kernels with make_device_exclusive_range()). Without it, GPU
 * atomics follow write permission.
 */
#define NVSVM_CAP_ATOMICS_EXCLUSIVE	(1U << 4)
/*
 * GPU atomics on system memory. A Pascal on PCIe has no atomic operation
 * on host memory that the CPU respects: its atomic there is a read and a
 * write, and a CPU (or other GPU) update in between is lost. nvsvm lets
 * the GPU do an atomic on system memory only where it is exact against
 * the CPU; elsewhere the atomic is cancelled: EXEC ends with status
 * NVSVM_EXEC_FAULT, fault_access NVSVM_ACCESS_ATOMIC (uapi/nvsvm_vgpu.h).
 * NVSVM_CAP_SYSMEM_ATOMICS: exact on private anonymous memory (malloc,
 * the stack): the page is taken for exclusive device access, or moved to
 * VRAM, or the link is coherent for atomics. NVSVM_CAP_SYSMEM_ATOMICS_ALL:
 * exact on every writable mapping, shared and file-backed ones too (a link
 * coherent for atomics). Without either (Debian's stock kernels on PCIe)
 * every GPU atomic on system memory is cancelled. Window buffers
 * (BUF_ALLOC) are system memory the CPU maps too: atomics on them need
 * NVSVM_CAP_SYSMEM_ATOMICS_ALL. Atomics on VRAM (pages MIGRATE moved
 * there) are exact in every case.
 */
#define NVSVM_CAP_SYSMEM_ATOMICS	(1U << 5)
#define NVSVM_CAP_SYSMEM_ATOMICS_ALL	(1U << 6)
/*
 * NVSVM_CAP_VRAM_2M: with NVSVM_CAP_DEVICE_PRIVATE, MIGRATE to VRAM moves a
 * 2 MiB-aligned THP (or an untouched aligned 2 MiB) as one 2 MiB page of
 * VRAM, which the GPU maps with one 2 MiB PTE, when a whole 2 MiB chunk of
 * VRAM is free, and it comes back as a THP; the kernel has large
 * device-private folios (7.3). Clear: VRAM pages are 4 KiB.
 */
#define NVSVM_CAP_VRAM_2M		(1U << 7)

/**
 * struct nvsvm_get_info - describe the GPU
 * @api_version: (out) NVSVM_API_VERSION
 * @chipset: (out) PMC_BOOT_0 chipset field (0x130 for GP100)
 * @va_bits: (out) GPU virtual address bits (49)
 * @caps: (out) NVSVM_CAP_* flags
 * @page_sizes: (out) bit mask of supported GPU page sizes (1 << shift)
 * @vram_size: (out) bytes of device memory
 * @fault_buffer_entries: (out) replayable fault buffer entries
 * @gpc_count: (out) graphics processing clusters
 * @reserved: (out) zero
 */
struct nvsvm_get_info {
	__u32 api_version;
	__u32 chipset;
	__u32 va_bits;
	__u32 caps;
	__u64 page_sizes;
	__u64 vram_size;
	__u32 fault_buffer_entries;
	__u32 gpc_count;
	__u64 reserved[4];
};

/**
 * struct nvsvm_area_init - mirror the caller's address space
 * @unmanaged_addr: (in) start of the unmanaged window (page aligned)
 * @unmanaged_size: (in) size of the window; may be 0. The window must end
 *	at or below 1 << 40.
 * @flags: (in) zero
 * @reserved: (in) zero
 */
struct nvsvm_area_init {
	__u64 unmanaged_addr;
	__u64 unmanaged_size;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct nvsvm_area_fini - stop mirroring; joined channels lose all access
 * @flags: (in) zero
 * @reserved: (in) zero
 */
struct nvsvm_area_fini {
	__u32 flags;
	__u32 reserved;
};

#define NVSVM_MAP_WRITE		(1U << 0) /* ask for write access */
#define NVSVM_MAP_FAULT		(1U << 1) /* fault pages in; else present only */
#define NVSVM_MAP_FLAGS		(NVSVM_MAP_WRITE | NVSVM_MAP_FAULT)

/**
 * struct nvsvm_map - map a virtual range of the caller on the GPU
 * @addr: (in) start, page aligned, outside the unmanaged window
 * @size: (in) bytes, page aligned, non-zero
 * @flags: (in) NVSVM_MAP_*
 * @reserved: (in) zero
 * @mapped: (in/out) zero on input (EINVAL otherwise); pages valid on the
 *	GPU in the range afterwards
 *
 * Without NVSVM_MAP_FAULT only pages the CPU already has are mapped, and
 * holes are skipped. With it, every page is faulted in, and a page that
 * cannot be (no VMA, PROT_NONE, write to read-only) fails with EFAULT.
 */
struct nvsvm_map {
	__u64 addr;
	__u64 size;
	__u32 flags;
	__u32 reserved;
	__u64 mapped;
};

/**
 * struct nvsvm_unmap - remove a range from the GPU page tables
 * @addr: (in) start, page aligned
 * @size: (in) bytes, page aligned, non-zero
 * @flags: (in) zero
 * @reserved: (in) zero
 */
struct nvsvm_unmap {
	__u64 addr;
	__u64 size;
	__u32 flags;
	__u32 reserved;
};

/* Per-page result of NVSVM_IOCTL_QUERY. */
#define NVSVM_QUERY_VALID		(1U << 0)
#define NVSVM_QUERY_WRITE		(1U << 1)
#define NVSVM_QUERY_ATOMIC		(1U << 2)
#define NVSVM_QUERY_VRAM		(1U << 3) /* video memory aperture */
#define NVSVM_QUERY_ZERO		(1U << 4) /* the CPU's zero page */
#define NVSVM_QUERY_SHIFT(x)		(((x) >> 8) & 0xff) /* page shift */

/**
 * struct nvsvm_query - read back the GPU page tables
 * @addr: (in) start, page aligned
 * @npages: (in) number of 4 KiB pages, 1 to NVSVM_QUERY_MAX
 * @entries: (in) user pointer to @npages __u32, filled with NVSVM_QUERY_*
 * @flags: (in) zero
 * @reserved: (in) zero
 */
struct nvsvm_query {
	__u64 addr;
	__u64 npages;
	__u64 entries;
	__u32 flags;
	__u32 reserved;
};

#define NVSVM_QUERY_MAX		(1U << 20)

#define NVSVM_CHAN_JOIN_AREA	(1U << 0) /* use the file's SVM area */
#define NVSVM_CHAN_NO_REPLAY	(1U << 1) /* faults are fatal, not replayed */
#define NVSVM_CHAN_FLAGS	(NVSVM_CHAN_JOIN_AREA | NVSVM_CHAN_NO_REPLAY)

/*
 * Channels one file may hold, unless the module parameter
 * nvsvm.max_channels says otherwise: CHAN_CREATE fails with ENOSPC beyond
 * (handles stay between 1 and the limit).
 */
#define NVSVM_CHAN_MAX_DEFAULT	1024

/**
 * struct nvsvm_chan_create - create a channel
 * @flags: (in) NVSVM_CHAN_*; JOIN_AREA needs AREA_INIT first (EINVAL)
 * @handle: (in/out) zero on input (EINVAL otherwise); the channel handle
 *	for CHAN_DESTROY (and the virtual GP100's EXEC)
 *
 * ENOSPC when the file already holds its limit of channels (see
 * NVSVM_CHAN_MAX_DEFAULT); ENOMEM when the caller's memory cgroup or the
 * system has no room for the channel (an instance block page and a few
 * hundred bytes).
 */
struct nvsvm_chan_create {
	__u32 flags;
	__u32 handle;
};

/**
 * struct nvsvm_chan_destroy - destroy a channel
 * @handle: (in) from CHAN_CREATE
 * @flags: (in) zero
 */
struct nvsvm_chan_destroy {
	__u32 handle;
	__u32 flags;
};

/*
 * Access types of a GPU fault, as the GP100 fault buffer reports them
 * (the virtual GP100's EXEC reports one in struct nvsvm_exec.fault_access).
 */
#define NVSVM_ACCESS_READ	0
#define NVSVM_ACCESS_WRITE	1
#define NVSVM_ACCESS_ATOMIC	2
#define NVSVM_ACCESS_PREFETCH	3

#define NVSVM_MIGRATE_TO_VRAM	0
#define NVSVM_MIGRATE_TO_SYSMEM	1

/**
 * struct nvsvm_migrate - move pages between system memory and VRAM
 * @addr: (in) start, page aligned
 * @size: (in) bytes, page aligned, non-zero
 * @target: (in) NVSVM_MIGRATE_TO_*
 * @flags: (in) zero
 * @moved: (out) pages moved (best effort)
 */
struct nvsvm_migrate {
	__u64 addr;
	__u64 size;
	__u32 target;
	__u32 flags;
	__u64 moved;
};

/**
 * struct nvsvm_buf_alloc - a buffer of driver memory in the unmanaged window
 * @addr: (in) its GPU address, page aligned; [@addr, @addr + @size) lies
 *	inside the area's unmanaged window (EINVAL) and overlaps no other
 *	buffer of the file (EEXIST)
 * @size: (in) bytes, page aligned, non-zero
 * @flags: (in) zero
 * @handle: (in/out) zero on input (EINVAL otherwise); the buffer's handle,
 *	for BUF_FREE
 * @mmap_offset: (in/out) zero on input (EINVAL otherwise); the offset to
 *	pass to mmap(2) on this file to map the buffer on the CPU
 *
 * The buffer's pages are zeroed system memory, charged to the caller's
 * memory cgroup (ENOMEM beyond its memory.max), and mapped on the GPU at
 * once, readable, writable and atomic-capable. mmap(hint, @size, PROT_*,
 * MAP_SHARED, fd, @mmap_offset) maps the same pages on the CPU at @addr,
 * whatever the hint (NULL too), so that one pointer is valid on both
 * sides: EEXIST when something is mapped in [@addr, @addr + @size)
 * already, which MAP_FIXED at @addr replaces instead. Only whole and only
 * there: another size, an unknown offset, MAP_PRIVATE or MAP_FIXED at
 * another address fail with EINVAL before anything is unmapped. The buffer
 * stays on the GPU until BUF_FREE, AREA_FINI or close;
 * its pages stay until then and until the last CPU mapping of them goes.
 * Nothing else changes its GPU mapping: munmap(2) of the CPU mapping
 * leaves the GPU one alone.
 */
struct nvsvm_buf_alloc {
	__u64 addr;
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 mmap_offset;
};

/**
 * struct nvsvm_buf_free - remove a buffer from the GPU and drop it
 * @handle: (in) from BUF_ALLOC (EINVAL when unknown or already freed)
 * @flags: (in) zero
 */
struct nvsvm_buf_free {
	__u32 handle;
	__u32 flags;
};

#define NVSVM_IOCTL_BASE	'V'
#define NVSVM_IOCTL_GET_INFO	_IOR(NVSVM_IOCTL_BASE, 0x00, struct nvsvm_get_info)
#define NVSVM_IOCTL_AREA_INIT	_IOW(NVSVM_IOCTL_BASE, 0x01, struct nvsvm_area_init)
#define NVSVM_IOCTL_AREA_FINI	_IOW(NVSVM_IOCTL_BASE, 0x02, struct nvsvm_area_fini)
#define NVSVM_IOCTL_MAP		_IOWR(NVSVM_IOCTL_BASE, 0x03, struct nvsvm_map)
#define NVSVM_IOCTL_UNMAP	_IOW(NVSVM_IOCTL_BASE, 0x04, struct nvsvm_unmap)
#define NVSVM_IOCTL_QUERY	_IOWR(NVSVM_IOCTL_BASE, 0x05, struct nvsvm_query)
#define NVSVM_IOCTL_CHAN_CREATE	_IOWR(NVSVM_IOCTL_BASE, 0x06, struct nvsvm_chan_create)
#define NVSVM_IOCTL_CHAN_DESTROY _IOW(NVSVM_IOCTL_BASE, 0x07, struct nvsvm_chan_destroy)
#define NVSVM_IOCTL_MIGRATE	_IOWR(NVSVM_IOCTL_BASE, 0x09, struct nvsvm_migrate)
#define NVSVM_IOCTL_BUF_ALLOC	_IOWR(NVSVM_IOCTL_BASE, 0x0a, struct nvsvm_buf_alloc)
#define NVSVM_IOCTL_BUF_FREE	_IOW(NVSVM_IOCTL_BASE, 0x0b, struct nvsvm_buf_free)

/*
 * QUERY's first number, _IOW although QUERY writes user memory (the
 * entries). The module still accepts it as the same call, with the same
 * rules and results, so that binaries built before keep working; new code
 * uses NVSVM_IOCTL_QUERY.
 */
#define NVSVM_IOCTL_QUERY_OLD	_IOW(NVSVM_IOCTL_BASE, 0x05, struct nvsvm_query)

#endif /* _UAPI_NVSVM_H */
