#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the README's results table from a bench/e2e.py --out JSON file.

  bench/e2e-table.py results.json
"""
import json
import sys


def cell(r, s, with_range=False):
    v = r.get(s)
    if not v:
        return "-"
    t = f"{v['median']:.2f} s"
    if "gap_closed" in v and s not in ("cold", "warm"):
        t += f" ({v['gap_closed'] * 100:.0f}%)"
    if with_range:
        t += f" [{v['min']:.2f}–{v['max']:.2f}]"
    if "sum" in v:
        t = f"{v['median']:.2f} s ({v['sum']:.2f} s)"
    return t


def main():
    d = json.load(open(sys.argv[1]))
    print("| program | profile | cold | warm | ura concurrent | ura --wait, then run (sum) | "
          "demand-only ref. concurrent | naive concurrent | naive first, then run (sum) | "
          "whole files |")
    print("|---" * 10 + "|")
    for name, w in d["workloads"].items():
        for profile, r in w["profiles"].items():
            print(f"| {name} | {profile} | {cell(r, 'cold')} | {cell(r, 'warm')} | "
                  f"{cell(r, 'ura', True)} | {cell(r, 'ura-wait')} | {cell(r, 'demand')} | "
                  f"{cell(r, 'naive')} | {cell(r, 'naive-wait')} | {cell(r, 'whole')} |")
    print()
    for name, w in d["workloads"].items():
        t = w["pack_totals"]
        print(f"- {name}: true demand {t['true_demand_bytes'] / 2**20:.1f} MiB; ura-replay reads "
              f"{t['replayed_bytes_hdd'] / 2**20:.1f} MiB with the hdd cost model "
              f"({t['replayed_vs_true_demand_hdd']:.2f}x), "
              f"{t['replayed_bytes_ssd'] / 2**20:.1f} MiB with the ssd one "
              f"({t['replayed_vs_true_demand_ssd']:.2f}x)")


if __name__ == "__main__":
    main()
