"""Tokenizer and Okapi BM25 (Lucene variant) over an inverted index, in plain Python.

The whole algorithm lives here, in the spirit of ``rank_bm25``: a tokenizer tuned for what coding
agents remember, an index that stores a precomputed BM25 impact per posting (so a query is a few
list walks and additions), and a compact state of builtins that loads in a few milliseconds.
"""

from __future__ import annotations

import heapq
import math
import re
import sys
import unicodedata
from array import array
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any, Protocol

from ._stem import stem as _porter_stem

__all__ = [
    "BM25",
    "STOP_WORDS",
    "BM25Index",
    "EntryLike",
    "simple_tokenize",
    "tokenize",
]

# -- tokenizer ---------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Lucene's English stop set; the data README's "simple" tokenizer uses exactly this set.
LUCENE_STOP_WORDS = _words(
    "a an and are as at be but by for if in into is it no not of on or such that the their then"
    " there these they this to was will with"
)

# Queries are the prompt an agent is about to answer, so besides Lucene's set we drop the
# pronouns, auxiliaries and question words of conversational English (and their contractions,
# which lose the apostrophe): they match nearly every note and only add noise. Negations and
# words that carry meaning in code notes ("not", "no", "off", "up", "all", "after", "new", "id")
# stay searchable.
STOP_WORDS = (LUCENE_STOP_WORDS - {"not", "no"}) | _words(
    """
    i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself its itself them theirs themselves what which who whom whose
    when where why how am been being have has had having do does did doing would should could
    can may might must shall were than too very so just also only own same some any each
    both few more most other from about against between through during above below over under
    again further once here those
    im ive youre youve youll youd hes shes weve theyre theyve dont doesnt didnt isnt
    arent wasnt werent cant couldnt wont wouldnt shouldnt hasnt havent hadnt lets thats whats
    theres heres
    """
)

# A chunk is a run of word characters, possibly joined by the connectors of paths, dotted names,
# kebab-case, URLs and e-mail addresses; a connector only counts between two word characters,
# so sentence punctuation ("see digest.js.") stays outside.
_CHUNK = re.compile(r"\w+(?:[./\\:@+#-]+\w+)*")
# Possessive 's is dropped and other in-word apostrophes are removed ("don't" -> "dont"),
# as Lucene's English analyzer does, so "Caroline's" finds "Caroline".
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019\u02bc][sS]\b")
_APOSTROPHE = re.compile(r"(?<=\w)['\u2019\u02bc](?=\w)")
_ALNUM = re.compile(r"[^\W_]+")
# Separators of paths, dotted names and URLs. What they join is a name in its own right
# ("lib/vault/digest.js", "os.path.join", "3.11.7"), kept whole besides its parts.
_PATH_SEP = re.compile(r"[./\\:@+#]+")
# Separators of path components; a component may itself be dotted ("digest.js").
_COMPONENT_SEP = re.compile(r"[/\\:@]+")
# Case-style boundaries: parseConfig, HTTPServer, HTTP2Server; but not IPv6 or E0502.
_CASE_SPLIT = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z]{2})(?=[A-Z][a-z])|(?<=\d)(?=[A-Z][a-z])")
_ASCII_WORD = re.compile(r"[a-z]+")

# Prefixes split off by a hyphen ("re-entry", "non-linear") are not words: the joined token
# ("reentry") carries the meaning, the fragment would only match unrelated words.
_BOUND_PREFIXES = _words("anti bi co de multi non post pre pseudo quasi re semi sub un")

# Memoised per distinct word and per distinct chunk: notes repeat the same words and names over
# and over, so most chunks cost one dict lookup. Both are bounded (cleared when full).
_CACHE_LIMIT = 200_000
_stem_cache: dict[str, str] = {}
_chunk_cache: dict[str, tuple[str, ...]] = {}


def _norm_word(word: str) -> str:
    """Stem a lowercase word."""
    stemmed = _stem_cache.get(word)
    if stemmed is None:
        stemmed = _porter_stem(word) if _ASCII_WORD.fullmatch(word) else word
        if len(_stem_cache) >= _CACHE_LIMIT:
            _stem_cache.clear()
        _stem_cache[word] = stemmed
    return stemmed


