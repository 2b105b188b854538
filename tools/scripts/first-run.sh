#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The first run of the README's commands, rehearsed on a machine that has
# already run them: a fresh copy of the tree, in a private mount namespace
# where /lib/modules, /usr/src, /boot and the build cache are empty and
# dpkg answers that no package is installed. apt-get is a stand-in that
# records what it was asked for and, on `install`, puts the hidden
# directories back, as installing the packages would. Then:
#
#   1. `make check` with an apt-get that fails: it must stop at once with
#      one line saying what failed and what to do, and exit non-zero;
#   2. `make check`'s set-up (tools/scripts/check.sh --only setup: deps,
#      the kernel build directory, the first module build) must pass, and
#      the toolchain of the SMs' programs (clang-14, lld-14, llvm-14, whose
#      files live in /usr/lib/llvm-14, hidden too) must then build one;
#      and the packages of the CTS's build and of the OpenCL judges must
#      have been asked for by name;
#   3. `make demo` must pass, print the demo, and not the kernel's log.
#
# Each prints a KTAP-style line; exit status 0 when all three passed.
# make check runs it as its step "first-run". Needs root (unshare -m).
#
# usage: first-run.sh [--inside WORKDIR]  (--inside: the part that runs in
#                                          the namespace)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
hidden=(/lib/modules /usr/src /boot /usr/lib/llvm-14 "${NVSVM_CACHE:-/var/cache/nvsvm}")

if [[ ${1:-} != --inside ]]; then
	if ((EUID != 0)); then
		echo "first-run: needs root (a private mount namespace)" >&2
		exit 1
	fi
	work=$(mktemp -d /tmp/nvsvm-first-run.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	# The tree as a clone would have it: tracked and untracked files,
	# no build products.
	mkdir -p "$work/tree"
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			rsync -a --from0 --files-from=- . "$work/tree/")
	else
		rsync -a --exclude /build "$top/" "$work/tree/"
	fi
	unshare -m --propagation private "$0" --inside "$work"
	exit
fi

work=$2
tree=$work/tree
shim=$work/bin
mkdir -p "$shim" "$work/real"

# Keep each hidden directory reachable for the stand-in apt-get, then
# cover it with an empty tmpfs.
i=0
for d in "${hidden[@]}"; do
	i=$((i + 1))
	[[ -d $d ]] || continue
	mkdir -p "$work/real/$i"
	mount --bind "$d" "$work/real/$i"
	mount -t tmpfs -o size=1m,mode=0755 nvsvm-first-run "$d"
	echo "$d $work/real/$i" >>"$work/hidden"
done

cat >"$shim/dpkg-query" <<'SHIM'
#!/bin/bash
# Nothing is installed until the stand-in apt-get has "installed" it.
if [[ -e $NVSVM_FIRST_RUN/installed ]]; then
	exec /usr/bin/dpkg-query "$@"
fi
echo "dpkg-query: no packages found matching ${*: -1}" >&2
exit 1
SHIM
cat >"$shim/apt-get" <<'SHIM'
#!/bin/bash
echo "apt-get $*" >>"$NVSVM_FIRST_RUN/apt.log"
if [[ -e $NVSVM_FIRST_RUN/apt-fails ]]; then
	echo "E: Unable to locate package (stand-in failure)" >&2
	exit 100
fi
case " $* " in
*" install "*)
	while read -r dir real; do
		umount "$dir" && mount --bind "$real" "$dir"
	done <"$NVSVM_FIRST_RUN/hidden"
	: >"$NVSVM_FIRST_RUN/hidden"
	touch "$NVSVM_FIRST_RUN/installed"
	;;
esac
exit 0
SHIM
chmod +x "$shim/dpkg-query" "$shim/apt-get"
export NVSVM_FIRST_RUN=$work PATH=$shim:$PATH
unset KDIR

failed=0
ok() { echo "ok $*"; }
notok() { echo "not ok $*"; failed=1; }
logtail() { tail -n 20 "$1" | sed 's/^/#   /'; }

if tools_kdir=$("$tree/tools/scripts/kdir.sh" 2>/dev/null); then
	notok "first-run/hidden # $tools_kdir is still visible"
	exit 1
fi

