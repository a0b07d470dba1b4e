#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole cycle on a small throttled loop filesystem: trace a program, make the filesystem
# cold (unmount, mount), ura-replay --wait, then run the program in a blkio cgroup that
# throttles the device: it must issue (nearly) no reads of its own (blkio.throttle.io_serviced
# of its cgroup), where a cold run issues many. Nothing is timed.
. "$(dirname "$0")/lib.sh"

need_root_tracefs
need_tools "$URA_TRACE" "$URA_REPLAY" "$URA_DUMP"
need_helpers
BLKIO=/sys/fs/cgroup/blkio
[ -w "$BLKIO/cgroup.procs" ] && [ -e "$BLKIO/blkio.throttle.read_iops_device" ] ||
	skip_all "needs the cgroup-v1 blkio controller with throttling"

T=$(mktemp -d /var/tmp/ura-cycle-test.XXXXXX)
CG=$BLKIO/ura_cycle_test_$$
damon_pause
cleanup() {
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	damon_resume
	scratch_cleanup "$T"
}
trap cleanup EXIT
make_scratch_fs "$T" 64 >&2 || skip_all "cannot make a scratch ext4 loop filesystem"
M=$T/mnt
majmin=$(lsblk -dno MAJ:MIN "$SCRATCH_LOOP" | tr -d ' ')
mkdir "$CG" || skip_all "cannot make a blkio cgroup"
# slow enough to be a slow disk, fast enough for a test
echo "$majmin 2000" >"$CG/blkio.throttle.read_iops_device"
echo "$majmin 50000000" >"$CG/blkio.throttle.read_bps_device"

plan 17

# the program: reads some files whole, part of another through mmap, in a tree of directories
mkdir -p "$M/lib/a/b" "$M/share/c"
for i in $(seq 12); do head -c $((16 * 4096 + i * 100)) /dev/urandom >"$M/lib/a/b/f$i"; done
for i in $(seq 6); do head -c 20000 /dev/urandom >"$M/share/c/g$i"; done
head -c $((256 * 4096)) /dev/urandom >"$M/lib/big"
cat >"$M/prog.sh" <<'EOF'
#!/bin/sh
cat "$1"/lib/a/b/f* "$1"/share/c/g* >/dev/null
"$2" "$1/lib/big" 3 40 77 120 200
EOF
chmod +x "$M/prog.sh"
sync

cold() {
	umount "$M" && mount "$SCRATCH_LOOP" "$M" && return 0
	echo "# cannot make $M cold (umount, mount)" >&2
	exit 1
}
# reads: READS of the device the cgroup's tasks issued while running CMD...
reads() {
	local before after
	before=$(awk -v d="$majmin" '$1 == d && $2 == "Read" { print $3 }' "$CG/blkio.throttle.io_serviced")
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' - "$CG" "$@" >/dev/null
	after=$(awk -v d="$majmin" '$1 == d && $2 == "Read" { print $3 }' "$CG/blkio.throttle.io_serviced")
	echo $((${after:-0} - ${before:-0}))
}
prog() { "$M/prog.sh" "$M" "$HELPERS/touch-pages"; }

cold
fincore --bytes --noheadings "$M"/lib/a/b/f* >"$T/resident.before" 2>&1
ok "trace the program cold, at read_ahead_kb 4" timeout 60 "$URA_TRACE" -q --read-ahead-kb 4 \
	--pack "$T/prog.pack" -- "$M/prog.sh" "$M" "$HELPERS/touch-pages"
ok "the pack has metadata of the device" sh -c '
	"$1" --json "$2" | grep -q "\"device\": *\"$3\""' - "$URA_DUMP" "$T/prog.pack" "$majmin"

cold
n_cold=$(reads "$M/prog.sh" "$M" "$HELPERS/touch-pages")
ok "a cold run reads from the device ($n_cold reads)" test "$n_cold" -ge 10

cold
n_warm=$(reads "$M/prog.sh" "$M" "$HELPERS/touch-pages")
n_warm=$(reads "$M/prog.sh" "$M" "$HELPERS/touch-pages")
ok "a warm run does not ($n_warm reads)" test "$n_warm" -le 1

cold
ok "ura-replay --wait, in the same throttled cgroup" sh -c '
	echo $$ >"$1/cgroup.procs"; exec timeout 60 "$2" -q --wait "$3"' - "$CG" "$URA_REPLAY" "$T/prog.pack"
n_after=$(reads "$M/prog.sh" "$M" "$HELPERS/touch-pages")
for try in 1 2; do
	[ "$n_after" -gt $((n_cold / 10)) ] || break
	# seen in about one run of the whole suite in four beside the tool tests, never alone
	# (12 reads, cold 28, each time; not understood yet): again, twice at most, and say so
	# with the replay's report
	diag "after the replay the program read $n_after times: replaying again ($try)"
	cold
	sh -c 'echo $$ >"$1/cgroup.procs"; exec timeout 60 "$2" --json --wait "$3"' - "$CG" \
		"$URA_REPLAY" "$T/prog.pack" | sed 's/^/# report: /'
	n_after=$(reads "$M/prog.sh" "$M" "$HELPERS/touch-pages")
