#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The bench in the guest (busybox sh), run by the VM's /init in place of
# tests/run.sh (tools/vm/run.sh --script); tools/bench/run-bench.sh puts
# NVSVM_BENCH_ARGS, NVSVM_BENCH_PREFETCH, NVSVM_BENCH_PROFILE and
# NVSVM_BENCH_PROFILE_ARGS in front of this file. Its 7.3 pass of m (step 9
# there) runs this file again in a VM of its own on the 7.3 bench kernel,
# with NVSVM_BENCH_ARGS="-r REPS -w m" and steps 3 to 5 off.
#
# 1. modprobe test_hmm (the peer, /dev/hmm_dmirror0) and nvsvm_vgpu;
# 2. /tests/bin/nvsvm-bench $NVSVM_BENCH_ARGS: every line it prints goes
#    to the console and, prefixed with "bench: ", to the results port;
# 3. with NVSVM_BENCH_PROFILE=1, a second, shorter pass (once; by default
#    a and b on 16 MiB, NVSVM_BENCH_PROFILE_ARGS="-w ab 16") under the kernel's function profiler restricted to nvsvm,
#    nvsvm_vgpu and the HMM/notifier calls they make; the busiest functions
#    go to the results port as "profile: " lines;
# 4. with NVSVM_BENCH_OVERSUB (a VRAM size in MiB, not 0): nvsvm_vgpu
#    reloaded with vram_mb=$NVSVM_BENCH_OVERSUB, then nvsvm-bench -w o
#    (oversubscription, evict_policy uvm against lru); its lines go to the
#    results port prefixed with "bench: " like the first pass's;
# 5. with NVSVM_BENCH_CL_SCALE (not 0) and /tests/bin/workloads there
#    (the OpenCL C workloads, tests/opencl/workloads.c, through the ICD):
#    nvsvm_vgpu reloaded with sysmem_atomics=coherent (the workloads'
#    atomics on malloc'd memory), then workloads -s SCALE; its lines go to
#    the results port prefixed with "workloads: ";
# 6. unloads what it loaded.
#
# No figure is judged here: the one result line, "[bench] ok 1 nvsvm-bench",
# only says that the program ran to the end with every data check passing.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
results=${NVSVM_RESULTS:-/dev/null}
args=${NVSVM_BENCH_ARGS:-64 256}
bench=/tests/bin/nvsvm-bench
tracing=/sys/kernel/debug/tracing

grep -q ' /sys/kernel/debug ' /proc/mounts 2>/dev/null ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

emit() {
	echo "$1"
	echo "$1" >>"$results"
}

loaded() {
	grep -q "^$1 " /proc/modules 2>/dev/null
}

rc=0
if modprobe test_hmm; then
	n=0
	for d in /dev/hmm_dmirror*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	emit "bench: # peer: test_hmm loaded, $n dmirror devices"
else
	emit "bench: # peer: modprobe test_hmm failed; no peer figures"
fi
# nvsvm first, with the prefetch threshold asked for (else its default).
if [ -n "${NVSVM_BENCH_PREFETCH:-}" ]; then
	modprobe nvsvm prefetch_threshold="$NVSVM_BENCH_PREFETCH" ||
		emit "bench: # modprobe nvsvm prefetch_threshold=$NVSVM_BENCH_PREFETCH failed"
fi
if ! modprobe nvsvm_vgpu; then
	emit "[bench] not ok 1 nvsvm-bench # modprobe nvsvm_vgpu failed"
	exit 1
fi
emit "bench: # kernel $(uname -r), $(nproc) CPUs, $(grep MemTotal /proc/meminfo | tr -s ' ')"
emit "bench: # THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
emit "bench: # nvsvm.prefetch_threshold=$(cat /sys/module/nvsvm/parameters/prefetch_threshold 2>/dev/null)"

# The program's own status is kept apart from the pipe's; $args is a list.
# NVSVM_BENCH_MAIN=0: the oversubscription pass only.
status=0
if [ "${NVSVM_BENCH_MAIN:-1}" = 1 ]; then
	# shellcheck disable=SC2086
	( "$bench" $args 2>&1; echo "exit $?" >/tmp/bench.rc ) | while IFS= read -r line; do
		emit "bench: $line"
	done
	status=$(sed -n 's/^exit //p' /tmp/bench.rc)
