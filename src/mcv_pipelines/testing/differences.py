"""Where two texts, two byte streams or two lists of names first differ, in words a user reads: the
``detail`` of a failed golden comparison.

>>> text_difference("a\\nfoo\\n", "a\\nbar\\n")
"text differs at line 2: 'foo' vs 'bar'"
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import Path

__all__ = ["bytes_difference", "lines_difference", "members_difference", "text_difference"]

_SHOWN = 60  # characters of a line shown around the first difference
_CHUNK = 1024 * 1024
_LISTED = 5


def text_difference(actual: str, golden: str) -> str | None:
    """None when the texts are equal, else where they first differ and both versions there: by line
    for texts of several lines, by character for one line (a document's words, whitespace collapsed)."""
    if "\n" in actual or "\n" in golden:
        return lines_difference(actual.split("\n"), golden.split("\n"))
    if actual == golden:
        return None
    at = _first_difference(actual, golden)
    return f"text differs at character {at + 1:,}: {_excerpt(actual, at)} vs {_excerpt(golden, at)}"


def lines_difference(actual: Iterable[str], golden: Iterable[str]) -> str | None:
    """Like ``text_difference`` over lines read one at a time (a file need not fit in memory); blank
    lines at the end of either are ignored."""
    for number, (mine, theirs) in enumerate(itertools.zip_longest(actual, golden), start=1):
        if mine == theirs or (not mine and not theirs):
            continue
        if mine is None:
            return f"text ends before line {number}, golden goes on: {_excerpt(theirs or '', 0)}"
        if theirs is None:
            return f"text goes on at line {number}, golden ends before it: {_excerpt(mine, 0)}"
        at = _first_difference(mine, theirs)
        return f"text differs at line {number}: {_excerpt(mine, at)} vs {_excerpt(theirs, at)}"
    return None


def _first_difference(mine: str, theirs: str) -> int:
    at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), None)
    return min(len(mine), len(theirs)) if at is None else at


def bytes_difference(actual: Path, golden: Path) -> str | None:
    """None when the files hold the same bytes, read in chunks; else their sizes or the first byte
    that differs."""
    sizes = actual.stat().st_size, golden.stat().st_size
    if sizes[0] != sizes[1]:
        return f"bytes differ ({sizes[0]:,} vs {sizes[1]:,} bytes)"
    with actual.open("rb") as mine, golden.open("rb") as theirs:
        offset = 0
        while chunk := mine.read(_CHUNK):
            other = theirs.read(_CHUNK)
            if chunk != other:
                at = offset + next(i for i, (a, b) in enumerate(zip(chunk, other, strict=False)) if a != b)
                return f"bytes differ from byte {at:,} on (both {sizes[0]:,} bytes)"
            offset += len(chunk)
    return None


def members_difference(actual: Iterable[str], golden: Iterable[str]) -> str | None:
    """None for the same names (in any order), else those only in ``actual`` (+) and only in
    ``golden`` (-)."""
    mine, theirs = set(actual), set(golden)
    if mine == theirs:
        return None
    listed = [*_listed("+", sorted(mine - theirs)), *_listed("-", sorted(theirs - mine))]
    return "members differ: " + " ".join(listed)


def _listed(sign: str, names: list[str]) -> list[str]:
    shown = [f"{sign} {name}" for name in names[:_LISTED]]
    return [*shown, f"(and {len(names) - _LISTED} more)"] if len(names) > _LISTED else shown


def _excerpt(line: str, at: int) -> str:
    """``line`` around position ``at``, quoted; cut with "..." where it goes on."""
    start = max(0, min(at - _SHOWN // 3, len(line) - _SHOWN))
    shown = line[start : start + _SHOWN]
    return ("..." if start else "") + repr(shown) + ("..." if start + _SHOWN < len(line) else "")
