#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What `make bench` needs: the packages of `make deps` (tools/scripts/deps.sh:
# among them linux-source-6.1 and the tools that build the bench kernel,
# tools/scripts/build-bench-kernel.sh), plus gnuplot for the plot. Installs,
# as root and idempotently, only what is missing; needs no root and no
# network when all is there.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$here/../scripts/deps.sh" --for bench gnuplot-nox
