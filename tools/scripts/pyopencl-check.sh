#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make pyopencl: pyopencl 2022.3.1's own tests (Debian's python3-pyopencl,
# the test/*.py of its source) against nvsvm's ICD in the test VM on the
# stock kernel, with the host's compile server (tools/vm/run.sh --opencl):
# installs the packages (tools/scripts/deps.sh), fetches the tests
# (tools/scripts/pyopencl-source.sh), builds the modules and the ICD, runs
# tests/guest-pyopencl.sh alone in the VM and prints its pass/fail/skip
# counts per test file. Not part of make check (pytest under TCG takes
# minutes per file).
#
# usage: pyopencl-check.sh [--pocl]
#   --pocl  also run the same files on the host on pocl's CPU device (the
#           reference), print its counts and list every test that fails
#           on nvsvm and passes on pocl
# PYOPENCL_BUDGET: the guest's seconds for all the files (default 600).
# PYOPENCL_FILES: the test files to run (default: tests/guest-pyopencl.sh's
# list); PYOPENCL_PYTEST: more arguments for pytest (its whole output then
# goes to the VM's log), e.g. PYOPENCL_FILES=test_clmath.py
# PYOPENCL_PYTEST="-k tanh -l --tb=long".
# Logs and results: build/pyopencl/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
pocl=0
[[ ${1:-} == --pocl ]] && pocl=1
cd "$top"

"$here/deps.sh" --for pyopencl python3-pyopencl python3-numpy python3-pytest
src=$("$here/pyopencl-source.sh")
out=$top/build/pyopencl
mkdir -p "$out"

kdir=$("$here/kdir.sh")
kver=$("$here/kernelrelease.sh" "$kdir")
echo "pyopencl: building nvsvm against $kdir and the ICD"
"$here/build-modules.sh" "$kdir" build/stock >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log"; exit 1; }
make -C tools cl >>"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log"; exit 1; }

# tests/run.sh with only guest-pyopencl.sh, without the module's self-test.
script=$out/run.sh
# The guest script's budget: PYOPENCL_BUDGET in its environment, and
# tests/run.sh's bound on one guest script (NVSVM_TEST_TIMEOUT, 600 s by
# default) above it, for the numpy check before the files.
budget=${PYOPENCL_BUDGET:-600}
[[ $budget =~ ^[0-9]+$ ]] || { echo "pyopencl: PYOPENCL_BUDGET is a number of seconds" >&2; exit 2; }
# The selection goes into the guest's environment as is: a plain charset.
files=${PYOPENCL_FILES:-}
pyargs=${PYOPENCL_PYTEST:-}
[[ $files =~ ^[a-z0-9_.\ ]*$ ]] || { echo "pyopencl: PYOPENCL_FILES: test file names" >&2; exit 2; }
[[ $pyargs =~ ^[A-Za-z0-9_.=:\ -]*$ ]] || { echo "pyopencl: PYOPENCL_PYTEST: letters, digits, _ . = : - and spaces" >&2; exit 2; }
env="export PYOPENCL_BUDGET=$budget\\nexport NVSVM_TEST_TIMEOUT=$((budget + 180))"
[[ -z $files ]] || env+="\\nexport PYOPENCL_FILES='$files'"
[[ -z $pyargs ]] || env+="\\nexport PYOPENCL_PYTEST='$pyargs'"
sed -e 's|^for t in /tests/guest-\*\.sh; do|for t in /tests/guest-pyopencl.sh; do|' \
	-e 's/^selftest$/: no self-test/' \
	-e "s/^export PATH=.*/&\\n$env/" tests/run.sh >"$script"
grep -q '^for t in /tests/guest-pyopencl.sh; do' "$script" ||
	{ echo "pyopencl: tests/run.sh's loop over the guest scripts not found" >&2; exit 1; }
rm -rf "${out:?}/bin"
mkdir -p "$out/bin"

echo "pyopencl: the tests in $src/test, in the VM on $kver (log: $out/vm)"
status=0
tools/vm/run.sh --opencl "$top/build/tools/cl" --python "$src/test" --name pyopencl \
	--workdir "$out/vm" --kernel "/boot/vmlinuz-$kver" --kver "$kver" \
	--module build/stock/nvsvm.ko --module build/stock/nvsvm_vgpu.ko \
	--tests "$out/bin" --script "$script" \
	--timeout $((budget + 600)) >"$out/vm.txt" 2>&1 || status=$?
grep -ah '# \(FAILED\|ERROR\) test_' "$out/vm/console.log" 2>/dev/null | tr -d '\r' |
	sed 's/^.*# \(FAILED\|ERROR\) /# \1 /' | sort -u >"$out/nvsvm-failed.txt" || true
grep -ah '# pyopencl test_' "$out/vm/console.log" 2>/dev/null | tr -d '\r' |
	sed 's/^.*# pyopencl /nvsvm: /' | sort -u | tee "$out/nvsvm-counts.txt" || true
tail -n 3 "$out/vm.txt"

if ((pocl)); then
	: >"$out/pocl-counts.txt"
	for f in $(sed -n 's/^nvsvm: \(test_[a-z_]*\.py\).*/\1/p' "$out/nvsvm-counts.txt"); do
		(cd "$src/test" && HOME=$out PYOPENCL_TEST=portable timeout 1800 \
			/usr/bin/python3 -m pytest -q -p no:cacheprovider -rA --tb=line "$f") \
			>"$out/pocl-$f.log" 2>&1 || true
		echo "pocl: $f: $(tail -n 1 "$out/pocl-$f.log")" | tee -a "$out/pocl-counts.txt"
	done
	# What fails on nvsvm and passes on pocl (test ids without the
	# device's name in them).
	sed -n 's/^PASSED \([^[]*\).*/\1/p' "$out"/pocl-test_*.log | sort -u >"$out/pocl-passed.txt"
	sed -n 's/^# \(FAILED\|ERROR\) \([^[]*\).*/\2/p' "$out/nvsvm-failed.txt" | sort -u |
		comm -12 - "$out/pocl-passed.txt" | sed 's/^/fails on nvsvm, passes on pocl: /'
fi
exit "$status"
