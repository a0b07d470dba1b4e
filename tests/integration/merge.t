#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-trace --merge on real traces: three runs read a shared file and a file of their own;
# merged at 0.6 the pack keeps the shared file and none of the others. A fourth run after the
# shared file changed: its old content is not averaged in, its new identity is kept.
. "$(dirname "$0")/lib.sh"

need_root_tracefs
need_tools "$URA_TRACE" "$URA_DUMP"
need_helpers
command -v python3 >/dev/null || skip_all "needs python3"

T=$(mktemp -d /var/tmp/ura-merge-test.XXXXXX)
trap 'scratch_cleanup "$T"' EXIT
make_scratch_fs "$T" 64 >&2 || skip_all "cannot make a scratch ext4 loop filesystem"
M=$T/mnt
tracefs_snapshot

plan 14

head -c $((64 * 4096)) /dev/urandom >"$M/shared.bin"
for i in 1 2 3; do
	head -c $((16 * 4096)) /dev/urandom >"$M/own$i.bin"
	"$HELPERS/evict" "$M/shared.bin" "$M/own$i.bin"
	ok "run $i: trace a read of the shared file and its own" \
		trace "$T/run$i.pack" sh -c 'cat "$1" "$2" >/dev/null' - "$M/shared.bin" "$M/own$i.bin"
done
each_has_own() {
	has_pages "$T/run1.pack" "$M/own1.bin" && has_pages "$T/run2.pack" "$M/own2.bin" &&
		has_pages "$T/run3.pack" "$M/own3.bin"
}
# PACK: no page of any run's own file
none_of_own() {
	! has_pages "$1" "$M/own1.bin" && ! has_pages "$1" "$M/own2.bin" &&
		! has_pages "$1" "$M/own3.bin"
}
ok "each run has its own file" each_has_own

ok "merge the three runs at 0.6" timeout 60 "$URA_TRACE" -q --merge --min-confidence 0.6 \
	--pack "$T/merged.pack" "$T/run1.pack" "$T/run2.pack" "$T/run3.pack"
ok "the merged pack keeps the shared file" has_pages "$T/merged.pack" "$M/shared.bin"
ok "and none of the runs' own files" none_of_own "$T/merged.pack"
ok "3 runs; the shared file's 64 pages each in all 3" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.check_output([sys.argv[1], "--json", sys.argv[2]]))
f = [f for f in d["files"] if f["path"] == sys.argv[3]][0]
pages = sum(r["length"] for r in f["ranges"]) // 4096
assert d["runs"] == 3 and pages == 64, (d["runs"], pages)
assert all(r["support"] == 3 and r["run_mask"] == 7 for r in f["ranges"]), f["ranges"]
' "$URA_DUMP" "$T/merged.pack" "$M/shared.bin"
ok "the default confidence gives the same files" sh -c '
	timeout 60 "$1" -q --merge --pack "$2/default.pack" "$2/run1.pack" "$2/run2.pack" "$2/run3.pack" &&
	[ "$("$3" --json "$2/default.pack" | python3 -c "import json,sys; print(sorted(f[\"path\"] for f in json.load(sys.stdin)[\"files\"]))")" = \
	  "$("$3" --json "$2/merged.pack" | python3 -c "import json,sys; print(sorted(f[\"path\"] for f in json.load(sys.stdin)[\"files\"]))")" ]
' - "$URA_TRACE" "$T" "$URA_DUMP"
timeout 60 "$URA_TRACE" -q --merge --min-confidence 0.3 --pack "$T/union.pack" \
	"$T/run1.pack" "$T/run2.pack" "$T/run3.pack"
ok "a union (--min-confidence 0.3) keeps the own files too" has_pages "$T/union.pack" "$M/own2.bin"

# the shared file changes: a new run's pages are not averaged with the old content's
head -c $((8 * 4096)) /dev/urandom >>"$M/shared.bin"
"$HELPERS/evict" "$M/shared.bin"
ok "run 4 after the shared file grew" \
	trace "$T/run4.pack" sh -c 'tail -c 32768 "$1" >/dev/null' - "$M/shared.bin"
ok "merge run 4 into the merged pack (output = input)" timeout 60 "$URA_TRACE" -q --merge \
	--pack "$T/merged.pack" "$T/merged.pack" "$T/run4.pack"
ok "the shared file has its new size and only the new run's pages" python3 -c '
import json, os, subprocess, sys
d = json.loads(subprocess.check_output([sys.argv[1], "--json", sys.argv[2]]))
f = [f for f in d["files"] if f["path"] == sys.argv[3]][0]
assert d["runs"] == 4 and f["size"] == os.path.getsize(sys.argv[3]), (d["runs"], f["size"])
assert all(r["support"] == 1 and r["run_mask"] == 1 for r in f["ranges"]), f["ranges"]
assert min(r["offset"] for r in f["ranges"]) >= 64 * 4096 - 65536, f["ranges"]
' "$URA_DUMP" "$T/merged.pack" "$M/shared.bin"
ok "tracefs as found" tracefs_unchanged
done_testing
