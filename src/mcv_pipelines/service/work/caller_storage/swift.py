"""import/openstack and export/openstack: a caller's container in OpenStack Swift, on keystoneauth1 and
python-swiftclient.

The task logs in to Keystone (``_Login``) for a token and its region's object-store URL; then
swiftclient's module calls go over the task's pinned session, each through retry.py's policy. A token
is replaced by logging in again when it nears its end, or once per 401. swiftclient's Connection is
not used: its own retries and re-logins would multiply retry.py's waits.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
from keystoneauth1 import exceptions as ks_errors
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v2, v3
from swiftclient import client as swift
from swiftclient.exceptions import ClientException
from urllib3.exceptions import HTTPError as CutRead

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress
from mcv_pipelines.service.files.storage.base import CHUNK, Writer
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, pinning, retry
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Entry, StoreSettings, content_type
from mcv_pipelines.service.work.caller_storage.streamed_put import ChunkedPut
from mcv_pipelines.service.work.caller_storage.swift_segments import Limits, segment_size

__all__ = ["SwiftStore"]

_T = TypeVar("_T")
_UNCONNECTED = (requests.ConnectionError, requests.Timeout, ks_errors.ConnectionError)
_KEYSTONE, _STORAGE = "the Keystone auth_url", "the Swift storage URL"
_ODD_LOGIN = (
    ks_errors.MissingAuthMethods,
    ks_errors.InvalidResponse,
    ks_errors.CatalogException,
    ks_errors.AuthorizationFailure,
    ks_errors.DiscoveryFailure,
)
_VERSION = re.compile(r"/v(2\.0|3)/?$")
_DOMAIN = "Default"


def _transient(exc: Exception) -> bool:
    if isinstance(exc, ClientException):
        return exc.http_status in retry.BUSY
    return isinstance(exc, _UNCONNECTED)


def host_of(url: str) -> str:
    """A URL's host and port for messages: never a user or password written before the host."""
    return urlsplit(url).netloc.rpartition("@")[2] or "?"


