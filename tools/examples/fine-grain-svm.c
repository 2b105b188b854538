// SPDX-License-Identifier: MIT
/*
 * fine-grain-svm.c: how an OpenCL runtime implements fine-grained *system*
 * SVM (CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) on nvsvm, with libnvsvm.
 *
 * Fine-grained system SVM is the strongest OpenCL sharing level: a kernel
 * may be given any pointer the host has, from malloc(), the stack, a
 * global variable or mmap(), without clSVMAlloc(), without
 * clEnqueueSVMMap(), and host and device see each other's writes. nvsvm
 * gives it for free: after NVSVM_IOCTL_AREA_INIT the GPU page tables
 * mirror the process's address space, and each GPU access to a page the
 * GPU has not mapped yet raises a replayable fault that the kernel driver
 * serves by asking the CPU's page tables (HMM). The runtime's job reduces
 * to the plumbing below.
 *
 * The runtime in this file is a sketch with four objects, named after the
 * OpenCL calls they back:
 *
 *   rt_device_open()     clCreateContext: open /dev/nvsvmN, check caps,
 *                        reserve the unmanaged window, AREA_INIT
 *   rt_queue_create()    clCreateCommandQueue: a channel joined to the area
 *   rt_enqueue_kernel()  clEnqueueNDRangeKernel + clFinish: EXEC a program
 *   rt_svm_migrate()     clEnqueueSVMMigrateMem: a prefetch hint (MAP)
 *   rt_device_close()    clReleaseContext: destroy channels, AREA_FINI
 *
 * The "kernels" are programs of memory operations (struct nvsvm_op), which
 * is what the virtual GP100 (nvsvm_vgpu.ko) executes; a real runtime would
 * push compiled shader code through the same channel instead.
 *
 * Build: see tools/Makefile, or
 *   cc -Wall -I uapi -I tools/lib tools/examples/fine-grain-svm.c \
 *      tools/lib/libnvsvm.c -o fine-grain-svm
 * or, against an installed libnvsvm:
 *   cc fine-grain-svm.c $(pkg-config --cflags --libs nvsvm)
 * Run (as a user who can open /dev/nvsvm0, after `modprobe nvsvm_vgpu`):
 *   ./fine-grain-svm [GPU]
 * It prints what it does and exits 0 when every result is right.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libnvsvm.h"	/* installed: <libnvsvm.h> with pkg-config nvsvm */

#define PAGE_SIZE	((uint64_t)4096)

/*
 * The unmanaged window: a range of GPU virtual addresses that nvsvm never
 * mirrors, kept for buffers the driver manages itself (in a full runtime:
 * command buffers, constant buffers, VRAM-only allocations; nvsvm has no
 * ioctl yet to place such buffers there, and a GPU access inside the
 * window is cancelled like an access to unmapped memory). It must end at
 * or below 1 << 40, the reach of Pascal's 40-bit engines.
 *
 * The window's addresses are also CPU addresses of this process: if the
 * CPU ever mapped memory there, pointers to it would not work on the GPU.
 * So the runtime reserves the range in the CPU address space with a
 * PROT_NONE mapping: malloc() and mmap() will never hand it out.
 */
#define RT_WINDOW_ADDR	(1ULL << 36)	/* 64 GiB */
#define RT_WINDOW_SIZE	(1ULL << 30)	/* 1 GiB */

#define RT_TIMEOUT_MS	60000

struct rt_device {
	int fd;
	struct nvsvm_get_info info;
	void *window;		/* the PROT_NONE reservation */
};

struct rt_queue {
	struct rt_device *dev;
	uint32_t chan;
};

