/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for differences between kernel versions. Force-included in
 * every object by Kbuild; tested by feature where the kernel allows it.
 */
#ifndef _NVSVM_COMPAT_H
#define _NVSVM_COMPAT_H

#include <linux/version.h>

#endif /* _NVSVM_COMPAT_H */
