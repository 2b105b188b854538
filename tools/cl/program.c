// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnvsvm-cl: programs (built-in kernels, and OpenCL C compiled by
 * compile.c) and kernels: arguments, queries and clEnqueueNDRangeKernel,
 * which runs a built-in as EXEC operations and a compiled kernel as one
 * NVSVM_IOCTL_LAUNCH.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvsvm-cl.h"

/* Private memory of a work-group at most: the model's limit is 32 MiB. */
#define NV_GROUP_PRIV		(16U << 20)

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

/* ---- Programs ---- */

static const struct nv_builtin *builtin_find(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nv_builtins); i++)
		if (strlen(nv_builtins[i].name) == len &&
		    !strncmp(nv_builtins[i].name, name, len))
			return &nv_builtins[i];
	return NULL;
}

bool nv_compiler_available(void)
{
	return nvcl_available();
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
	pthread_mutex_init(&p->lock, NULL);
	p->ctx = ctx;
	nv_ref(ctx);
	return p;
}

static void program_free(cl_program p)
{
	cl_context ctx = p->ctx;

	free(p->names);
	free(p->source);
	free(p->options);
	free(p->log);
	free(p->bin_data);
	nvcl_bin_free(&p->bin);
	pthread_mutex_destroy(&p->lock);
	nv_obj_free(p);
	nv_ReleaseContext(ctx);
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
		program_free(p);
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	}
	nv_set_err(errcode_ret, CL_SUCCESS);
	return p;
}

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
		program_free(p);
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

/*
 * Take the binary @data (of nvcl_run() or the user) as @p's: parsed, its
 * kernels' names listed. Under p->lock, or before @p is shared.
 */
static cl_int program_set_bin(cl_program p, const void *data, size_t size)
{
	struct nvcl_bin b;
	size_t len = 1;
	uint32_t i;
	char *copy, *names;

	if (nvcl_bin_parse(data, size, &b))
		return CL_INVALID_BINARY;
	copy = malloc(size);
	for (i = 0; i < b.nkernels; i++)
		len += strlen(b.kernels[i].name) + 1;
	names = calloc(1, len);
	if (!copy || !names) {
		free(copy);
		free(names);
		nvcl_bin_free(&b);
		return CL_OUT_OF_HOST_MEMORY;
	}
	for (i = 0; i < b.nkernels; i++) {
		if (i)
			strcat(names, ";");
		strcat(names, b.kernels[i].name);
	}
	memcpy(copy, data, size);
	free(p->bin_data);
	nvcl_bin_free(&p->bin);
	free(p->names);
	p->bin_data = copy;
	p->bin_size = size;
	p->bin = b;
	p->names = names;
	/* OpenCL C 3.0 (2.0) lets the last group of a dimension be smaller. */
	p->nonuniform = b.options && strstr(b.options, "-cl-std=CL3.0") &&
			!strstr(b.options, "-cl-uniform-work-group-size");
	return CL_SUCCESS;
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
	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (nv_unref(p))
		program_free(p);
	return CL_SUCCESS;
}

static cl_int status_to_cl(uint32_t st, cl_int failed, cl_int bad_opts)
{
	switch (st) {
	case NVCL_OK:
		return CL_SUCCESS;
	case NVCL_BAD_OPTIONS:
		return bad_opts;
	case NVCL_NO_COMPILER:
		return CL_COMPILER_NOT_AVAILABLE;
	case NVCL_NO_MEMORY:
		return CL_OUT_OF_HOST_MEMORY;
	default:
		return failed;
	}
}

/*
 * Do @options (space-separated, as OpenCL gives them) ask for kernel
 * argument information?
 */
static bool wants_arg_info(const char *options)
{
	static const char opt[] = "-cl-kernel-arg-info";
	const char *s = options;

	while (s && (s = strstr(s, opt))) {
		if ((s == options || isspace((unsigned char)s[-1])) &&
		    (!s[sizeof(opt) - 1] || isspace((unsigned char)s[sizeof(opt) - 1])))
			return true;
		s += sizeof(opt) - 1;
	}
	return false;
}

/*
 * Run @job for @p and keep its outcome (log, options, binary, status).
 * @p->lock held.
 */
static cl_int program_job(cl_program p, struct nvcl_job *job, cl_int failed,
			  cl_int bad_opts)
{
	struct nvcl_result res;
	cl_int err;

	p->build = CL_BUILD_IN_PROGRESS;
	nvcl_run(job, &res);
	err = status_to_cl(res.status, failed, bad_opts);
	if (!err)
		err = program_set_bin(p, res.bin, res.bin_size);
	free(p->log);
	p->log = res.log;
	res.log = NULL;
	free(p->options);
	p->options = strdup(job->options ? job->options : "");
	p->build = err ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
	nvcl_result_free(&res);
	return err;
}

