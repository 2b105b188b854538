// SPDX-License-Identifier: GPL-2.0
/*
 * opencl: the OpenCL ICD (tools/cl/, libnvsvm-cl) as an application sees
 * it: written against Debian's opencl-headers, linked with ocl-icd's
 * libOpenCL (dynamically, unlike the other test programs), and run in the
 * test VM with the ICD registered in /etc/OpenCL/vendors (run.sh
 * --opencl). The built-in kernels run on the virtual GP100 through EXEC
 * over plain malloc'd memory (fine-grained system SVM).
 *
 * User events (the user_event_* tests) hold commands back: nothing of
 * theirs is run before clSetUserEventStatus, and what they did after it
 * is checked on the data.
 *
 * The defects third-party clients found (issue 35, item 1) each have a
 * case: sharing_creates_fail, sub_buffer*, buffer_rect*,
 * context_destructor_callback, mem_host_flags, queue_properties_array,
 * argument_checks, conformance_version, extensions.
 *
 * Skips (exit 4) when the VM has no /etc/OpenCL/vendors/nvsvm.icd; with
 * it, a missing platform or device is a failure.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS	/* clEnqueueWaitForEvents */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS	/* clCreateCommandQueue */
#include <CL/cl.h>
#include <CL/cl_egl.h>
#include <CL/cl_gl.h>

#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnvsvm.h"

#define ICD_FILE	"/etc/OpenCL/vendors/nvsvm.icd"
#define NODES		1000
#define INC		7

struct node {
	uint64_t pad;
	struct node *next;
	uint64_t data;
};

FIXTURE(ocl) {
	cl_platform_id platform;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
};

FIXTURE_SETUP(ocl)
{
	cl_platform_id ids[8];
	cl_uint n = 0, i;
	char name[64];
	cl_int err;

	ASSERT_EQ(CL_SUCCESS, clGetPlatformIDs(8, ids, &n));
	self->platform = NULL;
	for (i = 0; i < n; i++) {
		ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(ids[i], CL_PLATFORM_NAME,
							sizeof(name), name, NULL));
		if (!strcmp(name, "nvsvm"))
			self->platform = ids[i];
	}
	ASSERT_NE(NULL, self->platform);
	/* Any type: device_info asserts it is a GPU. */
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(self->platform,
					     CL_DEVICE_TYPE_ALL, 1,
					     &self->dev, NULL));
	self->ctx = clCreateContext(NULL, 1, &self->dev, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	self->q = clCreateCommandQueueWithProperties(self->ctx, self->dev,
						     NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	self->prog = clCreateProgramWithBuiltInKernels(self->ctx, 1, &self->dev,
			"nvsvm_fill;nvsvm_copy;nvsvm_sum;nvsvm_chase;nvsvm_atomic_add",
			&err);
	ASSERT_EQ(CL_SUCCESS, err);
}

FIXTURE_TEARDOWN(ocl)
{
	if (self->prog)
		clReleaseProgram(self->prog);
	if (self->q)
		clReleaseCommandQueue(self->q);
	if (self->ctx)
		clReleaseContext(self->ctx);
}

static cl_kernel kernel(struct __test_metadata *_metadata, cl_program prog,
			const char *name)
{
	cl_int err;
	cl_kernel k = clCreateKernel(prog, name, &err);

	EXPECT_EQ(CL_SUCCESS, err);
	return k;
}

static cl_int event_status(cl_event ev)
{
	cl_int st = 1;

	clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
		       NULL);
	return st;
}

/* A single work-item (clEnqueueTask is deprecated in OpenCL 2.0). */
static cl_int task(cl_command_queue q, cl_kernel k, cl_event *ev)
{
	size_t one = 1;

	return clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, ev);
}

/* An nvsvm_chase kernel over struct node lists, its arguments set. */
static cl_kernel chase_kernel(struct __test_metadata *_metadata,
			      cl_program prog, struct node *head,
			      cl_ulong max, cl_ulong inc, uint64_t *visited)
{
	cl_uint off_next = offsetof(struct node, next);
	cl_uint off_data = offsetof(struct node, data);
	cl_kernel k = kernel(_metadata, prog, "nvsvm_chase");

	if (!k)
		return NULL;
	EXPECT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, head));
	EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(max), &max));
	EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(inc), &inc));
	EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, sizeof(off_next), &off_next));
	EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 4, sizeof(off_data), &off_data));
	EXPECT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 5, visited));
	return k;
}

/* clGetDeviceInfo of a fixed-size answer, asserted to succeed. */
#define DEV_INFO(param, var) \
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev, (param), sizeof(var), \
					      &(var), NULL))

/*
 * What clinfo shows, asserted on the API: type, profile, compiler, the
 * launch's limits (uapi/nvsvm_vgpu.h), SVM (atomics as GET_INFO's
 * NVSVM_CAP_SYSMEM_ATOMICS says), OpenCL C, kernels.
 */
TEST_F(ocl, device_info)
{
	cl_device_svm_capabilities svm = 0;
	cl_device_local_mem_type lmt = 0;
	cl_name_version nv[16];
	cl_device_type type = 0;
	cl_bool b = CL_FALSE;
	struct nvsvm_get_info gi;
	size_t sizes[3], sz, n;
	cl_ulong ul = 0;
	cl_uint u = 0;
	char s[256];
	int fd;

	fd = nvsvm_open(0);
	ASSERT_LE(0, fd);

	DEV_INFO(CL_DEVICE_TYPE, type);
	EXPECT_EQ(CL_DEVICE_TYPE_GPU, type);
	DEV_INFO(CL_DEVICE_PROFILE, s);
	EXPECT_STREQ("FULL_PROFILE", s);
	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(self->platform,
						CL_PLATFORM_PROFILE,
						sizeof(s), s, NULL));
	EXPECT_STREQ("FULL_PROFILE", s);
	DEV_INFO(CL_DEVICE_COMPILER_AVAILABLE, b);
	EXPECT_EQ(CL_TRUE, b);
	DEV_INFO(CL_DEVICE_LINKER_AVAILABLE, b);
	EXPECT_EQ(CL_TRUE, b);
	DEV_INFO(CL_DEVICE_IMAGE_SUPPORT, b);
	EXPECT_EQ(CL_FALSE, b);
	DEV_INFO(CL_DEVICE_MAX_WORK_GROUP_SIZE, sz);
	EXPECT_EQ(1024, sz);
	DEV_INFO(CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes);
	EXPECT_EQ(1024, sizes[0]);
	EXPECT_EQ(1024, sizes[1]);
	EXPECT_EQ(64, sizes[2]);
	DEV_INFO(CL_DEVICE_LOCAL_MEM_SIZE, ul);
	EXPECT_EQ(48 << 10, ul);
	DEV_INFO(CL_DEVICE_LOCAL_MEM_TYPE, lmt);
	EXPECT_EQ(CL_LOCAL, lmt);
	DEV_INFO(CL_DEVICE_MAX_PARAMETER_SIZE, sz);
	EXPECT_LE(1024, sz);
	EXPECT_GE(4096, sz);
	DEV_INFO(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, ul);
	EXPECT_EQ(64 << 10, ul);
	DEV_INFO(CL_DEVICE_MAX_CONSTANT_ARGS, u);
	EXPECT_EQ(8, u);
	DEV_INFO(CL_DEVICE_ADDRESS_BITS, u);
	EXPECT_EQ(64, u);
	DEV_INFO(CL_DEVICE_MAX_CLOCK_FREQUENCY, u);
	EXPECT_LT(1, u);
	DEV_INFO(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, u);
	EXPECT_EQ(1, u);
	DEV_INFO(CL_DEVICE_OPENCL_C_VERSION, s);
	EXPECT_STREQ("OpenCL C 1.2 ", s);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev,
					      CL_DEVICE_OPENCL_C_ALL_VERSIONS,
					      sizeof(nv), nv, &sz));
	n = sz / sizeof(nv[0]);
	ASSERT_EQ(4, n);
	EXPECT_EQ(CL_MAKE_VERSION(1, 0, 0), nv[0].version);
	EXPECT_EQ(CL_MAKE_VERSION(1, 1, 0), nv[1].version);
	EXPECT_EQ(CL_MAKE_VERSION(1, 2, 0), nv[2].version);
	EXPECT_EQ(CL_MAKE_VERSION(3, 0, 0), nv[3].version);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev,
					      CL_DEVICE_OPENCL_C_FEATURES,
					      sizeof(nv), nv, &sz));
	ASSERT_LE(1, sz / sizeof(nv[0]));
	EXPECT_STREQ("__opencl_c_int64", nv[0].name);
	DEV_INFO(CL_DEVICE_SVM_CAPABILITIES, svm);
	ASSERT_EQ(0, nvsvm_get_info(fd, &gi));
	EXPECT_EQ(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
		  CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
		  CL_DEVICE_SVM_FINE_GRAIN_SYSTEM |
		  ((gi.caps & NVSVM_CAP_ATOMICS) &&
		   (gi.caps & NVSVM_CAP_SYSMEM_ATOMICS) ?
		   CL_DEVICE_SVM_ATOMICS : 0),
		  svm);
	DEV_INFO(CL_DEVICE_BUILT_IN_KERNELS, s);
	EXPECT_NE(NULL, strstr(s, "nvsvm_chase"));
	EXPECT_NE(NULL, strstr(s, "nvsvm_atomic_add"));
	nvsvm_close(fd);
}

