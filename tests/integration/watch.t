#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-replay --watch against the real kernel: a dynamically linked program whose data file is
# evicted (its libraries resident, as on any system) finds it resident 1.5 s after exec, a
# copy elsewhere (no pack) does not; a script's pack is replayed once per start (a "#!" script,
# python3 script.py); a chrooted program and a pivot_root container's are replayed with their
# own packs, never the host's, nor the host's with theirs; hostile packs (a symlinked
# directory, a FUSE mount that never answers) are refused without blocking; DIR removed and
# recreated, a corrupt pack, 100 execs/s for 10 s (flat RSS and fd count); SIGTERM while a
# replay paces itself (--lead) stops it at once and nothing is read after; a file bind-mounted
# over a program in another mount namespace, and a user's program named python3, do not replay
# that program's pack; a program of two names (hard links) started by the one with no pack is
# still replayed when started by the one with a pack
. "$(dirname "$0")/lib.sh"
R="$URA_REPLAY"

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$R" ] || skip_all "ura-replay is not built (make)"
command -v systemd-escape >/dev/null || skip_all "systemd-escape is missing"
make -s -C "$TOP" BUILD="$BUILD" test-helpers >/dev/null 2>&1
[ -x "$MKPACK" ] && [ -x "$HELPERS/packname" ] || skip_all "cannot build the test helpers"

# on a disk filesystem (tmpfs pages cannot be evicted)
T=$(mktemp -d /var/tmp/ura-watch-test.XXXXXX)
PID="" FUSE_PID=""
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	# the FUSE server first: its death aborts every request, so nothing below can hang
	[ -n "$FUSE_PID" ] && kill $FUSE_PID 2>/dev/null
	for m in "$T/f" "$T/croot" "$T/fm" "$T/fp/b/mnt" "$T/fp/a/mnt"; do umount -l "$m" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

P="$T/packs"
mkdir -p "$P" "$T/bin" "$T/other"
head -c 4M /dev/urandom >"$T/data"
head -c 256K /dev/urandom >"$T/data2"
# a dynamically linked program: a copy of sleep(1); its pack names it, its libraries, its data
cp "$(command -v sleep)" "$T/bin/dyn"
LIBS=$(ldd "$T/bin/dyn" | grep -o '/[^ ]*' | sort -u)
# a script: sleeps 1.5 s, then says how much of its data file is resident
cat >"$T/bin/prog" <<EOS
#!/bin/sh
sleep 1.5
exec "$MKPACK" --resident "\$1"
EOS
chmod 755 "$T/bin/prog"
cp "$T/bin/prog" "$T/other/prog"
cp /bin/true "$T/bin/fast"
# programs that live a little: one that has exited before the daemon reads its exec event
# has no root to be keyed by (and nothing to prefetch for)
printf '#!/bin/sh\nsleep 0.2\n' >"$T/bin/bad"
chmod 755 "$T/bin/bad"
sync
name() { echo "$P/$(systemd-escape --path "$1").pack"; }
# first access: the program, then its libraries, each at several places, then the data, as a
# trace has it (the first ranges of every dynamically linked program are resident at exec)
FIRST=$(for f in "$T/bin/dyn" $LIBS; do for p in 0 2 4 6; do echo "$f@$p+1"; done; done)
mkpacks() {
	"$MKPACK" "$(name "$T/bin/dyn")" $FIRST "$T/data" >/dev/null &&
		"$MKPACK" "$(name "$T/bin/prog")" "$T/data" >/dev/null &&
		"$MKPACK" "$(name "$T/bin/fast")" "$T/data2" >/dev/null
}
# evicted as reclaim would: the file's pages, then the kernel counts pages dropped (drop_caches),
# which ends the daemon's hold of data it found resident (a POSIX_FADV_DONTNEED alone is not
# counted: seen when the hold ends, ura-replay(8))
evict() { "$MKPACK" --evict "$1" && echo 1 >/proc/sys/vm/drop_caches; }
checks() { grep -c "'$1' started: all 64 sampled pages" "$T/log"; }
# "resident total" (mkpack --resident) on stdin: at least 90% of the file, or less than 10%.
# Not all: this VM runs a DAMON reclaimer, which can page out a few of the replayed pages
# before the check (ura-replay(8) NOTES); the copy without a pack reads none at all.
mostly() { read -r res total && [ "$total" -gt 0 ] && [ $((res * 10)) -ge $((total * 9)) ] ||
	{ echo "$res of $total bytes resident" >&2; false; }; }