/* What the program is now: its binary's type, or none. */
static cl_program_binary_type program_type(cl_program p)
{
	switch (p->bin.type) {
	case NVCL_BIN_OBJECT:
		return CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
	case NVCL_BIN_LIBRARY:
		return CL_PROGRAM_BINARY_TYPE_LIBRARY;
	case NVCL_BIN_EXEC:
		return CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
	default:
		return CL_PROGRAM_BINARY_TYPE_NONE;
	}
}

static cl_int nv_BuildProgram(cl_program p, cl_uint n,
			      const cl_device_id *devs, const char *options,
			      void (CL_CALLBACK *notify)(cl_program, void *),
			      void *data)
{
	struct nvcl_input in = { 0 };
	struct nvcl_job job = { 0 };
	cl_int err;

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
	pthread_mutex_lock(&p->lock);
	if (__atomic_load_n(&p->kernels, __ATOMIC_RELAXED) ||
	    p->build == CL_BUILD_IN_PROGRESS) {
		pthread_mutex_unlock(&p->lock);
		return CL_INVALID_OPERATION;
	}
	job.options = (char *)(options ? options : "");
	if (p->source) {
		job.mode = NVCL_BUILD;
		in.name = "input.cl";
		in.data = p->source;
		in.size = strlen(p->source);
	} else if (p->bin.type == NVCL_BIN_EXEC) {
		/* A binary already linked: nothing to do. */
		p->build = CL_BUILD_SUCCESS;
		free(p->options);
		p->options = strdup(job.options);
		goto done;
	} else if (p->bin.type) {
		job.mode = NVCL_LINK;
		in.name = "input.ll";
		in.data = p->bin.ir;
		in.size = p->bin.ir_size;
		/* The options of a build are compile options: none to link. */
		job.options = "";
	} else {
		pthread_mutex_unlock(&p->lock);
		return CL_INVALID_BINARY;
	}
	job.inputs = &in;
	job.ninputs = 1;
	err = program_job(p, &job, CL_BUILD_PROGRAM_FAILURE,
			  CL_INVALID_BUILD_OPTIONS);
	if (job.mode == NVCL_BUILD)
		p->no_arg_names = !wants_arg_info(options);
	if (!err && p->bin.type != NVCL_BIN_EXEC)
		err = CL_BUILD_PROGRAM_FAILURE;
	if (job.mode == NVCL_LINK && !err) {
		free(p->options);
		p->options = strdup(options ? options : "");
	}
done:
	pthread_mutex_unlock(&p->lock);
	if (notify)
		notify(p, data);
	return err;
}

static cl_int nv_CompileProgram(cl_program p, cl_uint n,
				const cl_device_id *devs, const char *options,
				cl_uint nh, const cl_program *headers,
				const char **names,
				void (CL_CALLBACK *notify)(cl_program, void *),
				void *data)
{
	struct nvcl_input in = { 0 }, *hs = NULL;
	struct nvcl_job job = { 0 };
	cl_uint i;
	cl_int err;

	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if ((!notify && data) || (nh && (!headers || !names)) ||
	    (!nh && (headers || names)))
		return CL_INVALID_VALUE;
	err = check_ctx_devices(p->ctx, n, devs);
	if (err)
		return err;
	for (i = 0; i < nh; i++)
		if (!nv_valid(headers[i], NV_PROGRAM) || !headers[i]->source ||
		    !names[i])
			return CL_INVALID_VALUE;
	if (p->builtin || !p->source)
		return CL_INVALID_OPERATION;
	hs = calloc(nh ? nh : 1, sizeof(*hs));
	if (!hs)
		return CL_OUT_OF_HOST_MEMORY;
	for (i = 0; i < nh; i++) {
		hs[i].name = (char *)names[i];
		hs[i].data = headers[i]->source;
		hs[i].size = strlen(headers[i]->source);
	}
	pthread_mutex_lock(&p->lock);
	if (__atomic_load_n(&p->kernels, __ATOMIC_RELAXED) ||
	    p->build == CL_BUILD_IN_PROGRESS) {
		pthread_mutex_unlock(&p->lock);
		free(hs);
		return CL_INVALID_OPERATION;
	}
	job.mode = NVCL_COMPILE;
	job.options = (char *)(options ? options : "");
	in.name = "input.cl";
	in.data = p->source;
	in.size = strlen(p->source);
	job.inputs = &in;
	job.ninputs = 1;
	job.headers = hs;
	job.nheaders = nh;
	err = program_job(p, &job, CL_COMPILE_PROGRAM_FAILURE,
			  CL_INVALID_COMPILER_OPTIONS);
	p->no_arg_names = !wants_arg_info(options);
	pthread_mutex_unlock(&p->lock);
	free(hs);
	if (notify)
		notify(p, data);
	return err;
}

