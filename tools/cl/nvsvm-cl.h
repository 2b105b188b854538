/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libnvsvm-cl: an OpenCL installable client driver (cl_khr_icd) for nvsvm
 * GPUs with the virtual GP100's EXEC. Internal declarations shared by its
 * source files; nothing here is exported. The parts:
 *
 *   platform.c  the objects' helpers, platform and devices, what the device
 *               does not have, the dispatch table, the exported symbols
 *   context.c   contexts, the unmanaged window, command queues, nv_q_exec()
 *   memory.c    SVM allocations and buffers, and their commands
 *   program.c   programs (built-in kernels) and kernels, NDRange
 *   event.c     events, the command protocol (run or defer), markers,
 *               barriers, waits
 */
#ifndef _NVSVM_CL_H
#define _NVSVM_CL_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "libnvsvm.h"
#include "nvcl.h"

#define NV_MAX_DEVICES	8
#define NV_MAX_ARGS	6
#define NV_NBUILTINS	5		/* entries of nv_builtins[] */

#define PAGE		4096ULL
#define MAX_ALLOC	(1ULL << 30)	/* EXEC's largest FILL/COPY/SUM */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* What every object starts with: the loader reads the dispatch pointer. */
struct nv_obj {
	cl_icd_dispatch *dispatch;
	uint32_t magic;
	int refs;
};

enum nv_magic {
	NV_PLATFORM = 0x6e760001,
	NV_DEVICE,
	NV_CONTEXT,
	NV_QUEUE,
	NV_MEM,
	NV_PROGRAM,
	NV_KERNEL,
	NV_EVENT,
};

struct _cl_platform_id {
	struct nv_obj obj;
};

struct _cl_device_id {
	struct nv_obj obj;
	unsigned int index;		/* /dev/nvsvmN */
	struct nvsvm_get_info info;
	char name[64];
};

/* One device of a context: its own file, with its own SVM area. */
struct nv_ctx_dev {
	cl_device_id dev;
	int fd;
};

struct nv_svm_alloc {
	struct nv_svm_alloc *next;
	void *ptr;
	size_t size;			/* mapped: whole pages */
	size_t req;			/* the size clSVMAlloc was given */
};

/* A buffer of the unmanaged window (BUF_ALLOC), kept sorted by address. */
struct nv_win_buf {
	struct nv_win_buf *next;
	uint64_t addr;
	uint64_t size;
	uint32_t handle;
};

/* A clSetContextDestructorCallback. */
struct nv_ctx_destructor {
	struct nv_ctx_destructor *next;
	void (CL_CALLBACK *fn)(cl_context, void *);
	void *data;
};

