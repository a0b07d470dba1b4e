#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-dump --compare A B without root: text, JSON and HTML; per file and in total, what B adds
# and loses against A, as the page sets of both packs' --json say; hostile names; usage errors
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
G="$DATA/golden-v1.pack"
MKH=$BUILD/tests/integration/helpers/mkhostile
[ -x "$MKH" ] || make -s -C "$TOP" BUILD="$BUILD" test-helpers >&2 ||
	skip_all "cannot build tests/integration/helpers/mkhostile"
command -v python3 >/dev/null || skip_all "needs python3"
plan 21

# A: /usr/a pages 0-9, /usr/b 0-4, /usr/c 0-1, metadata of 8:1; B adds pages 10-14 of a and
# loses 0-4, keeps b, loses c, adds d and a file on another filesystem
"$MKH" "$T/a.pack" fs:8:1:/ file:0:usr/a file:0:usr/b file:0:usr/c range:0:0:10 range:1:0:5 \
	range:2:0:2 meta:8:1:0:8192
"$MKH" "$T/b.pack" fs:9:1:/mnt fs:8:1:/ file:0:x file:1:usr/a file:1:usr/b file:1:usr/d \
	range:0:0:3 range:1:5:10 range:2:0:5 range:3:0:3 meta:8:1:4096:8192

run_ok "a pack against itself" timeout 10 "$URA_DUMP" --compare "$G" "$G"
ok "nothing added or lost" out_has "files:     4 in A, 4 in B: 0 added, 0 lost, 0 changed, 0 replaced, 4 the same"

run_ok "text" timeout 10 "$URA_DUMP" --compare "$T/a.pack" "$T/b.pack"
ok "totals" out_has "data:      68.0 KiB in A, 84.0 KiB in B: +44.0 KiB added, -28.0 KiB lost"
ok "the file that changed most first" sh -c 'grep -A1 "status    file" "$1" | tail -1 |
	grep -F "  +20.0 KiB   -20.0 KiB  changed   /usr/a" >/dev/null' - "$T/out"
ok "a file kept the same is not listed" not out_has "/usr/b"

run_ok "json" timeout 10 "$URA_DUMP" --compare --json "$T/a.pack" "$T/b.pack"
cp "$T/out" "$T/cmp.json"
"$URA_DUMP" --json "$T/a.pack" >"$T/a.json"
"$URA_DUMP" --json "$T/b.pack" >"$T/b.json"
# the pages of each file in both packs, from --json, against what --compare says
cat >"$T/check.py" <<'PY'
import json, sys
c, a, b = (json.load(open(p)) for p in sys.argv[1:4])
def pages(d):
    return {f["path"]: {r["offset"] // 4096 + i for r in f["ranges"] for i in range(r["length"] // 4096)}
            for f in d["files"]}
pa, pb = pages(a), pages(b)
got = {f["path"]: f for f in c["files"]}
assert set(got) == set(pa) | set(pb), (sorted(got), sorted(pa), sorted(pb))
for p, f in got.items():
    A, B = pa.get(p, set()), pb.get(p, set())
    want = (len(A) * 4096, len(B) * 4096, len(B - A) * 4096, len(A - B) * 4096)
    assert (f["a_bytes"], f["b_bytes"], f["added_bytes"], f["lost_bytes"]) == want, (p, f, want)
    assert f["status"] == ("added" if p not in pa else "lost" if p not in pb else
                           f["status"] if f["status"] == "replaced" else
                           "changed" if A != B else "same"), (p, f)
changed = [f["added_bytes"] + f["lost_bytes"] for f in c["files"]]
assert changed == sorted(changed, reverse=True), changed
t = c["totals"]
assert t["bytes_a"] == a["totals"]["bytes"] and t["bytes_b"] == b["totals"]["bytes"], t
assert t["bytes_b"] - t["bytes_a"] == t["added_bytes"] - t["lost_bytes"], t
assert t["added_bytes"] == sum(f["added_bytes"] for f in c["files"]), t
assert t["files_a"] == a["totals"]["files"] and t["files_b"] == b["totals"]["files"], t
assert t["metadata_bytes_a"] == a["totals"]["metadata_bytes"], t
PY
ok "json: per file and in total, as the packs' pages say" python3 "$T/check.py" "$T/cmp.json" "$T/a.json" "$T/b.json"
ok "json: metadata of device 8:1 matched by its number" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["metadata"]
assert m == [{"filesystem": None, "device": "8:1", "status": "changed", "a_bytes": 8192,
              "b_bytes": 8192, "added_bytes": 4096, "lost_bytes": 4096}], m' "$T/cmp.json"

run_ok "the other way round" timeout 10 "$URA_DUMP" --compare --json "$T/b.pack" "$T/a.pack"
ok "json: as the packs' pages say" python3 "$T/check.py" "$T/out" "$T/b.json" "$T/a.json"

run_ok "html" timeout 10 "$URA_DUMP" --compare --html "$T/cmp.html" "$T/a.pack" "$T/b.pack"
ok "well-formed XML, one script" python3 -c '
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
assert len(d.getElementsByTagName("script")) == 1
rows = [t for t in d.getElementsByTagName("table") if t.getAttribute("id") == "files"][0] \
    .getElementsByTagName("tbody")[0].getElementsByTagName("tr")
assert len(rows) == 4, len(rows)' "$T/cmp.html"

# hostile names on both sides
EVIL=$'</td></tr></table><script>alert(1)</script>&"\'/\x01\xff]]>'
"$MKH" "$T/e1.pack" fs:8:1:/ "file:0:$EVIL" range:0:0:3
"$MKH" "$T/e2.pack" fs:8:1:/ "file:0:$EVIL" range:0:1:3
run_ok "hostile names: html" timeout 10 "$URA_DUMP" --compare --html "$T/e.html" "$T/e1.pack" "$T/e2.pack"
ok "one script, the page's own; well-formed XML" python3 -c '
import sys, xml.dom.minidom
t = open(sys.argv[1], encoding="utf-8").read()
assert t.lower().count("<script") == 1 and t.lower().count("</script") == 1
d = xml.dom.minidom.parse(sys.argv[1])
assert len(d.getElementsByTagName("script")) == 1' "$T/e.html"
run_ok "hostile names: text" timeout 10 "$URA_DUMP" --compare "$T/e1.pack" "$T/e2.pack"
ok "a control byte is escaped, one line per file" out_has "changed   /</td></tr></table><script>alert(1)</script>&\"'/\\001"$'\xff'"]]>"

status_is "--compare needs two packs" 64 "$URA_DUMP" --compare "$G"
status_is "--compare with --svg is a usage error" 64 "$URA_DUMP" --compare --svg "$T/x.svg" "$G" "$G"
status_is "a missing B exits 66" 66 "$URA_DUMP" --compare "$G" "$T/none.pack"
ok "naming it" err_has "cannot read pack '$T/none.pack'"
done_testing
