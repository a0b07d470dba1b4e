#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the learning daemon (ura-trace --watch, default options) costs in CPU time: its own
# CPU time (every thread's, /proc/PID/task/*/schedstat) over EXECS execs of /bin/true from a shell
# (default 2000), against the CPU time those execs used (the shell's and its children's,
# /proc/self/stat). One daemon for ROUNDS + 1 rounds (default 5): the first learns /bin/true (its
# first 16 runs: what a new program costs), the next ROUNDS are the steady state
# of a daemon that knows it; medians and min-max of those, the first apart. The same execs
# without the daemon, round by round, give their own CPU time.
# WHICH=learn (default) measures ura-trace --watch, WHICH=replay ura-replay --watch (the exec
# daemon, on the packs a learning daemon wrote during a first round of its own), WHICH=both
# the two together (their CPU summed).
# WORKLOAD=distinct: each round runs `CMD --version` of 100 distinct commands of /usr/bin (the
# first 100 that answer within 0.5 s, exit 0 and read no stdin) instead of /bin/true; EXECS
# is then ignored (100 execs a round).
# LEARN_ARGS and REPLAY_ARGS are added to the daemons' options; LEARN_LOG and REPLAY_LOG name
# files their logs are copied to.
# Run as root: [WHICH=...] [WORKLOAD=...] bench/learn-cpu.sh [ROUNDS] [EXECS]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
EXECS=${2:-2000}
D=$(mktemp -d /run/ura-learn-cpu.XXXXXX)
HZ=$(getconf CLK_TCK)
WHICH=${WHICH:-learn}
WORKLOAD=${WORKLOAD:-true}
if [ "$WORKLOAD" = distinct ]; then
	mkdir -p "$D/cwd"
	cd "$D/cwd"	# some leave files behind (gzexe's gz$$), even for --version
	PROGS=()
	for f in /usr/bin/*; do
		[ -f "$f" ] && [ -x "$f" ] && [ ! -u "$f" ] || continue
		case "${f##*/}" in *reboot*|*shutdown*|*halt*|*poweroff*|ura-*|*kill*) continue ;; esac
		timeout 0.5 "$f" --version </dev/null >/dev/null 2>&1 || continue
		PROGS+=("$f")
		[ ${#PROGS[@]} -ge 100 ] && break
	done
	EXECS=${#PROGS[@]}
	echo "workload: --version of ${#PROGS[@]} commands, one pass a round"
fi
DAEMON=
trap '[ -n "$DAEMON" ] && kill $DAEMON 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT

# CPU seconds (user + sys) of EXECS execs of /bin/true run by this shell itself (a driver started
# for it would be a program start the daemon learns, with all it forks): the shell's own time
# and its children's, from /proc (clock ticks)
execs_cpu() {
	local t0 t1 i=0 me=$BASHPID
	t0=$(awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$me/stat")
	if [ "$WORKLOAD" = distinct ]; then
		for p in "${PROGS[@]}"; do "$p" --version </dev/null >/dev/null 2>&1 || true; done
	else
		while [ $i -lt "$EXECS" ]; do
			/bin/true
			i=$((i + 1))
		done
	fi
	t1=$(awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$me/stat")
	echo "$t0 $t1 $HZ" | awk '{ print ($2 - $1) / $3 }'
}

daemon_ns() {	# CPU time of processes $@, ns, every thread (schedstat: ns, not clock ticks)
	for p in "$@"; do cat /proc/"$p"/task/*/schedstat; done | awk '{ t += $1 } END { printf "%.0f\n", t }'
}

threads_ns() {	# the same by thread: tid, name, ns
	for p in "$@"; do for t in /proc/"$p"/task/*; do
		echo "${t##*/}:$(cat "$t/comm") $(cut -d' ' -f1 "$t/schedstat")"
	done; done | sort
}

stats() {	# median min max of the numbers on stdin
	sort -g | awk '{ v[NR] = $1 } END { printf "%.4g %.4g %.4g\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

: >"$D/off"
: >"$D/on"
: >"$D/daemon"
: >"$D/share"
rm -rf "$D/packs"
"$TOP/build/ura-trace" --watch "$D/packs" ${LEARN_ARGS:-} 2>"$D/log" &
DAEMON=$!
for _ in $(seq 100); do grep -F learning "$D/log" >/dev/null && break; sleep 0.1; done
sleep 1
if [ "$WHICH" != learn ]; then
	# the packs a daemon learns in a first round, then the exec daemon on them
	execs_cpu >/dev/null
	sleep 2
	[ "$WHICH" = replay ] && { kill -TERM "$DAEMON"; wait "$DAEMON" || true; DAEMON=; }
	"$TOP/build/ura-replay" --watch "$D/packs" ${REPLAY_ARGS:-} 2>"$D/replay.log" &
	DAEMON="$DAEMON $!"
	sleep 1
fi
for r in $(seq 0 "$ROUNDS"); do
	kill -STOP $DAEMON	# the execs alone (the daemon stopped, its instances buffer)
	execs_cpu >"$D/c"
	off=$(cat "$D/c")
	kill -CONT $DAEMON
	sleep 1
	threads_ns $DAEMON >"$D/t0"
	t0=$(daemon_ns $DAEMON)
	execs_cpu >"$D/c"
	c=$(cat "$D/c")
	sleep 1	# the last windows close, their runs are written
	t1=$(daemon_ns $DAEMON)
	threads_ns $DAEMON >"$D/t1"
	d=$(echo "$t0 $t1" | awk '{ print ($2 - $1) / 1e9 }')
	echo "round $r: daemon $d s:" $(join "$D/t0" "$D/t1" 2>/dev/null |
		awk '{ printf "%s %.1f ms ", $1, ($3 - $2) / 1e6 }')
	share=$(echo "$d $c" | awk '{ print 100 * $1 / $2 }')
	if [ "$r" = 0 ]; then
		echo "first round (learning /bin/true): execs $c s, daemon $d s, $share%"
		continue
	fi
	echo "$off" >>"$D/off"
	echo "$c" >>"$D/on"
	echo "$d" >>"$D/daemon"
	echo "$share" >>"$D/share"
done
kill -TERM $DAEMON
wait $DAEMON || true
DAEMON=
grep -E "execs, " "$D/log" | sed "s/^ura-trace: /daemon: /"
[ -n "${LEARN_LOG:-}" ] && cp "$D/log" "$LEARN_LOG"
[ -n "${REPLAY_LOG:-}" ] && [ -f "$D/replay.log" ] && cp "$D/replay.log" "$REPLAY_LOG"
read -r m lo hi < <(stats <"$D/off")
echo "execs alone (daemon stopped): CPU $m s (min-max $lo-$hi) for $EXECS execs"
read -r m lo hi < <(stats <"$D/on")
echo "execs, daemon learning: CPU $m s ($lo-$hi)"
read -r m lo hi < <(stats <"$D/daemon")
echo "daemon: CPU $m s ($lo-$hi)"
read -r m lo hi < <(stats <"$D/share")
echo "daemon's CPU / the execs' CPU: $m% ($lo-$hi%)"
