// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnvsvm-cl: contexts (one nvsvm file and SVM area per device, the
 * unmanaged window and its buffers) and command queues (a channel each,
 * and nv_q_exec(), which runs EXEC programs on it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nvsvm-cl.h"

#define EXEC_TIMEOUT_MS	60000

/* The unmanaged window of each context: [WIN_BASE + k * WIN_SIZE, ...). */
#define WIN_BASE	(1ULL << 36)
#define WIN_SIZE	(1ULL << 26)
#define WIN_SLOTS	64

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

bool nv_in_window(cl_context ctx, const void *p)
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

bool nv_ctx_svm_atomics(cl_context ctx)
{
	cl_uint i;

	for (i = 0; i < ctx->ndevs; i++)
		if (!(nv_svm_caps(ctx->devs[i].dev) & CL_DEVICE_SVM_ATOMICS))
			return false;
	return true;
}

/*
 * Memory for clSVMAlloc or a buffer: window first, else mirrored; for
 * @atomics (CL_MEM_SVM_ATOMICS), mirrored unless the window has them.
 */
void *nv_mem_alloc(cl_context ctx, size_t len, size_t align,
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

void nv_mem_free(cl_context ctx, void *p, size_t len)
{
	if (nv_in_window(ctx, p))
		win_free(ctx, p);
	else
		munmap(p, len);
}

static void ctx_destroy(cl_context ctx)
{
	struct nv_ctx_destructor *d, *dnext;
	struct nv_svm_alloc *a, *next;
	struct nv_win_buf *b, *bnext;
	cl_uint i;

	/* In the reverse order of registration, before anything goes. */
	for (d = ctx->dtors; d; d = dnext) {
		dnext = d->next;
		d->fn(ctx, d->data);
		free(d);
	}

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
		if (!nv_in_window(ctx, a->ptr))
			munmap(a->ptr, a->size);
		free(a);
	}
	if (ctx->window)
		munmap(ctx->window, ctx->window_size);
	pthread_mutex_destroy(&ctx->lock);
	nv_obj_free(ctx);
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
		size_t k;

		switch (props[n]) {
		case CL_CONTEXT_PLATFORM:
			if ((cl_platform_id)props[n + 1] != &nv_platform)
				return CL_INVALID_PLATFORM;
			break;
		case CL_CONTEXT_INTEROP_USER_SYNC:
			/* A cl_bool. */
			if (props[n + 1] != CL_TRUE && props[n + 1] != CL_FALSE)
				return CL_INVALID_PROPERTY;
			break;
		default:
			return CL_INVALID_PROPERTY;
		}
		/* Each name once; there are two, so the list fits props. */
		for (k = 0; k < n; k += 2)
			if (ctx->props[k] == props[n])
				return CL_INVALID_PROPERTY;
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
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	if (ndevs > NV_MAX_DEVICES)
		return nv_fail(errcode_ret, CL_INVALID_DEVICE);
	for (i = 0; i < ndevs; i++) {
		if (!nv_valid(devs[i], NV_DEVICE))
			return nv_fail(errcode_ret, CL_INVALID_DEVICE);
		for (j = 0; j < i; j++)
			if (devs[j] == devs[i])
				return nv_fail(errcode_ret, CL_INVALID_DEVICE);
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(ctx, NV_CONTEXT);
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
			err = nv_errno_to_cl(ret);
			goto err;
		}
	}
	nv_set_err(errcode_ret, CL_SUCCESS);
	return ctx;
err:
	ctx_destroy(ctx);
	return nv_fail(errcode_ret, err);
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
		return nv_fail(errcode_ret, err);
	return nv_CreateContext(props, n, devs, notify, data, errcode_ret);
}

