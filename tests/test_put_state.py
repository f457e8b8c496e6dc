"""The put state file read a chunk at a time (ADR 0040, amended): its meta is sealed, each
chunk of its sets (the ids, per shard the said-again keys and signatures) is checked against
the digest the meta holds. Oracles: the memory's own shard files, parsed; a run of the same
puts with no cache at all."""

from __future__ import annotations

import marshal
import random
import shutil
from pathlib import Path

import pytest

from lean_memory import Memory, dedup, fsutil, putstate, summaries
from lean_memory import format as fmt

from .conftest import snapshot, spy_quick
from .test_put_path import plain

DATE = "2026-03-04"


def _memory(root: Path, n: int) -> Memory:
    mem = Memory(root)
    mem.init()
    for i in range(n):
        mem.put_entry(("quirks", "seed", "insights")[i % 3],
                      f"Fact {i}: the service {i} listens on port {4000 + i}.", date=DATE)
    return mem


def _all_ids(mem: Memory) -> set[str]:
    """Every id of every shard file, live and archived, from the files themselves."""
    ids = set()
    for name in mem.shards:
        for archive in (False, True):
            text = mem.read_text(mem._shard_file(name, archive=archive))
            ids |= {e.id for e in fmt.parse(text, name).entries}
    return ids


def _file(mem: Memory) -> tuple[bytes, int, list[object]]:
    """(raw bytes, where the body starts, meta) of the put state file, decoded here."""
    raw = (mem.cache_dir / "put-state.marshal").read_bytes()
    length = int.from_bytes(raw[fsutil.CACHE_PREFIX:fsutil.CACHE_PREFIX + 8], "little")
    at = fsutil.CACHE_PREFIX + 8 + length
    return raw, at, marshal.loads(raw[fsutil.CACHE_PREFIX + 8:at])


def _rebuild(mem: Memory) -> None:
    """A put state written afresh from the summaries (no tail)."""
    live = mem._summaries({})
    mem._links(live)
    mem._save_state(mem._status_of(live, mem._summaries({}, archive=True)))


@pytest.mark.usefixtures("first_read")
def test_every_id_is_found_and_no_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the chunked id set: with chunks of a few records, every id of the shard files
    is in the put state and no other id of their form is (a wrong fence or bisection
    would miss an id, and a new entry would take it again)."""
    monkeypatch.setattr(putstate, "_CHUNK", 16)  # 4 ids a chunk: many chunks
    mem = _memory(tmp_path, 40)
    _rebuild(mem)
    mem.put_entry("quirks", "One more, in the put state's tail.", date=DATE)
    state = Memory(tmp_path)._load_state()
    assert state is not None
    ids = _all_ids(mem)
    assert len(ids) == 41
    assert all(i in state.ids for i in ids)
    assert sorted(state.ids) == sorted(ids)
    rng = random.Random(7)
    others = {f"{rng.getrandbits(32):08x}" for _ in range(3000)} - ids
    assert not any(i in state.ids for i in others)
    assert not any(i in state.ids for i in ("", "zz", ids.pop().upper(), "\n"))


def test_a_new_id_taken_in_another_shard_is_not_reused(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the uniqueness of ids across shards on the quick put: an id written by hand
    in one shard equal to the id a put in another shard would take first must make that
    put take the next one (the put reads only its own shard's part of the put state)."""
    mem = _memory(tmp_path, 6)
    title, text = "Ports", "The proxy listens on port 8443 behind the balancer."
    clash = fmt.new_id("quirks", title, text, DATE, set())
    seed = mem._shard_file("seed")
    with open(seed, "a", encoding="utf-8") as f:  # by hand, in another shard
        f.write(fmt.render_entry(fmt.Entry(id=clash, shard="seed", title="Hand", text="By hand.",
                                           date=DATE)))
    mem = Memory(tmp_path)
    mem.put_entry("insights", "A general put rebuilds the put state.", date=DATE)
    mem = Memory(tmp_path)
    state = mem._load_state()
    assert state is not None and clash in state.ids
    quick = spy_quick(monkeypatch)
    entry = mem.put_entry("quirks", text, title=title, date=DATE)
    assert quick and quick[0] is not None  # the quick put wrote it
    assert entry.id != clash
    assert entry.id == fmt.new_id("quirks", title, text, DATE, {clash})
    ids = [e.id for name in mem.shards
           for e in fmt.parse(mem.read_text(mem._shard_file(name)), name).entries]
    assert len(ids) == len(set(ids))


def _tamper(mem: Memory, region: int, record: bytes, other: bytes) -> None:
    """Replace ``record`` with ``other`` in one set of the put state file and put the
    chunk's new digest in its meta, as someone without the cache key could: the seal is
    then the only thing that can tell."""
    raw, at, meta = _file(mem)
    regions = meta[-1]
    assert isinstance(regions, tuple | list)
    offset, length, fences, digests = regions[region]
    body = bytearray(raw[at:])
    blob = bytes(body[offset:offset + length])
    spot = next(i for i in range(0, len(blob), len(record)) if blob[i:i + len(record)] == record)
    body[offset + spot:offset + spot + len(record)] = other
    chunk = putstate._CHUNK
    first = spot // chunk * chunk
    new_digest = putstate.blake2b(bytes(body[offset + first:offset + min(first + chunk, length)]),
                                   digest_size=16).digest()
    i = spot // chunk
    digests = digests[:16 * i] + new_digest + digests[16 * (i + 1):]
    regions = [*regions[:region], (offset, length, fences, digests), *regions[region + 1:]]
    new_meta = marshal.dumps([*meta[:-1], regions])
    path = mem.cache_dir / "put-state.marshal"
    path.write_bytes(raw[:fsutil.CACHE_PREFIX] + len(new_meta).to_bytes(8, "little")
                     + new_meta + bytes(body))


