"""HMAC signatures for the service's own URLs: upload forms and export download links."""

from __future__ import annotations

import hashlib
import hmac
import time
from urllib.parse import quote, urlencode

__all__ = ["file_url", "sign", "upload_form", "valid_signature"]


def sign(key: bytes, *parts: object) -> str:
    message = "\n".join(str(part) for part in parts).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def valid_signature(key: bytes, signature: str, *parts: object) -> bool:
    # As bytes: compare_digest refuses str with non-ASCII characters, which a caller may send.
    return hmac.compare_digest(sign(key, *parts).encode(), signature.encode("utf-8", "replace"))


def upload_form(
    key: bytes, base: str, task_id: str, ttl: float, max_size: int, redirect: str | None
) -> dict[str, object]:
    """The ``result.form`` of an import/upload task: fields the uploader sends back unchanged."""
    expires = int(time.time() + ttl)
    parameters: dict[str, object] = {"expires": expires, "max_file_count": 1, "max_file_size": max_size}
    if redirect:
        parameters["redirect"] = redirect
    parameters["signature"] = sign(key, "upload", task_id, expires, 1, max_size, redirect or "")
    return {"url": f"{base}/upload/{task_id}", "parameters": parameters}


def file_url(key: bytes, base: str, task_id: str, filename: str, ttl: float, inline: bool) -> str:
    """A signed, expiring download link under /files."""
    expires = int(time.time() + ttl)
    query = {"expires": expires, "signature": sign(key, "file", task_id, filename, expires, int(inline))}
    if inline:
        query["inline"] = 1
    return f"{base}/files/{task_id}/{quote(filename)}?{urlencode(query)}"
