#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does the learning daemon (ura-trace --watch, default options but a 2 s window) learn every run
# when programs start together or back to back, and how soon after its exec is each run traced?
# Each of ROUNDS rounds (default 5): NOISE execs of /bin/true from a shell (default 300: they use
# up the pids each pid filter write arms), then 12 copies of a program started at once, then
# three programs back to back (a Python script whose launcher execs 12 helpers, a program that
# sleeps 0.2 s then reads two files, a third one). Every program reads files of its own on a
# scratch ext4. Prints, for the windows of those programs: how many runs were learned, since
# when after its exec each window was traced (median, max: 0 when its task was traced from its
# fork) and how long after the exec the daemon read the exec (median, max).
# Run as root: bench/learn-burst.sh [ROUNDS] [NOISE]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
NOISE=${2:-300}
D=$(mktemp -d /run/ura-learn-burst.XXXXXX)	# root-owned: the daemon learns no file of a user's
DAEMON=
cleanup() {
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	umount "$D/mnt" 2>/dev/null || true
	rm -rf "$D"
}
trap cleanup EXIT

truncate -s 64M "$D/img"
mkfs.ext4 -q -F "$D/img"
mkdir "$D/mnt"
mount -o loop "$D/img" "$D/mnt"
M=$D/mnt
mkdir "$M/bin" "$M/data"
for f in burst late1 late2 launch third; do
	head -c $((40 * 4096)) /dev/urandom >"$M/data/$f"
done
printf '#!/bin/sh\ncat %s >/dev/null\n' "$M/data/burst" >"$M/bin/burst"
printf '#!/bin/sh\nsleep 0.2\ncat %s %s >/dev/null\n' "$M/data/late1" "$M/data/late2" >"$M/bin/late"
printf '#!/bin/sh\ncat %s >/dev/null\n' "$M/data/third" >"$M/bin/third"
cat >"$M/bin/launch" <<EOF
#!/usr/bin/python3
import subprocess
for i in range(12):
    subprocess.run(["/bin/true"])
open("$M/data/launch", "rb").read()
EOF
chmod 755 "$M/bin/"*

"$TOP/build/ura-trace" --watch "$D/packs" --window 2 -v 2>"$D/log" &
DAEMON=$!
for _ in $(seq 100); do grep -F learning "$D/log" >/dev/null && break; sleep 0.1; done

for r in $(seq "$ROUNDS"); do
	sh -c "i=0; while [ \$i -lt $NOISE ]; do /bin/true; i=\$((i+1)); done"
	pids=
	for i in $(seq 12); do "$M/bin/burst" & pids="$pids $!"; done
	wait $pids
	sleep 0.5
	"$M/bin/launch"; "$M/bin/late"; "$M/bin/third"
	sleep 3	# the windows close (the program's exit, then 0.2 s for events on their way)
done
kill -TERM "$DAEMON"
wait "$DAEMON" || true
DAEMON=
cp "$D/log" /tmp/learn-burst.log

python3 - "$D/log" "$M/bin" "$ROUNDS" <<'PY'
import re, sys, statistics
log, bindir, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = {"burst": 12 * rounds, "launch": rounds, "late": rounds, "third": rounds}
closed = re.compile(r"window of '(.*?)' \(pid \d+\) closed: exec read after ([\d.]+) ms, "
                    r"traced ([-\d.]+) ms after the exec, (.*)")
seen, traced, merged, learned = [], [], {}, {}
for line in open(log):
    m = closed.search(line)
    if m and m.group(1).startswith(bindir + "/"):
        name = m.group(1)[len(bindir) + 1:]
        seen.append(float(m.group(2)))
        traced.append(float(m.group(3)))
        merged[name] = merged.get(name, 0) + (m.group(4) == "merged")
    m = re.search(r"learned '(.*?)':", line)
    if m and m.group(1).startswith(bindir + "/"):
        name = m.group(1)[len(bindir) + 1:]
        learned[name] = learned.get(name, 0) + 1
for name, n in want.items():
    print(f"{name}: {learned.get(name, 0)} of {n} runs learned")
if traced:
    print(f"traced after the exec: median {statistics.median(traced):.2f} ms, "
          f"max {max(traced):.2f} ms, from the fork in {sum(t == 0 for t in traced)} of "
          f"{len(traced)} windows")
    print(f"exec read after: median {statistics.median(seen):.2f} ms, max {max(seen):.2f} ms")
ok = all(learned.get(n, 0) == c for n, c in want.items())
sys.exit(0 if ok else 1)
PY
grep -E "execs, .* windows" "$D/log" | sed 's/^ura-trace: /daemon: /'
