"""``lean-memory serve``: the page, its security model, and its renderer.

Plain-HTTP tests talk to a server on an ephemeral port in a thread; the browser tests drive
headless Chromium (Debian's ``chromium`` and ``chromium-driver``, through ``selenium``) and
skip, saying why, where either is missing. With ``LEAN_MEMORY_SCREENSHOTS=1`` the browser
tests also save docs/serve-overview.png and docs/serve-context.png.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import socket
import string
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import format as fmt
from lean_memory import html as mdhtml
from lean_memory.serve import App, Proposal, Proposals, make_server, url

from .conftest import ROOT, cpu_seconds, serving

# Built at run time, so the repository itself scans clean.
_RNG = random.Random(5)
GITHUB = "gh" + "p_" + "".join(_RNG.choice(string.ascii_letters + string.digits)
                               for _ in range(36))

# Each payload would change the title, add an element with id "pwned", or hide the page
# if it ran or were taken as markup.
PAYLOADS = [
    "<script>document.title='PWNED'</script>",
    "<img src=x onerror=\"document.title='PWNED'\">",
    "<svg onload=\"document.body.appendChild(document.createElement('b')).id='pwned'\">",
    "[click me](javascript:document.title='PWNED')",
    "[data](data:text/html,<script>document.title='PWNED'</script>)",
    "<a href=\"javascript:document.title='PWNED'\">link</a>",
    "<style>body{display:none}</style>",
    "<iframe srcdoc=\"<script>parent.document.title='PWNED'</script>\"></iframe>",
    "\"><script>document.title='PWNED'</script>",
    "`</code><script>document.title='PWNED'</script>`",
    "**<b id=pwned>bold</b>**",
    "bidi \u202eevil\u202c and zero\u200bwidth",
]
HOSTILE = "\n\n".join(PAYLOADS)

PAGE_TAGS = {"html", "head", "meta", "title", "link", "body", "nav", "main", "h1", "h2", "h3",
             "a", "p", "div", "span", "table", "thead", "tbody", "tr", "th", "td", "meter",
             "code", "article", "form", "input", "button", "details", "summary", "ul", "li",
             "pre", "q", *mdhtml.TAGS,
             "svg", "rect", "line", "polyline", "circle", "text"}  # charts drawn by serve


class Tags(HTMLParser):
    """Every start tag and attribute of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend((tag, k, v or "") for k, v in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(page: str) -> Tags:
    p = Tags()
    p.feed(page)
    p.close()
    return p


def _entry(shard: str, entry_id: str, title: str, text: str, **kw: Any) -> str:
    return fmt.render_entry(fmt.Entry(id=entry_id, shard=shard, title=title, text=text,
                                      date=kw.pop("date", "2026-03-04"), **kw))


def _append(mem: lean_memory.Memory, shard: str, raw: str) -> None:
    path = mem.shard_path(shard)
    path.write_text(fmt.ensure_separated(mem.read_text(path)) + raw, encoding="utf-8")


def build(root: Path) -> lean_memory.Memory:
    """A small memory: plain entries, a correction, a hostile shard, a leaked credential."""
    mem = lean_memory.Memory(root)
    mem.init()
    mem.put_entry("conventions", "Run `ruff check` and `mypy` before every commit.",
                  title="Lint before committing", date="2026-01-04")
    mem.put_entry("quirks", "Redis on Windows needs the socket timeout raised to 5 s;\n"
                  "the default 1 s drops connections under load.\n\n```ini\ntimeout = 5\n```",
                  title="Redis timeout on Windows", tags=["redis", "windows"],
                  date="2026-01-05")
    old = mem.put_entry("failures", "The deploy failed because port 8080 was taken.",
                        title="Deploy fails on port 8080", date="2026-01-06")
    mem.put_entry("corrections", "The deploy failed because port 8081 was taken, not 8080.",
                  title="Deploy port is 8081", supersedes=old.id, date="2026-02-01")
    mem.put_entry("insights", "- parse_config reads TOML\n- it fails on tabs\n\n"
                  "See **docs** and [the guide](https://example.org/guide).",
                  title="How parse_config works", date="2026-02-02")
    mem.put_entry("insights", "The build fails on tabs in config files.",
                  title="Tabs break the build", date="2026-02-03")
    mem.put_entry("insights", "the build failed on tabs in the config files",
                  date="2026-02-04")  # the same fact again: folded into the entry above
    gone = mem.put_entry("seed", "The project used Python 3.9.", title="Python 3.9",
                         date="2026-01-01")
    from lean_memory.manage import forget

    forget(mem, gone.id, reason="moved to 3.11", date="2026-02-05")
    _append(mem, "quirks", _entry("quirks", "bad00001", "Hostile <script>document.title="
                                  "'PWNED'</script> title", HOSTILE))
    _append(mem, "insights", _entry("insights", "leak0001", "Deploy token for the bot",
                                    f"The deploy bot uses {GITHUB} as its token."))
    return mem


@pytest.fixture
def mem(tmp_path: Path) -> lean_memory.Memory:
    return build(tmp_path)


class FakeLoop:
    """A learning loop stand-in: one proposal; yes writes the rule to conventions."""

    def __init__(self, mem: lean_memory.Memory) -> None:
        self.mem = mem
        self.answers: list[tuple[str, bool]] = []

    def pending(self) -> list[Proposal]:
        if self.answers:
            return []
        return [Proposal("p1", "Always pin the **redis** client version.",
                         ("session 3: redis broke after an upgrade",
                          "session 7: the same again <script>x</script>"))]

    def decide(self, pid: str, yes: bool) -> str:
        self.answers.append((pid, yes))
        if yes:
            self.mem.put_entry("conventions", "Always pin the redis client version.",
                               title="Pin the redis client")
        return f"{pid}: {'added to conventions' if yes else 'dismissed'}"


@pytest.fixture
def served(mem: lean_memory.Memory) -> Iterator[tuple[App, FakeLoop]]:
    loop = FakeLoop(mem)
    app = App([("project", mem)], proposals=Proposals(loop.pending, loop.decide))
    with serving(make_server(app, 0)):
        yield app, loop


def request(app: App, path: str, *, method: str = "GET", host: str | None = None,
            cookie: bool = True, body: str | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host if host is not None else f"127.0.0.1:{app.port}")
        if cookie:
            conn.putheader("Cookie", f"lean_memory_{app.port}={app.token}")
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        data = body.encode() if body is not None else None
        if data is not None:
            conn.putheader("Content-Type", "application/x-www-form-urlencoded")
            conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode("utf-8")
    finally:
        conn.close()


PAGES = ["/", "/shard/project/quirks", "/shard/project/insights", "/shard/project/failures",
         "/entry/project/bad00001", "/search?q=deploy+token+bot+redis",
         "/context?q=deploy+token+bot+hostile+title", "/history", "/proposals"]


# -- plain HTTP -------------------------------------------------------------------------


def test_token_is_required(served: tuple[App, FakeLoop]) -> None:
    """Catches a page served to anyone who finds the port: no token, a wrong one, or one
    in a cookie of another name are refused; the right one becomes an HttpOnly, SameSite=
    Strict cookie and is taken out of the address."""
    app, _ = served
    assert request(app, "/", cookie=False)[0] == 403
    assert request(app, "/?token=wrong", cookie=False)[0] == 403
    assert request(app, "/style.css", cookie=False)[0] == 403
    status, headers, _ = request(app, f"/search?q=x&token={app.token}", cookie=False)
    assert status == 303 and headers["location"] == "/search?q=x"
    cookie = headers["set-cookie"]
    assert app.token in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    status, _, page = request(app, "/")
    assert status == 200 and "What memory holds" in page
    status, headers, _ = request(app, f"/?token={app.token}")  # the printed address again
    assert status == 303 and headers["location"] == "/"


def test_serve_without_memory_is_one_line_exit_2(tmp_path: Path) -> None:
    """Catches `serve` starting on a folder with no memory (or with a traceback)."""
    r = subprocess.run([sys.executable, "-m", "lean_memory", "--root", str(tmp_path), "serve",
                        "--port", "0"], capture_output=True, text=True, timeout=30,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no memory at" in r.stderr
    assert "http://" not in r.stdout


def test_a_failing_learning_loop_is_one_line(served: tuple[App, FakeLoop]) -> None:
    """Catches an exception in the plugged-in learning loop reaching the page or the log
    with its message (it could quote memory text)."""
    app, _ = served

    def broken(pid: str, yes: bool) -> str:
        raise RuntimeError("secret text of an entry")

    assert app.proposals is not None
    app.proposals.decide = broken
    status, _, body = request(app, "/proposals/p1", method="POST",
                              body=f"token={app.token}&answer=no",
                              headers={"Origin": f"http://127.0.0.1:{app.port}"})
    assert status == 500 and body == "internal error (RuntimeError)\n"


def test_foreign_host_is_refused(served: tuple[App, FakeLoop]) -> None:
    """Catches DNS rebinding: a page on evil.test resolved to 127.0.0.1 must get nothing,
    even with the token."""
    app, _ = served
    for host in (f"evil.test:{app.port}", "127.0.0.1", f"127.0.0.1:{app.port + 1}", ""):
        status, _, body = request(app, f"/?token={app.token}", host=host)
        assert status == 421, host
        assert "Lint before" not in body
    assert request(app, "/", host=f"localhost:{app.port}")[0] == 200


def test_post_needs_token_and_origin(served: tuple[App, FakeLoop]) -> None:
    """Catches a cross-site form (or one without the form token) answering a proposal:
    only a POST with the token in its form, the cookie, and this server's Origin writes."""
    app, loop = served
    origin = {"Origin": f"http://127.0.0.1:{app.port}"}
    assert request(app, "/proposals/p1", method="POST", body="answer=yes",
                   headers=origin)[0] == 403
    assert request(app, "/proposals/p1", method="POST", body=f"token={app.token}&answer=yes",
                   headers={"Origin": "http://evil.test"})[0] == 403
    assert request(app, "/proposals/p1", method="POST",
                   body=f"token={app.token}&answer=yes")[0] == 403  # no Origin at all
    for said in ({"Origin": "null"}, {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
                 {**origin, "Sec-Fetch-Site": "same-site"},
                 {"Origin": "http://evil.test", "Sec-Fetch-Site": "same-origin"}):
        assert request(app, "/proposals/p1", method="POST",
                       body=f"token={app.token}&answer=yes", headers=said)[0] == 403, said
    assert request(app, "/proposals/p1", method="POST", body=f"token={app.token}&answer=yes",
                   headers=origin, cookie=False)[0] == 403
    assert request(app, "/proposals/p1", method="POST", body="x" * 5000,
                   headers=origin)[0] == 413
    assert loop.answers == []
    status, headers, _ = request(app, "/proposals/p1", method="POST",
                                 body=f"token={app.token}&answer=yes", headers=origin)
    assert status == 303 and headers["location"] == "/proposals"  # POST, then redirect
    assert "p1: added to conventions" in request(app, "/proposals")[2]
    assert "p1: added to conventions" not in request(app, "/proposals")[2]  # said once
    assert loop.answers == [("p1", True)]


def test_security_headers_on_every_response(served: tuple[App, FakeLoop]) -> None:
    """Catches a response without the strict policy (an error page, the stylesheet) or with
    a CORS header."""
    app, _ = served
    for path, cookie in [(p, True) for p in [*PAGES, "/style.css", "/nope"]] + [("/", False)]:
        _status, headers, _ = request(app, path, cookie=cookie)
        csp = headers.get("content-security-policy", "")
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp, path
        assert "script-src" not in csp and "unsafe" not in csp, path
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("referrer-policy") == "no-referrer", path
        assert not any(k.startswith("access-control-") for k in headers), path


def test_hostile_shard_is_text(served: tuple[App, FakeLoop]) -> None:
    """Catches any byte of memory reaching the page as markup: every page holds only the
    tags and attributes the page writes itself, and the payloads read as text."""
    app, _ = served
    for path in PAGES:
        status, _, page = request(app, path)
        assert status == 200, path
        tags = parsed(page)
        assert set(tags.tags) <= PAGE_TAGS, path
        for _tag, name, value in tags.attrs:
            assert not name.startswith("on") and name not in ("style", "src", "srcdoc"), path
            assert not value.lower().lstrip().startswith(("javascript:", "data:")), path
    page = request(app, "/entry/project/bad00001")[2]
    text = "".join(parsed(page).text)
    assert "<script>document.title='PWNED'</script>" in text
    assert "⟨U+202E⟩" in text and "⟨U+200B⟩" in text  # bidi and zero-width made visible


def test_withheld_entry_is_not_shown(served: tuple[App, FakeLoop]) -> None:
    """Catches the page showing an entry that holds a credential, which `show` withholds."""
    app, _ = served
    seen = ""
    for path in [*PAGES, "/entry/project/leak0001", "/shard/project/insights?archive=1"]:
        seen += request(app, path)[2]
    if any(GITHUB[i:i + 10] in seen for i in range(len(GITHUB) - 9)):
        pytest.fail("part of the credential is on a page", pytrace=False)  # never print it
    assert "Deploy token for the bot" not in seen
    assert "holds a credential" in request(app, "/shard/project/insights")[2]


def test_superseded_entry_links_to_its_correction(served: tuple[App, FakeLoop],
                                                  mem: lean_memory.Memory) -> None:
    """Catches a superseded entry shown as current, or without the way to its correction."""
    app, _ = served
    new = next(e for e in mem.entries("corrections"))
    page = request(app, f"/entry/project/{new.supersedes}")[2]
    assert "superseded by" in page and f'href="/entry/project/{new.id}"' in page


def test_page_sees_writes_made_while_it_is_open(served: tuple[App, FakeLoop],
                                                mem: lean_memory.Memory) -> None:
    """Catches the page's parse cache serving a shard that changed since: a put, and a
    correction of it, made while the page is open show on the next load."""
    app, _ = served
    assert "Flaky test" not in request(app, "/shard/project/failures")[2]
    first = mem.put_entry("failures", "test_io is flaky on CI.", title="Flaky test")
    page = request(app, "/shard/project/failures")[2]
    assert "Flaky test" in page and "superseded by" in page  # the older deploy entry
    fix = mem.put_entry("corrections", "test_io is flaky only on Windows CI.",
                        title="Flaky on Windows", supersedes=first.id)
    page = request(app, f"/entry/project/{first.id}")[2]
    assert f'superseded by <a href="/entry/project/{fix.id}">' in page
    assert "Flaky on Windows" in request(app, f"/entry/project/{fix.id}")[2]


def test_said_again_folded_and_archive_reachable(served: tuple[App, FakeLoop],
                                                 mem: lean_memory.Memory) -> None:
    """Catches a "said again" part shown as if it were the entry, and an archived original
    the page cannot reach."""
    app, _ = served
    page = request(app, "/shard/project/insights")[2]
    assert "<details><summary>said again (1 time)</summary>" in page
    assert page.index("The build fails on tabs") < page.index("<details>") < page.index(
        "the build failed on tabs")
    seed = request(app, "/shard/project/seed")[2]
    assert "Python 3.9" not in seed and 'href="/shard/project/seed?archive=1"' in seed
    archive = request(app, "/shard/project/seed?archive=1")[2]
    assert "Python 3.9" in archive and ">archived<" in archive and "moved to 3.11" in archive
    [old] = mem.entries("seed", archive=True)
    assert ">archived<" in request(app, f"/entry/project/{old.id}")[2]


def test_bounded_requests(served: tuple[App, FakeLoop]) -> None:
    """Catches unbounded input (a huge request target) and a first-load redirect that could
    send the browser to another host (`//evil.test`; http.server also collapses a leading
    `//` since 3.11.4, so on such a Python only the 414 half can fail)."""
    app, _ = served
    assert request(app, "/" + "a" * 5000)[0] == 414
    status, headers, _ = request(app, f"//evil.test/x?token={app.token}", cookie=False)
    location = headers["location"]
    assert status == 303 and location.startswith("/") and not location.startswith("//")


def test_context_sheet_rows_largest_first(served: tuple[App, FakeLoop],
                                          mem: lean_memory.Memory) -> None:
    """Catches a context sheet that is not the digest the hooks inject, or not sorted."""
    app, _ = served
    page = request(app, "/context?q=redis+timeout+windows")[2]
    start = mem.digest("", budget_tokens=app.budget_tokens)
    assert "Standing rules" in page and "Memory matching this prompt" in page
    from html import escape

    assert escape(start, quote=True) in page
    cells = [int(c.split("</td>")[0].replace(",", ""))
             for c in page.split('<tr><td class="num">')[1:]]
    assert len(cells) >= 3 and cells == sorted(cells, reverse=True)


def test_port_in_use_is_one_line_exit_2(mem: lean_memory.Memory) -> None:
    """Catches a traceback (or a silent second server) when the port is taken."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "lean_memory", "--root", str(mem.root),
                            "serve", "--port", str(port)], capture_output=True, text=True,
                           timeout=30, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"port {port}" in r.stderr and "Traceback" not in r.stderr


class _Served(NamedTuple):
    address: str  # the address `serve` printed
    login: int  # the status of a GET of that address (its token: 303 to the page)
    get: Callable[[str], tuple[int, str]]  # a GET of a path with the run's cookie


@contextmanager
def _cli_serve(*args: str, cwd: Path | None = None,
               env: dict[str, str] | None = None) -> Iterator[_Served]:
    """The real ``lean-memory ARGS serve --port 0`` in a process (``ARGS`` before the
    command: ``--root DIR``; ``--global`` after it is one of them too), logged in with the
    token of the address it prints."""
    before = [a for a in args if a != "--global"]
    after = ["--global"] if "--global" in args else []
    proc = subprocess.Popen([sys.executable, "-m", "lean_memory", *before, "serve", *after,
                             "--port", "0"], cwd=cwd, stdout=subprocess.PIPE, text=True,
                            env=env or {**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        line = ""
        while "http://" not in line:
            line = proc.stdout.readline()
            assert line, "serve exited without printing an address"
        address = line.strip()
        port = int(address.split(":")[2].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", address.split(str(port), 1)[1])
        r = conn.getresponse()
        cookie = r.getheader("Set-Cookie", "").split(";")[0]
        r.read()
        conn.close()

        def get(path: str) -> tuple[int, str]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.request("GET", path, headers={"Cookie": cookie})
                r = conn.getresponse()
                return r.status, r.read().decode()
            finally:
                conn.close()

        yield _Served(address, r.status, get)
    finally:
        proc.terminate()
        proc.wait(10)


def test_cli_serve_prints_a_usable_address(mem: lean_memory.Memory) -> None:
    """Catches a `serve` command that prints no usable address. (How fast it starts is a
    figure for bench/, not a verdict here: a loaded machine would decide it.)"""
    with _cli_serve("--root", str(mem.root)) as served:
        assert served.address.startswith("http://127.0.0.1:") and "token=" in served.address
        assert served.login == 303


# -- the renderer -----------------------------------------------------------------------

_MD = st.text(alphabet=st.sampled_from(list("<>&\"'`*_[]()#-+>.:/=!\n \tjavascript:onerror"
                                             "http\u202e\u200b\x00ab1")), max_size=300)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_MD, st.text(max_size=200)))
def test_renderer_writes_only_its_own_tags(text: str) -> None:
    """Catches any input that produces a tag or attribute the renderer did not write
    (escape-first: memory text is never markup), or a link that is not http(s)."""
    out = parsed(mdhtml.render(text))
    assert set(out.tags) <= mdhtml.TAGS
    for tag, name, value in out.attrs:
        assert (tag, name) in mdhtml.ATTRS
        if name == "href":
            assert value.startswith(("http://", "https://"))
            assert not any(c in value for c in "\"'<> ")


@pytest.mark.parametrize("text", ["**a " * 20000, "**" * 40000, "*a " * 30000, "__a" * 30000,
                                  "`a " * 30000, "[a](" * 20000, "> " * 5000 + "x",
                                  "".join("> " * i + "x\n" for i in range(1, 600))],
                         ids=["strong", "stars", "em", "under", "ticks", "links", "quote",
                              "nested"])
def test_renderer_is_fast_on_hostile_text(text: str) -> None:
    """Catches emphasis patterns that backtrack (a line of 20,000 `**a` took 90 s) and
    quotes nested past the recursion limit: a shard must not stall or crash the page.
    Bounds the CPU time of this thread, not the wall clock (which load moves)."""
    assert cpu_seconds(lambda: mdhtml.render(text)) < 3.0


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(
    "\u202a\u202b\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\ufeff"
    "\x00\x1b\x7f\u2028\u2029<>&\"'")), max_size=200))
def test_escape_keeps_visible_text(text: str) -> None:
    """Catches escaping that loses or alters visible text, or lets an invisible character
    (bidi override, zero width) through."""
    shown = "".join(parsed(mdhtml.escape(text)).text)
    kept = "".join(c for c in text.replace("\r\n", "\n").replace("\r", "\n")
                   if c.isprintable() or c in "\t\n" or c == " ")
    for c in kept:
        assert c in shown
    assert all(c.isprintable() or c in "\t\n" or unicodedata.category(c) == "Zs" for c in shown)


# -- a real browser ---------------------------------------------------------------------

SHOTS = os.environ.get("LEAN_MEMORY_SCREENSHOTS") == "1"


def _browser_missing() -> str:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for name in ("chromium", "chromedriver"):
        if shutil.which(name) is None:
            return f"{name} is not installed (apt-get install chromium chromium-driver)"
    return ""


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    missing = _browser_missing()
    if missing:
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or ""
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1200,900",
                 f"--user-data-dir={tmp_path / 'profile'}",
                 # evil.test resolves to this machine, as after DNS rebinding
                 "--host-resolver-rules=MAP evil.test 127.0.0.1"):
        opts.add_argument(flag)
    try:
        driver = webdriver.Chrome(options=opts,
                                  service=Service(shutil.which("chromedriver") or ""))
    except Exception as exc:  # a broken install: say so, do not fail the suite
        pytest.skip(f"headless chromium did not start ({type(exc).__name__})")
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _text(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.TAG_NAME, "body").text)


def _nothing_ran(driver: Any) -> None:
    assert driver.title != "PWNED" and driver.execute_script("return document.title") != "PWNED"
    assert driver.execute_script("return document.getElementById('pwned')") is None
    assert driver.execute_script("return document.scripts.length") == 0
    assert driver.execute_script(
        "return getComputedStyle(document.body).display") != "none"


def test_browser_reads_every_page(served: tuple[App, FakeLoop], browser: Any,
                                  mem: lean_memory.Memory) -> None:
    """Catches a page a person cannot read in a real browser, or hostile text that runs
    there: each page loads after the token, shows what it should, and no payload ran."""
    app, _ = served
    base = f"http://127.0.0.1:{app.port}"
    browser.get(url(app))
    assert browser.current_url == base + "/"  # the token left the address bar
    text = _text(browser)
    assert "project memory" in text and "quirks" in text and "Lint before" not in text
    assert "No learning loop yet" not in text and "1 pending proposal" in text
    if SHOTS:
        browser.save_screenshot(str(ROOT / "docs" / "serve-overview.png"))
    for path in PAGES:
        browser.get(base + path)
        _nothing_ran(browser)
        assert "forbidden" not in _text(browser).lower()
    browser.get(base + "/entry/project/bad00001")
    text = _text(browser)
    assert "<script>document.title='PWNED'</script>" in text
    assert "click me (javascript:document.title='PWNED')" in text
    assert "⟨U+202E⟩" in text
    browser.get(base + "/shard/project/quirks")
    text = _text(browser)
    assert "Redis timeout on Windows" in text and "timeout = 5" in text
    browser.get(base + "/shard/project/failures")
    assert "superseded by" in _text(browser)
    browser.get(base + "/context?q=redis+timeout+on+windows")
    text = _text(browser)
    assert "Standing rules" in text and "session start" in text and "this prompt" in text
    if SHOTS:
        browser.save_screenshot(str(ROOT / "docs" / "serve-context.png"))
    if GITHUB[:12] in browser.page_source:
        pytest.fail("part of the credential is on the page", pytrace=False)


def test_browser_yes_writes_the_rule(served: tuple[App, FakeLoop], browser: Any,
                                     mem: lean_memory.Memory) -> None:
    """Catches a yes button that does not reach the learning loop from a real browser (the
    token form field, the cookie and the Origin all as a browser sends them)."""
    from selenium.webdriver.common.by import By

    app, loop = served
    browser.get(url(app))
    browser.get(f"http://127.0.0.1:{app.port}/proposals")
    text = _text(browser)
    assert "Always pin the redis client version." in text and "<script>x</script>" in text
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    browser.find_element(By.CSS_SELECTOR, "button[value=yes]").click()
    # the click returns before the answer page has replaced this one
    WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: "p1: added to conventions" in _text(d))
    assert loop.answers == [("p1", True)]
    assert any(e.title == "Pin the redis client" for e in mem.entries("conventions"))


def test_browser_refused_without_token_or_with_foreign_host(
        served: tuple[App, FakeLoop], browser: Any) -> None:
    """Catches a browser getting memory without the token, or through a rebound name."""
    app, _ = served
    browser.get(f"http://127.0.0.1:{app.port}/")
    assert "token is missing" in _text(browser) and "Lint before" not in _text(browser)
    browser.get(f"http://evil.test:{app.port}/?token={app.token}")
    assert "foreign Host" in _text(browser)
    browser.get(f"http://evil.test:{app.port}/shard/project/conventions")
    assert "Lint before" not in _text(browser)


def test_cli_serve_global_shows_your_own_memory_alone(tmp_path: Path) -> None:
    """Catches `serve --global` missing (issue 26) or serving the project instead: the page
    lists the global store's entry and no project's."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LEAN_MEMORY_GLOBAL": str(tmp_path / "g")}
    put = subprocess.run([sys.executable, "-m", "lean_memory", "put", "--global", "seed",
                          "I use uv, never pip", "--title", "uv not pip"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert put.returncode == 0, put.stderr
    with _cli_serve("--global", cwd=tmp_path, env=env) as served:
        status, page = served.get("/shard/global/seed")
        assert status == 200 and "uv not pip" in page
        overview = served.get("/")[1]
        assert "global" in overview and "project memory" not in overview


def test_browser_phone_width_has_no_horizontal_overflow(served: tuple[App, FakeLoop],
                                                        browser: Any, tmp_path: Path) -> None:
    """Catches a page wider than a phone (issue 35: the overview was 661 px at 390 px):
    no page scrolls sideways at 390 px; wide tables scroll inside their own box."""
    app, _ = served
    browser.set_window_size(390, 844)
    browser.get(url(app))
    base = f"http://127.0.0.1:{app.port}"
    width = browser.execute_script("return window.innerWidth")
    for path in PAGES:
        browser.get(base + path)
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width, (path, wide, width)
    if SHOTS:
        browser.get(base + "/")
        browser.save_screenshot(str(ROOT / "docs" / "serve-phone.png"))


# -- what the agent gets (issue 35) -------------------------------------------------------


def _served_app(app: App) -> Iterator[App]:
    with serving(make_server(app, 0)):
        yield app


def test_over_budget_is_visible(tmp_path: Path) -> None:
    """Catches an over-budget memory drawn as a merely full bar (issue 35: at 311 % the bar
    was just full and each shard green): the bar runs past the budget mark in red, with
    its percentage and a warning line; the "injected" line is there as `status` prints."""
    mem = lean_memory.Memory(tmp_path)
    (tmp_path / ".agents").mkdir()
    (tmp_path / ".agents" / "config.toml").write_text("[memory]\ntoken_budget = 100\n")
    mem.init()
    for i in range(6):
        mem.put_entry("insights", f"Fact {i}: " + " ".join(f"word{i}x{j}" for j in range(40)))
    st = mem.status()
    pct = 100 * st.total_tokens // st.token_budget
    assert pct > 100
    for app in _served_app(App([("project", mem)])):
        page = request(app, "/")[2]
    assert f"{pct} %" in page and 'class="over"' in page and "Over budget" in page
    assert "#b00020" in page  # the red part past the mark
    assert "Injected: ~" in page and "before the last prompt" in page
    from lean_memory.serve import bar

    inside, past = bar(50, 100), bar(300, 100)
    assert 'width="100.0"' in inside and "#3a7d44" in inside  # half the track, green
    assert 'width="200.0"' in past and 'x="65.7"' in past  # the mark at a third of it


def test_titles_forgotten_and_folded_entries(served: tuple[App, FakeLoop],
                                             mem: lean_memory.Memory) -> None:
    """Catches every tab titled "Entry", a forgotten entry's page linking to the live
    shard (it is not there), and a compacted entry's folded ids without links."""
    app, _ = served
    titles = set()
    for path in PAGES:
        page = request(app, path)[2]
        titles.add(page.split("<title>")[1].split("</title>")[0])
    assert len(titles) == len(PAGES)
    [gone] = [e for e in mem.entries("seed", archive=True) if e.get("forgotten")]
    page = request(app, f"/entry/project/{gone.id}")[2]
    assert "<title>Python 3.9" in page
    assert 'href="/shard/project/seed?archive=1"' in page
    assert 'href="/shard/project/seed"' not in page
    folded = fmt.Entry("cmp00001", "quirks", "Compacted: 2 older entries",
                       f"Ids: `{gone.id}` `nosuch01`", "2026-03-01",
                       meta=(("compacted", "2"), ("detail", "ids")))
    _append(mem, "quirks", fmt.render_entry(folded))
    page = request(app, "/entry/project/cmp00001")[2]
    assert f'href="/entry/project/{gone.id}"' in page and "/entry/project/nosuch01" not in page


def test_history_page_draws_index_history_and_the_injection_log(tmp_path: Path) -> None:
    """Catches a history page without what changed recently, a token chart not made from
    INDEX.md's git history (an SVG drawn on the server), or a personal log of injections
    that is missing, committed, or leaks the raw prompt."""
    from .conftest import git

    root = tmp_path / "repo"
    mem = lean_memory.Memory(root)
    mem.init()
    git(root, "init", "-q")
    totals = []
    facts = ["The deploy listens on port 8080 behind nginx.",
             "The redis cache lives on host cache01 in the basement rack.",
             "Continuous integration runs on GitHub Actions with four workers."]
    for i, fact in enumerate(facts):
        mem.put_entry("insights", fact, title=f"Deploy fact {i}", date=f"2026-01-0{i + 1}")
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"c{i}")
        totals.append(mem.status().total_tokens)
    from lean_memory.history import index_history

    points = index_history(str(root), str(mem.index_path))
    assert [p.tokens for p in points] == totals  # oldest first, one per commit
    token = "gh" + "p_" + "".join(_RNG.choice(string.ascii_letters) for _ in range(36))
    payload = {"session_id": "s1", "cwd": str(root), "hook_event_name": "UserPromptSubmit",
               "prompt": "which port does the deploy use behind nginx?"}
    from lean_memory import agents

    mem.search("deploy")  # the index the hook's time limit expects
    mem.status()
    out = agents.hook_output("user-prompt-submit", None, payload)
    assert "Deploy fact" in out
    from lean_memory import recall

    recall._note_injected(mem, {"session_id": "s2"}, f"my deploy token is {token}",
                          "- Deploy fact 1: The redis cache lives on host cache01\n")
    for app in _served_app(App([("project", mem)])):
        page = request(app, "/history")[2]
    assert "Deploy fact 2" in page.split("What changed recently")[1].split("Token cost")[0]
    chart = page.split('<svg class="chart"')[1].split("</svg>")[0]
    assert chart.count("<circle") == 3 and "<polyline" in chart
    log = page.split("Which prompts injected which entries")[1]
    assert "which port does the deploy use" in log and 'href="/entry/project/' in log
    assert token not in page and token[:12] not in page
    from lean_memory.sessionlog import session_home

    assert (session_home(root) / "injected.jsonl").is_file()
    assert not any(p.name == "injected.jsonl" for p in root.rglob("*"))


def test_git_for_the_history_runs_isolated(tmp_path: Path) -> None:
    """Catches the history reading a repository's own config that runs commands (a
    hostile clone's core.fsmonitor or pager), or unbounded history."""
    from lean_memory import history, spawn

    from .conftest import git

    root = tmp_path / "repo"
    mem = lean_memory.Memory(root)
    mem.init()
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "c0")
    ran = tmp_path / "ran"
    with open(root / ".git" / "config", "a") as fh:
        fh.write(f"[core]\n\tfsmonitor = touch {ran}\n\tpager = touch {ran}\n")
    assert len(history.index_history(str(root), str(mem.index_path))) == 1
    assert not ran.exists()
    # spawn.git, history's runner, adds GIT_SAFE to every run
    assert "--no-pager" in history._SAFE and "core.fsmonitor=false" in spawn.GIT_SAFE
    assert history.MAX_VERSIONS <= 100


def test_overview_reads_the_remembered_count(mem: lean_memory.Memory) -> None:
    """Catches the overview running the proposal matcher on every load (issue 35: 4.7 s at
    10,000 entries): it reads the remembered count; the proposals page lists them only when
    that count says some wait, and again only after a change."""
    calls = {"pending": 0, "count": 0}

    def pending() -> list[Proposal]:
        calls["pending"] += 1
        return [Proposal("p1", "Always pin the redis client.", where=".agents/memory/c.md")]

    def count() -> int:
        calls["count"] += 1
        return 1

    made = App([("project", mem)], proposals=Proposals(pending, lambda k, y: "ok", count))
    for app in _served_app(made):
        for _ in range(3):
            assert "1 pending proposal" in request(app, "/")[2]
        assert calls["pending"] == 0
        page = request(app, "/proposals")[2]
        request(app, "/proposals")
        assert calls["pending"] == 1
    assert "A yes writes it to the project conventions" in page
    assert ".agents/memory/c.md" in page and "rides every session: ~" in page
    mem.put_entry("quirks", "A change the proposals may rest on.")
    for app in _served_app(made):
        request(app, "/proposals")
    assert calls["pending"] == 2


def test_page_block_is_the_hooks_block_with_a_global_layer(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """Catches the page's "what the prompt hook injects" differing from the hook's
    additionalContext (issue 35: 0 of 5 prompts with one global rule)."""
    monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(tmp_path / "g"))
    from lean_memory import agents
    from lean_memory.layers import global_memory

    g = global_memory(create=True)
    assert isinstance(g, lean_memory.Memory)  # the facade's class (App takes a Memory)
    g.put_entry("conventions", "Always answer in British English.")
    mem = build(tmp_path / "p")
    mem.search("deploy")  # the index the hook's time limit expects
    mem.status()
    from html import unescape

    for app in _served_app(App([("project", mem), ("global", g)])):
        for prompt in ("redis timeout windows", "deploy port", "parse_config tabs"):
            out = agents.hook_output("user-prompt-submit", None,
                                     {"cwd": str(mem.root), "prompt": prompt,
                                      "hook_event_name": "UserPromptSubmit"})
            block = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            page = request(app, "/search?q=" + prompt.replace(" ", "+"))[2]
            shown = unescape(page.split("<pre>")[-1].split("</pre>")[0])  # the last one
            assert shown == block and "British English" in block


def test_the_overview_says_one_live_entry_not_one_live_entries(tmp_path: Path) -> None:
    """The overview read "1 live entries" for a memory of one entry."""
    from lean_memory.serve import page_overview

    mem = lean_memory.Memory(tmp_path / "one")
    (tmp_path / "one").mkdir()
    mem.init()
    mem.put_entry("failures", "pytest hangs on Windows: pass -p no:faulthandler")
    page = page_overview(App([("project", mem)]))
    assert "1 live entry," in page and "1 live entries" not in page
    mem.put_entry("failures", "the docker build fails on arm64: pin numpy")
    assert "2 live entries," in page_overview(App([("project", mem)]))


# -- the global layer comes and goes while serving ----------------------------------------




def _global_with(title: str) -> Path:
    """A global store (where this environment puts it) holding one entry titled ``title``."""
    from lean_memory.layers import global_memory, global_root

    g = global_memory(create=True)
    g.put_entry("conventions", f"{title}: a rule of every project.", title=title,
                date="2026-06-01")
    return global_root()


@pytest.mark.parametrize("at_start", [True, False], ids=["present-at-start", "absent-at-start"])
def test_serve_follows_the_global_store_while_running(tmp_path: Path, at_start: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches the page's layer list fixed when ``serve`` starts (QA): a global store
    deleted while serving made Overview and History an "Error" page ("no memory at
    .../.agents/memory"), and one created while serving never appeared until a restart.
    The global store is where the environment says: LEAN_MEMORY_GLOBAL, or its default
    under XDG_DATA_HOME."""
    if not at_start:
        monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(tmp_path / "mine"))
    mem = build(tmp_path / "p")
    first = _global_with("Answer in British English") if at_start else None

    def pages(get: Callable[[str], tuple[int, str]], shown: str | None) -> None:
        (s1, overview), (s2, history) = get("/"), get("/history")
        for status, page in ((s1, overview), (s2, history)):
            assert status == 200 and "<title>Error" not in page, page
        assert "<h2>project memory</h2>" in overview and "Lint before committing" in history
        assert ("<h2>global memory</h2>" in overview) == (shown is not None)
        assert ("<td>global</td>" in history) == (shown is not None)  # a recent row's layer
        if shown is not None:
            assert shown in history

    with _cli_serve("--root", str(mem.root)) as served:
        get = served.get
        pages(get, "Answer in British English" if at_start else None)
        if first is not None:
            shutil.rmtree(first)
            pages(get, None)  # the project's page, as with no global store at start
        again = _global_with("Use uv, never pip")
        pages(get, "Use uv, never pip")  # on the next load, no restart
        shutil.rmtree(again)
        pages(get, None)
