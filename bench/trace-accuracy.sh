#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Demanded-set accuracy of ura-trace: the pages a cold run's pack marks demanded, against the
# true demand, taken from a cold run traced with read_ahead_kb 4 (no readahead: every page
# added is a demand miss). Only files on the testbed's filesystem are compared. Needs root and
# the testbed (bench/testbed/up.sh).
#
#   bench/trace-accuracy.sh [RUNS]       default 3 runs of each workload
#
# Prints, per workload: demanded MiB, true-demand MiB, their ratio (target <= 1.3), recall
# (share of the true demand marked demanded) and precision (share of the demanded pages that
# are true demand), and the same for every page in the pack (demanded and speculative); then
# the same for a warm run (everything cached before the trace: nothing is added, the pack
# comes from the access events alone).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
URA_TRACE=${URA_TRACE:-$HERE/build/ura-trace}
URA_DUMP=${URA_DUMP:-$HERE/build/ura-dump}
WORK=${TESTBED_WORK:-/var/tmp/ura-testbed}
RUNS=${1:-3}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 77; }
[ -e "$WORK/state.env" ] || { echo "testbed is not up: bench/testbed/up.sh" >&2; exit 69; }
. "$WORK/state.env"
T=$(mktemp -d /var/tmp/ura-accuracy.XXXXXX)
trap 'rm -rf "$T"' EXIT

trace() { # pack read_ahead_kb|warm cmd...
	local pack=$1 ra=$2 cold=--cold
	shift 2
	[ "$ra" = warm ] && { ra=""; cold=""; }
	sync
	timeout 300 "$URA_TRACE" -q $cold --root "$MNT" ${ra:+--read-ahead-kb "$ra"} \
		--pack "$pack" -- chroot "$MNT" "$@" >/dev/null
	"$URA_DUMP" --json "$pack" >"$pack.json"
}

compare() { # name truth.json run.json...
	python3 - "$@" <<'PY'
import json, sys
name, truth, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
def pages(path, only_demanded):
    d = json.load(open(path))
    fs = {f['index'] for f in d['filesystems'] if f['mount_point'] == '/'}
    s = set()
    for f in d['files']:
        if f['fs'] not in fs:
            continue
        for r in f['ranges']:
            if only_demanded and not r['demanded']:
                continue
            s.update((f['path'], r['offset'] // 4096 + i) for i in range(r['length'] // 4096))
    return s
T = pages(truth, False)
for run in runs:
    warm = run.endswith('-warm.pack.json')
    for label, only in (('demanded', True), ('all listed', False)):
        label = ('warm ' if warm else '') + label
        D = pages(run, only)
        both = len(D & T)
        print(f'{name:8s} {label:15s} {len(D) / 256:8.2f} MiB  true {len(T) / 256:7.2f} MiB  '
              f'ratio {len(D) / max(1, len(T)):4.2f}  recall {both / max(1, len(T)):4.2f}  '
              f'precision {both / max(1, len(D)):4.2f}')
PY
}

PY='import os, sys, re, subprocess, logging, argparse, email, json'
for w in python gcc boot; do
	case $w in
	python) cmd=(/usr/bin/python3 -c "$PY") ;;
	gcc) cmd=(/usr/bin/gcc -O1 -o /tmp/hello /bench/hello.c) ;;
	boot) cmd=(/bin/sh /bench/boot.sh) ;;
	esac
	trace "$T/$w-truth.pack" 4 "${cmd[@]}"
	runs=()
	for i in $(seq "$RUNS"); do
		trace "$T/$w-$i.pack" "" "${cmd[@]}"
		runs+=("$T/$w-$i.pack.json")
	done
	# and a warm run: everything already cached, nothing added
	trace "$T/$w-warm.pack" warm "${cmd[@]}"
	runs+=("$T/$w-warm.pack.json")
	compare "$w" "$T/$w-truth.pack.json" "${runs[@]}"
done
