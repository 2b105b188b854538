#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test VM (tools/vm/run.sh) on a kernel with nvsvm's modules and
# the static demo programs, and run tools/demo/demo.sh in it instead of
# the test suite. Used by `make demo`.
#
# usage: run-demo.sh [--kernel BZIMAGE] [--kver KVER] [--module FILE.ko]...
#                    [--bin DIR] [--timeout SECONDS] [--workdir DIR]
#
#   --kver     kernel release (default: the newest /lib/modules/* that has
#              a /boot/vmlinuz-*, i.e. Debian's stock kernel)
#   --kernel   kernel image (default /boot/vmlinuz-KVER)
#   --module   nvsvm.ko and nvsvm_vgpu.ko built for KVER (default: the
#              ones at the top of the tree, where `make module` puts them)
#   --bin      the static nvsvm-demo and nvsvm-stat (default
#              build/tools/static, from `make -C tools static`)
#
# The OpenCL part, cl-demo (tools/demo/cl-demo.c: BFS in OpenCL C on
# malloc'd memory), is built here with the ICD (make -C tools cl) and
# goes into the VM with it (run.sh --opencl); when either cannot be
# built, the demo runs without it and says so.
#
# tools/vm/run.sh always runs tests/run.sh in the guest; when it has no
# --script option, this script gives it a private copy of tools/vm/ whose
# tree has demo.sh in the place of tests/run.sh. Exit status: run.sh's
# (0 when the demo passed and the kernel log stayed clean).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

kernel= kver= bin=$top/build/tools/static timeout_s=600 workdir=
modules=()
while (($#)); do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--module) modules+=("$2"); shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--workdir) workdir=$2; shift 2 ;;
	-h | --help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-demo.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [[ -z $kver ]]; then
	for d in $(ls -d /lib/modules/*/ 2>/dev/null | sort -rV); do
		k=$(basename "$d")
		if [[ -r /boot/vmlinuz-$k ]]; then
			kver=$k
			break
		fi
	done
fi
[[ -z $kernel && -n $kver ]] && kernel=/boot/vmlinuz-$kver
if [[ -z $kver || ! -r $kernel ]]; then
	echo "run-demo.sh: no kernel image (try 'make deps' for linux-image-amd64, or --kernel/--kver)" >&2
	exit 2
fi
((${#modules[@]})) || modules=("$top/nvsvm.ko" "$top/nvsvm_vgpu.ko")
for m in "${modules[@]}"; do
	if [[ ! -f $m ]]; then
		echo "run-demo.sh: $m is missing (build it: make module)" >&2
		exit 2
	fi
done
for p in nvsvm-demo nvsvm-stat; do
	if [[ ! -x $bin/$p ]] || ldd "$bin/$p" >/dev/null 2>&1; then
		echo "run-demo.sh: a static $bin/$p is needed (make -C tools static)" >&2
		exit 2
	fi
done

# Only the demo programs go into the guest's /tests/bin.
stage=$(mktemp -d /tmp/nvsvm-demo.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin"
cp "$bin/nvsvm-demo" "$bin/nvsvm-stat" "$stage/bin/"
opencl=()
if make -s -C "$top/tools" cl >"$stage/cl.log" 2>&1 &&
	make -s -C "$top/tests" "$top/build/tests/gen/workloads-cl.h" >>"$stage/cl.log" 2>&1 &&
	${CC:-cc} -O2 -Wall -Wextra -Werror -I "$top/uapi" -I "$top/tools/lib" \
		-I "$top/tests/opencl" -I "$top/build/tests/gen" \
		-o "$stage/bin/cl-demo" "$here/cl-demo.c" "$top"/tools/lib/*.c \
		-lOpenCL >>"$stage/cl.log" 2>&1; then
	opencl=(--opencl "$top/build/tools/cl")
else
	tail -n 20 "$stage/cl.log" >&2
	echo "run-demo.sh: building cl-demo or the ICD failed: the demo runs without its OpenCL part" >&2
	rm -f "$stage/bin/cl-demo"
fi

# --quiet: the demo's output is shown, the kernel log only if the run fails.
args=(--name demo --kernel "$kernel" --kver "$kver" --tests "$stage/bin"
      --timeout "$timeout_s" --quiet "${opencl[@]}")
for m in "${modules[@]}"; do
	args+=(--module "$m")
done
[[ -n $workdir ]] && args+=(--workdir "$workdir")

runner=$top/tools/vm/run.sh
if grep -q -- '--script)' "$runner"; then
	exec "$runner" "${args[@]}" --script "$here/demo.sh"
fi
# A copy of the runner whose tree has demo.sh as tests/run.sh.
mkdir -p "$stage/tree/tools" "$stage/tree/tests"
cp -a "$top/tools/vm" "$stage/tree/tools/vm"
cp "$here/demo.sh" "$stage/tree/tests/run.sh"
"$stage/tree/tools/vm/run.sh" "${args[@]}"
