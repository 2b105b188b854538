// SPDX-License-Identifier: GPL-2.0
/*
 * nvsvm-demo: the GPU walks a data structure the CPU built with malloc.
 *
 * The CPU builds linked lists of nodes allocated one by one with malloc(),
 * linked in a shuffled order, and an array of integers. It hands the GPU
 * nothing but the head pointers and the array pointer: no copy, no
 * registration, no NVSVM_IOCTL_MAP. Each GPC runs NVSVM_OP_CHASE on one
 * list, adding an increment to every node; every page the GPU touches
 * first raises a replayable fault that nvsvm serves through HMM. A second
 * pass runs on the warm page tables, then NVSVM_OP_SUM adds up the array.
 * The CPU checks every node and the sum.
 *
 * It prints what happened, with the driver's debugfs counters (faults,
 * batches, pages mapped, replays) read before and after each step, and
 * exits 0 only when every check passed (1 otherwise, 2 for bad usage).
 *
 * usage: nvsvm-demo [-d GPU] [-n NODES] [-l LISTS] [-a ARRAY_WORDS]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libnvsvm.h"

#define PAGE_SIZE	((uint64_t)4096)
#define MAX_LISTS	32
#define INCREMENT	7	/* added to each node's data by each pass */
#define TIMEOUT_MS	300000

/* A node as the CPU sees it; the GPU only knows two offsets into it. */
struct node {
	struct node *next;
	uint64_t data;
	uint64_t id;
};

/* The debugfs counters the demo reports, see src/debugfs.c. */
enum { C_FAULTS, C_DUPS, C_BATCHES, C_FAULT_PAGES, C_PAGES_MAPPED, C_REPLAYS,
       C_CANCELS, C_COUNT };
static const char *const counter_name[C_COUNT] = {
	"faults", "fault_dups", "batches", "fault_pages", "pages_mapped",
	"replays", "cancels",
};

struct counters {
	uint64_t v[C_COUNT];
	int err;	/* 0, or why they could not be read */
};

/* One GPC's share of the work: a channel and the head of one list. */
struct walker {
	int fd;
	uint32_t chan;
	uint32_t gpc;
	struct node *head;
	uint64_t nodes;		/* nodes in the list */
	struct nvsvm_exec exec;	/* outcome */
	uint64_t visited;	/* CHASE result */
	int ret;		/* nvsvm_exec() return */
};

static unsigned int gpu_index;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void read_counters(struct counters *c)
{
	int i;

	c->err = 0;
	for (i = 0; i < C_COUNT && !c->err; i++)
		c->err = nvsvm_stat_read(gpu_index, counter_name[i], &c->v[i]);
}

/* "N faults (D duplicates) in B batches, ..." between two readings. */
static void print_counters(const char *indent, const struct counters *a,
			   const struct counters *b)
{
	uint64_t d[C_COUNT];
	int i;

	if (a->err || b->err) {
		printf("%s(driver counters unavailable: %s; is debugfs mounted?)\n",
		       indent, strerror(-(a->err ? a->err : b->err)));
		return;
	}
	for (i = 0; i < C_COUNT; i++)
		d[i] = b->v[i] - a->v[i];
	printf("%s%" PRIu64 " faults (%" PRIu64 " duplicates) in %" PRIu64
	       " batches, %" PRIu64 " pages mapped by faults, %" PRIu64
	       " replays, %" PRIu64 " cancels; %" PRIu64
	       " pages mapped on the GPU now\n",
	       indent, d[C_FAULTS], d[C_DUPS], d[C_BATCHES], d[C_FAULT_PAGES],
	       d[C_REPLAYS], d[C_CANCELS], b->v[C_PAGES_MAPPED]);
}

/* A small deterministic generator, so that every run builds the same. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Allocate @n nodes with malloc, then link them, in a shuffled order, into
 * @nlists lists: node k of the shuffled order goes to list k % @nlists.
 * Consecutive hops of a list land on unrelated heap addresses, and the
 * lists share pages, so that the GPCs fault on the same pages at once.
 */