struct _cl_context {
	struct nv_obj obj;
	cl_uint ndevs;
	struct nv_ctx_dev devs[NV_MAX_DEVICES];
	cl_context_properties props[8];
	size_t nprops;			/* entries of props, with the 0 */
	void *window;			/* the unmanaged window, PROT_NONE */
	uint64_t window_size;
	void (CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
	void *notify_data;
	pthread_mutex_t lock;		/* svm and win lists */
	struct nv_svm_alloc *svm;
	struct nv_win_buf *win;		/* window buffers, by address */
	struct nv_ctx_destructor *dtors;	/* the last registered first */
};

struct nv_cmd;

struct _cl_command_queue {
	struct nv_obj obj;
	cl_context ctx;
	struct nv_ctx_dev *cdev;
	cl_command_queue_properties props;
	/* clCreateCommandQueueWithProperties's list, with its 0; or none */
	cl_queue_properties props_array[5];
	size_t nprops_array;
	pthread_mutex_t lock;		/* chan */
	uint32_t chan;			/* 0: none (error state, re-created) */
	/* Under event.c's nv_ev_lock: */
	struct nv_cmd *head, *tail;	/* deferred commands, in order */
	cl_command_queue next_blocked;	/* in the list of queues with some */
	unsigned int active;		/* commands running at enqueue now */
	bool busy;			/* its head is running */
};

struct nv_destructor {
	struct nv_destructor *next;
	void (CL_CALLBACK *fn)(cl_mem, void *);
	void *data;
};

struct _cl_mem {
	struct nv_obj obj;
	cl_context ctx;
	cl_mem_flags flags;
	size_t size;
	void *host_ptr;			/* given by the user (USE_HOST_PTR) */
	void *data;			/* the storage */
	size_t alloc;			/* bytes mmap'd by us, 0 if not ours */
	bool svm;			/* data is an SVM pointer */
	bool has_props;			/* created with a properties list */
	int maps;
	struct nv_destructor *dtors;
	cl_mem parent;			/* a sub-buffer's (referenced) */
	size_t offset;			/* a sub-buffer's origin in parent */
};

struct _cl_program {
	struct nv_obj obj;
	cl_context ctx;
	bool builtin;
	char *names;			/* its kernels, ';' separated */
	char *source;			/* clCreateProgramWithSource */
	cl_build_status build;
	/* Compiled programs (compile.c), under lock: */
	pthread_mutex_t lock;
	char *options;			/* of the last build, compile or link */
	char *log;
	void *bin_data;			/* CL_PROGRAM_BINARIES */
	size_t bin_size;
	struct nvcl_bin bin;		/* bin_data parsed; type 0: none */
	bool nonuniform;		/* OpenCL C 3.0: non-uniform groups */
	bool no_arg_names;		/* built without -cl-kernel-arg-info */
	int kernels;			/* kernel objects alive */
};

enum nv_arg_kind { NV_ARG_PTR, NV_ARG_PTR_OPT, NV_ARG_ULONG, NV_ARG_UINT };

struct nv_arg_desc {
	enum nv_arg_kind kind;
	const char *name;
	const char *type;
};

struct nv_builtin {
	const char *name;
	bool per_item;			/* one operation per work-item */
	unsigned int nargs;
	struct nv_arg_desc args[NV_MAX_ARGS];
};

struct nv_arg {
	bool set;
	uint64_t value;			/* pointer or scalar */
	cl_mem mem;			/* the buffer, set with clSetKernelArg */
};

/* An argument of a compiled kernel: whether set, its buffer, local bytes. */
struct nv_karg {
	bool set;
	cl_mem mem;
	uint32_t local;
};

struct _cl_kernel {
	struct nv_obj obj;
	cl_program prog;
	const struct nv_builtin *bi;	/* NULL: a compiled kernel, ck */
	struct nv_arg args[NV_MAX_ARGS];
	const struct nvcl_kernel *ck;
	uint8_t *param;			/* ck's PARAM block */
	struct nv_karg *cargs;
};

/* One launch of a compiled kernel: what the command keeps. */
struct nv_kcall {
	int refs;
	cl_program prog;		/* retained: its image */
	struct nvsvm_launch l;
	uint8_t *param;
	cl_uint nmems;
	cl_mem *mems;			/* retained */
};

/* A clSetEventCallback not called yet. */
struct nv_event_cb {
	struct nv_event_cb *next;
	void (CL_CALLBACK *fn)(cl_event, cl_int, void *);
	void *data;
	cl_int type;			/* CL_SUBMITTED, CL_RUNNING, CL_COMPLETE */
};

struct _cl_event {
	struct nv_obj obj;
	cl_context ctx;
	cl_command_queue queue;		/* NULL for a user event */
	cl_command_type type;
	/* Under nv_ev_lock while the event is not final: */
	cl_int status;
	cl_ulong t_queued, t_submit, t_start, t_end;
	struct nv_event_cb *cbs;	/* in the order of registration */
};

enum nv_cmd_kind {
	NV_CMD_NONE,			/* markers, barriers, maps */
	NV_CMD_COPY,
	NV_CMD_FILL,
	NV_CMD_MIGRATE,			/* SVM pointers */
	NV_CMD_MIGRATE_MEMS,		/* buffers */
	NV_CMD_SVM_FREE,
	NV_CMD_KERNEL,
	NV_CMD_RECT,			/* clEnqueue*BufferRect */
};

#define NV_CMD_MEMS	2

/*
 * A command: filled by its enqueue function, then run by nv_cmd_submit()
 * or, deferred, kept (event.c's cmd_keep() makes the pointers its own)
 * until drain() runs it.
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
			const struct nv_builtin *bi;	/* or call */
			const struct nv_arg *args;
			size_t items;
			struct nv_kcall *call;
		} kernel;
		struct {
			uint8_t *dst;		/* at the origins */
			const uint8_t *src;
			size_t region[3];	/* bytes, rows, slices */
			size_t dpitch[2];	/* row, slice */
			size_t spitch[2];
		} rect;
	} u;
	/* Deferred: */
	struct nv_cmd *next;
	cl_event ev;
	void *own;			/* the copies of cmd_keep() */
};

