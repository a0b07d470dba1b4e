#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every tool: --help on stdout with exit 0, --version, usage errors exit 64 with a hint
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
plan 21
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
done_testing
