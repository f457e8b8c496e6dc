"""Frozen value classes without ``dataclasses``.

``@dataclass`` imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``): over 10 ms of
every process that defines one, a hot command's whole budget. The values the hot commands
build (entries, hits, statuses, the config) derive from :class:`Record` instead: plain
classes with ``__slots__`` and a hand-written ``__init__``, which behave as the frozen
dataclasses they were: keyword or positional construction, equality and hashing over the
compared fields, the same ``repr``, assignment refused, ``copy``/``pickle`` support.

Harness code still uses the standard tools on them: ``dataclasses.replace``, ``asdict``,
``astuple``, ``fields`` and ``is_dataclass`` work, and so does ``copy.replace`` (Python
3.13+). The dataclass protocol's ``__dataclass_fields__`` is made on first use, from a
shadow dataclass of the same fields (ADR 0037), so only a caller that asks pays for
``dataclasses``. :func:`replace` is the package's own, import-free spelling.

The same for more standard tools the hot modules use, whose modules import ``functools``,
``types`` and ``collections`` (~1 ms of every hot command, ADR 0039): :class:`NamedTuple`
(``collections.namedtuple``, which also builds each class through ``exec``),
:func:`contextmanager` and :class:`suppress` (``contextlib``'s), :class:`cached_property`
(``functools``'s) and :class:`SequenceBase` (``collections.abc.Sequence`` as a base class).
Each is the standard one for the type checker.

And :func:`lazy`, ``re.compile`` done on first use (here since ADR 0050: a module of its
own cost every process ~0.5 M instructions). ``re`` compiles in Python (0.1-1 ms a
pattern, measured): a module that compiles a dozen at import makes every process pay, even
one that never matches them (a query, a hook); ``re`` itself is imported on the first
compile.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    import re
    from typing import Any, TypeVar

    T = TypeVar("T")

_set = object.__setattr__

if TYPE_CHECKING:
    from array import array as array
    from collections.abc import Sequence

    SequenceBase = Sequence
    from contextlib import contextmanager as contextmanager
    from contextlib import suppress as suppress
    from functools import cached_property as cached_property
else:
    class _ArrayType(type):
        def __instancecheck__(cls, obj):
            real = sys.modules.get("array")
            return real is not None and isinstance(obj, real.array)

    class array(metaclass=_ArrayType):
        """``array.array``, its module imported when the first array is made: importing
        it imports ``collections`` (it registers as a ``MutableSequence``), ~1.3 ms that a
        query, which reads its numbers through ``memoryview``, need not pay."""

        def __new__(cls, *args):
            from array import array as made  # on first use (see above)

            return made(*args)

    class suppress:
        """``contextlib.suppress``."""

        __slots__ = ("_exceptions",)

        def __init__(self, *exceptions):
            self._exceptions = exceptions

        def __enter__(self):
            return None

        def __exit__(self, kind, value, traceback):
            return kind is not None and issubclass(kind, self._exceptions)

    class SequenceBase:
        """``collections.abc.Sequence`` as a base: its mixin methods over ``__len__`` and
        ``__getitem__`` (no ``isinstance`` registration)."""

        __slots__ = ()

        def __class_getitem__(cls, item):
            return cls

        def __iter__(self):
            i = 0
            try:
                while True:
                    v = self[i]
                    yield v
                    i += 1
            except IndexError:
                return

        def __contains__(self, value):
            return any(v is value or v == value for v in self)

        def __reversed__(self):
            for i in reversed(range(len(self))):
                yield self[i]

        def index(self, value, start=0, stop=None):
            if start is not None and start < 0:
                start = max(len(self) + start, 0)
            if stop is not None and stop < 0:
                stop += len(self)
            i = start
            while stop is None or i < stop:
                try:
                    v = self[i]
                except IndexError:
                    break
                if v is value or v == value:
                    return i
                i += 1
            raise ValueError

        def count(self, value):
            return sum(1 for v in self if v is value or v == value)

    class _GeneratorContext:
        """``contextlib._GeneratorContextManager``'s behaviour, for a one-shot use."""

        __slots__ = ("gen",)

        def __init__(self, gen):
            self.gen = gen

        def __enter__(self):
            try:
                return next(self.gen)
            except StopIteration:
                raise RuntimeError("generator didn't yield") from None

        def __exit__(self, typ, value, traceback):
            if typ is None:
                try:
                    next(self.gen)
                except StopIteration:
                    return False
                try:
                    raise RuntimeError("generator didn't stop")
                finally:
                    self.gen.close()
            if value is None:
                value = typ()
            try:
                self.gen.throw(value)
            except StopIteration as exc:
                return exc is not value
            except RuntimeError as exc:
                if exc is value or (isinstance(value, StopIteration)
                                    and exc.__cause__ is value):
                    value.__traceback__ = traceback
                    return False
                raise
            except BaseException as exc:
                if exc is not value:
                    raise
                exc.__traceback__ = traceback
                return False
            try:
                raise RuntimeError("generator didn't stop after throw()")
            finally:
                self.gen.close()

    def contextmanager(func):
        """``contextlib.contextmanager``."""
        def helper(*args, **kwargs):
            return _GeneratorContext(func(*args, **kwargs))

        helper.__name__ = func.__name__
        helper.__qualname__ = func.__qualname__
        helper.__doc__ = func.__doc__
        helper.__module__ = func.__module__
        helper.__wrapped__ = func
        return helper

    class cached_property:
        """``functools.cached_property``: computed on first read, then the instance's."""

        def __init__(self, func):
            self.func = func
            self.attrname = func.__name__
            self.__doc__ = func.__doc__
            self.__module__ = func.__module__

        def __set_name__(self, owner, name):
            self.attrname = name

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            value = instance.__dict__[self.attrname] = self.func(instance)
            return value


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen value (as ``dataclasses.FrozenInstanceError``)."""


def _rebuild(cls: type[Record], values: tuple[object, ...]) -> Record:
    obj = object.__new__(cls)
    for name, value in zip(cls._fields, values, strict=True):
        _set(obj, name, value)
    return obj


class _DataclassFields:
    """``__dataclass_fields__`` of a :class:`Record` subclass, built when first read.

    The ``dataclasses`` functions only read this mapping (and call the class with keyword
    arguments), so real ``Field`` objects taken from a shadow dataclass with the same names,
    defaults and compare/repr flags make them treat a record as the frozen dataclass it was.
    """

    def __init__(self) -> None:
        self._made: dict[type, dict[str, Any]] = {}

    def __get__(self, obj: object, owner: type[Record]) -> dict[str, Any]:
        made = self._made.get(owner)
        if made is None:
            if not owner._fields:  # Record itself is no dataclass
                raise AttributeError("__dataclass_fields__")
            made = self._made[owner] = _shadow_fields(owner)
        return made


def _shadow_fields(cls: type[Record]) -> dict[str, Any]:
    import dataclasses  # only a caller of the dataclass protocol pays for it

    defaults = cls.__init__.__defaults__ or ()
    first_default = len(cls._fields) - len(defaults)
    notes: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        notes.update(getattr(klass, "__annotations__", {}))
    spec = []
    for i, name in enumerate(cls._fields):
        shown = name not in cls._hidden
        if i >= first_default:
            field = dataclasses.field(default=defaults[i - first_default], compare=shown,
                                      repr=shown)
        else:
            field = dataclasses.field(compare=shown, repr=shown)
        spec.append((name, notes.get(name, "object"), field))
    shadow = dataclasses.make_dataclass(cls.__name__, spec, frozen=True)
    made: dict[str, Any] = shadow.__dataclass_fields__  # type: ignore[attr-defined]
    return dict(made)


class Record:
    """A frozen value: subclasses list their fields in ``_fields`` (in ``__init__``'s
    order; ``__slots__ = _fields``) and those left out of equality, hashing and ``repr`` in
    ``_hidden``."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()  # in __init__'s order; subclasses: __slots__ = _fields
    _hidden: tuple[str, ...] = ()

    __dataclass_fields__ = _DataclassFields()  # the dataclass protocol, made on first use

    def __init_subclass__(cls) -> None:
        setattr(cls, "__match_args__", cls._fields)  # noqa: B010 (mypy refuses the assignment)

    def _init(self, *values: object) -> None:
        for name, value in zip(self._fields, values, strict=True):
            _set(self, name, value)

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, n) for n in self._fields if n not in self._hidden)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields
                          if n not in self._hidden)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self), tuple(getattr(self, n) for n in self._fields))

    def __replace__(self, /, **changes: Any) -> Record:
        """``copy.replace`` (Python 3.13+): a copy with ``changes``."""
        return replace(self, **changes)

    def __copy__(self) -> Record:
        return self  # immutable

    def __deepcopy__(self, memo: dict[int, object]) -> Record:
        return _rebuild(type(self), tuple(__import__("copy").deepcopy(getattr(self, n), memo)
                                          for n in self._fields))


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj`` with ``changes``: ``dataclasses.replace`` for a :class:`Record`
    (and for a dataclass, which it is given to)."""
    if isinstance(obj, Record):
        values = {n: getattr(obj, n) for n in obj._fields}
        unknown = changes.keys() - values.keys()
        if unknown:
            raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
        values.update(changes)
        return type(obj)(**values)
    import dataclasses

    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]


def _named_tuple(name: str, fields: list[str], defaults: list[object], module: str) -> Any:
    """A tuple class with named fields: what ``collections.namedtuple`` builds (fields by
    name and index, defaults, ``_make``, ``_replace``, ``_asdict``, its ``repr``, pickling),
    without importing ``collections`` (with ``operator``, ``keyword`` and ``reprlib``: ~1 ms
    of every hot command, ADR 0039)."""
    names = tuple(fields)
    count = len(names)
    first_default = count - len(defaults)
    slots = {n: i for i, n in enumerate(names)}

    def __new__(cls: type, *args: object, **kwargs: object) -> Any:
        if kwargs or len(args) != count:
            if len(args) > count:
                raise TypeError(f"{name}() takes {count} arguments but {len(args)} were given")
            values = list(args)
            for field in names[len(args):]:
                if field in kwargs:
                    values.append(kwargs.pop(field))
                elif slots[field] >= first_default:
                    values.append(defaults[slots[field] - first_default])
                else:
                    raise TypeError(f"{name}() missing required argument: {field!r}")
            if kwargs:
                raise TypeError(f"{name}() got an unexpected keyword argument "
                                f"{next(iter(kwargs))!r}")
            args = tuple(values)
        return tuple.__new__(cls, args)

    def _make(cls: type, iterable: Any) -> Any:
        values = tuple(iterable)
        if len(values) != count:
            raise TypeError(f"Expected {count} arguments, got {len(values)}")
        return tuple.__new__(cls, values)

    def _replace(self: tuple[object, ...], /, **kwargs: object) -> Any:
        values = [kwargs.pop(n, v) for n, v in zip(names, self, strict=True)]
        if kwargs:
            raise ValueError(f"Got unexpected field names: {list(kwargs)!r}")
        return tuple.__new__(type(self), values)

    def __repr__(self: tuple[object, ...]) -> str:
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, self, strict=True))
        return f"{type(self).__name__}({shown})"

    def _asdict(self: tuple[object, ...]) -> dict[str, object]:
        return dict(zip(names, self, strict=True))

    def __getnewargs__(self: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(self)

    ns: dict[str, Any] = {
        "__slots__": (), "__module__": module, "__new__": __new__, "_make": classmethod(_make),
        "_replace": _replace, "__repr__": __repr__, "_asdict": _asdict,
        "__getnewargs__": __getnewargs__, "_fields": names, "__match_args__": names,
        "_field_defaults": dict(zip(names[first_default:], defaults, strict=True))}
    for i, field in enumerate(names):
        ns[field] = _field(i)
    return type(name, (tuple,), ns)


def _field(i: int) -> property:
    def get(self: tuple[object, ...]) -> object:
        return tuple.__getitem__(self, i)

    return property(get, doc=f"Alias for field number {i}")


class _NamedTupleMeta(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not bases:
            return super().__new__(mcls, name, bases, ns)

        fields = list(ns.get("__annotations__", {}))
        defaults = [ns[f] for f in fields if f in ns]
        cls = _named_tuple(name, fields, defaults, ns["__module__"])
        cls.__qualname__ = ns.get("__qualname__", name)
        cls.__doc__ = ns.get("__doc__", cls.__doc__)
        for key, value in ns.items():
            if key not in fields and key not in _KEEP:
                setattr(cls, key, value)
        return cls


_KEEP = frozenset({"__annotations__", "__module__", "__qualname__", "__doc__", "__slots__",
                   "__dict__", "__weakref__", "__new__", "__init__", "__getnewargs__",
                   "_fields", "_field_defaults", "_make", "_replace", "_asdict", "_source"})


class NamedTuple(metaclass=_NamedTupleMeta):
    """``typing.NamedTuple`` for a class statement, without importing typing: modules use
    ``typing.NamedTuple`` when type checking and this at run time."""


# -- regular expressions compiled on first use ------------------------------------------

_METHODS = ("findall", "finditer", "fullmatch", "match", "search", "split", "sub", "subn")


class _Lazy:
    # Once compiled, the pattern's methods are slots of this object: plain attribute reads.
    __slots__ = ("_args", *_METHODS)

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        import re

        compiled = re.compile(*self._args)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]


# Who hears a retriever's note (a retriever searched without, and why): the agent hook logs
# them. Here (ADR 0056), not in a module of its own (each costs a prompt ~0.5 M instructions
# to load) nor in :mod:`lean_memory.retrievers`, whose typing and plugin machinery the
# built-in BM25's path never loads: every process of ours has this module.
if TYPE_CHECKING:
    from collections.abc import Callable
listeners: list[Callable[[str], None]] = []
