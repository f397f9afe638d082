"""The catalog: conversion types indexed by key, with the questions a check asks answered in O(1).

Every index is built once, when the catalog is made; a check never scans the whole listing.

>>> from mcv_pipelines.catalog.model import Descriptor
>>> cat = Catalog([Descriptor("convert", "jpg", "png", "imagemagick", default=True)])
>>> cat.default_engine("convert", "jpg", "png")
'imagemagick'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from mcv_pipelines.catalog.model import ConversionKey, Descriptor

__all__ = ["Catalog", "nearest"]


def nearest(word: str, choices: Iterable[str], limit: int = 3) -> list[str]:
    """Choices closest to ``word`` (did-you-mean), best first."""
    import difflib  # only a finding needs it; a clean check's start-up does not

    return difflib.get_close_matches(word, sorted(set(choices)), n=limit, cutoff=0.6)


class Catalog:
    """Conversion types by key. ``source`` says where they came from (a path, a URL) for messages.

    A catalog built with ``Catalog.lazily`` knows only each type's key and default flag up front and
    makes a ``Descriptor`` (options, engine versions, ...) the first time one is asked for: a check
    touches a handful of a catalog's thousands of types (issue 15, the compact index in
    ``catalog.compact``).
    """

    def __init__(self, descriptors: Iterable[Descriptor], *, source: str = "<catalog>") -> None:
        made = tuple(descriptors)
        self._setup([d.key for d in made], [d.default for d in made], list(made), None, source)

    @classmethod
    def lazily(
        cls,
        keys: Sequence[ConversionKey],
        defaults: Sequence[bool],
        load: Callable[[int], Descriptor],
        *,
        source: str = "<catalog>",
    ) -> Catalog:
        """A catalog of ``keys`` (sorted, unique) whose descriptor ``i`` is ``load(i)``, made on first use."""
        catalog = cls.__new__(cls)
        catalog._setup(keys, defaults, [None] * len(keys), load, source)
        return catalog

    def _setup(
        self,
        keys: Sequence[ConversionKey],
        defaults: Sequence[bool],
        items: list[Descriptor | None],
        load: Callable[[int], Descriptor] | None,
        source: str,
    ) -> None:
        self.source = source
        self._keys = keys
        self._items = items
        self._load = load
        self._by_key: dict[ConversionKey, int] = {}
        self._engines: dict[tuple[str, str, str], list[int]] = {}
        self._outputs: dict[tuple[str, str], set[str]] = {}
        self._inputs: dict[str, set[str]] = {}
        self._outputs_of_op: dict[str, set[str]] = {}
        self._engines_of_op: dict[str, set[str]] = {}
        for i, key in enumerate(keys):
            self._by_key[key] = i
            op, fin, fout, engine = key
            self._engines.setdefault((op, fin, fout), []).append(i)
            self._outputs.setdefault((op, fin), set()).add(fout)
            self._inputs.setdefault(op, set()).add(fin)
            self._outputs_of_op.setdefault(op, set()).add(fout)
            self._engines_of_op.setdefault(op, set()).add(engine)
        for members in self._engines.values():
            if len(members) > 1 and not defaults[members[0]]:
                members.sort(key=lambda i: not defaults[i])  # stable: listing order among the rest
        # Derived option validators, filled lazily by catalog.derive (one per key, compiled once).
        self.validators: dict[ConversionKey, Any] = {}
        self.derivations = 0

    def _at(self, i: int) -> Descriptor:
        desc = self._items[i]
        if desc is None:
            assert self._load is not None  # only a lazy catalog has unmade descriptors
            desc = self._items[i] = self._load(i)
        return desc

    @property
    def descriptors(self) -> tuple[Descriptor, ...]:
        """Every conversion type (all of them made, for a lazy catalog)."""
        return tuple(self._at(i) for i in range(len(self._items)))

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Descriptor]:
        return iter(self.descriptors)

    def keys(self) -> Sequence[ConversionKey]:
        """Every conversion type's key, in the catalog's order, without making any descriptor."""
        return self._keys

    def get(self, key: ConversionKey) -> Descriptor | None:
        i = self._by_key.get(key)
        return None if i is None else self._at(i)

    @property
    def operations(self) -> list[str]:
        return sorted(self._inputs)

    def has_operation(self, operation: str) -> bool:
        return operation in self._inputs

    def accepts(self, operation: str, input_format: str) -> bool:
        """O(1): does ``operation`` read ``input_format``?"""
        return input_format in self._inputs.get(operation, ())

    def produces(self, operation: str, output_format: str) -> bool:
        """O(1): does ``operation`` make ``output_format`` from some input?"""
        return output_format in self._outputs_of_op.get(operation, ())

    def input_formats(self, operation: str) -> list[str]:
        """Every input format ``operation`` accepts."""
        return sorted(self._inputs.get(operation, ()))

    def output_formats(self, operation: str, input_format: str | None = None) -> list[str]:
        """Output formats of ``operation``, from ``input_format`` when given."""
        if input_format is None:
            return sorted(self._outputs_of_op.get(operation, ()))
        return sorted(self._outputs.get((operation, input_format), ()))

    def engines_of(self, operation: str) -> list[str]:
        """Every engine that runs some conversion type of ``operation``."""
        return sorted(self._engines_of_op.get(operation, ()))

    def engines(self, operation: str, input_format: str, output_format: str) -> list[Descriptor]:
        """The conversion types (one per engine) for these formats, default engine first."""
        return [self._at(i) for i in self._engines.get((operation, input_format, output_format), ())]

    def default_engine(self, operation: str, input_format: str, output_format: str) -> str | None:
        found = self._engines.get((operation, input_format, output_format))
        return self._keys[found[0]].engine if found else None

    def nearest_outputs(
        self, operation: str, input_format: str, wanted: str | None = None, limit: int = 5
    ) -> list[str]:
        """Supported outputs from ``input_format`` to suggest instead of ``wanted``: close names first."""
        outputs = self.output_formats(operation, input_format)
        close = nearest(wanted, outputs, limit) if wanted else []
        rest = [o for o in outputs if o not in close]
        return (close + rest)[:limit]
