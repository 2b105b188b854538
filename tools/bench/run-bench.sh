#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: the issue 8 benchmarks, nvsvm beside lib/test_hmm.ko, in the
# VM on a non-debug kernel; prints a table and writes build/bench/results.json
# and build/bench/results.png. Not a test: no figure passes or fails here.
#
#   1. deps       tools/bench/deps.sh (make deps, and gnuplot)
#   2. kernel     tools/scripts/build-bench-kernel.sh: tinyconfig +
#                 tools/kconfig/bench.config (DEVICE_PRIVATE, TEST_HMM=m, no
#                 checkers), cached in /var/cache/nvsvm/kernel-bench-<key>
#   3. modules    nvsvm.ko, nvsvm_vgpu.ko against it (build/bench/modules)
#   4. program    tools/bench/nvsvm-bench.c, static (build/bench/nvsvm-bench)
#   5. VM         tools/vm/run.sh --script tools/bench/guest.sh, logs in
#                 build/bench/vm/ (console.txt, results.txt)
#   6. report     tools/bench/report.py: table, results.json, results.png
#   7. oversub    with --oversub MIB (default 16; 0: none): nvsvm_vgpu
#                 reloaded with vram_mb=MIB, nvsvm-bench -w o (working sets
#                 of 125-200 % of it, evict_policy uvm against lru); --work
#                 with only o runs this pass alone
#   8. workloads  the OpenCL C workloads (tests/opencl/workloads.c, -s
#                 SCALE) in the same VM through the ICD (tools/cl/), and
#                 the same program on pocl's CPU device on the host (the
#                 VM has no pocl): time per workload side by side, nvsvm's
#                 fault counters per workload; build/bench/workloads.txt
#   9. m73        when the work has m: the 7.3 bench kernel
#                 (build-bench-kernel.sh --source 7.3, cached as
#                 kernel-7.3-bench-<key>: large device-private folios, so
#                 THPs move as 2 MiB VRAM pages), modules against it
#                 (build/bench/modules-7.3), a second VM running
#                 nvsvm-bench -w m alone (logs in build/bench/vm-7.3/); its
#                 figures are m73.* in the table and results.json (the
#                 6.1 kernel's m.*.2m are n/a there); --no-73 leaves it out
#
# usage: run-bench.sh [--reps N] [--sizes "MIB..."] [--work LETTERS]
#                     [--prefetch PERCENT] [--no-profile] [--timeout SECONDS]
#                     [--profile-work LETTERS] [--profile-size MIB]
#                     [--cl-scale N | --no-cl] [--oversub MIB] [--no-73]
# Environment: NVSVM_BENCH_REPS (default 3), NVSVM_BENCH_SIZES (default
# "64 256"), NVSVM_BENCH_WORK (workload letters, default all: abcdefghkmpr,
# and o when --oversub is not 0),
# NVSVM_BENCH_PREFETCH (nvsvm.prefetch_threshold for the run, default the
# module's), NVSVM_BENCH_PROFILE (1, the default, adds the function-profile
# pass), NVSVM_BENCH_PROFILE_WORK and NVSVM_BENCH_PROFILE_SIZE (what that
# pass runs, once: default "ab" on 16 MiB), NVSVM_ACCEL (tcg|kvm, see
# tools/vm/accel.sh). `make bench` passes REPS, SIZES, WORK, PREFETCH,
# PROFILE_WORK and PROFILE_SIZE as these. NVSVM_BENCH_CL_SCALE: the
# workloads' -s (default 8; 0 leaves them out), `make bench CL_SCALE=N`.
# NVSVM_BENCH_OVERSUB: the oversubscription pass's vram_mb (default 16; 0
# leaves it out), `make bench OVERSUB=MIB`. NVSVM_BENCH_M73 (1, the
# default; 0 as --no-73): the 7.3 pass of m, `make bench M73=0`.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
scripts=$top/tools/scripts
out=$top/build/bench

reps=${NVSVM_BENCH_REPS:-3}
sizes=${NVSVM_BENCH_SIZES:-64 256}
work=${NVSVM_BENCH_WORK:-}
prefetch=${NVSVM_BENCH_PREFETCH:-}
profile=${NVSVM_BENCH_PROFILE:-1}
profile_work=${NVSVM_BENCH_PROFILE_WORK:-ab}
profile_size=${NVSVM_BENCH_PROFILE_SIZE:-16}
cl_scale=${NVSVM_BENCH_CL_SCALE:-8}
oversub=${NVSVM_BENCH_OVERSUB:-16}
m73=${NVSVM_BENCH_M73:-1}
timeout_s=3600
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--sizes) sizes=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--prefetch) prefetch=$2; shift 2 ;;
	--no-profile) profile=0; shift ;;
	--profile-work) profile_work=$2; shift 2 ;;
	--profile-size) profile_size=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--cl-scale) cl_scale=$2; shift 2 ;;
	--no-cl) cl_scale=0; shift ;;
	--oversub) oversub=$2; shift 2 ;;
	--no-73) m73=0; shift ;;
	-h | --help) sed -n '3,51p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-bench.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

