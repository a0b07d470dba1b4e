#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-dump on the golden pack: views, sorting, JSON schema, exit codes for bad packs
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
G="$DATA/golden-v1.pack"
plan 31

run_ok "text view" timeout 10 "$URA_DUMP" "$G"
ok "text: absolute path with size and pages" out_has "/usr/bin/python3.11 (6833392 bytes, 116 pages in pack, 84 demanded)"
ok "text: page map" grep -E '^	\[[#.-]+\]$' "$T/out"
ok "text: metadata line" out_has "metadata 8:1 offset 1048576 length 8192"
ok "text: a newline in a name is escaped, one file per line" grep -F 'ird name\nwith newline (12288 bytes' "$T/out"
ok "text: first access order (weird name first)" sh -c "sed -n 2p '$T/out' | grep -F 'with space/we' >/dev/null"

run_ok "sort by path" timeout 10 "$URA_DUMP" --sort=path "$G"
ok "path order" sh -c "grep -v '^	' '$T/out' | sed -n 2p | grep -F /etc/ld.so.cache >/dev/null"
run_ok "sort by size" timeout 10 "$URA_DUMP" -s size "$G"
ok "size order" sh -c "grep -v '^	' '$T/out' | sed -n 2p | grep -F python3.11 >/dev/null"
status_is "bad sort key is a usage error" 64 "$URA_DUMP" --sort colour "$G"
ok "usage error says how to get help" err_has "Try 'ura-dump --help' for more information."

run_ok "stats" timeout 10 "$URA_DUMP" --stats "$G"
ok "stats: totals" out_has "ranges:       6"
ok "stats: lost events" out_has "lost events:  3"

run_ok "json" timeout 10 "$URA_DUMP" --json "$G"
cp "$T/out" "$T/json"
ok "json parses and holds the schema" python3 - "$T/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "1.0" and d["created"].endswith("Z")
assert {"filesystems", "files", "metadata", "totals", "trace"} <= d.keys()
f = {x["path"]: x for x in d["files"]}
weird = "/mnt/with space/we\u00ffird name\nwith newline"
assert weird in f, list(f)
p = f["/usr/bin/python3.11"]
assert p["size"] == 6833392 and p["ino"] == 1234 and p["dev"] == "8:1"
r = p["ranges"][0]
assert r == {"offset": 0, "length": 65536, "first_access_ns": 1000, "demanded": True,
             "support": 1, "run_mask": 1}, r
assert d["metadata"][0] == {"device": "8:1", "fs": 0, "offset": 1048576, "length": 8192,
                            "first_access_ns": 5, "support": 1, "run_mask": 1}
assert d["runs"] == 1 and d["run_list"] == [{"created_ns": d["created_ns"], "duration_ns": 1500000000}]
assert d["metadata"][1]["fs"] is None
t = dict(d["totals"])
assert t.pop("hits") == {"pages_added": 124, "demanded": 91, "speculative": 33}, d["totals"]
assert t == {"files": 4, "ranges": 6, "bytes": 124 * 4096, "demanded_bytes": 91 * 4096,
             "metadata_ranges": 2, "metadata_bytes": 12288}, t
assert d["filesystems"][1]["minor"] == 1048575
PY

ok "json: no access log in a 1.0 pack" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["access_count"] == 0 and d["access"] == [], d["access_count"]
assert all(fs["ra"] is None for fs in d["filesystems"])
assert not d["trace"]["access_log_truncated"]
' "$T/json"
ok "stats: no access log" sh -c '"$1" --stats "$2" | grep -Fx "access log:   none" >/dev/null' - "$URA_DUMP" "$DATA/golden-v1.pack"

# the access log of format 1.1 (tests/data/golden-access.pack: the golden pack and a log)
A="$DATA/golden-access.pack"
run_ok "stats of a pack with an access log" timeout 10 "$URA_DUMP" --stats "$A"
ok "stats: the log in one line" out_has "access log:   10 accesses (5 reads, 5 faults)"
ok "text: the header counts the log" sh -c '"$1" "$2" | head -1 | grep -F ", 10 accesses logged" >/dev/null' - "$URA_DUMP" "$A"
ok "json: the log, the files' indexes and the readahead facts" sh -c '"$1" --json "$2" | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d[\"version\"] == \"1.1\" and d[\"access_count\"] == 10 == len(d[\"access\"])
a = d[\"access\"]
assert a[0] == {\"time_ns\": 0, \"file\": 0, \"stream\": 100, \"kind\": \"read\", \"first\": 0, \"last\": 0, \"flags\": []}, a[0]
assert a[4] == {\"time_ns\": 5001, \"file\": 2, \"stream\": 101, \"kind\": \"fault\", \"first\": 3, \"last\": 3, \"around_first\": 0, \"around_last\": 15, \"flags\": [\"exec\", \"missed\"]}, a[4]
assert \"around_first\" not in a[5] and a[5][\"flags\"] == [\"no_around\", \"missed\"], a[5]
files = {f[\"index\"]: f[\"path\"] for f in d[\"files\"]}
assert files[a[0][\"file\"]] == \"/usr/bin/python3.11\", files
assert d[\"filesystems\"][1][\"ra\"] == {\"max_sectors_kb\": 1280, \"fault_around_pages\": 16, \"large_folios\": True, \"max_segments\": 0, \"max_segment_kb\": 0}
assert d[\"filesystems\"][0][\"ra\"][\"max_sectors_kb\"] == 512
"' - "$URA_DUMP" "$A"

status_is "missing pack exits 66" 66 "$URA_DUMP" "$T/none.pack"
ok "missing pack error names the file" err_has "'$T/none.pack'"
head -c 500 "$G" >"$T/trunc.pack"
status_is "truncated pack exits 65" 65 "$URA_DUMP" "$T/trunc.pack"
ok "corrupt pack: one line naming the file and the cause" sh -c "[ \$(wc -l <'$T/err') = 1 ] && grep -F \"'$T/trunc.pack': file size does not match\" '$T/err' >/dev/null"
cp "$G" "$T/flip.pack"
printf '\377' | dd of="$T/flip.pack" bs=1 seek=700 conv=notrunc status=none
status_is "bit flip exits 65" 65 "$URA_DUMP" "$T/flip.pack"
ok "bit flip: checksum named" err_has "checksum mismatch"
status_is "a directory is not a pack" 65 "$URA_DUMP" "$T"
status_is "--json with --stats is a usage error" 64 "$URA_DUMP" --json --stats "$G"
done_testing
