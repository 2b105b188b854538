// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnvsvm-cl: an OpenCL 3.0 installable client driver (cl_khr_icd) for
 * the GPUs of nvsvm that have the virtual GP100's EXEC (uapi/nvsvm_vgpu.h).
 *
 * Loaded by an ICD loader (Debian's ocl-icd) through
 * /etc/OpenCL/vendors/nvsvm.icd; it exports only the three functions the
 * loader looks up (clIcdGetPlatformIDsKHR, clGetPlatformInfo,
 * clGetExtensionFunctionAddress) and reaches everything else through the
 * cl_icd_dispatch table at the start of each object.
 *
 * The device: one CL_DEVICE_TYPE_ACCELERATOR per /dev/nvsvmN, EMBEDDED
 * profile (no OpenCL C compiler: the spec allows CL_DEVICE_COMPILER_AVAILABLE
 * CL_FALSE for the embedded profile only), fine-grained system SVM from
 * the module's replayable faults, and five built-in kernels that are
 * programs of EXEC operations (see builtins[] below).
 *
 * Execution: a command runs when it is enqueued, on the calling thread,
 * in order; EXEC waits for the GPU. Its event is therefore complete
 * (CL_COMPLETE, or a negative error when the GPU cancelled an access) by
 * the time the enqueue returns. After a cancelled access the queue's
 * channel is in the error state: the next command re-creates it. The
 * exception: a command that has to wait for a user event (directly, or
 * through a deferred command's event or an earlier command of its queue)
 * is deferred, and runs later, on the thread that sets the user event
 * (see "Events, and commands that wait for them").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "nvsvm-cl.h"

#define NV_EXPORT	__attribute__((visibility("default")))
#define PAGE		4096ULL
#define EXEC_TIMEOUT_MS	60000
#define MAX_ALLOC	(1ULL << 30)	/* EXEC's largest FILL/COPY/SUM */

/* The unmanaged window of each context: [WIN_BASE + k * WIN_SIZE, ...). */
#define WIN_BASE	(1ULL << 36)
#define WIN_SIZE	(1ULL << 26)
#define WIN_SLOTS	64

static cl_icd_dispatch nv_dispatch;
static struct _cl_platform_id nv_platform = {
	.obj = { &nv_dispatch, NV_PLATFORM, 1 },
};
static struct _cl_device_id nv_devices[NV_MAX_DEVICES];
static cl_uint nv_ndevices;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

static const char builtin_names[] =
	"nvsvm_fill;nvsvm_copy;nvsvm_sum;nvsvm_chase;nvsvm_atomic_add";

/*
 * The built-in kernels. A kernel whose per_item is false is one operation
 * run by a single work-item (global size 1); nvsvm_atomic_add runs one
 * ATOMIC_ADD per work-item.
 */
static const struct nv_builtin builtins[] = {
	{ "nvsvm_fill", false, 3, {
		{ NV_ARG_PTR, "dst", "ulong*" },
		{ NV_ARG_ULONG, "bytes", "ulong" },
		{ NV_ARG_ULONG, "pattern", "ulong" } } },
	{ "nvsvm_copy", false, 3, {
		{ NV_ARG_PTR, "dst", "ulong*" },
		{ NV_ARG_PTR, "src", "ulong*" },
		{ NV_ARG_ULONG, "bytes", "ulong" } } },
	{ "nvsvm_sum", false, 3, {
		{ NV_ARG_PTR, "src", "ulong*" },
		{ NV_ARG_ULONG, "bytes", "ulong" },
		{ NV_ARG_PTR, "result", "ulong*" } } },
	{ "nvsvm_chase", false, 6, {
		{ NV_ARG_PTR, "head", "void*" },
		{ NV_ARG_ULONG, "max_nodes", "ulong" },
		{ NV_ARG_ULONG, "increment", "ulong" },
		{ NV_ARG_UINT, "off_next", "uint" },
		{ NV_ARG_UINT, "off_data", "uint" },
		{ NV_ARG_PTR_OPT, "visited", "ulong*" } } },
	{ "nvsvm_atomic_add", true, 3, {
		{ NV_ARG_PTR, "counter", "ulong*" },
		{ NV_ARG_ULONG, "value", "ulong" },
		{ NV_ARG_PTR_OPT, "old", "ulong*" } } },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void set_err(cl_int *errcode_ret, cl_int err)
{
	if (errcode_ret)
		*errcode_ret = err;
}

static void *fail(cl_int *errcode_ret, cl_int err)
{
	set_err(errcode_ret, err);
	return NULL;
}

/* Copy a query's answer out, the way every clGet*Info does. */
static cl_int put(const void *src, size_t n, size_t size, void *dst,
		  size_t *size_ret)
{
	if (dst) {
		if (size < n)
			return CL_INVALID_VALUE;
		if (n)
			memcpy(dst, src, n);
	}
	if (size_ret)
		*size_ret = n;
	return CL_SUCCESS;
}

#define PUT(type, v) do { type _v = (v); \
	return put(&_v, sizeof(_v), size, value, size_ret); } while (0)
#define PUT_STR(s) return put((s), strlen(s) + 1, size, value, size_ret)

static cl_ulong now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (cl_ulong)ts.tv_sec * 1000000000ULL + (cl_ulong)ts.tv_nsec;
}

static bool valid(const void *o, uint32_t magic)
{
	const struct nv_obj *obj = o;

	return obj && obj->magic == magic && obj->refs > 0;
}

static void ref(void *o)
{
	__atomic_add_fetch(&((struct nv_obj *)o)->refs, 1, __ATOMIC_RELAXED);
}

/* Drop a reference; true when it was the last. */
static bool unref(void *o)
{
	return __atomic_sub_fetch(&((struct nv_obj *)o)->refs, 1,
				  __ATOMIC_ACQ_REL) == 0;
}

static void obj_init(void *o, uint32_t magic)
{
	struct nv_obj *obj = o;

	obj->dispatch = &nv_dispatch;
	obj->magic = magic;
	obj->refs = 1;
}

static void obj_free(void *o)
{
	((struct nv_obj *)o)->magic = 0;
	free(o);
}

static cl_int errno_to_cl(int err)
{
	switch (err) {
	case -ENOMEM:
		return CL_OUT_OF_HOST_MEMORY;
	case -ENOENT:
	case -ENODEV:
	case -EACCES:
	case -EPERM:
		return CL_DEVICE_NOT_AVAILABLE;
	case -EINVAL:
		return CL_INVALID_VALUE;
	default:
		return CL_OUT_OF_RESOURCES;
	}
}

/* ---- Platform and devices ---- */

static void nv_init(void);

static cl_int nv_GetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
				cl_uint *num_platforms)
{
	if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
		return CL_INVALID_VALUE;
	pthread_once(&nv_once, nv_init);
	if (platforms)
		platforms[0] = &nv_platform;
	if (num_platforms)
		*num_platforms = 1;
	return CL_SUCCESS;
}

static cl_int nv_GetPlatformInfo(cl_platform_id platform,
				 cl_platform_info param, size_t size,
				 void *value, size_t *size_ret)
{
	static const cl_name_version exts[] = {
		{ CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd" },
	};

	if (platform && platform != &nv_platform)
		return CL_INVALID_PLATFORM;
	switch (param) {
	case CL_PLATFORM_PROFILE:
		PUT_STR("EMBEDDED_PROFILE");
	case CL_PLATFORM_VERSION:
		PUT_STR("OpenCL 3.0 nvsvm");
	case CL_PLATFORM_NUMERIC_VERSION:
		PUT(cl_version, CL_MAKE_VERSION(3, 0, 0));
	case CL_PLATFORM_NAME:
		PUT_STR("nvsvm");
	case CL_PLATFORM_VENDOR:
		PUT_STR("nvsvm project");
	case CL_PLATFORM_EXTENSIONS:
		PUT_STR("cl_khr_icd");
	case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
		return put(exts, sizeof(exts), size, value, size_ret);
	case CL_PLATFORM_HOST_TIMER_RESOLUTION:
		PUT(cl_ulong, 0);
	case CL_PLATFORM_ICD_SUFFIX_KHR:
		PUT_STR("nvsvm");
	default:
		return CL_INVALID_VALUE;
	}
}

/* One device per /dev/nvsvmN that runs EXEC programs with replayable faults. */
static void nv_probe(void)
{
	unsigned int i;

	for (i = 0; i < NV_MAX_DEVICES; i++) {
		struct _cl_device_id *d = &nv_devices[nv_ndevices];
		int fd = nvsvm_open(i);

		if (fd < 0)
			continue;
		if (nvsvm_get_info(fd, &d->info) == 0 &&
		    d->info.api_version == NVSVM_API_VERSION &&
		    (d->info.caps & NVSVM_CAP_EXEC) &&
		    (d->info.caps & NVSVM_CAP_REPLAYABLE_FAULTS)) {
			d->obj.dispatch = &nv_dispatch;
			d->obj.magic = NV_DEVICE;
			d->obj.refs = 1;
			d->index = i;
			snprintf(d->name, sizeof(d->name),
				 "nvsvm%u (virtual GP100, chipset 0x%x)", i,
				 d->info.chipset);
			nv_ndevices++;
		}
		nvsvm_close(fd);
	}
}

static cl_int nv_GetDeviceIDs(cl_platform_id platform, cl_device_type type,
			      cl_uint num_entries, cl_device_id *devices,
			      cl_uint *num_devices)
{
	cl_uint n = 0, i;

	if (platform && platform != &nv_platform)
		return CL_INVALID_PLATFORM;
	if ((num_entries == 0 && devices) || (!devices && !num_devices))
		return CL_INVALID_VALUE;
	if (type != CL_DEVICE_TYPE_ALL && type != CL_DEVICE_TYPE_DEFAULT &&
	    (type & ~(cl_device_type)(CL_DEVICE_TYPE_DEFAULT |
				      CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
				      CL_DEVICE_TYPE_ACCELERATOR |
				      CL_DEVICE_TYPE_CUSTOM)))
		return CL_INVALID_DEVICE_TYPE;
	if (!(type & (CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT)))
		return CL_DEVICE_NOT_FOUND;
	pthread_once(&nv_once, nv_init);
	/* The default device is the first one. */
	for (i = 0; i < nv_ndevices; i++) {
		if (type == CL_DEVICE_TYPE_DEFAULT && i > 0)
			break;
		if (devices && n < num_entries)
			devices[n] = &nv_devices[i];
		n++;
	}
	if (num_devices)
		*num_devices = n;
	return n ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

static cl_device_svm_capabilities svm_caps(cl_device_id d)
{
	cl_device_svm_capabilities caps = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
		CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
		CL_DEVICE_SVM_FINE_GRAIN_SYSTEM;

	/*
	 * Only where the driver makes the GPU's atomics on system memory
	 * exact against the CPU's (a Pascal on PCIe has no host atomics):
	 * clSVMAlloc memory with CL_MEM_SVM_ATOMICS is private anonymous
	 * memory then (mem_alloc()), malloc memory is too.
	 */
	if ((d->info.caps & NVSVM_CAP_ATOMICS) &&
	    (d->info.caps & NVSVM_CAP_SYSMEM_ATOMICS))
		caps |= CL_DEVICE_SVM_ATOMICS;
	return caps;
}

static cl_ulong host_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);

	return pages > 0 ? (cl_ulong)pages * PAGE : MAX_ALLOC;
}

