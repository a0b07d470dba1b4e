# SPDX-License-Identifier: GPL-2.0-or-later
# TAP helpers for the tool tests (no root needed): source, then plan N and ok/is.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
URA_DUMP="$TOP/ura-dump"
URA_TRACE="$TOP/ura-trace"
URA_REPLAY="$TOP/ura-replay"
DATA="$TOP/tests/data"
T=$(mktemp -d "${TMPDIR:-/tmp}/ura-tools.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
failed=0

plan() { echo "1..$1"; }

report() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		sed 's/^/# /' "$3" | head -20
		failed=$((failed + 1))
	fi
}

# ok DESCRIPTION COMMAND...: a check; passes when COMMAND exits 0
ok() {
	desc=$1; shift
	"$@" >"$T/check.out" 2>"$T/check.err"
	report $? "$desc" "$T/check.err"
}

# run_ok DESCRIPTION COMMAND...: runs a tool, keeps its output for the checks after it
run_ok() {
	desc=$1; shift
	"$@" >"$T/out" 2>"$T/err"
	report $? "$desc" "$T/err"
}

# status_is DESCRIPTION EXPECTED COMMAND...: runs a tool, passes when it exits EXPECTED
status_is() {
	desc=$1; want=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" = "$want" ]
	report $? "$desc (exit $got, expected $want)" "$T/err"
}

# Lines of the last command's output and error, for checks after ok/status_is.
out_has() { grep -F -- "$1" "$T/out" >/dev/null; }
err_has() { grep -F -- "$1" "$T/err" >/dev/null; }

done_testing() { exit $((failed > 0)); }
