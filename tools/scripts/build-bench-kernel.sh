#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the bench kernel: tinyconfig + tools/kconfig/bench.config
# from Debian's linux-source-6.1, with DEVICE_PRIVATE and TEST_HMM=m but no
# checkers, cached as /var/cache/nvsvm/kernel-bench-<key> by the same recipe
# as the debug kernel (build-debug-kernel.sh). Prints the build directory.
#
# usage: build-bench-kernel.sh [--source SERIES] [--cached]
#   --source 7.3  the same from linux-source-7.3 (large device-private
#                 folios: MIGRATE moves THPs as 2 MiB VRAM pages), with
#                 tools/kconfig/bench-7.3.config merged after bench.config,
#                 cached as kernel-7.3-bench-<key>
#   --cached      print the build directory only if it is built already
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$here/build-debug-kernel.sh" "$@" "$here/../kconfig/bench.config" bench