hardly() { read -r res total && [ "$total" -gt 0 ] && [ $((res * 10)) -lt "$total" ] ||
	{ echo "$res of $total bytes resident" >&2; false; }; }
export -f mostly hardly
resident_is() { "$MKPACK" --resident "$2" | "$1"; }
alive() { kill -0 "$PID"; }
log_has() { grep -F -- "$1" "$T/log" >/dev/null; }
# wait up to 5 s for the log to say @1
wait_log() {
	for _ in $(seq 50); do log_has "$1" && return 0; sleep 0.1; done
	cat "$T/log" >&2
	return 1
}
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status"; }
fds() { ls "/proc/$PID/fd" | wc -l; }
start_daemon() {
	# under ASan (make SANITIZE=...), freed memory waits in a quarantine: RSS would grow
	# without a leak
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
		"$R" "$@" --watch "$P" >>"$T/log" 2>&1 &
	PID=$!
	wait_log "watching execs"
}
stop_daemon() {
	kill -TERM "$PID"
	wait "$PID"
	local rc=$?
	PID=""
	return $rc
}

plan 60
mkpacks
: >"$T/log"
ok "the daemon starts and watches execs" start_daemon -v

# ---- the skip decision: what the replay would read, not the first ranges ----
evict "$T/data"
cat $LIBS >/dev/null
ok "the program's libraries are resident, as on any system" all_resident $LIBS
ok "a dynamically linked program whose data file is evicted finds it resident 1.5 s after exec" \
	bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/dyn" "$MKPACK" "$T/data"
ok "one log line for that replay: program, bytes issued, time" \
	grep -E "'$T/bin/dyn' started: issued [1-9][0-9]* KiB .* in [0-9.]+ ms" "$T/log"
# everything resident again (DAMON may have taken back a page or two since), then started again
cat "$T/data" "$T/bin/dyn" >/dev/null
"$T/bin/dyn" 0.2
ok "started again with everything resident: skipped, and -v says why" \
	wait_log "'$T/bin/dyn' started: all 64 sampled pages of what its pack would read"
ok "one replay line in all for the two starts" \
	test "$(grep -c "'$T/bin/dyn' started: issued" "$T/log")" = 1
# started over and over with its data resident: looked at once, its other execs dropped by
# the kernel while it reclaims nothing, a start 2 s later too; once its data is evicted, even
# by a POSIX_FADV_DONTNEED the kernel does not count (a user can do it to any file they can
# read), a start 3 s later is replayed again: the daemon's workers probe a page of what it
# holds once a second, and the event loop lets the marks go at its next wake-up (within a
# second: it looks at DIR each second while files are ignored)
n=$(checks "$T/bin/dyn")
for _ in $(seq 20); do "$T/bin/dyn" 0; done
sleep 2.2
"$T/bin/dyn" 0
ok "started 20 times resident, then 2 s later: not looked at again (nothing reclaimed)" \
	test "$(checks "$T/bin/dyn")" -le $((n + 1))
sleep 2.2
"$MKPACK" --evict "$T/data"
sleep 3
ok "started 20 times resident, then evicted (fadvise, uncounted): its start 3 s later is replayed" \
	bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/dyn" "$MKPACK" "$T/data"

# ---- a program with no pack: its execs are dropped by the kernel (an ignore mark) until a
# pack appears in DIR; then its next start is replayed ----
cp "$(command -v sleep)" "$T/bin/later"
head -c $((256 * 4096)) /dev/urandom >"$T/data-later"
"$T/bin/later" 0; "$T/bin/later" 0; sleep 0.3; "$T/bin/later" 0
"$MKPACK" "$(name "$T/bin/later")" "$T/data-later" >/dev/null
evict "$T/data-later"
ok "a program started with no pack, then given one: its next start is replayed" \
	bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/later" "$MKPACK" "$T/data-later"
