#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the TEST-ONLY module tests/hmm/nvsvm_dmirror.ko (never part of the
# nvsvm package) against a lane's kernel build tree, with the dmirror ABI
# of that kernel's source: KSRC/lib/test_hmm_uapi.h is included from
# there, never copied. The module needs no symbols of nvsvm.ko: it uses
# /dev/nvsvmN as a user does.
#
# usage: build-kmod.sh KDIR KSRC OUTDIR [extra kbuild arguments, e.g. C=2]
#   e.g. build-kmod.sh $(tools/scripts/kdir.sh) $(tools/scripts/linux-source.sh) build/stock-hmm
# Exit status 1 when the build fails or prints any compiler (or, with
# C=1/C=2, sparse) warning.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kdir=$1
ksrc=$(cd "$2" && pwd)
out=$3
shift 3

if [[ ! -f $ksrc/lib/test_hmm_uapi.h ]]; then
	echo "build-kmod: no lib/test_hmm_uapi.h under $ksrc" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' \
	--exclude '*.mod*' --exclude '*.sh' "$top/tests/hmm/" "$out/"
status=0
make -C "$kdir" M="$out" W=1 NVSVM_TOP="$top" KSRC="$ksrc" "$@" modules \
	>"$out/build.log" 2>&1 || status=$?
diag='^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):|^(WARNING|ERROR): modpost:'
if ((status != 0)) || grep -E "$diag" "$out/build.log" >&2; then
	tail -n 40 "$out/build.log" >&2
	echo "build-kmod: build against $kdir failed (log: $out/build.log)" >&2
	exit 1
fi
[[ -f $out/nvsvm_dmirror.ko ]]