static cl_program nv_LinkProgram(cl_context ctx, cl_uint n,
				 const cl_device_id *devs, const char *options,
				 cl_uint np, const cl_program *progs,
				 void (CL_CALLBACK *notify)(cl_program, void *),
				 void *data, cl_int *errcode_ret)
{
	struct nvcl_job job = { 0 };
	struct nvcl_input *in;
	cl_program p;
	cl_uint i;
	cl_int err;

	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	if ((!notify && data) || !np || !progs)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	err = check_ctx_devices(ctx, n, devs);
	if (err)
		return nv_fail(errcode_ret, err);
	for (i = 0; i < np; i++) {
		if (!nv_valid(progs[i], NV_PROGRAM) || progs[i]->ctx != ctx)
			return nv_fail(errcode_ret, CL_INVALID_PROGRAM);
		if (progs[i]->bin.type != NVCL_BIN_OBJECT &&
		    progs[i]->bin.type != NVCL_BIN_LIBRARY)
			return nv_fail(errcode_ret, CL_INVALID_OPERATION);
	}
	in = calloc(np, sizeof(*in));
	p = in ? program_new(ctx, errcode_ret) : NULL;
	if (!p) {
		free(in);
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	}
	for (i = 0; i < np; i++) {
		pthread_mutex_lock(&progs[i]->lock);
		in[i].name = "input.ll";
		in[i].size = progs[i]->bin.ir_size;
		in[i].data = malloc(in[i].size + 1);
		if (in[i].data)
			memcpy(in[i].data, progs[i]->bin.ir, in[i].size);
		/* Names only where every object compiled kept them. */
		p->no_arg_names |= progs[i]->no_arg_names;
		pthread_mutex_unlock(&progs[i]->lock);
		if (!in[i].data)
			err = CL_OUT_OF_HOST_MEMORY;
	}
	if (!err) {
		job.mode = NVCL_LINK;
		job.options = (char *)(options ? options : "");
		job.inputs = in;
		job.ninputs = np;
		pthread_mutex_lock(&p->lock);
		err = program_job(p, &job, CL_LINK_PROGRAM_FAILURE,
				  CL_INVALID_LINKER_OPTIONS);
		pthread_mutex_unlock(&p->lock);
	}
	for (i = 0; i < np; i++)
		free(in[i].data);
	free(in);
	if (notify)
		notify(p, data);
	if (err == CL_INVALID_LINKER_OPTIONS || err == CL_OUT_OF_HOST_MEMORY) {
		nv_ReleaseProgram(p);
		return nv_fail(errcode_ret, err);
	}
	/* A failed link still gives a program, for its log. */
	nv_set_err(errcode_ret, err);
	return p;
}

static cl_program nv_CreateProgramWithBinary(cl_context ctx, cl_uint n,
					     const cl_device_id *devs,
					     const size_t *lengths,
					     const unsigned char **bins,
					     cl_int *status, cl_int *errcode_ret)
{
	struct nvcl_bin b;
	cl_program p;
	cl_uint i;
	cl_int err;

	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	err = check_ctx_devices(ctx, n, devs);
	if (err || !n)
		return nv_fail(errcode_ret, err ? err : CL_INVALID_VALUE);
	if (!lengths || !bins)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	for (i = 0; i < n; i++)
		if (!lengths[i] || !bins[i])
			return nv_fail(errcode_ret, CL_INVALID_VALUE);
	err = CL_SUCCESS;
	for (i = 0; i < n; i++) {
		cl_int e = CL_SUCCESS;

		if (nvcl_bin_parse(bins[i], lengths[i], &b))
			e = CL_INVALID_BINARY;
		else
			nvcl_bin_free(&b);
		if (status)
			status[i] = e;
		if (e)
			err = e;
	}
	if (err)
		return nv_fail(errcode_ret, err);
	p = program_new(ctx, errcode_ret);
	if (!p)
		return NULL;
	/* One binary serves every device (they are the same GPU). */
	err = program_set_bin(p, bins[0], lengths[0]);
	if (err) {
		program_free(p);
		return nv_fail(errcode_ret, err);
	}
	p->build = CL_BUILD_NONE;
	nv_set_err(errcode_ret, CL_SUCCESS);
	return p;
}

static cl_int nv_UnloadCompiler(void)
{
	return CL_SUCCESS;
}

