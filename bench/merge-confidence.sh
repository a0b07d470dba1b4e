#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Choosing ura-trace --merge's default --min-confidence: RUNS traced starts of python3, each
# also reading a private file of its own (a user's config), merged at several confidences.
# For each C and each number of runs merged (2, 3, RUNS): the files and MiB kept, how many of
# the private files survived, and how much of what every run had (the intersection) and of
# what any run had (the union) the merged pack holds.
# Runs are warm (no drop_caches: the access events show what a start uses); each private file
# is evicted first (fadvise DONTNEED, helpers/evict) and lives on the root filesystem.
# Usage: bench/merge-confidence.sh [RUNS]   (root; RUNS default 5)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-5}
W=$(mktemp -d /var/tmp/ura-merge-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
make -s -C "$TOP" ura-trace ura-dump test-helpers >/dev/null
for i in $(seq 1 "$RUNS"); do
	head -c $((32 * 4096)) /dev/urandom >"$W/own$i.conf"
	"$TOP/build/tests/integration/helpers/evict" "$W/own$i.conf"
	timeout 120 "$TOP/build/ura-trace" -q --pack "$W/run$i.pack" -- \
		/usr/bin/python3 -c 'import json, email, sys; open(sys.argv[1], "rb").read()' \
		"$W/own$i.conf"
	"$TOP/build/ura-dump" --json "$W/run$i.pack" >"$W/run$i.json"
done
printf '%-5s %-4s %6s %8s %8s %14s %12s\n' C runs files MiB private "intersection%" "union%"
for n in 2 3 "$RUNS"; do
	[ "$n" -le "$RUNS" ] || continue
	for c in 0.2 0.4 0.5 0.6 0.8 1.0; do
		ins=()
		for i in $(seq 1 "$n"); do ins+=("$W/run$i.pack"); done
		"$TOP/build/ura-trace" -q --merge --min-confidence "$c" --pack "$W/m.pack" "${ins[@]}"
		"$TOP/build/ura-dump" --json "$W/m.pack" >"$W/m.json"
		python3 - "$c" "$n" "$W" <<'PY'
import json, sys
c, n, w = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def pages(d):
    s = set()
    for f in d["files"]:
        for r in f["ranges"]:
            o, l = r["offset"] // 4096, r["length"] // 4096
            s.update((f["path"], p) for p in range(o, o + l))
    return s
runs = [pages(json.load(open(f"{w}/run{i}.json"))) for i in range(1, n + 1)]
inter, union = set.intersection(*runs), set.union(*runs)
m = json.load(open(f"{w}/m.json"))
got = pages(m)
kept = [f for f in m["files"] if f["ranges"]]    # files listed only for pending pages are not
private = sum(1 for f in kept if f["path"].endswith(".conf"))
print(f"{c:<5} {n:<4} {len(kept):6} {len(got) * 4096 / 2**20:8.1f} {private:5}/{n:<2}"
      f" {100 * len(got & inter) / max(1, len(inter)):14.1f} {100 * len(got) / max(1, len(union)):12.1f}")
PY
	done
done
