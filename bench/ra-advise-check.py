#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The read_ahead_kb advisor on the packs bench/trace-speed.py made, against a sweep.

For each cell of a bench/ra-sweep result (cold starts measured at each window), runs
`slowrun PROFILE -- ura-dump --ra-advise --json` on trace-speed's first-round packs of a
cold start (trace) and of a warm start (trace-warm), and prints the advised window's
measured time against the best window's. The sweep and the packs must be of the same
testbed and programs.

  bench/ra-advise-check.py [--sweep bench/results/ra-sweep-2026-11-22.json]
      [--packs /var/tmp/ura-bench-trace/packs]
"""
import argparse
import json
import os
import statistics
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sweep", action="append",
                    help="ra-sweep JSON; later files override cells of earlier ones")
    ap.add_argument("--packs", default="/var/tmp/ura-bench-trace/packs")
    args = ap.parse_args()
    sweeps = args.sweep or [os.path.join(TOP, "bench/results/ra-sweep-2026-11-22.json"),
                            os.path.join(TOP, "bench/results/ra-sweep-2026-11-22-emmc-clang-again.json")]
    cells = {}
    for f in sweeps:
        for prof, progs in json.load(open(f))["sweep"].items():
            for prog, windows in progs.items():
                if windows:
                    cells[(prof, prog)] = windows
    slowrun = os.path.join(TOP, "bench/testbed/slowrun")
    dump = os.path.join(TOP, "build/ura-dump")
    for (prof, prog), windows in sorted(cells.items()):
        med = {int(k): statistics.median(r["t"] for r in v) for k, v in windows.items() if v}
        best = min(med, key=med.get)
        for kind in ("trace", "trace-warm"):
            pack = os.path.join(args.packs, f"{prog}-{prof}-{kind}-0.pack")
            if not os.path.exists(pack):
                continue
            out = subprocess.run([slowrun, prof, "--", dump, "--ra-advise", "--json", pack],
                                 capture_output=True, text=True)
            rec = json.loads(out.stdout)["recommended_kb"]
            near = min(med, key=lambda k: abs(k - rec))
            print(f"{prof:6} {prog:6} {kind:10} best {best:5} KiB {med[best]:.2f} s | advised "
                  f"{rec:5} KiB (swept {near}) {med[near]:.2f} s {100 * (med[near] / med[best] - 1):+.1f}%")


if __name__ == "__main__":
    main()
