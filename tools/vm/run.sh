#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel under QEMU with the test initramfs, stream the guest's
# console, print one line per test result, and pass only on positive
# evidence: the guest's /init printed "SUCCESS <nonce>" (all tests ran, our
# modules unloaded, kmemleak clean) and the console shows no WARN, BUG,
# KASAN, lockdep, kmemleak, Oops, Call Trace or hung task report.
#
# usage: run.sh --name NAME --kernel BZIMAGE --kver KVER
#               --module FILE.ko [--module FILE.ko]... [--tests DIR]
#               [--kmods DIR] [--debug] [--timeout SECONDS] [--counts FILE]
#               [--workdir DIR] [--script FILE] [--quiet] [--opencl DIR]
#               [--cts DIR] [--guest NAME]...
#               [--piglit DIR [--piglit-part K/N]] [--python DIR]
#
#   --kmods DIR    the kernel's own lib/modules/KVER tree to include
#   --debug        boot with kmemleak=on (the debug kernel)
#   --timeout      bound on the whole run, QEMU is killed after (default 900)
#   --counts FILE  write "PASSED FAILED SKIPPED" there for make check
#   --workdir DIR  keep console.log, results.log, initramfs there (default:
#                  a new /tmp/nvsvm-vm.*, removed when the run passed)
#   --script FILE  the in-guest script to run instead of tests/run.sh (it
#                  must report like tests/run.sh: "[program] ok N name")
#   --opencl DIR   the OpenCL ICD built in DIR (make -C tools cl), with
#                  clinfo and the libraries (tools/vm/mkinitramfs.sh)
#   --cts DIR      the Khronos CTS binaries of tools/scripts/build-cts.sh,
#                  in the guest's /cts (tests/guest-cts.sh runs them)
#   --piglit DIR   piglit's OpenCL tests from DIR, for tests/guest-piglit.sh
#                  (tools/vm/mkinitramfs.sh); --piglit-part K/N: every Nth
#                  test of the list only, from the Kth
#   --python DIR   python3, numpy, pyopencl, pytest and pyopencl's tests
#                  from DIR, for tests/guest-pyopencl.sh (mkinitramfs.sh)
#   --guest NAME   put only tests/guest-NAME.sh in the guest (repeatable;
#                  default: every tests/guest-*.sh)
#   --quiet        show the script's output only (it goes to a third serial
#                  port, output.log); the kernel log stays in console.log
#                  and is printed only when the run fails
#
# Result lines: "ok NAME/PROGRAM N description", "not ok ...", with the
# whole run itself as one more result, NAME/vm. Exit status 0 only when
# nothing failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

name=vm kernel= kver= tests= kmods= debug=0 timeout_s=900 counts= workdir= script=
opencl= cts=
piglit=
piglit_part=
python=
quiet=0
modules=() guests=()
while (($#)); do
	case $1 in
	--name) name=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--module) modules+=(--module "$2"); shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--kmods) kmods=$2; shift 2 ;;
	--debug) debug=1; shift ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--counts) counts=$2; shift 2 ;;
	--workdir) workdir=$2; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--opencl) opencl=$2; shift 2 ;;
	--cts) cts=$2; shift 2 ;;
	--piglit) piglit=$2; shift 2 ;;
	--piglit-part) piglit_part=$2; shift 2 ;;
	--python) python=$2; shift 2 ;;
	--guest) guests+=(--guest "$2"); shift 2 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
if [[ -z $kernel || -z $kver ]]; then
	echo "run.sh: --kernel and --kver are required" >&2
	exit 2
fi
own_workdir=0
if [[ -z $workdir ]]; then
	workdir=$(mktemp -d /tmp/nvsvm-vm.XXXXXX)
	own_workdir=1
fi
mkdir -p "$workdir"
console=$workdir/console.log
results=$workdir/results.log
output=$workdir/output.log
initrd=$workdir/initramfs.cpio.gz
: >"$console"
: >"$results"
: >"$output"

passed=0 failed=0 skipped=0
report() {
	local line=$1
	case $line in
	"not ok "*) failed=$((failed + 1)) ;;
	ok*"# SKIP"* | ok*"# skip"*) skipped=$((skipped + 1)) ;;
	ok*) passed=$((passed + 1)) ;;
	*) return ;;
	esac
	echo "$line"
}

