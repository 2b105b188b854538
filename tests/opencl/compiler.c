// SPDX-License-Identifier: GPL-2.0
/*
 * compiler: OpenCL C through the ICD's compiler (tools/cl/compile.c) onto
 * the virtual GP100's SMs (NVSVM_IOCTL_LAUNCH), as an application sees it.
 * In the test VM the compiler runs on the host (the compile server of
 * tools/vm/run.sh); the calls are the same. Every kernel works on plain
 * malloc'd memory (fine-grained system SVM) unless a case says otherwise,
 * and every result is checked against the CPU's.
 *
 * Skips (exit 4) without /etc/OpenCL/vendors/nvsvm.icd, or when the device
 * reports no compiler.
 */
#define _GNU_SOURCE		/* memfd_create */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define ICD_FILE	"/etc/OpenCL/vendors/nvsvm.icd"

FIXTURE(cc) {
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
};

static cl_device_id nvsvm_device(void)
{
	cl_platform_id ids[8];
	cl_device_id dev = NULL;
	cl_uint n = 0, i;
	char name[64];

	if (clGetPlatformIDs(8, ids, &n))
		return NULL;
	for (i = 0; i < n; i++)
		if (!clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name),
				       name, NULL) && !strcmp(name, "nvsvm") &&
		    !clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
			return dev;
	return NULL;
}

FIXTURE_SETUP(cc)
{
	cl_int err;

	self->dev = nvsvm_device();
	ASSERT_NE(NULL, self->dev);
	self->ctx = clCreateContext(NULL, 1, &self->dev, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	self->q = clCreateCommandQueueWithProperties(self->ctx, self->dev,
						     NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
}

FIXTURE_TEARDOWN(cc)
{
	if (self->q)
		clReleaseCommandQueue(self->q);
	if (self->ctx)
		clReleaseContext(self->ctx);
}

/* Build @src with @opts; the log is printed when it fails. */
static cl_program build(struct __test_metadata *_metadata, cl_context ctx,
			cl_device_id dev, const char *src, const char *opts)
{
	cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, NULL);
	char log[4096] = "";
	cl_int err;

	EXPECT_NE(NULL, p);
	err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
	if (err) {
		clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log),
				      log, NULL);
		TH_LOG("build: %d\n%s", err, log);
	}
	EXPECT_EQ(CL_SUCCESS, err);
	return p;
}

static cl_int run1(cl_command_queue q, cl_kernel k, size_t global,
		   const size_t *local)
{
	cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, local, 0,
					    NULL, NULL);

	return err ? err : clFinish(q);
}

static const char vadd_src[] =
	"__kernel void vadd(__global const float *a, __global const float *b,\n"
	"		   __global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		c[i] = a[i] * 2.0f + b[i];\n"
	"}\n";

static void vadd_check(struct __test_metadata *_metadata, cl_command_queue q,
		       cl_kernel k, int n)
{
	float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
	float *c = malloc(n * sizeof(float));
	size_t global = (n + 63) / 64 * 64;
	int i, bad = 0;

	ASSERT_TRUE(a && b && c);
	for (i = 0; i < n; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = (float)(n - i);
		c[i] = -1.0f;
	}
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, a));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 1, b));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 2, c));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, sizeof(int), &n));
	ASSERT_EQ(CL_SUCCESS, run1(q, k, global, NULL));
	for (i = 0; i < n; i++)
		bad += c[i] != a[i] * 2.0f + b[i];
	EXPECT_EQ(0, bad);
	free(a);
	free(b);
	free(c);
}

/* A kernel of OpenCL C source on malloc'd memory, the device says so. */
TEST_F(cc, build_and_run_on_malloc)
{
	cl_bool avail = CL_FALSE;
	cl_program p;
	cl_kernel k;
	cl_build_status st;
	cl_program_binary_type bt;

	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev,
			CL_DEVICE_COMPILER_AVAILABLE, sizeof(avail), &avail,
			NULL));
	EXPECT_EQ(CL_TRUE, avail);
	p = build(_metadata, self->ctx, self->dev, vadd_src, NULL);
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, self->dev,
			CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL));
	EXPECT_EQ(CL_BUILD_SUCCESS, st);
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, self->dev,
			CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_EXECUTABLE, bt);
	k = clCreateKernel(p, "vadd", NULL);
	ASSERT_NE(NULL, k);
	vadd_check(_metadata, self->q, k, 1000);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/* CL_PROGRAM_BINARIES back through clCreateProgramWithBinary. */
TEST_F(cc, binary_round_trip)
{
	cl_program p = build(_metadata, self->ctx, self->dev, vadd_src, NULL);
	cl_int st = 1, err;
	unsigned char *bin;
	cl_program q2;
	size_t size = 0;
	cl_kernel k;

	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES,
					       sizeof(size), &size, NULL));
	ASSERT_GT(size, 16);
	bin = malloc(size);
	ASSERT_NE(NULL, bin);
	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARIES,
					       sizeof(bin), &bin, NULL));
	clReleaseProgram(p);
	q2 = clCreateProgramWithBinary(self->ctx, 1, &self->dev, &size,
				       (const unsigned char **)&bin, &st,
				       &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_SUCCESS, st);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(q2, 1, &self->dev, NULL, NULL,
					     NULL));
	k = clCreateKernel(q2, "vadd", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	vadd_check(_metadata, self->q, k, 333);
	clReleaseKernel(k);
	clReleaseProgram(q2);

	/* A damaged binary is refused, with the per-device status. */
	bin[size / 2] ^= 0xff;
	bin[0] ^= 0xff;
	q2 = clCreateProgramWithBinary(self->ctx, 1, &self->dev, &size,
				       (const unsigned char **)&bin, &st,
				       &err);
	EXPECT_EQ(NULL, q2);
	EXPECT_EQ(CL_INVALID_BINARY, err);
	EXPECT_EQ(CL_INVALID_BINARY, st);
	size = 7;
	q2 = clCreateProgramWithBinary(self->ctx, 1, &self->dev, &size,
				       (const unsigned char **)&bin, &st,
				       &err);
	EXPECT_EQ(CL_INVALID_BINARY, err);
	free(bin);
}

/*
 * Where there is no compiler (no clang, no compile server), a binary
 * built elsewhere still builds and runs, and a source says why not.
 */
