#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Packs of any size: ura-replay reads a pack of 5,000 files in full under `ulimit -n 1024`
# (files are closed once their requests are issued, and reopened, checked again, when a
# file has to be held longer than the limit allows), and exits 1 with one line per cause
# when files fail for another reason than having changed.
. "$(dirname "$0")/lib.sh"
R="$URA_REPLAY"

if [ "$(id -u)" != 0 ]; then
	skip_all "needs root"
fi
[ -x "$R" ] || skip_all "ura-replay is not built (make)"
make -s -C "$TOP" BUILD="$BUILD" test-helpers >/dev/null 2>&1
[ -x "$MKPACK" ] || skip_all "cannot build the mkpack helper"

T=$(mktemp -d /var/tmp/ura-nofile-test.XXXXXX)
trap 'scratch_cleanup "$T"' EXIT
make_scratch_fs "$T" 160 >/dev/null 2>&1 || skip_all "cannot make a scratch ext4 on a loop device"
D="$T/mnt"

plan 10
NFILES=5000
for d in $(seq 0 49); do
	mkdir -p "$D/d$d"
	for i in $(seq 0 99); do
		head -c 8192 /dev/urandom >"$D/d$d/f$i"
	done
done
sync
find "$D" -name 'f*' -type f | sort >"$T/list"
"$MKPACK" "$T/p.pack" $(cat "$T/list")
ok "a pack of $NFILES files" test "$("$URA_DUMP" --json "$T/p.pack" |
	python3 -c 'import json, sys; print(len(json.load(sys.stdin)["files"]))')" = "$NFILES"

# cold: unmount and mount again
cold() { umount "$D" && mount "$SCRATCH_LOOP" "$D"; }
json() { grep -o "\"$1\":[0-9a-z.]*" "$T/report" | cut -d: -f2; }

cold
(ulimit -n 1024 && timeout 120 "$R" --wait --json "$T/p.pack") >"$T/report" 2>"$T/err"
rc=$?
ok "under ulimit -n 1024 (soft and hard): exit 0 (got $rc)" test "$rc" = 0
ok "no file failed" test "$(json errors)" = 0
ok "every byte read: issued $(json issued_bytes) of $((NFILES * 8192))" \
	test "$(json issued_bytes)" = $((NFILES * 8192))
sample() { awk 'NR % 50 == 1' "$T/list"; }
ok "--wait saw every page resident (unresident_bytes $(json unresident_bytes))" \
	test "$(json unresident_bytes)" = 0
# Seen after the replay: most of each sampled file. Not all: a DAMON reclaimer (this VM runs
# one, ura-replay(8) NOTES) pages out memory whose region looked idle, pages just read too.
# On failure, say what became of the pages: in flight (resident a second later), gone, or an
# I/O error the kernel logged.
mostly_resident() {
	local res total f sum=0 all=0
	for f in "$@"; do
		read -r res total < <("$MKPACK" --resident "$f") || return 1
		sum=$((sum + res)) all=$((all + total))
	done
	[ "$all" -gt 0 ] && [ $((sum * 100)) -ge $((all * 95)) ] && return 0
	echo "$sum of $all sampled bytes resident; replay report: $(cat "$T/report")"
	sleep 1
	all_resident "$@" && echo "all resident 1 s later: the replay returned before its reads ended"
	grep -E '^(MemFree|Cached):' /proc/meminfo
	dmesg 2>/dev/null | tail -5
	return 1
}
ok "pages resident (every 50th file: 95% of their bytes at least)" mostly_resident $(sample)

cold
(ulimit -S -n 256 && timeout 120 "$R" --json "$T/p.pack") >"$T/report" 2>"$T/err"
rc=$?
ok "soft limit 256 under a higher hard one: exit 0, nothing failed (got $rc)" \
	test "$rc" = 0 -a "$(json errors)" = 0

# A limit too low for anything but stdio and the pack: files fail, and that is an error.
cold
(ulimit -n 7 && timeout 120 "$R" --json "$T/p.pack") >"$T/report" 2>"$T/err"
rc=$?
ok "ulimit -n 7: exit 1 (got $rc)" test "$rc" = 1
ok "the report counts the failures ($(json errors))" test "$(json errors)" -gt 0
ok "one error line per cause, with the count" \
	grep -E "error: [0-9]+ opens? or reads? of '.*p.pack' failed: Too many open files" "$T/err"
done_testing
