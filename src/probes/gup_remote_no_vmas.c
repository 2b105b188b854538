// SPDX-License-Identifier: GPL-2.0
/* Probe: get_user_pages_remote() without a vmas argument (include/nvsvm_compat.h). */
#include <linux/mm.h>

long nvsvm_probe(struct mm_struct *mm, struct page **pages)
{
	return get_user_pages_remote(mm, 0, 1, FOLL_WRITE, pages, NULL);
}
