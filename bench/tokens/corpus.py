# ruff: noqa: E501  (long lines are text templates: the corpus is data)
"""Build a deterministic, mixed corpus of what coding agents store, for the token-estimate bench.

Nothing here is copied into the repository: texts are read at run time from

* the shared retrieval data (``../shared/data/retrieval``: LoCoMo dialogue turns, Cranfield
  abstracts) -- English prose;
* the running interpreter's standard library -- Python code, docstrings, TOML test data, file
  paths, real tracebacks (raised on purpose, formatted by :mod:`traceback`), CJK test texts
  (``test/cjkencodings/*-utf8.txt``);
* the system's gettext catalogues (``/usr/share/locale/*/LC_MESSAGES/*.mo``) -- translated UI
  messages in German, French, Spanish, Italian, Portuguese, Russian, Ukrainian, Japanese, Chinese,
  Korean;
* optional sources, used only when present on the machine: C headers (``/usr/include``), npm's
  JavaScript (``/usr/lib/node_modules/npm``), Markdown files and package METADATA;

plus short non-English paragraphs written for this bench (``paragraphs.py``) and texts generated
from seeded templates (shell commands, log lines, JS/Rust-style stack
traces, JSON/YAML, Markdown memory notes).

Every entry has a ``source`` (the file or generator it came from); the train/test split is made on
the source, so no file contributes to both halves.
"""

from __future__ import annotations

import ast
import functools
import gettext
import hashlib
import json
import os
import random
import sysconfig
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from paragraphs import PARAGRAPHS
from paragraphs import SCRIPT as PARA_SCRIPT

STDLIB = Path(sysconfig.get_paths()["stdlib"])
HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("LEAN_MEMORY_SHARED", HERE.parents[2] / "shared"))
RETRIEVAL = SHARED / "data" / "retrieval"
LOCALE = Path("/usr/share/locale")


@dataclass(frozen=True)
class Entry:
    kind: str
    source: str
    text: str

    @property
    def split(self) -> str:
        """'train' or 'test', decided by a hash of the source (so a file never straddles)."""
        h = hashlib.sha256(self.source.encode()).digest()[0]
        return "train" if h % 2 == 0 else "test"


def _chunks(text: str, rng: random.Random, lo: int = 300, hi: int = 2500) -> Iterator[str]:
    """Cut text into pieces of lo..hi chars at line boundaries."""
    lines = text.splitlines(keepends=True)
    buf: list[str] = []
    size = 0
    target = rng.randint(lo, hi)
    for line in lines:
        buf.append(line)
        size += len(line)
        if size >= target:
            yield "".join(buf)
            buf, size, target = [], 0, rng.randint(lo, hi)
    if size >= lo // 2:
        yield "".join(buf)


# ---------------------------------------------------------------- prose
def prose_chat(rng: random.Random) -> Iterator[Entry]:
    path = RETRIEVAL / "locomo_turns.jsonl"
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            conv = json.loads(line)
            docs = conv["docs"]
            i = 0
            while i < len(docs):
                n = rng.randint(3, 14)
                text = "\n".join(d["text"] for d in docs[i : i + n])
                yield Entry("prose_chat", f"locomo:{conv['conv']}:{i // 200}", text)
                i += n * 6  # sample, don't take everything


def prose_tech(rng: random.Random) -> Iterator[Entry]:
    path = RETRIEVAL / "cranfield.jsonl"
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        docs = json.loads(fh.readline())["docs"]
    for i in range(0, len(docs), 10):
        yield Entry("prose_tech", f"cranfield:{i // 100}", docs[i]["text"])


@functools.cache
def _stdlib_modules() -> list[Path]:
    out = []
    for p in sorted(STDLIB.rglob("*.py")):
        rel = p.relative_to(STDLIB).as_posix()
        if rel.startswith(("site-packages", "test/", "lib2to3/tests", "idlelib/idle_test")):
            continue
        out.append(p)
    return out