# ---- one file of two names (hard links), a pack for one of them: a start by the other name
# (no pack) is not dropped by the kernel, whose mark would be on the file (a user's zipinfo
# silencing unzip's replays) ----
cp "$(command -v sleep)" "$T/bin/linked"
ln "$T/bin/linked" "$T/bin/linked-too"
head -c $((256 * 4096)) /dev/urandom >"$T/data-linked"
sync
"$MKPACK" "$(name "$T/bin/linked")" "$T/data-linked" >/dev/null
sleep 1.5
"$T/bin/linked-too" 0; sleep 0.3; "$T/bin/linked-too" 0
evict "$T/data-linked"
ok "a program of two names: started by the one with no pack, then by the one with a pack: replayed" \
	bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/linked" "$MKPACK" "$T/data-linked"

# ---- scripts: the script's pack, once per start ----
evict "$T/data"
ok "a '#!' script with a pack finds its data resident 1.5 s after exec" \
	bash -c '"$1" "$2" | mostly' - "$T/bin/prog" "$T/data"
ok "one replay for that start (the script, then its interpreter: one start)" \
	test "$(grep -c "'$T/bin/prog' started: issued" "$T/log")" = 1
evict "$T/data"
ok "a copy of the script at another path (no pack) does not" \
	bash -c '"$1" "$2" | hardly' - "$T/other/prog" "$T/data"
# ---- a "#!" script exec'd by a symlink (/usr/bin/pydoc3 -> pydoc3.11): fanotify names the
# file, its pack the symlink's path; the pack is found at the script's own exec, before its
# interpreter's completes. One script's interpreter does not exist: only the script's exec
# can start its replay ----
printf '#!%s/bin/no-interpreter\nsleep 0.2\n' "$T" >"$T/bin/sreal"
cp "$T/bin/prog" "$T/bin/sreal2"
chmod 755 "$T/bin/sreal" "$T/bin/sreal2"
ln -s sreal "$T/bin/slink"
ln -s sreal2 "$T/bin/slink2"
head -c $((256 * 4096)) /dev/urandom >"$T/data-slink"
sync
"$MKPACK" "$(name "$T/bin/slink")" "$T/data-slink" >/dev/null
"$MKPACK" "$(name "$T/bin/slink2")" "$T/data" >/dev/null
evict "$T/data-slink"
"$T/bin/slink" 2>/dev/null
sleep 1.5
ok "a symlinked '#!' script whose interpreter never runs: its pack replayed at its own exec" \
	resident_is mostly "$T/data-slink"
evict "$T/data"
ok "a symlinked '#!' script: its data resident 1.5 s after exec" \
	bash -c '"$1" "$2" | mostly' - "$T/bin/slink2" "$T/data"
ok "one replay for that start (guessed at the script, confirmed by its interpreter's argv)" \
	test "$(grep -c "'$T/bin/slink2' started: issued" "$T/log")" = 1
# ---- a process tree: a child whose program its parent's pack holds is left to that pack (its
# own pack, learned from its own starts, may hold what this start does not use) ----
cp "$(command -v sleep)" "$T/bin/child"
printf '#!/bin/sh\nsleep 0.1\n' >"$T/bin/childs"
chmod 755 "$T/bin/childs"
head -c $((256 * 4096)) /dev/urandom >"$T/data-parent"
head -c $((256 * 4096)) /dev/urandom >"$T/data-child"
head -c $((256 * 4096)) /dev/urandom >"$T/data-childs"
printf '#!/bin/sh\n"%s" 0.2\n"%s"\nsleep 1.2\n' "$T/bin/child" "$T/bin/childs" >"$T/bin/parent"
chmod 755 "$T/bin/parent"
sync
"$MKPACK" "$(name "$T/bin/parent")" "$T/bin/child" "$T/bin/childs" "$T/data-parent" >/dev/null
"$MKPACK" "$(name "$T/bin/child")" "$T/data-child" >/dev/null
"$MKPACK" "$(name "$T/bin/childs")" "$T/data-childs" >/dev/null
evict "$T/data-parent"
evict "$T/data-child"
evict "$T/data-childs"
"$T/bin/parent"
ok "a parent whose pack holds its child's program: its data resident" \
	resident_is mostly "$T/data-parent"
