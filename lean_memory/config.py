"""`.agents/config.toml`: the `[memory]` and `[secrets]` tables, validated key by key."""

from __future__ import annotations

import os

from ._record import Record, lazy
from .errors import ConfigError
from .fsutil import MAX_CONFIG_BYTES, UnsafePath, dump_record, load_record, read_bounded

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from typing import Any

    from .fsutil import StrPath

DEFAULT_SHARDS = ("seed", "failures", "corrections", "insights", "conventions", "quirks")
SHARD_NAME = lazy(r"[a-z][a-z0-9_-]{0,39}")
# Names of the memory's own files, and Windows device names: there, `con.md` or `nul.md`
# opens the device whatever the folder or extension (shard names are lowercase, dotless).
WINDOWS_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                             *(f"lpt{i}" for i in range(1, 10))})
RESERVED = frozenset({"index", "archive", "readme"}) | WINDOWS_DEVICES


class Config(Record):
    """Settings from the `[memory]` table (plus the secrets allowlist)."""

    _fields = ("token_budget", "compact_at_percent", "keep_recent", "shards", "retrievers",
                 "retriever_timeout_ms", "fusion", "rerank_depth", "fusion_weights",
                 "max_entry_tokens", "max_index_tokens", "auto_compact", "search_archive",
                 "digest_index", "digest_min_coverage", "bm25_k1", "bm25_b", "capture_asks",
                 "pay_once", "distill_after", "ollama_model", "ollama_host", "ollama_allow_remote",
                 "ollama_min_cosine", "ollama_embed_on_put", "allow_rules", "allow_paths",
                 "allow_fingerprints")
    __slots__ = _fields
    token_budget: int
    compact_at_percent: int
    keep_recent: int
    shards: tuple[str, ...]
    retrievers: tuple[str, ...]
    retriever_timeout_ms: int
    fusion: str
    rerank_depth: int
    fusion_weights: tuple[tuple[str, float], ...]
    max_entry_tokens: int
    max_index_tokens: int
    auto_compact: bool
    search_archive: bool  # search and the digest cover the archive (ADR 0018)
    digest_index: bool  # the per-prompt digest repeats the shard overview (ADR 0018)
    # The digest adds matches only when one covers this share of the prompt's idf mass
    # (ADR 0021); 0 turns the gate off.
    digest_min_coverage: float
    bm25_k1: float
    bm25_b: float
    capture_asks: bool  # the prompt hook records asks in the session layer (ADR 0023)
    pay_once: bool  # a session's hooks inject each rule and entry once (ADR 0030)
    distill_after: int  # seconds without a prompt before a session is distilled
    ollama_model: str
    ollama_host: str  # empty: $OLLAMA_HOST, else http://127.0.0.1:11434
    ollama_allow_remote: bool
    # A nearest neighbour below this cosine never fills a search or the digest (ADR 0021).
    ollama_min_cosine: float
    # After a put, new entries get their vectors in a bounded background process (ADR 0019).
    ollama_embed_on_put: bool
    allow_rules: tuple[str, ...]
    allow_paths: tuple[str, ...]
    allow_fingerprints: tuple[str, ...]

    def __init__(
        self,
        token_budget: int = 8000,
        compact_at_percent: int = 80,
        keep_recent: int = 5,
        shards: tuple[str, ...] = DEFAULT_SHARDS,
        retrievers: tuple[str, ...] = ("bm25",),
        retriever_timeout_ms: int = 400,
        fusion: str = "rerank",
        rerank_depth: int = 20,
        fusion_weights: tuple[tuple[str, float], ...] = (),
        max_entry_tokens: int = 1500,
        max_index_tokens: int = 600,
        auto_compact: bool = False,
        search_archive: bool = True,
        digest_index: bool = False,
        digest_min_coverage: float = 0.25,
        bm25_k1: float = 1.2,
        bm25_b: float = 0.5,  # ADR 0049: short entries; was 0.75 (Lucene's)
        capture_asks: bool = True,
        pay_once: bool = True,
        distill_after: int = 7200,
        ollama_model: str = "nomic-embed-text",
        ollama_host: str = "",
        ollama_allow_remote: bool = False,
        ollama_min_cosine: float = 0.4,
        ollama_embed_on_put: bool = True,
        allow_rules: tuple[str, ...] = (),
        allow_paths: tuple[str, ...] = (),
        allow_fingerprints: tuple[str, ...] = (),
    ) -> None:
        self._init(token_budget, compact_at_percent, keep_recent, shards, retrievers,
                   retriever_timeout_ms, fusion, rerank_depth, fusion_weights, max_entry_tokens,
                   max_index_tokens, auto_compact, search_archive, digest_index,
                   digest_min_coverage, bm25_k1, bm25_b, capture_asks, pay_once,
                   distill_after,
                   ollama_model, ollama_host, ollama_allow_remote, ollama_min_cosine,
                   ollama_embed_on_put, allow_rules, allow_paths, allow_fingerprints)

    @property
    def compact_threshold(self) -> int:
        return self.token_budget * self.compact_at_percent // 100


