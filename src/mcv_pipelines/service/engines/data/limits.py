"""What a data file may cost, and the path of a value inside a document for error messages.

Every reader of this folder works on the task's bytes in memory, so the bytes are bounded first
(``read_bounded``); a document is then measured before it is written (``check_size``): values are
counted as the writer would meet them, a reference met twice counted twice, so a YAML alias bomb or a
binary plist whose objects share one another (a few hundred bytes that expand to billions of values)
is refused before anything is written, and nesting deeper than ``MAX_DEPTH`` is refused with the path
where it went too deep. A table may hold ``MAX_VALUES`` cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["MAX_DEPTH", "MAX_INPUT_BYTES", "MAX_VALUES", "check_size", "path_text", "read_bounded"]

MAX_INPUT_BYTES = 32 * 1024 * 1024  # parsed in memory: a few hundred MB of objects at most
MAX_DEPTH = 100
MAX_VALUES = 2_000_000


def read_bounded(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The file's bytes; a file over ``limit`` is refused before it is read."""
    size = path.stat().st_size
    if size > limit:
        raise EngineError(
            INVALID_INPUT_FILE,
            f"{path.name} is {size:,} bytes; data conversions take files up to {limit:,} bytes",
        )
    return path.read_bytes()


def path_text(parts: Sequence[str | int]) -> str:
    """``$.items[2].note`` for the keys and indexes ``("items", 2, "note")``."""
    text = "$"
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.isidentifier():
            text += f".{part}"
        else:
            text += f"[{part!r}]"
    return text if len(text) <= 120 else f"{text[:60]}...{text[-50:]}"


def check_size(value: Any, max_values: int = MAX_VALUES, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a document that holds more than ``max_values`` values once its shared parts are
    expanded, that nests deeper than ``max_depth``, or that holds itself.

    Each object or list is measured once (its size and height kept by identity), so a bomb is refused
    in the time its bytes take to read, not the time its expansion would.
    """
    measured: dict[int, tuple[int, int]] = {}
    active: set[int] = set()
    trail: list[str | int] = []

    def refuse(problem: str) -> EngineError:
        return EngineError(INVALID_INPUT_FILE, f"the document {problem}; it is refused")

    def measure(item: Any, depth: int) -> tuple[int, int]:
        if not isinstance(item, dict | list):
            return 1, 0
        known = measured.get(id(item))
        if known is None:
            if id(item) in active:
                raise refuse(f"holds itself at {path_text(trail)}")
            if depth >= max_depth:
                raise refuse(f"nests deeper than {max_depth} levels at {path_text(trail)}")
            active.add(id(item))
            size, height = 1, 0
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                trail.append(key if isinstance(key, int) and isinstance(item, list) else str(key))
                child_size, child_height = measure(child, depth + 1)
                trail.pop()
                size, height = size + child_size, max(height, child_height + 1)
                if size > max_values:
                    raise refuse(
                        f"holds more than {max_values:,} values once its references are expanded "
                        "(a YAML alias or plist reference bomb?)"
                    )
            active.discard(id(item))
            known = measured[id(item)] = (size, height)
        if depth + known[1] > max_depth:
            raise refuse(f"nests deeper than {max_depth} levels below {path_text(trail)}")
        return known

    measure(value, 0)
