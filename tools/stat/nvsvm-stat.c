// SPDX-License-Identifier: GPL-2.0
/*
 * nvsvm-stat: show the counters nvsvm.ko keeps for each GPU in debugfs,
 * /sys/kernel/debug/nvsvm/nvsvmN/<counter> (see src/debugfs.c).
 *
 * Once (the default) it prints every counter of every GPU, with the fault
 * service latency histogram summarised as its p50 and p99 buckets. With
 * -i SECONDS it then prints, every interval, one line per GPU with the
 * rates of the interval; -n COUNT stops after COUNT intervals.
 *
 * Exit status: 0; 1 when a counter cannot be read (a GPU went away);
 * 2 for bad usage, debugfs not mounted or readable, or no GPU.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define DEBUGFS_DEFAULT		"/sys/kernel/debug"
#define DEBUGFS_MAGIC		0x64626720
#define MAX_GPUS		32	/* NVSVM_MAX_DEVICES */
#define LAT_BUCKETS		64	/* the kernel has 24; room to grow */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* The counter files, in the order of enum nvsvm_stat. */
enum counter {
	ST_PT_BYTES,
	ST_PAGES_MAPPED,
	ST_FAULTS,
	ST_FAULT_DUPS,
	ST_BATCHES,
	ST_RANGES,
	ST_FAULT_PAGES,
	ST_REPLAYS,
	ST_CANCELS,
	ST_INVALIDATES,
	ST_OVERFLOWS,
	ST_STALE,
	ST_PREFETCH_RANGES,
	ST_ATOMIC_EXCLUSIVE,
	ST_ATOMIC_SHARED,
	ST_VRAM_PAGES,
	ST_MIGRATED_VRAM,
	ST_MIGRATED_SYS,
	ST_EVICTIONS,
	ST_EVICTED_PAGES,
	ST_EVICTIONS_BG,
	ST_EVICTOR_RUNS,
	ST_EVICTIONS_COLD,
	ST_SAMPLE_PASSES,
	ST_SAMPLED_CHUNKS,
	ST_SAMPLED_BLOCKS,
	ST_SAMPLE_REFAULTS,
	ST_NS_SAMPLE,
	ST_THRASHING,
	ST_THRASH_SKIPS,
	ST_NS_WAKE,
	ST_NS_DRAIN,
	ST_NS_SORT,
	ST_NS_SERVE,
	ST_NS_HMM,
	ST_NS_PTE,
	ST_NS_INVAL,
	ST_NS_REPLAY,
	ST_NS_EVICT_SYNC,
	ST_COUNT
};

static const char *const stat_file[ST_COUNT] = {
	[ST_PT_BYTES] = "pt_bytes",
	[ST_PAGES_MAPPED] = "pages_mapped",
	[ST_FAULTS] = "faults",
	[ST_FAULT_DUPS] = "fault_dups",
	[ST_BATCHES] = "batches",
	[ST_RANGES] = "ranges",
	[ST_FAULT_PAGES] = "fault_pages",
	[ST_REPLAYS] = "replays",
	[ST_CANCELS] = "cancels",
	[ST_INVALIDATES] = "invalidates",
	[ST_OVERFLOWS] = "overflows",
	[ST_STALE] = "stale",
	[ST_PREFETCH_RANGES] = "prefetch_ranges",
	[ST_ATOMIC_EXCLUSIVE] = "atomic_exclusive",
	[ST_ATOMIC_SHARED] = "atomic_shared",
	[ST_VRAM_PAGES] = "vram_pages",
	[ST_MIGRATED_VRAM] = "migrated_to_vram",
	[ST_MIGRATED_SYS] = "migrated_to_sysmem",
	[ST_EVICTIONS] = "evictions",
	[ST_EVICTED_PAGES] = "evicted_pages",
	[ST_EVICTIONS_BG] = "evictions_bg",
	[ST_EVICTOR_RUNS] = "evictor_runs",
	[ST_EVICTIONS_COLD] = "evictions_cold",
	[ST_SAMPLE_PASSES] = "sample_passes",
	[ST_SAMPLED_CHUNKS] = "sampled_chunks",
	[ST_SAMPLED_BLOCKS] = "sampled_blocks",
	[ST_SAMPLE_REFAULTS] = "sample_refaults",
	[ST_NS_SAMPLE] = "ns_sample",
	[ST_THRASHING] = "thrashing",
	[ST_THRASH_SKIPS] = "thrash_skips",
	[ST_NS_WAKE] = "ns_wake",
	[ST_NS_DRAIN] = "ns_drain",
	[ST_NS_SORT] = "ns_sort",
	[ST_NS_SERVE] = "ns_serve",
	[ST_NS_HMM] = "ns_hmm",
	[ST_NS_PTE] = "ns_pte",
	[ST_NS_INVAL] = "ns_invalidate",
	[ST_NS_REPLAY] = "ns_replay",
	[ST_NS_EVICT_SYNC] = "ns_evict_sync",
};

