"""A Google service account's access token, from the task's ``client_email`` and ``private_key`` alone.

The grant is OAuth2's JWT bearer (RFC 7523), as Google's own libraries make it for a service account:
a JWT naming the account (iss), the storage scope and the token endpoint (aud), signed here with the
account's RSA key (RS256), is posted to the token endpoint, which answers an access token for an hour.
No credential of the machine (GOOGLE_APPLICATION_CREDENTIALS, gcloud's files, a metadata server) is
ever read: a worker serving strangers must not lend them its own identity.

Example::

    key = private_key_of(payload["private_key"])
    jwt = assertion("svc@project.iam.gserviceaccount.com", key, TOKEN_URI, now=time.time())
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable

import httpx
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors

__all__ = ["GRANT", "SCOPE", "TOKEN_URI", "TokenSource", "assertion", "private_key_of"]

TOKEN_URI = "https://oauth2.googleapis.com/token"  # noqa: S105 (an address, no secret)
SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"
GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_LIFETIME = 3600  # the longest a Google token endpoint grants
_EARLY = 300  # a token this close to its end is replaced before a call
Post = Callable[[str, Callable[[], httpx.Response]], httpx.Response]  # (what, send) -> the answer


def private_key_of(text: str) -> rsa.RSAPrivateKey:
    """The RSA key of a service account's PEM (PKCS#8 as in its JSON key file, or PKCS#1), also when
    its line breaks came as the two characters backslash and n (as some SDKs and environments send
    them). ValueError says what is wrong without quoting the key."""
    pem = text.replace("\\n", "\n").strip()
    try:
        key = serialization.load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise ValueError(
            "the private_key is not a PEM private key (-----BEGIN PRIVATE KEY----- ..., as in the "
            "service account's JSON key file)"
        ) from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError("the private_key is not an RSA key (a service account's key is RSA)")
    return key


def _b64(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def assertion(client_email: str, key: rsa.RSAPrivateKey, token_uri: str, now: float) -> str:
    """The signed JWT that asks ``token_uri`` for a token of ``client_email`` with the storage scope."""
    header = {"alg": "RS256", "typ": "JWT"}
    issued = int(now)
    claims = {"iss": client_email, "scope": SCOPE, "aud": token_uri, "iat": issued, "exp": issued + _LIFETIME}
    signed = b".".join(_b64(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims))
    signature = key.sign(signed, padding.PKCS1v15(), hashes.SHA256())
    return (signed + b"." + _b64(signature)).decode()


class TokenSource:
    """The task's access token: asked for once, and again only when it is about to end (a transfer of
    many gigabytes can outlive one). Thread-safe: a task's files move a few at a time."""

    def __init__(
        self,
        client: httpx.Client,
        client_email: str,
        key: rsa.RSAPrivateKey,
        token_uri: str,
        post: Post,
        secrets: errors.Secrets,
    ) -> None:
        self._client, self._email, self._key = client, client_email, key
        self._uri, self._post, self._secrets = token_uri, post, secrets
        self._lock = threading.Lock()
        self._token, self._ends = "", 0.0
        self.issued: list[str] = []  # every token received, hidden from messages like the key

    def token(self) -> str:
        with self._lock:
            if not self._token or time.monotonic() > self._ends - _EARLY:
                self._token, lifetime = self._ask()
                self._ends = time.monotonic() + lifetime
                self.issued.append(self._token)
            return self._token

    def _ask(self) -> tuple[str, float]:
        jwt = assertion(self._email, self._key, self._uri, time.time())
        form = {"grant_type": GRANT, "assertion": jwt}
        answer = self._post("get an access token", lambda: self._client.post(self._uri, data=form))
        try:
            body = answer.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        if answer.status_code in (400, 401, 403):
            reason = ": ".join(str(body[k]) for k in ("error", "error_description") if body.get(k))
            raise self._secrets.failed(
                errors.ACCESS_DENIED,
                f"Google's token endpoint refused the service account {self._email!r}"
                f"{f' ({reason})' if reason else ''}: check client_email and private_key, and that the "
                "key is not deleted or disabled.",
            )
        token = body.get("access_token")
        if answer.status_code != 200 or not isinstance(token, str) or not token:
            raise TaskFailed(
                errors.FAILED,
                f"The token endpoint {httpx.URL(self._uri).host} answered HTTP {answer.status_code} "
                "without an access token.",
            )
        lifetime = body.get("expires_in")
        return token, float(lifetime) if isinstance(lifetime, int | float) and lifetime > 0 else _LIFETIME
