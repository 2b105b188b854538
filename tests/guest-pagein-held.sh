#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A page-in that a user's FUSE server holds must not hang a root teardown
# (issue 32 d4). In the test VM with the modules unloaded: tests/blocking's
# helper (NVSVM_BLOCKING_HOLD=DIR) makes process A's GPU read wait in a
# READ its FUSE server holds, kills A (its file is closed) and creates
# DIR/ready. With the READ still held: `rmmod nvsvm_vgpu` (the provider's
# unregister) must complete within 20 s, and `rmmod nvsvm` must refuse
# (the area work waiting in the page-in is nvsvm.ko's code). Then the
# server answers (DIR/answer), the helper ends, and `rmmod nvsvm` must
# succeed within 20 s. Every wait is bounded: a hung rmmod is reported and
# the READ answered, which lets it end. Starts and ends with nothing
# loaded. KTAP.

bin=/tests/bin/blocking

. "${0%/*}/ktap.sh"

need_vgpu "$bin"
need_fuse

dir=$(mktemp -d)
out=$(mktemp)
echo "1..5"

# 1: A's read waits in the held page-in; A was killed and reaped.
hold_start NVSVM_BLOCKING_HOLD "$bin" "$dir" "$out" page-in-held-owner-killed

# 2: the provider's module goes at once.
rmmod nvsvm_vgpu 2>"$out.rmmod" &
r=$!
if wait_pid $r 20; then
	wait $r && st=0 || st=$?
	if [ $st = 0 ] && ! loaded nvsvm_vgpu; then
		ok "rmmod-nvsvm_vgpu-with-the-page-in-held"
	else
		sed 's/^/# /' "$out.rmmod"
		not_ok "rmmod-nvsvm_vgpu-with-the-page-in-held (exit $st)"
	fi
	r=
else
	not_ok "rmmod-nvsvm_vgpu-with-the-page-in-held # hung 20 s"
fi

# 3: the core refuses while its area work waits (no hang, no unload of
# running code).
if [ -z "$r" ] && loaded nvsvm; then
	rmmod nvsvm 2>"$out.rmmod" &
	c=$!
	if wait_pid $c 10; then
		if wait $c; then
			not_ok "rmmod-nvsvm-refused-while-held # it unloaded"
		else
			echo "# $(cat "$out.rmmod")"
			ok "rmmod-nvsvm-refused-while-held"
		fi
	else
		not_ok "rmmod-nvsvm-refused-while-held # hung 10 s"
		c=
	fi
else
	not_ok "rmmod-nvsvm-refused-while-held # nvsvm_vgpu still there"
fi

# 4: the server answers; the helper ends (and a hung rmmod with it).
hold_end "$dir" "$out"
[ -z "$r" ] || wait_pid $r 20 || echo "# rmmod nvsvm_vgpu still hangs"

# 5: the core goes once its area work is done.
t=0
while loaded nvsvm && [ $t -lt 40 ]; do
	rmmod nvsvm 2>/dev/null || usleep 500000
	t=$((t + 1))
done
if loaded nvsvm; then
	not_ok "rmmod-nvsvm-after-the-answer"
else
	ok "rmmod-nvsvm-after-the-answer"
fi
for m in nvsvm_vgpu nvsvm; do loaded $m && rmmod $m; done
rm -rf "$dir" "$out" "$out.rmmod"
[ "$fails" = 0 ]
