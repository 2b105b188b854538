#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, as root and idempotently, every Debian package that building,
# checking and testing nvsvm needs, then (for make deps and make check)
# fetch and unpack, not install, the newer Debian kernels it is also built
# and tested against (tools/scripts/debian-kernels.sh). Does nothing (and
# needs no root, no network) when all is there already.
#
# usage: deps.sh [--for TARGET] [PACKAGE...]
#   PACKAGE...    more packages that one make target needs on top of these
#                 (tools/bench/deps.sh: gnuplot-nox for `make bench`)
#   --for TARGET  the make target to name in messages (default: deps);
#                 only deps fetches the 6.12 and 7.3 kernels
set -euo pipefail

target=deps
if [[ ${1:-} == --for ]]; then
	target=${2:?usage: deps.sh [--for TARGET] [PACKAGE...]}
	shift 2
fi

packages=(
	# The stock kernel the tests boot, and its headers to build against;
	# pahole for the BTF of modules built against bookworm-backports' 6.12.
	linux-image-amd64 linux-headers-amd64 dwarves
	# Sources of the debug and bench kernels, checkpatch.pl, and what
	# building them takes.
	linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev
	xz-utils python3 perl
	# Static analysis, packaging.
	sparse dkms
	# The test VM.
	qemu-system-x86 busybox-static kmod cpio rsync
	# The OpenCL ICD (tools/cl/): headers and ocl-icd's loader to build
	# it and tests/opencl against, clinfo for the VM.
	opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 clinfo
	# The Khronos C++ bindings (CL/opencl.hpp) tests/opencl/clhpp.cpp is
	# written against (g++ comes with build-essential).
	opencl-clhpp-headers
	# cmake and the SPIR-V headers the Khronos CTS's CMakeLists requires
	# (tools/scripts/build-cts.sh).
	cmake spirv-headers
	# Programs for the virtual GP100's SMs (NVSVM_IOCTL_LAUNCH, RV64IMAFD):
	# clang-14 compiles tests/gpu/*.c, ld.lld-14 links them at the image
	# window, llvm-14's llvm-objcopy, llvm-nm and llvm-readelf
	# flatten and check them (tools/gpu/build-kernel.sh).
	clang-14 lld-14 llvm-14
	# piglit's OpenCL tests (tests/guest-piglit.sh), and pocl's CPU device,
	# the host's reference OpenCL device: piglit's reference results
	# (tools/scripts/piglit-reference.sh), tests/opencl/workloads on the
	# host and make bench's pocl column.
	piglit pocl-opencl-icd
	"$@"
)

missing=()
for p in "${packages[@]}"; do
	if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != "install ok installed" ]]; then
		missing+=("$p")
	fi
done

if ((${#missing[@]} == 0)); then
	echo "$target: all ${#packages[@]} packages installed"
else
	echo "$target: installing ${missing[*]}"
	if ((EUID != 0)); then
		echo "$target: must run as root to install packages (try: sudo make $target)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The 6.12 and 7.3 kernels: for `make deps` and `make check`, not for the
# targets that use the stock kernel only (make demo, make bench).
if [[ $target == deps ]]; then
	exec "$(dirname "${BASH_SOURCE[0]}")/debian-kernels.sh" --for "$target"
fi
