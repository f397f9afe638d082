"""Waiting for an event in a test that must run in real time (issue 30).

A test waits for what it expects to happen, with a generous bound that only a hang reaches, and names
what it waited for when the bound is reached. It never asserts how long something took (speed belongs in
bench/) and never sleeps a fixed time before concluding that nothing else happened: it proves that with
an event that must come later (a marker request, a flushed queue).

Example::

    wait_until(lambda: len(receiver.requests) == 2, what="the two webhook deliveries")
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["GENEROUS", "wait_until"]

T = TypeVar("T")

# Seconds: the bound for something expected within a second or so, with room for a loaded CI machine.
GENEROUS = 30.0


def wait_until(
    condition: Callable[[], T], *, what: str, timeout: float = GENEROUS, interval: float = 0.02
) -> T:
    """Call ``condition`` until it returns a true value, and return that value.

    Fails with ``what`` (the event waited for) once ``timeout`` seconds passed without it.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}; it did not happen")
        time.sleep(interval)
