#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Prefetch on exec end to end, deployed as a user deploys it, on the slow-disk testbed.

The two daemons run as their units in systemd/ start them (ExecStart, Nice and I/O class
read from the unit files; default options; the packs' directory moved to WORKDIR):

  learn   ura-trace-watch.service's command runs while the program starts three times,
          as --learn-starts says (default cold,warm,warm: caches dropped before the first
          only, as a daemon mostly sees starts), then is stopped; or, with --learn hand,
          three `ura-trace --pack` runs merged with `ura-trace --merge` into the pack named
          by the program's key (bench/../tests/integration/helpers/packname): what to do
          while the learning daemon does not name packs by that key yet. Before it,
          `ura-trace --pack` (default options) of one cold start: the one-shot pack
  measure for each device profile, RUNS rounds of, interleaved:
            cold   caches dropped, the program alone
            watch  ura-replay-watch.service's command running (started, caches dropped,
                   the program started, the daemon stopped: it replays on the exec)
            hand   caches dropped, `ura-replay PACK` (default options) started with the
                   program, the same learned pack
            oneshot  the same with the one-shot pack
            warm   the program run once, then timed
          medians, min-max, the share of the cold->warm gap closed, watch's share of
          what hand closes and hand's of what oneshot closes (the targets: 95% or more)

Everything the program and the prefetchers read from the testbed's device goes through
slowrun (one cgroup, one device budget); the daemons themselves are started through it too.

Run as root with the testbed up; --lock FILE holds that lock (flock) around the learning
and around each batch of interleaved runs:
  bench/watch-e2e.py --lock /tmp/ura-machine.lock --profiles emmc,hdd --runs 5 \\
      --out bench/results/watch-e2e.json
"""
import argparse
import contextlib
import fcntl
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True     # no bench/__pycache__ from the import below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402  (the testbed's helpers and workloads)

TOP = e2e.TOP
BUILD = os.path.join(TOP, "build")
HELPERS = os.path.join(BUILD, "tests", "integration", "helpers")

WORKLOADS = {
    # a Python program as users start one, a "#!" script (the daemon learns no interpreter
    # given no script, as bench/e2e.py's "python3 -c" is): pydoc, which imports inspect,
    # pkgutil, email and more, on the json module
    "python": ["/usr/bin/pydoc3", "json"],
    "gcc-asan": e2e.WORKLOADS["gcc-asan"],
    # not in bench/e2e.py: a perl script ("#!/usr/bin/perl") loading Module::CoreList (1 MB)
    "corelist": ["/usr/bin/corelist", "-a", "Data::Dumper"],
}
for big in ("clang", "rustc", "chromium"):
    if big in e2e.WORKLOADS:
        WORKLOADS[big] = e2e.WORKLOADS[big]
# The program whose pack is learned and replayed, where the command is a shell's: the shell
# given a command is not learned, the program it starts is, at its exec.
PROGRAM = {"gcc-asan": "/usr/bin/gcc", "clang": "/usr/bin/clang++", "rustc": "/usr/bin/rustc"}
# The one-shot pack the learned one is held against traces what the learner learns: the
# program's own start, as `ura-trace --pack P -- PROGRAM ARGS` records it. The shell's command
# runs more than the program: gcc-asan then runs the binary it built (/tmp/h: libasan,
# libstdc++, a user's temporary file no daemon learns). Its inputs are made by one untraced
# run of the workload first. `--oneshot command` traces the whole command instead.
PROGRAM_ARGS = {
    "gcc-asan": ["/usr/bin/gcc", "-O2", "-fsanitize=address,undefined", "-o", "/tmp/h",
                 "/bench/hello.c"],
    "clang": ["/usr/bin/clang++", "-O0", "-c", "-o", "/tmp/c.o", "/tmp/c.cpp"],
    "rustc": ["/usr/bin/rustc", "-o", "/tmp/r", "/tmp/r.rs"],
}


def unit_command(unit, packs):
    """The unit's ExecStart with our build's binary and packs directory, under its Nice and
    I/O scheduling class."""
    cmd, nice, ioclass, ioprio = None, None, None, None
    with open(os.path.join(TOP, "systemd", unit)) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            if k == "ExecStart":
                cmd = shlex.split(v)
            elif k == "Nice":
                nice = v
            elif k == "IOSchedulingClass":
                ioclass = {"idle": "3", "best-effort": "2", "realtime": "1"}[v]
            elif k == "IOSchedulingPriority":
                ioprio = v
    cmd[0] = os.path.join(BUILD, os.path.basename(cmd[0]))
    cmd = [packs if a == "/var/lib/ura/programs" else a for a in cmd]
    pre = []
    if nice:
        pre += ["nice", "-n", nice]
    if ioclass:
        pre += ["ionice", "-c", ioclass] + (["-n", ioprio] if ioprio and ioclass != "3" else [])
    return pre + cmd


def realpath_in(root, path):
    """@path with its symlinks resolved as a process whose root is @root sees it."""
    todo, done, hops = path.strip("/").split("/"), [], 0
    while todo:
        c = todo.pop(0)
        if c in ("", "."):
            continue
        if c == "..":
            done = done[:-1]
            continue
        full = root + "/" + "/".join(done + [c])
        if os.path.islink(full) and hops < 40:
            hops += 1
            t = os.readlink(full)
            todo = [x for x in t.split("/")] + todo
            if t.startswith("/"):
                done = []
            continue
        done.append(c)
    return "/" + "/".join(done)


def key_path(mnt, argv0):
    """The program's path in the testbed's root, as both daemons key it: a "#!" script as
    exec'd, a program with its symlinks resolved (inside the root)."""
    with open(mnt + realpath_in(mnt, argv0), "rb") as f:
        if f.read(2) == b"#!":
            return os.path.normpath(argv0)
    return realpath_in(mnt, argv0)


