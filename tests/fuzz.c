// SPDX-License-Identifier: GPL-2.0
/*
 * An ioctl fuzzer for /dev/nvsvm0: random and boundary values for every
 * ioctl and field, random command numbers and sizes, bad pointers
 * (NULL, unmapped, read-only, kernel addresses, structs straddling a
 * PROT_NONE page), huge, unaligned and wrapping ranges, the unmanaged
 * window, channels that do not exist, EXEC programs of random operations,
 * window buffers (BUF_ALLOC, BUF_FREE) and mmap(2) of the file at good and
 * bad addresses, sizes, offsets and flags;
 * from the opener, from two threads at once, from a forked child and from
 * a process that received the descriptor over a unix socket.
 *
 * Every call must return 0 or an errno of the set docs/uapi.md documents
 * for that ioctl (EPERM, ENOTTY or EINVAL only, from another process but
 * GET_INFO); outputs of successful calls are checked. Afterwards the module
 * must still work (MAP, EXEC, the CPU checks the data) and every page table
 * must be back. The runner fails the run on a dirty kernel log.
 *
 * Bounded in iterations and time, seedable:
 *	fuzz [seed [iterations [seconds]]]
 * or NVSVM_FUZZ_SEED, NVSVM_FUZZ_ITERS, NVSVM_FUZZ_SECONDS. The default (no
 * arguments, as tests/run.sh runs it) is a fixed seed and a short run; the
 * seed is printed so that a failure can be replayed.
 *
 * Cases: all on the empty fixture fuzz (TEST_F_TIMEOUT() for the fuzzing
 * ones), so that they run in this order and still_works comes last.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "common.h"

#define DEF_SEED	0x5eed2026ULL
#define DEF_ITERS	4000
#define DEF_SECONDS	3

#define TGT_PAGES	64
#define GUARD		(4ULL << 30)	/* PROT_NONE on both sides of tgt */
#define ENT_BYTES	(8ULL << 20)	/* QUERY entries: 2 x the max */
#define MAX_CHANS	16
#define OPS_MAX		(NVSVM_EXEC_MAX_OPS + 1)
#define KPTR		0xffff888000000000ULL

FIXTURE_EMPTY(fuzz)

static uint64_t seed = DEF_SEED;
static unsigned long iters = DEF_ITERS;
static unsigned int seconds = DEF_SECONDS;
static uint64_t pt_base, pm_base;
static int have_stats;

/*
 * ioctls by number, then mmap(2) of the file (MMAP, not an ioctl);
 * index NIOC is "a random command".
 */
enum { BUF_ALLOC = 10, BUF_FREE, MMAP, NIOC };
static const char *const ioc_names[NIOC + 1] = {
	"GET_INFO", "AREA_INIT", "AREA_FINI", "MAP", "UNMAP", "QUERY",
	"CHAN_CREATE", "CHAN_DESTROY", "EXEC", "MIGRATE", "BUF_ALLOC",
	"BUF_FREE", "mmap", "random",
};

/* One bit per errno; EOPNOTSUPP (95) takes bit 63. */
#define E(x)	((x) == EOPNOTSUPP ? 1ULL << 63 : 1ULL << ((x) & 63))
#define COMMON	(E(ENOMEM))
/* The errno values docs/uapi.md documents, per ioctl. */
static const uint64_t allowed[NIOC + 1] = {
	[0] = E(EFAULT),
	[1] = E(EFAULT) | E(EINVAL) | E(EBUSY) | E(EPERM) | COMMON,
	[2] = E(EFAULT) | E(EINVAL) | E(EPERM) | COMMON,
	[3] = E(EFAULT) | E(EINVAL) | E(EINTR) | E(EBUSY) | E(EPERM) | COMMON,
	[4] = E(EFAULT) | E(EINVAL) | E(EPERM) | COMMON,
	[5] = E(EFAULT) | E(EINVAL) | E(EPERM) | COMMON,
	[6] = E(EFAULT) | E(EINVAL) | E(ENOSPC) | E(EPERM) | COMMON,
	[7] = E(EFAULT) | E(EINVAL) | E(ENOENT) | E(EPERM) | COMMON,
	[8] = E(EOPNOTSUPP) | E(EFAULT) | E(EINVAL) | E(ENOENT) | E(EINTR) |
	      E(EPERM) | COMMON,
	/*
	 * MIGRATE has no handler today (ENOTTY); the range errnos its
	 * handler will share with MAP are accepted so that this does not
	 * break when it lands.
	 */
	[9] = E(ENOTTY) | E(EFAULT) | E(EINVAL) | E(EINTR) | E(EBUSY) |
	      E(EPERM) | E(EOPNOTSUPP) | COMMON,
	[BUF_ALLOC] = E(EFAULT) | E(EINVAL) | E(EEXIST) | E(ENOSPC) |
		      E(EINTR) | E(EPERM) | COMMON,
	[BUF_FREE] = E(EFAULT) | E(EINVAL) | E(EPERM),
	/*
	 * The driver's EINVAL and EPERM, and what mmap(2) itself returns
	 * before the driver is asked: ENOMEM (no room at the hint),
	 * EEXIST (MAP_FIXED_NOREPLACE), EOVERFLOW (offset + length wraps).
	 */
	[MMAP] = E(EINVAL) | E(EPERM) | E(EEXIST) | E(EOVERFLOW) | COMMON,
	[NIOC] = E(ENOTTY) | E(EINVAL),
};

