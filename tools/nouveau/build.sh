#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build nouveau.ko with the nvsvm hook (tools/nouveau/nouveau-nvsvm.patch)
# out of tree: copy drivers/gpu/drm/nouveau from Debian's linux-source-6.1,
# apply the patch, build against the stock headers with nvsvm's
# Module.symvers, print the path of the patched nouveau.ko.
#
#   tools/nouveau/build.sh [--out DIR] [--nvsvm DIR]
#
#   --out DIR    build tree (default /tmp/nvsvm-nouveau); kept between runs
#                and reused while the source and the patch are unchanged
#   --nvsvm DIR  where nvsvm.ko was built: its Module.symvers (default: the
#                repository root; build nvsvm there first)
#   KERNELDIR    stock headers (default /lib/modules/6.1.0-57-amd64/build)
#   LINUX_SOURCE linux-source tree (default: tools/scripts/linux-source.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
patch=$here/nouveau-nvsvm.patch
out=/tmp/nvsvm-nouveau
nvsvm=$top
kdir=${KERNELDIR:-/lib/modules/6.1.0-57-amd64/build}

while (($#)); do
	case $1 in
	--out) out=$2; shift 2 ;;
	--nvsvm) nvsvm=$2; shift 2 ;;
	*) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

symvers=$nvsvm/Module.symvers
if ! grep -q nvsvm_pascal_register "$symvers" 2>/dev/null; then
	echo "build.sh: $symvers lacks nvsvm_pascal_register; build nvsvm.ko first" >&2
	exit 1
fi
src=${LINUX_SOURCE:-$("$top/tools/scripts/linux-source.sh")}
nouveau=$src/drivers/gpu/drm/nouveau
if [[ ! -d $nouveau ]]; then
	echo "build.sh: $nouveau missing" >&2
	exit 1
fi

# A fresh copy when the source or the patch changed; else rebuild in place.
stamp="$(readlink -f "$src") $(sha256sum <"$patch" | cut -d' ' -f1)"
if [[ ! -e $out/.stamp || $(cat "$out/.stamp") != "$stamp" ]]; then
	rm -rf "$out"
	mkdir -p "$out"
	cp -a "$nouveau" "$out/nouveau"
	# The patch has a/drivers/gpu/drm/nouveau/ paths (-p1 on a kernel tree).
	patch -s -p5 -d "$out/nouveau" <"$patch"
	echo "$stamp" >"$out/.stamp"
fi

# NOUVEAU_PATH empty: nouveau's Kbuild then finds its headers under $(src).
make -C "$kdir" M="$out/nouveau" NOUVEAU_PATH= \
	NVSVM_INCLUDE="$(readlink -f "$top/include")" \
	KBUILD_EXTRA_SYMBOLS="$(readlink -f "$symvers")" \
	-j"$(nproc)" modules >&2
echo "$out/nouveau/nouveau.ko"
