"""Authorizing a request to Azure Blob Storage: Shared Key (an HMAC-SHA256 of the canonical request,
keyed by the account's key) or a SAS token (a signed query string the caller already holds).

The canonical request follows "Authorize with Shared Key" of the Azure Storage REST reference: the verb,
eleven standard headers, every ``x-ms-*`` header lowercased and sorted, and the resource as
``/ACCOUNT/URL-PATH`` with each query parameter on its own line. Path-style emulator URLs
(``http://127.0.0.1:10000/ACCOUNT/container``) sign the whole URL path, account included, as the SDKs do.

Example::

    credential = credential_of("devstoreaccount1", key="Eby8vdM0...", sas="")
    headers["Authorization"] = credential.authorization("GET", "/media", query, headers)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import formatdate
from urllib.parse import quote, urlencode

__all__ = ["API_VERSION", "BadCredential", "Credential", "credential_of", "request_date"]

API_VERSION = "2023-11-03"  # the x-ms-version of every request: a version Azure and Azurite both serve
# The standard headers of the string to sign, in its order (Date stays empty: x-ms-date is signed).
_SIGNED = (
    "content-encoding",
    "content-language",
    "content-length",
    "content-md5",
    "content-type",
    "date",
    "if-modified-since",
    "if-match",
    "if-none-match",
    "if-unmodified-since",
    "range",
)


def request_date() -> str:
    """The x-ms-date of a request sent now (RFC 1123, GMT)."""
    return formatdate(usegmt=True)


@dataclass(frozen=True)
class Credential:
    """How one account's requests are authorized: ``key`` (the decoded account key) or ``sas``
    (the token's query string as the caller gave it, without ``?``, added to every request)."""

    account: str
    key: bytes = field(default=b"", repr=False)
    sas: str = field(default="", repr=False)

    def query(self, own: Sequence[tuple[str, str]]) -> str:
        """A request's query string: its own parameters, then the SAS token as it was given (its
        signature is already encoded; decoding and encoding it again could change a ``+``)."""
        parts = [urlencode(own, quote_via=quote)] if own else []
        return "&".join([*parts, self.sas] if self.sas else parts)

    def authorization(
        self, method: str, path: str, query: Sequence[tuple[str, str]], headers: Mapping[str, str]
    ) -> str | None:
        """The Authorization header of a request (None with a SAS token: the query carries it).

        ``path`` is the URL path as sent (percent-encoded); ``headers`` every header of the request.
        """
        if not self.key:
            return None
        lower = {name.lower(): value for name, value in headers.items()}
        if lower.get("content-length") == "0":
            lower["content-length"] = ""  # from version 2015-02-21 a zero length signs as empty
        lines = [method.upper(), *(lower.get(name, "") for name in _SIGNED)]
        canonical_headers = "".join(
            f"{name}:{lower[name].strip()}\n" for name in sorted(lower) if name.startswith("x-ms-")
        )
        signed = "\n".join(lines) + "\n" + canonical_headers + self._resource(path, query)
        digest = hmac.new(self.key, signed.encode("utf-8"), hashlib.sha256).digest()
        return f"SharedKey {self.account}:{base64.b64encode(digest).decode('ascii')}"

    def _resource(self, path: str, query: Sequence[tuple[str, str]]) -> str:
        values: dict[str, list[str]] = {}
        for name, value in query:
            values.setdefault(name.lower(), []).append(value)
        params = "".join(f"\n{name}:{','.join(sorted(values[name]))}" for name in sorted(values))
        return f"/{self.account}{path or '/'}{params}"


class BadCredential(ValueError):
    """The task's key is not an account key (not base64): said without showing it."""


def credential_of(account: str, key: str, sas: str) -> Credential:
    """The credential a task gives: its account key when it has one, else its SAS token (with or
    without the leading ``?``). Raises BadCredential for a key that is not base64."""
    if key:
        try:
            decoded = base64.b64decode(key.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise BadCredential("storage_access_key is not an account key (base64)") from None
        return Credential(account, key=decoded)
    return Credential(account, sas=sas.strip().removeprefix("?"))
