#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make the benchmark root: Debian bookworm (minbase) with python3, perl, gcc and git, put into an
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
mkdir -p "$root/bench"
cp "$here"/payload/* "$root/bench/"
# the image is read-only while measuring: compile Python's bytecode now
chroot "$root" /usr/bin/python3 -m compileall -q /usr/lib/python3.11 >/dev/null 2>&1 || true
kb=$(du -sk "$root" | cut -f1)
rm -f "$img"
mkfs.ext4 -q -F -L ura-bench -d "$root" "$img" "$((kb * 3 / 2 + 131072))k"
echo "built $img"
