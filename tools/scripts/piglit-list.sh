#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The OpenCL tests of Debian's piglit package that make check runs, from
# the package's own test list (tests/cl.xml.gz, what `piglit run cl`
# runs), one a line: "NAME<TAB>COMMAND ARGS", the command relative to the
# piglit directory's bin/, its file arguments relative to that directory:
#   - every test of type "cl": the cl-api-*, cl-custom-*, cl-program-*
#     and cl-interop-* programs;
#   - every "cl_prog" test whose file is under tests/cl/program/ (build
#     and execute), run by cl-program-tester.
# Not piglit's generated_tests/cl (builtin, store, vload, vstore: about
# 440 more kernels), to keep a TCG lane's run short.
#
# usage: piglit-list.sh [PIGLIT_DIR]   (default /usr/lib/x86_64-linux-gnu/piglit)
set -euo pipefail

dir=${1:-/usr/lib/x86_64-linux-gnu/piglit}
xml=$dir/tests/cl.xml.gz
if [[ ! -r $xml ]]; then
	echo "piglit-list.sh: no $xml (apt-get install piglit, or make deps)" >&2
	exit 1
fi
zcat "$xml" | sed 's|</Test>|\n|g' | sed -n \
	-e "s|^.*<Test type=\"cl\" name=\"\([^\"]*\)\"><option name=\"command\" value=\"\['\([^']*\)'\]\".*|\1\t\2|p" \
	-e "s|^.*<Test type=\"cl_prog\" name=\"\([^\"]*\)\"><option name=\"filename\" value=\"'\(tests/cl/program/[^']*\)'\".*|\1\tcl-program-tester \2|p"
