#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Device-private VRAM with a small VRAM (nvsvm_vgpu vram_mb=4), in the test
# VM. Starts and ends with neither module loaded. Prints KTAP.
#  1. `migrate small-vram`: migrating four times the VRAM evicts the chunks
#     used least recently, data intact (tests/migrate.c oversubscription,
#     eviction_keeps_writes, lru_keeps_faulted) and the basic cases again.
#  2. Unload with pages in VRAM: a process migrates pages, closes the
#     device and keeps running; rmmod nvsvm_vgpu moves its pages back to
#     system memory, the process then finds its data intact.
#  3. `migrate odd-vram` with vram_mb=3: eviction when the last 2 MiB chunk
#     of VRAM is partial (tests/migrate.c evict_partial_chunk).
#  4. Unload with the background evictor busy: vram_mb=16, nvsvm.evict_low
#     7 (keep 14 of its 16 MiB free); `migrate hold-evict` moves 8 MiB to
#     VRAM and runs rmmod nvsvm_vgpu as soon as the move returns; the
#     unload neither hangs nor leaks, the data is intact. The recency
#     sampler runs too (nvsvm.sample_chunks 8, sample_ms 1): the unload
#     stops it and waits for its pass (2026-12-06).
#  5. Unload with a 2 MiB VRAM page when no system THP can be had
#     (NVSVM_CAP_VRAM_2M, else skipped): the holder moves a THP to VRAM as
#     one 2 MiB page (`migrate hold-2m`) and closes the device; debugfs
#     nvsvm_test/fail_thp fails every THP allocation; rmmod nvsvm_vgpu
#     still completes, moving the page back through the process as 4 KiB
#     pages (the kernel log says so once), THP allocations were asked for
#     and failed, and the holder finds every byte intact.
# Skips where GET_INFO has no NVSVM_CAP_DEVICE_PRIVATE (a kernel without
# CONFIG_DEVICE_PRIVATE).

bin=/tests/bin/migrate
dbg=/sys/kernel/debug/nvsvm/nvsvm0

if ! modinfo nvsvm_vgpu >/dev/null 2>&1 || [ ! -x $bin ]; then
	echo "1..0 # SKIP nvsvm_vgpu or $bin is missing"
	exit 4
fi
if ! modprobe nvsvm_vgpu vram_mb=4; then
	echo "1..0 # SKIP modprobe nvsvm_vgpu vram_mb=4 failed"
	exit 4
fi
tmp=$(mktemp -d)
# Stream the program's KTAP as comments; keep its exit status.
{ $bin small-vram 2>&1; echo $? >"$tmp/status"; } | tee "$tmp/small" |
	sed 's/^/# /'
status=$(cat "$tmp/status")
if [ "$status" = 4 ]; then
	rmmod nvsvm_vgpu nvsvm
	echo "1..0 # SKIP $(sed -n 's/.*# SKIP //p' "$tmp/small" | head -n 1)"
	rm -rf "$tmp"
	exit 4
fi
# The counters the cases moved (evictions: oversubscription).
for c in migrated_to_vram migrated_to_sysmem evictions evicted_pages \
	evictions_bg evictor_runs ns_evict_sync thrashing thrash_skips; do
	echo "# $c $(cat $dbg/$c 2>/dev/null)"
done
fails=0
# tap "N NAME" STATUS: the KTAP line of a result, counted in $fails.
tap() {
	if [ "$2" = 0 ]; then
		echo "ok $1"
	else
		echo "not ok $1 # exit status $2"
		fails=$((fails + 1))
	fi
}
echo "1..5"
tap "1 small-vram" "$status"

# start_holder MODE OUT: `migrate MODE` in the background (its pid in
# $pid), output to OUT; returns when it printed "ready" or "skip", exited,
# or after 120 s.
start_holder() {
	$bin "$1" >"$2" 2>&1 &
	pid=$!
	i=0
	while ! grep -q '^ready\|^skip' "$2" && [ $i -lt 120 ] &&
		kill -0 $pid 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
}

# 2: the holder migrates, closes and waits for SIGUSR1.
start_holder hold "$tmp/hold"
err=
if ! grep -q '^ready' "$tmp/hold"; then
	err="the holder did not get ready"
else
	used=$(cat $dbg/vram_pages 2>/dev/null)
	want=$(sed -n 's/^ready //p' "$tmp/hold")
	[ "$used" = "$want" ] || err="vram_pages $used before unload, expected $want"
	echo "# holder ready with $used pages in VRAM: rmmod nvsvm_vgpu"
	rmmod nvsvm_vgpu || err="$err; rmmod nvsvm_vgpu failed"
	rmmod nvsvm || err="$err; rmmod nvsvm failed"
