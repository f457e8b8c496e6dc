"""Retriever plugins from real entry points: one deadline for loading and ranking, unknown
names reported, fusion modes, and the hook that never loses INDEX.md because of a plugin.

A plugin that is too slow writes a marker file when it finally finishes; the command has
already exited by then, so the marker never appears. That proves the limit without timing
anything.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lean_memory import Memory
from lean_memory.retrievers import Fusion, fill, rerank, rrf

from .conftest import ROOT, run_cli

PLUGIN = """
import pathlib, time

MARK = pathlib.Path({mark!r})
{module_level}

class Plugin:
    name = "slowpoke"

    def __init__(self):
        {init}

    def rank(self, query, entries, k):
        {rank}
        return [(e.id, 1.0) for e in reversed(entries)][:k]
"""


def plugin_site(tmp_path: Path, *, module_level: str = "", init: str = "pass",
                rank: str = "pass") -> Path:
    """A throwaway distribution with one ``lean_memory.retrievers`` entry point."""
    site = tmp_path / "site"
    (site / "lm_slow").mkdir(parents=True)
    mark = tmp_path / "finished"
    (site / "lm_slow" / "__init__.py").write_text(PLUGIN.format(
        mark=str(mark), module_level=module_level, init=init, rank=rank))
    dist = site / "lm_slow-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lm-slow\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[lean_memory.retrievers]\nslowpoke = lm_slow:Plugin\n")
    return site


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    m = Memory(root)
    m.init()
    m.put_entry("failures", "test_upload is flaky on Windows: the temp file is still open",
                date="2026-01-10")
    m.put_entry("quirks", "ECONNREFUSED on port 5432 means postgres is not up yet",
                date="2026-01-11")
    m.put_entry("conventions", "Run the linters before every commit", date="2026-01-13")
    return root


def configure(root: Path, body: str) -> None:
    (root / ".agents" / "config.toml").write_text(body)


def env_for(site: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}


SLOW = "time.sleep({s}); MARK.write_text('done')"


@pytest.mark.parametrize("where", ["module_level", "init", "rank"])
def test_a_slow_plugin_costs_at_most_the_time_limit(project: Path, tmp_path: Path,
                                                    where: str) -> None:
    site = plugin_site(tmp_path, **{where: SLOW.format(s=3)})
    configure(project, '[memory]\nretrievers = ["bm25", "slowpoke"]\n'
                       'fusion = "rrf"\nretriever_timeout_ms = 300\n')
    r = run_cli("get", "--query", "flaky windows upload", cwd=project, env=env_for(site))
    assert r.returncode == 0, r.stderr
    assert b"test_upload is flaky on Windows" in r.stdout  # BM25 answered
    err = r.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "slowpoke" in err[0] and "timed out" in err[0], err
    assert not (tmp_path / "finished").exists()  # the process did not wait for it


def test_a_rank_busy_in_python_is_abandoned_at_the_deadline(project: Path,
                                                            tmp_path: Path) -> None:
    # Pure Python holds the GIL only between switch intervals, so the caller gets it back.
    site = plugin_site(tmp_path, rank="end = time.monotonic() + 60\n"
                                      "        while time.monotonic() < end: pass\n"
                                      "        MARK.write_text('done')")
    configure(project, '[memory]\nretrievers = ["bm25", "slowpoke"]\n'
                       'fusion = "rrf"\nretriever_timeout_ms = 300\n')
    r = run_cli("get", "--query", "flaky windows upload", "--json", cwd=project,
                env=env_for(site))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["title"] == "test_upload is flaky on Windows"
    assert not (tmp_path / "finished").exists()


def test_a_fast_plugin_is_used(project: Path, tmp_path: Path) -> None:
    site = plugin_site(tmp_path)
    configure(project, '[memory]\nretrievers = ["slowpoke"]\n')
    r = run_cli("get", "--query", "linters", "-k", "1", "--json", cwd=project,
                env=env_for(site))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    # the plugin puts the oldest entry first, where BM25 would put the linters entry
    assert json.loads(r.stdout)[0]["title"] == "test_upload is flaky on Windows"


def test_the_hook_keeps_index_and_rules_whatever_the_plugin(project: Path,
                                                            tmp_path: Path) -> None:
    Memory(project).put_entry("conventions", "Never push to main on Fridays")
    site = plugin_site(tmp_path, init=SLOW.format(s=6))
    # digest_index: the prompt hook repeats the index (by default only the session start
    # gives it, ADR 0018)
    configure(project, '[memory]\nretrievers = ["bm25", "slowpoke"]\nfusion = "rrf"\n'
                       'digest_index = true\n')
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(project),
                          "prompt": "why is the upload test flaky on windows?"}).encode()
    r = run_cli("hook", "user-prompt-submit", cwd=project, stdin=payload, env=env_for(site))
    assert r.returncode == 0 and r.stderr == b""
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Never push to main on Fridays" in context  # the rules
    assert "test_upload is flaky on Windows" in context  # BM25's match
    assert "# Memory index" in context  # INDEX.md
    assert not (tmp_path / "finished").exists()
    log = (project / ".agents" / "memory" / ".cache" / "hook.log").read_text()
    assert "slowpoke" in log and "timed out" in log


def test_unknown_names_are_reported(project: Path) -> None:
    configure(project, '[memory]\nretrievers = ["bm25", "bm52"]\n')
    r = run_cli("get", "--query", "linters", cwd=project)
    assert r.returncode == 0 and b"Run the linters" in r.stdout
    err = r.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "'bm52' is not installed" in err[0]
    status = run_cli("status", cwd=project)
    assert b"'bm52' is not installed" in status.stdout
    data = json.loads(run_cli("status", "--json", cwd=project).stdout)
    assert data["unknown_retrievers"] == ["bm52"]
    assert data["retrievers"] == ["bm25", "bm52"]
    # the hook says nothing on stderr, and logs it
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(project),
                          "prompt": "run the linters"}).encode()
    hook = run_cli("hook", "user-prompt-submit", cwd=project, stdin=payload)
    assert hook.returncode == 0 and hook.stderr == b"" and b"Run the linters" in hook.stdout
    log = (project / ".agents" / "memory" / ".cache" / "hook.log").read_text()
    assert "'bm52' is not installed" in log


def test_bm25_alone_reports_nothing(project: Path) -> None:
    data = json.loads(run_cli("status", "--json", cwd=project).stdout)
    assert data["unknown_retrievers"] == [] and "vectors" not in data
    assert b"retriever" not in run_cli("status", cwd=project).stdout


def test_import_and_bm25_path_load_no_http() -> None:
    import subprocess
    import sys

    script = textwrap.dedent("""
        import sys, tempfile, lean_memory
        root = tempfile.mkdtemp()
        m = lean_memory.Memory(root); m.init(); m.put_entry("quirks", "pytest hangs on CI")
        m.search("pytest")
        bad = [n for n in ("urllib.request", "http.client", "lean_memory.ollama",
                           "lean_memory.vectors", "importlib.metadata") if n in sys.modules]
        print(bad)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.strip() == "[]"