class _Login:
    """The task's Keystone user, logged in on first use; ``token()`` is always one with time left,
    added to the task's ``secrets`` (hidden from messages like the password).

    Without ``tenant_name``: Keystone v3's password method, the user in the "Default" domain and no
    explicit scope (Keystone scopes the token to the user's default project). With it: Keystone v2, or
    v3 for that project in "Default" where v2 is gone (404). keystoneauth is given the task's pinned
    session: nothing of the environment (no OS_* variable, no clouds.yaml) is read.
    """

    def __init__(self, payload: Mapping[str, Any], http: requests.Session, secrets: errors.Secrets) -> None:
        auth_url, tenant = str(payload["auth_url"]), payload.get("tenant_name")
        self.username, self.password = str(payload["username"]), str(payload["password"])
        self.region, self.tenant = str(payload["region"]), str(tenant) if tenant else None
        self.host = host_of(auth_url)
        if urlsplit(auth_url).scheme not in ("http", "https"):
            raise TaskFailed(errors.FAILED, f"The auth_url {self.host!r} is not an http(s) URL.")
        self._session, self._secrets = ks_session.Session(session=http, timeout=60), secrets
        self._lock = threading.Lock()
        base = _VERSION.sub("", auth_url.rstrip("/"))  # auth_url may name its version or not
        # not reauthenticate: _access renews, as a Keystone may not say when a token ends
        user: dict[str, Any] = {"username": self.username, "password": self.password, "reauthenticate": False}
        self._v3 = v3.Password(
            auth_url=f"{base}/v3",
            user_domain_name=_DOMAIN,
            project_name=self.tenant,
            project_domain_name=_DOMAIN if self.tenant else None,
            **user,
        )
        self._plugin: Any = self._v3
        if self.tenant:
            self._plugin = v2.Password(auth_url=f"{base}/v2.0", tenant_name=self.tenant, **user)

    def token(self) -> str:
        with self._lock:
            token = str(self._access().auth_token)
        self._secrets.add(token)
        return token

    def renew(self, stale: str) -> None:
        """Log in again, unless another thread already replaced the ``stale`` token."""
        with self._lock:
            if self._plugin.auth_ref is not None and self._plugin.auth_ref.auth_token == stale:
                self._plugin.invalidate()

    def storage_url(self) -> str:
        """The catalog's public object-store URL of the region (``https://.../v1/AUTH_<project>``)."""
        with self._lock:
            catalog = self._access().service_catalog
        found = catalog.get_urls(service_type="object-store", interface="public", region_name=self.region)
        if found:
            return str(found[0]).rstrip("/")
        endpoints = catalog.get_endpoints(service_type="object-store", interface="public")
        listed = [e for group in endpoints.values() for e in group if e.get("region")]
        offered = sorted({str(e.get("region_id") or e["region"]) for e in listed})
        raise TaskFailed(
            errors.FAILED,
            f"The catalog of Keystone at {self.host} has no public object-store endpoint in the region "
            f"{self.region!r}"
            + (f" (it has: {', '.join(offered)})." if offered else " (it has no object store)."),
        )

    def _access(self) -> Any:
        """keystoneauth's token and catalog, logged in (again) if there is none or it ends soon."""
        known = self._plugin.auth_ref
        with contextlib.suppress(KeyError, TypeError, ValueError):  # an end not said: the token lasts
            if known is not None and known.will_expire_soon(self._plugin.MIN_TOKEN_LIFE_SECONDS):
                self._plugin.invalidate()
        try:
            return self._plugin.get_access(self._session)
        except ks_errors.HttpError as exc:
            if isinstance(exc, ks_errors.NotFound) and self._plugin is not self._v3:
                self._plugin = self._v3  # no v2 there: the same project asked of v3
                return self._access()
            raise self._refused(int(exc.http_status or 0)) from None
        except _ODD_LOGIN as exc:  # a 200 that is not a token (a wrong auth_url), or no catalog
            raise TaskFailed(
                errors.FAILED, f"Keystone at {self.host} answered a login oddly: {exc}"
            ) from None

    def _refused(self, status: int) -> TaskFailed:
        if status in (401, 403):
            scope = f" for the tenant {self.tenant!r}" if self.tenant else ""
            return TaskFailed(
                errors.ACCESS_DENIED,
                f"Keystone at {self.host} refused the credentials of {self.username!r}{scope} ({status}): "
                "check username, password and tenant_name.",
            )
        return TaskFailed(
            errors.UNREACHABLE if status >= 500 else errors.FAILED,
            f"Keystone at {self.host} answered {status} to a login: is auth_url its Identity endpoint?",
        )