def docstrings_and_code(rng: random.Random) -> Iterator[Entry]:
    mods = _stdlib_modules()
    for p in mods[::3]:
        try:
            src = p.read_text(encoding="utf-8")
            tree = ast.parse(src)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        rel = p.relative_to(STDLIB).as_posix()
        lines = src.splitlines(keepends=True)
        docs = []
        code = []
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module):
                d = ast.get_docstring(node)
                if d and len(d) > 200:
                    docs.append(d)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                end = node.end_lineno or node.lineno
                seg = "".join(lines[node.lineno - 1 : end])
                if 300 <= len(seg) <= 4000:
                    code.append(seg)
        for d in docs[:2]:
            yield Entry("docstring", f"stdlib:{rel}", d)
        if code:
            for seg in rng.sample(code, min(2, len(code))):
                yield Entry("python", f"stdlib:{rel}", seg)


def other_code(rng: random.Random) -> Iterator[Entry]:
    roots = [
        (Path("/usr/lib/node_modules/npm/lib"), "*.js", "js"),
        (Path("/usr/include"), "*.h", "c"),
        (STDLIB.parent.parent / "include", "*.h", "c"),
        (Path("/usr/share/doc/git/contrib"), "*.go", "go"),
    ]
    for root, pattern, lang in roots:
        if not root.is_dir():
            continue
        files = sorted(root.rglob(pattern))
        rng.shuffle(files)
        for p in files[:40]:
            try:
                text = p.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            pieces = list(_chunks(text, rng))
            for piece in pieces[:2]:
                yield Entry("code_other", f"{lang}:{p}", piece)


# ---------------------------------------------------------------- paths & shell
_ROOTS = ["/home/dev/work/app/", "src/", "./", "/srv/api/", "C:\\Users\\dev\\repo\\", "~/proj/"]


def paths(rng: random.Random) -> Iterator[Entry]:
    files = [p.relative_to(STDLIB).as_posix() for p in sorted(STDLIB.rglob("*")) if p.is_file()]
    files = [f for f in files if not f.startswith("site-packages") and "__pycache__" not in f]
    for k in range(120):
        r = random.Random(f"paths{k}")
        root = r.choice(_ROOTS)
        style = r.randint(0, 3)
        lines = []
        for f in r.sample(files, r.randint(4, 25)):
            p = root + (f.replace("/", "\\") if "\\" in root else f)
            if style == 0:
                lines.append(p)
            elif style == 1:
                lines.append(f"{p}:{r.randint(1, 2400)}:{r.randint(1, 80)}")
            elif style == 2:
                lines.append(
                    f"- `{p}` — {r.choice(['entry point', 'tests', 'config', 'helper', 'do not edit', 'generated'])}"
                )
            else:
                lines.append(f"M  {p}" if r.random() < 0.5 else f"?? {p}")
        yield Entry("paths", f"gen:paths:{k % 40}", "\n".join(lines))


_CMDS = [
    "git log --oneline -n {n} -- {f}",
    "git diff HEAD~{k} -- {f}",
    'git commit -m "fix: {w} in {m}"',
    "python -m pytest tests/test_{m}.py -x -q -k {w}",
    "python3 -m mypy --strict {f}",
    "ruff check {f} --fix",
    "pip install {m}=={v}",
    "grep -rn \"{w}\" {d} --include='*.py' | head -n {n}",
    "find {d} -name '*.py' -newer {f} -print",
    "sed -n {n},{n2}p {f}",
    "docker run --rm -it -v $(pwd):/app -w /app python:3.{k}-slim bash",
    "cargo test --release -- --nocapture {w}",
    "npm run build -- --mode=production && npm test",
    "curl -sS -X POST http://localhost:{port}/api/v1/{w} -H 'Content-Type: application/json' -d '{{\"id\": {n}}}'",
    "export PYTHONPATH=$PWD/src:$PYTHONPATH && python -c 'import {m}; print({m}.__file__)'",
    "tar -czf backup-{n}.tar.gz {d} && ls -lh backup-{n}.tar.gz",
    "kubectl -n {w} logs deploy/{m} --since=1h | grep -i error",
    'for f in {d}/*.py; do wc -l "$f"; done | sort -n | tail -{k}',
]