TEST_F(cc, binary_where_there_is_no_compiler)
{
	cl_program p = build(_metadata, self->ctx, self->dev, vadd_src, NULL);
	const char *remote = getenv("NVSVM_CL_REMOTE");
	char *saved = remote ? strdup(remote) : NULL;
	cl_bool avail = CL_TRUE;
	unsigned char *bin;
	size_t size = 0;
	cl_program q2;
	cl_kernel k;
	cl_int err;

	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES,
					       sizeof(size), &size, NULL));
	bin = malloc(size);
	ASSERT_NE(NULL, bin);
	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARIES,
					       sizeof(bin), &bin, NULL));
	clReleaseProgram(p);
	if (!remote)
		SKIP(free(bin); return, "clang is here: no VM without a compiler to play");
	unsetenv("NVSVM_CL_REMOTE");
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev,
			CL_DEVICE_COMPILER_AVAILABLE, sizeof(avail), &avail,
			NULL));
	EXPECT_EQ(CL_FALSE, avail);
	p = clCreateProgramWithSource(self->ctx, 1,
				      (const char *[]){ vadd_src }, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_COMPILER_NOT_AVAILABLE,
		  clBuildProgram(p, 1, &self->dev, NULL, NULL, NULL));
	clReleaseProgram(p);
	q2 = clCreateProgramWithBinary(self->ctx, 1, &self->dev, &size,
				       (const unsigned char **)&bin, NULL,
				       &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_SUCCESS, clBuildProgram(q2, 1, &self->dev, NULL, NULL,
					     NULL));
	k = clCreateKernel(q2, "vadd", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	vadd_check(_metadata, self->q, k, 100);
	setenv("NVSVM_CL_REMOTE", saved, 1);
	free(saved);
	clReleaseKernel(k);
	clReleaseProgram(q2);
	free(bin);
}

/* clGetKernelArgInfo: what the source says of each argument. */
TEST_F(cc, kernel_arg_info)
{
	static const char src[] =
		"typedef struct { int a; float b; } pair_t;\n"
		"__kernel void info(__global const float4 *restrict in,\n"
		"		   __local int *scratch, __constant uint *tab,\n"
		"		   volatile __global int *flag, pair_t pr, uchar c)\n"
		"{ if (get_global_id(0) == 0) { *flag = tab[0] + pr.a + c +"
		"  (int)in[0].x; scratch[0] = 0; } }\n";
	static const struct {
		cl_kernel_arg_address_qualifier aq;
		cl_kernel_arg_type_qualifier tq;
		const char *type, *name;
	} want[] = {
		{ CL_KERNEL_ARG_ADDRESS_GLOBAL,
		  CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT,
		  "float4*", "in" },
		{ CL_KERNEL_ARG_ADDRESS_LOCAL, 0, "int*", "scratch" },
		{ CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_TYPE_CONST,
		  "uint*", "tab" },
		{ CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_TYPE_VOLATILE,
		  "int*", "flag" },
		{ CL_KERNEL_ARG_ADDRESS_PRIVATE, 0, "pair_t", "pr" },
		{ CL_KERNEL_ARG_ADDRESS_PRIVATE, 0, "uchar", "c" },
	};
	cl_program p = build(_metadata, self->ctx, self->dev, src,
			     "-cl-kernel-arg-info");
	cl_kernel k = clCreateKernel(p, "info", NULL);
	cl_kernel_arg_address_qualifier aq;
	cl_kernel_arg_type_qualifier tq;
	cl_program p2;
	cl_kernel k2;
	char s[64];
	cl_uint n = 0, i;

	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS,
					      sizeof(n), &n, NULL));
	ASSERT_EQ(6, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, i,
				CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq),
				&aq, NULL));
		EXPECT_EQ(want[i].aq, aq);
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, i,
				CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq,
				NULL));
		EXPECT_EQ(want[i].tq, tq);
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, i,
				CL_KERNEL_ARG_TYPE_NAME, sizeof(s), s, NULL));
		EXPECT_STREQ(want[i].type, s);
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, i,
				CL_KERNEL_ARG_NAME, sizeof(s), s, NULL));
		EXPECT_STREQ(want[i].name, s);
	}
	EXPECT_EQ(CL_INVALID_ARG_INDEX, clGetKernelArgInfo(k, 6,
			CL_KERNEL_ARG_NAME, sizeof(s), s, NULL));
	/* Argument sizes are the types'. */
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 5, 4, &n));
	EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 1, 64, &n));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 0, NULL));

	/*
	 * Without -cl-kernel-arg-info (or with an option that only starts
	 * like it): no names, as pocl (piglit's api@clgetkernelarginfo);
	 * the qualifiers and type names stay.
	 */
	p2 = build(_metadata, self->ctx, self->dev, src,
		   "-DX=-cl-kernel-arg-info-not");
	k2 = clCreateKernel(p2, "info", NULL);
	ASSERT_NE(NULL, k2);
	EXPECT_EQ(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, clGetKernelArgInfo(k2, 0,
			CL_KERNEL_ARG_NAME, sizeof(s), s, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k2, 2,
			CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL));
	EXPECT_EQ(CL_KERNEL_ARG_ADDRESS_CONSTANT, aq);
	ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k2, 4,
			CL_KERNEL_ARG_TYPE_NAME, sizeof(s), s, NULL));
	EXPECT_STREQ("pair_t", s);
	clReleaseKernel(k2);
	clReleaseProgram(p2);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * Image and sampler arguments (OpenCL C 1.2 has the types; the device has
 * no images): no value is valid, a size that is not the handle's is
 * CL_INVALID_ARG_SIZE first (piglit's api@clsetkernelarg), and the
 * kernel's other arguments still take values.
 */
TEST_F(cc, opaque_args_refused)
{
	static const char src[] =
		"__kernel void opaque(__global int *out, sampler_t s,\n"
		"		      read_only image2d_t img, int x)\n"
		"{ out[0] = x; }\n";
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "opaque", NULL);
	cl_kernel_arg_address_qualifier aq;
	cl_sampler smp = NULL;
	cl_mem img = NULL;
	int x = 3;

	ASSERT_NE(NULL, k);
	EXPECT_EQ(CL_INVALID_ARG_SIZE,
		  clSetKernelArg(k, 1, sizeof(smp) + 1, &smp));
	EXPECT_EQ(CL_INVALID_SAMPLER, clSetKernelArg(k, 1, sizeof(smp), NULL));
	EXPECT_EQ(CL_INVALID_SAMPLER, clSetKernelArg(k, 1, sizeof(smp), &smp));
	EXPECT_EQ(CL_INVALID_ARG_SIZE,
		  clSetKernelArg(k, 2, sizeof(img) + 1, &img));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clSetKernelArg(k, 2, sizeof(img), &img));
	ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 2,
			CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL));
	EXPECT_EQ(CL_KERNEL_ARG_ADDRESS_GLOBAL, aq);
	EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, sizeof(x), &x));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 3, sizeof(x) + 1, &x));
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * Local memory: a __local array of the kernel and a __local argument,
 * shared by a work-group across barriers; each group sums its items.
 */
