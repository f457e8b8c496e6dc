"""The gate's constants swept on the bench's **dev** split (never the held-out one):
per-prompt figures alone, in-process (bench/coding/run.py's ``per_prompt``).

    PYTHONPATH=$PWD python bench/coding/sweep.py --plain 0.15,0.5,1 --most 0.5,1 --margin 0,0.05

``--sessions``: the session cut instead (what a prompt in a session keeps once the gate
opened: ``SESSION_KEEP``, ``SESSION_RATIO``, ``SESSION_MAX``), over the split's sessions
in-process, each setting on memories built afresh (a session's hooks write asks):

    PYTHONPATH=$PWD python bench/coding/sweep.py --sessions --session-ratio 0.5,0.7 \
        --session-max 8,16
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.coding import run as R
from lean_memory import digest as dg


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def sessions(args: argparse.Namespace) -> int:
    """The session cut's constants: session cost and in-context recall, project and pooled."""
    projects, prompts, all_sessions = R.load_data(args.data)
    R.use_loader(args.data)
    chosen = [s for s in all_sessions if s["split"] == args.split]
    print("keep ratio max | scope: session tokens ratio to the baseline / in-context recall "
          "(baseline's)")
    for keep, ratio, most in itertools.product(args.session_keep, args.session_ratio,
                                               args.session_max):
        dg.SESSION_KEEP, dg.SESSION_RATIO, dg.SESSION_MAX = keep, ratio, most
        work = Path(tempfile.mkdtemp(prefix="lm-sweep-"))
        os.environ.update({"XDG_DATA_HOME": str(work / "data"),
                           "LEAN_MEMORY_GLOBAL": str(work / "global")})
        built: dict[str, R.Built] = {}
        results = []
        for s in chosen:
            name = s["memory"]
            if name not in built:
                built[name] = R.Built(work / "mem" / name,
                                      sorted(projects) if name == "pooled" else [name],
                                      projects)
            results.append(R.run_session(built[name], s, prompts, 1200, False,
                                         dict(os.environ), work, [0.0]))
        summary = R.summarize(args.split, results, [], prompts)
        cells = [f"{scope}: {x['ratio']:.3f} / {x['recall_in_context']:.3f} "
                 f"({x['base_recall_in_context']:.3f})"
                 for scope in ("project", "pooled") if (x := summary.get(scope))]
        print(f"{keep} {ratio} {most} | " + " | ".join(cells), flush=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


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
    ap.add_argument("--sessions", action="store_true", help="sweep the session cut")
    ap.add_argument("--session-keep", type=ints, default=[dg.SESSION_KEEP])
    ap.add_argument("--session-ratio", type=floats, default=[dg.SESSION_RATIO])
    ap.add_argument("--session-max", type=ints, default=[dg.SESSION_MAX])
    args = ap.parse_args()
    if args.sessions:
        return sessions(args)
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
