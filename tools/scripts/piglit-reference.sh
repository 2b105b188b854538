#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reference of tests/guest-piglit.sh: piglit's OpenCL tests
# (tools/scripts/piglit-list.sh) on pocl's CPU device on this machine,
# one "RESULT SECONDS NAME" line per test (tools/scripts/piglit-run.sh),
# with the piglit and pocl versions and the counts as "#" lines, written
# to tests/piglit/pocl-reference.txt. Needs piglit and pocl-opencl-icd
# (make deps); takes about 15 minutes on the 2-core machine.
#
# usage: piglit-reference.sh [--results FILE] [--out FILE]
#   --results FILE  format the lines of an earlier piglit-run.sh run on
#                   pocl instead of running the tests again
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
piglit=/usr/lib/x86_64-linux-gnu/piglit
icd=/etc/OpenCL/vendors/pocl.icd
out=$top/tests/piglit/pocl-reference.txt
results=
while (($#)); do
	case $1 in
	--results) results=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "piglit-reference.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
if [[ ! -d $piglit || ! -r $icd ]]; then
	echo "piglit-reference.sh: needs $piglit and $icd (make deps: piglit, pocl-opencl-icd)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/piglit-list.sh" "$piglit" >"$tmp/list"
if [[ -z $results ]]; then
	results=$tmp/results
	OCL_ICD_VENDORS=$icd PIGLIT_LOG=$tmp/log \
		"$here/piglit-run.sh" "$piglit" "$tmp/list" 120 >"$results"
fi
if [[ $(wc -l <"$results") != $(wc -l <"$tmp/list") ]]; then
	echo "piglit-reference.sh: $results has not one line per test of the list" >&2
	exit 1
fi
device=$(OCL_ICD_VENDORS=$icd clinfo --raw 2>/dev/null |
	sed -n 's/^\[[^]]*\] *CL_DEVICE_NAME *//p' | head -n 1)
{
	echo "# piglit's OpenCL tests (tools/scripts/piglit-list.sh) on pocl's CPU device:"
	echo "# the reference of tests/guest-piglit.sh. Regenerate: tools/scripts/piglit-reference.sh"
	echo "# piglit $(dpkg-query -W -f='${Version}' piglit)," \
		"pocl-opencl-icd $(dpkg-query -W -f='${Version}' pocl-opencl-icd)," \
		"device ${device:-?}, $(nproc) CPUs, $(date -u +%Y-%m-%d)"
	echo "# $(wc -l <"$results") tests:" \
		"$(awk '{ n[$1]++ } END { for (r in n) printf "%s%d %s", s++ ? ", " : "", n[r], r }' "$results")"
	echo "# RESULT SECONDS NAME"
	cat "$results"
} >"$out"
tail -n +4 "$out" | head -n 1
