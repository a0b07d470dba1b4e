#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Replay the events of a traced run under several models of demand, against the true demand.

    URA_TRACE_EVENTS=run.ev   ura-trace --cold --pack run.pack -- CMD
    URA_TRACE_EVENTS=truth.ev ura-trace --cold --read-ahead-kb 4 --pack truth.pack -- CMD
    bench/trace-demand-models.py MAJ:MIN run.ev run.pack truth.ev

Only files of device MAJ:MIN are compared. The true demand is every page the read_ahead_kb 4
run added (no readahead: each was a demand miss). Models of a fault-around window
(filemap:mm_filemap_map_pages) on top of the exact read() and fault pages:
  whole    every page of the window
  fault    only the page the user fault touched (from exceptions:page_fault_user)
  near-K   the touched page and the window's cached pages within K pages of it (ura-trace: K=5)
"""
import json
import subprocess
import sys
import os

def events(path):
    for line in open(path):
        p = line.split()
        if p[2] == 'pf':
            yield int(p[0]), int(p[1]), 'pf', int(p[3], 16)
        else:
            yield (int(p[0]), int(p[1]), p[2]) + tuple(int(x) for x in p[3:7])

def main():
    majmin, run, pack, truth = sys.argv[1:5]
    major, minor = (int(x) for x in majmin.split(':'))
    dev = major << 20 | minor
    dump = os.environ.get('URA_DUMP', os.path.join(os.path.dirname(__file__), '..', 'ura-dump'))
    d = json.loads(subprocess.check_output([dump, '--json', pack]))
    pages_of = {f['ino']: (f['size'] + 4095) // 4096 for f in d['files'] if f['dev'] == majmin}
    true = set()
    for e in events(truth):
        if e[2] == 'add' and e[3] == dev:
            true.update((e[4], e[5] + i) for i in range(1 << e[6]))

    models = [('whole', None), ('fault', 0)] + [(f'near-{k}', k) for k in (2, 5, 8)]
    for name, k in models:
        demand, added, last_fault = set(), set(), {}
        for e in events(run):
            if e[2] == 'pf':
                last_fault[e[1]] = e[3] >> 12
                continue
            _, pid, kind, edev, ino, first, x = e
            if edev != dev:
                continue
            if kind == 'add':
                added.update((ino, first + i) for i in range(1 << x))
            elif kind == 'get':
                last = min(x, pages_of.get(ino, 1 << 62) - 1)
                demand.update((ino, i) for i in range(first, last + 1))
            elif kind == 'fault':
                demand.add((ino, first))
            elif kind == 'map':
                window = range(first, x + 1)
                page = None
                if pid in last_fault:
                    page = first + (last_fault.pop(pid) & 15)
                    if page > x:
                        page = None
                cold = any((ino, i) in added for i in window)
                for i in window:
                    if cold and i != page and (ino, i) not in added:
                        continue	# not cached: not mapped
                    if k is None or page is None or abs(i - page) <= k:
                        demand.add((ino, i))
        both = len(demand & true)
        print(f'{name:8s} demanded {len(demand) / 256:7.2f} MiB  true {len(true) / 256:7.2f} MiB  '
              f'ratio {len(demand) / max(1, len(true)):4.2f}  recall {both / max(1, len(true)):4.2f}  '
              f'precision {both / max(1, len(demand)):4.2f}')

if __name__ == '__main__':
    main()
