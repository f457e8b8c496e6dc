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
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

_set = object.__setattr__


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


class _NamedTupleMeta(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not bases:
            return super().__new__(mcls, name, bases, ns)

        fields = list(ns.get("__annotations__", {}))
        defaults = [ns[f] for f in fields if f in ns]
        cls = namedtuple(name, fields, defaults=defaults,  # type: ignore[misc]
                         module=ns["__module__"])
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
