#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pyopencl's tests (test/*.py of Debian's source package pyopencl, the
# version of the installed python3-pyopencl), unpacked into the cache:
# prints the directory of the unpacked source (its test/ is what
# tools/scripts/pyopencl-check.sh runs).
#
# From the Debian archive the machine's apt already uses, without changing
# the machine's apt configuration: a private apt in /var/cache/nvsvm/apt-src
# whose deb-src lines are the machine's own archive entries
# (tools/scripts/debian-archive.sh) with the machine's release suite.
# Once unpacked, a run uses no network and needs no root. Where the mirror
# serves no source packages (only binaries), PYOPENCL_SRC names a git
# repository of upstream pyopencl whose tag v<version> is taken instead.
#
# usage: pyopencl-source.sh
# NVSVM_CACHE overrides the cache directory (default /var/cache/nvsvm).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${NVSVM_CACHE:-/var/cache/nvsvm}
die() {
	echo "pyopencl-source.sh: $*" >&2
	exit 1
}

ver=$(dpkg-query -W -f='${source:Version}' python3-pyopencl 2>/dev/null) ||
	die "python3-pyopencl is not installed; run 'make deps' (or make pyopencl) as root"
dir=$cache/pyopencl-$ver
if [[ -e $dir/.extracted ]]; then
	echo "$dir/src"
	exit 0
fi
((EUID == 0)) || die "must run as root to fetch pyopencl $ver's source into $cache"

# shellcheck disable=SC1091
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ -n $codename ]] || die "no VERSION_CODENAME in /etc/os-release"
want=$("$here/debian-archive.sh" --src "$codename")
[[ -n $want ]] || die "no Debian archive for $codename in the machine's apt sources"

apt=$cache/apt-src
mkdir -p "$apt/sources.list.d" "$apt/preferences.d" "$apt/state/lists/partial" \
	"$apt/cache/archives/partial"
echo "$want" >"$apt/sources.list"
: >"$apt/preferences"
mapfile -t aptopts < <("$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh" --options "$apt")
log=$apt/apt.log
apt-get -q "${aptopts[@]}" update >"$log" 2>&1 || die "apt-get update failed (log: $log)"
rm -rf "$dir"
mkdir -p "$dir/dl"
# apt checks the files against the signed Release's hashes.
if (cd "$dir/dl" && apt-get -q "${aptopts[@]}" source --download-only "pyopencl=$ver") \
	>>"$log" 2>&1; then
	dpkg-source --no-check -x "$dir"/dl/pyopencl_*.dsc "$dir/src" >>"$log" 2>&1 ||
		die "dpkg-source -x failed (log: $log)"
elif [[ -n ${PYOPENCL_SRC:-} ]]; then
	# A mirror without source packages (binary only): upstream's tree of
	# the same version, tag v<upstream version>, from a git repository.
	tag=v${ver%-*}
	echo "pyopencl-source.sh: no source package on the mirror (log: $log); $tag from $PYOPENCL_SRC" >&2
	mkdir -p "$dir/src"
	git -C "$PYOPENCL_SRC" archive "$tag" | tar -x -C "$dir/src" ||
		die "no $tag in $PYOPENCL_SRC"
else
	die "apt-get source pyopencl=$ver failed (log: $log); PYOPENCL_SRC=DIR takes upstream's git repository instead"
fi
[[ -d $dir/src/test ]] || die "no test/ in pyopencl $ver's source"
touch "$dir/.extracted"
echo "$dir/src"
