"""The HTTP calls to one Azure storage account: signed, guarded, retried, and their errors mapped.

The account's address comes from the operator's endpoint template (``{account}`` replaced by the
task's account name), never from the task. Still, on a served instance its host is checked by the
address guard like any address a task leads to, and requests go to the checked address (a name that
answers otherwise the second time gets nowhere). httpx reads no proxy or certificate variable of the
environment here (trust_env off), and redirects are not followed.

Transient faults (no connection, a timeout, a 5xx, ServerBusy) are tried again with growing waits
for ``retry_for`` seconds; Azure's error answers (XML with a ``<Code>``) become errors.py's codes.
"""

from __future__ import annotations

import logging
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from urllib.parse import quote, urlsplit

import httpx

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost, UrlGuard
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.azure_signing import API_VERSION, Credential, request_date

__all__ = ["DEFAULT_ENDPOINT", "AzureAccount", "endpoint_problem", "parse_xml"]

log = logging.getLogger(__name__)
DEFAULT_ENDPOINT = "https://{account}.blob.core.windows.net"
_ACCOUNT = re.compile(r"^[a-z0-9]{3,24}$")  # Azure's rule for account names
_DENIED = frozenset(
    {
        "AuthenticationFailed",
        "AuthorizationFailure",
        "AuthorizationPermissionMismatch",
        "AuthorizationResourceTypeMismatch",
        "AuthorizationServiceMismatch",
        "AuthorizationSourceIPMismatch",
        "AuthorizationProtocolMismatch",
        "InsufficientAccountPermissions",
        "AccountIsDisabled",
        "InvalidAuthenticationInfo",
    }
)
# No such account (Azurite says so; Azure's own names simply do not resolve) or container.
_NO_CONTAINER = frozenset({"ContainerNotFound", "ResourceNotFound", "ContainerBeingDeleted"})
_NO_BLOB = frozenset({"BlobNotFound"})
_BUSY = frozenset({"ServerBusy", "InternalError", "OperationTimedOut"})
_TRANSIENT = (httpx.TransportError,)  # connect, read and write errors and timeouts, cut connections
_FIRST_WAIT, _LONGEST_WAIT = 0.25, 5.0
_ERROR_BODY = 64 * 1024  # read of an error answer: its Code and Message are near the start


def parse_xml(body: bytes) -> ET.Element | None:
    """An answer's XML document, None when it is none. Azure's answers have no DTD: one that has is
    refused unread, so no entity is ever expanded (the billion-laughs kind of answer) or fetched."""
    if b"<!DOCTYPE" in body.upper() or b"<!ENTITY" in body.upper() or not body.strip().startswith(b"<"):
        return None
    try:
        return ET.fromstring(body)  # noqa: S314 - no DTD (checked above), so no entity to expand
    except ET.ParseError:
        return None


def endpoint_problem(template: str) -> str | None:
    """Why an operator's endpoint template cannot be used, or None."""
    parts = urlsplit(template.replace("{account}", "account"))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "expected an http(s) URL such as https://{account}.blob.core.windows.net"
    if parts.query or parts.fragment or parts.username or parts.password:
        return "expected no query, fragment or credentials in the URL"
    return None


