#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Khronos OpenCL CTS (tools/scripts/build-cts.sh, from the pinned copy
# in ../shared/third_party) on the OpenCL ICD (tools/cl/) in the test VM:
# each binary in /cts (run.sh --cts) runs with nvsvm_vgpu loaded, and every
# CTS subtest is one KTAP result, "ok N test_api/subtest", "not ok ..." or
# "ok ... # SKIP reason", read from the harness's lines ("NAME...", then
# "NAME passed", "NAME FAILED", "NAME test not supported", "NAME skipped
# (requires ...)"); a binary that stops in a subtest fails it with its exit
# status. After each binary, a comment with its counts. What is left out,
# and why, is in docs/opencl.md (The Khronos CTS).
#
# CTS_TIMEOUT: seconds one binary may run (default 150); CTS_TOTAL: seconds
# all may run (default 540, within tests/run.sh's 600 per script): a
# binary left without time is one failure, "not run".
# Starts and ends with neither module loaded.

. "${0%/*}/ktap.sh"

icd=/etc/OpenCL/vendors/nvsvm.icd
if [ ! -d /cts ] || [ ! -r $icd ]; then
	echo "1..0 # SKIP no /cts or $icd in this VM (run.sh --cts and --opencl; tools/scripts/build-cts.sh needs ../shared/third_party)"
	exit 4
fi
need_vgpu
tmp=$(mktemp -d)
budget=${CTS_TIMEOUT:-150}
total=${CTS_TOTAL:-540}
t0=$(cut -d. -f1 /proc/uptime)

# The arguments of a binary (a list of subtests, to keep the run within
# CTS_TOTAL once kernels run; docs/opencl.md names what is left out).
# None today: every subtest of the eight binaries runs (about 90 s).
args() {
	case $1 in
	*) ;;
	esac
}

if ! modprobe nvsvm_vgpu; then
	not_ok "modprobe nvsvm_vgpu"
	echo "1..$n"
	rm -rf "$tmp"
	exit 1
fi

for bin in /cts/test_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/}
	left=$((total - ($(cut -d. -f1 /proc/uptime) - t0)))
	if [ "$left" -lt 10 ]; then
		not_ok "$name -- not run: the CTS's ${total}s are up"
		continue
	fi
	[ "$left" -lt "$budget" ] || left=$budget
	# shellcheck disable=SC2046 # word splitting wanted
	(cd "$tmp" && timeout -s KILL "$left" "$bin" $(args "$name") \
		>"$tmp/out" 2>&1
	 echo $? >"$tmp/status")
	status=$(cat "$tmp/status")
	# The CTS's own words must not read as the kernel's (run.sh fails a
	# console with "WARNING:", "BUG:" or "KASAN"): defanged.
	sed -i -e 's/WARNING:/WARNING -/g' -e 's/BUG:/BUG -/g' \
		-e 's/KASAN/K-ASAN/g' "$tmp/out"
	# One line per subtest: P name, F name reason, S name reason. A
	# failure's reason is its first error line, "no compiler: ..." when
	# clBuildProgram failed (CL_COMPILER_NOT_AVAILABLE, or the helpers'
	# "CL BUILD ERROR": fine until the compiler lands); a
	# subtest started but not ended is the one the binary stopped in.
	awk -v st="$status" '
		function fail(name) {
			if (nocc)
				why = "no compiler: " why
			print "F " name (why != "" ? " -- " substr(why, 1, 120) : "")
		}
		/^[A-Za-z0-9_]+\.\.\.$/ {
			cur = substr($0, 1, length($0) - 3); why = ""; nocc = 0; next }
		cur != "" && $0 == cur " passed" { print "P " cur; cur = ""; next }
		cur != "" && $0 == cur " FAILED" { fail(cur); cur = ""; next }
		cur != "" && $0 == cur " test not supported" {
			print "S " cur " the device does not support it"; cur = ""; next }
		cur != "" && index($0, cur " skipped (") == 1 {
			print "S " cur " " substr($0, length(cur) + 10); cur = ""; next }
		/^Subtest [A-Za-z0-9_]+ tests is not supported/ {
			print "S " $2 " not in the offline compiler path"; cur = ""; next }
		/^Test (skipped|failed) while initialization/ { init = $2 }
		/CL_COMPILER_NOT_AVAILABLE|CL BUILD ERROR/ { nocc = 1 }
		cur != "" && why == "" && /(ERROR|Error|error|FAIL|[Ff]ailed|[Mm]ismatch)/ {
			why = $0; gsub(/\/[^ ]*\//, "", why) }
		END {
			if (cur != "") {
				why = "stopped here, exit status " st
				fail(cur)
			}
			if (init == "skipped")
				print "S (all) skipped while initialization"
			else if (init == "failed")
				print "F (all) failed while initialization"
		}' "$tmp/out" >"$tmp/res"
	# Not the whole output: through the emulated serial port it took
	# longer than the tests (test_basic prints every kernel it builds).
	# What failed and its first error line are in the results.
	p=0 f=0 s=0
	while read -r kind sub reason; do
		case $kind in
		P) ok "$name/$sub"; p=$((p + 1)) ;;
		F) not_ok "$name/$sub${reason:+ $reason}"; f=$((f + 1)) ;;
		S) ok "$name/$sub # SKIP $reason"; s=$((s + 1)) ;;
		esac
	done <"$tmp/res"
	if [ "$((p + f + s))" = 0 ]; then
		not_ok "$name -- no subtest results, exit status $status"
		f=1
	elif [ "$status" = 137 ]; then
		not_ok "$name -- killed after ${left}s"
		f=$((f + 1))
	fi
	echo "# $name: $p passed, $f failed, $s skipped (exit status $status)"
done

echo "1..$n"
rmmod nvsvm_vgpu nvsvm
rm -rf "$tmp"
[ "$fails" = 0 ]
