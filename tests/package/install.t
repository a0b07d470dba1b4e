#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages on a fresh Debian root (tests/package/mkroot.sh): apt-get installs
# ura and libura0 with their dependencies, the boot units and the daemons are enabled,
# ura-trace and ura-dump work with nothing else installed, the dpkg trigger marks a
# stale boot pack (and leaves a fresh one alone), remove keeps the packs, and purge leaves
# nothing of ura behind. Needs root, the built packages ($URA_DEBS, from `make deb`),
# debootstrap (or a cached root) and the Debian mirror (apt-get resolves the dependencies).
# The root is used with chroot in the host's mount namespace, bound on itself (so that it
# is a mount, as / is on a booted system), with /proc, /sys, tracefs and /dev mounted in
# it, so that ura-trace sees the kernel's tracepoints.
. "$(dirname "$0")/../tap.sh"

DEBS=${URA_DEBS:-$BUILD/deb}
[ "$(id -u)" = 0 ] || skip_all "needs root (chroot, mounts, dpkg in a root)"
[ -d /sys/kernel/tracing/instances ] || skip_all "needs tracefs at /sys/kernel/tracing"
ls "$DEBS"/ura_*.deb "$DEBS"/libura0_*.deb >/dev/null 2>&1 ||
	skip_all "no packages in '$DEBS' (run make deb)"
command -v debootstrap >/dev/null || [ -n "$(ls /var/cache/ura-ci/*.tar 2>/dev/null)" ] ||
	skip_all "no debootstrap and no cached root (apt-get install debootstrap)"
R=$("$TOP/tests/package/mkroot.sh") || skip_all "cannot make a debootstrapped root (mkroot.sh failed)"

MOUNTS=()
cleanup() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" 2>/dev/null
	done
	# never remove a root with something still mounted in it
	if [ -n "$R" ] && [ -d "$R" ] && ! findmnt -rno TARGET | grep -F "$R/" >/dev/null; then
		rm -rf "$R"
	elif [ -n "$R" ]; then
		echo "# left '$R' in place: something is still mounted in it" >&2
	fi
}
trap cleanup EXIT
mnt() {	# mnt TARGET MOUNT-ARGS...
	local target=$1
	shift
	mount "$@" "$target" && MOUNTS+=("$target")
}
# the root a mount point of its own, so that paths inside it resolve as on a booted system
mnt "$R" --bind "$R"
mnt "$R/proc" -t proc proc
mnt "$R/sys" -t sysfs sysfs
mnt "$R/sys/kernel/tracing" -t tracefs tracefs
mnt "$R/dev" --bind /dev
cp -L /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
mkdir -p "$R/tmp/debs"
cp "$DEBS"/ura_*.deb "$DEBS"/libura0_*.deb "$R/tmp/debs/"
T="$R/tmp/t"
mkdir -p "$T"

in_root() {
	chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		LC_ALL=C.UTF-8 "$@"
}
# Every file of the root but the ones dpkg and apt keep for themselves.
files() {
	(cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
		-o -path ./run -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache \
		-o -path ./var/log \) -prune -o -print | sort)
}

plan 21
files >"$T/before"
ok "apt-get update in the root" timeout 300 chroot "$R" apt-get update -q
run_ok "apt-get install the packages, resolving their dependencies" \
	timeout 600 chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends /tmp/debs/"$(basename "$DEBS"/ura_*.deb)" \
	/tmp/debs/"$(basename "$DEBS"/libura0_*.deb)"
ok "the tools run" in_root sh -c 'ura-trace --version && ura-replay --version && ura-dump --version'
W="$R/etc/systemd/system"
ok "ura-replay.service and ura-trace-boot.service enabled (sysinit.target)" \
	test -L "$W/sysinit.target.wants/ura-replay.service" -a \
	-L "$W/sysinit.target.wants/ura-trace-boot.service"
ok "the daemons enabled (multi-user.target)" sh -c '
	test -L "$1/etc/systemd/system/multi-user.target.wants/ura-trace-watch.service" &&
	test -L "$1/etc/systemd/system/multi-user.target.wants/ura-replay-watch.service"' - "$R"
ok "/var/lib/ura belongs to the package" sh -c 'test -d "$1/var/lib/ura" &&
	chroot "$1" dpkg -S /var/lib/ura | grep "^ura:"' - "$R"
ok "/var/lib/ura is root's alone (0700): packs name every user's files" \
	test "$(stat -c %a "$R/var/lib/ura")" = 700
ok "every man page installed" sh -c 'cd "$1/usr/share/man" && ls man8/ura-trace.8.gz \
	man8/ura-replay.8.gz man8/ura-dump.8.gz man5/ura-pack.5.gz' - "$R"
run_ok "ura-trace --pack p -- /bin/true" in_root timeout 120 ura-trace --pack /tmp/t/p -- /bin/true
run_ok "ura-dump p" in_root timeout 60 ura-dump /tmp/t/p
ok "the pack holds the command's files" sh -c 'grep -E "(lib|bin)/.*(true|libc\.so)" "$1/out"' - "$T"

# the trigger: a boot pack on replaced programs is marked, a fresh one is left alone
run_ok "a boot pack of true, ls and cat (and sh, libc)" in_root timeout 120 ura-trace \
	--pack /var/lib/ura/boot.pack -- sh -c '/bin/true; /bin/ls / >/dev/null; /bin/cat </dev/null'
ok "it names bin/true" sh -c 'chroot "$1" ura-dump /var/lib/ura/boot.pack | grep -F bin/true' - "$R"
run_ok "a package of programs reinstalled (coreutils)" timeout 600 chroot "$R" \
	env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall coreutils
ok "the trigger ran the check" out_has "ura: pack '/var/lib/ura/boot.pack'"
diag "$(grep -F 'ura: pack' "$T/out")"
ok "and marked the stale pack for a new trace" test -e "$R/var/lib/ura/retrace"
rm -f "$R/var/lib/ura/retrace"
mkdir -p "$T/s"
for i in 1 2 3 4 5 6 7 8 9; do head -c 65536 /dev/urandom >"$T/s/f$i"; done
in_root timeout 120 ura-trace --pack /var/lib/ura/boot.pack -- sh -c 'cat /tmp/t/s/* >/dev/null' \
	>/dev/null 2>&1
run_ok "a package reinstalled that the pack does not hold (libtracefs1)" timeout 600 chroot "$R" \
	env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall libtracefs1
ok "a fresh pack is not marked" sh -c 'grep -F "up to date" "$1/out" && test ! -e "$2"' - \
	"$T" "$R/var/lib/ura/retrace"
ok "apt-get remove keeps the packs" sh -c 'chroot "$1" env DEBIAN_FRONTEND=noninteractive \
	apt-get remove -y -q ura && test -f "$1/var/lib/ura/boot.pack"' - "$R"
run_ok "apt-get purge ura libura0 (and what they pulled in)" timeout 600 chroot "$R" \
	env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q --autoremove ura libura0
files >"$T/after"
ok "nothing of ura is left: the root's files are those before the install" \
	sh -c 'diff "$1/before" "$1/after" | grep "^[<>]" | grep -v "/tmp/t" >&2 && exit 1 || exit 0' - "$T"
done_testing
