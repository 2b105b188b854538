#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module lifetime with the device in use, in the test VM with the modules
# unloaded. An open file of /dev/nvsvmN pins nvsvm (its file operations'
# owner) and the provider that registered the GPU (nvsvm_vgpu: open takes
# a reference on gpu->owner), so both rmmods fail with EBUSY until the last
# file is closed, also while GPU work is running; then both unload. Then
# cycles of modprobe (various parameters), verified GPU work (teardown's
# hold mode), counters back to zero, rmmod. Starts and ends with nothing
# loaded. KTAP.

bin=/tests/bin/teardown
dbg=/sys/kernel/debug/nvsvm/nvsvm0
cycles=5

. "${0%/*}/ktap.sh"

unload_all() {
	for m in nvsvm_vgpu nvsvm; do
		loaded $m && rmmod $m
	done
}

# both_refused WHAT: rmmod of either module fails and both stay loaded.
both_refused() {
	for m in nvsvm_vgpu nvsvm; do
		if rmmod $m 2>/dev/null; then
			echo "$1: rmmod $m succeeded" >>"$err"
		fi
		loaded $m || echo "$1: $m no longer loaded" >>"$err"
	done
	[ -c /dev/nvsvm0 ] || echo "$1: /dev/nvsvm0 gone" >>"$err"
}

# zero_counters WHAT: no page tables and no mapped pages left.
zero_counters() {
	for c in pt_bytes pages_mapped; do
		v=$(cat $dbg/$c 2>/dev/null)
		[ "$v" = 0 ] || echo "$1: $c is '$v', expected 0" >>"$err"
	done
}

need_vgpu "$bin"

err=$(mktemp)
tmp=$(mktemp -d)
echo "1..6"

# 1: a clean start.
for m in nvsvm_vgpu nvsvm; do
	loaded $m && echo "$m is loaded before the test" >>"$err"
done
result "nothing-loaded-at-start" "$err"

# 2: an open file refuses both rmmods; after close both unload.
if modprobe nvsvm_vgpu; then
	exec 3</dev/nvsvm0
	both_refused "fd open"
	exec 3<&-
	rmmod nvsvm_vgpu || echo "after close: rmmod nvsvm_vgpu failed" >>"$err"
	rmmod nvsvm || echo "after close: rmmod nvsvm failed" >>"$err"
else
	echo "modprobe nvsvm_vgpu failed" >>"$err"
fi
unload_all
result "rmmod-refused-with-fd-open-then-unloads" "$err"

# 3-4: the same while a process maps, faults and checks GPU work (hold
# mode), which must go on unharmed and end exact.
if modprobe nvsvm_vgpu; then
	mkfifo "$tmp/in"
	NVSVM_TEARDOWN_HOLD=1 "$bin" <"$tmp/in" >"$tmp/out" 2>&1 &
	pid=$!
	exec 4>"$tmp/in"
	i=0
	while ! grep -q 'hold: ready' "$tmp/out" && [ $i -lt 3000 ]; do
		kill -0 $pid 2>/dev/null || break
		usleep 100000
		i=$((i + 1))
	done
	if grep -q 'hold: ready' "$tmp/out"; then
		both_refused "GPU work running"
		both_refused "GPU work running, again"
	else
		echo "the hold program never became ready" >>"$err"
	fi
	exec 4>&-
	wait $pid
	st=$?
	result "rmmod-refused-during-gpu-work" "$err"
	sed 's/^/# /' "$tmp/out"
	if [ $st != 0 ] || ! grep -q '^ok 1 \(slow\.\)\{0,1\}hold$' "$tmp/out"; then
		echo "hold program: exit $st" >>"$err"
	fi
	zero_counters "after the hold program"
	rmmod nvsvm_vgpu || echo "rmmod nvsvm_vgpu failed" >>"$err"
	rmmod nvsvm || echo "rmmod nvsvm failed" >>"$err"
else
	echo "modprobe nvsvm_vgpu failed" >>"$err"
	result "rmmod-refused-during-gpu-work" "$err"
fi
unload_all
result "gpu-work-exact-then-unloads" "$err"

# 5: cycles of modprobe, work, rmmod with various parameters.
i=1
while [ $i -le $cycles ]; do
	case $i in
	1) p="" ;;
	2) p="gpcs=1 fault_entries=2" ;;
	3) p="gpcs=8 fault_entries=8 tlb_entries=1" ;;
	4) p="count=2" ;;
	*) p="gpcs=32 fault_entries=16" ;;
	esac
	if modprobe nvsvm_vgpu $p; then
		NVSVM_TEARDOWN_HOLD=1 "$bin" </dev/null >"$tmp/out" 2>&1
		st=$?
		if [ $st != 0 ] || ! grep -q '^ok 1 \(slow\.\)\{0,1\}hold$' "$tmp/out"; then
			sed 's/^/# /' "$tmp/out"
			echo "cycle $i ($p): work exit $st" >>"$err"
		fi
		zero_counters "cycle $i ($p)"
		rmmod nvsvm_vgpu || echo "cycle $i: rmmod nvsvm_vgpu failed" >>"$err"
		rmmod nvsvm || echo "cycle $i: rmmod nvsvm failed" >>"$err"
	else
		echo "cycle $i: modprobe nvsvm_vgpu $p failed" >>"$err"
	fi
	unload_all
	i=$((i + 1))
done
result "modprobe-work-rmmod-x$cycles" "$err"

# 6: nothing left behind.
for m in nvsvm_vgpu nvsvm; do
	loaded $m && echo "$m still in /proc/modules" >>"$err"
	[ -e /sys/module/$m ] && echo "/sys/module/$m still exists" >>"$err"
done
ls /dev | grep -q '^nvsvm[0-9]' && echo "left in /dev: $(ls /dev | grep '^nvsvm')" >>"$err"
result "nothing-left-behind" "$err"

rm -rf "$err" "$tmp"
[ "$fails" = 0 ]
