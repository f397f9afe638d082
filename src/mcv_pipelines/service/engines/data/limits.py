"""What a data file may cost, and the path of a value inside a document for error messages.

Every reader of this folder works on the task's bytes in memory, so the bytes are bounded first
(``read_bounded``); a document is then measured before it is written (``check_size``): values are
counted as the writer would meet them, a reference met twice counted twice, so a YAML alias bomb or a
binary plist whose objects share one another (a few hundred bytes that expand to billions of values)
is refused before anything is written, and nesting deeper than ``MAX_DEPTH`` is refused with the path
where it went too deep.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["MAX_DEPTH", "MAX_INPUT_BYTES", "MAX_VALUES", "check_size", "path_text", "read_bounded"]

MAX_INPUT_BYTES = 64 * 1024 * 1024
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
    return text


def check_size(value: Any, max_values: int = MAX_VALUES, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a document that holds more than ``max_values`` values once its shared parts are
    expanded, or that nests deeper than ``max_depth``."""
    count = 0
    # (value, depth, path) to visit; the path is kept as a tuple so the error can name where
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 0, ())]
    while stack:
        item, depth, where = stack.pop()
        count += 1
        if count > max_values:
            raise EngineError(
                INVALID_INPUT_FILE,
                f"the document holds more than {max_values:,} values once its references are expanded "
                "(a YAML alias or plist reference bomb?); it is refused",
            )
        if isinstance(item, dict | list):
            if depth >= max_depth:
                raise EngineError(
                    INVALID_INPUT_FILE,
                    f"the document nests deeper than {max_depth} levels at {path_text(where)}; it is refused",
                )
            if isinstance(item, dict):
                stack.extend((v, depth + 1, (*where, str(k))) for k, v in item.items())
            else:
                stack.extend((v, depth + 1, (*where, i)) for i, v in enumerate(item))