/* Buffers and CPU mappings one fuzzer keeps track of. */
#define MAX_BUFS	16
#define MAX_MAPS	8
#define BUF_MAX_PAGES	64	/* a valid BUF_ALLOC stays this small */

struct fzbuf {
	uint32_t handle;
	uint64_t addr, size, off;
};

struct fz {
	int fd;
	int foreign;		/* not the opener's address space */
	uint64_t rng;
	uint8_t *tgt;		/* TGT_PAGES RW, then RO, then NONE pages */
	uint8_t *ro, *none;
	uint8_t *arg;		/* struct argument page, then a PROT_NONE page */
	uint8_t *ro_arg;	/* a read-only page holding a struct */
	uint32_t *ent;		/* QUERY entries, ENT_BYTES + guard */
	struct nvsvm_op *ops;	/* OPS_MAX ops */
	uint32_t chans[MAX_CHANS];
	unsigned int nchan;
	/*
	 * Window buffers this fuzzer allocated, and its CPU mappings of them.
	 * Its MAP_FIXED mmaps stay in [wlo, whi), a part of the window no
	 * other fuzzer of the process maps in: a MAP_FIXED mmap replaces what
	 * was there even when it fails.
	 */
	struct fzbuf bufs[MAX_BUFS];
	unsigned int nbuf;
	struct fzbuf maps[MAX_MAPS];
	unsigned int nmap;
	uint64_t wlo, whi;
	/* Results. */
	unsigned long calls, ok[NIOC + 1], errs[NIOC + 1];
	unsigned long exec_status[5], bad;
	char first_bad[1024];
};

static uint64_t rnd(struct fz *z)
{
	uint64_t x = z->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	z->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(struct fz *z, uint64_t n)
{
	return n ? rnd(z) % n : 0;
}

static int chance(struct fz *z, unsigned int pct)
{
	return below(z, 100) < pct;
}

static uint64_t pick(struct fz *z, const uint64_t *v, size_t n)
{
	return v[below(z, n)];
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* An address: mostly inside the target, else somewhere interesting. */
static uint64_t faddr(struct fz *z)
{
	uint64_t t = nvsvm_ptr(z->tgt);
	const uint64_t v[] = {
		0, PAGE, t, t + TGT_PAGES * PAGE - PAGE, nvsvm_ptr(z->ro),
		nvsvm_ptr(z->none), t - GUARD / 2, WIN_ADDR,
		WIN_ADDR + WIN_SIZE - PAGE, WIN_ADDR - PAGE,
		(1ULL << 47) - PAGE, 1ULL << 47, (1ULL << 49) - PAGE,
		1ULL << 49, 1ULL << 40, KPTR, 0xffffffff81000000ULL,
		~0ULL & ~(PAGE - 1), ~0ULL, 1ULL << 63,
	};

	switch (below(z, 8)) {
	case 0: case 1: case 2:
		return t + below(z, TGT_PAGES) * PAGE;
	case 3:
		return t + below(z, TGT_PAGES * PAGE);		/* unaligned */
	case 4:
		/*
		 * Anywhere from 8 GiB to 64 TiB, 4 GiB aligned: never this
		 * program's own text, heap, stack or mmap area (near 128 TiB),
		 * which a FILL or COPY of up to 1 GiB must not overwrite.
		 */
		return ((rnd(z) % ((1ULL << 46) - (8ULL << 30))) + (8ULL << 30)) &
		       ~0xffffffffULL;
	default:
		return pick(z, v, ARRAY_SIZE(v));
	}
}

static uint64_t fsize(struct fz *z)
{
	const uint64_t v[] = {
		0, 1, 8, PAGE - 1, PAGE, PAGE + 1, 2 * MiB, 1ULL << 30,
		1ULL << 40, 1ULL << 46, 1ULL << 47, 1ULL << 49, ~0ULL,
		~0ULL - PAGE + 1, 1ULL << 63, WIN_SIZE,
	};

	if (chance(z, 60))
		return (1 + below(z, TGT_PAGES + 4)) * PAGE;
	if (chance(z, 20))
		return rnd(z);
	return pick(z, v, ARRAY_SIZE(v));
}

static uint32_t fu32(struct fz *z, uint32_t usual)
{
	const uint32_t v[] = { 0, 1, 2, 3, 4, 0x80000000, ~0U, 0x7fffffff };

	if (chance(z, 75))
		return usual;
	if (chance(z, 50))
		return rnd(z);
	return v[below(z, ARRAY_SIZE(v))];
}

static uint32_t fhandle(struct fz *z)
{
	if (z->nchan && chance(z, 70))
		return z->chans[below(z, z->nchan)];
	return fu32(z, below(z, 40));
}

/*
 * A QUERY entry holds only documented bits, a page shift of 4 KiB, 64 KiB
 * or 2 MiB where it is valid, and the zero page only as a valid, read-only
 * 4 KiB page of system memory.
 */
static bool query_entry_ok(uint32_t e)
{
	const uint32_t bits = NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE |
			      NVSVM_QUERY_ATOMIC | NVSVM_QUERY_VRAM |
			      NVSVM_QUERY_ZERO | (0xffU << 8);

	if (e & ~bits)
		return false;
	if (e & NVSVM_QUERY_ZERO)
		return (e & (NVSVM_QUERY_VALID | NVSVM_QUERY_WRITE |
			     NVSVM_QUERY_VRAM)) == NVSVM_QUERY_VALID &&
		       NVSVM_QUERY_SHIFT(e) == 12;
	return !e || NVSVM_QUERY_SHIFT(e) == 12 || NVSVM_QUERY_SHIFT(e) == 16 ||
	       NVSVM_QUERY_SHIFT(e) == 21;
}

/*
 * Where to put the struct of @size bytes: usually a good page, else
 * NULL, unmapped, a kernel address, read-only, straddling PROT_NONE.
 */
static void *fptr(struct fz *z, const void *s, size_t size)
{
	switch (below(z, 20)) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)nvsvm_ptr(z->none);
	case 2:
		return (void *)(uintptr_t)KPTR;
	case 3:
		/* The struct readable, not writable. */
		mprotect(z->ro_arg, PAGE, PROT_READ | PROT_WRITE);
		memcpy(z->ro_arg, s, size);
		mprotect(z->ro_arg, PAGE, PROT_READ);
		return z->ro_arg;
	case 4:
		/* All but the last byte readable. */
		memcpy(z->arg + PAGE - size + 1, s, size - 1);
		return z->arg + PAGE - size + 1;
	case 5:
		memcpy(z->arg + 1, s, size);		/* misaligned */
		return z->arg + 1;
	default:
		memcpy(z->arg, s, size);
		return z->arg;
	}
}

