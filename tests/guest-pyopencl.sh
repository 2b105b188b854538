#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pyopencl 2022.3.1's own tests (Debian's python3-pyopencl, the tests of
# its source, tools/scripts/pyopencl-source.sh) against nvsvm's ICD in the
# test VM: a third-party client of issue 35. mkinitramfs.sh --python puts
# python3, numpy, pyopencl, pytest and the tests (in /tests/pyopencl) in
# the VM, --opencl the ICD; without them the script skips. make pyopencl
# (tools/scripts/pyopencl-check.sh) runs it; make check does not give the
# VM python.
#
# Runs pytest on each file (PYOPENCL_TEST=nvsvm), test_wrapper.py first
# (the API: where an ICD's defects show), then the others while the budget
# lasts (PYOPENCL_BUDGET seconds, default 600; a file not started is a
# skip, and so is one cut at the budget's end with no failure). One
# result per file with its counts ("# pyopencl FILE: P passed, F failed, S
# skipped, X xfailed"): ok when every failure is a known one (known()
# below: a feature the device does not claim, with the reason), each shown
# as a comment. nvsvm_vgpu is loaded with
# sysmem_atomics=coherent (test_algorithm's scans and sorts use atomics on
# buffers). Starts and ends with neither module loaded.
# Before the files, one result checks numpy's answers in the VM (the
# tests' expected values: test_clmath compares the device with numpy)
# against the C library's, on test_clmath's functions and ranges; numpy
# does without its AVX2 code under QEMU's TCG (below).
# PYOPENCL_FILES (a list of test files) runs those instead of all, and
# PYOPENCL_PYTEST gives pytest more arguments (e.g. "-k tanh -l
# --tb=long"); with it, each file's whole pytest output goes to the log.

. "${0%/*}/ktap.sh"

dir=/tests/pyopencl
icd=/etc/OpenCL/vendors/nvsvm.icd
files=${PYOPENCL_FILES:-"test_wrapper.py test_enqueue_copy.py test_arrays_in_structs.py
test_clrandom.py test_clmath.py test_algorithm.py test_array.py"}
if [ ! -r $dir/test_wrapper.py ] || [ ! -x /usr/bin/python3 ]; then
	echo "1..0 # SKIP no python3 and pyopencl's tests in this VM (run.sh --python)"
	exit 4
fi
if [ ! -r $icd ]; then
	echo "1..0 # SKIP no $icd in this VM (run.sh --opencl)"
	exit 4
fi
need_vgpu

# known TEST-ID: why a failure is expected (empty: it is not).
known() {
	case $1 in
	*test_image_*|*test_sampler*|*test_get_supported_image_formats*)
		echo "images and samplers: CL_DEVICE_IMAGE_SUPPORT is CL_FALSE" ;;
	*test_spirv*)
		echo "IL programs: CL_DEVICE_IL_VERSION is empty" ;;
	esac
}

# numpy's answers, test_clmath's functions on its ranges, against the C
# library's, one value at a time; prints each that differs, fails then.
numpy_ref() {
	/usr/bin/python3 - <<'EOF'
import math
import numpy as np

fns = (("exp", -3, 3), ("log", 1e-5, 1), ("log10", 1e-5, 1), ("sqrt", 1e-5, 1),
       ("sin", -10, 10), ("cos", -10, 10), ("asin", -0.9, 0.9),
       ("acos", -0.9, 0.9), ("tan", -1.47, 1.47), ("atan", -10, 10),
       ("sinh", -3, 3), ("cosh", -3, 3), ("tanh", -3, 3))
npname = {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}
bad = 0
for name, a, b in fns:
    for dt, tol in ((np.float64, 1e-13), (np.float32, 1e-6)):
        x = np.arange(a, b, (b - a) / 8192, dtype=dt)
        got = getattr(np, npname.get(name, name))(x).astype(np.float64)
        ref = np.array([getattr(math, name)(float(v)) for v in x])
        err = np.abs(got - ref) / np.maximum(np.abs(ref), 1.0)
        i = int(np.argmax(np.where(np.isnan(err), np.inf, err)))
        if not err[i] <= tol:
            bad += 1
            print("numpy %s(%s %.17g) = %.17g, the C library's %.17g"
                  % (name, np.dtype(dt).name, x[i], got[i], ref[i]))
raise SystemExit(1 if bad else 0)
EOF
}

