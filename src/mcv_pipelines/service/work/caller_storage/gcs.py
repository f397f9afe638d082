"""import/google-cloud-storage and export/google-cloud-storage: a caller's bucket, through the JSON API.

The task's service account signs in by itself (gcs_auth.py); its token goes with every call to the
storage API and nowhere else. Listings page with pageToken; a read streams ``alt=media`` (resumed at
the byte reached, on the same generation, when a connection is cut); a write is a resumable upload
session fed a chunk at a time (gcs_upload.py). Where the API and the token endpoint are is the
operator's choice (``--gcs-endpoint``, ``--gcs-token-uri``), never the caller's nor the environment's:
the HTTP client reads no proxy, CA or netrc variable, and no STORAGE_EMULATOR_HOST or GOOGLE_* either.
On a served instance every host it connects to (the API root, the token endpoint and any upload
session the store answers) is checked by the address guard, the operator's own settings included as
Azure's endpoint is, and connected to at the address checked (http_calls.GuardedTransport).
"""

from __future__ import annotations

import mimetypes
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import quote

import httpx

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, http_calls
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Entry, StoreSettings, Writer
from mcv_pipelines.service.work.caller_storage.gcs_auth import TokenSource, private_key_of
from mcv_pipelines.service.work.caller_storage.gcs_upload import ResumableWriter

__all__ = ["RETRIED", "GcsStore"]

RETRIED = frozenset({408, 429, 500, 502, 503, 504})  # worth another try (Google's own retry list)
_FIRST_WAIT, _LONGEST_WAIT = 0.25, 5.0


