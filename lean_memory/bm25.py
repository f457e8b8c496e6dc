"""Tokenizer and Okapi BM25 (Lucene variant) over an inverted index, in plain Python.

The whole algorithm lives here, in the spirit of ``rank_bm25``: a tokenizer tuned for what coding
agents remember, an index that stores a precomputed BM25 impact per posting (so a query is a few
list walks and additions), and a compact state of builtins that loads in a few milliseconds.
"""

from __future__ import annotations

import gc
import heapq
import math
import sys
from bisect import bisect_left, bisect_right
from itertools import accumulate, chain, compress, repeat

from ._record import array, contextmanager, lazy
from ._stem import stem as _porter_stem

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    # collections.abc: not at run time (ADR 0039)
    from collections.abc import Callable, Collection, Container, Iterable, Iterator, Sequence
    from typing import Any, Protocol
else:
    Protocol = object  # EntryLike is a type for the checker only

try:  # Counter's own C counting loop, without Counter's per-call Python overhead
    from _collections import _count_elements  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - other Python implementations

    def _count_elements(mapping: dict[Any, Any], iterable: Iterable[Any]) -> None:
        get = mapping.get
        for element in iterable:
            mapping[element] = get(element, 0) + 1

__all__ = [
    "BM25",
    "STOP_WORDS",
    "BM25Index",
    "EntryLike",
    "TermCounts",
    "document_terms",
    "documents_terms",
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
_CHUNK = lazy(r"\w+(?:[./\\:@+#-]+\w+)*")
# Possessive 's is dropped and other in-word apostrophes are removed ("don't" -> "dont"),
# as Lucene's English analyzer does, so "Caroline's" finds "Caroline".
_POSSESSIVE = lazy(r"(?<=\w)['\u2019\u02bc][sS]\b")
_APOSTROPHE = lazy(r"(?<=\w)['\u2019\u02bc](?=\w)")
_ALNUM = lazy(r"[^\W_]+")
# Separators of paths, dotted names and URLs. What they join is a name in its own right
# ("lib/vault/digest.js", "os.path.join", "3.11.7"), kept whole besides its parts.
_PATH_SEP = lazy(r"[./\\:@+#]+")
# Separators of path components; a component may itself be dotted ("digest.js").
_COMPONENT_SEP = lazy(r"[/\\:@]+")
# Case-style boundaries: parseConfig, HTTPServer, HTTP2Server; but not IPv6 or E0502. A
# capital followed by a lone "s" starts no word: it ends an acronym's plural (GPUs, URLs,
# getURLs), which would otherwise split into fragments ("gp", "ur" + "ls") that match nothing.
_CASE_SPLIT = lazy(r"(?<=[a-z])(?=[A-Z])|(?:(?<=[A-Z]{2})|(?<=\d))(?=[A-Z](?!s(?![a-z]))[a-z])")

# The same splits by str methods, for ASCII text (the common case): no ``re`` import, no regex
# engine per piece. A property test holds them equal to the regexes above.
_CONNECTORS = "./\\:@+#-"
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# Byte tables (bytes.translate is a C table lookup; str.translate with a dict is slower than
# the regexes). Every ASCII byte that is neither a word character nor a connector becomes a
# space; the bytes of non-ASCII UTF-8 characters (>= 0x80) are left alone.
# Built by bytes.maketrans (C), not a loop over 256 bytes: every process that tokenizes
# imports this module.
_NOT_CHUNK = bytes(range(32)) + b" !\"$%&'()*,;<=>?[]^`{|}~\x7f"  # ASCII, not word or connector
_TO_CHUNKS = bytes.maketrans(_NOT_CHUNK, b" " * len(_NOT_CHUNK))
_PATH_TO_SLASH = bytes.maketrans(b"./\\:@+#", b"///////")
_COMPONENT_TO_SLASH = bytes.maketrans(b"\\:@", b"///")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")


def _ascii_chunks(piece: str) -> list[str]:
    """``_CHUNK.findall(piece)`` for an ASCII piece: in a run of word characters and
    connectors, the connectors at either end are outside the chunk, the others join words."""
    runs = piece.encode().translate(_TO_CHUNKS).decode().split()
    return [c for c in (run.strip(_CONNECTORS) for run in runs) if c]


def _alnum_runs(segment: str) -> list[str]:
    """``_ALNUM.findall(segment)`` for a segment of word characters and hyphens (a chunk split
    at _PATH_SEP): its parts between "_" and "-"."""
    return [p for p in segment.replace("-", "_").split("_") if p]


def _path_segments(chunk: str) -> list[str]:
    """``_PATH_SEP.split(chunk)`` for a chunk (it starts and ends with a word character, so
    only runs of separators leave empty strings)."""
    return [s for s in chunk.encode().translate(_PATH_TO_SLASH).decode().split("/") if s]


def _case_split(piece: str) -> list[str]:
    """``_CASE_SPLIT.split(piece)``: before an uppercase letter that follows a lowercase one,
    that ends a run of 2+ capitals and starts a word, or that follows a digit and starts a word.
    A capital and a lone lowercase "s" is no word (the plural of an acronym: GPUs, URLs)."""
    if piece.upper() == piece:  # no lowercase letter: no boundary (ECONNREFUSED, E0502)
        return [piece]
    out: list[str] = []
    start = 0
    last = len(piece) - 1
    upper, lower = _UPPER, _LOWER
    for i in range(1, len(piece)):
        if piece[i] not in upper:
            continue
        prev = piece[i - 1]
        if prev in lower or (
                i < last and piece[i + 1] in lower
                and (piece[i + 1] != "s" or (i + 2 <= last and piece[i + 2] in lower))
                and ((prev in upper and i >= 2 and piece[i - 2] in upper) or prev.isdecimal())):
            out.append(piece[start:i])
            start = i
    out.append(piece[start:])
    return out


# Prefixes split off by a hyphen ("re-entry", "non-linear") are not words: the joined token
# ("reentry") carries the meaning, the fragment would only match unrelated words.
_BOUND_PREFIXES = _words("anti bi co de multi non post pre pseudo quasi re semi sub un")

# Memoised per whitespace-separated piece, per chunk, per identifier segment and per word: notes
# repeat the same words and names over and over, so most pieces cost one dict lookup done in C
# (a memo's ``__missing__`` runs only on a miss). All four are bounded (cleared when full).
_CACHE_LIMIT = 200_000
_stem_cache: dict[str, str] = {}
_segment_cache: dict[str, tuple[str, ...]] = {}


def _norm_word(word: str) -> str:
    """Stem a lowercase word."""
    stemmed = _stem_cache.get(word)
    if stemmed is None:
        # ASCII, alphabetic and lowercase: [a-z]+, the stemmer's domain (cheaper than a regex).
        plain = word.isascii() and word.isalpha() and word.islower()
        stemmed = _porter_stem(word) if plain else word
        if len(_stem_cache) >= _CACHE_LIMIT:
            _stem_cache.clear()
        _stem_cache[word] = stemmed
    return stemmed


def _identifier_tokens(segment: str) -> tuple[str, ...]:
    """The words of an identifier in any case style, and the joined identifier if compound.

    ``parse_config``, ``parse-config``, ``parseConfig`` and ``ParseConfig`` all give the joined
    token ``parseconfig`` (so each style finds the others) plus ``pars`` and ``config``.
    """
    tokens = _segment_cache.get(segment)
    if tokens is not None:
        return tokens
    pieces = _alnum_runs(segment)
    if segment.lower() == segment:
        # Every case boundary needs an uppercase letter: skip the split.
        words = pieces
    else:
        words = [w.lower() for piece in pieces for w in _case_split(piece)]
    out: list[str] = []
    if len(words) > 1:
        out.append(_norm_word("".join(words)))
        words = [w for w in words if w not in _BOUND_PREFIXES]
    for word in words:
        if word not in STOP_WORDS and (len(word) > 1 or word.isdigit()):
            out.append(_norm_word(word))
    tokens = tuple(out)
    if len(_segment_cache) >= _CACHE_LIMIT:
        _segment_cache.clear()
    _segment_cache[segment] = tokens
    return tokens


def _chunk_tokens(chunk: str) -> tuple[str, ...]:
    if chunk.isalpha() and (chunk.islower() or chunk[1:].islower()):
        # A plain word (the common case), without the regex work of identifiers.
        word = chunk.lower()
        return () if word in STOP_WORDS or len(word) == 1 else (_norm_word(word),)
    if chunk.isascii() and chunk.isidentifier():  # [A-Za-z0-9_]: no path separator
        return _identifier_tokens(chunk)
    segments = _path_segments(chunk)
    if len(segments) == 1:
        return _identifier_tokens(chunk)
    whole = chunk.lower()
    out = [whole]
    # split() rather than a findall() of dotted components: linear on any input.
    # as _COMPONENT_SEP.split
    components = whole.encode().translate(_COMPONENT_TO_SLASH).decode().split("/")
    if len(components) > 1:
        out += [c for c in components if "." in c]
    known = _segment_cache.get
    for segment in segments:
        tokens = known(segment)
        out.extend(_identifier_tokens(segment) if tokens is None else tokens)
    return tuple(out)


class _ChunkMemo(dict[str, tuple[str, ...]]):
    def __missing__(self, chunk: str) -> tuple[str, ...]:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        tokens = self[chunk] = _chunk_tokens(chunk)
        return tokens


class _PieceMemo(dict[str, tuple[str, ...]]):
    """Tokens per whitespace-separated piece of text ("config," "(see" "src/a.py").

    No chunk contains whitespace (neither a word character nor a connector), so the chunks of
    a text are those of its pieces in turn; ``str.split`` finds pieces far faster than the
    chunk regex scans a whole text, and pieces repeat as much as chunks do.
    """

    def __missing__(self, piece: str) -> tuple[str, ...]:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        if piece.isalnum() or (piece.isascii() and piece.isidentifier()):
            # Only word characters: the piece is one chunk, no regex needed to find it.
            tokens = _chunk_tokens(piece)
        else:
            chunks = _ascii_chunks(piece) if piece.isascii() else _CHUNK.findall(piece)
            if len(chunks) == 1:
                tokens = _chunk_cache[chunks[0]]
            else:
                tokens = tuple(chain.from_iterable(map(_chunk_cache.__getitem__, chunks)))
        self[piece] = tokens
        return tokens


_chunk_cache = _ChunkMemo()
_piece_cache = _PieceMemo()


def _normalize(text: str) -> str:
    if not text.isascii():
        import unicodedata  # an ASCII text (most queries) does without it

        text = unicodedata.normalize("NFKC", text)
        return _APOSTROPHE.sub("", _POSSESSIVE.sub("", text))
    if "'" in text:
        return _APOSTROPHE.sub("", _POSSESSIVE.sub("", text))
    return text


def _token_stream(text: str) -> Iterator[str]:
    # map/chain keep the per-piece loop in C; only memo misses run Python code.
    return chain.from_iterable(map(_piece_cache.__getitem__, _normalize(text).split()))


def clear_memos() -> None:
    """Empty the tokenizer's memo tables (as in a fresh process; for benchmarks)."""
    for memo in (_piece_cache, _chunk_cache, _segment_cache, _stem_cache):
        memo.clear()


def tokenize(text: str) -> list[str]:
    """Split text into lowercase search tokens: stemmed words, whole identifiers and their parts.

    A name such as ``lib/vault/digest.js``, ``os.path.join`` or ``3.11.7`` yields itself
    (lowercased), its dotted path components, then its identifiers and words; see
    ``_identifier_tokens`` for ``snake_case``, ``kebab-case`` and ``camelCase``.
    """
    return list(_token_stream(text))


def simple_tokenize(text: str) -> list[str]:
    """The data README's "simple" tokenizer: lowercase letter/digit runs minus Lucene stop words."""
    return [t for t in _ALNUM.findall(text.lower()) if t not in LUCENE_STOP_WORDS]


# -- index -------------------------------------------------------------------------------------

_STATE_FORMAT = "lean_memory.bm25/2"
# Bump whenever ``tokenize`` changes its output: cached indexes built with another version are
# refused by ``from_state`` and get rebuilt.
TOKENIZER_VERSION = "lean_memory.tokenize/2"  # 2: acronym plurals (GPUs) stay whole

TermCounts = tuple[dict[str, float], float]
"""A document as the index sees it: (term -> weighted frequency, weighted length)."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building.

    A build allocates hundreds of thousands of dicts, lists and tuples, none of them in a
    reference cycle; each allocation burst would otherwise trigger collections that walk all
    of them again (10-15% of a build's time, measured).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def document_terms(
    title: str,
    body: str,
    *,
    title_weight: float = 2.0,
    tokenizer: Callable[[str], list[str]] = tokenize,
) -> TermCounts:
    """The BM25F term frequencies and length of one ``(title, body)`` document.

    Depends on nothing but the document, so a caller may keep it per document and rebuild an
    index from kept counts (``BM25Index.from_counts``) without tokenising again.
    """
    return documents_terms([(title, body)], title_weight=title_weight, tokenizer=tokenizer)[0]


def documents_terms(
    docs: Iterable[tuple[str, str]],
    *,
    title_weight: float = 2.0,
    tokenizer: Callable[[str], list[str]] = tokenize,
) -> list[TermCounts]:
    """``document_terms`` of each document, in one loop (no call per document)."""
    out: list[TermCounts] = []
    append = out.append
    own = tokenizer is tokenize
    pieces = _piece_cache.__getitem__
    for title, body in docs:
        tf: dict[str, float] = {}
        if own:
            if not body.isascii() or "'" in body:  # else _normalize() would return it as is
                body = _normalize(body)
            _count_elements(tf, chain.from_iterable(map(pieces, body.split())))
            length = float(sum(tf.values()))
        else:
            tokens = tokenizer(body)
            _count_elements(tf, tokens)
            length = float(len(tokens))
        if title and title_weight:
            title_tokens = (list(chain.from_iterable(map(pieces, _normalize(title).split())))
                            if own else tokenizer(title))
            get = tf.get
            # Repeated addition, not weight * count: the reference is "the title w times".
            for token in title_tokens:
                tf[token] = get(token, 0) + title_weight
            length += title_weight * len(title_tokens)
        append((tf, length))
    return out


class _Segment:
    """Postings of consecutively numbered documents, as raw term frequencies.

    Term ``terms[i]`` occurs in documents ``docs[offsets[i]:offsets[i+1]]`` (local numbers,
    ascending) with the matching frequencies in ``tfs``; ``lengths`` has one entry per document.
    Terms are sorted, so a lookup is a binary search and loading needs no dict. No BM25
    statistic is stored: segments built apart can be combined and scored as one index.
    """

    __slots__ = ("docs", "lengths", "offsets", "terms", "tfs")

    def __init__(self, terms: list[str], offsets: Sequence[int], docs: Sequence[int],
                 tfs: Sequence[float], lengths: Sequence[float]) -> None:
        self.terms = terms
        self.offsets = offsets
        self.docs = docs
        self.tfs = tfs
        self.lengths = lengths

    @classmethod
    def of(cls, counts: Sequence[TermCounts]) -> _Segment:
        if not counts:  # built by every query for an archive never written: no array module
            return cls([], [0], [], [], [])  # (ADR 0039)
        # term -> [doc, freq, doc, freq, ...]: one flat list per term is the cheapest to grow
        # (measured against per-term pairs of lists and against sorting integer keys).
        postings: dict[str, list[Any]] = {}
        get = postings.get
        for number, (tf, _) in enumerate(counts):
            for token, freq in tf.items():
                plist = get(token)
                if plist is None:
                    postings[token] = [number, freq]
                else:
                    plist.append(number)
                    plist.append(freq)
        terms = sorted(postings)
        lists = list(map(postings.__getitem__, terms))
        offsets = array("i", [0])
        offsets.extend(accumulate(len(p) >> 1 for p in lists))
        flat = list(chain.from_iterable(lists))
        return cls(terms, offsets, array("i", flat[0::2]), array("d", flat[1::2]),
                   array("d", [n for _, n in counts]))

    def counts(self) -> list[TermCounts]:
        """Back to one ``TermCounts`` per document (the inverse of ``of``)."""
        out: list[dict[str, float]] = [{} for _ in self.lengths]
        offsets = self.offsets
        spans = map(int.__sub__, offsets[1:], offsets[:-1])
        # consumed in C (dict.__setitem__ returns None: any() reads every item)
        any(map(dict.__setitem__, map(out.__getitem__, self.docs),
                chain.from_iterable(map(repeat, self.terms, spans)), self.tfs))
        return list(zip(out, self.lengths, strict=True))

    def total(self) -> float:
        """The exactly rounded sum of the document lengths."""
        return math.fsum(self.lengths)

    def span(self, term: str) -> tuple[int, int] | None:
        """Where the postings of ``term`` lie (start, end in the flat arrays), or None."""
        terms = self.terms
        i = bisect_left(terms, term)
        if i == len(terms) or terms[i] != term:
            return None
        return self.offsets[i], self.offsets[i + 1]

    def df(self, term: str) -> int:
        """How many documents of the segment hold ``term``."""
        where = self.span(term)
        return 0 if where is None else where[1] - where[0]

    def postings(self, term: str) -> tuple[Sequence[int], Sequence[float]] | None:
        where = self.span(term)
        if where is None:
            return None
        start, end = where
        return self.docs[start:end], self.tfs[start:end]


class LazySegment(_Segment):
    """A segment whose terms and postings stay where they are (a file, say) until a term is
    looked up: only the document lengths are in memory.

    ``find(term)`` returns where the term's postings lie (start, end) or None;
    ``fetch(start, end)`` returns ``docs[start:end], tfs[start:end]`` of the full segment;
    ``whole()`` the segment with everything in memory (to rebuild from its counts).
    """

    __slots__ = ("_fetch", "_find", "_spans", "_total", "_whole")

    def __init__(self, find: Callable[[str], tuple[int, int] | None],
                 fetch: Callable[[int, int], tuple[Sequence[int], Sequence[float]]],
                 whole: Callable[[], _Segment], lengths: Sequence[float],
                 total: float | None = None) -> None:
        super().__init__([], (0,), (), (), lengths)
        self._find = find
        self._fetch = fetch
        self._whole = whole
        self._total = total  # the stored fsum of lengths, if known
        self._spans: dict[str, tuple[int, int] | None] = {}

    def total(self) -> float:
        return super().total() if self._total is None else self._total

    def span(self, term: str) -> tuple[int, int] | None:
        try:
            return self._spans[term]
        except KeyError:
            where = self._spans[term] = self._find(term)
            return where

    def postings(self, term: str) -> tuple[Sequence[int], Sequence[float]] | None:
        where = self.span(term)
        return None if where is None else self._fetch(*where)

    def counts(self) -> list[TermCounts]:
        return self._whole().counts()


class BM25Index:
    """Inverted index over documents, each with a title and a body (title weighs more).

    Title and body are combined the BM25F way: a term's frequency is
    ``title_weight * tf_title + tf_body`` and the document length is
    ``title_weight * len_title + len_body``, then one BM25 saturation is applied. With an
    integer weight this equals repeating the title that many times.

    The index keeps raw frequencies and lengths and applies BM25 at query time, to the postings
    of the query terms only. So building is just counting, and indexes built apart (one per
    shard, say) combine with ``merge`` into one whose scores equal those of a single build.
    """

    __slots__ = ("_avgdl", "_bases", "_segments", "b", "k1", "n_docs", "title_weight",
                 "tokenizer")  # fmt: skip

    def __init__(
        self,
        segments: Sequence[_Segment],
        *,
        k1: float,
        b: float,
        title_weight: float,
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> None:
        self.k1 = k1
        self.b = b
        self.title_weight = title_weight
        self.tokenizer = tokenizer
        self._segments = list(segments)
        # Documents are numbered across segments in order: segment j starts at _bases[j].
        self._bases = list(accumulate((len(s.lengths) for s in self._segments), initial=0))
        self.n_docs = self._bases[-1]
        self._avgdl: float | None = None

    @property
    def avgdl(self) -> float:
        """The average document length (computed on first use: loading need not pay it)."""
        if self._avgdl is None:
            self._avgdl = _total_length(self._segments) / self.n_docs if self.n_docs else 0.0
        return self._avgdl

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
        _check_parameters(k1, b, title_weight)
        with gc_paused():
            counts = documents_terms(docs, title_weight=title_weight, tokenizer=tokenizer)
            return cls.from_counts(counts, k1=k1, b=b, title_weight=title_weight,
                                   tokenizer=tokenizer)  # fmt: skip

    @classmethod
    def from_counts(
        cls,
        counts: Sequence[TermCounts],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        title_weight: float = 2.0,
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> BM25Index:
        """Index documents given as ``document_terms`` results (with the same parameters)."""
        _check_parameters(k1, b, title_weight)
        return cls([_Segment.of(counts)], k1=k1, b=b, title_weight=title_weight,
                   tokenizer=tokenizer)  # fmt: skip

    @classmethod
    def merge(cls, indexes: Sequence[BM25Index]) -> BM25Index:
        """One index over the documents of ``indexes``, numbered in that order.

        All must share parameters and tokenizer; the statistics (N, document frequencies,
        average length) become those of the whole, so scores equal those of one build.
        """
        if not indexes:
            return cls([], k1=1.2, b=0.75, title_weight=2.0)
        first = indexes[0]
        params = (first.k1, first.b, first.title_weight, first.tokenizer)
        if any((i.k1, i.b, i.title_weight, i.tokenizer) != params for i in indexes):
            raise ValueError("cannot merge BM25 indexes with different parameters")
        return cls([s for i in indexes for s in i._segments], k1=first.k1, b=first.b,
                   title_weight=first.title_weight, tokenizer=first.tokenizer)  # fmt: skip

    def counts(self) -> list[TermCounts]:
        """Each document's ``TermCounts``, in document order (to rebuild without tokenising)."""
        return [c for s in self._segments for c in s.counts()]

    def __len__(self) -> int:
        return self.n_docs

    def df(self, term: str) -> int:
        """How many documents hold ``term`` (a token, as the tokenizer gives it)."""
        return sum(s.df(term) for s in self._segments)

    def score(self, query: str) -> dict[int, float]:
        """BM25 score of every document that matches the query (all scores are > 0).

        A query term repeated n times counts n times, as in Lucene and the reference libraries.
        Each document's score is summed over the query terms in the order of their first
        occurrence, whatever the segmentation, so results are deterministic.
        """
        return self._scores(self._query_terms(query))

    def _scores(self, terms: Sequence[_Term]) -> dict[int, float]:
        accs, touched = self._accumulate(terms)
        scores: dict[int, float] = {}
        for j, local in touched.items():
            base, acc = self._bases[j], accs[j]
            scores.update((base + doc, acc[doc]) for doc in local)
        return scores

    def _accumulate(self, terms: Sequence[_Term]
                    ) -> tuple[dict[int, _Acc], dict[int, Collection[int]]]:
        """Per segment: its documents' scores (indexed by local number), and the documents
        the query touched.

        Every float operation is the one of the formula below, in the same order, term by
        term in query order. (The same loops as ``map`` chains over ``operator`` functions
        measured twice as slow: a bound slot method costs more than the interpreter's
        specialised list indexing.)
        """
        k1, b, avgdl = self.k1, self.b, self.avgdl
        one_b = 1.0 - b
        segments = self._segments
        # When the query's postings in a segment outnumber its documents, each document's
        # length normalisation is computed once for all of them and shared by the terms
        # (else computed per posting: the same bits, less work). Else the scores are kept in
        # a dict of the documents touched, which are then its keys: no list over all the
        # documents, no set of the postings (at 100k, a warm query's largest allocations).
        # A first weight is added to 0.0 either way: the same bits.
        accs: dict[int, _Acc] = {}
        sparse: dict[int, dict[int, float]] = {}
        dense: dict[int, list[float]] = {}
        lists: dict[int, list[Sequence[int]]] = {}
        norms: dict[int, list[float]] = {}
        postings: dict[int, int] = {}
        for _, _, _, found in terms:
            for j, (docs, _tfs) in found.items():
                postings[j] = postings.get(j, 0) + len(docs)
        # BM25 (Lucene's IDF, in _query_terms, and saturation):
        # w = idf * f / (f + k1 * (1.0 - b + b * length / avgdl)).
        for qtf, idf, _, found in terms:
            for j, (docs, tfs) in found.items():
                lengths = segments[j].lengths
                if postings[j] < len(lengths):
                    scores = sparse.get(j)
                    if scores is None:
                        scores = accs[j] = sparse[j] = {}
                    get = scores.get
                    for doc, f in zip(docs, tfs, strict=True):
                        w = idf * f / (f + k1 * (one_b + b * lengths[doc] / avgdl))
                        scores[doc] = get(doc, 0.0) + (w if qtf == 1 else qtf * w)
                    continue
                acc = dense.get(j)
                if acc is None:
                    acc = accs[j] = dense[j] = [0.0] * len(lengths)
                    lists[j] = []
                lists[j].append(docs)
                norm = norms.get(j)
                if norm is None:
                    norm = norms[j] = [k1 * (one_b + b * n / avgdl) for n in lengths]
                if qtf == 1:
                    for doc, f in zip(docs, tfs, strict=True):
                        acc[doc] += idf * f / (f + norm[doc])
                else:
                    for doc, f in zip(docs, tfs, strict=True):
                        acc[doc] += qtf * (idf * f / (f + norm[doc]))
        touched: dict[int, Collection[int]] = {
            j: sparse[j] if j in sparse else lists[j][0] if len(lists[j]) == 1
            else set().union(*lists[j]) for j in accs}
        return accs, touched

    def _query_terms(self, query: str) -> list[_Term]:
        """The query's indexed terms in order of first occurrence: (qtf, idf, df, postings
        by segment number)."""
        counts: dict[str, int] = {}
        for token in self.tokenizer(query):
            counts[token] = counts.get(token, 0) + 1
        n_docs = self.n_docs
        out: list[_Term] = []
        for token, qtf in counts.items():
            found: dict[int, tuple[Sequence[int], Sequence[float]]] = {}
            df = 0
            for j, segment in enumerate(self._segments):
                hit = segment.postings(token)
                if hit is not None:
                    found[j] = hit
                    df += len(hit[0])
            if df:
                idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
                out.append((qtf, idf, df, found))
        return out

    def _exact(self, terms: Sequence[_Term], numbers: Sequence[int]) -> list[float]:
        """What :meth:`score` gives each of ``numbers`` (0.0 where it does not match): the same
        float operations in the same order, the documents looked up in the postings."""
        k1, b, avgdl = self.k1, self.b, self.avgdl
        one_b = 1.0 - b
        segments, bases = self._segments, self._bases
        where = [(j, number - bases[j])
                 for j, number in ((bisect_right(bases, d) - 1, d) for d in numbers)]
        out = [0.0] * len(numbers)
        for qtf, idf, _, found in terms:
            for i, (j, doc) in enumerate(where):
                hit = found.get(j)
                if hit is None:
                    continue
                docs, tfs = hit
                p = bisect_left(docs, doc)  # a segment's postings are in document order
                if p < len(docs) and docs[p] == doc:
                    f = tfs[p]
                    w = idf * f / (f + k1 * (one_b + b * segments[j].lengths[doc] / avgdl))
                    out[i] += w if qtf == 1 else qtf * w
        return out

    def scores_of(self, query: str, numbers: Sequence[int]) -> list[float]:
        """What :meth:`score` gives each of ``numbers`` (0.0 where it does not match), by
        looking the documents up in the query terms' postings instead of scoring them all."""
        return self._exact(self._query_terms(query), numbers)

    def top(
        self,
        query: str,
        k: int,
        *,
        allowed: Container[int] | bytes | bytearray | None = None,
        newer: Sequence[str] | None = None,
    ) -> list[tuple[int, float]]:
        """The k best ``(doc number, score)``: score descending, ties by lower doc number.

        ``allowed``: only these documents (a container of numbers, or a byte mask indexed by
        number). ``newer``: a sort key per document (a date); among equal scores the greater
        key goes first, before the lower number.
        """
        if k <= 0:
            return []
        terms = self._query_terms(query)
        items = self._pruned(terms, k, allowed)
        if items is None:
            pools = self._pools(*self._accumulate(terms), allowed)
            if sum(len(local) for _, _, local in pools) > k:
                # The k-th best score, found on bare floats, bounds the candidates; ties at
                # that boundary are then settled like all the others.
                floor = heapq.nlargest(k, chain.from_iterable(
                    map(acc.__getitem__, local) for _, acc, local in pools))[-1]
                items = [(base + doc, acc[doc]) for base, acc, local in pools
                         for doc in compress(local, map(floor.__le__,
                                                        map(acc.__getitem__, local)))]
            else:
                items = [(base + doc, acc[doc]) for base, acc, local in pools for doc in local]
        if newer is None:
            items.sort(key=_rank_key)
        else:
            # Stable sorts, least significant key first (reverse=True keeps stability).
            items.sort()
            items.sort(key=lambda item: newer[item[0]], reverse=True)
            items.sort(key=_score_key, reverse=True)
        return items[:k]

    def _pools(self, accs: dict[int, _Acc], touched: dict[int, Collection[int]],
               allowed: Container[int] | bytes | bytearray | None
               ) -> list[tuple[int, _Acc, Collection[int]]]:
        """(base, scores, allowed documents touched) of each segment the query touched."""
        bases = self._bases
        pools: list[tuple[int, _Acc, Collection[int]]] = []
        for j, local in touched.items():
            base = bases[j]
            if isinstance(allowed, bytes | bytearray):
                mask = allowed[base:bases[j + 1]]
                local = list(filter(mask.__getitem__, local))
            elif allowed is not None:
                local = [doc for doc in local if base + doc in allowed]
            pools.append((base, accs[j], local))
        return pools

    def _pruned(self, terms: Sequence[_Term], k: int,
                allowed: Container[int] | bytes | bytearray | None
                ) -> list[tuple[int, float]] | None:
        """The documents scored at least the k-th best score, with their exact scores,
        found without OR-ing the postings of the query's common terms; or None (the caller
        then scores exhaustively): MaxScore with one split (ADR: index layout 2).

        The light terms (in fewer than 1/_HEAVY of the documents) are scored alone first. No
        heavy term adds more than ``qtf * idf`` to a score (``f / (f + norm) <= 1``), so with
        ``theta`` the k-th best partial score of an allowed document (a lower bound of the
        k-th best score), a document whose partial score plus the heavy terms' bound stays
        under ``theta`` cannot reach the top k, nor tie it; nor can a document only the
        heavy terms hold, once their bound is under ``theta``. The documents left are scored
        exactly (:meth:`_exact`: the same float operations as :meth:`score`, in the same
        order). Tried only when the query has a rare term (1/_RARE of the documents) and a
        heavy one. When the bound does not settle or too many documents are left to look
        up, the heavy term that can add the most moves to the light side and the split is
        tried again (a word in every entry adds almost nothing: a query repeating it beside
        a common one settles once the common one is scored with the light terms, ADR
        0054), while the postings scored stay fewer than all of the query's; then None.
        """
        n_docs = self.n_docs
        # the heavy terms, the one that can add the least first
        heavy = sorted((t for t in terms if t[2] * _HEAVY > n_docs), key=lambda t: t[0] * t[1])
        light = [t for t in terms if t[2] * _HEAVY <= n_docs]
        if not heavy or not any(t[2] * _RARE <= n_docs for t in light):
            return None
        everything = sum(t[2] for t in terms)
        scored = 0  # postings accumulated over the tries
        while heavy:
            scored += sum(t[2] for t in light)
            if scored >= everything:
                return None
            found = self._settled(terms, light, heavy, k, allowed)
            if found is not None:
                return found
            heavy = heavy[:-1]
            light = [t for t in terms if not any(t is h for h in heavy)]  # query order
        return None

    def _settled(self, terms: Sequence[_Term], light: Sequence[_Term],
                 heavy: Sequence[_Term], k: int,
                 allowed: Container[int] | bytes | bytearray | None
                 ) -> list[tuple[int, float]] | None:
        """:meth:`_pruned` with this split, or None where it does not settle."""
        pools = self._pools(*self._accumulate(light), allowed)
        if sum(len(local) for _, _, local in pools) < k:
            return None
        theta = heapq.nlargest(k, chain.from_iterable(
            map(acc.__getitem__, local) for _, acc, local in pools))[-1]
        # Margins far above float rounding: the bound and the partial sums add in another
        # order than the exact scores.
        bound = math.fsum(qtf * idf for qtf, idf, _, _ in heavy) * (1.0 + 1e-9)
        if bound >= theta * (1.0 - 1e-9):
            return None
        lowest = theta * (1.0 - 1e-9) - bound
        numbers = [base + doc for base, acc, local in pools
                   for doc in compress(local, map(lowest.__le__, map(acc.__getitem__, local)))]
        if 2 * len(numbers) * len(terms) > sum(t[2] for t in heavy):
            return None
        exact = self._exact(terms, numbers)
        floor = heapq.nlargest(k, exact)[-1]
        return [(doc, score) for doc, score in zip(numbers, exact, strict=True)
                if score >= floor]

    def to_state(self, *, binary: bool = True) -> dict[str, Any]:
        """The index as builtins for ``marshal`` (or ``json`` with ``binary=False``).

        Postings are flat arrays: as little-endian bytes by default, which ``marshal`` loads
        as one block each (10k entries: a few ms), or as lists of int and float.
        """
        segments = self._segments
        segment = (segments[0] if len(segments) == 1 and not isinstance(segments[0], LazySegment)
                   else _Segment.of(self.counts()))
        tokenizer = self.tokenizer
        state: dict[str, Any] = {
            "format": _STATE_FORMAT,
            "tokenizer": TOKENIZER_VERSION if tokenizer is tokenize else _qualname(tokenizer),
            "k1": self.k1,
            "b": self.b,
            "title_weight": self.title_weight,
            "terms": list(segment.terms),
        }
        for key, typecode, values in (
            ("offsets", "i", segment.offsets), ("docs", "i", segment.docs),
            ("tfs", "d", segment.tfs), ("lengths", "d", segment.lengths),
        ):  # fmt: skip
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
            k1, b = float(state["k1"]), float(state["b"])
            title_weight = float(state["title_weight"])
            segment = _Segment(state["terms"], *(
                _unpack(state[key], code)
                for key, code in (("offsets", "i"), ("docs", "i"), ("tfs", "d"), ("lengths", "d"))
            ))  # fmt: skip
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a BM25 index state: {exc!r}") from None
        offsets, docs = segment.offsets, segment.docs
        if not (
            isinstance(segment.terms, list)
            and len(offsets) == len(segment.terms) + 1
            and offsets[0] == 0
            and len(docs) == len(segment.tfs) == offsets[-1]
        ):
            raise ValueError("not a BM25 index state: inconsistent postings")
        _check_parameters(k1, b, title_weight)
        return cls([segment], k1=k1, b=b, title_weight=title_weight, tokenizer=tokenizer)


# MaxScore (BM25Index._pruned): a term is heavy when more than 1/_HEAVY of the documents hold
# it, rare when at most 1/_RARE do.
_HEAVY = 4
_RARE = 64
if TYPE_CHECKING:
    _Term = tuple[int, float, int, dict[int, tuple[Sequence[int], Sequence[float]]]]
    """A query term: (qtf, idf, df, its postings by segment number)."""
    _Acc = list[float] | dict[int, float]
    """A segment's scores by local document number: a list, or a dict of those touched."""


def _total_length(segments: Sequence[_Segment]) -> float:
    # fsum is exactly rounded, so avgdl does not depend on how documents are segmented. A
    # segment's own total is reused when every total is a whole number below 2**53: each is
    # then exact, and so is their sum (the usual case: lengths count tokens, the title
    # weight is whole).
    totals = [s.total() for s in segments]
    if all(t.is_integer() for t in totals) and math.fsum(totals) < 2.0**53:
        return math.fsum(totals)
    return math.fsum(chain.from_iterable(s.lengths for s in segments))


def _check_parameters(k1: float, b: float, title_weight: float) -> None:
    if not (k1 >= 0 and 0 <= b <= 1 and title_weight >= 0):
        raise ValueError("BM25 needs k1 >= 0, 0 <= b <= 1 and title_weight >= 0")


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


def _score_key(item: tuple[int, float]) -> float:
    return item[1]


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

    # b: the config's default (ADR 0049), so that BM25() is the cached index's ranking
    def __init__(self, k1: float = 1.2, b: float = 0.5, title_weight: float = 2.0) -> None:
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