static cl_int nv_UnloadPlatformCompiler(cl_platform_id platform)
{
	return platform == &nv_platform ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

static cl_uint program_kernels(cl_program p)
{
	const char *s = p->names ? p->names : "";
	cl_uint n = 0;

	while (*s) {
		n++;
		s = strchr(s, ';');
		if (!s)
			break;
		s++;
	}
	return n;
}

/* Whether @p has kernels one can create: built-in, or an executable. */
static bool program_executable(cl_program p)
{
	return p->builtin ||
	       (p->bin.type == NVCL_BIN_EXEC && p->build == CL_BUILD_SUCCESS);
}

static cl_int nv_GetProgramInfo(cl_program p, cl_program_info param,
				size_t size, void *value, size_t *size_ret)
{
	cl_device_id devs[NV_MAX_DEVICES];
	size_t sizes[NV_MAX_DEVICES];
	unsigned char **out = value;
	cl_int err = CL_SUCCESS;
	cl_uint i, nd;

	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	nd = p->ctx->ndevs;
	switch (param) {
	case CL_PROGRAM_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)p->obj.refs);
	case CL_PROGRAM_CONTEXT:
		PUT(cl_context, p->ctx);
	case CL_PROGRAM_NUM_DEVICES:
		PUT(cl_uint, nd);
	case CL_PROGRAM_DEVICES:
		for (i = 0; i < nd; i++)
			devs[i] = p->ctx->devs[i].dev;
		return nv_put(devs, nd * sizeof(devs[0]), size, value,
			      size_ret);
	case CL_PROGRAM_SOURCE:
		PUT_STR(p->source ? p->source : "");
	case CL_PROGRAM_BINARY_SIZES:
		pthread_mutex_lock(&p->lock);
		for (i = 0; i < nd; i++)
			sizes[i] = p->bin_size;
		pthread_mutex_unlock(&p->lock);
		return nv_put(sizes, nd * sizeof(sizes[0]), size, value,
			      size_ret);
	case CL_PROGRAM_BINARIES:
		if (value && size < nd * sizeof(void *))
			return CL_INVALID_VALUE;
		if (size_ret)
			*size_ret = nd * sizeof(void *);
		pthread_mutex_lock(&p->lock);
		for (i = 0; value && i < nd; i++)
			if (out[i] && p->bin_size)
				memcpy(out[i], p->bin_data, p->bin_size);
		pthread_mutex_unlock(&p->lock);
		return err;
	case CL_PROGRAM_NUM_KERNELS:
		if (!program_executable(p))
			return CL_INVALID_PROGRAM_EXECUTABLE;
		PUT(size_t, program_kernels(p));
	case CL_PROGRAM_KERNEL_NAMES:
		if (!program_executable(p))
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
	cl_int err;

	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!nv_valid(d, NV_DEVICE) || !nv_ctx_dev(p->ctx, d))
		return CL_INVALID_DEVICE;
	switch (param) {
	case CL_PROGRAM_BUILD_STATUS:
		PUT(cl_build_status, p->build);
	case CL_PROGRAM_BUILD_OPTIONS:
		pthread_mutex_lock(&p->lock);
		err = nv_put(p->options ? p->options : "",
			     strlen(p->options ? p->options : "") + 1, size,
			     value, size_ret);
		pthread_mutex_unlock(&p->lock);
		return err;
	case CL_PROGRAM_BUILD_LOG:
		pthread_mutex_lock(&p->lock);
		err = nv_put(p->log ? p->log : "",
			     strlen(p->log ? p->log : "") + 1, size, value,
			     size_ret);
		pthread_mutex_unlock(&p->lock);
		return err;
	case CL_PROGRAM_BINARY_TYPE:
		PUT(cl_program_binary_type, program_type(p));
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
			    const struct nvcl_kernel *ck, cl_int *errcode_ret)
{
	cl_kernel k = calloc(1, sizeof(*k));

	if (k && ck) {
		k->param = calloc(1, ck->param_size ? ck->param_size : 1);
		k->cargs = calloc(ck->nargs ? ck->nargs : 1, sizeof(*k->cargs));
		if (!k->param || !k->cargs) {
			free(k->param);
			free(k->cargs);
			free(k);
			k = NULL;
		}
	}
	if (!k)
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(k, NV_KERNEL);
	k->prog = p;
	k->bi = bi;
	k->ck = ck;
	nv_ref(p);
	__atomic_add_fetch(&p->kernels, 1, __ATOMIC_RELAXED);
	nv_set_err(errcode_ret, CL_SUCCESS);
	return k;
}

static const struct nvcl_kernel *compiled_find(cl_program p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->bin.nkernels; i++)
		if (!strcmp(p->bin.kernels[i].name, name))
			return &p->bin.kernels[i];
	return NULL;
}

static cl_kernel nv_CreateKernel(cl_program p, const char *name,
				 cl_int *errcode_ret)
{
	const struct nvcl_kernel *ck;
	const struct nv_builtin *bi;

	if (!nv_valid(p, NV_PROGRAM))
		return nv_fail(errcode_ret, CL_INVALID_PROGRAM);
	if (!name)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	if (!program_executable(p))
		return nv_fail(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE);
	if (!p->builtin) {
		ck = compiled_find(p, name);
		if (!ck)
			return nv_fail(errcode_ret, CL_INVALID_KERNEL_NAME);
		return kernel_new(p, NULL, ck, errcode_ret);
	}
	bi = builtin_find(name, strlen(name));
	if (!bi || !program_has(p, bi))
		return nv_fail(errcode_ret, CL_INVALID_KERNEL_NAME);
	return kernel_new(p, bi, NULL, errcode_ret);
}

static cl_int nv_ReleaseKernel(cl_kernel k);

