#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""End-to-end prefetch benchmark on the slow-disk testbed.

For each workload and device profile, times the program cold (caches dropped),
warm, and cold with each prefetch strategy, interleaving strategies run by run,
and reports medians, min, max and the share of the cold->warm gap closed:
(cold - t) / (cold - warm).

Strategies:
  cold       caches dropped, no prefetch
  warm       everything cached
  ura        ura-replay of the pack a user gets: `ura-trace --pack P -- CMD` with its
             defaults, of one cold run, started with the program (same cgroup)
  ura-cold   the same with a pack of `ura-trace --cold`
  ura-warm   the same with a default pack traced right after the program ran (a warm
             start: what a user who has just used the program records)
  ura-wait   ura-replay --wait first, then the program (reports both and the sum)
  ura-lead   ura-replay started HEAD seconds before the program (--head-start)
  ura-alt    the default pack replayed with --alt-replay-args, by --alt-replay, or the pack
             --alt-trace makes of a cold run (under each profile with --trace-per-profile;
             an A/B of options or builds in one run)
  naive      every page a run traced at the device's read_ahead_kb added, data and
             metadata, in first-access order, concurrent (bench/naive-replay: what
             ureadahead does)
  naive-wait naive replay first, then the program
  whole      every file the run touched, whole (vmtouch -t), concurrent
  aosp       what Android's boot prefetcher does with the default pack: every file range,
             pread() in 1 MiB chunks by two threads, first-access order, concurrent
             (bench/aosp-replay)
  demand     the issue's demand-only reference, rebuilt here: ura-replay of a pack traced
             at read_ahead_kb 4 (every page added is a demand miss, all marked demanded),
             concurrent
  demand-wait  the same, replayed first, then the program

