// SPDX-License-Identifier: GPL-2.0
/*
 * cl-demo: an OpenCL C breadth-first search over a graph the CPU built
 * with malloc, the second part of `make demo` (tools/demo/demo.sh).
 *
 * The CPU builds a random graph in CSR with plain malloc and hands the
 * kernel (bfs_level of tests/opencl/kernels/workloads.cl, compiled by
 * clBuildProgram from source) nothing but those pointers:
 * clSetKernelArgSVMPointer, no clCreateBuffer, no copy, no map. One launch
 * per level; the kernel claims vertices with atomic_cmpxchg and appends
 * them to the next frontier with atomic_inc, and the CPU reads the
 * frontier's length straight from its own memory after each launch. The
 * levels are then compared with the CPU's own BFS, vertex by vertex.
 *
 * It prints what it did and what that proves, with nvsvm's fault counters
 * (debugfs) per level when the platform is nvsvm. Exit status: 0 when
 * every level matched, 1 when not, 4 when the device has no compiler or
 * no fine-grain system SVM (nothing to show), 2 for bad usage.
 *
 * usage: cl-demo [-p PLATFORM] [-n VERTICES]
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libnvsvm.h"
#include "graph.h"
#include "workloads-cl.h"

static const char *const counter_name[] = { "faults", "batches", "replays" };
#define NCOUNTERS (sizeof(counter_name) / sizeof(counter_name[0]))

/* Return: 0 with @v filled, or -1 (not nvsvm, or no debugfs). */
static int counters(int nvsvm, uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < NCOUNTERS; i++)
		if (!nvsvm || nvsvm_stat_read(0, counter_name[i], &v[i]))
			return -1;
	return 0;
}