class SwiftStore(CallerStore):
    """A caller's Swift container for one task: logged in to Keystone, every call over the task's
    pinned session."""

    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        self.container = str(payload["container"])
        self.segments = f"{self.container}_segments"  # where a Static Large Object's segments go
        self.secrets = errors.Secrets([payload.get("password")])
        self.retry_for = settings.retry_for
        self._addresses = pinning.Addresses(settings.guard)
        self._http = pinning.session(self._addresses, pool)
        self._lock = threading.Lock()  # the cluster's limits asked once; the segments container made once
        self._limits: Limits | None = None
        self._segments_ready = False
        try:
            self._login = _Login(payload, self._http, self.secrets)
            self._storage_url = self._guarded("log in", self._login.storage_url, _KEYSTONE)
            self.where = f"Swift container {self.container!r} at {host_of(self._storage_url)}"
            self._guarded("reach it", lambda: self._addresses.check(self._storage_url))
        except BaseException:
            self._http.close()
            raise

    def _guarded(self, what: str, call: Callable[[], _T], whose: str = _STORAGE) -> _T:
        """``call()`` through the retry policy; the guard's refusals and a host that never answered
        as the task's failures."""
        host = self._login.host if whose == _KEYSTONE else f"the {self.where}"
        return retry.guarded(what, call, self.retry_for, _transient, self.secrets, whose, host, _UNCONNECTED)

    def _call(
        self, what: str, call: Callable[..., Any], *args: Any, on_object: bool = False, **kwargs: Any
    ) -> Any:
        """swiftclient's ``call(storage URL, token, *args, **kwargs)`` through ``_guarded``, Swift's
        refusals as the task's failures; a token refused with 401 is renewed and the call made once
        more. ``on_object``: a 404 means no such object when the container is there."""
        for renewed in (False, True):
            token = self._login.token()
            attempt = partial(call, self._storage_url, token, *args, http_conn=self._connection(), **kwargs)
            try:
                return self._guarded(what, attempt)
            except ClientException as exc:
                if exc.http_status != 401 or renewed:
                    raise self._refusal(exc, what, on_object) from None
                self._login.renew(token)
        raise AssertionError("unreachable")

    def _connection(self, url: str | None = None) -> tuple[Any, Any]:
        """A swiftclient connection on the task's pinned session (swiftclient's calls close no
        connection they are given, so the session stays open)."""
        parsed, connection = swift.http_connection(url or self._storage_url, timeout=60)
        connection.request_session = self._http
        return parsed, connection

    def _refusal(self, exc: ClientException, what: str, on_object: bool) -> TaskFailed:
        status = int(exc.http_status or 0)
        failed = self.refused(
            what,
            f"{status} {exc.http_reason or ''}".strip() if status else str(exc),
            denied=status in (401, 403),
            no_bucket=status == 404 and (not on_object or not self._container_exists()),
            no_file=status == 404,
            hint="the user's token does not allow it",
        )
        return TaskFailed(errors.UNREACHABLE, failed.message) if status >= 500 or not status else failed

    def _container_exists(self) -> bool:
        try:
            self._call("look for the container", swift.head_container, self.container)
        except TaskFailed as failure:
            return failure.code != errors.BUCKET_NOT_FOUND
        return True

    def list(self, prefix: str) -> Iterator[Entry]:
        marker, what = "", f"list the objects under {prefix!r}"
        while True:
            # a page as long as the cluster gives (a limit over its container_listing_limit is a 412)
            _, names = self._call(what, swift.get_container, self.container, marker=marker, prefix=prefix)
            if not names:
                return
            for item in names:
                name = str(item.get("name", ""))
                if not name.endswith("/") and item.get("content_type") != "application/directory":
                    yield Entry(name, int(item.get("bytes") or 0))  # a "directory" marker holds no file
            marker = str(names[-1].get("name", ""))

    def read(self, key: str) -> Iterator[bytes]:
        what = f"read {self.location(key)}"
        get = partial(
            self._call, what, swift.get_object, self.container, key, on_object=True, resp_chunk_size=CHUNK
        )
        headers, first = get(headers={})  # (the answer's headers, its body's chunks)
        etag = str(headers.get("etag", ""))
        return retry.resumed(
            lambda position: get(headers={"Range": f"bytes={position}-", "If-Match": etag})[1],
            first,
            lambda exc: bool(etag) and isinstance(exc, (CutRead, *_UNCONNECTED)),
            self.retry_for,
            lambda exc: self.secrets.failed(errors.UNREACHABLE, f"Could not {what}: {exc}"),
        )

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        largest = self._cluster_limits().max_file_size
        if size is None or size <= largest:
            return self._put(self.container, key, content_type(filename), largest)
        return _SegmentedPut(self, key, content_type(filename), size)

    def _put(self, container: str, key: str, kind: str, largest: int | None = None) -> ChunkedPut:
        """One object streamed to ``container`` by a chunked PUT."""
        token = self._login.token()
        what = f"store {self.location(key)}"

        def send(body: Iterator[bytes]) -> str:  # made again only when it never connected (ChunkedPut)
            return str(
                swift.put_object(
                    self._storage_url, token, container, key, contents=body, content_type=kind,
                    http_conn=self._connection(),
                )
            )  # fmt: skip

        def judge(fault: Exception) -> TaskFailed:
            if isinstance(fault, ForbiddenAddress):
                return errors.forbidden_address(fault, _STORAGE)
            if not isinstance(fault, ClientException):
                return self.secrets.failed(
                    errors.UNREACHABLE, f"The {self.where} stopped taking the file: {fault}"
                )
            refusal = self._refusal(fault, what, on_object=True)
            if fault.http_status == 401:
                self._login.renew(token)  # ended while the file waited: renewed, sent again
                return errors.SendAgain(refusal.code, refusal.message)
            return refusal

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
                        "read the cluster's /info", lambda: swift.get_capabilities(self._connection(info_url))
                    )
                except (ClientException, ValueError, TaskFailed):
                    info = None
                self._limits = Limits.from_info(info)
            return self._limits

    def _make_segments_container(self) -> None:
        """The container of large files' segments, made once (a PUT of one that is there changes nothing)."""
        with self._lock:
            if not self._segments_ready:
                what = f"make the container {self.segments!r} for the segments of a large file"
                self._call(what, swift.put_container, self.segments)
                self._segments_ready = True

    def location(self, key: str) -> str:
        return f"swift://{self.container}/{key}"

    def close(self) -> None:
        self._http.close()


