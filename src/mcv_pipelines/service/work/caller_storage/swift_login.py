"""Logging in to OpenStack's Identity service (Keystone) for a Swift task, with keystoneauth1.

Without ``tenant_name``: Keystone v3's password method, the user in the "Default" domain and no
explicit scope (Keystone scopes the token to the user's default project). With ``tenant_name``:
Keystone v2 with that tenant; a Keystone that no longer serves v2 (404) is asked v3 for that project
in the "Default" domain instead. ``auth_url`` is the Identity endpoint with or without its version.
keystoneauth1 keeps the token and logs in again when it nears its end; the storage URL is the
catalog's public ``object-store`` endpoint of the task's region. Its Session is given the task's
pinned requests session: nothing of the environment (no OS_* variable, no clouds.yaml) is read.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from keystoneauth1 import exceptions as ks_errors
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v2, v3

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors

__all__ = ["Login", "host_of"]

_MARGIN = 120  # seconds before a token's end at which it is renewed (keystoneauth's own margin)

_VERSION = re.compile(r"/v(2\.0|3)/?$")
_DOMAIN = "Default"


def host_of(url: str) -> str:
    """A URL's host and port for messages: never a user or password written before the host."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or "?"
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{port}" if port else host


@dataclass
class Login:
    """One task's Keystone user, logged in on first use; ``token()`` is always one with time left."""

    auth_url: str
    username: str
    password: str
    region: str
    tenant_name: str | None
    http: Any  # the task's pinned requests session

    def __post_init__(self) -> None:
        self.host = host_of(self.auth_url)
        if urlsplit(self.auth_url).scheme not in ("http", "https"):
            raise TaskFailed(errors.FAILED, f"The auth_url {self.host!r} is not an http(s) URL.")
        self._session = ks_session.Session(session=self.http, timeout=60)
        self._lock = threading.Lock()
        base = _VERSION.sub("", self.auth_url.rstrip("/"))
        self._v3 = v3.Password(
            auth_url=f"{base}/v3",
            username=self.username,
            password=self.password,
            user_domain_name=_DOMAIN,
            project_name=self.tenant_name,
            project_domain_name=_DOMAIN if self.tenant_name else None,
            reauthenticate=False,  # _access renews: a Keystone may not say when a token ends
        )
        self._plugin: Any = self._v3
        if self.tenant_name:
            self._plugin = v2.Password(
                auth_url=f"{base}/v2.0",
                username=self.username,
                password=self.password,
                tenant_name=self.tenant_name,
                reauthenticate=False,
            )

    def token(self) -> str:
        with self._lock:
            return str(self._access().auth_token)

    def renew(self, stale: str) -> None:
        """Log in again, unless another thread already replaced the ``stale`` token."""
        with self._lock:
            if self._plugin.auth_ref is not None and self._plugin.auth_ref.auth_token == stale:
                self._plugin.invalidate()

    def storage_url(self) -> str:
        """The public object-store URL of the region (``https://.../v1/AUTH_<project>``)."""
        with self._lock:
            catalog = self._access().service_catalog
        found = catalog.get_urls(service_type="object-store", interface="public", region_name=self.region)
        if found:
            return str(found[0]).rstrip("/")
        endpoints = catalog.get_endpoints(service_type="object-store", interface="public")
        offered = sorted(
            {
                str(e.get("region_id") or e.get("region"))
                for es in endpoints.values()
                for e in es
                if e.get("region")
            }
        )
        raise TaskFailed(
            errors.FAILED,
            f"The catalog of Keystone at {self.host} has no public object-store endpoint in the region "
            f"{self.region!r}"
            + (f" (it has: {', '.join(offered)})." if offered else " (it has no object store)."),
        )

    def _access(self) -> Any:
        """keystoneauth's token and catalog, logged in (again) if there is none or it ends soon."""
        known = self._plugin.auth_ref
        if known is not None and _ends_soon(known):
            self._plugin.invalidate()
        try:
            return self._plugin.get_access(self._session)
        except ks_errors.NotFound:
            if self._plugin is self._v3:
                raise self._refused(404) from None
            self._plugin = self._v3  # no v2 there: the same project asked of v3
            return self._access()
        except ks_errors.Unauthorized:
            raise self._refused(401) from None
        except ks_errors.HttpError as exc:
            raise self._refused(int(exc.http_status or 0)) from None
        except ks_errors.MissingAuthMethods as exc:
            raise TaskFailed(
                errors.FAILED, f"Keystone at {self.host} answered a login oddly: {exc}"
            ) from None

    def _refused(self, status: int) -> TaskFailed:
        if status in (401, 403):
            scope = f" for the tenant {self.tenant_name!r}" if self.tenant_name else ""
            return TaskFailed(
                errors.ACCESS_DENIED,
                f"Keystone at {self.host} refused the credentials of {self.username!r}{scope} ({status}): "
                "check username, password and tenant_name.",
            )
        return TaskFailed(
            errors.UNREACHABLE if status >= 500 else errors.FAILED,
            f"Keystone at {self.host} answered {status} to a login: is auth_url its Identity endpoint?",
        )


def _ends_soon(access: Any) -> bool:
    """Whether a token ends within the margin; one whose end Keystone did not say is taken to last
    (a refusal is then what makes the task log in again)."""
    try:
        return bool(access.will_expire_soon(stale_duration=_MARGIN))
    except (KeyError, TypeError, ValueError):
        return False