done
ok "after the replay the program reads (nearly) nothing itself ($n_after reads, cold $n_cold)" \
	test "$n_after" -le $((n_cold / 10))
if [ "$n_after" -gt $((n_cold / 10)) ]; then
	# what the pack holds of the files read again, and what the replay plans: for the next look
	while read -r l; do diag "resident before the trace: $l" >&2; done <"$T/resident.before"
	"$URA_DUMP" "$T/prog.pack" 2>&1 | grep -A1 -E "/(f[0-9]+|g[0-9]+|big) " | while read -r l; do
		diag "pack: $l" >&2
	done
	sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" --dry-run --json "$3"' - "$CG" "$URA_REPLAY" \
		"$T/prog.pack" 2>&1 | head -c 4000 | while read -r l; do diag "plan: $l" >&2; done
fi

# and the files really came from the replay: the same cycle without it reads again
cold
n_again=$(reads "$M/prog.sh" "$M" "$HELPERS/touch-pages")
ok "without the replay it reads again ($n_again)" test "$n_again" -ge 10

# the report says what others read meanwhile: a reader of a file outside the pack, in the
# same throttled cgroup, reading past the page cache (every read goes to the device) for as
# long as a pack of 32 MiB is replayed (0.7 s at 50 MB/s; a reader of one pass of its file
# was done before a slow replay, under ASan on a loaded machine, began)
head -c $((8 << 20)) /dev/urandom >"$M/other"
head -c $((32 << 20)) /dev/urandom >"$M/bulk"
sync
"$MKPACK" "$T/bulk.pack" "$M/bulk" >/dev/null
cold
sh -c 'echo $$ >"$1/cgroup.procs"; while [ ! -e "$3" ]; do
	dd if="$2" of=/dev/null bs=64k count=16 iflag=direct status=none; done' - "$CG" "$M/other" \
	"$T/reader.stop" &
reader=$!
sleep 0.05
dev_read() { echo $(( $(awk '{ print $3 }' "/sys/dev/block/$majmin/stat") * 512 )); }
before=$(dev_read)
sh -c 'echo $$ >"$1/cgroup.procs"; exec timeout 60 "$2" -q --wait --json --probe never \
	--request-cost 0.0005 --bandwidth 50M "$3"' - "$CG" "$URA_REPLAY" "$T/bulk.pack" \
	>"$T/report.json"
after=$(dev_read)
touch "$T/reader.stop"
wait $reader
jget() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$T/report.json"; }
# each of the reader's reads waits behind the replay's queue in the cgroup's throttle, so how
# many complete while the replay runs depends on that queue (three, 192 KiB, in one CI run):
# at least one, and no more than the device read beside the replay's own bytes
others=$(jget others_bytes)
beside=$(( after - before - $(jget issued_bytes) ))
ok "the report counts the other reader's reads ($others bytes of $beside the device read beside the replay, queue $(jget queued_ms) ms)" \
	test "$others" -ge $((64 << 10)) -a "$others" -le "$beside"
# what a miss waited behind: the queue, in the device time of its reads (followed or estimated)
ok "and what it had queued on average ($(jget queued_ms) ms)" \
	awk -v q="$(jget queued_ms)" 'BEGIN { exit !(q > 0) }'
ok "and its bytes add up: pack = resident + issued + skipped + past the end" test \
	"$(jget pack_bytes)" = $(($(jget resident_bytes) + $(jget issued_bytes) + \
	$(jget skipped_bytes) + $(jget past_eof_bytes)))

# the in-flight bound under a slow device: a replay that does not wait queues at most its
# bound (50 ms of the device's time, the default, asked for here) and a request more, so
# what the device still reads
# after the replay has returned is that much (the device's own count). At 20 MB/s a
# throttle stalls longer between reads than the replay's idle rule used to allow: a replay
# of 32 MiB then queued most of it and returned at once (a miss would wait seconds behind).
echo "$majmin 20000000" >"$CG/blkio.throttle.read_bps_device"
cold
before=$(dev_read)
sh -c 'echo $$ >"$1/cgroup.procs"; exec timeout 120 "$2" -q --inflight 50ms --probe never \
	--request-cost 0.0005 --bandwidth 20M "$3"' - "$CG" "$URA_REPLAY" "$T/bulk.pack"
at_end=$(dev_read)
for _ in 1 2 3 4 5 6; do sleep 0.5; done
after=$(dev_read)
left=$(( (after - at_end) >> 10 ))
ok "a replay on a 20 MB/s device returns with at most 6 MiB queued ($left KiB left, $(( (at_end - before) >> 20 )) MiB read before)" \
	test "$left" -le $((6 << 10))
ok "and the device read the pack ($(( (after - before) >> 20 )) MiB)" test $(( (after - before) >> 20 )) -ge 30

