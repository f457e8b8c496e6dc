"""Values read from committed files are parsed strictly (issue 36 item 2).

A committed entry whose ``said_again`` is ``²`` (``isdigit()`` passes, ``int()`` refuses) or
5,000 digits (over ``int()``'s 4,300) made ``list`` and a repeated ``put`` exit with an
internal error. Whatever a metadata value holds, every command answers or says one line
naming the problem, and the merge driver merges or conflicts; none fails internally.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import cli
from lean_memory import format as fmt

TEXT = "pytest hides print output; run it with -s"


def _shard(meta: str, text: str = TEXT) -> str:
    return ("# Quirks\n\nSurprises of tools.\n\n## pytest hides print output\n"
            f"<!-- lean-memory: {meta} -->\n\n{text}\n")


def _run(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli.main(["--root", str(root), *args], out)
    return code, out.getvalue(), err.getvalue()


def _no_internal_error(code: int, err: str) -> None:
    assert "internal error" not in err and "Traceback" not in err, err
    assert code in (0, 1, 2) and len(err.splitlines()) <= 1, (code, err)


values = st.one_of(
    st.sampled_from(["²", "٣", "\uff13", "1²", "0", "-1", "+2", " 3", "1_000", "1e3", "",
                     "9" * 5000, "1" * 10, "999999999", "0x10", "NaN", "2026-13-45",
                     "\uff12\uff10\uff12\uff16-\uff10\uff11-\uff10\uff11", "2026-01-01"]),
    st.text(st.characters(blacklist_characters=";\n\r", blacklist_categories=("Cs",)),
            max_size=12),
    st.integers(0, 10**12).map(str))


@settings(max_examples=60, deadline=None)
@given(said=values, last=values, date=values, other=values)
def test_any_metadata_value_never_fails_internally(said: str, last: str, date: str,
                                                   other: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        assert _run(root, "init", "--no-git")[0] == 0
        shard = root / ".agents" / "memory" / "quirks.md"
        meta = f"id=a1b2c3d4; date={date}; said_again={said}; last_said={last}; note={other}"
        shard.write_text(_shard(meta), encoding="utf-8")
        for args in (("list",), ("list", "--json"), ("get", "quirks"),
                     ("get", "--query", "pytest print output"), ("status",),
                     ("put", "quirks", TEXT), ("list",)):
            code, _, err = _run(root, *args)
            _no_internal_error(code, err)
        # the merge driver, three versions of the entry with values of their own
        files = []
        for i, value in enumerate((said, last, other)):
            path = root / f"v{i}.md"
            path.write_text(_shard(f"id=a1b2c3d4; date=2026-01-0{i + 1}; said_again={value}"),
                            encoding="utf-8")
            files.append(str(path))
        code, _, err = _run(root, "merge-driver", *files, ".agents/memory/quirks.md")
        _no_internal_error(code, err)


@pytest.mark.parametrize("bad", ["²", "9" * 5000, "٣", "three"],
                         ids=["superscript", "5000-digits", "arabic-indic", "word"])
def test_a_repeated_put_names_the_entry_whose_count_is_not_one(tmp_path: Path,
                                                               bad: str) -> None:
    """The put that would count the entry again says which entry and which key, once;
    the file is left as it is (a hand edit is never written over)."""
    assert _run(tmp_path, "init", "--no-git")[0] == 0
    shard = tmp_path / ".agents" / "memory" / "quirks.md"
    text = _shard(f"id=a1b2c3d4; date=2026-01-01; said_again={bad}")
    shard.write_text(text, encoding="utf-8")
    code, _, err = _run(tmp_path, "put", "quirks", TEXT)
    assert code == 2 and len(err.splitlines()) == 1
    assert "a1b2c3d4" in err and "said_again" in err and len(err) < 300
    assert shard.read_text(encoding="utf-8") == text
    code, out, err = _run(tmp_path, "list")  # listed, the count shown as none
    assert code == 0 and err == "" and "a1b2c3d4" in out and "said again" not in out


def test_counts_merge_only_when_all_sides_are_counts() -> None:
    """``said_again`` adds up across the sides when each is plain digits; anything else is
    merged as text (a conflict when both sides changed it), never converted."""
    base = _shard("id=a1b2c3d4; date=2026-01-01; said_again=2")
    ours = _shard("id=a1b2c3d4; date=2026-01-01; said_again=3")
    theirs = _shard("id=a1b2c3d4; date=2026-01-01; said_again=4")
    from lean_memory.merge import merge_shards

    assert "said_again=5" in merge_shards(base, ours, theirs, "quirks").text
    odd = merge_shards(base, ours, theirs.replace("said_again=4", "said_again=\uff14"), "quirks")
    assert odd.conflicts


@given(st.text(max_size=12))
def test_parse_count_is_ascii_digits_within_bound(value: str) -> None:
    ascii_digits = value != "" and all(c in "0123456789" for c in value)
    expected = int(value) if ascii_digits and len(value) <= fmt.MAX_COUNT_DIGITS else None
    assert fmt.parse_count(value) == expected


@pytest.mark.parametrize("value", ["9" * 5000, "0x" + "f" * 4000, "[0x" + "f" * 4000 + "]",
                                   "-" + "9" * 4301, "1" * 4300],
                         ids=["5000-digits", "long-hex", "long-hex-in-list", "negative",
                              "4300-digits"])
def test_a_committed_config_number_of_any_length_is_one_line(tmp_path: Path,
                                                             value: str) -> None:
    """``.agents/config.toml`` is committed: tomllib's ``int()`` refuses 4,300+ digits and a
    message's ``str()`` of a long hexadecimal number; both were internal errors."""
    assert _run(tmp_path, "init", "--no-git")[0] == 0
    (tmp_path / ".agents" / "config.toml").write_text(f"[memory]\nbm25_k1 = {value}\n")
    for args in (("list",), ("get", "--query", "deploy staging"), ("status",)):
        code, _, err = _run(tmp_path, *args)
        assert code == 2 and len(err.splitlines()) == 1 and "config" in err, err
        assert len(err) < 300
