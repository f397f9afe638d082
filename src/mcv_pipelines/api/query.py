"""Building query parameters and guarding request payloads (credentials registered as secrets)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mcv_pipelines.redact import register_secret

__all__ = ["CREDENTIAL_FIELDS", "filter_params", "include_param", "register_credentials"]

# Payload fields that hold storage credentials: registered as secrets before they are sent.
CREDENTIAL_FIELDS = frozenset(
    {"secret_access_key", "session_token", "storage_access_key", "sas_token", "private_key", "password"}
)
_PLAIN = frozenset({"per_page", "page", "alternatives"})


def include_param(values: Iterable[str] | None) -> dict[str, str]:
    """``include=a,b`` or nothing."""
    items = [v for v in (values or ()) if v]
    return {"include": ",".join(items)} if items else {}


def filter_params(**values: str | int | bool | None) -> dict[str, str]:
    """``filter[name]=value`` for each value given; paging and ``alternatives`` stay plain."""
    out: dict[str, str] = {}
    for name, value in values.items():
        if value is None:
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        out[name if name in _PLAIN else f"filter[{name}]"] = text
    return out


def register_credentials(payload: Mapping[str, Any]) -> None:
    """Register every credential value found in ``payload`` (nested too) with ``redact``."""
    for key, value in payload.items():
        if key in CREDENTIAL_FIELDS and isinstance(value, str):
            register_secret(value)
        elif isinstance(value, Mapping):
            register_credentials(value)
