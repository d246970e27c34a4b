#!/usr/bin/env python3
"""Prints hhzs.md's settled-tree table from the checked-in JSONs.

Columns: HHZS / B3 as the study runs exp1 (the claims, from reproduce-hhzs.json at 1/128 and
reproduce-hhzs-large.json at 1/64), and the same seed-1 cells run with
`wait_for_compactions_between_phases = true` (docs/results/cells/hhzs-settled/, each the
`zonedb run FILE --json` output of the TOML beside it).
"""
import json
import pathlib

RESULTS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "results"
SETTLED = RESULTS / "cells" / "hhzs-settled"


def claims(path):
    out = {}
    for c in json.loads(path.read_text())["claims"]:
        if c["claim"].endswith("HHZS / B3"):
            out[c["claim"].split()[1][-1]] = c["ours"]
    return out


def run_ops(scale, scheme, workload):
    doc = json.loads((SETTLED / f"s{scale}-{scheme}-{workload}.json").read_text())
    phases = doc["configurations"][0]["benchmarks"]
    return phases[-1]["ops_per_s"]


def main():
    study = {"128": claims(RESULTS / "reproduce-hhzs.json"),
             "64": claims(RESULTS / "reproduce-hhzs-large.json")}
    print("| workload | 1/128, as the study runs it | 1/128 settled: B3, HHZS ops/s | HHZS / B3 "
          "| 1/64, as the study runs it | 1/64 settled: B3, HHZS ops/s | HHZS / B3 |")
    print("|---|---|---|---|---|---|---|")
    for w in "ABCDEF":
        row = [f"YCSB-{w}"]
        for scale in ("128", "64"):
            o = study[scale][w]
            row.append(f"{o['mean']:.2f}x ± {o['ci95']:.2f} (n = {o['n']})")
            b, h = run_ops(scale, "B3", w), run_ops(scale, "HHZS", w)
            row += [f"{b:.1f}, {h:.1f}", f"{h / b:.2f}x"]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