/*
 * The case: a linked list built with malloc, one node at a time,
 * walked by the GPU's CHASE from a pointer passed with
 * clSetKernelArgSVMPointer; every node's data word gets INC, and the
 * number of nodes visited is stored by the GPU in a malloc'd word.
 */
TEST_F(ocl, chase_malloc_list)
{
	struct node *head = NULL, *nd, **all;
	uint64_t *visited = malloc(sizeof(*visited));
	cl_event ev;
	cl_kernel k;
	int i, bad = 0;

	all = calloc(NODES, sizeof(*all));
	ASSERT_NE(NULL, all);
	ASSERT_NE(NULL, visited);
	*visited = 0;
	for (i = NODES - 1; i >= 0; i--) {
		nd = malloc(sizeof(*nd));
		ASSERT_NE(NULL, nd);
		nd->data = 1000 * (uint64_t)i;
		nd->next = head;
		head = nd;
		all[i] = nd;
	}
	k = chase_kernel(_metadata, self->prog, head, 1 << 20, INC, visited);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, task(self->q, k, &ev));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &ev));
	EXPECT_EQ(CL_COMPLETE, event_status(ev));
	EXPECT_EQ((uint64_t)NODES, *visited);
	for (i = 0; i < NODES; i++)
		if (all[i]->data != 1000 * (uint64_t)i + INC)
			bad++;
	EXPECT_EQ(0, bad);
	clReleaseEvent(ev);
	clReleaseKernel(k);
	for (i = 0; i < NODES; i++)
		free(all[i]);
	free(all);
	free(visited);
}

/* clEnqueueSVMMemFill and clEnqueueSVMMemcpy on malloc'd memory, then SUM. */
TEST_F(ocl, fill_copy_sum)
{
	size_t n = 64 * 1024, i;
	uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *res = malloc(8);
	uint64_t pattern = 3;
	cl_ulong bytes = n * 8;
	cl_kernel k;
	int bad = 0;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, res);
	memset(b, 0, n * 8);
	*res = 0;
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, a, &pattern,
						  sizeof(pattern), n * 8, 0,
						  NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(self->q, CL_TRUE, b, a, n * 8,
						 0, NULL, NULL));
	for (i = 0; i < n; i++)
		if (b[i] != 3)
			bad++;
	EXPECT_EQ(0, bad);
	k = kernel(_metadata, self->prog, "nvsvm_sum");
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, b));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(bytes), &bytes));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 2, res));
	ASSERT_EQ(CL_SUCCESS, task(self->q, k, NULL));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	EXPECT_EQ(3 * (uint64_t)n, *res);
	clReleaseKernel(k);
	free(a);
	free(b);
	free(res);
}

/*
 * One ATOMIC_ADD per work-item; each sees a distinct old value. Where the
 * device has no SVM atomics (GET_INFO: no exact GPU atomics on system
 * memory, a Pascal on PCIe with a stock kernel), the kernel's first add on
 * the malloc'd counter is refused: the event fails, the counter is as it
 * was.
 */
TEST_F(ocl, atomic_add)
{
	size_t items = 500, i;
	uint64_t *counter = malloc(8), *old = calloc(items, 8);
	char *seen = calloc(items, 1);
	cl_device_svm_capabilities svm = 0;
	cl_ulong v = 2;
	cl_event ev;
	cl_kernel k;
	int bad = 0;

	ASSERT_NE(NULL, counter);
	ASSERT_NE(NULL, old);
	ASSERT_NE(NULL, seen);
	*counter = 10;
	k = kernel(_metadata, self->prog, "nvsvm_atomic_add");
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, counter));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 2, old));
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev,
					      CL_DEVICE_SVM_CAPABILITIES,
					      sizeof(svm), &svm, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(self->q, k, 1, NULL,
						     &items, NULL, 0, NULL,
						     &ev));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	if (!(svm & CL_DEVICE_SVM_ATOMICS)) {
		EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
			  clWaitForEvents(1, &ev));
		EXPECT_GT(0, event_status(ev));
		EXPECT_EQ(10, *counter);
		clReleaseEvent(ev);
		clReleaseKernel(k);
		free(counter);
		free(old);
		free(seen);
		return;
	}
	EXPECT_EQ(CL_COMPLETE, event_status(ev));
	clReleaseEvent(ev);
	EXPECT_EQ(10 + 2 * (uint64_t)items, *counter);
	for (i = 0; i < items; i++) {
		uint64_t j = (old[i] - 10) / 2;

		if (old[i] < 10 || (old[i] & 1) || j >= items || seen[j]++)
			bad++;
	}
	EXPECT_EQ(0, bad);
	clReleaseKernel(k);
	free(counter);
	free(old);
	free(seen);
}

/*
 * A kernel whose access the GPU cancels (a list whose second node is in a
 * PROT_NONE page): the enqueue succeeds, the event ends with a negative
 * status, clWaitForEvents says so, clFinish does not; the queue then runs
 * the next command on a fresh channel.
 */
TEST_F(ocl, cancelled_fault_fails_event)
{
	struct node *nd = malloc(sizeof(*nd));
	uint64_t *word = malloc(8);
	cl_ulong pattern = 0x55;
	void *hole;
	cl_event ev, ev2;
	cl_kernel k;

	ASSERT_NE(NULL, nd);
	ASSERT_NE(NULL, word);
	hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	nd->data = 0;
	nd->next = hole;
	k = chase_kernel(_metadata, self->prog, nd, 10, 1, NULL);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, task(self->q, k, &ev));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
		  clWaitForEvents(1, &ev));
	EXPECT_GT(0, event_status(ev));
	/* The first node was done before the fault. */
	EXPECT_EQ(1, nd->data);
	/* A command waiting on the failed event does not run. */
	*word = 0;
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, word, &pattern, 8, 8,
						  1, &ev, &ev2));
	EXPECT_GT(0, event_status(ev2));
	EXPECT_EQ(0, *word);
	clReleaseEvent(ev2);
	/* The queue still works. */
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, word, &pattern, 8, 8,
						  0, NULL, &ev2));
	EXPECT_EQ(CL_COMPLETE, event_status(ev2));
	EXPECT_EQ(0x55, *word);
	clReleaseEvent(ev2);
	clReleaseEvent(ev);
	clReleaseKernel(k);
	munmap(hole, 4096);
	free(nd);
	free(word);
}

/*
 * The path of the file that maps @p in /proc/self/maps into @path ("" for
 * an anonymous mapping), its permissions into @perms; -1 if none maps it.
 */
static int mapping_of(const void *p, char *path, size_t len, char *perms)
{
	unsigned long lo, hi, a = (unsigned long)p;
	char line[512], name[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		name[0] = 0;
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %255s", &lo, &hi,
			   perms, name) < 3 || a < lo || a >= hi)
			continue;
		snprintf(path, len, "%s", name);
		ret = 0;
	}
	fclose(f);
	return ret;
}

