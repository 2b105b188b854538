#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the QEMU acceleration options to use: KVM only when a short probe
# shows that it really works (nested KVM here either asserts or hangs),
# TCG otherwise. The answer is cached per host boot.
#
# usage: accel.sh KERNEL_IMAGE
# NVSVM_ACCEL=tcg|kvm forces the choice.
set -euo pipefail

kernel=$1
tcg="-accel tcg -cpu max"
kvm="-accel kvm -cpu host"

case ${NVSVM_ACCEL:-} in
tcg) echo "$tcg"; exit 0 ;;
kvm) echo "$kvm"; exit 0 ;;
esac

boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
cache=/tmp/nvsvm-kvm-probe-$boot_id
if [[ -e $cache ]]; then
	cat "$cache"
	exit 0
fi

answer=$tcg
if [[ -r /dev/kvm && -w /dev/kvm ]]; then
	# A kernel with no root file system panics right after its banner and,
	# with -no-reboot, QEMU exits: seeing the panic in time means KVM ran it.
	out=$(timeout -s KILL 12 qemu-system-x86_64 $kvm -m 256 -smp 1 \
		-nodefaults -display none -no-reboot -serial stdio \
		-kernel "$kernel" -append "console=ttyS0 panic=-1 root=/dev/nonexistent" \
		2>&1 || true)
	if grep -q 'Kernel panic' <<<"$out"; then
		answer=$kvm
	fi
fi
echo "$answer" >"$cache"
echo "$answer"
