"""Masking of secret values in everything the tool shows.

Secrets (``secret(name)`` values, API keys, storage credentials) are registered once where they enter
the program; every output path (reporters, logs, progress, errors, reports) passes text through
``redact`` so that a registered value is shown as ``***``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

__all__ = ["MASK", "redact", "register_secret", "registered_secrets"]

MASK = "***"
_MIN_LENGTH = 3  # masking one- or two-character values would garble ordinary text
_lock = threading.Lock()
_secrets: set[str] = set()


def register_secret(value: str) -> None:
    """Remember ``value`` so that ``redact`` masks it from now on."""
    if len(value) >= _MIN_LENGTH:
        with _lock:
            _secrets.add(value)


def registered_secrets() -> Iterable[str]:
    with _lock:
        return tuple(sorted(_secrets, key=len, reverse=True))


def redact(text: str) -> str:
    """Return ``text`` with every registered secret replaced by ``***`` (longest first)."""
    for value in registered_secrets():
        if value in text:
            text = text.replace(value, MASK)
    return text
