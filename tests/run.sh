#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest test runner (busybox sh), started by the VM's /init.
#
# 1. Loads nvsvm_vgpu with selftest=1 once and turns the module's KTAP lines
#    in the kernel log ("nvsvm_vgpu_selftest: ok 1 name") into results.
# 2. Runs every executable in /tests/bin with the modules loaded
#    (`modprobe nvsvm_vgpu`, default parameters, or those params() gives
#    for the program) and unloads them after; an unload that fails is a
#    failure of that program.
# 3. Runs every /tests/guest-*.sh with the modules unloaded: those scripts
#    load what they need themselves and must leave nothing loaded.
#
# Each program prints KTAP (`1..N`, `ok N name`, `not ok N name`,
# `ok N name # SKIP reason`) and exits 4 when a capability is missing:
# the kernel's kselftest_harness.h's (TAP version 13,
# `# Totals:`, `# PASSED: N / N tests passed.`, shown as comments; 6.1's
# prints a skipped case as `ok N # SKIP reason` without its name, which
# ktap() takes from the harness's `#  OK  fixture.name` line before it).
# Every result is echoed as `[program] ok N name` on stdout and appended to
# $NVSVM_RESULTS (the VM's results port); the last line is
# `[run.sh] N passed, N failed, N skipped`. Exit status 1 on any failure.
#
# NVSVM_TEST_TIMEOUT: seconds one program may run (default 600).

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
# The OpenCL ICD's compile server, on the host (tools/vm/run.sh --opencl).
[ -r /etc/nvsvm-cl-remote ] && NVSVM_CL_REMOTE=$(cat /etc/nvsvm-cl-remote) &&
	export NVSVM_CL_REMOTE
results=${NVSVM_RESULTS:-/dev/null}
timeout_s=${NVSVM_TEST_TIMEOUT:-600}
tmp=$(mktemp -d)
: >"$tmp/all"

mounted() {
	grep -q "^[^ ]* $1 " /proc/mounts 2>/dev/null
}
mounted /proc || mount -t proc proc /proc
mounted /sys || mount -t sysfs sysfs /sys
mounted /dev || mount -t devtmpfs devtmpfs /dev
mounted /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

emit() {
	echo "$1"
	echo "$1" >>"$results"
}

# count PROGRAM LINE: record one KTAP result line of PROGRAM. Callable from
# a pipeline's subshell: the tallies live in $tmp/all.
count() {
	echo "$2" >>"$tmp/all"
	emit "[$1] $2"
}

# ktap PROGRAM: read PROGRAM's output on stdin, show it, count its results;
# leaves the number of results in $tmp/n and the plan in $tmp/plan.
ktap() {
	n=0
	last=
	: >"$tmp/plan"
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			rest=${line#ok }
			num=${rest%% *}
			case ${rest#"$num"} in
			" # SKIP"*)
				[ -z "$last" ] || line="ok $num $last${rest#"$num"}" ;;
			esac
			last=
			count "$1" "$line" ;;
		"#"*" OK  "*)
			last=${line##* }
			echo "# [$1] $line" ;;
		"1.."*)
			[ -s "$tmp/plan" ] || echo "${line#1..}" >"$tmp/plan"
			echo "# [$1] $line" ;;
		*)
			echo "# [$1] $line" ;;
		esac
	done
	echo "$n" >"$tmp/n"
}

# judge PROGRAM STATUS: turn an exit status, a missing or short plan into
# results of their own.
judge() {
	n=$(cat "$tmp/n")
	plan=$(cat "$tmp/plan")
	if [ "$2" = 4 ] && [ "$n" = 0 ]; then
		count "$1" "ok 1 $1 # SKIP capability missing (exit 4)"
	elif [ "$2" = 137 ]; then
		count "$1" "not ok $((n + 1)) $1 # killed after ${timeout_s}s"
	elif [ "$2" != 0 ] && [ "$2" != 4 ]; then
		count "$1" "not ok $((n + 1)) $1 # exit status $2"
	elif [ "$n" = 0 ]; then
		count "$1" "not ok 1 $1 # no results"
	elif [ -n "$plan" ] && [ "$plan" != "$n" ]; then
		count "$1" "not ok $((n + 1)) $1 # planned $plan, ran $n"
	fi
}