ok "the child's own pack not replayed in that start" resident_is hardly "$T/data-child"
ok "nor a '#!' script child's (its interpreter's exec completes later)" \
	resident_is hardly "$T/data-childs"
ok "... and -v says why" \
	grep -E "'$T/bin/child' started \(pid [0-9]+\): the pack replayed .* holds it" "$T/log"
evict "$T/data-child"
ok "the child started alone: its own pack replayed" \
	bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/child" "$MKPACK" "$T/data-child"

# ---- hostile users: a file bind-mounted over a program in another mount namespace, a user's
# own program named python3 whose argv names a program; neither replays that program's pack ----
cp "$(command -v sleep)" "$T/impostor"
mkdir -p "$T/u"
cp "$(command -v tail)" "$T/u/python3"
chown 65534 "$T/u/python3"
evict "$T/data"
unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec "$2" 0.5' - \
	"$T/impostor" "$T/bin/dyn"
ok "another mount namespace's file at a program's path: not keyed as that program" \
	wait_log "'$T/bin/dyn' started (pid"
ok "... and -v says so" log_has "not that file in the daemon's mounts"
# a service's own mount namespace (PrivateTmp=, ProtectSystem=) that shows the program as the
# daemon sees it: keyed as that program, replayed
evict "$T/data"
ok "the very program in another mount namespace: replayed" \
	bash -c 'unshare -m --propagation private "$1" 1.5 && "$2" --resident "$3" | mostly' - \
	"$T/bin/dyn" "$MKPACK" "$T/data"
evict "$T/data"
timeout 0.5 "$T/u/python3" -f "$T/bin/dyn" >/dev/null 2>&1
ok "a user's program named python3 naming a program: not believed" \
	wait_log "an interpreter's name, not root's: its argv is not believed"
ok "neither read the program's data" resident_is hardly "$T/data"
# a program with a pack shown at a path without one, in a user's mount namespace: its file is
# not ignored for that (the daemon's own path of it has a pack), so its next start is replayed
mkdir -p "$T/nopack"
: >"$T/nopack/dyn"
chmod 755 "$T/nopack/dyn"
for _ in 1 2 3; do
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec "$2" 0' - \
		"$T/bin/dyn" "$T/nopack/dyn"
done
evict "$T/data"
ok "run at a path without a pack in another mount namespace: its next start still replayed" \
	bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/dyn" "$MKPACK" "$T/data"

PY=/usr/bin/python3
if [ -x "$PY" ]; then
	printf 'import subprocess, sys, time\ntime.sleep(1.5)\nsys.exit(subprocess.run([sys.argv[1], "--resident", sys.argv[2]]).returncode)\n' >"$T/app.py"
	"$MKPACK" "$(name "$T/app.py")" "$T/data" >/dev/null
	evict "$T/data"
	ok "python3 app.py: the script's pack (named by the script, relative to the cwd)" \
		bash -c 'cd "$1" && "$2" -W ignore ./app.py "$3" "$4" | mostly' - "$T" "$PY" \
		"$MKPACK" "$T/data"
	ok "one replay for it" test "$(grep -c "'$T/app.py' started: issued" "$T/log")" = 1
	# python3 -c: no script, the interpreter's own pack (named by the file exec'd)
	"$MKPACK" "$(name "$(readlink -f "$PY")")" "$T/data" >/dev/null
	evict "$T/data"
	ok "python3 -c: the interpreter's own pack" bash -c '"$1" -c "import sys, time, subprocess