def shell(rng: random.Random) -> Iterator[Entry]:
    mods = [p.stem for p in _stdlib_modules()][:400]
    files = [p.relative_to(STDLIB).as_posix() for p in _stdlib_modules()]
    words = ["timeout", "retry", "parse_header", "cache", "encoding", "race", "flaky", "auth"]
    for k in range(100):
        r = random.Random(f"shell{k}")
        lines = []
        for _ in range(r.randint(3, 15)):
            tpl = r.choice(_CMDS)
            d = os.path.dirname(r.choice(files)) or "."
            lines.append(
                ("$ " if r.random() < 0.4 else "")
                + tpl.format(
                    n=r.randint(1, 200),
                    n2=r.randint(200, 400),
                    k=r.randint(1, 12),
                    f=r.choice(files),
                    d=d,
                    m=r.choice(mods),
                    w=r.choice(words),
                    v=f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)}",
                    port=r.choice([8000, 8080, 5432, 3000]),
                )
            )
        yield Entry("shell", f"gen:shell:{k % 40}", "\n".join(lines))


# ---------------------------------------------------------------- logs & traces
_LOG_MSGS = [
    "GET /api/v1/users/{id}?include=roles HTTP/1.1 {status} {ms}ms",
    "connection to {ip}:{port} failed: Connection refused (attempt {n}/5)",
    "worker-{n} processed batch {id} ({rows} rows) in {sec:.3f}s",
    "cache miss for key user:{id}:profile; fetching from db",
    "Retrying request {uuid} after {ms}ms backoff",
    "Loaded config from /etc/app/config.yaml (env=production, region=eu-west-1)",
    "SQL: SELECT id, email FROM users WHERE org_id = {id} LIMIT 50 -- {ms}ms",
    "job {uuid} finished with status={st} exit_code={n}",
    "memory usage {mb} MiB (rss), {n} goroutines, gc pause {ms}ms",
    "deprecated option --legacy-mode will be removed in v{n}.0",
    "user {email} logged in from {ip}",
    "Traceback written to /var/log/app/crash-{id}.log",
]


def logs(rng: random.Random) -> Iterator[Entry]:
    for k in range(120):
        r = random.Random(f"logs{k}")
        style = r.randint(0, 2)
        lines = []
        t = r.randint(0, 86400)
        for _ in range(r.randint(5, 30)):
            t += r.randint(0, 90)
            msg = r.choice(_LOG_MSGS).format(
                id=r.randint(1, 99999),
                status=r.choice([200, 201, 404, 500, 503]),
                ms=r.randint(1, 3000),
                ip=f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
                port=r.choice([5432, 6379, 443]),
                n=r.randint(1, 64),
                rows=r.randint(1, 100000),
                sec=r.random() * 30,
                uuid=f"{r.getrandbits(32):08x}-{r.getrandbits(16):04x}-4{r.getrandbits(12):03x}-{r.getrandbits(16):04x}-{r.getrandbits(48):012x}",
                st=r.choice(["ok", "failed", "cancelled"]),
                mb=r.randint(50, 4000),
                email=f"{r.choice(['ana', 'bob', 'li.wei', 'j.smith'])}@example.com",
            )
            lvl = r.choice(["INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR"])
            ts = f"2025-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{t // 3600 % 24:02d}:{t // 60 % 60:02d}:{t % 60:02d}.{r.randint(0, 999):03d}Z"
            mod = r.choice(["app.api", "app.db.pool", "worker", "scheduler", "auth.session"])
            if style == 0:
                lines.append(f"{ts} {lvl:<7} [{mod}] {msg}")
            elif style == 1:
                lines.append(
                    json.dumps({"ts": ts, "level": lvl.lower(), "logger": mod, "msg": msg})
                )
            else:
                lines.append(
                    f"[{lvl[0]} {ts[5:10]} {ts[11:23]} {r.randint(1000, 32000)} {mod}:{r.randint(10, 900)}] {msg}"
                )
        yield Entry("logs", f"gen:logs:{k % 40}", "\n".join(lines))


