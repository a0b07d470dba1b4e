#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hostile-soak.sh [SECONDS]: both daemons as their units start them (default options), and
# every attack of issue 34 that a user can run at once, by user nobody, for SECONDS (default
# 60); meanwhile root starts a program of its own every 2 s. Prints, per daemon, CPU seconds
# and peak RSS, whether it stopped within 2 s of SIGTERM; then whether root's program was
# learned and replayed during the soak, DIR's size, and temporary files left. Needs root,
# tracefs, setpriv, python3; FUSE for the renamed-mount attack (skipped without).
#
# The attacks: 3,000 preadv() of 2 GiB from one-byte root files (item 1); dd bs=1 in a
# learned program (2); failing execs of root's python3 by processes that live on (3);
# "sh FILE" over 2,000 root files (4, 6); "sh -c 'cat LARGE'" (5); a program run through a
# renamed FUSE mount's parent in a mount namespace of the user's (7); a file 300 directories
# deep (9); a root file whose ACL lets the user write (12); an exec loop in "unshare -rm" (13).
set -u
SECS=${1:-60}
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${URA_BUILD:-$TOP/build}
HELPERS=$B/tests/integration/helpers
U="setpriv --reuid=65534 --regid=65534 --clear-groups"
[ "$(id -u)" = 0 ] || { echo "hostile-soak: needs root" >&2; exit 77; }

W=$(mktemp -d /srv/ura-soak.XXXXXX)	# root's, not a temporary tree: learned
chmod 755 "$W"
DIR=$W/packs
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	pkill -u 65534 -f "ura-soak" 2>/dev/null
	umount -l "$W/fp/b/mnt" "$W/fp/a/mnt" 2>/dev/null
	[ -n "${KEEP:-}" ] && echo "kept: $W" >&2 || rm -rf "$W"
}
trap cleanup EXIT

mkdir -p "$W/bin" "$W/data/tiny" "$W/data/files" "$W/fp/a/mnt" "$W/bin2/mnt"
python3 -c 'import sys
for i in range(3000): open("%s/%d" % (sys.argv[1], i), "w").write("x")
for i in range(2000): open("%s/f%d" % (sys.argv[2], i), "w").write("true\n")' \
	"$W/data/tiny" "$W/data/files"
head -c 64M /dev/urandom >"$W/data/large"
head -c 16M /dev/zero >"$W/data/flood"
head -c $((256 * 4096)) /dev/urandom >"$W/data/victim"
cat >"$W/bin/bigread" <<EOF
#!/usr/bin/python3
import mmap, os
buf = mmap.mmap(-1, 2 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000)
for i in range(3000):
    fd = os.open("$W/data/tiny/%d" % i, os.O_RDONLY)
    os.preadv(fd, [buf], 0)
    os.close(fd)
EOF
printf '#!/bin/sh\ntimeout 5 dd if=%s of=/dev/null bs=1 2>/dev/null\nexit 0\n' "$W/data/flood" >"$W/bin/flood"
printf '#!/bin/sh\ncat %s >/dev/null\nsleep 0.3\nexit 0\n' "$W/data/victim" >"$W/bin/victim"
# deep: 300 directories of 20 characters
(cd "$W" && for _ in $(seq 300); do mkdir dddddddddddddddddddd && cd dddddddddddddddddddd || exit 1; done &&
	head -c 8192 /dev/urandom >deep)
cat >"$W/bin/deepread" <<EOF
#!/usr/bin/python3
import os
os.chdir("$W")
for _ in range(300): os.chdir("dddddddddddddddddddd")
open("deep", "rb").read()
EOF
printf 'x' >"$W/data/acl"
python3 - "$W/data/acl" <<'EOF' 2>/dev/null
import os, struct, sys
e = lambda tag, perm, uid: struct.pack("<HHI", tag, perm, uid)
acl = struct.pack("<I", 2) + e(1, 6, 0xffffffff) + e(2, 6, 65534) + e(4, 4, 0xffffffff) + \
      e(0x10, 6, 0xffffffff) + e(0x20, 4, 0xffffffff)
os.setxattr(sys.argv[1], "system.posix_acl_access", acl)
EOF
chmod 755 "$W/bin/"*
cp "$W/bin/victim" "$W/bin2/mnt/victim2"

