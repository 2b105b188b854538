#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own hmm-tests (built unmodified from this kernel's source by
# tests/hmm/build.sh, in the run as /tests/bin/hmm-tests, which run.sh
# leaves to this script) against nvsvm, in the test VM. Prints KTAP.
# Two programs of run.sh, each with its own time bound:
#  1. tests/guest-hmm-peer.sh (run first: sorted before this one), which
#     sources this script with HMM_PEER=test_hmm: where this kernel has
#     lib/test_hmm.ko (TEST_HMM=m, the debug kernels), the binary against
#     it: its cases as comments "# test_hmm: ok NAME" and one result, the
#     peer's figure (its failures are not nvsvm's); it leaves the figure in
#     $HMM_FIGURES, and test_hmm loaded (see there) without its /dev nodes.
#  2. this script: nvsvm_vgpu count=2 and the TEST-ONLY front end
#     nvsvm_dmirror (tests/hmm/), whose /dev/hmm_dmirror0 and 1 are served
#     by /dev/nvsvm0 and 1. Each hmm-tests case is one result "nvsvm:NAME";
#     the few that fail by a documented difference from dmirror
#     (known_difference) are expected failures, shown as skips.
# As the kernel's run_vmtests.sh does, a few huge pages are reserved for
# the run (anon_write_hugetlbfs, compound), and released after. After each
# case a comment "#  TIME  NAME S s" gives the seconds it took; hmm-tests
# as a whole is stopped after HMM_BUDGET seconds (below run.sh's 600 s).
# The last line of this script is "# hmm-tests: N of M pass on nvsvm, N' of
# M on test_hmm", the line before it the seconds each suite took.
# Starts and ends with none of nvsvm's modules loaded.

bin=/tests/bin/hmm-tests
peer=${HMM_PEER:-nvsvm}
budget=${HMM_BUDGET:-540}
figures=${HMM_FIGURES:-/tmp/hmm-tests.figures}
# shellcheck source=tests/ktap.sh
. "${0%/*}/ktap.sh"
need_vgpu $bin
# has MODULE: is MODULE.ko installed for this kernel (busybox modinfo
# succeeds for any name)?
has() {
	[ -n "$(find "/lib/modules/$(uname -r)" -name "$1.ko*" 2>/dev/null)" ]
}

if [ "$peer" = test_hmm ]; then
	rm -f "$figures"
	if ! has test_hmm; then
		echo "1..0 # SKIP no test_hmm.ko for this kernel"
		exit 4
	fi
elif ! has nvsvm_dmirror; then
	echo "1..0 # SKIP nvsvm_dmirror (tests/hmm) is not in this run"
	exit 4
fi
tmp=$(mktemp -d)

uptime_s() {
	cut -d. -f1 /proc/uptime
}

# Hundredths of a second since boot.
uptime_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}

# kill_case: SIGKILL the running case, the one child of hmm-tests (whose
# pid is in $tmp/pid): the harness reports it failed and goes on.
kill_case() {
	read -r main <"$tmp/pid"
	for p in /proc/[0-9]*; do
		read -r _ _ _ pp _ 2>/dev/null <"$p/stat" || continue
		[ "$pp" != "$main" ] || kill -9 "${p#/proc/}" 2>/dev/null
	done
}

# unloop: copy hmm-tests' output without repeated lines. Once an ASSERT of
# a case failed, 6.1's kselftest_harness.h (which leaves its trigger set)
# fails the fixture's teardown assertion again and again until the case's
# 30 s timeout: when the running case's own "NAME:Expected" line came
# $loops times in a row, end the case. (A later harness may print a failed
# case's line two or three times, from stdio buffers copied by its fork,
# even after the next case started: that is no loop.) After each case's
# result, a line "#  TIME  NAME S s" with the seconds since its RUN line.
loops=10
unloop() {
	prev=
	reps=0
	case=
	t0=0
	while IFS= read -r line; do
		case $line in
		"#  RUN "*)
			t0=$(uptime_cs)
			case=${line#*RUN }
			case=${case#"${case%%[! ]*}"}
			case=${case%% *} ;;
		"ok "* | "not ok "*)
			if [ -n "$case" ]; then
				d=$(($(uptime_cs) - t0))
				echo "$line"
				printf '#  TIME  %s %d.%02d s\n' "$case" \
					$((d / 100)) $((d % 100))
				case=
				prev=$line
				continue
			fi ;;
		esac
		if [ "$line" = "$prev" ]; then
			reps=$((reps + 1))
			case $reps:$line in
			$loops:*":${case##*.}:Expected "*) kill_case ;;
			esac
			continue
		fi
		prev=$line
		reps=0
		echo "$line"
	done
}

