"""The read side never carries a credential into an agent's context (issue 9, ADR 0011).

Credentials are typed into the shards by hand, as a user or a merge would, and every read
path is run as a real process: ``get --query`` (plain and ``--json``), ``get SHARD`` (plain,
``--json``, ``--archive``), ``get --digest``, both agent hooks; then the API, the caches and
compaction. The secret strings are built at run time, and assertions never put them into a
failure message (``_absent`` reports only where a secret was found).
"""

from __future__ import annotations

import itertools
import json
import marshal
import random
import string
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import format as fmt
from lean_memory.bm25 import BM25Index, documents_terms
from lean_memory.fsutil import CACHE_PREFIX
from lean_memory.secrets import scan_text
from lean_memory.shown import read_shown
from lean_memory.withhold import Verdicts

from .conftest import run_cli


def _token(prefix: str, n: int, seed: int) -> str:
    rng = random.Random(seed)
    return prefix + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


# Built at run time, so the repository itself scans clean.
GITHUB = _token("gh" + "p_", 36, 1)
_RNG = random.Random(2)
AWS = "AK" + "IA" + "".join(_RNG.choice(string.ascii_uppercase + "234567") for _ in range(16))
SLACK = "xo" + "xb-" + "2817364519-4829174635-" + _token("", 24, 3)
WORDS4 = "".join(["Tr0u", "b4do", "r&3x", "K9#m", "Q2vL"])
SECRETS = (GITHUB, AWS, SLACK, WORDS4)


def _pieces(secret: str) -> list[str]:
    """The secret and every 10-character piece of it: none may appear anywhere."""
    return [secret, *(secret[i:i + 10] for i in range(len(secret) - 9))]


def _absent(where: str, data: str | bytes) -> None:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    for n, secret in enumerate(SECRETS):
        for piece in _pieces(secret):
            if piece in text:
                pytest.fail(f"part of secret #{n} found in {where}", pytrace=False)


def _entry(shard: str, entry_id: str, title: str, text: str) -> str:
    return fmt.render_entry(fmt.Entry(id=entry_id, shard=shard, title=title, text=text,
                                      date="2026-03-04"))


def _append(mem: lean_memory.Memory, shard: str, raw: str, *, archive: bool = False) -> None:
    path = mem.shard_path(shard, archive=archive)
    current = mem.read_text(path) or f"# {shard}\n\n"
    path.write_text(fmt.ensure_separated(current) + raw, encoding="utf-8")


@pytest.fixture
def leaky(tmp_path: Path) -> lean_memory.Memory:
    """A memory with clean entries and four hand-typed credentials."""
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    mem.put_entry("quirks", "Redis timeout on windows: raise the socket timeout to 5 s.",
                  date="2026-01-02")
    mem.put_entry("failures", "Redis deploy failed on windows: the port was taken.",
                  date="2026-01-03")
    mem.put_entry("conventions", "Always run ruff before a commit.", date="2026-01-04")
    _append(mem, "quirks", _entry("quirks", "aaaa0001", "Redis deploy token on windows",
                                  f"The redis deploy on windows uses {GITHUB} as its token."))
    _append(mem, "failures", _entry("failures", "aaaa0002", f"Redis key {AWS} on windows",
                                    "The redis deploy on windows broke with this key."))
    _append(mem, "conventions", _entry("conventions", "aaaa0003", "Deploy with the bot",
                                       f"Post deploys to slack with {SLACK}."))
    _append(mem, "insights", _entry("insights", "aaaa0004", "Redis admin on windows",
                                    f'redis windows admin db_password = "{WORDS4}"'))
    return mem


def _cache_files(mem: lean_memory.Memory) -> None:
    for path in sorted(mem.cache_dir.rglob("*")):
        if path.is_file():
            _absent(f"cache file {path.name}", path.read_bytes())


