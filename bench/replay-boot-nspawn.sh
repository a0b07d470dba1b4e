#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot flow in a real systemd boot: a debootstrapped Debian root with ura installed
# (make install PREFIX=/usr), both units enabled, booted twice with systemd-nspawn -b.
#   boot 1: no pack -> ura-trace-boot.service records the boot, writes /var/lib/ura/boot.pack
#   boot 2: a pack  -> ura-replay.service replays it (--daemon), the trace unit is skipped
# Inside a container the tracer also sees the host's reads and may not name the container's
# files; with OWN_PACK=1 (the default) boot 2 replays instead a pack of the container's systemd
# and its libraries made by tests/integration/helpers/mkpack, so that the replay has files to read.
# A probe unit writes what happened to /ura-result-N.txt and powers the container off.
# Needs root, debootstrap, systemd-container (systemd-nspawn) and the network for the first run.
# Usage: bench/replay-boot-nspawn.sh [ROOTDIR]   (default /var/tmp/ura-nspawn/root)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${1:-/var/tmp/ura-nspawn/root}
if [ ! -x "$ROOT/lib/systemd/systemd" ]; then
	debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$ROOT"
fi
make -s -C "$TOP" all test-helpers
make -s -C "$TOP" install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
# the tracing libraries ura-trace links, from the host
for lib in $(ldd "$TOP/build/ura-trace" | awk '/=> \// { print $3 }' | grep -E 'trace(fs|event|cmd)'); do
	cp -L "$lib" "$ROOT/usr/lib/x86_64-linux-gnu/"
done
mkdir -p "$ROOT/var/lib/ura"
cat >"$ROOT/etc/systemd/system/ura-probe.service" <<'EOF'
[Unit]
Description=Report what the ura units did, then power off
After=multi-user.target ura-replay.service ura-trace-boot.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'for i in $(seq 90); do systemctl is-active -q ura-trace-boot.service || break; sleep 1; done; \
	n=$(cat /var/lib/ura/boots 2>/dev/null || echo 0); n=$((n + 1)); echo $n >/var/lib/ura/boots; \
	{ systemctl status --no-pager -l ura-trace-boot.service ura-replay.service; ls -la /var/lib/ura; \
	  journalctl -b --no-pager -o cat -u ura-trace-boot.service -u ura-replay.service; } >/ura-result-$n.txt 2>&1; \
	systemctl poweroff --no-block'

[Install]
WantedBy=multi-user.target
EOF
systemctl --root="$ROOT" enable ura-replay.service ura-trace-boot.service ura-probe.service
rm -f "$ROOT"/ura-result-*.txt "$ROOT/var/lib/ura/boot.pack" "$ROOT/var/lib/ura/retrace" \
	"$ROOT/var/lib/ura/boots"
for boot in 1 2; do
	if [ "$boot" = 2 ] && [ "${OWN_PACK:-1}" = 1 ] && [ -e "$ROOT/var/lib/ura/boot.pack" ]; then
		echo "=== the pack boot 1 recorded ==="
		"$TOP/build/ura-dump" --stats "$ROOT/var/lib/ura/boot.pack" || true
		cp "$TOP/build/tests/integration/helpers/mkpack" "$ROOT/usr/local/bin/"
		chroot "$ROOT" /bin/sh -c 'exec /usr/local/bin/mkpack /var/lib/ura/boot.pack \
			/lib/systemd/systemd /usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so \
			/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/dbus-daemon /bin/bash /usr/bin/ls'
		for f in $(chroot "$ROOT" /bin/sh -c 'ls /lib/systemd/systemd /usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so \
			/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/dbus-daemon /bin/bash /usr/bin/ls'); do
			"$TOP/build/tests/integration/helpers/mkpack" --evict "$ROOT$f"
		done
	fi
	timeout 240 systemd-nspawn -q -b --register=no --keep-unit -D "$ROOT" --bind=/sys/kernel/tracing \
		--console=pipe </dev/null >"$ROOT/../boot-$boot.log" 2>&1 || true
	echo "=== boot $boot ==="
	cat "$ROOT/ura-result-$boot.txt" 2>/dev/null || { echo "no result"; tail -20 "$ROOT/../boot-$boot.log"; }
done
