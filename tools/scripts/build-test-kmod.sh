#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the TEST-ONLY module tests/kmod/nvsvm_pascal_test.ko (never part of
# the nvsvm package) against the kernel an nvsvm build was made for, with
# that build's Module.symvers (nvsvm.ko's and nvsvm_vgpu.ko's exports).
#
# usage: build-test-kmod.sh KDIR NVSVM_BUILD_DIR OUTDIR
#   e.g. build-test-kmod.sh $(tools/scripts/kdir.sh) build/stock build/stock-kmod
# Exit status 1 when the build fails or prints any compiler warning.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kdir=$1
nvsvm=$(cd "$2" && pwd)
out=$3

if [[ ! -f $nvsvm/Module.symvers ]]; then
	echo "build-test-kmod: no $nvsvm/Module.symvers; build nvsvm there first" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' \
	--exclude '*.mod*' "$top/tests/kmod/" "$out/"
status=0
make -C "$kdir" M="$out" W=1 NVSVM_TOP="$top" \
	KBUILD_EXTRA_SYMBOLS="$nvsvm/Module.symvers" modules >"$out/build.log" 2>&1 || status=$?
diag='^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):|^(WARNING|ERROR): modpost:'
if ((status != 0)) || grep -E "$diag" "$out/build.log" >&2; then
	tail -n 40 "$out/build.log" >&2
	echo "build-test-kmod: build against $kdir failed (log: $out/build.log)" >&2
	exit 1
fi
[[ -f $out/nvsvm_pascal_test.ko ]]
