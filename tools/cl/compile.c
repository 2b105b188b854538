// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * nvcl: the OpenCL C compiler (see nvcl.h for the pipeline). Runs Debian's
 * clang-14, llvm-link-14 and ld.lld-14 in a temporary directory, reads the
 * linked ELF itself, and writes the program binary. Where there is no
 * clang (the test VM), the job goes over a serial port to a compile server
 * on the host, which runs the same code (nvsvm-clc --serve).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "nvsvm_vgpu.h"
#include "nvcl.h"

extern char **environ;

#define MAX_FRAME	(64U << 20)
#define SERVER_WAIT_MS	300000		/* a compile on a loaded host */
#define IDLE_MS		10000		/* silence inside one frame */

/* ---- Byte buffers: the binary format and the compile server's frames ---- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void put(struct wbuf *w, const void *d, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		uint8_t *p;

		while (cap < w->len + n)
			cap *= 2;
		p = realloc(w->p, cap);
		if (!p) {
			w->oom = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, d, n);
	w->len += n;
}

static void put32(struct wbuf *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_blob(struct wbuf *w, const void *d, size_t n)
{
	put32(w, (uint32_t)n);
	put(w, d, n);
}

static void put_str(struct wbuf *w, const char *s)
{
	put_blob(w, s ? s : "", s ? strlen(s) : 0);
}

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static const void *get(struct rbuf *r, size_t n)
{
	const void *d = r->p + r->off;

	if (r->bad || n > r->len - r->off) {
		r->bad = true;
		return NULL;
	}
	r->off += n;
	return d;
}

static uint32_t get32(struct rbuf *r)
{
	const void *d = get(r, 4);
	uint32_t v = 0;

	if (d)
		memcpy(&v, d, 4);
	return v;
}

/* A blob, copied and NUL-terminated (strings and data alike). */
static void *get_blob(struct rbuf *r, uint32_t *n_ret)
{
	uint32_t n = get32(r);
	const void *d = get(r, n);
	char *c;

	if (!d)
		return NULL;
	c = malloc((size_t)n + 1);
	if (!c) {
		r->bad = true;
		return NULL;
	}
	memcpy(c, d, n);
	c[n] = 0;
	if (n_ret)
		*n_ret = n;
	return c;
}

/* ---- Program binaries ---- */

static void bin_write(const struct nvcl_bin *b, struct wbuf *w)
{
	uint32_t i, j;

	put(w, NVCL_MAGIC, 8);
	put32(w, b->type);
	put_str(w, b->options);
	put_blob(w, b->image, b->image_size);
	put32(w, b->local_static);
	put32(w, b->stack);
	put32(w, b->flags);
	put_blob(w, b->ir, b->ir_size);
	put32(w, b->nkernels);
	for (i = 0; i < b->nkernels; i++) {
		const struct nvcl_kernel *k = &b->kernels[i];

		put_str(w, k->name);
		put_str(w, k->attrs);
		put32(w, k->entry);
		put32(w, k->param_size);
		put(w, k->reqd, sizeof(k->reqd));
		put32(w, k->nargs);
		for (j = 0; j < k->nargs; j++) {
			const struct nvcl_arg *a = &k->args[j];

			put(w, a, 6 * sizeof(uint32_t));
			put_str(w, a->type_name);
			put_str(w, a->name);
		}
	}
}

void nvcl_bin_free(struct nvcl_bin *b)
{
	uint32_t i, j;

	for (i = 0; b->kernels && i < b->nkernels; i++) {
		struct nvcl_kernel *k = &b->kernels[i];

		for (j = 0; k->args && j < k->nargs; j++) {
			free(k->args[j].type_name);
			free(k->args[j].name);
		}
		free(k->args);
		free(k->name);
		free(k->attrs);
	}
	free(b->kernels);
	free(b->options);
	free(b->image);
	free(b->ir);
	memset(b, 0, sizeof(*b));
}

int nvcl_bin_parse(const void *data, size_t size, struct nvcl_bin *b)
{
	struct rbuf r = { data, size, 0, false };
	const void *magic = get(&r, 8);
	uint32_t i, j;

	memset(b, 0, sizeof(*b));
	if (!magic || memcmp(magic, NVCL_MAGIC, 8))
		return -1;
	b->type = get32(&r);
	b->options = get_blob(&r, NULL);
	b->image = get_blob(&r, &b->image_size);
	b->local_static = get32(&r);
	b->stack = get32(&r);
	b->flags = get32(&r);
	b->ir = get_blob(&r, &b->ir_size);
	b->nkernels = get32(&r);
	if (r.bad || b->type < NVCL_BIN_OBJECT || b->type > NVCL_BIN_EXEC ||
	    b->nkernels > 4096 || b->image_size > NVSVM_LAUNCH_MAX_IMAGE ||
	    b->stack > NVSVM_LAUNCH_MAX_PRIV)
		goto bad;
	b->kernels = calloc(b->nkernels ? b->nkernels : 1, sizeof(*b->kernels));
	if (!b->kernels)
		goto bad;
	for (i = 0; i < b->nkernels && !r.bad; i++) {
		struct nvcl_kernel *k = &b->kernels[i];
		const void *d;

		k->name = get_blob(&r, NULL);
		k->attrs = get_blob(&r, NULL);
		k->entry = get32(&r);
		k->param_size = get32(&r);
		d = get(&r, sizeof(k->reqd));
		if (d)
			memcpy(k->reqd, d, sizeof(k->reqd));
		k->nargs = get32(&r);
		if (r.bad || k->nargs > NVSVM_LAUNCH_MAX_PARAM ||
		    k->param_size > NVSVM_LAUNCH_MAX_PARAM ||
		    k->entry % 4 || k->entry >= b->image_size)
			goto bad;
		k->args = calloc(k->nargs ? k->nargs : 1, sizeof(*k->args));
		if (!k->args)
			goto bad;
		for (j = 0; j < k->nargs && !r.bad; j++) {
			struct nvcl_arg *a = &k->args[j];

			d = get(&r, 6 * sizeof(uint32_t));
			if (d)
				memcpy(a, d, 6 * sizeof(uint32_t));
			a->type_name = get_blob(&r, NULL);
			a->name = get_blob(&r, NULL);
			if (a->kind > NVCL_ARG_OTHER ||
			    a->offset > k->param_size ||
			    a->size > k->param_size - a->offset)
				r.bad = true;
		}
	}
	if (!r.bad && r.off == size)
		return 0;
bad:
	nvcl_bin_free(b);
	return -1;
}

/* ---- Hashes: FNV-1a, 64 bits ---- */

#define FNV64_START	14695981039346656037ULL

/* The hash of @p[0..@n) continuing from @h (FNV64_START to start). */
static uint64_t fnv1a64_on(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

static uint64_t fnv1a64(const uint8_t *p, size_t n)
{
	return fnv1a64_on(FNV64_START, p, n);
}

/* ---- Logs ---- */

struct job_ctx {
	char dir[256];
	char lib[PATH_MAX];		/* nvclc.bc */
	struct wbuf log;
};

static void jlog(struct job_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void jlog(struct job_ctx *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(&c->log, line, (size_t)n < sizeof(line) ? (size_t)n :
			sizeof(line) - 1);
}

/* ---- Files of the job's directory ---- */

static void path(const struct job_ctx *c, char *p, const char *name)
{
	snprintf(p, PATH_MAX, "%s/%s", c->dir, name);
}

static int write_file(const char *p, const void *d, size_t n)
{
	FILE *f = fopen(p, "wb");
	int ret = 0;

	if (!f)
		return -1;
	if (n && fwrite(d, 1, n, f) != n)
		ret = -1;
	if (fclose(f))
		ret = -1;
	return ret;
}

static char *read_file(const char *p, size_t *n_ret)
{
	FILE *f = fopen(p, "rb");
	char *d = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		d = malloc((size_t)n + 1);
		if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
			free(d);
			d = NULL;
		} else if (d) {
			d[n] = 0;
			if (n_ret)
				*n_ret = (size_t)n;
		}
	}
	fclose(f);
	return d;
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	remove(p);
	return 0;
}

/* ---- Tools ---- */

static const char *tool(const char *env, const char *name)
{
	const char *t = getenv(env);

	return t && *t ? t : name;
}

