#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the kernels of newer Debian releases that nvsvm is built and tested
# against, and unpack them into the cache, keyed by package version:
#
#   bookworm-backports  linux-image-6.12.*+deb12-amd64 (vmlinuz and modules),
#                       its linux-headers (+ -common, linux-kbuild): a KDIR
#                       for `make M=`, in debian-linux-<version>/
#                       and linux-source-6.12 (that lane's
#                       kselftest_harness.h), in linux-source-<version>/
#   trixie-backports    linux-source-7.3 (the 7.3 debug kernel's source,
#                       tools/scripts/build-debug-kernel.sh --source 7.3), in
#                       linux-source-<version>/linux-source-7.3
#
# From the Debian mirror the machine's apt already uses, without changing
# the machine's apt configuration: a private apt (sources list, lists,
# downloads) in /var/cache/nvsvm/apt whose sources have the URIs of the
# machine's Debian archive entries (/etc/apt/sources.list{,.d/*.list} and
# deb822 sources.list.d/*.sources: the ones carrying the machine's own
# release suite) with the suites above. The packages belong to other
# releases, so they are unpacked with dpkg-deb -x, never installed.
#
# Lists what it unpacked in /var/cache/nvsvm/debian-kernels.list, one
# "NAME PATH" a line (6.12-kdir, 6.12-vmlinuz, 6.12-modules, 6.12-source,
# 7.3-source),
# for tools/scripts/kdir.sh and linux-source.sh. Once that list exists and
# the machine's sources have not changed, a run uses no network and needs
# no root; --update looks for newer versions.
#
# usage: debian-kernels.sh [--for TARGET] [--update]
#        debian-kernels.sh --get NAME   print NAME's path from the list
#   --for TARGET  the make target to name in messages (default: deps)
# NVSVM_CACHE overrides the cache directory (default /var/cache/nvsvm),
# NVSVM_APT_ETC the apt configuration directory read (default /etc/apt).
set -euo pipefail

target=deps update=""
while (($#)); do
	case $1 in
	--for) target=${2:?usage: debian-kernels.sh [--for TARGET] [--update]}; shift 2 ;;
	--update) update=1; shift ;;
	--get)
		path=$(awk -v k="${2:?usage: debian-kernels.sh --get NAME}" '$1 == k { print $2 }' \
			"${NVSVM_CACHE:-/var/cache/nvsvm}/debian-kernels.list" 2>/dev/null || true)
		[[ -n $path ]] || { echo "debian-kernels.sh: no $2 in the list; run 'make deps' as root" >&2; exit 1; }
		echo "$path"
		exit 0
		;;
	*) echo "usage: debian-kernels.sh [--for TARGET] [--update]" >&2; exit 2 ;;
	esac
done

cache=${NVSVM_CACHE:-/var/cache/nvsvm}
apt=$cache/apt
list=$cache/debian-kernels.list
etc=${NVSVM_APT_ETC:-/etc/apt}
suites=(bookworm-backports trixie trixie-backports)

die() {
	echo "$target: $*" >&2
	exit 1
}

# The deb lines of the private apt: the machine's Debian archive with the
# suites above (tools/scripts/debian-archive.sh).
sources() {
	"$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh" "${suites[@]}"
}

want_sources=$(sources)
[[ -n $want_sources ]] ||
	die "no Debian archive for this release in $etc/sources.list{,.d}: cannot fetch the 6.12 and 7.3 kernels"

# Bump when what is fetched changes: a list of an older recipe is redone.
recipe=2

