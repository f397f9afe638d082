"""Masking of secret values in everything the tool shows.

Secrets (``secret(name)`` values, API keys, storage credentials) are registered once where they enter
the program; every output path (reporters, logs, progress, errors, reports) passes text through
``redact`` so that a registered value is shown as ``***``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator

__all__ = [
    "MASK",
    "forgetting_new_secrets",
    "not_registering",
    "redact",
    "register_secret",
    "registered_secrets",
]

MASK = "***"
_MIN_LENGTH = 3  # masking one- or two-character values would garble ordinary text
_lock = threading.Lock()
_secrets: set[str] = set()
_paused = threading.local()


def register_secret(value: str) -> None:
    """Remember ``value`` so that ``redact`` masks it from now on."""
    if len(value) >= _MIN_LENGTH and not getattr(_paused, "on", False):
        with _lock:
            _secrets.add(value)


@contextlib.contextmanager
def not_registering() -> Iterator[None]:
    """In this thread, for the block, ``register_secret`` remembers nothing.

    For the service checking a pipeline someone posted (the console's checker): its secret values
    are that caller's, not this process's, and must not change what the service's own log masks.
    """
    before = getattr(_paused, "on", False)
    _paused.on = True
    try:
        yield
    finally:
        _paused.on = before


@contextlib.contextmanager
def forgetting_new_secrets() -> Iterator[None]:
    """Secrets registered (in any thread) while the block runs are forgotten when it ends.

    For a process that checks many unrelated pipelines one after another (a test session's generated
    ones): a value one of them declared secret, say "POST", must not mask that word in the next.
    """
    with _lock:
        before = set(_secrets)
    try:
        yield
    finally:
        with _lock:
            _secrets.intersection_update(before)


def registered_secrets() -> Iterable[str]:
    with _lock:
        return tuple(sorted(_secrets, key=len, reverse=True))


def redact(text: str) -> str:
    """Return ``text`` with every registered secret replaced by ``***`` (longest first)."""
    for value in registered_secrets():
        if value in text:
            text = text.replace(value, MASK)
    return text