static struct nvsvm_op fop(struct fz *z)
{
	struct nvsvm_op op = { 0 };
	const uint64_t lens[] = { 0, 8, 16, PAGE, PAGE + 8, 4 * PAGE,
				  TGT_PAGES * PAGE, 1ULL << 30,
				  (1ULL << 30) + 8, 7, ~0ULL, 1ULL << 24 };
	const uint32_t offs[] = { 0, 8, 16, 4, 4088, PAGE, ~0U, 0xfffffff8 };

	/* Mostly valid operations, so that programs run and fault. */
	op.code = chance(z, 95) ? below(z, NVSVM_OP_COUNT) : fu32(z, 0);
	op.flags = chance(z, 95) ? 0 : fu32(z, 0);
	op.addr = faddr(z);
	if (chance(z, 80))
		op.addr &= ~7ULL;
	op.src = faddr(z) & ~7ULL;
	op.len = chance(z, 60) ? below(z, 64) * 8 : pick(z, lens, 12);
	op.value = chance(z, 30) ? nvsvm_ptr(z->tgt) + 8 * below(z, 64) :
		   rnd(z);
	op.off_next = chance(z, 70) ? 8 * below(z, 8) : offs[below(z, 8)];
	op.off_data = chance(z, 70) ? 8 * below(z, 8) : offs[below(z, 8)];
	op.result = chance(z, 90) ? 0 : rnd(z);
	return op;
}

static void record(struct fz *z, unsigned int k, unsigned long cmd,
		   int ret, int err)
{
	uint64_t ok = k == MMAP ? allowed[k] :
		      z->foreign && k ? E(EPERM) | E(ENOTTY) | E(EINVAL) :
		      allowed[k];

	z->calls++;
	if (!ret) {
		z->ok[k]++;
		if ((z->foreign && k) || k == NIOC)
			goto bad;
		return;
	}
	z->errs[k]++;
	if (ret == -1 && err > 0 && (err < 63 || err == EOPNOTSUPP) &&
	    (ok & E(err)))
		return;
bad:
	if (!z->bad++)
		snprintf(z->first_bad, sizeof(z->first_bad) / 2,
			 "%s (cmd %#lx): returned %d, errno %d (%s), not in the documented set%s",
			 ioc_names[k], cmd, ret, err, strerror(err),
			 z->foreign ? " for another process" : "");
}

static void check_out(struct fz *z, const char *what, int cond)
{
	if (cond)
		return;
	size_t len = strlen(z->first_bad);

	/* The first three problems, for the report. */
	if (z->bad++ < 3)
		snprintf(z->first_bad + len, sizeof(z->first_bad) - len,
			 "%soutput check failed: %s", len ? "; " : "", what);
}

static int call(struct fz *z, unsigned int k, unsigned long cmd, void *p)
{
	int ret = ioctl(z->fd, cmd, p);

	record(z, k, cmd, ret, ret < 0 ? errno : 0);
	return ret;
}

static void do_get_info(struct fz *z)
{
	struct nvsvm_get_info gi;
	void *p;
	int i;

	memset(&gi, 0xa5, sizeof(gi));
	p = fptr(z, &gi, sizeof(gi));
	if (call(z, 0, NVSVM_IOCTL_GET_INFO, p) || p == z->ro_arg)
		return;
	memcpy(&gi, p, sizeof(gi));
	check_out(z, "GET_INFO api_version/chipset/gpc_count",
		  gi.api_version == info.api_version &&
		  gi.chipset == info.chipset && gi.gpc_count == info.gpc_count);
	for (i = 0; i < 4; i++)
		check_out(z, "GET_INFO reserved", !gi.reserved[i]);
}

