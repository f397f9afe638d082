"""Reading a task's options with the types the listing promises, and the options engines share.

A value of the wrong type or out of range is the user's mistake, so it becomes
``EngineError("INVALID_OPTION", ...)`` naming the option, the value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import ImageColor

from mcv_pipelines.local_service.engines.base import EngineError, OptionSpec
from mcv_pipelines.local_service.engines.failures import INVALID_OPTION

__all__ = [
    "FILENAME",
    "bool_option",
    "color_option",
    "dict_option",
    "enum_option",
    "int_option",
    "str_option",
]

FILENAME = OptionSpec(
    "filename",
    "string",
    None,
    description="Output file name; a printf-style %d numbers the files when the task makes several.",
)


def _bad(name: str, value: Any, expected: str) -> EngineError:
    return EngineError(INVALID_OPTION, f"option {name!r} is {value!r}; expected {expected}")


def int_option(
    options: Mapping[str, Any],
    name: str,
    default: int | None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int | None:
    """An integer option; whole floats (``300.0``) and digit strings (``"300"``) are accepted."""
    value = options.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        raise _bad(name, value, "an integer")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise _bad(name, value, "an integer")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        low = "" if minimum is None else f"{minimum}"
        high = "" if maximum is None else f"{maximum}"
        raise _bad(name, value, f"an integer in {low}..{high}")
    return value


def bool_option(options: Mapping[str, Any], name: str, default: bool) -> bool:
    value = options.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise _bad(name, value, "true or false")


def str_option(options: Mapping[str, Any], name: str, default: str | None) -> str | None:
    value = options.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _bad(name, value, "a string")
    return str(value)


def enum_option(options: Mapping[str, Any], name: str, default: str, allowed: Sequence[str]) -> str:
    value = options.get(name)
    if value is None:
        return default
    if not isinstance(value, str) or value.lower() not in allowed:
        raise _bad(name, value, "one of " + ", ".join(allowed))
    return value.lower()


def dict_option(options: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = options.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _bad(name, value, "an object of key to value")
    return {str(key): item for key, item in value.items()}


def color_option(options: Mapping[str, Any], name: str, default: str) -> tuple[int, int, int]:
    """A colour as ``#rrggbb``, ``#rgb``, ``rgb(...)`` or a CSS name, as an RGB triple."""
    value = options.get(name)
    text = default if value is None else value
    if not isinstance(text, str):
        raise _bad(name, value, "a colour such as #ff0000 or red")
    try:
        rgb = ImageColor.getrgb(text)
    except ValueError as exc:
        raise _bad(name, value, "a colour such as #ff0000 or red") from exc
    return rgb[0], rgb[1], rgb[2]