/*
 * clSVMAlloc and clCreateBuffer memory are buffers of the unmanaged
 * window: mappings of /dev/nvsvm0, which the GPU fills and the host reads;
 * clSVMFree and the buffer's release give the range back to the window's
 * PROT_NONE reservation. Migrating them is a no-op that completes (they
 * are driver memory); malloc'd memory moves to VRAM where the kernel can.
 */
TEST_F(ocl, svm_alloc_migrate)
{
	size_t size = 16 * 4096, i;
	struct nvsvm_get_info gi;
	bool private_buf;
	uint64_t *p, *m, *b, before = 0, after = 0, pattern = 9;
	char path[256], perms[8];
	cl_event ev;
	cl_mem mem;
	cl_int err;
	int fd, bad = 0;

	fd = nvsvm_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nvsvm_get_info(fd, &gi));
	nvsvm_close(fd);
	/*
	 * A window buffer, unless the GPU has atomics on private memory but
	 * not on window buffers: then any SVM allocation or buffer, which a
	 * kernel's atomics may reach, is private memory.
	 */
	private_buf = (gi.caps & NVSVM_CAP_SYSMEM_ATOMICS) &&
		      (gi.caps & NVSVM_CAP_ATOMICS) &&
		      !(gi.caps & NVSVM_CAP_SYSMEM_ATOMICS_ALL);
	p = clSVMAlloc(self->ctx, CL_MEM_READ_WRITE |
		       CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 0);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mapping_of(p, path, sizeof(path), perms));
	EXPECT_STREQ(private_buf ? "" : "/dev/nvsvm0", path);
	EXPECT_STREQ(private_buf ? "rw-p" : "rw-s", perms);
	memset(p, 1, size);
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMigrateMem(self->q, 1,
						     (const void **)&p, NULL,
						     0, 0, NULL, &ev));
	EXPECT_EQ(CL_COMPLETE, event_status(ev));
	clReleaseEvent(ev);
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, p, &pattern, 8, size,
						  0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	for (i = 0; i < size / 8; i++)
		if (p[i] != 9)
			bad++;
	EXPECT_EQ(0, bad);
	clSVMFree(self->ctx, p);
	/* Given back: the reservation again, or unmapped. */
	if (private_buf) {
		EXPECT_NE(0, mapping_of(p, path, sizeof(path), perms));
	} else {
		ASSERT_EQ(0, mapping_of(p, path, sizeof(path), perms));
		EXPECT_STREQ("", path);
		EXPECT_STREQ("---p", perms);
	}
	nvsvm_stat_read(0, "vram_pages", &before);

	/* A buffer object: the same. */
	mem = clCreateBuffer(self->ctx, CL_MEM_READ_WRITE, size, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	pattern = 5;
	ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(self->q, mem, &pattern, 8, 0,
						  size, 0, NULL, NULL));
	b = clEnqueueMapBuffer(self->q, mem, CL_TRUE, CL_MAP_READ, 0, size, 0,
			       NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(0, mapping_of(b, path, sizeof(path), perms));
	EXPECT_STREQ(private_buf ? "" : "/dev/nvsvm0", path);
	for (i = 0, bad = 0; i < size / 8; i++)
		if (b[i] != 5)
			bad++;
	EXPECT_EQ(0, bad);
	ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(self->q, mem, b, 0, NULL,
						      NULL));
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(mem));
	/* Given back: the reservation again, or unmapped. */
	if (private_buf) {
		EXPECT_NE(0, mapping_of(b, path, sizeof(path), perms));
	} else {
		EXPECT_EQ(0, mapping_of(b, path, sizeof(path), perms));
		EXPECT_STREQ("---p", perms);
	}

	/* System SVM memory moves to VRAM. */
	m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, 1, size);
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMigrateMem(self->q, 1,
						     (const void **)&m, &size,
						     0, 0, NULL, &ev));
	EXPECT_EQ(CL_COMPLETE, event_status(ev));
	clReleaseEvent(ev);
	if (gi.caps & NVSVM_CAP_DEVICE_PRIVATE) {
		ASSERT_EQ(0, nvsvm_stat_read(0, "vram_pages", &after));
		EXPECT_EQ(before + size / 4096, after);
	}
	pattern = 9;
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, m, &pattern, 8, size,
						  0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	for (i = 0, bad = 0; i < size / 8; i++)
		if (m[i] != 9)
			bad++;
	EXPECT_EQ(0, bad);
	munmap(m, size);
}

/* Errors the spec names, and nothing run for them. */
TEST_F(ocl, errors)
{
	const char *src = "kernel void k(void) {}";
	uint64_t *buf = malloc(64);
	cl_program p;
	cl_kernel k;
	cl_int err;

	ASSERT_NE(NULL, buf);
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clBuildProgram(self->prog, 0, NULL, NULL, NULL, NULL));
	k = clCreateKernel(self->prog, "nvsvm_nope", &err);
	EXPECT_EQ(NULL, k);
	EXPECT_EQ(CL_INVALID_KERNEL_NAME, err);
	p = clCreateProgramWithBuiltInKernels(self->ctx, 1, &self->dev,
					      "nvsvm_fill;nope", &err);
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* What clBuildProgram does with it is program.c's (the compiler). */
	p = clCreateProgramWithSource(self->ctx, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	clReleaseProgram(p);
	k = kernel(_metadata, self->prog, "nvsvm_fill");
	ASSERT_NE(NULL, k);
	EXPECT_EQ(CL_INVALID_KERNEL_ARGS,
		  task(self->q, k, NULL));
	EXPECT_EQ(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(k, 3, buf));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 4, buf));
	clReleaseKernel(k);
	EXPECT_EQ(CL_MEM_COPY_OVERLAP,
		  clEnqueueSVMMemcpy(self->q, CL_TRUE, buf, buf + 1, 16, 0,
				     NULL, NULL));
	EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST,
		  clEnqueueSVMMemcpy(self->q, CL_TRUE, buf, buf + 4, 16, 1,
				     NULL, NULL));
	free(buf);
}

/* Words of @p that are not @v. */
static int count_not(const uint64_t *p, size_t n, uint64_t v)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			bad++;
	return bad;
}

/* A user event with the ICD's answers to clGetEventInfo checked. */
static cl_event user_event(struct __test_metadata *_metadata, cl_context ctx)
{
	cl_command_queue q = (void *)1;
	cl_command_type type = 0;
	cl_context c = NULL;
	cl_int err;
	cl_event u = clCreateUserEvent(ctx, &err);

	EXPECT_EQ(CL_SUCCESS, err);
	if (!u)
		return NULL;
	EXPECT_EQ(CL_SUBMITTED, event_status(u));
	EXPECT_EQ(CL_SUCCESS, clGetEventInfo(u, CL_EVENT_COMMAND_TYPE,
					     sizeof(type), &type, NULL));
	EXPECT_EQ(CL_COMMAND_USER, type);
	EXPECT_EQ(CL_SUCCESS, clGetEventInfo(u, CL_EVENT_CONTEXT, sizeof(c),
					     &c, NULL));
	EXPECT_EQ(ctx, c);
	EXPECT_EQ(CL_SUCCESS, clGetEventInfo(u, CL_EVENT_COMMAND_QUEUE,
					     sizeof(q), &q, NULL));
	EXPECT_EQ(NULL, q);
	return u;
}

/*
 * A built-in kernel (nvsvm_fill) over malloc'd memory waits for a user
 * event: queued, the memory untouched, until the event is set; its
 * arguments are the ones it was enqueued with, not later ones. Profiling
 * times exist once it ran, in order.
 */
