#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pack a user gets plans as the best one: a default trace and a --cold trace of the same
# start (scattered mmap reads of a large file, as a large program's libraries are read) plan
# the same bytes within 10%, and a replay of the default pack leaves the start nothing to
# read. Anything a replay changes is restored when it is stopped by SIGTERM or SIGKILL.
. "$(dirname "$0")/lib.sh"
need_root_tracefs
need_tools "$URA_TRACE" "$URA_REPLAY" "$URA_DUMP"
need_helpers
command -v mkfs.ext4 >/dev/null || skip_all "needs mkfs.ext4"
plan 10

T=$(mktemp -d /var/tmp/ura-plan-test.XXXXXX)
trap 'damon_resume; scratch_cleanup "$T"' EXIT
damon_pause
make_scratch_fs "$T" 256 || skip_all "cannot make a scratch ext4 filesystem"
M=$T/mnt
head -c $((96 << 20)) /dev/urandom >"$M/lib.so"
sync
# 3,000 pages of the 24,576, in clusters of 1 to 6 pages with holes of every size
PAGES=$(python3 -c '
import random
r = random.Random(7); p = 0; out = []
while len(out) < 3000:
    p += r.randint(1, 40)
    out += range(p, p + r.randint(1, 6))
print(" ".join(str(x) for x in out if x < 24576))')
RUN="$HELPERS/touch-pages $M/lib.so $PAGES"
MAJMIN=$(stat -c '%Hd:%Ld' "$M")
# an sdcard-like device: a read costs 0.5 ms, bytes go at 20 MB/s
COSTS="--request-cost 0.0005 --bandwidth 20M --probe never"
plan_bytes() {
	"$URA_REPLAY" --dry-run --json $COSTS "$1" | python3 -c '
import json, sys
print(sum(d["bytes"] for d in json.load(sys.stdin)["devices"] if d["device"] == sys.argv[1]))
' "$MAJMIN"
}

# the first trace with files on the scratch device measures it afterwards: from then on a
# trace runs it at the read_ahead_kb its model gives, as both traces below do
timeout 120 "$URA_TRACE" -q --pack "$T/first.pack" -- cat "$M/lib.so" >/dev/null
sync
echo 3 >/proc/sys/vm/drop_caches
ok "default trace of a cold start" timeout 120 "$URA_TRACE" -q --pack "$T/plain.pack" -- $RUN
ok "--cold trace of the same start" timeout 120 "$URA_TRACE" -q --cold --pack "$T/cold.pack" -- $RUN
plain=$(plan_bytes "$T/plain.pack")
cold=$(plan_bytes "$T/cold.pack")
diag "planned bytes on the scratch device: default pack $plain, --cold pack $cold"
ok "the --cold pack plans something" test "${cold:-0}" -gt 0
ok "the default pack plans the bytes of the --cold pack within 10%" \
	python3 -c "import sys; p, c = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(p - c) > c / 10)" \
	"${plain:-0}" "${cold:-0}"

# the outcome: after a replay of the default pack, the start reads nothing more
reads() { awk '{ print $1 }' "/sys/block/${SCRATCH_LOOP#/dev/}/stat"; }
sync
echo 3 >/proc/sys/vm/drop_caches
ok "replay of the default pack" timeout 60 "$URA_REPLAY" -q --wait "$T/plain.pack"
resident=$(fincore -b -n -o RES "$M/lib.so" 2>/dev/null)
before=$(reads)
$RUN
after=$(reads)
diag "reads of the scratch device by the start after the replay: $((after - before))" \
	"(lib.so resident before it: ${resident:-?} bytes)" >&2
ok "the start after the replay reads nothing from the device" test "$((after - before))" -eq 0

# a replay stopped by a signal leaves the system as it found it: every block device's
# read_ahead_kb, tracefs, and nothing half-written where the device models are kept (a
# model the probe finished is kept)
state() {
	cat /sys/block/*/queue/read_ahead_kb
	ls -A "$URA_DEVICE_CACHE" 2>/dev/null | grep -v -e '\.model$' -e '\.failed$'
}
export URA_DEVICE_CACHE=$T/devices
mkdir -p "$URA_DEVICE_CACHE"
for sig in TERM KILL; do
	before=$(state)
	tracefs_snapshot
	sync
	echo 3 >/proc/sys/vm/drop_caches
	"$URA_REPLAY" -q --probe always "$T/plain.pack" &
	pid=$!
	sleep 0.3
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	ok "after SIG$sig: read_ahead_kb and the model directory as before" test "$(state)" = "$before"
	ok "after SIG$sig: tracefs as before" tracefs_unchanged
done
