#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The packages at boot, as a distribution runs them: install the built debs into a fresh
# debootstrapped root (tests/package/mkroot.sh), then boot it with `systemd-nspawn -b`:
#   boot 1: no pack       -> ura-trace-boot.service traces the boot, writes the pack
#   boot 2: the pack      -> ura-replay.service replays it, the trace is skipped
#   upgrade a package the boot does not read: the dpkg trigger leaves the pack alone;
#   upgrade one it reads: the trigger marks the pack stale (/var/lib/ura/retrace)
#   boot 3: marked stale  -> traced again, a new pack, the mark gone
#   boot 4: the new pack  -> replayed, not marked (the journal the boot wrote is no reason)
# The packages upgraded are two small ones built here with dpkg-deb: ura-boot-test-data
# ships 8 MiB that a unit reads once the boot trace runs (inside a container the trace
# starts after systemd and its libraries are loaded, so only what is read later is in the
# pack: this stands for a package the boot reads), ura-boot-test-other 1 MiB nothing reads.
# Each boot drops the page cache first (the container shares it with the host), is bounded
# by a timeout and powers itself off (a unit waits for the ura units, stopping the trace
# after 20 s: --until-idle never sees an idle system while the host is busy). The boots hold
# URA_MACHINE_LOCK (a flock file) when it is set. Needs root, tracefs, systemd-nspawn,
# debootstrap (or the cached root), the network for the packages' dependencies, and
# URA_DEBS: a directory with ura_*.deb and libura0_*.deb (make deb).
. "$(dirname "$0")/../tap.sh"

DEBS=${URA_DEBS:-}
TRACEFS=/sys/kernel/tracing
BOOT_TIMEOUT=${URA_BOOT_TIMEOUT:-150}
LOCK=${URA_MACHINE_LOCK:-}

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -n "$DEBS" ] && compgen -G "$DEBS/ura_*.deb" >/dev/null &&
	compgen -G "$DEBS/libura0_*.deb" >/dev/null || skip_all "no packages in URA_DEBS (make deb)"
command -v systemd-nspawn >/dev/null || skip_all "needs systemd-nspawn (systemd-container)"
command -v dpkg-deb >/dev/null || skip_all "needs dpkg-deb"
[ -d "$TRACEFS/instances" ] || skip_all "needs tracefs at $TRACEFS"