TEST_F(ocl, user_event_gates_kernel)
{
	cl_queue_properties props[] = {
		CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0
	};
	size_t n = 4096, one = 1;
	uint64_t *a = malloc(n * 8);
	cl_ulong bytes = n * 8, pattern = 0x1234, later = 0x9999, small = 8;
	cl_ulong t[4] = { 0, 0, 0, 0 };
	cl_command_queue pq;
	cl_event u, ev;
	cl_kernel k;
	cl_int err;
	int i;

	ASSERT_NE(NULL, a);
	memset(a, 0, n * 8);
	pq = clCreateCommandQueueWithProperties(self->ctx, self->dev, props,
						&err);
	ASSERT_EQ(CL_SUCCESS, err);
	u = user_event(_metadata, self->ctx);
	ASSERT_NE(NULL, u);
	k = kernel(_metadata, self->prog, "nvsvm_fill");
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, a));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(bytes), &bytes));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(pattern), &pattern));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(pq, k, 1, NULL, &one,
						     NULL, 1, &u, &ev));
	/* Captured at enqueue: these do not change the command. */
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(later), &later));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(small), &small));
	EXPECT_EQ(CL_QUEUED, event_status(ev));
	EXPECT_EQ(CL_PROFILING_INFO_NOT_AVAILABLE,
		  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED,
					  sizeof(t[0]), &t[0], NULL));
	ASSERT_EQ(CL_SUCCESS, clFlush(pq));
	EXPECT_EQ(CL_QUEUED, event_status(ev));
	EXPECT_EQ(0, count_not(a, n, 0));

	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(u, CL_COMPLETE));
	EXPECT_EQ(CL_COMPLETE, event_status(u));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &ev));
	EXPECT_EQ(CL_COMPLETE, event_status(ev));
	EXPECT_EQ(0, count_not(a, n, 0x1234));
	for (i = 0; i < 4; i++) {
		cl_profiling_info what = CL_PROFILING_COMMAND_QUEUED + i;

		ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(ev, what,
							      sizeof(t[i]),
							      &t[i], NULL));
	}
	EXPECT_LE(t[0], t[1]);
	EXPECT_LE(t[1], t[2]);
	EXPECT_LE(t[2], t[3]);
	clReleaseEvent(ev);
	clReleaseEvent(u);
	clReleaseKernel(k);
	clReleaseCommandQueue(pq);
	free(a);
}

/*
 * A user event set to an error: the command that waits for it, and one
 * that waits for that command's event, end with
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST without running; a later
 * command of the queue that waits for neither runs.
 */
TEST_F(ocl, user_event_error_fails_dependents)
{
	size_t n = 512;
	uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
	uint64_t pattern = 0x77;
	cl_event u, ev[3];

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, c);
	memset(a, 0, n * 8);
	memset(b, 0, n * 8);
	memset(c, 0, n * 8);
	u = user_event(_metadata, self->ctx);
	ASSERT_NE(NULL, u);
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, a, &pattern, 8,
						  n * 8, 1, &u, &ev[0]));
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, b, &pattern, 8,
						  n * 8, 1, &ev[0], &ev[1]));
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, c, &pattern, 8,
						  n * 8, 0, NULL, &ev[2]));
	EXPECT_EQ(CL_QUEUED, event_status(ev[2]));
	EXPECT_EQ(0, count_not(c, n, 0));

	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(u, -1234));
	EXPECT_EQ(-1234, event_status(u));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
		  clWaitForEvents(2, ev));
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
		  event_status(ev[0]));
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
		  event_status(ev[1]));
	EXPECT_EQ(CL_SUCCESS, clWaitForEvents(1, &ev[2]));
	EXPECT_EQ(CL_COMPLETE, event_status(ev[2]));
	EXPECT_EQ(0, count_not(a, n, 0));
	EXPECT_EQ(0, count_not(b, n, 0));
	EXPECT_EQ(0, count_not(c, n, 0x77));
	clReleaseEvent(ev[0]);
	clReleaseEvent(ev[1]);
	clReleaseEvent(ev[2]);
	clReleaseEvent(u);
	free(a);
	free(b);
	free(c);
}

/*
 * In an in-order queue, one user event holds back a chain that only
 * works in order: fill a, copy a to b, nvsvm_sum of b (a sum run before
 * the copy would see zeros). A marker with the user event in its wait
 * list and a command of a second queue waiting for the sum wait too:
 * the second queue copies the sum, behind a barrier on the user event
 * and clEnqueueWaitForEvents on the sum's event.
 */
TEST_F(ocl, user_event_in_order_chain)
{
	size_t n = 8192;
	uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *res = malloc(8);
	uint64_t *mark = malloc(8), pattern = 5;
	cl_ulong bytes = n * 8;
	cl_command_queue q2;
	cl_event u, ev[5];
	cl_kernel k;
	cl_int err;
	int i;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, res);
	ASSERT_NE(NULL, mark);
	memset(a, 0, n * 8);
	memset(b, 0, n * 8);
	*res = 0;
	*mark = 0;
	q2 = clCreateCommandQueueWithProperties(self->ctx, self->dev, NULL,
						&err);
	ASSERT_EQ(CL_SUCCESS, err);
	u = user_event(_metadata, self->ctx);
	ASSERT_NE(NULL, u);
	k = kernel(_metadata, self->prog, "nvsvm_sum");
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, b));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(bytes), &bytes));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 2, res));

	ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(self->q, 1, &u,
							  &ev[0]));
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, a, &pattern, 8,
						  n * 8, 0, NULL, &ev[1]));
	pattern = 6;	/* the fill's pattern was copied at enqueue */
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(self->q, CL_FALSE, b, a,
						 n * 8, 0, NULL, &ev[2]));
	ASSERT_EQ(CL_SUCCESS, task(self->q, k, &ev[3]));
	ASSERT_EQ(CL_SUCCESS, clEnqueueBarrierWithWaitList(q2, 1, &u, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueWaitForEvents(q2, 1, &ev[3]));
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(q2, CL_FALSE, mark, res, 8, 0,
						 NULL, &ev[4]));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(CL_QUEUED, event_status(ev[i]));
	EXPECT_EQ(0, count_not(a, n, 0));
	EXPECT_EQ(0, count_not(b, n, 0));
	EXPECT_EQ(0, *res);
	EXPECT_EQ(0, *mark);

	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(u, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	ASSERT_EQ(CL_SUCCESS, clFinish(q2));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(CL_COMPLETE, event_status(ev[i]));
	EXPECT_EQ(0, count_not(a, n, 5));
	EXPECT_EQ(0, count_not(b, n, 5));
	EXPECT_EQ(5 * (uint64_t)n, *res);
	EXPECT_EQ(5 * (uint64_t)n, *mark);
	for (i = 0; i < 5; i++)
		clReleaseEvent(ev[i]);
	clReleaseEvent(u);
	clReleaseKernel(k);
	clReleaseCommandQueue(q2);
	free(a);
	free(b);
	free(res);
	free(mark);
}

struct cb_log {
	int calls[3];			/* by CL_COMPLETE, CL_RUNNING, CL_SUBMITTED */
	cl_int status[3];
	cl_event ev[3];
};

static void CL_CALLBACK log_cb(cl_event ev, cl_int status, void *data)
{
	struct cb_log *log = data;
	int i = 0;

	/* Which registration: status, or the first not called yet. */
	if (status >= CL_COMPLETE && status <= CL_SUBMITTED)
		i = status;
	else
		while (i < 2 && log->calls[i])
			i++;
	__atomic_add_fetch(&log->calls[i], 1, __ATOMIC_SEQ_CST);
	log->status[i] = status;
	log->ev[i] = ev;
}

static void register_cbs(struct __test_metadata *_metadata, cl_event ev,
			 struct cb_log *log)
{
	memset(log, 0, sizeof(*log));
	EXPECT_EQ(CL_SUCCESS, clSetEventCallback(ev, CL_COMPLETE, log_cb, log));
	EXPECT_EQ(CL_SUCCESS, clSetEventCallback(ev, CL_RUNNING, log_cb, log));
	EXPECT_EQ(CL_SUCCESS, clSetEventCallback(ev, CL_SUBMITTED, log_cb,
						 log));
}

/*
 * clSetEventCallback on a user event and on a command waiting for it:
 * each callback is called once, when the event reaches its status, with
 * that status; after an error, with the error.
 */
