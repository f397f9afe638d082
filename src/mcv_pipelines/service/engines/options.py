"""Reading a task's options with the types the listing promises, and the options engines share.

A value of the wrong type or out of range is the user's mistake, so it becomes
``EngineError("INVALID_OPTION", ...)`` naming the option, the value and what is allowed. An empty
string counts as not given, like null: forms and manifests often send ``""`` for a blank field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, overload

from PIL import ImageColor

from mcv_pipelines.service.engines.base import EngineError, OptionSpec
from mcv_pipelines.service.engines.failures import INVALID_OPTION

__all__ = [
    "FILENAME",
    "bool_option",
    "color_option",
    "dict_option",
    "enum_option",
    "float_option",
    "int_option",
    "str_option",
]

FILENAME = OptionSpec(
    "filename",
    "string",
    None,
    description="Output file name; a printf-style %d numbers the files when the task makes several.",
)

_INTEGER = re.compile(r"[+-]?\d+")


def _get(options: Mapping[str, Any], name: str) -> Any:
    value = options.get(name)
    return None if value == "" else value


def _bad(name: str, value: Any, expected: str) -> EngineError:
    return EngineError(INVALID_OPTION, f"option {name!r} must be {expected}, got {value!r}")


def _range(kind: str, low: float | None, high: float | None) -> str:
    if low is None and high is None:
        return kind
    if high is None:
        return f"{kind} of at least {low:g}"
    if low is None:
        return f"{kind} of at most {high:g}"
    return f"{kind} between {low:g} and {high:g}"


def _check_range(
    name: str, value: Any, number: float, kind: str, low: float | None, high: float | None
) -> None:
    if (low is not None and number < low) or (high is not None and number > high):
        raise _bad(name, value, _range(kind, low, high))


@overload
def int_option(
    options: Mapping[str, Any],
    name: str,
    default: int,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int: ...
@overload
def int_option(
    options: Mapping[str, Any],
    name: str,
    default: None = None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int | None: ...
def int_option(
    options: Mapping[str, Any],
    name: str,
    default: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int | None:
    """An integer option; whole floats (``300.0``) and integer strings (``"300"``) are accepted."""
    value = _get(options, name)
    if value is None:
        return default
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        number = int(value.strip())
    if number is None:
        raise _bad(name, value, _range("an integer", minimum, maximum))
    _check_range(name, value, number, "an integer", minimum, maximum)
    return number


@overload
def float_option(
    options: Mapping[str, Any],
    name: str,
    default: float,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float: ...
@overload
def float_option(
    options: Mapping[str, Any],
    name: str,
    default: None = None,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float | None: ...
def float_option(
    options: Mapping[str, Any],
    name: str,
    default: float | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float | None:
    """A finite number option; numeric strings (``"1.5"``) are accepted."""
    value = _get(options, name)
    if value is None:
        return default
    number: float | None = None
    if not isinstance(value, bool) and isinstance(value, int | float | str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if number is None or not math.isfinite(number):
        raise _bad(name, value, _range("a number", minimum, maximum))
    _check_range(name, value, number, "a number", minimum, maximum)
    return number


def bool_option(options: Mapping[str, Any], name: str, default: bool) -> bool:
    """``true``/``false``, also as the strings ``"true"``/``"false"`` in any case."""
    value = _get(options, name)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise _bad(name, value, "true or false")


@overload
def str_option(options: Mapping[str, Any], name: str, default: str) -> str: ...
@overload
def str_option(options: Mapping[str, Any], name: str, default: None = None) -> str | None: ...
def str_option(options: Mapping[str, Any], name: str, default: str | None = None) -> str | None:
    """A string option; a number is taken as its text (``2024`` -> ``"2024"``)."""
    value = _get(options, name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _bad(name, value, "a string")
    return str(value)


@overload
def enum_option(options: Mapping[str, Any], name: str, default: str, allowed: Sequence[str]) -> str: ...
@overload
def enum_option(
    options: Mapping[str, Any], name: str, default: None, allowed: Sequence[str]
) -> str | None: ...
def enum_option(
    options: Mapping[str, Any], name: str, default: str | None, allowed: Sequence[str]
) -> str | None:
    """One of ``allowed``, matched without case ("A4" is the paper a4, "H264" the codec h264).

    The answer is the spelling in ``allowed``, so callers compare against their own constants.
    """
    value = _get(options, name)
    if value is None:
        return default
    if isinstance(value, str):
        if value in allowed:
            return value
        matching = [choice for choice in allowed if choice.lower() == value.lower()]
        if len(matching) == 1:
            return matching[0]
    raise _bad(name, value, "one of " + ", ".join(allowed))


def dict_option(options: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = _get(options, name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _bad(name, value, "an object of key to value")
    return {str(key): item for key, item in value.items()}


def color_option(options: Mapping[str, Any], name: str, default: str) -> tuple[int, int, int]:
    """A colour as ``#rrggbb``, ``#rgb``, ``rgb(...)`` or a CSS name, as an RGB triple."""
    value = _get(options, name)
    text = default if value is None else value
    if not isinstance(text, str):
        raise _bad(name, value, "a colour such as #ff0000 or red")
    try:
        rgb = ImageColor.getrgb(text)
    except ValueError as exc:
        raise _bad(name, value, "a colour such as #ff0000 or red") from exc
    return rgb[0], rgb[1], rgb[2]
