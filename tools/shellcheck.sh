#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs Debian's shellcheck over every shell file that git tracks: *.sh,
# *.bash and *.bats (the last two as bash: bats loads them into bash), and
# every other file whose first line is a sh, bash or dash shebang
# (contrib/docker/run-at-level, contrib/containerd/runc-debug, .ci/run,
# ...), so that a new script is checked without being listed.  Fails on
# any error or warning; a warning that is wrong for its line is disabled
# on that line, with the reason: "# shellcheck disable=SCxxxx # why".
#
#   tools/shellcheck.sh            check the tree
#   tools/shellcheck.sh --list     print the files it checks, one a line
set -euo pipefail

cd "$(dirname "$0")/.."
command -v shellcheck >/dev/null ||
	{ echo "shellcheck.sh: shellcheck is missing (contrib/install-deps.sh test)" >&2; exit 1; }

as_bash=() as_is=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue # deleted in the work tree, not yet in the index
	case "$f" in
	*.bats | *.bash) as_bash+=("$f") ;;
	*.sh) as_is+=("$f") ;; # without a shebang it needs a "shell=" directive
	*)
		IFS= read -r first <"$f" || true
		if [[ "$first" =~ ^#![[:space:]]*(/usr)?/bin/(env[[:space:]]+)?(ba|da)?sh([[:space:]]|$) ]]; then
			as_is+=("$f")
		fi
		;;
	esac
done < <(git ls-files -z)

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${as_bash[@]}" "${as_is[@]}" | LC_ALL=C sort
	exit 0
fi
[ $# -eq 0 ] || { echo "shellcheck.sh: unknown argument '$1': allowed is --list" >&2; exit 2; }

rc=0
# -x: follow the files a script sources, where a "# shellcheck source="
# directive names them.
shellcheck -x -S warning -s bash "${as_bash[@]}" || rc=1
shellcheck -x -S warning "${as_is[@]}" || rc=1
[ "$rc" -ne 0 ] || echo "shellcheck.sh: $((${#as_bash[@]} + ${#as_is[@]})) files, no warning"
exit "$rc"