def _py_failures() -> list[Callable[[], object]]:
    import datetime
    import decimal
    import ipaddress
    import re
    import shlex
    import struct
    import tomllib
    import urllib.parse
    import uuid
    import zoneinfo

    return [
        lambda: json.loads('{"a": 1, "b": [1, 2,, 3]}'),
        lambda: int("12a"),
        lambda: open("/nonexistent/dir/config.toml"),
        lambda: {"alpha": 1}["beta"],
        lambda: re.compile("(unclosed[group"),
        lambda: ast.literal_eval("__import__('os')"),
        lambda: struct.unpack("<IH", b"\x00\x01"),
        lambda: datetime.datetime.strptime("2024-13-45", "%Y-%m-%d"),
        lambda: tomllib.loads("[tool\nname = 1"),
        lambda: decimal.Decimal("1.2.3"),
        lambda: ipaddress.ip_address("300.1.2.3"),
        lambda: shlex.split("echo 'unterminated"),
        lambda: uuid.UUID("not-a-uuid"),
        lambda: zoneinfo.ZoneInfo("Mars/Olympus_Mons"),
        lambda: urllib.parse.urlsplit("http://[::1"),
        lambda: [].pop(),
        lambda: None.upper(),  # type: ignore[attr-defined]
        lambda: "x".encode("ascii") + "é".encode("ascii"),
    ]


def tracebacks(rng: random.Random) -> Iterator[Entry]:
    fails = _py_failures()
    for k in range(80):
        r = random.Random(f"tb{k}")
        f = fails[k % len(fails)]
        depth = r.randint(0, 4)

        def call(n: int, f: Callable[[], object] = f) -> object:
            if n == 0:
                return f()
            return call(n - 1)

        try:
            call(depth)
        except Exception:
            tb = traceback.format_exc()
        tb = tb.replace(str(HERE), "/home/dev/work/app/tools")
        if r.random() < 0.3:
            tb = (
                f"FAILED tests/test_{r.choice(['api', 'store', 'cli'])}.py::test_{r.choice(['load', 'save', 'parse'])}_{k} - "
                + tb.strip().splitlines()[-1]
                + "\n"
                + tb
            )
        yield Entry("traceback", f"py-traceback:{k % len(fails)}", tb)
    for k in range(40):
        r = random.Random(f"jstb{k}")
        err = r.choice(
            [
                "TypeError: Cannot read properties of undefined (reading 'map')",
                "ReferenceError: fetchUser is not defined",
                "Error: ENOENT: no such file or directory, open '/app/config/local.json'",
            ]
        )
        frames = []
        for _ in range(r.randint(3, 10)):
            fn = r.choice(
                [
                    "processTicksAndRejections",
                    "Object.<anonymous>",
                    "UserService.load",
                    "Module._compile",
                    "async Promise.all (index 0)",
                    "renderWithHooks",
                    "Router.handle",
                ]
            )
            file = r.choice(
                [
                    "/app/src/services/user.ts",
                    "node:internal/process/task_queues",
                    "/app/node_modules/express/lib/router/index.js",
                    "webpack-internal:///./src/App.tsx",
                ]
            )
            frames.append(f"    at {fn} ({file}:{r.randint(1, 900)}:{r.randint(1, 60)})")
        if r.random() < 0.5:
            yield Entry("traceback", f"gen:jstrace:{k % 20}", err + "\n" + "\n".join(frames))
        else:
            rs = [
                f"thread 'main' panicked at src/{r.choice(['main', 'lib', 'parser'])}.rs:{r.randint(1, 500)}:{r.randint(1, 40)}:",
                r.choice(
                    [
                        "called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }",
                        "index out of bounds: the len is 3 but the index is 7",
                    ]
                ),
                "stack backtrace:",
            ]
            for i in range(r.randint(3, 12)):
                fn = r.choice(
                    [
                        "core::panicking::panic_fmt",
                        "myapp::parser::Parser::next_token",
                        "std::rt::lang_start::{{closure}}",
                        "myapp::main",
                    ]
                )
                rs.append(
                    f"  {i:>2}: {fn}\n             at ./src/parser.rs:{r.randint(1, 900)}:{r.randint(1, 50)}"
                )
            yield Entry("traceback", f"gen:rstrace:{k % 20}", "\n".join(rs))