fi
kill -USR1 $pid 2>/dev/null
wait $pid
status=$?
sed 's/^/# /' "$tmp/hold"
[ $status = 0 ] || err="$err; the holder exited with $status"
if [ -z "$err" ]; then
	echo "ok 2 unload-evicts-vram"
else
	echo "# $err"
	echo "not ok 2 unload-evicts-vram"
	fails=$((fails + 1))
fi
grep -q '^nvsvm_vgpu ' /proc/modules && rmmod nvsvm_vgpu
grep -q '^nvsvm ' /proc/modules && rmmod nvsvm

# 3: a VRAM whose last 2 MiB chunk is partial (3 MiB: 512 + 256 pages).
if modprobe nvsvm_vgpu vram_mb=3; then
	$bin odd-vram >"$tmp/odd" 2>&1
	status=$?
	sed 's/^/# /' "$tmp/odd"
	echo "# evictions $(cat $dbg/evictions 2>/dev/null) evicted_pages $(cat $dbg/evicted_pages 2>/dev/null)"
	rmmod nvsvm_vgpu nvsvm || status="$status; rmmod failed"
else
	status="modprobe nvsvm_vgpu vram_mb=3 failed"
fi
tap "3 odd-vram" "$status"

# 4: rmmod nvsvm_vgpu under a busy evictor (the program runs it).
if modprobe nvsvm_vgpu vram_mb=16; then
	echo 7 >/sys/module/nvsvm/parameters/evict_low
	echo 1 >/sys/module/nvsvm/parameters/sample_ms
	echo 8 >/sys/module/nvsvm/parameters/sample_chunks
	$bin hold-evict >"$tmp/hev" 2>&1
	status=$?
	sed 's/^/# /' "$tmp/hev"
	grep -q '^nvsvm_vgpu ' /proc/modules && rmmod nvsvm_vgpu
	rmmod nvsvm || status="$status; rmmod nvsvm failed"
else
	status="modprobe nvsvm_vgpu vram_mb=16 failed"
fi
tap "4 unload-evictor-busy" "$status"

# 5: as 2 with a 2 MiB VRAM page and no system THP to be had.
fail_thp=/sys/kernel/debug/nvsvm_test/fail_thp
many=1000000
skip='' err=''
if ! modprobe nvsvm_vgpu; then
	err="modprobe nvsvm_vgpu failed"
elif [ ! -w $fail_thp ]; then
	skip="no $fail_thp (not a test build)"
else
	start_holder hold-2m "$tmp/hold2m"
	if grep -q '^skip' "$tmp/hold2m"; then
		skip=$(sed -n 's/^skip //p' "$tmp/hold2m")
	elif ! grep -q '^ready' "$tmp/hold2m"; then
		err="the holder did not get ready"
	else
		used=$(cat $dbg/vram_pages 2>/dev/null)
		[ "$used" = 512 ] || err="vram_pages $used before unload, expected 512"
		msg='unregister: 1 2 MiB VRAM pages moved back through their processes'
		seen=$(dmesg | grep -c "$msg")
		echo $many >$fail_thp
		echo "# holder ready with $used pages in VRAM, THPs failing: rmmod nvsvm_vgpu"
		rmmod nvsvm_vgpu || err="$err; rmmod nvsvm_vgpu failed"
		left=$(cat $fail_thp)
		echo 0 >$fail_thp
		echo "# fail_thp: $((many - left)) THP allocations failed"
		[ "$left" -lt $many ] || err="$err; no THP allocation was tried"
		dmesg | grep 'unregister:' | sed 's/^/# /'
		[ "$(dmesg | grep -c "$msg")" = $((seen + 1)) ] ||
			err="$err; no new '$msg' in the kernel log"
	fi
	kill -USR1 $pid 2>/dev/null
	wait $pid
	status=$?
	sed 's/^/# /' "$tmp/hold2m"
	[ -n "$skip" ] || [ $status = 0 ] ||
		err="$err; the holder exited with $status"
fi
if [ -n "$err" ]; then
	echo "# $err"
	echo "not ok 5 unload-2m-without-thp"
	fails=$((fails + 1))
elif [ -n "$skip" ]; then
	echo "ok 5 unload-2m-without-thp # SKIP $skip"
else
	echo "ok 5 unload-2m-without-thp"
fi
grep -q '^nvsvm_vgpu ' /proc/modules && rmmod nvsvm_vgpu
grep -q '^nvsvm ' /proc/modules && rmmod nvsvm
rm -rf "$tmp"
[ $fails = 0 ]