TEST_F(ocl, user_event_callbacks)
{
	struct cb_log ulog, clog, elog;
	uint64_t *w = malloc(8), pattern = 3;
	cl_event u, u2, ev, ev2;
	int i;

	ASSERT_NE(NULL, w);
	*w = 0;
	u = user_event(_metadata, self->ctx);
	ASSERT_NE(NULL, u);
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, w, &pattern, 8, 8,
						  1, &u, &ev));
	register_cbs(_metadata, u, &ulog);
	register_cbs(_metadata, ev, &clog);
	/* A user event is CL_SUBMITTED: only that callback, at once. */
	EXPECT_EQ(0, ulog.calls[CL_COMPLETE]);
	EXPECT_EQ(0, ulog.calls[CL_RUNNING]);
	EXPECT_EQ(1, ulog.calls[CL_SUBMITTED]);
	EXPECT_EQ(u, ulog.ev[CL_SUBMITTED]);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, clog.calls[i]);

	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(u, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	EXPECT_EQ(3, *w);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(1, ulog.calls[i]);
		EXPECT_EQ(i, ulog.status[i]);
		EXPECT_EQ(1, clog.calls[i]);
		EXPECT_EQ(i, clog.status[i]);
		EXPECT_EQ(ev, clog.ev[i]);
	}
	EXPECT_EQ(CL_INVALID_OPERATION, clSetUserEventStatus(u, CL_COMPLETE));
	EXPECT_EQ(1, ulog.calls[CL_COMPLETE]);

	/* An error reaches every callback of the command as the error. */
	*w = 0;
	u2 = user_event(_metadata, self->ctx);
	ASSERT_NE(NULL, u2);
	ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, w, &pattern, 8, 8,
						  1, &u2, &ev2));
	register_cbs(_metadata, ev2, &elog);
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(u2, -5));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	EXPECT_EQ(0, *w);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(1, elog.calls[i]);
		EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
			  elog.status[i]);
	}
	clReleaseEvent(ev);
	clReleaseEvent(ev2);
	clReleaseEvent(u);
	clReleaseEvent(u2);
	free(w);
}

struct setter {
	cl_event u;
	uint64_t *watch;		/* still 0 when the event is set */
	int seen_zero;
	int set;
	cl_int ret;
};

/* Set the user event from a second thread, once the first is waiting. */
static void *set_later(void *arg)
{
	struct setter *s = arg;

	/* Not a timing assumption: only makes the first thread wait first. */
	usleep(200 * 1000);
	s->seen_zero = *s->watch == 0;
	__atomic_store_n(&s->set, 1, __ATOMIC_SEQ_CST);
	s->ret = clSetUserEventStatus(s->u, CL_COMPLETE);
	return NULL;
}

/*
 * Waiting for a command held back by a user event blocks until a second
 * thread sets it, for clFinish, clWaitForEvents and a blocking
 * clEnqueueSVMMemcpy: each returns with the data there, and only after
 * the other thread set the event.
 */
TEST_F(ocl, user_event_set_by_other_thread)
{
	uint64_t *a = malloc(4096), *b = malloc(4096), pattern = 0xab;
	struct setter s;
	pthread_t th;
	cl_event ev;
	cl_int err;
	int mode;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	for (mode = 0; mode < 3; mode++) {
		memset(a, 0, 4096);
		memset(b, 0, 4096);
		memset(&s, 0, sizeof(s));
		s.u = user_event(_metadata, self->ctx);
		ASSERT_NE(NULL, s.u);
		s.watch = mode == 2 ? b : a;
		ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, a, &pattern,
							  8, 4096, 1, &s.u,
							  &ev));
		ASSERT_EQ(0, pthread_create(&th, NULL, set_later, &s));
		if (mode == 0)
			err = clFinish(self->q);
		else if (mode == 1)
			err = clWaitForEvents(1, &ev);
		else
			err = clEnqueueSVMMemcpy(self->q, CL_TRUE, b, a, 4096,
						 0, NULL, NULL);
		EXPECT_EQ(CL_SUCCESS, err);
		EXPECT_EQ(1, __atomic_load_n(&s.set, __ATOMIC_SEQ_CST));
		EXPECT_EQ(0, count_not(a, 512, 0xab));
		if (mode == 2)
			EXPECT_EQ(0, count_not(b, 512, 0xab));
		EXPECT_EQ(CL_COMPLETE, event_status(ev));
		ASSERT_EQ(0, pthread_join(th, NULL));
		EXPECT_EQ(CL_SUCCESS, s.ret);
		EXPECT_EQ(1, s.seen_zero);
		clReleaseEvent(ev);
		clReleaseEvent(s.u);
	}
	free(a);
	free(b);
}

#define RACE_ROUNDS	200

struct racer {
	pthread_barrier_t go;
	cl_event u[RACE_ROUNDS];
	cl_int ret;
};

static void *set_each(void *arg)
{
	struct racer *r = arg;
	int i;

	for (i = 0; i < RACE_ROUNDS; i++) {
		pthread_barrier_wait(&r->go);
		r->ret |= clSetUserEventStatus(r->u[i], CL_COMPLETE);
	}
	return NULL;
}

/*
 * A second thread sets each round's user event while the first enqueues
 * behind it: the fill held back by the event, then a copy of the filled
 * words and a second fill of the same words, which have to run after
 * it, in order, whether they are enqueued before the event is set, while
 * the other thread runs the fill, or after.
 */
TEST_F(ocl, user_event_race)
{
	uint64_t *a = malloc(64 * 8), *b = malloc(64 * 8), *c = malloc(64 * 8);
	uint64_t v, w;
	struct racer r;
	pthread_t th;
	cl_int err;
	int i, bad = 0;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, c);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, pthread_barrier_init(&r.go, NULL, 2));
	for (i = 0; i < RACE_ROUNDS; i++) {
		r.u[i] = clCreateUserEvent(self->ctx, &err);
		ASSERT_EQ(CL_SUCCESS, err);
	}
	ASSERT_EQ(0, pthread_create(&th, NULL, set_each, &r));
	for (i = 0; i < RACE_ROUNDS; i++) {
		v = i + 1;
		w = 1000 + i;
		ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, a, &v, 8,
							  64 * 8, 1, &r.u[i],
							  NULL));
		pthread_barrier_wait(&r.go);
		ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(self->q, CL_FALSE, b, a,
							 64 * 8, 0, NULL,
							 NULL));
		ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemcpy(self->q, CL_FALSE, c, a,
							 64 * 8, 0, NULL,
							 NULL));
		ASSERT_EQ(CL_SUCCESS, clEnqueueSVMMemFill(self->q, a, &w, 8,
							  64 * 8, 0, NULL,
							  NULL));
		ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
		bad += count_not(b, 64, i + 1) + count_not(c, 64, i + 1) +
		       count_not(a, 64, 1000 + i);
	}
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(CL_SUCCESS, r.ret);
	EXPECT_EQ(0, bad);
	for (i = 0; i < RACE_ROUNDS; i++)
		clReleaseEvent(r.u[i]);
	pthread_barrier_destroy(&r.go);
	free(a);
	free(b);
	free(c);
}

/* clSetUserEventStatus's errors; none changes the event. */
TEST_F(ocl, user_event_errors)
{
	cl_event u, ev;

	u = user_event(_metadata, self->ctx);
	ASSERT_NE(NULL, u);
	EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(u, CL_RUNNING));
	EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(u, CL_SUBMITTED));
	EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(u, 42));
	EXPECT_EQ(CL_SUBMITTED, event_status(u));
	ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(self->q, 0, NULL,
							  &ev));
	EXPECT_EQ(CL_COMPLETE, event_status(ev));
	EXPECT_EQ(CL_INVALID_EVENT, clSetUserEventStatus(ev, CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_EVENT, clSetUserEventStatus(ev, -1));
	EXPECT_EQ(CL_COMPLETE, event_status(ev));
	EXPECT_EQ(CL_SUCCESS, clSetUserEventStatus(u, -3));
	EXPECT_EQ(CL_INVALID_OPERATION, clSetUserEventStatus(u, CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_OPERATION, clSetUserEventStatus(u, -3));
	EXPECT_EQ(-3, event_status(u));
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
		  clWaitForEvents(1, &u));
	clReleaseEvent(ev);
	clReleaseEvent(u);
}

/*
 * Sharing with GL and EGL: the ICD has none, and a create call must fail
 * like any other, NULL with *errcode_ret set (the dispatch slots of
 * pointer-returning calls once held an int-returning catch-all: a garbage
 * object and errcode_ret untouched).
 */
