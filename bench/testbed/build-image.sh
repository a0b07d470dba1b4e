#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make the benchmark root: Debian bookworm (minbase) with python3, perl, gcc, git, clang, rustc
# and chromium (a large program started by a wrapper script), put into an
# ext4 image. Needs root and a Debian mirror (debootstrap's default, or MIRROR=URL).
#   build-image.sh [WORKDIR]     default: $TESTBED_WORK or /var/tmp/ura-testbed
set -euo pipefail
work=${1:-${TESTBED_WORK:-/var/tmp/ura-testbed}}
here=$(cd "$(dirname "$0")" && pwd)
root=$work/rootfs
img=$work/root.img
mkdir -p "$work"
if ! command -v debootstrap >/dev/null; then
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
fi
if [ ! -e "$root/.complete" ]; then
	rm -rf "$root"
	debootstrap --variant=minbase --include=python3,perl,gcc,libc6-dev,git,binutils,clang,g++,rustc${PACKAGES:+,$PACKAGES} \
		bookworm "$root" ${MIRROR:-}
	touch "$root/.complete"
fi
# chromium by apt inside the root: debootstrap cannot choose between alternatives (dconf-service
# wants a D-Bus session bus) and leaves it unconfigured
if [ ! -x "$root/usr/lib/chromium/chromium" ]; then
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	mount -t proc ura-build-proc "$root/proc"
	trap 'umount "$root/proc" 2>/dev/null || true' EXIT
	export DEBIAN_FRONTEND=noninteractive
	chroot "$root" apt-get install -y -q --no-install-recommends chromium ||
		chroot "$root" apt-get --fix-broken install -y -q --no-install-recommends
	umount "$root/proc"
	trap - EXIT
fi
mkdir -p "$root/bench"
cp "$here"/payload/* "$root/bench/"
# the image is read-only while measuring: compile Python's bytecode now
chroot "$root" /usr/bin/python3 -m compileall -q /usr/lib/python3.11 >/dev/null 2>&1 || true
kb=$(du -sk "$root" | cut -f1)
rm -f "$img"
mkfs.ext4 -q -F -L ura-bench -d "$root" "$img" "$((kb * 3 / 2 + 131072))k"
echo "built $img"
