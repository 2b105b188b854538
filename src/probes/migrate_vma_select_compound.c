// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: large device-private folios: MIGRATE_VMA_SELECT_COMPOUND,
 * MIGRATE_PFN_COMPOUND, zone_device_folio_init() and migrate_device_pfns()
 * (include/nvsvm_compat.h).
 */
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/mm.h>

unsigned long nvsvm_probe(struct page *page, struct dev_pagemap *pgmap,
			  unsigned long *pfns)
{
	zone_device_folio_init(page_folio(page), pgmap, 9);
	migrate_device_pfns(pfns, 1);
	return MIGRATE_VMA_SELECT_COMPOUND | MIGRATE_PFN_COMPOUND;
}