/**
 * struct sample - one reading of a GPU's counters
 * @stat: the counters, by enum counter
 * @lat: latency histogram counts; bucket k counts [2^(k-1), 2^k) us
 * @lat_bound: upper bound in us of each bucket, as the kernel prints it
 * @nlat: buckets read
 * @when: CLOCK_MONOTONIC time of the reading, in seconds
 */
struct sample {
	uint64_t stat[ST_COUNT];
	uint64_t lat[LAT_BUCKETS];
	uint64_t lat_bound[LAT_BUCKETS];
	unsigned int nlat;
	double when;
};

/**
 * struct gpu - one GPU found in debugfs
 * @index: N of nvsvmN
 * @dirfd: its debugfs directory
 * @prev: last sample, for rates
 */
struct gpu {
	unsigned int index;
	int dirfd;
	struct sample prev;
};

static const char *prog = "nvsvm-stat";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-d N] [-i SECONDS] [-n COUNT] [-r DEBUGFS]\n"
		"Show the nvsvm counters of each GPU (from debugfs).\n"
		"  -d N        only GPU N (/dev/nvsvmN)\n"
		"  -i SECONDS  after the totals, print the rates of each interval\n"
		"  -n COUNT    stop after COUNT intervals (implies -i 1 if no -i)\n"
		"  -r DEBUGFS  where debugfs is mounted (default " DEBUGFS_DEFAULT ")\n"
		"  -h          this help\n"
		"Exit status: 0 ok, 1 a counter could not be read, 2 usage error,\n"
		"debugfs not mounted or not readable, or no GPU.\n", prog);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read a small file of a GPU directory into @buf; 0 or -errno. */
static int read_file(int dirfd, const char *name, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, err = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return err;
}

static int parse_u64(const char *s, char **end, uint64_t *val)
{
	unsigned long long v;

	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || *end == s)
		return -EINVAL;
	*val = v;
	return 0;
}

/* fault_latency_us: one line per bucket, "<upper bound in us> <count>". */
static int read_latency(int dirfd, struct sample *s)
{
	char buf[4096], *p = buf, *end;
	uint64_t bound, count;
	int ret;

	ret = read_file(dirfd, "fault_latency_us", buf, sizeof(buf));
	if (ret)
		return ret;
	s->nlat = 0;
	while (*p && s->nlat < LAT_BUCKETS) {
		if (parse_u64(p, &end, &bound) || parse_u64(end, &end, &count))
			return -EINVAL;
		s->lat_bound[s->nlat] = bound;
		s->lat[s->nlat++] = count;
		p = end + strspn(end, " \n");
	}
	return 0;
}

/* Read every counter of @g; 0 or -errno, with the file in @failed. */
static int read_sample(struct gpu *g, struct sample *s, const char **failed)
{
	char buf[64], *end;
	int i, ret;

	for (i = 0; i < ST_COUNT; i++) {
		*failed = stat_file[i];
		ret = read_file(g->dirfd, stat_file[i], buf, sizeof(buf));
		if (!ret && (parse_u64(buf, &end, &s->stat[i]) ||
			     (*end && *end != '\n')))
			ret = -EINVAL;
		if (ret)
			return ret;
	}
	*failed = "fault_latency_us";
	ret = read_latency(g->dirfd, s);
	s->when = now();
	return ret;
}

/*
 * The bucket where a fraction @q of the samples is reached, written as
 * "<N us" (the bucket's upper bound); the last bucket is open ended.
 * @base, if not NULL, is subtracted first (an interval's histogram).
 */
/* @cur - @old, or @cur when the counter went back (module reloaded). */
static uint64_t delta(uint64_t cur, uint64_t old)
{
	return cur >= old ? cur - old : cur;
}

