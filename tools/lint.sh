#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The lint step, alone: needs no root, no build and no network.
#
#   tools/lint.sh              every check, in order
#   tools/lint.sh CHECK...     only those
#   tools/lint.sh --list       the checks' names, one a line
#
# The checks, by name:
#   - clang-format: kernel style over every tracked .c and .h (.clang-format)
#   - one-line-strings: no user-visible string continued on a later line,
#     so that every message greps (tools/one-line-strings.py)
#   - readme-counts: the counts of the README and docs/ are the tree's
#     (tools/readme-counts.py)
#   - gofmt: the Go files contrib/runc's build copies into runc
#   - shellcheck: every tracked shell file, bats and .bash as bash
#     (tools/shellcheck.sh)
# Prints "ok - CHECK" or "not ok - CHECK" and the check's output; exits 1
# if any failed, 2 on an unknown check.  tests/run-all.sh runs each check
# through this script.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
CHECKS=(clang-format one-line-strings readme-counts gofmt shellcheck)

# check_NAME: one check; its output goes to the caller.
check_clang-format() {
	local -a src
	mapfile -t src < <(git ls-files '*.c' '*.h')
	clang-format --dry-run -Werror "${src[@]}"
}

check_one-line-strings() {
	local -a src
	mapfile -t src < <(git ls-files '*.c' '*.h')
	python3 tools/one-line-strings.py "${src[@]}"
}

check_readme-counts() {
	python3 tools/readme-counts.py
}

check_gofmt() {
	local -a dirs bad
	mapfile -t dirs < <(git ls-files 'contrib/runc/*.go' | xargs -r -n1 dirname | sort -u)
	[ ${#dirs[@]} -gt 0 ] || return 0
	command -v gofmt >/dev/null || {
		echo "lint.sh: gofmt is missing (contrib/install-deps.sh test installs golang-go)"
		return 1
	}
	mapfile -t bad < <(gofmt -l "${dirs[@]}")
	[ ${#bad[@]} -eq 0 ] && return 0
	echo "not gofmt-formatted (run gofmt -w on them):"
	printf "  %s\n" "${bad[@]}"
	return 1
}

check_shellcheck() {
	tools/shellcheck.sh
}

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${CHECKS[@]}"
	exit 0
fi
[ $# -gt 0 ] || set -- "${CHECKS[@]}"
for c in "$@"; do
	case " ${CHECKS[*]} " in
	*" $c "*) ;;
	*)
		echo "lint.sh: unknown check '$c'; allowed: ${CHECKS[*]} (or --list)" >&2
		exit 2
		;;
	esac
done

rc=0
for c in "$@"; do
	if out=$("check_$c" 2>&1); then
		echo "ok - $c"
	else
		echo "not ok - $c"
		rc=1
	fi
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/  /'
done
exit "$rc"
