#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each tool's --help and the OPTIONS section of its man page name the same long options
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
plan 12
for tool in ura-dump ura-trace ura-replay; do
	man="$TOP/man/$tool.8"
	"$BUILD/$tool" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$T/help"
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | grep -oE -- '\\-\\-[a-z][a-z0-9-]*' |
		sed 's/\\-/-/g' | sort -u >"$T/man"
	ok "$tool: every --help option is in $tool.8" sh -c "comm -23 '$T/help' '$T/man' | tee /dev/stderr | [ \$(wc -l) = 0 ]"
	ok "$tool: every option in $tool.8 is in --help" sh -c "comm -13 '$T/help' '$T/man' | tee /dev/stderr | [ \$(wc -l) = 0 ]"
	for section in "EXIT STATUS" "SEE ALSO"; do
		ok "$tool.8 has $section" grep -F ".SH $section" "$man"
	done
done
done_testing