TEST_F(cc, local_memory_and_barriers)
{
	static const char src[] =
		"__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
		"void gsum(__global const int *in, __global int *out,\n"
		"	   __local int *tmp)\n"
		"{\n"
		"	__local int first[64];\n"
		"	int l = get_local_id(0);\n"
		"	first[l] = in[get_global_id(0)];\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	tmp[l] = first[63 - l];\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	for (int s = 32; s > 0; s >>= 1) {\n"
		"		if (l < s)\n"
		"			tmp[l] += tmp[l + s];\n"
		"		barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	}\n"
		"	if (l == 0)\n"
		"		out[get_group_id(0)] = tmp[0];\n"
		"}\n";
	enum { GROUPS = 20, N = GROUPS * 64 };
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "gsum", NULL);
	int *in = malloc(N * sizeof(int)), out[GROUPS];
	size_t reqd[3], local = 32;
	int g, i, want;

	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, in);
	for (i = 0; i < N; i++)
		in[i] = i * 7 - 3000;
	ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, self->dev,
			CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(reqd), reqd,
			NULL));
	EXPECT_EQ(64, reqd[0]);
	EXPECT_EQ(1, reqd[1]);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, in));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 1, out));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, 64 * sizeof(int), NULL));
	/* Not the size the kernel requires. */
	EXPECT_EQ(CL_INVALID_WORK_GROUP_SIZE, run1(self->q, k, N, &local));
	/* More local memory than the device has, with the array's. */
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, 48 << 10, NULL));
	EXPECT_EQ(CL_OUT_OF_RESOURCES, run1(self->q, k, N, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, 64 * sizeof(int), NULL));
	memset(out, 0, sizeof(out));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, N, NULL));
	for (g = 0; g < GROUPS; g++) {
		for (want = 0, i = 0; i < 64; i++)
			want += in[g * 64 + i];
		EXPECT_EQ(want, out[g]);
	}
	free(in);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/* Three dimensions, a global offset, and the work-item functions. */
TEST_F(cc, ndrange_3d_with_offset)
{
	static const char src[] =
		"__kernel void ids(__global uint *out)\n"
		"{\n"
		"	size_t x = get_global_id(0) - get_global_offset(0);\n"
		"	size_t y = get_global_id(1) - get_global_offset(1);\n"
		"	size_t z = get_global_id(2) - get_global_offset(2);\n"
		"	size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
		"	out[i] = get_global_id(0) | get_global_id(1) << 8 |\n"
		"		 get_global_id(2) << 16 | get_work_dim() << 24 |\n"
		"		 (get_local_id(0) + get_local_size(0) * get_group_id(0) ==\n"
		"		  x) << 28 |\n"
		"		 (get_num_groups(1) == get_global_size(1) / get_local_size(1)) << 29;\n"
		"}\n";
	size_t off[3] = { 3, 5, 7 }, global[3] = { 8, 6, 4 };
	size_t local[3] = { 4, 3, 2 };
	uint32_t out[8 * 6 * 4];
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "ids", NULL);
	size_t x, y, z;
	int bad = 0;

	ASSERT_NE(NULL, k);
	memset(out, 0xff, sizeof(out));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(self->q, k, 3, off,
			global, local, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clFinish(self->q));
	for (z = 0; z < 4; z++)
		for (y = 0; y < 6; y++)
			for (x = 0; x < 8; x++)
				bad += out[(z * 6 + y) * 8 + x] !=
				       ((x + 3) | (y + 5) << 8 |
					(z + 7) << 16 | 3u << 24 | 1u << 28 |
					1u << 29);
	EXPECT_EQ(0, bad);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/* Arguments by value: a struct, vectors, a 3-vector, small integers. */
TEST_F(cc, struct_and_vector_arguments)
{
	static const char src[] =
		"typedef struct { char c; long l; float f; } S;\n"
		"__kernel void vals(__global long *out, S s, float4 v, int3 w,\n"
		"		   short h, long8 d)\n"
		"{\n"
		"	out[0] = s.c; out[1] = s.l; out[2] = (long)(s.f * 4);\n"
		"	out[3] = (long)(v.x + v.y * 10 + v.z * 100 + v.w * 1000);\n"
		"	out[4] = w.x + w.y * 10 + w.z * 100; out[5] = h;\n"
		"	out[6] = d.s0 + d.s7;\n"
		"}\n";
	struct { cl_char c; cl_long l; cl_float f; } s = { -5, 1LL << 40, 2.25f };
	cl_float4 v = { { 1, 2, 3, 4 } };
	cl_int3 w = { { 7, 8, 9 } };
	cl_short h = -1234;
	cl_long8 d = { { 1, 0, 0, 0, 0, 0, 0, 3 } };
	cl_program p = build(_metadata, self->ctx, self->dev, src,
			     "-cl-std=CL1.2");
	cl_kernel k = clCreateKernel(p, "vals", NULL);
	int64_t out[7] = { 0 };

	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(s), &s));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, sizeof(w), &w));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 4, sizeof(h), &h));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 5, sizeof(d), &d));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 1, NULL));
	EXPECT_EQ(-5, out[0]);
	EXPECT_EQ(1LL << 40, out[1]);
	EXPECT_EQ(9, out[2]);
	EXPECT_EQ(4321, out[3]);
	EXPECT_EQ(987, out[4]);
	EXPECT_EQ(-1234, out[5]);
	EXPECT_EQ(4, out[6]);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/* What a build refuses, and how it says so. */
TEST_F(cc, build_errors)
{
	const char *bad = "__kernel void f(__global int *p) { p[0] = undefined_thing; }\n";
	cl_program p = clCreateProgramWithSource(self->ctx, 1, &bad, NULL, NULL);
	cl_build_status st;
	char log[4096] = "";
	cl_int err;
	cl_kernel k;

	ASSERT_NE(NULL, p);
	k = clCreateKernel(p, "f", &err);
	EXPECT_EQ(NULL, k);
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
	EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE,
		  clBuildProgram(p, 1, &self->dev, NULL, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, self->dev,
			CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL));
	EXPECT_EQ(CL_BUILD_ERROR, st);
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, self->dev,
			CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL));
	EXPECT_NE(NULL, strstr(log, "undefined_thing"));
	EXPECT_EQ(CL_INVALID_BUILD_OPTIONS,
		  clBuildProgram(p, 1, &self->dev, "-fno-such-thing", NULL,
				 NULL));
	EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE,
		  clBuildProgram(p, 1, &self->dev, "-cl-std=CL2.0", NULL,
				 NULL));
	clReleaseProgram(p);

	/* A built program with a kernel alive is not built again. */
	p = build(_metadata, self->ctx, self->dev, vadd_src, "-D X=1 -cl-mad-enable");
	k = clCreateKernel(p, "nope", &err);
	EXPECT_EQ(CL_INVALID_KERNEL_NAME, err);
	k = clCreateKernel(p, "vadd", &err);
	ASSERT_NE(NULL, k);
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clBuildProgram(p, 1, &self->dev, NULL, NULL, NULL));
	/* Arguments not set. */
	EXPECT_EQ(CL_INVALID_KERNEL_ARGS, run1(self->q, k, 64, NULL));
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * Every optimization option of OpenCL C 1.0 at once, as piglit's
 * program@build@optimization-options-cl10 gives them (-cl-strict-aliasing,
 * deprecated since 1.1, was refused until 2026-12-07): the program
 * builds and its kernel is right.
 */
