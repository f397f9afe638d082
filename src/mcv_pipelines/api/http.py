"""Sending one API request: pacing, repeats, error translation and reading the JSON answer.

Requests are of three kinds. ``IDEMPOTENT`` ones (GET, DELETE, cancel) are repeated after 5xx answers and
network faults. ``CREATE`` ones (a POST that makes a job, task or webhook) are repeated only when they
surely did not reach the service: a refused connection or a 429; any other fault after sending raises
``OutcomeUnknown``. ``WAIT`` is a blocking GET on the sync host, repeated by its caller until a deadline.
"""

from __future__ import annotations

import asyncio
import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from mcv_pipelines.api.errors import (
    ApiError,
    BadResponse,
    NetworkError,
    OutcomeUnknown,
    RateLimited,
    error_for_status,
)
from mcv_pipelines.api.pacer import Pacer
from mcv_pipelines.api.retry import RetryPolicy, parse_retry_after

__all__ = ["MAX_BODY_BYTES", "Kind", "Requester"]

MAX_BODY_BYTES = 64 * 1024 * 1024  # a bigger answer is a broken proxy, not a page of tasks
_USER_AGENT = "mcv-pipelines"


class Kind(enum.Enum):
    IDEMPOTENT = "idempotent"
    CREATE = "create"
    WAIT = "wait"


# Faults that happen before any byte of the request left: always safe to repeat.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol)
_NETWORK = (httpx.TransportError,)