# run PROGRAM COMMAND...: run one test program, streaming its output.
run() {
	name=$1
	shift
	echo "# [$name] start"
	t0=$(cut -d. -f1 /proc/uptime)
	{
		timeout -s KILL "$timeout_s" "$@" </dev/null 2>&1
		echo $? >"$tmp/status"
	} | ktap "$name"
	judge "$name" "$(cat "$tmp/status")"
	echo "# [$name] took $(($(cut -d. -f1 /proc/uptime) - t0)) s"
}

loaded() {
	grep -q "^$1 " /proc/modules
}

unload() {
	for m in nvsvm_vgpu nvsvm; do
		if loaded "$m" && ! rmmod "$m"; then
			return 1
		fi
	done
	return 0
}

# The virtual GPU's in-module self-test.
selftest() {
	dmesg -c >/dev/null
	if ! modprobe nvsvm_vgpu selftest=1; then
		count vgpu-selftest "not ok 1 modprobe nvsvm_vgpu selftest=1 failed"
		return
	fi
	dmesg | sed -n 's/^.*nvsvm_vgpu_selftest: //p' >"$tmp/selftest"
	if grep -q '^\(not \)\{0,1\}ok ' "$tmp/selftest"; then
		ktap vgpu-selftest <"$tmp/selftest"
		judge vgpu-selftest 0
	else
		count vgpu-selftest "ok 1 vgpu-selftest # SKIP the module printed no self-test results"
	fi
	unload || count vgpu-selftest "not ok 0 vgpu-selftest # rmmod after the self-test failed"
}

# params PROGRAM: nvsvm_vgpu parameters PROGRAM needs (default: none).
params() {
	case $1 in
	# GPU atomics on system memory as a means to test something else:
	# exact on a coherent link (docs/architecture.md, GPU atomics).
	# tests/opencl/workloads: bfs and the histograms, OpenCL C atomics
	# on malloc'd memory (CL_DEVICE_SVM_ATOMICS).
	behaviour|faults|security|workloads) echo sysmem_atomics=coherent ;;
	# Not tests/launch: its programs' atomics on malloc'd memory go
	# through the driver's exclusive access where the kernel has it
	# (NVSVM_CAP_SYSMEM_ATOMICS: histogram, reduce), and are cancelled
	# where it has not (atomic_cancelled_without_cap): PCIe as it is.
	multi) echo count=2 ;;	# two GPUs mirroring one process
	esac
}

echo "# run.sh: kernel $(uname -r)"
# Kernel modules some programs use, where this kernel has them as modules
# (the host passes them in): fuse for tests/blocking. Without them, those
# cases skip with the reason.
modprobe -q fuse 2>/dev/null || true
selftest

for t in /tests/bin/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=${t##*/}
	[ "$name" != hmm-tests ] || continue	# tests/guest-hmm.sh runs it
	# shellcheck disable=SC2046 # word splitting wanted
	if ! modprobe nvsvm_vgpu $(params "$name"); then
		count "$name" "not ok 1 $name # modprobe nvsvm_vgpu $(params "$name") failed"
		continue
	fi
	run "$name" "$t"
	unload || count "$name" "not ok 0 $name # rmmod after the program failed"
done

for t in /tests/guest-*.sh; do
	[ -f "$t" ] || continue
	name=${t##*/}
	name=${name%.sh}
	unload
	run "$name" sh "$t"
	if loaded nvsvm_vgpu || loaded nvsvm; then
		count "$name" "not ok 0 $name # left modules loaded"
		unload
	fi
done

failed=$(grep -c '^not ok' "$tmp/all")
skipped=$(grep -c '^ok.*# [Ss][Kk][Ii][Pp]' "$tmp/all")
passed=$(($(grep -c '^ok' "$tmp/all") - skipped))
rm -rf "$tmp"
emit "[run.sh] $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