static void lat_quantile(const struct sample *s, const struct sample *base,
			 double q, char *out, size_t size)
{
	uint64_t total = 0, seen = 0, c;
	unsigned int k;

	for (k = 0; k < s->nlat; k++)
		total += base ? delta(s->lat[k], base->lat[k]) : s->lat[k];
	if (!total) {
		snprintf(out, size, "-");
		return;
	}
	for (k = 0; k < s->nlat; k++) {
		c = base ? delta(s->lat[k], base->lat[k]) : s->lat[k];
		seen += c;
		if (c && seen >= q * total)
			break;
	}
	if (k >= s->nlat - 1)
		snprintf(out, size, ">=%" PRIu64 "us",
			 s->nlat > 1 ? s->lat_bound[s->nlat - 2] : 0);
	else if (s->lat_bound[k] >= 10000)
		snprintf(out, size, "<%" PRIu64 "ms", s->lat_bound[k] / 1000);
	else
		snprintf(out, size, "<%" PRIu64 "us", s->lat_bound[k]);
}

/*
 * Where the fault path's time went (cumulative ns counters): total ms of
 * each stage, and us per batch. Serving includes hmm and the PTE writes.
 */
static void print_stages(const uint64_t *v)
{
	static const struct {
		enum counter st;
		const char *name;
	} stage[] = {
		{ ST_NS_WAKE, "wake-up" }, { ST_NS_DRAIN, "drain" },
		{ ST_NS_SORT, "sort" }, { ST_NS_SERVE, "serve" },
		{ ST_NS_HMM, " hmm" }, { ST_NS_PTE, " PTE write" },
		{ ST_NS_INVAL, "invalidate" }, { ST_NS_REPLAY, "replay" },
	};
	double nb = v[ST_BATCHES] ? (double)v[ST_BATCHES] : 1;
	unsigned int k;

	printf("  fault stages  %12s  %10s\n", "ms", "us/batch");
	for (k = 0; k < ARRAY_SIZE(stage); k++)
		printf("    %-12s %10.1f  %10.1f\n", stage[k].name,
		       v[stage[k].st] / 1e6, v[stage[k].st] / 1e3 / nb);
	/* Serving against its floor, hmm and the PTE writes (issue 36). */
	if (v[ST_NS_HMM] + v[ST_NS_PTE])
		printf("    serve / floor (hmm + PTE write) %.2f\n",
		       (double)v[ST_NS_SERVE] / (v[ST_NS_HMM] + v[ST_NS_PTE]));
}

