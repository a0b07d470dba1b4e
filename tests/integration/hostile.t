#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile packs against ura-replay and ura-dump as root: ".." and escaping paths, symlinks to
# /dev, FIFOs, sockets, directories, device nodes, odd ranges, 10^7 ranges, odd names, metadata
# of absent devices, packs changing under the reader, unsafe or odd pack files. Each run is
# under `timeout`: nothing may hang, crash, open what it should not, or grow without bound.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root"
need_tools "$URA_REPLAY" "$URA_DUMP"
command -v python3 >/dev/null || skip_all "needs python3"
MKH=$HELPERS/mkhostile
make -s -C "$TOP" BUILD="$BUILD" test-helpers >&2 || skip_all "cannot build the test helpers"

T=$(mktemp -d /var/tmp/ura-hostile-test.XXXXXX)
trap 'scratch_cleanup "$T"' EXIT
make_scratch_fs "$T" 64 >&2 || skip_all "cannot make a scratch ext4 loop filesystem"
M=$T/mnt
SCRATCH_DEV=$(lsblk -dno MAJ:MIN "$SCRATCH_LOOP" | tr -d ' ')
HAVE_STRACE=
command -v strace >/dev/null && HAVE_STRACE=1

plan 57

# run NAME TOOL ARGS...: run a tool under timeout, keep stdout, stderr and status as $T/NAME.*
run() {
	local name=$1
	shift
	timeout 30 "$@" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
rc() { cat "$T/$1.rc"; }
# status NAME WANT: the run ended with WANT
status() {
	[ "$(rc "$1")" = "$2" ] || { echo "$1: exit $(rc "$1"), expected $2" >&2
		sed 's/^/  /' "$T/$1.err" >&2; return 1; }
}
# one_error NAME PATTERN: stderr is exactly one line, an error matching PATTERN
one_error() {
	[ "$(wc -l <"$T/$1.err")" = 1 ] && grep -E "^ura-(replay|dump): error: .*$2" "$T/$1.err" \
		>/dev/null || { echo "$1: stderr was:" >&2; sed 's/^/  /' "$T/$1.err" >&2; return 1; }
}
# json NAME FIELD: a number from a --json replay report
json() { grep -o "\"$2\":[0-9a-z.]*" "$T/$1.out" | cut -d: -f2; }
# replay_and_dump NAME PACK: both tools on a pack; replay as --json --wait
replay_and_dump() {
	run "$1" "$URA_REPLAY" --json --wait "$2"
	run "$1-dump" "$URA_DUMP" "$2"
}
resident() { fincore -nb -o RES "$1" | tr -d ' '; }
evict() { "$HELPERS/evict" "$@"; }
# opened_for_reading LOG NAME...: a strace log shows a successful open, not O_PATH, of a NAME
opened_for_reading() {
	local log=$1 n
	shift
	for n in "$@"; do
		grep -F "\"$n\"" "$log" | grep -v O_PATH | grep -E '= [0-9]+$' && return 0
	done
	return 1
}

# ---- corrupt paths: refused at once, one error, no file opened ----
mkdir -p "$T/outside"
head -c 40960 /dev/urandom >"$T/outside/secret"
head -c 12288 /dev/urandom >"$M/good"
sync

"$MKH" "$T/dotdot.pack" fsof:"$M" file:0:../../outside/secret range:0:0:10
replay_and_dump dotdot "$T/dotdot.pack"
ok "'..' path: replay exits 65" status dotdot 65
ok "'..' path: one error naming the cause" one_error dotdot "not normalised"
ok "'..' path: dump exits 65 with one error" sh -c '[ "$(cat "$1.rc")" = 65 ] &&
	[ "$(wc -l <"$1-dump.err")" = 1 ]' - "$T/dotdot"

"$MKH" "$T/mid.pack" fsof:"$M" file:0:good file:0:a/../../outside/secret range:1:0:10
replay_and_dump mid "$T/mid.pack"
ok "'a/../..' in the middle of a path: refused (65)" status mid 65
ok "and dump refuses it too" status mid-dump 65

"$MKH" "$T/empty.pack" fsof:"$M" file:0:good file:0: range:1:0:1
replay_and_dump empty "$T/empty.pack"
ok "empty name: refused (65), one error" sh -c '[ "$(cat "$1.rc")" = 65 ] &&
	[ "$(cat "$1-dump.rc")" = 65 ] && [ "$(wc -l <"$1.err")" = 1 ]' - "$T/empty"

"$MKH" "$T/abs.pack" fsof:"$M" file:0:/etc/passwd range:0:0:1
replay_and_dump abs "$T/abs.pack"
ok "absolute path: refused (65)" status abs 65

# a mount point with ".." would leave a --root
mkdir -p "$T/root"
"$MKH" "$T/mntesc.pack" "fs:250:250:/../../../..$T/outside" file:0:secret range:0:0:10
run mntesc "$URA_REPLAY" --root "$T/root" "$T/mntesc.pack"
ok "mount point with '..': refused with --root (65)" status mntesc 65
"$MKH" "$T/mntrel.pack" "fs:250:250:outside" file:0:secret range:0:0:10
run mntrel "$URA_REPLAY" "$T/mntrel.pack"
ok "relative mount point: refused (65)" status mntrel 65

# ---- paths that leave the filesystem or name what is not a regular file ----
ln -s "$T/outside" "$M/sdir"
ln -s /dev/zero "$M/devzero"
ln -s "$SCRATCH_LOOP" "$M/devloop"
mkfifo "$M/fifo"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$M/sock"
mkdir "$M/dir"
mknod "$M/cdev" c 1 3
mknod "$M/bdev" b "${SCRATCH_DEV%:*}" "${SCRATCH_DEV#*:}"
sync
ODD="sdir/secret devzero devloop fifo sock dir cdev bdev"
specs=""
i=1
for f in $ODD; do
	specs="$specs file:0:$f range:$i:0:4"
	i=$((i + 1))
done
"$MKH" "$T/odd.pack" fsof:"$M" file:0:good range:0:0:3 $specs
evict "$T/outside/secret" "$M/good"
if [ -n "$HAVE_STRACE" ]; then
	# LeakSanitizer cannot run under ptrace (a SANITIZE=address build)
	# --probe never: measuring the device opens it by number, which this check is not about
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 run odd strace -f \
		-o "$T/odd.strace" -e trace=open,openat,openat2 \
		"$URA_REPLAY" --probe never --json --wait "$T/odd.pack"
else
	run odd "$URA_REPLAY" --json --wait "$T/odd.pack"
fi
ok "odd files: replay ends (the FIFO has no writer) and exits 0" status odd 0
ok "all 8 odd files refused" test "$(json odd refused_files)" = 8
ok "the good file was still read" test "$(resident "$M/good")" = 12288
ok "a file behind a symlinked directory, outside the mount, is not read" \
	test "$(resident "$T/outside/secret")" = 0
if [ -n "$HAVE_STRACE" ]; then
	ok "strace: no odd file opened except as O_PATH" not opened_for_reading "$T/odd.strace" \
		$ODD secret /dev/zero "$SCRATCH_LOOP"
	ok "strace: the scratch block device was not opened" not grep -E \
		"\"(/dev/block/$SCRATCH_DEV|$SCRATCH_LOOP)\".*= [0-9]+$" "$T/odd.strace"
else
	skip "strace is not installed"
	skip "strace is not installed"
fi
ok "each refusal is one warning naming the file" test "$(grep -c "warning: .*skipping" \
	"$T/odd.err")" = 8
run odd-dump "$URA_DUMP" "$T/odd.pack"
ok "dump lists them all" sh -c '[ "$(cat "$1.rc")" = 0 ] &&
	[ "$(grep -c "^/" "$1.out")" = 9 ]' - "$T/odd-dump"

# ---- odd ranges ----
head -c $((3 * 4096 + 100)) /dev/urandom >"$M/short"
sync
"$MKH" "$T/past.pack" fsof:"$M" file:0:short range:0:0:1000 range:0:5000:10 \
	range:0:4294967000:200
evict "$M/short"
replay_and_dump past "$T/past.pack"
ok "ranges past the end of the file: exit 0" status past 0
ok "the file is read whole (4 pages)" test "$(resident "$M/short")" = $((4 * 4096))
ok "nothing issued past its end" test "$(json past issued_bytes)" -le $((4 * 4096))
ok "dump shows the pack" status past-dump 0

head -c $((16 * 4096)) /dev/urandom >"$M/ovl"
sync
"$MKH" "$T/ovl.pack" fsof:"$M" file:0:ovl range:0:0:10 range:0:5:10 range:0:0:10 \
	range:0:2:1 file:0:ovl range:1:0:16 file:0:ovl range:2:8:8
evict "$M/ovl"
replay_and_dump ovl "$T/ovl.pack"
ok "overlapping, duplicate ranges and duplicate files: exit 0" status ovl 0
ok "the file is resident" test "$(resident "$M/ovl")" = $((16 * 4096))
ok "no page issued twice ($(json ovl issued_bytes) bytes for 65536)" \
	test "$(json ovl issued_bytes)" -le $((16 * 4096))
ok "dump shows the pack" status ovl-dump 0

# ---- names ----
long=$(printf 'n%.0s' $(seq 4096))
longpath=$(for _ in $(seq 16); do printf '%0255d/' 0; done)
longpath=${longpath}$(printf 'x%.0s' $(seq $((4096 - ${#longpath}))))
"$MKH" "$T/names.pack" fsof:"$M" file:0:"$long" file:0:"$longpath" file:0:good range:0:0:1 \
	range:1:0:1 range:2:0:3
evict "$M/good"
replay_and_dump names "$T/names.pack"
ok "4096-byte names: replay exits 0" status names 0
ok "the good file is still read" test "$(resident "$M/good")" = 12288
ok "dump exits 0 and prints both long names" sh -c '[ "$(cat "$1.rc")" = 0 ] &&
	[ "$(grep -c "nnnnnnnnnnnnnnnnnnnnn\|0000000000000000000/x" "$1.out")" = 2 ]' \
	- "$T/names-dump"

# ---- metadata of devices that do not exist or are not mounted ----
truncate -s 8M "$T/unmounted.img"
UNM_LOOP=$(losetup -f --show "$T/unmounted.img")
UNM_DEV=$(lsblk -dno MAJ:MIN "$UNM_LOOP" | tr -d ' ')
"$MKH" "$T/meta.pack" fsof:"$M" file:0:good range:0:0:3 meta:250:250:0:8192 \
	meta:4095:1048575:4096:4096 meta:${UNM_DEV%:*}:${UNM_DEV#*:}:0:4096 \
	meta:${UNM_DEV%:*}:${UNM_DEV#*:}:1073741824:4096
evict "$M/good"
run meta "$URA_REPLAY" --json --wait "$T/meta.pack"
losetup -d "$UNM_LOOP"
ok "metadata of absent and unmounted devices: exit 0" status meta 0
ok "the file data is still read" test "$(resident "$M/good")" = 12288
ok "the absent devices are named in a message" grep "250:250" "$T/meta.err"
run meta-dump "$URA_DUMP" --json "$T/meta.pack"
ok "dump lists the 4 metadata ranges" sh -c '[ "$(cat "$1.rc")" = 0 ] && python3 -c "
import json, sys
sys.exit(0 if len(json.load(open(sys.argv[1]))[\"metadata\"]) == 4 else 1)" "$1.out"' \
	- "$T/meta-dump"

# ---- 10^7 ranges: the pack is ~320 MB (the limit is 1 GiB), memory must stay bounded ----
# Bounded means linear in the pack, which is at most 1 GiB: at most 3 times its size.
# maxrss NAME CMD...: run CMD, keep its status and its peak RSS in KiB
maxrss() {
	local name=$1
	shift
	python3 -c '
import resource, subprocess, sys
r = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1] + ".err", "w"))
open(sys.argv[1] + ".rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
open(sys.argv[1] + ".rc", "w").write("%d\n" % r)
' "$T/$name" timeout 50 "$@"
}
head -c 4096 /dev/urandom >"$M/one"
sync
ok "mkhostile writes a pack of 10^7 ranges" "$MKH" "$T/many.pack" fsof:"$M" file:0:one \
	many:0:10000000
size=$(stat -c %s "$T/many.pack")
diag "10^7 ranges: pack of $((size >> 20)) MiB"
maxrss many-replay "$URA_REPLAY" "$T/many.pack"
ok "10^7 ranges: replay exits 0" status many-replay 0
ok "replay peak RSS under 3x the pack ($(( $(cat "$T/many-replay.rss") >> 10 )) MiB)" \
	test "$(cat "$T/many-replay.rss")" -lt $((size * 3 / 1024))
maxrss many-dump "$URA_DUMP" "$T/many.pack"
ok "10^7 ranges: dump exits 0" status many-dump 0
ok "dump peak RSS under 3x the pack ($(( $(cat "$T/many-dump.rss") >> 10 )) MiB)" \
	test "$(cat "$T/many-dump.rss")" -lt $((size * 3 / 1024))

truncate -s $(((1 << 30) + 4096)) "$T/huge.pack"
maxrss huge-replay "$URA_REPLAY" "$T/huge.pack"
ok "a pack over 1 GiB: replay refuses it (65)" status huge-replay 65
ok "without reading it (peak RSS $(cat "$T/huge-replay.rss") KiB)" \
	test "$(cat "$T/huge-replay.rss")" -lt 65536
maxrss huge-dump "$URA_DUMP" "$T/huge.pack"
ok "and dump too (65), peak RSS $(cat "$T/huge-dump.rss") KiB" sh -c '
	[ "$(cat "$1.rc")" = 65 ] && [ "$(cat "$1.rss")" -lt 65536 ]' - "$T/huge-dump"
rm -f "$T/huge.pack"

# ---- a pack that changes while it is read ----
# truncated in place, rewritten in place, replaced by rename while replay reads it
for how in truncate rewrite rename; do
	cp "$T/many.pack" "$T/change.pack"
	timeout 50 "$URA_REPLAY" "$T/change.pack" >/dev/null 2>"$T/change-$how.err" &
	pid=$!
	sleep 0.05
	case $how in
	truncate) truncate -s 100M "$T/change.pack" ;;
	rewrite) dd if="$T/odd.pack" of="$T/change.pack" conv=notrunc status=none ;;
	rename) cp "$T/odd.pack" "$T/change.new" && mv "$T/change.new" "$T/change.pack" ;;
	esac
	wait "$pid"
	echo $? >"$T/change-$how.rc"
	ok "pack $how while replay reads it: exit 0 or 65, no crash (got $(rc change-$how))" \
		sh -c '[ "$1" = 0 ] || [ "$1" = 65 ]' - "$(rc change-$how)"
done
# the same with --daemon, and with paced ranges: the pack is read once, up front
"$MKH" "$T/late.pack" fsof:"$M" file:0:good at:1500000000 range:0:0:3
evict "$M/good"
timeout 20 "$URA_REPLAY" --lead 0.2 --wait "$T/late.pack" >/dev/null 2>"$T/late.err" &
pid=$!
sleep 1	# the pack is read at once; its one range is due at 1.3 s (1.5 s less the lead)
: >"$T/late.pack"
wait "$pid"
ok "pack emptied during a paced replay: it still completes (exit 0)" test $? = 0
ok "and reads the file" test "$(resident "$M/good")" = 12288

# ---- unsafe or odd pack files ----
"$MKH" "$T/safe.pack" fsof:"$M" file:0:good range:0:0:3
cp "$T/safe.pack" "$T/nobody.pack"
chown 65534:65534 "$T/nobody.pack"
run nobody "$URA_REPLAY" "$T/nobody.pack"
ok "pack not owned by root: refused as root (exit 1)" status nobody 1
ok "one error saying why" one_error nobody "owned"
run nobody-dump "$URA_DUMP" "$T/nobody.pack"
ok "dump reads it (it opens nothing)" status nobody-dump 0
cp "$T/safe.pack" "$T/gw.pack"
chmod 0664 "$T/gw.pack"
run gw "$URA_REPLAY" "$T/gw.pack"
ok "group-writable pack: refused as root (exit 1)" status gw 1
ln -s "$T/nobody.pack" "$T/link.pack"
run link "$URA_REPLAY" "$T/link.pack"
ok "a symlink to a pack not owned by root: refused (exit 1)" status link 1
mkfifo "$T/fifo.pack"
run fifo "$URA_REPLAY" "$T/fifo.pack"
ok "pack that is a FIFO: replay does not block, exits 65" status fifo 65
ok "one error" one_error fifo "fifo.pack"
run fifo-dump "$URA_DUMP" "$T/fifo.pack"
ok "dump does not block either, exits 65" status fifo-dump 65
mkdir "$T/dir.pack"
run dir "$URA_REPLAY" "$T/dir.pack"
ok "pack that is a directory: exit 65, one error" sh -c '[ "$(cat "$1.rc")" = 65 ] &&
	[ "$(wc -l <"$1.err")" = 1 ]' - "$T/dir"
run dir-dump "$URA_DUMP" "$T/dir.pack"
ok "dump: exit 65" status dir-dump 65
run devnull "$URA_REPLAY" /dev/zero
ok "pack that is a device (/dev/zero): exit 65, not read forever" status devnull 65
run missing "$URA_REPLAY" "$T/no-such.pack"
ok "missing pack: exit 66" status missing 66
done_testing
