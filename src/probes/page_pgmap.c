// SPDX-License-Identifier: GPL-2.0
/* Probe: page_pgmap(), struct page without pgmap (include/nvsvm_compat.h). */
#include <linux/mm.h>
#include <linux/memremap.h>

struct dev_pagemap *nvsvm_probe(struct page *page)
{
	return page_pgmap(page);
}
