#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench (3): choose ura-replay's defaults on the slow-disk testbed (bench/testbed, up.sh
# first). Records the testbed's boot-like payload (/bench/boot.sh) once with ura-trace, then,
# run by run, interleaving the strategies, times a cold boot.sh in the throttled cgroup:
#   cold   nothing prefetched        warm   page cache kept from the run before
#   NAME   ura-replay OPTIONS PACK started alongside boot.sh, in the same cgroup
# and prints medians and the share of the cold-to-warm gap closed, (cold - t) / (cold - warm).
# The trace runs under TRACE_PROFILE (default: PROFILE), so that the pack's timeline is that of
# a cold start on this device, as a boot pack's is (it matters for --lead).
# Usage: bench/replay-testbed.sh [PROFILE] [RUNS] ['NAME=OPTIONS' ...]   (root; drops caches)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
TB=${TESTBED:-$(dirname "$0")/testbed}
PROFILE=${1:-hdd} RUNS=${2:-5}
TRACE_PROFILE=${TRACE_PROFILE:-$PROFILE}
shift 2 || shift $#
. "${TESTBED_WORK:-/var/tmp/ura-testbed}/state.env"
W=$(mktemp -d /var/tmp/ura-tb.XXXXXX)
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
make -s -C "$TOP" ura-replay ura-trace >/dev/null
if [ $# -eq 0 ]; then
	set -- "default=" "jobs1=--jobs 1" "jobs4=--jobs 4" "idle=--ioprio idle" \
		"lead1=--lead 1" "chunk128k=--chunk 128K" "chunk512k=--chunk 512K" \
		"random=--fadvise random"
fi
cold_cache() { sync; echo 3 >/proc/sys/vm/drop_caches; }
# time of boot.sh in the throttled cgroup, with an optional replay alongside
run() {
	"$TB/slowrun" "$PROFILE" -- bash -c '
		if [ -n "$1" ]; then "$2" -q $3 "$4" & fi
		s=$EPOCHREALTIME
		chroot "$5" /bench/boot.sh
		e=$EPOCHREALTIME
		wait
		echo "$s $e" | awk "{ printf \"%.3f\n\", \$2 - \$1 }"' - "$1" "$TOP/build/ura-replay" \
		"${2:-}" "$W/boot.pack" "$MNT"
}
cold_cache
"$TOP/build/ura-trace" -q --root "$MNT" -p "$W/boot.pack" -- "$TB/slowrun" "$TRACE_PROFILE" --chroot -- /bench/boot.sh
"$TOP/build/ura-replay" --dry-run --json "$W/boot.pack"
echo "profile $PROFILE (traced under $TRACE_PROFILE), $RUNS runs each, pack $(stat -c %s "$W/boot.pack") bytes"
names="cold warm"
for s in "$@"; do names="$names ${s%%=*}"; done
for r in $(seq "$RUNS"); do
	cold_cache
	echo "cold $(run '')" >>"$W/times"
	echo "warm $(run '')" >>"$W/times"
	for s in "$@"; do
		cold_cache
		echo "${s%%=*} $(run yes "${s#*=}")" >>"$W/times"
	done
	echo "run $r: $(tail -n $(($# + 2)) "$W/times" | tr '\n' ' ')"
done
for n in $names; do
	awk -v n="$n" '$1 == n { print $2 }' "$W/times" | sort -n |
		awk -v n="$n" '{ v[NR] = $1 } END { printf "%s %.3f %.3f %.3f\n", n, v[int((NR + 1) / 2)], v[1], v[NR] }'
done >"$W/medians"
cold=$(awk '$1 == "cold" { print $2 }' "$W/medians")
warm=$(awk '$1 == "warm" { print $2 }' "$W/medians")
echo "strategy   median(s)  min    max    gap closed   (options)"
while read -r n med mn mx; do
	opts=""
	for s in "$@"; do [ "${s%%=*}" = "$n" ] && opts=${s#*=}; done
	awk -v n="$n" -v m="$med" -v a="$mn" -v b="$mx" -v c="$cold" -v w="$warm" -v o="$opts" \
		'BEGIN { printf "%-10s %-10.3f %-6.3f %-6.3f %5.0f%%       %s\n", n, m, a, b, 100 * (c - m) / (c - w), o }'
done <"$W/medians"
