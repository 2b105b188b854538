#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel (tinyconfig + tools/kconfig/debug.config) from
# Debian's linux-source-6.1, or another linux-source-SERIES, in a cache
# directory outside the source tree, and reuse a finished build. The cache
# key covers the fragments, the source version and the recipe number below.
# Prints the build directory; it holds arch/x86/boot/bzImage, the module
# build tree (for M=) and, in modinst/, the installed in-tree modules. A
# lock per cache entry makes a second command wait for the first's build.
#
# usage: build-debug-kernel.sh [--source SERIES] [--cached] [FRAGMENT NAME]
#   FRAGMENT NAME  another fragment over the same tinyconfig base, cached as
#                  kernel-NAME-<key> (tools/scripts/build-bench-kernel.sh
#                  passes tools/kconfig/bench.config and "bench"). Without
#                  them: the debug kernel, kernel-debug-<key>.
#   --source SERIES  build from Debian's linux-source-SERIES as `make deps`
#                  fetched it (tools/scripts/linux-source.sh SERIES), cached
#                  as kernel-SERIES-NAME-<key>; tools/kconfig/NAME-SERIES.config,
#                  when it exists, is merged after FRAGMENT (what differs).
#   --cached       print the build directory only if it is built already,
#                  else exit 1 with one line on stderr; never build.
#
# NVSVM_CACHE overrides the cache directory (default /var/cache/nvsvm).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
series="" cached=""
while (($#)); do
	case $1 in
	--source) series=${2:?usage: build-debug-kernel.sh [--source SERIES] [--cached] [FRAGMENT NAME]}; shift 2 ;;
	--cached) cached=1; shift ;;
	*) break ;;
	esac
done
frags=("${1:-$top/tools/kconfig/debug.config}")
name=${2:-debug}
cache=${NVSVM_CACHE:-/var/cache/nvsvm}
entry=kernel-$name
if [[ -n $series ]]; then
	entry=kernel-$series-$name
	if [[ -e $top/tools/kconfig/$name-$series.config ]]; then
		frags+=("$top/tools/kconfig/$name-$series.config")
	fi
fi
jobs=$(nproc)

# Bump when the way the kernel is configured or built below changes.
recipe=1

log() { echo "build-${series:+$series-}$name-kernel: $*" >&2; }

src=$("$here/linux-source.sh" ${series:+"$series"})
key=$( { cat "${frags[@]}"; echo "recipe $recipe"; echo "$src"; } | sha256sum | cut -c1-12)
out=$cache/$entry-$key

if [[ -n $cached && ! -e $out/.built ]]; then
	log "$out is not built; run tools/scripts/build-debug-kernel.sh${series:+ --source $series}"
	exit 1
fi
if [[ ! -e $out/.built ]]; then
	# One build per cache entry: a second command waits, then reuses it.
	mkdir -p "$cache"
	exec 9>"$out.lock"
	if ! flock -n 9; then
		log "waiting for another build of $out"
		flock 9
	fi
fi
if [[ -e $out/.built ]]; then
	log "reusing $out"
	echo "$out"
	exit 0
fi

# Check that every option of the fragments has the requested value (its
# last one, as merge_config.sh applies them) in the final .config: Kconfig
# silently drops options with unmet dependencies.
verify_config() {
	local cfg=$1 line sym bad=0
	local -A want=()
	local -a order=()

	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			sym=${BASH_REMATCH[1]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			sym=${BASH_REMATCH[1]}
		else
			continue
		fi
		[[ -v want[$sym] ]] || order+=("$sym")
		want[$sym]=$line
	done < <(cat "${frags[@]}")

	for sym in "${order[@]}"; do
		line=${want[$sym]}
		if [[ $line == "# "* ]]; then
			# Unset may be written either way, or be absent.
			if grep -q "^$sym=" "$cfg"; then
				log "MISSING: wanted '$line', got '$(grep "^$sym=" "$cfg")'"
				bad=1
			fi
		elif ! grep -qxF "$line" "$cfg"; then
			log "MISSING: wanted '$line', got '$(grep -E "^(# )?${sym}[= ]" "$cfg" || echo absent)'"
			bad=1
		fi
	done
	return $bad
}

log "building in $out (log: $out/build.log)"
rm -rf "$out"
mkdir -p "$out"
start=$SECONDS
{
	make -C "$src" O="$out" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}"
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