# -- fusion, as pure functions ------------------------------------------------------------


def test_weighted_rrf() -> None:
    fused = rrf([["a", "b"], ["b", "c"]], k=60, weights=[1.0, 0.2])
    assert [d for d, _ in fused] == ["b", "a", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 0.2 / 61)
    fused = rrf([["a", "b"], ["b", "c"]], k=60, weights=[1.0, 0.01])
    assert [d for d, _ in fused] == ["a", "b", "c"]  # a light second list barely counts


def test_rerank_mixes_normalised_scores() -> None:
    first = [("a", 10.0), ("b", 6.0), ("c", 2.0), ("d", 1.0)]
    dense = {"a": 0.1, "b": 0.9, "c": 0.5}
    out = rerank(first, [dense], [0.5, 0.5], depth=3)
    # a: .5*1 + .5*0 = .5; b: .5*.5 + .5*1 = .75; c: 0 + .5*.5 = .25; d below the head
    assert [d for d, _ in out] == ["b", "a", "c", "d"]
    assert out[0][1] == pytest.approx(0.75)
    # an entry without a vector keeps the first stage's normalised score in its place
    # (a: .2*1 + .8*0, b: .2*.5 + .8*.5, c: .2*0 + .8*1)
    out = rerank(first, [{"a": 0.1, "c": 0.9}], [0.2, 0.8], depth=3)
    assert [d for d, _ in out][:3] == ["c", "b", "a"]
    assert out[1][1] == pytest.approx(0.5)


def test_fill_appends_what_the_first_stage_missed() -> None:
    assert [d for d, _ in fill([("a", 1.0)], [["b", "a", "c"]], 3)] == ["a", "b", "c"]
    assert [d for d, _ in fill([("a", 1.0), ("b", 0.5)], [["c"]], 2)] == ["a", "b"]


@given(st.lists(st.tuples(st.integers(0, 30), st.floats(0, 100)), max_size=30,
                unique_by=lambda t: t[0]),
       st.dictionaries(st.integers(0, 30), st.floats(-1, 1), max_size=30),
       st.floats(0, 1), st.integers(1, 40))
def test_rerank_is_a_permutation_of_the_first_stage(first: list[tuple[int, float]],
                                                     dense: dict[int, float], w: float,
                                                     depth: int) -> None:
    first = sorted(first, key=lambda t: -t[1])
    out = rerank(first, [dense], [1 - w, w], depth)
    assert sorted(d for d, _ in out) == sorted(d for d, _ in first)
    assert [d for d, _ in out][depth:] == [d for d, _ in first][depth:]
    if w == 0:  # all weight on the first stage: its order stands (ties by position)
        assert [d for d, _ in out] == [d for d, _ in first] or len({s for _, s in first}) < len(
            first)


def test_fusion_defaults_follow_the_config() -> None:
    from lean_memory.config import Config

    f = Fusion.of(Config(retrievers=("bm25", "ollama")), ["bm25", "ollama"])
    assert (f.mode, f.depth, f.weights) == ("rerank", 20, (0.6, 0.4))
    f = Fusion.of(Config(fusion="rrf", fusion_weights=(("ollama", 0.3),)), ["bm25", "ollama"])
    assert (f.mode, f.weights) == ("rrf", (1.0, 0.3))
