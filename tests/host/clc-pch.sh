#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# clc-pch.sh CLC OUTDIR: the compile server's precompiled opencl-c.h
# (tools/cl/compile.c, pch_get()). A server is started with a cache
# directory in OUTDIR; a client that has no clang (NVSVM_CL_CLANG names
# nothing) sends it jobs over its socket. Each job's source is new, so the
# server's cache of results never answers: every one is compiled. Checked:
#   - for each set of options (the default, -cl-fast-relaxed-math, whose
#     language options clang checks, and a -D the kernel uses), two
#     compiles: the first leaves a mark only, the second builds the
#     precompiled header and uses it; each binary is the same, byte for
#     byte, as the same compile here without a server;
#   - one precompiled header per set of options, none for OpenCL C 3.0
#     (clang's table declares its built-ins);
#   - a build error's log is the same with the header as without;
#   - a job that brings its own opencl-c.h neither builds nor uses one;
#   - a precompiled header that clang refuses (here: cut short): the
#     compile with its options still gives the same binary, and the
#     header is removed and not built again.
# Prints one line per check; exit status 0 when all passed.
set -euo pipefail

clc=${1:?usage: clc-pch.sh CLC OUTDIR}
out=${2:?usage: clc-pch.sh CLC OUTDIR}
rm -rf "$out"
mkdir -p "$out/cache"
sock=$out/clc.sock
"$clc" --serve "$sock" --cache "$out/cache" >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	[[ -S $sock ]] && break
	sleep 0.1
done

failed=0
check() {	# check WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		failed=1
	fi
}

n=0
# src: a new kernel each time, reading X when -DX is given.
src() {
	n=$((n + 1))
	cat >"$out/k$n.cl" <<EOF
#ifndef X
#define X 1
#endif
__kernel void add$n(__global const float *a, __global float *c)
{
	size_t i = get_global_id(0);
	c[i] = sqrt(a[i]) + (float)(X + $n) + (float)max((int)i, $n);
}
EOF
}
# both OPTIONS: compile k$n.cl on the server and here; same bytes?
# shellcheck disable=SC2317 # called through check
both() {
	local o=$1
	NVSVM_CL_CLANG=/nonexistent NVSVM_CL_REMOTE=$sock \
		"$clc" -O "$o" -o "$out/r$n.bin" "$out/k$n.cl" &&
		"$clc" -O "$o" -o "$out/l$n.bin" "$out/k$n.cl" &&
		cmp -s "$out/r$n.bin" "$out/l$n.bin"
}
pchs() { find "$out/cache" -name 'pch-*' ! -name '*.seen' ! -name '*.bad' | wc -l; }

sets=("" "-cl-fast-relaxed-math" "-D X=7")
k=0
for o in "${sets[@]}"; do
	k=$((k + 1))
	src
	check "'$o' first: the server's binary is the one built here" both "$o"
	check "'$o' first: no precompiled header yet ($(pchs) of $((k - 1)))" \
		test "$(pchs)" = $((k - 1))
	src
	check "'$o' second, its header built and used: the same binary" both "$o"
	check "'$o' second: its precompiled header there ($(pchs) of $k)" \
		test "$(pchs)" = $k
done
for _ in 1 2; do
	src
	NVSVM_CL_CLANG=/nonexistent NVSVM_CL_REMOTE=$sock \
		"$clc" -O -cl-std=CL3.0 -o "$out/r$n.bin" "$out/k$n.cl"
done
check "OpenCL C 3.0: no precompiled header ($(pchs) of ${#sets[@]})" \
	test "$(pchs)" = ${#sets[@]}

printf '__kernel void f(__global int *p) { p[0] = nosuch(1) + max(1.0f, 2); }\n' \
	>"$out/bad.cl"
NVSVM_CL_CLANG=/nonexistent NVSVM_CL_REMOTE=$sock \
	"$clc" -o "$out/bad-r.bin" "$out/bad.cl" >"$out/bad-r.log" 2>&1 || true
"$clc" -o "$out/bad-l.bin" "$out/bad.cl" >"$out/bad-l.log" 2>&1 || true
check "a build error: the log with the header is the one without" \
	cmp -s "$out/bad-r.log" "$out/bad-l.log"
check "a build error: the log names the error" \
	grep -q "implicit declaration of function 'nosuch'" "$out/bad-r.log"

# A job that brings a header named opencl-c.h: its include directory
# comes first, so that file is the one a compile includes; it must not
# be built into a header other jobs would use, nor use one.
mkdir -p "$out/inc"
printf '#define MINE 5\n' >"$out/inc/opencl-c.h"
marks() { find "$out/cache" -name 'pch-*' | wc -l; }
before=$(marks)
for _ in 1 2; do
	n=$((n + 1))
	printf '#include "opencl-c.h"\n__kernel void own%d(__global int *p) { p[0] = MINE + %d; }\n' \
		$n $n >"$out/k$n.cl"
	check "its own opencl-c.h: the binary built here" both "-I $out/inc"
done
check "its own opencl-c.h: no header built or marked ($before files, now $(marks))" \
	test "$(marks)" = "$before"

# Every header cut short: clang refuses them. A compile must still give
# the binary, and the refused header must go, never to be built again.
for h in "$out"/cache/pch-*; do
	case $h in *.seen | *.bad) continue ;; esac
	truncate -s 1000 "$h"
done
src
check "the default options' header cut short: the binary built here" both ""
check "the header refused: gone ($(pchs) of $((${#sets[@]} - 1)))" \
	test "$(pchs)" = $((${#sets[@]} - 1))
src
check "the header refused: the next compile has the same binary" both ""
check "the header refused: not built again ($(pchs) of $((${#sets[@]} - 1)))" \
	test "$(pchs)" = $((${#sets[@]} - 1))

exit $failed
