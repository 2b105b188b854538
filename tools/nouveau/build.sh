#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build nouveau.ko with the nvsvm hook (tools/nouveau/nouveau-nvsvm.patch)
# out of tree: drivers/gpu/drm/nouveau from Debian's linux-source-6.1, the
# patch applied (exactly: no fuzz), built as an external module against the
# stock headers with nvsvm's Module.symvers. Prints the path of the patched
# nouveau.ko on stdout (everything else goes to stderr).
#
#   tools/nouveau/build.sh [--nvsvm DIR] [--cache DIR] [--debug-info] [--force]
#
#   --nvsvm DIR   where nvsvm.ko was built: its Module.symvers (default: the
#                 repository root; build nvsvm there first)
#   --cache DIR   default $NVSVM_CACHE or /var/cache/nvsvm
#   --debug-info  keep the kernel config's -g (a ~190 MB nouveau.ko, slower);
#                 the default adds -g0, as Debian ships its modules stripped
#   --force       rebuild even when the result is cached
#   KERNELDIR     stock headers (default: tools/scripts/kdir.sh)
#   LINUX_SOURCE  linux-source tree (default: tools/scripts/linux-source.sh)
#
# The result is cached in CACHE/nouveau-<key>/nouveau.ko, the key being a
# hash of what the module depends on: the linux-source version, the patch,
# nvsvm's exported interface (the nvsvm_pascal_* CRCs in Module.symvers and
# include/nvsvm_pascal.h), the headers (kernel release, their Module.symvers
# and config), the compiler and the build options. A hit costs a second.
#
# A miss builds in one persistent tree, CACHE/nouveau-build: the patched
# sources are synced into it by content (rsync --checksum), so files that did
# not change keep their timestamps and Kbuild recompiles only what a new
# patch, source or header version really changed (a patch change in one
# file: 1 file compiled, 9 CPU seconds). The first build compiles all ~690
# files: about 10 CPU minutes (some 5 minutes on two idle cores).
# CACHE/nouveau.lock serialises concurrent runs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
patch=$here/nouveau-nvsvm.patch
nvsvm=$top
cache=${NVSVM_CACHE:-/var/cache/nvsvm}
kdir=${KERNELDIR:-$("$top/tools/scripts/kdir.sh")}
debug_info=0 force=0

while (($#)); do
	case $1 in
	--nvsvm) nvsvm=$2; shift 2 ;;
	--cache) cache=$2; shift 2 ;;
	--debug-info) debug_info=1; shift ;;
	--force) force=1; shift ;;
	*) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

symvers=$(readlink -f "$nvsvm/Module.symvers")
if ! grep -q nvsvm_pascal_register "$symvers" 2>/dev/null; then
	echo "build.sh: $nvsvm/Module.symvers lacks nvsvm_pascal_register; build nvsvm.ko first" >&2
	exit 1
fi
if [[ ! -e $kdir/include/generated/utsrelease.h ]]; then
	echo "build.sh: no kernel headers at $kdir" >&2
	exit 1
fi
src=${LINUX_SOURCE:-$("$top/tools/scripts/linux-source.sh")}
src=$(readlink -f "$src")
nouveau=$src/drivers/gpu/drm/nouveau
if [[ ! -d $nouveau ]]; then
	echo "build.sh: $nouveau missing" >&2
	exit 1
fi

opts=(NOUVEAU_PATH= NVSVM_INCLUDE="$top/include" KBUILD_EXTRA_SYMBOLS="$symvers")
((debug_info)) || opts+=(KCFLAGS=-g0)

# The key, one line per input, kept beside the result for reading.
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
sha() { sha256sum | cut -c1-64; }
keytext=$(
	echo "linux-source ${srcver:-unknown} $src"
	echo "patch $(sha <"$patch")"
	echo "nvsvm-interface $(awk '$2 ~ /^nvsvm_/ { print $1, $2, $4 }' "$symvers" | sort | sha)"
	echo "nvsvm-header $(sha <"$top/include/nvsvm_pascal.h")"
	echo "headers $("$top/tools/scripts/kernelrelease.sh" "$kdir")" \
		"$(cat "$kdir/Module.symvers" "$kdir/include/config/auto.conf" | sha)"
	echo "compiler $(gcc --version | head -n 1)"
	echo "options debug-info=$debug_info"
)
key=$(sha <<<"$keytext" | cut -c1-16)
result=$cache/nouveau-$key

mkdir -p "$cache"
exec {lock}>"$cache/nouveau.lock"
flock "$lock"

if ((!force)) && [[ -s $result/nouveau.ko ]]; then
	echo "build.sh: cached: $result (key $key)" >&2
	touch "$result"
	echo "$result/nouveau.ko"
	exit 0
fi

# Stage the patched sources, then sync them into the build tree by content.
work=$cache/nouveau-build
stage=$work/stage
rm -rf "$stage"
mkdir -p "$stage" "$work/nouveau"
cp -a "$nouveau/." "$stage/"
# The patch has a/drivers/gpu/drm/nouveau/ paths (-p1 on a kernel tree);
# -F0: any hunk that would need fuzz fails the build.
if ! patch -s -F0 -p5 -d "$stage" --no-backup-if-mismatch <"$patch" >&2; then
	echo "build.sh: $patch does not apply to $nouveau" >&2
	exit 1
fi
rsync -rlc --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' \
	--exclude '*.mod' --exclude '*.mod.c' --exclude 'modules.order' \
	--exclude 'Module.symvers' --exclude '.*.d' --exclude '*.a' \
	"$stage/" "$work/nouveau/"
rm -rf "$stage"

t0=$SECONDS
log=$work/build.log
echo "build.sh: building $work/nouveau (key $key, -j$(nproc))" >&2
if ! make -C "$kdir" M="$work/nouveau" "${opts[@]}" -j"$(nproc)" modules >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "build.sh: build failed (log: $log)" >&2
	exit 1
fi
ncc=$(grep -c -E '^  CC \[M\]' "$log" || true)
echo "build.sh: compiled $ncc files in $((SECONDS - t0))s" >&2

# Diagnostics in the files the patch adds or changes fail the build.
touched=$(sed -n 's|^+++ b/drivers/gpu/drm/nouveau/\([^	 ]*\).*|\1|p' "$patch")
diag='^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):|^(WARNING|ERROR): modpost:'
if grep -E "$diag" "$log" >"$work/warnings.log"; then
	sed 's/^/build.sh: /' "$work/warnings.log" >&2
	for f in $touched; do
		if grep -q "/$f:" "$work/warnings.log"; then
			echo "build.sh: warnings in $f, which the patch touches" >&2
			exit 1
		fi
	done
fi

# Publish atomically, then keep the four most recently used results.
tmp=$(mktemp -d "$cache/.nouveau-new.XXXXXX")
cp "$work/nouveau/nouveau.ko" "$tmp/"
echo "$keytext" >"$tmp/key.txt"
cp "$log" "$tmp/build.log"
chmod 755 "$tmp"
rm -rf "$result"
mv "$tmp" "$result"
# shellcheck disable=SC2012 # names are nouveau-<16 hex digits>
ls -dt "$cache"/nouveau-???????????????? | tail -n +5 | xargs -r rm -rf
echo "$result/nouveau.ko"
