#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A GPU access that waits for a userfaultfd handler that never answers
# must not keep the modules (issue 37 item 4). In the test VM with the
# modules unloaded: tests/uffd's helper (NVSVM_UFFD_HOLD=DIR) makes process
# A's GPU read wait for a handler in the helper (which holds A's
# userfaultfd open and never answers), kills A (its file is closed: the
# area's teardown sends its userfaultfd thread SIGKILL) and creates
# DIR/ready. With the handler still silent: `rmmod nvsvm_vgpu`, then
# `rmmod nvsvm` must both complete within 20 s (the thread let go of
# nvsvm.ko). Then DIR/answer lets the helper end. Every wait is bounded.
# Starts and ends with nothing loaded. KTAP.

bin=/tests/bin/uffd

. "${0%/*}/ktap.sh"

need_vgpu "$bin"

dir=$(mktemp -d)
out=$(mktemp)
echo "1..4"

# 1: A's read waited for the handler; A was killed and reaped.
hold_start NVSVM_UFFD_HOLD "$bin" "$dir" "$out" uffd-held-owner-killed
ps | grep -q '[n]vsvm_uffd' && echo "# a userfaultfd thread is still there"

# 2: the provider's module goes at once.
rmmod nvsvm_vgpu 2>"$out.rmmod" &
r=$!
if wait_pid $r 20; then
	if wait $r && ! loaded nvsvm_vgpu; then
		ok "rmmod-nvsvm_vgpu-handler-silent"
	else
		sed 's/^/# /' "$out.rmmod"
		not_ok "rmmod-nvsvm_vgpu-handler-silent"
	fi
else
	not_ok "rmmod-nvsvm_vgpu-handler-silent # hung 20 s"
fi

# 3: so does the core, the handler still silent: the thread is gone.
t=0
while loaded nvsvm && [ $t -lt 40 ]; do
	rmmod nvsvm 2>"$out.rmmod" || usleep 500000
	t=$((t + 1))
done
if loaded nvsvm; then
	sed 's/^/# /' "$out.rmmod"
	not_ok "rmmod-nvsvm-handler-silent"
elif [ ! -d "/proc/$helper" ]; then
	not_ok "rmmod-nvsvm-handler-silent # the helper ended first"
else
	ok "rmmod-nvsvm-handler-silent"
fi

# 4: the helper ends.
hold_end "$dir" "$out"
for m in nvsvm_vgpu nvsvm; do loaded $m && rmmod $m; done
rm -rf "$dir" "$out" "$out.rmmod"
[ "$fails" = 0 ]
