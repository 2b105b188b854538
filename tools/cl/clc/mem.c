// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy, memset, memmove: the C functions LLVM calls for the copies and
 * fills it recognises in a kernel (and for large struct copies). Built
 * with -fno-builtin, so that these loops do not become calls of
 * themselves. Byte loops, with a word loop when both ends are aligned.
 * Marked used (nvclc.bc's @llvm.compiler.used): the compiler's link of the library
 * takes only what the program calls, and these calls are made after it,
 * by -O2 and the code generator (tools/cl/compile.c, finish_exec()).
 */
#define USED __attribute__((used))
typedef unsigned long size_t;

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memmove(void *dst, const void *src, size_t n);

USED void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((((unsigned long)d | (unsigned long)s) & 7) == 0) {
		for (; n >= 8; n -= 8, d += 8, s += 8)
			*(unsigned long *)d = *(const unsigned long *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

USED void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned long w = (unsigned char)c * 0x0101010101010101UL;

	if (((unsigned long)d & 7) == 0) {
		for (; n >= 8; n -= 8, d += 8)
			*(unsigned long *)d = w;
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

USED void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}
