#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run piglit OpenCL tests, each command alone from the piglit directory as
# piglit's own runner would, and print one line per test, in the list's
# order:
#   RESULT SECONDS NAME
# RESULT is what the test's last 'PIGLIT: {"result": "..."}' line says
# (pass, fail, skip, warn), crash when it printed none, timeout when it
# was killed, notrun when the run's time budget was spent before it
# started. With JOBS > 1, JOBS streams run at once, stream k taking every
# JOBS-th test from the k-th: piglit's own runner runs tests concurrently
# too, and a test VM's two vCPUs idle half the time with one stream (a
# test waits on the host's compiler). POSIX sh: runs on the host
# (tools/scripts/piglit-reference.sh) and in the test VM's busybox
# (tests/guest-piglit.sh).
#
# usage: piglit-run.sh PIGLIT_DIR LIST [SECONDS_PER_TEST [BUDGET_SECONDS [JOBS]]]
#   LIST: "NAME<TAB>COMMAND ARGS" lines (tools/scripts/piglit-list.sh)
#   default 60 s per test, no budget, one stream; PIGLIT_LOG=FILE
#   appends every test's output

dir=${1:?usage: piglit-run.sh PIGLIT_DIR LIST [SECONDS [BUDGET [JOBS]]]}
list=${2:?usage: piglit-run.sh PIGLIT_DIR LIST [SECONDS [BUDGET [JOBS]]]}
limit=${3:-60}
budget=${4:-0}
jobs=${5:-1}
log=${PIGLIT_LOG:-/dev/null}
tab=$(printf '\t')
tmp=$(mktemp -d)

cd "$dir" || exit 1
start=$(date +%s)

# stream K: the tests at positions K, K + JOBS, ... of the list (from 0),
# each result line prefixed with its position, each test's output
# appended to the stream's own log.
stream() {
	k=$1 n=-1 out=$tmp/out.$1
	while IFS="$tab" read -r name cmd; do
		[ -n "$name" ] || continue
		n=$((n + 1))
		[ $((n % jobs)) = "$k" ] || continue
		t0=$(date +%s)
		if [ "$budget" != 0 ] && [ $((t0 - start)) -ge "$budget" ]; then
			echo "$n notrun 0 $name"
			continue
		fi
		# shellcheck disable=SC2086 # the command and its arguments
		timeout -s KILL "$limit" ./bin/$cmd >"$out" 2>&1 </dev/null
		status=$?
		t=$(($(date +%s) - t0))
		res=$(sed -n 's/^PIGLIT: {"result": "\([a-z]*\)".*/\1/p' "$out" | tail -n 1)
		if [ "$status" = 137 ]; then
			res=timeout
		elif [ -z "$res" ]; then
			res=crash
		fi
		{ echo "### $name: $cmd: $res (exit $status, ${t}s)"; cat "$out"; } >>"$tmp/log.$k"
		echo "$n $res $t $name"
	done <"$list" >"$tmp/res.$k"
}

k=0
while [ "$k" -lt "$jobs" ]; do
	stream "$k" &
	k=$((k + 1))
done
wait
cat "$tmp"/log.* >>"$log" 2>/dev/null
sort -n -k1,1 "$tmp"/res.* | cut -d' ' -f2-
rm -rf "$tmp"
