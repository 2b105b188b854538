// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnvsvm-cl: memory. SVM allocations (clSVMAlloc, clSVMFree) and their
 * commands, then buffers (cl_mem) and theirs; the GPU's copy and fill
 * and the migrations the commands run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nvsvm-cl.h"

/* ---- SVM ---- */

static void *nv_SVMAlloc(cl_context ctx, cl_svm_mem_flags flags, size_t size,
			 cl_uint alignment)
{
	cl_svm_mem_flags rw = flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
				       CL_MEM_READ_ONLY);
	struct nv_svm_alloc *a;
	size_t len;
	uint8_t *p;
	cl_uint i;

	if (!nv_valid(ctx, NV_CONTEXT) || !size || size > MAX_ALLOC)
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
		    !(nv_svm_caps(ctx->devs[i].dev) & CL_DEVICE_SVM_ATOMICS))
			return NULL;
	if (alignment & (alignment - 1))
		return NULL;
	len = (size + PAGE - 1) & ~(PAGE - 1);
	/*
	 * Without CL_MEM_SVM_ATOMICS a kernel's atomics are still atomic
	 * among the device's work-items: as for a buffer, where the device
	 * has them exact on private memory only (not on window buffers), the
	 * allocation is private memory.
	 */
	p = nv_mem_alloc(ctx, len, alignment,
			 (flags & CL_MEM_SVM_ATOMICS) || nv_ctx_svm_atomics(ctx));
	if (!p)
		return NULL;
	a = malloc(sizeof(*a));
	if (!a) {
		nv_mem_free(ctx, p, len);
		return NULL;
	}
	a->ptr = p;
	a->size = len;
	a->req = size;
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

void nv_SVMFree(cl_context ctx, void *ptr)
{
	struct nv_svm_alloc **pp, *a = NULL;

	if (!nv_valid(ctx, NV_CONTEXT) || !ptr)
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
		nv_mem_free(ctx, a->ptr, a->size);
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
	cl_int err = nv_cmd_begin(&c, q, nw, wl);
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
	return nv_cmd_submit(&c, CL_COMMAND_SVM_FREE, CL_FALSE, event);
}

/*
 * A copy on the GPU: COPY takes 8-byte aligned addresses and lengths; any
 * other copy is done by the host (fine-grained system SVM: both see the
 * same memory).
 */
cl_int nv_gpu_copy(cl_command_queue q, void *dst, const void *src,
		   size_t size)
{
	struct nvsvm_op op;

	if (!size)
		return CL_SUCCESS;
	if (!nv_aligned8((uintptr_t)dst) || !nv_aligned8((uintptr_t)src) ||
	    !nv_aligned8(size) || size > MAX_ALLOC) {
		memmove(dst, src, size);
		return CL_SUCCESS;
	}
	op = nvsvm_op_copy(nvsvm_ptr(dst), nvsvm_ptr(src), size);
	return nv_q_exec(q, &op, 1);
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
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	if (!dst || !src)
		return CL_INVALID_VALUE;
	if (overlap(dst, src, size))
		return CL_MEM_COPY_OVERLAP;
	cmd_copy(&c, dst, src, size);
	return nv_cmd_submit(&c, CL_COMMAND_SVM_MEMCPY, blocking, event);
}

/*
 * FILL writes one u64 pattern: a pattern of 1, 2, 4 or 8 bytes is
 * repeated to 8, and the aligned middle of the range is filled by the
 * GPU; the unaligned ends and longer patterns are written by the host.
 */
cl_int nv_gpu_fill(cl_command_queue q, void *ptr, const void *pattern,
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
	return nv_q_exec(q, &op, 1);
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
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	if (!fill_args_ok(ptr, pattern, psize, size))
		return CL_INVALID_VALUE;
	cmd_fill(&c, ptr, pattern, psize, size);
	return nv_cmd_submit(&c, CL_COMMAND_SVM_MEMFILL, CL_FALSE, event);
}

static cl_int nv_EnqueueSVMMap(cl_command_queue q, cl_bool blocking,
			       cl_map_flags flags, void *ptr, size_t size,
			       cl_uint nw, const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	(void)flags;
	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	return nv_cmd_submit(&c, CL_COMMAND_SVM_MAP, blocking, event);
}

