#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ura-replay --watch against the real kernel: a program with a pack finds its data resident
# 1.5 s after exec, a copy elsewhere (no pack) does not; DIR removed and recreated, a corrupt
# pack, 100 execs/s for 10 s (flat RSS and fd count); SIGTERM exits within 1 s
. "$(dirname "$0")/lib.sh"
R="$URA_REPLAY"

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$R" ] || skip_all "ura-replay is not built (make)"
command -v systemd-escape >/dev/null || skip_all "systemd-escape is missing"
make -s -C "$TOP" BUILD="$BUILD" test-helpers >/dev/null 2>&1
[ -x "$MKPACK" ] || skip_all "cannot build the mkpack helper"

# on a disk filesystem (tmpfs pages cannot be evicted)
T=$(mktemp -d /var/tmp/ura-watch-test.XXXXXX)
PID=""
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

P="$T/packs"
mkdir -p "$P" "$T/bin" "$T/other"
head -c 4M /dev/urandom >"$T/data"
head -c 256K /dev/urandom >"$T/data2"
# the program: sleeps 1.5 s, then says how much of its data file is resident
cat >"$T/bin/prog" <<EOS
#!/bin/sh
sleep 1.5
exec "$MKPACK" --resident "\$1"
EOS
chmod 755 "$T/bin/prog"
cp "$T/bin/prog" "$T/other/prog"
cp /bin/true "$T/bin/fast"
printf '#!/bin/sh\nexit 0\n' >"$T/bin/bad"
chmod 755 "$T/bin/bad"
sync
name() { echo "$P/$(systemd-escape --path "$1").pack"; }
mkpacks() {
	"$MKPACK" "$(name "$T/bin/prog")" "$T/data" >/dev/null &&
		"$MKPACK" "$(name "$T/bin/fast")" "$T/data2" >/dev/null
}
evict() { "$MKPACK" --evict "$1"; }
# "resident total" (mkpack --resident) on stdin: at least 90% of the file, or less than 10%.
# Not all: this VM runs a DAMON reclaimer, which can page out a few of the replayed pages
# before the check (ura-replay(8) NOTES); the copy without a pack reads none at all.
mostly() { read -r res total && [ "$total" -gt 0 ] && [ $((res * 10)) -ge $((total * 9)) ] ||
	{ echo "$res of $total bytes resident" >&2; false; }; }
hardly() { read -r res total && [ "$total" -gt 0 ] && [ $((res * 10)) -lt "$total" ] ||
	{ echo "$res of $total bytes resident" >&2; false; }; }
export -f mostly hardly
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

plan 16
mkpacks
evict "$T/data"
# under ASan (make SANITIZE=...), freed memory waits in a quarantine: RSS would grow without a leak
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
	"$R" -v --watch "$P" >"$T/log" 2>&1 &
PID=$!
ok "the daemon starts and watches execs" wait_log "watching execs"

ok "a program with a pack finds its data resident 1.5 s after exec" \
	bash -c '"$1" "$2" | mostly' - "$T/bin/prog" "$T/data"
ok "one log line for that replay: program, bytes issued, time" \
	grep -E "'$T/bin/prog' started: issued [1-9][0-9]* KiB .* in [0-9.]+ ms" "$T/log"
evict "$T/data"
ok "a copy of the program at another path (no pack) does not" \
	bash -c '"$1" "$2" | hardly' - "$T/other/prog" "$T/data"

# a corrupt pack: logged, skipped, not fatal
head -c 300 /dev/urandom >"$(name "$T/bin/bad")"
"$T/bin/bad"
ok "a corrupt pack is logged and skipped" wait_log "cannot read pack '$(name "$T/bin/bad")'"
ok "the daemon survives it" alive

# DIR removed and created again
rm -rf "$P"
"$T/bin/fast"
mkdir -p "$P"
mkpacks
evict "$T/data"
ok "DIR removed and recreated: the program's data is resident again" \
	bash -c '"$1" "$2" | mostly' - "$T/bin/prog" "$T/data"
ok "the daemon survives it" alive

# 100 execs/s for 10 s: a program with a pack (its data evicted now and then, so replays
# happen), one without; RSS and descriptors before and after
load() {
	python3 - "$1" "$T/bin/fast" "$T/other/prog" "$MKPACK" "$T/data2" <<'EOS'
import os, subprocess, sys, time
secs, fast, other, mkpack, data = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
t0 = time.monotonic()
n = 0
while time.monotonic() - t0 < secs:
    subprocess.run([fast])
    if n % 20 == 0:
        subprocess.run([mkpack, "--evict", data])
    n += 1
    time.sleep(max(0, t0 + n / 100 - time.monotonic()))
print(n)
EOS
}
load 1 >/dev/null	# warm-up: the first replays allocate what later ones reuse
sleep 0.5
rss0=$(rss) fd0=$(fds)
n=$(load 10)
sleep 1
rss1=$(rss) fd1=$(fds)
diag "100 execs/s for 10 s: $n execs; VmRSS $rss0 -> $rss1 kB, fds $fd0 -> $fd1"
ok "the load ran at about 100 execs/s" test "$n" -ge 900
ok "the daemon survives it" alive
ok "flat RSS (within 2 MiB)" test "$rss1" -le $((rss0 + 2048))
ok "flat descriptor count" test "$fd1" -le "$fd0"
ok "replays happened during the load" sh -c '[ $(grep -c "'"'$T/bin/fast'"' started: issued" "$1") -ge 5 ]' - "$T/log"

# SIGTERM: gone within 1 s, exit 0
t0=$(date +%s%N)
kill -TERM "$PID"
wait "$PID"
rc=$?
t1=$(date +%s%N)
PID=""
diag "stopped in $(( (t1 - t0) / 1000000 )) ms"
ok "SIGTERM stops it within 1 s" test $(( (t1 - t0) / 1000000 )) -lt 1000
ok "and it exits 0" test "$rc" = 0
ok "no error in the log (nor a sanitizer's report)" sh -c '! grep -iE "error:|sanitizer|runtime error" "$1"' - "$T/log"
[ "$_tap_failed" = 0 ] || grep -v "first ranges are resident" "$T/log" | tail -n 30 | sed "s/^/# /"
done_testing
