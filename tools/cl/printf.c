// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * printf's output: the records a launch's work-items wrote into its printf
 * buffer (tools/cl/clc/printf.c; the layout in nvcl.h), formatted with the
 * C library's snprintf, in the order of the work-groups and, within one,
 * of their reservations. Nothing in the buffer is trusted: a record whose
 * format is not a string of the program's image, whose arguments run past
 * its end, or whose header is wrong is skipped (and, as its length is not
 * known then, the rest of its work-group's region).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvsvm_vgpu.h"
#include "nvsvm-cl.h"

/* A record's arguments, as read. */
struct slots {
	const uint8_t *p;
	size_t left;
};

static const uint8_t *take(struct slots *s, size_t n)
{
	const uint8_t *p = s->p;

	n = (n + 7) & ~(size_t)7;
	if (n > s->left)
		return NULL;
	s->p += n;
	s->left -= n;
	return p;
}

/* A half's value: its bits widened into a float's, or m * 2^-24. */
static double half_to_double(uint16_t h)
{
	uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
	float f;

	if (!e) {
		f = (float)m / 16777216.0f;
		return h & 0x8000 ? -(double)f : f;
	}
	bits = (uint32_t)(h & 0x8000) << 16 | m << 13 |
	       (e == 0x1f ? 0xffU : e - 15 + 127) << 23;
	memcpy(&f, &bits, 4);
	return f;
}

/* One element of @s from @p (@size bytes, little-endian) to @out. */
static void put_elem(FILE *out, const char *spec, const struct nvcl_pspec *s,
		     const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;

	memcpy(&v, p, size);
	if (nvcl_pfloat(s->conv)) {
		double d;
		float f;

		if (size == 2) {
			d = half_to_double((uint16_t)v);
		} else if (size == 4) {
			memcpy(&f, &v, 4);
			d = f;
		} else {
			memcpy(&d, &v, 8);
		}
		fprintf(out, spec, d);
	} else if (s->conv == 'p') {
		fprintf(out, spec, (void *)(uintptr_t)v);
	} else if (s->len == NVCL_PLEN_L) {
		fprintf(out, spec, (long long)v);
	} else if (s->conv == 'd' || s->conv == 'i' || s->conv == 'c') {
		/* As the C library's hh and h would convert them. */
		int i = s->len == NVCL_PLEN_HH ? (signed char)v :
			s->len == NVCL_PLEN_H ? (short)v : (int)v;

		fprintf(out, spec, i);
	} else {
		unsigned int u = s->len == NVCL_PLEN_HH ? (unsigned char)v :
				 s->len == NVCL_PLEN_H ? (unsigned short)v :
				 (unsigned int)v;

		fprintf(out, spec, u);
	}
}

/* The conversion @s (its text at @at) of the arguments @a; false: cut short. */
static bool put_conv(FILE *out, const char *at, const struct nvcl_pspec *s,
		     struct slots *a)
{
	char spec[80];
	const uint8_t *p;
	uint64_t l;

	snprintf(spec, sizeof(spec), "%%%.*s%s%c", (int)s->prefix, at,
		 s->len == NVCL_PLEN_L && !nvcl_pfloat(s->conv) ? "ll" : "",
		 s->conv);
	if (s->conv == 's') {
		char *str;

		p = take(a, 8);
		if (!p)
			return false;
		memcpy(&l, p, 8);
		p = l <= a->left ? take(a, l) : NULL;
		if (!p)
			return false;
		str = strndup((const char *)p, l);
		if (!str)
			return false;
		fprintf(out, spec, str);
		free(str);
	} else if (s->vec) {
		unsigned int e = nvcl_pelem(s), i;

		p = take(a, e * (s->vec == 3 ? 4 : s->vec));
		if (!p)
			return false;
		for (i = 0; i < s->vec; i++) {
			if (i)
				fputc(',', out);
			put_elem(out, spec, s, p + i * e, e);
		}
	} else {
		p = take(a, 8);
		if (!p)
			return false;
		put_elem(out, spec, s, p, 8);
	}
	return true;
}

/* One record's text, or false: it is skipped. */
static bool put_record(FILE *out, const struct nvcl_bin *b, uint64_t fmt,
		       struct slots *a)
{
	const char *img = (const char *)b->image, *p, *end;
	uint64_t off = fmt - NVSVM_GPU_IMAGE_BASE;

	if (fmt < NVSVM_GPU_IMAGE_BASE || off >= b->image_size ||
	    !memchr(img + off, 0, b->image_size - off))
		return false;
	p = img + off;
	while (*p) {
		struct nvcl_pspec s;

		end = strchr(p, '%');
		if (!end) {
			fputs(p, out);
			break;
		}
		fwrite(p, 1, end - p, out);
		p = end + 1;
		if (*p == '%') {
			fputc('%', out);
			p++;
			continue;
		}
		end = nvcl_pspec(p, &s);
		if (!s.conv) {
			fputc('%', out);
			continue;
		}
		if (!put_conv(out, p, &s, a))
			return false;
		p = end;
	}
	return true;
}

void nv_printf_flush(const struct nvcl_bin *b, const uint8_t *buf,
		     uint32_t region, uint64_t groups)
{
	uint64_t g;
	FILE *out;

	for (g = 0; region && g < groups; g++) {
		const uint8_t *r = buf + g * region;
		uint32_t pos = 0, hdr[2];

		while (region - pos >= 16) {
			char *rec = NULL;
			size_t rsize = 0;
			struct slots a;
			uint64_t fmt;
			bool ok;

			memcpy(hdr, r + pos, 8);
			memcpy(&fmt, r + pos + 8, 8);
			if (hdr[1] != NVCL_PRINTF_MAGIC || hdr[0] < 16 ||
			    hdr[0] % 8 || hdr[0] > region - pos)
				break;
			a.p = r + pos + 16;
			a.left = hdr[0] - 16;
			pos += hdr[0];
			out = open_memstream(&rec, &rsize);
			if (!out)
				return;
			ok = put_record(out, b, fmt, &a);
			fclose(out);
			if (ok && rec)
				fwrite(rec, 1, rsize, stdout);
			free(rec);
		}
	}
	fflush(stdout);
}