static struct node **build_lists(uint64_t n, unsigned int nlists,
				 struct walker *w)
{
	struct node **nodes, *tail[MAX_LISTS] = { NULL };
	uint64_t i, j;
	unsigned int l;

	nodes = malloc(n * sizeof(*nodes));
	if (!nodes)
		return NULL;
	for (i = 0; i < n; i++) {
		nodes[i] = malloc(sizeof(struct node));
		if (!nodes[i])
			return NULL;	/* the process exits */
		nodes[i]->id = i;
		nodes[i]->data = i * 1000;
		nodes[i]->next = NULL;
	}
	/* Fisher-Yates on a copy of the order; nodes[] keeps id order. */
	{
		struct node **order = malloc(n * sizeof(*order));

		if (!order)
			return NULL;
		memcpy(order, nodes, n * sizeof(*order));
		for (i = n - 1; i > 0; i--) {
			struct node *t;

			j = rng() % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < n; i++) {
			l = i % nlists;
			if (tail[l])
				tail[l]->next = order[i];
			else
				w[l].head = order[i];
			tail[l] = order[i];
			w[l].nodes++;
		}
		free(order);
	}
	return nodes;
}

static void *walk(void *arg)
{
	struct walker *w = arg;
	struct nvsvm_op op;

	/* The whole GPU program: follow ->next from the head, add to ->data. */
	op = nvsvm_op_chase(nvsvm_ptr(w->head), w->nodes, INCREMENT,
			    offsetof(struct node, next),
			    offsetof(struct node, data));
	w->ret = nvsvm_exec(w->fd, w->chan, w->gpc, &op, 1, TIMEOUT_MS,
			    &w->exec);
	w->visited = op.result;
	return NULL;
}

/* Run every walker on its own GPC at once; 0 when all of them succeeded. */
static int run_pass(struct walker *w, unsigned int nlists, double *ms)
{
	pthread_t th[MAX_LISTS];
	double t0 = now_ms();
	unsigned int l;
	int bad = 0;

	for (l = 0; l < nlists; l++)
		if (pthread_create(&th[l], NULL, walk, &w[l])) {
			w[l].ret = -EAGAIN;
			th[l] = 0;
		}
	for (l = 0; l < nlists; l++)
		if (th[l])
			pthread_join(th[l], NULL);
	*ms = now_ms() - t0;

	for (l = 0; l < nlists; l++) {
		if (w[l].ret) {
			printf("  list %u: EXEC failed: %s\n", l,
			       strerror(-w[l].ret));
			bad = 1;
		} else if (w[l].exec.status != NVSVM_EXEC_OK) {
			printf("  list %u: GPU status %s at 0x%llx (%s access)\n",
			       l, nvsvm_status_name(w[l].exec.status),
			       (unsigned long long)w[l].exec.fault_addr,
			       nvsvm_access_name(w[l].exec.fault_access));
			bad = 1;
		} else if (w[l].visited != w[l].nodes) {
			printf("  list %u: GPU visited %" PRIu64 " of %" PRIu64
			       " nodes\n", l, w[l].visited, w[l].nodes);
			bad = 1;
		}
	}
	return bad;
}

/* How many pages of [lo, hi) have a valid GPU PTE (QUERY, not MAP). */
static long gpu_pages_valid(int fd, uint64_t lo, uint64_t hi)
{
	uint64_t start = lo & ~(PAGE_SIZE - 1), npages, i;
	uint32_t *e;
	long valid = 0;
	int ret;

	npages = (hi - start + PAGE_SIZE - 1) / PAGE_SIZE;
	if (npages > NVSVM_QUERY_MAX)
		return -E2BIG;
	e = calloc(npages, sizeof(*e));
	if (!e)
		return -ENOMEM;
	ret = nvsvm_query(fd, start, npages, e);
	for (i = 0; !ret && i < npages; i++)
		valid += !!(e[i] & NVSVM_QUERY_VALID);
	free(e);
	return ret ? ret : valid;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: nvsvm-demo [-d GPU] [-n NODES] [-l LISTS] [-a ARRAY_WORDS]\n"
		"  -d GPU          use /dev/nvsvmGPU (default 0)\n"
		"  -n NODES        nodes to malloc and link (default 100000)\n"
		"  -l LISTS        lists, one per GPC walking (default: GPC count, at most 4)\n"
		"  -a ARRAY_WORDS  64-bit words of the array to SUM (default 524288)\n");
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' || *v < min || *v > max;
}

