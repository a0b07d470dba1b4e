#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-dump --svg and --html without root: the picture of the golden pack, of a merged pack, of a
# pack with hostile names and of 120,000 files; well-formed XML whose rows, totals and tables
# match --json, with no script but the page's own
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
G="$DATA/golden-v1.pack"
MKH=$BUILD/tests/integration/helpers/mkhostile
CHECK=$TOP/tests/tools/picture-check.py
[ -x "$MKH" ] || make -s -C "$TOP" BUILD="$BUILD" test-helpers >&2 ||
	skip_all "cannot build tests/integration/helpers/mkhostile"
command -v python3 >/dev/null || skip_all "needs python3"
plan 43

# PACK NAME: its JSON, for the checks
json_of() { "$URA_DUMP" --json "$1" >"$T/$2.json"; }
# TEXT FILE: how often TEXT is in FILE
count() { grep -oF -- "$1" "$2" | wc -l; }

# ---- the golden pack ----
run_ok "--svg writes the picture" timeout 10 "$URA_DUMP" --svg "$T/g.svg" "$G"
ok "and prints nothing" test ! -s "$T/out"
json_of "$G" g
ok "well-formed XML, rows and totals as --json" python3 "$CHECK" "$T/g.svg" "$T/g.json"
ok "no script" not grep -F '<script' "$T/g.svg"
ok "no reference to anything outside" not grep -E '(href|src)=' "$T/g.svg"
ok "a row per file and per metadata device" test "$(count 'class="row' "$T/g.svg")" = 6
ok "the header has the command and the totals" grep -F '4 files (4 drawn)' "$T/g.svg"
ok "a control byte and a byte that is not UTF-8 are escaped" grep -F 'we\377ird name\nwith newline' "$T/g.svg"
run_ok "--svg - writes to standard output" timeout 10 "$URA_DUMP" --svg - "$G"
ok "the same picture" cmp "$T/out" "$T/g.svg"
run_ok "--rows 2" timeout 10 "$URA_DUMP" --rows 2 --svg "$T/g2.svg" "$G"
ok "two files drawn, the other two summed, as --json says" python3 "$CHECK" "$T/g2.svg" "$T/g.json"
ok "their row says so" grep -F 'and 2 more files' "$T/g2.svg"

run_ok "--html and --svg together" timeout 10 "$URA_DUMP" --html "$T/g.html" --svg "$T/g3.svg" "$G"
ok "the same picture" cmp "$T/g3.svg" "$T/g.svg"
ok "the page: well-formed XML, picture and table as --json" python3 "$CHECK" "$T/g.html" "$T/g.json"
ok "the page has one script, its own" test "$(count '<script' "$T/g.html")" = 1
ok "and refers to nothing outside" not grep -E '(href|src)=' "$T/g.html"
ok "the table gives each file's page map" test "$(count '<svg xmlns="http://www.w3.org/2000/svg" class="map"' "$T/g.html")" = 6
status_is "--svg - and --html - is a usage error" 64 "$URA_DUMP" --svg - --html - "$G"
status_is "--svg with --json is a usage error" 64 "$URA_DUMP" --json --svg "$T/x.svg" "$G"
status_is "--rows without --svg is a usage error" 64 "$URA_DUMP" --rows 5 "$G"
status_is "--rows takes a number" 64 "$URA_DUMP" --rows many --svg "$T/x.svg" "$G"
status_is "an output that cannot be written exits 1" 1 "$URA_DUMP" --svg "$T/no/such/dir.svg" "$G"
ok "naming it" err_has "cannot write '$T/no/such/dir.svg'"

