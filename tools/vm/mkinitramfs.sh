#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test initramfs: busybox-static and its applet links, the
# kernel's own modules (optional) plus ours under /lib/modules/<kver>/extra
# with depmod run so that `modprobe nvsvm_vgpu` works, the static test
# binaries in /tests/bin, tests/run.sh, tests/ktap.sh (their shell KTAP
# helpers) and tests/guest-*.sh in /tests, and
# tools/vm/init as /init.
#
# usage: mkinitramfs.sh --kver KVER --out FILE.cpio.gz --nonce STRING
#                       [--kmods DIR]      the kernel's lib/modules/KVER
#                       [--module FILE.ko]... [--tests DIR]
#                       [--script FILE]    run in place of tests/run.sh
#                       [--output TTY]     the script's output goes to
#                                          /dev/TTY, not the console
#                       [--opencl DIR]     DIR/libnvsvm-cl.so.1 (make -C
#                                          tools cl), clinfo and their
#                                          libraries
#                       [--cts DIR]        the Khronos CTS binaries in DIR
#                                          (tools/scripts/build-cts.sh) in
#                                          /cts, and their libraries; and
#                                          DIR/nvsvm-cts, when there, as
#                                          /etc/nvsvm-cts: what
#                                          tests/guest-cts.sh runs
#                                          (tools/scripts/cts-check.sh)
#                       [--piglit DIR]     piglit's OpenCL programs and
#                                          tests/cl/program files from DIR
#                                          (Debian's piglit package), their
#                                          libraries, and in /tests/piglit
#                                          its list, pocl's reference and
#                                          the runner (tests/guest-piglit.sh)
#                       [--piglit-part K/N] only every Nth test of the
#                                          list, from the Kth (default 1/1)
#                       [--python DIR]     python3 with numpy, pyopencl and
#                                          pytest (the host's Debian
#                                          packages), their libraries, and
#                                          pyopencl's tests from DIR in
#                                          /tests/pyopencl
#                                          (tests/guest-pyopencl.sh)
#                       [--guest NAME]...  only these tests/guest-NAME.sh
#                                          (default: every one)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

kver= out= nonce= kmods= tests= script=$top/tests/run.sh output= opencl= cts=
piglit= piglit_part=1/1 python=
modules=() guests=()
while (($#)); do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--nonce) nonce=$2; shift 2 ;;
	--kmods) kmods=$2; shift 2 ;;
	--module) modules+=("$2"); shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--output) output=$2; shift 2 ;;
	--opencl) opencl=$2; shift 2 ;;
	--cts) cts=$2; shift 2 ;;
	--piglit) piglit=$2; shift 2 ;;
	--piglit-part) piglit_part=$2; shift 2 ;;
	--python) python=$2; shift 2 ;;
	--guest) guests+=("$top/tests/guest-$2.sh"); shift 2 ;;
	*) echo "mkinitramfs.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
if [[ -z $kver || -z $out || -z $nonce ]]; then
	echo "mkinitramfs.sh: --kver, --out and --nonce are required" >&2
	exit 2
fi

# Debian's busybox-static installs a static /bin/busybox; the dynamic one
# from the busybox package would not run without its libraries.
busybox=/bin/busybox
if ! [[ -x $busybox ]] || ldd "$busybox" >/dev/null 2>&1; then
	echo "mkinitramfs.sh: a static $busybox is needed (busybox-static); run 'make deps'" >&2
	exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,etc,tests/bin}
mkdir -p "$root/lib/modules/$kver/extra"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list-full); do
	[[ -e $root/$applet ]] || ln -s /bin/busybox "$root/$applet"
done

if [[ -n $kmods ]]; then
	# The kernel's own modules (test_hmm.ko for the debug kernel), without
	# the build/source links back to the host.
	cp -a "$kmods/." "$root/lib/modules/$kver/"
	rm -f "$root/lib/modules/$kver/build" "$root/lib/modules/$kver/source"
fi
for m in "${modules[@]}"; do
	cp "$m" "$root/lib/modules/$kver/extra/"
done
# What depmod and modprobe read about built-in modules: the host's copy for
# an installed kernel (the stock one), else empty files.
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[[ -e $root/lib/modules/$kver/$f ]] && continue
	if [[ -r /lib/modules/$kver/$f ]]; then
		cp "/lib/modules/$kver/$f" "$root/lib/modules/$kver/"
	else
		: >"$root/lib/modules/$kver/$f"
	fi
done
depmod -b "$root" "$kver"

if [[ -n $tests && -d $tests ]]; then
	find "$tests" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/tests/bin/" \;