static void do_area_init(struct fz *z)
{
	struct nvsvm_area_init a = {
		.unmanaged_addr = chance(z, 60) ? WIN_ADDR : faddr(z),
		.unmanaged_size = chance(z, 60) ? WIN_SIZE : fsize(z),
		.flags = fu32(z, 0),
		.reserved = fu32(z, 0),
	};

	call(z, 1, NVSVM_IOCTL_AREA_INIT, fptr(z, &a, sizeof(a)));
}

static void do_area_fini(struct fz *z)
{
	struct nvsvm_area_fini a = { fu32(z, 0), fu32(z, 0) };

	call(z, 2, NVSVM_IOCTL_AREA_FINI, fptr(z, &a, sizeof(a)));
}

static void do_map(struct fz *z)
{
	struct nvsvm_map m = {
		.addr = faddr(z), .size = fsize(z),
		.flags = fu32(z, below(z, 4)), .reserved = fu32(z, 0),
		.mapped = chance(z, 90) ? 0 : rnd(z),
	};
	void *p = fptr(z, &m, sizeof(m));

	if (!call(z, 3, NVSVM_IOCTL_MAP, p)) {
		memcpy(&m, p, sizeof(m));
		check_out(z, "MAP mapped <= size / 4096",
			  m.mapped <= m.size / PAGE);
	}
}

static void do_unmap(struct fz *z)
{
	struct nvsvm_unmap u = {
		.addr = faddr(z), .size = fsize(z),
		.flags = fu32(z, 0), .reserved = fu32(z, 0),
	};

	call(z, 4, NVSVM_IOCTL_UNMAP, fptr(z, &u, sizeof(u)));
}

static void do_query(struct fz *z)
{
	const uint64_t np[] = { 0, 1, 512, 513, NVSVM_QUERY_MAX,
				NVSVM_QUERY_MAX + 1, ~0ULL, 1ULL << 52 };
	struct nvsvm_query q = {
		.addr = faddr(z),
		.npages = chance(z, 70) ? 1 + below(z, TGT_PAGES) : pick(z, np, 8),
		.flags = fu32(z, 0), .reserved = fu32(z, 0),
	};
	uint64_t i, n;

	switch (below(z, 8)) {
	case 0:
		q.entries = nvsvm_ptr(z->none);
		break;
	case 1:
		q.entries = KPTR;
		break;
	case 2:
		q.entries = nvsvm_ptr(z->ro);
		break;
	case 3:	/* runs into the guard page after ENT_BYTES */
		q.entries = nvsvm_ptr(z->ent) + ENT_BYTES - 4 * below(z, 1024);
		break;
	default:
		q.entries = nvsvm_ptr(z->ent);
	}
	/* Either number: QUERY's first one (_IOW) is an alias. */
	if (call(z, 5, chance(z, 20) ? NVSVM_IOCTL_QUERY_OLD :
		 NVSVM_IOCTL_QUERY, fptr(z, &q, sizeof(q))) ||
	    q.entries != nvsvm_ptr(z->ent))
		return;
	n = q.npages < TGT_PAGES ? q.npages : TGT_PAGES;
	for (i = 0; i < n; i++)
		check_out(z, "QUERY entry: only documented bits",
			  query_entry_ok(z->ent[i]));
}

static void do_chan_create(struct fz *z)
{
	struct nvsvm_chan_create c = {
		.flags = fu32(z, below(z, 4)),
		.handle = chance(z, 90) ? 0 : rnd(z),
	};
	void *p;

	if (z->nchan == MAX_CHANS)
		return;
	p = fptr(z, &c, sizeof(c));
	if (call(z, 6, NVSVM_IOCTL_CHAN_CREATE, p))
		return;
	memcpy(&c, p, sizeof(c));
	if (c.handle < 1 || c.handle > 0x7fffffff) {
		char m[96];

		snprintf(m, sizeof(m), "CHAN_CREATE flags %#x handle %#x (arg %p, page %p)",
			 c.flags, c.handle, p, (void *)z->arg);
		check_out(z, m, 0);
	}
	z->chans[z->nchan++] = c.handle;
}

static void do_chan_destroy(struct fz *z)
{
	struct nvsvm_chan_destroy d = { fhandle(z), fu32(z, 0) };
	unsigned int i;

	if (call(z, 7, NVSVM_IOCTL_CHAN_DESTROY, fptr(z, &d, sizeof(d))))
		return;
	for (i = 0; i < z->nchan; i++)
		if (z->chans[i] == d.handle) {
			z->chans[i] = z->chans[--z->nchan];
			break;
		}
}

