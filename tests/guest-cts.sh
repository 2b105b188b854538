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
# CTS_TIMEOUT: seconds one binary may run (default 300); CTS_TOTAL: seconds
# all may run (default 540, within tests/run.sh's 600 per script): a
# binary left without time is one failure, "not run".
#
# /etc/nvsvm-cts, when the initramfs has it (tools/scripts/cts-check.sh,
# `make cts`, puts it in the CTS directory; tools/vm/mkinitramfs.sh copies
# it), is sourced and may set, in place of make check's choice:
#   CTS_BINARIES  the binaries to run, in order (default: this lane's half)
#   CTS_ALL=1     every subtest, each in a process of its own with
#                 CTS_TIMEOUT seconds (not the subsets below), and the
#                 seconds each took as a comment "# time binary/subtest N s"
#                 (and, before it, how many "not supported" lines it wrote);
#                 each binary has an equal share of the time left;
#                 CTS_SUBTESTS_binary="a b" runs only those of that binary;
#                 CTS_NUM_ELEMENTS=N passes the harness its num_elements (a
#                 smaller problem than the CTS's own, not a conformance run),
#                 CTS_NUM_ELEMENTS_binary=N for that binary only;
#                 CTS_ARGS_binary="..." its own options, after the rest
#   CTS_TIMEOUT, CTS_TOTAL  as above
#   CTS_PARAMS    nvsvm_vgpu's parameters in place of make check's
#                 (below); empty: none
# Starts and ends with neither module loaded.

. "${0%/*}/ktap.sh"

icd=/etc/OpenCL/vendors/nvsvm.icd
if [ ! -d /cts ] || [ ! -r $icd ]; then
	echo "1..0 # SKIP no /cts or $icd in this VM (run.sh --cts and --opencl; tools/scripts/build-cts.sh needs ../shared/third_party)"
	exit 4
fi
need_vgpu
tmp=$(mktemp -d)
CTS_BINARIES='' CTS_ALL='' CTS_PARAMS=default CTS_NUM_ELEMENTS=''
# shellcheck disable=SC1091 # written by tools/scripts/cts-check.sh
[ ! -r /etc/nvsvm-cts ] || . /etc/nvsvm-cts
budget=${CTS_TIMEOUT:-300}
total=${CTS_TOTAL:-540}
t0=$(cut -d. -f1 /proc/uptime)

# The subtests a binary runs: every one it lists (--help) that args_skip()
# does not name, or only those args_only() names. Under TCG a CTS binary
# runs for minutes: what is left out is what would not fit this script's
# time (docs/opencl.md, The Khronos CTS, says why each). CL_WIMPY_MODE
# shrinks the sizes of the tests that have a wimpy mode.
args_only() {
	case $1 in
	test_basic) echo arraycopy arrayreadwrite barrier constant \
		createkernelsinprogram enqueue_map_buffer fp2int hostptr if \
		int2fp intmath_int kernel_preprocessor_macros local_arg_def \
		local_kernel_def loop mri_one \
		mri_multiple pointer_cast work_item_functions wg_barrier ;;
	test_buffers) echo buffer_copy buffer_partial_copy buffer_read_int \
		buffer_read_async_int buffer_read_array_barrier_int \
		buffer_read_struct buffer_read_random_size ;;
	test_printf) echo int long char octal unsigned hexadecimal string \
		format_string vector address_space length_specifier float \
		return_value buffer_size ;;
	esac
}
args_skip() {
	case $1 in
	test_api) echo kernel_arg_multi_setup_random ;;
	esac
}
# every NAME: every subtest NAME lists.
every() {
	"/cts/$1" --help 2>/dev/null | sed -n '/^Test names:/,$p' |
		tail -n +2 | tr -s ' \t' '\n\n' | grep -v '^$'
}
args() {
	only=$(args_only "$1")
	if [ -n "$only" ]; then
		echo "$only"
		return
	fi
	skip=$(args_skip "$1")
	[ -n "$skip" ] || return 0
	every "$1" | grep -vxF "$(echo "$skip" | tr ' ' '\n')"
}

