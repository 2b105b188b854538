#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of an extracted Debian linux-source tree, in a cache
# outside the source tree, keyed by the package version.
#
#   tools/scripts/linux-source.sh        -> /var/cache/nvsvm/linux-source-<ver>/linux-source-6.1
#   tools/scripts/linux-source.sh 7.3    -> /var/cache/nvsvm/linux-source-<ver>/linux-source-7.3
#
# 6.1 is the installed linux-source-6.1 package, extracted here once.
# Other series are not installed (they belong to other Debian releases):
# `make deps` (tools/scripts/debian-kernels.sh) downloads and extracts them
# and lists them in /var/cache/nvsvm/debian-kernels.list.
#
# NVSVM_CACHE overrides the cache directory (default /var/cache/nvsvm).
set -euo pipefail

cache=${NVSVM_CACHE:-/var/cache/nvsvm}
series=${1:-6.1}

if [[ $series != 6.1 ]]; then
	tree=$(awk -v k="$series-source" '$1 == k { print $2 }' \
		"$cache/debian-kernels.list" 2>/dev/null || true)
	if [[ -z $tree || ! -e $tree/../.extracted ]]; then
		echo "linux-source.sh: no linux-source-$series in $cache; run 'make deps' as root" >&2
		exit 1
	fi
	echo "$tree"
	exit 0
fi

tarball=/usr/src/linux-source-6.1.tar.xz

if [[ ! -r $tarball ]]; then
	echo "linux-source.sh: $tarball missing; run 'make deps' as root" >&2
	exit 1
fi

# The package version names the cache; fall back to the tarball's size and
# mtime when dpkg does not know the file (a hand-copied tarball).
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
if [[ -z $ver ]]; then
	ver=$(stat -c '%s-%Y' "$tarball")
fi

dir=$cache/linux-source-$ver
tree=$dir/linux-source-6.1

if [[ ! -e $dir/.extracted ]]; then
	# One extraction at a time; a second command waits and reuses it.
	mkdir -p "$cache"
	exec {lock}>"$dir.lock"
	flock "$lock"
fi
if [[ ! -e $dir/.extracted ]]; then
	echo "linux-source.sh: extracting $tarball into $dir" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -C "$dir" -xJf "$tarball"
	touch "$dir/.extracted"
fi

echo "$tree"
