#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench (2): replaying a pack that covers 1 GiB of cold data reaches >= 90% of the sequential
# bandwidth dd gets from the same device. Builds a scratch ext4 on a direct-I/O loop device
# (so the backing file's cache plays no part), fills it with files, evicts them (fadvise
# DONTNEED, no global drop_caches), then compares, run by run:
#   dd:     dd if=LOOP bs=1M count=1024 (buffered, the device's own readahead)
#   replay: ura-replay PACK (every file, whole), timed until the device has read 99% of
#           the pack's bytes (sectors read in /sys/dev/block/MAJ:MIN/stat)
# With THROTTLE="IOPS BPS" both run in a blkio cgroup limiting the loop device (a slow disk).
# Usage: bench/replay-bandwidth.sh [RUNS] [extra ura-replay options...]   (root)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
shift || true
SIZE_MB=${SIZE_MB:-1024} FILE_MB=${FILE_MB:-16}
W=$(mktemp -d /var/tmp/ura-bw.XXXXXX)
LOOP=""
CG=/sys/fs/cgroup/blkio/ura_replay_bench
cleanup() {
	mountpoint -q "$W/mnt" && umount "$W/mnt"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
make -s -C "$TOP" ura-replay test-helpers >/dev/null
MKPACK=$TOP/build/tests/integration/helpers/mkpack
truncate -s $((SIZE_MB * 13 / 10 + 64))M "$W/img"
mkfs.ext4 -q -F "$W/img"
mkdir "$W/mnt"
mount -o loop "$W/img" "$W/mnt"
for i in $(seq $((SIZE_MB / FILE_MB))); do
	head -c ${FILE_MB}M /dev/urandom >"$W/mnt/f$i"
done
umount "$W/mnt"
LOOP=$(losetup --find --show --direct-io=on "$W/img")
mount -o ro "$LOOP" "$W/mnt"
MAJMIN=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
"$MKPACK" "$W/p.pack" "$W/mnt"/f*
in_cg() { "$@"; }
if [ -n "${THROTTLE:-}" ]; then
	set -- $THROTTLE "$@"
	mkdir -p "$CG"
	echo "$MAJMIN $1" >"$CG/blkio.throttle.read_iops_device"
	echo "$MAJMIN $2" >"$CG/blkio.throttle.read_bps_device"
	shift 2
	in_cg() { sh -c 'echo $$ > "$0/cgroup.procs"; exec "$@"' "$CG" "$@"; }
fi
evict_all() {
	for f in "$W/mnt"/f*; do "$MKPACK" --evict "$f"; done
	"$MKPACK" --evict "$LOOP"
}
echo "device $LOOP ($MAJMIN), read_ahead_kb $(cat /sys/dev/block/$MAJMIN/queue/read_ahead_kb)," \
	"max_sectors_kb $(cat /sys/dev/block/$MAJMIN/queue/max_sectors_kb), ${THROTTLE:+throttle $THROTTLE,}" \
	"$SIZE_MB MiB in ${FILE_MB} MiB files; replay options: $*"
sectors() { awk '{ print $3 }' "/sys/dev/block/$MAJMIN/stat"; }
# other users' drop_caches would evict pages mid-run: such runs are marked
drops() { awk '/^drop_pagecache/ { print $2 }' /proc/vmstat; }
# wait (up to a minute) for 5 s without a drop_caches from someone else
quiet() {
	local last=$(drops) calm=0
	for _ in $(seq 60); do
		sleep 1
		if [ "$(drops)" = "$last" ]; then
			calm=$((calm + 1))
			[ $calm -ge 5 ] && return 0
		else
			last=$(drops) calm=0
		fi
	done
}
for r in $(seq "$RUNS"); do
	quiet
	d0=$(drops)
	evict_all
	s=$EPOCHREALTIME
	in_cg dd if="$LOOP" of=/dev/null bs=1M count="$SIZE_MB" status=none
	e=$EPOCHREALTIME
	dd_mbs=$(echo "$s $e" | awk -v mb="$SIZE_MB" '{ printf "%.1f", mb / ($2 - $1) }')
	evict_all
	# the time until the device has delivered the pack's bytes (sectors read, from
	# /sys/.../stat): --wait would also count re-reading pages the page cache lost meanwhile
	want=$((SIZE_MB * 2048 * 99 / 100))
	s0=$(sectors)
	s=$EPOCHREALTIME
	in_cg "$TOP/build/ura-replay" -q "$@" "$W/p.pack"
	last=$(sectors) still=0
	while [ $(($(sectors) - s0)) -lt "$want" ] && [ $still -lt 300 ]; do
		sleep 0.01
		if [ "$(sectors)" = "$last" ]; then still=$((still + 1)); else last=$(sectors) still=0; fi
	done
	e=$EPOCHREALTIME
	[ $still -lt 300 ] || echo "run $r: replay read only $((($(sectors) - s0) / 2048)) MiB"
	rp_mbs=$(echo "$s $e" | awk -v mb="$SIZE_MB" '{ printf "%.1f", mb / ($2 - $1) }')
	res=$(for f in "$W/mnt"/f*; do "$MKPACK" --resident "$f"; done |
		awk '{ a += $1; b += $2 } END { printf "%.1f", 100 * a / b }')
	echo "run $r: dd $dd_mbs MiB/s, replay $rp_mbs MiB/s ($(echo "$rp_mbs $dd_mbs" |
		awk '{ printf "%.0f", 100 * $1 / $2 }')% of dd), resident after replay $res%" \
		"$([ "$(drops)" = "$d0" ] || echo "(DISTURBED: page cache dropped during the run)")"
done