# Under QEMU's TCG ("QEMU TCG CPU", QEMU 7.2), an AVX2 gather whose index
# is ymm4 loads every lane from its base address (as if the VSIB index
# field 100 meant "no index", as in a SIB byte): numpy's float64 tanh,
# which gathers its coefficients so, answered tanh(-3) = -1058 and an
# infinity near -1.8. numpy leaves its AVX2 code alone there; with KVM the
# host's CPU runs it.
if grep -q 'QEMU TCG' /proc/cpuinfo && grep -qw avx2 /proc/cpuinfo; then
	export NPY_DISABLE_CPU_FEATURES=AVX2
fi

# shellcheck disable=SC2086 # the list, word by word
set -- $files
echo "1..$(($# + 1))"
if why=$(numpy_ref 2>&1); then
	ok "numpy's reference answers"
else
	echo "$why" | sed 's/^/# /'
	not_ok "numpy's reference answers: wrong in this VM"
fi
if ! modprobe nvsvm_vgpu sysmem_atomics=coherent; then
	for f; do not_ok "$f # modprobe nvsvm_vgpu failed"; done
	exit 1
fi
tmp=$(mktemp -d)
mkdir -p "$tmp/home"
budget=${PYOPENCL_BUDGET:-600}
t0=$(cut -d. -f1 /proc/uptime)
for f; do
	left=$((budget - ($(cut -d. -f1 /proc/uptime) - t0)))
	if [ "$left" -le 10 ]; then
		ok "$f # SKIP the budget of ${budget} s is spent"
		continue
	fi
	t1=$(cut -d. -f1 /proc/uptime)
	# shellcheck disable=SC2086 # PYOPENCL_PYTEST: arguments, word by word
	(cd $dir && HOME=$tmp/home PYOPENCL_TEST=nvsvm PYTHONDONTWRITEBYTECODE=1 \
		timeout -s KILL "$left" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
		-rA --tb=line ${PYOPENCL_PYTEST:-} "$f") >"$tmp/out" 2>&1
	st=$?
	[ -z "${PYOPENCL_PYTEST:-}" ] || head -n 400 "$tmp/out" | sed 's/^/# /'
	took=$(($(cut -d. -f1 /proc/uptime) - t1))
	p=$(grep -c '^PASSED ' "$tmp/out")
	x=$(grep -c '^XFAIL ' "$tmp/out")
	s=$(sed -n 's/^SKIPPED \[\([0-9]*\)\].*/\1/p' "$tmp/out" | awk '{ s += $1 } END { print s + 0 }')
	grep -E '^(FAILED|ERROR) ' "$tmp/out" | sed 's/ - .*//' >"$tmp/failed"
	fl=$(wc -l <"$tmp/failed")
	unknown=0
	while read -r kind id; do
		why=$(known "$id")
		echo "# $kind $id${why:+ (known: $why)}"
		[ -n "$why" ] || unknown=$((unknown + 1))
	done <"$tmp/failed"
	grep -E '^(SKIPPED|XFAIL) ' "$tmp/out" | sed 's/\[<context factory for [^]]*\]//; s/^/# /'
	echo "# pyopencl $f: $p passed, $fl failed, $s skipped, $x xfailed in $took s (pytest status $st)"
	# pytest -q's progress: a dot per test passed, F or E per one failed.
	grep -E '^[.sxXFE]+( |$)' "$tmp/out" >"$tmp/progress"
	dots=$(tr -cd . <"$tmp/progress" | wc -c)
	bad=$(tr -cd FE <"$tmp/progress" | wc -c)
	if [ "$st" = 137 ] && [ "$bad" = 0 ]; then
		ok "$f # SKIP cut at the budget's end after $left s, $dots tests passed by then"
	elif [ "$st" = 137 ]; then
		not_ok "$f # cut at the budget's end after $left s, $dots passed and $bad failed by then"
	elif [ "$unknown" -gt 0 ] || { [ "$st" != 0 ] && [ "$fl" = 0 ]; }; then
		grep -E '^E |Error' "$tmp/out" | head -n 40 | sed 's/^/# /'
		not_ok "$f # $unknown unknown failures"
	else
		ok "$f"
	fi
done
rm -rf "$tmp"
for m in nvsvm_vgpu nvsvm; do loaded $m && rmmod $m; done
[ "$fails" = 0 ]
