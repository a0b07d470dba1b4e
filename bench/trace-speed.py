#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a trace costs and what its pack is worth, on the slow-disk testbed.

For each workload and profile, interleaved run by run:
  cold           the program, caches dropped, untraced
  trace          `ura-trace --pack P -- CMD` with its defaults of a cold start, all of it
                 through slowrun (the tracer shares the program's device budget), timed
                 from start to exit of ura-trace (what the user waits for)
  trace-exact    the same with --exact (a page at a time: the exact pack)
  trace-warm     the default trace of a warm start (the program ran just before), the
                 first trace to its pack
  trace-warm-again  the same, to a pack that exists (ura-trace evicts its files first)
Then the packs of the first round are replayed with the program (ura-replay P started
with it, same cgroup), interleaved with cold and warm runs: the share of the
cold-to-warm gap each closes, and the ratio to what the exact pack closes.

The first trace under a profile measures the device (5 to 9 s): a throw-away trace of
/bin/true under each profile does that before anything is timed.

Run as root with the testbed up (bench/testbed/up.sh), after `make all bench`:
  bench/trace-speed.py --workloads python,clang --profiles emmc,sdcard --runs 5 \\
      --out bench/results/trace-speed.json
"""
import argparse
import json
import shutil
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "e2e", os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e.py"))
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)

TRACES = {"trace": [], "trace-exact": ["--exact"], "trace-warm": [], "trace-warm-again": []}


def med(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


class TraceBench(e2e.Bench):
    def trace_timed(self, profile, name, kind, pack):
        """One traced run, timed as the user sees it; returns (seconds, ura-trace's JSON)."""
        prog = ["chroot", self.mnt] + e2e.WORKLOADS[name]
        if kind != "trace-warm-again" and os.path.exists(pack):
            os.unlink(pack)
        if kind.startswith("trace-warm"):
            subprocess.run(self.slow(profile, e2e.WORKLOADS[name], chroot=True),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            e2e.drop_caches()
        cmd = self.slow(profile, [self.trace, "-q", "--json", "--pack", pack, "--root",
                                  self.mnt] + TRACES[kind] + ["--"] + prog)
        r0 = self.dev_reads()
        t = time.monotonic()
        out = subprocess.run(cmd, capture_output=True, text=True)
        t = time.monotonic() - t
        r1 = self.dev_reads()
        summary = {}
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                summary = json.loads(line)
        return t, r1[0] - r0[0], summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", default="hdd,emmc,sdcard,ssd")
    ap.add_argument("--workloads", default="python,boot,clang,rustc")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--exact-runs", type=int, default=1,
                    help="timed runs of the exact trace (slow where requests are dear)")
    ap.add_argument("--workdir", default="/var/tmp/ura-bench-trace")
    ap.add_argument("--out")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=OPTIONS",
                    help="another trace to time and replay, e.g. r32='--read-ahead-kb 32'")
    ap.add_argument("--only", help="the traces to run, comma-separated (default all)")
    args = ap.parse_args()
    for v in args.variant:
        k, _, opts = v.partition("=")
        TRACES[k] = opts.split()
    if args.only:
        for k in list(TRACES):
            if k not in args.only.split(","):
                del TRACES[k]
    args.retrace = True
    args.trace_args = args.replay_args = ""
    args.profile_costs = False
    b = TraceBench(args)
    results = []
    for profile in args.profiles.split(","):
        b.trace_timed(profile, "python", "trace", os.path.join(b.packs, "probe.pack"))
        for name in args.workloads.split(","):
            res = {"workload": name, "profile": profile, "runs": {}, "summary": {}}
            samples = {k: [] for k in ["cold"] + list(TRACES)}
            reads = {k: [] for k in samples}
            for i in range(args.runs):
                e2e.drop_caches()
                r0 = b.dev_reads()
                samples["cold"].append(b.timed(b.slow(profile, e2e.WORKLOADS[name], True)))
                reads["cold"].append(b.dev_reads()[0] - r0[0])
                for kind in TRACES:
                    if kind == "trace-exact" and i >= args.exact_runs:
                        continue
                    pack = os.path.join(b.packs, f"{name}-{profile}-{kind}-{i}.pack")
                    if kind == "trace-warm-again":
                        # a copy of this round's first warm trace: the pack exists
                        shutil.copy(os.path.join(b.packs, f"{name}-{profile}-trace-warm-{i}.pack"),
                                    pack)
                    t, n, summ = b.trace_timed(profile, name, kind, pack)
                    samples[kind].append(t)
                    reads[kind].append(n)
                    if i == 0:
                        res["summary"][kind] = summ
                print(f"{name}/{profile} round {i + 1}: " +
                      ", ".join(f"{k} {v[-1]:.2f}s" for k, v in samples.items() if v),
                      flush=True)
            for k in samples:
                res["runs"][k] = med(samples[k])
                res["runs"][k]["reads"] = statistics.median(reads[k])
            # the packs, replayed with the program
            rep = {k: [] for k in ["cold", "warm"] + list(TRACES)}
            for i in range(args.runs):
                for k in rep:
                    prog = b.slow(profile, e2e.WORKLOADS[name], chroot=True)
                    if k == "warm":
                        b.timed(prog)
                        rep[k].append(b.timed(prog))
                        continue
                    if k == "cold":
                        e2e.drop_caches()
                        rep[k].append(b.timed(prog))
                        continue
                    pack = os.path.join(b.packs, f"{name}-{profile}-{k}-0.pack")
                    e2e.drop_caches()
                    ura = [b.replay, "-q", "--root", b.mnt, pack]
                    rep[k].append(b.concurrent(profile, ura, e2e.WORKLOADS[name]))
            cold, warm = statistics.median(rep["cold"]), statistics.median(rep["warm"])
            res["replay"] = {k: med(v) for k, v in rep.items()}
            for k in TRACES:
                m = statistics.median(rep[k])
                res["replay"][k]["gap"] = (cold - m) / (cold - warm) if cold > warm else 0
            ex = res["replay"].get("trace-exact", res["replay"].get("trace", {})).get("gap", 0)
            for k in TRACES:
                res["replay"][k]["vs_exact"] = res["replay"][k]["gap"] / ex if ex > 0 else None
            c = res["runs"]["cold"]["median"]
            print(f"{name}/{profile}: cold {c:.2f}s; " + "; ".join(
                f"{k} {res['runs'][k]['median']:.2f}s ({res['runs'][k]['median'] / c:.2f}x, "
                f"{res['runs'][k]['reads']:.0f} reads), pack closes "
                f"{100 * res['replay'][k]['gap']:.0f}%" for k in TRACES), flush=True)
            results.append(res)
            if args.out:
                with open(args.out, "w") as f:
                    json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
