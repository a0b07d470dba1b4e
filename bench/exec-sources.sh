#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The exec-source measurement of bench/README.md ("Exec sources"): RUNS rounds, sources interleaved
# round by round. Run as root: sudo bench/exec-sources.sh [RUNS] > exec-sources.log
#   latency: /bin/true at 100 execs/s for 10 s (exec -> path known -> first readahead; reader CPU)
#   burst:   5000 execs while the reader sleeps 1 s (what survives a busy reader)
#   loop:    2000 execs back to back, with each source on and with none (cost in the exec path)
set -e
cd "$(dirname "$0")/.."
runs=${1:-5}
make -s bench
for r in $(seq "$runs"); do
	for s in proc fanotify tracefs; do
		echo "== round $r"
		build/bench/exec-sources $s latency 100 10
		build/bench/exec-sources $s burst 5000 1000
	done
	for s in none proc fanotify tracefs; do
		build/bench/exec-sources $s loop 2000
	done
done
