/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny KTAP harness for the nvsvm test programs not yet converted to
 * the kernel's kselftest_harness.h (docs/testing.md lists those that are);
 * its checks are tests/check.h's, shared with common.h's helpers.
 *
 * A program declares an array of struct ktap_case and calls ktap_run().
 * Each case runs in its own forked process (so a crash, a hang or a leaked
 * mapping cannot spoil the next case) under an alarm, and returns
 * KTAP_PASS, KTAP_FAIL or KTAP_SKIP. The EXPECT_* macros record what was
 * expected and what was seen, and return KTAP_FAIL from the case; that
 * message is printed as "# " lines after "not ok N name".
 *
 * Output:  KTAP version 1 / 1..N / ok N name / not ok N name /
 *          ok N name # SKIP reason
 * Exit:    0 all passed or skipped, 1 any failure, KTAP_EXIT_SKIP (4) when
 *          ktap_skip_all() found a capability missing.
 */
#ifndef _NVSVM_KTAP_H
#define _NVSVM_KTAP_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define KTAP_EXIT_SKIP	4

struct ktap_case {
	const char *name;
	int (*fn)(void);
	unsigned int timeout_s;		/* 0: KTAP_DEFAULT_TIMEOUT */
};

#define KTAP_DEFAULT_TIMEOUT	120
#define KTAP_CASE(fn)		{ #fn, fn, 0 }
#define KTAP_CASE_T(fn, t)	{ #fn, fn, t }
#define KTAP_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define SKIP(fmt, ...) do {						\
	ktap_note(fmt, ##__VA_ARGS__);					\
	return KTAP_SKIP;						\
} while (0)

/* In a case, a failed check ends it (the checks of check.h). */
#define EXPECT_TRUE	CHK_TRUE
#define EXPECT_EQ	CHK_EQ
#define EXPECT_NE	CHK_NE
#define EXPECT_ERR	CHK_ERR
#define EXPECT_OK	CHK_OK
#define EXPECT_SYS_ERR	CHK_SYS_ERR
#define ASSERT_SYS	CHK_SYS
#define ASSERT_MAP	CHK_MAP

static inline void ktap_print_msg(void)
{
	char *line = ktap_msg, *nl;

	while (line && *line) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		printf("# %s\n", line);
		line = nl ? nl + 1 : NULL;
	}
}

/* The whole program cannot run: print an empty plan and exit 4. */
static inline void __attribute__((noreturn, format(printf, 1, 2)))
ktap_skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("KTAP version 1\n1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(KTAP_EXIT_SKIP);
}

static inline int ktap_run_one(const struct ktap_case *c)
{
	int status;
	pid_t pid;

	memset(ktap_msg, 0, KTAP_MSG_SIZE);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ktap_note("fork: %s", strerror(errno));
		return KTAP_FAIL;
	}
	if (!pid) {
		alarm(c->timeout_s ? c->timeout_s : KTAP_DEFAULT_TIMEOUT);
		_exit(c->fn());
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ktap_note("waitpid: %s", strerror(errno));
			return KTAP_FAIL;
		}
	}
	if (WIFSIGNALED(status)) {
		ktap_note("case killed by signal %d (%s)%s", WTERMSIG(status),
			  strsignal(WTERMSIG(status)),
			  WTERMSIG(status) == SIGALRM ? ": timed out" : "");
		return KTAP_FAIL;
	}
	if (WEXITSTATUS(status) > KTAP_SKIP) {
		ktap_note("case exited with %d", WEXITSTATUS(status));
		return KTAP_FAIL;
	}
	return WEXITSTATUS(status);
}

/* Run every case, print KTAP, return the exit code for main(). */
static inline int ktap_run(const struct ktap_case *cases, size_t n)
{
	unsigned int failed = 0, skipped = 0;
	size_t i;
	int ret;

	ktap_msg = ktap_shared(KTAP_MSG_SIZE);
	if (!ktap_msg) {
		perror("mmap");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		if (!ktap_selected(cases[i].name)) {
			printf("ok %zu %s # SKIP not in KTAP_CASES\n", i + 1,
			       cases[i].name);
			skipped++;
			continue;
		}
		ret = ktap_run_one(&cases[i]);
		ktap_msg[KTAP_MSG_SIZE - 1] = '\0';
		if (ret == KTAP_SKIP) {
			printf("ok %zu %s # SKIP %s\n", i + 1, cases[i].name,
			       *ktap_msg ? strtok(ktap_msg, "\n") : "");
			skipped++;
			continue;
		}
		printf("%sok %zu %s\n", ret == KTAP_PASS ? "" : "not ",
		       i + 1, cases[i].name);
		ktap_print_msg();
		if (ret != KTAP_PASS)
			failed++;
	}
	printf("# Totals: pass:%zu fail:%u skip:%u\n",
	       n - failed - skipped, failed, skipped);

	return failed ? 1 : 0;
}

#endif /* _NVSVM_KTAP_H */
