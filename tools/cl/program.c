// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnvsvm-cl: programs (built-in kernels only: the compiler entries
 * answer as a device without one) and kernels: arguments, queries and
 * clEnqueueNDRangeKernel, which runs a built-in as EXEC operations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvsvm-cl.h"

const char nv_builtin_names[] =
	"nvsvm_fill;nvsvm_copy;nvsvm_sum;nvsvm_chase;nvsvm_atomic_add";

/*
 * The built-in kernels. A kernel whose per_item is false is one operation
 * run by a single work-item (global size 1); nvsvm_atomic_add runs one
 * ATOMIC_ADD per work-item.
 */
const struct nv_builtin nv_builtins[NV_NBUILTINS] = {
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

/* ---- Programs: built-in kernels only ---- */

static const struct nv_builtin *builtin_find(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nv_builtins); i++)
		if (strlen(nv_builtins[i].name) == len &&
		    !strncmp(nv_builtins[i].name, name, len))
			return &nv_builtins[i];
	return NULL;
}

static cl_int check_ctx_devices(cl_context ctx, cl_uint n,
				const cl_device_id *devs)
{
	cl_uint i;

	if ((n == 0) != (devs == NULL))
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++)
		if (!nv_valid(devs[i], NV_DEVICE) || !nv_ctx_dev(ctx, devs[i]))
			return CL_INVALID_DEVICE;
	return CL_SUCCESS;
}

static cl_program program_new(cl_context ctx, cl_int *errcode_ret)
{
	cl_program p = calloc(1, sizeof(*p));

	if (!p)
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(p, NV_PROGRAM);
	p->ctx = ctx;
	nv_ref(ctx);
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

	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	if (!n || !devs || !names)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	err = check_ctx_devices(ctx, n, devs);
	if (err)
		return nv_fail(errcode_ret, err);
	for (s = names; *s; s = *e ? e + 1 : e) {
		e = strchr(s, ';');
		if (!e)
			e = s + strlen(s);
		if (!builtin_find(s, e - s))
			return nv_fail(errcode_ret, CL_INVALID_VALUE);
	}
	if (!*names)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	p = program_new(ctx, errcode_ret);
	if (!p)
		return NULL;
	p->builtin = true;
	p->build = CL_BUILD_SUCCESS;
	p->names = strdup(names);
	if (!p->names) {
		nv_ReleaseContext(ctx);
		nv_obj_free(p);
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	}
	nv_set_err(errcode_ret, CL_SUCCESS);
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

	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	if (!n || !strings)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	for (i = 0; i < n; i++) {
		if (!strings[i])
			return nv_fail(errcode_ret, CL_INVALID_VALUE);
		total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	}
	p = program_new(ctx, errcode_ret);
	if (!p)
		return NULL;
	p->build = CL_BUILD_NONE;
	p->source = malloc(total + 1);
	if (!p->source) {
		nv_ReleaseContext(ctx);
		nv_obj_free(p);
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	}
	for (total = 0, i = 0; i < n; i++) {
		len = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(p->source + total, strings[i], len);
		total += len;
	}
	p->source[total] = 0;
	nv_set_err(errcode_ret, CL_SUCCESS);
	return p;
}

static cl_int nv_RetainProgram(cl_program p)
{
	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	nv_ref(p);
	return CL_SUCCESS;
}

static cl_int nv_ReleaseProgram(cl_program p)
{
	cl_context ctx;

	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!nv_unref(p))
		return CL_SUCCESS;
	ctx = p->ctx;
	free(p->names);
	free(p->source);
	nv_obj_free(p);
	return nv_ReleaseContext(ctx);
}

static cl_int nv_BuildProgram(cl_program p, cl_uint n,
			      const cl_device_id *devs, const char *options,
			      void (CL_CALLBACK *notify)(cl_program, void *),
			      void *data)
{
	cl_int err;

	(void)options;
	if (!nv_valid(p, NV_PROGRAM))
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
	if (!nv_valid(p, NV_PROGRAM))
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
	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	return nv_fail(errcode_ret, CL_LINKER_NOT_AVAILABLE);
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
	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	err = check_ctx_devices(ctx, n, devs);
	if (err || !n)
		return nv_fail(errcode_ret, err ? err : CL_INVALID_VALUE);
	for (i = 0; status && i < n; i++)
		status[i] = CL_INVALID_BINARY;
	return nv_fail(errcode_ret, CL_INVALID_BINARY);
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

	if (!nv_valid(p, NV_PROGRAM))
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
		return nv_put(devs, p->ctx->ndevs * sizeof(devs[0]), size,
			      value, size_ret);
	case CL_PROGRAM_SOURCE:
		PUT_STR(p->source ? p->source : "");
	case CL_PROGRAM_BINARY_SIZES:
		return nv_put(zeros, p->ctx->ndevs * sizeof(zeros[0]), size,
			      value, size_ret);
	case CL_PROGRAM_BINARIES:
		return nv_put(NULL, p->ctx->ndevs * sizeof(void *), size, NULL,
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
		return nv_put(NULL, 0, size, value, size_ret);
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
	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!nv_valid(d, NV_DEVICE) || !nv_ctx_dev(p->ctx, d))
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
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(k, NV_KERNEL);
	k->prog = p;
	k->bi = bi;
	nv_ref(p);
	nv_set_err(errcode_ret, CL_SUCCESS);
	return k;
}

