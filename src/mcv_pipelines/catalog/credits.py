"""Estimated credits of a run and of a batch, from the listing's ``credits`` per conversion type.

The estimate is the sum of the base credits of the conversion types a run uses; the service may
charge more for long or large files, so this is a floor, and types the catalog gives no credits for
are listed as unknown rather than counted as zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey

__all__ = ["CreditEstimate", "estimate_credits"]


@dataclass(frozen=True, slots=True)
class CreditEstimate:
    """Credits per conversion type of one run; ``unknown`` lists types without a credits figure."""

    items: tuple[tuple[ConversionKey, int], ...]
    unknown: tuple[ConversionKey, ...] = ()

    @property
    def per_run(self) -> int:
        return sum(credits for _, credits in self.items)

    def total(self, rows: int) -> int:
        """Credits for ``rows`` runs (a batch of that many manifest rows)."""
        return self.per_run * rows

    @property
    def complete(self) -> bool:
        return not self.unknown


def estimate_credits(catalog: Catalog, keys: Iterable[ConversionKey]) -> CreditEstimate:
    """One entry per key in ``keys`` (a key used by two tasks counts twice)."""
    items: list[tuple[ConversionKey, int]] = []
    unknown: list[ConversionKey] = []
    for key in keys:
        desc = catalog.get(key)
        if desc is None or desc.credits is None:
            unknown.append(key)
        else:
            items.append((key, desc.credits))
    return CreditEstimate(tuple(items), tuple(unknown))
