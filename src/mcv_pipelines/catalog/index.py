"""The catalog: conversion types indexed by key, with the questions a check asks answered in O(1).

Every index is built once, when the catalog is made; a check never scans the whole listing.

>>> from mcv_pipelines.catalog.model import Descriptor
>>> cat = Catalog([Descriptor("convert", "jpg", "png", "imagemagick", default=True)])
>>> cat.default_engine("convert", "jpg", "png")
'imagemagick'
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import Any

from mcv_pipelines.catalog.model import ConversionKey, Descriptor

__all__ = ["Catalog", "nearest"]


def nearest(word: str, choices: Iterable[str], limit: int = 3) -> list[str]:
    """Choices closest to ``word`` (did-you-mean), best first."""
    return difflib.get_close_matches(word, sorted(set(choices)), n=limit, cutoff=0.6)


class Catalog:
    """Conversion types by key. ``source`` says where they came from (a path, a URL) for messages."""

    def __init__(self, descriptors: Iterable[Descriptor], *, source: str = "<catalog>") -> None:
        self.source = source
        self.descriptors: tuple[Descriptor, ...] = tuple(descriptors)
        self._by_key: dict[ConversionKey, Descriptor] = {}
        self._engines: dict[tuple[str, str, str], list[Descriptor]] = {}
        self._outputs: dict[tuple[str, str], set[str]] = {}
        self._inputs: dict[str, set[str]] = {}
        self._outputs_of_op: dict[str, set[str]] = {}
        self._engines_of_op: dict[str, set[str]] = {}
        for desc in self.descriptors:
            self._by_key[desc.key] = desc
            op, fin, fout = desc.operation, desc.input_format, desc.output_format
            self._engines.setdefault((op, fin, fout), []).append(desc)
            self._outputs.setdefault((op, fin), set()).add(fout)
            self._inputs.setdefault(op, set()).add(fin)
            self._outputs_of_op.setdefault(op, set()).add(fout)
            self._engines_of_op.setdefault(op, set()).add(desc.engine)
        # Derived option validators, filled lazily by catalog.derive (one per key, compiled once).
        self.validators: dict[ConversionKey, Any] = {}
        self.derivations = 0

    def __len__(self) -> int:
        return len(self.descriptors)

    def __iter__(self) -> Iterator[Descriptor]:
        return iter(self.descriptors)

    def get(self, key: ConversionKey) -> Descriptor | None:
        return self._by_key.get(key)

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
        found = self._engines.get((operation, input_format, output_format), [])
        if len(found) > 1 and not found[0].default:
            found.sort(key=lambda d: not d.default)  # stable: listing order among the rest
        return list(found)

    def default_engine(self, operation: str, input_format: str, output_format: str) -> str | None:
        found = self.engines(operation, input_format, output_format)
        return found[0].engine if found else None

    def nearest_outputs(
        self, operation: str, input_format: str, wanted: str | None = None, limit: int = 5
    ) -> list[str]:
        """Supported outputs from ``input_format`` to suggest instead of ``wanted``: close names first."""
        outputs = self.output_formats(operation, input_format)
        close = nearest(wanted, outputs, limit) if wanted else []
        rest = [o for o in outputs if o not in close]
        return (close + rest)[:limit]
