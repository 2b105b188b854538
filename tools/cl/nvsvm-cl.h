/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libnvsvm-cl: an OpenCL installable client driver (cl_khr_icd) for nvsvm
 * GPUs with the virtual GP100's EXEC. Internal declarations shared by its
 * source files; nothing here is exported.
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

#define NV_MAX_DEVICES	8
#define NV_MAX_ARGS	6

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
	size_t size;
};

/* A buffer of the unmanaged window (BUF_ALLOC), kept sorted by address. */
struct nv_win_buf {
	struct nv_win_buf *next;
	uint64_t addr;
	uint64_t size;
	uint32_t handle;
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
};

struct nv_cmd;

struct _cl_command_queue {
	struct nv_obj obj;
	cl_context ctx;
	struct nv_ctx_dev *cdev;
	cl_command_queue_properties props;
	pthread_mutex_t lock;		/* chan */
	uint32_t chan;			/* 0: none (error state, re-created) */
	/* Under nvsvm-cl.c's nv_ev_lock: */
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
	int maps;
	struct nv_destructor *dtors;
};

struct _cl_program {
	struct nv_obj obj;
	cl_context ctx;
	bool builtin;
	char *names;			/* built-in kernels, ';' separated */
	char *source;			/* clCreateProgramWithSource */
	cl_build_status build;
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

struct _cl_kernel {
	struct nv_obj obj;
	cl_program prog;
	const struct nv_builtin *bi;
	struct nv_arg args[NV_MAX_ARGS];
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

#endif /* _NVSVM_CL_H */
