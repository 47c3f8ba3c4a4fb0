#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copies the table that tests/kernels/run.sh last wrote (build/kernels/
# matrix.md) into docs/kernel-matrix.md between the kernel-matrix markers,
# so that the table is the script's output and never edited by hand.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
table="$REPO/build/kernels/matrix.md"
readme="$REPO/docs/kernel-matrix.md"
[ -s "$table" ] || { echo "update-matrix: no $table; run tests/kernels/run.sh first" >&2; exit 1; }
grep -q '^<!-- kernel-matrix:begin -->$' "$readme" ||
	{ echo "update-matrix: docs/kernel-matrix.md lacks the kernel-matrix markers" >&2; exit 1; }
awk -v table="$table" '
	/^<!-- kernel-matrix:begin -->$/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
	/^<!-- kernel-matrix:end -->$/ { skip = 0 }
	!skip' "$readme" >"$readme.new"
mv "$readme.new" "$readme"