def test_the_credentials_are_real_findings() -> None:
    for n, secret in enumerate(SECRETS):
        text = f'db_password = "{secret}"' if secret is WORDS4 else f"use {secret} here"
        if not scan_text(text):  # never `assert scan_text(text)`: it would print the text
            pytest.fail(f"secret #{n} is not detected: the tests below would prove nothing")


def test_get_query_skips_and_says_so(leaky: lean_memory.Memory) -> None:
    r = run_cli("get", "--query", "redis deploy windows token key admin", "-k", "10",
                cwd=leaky.root)
    assert r.returncode == 0
    _absent("stdout", r.stdout)
    _absent("stderr", r.stderr)
    out = r.stdout.decode()
    assert "Redis timeout on windows" in out and "Redis deploy failed" in out
    assert "aaaa000" not in out
    assert b"4 entries withheld: they hold a credential" in r.stderr
    _, stderr = json_hits(leaky.root, "redis deploy windows token key admin")
    assert b"withheld" in stderr
    _cache_files(leaky)


def json_hits(root: Path, query: str, *args: str) -> tuple[list[dict[str, object]], bytes]:
    """`get --query --json`'s hits (none withheld, no secret in its output) and stderr."""
    r = run_cli("get", "--query", query, *args, "--json", cwd=root)
    assert r.returncode == 0
    _absent("--json stdout", r.stdout)
    _absent("--json stderr", r.stderr)
    hits: list[dict[str, object]] = json.loads(r.stdout)
    assert hits and not any(str(h["id"]).startswith("aaaa") for h in hits)
    return hits, r.stderr


def test_get_query_counts_only_withheld_entries_that_match(leaky: lean_memory.Memory) -> None:
    r = run_cli("get", "--query", "socket timeout", cwd=leaky.root)
    assert r.returncode == 0 and b"Redis timeout" in r.stdout
    assert b"withheld" not in r.stderr


def test_get_shard_replaces_the_entry_by_a_notice(leaky: lean_memory.Memory) -> None:
    path = leaky.shard_path("quirks")
    r = run_cli("get", "quirks", cwd=leaky.root)
    assert r.returncode == 0
    _absent("stdout", r.stdout)
    _absent("stderr", r.stderr)
    out = r.stdout.decode()
    clean = leaky.read_text(path).split("## Redis deploy token")[0]
    assert out.startswith(clean)
    assert "> [withheld] entry `aaaa0001` holds a credential" in out
    assert out.count("\n") <= clean.count("\n") + 2
    assert b"1 entry withheld: it holds a credential" in r.stderr
    r = run_cli("get", "quirks", "--json", cwd=leaky.root)
    _absent("--json", r.stdout + r.stderr)
    assert [e["id"] for e in json.loads(r.stdout)] == [leaky.entries("quirks")[0].id]
    for shard in ("failures", "conventions", "insights"):
        r = run_cli("get", shard, cwd=leaky.root)
        _absent(f"get {shard}", r.stdout + r.stderr)
        assert b"[withheld] entry `aaaa000" in r.stdout
    _cache_files(leaky)


def test_get_archive_withholds(leaky: lean_memory.Memory) -> None:
    _append(leaky, "seed", _entry("seed", "aaaa0005", "Old key", f"key {AWS}"), archive=True)
    r = run_cli("get", "seed", "--archive", cwd=leaky.root)
    assert r.returncode == 0
    _absent("get --archive", r.stdout + r.stderr)
    assert b"`aaaa0005`" in r.stdout
    r = run_cli("get", "seed", "--archive", "--json", cwd=leaky.root)
    _absent("get --archive --json", r.stdout + r.stderr)
    assert json.loads(r.stdout) == []


def _hook(event: str, payload: dict[str, object], cwd: Path) -> str:
    r = run_cli("hook", event, cwd=cwd, stdin=json.dumps(payload).encode())
    assert r.returncode == 0
    _absent(f"hook {event} stdout", r.stdout)
    _absent(f"hook {event} stderr", r.stderr)
    context: str = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    return context