static void do_exec(struct fz *z)
{
	const uint32_t nopsv[] = { 0, 1, NVSVM_EXEC_MAX_OPS,
				   NVSVM_EXEC_MAX_OPS + 1, ~0U };
	const uint32_t tmo[] = { 0, 1, 600000, 600001, ~0U };
	struct nvsvm_exec e = {
		.handle = fhandle(z),
		.gpc = chance(z, 50) ? NVSVM_GPC_ANY :
		       chance(z, 80) ? below(z, info.gpc_count) : fu32(z, 0),
		.nops = chance(z, 90) ? 1 + below(z, 6) : nopsv[below(z, 5)],
		.timeout_ms = chance(z, 95) ? 1 + below(z, 100) : tmo[below(z, 5)],
		.flags = chance(z, 90) ? 0 : fu32(z, 0),
	};
	unsigned int i, n;
	void *p;

	/* A long timeout only for programs that cannot wait on anything. */
	n = e.nops < OPS_MAX ? e.nops : OPS_MAX;
	for (i = 0; i < n && i < 8; i++)
		z->ops[i] = fop(z);
	if (e.timeout_ms > 100)
		for (i = 0; i < n && i < 8; i++)
			z->ops[i].code = NVSVM_OP_NOP;
	switch (below(z, 10)) {
	case 0:
		e.ops = nvsvm_ptr(z->none);
		break;
	case 1:
		e.ops = nvsvm_ptr(z->ro);	/* readable, not writable */
		break;
	case 2:
		e.ops = KPTR;
		break;
	default:
		e.ops = nvsvm_ptr(z->ops);
	}
	p = fptr(z, &e, sizeof(e));
	if (!call(z, 8, NVSVM_IOCTL_EXEC, p) && p != z->ro_arg) {
		memcpy(&e, p, sizeof(e));
		check_out(z, "EXEC status known", e.status <= 4);
		check_out(z, "EXEC done <= nops", e.done <= e.nops);
		check_out(z, "EXEC fault_access known", e.fault_access <= 3);
		if (e.status <= 4)
			z->exec_status[e.status]++;
	}
	memset(z->ops, 0, n * sizeof(*z->ops));
}

/* An address for a buffer: mostly in this fuzzer's part of the window. */
static uint64_t fbufaddr(struct fz *z)
{
	if (chance(z, 70))
		return z->wlo + below(z, (z->whi - z->wlo) / PAGE) * PAGE;
	return faddr(z);
}

static void do_buf_alloc(struct fz *z)
{
	struct nvsvm_buf_alloc b = {
		.addr = fbufaddr(z),
		.size = chance(z, 70) ? (1 + below(z, 16)) * PAGE : fsize(z),
		.flags = fu32(z, 0),
		.handle = chance(z, 90) ? 0 : rnd(z),
		.mmap_offset = chance(z, 90) ? 0 : rnd(z),
	};
	void *p;

	/* No valid buffer of hundreds of MiB: the VM has 2 GiB. */
	if (b.size > BUF_MAX_PAGES * PAGE && b.size <= WIN_SIZE &&
	    !(b.size % PAGE))
		b.size = BUF_MAX_PAGES * PAGE;
	p = fptr(z, &b, sizeof(b));
	if (call(z, BUF_ALLOC, NVSVM_IOCTL_BUF_ALLOC, p) || p == z->ro_arg)
		return;
	memcpy(&b, p, sizeof(b));
	check_out(z, "BUF_ALLOC handle in [1, 2^20]",
		  b.handle >= 1 && b.handle <= 1U << 20);
	check_out(z, "BUF_ALLOC mmap_offset page aligned, non-zero",
		  b.mmap_offset && !(b.mmap_offset % PAGE));
	check_out(z, "BUF_ALLOC range in the window",
		  b.addr >= WIN_ADDR && b.addr + b.size <= WIN_ADDR + WIN_SIZE);
	if (z->nbuf < MAX_BUFS)
		z->bufs[z->nbuf++] = (struct fzbuf){ b.handle, b.addr, b.size,
						     b.mmap_offset };
}

static void do_buf_free(struct fz *z)
{
	struct nvsvm_buf_free b = { fu32(z, below(z, 40)), fu32(z, 0) };
	unsigned int i = 0;

	if (z->nbuf && chance(z, 70)) {
		i = below(z, z->nbuf);
		b.handle = z->bufs[i].handle;
	}
	if (call(z, BUF_FREE, NVSVM_IOCTL_BUF_FREE, fptr(z, &b, sizeof(b))))
		return;
	for (i = 0; i < z->nbuf; i++)
		if (z->bufs[i].handle == b.handle) {
			z->bufs[i] = z->bufs[--z->nbuf];
			break;
		}
}

static void unmap_one(struct fz *z, unsigned int i)
{
	munmap((void *)(uintptr_t)z->maps[i].addr, z->maps[i].size);
	z->maps[i] = z->maps[--z->nmap];
}

/*
 * mmap(2) of the file: mostly one of this fuzzer's buffers, often with one
 * thing wrong (address, size, offset, MAP_PRIVATE). A mapping made is
 * checked (the CPU writes and reads it back) and kept for a while, so
 * that BUF_FREE, AREA_FINI and close meet live CPU mappings.
 */
