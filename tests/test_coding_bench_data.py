"""bench/coding/: the coding-memory bench data is consistent; its validator catches breakage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, load_bench

DATA = ROOT / "bench" / "coding" / "data"
MINI = ROOT / "bench" / "coding" / "mini"


def _load() -> Any:
    return load_bench("coding/load.py", "coding_bench_load")


def test_shipped_data_is_valid() -> None:
    """Guards against a hand edit that leaves a dangling evidence key, session prompt or variant."""
    mod = _load()
    bench = mod.load(DATA)
    assert len(bench.projects) >= 8
    assert len(bench.prompts) >= 80
    assert bench.sessions


def test_the_mini_set_loads_through_the_loader() -> None:
    """Guards ``run.py --data bench/coding/mini`` crashing in load.py: the hand-made set
    wrote ``source`` as a string, not the documented ``{path, commit}`` the real data has."""
    bench = _load().load(MINI)
    assert {p.split for p in bench.projects.values()} == {"dev", "heldout"}
    for project in bench.projects.values():
        assert project.entries and project.sources
        for e in project.entries:  # the documented shape, one of the project's sources
            assert (e.source_path, e.source_commit) in project.sources
            assert len(e.source_commit) == 40 and e.source_path.endswith(".json")


def test_every_kind_and_both_splits_are_present() -> None:
    """Guards against a kind or the held-out split silently disappearing from the data."""
    bench = _load().load(DATA)
    kinds = {p.kind for p in bench.prompts.values()}
    assert kinds == {"answerable", "generic", "unrelated", "typo", "case", "foreign"}
    assert {p.split for p in bench.projects.values()} == {"dev", "heldout"}
    assert any(s.memory == "pooled" for s in bench.sessions.values())


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(DATA, dst)
    return dst


def _rewrite_prompts(data: Path, change: Any) -> None:
    path = data / "prompts.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    change(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _first(rows: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(r for r in rows if r["kind"] == kind)


@pytest.mark.parametrize(("change", "needle"), [
    (lambda rows: _first(rows, "answerable")["evidence"].append("nosuch-99"),
     "is no entry"),
    (lambda rows: _first(rows, "typo").update(variant_of="nosuch-p01"), "is no prompt"),
    (lambda rows: _first(rows, "unrelated").update(kind="sideways"), "kind"),
    (lambda rows: _first(rows, "answerable").update(split="test"), "split"),
    (lambda rows: _first(rows, "case").update(text=_first(rows, "case")["text"] + " now"),
     "more than letter case"),
    (lambda rows: _first(rows, "unrelated")["evidence"].append(
        _first(rows, "answerable")["evidence"][0]), "evidence"),
])
def test_validator_reports_broken_prompts(tmp_path: Path, change: Any, needle: str) -> None:
    """Guards against a validator that accepts broken labels (the check must be able to fail)."""
    mod = _load()
    data = _copy(tmp_path)
    _rewrite_prompts(data, change)
    with pytest.raises(mod.BenchDataError, match=needle):
        mod.load(data)


def test_validator_reports_missing_session_prompt(tmp_path: Path) -> None:
    """Guards against a session naming a prompt that was renamed or deleted."""
    mod = _load()
    data = _copy(tmp_path)
    path = data / "sessions.json"
    sessions = json.loads(path.read_text(encoding="utf-8"))
    sessions[0]["prompts"].append("nosuch-p77")
    path.write_text(json.dumps(sessions), encoding="utf-8")
    with pytest.raises(mod.BenchDataError, match="nosuch-p77"):
        mod.load(data)


@pytest.mark.parametrize(("field", "value", "needle"), [
    ("shard", "misc", "shard 'misc'"),
    ("source", "hand-made", r"entry '[^']+': source is not an object \{path, commit\}"),
], ids=["shard", "source"])
def test_validator_reports_a_broken_entry(tmp_path: Path, field: str, value: str,
                                         needle: str) -> None:
    """Guards against an entry filed under a shard lean_memory does not have, and the
    loader stopping with an AttributeError (no line naming the entry) on a ``source``
    that is not the documented ``{path, commit}`` object."""
    mod = _load()
    data = _copy(tmp_path)
    path = next((data / "projects").glob("*.json"))
    project = json.loads(path.read_text(encoding="utf-8"))
    project["entries"][0][field] = value
    path.write_text(json.dumps(project), encoding="utf-8")
    with pytest.raises(mod.BenchDataError, match=needle):
        mod.load(data)


def test_one_project_memory_is_written_whole(tmp_path: Path) -> None:
    """Guards against an entry the store refuses (e.g. secret-like text) or merges away."""
    mod = _load()
    bench = mod.load(DATA)
    slug = min(bench.projects, key=lambda s: len(bench.projects[s].entries))
    ids = mod.write_memory(bench, tmp_path / "m", slug)
    assert set(ids) == {e.key for e in bench.projects[slug].entries}
    assert len(set(ids.values())) == len(ids)


def test_run_prints_only_the_split_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Guards `run.py --split dev` printing (and computing) the held-out split's per-prompt
    tables too: the held-out figures are for reporting only, never seen while tuning."""
    mini = MINI  # beside load.py: run.py builds its memories with the bench's loader
    splits = {json.loads(line)["split"] for line in
              (mini / "prompts.jsonl").read_text(encoding="utf-8").splitlines() if line}
    assert splits == {"dev", "heldout"}  # the fixture holds the case it guards
    for name in ("XDG_DATA_HOME", "LEAN_MEMORY_GLOBAL"):  # run.py sets them; restored after
        monkeypatch.setenv(name, str(tmp_path / name))
    out = tmp_path / "report.json"
    run = load_bench("coding/run.py", "coding_bench_run")
    assert run.main(["--data", str(mini), "--split", "dev", "--hooks", "0",
                     "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "split: dev" in printed
    assert "heldout" not in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [s["split"] for s in report["splits"]] == ["dev"]
    assert {a["split"] for a in report["alone"]} == {"dev"}