# The failures known and explained (docs/opencl.md): "binary/subtest
# reason". Each is reported as a skip with its reason; any other failure
# fails the run, and a known one that passes says so.
known() {
	cat <<'EOF_KNOWN'
test_basic/bufferreadwriterect the CTS's overlap check takes the buffer's width as row pitch where its random pitch is 0 (region's width): same-buffer regions that share bytes, CL_MEM_COPY_OVERLAP as the spec requires
EOF_KNOWN
}
known >"$tmp/known"
export CL_WIMPY_MODE=1

# A link coherent for atomics, in both lanes: test_svm builds its linked
# lists with atomic_inc on fine-grain memory, which the virtual GP100 on
# PCIe cancels where the kernel has no make_device_exclusive() (stock),
# as tests/guest-piglit.sh and the workloads load it too. On 7.3 the
# driver's device-exclusive atomics pass test_svm too (make cts:
# cts-check.sh --lane 7.3 --params ""), at 2 to 5 times the time of some
# subtests: more than this script has (docs/opencl.md).
params=sysmem_atomics=coherent
[ "$CTS_PARAMS" = default ] || params=$CTS_PARAMS
if ! modprobe nvsvm_vgpu $params; then
	not_ok "modprobe nvsvm_vgpu $params"
	echo "1..$n"
	rm -rf "$tmp"
	exit 1
fi

# Three lanes of make check share the binaries: stock 6.1 and 7.3 debug
# run test_svm, and each of the three its share of the rest. test_basic,
# a kernel per subtest, runs on 6.12, a kernel without KASAN: 43 s there
# in a first make check against 96 s on 7.3 debug, where nouveau builds
# beside it (docs/opencl.md).
case $(uname -r) in
7.*) mine="test_svm" ;;
6.12.*) mine="test_basic" ;;
*) mine="test_svm test_computeinfo test_mem_host_flags test_api test_events test_buffers test_printf" ;;
esac
[ -z "$CTS_BINARIES" ] || mine=$CTS_BINARIES
# run_cts NAME SECONDS [SUBTEST...]: run binary NAME on the subtests
# given (all it runs by default without), killed after SECONDS; its
# results, one line per subtest, appended to $tmp/res; exit status in
# $status.
run_cts() {
	name=$1 secs=$2
	shift 2
	(cd "$tmp" && timeout -s KILL "$secs" "/cts/$name" "$@" \
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
		# Whether s ends in t: a subtest whose last message has no
		# newline (test_events/event_release_before_done) ends on it.
		function ends(s, t) {
			return length(s) >= length(t) &&
				substr(s, length(s) - length(t) + 1) == t
		}
		/^[A-Za-z0-9_]+\.\.\.$/ {
			cur = substr($0, 1, length($0) - 3); why = ""; nocc = 0; next }
		cur != "" && ends($0, cur " passed") { print "P " cur; cur = ""; next }
		cur != "" && ends($0, cur " FAILED") { fail(cur); cur = ""; next }
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
		}' "$tmp/out" >"$tmp/res1"
	cat "$tmp/res1" >>"$tmp/res"
}

for name in $mine; do
	[ -x "/cts/$name" ] || continue
	left=$((total - ($(cut -d. -f1 /proc/uptime) - t0)))
	if [ "$left" -lt 10 ]; then
		not_ok "$name -- not run: the CTS's ${total}s are up"
		continue
	fi
	[ "$left" -lt "$budget" ] || left=$budget
	: >"$tmp/res"
	if [ -z "$CTS_ALL" ]; then
		# shellcheck disable=SC2046 # word splitting wanted
		run_cts "$name" "$left" $(args "$name")
	else
		# One process a subtest: one that hangs or crashes costs only
		# itself, and each one's time is known. Each binary has its
		# share of the time left: that left divided by the binaries
		# still to run, this one included.
		togo=$(echo "$mine" | tr ' ' '\n' | sed -n "/^$name\$/,\$p" | grep -c .)
		b0=$(cut -d. -f1 /proc/uptime)
		share=$(((total - (b0 - t0)) / togo))
		eval "subs=\${CTS_SUBTESTS_$name:-}"
		eval "ne=\${CTS_NUM_ELEMENTS_$name:-$CTS_NUM_ELEMENTS}"
		xa=""
		eval "xa=\${CTS_ARGS_$name:-}"
		[ -n "$subs" ] || subs=$(every "$name")
		for sub in $subs; do
			left=$((total - ($(cut -d. -f1 /proc/uptime) - t0)))
			mine_left=$((share - ($(cut -d. -f1 /proc/uptime) - b0)))
			[ "$mine_left" -gt "$left" ] || left=$mine_left
			if [ "$left" -lt 10 ]; then
				echo "F $sub -- not run: $name's share of the time (${share}s) is up" \
					>>"$tmp/res"
				continue
			fi
			[ "$left" -lt "$budget" ] || left=$budget
			s0=$(cut -d. -f1 /proc/uptime)
			# shellcheck disable=SC2086 # $xa: words wanted
			run_cts "$name" "$left" "$sub" ${ne:+"$ne"} $xa
			# Its own name for a skip or failure of the whole binary,
			# and a failure when it said nothing.
			sed -i "s|^\([SF]\) (all) |\1 $sub |" "$tmp/res"
			[ -s "$tmp/res1" ] || echo "F $sub -- no result, exit status $status" >>"$tmp/res"
			# A failure's last words, for the log.
			if ! grep -q '^[PS] ' "$tmp/res1"; then
				tail -n 6 "$tmp/out" | cut -c1-200 | sed "s|^|# $name/$sub: |"
			fi
			# What it passed without running: the harness's "not
			# supported" lines (an implicit pass), counted.
			ns=$(grep -c 'not supported' "$tmp/out")
			[ "$ns" = 0 ] || echo "# $name/$sub: $ns \"not supported\" lines, the first: $(grep -m 1 'not supported' "$tmp/out" | cut -c1-120)"
			echo "# time $name/$sub $(($(cut -d. -f1 /proc/uptime) - s0)) s (exit status $status)"
			[ "$status" != 137 ] || status=0
		done
	fi
	# Not the whole output: through the emulated serial port it took
	# longer than the tests (test_basic prints every kernel it builds).
	# What failed and its first error line are in the results.
	p=0 f=0 s=0
	k=0
	while read -r kind sub reason; do
		why=$(sed -n "s|^$name/$sub ||p" "$tmp/known" | head -n 1)
		case $kind in
		P) ok "$name/$sub${why:+ # known failure passes now: drop it}"
		   p=$((p + 1)) ;;
		F) if [ -n "$why" ]; then
			ok "$name/$sub # SKIP known failure: $why"
			k=$((k + 1))
		   else
			not_ok "$name/$sub${reason:+ $reason}"
			f=$((f + 1))
		   fi ;;
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
	echo "# $name: $p passed, $f failed, $k known failures, $s skipped (exit status $status)"
done

echo "1..$n"
rmmod nvsvm_vgpu nvsvm
rm -rf "$tmp"
[ "$fails" = 0 ]