def _add_identifier(segment: str, out: list[str]) -> None:
    """Emit the words of an identifier in any case style, and the joined identifier if compound.

    ``parse_config``, ``parse-config``, ``parseConfig`` and ``ParseConfig`` all give the joined
    token ``parseconfig`` (so each style finds the others) plus ``pars`` and ``config``.
    """
    words = [w.lower() for piece in _ALNUM.findall(segment) for w in _CASE_SPLIT.split(piece)]
    if len(words) > 1:
        out.append(_norm_word("".join(words)))
        words = [w for w in words if w not in _BOUND_PREFIXES]
    for word in words:
        if word not in STOP_WORDS and (len(word) > 1 or word.isdigit()):
            out.append(_norm_word(word))


def _chunk_tokens(chunk: str) -> tuple[str, ...]:
    if chunk.isalpha() and (chunk.islower() or chunk[1:].islower()):
        # A plain word (the common case), without the regex work of identifiers.
        word = chunk.lower()
        return () if word in STOP_WORDS or len(word) == 1 else (_norm_word(word),)
    out: list[str] = []
    segments = _PATH_SEP.split(chunk)
    if len(segments) > 1:
        out.append(chunk.lower())
        # split() rather than a findall() of dotted components: linear on any input.
        components = _COMPONENT_SEP.split(chunk)
        if len(components) > 1:
            out.extend(c.lower() for c in components if "." in c)
    for segment in segments:
        _add_identifier(segment, out)
    return tuple(out)


def tokenize(text: str) -> list[str]:
    """Split text into lowercase search tokens: stemmed words, whole identifiers and their parts.

    A name such as ``lib/vault/digest.js``, ``os.path.join`` or ``3.11.7`` yields itself
    (lowercased), its dotted path components, then its identifiers and words; see
    ``_add_identifier`` for ``snake_case``, ``kebab-case`` and ``camelCase``.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = _APOSTROPHE.sub("", _POSSESSIVE.sub("", text))
    elif "'" in text:
        text = _APOSTROPHE.sub("", _POSSESSIVE.sub("", text))
    out: list[str] = []
    cache = _chunk_cache
    for chunk in _CHUNK.findall(text):
        tokens = cache.get(chunk)
        if tokens is None:
            tokens = _chunk_tokens(chunk)
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[chunk] = tokens
        out.extend(tokens)
    return out


def simple_tokenize(text: str) -> list[str]:
    """The data README's "simple" tokenizer: lowercase letter/digit runs minus Lucene stop words."""
    return [t for t in _ALNUM.findall(text.lower()) if t not in LUCENE_STOP_WORDS]


# -- index -------------------------------------------------------------------------------------

_STATE_FORMAT = "lean_memory.bm25/1"
# Bump whenever ``tokenize`` changes its output: cached indexes built with another version are
# refused by ``from_state`` and get rebuilt.
TOKENIZER_VERSION = "lean_memory.tokenize/1"


