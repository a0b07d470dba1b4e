#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace of a warm start holds the filesystem metadata a cold start needs: the inode-table
# blocks and directory blocks of the files it used, derived from the ext4 layout, hold at
# least 90% of what a trace of the same start made cold saw enter the block device's cache
# (that trace with nothing derived: URA_TRACE_RECORDED_METADATA_ONLY), and at most 10% more.
. "$(dirname "$0")/lib.sh"
need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP" "$URA_REPLAY"
command -v mkfs.ext4 >/dev/null || skip_all "needs mkfs.ext4"
plan 5

T=$(mktemp -d /var/tmp/ura-metadata-test.XXXXXX)
trap 'scratch_cleanup "$T"' EXIT
make_scratch_fs "$T" 128 || skip_all "cannot make a scratch ext4 filesystem"
M=$T/mnt
# 24 directories of 40 files each: inodes over several inode-table blocks, directories of
# several blocks; the program reads every third file of every other directory
for d in $(seq 24); do
	mkdir -p "$M/tree/d$d/sub"
	for f in $(seq 40); do
		head -c $((4096 * (f % 3 + 1))) /dev/urandom >"$M/tree/d$d/sub/file-with-a-long-name-$f"
	done
done
# mounted again: the journal keeps the metadata just written in the cache, past drop_caches
umount "$M" && mount "$SCRATCH_LOOP" "$M" || skip_all "cannot mount the scratch filesystem again"
LIST=$T/list
for d in $(seq 1 2 24); do for f in $(seq 1 3 40); do echo "$M/tree/d$d/sub/file-with-a-long-name-$f"; done; done >"$LIST"
MAJMIN=$(stat -c '%Hd:%Ld' "$M")

# the metadata pages of the scratch device in a pack, one per line
meta_pages() {
	"$URA_DUMP" --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for m in d.get("metadata", []):
    if m["device"] == sys.argv[1]:
        for p in range(m["offset"] // 4096, (m["offset"] + m["length"]) // 4096):
            print(p)
' "$MAJMIN" | sort
}

sync
echo 3 >/proc/sys/vm/drop_caches
READ="xargs cat <'$LIST' >/dev/null"
ok "trace of a cold start, metadata as recorded" env URA_TRACE_RECORDED_METADATA_ONLY=1 \
	timeout 60 "$URA_TRACE" -q --pack "$T/cold.pack" -- sh -c "$READ"
ok "trace of the warm start after it" timeout 60 "$URA_TRACE" -q --pack "$T/warm.pack" -- \
	sh -c "$READ"
meta_pages "$T/cold.pack" >"$T/cold.pages"
meta_pages "$T/warm.pack" >"$T/warm.pages"
cold=$(wc -l <"$T/cold.pages")
warm=$(wc -l <"$T/warm.pages")
both=$(comm -12 "$T/cold.pages" "$T/warm.pages" | wc -l)
diag "metadata pages of the scratch device: cold trace recorded $cold, warm trace $warm, both $both"
ok "the cold trace recorded metadata" test "$cold" -gt 0
ok "the warm trace holds at least 90% of the metadata pages the cold one recorded" \
	test "$((both * 10))" -ge "$((cold * 9))"
ok "the warm trace holds at most 10% more" test "$((warm * 10))" -le "$((cold * 11))"

