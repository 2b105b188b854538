// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnvsvm: see libnvsvm.h. Each call fills one uAPI struct, issues the
 * ioctl and turns a failure into a negative errno value.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libnvsvm.h"

static int nvsvm_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);

	return ret < 0 ? -errno : 0;
}

int nvsvm_open(unsigned int index)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/nvsvm%u", index);
	fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int nvsvm_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

int nvsvm_get_info(int fd, struct nvsvm_get_info *info)
{
	memset(info, 0, sizeof(*info));

	return nvsvm_ioctl(fd, NVSVM_IOCTL_GET_INFO, info);
}

int nvsvm_area_init(int fd, uint64_t unmanaged_addr, uint64_t unmanaged_size)
{
	struct nvsvm_area_init args = {
		.unmanaged_addr = unmanaged_addr,
		.unmanaged_size = unmanaged_size,
	};

	return nvsvm_ioctl(fd, NVSVM_IOCTL_AREA_INIT, &args);
}

int nvsvm_area_fini(int fd)
{
	struct nvsvm_area_fini args = { 0 };

	return nvsvm_ioctl(fd, NVSVM_IOCTL_AREA_FINI, &args);
}

int nvsvm_map(int fd, uint64_t addr, uint64_t size, uint32_t flags,
	      uint64_t *mapped)
{
	struct nvsvm_map args = {
		.addr = addr,
		.size = size,
		.flags = flags,
	};
	int ret;

	ret = nvsvm_ioctl(fd, NVSVM_IOCTL_MAP, &args);
	if (!ret && mapped)
		*mapped = args.mapped;

	return ret;
}

int nvsvm_unmap(int fd, uint64_t addr, uint64_t size)
{
	struct nvsvm_unmap args = {
		.addr = addr,
		.size = size,
	};

	return nvsvm_ioctl(fd, NVSVM_IOCTL_UNMAP, &args);
}

int nvsvm_query(int fd, uint64_t addr, uint64_t npages, uint32_t *entries)
{
	struct nvsvm_query args = {
		.addr = addr,
		.npages = npages,
		.entries = nvsvm_ptr(entries),
	};
	int ret;

	ret = nvsvm_ioctl(fd, NVSVM_IOCTL_QUERY, &args);
	/*
	 * A module from before QUERY became _IOWR knows its first number only
	 * (the new one is an ABI mismatch there: EINVAL). A module that knows
	 * both fails the same way on either.
	 */
	if (ret == -EINVAL)
		ret = nvsvm_ioctl(fd, NVSVM_IOCTL_QUERY_OLD, &args);
	return ret;
}

int nvsvm_chan_create(int fd, uint32_t flags, uint32_t *handle)
{
	struct nvsvm_chan_create args = { .flags = flags };
	int ret;

	ret = nvsvm_ioctl(fd, NVSVM_IOCTL_CHAN_CREATE, &args);
	if (!ret)
		*handle = args.handle;

	return ret;
}

int nvsvm_chan_destroy(int fd, uint32_t handle)
{
	struct nvsvm_chan_destroy args = { .handle = handle };

	return nvsvm_ioctl(fd, NVSVM_IOCTL_CHAN_DESTROY, &args);
}

int nvsvm_buf_alloc(int fd, uint64_t addr, uint64_t size, uint32_t flags,
		    uint32_t *handle, uint64_t *mmap_offset)
{
	struct nvsvm_buf_alloc args = {
		.addr = addr,
		.size = size,
		.flags = flags,
	};
	int ret;

	ret = nvsvm_ioctl(fd, NVSVM_IOCTL_BUF_ALLOC, &args);
	if (!ret) {
		*handle = args.handle;
		if (mmap_offset)
			*mmap_offset = args.mmap_offset;
	}
	return ret;
}

int nvsvm_buf_free(int fd, uint32_t handle)
{
	struct nvsvm_buf_free args = { .handle = handle };

	return nvsvm_ioctl(fd, NVSVM_IOCTL_BUF_FREE, &args);
}

int nvsvm_buf_mmap(int fd, uint64_t addr, uint64_t size, uint64_t mmap_offset,
		   int prot)
{
	void *p = mmap((void *)(uintptr_t)addr, size, prot,
		       MAP_SHARED | MAP_FIXED, fd, (off_t)mmap_offset);

	return p == MAP_FAILED ? -errno : 0;
}

int nvsvm_exec(int fd, uint32_t handle, uint32_t gpc, struct nvsvm_op *ops,
	       uint32_t nops, uint32_t timeout_ms, struct nvsvm_exec *out)
{
	return nvsvm_exec_flags(fd, handle, gpc, 0, ops, nops, timeout_ms, out);
}

int nvsvm_exec_flags(int fd, uint32_t handle, uint32_t gpc, uint32_t flags,
		     struct nvsvm_op *ops, uint32_t nops, uint32_t timeout_ms,
		     struct nvsvm_exec *out)
{
	struct nvsvm_exec args = {
		.handle = handle,
		.gpc = gpc,
		.ops = nvsvm_ptr(ops),
		.nops = nops,
		.timeout_ms = timeout_ms,
		.flags = flags,
	};
	int ret;

	ret = nvsvm_ioctl(fd, NVSVM_IOCTL_EXEC, &args);
	if (!ret && out)
		*out = args;

	return ret;
}

int nvsvm_migrate(int fd, uint64_t addr, uint64_t size, uint32_t target,
		  uint64_t *moved)
{
	struct nvsvm_migrate args = {
		.addr = addr,
		.size = size,
		.target = target,
	};
	int ret;

	ret = nvsvm_ioctl(fd, NVSVM_IOCTL_MIGRATE, &args);
	if (!ret && moved)
		*moved = args.moved;

	return ret;
}

