"""Retrievers: the protocol, loading them by name, one time limit, and fusion.

A retriever named in config is loaded (entry point import and constructor) and asked to
``rank`` in a worker thread; the query waits for it until one deadline,
``retriever_timeout_ms`` after the plugins start, and then answers without it (ADR 0019).
A thread cannot be stopped, only abandoned: a plugin that holds the GIL in C code delays
the caller until it lets go, which no thread-based limit can prevent.

Fusion (ADR 0019): ``rerank`` (the default) mixes the first retriever's top ``depth``
with the others' scores for the same entries, each min-max normalised, by a convex
combination; ``rrf`` is weighted Reciprocal Rank Fusion of full rankings. In both, when
the first retriever returns fewer than ``k`` hits, the others' hits fill the rest, but
never one scored below the retriever's own ``floor`` (a cosine floor for embedders): a
prompt nothing in memory is about gets no nearest neighbours (ADR 0021).
"""

from __future__ import annotations

import _thread
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from contextlib import suppress

TYPE_CHECKING = False  # typing imports re: ~9 ms a query with the extra need not pay
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from . import format as fmt
    from ._protocols import MemoryLike
    from ._retriever import Retriever as Retriever  # for type checkers; see __getattr__
    from .config import Config

RRF_K = 60
GROUP = "lean_memory.retrievers"
BUILTIN = frozenset({"bm25", "ollama"})
# Default weights (first retriever, each other one), chosen by measurement with
# all-MiniLM-L6-v2 (bench/retrieval/semantic.py): re-rank BM25's top 20 with 0.6 BM25 +
# 0.4 cosine; in rrf the dense list counts a fifth.
DEFAULT_WEIGHTS = {"rerank": (0.6, 0.4), "rrf": (1.0, 0.2)}
DEFAULT_DEPTH = 20
# The rescue (the first stage found fewer than k) lets the others rank at most this many
# entries, the newest: each is read back from its shard and parsed (~0.1-0.3 ms) and scored
# in pure Python (~0.03 ms at 384-d); 8,740 entries took 311-344 ms of the 400 ms deadline
# (bench/retrieval/rescue_speed.py).
RESCUE_CAP = 1000


def __getattr__(name: str) -> object:
    """``Retriever``, the protocol, from its own module (it costs ``typing``)."""
    if name == "Retriever":
        from ._retriever import Retriever

        return Retriever
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Event:
    """``threading.Event``'s set and wait, on a ``_thread`` lock (``threading`` costs
    ~3 ms of a query's CPU): held until set."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._lock.acquire()

    def set(self) -> None:
        with suppress(RuntimeError):  # set twice
            self._lock.release()

    def wait(self, timeout: float) -> bool:
        got = self._lock.acquire(True, timeout) if timeout > 0 else self._lock.acquire(False)
        if got:
            self._lock.release()
        return got


def _start(target: Callable[[], None]) -> None:
    """Run ``target`` in a new thread that the process does not wait for at exit (a daemon
    thread: an abandoned retriever never holds the command up)."""
    _thread.start_new_thread(target, ())


# Called with each note (a retriever skipped, and why); the agent hook logs them.
from ._record import listeners  # noqa: E402


def _debug(message: str) -> None:
    """Log on ``lean_memory.search``; logging is imported only when there is news."""
    import logging

    logging.getLogger("lean_memory.search").debug("%s", message)


def note(message: str) -> str:
    """Tell the listeners and the debug log; returns the message."""
    _debug(message)
    for listener in list(listeners):
        with suppress(Exception):  # a listener must never break a search
            listener(message)
    return message


# -- loading ------------------------------------------------------------------------------


def installed() -> dict[str, Any]:
    """The entry points of the group, by name."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=GROUP)}


def unknown(names: Sequence[str]) -> list[str]:
    """The names that are neither built in nor installed."""
    wanted = [n for n in names if n not in BUILTIN]
    if not wanted:  # no entry point scan on the plain path
        return []
    have = installed()
    return [n for n in wanted if n not in have]


class _Load:
    """A plugin loading in its own daemon thread, shared by every query of the process
    (a slow import is paid once, even when a query gave up waiting for it)."""

    def __init__(self, name: str, ep: Any) -> None:
        self.done = _Event()
        self.value: Any = None
        self.error: BaseException | None = None
        _start(lambda: self._run(ep))

    def _run(self, ep: Any) -> None:
        try:
            obj = ep.load()
            self.value = obj() if isinstance(obj, type) else obj
        except BaseException as exc:
            self.error = exc
        self.done.set()


