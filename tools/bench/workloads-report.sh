#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The OpenCL C workloads side by side (tools/bench/run-bench.sh, step 7):
# the "# bench NAME: ..." lines tests/opencl/workloads printed in the VM
# on nvsvm (the results port's "workloads: " lines) and on the host on
# pocl's CPU device. Figures only: nothing is judged.
#
# usage: workloads-report.sh VM_RESULTS POCL_OUTPUT
set -euo pipefail

vm=${1:?usage: workloads-report.sh VM_RESULTS POCL_OUTPUT}
pocl=${2:?usage: workloads-report.sh VM_RESULTS POCL_OUTPUT}

echo "OpenCL C workloads (tests/opencl/workloads.c): nvsvm in the VM (the virtual GP100"
echo "under QEMU), pocl's CPU device on the host (the VM has no pocl), same program and sizes."
echo "Time: the workload's launches, enqueue to clFinish; its build is apart."
awk '
function parse(line, side,   name, rest, f) {
	sub(/^.*# bench /, "", line)
	name = line
	sub(/:.*/, "", name)
	rest = line
	sub(/^[^:]*: /, "", rest)
	split(rest, f, "; ")
	size[name] = f[1]
	ms[name, side] = f[3]
	sub(/ ms in .*/, "", ms[name, side])
	launches[name] = f[3]
	sub(/^.* in /, "", launches[name])
	if (side == "nvsvm" && f[4] != "")
		faults[name] = f[4]
	if (!(name in seen)) {
		seen[name] = 1
		order[++n] = name
	}
}
FNR == 1 { file++ }
/# bench / {
	if (file == 1 && $0 ~ /^workloads: /)
		parse($0, "nvsvm")
	else if (file == 2)
		parse($0, "pocl")
}
/^workloads: (ok|not ok) / && file == 1 { res[++r] = substr($0, 12) }
/^workloads: 1\.\.0 # SKIP / && file == 1 { res[++r] = "skipped: " substr($0, 24) }
/^workloads: # reloading/ && file == 1 { res[++r] = substr($0, 14) }
/^1\.\.0 # SKIP / && file == 2 { pocl_skip = substr($0, 13) }
END {
	if (!n)
		print "(no workload figures: see build/bench/vm/results.txt and workloads-pocl.txt)"
	else
		printf "%-17s %12s %12s  %s\n", "workload", "nvsvm ms", "pocl ms", "size; nvsvm faults"
	for (i = 1; i <= n; i++) {
		w = order[i]
		a = ((w, "nvsvm") in ms) ? ms[w, "nvsvm"] : "-"
		b = ((w, "pocl") in ms) ? ms[w, "pocl"] : "-"
		printf "%-17s %12s %12s  %s (%s)%s\n", w, a, b, size[w], launches[w],
			(w in faults) ? "; " faults[w] : ""
	}
	for (i = 1; i <= r; i++)
		print "# nvsvm: " res[i]
	if (pocl_skip != "")
		print "# pocl: skipped: " pocl_skip
}' "$vm" "$pocl"
