#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Interleaved A/B runs of replay variants against one program on the slow-disk testbed.

  bench/replay-ab.py PROFILE PACK RUNS 'CMD' LABEL:BINARY:ARGS...

Each run drops the caches, starts BINARY -q --root MNT ARGS PACK in the testbed's
cgroup and times the program (CMD, chrooted) started together with it. The labels
"cold" and "warm" (empty BINARY) time the program alone. Prints medians, min-max
and the share of the cold-to-warm gap closed. Root, testbed up.
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    prof, pack, runs, cmd = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    variants = [v.split(":", 2) for v in sys.argv[5:]]
    tb = os.environ.get("TESTBED") or os.path.join(TOP, "bench", "testbed")
    work = os.environ.get("TESTBED_WORK", "/var/tmp/ura-testbed")
    mnt = dict(l.strip().split("=", 1) for l in open(os.path.join(work, "state.env")))["MNT"]
    slowrun = os.path.join(tb, "slowrun")
    prog = [slowrun, prof, "--chroot", "--", "/bin/sh", "-c", cmd]
    res = {label: [] for label, _, _ in variants}
    for _ in range(runs):
        for label, binary, args in variants:
            if label == "warm":
                subprocess.run(prog, stdout=subprocess.DEVNULL)
            else:
                os.sync()
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("3\n")
            t = time.monotonic()
            p = None
            if binary:
                p = subprocess.Popen([slowrun, prof, "--", binary, "-q", "--root", mnt] +
                                     shlex.split(args) + [pack], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
            subprocess.run(prog, stdout=subprocess.DEVNULL)
            res[label].append(time.monotonic() - t)
            if p:
                p.wait()
    cold = statistics.median(res["cold"]) if "cold" in res else None
    warm = statistics.median(res["warm"]) if "warm" in res else None
    for label, v in res.items():
        m = statistics.median(v)
        gap = (f" gap {100 * (cold - m) / (cold - warm):.0f}%"
               if cold and warm and cold > warm else "")
        print(f"{prof} {label}: {m:.3f} s [{min(v):.3f}-{max(v):.3f}]{gap}", flush=True)


if __name__ == "__main__":
    main()