static void do_mmap(struct fz *z)
{
	const int prots[] = { PROT_READ | PROT_WRITE, PROT_READ, PROT_NONE,
			      PROT_READ | PROT_WRITE | PROT_EXEC };
	struct fzbuf b = { 0, fbufaddr(z), (1 + below(z, 16)) * PAGE,
			   below(z, 40) * PAGE };
	int flags = MAP_SHARED, prot = prots[chance(z, 80) ? 0 : below(z, 4)];
	void *m;

	if (z->nmap == MAX_MAPS || (z->nmap && chance(z, 20))) {
		unmap_one(z, below(z, z->nmap));
		return;
	}
	if (z->nbuf && chance(z, 80))
		b = z->bufs[below(z, z->nbuf)];
	switch (below(z, 12)) {
	case 0:
		b.addr += PAGE;
		break;
	case 1:
		b.size += chance(z, 50) ? PAGE : -PAGE;
		break;
	case 2:
		b.off = chance(z, 50) ? b.off + PAGE : rnd(z) & ~(PAGE - 1);
		break;
	case 3:
		flags = MAP_PRIVATE;
		break;
	case 4:
		b.size = fsize(z);
		break;
	}
	if (!b.size || b.size > WIN_SIZE)
		b.size = PAGE;
	/*
	 * Nothing in another fuzzer's part of the window: a mapping made
	 * there could be replaced by that one's MAP_FIXED, and munmap()ed
	 * under it.
	 */
	if (b.addr >= WIN_ADDR && b.addr < WIN_ADDR + WIN_SIZE &&
	    (b.addr < z->wlo || b.addr >= z->whi))
		b.addr = z->wlo + (b.addr - WIN_ADDR) % (z->whi - z->wlo);
	if (chance(z, 10))
		b.addr = 0;	/* a NULL hint: the buffer's own address */
	/* MAP_FIXED only where it replaces nothing but this fuzzer's own. */
	else if (b.addr >= z->wlo && b.addr < z->whi &&
		 b.size <= z->whi - b.addr && chance(z, 70))
		flags |= MAP_FIXED;
	else if (chance(z, 50))
		flags |= MAP_FIXED_NOREPLACE;
	m = mmap((void *)(uintptr_t)b.addr, b.size, prot, flags, z->fd,
		 (off_t)b.off);
	record(z, MMAP, 0, m == MAP_FAILED ? -1 : 0,
	       m == MAP_FAILED ? errno : 0);
	if (m == MAP_FAILED)
		return;
	/*
	 * Whatever the hint, a buffer maps at its own address only, in the
	 * window; with MAP_FIXED, that is the address asked for. (Which
	 * buffer an offset names now is not tracked here: an AREA_FINI, this
	 * fuzzer's or another thread's on the same file, frees them all.)
	 */
	check_out(z, "mmap at the buffer's address",
		  nvsvm_ptr(m) >= WIN_ADDR &&
		  nvsvm_ptr(m) + b.size <= WIN_ADDR + WIN_SIZE &&
		  (!(flags & MAP_FIXED) || nvsvm_ptr(m) == b.addr));
	b.addr = nvsvm_ptr(m);
	/* Kept only in this fuzzer's part of the window (see above). */
	if (b.addr < z->wlo || b.addr + b.size > z->whi ||
	    z->nmap == MAX_MAPS) {
		munmap(m, b.size);
		return;
	}
	if (prot & PROT_WRITE) {
		volatile uint64_t *w = m;

		w[0] = b.off ^ 0x6d6d6170;
		check_out(z, "mmap'd buffer reads back", w[0] ==
			  (b.off ^ 0x6d6d6170));
	}
	z->maps[z->nmap++] = b;
}

static void do_migrate(struct fz *z)
{
	struct nvsvm_migrate m = {
		.addr = faddr(z), .size = fsize(z),
		.target = fu32(z, below(z, 2)), .flags = fu32(z, 0),
	};

	call(z, 9, NVSVM_IOCTL_MIGRATE, fptr(z, &m, sizeof(m)));
}

/* A command with a random number, size, direction or type. */
static void do_random_cmd(struct fz *z)
{
	static const unsigned long cmds[] = {
		NVSVM_IOCTL_GET_INFO, NVSVM_IOCTL_AREA_INIT,
		NVSVM_IOCTL_AREA_FINI, NVSVM_IOCTL_MAP, NVSVM_IOCTL_UNMAP,
		NVSVM_IOCTL_QUERY, NVSVM_IOCTL_CHAN_CREATE,
		NVSVM_IOCTL_CHAN_DESTROY, NVSVM_IOCTL_EXEC, NVSVM_IOCTL_MIGRATE,
		NVSVM_IOCTL_QUERY_OLD, NVSVM_IOCTL_BUF_ALLOC,
		NVSVM_IOCTL_BUF_FREE,
	};
	unsigned int dir = below(z, 4), nr, size, type;
	unsigned long cmd;
	int k;

	type = chance(z, 70) ? NVSVM_IOCTL_BASE : below(z, 256);
	/*
	 * Leave the VFS's own commands alone (FIO*, FS_IOC_*, FICLONE,
	 * FIBMAP...): they never reach the driver.
	 */
	if (type == 'T' || type == 'f' || type == 'X' || type == 0x94 ||
	    type == 0 || type == 0x12)
		type = NVSVM_IOCTL_BASE;
	nr = chance(z, 70) ? below(z, 14) : below(z, 256);
	size = chance(z, 50) ? 8 * below(z, 8) : below(z, 1 << 14);
	cmd = _IOC(dir, type, nr, size);
	for (k = 0; k < (int)ARRAY_SIZE(cmds); k++)
		if (cmd == cmds[k])
			return;	/* a real command: not random */
	memset(z->arg, 0, 64);
	call(z, NIOC, cmd, chance(z, 50) ? (void *)z->arg : (void *)KPTR);
}

static void fuzz_one(struct fz *z)
{
	static void (*const fns[])(struct fz *z) = {
		do_get_info, do_area_init, do_area_fini, do_map, do_unmap,
		do_query, do_chan_create, do_chan_destroy, do_exec,
		do_migrate, do_buf_alloc, do_buf_free, do_mmap, do_random_cmd,
	};
	/* Weights: the ioctls with the most fields get the most calls. */
	static const unsigned int w[] = { 3, 6, 3, 14, 7, 9, 5, 4, 21, 4, 6, 4,
					  6, 8 };
	unsigned int i, r = below(z, 100);

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		if (r < w[i]) {
			fns[i](z);
			return;
		}
		r -= w[i];
	}
}