def test_both_hooks_withhold_and_say_so(leaky: lean_memory.Memory) -> None:
    start = _hook("session-start", {"hook_event_name": "SessionStart", "cwd": str(leaky.root),
                                    "source": "startup"}, leaky.root)
    assert "Always run ruff" in start and "Deploy with the bot" not in start
    assert "1 entry withheld: it holds a credential; run `lean-memory scan" in start
    prompt = _hook("user-prompt-submit", {
        "hook_event_name": "UserPromptSubmit", "cwd": str(leaky.root),
        "prompt": "why does the redis deploy fail on windows with this token and key?"},
        leaky.root)
    assert "Redis deploy failed" in prompt and "Always run ruff" in prompt
    assert "aaaa000" not in prompt
    assert "entries withheld: they hold a credential" in prompt
    r = run_cli("get", "--digest", "redis deploy windows token", cwd=leaky.root)
    _absent("get --digest", r.stdout + r.stderr)
    assert b"withheld: they hold a credential" in r.stdout
    _cache_files(leaky)
    log = leaky.cache_dir / "hook.log"
    if log.exists():
        _absent("hook.log", log.read_bytes())


def test_digest_with_a_tiny_budget_stays_within_it(leaky: lean_memory.Memory) -> None:
    from lean_memory.tokens import estimate_tokens

    for budget in (0, 40, 120, 300):
        text = leaky.digest("redis deploy windows token", budget_tokens=budget)
        _absent("digest", text)
        assert estimate_tokens(text) <= budget


def test_api_returns_no_hit_and_no_text(leaky: lean_memory.Memory) -> None:
    hits = leaky.search("redis deploy windows token key admin", k=10)
    assert hits and all(not h.entry.id.startswith("aaaa") for h in hits)
    for h in hits:
        _absent("a Hit", repr(h))
    _absent("get_memory", leaky.get_memory("quirks"))
    _absent("get_memory query", leaky.get_memory(query="redis windows token"))
    _absent("digest", leaky.digest("redis deploy on windows with the slack bot token"))


def test_show_list_and_the_memory_tool_withhold(leaky: lean_memory.Memory) -> None:
    r = run_cli("show", "aaaa0001", cwd=leaky.root)
    assert r.returncode == 0
    _absent("show", r.stdout + r.stderr)
    assert b"[withheld] entry `aaaa0001`" in r.stdout and b"1 entry withheld" in r.stderr
    r = run_cli("show", "aaaa0002", "--json", cwd=leaky.root)
    _absent("show --json", r.stdout + r.stderr)
    assert json.loads(r.stdout)["id"] == "aaaa0002"
    for args in (("list",), ("list", "--json")):
        r = run_cli(*args, cwd=leaky.root)
        assert r.returncode == 0
        _absent(" ".join(args), r.stdout + r.stderr)
        assert b"aaaa0001" in r.stdout and b"4 entries withheld" in r.stderr
    from lean_memory.memory_tool import MemoryToolHandler

    tool = MemoryToolHandler(leaky)
    for path in ("/memories/quirks.md", "/memories/failures.md", "/memories/conventions.md",
                 "/memories/insights.md", "/memories/INDEX.md"):
        _absent(f"memory tool view {path}", tool.execute({"command": "view", "path": path}))


def test_plugin_retrievers_never_see_a_withheld_entry(leaky: lean_memory.Memory) -> None:
    seen: list[str] = []

    class Spy:
        name = "spy"

        def rank(self, query: str, entries: Sequence[lean_memory.Entry],
                 k: int) -> list[tuple[str, float]]:
            seen.extend(e.raw for e in entries)
            return [(e.id, 1.0) for e in entries[:k]]

    mem = lean_memory.Memory(leaky.root, retrievers=[Spy(), lean_memory.BM25()])
    hits = mem.search("redis deploy windows token key admin", k=10)
    assert seen and hits and all(not h.entry.id.startswith("aaaa") for h in hits)
    _absent("what a plugin retriever was given", "".join(seen))