# the daemons, as their units start them
"$B/ura-trace" --watch "$DIR" --window 10 2>"$W/learn.log" &
LPID=$!
PIDS="$PIDS $LPID"
"$B/ura-replay" --watch "$DIR" 2>"$W/replay.log" &
RPID=$!
PIDS="$PIDS $RPID"
sleep 3
LP=$(pgrep -P "$LPID" ura-trace || echo "$LPID")

# root's own program, every 2 s, data evicted before each start
(
	while :; do
		"$HELPERS/evict" "$W/data/victim" 2>/dev/null
		"$W/bin/victim"
		sleep 2
	done
) &
PIDS="$PIDS $!"

# the attacks, each in a loop as nobody
attack() { ( while :; do "$@" >/dev/null 2>&1; sleep 0.5; done ) & PIDS="$PIDS $!"; }
attack $U "$W/bin/bigread"
attack $U "$W/bin/flood"
attack $U bash -c 'for _ in $(seq 50); do
	bash -c "shopt -s execfail; big=\$(head -c 200000 /dev/zero | tr \"\\\\0\" x)
		exec /usr/bin/python3 \"\$big\" 2>/dev/null; sleep 6" &
	sleep 0.02; done; wait'
attack $U bash -c "for f in $W/data/files/f*; do sh \"\$f\"; done"
attack $U sh -c "cat $W/data/large >/dev/null"
attack $U "$W/bin/deepread"
attack $U sh -c "echo y >>$W/data/acl; cat $W/data/acl >/dev/null"
attack $U unshare -rm sh -c 'for i in $(seq 500); do /bin/true; done'
if [ -e /dev/fuse ] && [ -x "$HELPERS/fuse-hang" ]; then
	"$HELPERS/fuse-hang" "$W/fp/a/mnt" >"$W/fuse.out" 2>&1 &
	PIDS="$PIDS $!"
	sleep 1
	mv "$W/fp/a" "$W/fp/b"
	attack unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec "$2/mnt/victim2"' \
		- "$W/bin2" "$W/fp/b"
fi

# sample the daemons' CPU, RSS and open files; RSS and files also at the first and last minute
peak_l=0 peak_r=0
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
for i in $(seq "$SECS"); do
	sleep 1
	l=$(rss "$LP") r=$(rss "$RPID")
	[ "${l:-0}" -gt "$peak_l" ] && peak_l=$l
	[ "${r:-0}" -gt "$peak_r" ] && peak_r=$r
	[ "$i" = 60 ] && early="learner $((l / 1024)) MiB $(fds "$LP") fds, exec daemon $((r / 1024)) MiB $(fds "$RPID") fds"
done
late="learner $((l / 1024)) MiB $(fds "$LP") fds, exec daemon $((r / 1024)) MiB $(fds "$RPID") fds"

cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null; }
cl=$(cpu "$LP") cr=$(cpu "$RPID")
for p in $PIDS; do [ "$p" = "$LPID" ] || [ "$p" = "$RPID" ] || kill "$p" 2>/dev/null; done
stop() {	# PID: ms to stop after SIGTERM, or "hung"
	local t0=$(date +%s%N)
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$1" 2>/dev/null || { echo $((($(date +%s%N) - t0) / 1000000)); return; }
		sleep 0.1
	done
	echo hung
	kill -KILL "$1"
}
sl=$(stop "$LP") sr=$(stop "$RPID")
echo "soak of $SECS s: learning daemon CPU ${cl} s, peak RSS $((peak_l / 1024)) MiB, stopped in $sl ms"
echo "                 exec daemon     CPU ${cr} s, peak RSS $((peak_r / 1024)) MiB, stopped in $sr ms"
echo "root's program: $(grep -c "learned '$W/bin/victim'" "$W/learn.log") runs learned," \
	"$(grep -c "'$W/bin/victim' started: issued" "$W/replay.log") starts replayed"
echo "DIR: $(ls "$DIR" | grep -c '\.pack$') packs, $(du -sk "$DIR" | cut -f1) KiB," \
	"$(ls "$DIR" | grep -vc '\.pack$') other files"
[ -n "${early:-}" ] && echo "after 1 min: $early; at the end: $late"
echo "floods cut: $(grep -c 'more events than a start' "$W/learn.log"); users' new programs refused:" \
	"$(grep -o '[0-9]* not learned (a user.s new programs)' "$W/learn.log")"
