// SPDX-License-Identifier: GPL-2.0
/* Probe: zone_device_page_init(page, pgmap, order) (include/nvsvm_compat.h). */
#include <linux/mm.h>
#include <linux/memremap.h>

void nvsvm_probe(struct page *page, struct dev_pagemap *pgmap)
{
	zone_device_page_init(page, pgmap, 0);
}
