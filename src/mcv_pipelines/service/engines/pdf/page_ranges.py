"""Page selections such as ``"1-3,5"``, ``"4-"`` (4 to the end) or ``"all"``; 1-based, as users write them."""

from __future__ import annotations

import re

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_OPTION

__all__ = ["parse_pages"]

_PART = re.compile(r"^\s*(\d+)?\s*(-)?\s*(\d+)?\s*$")


def _bad(option: str, problem: str) -> EngineError:
    return EngineError(INVALID_OPTION, f"option {option!r}: {problem}")


def parse_pages(spec: object, count: int, option: str = "pages") -> list[int]:
    """The 0-based indices selected by ``spec`` among ``count`` pages, in document order.

    >>> parse_pages("1-3,5", 10)
    [0, 1, 2, 4]
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "all")):
        return list(range(count))
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = str(spec)
    if not isinstance(spec, str):
        raise EngineError(INVALID_OPTION, f'option {option!r} is {spec!r}; expected pages like "1-3,5"')
    selected: set[int] = set()
    for part in spec.split(","):
        match = _PART.match(part)
        if match is None or not (match.group(1) or match.group(3)):
            raise _bad(option, f"{part.strip()!r} is not a page or a range like 2-4")
        first_text, dash, last_text = match.groups()
        first = int(first_text) if first_text else 1
        last = int(last_text) if last_text else (count if dash else first)
        if first < 1 or last < first:
            raise _bad(option, f"{part.strip()!r} is not a valid page range")
        selected.update(range(first - 1, min(last, count)))
    if not selected:
        raise _bad(option, f"{spec!r} selects no page; the document has {count} page(s)")
    return sorted(selected)