static cl_int nv_EnqueueSVMUnmap(cl_command_queue q, void *ptr, cl_uint nw,
				 const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	if (!ptr)
		return CL_INVALID_VALUE;
	return nv_cmd_submit(&c, CL_COMMAND_SVM_UNMAP, CL_FALSE, event);
}

/*
 * clEnqueueSVMMigrateMem: MIGRATE the pages to VRAM, or back to system
 * memory with CL_MIGRATE_MEM_OBJECT_HOST. Migration is a hint: where the
 * module has no device memory (EOPNOTSUPP), a move to the device maps the
 * pages ahead of time with MAP instead, and a move to the host does
 * nothing (the pages are there). Window buffers (clSVMAlloc, buffers)
 * are driver memory, always mapped on the GPU: they stay where they are.
 */
void nv_migrate_one(cl_command_queue q, const void *ptr, size_t size,
		    bool to_host)
{
	uint64_t start = nvsvm_ptr(ptr) & ~(PAGE - 1);
	uint64_t end = (nvsvm_ptr(ptr) + size + PAGE - 1) & ~(PAGE - 1);
	int fd = q->cdev->fd;
	uint64_t moved = 0;
	int ret;

	if (nv_in_window(q->ctx, ptr))
		return;
	ret = nvsvm_migrate(fd, start, end - start,
			    to_host ? NVSVM_MIGRATE_TO_SYSMEM :
				      NVSVM_MIGRATE_TO_VRAM, &moved);
	if (ret == -EOPNOTSUPP && !to_host)
		nvsvm_map(fd, start, end - start,
			  NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, NULL);
}

/* Size 0: from @p to the end of its clSVMAlloc allocation (if still one). */
void nv_migrate_svm(cl_command_queue q, cl_uint n, const void **ptrs,
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
		nv_migrate_one(q, p, size, to_host);
	}
}

static cl_int nv_EnqueueSVMMigrateMem(cl_command_queue q, cl_uint n,
				      const void **ptrs, const size_t *sizes,
				      cl_mem_migration_flags flags, cl_uint nw,
				      const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);
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
	return nv_cmd_submit(&c, CL_COMMAND_SVM_MIGRATE_MEM, CL_FALSE, event);
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

	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	err = check_mem_flags(flags);
	if (err)
		return nv_fail(errcode_ret, err);
	if (!size || size > MAX_ALLOC)
		return nv_fail(errcode_ret, CL_INVALID_BUFFER_SIZE);
	if (!host_ptr != !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
		return nv_fail(errcode_ret, CL_INVALID_HOST_PTR);
	/* In a clSVMAlloc allocation: no further than the size it was given. */
	if (flags & CL_MEM_USE_HOST_PTR) {
		struct nv_svm_alloc *a = svm_find(ctx, host_ptr);

		if (a && (size_t)((uint8_t *)host_ptr - (uint8_t *)a->ptr) +
			 size > a->req)
			return nv_fail(errcode_ret, CL_INVALID_BUFFER_SIZE);
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(m, NV_MEM);
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
		/*
		 * Any buffer may see a kernel's atomics (core since OpenCL
		 * 1.1): where the device has them on private memory only
		 * (not on window buffers), the buffer is private memory.
		 */
		m->data = nv_mem_alloc(ctx, m->alloc, PAGE,
				       nv_ctx_svm_atomics(ctx));
		if (!m->data) {
			nv_obj_free(m);
			return nv_fail(errcode_ret,
				       CL_MEM_OBJECT_ALLOCATION_FAILURE);
		}
		if (flags & CL_MEM_COPY_HOST_PTR)
			memcpy(m->data, host_ptr, size);
	}
	nv_ref(ctx);
	nv_set_err(errcode_ret, CL_SUCCESS);
	return m;
}