# ---------------------------------------------------------------- data formats
def data_formats(rng: random.Random) -> Iterator[Entry]:
    tdir = STDLIB / "test" / "test_tomllib" / "data" / "valid"
    for p in sorted(tdir.rglob("*.toml")):
        text = p.read_text(encoding="utf-8")
        if len(text) > 80:
            yield Entry("toml_yaml", f"toml:{p.name}", text)
    # JSON from the shared data (records re-serialised as an API would) and from package.json
    path = RETRIEVAL / "locomo_turns.jsonl"
    if path.exists():
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                conv = json.loads(line)
                for j in range(0, min(len(conv["queries"]), 120), 30):
                    qs = conv["queries"][j : j + rng.randint(2, 8)]
                    indent = [None, 2, 4][(n + j) % 3]
                    yield Entry(
                        "json",
                        f"json:locomo:{n}",
                        json.dumps(
                            {"conv": conv["conv"], "queries": qs}, indent=indent, ensure_ascii=False
                        ),
                    )
    for p in [
        Path("/usr/lib/node_modules/npm/package.json"),
        *sorted(Path("/usr/lib/node_modules/npm/node_modules").glob("*/package.json"))[:60],
    ]:
        if p.exists():
            yield Entry("json", f"json:{p}", p.read_text(encoding="utf-8")[:3000])
    # YAML / TOML generated from templates (CI workflows, compose files, pyproject)
    for k in range(40):
        r = random.Random(f"yaml{k}")
        svc = r.choice(["api", "worker", "db", "redis", "web"])
        if k % 2:
            text = (
                f"name: CI\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  test:\n"
                f"    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        python: ['3.11', '3.12', '3.13']\n"
                f"    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n"
                f"        with:\n          python-version: ${{{{ matrix.python }}}}\n"
                f"      - run: pip install -e '.[test]'\n      - run: pytest -q --timeout={r.randint(30, 300)}\n"
            )
        else:
            text = (
                f"services:\n  {svc}:\n    image: {svc}:{r.randint(1, 9)}.{r.randint(0, 20)}\n    ports:\n"
                f'      - "{r.randint(3000, 9000)}:{r.randint(80, 9000)}"\n    environment:\n'
                f"      DATABASE_URL: postgres://app:app@db:5432/app_{k}\n      LOG_LEVEL: debug\n"
                f'    depends_on: [db]\n    healthcheck:\n      test: ["CMD", "curl", "-f", "http://localhost/health"]\n'
                f"      interval: {r.randint(5, 60)}s\n"
            )
        yield Entry("toml_yaml", f"gen:yaml:{k % 10}", text)
    gdir = Path("/usr/lib/google-cloud-sdk/lib/googlecloudsdk/schemas")
    if gdir.is_dir():
        files = sorted(gdir.rglob("*.yaml"))[::50]
        for p in files[:30]:
            yield Entry("toml_yaml", f"yaml:{p}", p.read_text(encoding="utf-8")[:2500])


# ---------------------------------------------------------------- markdown
def markdown(rng: random.Random) -> Iterator[Entry]:
    cands: list[Path] = []
    for root in [
        Path.home() / ".pyenv",
        Path("/usr/lib/node_modules/npm"),
        STDLIB / "site-packages",
    ]:
        if root.is_dir():
            cands += sorted(p for p in root.rglob("*.md") if p.stat().st_size > 1500)
    rng.shuffle(cands)
    for p in cands[:60]:
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for piece in list(_chunks(text, rng))[:2]:
            yield Entry("markdown", f"md:{p}", piece)
    # memory-note style entries
    topics = ["auth", "db migrations", "CI", "release", "parser", "cache", "deploy"]
    for k in range(60):
        r = random.Random(f"md{k}")
        t = r.choice(topics)
        lines = [
            f"## {t.title()} — decision {k}",
            "",
            f"- **Context**: the {t} step failed on `main` after commit `{r.getrandbits(28):07x}`.",
            f"- **Decision**: pin `{r.choice(['requests', 'pydantic', 'sqlalchemy'])}<{r.randint(1, 3)}` and retry with backoff.",
            f"- **Why**: see issue #{r.randint(10, 999)}; the flaky test is `tests/test_{t.split()[0]}.py::test_{r.choice(['roundtrip', 'timeout'])}`.",
            "",
            "```bash",
            f"pytest -q tests/test_{t.split()[0]}.py -k {r.choice(['slow', 'retry'])}",
            "```",
            "",
            f"1. Run `make {r.choice(['lint', 'test', 'bench'])}` first.",
            f"2. Then check `{r.choice(['logs/app.log', '.env.example', 'docs/adr/0003-cache.md'])}`.",
            "",
            "> Note: do not store secrets here.",
        ]
        yield Entry("markdown", f"gen:md:{k % 20}", "\n".join(lines))


