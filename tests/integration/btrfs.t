#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# btrfs: inode numbers repeat across subvolumes and the tracepoints carry only the
# superblock's device. ura-trace must name the file of the right subvolume (nested ones and
# ones mounted on their own included), and ura-replay must find each through its own mount.
. "$(dirname "$0")/lib.sh"

need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP" "$URA_REPLAY"
need_helpers
command -v python3 >/dev/null || skip_all "needs python3"
command -v mkfs.btrfs >/dev/null && command -v btrfs >/dev/null || skip_all "needs btrfs-progs"
grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null ||
	skip_all "the kernel has no btrfs"

T=$(mktemp -d /var/tmp/ura-btrfs-test.XXXXXX)
LOOP=
cleanup() {
	for m in "$T/top" "$T/sv" "$T/sa" "$T/nb"; do umount "$m" 2>/dev/null; done
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$T"
}
trap cleanup EXIT
truncate -s 256M "$T/img"
mkfs.btrfs -q -f "$T/img" >/dev/null 2>&1 || skip_all "mkfs.btrfs failed"
LOOP=$(losetup -f --show "$T/img") || skip_all "no loop device"
mkdir -p "$T/top" "$T/sv" "$T/sa"
mount "$LOOP" "$T/top" || skip_all "cannot mount btrfs"
tracefs_snapshot

plan 11

pages() { pack_ranges "$1" "$2" | awk '{ n += $2 } END { print n + 0 }'; }
evict() { for f in "$@"; do "$HELPERS/evict" "$f"; done; }

# subvolumes a, b and a/nested: the first file of each is inode 257, as is the first file of
# the top level; the subvolume b is also the directory entry numbered 257 there
for s in a b a/nested; do btrfs -q subvolume create "$T/top/$s" >/dev/null; done
head -c $((20 * 4096)) /dev/urandom >"$T/top/a/f1"
head -c $((30 * 4096)) /dev/urandom >"$T/top/b/f1"
head -c $((40 * 4096)) /dev/urandom >"$T/top/a/nested/f1"
echo top >"$T/top/topfile"
sync
inos=$(stat -c %i "$T/top/a/f1" "$T/top/b/f1" "$T/top/a/nested/f1" "$T/top/topfile" | sort -u)
ok "four files share one inode number in four subvolumes ($(echo $inos))" test "$inos" = 257

evict "$T/top/a/f1" "$T/top/b/f1" "$T/top/a/nested/f1" "$T/top/topfile"
ok "trace reads of a nested subvolume and the top level" trace "$T/one.pack" \
	sh -c 'cat "$1" "$2" >/dev/null' - "$T/top/a/nested/f1" "$T/top/topfile"
ok "the nested subvolume's file has its 40 pages" test "$(pages "$T/one.pack" "$T/top/a/nested/f1")" = 40
ok "the top level's file is named" has_pages "$T/one.pack" "$T/top/topfile"
ok "files with that inode number not read are not in the pack" sh -c '
	! "$1" --json "$2" | grep -e "/top/a/f1\"" -e "/top/b/f1\"" >/dev/null' - "$URA_DUMP" "$T/one.pack"

# only subvolumes mounted, as on distributions that mount subvol=root at / and subvol=home;
# and a bind mount of the nested subvolume listed before the mount of a, which shows it too
mkdir -p "$T/nb"
mount --bind "$T/top/a/nested" "$T/nb"
umount "$T/top"
mount -o subvol=b "$LOOP" "$T/sv"
mount -o subvol=a "$LOOP" "$T/sa"
evict "$T/sv/f1" "$T/sa/f1" "$T/sa/nested/f1"
ok "trace reads through two subvolume mounts" trace "$T/two.pack" \
	sh -c 'cat "$1" "$2" >/dev/null' - "$T/sv/f1" "$T/sa/nested/f1"
ok "the file of subvolume b is named through its mount, 30 pages" \
	test "$(pages "$T/two.pack" "$T/sv/f1")" = 30
ok "the nested subvolume's file is in the pack once, 40 pages, through one of its mounts" sh -c '
	"$1" --json "$2" | python3 -c "
import json, sys
d = json.load(sys.stdin)
f = [x for x in d[\"files\"] if x[\"size\"] == 40 * 4096]
sys.exit(0 if len(f) == 1 and sum(r[\"length\"] for r in f[0][\"ranges\"]) == 40 * 4096 and
         f[0][\"path\"] in sys.argv[1:] else 1)
" "$3" "$4"' - "$URA_DUMP" "$T/two.pack" "$T/nb/f1" "$T/sa/nested/f1"
ok "the unread file of the mount of a is not in the pack" not has_pages "$T/two.pack" "$T/sa/f1"

evict "$T/sv/f1" "$T/sa/f1" "$T/sa/nested/f1"
timeout 60 "$URA_REPLAY" -q --wait "$T/two.pack"
ok "replay makes both files resident, each through its mount" \
	all_resident "$T/sv/f1" "$T/sa/nested/f1"

ok "tracefs is left exactly as found" tracefs_unchanged
done_testing
