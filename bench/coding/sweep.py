"""The gate's constants swept on the bench's **dev** split (never the held-out one):
per-prompt figures alone, in-process (bench/coding/run.py's ``per_prompt``).

    PYTHONPATH=$PWD python bench/coding/sweep.py --plain 0.15,0.5,1 --most 0.5,1 --margin 0,0.05
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.coding import run as R
from lean_memory import digest as dg


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def main() -> int:
    ap = argparse.ArgumentParser()
    default = R.HERE / "data" if (R.HERE / "data" / "prompts.jsonl").exists() else R.HERE / "mini"
    ap.add_argument("--data", type=Path, default=default)
    ap.add_argument("--plain", type=floats, default=[dg.UNKNOWN_PLAIN])
    ap.add_argument("--most", type=floats, default=[dg.UNKNOWN_MOST])
    ap.add_argument("--quantile", type=floats, default=[dg.BAR_QUANTILE])
    ap.add_argument("--margin", type=floats, default=[dg.BAR_MARGIN])
    ap.add_argument("--cap", type=floats, default=[dg.BAR_CAP])
    ap.add_argument("--split", default="dev")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lm-sweep-"))
    os.environ.update({"XDG_DATA_HOME": str(work / "data"),
                       "LEAN_MEMORY_GLOBAL": str(work / "global")})
    projects, prompts, _ = R.load_data(args.data)
    R.use_loader(args.data)
    prompts = {k: p for k, p in prompts.items() if p["split"] == args.split}
    built = {name: R.Built(work / name, sorted(projects) if name == "pooled" else [name],
                           projects) for name in ["pooled", *sorted(projects)]}
    print("plain most quantile margin cap | scope: ans recall / ans tokens / unrel tokens / "
          "unrel empty / case same / typo drop")
    for plain, most, q, m, cap in itertools.product(args.plain, args.most, args.quantile,
                                                    args.margin, args.cap):
        dg.UNKNOWN_PLAIN, dg.UNKNOWN_MOST = plain, most
        dg.BAR_QUANTILE, dg.BAR_MARGIN, dg.BAR_CAP = q, m, cap
        cells = []
        for scope in ("project", "pooled"):
            rows = []
            for p in prompts.values():
                b = built["pooled" if scope == "pooled" else p["project"]]
                rows.append({**R.per_prompt(b, p, 1200, ""), "scope": scope})
            by = {r["id"]: r for r in rows}
            ans = [r for r in rows if r["kind"] in ("answerable", "generic") and r["recall"]
                   is not None]
            un = [r for r in rows if r["kind"] == "unrelated"]
            case = [r for r in rows if r["kind"] == "case" and r["variant_of"] in by]
            typo = [r for r in rows if r["kind"] == "typo" and r["variant_of"] in by
                    and r["recall"] is not None]
            cells.append(
                f"{scope}: {R.mean([r['recall'] for r in ans]) or 0:.3f} / "
                f"{R.mean([r['tokens'] for r in ans]) or 0:.0f} / "
                f"{R.mean([r['tokens'] for r in un]) or 0:.0f} / "
                f"{R.mean([0.0 if r['tokens'] else 1.0 for r in un]) or 0:.2f} / "
                f"{R.mean([1.0 if r['matched'] == by[r['variant_of']]['matched'] else 0.0 for r in case]) or 0:.2f} / "  # noqa: E501
                f"{(R.mean([r['recall'] for r in typo]) or 0) - (R.mean([by[r['variant_of']]['recall'] for r in typo]) or 0):+.3f}")  # noqa: E501
        print(f"{plain} {most} {q} {m} {cap} | " + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