tap_tmpdir
R=
BOOT_PID=
cleanup() {
	local p tp
	# a boot still going (the test was interrupted): timeout runs nspawn in a process group
	# of its own, so stop it by its pid (it passes SIGTERM on and nspawn powers the
	# container off), then whatever is left (flock waiting for the lock, a stuck nspawn)
	if [ -n "$BOOT_PID" ]; then
		tp=$(cat "$T/boot.pid" 2>/dev/null)
		if [ -n "$tp" ] && kill -TERM "$tp" 2>/dev/null; then
			for _ in $(seq 60); do kill -0 "$tp" 2>/dev/null || break; sleep 0.5; done
			for p in $(pgrep -P "$tp") "$tp"; do kill -KILL "$p" 2>/dev/null; done
		fi
		kill -TERM -- "-$BOOT_PID" 2>/dev/null
	fi
	if [ -n "$R" ]; then
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && kill -9 "${p#/proc/}" 2>/dev/null
		done
		rm -rf "$R"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
# a signal ends the test through the EXIT trap (bash runs it on exit, not on a fatal signal)
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
R=$("$TOP/tests/package/mkroot.sh") || skip_all "cannot make a debootstrapped root (mkroot.sh)"
# the root directory's own mode comes from the cache's tar; services that drop root (dbus as
# messagebus) need to reach /
chmod 0755 "$R"

plan 40

# ---- the root: ura from the packages, the test's packages and units ----

mkdir -p "$R/tmp/debs"
cp "$DEBS"/ura_*.deb "$DEBS"/libura0_*.deb "$R/tmp/debs/"
in_root() {
	chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
}
ok "the packages install into the root (apt-get install ./ura_*.deb)" \
	in_root sh -c 'apt-get install -y -q --no-install-recommends /tmp/debs/*.deb'
ok "both boot units are enabled by the package" \
	test -L "$R/etc/systemd/system/sysinit.target.wants/ura-replay.service" -a \
	-L "$R/etc/systemd/system/sysinit.target.wants/ura-trace-boot.service"

# mkdeb NAME VERSION FILE SIZE_KIB: a package shipping FILE of random bytes, in $T/NAME_VERSION.deb
mkdeb() {
	local d=$T/pkg-$1-$2
	mkdir -p "$d/DEBIAN" "$d$(dirname "$3")"
	head -c $(($4 * 1024)) /dev/urandom >"$d$3"
	cat >"$d/DEBIAN/control" <<EOF
Package: $1
Version: $2
Architecture: all
Maintainer: ura tests <root@localhost>
Section: misc
Priority: optional
Description: ura boot test: $3
 Data for tests/package/boot.t.
EOF
	dpkg-deb -Znone --root-owner-group -b "$d" "$T/$1_$2.deb" >/dev/null
}
DATA=/usr/lib/ura-boot-test/data
OTHER=/usr/lib/ura-boot-test-other/data
ok "test packages build (dpkg-deb)" sh -c "$(declare -f mkdeb); T=$T; \
	mkdeb ura-boot-test-data 1 $DATA 8192 && mkdeb ura-boot-test-data 2 $DATA 8192 && \
	mkdeb ura-boot-test-other 1 $OTHER 1024 && mkdeb ura-boot-test-other 2 $OTHER 1024"
cp "$T"/*.deb "$R/tmp/debs/"
ok "version 1 of both install (dpkg -i)" \
	in_root dpkg -i /tmp/debs/ura-boot-test-data_1.deb /tmp/debs/ura-boot-test-other_1.deb

# reads the data once the boot trace runs (or at once when no trace runs)
cat >"$R/etc/systemd/system/ura-boot-test-read.service" <<EOF
[Unit]
Description=Read the test package's data at boot (tests/package/boot.t)
After=ura-trace-boot.service ura-replay.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'i=0; while systemctl -q is-active ura-trace-boot.service && \\
	! ls -d $TRACEFS/instances/ura-[0-9]* >/dev/null 2>&1 && [ \$i -lt 300 ]; do \\
	sleep 0.1; i=\$((i + 1)); done; sleep 1; cat $DATA >/dev/null'

[Install]
WantedBy=multi-user.target
EOF
# powers the container off once the ura units are done; a trace still going after 20 s is
# stopped (SIGTERM: the pack is written, the unit succeeds). It first writes down how the ura
# units went: in a container the manager's own lines from before journald runs are lost, and
# those may be the only lines a unit that was skipped, or ran quietly, leaves.
mkdir -p "$R/var/lib/ura-boot-test"
cat >"$R/etc/systemd/system/ura-boot-test-done.service" <<'EOF'
[Unit]
Description=Power off once the ura units are done (tests/package/boot.t)
After=multi-user.target ura-boot-test-read.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'i=0; while systemctl -q is-active ura-trace-boot.service ura-replay.service && \
	[ $i -lt 20 ]; do sleep 1; i=$((i + 1)); done; \
	if systemctl -q is-active ura-trace-boot.service; then \
	echo "ura-boot-test: the trace still runs after 20 s, stopping it"; \
	systemctl stop ura-trace-boot.service; fi; \
	for u in ura-trace-boot ura-replay; do systemctl show -p ConditionResult -p Result \
	-p ExecMainStatus -p ActiveEnterTimestampMonotonic -p InactiveEnterTimestampMonotonic \
	$u.service | sed "s/^/$u./"; done >/var/lib/ura-boot-test/status; \
	systemctl show -p UserspaceTimestampMonotonic >>/var/lib/ura-boot-test/status; \
	systemctl show -p ActiveEnterTimestampMonotonic multi-user.target | \
	sed "s/^/multi-user./" >>/var/lib/ura-boot-test/status; \
	echo "ura-boot-test: done, powering off"; systemctl poweroff --no-block'

[Install]
WantedBy=multi-user.target
EOF
systemctl --root="$R" -q enable ura-boot-test-read.service ura-boot-test-done.service
systemd-machine-id-setup --root="$R" >/dev/null 2>&1
mkdir -p "$R/var/log/journal"

# boot N: drop the page cache, boot the root until it powers off (or the timeout), keep its
# journal in $T/journal-N; passes when the container powered itself off
boot() {
	local n=$1 rc
	setsid ${LOCK:+flock "$LOCK"} sh -c 'echo $$ >"$3"; sync; echo 3 >/proc/sys/vm/drop_caches;
		exec timeout -k 10 "$1" systemd-nspawn -q -b --register=no --keep-unit \
			--link-journal=no --bind=/sys/kernel/tracing -D "$2" --console=pipe' \
		- "$BOOT_TIMEOUT" "$R" "$T/boot.pid" </dev/null >"$T/boot-$n.log" 2>&1 &
	BOOT_PID=$!
	wait "$BOOT_PID"
	rc=$?
	BOOT_PID=
	rm -f "$T/boot.pid"
	# the journal so far (journal() reads its last boot) and the units' state of this boot
	cp -a "$R/var/log/journal" "$T/journal-$n" 2>/dev/null
	mv "$R/var/lib/ura-boot-test/status" "$T/status-$n" 2>/dev/null
	[ "$rc" = 0 ] || { echo "boot $n: exit $rc" >&2; tail -n 30 "$T/boot-$n.log" >&2; }
	return "$rc"
}
journal() {
	journalctl -D "$T/journal-$1" -b -o short-monotonic --no-pager 2>/dev/null
}
# unit.Property of boot N, as the done unit wrote it: st N ura-replay.ConditionResult
st() {
	sed -n "s/^$2=//p" "$T/status-$1" 2>/dev/null
}
# boot N: UNIT ran (its conditions held) and succeeded / was skipped
ran() {
	[ "$(st "$1" "$2.ConditionResult")" = yes ] && [ "$(st "$1" "$2.Result")" = success ] ||
		{ cat "$T/status-$1" >&2; return 1; }
}
skipped() {
	[ "$(st "$1" "$2.ConditionResult")" = no ] || { cat "$T/status-$1" >&2; return 1; }
}
jhas() {
	journal "$1" | grep -E -- "$2" >/dev/null
}
# boot N left the pack as SUM said it was and made no mark; else says which, and what the
# replay logged (its report, --mark-stale's line)
unchanged() {
	local bad=0
	[ "$(sha256sum <"$PACK")" = "$2" ] || { echo "boot $1: the pack changed" >&2; bad=1; }
	[ ! -e "$MARK" ] || { echo "boot $1: $MARK is there" >&2; bad=1; }
	[ "$bad" = 0 ] || journal "$1" | grep -E 'ura-(replay|trace)' | tail -n 20 >&2
	return "$bad"
}
# no process is left with the root as its root
no_container() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && { echo "left: $p" >&2; return 1; }
	done
	return 0
}
# how the boot went, for the log: multi-user.target after the manager started, how long the
# trace ran, the replay's report
boot_diag() {
	local us mu a b
	us=$(st "$1" UserspaceTimestampMonotonic)
	mu=$(st "$1" multi-user.ActiveEnterTimestampMonotonic)
	a=$(st "$1" ura-trace-boot.ActiveEnterTimestampMonotonic)
	b=$(st "$1" ura-trace-boot.InactiveEnterTimestampMonotonic)
	printf 'boot %s: multi-user.target %.2f s after the manager started' "$1" \
		"$(echo "${mu:-0} ${us:-0}" | awk '{ print ($1 - $2) / 1e6 }')"
	[ "${a:-0}" != 0 ] && printf '; traced %.1f s' "$(echo "$b $a" | awk '{ print ($1 - $2) / 1e6 }')"
	journal "$1" | sed -n 's/^.*ura-replay\[[0-9]*\]: \(pack .*issued.*\)$/; \1/p' | head -n 1
	echo
}
# the pack's files as "path bytes" lines, by the root's own ura-dump
pack_files() {
	in_root ura-dump --json /var/lib/ura/boot.pack | python3 -c '
import json, sys
for f in json.load(sys.stdin)["files"]:
    print(f["path"], sum(r["length"] for r in f["ranges"]))'
}
PACK=$R/var/lib/ura/boot.pack
MARK=$R/var/lib/ura/retrace

# ---- boot 1: traced ----

ok "boot 1 powers off by itself" boot 1
diag "$(boot_diag 1)"
ok "boot 1: ura-trace-boot.service ran and succeeded" ran 1 ura-trace-boot
ok "boot 1: ura-replay.service was skipped" skipped 1 ura-replay
# (the exec daemon, ura-replay --watch, runs at every boot: its lines are not the boot replay's)
ok "boot 1: the journal has the trace, not the replay" \
	sh -c "$(declare -f journal jhas); T=$T; jhas 1 'ura-trace-boot.service: Deactivated successfully' && ! jhas 1 'ura-replay\[[0-9]+\]: pack '"
ok "the pack is there, no mark" test -s "$PACK" -a ! -e "$MARK"
pack_files >"$T/pack1" 2>"$T/pack1.err"
ok "ura-dump reads the pack" test -s "$T/pack1"
ok "the pack holds the file the boot read" grep -F "$DATA " "$T/pack1"
ok "the pack holds the root's libc" grep -E '^/usr/lib/x86_64-linux-gnu/libc.so.6 ' "$T/pack1"
# every path is the root's: it exists there (the host's files seen by the trace are dropped)
ok "every file of the pack is a file of the root" sh -c '
	while read -r p b; do [ -f "$1$p" ] || { echo "not in the root: $p"; exit 1; }; done <"$2"' \
	- "$R" "$T/pack1"
ok "no file of the host's own (/work, /home, /root) in the pack" \
	not grep -E '^/(work|home|root|var/tmp)/' "$T/pack1"
diag "pack 1: $(wc -l <"$T/pack1") files, $(awk '{ s += $2 } END { printf "%.1f MiB", s / 1048576 }' "$T/pack1")"
ok "no container left after boot 1" no_container
sum1=$(sha256sum <"$PACK")

# ---- boot 2: replayed ----

ok "boot 2 powers off by itself" boot 2
diag "$(boot_diag 2)"
ok "boot 2: ura-trace-boot.service was skipped" skipped 2 ura-trace-boot
ok "boot 2: ura-replay.service ran and succeeded" ran 2 ura-replay
ok "boot 2: the journal has the replay's report, not the trace" \
	sh -c "$(declare -f journal jhas); T=$T; jhas 2 'ura-replay\[[0-9]+\]: pack .*issued' && ! jhas 2 'ura-trace-boot.service: Deactivated'"
ok "boot 2: the replay issued reads" \
	sh -c "$(declare -f journal); T=$T; journal 2 | grep -E 'ura-replay\[[0-9]+\]: pack .*issued' | \
	grep -E 'issued [0-9.]+ [KMG]iB in [1-9][0-9]* requests'"
ok "boot 2 left the pack as it was, no mark" unchanged 2 "$sum1"
ok "no container left after boot 2" no_container

# ---- upgrades: the dpkg trigger ----

ok "upgrade a package the boot does not read (dpkg -i)" \
	in_root dpkg -i /tmp/debs/ura-boot-test-other_2.deb
cp "$T/check.out" "$T/other.out"
ok "the trigger ran and left the pack unmarked" \
	sh -c 'grep -F "ura: " "$1" && [ ! -e "$2" ]' - "$T/other.out" "$MARK"
diag "$(grep -F 'ura: ' "$T/other.out" | head -n 3)"
ok "upgrade the package whose file the boot read (dpkg -i)" \
	in_root dpkg -i /tmp/debs/ura-boot-test-data_2.deb
cp "$T/check.out" "$T/upgrade.out"
ok "the trigger marked the pack stale" test -e "$MARK"
diag "$(grep -F 'ura: ' "$T/upgrade.out" | head -n 3)"
in_root ura-replay --check-stale --json /var/lib/ura/boot.pack >"$T/stale.json" 2>/dev/null
ok "--check-stale says stale" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("check-stale: %d of %d files (%.1f%%), %d of %d bytes (%.1f%%) on changed files" % (
    d["changed_files"], d["files"], d["changed_files_pct"], d["changed_bytes"], d["file_bytes"],
    d["changed_bytes_pct"]))
sys.exit(0 if d["stale"] else 1)' "$T/stale.json"
diag "$(cat "$T/check.out")"

# ---- boot 3: traced again ----

ok "boot 3 powers off by itself" boot 3
diag "$(boot_diag 3)"
ok "boot 3: ura-trace-boot.service ran again and succeeded" ran 3 ura-trace-boot
ok "boot 3: ura-replay.service was skipped" skipped 3 ura-replay
ok "boot 3: a new pack, the mark gone" \
	sh -c '[ -s "$1" ] && [ "$(sha256sum <"$1")" != "$2" ] && [ ! -e "$3" ]' - "$PACK" "$sum1" "$MARK"
pack_files >"$T/pack3" 2>/dev/null
ok "the new pack holds the new file" grep -F "$DATA " "$T/pack3"
ok "no container left after boot 3" no_container
sum3=$(sha256sum <"$PACK")

# ---- boot 4: the new pack replayed ----

ok "boot 4 powers off by itself" boot 4
diag "$(boot_diag 4)"
ok "boot 4: ura-trace-boot.service was skipped" skipped 4 ura-trace-boot
ok "boot 4: ura-replay.service ran and succeeded" ran 4 ura-replay
ok "boot 4: the replay issued reads" \
	sh -c "$(declare -f journal); T=$T; journal 4 | grep -E 'ura-replay\[[0-9]+\]: pack .*issued' | \
	grep -E 'issued [0-9.]+ [KMG]iB in [1-9][0-9]* requests'"
ok "boot 4 left the new pack as it was, no mark" unchanged 4 "$sum3"
ok "no container left after boot 4" no_container
ok "no ura instance of the container left in tracefs" sh -c '
	for i in "$1"/instances/ura-*; do [ -d "$i" ] || continue;
		p=${i##*/ura-}; p=${p%-exec}; [ -d /proc/$p ] || { echo "left: $i"; exit 1; }; done' - "$TRACEFS"

done_testing
