#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Faults around ura-trace as root: ENOSPC and EIO while writing the pack (the previous pack
# survives), the tracefs instance removed and tracefs unmounted mid-trace, the traced command
# killed, ura-trace killed or interrupted (its instance, state file and read_ahead_kb are
# cleaned up), files deleted between the trace and their resolution.
. "$(dirname "$0")/lib.sh"

need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP"
need_helpers
command -v python3 >/dev/null || skip_all "needs python3"

T=$(mktemp -d /var/tmp/ura-faults-test.XXXXXX)
cleanup() {
	local m
	for m in "$T/eio/mnt" "$T/eio/back" "$T/small"; do
		mountpoint -q "$m" 2>/dev/null && umount "$m"
	done
	[ -n "${EIO_LOOP:-}" ] && losetup -d "$EIO_LOOP" 2>/dev/null
	scratch_cleanup "$T"
	ra_put_back
}
trap cleanup EXIT
# read_ahead_kb of every block device, put back at the end whatever happens; with a loop
# device, the file it was attached to (attaching one sets its read_ahead_kb from the file's
# disk: 128 -> 2560 on some machines)
backing() {
	cat "${1%/queue/read_ahead_kb}/loop/backing_file" 2>/dev/null || echo -
}
RA_SAVED=$(for f in /sys/block/*/queue/read_ahead_kb; do
	echo "$f $(cat "$f") $(backing "$f")"
done)
# devices that other programs on the machine, or this test, add, remove or attach meanwhile
# are left alone: a loop device with no file at the start (an attach sets its read_ahead_kb
# from the file's disk, a detach keeps it), or attached to another since
ra_tracked() {
	case $1 in /sys/block/loop*) [ "$2" != - ] || return 1 ;; esac
	[ -e "$1" ] && [ "$(backing "$1")" = "$2" ]
}
ra_put_back() {
	local f v b
	echo "$RA_SAVED" | while read -r f v b; do
		ra_tracked "$f" "$b" || continue
		[ "$(cat "$f" 2>/dev/null)" = "$v" ] || echo "$v" >"$f" 2>/dev/null
	done
}
# every device seen at the start has its value of then
ra_as_found() {
	local f v b bad=0
	while read -r f v b; do
		ra_tracked "$f" "$b" || continue
		[ "$(cat "$f")" = "$v" ] || { echo "$f: $(cat "$f"), was $v" >&2; bad=1; }
	done <<<"$RA_SAVED"
	return $bad
}
make_scratch_fs "$T" 64 >&2 || skip_all "cannot make a scratch ext4 loop filesystem"
M=$T/mnt
MAJMIN=$(lsblk -dno MAJ:MIN "$SCRATCH_LOOP" | tr -d ' ')
RA_FILE=/sys/dev/block/$MAJMIN/queue/read_ahead_kb
RA_BEFORE=$(cat "$RA_FILE")
# lib.sh's tracefs_unchanged, less the instances of other ura-trace runs still alive
tracefs_here() {
	local i n
	for i in "$TRACEFS"/instances/*/; do
		[ -d "$i" ] || continue
		n=$(basename "$i")
		case $n in ura-[0-9]*) kill -0 "${n#ura-}" 2>/dev/null && continue ;; esac
		echo "== $n"
		cat "$i/set_event" "$i/tracing_on" 2>/dev/null
	done
	cat "$TRACEFS/set_event" "$TRACEFS/tracing_on" "$TRACEFS/set_event_pid" 2>/dev/null
}
TRACEFS_BEFORE=$(tracefs_here)
tracefs_as_found() {
	[ "$(tracefs_here)" = "$TRACEFS_BEFORE" ] ||
		{ diff <(echo "$TRACEFS_BEFORE") <(tracefs_here) | sed 's/^/# /'; return 1; }
}

plan 48

valid_pack() { # PACK: ura-dump reads it
	timeout 20 "$URA_DUMP" "$1" >/dev/null
}

