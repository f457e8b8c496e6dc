"""A cloned repository's ``.agents/memory/.cache/`` decides nothing (issue 20, item 2).

Each test builds the hostile cache with lean_memory's own writer (``fsutil.write_cache``) as
another machine runs it: with another user's key (on the code before the fix, which had no
key, the very format it read), with the decisions it records tampered. The cache is
force-added and committed, the repository cloned with real git, and the real commands run in
the clone: their answers must equal those of a clone without any cache, and every
protection (put's secret refusal, ``scan --staged``, read-side withholding, the configured
ollama host) must hold. Caches bound to a file's signature (size, mtime, inode) cannot
travel by git, so those are planted in the clone itself, as by an attacker who could
predict the signature (a restored archive).
"""

from __future__ import annotations

import json
import marshal
import os
import random
import shutil
import string
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import lean_memory
from lean_memory import format as fmt
from lean_memory import fsutil, shown, withhold
from lean_memory.config import Config

from .conftest import git
from .test_boundary import lm


def _token(prefix: str, n: int, seed: int) -> str:
    rng = random.Random(seed)
    return prefix + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


GITHUB = _token("gh" + "p_", 36, 7)  # built at run time: the repository scans clean
CONFIG = '[memory]\nretrievers = ["bm25"]\n'
ATTACKER_KEY = bytes(range(32))
PROMPT = "how do we deploy after the database migration"
LEAK_ID = "leak0001"


