"""import/openstack and export/openstack: a caller's container in OpenStack Swift, over its HTTP API.

The task logs in to Keystone (keystone.py) for a token and its region's object-store URL, then:
listings are ``GET {container}?prefix=&format=json`` paged by ``marker``; reads stream ``GET`` of the
object (a cut answer is resumed with a Range from where it stopped, if the object is the same one);
writes stream a chunked PUT (swift_writer.py), or segments and a manifest for a file larger than the
cluster's ``max_file_size`` (swift_segments.py). A token that ends while the task runs (it is renewed
a minute before its ``expires``) or that Swift refuses with 401 is replaced by logging in again, once
per refusal. Swift's answers are mapped here onto errors.py's codes.
"""

from __future__ import annotations

import mimetypes
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Entry, StoreSettings, Writer
from mcv_pipelines.service.work.caller_storage.http_calls import TRANSIENT, Unreachable, client, retried
from mcv_pipelines.service.work.caller_storage.keystone import Login, Session, host_of, log_in
from mcv_pipelines.service.work.caller_storage.swift_segments import (
    Limits,
    SegmentCalls,
    SegmentedPut,
    segment_size,
)
from mcv_pipelines.service.work.caller_storage.swift_writer import ChunkedPut

__all__ = ["SwiftStore"]

_T = TypeVar("_T")
_PAGE = 10000  # names a listing gives at a time (Swift's own most)
_MARGIN = 60.0  # seconds before a token's end at which it is renewed


