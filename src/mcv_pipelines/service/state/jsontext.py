"""JSON in and out of the service's hot paths (stored documents, API answers) through orjson, about
3x faster to read and 10x faster to write than the standard library; values orjson refuses (integers
past 64 bits, keys that are not strings) fall back to the standard library, so nothing that was
accepted before is refused now.

orjson writes NaN and infinities as null where the standard library writes them as bare words
(which are not JSON); no other value changes.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from starlette.responses import JSONResponse

__all__ = ["FastJSONResponse", "dumps", "loads"]


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # e.g. an integer past 64 bits written by json.dumps
        return json.loads(text)


class FastJSONResponse(JSONResponse):
    """Starlette's JSONResponse (compact, UTF-8), rendered by orjson."""

    def render(self, content: Any) -> bytes:
        try:
            return orjson.dumps(content)
        except TypeError:
            return super().render(content)
