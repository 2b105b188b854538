// SPDX-License-Identifier: GPL-2.0
/* Probe: platform_driver::remove() returns void (include/nvsvm_compat.h). */
#include <linux/platform_device.h>

static void nvsvm_probe_remove(struct platform_device *pdev)
{
}

struct platform_driver nvsvm_probe_driver = {
	.remove = nvsvm_probe_remove,
};
