#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Take the slow disk down again: kill what runs in its cgroup, unmount, free the loop device.
set -uo pipefail
work=${TESTBED_WORK:-/var/tmp/ura-testbed}
[ -e "$work/state.env" ] || { echo "not up"; exit 0; }
. "$work/state.env"
while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"$CG/cgroup.procs"
for sub in dev proc tmp; do
	mountpoint -q "$MNT/$sub" && umount -R "$MNT/$sub"
done
mountpoint -q "$MNT" && umount "$MNT"
if losetup "$LOOP" 2>/dev/null | grep -F "$IMG" >/dev/null; then
	echo "$DEFAULT_RA" >"/sys/block/${LOOP#/dev/}/queue/read_ahead_kb"
	losetup -d "$LOOP"
fi
rmdir "$CG" 2>/dev/null
rm -f "$work/state.env"
echo "down"