/* Read the decimal number in the file at @path, such as a debugfs counter. */
static int read_counter(const char *path, uint64_t *val)
{
	char buf[32], *end;
	unsigned long long v;
	ssize_t len;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (len < 0)
		return -err;
	buf[len] = '\0';

	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	*val = v;

	return 0;
}

int nvsvm_stat_read(unsigned int index, const char *name, uint64_t *val)
{
	char path[128];

	snprintf(path, sizeof(path), NVSVM_DEBUGFS_FMT "/%s", index, name);
	return read_counter(path, val);
}

int nvsvm_vgpu_stat_read(unsigned int index, const char *name, uint64_t *val)
{
	char path[128];

	snprintf(path, sizeof(path), NVSVM_VGPU_DEBUGFS_FMT "/%s", index, name);
	return read_counter(path, val);
}

struct nvsvm_op nvsvm_op_nop(void)
{
	return (struct nvsvm_op){ .code = NVSVM_OP_NOP };
}

struct nvsvm_op nvsvm_op_read(uint64_t addr)
{
	return (struct nvsvm_op){ .code = NVSVM_OP_READ, .addr = addr };
}

struct nvsvm_op nvsvm_op_write(uint64_t addr, uint64_t value)
{
	return (struct nvsvm_op){
		.code = NVSVM_OP_WRITE, .addr = addr, .value = value,
	};
}

struct nvsvm_op nvsvm_op_fill(uint64_t addr, uint64_t len, uint64_t value)
{
	return (struct nvsvm_op){
		.code = NVSVM_OP_FILL, .addr = addr, .len = len, .value = value,
	};
}

struct nvsvm_op nvsvm_op_copy(uint64_t dst, uint64_t src, uint64_t len)
{
	return (struct nvsvm_op){
		.code = NVSVM_OP_COPY, .addr = dst, .src = src, .len = len,
	};
}

struct nvsvm_op nvsvm_op_atomic_add(uint64_t addr, uint64_t value)
{
	return (struct nvsvm_op){
		.code = NVSVM_OP_ATOMIC_ADD, .addr = addr, .value = value,
	};
}

struct nvsvm_op nvsvm_op_chase(uint64_t head, uint64_t max_nodes,
			       uint64_t increment, uint32_t off_next,
			       uint32_t off_data)
{
	return (struct nvsvm_op){
		.code = NVSVM_OP_CHASE,
		.addr = head,
		.len = max_nodes,
		.value = increment,
		.off_next = off_next,
		.off_data = off_data,
	};
}

struct nvsvm_op nvsvm_op_sum(uint64_t addr, uint64_t len)
{
	return (struct nvsvm_op){
		.code = NVSVM_OP_SUM, .addr = addr, .len = len,
	};
}

const char *nvsvm_status_name(uint32_t status)
{
	static const char *const names[] = {
		[NVSVM_EXEC_OK] = "OK",
		[NVSVM_EXEC_FAULT] = "FAULT",
		[NVSVM_EXEC_FATAL] = "FATAL",
		[NVSVM_EXEC_TIMEOUT] = "TIMEOUT",
		[NVSVM_EXEC_CHANNEL_ERROR] = "CHANNEL_ERROR",
		[NVSVM_EXEC_TRAP] = "TRAP",
	};

	if (status < sizeof(names) / sizeof(names[0]))
		return names[status];
	return "?";
}

void nvsvm_launch_init(struct nvsvm_launch *l, uint32_t handle,
		       const void *image, uint32_t image_size, uint32_t entry,
		       const void *param, uint32_t param_size,
		       uint64_t global_size, uint32_t local_size)
{
	*l = (struct nvsvm_launch){
		.handle = handle,
		.gpc = NVSVM_GPC_ANY,
		.image = nvsvm_ptr(image),
		.image_size = image_size,
		.entry = entry,
		.param = nvsvm_ptr(param),
		.param_size = param_size,
		.work_dim = 1,
		.global_size = { global_size },	/* unused dimensions zero */
		.local_size = { local_size },
		.priv_mem = NVSVM_LAUNCH_DEFAULT_PRIV,
		.timeout_ms = NVSVM_LAUNCH_DEFAULT_TIMEOUT_MS,
	};
}

int nvsvm_launch(int fd, struct nvsvm_launch *l)
{
	return nvsvm_ioctl(fd, NVSVM_IOCTL_LAUNCH, l);
}

const char *nvsvm_trap_name(uint32_t trap)
{
	static const char *const names[] = {
		[NVSVM_TRAP_NONE] = "NONE",
		[NVSVM_TRAP_ILLEGAL] = "ILLEGAL",
		[NVSVM_TRAP_FETCH] = "FETCH",
		[NVSVM_TRAP_MISALIGNED] = "MISALIGNED",
		[NVSVM_TRAP_WINDOW] = "WINDOW",
		[NVSVM_TRAP_BREAK] = "BREAK",
		[NVSVM_TRAP_BUDGET] = "BUDGET",
	};

	if (trap < sizeof(names) / sizeof(names[0]))
		return names[trap];
	return "?";
}

const char *nvsvm_access_name(uint32_t access)
{
	static const char *const names[] = {
		[NVSVM_ACCESS_READ] = "READ",
		[NVSVM_ACCESS_WRITE] = "WRITE",
		[NVSVM_ACCESS_ATOMIC] = "ATOMIC",
		[NVSVM_ACCESS_PREFETCH] = "PREFETCH",
	};

	if (access < sizeof(names) / sizeof(names[0]))
		return names[access];
	return "?";
}
