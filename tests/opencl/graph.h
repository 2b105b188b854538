/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random graph of the BFS workload, shared by tests/opencl/workloads.c
 * and tools/demo/cl-demo.c: built by the CPU with malloc, undirected, in
 * CSR (row_ptr, col: both directions of each edge), and the CPU's own BFS
 * from vertex 0, the reference of the device's.
 */
#ifndef NVSVM_TESTS_OPENCL_GRAPH_H
#define NVSVM_TESTS_OPENCL_GRAPH_H

#include <stdint.h>
#include <stdlib.h>

struct graph {
	unsigned int nv, ne;	/* vertices, undirected edges */
	int *row_ptr;		/* nv + 1 */
	int *col;		/* 2 ne */
};

/* A small deterministic generator: every run builds the same data. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static inline uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static inline void graph_free(struct graph *g)
{
	free(g->row_ptr);
	free(g->col);
	g->row_ptr = NULL;
	g->col = NULL;
}

/* @ne random edges between @nv vertices. Return: 0, or -1 (no memory). */
static inline int graph_build(struct graph *g, unsigned int nv,
			      unsigned int ne)
{
	int *deg = calloc(nv + 1, sizeof(int));
	int *src = malloc(ne * sizeof(int)), *dst = malloc(ne * sizeof(int));
	unsigned int i;
	int ret = -1;

	g->nv = nv;
	g->ne = ne;
	g->row_ptr = malloc((nv + 1) * sizeof(int));
	g->col = malloc(2 * (size_t)ne * sizeof(int));
	if (!deg || !src || !dst || !g->row_ptr || !g->col) {
		graph_free(g);
		goto out;
	}
	for (i = 0; i < ne; i++) {
		src[i] = rng() % nv;
		dst[i] = rng() % nv;
		deg[src[i]]++;
		deg[dst[i]]++;
	}
	g->row_ptr[0] = 0;
	for (i = 0; i < nv; i++)
		g->row_ptr[i + 1] = g->row_ptr[i] + deg[i];
	for (i = 0; i < nv; i++)
		deg[i] = g->row_ptr[i];
	for (i = 0; i < ne; i++) {
		g->col[deg[src[i]]++] = dst[i];
		g->col[deg[dst[i]]++] = src[i];
	}
	ret = 0;
out:
	free(deg);
	free(src);
	free(dst);
	return ret;
}

/* Before the device's BFS: every level unknown (-1) but vertex 0's, 0. */
static inline void graph_bfs_init(const struct graph *g, int *dist,
				  int *frontier)
{
	unsigned int i;

	for (i = 0; i < g->nv; i++)
		dist[i] = -1;
	dist[0] = 0;
	frontier[0] = 0;
}

/*
 * The CPU's BFS from vertex 0 into @dist (-1: unreachable), with @queue
 * (nv ints) as its work list. Return: the number of levels.
 */
static inline int graph_bfs(const struct graph *g, int *dist, int *queue)
{
	unsigned int i;
	int head = 0, tail = 1, v, k, levels = 0;

	for (i = 0; i < g->nv; i++)
		dist[i] = -1;
	dist[0] = 0;
	queue[0] = 0;
	while (head < tail) {
		v = queue[head++];
		if (dist[v] + 1 > levels)
			levels = dist[v] + 1;
		for (k = g->row_ptr[v]; k < g->row_ptr[v + 1]; k++)
			if (dist[g->col[k]] < 0) {
				dist[g->col[k]] = dist[v] + 1;
				queue[tail++] = g->col[k];
			}
	}
	return levels;
}

#endif
