# SPDX-License-Identifier: GPL-2.0-or-later
# What the integration tests share beyond the TAP library (tests/tap.sh, sourced here):
# root and tracefs checks, the helpers, tracefs snapshots, scratch filesystems, pack queries.
#
#   . "$(dirname "$0")/lib.sh"
#   need_root_tracefs            # or: skip_all "reason"
#   plan 3
#   tracefs_snapshot; ...; ok "tracefs as found" tracefs_unchanged
#
# Every tool run should be wrapped in `timeout`. Paths of the tools: $URA_TRACE, $URA_REPLAY,
# $URA_DUMP (from the top of the tree unless set), helpers in $HELPERS.

. "$(dirname "${BASH_SOURCE[0]:-$0}")/../tap.sh"
HELPERS=$BUILD/tests/integration/helpers
HELPER_SRC=$TOP/tests/integration/helpers
MKPACK=$HELPERS/mkpack
TRACEFS=${TRACEFS:-/sys/kernel/tracing}

need_root_tracefs() {
	if [ "$(id -u)" != 0 ] || { [ ! -d "$TRACEFS/instances" ] &&
		! mount -t tracefs nodev "$TRACEFS" 2>/dev/null; }; then
		skip_all "needs root and tracefs"
	fi
	[ -d "$TRACEFS/instances" ] || skip_all "needs root and tracefs"
}

need_tools() {
	local t
	for t in "$@"; do
		[ -x "$t" ] || skip_all "$(basename "$t") is not built (run make)"
	done
}

need_helpers() {
	[ -x "$HELPERS/evict" ] && [ -x "$HELPERS/touch-pages" ] && [ -x "$HELPERS/mkpack" ] &&
		[ -x "$HELPERS/mkhostile" ] && [ -x "$HELPERS/ra-workload" ] ||
		make -s -C "$TOP" BUILD="$BUILD" test-helpers >&2 ||
		skip_all "cannot build the test helpers"
}

# What ura-trace must leave as it found: the instances, the top-level enabled events,
# tracing_on, tracer, clock and buffer size, and the enabled events of every instance.
# Instances other than ura's and the tests' are left out: other programs (or other test
# suites running at the same time) may create and remove theirs while the tests run. So are
# the instances of ura-trace runs still going (some process has a file of theirs open: a
# running ura-trace keeps one open), which may belong to other users of the machine.
# A ura-trace names its instance ura-PID: while that process lives, the instance is in use even
# before its first file is open (tool tests run beside the root tests under make -j).
_instance_in_use() {
	local name pid
	name=$(basename "$1")
	pid=${name#ura-}
	pid=${pid%-exec}
	case $pid in '' | *[!0-9]*) ;; *) [ -d "/proc/$pid" ] && return 0 ;; esac
	find /proc/[0-9]*/fd -lname "${1%/}/*" 2>/dev/null | grep . >/dev/null
}

_tracefs_state() {
	local i
	cat "$TRACEFS/set_event" "$TRACEFS/tracing_on" "$TRACEFS/set_event_pid" \
		"$TRACEFS/current_tracer" "$TRACEFS/trace_clock" "$TRACEFS/buffer_size_kb" 2>/dev/null
	for i in "$TRACEFS"/instances/ura-*/ "$TRACEFS"/instances/uratest*/; do
		[ -d "$i" ] || continue
		_instance_in_use "$i" && continue
		echo "== $i"
		cat "$i/set_event" "$i/tracing_on" 2>/dev/null
	done
}

tracefs_snapshot() {
	_tracefs_before=$(_tracefs_state)
}

# An instance left by a ura-trace that was killed before the snapshot may be gone after it: a
# later ura-trace removes the instances of dead ura-traces. Only instances still there compare.
_tracefs_still_there() {
	local line keep=1
	while IFS= read -r line; do
		case $line in "== "*) keep=0; [ -d "${line#== }" ] && keep=1 ;; esac
		[ "$keep" = 1 ] && printf '%s\n' "$line"
	done
}

tracefs_unchanged() {
	local now before
	now=$(_tracefs_state)
	before=$(printf '%s\n' "$_tracefs_before" | _tracefs_still_there)
	if [ "$now" != "$before" ]; then
		diff <(echo "$before") <(echo "$now") | sed 's/^/# /'
		return 1
	fi
}

# DAMON reclaim, where it runs, pages out what it deems cold, pages just read ahead
# included: a test that checks what a replay left resident turns it off while it runs (as
# bench/e2e.py --pause-damon) and on again after (damon_resume, from its EXIT trap)
DAMON_ON=
damon_pause() {
	local f
	for f in /sys/kernel/mm/damon/admin/kdamonds/*/state; do
		[ -w "$f" ] && [ "$(cat "$f")" = on ] && echo off >"$f" 2>/dev/null &&
			DAMON_ON="$DAMON_ON $f"
	done
	return 0
}
damon_resume() {
	local f
	for f in $DAMON_ON; do echo on >"$f" 2>/dev/null; done
	DAMON_ON=
}

# A scratch ext4 filesystem on a loop device (tmpfs is left out of packs, so tests need a
# real one): make_scratch_fs DIR SIZE_MB mounts it on DIR/mnt and sets SCRATCH_LOOP.
# scratch_cleanup undoes it.
make_scratch_fs() {
	local dir=$1 size=${2:-64}
	truncate -s "${size}M" "$dir/scratch.img" &&
		mkfs.ext4 -q -F "$dir/scratch.img" &&
		SCRATCH_LOOP=$(losetup -f --show "$dir/scratch.img") &&
		mkdir -p "$dir/mnt" &&
		mount "$SCRATCH_LOOP" "$dir/mnt"
}

scratch_cleanup() {
	local dir=$1
	if [ -n "${SCRATCH_LOOP:-}" ]; then
		umount -R "$dir/mnt" 2>/dev/null || umount -l "$dir/mnt" 2>/dev/null
		losetup -d "$SCRATCH_LOOP" 2>/dev/null
	fi
	rm -rf "$dir"
}

# Pages of FILE (an absolute path) in a pack, as "first count demanded" lines, from ura-dump --json.
pack_ranges() {
	"$URA_DUMP" --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in d["files"]:
    if f["path"] == sys.argv[1]:
        for r in f["ranges"]:
            print(r["offset"] // 4096, r["length"] // 4096, int(r["demanded"]))
' "$2"
}

# PACK FILE: the pack has pages of FILE
has_pages() {
	[ -n "$(pack_ranges "$1" "$2")" ]
}

# PACK CMD...: trace CMD quietly
trace() {
	local pack=$1
	shift
	timeout 60 "$URA_TRACE" -q --pack "$pack" -- "$@"
}

# FILE...: every page of each file is in the page cache (mincore, by the mkpack helper);
# fails when the helper gives no answer
all_resident() {
	local res f
	for f in "$@"; do
		res=$("$MKPACK" --resident "$f") || return 1
		set -- $res
		[ -n "$2" ] && [ "$1" = "$2" ] || { echo "$f: $1 of $2 bytes resident" >&2; return 1; }
	done
}
