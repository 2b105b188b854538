// SPDX-License-Identifier: GPL-2.0
/* Probe: vm_flags_set() (include/nvsvm_compat.h). */
#include <linux/mm.h>

void nvsvm_probe_vm_flags_set(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTDUMP);
}
