#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run piglit OpenCL tests one by one, as piglit's own runner would (from
# the piglit directory, each command alone), and print one line per test:
#   RESULT SECONDS NAME
# RESULT is what the test's last 'PIGLIT: {"result": "..."}' line says
# (pass, fail, skip, warn), crash when it printed none, timeout when it
# was killed, notrun when the run's time budget was spent before it
# started. POSIX sh: runs on the host (tools/scripts/piglit-reference.sh)
# and in the test VM's busybox (tests/guest-piglit.sh).
#
# usage: piglit-run.sh PIGLIT_DIR LIST [SECONDS_PER_TEST [BUDGET_SECONDS]]
#   LIST: "NAME<TAB>COMMAND ARGS" lines (tools/scripts/piglit-list.sh)
#   default 60 s per test and no budget; PIGLIT_LOG=FILE appends every
#   test's output

dir=${1:?usage: piglit-run.sh PIGLIT_DIR LIST [SECONDS]}
list=${2:?usage: piglit-run.sh PIGLIT_DIR LIST [SECONDS]}
limit=${3:-60}
budget=${4:-0}
log=${PIGLIT_LOG:-/dev/null}
tab=$(printf '\t')
out=$(mktemp)

cd "$dir" || exit 1
start=$(date +%s)
while IFS="$tab" read -r name cmd; do
	[ -n "$name" ] || continue
	t0=$(date +%s)
	if [ "$budget" != 0 ] && [ $((t0 - start)) -ge "$budget" ]; then
		echo "notrun 0 $name"
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
	{ echo "### $name: $cmd: $res (exit $status, ${t}s)"; cat "$out"; } >>"$log"
	echo "$res $t $name"
done <"$list"
rm -f "$out"