fi
# copy_libs FILE...: the shared libraries FILE needs, at the paths the
# host's dynamic linker found them (none for a static program).
copy_libs() {
	local lib libs
	# ldd fails on a static program: no libraries, not an error.
	libs=$(ldd "$@" 2>/dev/null | grep -o '/[^ ]*' | sort -u) || true
	for lib in $libs; do
		[[ -e $root$lib || ! -e $lib ]] && continue
		mkdir -p "$root${lib%/*}"
		cp -L "$lib" "$root$lib"
	done
	return 0
}
for t in "$root"/tests/bin/*; do
	[[ -f $t ]] && copy_libs "$t"
done
if [[ -n $opencl ]]; then
	if ! clinfo=$(command -v clinfo) || [[ ! -e $opencl/libnvsvm-cl.so.1 ]]; then
		echo "mkinitramfs.sh: --opencl needs clinfo and $opencl/libnvsvm-cl.so.1; run 'make deps' and 'make -C tools cl'" >&2
		exit 1
	fi
	mkdir -p "$root/etc/OpenCL/vendors" "$root/usr/lib"
	cp -L "$opencl/libnvsvm-cl.so.1" "$root/usr/lib/"
	echo /usr/lib/libnvsvm-cl.so.1 >"$root/etc/OpenCL/vendors/nvsvm.icd"
	# Its compiler: the host's compile server on the fourth serial port
	# (tools/vm/run.sh); tests/run.sh exports NVSVM_CL_REMOTE from this.
	echo /dev/ttyS3 >"$root/etc/nvsvm-cl-remote"
	cp -L "$clinfo" "$root/usr/bin/clinfo"
	copy_libs "$clinfo" "$opencl/libnvsvm-cl.so.1"
fi
if [[ -n $cts ]]; then
	# tests/guest-cts.sh runs what is in /cts.
	mkdir -p "$root/cts"
	find "$cts" -maxdepth 1 -type f -name 'test_*' -perm -u+x -exec cp {} "$root/cts/" \;
	copy_libs "$root"/cts/test_*
	[[ ! -e $cts/nvsvm-cts ]] || cp "$cts/nvsvm-cts" "$root/etc/nvsvm-cts"
fi
if [[ -n $piglit ]]; then
	# At the package's own path: its programs find their libraries there
	# (RUNPATH), and tests/guest-piglit.sh runs them from it.
	pdir=/usr/lib/x86_64-linux-gnu/piglit
	if [[ ! -x $piglit/bin/cl-program-tester ]]; then
		echo "mkinitramfs.sh: --piglit needs $piglit/bin/cl-program-tester; run 'make deps'" >&2
		exit 1
	fi
	mkdir -p "$root$pdir/bin" "$root$pdir/tests/cl" "$root/tests/piglit"
	cp -L "$piglit"/bin/cl-* "$root$pdir/bin/"
	cp -rL "$piglit/tests/cl/program" "$root$pdir/tests/cl/"
	copy_libs "$root$pdir"/bin/cl-*
	if [[ ! $piglit_part =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] ||
		((BASH_REMATCH[1] > BASH_REMATCH[2])); then
		echo "mkinitramfs.sh: --piglit-part K/N with 1 <= K <= N, not $piglit_part" >&2
		exit 2
	fi
	"$top/tools/scripts/piglit-list.sh" "$piglit" |
		awk -v k="${BASH_REMATCH[1]}" -v n="${BASH_REMATCH[2]}" '(NR - 1) % n == k - 1' \
		>"$root/tests/piglit/list.txt"
	echo "$piglit_part" >"$root/tests/piglit/part"
	cp "$top/tests/piglit/pocl-reference.txt" "$root/tests/piglit/"
	cp "$top/tools/scripts/piglit-run.sh" "$root/tests/piglit/run.sh"
fi
if [[ -n $python ]]; then
	# The Debian packages' files (python3.11 and its standard library,
	# numpy, pyopencl, pytest and the python3-* packages they depend on),
	# their compiled caches, and the libraries of every binary among them.
	if [[ ! -e $python/test_wrapper.py || ! -x /usr/bin/python3 ]]; then
		echo "mkinitramfs.sh: --python needs /usr/bin/python3 and pyopencl's tests in $python (tools/scripts/pyopencl-source.sh)" >&2
		exit 1
	fi
	pkgs=$(apt-cache depends --recurse --installed --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		python3-pyopencl python3-numpy python3-pytest |
		grep -E '^(lib)?python3' | sort -u)
	# shellcheck disable=SC2086 # a list of package names
	dpkg -L $pkgs 2>/dev/null | grep -E '^/usr/(bin/python3|lib/python3)' |
		grep -vE '/python3\.[0-9]+/(test|idlelib|tkinter|turtledemo|ensurepip|lib2to3|config-)' |
		while read -r f; do
			if [[ -f $f || -L $f ]]; then
				echo "${f#/}"
			elif [[ -d $f/__pycache__ ]]; then
				echo "${f#/}/__pycache__"
			fi
		done >"$root/py.list"
	tar -C / --no-recursion -cf - -T "$root/py.list" | tar -C "$root" -xf -
	grep '/__pycache__$' "$root/py.list" | tar -C / -cf - -T - | tar -C "$root" -xf -
	rm "$root/py.list"
	mapfile -t sos < <(find "$root/usr/lib" -name '*.so*' -type f)
	copy_libs /usr/bin/python3 "${sos[@]}"
	mkdir -p "$root/tests/pyopencl"
	cp -r "$python/." "$root/tests/pyopencl/"
fi
cp "$script" "$root/tests/run.sh"
((${#guests[@]})) || guests=("$top"/tests/guest-*.sh)
for s in "$top"/tests/ktap.sh "${guests[@]}"; do
	if [[ ! -e $s ]]; then
		echo "mkinitramfs.sh: no $s" >&2
		exit 2
	fi
	cp "$s" "$root/tests/"
done
cp "$here/init" "$root/init"
chmod +x "$root/init" "$root"/tests/*.sh
echo "$nonce" >"$root/etc/nvsvm-nonce"
[[ -n $output ]] && echo "/dev/$output" >"$root/etc/nvsvm-output"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out"
