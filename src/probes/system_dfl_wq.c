// SPDX-License-Identifier: GPL-2.0
/* Probe: system_dfl_wq (include/nvsvm_compat.h). */
#include <linux/workqueue.h>

struct workqueue_struct *nvsvm_probe_system_dfl_wq(void)
{
	return system_dfl_wq;
}
