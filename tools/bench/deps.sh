#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What `make bench` needs beyond `make deps` (tools/scripts/deps.sh, run
# first): gnuplot for the plot. Installs, as root and idempotently, only
# what is missing; needs no root and no network when all is there.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/../scripts/deps.sh"

packages=(gnuplot-nox)
missing=()
for p in "${packages[@]}"; do
	if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != "install ok installed" ]]; then
		missing+=("$p")
	fi
done
if ((${#missing[@]} == 0)); then
	echo "bench deps: ${packages[*]} installed"
	exit 0
fi
echo "bench deps: installing ${missing[*]}"
if ((EUID != 0)); then
	echo "bench deps: must run as root to install packages (try: sudo make bench)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${missing[@]}" ||
	{ apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; }