# A benchmark, not a test: 7.3's benchmark_thp_migration times migrations
# until its own 120 s timeout under TCG, on either peer. Where hmm-tests
# has it, its harness takes -T to leave a case out (6.1's, without the
# case, takes no options); it stands as one skip.
bench=benchmark_thp_migration
excl=
! grep -q $bench $bin || excl="-T $bench"

# known_difference NAME: the reason a case of hmm-tests fails on nvsvm by
# design (docs/testing.md, "Semantic differences from dmirror"), or false.
known_difference() {
	case $1 in
	hmm.hmm_device_private.exclusive*)
		# No exclusive access to take (no CONFIG_DEVICE_PRIVATE, so
		# no make_device_exclusive): a PCIe GPU's atomics on system
		# memory are refused, so EXCLUSIVE's GPU atomics fail.
		if ! grep -q ' make_device_exclusive' /proc/kallsyms &&
		   [ "$(cat /sys/module/nvsvm_vgpu/parameters/sysmem_atomics 2>/dev/null)" = pcie ]; then
			echo "no exclusive access on this kernel: GPU atomics on system memory over PCIe are refused"
		else
			return 1
		fi ;;
	hmm.hmm_device_private.migrate_anon_huge_fault)
		# 2 MiB VRAM pages (NVSVM_CAP_VRAM_2M) need the kernel's large
		# device-private folios, whose migrate_device_pfns() nvsvm's
		# build-time probe needs too (7.3): there the case must pass.
		if ! grep -q ' migrate_device_pfns$' /proc/kallsyms; then
			echo "nvsvm's VRAM pages are base pages on this kernel (no large device-private folios)"
		else
			return 1
		fi ;;
	*)
		return 1 ;;
	esac
}

# result PEER LINE: one of hmm-tests' results as one of ours. On nvsvm a
# result PEER:NAME; a case that fails by a known difference is an expected
# failure, shown as a skip with its reason (it passes as any other when it
# passes). On test_hmm a comment: the peer's figure is not nvsvm's test.
hmm_result() {
	if [ "$1" = test_hmm ]; then
		echo "# $2"
	elif [ "${2%% *}" = ok ]; then
		ok "${2#ok }"
	else
		not_ok "${2#not ok }"
	fi
}