/* The objects' helpers: the small ones here, the others in platform.c. */

/* Set *@errcode_ret when the caller asked for it. */
static inline void nv_set_err(cl_int *errcode_ret, cl_int err)
{
	if (errcode_ret)
		*errcode_ret = err;
}

/* nv_set_err() and NULL: a failed clCreate*. */
static inline void *nv_fail(cl_int *errcode_ret, cl_int err)
{
	nv_set_err(errcode_ret, err);
	return NULL;
}

/**
 * nv_put() - copy a query's answer out, the way every clGet*Info does
 * @src: the answer, @n bytes
 * @n: its size
 * @size: the caller's buffer size
 * @dst: the caller's buffer, or NULL for the size only
 * @size_ret: where the size goes, or NULL
 *
 * Return: CL_SUCCESS, or CL_INVALID_VALUE when @size is too small.
 */
cl_int nv_put(const void *src, size_t n, size_t size, void *dst,
	      size_t *size_ret);

/* PUT() and PUT_STR() return from a clGet*Info with the answer. */
#define PUT(type, v) do { type _v = (v); \
	return nv_put(&_v, sizeof(_v), size, value, size_ret); } while (0)
#define PUT_STR(s) return nv_put((s), strlen(s) + 1, size, value, size_ret)

/* Whether @o is a live object of type @magic (a handle to check). */
static inline bool nv_valid(const void *o, uint32_t magic)
{
	const struct nv_obj *obj = o;

	return obj && obj->magic == magic && obj->refs > 0;
}

/* Take a reference on the object @o. */
static inline void nv_ref(void *o)
{
	__atomic_add_fetch(&((struct nv_obj *)o)->refs, 1, __ATOMIC_RELAXED);
}

/* Drop a reference; true when it was the last. */
static inline bool nv_unref(void *o)
{
	return __atomic_sub_fetch(&((struct nv_obj *)o)->refs, 1,
				  __ATOMIC_ACQ_REL) == 0;
}

/* Whether @v is a multiple of 8 (EXEC's addresses and lengths). */
static inline bool nv_aligned8(uint64_t v)
{
	return (v & 7) == 0;
}

/* CLOCK_MONOTONIC in nanoseconds: the events' profiling times. */
cl_ulong nv_now_ns(void);
/* A new object's header: the dispatch table, @magic, one reference. */
void nv_obj_init(void *o, uint32_t magic);
/* Free an object (its magic cleared first: stale handles are invalid). */
void nv_obj_free(void *o);
/* The OpenCL error for libnvsvm's negative errno @err. */
cl_int nv_errno_to_cl(int err);

/* platform.c: the platform and devices */

extern struct _cl_platform_id nv_platform;
/* clGetDeviceIDs: the devices of @type (probed once). */
cl_int nv_GetDeviceIDs(cl_platform_id platform, cl_device_type type,
		       cl_uint num_entries, cl_device_id *devices,
		       cl_uint *num_devices);
/* CL_DEVICE_SVM_CAPABILITIES of @d. */
cl_device_svm_capabilities nv_svm_caps(cl_device_id d);

/* context.c */

/*
 * Memory for clSVMAlloc or a buffer: a window buffer, else mirrored
 * anonymous memory; for @atomics, mirrored unless the window has them.
 * NULL when there is none.
 */
void *nv_mem_alloc(cl_context ctx, size_t len, size_t align, bool atomics);
/* Whether every device of @ctx has CL_DEVICE_SVM_ATOMICS. */
bool nv_ctx_svm_atomics(cl_context ctx);
/* Give back nv_mem_alloc()'s @p of @len bytes. */
void nv_mem_free(cl_context ctx, void *p, size_t len);
/* Whether @p is in @ctx's unmanaged window (a window buffer). */
bool nv_in_window(cl_context ctx, const void *p);
/* @ctx's device @d (its file), or NULL if @d is not one of @ctx's. */
struct nv_ctx_dev *nv_ctx_dev(cl_context ctx, cl_device_id d);
/*
 * Run @n EXEC operations on @q's channel: CL_SUCCESS, or the error of a
 * command the GPU failed (CL_OUT_OF_RESOURCES for a cancelled access).
 */
