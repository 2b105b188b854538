// SPDX-License-Identifier: GPL-2.0
#include "vgpu.h"

void vgpu_selftest(struct vgpu *vgpu)
{
}