class BM25Index:
    """Inverted index over documents, each with a title and a body (title weighs more).

    Title and body are combined the BM25F way: a term's frequency is
    ``title_weight * tf_title + tf_body`` and the document length is
    ``title_weight * len_title + len_body``, then one BM25 saturation is applied. With an
    integer weight this equals repeating the title that many times.
    """

    __slots__ = ("_docs", "_offsets", "_terms", "_weights", "avgdl", "b", "k1", "n_docs",
                 "title_weight", "tokenizer")  # fmt: skip

    def __init__(
        self,
        *,
        k1: float,
        b: float,
        title_weight: float,
        n_docs: int,
        avgdl: float,
        terms: Sequence[str],
        offsets: Sequence[int],
        docs: Sequence[int],
        weights: Sequence[float],
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> None:
        self.k1 = k1
        self.b = b
        self.title_weight = title_weight
        self.n_docs = n_docs
        self.avgdl = avgdl
        # Postings of term t: docs[offsets[i]:offsets[i+1]] with the matching BM25 impacts in
        # weights[...], where terms[i] == t; terms are sorted, so a lookup is a binary search
        # and loading needs no dict. Doc numbers ascend within a term.
        self._terms = terms
        self._offsets = offsets
        self._docs = docs
        self._weights = weights
        self.tokenizer = tokenizer

    @classmethod
    def build(
        cls,
        docs: Iterable[tuple[str, str]],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        title_weight: float = 2.0,
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> BM25Index:
        """Index ``(title, body)`` pairs; a document's number is its position in ``docs``."""
        if not (k1 >= 0 and 0 <= b <= 1 and title_weight >= 0):
            raise ValueError("BM25 needs k1 >= 0, 0 <= b <= 1 and title_weight >= 0")
        # term -> [doc, freq, doc, freq, ...]: one flat list per term is the cheapest to grow.
        postings: defaultdict[str, list[float]] = defaultdict(list)
        lengths: list[float] = []
        for number, (title, body) in enumerate(docs):
            body_tokens = tokenizer(body)
            tf: Counter[str] = Counter(body_tokens)
            length: float = len(body_tokens)
            if title and title_weight:
                title_tokens = tokenizer(title)
                for token in title_tokens:
                    tf[token] += title_weight  # type: ignore[assignment]
                length += title_weight * len(title_tokens)
            lengths.append(length)
            for token, freq in tf.items():
                postings[token] += (number, freq)

        n_docs = len(lengths)
        avgdl = math.fsum(lengths) / n_docs if n_docs else 0.0
        # Per-document part of the saturation denominator, computed once.
        norms = [k1 * (1.0 - b + b * dl / avgdl) if avgdl else k1 for dl in lengths]
        terms = sorted(postings)
        offsets = array("i", [0])
        flat_docs = array("i")
        weights = array("d")
        for token in terms:
            plist = postings[token]
            numbers: list[int] = plist[0::2]  # type: ignore[assignment]
            freqs = plist[1::2]
            df = len(numbers)
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            flat_docs.extend(numbers)
            weights.extend([idf * f / (f + norms[d]) for d, f in zip(numbers, freqs, strict=True)])
            offsets.append(len(flat_docs))
        return cls(k1=k1, b=b, title_weight=title_weight, n_docs=n_docs, avgdl=avgdl,
                   terms=terms, offsets=offsets, docs=flat_docs, weights=weights,
                   tokenizer=tokenizer)  # fmt: skip

    def __len__(self) -> int:
        return self.n_docs

    def score(self, query: str) -> dict[int, float]:
        """BM25 score of every document that matches the query (all scores are > 0).

        A query term repeated n times counts n times, as in Lucene and the reference libraries.
        """
        counts: dict[str, int] = {}
        for token in self.tokenizer(query):
            counts[token] = counts.get(token, 0) + 1
        scores: dict[int, float] = {}
        get = scores.get
        for token, qtf in counts.items():
            i = bisect_left(self._terms, token)
            if i == len(self._terms) or self._terms[i] != token:
                continue
            start, end = self._offsets[i], self._offsets[i + 1]
            docs = self._docs[start:end]
            weights = self._weights[start:end]
            if qtf == 1:
                for doc, w in zip(docs, weights, strict=True):
                    scores[doc] = get(doc, 0.0) + w
            else:
                for doc, w in zip(docs, weights, strict=True):
                    scores[doc] = get(doc, 0.0) + qtf * w
        return scores

    def top(
        self, query: str, k: int, *, allowed: Container[int] | None = None
    ) -> list[tuple[int, float]]:
        """The k best ``(doc number, score)``: score descending, ties by lower doc number."""
        if k <= 0:
            return []
        scores = self.score(query)
        if allowed is not None:
            scores = {doc: s for doc, s in scores.items() if doc in allowed}
        if len(scores) > k:
            # The k-th best score, found on bare floats, bounds the candidates; ties at that
            # boundary are then settled by doc number like all the others.
            floor = heapq.nlargest(k, scores.values())[-1]
            items = [(doc, s) for doc, s in scores.items() if s >= floor]
        else:
            items = list(scores.items())
        items.sort(key=_rank_key)
        return items[:k]

    def to_state(self, *, binary: bool = True) -> dict[str, Any]:
        """The index as builtins for ``marshal`` (or ``json`` with ``binary=False``).

        Postings are three flat arrays: as little-endian bytes by default, which ``marshal``
        loads as one block each (10k entries: a few ms), or as lists of int and float.
        """
        tokenizer = self.tokenizer
        state: dict[str, Any] = {
            "format": _STATE_FORMAT,
            "tokenizer": TOKENIZER_VERSION if tokenizer is tokenize else _qualname(tokenizer),
            "k1": self.k1,
            "b": self.b,
            "title_weight": self.title_weight,
            "n_docs": self.n_docs,
            "avgdl": self.avgdl,
            "terms": list(self._terms),
        }
        for key, typecode, values in (("offsets", "i", self._offsets), ("docs", "i", self._docs),
                                      ("weights", "d", self._weights)):  # fmt: skip
            if binary:
                packed = values if isinstance(values, array) else array(typecode, values)
                if sys.byteorder == "big":
                    packed = array(typecode, packed)
                    packed.byteswap()
                state[key] = packed.tobytes()
            else:
                state[key] = list(values)
        return state

    @classmethod
    def from_state(
        cls, state: dict[str, Any], *, tokenizer: Callable[[str], list[str]] = tokenize
    ) -> BM25Index:
        """Rebuild an index from ``to_state()``; raises ValueError if the state is not one.

        ``tokenizer`` must be the one the index was built with; a state built by another
        version of ``tokenize`` is refused, so a stale cache gets rebuilt.
        """
        try:
            if state["format"] != _STATE_FORMAT:
                raise ValueError(f"unsupported BM25 index format: {state['format']!r}")
            expected = TOKENIZER_VERSION if tokenizer is tokenize else _qualname(tokenizer)
            if state["tokenizer"] != expected:
                raise ValueError(f"index built with tokenizer {state['tokenizer']!r}")
            arrays = [
                _unpack(state[key], code)
                for key, code in (("offsets", "i"), ("docs", "i"), ("weights", "d"))
            ]
            index = cls(
                k1=float(state["k1"]), b=float(state["b"]),
                title_weight=float(state["title_weight"]), n_docs=int(state["n_docs"]),
                avgdl=float(state["avgdl"]), terms=state["terms"], offsets=arrays[0],
                docs=arrays[1], weights=arrays[2], tokenizer=tokenizer,
            )  # fmt: skip
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a BM25 index state: {exc!r}") from None
        offsets = index._offsets
        if not (
            isinstance(index._terms, list)
            and len(offsets) == len(index._terms) + 1
            and len(index._docs) == len(index._weights) == offsets[-1]
        ):
            raise ValueError("not a BM25 index state: inconsistent postings")
        return index


def _unpack(value: Any, typecode: str) -> Sequence[Any]:
    if isinstance(value, list):
        return value
    if not isinstance(value, bytes | bytearray | memoryview):
        raise TypeError(f"postings must be bytes or a list, not {type(value).__name__}")
    packed = array(typecode)
    try:
        packed.frombytes(value)
    except ValueError as exc:
        raise TypeError(str(exc)) from None
    if sys.byteorder == "big":
        packed.byteswap()
    return packed


def _qualname(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def _rank_key(item: tuple[int, float]) -> tuple[float, int]:
    return (-item[1], item[0])


# -- retriever ---------------------------------------------------------------------------------


class EntryLike(Protocol):
    """What a retriever needs of an entry (lean_memory's ``Entry`` has more)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def text(self) -> str: ...


class BM25:
    """The default retriever: BM25 over entry titles and texts.

    Ties go to the newer entry (by its ``date``, when entries have one), then to the earlier one
    in the given order. The index of the last entry list is kept, so ranking the same entries
    again only costs the query.
    """

    name = "bm25"

    def __init__(self, k1: float = 1.2, b: float = 0.75, title_weight: float = 2.0) -> None:
        self.k1 = k1
        self.b = b
        self.title_weight = title_weight
        self._cache_key: tuple[tuple[str, str, str, str], ...] | None = None
        self._cache: tuple[BM25Index, list[str]] | None = None

    def rank(self, query: str, entries: Sequence[EntryLike], k: int) -> list[tuple[str, float]]:
        """The top-k ``(entry id, score)`` for the query, best first; only entries that match."""
        key = tuple((e.id, e.title, e.text, str(getattr(e, "date", None) or "")) for e in entries)
        if self._cache is None or key != self._cache_key:
            # Newest first, file order among equals (sorted() is stable with reverse=True too);
            # BM25Index then breaks score ties by this position.
            order = sorted(range(len(key)), key=lambda i: key[i][3], reverse=True)
            index = BM25Index.build(
                ((key[i][1], key[i][2]) for i in order),
                k1=self.k1, b=self.b, title_weight=self.title_weight,
            )  # fmt: skip
            self._cache_key = key
            self._cache = (index, [key[i][0] for i in order])
        index, ids = self._cache
        return [(ids[doc], score) for doc, score in index.top(query, k)]
