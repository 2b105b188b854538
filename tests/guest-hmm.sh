#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own hmm-tests (built unmodified from this kernel's source by
# tests/hmm/build.sh, in the run as /tests/bin/hmm-tests, which run.sh
# leaves to this script) against nvsvm, in the test VM. Prints KTAP.
#  1. nvsvm: nvsvm_vgpu count=2 and the TEST-ONLY front end nvsvm_dmirror
#     (tests/hmm/), whose /dev/hmm_dmirror0 and 1 are served by /dev/nvsvm0
#     and 1. Each hmm-tests case is one result "nvsvm:NAME".
#  2. test_hmm: where this kernel has lib/test_hmm.ko (TEST_HMM=m, the
#     debug kernels), the same binary against it, "test_hmm:NAME".
# The last line is "# hmm-tests: N of M pass on nvsvm, N' of M on test_hmm".
# Starts and ends with none of these modules loaded.

bin=/tests/bin/hmm-tests
# shellcheck source=tests/ktap.sh
. "${0%/*}/ktap.sh"
need_vgpu $bin
if ! modinfo nvsvm_dmirror >/dev/null 2>&1; then
	echo "1..0 # SKIP nvsvm_dmirror (tests/hmm) is not in this run"
	exit 4
fi
tmp=$(mktemp -d)

# suite PEER: run hmm-tests, show its output as comments and turn each of
# its results into one of ours named PEER:NAME; "passed total" in $tmp/PEER.
suite() {
	peer=$1
	$bin >"$tmp/out" 2>&1
	echo "# $peer: hmm-tests exit status $?"
	sed 's/^/# /' "$tmp/out"
	last=
	pass=0
	total=0
	while IFS= read -r line; do
		case $line in
		"#  RUN "*)
			# shellcheck disable=SC2086 # split "#  RUN  NAME ..."
			set -- $line
			last=$3 ;;
		"ok "*"# SKIP"*)
			total=$((total + 1))
			ok "$peer:$last # SKIP${line#*# SKIP}" ;;
		"ok "*)
			total=$((total + 1))
			pass=$((pass + 1))
			ok "$peer:$last" ;;
		"not ok "*)
			total=$((total + 1))
			not_ok "$peer:$last" ;;
		esac
	done <"$tmp/out"
	echo "$pass $total" >"$tmp/$peer"
}

if modprobe nvsvm_vgpu count=2 && modprobe nvsvm_dmirror; then
	suite nvsvm
else
	not_ok "nvsvm # modprobe nvsvm_vgpu count=2, nvsvm_dmirror failed"
	echo "0 0" >"$tmp/nvsvm"
fi
for m in nvsvm_dmirror nvsvm_vgpu nvsvm; do
	! loaded $m || rmmod $m || not_ok "rmmod $m"
done

other="no test_hmm.ko"
if modinfo test_hmm >/dev/null 2>&1; then
	if modprobe test_hmm; then
		suite test_hmm
		read -r p t <"$tmp/test_hmm"
		other="$p of $t on test_hmm"
		rmmod test_hmm || not_ok "rmmod test_hmm"
	else
		not_ok "test_hmm # modprobe test_hmm failed"
	fi
fi
read -r p t <"$tmp/nvsvm"
echo "1..$n"
echo "# hmm-tests: $p of $t pass on nvsvm, $other"
rm -rf "$tmp"
[ "$fails" = 0 ]