no_temp_beside() { # PACK: no temporary file of the pack's name in its directory
	! ls -A "$(dirname "$1")" | grep -F "$(basename "$1")." >&2
}

# ura_pid TIMEOUT_PID: the ura-trace started by `timeout`, once its instance exists
ura_pid() {
	local p="" _
	for _ in $(seq 200); do
		p=$(pgrep -P "$1" | head -n 1)
		[ -n "$p" ] && [ -d "$TRACEFS/instances/ura-$p" ] && break
		sleep 0.05
	done
	echo "$p"
}

head -c $((64 * 4096)) /dev/urandom >"$M/data.bin"
sync

# ---- ENOSPC: a 64k tmpfs, filled up after a first pack ----
mkdir -p "$T/small"
mount -t tmpfs -o size=64k tmpfs "$T/small"
"$HELPERS/evict" "$M/data.bin"
ok "a first pack fits in the 64k tmpfs" timeout 60 "$URA_TRACE" -q -p "$T/small/p.pack" -- \
	sh -c 'cat "$1" >/dev/null' - "$M/data.bin"
cp "$T/small/p.pack" "$T/enospc.orig"
head -c 1M /dev/zero >"$T/small/filler" 2>/dev/null
"$HELPERS/evict" "$M/data.bin"
timeout 60 "$URA_TRACE" -q -p "$T/small/p.pack" -- sh -c 'cat "$1" >/dev/null' - "$M/data.bin" 2>"$T/enospc.err"
rc=$?
ok "ENOSPC: ura-trace exits 1 (got $rc)" test $rc = 1
ok "and says why" grep -F "No space left on device" "$T/enospc.err"
ok "in one error line" \
	test "$(grep -c "error:" "$T/enospc.err")" = 1
ok "the previous pack survives, unchanged" cmp "$T/small/p.pack" "$T/enospc.orig"
ok "no temporary file left" no_temp_beside "$T/small/p.pack"
umount "$T/small"

# ---- EIO: ext4 on a loop device whose backing file is on a full tmpfs ----
# The kernel here has no device mapper (no dm-error or dm-flakey) and no fault injection;
# a loop device whose backing store runs out of room fails its writes with an I/O error,
# which ext4 reports to fsync() as EIO.
mkdir -p "$T/eio/back" "$T/eio/mnt"
if mount -t tmpfs -o size=8m tmpfs "$T/eio/back" &&
	truncate -s 64M "$T/eio/back/img" &&
	mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$T/eio/back/img" &&
	EIO_LOOP=$(losetup -f --show "$T/eio/back/img") && mount "$EIO_LOOP" "$T/eio/mnt"; then
	"$HELPERS/evict" "$M/data.bin"
	timeout 60 "$URA_TRACE" -q -p "$T/eio/mnt/p.pack" -- sh -c 'cat "$1" >/dev/null' - "$M/data.bin"
	cp "$T/eio/mnt/p.pack" "$T/eio.orig"
	sync
	head -c 16M /dev/zero >"$T/eio/back/filler" 2>/dev/null
	"$HELPERS/evict" "$M/data.bin"
	timeout 60 "$URA_TRACE" -q -p "$T/eio/mnt/p.pack" -- sh -c 'cat "$1" >/dev/null' - "$M/data.bin" 2>"$T/eio.err"
	rc=$?
	ok "EIO: ura-trace exits 1 (got $rc)" test $rc = 1
	sed 's/^/# /' "$T/eio.err"
	# ext4 reports the loop device's failed writes as EIO (an aborted journal) or, when
	# the data write-back fails first, as ENOSPC: both are write errors seen at fsync()
	ok "and says why (EIO, or ENOSPC from the block layer)" \
		grep -E "Input/output error|No space left on device" "$T/eio.err"
	ok "one error line for the pack" test "$(grep -c "error: cannot write pack" "$T/eio.err")" = 1
	rm -f "$T/eio/back/filler"
	umount "$T/eio/mnt"
	mount "$EIO_LOOP" "$T/eio/mnt"
	ok "the previous pack survives a remount, unchanged" cmp "$T/eio/mnt/p.pack" "$T/eio.orig"
	ok "and is valid" valid_pack "$T/eio/mnt/p.pack"
	umount "$T/eio/mnt"
	losetup -d "$EIO_LOOP"
	EIO_LOOP=
	umount "$T/eio/back"