# ---------------------------------------------------------------- non-English
_LANGS = {
    "de": "latin",
    "fr": "latin",
    "es": "latin",
    "it": "latin",
    "pt_BR": "latin",
    "ru": "cyrillic",
    "uk": "cyrillic",
    "ja": "cjk",
    "zh_CN": "cjk",
    "ko": "cjk",
}
_DOMAINS = [
    "apt",
    "coreutils",
    "grep",
    "dpkg",
    "bash",
    "findutils",
    "diffutils",
    "glib20",
    "gnupg2",
]


def non_english(rng: random.Random) -> Iterator[Entry]:
    for lang, script in _LANGS.items():
        for dom in _DOMAINS:
            p = LOCALE / lang / "LC_MESSAGES" / f"{dom}.mo"
            if not p.exists():
                continue
            with p.open("rb") as fh:
                try:
                    cat = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
                except (OSError, UnicodeDecodeError):
                    continue
            msgs = sorted(
                v
                for k, v in cat.items()
                if isinstance(v, str) and isinstance(k, str) and k and len(v) > 20
            )
            r = random.Random(f"{lang}{dom}")
            r.shuffle(msgs)
            for j in range(0, min(len(msgs), 120), 24):
                text = "\n".join(msgs[j : j + 12])
                yield Entry(f"nonenglish_{script}", f"mo:{lang}:{dom}", text)
    # paragraphs written for this bench (notes, decisions, summaries), one entry each
    for lang, paras in PARAGRAPHS.items():
        for i, para in enumerate(paras):
            yield Entry(f"nonenglish_{PARA_SCRIPT[lang]}", f"written:{lang}:{i}", para)
    # the codec tests' sample texts; several files hold the same text (deduplicated), and
    # big5hkscs / cp949 / johab hold deliberately rare characters rather than prose (skipped)
    cdir = STDLIB / "test" / "cjkencodings"
    seen: set[str] = set()
    for p in sorted(cdir.glob("*-utf8.txt")):
        if p.name.startswith(("big5hkscs", "cp949", "johab")):
            continue
        text = p.read_bytes().decode("utf-8", "replace")
        if text not in seen:
            seen.add(text)
            yield Entry("nonenglish_cjk", f"cjk:{p.name}", text)


GENERATORS = [
    prose_chat,
    prose_tech,
    docstrings_and_code,
    other_code,
    paths,
    shell,
    logs,
    tracebacks,
    data_formats,
    markdown,
    non_english,
]


def build() -> list[Entry]:
    out: list[Entry] = []
    for gen in GENERATORS:
        rng = random.Random(gen.__name__)
        out.extend(e for e in gen(rng) if e.text.strip())
    return out


def make_shards(entries: list[Entry], n: int, seed: str) -> list[tuple[str, str]]:
    """Mixed shards: Markdown memory files of a few KB to ~40 KB made of entries of several kinds.

    Each shard draws a random mixture over kinds (some prose-heavy, some code-heavy, a few with
    non-English), then appends entries with a dated heading until it reaches its target size.
    """
    by_kind: dict[str, list[Entry]] = {}
    for e in entries:
        by_kind.setdefault(e.kind, []).append(e)
    kinds = sorted(by_kind)
    shards = []
    for i in range(n):
        r = random.Random(f"{seed}{i}")
        weights = [r.random() ** 2 for _ in kinds]
        for j, k in enumerate(kinds):
            if k.startswith("nonenglish") and r.random() < 0.6:
                weights[j] = 0.0
        target = int(2000 * (20 ** r.random()))  # 2 KB .. 40 KB, log-uniform
        parts = [f"# Memory shard {i}\n"]
        size = 0
        while size < target:
            kind = r.choices(kinds, weights)[0]
            e = r.choice(by_kind[kind])
            fence = kind in (
                "python",
                "code_other",
                "shell",
                "logs",
                "traceback",
                "json",
                "toml_yaml",
            )
            body = f"```\n{e.text.strip()}\n```" if fence else e.text.strip()
            part = f"\n## {2025}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d} {kind}\n\n{body}\n"
            parts.append(part)
            size += len(part)
        shards.append((f"shard{i:02d}", "".join(parts)))
    return shards
