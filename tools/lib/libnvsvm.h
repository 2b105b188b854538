/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libnvsvm: a thin C wrapper around the nvsvm ioctls (uapi/nvsvm.h, and
 * the virtual GP100's EXEC and LAUNCH of uapi/nvsvm_vgpu.h).
 *
 * Every function returns 0 (or, for nvsvm_open, a file descriptor) on
 * success and a negative errno value on failure; errno itself is left as
 * the failing system call set it. The library keeps no global state: all
 * state lives in the file descriptor, so it is safe to use from several
 * threads as long as the caller serialises what the kernel requires.
 *
 * Addresses are user virtual addresses of the calling process, passed as
 * uint64_t; nvsvm_ptr() converts a pointer.
 */
#ifndef _LIBNVSVM_H
#define _LIBNVSVM_H

#include <stddef.h>
#include <stdint.h>

#include "nvsvm.h"	/* uapi/nvsvm.h, through -I uapi */
#include "nvsvm_vgpu.h"	/* EXEC of the virtual GP100 */

#ifdef __cplusplus
extern "C" {
#endif

/* Directory of the per-device debugfs counters, with %u for the index. */
#define NVSVM_DEBUGFS_FMT	"/sys/kernel/debug/nvsvm/nvsvm%u"
/* The same for the counters of the virtual GP100 (nvsvm_vgpu.ko). */
#define NVSVM_VGPU_DEBUGFS_FMT	"/sys/kernel/debug/nvsvm_vgpu/gpu%u"

static inline uint64_t nvsvm_ptr(const volatile void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/**
 * nvsvm_open() - open /dev/nvsvm<index>
 * Return: a file descriptor (close-on-exec), or -ENOENT when the device
 * does not exist, or another negative errno from open(2).
 */
int nvsvm_open(unsigned int index);

/** nvsvm_close() - close a descriptor from nvsvm_open(); 0 or -errno */
int nvsvm_close(int fd);

/**
 * nvsvm_get_info() - fill @info from NVSVM_IOCTL_GET_INFO
 * Return: 0, -EFAULT, or -EINVAL/-ENOTTY from a mismatched kernel.
 */
int nvsvm_get_info(int fd, struct nvsvm_get_info *info);

/**
 * nvsvm_area_init() - mirror the caller's address space on the GPU
 * @unmanaged_addr: start of the never-mirrored window (page aligned)
 * @unmanaged_size: its size, may be 0; the window ends at or below 1 << 40
 * Return: 0; -EBUSY if the file already has an area; -EINVAL for a bad
 * window; -EPERM from another address space than the opener's.
 */
int nvsvm_area_init(int fd, uint64_t unmanaged_addr, uint64_t unmanaged_size);

/** nvsvm_area_fini() - stop mirroring; 0 or -errno (-EPERM, -EINVAL) */
int nvsvm_area_fini(int fd);

/**
 * nvsvm_map() - fill the GPU page tables for [addr, addr + size)
 * @flags: NVSVM_MAP_WRITE, NVSVM_MAP_FAULT
 * @mapped: if not NULL, receives the number of pages mapped
 * Return: 0; -EINVAL for a bad range, flags or no area; -EFAULT when
 * NVSVM_MAP_FAULT was given and a page cannot be faulted in; -EPERM.
 */
int nvsvm_map(int fd, uint64_t addr, uint64_t size, uint32_t flags,
	      uint64_t *mapped);

/** nvsvm_unmap() - clear the GPU page tables of a range; 0 or -errno */
int nvsvm_unmap(int fd, uint64_t addr, uint64_t size);

/**
 * nvsvm_query() - read back @npages GPU PTEs starting at @addr
 * @entries: array of @npages words, filled with NVSVM_QUERY_* bits
 * Uses NVSVM_IOCTL_QUERY, and NVSVM_IOCTL_QUERY_OLD after EINVAL (a module
 * from before QUERY became _IOWR).
 * Return: 0; -EINVAL (bad range, npages 0 or above NVSVM_QUERY_MAX, no
 * area); -EFAULT (bad @entries); -EPERM.
 */
int nvsvm_query(int fd, uint64_t addr, uint64_t npages, uint32_t *entries);

/**
 * nvsvm_chan_create() - create a channel
 * @flags: NVSVM_CHAN_JOIN_AREA, NVSVM_CHAN_NO_REPLAY
 * @handle: receives the channel handle
 * Return: 0; -EINVAL (unknown flags, JOIN_AREA without an area); -EPERM.
 */
int nvsvm_chan_create(int fd, uint32_t flags, uint32_t *handle);

/** nvsvm_chan_destroy() - destroy a channel; 0, -ENOENT, -EPERM */
int nvsvm_chan_destroy(int fd, uint32_t handle);

/**
 * nvsvm_buf_alloc() - a buffer of driver memory at @addr in the window
 * @addr: GPU address, inside the area's unmanaged window
 * @size: bytes, page aligned, non-zero
 * @flags: zero
 * @handle: receives the buffer's handle (for nvsvm_buf_free())
 * @mmap_offset: if not NULL, receives the mmap(2) offset of the buffer
 * Return: 0; -EINVAL (bad range or flags, no area, outside the window);
 * -EEXIST (overlaps another buffer); -ENOMEM (the caller's memory cgroup
 * or the system has no room); -ENOSPC (too many buffers); -EPERM.
 */
int nvsvm_buf_alloc(int fd, uint64_t addr, uint64_t size, uint32_t flags,
		    uint32_t *handle, uint64_t *mmap_offset);

/** nvsvm_buf_free() - drop a buffer from the GPU; 0, -EINVAL, -EPERM */
int nvsvm_buf_free(int fd, uint32_t handle);

/**
 * nvsvm_buf_mmap() - map a buffer on the CPU at its GPU address
 * @addr: the buffer's address; whatever the caller mapped there (such as
 *	a PROT_NONE reservation of the window) is replaced (MAP_FIXED)
 * @size: the buffer's size
 * @mmap_offset: from nvsvm_buf_alloc()
 * @prot: PROT_READ | PROT_WRITE, or less
 * Return: 0, or the negative errno of mmap(2) (-EINVAL for another
 * address or size than the buffer's, or an unknown offset).
 */
int nvsvm_buf_mmap(int fd, uint64_t addr, uint64_t size, uint64_t mmap_offset,
		   int prot);

/**
 * nvsvm_exec() - run @nops operations on channel @handle and wait
 * @gpc: GPC index or NVSVM_GPC_ANY
 * @ops: the program; each op's result field is written back
 * @timeout_ms: 1 to 600000
 * @out: if not NULL, receives the whole struct nvsvm_exec (status, done,
 *	fault_addr, fault_access)
 *
 * A program that ran and faulted is not an error of this call: it returns
 * 0 and @out->status tells (NVSVM_EXEC_FAULT, ...).
 * Return: 0; -EINVAL (bad program or arguments); -ENOENT (no such
 * channel); -EFAULT (bad @ops); -EPERM; -ENOTTY without NVSVM_CAP_EXEC
 * (-EOPNOTSUPP from modules before EXEC moved to uapi/nvsvm_vgpu.h).
 */
int nvsvm_exec(int fd, uint32_t handle, uint32_t gpc, struct nvsvm_op *ops,
	       uint32_t nops, uint32_t timeout_ms, struct nvsvm_exec *out);
/*
 * nvsvm_exec_flags() - nvsvm_exec() with struct nvsvm_exec.flags:
 * NVSVM_EXEC_WARPS (each operation a warp of its own) and NVSVM_EXEC_SLOT()
 */
int nvsvm_exec_flags(int fd, uint32_t handle, uint32_t gpc, uint32_t flags,
		     struct nvsvm_op *ops, uint32_t nops, uint32_t timeout_ms,
		     struct nvsvm_exec *out);

/**
 * nvsvm_migrate() - move pages of a range to VRAM or system memory
 * @target: NVSVM_MIGRATE_TO_VRAM or NVSVM_MIGRATE_TO_SYSMEM
 * @moved: if not NULL, receives the number of pages moved
 * Return: 0 or -errno.
 */
int nvsvm_migrate(int fd, uint64_t addr, uint64_t size, uint32_t target,
		  uint64_t *moved);

/**
 * nvsvm_stat_read() - read one debugfs counter of GPU @index
 * @name: file name, e.g. "pt_bytes", "faults", "replays"
 * Return: 0; -ENOENT if debugfs or the counter is missing; -EINVAL if the
 * file does not hold a decimal number; other -errno from open/read.
 */
int nvsvm_stat_read(unsigned int index, const char *name, uint64_t *val);

/**
 * nvsvm_vgpu_stat_read() - read one debugfs counter of a virtual GP100
 * @index: N of its directory, /sys/kernel/debug/nvsvm_vgpu/gpuN
 * @name: file name, e.g. "faults", "invalidates", "tlb_hits" (docs/gp100.md)
 *
 * What the GPU saw, to set against what the driver did (nvsvm_stat_read()).
 * Return: as nvsvm_stat_read(); -ENOENT also when there is no such virtual
 * GP100 (nvsvm_vgpu.ko not loaded, or another GPU).
 */
int nvsvm_vgpu_stat_read(unsigned int index, const char *name, uint64_t *val);

/* Builders for struct nvsvm_op; every field not named is zero. */
struct nvsvm_op nvsvm_op_nop(void);
struct nvsvm_op nvsvm_op_read(uint64_t addr);
struct nvsvm_op nvsvm_op_write(uint64_t addr, uint64_t value);
struct nvsvm_op nvsvm_op_fill(uint64_t addr, uint64_t len, uint64_t value);
struct nvsvm_op nvsvm_op_copy(uint64_t dst, uint64_t src, uint64_t len);
struct nvsvm_op nvsvm_op_atomic_add(uint64_t addr, uint64_t value);
struct nvsvm_op nvsvm_op_chase(uint64_t head, uint64_t max_nodes,
			       uint64_t increment, uint32_t off_next,
			       uint32_t off_data);
struct nvsvm_op nvsvm_op_sum(uint64_t addr, uint64_t len);

/*
 * Programs (NVSVM_IOCTL_LAUNCH): an image built by tools/gpu/build-kernel.sh
 * over an NDRange. nvsvm_launch_init() fills @l for a 1-dimensional launch
 * of @global_size work-items in groups of @local_size (the sizes of the
 * unused dimensions zero, as LAUNCH requires), with defaults for the rest
 * (any GPC, no local memory, NVSVM_LAUNCH_DEFAULT_PRIV bytes of
 * private memory, NVSVM_LAUNCH_DEFAULT_TIMEOUT_MS, the default budget);
 * the caller changes what it wants and calls nvsvm_launch().
 */
#define NVSVM_LAUNCH_DEFAULT_PRIV	4096
#define NVSVM_LAUNCH_DEFAULT_TIMEOUT_MS	60000

void nvsvm_launch_init(struct nvsvm_launch *l, uint32_t handle,
		       const void *image, uint32_t image_size, uint32_t entry,
		       const void *param, uint32_t param_size,
		       uint64_t global_size, uint32_t local_size);

/**
 * nvsvm_launch() - run the program @l describes and wait for it
 *
 * A program that ran is not an error of this call even when it faulted or
 * trapped: it returns 0, and @l's out fields (status, trap, fault_*,
 * insns, groups_done) tell.
 * Return: 0; -EINVAL (a bad field); -E2BIG (a work-group too large for the
 * model); -ENOENT (no such channel); -EFAULT (bad image or param pointer);
 * -ENOTTY (no NVSVM_CAP_EXEC, or a module without LAUNCH); -EPERM.
 */
int nvsvm_launch(int fd, struct nvsvm_launch *l);

/* Name of an enum nvsvm_launch_trap value, for messages. */
const char *nvsvm_trap_name(uint32_t trap);

/* Name of an enum nvsvm_exec_status / NVSVM_ACCESS_* value, for messages. */
const char *nvsvm_status_name(uint32_t status);
const char *nvsvm_access_name(uint32_t access);

#ifdef __cplusplus
}
#endif

#endif /* _LIBNVSVM_H */
