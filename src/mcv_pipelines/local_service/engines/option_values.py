"""Reading engine options from a task's payload: typed, range-checked, with clear errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcv_pipelines.local_service.engines.base import EngineError

__all__ = ["bool_option", "float_option", "int_option", "str_option"]


def _get(options: Mapping[str, Any], name: str) -> Any:
    value = options.get(name)
    return None if value == "" else value


def int_option(
    options: Mapping[str, Any], name: str, low: int | None = None, high: int | None = None
) -> int | None:
    """An integer option (a whole float or digit string is accepted), checked against its range."""
    value = _get(options, name)
    if value is None:
        return None
    if isinstance(value, bool):
        raise EngineError("INVALID_OPTION", f"{name} must be an integer, got {value!r}")
    try:
        number = int(value) if not isinstance(value, float) or value.is_integer() else None
    except (TypeError, ValueError):
        number = None
    if number is None:
        raise EngineError("INVALID_OPTION", f"{name} must be an integer, got {value!r}")
    if (low is not None and number < low) or (high is not None and number > high):
        raise EngineError("INVALID_OPTION", f"{name} must be between {low} and {high}, got {number}")
    return number


def float_option(
    options: Mapping[str, Any], name: str, low: float | None = None, high: float | None = None
) -> float | None:
    """A number option, checked against its range."""
    value = _get(options, name)
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise ValueError
        number = float(value)
    except (TypeError, ValueError):
        raise EngineError("INVALID_OPTION", f"{name} must be a number, got {value!r}") from None
    if (low is not None and number < low) or (high is not None and number > high):
        raise EngineError("INVALID_OPTION", f"{name} must be between {low} and {high}, got {number:g}")
    return number


def str_option(options: Mapping[str, Any], name: str, choices: tuple[str, ...] | None = None) -> str | None:
    """A string option, checked against its possible values when it has them."""
    value = _get(options, name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise EngineError("INVALID_OPTION", f"{name} must be a string, got {value!r}")
    if choices is not None and value not in choices:
        # Case is not meaningful in these names ("A4" is the paper a4, "H264" the codec h264).
        matching = [choice for choice in choices if choice.lower() == value.lower()]
        if len(matching) != 1:
            raise EngineError("INVALID_OPTION", f"{name} must be one of {', '.join(choices)}; got {value!r}")
        value = matching[0]
    return value


def bool_option(options: Mapping[str, Any], name: str, default: bool) -> bool:
    value = options.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise EngineError("INVALID_OPTION", f"{name} must be true or false, got {value!r}")
    return value
