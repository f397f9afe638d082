"""Errors of the API client: one vocabulary, translated where httpx or the service raised them.

    ServiceTrouble (mcv_pipelines.errors, exit 3)
    ├── ApiError                 the service answered with an error status
    │   ├── Unauthorized         401
    │   ├── Forbidden            403 (the key lacks a scope)
    │   ├── PaymentRequired      402 (CREDITS_EXCEEDED, PARALLEL_JOB_LIMIT_EXCEEDED)
    │   ├── NotFound             404
    │   ├── InvalidData          422, with field errors; exit 2: the data we sent is what is wrong
    │   ├── RateLimited          429 after the allowed waits
    │   └── ServerError          5xx after the allowed repeats
    ├── NetworkError             connect, read, write faults and timeouts
    ├── OutcomeUnknown           a creating POST was sent but no answer came: reconcile, do not repeat
    ├── BadResponse              not JSON, an HTML page, 200 without ``data``, truncated, too big
    ├── WaitTimeout              the caller's deadline passed while waiting for a job or task
    └── TransferError            an upload or download failed

Every message names the request (``GET /v2/jobs/abc``) and passes through ``redact``: an API key or a
storage credential never appears in one.
"""

from __future__ import annotations

from collections.abc import Mapping

from mcv_pipelines.errors import ExitCode, ServiceTrouble
from mcv_pipelines.redact import redact

__all__ = [
    "ApiError",
    "BadResponse",
    "Forbidden",
    "InvalidData",
    "NetworkError",
    "NotFound",
    "OutcomeUnknown",
    "PaymentRequired",
    "RateLimited",
    "ServerError",
    "TransferError",
    "Unauthorized",
    "WaitTimeout",
    "error_for_status",
]


def _where(method: str, path: str) -> str:
    return f"{method} {path}" if method else path


class ApiError(ServiceTrouble):
    """The service answered ``status``; ``code``/``message``/``field_errors`` come from its body."""

    hint = ""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        field_errors: Mapping[str, tuple[str, ...]] | None = None,
        method: str = "",
        path: str = "",
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.detail = message
        self.field_errors: dict[str, tuple[str, ...]] = dict(field_errors or {})
        self.method = method
        self.path = path
        self.request_id = request_id
        self.retry_after = retry_after
        text = f"{_where(method, path)}: HTTP {status}"
        if code:
            text += f" {code}"
        if message:
            text += f": {message}"
        if self.field_errors:
            text += (
                " ("
                + "; ".join(f"{name}: {' '.join(msgs)}" for name, msgs in self.field_errors.items())
                + ")"
            )
        if request_id:
            text += f" [request {request_id}]"
        if self.hint:
            text += f"; {self.hint}"
        super().__init__(redact(text))


class Unauthorized(ApiError):
    hint = "check the API key (MCV_API_KEY or the profile)"


class Forbidden(ApiError):
    hint = "the API key lacks the scope this needs"


class PaymentRequired(ApiError):
    """Account limits: out of credits, or too many parallel jobs."""


class NotFound(ApiError):
    pass


class InvalidData(ApiError):
    """The service rejected what we sent; the user's pipeline or arguments must change (exit 2)."""

    exit_code = ExitCode.INVALID


class RateLimited(ApiError):
    pass


class ServerError(ApiError):
    pass


_BY_STATUS: dict[int, type[ApiError]] = {
    401: Unauthorized,
    402: PaymentRequired,
    403: Forbidden,
    404: NotFound,
    422: InvalidData,
    429: RateLimited,
}


def error_for_status(status: int) -> type[ApiError]:
    """The ApiError class for an HTTP error status (400 and other 4xx stay plain ApiError)."""
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, ApiError)


class NetworkError(ServiceTrouble):
    """The request could not be completed: connection refused, reset, timed out."""

    def __init__(self, method: str, path: str, reason: str, *, timed_out: bool = False) -> None:
        self.method = method
        self.path = path
        self.reason = reason
        self.timed_out = timed_out  # no answer in time (as opposed to refused or reset)
        advice = (
            "; check that the service is up and answering, or raise that limit"
            if timed_out
            else ""
        )
        super().__init__(redact(f"{_where(method, path)}: network error: {reason}{advice}"))


class OutcomeUnknown(ServiceTrouble):
    """A job- or task-creating POST reached the wire but no usable answer came back.

    It may or may not have been created: the caller reconciles (for a job, list jobs by its tag)
    instead of repeating the request.
    """

    def __init__(self, method: str, path: str, reason: str, *, tag: str | None = None) -> None:
        self.method = method
        self.path = path
        self.reason = reason
        self.tag = tag
        super().__init__(
            redact(
                f"{_where(method, path)}: outcome unknown ({reason}); the request was sent and may "
                "have been carried out, so it is not repeated"
            )
        )


class BadResponse(ServiceTrouble):
    """The answer cannot be understood (not JSON, an HTML page, no ``data``, truncated, too big)."""

    def __init__(self, method: str, path: str, reason: str, *, status: int | None = None) -> None:
        self.method = method
        self.path = path
        self.reason = reason
        self.status = status
        where = _where(method, path)
        at = f" (HTTP {status})" if status is not None else ""
        super().__init__(redact(f"{where}: unusable answer{at}: {reason}"))


class WaitTimeout(ServiceTrouble):
    """The caller's deadline passed before the job or task ended."""

    def __init__(self, what: str, seconds: float) -> None:
        self.what = what
        self.seconds = seconds
        super().__init__(redact(f"{what} did not end within {seconds:g} s"))


class TransferError(ServiceTrouble):
    """An upload to a form or a download of a result file failed. ``cut``: the connection broke after
    the request began to go out, so whether the server took it is unknown."""

    def __init__(self, what: str, reason: str, *, status: int | None = None, cut: bool = False) -> None:
        self.what = what
        self.reason = reason
        self.status = status
        self.cut = cut
        super().__init__(redact(f"{what}: {reason}"))
