#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-replay against the real kernel: pages made resident, stale and odd files skipped,
# metadata from the block device, exit codes, --daemon, unsafe packs refused
. "$(dirname "$0")/lib.sh"
R="$URA_REPLAY"

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
if [ ! -x "$R" ]; then
	echo "1..0 # SKIP ura-replay is not built (make)"
	exit 0
fi
make -s -C "$TOP" BUILD="$BUILD" test-helpers >/dev/null 2>&1
if [ ! -x "$MKPACK" ]; then
	echo "1..0 # SKIP cannot build the mkpack helper"
	exit 0
fi

T=$(mktemp -d /var/tmp/ura-replay-test.XXXXXX)
LOOP=""
# Leave nothing behind, even when a replay (a --daemon child, a slow sanitizer build) still
# holds a file of the scratch filesystem: wait a little for it, then detach the mount lazily.
cleanup() {
	if mountpoint -q "$T/mnt" 2>/dev/null; then
		for _ in $(seq 50); do
			umount "$T/mnt" 2>/dev/null && break
			sleep 0.1
		done
		mountpoint -q "$T/mnt" 2>/dev/null && umount -l "$T/mnt"
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	if mountpoint -q "$T/mnt" 2>/dev/null; then
		echo "# cannot unmount '$T/mnt', leaving '$T'" >&2
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A scratch ext4 on a loop device: a real disk filesystem whose block device we may read.
mkdir -p "$T/mnt"
if truncate -s 96M "$T/img" && mkfs.ext4 -q -F "$T/img" >/dev/null 2>&1 &&
	LOOP=$(losetup --find --show "$T/img" 2>/dev/null) && mount "$LOOP" "$T/mnt"; then
	D="$T/mnt"
	MAJMIN=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
else
	LOOP=""
	D="$T/data"
	mkdir -p "$D"
	MAJMIN=""
fi

plan 36
# report_ok DESC CMD...: runs a replay with --json, keeps its report for json()
report_ok() {
	desc=$1
	shift
	"$@" >"$T/report" 2>"$T/err"
	tap_result $? "$desc" "$T/err"
	cp "$T/err" "$T/report.err"
}
# json FIELD: a number from the last kept report
json() { grep -o "\"$1\":[0-9a-z.]*" "$T/report" | cut -d: -f2; }
resident() { "$MKPACK" --resident "$@" | cut -d' ' -f1; }
evict() { for f in "$@"; do "$MKPACK" --evict "$f"; done; }
none_resident() {
	for f in "$@"; do
		[ "$(resident "$f")" = 0 ] || { echo "$f is resident" >&2; return 1; }
	done
}

head -c 24M /dev/urandom >"$D/big"
head -c 65536 /dev/urandom >"$D/small"
for i in 1 2 3 4 5; do head -c $((i * 5000)) /dev/urandom >"$D/f$i"; done
for i in stale fifo dev link dir gone; do head -c 8192 /dev/urandom >"$D/$i"; done
sync
FILES="$D/big $D/small $D/f1 $D/f2 $D/f3 $D/f4 $D/f5"

ok "mkpack builds a pack of whole files" "$MKPACK" "$T/p.pack" $FILES
evict $FILES
ok "files evicted" none_resident $FILES
report_ok "replay --wait" timeout 60 "$R" --wait --json "$T/p.pack"
ok "every page resident after replay" all_resident $FILES
ok "report counts the bytes issued" test "$(json issued_bytes)" -ge $((24 << 20))
ok "report: pack = resident + issued + skipped + past the end" test "$(json pack_bytes)" = \
	$(($(json resident_bytes) + $(json issued_bytes) + $(json skipped_bytes) + $(json past_eof_bytes)))
report_ok "second replay finds them resident" timeout 60 "$R" --json "$T/p.pack"
ok "and issues nothing" test "$(json issued_bytes)" = 0 -a "$(json resident_bytes)" -gt 0

# One readahead() call reads at most max(read_ahead_kb, max_sectors_kb): without --wait
# (which would read what is missing), only chunking brings the whole 24 MiB file in.
evict "$D/big"
ok "replay without --wait" timeout 60 "$R" "$T/p.pack"
for _ in $(seq 100); do
	all_resident "$D/big" 2>/dev/null && break
	sleep 0.05
done
ok "the whole big file was read (chunked)" all_resident "$D/big"
evict "$D/big"
ok "small chunks still cover the file" timeout 60 "$R" --wait --chunk 64K "$T/p.pack"
ok "big file resident with 64K chunks" all_resident "$D/big"

ok "pack of files to be changed" "$MKPACK" "$T/odd.pack" "$D/stale" "$D/fifo" "$D/dev" \
	"$D/link" "$D/dir" "$D/gone" "$D/small"
head -c 8192 /dev/urandom >"$D/stale.new" && mv "$D/stale.new" "$D/stale"
rm -f "$D/fifo" "$D/dev" "$D/link" "$D/dir" "$D/gone"
mkfifo "$D/fifo"
mknod "$D/dev" c 1 5
ln -s /dev/zero "$D/link"
mkdir "$D/dir"
sync
evict "$D/stale" "$D/small"
report_ok "odd files: replay returns without hanging" timeout 20 "$R" --json "$T/odd.pack"
ok "rewritten file reported stale" test "$(json stale_files)" = 1
ok "stale file not read" none_resident "$D/stale"
ok "FIFO, device node, symlink and directory refused" test "$(json refused_files)" = 4
ok "deleted file reported missing" test "$(json missing_files)" = 1
ok "the good file was still read" test "$(json issued_bytes)" -ge 65536
ok "--stale=read reads the stale file" timeout 20 "$R" --wait --stale=read "$T/odd.pack"
ok "stale file resident with --stale=read" all_resident "$D/stale"

if [ -n "$LOOP" ]; then
	MAJ=${MAJMIN%:*} MIN=${MAJMIN#*:}
	# 90 MiB: free blocks of the last group, never written by the filesystem meanwhile
	# (32 MiB, the range once used here, is the journal: jbd2 commits write it at any time)
	OFF=$((90 << 20)) LEN=$((1 << 20))
	ok "pack with a metadata range" "$MKPACK" "$T/meta.pack" "meta:$MAJ:$MIN:$OFF:$LEN"
	"$MKPACK" --evict "$LOOP" $OFF $LEN
	report_ok "metadata replay --wait" timeout 20 "$R" --wait --json "$T/meta.pack"
	range_resident() {
		local n
		n=$(resident "$LOOP" $OFF $LEN)
		[ "$n" = $LEN ] && return 0
		echo "$n of $LEN bytes resident; the replay's report:" >&2
		cat "$T/report" "$T/report.err" >&2
		return 1
	}
	ok "metadata range resident in the block device's cache" range_resident
else
	skip "no loop device: metadata replay not tested"
	skip "no loop device"
	skip "no loop device"
fi

status_is "missing pack exits 66" 66 timeout 10 "$R" "$T/no-such.pack"
head -c 200 "$T/p.pack" >"$T/corrupt.pack"
status_is "corrupt pack exits 65" 65 timeout 10 "$R" "$T/corrupt.pack"
cp "$T/err" "$T/status.err"
ok "corrupt pack: one error line naming the cause" \
	grep -E "^ura-replay: error: cannot read pack '.*corrupt.pack': .+" "$T/status.err"
cp "$T/p.pack" "$T/gw.pack" && chmod 0664 "$T/gw.pack"
status_is "group-writable pack refused as root" 1 timeout 10 "$R" "$T/gw.pack"
cp "$T/err" "$T/status.err"
ok "refusal says why" grep -F "writable by group or others" "$T/status.err"
cp "$T/p.pack" "$T/ww.pack" && chmod 0646 "$T/ww.pack"
status_is "world-writable pack refused as root" 1 timeout 10 "$R" "$T/ww.pack"

# --daemon: the parent returns once the child holds the pack, before the paced reads.
ok "pack with a late range" "$MKPACK" "$T/late.pack" at:3000000000 "$D/f5"
evict "$D/f5"
ok "--daemon returns at once" timeout 2 "$R" --daemon --lead 0.5 "$T/late.pack"
ok "the paced read has not happened yet" none_resident "$D/f5"
for _ in $(seq 50); do
	all_resident "$D/f5" 2>/dev/null && break
	sleep 0.2
done
ok "the detached child reads it later" all_resident "$D/f5"

evict $FILES
ok "--dry-run exits 0" timeout 10 "$R" --dry-run "$T/p.pack"
ok "--dry-run reads nothing" none_resident $FILES

done_testing