def test_the_hook_keeps_the_withheld_note_when_it_cuts(leaky: lean_memory.Memory) -> None:
    for i in range(40):
        leaky.put_entry("conventions", f"Rule {i}: redis deploys on windows need step {i} "
                        + "of the runbook, " * 12, date="2026-02-01")
    r = run_cli("hook", "user-prompt-submit", cwd=leaky.root,
                stdin=json.dumps({"hook_event_name": "UserPromptSubmit",
                                  "cwd": str(leaky.root),
                                  "prompt": "redis deploy windows token"}).encode(),
                env={"LEAN_MEMORY_DIGEST_TOKENS": "20000"})
    _absent("hook output", r.stdout + r.stderr)
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 9000
    assert context.rstrip().endswith("run `lean-memory scan .agents/memory`)_")


def test_an_index_typed_by_hand_is_rendered_afresh(leaky: lean_memory.Memory) -> None:
    leaky.index()
    with leaky.index_path.open("a", encoding="utf-8") as fh:
        fh.write(f"\nadmin key: {AWS}\n")
    r = run_cli("get", cwd=leaky.root)
    assert r.returncode == 0 and b"# Memory index" in r.stdout
    _absent("get", r.stdout + r.stderr)
    _absent("digest", leaky.digest("redis"))


def test_allowlist_counts_but_not_allow_paths(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    (tmp_path / ".agents" / "config.toml").write_text(
        '[memory]\n[secrets]\nallow_paths = ["*"]\n', encoding="utf-8")
    _append(mem, "quirks", _entry("quirks", "bbbb0001", "Redis key", f"redis key {AWS}"))
    _append(mem, "quirks", _entry("quirks", "bbbb0002", "Redis fixture",
                                  f"redis fixture {SLACK}  # lean-memory: allow"))
    mem = lean_memory.Memory(tmp_path)
    assert mem.config.allow_paths, "the config above sets allow_paths"
    _, ids = read_shown(mem, "quirks")
    assert ids == ["bbbb0001"]  # allow_paths does not count; the inline marker does
    [finding] = scan_text(f"redis key {AWS}")
    (tmp_path / ".agents" / "config.toml").write_text(
        f'[memory]\n[secrets]\nallow_fingerprints = ["{finding.fingerprint}"]\n',
        encoding="utf-8")
    mem = lean_memory.Memory(tmp_path)
    _, ids = read_shown(mem, "quirks")
    assert ids == []
    assert [h.entry.id for h in mem.search("redis key", k=5)][:1] == ["bbbb0001"]


def test_verdicts_are_remembered_and_a_corrupt_cache_is_ignored(
        leaky: lean_memory.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    first = read_shown(leaky, "quirks")
    caches = [leaky.cache_dir / "withheld.marshal", leaky.cache_dir / "verdicts.marshal"]
    assert all(c.is_file() for c in caches)
    raws = [e.raw for e in leaky.entries("quirks")]

    def no_scan(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("scanned again")

    monkeypatch.setattr("lean_memory.secrets.scan_text", no_scan)
    assert read_shown(leaky, "quirks") == first  # the file's verdict
    assert Verdicts(leaky).holding(raws) == [False, True]  # the entries' verdicts
    monkeypatch.undo()
    for cache in caches:
        good = cache.read_bytes()
        for garbage in (b"", b"\x00garbage", good[:-7], marshal.dumps([1, 2, 3])):
            cache.write_bytes(garbage)
            assert read_shown(leaky, "quirks") == first
            assert Verdicts(leaky).holding(raws) == [False, True]
    v = Verdicts(leaky)
    v.holding(raws)
    v.save()  # learned again and written
    raw = caches[1].read_bytes()
    data = marshal.loads(raw[CACHE_PREFIX:])
    data[1] = marshal.dumps({k: False for k in marshal.loads(data[1])})  # tampered payload
    caches[1].write_bytes(raw[:CACHE_PREFIX] + marshal.dumps(data))
    assert Verdicts(leaky).holding(raws) == [False, True]


def test_an_edited_entry_is_judged_again(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    mem.put_entry("quirks", "Redis needs a longer timeout on windows.", date="2026-01-02")
    assert run_cli("get", "--query", "redis timeout", cwd=tmp_path).stdout
    path = mem.shard_path("quirks")
    path.write_text(mem.read_text(path).replace("longer timeout", f"token {GITHUB}"),
                    encoding="utf-8")
    r = run_cli("get", "--query", "redis windows", cwd=tmp_path)
    _absent("get --query after an edit", r.stdout + r.stderr)
    assert b"1 entry withheld" in r.stderr
    _cache_files(mem)


def test_a_clean_memory_reads_as_before(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    redis = mem.put_entry("quirks", "Redis timeout on windows: raise it to 5 s.",
                          date="2026-01-02")
    mem.put_entry("conventions", "Always run ruff before a commit.", date="2026-01-04")
    r = run_cli("get", "quirks", cwd=tmp_path)
    assert r.stdout == mem.shard_path("quirks").read_bytes() and r.stderr == b""
    r = run_cli("get", cwd=tmp_path)
    assert r.stdout == mem.index_path.read_bytes() and r.stderr == b""
    r = run_cli("get", "--query", "redis timeout", cwd=tmp_path)
    # The hit as the README shows it, written out (not rendered by the code under test).
    assert r.stdout.decode() == (
        f"## Redis timeout on windows\n_shard: quirks · id: {redis.id} · date: 2026-01-02_\n"
        "\nRedis timeout on windows: raise it to 5 s.\n") and r.stderr == b""
    context = _hook("user-prompt-submit", {"hook_event_name": "UserPromptSubmit",
                                           "cwd": str(tmp_path), "prompt": "redis timeout"},
                    tmp_path)
    assert "withheld" not in context and "Always run ruff" in context
    assert "Redis timeout on windows" in context


@pytest.mark.parametrize(("budget", "level"), [(560, "short"), (500, "titles")])
def test_compaction_never_copies_a_credential_into_a_gist(tmp_path: Path, budget: int,
                                                          level: str) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    (tmp_path / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = {budget}\nkeep_recent = 1\nauto_compact = false\n",
        encoding="utf-8")
    mem = lean_memory.Memory(tmp_path)
    parts = [_entry("quirks", f"cccc000{i}", f"Redis note {i}",
                    f"Redis note number {i} about windows timeouts and retries. " * 4)
             for i in range(6)]
    parts[1] = _entry("quirks", "dddd0001", "Redis deploy key",
                      f"The deploy uses {GITHUB} for redis. It works on windows.")
    parts[2] = _entry("quirks", "dddd0002", f"Key {AWS}",
                      "A key in the title, prose below.")
    for raw in parts:
        _append(mem, "quirks", raw)
    report = mem.compact()
    assert report.folded
    live = mem.read_text(mem.shard_path("quirks"))
    _absent("the compacted shard", live)
    assert f"detail={level}" in live
    assert "`dddd0001`" in live and "Redis deploy key" in live
    assert "`dddd0002`" in live and "title withheld" in live
    assert "text withheld: it holds a credential" in live
    archive = run_cli("get", "quirks", "--archive", cwd=tmp_path)
    _absent("get --archive after compaction", archive.stdout + archive.stderr)


_COUNTER = itertools.count()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.booleans(), min_size=1, max_size=8),
       st.lists(st.text(alphabet="abcdefgh ijk\n", min_size=1, max_size=40), min_size=8,
                max_size=8))
def test_get_shard_shows_every_clean_entry_and_no_secret(tmp_path: Path, leaks: list[bool],
                                                         bodies: list[str]) -> None:
    root = tmp_path / f"m{next(_COUNTER)}"
    mem = lean_memory.Memory(root)
    mem.init()
    raws = []
    for i, leak in enumerate(leaks):
        body = (bodies[i].strip() or "x") + (f"\nkey {SECRETS[i % 3]}" if leak else "")
        raws.append(_entry("quirks", f"e{i:07d}", f"Entry {i}", body))
        _append(mem, "quirks", raws[-1])
    shown, ids = read_shown(mem, "quirks")
    _absent("get SHARD", shown)
    assert ids == [f"e{i:07d}" for i, leak in enumerate(leaks) if leak]
    parsed = fmt.parse(mem.read_text(mem.shard_path("quirks")), "quirks").entries
    for e, leak in zip(parsed, leaks, strict=True):
        assert (e.raw.rstrip("\n") in shown) is not leak


RANK_WORDS = ["redis", "deploy", "windows", "socket", "port", "timeout", "cache", "docker"]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(RANK_WORDS), min_size=1,
                                                  max_size=8)), min_size=1, max_size=14),
       st.lists(st.sampled_from(RANK_WORDS), min_size=1, max_size=3), st.integers(1, 4))