TEST_F(cc, options_of_opencl_c_1_0)
{
	cl_program p = build(_metadata, self->ctx, self->dev, vadd_src,
			     "-cl-std=CL1.0 -cl-opt-disable -cl-strict-aliasing "
			     "-cl-mad-enable -cl-finite-math-only "
			     "-cl-no-signed-zeros -cl-unsafe-math-optimizations "
			     "-cl-fast-relaxed-math");
	cl_kernel k = clCreateKernel(p, "vadd", NULL);

	ASSERT_NE(NULL, k);
	vadd_check(_metadata, self->q, k, 300);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * The preprocessor's version macros, as the kernel sees them: clang
 * defines __OPENCL_C_VERSION__ but not __OPENCL_VERSION__, the device's
 * OpenCL version (300 for "OpenCL 3.0"), which the runtime must define
 * (CTS test_basic/kernel_preprocessor_macros).
 */
TEST_F(cc, preprocessor_version_macros)
{
	static const char src[] =
		"__kernel void v(__global int *o)\n"
		"{\n"
		"#ifdef __OPENCL_VERSION__\n"
		"	o[0] = __OPENCL_VERSION__;\n"
		"#else\n"
		"	o[0] = -1;\n"
		"#endif\n"
		"	o[1] = __OPENCL_C_VERSION__;\n"
		"	o[2] = __ENDIAN_LITTLE__;\n"
		"}\n";
	static const struct { const char *opts; int c; } cases[] = {
		{ NULL, 120 }, { "-cl-std=CL3.0", 300 },
	};
	int *o = malloc(3 * sizeof(*o));
	unsigned int i;

	ASSERT_NE(NULL, o);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cl_program p = build(_metadata, self->ctx, self->dev, src,
				     cases[i].opts);
		cl_kernel k = clCreateKernel(p, "v", NULL);

		ASSERT_NE(NULL, k);
		memset(o, 0, 3 * sizeof(*o));
		ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, o));
		ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 1, NULL));
		EXPECT_EQ(300, o[0]);
		EXPECT_EQ(cases[i].c, o[1]);
		EXPECT_EQ(1, o[2]);
		clReleaseKernel(k);
		clReleaseProgram(p);
	}
	free(o);
}

/*
 * A __local argument is aligned for the largest built-in type (128 bytes,
 * long16), whatever comes before it: here a 1-byte one (CTS
 * test_basic/kernel_memory_alignment_local).
 */
TEST_F(cc, local_arguments_aligned)
{
	static const char src[] =
		"__kernel void a(__local char *c, __local long16 *l,\n"
		"		__global ulong *o)\n"
		"{\n"
		"	c[0] = 1;\n"
		"	l[0] = (long16)(2);\n"
		"	o[0] = (ulong)c;\n"
		"	o[1] = (ulong)l;\n"
		"}\n";
	uint64_t *o = calloc(2, sizeof(*o));
	cl_program p;
	cl_kernel k;

	ASSERT_NE(NULL, o);
	p = build(_metadata, self->ctx, self->dev, src, NULL);
	k = clCreateKernel(p, "a", NULL);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, 1, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, 128, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 2, o));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 1, NULL));
	EXPECT_NE(0, o[0]);
	EXPECT_NE(o[0], o[1]);
	EXPECT_EQ(0, o[0] % 128);
	EXPECT_EQ(0, o[1] % 128);
	clReleaseKernel(k);
	clReleaseProgram(p);
	free(o);
}

/*
 * A loop LLVM turns into a memcpy (a constant string copied out, as CTS
 * test_basic/kernel_preprocessor_macros copies __FILE__): the program
 * links nvclc.bc's memcpy although the call appears only at -O2.
 */
TEST_F(cc, copy_loop_links_memcpy)
{
	static const char str[] =
		"a constant string of more than 32 bytes, copied by a loop";
	static const char src[] =
		"__kernel void s(__global char *o)\n"
		"{\n"
		"	constant char *f = \"a constant string of more than 32 bytes, copied by a loop\";\n"
		"	int i;\n"
		"\n"
		"	for (i = 0; f[i] != 0 && i < 128; i++)\n"
		"		o[i] = f[i];\n"
		"	o[i] = 0;\n"
		"}\n";
	char *o = malloc(128);
	cl_program p;
	cl_kernel k;

	ASSERT_NE(NULL, o);
	memset(o, 'x', 128);
	p = build(_metadata, self->ctx, self->dev, src, NULL);
	k = clCreateKernel(p, "s", NULL);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, o));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 1, NULL));
	EXPECT_STREQ(str, o);
	clReleaseKernel(k);
	clReleaseProgram(p);
	free(o);
}

/*
 * The same through clCompileProgram and clLinkProgram, whose link of
 * nvclc.bc is llvm-link's, not the build's: a private array filled by a
 * loop, which -O2 makes a memcpy call after the link (ld.lld named memcpy
 * undefined with nvclc.bc's memcpy not marked used, the compiler's own
 * list of it removed, 2026-12-06).
 */
TEST_F(cc, compile_link_links_memcpy)
{
	static const char src[] =
		"__kernel void c(__global const char *in, __global char *o, int n)\n"
		"{\n"
		"	char a[512];\n"
		"	int i;\n"
		"\n"
		"	for (i = 0; i < n; i++)\n"
		"		a[i] = in[i];\n"
		"	for (i = 0; i < n; i++)\n"
		"		o[i] = a[n - 1 - i];\n"
		"}\n";
	const char *s = src;
	cl_program p = clCreateProgramWithSource(self->ctx, 1, &s, NULL, NULL);
	char *in = malloc(300), *o = malloc(300);
	cl_program exe;
	cl_kernel k;
	cl_int err, n = 300;
	int i;

	ASSERT_TRUE(p && in && o);
	for (i = 0; i < n; i++)
		in[i] = (char)(i * 7 + 1);
	memset(o, 0, 300);
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(p, 1, &self->dev, NULL, 0, NULL,
					       NULL, NULL, NULL));
	exe = clLinkProgram(self->ctx, 1, &self->dev, NULL, 1, &p, NULL, NULL,
			    &err);
	ASSERT_EQ(CL_SUCCESS, err);
	k = clCreateKernel(exe, "c", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, in));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 1, o));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(n), &n));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 1, NULL));
	for (i = 0; i < n; i++)
		ASSERT_EQ(in[n - 1 - i], o[i]);
	clReleaseKernel(k);
	clReleaseProgram(exe);
	clReleaseProgram(p);
	free(in);
	free(o);
}

/* Build failures at the device's limits, each with its reason logged. */
TEST_F(cc, limits_fail_the_build)
{
	static const struct { const char *src; const char *why; } bad[] = {
		{ "__kernel void k(__global float *o)\n"
		  "{ __local float big[13000]; big[get_local_id(0)] = 1;\n"
		  "  barrier(CLK_LOCAL_MEM_FENCE); o[0] = big[5]; }\n",
		  "__local" },
		{ "typedef struct { char b[5000]; } S;\n"
		  "__kernel void k(__global char *o, S s) { o[0] = s.b[4999]; }\n",
		  "arguments of more than" },
		{ "__kernel void k(__global int *o) { o[0] = undefined_fn(1); }\n",
		  "undefined_fn" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *src = bad[i].src;
		cl_program p = clCreateProgramWithSource(self->ctx, 1, &src,
							 NULL, NULL);
		char log[8192] = "";

		ASSERT_NE(NULL, p);
		EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE,
			  clBuildProgram(p, 1, &self->dev, NULL, NULL, NULL));
		clGetProgramBuildInfo(p, self->dev, CL_PROGRAM_BUILD_LOG,
				      sizeof(log), log, NULL);
		EXPECT_NE(NULL, strstr(log, bad[i].why))
			TH_LOG("case %u log: %s", i, log);
		clReleaseProgram(p);
	}
}