static cl_mem nv_CreateBufferWithProperties(cl_context ctx,
					    const cl_mem_properties *props,
					    cl_mem_flags flags, size_t size,
					    void *host_ptr,
					    cl_int *errcode_ret)
{
	cl_mem m;

	if (props && props[0])
		return nv_fail(errcode_ret, CL_INVALID_PROPERTY);
	m = nv_CreateBuffer(ctx, flags, size, host_ptr, errcode_ret);
	/* CL_MEM_PROPERTIES gives back the (empty) list given. */
	if (m)
		m->has_props = props != NULL;
	return m;
}

static cl_int nv_RetainMemObject(cl_mem m)
{
	if (!nv_valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	nv_ref(m);
	return CL_SUCCESS;
}

cl_int nv_ReleaseMemObject(cl_mem m)
{
	struct nv_destructor *d, *next;
	cl_context ctx;

	if (!nv_valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	if (!nv_unref(m))
		return CL_SUCCESS;
	for (d = m->dtors; d; d = next) {
		next = d->next;
		d->fn(m, d->data);
		free(d);
	}
	if (m->alloc)
		nv_mem_free(m->ctx, m->data, m->alloc);
	if (m->parent)
		nv_ReleaseMemObject(m->parent);
	ctx = m->ctx;
	nv_obj_free(m);
	return nv_ReleaseContext(ctx);
}

/* CL_DEVICE_MEM_BASE_ADDR_ALIGN (1024 bits) in bytes: sub-buffer origins. */
#define SUBBUF_ALIGN	128

/* Whether the sub-buffer @flags conflict with its parent's @pflags. */
static bool subbuf_flags_conflict(cl_mem_flags pflags, cl_mem_flags flags)
{
	if ((pflags & CL_MEM_WRITE_ONLY) &&
	    (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
		return true;
	if ((pflags & CL_MEM_READ_ONLY) &&
	    (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
		return true;
	if ((pflags & CL_MEM_HOST_WRITE_ONLY) &&
	    (flags & CL_MEM_HOST_READ_ONLY))
		return true;
	if ((pflags & CL_MEM_HOST_READ_ONLY) &&
	    (flags & CL_MEM_HOST_WRITE_ONLY))
		return true;
	return (pflags & CL_MEM_HOST_NO_ACCESS) &&
	       (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY));
}

/*
 * clCreateSubBuffer: a region of a buffer, the same memory; it keeps its
 * parent (and so the memory) alive. What @flags leaves out (access, host
 * access) it inherits, and always the parent's USE/ALLOC/COPY_HOST_PTR.
 */
static cl_mem nv_CreateSubBuffer(cl_mem p, cl_mem_flags flags,
				 cl_buffer_create_type type, const void *info,
				 cl_int *errcode_ret)
{
	const cl_mem_flags rw = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
				CL_MEM_READ_ONLY;
	const cl_mem_flags host = CL_MEM_HOST_WRITE_ONLY |
				  CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
	const cl_mem_flags ptr = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR |
				 CL_MEM_COPY_HOST_PTR;
	const cl_buffer_region *r = info;
	cl_int err;
	cl_mem m;

	if (!nv_valid(p, NV_MEM) || p->parent)
		return nv_fail(errcode_ret, CL_INVALID_MEM_OBJECT);
	err = check_mem_flags(flags);
	if (err || (flags & ptr) || subbuf_flags_conflict(p->flags, flags))
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	if (type != CL_BUFFER_CREATE_TYPE_REGION || !r ||
	    r->origin > p->size || r->size > p->size - r->origin)
		return nv_fail(errcode_ret, CL_INVALID_VALUE);
	if (!r->size)
		return nv_fail(errcode_ret, CL_INVALID_BUFFER_SIZE);
	if (r->origin % SUBBUF_ALIGN)
		return nv_fail(errcode_ret, CL_MISALIGNED_SUB_BUFFER_OFFSET);
	m = calloc(1, sizeof(*m));
	if (!m)
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(m, NV_MEM);
	m->ctx = p->ctx;
	m->flags = (flags & rw ? flags & rw : p->flags & rw) |
		   (flags & host ? flags & host : p->flags & host) |
		   (p->flags & ptr);
	m->size = r->size;
	m->data = (uint8_t *)p->data + r->origin;
	if (p->host_ptr)
		m->host_ptr = (uint8_t *)p->host_ptr + r->origin;
	m->svm = p->svm;
	m->parent = p;
	m->offset = r->origin;
	nv_ref(p);
	nv_ref(m->ctx);
	nv_set_err(errcode_ret, CL_SUCCESS);
	return m;
}

static cl_int nv_SetMemObjectDestructorCallback(cl_mem m,
						void (CL_CALLBACK *fn)(cl_mem,
								       void *),
						void *data)
{
	struct nv_destructor *d;

	if (!nv_valid(m, NV_MEM))
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
	if (!nv_valid(m, NV_MEM))
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
		PUT(cl_mem, m->parent);
	case CL_MEM_OFFSET:
		PUT(size_t, m->offset);
	case CL_MEM_USES_SVM_POINTER:
		PUT(cl_bool, m->svm ? CL_TRUE : CL_FALSE);
	case CL_MEM_PROPERTIES: {
		static const cl_mem_properties none;

		return nv_put(&none, m->has_props ? sizeof(none) : 0, size,
			      value, size_ret);
	}
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int check_buffer(cl_command_queue q, cl_mem m, size_t off,
			   size_t size)
{
	if (!nv_valid(m, NV_MEM))
		return CL_INVALID_MEM_OBJECT;
	if (m->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	if (off > m->size || size > m->size - off)
		return CL_INVALID_VALUE;
	return CL_SUCCESS;
}

/* CL_MEM_HOST_*: whether the host may read, or write, @m. */
static bool host_reads(cl_mem m)
{
	return !(m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}

static bool host_writes(cl_mem m)
{
	return !(m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

static cl_int nv_EnqueueReadBuffer(cl_command_queue q, cl_mem m,
				   cl_bool blocking, size_t off, size_t size,
				   void *ptr, cl_uint nw, const cl_event *wl,
				   cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, m, off, size);
	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	if (!host_reads(m))
		return CL_INVALID_OPERATION;
	cmd_copy(&c, ptr, (uint8_t *)m->data + off, size);
	c.mems[0] = m;
	return nv_cmd_submit(&c, CL_COMMAND_READ_BUFFER, blocking, event);
}

static cl_int nv_EnqueueWriteBuffer(cl_command_queue q, cl_mem m,
				    cl_bool blocking, size_t off, size_t size,
				    const void *ptr, cl_uint nw,
				    const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, m, off, size);
	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	if (!host_writes(m))
		return CL_INVALID_OPERATION;
	cmd_copy(&c, (uint8_t *)m->data + off, ptr, size);
	c.mems[0] = m;
	return nv_cmd_submit(&c, CL_COMMAND_WRITE_BUFFER, blocking, event);
}

static cl_int nv_EnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
				   size_t soff, size_t doff, size_t size,
				   cl_uint nw, const cl_event *wl,
				   cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

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
	return nv_cmd_submit(&c, CL_COMMAND_COPY_BUFFER, CL_FALSE, event);
}

/* ---- Rectangles (clEnqueue{Read,Write,Copy}BufferRect) ---- */

/*
 * Check a rectangle's @origin and @region in a memory of @size bytes,
 * with the pitches @pitch (0: packed, set here); its byte offset in *@off.
 * CL_INVALID_VALUE for a bad one; no @size (the host's side): unbounded.
 */
static cl_int rect_check(const size_t *origin, const size_t *region,
			 size_t pitch[2], size_t size, size_t *off)
{
	size_t last;

	if (!origin || !region || !region[0] || !region[1] || !region[2])
		return CL_INVALID_VALUE;
	if (!pitch[0])
		pitch[0] = region[0];
	if (pitch[0] < region[0])
		return CL_INVALID_VALUE;
	if (region[1] > SIZE_MAX / pitch[0])
		return CL_INVALID_VALUE;
	if (!pitch[1])
		pitch[1] = region[1] * pitch[0];
	if (pitch[1] < region[1] * pitch[0] || pitch[1] % pitch[0])
		return CL_INVALID_VALUE;
	/* The offset of the first byte, then of the end of the last row. */
	if (origin[2] > SIZE_MAX / pitch[1] || origin[1] > SIZE_MAX / pitch[0])
		return CL_INVALID_VALUE;
	*off = origin[2] * pitch[1] + origin[1] * pitch[0] + origin[0];
	if (*off < origin[0] || region[2] - 1 > (SIZE_MAX - *off) / pitch[1])
		return CL_INVALID_VALUE;
	last = *off + (region[2] - 1) * pitch[1];
	if ((region[1] - 1) * pitch[0] > SIZE_MAX - last ||
	    region[0] > SIZE_MAX - last - (region[1] - 1) * pitch[0])
		return CL_INVALID_VALUE;
	last += (region[1] - 1) * pitch[0] + region[0];
	return size && last > size ? CL_INVALID_VALUE : CL_SUCCESS;
}

static void cmd_rect(struct nv_cmd *c, uint8_t *dst, const size_t dpitch[2],
		     const uint8_t *src, const size_t spitch[2],
		     const size_t region[3])
{
	c->kind = NV_CMD_RECT;
	c->u.rect.dst = dst;
	c->u.rect.src = src;
	memcpy(c->u.rect.region, region, sizeof(c->u.rect.region));
	memcpy(c->u.rect.dpitch, dpitch, sizeof(c->u.rect.dpitch));
	memcpy(c->u.rect.spitch, spitch, sizeof(c->u.rect.spitch));
}

/*
 * Whether the rows of two rectangles of one buffer, at @a and @b with the
 * same pitches, share a byte: each one's rows rise in address and do not
 * overlap one another, so one walk along both lists finds it.
 */
static bool rect_overlap(size_t a, size_t b, const size_t region[3],
			 const size_t pitch[2])
{
	size_t ia = 0, ib = 0, n = region[1] * region[2];

	while (ia < n && ib < n) {
		size_t ra = a + (ia / region[1]) * pitch[1] +
			    (ia % region[1]) * pitch[0];
		size_t rb = b + (ib / region[1]) * pitch[1] +
			    (ib % region[1]) * pitch[0];

		if (ra < rb + region[0] && rb < ra + region[0])
			return true;
		if (ra < rb)
			ia++;
		else
			ib++;
	}
	return false;
}

#define RECT_GPU_ROWS	65536

cl_int nv_gpu_copy_rect(cl_command_queue q, struct nv_cmd *c)
{
	const size_t *r = c->u.rect.region, *dp = c->u.rect.dpitch;
	const size_t *sp = c->u.rect.spitch;
	size_t rows = r[1] * r[2], i, n = 0;
	struct nvsvm_op *ops;
	/* At most RECT_GPU_ROWS operations (a program of 4096 at a time). */
	bool gpu = nv_aligned8(r[0]) && r[0] <= MAX_ALLOC &&
		   rows <= RECT_GPU_ROWS;
	cl_int err;

	for (i = 0; gpu && i < rows; i++) {
		size_t y = i % r[1], z = i / r[1];

		gpu = nv_aligned8((uintptr_t)(c->u.rect.dst + z * dp[1] +
					      y * dp[0])) &&
		      nv_aligned8((uintptr_t)(c->u.rect.src + z * sp[1] +
					      y * sp[0]));
	}
	ops = gpu ? calloc(rows, sizeof(*ops)) : NULL;
	/* Rows the GPU cannot copy (unaligned), or no memory: the host's. */
	for (i = 0; i < rows; i++) {
		size_t y = i % r[1], z = i / r[1];
		uint8_t *d = c->u.rect.dst + z * dp[1] + y * dp[0];
		const uint8_t *s = c->u.rect.src + z * sp[1] + y * sp[0];

		if (ops)
			ops[n++] = nvsvm_op_copy(nvsvm_ptr(d), nvsvm_ptr(s),
						 r[0]);
		else
			memmove(d, s, r[0]);
	}
	if (!ops)
		return CL_SUCCESS;
	err = nv_q_exec(q, ops, n);
	free(ops);
	return err;
}

/*
 * A rectangle between @m and the host's @ptr: @write from the host into
 * @m, else from @m to the host; @bp and @hp the pitches of each side.
 */
static cl_int host_rect(cl_command_queue q, cl_mem m, cl_bool blocking,
			bool write, const size_t *borigin, const size_t *horigin,
			const size_t *region, size_t bp[2], size_t hp[2],
			const void *ptr, cl_uint nw, const cl_event *wl,
			cl_event *event)
{
	uint8_t *buf, *host;
	size_t boff, hoff;
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, m, 0, 0);
	if (err)
		return err;
	if (!ptr || rect_check(borigin, region, bp, m->size, &boff) ||
	    rect_check(horigin, region, hp, 0, &hoff))
		return CL_INVALID_VALUE;
	if (write ? !host_writes(m) : !host_reads(m))
		return CL_INVALID_OPERATION;
	buf = (uint8_t *)m->data + boff;
	host = (uint8_t *)(uintptr_t)ptr + hoff;
	if (write)
		cmd_rect(&c, buf, bp, host, hp, region);
	else
		cmd_rect(&c, host, hp, buf, bp, region);
	c.mems[0] = m;
	return nv_cmd_submit(&c, write ? CL_COMMAND_WRITE_BUFFER_RECT :
				 CL_COMMAND_READ_BUFFER_RECT, blocking, event);
}

static cl_int nv_EnqueueReadBufferRect(cl_command_queue q, cl_mem m,
				       cl_bool blocking, const size_t *borigin,
				       const size_t *horigin,
				       const size_t *region, size_t brow,
				       size_t bslice, size_t hrow,
				       size_t hslice, void *ptr, cl_uint nw,
				       const cl_event *wl, cl_event *event)
{
	size_t bp[2] = { brow, bslice }, hp[2] = { hrow, hslice };

	return host_rect(q, m, blocking, false, borigin, horigin, region, bp,
			 hp, ptr, nw, wl, event);
}

static cl_int nv_EnqueueWriteBufferRect(cl_command_queue q, cl_mem m,
					cl_bool blocking,
					const size_t *borigin,
					const size_t *horigin,
					const size_t *region, size_t brow,
					size_t bslice, size_t hrow,
					size_t hslice, const void *ptr,
					cl_uint nw, const cl_event *wl,
					cl_event *event)
{
	size_t bp[2] = { brow, bslice }, hp[2] = { hrow, hslice };

	return host_rect(q, m, blocking, true, borigin, horigin, region, bp,
			 hp, ptr, nw, wl, event);
}

static cl_int nv_EnqueueCopyBufferRect(cl_command_queue q, cl_mem src,
				       cl_mem dst, const size_t *sorigin,
				       const size_t *dorigin,
				       const size_t *region, size_t srow,
				       size_t sslice, size_t drow,
				       size_t dslice, cl_uint nw,
				       const cl_event *wl, cl_event *event)
{
	size_t sp[2] = { srow, sslice }, dp[2] = { drow, dslice }, soff, doff;
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (err)
		return err;
	err = check_buffer(q, src, 0, 0);
	if (!err)
		err = check_buffer(q, dst, 0, 0);
	if (err)
		return err;
	if (rect_check(sorigin, region, sp, src->size, &soff) ||
	    rect_check(dorigin, region, dp, dst->size, &doff))
		return CL_INVALID_VALUE;
	if (src == dst) {
		/* One buffer: the same pitches, and rows apart. */
		if (sp[0] != dp[0] || sp[1] != dp[1])
			return CL_INVALID_VALUE;
		if (rect_overlap(soff, doff, region, sp))
			return CL_MEM_COPY_OVERLAP;
	}
	cmd_rect(&c, (uint8_t *)dst->data + doff, dp,
		 (uint8_t *)src->data + soff, sp, region);
	c.mems[0] = src;
	c.mems[1] = dst;
	return nv_cmd_submit(&c, CL_COMMAND_COPY_BUFFER_RECT, CL_FALSE, event);
}

static cl_int nv_EnqueueFillBuffer(cl_command_queue q, cl_mem m,
				   const void *pattern, size_t psize,
				   size_t off, size_t size, cl_uint nw,
				   const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

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
	return nv_cmd_submit(&c, CL_COMMAND_FILL_BUFFER, CL_FALSE, event);
}

static void *nv_EnqueueMapBuffer(cl_command_queue q, cl_mem m,
				 cl_bool blocking, cl_map_flags flags,
				 size_t off, size_t size, cl_uint nw,
				 const cl_event *wl, cl_event *event,
				 cl_int *errcode_ret)
{
	const cl_map_flags wr = CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

	if (!err)
		err = check_buffer(q, m, off, size);
	if (!err && (!size || (flags & ~(CL_MAP_READ | wr)) ||
		     ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
		      (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
		err = CL_INVALID_VALUE;
	if (!err && (((flags & CL_MAP_READ) && !host_reads(m)) ||
		     ((flags & wr) && !host_writes(m))))
		err = CL_INVALID_OPERATION;
	if (!err) {
		c.mems[0] = m;
		err = nv_cmd_submit(&c, CL_COMMAND_MAP_BUFFER, blocking, event);
	}
	if (err)
		return nv_fail(errcode_ret, err);
	__atomic_add_fetch(&m->maps, 1, __ATOMIC_RELAXED);
	nv_set_err(errcode_ret, CL_SUCCESS);
	return (uint8_t *)m->data + off;
}

static cl_int nv_EnqueueUnmapMemObject(cl_command_queue q, cl_mem m,
				       void *ptr, cl_uint nw,
				       const cl_event *wl, cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);

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
	return nv_cmd_submit(&c, CL_COMMAND_UNMAP_MEM_OBJECT, CL_FALSE, event);
}

static cl_int nv_EnqueueMigrateMemObjects(cl_command_queue q, cl_uint n,
					  const cl_mem *mems,
					  cl_mem_migration_flags flags,
					  cl_uint nw, const cl_event *wl,
					  cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, nw, wl);
	cl_uint i;

	if (err)
		return err;
	if (!n || !mems || flags & ~(cl_mem_migration_flags)
	    (CL_MIGRATE_MEM_OBJECT_HOST |
	     CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
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
	return nv_cmd_submit(&c, CL_COMMAND_MIGRATE_MEM_OBJECTS, CL_FALSE,
			     event);
}

/* The dispatch entries of this file's calls. */
void nv_memory_dispatch(cl_icd_dispatch *t)
{
	t->clCreateBuffer = nv_CreateBuffer;
	t->clCreateBufferWithProperties = nv_CreateBufferWithProperties;
	t->clRetainMemObject = nv_RetainMemObject;
	t->clReleaseMemObject = nv_ReleaseMemObject;
	t->clGetMemObjectInfo = nv_GetMemObjectInfo;
	t->clSetMemObjectDestructorCallback =
		nv_SetMemObjectDestructorCallback;
	t->clSVMAlloc = nv_SVMAlloc;
	t->clSVMFree = nv_SVMFree;
	t->clEnqueueReadBuffer = nv_EnqueueReadBuffer;
	t->clEnqueueWriteBuffer = nv_EnqueueWriteBuffer;
	t->clEnqueueCopyBuffer = nv_EnqueueCopyBuffer;
	t->clEnqueueReadBufferRect = nv_EnqueueReadBufferRect;
	t->clEnqueueWriteBufferRect = nv_EnqueueWriteBufferRect;
	t->clEnqueueCopyBufferRect = nv_EnqueueCopyBufferRect;
	t->clCreateSubBuffer = nv_CreateSubBuffer;
	t->clEnqueueFillBuffer = nv_EnqueueFillBuffer;
	t->clEnqueueMapBuffer = nv_EnqueueMapBuffer;
	t->clEnqueueUnmapMemObject = nv_EnqueueUnmapMemObject;
	t->clEnqueueMigrateMemObjects = nv_EnqueueMigrateMemObjects;
	t->clEnqueueSVMFree = nv_EnqueueSVMFree;
	t->clEnqueueSVMMemcpy = nv_EnqueueSVMMemcpy;
	t->clEnqueueSVMMemFill = nv_EnqueueSVMMemFill;
	t->clEnqueueSVMMap = nv_EnqueueSVMMap;
	t->clEnqueueSVMUnmap = nv_EnqueueSVMUnmap;
	t->clEnqueueSVMMigrateMem = nv_EnqueueSVMMigrateMem;
}
