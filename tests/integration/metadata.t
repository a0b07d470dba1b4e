#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace of a warm start holds the filesystem metadata a cold start needs: the inode-table
# blocks and directory blocks of the files it used, derived from the ext4 layout, within 10%
# of what a trace of the same start made cold saw enter the block device's cache.
. "$(dirname "$0")/lib.sh"
need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP" "$URA_REPLAY"
command -v mkfs.ext4 >/dev/null || skip_all "needs mkfs.ext4"
plan 7

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
sync
LIST=$T/list
for d in $(seq 1 2 24); do for f in $(seq 1 3 40); do echo "$M/tree/d$d/sub/file-with-a-long-name-$f"; done; done >"$LIST"
DEV=$(stat -c '%d' "$M")
MAJMIN="$((DEV >> 8)):$((DEV & 255))"

# the metadata bytes of the scratch device in a pack
meta_bytes() {
	"$URA_DUMP" --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(m["length"] for m in d.get("metadata", []) if m["device"] == sys.argv[1]))
' "$MAJMIN"
}

sync
echo 3 >/proc/sys/vm/drop_caches
READ="xargs cat <'$LIST' >/dev/null"
ok "trace of a cold start" timeout 60 "$URA_TRACE" -q --pack "$T/cold.pack" -- sh -c "$READ"
ok "trace of the warm start after it" timeout 60 "$URA_TRACE" -q --pack "$T/warm.pack" -- \
	sh -c "$READ"
cold=$(meta_bytes "$T/cold.pack")
warm=$(meta_bytes "$T/warm.pack")
diag "metadata of the scratch device: cold trace $cold bytes, warm trace $warm bytes"
ok "the cold trace holds metadata" test "${cold:-0}" -gt 0
ok "the warm trace holds metadata" test "${warm:-0}" -gt 0
ok "the warm trace's metadata is within 10% of the cold trace's" \
	python3 -c "import sys; c, w = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(w - c) > c / 10)" \
	"${cold:-0}" "${warm:-0}"

# the outcome: after a replay of the warm trace's pack, the start reads nothing more from the
# scratch device (its data and its metadata were all brought in)
reads() { awk '{ print $1 }' "/sys/block/${SCRATCH_LOOP#/dev/}/stat"; }
sync
echo 3 >/proc/sys/vm/drop_caches
ok "replay of the warm trace's pack" timeout 60 "$URA_REPLAY" -q --wait "$T/warm.pack"
before=$(reads)
sh -c "$READ"
after=$(reads)
diag "reads of the scratch device by the start after the replay: $((after - before))"
ok "the start after the replay reads nothing from the device" test "$((after - before))" -eq 0
