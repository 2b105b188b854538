#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel's own hmm-tests, unmodified, from a lane's kernel source
# (tools/testing/selftests/vm/ up to 6.2, tools/testing/selftests/mm/
# after), as a static binary OUT/hmm-tests for the test VM. It is compiled
# the way the selftests Makefile compiles it (-I of the source top for
# lib/test_hmm_uapi.h and mm/gup_test.h, the helpers it links with), with
# the build host's libc and uapi headers.
#
# usage: build.sh KSRC OUT
#   e.g. build.sh $(tools/scripts/linux-source.sh) build/hmm-6.1
set -euo pipefail

ksrc=$(cd "$1" && pwd)
out=$2
st=$ksrc/tools/testing/selftests
dir=$st/mm
[[ -f $dir/hmm-tests.c ]] || dir=$st/vm
if [[ ! -f $dir/hmm-tests.c ]]; then
	echo "build.sh: no hmm-tests.c under $st/{mm,vm}" >&2
	exit 1
fi
srcs=("$dir/hmm-tests.c")
# Helpers the selftests Makefile links every program of the directory with.
for f in vm_util.c thp_settings.c hugepage_settings.c; do
	if [[ -f $dir/$f ]] && grep -q "$f" "$dir/Makefile"; then
		srcs+=("$dir/$f")
	fi
done
mkdir -p "$out"
${CC:-gcc} -static -O2 -Wall -U_FORTIFY_SOURCE -I "$ksrc" -I "$dir" -I "$st" \
	-isystem "$ksrc/tools/include/uapi" -o "$out/hmm-tests" "${srcs[@]}" \
	-lrt -lpthread -lm