/*
 * Private memory is sized from the program (no recursion in OpenCL C: the
 * frames put together bound the stack): a kernel with a large private
 * array runs, and says how much it needs.
 */
TEST_F(cc, private_memory_fits_the_program)
{
	static const char src[] =
		"float f(int i) { volatile float a[2000];\n"
		"  for (int j = 0; j < 2000; j++) a[j] = j * i; return a[i]; }\n"
		"__kernel void k(__global float *o) { o[get_global_id(0)] = f(get_global_id(0)); }\n";
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "k", NULL);
	cl_ulong priv = 0;
	float out[128];
	size_t wg = 0;
	int i;

	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, self->dev,
			CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv), &priv, NULL));
	EXPECT_GE(priv, 8000);
	ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, self->dev,
			CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
	EXPECT_LE(wg * priv, 16 << 20);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 128, NULL));
	for (i = 0; i < 128; i++)
		EXPECT_EQ((float)(i * i), out[i]);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/* clCompileProgram with an embedded header, then clLinkProgram of two. */
TEST_F(cc, compile_and_link)
{
	const char *hdr = "#define SCALE 3\nint scale(int x);\n";
	const char *lib = "#include \"sc.h\"\nint scale(int x) { return x * SCALE; }\n";
	const char *main_src = "#include \"sc.h\"\n"
		"__kernel void k(__global int *o) { o[get_global_id(0)] = scale((int)get_global_id(0)); }\n";
	cl_program h = clCreateProgramWithSource(self->ctx, 1, &hdr, NULL, NULL);
	cl_program a = clCreateProgramWithSource(self->ctx, 1, &lib, NULL, NULL);
	cl_program b = clCreateProgramWithSource(self->ctx, 1, &main_src, NULL,
						 NULL);
	const char *names[] = { "sc.h" };
	cl_program objs[2], libp, exe;
	cl_program_binary_type bt;
	int out[16], i;
	cl_kernel k;
	cl_int err;

	ASSERT_TRUE(h && a && b);
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(a, 1, &self->dev, NULL, 1, &h,
					       names, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(b, 1, &self->dev, NULL, 1, &h,
					       names, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(a, self->dev,
			CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, bt);
	/* A library of one, then the executable of both. */
	libp = clLinkProgram(self->ctx, 1, &self->dev, "-create-library", 1,
			     &a, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(libp, self->dev,
			CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_LIBRARY, bt);
	objs[0] = b;
	objs[1] = libp;
	exe = clLinkProgram(self->ctx, 1, &self->dev, NULL, 2, objs, NULL,
			    NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	k = clCreateKernel(exe, "k", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 16, NULL));
	for (i = 0; i < 16; i++)
		EXPECT_EQ(3 * i, out[i]);
	/* Linking objects that miss a function fails, with a log. */
	clReleaseProgram(exe);
	exe = clLinkProgram(self->ctx, 1, &self->dev, NULL, 1, &b, NULL, NULL,
			    &err);
	EXPECT_EQ(CL_LINK_PROGRAM_FAILURE, err);
	if (exe)
		clReleaseProgram(exe);
	clReleaseKernel(k);
	clReleaseProgram(libp);
	clReleaseProgram(a);
	clReleaseProgram(b);
	clReleaseProgram(h);
}

/*
 * C99 inline in OpenCL C: "inline" without "static" is an inline
 * definition only, and a call the compiler does not inline must still
 * reach it (pyopencl's pyopencl-complex.h defines its functions so). One
 * too big to inline, one that must not be, with and without
 * -cl-opt-disable, and the same header's definitions in two compiled
 * objects linked together.
 */
static const char inline_hdr[] =
	"inline float big(float x)\n"
	"{\n"
	"	return hypot(x, 2.0f * x) + sqrt(x) + exp(-x) + log1p(x);\n"
	"}\n"
	"__attribute__((noinline)) inline int tri(int x) { return 3 * x; }\n";

static const char inline_k1[] =
	"#include \"inl.h\"\n"
	"__kernel void k1(__global float *f, __global int *o)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	f[i] = big(f[i]);\n"
	"	o[i] = tri(i);\n"
	"}\n";

static const char inline_k2[] =
	"#include \"inl.h\"\n"
	"__kernel void k2(__global int *o) { o[get_global_id(0)] += tri(7); }\n";

static void inline_check(struct __test_metadata *_metadata,
			 cl_command_queue q, cl_program p, int add)
{
	float f[32], x;
	int o[32], i;
	cl_kernel k1 = clCreateKernel(p, "k1", NULL);
	cl_kernel k2 = add ? clCreateKernel(p, "k2", NULL) : NULL;

	ASSERT_NE(NULL, k1);
	for (i = 0; i < 32; i++)
		f[i] = (float)i * 0.25f;
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k1, 0, f));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k1, 1, o));
	ASSERT_EQ(CL_SUCCESS, run1(q, k1, 32, NULL));
	if (add) {
		ASSERT_NE(NULL, k2);
		ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k2, 0, o));
		ASSERT_EQ(CL_SUCCESS, run1(q, k2, 32, NULL));
		clReleaseKernel(k2);
	}
	for (i = 0; i < 32; i++) {
		x = (float)i * 0.25f;
		EXPECT_EQ(3 * i + (add ? 21 : 0), o[i]);
		x = hypotf(x, 2.0f * x) + sqrtf(x) + expf(-x) + log1pf(x);
		/* Four functions within their few ulp each, and the sums. */
		EXPECT_LT(fabsf(f[i] - x), 1e-5f * (1.0f + x));
	}
	clReleaseKernel(k1);
}

