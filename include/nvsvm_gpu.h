/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GPU provider interface: what a GPU driver (the virtual GP100, or a
 * nouveau hook for real Pascal hardware) registers with nvsvm.ko.
 *
 * The core programs the GPU only through ->rd32()/->wr32() (BAR0 offsets of
 * GP100.md) and through memory it allocates with the DMA API on ->dev
 * (page tables, fault buffer, instance blocks). It never asks whether the
 * GPU is virtual.
 */
#ifndef _NVSVM_GPU_H
#define _NVSVM_GPU_H

#include <linux/device.h>
#include <linux/types.h>

struct nvsvm_gpu;
struct nvsvm_chan;
struct nvsvm_device;
struct nvsvm_file;

/**
 * struct nvsvm_gpu_ops - provider callbacks
 * @rd32: read a 32-bit BAR0 register
 * @wr32: write a 32-bit BAR0 register
 * @chan_init: optional; make the engine aware of a new channel whose
 *	instance block (@chan->inst_addr) the core has written
 * @chan_fini: optional; the channel is going away; no access of it may be
 *	in flight when this returns
 * @copy: optional; copy @len bytes (at most PAGE_SIZE, not crossing a
 *	page of either side) between video memory at byte offset @vram and
 *	system memory at DMA address @sys (mapped by the core on @dev),
 *	towards video memory if @to_vram, and wait for it. Returns 0, or
 *	-EINVAL for a range outside video memory, -EIO. The core never
 *	touches video memory itself: without @copy (the real-GPU provider
 *	src/pascal.c has no copy engine support yet) it gets no
 *	device-private memory.
 */
struct nvsvm_gpu_ops {
	u32 (*rd32)(struct nvsvm_gpu *gpu, u32 reg);
	void (*wr32)(struct nvsvm_gpu *gpu, u32 reg, u32 val);
	int (*chan_init)(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan);
	void (*chan_fini)(struct nvsvm_gpu *gpu, struct nvsvm_chan *chan);
	int (*copy)(struct nvsvm_gpu *gpu, u64 vram, dma_addr_t sys, u32 len,
		    bool to_vram);
};

/**
 * struct nvsvm_gpu_ioctl - an ioctl of /dev/nvsvmN that the provider serves
 * @cmd: the ioctl number: type NVSVM_IOCTL_BASE, a number uapi/nvsvm.h
 *	does not use (the core's win), direction and size of its struct
 * @func: the handler, called with the core's checks done: @cmd matched
 *	exactly (same number, other size or direction: -EINVAL), the caller
 *	is the file's address space (-EPERM otherwise), the GPU is still
 *	registered (-ENODEV otherwise, and for any number once it is not).
 *	@nf is the calling file; nvsvm_file_chan_get() resolves its channel
 *	handles. Returns 0 or a negative errno.
 */
struct nvsvm_gpu_ioctl {
	unsigned int cmd;
	long (*func)(struct nvsvm_gpu *gpu, struct nvsvm_file *nf,
		     void __user *uarg);
};

/**
 * struct nvsvm_gpu - one GPU, filled by the provider before registering
 * @dev: device for the DMA API; its driver owns the GPU
 * @owner: module of the provider (THIS_MODULE)
 * @ops: callbacks
 * @vram_size: bytes of video memory the core may use for device-private
 *	pages (0 for none); the core owns all of it once registered
 * @gpc_count: graphics processing clusters (for GET_INFO)
 * @ioctls: optional; the provider's own ioctls (the virtual GP100's EXEC,
 *	uapi/nvsvm_vgpu.h); numbers of neither the core nor these fail with
 *	-ENOTTY
 * @num_ioctls: entries of @ioctls
 * @exec_caps: NVSVM_CAP_EXEC when @ioctls has NVSVM_IOCTL_EXEC, plus
 *	NVSVM_CAP_ATOMICS when the engine can run atomics
 * @host_atomics: the GPU's atomics on system memory are atomic against
 *	the CPU's (a link coherent for atomics). False on PCIe, where the
 *	GPU does them as a read and a write (CUDA's
 *	hostNativeAtomicSupported 0): the core then lets the GPU do an
 *	atomic only on memory the CPU cannot touch meanwhile
 * @priv: core state, set by nvsvm_gpu_register()
 */
struct nvsvm_gpu {
	struct device *dev;
	struct module *owner;
	const struct nvsvm_gpu_ops *ops;
	const struct nvsvm_gpu_ioctl *ioctls;
	unsigned int num_ioctls;
	u64 vram_size;
	u32 gpc_count;
	u32 exec_caps;
	bool host_atomics;
	struct nvsvm_device *priv;
};

/**
 * struct nvsvm_chan - a channel, as the provider sees it
 * @gpu: the GPU
 * @inst_addr: DMA address of the 4 KiB instance block (aperture: coherent
 *	system memory); written by the core, read by the GPU
 * @id: handle returned to user space, unique per file
 * @provider_data: for the provider
 */
struct nvsvm_chan {
	struct nvsvm_gpu *gpu;
	dma_addr_t inst_addr;
	u32 id;
	void *provider_data;
};

int nvsvm_gpu_register(struct nvsvm_gpu *gpu);
void nvsvm_gpu_unregister(struct nvsvm_gpu *gpu);
void nvsvm_gpu_fault_intr(struct nvsvm_gpu *gpu);
struct nvsvm_chan *nvsvm_file_chan_get(struct nvsvm_file *nf, u32 handle);
void nvsvm_file_chan_put(struct nvsvm_chan *chan);

#endif /* _NVSVM_GPU_H */
