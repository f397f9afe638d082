"""import/google-cloud-storage and export/google-cloud-storage: a caller's bucket, on Google's clients.

google-auth signs in as the task's service account (the JWT grant, the token renewed as it nears its
end) at the operator's token endpoint (``--gcs-token-uri``), never one of the environment, a key file
or a metadata server; the token goes with the calls to the JSON API (``--gcs-endpoint``) and nowhere
else. A listing pages with pageToken; a read streams ``alt=media`` (resumed on the same generation); a
write is a resumable upload session, streamed (gcs_upload.py). storage.Client itself is not used:
it takes STORAGE_EMULATOR_HOST, GOOGLE_CLOUD_PROJECT and the like from the process's environment.
Every connection (token endpoint, API, an upload session on another host) is pinning.session's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import requests
from google.auth import exceptions as auth_errors
from google.auth.transport.requests import Request
from google.oauth2 import service_account
from urllib3.exceptions import HTTPError as CutRead

from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, pinning, retry
from mcv_pipelines.service.work.caller_storage.contract import (
    CallerStore,
    Entry,
    StoreSettings,
    Writer,
    content_type,
)

__all__ = ["SCOPE", "TRANSIENT", "GcsStore"]

SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"
TRANSIENT = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)
_T = TypeVar("_T")


def _transient(exc: Exception) -> bool:
    return isinstance(exc, (*TRANSIENT, retry.Busy, auth_errors.TransportError))


class GcsStore(CallerStore):
    page_size = 1000  # objects per listing page (the API's most)

    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        self.bucket = str(payload["bucket"])
        self.email = str(payload["client_email"])
        raw = str(payload.get("private_key") or "")
        key = raw.replace("\\n", "\n")
        self.secrets = errors.Secrets([raw, key])  # and every token received (``_token``)
        self.retry_for = settings.retry_for
        self.endpoint = settings.gcs_endpoint.rstrip("/")
        self.host = urlsplit(self.endpoint).netloc
        self.token_host = urlsplit(settings.gcs_token_uri).netloc
        self.where = f"Google Cloud Storage bucket {self.bucket!r} at {self.host}"
        info = {"client_email": self.email, "private_key": key, "token_uri": settings.gcs_token_uri}
        try:  # google-auth's grant names Google's endpoint as its audience: the operator's is asked
            self.credentials = service_account.Credentials.from_service_account_info(
                info, scopes=[SCOPE], additional_claims={"aud": settings.gcs_token_uri}
            )
        except (ValueError, TypeError, IndexError):
            raise TaskFailed(
                errors.ACCESS_DENIED,
                f"Cannot sign in as {self.email!r} to reach the {self.where}: the private_key is not a "
                "PEM private key (-----BEGIN PRIVATE KEY----- ..., as in the service account's JSON "
                "key file).",
            ) from None
        # One session for the task: the token's calls, the API's and the upload sessions'.
        self.http: requests.Session = pinning.session(pinning.Addresses(settings.guard), max(pool, 1) * 2)
        self._token_request = Request(self.http)
        self._token_lock = threading.Lock()

    # -- calls -------------------------------------------------------------------------------------

    def token(self) -> dict[str, str]:
        """The Authorization header, the token asked for first when there is none or it nears its
        end (google-auth's margin: a few minutes)."""
        headers: dict[str, str] = {}
        grant = partial(self.credentials.before_request, self._token_request, "GET", self.endpoint, headers)
        with self._token_lock:  # files go a few at a time: one grant for them all
            try:
                retry.guarded(
                    f"get an access token for the {self.where}", grant, self.retry_for,
                    lambda exc: isinstance(exc, auth_errors.TransportError),  # its statuses it retries itself
                    self.secrets, "the Google token endpoint", self.token_host, (auth_errors.TransportError,),
                )  # fmt: skip
            except auth_errors.RefreshError as exc:
                reason = str(exc.args[0]) if exc.args else ""
                raise self.secrets.failed(
                    errors.FAILED if exc.retryable else errors.ACCESS_DENIED,
                    f"Google's token endpoint refused the service account {self.email!r} ({reason}), so it "
                    f"cannot reach the {self.where}: check client_email and private_key, and that the key "
                    "is not deleted or disabled.",
                ) from None
            self.secrets.add(self.credentials.token)  # (None before any grant: nothing to hide)
        return headers

    def guarded(self, what: str, whose: str, call: Callable[[], _T]) -> _T:
        """``call()`` with the policy's retries: its result, or the last answer when still busy; the guard's
        refusals and a host that never answered as the task's failures (``whose``: the address)."""
        return retry.guarded(
            what, call, self.retry_for, _transient, self.secrets, whose, self.host, TRANSIENT
        )

    def api(self, what: str, method: str, path: str, **options: Any) -> requests.Response:
        """One call to the storage API with the task's token (``path``: ``/storage/v1/b/...``)."""
        extra = options.pop("headers", {})

        def once() -> requests.Response:
            headers = {**self.token(), **extra}
            return retry.not_busy(
                self.http.request(
                    method, self.endpoint + path, headers=headers, timeout=pinning.TIMEOUT, **options
                )
            )

        return self.guarded(what, "the Google Cloud Storage endpoint", once)

    def refusal(self, answer: requests.Response, what: str, key: str | None = None) -> TaskFailed:
        """The task's failure for a refused call (``key``: the object it was about, if any)."""
        status = answer.status_code
        return self.refused(
            what,
            f"HTTP {status}",
            _reason(answer),
            denied=status in (401, 403),
            no_bucket=status == 404 and (key is None or not self._bucket_exists()),
            no_file=status == 404,
            hint=f"check the roles of the service account {self.email!r} on the bucket",
        )

    def _bucket_exists(self) -> bool:
        """Whether a 404 of an object came from its bucket (the JSON API says "Not Found" for both)."""
        params = {"maxResults": "1", "fields": "kind"}
        return self.api("look for the bucket", "GET", self.objects(), params=params).status_code != 404

    def objects(self, key: str | None = None) -> str:
        """The API's path of the bucket's objects, or of the object ``key``."""
        path = f"/storage/v1/b/{quote(self.bucket, safe='')}/o"
        return path if key is None else f"{path}/{quote(key, safe='')}"

    # -- the contract --------------------------------------------------------------------------------

    def list(self, prefix: str) -> Iterator[Entry]:
        what = f"list the objects under {prefix!r}"
        fields = "items(name,size),nextPageToken"
        params = {"prefix": prefix, "fields": fields, "maxResults": str(self.page_size)}
        while True:
            answer = self.api(what, "GET", self.objects(), params=params)
            if answer.status_code != 200:
                raise self.refusal(answer, what)
            page = answer.json()
            for item in page.get("items") or []:
                name = str(item.get("name") or "")
                if name and not name.endswith("/"):  # a "folder" placeholder holds no file
                    yield Entry(name, int(item.get("size") or 0))
            if not page.get("nextPageToken"):
                return
            params["pageToken"] = str(page["nextPageToken"])

    def read(self, key: str) -> Iterator[bytes]:
        what = f"read {self.location(key)}"
        first = self._open(key, 0, None, what)
        generation = first.headers.get("x-goog-generation")
        return retry.resumed(
            lambda position: pinning.chunks(self._open(key, position, generation, what), CHUNK),
            pinning.chunks(first, CHUNK),
            lambda exc: isinstance(exc, (CutRead, *TRANSIENT)),
            self.retry_for,
            lambda exc: self.secrets.failed(errors.UNREACHABLE, f"Could not {what}: {exc!r}"),
        )

    def _open(self, key: str, position: int, generation: str | None, what: str) -> requests.Response:
        """The object's media from ``position``, streamed; ``generation`` pins the version begun."""
        params = {"alt": "media", **({"generation": generation} if generation else {})}
        # gzip accepted: an object stored gzip-encoded comes as stored, so byte positions stay its own.
        headers = {"Accept-Encoding": "gzip", **({"Range": f"bytes={position}-"} if position else {})}
        answer = self.api(what, "GET", self.objects(key), stream=True, params=params, headers=headers)
        if answer.status_code == (206 if position else 200):
            return answer
        answer.close()
        if position and answer.status_code == 200:
            raise self.secrets.failed(
                errors.FAILED, f"Could not {what}: the store ignored the range to resume at."
            )
        raise self.refusal(answer, what, key)

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        # google.cloud.storage (the upload engine) is imported by a task that writes, not by every read
        from mcv_pipelines.service.work.caller_storage.gcs_upload import StreamedUpload

        assert size is not None, "an export knows the size of each file it sends"
        return StreamedUpload(self, key, content_type(filename), size)

    def location(self, key: str) -> str:
        return f"gs://{self.bucket}/{key}"

    def close(self) -> None:
        self.http.close()


def _reason(answer: requests.Response) -> str:
    """The error message of a JSON API answer, if it has one."""
    try:
        body = answer.json()
    except ValueError:
        return answer.text.strip()[:200]
    error = body.get("error") if isinstance(body, dict) else None
    return str((error.get("message") if isinstance(error, dict) else error) or "")
