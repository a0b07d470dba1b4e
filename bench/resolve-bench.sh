#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Resolution benchmark: name 10,000 random inodes of a 500,000-file ext4 tree by walk and by handle.
#
# Usage (root): bench/resolve-bench.sh [NFILES [NPICK [RUNS]]]
# Environment: BENCH_DIR (default /var/tmp) holds the image; KEEP=1 keeps it for another run.
#
# Builds an ext4 image on a loop device, fills it with NFILES empty files in
# 5,110 directories (10 x 10 x 50, like a /usr), then for each method times
# resolve_inodes() on NPICK inodes picked at random (a new seed per run):
#   cold        caches dropped (echo 3 > drop_caches): nothing of the tree is cached
#   warm        the same run again at once: directory blocks and inodes cached
#   touched     caches dropped, then the picked files opened and closed, as a traced
#               program would have just done: their dentries are cached, little else
#   touched+del the same, plus 100 files created and deleted just before (a traced
#               run's temporary files): they have no name, and only handles can tell
# Each line is one run; "correct" counts names checked against the list made at creation.
# THROTTLE=hdd|emmc|ssd runs only the cold cases, with the loop device limited as on the
# slow-disk testbed (a private cgroup-v1 blkio group: hdd 150 IOPS and 120 MB/s, ...).
set -eu

NFILES=${1:-500000}
NPICK=${2:-10000}
RUNS=${3:-3}
BENCH_DIR=${BENCH_DIR:-/var/tmp}
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=$TOP/build/bench/resolve-bench

if [ "$(id -u)" -ne 0 ]; then
	echo "resolve-bench: needs root (loop device, mount, drop_caches)" >&2
	exit 77
fi
make -C "$TOP" -s bench >/dev/null

IMG=$BENCH_DIR/ura-resolve-bench.img
LIST=$BENCH_DIR/ura-resolve-bench.list
MNT=$(mktemp -d /tmp/ura-resolve-bench.XXXXXX)
LOOP=

CG=/sys/fs/cgroup/blkio/ura_resolve_bench

cleanup() {
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null || true
	umount "$MNT" 2>/dev/null || true
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
	rmdir "$MNT" 2>/dev/null || true
	[ "${KEEP:-0}" = 1 ] || rm -f "$IMG" "$LIST"
}
trap cleanup EXIT INT TERM

if [ ! -s "$IMG" ] || [ ! -s "$LIST" ]; then
	rm -f "$IMG" "$LIST"
	truncate -s 4G "$IMG"
	mkfs.ext4 -q -F -N $((NFILES + 20000)) "$IMG"
fi
LOOP=$(losetup -f --show "$IMG")
mount -t ext4 "$LOOP" "$MNT"
if [ ! -s "$LIST" ]; then
	start=$(date +%s)
	"$BIN" populate "$MNT" "$NFILES" > "$LIST"
	sync
	echo "# populated $(wc -l < "$LIST") files in $(($(date +%s) - start)) s"
fi

drop() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

echo "# kernel $(uname -r), $(nproc) CPUs, image on $(df --output=source "$BENCH_DIR" | tail -1)," \
	"loop $LOOP, $NPICK of $(wc -l < "$LIST") inodes"

if [ -n "${THROTTLE:-}" ]; then
	case $THROTTLE in
	hdd) iops=150 bps=120000000 ;;
	emmc) iops=1500 bps=150000000 ;;
	ssd) iops=20000 bps=500000000 ;;
	*) echo "resolve-bench: THROTTLE is hdd, emmc or ssd" >&2; exit 64 ;;
	esac
	majmin=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
	mkdir -p "$CG"
	echo "$majmin $iops" > "$CG/blkio.throttle.read_iops_device"
	echo "$majmin $bps" > "$CG/blkio.throttle.read_bps_device"
	echo "# throttled to $THROTTLE: $iops IOPS, $bps B/s on $majmin"
	for run in $(seq 1 "$RUNS"); do
		for m in walk handle,walk; do
			drop
			printf 'cold    %s\n' "$(sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' - \
				"$CG" "$BIN" run "$MNT" "$LIST" "$NPICK" "$run" "$m")"
		done
	done
	exit 0
fi

for run in $(seq 1 "$RUNS"); do
	seed=$run
	for m in walk handle handle,walk; do
		drop
		printf 'cold    %s\n' "$("$BIN" run "$MNT" "$LIST" "$NPICK" "$seed" "$m")"
		printf 'warm    %s\n' "$("$BIN" run "$MNT" "$LIST" "$NPICK" "$seed" "$m")"
		drop
		printf 'touched %s\n' "$("$BIN" run "$MNT" "$LIST" "$NPICK" "$seed" "$m" touch)"
		drop
		printf 'touched+del %s\n' \
			"$("$BIN" run "$MNT" "$LIST" "$NPICK" "$seed" "$m" touch deleted=100)"
	done
done