static cl_int nv_RetainContext(cl_context ctx)
{
	if (!nv_valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	nv_ref(ctx);
	return CL_SUCCESS;
}

cl_int nv_ReleaseContext(cl_context ctx)
{
	if (!nv_valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	if (nv_unref(ctx))
		ctx_destroy(ctx);
	return CL_SUCCESS;
}

static cl_int nv_SetContextDestructorCallback(cl_context ctx,
					     void (CL_CALLBACK *fn)(cl_context,
								    void *),
					     void *data)
{
	struct nv_ctx_destructor *d;

	if (!nv_valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	if (!fn)
		return CL_INVALID_VALUE;
	d = malloc(sizeof(*d));
	if (!d)
		return CL_OUT_OF_HOST_MEMORY;
	d->fn = fn;
	d->data = data;
	pthread_mutex_lock(&ctx->lock);
	d->next = ctx->dtors;
	ctx->dtors = d;
	pthread_mutex_unlock(&ctx->lock);
	return CL_SUCCESS;
}

static cl_int nv_GetContextInfo(cl_context ctx, cl_context_info param,
				size_t size, void *value, size_t *size_ret)
{
	cl_device_id devs[NV_MAX_DEVICES];
	cl_uint i;

	if (!nv_valid(ctx, NV_CONTEXT))
		return CL_INVALID_CONTEXT;
	switch (param) {
	case CL_CONTEXT_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)ctx->obj.refs);
	case CL_CONTEXT_NUM_DEVICES:
		PUT(cl_uint, ctx->ndevs);
	case CL_CONTEXT_DEVICES:
		for (i = 0; i < ctx->ndevs; i++)
			devs[i] = ctx->devs[i].dev;
		return nv_put(devs, ctx->ndevs * sizeof(devs[0]), size, value,
			      size_ret);
	case CL_CONTEXT_PROPERTIES:
		return nv_put(ctx->props, ctx->nprops * sizeof(ctx->props[0]),
			      size, value, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

struct nv_ctx_dev *nv_ctx_dev(cl_context ctx, cl_device_id d)
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

	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	if (!nv_valid(d, NV_DEVICE) || !nv_ctx_dev(ctx, d))
		return nv_fail(errcode_ret, CL_INVALID_DEVICE);
	if (props & ~(cl_command_queue_properties)
	    (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
	     CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
	     CL_QUEUE_ON_DEVICE_DEFAULT))
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	if (props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT))
		return nv_fail(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
	q = calloc(1, sizeof(*q));
	if (!q)
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(q, NV_QUEUE);
	q->ctx = ctx;
	q->cdev = nv_ctx_dev(ctx, d);
	q->props = props;
	pthread_mutex_init(&q->lock, NULL);
	/* A channel on the context's area: every CPU pointer is a GPU pointer. */
	ret = nvsvm_chan_create(q->cdev->fd, NVSVM_CHAN_JOIN_AREA, &q->chan);
	if (ret) {
		pthread_mutex_destroy(&q->lock);
		nv_obj_free(q);
		return nv_fail(errcode_ret, nv_errno_to_cl(ret));
	}
	nv_ref(ctx);
	nv_set_err(errcode_ret, CL_SUCCESS);
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
	cl_command_queue q;
	bool seen = false;
	size_t n;

	for (n = 0; props && props[n]; n += 2) {
		switch (props[n]) {
		case CL_QUEUE_PROPERTIES:
			if (seen)
				return nv_fail(errcode_ret, CL_INVALID_VALUE);
			seen = true;
			qp = props[n + 1];
			break;
		case CL_QUEUE_SIZE:
			return nv_fail(errcode_ret,
				       CL_INVALID_QUEUE_PROPERTIES);
		default:
			return nv_fail(errcode_ret, CL_INVALID_VALUE);
		}
	}
	q = queue_create(ctx, d, qp, errcode_ret);
	/* CL_QUEUE_PROPERTIES_ARRAY: the list as given (one name at most). */
	if (q && props) {
		memcpy(q->props_array, props, (n + 1) * sizeof(props[0]));
		q->nprops_array = n + 1;
	}
	return q;
}

static cl_int nv_RetainCommandQueue(cl_command_queue q)
{
	if (!nv_valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	nv_ref(q);
	return CL_SUCCESS;
}

cl_int nv_ReleaseCommandQueue(cl_command_queue q)
{
	cl_context ctx;

	if (!nv_valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!nv_unref(q))
		return CL_SUCCESS;
	ctx = q->ctx;
	if (q->chan)
		nvsvm_chan_destroy(q->cdev->fd, q->chan);
	pthread_mutex_destroy(&q->lock);
	nv_obj_free(q);
	return nv_ReleaseContext(ctx);
}

static cl_int nv_GetCommandQueueInfo(cl_command_queue q,
				     cl_command_queue_info param, size_t size,
				     void *value, size_t *size_ret)
{
	if (!nv_valid(q, NV_QUEUE))
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
		return nv_put(q->props_array,
			      q->nprops_array * sizeof(q->props_array[0]),
			      size, value, size_ret);
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
cl_int nv_q_exec(cl_command_queue q, struct nvsvm_op *ops, size_t n)
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
			err = nv_errno_to_cl(ret);
			goto out;
		}
	}
	while (done < n) {
		uint32_t chunk = n - done > NVSVM_EXEC_MAX_OPS ?
				 NVSVM_EXEC_MAX_OPS : (uint32_t)(n - done);

		ret = nvsvm_exec(q->cdev->fd, q->chan, NVSVM_GPC_ANY,
				 ops + done, chunk, EXEC_TIMEOUT_MS, &ex);
		if (ret) {
			err = nv_errno_to_cl(ret);
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

/*
 * Run the program @l describes (its handle is set here) on @q's channel:
 * CL_SUCCESS, or CL_OUT_OF_RESOURCES when the GPU cancelled an access, a
 * work-item trapped or the launch timed out (the channel is replaced, as
 * after a failed EXEC), or the ioctl's error.
 */
cl_int nv_q_launch(cl_command_queue q, struct nvsvm_launch *l)
{
	cl_int err = CL_SUCCESS;
	char msg[200];
	int ret;

	pthread_mutex_lock(&q->lock);
	if (!q->chan) {
		ret = nvsvm_chan_create(q->cdev->fd, NVSVM_CHAN_JOIN_AREA,
					&q->chan);
		if (ret) {
			q->chan = 0;
			err = nv_errno_to_cl(ret);
			goto out;
		}
	}
	l->handle = q->chan;
	ret = nvsvm_launch(q->cdev->fd, l);
	if (ret) {
		/* E2BIG: a work-group's state does not fit the device. */
		err = ret == -E2BIG ? CL_OUT_OF_RESOURCES : nv_errno_to_cl(ret);
		goto out;
	}
	if (l->status == NVSVM_EXEC_OK)
		goto out;
	if (l->status == NVSVM_EXEC_TRAP)
		snprintf(msg, sizeof(msg),
			 "nvsvm: kernel trapped: %s at pc 0x%llx (0x%llx)",
			 nvsvm_trap_name(l->trap),
			 (unsigned long long)l->fault_pc,
			 (unsigned long long)l->fault_addr);
	else
		snprintf(msg, sizeof(msg),
			 "nvsvm: kernel failed on the GPU: %s, %s access at 0x%llx, pc 0x%llx",
			 nvsvm_status_name(l->status),
			 nvsvm_access_name(l->fault_access),
			 (unsigned long long)l->fault_addr,
			 (unsigned long long)l->fault_pc);
	ctx_notify(q->ctx, msg);
	nvsvm_chan_destroy(q->cdev->fd, q->chan);
	q->chan = 0;
	err = CL_OUT_OF_RESOURCES;
out:
	pthread_mutex_unlock(&q->lock);
	return err;
}

/* The dispatch entries of this file's calls. */
void nv_context_dispatch(cl_icd_dispatch *t)
{
	t->clCreateContext = nv_CreateContext;
	t->clCreateContextFromType = nv_CreateContextFromType;
	t->clRetainContext = nv_RetainContext;
	t->clReleaseContext = nv_ReleaseContext;
	t->clGetContextInfo = nv_GetContextInfo;
	t->clSetContextDestructorCallback = nv_SetContextDestructorCallback;
	t->clCreateCommandQueue = nv_CreateCommandQueue;
	t->clCreateCommandQueueWithProperties =
		nv_CreateCommandQueueWithProperties;
	t->clRetainCommandQueue = nv_RetainCommandQueue;
	t->clReleaseCommandQueue = nv_ReleaseCommandQueue;
	t->clGetCommandQueueInfo = nv_GetCommandQueueInfo;
}
