#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build nvsvm.ko and nvsvm_vgpu.ko against a kernel tree in a private copy
# of the sources, so that builds for several kernels (and sparse runs) do
# not clobber each other or the in-tree build.
#
# usage: build-modules.sh KDIR OUTDIR [extra kbuild arguments, e.g. C=2]
#
# Copies Kbuild, src/, include/, uapi/ to OUTDIR and runs
# `make -jNPROC -C KDIR M=OUTDIR W=1 CONFIG_NVSVM_TEST=y modules`, output in
# OUTDIR/build.log: a test build, with the TEST-ONLY hooks of src/test.c
# that the VM lanes' tests use (Kbuild); CONFIG_NVSVM_TEST= among the extra
# arguments builds the product instead, as make and DKMS do.
# Exit status 1 when the build fails or prints any compiler warning, or,
# with C=1/C=2, any sparse warning or error.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kdir=$1
out=$2
shift 2

mkdir -p "$out"
out=$(cd "$out" && pwd)
rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' \
	--exclude '*.mod*' "$top/src" "$top/include" "$top/uapi" "$out/"
cp "$top/Kbuild" "$out/Kbuild"

status=0
make -j"$(nproc)" -C "$kdir" M="$out" W=1 CONFIG_NVSVM_TEST=y "$@" modules >"$out/build.log" 2>&1 || status=$?

# Compiler and sparse diagnostics look like "file:line:col: warning: ...",
# modpost's like "WARNING: modpost: ...".
diag='^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):|^(WARNING|ERROR): modpost:'
grep -E "$diag" "$out/build.log" >"$out/warnings.log" || true
nwarn=$(wc -l <"$out/warnings.log")
if ((status != 0)); then
	tail -n 40 "$out/build.log" >&2
	echo "build-modules: build against $kdir failed (log: $out/build.log)" >&2
	exit 1
fi
if ((nwarn != 0)); then
	cat "$out/warnings.log" >&2
	echo "build-modules: $nwarn warning lines building against $kdir ($*)" >&2
	exit 1
fi
for m in nvsvm nvsvm_vgpu; do
	if [[ ! -f $out/$m.ko ]]; then
		echo "build-modules: $out/$m.ko was not built" >&2
		exit 1
	fi
done
