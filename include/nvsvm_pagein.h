/* SPDX-License-Identifier: GPL-2.0 */
/* File page-ins without the mm, for the fault path (src/pagein.c). */
#ifndef _NVSVM_PAGEIN_H
#define _NVSVM_PAGEIN_H

#include <linux/types.h>

#include "nvsvm_core.h"

struct file;
struct folio;
struct mm_struct;

/**
 * struct nvsvm_pagein - file pages of one range to read without the mm
 * @file: the file of the VMA nvsvm_pagein_find() found (referenced), or
 *	NULL
 * @index: its page indices to read, ascending
 * @n: entries in @index
 * @held: folios read, each referenced until nvsvm_pagein_release()
 * @nheld: entries in @held
 */
struct nvsvm_pagein {
	struct file *file;
	pgoff_t index[NVSVM_RANGE_MAX_PAGES];
	unsigned int n;
	struct folio *held[NVSVM_RANGE_MAX_PAGES];
	unsigned int nheld;
};

bool nvsvm_pagein_find(struct mm_struct *mm, const struct nvsvm_range_req *req,
		       u64 *addr, struct nvsvm_pagein *pi);
void nvsvm_pagein_read(struct nvsvm_pagein *pi);
void nvsvm_pagein_release(struct nvsvm_pagein *pi);

#endif /* _NVSVM_PAGEIN_H */