def _absent(where: str, data: str | bytes) -> None:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    for piece in (GITHUB, *(GITHUB[i:i + 10] for i in range(len(GITHUB) - 9))):
        if piece in text:
            pytest.fail(f"part of the token found in {where}", pytrace=False)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A repository with a memory, an entry holding a credential (typed in by hand) and a
    config file, committed."""
    root = tmp_path / "origin"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / ".agents").mkdir()
    (root / ".agents" / "config.toml").write_text(CONFIG, encoding="utf-8")
    mem = lean_memory.Memory(root)
    mem.init()
    mem.put_entry("quirks", "Deploy only after the database migration has finished.",
                  date="2026-01-02")
    mem.put_entry("conventions", "Run the migration before every deploy.", date="2026-01-03")
    path = mem.shard_path("quirks")
    raw = fmt.render_entry(fmt.Entry(id=LEAK_ID, shard="quirks", title="Deploy token",
                                     text=f"deploy migration with token {GITHUB}",
                                     date="2026-01-04"))
    path.write_text(fmt.ensure_separated(mem.read_text(path)) + raw, encoding="utf-8")
    shutil.rmtree(mem.cache_dir, ignore_errors=True)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")
    return root


class _Always(dict[str | None, bytes | None]):
    """A key cache that answers one key for every key folder."""

    def __init__(self, key: bytes) -> None:
        super().__init__()
        self.key = key

    def __contains__(self, folder: object) -> bool:
        return True

    def __getitem__(self, folder: str | None) -> bytes | None:
        return self.key


@pytest.fixture
def attacker(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """Within the context: lean_memory writes caches as the attacker's machine would (its
    own key) and judges no text to hold a credential. Call the yielded function to end it."""
    patch = pytest.MonkeyPatch()
    patch.setattr(fsutil, "_keys", _Always(ATTACKER_KEY))
    patch.setattr(withhold, "_batch_findings", lambda texts, allow: [False] * len(texts))
    yield patch.undo
    patch.undo()


def _commit_cache(root: Path) -> None:
    git(root, "add", "-f", ".agents/memory/.cache")
    git(root, "commit", "-q", "-m", "hostile cache")


def _clone(origin: Path, where: Path) -> Path:
    where.mkdir()
    target = where / "repo"
    git(where, "clone", "-q", str(origin), str(target))
    return target


def _clean(origin: Path, where: Path) -> Path:
    """A clone with no cache at all: the answers to compare with."""
    root = _clone(origin, where)
    shutil.rmtree(root / ".agents" / "memory" / ".cache", ignore_errors=True)
    return root


def _answers(root: Path) -> dict[str, tuple[int, str, str]]:
    """What every read command prints (code, stdout, stderr), with nothing leaked."""
    hook = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": PROMPT,
                       "cwd": str(root)}).encode()
    runs = {"get": ("get", "quirks"), "query": ("get", "--query", "deploy migration token"),
            "index": ("get",), "status": ("status",), "list": ("list",),
            "show": ("show", LEAK_ID), "hook": ("hook", "user-prompt-submit")}
    out = {}
    for name, args in runs.items():
        r = lm(root, *args, stdin=hook if name == "hook" else b"")
        _absent(f"the output of {name}", r.out + r.err)
        out[name] = (r.code, r.out, r.err)
    return out


def test_a_committed_config_cache_turns_no_protection_off(
        origin: Path, tmp_path: Path, attacker: Callable[[], None]) -> None:
    """Bug: ``config.marshal`` was believed whenever it named the config file's bytes, so
    a clone could allowlist every credential (put, scan --staged, withholding) and point
    the ollama retriever at a remote host."""
    hostile = {"memory": {"retrievers": ["bm25", "ollama"]},
               "secrets": {"allow_rules": ["github-pat"], "allow_paths": ["*", "**"]},
               "ollama": {"host": "http://203.0.113.7:11434", "allow_remote": True}}
    raw = (origin / ".agents" / "config.toml").read_bytes()
    assert fsutil.write_cache(origin / ".agents/memory/.cache/config.marshal",
                              marshal.dumps([raw, hostile]))
    attacker()
    _commit_cache(origin)
    clone = _clone(origin, tmp_path / "a")
    assert (clone / ".agents/memory/.cache/config.marshal").is_file()
    assert lean_memory.Memory(clone).config == Config(retrievers=("bm25",))
    assert _answers(clone) == _answers(_clean(origin, tmp_path / "b"))
    shards = {p.name: p.read_bytes() for p in (clone / ".agents/memory").glob("*.md")}
    r = lm(clone, "put", "quirks", f"the deploy token is {GITHUB}")
    assert r.code == 1 and "refused" in r.err
    _absent("put", r.out + r.err)
    assert {p.name: p.read_bytes() for p in (clone / ".agents/memory").glob("*.md")} == shards
    (clone / "deploy.env").write_text(f"TOKEN={GITHUB}\n", encoding="utf-8")
    git(clone, "add", "deploy.env")
    r = lm(clone, "scan", "--staged")
    assert r.code == 1, r
    assert lean_memory.Memory(clone).config.ollama_host == ""


def test_committed_withholding_caches_withhold_nothing_less(
        origin: Path, tmp_path: Path, attacker: Callable[[], None]) -> None:
    """Bug: ``withheld.marshal`` and ``verdicts.marshal`` are keyed by content hashes anyone
    can compute, so a committed pair saying "holds nothing" showed the entry's token."""
    from lean_memory.shown import read_shown

    mem = lean_memory.Memory(origin)
    read_shown(mem, "quirks")
    mem.search("deploy migration token")
    attacker()
    assert {"withheld.marshal", "verdicts.marshal"} <= {p.name for p in mem.cache_dir.iterdir()}
    _commit_cache(origin)
    clone = _clone(origin, tmp_path / "a")
    assert _answers(clone) == _answers(_clean(origin, tmp_path / "b"))


def test_a_committed_spans_cache_does_not_unwithhold(origin: Path, tmp_path: Path,
                                                     attacker: Callable[[], None]) -> None:
    """Bug: an empty list of spans in ``withheld-spans.marshal`` passed the spans' check,
    so ``get SHARD`` printed the withheld entry whole."""
    mem = lean_memory.Memory(origin)
    text = mem.read_text(mem.shard_path("quirks"))
    bad = [withhold.content_key(e.raw) for e in fmt.parse(text, "quirks").entries
           if e.id == LEAK_ID]
    assert fsutil.dump_record(mem.cache_dir / "withheld-spans.marshal", shown._SPANS_VERSION,
                              ({withhold.content_key(text): [bad, []]},))
    attacker()
    _commit_cache(origin)
    clone = _clone(origin, tmp_path / "a")
    assert _answers(clone) == _answers(_clean(origin, tmp_path / "b"))