TEST_F(cc, c99_inline_definitions)
{
	static const char *const opts[] = { NULL, "-cl-opt-disable" };
	const char *names[] = { "inl.h" };
	size_t len = strlen(inline_k1) + sizeof(inline_hdr);
	char *one = malloc(len);
	const char *src1 = inline_k1, *src2 = inline_k2, *hdr = inline_hdr;
	cl_program h, a, b, objs[2], exe;
	unsigned int i;
	cl_int err;

	ASSERT_NE(NULL, one);
	/* One source: the header in place of its #include. */
	snprintf(one, len, "%s%s", inline_hdr, strchr(inline_k1, '\n') + 1);
	for (i = 0; i < 2; i++) {
		cl_program p = build(_metadata, self->ctx, self->dev, one,
				     opts[i]);

		inline_check(_metadata, self->q, p, 0);
		clReleaseProgram(p);
	}
	free(one);
	/* Two objects, each with the header's inline definitions. */
	h = clCreateProgramWithSource(self->ctx, 1, &hdr, NULL, NULL);
	a = clCreateProgramWithSource(self->ctx, 1, &src1, NULL, NULL);
	b = clCreateProgramWithSource(self->ctx, 1, &src2, NULL, NULL);
	ASSERT_TRUE(h && a && b);
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(a, 1, &self->dev, NULL, 1, &h,
					       names, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(b, 1, &self->dev, NULL, 1, &h,
					       names, NULL, NULL));
	objs[0] = a;
	objs[1] = b;
	exe = clLinkProgram(self->ctx, 1, &self->dev, NULL, 2, objs, NULL,
			    NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	inline_check(_metadata, self->q, exe, 1);
	clReleaseProgram(exe);
	clReleaseProgram(a);
	clReleaseProgram(b);
	clReleaseProgram(h);
}

/*
 * A kernel that touches memory the process does not have: its event
 * fails (the GPU cancelled the access), the queue goes on.
 */
TEST_F(cc, bad_access_fails_the_event)
{
	static const char src[] =
		"__kernel void poke(__global int *p) { p[get_global_id(0)] = 1; }\n";
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "poke", NULL);
	size_t global = 4;
	cl_int st = 0;
	cl_event ev;
	void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ok[4] = { 0 };

	ASSERT_NE(NULL, k);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_EQ(0, munmap(gone, 4096));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, gone));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(self->q, k, 1, NULL,
			&global, NULL, 0, NULL, &ev));
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(ev,
			CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
			NULL));
	EXPECT_EQ(CL_OUT_OF_RESOURCES, st);
	clReleaseEvent(ev);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, ok));
	ASSERT_EQ(CL_SUCCESS, run1(self->q, k, 4, NULL));
	EXPECT_EQ(1, ok[0] & ok[1] & ok[2] & ok[3]);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * Buffers as arguments (clSetKernelArg with a cl_mem), and atomics on
 * them: exact where the device has atomics on system memory
 * (CL_DEVICE_SVM_ATOMICS: a link coherent for atomics); on a Pascal over
 * PCIe, which has none, the GPU refuses the atomic and the kernel's event
 * fails instead of counting wrong.
 */
TEST_F(cc, buffers_and_atomics)
{
	static const char src[] =
		"__kernel void count(__global const int *v, __global int *n)\n"
		"{ if (v[get_global_id(0)] & 1) atomic_inc(n); }\n";
	enum { N = 4096 };
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "count", NULL);
	int *host = malloc(N * sizeof(int)), n = 0, want = 0, i;
	cl_device_svm_capabilities caps = 0;
	size_t global = N;
	cl_int st = 1;
	cl_event ev;
	cl_mem v, c;

	ASSERT_TRUE(k && host);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev,
			CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL));
	for (i = 0; i < N; i++) {
		host[i] = (i * 2654435761u) >> 7;
		want += host[i] & 1;
	}
	v = clCreateBuffer(self->ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
			   N * sizeof(int), host, NULL);
	c = clCreateBuffer(self->ctx, CL_MEM_COPY_HOST_PTR, sizeof(int), &n,
			   NULL);
	ASSERT_TRUE(v && c);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(c), &c));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(self->q, k, 1, NULL,
			&global, NULL, 0, NULL, &ev));
	/* Its error, if it failed, is the event's status below. */
	clWaitForEvents(1, &ev);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(ev,
			CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
			NULL));
	clReleaseEvent(ev);
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(self->q, c, CL_TRUE, 0,
			sizeof(int), &n, 0, NULL, NULL));
	TH_LOG("SVM atomics %s: kernel status %d, count %d of %d",
	       caps & CL_DEVICE_SVM_ATOMICS ? "reported" : "not reported",
	       st, n, want);
	if (caps & CL_DEVICE_SVM_ATOMICS) {
		EXPECT_EQ(CL_COMPLETE, st);
		EXPECT_EQ(want, n);
	} else {
		EXPECT_EQ(CL_OUT_OF_RESOURCES, st);
	}
	clReleaseMemObject(v);
	clReleaseMemObject(c);
	free(host);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/* The same count with atomic_inc on malloc'd memory (SVM pointers). */
/*
 * A kernel's atomic_inc on @n, counting the multiples of 3 in @v (N
 * ints): exact where the device reports CL_DEVICE_SVM_ATOMICS (the driver
 * makes the GPU's atomics on private memory exact), else the event fails
 * (a Pascal on PCIe has no host atomics: the driver refuses them).
 */
static void count_atomics(struct __test_metadata *_metadata, cl_context ctx,
			  cl_device_id dev, cl_command_queue q, int *v, int *n)
{
	static const char src[] =
		"__kernel void count(__global const int *v, volatile __global int *n)\n"
		"{ if (v[get_global_id(0)] % 3 == 0) atomic_inc(n); }\n";
	enum { N = 3000 };
	cl_program p = build(_metadata, ctx, dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "count", NULL);
	cl_device_svm_capabilities caps = 0;
	size_t global = N;
	int want = 0, i;
	cl_int st = 1;
	cl_event ev;

	ASSERT_TRUE(k && v && n);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES,
					      sizeof(caps), &caps, NULL));
	for (i = 0; i < N; i++) {
		v[i] = (i * 40503u) >> 3;
		want += v[i] % 3 == 0;
	}
	*n = 0;
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, v));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 1, n));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(q, k, 1, NULL, &global,
						     NULL, 0, NULL, &ev));
	clWaitForEvents(1, &ev);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(ev,
			CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
			NULL));
	clReleaseEvent(ev);
	TH_LOG("SVM atomics %s: kernel status %d, count %d of %d",
	       caps & CL_DEVICE_SVM_ATOMICS ? "reported" : "not reported",
	       st, *n, want);
	if (caps & CL_DEVICE_SVM_ATOMICS) {
		EXPECT_EQ(CL_COMPLETE, st);
		EXPECT_EQ(want, *n);
	} else {
		EXPECT_EQ(CL_OUT_OF_RESOURCES, st);
	}
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * 3000 work-items' atomics, refused on a PCIe link without exclusive
 * access: 21 s on a quiet host's stock lane, past the harness's 30 s under
 * load.
 */
TEST_F_TIMEOUT(cc, atomics_on_malloc, 120)
{
	int *v = malloc(3000 * sizeof(int)), *n = malloc(sizeof(int));

	count_atomics(_metadata, self->ctx, self->dev, self->q, v, n);
	free(v);
	free(n);
}

/*
 * A device-scope atomic on clSVMAlloc memory without CL_MEM_SVM_ATOMICS
 * (CTS test_svm/svm_shared_address_space_fine_grain_buffers): as exact as
 * on malloc'd memory. Such memory was a window buffer, where a PCIe GPU's
 * atomics are refused, and the kernel failed.
 */
TEST_F_TIMEOUT(cc, atomics_on_fine_grain_buffer, 120)
{
	cl_svm_mem_flags fl = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER;
	int *v = clSVMAlloc(self->ctx, fl, 3000 * sizeof(int), 0);
	int *n = clSVMAlloc(self->ctx, fl, sizeof(int), 0);

	count_atomics(_metadata, self->ctx, self->dev, self->q, v, n);
	clSVMFree(self->ctx, v);
	clSVMFree(self->ctx, n);
}

