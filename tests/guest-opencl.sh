#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's clinfo, through ocl-icd's libOpenCL, on the OpenCL ICD
# (tools/cl/, registered in /etc/OpenCL/vendors by run.sh --opencl), in the
# test VM: the nvsvm platform and its device are listed, with the device
# type, profile, SVM capabilities and built-in kernels the ICD reports
# (the OpenCL program itself is tests/opencl/opencl.c, /tests/bin/opencl).
# Starts and ends with neither module loaded. Prints KTAP.

. "${0%/*}/ktap.sh"

icd=/etc/OpenCL/vendors/nvsvm.icd
if ! command -v clinfo >/dev/null 2>&1 || [ ! -r $icd ]; then
	echo "1..0 # SKIP no clinfo or $icd in this VM (run.sh --opencl)"
	exit 4
fi
need_vgpu
tmp=$(mktemp -d)
err=$tmp/err
: >"$err"

# has FILE PATTERN...: every PATTERN (grep -E) matches a line of FILE.
has() {
	f=$1
	shift
	for p in "$@"; do
		grep -Eq "$p" "$f" || echo "no line matching '$p' in clinfo's output" >>"$err"
	done
}

echo "1..4"

# Without the GPU: the platform, and no device.
clinfo --raw >"$tmp/none" 2>&1
has "$tmp/none" '^\[nvsvm/\*\] +CL_PLATFORM_NAME +nvsvm$' \
	'^ +CL_PLATFORM_PROFILE +FULL_PROFILE$' \
	'^ +CL_PLATFORM_EXTENSIONS +cl_khr_icd cl_khr_byte_addressable_store ' \
	'^\[nvsvm/\*\] +#DEVICES +0$'
result "platform listed, no device without the module" "$err"

if ! modprobe nvsvm_vgpu; then
	not_ok "modprobe nvsvm_vgpu"
	rm -rf "$tmp"
	exit 1
fi
clinfo --raw >"$tmp/raw" 2>&1
clinfo >"$tmp/human" 2>&1
# What a user sees: the platform, the device, its SVM capabilities.
awk '/^  (Platform Name|Platform Profile|Device Name|Device Type|Device Profile|Compiler Available|Built-in kernels)  /
	/Shared Virtual Memory/ { n = 5 } n-- > 0' "$tmp/human" | sed 's/^/# /'
grep -E 'CL_DEVICE_SVM_CAPABILITIES' "$tmp/raw" | sed 's/^/# /'

has "$tmp/raw" '^\[nvsvm/0\] +CL_DEVICE_NAME +nvsvm0 ' \
	'^\[nvsvm/0\] +CL_DEVICE_TYPE +CL_DEVICE_TYPE_GPU$' \
	'^\[nvsvm/0\] +CL_DEVICE_PROFILE +FULL_PROFILE$' \
	'^\[nvsvm/0\] +CL_DEVICE_COMPILER_AVAILABLE +CL_TRUE$' \
	'^\[nvsvm/0\] +CL_DEVICE_OPENCL_C_VERSION +OpenCL C 1\.2 ?$' \
	'^\[nvsvm/0\] +CL_DEVICE_MAX_WORK_GROUP_SIZE +1024$' \
	'^\[nvsvm/0\] +CL_DEVICE_LOCAL_MEM_TYPE +CL_LOCAL$' \
	'^\[nvsvm/0\] +CL_DEVICE_EXTENSIONS +.*cl_khr_global_int32_base_atomics'
result "device: GPU, full profile, compiler, OpenCL C 1.2, work-groups of 1024" "$err"

svm=$(grep -E '^\[nvsvm/0\] +CL_DEVICE_SVM_CAPABILITIES ' "$tmp/raw")
for cap in COARSE_GRAIN_BUFFER FINE_GRAIN_BUFFER FINE_GRAIN_SYSTEM; do
	case $svm in
	*CL_DEVICE_SVM_$cap*) ;;
	*) echo "no CL_DEVICE_SVM_$cap in: $svm" >>"$err" ;;
	esac
done
result "SVM capabilities: coarse and fine buffer, fine system" "$err"

has "$tmp/raw" '^\[nvsvm/0\] +CL_DEVICE_BUILT_IN_KERNELS +nvsvm_fill;nvsvm_copy;nvsvm_sum;nvsvm_chase;nvsvm_atomic_add$'
result "built-in kernels" "$err"

rmmod nvsvm_vgpu nvsvm
rm -rf "$tmp"
[ "$fails" = 0 ]
