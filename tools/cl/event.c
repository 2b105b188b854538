// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnvsvm-cl: events, and the command protocol every enqueue goes
 * through (nv_cmd_begin(), nv_cmd_submit()): commands run at enqueue or,
 * when they have to wait for a user event, are deferred and run by
 * drain(); markers, barriers, clFlush, clFinish and the waits.
 */
#include <stdlib.h>
#include <string.h>

#include "nvsvm-cl.h"

/* ---- Events, and commands that wait for them ---- */

/*
 * A command runs when it is enqueued, on the calling thread, unless it
 * has to wait: for an event of its wait list that is not complete (a
 * user event not set yet, or a command deferred itself), or for a
 * command deferred earlier on its queue. Then it is deferred: the
 * enqueue copies what the command needs (struct nv_cmd, its wait list,
 * fill pattern, pointer arrays, kernel arguments), retains the events
 * and buffers it uses, appends it to its queue and returns its event in
 * CL_QUEUED. drain() runs deferred commands that became ready, in each
 * queue's order, on the thread that made them ready: the one that called
 * clSetUserEventStatus, or the one whose command, run at enqueue, was the
 * last a queue's head waited for. A waiting thread (blocking enqueue,
 * clFinish, clWaitForEvents) only sleeps on nv_ev_cond.
 *
 * nv_ev_lock, one for the process, covers what can change after an
 * enqueue returns: the status and callbacks of events that are not final
 * (user events, deferred commands) and every queue's deferred list,
 * active count and busy flag. Commands and callbacks run without it.
 */
static pthread_mutex_t nv_ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nv_ev_cond = PTHREAD_COND_INITIALIZER;
static cl_command_queue nv_blocked;	/* queues with deferred commands */

static cl_int cmd_run(struct nv_cmd *c);