_DEFAULT = Config()


_SECRETS_KEYS = {"allow_rules", "allow_paths", "allow_fingerprints"}
_OLLAMA_KEYS = {"ollama_model", "ollama_host", "ollama_allow_remote", "ollama_min_cosine",
                "ollama_embed_on_put"}
FUSION_MODES = ("rerank", "rrf")
_RANGES: dict[str, tuple[float, float]] = {
    "token_budget": (100, 10_000_000),
    "compact_at_percent": (1, 100),
    "keep_recent": (0, 10_000),
    "retriever_timeout_ms": (1, 600_000),
    "rerank_depth": (1, 1000),
    "max_entry_tokens": (10, 1_000_000),
    "max_index_tokens": (100, 100_000),
    "bm25_k1": (0.0, 100.0),
    "bm25_b": (0.0, 1.0),
    "distill_after": (60, 10_000_000),
    "digest_min_coverage": (0.0, 1.0),
    "ollama_min_cosine": (-1.0, 1.0),
}


def _where(key: str) -> str:
    if key in _SECRETS_KEYS:
        return f"[secrets] {key}"
    if key in _OLLAMA_KEYS:
        return f"[ollama] {key.removeprefix('ollama_')}"
    return f"[memory] {key}"


def _show(value: Any) -> str:
    """A committed value for a message: bounded, and never a failure (``str()`` refuses an
    int over 4,300 digits, which TOML's hexadecimal spelling reaches in fewer)."""
    try:
        text = repr(value)
    except ValueError:
        return "a number too long to show"
    return text if len(text) <= 80 else text[:77] + "..."


def _check(key: str, value: Any, default: Any) -> Any:
    where = _where(key)
    if key == "fusion_weights":
        if not isinstance(value, dict):
            raise ConfigError(f"config: {where} must be a table of retriever = weight")
        for name, w in value.items():
            if isinstance(w, bool) or not isinstance(w, int | float) or not 0 <= w <= 1000:
                raise ConfigError(f"config: {where}: {name!r} must be a number between 0 "
                                  f"and 1000, got {_show(w)}")
        return tuple((str(n), float(w)) for n, w in value.items())
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"config: {where} must be a string, got {_show(value)}")
        if key == "fusion" and value not in FUSION_MODES:
            raise ConfigError(f"config: {where} must be one of {', '.join(FUSION_MODES)}, "
                              f"got {_show(value)}")
        # [\w.:/-]{1,200}, without re: every query with the semantic extra reads this
        if key == "ollama_model" and not (0 < len(value) <= 200 and all(
                ch.isalnum() or ch in "_.:/-" for ch in value)):
            raise ConfigError(f"config: {where} is not a model name, got {_show(value)}")
        if key == "ollama_host" and (len(value) > 300 or any(ch.isspace() for ch in value)):
            raise ConfigError(f"config: {where} is not a host address")
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"config: {where} must be true or false, got {_show(value)}")
        return value
    if isinstance(default, int | float):
        ok = isinstance(value, int) and not isinstance(value, bool)
        if isinstance(default, float):
            ok = ok or isinstance(value, float)
        if not ok:
            kind = "a number" if isinstance(default, float) else "an integer"
            raise ConfigError(f"config: {where} must be {kind}, got {_show(value)}")
        low, high = _RANGES[key]
        if not low <= value <= high:
            raise ConfigError(f"config: {where} must be between {low:g} and {high:g}, "
                              f"got {_show(value)}")
        return float(value) if isinstance(default, float) else value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"config: {where} must be a list of strings")
    if key == "shards":
        if not value:
            raise ConfigError("config: [memory] shards must name at least one shard")
        for name in value:
            if not SHARD_NAME.fullmatch(name) or name in RESERVED:
                raise ConfigError(
                    f"config: [memory] shards: {name!r} is not a valid shard name "
                    "(lowercase letters, digits, '-' and '_', starting with a letter)"
                )
        if len(set(value)) != len(value):
            raise ConfigError("config: [memory] shards lists a shard twice")
    if key == "retrievers" and not value:
        raise ConfigError("config: [memory] retrievers must name at least one retriever")
    return tuple(value)


