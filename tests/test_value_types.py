"""The public value types work with the standard library's dataclass tools (issue 35.6).

Harness code written for the frozen dataclasses these once were calls ``dataclasses.replace``,
``asdict``, ``astuple``, ``fields`` and ``is_dataclass`` on them, and ``copy.replace`` on
Python 3.13+. Each test here fails if a record stops answering the dataclass protocol (the
lazy ``__dataclass_fields__`` of ``_record.Record``) or answers it wrongly.
"""

from __future__ import annotations

import copy
import dataclasses
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import lean_memory
from lean_memory._record import Record
from lean_memory.putstate import ShardStatus


def _entry(**changes: object) -> lean_memory.Entry:
    values: dict[str, object] = {"id": "3fa9c2d1", "shard": "quirks", "title": "A title",
                                 "text": "A text", "tags": ("ci",), "raw": "x"}
    values.update(changes)
    return lean_memory.Entry(**values)  # type: ignore[arg-type]


def test_replace_gives_the_same_type_with_the_change() -> None:
    """Guards: ``dataclasses.replace(entry, text=...)`` raising TypeError (not a dataclass)."""
    entry = _entry()
    changed = dataclasses.replace(entry, text="Another text")
    assert type(changed) is lean_memory.Entry
    assert changed.text == "Another text"
    assert (changed.id, changed.title, changed.tags, changed.raw) == ("3fa9c2d1", "A title",
                                                                       ("ci",), "x")
    assert entry.text == "A text"  # the original is untouched


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError):
        dataclasses.replace(_entry(), colour="red")


def test_asdict_lists_every_field_in_order_nested_values_too() -> None:
    """Guards: asdict missing hidden fields, reordering them, or not recursing into records."""
    entry = _entry(date="2026-01-02")
    assert dataclasses.asdict(entry) == {
        "id": "3fa9c2d1", "shard": "quirks", "title": "A title", "text": "A text",
        "date": "2026-01-02", "tags": ("ci",), "supersedes": None, "meta": (), "line": 0,
        "raw": "x", "has_meta": False}
    status = lean_memory.Status((ShardStatus("seed", "What to know", 2, 0, 30),), 30, 8000, 6400)
    assert dataclasses.asdict(status) == {
        "shards": ({"name": "seed", "description": "What to know", "entries": 2,
                    "superseded": 0, "tokens": 30},),
        "total_tokens": 30, "token_budget": 8000, "compact_threshold": 6400}
    hit = lean_memory.Hit(entry, "quirks", 1.5)
    assert dataclasses.astuple(hit)[1:3] == ("quirks", 1.5)
    assert dataclasses.asdict(hit)["entry"]["id"] == "3fa9c2d1"


@pytest.mark.parametrize("cls", [lean_memory.Entry, lean_memory.Hit, lean_memory.Status,
                                 lean_memory.Finding, ShardStatus])
def test_fields_match_the_constructor(cls: type[Record]) -> None:
    """Guards: the shadow's fields drifting from the record's own field list or defaults."""
    assert dataclasses.is_dataclass(cls)
    found = dataclasses.fields(cls)  # type: ignore[arg-type]
    assert tuple(f.name for f in found) == cls._fields
    defaults = cls.__init__.__defaults__ or ()
    with_default = [f for f in found if f.default is not dataclasses.MISSING]
    assert tuple(f.default for f in with_default) == defaults
    # fields left out of equality and repr are flagged so, and only those
    assert {f.name for f in found if not f.compare} == set(cls._hidden)
    assert {f.name for f in found if not f.repr} == set(cls._hidden)


def test_the_base_class_is_not_a_dataclass() -> None:
    assert not dataclasses.is_dataclass(Record)


def test_compaction_report_is_a_real_dataclass() -> None:
    assert dataclasses.is_dataclass(lean_memory.CompactionReport)


@pytest.mark.skipif(sys.version_info < (3, 13), reason="copy.replace is new in Python 3.13")
def test_copy_replace() -> None:
    changed = copy.replace(_entry(), title="New")  # type: ignore[attr-defined]
    assert changed == _entry(title="New")


def test_dunder_replace_is_copy_replace_protocol() -> None:
    """Guards: ``__replace__`` missing or ignoring its changes (copy.replace on 3.13+)."""
    assert _entry().__replace__(title="New") == _entry(title="New")


_text = st.text(max_size=20)


@given(st.fixed_dictionaries({}, optional={"title": _text, "text": _text,
                                           "date": st.none() | _text,
                                           "tags": st.tuples(_text), "line": st.integers()}))
def test_replace_equals_building_anew(changes: dict[str, object]) -> None:
    """dataclasses.replace, the package's replace and a fresh construction agree."""
    from lean_memory._record import replace

    fresh = _entry(**changes)
    assert dataclasses.replace(_entry(), **changes) == fresh == replace(_entry(), **changes)