/* clCreateContext: returns 0 or a negative errno. */
static int rt_device_open(struct rt_device *dev, unsigned int index)
{
	int ret;

	/* 1. Open the GPU. The file is bound to this process's mm: a forked
	 *    child cannot use it (EPERM); the child opens its own.
	 */
	dev->fd = nvsvm_open(index);
	if (dev->fd < 0)
		return dev->fd;

	/* 2. Check what the device can do. Fine-grained system SVM needs
	 *    replayable faults: without them every page would have to be
	 *    mapped before each launch. Atomics on system memory decide
	 *    whether the runtime reports CL_DEVICE_SVM_ATOMICS.
	 */
	ret = nvsvm_get_info(dev->fd, &dev->info);
	if (ret)
		goto err_close;
	if (dev->info.api_version != NVSVM_API_VERSION ||
	    !(dev->info.caps & NVSVM_CAP_REPLAYABLE_FAULTS) ||
	    !(dev->info.caps & NVSVM_CAP_EXEC)) {
		ret = -ENODEV;
		goto err_close;
	}

	/* 3. Reserve the unmanaged window on the CPU side (see above).
	 *    MAP_FIXED_NOREPLACE fails rather than clobbering a mapping.
	 */
	dev->window = mmap((void *)(uintptr_t)RT_WINDOW_ADDR, RT_WINDOW_SIZE,
			   PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			   MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (dev->window == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}

	/* 4. Mirror the address space, all of it but the window. From here
	 *    on, every CPU pointer outside the window is a GPU pointer.
	 *    EBUSY: the file already has an area (one per open file).
	 */
	ret = nvsvm_area_init(dev->fd, RT_WINDOW_ADDR, RT_WINDOW_SIZE);
	if (ret)
		goto err_unmap;
	return 0;

err_unmap:
	munmap(dev->window, RT_WINDOW_SIZE);
err_close:
	nvsvm_close(dev->fd);
	return ret;
}

/* clCreateCommandQueue: a channel whose page directory is the area's. */
static int rt_queue_create(struct rt_device *dev, struct rt_queue *q)
{
	q->dev = dev;
	/*
	 * Without NVSVM_CHAN_JOIN_AREA the channel would see an empty address
	 * space (every access cancelled). NVSVM_CHAN_NO_REPLAY would make
	 * faults fatal instead of replayed: not what SVM wants.
	 */
	return nvsvm_chan_create(dev->fd, NVSVM_CHAN_JOIN_AREA, &q->chan);
}

static void rt_queue_release(struct rt_queue *q)
{
	nvsvm_chan_destroy(q->dev->fd, q->chan);
}

/*
 * clEnqueueNDRangeKernel followed by clFinish: run a program and wait.
 * Returns 0 when it completed. A program that touched memory the process
 * does not have (a dangling pointer, PROT_NONE, a write to read-only
 * memory) is stopped: the driver cancels the access, EXEC reports
 * NVSVM_EXEC_FAULT with the address, and the channel stays in the error
 * state; the runtime reports CL_INVALID_COMMAND_QUEUE-like errors and
 * re-creates the queue.
 */
static int rt_enqueue_kernel(struct rt_queue *q, struct nvsvm_op *ops,
			     uint32_t nops)
{
	struct nvsvm_exec ex;
	int ret;

	ret = nvsvm_exec(q->dev->fd, q->chan, NVSVM_GPC_ANY, ops, nops,
			 RT_TIMEOUT_MS, &ex);
	if (ret) {
		fprintf(stderr, "  EXEC: %s\n", strerror(-ret));
		return ret;
	}
	if (ex.status != NVSVM_EXEC_OK) {
		fprintf(stderr, "  kernel stopped after %u ops: %s, %s access at 0x%llx\n",
			ex.done, nvsvm_status_name(ex.status),
			nvsvm_access_name(ex.fault_access),
			(unsigned long long)ex.fault_addr);
		return -EFAULT;
	}
	return 0;
}

/*
 * clEnqueueSVMMigrateMem: a hint, never needed for correctness. Where the
 * GPU has NVSVM_CAP_DEVICE_PRIVATE the pages move to VRAM; elsewhere
 * (Debian's stock kernel: MIGRATE fails with EOPNOTSUPP, or an old module:
 * ENOTTY) the runtime falls back to prefetching the GPU mappings with MAP: with
 * NVSVM_MAP_FAULT every page is faulted in on the CPU side and mapped, so
 * the kernel that follows takes no fault on it. The range is rounded out
 * to whole pages; a page that cannot be faulted makes MAP fail with
 * EFAULT, which for a hint is simply ignored.
 */
static void rt_svm_migrate(struct rt_device *dev, const void *ptr,
			   size_t size, int for_write)
{
	uint64_t start = nvsvm_ptr(ptr) & ~(PAGE_SIZE - 1);
	uint64_t end = (nvsvm_ptr(ptr) + size + PAGE_SIZE - 1) &
		       ~(PAGE_SIZE - 1);
	uint64_t mapped = 0, moved = 0;
	int ret;

	ret = nvsvm_migrate(dev->fd, start, end - start,
			    NVSVM_MIGRATE_TO_VRAM, &moved);
	if (!ret) {
		printf("  migrate hint: %" PRIu64 " pages moved to VRAM\n", moved);
		return;
	}
	ret = nvsvm_map(dev->fd, start, end - start,
			NVSVM_MAP_FAULT | (for_write ? NVSVM_MAP_WRITE : 0),
			&mapped);
	printf("  migrate hint: MIGRATE not available, prefetched with MAP instead: %s, %" PRIu64 " pages mapped\n",
	       ret ? strerror(-ret) : "ok", mapped);
}

/* clReleaseContext. */
static void rt_device_close(struct rt_device *dev)
{
	/* AREA_FINI detaches every channel from the area (they lose all
	 * access) and drops every GPU mapping; close() would do the same.
	 */
	nvsvm_area_fini(dev->fd);
	nvsvm_close(dev->fd);
	munmap(dev->window, RT_WINDOW_SIZE);
}

/* ---- The application side: plain C data, no SVM allocation calls. ---- */

struct histogram {
	uint64_t launches;	/* bumped by the GPU and the CPU atomically */
	uint64_t tag;		/* written by the GPU */
};

static struct histogram stats;	/* a global: also a GPU pointer */

int main(int argc, char **argv)
{
	unsigned int index = argc > 1 ? (unsigned int)atoi(argv[1]) : 0;
	size_t n = 256 * 1024, i;
	uint64_t expect_sum = 0, first[8];	/* on the stack */
	struct rt_device dev;
	struct rt_queue q;
	struct nvsvm_op k[4];
	uint64_t *samples;
	int ret, bad = 0;

	ret = rt_device_open(&dev, index);
	if (ret) {
		fprintf(stderr, "fine-grain-svm: nvsvm%u: %s\n", index,
			strerror(-ret));
		return 1;
	}
	printf("context: nvsvm%u, %u GPCs, unmanaged window [0x%llx, 0x%llx), atomics %s\n",
	       index, dev.info.gpc_count, RT_WINDOW_ADDR,
	       RT_WINDOW_ADDR + RT_WINDOW_SIZE,
	       dev.info.caps & NVSVM_CAP_SYSMEM_ATOMICS ? "exact" : "refused");
	ret = rt_queue_create(&dev, &q);
	if (ret) {
		fprintf(stderr, "fine-grain-svm: queue: %s\n", strerror(-ret));
		rt_device_close(&dev);
		return 1;
	}

	/* Ordinary host data: a malloc'd array (2 MiB, so glibc mmaps it). */
	samples = malloc(n * sizeof(*samples));
	if (!samples)
		return 1;
	for (i = 0; i < n; i++) {
		samples[i] = i ^ 0x5a5a;
		expect_sum += samples[i];
	}

	/* Optional: a prefetch hint for the first half of the array. */
	rt_svm_migrate(&dev, samples, n * sizeof(*samples) / 2, 0);

	/*
	 * The kernel: its arguments are raw host pointers, to the heap
	 * (samples), to the stack (first) and to a global (stats).
	 */
	k[0] = nvsvm_op_sum(nvsvm_ptr(samples), n * sizeof(*samples));
	k[1] = nvsvm_op_copy(nvsvm_ptr(first), nvsvm_ptr(samples),
			     sizeof(first));
	k[2] = nvsvm_op_write(nvsvm_ptr(&stats.tag), 0xc0ffee);
	k[3] = dev.info.caps & NVSVM_CAP_SYSMEM_ATOMICS ?
	       nvsvm_op_atomic_add(nvsvm_ptr(&stats.launches), 1) :
	       nvsvm_op_nop();
	printf("kernel: SUM over malloc'd %p, COPY to the stack %p, WRITE and ATOMIC_ADD on the global %p\n",
	       (void *)samples, (void *)first, (void *)&stats);

	/* Host and device share the counter: fine-grained atomics. */
	__atomic_fetch_add(&stats.launches, 1, __ATOMIC_SEQ_CST);
	if (rt_enqueue_kernel(&q, k, 4))
		bad = 1;

	/* No clEnqueueSVMMap, no copy back: the host reads the results. */
	if (!bad) {
		printf("results: sum %" PRIu64 " (expected %" PRIu64 "), first[7] %" PRIu64
		       ", tag 0x%" PRIx64 ", launches %" PRIu64 "\n",
		       (uint64_t)k[0].result, expect_sum, first[7], stats.tag,
		       stats.launches);
		bad |= k[0].result != expect_sum;
		bad |= memcmp(first, samples, sizeof(first)) != 0;
		bad |= stats.tag != 0xc0ffee;
		if (dev.info.caps & NVSVM_CAP_SYSMEM_ATOMICS)
			bad |= stats.launches != 2 || k[3].result != 1;
	}

	/*
	 * The host frees memory the GPU has mapped: nothing to tell the
	 * runtime. munmap() (inside free() for this large block) fires the
	 * mmu notifier, and the driver removes the GPU mappings first.
	 */
	free(samples);

	rt_queue_release(&q);
	rt_device_close(&dev);
	printf("fine-grain-svm: %s\n", bad ? "FAILED" : "ok");
	return bad;
}
