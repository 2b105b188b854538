#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest script (busybox sh) of make check's "dkms" VM run, in place of
# tests/run.sh: the initramfs holds nvsvm as `dkms install` laid it out
# (/lib/modules/KVER/updates/dkms, from tools/scripts/dkms-check.sh --keep)
# and no other copy. It runs
#   1. tests/guest-load.sh with NVSVM_EXPECT_MODDIR=updates/dkms: modprobe
#      finds both modules there by name, load/unload cycles, /dev/nvsvm0;
#   2. `modprobe nvsvm_vgpu`, then each program in /tests/bin (make check
#      puts tests/info there: GET_INFO and the ioctl rules), then rmmod.
# Reports like tests/run.sh: "[program] ok N name" on stdout and to
# $NVSVM_RESULTS, a last "[dkms-guest] N passed, N failed, N skipped".

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
results=${NVSVM_RESULTS:-/dev/null}
tmp=$(mktemp -d)
: >"$tmp/all"

emit() {
	echo "$1"
	echo "$1" >>"$results"
}

# run NAME COMMAND...: run one KTAP program, relay its results, and turn a
# bad exit status or no result at all into a failure of its own.
run() {
	name=$1
	shift
	"$@" </dev/null >"$tmp/out" 2>&1
	status=$?
	n=0
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			echo "$line" >>"$tmp/all"
			emit "[$name] $line" ;;
		*) echo "# [$name] $line" ;;
		esac
	done <"$tmp/out"
	if [ "$status" = 4 ] && [ "$n" = 0 ]; then
		line="not ok 1 $name # skipped everything (exit 4): not what a DKMS install must give"
	elif [ "$status" != 0 ]; then
		line="not ok $((n + 1)) $name # exit status $status"
	elif [ "$n" = 0 ]; then
		line="not ok 1 $name # no results"
	else
		return
	fi
	echo "$line" >>"$tmp/all"
	emit "[$name] $line"
}

unload() {
	for m in nvsvm_vgpu nvsvm; do
		grep -q "^$m " /proc/modules && rmmod $m
	done
}

export NVSVM_EXPECT_MODDIR=updates/dkms
run guest-load sh /tests/guest-load.sh
unload

for t in /tests/bin/*; do
	[ -x "$t" ] || continue
	name=${t##*/}
	if ! modprobe nvsvm_vgpu; then
		echo "not ok 1 $name" >>"$tmp/all"
		emit "[$name] not ok 1 $name # modprobe nvsvm_vgpu failed"
		continue
	fi
	run "$name" "$t"
	if ! unload; then
		echo "not ok 0 $name" >>"$tmp/all"
		emit "[$name] not ok 0 $name # rmmod after the program failed"
	fi
done

failed=$(grep -c '^not ok' "$tmp/all")
skipped=$(grep -c '^ok.*# [Ss][Kk][Ii][Pp]' "$tmp/all")
passed=$(($(grep -c '^ok' "$tmp/all") - skipped))
rm -rf "$tmp"
emit "[dkms-guest] $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