static cl_int nv_CreateKernelsInProgram(cl_program p, cl_uint n,
					cl_kernel *kernels, cl_uint *n_ret)
{
	cl_uint count, i = 0, j;
	cl_int err = CL_SUCCESS;

	if (!nv_valid(p, NV_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!program_executable(p))
		return CL_INVALID_PROGRAM_EXECUTABLE;
	count = program_kernels(p);
	if (kernels && n < count)
		return CL_INVALID_VALUE;
	if (p->builtin) {
		for (j = 0; kernels && j < ARRAY_SIZE(nv_builtins); j++) {
			if (!program_has(p, &nv_builtins[j]))
				continue;
			kernels[i] = kernel_new(p, &nv_builtins[j], NULL, &err);
			if (!kernels[i])
				break;
			i++;
		}
	} else {
		for (i = 0; kernels && i < p->bin.nkernels; i++) {
			kernels[i] = kernel_new(p, NULL, &p->bin.kernels[i],
						&err);
			if (!kernels[i])
				break;
		}
	}
	if (err) {
		while (i--)
			nv_ReleaseKernel(kernels[i]);
		return err;
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
	free(k->param);
	free(k->cargs);
	nv_obj_free(k);
	__atomic_sub_fetch(&p->kernels, 1, __ATOMIC_RELAXED);
	return nv_ReleaseProgram(p);
}

static cl_kernel nv_CloneKernel(cl_kernel k, cl_int *errcode_ret)
{
	cl_kernel c;

	if (!nv_valid(k, NV_KERNEL))
		return nv_fail(errcode_ret, CL_INVALID_KERNEL);
	c = kernel_new(k->prog, k->bi, k->ck, errcode_ret);
	if (!c)
		return NULL;
	memcpy(c->args, k->args, sizeof(c->args));
	if (k->ck) {
		memcpy(c->param, k->param, k->ck->param_size);
		memcpy(c->cargs, k->cargs, k->ck->nargs * sizeof(*c->cargs));
	}
	return c;
}

static cl_uint kernel_nargs(cl_kernel k)
{
	return k->ck ? k->ck->nargs : k->bi->nargs;
}

static bool is_ptr(const struct nv_arg_desc *a)
{
	return a->kind == NV_ARG_PTR || a->kind == NV_ARG_PTR_OPT;
}

/* clSetKernelArg of a compiled kernel. */
static cl_int set_compiled_arg(cl_kernel k, cl_uint index, size_t size,
			       const void *value)
{
	const struct nvcl_arg *a = &k->ck->args[index];
	struct nv_karg *c = &k->cargs[index];
	uint64_t ptr = 0;
	cl_mem m = NULL;

	switch (a->kind) {
	case NVCL_ARG_LOCAL:
		if (value)
			return CL_INVALID_ARG_VALUE;
		if (!size || size > NVSVM_LAUNCH_MAX_LOCAL)
			return CL_INVALID_ARG_SIZE;
		c->local = (uint32_t)size;
		break;
	case NVCL_ARG_GLOBAL:
	case NVCL_ARG_CONSTANT:
		if (size != sizeof(cl_mem))
			return CL_INVALID_ARG_SIZE;
		if (value)
			m = *(const cl_mem *)value;
		if (m && (!nv_valid(m, NV_MEM) || m->ctx != k->prog->ctx))
			return CL_INVALID_MEM_OBJECT;
		ptr = m ? nvsvm_ptr(m->data) : 0;
		memcpy(k->param + a->offset, &ptr, sizeof(ptr));
		c->mem = m;
		break;
	case NVCL_ARG_VALUE:
		if (!value)
			return CL_INVALID_ARG_VALUE;
		/* A 3-vector: 3 or 4 elements' worth (cl_int3 is 16 bytes). */
		if (size != a->size &&
		    !(strchr(a->type_name, '3') && size == a->size / 4 * 3))
			return CL_INVALID_ARG_SIZE;
		memset(k->param + a->offset, 0, a->size);
		memcpy(k->param + a->offset, value, size);
		break;
	default:
		/*
		 * Images, pipes (global memory objects) and samplers: the
		 * device has none, so no value is valid, but a size that is
		 * not the handle's is CL_INVALID_ARG_SIZE first.
		 */
		if (a->addr_q == CL_KERNEL_ARG_ADDRESS_GLOBAL)
			return size != sizeof(cl_mem) ? CL_INVALID_ARG_SIZE :
							CL_INVALID_MEM_OBJECT;
		return size != sizeof(cl_sampler) ? CL_INVALID_ARG_SIZE :
						    CL_INVALID_SAMPLER;
	}
	c->set = true;
	return CL_SUCCESS;
}

static cl_int nv_SetKernelArg(cl_kernel k, cl_uint index, size_t size,
			      const void *value)
{
	const struct nv_arg_desc *a;
	cl_mem m = NULL;

	if (!nv_valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (index >= kernel_nargs(k))
		return CL_INVALID_ARG_INDEX;
	if (k->ck)
		return set_compiled_arg(k, index, size, value);
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
	uint64_t ptr = nvsvm_ptr(value);

	if (!nv_valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (index >= kernel_nargs(k))
		return CL_INVALID_ARG_INDEX;
	if (k->ck) {
		const struct nvcl_arg *a = &k->ck->args[index];

		if (a->kind != NVCL_ARG_GLOBAL && a->kind != NVCL_ARG_CONSTANT)
			return CL_INVALID_ARG_VALUE;
		memcpy(k->param + a->offset, &ptr, sizeof(ptr));
		k->cargs[index].mem = NULL;
		k->cargs[index].set = true;
		return CL_SUCCESS;
	}
	if (!is_ptr(&k->bi->args[index]))
		return CL_INVALID_ARG_VALUE;
	k->args[index].value = ptr;
	k->args[index].mem = NULL;
	k->args[index].set = true;
	return CL_SUCCESS;
}

static cl_int nv_SetKernelExecInfo(cl_kernel k, cl_kernel_exec_info param,
				   size_t size, const void *value)
{
	if (!nv_valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	switch (param) {
	case CL_KERNEL_EXEC_INFO_SVM_PTRS:
		/*
		 * Every pointer of the process is reachable anyway. An empty
		 * list (size 0, NULL) unsets the ones set before (3.0).
		 */
		if (!size && !value)
			return CL_SUCCESS;
		return !value || size % sizeof(void *) ? CL_INVALID_VALUE :
							 CL_SUCCESS;
	case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
		return value && size == sizeof(cl_bool) ? CL_SUCCESS :
							 CL_INVALID_VALUE;
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
		PUT_STR(k->ck ? k->ck->name : k->bi->name);
	case CL_KERNEL_NUM_ARGS:
		PUT(cl_uint, kernel_nargs(k));
	case CL_KERNEL_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)k->obj.refs);
	case CL_KERNEL_CONTEXT:
		PUT(cl_context, k->prog->ctx);
	case CL_KERNEL_PROGRAM:
		PUT(cl_program, k->prog);
	case CL_KERNEL_ATTRIBUTES:
		PUT_STR(k->ck ? k->ck->attrs : "");
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
	if (index >= kernel_nargs(k))
		return CL_INVALID_ARG_INDEX;
	if (k->ck) {
		const struct nvcl_arg *c = &k->ck->args[index];

		/*
		 * Built from source without -cl-kernel-arg-info: no names, as
		 * pocl (piglit's api@clgetkernelarginfo asks). The qualifiers
		 * and type names stay: the spec allows them, and runtimes use
		 * them.
		 */
		if (param == CL_KERNEL_ARG_NAME && k->prog->no_arg_names)
			return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
		switch (param) {
		case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
			PUT(cl_kernel_arg_address_qualifier, c->addr_q);
		case CL_KERNEL_ARG_ACCESS_QUALIFIER:
			PUT(cl_kernel_arg_access_qualifier, c->access_q);
		case CL_KERNEL_ARG_TYPE_NAME:
			PUT_STR(c->type_name);
		case CL_KERNEL_ARG_TYPE_QUALIFIER:
			PUT(cl_kernel_arg_type_qualifier, c->type_q);
		case CL_KERNEL_ARG_NAME:
			PUT_STR(c->name);
		default:
			return CL_INVALID_VALUE;
		}
	}
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

/*
 * A __local argument's alignment: that of the largest built-in type
 * (long16, double16), as for global memory (CL_DEVICE_MEM_BASE_ADDR_ALIGN);
 * CTS test_basic/kernel_memory_alignment_local checks each vector size.
 */
#define NV_LOCAL_ARG_ALIGN	128ULL

static uint64_t local_arg_align(uint64_t off)
{
	return (off + NV_LOCAL_ARG_ALIGN - 1) & ~(NV_LOCAL_ARG_ALIGN - 1);
}

/* Bytes of local memory @k uses with its arguments as set. */
static uint64_t kernel_local(cl_kernel k)
{
	uint64_t total = k->prog->bin.local_static;
	uint32_t i;

	for (i = 0; i < k->ck->nargs; i++)
		if (k->ck->args[i].kind == NVCL_ARG_LOCAL)
			total = local_arg_align(total) + k->cargs[i].local;
	return (total + 15) & ~15ULL;
}

/* The most work-items of a group: the device's, or reqd_work_group_size. */
static size_t kernel_wg_max(cl_kernel k)
{
	const uint32_t *r = k->ck ? k->ck->reqd : NULL;

	size_t max;

	if (!k->ck)
		return 1;
	/* As many work-items as their private memory allows. */
	max = NV_GROUP_PRIV / k->prog->bin.stack;
	if (max > NVSVM_LAUNCH_MAX_GROUP)
		max = NVSVM_LAUNCH_MAX_GROUP;
	if (r[0] && (size_t)r[0] * r[1] * r[2] <= max)
		return (size_t)r[0] * r[1] * r[2];
	return max;
}

static cl_int nv_GetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
					cl_kernel_work_group_info param,
					size_t size, void *value,
					size_t *size_ret)
{
	size_t zero[3] = { 0, 0, 0 };
	size_t global[3] = { NVSVM_EXEC_MAX_OPS * 1024, 1, 1 };
	uint32_t i;

	if (!nv_valid(k, NV_KERNEL))
		return CL_INVALID_KERNEL;
	if (d && (!nv_valid(d, NV_DEVICE) || !nv_ctx_dev(k->prog->ctx, d)))
		return CL_INVALID_DEVICE;
	if (!d && k->prog->ctx->ndevs > 1)
		return CL_INVALID_DEVICE;
	switch (param) {
	case CL_KERNEL_WORK_GROUP_SIZE:
		PUT(size_t, kernel_wg_max(k));
	case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
		PUT(size_t, k->ck ? 32 : 1);	/* a warp */
	case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
		for (i = 0; k->ck && i < 3; i++)
			zero[i] = k->ck->reqd[i];
		return nv_put(zero, sizeof(zero), size, value, size_ret);
	case CL_KERNEL_GLOBAL_WORK_SIZE:
		/* Only for built-in kernels (and custom devices). */
		if (k->ck)
			return CL_INVALID_VALUE;
		if (!k->bi->per_item)
			global[0] = 1;
		return nv_put(global, sizeof(global), size, value, size_ret);
	case CL_KERNEL_LOCAL_MEM_SIZE:
		PUT(cl_ulong, k->ck ? kernel_local(k) : 0);
	case CL_KERNEL_PRIVATE_MEM_SIZE:
		PUT(cl_ulong, k->ck ? k->prog->bin.stack : 0);
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

/* ---- Compiled kernels: NVSVM_IOCTL_LAUNCH ---- */

void nv_kcall_get(struct nv_kcall *call)
{
	__atomic_add_fetch(&call->refs, 1, __ATOMIC_RELAXED);
}

void nv_kcall_put(struct nv_kcall *call)
{
	cl_uint i;

	if (__atomic_sub_fetch(&call->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (i = 0; i < call->nmems; i++)
		nv_ReleaseMemObject(call->mems[i]);
	nv_ReleaseProgram(call->prog);
	free(call->mems);
	free(call->param);
	free(call);
}

/*
 * A program that calls printf: the launch gets a printf buffer of its own,
 * each work-group an equal region of it (nvcl.h); what it holds goes to
 * stdout when the launch has ended, before its command completes.
 */
static cl_int run_printf(cl_command_queue q, struct nv_kcall *call)
{
	struct nvsvm_launch l = call->l;
	uint64_t groups = 1, addr;
	uint32_t region = 0;
	uint8_t *param, *buf;
	cl_int err;
	cl_uint i;

	for (i = 0; i < l.work_dim; i++)
		groups *= (l.global_size[i] + l.local_size[i] - 1) /
			  l.local_size[i];
	param = malloc(l.param_size);
	buf = calloc(1, NVCL_PRINTF_SIZE);
	if (!param || !buf) {
		free(param);
		free(buf);
		return CL_OUT_OF_HOST_MEMORY;
	}
	if (groups <= NVCL_PRINTF_SIZE)
		region = (uint32_t)(NVCL_PRINTF_SIZE / groups) & ~7U;
	addr = region ? (uint64_t)(uintptr_t)buf : 0;
	memcpy(param, call->param, l.param_size);
	memcpy(param, &addr, 8);
	memcpy(param + 8, &region, 4);
	l.param = nvsvm_ptr(param);
	err = nv_q_launch(q, &l);
	nv_printf_flush(&call->prog->bin, buf, region, region ? groups : 0);
	free(param);
	free(buf);
	return err;
}

cl_int nv_run_kcall(cl_command_queue q, struct nv_kcall *call)
{
	struct nvsvm_launch l = call->l;

	if (call->prog->bin.flags & NVCL_BIN_PRINTF)
		return run_printf(q, call);
	return nv_q_launch(q, &l);
}

/* The largest divisor of @n that is at most @max. */
static size_t divisor(size_t n, size_t max)
{
	size_t d;

	for (d = max < n ? max : n; d > 1; d--)
		if (n % d == 0)
			return d;
	return 1;
}

/*
 * The work-group size: @local as given (checked against the device, the
 * kernel and, for OpenCL C before 3.0, the global size), or one chosen.
 */
static cl_int pick_local(cl_kernel k, cl_uint dim, const size_t *global,
			 const size_t *local, uint64_t *out)
{
	const uint32_t *r = k->ck->reqd;
	size_t items = 1, left = kernel_wg_max(k);
	static const size_t max_dim[3] = { 1024, 1024, 64 };
	cl_uint i;

	for (i = 0; i < dim; i++) {
		if (local) {
			if (!local[i] || local[i] > max_dim[i])
				return CL_INVALID_WORK_ITEM_SIZE;
			if ((r[0] && local[i] != r[i]) ||
			    (!k->prog->nonuniform && global[i] % local[i]))
				return CL_INVALID_WORK_GROUP_SIZE;
			out[i] = local[i];
		} else if (r[0]) {
			if (!k->prog->nonuniform && global[i] % r[i])
				return CL_INVALID_WORK_GROUP_SIZE;
			out[i] = r[i];
		} else {
			/* 64 in the first dimension, what divides the rest. */
			size_t most = i || left < 64 ? left : 64;

			if (most > max_dim[i])
				most = max_dim[i];
			out[i] = divisor(global[i], most);
		}
		items *= out[i];
		left = kernel_wg_max(k) / items;
	}
	for (; r[0] && i < 3; i++)
		if (r[i] != 1)
			return CL_INVALID_WORK_GROUP_SIZE;
	if (items > kernel_wg_max(k))
		return CL_INVALID_WORK_GROUP_SIZE;
	return CL_SUCCESS;
}

static cl_int enqueue_compiled(struct nv_cmd *c, cl_kernel k, cl_uint dim,
			       const size_t *offset, const size_t *global,
			       const size_t *local, cl_event *event)
{
	const struct nvcl_kernel *ck = k->ck;
	struct nv_kcall *call;
	uint64_t lsize[3] = { 0 }, loc, off;
	cl_uint i, j;
	cl_int err;

	for (i = 0; i < dim; i++) {
		if (!global[i]) {
			/* OpenCL 2.1: nothing to run, only the event. */
			return nv_cmd_submit(c, CL_COMMAND_NDRANGE_KERNEL,
					     CL_FALSE, event);
		}
		if ((offset && offset[i] >= (1ULL << 48)) ||
		    global[i] >= (1ULL << 48) - (offset ? offset[i] : 0))
			return offset ? CL_INVALID_GLOBAL_OFFSET :
					CL_INVALID_GLOBAL_WORK_SIZE;
	}
	for (i = 0; i < ck->nargs; i++)
		if (!k->cargs[i].set)
			return CL_INVALID_KERNEL_ARGS;
	err = pick_local(k, dim, global, local, lsize);
	if (err)
		return err;
	loc = kernel_local(k);
	if (loc > NVSVM_LAUNCH_MAX_LOCAL)
		return CL_OUT_OF_RESOURCES;
	call = calloc(1, sizeof(*call));
	if (!call)
		return CL_OUT_OF_HOST_MEMORY;
	call->refs = 1;
	call->param = malloc(ck->param_size ? ck->param_size : 1);
	call->mems = calloc(ck->nargs ? ck->nargs : 1, sizeof(cl_mem));
	if (!call->param || !call->mems) {
		free(call->param);
		free(call->mems);
		free(call);
		return CL_OUT_OF_HOST_MEMORY;
	}
	memcpy(call->param, k->param, ck->param_size);
	/* The local arguments: addresses of the LOCAL window, in order. */
	off = k->prog->bin.local_static;
	for (i = 0; i < ck->nargs; i++) {
		uint64_t addr;

		if (ck->args[i].kind == NVCL_ARG_LOCAL) {
			off = local_arg_align(off);
			addr = NVSVM_GPU_LOCAL_BASE + off;
			memcpy(call->param + ck->args[i].offset, &addr, 8);
			off += k->cargs[i].local;
		} else if (k->cargs[i].mem) {
			call->mems[call->nmems++] = k->cargs[i].mem;
			nv_ref(k->cargs[i].mem);
		}
	}
	call->prog = k->prog;
	nv_ref(k->prog);
	call->l = (struct nvsvm_launch){
		.gpc = NVSVM_GPC_ALL,
		.image = nvsvm_ptr(k->prog->bin.image),
		.image_size = k->prog->bin.image_size,
		.entry = ck->entry,
		.param = nvsvm_ptr(call->param),
		.param_size = ck->param_size,
		.work_dim = dim,
		.local_mem = (uint32_t)loc,
		.priv_mem = k->prog->bin.stack,
		/*
		 * A GPU's compute has no watchdog, and no budget: a kernel
		 * runs until it ends (or the process is killed). Under TCG
		 * the model is a thousand times slower than the hardware:
		 * pyopencl's ranlux of 10^7 longs took more than the 600 s
		 * an ICD launch had until 2026-12-07.
		 */
		.timeout_ms = NVSVM_LAUNCH_NO_TIMEOUT,
		.insn_budget = NVSVM_LAUNCH_MAX_BUDGET,
	};
	for (j = 0; j < dim; j++) {
		call->l.global_offset[j] = offset ? offset[j] : 0;
		call->l.global_size[j] = global[j];
		call->l.local_size[j] = lsize[j];
	}
	c->kind = NV_CMD_KERNEL;
	c->u.kernel.bi = NULL;
	c->u.kernel.args = NULL;
	c->u.kernel.items = 0;
	c->u.kernel.call = call;
	err = nv_cmd_submit(c, CL_COMMAND_NDRANGE_KERNEL, CL_FALSE, event);
	nv_kcall_put(call);
	return err;
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
	if (!global && k->ck) {
		/* OpenCL 2.1: nothing to run, only the event. */
		return nv_cmd_submit(&c, CL_COMMAND_NDRANGE_KERNEL, CL_FALSE,
				     event);
	}
	if (!global)
		return CL_INVALID_GLOBAL_WORK_SIZE;
	if (k->ck)
		return enqueue_compiled(&c, k, dim, offset, global, local,
					event);
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
	c.u.kernel.call = NULL;
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