t_all=$SECONDS
step() {
	echo "bench: $*" >&2
}

mkdir -p "$out"
step "deps"
"$here/deps.sh"

t=$SECONDS
step "kernel (tinyconfig + tools/kconfig/bench.config)"
dk=$("$scripts/build-bench-kernel.sh" | tail -n 1)
kver=$("$scripts/kernelrelease.sh" "$dk")
step "kernel $kver in $dk ($((SECONDS - t)) s)"

step "modules against $kver"
# The product build: no TEST-ONLY hooks (Kbuild, CONFIG_NVSVM_TEST).
"$scripts/build-modules.sh" "$dk" "$out/modules" CONFIG_NVSVM_TEST=
step "nvsvm-bench"
make --no-print-directory -s -C "$here" O="$out"

# The guest times with the TSC, which under QEMU (TCG or KVM) runs at the
# host's rate: the host's kernel knows it (nvsvm-bench.c, now()).
tsc_mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' | tail -n 1)
[[ -n $tsc_mhz ]] || tsc_mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | head -n 1)
if [[ -z $tsc_mhz ]] && grep -qw constant_tsc /proc/cpuinfo; then
	tsc_mhz=$(sed -n 's/^cpu MHz[[:space:]]*: \([0-9.]*\)$/\1/p' /proc/cpuinfo | head -n 1)
fi
tsc_arg=
if [[ -n $tsc_mhz ]]; then
	tsc_arg="-t $tsc_mhz"
	step "host TSC: $tsc_mhz MHz"
else
	step "host TSC frequency unknown: the guest calibrates it against its own clock"
fi

