#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract Debian's linux-source-6.1 tarball once into a cache outside the
# source tree, keyed by the package version, and print the tree's path.
#
#   tools/scripts/linux-source.sh        -> /var/cache/nvsvm/linux-source-<ver>/linux-source-6.1
#
# NVSVM_CACHE overrides the cache directory (default /var/cache/nvsvm).
set -euo pipefail

cache=${NVSVM_CACHE:-/var/cache/nvsvm}
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
	echo "linux-source.sh: extracting $tarball into $dir" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -C "$dir" -xJf "$tarball"
	touch "$dir/.extracted"
fi

echo "$tree"
