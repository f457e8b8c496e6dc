"""list, show, edit and forget through the real command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import lean_memory

from .conftest import run_cli, snapshot

TOKEN = "ghp_" + "Zq8vK2mX7rT4wY9pL3nB6cD1fH5jS0aE2gUi"  # built here: this file scans clean


def _editor(tmp_path: Path, body: str) -> dict[str, str]:
    """An $EDITOR that writes ``body`` into the file it is given ('{old}' = the entry)."""
    script = tmp_path / "ed.py"
    script.write_text("import sys\np = sys.argv[1]\nold = open(p, encoding='utf-8').read()\n"
                      f"open(p, 'w', encoding='utf-8').write({body!r}.replace('{{old}}', old))\n",
                      encoding="utf-8")
    return {"EDITOR": f"{sys.executable} {script}", "VISUAL": ""}


def _memory(tmp_path: Path) -> tuple[lean_memory.Memory, lean_memory.Entry, lean_memory.Entry]:
    mem = lean_memory.Memory(tmp_path / "repo")
    mem.init()
    a = mem.put_entry("quirks", "tox recreates envs when setup.cfg changes", date="2026-11-01")
    mem.put_entry("quirks", "tox recreates envs when setup.cfg changes", date="2026-11-02")
    b = mem.put_entry("corrections", "tox recreates envs when tox.ini changes, not setup.cfg",
                      date="2026-11-03", supersedes=a.id)
    return mem, a, b


def test_list_marks_superseded_and_said_again(tmp_path: Path) -> None:
    mem, a, b = _memory(tmp_path)
    r = run_cli("list", cwd=mem.root)
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    line = next(ln for ln in text.splitlines() if a.id in ln)
    assert "2026-11-01" in line and "[superseded]" in line and "[said again 1x]" in line
    assert "corrections:" in text and b.id in text
    rows = json.loads(run_cli("list", "quirks", "--json", cwd=mem.root).stdout)
    assert [(r["id"], r["superseded"], r["said_again"]) for r in rows] == [(a.id, True, 1)]
    assert rows[0]["tokens"] > 0


def test_show_prints_the_entry_and_unknown_ids_are_clear_errors(tmp_path: Path) -> None:
    mem, a, _ = _memory(tmp_path)
    r = run_cli("show", a.id, cwd=mem.root)
    assert r.returncode == 0 and r.stdout.decode().startswith("## tox recreates envs")
    assert json.loads(run_cli("show", a.id, "--json", cwd=mem.root).stdout)["id"] == a.id
    r = run_cli("show", "nope", cwd=mem.root)
    assert r.returncode == 2 and b"no live entry has id 'nope'" in r.stderr
    r = run_cli("show", TOKEN, cwd=mem.root)
    assert r.returncode == 2 and TOKEN.encode() not in r.stderr + r.stdout


def test_edit_is_checked_like_a_put_and_all_or_nothing(tmp_path: Path) -> None:
    mem, a, _ = _memory(tmp_path)
    before = snapshot(mem.dir)
    for body, code, needle in (
        ("{old}\nthe token is " + TOKEN + "\n", 1, b"refused"),
        ("{old}\n## a second entry\nsneaked in\n", 2, b"exactly one entry"),
        ("## retitled\n<!-- lean-memory: id=other -->\ntext\n", 2, b"id of an entry"),
        ("{old}\n```\nunclosed fence\n", 2, b"code fence open"),
    ):
        r = run_cli("edit", a.id, cwd=mem.root, env=_editor(tmp_path, body))
        assert r.returncode == code, (body, r.stderr)
        assert needle in r.stderr and TOKEN.encode() not in r.stderr + r.stdout
        assert snapshot(mem.dir) == before
    r = run_cli("edit", a.id, cwd=mem.root,
                env=_editor(tmp_path, "{old}Also when requirements files change.\n"))
    assert r.returncode == 0, r.stderr
    edited = next(e for e in mem.entries("quirks") if e.id == a.id)
    assert edited.text.endswith("Also when requirements files change.")
    assert edited.date == "2026-11-01"
    assert edited.meta == (*a.meta, ("said_again", "1"), ("last_said", "2026-11-02"))


def test_edit_without_the_metadata_line_keeps_the_entry_identity(tmp_path: Path) -> None:
    mem, a, _ = _memory(tmp_path)
    r = run_cli("edit", a.id, cwd=mem.root,
                env=_editor(tmp_path, "## tox and setup.cfg\n\nrewritten by hand\n"))
    assert r.returncode == 0, r.stderr
    e = next(e for e in mem.entries("quirks") if e.id == a.id)
    assert (e.title, e.text, e.date) == ("tox and setup.cfg", "rewritten by hand",
                                         "2026-11-01")


def test_forget_archives_with_date_and_reason_and_never_destroys(tmp_path: Path) -> None:
    mem, _, _ = _memory(tmp_path)
    a = mem.put_entry("insights", "pip-compile pins hashes; review them in PRs",
                      date="2026-11-05")
    r = run_cli("forget", a.id, "--reason", "tox 4 changed this", "--date", "2026-11-30",
                cwd=mem.root)
    assert r.returncode == 0, r.stderr
    assert a.id not in {e.id for e in mem.entries()}
    kept = [e for e in mem.entries("insights", archive=True) if e.id == a.id]
    assert len(kept) == 1 and kept[0].text == a.text
    assert dict(kept[0].meta)["forgotten"] == "2026-11-30"
    assert dict(kept[0].meta)["reason"] == "tox 4 changed this"
    # Kept, never searched again: "forget this" means "never tell the agent again".
    hits = mem.search("pip-compile hashes", include_archive=True)
    assert not any(h.entry.id == a.id for h in hits)
    r = run_cli("forget", a.id, "--reason", "again", cwd=mem.root)
    assert r.returncode == 2 and b"in the archive" in r.stderr
    r = run_cli("forget", "nope", cwd=mem.root)
    assert r.returncode == 2 and b"--reason" in r.stderr


def test_help_ends_with_examples_and_the_shards(tmp_path: Path) -> None:
    r = run_cli("--help", cwd=tmp_path)
    assert r.returncode == 0
    tail = r.stdout.decode().rstrip().splitlines()[-10:]
    assert tail[0] == "examples:" and any("conventions" in ln for ln in tail)
    for command in ("list", "show", "edit", "forget", "mcp"):
        assert f"    {command} " in r.stdout.decode()  # listed with a help line
    for command in ("init", "put", "get", "status", "compact", "scan", "hook", "list", "show",
                    "edit", "forget", "merge-driver"):
        usage = run_cli(command, "--help", cwd=tmp_path).stdout.decode()
        lines = usage.split("\n\n", 1)[1].splitlines()  # past the usage line(s)
        for i, line in enumerate(lines):
            if not line.startswith("  ") or line.startswith("   ") or line.endswith(":"):
                continue  # a continuation, or a section heading
            name, _, help_text = line.strip().partition("  ")
            wrapped = i + 1 < len(lines) and lines[i + 1].startswith("      ")
            assert help_text.strip() or wrapped, (command, name)
