#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The owed replay's fallback, pinned (issue 32's mutation check): an
# overflow whose only entries went to an area whose work waits in a page-in
# a FUSE server holds, while another process's access was dropped, is
# replayed by nvsvm_fault_owed_work() alone. In the test VM with the
# modules unloaded: nvsvm_vgpu is loaded with a 4-entry buffer (3 usable)
# and entries that become readable 100 ms after the driver read PUT, and
# tests/blocking's owed_replay_behind_held_pagein (which skips with the
# default parameters) runs on it: B's GPU sum must complete exactly within
# its 20 s EXEC, and overflows must have dropped its accesses. Starts and
# ends with nothing loaded. KTAP.

bin=/tests/bin/blocking
params="fault_entries=4 fault_valid_delay_us=100000"
case=owed_replay_behind_held_pagein

. "${0%/*}/ktap.sh"

need_vgpu "$bin"
need_fuse

out=$(mktemp)
echo "1..3"

# 1: the tiny, slow buffer.
# shellcheck disable=SC2086 # word splitting wanted
if modprobe nvsvm_vgpu $params &&
	[ "$(cat /sys/module/nvsvm_vgpu/parameters/fault_entries)" = 4 ]; then
	ok "modprobe-$(echo "$params" | tr ' =' '-_')"
else
	not_ok "modprobe nvsvm_vgpu $params"
	for m in nvsvm_vgpu nvsvm; do loaded $m && rmmod $m; done
	exit 1
fi

# 2: B's dropped access is replayed by the fallback.
KTAP_CASES=$case "$bin" >"$out" 2>&1
st=$?
sed 's/^/# /' "$out"
if [ $st = 0 ] && grep -q "^ok [0-9]* blocking\.$case\$" "$out"; then
	ok "$case"
else
	not_ok "$case (exit $st)"
fi

# 3: unload.
unload_ok rmmod
rm -f "$out"
[ "$fails" = 0 ]