def test_the_withheld_count_and_hits_agree_with_ranking_everything(
        tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[bool, list[str]]],
        query: list[str], k: int) -> None:
    from lean_memory import search

    mem = lean_memory.Memory(tmp_path_factory.mktemp("m"))
    mem.init()
    for i, (leak, words) in enumerate(rows):
        text = " ".join(words) + (f" uses {GITHUB} as its token." if leak else ".")
        _append(mem, "quirks", _entry("quirks", f"bbbb{i:04d}", f"Note {i}", text))
    q = " ".join(query)
    found = search.find(mem, q, k=k)
    # the reference: BM25 over every entry with its real counts (withheld is a mask, ADR
    # 0051), ranked whole; the withheld ones among its first k are counted, the first k
    # clean ones are the hits
    entries = mem.entries("quirks")
    index = BM25Index.from_counts(
        documents_terms([(e.title, fmt.main_text(e.text)) for e in entries], title_weight=2.0),
        k1=mem.config.bm25_k1, b=mem.config.bm25_b, title_weight=2.0)
    ranked = [n for n, _ in index.top(q, len(entries), newer=[e.date or "" for e in entries])]
    leaked = [leak for leak, _ in rows]
    assert found.withheld == sum(leaked[n] for n in ranked[:k])
    assert [h.entry.id for h in found.hits] == [entries[n].id for n in ranked
                                                if not leaked[n]][:k]


