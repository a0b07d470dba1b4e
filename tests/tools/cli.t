#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every tool: --help on stdout with exit 0, --version, usage errors exit 64 with a hint; a bad
# value is said the same way by all three: "TOOL: invalid value 'X' for --OPT: CAUSE", the hint
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
plan 33
for tool in ura-dump ura-trace ura-replay; do
	bin="$BUILD/$tool"
	run_ok "$tool --help exits 0" "$bin" --help
	ok "$tool --help on stdout, ends with the man page" sh -c "grep -F 'See $tool(8).' '$T/out' >/dev/null && [ ! -s '$T/err' ]"
	run_ok "$tool -h is --help" "$bin" -h
	ok "$tool --version" sh -c "'$bin' --version | grep -E '^$tool [0-9]+\.[0-9]+\.[0-9]+\$' >/dev/null"
	ok "$tool -V" sh -c "'$bin' -V | grep -F '$tool ' >/dev/null"
	status_is "$tool bad option exits 64" 64 "$bin" --no-such-option
	ok "$tool bad option gives the hint" err_has "Try '$tool --help' for more information."
done
# tool, a bad value, the line it gives
bad_values=(
	"ura-dump|--sort colour p|invalid value 'colour' for --sort: expected access, path or size"
	"ura-replay|--jobs 0 p|invalid value '0' for --jobs: expected 1 to 64"
	"ura-trace|--keep-runs 0 --merge --pack x a|invalid value '0' for --keep-runs: expected 1 to 64"
)
for line in "${bad_values[@]}"; do
	IFS='|' read -r tool args said <<<"$line"
	# shellcheck disable=SC2086
	status_is "$tool bad value exits 64" 64 "$BUILD/$tool" $args
	ok "$tool names the value, the option and the cause" err_has "$tool: $said"
	ok "$tool then gives the hint" sh -c "tail -1 '$T/err' | grep -Fx \"Try '$tool --help' for more information.\" >/dev/null"
	ok "$tool says two lines, no more" sh -c "[ \$(wc -l <'$T/err') = 2 ]"
done
done_testing
