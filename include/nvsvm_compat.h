/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for differences between kernel versions. Force-included in
 * every object by Kbuild; tested by feature where the kernel allows it.
 */
#ifndef _NVSVM_COMPAT_H
#define _NVSVM_COMPAT_H

#include <linux/kconfig.h>
#include <linux/version.h>

/*
 * Device-private memory (src/dmem.c) needs ZONE_DEVICE pages of type
 * MEMORY_DEVICE_PRIVATE and migrate_vma_*()/migrate_device_*(): the kernel
 * must have CONFIG_DEVICE_PRIVATE (which selects GET_FREE_REGION) and
 * CONFIG_DEVICE_MIGRATION. Debian's stock 6.1 has the latter only; there
 * the code is compiled but dead (IS_ENABLED() is false, so no reference
 * to a symbol the kernel lacks survives), and MIGRATE fails with
 * EOPNOTSUPP. migrate_device_range() (used to evict VRAM at unregister)
 * is in 6.1 from 6.1.y stable on.
 */
#define NVSVM_HAVE_DEVICE_PRIVATE \
	(IS_ENABLED(CONFIG_DEVICE_PRIVATE) && IS_ENABLED(CONFIG_DEVICE_MIGRATION))

#endif /* _NVSVM_COMPAT_H */