static bool in_path(const char *name)
{
	const char *p = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	while (p && *p) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
		if (access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

#define CLANG	tool("NVSVM_CL_CLANG", "clang-14")
#define LLINK	tool("NVSVM_CL_LLVM_LINK", "llvm-link-14")
#define LLD	tool("NVSVM_CL_LLD", "ld.lld-14")

/* Run @argv with stdout and stderr into the log; its exit status. */
static int run(struct job_ctx *c, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	char logp[PATH_MAX];
	size_t n = 0;
	char *out;
	pid_t pid;
	int st = -1;

	path(c, logp, "tool.log");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, logp,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* In the job's directory: the log names "input.cl:3:5". */
	posix_spawn_file_actions_addchdir_np(&fa, c->dir);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		jlog(c, "nvsvm: cannot run %s: %s\n", argv[0], strerror(errno));
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	out = read_file(logp, &n);
	if (out) {
		/* The log names the job's files as the user gave them. */
		put(&c->log, out, n);
		free(out);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Where nvclc.bc is: $NVSVM_CL_LIBDIR, beside this library or program. */
static bool find_lib(struct job_ctx *c)
{
	char self[PATH_MAX], dir[PATH_MAX];
	const char *env = getenv("NVSVM_CL_LIBDIR");
	Dl_info info;
	ssize_t n;

	if (env && *env) {
		snprintf(c->lib, sizeof(c->lib), "%s/nvclc.bc", env);
		return access(c->lib, R_OK) == 0;
	}
	if (dladdr((void *)find_lib, &info) && info.dli_fname &&
	    realpath(info.dli_fname, self)) {
		snprintf(dir, sizeof(dir), "%s", self);
		snprintf(c->lib, sizeof(c->lib), "%s/nvsvm-cl/nvclc.bc",
			 dirname(dir));
		if (access(c->lib, R_OK) == 0)
			return true;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		snprintf(c->lib, sizeof(c->lib), "%s/nvsvm-cl/nvclc.bc",
			 dirname(self));
		if (access(c->lib, R_OK) == 0)
			return true;
	}
#ifdef NVCL_LIBDIR
	snprintf(c->lib, sizeof(c->lib), "%s/nvclc.bc", NVCL_LIBDIR);
	return access(c->lib, R_OK) == 0;
#else
	return false;
#endif
}

static bool local_available(void)
{
	struct job_ctx c;

	return in_path(CLANG) && in_path(LLINK) && in_path(LLD) &&
	       find_lib(&c);
}

bool nvcl_available(void)
{
	const char *r = getenv("NVSVM_CL_REMOTE");

	return local_available() || (r && *r && access(r, R_OK | W_OK) == 0);
}

/* ---- Options ---- */

struct opts {
	char *argv[128];		/* for clang, after the fixed ones */
	int argc;
	bool library;			/* -create-library */
	bool opt_disable;
	bool unsupported;		/* a -cl-std= the device has not */
	bool cl3;			/* -cl-std=CL3.0 */
	char *buf;			/* the options, split in place */
};

/* Options of clCompileProgram and clBuildProgram that clang takes as is. */
static const char *const cl_flags[] = {
	"-cl-single-precision-constant", "-cl-denorms-are-zero",
	"-cl-fp32-correctly-rounded-divide-sqrt", "-cl-mad-enable",
	"-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
	"-cl-finite-math-only", "-cl-fast-relaxed-math",
	"-cl-uniform-work-group-size", "-w", "-Werror",
	"-cl-strict-aliasing",	/* OpenCL 1.0's; deprecated since 1.1 */
};

/* Options of clLinkProgram (the ones of a link have no effect here). */
static const char *const link_flags[] = {
	"-cl-denorms-are-zero", "-cl-no-signed-zeros",
	"-cl-unsafe-math-optimizations", "-cl-finite-math-only",
	"-cl-fast-relaxed-math", "-enable-link-options", "-cl-no-subgroup-ifp",
};

static bool listed(const char *s, const char *const *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, l[i]))
			return true;
	return false;
}

static char *next_word(char **s)
{
	char *p = *s, *w, *o;
	char q = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	w = o = p;
	while (*p && (q || !isspace((unsigned char)*p))) {
		if (!q && (*p == '"' || *p == '\'')) {
			q = *p++;
			continue;
		}
		if (q && *p == q) {
			q = 0;
			p++;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		*o++ = *p++;
	}
	if (*p)
		p++;
	*o = 0;
	*s = p;
	return w;
}

/* Split @options; false (and a log line) for one the device does not take. */
static bool parse_opts(struct job_ctx *c, const char *options, bool link,
		       struct opts *o)
{
	char *s, *w;

	memset(o, 0, sizeof(*o));
	o->buf = strdup(options ? options : "");
	if (!o->buf)
		return false;
	s = o->buf;
	while ((w = next_word(&s))) {
		if (o->argc >= (int)(sizeof(o->argv) / sizeof(o->argv[0])) - 2) {
			jlog(c, "nvsvm: too many options\n");
			return false;
		}
		if (link) {
			if (!strcmp(w, "-create-library"))
				o->library = true;
			else if (!listed(w, link_flags, sizeof(link_flags) /
							sizeof(link_flags[0])))
				goto bad;
			continue;
		}
		if (!strcmp(w, "-cl-opt-disable")) {
			o->opt_disable = true;
		} else if (!strcmp(w, "-cl-kernel-arg-info") ||
			   !strcmp(w, "-cl-no-subgroup-ifp") ||
			   !strcmp(w, "-g")) {
			/* Always given, or nothing to do here. */
		} else if (!strncmp(w, "-cl-std=", 8)) {
			if (strcmp(w + 8, "CL1.0") && strcmp(w + 8, "CL1.1") &&
			    strcmp(w + 8, "CL1.2") && strcmp(w + 8, "CL3.0")) {
				/* A version it has not: the build fails. */
				jlog(c, "nvsvm: %s: the device has OpenCL C 1.0, 1.1, 1.2 and 3.0\n",
				     w);
				o->unsupported = true;
			}
			o->cl3 = !strcmp(w + 8, "CL3.0");
			o->argv[o->argc++] = w;
		} else if (!strcmp(w, "-D") || !strcmp(w, "-I")) {
			char *v = next_word(&s);

			if (!v)
				goto bad;
			o->argv[o->argc++] = w;
			o->argv[o->argc++] = v;
		} else if ((!strncmp(w, "-D", 2) || !strncmp(w, "-I", 2)) &&
			   w[2]) {
			o->argv[o->argc++] = w;
		} else if (listed(w, cl_flags,
				  sizeof(cl_flags) / sizeof(cl_flags[0]))) {
			o->argv[o->argc++] = w;
		} else {
			goto bad;
		}
	}
	return true;
bad:
	jlog(c, "nvsvm: invalid option '%s'\n", w ? w : "");
	return false;
}

/* ---- Stage 1: OpenCL C to LLVM IR ---- */

/*
 * The compile server's precompiled opencl-c.h. Parsing the header is most
 * of an OpenCL C 1.x compile's front end (0.17 of 0.33 s for a vector add
 * on the build host): a server with a cache directory (nvsvm-clc --serve
 * SOCKET --cache DIR, whose name covers the compiler) keeps one precompiled
 * header per set of options there and includes it in place of the header.
 * The options are all of clang's but the job's own include directory, so
 * every macro, language option and -O level is the header's too, and the
 * IR and the diagnostics are the same as without (clang refuses a header
 * precompiled with other options). A set seen once leaves a mark; the
 * second compile with it builds the header (0.23 s, 2.4 MB), so that
 * options used once cost no more than before. Best effort: a header that
 * cannot be built is not tried again, and a compile that fails with one
 * runs again without, whose result and log are the job's (a header that
 * clang refuses then goes). OpenCL C 3.0 declares its built-ins from
 * clang's table.
 */
static const char *pch_dir;

/* Create @p, empty, unless it exists. */
static void pch_mark(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd >= 0)
		close(fd);
}

/*
 * Whether the job brings a header of clang's own name: the job's include
 * directory comes first, so its opencl-c.h would be the one included,
 * and must not be built into a header that other jobs use.
 */
static bool shadows_stdinc(const struct nvcl_job *job)
{
	uint32_t h;

	for (h = 0; h < job->nheaders; h++) {
		const char *b = strrchr(job->headers[h].name, '/');

		b = b ? b + 1 : job->headers[h].name;
		if (!strcmp(b, "opencl-c.h") || !strcmp(b, "opencl-c-base.h"))
			return true;
	}
	return false;
}

/* A header clang refused: gone, and marked not to be built again. */
static void pch_drop(const char *pch)
{
	char mark[PATH_MAX + 8];

	unlink(pch);
	snprintf(mark, sizeof(mark), "%s.bad", pch);
	pch_mark(mark);
}

/*
 * The precompiled header for clang's @argv (argv[0] clang, then "-x cl"),
 * whose @inc (the job's include directory) is left out of the key: its
 * path in @pch and true, or false to include the header itself.
 */
static bool pch_get(struct job_ctx *c, const char **argv, int argc,
		    const char *inc, char *pch)
{
	const int dmax = PATH_MAX - 64;	/* the directory's name, at most */
	char wrap[PATH_MAX], mark[PATH_MAX], tmp[PATH_MAX];
	uint64_t h = FNV64_START;
	const char *pargv[200];
	size_t log_len;
	int i, n = 0;
	bool ok;

	if (strlen(pch_dir) > (size_t)dmax)
		return false;
	for (i = 1; i < argc; i++)
		if (argv[i] != inc)
			h = fnv1a64_on(h, (const uint8_t *)argv[i],
				       strlen(argv[i]) + 1);
	snprintf(pch, PATH_MAX, "%.*s/pch-%016llx", dmax, pch_dir,
		 (unsigned long long)h);
	if (access(pch, R_OK) == 0)
		return true;
	snprintf(mark, sizeof(mark), "%.*s/pch-%016llx.seen", dmax, pch_dir,
		 (unsigned long long)h);
	if (access(mark, F_OK)) {
		pch_mark(mark);
		return false;
	}
	snprintf(mark, sizeof(mark), "%.*s/pch-%016llx.bad", dmax, pch_dir,
		 (unsigned long long)h);
	if (access(mark, F_OK) == 0)
		return false;
	/*
	 * Included from a file of its own, which stays: clang checks the
	 * precompiled header's files when it reads it. So the header is a
	 * system header there as in a compile, and its warnings are not
	 * the job's.
	 */
	snprintf(wrap, sizeof(wrap), "%.*s/pch.h", dmax, pch_dir);
	if (access(wrap, R_OK)) {
		snprintf(tmp, sizeof(tmp), "%.*s/.pch.h.%d", dmax, pch_dir,
			 (int)getpid());
		if (write_file(tmp, "#include <opencl-c.h>\n", 22) ||
		    link(tmp, wrap)) {
			unlink(tmp);
			if (access(wrap, R_OK))
				return false;
		}
		unlink(tmp);
	}
	pargv[n++] = argv[0];
	pargv[n++] = "-x";
	pargv[n++] = "cl-header";
	for (i = 3; i < argc; i++)
		pargv[n++] = argv[i];
	snprintf(tmp, sizeof(tmp), "%.*s/.pch-%016llx.%d", dmax, pch_dir,
		 (unsigned long long)h, (int)getpid());
	pargv[n++] = "-Xclang";
	pargv[n++] = "-emit-pch";
	pargv[n++] = "-o";
	pargv[n++] = tmp;
	pargv[n++] = wrap;
	pargv[n] = NULL;
	/* Its words are no part of the job's log. */
	log_len = c->log.len;
	ok = run(c, (char *const *)pargv) == 0 && rename(tmp, pch) == 0;
	c->log.len = log_len;
	if (!ok) {
		unlink(tmp);
		pch_mark(mark);
	}
	return ok;
}


static int compile_source(struct job_ctx *c, const struct nvcl_job *job,
			  const struct opts *o, uint32_t i, bool link_lib,
			  const char *out)
{
	char src[PATH_MAX], inc[PATH_MAX], hp[PATH_MAX], ext[512];
	char pch[PATH_MAX];
	const char *argv[200];
	bool use_pch;
	int n = 0, k;
	uint32_t h;
	char *e;

	path(c, inc, "include");
	if (!*job->inputs[i].name || strchr(job->inputs[i].name, '/')) {
		jlog(c, "nvsvm: source name '%s' refused\n", job->inputs[i].name);
		return 1;
	}
	snprintf(src, sizeof(src), "%s/%s", c->dir, job->inputs[i].name);
	if (write_file(src, job->inputs[i].data, job->inputs[i].size))
		return -1;
	mkdir(inc, 0700);
	for (h = 0; h < job->nheaders; h++) {
		char *name = job->headers[h].name, *d;

		/* A header's name is a relative path without "..". */
		if (!*name || name[0] == '/' || strstr(name, "..")) {
			jlog(c, "nvsvm: header name '%s' refused\n", name);
			return 1;
		}
		if (snprintf(hp, sizeof(hp), "%s/%s", inc, name) >=
		    (int)sizeof(hp))
			return -1;
		for (d = hp + strlen(inc) + 1; (d = strchr(d, '/')); d++) {
			*d = 0;
			mkdir(hp, 0700);
			*d = '/';
		}
		if (write_file(hp, job->headers[h].data, job->headers[h].size))
			return -1;
	}
	snprintf(ext, sizeof(ext), "-cl-ext=-all");
	e = ext + strlen(ext);
	{
		char list[] = NVCL_EXTENSIONS " " NVCL_FEATURES, *s = list, *w;

		while ((w = next_word(&s)))
			e += snprintf(e, ext + sizeof(ext) - e, ",+%s", w);
	}
	argv[n++] = CLANG;
	argv[n++] = "-x";
	argv[n++] = "cl";
	argv[n++] = "-cl-std=CL1.2";	/* the default; a -cl-std= after wins */
	argv[n++] = "--target=riscv64-unknown-elf";
	argv[n++] = "-march=rv64imafd";
	argv[n++] = "-mabi=lp64d";
	argv[n++] = "-mcmodel=medany";
	argv[n++] = "-fno-pic";
	argv[n++] = "-msmall-data-limit=0";
	argv[n++] = "-ffp-contract=off";
	/*
	 * The device's OpenCL version (CL_DEVICE_VERSION, "OpenCL 3.0"):
	 * the runtime's to define, clang defines only __OPENCL_C_VERSION__.
	 */
	argv[n++] = "-D__OPENCL_VERSION__=300";
	/*
	 * The declarations of the built-in functions: all of opencl-c.h for
	 * OpenCL C 1.x (clang's table lacks vload_half and the like); for
	 * 3.0 the table, as opencl-c.h of clang-14 declares the image
	 * functions there only with __opencl_c_images, which the device has
	 * not and a kernel must not see defined.
	 */
	if (o->cl3) {
		argv[n++] = "-Xclang";
		argv[n++] = "-fdeclare-opencl-builtins";
		/*
		 * clang-14's opencl-c-base.h defines these two only for SPIR
		 * targets, -cl-ext does not: the device has both scopes.
		 */
		argv[n++] = "-D__opencl_c_atomic_scope_device=1";
		argv[n++] = "-D__opencl_c_atomic_scope_all_devices=1";
	} else {
		argv[n++] = "-cl-no-stdinc";
	}
	argv[n++] = "-Xclang";
	argv[n++] = ext;
	argv[n++] = "-cl-kernel-arg-info";
	argv[n++] = "-fno-caret-diagnostics";
	argv[n++] = "-I";
	argv[n++] = inc;
	/*
	 * OpenCL C's inline is C99's: a function defined "inline" and not
	 * "static" is an inline definition only, which clang emits as
	 * available_externally, and only when optimizing. A call that is not
	 * inlined then names a function no module defines. Every OpenCL
	 * compiler in use links such programs (pyopencl's complex header is
	 * one), so the IR here keeps those definitions (-flto leaves them to
	 * the link, -O2 without passes emits them) and rewrite() makes them
	 * linkonce_odr. -cl-opt-disable: no passes in the front end.
	 */
	argv[n++] = "-O2";
	if (o->opt_disable) {
		argv[n++] = "-Xclang";
		argv[n++] = "-disable-llvm-passes";
	} else {
		argv[n++] = "-flto";
	}
	for (k = 0; k < o->argc; k++)
		argv[n++] = o->argv[k];
	use_pch = !o->cl3 && pch_dir && !shadows_stdinc(job) &&
		  pch_get(c, argv, n, inc, pch);
	/*
	 * A build links the device library here, as llvm-link --internalize
	 * --only-needed would: what is called, internalized, and its
	 * @llvm.compiler.used (memcpy and the like) always. One process
	 * fewer (finish_exec()).
	 */
	if (link_lib) {
		argv[n++] = "-Xclang";
		argv[n++] = "-mlink-builtin-bitcode";
		argv[n++] = "-Xclang";
		argv[n++] = c->lib;
	}
	argv[n++] = "-emit-llvm";
	argv[n++] = "-S";
	argv[n++] = "-o";
	argv[n++] = out;
	if (use_pch) {
		size_t log_len = c->log.len;
		int ret;

		argv[n] = "-Xclang";
		argv[n + 1] = "-include-pch";
		argv[n + 2] = "-Xclang";
		argv[n + 3] = pch;
		argv[n + 4] = job->inputs[i].name;
		argv[n + 5] = NULL;
		ret = run(c, (char *const *)argv);
		if (!ret)
			return 0;
		/*
		 * A build error, or a header clang refuses: the compile
		 * without says which, and its log is the job's.
		 */
		c->log.len = log_len;
		argv[n + 2] = job->inputs[i].name;
		argv[n + 3] = NULL;
		argv[n + 1] = "-finclude-default-header";
		ret = run(c, (char *const *)argv);
		if (!ret)
			pch_drop(pch);
		return ret;
	}
	argv[n++] = "-Xclang";
	argv[n++] = "-finclude-default-header";
	argv[n++] = job->inputs[i].name;
	argv[n] = NULL;
	return run(c, (char *const *)argv);
}

/* ---- LLVM IR: types, kernels, metadata ---- */

struct ir {
	char *text;
	char **lines;
	size_t nlines;
};

static bool ir_split(struct ir *m, char *text)
{
	size_t n = 1, i = 0;
	char *p;

	m->text = text;
	for (p = text; *p; p++)
		n += *p == '\n';
	m->lines = calloc(n, sizeof(char *));
	if (!m->lines)
		return false;
	for (p = text; p && *p; i++) {
		m->lines[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	m->nlines = i;
	return true;
}

/* The body of the named type %@name (after "= type "), or NULL. */
static const char *ir_named(const struct ir *m, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < m->nlines; i++) {
		const char *l = m->lines[i];

		if (l[0] == '%' && !strncmp(l + 1, name, len) &&
		    !strncmp(l + 1 + len, " = type ", 8))
			return l + 1 + len + 8;
	}
	return NULL;
}

struct tsz {
	uint64_t size, align;
};

static const char *skip_ws(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static uint64_t pow2ceil(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/*
 * Size and alignment of the LLVM type at @s (the OpenCL ones: a 3-vector
 * takes the room of a 4-vector), *@end after it; size 0 when unknown.
 */
static struct tsz ir_type(const struct ir *m, const char *s, const char **end,
			  int depth)
{
	struct tsz t = { 0, 1 }, e;
	unsigned long n;
	char *q;

	s = skip_ws(s);
	if (depth > 16)
		goto out;
	if (s[0] == 'i' && isdigit((unsigned char)s[1])) {
		n = strtoul(s + 1, &q, 10);
		s = q;
		t.size = pow2ceil((n + 7) / 8);
		t.align = t.size;
	} else if (!strncmp(s, "half", 4)) {
		s += 4;
		t = (struct tsz){ 2, 2 };
	} else if (!strncmp(s, "float", 5)) {
		s += 5;
		t = (struct tsz){ 4, 4 };
	} else if (!strncmp(s, "double", 6)) {
		s += 6;
		t = (struct tsz){ 8, 8 };
	} else if (!strncmp(s, "ptr", 3)) {
		s += 3;
		t = (struct tsz){ 8, 8 };
	} else if (s[0] == '<' && s[1] != '{') {
		n = strtoul(s + 1, &q, 10);
		s = skip_ws(q);
		if (*s != 'x')
			goto out;
		e = ir_type(m, s + 1, &s, depth + 1);
		s = skip_ws(s);
		if (*s++ != '>')
			goto out;
		t.size = e.size * (n == 3 ? 4 : n);
		t.align = pow2ceil(t.size);
	} else if (s[0] == '[') {
		n = strtoul(s + 1, &q, 10);
		s = skip_ws(q);
		if (*s != 'x')
			goto out;
		e = ir_type(m, s + 1, &s, depth + 1);
		s = skip_ws(s);
		if (*s++ != ']')
			goto out;
		t.size = e.size * n;
		t.align = e.align;
	} else if (s[0] == '{' || (s[0] == '<' && s[1] == '{')) {
		bool packed = s[0] == '<';
		uint64_t off = 0;

		s += packed ? 2 : 1;
		s = skip_ws(s);
		while (*s && *s != '}') {
			e = ir_type(m, s, &s, depth + 1);
			if (!e.size && !e.align)
				goto out;
			if (!packed)
				off = (off + e.align - 1) / e.align * e.align;
			off += e.size;
			if (!packed && e.align > t.align)
				t.align = e.align;
			s = skip_ws(s);
			if (*s == ',')
				s = skip_ws(s + 1);
		}
		if (*s++ != '}' || (packed && *s++ != '>'))
			goto out;
		t.size = (off + t.align - 1) / t.align * t.align;
	} else if (s[0] == '%') {
		const char *b, *st = s + 1;

		while (*s && *s != ' ' && *s != '*' && *s != ',' &&
		       *s != ')' && *s != '}' && *s != '>' && *s != ']')
			s++;
		b = ir_named(m, st, s - st);
		if (b && strncmp(b, "opaque", 6))
			t = ir_type(m, b, NULL, depth + 1);
	} else {
		goto out;
	}
	/* Pointers: "T*", "T addrspace(N)*". */
	for (;;) {
		const char *p = skip_ws(s);

		if (!strncmp(p, "addrspace(", 10)) {
			p = strchr(p, ')');
			if (!p)
				break;
			p = skip_ws(p + 1);
		}
		if (*p != '*')
			break;
		s = p + 1;
		t = (struct tsz){ 8, 8 };
	}
out:
	if (end)
		*end = s;
	return t;
}

/* The metadata node !@n's body ("!{...}" contents), or NULL. */
static const char *ir_md(const struct ir *m, unsigned long n)
{
	char head[32];
	size_t i, len = (size_t)snprintf(head, sizeof(head), "!%lu = ", n);

	for (i = 0; i < m->nlines; i++) {
		const char *l = m->lines[i];

		if (!strncmp(l, head, len)) {
			l += len;
			if (!strncmp(l, "distinct ", 9))
				l += 9;
			return l[0] == '!' && l[1] == '{' ? l + 2 : NULL;
		}
	}
	return NULL;
}

/* The metadata attached to a define line as "!@kind !N": its node's body. */
static const char *def_md(const struct ir *m, const char *def,
			  const char *kind)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "!%s !", kind);
	p = strstr(def, key);
	return p ? ir_md(m, strtoul(p + strlen(key), NULL, 10)) : NULL;
}

/* Element @i of a metadata node: a string (!"..") or an "i32 N". */
static char *md_item(const char *body, uint32_t i, long *num)
{
	const char *p = body, *e;
	uint32_t k = 0;
	char *s;

	while (p && *p && *p != '}') {
		p = skip_ws(p);
		if (p[0] == '!' && p[1] == '"') {
			e = p + 2;
			while (*e && *e != '"')
				e += e[0] == '\\' && e[1] ? 2 : 1;
		} else {
			e = p + strcspn(p, ",}");
		}
		if (k == i) {
			if (p[0] == '!' && p[1] == '"') {
				s = strndup(p + 2, e - p - 2);
				return s;
			}
			if (num && !strncmp(p, "i32 ", 4))
				*num = strtol(p + 4, NULL, 10);
			return strndup(p, e - p);
		}
		p = e + (*e == '"');
		p = skip_ws(p);
		if (*p == ',')
			p++;
		k++;
	}
	return NULL;
}

/* ---- Stage 2: the kernels and their entries ---- */

#define OP_CL_ADDR_GLOBAL	0x119B	/* CL_KERNEL_ARG_ADDRESS_* */
#define OP_CL_ADDR_LOCAL	0x119C
#define OP_CL_ADDR_CONSTANT	0x119D
#define OP_CL_ADDR_PRIVATE	0x119E
#define OP_CL_ACCESS_RO		0x11A0
#define OP_CL_ACCESS_WO		0x11A1
#define OP_CL_ACCESS_RW		0x11A2
#define OP_CL_ACCESS_NONE	0x11A3
#define OP_CL_TQ_CONST		(1 << 0)
#define OP_CL_TQ_RESTRICT	(1 << 1)
#define OP_CL_TQ_VOLATILE	(1 << 2)

/* One parameter of a define line: its text without the name, byval. */
struct param {
	char *text;		/* "type attrs..." */
	char *type;		/* the type alone */
	bool byval;
	struct tsz sz;		/* of the value (byval: of the pointee) */
};

/* Split "(...)" of a define at @open into its parameters. */
static int split_params(const struct ir *m, const char *open,
			struct param *ps, int max)
{
	const char *p = open + 1, *st;
	int n = 0, depth = 0;

	if (*p == ')')
		return 0;
	st = p;
	for (; *p; p++) {
		if (*p == '(' || *p == '{' || *p == '<' || *p == '[') {
			depth++;
		} else if ((*p == ')' || *p == '}' || *p == '>' ||
			    *p == ']') && depth) {
			depth--;
		} else if ((*p == ',' || *p == ')') && !depth) {
			const char *e = p, *name, *tend;
			struct param *q = &ps[n];

			if (n >= max)
				return -1;
			while (e > st && e[-1] == ' ')
				e--;
			name = e;
			while (name > st && name[-1] != ' ')
				name--;
			q->text = strndup(st, name - st);
			q->sz = ir_type(m, st, &tend, 0);
			q->type = strndup(st, tend - st);
			q->byval = strstr(q->text, "byval(") != NULL;
			if (q->byval) {
				const char *b = strstr(q->text, "byval(") + 6;

				q->sz = ir_type(m, b, NULL, 0);
			}
			n++;
			if (*p == ')')
				return n;
			st = skip_ws(p + 1);
		}
	}
	return -1;
}

static uint32_t access_q(const char *s)
{
	if (!s || !strcmp(s, "none"))
		return OP_CL_ACCESS_NONE;
	if (!strcmp(s, "read_only"))
		return OP_CL_ACCESS_RO;
	if (!strcmp(s, "write_only"))
		return OP_CL_ACCESS_WO;
	return OP_CL_ACCESS_RW;
}

static uint32_t type_q(const char *s)
{
	uint32_t q = 0;

	if (s && strstr(s, "const"))
		q |= OP_CL_TQ_CONST;
	if (s && strstr(s, "restrict"))
		q |= OP_CL_TQ_RESTRICT;
	if (s && strstr(s, "volatile"))
		q |= OP_CL_TQ_VOLATILE;
	return q;
}

#define MAX_PARAMS	1024

/* "vec_type_hint(uchar2)" from its metadata "<2 x i8> undef, i32 0". */
static void vec_hint(const char *md, char *out, size_t size)
{
	static const struct { const char *ir, *cl; } types[] = {
		{ "i8", "char" }, { "i16", "short" }, { "i32", "int" },
		{ "i64", "long" }, { "half", "half" }, { "float", "float" },
		{ "double", "double" },
	};
	const char *p = skip_ws(md), *sg;
	unsigned long n = 1;
	bool is_signed;
	unsigned int i;

	if (*p == '<') {
		n = strtoul(p + 1, (char **)&p, 10);
		p = skip_ws(p);
		if (*p == 'x')
			p = skip_ws(p + 1);
	}
	sg = strstr(p, "i32 ");
	is_signed = sg && sg[4] == '1';
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t l = strlen(types[i].ir);

		if (!strncmp(p, types[i].ir, l) && !isalnum((unsigned char)p[l]))
			break;
	}
	if (i == sizeof(types) / sizeof(types[0])) {
		*out = 0;
		return;
	}
	snprintf(out, size, " vec_type_hint(%s%s", !is_signed && p[0] == 'i' ?
		 "u" : "", types[i].cl);
	if (n > 1)
		snprintf(out + strlen(out), size - strlen(out), "%lu", n);
	snprintf(out + strlen(out), size - strlen(out), ")");
}

/* CL_KERNEL_ATTRIBUTES of the kernel defined on @def (@reqd: its size). */
static char *kernel_attrs(const struct ir *m, const char *def,
			  const uint32_t *reqd)
{
	const char *hint = def_md(m, def, "work_group_size_hint");
	const char *vec = def_md(m, def, "vec_type_hint");
	char buf[256] = "", part[96];
	long v[3] = { 0, 0, 0 };
	unsigned int i;

	if (reqd[0]) {
		snprintf(part, sizeof(part), " reqd_work_group_size(%u,%u,%u)",
			 reqd[0], reqd[1], reqd[2]);
		strcat(buf, part);
	}
	if (hint) {
		for (i = 0; i < 3; i++)
			free(md_item(hint, i, &v[i]));
		snprintf(part, sizeof(part), " work_group_size_hint(%ld,%ld,%ld)",
			 v[0], v[1], v[2]);
		strcat(buf, part);
	}
	if (vec) {
		vec_hint(vec, part, sizeof(part));
		strcat(buf, part);
	}
	return strdup(buf[0] ? buf + 1 : "");
}

/*
 * The kernel defined on @def: its name, arguments (layout in the PARAM
 * block from @off on, info) into @k; the entry function's IR appended to @w.
 */
static bool kernel_of(struct job_ctx *c, const struct ir *m, const char *def,
		      uint32_t off, struct nvcl_kernel *k, struct wbuf *w)
{
	const char *at = strchr(def, '@'), *open, *aq, *ty, *tq, *nm, *as, *rq;
	struct param *ps;
	char line[512];
	uint32_t i;
	bool ok = false;
	long num;
	int n;

	if (!at)
		return false;
	open = strchr(at, '(');
	if (!open)
		return false;
	k->name = strndup(at + 1, open - at - 1);
	ps = calloc(MAX_PARAMS, sizeof(*ps));
	if (!k->name || !ps)
		goto out;
	n = split_params(m, open, ps, MAX_PARAMS);
	as = def_md(m, def, "kernel_arg_addr_space");
	aq = def_md(m, def, "kernel_arg_access_qual");
	ty = def_md(m, def, "kernel_arg_type");
	tq = def_md(m, def, "kernel_arg_type_qual");
	nm = def_md(m, def, "kernel_arg_name");
	rq = def_md(m, def, "reqd_work_group_size");
	if (n < 0 || !as || !aq || !ty || !tq || !nm) {
		jlog(c, "nvsvm: kernel %s: arguments not understood\n",
		     k->name);
		goto out;
	}
	k->nargs = (uint32_t)n;
	k->args = calloc(n ? n : 1, sizeof(*k->args));
	k->attrs = strdup("");
	if (!k->args || !k->attrs)
		goto out;
	for (i = 0; rq && i < 3; i++) {
		char *s = md_item(rq, i, &num);

		k->reqd[i] = s ? (uint32_t)num : 0;
		free(s);
	}
	free(k->attrs);
	k->attrs = kernel_attrs(m, def, k->reqd);
	if (!k->attrs)
		goto out;
	snprintf(line, sizeof(line), "\ndefine void @__nvcl_entry_%s() {\n",
		 k->name);
	put(w, line, strlen(line));
	for (i = 0; i < k->nargs; i++) {
		struct nvcl_arg *a = &k->args[i];
		struct param *p = &ps[i];
		char *s = md_item(as, i, &num);
		uint64_t align;

		free(s);
		a->type_name = md_item(ty, i, NULL);
		a->name = md_item(nm, i, NULL);
		s = md_item(aq, i, NULL);
		a->access_q = access_q(s);
		free(s);
		s = md_item(tq, i, NULL);
		a->type_q = type_q(s);
		free(s);
		if (!a->type_name || !a->name)
			goto out;
		switch (num) {
		case 1:
			a->addr_q = OP_CL_ADDR_GLOBAL;
			a->kind = NVCL_ARG_GLOBAL;
			break;
		case 2:
			a->addr_q = OP_CL_ADDR_CONSTANT;
			a->kind = NVCL_ARG_CONSTANT;
			break;
		case 3:
			a->addr_q = OP_CL_ADDR_LOCAL;
			a->kind = NVCL_ARG_LOCAL;
			break;
		default:
			a->addr_q = OP_CL_ADDR_PRIVATE;
			a->kind = NVCL_ARG_VALUE;
			break;
		}
		if (a->kind != NVCL_ARG_VALUE && !strchr(a->type_name, '*')) {
			/* image2d_t and the like: a global object. */
			a->kind = NVCL_ARG_OTHER;
		}
		if (a->kind == NVCL_ARG_VALUE &&
		    (!strncmp(a->type_name, "sampler_t", 9) ||
		     !strncmp(a->type_name, "queue_t", 7)))
			a->kind = NVCL_ARG_OTHER;
		if (a->kind == NVCL_ARG_VALUE) {
			if (!p->sz.size) {
				jlog(c, "nvsvm: kernel %s: argument %s: type %s not understood\n",
				     k->name, a->name, p->type);
				goto out;
			}
			a->size = (uint32_t)p->sz.size;
			align = p->sz.align;
		} else {
			a->size = 8;
			align = 8;
		}
		if (align > 16)
			align = 16;
		off = (off + align - 1) / align * align;
		a->offset = off;
		off += a->size;
		if (off > NVSVM_LAUNCH_MAX_PARAM) {
			jlog(c, "nvsvm: kernel %s: arguments of more than %u bytes\n",
			     k->name, NVSVM_LAUNCH_MAX_PARAM);
			goto out;
		}
		if (p->byval) {
			snprintf(line, sizeof(line),
				 "  %%a%u = inttoptr i64 %llu to %s\n", i,
				 (unsigned long long)(NVSVM_GPU_PARAM_BASE + a->offset),
				 p->type);
			put(w, line, strlen(line));
		} else {
			snprintf(line, sizeof(line),
				 "  %%p%u = inttoptr i64 %llu to %s*\n"
				 "  %%a%u = load %s, %s* %%p%u, align %llu\n",
				 i, (unsigned long long)(NVSVM_GPU_PARAM_BASE + a->offset),
				 p->type, i, p->type, p->type, i,
				 (unsigned long long)align);
			put(w, line, strlen(line));
		}
	}
	k->param_size = (off + 15) / 16 * 16;
	snprintf(line, sizeof(line), "  call void @%s(", k->name);
	put(w, line, strlen(line));
	for (i = 0; i < k->nargs; i++) {
		snprintf(line, sizeof(line), "%s%s %%a%u", i ? ", " : "",
			 ps[i].text, i);
		put(w, line, strlen(line));
	}
	put(w, ")\n  ret void\n}\n", strlen(")\n  ret void\n}\n"));
	ok = !w->oom;
out:
	for (i = 0; ps && i < MAX_PARAMS && ps[i].text; i++) {
		free(ps[i].text);
		free(ps[i].type);
	}
	free(ps);
	return ok;
}

/* A __local variable: an address of the LOCAL window instead of a global. */
struct lvar {
	char *name;		/* "@k.tmp" */
	char *repl;		/* "inttoptr (i64 ADDR to T*)" */
};

static bool is_ident(char ch)
{
	return isalnum((unsigned char)ch) || ch == '.' || ch == '_' ||
	       ch == '$' || ch == '-';
}

/*
 * A __local variable of a kernel: "@k.v = internal [unnamed_addr ]global
 * T undef, align A". Its type and alignment into @v; false otherwise.
 */
static bool local_var(const struct ir *m, const char *s, uint64_t *off,
		      struct lvar *v)
{
	const char *eq = strstr(s, " = internal "), *g, *u, *al;
	struct tsz t;
	uint64_t a;
	char buf[512];

	if (s[0] != '@' || !eq || s[1] == '"')
		return false;
	g = strstr(eq, " global ");
	u = g ? strstr(g, " undef, align ") : NULL;
	if (!u || strstr(s, "section") || strstr(s, "addrspace"))
		return false;
	al = u + strlen(" undef, align ");
	t = ir_type(m, g + 8, NULL, 0);
	a = strtoull(al, NULL, 10);
	if (!t.size || !a)
		return false;
	*off = (*off + a - 1) / a * a;
	v->name = strndup(s, eq - s);
	snprintf(buf, sizeof(buf), "inttoptr (i64 %llu to %.*s*)",
		 (unsigned long long)(NVSVM_GPU_LOCAL_BASE + *off),
		 (int)(u - g - 8), g + 8);
	v->repl = strdup(buf);
	*off += t.size;
	return v->name && v->repl;
}

/* Put line @s into @w with every use of a __local variable replaced. */
static void put_line(struct wbuf *w, const char *s, const struct lvar *v,
		     size_t nv)
{
	const char *k;
	size_t i;

	while ((k = strstr(s, "spir_kernel ")) || (k = strchr(s, '@'))) {
		const char *at = strchr(s, '@');

		if (at && at < k)
			k = at;
		if (*k != '@') {
			put(w, s, k - s);
			s = k + 12;
			continue;
		}
		for (i = 0; i < nv; i++) {
			size_t n = strlen(v[i].name);

			if (!strncmp(k, v[i].name, n) && !is_ident(k[n]))
				break;
		}
		put(w, s, k - s);
		if (i < nv) {
			put(w, v[i].repl, strlen(v[i].repl));
			s = k + strlen(v[i].name);
		} else {
			put(w, k, 1);
			s = k + 1;
		}
	}
	put(w, s, strlen(s));
	put(w, "\n", 1);
}

/*
 * Rewrite the linked module @text for the SMs into @out: kernels become
 * plain functions, __local variables addresses of the LOCAL window
 * (b->local_static bytes), entries are added.
 */
static bool rewrite(struct job_ctx *c, char *text, const char *out,
		    struct nvcl_bin *b)
{
	struct wbuf w = { 0 }, entries = { 0 };
	struct ir m = { 0 };
	struct lvar *v = NULL;
	size_t l, nv = 0, i;
	uint64_t off = 0;
	uint32_t nk = 0;
	bool ok = false;

	if (!ir_split(&m, text))
		goto out;
	for (l = 0; l < m.nlines; l++) {
		const char *s = m.lines[l];

		nk += !strncmp(s, "define ", 7) && strstr(s, " spir_kernel ");
		/* printf: its slots of the PARAM and LOCAL windows (nvcl.h). */
		if ((!strncmp(s, "define ", 7) || !strncmp(s, "declare ", 8)) &&
		    strstr(s, " @printf("))
			b->flags |= NVCL_BIN_PRINTF;
	}
	if (b->flags & NVCL_BIN_PRINTF)
		off = NVCL_PRINTF_LOCAL;
	b->kernels = calloc(nk ? nk : 1, sizeof(*b->kernels));
	v = calloc(m.nlines ? m.nlines : 1, sizeof(*v));
	if (!b->kernels || !v)
		goto out;
	for (l = 0; l < m.nlines; l++)
		if (local_var(&m, m.lines[l], &off, &v[nv])) {
			m.lines[l][0] = 0;	/* the definition goes */
			nv++;
		}
	if (off > NVSVM_LAUNCH_MAX_LOCAL) {
		jlog(c, "nvsvm: %llu bytes of __local variables, the device has %u\n",
		     (unsigned long long)off, NVSVM_LAUNCH_MAX_LOCAL);
		goto out;
	}
	b->local_static = (uint32_t)((off + 15) & ~15ULL);
	for (l = 0; l < m.nlines; l++) {
		const char *s = m.lines[l];

		if (!strncmp(s, "define ", 7) && strstr(s, " spir_kernel ") &&
		    !kernel_of(c, &m, s,
			       b->flags & NVCL_BIN_PRINTF ? NVCL_PRINTF_PARAM : 0,
			       &b->kernels[b->nkernels++], &entries))
			goto out;
		/* An inline definition: the one a call not inlined uses. */
		if (!strncmp(s, "define available_externally ", 28)) {
			put(&w, "define linkonce_odr ", 20);
			s += 28;
		}
		put_line(&w, s, v, nv);
	}
	if (!nk)
		jlog(c, "nvsvm: the program has no kernel\n");
	put(&w, entries.p, entries.len);
	ok = !w.oom && !entries.oom && !write_file(out, w.p, w.len);
out:
	for (i = 0; v && i < nv; i++) {
		free(v[i].name);
		free(v[i].repl);
	}
	free(v);
	free(m.lines);
	free(w.p);
	free(entries.p);
	return ok;
}

/* The linker script: the image at NVSVM_GPU_IMAGE_BASE. */
static const char nvcl_ld[] =
	"OUTPUT_ARCH(riscv)\n"
	"ENTRY(__nvcl_image)\n"
	"SECTIONS {\n"
	"  . = 0x4000000000000000;\n"
	"  __nvcl_image = .;\n"
	"  .text : { *(.text .text.*) }\n"
	"  .rodata : ALIGN(16) { *(.rodata .rodata.* .srodata .srodata.*) }\n"
	"  .data : { *(.data .data.* .sdata .sdata.*) }\n"
	"  .bss : { *(.bss .bss.* .sbss .sbss.* COMMON) }\n"
	"  /DISCARD/ : { *(.comment .note .note.* .eh_frame .eh_frame_hdr) }\n"
	"}\n";

/*
 * The private memory (stack) a work-item needs at most: OpenCL C has no
 * recursion, so no call chain is deeper than every function's frame put
 * together (.stack_sizes: an address and a ULEB128 size per function).
 */
static bool stack_bound(struct job_ctx *c, const char *d, size_t n,
			const Elf64_Shdr *sh, unsigned int nsh,
			const char *shstr, struct nvcl_bin *b)
{
	uint64_t total = 256;	/* the entry's own call, with margin */
	unsigned int i;

	for (i = 0; i < nsh; i++) {
		const uint8_t *p, *e;

		if (strcmp(shstr + sh[i].sh_name, ".stack_sizes") ||
		    sh[i].sh_offset + sh[i].sh_size > n)
			continue;
		p = (const uint8_t *)d + sh[i].sh_offset;
		e = p + sh[i].sh_size;
		while (p + 8 < e) {
			uint64_t v = 0;
			int shift = 0;

			p += 8;
			while (p < e && shift < 63) {
				v |= (uint64_t)(*p & 0x7f) << shift;
				shift += 7;
				if (!(*p++ & 0x80))
					break;
			}
			total += v;
		}
	}
	total = (total + 1023) & ~1023ULL;
	if (total > NVSVM_LAUNCH_MAX_PRIV) {
		jlog(c, "nvsvm: the kernels may need %llu bytes of private memory, the device has %u per work-item\n",
		     (unsigned long long)total, NVSVM_LAUNCH_MAX_PRIV);
		return false;
	}
	b->stack = (uint32_t)total;
	return true;
}

/* The image, the local bytes and the entries, from the linked ELF. */
static bool read_elf(struct job_ctx *c, const char *p, struct nvcl_bin *b)
{
	const Elf64_Shdr *sh, *symtab = NULL;
	const Elf64_Ehdr *eh;
	const char *shstr;
	uint64_t end = 0;
	size_t n = 0, i, j;
	char *d = read_file(p, &n);
	bool ok = false;

	if (!d)
		return false;
	eh = (const Elf64_Ehdr *)d;
	if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > n ||
	    eh->e_shstrndx >= eh->e_shnum)
		goto out;
	sh = (const Elf64_Shdr *)(d + eh->e_shoff);
	shstr = d + sh[eh->e_shstrndx].sh_offset;
	b->image = calloc(1, NVSVM_LAUNCH_MAX_IMAGE);
	if (!b->image)
		goto out;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *name = shstr + sh[i].sh_name;
		uint64_t a = sh[i].sh_addr;

		if (sh[i].sh_type == SHT_SYMTAB)
			symtab = &sh[i];
		if (!(sh[i].sh_flags & SHF_ALLOC) || !sh[i].sh_size)
			continue;
		if (sh[i].sh_flags & SHF_WRITE) {
			jlog(c, "nvsvm: writable data in %s (%llu bytes): program-scope variables are not supported\n",
			     name, (unsigned long long)sh[i].sh_size);
			goto out;
		}
		if (a < NVSVM_GPU_IMAGE_BASE ||
		    a + sh[i].sh_size - NVSVM_GPU_IMAGE_BASE > NVSVM_LAUNCH_MAX_IMAGE) {
			jlog(c, "nvsvm: the program is larger than the image window (%u bytes)\n",
			     NVSVM_LAUNCH_MAX_IMAGE);
			goto out;
		}
		if (sh[i].sh_type == SHT_PROGBITS) {
			if (sh[i].sh_offset + sh[i].sh_size > n)
				goto out;
			memcpy(b->image + (a - NVSVM_GPU_IMAGE_BASE),
			       d + sh[i].sh_offset, sh[i].sh_size);
		}
		if (a + sh[i].sh_size - NVSVM_GPU_IMAGE_BASE > end)
			end = a + sh[i].sh_size - NVSVM_GPU_IMAGE_BASE;
	}
	if (!stack_bound(c, d, n, sh, eh->e_shnum, shstr, b))
		goto out;
	b->image_size = (uint32_t)((end + 7) & ~7ULL);
	if (!b->image_size)
		b->image_size = 8;
	if (!symtab || symtab->sh_link >= eh->e_shnum ||
	    symtab->sh_offset + symtab->sh_size > n)
		goto out;
	for (i = 0; i < symtab->sh_size / sizeof(Elf64_Sym); i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(d + symtab->sh_offset) + i;
		const char *name = d + sh[symtab->sh_link].sh_offset + s->st_name;

		if (strncmp(name, "__nvcl_entry_", 13))
			continue;
		for (j = 0; j < b->nkernels; j++)
			if (!strcmp(b->kernels[j].name, name + 13))
				b->kernels[j].entry = (uint32_t)(s->st_value -
							NVSVM_GPU_IMAGE_BASE);
	}
	ok = true;
out:
	free(d);
	return ok;
}

