"""Logging in to OpenStack's Identity service (Keystone) for a Swift task: a token and the storage URL.

Without ``tenant_name``: Keystone v3, ``POST {auth_url}/v3/auth/tokens`` with the password method, the
user in the "Default" domain and no explicit scope (Keystone scopes the token to the user's default
project); the token comes in the X-Subject-Token header. With ``tenant_name``: Keystone v2,
``POST {auth_url}/v2.0/tokens`` with passwordCredentials and tenantName; a Keystone that no longer
serves v2 (404) is asked v3 for that project in the "Default" domain instead. ``auth_url`` is the
Identity endpoint with or without its version (``https://id.example:5000`` or ``.../v3``).

The object store is the catalog's ``object-store`` service, public interface, in the task's region.
The token's end (v3 ``expires_at``, v2 ``expires``) comes with it, so a long task can log in again.
Every address here (auth_url, the storage URL) goes through the task's guard when the request is sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.http_calls import retried

__all__ = ["Login", "Session", "host_of", "log_in"]

_VERSION = re.compile(r"/v(2\.0|3)/?$")
_DOMAIN = {"name": "Default"}


@dataclass(frozen=True)
class Login:
    """What a task gives to log in."""

    auth_url: str
    username: str
    password: str
    region: str
    tenant_name: str | None = None


@dataclass(frozen=True)
class Session:
    """A token and the public object-store URL of the region (``https://.../v1/AUTH_<project>``);
    ``expires``: when the token ends (seconds since the epoch), if Keystone said."""

    token: str
    storage_url: str
    expires: float | None = None


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


def _base(auth_url: str) -> str:
    return _VERSION.sub("", auth_url.rstrip("/"))


def log_in(http: httpx.Client, login: Login, retry_for: float, secrets: errors.Secrets) -> Session:
    """A token for ``login`` and its region's object store; TaskFailed with the Identity host named."""
    host = host_of(login.auth_url)
    if urlsplit(login.auth_url).scheme not in ("http", "https"):
        raise TaskFailed(errors.FAILED, f"The auth_url {host!r} is not an http(s) URL.")
    if login.tenant_name:
        answer = _post(
            http, f"{_base(login.auth_url)}/v2.0/tokens", _v2_body(login), login, retry_for, secrets
        )
        if answer.status_code != 404:
            return _v2_session(_ok(answer, login, host), login, host)
    scope = {"project": {"name": login.tenant_name, "domain": _DOMAIN}} if login.tenant_name else None
    answer = _post(
        http, f"{_base(login.auth_url)}/v3/auth/tokens", _v3_body(login, scope), login, retry_for, secrets
    )
    body = _ok(answer, login, host)
    token = answer.headers.get("X-Subject-Token", "")
    if not token:
        raise TaskFailed(errors.FAILED, f"Keystone at {host} answered without a token (no X-Subject-Token).")
    catalog = _dig(body, "token", "catalog")
    if catalog is None:
        raise TaskFailed(
            errors.FAILED,
            f"Keystone at {host} gave {login.username!r} a token without a service catalog: the user has "
            "no default project; name the project with tenant_name.",
        )
    urls = [
        (str(e.get("region_id") or e.get("region") or ""), str(e.get("url") or ""))
        for e in _endpoints(catalog)
        if e.get("interface") == "public"
    ]
    return Session(token, _in_region(urls, login, host), _moment(_dig(body, "token", "expires_at")))


def _moment(text: Any) -> float | None:
    """An ISO 8601 time as seconds since the epoch; None for what is not one (the token is then
    taken to last, and a refusal is what makes the task log in again)."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.timestamp() if moment.tzinfo is not None else None


def _v2_session(body: dict[str, Any], login: Login, host: str) -> Session:
    token = str(_dig(body, "access", "token", "id") or "")
    if not token:
        raise TaskFailed(errors.FAILED, f"Keystone at {host} answered without a token.")
    catalog = _dig(body, "access", "serviceCatalog") or []
    urls = [(str(e.get("region") or ""), str(e.get("publicURL") or "")) for e in _endpoints(catalog)]
    expires = _moment(_dig(body, "access", "token", "expires"))
    return Session(token, _in_region(urls, login, host), expires)


def _v2_body(login: Login) -> dict[str, Any]:
    credentials = {"username": login.username, "password": login.password}
    return {"auth": {"passwordCredentials": credentials, "tenantName": login.tenant_name}}


def _v3_body(login: Login, scope: dict[str, Any] | None) -> dict[str, Any]:
    user = {"name": login.username, "domain": _DOMAIN, "password": login.password}
    auth: dict[str, Any] = {"identity": {"methods": ["password"], "password": {"user": user}}}
    if scope is not None:
        auth["scope"] = scope
    return {"auth": auth}


def _post(
    http: httpx.Client,
    url: str,
    body: dict[str, Any],
    login: Login,
    retry_for: float,
    secrets: errors.Secrets,
) -> httpx.Response:
    what = f"log in to Keystone at {host_of(url)}"
    return retried(what, lambda: http.post(url, json=body), retry_for, secrets.hide)


def _ok(answer: httpx.Response, login: Login, host: str) -> dict[str, Any]:
    """The JSON body of a successful answer; the failure a user reads otherwise."""
    status = answer.status_code
    if status in (401, 403):
        scope = f" for the tenant {login.tenant_name!r}" if login.tenant_name else ""
        raise TaskFailed(
            errors.ACCESS_DENIED,
            f"Keystone at {host} refused the credentials of {login.username!r}{scope} ({status}): check "
            "username, password and tenant_name.",
        )
    if status >= 300:
        raise TaskFailed(
            errors.UNREACHABLE if status >= 500 else errors.FAILED,
            f"Keystone at {host} answered {status} to a login: is auth_url its Identity endpoint?",
        )
    try:
        body = answer.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise TaskFailed(errors.FAILED, f"Keystone at {host} answered a login with something not JSON.")
    return body


def _dig(body: Any, *names: str) -> Any:
    for name in names:
        body = body.get(name) if isinstance(body, dict) else None
    return body


def _endpoints(catalog: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for service in catalog if isinstance(catalog, list) else []:
        if isinstance(service, dict) and service.get("type") == "object-store":
            found += [e for e in service.get("endpoints") or [] if isinstance(e, dict)]
    return found


def _in_region(urls: list[tuple[str, str]], login: Login, host: str) -> str:
    for region, url in urls:
        if region == login.region and urlsplit(url).scheme in ("http", "https"):
            return url.rstrip("/")
    offered = sorted({region for region, _ in urls if region})
    raise TaskFailed(
        errors.FAILED,
        f"The catalog of Keystone at {host} has no public object-store endpoint in the region "
        f"{login.region!r}"
        + (f" (it has: {', '.join(offered)})." if offered else " (it has no object store)."),
    )
