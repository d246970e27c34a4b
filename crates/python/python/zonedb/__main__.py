"""``python -m zonedb sweep SWEEP.toml [--ray ADDRESS] [--out DIR] [--jobs N] [--json]``:
what ``zonedb sweep --ray`` runs; ``python -m zonedb cells DIR --ray ADDRESS``: what
``zonedb reproduce NAME --ray ADDRESS`` runs (the study's pending cells in ``DIR``)."""

import argparse
import json
import sys

from ._sweep import sweep


def _bool(s):
    return s.lower() in ("1", "true", "yes")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m zonedb")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sweep", help="run a sweep file locally or on Ray")
    s.add_argument("sweep")
    s.add_argument("--out")
    s.add_argument("--jobs", type=int, default=2)
    s.add_argument("--ray", help="Ray address (127.0.0.1:6379, ray://..., auto)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--elide-values", type=_bool, default=True)
    s.add_argument("--parallel-compute", type=_bool, default=True)
    c = sub.add_parser("cells", help="run a study's pending cells on Ray")
    c.add_argument("dir", help="the study's cells folder (REPORT/cells)")
    c.add_argument("--ray", required=True, help="Ray address (127.0.0.1:6379, ray://..., auto)")
    c.add_argument("--max-retries", type=int, default=3)
    a = p.parse_args(argv)
    if a.command == "cells":
        from ._cells import run_on_ray

        failed = run_on_ray(a.dir, a.ray, max_retries=a.max_retries)
        for stem, why in failed:
            print(f"cell {stem}: {why}", file=sys.stderr)
        return 1 if failed else 0
    r = sweep(
        a.sweep,
        out=a.out,
        jobs=a.jobs,
        ray=a.ray,
        elide_values=a.elide_values,
        parallel_compute=a.parallel_compute,
    )
    if a.json:
        print(json.dumps(r.summary, indent=2))
    else:
        print(r.markdown, end="")
        print(f"\nresults: {r.out} (runs.parquet, summary.md, summary.json, summary.csv)")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
