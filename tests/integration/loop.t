#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The loop as a machine runs it: the learning daemon and the exec daemon together, each with
# the options its unit gives (the learner also told --only, so that the test's own commands
# are not learned). A program that maps its data file and reads two spans of it is learned
# from a cold start; each later start is replayed by the exec daemon (the program then finds
# its data resident: a warm start, as the learner sees it) and learned again. The pack must
# keep, demanded, every page those replayed runs used, and the next start must still be
# replayed: a loop that forgot what a replay made warm would decay to nothing.
. "$(dirname "$0")/lib.sh"

need_root_tracefs
need_tools "$URA_TRACE" "$URA_REPLAY" "$URA_DUMP"
need_helpers
command -v systemd-escape >/dev/null || skip_all "systemd-escape is missing"

# below a directory only root can write to: the learner learns no file of a user's tree
T=$(mktemp -d /run/ura-loop-test.XXXXXX)
chmod 755 "$T"
LEARN="" REPLAY=""
cleanup() {
	[ -n "$LEARN" ] && kill "$LEARN" 2>/dev/null && wait "$LEARN" 2>/dev/null
	[ -n "$REPLAY" ] && kill "$REPLAY" 2>/dev/null && wait "$REPLAY" 2>/dev/null
	scratch_cleanup "$T"
}
trap cleanup EXIT
make_scratch_fs "$T" 64 >&2 || skip_all "cannot make a scratch ext4 loop filesystem"
M=$T/mnt
tracefs_snapshot

plan 9

PACKS=$T/packs
mkdir -p "$M/bin" "$M/data" "$PACKS"
chmod 700 "$PACKS"
# the pages it reads: 0-39 and 160-199 (two spans, each more than a fault-around window),
# by a helper it forks; then it lives 0.2 s more, as a start worth prefetching does (the
# learner names a program from /proc/PID: one gone before its exec is read is not learned)
PAGES="$(seq 0 39) $(seq 160 199)"
cp "$HELPERS/touch-pages" "$M/bin/touch-pages"
printf '#!/bin/sh\n"%s" "$@"\nsleep 0.2\nexit 0\n' "$M/bin/touch-pages" >"$M/bin/mapper"
chmod 755 "$M/bin/mapper"
head -c $((256 * 4096)) /dev/urandom >"$M/data/map"
sync
PACK="$PACKS/$(systemd-escape --path "$M/bin/mapper").pack"

"$URA_TRACE" --watch "$PACKS" --window 10 --only "$M/bin/mapper" -v 2>"$T/learn.log" &
LEARN=$!
for _ in $(seq 100); do [ -d "$TRACEFS/instances/ura-$LEARN-exec" ] && break; sleep 0.1; done
"$URA_REPLAY" --watch "$PACKS" -v 2>"$T/replay.log" &
REPLAY=$!
sleep 1

learned() { grep -cF "learned '$M/bin/mapper'" "$T/learn.log"; }
dropped() { grep -cF "not learning this run of '$M/bin/mapper'" "$T/learn.log"; }
# RUN: start the program with its data evicted (and its own file, as after a reboot); wait
# until the learner wrote the run. A run the learner refuses (traced too late: its tracing
# began after the script had forked, as on a busy machine) is started again, twice at most.
run() {
	local want=$(($(learned) + 1)) was
	for _ in 1 2 3; do
		was=$(dropped)
		"$HELPERS/evict" "$M/data/map" "$M/bin/mapper" "$M/bin/touch-pages"
		# shellcheck disable=SC2086
		"$M/bin/mapper" "$M/data/map" $PAGES || return 1
		for _ in $(seq 150); do
			[ "$(learned)" -ge "$want" ] && return 0
			[ "$(dropped)" -gt "$was" ] && break
			sleep 0.1
		done
		[ "$(dropped)" -gt "$was" ] || break
		echo "# a run refused: $(grep -F "not learning this run" "$T/learn.log" | tail -1)" >&2
	done
	echo "$(learned) runs learned, not $want" >&2
	cat "$T/learn.log" "$T/replay.log" >&2
	return 1
}
replays() { grep -cF "'$M/bin/mapper' started: issued" "$T/replay.log"; }
# the pages of the data file the pack holds demanded, one per line
demanded() {
	pack_ranges "$PACK" "$M/data/map" |
		awk '$3 == 1 { for (i = $1; i < $1 + $2; i++) print i }'
}
holds_pages() {
	local have
	have=$(demanded)
	for p in $PAGES; do
		grep -qx "$p" <<<"$have" || { echo "page $p not demanded in the pack" >&2; return 1; }
	done
}

ok "a cold start learned" run
ok "its pack holds the pages it read, demanded" holds_pages
ok "the daemons are running" kill -0 "$LEARN" "$REPLAY"
for i in 2 3 4 5; do
	run >&2 || break
done
ok "four more starts, each learned" test "$(learned)" -ge 5
ok "each of them replayed by the exec daemon ($(replays) replays)" test "$(replays)" -ge 4
ok "after the replayed runs the pack still holds every page they read, demanded" holds_pages
# the next start: replayed, its data resident a moment after exec
"$HELPERS/evict" "$M/data/map" "$M/bin/mapper" "$M/bin/touch-pages"
"$M/bin/mapper" "$M/data/map" 0
sleep 1.5
# (it reads page 0 only: its own fault reads around it, never pages 160-199)
ok "the next start is still replayed: the second span is resident ($("$MKPACK" --resident \
	"$M/data/map" $((160 * 4096)) $((40 * 4096)) | cut -d' ' -f1) bytes)" sh -c '
	"$1" --resident "$2" $((160 * 4096)) $((40 * 4096)) | awk "{ exit !(\$1 >= 36 * 4096) }"' \
	- "$MKPACK" "$M/data/map"

kill "$LEARN" "$REPLAY"
wait "$LEARN"
st1=$?
wait "$REPLAY"
st2=$?
LEARN="" REPLAY=""
ok "both daemons stop on SIGTERM with status 0" test "$st1" = 0 -a "$st2" = 0
ok "tracefs as found" tracefs_unchanged
