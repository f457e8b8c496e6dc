"""The put path without regular expressions (issue 24): each str-method check equals the
regex it replaced, kept here as the oracle; and a plain put imports no ``re`` of its own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import Memory, dedup, fsutil, putstate, secrets, sessionlog, store, writelog

# Characters near every boundary the checks draw: controls, C1, surrogates, spaces, marks.
EDGES = st.sampled_from(
    [*map(chr, range(0x00, 0x21)), *map(chr, range(0x7e, 0xa2)), "\ud800", "\udfff",
     "\u2028", "\u3000", "\u00a0", ".", ":", ";", "!", "?", "#", ">", "*", "-", "`", "a",
     "\u00e9", "\u2026"])
TEXT = st.text(st.one_of(EDGES, st.characters()), max_size=200)

# The regexes of main (store.py), the oracles.
CLAUSE_END = re.compile(r"[.:;!?](?=\s)")
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
SURROGATE = re.compile(r"[\ud800-\udfff]")


def old_default_title(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#>*-+ \t").strip().strip("`")
        if line:
            break
    else:
        line = "Untitled"
    line = " ".join(line.split())
    clause = CLAUSE_END.search(line, 16)
    if clause is not None and clause.start() <= 80:
        line = line[: clause.start()]
    if len(line) > 80:
        cut = line[:80].rsplit(" ", 1)[0] or line[:80]
        line = cut.rstrip(" ,;:.") + "…"
    return line


@settings(max_examples=500)
@given(TEXT)
def test_control_checks_equal_the_regexes(text: str) -> None:
    bad = TEXT_CONTROL.search(text)
    assert store._first_of(text, store._TEXT_CONTROLS) == (-1 if bad is None else bad.start())
    bad = CONTROL.search(text)
    assert store._first_of(text, store._CONTROLS) == (-1 if bad is None else bad.start())
    assert store._has_surrogate(text) == (SURROGATE.search(text) is not None)


@settings(max_examples=500)
@given(st.lists(st.one_of(TEXT, st.sampled_from(["a. b", "x" * 20 + ". y", "? ", ":\t"])),
                max_size=6).map("".join))
def test_default_title_equals_the_regex_version(text: str) -> None:
    assert store.default_title(text) == old_default_title(text)


TEMP = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
NAME_PART = st.text(st.sampled_from([".", "a", "z", "0", "9", "_", "A", "-", "\n", "é", "t",
                                     "m", "p"]), max_size=10)


@settings(max_examples=1000)
@given(st.lists(st.one_of(NAME_PART, st.sampled_from([".tmp", ".", ".shard.md"]),
                          st.text(st.sampled_from("abc_09"), min_size=8, max_size=8)),
                max_size=5).map("".join))
def test_temp_names_equal_the_regex(name: str) -> None:
    assert fsutil._is_temp(name) == (TEMP.fullmatch(name) is not None)


def test_temp_names_made_are_temp_names(tmp_path: Path) -> None:
    fd, tmp = fsutil._temp_file(str(tmp_path / "a.md"))
    os.close(fd)
    assert fsutil._is_temp(os.path.basename(tmp))


@settings(max_examples=500)
@given(st.lists(TEXT, min_size=4, max_size=4))
def test_write_log_line_equals_json(fields: list[str]) -> None:
    at, entry_id, shard, title = fields
    assert writelog._write_line(at, entry_id, shard, title) == json.dumps(
        {"at": at, "id": entry_id, "shard": shard, "title": title},
        ensure_ascii=False, sort_keys=True) + "\n"


@settings(max_examples=500)
@given(st.text(st.one_of(st.sampled_from("aZ09-_. \u00c9\u0130\u212a"),
                        st.characters(blacklist_categories=("Cs",))),
               max_size=60).filter(lambda name: "/" not in name and "\0" not in name))
def test_project_key_slug_equals_the_regex(name: str) -> None:
    real = os.path.realpath(os.path.join("/tmp", name)) if name not in ("", ".", "..") else ""
    if not real:
        return
    slug = re.sub(r"[^a-z0-9]+", "-", os.path.basename(real).lower()).strip("-")[:40]
    assert sessionlog.project_key(real).rsplit("-", 1)[0] == (slug or "root")


# -- dedup's tokenizer, contractions and said-again marker: the regexes of main as oracles --

OLD_TOKEN = re.compile(
    r"\w+(?:[./:@+-]+\w+)*|(?<![\w~./$@#-])[~./$@#-]+\w+(?:[./:@+-]+\w+)*"
    r"|[<>=!]=|[<>=\u2264\u2265\u2260\u00b1%+\u00d7\u00f7^\u2192\u2190\u21d2"
    r"\u20ac\u00a3\u00a5\u00b0]")
OLD_CONTRACTION = re.compile(r"(?i)\b(?:(ca|wo|sha)n't|(can)not)\b|n't\b|'(s|re|ve|ll|d|m)\b")
OLD_PLAIN = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
OLD_NO_VOWEL = re.compile(r"[^aeiouy]+s")
OLD_MARKER_AT = re.compile(r"(?:\r\n\r\n|\n\n)" + re.escape(dedup.MARKER) + r"(?=\r?\n|\Z)")


def old_spell_out(m: re.Match[str]) -> str:
    head = m.group(1) or m.group(2)
    if head is not None:
        return dedup._SPELT[head.lower()]
    return " not" if m.group(3) is None else dedup._SPELT[m.group(3).lower()]


def old_word_key(token: str) -> str | None:
    low = token.casefold()
    if OLD_PLAIN.fullmatch(low) is None:
        return low
    if low in dedup.STOP_WORDS:
        return None
    if "-" in low or low in dedup._UNINFLECTED or (low[-1] == "s" and OLD_NO_VOWEL.fullmatch(low)):
        return low
    key = dedup.inflection(low)
    return key + "+" if len(key) <= 2 < len(low) else key


def old_main_text(text: str) -> str:
    if dedup.MARKER not in text:
        return text
    m = OLD_MARKER_AT.search(text)
    return text if m is None else text[: m.start()]


def old_content_words(text: str) -> tuple[str, ...]:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    if "'" in text or "annot" in text.lower():
        text = OLD_CONTRACTION.sub(old_spell_out, text)
    return tuple(filter(None, map(old_word_key, OLD_TOKEN.findall(text))))


PROSE = st.lists(st.one_of(
    st.sampled_from(["can't", "CANNOT", "won't", "Shan't", "isn't", "n't", "'s", "'RE", "'ve",
                     "'ll", "'d", "'m", "cannotx", "xcan't", "\u017f", "\u2019s", "--x", "-x",
                     "a.-b", "a#b", "~/x", "$HOME", "@user", "v1.2", "lib/a.py", "<=", "!=",
                     "==", "=", "\u2264", "%", "+", "x+", "+x", "\u00b0C", "_a", "a_", "..",
                     "/etc", "#1", "a--", "\u212a", "\u0130", "\u0663", "\u00b2", " ", "\n",
                     "\t", "\u3000",
                     "gcs", "https", "news", "uses", "used", "passes", "a-b-c", "-", "'",
                     dedup.MARKER, "\n\n", "\r\n\r\n", "\r\n", "\r"]),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=4),
    st.text(st.sampled_from("aSnN't'-./:@+$~#_<>=!%0 \n"), max_size=6)), max_size=30).map("".join)


@settings(max_examples=600)
@given(PROSE)
def test_tokens_equal_the_regex(text: str) -> None:
    assert dedup._tokens(text) == OLD_TOKEN.findall(text)


@settings(max_examples=600)
@given(PROSE)
def test_contractions_equal_the_regex(text: str) -> None:
    text = unicodedata.normalize("NFKC", text)
    assert dedup._spell_contractions(text) == OLD_CONTRACTION.sub(old_spell_out, text)


@settings(max_examples=600)
@given(PROSE)
def test_content_words_and_main_text_equal_the_regex_version(text: str) -> None:
    assert dedup.content_words(text) == old_content_words(text)
    assert dedup.main_text(text) == old_main_text(text)
    tokens = OLD_TOKEN.findall(text)
    assert list(map(dedup._word_key, tokens)) == list(map(old_word_key, tokens))


# -- what a put writes grows with its entry, not with the memory --------------------------


def plain(state: putstate.PutState) -> tuple[object, ...]:
    """``state`` with its sets read out (sorted), lines a quick put counts left out: what a
    fresh build must equal (the sets are read from the file before it is rewritten)."""
    return (*state[:3], sorted(state.ids), *state[4:5],
            [(*h[:6], sorted(putstate._split(h.keys.whole(), 8)),
              sorted(putstate._split(h.sigs.whole(), 16)), h.unsigned) for h in state.heads])


def _fresh_state(root: Path) -> putstate.PutState | None:
    again = Memory(root)
    live = again._summaries({})
    again._links(live)
    again._save_state(again._status_of(live, again._summaries({}, archive=True)))
    return Memory(root)._load_state()


@pytest.mark.parametrize("tail_max", [0, 2, 1000])
def test_quick_puts_append_to_the_put_state_tail(tmp_path: Path, tail_max: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(putstate, "_STATE_TAIL_MAX", tail_max)
    mem = Memory(tmp_path)
    mem.init()
    mem.put_entry("seed", "The first entry names the cache folder.", date="2026-01-01")
    state_file = os.path.join(mem._cache, "put-state.marshal")
    stats_file = mem._stat_path("quirks")
    base = fsutil.file_signature(state_file)
    for i in range(5):
        Memory(tmp_path).put_entry("quirks", f"Tool {i} needs the flag --frozen-{i} in CI.",
                                   date="2026-01-02")
    stats = fsutil.file_signature(stats_file)
    Memory(tmp_path).put_entry("quirks", "A sixth tool wants a pinned lockfile version.",
                               date="2026-01-03")
    if tail_max == 1000:  # neither the put state nor the shard's stats file rewritten
        assert fsutil.file_signature(state_file) == base
        assert fsutil.file_signature(stats_file) == stats
        assert os.path.exists(os.path.join(mem._cache, "put-state.tail.marshal"))
    state = Memory(tmp_path)._load_state()
    assert state is not None
    assert len(list(state.ids)) == 7
    was = plain(state)
    fresh = _fresh_state(tmp_path)
    assert fresh is not None
    assert plain(fresh) == was


# -- what a put loads ---------------------------------------------------------------------

PACKAGE_ROOT = str(Path(store.__file__).resolve().parent.parent)
# Runs ``python -m lean_memory ARGS``, noting the modules loaded and the file of every
# caller that compiled a regex (format.py and tokens.py still do, for now).
WRAPPER = """
import atexit, os, runpy, sys
sys.path.insert(0, {root!r})
compiled = []
def loaded():
    sys.stderr.write("\\nCOMPILED " + " ".join(compiled))
    sys.stderr.write("\\nMODULES " + " ".join(sys.modules) + "\\n")
    sys.stderr.flush()