int main(int argc, char **argv)
{
	uint64_t n = 100000, words = 1 << 19, lists = 0, v, lo, hi, i, sum;
	struct walker w[MAX_LISTS] = { { 0 } };
	struct counters c0, c1, c2, c3;
	struct nvsvm_get_info info;
	struct nvsvm_exec ex;
	struct node **nodes;
	long before, after;
	unsigned int l;
	int fd, c, ret, bad = 0;
	double ms1, ms2, t0, ms3;
	struct nvsvm_op op;
	uint64_t *array;

	while ((c = getopt(argc, argv, "d:n:l:a:h")) != -1) {
		switch (c) {
		case 'd':
			if (parse_u64(optarg, 0, 31, &v))
				goto bad_usage;
			gpu_index = v;
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1 << 24, &n))
				goto bad_usage;
			break;
		case 'l':
			if (parse_u64(optarg, 1, MAX_LISTS, &lists))
				goto bad_usage;
			break;
		case 'a':
			if (parse_u64(optarg, 1, (1ULL << 30) / 8, &words))
				goto bad_usage;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad_usage;
		}
	}
	if (optind != argc)
		goto bad_usage;

	/* 1. Open the GPU and mirror this process on it. */
	fd = nvsvm_open(gpu_index);
	if (fd < 0) {
		fprintf(stderr, "nvsvm-demo: /dev/nvsvm%u: %s (modprobe nvsvm_vgpu?)\n",
			gpu_index, strerror(-fd));
		return 1;
	}
	ret = nvsvm_get_info(fd, &info);
	if (ret) {
		fprintf(stderr, "nvsvm-demo: GET_INFO: %s\n", strerror(-ret));
		return 1;
	}
	if (!(info.caps & NVSVM_CAP_EXEC)) {
		fprintf(stderr, "nvsvm-demo: nvsvm%u cannot run programs (no NVSVM_CAP_EXEC); the virtual GP100 (nvsvm_vgpu) can\n",
			gpu_index);
		return 1;
	}
	if (!lists)
		lists = info.gpc_count < 4 ? info.gpc_count : 4;
	if (!lists)
		lists = 1;
	/* No unmanaged window: the whole address space is mirrored. */
	ret = nvsvm_area_init(fd, 0, 0);
	if (ret) {
		fprintf(stderr, "nvsvm-demo: AREA_INIT: %s\n", strerror(-ret));
		return 1;
	}
	for (l = 0; l < lists; l++) {
		w[l].fd = fd;
		w[l].gpc = l % info.gpc_count;
		ret = nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &w[l].chan);
		if (ret) {
			fprintf(stderr, "nvsvm-demo: CHAN_CREATE: %s\n",
				strerror(-ret));
			return 1;
		}
	}
	printf("nvsvm-demo: GPU nvsvm%u (chipset 0x%x, %u GPCs, %u-entry fault buffer); no MAP call: every GPU page comes from a replayable fault\n",
	       gpu_index, info.chipset, info.gpc_count,
	       info.fault_buffer_entries);

	/* 2. The CPU builds the lists with plain malloc pointers. */
	nodes = build_lists(n, lists, w);
	if (!nodes) {
		fprintf(stderr, "nvsvm-demo: out of memory\n");
		return 1;
	}
	lo = hi = nvsvm_ptr(nodes[0]);
	for (i = 0; i < n; i++) {
		v = nvsvm_ptr(nodes[i]);
		lo = v < lo ? v : lo;
		hi = v + sizeof(struct node) > hi ? v + sizeof(struct node) : hi;
	}
	before = gpu_pages_valid(fd, lo, hi);
	printf("CPU: malloc'd %" PRIu64 " nodes of %zu bytes (%.1f MiB of heap, %" PRIu64
	       " pages), linked in shuffled order into %" PRIu64 " lists\n",
	       n, sizeof(struct node), (hi - lo) / 1048576.0,
	       (hi - (lo & ~(PAGE_SIZE - 1)) + PAGE_SIZE - 1) / PAGE_SIZE,
	       lists);

	/* 3. The GPU walks every list, one GPC per list: cold, then warm. */
	read_counters(&c0);
	bad |= run_pass(w, lists, &ms1);
	read_counters(&c1);
	after = gpu_pages_valid(fd, lo, hi);
	printf("GPU pass 1: walked %" PRIu64 " nodes on %" PRIu64
	       " GPCs, +%d each, in %.0f ms:\n", n, lists, INCREMENT, ms1);
	print_counters("  ", &c0, &c1);
	if (before >= 0 && after >= 0)
		printf("  node pages with a GPU mapping: %ld before, %ld after (read back with QUERY)\n",
		       before, after);

	bad |= run_pass(w, lists, &ms2);
	read_counters(&c2);
	printf("GPU pass 2: walked them again in %.0f ms (%.1fx faster, page tables warm):\n",
	       ms2, ms2 > 0 ? ms1 / ms2 : 0.0);
	print_counters("  ", &c1, &c2);

	/* 4. A SUM over a malloc'd array (large: glibc mmaps it). */
	array = malloc(words * sizeof(*array));
	if (!array) {
		fprintf(stderr, "nvsvm-demo: out of memory\n");
		return 1;
	}
	for (i = 0; i < words; i++)
		array[i] = i * 3 + 1;
	op = nvsvm_op_sum(nvsvm_ptr(array), words * sizeof(*array));
	t0 = now_ms();
	ret = nvsvm_exec(fd, w[0].chan, NVSVM_GPC_ANY, &op, 1, TIMEOUT_MS, &ex);
	ms3 = now_ms() - t0;
	read_counters(&c3);
	sum = 0;
	for (i = 0; i < words; i++)
		sum += array[i];
	if (ret || ex.status != NVSVM_EXEC_OK || op.result != sum) {
		printf("GPU SUM: FAILED: %s, status %s, result %" PRIu64
		       ", CPU says %" PRIu64 "\n", ret ? strerror(-ret) : "ok",
		       ret ? "-" : nvsvm_status_name(ex.status), (uint64_t)op.result,
		       sum);
		bad = 1;
	} else {
		printf("GPU SUM of a malloc'd %.1f MiB array: %" PRIu64
		       " (CPU agrees) in %.0f ms:\n",
		       words * 8 / 1048576.0, (uint64_t)op.result, ms3);
	}
	print_counters("  ", &c2, &c3);

	/* 5. The CPU checks every node: two passes added 2 * INCREMENT. */
	v = 0;
	for (i = 0; i < n; i++)
		if (nodes[i]->data != i * 1000 + 2 * INCREMENT) {
			if (v++ < 5)
				printf("  node %" PRIu64 ": data %" PRIu64
				       ", expected %" PRIu64 "\n", i,
				       nodes[i]->data,
				       i * 1000 + 2 * INCREMENT);
		}
	if (v)
		bad = 1;
	if (bad)
		printf("CPU check: FAILED (%" PRIu64 " of %" PRIu64
		       " nodes wrong, see above)\n", v, n);
	else
		printf("CPU check: all %" PRIu64 " nodes hold their value + %d (two GPU passes of +%d), the sum is right: all correct\n",
		       n, 2 * INCREMENT, INCREMENT);

	for (i = 0; i < n; i++)
		free(nodes[i]);
	free(nodes);
	free(array);
	nvsvm_close(fd);	/* destroys the channels and the area */
	return bad;

bad_usage:
	usage(stderr);
	return 2;
}
