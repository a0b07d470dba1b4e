#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A busy day of the learning daemon (ura-trace --watch), compressed: EXECS execs (default
# 20000) of 100 programs at once from a shell, popular ones far more often (program i of 90
# weighs 1/i), and every 200th exec a short-lived temporary binary: built in /tmp (a temporary
# tree: never learned) or in a root build tree (learned, then deleted: its pack goes when the
# daemon next looks for programs gone), 10 of them alive at a time. The daemon runs with
# --max-packs CAP (default 50, below the programs' count, so that the cap binds) and its other
# defaults. Sampled every second: the packs in DIR and their bytes, the daemon's RSS and fds.
# At the end: the most packs and bytes seen against the caps, each pack's writes (the log's
# "learned" lines, by program) against its budget (16 + one per --learn-interval), RSS and fds
# first, middle and last, and the daemon's counts. Then a second daemon on the same DIR shows
# the packs of the temporary programs forgotten at its start.
# Run as root: bench/learn-busy-day.sh [EXECS] [CAP]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
EXECS=${1:-20000}
CAP=${2:-50}
D=$(mktemp -d /run/ura-busy-day.XXXXXX)
chmod 755 "$D"
TMPB=$(mktemp -d /tmp/ura-busy-day.XXXXXX)
DAEMON=
SAMPLER=
trap '[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null; [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null;
	wait 2>/dev/null; rm -rf "$D" "$TMPB"' EXIT

mkdir -p "$D/bin" "$D/build"
for i in $(seq 90); do
	cp /bin/true "$D/bin/p$i"
done
"$TOP/build/ura-trace" --watch "$D/packs" --max-packs "$CAP" 2>"$D/log" &
DAEMON=$!
for _ in $(seq 100); do grep -F learning "$D/log" >/dev/null && break; sleep 0.1; done
sleep 1
PID=$DAEMON

sample() {	# seconds packs bytes rss_kb fds, one line a second
	local t0=$SECONDS
	while kill -0 "$PID" 2>/dev/null; do
		echo "$((SECONDS - t0)) $(find "$D/packs" -name '*.pack' 2>/dev/null | wc -l)" \
			"$(find "$D/packs" -name '*.pack' -printf '%s\n' 2>/dev/null |
				awk '{ s += $1 } END { print s + 0 }')" \
			"$(awk '/^VmRSS/ { print $2 }' /proc/"$PID"/status)" \
			"$(ls /proc/"$PID"/fd | wc -l)"
		sleep 1
	done
}
sample >"$D/samples" &
SAMPLER=$!

# the weights: program i of 90 chosen with probability proportional to 1/i
awk 'BEGIN { for (i = 1; i <= 90; i++) s += 1 / i; c = 0;
	for (i = 1; i <= 90; i++) { c += 1 / i / s; printf "%d %.6f\n", i, c } }' >"$D/cdf"
mapfile -t CDF < <(awk '{ print int($2 * 32768) }' "$D/cdf")
pick() {	# a program index 1..90 by the weights
	local r=$RANDOM i=0
	while [ $i -lt 89 ] && [ "$r" -ge "${CDF[$i]}" ]; do
		i=$((i + 1))
	done
	echo $((i + 1))
}
start=$(date +%s%N)
temp=0
alive=()
for n in $(seq "$EXECS"); do
	if [ $((n % 200)) = 0 ]; then
		# a temporary binary: one in /tmp, one in a root build tree, 10 of each alive
		temp=$((temp + 1))
		cp /bin/true "$TMPB/t$temp"
		cp /bin/true "$D/build/t$temp"
		alive+=("$temp")
		if [ ${#alive[@]} -gt 10 ]; then
			rm -f "$TMPB/t${alive[0]}" "$D/build/t${alive[0]}"
			alive=("${alive[@]:1}")
		fi
		"$TMPB/t$temp"
		"$D/build/t$temp"
		continue
	fi
	"$D/bin/p$(pick)"
done
end=$(date +%s%N)
for t in "${alive[@]}"; do
	rm -f "$TMPB/t$t" "$D/build/t$t"
done
sleep 12	# the last windows close and are written
kill -TERM "$DAEMON"
wait "$DAEMON" || true
DAEMON=
kill "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" 2>/dev/null || true
SAMPLER=

secs=$(echo "$start $end" | awk '{ printf "%.1f", ($2 - $1) / 1e9 }')
echo "$EXECS execs in $secs s ($temp temporary binaries in /tmp and as many in a build tree)"
grep -E "execs, " "$D/log" | sed "s/^ura-trace: /daemon: /"
awk -v cap="$CAP" '{ if ($2 > p) p = $2; if ($3 > b) b = $3 }
	END { printf "DIR: at most %d packs (cap %d), %.2f MiB (cap 128 MiB)\n", p, cap, b / 1048576 }' \
	"$D/samples"
# runs learned by pack (the log line ends with the pack's path: a program of another root,
# a container's, has a pack of its own)
grep -E "^ura-trace: learned '" "$D/log" | grep -oE "'[^']*'\$" | sort | uniq -c | sort -rn >"$D/writes"
budget=$(echo "$secs" | awk '{ printf "%d", 16 + int($1 / 600) + 1 }')
awk -v b="$budget" '{ if ($1 > m) { m = $1; w = $2 } n++ } END {
	printf "runs learned per pack: at most %d (%s), budget %d; %d packs learned into\n", m, w, b, n }' \
	"$D/writes"
grep -cF "learned '$TMPB/" "$D/log" | awk '{ print "runs of programs of /tmp learned: " $1 }' || true
awk 'NR == 1 { f = $0 } { l[NR] = $0 } END { m = l[int((NR + 1) / 2)];
	split(f, a); split(m, b); split(l[NR], c);
	printf "daemon RSS %d -> %d -> %d kB, fds %d -> %d -> %d (first, middle, last of %d s)\n",
		a[4], b[4], c[4], a[5], b[5], c[5], NR }' "$D/samples"
ls "$D/packs" | grep -c -- "-build-t" | awk '{ print "packs of the deleted build-tree binaries left: " $1 }' || true
# a daemon started again looks for programs gone at once
"$TOP/build/ura-trace" --watch "$D/packs" --max-packs "$CAP" --only /nonexistent 2>"$D/log2" &
DAEMON=$!
for _ in $(seq 100); do grep -F learning "$D/log2" >/dev/null && break; sleep 0.1; done
sleep 2
kill -TERM "$DAEMON"
wait "$DAEMON" || true
DAEMON=
grep -F removed "$D/log2" | sed "s/^ura-trace: /restarted daemon: /" || true
ls "$D/packs" | grep -c -- "-build-t" | awk '{ print "after its start, packs of deleted binaries: " $1 }' || true
[ -n "${LEARN_LOG:-}" ] && cp "$D/log" "$LEARN_LOG"
exit 0
