#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the README's results table from a bench/e2e.py --out JSON file.

  bench/e2e-table.py results.json
"""
import json
import sys

COLUMNS = [("cold", "cold"), ("warm", "warm"), ("ura", "ura concurrent (--cold pack)"),
           ("ura-plain", "ura concurrent (plain pack)"), ("ura-wait", "ura --wait, then run (sum)"),
           ("demand", "demand-only ref. concurrent"), ("naive", "naive concurrent"),
           ("naive-wait", "naive first, then run (sum)"), ("whole", "whole files")]


def cell(r, s):
    v = r.get(s)
    if not v:
        return None
    t = f"{v['median']:.2f} s"
    if "gap_closed" in v and s not in ("cold", "warm"):
        t += f" ({v['gap_closed'] * 100:.0f}%)"
    if s in ("ura", "ura-plain"):
        t += f" [{v['min']:.2f}–{v['max']:.2f}]"
    if "sum" in v:
        t = f"{v['median']:.2f} s ({v['sum']:.2f} s)"
    if "reads" in v and s not in ("warm", "ura-wait", "naive-wait"):
        t += f"; {v['reads']:.0f} reads, {v['read_bytes'] / 2**20:.0f} MiB"
    return t


def main():
    d = json.load(open(sys.argv[1]))
    used = [c for c in COLUMNS
            if any(c[0] in r for w in d["workloads"].values() for r in w["profiles"].values())]
    print("| program | profile | " + " | ".join(h for _, h in used) + " |")
    print("|---" * (len(used) + 2) + "|")
    for name, w in d["workloads"].items():
        for profile, r in w["profiles"].items():
            print(f"| {name} | {profile} | " +
                  " | ".join(cell(r, s) or "-" for s, _ in used) + " |")
    print()
    for name, w in d["workloads"].items():
        t = w["pack_totals"]
        print(f"- {name}: true demand {t['true_demand_bytes'] / 2**20:.1f} MiB; ura-replay reads "
              f"{t['replayed_bytes_hdd'] / 2**20:.1f} MiB under hdd "
              f"({t['replayed_vs_true_demand_hdd']:.2f}x), "
              f"{t['replayed_bytes_ssd'] / 2**20:.1f} MiB under ssd "
              f"({t['replayed_vs_true_demand_ssd']:.2f}x)")


if __name__ == "__main__":
    main()
