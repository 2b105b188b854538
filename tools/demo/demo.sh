#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The nvsvm demo, inside a machine (or the test VM) with nvsvm installed:
# load the virtual GP100 (`modprobe nvsvm_vgpu`), run nvsvm-demo, show the
# driver's counters with nvsvm-stat, run cl-demo (a BFS in OpenCL C on
# malloc'd memory, through the ICD) where it is there, and unload what
# this script loaded.
#
# usage: demo.sh [nvsvm-demo arguments]
#
# The programs are looked for in $NVSVM_DEMO_BIN, next to this script,
# in /tests/bin (the test VM) and in $PATH. When $NVSVM_RESULTS is set
# (the VM's results port), one KTAP line "[demo] ok 1 nvsvm-demo" or
# "[demo] not ok 1 ..." is appended to it, and one for cl-demo (a skip
# when the ICD has no compiler yet). Exit status: 0 when both passed (or
# cl-demo skipped), 1 otherwise or when loading or unloading the modules
# failed.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/usr/local/bin:/usr/local/sbin:$PATH

here=$(cd "$(dirname "$0")" && pwd)
results=${NVSVM_RESULTS:-}

find_prog() {
	for d in "${NVSVM_DEMO_BIN:-}" "$here" /tests/bin; do
		if [ -n "$d" ] && [ -x "$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	command -v "$1"
}

result() {
	echo "demo: $1"
	[ -n "$results" ] && echo "[demo] $1" >>"$results"
}

loaded() {
	grep -q "^$1 " /proc/modules 2>/dev/null
}

grep -q ' /sys/kernel/debug ' /proc/mounts 2>/dev/null ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

demo=$(find_prog nvsvm-demo)
if [ -z "$demo" ]; then
	result "not ok 1 nvsvm-demo # program not found (build it: make -C tools)"
	exit 1
fi
stat=$(find_prog nvsvm-stat)

ours=0
if ! loaded nvsvm_vgpu; then
	if ! modprobe nvsvm_vgpu; then
		result "not ok 1 nvsvm-demo # modprobe nvsvm_vgpu failed"
		exit 1
	fi
	ours=1
fi
echo "demo: modprobe nvsvm_vgpu: $(ls /dev | grep -c '^nvsvm[0-9]') virtual GP100 GPU(s)"
echo

"$demo" "$@"
rc=$?

if [ -n "$stat" ]; then
	echo
	echo "demo: the driver's counters since the module was loaded (nvsvm-stat -d 0):"
	"$stat" -d 0
fi

# The OpenCL part: the same GPU through the ICD, running OpenCL C.
clrc=none
cldemo=$(find_prog cl-demo)
if [ -n "$cldemo" ]; then
	echo
	echo "demo: cl-demo: breadth-first search in OpenCL C on malloc'd memory"
	"$cldemo"
	clrc=$?
fi

if [ "$ours" = 1 ]; then
	for m in nvsvm_vgpu nvsvm; do
		if loaded "$m" && ! rmmod "$m"; then
			echo "demo: rmmod $m failed"
			rc=1
		fi
	done
fi

echo
if [ "$rc" = 0 ]; then
	result "ok 1 nvsvm-demo"
else
	result "not ok 1 nvsvm-demo # exit status $rc"
fi
case $clrc in
none) result "ok 2 cl-demo # SKIP not built (tools/demo/run-demo.sh)" ;;
0) result "ok 2 cl-demo" ;;
4) result "ok 2 cl-demo # SKIP the device has no compiler or no fine-grain system SVM" ;;
*) result "not ok 2 cl-demo # exit status $clrc"; rc=1 ;;
esac
exit "$rc"
