// SPDX-License-Identifier: GPL-2.0
/*
 * The kernels of tests/opencl/workloads.c, OpenCL C 1.2, embedded into
 * the program at build time (tests/Makefile) and built with
 * clBuildProgram from source. Every pointer is the CPU's own: malloc'd
 * memory passed with clSetKernelArgSVMPointer (fine-grain system SVM),
 * pointers stored in that memory (the list's next, the heads) included.
 */

/* No fused multiply-add: the CPU's reference is built without it too. */
#pragma OPENCL FP_CONTRACT OFF

/* c = a + b, one element per work-item. */
__kernel void vadd(__global const float *a, __global const float *b,
		   __global float *c, uint n)
{
	size_t i = get_global_id(0);

	if (i < n)
		c[i] = a[i] + b[i];
}

/* y = A x, A in CSR (row_ptr, col, val), one row per work-item. */
__kernel void spmv_csr(__global const int *row_ptr, __global const int *col,
		       __global const float *val, __global const float *x,
		       __global float *y, uint rows)
{
	size_t r = get_global_id(0);
	float sum = 0.0f;
	int k;

	if (r >= rows)
		return;
	for (k = row_ptr[r]; k < row_ptr[r + 1]; k++)
		sum += val[k] * x[col[k]];
	y[r] = sum;
}

/*
 * One level of a level-synchronous BFS: each work-item takes one vertex
 * of the frontier and claims its unvisited neighbours (dist -1) for
 * level + 1, appending each one it claimed to the next frontier.
 */
__kernel void bfs_level(__global const int *row_ptr, __global const int *col,
			__global const int *frontier, uint frontier_n,
			__global int *dist, __global int *next,
			__global int *next_n, int level)
{
	size_t i = get_global_id(0);
	int v, k, u;

	if (i >= frontier_n)
		return;
	v = frontier[i];
	for (k = row_ptr[v]; k < row_ptr[v + 1]; k++) {
		u = col[k];
		if (atomic_cmpxchg(&dist[u], -1, level + 1) == -1)
			next[atomic_inc(next_n)] = u;
	}
}

/* bins[data[i] % nbins]++ with global atomics, a grid-stride loop. */
__kernel void histogram_global(__global const uint *data, uint n,
			       __global int *bins, uint nbins)
{
	size_t i;

	for (i = get_global_id(0); i < n; i += get_global_size(0))
		atomic_inc(&bins[data[i] % nbins]);
}

/*
 * The same, counted in the work-group's local memory first (between two
 * barriers), then added to the global bins once per work-group.
 */
#define LOCAL_BINS 256
__kernel void histogram_local(__global const uint *data, uint n,
			      __global int *bins, uint nbins)
{
	__local int part[LOCAL_BINS];
	size_t lid = get_local_id(0), lsize = get_local_size(0);
	size_t i, b;

	for (b = lid; b < nbins; b += lsize)
		part[b] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (i = get_global_id(0); i < n; i += get_global_size(0))
		atomic_inc(&part[data[i] % nbins]);
	barrier(CLK_LOCAL_MEM_FENCE);
	for (b = lid; b < nbins; b += lsize)
		if (part[b])
			atomic_add(&bins[b], part[b]);
}

/* A node of the CPU's lists, laid out as the CPU's struct node. */
struct node {
	__global struct node *next;
	long value;
	long prefix;	/* written: the sum of the values up to this node */
};

/* A list's head: OpenCL C 1.2 takes no pointer to a pointer as argument. */
struct head {
	__global struct node *first;
};

/*
 * Walk list i from heads[i], writing each node's running sum into it,
 * and the list's length and total to len[i] and sum[i].
 */
__kernel void list_walk(__global const struct head *heads, uint lists,
			__global long *sum, __global int *len)
{
	size_t i = get_global_id(0);
	__global struct node *p;
	long s = 0;
	int n = 0;

	if (i >= lists)
		return;
	for (p = heads[i].first; p; p = p->next) {
		s += p->value;
		p->prefix = s;
		n++;
	}
	sum[i] = s;
	len[i] = n;
}
