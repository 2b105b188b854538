#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release (uname -r) of the kernel a build tree is for. Debian's
# headers carry the upstream version in include/config/kernel.release
# ("6.1.192"), but the real one ("6.1.0-57-amd64") in utsrelease.h.
#
# usage: kernelrelease.sh KDIR
set -euo pipefail

sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h"