def test_caches_of_a_predicted_signature_decide_nothing(
        origin: Path, tmp_path: Path, attacker: Callable[[], None]) -> None:
    """Bug: the search index parts (their list of withheld entries), stats, status and put
    state were believed whenever their shard signature matched: with it predicted, a part
    built as if nothing were withheld returned the token to a query."""
    from lean_memory.shown import read_shown

    clone = _clone(origin, tmp_path / "a")
    mem = lean_memory.Memory(clone)
    mem.status()
    read_shown(mem, "quirks")
    mem.search("deploy migration token")
    attacker()
    for name in ("withheld.marshal", "verdicts.marshal", "config.marshal"):
        (mem.cache_dir / name).unlink()  # the test above: here only what a signature binds
    kinds = {p.name.split("-")[0].split(".")[0] for p in mem.cache_dir.iterdir()}
    assert {"search", "stats", "put"} <= kinds  # put: the put state, status's cache too
    assert _answers(clone) == _answers(_clean(origin, tmp_path / "b"))


HUGE = 61 << 20


@pytest.mark.skipif(os.name != "posix", reason="peak memory from wait4")
def test_huge_committed_caches_are_not_decoded(origin: Path, tmp_path: Path) -> None:
    """Bug: ``.cache/*.marshal`` files were decoded before any check: three 61 MiB ones
    (12M integers each) took ``status`` to gigabytes. Also a link and a cache of another
    version, committed: the answers are those without a cache."""
    cache = origin / ".agents" / "memory" / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    n = (HUGE - 5) // 5  # a list of n integers, each decoded as an object of its own
    blob = b"[" + n.to_bytes(4, "little") + (b"i" + (100_000).to_bytes(4, "little")) * n
    for name in ("status.marshal", "put-state.marshal", "config.marshal"):
        (cache / name).write_bytes(blob)
    os.symlink("/dev/zero", cache / "stats-live-quirks.marshal")
    (cache / "withheld.marshal").write_bytes(b"lmc1" + bytes(16)
                                             + marshal.dumps(["lean_memory.withhold/0"]))
    _commit_cache(origin)
    clone = _clone(origin, tmp_path / "a")
    assert (clone / ".agents/memory/.cache/status.marshal").stat().st_size > 60 << 20
    r = lm(clone, "status", timeout=120)
    assert r.code == 0, r.err
    assert r.peak_rss < 200 << 20, r.peak_rss
    assert _answers(clone) == _answers(_clean(origin, tmp_path / "b"))


def test_without_a_usable_key_there_is_no_cache_and_no_error(origin: Path,
                                                            tmp_path: Path) -> None:
    """No home, a read-only one, or a key file others could read: every command answers as
    without a cache, writes none, and never fails. (Before: there was no key at all.)"""
    home = tmp_path / "home"
    (home / ".cache" / "lean_memory").mkdir(parents=True)
    key = home / ".cache" / "lean_memory" / "cache-key"
    key.write_bytes(os.urandom(32))
    key.chmod(0o644)  # readable by others: anyone could forge a cache
    expected = _answers(_clean(origin, tmp_path / "b"))
    (tmp_path / "afile").write_text("a file, not a folder")
    for i, env in enumerate(({"HOME": str(home), "XDG_CACHE_HOME": ""},
                             {"HOME": "relative/home", "XDG_CACHE_HOME": "relative/path"},
                             {"HOME": str(tmp_path / "afile" / "home"), "XDG_CACHE_HOME": ""})):
        clone = _clone(origin, tmp_path / f"c{i}")
        r = subprocess.run([sys.executable, "-m", "lean_memory", "get", "--query",
                            "deploy migration token"], cwd=clone, capture_output=True,
                           env={**os.environ, "PYTHONPATH": str(Path(lean_memory.__file__)
                                                                 .parent.parent), **env},
                           timeout=60, check=False)
        assert (r.returncode, r.stdout.decode(), r.stderr.decode()) == expected["query"]
        cached = [p.name for p in (clone / ".agents/memory/.cache").glob("*.marshal")]
        assert cached == []
    assert key.read_bytes() and key.stat().st_mode & 0o777 == 0o644  # left alone


