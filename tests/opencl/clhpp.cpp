// SPDX-License-Identifier: GPL-2.0
/*
 * clhpp: the ICD (tools/cl/, libnvsvm-cl) through the Khronos C++ bindings
 * (Debian's opencl-clhpp-headers, CL/opencl.hpp), a third-party client of
 * issue 35: OpenCL 3.0 bindings with exceptions, dynamically linked with
 * ocl-icd's libOpenCL like the other tests/opencl programs.
 *
 * The info cases run every query the bindings wrap for a platform, device,
 * context, queue, buffer, program (and its build), kernel (work-group and
 * argument info), event and its profiling: the bindings' own list
 * (CL_HPP_PARAM_NAME_INFO_*), each through the typed getInfo and through
 * the C call, whose size must be the type's (a scalar's size, a whole
 * number of elements, a string with exactly one terminating NUL). Then the
 * bindings' ways to run things, each checked on the data: cl::Program from
 * source with its build log, cl::KernelFunctor with cl::EnqueueArgs,
 * cl::Buffer with reads, writes and maps, cl::Event's wait and profiling,
 * and SVM: cl::SVMAllocator (coarse and fine), coarse_svm_vector and
 * fine_svm_vector with cl::mapSVM/unmapSVM, and a kernel on plain malloc'd
 * memory (fine-grain system SVM: setArg(pointer) is
 * clSetKernelArgSVMPointer).
 *
 * KTAP output; exits 4 (skip) without /etc/OpenCL/vendors/nvsvm.icd. On
 * another platform (the host's pocl, a reference): CLHPP_PLATFORM=NAME
 * (a part of the platform's name).
 */
#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 300
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#define ICD_FILE "/etc/OpenCL/vendors/nvsvm.icd"

static const char *source = R"CL(
__kernel void saxpy(__global float *y, __global const float *x, float a)
{
	size_t i = get_global_id(0);

	y[i] = a * x[i] + y[i] * SCALE;
}

__kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void add_one(__global volatile int *restrict p, __local int *tmp)
{
	size_t i = get_global_id(0);

	tmp[get_local_id(0)] = p[i] + 1;
	barrier(CLK_LOCAL_MEM_FENCE);
	p[i] = tmp[get_local_id(0)];
}
)CL";

#define BUILD_OPTIONS "-DSCALE=2 -cl-kernel-arg-info"

/* What every case works with, set up once. */
struct env {
	cl::Platform platform;
	cl::Device dev;
	cl::Context ctx;
	cl::CommandQueue q;	/* in order, profiling */
	bool nvsvm;
	bool compiler;
	cl_device_svm_capabilities svm;
	cl::Program prog;	/* source, built with BUILD_OPTIONS */
};

/* One case's verdict: failures are counted and printed as they happen. */
struct result {
	int failed = 0;
	std::string skip;
};