static void print_totals(const struct gpu *g, const struct sample *s)
{
	const uint64_t *v = s->stat;
	uint64_t nlat = 0;
	char p50[24], p99[24];
	unsigned int k;

	for (k = 0; k < s->nlat; k++)
		nlat += s->lat[k];
	lat_quantile(s, NULL, 0.50, p50, sizeof(p50));
	lat_quantile(s, NULL, 0.99, p99, sizeof(p99));

	printf("nvsvm%u:\n", g->index);
	printf("  faults        %12" PRIu64 "  (duplicates %" PRIu64
	       ", stale %" PRIu64 ")\n",
	       v[ST_FAULTS], v[ST_FAULT_DUPS], v[ST_STALE]);
	printf("  batches       %12" PRIu64 "  (ranges %" PRIu64
	       ", pages mapped by faults %" PRIu64 ")\n",
	       v[ST_BATCHES], v[ST_RANGES], v[ST_FAULT_PAGES]);
	printf("  prefetch      %12" PRIu64 "  ranges grown\n",
	       v[ST_PREFETCH_RANGES]);
	printf("  atomics       %12" PRIu64 "  pages exclusive (%" PRIu64
	       " shared)\n", v[ST_ATOMIC_EXCLUSIVE], v[ST_ATOMIC_SHARED]);
	printf("  replays       %12" PRIu64 "\n", v[ST_REPLAYS]);
	printf("  cancels       %12" PRIu64 "\n", v[ST_CANCELS]);
	printf("  invalidates   %12" PRIu64 "\n", v[ST_INVALIDATES]);
	printf("  overflows     %12" PRIu64 "\n", v[ST_OVERFLOWS]);
	printf("  pages mapped  %12" PRIu64 "  (%.1f MiB)\n",
	       v[ST_PAGES_MAPPED], v[ST_PAGES_MAPPED] / 256.0);
	printf("  page tables   %12" PRIu64 "  bytes (%.1f KiB)\n",
	       v[ST_PT_BYTES], v[ST_PT_BYTES] / 1024.0);
	printf("  VRAM pages    %12" PRIu64 "  (migrated to VRAM %" PRIu64
	       ", back to system memory %" PRIu64 ")\n",
	       v[ST_VRAM_PAGES], v[ST_MIGRATED_VRAM], v[ST_MIGRATED_SYS]);
	printf("  evictions     %12" PRIu64 "  VRAM chunks (%" PRIu64
	       " pages back to system memory)\n",
	       v[ST_EVICTIONS], v[ST_EVICTED_PAGES]);
	printf("    background  %12" PRIu64 "  chunks by the evictor (%" PRIu64
	       " passes); moves waited %.1f ms for their own\n",
	       v[ST_EVICTIONS_BG], v[ST_EVICTOR_RUNS],
	       v[ST_NS_EVICT_SYNC] / 1e6);
	printf("    cold        %12" PRIu64 "  chunks the recency sampler found unused\n",
	       v[ST_EVICTIONS_COLD]);
	printf("  sampling      %12" PRIu64 "  passes: %" PRIu64 " chunks, %"
	       PRIu64 " 2 MiB ranges unmapped, %" PRIu64
	       " chunks faulted back; %.1f ms\n",
	       v[ST_SAMPLE_PASSES], v[ST_SAMPLED_CHUNKS], v[ST_SAMPLED_BLOCKS],
	       v[ST_SAMPLE_REFAULTS], v[ST_NS_SAMPLE] / 1e6);
	printf("  thrashing     %12" PRIu64 "  2 MiB blocks kept in system memory (%"
	       PRIu64 " moves to VRAM skipped)\n",
	       v[ST_THRASHING], v[ST_THRASH_SKIPS]);
	printf("  fault latency   p50 %s, p99 %s (%" PRIu64 " batches timed)\n",
	       p50, p99, nlat);
	print_stages(v);
}

static void print_rate_header(void)
{
	printf("%-7s %9s %8s %8s %8s %8s %8s %8s %5s %9s %8s %7s %7s\n",
	       "gpu", "faults/s", "dups/s", "batch/s", "range/s", "replay/s",
	       "cancel/s", "inval/s", "ovfl", "mapped", "pt_KiB", "p50",
	       "p99");
}

static void print_rates(const struct gpu *g, const struct sample *s)
{
	const struct sample *b = &g->prev;
	double dt = s->when - b->when;
	char name[16], p50[24], p99[24];

#define RATE(st)	((double)delta(s->stat[st], b->stat[st]) / dt)
	if (dt <= 0)
		dt = 1e-9;
	snprintf(name, sizeof(name), "nvsvm%u", g->index);
	lat_quantile(s, b, 0.50, p50, sizeof(p50));
	lat_quantile(s, b, 0.99, p99, sizeof(p99));
	printf("%-7s %9.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %5" PRIu64
	       " %9" PRIu64 " %8.0f %7s %7s\n",
	       name, RATE(ST_FAULTS), RATE(ST_FAULT_DUPS), RATE(ST_BATCHES),
	       RATE(ST_RANGES), RATE(ST_REPLAYS), RATE(ST_CANCELS),
	       RATE(ST_INVALIDATES),
	       delta(s->stat[ST_OVERFLOWS], b->stat[ST_OVERFLOWS]),
	       s->stat[ST_PAGES_MAPPED], s->stat[ST_PT_BYTES] / 1024.0, p50, p99);
#undef RATE
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int ua = *(const unsigned int *)a, ub = *(const unsigned int *)b;

	return (ua > ub) - (ua < ub);
}

static int cmp_gpu(const void *a, const void *b)
{
	const struct gpu *ga = a, *gb = b;

	return (ga->index > gb->index) - (ga->index < gb->index);
}

/* Explain why <root>/nvsvm cannot be opened; always returns 2. */
static int no_nvsvm_dir(const char *root, const char *dir, int err)
{
	struct statfs sfs;

	if (err == EACCES || err == EPERM) {
		fprintf(stderr, "%s: cannot read %s: %s (debugfs is readable by root only)\n",
			prog, dir, strerror(err));
		return 2;
	}
	if (statfs(root, &sfs) || sfs.f_type != DEBUGFS_MAGIC) {
		fprintf(stderr, "%s: debugfs is not mounted at %s\n"
			"  mount it with: mount -t debugfs none %s\n",
			prog, root, root);
		return 2;
	}
	fprintf(stderr, "%s: no nvsvm GPU: %s: %s\n"
		"  is the module loaded? try: modprobe nvsvm_vgpu\n",
		prog, dir, strerror(err));
	return 2;
}

