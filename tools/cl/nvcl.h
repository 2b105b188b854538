/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * nvcl: the OpenCL C compiler of libnvsvm-cl and nvsvm-clc (compile.c),
 * and the program binaries it makes. No OpenCL header is needed here: the
 * offline compiler and the test VM's compile server use it too.
 *
 * A job turns OpenCL C sources (clCompileProgram), LLVM IR modules
 * (clLinkProgram) or both (clBuildProgram) into a program binary:
 *
 *   source --clang-14--> LLVM IR (riscv64, OpenCL address spaces all 0)
 *   IR... --llvm-link-14--> one module; `spir_kernel` dropped, __local
 *          variables made addresses of the LOCAL window, an entry per kernel added
 *          (__nvcl_entry_<kernel>: loads the arguments from the PARAM
 *          window and calls the kernel)
 *   + nvclc.bc (the built-in functions, only what is used: llvm-link-14
 *          after a link, clang-14's -mlink-builtin-bitcode in a build's
 *          first step) --clang-14 -O2--> an object --ld.lld-14--> the
 *          image at NVSVM_GPU_IMAGE_BASE
 *
 * The binary (CL_PROGRAM_BINARIES) is the image and a table of the kernels
 * with their arguments' layout and info for an executable, or the LLVM IR
 * for a compiled object or a library.
 */
#ifndef _NVCL_H
#define _NVCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NVCL_MAGIC		"NVCLBIN2"	/* 2: struct nvcl_bin.flags */

enum nvcl_bin_type {
	NVCL_BIN_OBJECT = 1,		/* LLVM IR, from clCompileProgram */
	NVCL_BIN_LIBRARY,		/* LLVM IR, -create-library */
	NVCL_BIN_EXEC,			/* image and kernels */
};

/* Where a kernel argument's value comes from (its slot in the PARAM block). */
enum nvcl_arg_kind {
	NVCL_ARG_VALUE,			/* size bytes of clSetKernelArg */
	NVCL_ARG_GLOBAL,		/* a pointer: buffer, SVM, or NULL */
	NVCL_ARG_CONSTANT,
	NVCL_ARG_LOCAL,			/* local memory of size bytes */
	NVCL_ARG_OTHER,			/* image, sampler, pipe: none here */
};

struct nvcl_arg {
	uint32_t kind;			/* enum nvcl_arg_kind */
	uint32_t offset;		/* in the PARAM block */
	uint32_t size;			/* its bytes there (value: the type's) */
	uint32_t addr_q, access_q, type_q;	/* CL_KERNEL_ARG_* values */
	char *type_name;
	char *name;
};

struct nvcl_kernel {
	char *name;
	char *attrs;			/* CL_KERNEL_ATTRIBUTES */
	uint32_t entry;			/* offset in the image */
	uint32_t nargs;
	uint32_t param_size;		/* bytes of the PARAM block */
	uint32_t reqd[3];		/* reqd_work_group_size, or 0 */
	struct nvcl_arg *args;
};

/* struct nvcl_bin.flags */
#define NVCL_BIN_PRINTF		0x1	/* the program calls printf */

struct nvcl_bin {
	uint32_t type;			/* enum nvcl_bin_type */
	uint32_t flags;			/* NVCL_BIN_* */
	char *options;			/* the build options */
	uint8_t *image;			/* NVCL_BIN_EXEC */
	uint32_t image_size;
	uint32_t local_static;		/* bytes of __local variables */
	uint32_t stack;			/* private memory a work-item needs */
	char *ir;			/* OBJECT, LIBRARY: LLVM IR text */
	uint32_t ir_size;
	uint32_t nkernels;
	struct nvcl_kernel *kernels;
};

/*
 * printf (tools/cl/clc/printf.c on the device, tools/cl/printf.c on the
 * host). A program that calls it gets, in each kernel's PARAM block, the
 * first NVCL_PRINTF_PARAM bytes (the arguments follow): the address of the
 * launch's printf buffer (u64, 0: none) and the bytes of each work-group's
 * region of it (u32). Work-group g (linear id) writes its records into
 * [g * region, (g + 1) * region), reserving them with an atomic add on a
 * u64 counter at the start of the LOCAL window (NVCL_PRINTF_LOCAL bytes
 * kept there; local memory is zeroed when a group starts): local atomics
 * are exact on every link, global ones on system memory are not on PCIe.
 * A record: u32 its bytes (a multiple of 8, written last), u32
 * NVCL_PRINTF_MAGIC, u64 the format's address (in the image), then per
 * conversion an 8-byte slot (integers as their 64-bit register, floats as
 * doubles), a vector's bytes (3 elements stored as 4) or a string (u64
 * length, the bytes), each rounded up to 8 bytes.
 */
#define NVCL_PRINTF_SIZE	(1U << 20)	/* CL_DEVICE_PRINTF_BUFFER_SIZE */
#define NVCL_PRINTF_PARAM	16
#define NVCL_PRINTF_LOCAL	8
#define NVCL_PRINTF_MAGIC	0x544e5250U	/* "PRNT" */

/* One conversion of an OpenCL C printf format. */
enum nvcl_plen { NVCL_PLEN_NONE, NVCL_PLEN_HH, NVCL_PLEN_H, NVCL_PLEN_HL,
		 NVCL_PLEN_L };

struct nvcl_pspec {
	char conv;		/* diouxXfFeEgGaAcsp; 0: not a conversion */
	uint8_t len;		/* enum nvcl_plen */
	uint8_t vec;		/* 0, or 2, 3, 4, 8, 16 elements */
	uint8_t prefix;		/* bytes of flags, width and precision */
};