TEST_F(ocl, sharing_creates_fail)
{
	cl_int err;
	cl_mem m;
	cl_event ev;

	err = 1;
	m = clCreateFromGLBuffer(self->ctx, CL_MEM_READ_WRITE, 1, &err);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	err = 1;
	m = clCreateFromGLTexture(self->ctx, CL_MEM_READ_WRITE, 0x0de1, 0, 1,
				  &err);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	err = 1;
	m = clCreateFromGLRenderbuffer(self->ctx, CL_MEM_READ_WRITE, 1, &err);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	err = 1;
	ev = clCreateEventFromGLsyncKHR(self->ctx, NULL, &err);
	EXPECT_EQ(NULL, ev);
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	err = 1;
	m = clCreateFromEGLImageKHR(self->ctx, NULL, NULL, CL_MEM_READ_WRITE,
				    NULL, &err);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	err = 1;
	ev = clCreateEventFromEGLSyncKHR(self->ctx, NULL, NULL, &err);
	EXPECT_EQ(NULL, ev);
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
}

/* A buffer of @n bytes, byte i = i * 7 + 1, or NULL. */
static cl_mem pattern_buffer(struct __test_metadata *_metadata, cl_context ctx,
			     cl_mem_flags flags, size_t n)
{
	uint8_t *init = malloc(n);
	cl_mem m = NULL;
	cl_int err;
	size_t i;

	EXPECT_NE(NULL, init);
	if (!init)
		return NULL;
	for (i = 0; i < n; i++)
		init[i] = (uint8_t)(i * 7 + 1);
	m = clCreateBuffer(ctx, flags | CL_MEM_COPY_HOST_PTR, n, init, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	free(init);
	return m;
}

/*
 * clCreateSubBuffer: a region of its parent's memory, read and written
 * through either; its info names the parent and the origin; it outlives
 * the application's reference to the parent.
 */
TEST_F(ocl, sub_buffer)
{
	cl_buffer_region r = { 1024, 512 };
	uint8_t got[512], w[256];
	size_t off = 1, i;
	cl_mem p, sb, assoc = NULL;
	cl_int err;

	p = pattern_buffer(_metadata, self->ctx, CL_MEM_READ_WRITE, 4096);
	ASSERT_NE(NULL, p);
	sb = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_NE(NULL, sb);
	ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sb, CL_MEM_ASSOCIATED_MEMOBJECT,
						 sizeof(assoc), &assoc, NULL));
	EXPECT_EQ(p, assoc);
	ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sb, CL_MEM_OFFSET, sizeof(off),
						 &off, NULL));
	EXPECT_EQ(1024, off);
	ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sb, CL_MEM_SIZE, sizeof(off),
						 &off, NULL));
	EXPECT_EQ(512, off);
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(self->q, sb, CL_TRUE, 0,
						  sizeof(got), got, 0, NULL,
						  NULL));
	for (i = 0; i < sizeof(got); i++)
		if (got[i] != (uint8_t)((1024 + i) * 7 + 1))
			break;
	EXPECT_EQ(sizeof(got), i);
	/* Written through the sub-buffer, read through the parent. */
	memset(w, 0xa5, sizeof(w));
	ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(self->q, sb, CL_TRUE, 128,
						   sizeof(w), w, 0, NULL,
						   NULL));
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(p));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(self->q, sb, CL_TRUE, 0,
						  sizeof(got), got, 0, NULL,
						  NULL));
	EXPECT_EQ(0xa5, got[128]);
	EXPECT_EQ(0xa5, got[383]);
	EXPECT_EQ((uint8_t)((1024 + 384) * 7 + 1), got[384]);
	EXPECT_EQ(CL_SUCCESS, clReleaseMemObject(sb));
}

/*
 * clEnqueueMigrateMemObjects: to the host and back, the contents kept;
 * flags beyond the two of the spec, no objects, or a NULL list are
 * CL_INVALID_VALUE (piglit's api@clenqueuemigratememobjects; a flag
 * unknown was taken until 2026-12-07).
 */