[[ -z $work || $work =~ ^[a-hkmopr]+$ ]] || { echo "run-bench.sh: bad --work $work" >&2; exit 2; }
[[ $oversub =~ ^[0-9]+$ ]] || { echo "run-bench.sh: bad --oversub $oversub" >&2; exit 2; }
# o is its own pass (guest.sh), with its own VRAM; the rest is the first.
main=1
if [[ -n $work && $work == *o* ]]; then
	work=${work//o/}
	[[ -n $work ]] || main=0
	((oversub)) || { echo "run-bench.sh: --work o with --oversub 0" >&2; exit 2; }
elif [[ -n $work ]]; then
	oversub=0
fi
[[ -z $prefetch || $prefetch =~ ^[0-9]+$ ]] || { echo "run-bench.sh: bad --prefetch $prefetch" >&2; exit 2; }
[[ $profile_work =~ ^[a-hkp]+$ ]] || { echo "run-bench.sh: bad --profile-work $profile_work" >&2; exit 2; }
[[ $profile_size =~ ^[0-9]+$ ]] || { echo "run-bench.sh: bad --profile-size $profile_size" >&2; exit 2; }
[[ $cl_scale =~ ^[0-9]+$ ]] || { echo "run-bench.sh: bad --cl-scale $cl_scale" >&2; exit 2; }
[[ $m73 =~ ^[01]$ ]] || { echo "run-bench.sh: bad NVSVM_BENCH_M73 $m73" >&2; exit 2; }
work_arg=
[[ -z $work ]] || work_arg="-w $work"
# The 7.3 pass of m: with m in the work (all of it by default).
((main)) && [[ -z $work || $work == *m* ]] || m73=0

# Only the bench program goes into the guest's /tests/bin; the guest
# script gets its arguments in front of it.
stage=$(mktemp -d /tmp/nvsvm-bench.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin"
cp "$out/nvsvm-bench" "$stage/bin/"

# The OpenCL workloads: the program and the ICD for the VM, and the same
# program on pocl on the host, now (build/bench/workloads-pocl.txt).
opencl=()
rm -f "$out/workloads-pocl.txt"
if ((cl_scale)); then
	step "workloads: tests/opencl/workloads -s $cl_scale, the ICD, pocl on the host"
	if make -s -C "$top/tests" "$top/build/tests/workloads" >"$out/workloads-build.log" 2>&1 &&
		make -s -C "$top/tools" cl >>"$out/workloads-build.log" 2>&1; then
		cp "$top/build/tests/workloads" "$stage/bin/"
		opencl=(--opencl "$top/build/tools/cl")
		if [[ -r /etc/OpenCL/vendors/pocl.icd ]]; then
			OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd \
				"$top/build/tests/workloads" -s "$cl_scale" \
				>"$out/workloads-pocl.txt" 2>&1 || true
		else
			step "workloads: no pocl-opencl-icd on the host (make deps): nvsvm only"
		fi
	else
		tail -n 20 "$out/workloads-build.log" >&2
		step "workloads: building them or the ICD failed: left out"
	fi
fi
{
	echo '#!/bin/sh'
	echo "NVSVM_BENCH_ARGS='-r $reps $tsc_arg $work_arg $sizes'"
	echo "NVSVM_BENCH_PREFETCH='$prefetch'"
	echo "NVSVM_BENCH_PROFILE=$profile"
	echo "NVSVM_BENCH_PROFILE_ARGS='-w $profile_work $profile_size'"
	echo "NVSVM_BENCH_TSC='$tsc_arg'"
	echo "NVSVM_BENCH_CL_SCALE=$cl_scale"
	echo "NVSVM_BENCH_MAIN=$main"
	echo "NVSVM_BENCH_OVERSUB=$oversub"
	echo "NVSVM_BENCH_OVERSUB_ARGS='-r $reps $tsc_arg'"
	sed 1d "$here/guest.sh"
} >"$stage/bench.sh"

t=$SECONDS
step "VM run: nvsvm-bench -r $reps $work_arg $sizes (prefetch_threshold: ${prefetch:-module default}; profile pass: $profile, -w $profile_work $profile_size)"
rm -rf "$out/vm"
# The whole console goes to vm.log; the bench's own lines are shown as
# they come.
set +e
"$top/tools/vm/run.sh" --name bench --workdir "$out/vm" \
	--kernel "$dk/arch/x86/boot/bzImage" --kver "$kver" \
	--kmods "$dk/modinst/lib/modules/$kver" \
	--module "$out/modules/nvsvm.ko" --module "$out/modules/nvsvm_vgpu.ko" \
	--tests "$stage/bin" --script "$stage/bench.sh" "${opencl[@]}" \
	--timeout "$timeout_s" 2>&1 | tee "$out/vm.log" |
	grep --line-buffered -E '^  bench \| (bench|profile|workloads): |^(ok|not ok|#) ' >&2
status=${PIPESTATUS[0]}
set -e
step "VM run took $((SECONDS - t)) s"

# 9: m on the 7.3 bench kernel, in a VM of its own.
m73_report=()
rm -rf "$out/vm-7.3"
if ((m73)); then
	t=$SECONDS
	step "m73: kernel (linux-source-7.3, tinyconfig + bench.config + bench-7.3.config)"
	if dk73=$("$scripts/build-bench-kernel.sh" --source 7.3 | tail -n 1); then
		kver73=$("$scripts/kernelrelease.sh" "$dk73")
		step "m73: kernel $kver73 in $dk73 ($((SECONDS - t)) s)"
		"$scripts/build-modules.sh" "$dk73" "$out/modules-7.3" CONFIG_NVSVM_TEST=
		{
			echo '#!/bin/sh'
			echo "NVSVM_BENCH_ARGS='-r $reps $tsc_arg -w m'"
			echo "NVSVM_BENCH_PROFILE=0"
			echo "NVSVM_BENCH_CL_SCALE=0"
			echo "NVSVM_BENCH_MAIN=1"
			echo "NVSVM_BENCH_OVERSUB=0"
			sed 1d "$here/guest.sh"
		} >"$stage/bench-7.3.sh"
		t=$SECONDS
		step "m73: VM run: nvsvm-bench -r $reps -w m"
		set +e
		"$top/tools/vm/run.sh" --name bench-7.3 --workdir "$out/vm-7.3" \
			--kernel "$dk73/arch/x86/boot/bzImage" --kver "$kver73" \
			--kmods "$dk73/modinst/lib/modules/$kver73" \
			--module "$out/modules-7.3/nvsvm.ko" \
			--module "$out/modules-7.3/nvsvm_vgpu.ko" \
			--tests "$stage/bin" --script "$stage/bench-7.3.sh" \
			--timeout "$timeout_s" 2>&1 | tee "$out/vm-7.3.log" |
			grep --line-buffered -E '^  bench-7.3 \| bench: |^(ok|not ok|#) ' >&2
		s73=${PIPESTATUS[0]}
		set -e
		step "m73: VM run took $((SECONDS - t)) s"
		((s73 == 0)) || status=$s73
		m73_report=(--m73 "$out/vm-7.3/results.txt"
			    --meta "m73.*: m on kernel $kver73 (the same program, its own VM)")
	else
		step "m73: building the 7.3 bench kernel failed: no m73 figures"
		status=1
	fi
fi

accel=$("$top/tools/vm/accel.sh" "$dk/arch/x86/boot/bzImage")
python3 "$here/report.py" --results "$out/vm/results.txt" \
	--json "$out/results.json" --plot "$out/results.png" \
	--meta "kernel $kver, qemu $accel" \
	--meta "median of $reps repetitions" \
	--meta "nvsvm.prefetch_threshold ${prefetch:-default}" \
	--meta "oversubscription pass: nvsvm_vgpu vram_mb=${oversub} (0: none)" \
	"${m73_report[@]}"
step "results: $out/results.json, $out/results.png; logs: $out/vm/"
if ((cl_scale)); then
	"$here/workloads-report.sh" "$out/vm/results.txt" "$out/workloads-pocl.txt" |
		tee "$out/workloads.txt"
fi
step "make bench took $((SECONDS - t_all)) s"
exit "$status"