static cl_kernel nv_CreateKernel(cl_program p, const char *name,
				 cl_int *errcode_ret)
{
	const struct nv_builtin *bi;

	if (!nv_valid(p, NV_PROGRAM))
		return nv_fail(errcode_ret, CL_INVALID_PROGRAM);
	if (!name)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	if (!p->builtin)
		return nv_fail(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE);
	bi = builtin_find(name, strlen(name));
	if (!bi || !program_has(p, bi))
		return nv_fail(errcode_ret, CL_INVALID_KERNEL_NAME);
	return kernel_new(p, bi, errcode_ret);
}

static cl_int nv_CreateKernelsInProgram(cl_program p, cl_uint n,
					cl_kernel *kernels, cl_uint *n_ret)
{
	cl_uint count, i;
	unsigned int j;
	cl_int err;

	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!p->builtin)
		return CL_INVALID_PROGRAM_EXECUTABLE;
	count = program_kernels(p, NULL, 0);
	if (kernels && n < count)
		return CL_INVALID_VALUE;
	for (i = 0, j = 0; kernels && j < ARRAY_SIZE(nv_builtins); j++) {
		if (!program_has(p, &nv_builtins[j]))
			continue;
		kernels[i] = kernel_new(p, &nv_builtins[j], &err);
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
	if (!nv_valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	nv_ref(k);
	return CL_SUCCESS;
}

static cl_int nv_ReleaseKernel(cl_kernel k)
{
	cl_program p;

	if (!nv_valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (!nv_unref(k))
		return CL_SUCCESS;
	p = k->prog;
	nv_obj_free(k);
	return nv_ReleaseProgram(p);
}

static cl_kernel nv_CloneKernel(cl_kernel k, cl_int *errcode_ret)
{
	cl_kernel c;

	if (!nv_valid(k, NV_KERNEL))
		return nv_fail(errcode_ret, CL_INVALID_KERNEL);
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

	if (!nv_valid(k, NV_KERNEL))
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
		if (m && (!nv_valid(m, NV_MEM) || m->ctx != k->prog->ctx))
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
	if (!nv_valid(k, NV_KERNEL))
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
	if (!nv_valid(k, NV_KERNEL))
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
	if (!nv_valid(k, NV_KERNEL))
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

	if (!nv_valid(k, NV_KERNEL))
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

	if (!nv_valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (d && (!nv_valid(d, NV_DEVICE) || !nv_ctx_dev(k->prog->ctx, d)))
		return CL_INVALID_DEVICE;
	switch (param) {
	case CL_KERNEL_WORK_GROUP_SIZE:
	case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
		PUT(size_t, 1);
	case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
		return nv_put(zero, sizeof(zero), size, value, size_ret);
	case CL_KERNEL_GLOBAL_WORK_SIZE:
		if (!k->bi->per_item)
			global[0] = 1;
		return nv_put(global, sizeof(global), size, value, size_ret);
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
cl_int nv_run_builtin(cl_command_queue q, const struct nv_builtin *bi,
		      const struct nv_arg *a, size_t items)
{
	struct nvsvm_op one, *ops;
	uint64_t out_ptr = 0;
	cl_int status;
	size_t i, n = 1;

	switch (bi - nv_builtins) {
	case 0:	/* fill(dst, bytes, pattern) */
		one = nvsvm_op_fill(a[0].value, a[1].value, a[2].value);
		return nv_q_exec(q, &one, 1);
	case 1:	/* copy(dst, src, bytes) */
		one = nvsvm_op_copy(a[0].value, a[1].value, a[2].value);
		return nv_q_exec(q, &one, 1);
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
	status = nv_q_exec(q, ops, n);
	if (status == CL_SUCCESS && out_ptr) {
		for (i = 0; i < n; i++)
			ops[i] = nvsvm_op_write(out_ptr + 8 * i, ops[i].result);
		status = nv_q_exec(q, ops, n);
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
		if (is_ptr(&k->bi->args[i]) && !nv_aligned8(a[i].value))
			return CL_INVALID_KERNEL_ARGS;
		if (k->bi->args[i].kind == NV_ARG_PTR && !a[i].value)
			return CL_INVALID_KERNEL_ARGS;
	}
	switch (k->bi - nv_builtins) {
	case 0:
	case 1:
		if (!nv_aligned8(a[k->bi - nv_builtins + 1].value) ||
		    a[k->bi - nv_builtins + 1].value > MAX_ALLOC)
			return CL_INVALID_KERNEL_ARGS;
		break;
	case 2:
		if (!nv_aligned8(a[1].value) || a[1].value > MAX_ALLOC)
			return CL_INVALID_KERNEL_ARGS;
		break;
	case 3:
		if (a[1].value > (1ULL << 24) || !nv_aligned8(a[3].value) ||
		    !nv_aligned8(a[4].value))
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
	cl_int err = nv_cmd_begin(&c, q, nw, wl);
	size_t items = 1;
	cl_uint i;

	if (err)
		return err;
	if (!nv_valid(k, NV_KERNEL))
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
	return nv_cmd_submit(&c, CL_COMMAND_NDRANGE_KERNEL, CL_FALSE, event);
}

static cl_int nv_EnqueueTask(cl_command_queue q, cl_kernel k, cl_uint nw,
			     const cl_event *wl, cl_event *event)
{
	size_t one = 1;

	return nv_EnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, nw, wl,
				       event);
}

/* The dispatch entries of this file's calls. */
void nv_program_dispatch(cl_icd_dispatch *t)
{
	t->clCreateProgramWithSource = nv_CreateProgramWithSource;
	t->clCreateProgramWithBinary = nv_CreateProgramWithBinary;
	t->clCreateProgramWithBuiltInKernels =
		nv_CreateProgramWithBuiltInKernels;
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
	t->clEnqueueNDRangeKernel = nv_EnqueueNDRangeKernel;
	t->clEnqueueTask = nv_EnqueueTask;
}
