#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-replay --check-stale: the share of files and bytes on changed files, the retrace rule
# (more than 10% of the files or of the bytes), --mark-stale, and no data read
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
MKPACK="$BUILD/tests/integration/helpers/mkpack"
[ -x "$MKPACK" ] || skip_all "no $MKPACK (make test-helpers)"
plan 17
cd "$T" || exit 1
mkdir d
for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
	head -c 40960 /dev/zero >"d/f$i"
done
head -c 409600 /dev/zero >d/big
"$MKPACK" p.pack d/f* d/big >/dev/null
chmod 0600 p.pack
run_ok "a fresh pack is up to date" "$URA_REPLAY" --check-stale p.pack
ok "it says so, with the shares" out_has "0 of 21 files (0.0%) and 0.0 of 1.2 MiB (0.0%) changed, missing or refused; traced at an unknown time; up to date"
# two of 21 files (9.5%), 80 of 1200 KiB (6.7%): under both shares
rm d/f0
cp d/f1 d/x && mv d/x d/f1
run_ok "two changed small files: still up to date" "$URA_REPLAY" --check-stale --mark-stale mark --json p.pack
ok "JSON: files and bytes on changed files" out_has '"files":21,"changed_files":2,"stale_files":1,"written_files":0,"missing_files":1,"refused_files":0,"file_bytes":1228800,"changed_bytes":81920,"written_bytes":0,"changed_files_pct":9.52,"changed_bytes_pct":6.67,"age_days":null,"errors":0,"stale":false}'
ok "not marked" test ! -e mark
# the large file: 3 of 21 files (14%) but also 40% of the bytes
cp d/big d/x && mv d/x d/big
run_ok "a changed large file: stale" "$URA_REPLAY" --check-stale --mark-stale mark p.pack
ok "stale by the rule" out_has "3 of 21 files (14.3%) and 0.5 of 1.2 MiB (40.0%)"
ok "marked" test -f mark
# bytes alone: a new pack of 30 small files and the large one, only the large one changed
rm -f mark
for i in $(seq 20 49); do head -c 4096 /dev/zero >"d/s$i"; done
"$MKPACK" q.pack d/s* d/big >/dev/null
chmod 0600 q.pack
cp d/big d/x && mv d/x d/big
run_ok "one file of 31 (3%) holding 77% of the bytes: stale" "$URA_REPLAY" --check-stale --mark-stale mark --json q.pack
ok "stale by bytes alone" sh -c 'grep -F "\"changed_files\":1," "$1" && grep -F "\"stale\":true" "$1"' - "$T/out"
ok "and marked" test -f mark
# a large file the system writes in place (the journal, a log): changed after any new trace
# too, so it does not count
rm -f mark
head -c 409600 /dev/zero >d/log
"$MKPACK" r.pack d/s* d/log >/dev/null
chmod 0600 r.pack
head -c 4096 /dev/zero >>d/log
run_ok "one file of 31 holding 77% of the bytes, written in place: up to date" \
	"$URA_REPLAY" --check-stale --mark-stale mark --json r.pack
ok "counted as written, not stale" sh -c 'grep -F "\"written_files\":1," "$1" &&
	grep -F "\"changed_bytes\":0," "$1" && grep -F "\"stale\":false" "$1"' - "$T/out"
ok "not marked" test ! -e mark
status_is "--check-stale and --dry-run exclude each other" 64 "$URA_REPLAY" --check-stale --dry-run p.pack
status_is "a missing pack: 66" 66 "$URA_REPLAY" --check-stale missing.pack
# no data read: with the pages evicted, a check leaves them out of the page cache
resident() { fincore -nbo RES "$1" 2>/dev/null | tr -d ' '; }
sync d/big 2>/dev/null
if command -v fincore >/dev/null && "$BUILD/tests/integration/helpers/evict" d/big 2>/dev/null &&
	[ "$(resident d/big)" = 0 ]; then
	"$URA_REPLAY" --check-stale q.pack >/dev/null 2>&1
	ok "no page of the large file was read" test "$(resident d/big)" = 0
else
	skip "cannot evict the file's pages here (no fincore, or tmpfs)"
fi
done_testing
