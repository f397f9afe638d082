"""import/openstack and export/openstack: a caller's container in OpenStack Swift, over its HTTP API.

The task logs in to Keystone (keystone.py) for a token and its region's object-store URL, then:
listings are ``GET {container}?prefix=&format=json`` paged by ``marker``; reads stream ``GET`` of the
object (a cut answer is resumed with a Range from where it stopped, if the object is the same one);
writes stream a chunked PUT (swift_writer.py). Swift's answers are mapped here onto errors.py's codes.
"""

from __future__ import annotations

import mimetypes
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
from mcv_pipelines.service.work.caller_storage.keystone import Login, host_of, log_in
from mcv_pipelines.service.work.caller_storage.swift_writer import ChunkedPut

__all__ = ["SwiftStore"]

_T = TypeVar("_T")
_PAGE = 10000  # names a listing gives at a time (Swift's own most)


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
        self._http = client(settings.guard, pool)
        try:
            session = self._guarded(
                "the Keystone auth_url", lambda: log_in(self._http, login, self.retry_for, self.secrets)
            )
        except BaseException:
            self._http.close()
            raise
        self.secrets = errors.Secrets([login.password, session.token])
        self._token = session.token
        self._base = f"{session.storage_url}/{quote(self.container, safe='')}"
        self.where = f"Swift container {self.container!r} at {host_of(session.storage_url)}"

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
        """One request (streamed answer) with the token, transient faults retried."""
        headers = {"X-Auth-Token": self._token, **options.pop("headers", {})}

        def send() -> httpx.Response:
            request = self._http.build_request(method, url, headers=headers, **options)
            return self._http.send(request, stream=True)

        return self._guarded(
            "the Swift storage URL", lambda: retried(what, send, self.retry_for, self.secrets.hide)
        )

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

    def writer(self, key: str, filename: str) -> Writer:
        url = self._url(key)
        headers = {"X-Auth-Token": self._token, "Content-Type": _guess(filename)}

        def send(body: Iterator[bytes]) -> httpx.Response:
            def put() -> httpx.Response:
                return self._http.put(url, content=body, headers=headers)  # chunked: no length given

            return self._guarded("the Swift storage URL", put)

        def judge(answer: httpx.Response) -> None:
            if answer.status_code == 413:
                raise TaskFailed(errors.FAILED, f"The {self.where} refused {key!r} as too large (413).")
            if answer.status_code >= 300:
                raise self._refusal(answer, f"store {self.location(key)}")

        return ChunkedPut(send, judge, self.where, self.retry_for)

    def location(self, key: str) -> str:
        return f"swift://{self.container}/{key}"

    def close(self) -> None:
        self._http.close()


def _guess(filename: str) -> str:
    return mimetypes.guess_type(filename, strict=False)[0] or "application/octet-stream"