class _SegmentedPut(Writer):
    """A file larger than one object may be, as a Static Large Object: its bytes streamed into
    segments in the store's segments container (each one a ChunkedPut, checked by its MD5), then a
    manifest listing them in order stored under the file's own name. Segments are named
    ``<key>/slo/<time>/<size>/<segment size>/<index>``, so a file written twice never mixes its parts;
    a write that fails or is aborted deletes the segments it had stored."""

    def __init__(self, store: SwiftStore, key: str, kind: str, size: int) -> None:
        self._store, self._key, self._kind = store, key, kind
        self._each = segment_size(size, store._cluster_limits(), store.where)
        store._make_segments_container()
        self._prefix = f"{key}/slo/{time.time():.6f}/{size}/{self._each}/"
        self._stored: list[dict[str, Any]] = []  # the manifest: what is stored, and deleted on abort
        self._current: ChunkedPut | None = None

    def _segment(self) -> str:
        """The name of the segment being written."""
        return f"{self._prefix}{len(self._stored):08d}"

    def write(self, data: bytes) -> None:
        while data:
            if self._current is None:
                self._current = self._store._put(self._store.segments, self._segment(), self._kind)
            room = self._each - self._current.size
            self._current.write(data[:room])
            self.size += min(room, len(data))
            data = data[room:]
            if self._current.size == self._each:
                self._close_segment()

    def _close_segment(self) -> None:
        current, self._current = self._current, None
        assert current is not None
        current.commit()
        path = f"/{self._store.segments}/{self._segment()}"
        self._stored.append({"path": path, "etag": current.md5, "size_bytes": current.size})

    def commit(self) -> None:
        if self._current is not None:
            self._close_segment()
        self._store._call(
            f"store the manifest of {self._store.location(self._key)}", swift.put_object,
            self._store.container, self._key, contents=json.dumps(self._stored).encode(),
            content_type=self._kind, query_string="multipart-manifest=put",
        )  # fmt: skip
        self._stored = []  # the manifest's now: not deleted by abort

    def abort(self) -> None:
        if self._current is not None:
            self._current.abort()
            self._current = None
        for part in self._stored:
            name = part["path"].split("/", 2)[2]
            with contextlib.suppress(Exception):  # best effort: the failure itself is what the user reads
                self._store._call(
                    f"delete the segment {name!r}", swift.delete_object, self._store.segments, name
                )
        self._stored = []