/* Lay out the memory the fuzzer points at. */
static int fz_init(struct fz *z, int fd, int foreign, uint64_t s)
{
	uint8_t *res, *a;

	memset(z, 0, sizeof(*z));
	z->fd = fd;
	z->foreign = foreign;
	z->rng = s ? s : 1;
	z->wlo = WIN_ADDR;
	z->whi = WIN_ADDR + WIN_SIZE;
	res = mmap(NULL, 2 * GUARD + (TGT_PAGES + 2) * PAGE, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return -1;
	z->tgt = res + GUARD;
	z->ro = z->tgt + TGT_PAGES * PAGE;
	z->none = z->ro + PAGE;
	if (mprotect(z->tgt, TGT_PAGES * PAGE, PROT_READ | PROT_WRITE) ||
	    mprotect(z->ro, PAGE, PROT_READ))
		return -1;
	a = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || mprotect(a + PAGE, PAGE, PROT_NONE))
		return -1;
	z->arg = a;
	z->ro_arg = a + 2 * PAGE;
	z->ent = mmap(NULL, ENT_BYTES + PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (z->ent == MAP_FAILED ||
	    mprotect((uint8_t *)z->ent + ENT_BYTES, PAGE, PROT_NONE))
		return -1;
	z->ops = calloc(OPS_MAX, sizeof(*z->ops));
	return z->ops ? 0 : -1;
}

static void fz_loop(struct fz *z, unsigned long n, double secs)
{
	double end = now_s() + secs;
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (!(i % 16) && now_s() > end)
			break;
		fuzz_one(z);
	}
	/* Its CPU mappings keep the file: none may outlive the fuzzing. */
	while (z->nmap)
		unmap_one(z, 0);
}

static int fz_report(struct fz *z, const char *who)
{
	unsigned int k;
	char line[512];
	int len;

	len = snprintf(line, sizeof(line), "%s: %lu calls:", who, z->calls);
	for (k = 0; k <= NIOC && len < (int)sizeof(line); k++)
		len += snprintf(line + len, sizeof(line) - len, " %s %lu/%lu",
				ioc_names[k], z->ok[k], z->ok[k] + z->errs[k]);
	ktap_note("%s", line);
	ktap_note("%s: EXEC status ok %lu fault %lu fatal %lu timeout %lu chan_error %lu",
		  who, z->exec_status[0], z->exec_status[1], z->exec_status[2],
		  z->exec_status[3], z->exec_status[4]);
	if (z->bad)
		KTAP_FAIL_MSG("%s: %lu bad results (seed %#llx); first: %s",
			      who, z->bad, (unsigned long long)seed,
			      z->first_bad);
	CHK_TRUE(z->calls > 0, "%s: no call made", who);
	return KTAP_PASS;
}

/* The opener fuzzes its own descriptor; sometimes it reopens. */
TEST_F_TIMEOUT(fuzz, fuzz_owner, 300)
{
	struct fz z;
	int fd;

	OPEN_DEV(fd);
	ASSERT_SYS(fz_init(&z, fd, 0, seed));
	TH_LOG("seed %#llx, %lu iterations, %u s", (unsigned long long)seed,
	       iters, seconds);
	fz_loop(&z, iters, seconds);
	close(fd);
	ASSERT_PASS(fz_report(&z, "owner"));
}

/* Two threads of the opener on one descriptor at once. */
struct thr {
	struct fz z;
	pthread_t t;
};

static void *fuzz_thread(void *arg)
{
	struct thr *t = arg;

	fz_loop(&t->z, iters / 2, seconds / 2.0 + 0.5);
	return NULL;
}

TEST_F_TIMEOUT(fuzz, fuzz_two_threads, 300)
{
	static struct thr t[2];
	int fd, i;

	OPEN_DEV(fd);
	for (i = 0; i < 2; i++) {
		ASSERT_SYS(fz_init(&t[i].z, fd, 0, seed * 3 + i));
		/* Each maps MAP_FIXED in its own half of the window only. */
		t[i].z.wlo = WIN_ADDR + i * WIN_SIZE / 2;
		t[i].z.whi = t[i].z.wlo + WIN_SIZE / 2;
	}
	/* Start with an area so that EXEC and BUF_ALLOC get far. */
	ASSERT_EQ(0, nvsvm_area_init(fd, WIN_ADDR, WIN_SIZE));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&t[i].t, NULL, fuzz_thread, &t[i]));
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i].t, NULL);
	close(fd);
	for (i = 0; i < 2; i++) {
		ASSERT_PASS(fz_report(&t[i].z, i ? "thread 1" : "thread 0"));
	}
}

/* Fuzz @fd as a process other than its opener, from seed @s. */
static int foreign_fuzz(int fd, const char *who, uint64_t s)
{
	struct fz z;

	if (fz_init(&z, fd, 1, s))
		return 2;
	fz_loop(&z, iters / 4, seconds / 3.0 + 0.3);
	return fz_report(&z, who) == KTAP_PASS ? 0 : 1;
}

