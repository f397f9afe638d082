"""Did-you-mean suggestions for misspelt names (params, tasks, options, operations)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, or None when nothing is close.

    >>> did_you_mean("qualty", ["quality", "widths"])
    "did you mean 'quality'?"
    """
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean {matches[0]!r}?" if matches else None
