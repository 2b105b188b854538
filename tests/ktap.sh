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
# modules and reports NAME ok if that worked, and leaves none loaded.

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