time.sleep(1.5); sys.exit(subprocess.run([sys.argv[1], \"--resident\", sys.argv[2]]).returncode)" \
		"$2" "$3" | mostly' - "$PY" "$MKPACK" "$T/data"
	rm -f "$(name "$(readlink -f "$PY")")"
	# a user's failing execs of root's interpreter (E2BIG once the file is opened), 50 a
	# second, by processes that live on: each waits for an exec that never completes; root's
	# script is replayed meanwhile
	setpriv --reuid=65534 --regid=65534 --clear-groups bash -c '
		for _ in $(seq 150); do
			bash -c "shopt -s execfail; big=\$(head -c 200000 /dev/zero | tr \"\\\\0\" x)
				exec \"\$1\" \"\$big\" 2>/dev/null; sleep 6" - "$1" &
			sleep 0.02
		done
		wait' - "$PY" &
	flood=$!
	sleep 1.5
	evict "$T/data"
	ok "a user's failing execs of python3: python3 app.py by root is still replayed" \
		bash -c 'cd "$1" && "$2" -W ignore ./app.py "$3" "$4" | mostly' - "$T" "$PY" \
		"$MKPACK" "$T/data"
	wait $flood
else
	skip "no python3 in /usr"
	skip "no python3 in /usr"
	skip "no python3 in /usr"
	skip "no python3 in /usr"
fi

# ---- corrupt packs, DIR removed and created again ----
head -c 300 /dev/urandom >"$(name "$T/bin/bad")"
"$T/bin/bad"
ok "a corrupt pack is logged and skipped" wait_log "cannot read pack '$(name "$T/bin/bad")'"
ok "the daemon survives it" alive
rm -rf "$P"
"$T/bin/fast"
mkdir -p "$P"
mkpacks
evict "$T/data"
ok "DIR removed and recreated: the program's data is resident again" \
	bash -c '"$1" "$2" | mostly' - "$T/bin/prog" "$T/data"
ok "the daemon survives it" alive

# ---- roots: a chroot and a container have packs of their own ----
# A root made of the program and its libraries; inside it the program has the same path as
# the host's $T/bin/dyn, so the host's pack, the chroot's and the container's share a path
# and differ only in their root.
for r in root croot; do
	mkdir -p "$T/$r$T/bin" "$T/$r/old"
	cp "$T/bin/dyn" "$T/$r$T/bin/dyn"
	for l in $LIBS; do mkdir -p "$T/$r$(dirname "$l")" && cp "$l" "$T/$r$l"; done
done
head -c 1M /dev/urandom >"$T/data-root"
head -c 1M /dev/urandom >"$T/data-croot"
sync
"$MKPACK" "$P/$("$HELPERS/packname" "$T/root" "$T/bin/dyn")" "$T/root$T/bin/dyn" \
	"$T/data-root" >/dev/null
"$MKPACK" "$P/$("$HELPERS/packname" "$T/croot" "$T/bin/dyn")" "$T/croot$T/bin/dyn" \
	"$T/data-croot" >/dev/null
evict_all() { for f in "$T/data" "$T/data-root" "$T/data-croot"; do evict "$f"; done; }
evict_all
chroot "$T/root" "$T/bin/dyn" 1.5
ok "a chrooted program: replayed with the chroot's pack" resident_is mostly "$T/data-root"
ok "not with the host's pack of the same path" resident_is hardly "$T/data"
ok "nor another root's" resident_is hardly "$T/data-croot"
evict_all
"$T/bin/dyn" 1.5
ok "the host's program: replayed with the host's pack" resident_is mostly "$T/data"
ok "never with the chroot's" resident_is hardly "$T/data-root"
if unshare -m --propagation private true 2>/dev/null; then
	evict_all
	# a container: its own mount namespace, its root a bind mount pivot_root'ed to, the
	# host's root unmounted (the kernel then names its files from its own root)
	unshare -m --propagation private sh -c 'mount --bind "$1" "$1" && cd "$1" &&
		pivot_root . old && exec "$2" 1.5' - "$T/croot" "$T/bin/dyn"
	ok "a pivot_root container's program: replayed with its own pack" \
		resident_is mostly "$T/data-croot"
	ok "not with the host's" resident_is hardly "$T/data"
	ok "nor the chroot's" resident_is hardly "$T/data-root"
else
	skip "unshare -m is not allowed here"
	skip "unshare -m is not allowed here"
	skip "unshare -m is not allowed here"
fi

# ---- hostile packs: a directory swapped for a symlink, a FUSE mount that never answers ----
mkdir -p "$T/s" "$T/f"
head -c 64K /dev/urandom >"$T/s/file"
head -c 64K /dev/urandom >"$T/f/file"
cp "$T/bin/dyn" "$T/bin/h1"
cp "$T/bin/dyn" "$T/bin/h2"
cp "$T/bin/dyn" "$T/bin/h3"
"$MKPACK" "$(name "$T/bin/h1")" "$T/s/file" >/dev/null
"$MKPACK" "$(name "$T/bin/h2")" "$T/f/file" >/dev/null
# the user who owns the directories swaps them: a symlink, a FUSE mount
mv "$T/s" "$T/s.real"
ln -s s.real "$T/s"
mv "$T/f" "$T/f.real"
mkdir "$T/f" "$T/fm"
if [ -e /dev/fuse ] && [ -x "$HELPERS/fuse-hang" ]; then
	"$HELPERS/fuse-hang" "$T/f" >"$T/fuse.out" 2>&1 &
	FUSE_PID=$!
	for _ in $(seq 50); do grep mounted "$T/fuse.out" >/dev/null && break; sleep 0.1; done
	"$HELPERS/fuse-hang" "$T/fm" >"$T/fuse2.out" 2>&1 &
	FUSE_PID="$FUSE_PID $!"
	for _ in $(seq 50); do grep mounted "$T/fuse2.out" >/dev/null && break; sleep 0.1; done
	# a pack of a file on the FUSE filesystem itself (by its device; no file is looked at)
	dev=$(awk -v m="$T/fm" '$5 == m { print $3 }' /proc/self/mountinfo)
	"$HELPERS/mkhostile" "$(name "$T/bin/h3")" "fs:${dev%:*}:${dev#*:}:$T/nowhere" \
		file:0:file range:0:0:4 >/dev/null
fi
"$T/bin/h1" 0.2
ok "a pack through a symlinked directory: the replay ends, the file refused" \
	wait_log "'$T/s/file' is not a regular file on its filesystem"
if [ -n "$FUSE_PID" ]; then
	"$T/bin/h2" 0.2
	ok "a pack through a FUSE mount: refused without waiting for its server" \
		wait_log "'$T/bin/h2' started: issued 0 KiB"
	"$T/bin/h3" 0.2
	ok "a pack of a FUSE filesystem: skipped without asking it" \
		wait_log "is a FUSE filesystem (its server may never answer), skipping its files"
	ok "and by hand: ura-replay of those packs ends" sh -c 'timeout 10 "$1" -q "$2" &&
		timeout 10 "$1" -q "$3"' - "$R" "$(name "$T/bin/h2")" "$(name "$T/bin/h3")"
	# a user renames the directory above their FUSE mount (the daemon's mount table still
	# names the old path), then runs a program at a path through it in a mount namespace of
	# their own: in the daemon's mounts that path leads into the FUSE mount
	mkdir -p "$T/fp/a/mnt" "$T/bin2/mnt"
	cp "$T/bin/dyn" "$T/bin2/mnt/dyn"
	"$HELPERS/fuse-hang" "$T/fp/a/mnt" >"$T/fuse3.out" 2>&1 &
	FUSE_PID="$FUSE_PID $!"
	for _ in $(seq 50); do grep mounted "$T/fuse3.out" >/dev/null && break; sleep 0.1; done
	sleep 0.3	# the daemon has read its mounts again
	mv "$T/fp/a" "$T/fp/b"
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec "$2/mnt/dyn" 0' - \
		"$T/bin2" "$T/fp/b"
	evict "$T/data"
	ok "a program run through a renamed FUSE mount's parent: the daemon goes on replaying" \
		bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/dyn" "$MKPACK" "$T/data"
else
	skip "no FUSE here"
	skip "no FUSE here"
	skip "no FUSE here"
	skip "no FUSE here"
fi
evict "$T/data"
ok "the daemon still replays: a program's data is resident 1.5 s after exec" \
	bash -c '"$1" 1.5 && "$2" --resident "$3" | mostly' - "$T/bin/dyn" "$MKPACK" "$T/data"

# ---- 100 execs/s for 10 s ----
# a program with a pack (its data evicted now and then, so replays happen), one without; RSS
# and descriptors before and after
load() {
	python3 - "$1" "$T/bin/fast" "$T/other/prog" "$MKPACK" "$T/data2" <<'EOS'
import os, subprocess, sys, time
secs, fast, other, mkpack, data = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
t0 = time.monotonic()
n = 0
while time.monotonic() - t0 < secs:
    subprocess.run([fast])
    if n % 50 == 0:
        subprocess.run([mkpack, "--evict", data])
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1")
    n += 1
    time.sleep(max(0, t0 + n / 100 - time.monotonic()))
print(n)
EOS
}
load 1 >/dev/null	# warm-up: the first replays allocate what later ones reuse
sleep 0.5
rss0=$(rss) fd0=$(fds) fdlist0=$(ls -l "/proc/$PID/fd" | tail -n +2)
n=$(load 10)
sleep 1
# a replay started by the last execs may still hold its files: wait (20 s at most, a sanitizer
# build on a loaded machine is slow) for it to end
for _ in $(seq 200); do [ "$(fds)" -le "$fd0" ] && break; sleep 0.1; done
rss1=$(rss) fd1=$(fds)
[ "$fd1" -le "$fd0" ] || diag "descriptors before the load: $fdlist0
after: $(ls -l "/proc/$PID/fd" | tail -n +2)"
diag "100 execs/s for 10 s: $n execs; VmRSS $rss0 -> $rss1 kB, fds $fd0 -> $fd1"
ok "the load ran at about 100 execs/s" test "$n" -ge 900
ok "the daemon survives it" alive
ok "flat RSS (within 2 MiB)" test "$rss1" -le $((rss0 + 2048))
ok "flat descriptor count" test "$fd1" -le "$fd0"
ok "replays happened during the load" sh -c '[ $(grep -c "'"'$T/bin/fast'"' started: issued" "$1") -ge 5 ]' - "$T/log"
ok "SIGTERM: it exits 0" stop_daemon
ok "no error in the log (nor a sanitizer's report)" sh -c '! grep -iE "error:|sanitizer|runtime error" "$1"' - "$T/log"

# ---- SIGTERM while a replay paces itself ----
# --lead 0.5: the first file is read at once, the second (first used 4 s into the trace) not
# before 3.5 s; SIGTERM at 1 s stops the daemon at once, and the second is never read
head -c 1M /dev/urandom >"$T/early"
head -c 1M /dev/urandom >"$T/late"
cp "$T/bin/dyn" "$T/bin/paced"
sync
"$MKPACK" "$(name "$T/bin/paced")" at:1000 "$T/early" at:4000000000 "$T/late" >/dev/null
evict "$T/early"
evict "$T/late"
: >"$T/log"
start_daemon --lead 0.5
"$T/bin/paced" 0.2
sleep 0.8
ok "the first file was read at once" resident_is mostly "$T/early"
t0=$(date +%s%N)
stop_daemon
rc=$?
t1=$(date +%s%N)
diag "stopped in $(( (t1 - t0) / 1000000 )) ms while pacing"
ok "SIGTERM while pacing: it exits 0, at once (within 1 s here)" \
	test "$rc" = 0 -a $(( (t1 - t0) / 1000000 )) -lt 1000
sleep 3.5
ok "nothing was read after it: the second file was never read" resident_is hardly "$T/late"
ok "no error in the log" sh -c '! grep -iE "error:|sanitizer|runtime error" "$1"' - "$T/log"
[ "$_tap_failed" = 0 ] || grep -v "sampled pages" "$T/log" | tail -n 30 | sed "s/^/# /"
done_testing