@dataclass
class _Answer:
    status: int
    headers: httpx.Headers
    body: bytes


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _describe(exc: BaseException, timeout: httpx.Timeout | None = None) -> str:
    if timeout is not None and isinstance(exc, httpx.TimeoutException):
        # Say which limit it was and the flag that sets it (issue 14: "ReadTimeout" alone said neither).
        if isinstance(exc, httpx.ConnectTimeout):
            return f"could not connect within {timeout.connect:g} s (--connect-timeout, MCV_CONNECT_TIMEOUT)"
        if isinstance(exc, httpx.ReadTimeout):
            return f"no answer within {timeout.read:g} s (--read-timeout, MCV_READ_TIMEOUT)"
        if isinstance(exc, httpx.WriteTimeout):
            return f"could not send the request within {timeout.write:g} s (--read-timeout, MCV_READ_TIMEOUT)"
        return f"no free connection within {timeout.pool:g} s"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Requester:
    """Sends requests for one client; shared state (pacer) lives here."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        api_key: str | None,
        retry: RetryPolicy,
        pacer: Pacer,
        timeout: httpx.Timeout,
    ) -> None:
        self.http = http
        self._api_key = api_key
        self.retry = retry
        self.pacer = pacer
        self.timeout = timeout
        # Requests sent and not yet answered ("POST http://host/v2/jobs"), so that a command cut short
        # by its --timeout can say what it was waiting for.
        self.in_flight: list[str] = []
        self.cut_short: list[str] = []  # those given up on when the caller was cancelled (its deadline)

    def _headers(self, has_body: bool) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": _USER_AGENT}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        if has_body:
            headers["Content-Type"] = "application/json"
        return headers

    async def request(
        self,
        method: str,
        url: str,
        *,
        kind: Kind,
        params: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
        http_timeout: httpx.Timeout | None = None,
    ) -> Any:
        """Send and return the parsed JSON body (None for 204); raise the client's errors."""
        content = json.dumps(body).encode() if body is not None else None
        first = self.retry.clock()
        faults = 0
        limited = 0
        path = _path_of(url)
        while True:
            await self.pacer.acquire()
            waiting = f"{method} {url.split('?', 1)[0]}"
            self.in_flight.append(waiting)
            try:
                limits = http_timeout or self.timeout
                answer = await self._send(method, url, params, content, limits)
            except asyncio.CancelledError:
                self.cut_short.append(waiting)
                raise
            except _NOT_SENT as exc:
                error: Exception = NetworkError(
                    method, path, _describe(exc, limits), timed_out=isinstance(exc, httpx.TimeoutException)
                )
                error.__cause__ = exc
                retryable = kind is not Kind.WAIT  # the sync wait repeats itself, up to its deadline
            except _TooBig as exc:
                raise BadResponse(method, path, str(exc)) from exc
            except _NETWORK as exc:
                if kind is Kind.CREATE:
                    raise OutcomeUnknown(method, path, _describe(exc, limits)) from exc
                error = NetworkError(
                    method, path, _describe(exc, limits), timed_out=isinstance(exc, httpx.TimeoutException)
                )
                error.__cause__ = exc
                retryable = kind is Kind.IDEMPOTENT
            except httpx.HTTPError as exc:  # undecodable body, too many redirects: an answer we cannot use
                if kind is Kind.CREATE:
                    raise OutcomeUnknown(method, path, _describe(exc)) from exc
                raise BadResponse(method, path, _describe(exc)) from exc
            except httpx.InvalidURL as exc:
                raise BadResponse(method, path, f"cannot build the request URL: {exc}") from exc
            else:
                retry_after = parse_retry_after(answer.headers.get("retry-after"))
                self.pacer.observe(answer.headers, retry_after if answer.status == 429 else None)
                if answer.status < 400:
                    return self._parse(method, path, answer)
                error = self._error(method, path, answer, retry_after)
                if isinstance(error, RateLimited):
                    limited += 1
                    wait = retry_after if retry_after is not None else self.retry.default_retry_after
                    if limited >= self.retry.rate_limited_attempts or wait > self.retry.max_retry_after:
                        raise error
                    if retry_after is None:  # the pacer holds everyone back by Retry-After only
                        self.pacer.observe({}, wait)
                    continue
                if answer.status < 500:
                    raise error
                if kind is Kind.CREATE:
                    raise OutcomeUnknown(method, path, f"HTTP {answer.status} after the request was sent")
                retryable = kind is Kind.IDEMPOTENT
            finally:
                self.in_flight.remove(waiting)
            faults += 1
            elapsed = self.retry.clock() - first
            if not retryable or faults >= self.retry.attempts or elapsed >= self.retry.max_elapsed:
                raise error
            delay = min(self.retry.backoff(faults), max(0.0, self.retry.max_elapsed - elapsed))
            await self.retry.sleep(delay)

    async def _send(
        self,
        method: str,
        url: str,
        params: Mapping[str, str] | None,
        content: bytes | None,
        http_timeout: httpx.Timeout,
    ) -> _Answer:
        request = self.http.build_request(
            method,
            url,
            params=params,
            content=content,
            headers=self._headers(content is not None),
            timeout=http_timeout,
        )
        response = await self.http.send(request, stream=True, follow_redirects=True)
        try:
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise _TooBig(size)
                chunks.append(chunk)
        finally:
            await response.aclose()
        return _Answer(response.status_code, response.headers, b"".join(chunks))

    def _parse(self, method: str, path: str, answer: _Answer) -> Any:
        if answer.status == 204 or not answer.body.strip():
            if answer.status == 204:
                return None
            raise BadResponse(method, path, "empty body where JSON was expected", status=answer.status)
        return _json(method, path, answer)

    def _error(self, method: str, path: str, answer: _Answer, retry_after: float | None) -> ApiError:
        cls = error_for_status(answer.status)
        message = ""
        code: str | None = None
        fields: dict[str, tuple[str, ...]] = {}
        try:
            data = json.loads(answer.body) if answer.body.strip() else {}
        except (ValueError, UnicodeDecodeError):
            data = {}
            message = _snippet(answer)
        if isinstance(data, Mapping):
            message = str(data.get("message") or message or "")
            raw_code = data.get("code")
            code = str(raw_code) if raw_code is not None else None
            errors = data.get("errors")
            if isinstance(errors, Mapping):
                for name, msgs in errors.items():
                    items = msgs if isinstance(msgs, list) else [msgs]
                    fields[str(name)] = tuple(str(m) for m in items)
        request_id = answer.headers.get("x-request-id") or answer.headers.get("request-id")
        return cls(
            answer.status,
            message or "no message",
            code=code,
            field_errors=fields,
            method=method,
            path=path,
            request_id=request_id,
            retry_after=retry_after,
        )


class _TooBig(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(f"answer larger than {MAX_BODY_BYTES} bytes")
        self.size = size


def _snippet(answer: _Answer) -> str:
    kind = answer.headers.get("content-type", "untyped").split(";")[0].strip() or "untyped"
    text = answer.body[:80].decode("utf-8", "replace").replace("\n", " ").strip()
    return f"{kind} body, not JSON ({text!r}...)"


def _json(method: str, path: str, answer: _Answer) -> Any:
    try:
        return json.loads(answer.body)
    except UnicodeDecodeError as exc:
        raise BadResponse(method, path, "the body is not UTF-8 text", status=answer.status) from exc
    except ValueError as exc:
        ctype = answer.headers.get("content-type", "")
        reason = f"truncated or malformed JSON ({exc})" if "json" in ctype.lower() else _snippet(answer)
        raise BadResponse(method, path, reason, status=answer.status) from exc