class GcsStore(CallerStore):
    retried = RETRIED
    page_size = 1000  # objects per listing page (the API's most)

    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        self.bucket = str(payload["bucket"])
        self.email = str(payload["client_email"])
        raw = str(payload.get("private_key") or "")
        self._values = [raw, raw.replace("\\n", "\n")]
        self.secrets = errors.Secrets(self._values)
        self.retry_for = settings.retry_for
        self.endpoint = httpx.URL(settings.gcs_endpoint.rstrip("/"))
        self.host = self.endpoint.netloc.decode()
        self.where = f"Google Cloud Storage bucket {self.bucket!r} at {self.host}"
        try:
            key = private_key_of(raw)
        except ValueError as exc:
            raise TaskFailed(errors.ACCESS_DENIED, f"Cannot sign in as {self.email!r}: {exc}.") from None
        # no HTTP(S)_PROXY (it would resolve names past any guard), no SSL_CERT_FILE, no redirect
        self.client = http_calls.client(settings.guard, max(pool, 1) * 2)
        token_host = httpx.URL(settings.gcs_token_uri).netloc.decode()
        self.tokens = TokenSource(
            self.client,
            self.email,
            key,
            settings.gcs_token_uri,
            lambda what, make: self.send(what, make, token_host),
            self.secrets,
        )

    # -- calls -------------------------------------------------------------------------------------

    def failed(self, code: str, message: str) -> TaskFailed:
        """A failure whose message shows neither the key nor a token of this task."""
        return errors.Secrets([*self._values, *self.tokens.issued]).failed(code, message)

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens.token()}"}

    def url(self, path: str) -> str:
        """An address under the API root: ``/storage/v1/b/...`` or ``/upload/storage/v1/b/...``."""
        return str(self.endpoint) + path

    def send(self, what: str, make: Callable[[], httpx.Response], host: str | None = None) -> httpx.Response:
        """``make()``'s answer, the call made again with growing waits while the host is away or
        answers a transient status, for up to ``retry_for`` seconds; the last answer is returned
        whatever its status (an unreachable host fails the task here)."""
        deadline, wait = time.monotonic() + self.retry_for, _FIRST_WAIT
        while True:
            try:
                answer = make()
            except ForbiddenAddress as exc:  # a served instance's guard (the operator's hosts too)
                what_host = "the Google token endpoint" if host else "the Google Cloud Storage endpoint"
                raise errors.forbidden_address(exc, what_host) from None
            except UnresolvedHost as exc:
                raise self.failed(
                    errors.UNREACHABLE, f"Could not reach {host or self.host}: {exc.reason}."
                ) from None
            except httpx.TransportError as exc:
                if time.monotonic() + wait >= deadline:
                    raise self.failed(
                        errors.UNREACHABLE, f"Could not reach {host or self.host} to {what}: {exc!r}"
                    ) from None
            else:
                if answer.status_code not in RETRIED or time.monotonic() + wait >= deadline:
                    return answer
                answer.close()
            time.sleep(wait)
            wait = min(wait * 2, _LONGEST_WAIT)

    def api(self, what: str, method: str, path: str, **options: Any) -> httpx.Response:
        """One call to the storage API with the task's token, its answer read whole (small JSON)."""
        headers = options.pop("headers", {})
        return self.send(
            what,
            lambda: self.client.request(
                method, self.url(path), headers={**self.auth(), **headers}, **options
            ),
        )

    def refusal(self, answer: httpx.Response, what: str, key: str | None = None) -> TaskFailed:
        """The task's failure for a refused call (``key``: the object it was about, if any)."""
        status, reason = answer.status_code, _reason(answer)
        if status in (401, 403):
            return self.failed(
                errors.ACCESS_DENIED,
                f"The {self.where} did not let the service account {self.email!r} {what} (HTTP {status}"
                f"{': ' + reason if reason else ''}): check its roles on the bucket.",
            )
        if status == 404 and (key is None or not self._bucket_exists()):
            return self.failed(
                errors.BUCKET_NOT_FOUND,
                f"There is no Google Cloud Storage bucket {self.bucket!r} at {self.host}.",
            )
        if status == 404:
            return self.failed(
                errors.FILE_NOT_FOUND, f"Could not {what}: no such object in the {self.where}."
            )
        return self.failed(
            errors.FAILED,
            f"The {self.where} refused to {what}: HTTP {status}{': ' + reason if reason else ''}",
        )

    def _bucket_exists(self) -> bool:
        """Whether a 404 of an object came from its bucket (the JSON API says "Not Found" for both)."""
        answer = self.api(
            "look for the bucket",
            "GET",
            f"/storage/v1/b/{quote_name(self.bucket)}/o",
            params={"maxResults": "1", "fields": "kind"},
        )
        return answer.status_code != 404

    # -- the contract --------------------------------------------------------------------------------

    def list(self, prefix: str) -> Iterator[Entry]:
        what, params = f"list the objects under {prefix!r}", {"prefix": prefix}
        params["fields"] = "items(name,size),nextPageToken"
        params["maxResults"] = str(self.page_size)
        while True:
            answer = self.api(what, "GET", f"/storage/v1/b/{quote_name(self.bucket)}/o", params=params)
            if answer.status_code != 200:
                raise self.refusal(answer, what)
            page = answer.json()
            for item in page.get("items") or []:
                name = str(item.get("name") or "")
                if name and not name.endswith("/"):  # a "folder" placeholder holds no file
                    yield Entry(name, int(item.get("size") or 0))
            token = page.get("nextPageToken")
            if not token:
                return
            params["pageToken"] = str(token)

    def read(self, key: str) -> Iterator[bytes]:
        what = f"read {self.location(key)}"
        first = self._open(key, 0, None, what)
        return self._chunks(key, first, what)

    def _open(self, key: str, position: int, generation: str | None, what: str) -> httpx.Response:
        """The object's media from ``position``, streamed; ``generation`` pins the version begun."""
        params = {"alt": "media", **({"generation": generation} if generation else {})}
        # gzip accepted: an object stored gzip-encoded comes as stored, so byte positions stay its own.
        extra = {"Accept-Encoding": "gzip", **({"Range": f"bytes={position}-"} if position else {})}

        def make() -> httpx.Response:
            request = self.client.build_request(
                "GET",
                self.url(f"/storage/v1/b/{quote_name(self.bucket)}/o/{quote_name(key)}"),
                params=params,
                headers={**self.auth(), **extra},
            )
            return self.client.send(request, stream=True)

        answer = self.send(what, make)
        if answer.status_code == (206 if position else 200):
            return answer
        answer.read()
        answer.close()
        if position and answer.status_code == 200:
            raise self.failed(errors.FAILED, f"Could not {what}: the store ignored the range to resume at.")
        raise self.refusal(answer, what, key)

    def _chunks(self, key: str, answer: httpx.Response, what: str) -> Iterator[bytes]:
        """The media's bytes as stored; a cut connection is opened again at the byte reached."""
        generation = answer.headers.get("x-goog-generation")
        position, cut_at = 0, -1
        try:
            while True:
                try:
                    for chunk in answer.iter_raw(CHUNK):
                        position += len(chunk)
                        yield chunk
                    return
                except httpx.TransportError as exc:
                    answer.close()
                    if cut_at == position:  # cut again before a byte came: the store is going away
                        raise self.failed(errors.UNREACHABLE, f"Could not {what}: {exc!r}") from None
                    cut_at = position
                    answer = self._open(key, position, generation, what)
        finally:
            answer.close()

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        return ResumableWriter(self, key, _guess(filename))

    def open_session(self, key: str, content_type: str) -> str:
        """A resumable upload session for the object ``key`` (its address, from the answer)."""
        what = f"write {self.location(key)}"
        answer = self.api(
            what,
            "POST",
            f"/upload/storage/v1/b/{quote_name(self.bucket)}/o",
            params={"uploadType": "resumable"},
            json={"name": key, "contentType": content_type},
            headers={"X-Upload-Content-Type": content_type},
        )
        if answer.status_code not in (200, 201):
            raise self.refusal(answer, what)
        return str(answer.headers.get("location", ""))

    def location(self, key: str) -> str:
        return f"gs://{self.bucket}/{key}"

    def close(self) -> None:
        self.client.close()


def quote_name(name: str) -> str:
    """A bucket or object name as one path segment (an object's slashes encoded, as the API wants)."""
    return quote(name, safe="")


def _reason(answer: httpx.Response) -> str:
    """The error message of a JSON API answer, if it has one."""
    try:
        body = answer.json()
    except ValueError:
        return answer.text.strip()[:200]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or "")
    return str(body.get("error_description") or error or "") if isinstance(body, dict) else ""


def _guess(filename: str) -> str:
    return mimetypes.guess_type(filename, strict=False)[0] or "application/octet-stream"
