"""Place hand-written promote asks into sessions, times and projects (shared by the builders).

heldout/, fresh/ and blind/ each hold `asks_*.py` modules (PROJECTS, START, PREF, RARE, TASK,
CONTROL, FACT, OPPOSITES, ONEOFF) and a thin `build.py` that names its sets and calls `main`.
Deterministic (fixed seeds): the texts are not generated; this module only decides where and
when each one was said, writes `<set>.jsonl` and `labels.json`, and checks them with `--check`.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

N_SESSIONS_DAYS = 14
MIN_ASKS = 4

Rows = list[dict[str, str]]
Labels = dict[str, dict[str, object]]


@dataclass(frozen=True)
class AskSet:
    """One set: its file stem, its asks module, the session id prefix and the seed."""

    name: str
    module: ModuleType
    prefix: str
    seed: int


def _session_starts(rng: random.Random, n: int, start: str) -> list[dt.datetime]:
    """n start times over 14 days, each day 3 to 6 sessions, at least 110 minutes apart."""
    day0 = dt.datetime.fromisoformat(start).replace(tzinfo=dt.UTC)
    per_day = [n // N_SESSIONS_DAYS] * N_SESSIONS_DAYS
    for i in rng.sample(range(N_SESSIONS_DAYS), n % N_SESSIONS_DAYS):
        per_day[i] += 1
    starts: list[dt.datetime] = []
    for day, k in enumerate(per_day):
        # 07:00 .. 17:40, 110+ minutes apart
        slots = sorted(rng.sample(range(0, 12 * 60 - 90, 150), k))
        for slot in slots:
            minute = 7 * 60 + slot + rng.randrange(0, 40)
            starts.append(day0 + dt.timedelta(days=day, minutes=minute, seconds=rng.randrange(60)))
    return starts


def build(mod: ModuleType, prefix: str, seed: int, max_asks: int) -> tuple[Rows, Labels]:
    """The rows (one per ask, in time order) and the labels of one set."""
    rng = random.Random(seed)
    projects: dict[str, int] = mod.PROJECTS
    n = sum(projects.values())
    names = [p for p, k in projects.items() for _ in range(k)]
    rng.shuffle(names)
    starts = _session_starts(rng, n, mod.START)
    sessions = [f"{prefix}-{i + 1:03d}" for i in range(n)]
    project_of = dict(zip(sessions, names, strict=True))
    asks: dict[str, list[tuple[str, str]]] = {s: [] for s in sessions}
    # sessions differ in length: each gets a capacity of MIN_ASKS to max_asks asks
    cap = {s: rng.randint(MIN_ASKS, max_asks) for s in sessions}
    opposite = {a: b for a, b in mod.OPPOSITES} | {b: a for a, b in mod.OPPOSITES}

    def load(s: str) -> float:
        return len(asks[s]) / cap[s]

    groups = [
        ("pref", mod.PREF),
        ("rare", mod.RARE),
        ("task", mod.TASK),
        ("control", mod.CONTROL),
        ("fact", mod.FACT),
    ]
    entries = [(kind, slug, e) for kind, table in groups for slug, e in table.items()]
    # the most constrained first: narrow scope, many texts
    entries.sort(key=lambda x: (x[2][1] is None, -len(x[2][2]), x[1]))
    for kind, slug, (_rule, scope, texts) in entries:
        label = f"{kind}:{slug}"
        other = f"pref:{opposite[slug]}" if kind == "pref" and slug in opposite else None
        pool = [
            s
            for s in sessions
            if (scope is None or project_of[s] in scope)
            and len(asks[s]) < max_asks - 1
            and all(lab != other for _t, lab in asks[s])  # one side of a pair per session
        ]
        rng.shuffle(pool)
        pool.sort(key=load)
        chosen = pool[: len(texts)]
        if len(chosen) < len(texts):
            raise SystemExit(f"{label}: only {len(chosen)} sessions for {len(texts)} texts")
        for s, text in zip(chosen, texts, strict=True):
            asks[s].append((text, label))

    for project, oneoffs in mod.ONEOFF.items():
        mine = [s for s in sessions if project_of[s] == project]
        for text in oneoffs:
            s = min(mine, key=lambda s: (len(asks[s]) >= MIN_ASKS, load(s), rng.random()))
            if len(asks[s]) >= max_asks:
                raise SystemExit(f"{project}: too many one-offs")
            asks[s].append((text, "oneoff"))

    rows: Rows = []
    late = ("control:", "task:continue", "task:carry-on")
    for s, start in zip(sessions, starts, strict=True):
        items = asks[s]
        if len(items) < MIN_ASKS:
            raise SystemExit(f"{s}: only {len(items)} asks")
        rng.shuffle(items)
        # a session does not open with "never mind" or "continue"
        opener = next(i for i, (_t, lab) in enumerate(items) if not lab.startswith(late))
        items.insert(0, items.pop(opener))
        at = start
        for text, label in items:
            rows.append(
                {
                    "at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "project": project_of[s],
                    "session": s,
                    "text": text,
                    "label": label,
                }
            )
            at += dt.timedelta(minutes=rng.randrange(1, 9), seconds=rng.randrange(60))

    labels: Labels = {}
    for kind, slug, (rule, _scope, _texts) in sorted(entries, key=lambda x: (x[0], x[1])):
        label = f"{kind}:{slug}"
        mine_rows = [r for r in rows if r["label"] == label]
        info: dict[str, object] = {
            "kind": kind,
            "sessions": len({r["session"] for r in mine_rows}),
            "projects": sorted({r["project"] for r in mine_rows}),
        }
        if kind in ("pref", "rare"):
            info["rule"] = rule
        if slug in opposite and kind == "pref":
            info["opposite"] = f"pref:{opposite[slug]}"
        labels[label] = info
    return rows, labels


def _instant(at: str) -> dt.datetime:
    return dt.datetime.fromisoformat(at.replace("Z", "+00:00"))


def validate(name: str, mod: ModuleType, rows: Rows, labels: Labels, max_asks: int) -> list[str]:
    """Shape rules of a set; returns the problems found (empty when fine)."""
    bad: list[str] = []
    sessions: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        sessions.setdefault(r["session"], []).append(r)
    if len(sessions) != 60:
        bad.append(f"{name}: {len(sessions)} sessions, not 60")
    if len({r["project"] for r in rows}) != 7:
        bad.append(f"{name}: not 7 projects")
    days = {r["at"][:10] for r in rows}
    if len(days) != N_SESSIONS_DAYS:
        bad.append(f"{name}: asks on {len(days)} days, not {N_SESSIONS_DAYS}")
    ats = [r["at"] for r in rows]
    if any(a >= b for a, b in itertools.pairwise(ats)):
        bad.append(f"{name}: times do not strictly increase")
    spans = sorted((mine[0]["at"], mine[-1]["at"]) for mine in sessions.values())
    for (_a0, a1), (b0, _b1) in itertools.pairwise(spans):
        if _instant(b0) - _instant(a1) < dt.timedelta(minutes=80):
            bad.append(f"{name}: sessions at {a1} and {b0} less than 80 minutes apart")
    for s, mine in sessions.items():
        if not MIN_ASKS <= len(mine) <= max_asks:
            bad.append(f"{name}: {s} has {len(mine)} asks")
        if len({r["project"] for r in mine}) != 1:
            bad.append(f"{name}: {s} spans projects")
        labs = [r["label"] for r in mine if r["label"] != "oneoff"]
        if len(labs) != len(set(labs)):
            bad.append(f"{name}: {s} repeats a label")
        for a, b in mod.OPPOSITES:
            if f"pref:{a}" in labs and f"pref:{b}" in labs:
                bad.append(f"{name}: {s} holds both {a} and {b}")
    for label, info in labels.items():
        kind = info["kind"]
        n = info["sessions"]
        assert isinstance(n, int)
        if kind == "pref" and not 3 <= n <= 6:
            bad.append(f"{name}: {label} in {n} sessions")
        if kind == "rare" and not 1 <= n <= 2:
            bad.append(f"{name}: {label} in {n} sessions")
        if kind in ("task", "control", "fact") and n < 3:
            bad.append(f"{name}: {label} in {n} sessions")
    texts = [r["text"].strip().lower() for r in rows]
    dupes = {t for t in texts if texts.count(t) > 1}
    if dupes:  # counted, never quoted: a held-out set's texts stay out of anyone's terminal
        lines = [i + 1 for i, t in enumerate(texts) if t in dupes]
        bad.append(f"{name}: {len(dupes)} texts said more than once (lines {lines})")
    return bad


def render(sets: Sequence[AskSet], *, max_asks: int, check_shape: bool) -> dict[str, str]:
    """File name -> text: one `<set>.jsonl` per set and `labels.json` keyed by set name."""
    out: dict[str, str] = {}
    all_labels: dict[str, object] = {}
    for one in sets:
        rows, labels = build(one.module, one.prefix, one.seed, max_asks)
        if check_shape:
            problems = validate(one.name, one.module, rows, labels, max_asks)
            if problems:
                raise SystemExit("\n".join(problems))
        out[f"{one.name}.jsonl"] = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        all_labels[one.name] = labels
    out["labels.json"] = json.dumps(all_labels, indent=1, ensure_ascii=False) + "\n"
    return out


def main(
    here: Path, sets: Sequence[AskSet], argv: Sequence[str], *, max_asks: int, check_shape: bool
) -> int:
    """Write the files into `here`, or with `--check` exit 1 when they differ from a fresh run."""
    files = render(sets, max_asks=max_asks, check_shape=check_shape)
    if "--check" in argv:
        stale = [n for n, text in files.items() if (here / n).read_text(encoding="utf-8") != text]
        if stale:
            print("stale:", ", ".join(stale))
            return 1
        return 0
    for n, text in files.items():
        (here / n).write_text(text, encoding="utf-8")
    return 0
