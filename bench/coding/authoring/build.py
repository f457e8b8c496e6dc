"""Build bench/coding/data/ from the hand-written authoring files in this folder.

The authoring files (one ``<slug>.txt`` per project, plus ``pooled.txt``) are the
source the data was written in; ``data/`` is what readers use. Run from the tree root:

    python bench/coding/authoring/build.py

Format of ``<slug>.txt`` (lines starting with ``;`` are comments):

    slug: codex
    repo: openai/codex
    stack: Rust
    split: dev
    src A AGENTS.md <commit>            # a source, named A (used by entries)

    == conventions | Title | tag1,tag2 | A
    Entry text, one or more lines (joined with a space).

    -- prompts
    a 3,5 | text          answerable, evidence entry numbers 3 and 5 (-> <slug>-03 ...)
    g 2 | run the tests   generic
    u | text              unrelated (no evidence)
    f 4 | texto           foreign language
    t<7 | text            typo variant of this project's 7th prompt (evidence copied)
    c<7 | TEXT            case variant of the 7th prompt (evidence copied)
    -- session 1 4 2 ...  this project's session: prompt numbers in order

``pooled.txt``: ``session <id> <split> <slug>:<n> <slug>:<n> ...`` lines.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"
KINDS = {"a": "answerable", "g": "generic", "u": "unrelated", "f": "foreign",
         "t": "typo", "c": "case"}


def _err(path: Path, lineno: int, msg: str) -> NoReturn:
    raise SystemExit(f"{path.name}:{lineno}: {msg}")


def parse_project(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    head: dict[str, str] = {}
    sources: dict[str, dict[str, str]] = {}
    entries: list[dict[str, Any]] = []
    prompts: list[dict[str, Any]] = []
    session: list[str] = []
    cur: dict[str, Any] | None = None
    mode = "entries"
    lines = path.read_text(encoding="utf-8").splitlines()
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        if mode == "entries":
            if line.startswith("== "):
                parts = [p.strip() for p in line[3:].split("|")]
                if len(parts) != 4:
                    _err(path, no, "entry head needs: shard | title | tags | source")
                shard, title, tags, src = parts
                if src not in sources:
                    _err(path, no, f"unknown source {src!r}")
                cur = {"shard": shard, "title": title,
                       "tags": [t.strip() for t in tags.split(",") if t.strip()],
                       "source": dict(sources[src]), "lines": []}
                entries.append(cur)
                continue
            if line.startswith("-- prompts"):
                mode = "prompts"
                continue
            m = re.match(r"^(slug|repo|stack|split):\s*(.+)$", line)
            if m and cur is None:
                head[m.group(1)] = m.group(2).strip()
                continue
            m = re.match(r"^src (\w+) (\S+) ([0-9a-f]{40})$", line)
            if m and cur is None:
                sources[m.group(1)] = {"path": m.group(2), "commit": m.group(3)}
                continue
            if cur is None:
                _err(path, no, f"text before any entry: {line!r}")
            cur["lines"].append(line.strip())
            continue
        if line.startswith("-- session"):
            session = line.split()[2:]
            continue
        m = re.match(r"^([aguftc])(?:<(\d+))?\s*([0-9,\s]*)\|\s?(.*)$", line)
        if not m:
            _err(path, no, f"bad prompt line: {line!r}")
        kind, ref, ev, text = m.groups()
        prompts.append({"kind": KINDS[kind], "ref": ref,
                        "ev": [int(x) for x in re.split(r"[,\s]+", ev.strip()) if x],
                        "text": text.strip(), "no": no})
    slug = head["slug"]
    project: dict[str, Any] = {"slug": slug, "repo": head["repo"], "stack": head["stack"],
               "split": head["split"],
               "sources": [dict(s) for s in sources.values()], "entries": []}
    for i, e in enumerate(entries, 1):
        project["entries"].append({
            "key": f"{slug}-{i:02d}", "shard": e["shard"], "title": e["title"],
            "text": " ".join(e["lines"]), "tags": e["tags"], "source": e["source"]})
    out: list[dict[str, Any]] = []
    for i, p in enumerate(prompts, 1):
        pid = f"{slug}-p{i:02d}"
        variant_of = None
        ev = [f"{slug}-{n:02d}" for n in p["ev"]]
        if p["kind"] in ("typo", "case"):
            if p["ref"] is None:
                _err(path, p["no"], "typo/case prompt needs <n")
            n = int(p["ref"])
            if not 1 <= n < i:
                _err(path, p["no"], f"variant of unknown prompt {n}")
            variant_of = f"{slug}-p{n:02d}"
            ev = list(out[n - 1]["evidence"])
        elif p["ref"] is not None:
            _err(path, p["no"], "only typo/case prompts take <n")
        if p["kind"] in ("answerable", "generic", "foreign") and not ev:
            _err(path, p["no"], f"{p['kind']} prompt without evidence")
        if p["kind"] == "unrelated" and ev:
            _err(path, p["no"], "unrelated prompt with evidence")
        out.append({"id": pid, "project": slug, "text": p["text"], "kind": p["kind"],
                    "evidence": ev, "split": head["split"], "variant_of": variant_of})
    sess = [f"{slug}-p{int(n):02d}" for n in session]
    return project, out, sess


def _readme_table(projects: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> None:
    """Rewrite the provenance table between the markers in ../README.md."""
    readme = HERE.parent / "README.md"
    start, end = "<!-- provenance:start -->", "<!-- provenance:end -->"
    text = readme.read_text(encoding="utf-8")
    if start not in text or end not in text:
        return
    per: dict[str, int] = {}
    for p in prompts:
        per[p["project"]] = per.get(p["project"], 0) + 1
    rows = ["| project | repository | path | commit | stack | split | entries | prompts |",
            "|---|---|---|---|---|---|---|---|"]
    for pr in projects:
        for i, src in enumerate(pr["sources"]):
            n = sum(1 for e in pr["entries"] if e["source"] == src)
            first = i == 0
            stack, split, count = ((pr["stack"], pr["split"], per.get(pr["slug"], 0))
                                   if first else ("", "", ""))
            rows.append(
                f"| `{pr['slug']}` | [{pr['repo']}](https://github.com/{pr['repo']}) "
                f"| `{src['path']}` | `{src['commit'][:12]}` | {stack} | {split} | {n} "
                f"| {count} |")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(head + start + "\n" + "\n".join(rows) + "\n" + end + tail,
                      encoding="utf-8")


def main() -> int:
    projects: list[dict[str, Any]] = []
    prompts: list[dict[str, Any]] = []
    sessions: list[dict[str, Any]] = []
    for path in sorted(HERE.glob("*.txt")):
        if path.name == "pooled.txt":
            continue
        project, pr, sess = parse_project(path)
        projects.append(project)
        prompts.extend(pr)
        if sess:
            sessions.append({"id": f"s-{project['slug']}", "memory": project["slug"],
                             "split": project["split"], "prompts": sess})
    pooled = HERE / "pooled.txt"
    if pooled.exists():
        for no, line in enumerate(pooled.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith(";"):
                continue
            parts = line.split()
            if parts[0] != "session" or len(parts) < 4:
                _err(pooled, no, "expected: session <id> <split> <slug>:<n> ...")
            ids = []
            for tok in parts[3:]:
                slug, n = tok.split(":")
                ids.append(f"{slug}-p{int(n):02d}")
            sessions.append({"id": parts[1], "memory": "pooled", "split": parts[2],
                             "prompts": ids})
    (DATA / "projects").mkdir(parents=True, exist_ok=True)
    for old in (DATA / "projects").glob("*.json"):
        old.unlink()
    for project in projects:
        path = DATA / "projects" / f"{project['slug']}.json"
        path.write_text(json.dumps(project, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    with (DATA / "prompts.jsonl").open("w", encoding="utf-8") as fh:
        for p in prompts:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    (DATA / "sessions.json").write_text(
        json.dumps(sessions, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _readme_table(projects, prompts)
    print(f"{len(projects)} projects, "
          f"{sum(len(p['entries']) for p in projects)} entries, "
          f"{len(prompts)} prompts, {len(sessions)} sessions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
