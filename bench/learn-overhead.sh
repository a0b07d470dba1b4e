#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the learning daemon (ura-trace --watch) costs the rest of the system: 400 runs of
# /bin/true from a shell, with the daemon not running, running for every program, and running
# with --only naming another program. Medians of ROUNDS (default 7) rounds, with min-max.
# Run as root: bench/learn-overhead.sh [ROUNDS]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-7}
D=$(mktemp -d /tmp/ura-learn-bench.XXXXXX)
DAEMON=
trap '[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT

workload() {	# seconds for 400 runs of /bin/true from one shell
	python3 -c '
import subprocess, time
t = time.monotonic()
subprocess.run(["sh", "-c", "i=0; while [ $i -lt 400 ]; do /bin/true; i=$((i+1)); done"], check=True)
print(time.monotonic() - t)'
}

stats() {	# median min max of the numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { printf "%.3f %.3f %.3f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

measure() {	# NAME [DAEMON ARGS...]: rounds of the workload, the daemon started with ARGS first
	local name=$1 i
	shift
	if [ $# -gt 0 ]; then
		"$TOP/build/ura-trace" -q --watch "$D/packs" "$@" &
		DAEMON=$!
		sleep 1
	fi
	workload >/dev/null	# warm
	for i in $(seq "$ROUNDS"); do workload; done | stats >"$D/$name"
	if [ -n "$DAEMON" ]; then
		kill -TERM "$DAEMON"
		wait "$DAEMON" || true
		DAEMON=
	fi
	echo "$name: median $(cut -d' ' -f1 "$D/$name") s (min-max $(cut -d' ' -f2,3 "$D/$name" | tr ' ' -))"
}

measure off
measure all --window 10
measure only --window 10 --only /usr/bin/nonexistent-program
measure off2
python3 - "$D" <<'PY'
import sys
d = sys.argv[1]
m = {n: float(open(f"{d}/{n}").read().split()[0]) for n in ("off", "all", "only", "off2")}
base = (m["off"] + m["off2"]) / 2
for n in ("all", "only"):
    print(f"{n}: {100 * (m[n] - base) / base:+.1f}% against the daemon not running")
PY