/*
 * Parse the conversion after a '%' at @p (OpenCL C 6.15.14.2: flags,
 * width, precision, vector size, length, conversion) into @s; return where
 * the format goes on (@p itself when it is none: @s->conv 0).
 */
static inline const char *nvcl_pspec(const char *p, struct nvcl_pspec *s)
{
	static const char convs[] = "diouxXfFeEgGaAcsp";
	const char *q = p;
	unsigned int i;

	s->conv = 0;
	s->len = NVCL_PLEN_NONE;
	s->vec = 0;
	while (*q == '-' || *q == '+' || *q == ' ' || *q == '#' || *q == '0')
		q++;
	while (*q >= '0' && *q <= '9')
		q++;
	if (*q == '.')
		for (q++; *q >= '0' && *q <= '9'; q++)
			;
	if (q - p > 64)
		return p;
	s->prefix = (uint8_t)(q - p);
	if (*q == 'v') {
		if (q[1] == '2' || q[1] == '3' || q[1] == '4' || q[1] == '8') {
			s->vec = (uint8_t)(q[1] - '0');
			q += 2;
		} else if (q[1] == '1' && q[2] == '6') {
			s->vec = 16;
			q += 3;
		} else {
			return p;
		}
	}
	if (q[0] == 'h' && q[1] == 'h') {
		s->len = NVCL_PLEN_HH;
		q += 2;
	} else if (q[0] == 'h' && q[1] == 'l') {
		s->len = NVCL_PLEN_HL;
		q += 2;
	} else if (q[0] == 'h') {
		s->len = NVCL_PLEN_H;
		q++;
	} else if (q[0] == 'l') {
		s->len = NVCL_PLEN_L;
		q++;
	}
	for (i = 0; convs[i] && convs[i] != *q; i++)
		;
	/* A vector needs a length; hl is for vectors only; no vector of c, s, p. */
	if (!convs[i] || !*q || (s->vec && (!s->len || i >= 14)) ||
	    (!s->vec && s->len == NVCL_PLEN_HL))
		return p;
	s->conv = *q;
	return q + 1;
}

/* Whether @c is one of the floating-point conversions. */
static inline int nvcl_pfloat(char c)
{
	return c == 'f' || c == 'F' || c == 'e' || c == 'E' || c == 'g' ||
	       c == 'G' || c == 'a' || c == 'A';
}

/* The bytes of one element of @s's vector. */
static inline unsigned int nvcl_pelem(const struct nvcl_pspec *s)
{
	return s->len == NVCL_PLEN_HH ? 1 : s->len == NVCL_PLEN_H ? 2 :
	       s->len == NVCL_PLEN_L ? 8 : 4;
}

/* A named input of a job: OpenCL C source, an embedded header, LLVM IR. */
struct nvcl_input {
	char *name;
	void *data;
	size_t size;
};

enum nvcl_mode {
	NVCL_COMPILE = 1,		/* sources -> OBJECT */
	NVCL_LINK,			/* OBJECTs, LIBRARYs -> EXEC or LIBRARY */
	NVCL_BUILD,			/* one source -> EXEC */
};

struct nvcl_job {
	uint32_t mode;			/* enum nvcl_mode */
	char *options;
	uint32_t ninputs, nheaders;
	struct nvcl_input *inputs;	/* sources, or IR */
	struct nvcl_input *headers;	/* COMPILE: the include files */
};

/* What a job gives back: status, the log, and the binary. */
enum nvcl_status {
	NVCL_OK = 0,
	NVCL_FAILED,			/* see the log */
	NVCL_BAD_OPTIONS,		/* CL_INVALID_{BUILD,COMPILER,LINKER}_OPTIONS */
	NVCL_NO_COMPILER,		/* no clang-14 here and no compile server */
	NVCL_NO_MEMORY,
};

struct nvcl_result {
	uint32_t status;		/* enum nvcl_status */
	char *log;
	void *bin;
	size_t bin_size;
};

/*
 * What the device claims, and the compiler gives clang (-cl-ext): the
 * extensions, and OpenCL C 3.0's optional features that nvclc.bc has the
 * functions of. Generic pointers cost nothing: every address is flat.
 */
#define NVCL_EXTENSIONS							\
	"cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics " \
	"cl_khr_global_int32_extended_atomics "				\
	"cl_khr_local_int32_base_atomics "				\
	"cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics " \
	"cl_khr_int64_extended_atomics cl_khr_fp64"
#define NVCL_FEATURES							\
	"__opencl_c_int64 __opencl_c_fp64 "				\
	"__opencl_c_generic_address_space "				\
	"__opencl_c_atomic_order_acq_rel __opencl_c_atomic_order_seq_cst " \
	"__opencl_c_atomic_scope_device __opencl_c_atomic_scope_all_devices"

/**
 * nvcl_run() - run a job: here with clang-14, or on the compile server
 * that $NVSVM_CL_REMOTE (a serial port of the test VM) leads to
 * @job: what to compile
 * @res: the result; nvcl_result_free() it
 *
 * Return: @res->status.
 */
int nvcl_run(const struct nvcl_job *job, struct nvcl_result *res);
void nvcl_result_free(struct nvcl_result *res);
/* Whether nvcl_run() can compile here (tools, library or a server). */
bool nvcl_available(void);
/*
 * Serve the jobs that arrive on @fd until it closes (nvsvm-clc --serve);
 * with @cache_dir, remember their results there too (NULL: in memory only).
 */
int nvcl_serve(int fd, const char *cache_dir);

/* Parse a binary: 0, or -1 when it is not a valid one. */
int nvcl_bin_parse(const void *data, size_t size, struct nvcl_bin *b);
void nvcl_bin_free(struct nvcl_bin *b);

#endif /* _NVCL_H */