TEST_F(ocl, migrate_mem_objects)
{
	static const cl_mem_migration_flags ok[] = {
		0, CL_MIGRATE_MEM_OBJECT_HOST,
		CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
	};
	uint8_t got[256];
	cl_mem p = pattern_buffer(_metadata, self->ctx, CL_MEM_READ_WRITE, 4096);
	size_t i;

	ASSERT_NE(NULL, p);
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueMigrateMemObjects(self->q, 1, &p, 1 << 2, 0, NULL,
					     NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueMigrateMemObjects(self->q, 1, &p, ~0ULL, 0, NULL,
					     NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueMigrateMemObjects(self->q, 0, &p, 0, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueMigrateMemObjects(self->q, 1, NULL, 0, 0, NULL,
					     NULL));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(CL_SUCCESS,
			  clEnqueueMigrateMemObjects(self->q, 1, &p, ok[i], 0,
						     NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(self->q, p, CL_TRUE, 0,
						  sizeof(got), got, 0, NULL,
						  NULL));
	for (i = 0; i < sizeof(got); i++)
		if (got[i] != (uint8_t)(i * 7 + 1))
			break;
	EXPECT_EQ(sizeof(got), i);
	/* Contents undefined: the call succeeds, what it leaves is not checked. */
	EXPECT_EQ(CL_SUCCESS, clEnqueueMigrateMemObjects(self->q, 1, &p, ok[2],
							 0, NULL, NULL));
	EXPECT_EQ(CL_SUCCESS, clFinish(self->q));
	EXPECT_EQ(CL_SUCCESS, clReleaseMemObject(p));
}

/* clCreateSubBuffer's errors: each a clear one, nothing created. */
TEST_F(ocl, sub_buffer_errors)
{
	cl_buffer_region r = { 0, 256 };
	cl_mem p, ro, sb;
	cl_int err;

	p = pattern_buffer(_metadata, self->ctx, CL_MEM_READ_WRITE, 4096);
	ASSERT_NE(NULL, p);
	r.origin = 100;
	sb = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	EXPECT_EQ(NULL, sb);
	EXPECT_EQ(CL_MISALIGNED_SUB_BUFFER_OFFSET, err);
	r.origin = 4096 - 128;
	sb = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	EXPECT_EQ(NULL, sb);
	EXPECT_EQ(CL_INVALID_VALUE, err);
	r.origin = 0;
	r.size = 0;
	sb = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	EXPECT_EQ(NULL, sb);
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	r.size = 256;
	sb = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err);
	EXPECT_EQ(NULL, sb);
	EXPECT_EQ(CL_INVALID_VALUE, err);
	sb = clCreateSubBuffer(p, CL_MEM_USE_HOST_PTR,
			       CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	EXPECT_EQ(NULL, sb);
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* Of a sub-buffer. */
	sb = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(sb, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &r, &err));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
	clReleaseMemObject(sb);
	/* More access than the parent's. */
	ro = pattern_buffer(_metadata, self->ctx,
			    CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 4096);
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(NULL, clCreateSubBuffer(ro, CL_MEM_WRITE_ONLY,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(ro, CL_MEM_HOST_WRITE_ONLY,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* Inherited: read-only, host read-only. */
	sb = clCreateSubBuffer(ro, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	{
		cl_mem_flags f = 0;

		ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sb, CL_MEM_FLAGS,
							 sizeof(f), &f, NULL));
		EXPECT_EQ(CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY |
			  CL_MEM_COPY_HOST_PTR, f);
	}
	clReleaseMemObject(sb);
	clReleaseMemObject(ro);
	clReleaseMemObject(p);
}

/* The CPU's model of a rectangle copy: what clEnqueue*BufferRect must do. */
static void rect_model(uint8_t *dst, const size_t dorg[3], size_t drow,
		       size_t dslice, const uint8_t *src, const size_t sorg[3],
		       size_t srow, size_t sslice, const size_t region[3])
{
	size_t y, z;

	for (z = 0; z < region[2]; z++)
		for (y = 0; y < region[1]; y++)
			memcpy(dst + (dorg[2] + z) * dslice +
			       (dorg[1] + y) * drow + dorg[0],
			       src + (sorg[2] + z) * sslice +
			       (sorg[1] + y) * srow + sorg[0], region[0]);
}

/*
 * clEnqueueWriteBufferRect, ReadBufferRect and CopyBufferRect against
 * the CPU's model: rows of 8-byte multiples at 8-byte aligned places (the
 * GPU's COPY), then odd ones (the host's copy).
 */
TEST_F(ocl, buffer_rect)
{
	enum { N = 8192 };
	uint8_t *host = malloc(N), *want = malloc(N), *got = malloc(N);
	const size_t regions[2][3] = { { 64, 5, 3 }, { 13, 7, 2 } };
	const size_t origins[2][3] = { { 8, 2, 1 }, { 3, 1, 1 } };
	const size_t zero[3] = { 0, 0, 0 }, corg[3] = { 16, 1, 0 };
	cl_mem b, c;
	int k;
	size_t i;

	ASSERT_NE(NULL, host);
	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	for (i = 0; i < N; i++)
		host[i] = (uint8_t)(i * 13 + 5);
	for (k = 0; k < 2; k++) {
		const size_t *reg = regions[k], *org = origins[k];
		const size_t horg[3] = { org[0] + 8, 0, 1 };

		b = pattern_buffer(_metadata, self->ctx, CL_MEM_READ_WRITE, N);
		c = pattern_buffer(_metadata, self->ctx, CL_MEM_READ_WRITE, N);
		ASSERT_NE(NULL, b);
		ASSERT_NE(NULL, c);
		for (i = 0; i < N; i++)
			want[i] = (uint8_t)(i * 7 + 1);
		/* Buffer pitches 128 / 1024, host's 96 / 960. */
		rect_model(want, org, 128, 1024, host, horg, 96, 960, reg);
		ASSERT_EQ(CL_SUCCESS,
			  clEnqueueWriteBufferRect(self->q, b, CL_TRUE, org,
						   horg, reg, 128, 1024, 96,
						   960, host, 0, NULL, NULL));
		ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(self->q, b, CL_TRUE,
							  0, N, got, 0, NULL,
							  NULL));
		EXPECT_EQ(0, memcmp(want, got, N));
		/* Read back into a zeroed host area with packed pitches. */
		memset(got, 0, N);
		ASSERT_EQ(CL_SUCCESS,
			  clEnqueueReadBufferRect(self->q, b, CL_TRUE, org,
						  zero, reg,
						  128, 1024, 0, 0, got, 0,
						  NULL, NULL));
		memset(host + N / 2, 0, N / 2);
		rect_model(host + N / 2, zero, reg[0],
			   reg[0] * reg[1], want, org, 128, 1024, reg);
		EXPECT_EQ(0, memcmp(host + N / 2, got,
				    reg[0] * reg[1] * reg[2]));
		for (i = 0; i < N / 2; i++)
			host[N / 2 + i] = (uint8_t)((N / 2 + i) * 13 + 5);
		/* Buffer to buffer, other pitches. */
		ASSERT_EQ(CL_SUCCESS,
			  clEnqueueCopyBufferRect(self->q, b, c, org,
						  corg, reg,
						  128, 1024, 256, 2048, 0,
						  NULL, NULL));
		ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
		for (i = 0; i < N; i++)
			got[i] = (uint8_t)(i * 7 + 1);
		rect_model(got, corg, 256, 2048, want, org,
			   128, 1024, reg);
		memcpy(want, got, N);
		ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(self->q, c, CL_TRUE,
							  0, N, got, 0, NULL,
							  NULL));
		EXPECT_EQ(0, memcmp(want, got, N));
		clReleaseMemObject(b);
		clReleaseMemObject(c);
	}
	free(host);
	free(want);
	free(got);
}

/* The rectangle calls' errors. */
TEST_F(ocl, buffer_rect_errors)
{
	const size_t zero[3] = { 0, 0, 0 }, reg[3] = { 16, 4, 2 };
	const size_t z1[3] = { 0, 0, 1 }, noy[3] = { 16, 0, 1 };
	const size_t over[3] = { 8, 1, 0 }, beside[3] = { 32, 0, 0 };
	uint8_t host[1024];
	cl_mem b;

	b = pattern_buffer(_metadata, self->ctx, CL_MEM_READ_WRITE, 1024);
	ASSERT_NE(NULL, b);
	/* Past the end: 2 slices of 512 from slice 1. */
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueReadBufferRect(self->q, b, CL_TRUE,
					  z1, zero, reg,
					  64, 512, 0, 0, host, 0, NULL, NULL));
	/* Row pitch below the row, slice pitch not a multiple of it. */
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueReadBufferRect(self->q, b, CL_TRUE, zero, zero, reg,
					  8, 0, 0, 0, host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBufferRect(self->q, b, CL_TRUE, zero, zero,
					   reg, 64, 300, 0, 0, host, 0, NULL,
					   NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBufferRect(self->q, b, CL_TRUE, zero, zero,
					   noy, 0, 0, 0, 0,
					   host, 0, NULL, NULL));
	/* One buffer, overlapping rows. */
	EXPECT_EQ(CL_MEM_COPY_OVERLAP,
		  clEnqueueCopyBufferRect(self->q, b, b, zero,
					  over, reg, 64, 256,
					  64, 256, 0, NULL, NULL));
	/* One buffer, side by side in each row: no overlap. */
	EXPECT_EQ(CL_SUCCESS,
		  clEnqueueCopyBufferRect(self->q, b, b, zero,
					  beside, reg, 64, 256,
					  64, 256, 0, NULL, NULL));
	EXPECT_EQ(CL_SUCCESS, clFinish(self->q));
	clReleaseMemObject(b);
}

static void CL_CALLBACK ctx_dtor(cl_context ctx, void *data)
{
	int *order = data;

	(void)ctx;
	/* order[0] counts the calls, order[1..] the callbacks' tags. */
	order[++order[0]] = order[8];
}

static void CL_CALLBACK ctx_dtor_a(cl_context ctx, void *data)
{
	((int *)data)[8] = 'a';
	ctx_dtor(ctx, data);
}

static void CL_CALLBACK ctx_dtor_b(cl_context ctx, void *data)
{
	((int *)data)[8] = 'b';
	ctx_dtor(ctx, data);
}

/*
 * clSetContextDestructorCallback (core since 3.0): called once each when
 * the context goes, the last registered first, and not before.
 */
TEST_F(ocl, context_destructor_callback)
{
	int order[9] = { 0 };
	cl_command_queue q;
	cl_context ctx;
	cl_int err;

	ctx = clCreateContext(NULL, 1, &self->dev, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetContextDestructorCallback(ctx, ctx_dtor_a,
							     order));
	ASSERT_EQ(CL_SUCCESS, clSetContextDestructorCallback(ctx, ctx_dtor_b,
							     order));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clSetContextDestructorCallback(ctx, NULL, NULL));
	q = clCreateCommandQueueWithProperties(ctx, self->dev, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clReleaseContext(ctx));
	/* The queue holds it. */
	EXPECT_EQ(0, order[0]);
	ASSERT_EQ(CL_SUCCESS, clReleaseCommandQueue(q));
	EXPECT_EQ(2, order[0]);
	EXPECT_EQ('b', order[1]);
	EXPECT_EQ('a', order[2]);
}

/*
 * CL_MEM_HOST_*: a read by the host of a buffer it may not read, a write
 * it may not write, fail with CL_INVALID_OPERATION and change nothing;
 * what is allowed works.
 */
TEST_F(ocl, mem_host_flags)
{
	const size_t zero[3] = { 0, 0, 0 }, reg[3] = { 8, 2, 1 };
	cl_mem ro, wo, na;
	uint8_t buf[64], chk[64];
	cl_int err;
	void *p;

	ro = pattern_buffer(_metadata, self->ctx, CL_MEM_HOST_READ_ONLY, 64);
	wo = pattern_buffer(_metadata, self->ctx, CL_MEM_HOST_WRITE_ONLY, 64);
	na = pattern_buffer(_metadata, self->ctx, CL_MEM_HOST_NO_ACCESS, 64);
	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, wo);
	ASSERT_NE(NULL, na);
	memset(buf, 0xee, sizeof(buf));
	/* Writes. */
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueWriteBuffer(self->q, ro, CL_TRUE, 0, 64, buf, 0,
				       NULL, NULL));
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueWriteBuffer(self->q, na, CL_TRUE, 0, 64, buf, 0,
				       NULL, NULL));
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueWriteBufferRect(self->q, ro, CL_TRUE, zero, zero,
					   reg, 0, 0, 0, 0, buf, 0, NULL,
					   NULL));
	p = clEnqueueMapBuffer(self->q, ro, CL_TRUE, CL_MAP_WRITE, 0, 64, 0,
			       NULL, NULL, &err);
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	p = clEnqueueMapBuffer(self->q, na, CL_TRUE,
			       CL_MAP_WRITE_INVALIDATE_REGION, 0, 64, 0, NULL,
			       NULL, &err);
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	/* Reads. */
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueReadBuffer(self->q, wo, CL_TRUE, 0, 64, buf, 0,
				      NULL, NULL));
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueReadBuffer(self->q, na, CL_TRUE, 0, 64, buf, 0,
				      NULL, NULL));
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueReadBufferRect(self->q, wo, CL_TRUE, zero, zero,
					  reg, 0, 0, 0, 0, buf, 0, NULL,
					  NULL));
	p = clEnqueueMapBuffer(self->q, wo, CL_TRUE, CL_MAP_READ, 0, 64, 0,
			       NULL, NULL, &err);
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	/* Nothing was read into buf, nothing written: ro is as created. */
	EXPECT_EQ(0xee, buf[0]);
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(self->q, ro, CL_TRUE, 0, 64,
						  chk, 0, NULL, NULL));
	EXPECT_EQ(1, chk[0]);
	EXPECT_EQ((uint8_t)(63 * 7 + 1), chk[63]);
	/* Allowed: writing wo, mapping it for writing. */
	EXPECT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(self->q, wo, CL_TRUE, 0, 64,
						   buf, 0, NULL, NULL));
	p = clEnqueueMapBuffer(self->q, wo, CL_TRUE, CL_MAP_WRITE, 0, 64, 0,
			       NULL, NULL, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(self->q, wo, p, 0, NULL,
						      NULL));
	EXPECT_EQ(CL_SUCCESS, clFinish(self->q));
	clReleaseMemObject(ro);
	clReleaseMemObject(wo);
	clReleaseMemObject(na);
}

