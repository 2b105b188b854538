#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The apt sources of a private apt configuration (one that leaves the
# machine's own alone): one line per Debian archive of the machine's
# (/etc/apt/sources.list{,.d/*.list} and deb822 sources.list.d/*.sources:
# the entries carrying the machine's own release suite, not -security,
# -updates or a third party's) and per SUITE given, with the archive's URI
# and signing key, component main. No host name of a mirror is written
# anywhere: the machine's configuration names it.
#
# usage: debian-archive.sh [--src] SUITE...
#   --src  deb-src lines (source packages), not deb
#        debian-archive.sh --options DIR
#   apt-get's options, one a line, for a private apt whose sources.list,
#   preferences, state and cache are in DIR (mapfile them into an array)
# NVSVM_APT_ETC overrides the apt configuration directory read (default
# /etc/apt). Used by tools/scripts/debian-kernels.sh and
# tools/scripts/pyopencl-source.sh.
set -euo pipefail

type=deb
if [[ ${1:-} == --options ]]; then
	apt=${2:?usage: debian-archive.sh --options DIR}
	printf -- '-o\n%s\n' "Dir::Etc::sourcelist=$apt/sources.list" \
		"Dir::Etc::sourceparts=$apt/sources.list.d" \
		"Dir::Etc::preferences=$apt/preferences" \
		"Dir::Etc::preferencesparts=$apt/preferences.d" \
		"Dir::State=$apt/state" "Dir::Cache=$apt/cache" "Acquire::Languages=none"
	exit 0
fi
if [[ ${1:-} == --src ]]; then
	type=deb-src
	shift
fi
(($#)) || { echo "usage: debian-archive.sh [--src] SUITE..." >&2; exit 2; }
etc=${NVSVM_APT_ETC:-/etc/apt}

# The machine's Debian archive: "URI SIGNED-BY" of every enabled deb entry
# with the machine's release suite (not -security, -updates or a third
# party's), from one-line and deb822 sources.
archive_uris() {
	local codename f
	# shellcheck disable=SC1091
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[[ -n $codename ]] || return 0
	shopt -s nullglob
	for f in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
		[[ -r $f ]] || continue
		awk -v want="$codename" '
		{ sub(/#.*/, "") }
		$1 != "deb" { next }
		{
			key = ""
			if ($2 ~ /^\[/) {
				opts = $0
				sub(/^[^[]*\[/, "", opts)
				sub(/\].*$/, "", opts)
				n = split(opts, o, /[ \t]+/)
				for (i = 1; i <= n; i++)
					if (o[i] ~ /^signed-by=/)
						key = substr(o[i], 11)
				rest = $0
				sub(/^[^]]*\][ \t]*/, "", rest)
				split(rest, f, /[ \t]+/)
			} else {
				split($0, f, /[ \t]+/)
				f[1] = $2; f[2] = $3
			}
			if (f[2] == want)
				print f[1], (key == "" ? "-" : key)
		}' "$f"
	done
	for f in "$etc"/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		awk -v want="$codename" '
		function flush(   n, u, s, i, j, ok) {
			if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[Nn][Oo]$/) {
				ok = 0
				n = split(suites, s, /[ \t]+/)
				for (i = 1; i <= n; i++)
					if (s[i] == want)
						ok = 1
				n = split(uris, u, /[ \t]+/)
				for (j = 1; ok && j <= n; j++)
					if (u[j] != "")
						print u[j], (key ~ /^\// ? key : "-")
			}
			types = uris = suites = key = enabled = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ { next }
		{
			name = tolower($0); sub(/:.*/, "", name)
			val = $0; sub(/^[^:]*:[ \t]*/, "", val); sub(/[ \t]+$/, "", val)
			if (name == "types") types = val
			else if (name == "uris") uris = val
			else if (name == "suites") suites = val
			else if (name == "signed-by") key = val
			else if (name == "enabled") enabled = val
		}
		END { flush() }' "$f"
	done
}

archive_uris | sort -u | while read -r uri key; do
	for s in "$@"; do
		if [[ $key == - ]]; then
			echo "$type $uri $s main"
		else
			echo "$type [signed-by=$key] $uri $s main"
		fi
	done
done
