#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How stale does `apt-get upgrade` make a boot pack? In a fresh bookworm root
# (tests/package/mkroot.sh, the point release on deb.debian.org) with the built packages
# installed: record a boot-like pack (the programs a minimal boot of that root runs, each
# started once, in the order a boot starts them), check it, then add the SOURCES (by
# default bookworm-updates and bookworm-security) and run apt-get upgrade: the dpkg
# trigger's verdict and `ura-replay --check-stale --json` after it are printed. With
# UPGRADE=dist-upgrade and SOURCES naming the next release, a release upgrade.
#
#   sudo bench/deb-upgrade-stale.sh [build/deb]     # run under the machine lock: it traces
#
# The root is used with chroot in the host's mount namespace, as in tests/package/install.t.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
DEBS=${1:-$TOP/build/deb}
UPGRADE=${UPGRADE:-upgrade}
SOURCES=${SOURCES:-"deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main"}

R=$("$TOP/tests/package/mkroot.sh")
MOUNTS=()
cleanup() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}"
	done
	findmnt -rno TARGET | grep -F "$R/" >/dev/null || rm -rf "$R"
}
trap cleanup EXIT
mnt() {
	local target=$1
	shift
	mount "$@" "$target" && MOUNTS+=("$target")
}
mnt "$R" --bind "$R"
mnt "$R/proc" -t proc proc
mnt "$R/sys" -t sysfs sysfs
mnt "$R/sys/kernel/tracing" -t tracefs tracefs
mnt "$R/dev" --bind /dev
cp -L /etc/resolv.conf "$R/etc/resolv.conf"
mkdir -p "$R/tmp/debs"
cp "$DEBS"/ura_*.deb "$DEBS"/libura0_*.deb "$R/tmp/debs/"
in_root() {
	chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		LC_ALL=C.UTF-8 "$@"
}
in_root apt-get update -q >/dev/null
in_root sh -c 'apt-get install -y -q --no-install-recommends /tmp/debs/*.deb' >/dev/null

# what a minimal boot of this root runs, once each: systemd and its helpers, udev, dbus,
# the journal, logind, a getty, a login shell
BOOT='/lib/systemd/systemd --version; /lib/systemd/systemd-journald --version
udevadm --version; udevadm verify --help; /lib/systemd/systemd-udevd --version
systemctl --version; systemctl --help; journalctl --version
/lib/systemd/systemd-logind --help; /lib/systemd/systemd-tmpfiles --help
/lib/systemd/systemd-sysctl --help; /lib/systemd/systemd-remount-fs --help
/lib/systemd/systemd-random-seed --help; /lib/systemd/systemd-update-utmp --help
dbus-daemon --version; dbus-send --help; /sbin/agetty --version; login --help
mount --version; fsck --version; hostname; bash -c "ls / >/dev/null; id; cat /etc/os-release"
dpkg --version; apt-get --version; perl -e 1; gpgv --version; find --version; grep --version'
in_root timeout 120 ura-trace --quiet --pack /var/lib/ura/boot.pack -- sh -c "$BOOT" >/dev/null 2>&1
echo "== the boot-like pack, before the upgrade"
in_root ura-dump /var/lib/ura/boot.pack | head -n 3
in_root ura-replay --check-stale --json /var/lib/ura/boot.pack 2>/dev/null

printf '%s\n' "$SOURCES" >"$R/etc/apt/sources.list.d/upgrade.list"
in_root apt-get update -q >/dev/null
echo "== apt-get $UPGRADE: $(in_root apt-get -s "$UPGRADE" | grep -c '^Inst ') packages"
in_root apt-get -s "$UPGRADE" | grep '^Inst ' | awk '{print $2}' | tr '\n' ' '
echo
in_root apt-get "$UPGRADE" -y -q -o Dpkg::Options::=--force-confold >"$R/tmp/upgrade.log" 2>&1 ||
	{ tail "$R/tmp/upgrade.log"; exit 1; }
echo "== the dpkg trigger said"
grep -F 'ura: ' "$R/tmp/upgrade.log" || echo "(nothing)"
echo "== marked for a new trace: $([ -e "$R/var/lib/ura/retrace" ] && echo yes || echo no)"
echo "== after the upgrade"
in_root ura-replay --check-stale --json /var/lib/ura/boot.pack 2>/dev/null