/* The owner's area, channel and mapping stay intact and usable. */
static int owner_intact(struct fx *f, volatile uint64_t *buf, uint64_t v)
{
	uint64_t mapped = 0;

	CHK_OK(nvsvm_map(f->fd, nvsvm_ptr(buf), PAGE,
			 NVSVM_MAP_FAULT | NVSVM_MAP_WRITE, &mapped));
	CHK_EQ(mapped, 1);
	CHECK(gpu_read_eq(f, buf, v));
	return KTAP_PASS;
}

TEST_F_TIMEOUT(fuzz, fuzz_forked_child, 300)
{
	volatile uint64_t *buf = anon(PAGE);
	struct fx f;
	pid_t pid;

	ASSERT_MAP(buf);
	buf[0] = 0x666f726bULL;
	FX_OPEN(&f);
	pid = fork();
	ASSERT_SYS(pid);
	if (!pid)
		_exit(foreign_fuzz(f.fd, "forked child", seed * 7 + 1));
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_PASS(owner_intact(&f, buf, 0x666f726bULL));
}

TEST_F_TIMEOUT(fuzz, fuzz_scm_rights, 300)
{
	volatile uint64_t *buf = anon(PAGE);
	int sv[2], rfd;
	struct fx f;
	char byte;
	pid_t pid;

	ASSERT_MAP(buf);
	buf[0] = 0x73636dULL;
	ASSERT_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	/* Forked before the open: the child inherits no descriptor. */
	pid = fork();
	ASSERT_SYS(pid);
	if (!pid) {
		close(sv[0]);
		rfd = recv_fd(sv[1], &byte, 1);
		if (rfd < 0)
			_exit(3);
		_exit(foreign_fuzz(rfd, "SCM_RIGHTS receiver", seed * 11 + 2));
	}
	close(sv[1]);
	FX_OPEN(&f);
	ASSERT_SYS(send_fd(sv[0], f.fd, "F", 1));
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_PASS(owner_intact(&f, buf, 0x73636dULL));
}

/*
 * Found by this fuzzer: CHAN_DESTROY of handle 0 made index 0 free in the
 * file's channel table, and a later CHAN_CREATE returned handle 0.
 */
TEST_F(fuzz, destroy_zero_then_create)
{
	uint32_t h[4];
	int fd, i;

	OPEN_AREA(fd);
	ASSERT_EQ(-ENOENT, nvsvm_chan_destroy(fd, 0));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, nvsvm_chan_create(fd, NVSVM_CHAN_JOIN_AREA, &h[i]));
		ASSERT_TRUE(h[i] >= 1) {
			TH_LOG("handle %u", h[i]);
		}
	}
	ASSERT_EQ(0, nvsvm_chan_destroy(fd, h[0]));
	ASSERT_EQ(-ENOENT, nvsvm_chan_destroy(fd, 0));
	ASSERT_EQ(0, nvsvm_chan_create(fd, 0, &h[0]));
	ASSERT_TRUE(h[0] >= 1) {
		TH_LOG("handle %u", h[0]);
	}
}

/* After all that: a real MAP + EXEC + CPU check, and no table left over. */
TEST_F(fuzz, still_works)
{
	volatile uint64_t *buf = anon(64 * PAGE);
	uint64_t mapped = 0, pt = 0, pm = 0;
	struct nvsvm_op op;
	struct fx f;
	size_t i;

	ASSERT_MAP(buf);
	if (have_stats) {
		ASSERT_EQ(0, nvsvm_stat_read(0, "pt_bytes", &pt));
		ASSERT_EQ(0, nvsvm_stat_read(0, "pages_mapped", &pm));
		ASSERT_EQ(pt_base, pt);
		ASSERT_EQ(pm_base, pm);
	}
	for (i = 0; i < 64 * WORDS; i++)
		buf[i] = i;
	FX_OPEN(&f);
	ASSERT_EQ(0, nvsvm_map(f.fd, nvsvm_ptr(buf), 64 * PAGE, NVSVM_MAP_FAULT,
			       &mapped));
	ASSERT_EQ(64, mapped);
	op = nvsvm_op_sum(nvsvm_ptr(buf), 64 * PAGE);
	ASSERT_PASS(gpu_ok(&f, &op, 1));
	ASSERT_EQ((64 * WORDS - 1) * 64 * WORDS / 2, op.result);
	op = nvsvm_op_fill(nvsvm_ptr(buf), 64 * PAGE, 0x6f6b);
	ASSERT_PASS(gpu_ok(&f, &op, 1));
	ASSERT_PASS(cpu_check(buf, 64 * WORDS, 0x6f6b));
}

static unsigned long long arg_or_env(int argc, char **argv, int i,
				     const char *env, unsigned long long def)
{
	const char *s = i < argc ? argv[i] : getenv(env);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	seed = arg_or_env(argc, argv, 1, "NVSVM_FUZZ_SEED", DEF_SEED);
	iters = arg_or_env(argc, argv, 2, "NVSVM_FUZZ_ITERS", DEF_ITERS);
	seconds = arg_or_env(argc, argv, 3, "NVSVM_FUZZ_SECONDS", DEF_SECONDS);
	have_stats = !nvsvm_stat_read(0, "pt_bytes", &pt_base) &&
		     !nvsvm_stat_read(0, "pages_mapped", &pm_base);
	return test_harness_main(argc, argv, 0);
}
