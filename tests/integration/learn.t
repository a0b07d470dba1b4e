#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-trace --watch against the real kernel: learns a program's pack from its runs (a script that
# reads a data file), leaves alone a program not named with --only, stops on SIGTERM leaving no
# tracefs instance.
. "$(dirname "$0")/lib.sh"

need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP"
need_helpers
command -v python3 >/dev/null || skip_all "needs python3"

T=$(mktemp -d /var/tmp/ura-learn-test.XXXXXX)
DAEMON=
trap '[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null; scratch_cleanup "$T"' EXIT
make_scratch_fs "$T" 64 >&2 || skip_all "cannot make a scratch ext4 loop filesystem"
M=$T/mnt
tracefs_snapshot

plan 10

# the program: a script on the scratch filesystem that reads its data file; and another one
mkdir -p "$M/bin" "$M/data"
head -c $((40 * 4096)) /dev/urandom >"$M/data/app.dat"
head -c $((8 * 4096)) /dev/urandom >"$M/data/other.dat"
# The pause: the daemon's set_event_pid write takes effect 1-2 ms after the exec (measured: its
# wakeup and the write; the write then blocks 20-60 ms in the kernel's RCU synchronisation, but the
# new pid list is in place before that), so what a program does in its first ms is not learned
# (a known limit, see ura-trace(8)); the sh here forks its cat within that ms.
printf '#!/bin/sh\nsleep 0.05\ncat "%s" >/dev/null\n' "$M/data/app.dat" >"$M/bin/app"
printf '#!/bin/sh\ncat "%s" >/dev/null\n' "$M/data/other.dat" >"$M/bin/other"
chmod +x "$M/bin/app" "$M/bin/other"
PACKS=$T/packs
PACK=$PACKS/$(systemd-escape --path "$M/bin/app").pack
OTHER=$PACKS/$(systemd-escape --path "$M/bin/other").pack

timeout 60 "$URA_TRACE" --watch "$PACKS" --window 2 --only "$M/bin/app" -v 2>"$T/daemon.log" &
DAEMON=$!
# started: its exec instance is there (slow under ASan: setting up an instance parses every event
# format)
for _ in $(seq 300); do
	grep -F "learning" "$T/daemon.log" >/dev/null && break
	sleep 0.1
done
PID=$(pgrep -P "$DAEMON" ura-trace)
ok "the daemon runs with its two instances" test -n "$PID" -a -d "$TRACEFS/instances/ura-$PID-exec" -a \
	-d "$TRACEFS/instances/ura-$PID"

# RUN: run the program with its data evicted, wait for the daemon's line of that run
learned_runs() {
	grep -cF "learned '$M/bin/app'" "$T/daemon.log"
}
run_app() {
	local want=$(($(learned_runs) + 1))
	"$HELPERS/evict" "$M/data/app.dat"
	"$M/bin/app" || return 1
	"$M/bin/other" || return 1
	for _ in $(seq 60); do
		[ "$(learned_runs)" -ge "$want" ] && return 0
		sleep 0.1
	done
	echo "no run learned" >&2
	return 1
}
ok "first run learned" run_app
ok "second run learned" run_app
ok "third run learned" run_app
pack_ranges "$PACK" "$M/data/app.dat" >"$T/app.ranges" 2>&1
ok "the pack holds the data file's 40 pages, demanded" sh -c '
	pages=$(awk "\$3 == 1 { n += \$2 } END { print n + 0 }" "$1")
	[ "$pages" -ge 40 ] || { echo "demanded pages: $pages"; cat "$1"; exit 1; } >&2' - "$T/app.ranges"
ok "the pack merges the three runs (not the last one alone)" sh -c '
	"$1" --json "$2" | python3 -c "import json, sys; sys.exit(json.load(sys.stdin)[\"runs\"] != 3)"' \
	- "$URA_DUMP" "$PACK"
ok "a program not named with --only is not learned" sh -c '
	[ ! -e "$1" ] && ! grep -F "learned '"'"'$2" "$3"' - "$OTHER" "$M/bin/other" "$T/daemon.log"

kill -TERM "$PID"
wait "$DAEMON"
st=$?
DAEMON=
ok "SIGTERM stops it with status 0" test "$st" = 0
ok "no tracefs instance left, tracefs as found" tracefs_unchanged
ok "no temporary file left in the pack directory" sh -c '[ "$(ls "$1" | grep -v "\.pack$" | wc -l)" = 0 ]' - "$PACKS"
[ "$_tap_failed" = 0 ] && [ -z "${URA_TEST_VERBOSE:-}" ] || sed 's/^/# daemon: /' "$T/daemon.log"
done_testing
