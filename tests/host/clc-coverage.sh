#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# clc-coverage.sh NVCLC OUTDIR: does every built-in function that
# opencl-c.h declares link against the device library? For each language
# version (CL1.2, CL2.0, CL3.0, and CL3.0 with the generic address space
# and the seq_cst/device-scope atomics), one call of each declared function
# (arguments of its parameter types, cast from 0) is compiled for the SMs,
# llvm-link --only-needed with NVCLC, and the symbols left undefined are
# listed. Left out, as the library does not have them (docs/opencl.md):
# images, samplers, pipes, printf, device-side enqueue, sub-groups and the
# work-group collective functions, to_global/to_local/to_private.
# Exit status: 0 when nothing is left undefined.
set -euo pipefail

nvclc=${1:?usage: clc-coverage.sh NVCLC OUTDIR}
out=${2:?usage: clc-coverage.sh NVCLC OUTDIR}
CLANG=${CLANG:-clang-14}
LLVM_LINK=${LLVM_LINK:-llvm-link-14}
NM=${NM:-llvm-nm-14}
CXXFILT=${CXXFILT:-llvm-cxxfilt-14}
mkdir -p "$out"

# From clang's -ast-dump of opencl-c.h (colours off, vector types by name):
# one call per function declaration.
calls() {
	"$CLANG" "$@" -Xclang -ast-dump -fsyntax-only "$out/inc.cl" 2>/dev/null |
	sed -E 's/\x1b\[[0-9;]*m//g; s/unsigned (char|short|int|long)/u\1/g;
		s/_Atomic\((u?(int|long)|float|double)\)/atomic_\1/g;
		s/([a-z]+) __attribute__\(\(ext_vector_type\(([0-9]+)\)\)\)/\1\2/g;
		s/ __attribute__\(\(ext_vector_type\([0-9]+\)\)\)//g' |
	awk '
	/FunctionDecl/ && !/implicit/ {
		if (!match($0, / [A-Za-z_][A-Za-z0-9_]* \x27[^\x27]*\x27/))
			next
		s = substr($0, RSTART + 1, RLENGTH - 1)
		name = substr(s, 1, index(s, " ") - 1)
		type = substr(s, index(s, "\x27") + 1)
		sub(/\x27.*$/, "", type)
		if (type ~ /image|sampler|pipe|queue_t|clk_event|ndrange|reserve_id|\.\.\.|block/)
			next
		if (name ~ /^(printf|enqueue_|get_kernel_|sub_group|work_group_(all|any|broadcast|reduce|scan)|get_sub_group|get_max_sub_group|get_num_sub_groups|get_enqueued_num_sub_groups|to_global|to_local|to_private|get_fence|atomic_flag_init)/)
			next
		params = type
		sub(/^[^(]*\(/, "", params)
		sub(/\)$/, "", params)
		args = ""
		if (params != "void" && params != "") {
			n = split(params, p, ", ")
			for (i = 1; i <= n; i++) {
				t = p[i]
				sub(/^__private /, "", t)
				sub(/ \*__private$/, " *", t)
				args = args (i > 1 ? ", " : "") "(" t ")0"
			}
		}
		print "\t" name "(" args ");"
	}'
}

ext=+cl_khr_fp64,+__opencl_c_fp64,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics
ext+=,+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics
ext+=,+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics
ext+=,+cl_khr_byte_addressable_store
gen=+__opencl_c_generic_address_space,+__opencl_c_atomic_order_seq_cst
gen+=,+__opencl_c_atomic_scope_device,+__opencl_c_atomic_order_acq_rel
gen+=,+__opencl_c_atomic_scope_all_devices
# opencl-c.h of clang 14 declares the image functions of CL3.0 unguarded
img=,+__opencl_c_images,+__opencl_c_read_write_images
echo '#include <opencl-c.h>' > "$out/inc.cl"
bad=0
for cfg in CL1.2 CL2.0 CL3.0 CL3.0+generic; do
	std=${cfg%+generic}
	e=$ext
	[[ $std == CL3.0 ]] && e+=$img
	[[ $cfg == *+generic ]] && e+=,$gen
	flags=(-x cl -cl-std="$std" --target=riscv64-unknown-elf -march=rv64imafd
	       -mabi=lp64d -mcmodel=medany -fno-pic -msmall-data-limit=0
	       -Xclang -cl-ext="$e")
	f=$out/calls-$cfg
	{
		echo '#include <opencl-c.h>'
		echo '#pragma OPENCL EXTENSION cl_khr_fp64 : enable'
		echo 'void all_calls(void);'
		echo 'void all_calls(void) {'
		calls "${flags[@]}"
		echo '}'
	} > "$f.cl"
	n=$(grep -c $'^\t' "$f.cl")
	"$CLANG" "${flags[@]}" -Wno-unused-value -emit-llvm -c "$f.cl" -o "$f.bc"
	"$LLVM_LINK" "$f.bc" --only-needed "$nvclc" -o "$f.linked.bc"
	"$NM" -u "$f.linked.bc" | sed 's/^ *U //' > "$f.undef"
	u=$(wc -l < "$f.undef")
	if (( u )); then
		bad=1
		echo "not ok $cfg: $n functions, $u undefined:"
		"$CXXFILT" < "$f.undef" | sed -n '1,20s/^/#   /p'
	else
		echo "ok $cfg: $n functions, all defined"
	fi
done
exit $bad
