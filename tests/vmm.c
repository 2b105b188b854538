// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU page tables' look at which pages of a range are valid
 * (nvsvm_vmm_valid(), the fault path's prefetch): its direct path must
 * give what the generic walk and a per-page lookup give, on tables that
 * hold every mix of 4 KiB, 64 KiB and 2 MiB PTEs, valid and invalidated,
 * holes, sparse and dual tables. The comparison runs in the kernel, on
 * tables built for it (src/vmm_selftest.c, a test build's debugfs
 * nvsvm/nvsvmN/vmm_selftest); this program checks its KTAP lines and
 * shows its diagnostics, the cost of both looks per 2 MiB block among
 * them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

#define SELFTEST_PLAN	19

/* The self-test's output into @buf: its length, or a negative errno. */
static ssize_t selftest_read(char *buf, size_t len)
{
	char path[128];
	ssize_t n, got = 0;
	int fd;

	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/nvsvm/nvsvm%u/vmm_selftest", dev_index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 &&
	       (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	if (n < 0)
		got = -errno;
	close(fd);
	if (got >= 0)
		buf[got] = '\0';
	return got;
}

TEST(valid_direct_matches_walk)
{
	static char buf[1 << 16];
	unsigned int ok = 0, not_ok = 0, plan = 0;
	char *line, *save;
	ssize_t n = selftest_read(buf, sizeof(buf));

	if (n == -ENOENT)
		SKIP(return, "no vmm_selftest: not a test build (CONFIG_NVSVM_TEST)");
	ASSERT_LE(0, n) {
		TH_LOG("read vmm_selftest: %s", strerror(-n));
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "1..", 3))
			plan = strtoul(line + 3, NULL, 10);
		else if (!strncmp(line, "ok ", 3))
			ok++;
		else if (!strncmp(line, "not ok ", 7))
			not_ok++;
		TH_LOG("%s", line);
	}
	ASSERT_EQ(SELFTEST_PLAN, plan);
	ASSERT_EQ(0, not_ok);
	ASSERT_EQ(SELFTEST_PLAN, ok);
}

int main(int argc, char **argv)
{
	return test_harness_main(argc, argv, 0);
}