#define CHECK(r, cond, ...)						\
	do {								\
		if (!(cond)) {						\
			(r).failed++;					\
			printf("# %s:%d: %s: ", __func__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

/* The element of what a C query returns, for a bindings' type. */
template <typename T, typename = void>
struct elem { static constexpr size_t size = sizeof(T); };
template <typename T>	/* cl::Device and the other wrappers: a handle */
struct elem<T, std::void_t<typename T::cl_type>> {
	static constexpr size_t size = sizeof(typename T::cl_type);
};
template <>		/* CL_PROGRAM_BINARIES: an array of pointers */
struct elem<cl::vector<unsigned char>> {
	static constexpr size_t size = sizeof(unsigned char *);
};

template <typename T> struct is_vec : std::false_type {};
template <typename E> struct is_vec<cl::vector<E>> : std::true_type {};

using raw_fn = std::function<cl_int(size_t, void *, size_t *)>;

/*
 * check_info: query @name through the C call @raw (size, then value) and
 * the bindings' @typed; the size must be the type's and the two values
 * agree. An error in @ok (CL_SUCCESS otherwise) is accepted from both.
 */
template <typename F>
static void check_info(result &r, int &n, const char *name, raw_fn raw,
		       F typed, cl_int ok = CL_SUCCESS)
{
	using T = decltype(typed());
	size_t size = 0;
	cl_int err = raw(0, nullptr, &size);

	n++;
	if (err != CL_SUCCESS) {
		CHECK(r, err == ok, "%s: size query: error %d", name, err);
		try {
			typed();
			CHECK(r, 0, "%s: typed query succeeded, the C one did not", name);
		} catch (cl::Error &e) {
			CHECK(r, e.err() == err, "%s: typed query: error %d, C query %d",
			      name, e.err(), err);
		}
		return;
	}
	std::vector<unsigned char> buf(size + 16, 0xa5);
	size_t got = size;

	/* CL_PROGRAM_BINARIES writes where its pointers point: typed only. */
	if constexpr (!std::is_same<T, cl::vector<cl::vector<unsigned char>>>::value)
		err = raw(size, buf.data(), &got);
	CHECK(r, err == CL_SUCCESS && got == size, "%s: value query: error %d, size %zu of %zu",
	      name, err, got, size);
	T v;

	try {
		v = typed();
	} catch (cl::Error &e) {
		CHECK(r, 0, "%s: typed query: %s error %d", name, e.what(), e.err());
		return;
	}
	CHECK(r, buf[size] == 0xa5, "%s: wrote past the %zu bytes it reported", name, size);
	if constexpr (std::is_same<T, std::string>::value) {
		CHECK(r, size >= 1 && buf[size - 1] == 0, "%s: %zu bytes, no NUL at the end", name, size);
		CHECK(r, size >= 1 && strlen((char *)buf.data()) == size - 1,
		      "%s: %zu bytes for a string of %zu", name, size, strlen((char *)buf.data()));
		CHECK(r, v == (char *)buf.data(), "%s: typed \"%s\", C \"%s\"", name, v.c_str(),
		      (char *)buf.data());
	} else if constexpr (is_vec<T>::value) {
		size_t e = elem<typename T::value_type>::size;

		CHECK(r, size % e == 0, "%s: %zu bytes, not a multiple of %zu", name, size, e);
		CHECK(r, v.size() == size / e, "%s: typed %zu elements, C %zu bytes", name,
		      v.size(), size);
	} else {
		CHECK(r, size == elem<T>::size, "%s: %zu bytes, the type has %zu", name, size,
		      elem<T>::size);
		if constexpr (std::is_trivially_copyable<T>::value)
			CHECK(r, size != sizeof(T) || !memcmp(&v, buf.data(), size),
			      "%s: typed and C values differ", name);
	}
}

/* The bindings' lists of queries, by kind; the others expand to nothing. */
#define CLHPP_INFO_LISTS(F)					\
	CL_HPP_PARAM_NAME_INFO_1_0_(F)				\
	CL_HPP_PARAM_NAME_INFO_1_1_(F)				\
	CL_HPP_PARAM_NAME_INFO_1_2_(F)				\
	CL_HPP_PARAM_NAME_INFO_2_0_(F)				\
	CL_HPP_PARAM_NAME_INFO_2_1_(F)				\
	CL_HPP_PARAM_NAME_INFO_2_2_(F)				\
	CL_HPP_PARAM_NAME_INFO_3_0_(F)

#define Q_cl_image_info(name, str)
#define Q_cl_sampler_info(name, str)
#define Q_cl_pipe_info(name, str)
#define Q_cl_kernel_exec_info(name, str)
#define Q_cl_kernel_sub_group_info(name, str)
#define Q_cl_platform_info(name, str)
#define Q_cl_device_info(name, str)
#define Q_cl_context_info(name, str)
#define Q_cl_command_queue_info(name, str)
#define Q_cl_mem_info(name, str)
#define Q_cl_program_info(name, str)
#define Q_cl_program_build_info(name, str)
#define Q_cl_kernel_info(name, str)
#define Q_cl_kernel_work_group_info(name, str)
#define Q_cl_kernel_arg_info(name, str)
#define Q_cl_event_info(name, str)
#define Q_cl_profiling_info(name, str)
#define QUERY(token, name, T) Q_##token(name, #name)

/* A query of OBJ (a cl:: object) through CALL (the C function). */
#define Q_OBJ(name, str, OBJ, CALL, ...)					\
	check_info(r, n, str,						\
		   [&](size_t s, void *v, size_t *ret) {		\
			   return CALL((OBJ)(), name, s, v, ret);	\
		   },							\
		   [&]() { return (OBJ).getInfo<name>(); }, ##__VA_ARGS__);

static void report(int num, const char *name, const result &r, int n)
{
	if (n)
		printf("# %s: %d queries\n", name, n);
	if (!r.skip.empty())
		printf("ok %d %s # SKIP %s\n", num, name, r.skip.c_str());
	else
		printf("%sok %d %s\n", r.failed ? "not " : "", num, name);
}

static void platform_info(env &e, result &r, int &n)
{
#undef Q_cl_platform_info
#define Q_cl_platform_info(name, str) Q_OBJ(name, str, e.platform, clGetPlatformInfo)
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_platform_info
#define Q_cl_platform_info(name, str)
	cl::vector<cl_name_version> ext =
		e.platform.getInfo<CL_PLATFORM_EXTENSIONS_WITH_VERSION>();
	std::string exts = " " + e.platform.getInfo<CL_PLATFORM_EXTENSIONS>() + " ";

	for (auto &x : ext)
		CHECK(r, exts.find(std::string(" ") + x.name + " ") != std::string::npos,
		      "%s with a version, not in CL_PLATFORM_EXTENSIONS", x.name);
	CHECK(r, e.platform.getInfo<CL_PLATFORM_PROFILE>() == "FULL_PROFILE" || !e.nvsvm,
	      "profile");
}

static void device_info(env &e, result &r, int &n)
{
#undef Q_cl_device_info
#define Q_cl_device_info(name, str) Q_OBJ(name, str, e.dev, clGetDeviceInfo)
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_device_info
#define Q_cl_device_info(name, str)
	CHECK(r, e.dev.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>().size() ==
		 e.dev.getInfo<CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS>(), "work-item sizes");
	CHECK(r, e.dev.getInfo<CL_DEVICE_PLATFORM>() == e.platform(), "platform");
	std::string exts = " " + e.dev.getInfo<CL_DEVICE_EXTENSIONS>() + " ";

	for (auto &x : e.dev.getInfo<CL_DEVICE_EXTENSIONS_WITH_VERSION>())
		CHECK(r, exts.find(std::string(" ") + x.name + " ") != std::string::npos,
		      "%s with a version, not in CL_DEVICE_EXTENSIONS", x.name);
	CHECK(r, !e.dev.getInfo<CL_DEVICE_OPENCL_C_ALL_VERSIONS>().empty(), "C versions");
	if (e.nvsvm) {
		CHECK(r, e.dev.getInfo<CL_DEVICE_TYPE>() == CL_DEVICE_TYPE_GPU, "type");
		CHECK(r, e.dev.getInfo<CL_DEVICE_SVM_CAPABILITIES>() &
			 CL_DEVICE_SVM_FINE_GRAIN_SYSTEM, "fine-grain system SVM");
	}
}

static void context_info(env &e, result &r, int &n)
{
#undef Q_cl_context_info
#define Q_cl_context_info(name, str) Q_OBJ(name, str, e.ctx, clGetContextInfo)
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_context_info
#define Q_cl_context_info(name, str)
	auto devs = e.ctx.getInfo<CL_CONTEXT_DEVICES>();

	CHECK(r, devs.size() == 1 && devs[0]() == e.dev(), "devices");
	CHECK(r, e.ctx.getInfo<CL_CONTEXT_NUM_DEVICES>() == 1, "number of devices");
	/* Made with the platform: the list given, 0-terminated. */
	auto got = e.ctx.getInfo<CL_CONTEXT_PROPERTIES>();

	CHECK(r, got.size() == 3 && got[0] == CL_CONTEXT_PLATFORM &&
		 got[1] == (cl_context_properties)e.platform() && !got[2],
	      "CL_CONTEXT_PROPERTIES: %zu values", got.size());
	/* Made without: none (pocl 3.1 crashes on that query). */
	if (e.nvsvm) {
		cl::Context c(e.dev);

		CHECK(r, c.getInfo<CL_CONTEXT_PROPERTIES>().empty(), "properties of a context without");
	}
}

static void queue_info(env &e, result &r, int &n)
{
#undef Q_cl_command_queue_info
#define Q_cl_command_queue_info(name, str)					\
	Q_OBJ(name, str, e.q, clGetCommandQueueInfo,				\
	      name == CL_QUEUE_SIZE ? CL_INVALID_COMMAND_QUEUE : CL_SUCCESS)
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_command_queue_info
#define Q_cl_command_queue_info(name, str)
	auto props = e.q.getInfo<CL_QUEUE_PROPERTIES_ARRAY>();

	CHECK(r, props.size() == 3 && props[0] == CL_QUEUE_PROPERTIES &&
		 props[1] == CL_QUEUE_PROFILING_ENABLE && !props[2],
	      "CL_QUEUE_PROPERTIES_ARRAY: %zu values", props.size());
	CHECK(r, e.q.getInfo<CL_QUEUE_PROPERTIES>() == CL_QUEUE_PROFILING_ENABLE, "properties");
	CHECK(r, e.q.getInfo<CL_QUEUE_DEVICE>()() == e.dev(), "device");
}

static void mem_info(env &e, result &r, int &n)
{
	std::vector<float> host(256, 1.0f);
	cl::Buffer buf(e.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
		       host.size() * sizeof(float), host.data());
	cl_buffer_region region = { 128, 256 };
	cl::Buffer sub = buf.createSubBuffer(CL_MEM_READ_ONLY,
					     CL_BUFFER_CREATE_TYPE_REGION, &region);

#undef Q_cl_mem_info
#define Q_cl_mem_info(name, str)						\
	Q_OBJ(name, str, buf, clGetMemObjectInfo)				\
	Q_OBJ(name, str, sub, clGetMemObjectInfo)
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_mem_info
#define Q_cl_mem_info(name, str)
	CHECK(r, buf.getInfo<CL_MEM_SIZE>() == 1024, "size");
	CHECK(r, buf.getInfo<CL_MEM_HOST_PTR>() == host.data(), "host pointer");
	CHECK(r, sub.getInfo<CL_MEM_SIZE>() == 256 && sub.getInfo<CL_MEM_OFFSET>() == 128,
	      "sub-buffer's region");
	CHECK(r, sub.getInfo<CL_MEM_ASSOCIATED_MEMOBJECT>()() == buf(), "sub-buffer's parent");
	CHECK(r, sub.getInfo<CL_MEM_HOST_PTR>() == (char *)host.data() + 128,
	      "sub-buffer's host pointer");
	CHECK(r, buf.getInfo<CL_MEM_CONTEXT>()() == e.ctx(), "context");
	CHECK(r, buf.getInfo<CL_MEM_PROPERTIES>().empty(), "no properties");
}

static void program_info(env &e, result &r, int &n)
{
	if (!e.compiler) {
		r.skip = "no compiler";
		return;
	}
	cl::Program &p = e.prog;

#undef Q_cl_program_info
#define Q_cl_program_info(name, str) Q_OBJ(name, str, p, clGetProgramInfo)
#undef Q_cl_program_build_info
#define Q_cl_program_build_info(name, str)					\
	check_info(r, n, str,						\
		   [&](size_t s, void *v, size_t *ret) {		\
			   return clGetProgramBuildInfo(p(), e.dev(), name, s, v, ret); \
		   },							\
		   [&]() { return p.getBuildInfo<name>(e.dev); });
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_program_info
#define Q_cl_program_info(name, str)
#undef Q_cl_program_build_info
#define Q_cl_program_build_info(name, str)
	CHECK(r, p.getInfo<CL_PROGRAM_SOURCE>() == source, "source");
	CHECK(r, p.getInfo<CL_PROGRAM_NUM_KERNELS>() == 2, "kernels");
	std::string names = p.getInfo<CL_PROGRAM_KERNEL_NAMES>();

	CHECK(r, names == "saxpy;add_one" || names == "add_one;saxpy", "names: %s", names.c_str());
	auto sizes = p.getInfo<CL_PROGRAM_BINARY_SIZES>();
	auto bins = p.getInfo<CL_PROGRAM_BINARIES>();

	CHECK(r, sizes.size() == 1 && bins.size() == 1 && sizes[0] > 0 &&
		 bins[0].size() == sizes[0], "binaries");
	CHECK(r, p.getBuildInfo<CL_PROGRAM_BUILD_STATUS>(e.dev) == CL_BUILD_SUCCESS, "status");
	CHECK(r, p.getBuildInfo<CL_PROGRAM_BUILD_OPTIONS>(e.dev) == BUILD_OPTIONS, "options");
	CHECK(r, p.getBuildInfo<CL_PROGRAM_BINARY_TYPE>(e.dev) ==
		 CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type");
	/* A program made from that binary runs the same kernels. */
	cl::Program::Binaries b = bins;
	std::vector<cl_int> status;
	cl::Program pb(e.ctx, { e.dev }, b, &status);

	pb.build({ e.dev });
	CHECK(r, status.size() == 1 && status[0] == CL_SUCCESS, "binary status");
	CHECK(r, pb.getInfo<CL_PROGRAM_NUM_KERNELS>() == 2, "kernels from the binary");
	/* A build that fails: cl::BuildError carries the log. */
	cl::Program bad(e.ctx, std::string("__kernel void k(__global int *p) { p[0] = q; }"));
	try {
		bad.build({ e.dev });
		CHECK(r, 0, "a bad program built");
	} catch (cl::BuildError &be) {
		auto logs = be.getBuildLog();

		CHECK(r, be.err() == CL_BUILD_PROGRAM_FAILURE, "error %d", be.err());
		CHECK(r, logs.size() == 1 && logs[0].second.find("q") != std::string::npos,
		      "build log names the undeclared identifier");
	}
	CHECK(r, bad.getBuildInfo<CL_PROGRAM_BUILD_STATUS>(e.dev) == CL_BUILD_ERROR,
	      "bad status");
	CHECK(r, bad.getBuildInfo<CL_PROGRAM_BUILD_LOG>(e.dev).find("error") != std::string::npos,
	      "bad log: %s", bad.getBuildInfo<CL_PROGRAM_BUILD_LOG>(e.dev).c_str());
}

static void kernel_info(env &e, result &r, int &n)
{
	if (!e.compiler) {
		r.skip = "no compiler";
		return;
	}
	cl::Kernel k(e.prog, "add_one");
	cl_uint arg = 0;

#undef Q_cl_kernel_info
#define Q_cl_kernel_info(name, str) Q_OBJ(name, str, k, clGetKernelInfo)
#undef Q_cl_kernel_work_group_info
#define Q_cl_kernel_work_group_info(name, str)				\
	check_info(r, n, str,						\
		   [&](size_t s, void *v, size_t *ret) {		\
			   return clGetKernelWorkGroupInfo(k(), e.dev(), name, s, v, ret); \
		   },							\
		   [&]() { return k.getWorkGroupInfo<name>(e.dev); },	\
		   name == CL_KERNEL_GLOBAL_WORK_SIZE ? CL_INVALID_VALUE : CL_SUCCESS);
#undef Q_cl_kernel_arg_info
#define Q_cl_kernel_arg_info(name, str)					\
	for (arg = 0; arg < 2; arg++)					\
		check_info(r, n, str,					\
			   [&](size_t s, void *v, size_t *ret) {	\
				   return clGetKernelArgInfo(k(), arg, name, s, v, ret); \
			   },						\
			   [&]() { return k.getArgInfo<name>(arg); });
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_kernel_info
#define Q_cl_kernel_info(name, str)
#undef Q_cl_kernel_work_group_info
#define Q_cl_kernel_work_group_info(name, str)
#undef Q_cl_kernel_arg_info
#define Q_cl_kernel_arg_info(name, str)
	CHECK(r, k.getInfo<CL_KERNEL_FUNCTION_NAME>() == "add_one", "name");
	CHECK(r, k.getInfo<CL_KERNEL_NUM_ARGS>() == 2, "arguments");
	CHECK(r, k.getInfo<CL_KERNEL_PROGRAM>()() == e.prog(), "program");
	std::string attrs = k.getInfo<CL_KERNEL_ATTRIBUTES>(), a;

	for (char c : attrs)
		if (c != ' ')
			a += c;
	CHECK(r, a.find("reqd_work_group_size(4,1,1)") != std::string::npos, "attributes: %s",
	      attrs.c_str());
	auto wg = k.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE>(e.dev);

	CHECK(r, wg[0] == 4 && wg[1] == 1 && wg[2] == 1, "reqd_work_group_size");
	CHECK(r, k.getArgInfo<CL_KERNEL_ARG_NAME>(0) == "p" &&
		 k.getArgInfo<CL_KERNEL_ARG_NAME>(1) == "tmp", "argument names");
	CHECK(r, k.getArgInfo<CL_KERNEL_ARG_TYPE_NAME>(0) == "int*", "type: %s",
	      k.getArgInfo<CL_KERNEL_ARG_TYPE_NAME>(0).c_str());
	CHECK(r, k.getArgInfo<CL_KERNEL_ARG_ADDRESS_QUALIFIER>(0) ==
		 CL_KERNEL_ARG_ADDRESS_GLOBAL &&
		 k.getArgInfo<CL_KERNEL_ARG_ADDRESS_QUALIFIER>(1) ==
		 CL_KERNEL_ARG_ADDRESS_LOCAL, "address qualifiers");
	CHECK(r, k.getArgInfo<CL_KERNEL_ARG_TYPE_QUALIFIER>(0) ==
		 (CL_KERNEL_ARG_TYPE_VOLATILE | CL_KERNEL_ARG_TYPE_RESTRICT), "type qualifiers");
	/* A built-in kernel has a global work size (nvsvm's). */
	if (e.nvsvm) {
		cl::Program bi(clCreateProgramWithBuiltInKernels(e.ctx(), 1, &e.dev(),
								 "nvsvm_fill", nullptr));
		cl::Kernel f(bi, "nvsvm_fill");
		auto gws = f.getWorkGroupInfo<CL_KERNEL_GLOBAL_WORK_SIZE>(e.dev);

		CHECK(r, gws[0] >= 1, "built-in's global work size");
	}
}

static void event_info(env &e, result &r, int &n)
{
	std::vector<int> host(1 << 16, 7);
	cl::Buffer buf(e.ctx, CL_MEM_READ_WRITE, host.size() * sizeof(int));
	cl::Event ev;

	e.q.enqueueWriteBuffer(buf, CL_FALSE, 0, host.size() * sizeof(int), host.data(),
			       nullptr, &ev);
	ev.wait();
#undef Q_cl_event_info
#define Q_cl_event_info(name, str) Q_OBJ(name, str, ev, clGetEventInfo)
#undef Q_cl_profiling_info
#define Q_cl_profiling_info(name, str)					\
	check_info(r, n, str,						\
		   [&](size_t s, void *v, size_t *ret) {		\
			   return clGetEventProfilingInfo(ev(), name, s, v, ret); \
		   },							\
		   [&]() { return ev.getProfilingInfo<name>(); });
	CLHPP_INFO_LISTS(QUERY)
#undef Q_cl_event_info
#define Q_cl_event_info(name, str)
#undef Q_cl_profiling_info
#define Q_cl_profiling_info(name, str)
	CHECK(r, ev.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE, "status");
	CHECK(r, ev.getInfo<CL_EVENT_COMMAND_TYPE>() == CL_COMMAND_WRITE_BUFFER, "type");
	CHECK(r, ev.getInfo<CL_EVENT_COMMAND_QUEUE>()() == e.q(), "queue");
	cl_ulong t[5] = {
		ev.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(),
		ev.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>(),
		ev.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
		ev.getProfilingInfo<CL_PROFILING_COMMAND_END>(),
		ev.getProfilingInfo<CL_PROFILING_COMMAND_COMPLETE>(),
	};

	for (int i = 1; i < 5; i++)
		CHECK(r, t[i - 1] <= t[i], "profiling times out of order at %d", i);
	CHECK(r, t[0] > 0, "times");
	/* A user event holds a read back: cl::UserEvent, waitForEvents. */
	cl::UserEvent ue(e.ctx);
	std::vector<cl::Event> deps = { ue };
	std::vector<int> back(host.size(), 0);
	cl::Event rd;

	e.q.enqueueReadBuffer(buf, CL_FALSE, 0, back.size() * sizeof(int), back.data(),
			      &deps, &rd);
	CHECK(r, rd.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() > CL_RUNNING,
	      "ran before its user event");
	CHECK(r, back[0] == 0, "read before its user event");
	ue.setStatus(CL_COMPLETE);
	cl::Event::waitForEvents({ rd });
	CHECK(r, back == host, "read back");
}

static void kernel_functor(env &e, result &r, int &)
{
	if (!e.compiler) {
		r.skip = "no compiler";
		return;
	}
	const size_t nel = 1000;
	std::vector<float> x(nel), y(nel), want(nel);

	for (size_t i = 0; i < nel; i++) {
		x[i] = (float)i;
		y[i] = (float)(nel - i);
		want[i] = 3.0f * x[i] + y[i] * 2;
	}
	cl::Buffer bx(e.ctx, x.begin(), x.end(), true);
	cl::Buffer by(e.ctx, y.begin(), y.end(), false);
	cl::KernelFunctor<cl::Buffer, cl::Buffer, float> saxpy(e.prog, "saxpy");
	cl::Event ev = saxpy(cl::EnqueueArgs(e.q, cl::NDRange(nel)), by, bx, 3.0f);

	ev.wait();
	CHECK(r, ev.getInfo<CL_EVENT_COMMAND_TYPE>() == CL_COMMAND_NDRANGE_KERNEL, "type");
	CHECK(r, ev.getProfilingInfo<CL_PROFILING_COMMAND_END>() >=
		 ev.getProfilingInfo<CL_PROFILING_COMMAND_START>(), "times");
	cl::copy(e.q, by, y.begin(), y.end());
	CHECK(r, y == want, "saxpy: y[1] %g, want %g", y[1], want[1]);
	/* __local arguments, a required group size, a global offset. */
	std::vector<int> v(64);

	for (size_t i = 0; i < v.size(); i++)
		v[i] = (int)(i * 3);
	cl::Buffer bv(e.ctx, v.begin(), v.end(), false);
	cl::KernelFunctor<cl::Buffer, cl::LocalSpaceArg> add_one(e.prog, "add_one");

	add_one(cl::EnqueueArgs(e.q, cl::NDRange(8), cl::NDRange(32), cl::NDRange(4)), bv,
		cl::Local(4 * sizeof(int))).wait();
	cl::copy(e.q, bv, v.begin(), v.end());
	for (size_t i = 0; i < v.size(); i++)
		CHECK(r, v[i] == (int)(i * 3) + (i >= 8 && i < 40), "v[%zu] %d", i, v[i]);
}

static void buffers(env &e, result &r, int &)
{
	const size_t nel = 4096;
	std::vector<uint32_t> a(nel), b(nel, 0);

	for (size_t i = 0; i < nel; i++)
		a[i] = (uint32_t)(i * 2654435761u);
	cl::Buffer buf(e.ctx, CL_MEM_READ_WRITE, nel * 4);
	cl::Buffer dst(e.ctx, CL_MEM_READ_WRITE, nel * 4);

	e.q.enqueueWriteBuffer(buf, CL_TRUE, 0, nel * 4, a.data());
	e.q.enqueueCopyBuffer(buf, dst, 0, 0, nel * 4);
	e.q.enqueueReadBuffer(dst, CL_TRUE, 0, nel * 4, b.data());
	CHECK(r, a == b, "write, copy, read");
	/* A mapped write, seen by a read at an offset. */
	cl::Event ev;
	uint32_t *m = (uint32_t *)e.q.enqueueMapBuffer(buf, CL_TRUE, CL_MAP_WRITE, 64, 256,
						       nullptr, &ev);
	for (int i = 0; i < 64; i++)
		m[i] = 0xc0de0000u + i;
	CHECK(r, buf.getInfo<CL_MEM_MAP_COUNT>() == 1, "map count");
	e.q.enqueueUnmapMemObject(buf, m);
	uint32_t back[64];

	e.q.enqueueReadBuffer(buf, CL_TRUE, 64, sizeof(back), back);
	for (int i = 0; i < 64; i++)
		CHECK(r, back[i] == 0xc0de0000u + i, "mapped write %d: %x", i, back[i]);
	e.q.enqueueReadBuffer(buf, CL_TRUE, 0, 64, back);
	CHECK(r, !memcmp(back, a.data(), 64), "bytes before the map");
	e.q.enqueueFillBuffer(dst, (uint32_t)0x5a5a5a5a, 16, 32);
	e.q.enqueueReadBuffer(dst, CL_TRUE, 0, 64, back);
	for (int i = 0; i < 16; i++)
		CHECK(r, back[i] == (i >= 4 && i < 12 ? 0x5a5a5a5au : a[i]), "fill %d", i);
}

/* A kernel of @e.prog over an int array @p of @nel: adds one to each. */
template <typename P>
static void add_one(env &e, P &&p, size_t nel)
{
	cl::Kernel k(e.prog, "add_one");

	k.setArg(0, p);
	k.setArg(1, cl::Local(4 * sizeof(int)));
	e.q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(nel), cl::NDRange(4));
	e.q.finish();
}

static void svm_coarse(env &e, result &r, int &)
{
	if (!e.compiler || !(e.svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
		r.skip = e.compiler ? "no coarse-grain SVM" : "no compiler";
		return;
	}
	cl::SVMAllocator<int, cl::SVMTraitCoarse<>> alloc(e.ctx);
	/* Made mapped (the allocator maps it on the default queue). */
	cl::coarse_svm_vector<int> v(256, 5, alloc);

	for (size_t i = 0; i < v.size(); i++)
		v[i] = (int)i;
	cl::unmapSVM(v);
	add_one(e, v, v.size());
	cl::mapSVM(v);
	for (size_t i = 0; i < v.size(); i++)
		CHECK(r, v[i] == (int)i + 1, "v[%zu] %d", i, v[i]);
	cl::unmapSVM(v);
	/* allocate_svm: a cl::pointer, setArg(cl::pointer). */
	auto four = cl::allocate_svm<std::array<int, 4>, cl::SVMTraitCoarse<>>(e.ctx);

	*four = { 41, 1, 2, 3 };
	e.q.enqueueUnmapSVM(four.get());
	add_one(e, four, 4);
	e.q.enqueueMapSVM(four.get(), CL_TRUE, CL_MAP_READ, sizeof(*four));
	CHECK(r, (*four)[0] == 42 && (*four)[3] == 4, "allocate_svm: %d %d", (*four)[0], (*four)[3]);
	e.q.enqueueUnmapSVM(four.get());
	e.q.finish();
}

static void svm_fine(env &e, result &r, int &)
{
	if (!e.compiler || !(e.svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER)) {
		r.skip = e.compiler ? "no fine-grain buffer SVM" : "no compiler";
		return;
	}
	cl::SVMAllocator<int, cl::SVMTraitFine<>> alloc(e.ctx);
	cl::fine_svm_vector<int> v(512, 9, alloc);

	for (size_t i = 0; i < v.size(); i++)
		v[i] = (int)(i ^ 0x55);
	add_one(e, v, v.size());
	for (size_t i = 0; i < v.size(); i++)
		CHECK(r, v[i] == (int)(i ^ 0x55) + 1, "v[%zu] %d", i, v[i]);
	/* Still the host's: written again, run again, no map. */
	v[100] = -7;
	add_one(e, v, v.size());
	CHECK(r, v[100] == -6 && v[101] == (101 ^ 0x55) + 2, "again: %d %d", v[100], v[101]);
}

static void svm_system(env &e, result &r, int &)
{
	if (!e.compiler || !(e.svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)) {
		r.skip = e.compiler ? "no fine-grain system SVM" : "no compiler";
		return;
	}
	const size_t nel = 1024;
	int *p = (int *)malloc(nel * sizeof(int));
	std::vector<int> on_stack(8, 100);

	for (size_t i = 0; i < nel; i++)
		p[i] = (int)(i * 7);
	add_one(e, p, nel);	/* setArg(int *): clSetKernelArgSVMPointer */
	for (size_t i = 0; i < nel; i++)
		CHECK(r, p[i] == (int)(i * 7) + 1, "p[%zu] %d", i, p[i]);
	/* An offset into it, and a std::vector's own storage. */
	add_one(e, p + 4, 8);
	CHECK(r, p[3] == 22 && p[4] == 30 && p[11] == 79 && p[12] == 85, "offset: %d %d %d %d",
	      p[3], p[4], p[11], p[12]);
	add_one(e, on_stack.data(), on_stack.size());
	CHECK(r, on_stack == std::vector<int>(8, 101), "std::vector's data");
	/* KernelFunctor with a raw pointer argument. */
	cl::KernelFunctor<int *, cl::LocalSpaceArg> f(e.prog, "add_one");

	f(cl::EnqueueArgs(e.q, cl::NDRange(4), cl::NDRange(4)), p, cl::Local(16)).wait();
	CHECK(r, p[0] == 2 && p[3] == 23 && p[4] == 30, "functor: %d %d %d", p[0], p[3], p[4]);
	free(p);
}

/*
 * A header of the application's own directory (-I DIR): in the test VM
 * the compiler runs on the host, which must get the files (before the
 * fix, the build failed there: "'clhpp-inc.h' file not found"), and
 * a header beside the one that includes it (its first fix missed those).
 */
static void include_dir(env &e, result &r, int &)
{
	if (!e.compiler) {
		r.skip = "no compiler";
		return;
	}
	char dir[] = "/tmp/clhpp-XXXXXX";

	if (!mkdtemp(dir)) {
		CHECK(r, 0, "mkdtemp");
		return;
	}
	/* sub/clhpp-inc.h includes "clhpp-inc2.h", beside it in sub/. */
	std::string d = dir, sub = d + "/sub", h1 = sub + "/clhpp-inc.h", h2 = sub + "/clhpp-inc2.h";

	mkdir(sub.c_str(), 0700);
	FILE *f = fopen(h1.c_str(), "w");

	if (f) {
		fputs("#include \"clhpp-inc2.h\"\n#define INC_VALUE 1234\n", f);
		fclose(f);
	}
	f = fopen(h2.c_str(), "w");
	if (f) {
		fputs("#define INC_TWICE(x) ((x) * 2)\n", f);
		fclose(f);
	}
	cl::Program p(e.ctx, std::string("#include <sub/clhpp-inc.h>\n"
			"__kernel void k(__global int *p) { p[0] = INC_TWICE(INC_VALUE); }\n"));

	try {
		p.build({ e.dev }, ("-I " + d).c_str());
		std::vector<int> v(1, 0);
		cl::Buffer b(e.ctx, v.begin(), v.end(), false);
		cl::KernelFunctor<cl::Buffer> k(p, "k");

		k(cl::EnqueueArgs(e.q, cl::NDRange(1)), b).wait();
		cl::copy(e.q, b, v.begin(), v.end());
		CHECK(r, v[0] == 2468, "the headers' value: %d", v[0]);
	} catch (cl::BuildError &be) {
		for (auto &l : be.getBuildLog())
			printf("# build log: %s\n", l.second.c_str());
		CHECK(r, 0, "build with -I %s", dir);
	}
	unlink(h1.c_str());
	unlink(h2.c_str());
	rmdir(sub.c_str());
	rmdir(dir);
}

/*
 * A struct copied by value: the back end makes a large copy a call of
 * memcpy (pyopencl's ranluxcl state). Before the fix the build failed:
 * "ld.lld-14: error: undefined symbol: memcpy".
 */
static void struct_copy(env &e, result &r, int &)
{
	if (!e.compiler) {
		r.skip = "no compiler";
		return;
	}
	cl::Program p(e.ctx, std::string(
		"typedef struct { int v[64]; } big;\n"
		"__kernel void bigcopy(__global const big *in, __global big *out, int n)\n"
		"{\n"
		"	big b = in[get_global_id(0)];\n"
		"\n"
		"	for (int i = 0; i < n; i++)\n"
		"		b.v[(i * 7) & 63] += i;\n"
		"	out[get_global_id(0)] = b;\n"
		"}\n"));

	try {
		p.build({ e.dev });
	} catch (cl::BuildError &be) {
		for (auto &l : be.getBuildLog())
			printf("# build log: %s\n", l.second.c_str());
		CHECK(r, 0, "a struct copy's build");
		return;
	}
	std::vector<int> in(4 * 64), out(4 * 64, -1);

	for (size_t i = 0; i < in.size(); i++)
		in[i] = (int)(i * 3 + 1);
	cl::Buffer bi(e.ctx, in.begin(), in.end(), true);
	cl::Buffer bo(e.ctx, out.begin(), out.end(), false);
	cl::KernelFunctor<cl::Buffer, cl::Buffer, int> k(p, "bigcopy");

	k(cl::EnqueueArgs(e.q, cl::NDRange(4)), bi, bo, 64).wait();
	cl::copy(e.q, bo, out.begin(), out.end());
	for (size_t g = 0; g < 4; g++)
		for (int i = 0; i < 64; i++) {
			size_t j = g * 64 + ((i * 7) & 63);

			CHECK(r, out[j] == in[j] + i, "out[%zu] %d, want %d", j, out[j], in[j] + i);
		}
}

static bool setup(env &e)
{
	const char *want = getenv("CLHPP_PLATFORM");
	std::vector<cl::Platform> ps;

	cl::Platform::get(&ps);
	for (auto &p : ps) {
		std::string name = p.getInfo<CL_PLATFORM_NAME>();

		if (want ? name.find(want) != std::string::npos : name == "nvsvm") {
			e.platform = p;
			break;
		}
	}
	if (!e.platform()) {
		printf("# no platform %s\n", want ? want : "nvsvm");
		return false;
	}
	e.nvsvm = e.platform.getInfo<CL_PLATFORM_NAME>() == "nvsvm";
	std::vector<cl::Device> devs;

	e.platform.getDevices(CL_DEVICE_TYPE_ALL, &devs);
	e.dev = devs.at(0);
	cl_context_properties props[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)e.platform(), 0
	};

	e.ctx = cl::Context(e.dev, props);
	e.q = cl::CommandQueue(e.ctx, e.dev, CL_QUEUE_PROFILING_ENABLE);
	/* What the SVM allocators and cl::mapSVM use. */
	cl::Platform::setDefault(e.platform);
	cl::Device::setDefault(e.dev);
	cl::Context::setDefault(e.ctx);
	cl::CommandQueue::setDefault(e.q);
	e.compiler = e.dev.getInfo<CL_DEVICE_COMPILER_AVAILABLE>();
	e.svm = e.dev.getInfo<CL_DEVICE_SVM_CAPABILITIES>();
	printf("# %s: %s, %s\n", e.platform.getInfo<CL_PLATFORM_NAME>().c_str(),
	       e.dev.getInfo<CL_DEVICE_NAME>().c_str(), e.dev.getInfo<CL_DEVICE_VERSION>().c_str());
	if (e.compiler) {
		e.prog = cl::Program(e.ctx, std::string(source));
		try {
			e.prog.build({ e.dev }, BUILD_OPTIONS);
		} catch (cl::BuildError &be) {
			for (auto &l : be.getBuildLog())
				printf("# build log: %s\n", l.second.c_str());
			throw;
		}
	}
	return true;
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(env &, result &, int &);
	} cases[] = {
		{ "platform_info", platform_info },
		{ "device_info", device_info },
		{ "context_info", context_info },
		{ "queue_info", queue_info },
		{ "mem_info", mem_info },
		{ "program_info", program_info },
		{ "kernel_info", kernel_info },
		{ "event_info", event_info },
		{ "kernel_functor", kernel_functor },
		{ "buffers", buffers },
		{ "svm_coarse", svm_coarse },
		{ "svm_fine", svm_fine },
		{ "svm_system", svm_system },
		{ "include_dir", include_dir },
		{ "struct_copy", struct_copy },
	};
	const int ncases = sizeof(cases) / sizeof(cases[0]);
	int failed = 0;
	env e;

	setvbuf(stdout, nullptr, _IOLBF, 0);
	printf("TAP version 13\n");
	if (!getenv("CLHPP_PLATFORM") && access(ICD_FILE, R_OK)) {
		printf("1..0 # SKIP no %s\n", ICD_FILE);
		return 4;
	}
	printf("1..%d\n", ncases);
	try {
		if (!setup(e)) {
			for (int i = 0; i < ncases; i++)
				printf("not ok %d %s # no device\n", i + 1, cases[i].name);
			return 1;
		}
	} catch (cl::Error &err) {
		printf("# setup: %s: error %d\n", err.what(), err.err());
		for (int i = 0; i < ncases; i++)
			printf("not ok %d %s # setup failed\n", i + 1, cases[i].name);
		return 1;
	}
	for (int i = 0; i < ncases; i++) {
		result r;
		int n = 0;

		try {
			cases[i].fn(e, r, n);
		} catch (cl::Error &err) {
			printf("# %s: %s: error %d\n", cases[i].name, err.what(), err.err());
			r.failed++;
		} catch (std::exception &x) {
			printf("# %s: %s\n", cases[i].name, x.what());
			r.failed++;
		}
		report(i + 1, cases[i].name, r, n);
		failed += r.failed > 0;
	}
	printf("# Totals: pass:%d fail:%d\n", ncases - failed, failed);
	return failed ? 1 : 0;
}