/*
 * Link the IR module @in (all the user's code; with the device library's
 * functions it calls when @linked, compile_source() having linked them)
 * into an executable.
 */
static int finish_exec(struct job_ctx *c, const char *in, const struct opts *o,
		       bool linked, struct nvcl_bin *b)
{
	char main_ll[PATH_MAX], all[PATH_MAX], obj[PATH_MAX], elf[PATH_MAX],
	     ld[PATH_MAX];
	char *text = read_file(in, NULL);
	int ret;

	(void)o;
	if (!text)
		return -1;
	path(c, main_ll, "main.ll");
	path(c, all, "all.bc");
	path(c, obj, "all.o");
	path(c, elf, "program.elf");
	path(c, ld, "nvcl.ld");
	if (!rewrite(c, text, main_ll, b)) {
		free(text);
		return 1;
	}
	free(text);
	if (write_file(ld, nvcl_ld, sizeof(nvcl_ld) - 1))
		return -1;
	/*
	 * The device library, what is called of it: its @llvm.compiler.used
	 * (mem.c's memcpy, memset and memmove) comes too, for the calls -O2
	 * and the code generator make of copy loops after this link.
	 */
	if (!linked) {
		char *const a1[] = { (char *)LLINK, main_ll, "--internalize",
				     "--only-needed", c->lib, "-o", all, NULL };

		ret = run(c, a1);
		if (ret)
			return ret;
	}
	{
		char *const a2[] = { (char *)CLANG,
			"--target=riscv64-unknown-elf", "-march=rv64imafd",
			"-mabi=lp64d", "-mcmodel=medany", "-fno-pic", "-O2",
			"-fstack-size-section", "-c", linked ? main_ll : all,
			"-o", obj, NULL };

		ret = run(c, a2);
		if (ret)
			return ret;
	}
	{
		char *const a3[] = { (char *)LLD, "-static", "-nostdlib",
			"--no-undefined", "-T", ld, obj, "-o", elf, NULL };

		ret = run(c, a3);
		if (ret)
			return ret;
	}
	return read_elf(c, elf, b) ? 0 : 1;
}