# Nothing to do: the same sources and recipe as last time, all unpacked.
cached() {
	local name path rel
	[[ -z $update && -r $list && -r $apt/sources.list ]] || return 1
	[[ $(cat "$apt/sources.list") == "$want_sources" ]] || return 1
	[[ $(head -n 1 "$list") == "recipe $recipe" ]] || return 1
	while read -r name path; do
		[[ $name != recipe ]] || continue
		rel=${path#"$cache"/}
		[[ -e $path && -e $cache/${rel%%/*}/.extracted ]] || return 1
	done <"$list"
	return 0
}
if cached; then
	echo "$target: Debian kernels unpacked already ($(awk '$1 != "recipe" { print $1 }' "$list" | tr '\n' ' ')in $cache)"
	exit 0
fi

if ((EUID != 0)); then
	die "must run as root to fetch the 6.12 and 7.3 kernels into $cache (try: sudo make $target)"
fi

# One fetch at a time: a second command waits, then finds the work done.
mkdir -p "$cache"
exec {lock}>"$cache/debian-kernels.lock"
if ! flock -n "$lock"; then
	echo "$target: waiting for another fetch of the Debian kernels"
	flock "$lock"
	if cached; then
		echo "$target: Debian kernels unpacked by the other fetch"
		exit 0
	fi
fi

mkdir -p "$apt/sources.list.d" "$apt/preferences.d" "$apt/state/lists/partial" \
	"$apt/cache/archives/partial" "$apt/debs"
echo "$want_sources" >"$apt/sources.list"
: >"$apt/preferences"
# apt downloads as _apt where it can.
if id _apt >/dev/null 2>&1; then
	chown _apt "$apt/debs" "$apt/state/lists/partial" "$apt/cache/archives/partial"
fi
mapfile -t aptopts < <("$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh" --options "$apt")
log=$apt/apt.log

# run WHAT COMMAND...: apt's output into $log; on failure one line, with
# apt's first failed fetch and its reason, or else its last error.
run() {
	local what=$1 why
	shift
	if ! "$@" >"$log" 2>&1; then
		why=$(awk '/^Err:/ { s = $0; getline; sub(/^ +/, ""); print s ": " $0; exit }' "$log")
		[[ -n $why ]] || why=$(grep -E '^E:' "$log" | tail -n 1)
		die "$what failed: ${why:-see the log} (log: $log)"
	fi
}

echo "$target: looking up the 6.12 and 7.3 kernels (suites ${suites[*]})"
run "apt-get update of $apt/sources.list" apt-get -q --error-on=any "${aptopts[@]}" update

# field PACKAGE/SUITE FIELD: one field of a package's newest version in SUITE.
field() {
	apt-cache "${aptopts[@]}" show --no-all-versions "$1" 2>/dev/null |
		sed -n "s/^$2: //p" | head -n 1
}

# 6.12: the ABI and version the headers metapackage points at.
dep=$(field linux-headers-amd64/bookworm-backports Depends)
if [[ ! $dep =~ ^linux-headers-([0-9.]+\+deb[0-9]+)-amd64\ \(=\ ([^\)]+)\) ]]; then
	die "no linux-headers-amd64 in bookworm-backports (got '${dep:-nothing}'; log: $log)"
fi
abi=${BASH_REMATCH[1]} kver=${BASH_REMATCH[2]}
kseries=$(echo "$abi" | cut -d. -f1-2)
kpkgs=("linux-image-$abi-amd64" "linux-headers-$abi-amd64" "linux-headers-$abi-common"
	"linux-kbuild-$abi")

sver=$(field linux-source-7.3/trixie-backports Version)
[[ -n $sver ]] || die "no linux-source-7.3 in trixie-backports (log: $log)"
k_sver=$(field "linux-source-$kseries/bookworm-backports" Version)
[[ -n $k_sver ]] || die "no linux-source-$kseries in bookworm-backports (log: $log)"

# download PACKAGE VERSION: the .deb into $apt/debs unless it is there.
download() {
	local f
	for f in "$apt/debs/${1}_${2//:/%3a}_"*.deb; do
		[[ -e $f ]] && return 0
	done
	(cd "$apt/debs" && run "download of $1 $2" apt-get -q "${aptopts[@]}" download "$1=$2")
}

kdir=$cache/debian-linux-$kver
if [[ ! -e $kdir/.extracted ]]; then
	echo "$target: fetching ${kpkgs[*]} $kver"
	for p in "${kpkgs[@]}"; do
		download "$p" "$kver"
	done
	rm -rf "$kdir"
	mkdir -p "$kdir"
	for p in "${kpkgs[@]}"; do
		dpkg-deb -x "$apt/debs/${p}_${kver}_"*.deb "$kdir" ||
			die "cannot unpack $p $kver into $kdir"
	done
	# The headers point at their -common half and at /lib/modules by
	# absolute path: point them inside the tree.
	echo "include $kdir/usr/src/linux-headers-$abi-common/Makefile" \
		>"$kdir/usr/src/linux-headers-$abi-amd64/Makefile"
	ln -sfn "../../../usr/src/linux-headers-$abi-amd64" "$kdir/lib/modules/$abi-amd64/build"
	ln -sfn "../../../usr/src/linux-headers-$abi-common" "$kdir/lib/modules/$abi-amd64/source"
	touch "$kdir/.extracted"
	for p in "${kpkgs[@]}"; do
		rm -f "$apt/debs/${p}_${kver}_"*.deb
	done
fi

# unpack_source SERIES VERSION: linux-source-SERIES unpacked into
# $cache/linux-source-VERSION/linux-source-SERIES.
unpack_source() {
	local sdir=$cache/linux-source-$2

	[[ ! -e $sdir/.extracted ]] || return 0
	echo "$target: fetching linux-source-$1 $2"
	download "linux-source-$1" "$2"
	rm -rf "$sdir"
	mkdir -p "$sdir"
	if ! dpkg-deb --fsys-tarfile "$apt/debs/linux-source-$1_${2//:/%3a}_"*.deb |
		tar -xO "./usr/src/linux-source-$1.tar.xz" | tar -C "$sdir" -xJ; then
		die "cannot unpack linux-source-$1 $2 into $sdir"
	fi
	touch "$sdir/.extracted"
	rm -f "$apt/debs/linux-source-$1_"*.deb
}
# The 7.3 debug kernel's source; 6.12's for that lane's
# kselftest_harness.h and hmm-tests.
unpack_source 7.3 "$sver"
unpack_source "$kseries" "$k_sver"

cat >"$list.tmp" <<EOF
recipe $recipe
$kseries-kdir $kdir/usr/src/linux-headers-$abi-amd64
$kseries-vmlinuz $kdir/boot/vmlinuz-$abi-amd64
$kseries-modules $kdir/lib/modules/$abi-amd64
$kseries-source $cache/linux-source-$k_sver/linux-source-$kseries
7.3-source $cache/linux-source-$sver/linux-source-7.3
EOF
mv "$list.tmp" "$list"
echo "$target: Debian kernels unpacked: $kseries $kver and its source, linux-source-7.3 $sver (in $cache)"
