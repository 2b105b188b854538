#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every check of the project, in order, one line per step and
# per test as it goes, and one last line "N passed, N failed, N skipped".
#
#   1. deps           Debian packages (tools/scripts/deps.sh)
#   2. build-stock    nvsvm.ko, nvsvm_vgpu.ko with W=1 against KDIR, no warnings
#   3. sparse         the same with C=2, no sparse warnings
#   4. checkpatch     checkpatch.pl --strict (tools/scripts/style.sh)
#   5. dkms           DKMS build + install in a throwaway tree
#   6. tests-build    tests/*.c into build/tests/
#   7. stock VM       the tests in QEMU on the stock kernel
#   8. debug-kernel   build or reuse the cached debug kernel, our modules
#                     against it, and the tests in QEMU on it
#
# usage: check.sh [--only stock|debug]    (--only: that VM run and its builds)
# Environment: KDIR (default as in the Makefile), NVSVM_VM_TIMEOUT_STOCK,
# NVSVM_VM_TIMEOUT_DEBUG (seconds, default 900 and 1500).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
scripts=$top/tools/scripts

only=
if [[ ${1:-} == --only ]]; then
	only=$2
fi

out=$top/build/check
mkdir -p "$out"
passed=0 failed=0 skipped=0
start_all=$SECONDS

result() {
	case $1 in
	"not ok "*) failed=$((failed + 1)) ;;
	ok*"# SKIP"*) skipped=$((skipped + 1)) ;;
	*) passed=$((passed + 1)) ;;
	esac
	echo "$1"
}

# step NAME COMMAND...: run a host-side step, its output in build/check/NAME.log.
step() {
	local name=$1 t0=$SECONDS status=0
	shift
	echo "# $name: $*"
	"$@" >"$out/$name.log" 2>&1 || status=$?
	if ((status == 0)); then
		result "ok host/$name ($((SECONDS - t0))s)"
	else
		tail -n 40 "$out/$name.log" | sed 's/^/#   /'
		result "not ok host/$name ($((SECONDS - t0))s, log: build/check/$name.log)"
	fi
	return $status
}

# vm NAME ...: one VM run; its results count as ours.
vm() {
	local name=$1 status=0 p f s
	shift
	rm -f "$out/$name.counts"
	"$top/tools/vm/run.sh" --name "$name" --workdir "$out/vm-$name" \
		--counts "$out/$name.counts" "$@" || status=$?
	if [[ -s $out/$name.counts ]]; then
		read -r p f s <"$out/$name.counts"
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	else
		result "not ok $name/vm # the VM runner stopped early (status $status)"
	fi
}

not_run() {
	result "not ok $1 # not run: $2"
}

if [[ -z ${KDIR:-} ]]; then
	KDIR=/lib/modules/$(uname -r)/build
	[[ -d $KDIR ]] || KDIR=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
fi

step deps "$scripts/deps.sh" || true
kver=$("$scripts/kernelrelease.sh" "$KDIR" 2>/dev/null || true)
echo "# stock kernel: ${kver:-none} (KDIR=$KDIR)"

stock_ok=0
if [[ -z $only || $only == stock ]]; then
	step build-stock "$scripts/build-modules.sh" "$KDIR" build/stock && stock_ok=1
fi
if [[ -z $only ]]; then
	step sparse "$scripts/build-modules.sh" "$KDIR" build/sparse C=2 || true
	step checkpatch "$scripts/style.sh" || true
	step dkms "$scripts/dkms-check.sh" "$kver" || true
fi
step tests-build make -k -C tests OUT="$top/build/tests" || true

if [[ -z $only || $only == stock ]]; then
	if ((stock_ok)) && [[ -f /boot/vmlinuz-$kver ]]; then
		vm stock --kernel "/boot/vmlinuz-$kver" --kver "$kver" \
			--module build/stock/nvsvm.ko --module build/stock/nvsvm_vgpu.ko \
			--tests build/tests --timeout "${NVSVM_VM_TIMEOUT_STOCK:-900}"
	else
		not_run stock/vm "no module build or no /boot/vmlinuz-$kver"
	fi
fi

if [[ -z $only || $only == debug ]]; then
	dk=
	if step debug-kernel "$scripts/build-debug-kernel.sh"; then
		dk=$(tail -n 1 "$out/debug-kernel.log")
	fi
	if [[ -n $dk ]] && step build-debug "$scripts/build-modules.sh" "$dk" build/debug; then
		dkver=$("$scripts/kernelrelease.sh" "$dk")
		vm debug --debug --kernel "$dk/arch/x86/boot/bzImage" --kver "$dkver" \
			--kmods "$dk/modinst/lib/modules/$dkver" \
			--module build/debug/nvsvm.ko --module build/debug/nvsvm_vgpu.ko \
			--tests build/tests --timeout "${NVSVM_VM_TIMEOUT_DEBUG:-1500}"
	else
		not_run debug/vm "no debug kernel or module build"
	fi
fi

echo "# make check took $((SECONDS - start_all))s"
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0 && passed > 0))