def test_a_credential_claimed_by_the_previous_entrys_match_is_still_withheld(
        tmp_path: Path) -> None:
    """Catches: the rescan guard of the batch scan gone (withhold._batch_findings scans all
    of a shard's entries as one text; a key block opened in one entry runs on into the next
    and claims its credential, which is then reported on the first entry's line only, so
    the next entry is shown with its credential unless it is scanned again alone)."""
    header = "-----" + "BEGIN RSA " + "PRIVATE KEY" + "-----"  # a header alone is no finding
    value = _token("", 40, 7)
    first = f"Our deploy keys start with the line {header}"
    second = f"aws_secret_access_key = {value}"
    # the fixture reaches the case: each text alone, and both in one batch as withhold
    # joins them, give one finding only, on the first text's line
    joined = first + "\n\n" + second + "\n\n"
    if scan_text(first) or not scan_text(second):
        pytest.fail("the texts do not make the case (first must be clean, second not)")
    if [f.line for f in scan_text(joined)] != [1]:
        pytest.fail("the key block of the first text no longer claims the second's value")
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    assert Verdicts(mem).holding([first, second])[1] is True
    _append(mem, "quirks", _entry("quirks", "bbbb0001", "Deploy keys", first)
            + _entry("quirks", "bbbb0002", "AWS for the deploy", second))
    shown, ids = read_shown(mem, "quirks")
    assert "bbbb0002" in ids
    if value in shown or value[:10] in shown:
        pytest.fail("the second entry's credential is shown", pytrace=False)
