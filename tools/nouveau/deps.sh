#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stock kernel modules the patched nouveau.ko needs (drm, ttm,
# drm_kms_helper, ... : the stock nouveau.ko's dependencies, recursively,
# as the kernel's modules.dep lists them), for the test initramfs.
#
#   tools/nouveau/deps.sh [--kver KVER] list        print their paths
#   tools/nouveau/deps.sh [--kver KVER] copy DIR    copy them into DIR
#                                                   (flat, uncompressed)
#
# KVER defaults to the release of tools/scripts/kdir.sh's headers; the
# modules come from /lib/modules/KVER.
# The patched nouveau.ko itself and nvsvm.ko are not listed.
set -euo pipefail

kver=
while (($#)); do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	*) break ;;
	esac
done
cmd=${1:-list}
if [[ -z $kver ]]; then
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	kdir=$("$top/tools/scripts/kdir.sh") || exit 1
	kver=$("$top/tools/scripts/kernelrelease.sh" "$kdir")
fi
mods=/lib/modules/$kver

# modules.dep already holds the whole closure for each module.
line=$(grep -E '^kernel/drivers/gpu/drm/nouveau/nouveau\.ko(\.[a-z]+)?:' \
	"$mods/modules.dep" || true)
if [[ -z $line ]]; then
	echo "deps.sh: nouveau is not in $mods/modules.dep" >&2
	exit 1
fi
deps=()
for d in ${line#*:}; do
	deps+=("$mods/$d")
done

case $cmd in
list)
	printf '%s\n' "${deps[@]}"
	;;
copy)
	dir=${2:?usage: deps.sh copy DIR}
	mkdir -p "$dir"
	for d in "${deps[@]}"; do
		base=$(basename "$d")
		case $d in
		*.ko.xz) xz -dc "$d" >"$dir/${base%.xz}" ;;
		*.ko.zst) zstd -qdc "$d" >"$dir/${base%.zst}" ;;
		*.ko.gz) gzip -dc "$d" >"$dir/${base%.gz}" ;;
		*) cp "$d" "$dir/" ;;
		esac
	done
	;;
*)
	echo "deps.sh: unknown command $cmd (list or copy DIR)" >&2
	exit 2
	;;
esac
