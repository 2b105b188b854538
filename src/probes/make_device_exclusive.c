// SPDX-License-Identifier: GPL-2.0
/* Probe: the one-page make_device_exclusive() (include/nvsvm_compat.h). */
#include <linux/mm.h>
#include <linux/rmap.h>

struct page *nvsvm_probe(struct mm_struct *mm, void *owner)
{
	struct folio *folio;

	return make_device_exclusive(mm, 0, owner, &folio);
}
