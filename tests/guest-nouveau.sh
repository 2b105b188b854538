#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The patched nouveau.ko (tools/nouveau/) loads beside nvsvm in the test VM,
# which has no NVIDIA GPU: the PCI driver registers, nothing binds, no
# /dev/nvsvmN appears, and the kernel log shows nothing alarming. Then both
# modules unload. Prints KTAP; exits 4 when the patched nouveau.ko is not
# in the initramfs: make check puts it (tools/nouveau/build.sh) and the
# stock drm modules (tools/nouveau/deps.sh) only in its "nouveau" VM, on
# the stock kernel, which runs this script alone; it skips in the lanes.

ntests=8

. "${0%/*}/ktap.sh"

# Kernel log lines that must not appear while nouveau and nvsvm come and go.
alarming() {
	grep -E -i 'warning|bug|oops|call trace|unknown symbol|disagrees about|invalid module|error|fail|refcount|leak|nvsvm|nouveau' |
		grep -v -E 'loading out-of-tree module taints kernel|module verification failed'
}

depends=$(modinfo -F depends nouveau 2>/dev/null)
case ",$depends," in
*,nvsvm,*) ;;
*)
	if modinfo nouveau >/dev/null 2>&1; then
		echo "1..0 # SKIP nouveau.ko in the initramfs is not the nvsvm-patched one"
	else
		echo "1..0 # SKIP the patched nouveau.ko is not in the initramfs (make check runs this in its own VM on the stock kernel)"
	fi
	exit 4
	;;
esac

err=$(mktemp)
echo "1..$ntests"

# 1: a clean start, and a mark in the log to read from.
for m in nouveau nvsvm_vgpu nvsvm; do
	loaded $m && echo "$m is loaded before the test" >>"$err"
done
result "nothing-loaded-at-start" "$err"
dmesg -c >/dev/null

# 2: modprobe resolves the stock drm modules and nvsvm, and loads.
modprobe nouveau >"$err" 2>&1 || echo "modprobe nouveau failed" >>"$err"
for m in nouveau nvsvm drm ttm drm_kms_helper; do
	loaded $m || echo "$m is not loaded" >>"$err"
done
result "modprobe-nouveau-loads-nvsvm-and-drm" "$err"

# 3: the PCI driver registered.
[ -d /sys/bus/pci/drivers/nouveau ] ||
	echo "/sys/bus/pci/drivers/nouveau missing" >>"$err"
result "pci-driver-registered" "$err"

# 4: nothing bound to it (there is no NVIDIA device here).
for d in /sys/bus/pci/drivers/nouveau/0000:*; do
	[ -e "$d" ] && echo "bound: $d" >>"$err"
done
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] &&
		echo "an NVIDIA device is present: $d" >>"$err"
done
result "nothing-bound" "$err"

# 5: no GPU, no /dev/nvsvmN.
for d in /dev/nvsvm*; do
	[ -e "$d" ] && echo "unexpected $d" >>"$err"
done
result "no-nvsvm-device" "$err"

# 6: the kernel log after loading (shown as diagnostics).
log=$(mktemp)
dmesg -c >"$log"
sed 's/^/# log: /' "$log"
alarming <"$log" >"$err"
result "dmesg-clean-after-load" "$err"

# 7: both unload; nvsvm only after nouveau, whose symbols pin it.
rmmod nvsvm 2>/dev/null && echo "nvsvm unloaded under nouveau" >>"$err"
rmmod nouveau 2>>"$err" || echo "rmmod nouveau failed" >>"$err"
rmmod nvsvm 2>>"$err" || echo "rmmod nvsvm failed" >>"$err"
for m in nouveau nvsvm; do
	loaded $m && echo "$m still loaded" >>"$err"
done
result "unload" "$err"

# 8: the kernel log after unloading.
dmesg -c >"$log"
sed 's/^/# log: /' "$log"
alarming <"$log" >"$err"
result "dmesg-clean-after-unload" "$err"

rm -f "$err" "$log"
[ "$fails" -eq 0 ]