else
	for _ in 1 2 3 4 5; do skip "cannot build the EIO loop filesystem"; done
fi

# ---- the tracefs instance removed: while ura-trace sets it up, and while it traces ----
# instance_removed WHEN: rmdir the instance once it exists (setup) or once tracing is on
instance_removed() {
	local when=$1 pid dog i=0 removed=
	rm -f "$T/rmdir.pack"
	# started directly, so its pid is known at once; a watchdog stands in for timeout
	"$URA_TRACE" -q -p "$T/rmdir.pack" -- sh -c 'sleep 1; cat "$1" >/dev/null' \
		- "$M/data.bin" 2>"$T/rmdir.err" &
	pid=$!
	(sleep 30; kill -KILL "$pid") 2>/dev/null &
	dog=$!
	if [ "$when" = setup ]; then
		# as early as possible: before ura-trace holds the instance's files open
		while [ $i -lt 100000 ] && kill -0 "$pid" 2>/dev/null; do
			rmdir "$TRACEFS/instances/ura-$pid" 2>/dev/null && { removed=1; break; }
			i=$((i + 1))
		done
	else
		for i in $(seq 200); do
			[ "$(cat "$TRACEFS/instances/ura-$pid/tracing_on" 2>/dev/null)" = 1 ] && break
			sleep 0.05
		done
		rmdir "$TRACEFS/instances/ura-$pid" 2>"$T/rmdir.why" && removed=1
	fi
	if [ -n "$removed" ]; then
		diag "$when: the instance of a running ura-trace was removed"
	else
		diag "$when: rmdir of the instance refused: $(cat "$T/rmdir.why" 2>/dev/null)"
	fi
	wait "$pid"
	rc=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	sed 's/^/# /' "$T/rmdir.err"
	ok "$when: instance removed, ura-trace ends with 0, 1 or 69 (got $rc)" \
		test $rc = 0 -o $rc = 1 -o $rc = 69
	ok "$when: a valid pack or none" sh -c '[ ! -e "$1" ] || timeout 10 "$2" "$1" >/dev/null' \
		- "$T/rmdir.pack" "$URA_DUMP"
	ok "$when: at most one error line" \
		test "$(grep -c "error:" "$T/rmdir.err")" -le 1
	ok "$when: no instance left" test ! -d "$TRACEFS/instances/ura-$pid"
	ok "$when: no temporary file left" no_temp_beside "$T/rmdir.pack"
}
instance_removed setup
instance_removed tracing

# ---- tracefs unmounted mid-trace, in a private mount namespace (others keep theirs) ----
head -c $((16 * 4096)) /dev/urandom >"$M/late.bin"
"$HELPERS/evict" "$M/late.bin"
rm -f "$T/umount.pack"
timeout 30 unshare -m --propagation private bash -c '
	"$1" -q -p "$2" -- sh -c "sleep 1; cat \"\$1\" >/dev/null; sleep 0.3" - "$4" &
	u=$!
	for _ in $(seq 200); do
		[ "$(cat "$3/instances/ura-$u/tracing_on" 2>/dev/null)" = 1 ] && break
		sleep 0.05
	done
	sleep 0.3
	umount -l "$3" && echo "tracefs unmounted" >&2
	wait $u
	rc=$?
	echo "ura-trace pid $u" >&2
	exit $rc' - "$URA_TRACE" "$T/umount.pack" "$TRACEFS" "$M/late.bin" 2>"$T/umount.err"