cl_int nv_q_exec(cl_command_queue q, struct nvsvm_op *ops, size_t n);
/* Run the program @l on @q's channel (see nv_q_exec() for the errors). */
cl_int nv_q_launch(cl_command_queue q, struct nvsvm_launch *l);
/* clReleaseContext and clReleaseCommandQueue. */
cl_int nv_ReleaseContext(cl_context ctx);
cl_int nv_ReleaseCommandQueue(cl_command_queue q);

/* event.c: the command protocol (see event.c) */

/*
 * Start the command @c on @q with the wait list @list of @n events:
 * CL_SUCCESS, or the error of the queue or the wait list.
 */
cl_int nv_cmd_begin(struct nv_cmd *c, cl_command_queue q, cl_uint n,
		    const cl_event *list);
/*
 * Run @c (described by the caller) now, or defer it when it has to wait;
 * @blocking: return once it is done, with its status if that is an
 * error. Sets *@event when @event is not NULL.
 */
cl_int nv_cmd_submit(struct nv_cmd *c, cl_command_type type,
		     cl_bool blocking, cl_event *event);
/* clReleaseEvent. */
cl_int nv_ReleaseEvent(cl_event ev);

/* memory.c: what the commands run */

/* clSVMFree. */
void nv_SVMFree(cl_context ctx, void *ptr);
/* clReleaseMemObject. */
cl_int nv_ReleaseMemObject(cl_mem m);
/* Copy @size bytes from @src to @dst: the GPU's COPY, or the host's. */
cl_int nv_gpu_copy(cl_command_queue q, void *dst, const void *src,
		   size_t size);
/*
 * Fill @size bytes at @ptr with the @psize-byte @pattern: the GPU's FILL
 * for the 8-byte aligned middle, the host for the ends or a longer pattern.
 */
cl_int nv_gpu_fill(cl_command_queue q, void *ptr, const void *pattern,
		   size_t psize, size_t size);
/* Copy the rectangle of an NV_CMD_RECT command: the GPU's, or the host's. */
cl_int nv_gpu_copy_rect(cl_command_queue q, struct nv_cmd *c);
/* Migrate the pages of [@ptr, @ptr + @size) to VRAM, or @to_host back. */
void nv_migrate_one(cl_command_queue q, const void *ptr, size_t size,
		    bool to_host);
/* The same for @n SVM pointers (size 0: to the end of its allocation). */
void nv_migrate_svm(cl_command_queue q, cl_uint n, const void **ptrs,
		    const size_t *sizes, bool to_host);

/* program.c */

/*
 * Bytes of the PARAM window the compiler keeps for itself: in a program
 * that calls printf, the printf buffer's address and region (nvcl.h).
 */
#define NV_PARAM_RESERVED	NVCL_PRINTF_PARAM

/* The built-in kernels, and their names ';'-separated. */
extern const struct nv_builtin nv_builtins[NV_NBUILTINS];
extern const char nv_builtin_names[];
/* Whether clBuildProgram can compile (CL_DEVICE_COMPILER_AVAILABLE). */
bool nv_compiler_available(void);
/* Run a compiled kernel's launch; take and drop a reference on it. */
cl_int nv_run_kcall(cl_command_queue q, struct nv_kcall *call);
void nv_kcall_get(struct nv_kcall *call);
void nv_kcall_put(struct nv_kcall *call);
/* Run the built-in @bi with arguments @a over @items work-items on @q. */
cl_int nv_run_builtin(cl_command_queue q, const struct nv_builtin *bi,
		      const struct nv_arg *a, size_t items);

/* printf.c */

/**
 * nv_printf_flush() - write a launch's printf records to stdout
 * @b: the program: its image holds the formats
 * @buf: the launch's printf buffer
 * @region: bytes of each work-group's region of @buf
 * @groups: work-groups of the launch (@groups * @region within @buf)
 */
void nv_printf_flush(const struct nvcl_bin *b, const uint8_t *buf,
		     uint32_t region, uint64_t groups);

/* The dispatch entries of each file's calls (platform.c fills the rest). */
void nv_context_dispatch(cl_icd_dispatch *t);
void nv_memory_dispatch(cl_icd_dispatch *t);
void nv_program_dispatch(cl_icd_dispatch *t);
void nv_event_dispatch(cl_icd_dispatch *t);

#endif /* _NVSVM_CL_H */
