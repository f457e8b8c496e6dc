"""Load and validate the coding-memory benchmark; write a lean_memory memory from it.

Standard library only. Usage from the tree root:

    python bench/coding/load.py                      # validate, print counts
    python bench/coding/load.py --write /tmp/m codex # validate, write codex's memory
    python bench/coding/load.py --write /tmp/m pooled [--split dev]

In code (bench/ is not a package: import this file by path, as tests/conftest.py's
load_bench does):

    bench = load()                  # raises BenchDataError on any problem
    ids = write_memory(bench, "/tmp/m", "codex")   # entry key -> lean_memory entry id
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lean_memory

DATA = Path(__file__).resolve().parent / "data"
SHARDS = ("seed", "failures", "corrections", "insights", "conventions", "quirks")
KINDS = ("answerable", "generic", "unrelated", "typo", "case", "foreign")
SPLITS = ("dev", "heldout")
# Typos are made in prompts memory answers; letter case is varied on answerable and
# unrelated prompts alike (issue 33: casing flipped the gate on unrelated prompts).
VARIANT_BASES = {"typo": ("answerable", "generic"), "case": ("answerable", "unrelated")}
# A project written by hand in this repository (mini/): its sources are files here.
THIS_REPOSITORY = "."
# A fixed date keeps the written memory (and its ids) the same on every run.
ENTRY_DATE = "2026-01-15"


class BenchDataError(ValueError):
    """The benchmark files are inconsistent; the message lists every problem."""


@dataclass(frozen=True)
class Entry:
    key: str
    project: str
    shard: str
    title: str
    text: str
    tags: tuple[str, ...]
    source_path: str
    source_commit: str


@dataclass(frozen=True)
class Project:
    slug: str
    repo: str
    stack: str
    split: str
    sources: tuple[tuple[str, str], ...]
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Prompt:
    id: str
    project: str
    text: str
    kind: str
    evidence: tuple[str, ...]
    split: str
    variant_of: str | None


@dataclass(frozen=True)
class Session:
    id: str
    memory: str
    split: str
    prompts: tuple[str, ...]


@dataclass
class Bench:
    projects: dict[str, Project] = field(default_factory=dict)
    prompts: dict[str, Prompt] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)

    @property
    def entries(self) -> dict[str, Entry]:
        return {e.key: e for p in self.projects.values() for e in p.entries}

    def memory_entries(self, memory: str, split: str | None = None) -> list[Entry]:
        """The entries of one project's memory, or of the pooled memory.

        ``split`` limits the pooled memory to the projects of that split; None means all.
        """
        if memory == "pooled":
            return [e for p in self.projects.values()
                    if split is None or p.split == split for e in p.entries]
        if memory not in self.projects:
            raise BenchDataError(f"no project {memory!r}")
        return list(self.projects[memory].entries)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchDataError(f"{path}: {exc}") from exc


def _parse(data: Path) -> tuple[Bench, list[str]]:
    errors: list[str] = []
    bench = Bench()
    for path in sorted((data / "projects").glob("*.json")):
        raw = _read_json(path)
        slug = raw.get("slug")
        if slug != path.stem:
            errors.append(f"{path.name}: slug {slug!r} differs from the file name")
        entries = []
        for e in raw.get("entries", []):
            src = e.get("source")
            if not isinstance(src, dict):  # the documented {path, commit}, nothing else
                errors.append(f"{path.name}: entry {e.get('key')!r}: source is not "
                              "an object {path, commit}")
                src = {}
            entries.append(Entry(key=e.get("key", ""), project=str(slug),
                                 shard=e.get("shard", ""), title=e.get("title", ""),
                                 text=e.get("text", ""), tags=tuple(e.get("tags", [])),
                                 source_path=src.get("path", ""),
                                 source_commit=src.get("commit", "")))
        bench.projects[str(slug)] = Project(
            slug=str(slug), repo=raw.get("repo", ""), stack=raw.get("stack", ""),
            split=raw.get("split", ""),
            sources=tuple((s.get("path", ""), s.get("commit", ""))
                          for s in raw.get("sources", [])),
            entries=tuple(entries))
    for no, line in enumerate((data / "prompts.jsonl").read_text(encoding="utf-8")
                              .splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError as exc:
            errors.append(f"prompts.jsonl:{no}: {exc}")
            continue
        p = Prompt(id=raw.get("id", ""), project=raw.get("project", ""),
                   text=raw.get("text", ""), kind=raw.get("kind", ""),
                   evidence=tuple(raw.get("evidence", [])), split=raw.get("split", ""),
                   variant_of=raw.get("variant_of"))
        if p.id in bench.prompts:
            errors.append(f"prompts.jsonl:{no}: duplicate id {p.id!r}")
        bench.prompts[p.id] = p
    for raw in _read_json(data / "sessions.json"):
        s = Session(id=raw.get("id", ""), memory=raw.get("memory", ""),
                    split=raw.get("split", ""), prompts=tuple(raw.get("prompts", [])))
        if s.id in bench.sessions:
            errors.append(f"sessions.json: duplicate id {s.id!r}")
        bench.sessions[s.id] = s
    return bench, errors


def validate(bench: Bench) -> list[str]:
    """Every problem found in ``bench``, as one line each; empty when it is sound."""
    errors: list[str] = []
    entries: dict[str, Entry] = {}
    for p in bench.projects.values():
        if p.split not in SPLITS:
            errors.append(f"project {p.slug}: split {p.split!r}")
        if "/" not in p.repo and p.repo != THIS_REPOSITORY:
            errors.append(f"project {p.slug}: repo {p.repo!r} is not owner/name")
        known_sources = set(p.sources)
        for e in p.entries:
            where = f"entry {e.key}"
            if e.key in entries:
                errors.append(f"{where}: duplicate key")
            entries[e.key] = e
            if not e.key.startswith(p.slug + "-"):
                errors.append(f"{where}: key does not start with {p.slug}-")
            if e.shard not in SHARDS:
                errors.append(f"{where}: shard {e.shard!r}")
            if not e.title.strip() or not e.text.strip():
                errors.append(f"{where}: empty title or text")
            if (e.source_path, e.source_commit) not in known_sources:
                errors.append(f"{where}: source not listed in the project's sources")
            if len(e.source_commit) != 40:
                errors.append(f"{where}: commit is not a 40-hex sha")
    for pr in bench.prompts.values():
        where = f"prompt {pr.id}"
        proj = bench.projects.get(pr.project)
        if proj is None:
            errors.append(f"{where}: unknown project {pr.project!r}")
        elif pr.split != proj.split:
            errors.append(f"{where}: split {pr.split!r} differs from its project's")
        if pr.kind not in KINDS:
            errors.append(f"{where}: kind {pr.kind!r}")
        if pr.split not in SPLITS:
            errors.append(f"{where}: split {pr.split!r}")
        if not pr.text.strip():
            errors.append(f"{where}: empty text")
        for key in pr.evidence:
            if key not in entries:
                errors.append(f"{where}: evidence {key!r} is no entry")
            elif entries[key].project != pr.project:
                errors.append(f"{where}: evidence {key!r} belongs to another project")
        if pr.kind == "unrelated" and pr.evidence:
            errors.append(f"{where}: unrelated prompt has evidence")
        if pr.kind in ("answerable", "generic", "foreign") and not pr.evidence:
            errors.append(f"{where}: {pr.kind} prompt without evidence")
        if pr.kind in ("typo", "case"):
            base = bench.prompts.get(pr.variant_of or "")
            if base is None:
                errors.append(f"{where}: variant_of {pr.variant_of!r} is no prompt")
            elif base.kind not in VARIANT_BASES[pr.kind]:
                errors.append(f"{where}: a {pr.kind} variant of a {base.kind} prompt")
            elif base.evidence != pr.evidence:
                errors.append(f"{where}: evidence differs from {base.id}'s")
            elif base.text == pr.text:
                errors.append(f"{where}: same text as {base.id}")
            elif pr.kind == "case" and base.text.lower() != pr.text.lower():
                errors.append(f"{where}: differs from {base.id} in more than letter case")
        elif pr.variant_of is not None:
            errors.append(f"{where}: only typo/case prompts have variant_of")
    for s in bench.sessions.values():
        where = f"session {s.id}"
        if s.split not in SPLITS:
            errors.append(f"{where}: split {s.split!r}")
        if s.memory != "pooled" and s.memory not in bench.projects:
            errors.append(f"{where}: memory {s.memory!r}")
        if not s.prompts:
            errors.append(f"{where}: no prompts")
        for pid in s.prompts:
            sp = bench.prompts.get(pid)
            if sp is None:
                errors.append(f"{where}: prompt {pid!r} does not exist")
                continue
            if sp.split != s.split:
                errors.append(f"{where}: prompt {pid} is {sp.split}, session is {s.split}")
            if s.memory != "pooled" and sp.project != s.memory:
                errors.append(f"{where}: prompt {pid} is from project {sp.project}")
    return errors


def load(data: str | Path = DATA) -> Bench:
    """Read and validate the benchmark files under ``data``."""
    bench, errors = _parse(Path(data))
    errors += validate(bench)
    if errors:
        raise BenchDataError("\n".join(errors))
    return bench


def write_memory(bench: Bench, root: str | Path, memory: str,
                 split: str | None = None) -> dict[str, str]:
    """Write ``memory`` (a project slug or "pooled") as a lean_memory memory at ``root``.

    Uses only the public API. Returns entry key -> lean_memory entry id.
    """
    mem = lean_memory.Memory(root)
    mem.init()
    ids: dict[str, str] = {}
    for e in bench.memory_entries(memory, split):
        entry = mem.put_entry(e.shard, e.text, title=e.title, tags=list(e.tags),
                              date=ENTRY_DATE, new=True)
        ids[e.key] = entry.id
    return ids


def counts(bench: Bench) -> dict[str, dict[str, int]]:
    """Prompt counts by kind, by split and by project; entries by shard."""
    out: dict[str, dict[str, int]] = {"kind": {}, "split": {}, "project": {}, "shard": {}}
    for pr in bench.prompts.values():
        for axis, value in (("kind", pr.kind), ("split", pr.split),
                            ("project", pr.project)):
            out[axis][value] = out[axis].get(value, 0) + 1
    for e in bench.entries.values():
        out["shard"][e.shard] = out["shard"].get(e.shard, 0) + 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--write", metavar="ROOT", help="write a memory at ROOT")
    ap.add_argument("memory", nargs="?", help="project slug or 'pooled'")
    ap.add_argument("--split", choices=SPLITS, help="pooled memory of one split only")
    args = ap.parse_args(argv)
    try:
        bench = load(args.data)
    except BenchDataError as exc:
        print(f"invalid benchmark data:\n{exc}", file=sys.stderr)
        return 1
    print(f"{len(bench.projects)} projects, {len(bench.entries)} entries, "
          f"{len(bench.prompts)} prompts, {len(bench.sessions)} sessions")
    for axis, table in counts(bench).items():
        print(f"{axis}: " + ", ".join(f"{k} {v}" for k, v in sorted(table.items())))
    if args.write:
        if not args.memory:
            ap.error("--write needs a memory (a project slug or 'pooled')")
        ids = write_memory(bench, args.write, args.memory, args.split)
        print(f"wrote {len(ids)} entries to {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