def parse_config(data: dict[str, Any]) -> Config:
    """Validate a parsed TOML document."""
    defaults = {name: getattr(_DEFAULT, name) for name in Config._fields}
    values: dict[str, Any] = {}
    tables = (("memory", set(defaults) - _SECRETS_KEYS - _OLLAMA_KEYS, ""),
              ("secrets", _SECRETS_KEYS, ""), ("ollama", _OLLAMA_KEYS, "ollama_"))
    # A misspelt table would drop its settings (an allowlist, a host) without a word.
    unknown = sorted(set(data) - {t[0] for t in tables})
    if unknown:
        raise ConfigError(f"config: {'; '.join(_named(n, data[n]) for n in unknown[:5])}; "
                          "lean_memory reads only the tables [memory], [secrets] and [ollama]")
    for table, allowed, prefix in tables:
        section = data.get(table, {})
        if not isinstance(section, dict):
            raise ConfigError(f"config: [{table}] must be a table")
        for name, value in section.items():
            key = prefix + name
            if key not in allowed:
                raise ConfigError(f"config: unknown key {name!r} in [{table}]")
            values[key] = _check(key, value, defaults[key])
    return Config(**values)


def _named(name: str, value: Any) -> str:
    """An unknown top-level name, with the keys it holds (so the user sees what it would
    have set); ascii() keeps a control character out of the terminal."""
    shown = ascii(name)[1:-1]
    if not isinstance(value, dict):
        return f"unknown key {shown!r} outside any table"
    keys = ", ".join(ascii(k)[1:-1] for k in list(value)[:8]) + (", ..." if len(value) > 8 else "")
    return f"unknown table [{shown}]" + (f" (its keys {keys} are not read)" if keys else "")


def load_config(path: StrPath, cache: StrPath | None = None) -> Config:
    """Read the config file; a missing file means the defaults.

    ``cache``: where the parsed TOML of the file's exact bytes is kept, so a process whose
    config did not change skips ``tomllib`` (~5 ms to import, measured); what it holds is
    validated like a fresh parse, and believed only when tagged with this user's key
    (fsutil.write_cache): a cache committed to a clone decides nothing.
    """
    name = os.path.basename(path)
    try:
        raw = read_bounded(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return Config()
    except UnsafePath as exc:
        raise ConfigError(f"config: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"config: cannot read {name}: {exc.strerror}") from None
    data = _cached_toml(raw, cache)
    if data is not None:
        return parse_config(data)
    import tomllib  # only paid for when a config exists and is not cached

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"config: {name} is not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config: {name} is not valid TOML: {exc}") from None
    except ValueError:  # tomllib's int() of a number over 4,300 digits (a committed file)
        raise ConfigError(f"config: {name} holds a number too long to read") from None
    except RecursionError:
        raise ConfigError(f"config: {name} nests tables or arrays too deeply") from None
    config = parse_config(data)
    if cache is not None:  # a TOML date or time cannot be marshalled: then not cached
        dump_record(cache, raw, (data,))
    return config


def _cached_toml(raw: bytes, cache: StrPath | None) -> dict[str, Any] | None:
    if cache is None:
        return None
    cached = load_record(cache, raw, 1)  # keyed by the config file's bytes
    if cached is not None and isinstance(cached[0], dict):
        found: dict[str, Any] = cached[0]
        return found
    return None


_MEMORY_TABLE = lazy(r"^[ \t]*\[[ \t]*memory[ \t]*\][ \t]*(?:#.*)?$", 8)
_NEXT_TABLE = lazy(r"^[ \t]*\[", 8)
_SHARDS_KEY = lazy(r"^[ \t]*shards[ \t]*=[ \t]*\[[^\]]*\]", 8)


def with_shards(text: str, shards: tuple[str, ...]) -> str:
    """The text of a config.toml with ``[memory] shards`` set to ``shards`` and every other
    byte kept (comments, order, other keys): a person's file is edited, not rewritten.
    Raises ConfigError when the result would not read back as exactly that change."""
    import tomllib

    line = "shards = [" + ", ".join(f'"{s}"' for s in shards) + "]"
    head = _MEMORY_TABLE.search(text)
    if head is None:
        sep = "" if not text else "\n" if text.endswith("\n") else "\n\n"
        new = f"{text}{sep}[memory]\n{line}\n"
    else:
        after = _NEXT_TABLE.search(text, head.end())
        key = _SHARDS_KEY.search(text, head.end(), after.start() if after else len(text))
        new = (text[:head.end()] + "\n" + line + text[head.end():] if key is None
               else text[:key.start()] + line + text[key.end():])
    try:  # the new file must say exactly what the old one did, but for the shards
        old_data, new_data = tomllib.loads(text), tomllib.loads(new)
        got = new_data.setdefault("memory", {}).pop("shards", None)
        old_data.setdefault("memory", {}).pop("shards", None)
        ok = got == list(shards) and old_data == new_data
        parse_config(tomllib.loads(new))
    except (ValueError, ConfigError, AttributeError):  # TOMLDecodeError, a too long number
        ok = False
    if not ok:
        raise ConfigError("cannot update the shard list of .agents/config.toml safely; set "
                          f"[memory] {line} there by hand")
    return new
