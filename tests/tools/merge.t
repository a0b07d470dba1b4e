#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-trace --merge on packs made without tracing: output format 1.1, support in ura-dump,
# the output as one of the inputs, a bad input named with its exit code
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
G="$DATA/golden-v1.pack"
plan 17

cp "$G" "$T/a.pack"
run_ok "merge two runs" timeout 10 "$URA_TRACE" --merge --pack "$T/m.pack" "$G" "$T/a.pack"
ok "summary: runs and the count a page needs" err_has "merged 2 of 2 runs (a page needs 2)"
run_ok "the merged pack dumps" timeout 10 "$URA_DUMP" "$T/m.pack"
ok "text: format 1.1, merged from 2 runs" out_has "format 1.1, created 2025-11-22T02:00:00Z, merged from 2 runs"
ok "text: support per file" out_has "/usr/bin/python3.11 (6833392 bytes, 116 pages in pack, 84 demanded, support 2 of 2 runs)"
ok "text: support per metadata range" out_has "length 8192 at 0.000000 s, support 2 of 2 runs"
run_ok "json" timeout 10 "$URA_DUMP" --json "$T/m.pack"
ok "json: runs and support" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "1.1" and d["runs"] == 2 and len(d["run_list"]) == 2, d["runs"]
rs = [r for f in d["files"] for r in f["ranges"]]
assert rs and all(r["support"] == 2 and r["run_mask"] == 3 for r in rs), rs
assert all(m["support"] == 2 for m in d["metadata"])
' "$T/out"

# the output may be an input: add a run to a merged pack, keep the newest 2
run_ok "merge into an input, --keep-runs 2" timeout 10 "$URA_TRACE" --merge --keep-runs 2 --json \
	--pack "$T/m.pack" "$T/m.pack" "$G"
ok "json summary: 3 runs in, 2 kept" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["runs_in"] == 3 and s["runs"] == 2 and s["need"] == 2, s
' "$T/out"
ok "no temporary file left" sh -c "! ls '$T' | grep -F 'm.pack.'"

status_is "a missing input exits 66" 66 "$URA_TRACE" --merge --pack "$T/o.pack" "$G" "$T/none.pack"
ok "it is named" err_has "cannot read pack '$T/none.pack': No such file or directory"
head -c 500 "$G" >"$T/trunc.pack"
status_is "a corrupt input exits 65" 65 "$URA_TRACE" --merge --pack "$T/o.pack" "$T/trunc.pack" "$G"
ok "it is named with the cause" err_has "cannot read pack '$T/trunc.pack': file size does not match"
ok "no output written" test ! -e "$T/o.pack"
status_is "--min-confidence out of range is a usage error" 64 "$URA_TRACE" --merge \
	--min-confidence 0 --pack "$T/o.pack" "$G"
done_testing