fi

if [ "${NVSVM_BENCH_MAIN:-1}" = 1 ] &&
	[ "${NVSVM_BENCH_PROFILE:-0}" = 1 ] && [ "$status" = 0 ] &&
	[ -e $tracing/function_profile_enabled ]; then
	# Our modules' functions, and the core mm calls on our paths.
	echo '*:mod:nvsvm' >$tracing/set_ftrace_filter
	for f in '*:mod:nvsvm_vgpu' hmm_range_fault mmu_interval_read_begin \
		mmu_interval_notifier_insert mmu_interval_notifier_remove \
		dma_map_page_attrs dma_unmap_page_attrs handle_mm_fault \
		dma_sync_single_for_device unmap_page_range free_pages_and_swap_cache \
		__mmu_notifier_invalidate_range_start; do
		echo "$f" >>$tracing/set_ftrace_filter 2>/dev/null
	done
	# CPU time only: a thread asleep waiting for the GPU is not busy.
	echo 0 >$tracing/options/sleep-time 2>/dev/null
	echo 1 >$tracing/function_profile_enabled
	# shellcheck disable=SC2086
	"$bench" -r 1 -P ${NVSVM_BENCH_TSC:-} ${NVSVM_BENCH_PROFILE_ARGS:--w ab 16} \
		>/dev/null 2>&1
	echo 0 >$tracing/function_profile_enabled
	# One table per CPU: "Function Hit Time Avg s^2"; add them up by name.
	cat $tracing/trace_stat/function* 2>/dev/null |
		awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ {
			hit[$1] += $2; t[$1] += $3
		} END {
			for (f in t) printf "%.0f %d %s\n", t[f], hit[f], f
		}' | sort -rn | head -n 25 | while read -r us hits fn; do
		emit "profile: $fn hits=$hits total_us=$us"
	done
	echo >$tracing/set_ftrace_filter
fi

if [ "${NVSVM_BENCH_OVERSUB:-0}" != 0 ] && [ "$status" = 0 ]; then
	if rmmod nvsvm_vgpu && modprobe nvsvm_vgpu vram_mb="$NVSVM_BENCH_OVERSUB"; then
		# shellcheck disable=SC2086
		( "$bench" -P ${NVSVM_BENCH_OVERSUB_ARGS:-} -w o 2>&1
		  echo "exit $?" >/tmp/bench.rc ) | while IFS= read -r line; do
			emit "bench: $line"
		done
		status=$(sed -n 's/^exit //p' /tmp/bench.rc)
	else
		emit "bench: # reloading nvsvm_vgpu vram_mb=$NVSVM_BENCH_OVERSUB failed"
		status=1
	fi
fi

if [ "${NVSVM_BENCH_CL_SCALE:-0}" != 0 ] && [ -x /tests/bin/workloads ]; then
	# The ICD's compile server, on the host (run.sh --opencl).
	[ -r /etc/nvsvm-cl-remote ] &&
		NVSVM_CL_REMOTE=$(cat /etc/nvsvm-cl-remote) &&
		export NVSVM_CL_REMOTE
	if rmmod nvsvm_vgpu && modprobe nvsvm_vgpu sysmem_atomics=coherent; then
		/tests/bin/workloads -s "$NVSVM_BENCH_CL_SCALE" 2>&1 |
			while IFS= read -r line; do
				emit "workloads: $line"
			done
	else
		emit "workloads: # reloading nvsvm_vgpu sysmem_atomics=coherent failed"
	fi
fi

for m in nvsvm_vgpu nvsvm test_hmm; do
	if loaded "$m" && ! rmmod "$m"; then
		emit "bench: # rmmod $m failed"
		rc=1
	fi
done

if [ "$status" = 0 ] && [ "$rc" = 0 ]; then
	emit "[bench] ok 1 nvsvm-bench"
else
	emit "[bench] not ok 1 nvsvm-bench # exit status ${status:-none}, rmmod $rc"
	rc=1
fi
exit "$rc"
