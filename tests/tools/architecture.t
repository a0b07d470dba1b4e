#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The documents agree with the tree: docs/ARCHITECTURE.md names every source file under src/
# (by its path relative to src/), nothing in the repository names the sibling directory it
# used to lean on, and README.md stays a front page (under 300 lines, its quick start in the
# first 80).
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
plan 5
arch=$TOP/docs/ARCHITECTURE.md
readme=$TOP/README.md

# The source files: git's list when the tree is a git checkout of its own, else the tree's
# (make deb builds in a copy below build/, which git ignores).
: >"$T/src"
if [ "$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$TOP" && pwd -P)" ]; then
	git -C "$TOP" ls-files src >"$T/src"
fi
if [ ! -s "$T/src" ]; then
	(cd "$TOP" && find src -name '*.c' -o -name '*.h') >"$T/src"
fi
sed -n 's|^src/||p' "$T/src" | sort -u >"$T/files"

# architecture_missing: the files of $T/files that docs/ARCHITECTURE.md does not name, one a
# line. A file is named by its path relative to src/, alone or after "src/".
architecture_missing() {
	local f re
	while read -r f; do
		re=$(printf '%s' "$f" | sed 's/[.]/[.]/g')
		grep -Eq "(^|[^A-Za-z0-9_./-]|src/)$re(\$|[^A-Za-z0-9_/-])" "$arch" || echo "$f"
	done <"$T/files"
}
all_named() {
	[ -f "$arch" ] || { echo "no $arch" >&2; return 1; }
	architecture_missing >"$T/missing"
	sed 's/^/not named: /' "$T/missing" >&2
	[ ! -s "$T/missing" ]
}
ok "the source files are listed ($(wc -l <"$T/files") of them)" test -s "$T/files"
ok "docs/ARCHITECTURE.md names every file under src/" all_named

# The text is put together so that this file does not hold it.
outside='..''/shared'
named_outside() {
	(cd "$TOP" && find . \( -path ./.git -o -path ./build -o -path ./bench/results \) -prune \
		-o -type f -print0 | xargs -0 grep -lIF -- "$outside")
}
ok "no file of the repository names $outside" not named_outside

lines=$(wc -l <"$readme")
ok "README.md is under 300 lines ($lines)" test "$lines" -lt 300
quick=$(grep -nE '^#+ +Quick start' "$readme" | head -n 1 | cut -d: -f1)
ok "README.md's quick start heading is within its first 80 lines (line ${quick:-none})" \
	test "${quick:-999}" -le 80
done_testing
