#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Check ura-dump's picture against ura-dump --json: picture-check.py SVG_OR_HTML JSON
# Parses the file as XML (the SVG, and the HTML page, are well-formed XML), finds the picture's
# <svg id="picture">, and compares its totals and rows with the JSON of the same pack. Prints
# what differs and exits 1; exits 0 when everything matches.
import json
import sys
import xml.dom.minidom

SVG = "http://www.w3.org/2000/svg"


def fail(msg):
    print("picture-check: " + msg)
    sys.exit(1)


doc = xml.dom.minidom.parse(sys.argv[1])
d = json.load(open(sys.argv[2]))
svgs = [e for e in doc.getElementsByTagNameNS(SVG, "svg") if e.getAttribute("id") == "picture"]
if len(svgs) != 1:
    fail("%d pictures" % len(svgs))
svg = svgs[0]
scripts = doc.getElementsByTagName("script") + doc.getElementsByTagNameNS(SVG, "script")
if sys.argv[1].endswith(".svg") and scripts:
    fail("the SVG has a script element")
if len(scripts) > 1:
    fail("%d script elements" % len(scripts))


def num(e, name):
    v = e.getAttribute(name)
    if v == "":
        fail("no %s on <%s>" % (name, e.tagName))
    return int(v)


t = d["totals"]
for key in ("files", "ranges", "bytes", "demanded_bytes", "metadata_ranges", "metadata_bytes"):
    if num(svg, "data-" + key.replace("_", "-")) != t[key]:
        fail("data-%s %d, JSON %d" % (key, num(svg, "data-" + key.replace("_", "-")), t[key]))
if num(svg, "data-runs") != d["runs"]:
    fail("runs")
rows = [g for g in svg.getElementsByTagNameNS(SVG, "g") if "row" in g.getAttribute("class").split()]
files = [g for g in rows if g.getAttribute("data-kind") == "file"]
meta = [g for g in rows if g.getAttribute("data-kind") == "metadata"]
more = [g for g in rows if g.getAttribute("data-kind") == "more"]
if len(files) != num(svg, "data-file-rows"):
    fail("%d file rows, data-file-rows %d" % (len(files), num(svg, "data-file-rows")))
ranks = [num(g, "data-rank") for g in files]
if ranks != sorted(ranks) or len(set(ranks)) != len(ranks):
    fail("file rows not in first-access order: %s" % ranks[:20])
drawn = 0
for g in files:
    f = d["files"][num(g, "data-rank")]
    rs = f["ranges"]
    want = (sum(r["length"] for r in rs), sum(r["length"] for r in rs if r["demanded"]), len(rs))
    got = (num(g, "data-bytes"), num(g, "data-demanded-bytes"), num(g, "data-ranges"))
    if want != got:
        fail("row of %r: %s, JSON %s" % (f["path"], got, want))
    if rs and (num(g, "data-first-ns") != min(r["first_access_ns"] for r in rs) or
               num(g, "data-last-ns") != max(r["first_access_ns"] for r in rs)):
        fail("row of %r: first or last access" % f["path"])
    if d["runs"] > 1 and rs and num(g, "data-support-min") != min(r["support"] for r in rs):
        fail("row of %r: support" % f["path"])
    drawn += want[0]
if sum(num(g, "data-bytes") for g in meta) != t["metadata_bytes"]:
    fail("metadata rows do not add up to the metadata bytes")
left = t["files"] - len(files)
if left:
    if len(more) != 1 or num(more[0], "data-files") != left or num(svg, "data-more-files") != left:
        fail("no row for the %d files left out" % left)
    if num(more[0], "data-bytes") != t["bytes"] - drawn or num(svg, "data-more-bytes") != t["bytes"] - drawn:
        fail("the files left out: %d bytes, want %d" % (num(more[0], "data-bytes"), t["bytes"] - drawn))
elif more:
    fail("a row for no files left out")
# the page's table of files: the rows of the picture, with the same figures
if sys.argv[1].endswith(".html"):
    tables = [t for t in doc.getElementsByTagName("table") if t.getAttribute("id") == "files"]
    if len(tables) != 1:
        fail("%d tables of files" % len(tables))
    heads = [th.getAttribute("data-key") for th in tables[0].getElementsByTagName("th")]
    body = tables[0].getElementsByTagName("tbody")[0]
    trs = [tr for tr in body.childNodes if getattr(tr, "tagName", "") == "tr"]
    byrank = {num(g, "data-rank"): g for g in files}
    if sorted(num(tr, "data-rank") for tr in trs) != sorted(byrank):
        fail("the table's files are not the picture's")
    for tr in trs:
        tds = [td for td in tr.childNodes if getattr(td, "tagName", "") == "td"]
        g = byrank[num(tr, "data-rank")]
        for key, attr in (("bytes", "data-bytes"), ("demanded", "data-demanded-bytes"),
                          ("ranges", "data-ranges")):
            if num(tds[heads.index(key)], "data-v") != num(g, attr):
                fail("table row %d: %s" % (num(tr, "data-rank"), key))
    if bool(tables[0].getElementsByTagName("tfoot")) != bool(more):
        fail("the table's summed row")
print("rows %d files %d metadata %d more %d" % (len(rows), len(files), len(meta), len(more)))
