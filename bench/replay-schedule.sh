#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench (1): a pack of 100,000 ranges is read, checked and scheduled (ura-replay --dry-run)
# in < 20 ms and < 32 MiB RSS. Usage: bench/replay-schedule.sh [NRANGES] [RUNS]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-100000} RUNS=${2:-21}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
make -s -C "$TOP" ura-replay build/libura.a >/dev/null
${CC:-cc} -O2 -I"$TOP/include" -o "$T/genpack" "$TOP/bench/replay-genpack.c" "$TOP/build/libura.a"
"$T/genpack" "$T/bench.pack" "$N"
echo "pack: $N ranges, $(stat -c %s "$T/bench.pack") bytes"
"$TOP/build/ura-replay" --dry-run --json "$T/bench.pack"
# wall time of the whole process (exec, read, CRC, validation, scheduling, report)
for _ in $(seq "$RUNS"); do
	/usr/bin/time -f '%e %M' "$TOP/build/ura-replay" --dry-run -q "$T/bench.pack" 2>&1 >/dev/null |
		tail -1
done | sort -n | awk '{ t[NR] = $1; m[NR] = $2 } END {
	printf "wall: median %.0f ms, max %.0f ms; max RSS: %d KiB (%d runs)\n",
		t[int((NR + 1) / 2)] * 1000, t[NR] * 1000, m[NR], NR }'
# finer: the same loop timed in-process by bash ($EPOCHREALTIME)
best=999999
for _ in $(seq "$RUNS"); do
	s=$EPOCHREALTIME
	"$TOP/build/ura-replay" --dry-run -q "$T/bench.pack"
	e=$EPOCHREALTIME
	us=$(( (${e/./} - ${s/./}) ))
	[ "$us" -lt "$best" ] && best=$us
	echo "$us"
done | sort -n | awk '{ v[NR] = $1 } END { printf "wall (us): min %d, median %d, max %d\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