static cl_int nv_GetDeviceInfo(cl_device_id d, cl_device_info param,
			       size_t size, void *value, size_t *size_ret)
{
	static const cl_name_version exts[] = {
		{ CL_MAKE_VERSION(1, 0, 0), "cles_khr_int64" },
	};
	cl_name_version kernels[ARRAY_SIZE(builtins)];
	size_t sizes[3] = { 1, 1, 1 };
	cl_device_partition_property none = 0;
	unsigned int i;

	if (!valid(d, NV_DEVICE))
		return CL_INVALID_DEVICE;
	switch (param) {
	case CL_DEVICE_TYPE:
		PUT(cl_device_type, CL_DEVICE_TYPE_ACCELERATOR);
	case CL_DEVICE_VENDOR_ID:
		PUT(cl_uint, 0x10de);
	case CL_DEVICE_MAX_COMPUTE_UNITS:
		PUT(cl_uint, d->info.gpc_count ? d->info.gpc_count : 1);
	case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
		PUT(cl_uint, 3);
	case CL_DEVICE_MAX_WORK_ITEM_SIZES:
		return put(sizes, sizeof(sizes), size, value, size_ret);
	case CL_DEVICE_MAX_WORK_GROUP_SIZE:
		PUT(size_t, 1);
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
		PUT(cl_uint, 1);
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
		PUT(cl_uint, 0);
	case CL_DEVICE_MAX_CLOCK_FREQUENCY:
		PUT(cl_uint, 1);
	case CL_DEVICE_ADDRESS_BITS:
		PUT(cl_uint, 64);
	case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
		PUT(cl_ulong, MAX_ALLOC);
	case CL_DEVICE_IMAGE_SUPPORT:
	case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
	case CL_DEVICE_COMPILER_AVAILABLE:
	case CL_DEVICE_LINKER_AVAILABLE:
	case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
	case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
	case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
	case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
	case CL_DEVICE_PIPE_SUPPORT:
		PUT(cl_bool, CL_FALSE);
	case CL_DEVICE_HOST_UNIFIED_MEMORY:
	case CL_DEVICE_ENDIAN_LITTLE:
	case CL_DEVICE_AVAILABLE:
	case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
		PUT(cl_bool, CL_TRUE);
	case CL_DEVICE_MAX_READ_IMAGE_ARGS:
	case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
	case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
	case CL_DEVICE_MAX_SAMPLERS:
	case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
	case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
	case CL_DEVICE_MAX_PIPE_ARGS:
	case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
	case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
	case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
	case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
	case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
	case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
	case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
	case CL_DEVICE_MAX_NUM_SUB_GROUPS:
	case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
	case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
	case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
	case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
		PUT(cl_uint, 0);
	case CL_DEVICE_IMAGE2D_MAX_WIDTH:
	case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
	case CL_DEVICE_IMAGE3D_MAX_WIDTH:
	case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
	case CL_DEVICE_IMAGE3D_MAX_DEPTH:
	case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
	case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
	case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
	case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
		PUT(size_t, 0);
	case CL_DEVICE_MAX_PARAMETER_SIZE:
		PUT(size_t, 256);
	case CL_DEVICE_PRINTF_BUFFER_SIZE:
		PUT(size_t, 1024);
	case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
		PUT(size_t, 1);
	case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
		PUT(size_t, 1);
	case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
		PUT(cl_uint, 1024);
	case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
		PUT(cl_uint, 128);
	case CL_DEVICE_SINGLE_FP_CONFIG:
		PUT(cl_device_fp_config, CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN);
	case CL_DEVICE_DOUBLE_FP_CONFIG:
	case CL_DEVICE_HALF_FP_CONFIG:
		PUT(cl_device_fp_config, 0);
	case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
		PUT(cl_device_mem_cache_type, CL_NONE);
	case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
		PUT(cl_ulong, 0);
	case CL_DEVICE_GLOBAL_MEM_SIZE:
		PUT(cl_ulong, host_memory());
	case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
	case CL_DEVICE_LOCAL_MEM_SIZE:
		PUT(cl_ulong, 1024);
	case CL_DEVICE_MAX_CONSTANT_ARGS:
		PUT(cl_uint, 4);
	case CL_DEVICE_LOCAL_MEM_TYPE:
		PUT(cl_device_local_mem_type, CL_GLOBAL);
	case CL_DEVICE_EXECUTION_CAPABILITIES:
		PUT(cl_device_exec_capabilities, CL_EXEC_KERNEL);
	case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
		PUT(cl_command_queue_properties,
		    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
		    CL_QUEUE_PROFILING_ENABLE);
	case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
		PUT(cl_command_queue_properties, 0);
	case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
		PUT(cl_device_device_enqueue_capabilities, 0);
	case CL_DEVICE_PLATFORM:
		PUT(cl_platform_id, &nv_platform);
	case CL_DEVICE_NAME:
		PUT_STR(d->name);
	case CL_DEVICE_VENDOR:
		PUT_STR("nvsvm project");
	case CL_DRIVER_VERSION:
		PUT_STR("1.0.0");
	case CL_DEVICE_PROFILE:
		PUT_STR("EMBEDDED_PROFILE");
	case CL_DEVICE_VERSION:
		PUT_STR("OpenCL 3.0 nvsvm");
	case CL_DEVICE_NUMERIC_VERSION:
		PUT(cl_version, CL_MAKE_VERSION(3, 0, 0));
	case CL_DEVICE_OPENCL_C_VERSION:
		PUT_STR("OpenCL C 1.2 ");
	case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
	case CL_DEVICE_OPENCL_C_FEATURES:
	case CL_DEVICE_ILS_WITH_VERSION:
		return put(NULL, 0, size, value, size_ret);
	case CL_DEVICE_EXTENSIONS:
		PUT_STR("cles_khr_int64");
	case CL_DEVICE_EXTENSIONS_WITH_VERSION:
		return put(exts, sizeof(exts), size, value, size_ret);
	case CL_DEVICE_IL_VERSION:
		PUT_STR("");
	case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
		/* No conformance run: the earliest possible date. */
		PUT_STR("v0000-00-00-00");
	case CL_DEVICE_BUILT_IN_KERNELS:
		PUT_STR(builtin_names);
	case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
		memset(kernels, 0, sizeof(kernels));
		for (i = 0; i < ARRAY_SIZE(builtins); i++) {
			kernels[i].version = CL_MAKE_VERSION(1, 0, 0);
			snprintf(kernels[i].name, sizeof(kernels[i].name), "%s",
				 builtins[i].name);
		}
		return put(kernels, sizeof(kernels), size, value, size_ret);
	case CL_DEVICE_PARENT_DEVICE:
		PUT(cl_device_id, NULL);
	case CL_DEVICE_PARTITION_PROPERTIES:
		return put(&none, sizeof(none), size, value, size_ret);
	case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
		PUT(cl_device_affinity_domain, 0);
	case CL_DEVICE_PARTITION_TYPE:
		return put(NULL, 0, size, value, size_ret);
	case CL_DEVICE_REFERENCE_COUNT:
		PUT(cl_uint, 1);
	case CL_DEVICE_SVM_CAPABILITIES:
		PUT(cl_device_svm_capabilities, svm_caps(d));
	case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
	case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
		PUT(cl_device_atomic_capabilities,
		    CL_DEVICE_ATOMIC_ORDER_RELAXED |
		    CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
		    CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_RetainDevice(cl_device_id d)
{
	return valid(d, NV_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

static cl_int nv_CreateSubDevices(cl_device_id d,
				  const cl_device_partition_property *props,
				  cl_uint n, cl_device_id *out, cl_uint *n_ret)
{
	(void)props; (void)n; (void)out; (void)n_ret;
	return valid(d, NV_DEVICE) ? CL_INVALID_VALUE : CL_INVALID_DEVICE;
}

/* ---- Contexts ---- */

static void ctx_notify(cl_context ctx, const char *msg)
{
	if (ctx->notify)
		ctx->notify(msg, NULL, 0, ctx->notify_data);
}

/*
 * Reserve the unmanaged window in the CPU address space (PROT_NONE, so
 * that malloc and mmap never hand it out: nvsvm never mirrors it) at one
 * of WIN_SLOTS places below 1 << 40, one per live context.
 */
static void *window_reserve(void)
{
	unsigned int k;

	for (k = 0; k < WIN_SLOTS; k++) {
		void *want = (void *)(uintptr_t)(WIN_BASE + k * WIN_SIZE);
		void *p = mmap(want, WIN_SIZE, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			       MAP_FIXED_NOREPLACE, -1, 0);

		if (p == want)
			return p;
		if (p != MAP_FAILED)
			munmap(p, WIN_SIZE);
	}
	return NULL;
}

/*
 * Window buffers: clSVMAlloc and clCreateBuffer memory, driver pages
 * (BUF_ALLOC) that the GPU and the CPU see at the same address in the
 * context's unmanaged window, mapped over its PROT_NONE reservation. Only
 * for a context of one device (a buffer is one file's); where the window
 * has no room, or the driver none, the caller falls back to mirrored
 * anonymous memory.
 */
static void *win_alloc(cl_context ctx, size_t len, size_t align)
{
	uint64_t base = (uintptr_t)ctx->window, end = base + ctx->window_size;
	struct nv_win_buf *b, **pp;
	uint64_t addr, off;
	int fd = ctx->devs[0].fd;

	if (ctx->ndevs != 1 || len > ctx->window_size)
		return NULL;
	if (align < PAGE)
		align = PAGE;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	pthread_mutex_lock(&ctx->lock);
	addr = base;
	for (pp = &ctx->win; ; pp = &(*pp)->next) {
		addr = (addr + align - 1) & ~(uint64_t)(align - 1);
		if (addr + len > end)
			goto fail;
		if (!*pp || addr + len <= (*pp)->addr)
			break;
		addr = (*pp)->addr + (*pp)->size;
	}
	if (nvsvm_buf_alloc(fd, addr, len, 0, &b->handle, &off))
		goto fail;
	if (nvsvm_buf_mmap(fd, addr, len, off, PROT_READ | PROT_WRITE)) {
		nvsvm_buf_free(fd, b->handle);
		goto fail;
	}
	b->addr = addr;
	b->size = len;
	b->next = *pp;
	*pp = b;
	pthread_mutex_unlock(&ctx->lock);
	return (void *)(uintptr_t)addr;
fail:
	pthread_mutex_unlock(&ctx->lock);
	free(b);
	return NULL;
}

static bool in_window(cl_context ctx, const void *p)
{
	return (const uint8_t *)p >= (uint8_t *)ctx->window &&
	       (const uint8_t *)p < (uint8_t *)ctx->window + ctx->window_size;
}

/*
 * Give the buffer at @p back: its CPU mapping becomes PROT_NONE window
 * reservation again, then BUF_FREE takes it off the GPU.
 */
static void win_free(cl_context ctx, void *p)
{
	struct nv_win_buf *b = NULL, **pp;

	pthread_mutex_lock(&ctx->lock);
	for (pp = &ctx->win; *pp; pp = &(*pp)->next) {
		if ((*pp)->addr == (uintptr_t)p) {
			b = *pp;
			*pp = b->next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!b)
		return;
	mmap(p, b->size, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	nvsvm_buf_free(ctx->devs[0].fd, b->handle);
	free(b);
}

/*
 * Window buffers are system memory the CPU maps too: the driver lets the
 * GPU do atomics there only on a link coherent for atomics.
 */
static bool win_atomics(cl_context ctx)
{
	cl_uint i;

	for (i = 0; i < ctx->ndevs; i++)
		if (!(ctx->devs[i].dev->info.caps &
		      NVSVM_CAP_SYSMEM_ATOMICS_ALL))
			return false;
	return true;
}

/*
 * Memory for clSVMAlloc or a buffer: window first, else mirrored; for
 * @atomics (CL_MEM_SVM_ATOMICS), mirrored unless the window has them.
 */
static void *mem_alloc(cl_context ctx, size_t len, size_t align,
		       bool atomics)
{
	size_t extra = align > PAGE ? align : 0;
	uint8_t *p, *q;

	p = atomics && !win_atomics(ctx) ? NULL : win_alloc(ctx, len, align);
	if (p)
		return p;
	p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (!extra)
		return p;
	q = (uint8_t *)(((uintptr_t)p + align - 1) & ~((uintptr_t)align - 1));
	if (q > p)
		munmap(p, q - p);
	if (q + len < p + len + extra)
		munmap(q + len, p + len + extra - (q + len));
	return q;
}

static void mem_free(cl_context ctx, void *p, size_t len)
{
	if (in_window(ctx, p))
		win_free(ctx, p);
	else
		munmap(p, len);
}

static void ctx_destroy(cl_context ctx)
{
	struct nv_svm_alloc *a, *next;
	struct nv_win_buf *b, *bnext;
	cl_uint i;

	/* The area's buffers go with it; their CPU mappings with the window. */
	for (i = 0; i < ctx->ndevs; i++) {
		if (ctx->devs[i].fd < 0)
			continue;
		nvsvm_area_fini(ctx->devs[i].fd);
		nvsvm_close(ctx->devs[i].fd);
	}
	for (b = ctx->win; b; b = bnext) {
		bnext = b->next;
		free(b);
	}
	for (a = ctx->svm; a; a = next) {
		next = a->next;
		if (!in_window(ctx, a->ptr))
			munmap(a->ptr, a->size);
		free(a);
	}
	if (ctx->window)
		munmap(ctx->window, ctx->window_size);
	pthread_mutex_destroy(&ctx->lock);
	obj_free(ctx);
}

static cl_int parse_ctx_props(cl_context ctx,
			      const cl_context_properties *props)
{
	size_t n = 0;

	if (!props) {
		ctx->nprops = 0;
		return CL_SUCCESS;
	}
	while (props[n]) {
		if (n + 3 > ARRAY_SIZE(ctx->props))
			return CL_INVALID_PROPERTY;
		switch (props[n]) {
		case CL_CONTEXT_PLATFORM:
			if ((cl_platform_id)props[n + 1] != &nv_platform)
				return CL_INVALID_PLATFORM;
			break;
		case CL_CONTEXT_INTEROP_USER_SYNC:
			break;
		default:
			return CL_INVALID_PROPERTY;
		}
		ctx->props[n] = props[n];
		ctx->props[n + 1] = props[n + 1];
		n += 2;
	}
	ctx->props[n] = 0;
	ctx->nprops = n + 1;
	return CL_SUCCESS;
}

static cl_context nv_CreateContext(const cl_context_properties *props,
				   cl_uint ndevs, const cl_device_id *devs,
				   void (CL_CALLBACK *notify)(const char *,
							      const void *,
							      size_t, void *),
				   void *data, cl_int *errcode_ret)
{
	cl_context ctx;
	cl_uint i, j;
	cl_int err;
	int ret;

	if (!ndevs || !devs || (!notify && data))
		return fail(errcode_ret, CL_INVALID_VALUE);
	if (ndevs > NV_MAX_DEVICES)
		return fail(errcode_ret, CL_INVALID_DEVICE);
	for (i = 0; i < ndevs; i++) {
		if (!valid(devs[i], NV_DEVICE))
			return fail(errcode_ret, CL_INVALID_DEVICE);
		for (j = 0; j < i; j++)
			if (devs[j] == devs[i])
				return fail(errcode_ret, CL_INVALID_DEVICE);
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	obj_init(ctx, NV_CONTEXT);
	pthread_mutex_init(&ctx->lock, NULL);
	ctx->notify = notify;
	ctx->notify_data = data;
	for (i = 0; i < NV_MAX_DEVICES; i++)
		ctx->devs[i].fd = -1;
	err = parse_ctx_props(ctx, props);
	if (err)
		goto err;
	ctx->window = window_reserve();
	if (!ctx->window) {
		err = CL_OUT_OF_RESOURCES;
		goto err;
	}
	ctx->window_size = WIN_SIZE;
	ctx->ndevs = ndevs;
	for (i = 0; i < ndevs; i++) {
		struct nv_ctx_dev *cd = &ctx->devs[i];

		cd->dev = devs[i];
		cd->fd = nvsvm_open(devs[i]->index);
		if (cd->fd < 0) {
			err = CL_DEVICE_NOT_AVAILABLE;
			goto err;
		}
		/* Mirror the whole address space but the window. */
		ret = nvsvm_area_init(cd->fd, (uintptr_t)ctx->window,
				      ctx->window_size);
		if (ret) {
			err = errno_to_cl(ret);
			goto err;
		}
	}
	set_err(errcode_ret, CL_SUCCESS);
	return ctx;
err:
	ctx_destroy(ctx);
	return fail(errcode_ret, err);
}

static cl_context nv_CreateContextFromType(const cl_context_properties *props,
					   cl_device_type type,
					   void (CL_CALLBACK *notify)(const char *,
								      const void *,
								      size_t, void *),
					   void *data, cl_int *errcode_ret)
{
	cl_device_id devs[NV_MAX_DEVICES];
	cl_uint n = 0;
	cl_int err;

	err = nv_GetDeviceIDs(NULL, type, NV_MAX_DEVICES, devs, &n);
	if (err)
		return fail(errcode_ret, err);
	return nv_CreateContext(props, n, devs, notify, data, errcode_ret);
}

static cl_int nv_RetainContext(cl_context ctx)
{
	if (!valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	ref(ctx);
	return CL_SUCCESS;
}

static cl_int nv_ReleaseContext(cl_context ctx)
{
	if (!valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	if (unref(ctx))
		ctx_destroy(ctx);
	return CL_SUCCESS;
}

static cl_int nv_GetContextInfo(cl_context ctx, cl_context_info param,
				size_t size, void *value, size_t *size_ret)
{
	cl_device_id devs[NV_MAX_DEVICES];
	cl_uint i;

	if (!valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	switch (param) {
	case CL_CONTEXT_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)ctx->obj.refs);
	case CL_CONTEXT_NUM_DEVICES:
		PUT(cl_uint, ctx->ndevs);
	case CL_CONTEXT_DEVICES:
		for (i = 0; i < ctx->ndevs; i++)
			devs[i] = ctx->devs[i].dev;
		return put(devs, ctx->ndevs * sizeof(devs[0]), size, value,
			   size_ret);
	case CL_CONTEXT_PROPERTIES:
		return put(ctx->props, ctx->nprops * sizeof(ctx->props[0]),
			   size, value, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

static struct nv_ctx_dev *ctx_dev(cl_context ctx, cl_device_id d)
{
	cl_uint i;

	for (i = 0; i < ctx->ndevs; i++)
		if (ctx->devs[i].dev == d)
			return &ctx->devs[i];
	return NULL;
}

/* ---- Command queues and the GPU ---- */

static cl_command_queue queue_create(cl_context ctx, cl_device_id d,
				     cl_command_queue_properties props,
				     cl_int *errcode_ret)
{
	cl_command_queue q;
	int ret;

	if (!valid(ctx, NV_CONTEXT))
		return fail(errcode_ret, CL_INVALID_CONTEXT);
	if (!valid(d, NV_DEVICE) || !ctx_dev(ctx, d))
		return fail(errcode_ret, CL_INVALID_DEVICE);
	if (props & ~(cl_command_queue_properties)
	    (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
	     CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
	     CL_QUEUE_ON_DEVICE_DEFAULT))
		return fail(errcode_ret, CL_INVALID_VALUE);
	if (props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT))
		return fail(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
	q = calloc(1, sizeof(*q));
	if (!q)
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	obj_init(q, NV_QUEUE);
	q->ctx = ctx;
	q->cdev = ctx_dev(ctx, d);
	q->props = props;
	pthread_mutex_init(&q->lock, NULL);
	/* A channel on the context's area: every CPU pointer is a GPU pointer. */
	ret = nvsvm_chan_create(q->cdev->fd, NVSVM_CHAN_JOIN_AREA, &q->chan);
	if (ret) {
		pthread_mutex_destroy(&q->lock);
		obj_free(q);
		return fail(errcode_ret, errno_to_cl(ret));
	}
	ref(ctx);
	set_err(errcode_ret, CL_SUCCESS);
	return q;
}

static cl_command_queue nv_CreateCommandQueue(cl_context ctx, cl_device_id d,
					      cl_command_queue_properties props,
					      cl_int *errcode_ret)
{
	return queue_create(ctx, d, props, errcode_ret);
}

static cl_command_queue
nv_CreateCommandQueueWithProperties(cl_context ctx, cl_device_id d,
				    const cl_queue_properties *props,
				    cl_int *errcode_ret)
{
	cl_command_queue_properties qp = 0;
	size_t n;

	for (n = 0; props && props[n]; n += 2) {
		switch (props[n]) {
		case CL_QUEUE_PROPERTIES:
			qp = props[n + 1];
			break;
		case CL_QUEUE_SIZE:
			return fail(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
		default:
			return fail(errcode_ret, CL_INVALID_VALUE);
		}
	}
	return queue_create(ctx, d, qp, errcode_ret);
}

static cl_int nv_RetainCommandQueue(cl_command_queue q)
{
	if (!valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	ref(q);
	return CL_SUCCESS;
}

static cl_int nv_ReleaseCommandQueue(cl_command_queue q)
{
	cl_context ctx;

	if (!valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!unref(q))
		return CL_SUCCESS;
	ctx = q->ctx;
	if (q->chan)
		nvsvm_chan_destroy(q->cdev->fd, q->chan);
	pthread_mutex_destroy(&q->lock);
	obj_free(q);
	return nv_ReleaseContext(ctx);
}

static cl_int nv_GetCommandQueueInfo(cl_command_queue q,
				     cl_command_queue_info param, size_t size,
				     void *value, size_t *size_ret)
{
	if (!valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	switch (param) {
	case CL_QUEUE_CONTEXT:
		PUT(cl_context, q->ctx);
	case CL_QUEUE_DEVICE:
		PUT(cl_device_id, q->cdev->dev);
	case CL_QUEUE_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)q->obj.refs);
	case CL_QUEUE_PROPERTIES:
		PUT(cl_command_queue_properties, q->props);
	case CL_QUEUE_SIZE:
		return CL_INVALID_COMMAND_QUEUE;
	case CL_QUEUE_DEVICE_DEFAULT:
		PUT(cl_command_queue, NULL);
	case CL_QUEUE_PROPERTIES_ARRAY:
		return put(NULL, 0, size, value, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

/*
 * Run @n operations on the queue's channel, in programs of at most
 * NVSVM_EXEC_MAX_OPS. Returns CL_SUCCESS, or the negative execution status
 * of a command that failed on the GPU: CL_OUT_OF_RESOURCES when an access
 * was cancelled (the address was not the process's, or not writable),
 * and after it the channel is replaced before the next command.
 */
static cl_int q_exec(cl_command_queue q, struct nvsvm_op *ops, size_t n)
{
	struct nvsvm_exec ex;
	cl_int err = CL_SUCCESS;
	size_t done = 0;
	int ret;

	pthread_mutex_lock(&q->lock);
	if (!q->chan) {
		ret = nvsvm_chan_create(q->cdev->fd, NVSVM_CHAN_JOIN_AREA,
					&q->chan);
		if (ret) {
			q->chan = 0;
			err = errno_to_cl(ret);
			goto out;
		}
	}
	while (done < n) {
		uint32_t chunk = n - done > NVSVM_EXEC_MAX_OPS ?
				 NVSVM_EXEC_MAX_OPS : (uint32_t)(n - done);

		ret = nvsvm_exec(q->cdev->fd, q->chan, NVSVM_GPC_ANY,
				 ops + done, chunk, EXEC_TIMEOUT_MS, &ex);
		if (ret) {
			err = errno_to_cl(ret);
			break;
		}
		if (ex.status != NVSVM_EXEC_OK) {
			char msg[160];

			snprintf(msg, sizeof(msg),
				 "nvsvm: command failed on the GPU: %s, %s access at 0x%llx",
				 nvsvm_status_name(ex.status),
				 nvsvm_access_name(ex.fault_access),
				 (unsigned long long)ex.fault_addr);
			ctx_notify(q->ctx, msg);
			nvsvm_chan_destroy(q->cdev->fd, q->chan);
			q->chan = 0;
			err = CL_OUT_OF_RESOURCES;
			break;
		}
		done += chunk;
	}
out:
	pthread_mutex_unlock(&q->lock);
	return err;
}

/* ---- Events, and commands that wait for them ---- */

/*
 * A command runs when it is enqueued, on the calling thread, unless it
 * has to wait: for an event of its wait list that is not complete (a
 * user event not set yet, or a command deferred itself), or for a
 * command deferred earlier on its queue. Then it is deferred: the
 * enqueue copies what the command needs (struct nv_cmd, its wait list,
 * fill pattern, pointer arrays, kernel arguments), retains the events
 * and buffers it uses, appends it to its queue and returns its event in
 * CL_QUEUED. drain() runs deferred commands that became ready, in each
 * queue's order, on the thread that made them ready: the one that called
 * clSetUserEventStatus, or the one whose command, run at enqueue, was the
 * last a queue's head waited for. A waiting thread (blocking enqueue,
 * clFinish, clWaitForEvents) only sleeps on nv_ev_cond.
 *
 * nv_ev_lock, one for the process, covers what can change after an
 * enqueue returns: the status and callbacks of events that are not final
 * (user events, deferred commands) and every queue's deferred list,
 * active count and busy flag. Commands and callbacks run without it.
 */
static pthread_mutex_t nv_ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nv_ev_cond = PTHREAD_COND_INITIALIZER;
static cl_command_queue nv_blocked;	/* queues with deferred commands */

enum nv_cmd_kind {
	NV_CMD_NONE,			/* markers, barriers, maps */
	NV_CMD_COPY,
	NV_CMD_FILL,
	NV_CMD_MIGRATE,			/* SVM pointers */
	NV_CMD_MIGRATE_MEMS,		/* buffers */
	NV_CMD_SVM_FREE,
	NV_CMD_KERNEL,
};

#define NV_CMD_MEMS	2

/*
 * A command: filled by its enqueue function, then run by cmd_submit()
 * or, deferred, kept (cmd_keep() makes the pointers its own) until
 * drain() runs it.
 */
struct nv_cmd {
	cl_command_queue q;
	enum nv_cmd_kind kind;
	cl_command_type type;
	bool wait_failed;
	cl_uint nwait;
	const cl_event *wait;
	cl_ulong t0;
	cl_mem mems[NV_CMD_MEMS];	/* buffers it uses */
	union {
		struct {
			void *dst;
			const void *src;
			size_t size;
		} copy;
		struct {
			void *ptr;
			const void *pattern;
			size_t psize, size;
		} fill;
		struct {
			cl_uint n;
			const void **ptrs;
			const size_t *sizes;
			const cl_mem *mems;
			bool to_host;
		} migrate;
		struct {
			cl_uint n;
			void **ptrs;
			void (CL_CALLBACK *fn)(cl_command_queue, cl_uint,
					       void *[], void *);
			void *data;
		} free;
		struct {
			const struct nv_builtin *bi;
			const struct nv_arg *args;
			size_t items;
		} kernel;
	} u;
	/* Deferred: */
	struct nv_cmd *next;
	cl_event ev;
	void *own;			/* the copies of cmd_keep() */
};

static cl_int cmd_run(struct nv_cmd *c);
static cl_int nv_ReleaseEvent(cl_event ev);
static cl_int nv_ReleaseMemObject(cl_mem m);

static cl_int check_wait_list(cl_command_queue q, cl_uint n,
			      const cl_event *list)
{
	cl_uint i;

	if ((n == 0) != (list == NULL))
		return CL_INVALID_EVENT_WAIT_LIST;
	for (i = 0; i < n; i++) {
		if (!valid(list[i], NV_EVENT))
			return CL_INVALID_EVENT_WAIT_LIST;
		if (list[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	return CL_SUCCESS;
}

/*
 * The command protocol: cmd_begin() checks the queue and the wait list;
 * the caller validates its own arguments, describes the command in @c
 * (kind, u, mems) and calls cmd_submit(), which runs it (unless the wait
 * list holds a failed event) or defers it, and returns the event if one
 * was asked for.
 */
static cl_int cmd_begin(struct nv_cmd *c, cl_command_queue q, cl_uint n,
			const cl_event *list)
{
	if (!valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	c->q = q;
	c->kind = NV_CMD_NONE;
	c->wait_failed = false;
	c->nwait = n;
	c->wait = list;
	c->t0 = now_ns();
	c->mems[0] = NULL;
	c->mems[1] = NULL;
	return check_wait_list(q, n, list);
}

/* Under nv_ev_lock: whether @c's wait list is final; sets wait_failed. */
static bool waits_done(struct nv_cmd *c)
{
	cl_uint i;

	c->wait_failed = false;
	for (i = 0; i < c->nwait; i++) {
		if (c->wait[i]->status > CL_COMPLETE)
			return false;
		if (c->wait[i]->status < 0)
			c->wait_failed = true;
	}
	return true;
}

/*
 * Under nv_ev_lock: @ev's status becomes @status; the callbacks that
 * status reaches move, in order, to the end of the list at @fire.
 */
static void event_set(cl_event ev, cl_int status, struct nv_event_cb **fire)
{
	struct nv_event_cb **pp = &ev->cbs, *cb;

	while (*fire)
		fire = &(*fire)->next;
	ev->status = status;
	while ((cb = *pp)) {
		if (status > cb->type) {
			pp = &cb->next;
			continue;
		}
		*pp = cb->next;
		cb->next = NULL;
		*fire = cb;
		fire = &cb->next;
	}
	pthread_cond_broadcast(&nv_ev_cond);
}

/* Call (without nv_ev_lock) and free callbacks event_set() collected. */
static void event_fire(cl_event ev, cl_int status, struct nv_event_cb *cb)
{
	struct nv_event_cb *next;

	for (; cb; cb = next) {
		next = cb->next;
		cb->fn(ev, status < 0 ? status : cb->type, cb->data);
		free(cb);
	}
}

static cl_event event_new(cl_command_queue q, cl_command_type type,
			  cl_int status, cl_ulong t0)
{
	cl_event ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	obj_init(ev, NV_EVENT);
	ev->ctx = q->ctx;
	ev->queue = q;
	ev->type = type;
	ev->status = status;
	ev->t_queued = t0;
	ev->t_submit = t0;
	ev->t_start = t0;
	ev->t_end = now_ns();
	ref(q);
	return ev;
}

/* A command that ran at enqueue: its event is final from the start. */
static cl_int cmd_end(struct nv_cmd *c, cl_int status, bool blocking,
		      cl_event *event)
{
	if (c->wait_failed)
		status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	if (event) {
		*event = event_new(c->q, c->type, status, c->t0);
		if (!*event)
			return CL_OUT_OF_HOST_MEMORY;
	}
	/* A blocking command reports what its event would. */
	return blocking && status < 0 ? status : CL_SUCCESS;
}

/* Release what cmd_keep() retained and the command itself. */
static void cmd_free(struct nv_cmd *d)
{
	const struct nv_arg *a = d->u.kernel.args;
	unsigned int i;

	for (i = 0; i < d->nwait; i++)
		nv_ReleaseEvent(d->wait[i]);
	for (i = 0; i < NV_CMD_MEMS; i++)
		if (d->mems[i])
			nv_ReleaseMemObject(d->mems[i]);
	if (d->kind == NV_CMD_MIGRATE_MEMS)
		for (i = 0; i < d->u.migrate.n; i++)
			nv_ReleaseMemObject(d->u.migrate.mems[i]);
	if (d->kind == NV_CMD_KERNEL)
		for (i = 0; i < d->u.kernel.bi->nargs; i++)
			if (a[i].mem)
				nv_ReleaseMemObject(a[i].mem);
	if (d->ev)
		nv_ReleaseEvent(d->ev);
	free(d->own);
	free(d);
}

/* Bytes cmd_keep() copies after the wait list. */
static size_t cmd_own_size(const struct nv_cmd *d)
{
	switch (d->kind) {
	case NV_CMD_FILL:
		return d->u.fill.psize;
	case NV_CMD_MIGRATE:
		return d->u.migrate.n * (sizeof(void *) + sizeof(size_t));
	case NV_CMD_MIGRATE_MEMS:
		return d->u.migrate.n * sizeof(cl_mem);
	case NV_CMD_SVM_FREE:
		return d->u.free.n * sizeof(void *);
	case NV_CMD_KERNEL:
		return sizeof(struct nv_arg) * NV_MAX_ARGS;
	default:
		return 0;
	}
}

/*
 * A deferred command keeps copies of the arrays the caller may reuse
 * once the enqueue returns (the spec has kernel arguments, fill patterns
 * and pointer lists captured at enqueue), and references on the events
 * and buffers it uses.
 */
static cl_int cmd_keep(struct nv_cmd *d)
{
	size_t wl = d->nwait * sizeof(cl_event), n = cmd_own_size(d);
	struct nv_arg *args;
	cl_event *wait;
	uint8_t *p;
	cl_uint i;

	d->own = NULL;
	if (wl + n) {
		d->own = malloc(wl + n);
		if (!d->own)
			return CL_OUT_OF_HOST_MEMORY;
	}
	wait = d->own;
	p = (uint8_t *)d->own + wl;
	for (i = 0; i < d->nwait; i++) {
		wait[i] = d->wait[i];
		ref(wait[i]);
	}
	d->wait = wait;
	for (i = 0; i < NV_CMD_MEMS; i++)
		if (d->mems[i])
			ref(d->mems[i]);
	switch (d->kind) {
	case NV_CMD_FILL:
		d->u.fill.pattern = memcpy(p, d->u.fill.pattern, n);
		break;
	case NV_CMD_MIGRATE:
		n = d->u.migrate.n;
		d->u.migrate.ptrs = memcpy(p, d->u.migrate.ptrs,
					   n * sizeof(void *));
		p += n * sizeof(void *);
		if (d->u.migrate.sizes)
			d->u.migrate.sizes = memcpy(p, d->u.migrate.sizes,
						    n * sizeof(size_t));
		break;
	case NV_CMD_MIGRATE_MEMS:
		d->u.migrate.mems = memcpy(p, d->u.migrate.mems, n);
		for (i = 0; i < d->u.migrate.n; i++)
			ref(d->u.migrate.mems[i]);
		break;
	case NV_CMD_SVM_FREE:
		d->u.free.ptrs = memcpy(p, d->u.free.ptrs, n);
		break;
	case NV_CMD_KERNEL:
		args = memcpy(p, d->u.kernel.args, n);
		for (i = 0; i < d->u.kernel.bi->nargs; i++)
			if (args[i].mem)
				ref(args[i].mem);
		d->u.kernel.args = args;
		break;
	default:
		break;
	}
	return CL_SUCCESS;
}

/*
 * Run the deferred commands that are ready: a queue's head whose wait
 * list is final, while nothing else runs on that queue. Returns when
 * none is left that could run now.
 */
static void drain(void)
{
	struct nv_event_cb *cbs;
	cl_command_queue q, *pp;
	struct nv_cmd *d;
	cl_int status;

	pthread_mutex_lock(&nv_ev_lock);
	for (;;) {
		for (q = nv_blocked; q; q = q->next_blocked)
			if (!q->busy && !q->active && waits_done(q->head))
				break;
		if (!q)
			break;
		d = q->head;
		q->busy = true;
		cbs = NULL;
		status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
		if (!d->wait_failed) {
			d->ev->t_submit = now_ns();
			d->ev->t_start = d->ev->t_submit;
			event_set(d->ev, CL_RUNNING, &cbs);
		}
		pthread_mutex_unlock(&nv_ev_lock);
		event_fire(d->ev, CL_RUNNING, cbs);
		if (!d->wait_failed)
			status = cmd_run(d);
		if (status > CL_COMPLETE)
			status = CL_COMPLETE;
		pthread_mutex_lock(&nv_ev_lock);
		q->head = d->next;
		if (!q->head) {
			q->tail = NULL;
			for (pp = &nv_blocked; *pp != q; pp = &(*pp)->next_blocked)
				;
			*pp = q->next_blocked;
		}
		q->busy = false;
		cbs = NULL;
		d->ev->t_end = now_ns();
		event_set(d->ev, status, &cbs);
		pthread_mutex_unlock(&nv_ev_lock);
		event_fire(d->ev, status, cbs);
		cmd_free(d);
		pthread_mutex_lock(&nv_ev_lock);
	}
	pthread_mutex_unlock(&nv_ev_lock);
}

/* Wait, without running anything, until @ev is final; its status. */
static cl_int event_wait(cl_event ev)
{
	cl_int status;

	pthread_mutex_lock(&nv_ev_lock);
	while (ev->status > CL_COMPLETE)
		pthread_cond_wait(&nv_ev_cond, &nv_ev_lock);
	status = ev->status;
	pthread_mutex_unlock(&nv_ev_lock);
	return status;
}

static cl_int cmd_defer(struct nv_cmd *c, bool blocking, cl_event *event)
{
	cl_command_queue q = c->q;
	struct nv_cmd *d = malloc(sizeof(*d));
	cl_int status;
	cl_event ev;

	if (!d)
		return CL_OUT_OF_HOST_MEMORY;
	*d = *c;
	d->next = NULL;
	d->ev = NULL;
	if (cmd_keep(d) != CL_SUCCESS) {
		free(d);
		return CL_OUT_OF_HOST_MEMORY;
	}
	d->ev = event_new(q, c->type, CL_QUEUED, c->t0);
	if (!d->ev) {
		cmd_free(d);
		return CL_OUT_OF_HOST_MEMORY;
	}
	if (event) {
		ref(d->ev);
		*event = d->ev;
	}
	ev = d->ev;
	if (blocking)
		ref(ev);
	pthread_mutex_lock(&nv_ev_lock);
	if (q->head) {
		q->tail->next = d;
	} else {
		q->head = d;
		q->next_blocked = nv_blocked;
		nv_blocked = q;
	}
	q->tail = d;
	pthread_mutex_unlock(&nv_ev_lock);
	/* Its queue's head may have become ready meanwhile. */
	drain();
	if (!blocking)
		return CL_SUCCESS;
	status = event_wait(ev);
	nv_ReleaseEvent(ev);
	return status < 0 ? status : CL_SUCCESS;
}

/*
 * Run @c now, or defer it when it has to wait (see above); @blocking:
 * return once it is done, with its status if that is an error.
 */
static cl_int cmd_submit(struct nv_cmd *c, cl_command_type type,
			 cl_bool blocking, cl_event *event)
{
	cl_command_queue q = c->q;
	cl_int status = CL_COMPLETE;
	bool now, more;

	c->type = type;
	pthread_mutex_lock(&nv_ev_lock);
	now = !q->head && waits_done(c);
	if (now)
		q->active++;
	pthread_mutex_unlock(&nv_ev_lock);
	if (!now)
		return cmd_defer(c, blocking, event);
	if (!c->wait_failed)
		status = cmd_run(c);
	pthread_mutex_lock(&nv_ev_lock);
	more = !--q->active && q->head;
	if (!q->active)
		pthread_cond_broadcast(&nv_ev_cond);
	pthread_mutex_unlock(&nv_ev_lock);
	if (more)
		drain();
	return cmd_end(c, status, blocking, event);
}

static cl_int nv_WaitForEvents(cl_uint n, const cl_event *list)
{
	cl_int err = CL_SUCCESS;
	cl_uint i;

	if (!n || !list)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		if (!valid(list[i], NV_EVENT))
			return CL_INVALID_EVENT;
		if (list[i]->ctx != list[0]->ctx)
			return CL_INVALID_CONTEXT;
	}
	for (i = 0; i < n; i++)
		if (event_wait(list[i]) < 0)
			err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	return err;
}

static cl_int event_status(cl_event ev)
{
	cl_int status;

	pthread_mutex_lock(&nv_ev_lock);
	status = ev->status;
	pthread_mutex_unlock(&nv_ev_lock);
	return status;
}

static cl_int nv_GetEventInfo(cl_event ev, cl_event_info param, size_t size,
			      void *value, size_t *size_ret)
{
	if (!valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	switch (param) {
	case CL_EVENT_COMMAND_QUEUE:
		PUT(cl_command_queue, ev->queue);
	case CL_EVENT_CONTEXT:
		PUT(cl_context, ev->ctx);
	case CL_EVENT_COMMAND_TYPE:
		PUT(cl_command_type, ev->type);
	case CL_EVENT_COMMAND_EXECUTION_STATUS:
		PUT(cl_int, event_status(ev));
	case CL_EVENT_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)ev->obj.refs);
	default:
		return CL_INVALID_VALUE;
	}
}

/* The times of a deferred command are written before it is final. */
static cl_int nv_GetEventProfilingInfo(cl_event ev, cl_profiling_info param,
				       size_t size, void *value,
				       size_t *size_ret)
{
	if (!valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	if (!ev->queue || !(ev->queue->props & CL_QUEUE_PROFILING_ENABLE) ||
	    event_status(ev) != CL_COMPLETE)
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	switch (param) {
	case CL_PROFILING_COMMAND_QUEUED:
		PUT(cl_ulong, ev->t_queued);
	case CL_PROFILING_COMMAND_SUBMIT:
		PUT(cl_ulong, ev->t_submit);
	case CL_PROFILING_COMMAND_START:
		PUT(cl_ulong, ev->t_start);
	case CL_PROFILING_COMMAND_END:
	case CL_PROFILING_COMMAND_COMPLETE:
		PUT(cl_ulong, ev->t_end);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_RetainEvent(cl_event ev)
{
	if (!valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	ref(ev);
	return CL_SUCCESS;
}

/* A user event released unset drops the callbacks it never reached. */
static cl_int nv_ReleaseEvent(cl_event ev)
{
	struct nv_event_cb *cb, *next;
	cl_command_queue q;
	cl_context ctx;

	if (!valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	if (!unref(ev))
		return CL_SUCCESS;
	q = ev->queue;
	ctx = ev->ctx;
	for (cb = ev->cbs; cb; cb = next) {
		next = cb->next;
		free(cb);
	}
	obj_free(ev);
	return q ? nv_ReleaseCommandQueue(q) : nv_ReleaseContext(ctx);
}

static cl_int nv_SetEventCallback(cl_event ev, cl_int type,
				  void (CL_CALLBACK *fn)(cl_event, cl_int,
							 void *),
				  void *data)
{
	struct nv_event_cb *cb, **pp;
	cl_int status;

	if (!valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	if (!fn || (type != CL_COMPLETE && type != CL_RUNNING &&
		    type != CL_SUBMITTED))
		return CL_INVALID_VALUE;
	cb = malloc(sizeof(*cb));
	if (!cb)
		return CL_OUT_OF_HOST_MEMORY;
	cb->next = NULL;
	cb->fn = fn;
	cb->data = data;
	cb->type = type;
	pthread_mutex_lock(&nv_ev_lock);
	status = ev->status;
	if (status > type) {
		for (pp = &ev->cbs; *pp; pp = &(*pp)->next)
			;
		*pp = cb;
		cb = NULL;
	}
	pthread_mutex_unlock(&nv_ev_lock);
	/* The event is past that status already: call back now. */
	event_fire(ev, status, cb);
	return CL_SUCCESS;
}

static cl_event nv_CreateUserEvent(cl_context ctx, cl_int *errcode_ret)
{
	cl_event ev;

	if (!valid(ctx, NV_CONTEXT))
		return fail(errcode_ret, CL_INVALID_CONTEXT);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	obj_init(ev, NV_EVENT);
	ev->ctx = ctx;
	ev->type = CL_COMMAND_USER;
	ev->status = CL_SUBMITTED;
	ev->t_queued = now_ns();
	ref(ctx);
	set_err(errcode_ret, CL_SUCCESS);
	return ev;
}

/*
 * CL_COMPLETE, or a negative error that fails every command waiting for
 * @ev in its wait list. The commands that became ready run here, on the
 * caller's thread, before it returns.
 */
static cl_int nv_SetUserEventStatus(cl_event ev, cl_int status)
{
	struct nv_event_cb *cbs = NULL;

	if (!valid(ev, NV_EVENT) || ev->queue || ev->type != CL_COMMAND_USER)
		return CL_INVALID_EVENT;
	if (status > CL_COMPLETE)
		return CL_INVALID_VALUE;
	pthread_mutex_lock(&nv_ev_lock);
	if (ev->status <= CL_COMPLETE) {
		pthread_mutex_unlock(&nv_ev_lock);
		return CL_INVALID_OPERATION;
	}
	ev->t_end = now_ns();
	event_set(ev, status, &cbs);
	pthread_mutex_unlock(&nv_ev_lock);
	event_fire(ev, status, cbs);
	drain();
	return CL_SUCCESS;
}

/* Commands are submitted as soon as they are ready: nothing to flush. */
static cl_int nv_Flush(cl_command_queue q)
{
	return valid(q, NV_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

/* Wait until the queue's deferred commands, and any it runs now, ended. */
static cl_int nv_Finish(cl_command_queue q)
{
	if (!valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	pthread_mutex_lock(&nv_ev_lock);
	while (q->head || q->active)
		pthread_cond_wait(&nv_ev_cond, &nv_ev_lock);
	pthread_mutex_unlock(&nv_ev_lock);
	return CL_SUCCESS;
}

/*
 * Markers and barriers: commands that do nothing. The queue's order does
 * the rest: every queue, out-of-order ones too, runs its commands in the
 * order they were enqueued.
 */
static cl_int nv_EnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n,
					   const cl_event *list,
					   cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, n, list);

	if (err)
		return err;
	return cmd_submit(&c, CL_COMMAND_MARKER, CL_FALSE, event);
}

static cl_int nv_EnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n,
					    const cl_event *list,
					    cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, n, list);

	if (err)
		return err;
	return cmd_submit(&c, CL_COMMAND_BARRIER, CL_FALSE, event);
}

static cl_int nv_EnqueueMarker(cl_command_queue q, cl_event *event)
{
	if (!event)
		return CL_INVALID_VALUE;
	return nv_EnqueueMarkerWithWaitList(q, 0, NULL, event);
}

static cl_int nv_EnqueueBarrier(cl_command_queue q)
{
	return nv_EnqueueBarrierWithWaitList(q, 0, NULL, NULL);
}

static cl_int nv_EnqueueWaitForEvents(cl_command_queue q, cl_uint n,
				      const cl_event *list)
{
	if (!valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!n || !list)
		return CL_INVALID_VALUE;
	return nv_EnqueueBarrierWithWaitList(q, n, list, NULL);
}

/* ---- SVM ---- */

static bool aligned8(uint64_t v)
{
	return (v & 7) == 0;
}

static void *nv_SVMAlloc(cl_context ctx, cl_svm_mem_flags flags, size_t size,
			 cl_uint alignment)
{
	cl_svm_mem_flags rw = flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
				       CL_MEM_READ_ONLY);
	struct nv_svm_alloc *a;
	size_t len;
	uint8_t *p;
	cl_uint i;

	if (!valid(ctx, NV_CONTEXT) || !size || size > MAX_ALLOC)
		return NULL;
	if (flags & ~(cl_svm_mem_flags)(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
					CL_MEM_READ_ONLY |
					CL_MEM_SVM_FINE_GRAIN_BUFFER |
					CL_MEM_SVM_ATOMICS))
		return NULL;
	if (rw && (rw & (rw - 1)))
		return NULL;
	if ((flags & CL_MEM_SVM_ATOMICS) &&
	    !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER))
		return NULL;
	for (i = 0; i < ctx->ndevs; i++)
		if ((flags & CL_MEM_SVM_ATOMICS) &&
		    !(svm_caps(ctx->devs[i].dev) & CL_DEVICE_SVM_ATOMICS))
			return NULL;
	if (alignment & (alignment - 1))
		return NULL;
	len = (size + PAGE - 1) & ~(PAGE - 1);
	p = mem_alloc(ctx, len, alignment, flags & CL_MEM_SVM_ATOMICS);
	if (!p)
		return NULL;
	a = malloc(sizeof(*a));
	if (!a) {
		mem_free(ctx, p, len);
		return NULL;
	}
	a->ptr = p;
	a->size = len;
	pthread_mutex_lock(&ctx->lock);
	a->next = ctx->svm;
	ctx->svm = a;
	pthread_mutex_unlock(&ctx->lock);
	return p;
}

/* The allocation of @ctx holding @ptr, or NULL. */
static struct nv_svm_alloc *svm_find(cl_context ctx, const void *ptr)
{
	struct nv_svm_alloc *a;

	pthread_mutex_lock(&ctx->lock);
	for (a = ctx->svm; a; a = a->next)
		if ((const uint8_t *)ptr >= (uint8_t *)a->ptr &&
		    (const uint8_t *)ptr < (uint8_t *)a->ptr + a->size)
			break;
	pthread_mutex_unlock(&ctx->lock);
	return a;
}

static void nv_SVMFree(cl_context ctx, void *ptr)
{
	struct nv_svm_alloc **pp, *a = NULL;

	if (!valid(ctx, NV_CONTEXT) || !ptr)
		return;
	pthread_mutex_lock(&ctx->lock);
	for (pp = &ctx->svm; *pp; pp = &(*pp)->next) {
		if ((*pp)->ptr == ptr) {
			a = *pp;
			*pp = a->next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	if (a) {
		mem_free(ctx, a->ptr, a->size);
		free(a);
	}
}

static cl_int nv_EnqueueSVMFree(cl_command_queue q, cl_uint n, void *ptrs[],
				void (CL_CALLBACK *fn)(cl_command_queue,
						       cl_uint, void *[],
						       void *),
				void *data, cl_uint nw, const cl_event *wl,
				cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);
	cl_uint i;

	if (err)
		return err;
	if ((n == 0) != (ptrs == NULL))
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++)
		if (!ptrs[i])
			return CL_INVALID_VALUE;
	c.kind = NV_CMD_SVM_FREE;
	c.u.free.n = n;
	c.u.free.ptrs = ptrs;
	c.u.free.fn = fn;
	c.u.free.data = data;
	return cmd_submit(&c, CL_COMMAND_SVM_FREE, CL_FALSE, event);
}

/*
 * A copy on the GPU: COPY takes 8-byte aligned addresses and lengths; any
 * other copy is done by the host (fine-grained system SVM: both see the
 * same memory).
 */
static cl_int gpu_copy(cl_command_queue q, void *dst, const void *src,
		       size_t size)
{
	struct nvsvm_op op;

	if (!size)
		return CL_SUCCESS;
	if (!aligned8((uintptr_t)dst) || !aligned8((uintptr_t)src) ||
	    !aligned8(size) || size > MAX_ALLOC) {
		memmove(dst, src, size);
		return CL_SUCCESS;
	}
	op = nvsvm_op_copy(nvsvm_ptr(dst), nvsvm_ptr(src), size);
	return q_exec(q, &op, 1);
}

static void cmd_copy(struct nv_cmd *c, void *dst, const void *src,
		     size_t size)
{
	c->kind = NV_CMD_COPY;
	c->u.copy.dst = dst;
	c->u.copy.src = src;
	c->u.copy.size = size;
}

static bool overlap(const void *a, const void *b, size_t size)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y + size && y < x + size;
}

static cl_int nv_EnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking,
				  void *dst, const void *src, size_t size,
				  cl_uint nw, const cl_event *wl,
				  cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	if (!dst || !src)
		return CL_INVALID_VALUE;
	if (overlap(dst, src, size))
		return CL_MEM_COPY_OVERLAP;
	cmd_copy(&c, dst, src, size);
	return cmd_submit(&c, CL_COMMAND_SVM_MEMCPY, blocking, event);
}

/*
 * FILL writes one u64 pattern: a pattern of 1, 2, 4 or 8 bytes is
 * repeated to 8, and the aligned middle of the range is filled by the
 * GPU; the unaligned ends and longer patterns are written by the host.
 */
static cl_int gpu_fill(cl_command_queue q, void *ptr, const void *pattern,
		       size_t psize, size_t size)
{
	uint8_t *p = ptr, *end = p + size;
	uint8_t *mid = (uint8_t *)(((uintptr_t)p + 7) & ~(uintptr_t)7);
	uint8_t *mend = (uint8_t *)((uintptr_t)end & ~(uintptr_t)7);
	uint64_t word = 0;
	struct nvsvm_op op;
	size_t i;

	if (psize > 8 || mid >= mend) {
		for (i = 0; i < size; i += psize)
			memcpy(p + i, pattern, psize);
		return CL_SUCCESS;
	}
	/* ptr is aligned to psize, so mid and mend keep the pattern's phase. */
	for (i = 0; i < 8; i += psize)
		memcpy((uint8_t *)&word + i, pattern, psize);
	for (i = 0; p + i < mid; i += psize)
		memcpy(p + i, pattern, psize);
	for (i = 0; mend + i < end; i += psize)
		memcpy(mend + i, pattern, psize);
	op = nvsvm_op_fill(nvsvm_ptr(mid), mend - mid, word);
	return q_exec(q, &op, 1);
}

static void cmd_fill(struct nv_cmd *c, void *ptr, const void *pattern,
		     size_t psize, size_t size)
{
	c->kind = NV_CMD_FILL;
	c->u.fill.ptr = ptr;
	c->u.fill.pattern = pattern;
	c->u.fill.psize = psize;
	c->u.fill.size = size;
}

static bool fill_args_ok(const void *ptr, const void *pattern, size_t psize,
			 size_t size)
{
	if (!ptr || !pattern || !psize || psize > 128 ||
	    (psize & (psize - 1)))
		return false;
	return ((uintptr_t)ptr % psize) == 0 && (size % psize) == 0;
}

static cl_int nv_EnqueueSVMMemFill(cl_command_queue q, void *ptr,
				   const void *pattern, size_t psize,
				   size_t size, cl_uint nw, const cl_event *wl,
				   cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	if (!fill_args_ok(ptr, pattern, psize, size))
		return CL_INVALID_VALUE;
	cmd_fill(&c, ptr, pattern, psize, size);
	return cmd_submit(&c, CL_COMMAND_SVM_MEMFILL, CL_FALSE, event);
}

static cl_int nv_EnqueueSVMMap(cl_command_queue q, cl_bool blocking,
			       cl_map_flags flags, void *ptr, size_t size,
			       cl_uint nw, const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	(void)flags;
	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	return cmd_submit(&c, CL_COMMAND_SVM_MAP, blocking, event);
}

static cl_int nv_EnqueueSVMUnmap(cl_command_queue q, void *ptr, cl_uint nw,
				 const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	if (!ptr)
		return CL_INVALID_VALUE;
	return cmd_submit(&c, CL_COMMAND_SVM_UNMAP, CL_FALSE, event);
}

/*
 * clEnqueueSVMMigrateMem: MIGRATE the pages to VRAM, or back to system
 * memory with CL_MIGRATE_MEM_OBJECT_HOST. Migration is a hint: where the
 * module has no device memory (EOPNOTSUPP), a move to the device maps the
 * pages ahead of time with MAP instead, and a move to the host does
 * nothing (the pages are there). Window buffers (clSVMAlloc, buffers)
 * are driver memory, always mapped on the GPU: they stay where they are.
 */
static void migrate_one(cl_command_queue q, const void *ptr, size_t size,
			bool to_host)
{
	uint64_t start = nvsvm_ptr(ptr) & ~(PAGE - 1);
	uint64_t end = (nvsvm_ptr(ptr) + size + PAGE - 1) & ~(PAGE - 1);
	int fd = q->cdev->fd;
	uint64_t moved = 0;
	int ret;

	if (in_window(q->ctx, ptr))
		return;
	ret = nvsvm_migrate(fd, start, end - start,
			    to_host ? NVSVM_MIGRATE_TO_SYSMEM :
				      NVSVM_MIGRATE_TO_VRAM, &moved);
	if (ret == -EOPNOTSUPP && !to_host)
		nvsvm_map(fd, start, end - start,
			  NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL);
}

/* Size 0: from @p to the end of its clSVMAlloc allocation (if still one). */
static void migrate_svm(cl_command_queue q, cl_uint n, const void **ptrs,
			const size_t *sizes, bool to_host)
{
	struct nv_svm_alloc *a;
	size_t size;
	cl_uint i;

	for (i = 0; i < n; i++) {
		const uint8_t *p = ptrs[i];

		size = sizes ? sizes[i] : 0;
		if (!size) {
			a = svm_find(q->ctx, p);
			if (!a)
				continue;
			size = (uint8_t *)a->ptr + a->size - p;
		}
		migrate_one(q, p, size, to_host);
	}
}

static cl_int nv_EnqueueSVMMigrateMem(cl_command_queue q, cl_uint n,
				      const void **ptrs, const size_t *sizes,
				      cl_mem_migration_flags flags, cl_uint nw,
				      const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);
	cl_uint i;

	if (err)
		return err;
	if (!n || !ptrs)
		return CL_INVALID_VALUE;
	if (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
		CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		if (!ptrs[i])
			return CL_INVALID_VALUE;
		/* Size 0: the whole clSVMAlloc allocation. */
		if ((!sizes || !sizes[i]) && !svm_find(q->ctx, ptrs[i]))
			return CL_INVALID_VALUE;
	}
	c.kind = NV_CMD_MIGRATE;
	c.u.migrate.n = n;
	c.u.migrate.ptrs = ptrs;
	c.u.migrate.sizes = sizes;
	c.u.migrate.to_host = flags & CL_MIGRATE_MEM_OBJECT_HOST;
	return cmd_submit(&c, CL_COMMAND_SVM_MIGRATE_MEM, CL_FALSE, event);
}

/* ---- Buffers ---- */

static cl_int check_mem_flags(cl_mem_flags flags)
{
	cl_mem_flags rw = flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
				   CL_MEM_READ_ONLY);
	cl_mem_flags host = flags & (CL_MEM_HOST_WRITE_ONLY |
				     CL_MEM_HOST_READ_ONLY |
				     CL_MEM_HOST_NO_ACCESS);

	if (flags & ~(cl_mem_flags)(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
				    CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR |
				    CL_MEM_ALLOC_HOST_PTR |
				    CL_MEM_COPY_HOST_PTR |
				    CL_MEM_HOST_WRITE_ONLY |
				    CL_MEM_HOST_READ_ONLY |
				    CL_MEM_HOST_NO_ACCESS))
		return CL_INVALID_VALUE;
	if ((rw & (rw - 1)) || (host & (host - 1)))
		return CL_INVALID_VALUE;
	if ((flags & CL_MEM_USE_HOST_PTR) &&
	    (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
		return CL_INVALID_VALUE;
	return CL_SUCCESS;
}

static cl_mem nv_CreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size,
			      void *host_ptr, cl_int *errcode_ret)
{
	cl_int err;
	cl_mem m;

	if (!valid(ctx, NV_CONTEXT))
		return fail(errcode_ret, CL_INVALID_CONTEXT);
	err = check_mem_flags(flags);
	if (err)
		return fail(errcode_ret, err);
	if (!size || size > MAX_ALLOC)
		return fail(errcode_ret, CL_INVALID_BUFFER_SIZE);
	if (!host_ptr != !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
		return fail(errcode_ret, CL_INVALID_HOST_PTR);
	m = calloc(1, sizeof(*m));
	if (!m)
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	obj_init(m, NV_MEM);
	m->ctx = ctx;
	m->flags = flags ? flags : CL_MEM_READ_WRITE;
	if (!(m->flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
			  CL_MEM_READ_ONLY)))
		m->flags |= CL_MEM_READ_WRITE;
	m->size = size;
	if (flags & CL_MEM_USE_HOST_PTR) {
		/* System SVM: the GPU uses the host's memory as it is. */
		m->host_ptr = host_ptr;
		m->data = host_ptr;
		m->svm = svm_find(ctx, host_ptr) != NULL;
	} else {
		m->alloc = (size + PAGE - 1) & ~(PAGE - 1);
		m->data = mem_alloc(ctx, m->alloc, PAGE, false);
		if (!m->data) {
			obj_free(m);
			return fail(errcode_ret,
				    CL_MEM_OBJECT_ALLOCATION_FAILURE);
		}
		if (flags & CL_MEM_COPY_HOST_PTR)
			memcpy(m->data, host_ptr, size);
	}
	ref(ctx);
	set_err(errcode_ret, CL_SUCCESS);
	return m;
}

static cl_mem nv_CreateBufferWithProperties(cl_context ctx,
					    const cl_mem_properties *props,
					    cl_mem_flags flags, size_t size,
					    void *host_ptr,
					    cl_int *errcode_ret)
{
	if (props && props[0])
		return fail(errcode_ret, CL_INVALID_PROPERTY);
	return nv_CreateBuffer(ctx, flags, size, host_ptr, errcode_ret);
}

static cl_int nv_RetainMemObject(cl_mem m)
{
	if (!valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	ref(m);
	return CL_SUCCESS;
}

static cl_int nv_ReleaseMemObject(cl_mem m)
{
	struct nv_destructor *d, *next;
	cl_context ctx;

	if (!valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	if (!unref(m))
		return CL_SUCCESS;
	for (d = m->dtors; d; d = next) {
		next = d->next;
		d->fn(m, d->data);
		free(d);
	}
	if (m->alloc)
		mem_free(m->ctx, m->data, m->alloc);
	ctx = m->ctx;
	obj_free(m);
	return nv_ReleaseContext(ctx);
}

static cl_int nv_SetMemObjectDestructorCallback(cl_mem m,
						void (CL_CALLBACK *fn)(cl_mem,
								       void *),
						void *data)
{
	struct nv_destructor *d;

	if (!valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	if (!fn)
		return CL_INVALID_VALUE;
	d = malloc(sizeof(*d));
	if (!d)
		return CL_OUT_OF_HOST_MEMORY;
	d->fn = fn;
	d->data = data;
	d->next = m->dtors;	/* called in reverse order of registration */
	m->dtors = d;
	return CL_SUCCESS;
}

static cl_int nv_GetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size,
				  void *value, size_t *size_ret)
{
	if (!valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	switch (param) {
	case CL_MEM_TYPE:
		PUT(cl_mem_object_type, CL_MEM_OBJECT_BUFFER);
	case CL_MEM_FLAGS:
		PUT(cl_mem_flags, m->flags);
	case CL_MEM_SIZE:
		PUT(size_t, m->size);
	case CL_MEM_HOST_PTR:
		PUT(void *, m->host_ptr);
	case CL_MEM_MAP_COUNT:
		PUT(cl_uint, (cl_uint)m->maps);
	case CL_MEM_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)m->obj.refs);
	case CL_MEM_CONTEXT:
		PUT(cl_context, m->ctx);
	case CL_MEM_ASSOCIATED_MEMOBJECT:
		PUT(cl_mem, NULL);
	case CL_MEM_OFFSET:
		PUT(size_t, 0);
	case CL_MEM_USES_SVM_POINTER:
		PUT(cl_bool, m->svm ? CL_TRUE : CL_FALSE);
	case CL_MEM_PROPERTIES:
		return put(NULL, 0, size, value, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int check_buffer(cl_command_queue q, cl_mem m, size_t off,
			   size_t size)
{
	if (!valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	if (m->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	if (off > m->size || size > m->size - off)
		return CL_INVALID_VALUE;
	return CL_SUCCESS;
}

static cl_int nv_EnqueueReadBuffer(cl_command_queue q, cl_mem m,
				   cl_bool blocking, size_t off, size_t size,
				   void *ptr, cl_uint nw, const cl_event *wl,
				   cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, m, off, size);
	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	cmd_copy(&c, ptr, (uint8_t *)m->data + off, size);
	c.mems[0] = m;
	return cmd_submit(&c, CL_COMMAND_READ_BUFFER, blocking, event);
}

static cl_int nv_EnqueueWriteBuffer(cl_command_queue q, cl_mem m,
				    cl_bool blocking, size_t off, size_t size,
				    const void *ptr, cl_uint nw,
				    const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, m, off, size);
	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	cmd_copy(&c, (uint8_t *)m->data + off, ptr, size);
	c.mems[0] = m;
	return cmd_submit(&c, CL_COMMAND_WRITE_BUFFER, blocking, event);
}

static cl_int nv_EnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
				   size_t soff, size_t doff, size_t size,
				   cl_uint nw, const cl_event *wl,
				   cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, src, soff, size);
	if (!err)
		err = check_buffer(q, dst, doff, size);
	if (err)
		return err;
	if (!size)
		return CL_INVALID_VALUE;
	if (src == dst && overlap((uint8_t *)src->data + soff,
				  (uint8_t *)dst->data + doff, size))
		return CL_MEM_COPY_OVERLAP;
	cmd_copy(&c, (uint8_t *)dst->data + doff, (uint8_t *)src->data + soff,
		 size);
	c.mems[0] = src;
	c.mems[1] = dst;
	return cmd_submit(&c, CL_COMMAND_COPY_BUFFER, CL_FALSE, event);
}

static cl_int nv_EnqueueFillBuffer(cl_command_queue q, cl_mem m,
				   const void *pattern, size_t psize,
				   size_t off, size_t size, cl_uint nw,
				   const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, m, off, size);
	if (err)
		return err;
	if (!fill_args_ok((uint8_t *)m->data + off, pattern, psize, size) ||
	    off % psize)
		return CL_INVALID_VALUE;
	cmd_fill(&c, (uint8_t *)m->data + off, pattern, psize, size);
	c.mems[0] = m;
	return cmd_submit(&c, CL_COMMAND_FILL_BUFFER, CL_FALSE, event);
}

static void *nv_EnqueueMapBuffer(cl_command_queue q, cl_mem m,
				 cl_bool blocking, cl_map_flags flags,
				 size_t off, size_t size, cl_uint nw,
				 const cl_event *wl, cl_event *event,
				 cl_int *errcode_ret)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	(void)flags;
	if (!err)
		err = check_buffer(q, m, off, size);
	if (!err && !size)
		err = CL_INVALID_VALUE;
	if (!err) {
		c.mems[0] = m;
		err = cmd_submit(&c, CL_COMMAND_MAP_BUFFER, blocking, event);
	}
	if (err)
		return fail(errcode_ret, err);
	__atomic_add_fetch(&m->maps, 1, __ATOMIC_RELAXED);
	set_err(errcode_ret, CL_SUCCESS);
	return (uint8_t *)m->data + off;
}

static cl_int nv_EnqueueUnmapMemObject(cl_command_queue q, cl_mem m,
				       void *ptr, cl_uint nw,
				       const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, m, 0, 0);
	if (err)
		return err;
	if ((uint8_t *)ptr < (uint8_t *)m->data ||
	    (uint8_t *)ptr >= (uint8_t *)m->data + m->size || m->maps <= 0)
		return CL_INVALID_VALUE;
	__atomic_sub_fetch(&m->maps, 1, __ATOMIC_RELAXED);
	c.mems[0] = m;
	return cmd_submit(&c, CL_COMMAND_UNMAP_MEM_OBJECT, CL_FALSE, event);
}

static cl_int nv_EnqueueMigrateMemObjects(cl_command_queue q, cl_uint n,
					  const cl_mem *mems,
					  cl_mem_migration_flags flags,
					  cl_uint nw, const cl_event *wl,
					  cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);
	cl_uint i;

	if (err)
		return err;
	if (!n || !mems)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		err = check_buffer(q, mems[i], 0, 0);
		if (err)
			return err;
	}
	c.kind = NV_CMD_MIGRATE_MEMS;
	c.u.migrate.n = n;
	c.u.migrate.mems = mems;
	c.u.migrate.to_host = flags & CL_MIGRATE_MEM_OBJECT_HOST;
	return cmd_submit(&c, CL_COMMAND_MIGRATE_MEM_OBJECTS, CL_FALSE, event);
}

/* ---- Programs: built-in kernels only ---- */

static const struct nv_builtin *builtin_find(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(builtins); i++)
		if (strlen(builtins[i].name) == len &&
		    !strncmp(builtins[i].name, name, len))
			return &builtins[i];
	return NULL;
}

static cl_int check_ctx_devices(cl_context ctx, cl_uint n,
				const cl_device_id *devs)
{
	cl_uint i;

	if ((n == 0) != (devs == NULL))
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++)
		if (!valid(devs[i], NV_DEVICE) || !ctx_dev(ctx, devs[i]))
			return CL_INVALID_DEVICE;
	return CL_SUCCESS;
}

static cl_program program_new(cl_context ctx, cl_int *errcode_ret)
{
	cl_program p = calloc(1, sizeof(*p));

	if (!p)
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	obj_init(p, NV_PROGRAM);
	p->ctx = ctx;
	ref(ctx);
	return p;
}

static cl_program nv_CreateProgramWithBuiltInKernels(cl_context ctx,
						     cl_uint n,
						     const cl_device_id *devs,
						     const char *names,
						     cl_int *errcode_ret)
{
	const char *s, *e;
	cl_program p;
	cl_int err;

	if (!valid(ctx, NV_CONTEXT))
		return fail(errcode_ret, CL_INVALID_CONTEXT);
	if (!n || !devs || !names)
		return fail(errcode_ret, CL_INVALID_VALUE);
	err = check_ctx_devices(ctx, n, devs);
	if (err)
		return fail(errcode_ret, err);
	for (s = names; *s; s = *e ? e + 1 : e) {
		e = strchr(s, ';');
		if (!e)
			e = s + strlen(s);
		if (!builtin_find(s, e - s))
			return fail(errcode_ret, CL_INVALID_VALUE);
	}
	if (!*names)
		return fail(errcode_ret, CL_INVALID_VALUE);
	p = program_new(ctx, errcode_ret);
	if (!p)
		return NULL;
	p->builtin = true;
	p->build = CL_BUILD_SUCCESS;
	p->names = strdup(names);
	if (!p->names) {
		nv_ReleaseContext(ctx);
		obj_free(p);
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	}
	set_err(errcode_ret, CL_SUCCESS);
	return p;
}

/* Kept, so that clBuildProgram can say there is no compiler. */
static cl_program nv_CreateProgramWithSource(cl_context ctx, cl_uint n,
					     const char **strings,
					     const size_t *lengths,
					     cl_int *errcode_ret)
{
	size_t total = 0, len, i;
	cl_program p;

	if (!valid(ctx, NV_CONTEXT))
		return fail(errcode_ret, CL_INVALID_CONTEXT);
	if (!n || !strings)
		return fail(errcode_ret, CL_INVALID_VALUE);
	for (i = 0; i < n; i++) {
		if (!strings[i])
			return fail(errcode_ret, CL_INVALID_VALUE);
		total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	}
	p = program_new(ctx, errcode_ret);
	if (!p)
		return NULL;
	p->build = CL_BUILD_NONE;
	p->source = malloc(total + 1);
	if (!p->source) {
		nv_ReleaseContext(ctx);
		obj_free(p);
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	}
	for (total = 0, i = 0; i < n; i++) {
		len = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(p->source + total, strings[i], len);
		total += len;
	}
	p->source[total] = 0;
	set_err(errcode_ret, CL_SUCCESS);
	return p;
}

static cl_int nv_RetainProgram(cl_program p)
{
	if (!valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	ref(p);
	return CL_SUCCESS;
}

static cl_int nv_ReleaseProgram(cl_program p)
{
	cl_context ctx;

	if (!valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!unref(p))
		return CL_SUCCESS;
	ctx = p->ctx;
	free(p->names);
	free(p->source);
	obj_free(p);
	return nv_ReleaseContext(ctx);
}

static cl_int nv_BuildProgram(cl_program p, cl_uint n,
			      const cl_device_id *devs, const char *options,
			      void (CL_CALLBACK *notify)(cl_program, void *),
			      void *data)
{
	cl_int err;

	(void)options;
	if (!valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!notify && data)
		return CL_INVALID_VALUE;
	err = check_ctx_devices(p->ctx, n, devs);
	if (err)
		return err;
	/* A program of built-in kernels is not built. */
	if (p->builtin)
		return CL_INVALID_OPERATION;
	p->build = CL_BUILD_ERROR;
	if (notify)
		notify(p, data);
	return CL_COMPILER_NOT_AVAILABLE;
}

static cl_int nv_CompileProgram(cl_program p, cl_uint n,
				const cl_device_id *devs, const char *options,
				cl_uint nh, const cl_program *headers,
				const char **names,
				void (CL_CALLBACK *notify)(cl_program, void *),
				void *data)
{
	(void)n; (void)devs; (void)options; (void)nh; (void)headers;
	(void)names; (void)notify; (void)data;
	if (!valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	return p->builtin ? CL_INVALID_OPERATION : CL_COMPILER_NOT_AVAILABLE;
}

static cl_program nv_LinkProgram(cl_context ctx, cl_uint n,
				 const cl_device_id *devs, const char *options,
				 cl_uint np, const cl_program *progs,
				 void (CL_CALLBACK *notify)(cl_program, void *),
				 void *data, cl_int *errcode_ret)
{
	(void)n; (void)devs; (void)options; (void)np; (void)progs;
	(void)notify; (void)data;
	if (!valid(ctx, NV_CONTEXT))
		return fail(errcode_ret, CL_INVALID_CONTEXT);
	return fail(errcode_ret, CL_LINKER_NOT_AVAILABLE);
}

static cl_program nv_CreateProgramWithBinary(cl_context ctx, cl_uint n,
					     const cl_device_id *devs,
					     const size_t *lengths,
					     const unsigned char **bins,
					     cl_int *status, cl_int *errcode_ret)
{
	cl_uint i;
	cl_int err;

	(void)lengths; (void)bins;
	if (!valid(ctx, NV_CONTEXT))
		return fail(errcode_ret, CL_INVALID_CONTEXT);
	err = check_ctx_devices(ctx, n, devs);
	if (err || !n)
		return fail(errcode_ret, err ? err : CL_INVALID_VALUE);
	for (i = 0; status && i < n; i++)
		status[i] = CL_INVALID_BINARY;
	return fail(errcode_ret, CL_INVALID_BINARY);
}

static cl_int nv_UnloadCompiler(void)
{
	return CL_SUCCESS;
}

static cl_int nv_UnloadPlatformCompiler(cl_platform_id platform)
{
	return platform == &nv_platform ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

static cl_uint program_kernels(cl_program p, char *names, size_t size)
{
	const char *s = p->names ? p->names : "";
	cl_uint n = 0;

	if (names)
		snprintf(names, size, "%s", s);
	while (*s) {
		n++;
		s = strchr(s, ';');
		if (!s)
			break;
		s++;
	}
	return n;
}

static cl_int nv_GetProgramInfo(cl_program p, cl_program_info param,
				size_t size, void *value, size_t *size_ret)
{
	cl_device_id devs[NV_MAX_DEVICES];
	size_t zeros[NV_MAX_DEVICES] = { 0 };
	cl_uint i;

	if (!valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	switch (param) {
	case CL_PROGRAM_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)p->obj.refs);
	case CL_PROGRAM_CONTEXT:
		PUT(cl_context, p->ctx);
	case CL_PROGRAM_NUM_DEVICES:
		PUT(cl_uint, p->ctx->ndevs);
	case CL_PROGRAM_DEVICES:
		for (i = 0; i < p->ctx->ndevs; i++)
			devs[i] = p->ctx->devs[i].dev;
		return put(devs, p->ctx->ndevs * sizeof(devs[0]), size, value,
			   size_ret);
	case CL_PROGRAM_SOURCE:
		PUT_STR(p->source ? p->source : "");
	case CL_PROGRAM_BINARY_SIZES:
		return put(zeros, p->ctx->ndevs * sizeof(zeros[0]), size,
			   value, size_ret);
	case CL_PROGRAM_BINARIES:
		return put(NULL, p->ctx->ndevs * sizeof(void *), size, NULL,
			   size_ret);
	case CL_PROGRAM_NUM_KERNELS:
		if (!p->builtin)
			return CL_INVALID_PROGRAM_EXECUTABLE;
		PUT(size_t, program_kernels(p, NULL, 0));
	case CL_PROGRAM_KERNEL_NAMES:
		if (!p->builtin)
			return CL_INVALID_PROGRAM_EXECUTABLE;
		PUT_STR(p->names);
	case CL_PROGRAM_IL:
		return put(NULL, 0, size, value, size_ret);
	case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
	case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
		PUT(cl_bool, CL_FALSE);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_GetProgramBuildInfo(cl_program p, cl_device_id d,
				     cl_program_build_info param, size_t size,
				     void *value, size_t *size_ret)
{
	if (!valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!valid(d, NV_DEVICE) || !ctx_dev(p->ctx, d))
		return CL_INVALID_DEVICE;
	switch (param) {
	case CL_PROGRAM_BUILD_STATUS:
		PUT(cl_build_status, p->build);
	case CL_PROGRAM_BUILD_OPTIONS:
		PUT_STR("");
	case CL_PROGRAM_BUILD_LOG:
		PUT_STR(p->build == CL_BUILD_ERROR ?
			"nvsvm: no OpenCL C compiler; use the built-in kernels" : "");
	case CL_PROGRAM_BINARY_TYPE:
		PUT(cl_program_binary_type, CL_PROGRAM_BINARY_TYPE_NONE);
	case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
		PUT(size_t, 0);
	default:
		return CL_INVALID_VALUE;
	}
}

/* ---- Kernels ---- */

static bool program_has(cl_program p, const struct nv_builtin *bi)
{
	const char *s = p->names, *e;

	while (s && *s) {
		e = strchr(s, ';');
		if (!e)
			e = s + strlen(s);
		if (builtin_find(s, e - s) == bi)
			return true;
		s = *e ? e + 1 : e;
	}
	return false;
}

static cl_kernel kernel_new(cl_program p, const struct nv_builtin *bi,
			    cl_int *errcode_ret)
{
	cl_kernel k = calloc(1, sizeof(*k));

	if (!k)
		return fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	obj_init(k, NV_KERNEL);
	k->prog = p;
	k->bi = bi;
	ref(p);
	set_err(errcode_ret, CL_SUCCESS);
	return k;
}

static cl_kernel nv_CreateKernel(cl_program p, const char *name,
				 cl_int *errcode_ret)
{
	const struct nv_builtin *bi;

	if (!valid(p, NV_PROGRAM))
		return fail(errcode_ret, CL_INVALID_PROGRAM);
	if (!name)
		return fail(errcode_ret, CL_INVALID_VALUE);
	if (!p->builtin)
		return fail(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE);
	bi = builtin_find(name, strlen(name));
	if (!bi || !program_has(p, bi))
		return fail(errcode_ret, CL_INVALID_KERNEL_NAME);
	return kernel_new(p, bi, errcode_ret);
}

static cl_int nv_CreateKernelsInProgram(cl_program p, cl_uint n,
					cl_kernel *kernels, cl_uint *n_ret)
{
	cl_uint count, i;
	unsigned int j;
	cl_int err;

	if (!valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!p->builtin)
		return CL_INVALID_PROGRAM_EXECUTABLE;
	count = program_kernels(p, NULL, 0);
	if (kernels && n < count)
		return CL_INVALID_VALUE;
	for (i = 0, j = 0; kernels && j < ARRAY_SIZE(builtins); j++) {
		if (!program_has(p, &builtins[j]))
			continue;
		kernels[i] = kernel_new(p, &builtins[j], &err);
		if (!kernels[i])
			return err;
		i++;
	}
	if (n_ret)
		*n_ret = count;
	return CL_SUCCESS;
}

static cl_int nv_RetainKernel(cl_kernel k)
{
	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	ref(k);
	return CL_SUCCESS;
}

static cl_int nv_ReleaseKernel(cl_kernel k)
{
	cl_program p;

	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (!unref(k))
		return CL_SUCCESS;
	p = k->prog;
	obj_free(k);
	return nv_ReleaseProgram(p);
}

static cl_kernel nv_CloneKernel(cl_kernel k, cl_int *errcode_ret)
{
	cl_kernel c;

	if (!valid(k, NV_KERNEL))
		return fail(errcode_ret, CL_INVALID_KERNEL);
	c = kernel_new(k->prog, k->bi, errcode_ret);
	if (c)
		memcpy(c->args, k->args, sizeof(c->args));
	return c;
}

static bool is_ptr(const struct nv_arg_desc *a)
{
	return a->kind == NV_ARG_PTR || a->kind == NV_ARG_PTR_OPT;
}

static cl_int nv_SetKernelArg(cl_kernel k, cl_uint index, size_t size,
			      const void *value)
{
	const struct nv_arg_desc *a;
	cl_mem m = NULL;

	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (index >= k->bi->nargs)
		return CL_INVALID_ARG_INDEX;
	a = &k->bi->args[index];
	if (is_ptr(a)) {
		/* A buffer object, or NULL for no buffer. */
		if (size != sizeof(cl_mem))
			return CL_INVALID_ARG_SIZE;
		if (value)
			m = *(const cl_mem *)value;
		if (m && (!valid(m, NV_MEM) || m->ctx != k->prog->ctx))
			return CL_INVALID_MEM_OBJECT;
		k->args[index].value = m ? nvsvm_ptr(m->data) : 0;
		k->args[index].mem = m;
	} else {
		size_t want = a->kind == NV_ARG_UINT ? sizeof(cl_uint) :
						       sizeof(cl_ulong);

		if (size != want)
			return CL_INVALID_ARG_SIZE;
		if (!value)
			return CL_INVALID_ARG_VALUE;
		if (a->kind == NV_ARG_UINT)
			k->args[index].value = *(const cl_uint *)value;
		else
			k->args[index].value = *(const cl_ulong *)value;
	}
	k->args[index].set = true;
	return CL_SUCCESS;
}

/* Fine-grained system SVM: any pointer of the process, malloc'd ones too. */
static cl_int nv_SetKernelArgSVMPointer(cl_kernel k, cl_uint index,
					const void *value)
{
	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (index >= k->bi->nargs)
		return CL_INVALID_ARG_INDEX;
	if (!is_ptr(&k->bi->args[index]))
		return CL_INVALID_ARG_VALUE;
	k->args[index].value = nvsvm_ptr(value);
	k->args[index].mem = NULL;
	k->args[index].set = true;
	return CL_SUCCESS;
}

static cl_int nv_SetKernelExecInfo(cl_kernel k, cl_kernel_exec_info param,
				   size_t size, const void *value)
{
	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (!value)
		return CL_INVALID_VALUE;
	switch (param) {
	case CL_KERNEL_EXEC_INFO_SVM_PTRS:
		/* Every pointer of the process is reachable anyway. */
		return size % sizeof(void *) ? CL_INVALID_VALUE : CL_SUCCESS;
	case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
		return size == sizeof(cl_bool) ? CL_SUCCESS : CL_INVALID_VALUE;
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_GetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size,
			       void *value, size_t *size_ret)
{
	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	switch (param) {
	case CL_KERNEL_FUNCTION_NAME:
		PUT_STR(k->bi->name);
	case CL_KERNEL_NUM_ARGS:
		PUT(cl_uint, k->bi->nargs);
	case CL_KERNEL_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)k->obj.refs);
	case CL_KERNEL_CONTEXT:
		PUT(cl_context, k->prog->ctx);
	case CL_KERNEL_PROGRAM:
		PUT(cl_program, k->prog);
	case CL_KERNEL_ATTRIBUTES:
		PUT_STR("");
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_GetKernelArgInfo(cl_kernel k, cl_uint index,
				  cl_kernel_arg_info param, size_t size,
				  void *value, size_t *size_ret)
{
	const struct nv_arg_desc *a;

	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (index >= k->bi->nargs)
		return CL_INVALID_ARG_INDEX;
	a = &k->bi->args[index];
	switch (param) {
	case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
		PUT(cl_kernel_arg_address_qualifier,
		    is_ptr(a) ? CL_KERNEL_ARG_ADDRESS_GLOBAL :
				CL_KERNEL_ARG_ADDRESS_PRIVATE);
	case CL_KERNEL_ARG_ACCESS_QUALIFIER:
		PUT(cl_kernel_arg_access_qualifier, CL_KERNEL_ARG_ACCESS_NONE);
	case CL_KERNEL_ARG_TYPE_NAME:
		PUT_STR(a->type);
	case CL_KERNEL_ARG_TYPE_QUALIFIER:
		PUT(cl_kernel_arg_type_qualifier, CL_KERNEL_ARG_TYPE_NONE);
	case CL_KERNEL_ARG_NAME:
		PUT_STR(a->name);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_GetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
					cl_kernel_work_group_info param,
					size_t size, void *value,
					size_t *size_ret)
{
	size_t zero[3] = { 0, 0, 0 };
	size_t global[3] = { NVSVM_EXEC_MAX_OPS * 1024, 1, 1 };

	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (d && (!valid(d, NV_DEVICE) || !ctx_dev(k->prog->ctx, d)))
		return CL_INVALID_DEVICE;
	switch (param) {
	case CL_KERNEL_WORK_GROUP_SIZE:
	case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
		PUT(size_t, 1);
	case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
		return put(zero, sizeof(zero), size, value, size_ret);
	case CL_KERNEL_GLOBAL_WORK_SIZE:
		if (!k->bi->per_item)
			global[0] = 1;
		return put(global, sizeof(global), size, value, size_ret);
	case CL_KERNEL_LOCAL_MEM_SIZE:
	case CL_KERNEL_PRIVATE_MEM_SIZE:
		PUT(cl_ulong, 0);
	default:
		return CL_INVALID_VALUE;
	}
}

/*
 * Turn a built-in kernel and its arguments into EXEC programs and run
 * them: the operation itself, then, for a kernel that returns a value
 * (sum's result, chase's count, atomic add's old values), a second
 * program whose WRITE stores it where the kernel was told, by the GPU.
 */
static cl_int run_builtin(cl_command_queue q, const struct nv_builtin *bi,
			  const struct nv_arg *a, size_t items)
{
	struct nvsvm_op one, *ops;
	uint64_t out_ptr = 0;
	cl_int status;
	size_t i, n = 1;

	switch (bi - builtins) {
	case 0:	/* fill(dst, bytes, pattern) */
		one = nvsvm_op_fill(a[0].value, a[1].value, a[2].value);
		return q_exec(q, &one, 1);
	case 1:	/* copy(dst, src, bytes) */
		one = nvsvm_op_copy(a[0].value, a[1].value, a[2].value);
		return q_exec(q, &one, 1);
	case 2:	/* sum(src, bytes, result) */
		one = nvsvm_op_sum(a[0].value, a[1].value);
		out_ptr = a[2].value;
		ops = &one;
		break;
	case 3:	/* chase(head, max, inc, off_next, off_data, visited) */
		one = nvsvm_op_chase(a[0].value, a[1].value, a[2].value,
				     (uint32_t)a[3].value,
				     (uint32_t)a[4].value);
		out_ptr = a[5].value;
		ops = &one;
		break;
	default: /* atomic_add(counter, value, old): one per work-item */
		n = items;
		ops = calloc(n, sizeof(*ops));
		if (!ops)
			return CL_OUT_OF_HOST_MEMORY;
		for (i = 0; i < n; i++)
			ops[i] = nvsvm_op_atomic_add(a[0].value, a[1].value);
		out_ptr = a[2].value;
		break;
	}
	status = q_exec(q, ops, n);
	if (status == CL_SUCCESS && out_ptr) {
		for (i = 0; i < n; i++)
			ops[i] = nvsvm_op_write(out_ptr + 8 * i, ops[i].result);
		status = q_exec(q, ops, n);
	}
	if (ops != &one)
		free(ops);
	return status;
}

/* What EXEC would refuse with EINVAL, as an enqueue error instead. */
static cl_int check_builtin_args(cl_kernel k)
{
	const struct nv_arg *a = k->args;
	unsigned int i;

	for (i = 0; i < k->bi->nargs; i++) {
		if (!a[i].set)
			return CL_INVALID_KERNEL_ARGS;
		if (is_ptr(&k->bi->args[i]) && !aligned8(a[i].value))
			return CL_INVALID_KERNEL_ARGS;
		if (k->bi->args[i].kind == NV_ARG_PTR && !a[i].value)
			return CL_INVALID_KERNEL_ARGS;
	}
	switch (k->bi - builtins) {
	case 0:
	case 1:
		if (!aligned8(a[k->bi - builtins + 1].value) ||
		    a[k->bi - builtins + 1].value > MAX_ALLOC)
			return CL_INVALID_KERNEL_ARGS;
		break;
	case 2:
		if (!aligned8(a[1].value) || a[1].value > MAX_ALLOC)
			return CL_INVALID_KERNEL_ARGS;
		break;
	case 3:
		if (a[1].value > (1ULL << 24) || !aligned8(a[3].value) ||
		    !aligned8(a[4].value))
			return CL_INVALID_KERNEL_ARGS;
		break;
	}
	return CL_SUCCESS;
}

static cl_int nv_EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
				      cl_uint dim, const size_t *offset,
				      const size_t *global, const size_t *local,
				      cl_uint nw, const cl_event *wl,
				      cl_event *event)
{
	struct nv_cmd c;
	cl_int err = cmd_begin(&c, q, nw, wl);
	size_t items = 1;
	cl_uint i;

	if (err)
		return err;
	if (!valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (k->prog->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	if (dim < 1 || dim > 3)
		return CL_INVALID_WORK_DIMENSION;
	if (!global)
		return CL_INVALID_GLOBAL_WORK_SIZE;
	for (i = 0; i < dim; i++) {
		if (offset && offset[i])
			return CL_INVALID_GLOBAL_OFFSET;
		if (local && local[i] != 1)
			return CL_INVALID_WORK_GROUP_SIZE;
		if (!global[i])
			return CL_INVALID_GLOBAL_WORK_SIZE;
		items *= global[i];
	}
	if (items != 1 && !k->bi->per_item)
		return CL_INVALID_GLOBAL_WORK_SIZE;
	if (items > NVSVM_EXEC_MAX_OPS * 1024)
		return CL_INVALID_GLOBAL_WORK_SIZE;
	err = check_builtin_args(k);
	if (err)
		return err;
	c.kind = NV_CMD_KERNEL;
	c.u.kernel.bi = k->bi;
	c.u.kernel.args = k->args;
	c.u.kernel.items = items;
	return cmd_submit(&c, CL_COMMAND_NDRANGE_KERNEL, CL_FALSE, event);
}

static cl_int nv_EnqueueTask(cl_command_queue q, cl_kernel k, cl_uint nw,
			     const cl_event *wl, cl_event *event)
{
	size_t one = 1;

	return nv_EnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, nw, wl,
				       event);
}

/* Run the command @c describes (at enqueue, or deferred by drain()). */
static cl_int cmd_run(struct nv_cmd *c)
{
	cl_command_queue q = c->q;
	cl_uint i;

	switch (c->kind) {
	case NV_CMD_COPY:
		return gpu_copy(q, c->u.copy.dst, c->u.copy.src,
				c->u.copy.size);
	case NV_CMD_FILL:
		return gpu_fill(q, c->u.fill.ptr, c->u.fill.pattern,
				c->u.fill.psize, c->u.fill.size);
	case NV_CMD_MIGRATE:
		migrate_svm(q, c->u.migrate.n, c->u.migrate.ptrs,
			    c->u.migrate.sizes, c->u.migrate.to_host);
		return CL_COMPLETE;
	case NV_CMD_MIGRATE_MEMS:
		for (i = 0; i < c->u.migrate.n; i++)
			migrate_one(q, c->u.migrate.mems[i]->data,
				    c->u.migrate.mems[i]->size,
				    c->u.migrate.to_host);
		return CL_COMPLETE;
	case NV_CMD_SVM_FREE:
		if (c->u.free.fn)
			c->u.free.fn(q, c->u.free.n, c->u.free.ptrs,
				     c->u.free.data);
		else
			for (i = 0; i < c->u.free.n; i++)
				nv_SVMFree(q->ctx, c->u.free.ptrs[i]);
		return CL_COMPLETE;
	case NV_CMD_KERNEL:
		return run_builtin(q, c->u.kernel.bi, c->u.kernel.args,
				   c->u.kernel.items);
	default:
		return CL_COMPLETE;
	}
}

/* ---- What this device does not have ---- */

static cl_int nv_GetSupportedImageFormats(cl_context ctx, cl_mem_flags flags,
					  cl_mem_object_type type, cl_uint n,
					  cl_image_format *formats,
					  cl_uint *n_ret)
{
	(void)flags; (void)type; (void)n; (void)formats;
	if (!valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	if (n_ret)
		*n_ret = 0;
	return CL_SUCCESS;
}

static cl_mem nv_CreateImage(cl_context ctx, cl_mem_flags flags,
			     const cl_image_format *format,
			     const cl_image_desc *desc, void *host,
			     cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)format; (void)desc; (void)host;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreateImage2D(cl_context ctx, cl_mem_flags flags,
			       const cl_image_format *format, size_t w,
			       size_t h, size_t pitch, void *host,
			       cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)format; (void)w; (void)h; (void)pitch;
	(void)host;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreateImage3D(cl_context ctx, cl_mem_flags flags,
			       const cl_image_format *format, size_t w,
			       size_t h, size_t d, size_t rp, size_t sp,
			       void *host, cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)format; (void)w; (void)h; (void)d;
	(void)rp; (void)sp; (void)host;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreateSubBuffer(cl_mem m, cl_mem_flags flags,
				 cl_buffer_create_type type, const void *info,
				 cl_int *errcode_ret)
{
	(void)m; (void)flags; (void)type; (void)info;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_sampler nv_CreateSampler(cl_context ctx, cl_bool norm,
				   cl_addressing_mode am, cl_filter_mode fm,
				   cl_int *errcode_ret)
{
	(void)ctx; (void)norm; (void)am; (void)fm;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_sampler nv_CreateSamplerWithProperties(cl_context ctx,
						 const cl_sampler_properties *p,
						 cl_int *errcode_ret)
{
	(void)ctx; (void)p;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreatePipe(cl_context ctx, cl_mem_flags flags, cl_uint psize,
			    cl_uint max, const cl_pipe_properties *props,
			    cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)psize; (void)max; (void)props;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_program nv_CreateProgramWithIL(cl_context ctx, const void *il,
					 size_t len, cl_int *errcode_ret)
{
	(void)ctx; (void)il; (void)len;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreateImageWithProperties(cl_context ctx,
					   const cl_mem_properties *props,
					   cl_mem_flags flags,
					   const cl_image_format *format,
					   const cl_image_desc *desc,
					   void *host, cl_int *errcode_ret)
{
	(void)ctx; (void)props; (void)flags; (void)format; (void)desc;
	(void)host;
	return fail(errcode_ret, CL_INVALID_OPERATION);
}

static void *nv_EnqueueMapImage(cl_command_queue q, cl_mem m, cl_bool b,
				cl_map_flags f, const size_t *o,
				const size_t *r, size_t *rp, size_t *sp,
				cl_uint nw, const cl_event *wl, cl_event *ev,
				cl_int *errcode_ret)
{
	(void)q; (void)m; (void)b; (void)f; (void)o; (void)r; (void)rp;
	(void)sp; (void)nw; (void)wl; (void)ev;
	return fail(errcode_ret, CL_INVALID_MEM_OBJECT);
}

static void *nv_GetExtensionFunctionAddressForPlatform(cl_platform_id p,
						       const char *name)
{
	(void)p; (void)name;
	return NULL;
}

/* Every other entry: what a device without the feature answers. */
static cl_int nv_unsupported(void)
{
	return CL_INVALID_OPERATION;
}

static void nv_dispatch_init(void)
{
	cl_icd_dispatch *t = &nv_dispatch;
	size_t i;

	t->clGetPlatformIDs = nv_GetPlatformIDs;
	t->clGetPlatformInfo = nv_GetPlatformInfo;
	t->clGetDeviceIDs = nv_GetDeviceIDs;
	t->clGetDeviceInfo = nv_GetDeviceInfo;
	t->clCreateSubDevices = nv_CreateSubDevices;
	t->clRetainDevice = nv_RetainDevice;
	t->clReleaseDevice = nv_RetainDevice;
	t->clCreateContext = nv_CreateContext;
	t->clCreateContextFromType = nv_CreateContextFromType;
	t->clRetainContext = nv_RetainContext;
	t->clReleaseContext = nv_ReleaseContext;
	t->clGetContextInfo = nv_GetContextInfo;
	t->clCreateCommandQueue = nv_CreateCommandQueue;
	t->clCreateCommandQueueWithProperties =
		nv_CreateCommandQueueWithProperties;
	t->clRetainCommandQueue = nv_RetainCommandQueue;
	t->clReleaseCommandQueue = nv_ReleaseCommandQueue;
	t->clGetCommandQueueInfo = nv_GetCommandQueueInfo;
	t->clCreateBuffer = nv_CreateBuffer;
	t->clCreateBufferWithProperties = nv_CreateBufferWithProperties;
	t->clCreateSubBuffer = nv_CreateSubBuffer;
	t->clCreateImage = nv_CreateImage;
	t->clCreateImage2D = nv_CreateImage2D;
	t->clCreateImage3D = nv_CreateImage3D;
	t->clCreateImageWithProperties = nv_CreateImageWithProperties;
	t->clCreatePipe = nv_CreatePipe;
	t->clRetainMemObject = nv_RetainMemObject;
	t->clReleaseMemObject = nv_ReleaseMemObject;
	t->clGetSupportedImageFormats = nv_GetSupportedImageFormats;
	t->clGetMemObjectInfo = nv_GetMemObjectInfo;
	t->clSetMemObjectDestructorCallback =
		nv_SetMemObjectDestructorCallback;
	t->clSVMAlloc = nv_SVMAlloc;
	t->clSVMFree = nv_SVMFree;
	t->clCreateSampler = nv_CreateSampler;
	t->clCreateSamplerWithProperties = nv_CreateSamplerWithProperties;
	t->clCreateProgramWithSource = nv_CreateProgramWithSource;
	t->clCreateProgramWithBinary = nv_CreateProgramWithBinary;
	t->clCreateProgramWithBuiltInKernels =
		nv_CreateProgramWithBuiltInKernels;
	t->clCreateProgramWithIL = nv_CreateProgramWithIL;
	t->clRetainProgram = nv_RetainProgram;
	t->clReleaseProgram = nv_ReleaseProgram;
	t->clBuildProgram = nv_BuildProgram;
	t->clCompileProgram = nv_CompileProgram;
	t->clLinkProgram = nv_LinkProgram;
	t->clUnloadCompiler = nv_UnloadCompiler;
	t->clUnloadPlatformCompiler = nv_UnloadPlatformCompiler;
	t->clGetProgramInfo = nv_GetProgramInfo;
	t->clGetProgramBuildInfo = nv_GetProgramBuildInfo;
	t->clCreateKernel = nv_CreateKernel;
	t->clCreateKernelsInProgram = nv_CreateKernelsInProgram;
	t->clCloneKernel = nv_CloneKernel;
	t->clRetainKernel = nv_RetainKernel;
	t->clReleaseKernel = nv_ReleaseKernel;
	t->clSetKernelArg = nv_SetKernelArg;
	t->clSetKernelArgSVMPointer = nv_SetKernelArgSVMPointer;
	t->clSetKernelExecInfo = nv_SetKernelExecInfo;
	t->clGetKernelInfo = nv_GetKernelInfo;
	t->clGetKernelArgInfo = nv_GetKernelArgInfo;
	t->clGetKernelWorkGroupInfo = nv_GetKernelWorkGroupInfo;
	t->clWaitForEvents = nv_WaitForEvents;
	t->clGetEventInfo = nv_GetEventInfo;
	t->clCreateUserEvent = nv_CreateUserEvent;
	t->clSetUserEventStatus = nv_SetUserEventStatus;
	t->clRetainEvent = nv_RetainEvent;
	t->clReleaseEvent = nv_ReleaseEvent;
	t->clSetEventCallback = nv_SetEventCallback;
	t->clGetEventProfilingInfo = nv_GetEventProfilingInfo;
	t->clFlush = nv_Flush;
	t->clFinish = nv_Finish;
	t->clEnqueueReadBuffer = nv_EnqueueReadBuffer;
	t->clEnqueueWriteBuffer = nv_EnqueueWriteBuffer;
	t->clEnqueueCopyBuffer = nv_EnqueueCopyBuffer;
	t->clEnqueueFillBuffer = nv_EnqueueFillBuffer;
	t->clEnqueueMapBuffer = nv_EnqueueMapBuffer;
	t->clEnqueueMapImage = nv_EnqueueMapImage;
	t->clEnqueueUnmapMemObject = nv_EnqueueUnmapMemObject;
	t->clEnqueueMigrateMemObjects = nv_EnqueueMigrateMemObjects;
	t->clEnqueueNDRangeKernel = nv_EnqueueNDRangeKernel;
	t->clEnqueueTask = nv_EnqueueTask;
	t->clEnqueueMarker = nv_EnqueueMarker;
	t->clEnqueueWaitForEvents = nv_EnqueueWaitForEvents;
	t->clEnqueueBarrier = nv_EnqueueBarrier;
	t->clEnqueueMarkerWithWaitList = nv_EnqueueMarkerWithWaitList;
	t->clEnqueueBarrierWithWaitList = nv_EnqueueBarrierWithWaitList;
	t->clEnqueueSVMFree = nv_EnqueueSVMFree;
	t->clEnqueueSVMMemcpy = nv_EnqueueSVMMemcpy;
	t->clEnqueueSVMMemFill = nv_EnqueueSVMMemFill;
	t->clEnqueueSVMMap = nv_EnqueueSVMMap;
	t->clEnqueueSVMUnmap = nv_EnqueueSVMUnmap;
	t->clEnqueueSVMMigrateMem = nv_EnqueueSVMMigrateMem;
	t->clGetExtensionFunctionAddress = clGetExtensionFunctionAddress;
	t->clGetExtensionFunctionAddressForPlatform =
		nv_GetExtensionFunctionAddressForPlatform;

	/*
	 * The rest (images, rectangles, native kernels, pipes, sub-groups,
	 * device timers, GL/D3D sharing) return CL_INVALID_OPERATION: a
	 * loader calls entries unchecked, so none may stay NULL. Every entry
	 * has a pointer's size and representation on the platforms ocl-icd
	 * runs on (POSIX function pointers convert to void *).
	 */
	for (i = 0; i < sizeof(*t) / sizeof(void *); i++) {
		void *slot;

		memcpy(&slot, (char *)t + i * sizeof(void *), sizeof(slot));
		if (!slot) {
			slot = (void *)nv_unsupported;
			memcpy((char *)t + i * sizeof(void *), &slot,
			       sizeof(slot));
		}
	}
}

static void nv_init(void)
{
	nv_dispatch_init();
	nv_probe();
}

/* ---- The three symbols the ICD loader looks up ---- */

NV_EXPORT CL_API_ENTRY cl_int CL_API_CALL
clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
		       cl_uint *num_platforms)
{
	return nv_GetPlatformIDs(num_entries, platforms, num_platforms);
}

NV_EXPORT CL_API_ENTRY cl_int CL_API_CALL
clGetPlatformInfo(cl_platform_id platform, cl_platform_info param,
		  size_t size, void *value, size_t *size_ret)
{
	return nv_GetPlatformInfo(platform, param, size, value, size_ret);
}

NV_EXPORT CL_API_ENTRY void *CL_API_CALL
clGetExtensionFunctionAddress(const char *name)
{
	if (name && !strcmp(name, "clIcdGetPlatformIDsKHR"))
		return (void *)clIcdGetPlatformIDsKHR;
	return NULL;
}
