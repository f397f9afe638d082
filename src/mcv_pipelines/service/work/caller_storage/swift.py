"""import/openstack and export/openstack: a caller's container in OpenStack Swift, on keystoneauth1 and
python-swiftclient.

The task logs in to Keystone (swift_login.py) for a token and its region's object-store URL; then
swiftclient's calls (get_container paged by marker, get_object streamed, put_object chunked or as
segments and a manifest for a file larger than the cluster's ``max_file_size``: swift_segments.py)
go over the task's pinned session, each through retry.py's policy. A token that ends while the task
runs (keystoneauth renews it before its end) or that Swift refuses with 401 is replaced by logging
in again, once per refusal. swiftclient's Connection (its own retries and re-logins) is not used:
its module calls are given the token, the URL and a connection on the pinned session.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import requests
from keystoneauth1 import exceptions as ks_errors
from swiftclient import client as swift
from swiftclient.exceptions import ClientException
from urllib3.exceptions import HTTPError as CutRead

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress
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
from mcv_pipelines.service.work.caller_storage.swift_login import Login, host_of
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
_UNCONNECTED = (requests.ConnectionError, requests.Timeout, ks_errors.ConnectionError)


def _transient(exc: Exception) -> bool:
    if isinstance(exc, ClientException):
        return exc.http_status in retry.BUSY
    return isinstance(exc, _UNCONNECTED)


class _Shared:
    """The task's pinned session as swiftclient's HTTPConnection holds one: shared by every call,
    so closing one connection does not close it."""

    def __init__(self, http: requests.Session) -> None:
        self.request = http.request

    def close(self) -> None:
        pass


class SwiftStore(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        self.container = str(payload["container"])
        self.secrets = errors.Secrets([payload.get("password")])
        self.retry_for = settings.retry_for
        self._tokens: list[str] = []
        self._addresses = pinning.Addresses(settings.guard)
        self._http = pinning.session(self._addresses, pool)
        tenant = payload.get("tenant_name")
        self.where = f"Swift container {self.container!r} (Keystone at {host_of(str(payload['auth_url']))})"
        self._lock = threading.RLock()  # the cluster's limits asked once; the segments container made once
        self._limits: Limits | None = None
        self._segments_ready = False
        try:
            self._login = Login(
                str(payload["auth_url"]),
                str(payload["username"]),
                str(payload["password"]),
                str(payload["region"]),
                str(tenant) if tenant else None,
                self._http,
            )
            self._storage_url = self._guarded("the Keystone auth_url", "log in", self._login.storage_url)
            self._guarded(
                "the Swift storage URL", "reach it", lambda: self._addresses.check(self._storage_url)
            )
        except BaseException:
            self._http.close()
            raise
        self.where = f"Swift container {self.container!r} at {host_of(self._storage_url)}"

    def _token(self) -> str:
        token = self._login.token()
        if token not in self._tokens:
            self._tokens.append(token)
            self.secrets = errors.Secrets([self._login.password, *self._tokens])
        return token

    def _guarded(self, whose: str, what: str, action: Callable[[], _T]) -> _T:
        """``action()`` through the retry policy; the guard's refusals, a host that never answered
        and Swift's refusals as the task's failures."""
        host = self._login.host if whose == "the Keystone auth_url" else f"the {self.where}"
        return retry.guarded(
            what, action, self.retry_for, _transient, self.secrets, whose, host, _UNCONNECTED
        )

    def _call(self, what: str, action: Callable[[str, tuple[Any, Any]], _T], key: str | None = None) -> _T:
        """``action(token, connection)``, a swiftclient call, with its faults retried; a token
        refused with 401 is renewed and the call made once more."""
        for renewed in (False, True):
            token = self._token()

            def attempt(token: str = token) -> _T:
                return action(token, self._connection())

            try:
                return self._guarded("the Swift storage URL", what, attempt)
            except ClientException as exc:
                if exc.http_status != 401 or renewed:
                    raise self._refusal(exc, what, key) from None
                self._login.renew(token)
        raise AssertionError("unreachable")

    def _connection(self, url: str | None = None) -> tuple[Any, Any]:
        """A swiftclient connection (no socket of its own) on the task's pinned session."""
        parsed, connection = swift.http_connection(url or self._storage_url, timeout=60)
        connection.request_session = _Shared(self._http)
        return parsed, connection

    def _refusal(self, exc: ClientException, what: str, key: str | None = None) -> TaskFailed:
        status = int(exc.http_status or 0)
        if status in (401, 403):
            return TaskFailed(
                errors.ACCESS_DENIED,
                f"The {self.where} refused to {what} ({status}): the user's token does not allow it.",
            )
        if status == 404 and (key is None or not self._container_exists()):
            return TaskFailed(errors.BUCKET_NOT_FOUND, f"There is no {self.where}.")
        if status == 404:
            return TaskFailed(errors.FILE_NOT_FOUND, f"Could not {what}: no such object in the {self.where}.")
        if status == 413:
            return TaskFailed(errors.FAILED, f"The {self.where} refused to {what}: too large (413).")
        kind = errors.UNREACHABLE if status >= 500 or not status else errors.FAILED
        return self.secrets.failed(kind, f"The {self.where} answered {status or exc} to {what}.")

    def _container_exists(self) -> bool:
        try:
            self._call(
                "look for the container",
                lambda t, c: swift.head_container(self._storage_url, t, self.container, http_conn=c),
            )
        except TaskFailed as failure:
            return failure.code != errors.BUCKET_NOT_FOUND
        return True

    # -- the contract --------------------------------------------------------------------------------

    def list(self, prefix: str) -> Iterator[Entry]:
        marker, what = "", f"list the objects under {prefix!r}"
        while True:

            def page(token: str, connection: Any, marker: str = marker) -> list[dict[str, Any]]:
                return list(
                    swift.get_container(
                        self._storage_url, token, self.container, marker=marker, prefix=prefix, limit=_PAGE,
                        http_conn=connection,
                    )[1]
                )  # fmt: skip

            names = self._call(what, page)
            if not names:
                return
            for item in names:
                name = str(item.get("name", ""))
                if not name.endswith("/") and item.get("content_type") != "application/directory":
                    yield Entry(name, int(item.get("bytes") or 0))  # a "directory" marker holds no file
            marker = str(names[-1].get("name", ""))

    def read(self, key: str) -> Iterator[bytes]:
        what = f"read {self.location(key)}"
        headers, first = self._get(key, {}, what)
        etag = str(headers.get("etag", ""))
        return retry.resumed(
            lambda position: self._get(key, {"Range": f"bytes={position}-", "If-Match": etag}, what)[1],
            first,
            lambda exc: bool(etag) and isinstance(exc, (CutRead, *_UNCONNECTED)),
            self.retry_for,
            lambda exc: self.secrets.failed(errors.UNREACHABLE, f"Could not {what}: {exc}"),
        )

    def _get(self, key: str, headers: dict[str, str], what: str) -> tuple[dict[str, Any], Iterator[bytes]]:
        def get(token: str, connection: Any) -> tuple[dict[str, Any], Iterator[bytes]]:
            found, body = swift.get_object(
                self._storage_url, token, self.container, key, http_conn=connection, resp_chunk_size=CHUNK,
                headers=headers,
            )  # fmt: skip
            return dict(found), body

        return self._call(what, get, key)

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        limits = self._cluster_limits()
        kind = content_type(filename)
        if size is None or size <= limits.max_file_size:
            return self._put(self.container, key, kind, limits.max_file_size)
        segments = f"{self.container}_segments"
        self._make_segments_container(segments)
        calls = SegmentCalls(
            segment=lambda name: self._put(segments, name, kind, limits.max_file_size),
            manifest=lambda body: self._manifest(key, kind, body),
            remove=lambda name: self._call(
                f"delete the segment {name!r}",
                lambda t, c: swift.delete_object(self._storage_url, t, segments, name, http_conn=c),
            ),
        )
        return SegmentedPut(calls, segments, key, size, segment_size(size, limits, self.where))

    def _put(self, container: str, key: str, kind: str, largest: int) -> ChunkedPut:
        """One object streamed to ``container`` by a chunked PUT."""
        token = self._token()
        what = f"store {self.location(key)}"

        def send(body: Iterator[bytes]) -> str:
            def put() -> str:
                return str(
                    swift.put_object(
                        self._storage_url, token, container, key, contents=body, content_type=kind,
                        http_conn=self._connection(),
                    )
                )  # fmt: skip

            try:  # made again only when it never connected (ChunkedPut)
                return put()
            except ForbiddenAddress as exc:
                raise errors.forbidden_address(exc, "the Swift storage URL") from None

        def judge(fault: Exception) -> TaskFailed:
            if isinstance(fault, ClientException) and fault.http_status == 401:
                self._login.renew(token)  # ended while the file waited: renewed, sent again
                refusal = self._refusal(fault, what, key)
                return errors.SendAgain(refusal.code, refusal.message)
            if isinstance(fault, ClientException):
                return self._refusal(fault, what, key)
            return self.secrets.failed(
                errors.UNREACHABLE, f"The {self.where} stopped taking the file: {fault}"
            )

        return ChunkedPut(
            send, judge, lambda exc: isinstance(exc, _UNCONNECTED), self.retry_for, largest, self.where
        )

    def _cluster_limits(self) -> Limits:
        """What the cluster's ``/info`` says of object sizes, asked once (no token sent); its
        defaults when the operator hides it."""
        with self._lock:
            if self._limits is None:
                info_url = self._storage_url.split("/v1/", 1)[0] + "/info"
                try:
                    info = self._guarded(
                        "the Swift storage URL",
                        "read the cluster's /info",
                        lambda: swift.get_capabilities(self._connection(info_url)),
                    )
                except (ClientException, ValueError, TaskFailed):
                    info = None
                self._limits = Limits.from_info(info)
            return self._limits

    def _make_segments_container(self, name: str) -> None:
        with self._lock:
            if not self._segments_ready:
                self._call(
                    f"make the container {name!r} for the segments of a large file",
                    lambda t, c: swift.put_container(self._storage_url, t, name, http_conn=c),
                )
                self._segments_ready = True

    def _manifest(self, key: str, kind: str, body: bytes) -> None:
        what = f"store the manifest of {self.location(key)}"
        try:
            self._call(
                what,
                lambda t, c: swift.put_object(
                    self._storage_url, t, self.container, key, contents=body, content_type=kind,
                    query_string="multipart-manifest=put", http_conn=c,
                ),
            )  # fmt: skip
        except TaskFailed as failure:
            raise TaskFailed(
                failure.code, f"The {self.where} refused the manifest of {key!r}: {failure.message}"
            ) from None

    def location(self, key: str) -> str:
        return f"swift://{self.container}/{key}"

    def close(self) -> None:
        self._http.close()
