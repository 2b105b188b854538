#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel build directory of a test lane. The one place that rule
# lives: the Makefile, check.sh and dkms-check.sh ask this script.
#
# usage: kdir.sh [LANE]
#   stock (default)  the running kernel's, when it exists, otherwise the
#                    newest one installed (the machines here run a kernel
#                    without modules): Debian 12's 6.1
#   6.12             bookworm-backports' 6.12 headers, unpacked by
#                    `make deps` (tools/scripts/debian-kernels.sh)
#   debug            the 6.1 debug kernel's build tree, once built
#                    (tools/scripts/build-debug-kernel.sh)
#   7.3              the 7.3 debug kernel's build tree, once built
#                    (tools/scripts/build-debug-kernel.sh --source 7.3)
# Exit status 1, with one line on stderr, when that lane's tree is not
# there yet (before `make deps`, or before the debug kernel is built).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${NVSVM_CACHE:-/var/cache/nvsvm}

case ${1:-stock} in
stock | 6.1) ;;
debug) exec "$here/build-debug-kernel.sh" --cached ;;
7.3) exec "$here/build-debug-kernel.sh" --source 7.3 --cached ;;
*)
	d=$(awk -v k="$1-kdir" '$1 == k { print $2 }' "$cache/debian-kernels.list" 2>/dev/null)
	if [[ -z $d || ! -d $d ]]; then
		echo "kdir.sh: no $1 kernel headers in $cache; run 'make deps' as root" >&2
		exit 1
	fi
	echo "$d"
	exit 0
	;;
esac

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
