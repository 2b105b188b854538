#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Khronos OpenCL CTS binaries that make check runs in the test VM
# (tests/guest-cts.sh), from the pinned copy in ../shared/third_party
# (relative to the project's top), against its pinned OpenCL-Headers and
# ocl-icd's libOpenCL, into a cache directory outside the source tree keyed
# by the pinned commit and this script's code (its lines but comments and
# blank ones: a comment's edit does not rebuild). A lock per cache entry makes
# a second command wait for the first's build. Prints the directory that
# holds the binaries.
#
# usage: build-cts.sh [--cached]
#   --cached  print the directory only if it is built already, else exit 1
#             with one line on stderr; never build.
# Exit 3 (and one line on stderr) when ../shared/third_party/OpenCL-CTS or
# OpenCL-Headers is absent: the caller skips with that reason.
#
# A git worktree outside the main checkout's directory looks beside the
# main checkout. NVSVM_CACHE overrides the cache directory (default
# /var/cache/nvsvm); NVSVM_THIRD_PARTY the third_party directory.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${NVSVM_CACHE:-/var/cache/nvsvm}
tp=${NVSVM_THIRD_PARTY:-$top/../shared/third_party}
if [[ -z ${NVSVM_THIRD_PARTY:-} && ! -d $tp ]]; then
	# A git worktree elsewhere: beside the main checkout instead.
	common=$(git -C "$top" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
	[[ -z $common ]] || tp=$(dirname "$common")/../shared/third_party
fi
cached=""
[[ ${1:-} == --cached ]] && cached=1

# The CTS programs make check runs (tests/guest-cts.sh): targets test_NAME.
targets=(test_api test_buffers test_mem_host_flags test_computeinfo test_svm
	test_basic test_events test_c11_atomics test_printf)

log() { echo "build-cts: $*" >&2; }

cts=$tp/OpenCL-CTS hdr=$tp/OpenCL-Headers
if [[ ! -f $cts/CMakeLists.txt || ! -d $hdr/CL ]]; then
	log "no OpenCL-CTS and OpenCL-Headers in $tp"
	exit 3
fi
# The pinned commit is in third_party's README (the copies have no .git).
pin=$(grep -o '^| OpenCL-CTS |[^|]*|[^|]*' "$tp/README.md" 2>/dev/null |
	grep -oE '[0-9a-f]{40}' || true)
hpin=$(grep -o '^| OpenCL-Headers |[^|]*|[^|]*' "$tp/README.md" 2>/dev/null |
	grep -oE '[0-9a-f]{40}' || true)
if [[ -z $pin ]]; then
	# No README line: the tree's contents stand for the commit.
	pin=$(cd "$cts" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-40)
fi
code=$(sed -e 's/^[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' "${BASH_SOURCE[0]}")
key=$( { echo "$pin $hpin"; sha256sum <<<"$code"; } | sha256sum | cut -c1-12)
out=$cache/opencl-cts-${pin:0:12}-$key

if [[ -n $cached && ! -e $out/.built ]]; then
	log "$out is not built; run tools/scripts/build-cts.sh"
	exit 1
fi
if [[ ! -e $out/.built ]]; then
	mkdir -p "$cache"
	exec 9>"$out.lock"
	if ! flock -n 9; then
		log "waiting for another build of $out"
		flock 9
	fi
fi
if [[ -e $out/.built ]]; then
	echo "$out/bin"
	exit 0
fi

# ocl-icd's loader (ocl-icd-opencl-dev), the SPIR-V headers the CTS's
# CMakeLists requires (spirv-headers) and cmake: make deps installs them.
libcl=$(find /usr/lib /usr/lib64 -name 'libOpenCL.so' 2>/dev/null | head -n 1 || true)
spirv=/usr/include/spirv/unified1/spirv.hpp
if [[ -z $libcl || ! -e $spirv ]] || ! command -v cmake >/dev/null; then
	log "needs libOpenCL.so (ocl-icd-opencl-dev), $spirv (spirv-headers) and cmake; run 'make deps'"
	exit 1
fi
# The CTS wants SPIRV_INCLUDE_DIR/include/spirv/...
spirvdir=$out/spirv
log "building ${targets[*]} in $out (log: $out/build.log)"
rm -rf "$out"
mkdir -p "$out/bin" "$spirvdir"
ln -s /usr/include "$spirvdir/include"
start=$SECONDS
jobs=$(nproc)
# A copy of the sources, one file left out: test_api's spirv_queries
# needs SPIR-V headers newer than Debian 12's spirv-headers (1.3.239), and
# the device takes no IL (CL_DEVICE_IL_VERSION is empty).
cp -a "$cts" "$out/src"
chmod -R u+w "$out/src"
sed -i -e '/test_spirv_queries\.cpp/d' -e '/^ *${CMAKE_CURRENT_BINARY_DIR}\/spirv_capability_deps\.def$/d' \
	"$out/src/test_conformance/api/CMakeLists.txt"
{
	nice -n 10 cmake -S "$out/src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release \
		-DCL_INCLUDE_DIR="$hdr" -DCL_LIB_DIR="${libcl%/*}" \
		-DOPENCL_LIBRARIES=OpenCL -DSPIRV_INCLUDE_DIR="$spirvdir" \
		-DCMAKE_C_FLAGS="-w" -DCMAKE_CXX_FLAGS="-w"
	nice -n 10 cmake --build "$out/build" -j"$jobs" --target "${targets[@]}"
} >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log" >&2; log "build failed"; exit 1; }
for t in "${targets[@]}"; do
	f=$(find "$out/build" -type f -name "$t" -perm -u+x | head -n 1)
	if [[ -z $f ]]; then
		log "no $t after the build"
		exit 1
	fi
	cp "$f" "$out/bin/"
done
rm -rf "$out/build" "$out/src"
touch "$out/.built"
log "built ${#targets[@]} binaries in $((SECONDS - start)) s"
echo "$out/bin"