# ---- a merged pack: support shading ----
"$MKH" "$T/r1.pack" fs:8:1:/ file:0:usr/lib/both file:0:usr/lib/one range:0:0:10 range:1:0:5
"$MKH" "$T/r2.pack" fs:8:1:/ file:0:usr/lib/both range:0:0:10
timeout 10 "$URA_TRACE" --merge --min-confidence 0.5 --pack "$T/m.pack" "$T/r1.pack" "$T/r2.pack" 2>/dev/null
run_ok "a merged pack" timeout 10 "$URA_DUMP" --svg "$T/m.svg" "$T/m.pack"
json_of "$T/m.pack" m
ok "rows, totals and support as --json" python3 "$CHECK" "$T/m.svg" "$T/m.json"
ok "pages of 1 of 2 runs lighter than those of 2 of 2" python3 -c '
import sys, xml.dom.minidom
rows = {g.getAttribute("data-support-min"): g for g in
        xml.dom.minidom.parse(sys.argv[1]).getElementsByTagName("g") if g.getAttribute("data-rank")}
op = {k: {p.getAttribute("fill-opacity") for p in g.getElementsByTagName("path")
          if p.getAttribute("class") == "d" and p.hasAttribute("fill-opacity")}
      for k, g in rows.items()}
sys.exit(0 if op == {"1": {"0.62"}, "2": {"1.00"}} else (print(op), 1)[1])
' "$T/m.svg"

run_ok "a merged pack's page" timeout 10 "$URA_DUMP" --html "$T/m.html" "$T/m.pack"
ok "its table says the support of each file" python3 -c '
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
t = [t for t in d.getElementsByTagName("table") if t.getAttribute("id") == "files"][0]
cells = [[td.firstChild.data if td.firstChild and td.firstChild.nodeType == 3 else ""
          for td in tr.getElementsByTagName("td")] for tr in t.getElementsByTagName("tbody")[0].getElementsByTagName("tr")]
assert [c for c in cells if "2 of 2" in c] and [c for c in cells if "1 of 2" in c], cells
' "$T/m.html"

# ---- hostile names ----
EVIL=$'</text><script>alert(1)</script>&"\'/x\x01\xff]]>'
"$MKH" "$T/evil.pack" fs:8:1:$'/mnt/<svg onload=alert(3)>' "file:0:$EVIL" range:0:0:3 \
	meta:8:1:4096:4096 $'command:</script><script>alert(2)</script>\x01\xff' $'kernel:<b>&amp;'
run_ok "hostile names" timeout 10 "$URA_DUMP" --svg "$T/evil.svg" "$T/evil.pack"
json_of "$T/evil.pack" evil
ok "still well-formed XML, rows as --json" python3 "$CHECK" "$T/evil.svg" "$T/evil.json"
ok "no script, no element from the names" sh -c '! grep -iE "<(script|svg on|b>)" "$1"' - "$T/evil.svg"
ok "the names are there, escaped" grep -F '&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;/x\001\377]]&gt;' "$T/evil.svg"
run_ok "hostile names in the page" timeout 10 "$URA_DUMP" --html "$T/evil.html" "$T/evil.pack"
ok "well-formed XML, picture and table as --json" python3 "$CHECK" "$T/evil.html" "$T/evil.json"
ok "one script, the page's own" sh -c '[ "$(grep -oiF "<script" "$1" | wc -l)" = 1 ] &&
	[ "$(grep -oiF "</script" "$1" | wc -l)" = 1 ]' - "$T/evil.html"

# ---- 120,000 files ----
"$MKH" "$T/big.pack" fs:8:1:/ tail:0:120000
run_ok "120,000 files" timeout 10 "$URA_DUMP" --svg "$T/big.svg" "$T/big.pack"
json_of "$T/big.pack" big
ok "150 rows drawn, the rest summed, as --json says" python3 "$CHECK" "$T/big.svg" "$T/big.json"
ok "the picture stays small (< 512 KiB)" test "$(stat -c %s "$T/big.svg")" -lt 524288
run_ok "120,000 files in a page" timeout 10 "$URA_DUMP" --html "$T/big.html" "$T/big.pack"
ok "the table lists the rows drawn, as --json says" python3 "$CHECK" "$T/big.html" "$T/big.json"
ok "the page stays small (< 1 MiB)" test "$(stat -c %s "$T/big.html")" -lt 1048576
done_testing