atexit.register(loaded)  # an error's exit
end = os._exit  # cli.run's: the process ends there, without atexit (ADR 0054)
os._exit = lambda code: (loaded(), end(code))
import re._compiler as rc  # imported here: the put's own imports are not what is checked
real = rc.compile
def compile(p, flags=0):
    f = sys._getframe(1)
    while f and f.f_code.co_filename.endswith(("re/__init__.py", "_record.py")):  # _record.lazy
        f = f.f_back
    compiled.append(f.f_code.co_filename.rsplit("/", 1)[-1] if f else "?")
    return real(p, flags)
rc.compile = compile
sys.argv = ["lean_memory", *sys.argv[1:]]
runpy.run_module("lean_memory", run_name="__main__", alter_sys=True)
"""
MINE = {"store.py", "secrets.py", "_secret_rules.py", "sessionlog.py", "writelog.py", "dedup.py",
        "fsutil.py"}
# The search's modules: a put writes no index, so it loads none of them (issue 36: store
# reached globalstore's few names through layers, which imports the search: ~3 ms a put).
# withhold it does load: it records the stored entry's verdict for the next search.
SEARCH = {"lean_memory.layers", "lean_memory.search", "lean_memory.bm25", "lean_memory.index",
          "lean_memory.retrievers"}


def test_a_put_compiles_no_regex_of_its_own_and_imports_no_json_nor_search(
        tmp_path: Path) -> None:
    """Guards the put's imports: no regex compiled by our modules, no json, and none of the
    search's modules (each once cost every put milliseconds)."""
    mem = Memory(tmp_path)
    mem.init()
    mem.put_entry("quirks", "The first entry: it builds the put state.", date="2026-01-01")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LEAN_MEMORY"))}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    for text in ("Sockets time out when the balancer drops idle connections; it isn't "
                 "the pool's fault (see lib/pool.py, v3.11).", "Caf\u00e9 cr\u00e8me: the "
                 "t\u00eate-\u00e0-t\u00eate name is Unicode, and the --frozen-lockfile flag."):
        done = subprocess.run(
            [sys.executable, "-S", "-c", WRAPPER.format(root=PACKAGE_ROOT), "put", "quirks",
             text], cwd=tmp_path, capture_output=True, text=True, env=env, check=False)
        assert done.returncode == 0, done.stderr
        rest, _, modules = done.stderr.rpartition("\nMODULES ")
        compiled = rest.rpartition("\nCOMPILED ")[2].split()
        assert "json" not in modules.split()
        assert "lean_memory.store" in modules.split()  # the put ran where it is watched
        assert not SEARCH & set(modules.split()), sorted(SEARCH & set(modules.split()))
        assert not MINE & set(compiled), compiled
    assert len(list(Memory(tmp_path)._load_state().ids)) == 3  # type: ignore[union-attr]


