#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The picture of a real start-up: trace `python3 -c 'import json, email'`, draw it (--svg,
# --html, and with the long tail cut by --rows), check rows and totals against --json, and render
# both in headless Chromium: no console error or uncaught exception, the page's script has run
# (sorted by #sort=-bytes), a screenshot with something drawn in it.
. "$(dirname "$0")/lib.sh"

CHROMIUM=${CHROMIUM:-chromium}
need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP"
command -v python3 >/dev/null || skip_all "needs python3"
command -v "$CHROMIUM" >/dev/null || skip_all "needs chromium (apt-get install chromium)"
CHECK=$TOP/tests/tools/picture-check.py

T=$(mktemp -d /var/tmp/ura-picture-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
tracefs_snapshot

plan 19

# chromium FILE.log ARGS...: headless, own profile, its log (console messages included) kept
chromium_run() {
	local log=$1
	shift
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/profile" --hide-scrollbars --enable-logging=stderr --v=0 "$@" \
		2>"$log"
}
# LOG: no console message at all (the page logs nothing), no uncaught exception
quiet_console() {
	! grep -E 'CONSOLE|Uncaught' "$1" || { echo "console of $1 above" >&2; return 1; }
}
# PNG: a screenshot of something: a PNG, larger than a blank page compresses to
drawn() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$1")" -gt 20000 ]
}

ok "trace a Python start" trace "$T/py.pack" python3 -c 'import json, email'
ok "tracefs as found" tracefs_unchanged
"$URA_DUMP" --json "$T/py.pack" >"$T/py.json"
ok "the pack has files" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["totals"]["files"] < 5)' "$T/py.json"

ok "--svg" timeout 30 "$URA_DUMP" --svg "$T/py.svg" "$T/py.pack"
ok "well-formed XML, rows and totals as --json" python3 "$CHECK" "$T/py.svg" "$T/py.json"
ok "--html" timeout 30 "$URA_DUMP" --html "$T/py.html" "$T/py.pack"
ok "well-formed XML, picture and table as --json" python3 "$CHECK" "$T/py.html" "$T/py.json"
ok "--rows 20 --svg --html: the long tail summed" timeout 30 "$URA_DUMP" --rows 20 \
	--svg "$T/tail.svg" --html "$T/tail.html" "$T/py.pack"
ok "its rows and totals as --json" sh -c 'python3 "$1" "$2" "$4" && python3 "$1" "$3" "$4"' - \
	"$CHECK" "$T/tail.svg" "$T/tail.html" "$T/py.json"

height=$(sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' "$T/py.svg" | head -1)
ok "Chromium draws the SVG" chromium_run "$T/svg.log" --screenshot="$T/py-svg.png" \
	--window-size="1400,${height:-1000}" "file://$T/py.svg"
ok "a picture in the screenshot" drawn "$T/py-svg.png"
ok "no console error" quiet_console "$T/svg.log"
ok "Chromium reads the SVG's DOM" chromium_run "$T/svgdom.log" --dump-dom "file://$T/py.svg"
ok "no console error" quiet_console "$T/svgdom.log"

ok "Chromium runs the page, sorted by bytes" chromium_run "$T/page.log" --dump-dom \
	"file://$T/py.html#sort=-bytes"
cp "$T/check.out" "$T/dom.html"
ok "no console error, no uncaught exception" quiet_console "$T/page.log"
ok "the script ran and sorted the files by bytes, most first" python3 -c '
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
assert re.search(r"<html[^>]* data-sorted=\"files:-bytes\"", t), "not sorted"
assert re.search(r"<html[^>]* data-ready=\"1\"", t), "script did not finish"
body = t[t.index("<tbody>", t.index("id=\"files\"")):]
body = body[:body.index("</tbody>")]
sizes = [int(v) for v in re.findall(r"<tr data-rank=\"\d+\" data-row=\"r\d+\">(?:<td[^>]*>.*?</td>){3}<td data-v=\"(\d+)\"", body)]
assert len(sizes) > 1 and sizes == sorted(sizes, reverse=True), sizes[:10]
' "$T/dom.html"
ok "Chromium draws the page" chromium_run "$T/shot.log" --screenshot="$T/py-html.png" \
	--window-size=1400,1200 "file://$T/py.html"
ok "a picture in the screenshot" drawn "$T/py-html.png"
done_testing