# and a miss of the program waits behind at most that bound: while a replay of the pack runs
# on the 20 MB/s device with 16 workers, direct reads of another file in the same cgroup, each
# measured by what the device completed between its start and its end (the bytes it waited
# behind, its own 64 KiB included). With no limit the first would wait behind 16 requests
# (--read wait) or the whole 32 MiB (readahead()). The bound, 50 ms of 20 MB/s, is less than
# one request of 1 MiB, so one is in flight at a time; a request issued just before the miss
# may come ahead of it too: 2 MiB and the miss (and 256 KiB for anyone else's reads:
# metadata, a journal). With --read wait the replay sees its reads complete and the bound
# is exact; readahead() is followed through the device's counts, which take others' reads
# for its own: allowed one more. The second-worst miss is judged: a reader preempted between
# its two looks at the device counts what the device did meanwhile, once; the worst is
# allowed up to 8 MiB (400 ms of the device) for that. With no bound only the first miss
# waits behind the whole queue (16 MiB and more), the later ones behind little: the worst
# tells.
miss_waits() {	# MODE: the two largest waits of the misses during one replay, in KiB, and their count
	cold
	sh -c 'echo $$ >"$1/cgroup.procs"; exec timeout 120 "$2" -q --inflight 50ms --probe never \
		--request-cost 0.0005 --bandwidth 20M --chunk 1M --jobs 16 --json --read "$4" "$3"' - \
		"$CG" "$URA_REPLAY" "$T/bulk.pack" "$1" >"$T/miss-$1.json" &
	local rp=$!
	sleep 0.3
	# one reader, so that nothing but its read lies between its two looks at the device
	python3 - "$CG" "/sys/dev/block/$majmin/stat" "$M/other" "$rp" <<'PY'
import mmap, os, sys
cg, stat, path, rp = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
open(cg + "/cgroup.procs", "w").write(str(os.getpid()))
def done():
    return int(open(stat).read().split()[2]) * 512
def alive():
    try:
        return open("/proc/%d/stat" % rp).read().split()[2] != "Z"
    except OSError:
        return False
fd, buf, waits, n = os.open(path, os.O_RDONLY | os.O_DIRECT), mmap.mmap(-1, 65536), [0, 0], 0
while alive():
    s0 = done()
    os.preadv(fd, [buf], (n % 128) * 65536)
    s1 = done()
    if not alive():
        break    # the replay ended meanwhile: not a wait behind it
    waits, n = sorted(waits + [(s1 - s0) >> 10])[-2:], n + 1
os.close(fd)
print(waits[0], waits[1], n)
PY
	wait $rp
}
miss_waits wait >"$T/miss"
read -r second worst n <"$T/miss"
ok "with --read wait a miss waits behind 2 requests at most ($second KiB, worst $worst, $n misses)" \
	test "$n" -ge 3 -a "$second" -le $((2048 + 64 + 256)) -a "$worst" -le $((8192 + 64 + 256))
miss_waits follow >"$T/miss"
read -r second worst n <"$T/miss"
ok "with --read follow 2 at most ($second KiB, worst $worst, $n misses)" \
	test "$n" -ge 3 -a "$second" -le $((2048 + 64 + 256)) -a "$worst" -le $((8192 + 64 + 256))
# what it reports a miss waited behind: its queue, counted exactly when followed: at most the
# larger of the bound and the one request always let through (1 MiB, 52.4 ms at 20 MB/s)
q=$(sed -n 's/.*"queued_ms":\([0-9.]*\).*/\1/p' "$T/miss-follow.json")
ok "and reports what it had queued: $q ms on average, 0 < queue <= 53 ms" \
	awk -v q="$q" 'BEGIN { exit !(q > 0 && q <= 53) }'
miss_waits ahead >"$T/miss"
read -r second worst n <"$T/miss"
ok "with readahead() 3 at most ($second KiB, worst $worst, $n misses)" \
	test "$n" -ge 3 -a "$second" -le $((3072 + 64 + 256)) -a "$worst" -le $((8192 + 64 + 256))

# a followed request whose end the program has read already is waited for all the same: the
# follower waits for the last page not cached when the request was issued (waiting for the
# request's last byte, cached, it let go at once, and the replay returned with the rest of
# that request still to be read: 960 KiB, 48 ms of this device). Four requests of 1 MiB
# issued in order by one worker, the last with its last 64 KiB cached; no --wait: at
# return, every page is resident (3 MiB with the wait for the last byte).
head -c $((4 << 20)) /dev/urandom >"$M/tail"
sync
"$MKPACK" "$T/tail.pack" "$M/tail" >/dev/null
cold
python3 - "$M/tail" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
for p in range(1008, 1024):
    os.pread(fd, 1, p * 4096)
PY
sh -c 'echo $$ >"$1/cgroup.procs"; exec timeout 60 "$2" -q --inflight 50ms --probe never \
	--request-cost 0.0005 --bandwidth 20M --chunk 1M --jobs 1 --read follow "$3"' - "$CG" \
	"$URA_REPLAY" "$T/tail.pack"
res=$(fincore --bytes --noheadings --output RES "$M/tail")
ok "a followed request with its end cached is waited for ($res of $((4 << 20)) bytes resident at return)" \
	test "$res" = $((4 << 20))
done_testing
