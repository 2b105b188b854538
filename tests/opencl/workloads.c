// SPDX-License-Identifier: GPL-2.0
/*
 * workloads: OpenCL C programs on malloc'd memory, each checked exactly
 * against the CPU. The kernels (tests/opencl/kernels/workloads.cl,
 * embedded at build time) are built with clBuildProgram from source; every
 * buffer is plain malloc'd memory handed over with clSetKernelArgSVMPointer
 * (fine-grain system SVM), and the pointer-linked structures (the lists)
 * are followed by the device through the CPU's own pointers.
 *
 *   vadd              c = a + b (floats, bit for bit)
 *   spmv              y = A x, A in CSR (floats whose sums are exact)
 *   bfs               level-synchronous BFS of a random graph built by
 *                     the CPU, one launch per level (a frontier each);
 *                     the levels equal the CPU's BFS
 *   histogram_global  atomic_inc on global ints
 *   histogram_local   counted in local memory between barriers, then
 *                     atomic_add to the global ints
 *   list_walk         lists of nodes malloc'd one by one, linked in a
 *                     shuffled order; each node's running sum
 *
 * An OpenCL application like tests/opencl/opencl.c (ocl-icd's libOpenCL,
 * dynamically): it runs on the first platform that has a device, or the
 * one whose name contains -p NAME, so the same program runs on the host
 * against pocl (OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd) and in the
 * test VM against nvsvm. Exits 4 (skip) when that device lacks
 * fine-grain system SVM or a compiler (a CPU device that does not claim
 * the former, as pocl's, runs in this process: it is taken, with a note);
 * the atomic cases skip where the device does not claim
 * CL_DEVICE_SVM_ATOMICS.
 *
 * usage: workloads [-p PLATFORM] [-s SCALE] [harness options]
 *   -s SCALE multiplies every size (default 1: a few seconds per case in
 *   the TCG VM); each case prints "# bench NAME: ..." with its size, the
 *   time of its launches and, on nvsvm, the driver's fault counters
 *   (debugfs) across them: tools/bench/ reads those lines.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnvsvm.h"
#include "graph.h"

/* tests/opencl/kernels/workloads.cl as a string (tests/Makefile). */
#include "workloads-cl.h"

static const char *platform_want;	/* -p: a part of the platform's name */
static unsigned int scale = 1;		/* -s */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * find_device() - the first device of the platform asked for (-p), or of
 * the first platform that has one.
 * Return: 0, or -1 with *why saying what is missing.
 */
static int find_device(cl_platform_id *plat, cl_device_id *dev, char *name,
		       size_t len, const char **why)
{
	cl_platform_id ids[16];
	cl_uint n = 0, i, nd;

	*why = "no OpenCL platform";
	if (clGetPlatformIDs(16, ids, &n) != CL_SUCCESS)
		return -1;
	for (i = 0; i < n && i < 16; i++) {
		if (clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, len, name,
				      NULL) != CL_SUCCESS)
			continue;
		if (platform_want && !strstr(name, platform_want))
			continue;
		nd = 0;
		if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_ALL, 1, dev, &nd) !=
		    CL_SUCCESS || !nd)
			continue;
		*plat = ids[i];
		return 0;
	}
	*why = platform_want ? "no platform of that name with a device" :
			       "no platform with a device";
	return -1;
}

static cl_device_svm_capabilities svm_caps(cl_device_id dev)
{
	cl_device_svm_capabilities caps = 0;

	if (clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps),
			    &caps, NULL) != CL_SUCCESS)
		return 0;
	return caps;
}

/*
 * A CPU device (pocl's) runs the kernels in the calling process: malloc'd
 * memory is its own, fine-grain system SVM claimed or not (pocl 3.1 does
 * not claim it). Any other device must claim it.
 */
static int host_cpu(cl_device_id dev)
{
	cl_device_type type = 0;

	clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	return !!(type & CL_DEVICE_TYPE_CPU);
}

/*
 * probe() - in a child process (OpenCL implementations start threads,
 * which a fork of the harness must not inherit): exit 4 with the reason
 * when there is no device, no fine-grain system SVM or no compiler.
 */