static cl_int check_wait_list(cl_command_queue q, cl_uint n,
			      const cl_event *list)
{
	cl_uint i;

	if ((n == 0) != (list == NULL))
		return CL_INVALID_EVENT_WAIT_LIST;
	for (i = 0; i < n; i++) {
		if (!nv_valid(list[i], NV_EVENT))
			return CL_INVALID_EVENT_WAIT_LIST;
		if (list[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	return CL_SUCCESS;
}

/*
 * The command protocol: nv_cmd_begin() checks the queue and the wait list;
 * the caller validates its own arguments, describes the command in @c
 * (kind, u, mems) and calls nv_cmd_submit(), which runs it (unless the wait
 * list holds a failed event) or defers it, and returns the event if one
 * was asked for.
 */
cl_int nv_cmd_begin(struct nv_cmd *c, cl_command_queue q, cl_uint n,
		    const cl_event *list)
{
	if (!nv_valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	c->q = q;
	c->kind = NV_CMD_NONE;
	c->wait_failed = false;
	c->nwait = n;
	c->wait = list;
	c->t0 = nv_now_ns();
	c->mems[0] = NULL;
	c->mems[1] = NULL;
	return check_wait_list(q, n, list);
}

/* Under nv_ev_lock: whether @c's wait list is final; sets wait_failed. */
static bool waits_done(struct nv_cmd *c)
{
	cl_uint i;

	c->wait_failed = false;
	for (i = 0; i < c->nwait; i++) {
		if (c->wait[i]->status > CL_COMPLETE)
			return false;
		if (c->wait[i]->status < 0)
			c->wait_failed = true;
	}
	return true;
}

/*
 * Under nv_ev_lock: @ev's status becomes @status; the callbacks that
 * status reaches move, in order, to the end of the list at @fire.
 */
static void event_set(cl_event ev, cl_int status, struct nv_event_cb **fire)
{
	struct nv_event_cb **pp = &ev->cbs, *cb;

	while (*fire)
		fire = &(*fire)->next;
	ev->status = status;
	while ((cb = *pp)) {
		if (status > cb->type) {
			pp = &cb->next;
			continue;
		}
		*pp = cb->next;
		cb->next = NULL;
		*fire = cb;
		fire = &cb->next;
	}
	pthread_cond_broadcast(&nv_ev_cond);
}

/* Call (without nv_ev_lock) and free callbacks event_set() collected. */
static void event_fire(cl_event ev, cl_int status, struct nv_event_cb *cb)
{
	struct nv_event_cb *next;

	for (; cb; cb = next) {
		next = cb->next;
		cb->fn(ev, status < 0 ? status : cb->type, cb->data);
		free(cb);
	}
}

static cl_event event_new(cl_command_queue q, cl_command_type type,
			  cl_int status, cl_ulong t0)
{
	cl_event ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	nv_obj_init(ev, NV_EVENT);
	ev->ctx = q->ctx;
	ev->queue = q;
	ev->type = type;
	ev->status = status;
	ev->t_queued = t0;
	ev->t_submit = t0;
	ev->t_start = t0;
	ev->t_end = nv_now_ns();
	nv_ref(q);
	return ev;
}

/* A command that ran at enqueue: its event is final from the start. */
static cl_int cmd_end(struct nv_cmd *c, cl_int status, bool blocking,
		      cl_event *event)
{
	if (c->wait_failed)
		status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	if (event) {
		*event = event_new(c->q, c->type, status, c->t0);
		if (!*event)
			return CL_OUT_OF_HOST_MEMORY;
	}
	/* A blocking command reports what its event would. */
	return blocking && status < 0 ? status : CL_SUCCESS;
}

/* Release what cmd_keep() retained and the command itself. */
static void cmd_free(struct nv_cmd *d)
{
	const struct nv_arg *a = d->u.kernel.args;
	unsigned int i;

	for (i = 0; i < d->nwait; i++)
		nv_ReleaseEvent(d->wait[i]);
	for (i = 0; i < NV_CMD_MEMS; i++)
		if (d->mems[i])
			nv_ReleaseMemObject(d->mems[i]);
	if (d->kind == NV_CMD_MIGRATE_MEMS)
		for (i = 0; i < d->u.migrate.n; i++)
			nv_ReleaseMemObject(d->u.migrate.mems[i]);
	if (d->kind == NV_CMD_KERNEL && d->u.kernel.call)
		nv_kcall_put(d->u.kernel.call);
	else if (d->kind == NV_CMD_KERNEL)
		for (i = 0; i < d->u.kernel.bi->nargs; i++)
			if (a[i].mem)
				nv_ReleaseMemObject(a[i].mem);
	if (d->ev)
		nv_ReleaseEvent(d->ev);
	free(d->own);
	free(d);
}

/* Bytes cmd_keep() copies after the wait list. */
static size_t cmd_own_size(const struct nv_cmd *d)
{
	switch (d->kind) {
	case NV_CMD_FILL:
		return d->u.fill.psize;
	case NV_CMD_MIGRATE:
		return d->u.migrate.n * (sizeof(void *) + sizeof(size_t));
	case NV_CMD_MIGRATE_MEMS:
		return d->u.migrate.n * sizeof(cl_mem);
	case NV_CMD_SVM_FREE:
		return d->u.free.n * sizeof(void *);
	case NV_CMD_KERNEL:
		return d->u.kernel.call ? 0 : sizeof(struct nv_arg) * NV_MAX_ARGS;
	default:
		return 0;
	}
}

/*
 * A deferred command keeps copies of the arrays the caller may reuse
 * once the enqueue returns (the spec has kernel arguments, fill patterns
 * and pointer lists captured at enqueue), and references on the events
 * and buffers it uses.
 */
static cl_int cmd_keep(struct nv_cmd *d)
{
	size_t wl = d->nwait * sizeof(cl_event), n = cmd_own_size(d);
	struct nv_arg *args;
	cl_event *wait;
	uint8_t *p;
	cl_uint i;

	d->own = NULL;
	if (wl + n) {
		d->own = malloc(wl + n);
		if (!d->own)
			return CL_OUT_OF_HOST_MEMORY;
	}
	wait = d->own;
	p = (uint8_t *)d->own + wl;
	for (i = 0; i < d->nwait; i++) {
		wait[i] = d->wait[i];
		nv_ref(wait[i]);
	}
	d->wait = wait;
	for (i = 0; i < NV_CMD_MEMS; i++)
		if (d->mems[i])
			nv_ref(d->mems[i]);
	switch (d->kind) {
	case NV_CMD_FILL:
		d->u.fill.pattern = memcpy(p, d->u.fill.pattern, n);
		break;
	case NV_CMD_MIGRATE:
		n = d->u.migrate.n;
		d->u.migrate.ptrs = memcpy(p, d->u.migrate.ptrs,
					   n * sizeof(void *));
		p += n * sizeof(void *);
		if (d->u.migrate.sizes)
			d->u.migrate.sizes = memcpy(p, d->u.migrate.sizes,
						    n * sizeof(size_t));
		break;
	case NV_CMD_MIGRATE_MEMS:
		d->u.migrate.mems = memcpy(p, d->u.migrate.mems, n);
		for (i = 0; i < d->u.migrate.n; i++)
			nv_ref(d->u.migrate.mems[i]);
		break;
	case NV_CMD_SVM_FREE:
		d->u.free.ptrs = memcpy(p, d->u.free.ptrs, n);
		break;
	case NV_CMD_KERNEL:
		if (d->u.kernel.call) {
			/* Its own copy of the arguments already. */
			nv_kcall_get(d->u.kernel.call);
			break;
		}
		args = memcpy(p, d->u.kernel.args, n);
		for (i = 0; i < d->u.kernel.bi->nargs; i++)
			if (args[i].mem)
				nv_ref(args[i].mem);
		d->u.kernel.args = args;
		break;
	default:
		break;
	}
	return CL_SUCCESS;
}

/*
 * Run the deferred commands that are ready: a queue's head whose wait
 * list is final, while nothing else runs on that queue. Returns when
 * none is left that could run now.
 */
static void drain(void)
{
	struct nv_event_cb *cbs;
	cl_command_queue q, *pp;
	struct nv_cmd *d;
	cl_int status;

	pthread_mutex_lock(&nv_ev_lock);
	for (;;) {
		for (q = nv_blocked; q; q = q->next_blocked)
			if (!q->busy && !q->active && waits_done(q->head))
				break;
		if (!q)
			break;
		d = q->head;
		q->busy = true;
		cbs = NULL;
		status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
		if (!d->wait_failed) {
			d->ev->t_submit = nv_now_ns();
			d->ev->t_start = d->ev->t_submit;
			event_set(d->ev, CL_RUNNING, &cbs);
		}
		pthread_mutex_unlock(&nv_ev_lock);
		event_fire(d->ev, CL_RUNNING, cbs);
		if (!d->wait_failed)
			status = cmd_run(d);
		if (status > CL_COMPLETE)
			status = CL_COMPLETE;
		pthread_mutex_lock(&nv_ev_lock);
		q->head = d->next;
		if (!q->head) {
			q->tail = NULL;
			for (pp = &nv_blocked; *pp != q; pp = &(*pp)->next_blocked)
				;
			*pp = q->next_blocked;
		}
		q->busy = false;
		cbs = NULL;
		d->ev->t_end = nv_now_ns();
		event_set(d->ev, status, &cbs);
		pthread_mutex_unlock(&nv_ev_lock);
		event_fire(d->ev, status, cbs);
		cmd_free(d);
		pthread_mutex_lock(&nv_ev_lock);
	}
	pthread_mutex_unlock(&nv_ev_lock);
}

/* Wait, without running anything, until @ev is final; its status. */
static cl_int event_wait(cl_event ev)
{
	cl_int status;

	pthread_mutex_lock(&nv_ev_lock);
	while (ev->status > CL_COMPLETE)
		pthread_cond_wait(&nv_ev_cond, &nv_ev_lock);
	status = ev->status;
	pthread_mutex_unlock(&nv_ev_lock);
	return status;
}

static cl_int cmd_defer(struct nv_cmd *c, bool blocking, cl_event *event)
{
	cl_command_queue q = c->q;
	struct nv_cmd *d = malloc(sizeof(*d));
	cl_int status;
	cl_event ev;

	if (!d)
		return CL_OUT_OF_HOST_MEMORY;
	*d = *c;
	d->next = NULL;
	d->ev = NULL;
	if (cmd_keep(d) != CL_SUCCESS) {
		free(d);
		return CL_OUT_OF_HOST_MEMORY;
	}
	d->ev = event_new(q, c->type, CL_QUEUED, c->t0);
	if (!d->ev) {
		cmd_free(d);
		return CL_OUT_OF_HOST_MEMORY;
	}
	if (event) {
		nv_ref(d->ev);
		*event = d->ev;
	}
	ev = d->ev;
	if (blocking)
		nv_ref(ev);
	pthread_mutex_lock(&nv_ev_lock);
	if (q->head) {
		q->tail->next = d;
	} else {
		q->head = d;
		q->next_blocked = nv_blocked;
		nv_blocked = q;
	}
	q->tail = d;
	pthread_mutex_unlock(&nv_ev_lock);
	/* Its queue's head may have become ready meanwhile. */
	drain();
	if (!blocking)
		return CL_SUCCESS;
	status = event_wait(ev);
	nv_ReleaseEvent(ev);
	return status < 0 ? status : CL_SUCCESS;
}

/*
 * Run @c now, or defer it when it has to wait (see above); @blocking:
 * return once it is done, with its status if that is an error.
 */
cl_int nv_cmd_submit(struct nv_cmd *c, cl_command_type type,
		     cl_bool blocking, cl_event *event)
{
	cl_command_queue q = c->q;
	cl_int status = CL_COMPLETE;
	bool now, more;

	c->type = type;
	pthread_mutex_lock(&nv_ev_lock);
	now = !q->head && waits_done(c);
	if (now)
		q->active++;
	pthread_mutex_unlock(&nv_ev_lock);
	if (!now)
		return cmd_defer(c, blocking, event);
	if (!c->wait_failed)
		status = cmd_run(c);
	pthread_mutex_lock(&nv_ev_lock);
	more = !--q->active && q->head;
	if (!q->active)
		pthread_cond_broadcast(&nv_ev_cond);
	pthread_mutex_unlock(&nv_ev_lock);
	if (more)
		drain();
	return cmd_end(c, status, blocking, event);
}

static cl_int nv_WaitForEvents(cl_uint n, const cl_event *list)
{
	cl_int err = CL_SUCCESS;
	cl_uint i;

	if (!n || !list)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		if (!nv_valid(list[i], NV_EVENT))
			return CL_INVALID_EVENT;
		if (list[i]->ctx != list[0]->ctx)
			return CL_INVALID_CONTEXT;
	}
	for (i = 0; i < n; i++)
		if (event_wait(list[i]) < 0)
			err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	return err;
}

static cl_int event_status(cl_event ev)
{
	cl_int status;

	pthread_mutex_lock(&nv_ev_lock);
	status = ev->status;
	pthread_mutex_unlock(&nv_ev_lock);
	return status;
}

static cl_int nv_GetEventInfo(cl_event ev, cl_event_info param, size_t size,
			      void *value, size_t *size_ret)
{
	if (!nv_valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	switch (param) {
	case CL_EVENT_COMMAND_QUEUE:
		PUT(cl_command_queue, ev->queue);
	case CL_EVENT_CONTEXT:
		PUT(cl_context, ev->ctx);
	case CL_EVENT_COMMAND_TYPE:
		PUT(cl_command_type, ev->type);
	case CL_EVENT_COMMAND_EXECUTION_STATUS:
		PUT(cl_int, event_status(ev));
	case CL_EVENT_REFERENCE_COUNT:
		PUT(cl_uint, (cl_uint)ev->obj.refs);
	default:
		return CL_INVALID_VALUE;
	}
}

/* The times of a deferred command are written before it is final. */
static cl_int nv_GetEventProfilingInfo(cl_event ev, cl_profiling_info param,
				       size_t size, void *value,
				       size_t *size_ret)
{
	if (!nv_valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	if (!ev->queue || !(ev->queue->props & CL_QUEUE_PROFILING_ENABLE) ||
	    event_status(ev) != CL_COMPLETE)
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	switch (param) {
	case CL_PROFILING_COMMAND_QUEUED:
		PUT(cl_ulong, ev->t_queued);
	case CL_PROFILING_COMMAND_SUBMIT:
		PUT(cl_ulong, ev->t_submit);
	case CL_PROFILING_COMMAND_START:
		PUT(cl_ulong, ev->t_start);
	case CL_PROFILING_COMMAND_END:
	case CL_PROFILING_COMMAND_COMPLETE:
		PUT(cl_ulong, ev->t_end);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int nv_RetainEvent(cl_event ev)
{
	if (!nv_valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	nv_ref(ev);
	return CL_SUCCESS;
}

/* A user event released unset drops the callbacks it never reached. */
cl_int nv_ReleaseEvent(cl_event ev)
{
	struct nv_event_cb *cb, *next;
	cl_command_queue q;
	cl_context ctx;

	if (!nv_valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	if (!nv_unref(ev))
		return CL_SUCCESS;
	q = ev->queue;
	ctx = ev->ctx;
	for (cb = ev->cbs; cb; cb = next) {
		next = cb->next;
		free(cb);
	}
	nv_obj_free(ev);
	return q ? nv_ReleaseCommandQueue(q) : nv_ReleaseContext(ctx);
}

static cl_int nv_SetEventCallback(cl_event ev, cl_int type,
				  void (CL_CALLBACK *fn)(cl_event, cl_int,
							 void *),
				  void *data)
{
	struct nv_event_cb *cb, **pp;
	cl_int status;

	if (!nv_valid(ev, NV_EVENT))
		return CL_INVALID_EVENT;
	if (!fn || (type != CL_COMPLETE && type != CL_RUNNING &&
		    type != CL_SUBMITTED))
		return CL_INVALID_VALUE;
	cb = malloc(sizeof(*cb));
	if (!cb)
		return CL_OUT_OF_HOST_MEMORY;
	cb->next = NULL;
	cb->fn = fn;
	cb->data = data;
	cb->type = type;
	pthread_mutex_lock(&nv_ev_lock);
	status = ev->status;
	if (status > type) {
		for (pp = &ev->cbs; *pp; pp = &(*pp)->next)
			;
		*pp = cb;
		cb = NULL;
	}
	pthread_mutex_unlock(&nv_ev_lock);
	/* The event is past that status already: call back now. */
	event_fire(ev, status, cb);
	return CL_SUCCESS;
}

static cl_event nv_CreateUserEvent(cl_context ctx, cl_int *errcode_ret)
{
	cl_event ev;

	if (!nv_valid(ctx, NV_CONTEXT))
		return nv_fail(errcode_ret, CL_INVALID_CONTEXT);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return nv_fail(errcode_ret, CL_OUT_OF_HOST_MEMORY);
	nv_obj_init(ev, NV_EVENT);
	ev->ctx = ctx;
	ev->type = CL_COMMAND_USER;
	ev->status = CL_SUBMITTED;
	ev->t_queued = nv_now_ns();
	nv_ref(ctx);
	nv_set_err(errcode_ret, CL_SUCCESS);
	return ev;
}

/*
 * CL_COMPLETE, or a negative error that fails every command waiting for
 * @ev in its wait list. The commands that became ready run here, on the
 * caller's thread, before it returns.
 */
static cl_int nv_SetUserEventStatus(cl_event ev, cl_int status)
{
	struct nv_event_cb *cbs = NULL;

	if (!nv_valid(ev, NV_EVENT) || ev->queue || ev->type != CL_COMMAND_USER)
		return CL_INVALID_EVENT;
	if (status > CL_COMPLETE)
		return CL_INVALID_VALUE;
	pthread_mutex_lock(&nv_ev_lock);
	if (ev->status <= CL_COMPLETE) {
		pthread_mutex_unlock(&nv_ev_lock);
		return CL_INVALID_OPERATION;
	}
	ev->t_end = nv_now_ns();
	event_set(ev, status, &cbs);
	pthread_mutex_unlock(&nv_ev_lock);
	event_fire(ev, status, cbs);
	drain();
	return CL_SUCCESS;
}

/* Commands are submitted as soon as they are ready: nothing to flush. */
static cl_int nv_Flush(cl_command_queue q)
{
	return nv_valid(q, NV_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

/* Wait until the queue's deferred commands, and any it runs now, ended. */
static cl_int nv_Finish(cl_command_queue q)
{
	if (!nv_valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	pthread_mutex_lock(&nv_ev_lock);
	while (q->head || q->active)
		pthread_cond_wait(&nv_ev_cond, &nv_ev_lock);
	pthread_mutex_unlock(&nv_ev_lock);
	return CL_SUCCESS;
}

/*
 * Markers and barriers: commands that do nothing. The queue's order does
 * the rest: every queue, out-of-order ones too, runs its commands in the
 * order they were enqueued.
 */
static cl_int nv_EnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n,
					   const cl_event *list,
					   cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, n, list);

	if (err)
		return err;
	return nv_cmd_submit(&c, CL_COMMAND_MARKER, CL_FALSE, event);
}

static cl_int nv_EnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n,
					    const cl_event *list,
					    cl_event *event)
{
	struct nv_cmd c;
	cl_int err = nv_cmd_begin(&c, q, n, list);

	if (err)
		return err;
	return nv_cmd_submit(&c, CL_COMMAND_BARRIER, CL_FALSE, event);
}

static cl_int nv_EnqueueMarker(cl_command_queue q, cl_event *event)
{
	if (!event)
		return CL_INVALID_VALUE;
	return nv_EnqueueMarkerWithWaitList(q, 0, NULL, event);
}

static cl_int nv_EnqueueBarrier(cl_command_queue q)
{
	return nv_EnqueueBarrierWithWaitList(q, 0, NULL, NULL);
}

static cl_int nv_EnqueueWaitForEvents(cl_command_queue q, cl_uint n,
				      const cl_event *list)
{
	if (!nv_valid(q, NV_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!n || !list)
		return CL_INVALID_VALUE;
	return nv_EnqueueBarrierWithWaitList(q, n, list, NULL);
}

/* Run the command @c describes (at enqueue, or deferred by drain()). */
static cl_int cmd_run(struct nv_cmd *c)
{
	cl_command_queue q = c->q;
	cl_uint i;

	switch (c->kind) {
	case NV_CMD_COPY:
		return nv_gpu_copy(q, c->u.copy.dst, c->u.copy.src,
				   c->u.copy.size);
	case NV_CMD_FILL:
		return nv_gpu_fill(q, c->u.fill.ptr, c->u.fill.pattern,
				   c->u.fill.psize, c->u.fill.size);
	case NV_CMD_MIGRATE:
		nv_migrate_svm(q, c->u.migrate.n, c->u.migrate.ptrs,
			       c->u.migrate.sizes, c->u.migrate.to_host);
		return CL_COMPLETE;
	case NV_CMD_MIGRATE_MEMS:
		for (i = 0; i < c->u.migrate.n; i++)
			nv_migrate_one(q, c->u.migrate.mems[i]->data,
				       c->u.migrate.mems[i]->size,
				       c->u.migrate.to_host);
		return CL_COMPLETE;
	case NV_CMD_SVM_FREE:
		if (c->u.free.fn)
			c->u.free.fn(q, c->u.free.n, c->u.free.ptrs,
				     c->u.free.data);
		else
			for (i = 0; i < c->u.free.n; i++)
				nv_SVMFree(q->ctx, c->u.free.ptrs[i]);
		return CL_COMPLETE;
	case NV_CMD_KERNEL:
		if (c->u.kernel.call)
			return nv_run_kcall(q, c->u.kernel.call);
		return nv_run_builtin(q, c->u.kernel.bi, c->u.kernel.args,
				      c->u.kernel.items);
	case NV_CMD_RECT:
		return nv_gpu_copy_rect(q, c);
	default:
		return CL_COMPLETE;
	}
}

/* The dispatch entries of this file's calls. */
void nv_event_dispatch(cl_icd_dispatch *t)
{
	t->clWaitForEvents = nv_WaitForEvents;
	t->clGetEventInfo = nv_GetEventInfo;
	t->clCreateUserEvent = nv_CreateUserEvent;
	t->clSetUserEventStatus = nv_SetUserEventStatus;
	t->clRetainEvent = nv_RetainEvent;
	t->clReleaseEvent = nv_ReleaseEvent;
	t->clSetEventCallback = nv_SetEventCallback;
	t->clGetEventProfilingInfo = nv_GetEventProfilingInfo;
	t->clFlush = nv_Flush;
	t->clFinish = nv_Finish;
	t->clEnqueueMarker = nv_EnqueueMarker;
	t->clEnqueueWaitForEvents = nv_EnqueueWaitForEvents;
	t->clEnqueueBarrier = nv_EnqueueBarrier;
	t->clEnqueueMarkerWithWaitList = nv_EnqueueMarkerWithWaitList;
	t->clEnqueueBarrierWithWaitList = nv_EnqueueBarrierWithWaitList;
}
