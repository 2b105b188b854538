/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks for helper functions (tests/common.h and a program's own). A
 * helper returns KTAP_PASS or KTAP_FAIL and says why in a note; the case
 * asserts on what it returned: ASSERT_EQ(KTAP_PASS, helper(...)).
 *
 * Why not the harness's own ASSERT_*: those need the case's _metadata and
 * jump out of the case, so a helper using them could not be called from
 * another helper, from a child process or from a thread.
 *
 * Notes go at once to stderr as "# " lines, as the harness's TH_LOG does.
 */
#ifndef NVSVM_TESTS_CHECK_H
#define NVSVM_TESTS_CHECK_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { KTAP_PASS = 0, KTAP_FAIL = 1, KTAP_SKIP = 2 };

static inline void __attribute__((format(printf, 1, 2)))
ktap_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

#define KTAP_FAIL_MSG(fmt, ...) do {					\
	ktap_note("%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__);	\
	return KTAP_FAIL;						\
} while (0)

/* A helper's result must be KTAP_PASS, or the helper fails too. */
#define CHECK(x) do { if ((x) != KTAP_PASS) return KTAP_FAIL; } while (0)

#define CHK_TRUE(cond, fmt, ...) do {					\
	if (!(cond))							\
		KTAP_FAIL_MSG("expected %s: " fmt, #cond, ##__VA_ARGS__); \
} while (0)

#define CHK_EQ(got, exp) do {						\
	unsigned long long __g = (unsigned long long)(got);		\
	unsigned long long __e = (unsigned long long)(exp);		\
	if (__g != __e)							\
		KTAP_FAIL_MSG("%s: expected %s = %#llx (%lld), got %#llx (%lld)", \
			      #got, #exp, __e, (long long)__e, __g,	\
			      (long long)__g);				\
} while (0)

#define CHK_NE(got, bad) do {						\
	unsigned long long __g = (unsigned long long)(got);		\
	unsigned long long __b = (unsigned long long)(bad);		\
	if (__g == __b)							\
		KTAP_FAIL_MSG("%s: expected anything but %s = %#llx",	\
			      #got, #bad, __b);				\
} while (0)

/* @ret is 0 or a negative errno value (the libnvsvm convention). */
#define CHK_ERR(ret, err) do {						\
	int __r = (ret);						\
	if (__r != -(err))						\
		KTAP_FAIL_MSG("%s: expected -%s (%s), got %d (%s)", #ret, \
			      #err, strerror(err), __r,			\
			      __r ? strerror(-__r) : "success");	\
} while (0)

#define CHK_OK(ret)	CHK_ERR(ret, 0)

/* For calls returning -1 and setting errno (raw ioctl, mmap helpers). */
#define CHK_SYS_ERR(call, err) do {					\
	int __r = (call);						\
	int __e = __r < 0 ? errno : 0;					\
	if (__r != -1 || __e != (err))					\
		KTAP_FAIL_MSG("%s: expected -1/%s (%s), got %d/%s", #call, \
			      #err, strerror(err), __r,			\
			      __e ? strerror(__e) : "no error");	\
} while (0)

#define CHK_SYS(call) do {						\
	if ((long)(call) < 0)						\
		KTAP_FAIL_MSG("%s failed: %s", #call, strerror(errno));	\
} while (0)

#define CHK_MAP(p) do {							\
	if ((void *)(p) == MAP_FAILED || !(p))				\
		KTAP_FAIL_MSG("%s failed: %s", #p, strerror(errno));	\
} while (0)

/* Map a shared anonymous area usable by a case and its own children. */
static inline void *ktap_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * $KTAP_CASES, when set: a comma-separated list of the case names to run;
 * the others are reported as skipped (to iterate on a few cases): 6.1's
 * kselftest_harness.h has no such option.
 */
static inline int ktap_selected(const char *name)
{
	const char *only = getenv("KTAP_CASES"), *p;
	size_t len = strlen(name);

	if (!only || !*only)
		return 1;
	for (p = only; (p = strstr(p, name)); p += len)
		if ((p == only || p[-1] == ',') && (!p[len] || p[len] == ','))
			return 1;
	return 0;
}

#endif /* NVSVM_TESTS_CHECK_H */
