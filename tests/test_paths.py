"""Paths are ``os.path`` strings inside the package (issue 24): each string helper gives what
the ``pathlib`` expression it replaced gave, and a memory's string paths are its public
``Path`` attributes'."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from lean_memory.folder import pure_path
from lean_memory.fsutil import _parent, _shown
from lean_memory.store import Memory
from lean_memory.withhold import _relative

# paths made of the pieces that pathlib treats specially: separators, ".", "..", empty parts
PIECES = st.sampled_from(["a", "b", ".agents", ".", "..", "", "x.md", " "])
RAW = st.builds(lambda lead, parts, trail: lead + "/".join(parts) + trail,
                st.sampled_from(["", "/", "//", "///"]), st.lists(PIECES, max_size=6),
                st.sampled_from(["", "/", "//"]))
# POSIX leaves a path that starts with exactly two slashes to the system: pathlib keeps them
# apart from "/", the messages' strings do not (a memory's root is never one of those)
PLAIN = RAW.filter(lambda raw: not str(Path(raw)).startswith("//"))


@given(RAW)
def test_pure_path_is_str_of_path(raw: str) -> None:
    assert pure_path(raw) == str(Path(raw))
    assert pure_path(Path(raw)) == str(Path(raw))


@given(RAW)
def test_a_memory_s_strings_are_its_path_attributes(raw: str) -> None:
    mem = Memory(raw)
    assert mem._root == str(mem.root) == str(Path(raw))
    for text, path in ((mem._agents, mem.agents_dir), (mem._dir, mem.dir),
                       (mem._archive, mem.archive_dir), (mem._cache, mem.cache_dir),
                       (mem._index, mem.index_path)):
        assert text == str(path)
    assert mem._shard_file("seed", archive=True) == str(mem.shard_path("seed", archive=True))
    assert repr(mem) == f"Memory({str(Path(raw))!r})"


@given(PLAIN, PLAIN)
def test_shown_is_relative_to_the_repository_as_pathlib_gives_it(raw: str, top: str) -> None:
    path, root = Path(raw), Path(top)
    want = str(path)
    with contextlib.suppress(ValueError):
        want = path.relative_to(root.parent).as_posix()
    assert _shown(str(path), str(root)) == _shown(path, root) == want
    assert _shown(str(path), None) == str(path)
    assert _parent(str(path)) == str(path.parent)


@given(PLAIN, PLAIN)
def test_relative_is_relative_to(raw: str, top: str) -> None:
    path, folder = Path(raw), Path(top)
    try:
        want: str | None = path.relative_to(folder).as_posix()
    except ValueError:
        want = None
    if want == "." or (want is not None and str(folder) in ("/", "//", ".")):
        return  # a memory's own folder is never read as a file; its folder is never "/" or "."
    try:
        got: str | None = _relative(str(path), str(folder))
    except ValueError:
        got = None
    assert got == want, (str(path), str(folder))
    assert os.sep == "/"  # the strings above are POSIX ones