Also measured per workload: the true demand (bytes that pack holds, data and metadata)
and the bytes ura-replay really reads from its own pack (issued_bytes of a cold
`ura-replay --wait --json`), and their ratio; and per profile the limit: the least
device time of the demand pack's data and metadata under the device model ura-replay
measured for that profile (its plan's modelled time, `ura-replay --dry-run --json`),
with the bytes that plan reads; and the least time by order (the ordered limit: a replay
started with the program against the program's own timeline, see ordered_limit()). Each
strategy's "achievable" share is (cold - t) / (cold - max(warm, limit, ordered limit)).

Run as root with the testbed up (bench/testbed/up.sh):
  bench/e2e.py --profiles hdd,emmc,ssd --runs 5 --out bench/results/e2e.json
"""
import argparse
import bisect
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKLOADS = {
    "python": ["/usr/bin/python3", "-c",
               "import json, email, http.server, asyncio, sqlite3, xml.dom.minidom, decimal"],
    "boot": ["/bin/sh", "/bench/boot.sh"],
    # a large program: gcc with the sanitizer runtimes (cc1, as, ld, libasan, libubsan)
    "gcc-asan": ["/bin/sh", "-c",
                 "gcc -O2 -fsanitize=address,undefined -o /tmp/h /bench/hello.c && /tmp/h"],
    # a large program start (>= 100 MB read): clang compiling a C++ file; libLLVM (104 MB)
    # and libclang-cpp are read at random.
    "clang": ["/bin/sh", "-c",
              "printf '#include <iostream>\\n#include <map>\\n#include <regex>\\n"
              "#include <string>\\nint main(){std::map<std::string,int> m; std::regex r(\"a+\");"
              "m[\"x\"]=std::regex_match(\"aa\",r); std::cout<<m.size()<<std::endl;}\\n' "
              ">/tmp/c.cpp && clang++ -O0 -c -o /tmp/c.o /tmp/c.cpp"],
    # a second large program (about 300 MB read cold, 110 MB needed): rustc building and
    # linking a small program; librustc_driver, libLLVM and the std rlibs, mapped
    "rustc": ["/bin/sh", "-c",
              "printf 'fn main() { let v: Vec<String> = std::env::args().collect(); "
              "println!(\"{:?}\", v); }\\n' >/tmp/r.rs && rustc -o /tmp/r /tmp/r.rs"],
    # a browser's start (about 135 MB read cold), as users start it: Debian's /usr/bin/chromium
    # is a shell script that runs uname, grep, find, expr and findmnt, then execs the browser
    # (/usr/lib/chromium/chromium: its zygote, renderer and utility processes). Headless, the
    # profile on the testbed's /tmp (kept across runs, as a user's is).
    "chromium": ["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                 "--user-data-dir=/tmp/chromium-profile", "--dump-dom", "file:///bench/page.html"],
}


# What one would measure once per device (or read off its datasheet) and give ura-replay as its
# cost model: the testbed's throttle per profile. The loop device's sysfs rotational flag is
# inherited from the VM's disk and says "rotational" for every profile.
PROFILE_COSTS = {
    "hdd": "--rotational yes --request-cost 0.0067 --bandwidth 120M",
    "emmc": "--rotational no --request-cost 0.00067 --bandwidth 150M",
    "sdcard": "--rotational no --request-cost 0.0005 --bandwidth 20M",
    "ssd": "--rotational no --request-cost 0.00005 --bandwidth 500M",
}


# The testbed's throttle per profile (bench/testbed/slowrun): reads per second, bytes per second.
PROFILE_BUDGETS = {"hdd": (150, 120e6), "emmc": (1500, 150e6), "sdcard": (2000, 20e6),
                   "ssd": (20000, 500e6)}


def testbed_dir():
    for d in (os.environ.get("TESTBED"), os.path.join(TOP, "bench", "testbed")):
        if d and os.path.exists(os.path.join(d, "slowrun")):
            return os.path.abspath(d)
    sys.exit("e2e: no testbed (set TESTBED, or run bench/testbed/up.sh)")


def state(work):
    env = {}
    with open(os.path.join(work, "state.env")) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            env[k] = v
    return env


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


class Bench:
    def __init__(self, args):
        self.args = args
        self.tb = testbed_dir()
        self.work = os.environ.get("TESTBED_WORK", "/var/tmp/ura-testbed")
        self.st = state(self.work)
        self.mnt = self.st["MNT"]
        self.slowrun = os.path.join(self.tb, "slowrun")
        self.trace = os.path.join(TOP, "build", "ura-trace")
        self.replay = os.path.join(TOP, "build", "ura-replay")
        self.naive = os.path.join(TOP, "build", "bench", "naive-replay")
        self.aosp = os.path.join(TOP, "build", "bench", "aosp-replay")
        self.packs = os.path.join(args.workdir, "packs")
        self.alt_pack = None    # --alt-trace --trace-per-profile: the profile's alt pack
        os.makedirs(self.packs, exist_ok=True)

    def slow(self, profile, cmd, chroot=False):
        return [self.slowrun, profile] + (["--chroot"] if chroot else []) + ["--"] + cmd

    def trace_pack(self, name, suffix, opts, warm=False, trace=None, profile=None):
        """Trace one cold (or warm) run of the workload into a pack, once: unthrottled, or
        under @profile with the tracer in the program's cgroup (as on such a device, where
        ura-trace measures the device as throttled and picks its read_ahead_kb by it)."""
        pack = os.path.join(self.packs, name + suffix + ".pack")
        if not os.path.exists(pack) or self.args.retrace:
            self.settle()
            drop_caches()
            if warm:
                sh(self.slow("none", WORKLOADS[name], chroot=True), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
            if profile:
                sh(self.slow(profile, [trace or self.trace, "-q", "--pack", pack, "--root",
                                       self.mnt] + opts + ["--", "chroot", self.mnt] +
                             WORKLOADS[name]), stdout=subprocess.DEVNULL)
            else:
                sh([trace or self.trace, "-q", "--pack", pack, "--root", self.mnt] + opts +
                   ["--"] + self.slow("none", WORKLOADS[name], chroot=True),
                   stdout=subprocess.DEVNULL)
        return pack

    def prepare(self, name):
        """The packs: the default one (ura-trace's defaults, --trace-args adds options),
        --cold, the default one of a warm start, and the reference one traced at
        read_ahead_kb 4 (demand). naive, aosp and whole use the default pack."""
        pack = self.trace_pack(name, "", shlex.split(self.args.trace_args))
        plain = pack
        self.trace_pack(name, "-cold", ["--cold"])
        if self.args.alt_trace:
            self.trace_pack(name, "-alt", shlex.split(self.args.trace_args),
                            trace=self.args.alt_trace)
        self.trace_pack(name, "-warm", [], warm=True)
        demand = self.trace_pack(name, "-demand", ["--read-ahead-kb", "4", "--events", "add"])
        dump = json.loads(subprocess.run([os.path.join(TOP, "build", "ura-dump"), "--json", pack],
                                         check=True, capture_output=True).stdout)
        pdump = json.loads(subprocess.run([os.path.join(TOP, "build", "ura-dump"), "--json", plain],
                                          check=True, capture_output=True).stdout)
        files = os.path.join(self.packs, name + ".files")
        with open(files, "w") as f:
            for x in pdump["files"]:
                f.write(self.mnt + x["path"] + "\n")
        totals = dict(dump["totals"])
        dd = json.loads(subprocess.run([os.path.join(TOP, "build", "ura-dump"), "--json", demand],
                                       check=True, capture_output=True).stdout)
        totals["true_demand_bytes"] = dd["totals"]["bytes"] + sum(
            m["length"] for m in self.testbed_metadata(dd))
        # what replay reads of ura's pack, cold, under each profile with its own model
        # (hole merging depends on it); the first replay under a profile measures it
        for profile in ("hdd", "ssd"):
            drop_caches()
            rep = json.loads(subprocess.run(
                self.slow(profile, [self.replay, "-q", "--wait", "--json", "--root", self.mnt] +
                          (shlex.split(PROFILE_COSTS[profile]) if self.args.profile_costs
                           else []) + shlex.split(self.args.replay_args) + [pack]),
                check=True, capture_output=True).stdout)
            totals[f"replayed_bytes_{profile}"] = rep["issued_bytes"]
            totals[f"replayed_vs_true_demand_{profile}"] = (rep["issued_bytes"] /
                                                            totals["true_demand_bytes"])
        print(f"{name}: true demand {totals['true_demand_bytes'] / 2**20:.1f} MiB, replayed "
              f"{totals['replayed_bytes_hdd'] / 2**20:.1f} MiB (hdd model, "
              f"{totals['replayed_vs_true_demand_hdd']:.2f}x), "
              f"{totals['replayed_bytes_ssd'] / 2**20:.1f} MiB (ssd model, "
              f"{totals['replayed_vs_true_demand_ssd']:.2f}x)", flush=True)
        return pack, files, totals

    def testbed_metadata(self, dump):
        """The metadata of a pack's dump on the testbed's device: the demand pack is traced
        with slowrun inside the traced command, so it also holds the host's own (the
        script, chroot), read from an unthrottled disk and no part of the start's demand."""
        return [m for m in dump.get("metadata", []) if m["device"] == self.st["MAJMIN"]]

    def limit(self, profile, name):
        """The least device time of the start's demanded data and metadata under the
        profile's model (the throttle's two budgets: the larger of bytes / bps and reads /
        IOPS), over every plan that reads the demand pack's ranges and merges the holes up
        to some size (swept), requests cut at the device's largest; and ura-replay's own
        plan of that pack by the model it measured, for comparison."""
        iops, bps = PROFILE_BUDGETS[profile]
        dump = json.loads(subprocess.run(
            [os.path.join(TOP, "build", "ura-dump"), "--json",
             os.path.join(self.packs, name + "-demand.pack")],
            check=True, capture_output=True).stdout)
        objs = [[(r["offset"], r["offset"] + r["length"]) for r in f["ranges"]]
                for f in dump["files"]]
        meta = {}
        for m in self.testbed_metadata(dump):
            meta.setdefault(m["device"], []).append((m["offset"], m["offset"] + m["length"]))
        objs += list(meta.values())
        objs = [sorted(o) for o in objs if o]
        maxreq = int(open("/sys/block/%s/queue/max_sectors_kb" %
                          os.path.basename(self.st["LOOP"])).read()) * 1024
        best = None
        for hole in range(0, 1024 * 1024 + 1, 4096):
            nbytes = reads = 0
            for o in objs:
                start, end = o[0]
                for a, b in o[1:] + [(None, None)]:
                    if a is not None and a - end <= hole:
                        end = max(end, b)
                        continue
                    nbytes += end - start
                    reads += -(-(end - start) // maxreq)
                    if a is not None:
                        start, end = a, b
            t = max(nbytes / bps, reads / iops)
            if best is None or t < best["seconds"]:
                best = {"seconds": t, "bytes": nbytes, "requests": reads, "hole": hole}
        demand = os.path.join(self.packs, name + "-demand.pack")
        drop_caches()
        rep = json.loads(subprocess.run(
            self.slow(profile, [self.replay, "-q", "--dry-run", "--json", "--root", self.mnt,
                                demand]), check=True, capture_output=True).stdout)
        tb = [d for d in rep["devices"] if d["device"] == self.st["MAJMIN"]]
        best["ura_plan_seconds"] = sum(d["plan_seconds"] for d in tb)
        best["ura_plan_bytes"] = sum(d["bytes"] for d in tb)
        return best

    def ordered_limit(self, profile, name, warm):
        """The least time by order: a replay started with the program cannot deliver the
        k-th demanded range before the device has read it and every range needed before it,
        and the program, warm, reaches that range w_k after its start and then runs W - w_k
        more. So T >= max over k of D(k) + W - w_k (k = 0: W), where
          - the demand and its order: the demand pack's ranges (data and metadata), each at
            its first access in a default trace of a warm start (the program's own timeline,
            no I/O): the least first_access_ns of the warm pack's ranges and access events
            that overlap it; a range that trace did not see (metadata, read under a cached
            page) is placed by the demand trace's own order, at the warm time of the last
            seen range before it;
          - the warm trace's times scaled by W / its duration (tracing slows the run
            evenly, as far as its profile shows: the error of this estimate);
          - D(k): the least two-budget device time of the first k ranges, holes merged up to
            each of a few sizes (the smallest of them), requests cut at the device's largest.
        It is a bound on replays that start with the program; one that starts earlier (a
        head start) or a program whose warm timeline differs from its traced one can beat it."""
        iops, bps = PROFILE_BUDGETS[profile]
        dump = lambda p: json.loads(subprocess.run(  # noqa: E731
            [os.path.join(TOP, "build", "ura-dump"), "--json", p],
            check=True, capture_output=True).stdout)
        demand = dump(os.path.join(self.packs, name + "-demand.pack"))
        wp = dump(os.path.join(self.packs, name + "-warm.pack"))
        seen = {}
        for f in wp["files"]:
            lst = seen.setdefault(f["path"], [])
            for r in f["ranges"]:
                lst.append((r["offset"], r["offset"] + r["length"], r["first_access_ns"]))
        for a in wp.get("access", []):
            path = wp["files"][a["file"]]["path"]
            seen.setdefault(path, []).append((a["first"] * 4096, (a["last"] + 1) * 4096,
                                              a["time_ns"]))
        items = []      # (cold time, warm time or None, object key, start, end)
        for f in demand["files"]:
            for r in f["ranges"]:
                a, b = r["offset"], r["offset"] + r["length"]
                w = min((t for x, y, t in seen.get(f["path"], []) if x < b and a < y),
                        default=None)
                items.append((r["first_access_ns"], w, f["path"], a, b))
        for m in self.testbed_metadata(demand):
            items.append((m["first_access_ns"], None, "meta:" + m["device"], m["offset"],
                          m["offset"] + m["length"]))
        items.sort(key=lambda x: x[0])
        last = 0
        placed = []
        for c, w, key, a, b in items:
            if w is None:
                w = last
            last = max(last, w)
            placed.append((w, key, a, b))
        placed.sort(key=lambda x: x[0])
        scale = warm / (wp["trace"]["duration_ns"] / 1e9) if wp["trace"]["duration_ns"] else 1
        maxreq = int(open("/sys/block/%s/queue/max_sectors_kb" %
                          os.path.basename(self.st["LOOP"])).read()) * 1024
        holes = [0, 4096, 16384, 65536, 262144, 1048576]
        ext = [dict() for _ in holes]          # per hole: object -> sorted extents
        nbytes = [0] * len(holes)
        reqs = [0] * len(holes)
        worst = warm
        at = None
        for w, key, a, b in placed:
            for i, h in enumerate(holes):
                lst = ext[i].setdefault(key, [])
                j = bisect.bisect_left(lst, (a, a))
                lo, hi = j, j
                while lo > 0 and lst[lo - 1][1] + h >= a:
                    lo -= 1
                while hi < len(lst) and lst[hi][0] <= b + h:
                    hi += 1
                na, nb = a, b
                for x, y in lst[lo:hi]:
                    nbytes[i] -= y - x
                    reqs[i] -= -(-(y - x) // maxreq)
                    na, nb = min(na, x), max(nb, y)
                lst[lo:hi] = [(na, nb)]
                nbytes[i] += nb - na
                reqs[i] += -(-(nb - na) // maxreq)
            d = min(max(nbytes[i] / bps, reqs[i] / iops) for i in range(len(holes)))
            t = d + warm - w * scale / 1e9
            if t > worst:
                worst, at = t, {"device_s": d, "access_s": w * scale / 1e9}
        return {"seconds": worst, "binding": at, "ranges": len(placed), "scale": scale}

    def dev_reads(self):
        """Reads completed and bytes read by the testbed's device so far."""
        f = open("/sys/block/%s/stat" % os.path.basename(self.st["LOOP"])).read().split()
        return int(f[0]), int(f[2]) * 512

    def timed(self, cmd):
        t = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.monotonic() - t

    def concurrent(self, profile, prefetch, prog, head=0.0):
        p = subprocess.Popen(self.slow(profile, prefetch), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if head:
            time.sleep(head)
        t = self.timed(self.slow(profile, prog, chroot=True))
        p.wait()
        return t

    def settle(self, quiet=0.3, most=60.0):
        """Wait until the device has read nothing for @quiet seconds: a replay returns
        before its reads are done (with no in-flight limit, possibly all of them), and
        reads that land after the next run's drop_caches would make that run warmer."""
        end = time.monotonic() + most
        last = self.dev_reads()
        since = time.monotonic()
        while time.monotonic() < end:
            time.sleep(0.05)
            now = self.dev_reads()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return

    def run_one(self, strategy, profile, name, pack, files):
        self.settle()
        r0 = self.dev_reads()
        res = self.run_one_timed(strategy, profile, name, pack, files)
        r1 = self.dev_reads()
        if strategy != "warm":
            res["reads"] = r1[0] - r0[0]
            res["read_bytes"] = r1[1] - r0[1]
        return res

    def run_one_timed(self, strategy, profile, name, pack, files):
        prog = WORKLOADS[name]
        costs = PROFILE_COSTS.get(profile, "") if self.args.profile_costs else ""
        if strategy.startswith("demand"):
            pack = os.path.join(self.packs, name + "-demand.pack")
            strategy = strategy.replace("demand", "ura")
        ura = ([self.replay, "-q", "--root", self.mnt] + shlex.split(costs) +
               shlex.split(self.args.replay_args) + [pack])
        naive = [self.naive, "--root", self.mnt, pack]
        aosp = [self.aosp, "--root", self.mnt, pack]
        whole = ["vmtouch", "-q", "-t", "-f"] + open(files).read().split("\n")[:-1]
        if strategy == "warm":
            self.timed(self.slow(profile, prog, chroot=True))
            return {"t": self.timed(self.slow(profile, prog, chroot=True))}
        drop_caches()
        if strategy == "cold":
            return {"t": self.timed(self.slow(profile, prog, chroot=True))}
        if strategy == "ura":
            return {"t": self.concurrent(profile, ura, prog)}
        if strategy == "ura-alt":
            alt = ([self.args.alt_replay or self.replay, "-q", "--root", self.mnt] +
                   shlex.split(costs) +
                   shlex.split(self.args.alt_replay_args) +
                   [(self.alt_pack or os.path.join(self.packs, name + "-alt.pack"))
                    if self.args.alt_trace else pack])
            return {"t": self.concurrent(profile, alt, prog)}
        if strategy in ("ura-cold", "ura-warm"):
            other = ura[:-1] + [os.path.join(self.packs, name + strategy[3:] + ".pack")]
            return {"t": self.concurrent(profile, other, prog)}
        if strategy == "aosp":
            return {"t": self.concurrent(profile, aosp, prog)}
        if strategy == "ura-lead":
            return {"t": self.concurrent(profile, ura, prog, self.args.head_start)}
        if strategy == "naive":
            return {"t": self.concurrent(profile, naive, prog)}
        if strategy == "whole":
            return {"t": self.concurrent(profile, whole, prog)}
        if strategy in ("ura-wait", "naive-wait"):
            pre = self.timed(self.slow(profile, (ura[:2] + ["--wait"] + ura[2:])
                                       if strategy == "ura-wait" else naive))
            t = self.timed(self.slow(profile, prog, chroot=True))
            return {"t": t, "prefetch": pre, "sum": pre + t}
        raise ValueError(strategy)


DAMON = "/sys/kernel/mm/damon/admin/kdamonds"


def damon_running():
    """The kdamonds that are on: DAMON reclaim pages out page cache it deems cold, and a
    region's age predates pages just read into it, so it can take replayed pages away
    before the program uses them."""
    on = []
    for k in sorted(os.listdir(DAMON)) if os.path.isdir(DAMON) else []:
        f = os.path.join(DAMON, k, "state")
        if os.path.exists(f) and open(f).read().strip() == "on":
            on.append(f)
    return on


def damon_set(states, value):
    for f in states:
        with open(f, "w") as fh:
            fh.write(value)


def summary(samples):
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "n": len(samples)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", default="hdd,emmc,sdcard,ssd")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--strategies",
                    default="cold,warm,ura,ura-cold,ura-warm,demand,naive,aosp")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--head-start", type=float, default=0.5)
    ap.add_argument("--workdir", default="/var/tmp/ura-bench")
    ap.add_argument("--retrace", action="store_true")
    ap.add_argument("--replay-args", default="", help="extra ura-replay options")
    ap.add_argument("--alt-replay-args", default="",
                    help="ura-replay options of the ura-alt strategy")
    ap.add_argument("--alt-replay", help="the ura-replay binary of ura-alt (a before/after)")
    ap.add_argument("--trace-per-profile", action="store_true",
                    help="trace ura's default pack under each profile, the tracer in the "
                         "program's cgroup (as a user of that device would)")
    ap.add_argument("--alt-trace",
                    help="the ura-trace binary that traces ura-alt's pack (else the default pack)")
    ap.add_argument("--trace-args", default="",
                    help="ura-trace options for ura's pack (default: none, the defaults)")
    ap.add_argument("--profile-costs", action="store_true",
                    help="give ura-replay each profile's costs by hand (default: its own "
                         "measured model)")
    ap.add_argument("--pause-damon", action="store_true",
                    help="turn running kdamonds (DAMON reclaim) off during the runs, then on")
    ap.add_argument("--out")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("e2e: needs root")
    b = Bench(args)
    damon = damon_running()
    results = {"machine": os.uname().release, "date": time.strftime("%Y-%m-%d"),
               "args": vars(args), "workloads": {},
               "damon": ("paused" if args.pause_damon else "on") if damon else "none"}
    if damon and args.pause_damon:
        damon_set(damon, "off")
    # a kill must turn DAMON back on too (the finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        run_all(args, b, results)
    finally:
        if damon and args.pause_damon:
            damon_set(damon, "on")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


def run_all(args, b, results):
    strategies = args.strategies.split(",")
    for name in args.workloads.split(","):
        pack, files, totals = b.prepare(name)
        results["workloads"][name] = {"pack_totals": totals, "profiles": {}}
        for profile in args.profiles.split(","):
            # ura-replay measures a device once and keeps the model (per device and I/O
            # limits): this first replay is that measurement, as a first boot would do it
            drop_caches()
            subprocess.run(b.slow(profile, [b.replay, "-q", "--wait", "--root", b.mnt, pack]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            limit = b.limit(profile, name)
            upack = pack
            if args.trace_per_profile:
                # the default pack as a user of that device makes it
                upack = b.trace_pack(name, "-" + profile, shlex.split(args.trace_args),
                                     profile=profile)
                if args.alt_trace:
                    b.alt_pack = b.trace_pack(name, "-alt-" + profile,
                                              shlex.split(args.trace_args),
                                              trace=args.alt_trace, profile=profile)
            samples = {s: [] for s in strategies}
            extra = {s: {"prefetch": [], "sum": [], "reads": [], "read_bytes": []}
                     for s in strategies}
            for run in range(args.runs):
                for s in strategies:            # interleaved, run by run
                    r = b.run_one(s, profile, name, upack, files)
                    samples[s].append(r["t"])
                    for k in ("prefetch", "sum", "reads", "read_bytes"):
                        if k in r:
                            extra[s][k].append(r[k])
            res = {s: dict(summary(v), samples=v) for s, v in samples.items()}
            for s in strategies:
                for k in ("prefetch", "sum", "reads", "read_bytes"):
                    if extra[s][k]:
                        res[s][k] = summary(extra[s][k])["median"]
            cold = res.get("cold", {}).get("median")
            warm = res.get("warm", {}).get("median")
            if warm:
                limit["ordered"] = b.ordered_limit(profile, name, warm)
            if cold and warm and cold > warm:
                floor = max(warm, limit["seconds"], limit.get("ordered", {}).get("seconds", 0))
                for s in res:
                    res[s]["gap_closed"] = (cold - res[s]["median"]) / (cold - warm)
                    if cold > floor:
                        res[s]["achievable_closed"] = (cold - res[s]["median"]) / (cold - floor)
            res["limit"] = limit
            results["workloads"][name]["profiles"][profile] = res
            print(f"{name} {profile}: limit {limit['seconds']:.2f}s "
                  f"({limit['bytes'] / 2**20:.0f} MiB), ordered "
                  f"{limit.get('ordered', {}).get('seconds', 0):.2f}s; " + ", ".join(
                f"{s} {v['median']:.2f}s" + (f" ({v['gap_closed']*100:.0f}%)" if "gap_closed" in v
                                             else "") +
                (f" sum {v['sum']:.2f}s" if "sum" in v else "") +
                (f" [{v['reads']:.0f} reads, {v['read_bytes'] / 2**20:.0f} MiB]"
                 if "reads" in v else "") for s, v in res.items() if s != "limit"),
                flush=True)


if __name__ == "__main__":
    main()
