# SPDX-License-Identifier: GPL-2.0-or-later
# The TAP library of the shell tests (tests/tools/*.t, tests/integration/*.t). Source it:
#
#   . "$(dirname "$0")/../tap.sh"
#   tap_tmpdir                    # T: a scratch directory removed at exit (or set T yourself)
#   plan 3                        # or: skip_all "reason"
#   ok "a description" command args...
#   run_ok "runs" "$URA_DUMP" p.pack;  ok "says so" out_has "text"
#   status_is "exit 65 on a corrupt pack" 65 "$URA_DUMP" bad.pack
#   skip "why"                    # counts as one test
#   done_testing                  # last line: the script's exit status
#
# ok keeps the command's output in $T/check.out and $T/check.err and prints them as TAP
# diagnostics when the check fails. run_ok and status_is keep the output of the tool they
# run in $T/out and $T/err for the checks after them (out_has, err_has).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)
BUILD=${URA_BUILD:-$TOP/build}
URA_TRACE=${URA_TRACE:-$BUILD/ura-trace}
URA_REPLAY=${URA_REPLAY:-$BUILD/ura-replay}
URA_DUMP=${URA_DUMP:-$BUILD/ura-dump}
DATA=$TOP/tests/data

_tap_n=0
_tap_failed=0

plan() {
	echo "1..$1"
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# A scratch directory in $T, removed when the script exits.
tap_tmpdir() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/ura-test.XXXXXX") || exit 1
	trap 'rm -rf "$T"' EXIT
}

diag() {
	echo "# $*"
}

# tap_result STATUS DESCRIPTION [FILE...]: one result (0 passes); on failure the FILEs become
# diagnostics, on stderr so that prove shows them (the CI log is all there is of a rare failure)
tap_result() {
	local status=$1 desc=$2 f
	shift 2
	_tap_n=$((_tap_n + 1))
	if [ "$status" = 0 ]; then
		echo "ok $_tap_n - $desc"
		return 0
	fi
	echo "not ok $_tap_n - $desc"
	for f in "$@"; do
		[ -s "$f" ] && tail -n 20 "$f" | sed 's/^/# /' >&2
	done
	_tap_failed=$((_tap_failed + 1))
	return 1
}

# ok DESCRIPTION COMMAND [ARGS...]: one test, passing when COMMAND succeeds
ok() {
	local desc=$1
	shift
	if [ -d "${T:-}" ]; then
		"$@" >"$T/check.out" 2>"$T/check.err"
		tap_result $? "$desc" "$T/check.err" "$T/check.out"
	else
		"$@" >&2
		tap_result $? "$desc"
	fi
}

# run_ok DESCRIPTION COMMAND...: runs a tool, keeps its output in $T/out and $T/err
run_ok() {
	local desc=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	tap_result $? "$desc" "$T/err"
}

# status_is DESCRIPTION EXPECTED COMMAND...: runs a tool, passes when it exits EXPECTED
status_is() {
	local desc=$1 want=$2 got
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" = "$want" ]
	tap_result $? "$desc (exit $got, expected $want)" "$T/err"
}

skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n # skip $*"
}

# The last tool's output and error (after run_ok or status_is) hold a fixed string.
out_has() { grep -F -- "$1" "$T/out" >/dev/null; }
err_has() { grep -F -- "$1" "$T/err" >/dev/null; }

# CMD...: succeeds when CMD fails (for ok)
not() {
	! "$@"
}

# The exit status of a test script: its last command.
done_testing() {
	exit $((_tap_failed > 0))
}
