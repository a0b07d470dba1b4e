#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does a learned pack hold the filesystem metadata a one-shot trace of the same start records?
# On the slow-disk testbed (bench/testbed, up), the large program of
# bench/e2e.py (gcc with the sanitizer runtimes, chrooted into the testbed root, PROFILE emmc
# unless given): the learning daemon (default options) sees one cold start and two warm ones,
# then a one-shot trace (ura-trace --pack) records one cold start. Prints, for the learned pack
# of gcc and the one-shot pack, the metadata bytes by device: the testbed's device holds the
# program's filesystem; the one-shot trace also records the harness (slowrun, chroot) on the
# host's disk.
# Run as root: bench/learn-metadata.sh [PROFILE]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
PROFILE=${1:-emmc}
for d in "${TESTBED:-}" "$TOP/bench/testbed"; do
	[ -n "$d" ] && [ -x "$d/slowrun" ] && SR=$d/slowrun && break
done
[ -n "${SR:-}" ] || { echo "no testbed: set TESTBED" >&2; exit 1; }
. "${TESTBED_WORK:-/var/tmp/ura-testbed}/state.env"
D=$(mktemp -d /tmp/ura-learn-metadata.XXXXXX)
DAEMON=
trap '[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT
CMD=(gcc -O2 -fsanitize=address,undefined -o /tmp/h /bench/hello.c)
cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }

"$TOP/build/ura-trace" --watch "$D/packs" 2>"$D/log" &
DAEMON=$!
for _ in $(seq 100); do grep -F learning "$D/log" >/dev/null && break; sleep 0.1; done
for i in 1 2 3; do
	[ "$i" = 1 ] && cold
	"$SR" "$PROFILE" --chroot -- "${CMD[@]}"
	sleep 1
done
sleep 1
kill -TERM "$DAEMON"
wait "$DAEMON" || true
DAEMON=
cold
"$TOP/build/ura-trace" -q --pack "$D/oneshot.pack" -- "$SR" "$PROFILE" --chroot -- "${CMD[@]}"

learned=$(ls "$D/packs/"*gcc*.pack 2>/dev/null | head -1)
[ -n "$learned" ] || { echo "no pack of gcc learned; the daemon's packs:" >&2; ls "$D/packs" >&2; exit 1; }
for p in "$D/oneshot.pack" "$learned"; do
	"$TOP/build/ura-dump" --json "$p" | python3 -c '
import collections, json, sys
d = json.load(sys.stdin)
by_dev = collections.Counter()
for m in d["metadata"]:
    by_dev[m["device"]] += m["length"]
data = sum(r["length"] for f in d["files"] for r in f["ranges"])
runs, files = d["runs"], len(d["files"])
print(f"{sys.argv[1]}: {runs} run(s), {files} files, {data / 2**20:.1f} MiB of data;",
      "metadata", ", ".join(f"{dev} {b / 2**20:.2f} MiB" for dev, b in sorted(by_dev.items())))
' "$([ "$p" = "$D/oneshot.pack" ] && echo one-shot || echo learned)"
done
echo "testbed device: $MAJMIN"