# 1. A failing install: one line that says what to do, a non-zero exit.
touch "$work/apt-fails"
status=0
make -C "$tree" --no-print-directory check >"$work/fail.log" 2>&1 || status=$?
rm -f "$work/apt-fails"
if ((status != 0)) && grep -q "installing the Debian packages failed.*run 'make deps' as root" "$work/fail.log" &&
	! grep -q 'host/build-stock' "$work/fail.log"; then
	ok "first-run/apt-fails stops with what to do (exit $status)"
else
	notok "first-run/apt-fails # exit $status, log:"
	logtail "$work/fail.log"
fi

# 2. make check's set-up on the bare machine.
status=0
"$tree/tools/scripts/check.sh" --only setup >"$work/setup.log" 2>&1 || status=$?
if ((status == 0)) && grep -q '^ok host/deps' "$work/setup.log" &&
	grep -q '^ok host/build-stock' "$work/setup.log" &&
	grep -q 'install.*linux-headers-amd64' "$work/apt.log"; then
	ok "first-run/check-setup installs, finds the headers, builds"
else
	notok "first-run/check-setup # exit $status, log:"
	logtail "$work/setup.log"
fi
# The programs' toolchain came with that install, and builds a program.
status=0
"$tree/tools/gpu/build-kernel.sh" "$tree/tests/gpu/touch.c" "$work/gpu" \
	>"$work/gpu.log" 2>&1 || status=$?
if ((status == 0)) && [[ -s $work/gpu/touch.h ]] &&
	grep -q 'install.* clang-14 lld-14 llvm-14' "$work/apt.log"; then
	ok "first-run/gpu-toolchain installed by deps, builds tests/gpu/touch.c"
else
	notok "first-run/gpu-toolchain # exit $status, log:"
	logtail "$work/gpu.log"
	sed 's/^/#   /' "$work/apt.log"
fi

# The other tools make check's later steps call, each from a package that
# install asked for by name (a package only some other one depends on
# could go with it): the CTS's build (cmake and the SPIR-V headers), the
# OpenCL judges (piglit, pocl's CPU device as the reference), the VM's.
# cmake was missing until 2026-12-06: a fresh machine's CTS build failed.
missing=
for f in /usr/bin/cmake /usr/include/spirv/unified1/spirv.hpp \
	/usr/lib/x86_64-linux-gnu/piglit/bin/cl-program-tester \
	/etc/OpenCL/vendors/pocl.icd /usr/bin/clinfo /usr/include/CL/opencl.hpp \
	/usr/bin/qemu-system-x86_64; do
	pkg=$(/usr/bin/dpkg-query -S "$f" 2>/dev/null | head -n 1 | cut -d: -f1)
	if [[ -z $pkg ]] || ! grep -qE "install.* $pkg( |$)" "$work/apt.log"; then
		missing="$missing ${pkg:-?}($f)"
	fi
done
if [[ -z $missing ]]; then
	ok "first-run/packages deps installs cmake, spirv-headers, piglit, pocl-opencl-icd, clinfo, opencl-clhpp-headers, qemu-system-x86"
else
	notok "first-run/packages # not asked for by deps:$missing"
	sed 's/^/#   /' "$work/apt.log"
fi

# 3. make demo from the bare machine again.
rm -f "$work/installed"
i=0
for d in "${hidden[@]}"; do
	i=$((i + 1))
	[[ -d $work/real/$i ]] || continue
	umount "$d"
	mount -t tmpfs -o size=1m,mode=0755 nvsvm-first-run "$d"
	echo "$d $work/real/$i" >>"$work/hidden"
done
: >"$work/apt.log"
rm -rf "$tree/build"
status=0
make -C "$tree" --no-print-directory demo >"$work/demo.log" 2>&1 || status=$?
if ((status == 0)) && grep -q '^ok demo/demo 1 nvsvm-demo' "$work/demo.log" &&
	grep -q 'install' "$work/apt.log" && ! grep -q 'Linux version' "$work/demo.log"; then
	ok "first-run/demo installs, builds, runs; $(wc -l <"$work/demo.log") lines, no kernel log"
else
	notok "first-run/demo # exit $status, log:"
	logtail "$work/demo.log"
fi
exit $failed
