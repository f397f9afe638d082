"""How every kind of caller's storage rides through transient faults: one policy, one resumed read.

What is tried again: a call that did not connect, timed out or was cut, and an answer saying the
store is busy for a moment (``BUSY``, or a vendor's own busy code: each kind says which of its errors
are transient). For how long: the operator's ``caller_storage_retry`` seconds (``retry_for``) from the
call's first try. With what waits: 0.25 s, doubled each time up to 5 s. The vendors' clients retry
nothing themselves (botocore's total_max_attempts 1, azure-core's retry_total 0, the Google upload's
retry None, keystoneauth's and swiftclient's retries 0), so no wait is ever multiplied by another;
google-auth's token grant is the one call left to its client's own few tries.

A read cut mid-object is opened again at the byte reached (``resumed``), of the same version of the
object (each kind pins it: a generation, an ETag), while the same time allows since the last byte.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from mcv_pipelines.redact import redact
from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors

__all__ = ["BUSY", "Backoff", "Busy", "guarded", "not_busy", "resumed"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")
_R = TypeVar("_R", bound=Any)
BUSY = frozenset({408, 429, 500, 502, 503, 504})  # answers worth another try, whatever the store
_FIRST_WAIT, _LONGEST_WAIT = 0.25, 5.0


class Busy(Exception):
    """An answer worth asking again (``BUSY``), raised so that ``guarded`` tries again; when the time
    is up, the last one (``answer``, read) is what it returns for the kind to judge."""

    def __init__(self, answer: Any, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.answer = answer


def not_busy(answer: _R) -> _R:
    """An HTTP answer (a requests Response) as it is, or Busy raised for one of ``BUSY``, its body
    read first so that it can still be judged."""
    if answer.status_code in BUSY:
        answer.content  # noqa: B018 - read now: the last answer is judged after its connection is reused
        raise Busy(answer, answer.status_code)
    return answer


class Backoff:
    """The waits between tries of one call, for up to ``retry_for`` seconds from its creation."""

    def __init__(self, retry_for: float) -> None:
        self._deadline = time.monotonic() + retry_for
        self._wait = _FIRST_WAIT

    def pause(self, why: str = "") -> bool:
        """Wait before the next try and say True, or say False when the time is up (no wait)."""
        if time.monotonic() + self._wait >= self._deadline:
            return False
        if why:
            log.warning("%s", redact(f"{why}; trying again in {self._wait:.2f} s"))
        time.sleep(self._wait)
        self._wait = min(self._wait * 2, _LONGEST_WAIT)
        return True


def guarded(
    what: str,
    call: Callable[[], _T],
    retry_for: float,
    transient: Callable[[Exception], bool],
    secrets: errors.Secrets,
    whose: str,
    host: str,
    unconnected: tuple[type[Exception], ...],
) -> _T:
    """``call()``, again while it raises what ``transient`` accepts and time allows; the last answer
    when it was still Busy. The failures every kind meets alike are made the task's: the guard's
    refusal of ``whose`` (an address: "the Azure Blob endpoint"), a name that does not resolve, and
    ``host`` (as a message names it) that never answered (``unconnected``), secrets hidden; any other
    exception is raised as it is (each kind maps it onto errors.py's codes)."""
    backoff = Backoff(retry_for)
    try:
        while True:
            try:
                return call()
            except Exception as exc:
                if not transient(exc) or not backoff.pause(
                    secrets.hide(f"could not {what} ({type(exc).__name__})")
                ):
                    raise
    except Busy as exc:
        last: _T = exc.answer
        return last
    except ForbiddenAddress as exc:
        raise errors.forbidden_address(exc, whose) from None
    except UnresolvedHost as exc:
        raise TaskFailed(errors.UNREACHABLE, f"Could not reach {exc.host} ({whose}): {exc.reason}.") from None
    except unconnected as exc:
        raise secrets.failed(errors.UNREACHABLE, f"Could not reach {host} to {what}: {exc}") from None


def resumed(
    open_at: Callable[[int], Iterator[bytes]],
    first: Iterator[bytes],
    cut: Callable[[Exception], bool],
    retry_for: float,
    give_up: Callable[[Exception], Exception],
) -> Iterator[bytes]:
    """The chunks of ``first`` (an object read from its start), then, whenever the read is ``cut``,
    of ``open_at(position)`` from the byte reached; ``give_up(fault)`` is raised when time is up."""
    position, chunks = 0, first
    backoff, since = Backoff(retry_for), 0
    try:
        while True:
            try:
                for chunk in chunks:
                    position += len(chunk)
                    yield chunk
                return
            except Exception as exc:
                _close(chunks)
                if position > since:  # bytes came since the last cut: the time starts again
                    backoff, since = Backoff(retry_for), position
                if not cut(exc) or not backoff.pause():
                    if cut(exc):
                        raise give_up(exc) from None
                    raise
                chunks = open_at(position)
    finally:
        _close(chunks)


def _close(chunks: Iterator[bytes]) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()
