"""Reading the fields of the service's JSON resources with the types the models need.

Lenient where the service is (an id may be an integer, a flag a string), strict where a model cannot do
without a field (``required_str`` raises ``ModelError``). Standard library only, like the models.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "JsonObject",
    "ModelError",
    "as_object",
    "flag",
    "links_of",
    "optional_int",
    "optional_str",
    "parse_timestamp",
    "required_str",
    "str_tuple",
]

JsonObject = Mapping[str, Any]


class ModelError(ValueError):
    """A JSON value does not have the shape a model needs."""


def as_object(value: Any, what: str) -> JsonObject:
    if not isinstance(value, Mapping):
        raise ModelError(f"{what} is not an object")
    return value


def required_str(data: JsonObject, key: str, what: str) -> str:
    value = data.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # ids are integers on some resources; keep one type
    if not isinstance(value, str):
        raise ModelError(f"{what} has no string field {key!r}")
    return value


def optional_str(data: JsonObject, key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if isinstance(value, str | int | float) else None


def optional_int(data: JsonObject, key: str) -> int | None:
    value = data.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def flag(data: JsonObject, key: str) -> bool:
    value = data.get(key)
    if isinstance(value, str):
        return value.lower() in {"1", "true", "yes"}
    return bool(value)


def str_tuple(data: JsonObject, key: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list):
        return ()
    return tuple(str(item) for item in value if isinstance(item, str | int))


def links_of(data: JsonObject) -> dict[str, str]:
    value = data.get("links")
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, str)}


def parse_timestamp(value: Any) -> datetime | None:
    """ISO 8601 (with offset or ``Z``) or a Unix time -> aware datetime; anything else -> None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, tz=UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