_loads: dict[str, _Load] = {}
_loads_lock = _thread.allocate_lock()


def _plugin(name: str, ep: Any) -> Callable[[float], Any]:
    """A function of the deadline that returns the loaded plugin (raising on failure)."""
    with _loads_lock:
        load = _loads.get(name)
        if load is None or load.error is not None:  # a failed load is tried again
            load = _loads[name] = _Load(name, ep)

    def obtain(deadline: float) -> Any:
        if not load.done.wait(max(0.0, deadline - time.monotonic())):
            raise _TimedOut
        if load.error is not None:
            raise load.error
        return load.value

    return obtain


# Job and Fusion are plain classes, not frozen dataclasses nor NamedTuples: a dataclass
# costs about 1 ms to create, typing.NamedTuple the import of typing.
class Job:
    """A retriever to run: its name and how to get the object, given the deadline."""

    __slots__ = ("name", "obtain")

    def __init__(self, name: str, obtain: Callable[[float], Any]) -> None:
        self.name = name
        self.obtain = obtain

    def __repr__(self) -> str:
        return f"Job({self.name!r})"


def jobs(names: Sequence[str], mem: MemoryLike) -> tuple[list[tuple[str, Job | None]], list[str]]:
    """``(name, job)`` for the configured names, in order (job None: the built-in BM25),
    and a note for each unknown name (left out)."""
    out: list[tuple[str, Job | None]] = []
    notes: list[str] = []
    plugins: dict[str, Any] | None = None
    for name in names:
        if name == "bm25":
            out.append((name, None))
        elif name == "ollama":
            out.append((name, Job(name, lambda _deadline: _ollama(mem))))
        else:
            if plugins is None:
                plugins = installed()
            ep = plugins.get(name)
            if ep is None:
                notes.append(note(f"retriever {name!r} is not installed (see [memory] "
                                  "retrievers); searched without it"))
            else:
                out.append((name, Job(name, _plugin(name, ep))))
    if not out:
        out.append(("bm25", None))
    return out, notes


def _ollama(mem: MemoryLike) -> Any:
    """The built-in semantic retriever, imported only when named (urllib stays unloaded)."""
    from .ollama import retriever

    return retriever(mem)


class _TimedOut(Exception):
    pass


# -- running with a deadline ----------------------------------------------------------------


class Run:
    """One job in a daemon thread: obtain the retriever, wait for its entries, rank."""

    def __init__(self, job: Job, query: str, deadline: float) -> None:
        self.job = job
        self.query = query
        self.deadline = deadline
        self.ready = _Event()
        self.entries: Sequence[fmt.Entry] = ()
        self.k = 0
        self.result: Any = None
        self.missing = 0
        self.floor: float | None = None
        self.done = _Event()
        _start(self._run)

    def give(self, entries: Sequence[fmt.Entry], k: int) -> None:
        """The entries to rank (loading may already be under way)."""
        self.entries, self.k = entries, k
        self.ready.set()

    def _run(self) -> None:
        try:
            retriever = self.job.obtain(self.deadline)
            if not self.ready.wait(max(0.0, self.deadline - time.monotonic())):
                raise _TimedOut
            self.result = list(retriever.rank(self.query, self.entries, self.k))
            self.missing = int(getattr(retriever, "missing", 0) or 0)
            floor = getattr(retriever, "floor", None)
            self.floor = None if floor is None else float(floor)
        except BaseException as exc:
            self.result = exc
        self.done.set()

    def ranking(self, timeout_ms: int) -> tuple[list[tuple[str, float]] | None, str | None]:
        """Wait until the deadline; the ranking, or None and a note saying why not."""
        name = self.job.name
        if not self.done.wait(max(0.0, self.deadline - time.monotonic())):
            return None, note(f"retriever {name!r} timed out (no answer within {timeout_ms} "
                              "ms); searched without it")
        result = self.result
        if isinstance(result, _TimedOut):
            return None, note(f"retriever {name!r} timed out (not loaded within {timeout_ms} "
                              "ms); searched without it")
        if isinstance(result, BaseException):
            return None, note(f"retriever {name!r} failed ({_reason(result)}); "
                              "searched without it")
        try:
            return [(str(i), float(s)) for i, s in result], None
        except (TypeError, ValueError):
            return None, note(f"retriever {name!r} returned a malformed ranking; "
                              "searched without it")


