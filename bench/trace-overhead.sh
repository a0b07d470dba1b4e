#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Wall-time overhead of tracing a warm run of a real program (target <= 3%).
#
#   bench/trace-overhead.sh [ROUNDS]     default 9 rounds
#
# Each round runs a workload once plain and once under ura-trace, in alternating order; the
# workload times itself (bash's `time` around a loop of program starts), so the numbers are
# the program's own wall time, not ura-trace's start-up or the naming of files afterwards
# (ura-trace's total time is printed apart). Workloads: 20 starts of python3 importing a few
# modules, 10 gcc compilations of a small C file, and 400 runs of /bin/true from a shell (the
# exec-heavy case: each start maps and faults in the dynamic linker and libc again), all warm
# (run once before measuring). PY names the Python (default /usr/bin/python3: a python3
# found first in PATH may be a wrapper script, as pyenv's shims are, which spawns ~40 shells).
# Prints the medians of wall and CPU time (user + system) and the overheads. Needs root.
# On a busy machine the wall-time figures are noisy: use more rounds. URA_TRACE_ARGS adds
# options to ura-trace (e.g. "--events add").
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
URA_TRACE=${URA_TRACE:-$HERE/build/ura-trace}
ROUNDS=${1:-9}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 77; }
PY=${PY:-/usr/bin/python3}
[ -x "$PY" ] || PY=$(command -v python3)
T=$(mktemp -d /var/tmp/ura-overhead.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/hello.c" <<'C'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
C

# Each workload prints its own wall time, user and system CPU time in seconds.
python_work() {
	bash -c 'TIMEFORMAT="%R %U %S"; time (for i in $(seq 20); do "$1" -c "import os, sys, re, json, email, subprocess, logging, argparse"; done)' - "$PY" 2>&1 >/dev/null
}
gcc_work() {
	bash -c 'TIMEFORMAT="%R %U %S"; time (for i in $(seq 10); do gcc -O1 -o "$1/hello" "$1/hello.c"; done)' - "$T" 2>&1 >/dev/null
}

exec_work() {
	bash -c 'TIMEFORMAT="%R %U %S"; time (for i in $(seq 400); do /bin/true; done)' 2>&1 >/dev/null
}

median() {
	sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

for w in ${WORKLOADS:-python gcc exec}; do
	fn=${w}_work
	$fn >/dev/null	# warm
	: >"$T/plain" ; : >"$T/traced"; : >"$T/total"
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 0 ]; then $fn >>"$T/plain"; fi
		start=$(date +%s.%N)
		"$URA_TRACE" -q ${URA_TRACE_ARGS:-} --pack "$T/$w.pack" -- bash -c "$(declare -f $fn); PY=$PY T=$T; $fn" \
			>>"$T/traced"
		echo "$(date +%s.%N) - $start" | bc >>"$T/total"
		if [ $((r % 2)) = 1 ]; then $fn >>"$T/plain"; fi
	done
	p=$(cut -d' ' -f1 "$T/plain" | median) t=$(cut -d' ' -f1 "$T/traced" | median)
	pc=$(awk '{ print $2 + $3 }' "$T/plain" | median)
	tc=$(awk '{ print $2 + $3 }' "$T/traced" | median)
	tot=$(median <"$T/total")
	printf '%-7s wall: plain %.3f s, traced %.3f s, %+.1f%%   CPU: plain %.3f s, traced %.3f s, %+.1f%%   (ura-trace in all %.3f s)\n' \
		"$w" "$p" "$t" "$(echo "($t - $p) * 100 / $p" | bc -l)" \
		"$pc" "$tc" "$(echo "($tc - $pc) * 100 / $pc" | bc -l)" "$tot"
done