# suite PEER: run hmm-tests, show its output as comments and turn each of
# its results into a result of PEER:NAME (hmm_result); "passed total" in
# $tmp/PEER. Without device-private memory (a kernel without
# CONFIG_DEVICE_PRIVATE), nvsvm's MIGRATE is EOPNOTSUPP: a case that fails
# on that errno (-95) is a skip there.
suite() {
	peer=$1
	t0=$(uptime_s)
	{
		# shellcheck disable=SC2086 # $excl: options or nothing
		timeout -s KILL "$budget" $bin $excl 2>&1 &
		echo $! >"$tmp/pid"
		wait $!
		echo $? >"$tmp/status"
	} | unloop >"$tmp/out"
	status=$(cat "$tmp/status")
	echo "# $peer: hmm-tests exit status $status"
	secs="$peer $(($(uptime_s) - t0))s"
	sed 's/^/# /' "$tmp/out"
	last=
	eop=
	pass=0
	total=0
	while IFS= read -r line; do
		case $line in
		"#  RUN "*)
			# shellcheck disable=SC2086 # split "#  RUN  NAME ..."
			set -- $line
			last=$3
			skip=
			eop= ;;
		"#"*"  SKIP  "*)
			# 6.1 reports a case that SKIP()s in its set-up as ok.
			skip=${line#*SKIP}
			skip=${skip#"${skip%%[! ]*}"} ;;
		"#"*"Expected "*"(-95)"*)
			eop=1 ;;
		"not ok "*)
			total=$((total + 1))
			if [ -n "$eop" ]; then
				hmm_result "$peer" "ok $peer:$last # SKIP no device-private memory on this kernel (MIGRATE: EOPNOTSUPP)"
			elif [ "$peer" = nvsvm ] &&
			     why=$(known_difference "$last"); then
				hmm_result "$peer" "ok $peer:$last # SKIP expected failure, a difference from dmirror: $why"
			else
				hmm_result "$peer" "not ok $peer:$last"
			fi ;;
		"ok "*"# SKIP"*)
			total=$((total + 1))
			hmm_result "$peer" "ok $peer:$last # SKIP${line#*# SKIP}" ;;
		"ok "*)
			total=$((total + 1))
			if [ -n "$skip" ]; then
				hmm_result "$peer" "ok $peer:$last # SKIP $skip"
			else
				pass=$((pass + 1))
				hmm_result "$peer" "ok $peer:$last"
			fi ;;
		esac
	done <"$tmp/out"
	if [ -n "$excl" ]; then
		total=$((total + 1))
		hmm_result "$peer" "ok $peer:$bench # SKIP a benchmark (120 s under TCG), left out with -T"
	fi
	[ "$status" != 137 ] ||
		hmm_result "$peer" "not ok $peer:hmm-tests # stopped after ${budget}s"
	echo "$pass $total" >"$tmp/$peer"
}

hugepages=/proc/sys/vm/nr_hugepages
huge0=
if [ -w $hugepages ]; then
	huge0=$(cat $hugepages)
	echo 2 >$hugepages
fi

if [ "$peer" = test_hmm ]; then
	if modprobe test_hmm; then
		suite test_hmm
		read -r p t <"$tmp/test_hmm"
		# One result: the peer ran; its cases are comments above.
		ok "test_hmm:hmm-tests # $p of $t pass on test_hmm"
		echo "$p of $t on test_hmm" >"$figures"
		echo ", $secs" >>"$figures"
		# test_hmm stays loaded: 6.1's (and 6.12's) lib/test_hmm.c
		# never puts its devices (7.3's dmirror_device_remove() does,
		# put_device() after cdev_device_del()), so its rmmod leaks
		# their names and device_private, which kmemleak would blame
		# on the run. Its device nodes go, for nvsvm_dmirror's.
		rm -f /dev/hmm_dmirror[0-9]*
	else
		not_ok "test_hmm # modprobe test_hmm failed"
	fi
	echo "# hmm-tests took $secs"
else
	if [ -e /dev/hmm_dmirror0 ]; then
		not_ok "nvsvm # /dev/hmm_dmirror0 exists before nvsvm_dmirror is loaded"
		echo "0 0" >"$tmp/nvsvm"
	elif modprobe nvsvm_vgpu count=2 && modprobe nvsvm_dmirror; then
		suite nvsvm
		# How the EXCLUSIVE cases' GPU atomics were served over the
		# run (a THP's PMD split: atomic_split; moved to VRAM:
		# atomic_vram), GPU 0's counters.
		d=/sys/kernel/debug/nvsvm/nvsvm0
		for c in atomic_exclusive atomic_split atomic_vram; do
			[ ! -r $d/$c ] || echo "# nvsvm0 $c $(cat $d/$c)"
		done
	else
		not_ok "nvsvm # modprobe nvsvm_vgpu count=2, nvsvm_dmirror failed"
		echo "0 0" >"$tmp/nvsvm"
	fi
	for m in nvsvm_dmirror nvsvm_vgpu nvsvm; do
		! loaded $m || rmmod $m || not_ok "rmmod $m"
	done
	other="no test_hmm.ko"
	peer_secs=
	if [ -s "$figures" ]; then
		{ read -r other; read -r peer_secs; } <"$figures"
	fi
	read -r p t <"$tmp/nvsvm"
	echo "# hmm-tests took $secs$peer_secs"
	echo "# hmm-tests: $p of $t pass on nvsvm, $other"
fi
[ -z "$huge0" ] || echo "$huge0" >$hugepages
echo "1..$n"
rm -rf "$tmp"
[ "$fails" = 0 ]
