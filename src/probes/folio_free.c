// SPDX-License-Identifier: GPL-2.0
/* Probe: dev_pagemap_ops::folio_free() (include/nvsvm_compat.h). */
#include <linux/mm.h>
#include <linux/memremap.h>

static void nvsvm_probe_free(struct folio *folio)
{
}

const struct dev_pagemap_ops nvsvm_probe_ops = {
	.folio_free = nvsvm_probe_free,
};