class AzureAccount:
    """One storage account, as one task's credential sees it; ``where`` names it in messages."""

    def __init__(
        self,
        account: str,
        credential: Credential,
        *,
        endpoint: str,
        guard: UrlGuard | None,
        retry_for: float,
        secrets: errors.Secrets,
        pool: int = 4,
    ) -> None:
        if not _ACCOUNT.match(account):
            raise TaskFailed(
                "INVALID_TASK",
                f"The storage account {account!r} is not an Azure account name (3 to 24 lowercase "
                "letters and digits).",
            )
        self.account, self.credential = account, credential
        self.base = (endpoint or DEFAULT_ENDPOINT).replace("{account}", account).rstrip("/")
        parts = urlsplit(self.base)
        self.host = parts.netloc
        self.retry_for, self.secrets = retry_for, secrets
        self._connect_to = parts.hostname or ""
        self._extensions: dict[str, str] = {}
        if guard is not None:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            try:
                self._connect_to = guard.addresses(parts.hostname or "", port)[0]
            except ForbiddenAddress as exc:
                raise errors.forbidden_address(exc, "the Azure Blob endpoint") from None
            except UnresolvedHost as exc:
                raise TaskFailed(
                    errors.UNREACHABLE,
                    f"Could not reach the Azure storage account at {self.host}: {exc.reason}.",
                ) from None
            if parts.scheme == "https":  # the certificate is still checked for the name
                self._extensions["sni_hostname"] = parts.hostname or ""
        self._client = httpx.Client(
            timeout=httpx.Timeout(60.0, connect=10.0),
            trust_env=False,
            follow_redirects=False,
            limits=httpx.Limits(max_connections=max(pool, 4) * 2),
        )

    def url(self, container: str, blob: str = "") -> str:
        """A container's or blob's URL, as a user writes it (no credential in it)."""
        parts = urlsplit(self.base)
        return f"{parts.scheme}://{parts.netloc}{self._path(container, blob)}"

    def _path(self, container: str, blob: str) -> str:
        path = f"{urlsplit(self.base).path}/{quote(container, safe='')}"
        return f"{path}/{'/'.join(_segment(part) for part in blob.split('/'))}" if blob else path

    def send(
        self,
        method: str,
        where: str,
        what: str,
        container: str,
        blob: str = "",
        *,
        query: Sequence[tuple[str, str]] = (),
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        stream: bool = False,
    ) -> httpx.Response:
        """The answer to a request, a success (2xx, or 304/206); ``where`` and ``what`` name the
        container and the call in messages ("read https://.../a.png"). With ``stream`` the caller
        reads and closes the answer."""
        deadline = time.monotonic() + self.retry_for
        wait = _FIRST_WAIT
        while True:
            request = self._request(method, container, blob, query, headers or {}, content)
            try:
                response = self._client.send(request, stream=stream)
            except _TRANSIENT as exc:
                if time.monotonic() + wait >= deadline:
                    raise self.secrets.failed(
                        errors.UNREACHABLE, f"Could not reach the {where} to {what}: {_reason(exc)}"
                    ) from None
                log.warning("%s", self.secrets.hide(f"could not {what} ({_reason(exc)}); trying again"))
            else:
                if response.status_code < 400:
                    return response
                code, message = _error_of(response)
                if response.status_code < 500 and code not in _BUSY:
                    raise self._refusal(response.status_code, code, message, where, what)
                if time.monotonic() + wait >= deadline:
                    raise self.secrets.failed(
                        errors.FAILED, f"The {where} failed to {what}: {code or response.status_code}."
                    )
                log.warning("%s", self.secrets.hide(f"the {where} was busy to {what} ({code}); trying again"))
            time.sleep(wait)
            wait = min(wait * 2, _LONGEST_WAIT)

    def _request(
        self,
        method: str,
        container: str,
        blob: str,
        query: Sequence[tuple[str, str]],
        extra: Mapping[str, str],
        content: bytes | None,
    ) -> httpx.Request:
        path = self._path(container, blob)
        headers = {"x-ms-date": request_date(), "x-ms-version": API_VERSION, **extra}
        if content is not None or method in ("PUT", "POST"):
            headers["Content-Length"] = str(len(content or b""))
        authorization = self.credential.authorization(method, path, query, headers)
        if authorization is not None:
            headers["Authorization"] = authorization
        headers["Host"] = self.host
        parts = urlsplit(self.base)
        netloc = self._connect_to if ":" not in self._connect_to else f"[{self._connect_to}]"
        if parts.port:
            netloc += f":{parts.port}"
        qs = self.credential.query(query)
        url = f"{parts.scheme}://{netloc}{path}" + (f"?{qs}" if qs else "")
        return self._client.build_request(
            method, url, headers=headers, content=content, extensions=self._extensions or None
        )

    def _refusal(self, status: int, code: str, message: str, where: str, what: str) -> TaskFailed:
        if code in _DENIED or status in (401, 403):
            return self.secrets.failed(
                errors.ACCESS_DENIED,
                f"The {where} refused the credentials to {what} ({code or status}): check "
                "storage_access_key or sas_token (its permissions, expiry and resource).",
            )
        if code in _NO_CONTAINER:
            return self.secrets.failed(errors.BUCKET_NOT_FOUND, f"There is no {where} ({code}).")
        if code in _NO_BLOB or (status == 404 and not code):
            return self.secrets.failed(
                errors.FILE_NOT_FOUND, f"Could not {what}: no such blob in the {where}."
            )
        detail = f": {message}" if message else ""
        return self.secrets.failed(errors.FAILED, f"The {where} refused to {what}: {code or status}{detail}")

    def close(self) -> None:
        self._client.close()


def _segment(part: str) -> str:
    """A blob name's path segment as sent: "." and ".." are legal in a name, and encoded so that no
    URL handling removes them (which would name another blob, or another container)."""
    return part.replace(".", "%2E") if part in (".", "..") else quote(part, safe="")


def _error_of(response: httpx.Response) -> tuple[str, str]:
    """(Code, first line of Message) of an error answer; the header's code when the body has none."""
    code = response.headers.get("x-ms-error-code", "")
    body = b""
    try:
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) >= _ERROR_BODY:
                break
    except httpx.HTTPError:
        pass
    finally:
        response.close()
    root = parse_xml(body)
    if root is not None:
        code = root.findtext("Code") or code
        lines = (root.findtext("Message") or "").strip().splitlines()
        return code, lines[0] if lines else ""
    return code, ""


def _reason(exc: httpx.TransportError) -> str:
    return str(exc) or type(exc).__name__