/*
 * CL_QUEUE_PROPERTIES_ARRAY: the list given to
 * clCreateCommandQueueWithProperties, its 0 included; nothing for a
 * queue of clCreateCommandQueue.
 */
TEST_F(ocl, queue_properties_array)
{
	const cl_queue_properties props[] = {
		CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0
	};
	cl_queue_properties got[8];
	cl_command_queue q;
	size_t sz = 99;
	cl_int err;

	q = clCreateCommandQueueWithProperties(self->ctx, self->dev, props,
					       &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q,
						    CL_QUEUE_PROPERTIES_ARRAY,
						    sizeof(got), got, &sz));
	ASSERT_EQ(sizeof(props), sz);
	EXPECT_EQ(0, memcmp(props, got, sizeof(props)));
	clReleaseCommandQueue(q);
	q = clCreateCommandQueue(self->ctx, self->dev, 0, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q,
						    CL_QUEUE_PROPERTIES_ARRAY,
						    0, NULL, &sz));
	EXPECT_EQ(0, sz);
	clReleaseCommandQueue(q);
}

/*
 * The argument checks the CTS's negative tests found missing: each a
 * clear error, and nothing created.
 */
TEST_F(ocl, argument_checks)
{
	cl_context_properties props[5] = { CL_CONTEXT_INTEROP_USER_SYNC, -1, 0 };
	cl_device_id d = NULL;
	cl_context ctx;
	cl_uint n = 7, u;
	cl_int err;
	cl_mem m;
	void *svm;

	EXPECT_EQ(CL_INVALID_DEVICE_TYPE,
		  clGetDeviceIDs(self->platform, 0, 1, &d, &n));
	EXPECT_EQ(NULL, d);
	ctx = clCreateContext(props, 1, &self->dev, NULL, NULL, &err);
	EXPECT_EQ(NULL, ctx);
	EXPECT_EQ(CL_INVALID_PROPERTY, err);
	props[1] = CL_FALSE;
	props[2] = CL_CONTEXT_INTEROP_USER_SYNC;
	props[3] = CL_FALSE;
	props[4] = 0;
	ctx = clCreateContext(props, 1, &self->dev, NULL, NULL, &err);
	EXPECT_EQ(NULL, ctx);
	EXPECT_EQ(CL_INVALID_PROPERTY, err);
	props[2] = 0;
	ctx = clCreateContext(props, 1, &self->dev, NULL, NULL, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	if (ctx)
		clReleaseContext(ctx);
	/* USE_HOST_PTR past the end of a clSVMAlloc allocation. */
	svm = clSVMAlloc(self->ctx, CL_MEM_READ_WRITE, 100, 0);
	ASSERT_NE(NULL, svm);
	m = clCreateBuffer(self->ctx, CL_MEM_USE_HOST_PTR, 200, svm, &err);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	m = clCreateBuffer(self->ctx, CL_MEM_USE_HOST_PTR, 60,
			   (char *)svm + 50, &err);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	m = clCreateBuffer(self->ctx, CL_MEM_USE_HOST_PTR, 100, svm, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	ASSERT_NE(NULL, m);
	/* A buffer is not a pipe. */
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clGetPipeInfo(m, CL_PIPE_PACKET_SIZE, sizeof(u), &u, NULL));
	clReleaseMemObject(m);
	clSVMFree(self->ctx, svm);
}

/*
 * CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED is vYYYY-MM-DD-XX with a
 * real month and day (the CTS's test_computeinfo checks the form).
 */
TEST_F(ocl, conformance_version)
{
	regex_t re;
	char s[64];

	ASSERT_EQ(CL_SUCCESS,
		  clGetDeviceInfo(self->dev,
				  CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED,
				  sizeof(s), s, NULL));
	ASSERT_EQ(0, regcomp(&re, "^v[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])-[0-9]{2}$",
			     REG_EXTENDED | REG_NOSUB));
	EXPECT_EQ(0, regexec(&re, s, 0, NULL, 0)) {
		TH_LOG("CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED is '%s'", s);
	}
	regfree(&re);
}

/* Whether the space-separated @list has the word @name. */
static bool has_word(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/*
 * The extensions an OpenCL 1.1 or later device must have, in the device's
 * and the platform's strings, and the same ones in the name-version lists.
 */
TEST_F(ocl, extensions)
{
	static const char *const need[] = {
		"cl_khr_byte_addressable_store",
		"cl_khr_global_int32_base_atomics",
		"cl_khr_global_int32_extended_atomics",
		"cl_khr_local_int32_base_atomics",
		"cl_khr_local_int32_extended_atomics",
	};
	cl_name_version nv[32];
	char dev[1024], plat[1024];
	size_t sz, i, j, n = 0;

	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev, CL_DEVICE_EXTENSIONS,
					      sizeof(dev), dev, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(self->platform,
						CL_PLATFORM_EXTENSIONS,
						sizeof(plat), plat, NULL));
	for (i = 0; i < ARRAY_SIZE(need); i++) {
		EXPECT_TRUE(has_word(dev, need[i])) {
			TH_LOG("no %s in '%s'", need[i], dev);
		}
		EXPECT_TRUE(has_word(plat, need[i]));
	}
	EXPECT_TRUE(has_word(plat, "cl_khr_icd"));
	ASSERT_EQ(CL_SUCCESS,
		  clGetDeviceInfo(self->dev, CL_DEVICE_EXTENSIONS_WITH_VERSION,
				  sizeof(nv), nv, &sz));
	for (j = 0; j < sz / sizeof(nv[0]); j++)
		EXPECT_TRUE(has_word(dev, nv[j].name));
	for (i = 0; dev[i]; i++)
		if (dev[i] != ' ' && (i == 0 || dev[i - 1] == ' '))
			n++;
	EXPECT_EQ(n, sz / sizeof(nv[0]));
}

int main(int argc, char **argv)
{
	if (access(ICD_FILE, R_OK))
		ksft_exit_skip("no %s in this VM (run.sh --opencl)\n", ICD_FILE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return test_harness_run(argc, argv);
}
