"""The ``ollama`` retriever against a fake Ollama server on 127.0.0.1.

The server speaks the real ``/api/embed`` shapes (``{"model", "input": [...]}`` ->
``{"model", "embeddings": [[...]]}``; a model that is not pulled is HTTP 404 with
``{"error": "model ... not found, try pulling it first"}``) and answers with toy vectors:
words of one concept share a dimension, so a paraphrase that shares no word with its
entry is close to it, as with a real model.
"""

from __future__ import annotations

import json
import random
import re
import string
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from hashlib import blake2b
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lean_memory import Memory
from lean_memory import format as fmt
from lean_memory.embedcmd import embed_missing
from lean_memory.fsutil import CACHE_PREFIX
from lean_memory.ollama import OllamaError, base_url, vectors_path
from lean_memory.search import find
from lean_memory.vectors import MAGIC, Vectors

from .conftest import loopback, run_cli

CONCEPTS = {w: i for i, group in enumerate([
    ("car", "automobile", "vehicle"), ("crash", "collision", "accident"),
    ("postgres", "database", "sql"), ("slow", "sluggish", "latency"),
    ("linters", "lint", "style"), ("commit", "push", "merge"),
]) for w in group}
DIM = 16


def toy(text: str) -> list[float]:
    for prefix in ("search_document: ", "search_query: "):
        text = text.removeprefix(prefix)
    v = [0.0] * DIM
    for word in re.findall(r"[a-z]+", text.lower()):
        i = CONCEPTS.get(word)
        if i is None:
            i = 8 + blake2b(word.encode(), digest_size=1).digest()[0] % 8
        v[i] += 1.0
    v[-1] += 0.01
    return v