# -- redaction: the copy with punctuation and escapes blanked, without a regex -------------

OLD_REPR_ESCAPE = re.compile(
    r"\\(?:x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]"
    r"|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0abfnrtv\\'\"])")
OLD_EDGE_PUNCT = re.compile(r"(?:(?<=\s)|^)[^\sA-Za-z0-9]+|[^\sA-Za-z0-9]+(?=\s|$)")
ESCAPY = st.lists(st.one_of(
    st.sampled_from(["\\", "\\\\", "x1b[", "x1b[0;31m", "x1b[?25h", "x1b[1 !@", "x", "u", "U",
                     "1b", "ff", "0F", "00e9", "0001F600", "n", "t", "'", '"', "0", "[", ";",
                     "?", " ", "-", "/", "@", "~", "m", "ghp_", "--", "\n", "\u3000", "\u00e9",
                     "\u2026", "a", "Z", "9", "_", ".", "\x1c"]),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=3)), max_size=40).map("".join)


def _old_blank(m: re.Match[str]) -> str:
    return " " * len(m.group())


@settings(max_examples=800)
@given(ESCAPY)
def test_blanked_copy_equals_the_regexes(text: str) -> None:
    assert secrets._blank_escapes(text) == OLD_REPR_ESCAPE.sub(_old_blank, text)
    assert secrets._blank_edges(text) == OLD_EDGE_PUNCT.sub(_old_blank, text)


