#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layering check (make style): nvsvm.ko's files call only downward,
# floor by floor (docs/architecture.md, "Layers"). Each core file declares
# its interface in its own header, include/nvsvm_<file>.h, so a file that
# includes another file's header may call it. This fails when a file
# includes the header of a file on its own floor or a higher one, when a
# file's header includes one of its own floor or higher, or when a shared
# header (below) includes a file's header other than the bottom floor's.
#
#   layers.sh              check src/ and include/
#   layers.sh --self-test  also show that the check fails on a tree with
#                          one upward include (a copy in a temporary
#                          directory), so that it cannot pass by mistake
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Floors, top first; files on one floor do not call each other.
FLOORS=(
	"main"
	"file pascal"
	"chan svmm buf"
	"fault"
	"service"
	"atomic recency"
	"mirror pagein"
	"snapshot area dmem"
	"debugfs"
	"gp100 prefetch thrash test"
	"vmm vmm_selftest"
)
# Headers every file may include: the shared objects, and the interfaces
# of nvsvm.ko to its providers and to the test module (not a file's own
# API).
SHARED="nvsvm_core.h nvsvm_compat.h nvsvm_gpu.h nvsvm_test.h trace.h"

# Headers named after no file, and the file whose floor they are on: the
# fault batch is service.c's, which fault.c hands it.
owner_of() {
	case $1 in
	batch) echo service ;;
	*) echo "$1" ;;
	esac
}

floor_of() {
	local i f
	set -- "$(owner_of "$1")"
	for i in "${!FLOORS[@]}"; do
		for f in ${FLOORS[$i]}; do
			[[ $f != "$1" ]] || { echo "$i"; return; }
		done
	done
	echo -1
}

# check DIR: print each upward include in DIR's tree, fail if any.
check() {
	local dir=$1 bad=0 c name fl h hname hf hfl
	for c in "$dir"/src/*.c; do
		name=$(basename "$c" .c)
		fl=$(floor_of "$name")
		if ((fl < 0)); then
			echo "layers: $c is on no floor (tools/scripts/layers.sh FLOORS)"
			bad=1
			continue
		fi
		while read -r h; do
			hname=${h#nvsvm_}
			hname=${hname%.h}
			[[ " $SHARED " != *" $h "* ]] || continue
			[[ $(owner_of "$hname") != "$name" ]] || continue
			hf=$(floor_of "$hname")
			((hf >= 0)) || continue	# not a core file's header
			if ((hf <= fl)); then
				echo "layers: src/$name.c (floor $fl) includes $h of src/$(owner_of "$hname").c (floor $hf)"
				bad=1
			fi
		done < <(sed -n 's/^#include "\([^"]*\)"$/\1/p' "$c")
	done
	# A file's header may include only headers of the floors below it.
	for h in "$dir"/include/nvsvm_*.h; do
		name=$(basename "$h" .h)
		name=${name#nvsvm_}
		fl=$(floor_of "$name")
		((fl >= 0)) || continue
		while read -r inc; do
			[[ " $SHARED " != *" $inc "* ]] || continue
			hname=${inc#nvsvm_}
			hname=${hname%.h}
			hf=$(floor_of "$hname")
			if ((hf >= 0 && hf <= fl)); then
				echo "layers: include/nvsvm_$name.h (floor $fl) includes $inc of src/$hname.c (floor $hf)"
				bad=1
			fi
		done < <(sed -n 's/^#include "\([^"]*\)"$/\1/p' "$h")
	done
	# The shared headers may include only the bottom floor's headers.
	local last=$((${#FLOORS[@]} - 1))
	for h in $SHARED; do
		[[ -f $dir/include/$h ]] || continue
		while read -r inc; do
			hname=${inc#nvsvm_}
			hname=${hname%.h}
			hf=$(floor_of "$hname")
			if ((hf >= 0 && hf < last)); then
				echo "layers: include/$h (shared) includes $inc of src/$hname.c (floor $hf)"
				bad=1
			fi
		done < <(sed -n 's/^#include "\([^"]*\)"$/\1/p' "$dir/include/$h")
	done
	return $bad
}

if [[ ${1:-} == --self-test ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cp -r "$top/src" "$top/include" "$tmp/"
	# An upward include: the page-table walker reaching for the mirror.
	sed -i '0,/^#include "nvsvm_vmm.h"$/s//#include "nvsvm_vmm.h"\n#include "nvsvm_mirror.h"/' \
		"$tmp/src/vmm.c"
	if check "$tmp" >"$tmp/out"; then
		echo "layers: self-test: an upward include (vmm.c -> nvsvm_mirror.h) was not found" >&2
		exit 1
	fi
	grep -q 'src/vmm.c .* includes nvsvm_mirror.h' "$tmp/out" || {
		cat "$tmp/out" >&2
		echo "layers: self-test: the upward include was not the one reported" >&2
		exit 1
	}
fi
if ! check "$top"; then
	echo "layers: a file includes a header of its own floor or a higher one (docs/architecture.md, Layers)" >&2
	exit 1
fi
echo "layers: ${#FLOORS[@]} floors, every include of src/*.c goes downward"
