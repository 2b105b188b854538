#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict (from the extracted linux-source-6.1) on every
# source file of src/, include/ and uapi/. Options, and the few checks we
# ignore with a reason for each, are in .checkpatch.conf, which checkpatch
# reads from the current directory. Fails on any error, warning or check.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
src=$(tools/scripts/linux-source.sh)

mapfile -t files < <(find src include uapi -type f -name '*.[ch]' | sort)
if ((${#files[@]} == 0)); then
	echo "style: no source files" >&2
	exit 1
fi

# Checks ignored for some paths only, each for a reason:
#  - uapi/: BIT() is a kernel macro that user space does not have.
#  - trace.h: TRACE_EVENT(name, TP_PROTO(...), TP_STRUCT__entry(...), ...)
#    is laid out the way every trace header in the kernel is, which trips
#    the open-parenthesis checks.
#  - nvsvm_compat.h: an out-of-tree module's one version floor (an #error
#    below 6.1, as dkms.conf's BUILD_EXCLUSIVE_KERNEL) compares
#    LINUX_VERSION_CODE, which checkpatch wants for in-tree code only.
#  - src/vgpu/rv_host.h: the user-space stand-ins of kernel macros for
#    the host's test programs; its no-op EXPORT_SYMBOL() follows nothing.
ignores_for() {
	case $1 in
	uapi/*) echo BIT_MACRO ;;
	*/trace.h) echo OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT ;;
	include/nvsvm_compat.h) echo LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
	src/vgpu/rv_host.h) echo EXPORT_SYMBOL ;;
	*) echo "" ;;
	esac
}

mkdir -p build
: >build/style.log
status=0
for f in "${files[@]}"; do
	ign=$(ignores_for "$f")
	"$src/scripts/checkpatch.pl" ${ign:+--ignore "$ign"} --file "$f" \
		>>build/style.log 2>&1 || status=$?
done
# checkpatch prints "total: E errors, W warnings, C checks" for each file.
if ((status != 0)) || grep -E '^(ERROR|WARNING|CHECK):' build/style.log >/dev/null; then
	grep -E -A4 '^(ERROR|WARNING|CHECK):' build/style.log | head -n 200
	echo "style: checkpatch --strict found problems in ${#files[@]} files" \
		"($(grep -cE '^(ERROR|WARNING|CHECK):' build/style.log) reports, log: build/style.log)"
	exit 1
fi
echo "style: checkpatch --strict clean on ${#files[@]} files"
