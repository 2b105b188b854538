#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build one C program for the virtual GP100's SMs (tools/gpu/nvgpu.h) into
# an image for NVSVM_IOCTL_LAUNCH, and a C header that embeds it (the test
# VM gets only the static test programs, so the images travel inside them).
#
# usage: build-kernel.sh SRC.c OUTDIR
#        NVCLC=nvclc.bc build-kernel.sh SRC.cl OUTDIR
#   OUTDIR/NAME.o, NAME.elf (linked at NVSVM_GPU_IMAGE_BASE by nvgpu.ld),
#   NAME.bin (the image: its bytes from the base) and NAME.h:
#     static const unsigned char gpu_NAME_image[];  the image
#     GPU_NAME_SIZE                                 its bytes
#     GPU_NAME_<KERNEL>                             entry offset of each
#                                                   NVGPU_KERNEL(kernel, ...)
#     GPU_NAME_MARK_<LABEL>                         offset of each global
#                                                   label nvgpu_mark_<label>
#                                                   (inline asm: the pc a
#                                                   test expects in fault_pc)
# Fails (and leaves no NAME.h) when the image would not run as the device
# ABI says: a compressed instruction, a relocation left, a writable section
# with content (.data, .bss: the image window is read only), an undefined
# symbol (no libc), no entry point.
#
# An OpenCL C source (.cl, OpenCL C $CLSTD, by default CL1.2, with
# cl_khr_fp64 and the int64 atomics) calls the built-in functions of the device library NVCLC
# (tools/cl/clc/, make -C tools clc), linked in with llvm-link
# --only-needed before the -O2 compile; its entry points are plain
# functions nvgpu_kernel_<name>(args), as NVGPU_KERNEL() declares them.
#
# Floating point: -ffp-contract=off, so that a*b+c is two rounded operations
# as in the host's C compiled with the same flag (tests/launch.c checks
# results bit for bit).
# -msmall-data-limit=0: clang-14 otherwise puts floating-point constants of
# 8 bytes or less into .sdata, writable, where the image cannot have them.
set -euo pipefail