nonce=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
initrd_args=(--kver "$kver" --out "$initrd" --nonce "$nonce" "${modules[@]}" ${guests[@]+"${guests[@]}"})
[[ -n $tests ]] && initrd_args+=(--tests "$tests")
[[ -n $kmods ]] && initrd_args+=(--kmods "$kmods")
[[ -n $script ]] && initrd_args+=(--script "$script")
[[ -n $opencl ]] && initrd_args+=(--opencl "$opencl")
[[ -n $cts ]] && initrd_args+=(--cts "$cts")
[[ -n $piglit ]] && initrd_args+=(--piglit "$piglit")
[[ -n $piglit_part ]] && initrd_args+=(--piglit-part "$piglit_part")
[[ -n $python ]] && initrd_args+=(--python "$python")
((quiet)) && initrd_args+=(--output ttyS2)
"$here/mkinitramfs.sh" "${initrd_args[@]}"

cmdline="console=ttyS0 panic_on_warn=1 panic=-1 oops=panic softlockup_panic=1"
cmdline+=" hung_task_panic=1 printk.time=1"
# Two emulated NUMA nodes (CONFIG_NUMA_EMU, in both kernels; the debug kernel
# has no ACPI to read a QEMU -numa topology from), so that tests can migrate
# pages with move_pages(2).
cmdline+=" numa=fake=2"
((debug)) && cmdline+=" kmemleak=on"
read -r -a accel <<<"$("$here/accel.sh" "$kernel")"

# Two sockets of one core: SeaBIOS's MP table then lists both CPUs, which a
# kernel without ACPI needs to bring up the second one.
qemu=(qemu-system-x86_64 "${accel[@]}" -smp 2,sockets=2,cores=1,threads=1 -m 2G -nodefaults -display none
	-no-reboot -kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-serial "file:$console" -serial "file:$results")