class Fake:
    """What the server does: ``mode`` picks the answer; every request is recorded."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.requests: list[dict[str, Any]] = []
        self.gate = threading.Event()  # cleared: every answer waits (up to 2 min) for it
        self.gate.set()


def _handler(fake: Fake) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with suppress(BrokenPipeError):  # the client gave up waiting (the slow mode)
                self.wfile.write(body)

        def do_POST(self) -> None:
            data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.requests.append(data)
            fake.gate.wait(120)
            model, inputs = data["model"], data["input"]
            mode = fake.mode
            if self.path != "/api/embed":
                return self._send(404, b"404 page not found")
            if mode == "not-pulled":
                return self._send(404, json.dumps(
                    {"error": f'model "{model}" not found, try pulling it first'}).encode())
            if mode == "slow":
                time.sleep(3)
            vectors = [toy(t) for t in inputs]
            answer: Any = {"model": model, "embeddings": vectors,
                           "total_duration": 1, "load_duration": 1, "prompt_eval_count": 1}
            if mode == "not-json":
                return self._send(200, b"<html>oops</html>")
            if mode == "no-embeddings":
                answer = {"model": model, "embedding": vectors[0]}
            elif mode == "too-few":
                answer["embeddings"] = vectors[:-1]
            elif mode == "ragged":
                answer["embeddings"] = [v[: DIM - 1 - i] for i, v in enumerate(vectors)]
            elif mode == "strings":
                answer["embeddings"] = [[str(x) for x in v] for v in vectors]
            elif mode == "other-dimension":
                answer["embeddings"] = [[*v, 1.0] for v in vectors]
            return self._send(200, json.dumps(answer).encode())

    return Handler


@pytest.fixture
def fake() -> Iterator[tuple[Fake, str]]:
    state = Fake()
    with loopback(_handler(state)) as url:
        yield state, url


def configure(mem: Memory, host: str, extra: str = "", ollama: str = "") -> Memory:
    if "embed_on_put" not in ollama:  # the background embedder: only where a test asks
        ollama += "\nembed_on_put = false"
    (mem.agents_dir / "config.toml").write_text(
        f'[memory]\nretrievers = ["bm25", "ollama"]\n{extra}\n'
        f'[ollama]\nhost = "{host}"\n{ollama}\n')
    return Memory(mem.root)


def fill_memory(mem: Memory) -> None:
    mem.put_entry("failures", "Automobile collision in the parking lot report",
                  title="Automobile collision", date="2026-01-10")
    mem.put_entry("quirks", "postgres: vacuum weekly", title="postgres vacuum",
                  date="2026-01-11")
    mem.put_entry("quirks", "postgres latency: queries get sluggish at night",
                  title="postgres at night", date="2026-01-12")
    mem.put_entry("conventions", "Run the linters before every commit", date="2026-01-13")


def titles(found: Any) -> list[str]:
    return [h.entry.title for h in found.hits]


def test_put_never_embeds_and_a_query_finds_a_paraphrase(mem: Memory,
                                                         fake: tuple[Fake, str]) -> None:
    state, host = fake
    m = configure(mem, host)
    fill_memory(m)
    assert state.requests == []  # put does not embed
    before = find(m, "car crash", k=3)
    assert before.hits == []  # BM25 has nothing, and no entry has a vector yet
    assert any("4 of the 4 entries it ranked have no vector yet" in n for n in before.notes)
    assert state.requests == []  # nothing to score: the prompt is not even sent
    done, total = embed_missing(m)
    assert (done, total) == (4, 4)
    assert all(t.startswith("search_document: ") for r in state.requests for t in r["input"])
    assert embed_missing(m) == (0, 4)  # cached by content: nothing sent again
    state.requests.clear()
    found = find(m, "car crash", k=3)
    assert titles(found)[0] == "Automobile collision" and found.notes == ()
    assert state.requests == [{"model": "nomic-embed-text", "input": ["search_query: car crash"]}]


def test_vectors_file_is_compact_binary(mem: Memory, fake: tuple[Fake, str]) -> None:
    m = configure(mem, fake[1])
    fill_memory(m)
    embed_missing(m)
    raw = vectors_path(m, "nomic-embed-text").read_bytes()[CACHE_PREFIX:]  # after the tag
    # header: magic, dim and count, one block's first key, one chunk's digest; then the body
    assert raw.startswith(MAGIC) and len(raw) == len(MAGIC) + 8 + 16 + 16 + 4 * (16 + 4 * DIM)
    # an edited entry gets a new vector; the old one is dropped on the next embed
    path = m.shard_path("quirks")
    path.write_text(path.read_text().replace("vacuum weekly", "vacuum daily"))
    assert embed_missing(m) == (1, 4)
    assert len(vectors_path(m, "nomic-embed-text").read_bytes()) == CACHE_PREFIX + len(raw)


def test_rerank_moves_the_semantic_match_up(mem: Memory, fake: tuple[Fake, str]) -> None:
    m = configure(mem, fake[1])
    fill_memory(m)
    plain = Memory(m.root, retrievers=[__import__("lean_memory").BM25()])
    assert titles(find(plain, "postgres slow", k=2)) == ["postgres vacuum", "postgres at night"]
    embed_missing(m)
    # by default BM25 weighs .6: vacuum .6 * 1 + .4 * 0 against night .6 * 0 + .4 * 1
    assert titles(find(m, "postgres slow", k=2))[0] == "postgres vacuum"
    m = configure(m, fake[1], "fusion_weights = { bm25 = 0.4, ollama = 0.6 }")
    assert titles(find(m, "postgres slow", k=2)) == ["postgres at night", "postgres vacuum"]
    m = configure(m, fake[1], 'fusion = "rrf"\nfusion_weights = { ollama = 3 }')
    assert titles(find(m, "postgres slow", k=2))[0] == "postgres at night"


@pytest.mark.parametrize("mode", ["not-json", "no-embeddings", "too-few", "ragged", "strings",
                                  "other-dimension"])
def test_malformed_answers_fall_back_to_bm25(mem: Memory, fake: tuple[Fake, str],
                                             mode: str) -> None:
    state, host = fake
    m = configure(mem, host)
    fill_memory(m)
    embed_missing(m)
    state.mode = mode
    found = find(m, "postgres slow", k=2)
    assert titles(found) == ["postgres vacuum", "postgres at night"]
    [note] = found.notes
    assert "'ollama' failed" in note
    assert "malformed" in note or (mode in ("ragged", "other-dimension") and "dimension" in note)


def test_slow_absent_and_unpulled_models_fall_back(mem: Memory, fake: tuple[Fake, str]) -> None:
    state, host = fake
    m = configure(mem, host, "retriever_timeout_ms = 200")
    fill_memory(m)
    embed_missing(m)
    state.mode = "slow"
    found = find(m, "postgres slow", k=2)
    assert titles(found) == ["postgres vacuum", "postgres at night"]
    assert "ollama" in found.notes[0] and ("timed out" in found.notes[0]
                                           or "did not answer" in found.notes[0])
    state.mode = "not-pulled"
    found = find(m, "postgres slow", k=2)
    assert titles(found) == ["postgres vacuum", "postgres at night"]
    assert "ollama pull nomic-embed-text" in found.notes[0]
    m.put_entry("quirks", "a new entry to embed")
    with pytest.raises(OllamaError, match="ollama pull"):
        embed_missing(m)
    closed = _closed_port()
    m = configure(m, f"http://127.0.0.1:{closed}")
    found = find(m, "postgres slow", k=2)
    assert titles(found) == ["postgres vacuum", "postgres at night"]
    assert "cannot reach Ollama" in found.notes[0]


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_cli_embed_status_and_query(mem: Memory, fake: tuple[Fake, str]) -> None:
    state, host = fake
    # a generous retriever timeout: on a loaded machine the default 400 ms can pass, and the
    # note below is then "timed out" instead of the one under test
    m = configure(mem, host, extra="retriever_timeout_ms = 20000")
    shard = m.shard_path("insights")
    # a large memory, written as a file (put's speed is not the point here)
    entries = "".join(fmt.render_entry(fmt.Entry(
        id=f"e{i:04d}", shard="insights", title=f"note {i}",
        text=f"filler text number {i} about gardening and weather", date="2026-01-01"))
        for i in range(200))
    shard.write_text(shard.read_text() + entries)
    fill_memory(m)
    status = run_cli("status", cwd=m.root)
    assert b"vectors (nomic-embed-text): 0 of 204 entries; run `lean-memory embed`" in (
        status.stdout)
    r = run_cli("embed", cwd=m.root)
    assert r.returncode == 0, r.stderr
    assert b"embedded 204 entries" in r.stdout
    assert b"embedded 204/204" in r.stderr  # progress, since it is long
    assert max(len(q["input"]) for q in state.requests) <= 32
    data = json.loads(run_cli("status", "--json", cwd=m.root).stdout)
    assert data["vectors"] == {"model": "nomic-embed-text", "entries": 204, "embedded": 204,
                               "last_skipped": None}
    r = run_cli("get", "--query", "vehicle accident", "-k", "1", "--json", cwd=m.root)
    assert r.returncode == 0 and r.stderr == b""
    assert json.loads(r.stdout)[0]["title"] == "Automobile collision"
    state.mode = "not-pulled"
    r = run_cli("get", "--query", "postgres", cwd=m.root)
    assert r.returncode == 0 and b"postgres" in r.stdout
    assert r.stderr.decode().count("\n") == 1 and b"ollama pull" in r.stderr
    m.put_entry("quirks", "one more thing to embed")
    r = run_cli("embed", cwd=m.root)
    assert r.returncode == 2 and r.stderr.decode().count("\n") == 1 and b"ollama pull" in r.stderr
    # the hook stays silent and logs it
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(m.root),
                          "prompt": "postgres is slow"}).encode()
    hook = run_cli("hook", "user-prompt-submit", cwd=m.root, stdin=payload)
    assert hook.returncode == 0 and hook.stderr == b"" and b"postgres" in hook.stdout
    assert "ollama pull" in (m.cache_dir / "hook.log").read_text()


def test_embed_needs_the_retriever_configured(mem: Memory) -> None:
    r = run_cli("embed", cwd=mem.root)
    assert r.returncode == 2 and b"ollama retriever is off" in r.stderr


def test_credentials_are_never_sent(mem: Memory, fake: tuple[Fake, str]) -> None:
    state, host = fake
    m = configure(mem, host)
    fill_memory(m)
    rng = random.Random(2)
    key = "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    shard = m.shard_path("quirks")
    shard.write_text(shard.read_text() + fmt.render_entry(fmt.Entry(
        id="hand1", shard="quirks", title="deploy key", text=f"aws key {key} for deploys")))
    assert embed_missing(m) == (4, 4)
    assert key not in json.dumps(state.requests)


def test_remote_hosts_are_refused_unless_allowed(mem: Memory) -> None:
    m = configure(mem, "http://10.20.30.40:11434")
    fill_memory(m)
    found = find(m, "postgres", k=1)
    assert titles(found) == ["postgres vacuum"] and "not this machine" in found.notes[0]
    r = run_cli("embed", cwd=m.root)
    assert r.returncode == 2 and b"allow_remote = true" in r.stderr
    assert base_url("http://10.20.30.40:11434", None, True) == "http://10.20.30.40:11434"


@pytest.mark.parametrize("setting,env,expected", [
    ("", None, "http://127.0.0.1:11434"),
    ("", "0.0.0.0", "http://127.0.0.1:11434"),
    ("", "localhost:9999", "http://localhost:9999"),
    ("http://[::1]:8080/", None, "http://[::1]:8080"),
    ("https://127.0.0.2", "ignored.example", "https://127.0.0.2:11434"),
])
def test_base_url(setting: str, env: str | None, expected: str) -> None:
    assert base_url(setting, env, False) == expected


@pytest.mark.parametrize("setting", ["ftp://127.0.0.1", "http://example.com", "http://:99",
                                     "http://127.0.0.1:notaport"])
def test_base_url_refusals(setting: str) -> None:
    with pytest.raises(OllamaError):
        base_url(setting, None, False)


@pytest.mark.parametrize("body,key", [
    ('[memory]\nfusion = "mean"\n', "fusion"),
    ("[memory]\nfusion = 3\n", "fusion"),
    ("[memory]\nrerank_depth = 0\n", "rerank_depth"),
    ('[memory]\nfusion_weights = ["bm25"]\n', "fusion_weights"),
    ('[memory]\nfusion_weights = { ollama = "high" }\n', "fusion_weights"),
    ("[memory]\nfusion_weights = { ollama = -1 }\n", "fusion_weights"),
    ('[ollama]\nmodel = "bad model name"\n', "model"),
    ("[ollama]\nallow_remote = 1\n", "allow_remote"),
    ('[ollama]\nhost = "http://a b"\n', "host"),
    ('[ollama]\ntimeout = 3\n', "timeout"),
    ('ollama = "on"\n', "ollama"),
])
def test_config_errors(mem: Memory, body: str, key: str) -> None:
    (mem.agents_dir / "config.toml").write_text(body)
    r = run_cli("get", "--query", "anything", cwd=mem.root)
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.count("\n") == 1 and key in err and "Traceback" not in err


@given(st.lists(st.tuples(st.binary(min_size=16, max_size=16),
                          st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3)
                          .filter(lambda v: any(abs(x) > 1e-3 for x in v))),
                max_size=20, unique_by=lambda t: t[0]))
def test_vectors_round_trip(items: list[tuple[bytes, list[float]]]) -> None:
    v = Vectors()
    for key, vector in items:
        v.add(key, vector)
    back = Vectors.from_bytes(v.to_bytes())
    assert back.keys() == sorted(v.keys())  # the file keeps its keys sorted
    for key, _ in items:
        a, b = v.get(key), back.get(key)
        assert a is not None and b is not None and list(a) == list(b)
    assert Vectors.from_bytes(v.to_bytes()[:-1]).keys() == []  # truncated: empty, not wrong


def test_vectors_path_is_per_model(tmp_path: Path) -> None:
    m = Memory(tmp_path)
    assert vectors_path(m, "a") != vectors_path(m, "b")


def test_archived_entries_have_vectors_too(mem: Memory, fake: tuple[Fake, str]) -> None:
    from lean_memory.manage import archive_entries

    m = configure(mem, fake[1])
    fill_memory(m)
    [car] = [e for e in m.entries("failures") if e.title == "Automobile collision"]
    archive_entries(m, m.read_shard("failures"), [car])  # as compaction folds it away
    assert embed_missing(m) == (4, 4)  # three live, one archived
    live = find(m, "vehicle accident", k=1, include_archive=False)
    # no live entry is near enough (the cosine floor): nothing, and never the archived one
    assert titles(live) != ["Automobile collision"] and not any(h.archived for h in live.hits)
    found = find(m, "vehicle accident", k=1, include_archive=True)
    assert titles(found) == ["Automobile collision"] and found.hits[0].archived
