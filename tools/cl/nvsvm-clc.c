// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * nvsvm-clc: the OpenCL C compiler of libnvsvm-cl on the command line.
 *
 *   nvsvm-clc [-c] [-O "build options"] -o OUT FILE.cl
 *	compile FILE.cl (with -c: to a compiled object, as clCompileProgram)
 *	into a program binary that clCreateProgramWithBinary takes; the
 *	build log goes to stderr
 *   nvsvm-clc --info BINARY
 *	print a binary's kernels and their arguments
 *   nvsvm-clc --serve SOCKET [--cache DIR]
 *	the compile server of the test VM (tools/vm/run.sh): listen on the
 *	unix socket SOCKET (QEMU's serial port connects to it) and compile
 *	the jobs that arrive until the VM is gone; with DIR, keep their
 *	results there for the next server (DIR must belong to this compiler:
 *	the caller keys it by nvsvm-clc, nvclc.bc and the LLVM tools)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nvcl.h"

static char *slurp(const char *p, size_t *n)
{
	FILE *f = fopen(p, "rb");
	size_t cap = 4096, len = 0, k;
	char *d = malloc(cap + 1);

	if (!f || !d) {
		if (f)
			fclose(f);
		free(d);
		return NULL;
	}
	while ((k = fread(d + len, 1, cap - len, f)) > 0) {
		len += k;
		if (len == cap) {
			char *e = realloc(d, 2 * cap + 1);

			if (!e) {
				free(d);
				fclose(f);
				return NULL;
			}
			d = e;
			cap *= 2;
		}
	}
	fclose(f);
	d[len] = 0;
	*n = len;
	return d;
}

static int info(const char *p)
{
	static const char *const kinds[] = { "value", "global", "constant",
					     "local", "other" };
	struct nvcl_bin b;
	uint32_t i, j;
	size_t n;
	char *d = slurp(p, &n);

	if (!d || nvcl_bin_parse(d, n, &b)) {
		fprintf(stderr, "nvsvm-clc: %s: not a program binary\n", p);
		free(d);
		return 1;
	}
	printf("type %u, image %u bytes, __local %u bytes, stack %u bytes, %u kernels\n",
	       b.type, b.image_size, b.local_static, b.stack, b.nkernels);
	for (i = 0; i < b.nkernels; i++) {
		const struct nvcl_kernel *k = &b.kernels[i];

		printf("kernel %s: entry 0x%x, %u bytes of arguments%s%s\n",
		       k->name, k->entry, k->param_size, *k->attrs ? ", " : "",
		       k->attrs);
		for (j = 0; j < k->nargs; j++)
			printf("  %u: %s %s: %s at %u, %u bytes\n", j,
			       k->args[j].type_name, k->args[j].name,
			       kinds[k->args[j].kind], k->args[j].offset,
			       k->args[j].size);
	}
	nvcl_bin_free(&b);
	free(d);
	return 0;
}

static int serve(const char *p, const char *cache)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c;

	if (s < 0 || strlen(p) >= sizeof(a.sun_path)) {
		fprintf(stderr, "nvsvm-clc: %s: bad socket path\n", p);
		return 1;
	}
	strcpy(a.sun_path, p);
	unlink(p);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1)) {
		fprintf(stderr, "nvsvm-clc: %s: %s\n", p, strerror(errno));
		return 1;
	}
	/* One VM, maybe connecting again after a reboot. */
	while ((c = accept(s, NULL, NULL)) >= 0 || errno == EINTR) {
		if (c < 0)
			continue;
		nvcl_serve(c, cache);
		close(c);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: nvsvm-clc [-c] [-O OPTIONS] -o OUT FILE.cl\n"
			"       nvsvm-clc --info BINARY\n"
			"       nvsvm-clc --serve SOCKET [--cache DIR]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *options = "", *src = NULL, *base;
	struct nvcl_input in = { 0 };
	struct nvcl_result res;
	struct nvcl_job job = { .mode = NVCL_BUILD };
	FILE *f;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--info") && i + 1 < argc)
			return info(argv[i + 1]);
		if (!strcmp(argv[i], "--serve") && i + 1 < argc) {
			if (i + 2 == argc)
				return serve(argv[i + 1], NULL);
			if (i + 4 == argc && !strcmp(argv[i + 2], "--cache"))
				return serve(argv[i + 1], argv[i + 3]);
			usage();
		}
		if (!strcmp(argv[i], "-c"))
			job.mode = NVCL_COMPILE;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-O") && i + 1 < argc)
			options = argv[++i];
		else if (argv[i][0] == '-' || src)
			usage();
		else
			src = argv[i];
	}
	if (!src || !out)
		usage();
	in.data = slurp(src, &in.size);
	if (!in.data) {
		fprintf(stderr, "nvsvm-clc: %s: %s\n", src, strerror(errno));
		return 1;
	}
	base = strrchr(src, '/');
	in.name = strdup(base ? base + 1 : src);
	job.options = (char *)options;
	job.inputs = &in;
	job.ninputs = 1;
	nvcl_run(&job, &res);
	if (res.log && *res.log)
		fputs(res.log, stderr);
	if (res.status != NVCL_OK) {
		nvcl_result_free(&res);
		return 1;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(res.bin, 1, res.bin_size, f) != res.bin_size ||
	    fclose(f)) {
		fprintf(stderr, "nvsvm-clc: %s: %s\n", out, strerror(errno));
		return 1;
	}
	nvcl_result_free(&res);
	free(in.data);
	free(in.name);
	return 0;
}