class SwiftStore(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        self.container = str(payload["container"])
        self.secrets = errors.Secrets([payload.get("password")])
        self.retry_for = settings.retry_for
        tenant = payload.get("tenant_name")
        login = Login(
            auth_url=str(payload["auth_url"]),
            username=str(payload["username"]),
            password=str(payload["password"]),
            region=str(payload["region"]),
            tenant_name=str(tenant) if tenant else None,
        )
        self.where = f"Swift container {self.container!r} (Keystone at {host_of(login.auth_url)})"
        self._login = login
        self._http = client(settings.guard, pool)
        self._lock = threading.RLock()  # one login at a time; the segments container made once
        self._tokens: list[str] = []
        self._limits: Limits | None = None
        self._segments_ready = False
        try:
            self._use(self._log_in())
        except BaseException:
            self._http.close()
            raise
        self._storage_url = self._session.storage_url
        self._base = f"{self._storage_url}/{quote(self.container, safe='')}"
        self.where = f"Swift container {self.container!r} at {host_of(self._storage_url)}"

    def _log_in(self) -> Session:
        return self._guarded(
            "the Keystone auth_url", lambda: log_in(self._http, self._login, self.retry_for, self.secrets)
        )

    def _use(self, session: Session) -> None:
        self._session = session
        self._tokens.append(session.token)
        self.secrets = errors.Secrets([self._login.password, *self._tokens])

    def _token(self) -> str:
        """The task's token, renewed first when it ends within a minute."""
        session = self._session
        if session.expires is not None and session.expires - time.time() < _MARGIN:
            self._renew(session.token)
        return self._session.token

    def _renew(self, stale: str) -> None:
        """Log in again, unless another thread already replaced the ``stale`` token."""
        with self._lock:
            if self._session.token == stale:
                self._use(self._log_in())

    def _guarded(self, what: str, action: Callable[[], _T]) -> _T:
        """``action()`` with the guard's refusals and an absent host as the task's failures."""
        try:
            return action()
        except ForbiddenAddress as exc:
            raise errors.forbidden_address(exc, what) from None
        except UnresolvedHost as exc:
            raise TaskFailed(
                errors.UNREACHABLE, f"Could not reach {exc.host} ({what}): {exc.reason}."
            ) from None
        except Unreachable as exc:
            raise self.secrets.failed(
                errors.UNREACHABLE, f"Could not reach the {self.where}: {exc}."
            ) from None

    def _call(self, what: str, method: str, url: str, **options: Any) -> httpx.Response:
        """One request (streamed answer) with the token, transient faults retried; a token refused
        with 401 is renewed and the request sent once more."""
        extra = options.pop("headers", {})
        for renewed in (False, True):
            token = self._token()
            headers = {"X-Auth-Token": token, **extra}

            def send(headers: dict[str, str] = headers) -> httpx.Response:
                request = self._http.build_request(method, url, headers=headers, **options)
                return self._http.send(request, stream=True)

            answer = self._guarded(
                "the Swift storage URL", lambda: retried(what, send, self.retry_for, self.secrets.hide)
            )
            if answer.status_code != 401 or renewed:
                return answer
            answer.close()
            self._renew(token)
        raise AssertionError("unreachable")

    def _url(self, key: str) -> str:
        return f"{self._base}/{quote(key, safe='/')}"

    def _refusal(self, response: httpx.Response, what: str, key: str | None = None) -> TaskFailed:
        """The failure a non-2xx answer means (the answer is closed)."""
        response.close()
        status = response.status_code
        if status in (401, 403):
            return TaskFailed(
                errors.ACCESS_DENIED,
                f"The {self.where} refused to {what} ({status}): the user's token does not allow it.",
            )
        if status == 404 and (key is None or not self._container_exists()):
            return TaskFailed(errors.BUCKET_NOT_FOUND, f"There is no {self.where}.")
        if status == 404:
            return TaskFailed(errors.FILE_NOT_FOUND, f"Could not {what}: no such object in the {self.where}.")
        kind = errors.UNREACHABLE if status >= 500 else errors.FAILED
        return self.secrets.failed(kind, f"The {self.where} answered {status} to {what}.")

    def _container_exists(self) -> bool:
        answer = self._call("look for the container", "HEAD", self._base)
        answer.close()
        return answer.status_code != 404

    def list(self, prefix: str) -> Iterator[Entry]:
        marker = ""
        while True:
            params = {"format": "json", "prefix": prefix, "limit": str(_PAGE), "marker": marker}
            answer = self._call(f"list the objects under {prefix!r}", "GET", self._base, params=params)
            if answer.status_code >= 300:
                raise self._refusal(answer, f"list the objects under {prefix!r}")
            try:
                answer.read()
                names = answer.json() if answer.status_code != 204 else []
            except TRANSIENT as exc:
                raise self.secrets.failed(
                    errors.UNREACHABLE, f"Could not list the {self.where}: {exc}"
                ) from None
            finally:
                answer.close()
            if not names:
                return
            for item in names:
                name = str(item.get("name", ""))
                if name.endswith("/") or item.get("content_type") == "application/directory":
                    continue  # a "directory" marker holds no file
                yield Entry(name, int(item.get("bytes") or 0))
            marker = str(names[-1].get("name", ""))

    def read(self, key: str) -> Iterator[bytes]:
        what = f"read {self.location(key)}"
        first = self._call(what, "GET", self._url(key))
        if first.status_code >= 300:
            raise self._refusal(first, what, key)
        return self._chunks(key, what, first)

    def _chunks(self, key: str, what: str, answer: httpx.Response) -> Iterator[bytes]:
        """The object's bytes; a cut answer is asked again from where it stopped, for the same ETag."""
        etag = answer.headers.get("ETag", "")
        position = 0
        try:
            while True:
                try:
                    for chunk in answer.iter_raw(CHUNK):
                        position += len(chunk)
                        yield chunk
                    return
                except TRANSIENT as exc:
                    answer.close()
                    if not etag:
                        raise self.secrets.failed(errors.UNREACHABLE, f"Could not {what}: {exc}") from None
                headers = {"Range": f"bytes={position}-", "If-Match": etag}
                answer = self._call(what, "GET", self._url(key), headers=headers)
                if answer.status_code != 206:
                    raise self._refusal(answer, f"{what} again from byte {position}", key)
        finally:
            answer.close()

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        limits = self._cluster_limits()
        content_type = _guess(filename)
        if size is None or size <= limits.max_file_size:
            return self._put(self._url(key), key, content_type, limits.max_file_size)
        each = segment_size(size, limits, self.where)
        segments = f"{self.container}_segments"
        self._make_segments_container(segments)
        base = f"{self._storage_url}/{quote(segments, safe='')}"
        calls = SegmentCalls(
            segment=lambda name: self._put(
                f"{base}/{quote(name, safe='/')}", name, content_type, limits.max_file_size
            ),
            manifest=lambda body: self._manifest(key, content_type, body),
            remove=lambda name: self._call(
                f"delete the segment {name!r}", "DELETE", f"{base}/{quote(name, safe='/')}"
            ).close(),
        )
        return SegmentedPut(calls, segments, key, size, each)

    def _put(self, url: str, key: str, content_type: str, largest: int) -> ChunkedPut:
        """One object streamed to ``url`` by a chunked PUT."""
        token = self._token()
        headers = {"X-Auth-Token": token, "Content-Type": content_type}

        def send(body: Iterator[bytes]) -> httpx.Response:
            def put() -> httpx.Response:
                return self._http.put(url, content=body, headers=headers)  # chunked: no length given

            return self._guarded("the Swift storage URL", put)

        def judge(answer: httpx.Response) -> None:
            if answer.status_code == 401:  # the token ended while the file waited: renewed, sent again
                self._renew(token)
                refusal = self._refusal(answer, f"store {self.location(key)}")
                raise errors.SendAgain(refusal.code, refusal.message)
            if answer.status_code == 413:
                raise TaskFailed(errors.FAILED, f"The {self.where} refused {key!r} as too large (413).")
            if answer.status_code >= 300:
                raise self._refusal(answer, f"store {self.location(key)}")

        return ChunkedPut(send, judge, self.where, self.retry_for, largest)

    def _cluster_limits(self) -> Limits:
        """What the cluster's ``/info`` says of object sizes, asked once; its defaults when the
        operator hides it."""
        with self._lock:
            if self._limits is None:
                root = self._storage_url.split("/v1/", 1)[0]
                answer = self._guarded(  # public: no token sent
                    "the Swift storage URL",
                    lambda: retried(
                        "read the cluster's /info",
                        lambda: self._http.send(self._http.build_request("GET", f"{root}/info"), stream=True),
                        self.retry_for,
                        self.secrets.hide,
                    ),
                )
                info: Any = None
                try:
                    if answer.status_code == 200:
                        answer.read()
                        info = answer.json()
                except (ValueError, *TRANSIENT):
                    info = None
                finally:
                    answer.close()
                self._limits = Limits.from_info(info)
            return self._limits

    def _make_segments_container(self, name: str) -> None:
        with self._lock:
            if self._segments_ready:
                return
            answer = self._call(
                f"make the container {name!r}", "PUT", f"{self._storage_url}/{quote(name, safe='')}"
            )
            if answer.status_code >= 300:
                raise self._refusal(answer, f"make the container {name!r} for the segments of a large file")
            answer.close()
            self._segments_ready = True

    def _manifest(self, key: str, content_type: str, body: bytes) -> None:
        what = f"store the manifest of {self.location(key)}"
        answer = self._call(
            what,
            "PUT",
            self._url(key),
            params={"multipart-manifest": "put"},
            content=body,
            headers={"Content-Type": content_type},
        )
        if answer.status_code >= 300:
            answer.read()
            reason = self.secrets.hide(answer.text[:300].strip())
            if answer.status_code == 400:
                answer.close()
                raise TaskFailed(errors.FAILED, f"The {self.where} refused the manifest of {key!r}: {reason}")
            raise self._refusal(answer, what)
        answer.close()

    def location(self, key: str) -> str:
        return f"swift://{self.container}/{key}"

    def close(self) -> None:
        self._http.close()


def _guess(filename: str) -> str:
    return mimetypes.guess_type(filename, strict=False)[0] or "application/octet-stream"
