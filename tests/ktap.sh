#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# KTAP helpers of the guest scripts (tests/guest-*.sh), sourced with
#   . "${0%/*}/ktap.sh"
# ok NAME / not_ok NAME print the next result and count it ($n, $fails);
# result NAME ERRORFILE is ok when ERRORFILE is empty, else shows it as
# diagnostics and is not ok (then empties it); loaded MODULE tells whether
# a module is loaded; need_vgpu [PROGRAM] skips the whole script (exit 4)
# unless nvsvm_vgpu is installed for this kernel and PROGRAM is in this run;
# need_fuse skips it unless the kernel has FUSE; unload_ok NAME removes both
# modules and reports NAME ok if that worked, and leaves none loaded;
# wait_pid PID SECONDS is 0 when PID ended (or is a zombie) within SECONDS;
# hold_start VAR BIN DIR OUT NAME loads nvsvm_vgpu (exits when it cannot),
# starts the helper mode VAR=DIR of BIN (output in OUT, its pid in
# $helper), waits up to 30 s for DIR/ready and reports NAME ok when the
# helper wrote 137 there (its process A ended by SIGKILL); hold_end DIR OUT
# creates DIR/answer and reports helper-done when the helper then ends
# with 0 within 60 s.

n=0
fails=0

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n $1"
}

result() {
	if [ -s "$2" ]; then
		sed 's/^/# /' "$2"
		not_ok "$1"
	else
		ok "$1"
	fi
	: >"$2"
}

loaded() {
	grep -q "^$1 " /proc/modules
}

need_vgpu() {
	if ! modinfo nvsvm_vgpu >/dev/null 2>&1; then
		echo "1..0 # SKIP nvsvm_vgpu is not installed for $(uname -r)"
		exit 4
	fi
	if [ -n "$1" ] && [ ! -x "$1" ]; then
		echo "1..0 # SKIP $1 is not in this run"
		exit 4
	fi
}

need_fuse() {
	modprobe -q fuse 2>/dev/null || true
	if [ ! -c /dev/fuse ]; then
		echo "1..0 # SKIP no /dev/fuse in this kernel"
		exit 4
	fi
}

unload_ok() {
	if rmmod nvsvm_vgpu && rmmod nvsvm; then
		ok "$1"
	else
		not_ok "$1"
	fi
	for m in nvsvm_vgpu nvsvm; do loaded $m && rmmod $m; done
}

wait_pid() {
	t=0
	while [ -d "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; do
		[ $t -ge $(($2 * 10)) ] && return 1
		usleep 100000
		t=$((t + 1))
	done
	return 0
}

hold_start() {
	if ! modprobe nvsvm_vgpu; then
		not_ok "modprobe nvsvm_vgpu"
		exit 1
	fi
	env "$1=$3" "$2" >"$4" 2>&1 &
	helper=$!
	t=0
	while [ ! -e "$3/ready" ] && [ -d "/proc/$helper" ] && [ $t -lt 300 ]; do
		usleep 100000
		t=$((t + 1))
	done
	if [ "$(cat "$3/ready" 2>/dev/null)" = 137 ]; then
		ok "$5"
	else
		sed 's/^/# /' "$4"
		not_ok "$5 (ready: $(cat "$3/ready" 2>/dev/null))"
	fi
}

hold_end() {
	touch "$1/answer"
	if wait_pid $helper 60 && wait $helper; then
		ok "helper-done"
	else
		sed 's/^/# /' "$2"
		not_ok "helper-done"
	fi
}