@pytest.fixture(params=["read with the meta", "read by offset"])
def first_read(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways a chunk is read: from the bytes read with the meta (a small memory), or
    from the file by offset (a large one)."""
    if request.param == "read by offset":
        monkeypatch.setattr(putstate, "_FIRST_READ", 64)


@pytest.mark.parametrize("where", ["body", "meta"])
@pytest.mark.usefixtures("first_read")
def test_a_tampered_set_of_the_put_state_is_not_trusted(tmp_path: Path, where: str) -> None:
    """Guards the seal over the chunked put state: a said-again key taken out of a
    shard's set (its chunk, or its chunk and the digest in the meta) must not let the
    quick put append the entry again: the put folds it, as a put with no cache does."""
    text = "Retries need the idempotency key header, or the payment posts twice."
    outputs = []
    for tampered in (False, True):
        root = tmp_path / str(tampered)
        mem = _memory(root, 5)
        mem.put_entry("quirks", text, date=DATE)
        if tampered:
            _rebuild(Memory(root))
            mem = Memory(root)
            state = mem._load_state()
            assert state is not None
            at = mem.shards.index("quirks")
            key = putstate.text_digest(summaries.normalize(text))
            sig = dedup.signature(text)
            assert state.heads[at].keys.has(key) and state.heads[at].sigs.has(sig)
            for region, record in ((2 * at, key), (2 * at + 1, sig)):
                if where == "body":  # the chunk alone: its digest no longer matches
                    raw, start, meta = _file(mem)
                    offset, length, _, _ = meta[-1][region]  # type: ignore[index]
                    blob = raw[start + offset:start + offset + length]
                    spot = start + offset + blob.index(record)
                    path = mem.cache_dir / "put-state.marshal"
                    path.write_bytes(raw[:spot] + bytes(len(record)) + raw[spot + len(record):])
                else:
                    _tamper(mem, region, record, bytes(len(record)))
        else:
            shutil.rmtree(Memory(root).cache_dir)  # the oracle: no cache at all
        Memory(root).put_entry("quirks", text, date=DATE)
        quirks = fmt.parse(mem.read_text(mem._shard_file("quirks")), "quirks").entries
        assert [e.text for e in quirks].count(text) == 1  # folded, not appended again
        outputs.append(snapshot(root / ".agents" / "memory"))
        assert Memory(root)._load_state() is not None  # rebuilt by the general put
    assert outputs[0] == outputs[1]


@pytest.mark.usefixtures("first_read")
def test_a_tampered_id_set_does_not_hide_a_taken_id(tmp_path: Path) -> None:
    """Guards the ids' seal: an id taken out of the put state's id set (chunk and digest
    rewritten, the tag left) must not be handed out again."""
    mem = _memory(tmp_path, 6)
    title, text = "Ports", "The proxy listens on port 8443 behind the balancer."
    taken = Memory(tmp_path).put_entry("quirks", text, title=title, date=DATE, new=True).id
    _rebuild(Memory(tmp_path))
    _tamper(Memory(tmp_path), -1, bytes.fromhex(taken), bytes(4))
    again = Memory(tmp_path).put_entry("quirks", text, title=title, date=DATE, new=True)
    assert again.id != taken
    ids = [e.id for e in fmt.parse(mem.read_text(mem._shard_file("quirks")), "quirks").entries]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("tail_max", [0, 3, 1000])
def test_the_put_state_after_many_puts_is_a_fresh_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail_max: int) -> None:
    """Guards the tail and the rewrite of the chunked put state: after puts to several
    shards (some said again, some hand edits between them), the state a put loads holds
    what a put state built afresh from the files holds, and every id of the files."""
    monkeypatch.setattr(putstate, "_STATE_TAIL_MAX", tail_max)
    monkeypatch.setattr(putstate, "_CHUNK", 32)
    mem = _memory(tmp_path, 9)
    for i in range(12):
        shard = ("quirks", "insights", "failures")[i % 3]
        Memory(tmp_path).put_entry(shard, f"Step {i % 8}: deploy {i % 8} needs the flag "
                                   f"--step-{i % 8}.", date=DATE)
        if i == 5:  # a hand edit: the put state is void until a general put rebuilds it
            with open(mem._shard_file("seed"), "a", encoding="utf-8") as f:
                f.write("\n## By hand\nA note written in an editor.\n")
    state = Memory(tmp_path)._load_state()
    assert state is not None
    was = plain(state)
    assert sorted(state.ids) == sorted(_all_ids(mem))
    again = Memory(tmp_path)
    _rebuild(again)
    fresh = Memory(tmp_path)._load_state()
    assert fresh is not None
    assert plain(fresh) == was