def test_the_key_is_private_and_made_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-user key: 0600, outside any repository, not replaced once made, not read
    through a link."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(fsutil, "_keys", {})  # this process's, restored after
    first = fsutil.cache_key()
    path = tmp_path / "xdg" / "lean_memory" / "cache-key"
    assert first is not None and path.read_bytes() == first
    assert path.stat().st_mode & 0o777 == 0o600
    fsutil._keys.clear()
    assert fsutil.cache_key() == first
    path.unlink()
    os.symlink(tmp_path / "elsewhere", path)
    (tmp_path / "elsewhere").write_bytes(first)
    fsutil._keys.clear()
    assert fsutil.cache_key() is None


ONLY = "; lean_memory reads only the tables [memory], [secrets] and [ollama]"


@pytest.mark.parametrize(("toml", "message"), [
    ("[memroy]\ntoken_budget = 100\n[secrets]\nallow_rules = []\n",
     "config: unknown table [memroy] (its keys token_budget are not read)" + ONLY),
    ("token_budget = 100\n", "config: unknown key 'token_budget' outside any table" + ONLY),
    ("[memory]\nshards = " + "[" * 5000 + "]" * 5000 + "\n",
     "config: config.toml nests tables or arrays too deeply"),
], ids=["misspelt-table", "key-outside-tables", "5000-deep"])
def test_a_misspelt_or_too_deep_config_is_one_clear_error(tmp_path: Path, toml: str,
                                                          message: str) -> None:
    """Bug (issue 20, item 8): a misspelt table was ignored without a word (its settings
    lost: an allowlist, a host), and a 5,000-deep TOML was an internal RecursionError."""
    lean_memory.Memory(tmp_path).init()
    (tmp_path / ".agents" / "config.toml").write_text(toml, encoding="utf-8")
    for args in (("status",), ("get", "--query", "deploy"), ("put", "quirks", "A fact.")):
        r = lm(tmp_path, *args)
        assert (r.code, r.out) == (2, ""), (args, r)
        assert r.err == f"lean-memory: error: {message}\n"


def test_a_committed_compaction_journal_is_never_replayed(
        origin: Path, tmp_path: Path, attacker: Callable[[], None]) -> None:
    """Bug: a ``compaction.journal`` naming a shard as it is committed was replayed by the
    clone's first write, putting in text (a token here) that no put had checked."""
    from lean_memory._hash import sha256

    shard = origin / ".agents" / "memory" / "quirks.md"
    text = shard.read_text(encoding="utf-8")
    after = text.replace(f"token {GITHUB}", "").rstrip() + f"\n\nInjected: {GITHUB}\n"
    record = json.dumps({"v": "lean_memory.compaction-journal/1", "files": [
        {"shard": "quirks", "archive": False, "after": after,
         "before": sha256(text.encode()).hexdigest()}]}).encode()
    seal = getattr(fsutil, "sealed", lambda name, data: data)  # the format each version reads
    journal = origin / ".agents" / "memory" / ".cache" / "compaction.journal"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_bytes(seal("compaction.journal", record))
    attacker()
    _commit_cache(origin)
    clone = _clone(origin, tmp_path / "a")
    r = lm(clone, "put", "conventions", "Tag releases after the deploy.")
    assert r.code == 0, r.err
    unchanged = (clone / ".agents/memory/quirks.md").read_text(encoding="utf-8") == text
    assert unchanged, "the journal was replayed"  # (no diff shown: it holds the token)
    _absent("get", lm(clone, "get", "quirks").out)
