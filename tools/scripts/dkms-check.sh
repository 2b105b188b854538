#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and install nvsvm with DKMS, as a user would, against the installed
# kernel headers, in a throwaway DKMS tree (--dkmstree, --sourcetree,
# --installtree) so that the machine's own DKMS state is left alone. Checks
# that both modules were installed and that modinfo reads them.
#
# usage: dkms-check.sh [--keep DIR] [--kernelsourcedir KDIR --modules DIR] [KVER]
#   KVER         default: the kernel of the newest headers
#   --kernelsourcedir KDIR, --modules DIR   a kernel that is not installed:
#                its headers and its /lib/modules/KVER (needs root: a
#                private mount namespace)
#   --keep DIR   copy what DKMS installed, as laid out under
#                /lib/modules/KVER (updates/dkms/nvsvm*.ko), to DIR/KVER:
#                make check boots the stock VM with that tree
#                (tools/scripts/dkms-guest.sh) to modprobe it by name
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
keep="" ksrc="" mods="" inside=""
while [[ ${1:-} == --* ]]; do
	case $1 in
	--keep) keep=$2 ;;
	--kernelsourcedir) ksrc=$2 ;;
	--modules) mods=$2 ;;
	--inside) inside=$2 ;;
	*) echo "usage: dkms-check.sh [--keep DIR] [--kernelsourcedir KDIR --modules DIR] [KVER]" >&2; exit 2 ;;
	esac
	shift 2
done
kver=${1:-}

# A kernel that is not installed (the 6.12 lane's, unpacked into the cache
# by make deps): DKMS and depmod want /lib/modules/KVER. Run again in a
# private mount namespace where /lib/modules holds only KVER: the unpacked
# tree under a writable overlay, so that depmod changes nothing in the cache.
if [[ -n $mods && -z $inside ]]; then
	ns=$(mktemp -d /tmp/nvsvm-dkms-ns.XXXXXX)
	trap 'rm -rf "$ns"' EXIT
	unshare -m --propagation private "$0" --inside "$ns" --keep "${keep:-}" \
		--kernelsourcedir "$ksrc" --modules "$mods" "$kver"
	exit
fi
if [[ -n $inside ]]; then
	mount -t tmpfs nvsvm-dkms /lib/modules
	mkdir -p "/lib/modules/$kver" "$inside/upper" "$inside/work"
	mount -t overlay nvsvm-dkms -o "lowerdir=$mods,upperdir=$inside/upper,workdir=$inside/work" \
		"/lib/modules/$kver"
fi
if [[ -z $kver ]]; then
	kdir=$("$top/tools/scripts/kdir.sh") || exit 1
	kver=$(basename "$(dirname "$kdir")")
fi
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

tree=$(mktemp -d /tmp/nvsvm-dkms.XXXXXX)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/dkms" "$tree/source/nvsvm-$ver" "$tree/install/$kver"
cp -r "$top/Kbuild" "$top/Makefile" "$top/dkms.conf" "$top/src" "$top/include" \
	"$top/uapi" "$tree/source/nvsvm-$ver/"

opts=(--dkmstree "$tree/dkms" --sourcetree "$tree/source" --installtree "$tree/install")
[[ -z $ksrc ]] || opts+=(--kernelsourcedir "$ksrc")
log=$tree/dkms.log
run() {
	if ! "$@" >>"$log" 2>&1; then
		cat "$log" >&2
		find "$tree/dkms" -name make.log -exec cat {} + >&2 2>/dev/null || true
		echo "dkms-check: '$*' failed" >&2
		exit 1
	fi
}
run dkms add -m nvsvm -v "$ver" "${opts[@]}"
run dkms build -m nvsvm -v "$ver" -k "$kver" "${opts[@]}"
run dkms install -m nvsvm -v "$ver" -k "$kver" "${opts[@]}"

for m in nvsvm nvsvm_vgpu; do
	ko=$(find "$tree/install" -name "$m.ko*" | head -n 1)
	if [[ -z $ko ]]; then
		cat "$log" >&2
		echo "dkms-check: $m.ko was not installed under $tree/install" >&2
		exit 1
	fi
	if ! modinfo "$ko" | grep -q "^vermagic: *$kver "; then
		modinfo "$ko" >&2 || true
		echo "dkms-check: modinfo does not show $ko built for $kver" >&2
		exit 1
	fi
	echo "dkms-check: installed ${ko#"$tree/install/"}"
done
echo "dkms-check: nvsvm/$ver built and installed for $kver"
if [[ -n $keep ]]; then
	rm -rf "${keep:?}/$kver"
	mkdir -p "$keep"
	cp -a "$tree/install/$kver" "$keep/"
	echo "dkms-check: kept the installed tree in $keep/$kver:"
	(cd "$keep/$kver" && find . -type f | sort | sed 's/^/dkms-check:   /')
fi
