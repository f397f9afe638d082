"""The catalog: conversion types by key, with the questions a check asks answered from small indexes.

Nothing is indexed when the catalog is made: the keys are in order, and the first question about an
operation (or an operation and an input format) finds its run by bisection and indexes that run,
once. A check never scans the whole listing, and a start-up never indexes what no check asks about.

>>> from mcv_pipelines.catalog.model import Descriptor
>>> cat = Catalog([Descriptor("convert", "jpg", "png", "imagemagick", default=True)])
>>> cat.default_engine("convert", "jpg", "png")
'imagemagick'
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from mcv_pipelines.catalog.model import ConversionKey, Descriptor

__all__ = ["Catalog", "nearest"]


def nearest(word: str, choices: Iterable[str], limit: int = 3) -> list[str]:
    """Choices closest to ``word`` (did-you-mean), best first."""
    import difflib  # only a finding needs it; a clean check's start-up does not

    return difflib.get_close_matches(word, sorted(set(choices)), n=limit, cutoff=0.6)


_AFTER = "\U0010ffff"  # sorts after any format or engine name: (op, fin, _AFTER) ends the run of (op, fin)


class _Pair:
    """The conversion types of one operation from one input format: by (output, engine), and each
    output's, default engine first (then catalog order)."""

    def __init__(self, members: list[int], keys: Sequence[ConversionKey], defaults: Sequence[bool]) -> None:
        self.by_key: dict[tuple[str, str], int] = {}
        self.engines: dict[str, list[int]] = {}
        for i in members:
            _, _, output, engine = keys[i]
            self.by_key[(output, engine)] = i
            self.engines.setdefault(output, []).append(i)
        for found in self.engines.values():
            if len(found) > 1 and not defaults[found[0]]:
                found.sort(key=lambda i: not defaults[i])  # stable: catalog order among the rest


class _Operation:
    """What one operation reads, makes and runs with, over all its conversion types."""

    def __init__(self, members: list[int], keys: Sequence[ConversionKey]) -> None:
        self.inputs: set[str] = set()
        self.outputs: set[str] = set()
        self.engines: set[str] = set()
        for i in members:
            _, source, target, engine = keys[i]
            self.inputs.add(source)
            self.outputs.add(target)
            self.engines.add(engine)


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
        catalog._setup(keys, defaults, [None] * len(keys), load, source, ordered=True)
        return catalog

    def _setup(
        self,
        keys: Sequence[ConversionKey],
        defaults: Sequence[bool],
        items: list[Descriptor | None],
        load: Callable[[int], Descriptor] | None,
        source: str,
        ordered: bool = False,
    ) -> None:
        self.source = source
        self._keys = keys
        self._defaults = defaults
        self._items = items
        self._load = load
        # Positions in key order: a catalog's parsed listing and its index are sorted already, so no
        # index is built up front; each question looks up the run of one operation (and input format)
        # by bisection and keeps what it found. A check asks about a handful of runs of 10k types.
        if ordered or all(map(operator.le, keys, keys[1:])):
            self._order: Sequence[int] = range(len(keys))
        else:
            self._order = sorted(range(len(keys)), key=keys.__getitem__)
        self._pairs: dict[tuple[str, str], _Pair] = {}
        self._ops: dict[str, _Operation] = {}
        # Derived option validators, filled lazily by catalog.derive (one per key, compiled once).
        self.validators: dict[ConversionKey, Any] = {}
        self.derivations = 0

    def _run(self, low: tuple[str, ...], high: tuple[str, ...]) -> list[int]:
        """Positions (in catalog order) of the keys from ``low`` up to, not including, ``high``."""
        keys, order = self._keys, self._order
        start = bisect.bisect_left(order, low, key=lambda i: keys[i])
        stop = bisect.bisect_left(order, high, lo=start, key=lambda i: keys[i])
        return sorted(order[start:stop])

    def _pair(self, operation: str, input_format: str) -> _Pair:
        found = self._pairs.get((operation, input_format))
        if found is None:
            members = self._run((operation, input_format), (operation, input_format, _AFTER))
            found = self._pairs[(operation, input_format)] = _Pair(members, self._keys, self._defaults)
        return found

    def _operation(self, operation: str) -> _Operation:
        found = self._ops.get(operation)
        if found is None:
            found = self._ops[operation] = _Operation(
                self._run((operation,), (operation, _AFTER)), self._keys
            )
        return found

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
        i = self._pair(key[0], key[1]).by_key.get((key[2], key[3]))
        return None if i is None else self._at(i)

    @property
    def operations(self) -> list[str]:
        return sorted({key[0] for key in self._keys})

    def has_operation(self, operation: str) -> bool:
        return bool(self._operation(operation).inputs)

    def accepts(self, operation: str, input_format: str) -> bool:
        """Does ``operation`` read ``input_format``?"""
        return bool(self._pair(operation, input_format).by_key)

    def produces(self, operation: str, output_format: str) -> bool:
        """Does ``operation`` make ``output_format`` from some input?"""
        return output_format in self._operation(operation).outputs

    def input_formats(self, operation: str) -> list[str]:
        """Every input format ``operation`` accepts."""
        return sorted(self._operation(operation).inputs)

    def output_formats(self, operation: str, input_format: str | None = None) -> list[str]:
        """Output formats of ``operation``, from ``input_format`` when given."""
        if input_format is None:
            return sorted(self._operation(operation).outputs)
        return sorted(self._pair(operation, input_format).engines)

    def engines_of(self, operation: str) -> list[str]:
        """Every engine that runs some conversion type of ``operation``."""
        return sorted(self._operation(operation).engines)

    def engines(self, operation: str, input_format: str, output_format: str) -> list[Descriptor]:
        """The conversion types (one per engine) for these formats, default engine first."""
        return [self._at(i) for i in self._pair(operation, input_format).engines.get(output_format, ())]

    def default_engine(self, operation: str, input_format: str, output_format: str) -> str | None:
        found = self._pair(operation, input_format).engines.get(output_format)
        return self._keys[found[0]].engine if found else None

    def nearest_outputs(
        self, operation: str, input_format: str, wanted: str | None = None, limit: int = 5
    ) -> list[str]:
        """Supported outputs from ``input_format`` to suggest instead of ``wanted``: close names first."""
        outputs = self.output_formats(operation, input_format)
        close = nearest(wanted, outputs, limit) if wanted else []
        rest = [o for o in outputs if o not in close]
        return (close + rest)[:limit]