src=${1:?usage: build-kernel.sh SRC.c OUTDIR}
out=${2:?usage: build-kernel.sh SRC.c OUTDIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
name=$(basename "${src%.cl}" .c)
NAME=$(echo "$name" | tr 'a-z-' 'A-Z_')
cname=$(echo "$name" | tr - _)
base=0x4000000000000000

CLANG=${CLANG:-clang-14}
LLD=${LLD:-ld.lld-14}
OBJCOPY=${OBJCOPY:-llvm-objcopy-14}
LLVM_LINK=${LLVM_LINK:-llvm-link-14}
NM=${NM:-llvm-nm-14}
READELF=${READELF:-llvm-readelf-14}

die() {
	echo "build-kernel.sh: $src: $*" >&2
	rm -f "$out/$name.h" "$out/$name.bin"
	exit 1
}

mkdir -p "$out"
rm -f "$out/$name.h"
target=(--target=riscv64-unknown-elf -march=rv64imafd -mabi=lp64d
	-mcmodel=medany -ffp-contract=off -fno-pic -msmall-data-limit=0)
if [[ $src == *.cl ]]; then
	[[ -f ${NVCLC:-} ]] || die "NVCLC=path/to/nvclc.bc needed for OpenCL C"
	# the whole opencl-c.h: clang-14's own declarations lack vload_half etc.
	"$CLANG" -x cl -cl-std="${CLSTD:-CL1.2}" "${target[@]}" -O2 \
		-cl-no-stdinc -Xclang -finclude-default-header \
		-Xclang -cl-ext=+cl_khr_fp64,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics \
		-Wall -Werror -emit-llvm -c "$src" -o "$out/$name.user.bc"
	"$LLVM_LINK" "$out/$name.user.bc" --only-needed "$NVCLC" -o "$out/$name.bc"
	"$CLANG" "${target[@]}" -O2 -c "$out/$name.bc" -o "$out/$name.o"
else
	"$CLANG" "${target[@]}" -O2 -ffreestanding -fno-builtin -fno-math-errno \
		-nostdlib -nostdinc \
		-isystem "$("$CLANG" -print-resource-dir)/include" \
		-I "$here/include" -I "$here" -I "$top/uapi" \
		-Wall -Wextra -Werror -c "$src" -o "$out/$name.o"
fi
"$LLD" -static -nostdlib --no-undefined -T "$here/nvgpu.ld" \
	-o "$out/$name.elf" "$out/$name.o"

# RVC in the ELF header's flags, or any 2-byte instruction in the code.
flags=$("$READELF" -h "$out/$name.elf" | sed -n 's/^ *Flags: *\(0x[0-9a-f]*\).*/\1/p')
(( (flags & 1) == 0 )) || die "compressed instructions (e_flags $flags)"
# Every 32-bit word of the code must have its low two bits set: a 16-bit
# (compressed) parcel has not, and there are no instructions of other sizes.
"$OBJCOPY" -O binary --only-section=.text "$out/$name.elf" "$out/$name.text"
if od -An -v -tx4 "$out/$name.text" | tr -s ' ' '\n' | grep -v '^$' |
	grep -qv '[37bf]$'; then
	die "a compressed (16-bit) instruction in .text"
fi
rm -f "$out/$name.text"
# No relocation may be left for anyone to apply.
if "$READELF" -S -W "$out/$name.elf" | grep -qE '\] +\.rela?\.'; then
	die "relocation sections in the linked image"
fi
# Sections: flags W (writable) with a size > 0 fail.
while read -r sname ssize sflags; do
	if [[ $sflags == *W* ]] && (( 16#$ssize != 0 )); then
		die "writable section $sname of $((16#$ssize)) bytes: the image window is read only (keep state in local or private memory)"
	fi
done < <("$READELF" -S -W "$out/$name.elf" |
	sed -n 's/^ *\[ *[0-9]*\] \(\.[^ ]*\) *[A-Z_]* *[0-9a-f]* *[0-9a-f]* *\([0-9a-f]*\) *[0-9a-f]* *\([A-Z]*\).*/\1 \2 \3/p')

"$OBJCOPY" -O binary --only-section=.text --only-section=.rodata \
	"$out/$name.elf" "$out/$name.bin"
size=$(stat -c %s "$out/$name.bin")
(( size > 0 && size % 4 == 0 && size <= 1048576 )) ||
	die "image of $size bytes (a multiple of 4, 4 to 1 MiB)"

syms=$("$NM" --defined-only "$out/$name.elf")
entries=$(awk '$2 == "T" && $3 ~ /^nvgpu_kernel_/ { print $1, substr($3, 14) }' <<< "$syms")
[[ -n $entries ]] || die "no NVGPU_KERNEL() entry point"
marks=$(awk '$2 == "T" && $3 ~ /^nvgpu_mark_/ { print $1, "MARK_" substr($3, 12) }' <<< "$syms")

{
	echo "/* Generated by tools/gpu/build-kernel.sh from $(basename "$src"); do not edit. */"
	echo "#define GPU_${NAME}_SIZE $size"
	while read -r addr kname; do
		off=$(( 16#$addr - base ))
		(( off >= 0 && off < size && off % 4 == 0 )) ||
			die "entry $kname at $addr outside the image"
		echo "#define GPU_${NAME}_$(echo "$kname" | tr a-z A-Z) $off"
	done <<< "$entries${marks:+$'\n'$marks}"
	echo "static const unsigned char gpu_${cname}_image[GPU_${NAME}_SIZE] __attribute__((aligned(8))) = {"
	od -An -v -tx1 "$out/$name.bin" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1, /g; s/, $/,/; s/^/\t/'
	echo "};"
} > "$out/$name.h.tmp"
mv "$out/$name.h.tmp" "$out/$name.h"
