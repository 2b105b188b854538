#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel build directory nvsvm builds against by default: the
# running kernel's, when it exists, otherwise the newest one installed (the
# machines here run a kernel without modules). The one place that rule
# lives: the Makefile, check.sh and dkms-check.sh ask this script.
#
# usage: kdir.sh   Exit status 1, with one line on stderr, when no
#                  /lib/modules/*/build exists (before `make deps`).
set -uo pipefail

d=/lib/modules/$(uname -r)/build
if [[ -d $d ]]; then
	echo "$d"
	exit 0
fi
shopt -s nullglob
dirs=(/lib/modules/*/build)
if ((${#dirs[@]} == 0)); then
	echo "kdir.sh: no kernel headers in /lib/modules/*/build; run 'make deps' as root (or set KDIR)" >&2
	exit 1
fi
printf '%s\n' "${dirs[@]}" | sort -V | tail -n 1
