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
 * The device: one CL_DEVICE_TYPE_GPU per /dev/nvsvmN, FULL profile (the
 * OpenCL C compiler of program.c, nv_compiler_available()), fine-grained
 * system SVM from the module's replayable faults, kernels compiled to
 * RV64IMAFD programs for the SMs (NVSVM_IOCTL_LAUNCH), and five built-in
 * kernels that are programs of EXEC operations (nv_builtins[] in
 * program.c). What OpenCL 3.0 makes optional and the device does not do
 * (images, pipes, device-side enqueue, sub-groups, IL programs, program
 * scope globals, sharing with GL, EGL or D3D) is reported absent.
 *
 * Execution: a command runs when it is enqueued, on the calling thread,
 * in order; EXEC waits for the GPU. Its event is therefore complete
 * (CL_COMPLETE, or a negative error when the GPU cancelled an access) by
 * the time the enqueue returns. After a cancelled access the queue's
 * channel is in the error state: the next command re-creates it. The
 * exception: a command that has to wait for a user event (directly, or
 * through a deferred command's event or an earlier command of its queue)
 * is deferred, and runs later, on the thread that sets the user event
 * (see event.c).
 *
 * This file: the objects' common helpers, the platform and its devices,
 * what the device does not have, the dispatch table (each file fills the
 * entries of its own calls) and the three exported symbols. The other
 * parts are listed in nvsvm-cl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvsvm-cl.h"

#define NV_EXPORT	__attribute__((visibility("default")))

/*
 * The extensions of the device, and of the platform (cl_khr_icd and every
 * device's): the OpenCL 1.1 ones a 1.1 or later device must have, the
 * 64-bit atomics (the SMs' AMOs are 32 and 64 bits wide), and cl_khr_fp64
 * (RV64D executes doubles, the device library nvclc.bc has the double
 * functions). The same list as the compiler's NVCL_EXTENSIONS (nvcl.h).
 */
#define NV_CLAIM_FP64	1

#define NV_EXT_LIST(X) \
	X("cl_khr_byte_addressable_store") \
	X("cl_khr_global_int32_base_atomics") \
	X("cl_khr_global_int32_extended_atomics") \
	X("cl_khr_local_int32_base_atomics") \
	X("cl_khr_local_int32_extended_atomics") \
	X("cl_khr_int64_base_atomics") \
	X("cl_khr_int64_extended_atomics")

#define NV_EXT_STR(name)	name " "
#define NV_EXT_NV(name)		{ CL_MAKE_VERSION(1, 0, 0), name },

#if NV_CLAIM_FP64
#define NV_EXT_FP64_STR		"cl_khr_fp64 "
#define NV_EXT_FP64_NV		{ CL_MAKE_VERSION(1, 0, 0), "cl_khr_fp64" },
#else
#define NV_EXT_FP64_STR		""
#define NV_EXT_FP64_NV
#endif

static const char nv_dev_exts[] = NV_EXT_LIST(NV_EXT_STR) NV_EXT_FP64_STR;
static const cl_name_version nv_dev_exts_nv[] = {
	NV_EXT_LIST(NV_EXT_NV)
	NV_EXT_FP64_NV
};
static const char nv_plat_exts[] = "cl_khr_icd " NV_EXT_LIST(NV_EXT_STR)
	NV_EXT_FP64_STR;
static const cl_name_version nv_plat_exts_nv[] = {
	{ CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd" },
	NV_EXT_LIST(NV_EXT_NV)
	NV_EXT_FP64_NV
};

/*
 * The limits of a launch (uapi/nvsvm_vgpu.h) and what the compiler keeps
 * of the PARAM window for itself (NV_PARAM_RESERVED, nvsvm-cl.h).
 */
#define NV_MAX_GROUP		NVSVM_LAUNCH_MAX_GROUP
#define NV_LOCAL_MEM		NVSVM_LAUNCH_MAX_LOCAL
#define NV_MAX_PARAM		(NVSVM_LAUNCH_MAX_PARAM - NV_PARAM_RESERVED)
#define NV_CONSTANT_BUF		(64U << 10)
#define NV_CONSTANT_ARGS	8
/* The GP100's boost clock (Tesla P100), in MHz. */
#define NV_CLOCK_MHZ		1480

static cl_icd_dispatch nv_dispatch;
struct _cl_platform_id nv_platform = {
	.obj = { &nv_dispatch, NV_PLATFORM, 1 },
};
static struct _cl_device_id nv_devices[NV_MAX_DEVICES];
static cl_uint nv_ndevices;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

/* ---- The objects' helpers (nvsvm-cl.h has the small ones) ---- */

/* Copy a query's answer out, the way every clGet*Info does. */
cl_int nv_put(const void *src, size_t n, size_t size, void *dst,
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

cl_ulong nv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (cl_ulong)ts.tv_sec * 1000000000ULL + (cl_ulong)ts.tv_nsec;
}

void nv_obj_init(void *o, uint32_t magic)
{
	struct nv_obj *obj = o;

	obj->dispatch = &nv_dispatch;
	obj->magic = magic;
	obj->refs = 1;
}

void nv_obj_free(void *o)
{
	((struct nv_obj *)o)->magic = 0;
	free(o);
}

cl_int nv_errno_to_cl(int err)
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
	if (platform && platform != &nv_platform)
		return CL_INVALID_PLATFORM;
	switch (param) {
	case CL_PLATFORM_PROFILE:
		PUT_STR("FULL_PROFILE");
	case CL_PLATFORM_VERSION:
		PUT_STR("OpenCL 3.0 nvsvm");
	case CL_PLATFORM_NUMERIC_VERSION:
		PUT(cl_version, CL_MAKE_VERSION(3, 0, 0));
	case CL_PLATFORM_NAME:
		PUT_STR("nvsvm");
	case CL_PLATFORM_VENDOR:
		PUT_STR("nvsvm project");
	case CL_PLATFORM_EXTENSIONS:
		PUT_STR(nv_plat_exts);
	case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
		return nv_put(nv_plat_exts_nv, sizeof(nv_plat_exts_nv), size,
			      value, size_ret);
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

cl_int nv_GetDeviceIDs(cl_platform_id platform, cl_device_type type,
		       cl_uint num_entries, cl_device_id *devices,
		       cl_uint *num_devices)
{
	cl_uint n = 0, i;

	if (platform && platform != &nv_platform)
		return CL_INVALID_PLATFORM;
	/* 0 is no type: the spec's CL_INVALID_DEVICE_TYPE, like unknown bits. */
	if (!type ||
	    (type != CL_DEVICE_TYPE_ALL &&
	     (type & ~(cl_device_type)(CL_DEVICE_TYPE_DEFAULT |
				       CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
				       CL_DEVICE_TYPE_ACCELERATOR |
				       CL_DEVICE_TYPE_CUSTOM))))
		return CL_INVALID_DEVICE_TYPE;
	if ((num_entries == 0 && devices) || (!devices && !num_devices))
		return CL_INVALID_VALUE;
	if (!(type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT)))
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

cl_device_svm_capabilities nv_svm_caps(cl_device_id d)
{
	cl_device_svm_capabilities caps = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
		CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
		CL_DEVICE_SVM_FINE_GRAIN_SYSTEM;

	/*
	 * Only where the driver makes the GPU's atomics on system memory
	 * exact against the CPU's (a Pascal on PCIe has no host atomics):
	 * clSVMAlloc memory with CL_MEM_SVM_ATOMICS is private anonymous
	 * memory then (nv_mem_alloc()), malloc memory is too.
	 */
	if ((d->info.caps & NVSVM_CAP_ATOMICS) &&
	    (d->info.caps & NVSVM_CAP_SYSMEM_ATOMICS))
		caps |= CL_DEVICE_SVM_ATOMICS;
	return caps;
}

/*
 * The host's memory (system SVM: the device's global memory is the
 * process's), at most 4 * MAX_ALLOC so that the full profile's largest
 * allocation, a quarter of it, stays MAX_ALLOC.
 */
static cl_ulong global_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	cl_ulong mem = pages > 0 ? (cl_ulong)pages * PAGE : MAX_ALLOC;

	return mem < 4 * MAX_ALLOC ? mem : 4 * MAX_ALLOC;
}

static cl_int nv_GetDeviceInfo(cl_device_id d, cl_device_info param,
			       size_t size, void *value, size_t *size_ret)
{
	static const cl_name_version c_versions[] = {
		{ CL_MAKE_VERSION(1, 0, 0), "OpenCL C" },
		{ CL_MAKE_VERSION(1, 1, 0), "OpenCL C" },
		{ CL_MAKE_VERSION(1, 2, 0), "OpenCL C" },
		{ CL_MAKE_VERSION(3, 0, 0), "OpenCL C" },
	};
	/* The compiler's NVCL_FEATURES (nvcl.h), which nvclc.bc has. */
	static const cl_name_version c_features[] = {
		{ CL_MAKE_VERSION(3, 0, 0), "__opencl_c_int64" },
		{ CL_MAKE_VERSION(3, 0, 0), "__opencl_c_fp64" },
		{ CL_MAKE_VERSION(3, 0, 0), "__opencl_c_generic_address_space" },
		{ CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_order_acq_rel" },
		{ CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_order_seq_cst" },
		{ CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_scope_device" },
		{ CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_scope_all_devices" },
	};
	cl_name_version kernels[ARRAY_SIZE(nv_builtins)];
	size_t sizes[3] = { NV_MAX_GROUP, NV_MAX_GROUP, 64 };
	cl_device_partition_property none = 0;
	unsigned int i;

	if (!nv_valid(d, NV_DEVICE))
		return CL_INVALID_DEVICE;
	switch (param) {
	case CL_DEVICE_TYPE:
		PUT(cl_device_type, CL_DEVICE_TYPE_GPU);
	case CL_DEVICE_VENDOR_ID:
		PUT(cl_uint, 0x10de);
	case CL_DEVICE_MAX_COMPUTE_UNITS:
		PUT(cl_uint, d->info.gpc_count ? d->info.gpc_count : 1);
	case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
		PUT(cl_uint, 3);
	case CL_DEVICE_MAX_WORK_ITEM_SIZES:
		return nv_put(sizes, sizeof(sizes), size, value, size_ret);
	case CL_DEVICE_MAX_WORK_GROUP_SIZE:
		PUT(size_t, NV_MAX_GROUP);
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
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
		PUT(cl_uint, NV_CLAIM_FP64 ? 1 : 0);
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
		PUT(cl_uint, 0);
	case CL_DEVICE_MAX_CLOCK_FREQUENCY:
		PUT(cl_uint, NV_CLOCK_MHZ);
	case CL_DEVICE_ADDRESS_BITS:
		PUT(cl_uint, 64);
	case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
		PUT(cl_ulong, MAX_ALLOC);
	case CL_DEVICE_COMPILER_AVAILABLE:
	case CL_DEVICE_LINKER_AVAILABLE:
		PUT(cl_bool, nv_compiler_available() ? CL_TRUE : CL_FALSE);
	case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
		/* LAUNCH's last group of a dimension may be smaller. */
	case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
		/* One flat address space: the windows are addresses. */
		PUT(cl_bool, CL_TRUE);
	case CL_DEVICE_IMAGE_SUPPORT:
	case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
	case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
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
		PUT(size_t, NV_MAX_PARAM);
	case CL_DEVICE_PRINTF_BUFFER_SIZE:
		/* The full profile's least. */
		PUT(size_t, NVCL_PRINTF_SIZE);
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
		/* What cl_khr_fp64 requires; RV64D does it all. */
		PUT(cl_device_fp_config, NV_CLAIM_FP64 ?
		    CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
		    CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM : 0);
	case CL_DEVICE_HALF_FP_CONFIG:
		PUT(cl_device_fp_config, 0);
	case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
		PUT(cl_device_mem_cache_type, CL_NONE);
	case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
		PUT(cl_ulong, 0);
	case CL_DEVICE_GLOBAL_MEM_SIZE:
		PUT(cl_ulong, global_memory());
	case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
		PUT(cl_ulong, NV_CONSTANT_BUF);
	case CL_DEVICE_LOCAL_MEM_SIZE:
		PUT(cl_ulong, NV_LOCAL_MEM);
	case CL_DEVICE_MAX_CONSTANT_ARGS:
		PUT(cl_uint, NV_CONSTANT_ARGS);
	case CL_DEVICE_LOCAL_MEM_TYPE:
		/* The LOCAL window: each work-group's own memory. */
		PUT(cl_device_local_mem_type, CL_LOCAL);
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
		PUT_STR("FULL_PROFILE");
	case CL_DEVICE_VERSION:
		PUT_STR("OpenCL 3.0 nvsvm");
	case CL_DEVICE_NUMERIC_VERSION:
		PUT(cl_version, CL_MAKE_VERSION(3, 0, 0));
	case CL_DEVICE_OPENCL_C_VERSION:
		PUT_STR("OpenCL C 1.2 ");
	case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
		return nv_put(c_versions, sizeof(c_versions), size, value,
			      size_ret);
	case CL_DEVICE_OPENCL_C_FEATURES:
		return nv_put(c_features, sizeof(c_features), size, value,
			      size_ret);
	case CL_DEVICE_ILS_WITH_VERSION:
		return nv_put(NULL, 0, size, value, size_ret);
	case CL_DEVICE_EXTENSIONS:
		PUT_STR(nv_dev_exts);
	case CL_DEVICE_EXTENSIONS_WITH_VERSION:
		return nv_put(nv_dev_exts_nv, sizeof(nv_dev_exts_nv), size,
			      value, size_ret);
	case CL_DEVICE_IL_VERSION:
		PUT_STR("");
	case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
		/*
		 * The CTS this device is judged by (../shared/third_party):
		 * its pinned commit's date. Not a Khronos submission.
		 */
		PUT_STR("v2026-08-18-00");
	case CL_DEVICE_BUILT_IN_KERNELS:
		PUT_STR(nv_builtin_names);
	case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
		memset(kernels, 0, sizeof(kernels));
		for (i = 0; i < ARRAY_SIZE(nv_builtins); i++) {
			kernels[i].version = CL_MAKE_VERSION(1, 0, 0);
			snprintf(kernels[i].name, sizeof(kernels[i].name), "%s",
				 nv_builtins[i].name);
		}
		return nv_put(kernels, sizeof(kernels), size, value, size_ret);
	case CL_DEVICE_PARENT_DEVICE:
		PUT(cl_device_id, NULL);
	case CL_DEVICE_PARTITION_PROPERTIES:
		return nv_put(&none, sizeof(none), size, value, size_ret);
	case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
		PUT(cl_device_affinity_domain, 0);
	case CL_DEVICE_PARTITION_TYPE:
		return nv_put(NULL, 0, size, value, size_ret);
	case CL_DEVICE_REFERENCE_COUNT:
		PUT(cl_uint, 1);
	case CL_DEVICE_SVM_CAPABILITIES:
		PUT(cl_device_svm_capabilities, nv_svm_caps(d));
	case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
	case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
		/*
		 * The orders and scopes nvclc.bc implements (AMOs with aq/rl,
		 * fences). On system memory a GPU atomic is exact against
		 * the CPU only with CL_DEVICE_SVM_ATOMICS.
		 */
		PUT(cl_device_atomic_capabilities,
		    CL_DEVICE_ATOMIC_ORDER_RELAXED |
		    CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
		    CL_DEVICE_ATOMIC_ORDER_SEQ_CST |
		    CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
		    CL_DEVICE_ATOMIC_SCOPE_DEVICE |
		    CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_RetainDevice(cl_device_id d)
{
	return nv_valid(d, NV_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

static cl_int nv_CreateSubDevices(cl_device_id d,
				  const cl_device_partition_property *props,
				  cl_uint n, cl_device_id *out, cl_uint *n_ret)
{
	(void)props; (void)n; (void)out; (void)n_ret;
	return nv_valid(d, NV_DEVICE) ? CL_INVALID_VALUE : CL_INVALID_DEVICE;
}

/* ---- What this device does not have ---- */

static cl_int nv_GetSupportedImageFormats(cl_context ctx, cl_mem_flags flags,
					  cl_mem_object_type type, cl_uint n,
					  cl_image_format *formats,
					  cl_uint *n_ret)
{
	(void)flags; (void)type; (void)n; (void)formats;
	if (!nv_valid(ctx, NV_CONTEXT))
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
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreateImage2D(cl_context ctx, cl_mem_flags flags,
			       const cl_image_format *format, size_t w,
			       size_t h, size_t pitch, void *host,
			       cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)format; (void)w; (void)h; (void)pitch;
	(void)host;
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreateImage3D(cl_context ctx, cl_mem_flags flags,
			       const cl_image_format *format, size_t w,
			       size_t h, size_t d, size_t rp, size_t sp,
			       void *host, cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)format; (void)w; (void)h; (void)d;
	(void)rp; (void)sp; (void)host;
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_sampler nv_CreateSampler(cl_context ctx, cl_bool norm,
				   cl_addressing_mode am, cl_filter_mode fm,
				   cl_int *errcode_ret)
{
	(void)ctx; (void)norm; (void)am; (void)fm;
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_sampler nv_CreateSamplerWithProperties(cl_context ctx,
						 const cl_sampler_properties *p,
						 cl_int *errcode_ret)
{
	(void)ctx; (void)p;
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_mem nv_CreatePipe(cl_context ctx, cl_mem_flags flags, cl_uint psize,
			    cl_uint max, const cl_pipe_properties *props,
			    cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)psize; (void)max; (void)props;
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
}

static cl_program nv_CreateProgramWithIL(cl_context ctx, const void *il,
					 size_t len, cl_int *errcode_ret)
{
	(void)ctx; (void)il; (void)len;
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
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
	return nv_fail(errcode_ret, CL_INVALID_OPERATION);
}

static void *nv_EnqueueMapImage(cl_command_queue q, cl_mem m, cl_bool b,
				cl_map_flags f, const size_t *o,
				const size_t *r, size_t *rp, size_t *sp,
				cl_uint nw, const cl_event *wl, cl_event *ev,
				cl_int *errcode_ret)
{
	(void)q; (void)m; (void)b; (void)f; (void)o; (void)r; (void)rp;
	(void)sp; (void)nw; (void)wl; (void)ev;
	return nv_fail(errcode_ret, CL_INVALID_MEM_OBJECT);
}

/*
 * Sharing with GL, EGL, D3D and DX9 (the extensions are not claimed): no
 * context was created from such an API, so every create call fails with
 * CL_INVALID_CONTEXT, returns NULL and sets *errcode_ret. They return
 * pointers: nv_unsupported() below must not stand in for them. On Linux
 * cl_icd.h types the D3D and DX9 slots void *, their handles void * here.
 */
static cl_mem nv_CreateFromGLBuffer(cl_context ctx, cl_mem_flags flags,
				    cl_GLuint obj, cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)obj;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

static cl_mem nv_CreateFromGLTexture(cl_context ctx, cl_mem_flags flags,
				     cl_GLenum target, cl_GLint level,
				     cl_GLuint tex, cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)target; (void)level; (void)tex;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

static cl_event nv_CreateEventFromGLsync(cl_context ctx, cl_GLsync sync,
					 cl_int *errcode_ret)
{
	(void)ctx; (void)sync;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

static cl_mem nv_CreateFromEGLImage(cl_context ctx, CLeglDisplayKHR dpy,
				    CLeglImageKHR img, cl_mem_flags flags,
				    const cl_egl_image_properties_khr *props,
				    cl_int *errcode_ret)
{
	(void)ctx; (void)dpy; (void)img; (void)flags; (void)props;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

static cl_event nv_CreateEventFromEGLSync(cl_context ctx, CLeglSyncKHR sync,
					  CLeglDisplayKHR dpy,
					  cl_int *errcode_ret)
{
	(void)ctx; (void)sync; (void)dpy;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

static cl_mem nv_CreateFromD3DBuffer(cl_context ctx, cl_mem_flags flags,
				     void *res, cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)res;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

static cl_mem nv_CreateFromD3DTexture(cl_context ctx, cl_mem_flags flags,
				      void *res, cl_uint sub,
				      cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)res; (void)sub;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

static cl_mem nv_CreateFromDX9MediaSurface(cl_context ctx, cl_mem_flags flags,
					   cl_uint adapter, void *surface,
					   cl_uint plane, cl_int *errcode_ret)
{
	(void)ctx; (void)flags; (void)adapter; (void)surface; (void)plane;
	return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
}

/* No memory object is a pipe: CL_INVALID_MEM_OBJECT for every one. */
static cl_int nv_GetPipeInfo(cl_mem m, cl_pipe_info param, size_t size,
			     void *value, size_t *size_ret)
{
	(void)m; (void)param; (void)size; (void)value; (void)size_ret;
	return CL_INVALID_MEM_OBJECT;
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
	nv_context_dispatch(t);
	nv_memory_dispatch(t);
	nv_program_dispatch(t);
	nv_event_dispatch(t);
	t->clGetPlatformIDs = nv_GetPlatformIDs;
	t->clGetPlatformInfo = nv_GetPlatformInfo;
	t->clGetDeviceIDs = nv_GetDeviceIDs;
	t->clGetDeviceInfo = nv_GetDeviceInfo;
	t->clCreateSubDevices = nv_CreateSubDevices;
	t->clRetainDevice = nv_RetainDevice;
	t->clReleaseDevice = nv_RetainDevice;
	t->clCreateImage = nv_CreateImage;
	t->clCreateImage2D = nv_CreateImage2D;
	t->clCreateImage3D = nv_CreateImage3D;
	t->clCreateImageWithProperties = nv_CreateImageWithProperties;
	t->clCreatePipe = nv_CreatePipe;
	t->clGetSupportedImageFormats = nv_GetSupportedImageFormats;
	t->clCreateSampler = nv_CreateSampler;
	t->clCreateSamplerWithProperties = nv_CreateSamplerWithProperties;
	t->clCreateProgramWithIL = nv_CreateProgramWithIL;
	t->clEnqueueMapImage = nv_EnqueueMapImage;
	t->clGetExtensionFunctionAddress = clGetExtensionFunctionAddress;
	t->clGetExtensionFunctionAddressForPlatform =
		nv_GetExtensionFunctionAddressForPlatform;
	t->clGetPipeInfo = nv_GetPipeInfo;
	t->clCreateFromGLBuffer = nv_CreateFromGLBuffer;
	t->clCreateFromGLRenderbuffer = nv_CreateFromGLBuffer;
	t->clCreateFromGLTexture = nv_CreateFromGLTexture;
	t->clCreateFromGLTexture2D = nv_CreateFromGLTexture;
	t->clCreateFromGLTexture3D = nv_CreateFromGLTexture;
	t->clCreateEventFromGLsyncKHR = nv_CreateEventFromGLsync;
	t->clCreateFromEGLImageKHR = nv_CreateFromEGLImage;
	t->clCreateEventFromEGLSyncKHR = nv_CreateEventFromEGLSync;
	t->clCreateFromD3D10BufferKHR = (void *)nv_CreateFromD3DBuffer;
	t->clCreateFromD3D11BufferKHR = (void *)nv_CreateFromD3DBuffer;
	t->clCreateFromD3D10Texture2DKHR = (void *)nv_CreateFromD3DTexture;
	t->clCreateFromD3D10Texture3DKHR = (void *)nv_CreateFromD3DTexture;
	t->clCreateFromD3D11Texture2DKHR = (void *)nv_CreateFromD3DTexture;
	t->clCreateFromD3D11Texture3DKHR = (void *)nv_CreateFromD3DTexture;
	t->clCreateFromDX9MediaSurfaceKHR =
		(void *)nv_CreateFromDX9MediaSurface;

	/*
	 * The rest return a cl_int, and CL_INVALID_OPERATION (images,
	 * native kernels, sub-groups, device timers, GL/D3D/EGL acquire and
	 * release): a loader calls entries unchecked, so none may stay NULL.
	 * Every entry that returns a pointer has its own function above or
	 * in its file, which returns NULL and sets *errcode_ret. Every entry
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
