#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the results tables from a bench/e2e.py --out JSON file.

  bench/e2e-table.py results.json [--limit PROFILE-LIMITS.json]

Each cell: the median time, the share of the achievable gap closed,
(cold - t) / (cold - max(warm, limit, ordered limit)), and in brackets min-max;
then what the device read (program and prefetcher together). The limit is the least
device time of the start's demanded data and metadata under the profile's two budgets
(bench/e2e.py, Bench.limit); the ordered limit, where the run has one, that of a
replay started with the program (Bench.ordered_limit). --limit takes the limits from another run of the same
packs (e2e.py's "limit" of each profile) when this one has none.
"""
import argparse
import json

COLUMNS = [("cold", "cold"), ("warm", "warm"),
           ("ura", "ura, default pack"), ("ura-cold", "ura, --cold pack"),
           ("ura-warm", "ura, default pack of a warm start"),
           ("demand", "demand-only reference"), ("naive", "naive (ureadahead)"),
           ("aosp", "aosp (Android's)"), ("ura-alt", "ura-alt (A/B)"), ("ura-wait", "ura --wait, then run (sum)"),
           ("naive-wait", "naive first, then run (sum)"), ("whole", "whole files")]


def achievable(r, s, limit):
    cold, warm = r["cold"]["median"], r["warm"]["median"]
    floor = (max(warm, limit["seconds"], limit.get("ordered", {}).get("seconds", 0))
             if limit else warm)
    if cold <= floor:
        return None
    return (cold - r[s]["median"]) / (cold - floor)


def cell(r, s, limit):
    v = r.get(s)
    if not v:
        return None
    t = f"{v['median']:.2f} s"
    if s not in ("cold", "warm") and "cold" in r and "warm" in r:
        a = achievable(r, s, limit)
        if a is not None:
            t += f" **{a * 100:.0f}%**"
        t += f" [{v['min']:.2f}–{v['max']:.2f}]"
    if "sum" in v:
        t = f"{v['median']:.2f} s (sum {v['sum']:.2f} s)"
    if "read_bytes" in v and s not in ("warm", "ura-wait", "naive-wait"):
        t += f"; {v['read_bytes'] / 2**20:.0f} MiB"
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--limit")
    args = ap.parse_args()
    d = json.load(open(args.results))
    other = json.load(open(args.limit)) if args.limit else None
    used = [c for c in COLUMNS
            if any(c[0] in r for w in d["workloads"].values() for r in w["profiles"].values())]
    print("| program | profile | limit | " + " | ".join(h for _, h in used) + " |")
    print("|---" * (len(used) + 3) + "|")
    for name, w in d["workloads"].items():
        for profile, r in w["profiles"].items():
            limit = r.get("limit")
            if not limit and other:
                limit = other["workloads"].get(name, {}).get("profiles", {}).get(
                    profile, {}).get("limit")
            lim = (f"{limit['seconds']:.2f} s, {limit['bytes'] / 2**20:.0f} MiB"
                   if limit else "-")
            if limit and "ordered" in limit:
                lim += f"; ordered {limit['ordered']['seconds']:.2f} s"
            print(f"| {name} | {profile} | {lim} | " +
                  " | ".join(cell(r, s, limit) or "-" for s, _ in used) + " |")
    print()
    for name, w in d["workloads"].items():
        t = w["pack_totals"]
        print(f"- {name}: true demand {t['true_demand_bytes'] / 2**20:.1f} MiB (data and "
              f"metadata); ura-replay reads {t['replayed_bytes_hdd'] / 2**20:.1f} MiB of the "
              f"default pack under hdd, {t['replayed_bytes_ssd'] / 2**20:.1f} MiB under ssd")


if __name__ == "__main__":
    main()