/* ---- A job, here ---- */

/* The binary of @type from the IR module @ir: the IR itself, or linked. */
static int finish(struct job_ctx *c, const char *ir, const struct opts *o,
		  uint32_t type, bool linked, struct nvcl_bin *b)
{
	b->type = type;
	if (type == NVCL_BIN_EXEC)
		return finish_exec(c, ir, o, linked, b);
	b->ir = read_file(ir, NULL);
	b->ir_size = b->ir ? (uint32_t)strlen(b->ir) : 0;
	return b->ir ? 0 : -1;
}

static int job_local(const struct nvcl_job *job, struct nvcl_result *res)
{
	char ir[PATH_MAX], in[PATH_MAX];
	struct job_ctx c = { 0 };
	struct nvcl_bin b = { 0 };
	struct wbuf out = { 0 };
	struct opts o = { 0 };
	const char *tmp = getenv("TMPDIR");
	uint32_t i;
	int ret = 1;

	res->status = NVCL_FAILED;
	if (!find_lib(&c) || !in_path(CLANG)) {
		jlog(&c, "nvsvm: no OpenCL C compiler here: install clang-14, lld-14 and llvm-14 (make deps), and the device library nvsvm-cl/nvclc.bc beside libnvsvm-cl\n");
		res->status = NVCL_NO_COMPILER;
		goto out;
	}
	if (!parse_opts(&c, job->options, job->mode == NVCL_LINK, &o)) {
		res->status = o.buf ? NVCL_BAD_OPTIONS : NVCL_NO_MEMORY;
		goto out;
	}
	if (o.unsupported)
		goto out;
	snprintf(c.dir, sizeof(c.dir), "%s/nvcl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c.dir)) {
		jlog(&c, "nvsvm: mkdtemp: %s\n", strerror(errno));
		goto out;
	}
	path(&c, ir, "program.ll");
	b.options = strdup(job->options ? job->options : "");
	switch (job->mode) {
	case NVCL_COMPILE:
	case NVCL_BUILD:
		if (job->ninputs != 1)
			goto out;
		ret = compile_source(&c, job, &o, 0, job->mode == NVCL_BUILD,
				     ir);
		if (ret)
			break;
		ret = finish(&c, ir, &o, job->mode == NVCL_COMPILE ?
			     NVCL_BIN_OBJECT : NVCL_BIN_EXEC,
			     job->mode == NVCL_BUILD, &b);
		break;
	case NVCL_LINK: {
		char *argv[NVSVM_LAUNCH_MAX_PARAM + 8];
		int n = 0;

		if (!job->ninputs || job->ninputs > NVSVM_LAUNCH_MAX_PARAM)
			goto out;
		argv[n++] = (char *)LLINK;
		argv[n++] = "-S";
		for (i = 0; i < job->ninputs; i++) {
			snprintf(in, sizeof(in), "%s/in%u.ll", c.dir, i);
			if (write_file(in, job->inputs[i].data,
				       job->inputs[i].size))
				goto out;
			argv[n++] = strdup(in);
		}
		argv[n++] = "-o";
		argv[n++] = ir;
		argv[n] = NULL;
		ret = run(&c, argv);
		for (i = 0; i < job->ninputs; i++)
			free(argv[2 + i]);
		if (ret)
			break;
		ret = finish(&c, ir, &o, o.library ? NVCL_BIN_LIBRARY :
			     NVCL_BIN_EXEC, false, &b);
		break;
	}
	default:
		goto out;
	}
	if (ret)
		goto out;
	bin_write(&b, &out);
	if (out.oom) {
		res->status = NVCL_NO_MEMORY;
		goto out;
	}
	res->bin = out.p;
	res->bin_size = out.len;
	out.p = NULL;
	res->status = NVCL_OK;
out:
	if (c.dir[0] && !getenv("NVSVM_CL_KEEP"))
		nftw(c.dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	nvcl_bin_free(&b);
	free(o.buf);
	free(out.p);
	put(&c.log, "", 1);
	res->log = c.log.oom ? NULL : (char *)c.log.p;
	if (!res->log)
		free(c.log.p);
	return (int)res->status;
}

void nvcl_result_free(struct nvcl_result *res)
{
	free(res->log);
	free(res->bin);
	memset(res, 0, sizeof(*res));
}

/* ---- The compile server: frames over a serial port or a socket ---- */

#define JOB_MAGIC	"NVCLJOB1"
#define RES_MAGIC	"NVCLRES1"

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static int write_all(int fd, const void *d, size_t n)
{
	const uint8_t *p = d;

	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && (errno == EINTR || errno == EAGAIN)) {
			struct pollfd pf = { fd, POLLOUT, 0 };

			poll(&pf, 1, 1000);
			continue;
		}
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Read @n bytes, waiting at most @ms for each piece: 0, or -1. */
static int read_all(int fd, void *d, size_t n, int ms)
{
	uint8_t *p = d;

	while (n) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t k;

		if (poll(&pf, 1, ms) <= 0)
			return -1;
		k = read(fd, p, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int frame_send(int fd, const char *magic, const struct wbuf *w)
{
	uint32_t len = (uint32_t)w->len, sum = fnv1a(w->p, w->len);

	if (write_all(fd, magic, 8) || write_all(fd, &len, 4) ||
	    write_all(fd, w->p, w->len) || write_all(fd, &sum, 4))
		return -1;
	return 0;
}

/*
 * Receive one frame of @magic: the bytes before it (a frame cut short by
 * a killed client) are skipped. @first_ms: the wait for its start.
 */
static uint8_t *frame_recv(int fd, const char *magic, int first_ms,
			   uint32_t *len_ret)
{
	uint32_t len, sum;
	size_t have = 0;
	uint8_t *p;
	char m[8];

	while (have < 8) {
		if (read_all(fd, m + have, 1, have ? IDLE_MS : first_ms))
			return NULL;
		if (m[have] == magic[have]) {
			have++;
		} else {
			have = m[have] == magic[0];
			m[0] = magic[0];
		}
	}
	if (read_all(fd, &len, 4, IDLE_MS) || len > MAX_FRAME)
		return NULL;
	p = malloc(len ? len : 1);
	if (!p)
		return NULL;
	if (read_all(fd, p, len, IDLE_MS) || read_all(fd, &sum, 4, IDLE_MS) ||
	    sum != fnv1a(p, len)) {
		free(p);
		return NULL;
	}
	*len_ret = len;
	return p;
}

static void put_inputs(struct wbuf *w, const struct nvcl_input *in, uint32_t n)
{
	uint32_t i;

	put32(w, n);
	for (i = 0; i < n; i++) {
		put_str(w, in[i].name);
		put_blob(w, in[i].data, in[i].size);
	}
}

static struct nvcl_input *get_inputs(struct rbuf *r, uint32_t *n_ret)
{
	uint32_t n = get32(r), i, sz;
	struct nvcl_input *in;

	if (r->bad || n > 4096)
		return NULL;
	in = calloc(n ? n : 1, sizeof(*in));
	if (!in)
		return NULL;
	for (i = 0; i < n && !r->bad; i++) {
		in[i].name = get_blob(r, NULL);
		in[i].data = get_blob(r, &sz);
		in[i].size = sz;
	}
	*n_ret = n;
	return in;
}

static void free_inputs(struct nvcl_input *in, uint32_t n)
{
	uint32_t i;

	for (i = 0; in && i < n; i++) {
		free(in[i].name);
		free(in[i].data);
	}
	free(in);
}

/*
 * The compile server does not see the client's files: the headers the
 * sources include from the options' -I directories go with the job, each
 * under its include name, as clCompileProgram's embedded headers do (the
 * server's directory of headers comes first on clang's command line). A
 * header already given by that name is left as it is.
 */
#define REMOTE_INCLUDES		64
#define REMOTE_INCLUDE_BYTES	(4U << 20)

struct includes {
	char *dirs[16];
	int ndirs;
	struct nvcl_input *h;
	uint32_t n;
	uint32_t own;		/* the first n of h that are the job's */
	size_t bytes;
};

/*
 * Add the file @name (@len bytes) includes, under the directory @dir
 * (@dlen bytes, 0 for the -I directories themselves): true when it is
 * there, found now or before.
 */
static bool add_include(struct includes *in, const char *dir, size_t dlen,
			const char *name, size_t len)
{
	char p[PATH_MAX], *nm, *data;
	struct nvcl_input *h;
	size_t size;
	uint32_t i;
	int d;

	if (!len || name[0] == '/' || in->n >= REMOTE_INCLUDES)
		return false;
	nm = malloc(dlen + len + 1);
	if (!nm)
		return false;
	memcpy(nm, dir, dlen);
	memcpy(nm + dlen, name, len);
	nm[dlen + len] = 0;
	if (strstr(nm, ".."))
		goto out;
	for (i = 0; i < in->n; i++)
		if (!strcmp(in->h[i].name, nm)) {
			free(nm);
			return true;
		}
	for (d = 0; d < in->ndirs; d++) {
		if (snprintf(p, sizeof(p), "%s/%s", in->dirs[d], nm) >= (int)sizeof(p))
			continue;
		data = read_file(p, &size);
		if (!data)
			continue;
		h = in->bytes + size <= REMOTE_INCLUDE_BYTES ?
		    realloc(in->h, (in->n + 1) * sizeof(*h)) : NULL;
		if (!h) {
			free(data);
			break;
		}
		in->h = h;
		in->h[in->n++] = (struct nvcl_input){ nm, data, size };
		in->bytes += size;
		return true;
	}
out:
	free(nm);
	return false;
}

/*
 * The #include lines of @text, each name looked up in the -I directories;
 * a "name" first beside the header @base includes it from (clang's order),
 * as the server's copy of @base has only the headers sent beside it.
 */
static void scan_includes(struct includes *in, const char *text, size_t size,
			  const char *base)
{
	const char *p = text, *end = text + size, *q, *slash;
	size_t dlen = 0;

	slash = base ? strrchr(base, '/') : NULL;
	if (slash)
		dlen = (size_t)(slash - base) + 1;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '#') {
			for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
				;
			if (end - p > 7 && !strncmp(p, "include", 7)) {
				for (p += 7; p < end && (*p == ' ' || *p == '\t'); p++)
					;
				if (p < end && (*p == '"' || *p == '<')) {
					char close = *p == '"' ? '"' : '>';

					for (q = ++p; q < end && *q != close && *q != '\n'; q++)
						;
					if (q < end && *q == close &&
					    !(close == '"' && dlen &&
					      add_include(in, base, dlen, p, (size_t)(q - p))))
						add_include(in, "", 0, p, (size_t)(q - p));
				}
			}
		}
		while (p < end && *p != '\n')
			p++;
		p++;
	}
}

/* @job's headers with the files it includes from its -I directories. */
static void remote_includes(const struct nvcl_job *job, struct includes *in)
{
	char *opts = strdup(job->options ? job->options : ""), *s = opts, *w;
	uint32_t i;

	memset(in, 0, sizeof(*in));
	while (opts && (w = next_word(&s)) && in->ndirs < 16) {
		if (!strcmp(w, "-I"))
			w = next_word(&s);
		else if (!strncmp(w, "-I", 2))
			w += 2;
		else
			continue;
		if (w && *w)
			in->dirs[in->ndirs++] = w;
	}
	for (i = 0; i < job->nheaders; i++) {
		struct nvcl_input *h = realloc(in->h, (in->n + 1) * sizeof(*h));

		if (!h)
			break;
		in->h = h;
		in->h[in->n++] = job->headers[i];
	}
	in->own = in->n;
	if (in->ndirs && job->mode != NVCL_LINK) {
		for (i = 0; i < job->ninputs; i++)
			scan_includes(in, job->inputs[i].data, job->inputs[i].size, NULL);
		for (i = in->own; i < in->n; i++)
			scan_includes(in, in->h[i].data, in->h[i].size, in->h[i].name);
	}
	free(opts);
}

static void free_includes(struct includes *in)
{
	uint32_t i;

	for (i = in->own; i < in->n; i++) {
		free(in->h[i].name);
		free(in->h[i].data);
	}
	free(in->h);
}

/*
 * The server's end: the VM's serial port, or the server's own socket
 * (nvsvm-clc --serve SOCKET) for a client on the server's host.
 */
static int open_port(const char *port)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (stat(port, &st) || !S_ISSOCK(st.st_mode))
		return open(port, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (strlen(port) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, port);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int job_remote(const char *port, const struct nvcl_job *job,
		      struct nvcl_result *res)
{
	struct wbuf w = { 0 };
	struct includes inc;
	struct termios t;
	uint32_t id[2];
	struct rbuf r;
	uint8_t *d = NULL;
	uint32_t len;
	int fd;

	res->status = NVCL_NO_COMPILER;
	fd = open_port(port);
	if (fd < 0)
		return (int)res->status;
	if (flock(fd, LOCK_EX))
		goto out;
	if (isatty(fd) && tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		cfsetispeed(&t, B115200);
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
		tcflush(fd, TCIOFLUSH);
	}
	/*
	 * The job's id comes back with its result: a result for a client
	 * killed before it came (its job still ran) is someone else's.
	 */
	id[0] = (uint32_t)getpid();
	id[1] = (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)&t;
	put(&w, id, sizeof(id));
	put32(&w, job->mode);
	put_str(&w, job->options);
	put_inputs(&w, job->inputs, job->ninputs);
	remote_includes(job, &inc);
	put_inputs(&w, inc.h, inc.n);
	free_includes(&inc);
	if (w.oom || frame_send(fd, JOB_MAGIC, &w))
		goto out;
	for (;;) {
		d = frame_recv(fd, RES_MAGIC, SERVER_WAIT_MS, &len);
		if (!d)
			goto out;
		if (len >= sizeof(id) && !memcmp(d, id, sizeof(id)))
			break;
		free(d);
	}
	r = (struct rbuf){ d, len, sizeof(id), false };
	res->status = get32(&r);
	res->log = get_blob(&r, NULL);
	{
		uint32_t n = 0;

		res->bin = get_blob(&r, &n);
		res->bin_size = n;
	}
	if (r.bad) {
		nvcl_result_free(res);
		res->status = NVCL_NO_COMPILER;
	}
out:
	if (res->status == NVCL_NO_COMPILER && !res->log)
		res->log = strdup("nvsvm: the compile server did not answer\n");
	free(d);
	free(w.p);
	close(fd);
	return (int)res->status;
}

int nvcl_run(const struct nvcl_job *job, struct nvcl_result *res)
{
	const char *port = getenv("NVSVM_CL_REMOTE");

	memset(res, 0, sizeof(*res));
	if (!local_available() && port && *port)
		return job_remote(port, job, res);
	return job_local(job, res);
}

/*
 * The server's memory of the jobs it ran: a test suite builds the same
 * program again and again (the CTS's subtests, each piglit test's
 * context), and the same job gives the same result. Exact: a hit compares
 * the whole job. At most CACHE_BYTES, the oldest forgotten first.
 */
#define CACHE_BYTES	(256U << 20)

struct cached {
	struct cached *next;
	uint64_t hash;
	uint32_t job_len, res_len;
	uint8_t data[];			/* the job, then the result */
};

static struct cached *cache_head, **cache_tail = &cache_head;
static size_t cache_bytes;

static const struct cached *cache_find(const uint8_t *job, uint32_t len,
				       uint64_t hash)
{
	const struct cached *c;

	for (c = cache_head; c; c = c->next)
		if (c->hash == hash && c->job_len == len &&
		    !memcmp(c->data, job, len))
			return c;
	return NULL;
}

static void cache_add(const uint8_t *job, uint32_t len, uint64_t hash,
		      const struct wbuf *res)
{
	struct cached *c = malloc(sizeof(*c) + len + res->len);

	if (!c || len + res->len > CACHE_BYTES) {
		free(c);
		return;
	}
	c->next = NULL;
	c->hash = hash;
	c->job_len = len;
	c->res_len = (uint32_t)res->len;
	memcpy(c->data, job, len);
	memcpy(c->data + len, res->p, res->len);
	*cache_tail = c;
	cache_tail = &c->next;
	cache_bytes += len + res->len;
	while (cache_bytes > CACHE_BYTES && cache_head != c) {
		struct cached *old = cache_head;

		cache_head = old->next;
		cache_bytes -= old->job_len + old->res_len;
		free(old);
	}
}

/*
 * And on disk, when the server is given a directory: one file per job,
 * named by its hash, holding the job and then its result, so that the next
 * VM, or the next make check, does not compile it again. The caller keys
 * the directory by the compiler (tools/vm/run.sh names it by nvsvm-clc's,
 * nvclc.bc's and the LLVM tools' hashes). Best effort: a file that is
 * short, foreign or of another job is a miss; a write goes to a temporary
 * name first, then is renamed, so readers see whole files only.
 */
#define DISK_MAGIC	0x314e4c43U	/* "CLN1" */

static const char *disk_dir;

static bool disk_find(const uint8_t *job, uint32_t len, uint64_t hash,
		      struct wbuf *res)
{
	char path[PATH_MAX];
	uint32_t hdr[3];
	uint8_t *d = NULL;
	bool hit = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%016llx", disk_dir,
		 (unsigned long long)hash);
	f = fopen(path, "rb");
	if (!f)
		return false;
	if (fread(hdr, sizeof(hdr), 1, f) == 1 && hdr[0] == DISK_MAGIC &&
	    hdr[1] == len && hdr[2] <= CACHE_BYTES)
		d = malloc((size_t)len + hdr[2] + 1);
	if (d && fread(d, 1, (size_t)len + hdr[2], f) == (size_t)len + hdr[2] &&
	    fgetc(f) == EOF && !memcmp(d, job, len)) {
		put(res, d + len, hdr[2]);
		hit = !res->oom;
	}
	free(d);
	fclose(f);
	return hit;
}

static void disk_add(const uint8_t *job, uint32_t len, uint64_t hash,
		     const struct wbuf *res)
{
	uint32_t hdr[3] = { DISK_MAGIC, len, (uint32_t)res->len };
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%016llx", disk_dir,
		 (unsigned long long)hash);
	snprintf(tmp, sizeof(tmp), "%s/.%016llx.%d", disk_dir,
		 (unsigned long long)hash, (int)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return;
	ok = fwrite(hdr, sizeof(hdr), 1, f) == 1 &&
	     fwrite(job, 1, len, f) == len &&
	     fwrite(res->p, 1, res->len, f) == res->len;
	if (fclose(f) || !ok || rename(tmp, path))
		unlink(tmp);
}

/* A result to the client: its job's id, then the result's bytes. */
static void send_result(int fd, const void *id, const void *res, size_t n)
{
	struct wbuf out = { 0 };

	put(&out, id, 8);
	put(&out, res, n);
	if (!out.oom)
		frame_send(fd, RES_MAGIC, &out);
	free(out.p);
}

int nvcl_serve(int fd, const char *cache_dir)
{
	disk_dir = cache_dir;
	pch_dir = cache_dir;

	for (;;) {
		struct nvcl_result res = { 0 };
		struct nvcl_job job = { 0 };
		struct wbuf w = { 0 };
		uint32_t len;
		uint8_t *d = frame_recv(fd, JOB_MAGIC, -1, &len);
		const void *id;
		uint64_t hash = 0;
		struct rbuf r;

		if (!d) {
			struct pollfd pf = { fd, POLLIN, 0 };

			/* A broken frame: go on; the peer gone: stop. */
			if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLHUP | POLLERR)))
				return 0;
			if (poll(&pf, 1, 0) == 0)
				continue;
			return 0;
		}
		r = (struct rbuf){ d, len, 0, false };
		id = get(&r, 8);
		if (id) {
			const struct cached *c;

			hash = fnv1a64(d + 8, len - 8);
			c = cache_find(d + 8, len - 8, hash);
			if (c) {
				send_result(fd, id, c->data + c->job_len,
					    c->res_len);
				free(d);
				continue;
			}
			if (disk_dir && disk_find(d + 8, len - 8, hash, &w)) {
				cache_add(d + 8, len - 8, hash, &w);
				send_result(fd, id, w.p, w.len);
				free(w.p);
				free(d);
				continue;
			}
		}
		job.mode = get32(&r);
		job.options = get_blob(&r, NULL);
		job.inputs = get_inputs(&r, &job.ninputs);
		job.headers = get_inputs(&r, &job.nheaders);
		if (r.bad || !job.inputs || !job.headers) {
			res.status = NVCL_FAILED;
			res.log = strdup("nvsvm: a job the server could not read\n");
		} else {
			job_local(&job, &res);
		}
		put32(&w, res.status);
		put_str(&w, res.log);
		put_blob(&w, res.bin, res.bin_size);
		if (!w.oom && id && res.status != NVCL_NO_MEMORY) {
			cache_add(d + 8, len - 8, hash, &w);
			/* Not a failure: it may be this host's, not the job's. */
			if (disk_dir && (res.status == NVCL_OK ||
					 res.status == NVCL_BAD_OPTIONS))
				disk_add(d + 8, len - 8, hash, &w);
			send_result(fd, id, w.p, w.len);
		}
		free(w.p);
		nvcl_result_free(&res);
		free(job.options);
		free_inputs(job.inputs, job.ninputs);
		free_inputs(job.headers, job.nheaders);
		free(d);
	}
}