((quiet)) && qemu+=(-serial "file:$output")
# The OpenCL ICD in the VM has no clang: its compile jobs go over ttyS3 to
# nvsvm-clc --serve on the host (tools/cl/compile.c), started here.
clc_pid=
if [[ -n $opencl ]]; then
	clc_sock=$workdir/clc.sock
	rm -f "$clc_sock"
	# Its results are kept for the next run, in a directory named by
	# the compiler: nvsvm-clc's code (its debug info names the tree it
	# was built in: stripped, a clone's is the same), its device library
	# and the LLVM tools. Unused for 14 days, a directory goes.
	clc_cache=()
	clc_root=${NVSVM_CACHE:-/var/cache/nvsvm}
	if mkdir -p "$clc_root" 2>/dev/null && [[ -w $clc_root ]] &&
		objcopy --strip-all --remove-section .note.gnu.build-id \
			"$opencl/nvsvm-clc" "$workdir/clc.code"; then
		clc_key=$({ cat "$workdir/clc.code" "$opencl"/nvsvm-cl/*
			    dpkg-query -W clang-14 lld-14 llvm-14 libclang-cpp14 \
				    libllvm14 2>&1; } | sha256sum | cut -c1-12)
		find "$clc_root" -maxdepth 1 -name 'clc-*' -mtime +14 \
			-exec rm -rf {} + 2>/dev/null || true
		if mkdir -p "$clc_root/clc-$clc_key"; then
			clc_cache=(--cache "$clc_root/clc-$clc_key")
		fi
	fi
	"$opencl/nvsvm-clc" --serve "$clc_sock" "${clc_cache[@]}" >"$workdir/clc.log" 2>&1 &
	clc_pid=$!
	for _ in $(seq 50); do
		[[ -S $clc_sock ]] && break
		sleep 0.1
	done
	qemu+=(-chardev "socket,id=clc,path=$clc_sock,reconnect=1"
		-device isa-serial,chardev=clc,index=3)
fi
stop_clc() {
	[[ -z $clc_pid ]] || kill "$clc_pid" 2>/dev/null || true
}
trap stop_clc EXIT
((quiet)) || echo "# $name: ${qemu[*]}"

# Follow a growing file on an open descriptor, handing complete lines to
# a function; a partial last line waits in a buffer for the next round.
drain() {
	local fd=$1 handler=$2 bufvar=$3 line
	while IFS= read -r -u "$fd" line; do
		line=${!bufvar}$line
		printf -v "$bufvar" '%s' ""
		"$handler" "${line%$'\r'}"
	done
	printf -v "$bufvar" '%s' "${!bufvar}$line"
}
show_console() {
	# Result lines are shown once, by show_result.
	[[ $1 =~ ^\[[^]]+\]\ (not\ )?ok\  ]] && return
	printf '  %s | %s\n' "$name" "$1"
}
show_output() {
	printf '%s\n' "$1"
}
# --quiet follows the script's own port; the console is only kept.
follow=show_console
((quiet)) && follow=show_output
show_result() {
	local l=$1
	# "[program] ok N description" becomes "ok NAME/program N description".
	if [[ $l =~ ^\[([^]]+)\]\ (not\ ok|ok)\ (.*)$ ]]; then
		report "${BASH_REMATCH[2]} $name/${BASH_REMATCH[1]} ${BASH_REMATCH[3]}"
	fi
}

bad='WARNING:|BUG:|KASAN|possible circular locking|inconsistent lock state'
bad+='|DEBUG_LOCKS_WARN|suspicious RCU|kmemleak: .*suspected memory leak'
bad+='|unreferenced object|Oops|Call Trace|blocked for more than|Kernel panic'
bad+='|general protection fault|soft lockup'

# A kernel that dies before it runs /init ran no code of the project: that
# is the emulated boot failing (seen once: a KASAN report from an interrupt
# during identify_boot_cpu() on the TCG debug kernel), not a test. Boot
# once more, and say so; a second such death is reported as a failure.
boots=0
while :; do
	boots=$((boots + 1))
	: >"$console"
	: >"$results"
	: >"$output"
	watched=$console
	((quiet)) && watched=$output
	exec {con_fd}<"$watched" {res_fd}<"$results"
	con_buf= res_buf=
	start=$SECONDS
	"${qemu[@]}" </dev/null >"$workdir/qemu.out" 2>&1 &
	qpid=$!

	timed_out=0
	while kill -0 "$qpid" 2>/dev/null; do
		drain "$con_fd" "$follow" con_buf
		drain "$res_fd" show_result res_buf
		if ((SECONDS - start > timeout_s)); then
			timed_out=1
			kill "$qpid" 2>/dev/null || true
			sleep 1
			kill -9 "$qpid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	wait "$qpid" 2>/dev/null || true
	drain "$con_fd" "$follow" con_buf
	drain "$res_fd" show_result res_buf
	[[ -n $con_buf ]] && "$follow" "$con_buf"
	[[ -n $res_buf ]] && show_result "$res_buf"
	exec {con_fd}<&- {res_fd}<&-
	if ((boots == 1 && !timed_out)) && [[ ! -s $results ]] &&
		! grep -q 'Run /init as init process' "$console"; then
		echo "# $name: the kernel died before /init ($(grep -m 1 -E "$bad" "$console" | tr -d '\r')); booting again"
		continue
	fi
	break
done
elapsed=$((SECONDS - start))

# The verdict on the run itself.
why=()
((timed_out)) && why+=("timed out after ${timeout_s}s")
tr -d '\r' <"$console" >"$workdir/console.txt"
tr -d '\r' <"$results" >"$workdir/results.txt"
if grep -E "$bad" "$workdir/console.txt" >"$workdir/bad.txt"; then
	why+=("kernel log: $(head -n 1 "$workdir/bad.txt")")
fi
if ! grep -q "^nvsvm-vm: SUCCESS $nonce rc=0\$" "$workdir/results.txt"; then
	if grep -q "^nvsvm-vm: SUCCESS $nonce " "$workdir/results.txt"; then
		why+=("guest tests reported failures")
	elif grep -q "^nvsvm-vm: FAILURE $nonce " "$workdir/results.txt"; then
		why+=("kmemleak reported leaks")
	else
		why+=("no success marker from the guest")
	fi
fi
if ((${#why[@]})); then
	if ((quiet)); then
		echo "# $name: the run failed; the kernel log ($console):"
		sed "s/^/  $name | /" "$workdir/console.txt"
	fi
	reasons=$(printf '%s; ' "${why[@]}")
	report "not ok $name/vm clean-run # ${reasons%; } (${elapsed}s, logs in $workdir)"
else
	report "ok $name/vm clean-run (${elapsed}s)"
fi

echo "# $name: $passed passed, $failed failed, $skipped skipped"
[[ -n $counts ]] && echo "$passed $failed $skipped" >"$counts"
if ((failed == 0)); then
	# A temporary work directory goes when the run passed; kept for a failure.
	((own_workdir)) && rm -rf "$workdir"
	exit 0
fi
exit 1