/* Find the GPUs (only @only if it is >= 0); returns how many, or -2. */
static int find_gpus(const char *root, int only, struct gpu *gpus)
{
	char dir[4096], have[MAX_GPUS * 16] = "";
	unsigned int idx, len = 0, seen[MAX_GPUS], nseen = 0, i;
	struct dirent *de;
	int n = 0, dfd, fd;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/nvsvm", root);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		no_nvsvm_dir(root, dir, errno);
		return -2;
	}
	while ((de = readdir(d)) && n < MAX_GPUS) {
		char extra;

		if (sscanf(de->d_name, "nvsvm%u%c", &idx, &extra) != 1)
			continue;
		if (nseen < MAX_GPUS)
			seen[nseen++] = idx;
		if (only >= 0 && idx != (unsigned int)only)
			continue;
		fd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s/%s: %s\n", prog, dir,
				de->d_name, strerror(errno));
			continue;
		}
		gpus[n].index = idx;
		gpus[n++].dirfd = fd;
	}
	closedir(d);
	qsort(seen, nseen, sizeof(seen[0]), cmp_uint);
	for (i = 0; i < nseen && len < sizeof(have) - 16; i++)
		len += snprintf(have + len, sizeof(have) - len, " nvsvm%u",
				seen[i]);
	if (!n && only >= 0 && have[0])
		fprintf(stderr, "%s: no GPU nvsvm%d; present:%s\n", prog, only,
			have);
	else if (!n)
		fprintf(stderr, "%s: no nvsvm GPU in %s\n"
			"  is a GPU provider loaded? try: modprobe nvsvm_vgpu\n",
			prog, dir);
	if (!n)
		return -2;
	qsort(gpus, n, sizeof(gpus[0]), cmp_gpu);
	return n;
}

static int parse_uint(const char *arg, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	return errno || end == arg || *end || *arg == '-' || *out > max ?
	       -EINVAL : 0;
}

int main(int argc, char **argv)
{
	unsigned long dev = 0, count = 0, interval = 0, done;
	const char *root = DEBUGFS_DEFAULT, *failed;
	struct gpu gpus[MAX_GPUS];
	struct timespec next;
	int only = -1, n, i, c, ret;
	struct sample s;

	while ((c = getopt(argc, argv, "d:i:n:r:h")) != -1) {
		switch (c) {
		case 'd':
			if (parse_uint(optarg, MAX_GPUS - 1, &dev))
				goto bad_arg;
			only = dev;
			break;
		case 'i':
			if (parse_uint(optarg, 86400, &interval) || !interval)
				goto bad_arg;
			break;
		case 'n':
			if (parse_uint(optarg, ~0UL, &count) || !count)
				goto bad_arg;
			break;
		case 'r':
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (count && !interval)
		interval = 1;

	n = find_gpus(root, only, gpus);
	if (n < 0)
		return 2;

	for (i = 0; i < n; i++) {
		ret = read_sample(&gpus[i], &gpus[i].prev, &failed);
		if (ret)
			goto read_error;
		if (i)
			putchar('\n');
		print_totals(&gpus[i], &gpus[i].prev);
	}
	if (!interval)
		return 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (done = 0; !count || done < count; done++) {
		next.tv_sec += interval;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (done % 20 == 0) {
			putchar('\n');
			print_rate_header();
		}
		for (i = 0; i < n; i++) {
			ret = read_sample(&gpus[i], &s, &failed);
			if (ret)
				goto read_error;
			print_rates(&gpus[i], &s);
			gpus[i].prev = s;
		}
	}
	return 0;

read_error:
	fprintf(stderr, "%s: nvsvm%u/%s: %s%s\n", prog, gpus[i].index, failed,
		strerror(-ret), ret == -ENOENT || ret == -ENODEV ?
		" (the GPU went away?)" : "");
	return 1;

bad_arg:
	fprintf(stderr, "%s: bad value for -%c: '%s'\n", prog, c, optarg);
	usage(stderr);
	return 2;
}
