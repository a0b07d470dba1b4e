#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The access log against the real kernel: a program that read()s one evicted file page by page
# and touches pages of another through mmap, traced on a disk filesystem; the pack's log holds
# the reads in order and the faults on the pages touched, and the filesystem's readahead facts.
. "$(dirname "$0")/lib.sh"

need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP"
need_helpers
command -v python3 >/dev/null || skip_all "needs python3"
[ -e "$TRACEFS/events/filemap/mm_filemap_get_pages" ] &&
	[ -e "$TRACEFS/events/filemap/mm_filemap_fault" ] &&
	[ -e "$TRACEFS/events/filemap/mm_filemap_map_pages" ] &&
	[ -e "$TRACEFS/events/exceptions/page_fault_user" ] ||
	skip_all "needs the filemap access events and exceptions:page_fault_user"

# a disk filesystem: /var/tmp, unless it is in memory (then a scratch ext4 on a loop device)
T=$(mktemp -d /var/tmp/ura-access-test.XXXXXX)
trap 'scratch_cleanup "$T"' EXIT
case $(stat -f -c %T "$T") in
tmpfs | ramfs | overlayfs)
	make_scratch_fs "$T" 64 >&2 || skip_all "cannot make a scratch ext4 loop filesystem"
	W=$T/mnt ;;
*)
	W=$T ;;
esac
tracefs_snapshot

plan 12

head -c $((1024 * 1024)) /dev/urandom >"$W/read.bin"
head -c $((4 * 1024 * 1024)) /dev/urandom >"$W/map.bin"
sync
"$HELPERS/evict" "$W/read.bin" "$W/map.bin"
# the program: read() the first file in 4 KiB reads, then touch pages of the second via mmap
ok "trace the reads and the faults" trace "$T/p.pack" sh -c '
	dd if="$1" of=/dev/null bs=4096 status=none && exec "$2" "$3" 100 500 900' - \
	"$W/read.bin" "$HELPERS/touch-pages" "$W/map.bin"
"$URA_DUMP" --json "$T/p.pack" >"$T/p.json"
ok "the pack is of format 1.1 and has an access log" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["version"] == "1.1" and d["access_count"] == len(d["access"]) > 0 else 1)
' "$T/p.json"

# ACCESS KIND FILE: the log's accesses of that kind to that file, "first last flags..." lines
accesses() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
idx = [f["index"] for f in d["files"] if f["path"] == sys.argv[3]]
for a in d["access"]:
    if idx and a["file"] == idx[0] and a["kind"] == sys.argv[2]:
        print(a["first"], a["last"], a.get("around_first", "-"), a.get("around_last", "-"),
              " ".join(a["flags"]) or "-")
' "$T/p.json" "$1" "$2"
}
accesses read "$W/read.bin" >"$T/reads"
accesses fault "$W/map.bin" >"$T/faults"
accesses fault "$W/read.bin" >"$T/faults-of-read"
accesses read "$W/map.bin" >"$T/reads-of-map"
ok "reads of the read() file, in order, cover its 256 pages" python3 -c '
import sys
firsts, pages = [], set()
for line in open(sys.argv[1]):
    first, last = map(int, line.split()[:2])
    firsts.append(first)
    pages.update(range(first, last + 1))
ok = firsts == sorted(firsts) and set(range(256)) <= pages and len(firsts) >= 256
sys.exit(0 if ok else (print(len(firsts), firsts[:20], sorted(set(range(256)) - pages)[:20]), 1)[1])
' "$T/reads"
ok "no fault on the read() file, no read of the mapped file" \
	test ! -s "$T/faults-of-read" -a ! -s "$T/reads-of-map"
ok "faults on the touched pages 100, 500 and 900 of the mapped file" python3 -c '
import sys
pages = [int(l.split()[0]) for l in open(sys.argv[1])]
sys.exit(0 if {100, 500, 900} <= set(pages) else (print(pages), 1)[1])
' "$T/faults"
# read faults, each with its fault-around window around the page touched; the file was
# evicted, so the first (page 100) missed: filemap_fault read it. Whether the others missed
# depends on how far the device's readahead read around page 100.
ok "read faults with a window around the touched page, the first one missed" python3 -c '
import sys
seen = {}
for l in open(sys.argv[1]):
    f = l.split()
    first, a, z, flags = int(f[0]), f[2], f[3], f[4:]
    if first in (100, 500, 900) and first not in seen:
        seen[first] = (a, z, flags)
        ok = a != "-" and int(a) <= first <= int(z) and not {"no_around", "guessed"} & set(flags)
        if not ok or (first == 100 and "missed" not in flags):
            sys.exit((print(l), 1)[1])
sys.exit(0 if len(seen) == 3 else (print(seen), 1)[1])
' "$T/faults"
ok "times never go back, streams are tasks" python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["access"]
t = [x["time_ns"] for x in a]
sys.exit(0 if t == sorted(t) and all(x["stream"] > 0 for x in a) else 1)
' "$T/p.json"
ok "the filesystem of the files has its readahead facts" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["files"] if f["path"] == sys.argv[2]][0]
ra = d["filesystems"][f["fs"]]["ra"]
ok = ra and ra["max_sectors_kb"] > 0 and ra["fault_around_pages"] > 0
sys.exit(0 if ok else (print(ra), 1)[1])
' "$T/p.json" "$W/read.bin"
ok "ura-dump --stats counts the log" sh -c '
	"$1" --stats "$2" | grep -E "^access log: +[0-9]+ accesses \([0-9]+ reads, [0-9]+ faults\)$" >/dev/null' \
	- "$URA_DUMP" "$T/p.pack"

# --no-access-log: a pack as before the log
"$HELPERS/evict" "$W/read.bin"
ok "trace with --no-access-log" timeout 60 "$URA_TRACE" -q --no-access-log --pack "$T/n.pack" \
	-- dd if="$W/read.bin" of=/dev/null bs=4096 status=none
ok "no access log, format 1.0" sh -c '
	"$1" --json "$2" | python3 -c "
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d[\"version\"] == \"1.0\" and d[\"access_count\"] == 0 else 1)"' - "$URA_DUMP" "$T/n.pack"

ok "tracefs as found" tracefs_unchanged
done_testing