static void __attribute__((noreturn, format(printf, 1, 2)))
skip_all(const char *fmt, ...)
{
	va_list ap;

	fputs("1..0 # SKIP ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	_exit(4);
}

static int probe(void)
{
	cl_platform_id plat;
	cl_device_id dev;
	cl_bool compiler = CL_FALSE;
	const char *why;
	char name[128];
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		return 1;
	if (pid) {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 1;
		return WEXITSTATUS(status);
	}
	if (find_device(&plat, &dev, name, sizeof(name), &why))
		skip_all("%s", why);
	if (!(svm_caps(dev) & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)) {
		if (!host_cpu(dev))
			skip_all("%s: no CL_DEVICE_SVM_FINE_GRAIN_SYSTEM", name);
		printf("# %s: a CPU device that does not claim CL_DEVICE_SVM_FINE_GRAIN_SYSTEM; it runs the kernels in this process, on its memory: malloc'd pointers given all the same\n",
		       name);
	}
	clGetDeviceInfo(dev, CL_DEVICE_COMPILER_AVAILABLE, sizeof(compiler),
			&compiler, NULL);
	if (!compiler)
		skip_all("%s: no compiler (CL_DEVICE_COMPILER_AVAILABLE false)",
			 name);
	fflush(stdout);
	_exit(0);
}

/* The driver's fault counters, on nvsvm (GPU 0's debugfs) only. */
enum { C_FAULTS, C_BATCHES, C_FAULT_PAGES, C_REPLAYS, C_COUNT };
static const char *const counter_name[C_COUNT] = {
	"faults", "batches", "fault_pages", "replays",
};

struct stats {
	double t0, ms;
	unsigned int launches;
	int have;		/* counters read at the start */
	uint64_t c[C_COUNT];
};

FIXTURE(wl) {
	cl_platform_id plat;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	int nvsvm;		/* the platform is nvsvm's */
	int atomics;		/* CL_DEVICE_SVM_ATOMICS */
	double build_ms;
	struct stats st;
};

FIXTURE_SETUP(wl)
{
	const char *src = workloads_cl, *why;
	char name[128], log[4096];
	cl_int err;
	double t;

	memset(self, 0, sizeof(*self));
	rng_state = 0x9e3779b97f4a7c15ULL;
	ASSERT_EQ(0, find_device(&self->plat, &self->dev, name, sizeof(name),
				 &why)) TH_LOG("%s", why);
	self->nvsvm = !strcmp(name, "nvsvm");
	self->atomics = !!(svm_caps(self->dev) & CL_DEVICE_SVM_ATOMICS);
	self->ctx = clCreateContext(NULL, 1, &self->dev, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	self->q = clCreateCommandQueueWithProperties(self->ctx, self->dev, NULL,
						     &err);
	ASSERT_EQ(CL_SUCCESS, err);
	self->prog = clCreateProgramWithSource(self->ctx, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	t = now_ms();
	err = clBuildProgram(self->prog, 1, &self->dev, "", NULL, NULL);
	self->build_ms = now_ms() - t;
	if (err != CL_SUCCESS) {
		log[0] = 0;
		clGetProgramBuildInfo(self->prog, self->dev,
				      CL_PROGRAM_BUILD_LOG, sizeof(log), log,
				      NULL);
		log[sizeof(log) - 1] = 0;
		TH_LOG("clBuildProgram: %d; build log:\n%s", err, log);
	}
	ASSERT_EQ(CL_SUCCESS, err);
}

FIXTURE_TEARDOWN(wl)
{
	if (self->prog)
		clReleaseProgram(self->prog);
	if (self->q)
		clReleaseCommandQueue(self->q);
	if (self->ctx)
		clReleaseContext(self->ctx);
}

static void stats_start(FIXTURE_DATA(wl) *self)
{
	struct stats *st = &self->st;
	int i;

	memset(st, 0, sizeof(*st));
	st->have = self->nvsvm;
	for (i = 0; i < C_COUNT && st->have; i++)
		st->have = !nvsvm_stat_read(0, counter_name[i], &st->c[i]);
	st->t0 = now_ms();
}

/* "# bench NAME: what; T ms in N launches; counters" for tools/bench. */
static void stats_print(FIXTURE_DATA(wl) *self, const char *name,
			const char *what)
{
	struct stats *st = &self->st;
	uint64_t v[C_COUNT];
	int i, have = st->have;

	st->ms = now_ms() - st->t0;
	for (i = 0; i < C_COUNT && have; i++)
		have = !nvsvm_stat_read(0, counter_name[i], &v[i]);
	fprintf(stderr, "# bench %s: %s; build %.1f ms; %.3f ms in %u launches",
		name, what, self->build_ms, st->ms, st->launches);
	if (have)
		fprintf(stderr, "; %" PRIu64 " faults in %" PRIu64
			" batches, %" PRIu64 " pages, %" PRIu64 " replays",
			v[C_FAULTS] - st->c[C_FAULTS],
			v[C_BATCHES] - st->c[C_BATCHES],
			v[C_FAULT_PAGES] - st->c[C_FAULT_PAGES],
			v[C_REPLAYS] - st->c[C_REPLAYS]);
	fputc('\n', stderr);
}

/* Run @k over @global work-items (@local per group, 0: any), to the end. */
static cl_int launch(FIXTURE_DATA(wl) *self, cl_kernel k, size_t global,
		     size_t local)
{
	cl_int err;

	self->st.launches++;
	err = clEnqueueNDRangeKernel(self->q, k, 1, NULL, &global,
				     local ? &local : NULL, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clFinish(self->q);
	return err;
}

static size_t round_up(size_t n, size_t m)
{
	return (n + m - 1) / m * m;
}

#define ARG_PTR(k, i, p)	ASSERT_EQ(CL_SUCCESS, clSetKernelArgSVMPointer(k, i, p))
#define ARG_VAL(k, i, v)	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, i, sizeof(v), &(v)))

static cl_kernel make_kernel(FIXTURE_DATA(wl) *self, const char *name)
{
	cl_int err;
	cl_kernel k = clCreateKernel(self->prog, name, &err);

	return err == CL_SUCCESS ? k : NULL;
}

TEST_F(wl, vadd)
{
	cl_uint n = 4096 * scale, i, bad = 0;
	float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
	float *c = malloc(n * sizeof(float));
	cl_kernel k = make_kernel(self, "vadd");
	char what[64];

	ASSERT_NE(NULL, k);
	ASSERT_TRUE(a && b && c);
	for (i = 0; i < n; i++) {
		a[i] = (float)(int32_t)rng() / 4096.0f;
		b[i] = (float)(rng() % 100000) / 3.0f;
		c[i] = -1.0f;
	}
	ARG_PTR(k, 0, a);
	ARG_PTR(k, 1, b);
	ARG_PTR(k, 2, c);
	ARG_VAL(k, 3, n);
	stats_start(self);
	ASSERT_EQ(CL_SUCCESS, launch(self, k, round_up(n, 64), 0));
	snprintf(what, sizeof(what), "%u floats", n);
	stats_print(self, "vadd", what);
	for (i = 0; i < n; i++) {
		float want = a[i] + b[i];

		if (memcmp(&c[i], &want, sizeof(want)) && bad++ < 5)
			TH_LOG("c[%u] = %a, CPU %a", i, c[i], want);
	}
	EXPECT_EQ(0, bad);
	clReleaseKernel(k);
	free(a);
	free(b);
	free(c);
}

TEST_F(wl, spmv)
{
	cl_uint rows = 512 * scale, r, bad = 0;
	int *row_ptr = malloc((rows + 1) * sizeof(int)), *col, k, nnz = 0;
	float *val, *x = malloc(rows * sizeof(float)), *y;
	cl_kernel kern = make_kernel(self, "spmv_csr");
	char what[64];

	ASSERT_NE(NULL, kern);
	col = malloc(16 * rows * sizeof(int));
	val = malloc(16 * rows * sizeof(float));
	y = malloc(rows * sizeof(float));
	ASSERT_TRUE(row_ptr && col && val && x && y);
	/*
	 * Values k/16 with |k| <= 64: every product and sum is exact in a
	 * float, so any order of the additions gives the CPU's result.
	 */
	for (r = 0; r < rows; r++) {
		int len = rng() % 16;

		row_ptr[r] = nnz;
		for (k = 0; k < len; k++) {
			col[nnz] = rng() % rows;
			val[nnz++] = (float)((int)(rng() % 129) - 64) / 16.0f;
		}
		x[r] = (float)((int)(rng() % 129) - 64) / 16.0f;
		y[r] = 12345.0f;
	}
	row_ptr[rows] = nnz;
	ARG_PTR(kern, 0, row_ptr);
	ARG_PTR(kern, 1, col);
	ARG_PTR(kern, 2, val);
	ARG_PTR(kern, 3, x);
	ARG_PTR(kern, 4, y);
	ARG_VAL(kern, 5, rows);
	stats_start(self);
	ASSERT_EQ(CL_SUCCESS, launch(self, kern, round_up(rows, 64), 0));
	snprintf(what, sizeof(what), "%u rows, %d non-zeros", rows, nnz);
	stats_print(self, "spmv", what);
	for (r = 0; r < rows; r++) {
		float want = 0.0f;

		for (k = row_ptr[r]; k < row_ptr[r + 1]; k++)
			want += val[k] * x[col[k]];
		if (memcmp(&y[r], &want, sizeof(want)) && bad++ < 5)
			TH_LOG("y[%u] = %a, CPU %a", r, y[r], want);
	}
	EXPECT_EQ(0, bad);
	clReleaseKernel(kern);
	free(row_ptr);
	free(col);
	free(val);
	free(x);
	free(y);
}

TEST_F(wl, bfs)
{
	cl_uint nv = 1024 * scale, i, frontier_n = 1, bad = 0;
	int *dist, *want, *frontier, *next, *next_n, level = 0, levels;
	cl_kernel kern = make_kernel(self, "bfs_level");
	struct graph g;
	char what[96];

	if (!self->atomics)
		SKIP(return, "the device does not claim CL_DEVICE_SVM_ATOMICS");
	ASSERT_NE(NULL, kern);
	ASSERT_EQ(0, graph_build(&g, nv, 4 * nv));
	dist = malloc(nv * sizeof(int));
	want = malloc(nv * sizeof(int));
	frontier = malloc(nv * sizeof(int));
	next = malloc(nv * sizeof(int));
	next_n = malloc(sizeof(int));
	ASSERT_TRUE(dist && want && frontier && next && next_n);
	levels = graph_bfs(&g, want, frontier);
	/* The device's, a launch per level, from vertex 0. */
	graph_bfs_init(&g, dist, frontier);
	ARG_PTR(kern, 0, g.row_ptr);
	ARG_PTR(kern, 1, g.col);
	ARG_PTR(kern, 4, dist);
	ARG_PTR(kern, 6, next_n);
	stats_start(self);
	while (frontier_n) {
		int *t;

		*next_n = 0;
		ARG_PTR(kern, 2, frontier);
		ARG_VAL(kern, 3, frontier_n);
		ARG_PTR(kern, 5, next);
		ARG_VAL(kern, 7, level);
		ASSERT_EQ(CL_SUCCESS, launch(self, kern,
					     round_up(frontier_n, 64), 0));
		frontier_n = *next_n;
		ASSERT_LE(frontier_n, nv);
		t = frontier;
		frontier = next;
		next = t;
		level++;
	}
	snprintf(what, sizeof(what), "%u vertices, %u edges, %d levels",
		 nv, g.ne, level);
	stats_print(self, "bfs", what);
	EXPECT_EQ(levels, level);
	for (i = 0; i < nv; i++)
		if (dist[i] != want[i] && bad++ < 5)
			TH_LOG("dist[%u] = %d, CPU %d", i, dist[i], want[i]);
	EXPECT_EQ(0, bad);
	clReleaseKernel(kern);
	graph_free(&g);
	free(dist);
	free(want);
	free(frontier);
	free(next);
	free(next_n);
}

#define NBINS	64

/* Both histograms: @local 0 for the global one. */
static void histogram(struct __test_metadata *_metadata,
		      FIXTURE_DATA(wl) *self, const char *name, int local)
{
	cl_uint n = 16384 * scale, nbins = NBINS, i, bad = 0;
	uint32_t *data = malloc(n * sizeof(uint32_t));
	int *bins = malloc(NBINS * sizeof(int)), want[NBINS] = { 0 };
	cl_kernel k = make_kernel(self, name);
	size_t lsize = 0, wg = 0;
	char what[96];

	if (!self->atomics)
		SKIP(return, "the device does not claim CL_DEVICE_SVM_ATOMICS");
	ASSERT_NE(NULL, k);
	ASSERT_TRUE(data && bins);
	for (i = 0; i < n; i++) {
		/* Skewed: half the values in the first 8 bins. */
		data[i] = rng();
		if (data[i] & 1)
			data[i] = (data[i] >> 1) % 8;
		want[data[i] % NBINS]++;
	}
	for (i = 0; i < NBINS; i++)
		bins[i] = 0;
	if (local) {
		ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, self->dev,
				CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
				NULL));
		lsize = wg < 64 ? wg : 64;
		ASSERT_LT(0, lsize);
	}
	ARG_PTR(k, 0, data);
	ARG_VAL(k, 1, n);
	ARG_PTR(k, 2, bins);
	ARG_VAL(k, 3, nbins);
	stats_start(self);
	/* 4 groups of lsize (or 256 work-items), a grid-stride loop each. */
	ASSERT_EQ(CL_SUCCESS, launch(self, k, local ? 4 * lsize : 256, lsize));
	snprintf(what, sizeof(what), "%u values, %u bins%s", n, nbins,
		 local ? ", work-groups of " : "");
	if (local)
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
			 "%zu", lsize);
	stats_print(self, name, what);
	for (i = 0; i < NBINS; i++)
		if (bins[i] != want[i] && bad++ < 5)
			TH_LOG("bin %u: %d, CPU %d", i, bins[i], want[i]);
	EXPECT_EQ(0, bad);
	clReleaseKernel(k);
	free(data);
	free(bins);
}

TEST_F(wl, histogram_global)
{
	histogram(_metadata, self, "histogram_global", 0);
}

TEST_F(wl, histogram_local)
{
	histogram(_metadata, self, "histogram_local", 1);
}

/* As the kernel's struct node: pointers are 64-bit on both sides. */
struct node {
	struct node *next;
	int64_t value;
	int64_t prefix;
};

#define LISTS	16

TEST_F(wl, list_walk)
{
	cl_uint per = 64 * scale, n = LISTS * per, lists = LISTS, i, j, bad = 0;
	struct node **nodes = malloc(n * sizeof(*nodes)), **heads, *p, *t;
	int64_t *sum = malloc(LISTS * sizeof(int64_t)), s;
	int *len = malloc(LISTS * sizeof(int));
	cl_kernel k = make_kernel(self, "list_walk");
	char what[64];

	ASSERT_NE(NULL, k);
	/* The kernel's struct head: one pointer, as heads[i] here. */
	heads = malloc(LISTS * sizeof(*heads));
	ASSERT_TRUE(nodes && heads && sum && len);
	/* Nodes malloc'd one by one, then linked in a shuffled order. */
	for (i = 0; i < n; i++) {
		nodes[i] = malloc(sizeof(struct node));
		ASSERT_NE(NULL, nodes[i]);
		nodes[i]->value = (int64_t)(int32_t)rng() * 1000 + i;
		nodes[i]->prefix = -1;
	}
	for (i = n - 1; i > 0; i--) {
		j = rng() % (i + 1);
		t = nodes[i];
		nodes[i] = nodes[j];
		nodes[j] = t;
	}
	/* List l: nodes l, l + LISTS, l + 2 LISTS... of the shuffled order. */
	for (i = 0; i < LISTS; i++) {
		heads[i] = nodes[i];
		sum[i] = 0;
		len[i] = 0;
	}
	for (i = 0; i < n; i++)
		nodes[i]->next = i + LISTS < n ? nodes[i + LISTS] : NULL;
	ARG_PTR(k, 0, heads);
	ARG_VAL(k, 1, lists);
	ARG_PTR(k, 2, sum);
	ARG_PTR(k, 3, len);
	stats_start(self);
	ASSERT_EQ(CL_SUCCESS, launch(self, k, LISTS, 0));
	snprintf(what, sizeof(what), "%u lists of %u malloc'd nodes",
		 LISTS, per);
	stats_print(self, "list_walk", what);
	for (i = 0; i < LISTS; i++) {
		s = 0;
		j = 0;
		for (p = heads[i]; p; p = p->next, j++) {
			s += p->value;
			if (p->prefix != s && bad++ < 5)
				TH_LOG("list %u node %u: prefix %" PRId64
				       ", CPU %" PRId64, i, j, p->prefix, s);
		}
		if ((sum[i] != s || (cl_uint)len[i] != j) && bad++ < 5)
			TH_LOG("list %u: sum %" PRId64 " length %d, CPU %"
			       PRId64 " %u", i, sum[i], len[i], s, j);
	}
	EXPECT_EQ(0, bad);
	clReleaseKernel(k);
	for (i = 0; i < n; i++)
		free(nodes[i]);
	free(nodes);
	free(heads);
	free(sum);
	free(len);
}

#define main harness_main
TEST_HARNESS_MAIN
#undef main

/* Take -p NAME and -s SCALE off argv; the rest goes to the harness. */
int main(int argc, char **argv)
{
	char **rest = calloc(argc + 1, sizeof(char *));
	int i, n = 0, status;

	if (!rest)
		return 1;
	rest[n++] = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			platform_want = argv[++i];
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			scale = strtoul(argv[++i], NULL, 0);
			if (!scale || scale > 4096) {
				fprintf(stderr, "workloads: -s takes 1 to 4096\n");
				return 2;
			}
		} else {
			rest[n++] = argv[i];
		}
	}
	status = probe();
	if (status)
		return status;
	return harness_main(n, rest);
}