int main(int argc, char **argv)
{
	cl_bool avail = CL_FALSE;
	cl_device_id dev;

	if (access(ICD_FILE, R_OK))
		ksft_exit_skip("no %s in this VM (run.sh --opencl)\n", ICD_FILE);
	dev = nvsvm_device();
	if (dev && (clGetDeviceInfo(dev, CL_DEVICE_COMPILER_AVAILABLE,
				    sizeof(avail), &avail, NULL) || !avail))
		ksft_exit_skip("the nvsvm device has no compiler\n");
	setvbuf(stdout, NULL, _IOLBF, 0);
	return test_harness_run(argc, argv);
}

/*
 * printf: run @k (1-D, @global work-items, @local or the ICD's choice)
 * with stdout in a memfd; the text the ICD wrote there by clFinish.
 */
static char *run_printf(struct __test_metadata *_metadata,
			cl_command_queue q, cl_kernel k, size_t global,
			const size_t *local)
{
	int fd = memfd_create("printf", 0), saved;
	cl_int err;
	char *text;
	off_t size;

	EXPECT_LE(0, fd);
	fflush(stdout);
	saved = dup(1);
	EXPECT_EQ(1, dup2(fd, 1));
	err = run1(q, k, global, local);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	EXPECT_EQ(CL_SUCCESS, err);
	size = lseek(fd, 0, SEEK_END);
	text = malloc(size + 1);
	EXPECT_NE(NULL, text);
	if (!text) {
		close(fd);
		return NULL;
	}
	EXPECT_EQ(size, pread(fd, text, size, 0));
	text[size] = 0;
	close(fd);
	return text;
}

