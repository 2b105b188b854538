#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make cts`: the Khronos OpenCL CTS binaries in full on the OpenCL ICD,
# outside make check (whose tests/guest-cts.sh runs subsets for time).
# Builds the modules against the stock headers, the ICD (make -C tools
# cl) and the CTS (tools/scripts/build-cts.sh, cached), and boots the
# stock VM (run.sh --opencl --cts) with a script that runs only
# tests/guest-cts.sh, told by /etc/nvsvm-cts (tools/vm/mkinitramfs.sh
# copies it from the CTS directory) to run every subtest of each binary,
# each in a process of its own, and to print the seconds each took.
#
# usage: cts-check.sh [--lane stock|7.3] [--params PARAMS]
#                     [--subtest-timeout S] [--total S] [--num-elements N]
#                     [--args BINARY=ARGS] [BINARY[/SUBTEST]...]
#   BINARY             test_basic, ... (default: all that build-cts.sh
#                      builds, in the order below); BINARY/SUBTEST runs
#                      only the subtests so named of BINARY
#   --lane 7.3         the 7.3 debug kernel (build-debug-kernel.sh
#                      --source 7.3) in place of the stock 6.1 one
#   --params           nvsvm_vgpu's parameters (default, as make check:
#                      sysmem_atomics=coherent; "" for none: on 7.3 the
#                      GPU's atomics on system memory are then the
#                      driver's device-exclusive pages)
#   --subtest-timeout  seconds one subtest may run (default 900)
#   --total            seconds all may run (default 14400)
#   --num-elements     the harness's num_elements (its last argument): a
#                      smaller problem than the CTS's own (16384), to tell
#                      a slow subtest from a failing one; not conformance.
#                      --num-elements BINARY=N: for that binary only
#   --args BINARY=ARGS the binary's own options after the subtest's name,
#                      e.g. test_c11_atomics="-maxDeviceThreads 64
#                      -internalIterations 100" (the harness then warns
#                      that the run is not a conformance run)
# The VM's log and results: build/cts/vm/ (console.log, results.log).
# Exit status 0 only when nothing failed (known failures are skips).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"

lane=stock params=default sub_s=900 total_s=14400 nelem=""
bins=() nelem_bin=() args_bin=()
declare -A subs=()
while (($#)); do
	case $1 in
	--lane) lane=$2; shift 2 ;;
	--params) params=$2; shift 2 ;;
	--subtest-timeout) sub_s=$2; shift 2 ;;
	--total) total_s=$2; shift 2 ;;
	--num-elements)
		if [[ $2 == test_*=* ]]; then
			nelem_bin+=("$2")
		else
			nelem=$2
		fi
		shift 2 ;;
	--args) args_bin+=("$2"); shift 2 ;;
	test_*/*)
		b=${1%%/*}
		[[ " ${bins[*]} " == *" $b "* ]] || bins+=("$b")
		subs[$b]="${subs[$b]:-}${subs[$b]:+ }${1#*/}"
		shift ;;
	test_*) bins+=("$1"); shift ;;
	*) echo "cts-check.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
((${#bins[@]})) || bins=(test_basic test_buffers test_api test_c11_atomics
	test_events test_computeinfo test_mem_host_flags test_svm test_printf)

out=$top/build/cts
mkdir -p "$out"
log() { echo "cts: $*"; }

set +e
cts=$("$here/build-cts.sh" 2>"$out/build-cts.log" | tail -n 1)
status=$?
set -e
if ((status == 3)); then
	log "SKIP: $(tail -n 1 "$out/build-cts.log")"
	exit 0
elif ((status)) || [[ ! -d $cts ]]; then
	tail -n 20 "$out/build-cts.log"
	log "build-cts.sh failed (log: $out/build-cts.log)"
	exit 1
fi

case $lane in
stock)
	kdir=$("$here/kdir.sh")
	kver=$("$here/kernelrelease.sh" "$kdir")
	kernel=/boot/vmlinuz-$kver
	mdir=build/stock
	lane_args=() ;;
7.3)
	kdir=$("$here/build-debug-kernel.sh" --source 7.3 2>"$out/kernel.log" | tail -n 1)
	kver=$("$here/kernelrelease.sh" "$kdir")
	kernel=$kdir/arch/x86/boot/bzImage
	mdir=build/debug-7.3
	lane_args=(--kmods "$kdir/modinst/lib/modules/$kver" --debug) ;;
*) echo "cts-check.sh: --lane stock or 7.3, not $lane" >&2; exit 2 ;;
esac
log "modules against $kdir"
"$here/build-modules.sh" "$kdir" "$mdir" >"$out/modules.log" 2>&1 ||
	{ tail -n 20 "$out/modules.log"; exit 1; }
log "the ICD (make -C tools cl)"
make -C tools cl >"$out/cl.log" 2>&1 || { tail -n 20 "$out/cl.log"; exit 1; }

# The binaries asked for, and what guest-cts.sh is to do with them.
rm -rf "${out:?}/bin"
mkdir -p "$out/bin"
for b in "${bins[@]}"; do
	if [[ ! -x $cts/$b ]]; then
		echo "cts-check.sh: $b is not among $cts's binaries" >&2
		exit 2
	fi
	cp -l "$cts/$b" "$out/bin/" 2>/dev/null || cp "$cts/$b" "$out/bin/"
done
cat >"$out/bin/nvsvm-cts" <<EOF
CTS_BINARIES="${bins[*]}"
CTS_ALL=1
CTS_TIMEOUT=$sub_s
CTS_TOTAL=$total_s
CTS_PARAMS="$params"
CTS_NUM_ELEMENTS=$nelem
EOF
for b in "${nelem_bin[@]}"; do
	echo "CTS_NUM_ELEMENTS_${b%%=*}=${b#*=}" >>"$out/bin/nvsvm-cts"
done
for b in "${args_bin[@]}"; do
	echo "CTS_ARGS_${b%%=*}=\"${b#*=}\"" >>"$out/bin/nvsvm-cts"
done
for b in "${!subs[@]}"; do
	echo "CTS_SUBTESTS_$b=\"${subs[$b]}\"" >>"$out/bin/nvsvm-cts"
done
# tests/run.sh with guest-cts.sh alone, no self-test, its time bound.
sed -e 's|^for t in /tests/guest-\*\.sh; do|for t in /tests/guest-cts.sh; do|' \
	-e "s|^timeout_s=.*|timeout_s=$((total_s + 60))|" \
	-e 's/^selftest$/: no self-test/' tests/run.sh >"$out/run.sh"

log "${bins[*]} on $kver, every subtest, ${sub_s}s each, ${total_s}s in all"
SECONDS=0
set +e
tools/vm/run.sh --name "cts-$lane" --workdir "$out/vm" --kernel "$kernel" \
	--kver "$kver" --module "$mdir/nvsvm.ko" --module "$mdir/nvsvm_vgpu.ko" \
	"${lane_args[@]}" --opencl "$top/build/tools/cl" --cts "$out/bin" \
	--script "$out/run.sh" --timeout "$((total_s + 300))"
status=$?
set -e
grep -h '^# \[guest-cts\] # \(time\|test_\)' "$out/vm/console.log" \
	"$out/vm/output.log" 2>/dev/null | sed 's/^# \[guest-cts\] //' || true
log "done in ${SECONDS}s, exit status $status (build/cts/vm/)"
exit "$status"