class Bench:
    def __init__(self, args):
        self.args = args
        self.b = e2e.Bench(argparse.Namespace(workdir=args.workdir, retrace=False))
        self.mnt = self.b.mnt
        self.packs = os.path.join(args.workdir, "programs")
        os.makedirs(self.packs, mode=0o700, exist_ok=True)
        self.learn_cmd = unit_command("ura-trace-watch.service", self.packs)
        self.watch_cmd = unit_command("ura-replay-watch.service", self.packs)
        self.logs = os.path.join(args.workdir, "logs")
        os.makedirs(self.logs, exist_ok=True)

    def slow(self, profile, cmd, chroot=False):
        return self.b.slow(profile, cmd, chroot)

    def pack_of(self, name):
        path = key_path(self.mnt, PROGRAM.get(name, WORKLOADS[name][0]))
        out = subprocess.run([os.path.join(HELPERS, "packname"), self.mnt, path], check=True,
                             capture_output=True, text=True).stdout.strip()
        return path, os.path.join(self.packs, out)

    def oneshot_of(self, name):
        return os.path.join(self.args.workdir, f"{name}-oneshot.pack")

    def learn(self, name, profile):
        """The one-shot pack of a cold start, then the learned pack; returns its path."""
        path, pack = self.pack_of(name)
        oneshot = self.oneshot_of(name)
        if os.path.exists(pack) and os.path.exists(oneshot) and not self.args.relearn:
            return path, pack
        for f in (pack, oneshot):
            if os.path.exists(f):
                os.unlink(f)
        prog = self.slow(profile, WORKLOADS[name], chroot=True)
        traced = WORKLOADS[name]
        if self.args.oneshot == "program" and name in PROGRAM_ARGS:
            subprocess.run(prog, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            traced = PROGRAM_ARGS[name]
        e2e.drop_caches()
        # the tracer in the program's cgroup, as the user's shell is: its device model, its
        # read_ahead_kb; files named as the host sees them, as the daemon names them
        subprocess.run(self.slow(profile, [os.path.join(BUILD, "ura-trace"), "-q", "--pack",
                                           oneshot, "--", "chroot", self.mnt] + traced),
                       check=True, stdout=subprocess.DEVNULL)
        if self.args.learn == "daemon":
            log = open(os.path.join(self.logs, f"learn-{name}.log"), "w")
            d = subprocess.Popen(self.learn_cmd, stdout=log, stderr=subprocess.STDOUT)
            time.sleep(2)
            for start in self.args.learn_starts.split(","):
                if start == "cold":
                    e2e.drop_caches()
                subprocess.run(prog, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(self.args.window + 3)     # its window closes, the run is merged
            d.send_signal(signal.SIGTERM)
            d.wait(60)
        else:
            runs = []
            for i in range(3):
                run = os.path.join(self.args.workdir, f"{name}-run{i}.pack")
                e2e.drop_caches()
                subprocess.run([os.path.join(BUILD, "ura-trace"), "-q", "--pack", run, "--"] +
                               prog, check=True, stdout=subprocess.DEVNULL)
                runs.append(run)
            subprocess.run([os.path.join(BUILD, "ura-trace"), "-q", "--merge", "--pack", pack] +
                           runs, check=True)
        if not os.path.exists(pack):
            sys.exit(f"watch-e2e: nothing learned for {name}: no '{pack}' "
                     f"(packs: {sorted(os.listdir(self.packs))})")
        return path, pack

    def timed(self, cmd):
        t = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.monotonic() - t

    def run_watch(self, profile, prog, log):
        """The replay daemon started as its unit starts it, then the program, cold."""
        run = log + ".run"
        with open(run, "w") as lf:
            d = subprocess.Popen(self.slow(profile, self.watch_cmd), stdout=lf, stderr=lf)
            for _ in range(200):
                if "watching execs" in open(run).read():
                    break
                time.sleep(0.05)
            e2e.drop_caches()
            t = self.timed(prog)
            d.send_signal(signal.SIGTERM)
            d.wait(30)
        with open(log, "a") as f:
            f.write(open(run).read())
        return t

    def run_one(self, strategy, profile, name, pack, log):
        prog = self.slow(profile, WORKLOADS[name], chroot=True)
        if strategy == "warm":
            self.timed(prog)
            return self.timed(prog)
        if strategy == "watch":
            return self.run_watch(profile, prog, log)
        e2e.drop_caches()
        if strategy == "cold":
            return self.timed(prog)
        if strategy in ("hand", "oneshot"):
            which = pack if strategy == "hand" else self.oneshot_of(name)
            p = subprocess.Popen(self.slow(profile, [os.path.join(BUILD, "ura-replay"), "-q",
                                                     which]),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t = self.timed(prog)
            p.wait()
            return t
        raise ValueError(strategy)


@contextlib.contextmanager
def locked(path):
    if not path:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def summary(v):
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v),
            "samples": v}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", default="emmc,hdd")
    ap.add_argument("--workloads", default="python,gcc-asan,corelist")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--learn", choices=("daemon", "hand"), default="daemon")
    ap.add_argument("--learn-profile", default="emmc", help="the device profile learned on")
    ap.add_argument("--learn-starts", default="cold,warm,warm",
                    help="the starts the daemon learns from: cold (caches dropped) or warm")
    ap.add_argument("--window", type=float, default=10, help="the learning unit's --window")
    ap.add_argument("--relearn", action="store_true", help="learn again though a pack exists")
    ap.add_argument("--oneshot", choices=("program", "command"), default="program",
                    help="the one-shot pack traces the learned program's own start (default), "
                         "or the workload's whole shell command")
    ap.add_argument("--workdir", default="/var/tmp/ura-watch-bench")
    ap.add_argument("--lock", help="hold this flock around the learning and each batch")
    ap.add_argument("--pause-damon", action="store_true",
                    help="turn running kdamonds (DAMON reclaim) off during the runs, then on: "
                         "they page out a warm start's files between runs")
    ap.add_argument("--out")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("watch-e2e: needs root")
    for f in ("ura-trace", "ura-replay", "tests/integration/helpers/packname"):
        if not os.access(os.path.join(BUILD, f), os.X_OK):
            sys.exit(f"watch-e2e: build/{f} is missing (make all test-helpers)")
    b = Bench(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    damon = e2e.damon_running()
    results = {"machine": os.uname().release, "cpus": os.cpu_count(),
               "date": time.strftime("%Y-%m-%d"), "args": vars(args),
               "learn_unit": b.learn_cmd, "watch_unit": b.watch_cmd,
               "damon": ("paused" if args.pause_damon else "on") if damon else "none",
               "workloads": {}}
    if damon and args.pause_damon:
        e2e.damon_set(damon, "off")
    try:
        run_all(args, b, results)
    finally:
        if damon and args.pause_damon:
            e2e.damon_set(damon, "on")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


def run_all(args, b, results):
    """Each workload learned, then measured on each profile, into @results."""
    strategies = ["cold", "watch", "hand", "oneshot", "warm"]
    for name in args.workloads.split(","):
        with locked(args.lock):
            path, pack = b.learn(name, args.learn_profile)
        print(f"{name}: key '{path}' in '{b.mnt}', pack '{pack}'", flush=True)
        results["workloads"][name] = {"key": path, "pack": pack, "profiles": {}}
        for profile in args.profiles.split(","):
            log = os.path.join(b.logs, f"watch-{name}-{profile}.log")
            open(log, "w").close()
            samples = {s: [] for s in strategies}
            with locked(args.lock):
                # the device model, measured once per device and limits, as a first replay does
                e2e.drop_caches()
                subprocess.run(b.slow(profile, [os.path.join(BUILD, "ura-replay"), "-q", pack]),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for _ in range(args.runs):
                    for s in strategies:
                        samples[s].append(b.run_one(s, profile, name, pack, log))
            res = {s: summary(v) for s, v in samples.items()}
            cold, warm = res["cold"]["median"], res["warm"]["median"]
            for s in res:
                res[s]["gap_closed"] = (cold - res[s]["median"]) / (cold - warm) \
                    if cold > warm else None
            hand = res["hand"]["gap_closed"]
            res["watch_of_hand"] = res["watch"]["gap_closed"] / hand if hand else None
            one = res["oneshot"]["gap_closed"]
            res["hand_of_oneshot"] = hand / one if hand is not None and one else None
            lines = open(log).read().splitlines()
            res["watch_log"] = [line for line in lines if "started" in line][:40]
            results["workloads"][name]["profiles"][profile] = res
            print(f"{name} {profile}: " + ", ".join(
                f"{s} {res[s]['median']:.2f} s [{res[s]['min']:.2f}-{res[s]['max']:.2f}]" +
                (f" ({res[s]['gap_closed'] * 100:.0f}%)" if res[s]["gap_closed"] is not None
                 else "") for s in strategies) +
                (f"; watch/hand {res['watch_of_hand'] * 100:.0f}%"
                 if res["watch_of_hand"] is not None else "") +
                (f"; hand/oneshot {res['hand_of_oneshot'] * 100:.0f}%"
                 if res["hand_of_oneshot"] is not None else ""), flush=True)


if __name__ == "__main__":
    main()