def _reason(exc: BaseException) -> str:
    """The exception's type and, for our own errors, their message (never a plugin's:
    it could quote the query)."""
    from .errors import LeanMemoryError

    if isinstance(exc, LeanMemoryError):
        return str(exc)
    return type(exc).__name__


def call_with_timeout(retriever: Any, query: str, entries: Sequence[fmt.Entry], k: int,
                      timeout: float) -> list[tuple[str, float]] | None:
    """``retriever.rank`` in a daemon thread; None when it raises or runs out of time."""
    run = Run(Job(getattr(retriever, "name", "?"), lambda _deadline: retriever), query,
              time.monotonic() + timeout)
    run.give(entries, k)
    return run.ranking(round(timeout * 1000))[0]


# -- fusion -------------------------------------------------------------------------------

if TYPE_CHECKING:
    _Doc = TypeVar("_Doc", bound=Hashable)


class Fusion:
    """How rankings combine: ``mode`` "rerank" or "rrf"; ``depth`` the first stage's
    head that rerank mixes; ``weights`` per retriever, in config order."""

    __slots__ = ("depth", "mode", "weights")

    def __init__(self, mode: str = "rerank", depth: int = DEFAULT_DEPTH,
                 weights: tuple[float, ...] = ()) -> None:
        self.mode = mode
        self.depth = depth
        self.weights = weights

    def __repr__(self) -> str:
        return f"Fusion({self.mode!r}, {self.depth!r}, {self.weights!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fusion) and (self.mode, self.depth, self.weights) == (
            other.mode, other.depth, other.weights)

    __hash__ = None  # type: ignore[assignment]

    def weight(self, i: int) -> float:
        return self.weights[i] if i < len(self.weights) else 1.0

    @classmethod
    def of(cls, config: Config, names: Sequence[str]) -> Fusion:
        given = dict(config.fusion_weights)
        first, other = DEFAULT_WEIGHTS[config.fusion]
        weights = tuple(given.get(n, other if i else first) for i, n in enumerate(names))
        return cls(config.fusion, config.rerank_depth, weights)


def rrf(rankings: Sequence[Sequence[_Doc]], k: int = RRF_K,
        weights: Sequence[float] | None = None) -> list[tuple[_Doc, float]]:
    """(Weighted) Reciprocal Rank Fusion: sum of ``w / (k + rank)``; ties by first
    appearance."""
    scores: dict[_Doc, float] = {}
    first: dict[_Doc, int] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
            first.setdefault(doc, len(first))
    return sorted(scores.items(), key=lambda item: (-item[1], first[item[0]]))


