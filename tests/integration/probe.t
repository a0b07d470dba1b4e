#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The device probe against a throttled loop device: ura-replay measures the cost of a
# request and the bandwidth itself, within 25% of the cgroup-v1 blkio limits (150 IOPS
# and 50 MB/s, a disk; 2000 IOPS and 20 MB/s, an SD card), tells that the throttle grants
# bytes and requests from two budgets (a mixed stream costs what its larger budget does,
# not the sum), keeps the model per device and limits, and uses it again without measuring.
. "$(dirname "$0")/lib.sh"
R="$URA_REPLAY"

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$R" ] || skip_all "ura-replay is not built (make)"
BLKIO=/sys/fs/cgroup/blkio
[ -w "$BLKIO/cgroup.procs" ] || skip_all "no cgroup-v1 blkio controller"
make -s -C "$TOP" BUILD="$BUILD" test-helpers >/dev/null 2>&1
[ -x "$MKPACK" ] || skip_all "cannot build the mkpack helper"

T=$(mktemp -d /var/tmp/ura-probe-test.XXXXXX)
CG=$BLKIO/ura-probe-test.$$
cleanup() {
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	scratch_cleanup "$T"
}
trap cleanup EXIT
make_scratch_fs "$T" 640 >/dev/null 2>&1 || skip_all "cannot make a scratch ext4 on a loop device"
mkdir "$CG" || skip_all "cannot make a blkio cgroup"
export URA_DEVICE_CACHE="$T/devices"
MAJMIN=$(lsblk -dno MAJ:MIN "$SCRATCH_LOOP" | tr -d ' ')
head -c 65536 /dev/urandom >"$T/mnt/file"
sync
"$MKPACK" "$T/p.pack" "$T/mnt/file"

plan 11
# field NAME: a number from the device entry of the last report
field() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["devices"]
print(d[0][sys.argv[2]] if d else "")' "$T/report" "$1"; }
# within V WANT: V is within 25% of WANT
within() { python3 -c 'import sys; v, w = float(sys.argv[1] or 0), float(sys.argv[2])
sys.exit(0 if 0.75 * w <= v <= 1.25 * w else 1)' "$1" "$2"; }
# budgets_within IOPS: the kept model under these limits has two budgets, reads within 25%
budgets_within() {
	local m got
	for m in "$URA_DEVICE_CACHE"/*.model; do
		grep "read_iops_device=$MAJMIN,$1\$" "$m" >/dev/null || continue
		got=$(sed -n 's/^budgets [0-9]* //p' "$m")
		[ -n "$got" ] && within "$got" "$1"
		return
	done
	return 1
}
# replay_in IOPS BPS ARGS...: replay the pack in the cgroup under these limits
replay_in() {
	echo "$MAJMIN $1" >"$CG/blkio.throttle.read_iops_device"
	echo "$MAJMIN $2" >"$CG/blkio.throttle.read_bps_device"
	shift 2
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' - "$CG" \
		timeout 120 "$R" --json "$@" "$T/p.pack" >"$T/report" 2>"$T/err"
}

# the disk's bandwidth stays well under what the loop file's own disk gives here (a shared
# VM whose disk gave 76 to 130 MB/s), so that the probe measures the limit, not the VM
for profile in "150 50000000 disk" "2000 20000000 sdcard"; do
	set -- $profile
	replay_in "$1" "$2" --probe always
	ok "$3: the replay measured the device" test "$(field model)" = probe
	req=$(field request_us)
	bw=$(field bandwidth)
	ok "$3: request cost ${req} us, limit $((1000000 / $1)) us" within "$req" $((1000000 / $1))
	ok "$3: bandwidth $((${bw%.*} / 1000000)) MB/s, limit $(($2 / 1000000)) MB/s" within "$bw" "$2"
	ok "$3: two budgets, the reads one within 25% of $1/s" budgets_within "$1"
done
replay_in 2000 20000000
ok "the next replay under the same limits reads the kept model" test "$(field model)" = cache
echo "$MAJMIN 0" >"$CG/blkio.throttle.read_iops_device"
echo "$MAJMIN 0" >"$CG/blkio.throttle.read_bps_device"
timeout 120 "$R" --json --probe never "$T/p.pack" >"$T/report" 2>"$T/err"
ok "other limits, --probe never: the sysfs guess" test "$(field model)" = sysfs
ok "a kept model per device and limits" test "$(ls "$URA_DEVICE_CACHE" | wc -l)" = 2
done_testing
