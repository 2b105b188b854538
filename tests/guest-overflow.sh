#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fault-buffer overflow storm, in the test VM with the modules unloaded.
#
# With the default parameters each GPC has one fault outstanding and the
# 1024-entry buffer never fills. Here nvsvm_vgpu is loaded with a 4-entry
# buffer (3 usable: one slot stays free between PUT and GET) and 32 GPCs, and
# tests/teardown's storm (NVSVM_TEARDOWN_STORM=1) writes 256 KiB of never
# touched memory from every GPC at once. The model drops the faults that
# find the buffer full and sets OVERFLOW; the access stays stalled and
# faults again after the next replay. Asserted: every word is written (no
# fault lost), the core's and the model's overflow counters moved, no more
# replays than batches, no cancel. Then the teardowns that leave stale
# faults (CHAN_DESTROY, SIGKILL, exit during a storm) run on that
# overflowing buffer. Starts and ends with nothing loaded. KTAP.

bin=/tests/bin/teardown
params="fault_entries=4 gpcs=32"
dbg=/sys/kernel/debug

. "${0%/*}/ktap.sh"

counter() {
	cat "$1" 2>/dev/null || echo -1
}

need_vgpu "$bin"

out=$(mktemp)
echo "1..5"

# 1: the tiny buffer and many GPCs.
if modprobe nvsvm_vgpu $params &&
	[ "$(cat /sys/module/nvsvm_vgpu/parameters/fault_entries)" = 4 ] &&
	[ "$(cat /sys/module/nvsvm_vgpu/parameters/gpcs)" = 32 ] &&
	[ -c /dev/nvsvm0 ]; then
	ok "modprobe-$(echo "$params" | tr ' =' '-_')"
else
	not_ok "modprobe nvsvm_vgpu $params"
	for m in nvsvm_vgpu nvsvm; do loaded $m && rmmod $m; done
	exit 1
fi

# 2: the storm: every word right, overflows seen, replays <= batches.
core0=$(counter $dbg/nvsvm/nvsvm0/overflows)
model0=$(counter $dbg/nvsvm_vgpu/gpu0/overflows)
NVSVM_TEARDOWN_STORM=1 "$bin" >"$out" 2>&1
st=$?
sed 's/^/# /' "$out"
if [ $st = 0 ] && grep -q '^ok 1 \(slow\.\)\{0,1\}storm_overflow$' "$out"; then
	ok "storm-32-gpcs-4-entries-no-fault-lost"
else
	not_ok "storm-32-gpcs-4-entries-no-fault-lost (exit $st)"
fi

# 3: both sides saw the overflow: the model dropped faults, the core read
# OVERFLOW (and the storm still wrote every word).
core1=$(counter $dbg/nvsvm/nvsvm0/overflows)
model1=$(counter $dbg/nvsvm_vgpu/gpu0/overflows)
echo "# overflows: core $core0 -> $core1, model $model0 -> $model1"
if [ "$core0" -ge 0 ] && [ "$core1" -gt "$core0" ] &&
	[ "$model0" -ge 0 ] && [ "$model1" -gt "$model0" ]; then
	ok "overflow-counters-moved"
else
	not_ok "overflow-counters-moved"
fi

# 4: the teardowns that leave stale faults, on the overflowing buffer.
cases=chan_destroy_during_exec,sigkill_mid_storm,exit_mid_storm
NVSVM_TEARDOWN_CASES=$cases "$bin" >"$out" 2>&1
st=$?
sed 's/^/# /' "$out"
if [ $st = 0 ] && [ "$(grep -c '^ok ' "$out")" = 3 ]; then
	ok "stale-fault-teardowns-on-tiny-buffer"
else
	not_ok "stale-fault-teardowns-on-tiny-buffer (exit $st)"
fi

# 5: unload.
if rmmod nvsvm_vgpu && rmmod nvsvm; then
	ok "rmmod"
else
	not_ok "rmmod"
fi
for m in nvsvm_vgpu nvsvm; do loaded $m && rmmod $m; done
rm -f "$out"
[ "$fails" = 0 ]