def _minmax(scores: Mapping[_Doc, float]) -> dict[_Doc, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    return {d: (s - low) / span if span > 0 else 1.0 for d, s in scores.items()}


def rerank(first: Sequence[tuple[_Doc, float]], others: Sequence[Mapping[_Doc, float]],
           weights: Sequence[float], depth: int) -> list[tuple[_Doc, float]]:
    """The first ranking's top ``depth`` ordered by ``Σ wᵢ · minmax(scoreᵢ) / Σ wᵢ`` (each
    score min-max normalised over that head); the rest follows in its order, below.

    An entry another retriever did not score (no vector yet) takes the first retriever's
    normalised score in its place, so it keeps the place the first stage gave it.
    """
    head = list(first[:depth])
    base = _minmax({d: s for d, s in head})
    normed = [_minmax({d: o[d] for d, _ in head if d in o}) for o in others]
    total = sum(weights[: 1 + len(others)]) or 1.0
    mixed = []
    for pos, (doc, _) in enumerate(head):
        b = base[doc]
        score = weights[0] * b + sum(w * n.get(doc, b) for w, n in zip(weights[1:], normed,
                                                                      strict=False))
        mixed.append((score / total, pos, doc))
    mixed.sort(key=lambda t: (-t[0], t[1]))
    # the rest keeps its order, below every mixed score (they lie in [0, 1])
    return [(doc, score) for score, _, doc in mixed] + [(doc, -1.0) for doc, _ in first[depth:]]


def fill(fused: Sequence[tuple[_Doc, float]], extra: Sequence[Sequence[_Doc]],
         k: int) -> list[tuple[_Doc, float]]:
    """``fused`` followed, up to ``k``, by the other rankings' hits it lacks (RRF order,
    scores below every fused one)."""
    out = list(fused[:k])
    if len(out) >= k:
        return out
    seen = {d for d, _ in out}
    floor = min((s for _, s in out), default=0.0)
    for doc, s in rrf(extra):
        if len(out) >= k:
            break
        if doc not in seen:
            seen.add(doc)
            out.append((doc, min(floor, 0.0) - 1.0 + s))
    return out


# -- one query through every source ---------------------------------------------------------

# The built-in BM25 over the cached index: (depth, among these numbers or all) -> ranking.
BM25Top = Callable[[int, Sequence[int] | None], list[tuple[int, float]]]


def fuse(query: str, k: int, sources: Sequence[tuple[str, Job | None]], fusion: Fusion, *,
         bm25: BM25Top, numbers: Callable[[], list[int]],
         entries: Callable[[Sequence[int]], list[fmt.Entry]],
         timeout_ms: int, base: dict[int, float] | None = None,
         ) -> tuple[list[tuple[int, float]], list[str]]:
    """The fused ranking of entry numbers, and notes on the sources searched without.

    ``base``, when given, receives the first source's own score of each entry it ranked
    (the digest's gate reads that evidence, not the fused score: ADR 0021).

    ``sources`` are in config order (job None: the built-in BM25); ``numbers`` gives the
    searchable entries in the order plugins see them and ``entries`` reads them. Plugins
    load from now on and rank once their entries are known, all until one deadline; if
    every one fails, BM25 answers.
    """
    notes: list[str] = []
    deadline = time.monotonic() + timeout_ms / 1000
    runs = {i: Run(job, query, deadline) for i, (_, job) in enumerate(sources) if job}
    pool: dict[str, int] = {}
    everything: list[int] | None = None

    def all_numbers() -> list[int]:
        nonlocal everything
        if everything is None:
            everything = numbers()
        return everything

    def give(run: Run, ns: Sequence[int], depth: int) -> None:
        got = entries(ns)
        for n, e in zip(ns, got, strict=True):
            pool[e.id] = n
        run.give(got, depth)

    def ranking_of(i: int) -> list[tuple[int, float]] | None:
        run = runs[i]
        ranked, why = run.ranking(timeout_ms)
        if why:
            notes.append(why)
        if run.missing:
            notes.append(note(f"retriever {sources[i][0]!r}: {run.missing} of the "
                              f"{len(run.entries)} entries it ranked have no vector yet "
                              "(run `lean-memory embed`)"))
        if ranked is None:
            return None
        return [(pool[e], s) for e, s in ranked if e in pool]

    if fusion.mode == "rrf":
        depth = max(4 * k, 20)
        for run in runs.values():
            give(run, all_numbers(), depth)
        rankings: list[list[int]] = []
        weights: list[float] = []
        for i, (_, job) in enumerate(sources):
            got = bm25(depth, None) if job is None else ranking_of(i)
            if got is not None and not rankings and base is not None:
                base.update(got[:depth])
            if got is not None:
                floor = runs[i].floor if i in runs else None
                rankings.append([n for n, s in got[:depth] if floor is None or s >= floor])
                weights.append(fusion.weight(i))
        if not rankings:
            return bm25(k, None), notes
        return rrf(rankings, weights=weights), notes

    # rerank: the first source's head, rescored by the others
    head = max(fusion.depth, k)
    first: list[tuple[int, float]] | None = None
    if 0 in runs:
        give(runs[0], all_numbers(), head)
        first = ranking_of(0)
    if first is None:  # the built-in BM25, also when a first-stage plugin failed
        first = bm25(head, None)
    if base is not None:
        base.update(first)
    short = len(first) < k  # then the others rank everything, and fill the rest
    candidates = all_numbers()[:RESCUE_CAP] if short else [n for n, _ in first[:fusion.depth]]
    for i, run in runs.items():
        if i:
            give(run, candidates, len(candidates))
    others: list[dict[int, float]] = []
    extra: list[list[int]] = []
    weights = [fusion.weight(0)]
    for i, (_, job) in enumerate(sources[1:], start=1):
        got = bm25(len(candidates), candidates) if job is None else ranking_of(i)
        if got is None:
            continue
        others.append(dict(got))
        floor = runs[i].floor if i in runs else None
        # the rescue: only neighbours at or above the retriever's floor may fill
        extra.append([n for n, s in got if floor is None or s >= floor])
        weights.append(fusion.weight(i))
    fused = rerank(first, others, weights, fusion.depth) if others else first
    return (fill(fused, extra, k) if short else fused), notes