rc=$?
upid=$(sed -n 's/^ura-trace pid //p' "$T/umount.err")
ok "tracefs unmounted mid-trace: ura-trace ends, 0 or one clear error (got $rc)" \
	sh -c '[ "$1" = 0 ] || { [ "$1" != 124 ] && [ "$(grep -c "error:" "$2")" = 1 ]; }' - \
	$rc "$T/umount.err"
ok "tracefs is still mounted here" test -d "$TRACEFS/instances"
ok "the pack, if any, is valid and has the file read after the unmount" sh -c '
	[ ! -e "$1" ] || timeout 10 "$2" --json "$1" | grep -F "\"$3\"" >/dev/null' - \
	"$T/umount.pack" "$URA_DUMP" "$M/late.bin"
if [ -d "$TRACEFS/instances/ura-$upid" ]; then
	diag "the instance of the ura-trace that lost tracefs is left behind:"
	grep -F "ura-$upid" "$T/umount.err" | sed 's/^/# /'
	timeout 60 "$URA_TRACE" -q -p "$T/after-umount.pack" -- true
fi
ok "its instance is gone (at the latest after the next run)" \
	test ! -d "$TRACEFS/instances/ura-$upid"

# ---- the traced command killed by a signal: its status, and a pack (ura-trace(8)) ----
rm -f "$T/killed.pack"
timeout 60 "$URA_TRACE" -q -p "$T/killed.pack" -- sh -c 'cat "$1" >/dev/null; kill -KILL $$' \
	- "$M/data.bin"
rc=$?
ok "command killed by SIGKILL: exit 128+9 (got $rc)" test $rc = 137
ok "the pack is written and valid" valid_pack "$T/killed.pack"
ok "and holds what the command read" has_pages "$T/killed.pack" "$M/data.bin"
timeout 60 "$URA_TRACE" -q -p "$T/segv.pack" -- python3 -c \
	'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)' 2>/dev/null
rc=$?
ok "command killed by SIGSEGV: exit 128+11 (got $rc)" test $rc = 139
ok "the pack is written and valid" valid_pack "$T/segv.pack"

# ---- files deleted between the trace and their resolution ----
"$HELPERS/evict" "$M/data.bin"
timeout 60 "$URA_TRACE" -q --json -p "$T/deleted.pack" -- sh -c '
	head -c 200000 /dev/urandom >"$1/gone.bin"; sync; "$2" "$1/gone.bin"
	cat "$1/gone.bin" "$1/data.bin" >/dev/null; rm "$1/gone.bin"' - "$M" "$HELPERS/evict" \
	>"$T/deleted.json"
rc=$?
ok "a file deleted before resolution: exit 0 (got $rc)" test $rc = 0
ok "the deleted file is not in the pack" not has_pages "$T/deleted.pack" "$M/gone.bin"
ok "the file still there is" has_pages "$T/deleted.pack" "$M/data.bin"
ok "the deleted one is counted as unresolved" sh -c '
	"$1" --json "$2" | grep -E "\"unresolved_inodes\": *[1-9]" >/dev/null' - \
	"$URA_DUMP" "$T/deleted.pack"

# ---- interrupted --read-ahead-kb traces: read_ahead_kb, instance and state file restored ----
for sig in INT TERM; do
	timeout 60 "$URA_TRACE" -q --read-ahead-kb 20 -p "$T/ra-$sig.pack" -- sleep 30 &
	tpid=$!
	pid=$(ura_pid "$tpid")
	for _ in $(seq 100); do [ "$(cat "$RA_FILE")" = 20 ] && break; sleep 0.05; done
	ok "SIG$sig: read_ahead_kb was forced to 20" test "$(cat "$RA_FILE")" = 20
	kill -"$sig" "$pid"
	wait "$tpid"
	rc=$?
	ok "SIG$sig: exit 128+N (got $rc)" test $rc = $((128 + $(kill -l "$sig")))
	ok "SIG$sig: read_ahead_kb restored to $RA_BEFORE, no instance or state file left" sh -c '
		test "$(cat "$1")" = "$2" && test ! -d "$3" && test ! -e "$4"' - "$RA_FILE" \
		"$RA_BEFORE" "$TRACEFS/instances/ura-$pid" "/run/ura/trace-$pid.state"