/* Build @src, run its kernel "p" with @out as argument 0, check the text. */
static void printf_case(struct __test_metadata *_metadata, cl_context ctx,
			cl_device_id dev, cl_command_queue q, const char *src,
			const char *want)
{
	cl_program p = build(_metadata, ctx, dev, src, "-cl-std=CL1.2");
	cl_kernel k = clCreateKernel(p, "p", NULL);
	int out[4] = { 7, 7, 7, 7 };
	char *text;

	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
	text = run_printf(_metadata, q, k, 1, NULL);
	ASSERT_NE(NULL, text);
	EXPECT_STREQ(want, text);
	/* printf returned 0 each time. */
	EXPECT_EQ(0, out[0]);
	EXPECT_EQ(0, out[1]);
	free(text);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/* Integers of every length, flags, width, %c and %%, as the C library. */
TEST_F(cc, printf_integers)
{
	static const char src[] =
		"__kernel void p(__global int *out)\n"
		"{\n"
		"	char c = -5; uchar uc = 250; short s = -1234;\n"
		"	ushort us = 65000; int i = -100000; uint u = 4000000000u;\n"
		"	long l = -(1L << 40); ulong ul = 18446744073709551615ul;\n"
		"	out[0] = printf(\"c=%hhd uc=%hhu s=%hd us=%hu i=%d u=%u l=%ld ul=%lu \"\n"
		"		\"x=%x o=%o X=%#lX %c|%5d|%-5d|%05d|%+d%%\\n\", c, uc, s,\n"
		"		us, i, u, l, ul, u, u, ul, 'A', 42, 42, 42, 42);\n"
		"	out[1] = printf(\"no arguments\\n\");\n"
		"}\n";

	printf_case(_metadata, self->ctx, self->dev, self->q, src,
		    "c=-5 uc=250 s=-1234 us=65000 i=-100000 u=4000000000 "
		    "l=-1099511627776 ul=18446744073709551615 x=ee6b2800 "
		    "o=35632624000 X=0XFFFFFFFFFFFFFFFF A|   42|42   |00042|+42%\n"
		    "no arguments\n");
}

/* float (promoted to double) and double: %f %e %g %a, their capitals. */
TEST_F(cc, printf_floats)
{
	static const char src[] =
		"__kernel void p(__global int *out)\n"
		"{\n"
		"	float f = 1.5f; double d = 0.1;\n"
		"	out[0] = printf(\"%f %e %g %a %.3f %10.2f %E %G %A %f %f\\n\",\n"
		"		f, d, d, f, 3.14159f, -2.5f, 12345.678, 1e-10, 1.0,\n"
		"		INFINITY, -INFINITY);\n"
		"	out[1] = 0;\n"
		"}\n";

	printf_case(_metadata, self->ctx, self->dev, self->q, src,
		    "1.500000 1.000000e-01 0.1 0x1.8p+0 3.142      -2.50 "
		    "1.234568E+04 1E-10 0X1P+0 inf -inf\n");
}

/* %s of constant strings, with width and precision. */
TEST_F(cc, printf_strings)
{
	static const char src[] =
		"__kernel void p(__global int *out)\n"
		"{\n"
		"	out[0] = printf(\"[%s|%10s|%-4s|%.2s|%%|%c]\\n\", \"abc\",\n"
		"		\"right\", \"l\", \"xyz\", 'z');\n"
		"	out[1] = printf(\"%s\\n\", \"\");\n"
		"}\n";

	printf_case(_metadata, self->ctx, self->dev, self->q, src,
		    "[abc|     right|l   |xy|%|z]\n\n");
}

/*
 * Vectors: each size clang passes its own way (one slot, a pair, by
 * reference), 3 elements, every length, per-element width and precision.
 */
TEST_F(cc, printf_vectors)
{
	static const char src[] =
		"__kernel void p(__global int *out)\n"
		"{\n"
		"	float4 f4 = (float4)(1, 2, 3, 4) * (float)(out[2] - 6);\n"
		"	long16 l16 = (long16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n"
		"		11, 12, 13, 14, 15) * -1000000000000L;\n"
		"	out[0] = printf(\"%v4hlf|%v2hld|%v4hhd|%v3hd|%#v4hhx|%v2lu\\n\",\n"
		"		f4, (int2)(-1, 2), (char4)(1, -2, 3, -4),\n"
		"		(short3)(-7, 8, -9), (uchar4)(0xde, 0xad, 0xbe, 0xef),\n"
		"		(ulong2)(1, 18446744073709551615ul));\n"
		"	out[1] = printf(\"%v2lf|%v8hlg|%v3hlf|%5.1v2hlf|%v16ld\\n\",\n"
		"		(double2)(0.5, -0.25),\n"
		"		(float8)(0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4),\n"
		"		(float3)(1, 2, 3), (float2)(1.75f, -3.5f), l16);\n"
		"}\n";

	printf_case(_metadata, self->ctx, self->dev, self->q, src,
		    "1.000000,2.000000,3.000000,4.000000|-1,2|1,-2,3,-4|"
		    "-7,8,-9|0xde,0xad,0xbe,0xef|1,18446744073709551615\n"
		    "0.500000,-0.250000|0.5,1,1.5,2,2.5,3,3.5,4|"
		    "1.000000,2.000000,3.000000|  1.8, -3.5|"
		    "0,-1000000000000,-2000000000000,-3000000000000,"
		    "-4000000000000,-5000000000000,-6000000000000,"
		    "-7000000000000,-8000000000000,-9000000000000,"
		    "-10000000000000,-11000000000000,-12000000000000,"
		    "-13000000000000,-14000000000000,-15000000000000\n");
}

/*
 * 4096 work-items in 64 groups of 64, a line each: every one printed once,
 * the groups' regions in order.
 */
TEST_F_TIMEOUT(cc, printf_many_work_items, 120)
{
	static const char src[] =
		"__kernel void p(__global int *out)\n"
		"{\n"
		"	out[get_global_id(0)] = printf(\"wi %d of %d\\n\",\n"
		"		(int)get_global_id(0), (int)get_local_id(0));\n"
		"}\n";
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "p", NULL);
	static char seen[4096];
	static int out[4096];
	size_t local = 64;
	int lines = 0, last_group = 0, id, lid, bad = 0, i;
	char *text, *s;

	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
	text = run_printf(_metadata, self->q, k, 4096, &local);
	ASSERT_NE(NULL, text);
	for (s = text; *s; lines++) {
		if (sscanf(s, "wi %d of %d\n", &id, &lid) != 2 || id < 0 ||
		    id >= 4096 || seen[id]++ || lid != id % 64 ||
		    id / 64 < last_group)
			bad++;
		else
			last_group = id / 64;
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	EXPECT_EQ(4096, lines);
	EXPECT_EQ(0, bad);
	for (i = 0; i < 4096; i++)
		bad += out[i] != 0;
	EXPECT_EQ(0, bad);
	free(text);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * The buffer full: two work-items of one group print records of 144 bytes
 * (16 of header, a long16) until printf returns -1. The group's region is
 * the whole 1 MiB, so exactly 1048576 / 144 = 7281 records fit, whoever
 * wrote them; every later call fails, and nothing else is printed.
 */
TEST_F_TIMEOUT(cc, printf_buffer_full, 300)
{
	static const char src[] =
		"__kernel void p(__global int *out)\n"
		"{\n"
		"	int i, w = get_global_id(0);\n"
		"	for (i = 0; i < 4000; i++) {\n"
		"		int r = printf(\"%v16ld\\n\", (long16)(w));\n"
		"		if (r == 0)\n"
		"			out[w]++;\n"
		"		else if (r == -1)\n"
		"			out[2 + w]++;\n"
		"	}\n"
		"}\n";
	cl_program p = build(_metadata, self->ctx, self->dev, src, NULL);
	cl_kernel k = clCreateKernel(p, "p", NULL);
	size_t local = 2, size = 0;
	int out[4] = { 0 }, lines = 0, bad = 0;
	char *text, *s;

	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(self->dev,
			CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(size), &size, NULL));
	ASSERT_EQ(1 << 20, size);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
	text = run_printf(_metadata, self->q, k, 2, &local);
	ASSERT_NE(NULL, text);
	for (s = text; *s; lines++) {
		char want = s[0];

		bad += (want != '0' && want != '1') ||
		       strncmp(s, want == '0' ? "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n" :
				  "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1\n", 32);
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(7281, lines);
	EXPECT_EQ(7281, out[0] + out[1]);
	EXPECT_EQ(8000 - 7281, out[2] + out[3]);
	free(text);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * printf in a function of another object (clCompileProgram, then
 * clLinkProgram), beside a __local variable and a value argument, whose
 * slots move for printf's; and again from the program's binary.
 */
TEST_F(cc, printf_compile_link_and_binary)
{
	const char *lib = "void say(int x, int y) { printf(\"say %d %d\\n\", x, y); }\n";
	const char *main_src = "void say(int x, int y);\n"
		"__kernel void k(__global int *o, int add)\n"
		"{\n"
		"	__local int l[2];\n"
		"	l[get_local_id(0)] = (int)get_local_id(0) + add;\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	o[get_local_id(0)] = l[1 - get_local_id(0)];\n"
		"	if (get_local_id(0) == 0)\n"
		"		say(l[0], l[1]);\n"
		"}\n";
	cl_program a = clCreateProgramWithSource(self->ctx, 1, &lib, NULL, NULL);
	cl_program b = clCreateProgramWithSource(self->ctx, 1, &main_src, NULL,
						 NULL);
	cl_program objs[2], exe, again;
	const unsigned char *bin;
	size_t local = 2, size;
	int out[2], add = 40, round;
	cl_kernel k;
	cl_int err;
	char *text;

	ASSERT_TRUE(a && b);
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(a, 1, &self->dev, NULL, 0, NULL,
					       NULL, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(b, 1, &self->dev, NULL, 0, NULL,
					       NULL, NULL, NULL));
	objs[0] = b;
	objs[1] = a;
	exe = clLinkProgram(self->ctx, 1, &self->dev, NULL, 2, objs, NULL,
			    NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(exe, CL_PROGRAM_BINARY_SIZES,
					       sizeof(size), &size, NULL));
	bin = malloc(size);
	ASSERT_NE(NULL, bin);
	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(exe, CL_PROGRAM_BINARIES,
					       sizeof(bin), &bin, NULL));
	again = clCreateProgramWithBinary(self->ctx, 1, &self->dev, &size, &bin,
					  NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(again, 1, &self->dev, NULL, NULL,
					     NULL));
	for (round = 0; round < 2; round++) {
		k = clCreateKernel(round ? again : exe, "k", &err);
		ASSERT_EQ(CL_SUCCESS, err);
		ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, 0, out));
		ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(add), &add));
		out[0] = out[1] = 0;
		text = run_printf(_metadata, self->q, k, 2, &local);
		ASSERT_NE(NULL, text);
		EXPECT_STREQ("say 40 41\n", text);
		EXPECT_EQ(41, out[0]);
		EXPECT_EQ(40, out[1]);
		free(text);
		clReleaseKernel(k);
	}
	free((void *)bin);
	clReleaseProgram(again);
	clReleaseProgram(exe);
	clReleaseProgram(a);
	clReleaseProgram(b);
}

/*
 * Records the host must not trust: a kernel finds the printf buffer in
 * the PARAM window (nvcl.h) and forges records behind its two real ones.
 * A format outside the image and arguments cut short are skipped, a good
 * record after them printed, a bad header ends the group's region.
 */
TEST_F(cc, printf_forged_records_skipped)
{
	static const char src[] =
		"__kernel void p(__global int *out)\n"
		"{\n"
		"	__global ulong *param = (__global ulong *)0x4800000000000000ul;\n"
		"	__global ulong *b;\n"
		"	ulong m = (ulong)0x544e5250 << 32;\n"
		"\n"
		"	out[0] = printf(\"ok %d\\n\", 1);\n"
		"	out[1] = printf(\"two %d %d\\n\", 2, 3);\n"
		"	b = (__global ulong *)param[0];\n"
		"	b[7] = m | 24; b[8] = 0x1000; b[9] = 5;\n"
		"	b[10] = m | 24; b[11] = b[4]; b[12] = 7;\n"
		"	b[13] = m | 24; b[14] = b[1]; b[15] = 99;\n"
		"	b[16] = 24; b[17] = b[1]; b[18] = 100;\n"
		"	b[19] = m | 24; b[20] = b[1]; b[21] = 101;\n"
		"}\n";

	printf_case(_metadata, self->ctx, self->dev, self->q, src,
		    "ok 1\ntwo 2 3\nok 99\n");
}
