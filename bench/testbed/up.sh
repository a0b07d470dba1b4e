#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bring the slow disk up: the image on a read-only, direct-I/O loop device (so the host's cache of
# the image file does not help), mounted with /tmp, /proc and /dev for chroot, and a cgroup-v1
# blkio group that slowrun throttles. Builds the image the first time. Safe to run twice.
# Writes WORKDIR/state.env: LOOP, MAJMIN, MNT, CG, IMG, DEFAULT_RA.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${TESTBED_WORK:-/var/tmp/ura-testbed}
img=$work/root.img
mnt=$work/mnt
cg=${TESTBED_CGROUP:-/sys/fs/cgroup/blkio/ura_testbed}
[ -e "$img" ] || "$here/build-image.sh" "$work"
if [ -e "$work/state.env" ]; then
	. "$work/state.env"
	if mountpoint -q "$MNT" && losetup "$LOOP" 2>/dev/null | grep -F "$img" >/dev/null; then
		echo "already up: $LOOP on $MNT"
		exit 0
	fi
fi
if [ ! -d /sys/fs/cgroup/blkio ]; then
	mkdir -p /sys/fs/cgroup/blkio
	mount -t cgroup -o blkio none /sys/fs/cgroup/blkio
fi
loop=$(losetup --find --show --read-only --direct-io=on "$img" 2>/dev/null ||
	losetup --find --show --read-only "$img")
majmin=$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ')
ra=$(cat "/sys/block/${loop#/dev/}/queue/read_ahead_kb")
mkdir -p "$mnt" "$cg"
mount -o ro,noatime "$loop" "$mnt"
mount -t tmpfs -o size=512m,mode=1777 ura-bench-tmp "$mnt/tmp"
mount -t proc ura-bench-proc "$mnt/proc"
mount --rbind /dev "$mnt/dev"
mount --make-rslave "$mnt/dev"
cat >"$work/state.env" <<STATE
LOOP=$loop
MAJMIN=$majmin
MNT=$mnt
CG=$cg
IMG=$img
DEFAULT_RA=$ra
STATE
echo "up: $loop ($majmin) on $mnt, read_ahead_kb $ra, cgroup $cg"
