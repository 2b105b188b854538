#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel (tinyconfig + tools/kconfig/debug.config) from
# Debian's linux-source-6.1, in a cache directory outside the source tree,
# and reuse a finished build. The cache key covers the fragment, the source
# version and the recipe number below. Prints the build directory; it holds
# arch/x86/boot/bzImage, the module build tree (for M=) and, in modinst/,
# the installed in-tree modules.
#
# usage: build-debug-kernel.sh [FRAGMENT NAME]
#   Another fragment over the same tinyconfig base, cached as
#   kernel-NAME-<key> (tools/scripts/build-bench-kernel.sh passes
#   tools/kconfig/bench.config and "bench"). Without arguments: the debug
#   kernel, kernel-debug-<key>.
#
# NVSVM_CACHE overrides the cache directory (default /var/cache/nvsvm).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
frag=${1:-$top/tools/kconfig/debug.config}
name=${2:-debug}
cache=${NVSVM_CACHE:-/var/cache/nvsvm}
jobs=$(nproc)

# Bump when the way the kernel is configured or built below changes.
recipe=1

src=$("$here/linux-source.sh")
key=$( { cat "$frag"; echo "recipe $recipe"; echo "$src"; } | sha256sum | cut -c1-12)
out=$cache/kernel-$name-$key

log() { echo "build-$name-kernel: $*" >&2; }

if [[ -e $out/.built ]]; then
	log "reusing $out"
	echo "$out"
	exit 0
fi

# Check that every option of the fragment has the requested value in the
# final .config: Kconfig silently drops options with unmet dependencies.
verify_config() {
	local cfg=$1 line sym want bad=0

	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			sym=${BASH_REMATCH[1]}
			want="$sym=${BASH_REMATCH[2]}"
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			sym=${BASH_REMATCH[1]}
			# Unset may be written either way, or be absent.
			if grep -q "^$sym=" "$cfg"; then
				log "MISSING: wanted '$line', got '$(grep "^$sym=" "$cfg")'"
				bad=1
			fi
			continue
		else
			continue
		fi
		if ! grep -qxF "$want" "$cfg"; then
			log "MISSING: wanted '$want', got '$(grep -E "^(# )?$sym[= ]" "$cfg" || echo absent)'"
			bad=1
		fi
	done <"$frag"
	return $bad
}

log "building in $out (log: $out/build.log)"
rm -rf "$out"
mkdir -p "$out"
start=$SECONDS
{
	make -C "$src" O="$out" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
	make -C "$src" O="$out" olddefconfig
} >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log" >&2; log "configuration failed"; exit 1; }

if ! verify_config "$out/.config"; then
	log "the fragment's options did not all survive; see $out/.config"
	exit 1
fi

if ! make -C "$src" O="$out" -j"$jobs" bzImage modules >>"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	log "kernel build failed"
	exit 1
fi
if ! make -C "$src" O="$out" INSTALL_MOD_PATH="$out/modinst" modules_install \
	>>"$out/build.log" 2>&1; then
	tail -n 20 "$out/build.log" >&2
	log "modules_install failed"
	exit 1
fi
touch "$out/.built"
log "built $("$here/kernelrelease.sh" "$out") in $((SECONDS - start)) s"
echo "$out"