def test_redacting_a_plain_prompt_compiles_nothing() -> None:
    code = ("import re._compiler as rc, sys\n"
            "rc.compile = lambda *a: sys.exit('compiled ' + repr(a[0]))\n"
            "from lean_memory.secrets import redact\n"
            "for t in ('why does parse_config fail with ECONNREFUSED after the upgrade?',\n"
            "          'fix lean_memory/store.py: the --frozen-lockfile flag (see \"docs\")\\n'\n"
            "          'isn\\'t used; C:\\\\Users\\\\x\\\\notes.txt, session 5f1c2d7e-bench.'):\n"
            "    assert redact(t) == t\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGE_ROOT, check=False)
    assert done.returncode == 0, done.stderr


def test_a_quick_put_reads_no_stats_file_its_tail_describes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stats tail knows its stats file's header while the file is unchanged: a quick put
    reads the small tail, not the shard's whole summary (1.6 MB at 100k entries)."""
    mem = Memory(tmp_path)
    mem.init()
    for i in range(3):
        Memory(tmp_path).put_entry("quirks", f"Tool {i} needs the flag --frozen-{i} in CI.",
                                   date="2026-01-02")
    read: list[str] = []
    real = putstate.read_cache

    def spy(path: str, root: object = None) -> bytes | None:
        read.append(os.path.basename(path))
        return real(path, root)  # type: ignore[arg-type]

    monkeypatch.setattr(putstate, "read_cache", spy)
    Memory(tmp_path).put_entry("quirks", "A fourth tool wants a pinned lockfile version.",
                               date="2026-01-03")
    assert "stats-live-quirks.marshal" not in read, read
    monkeypatch.undo()
    fresh = Memory(tmp_path)
    assert fresh._stat("quirks") is not None
    assert len(fresh._stat("quirks").summary.links) == 4  # type: ignore[union-attr]