static int pick(const char *want, cl_device_id *dev, char *name, size_t len)
{
	cl_platform_id ids[16];
	cl_uint n = 0, i, nd;

	if (clGetPlatformIDs(16, ids, &n) != CL_SUCCESS)
		return -1;
	for (i = 0; i < n && i < 16; i++) {
		if (clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, len, name,
				      NULL) != CL_SUCCESS ||
		    (want && !strstr(name, want)))
			continue;
		nd = 0;
		if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_ALL, 1, dev, &nd) ==
		    CL_SUCCESS && nd)
			return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *want = NULL, *src = workloads_cl;
	unsigned int nv = 2048, i, frontier_n = 1, bad = 0;
	int *dist, *ref, *frontier, *next, *next_n, level = 0, nvsvm, opt;
	uint64_t c0[NCOUNTERS], c1[NCOUNTERS], total = 0;
	cl_device_svm_capabilities svm = 0;
	cl_bool compiler = CL_FALSE;
	cl_device_type type = 0;
	char name[128], dname[128];
	cl_command_queue q;
	cl_device_id dev;
	cl_program prog;
	struct graph g;
	cl_context ctx;
	cl_kernel k;
	cl_int err;

	while ((opt = getopt(argc, argv, "p:n:")) != -1) {
		if (opt == 'p') {
			want = optarg;
		} else if (opt == 'n' && atoi(optarg) > 0) {
			nv = atoi(optarg);
		} else {
			fprintf(stderr, "usage: cl-demo [-p PLATFORM] [-n VERTICES]\n");
			return 2;
		}
	}
	if (pick(want, &dev, name, sizeof(name))) {
		printf("cl-demo: no OpenCL platform with a device\n");
		return 4;
	}
	nvsvm = !strcmp(name, "nvsvm");
	clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(dname), dname, NULL);
	clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(svm), &svm, NULL);
	clGetDeviceInfo(dev, CL_DEVICE_COMPILER_AVAILABLE, sizeof(compiler),
			&compiler, NULL);
	printf("cl-demo: platform %s, device %s\n", name, dname);
	clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	/* A CPU device (pocl's) runs in this process: its memory is ours. */
	if (!compiler || (!(svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) &&
			  !(type & CL_DEVICE_TYPE_CPU))) {
		printf("cl-demo: nothing to show: the device has %s\n",
		       !compiler ? "no OpenCL C compiler" :
		       "no fine-grain system SVM");
		return 4;
	}

	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (err != CL_SUCCESS)
		return printf("cl-demo: clCreateContext: %d\n", err), 1;
	q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
	if (err != CL_SUCCESS)
		return printf("cl-demo: clCreateCommandQueue: %d\n", err), 1;
	prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	if (err == CL_SUCCESS)
		err = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
	k = err == CL_SUCCESS ? clCreateKernel(prog, "bfs_level", &err) : NULL;
	if (err != CL_SUCCESS)
		return printf("cl-demo: building the kernels: %d\n", err), 1;
	printf("cl-demo: OpenCL C compiled from source by clBuildProgram\n");

	if (graph_build(&g, nv, 4 * nv))
		return printf("cl-demo: out of memory\n"), 1;
	dist = malloc(nv * sizeof(int));
	ref = malloc(nv * sizeof(int));
	frontier = malloc(nv * sizeof(int));
	next = malloc(nv * sizeof(int));
	next_n = malloc(sizeof(int));
	if (!dist || !ref || !frontier || !next || !next_n)
		return printf("cl-demo: out of memory\n"), 1;
	printf("cl-demo: the CPU built a random graph with malloc: %u vertices, %u edges, CSR at %p and %p\n",
	       nv, g.ne, (void *)g.row_ptr, (void *)g.col);
	graph_bfs_init(&g, dist, frontier);
	clSetKernelArgSVMPointer(k, 0, g.row_ptr);
	clSetKernelArgSVMPointer(k, 1, g.col);
	clSetKernelArgSVMPointer(k, 4, dist);
	clSetKernelArgSVMPointer(k, 6, next_n);
	while (frontier_n) {
		size_t global = (frontier_n + 63) / 64 * 64;
		int *t, have = !counters(nvsvm, c0);

		*next_n = 0;
		clSetKernelArgSVMPointer(k, 2, frontier);
		clSetKernelArg(k, 3, sizeof(frontier_n), &frontier_n);
		clSetKernelArgSVMPointer(k, 5, next);
		clSetKernelArg(k, 7, sizeof(level), &level);
		err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0,
					     NULL, NULL);
		if (err == CL_SUCCESS)
			err = clFinish(q);
		if (err != CL_SUCCESS)
			return printf("cl-demo: level %d: %d\n", level, err), 1;
		printf("cl-demo: level %d: %u vertices in the frontier, %d found for level %d",
		       level, frontier_n, *next_n, level + 1);
		if (have && !counters(nvsvm, c1)) {
			printf("; GPU: %" PRIu64 " faults in %" PRIu64
			       " batches, %" PRIu64 " replays",
			       c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]);
			total += c1[0] - c0[0];
		}
		printf("\n");
		frontier_n = *next_n;
		if (frontier_n > nv)
			return printf("cl-demo: frontier of %u\n", frontier_n), 1;
		t = frontier;
		frontier = next;
		next = t;
		level++;
	}
	graph_bfs(&g, ref, frontier);
	for (i = 0; i < nv; i++)
		bad += dist[i] != ref[i];
	if (bad) {
		printf("cl-demo: FAILED: %u of %u levels differ from the CPU's BFS\n",
		       bad, nv);
		return 1;
	}
	printf("cl-demo: the levels of all %u vertices equal the CPU's own BFS\n\n", nv);
	printf("What this proves: an OpenCL C kernel, compiled from source by the ICD, ran on\n"
	       "%s and walked a graph that lives in the CPU's malloc'd heap, with the\n"
	       "CPU's own pointers (fine-grain system SVM: no buffer, no copy, no map).\n"
	       "Its atomics on that memory were exact (every vertex claimed once), and the\n"
	       "CPU read each level's frontier length from its own memory after the launch.\n",
	       dname);
	if (nvsvm)
		printf("The virtual GP100 found each page by a replayable fault that nvsvm served\n"
		       "through HMM (%" PRIu64 " faults in all), as a Pascal GPU would.\n",
		       total);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	graph_free(&g);
	free(dist);
	free(ref);
	free(frontier);
	free(next);
	free(next_n);
	return 0;
}
