"""The errors the service answers with, each rendered as the API's JSON error body."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["ApiError", "InvalidData", "SyncWaitExceeded", "not_found"]


class ApiError(Exception):
    """An answer other than success: ``{message, code}`` (and ``errors`` for 422)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        errors: Mapping[str, Sequence[str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = dict(headers or {})

    def body(self) -> dict[str, object]:
        body: dict[str, object] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = {key: list(value) for key, value in self.errors.items()}
        return body


class InvalidData(ApiError):
    """422 with per-field messages, as the spec shows."""

    def __init__(self, errors: Mapping[str, Sequence[str]]) -> None:
        super().__init__(422, "INVALID_DATA", "The given data was invalid.", errors=errors)


class SyncWaitExceeded(ApiError):
    """409: a sync request waited the longest it may and the job or task has not ended.

    409 (its state conflicts with an answer that needs it ended), as TASK_NOT_WAITING is: not 408,
    which some clients repeat by themselves (a repeated POST /sync/v2/jobs would be a second job),
    nor 5xx, which says the service failed.

    The body is the error plus ``data``, the job or task as it is now (with its upload form, should
    it wait for one), so the caller can act on it and ask again.
    """

    def __init__(self, message: str, data: Mapping[str, object]) -> None:
        super().__init__(409, "SYNC_WAIT_TIMEOUT", message)
        self.data = dict(data)

    def body(self) -> dict[str, object]:
        return {**super().body(), "data": self.data}


def not_found(what: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"{what} not found")
