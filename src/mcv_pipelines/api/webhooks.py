"""Webhook signatures: HMAC-SHA256 of the raw request body, keyed with the webhook's signing secret.

Always verify the bytes as received; re-serialised JSON differs in spacing and key order, so a
signature over it fails (or, worse, a check on parsed data lets a tampered body through).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

__all__ = ["SIGNATURE_HEADERS", "sign", "signature_from_headers", "verify"]

# The spec's name first, then the public instance's.
SIGNATURE_HEADERS = ("Service-Signature", "CloudConvert-Signature")


def _key(secret: str | bytes) -> bytes:
    return secret.encode("utf-8") if isinstance(secret, str) else secret


def sign(body: bytes, secret: str | bytes) -> str:
    """The lowercase hex HMAC-SHA256 of ``body``."""
    return hmac.new(_key(secret), body, hashlib.sha256).hexdigest()


def verify(body: bytes, signature: str | None, secret: str | bytes) -> bool:
    """True when ``signature`` is the signature of exactly these bytes (constant-time comparison)."""
    if not signature or not secret:
        return False
    expected = sign(body, secret).encode("ascii")
    given = signature.strip().lower().encode("ascii", "replace")
    return hmac.compare_digest(expected, given)


def signature_from_headers(headers: Mapping[str, str]) -> str | None:
    """The signature from either header name, matched case-insensitively."""
    lowered = {k.lower(): v for k, v in headers.items()}
    for name in SIGNATURE_HEADERS:
        value = lowered.get(name.lower())
        if value:
            return value
    return None