done

# a second SIGTERM stops at once, the command ignoring the first
timeout 60 "$URA_TRACE" -q --read-ahead-kb 24 -p "$T/ra-twice.pack" -- \
	sh -c 'trap "" TERM; touch "$1"; sleep 3' - "$T/twice.started" &
tpid=$!
pid=$(ura_pid "$tpid")
# the first signal only once the command runs (and ignores it): slow builds (ASan) start late
for _ in $(seq 200); do [ -e "$T/twice.started" ] && break; sleep 0.05; done
kill -TERM "$pid"
sleep 0.3
kill -TERM "$pid" 2>/dev/null
wait "$tpid"
rc=$?
ok "two SIGTERMs: ura-trace stops at once (got $rc)" test $rc -ge 128 -a $rc != 124
ok "and restores read_ahead_kb, leaves no instance or state file" sh -c '
	test "$(cat "$1")" = "$2" && test ! -d "$3" && test ! -e "$4"' - "$RA_FILE" \
	"$RA_BEFORE" "$TRACEFS/instances/ura-$pid" "/run/ura/trace-$pid.state"
ok "no pack (ura-trace(8): a second one stops without a pack)" test ! -e "$T/ra-twice.pack"

# SIGKILL: the next run restores what the dead one changed
timeout 60 "$URA_TRACE" -q --read-ahead-kb 28 -p "$T/ra-kill.pack" -- sleep 30 &
tpid=$!
pid=$(ura_pid "$tpid")
for _ in $(seq 100); do [ "$(cat "$RA_FILE")" = 28 ] && break; sleep 0.05; done
# the command starts after read_ahead_kb is forced: wait for it (slow under ASan)
for _ in $(seq 200); do
	sleeper=$(pgrep -P "$pid" | head -n 1)
	[ -n "$sleeper" ] && break
	sleep 0.05
done
{ kill -KILL "$pid"; wait "$tpid"; } 2>/dev/null
[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
ok "SIGKILL: read_ahead_kb, instance and state file are left" sh -c '
	test "$(cat "$1")" = 28 && test -d "$2" && test -e "$3"' - "$RA_FILE" \
	"$TRACEFS/instances/ura-$pid" "/run/ura/trace-$pid.state"
timeout 60 "$URA_TRACE" -q -p "$T/ra-next.pack" -- true
ok "the next run restores read_ahead_kb and removes the instance and the state file" sh -c '
	test "$(cat "$1")" = "$2" && test ! -d "$3" && test ! -e "$4"' - "$RA_FILE" \
	"$RA_BEFORE" "$TRACEFS/instances/ura-$pid" "/run/ura/trace-$pid.state"

# two overlapping --read-ahead-kb traces must not leave the second one's idea of "before"
timeout 60 "$URA_TRACE" -q --read-ahead-kb 32 -p "$T/ra-a.pack" -- sleep 1 &
apid=$!
for _ in $(seq 100); do [ "$(cat "$RA_FILE")" = 32 ] && break; sleep 0.05; done
timeout 60 "$URA_TRACE" -q --read-ahead-kb 36 -p "$T/ra-b.pack" -- sleep 2 &
bpid=$!
wait "$apid" "$bpid"
# the scratch device (attached after RA_SAVED) by its value once attached
ra_all_as_found() {
	ra_as_found && [ "$(cat "$RA_FILE")" = "$RA_BEFORE" ]
}
ok "overlapping --read-ahead-kb traces leave read_ahead_kb as found ($(cat "$RA_FILE"), was $RA_BEFORE)" \
	ra_all_as_found
ra_put_back
ok "read_ahead_kb of every device as found" ra_all_as_found

ok "tracefs is left as found" tracefs_as_found
done_testing
