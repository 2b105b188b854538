#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load/unload cycles of nvsvm_vgpu (and nvsvm under it), in the test VM.
# Starts and ends with neither module loaded. Prints KTAP.
#
# NVSVM_EXPECT_MODDIR: where, under /lib/modules/$(uname -r), modprobe must
# find both modules (default extra, the test initramfs's place for them;
# updates/dkms after a DKMS install: tools/scripts/dkms-guest.sh).

cycles=5
ntests=7
moddir=${NVSVM_EXPECT_MODDIR:-extra}

. "${0%/*}/ktap.sh"

# devices: the /dev/nvsvm* names present, space separated, sorted.
devices() {
	ls /dev 2>/dev/null | grep '^nvsvm[0-9]*$' | sort | tr '\n' ' '
}

need_vgpu

err=$(mktemp)
echo "1..$ntests"

# 1: modprobe resolves both names to the expected directory, the only copy.
for m in nvsvm nvsvm_vgpu; do
	file=$(modinfo -F filename $m 2>/dev/null)
	echo "# $m: $file"
	case $file in
	/lib/modules/$(uname -r)/$moddir/$m.ko*) ;;
	*) echo "$m resolves to '$file', not under $moddir/" >>"$err" ;;
	esac
done
copies=$(find /lib/modules/"$(uname -r)" -name 'nvsvm.ko*' -o -name 'nvsvm_vgpu.ko*' | sort)
echo "# installed:" $copies
[ "$(echo "$copies" | wc -l)" = 2 ] ||
	echo "expected 2 module files, found: $copies" >>"$err"
result "modules-found-in-$(echo "$moddir" | tr / -)" "$err"

# 2: a clean start.
for m in nvsvm_vgpu nvsvm; do
	loaded $m && echo "$m is loaded before the test" >>"$err"
done
[ -z "$(devices)" ] || echo "devices before loading: $(devices)" >>"$err"
result "nothing-loaded-at-start" "$err"

# 3-5: cycles of default load, count=3 load, unload.
errs_default=$(mktemp)
errs_count=$(mktemp)
for i in $(seq 1 $cycles); do
	if ! modprobe nvsvm_vgpu; then
		echo "cycle $i: modprobe nvsvm_vgpu failed" >>"$errs_default"
	else
		loaded nvsvm || echo "cycle $i: nvsvm not loaded under nvsvm_vgpu" >>"$errs_default"
		[ -c /dev/nvsvm0 ] || echo "cycle $i: /dev/nvsvm0 missing" >>"$errs_default"
		[ "$(devices)" = "nvsvm0 " ] ||
			echo "cycle $i: count=1 gave devices: $(devices)" >>"$errs_default"
	fi
	rmmod nvsvm_vgpu || echo "cycle $i: rmmod nvsvm_vgpu failed" >>"$err"
	rmmod nvsvm || echo "cycle $i: rmmod nvsvm failed" >>"$err"

	if ! modprobe nvsvm_vgpu count=3; then
		echo "cycle $i: modprobe nvsvm_vgpu count=3 failed" >>"$errs_count"
	else
		for d in 0 1 2; do
			[ -c /dev/nvsvm$d ] || echo "cycle $i: /dev/nvsvm$d missing" >>"$errs_count"
		done
		[ "$(devices)" = "nvsvm0 nvsvm1 nvsvm2 " ] ||
			echo "cycle $i: count=3 gave devices: $(devices)" >>"$errs_count"
	fi
	rmmod nvsvm_vgpu || echo "cycle $i: rmmod nvsvm_vgpu failed" >>"$err"
	rmmod nvsvm || echo "cycle $i: rmmod nvsvm failed" >>"$err"
	[ -z "$(devices)" ] || echo "cycle $i: left after rmmod: $(devices)" >>"$err"
done
result "load-default-gives-nvsvm0-x$cycles" "$errs_default"
result "load-count-3-gives-nvsvm0-2-x$cycles" "$errs_count"
result "rmmod-both-x$cycles" "$err"

# 6: nothing left behind.
for m in nvsvm_vgpu nvsvm; do
	loaded $m && echo "$m still in /proc/modules" >>"$err"
	[ -e /sys/module/$m ] && echo "/sys/module/$m still exists" >>"$err"
done
[ -z "$(devices)" ] || echo "left in /dev: $(devices)" >>"$err"
result "nothing-left-behind" "$err"

# 7: every parameter of both modules has a description (MODULE_PARM_DESC).
# The .modinfo section has parmtype=NAME:TYPE for each module_param() and
# parm=NAME:DESC for each MODULE_PARM_DESC(); modinfo shows the latter.
for m in nvsvm nvsvm_vgpu; do
	file=$(modinfo -F filename $m 2>/dev/null)
	if [ -z "$file" ] || [ ! -f "$file" ]; then
		echo "modinfo finds no file for $m" >>"$err"
		continue
	fi
	descs=$(modinfo -F parm $m 2>/dev/null)
	params=$(strings -a "$file" | sed -n 's/^parmtype=\([^:]*\):.*/\1/p')
	echo "# $m parameters:" $params
	for p in $params; do
		if ! echo "$descs" | grep -q "^$p:."; then
			echo "$m: parameter $p has no MODULE_PARM_DESC" >>"$err"
		fi
	done
done
result "every-parameter-described" "$err"

rm -f "$err" "$errs_default" "$errs_count"
[ "$fails" = 0 ]
