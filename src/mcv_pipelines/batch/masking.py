"""Masking of registered secrets inside JSON-like values (params, outputs, errors) before they are stored
or shown. Masking each string before encoding catches secrets JSON would escape (quotes, non-ASCII)."""

from __future__ import annotations

from typing import Any

from mcv_pipelines.redact import redact

__all__ = ["mask"]


def mask(value: Any) -> Any:
    """A copy of ``value`` with every registered secret in its strings (keys too) shown as ``***``."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(name)): mask(item) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [mask(item) for item in value]
    return value
