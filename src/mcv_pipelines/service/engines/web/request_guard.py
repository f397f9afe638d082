"""What a page may request: every request Chromium makes for a task is paused (the DevTools Fetch
domain) and decided here, as import/url decides its URLs (issue 24).

- Only http and https go out; ``file:``, ``ftp:``, ``chrome:`` and the rest are failed.
- With a ``UrlGuard`` (a served instance), the host is resolved and refused when any address is
  private, loopback, link-local... (url_guard.py), on every request: navigation, each redirect hop,
  subresources, fetch(), workers' requests.
- An uploaded HTML file is served to the page under a reserved name (``*.invalid``, RFC 6761),
  never as a ``file:`` URL, so it gets the same rules as a web page and cannot read local files.

A refused request fails (net::ERR_BLOCKED_BY_CLIENT) and the page goes on without it. After the
page's first navigation, a navigation of its top frame that is refused (and any at all away from an
uploaded document: a meta refresh, ``location = ...``, a form) is answered ``204 No Content``, which a browser
takes as "stay where you are": the page keeps its content, instead of being replaced by Chromium's
error page while it is being printed ("Printing failed").

The task's pinning proxy (pinning_proxy.py) tells the policy what it refused at connect (a name
that resolved differently after it was approved here): it joins the task's log, and when it was the
page's own first navigation the capture fails as a refused address rather than printing the refusal.
"""

from __future__ import annotations

import base64
import contextlib
import secrets
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost, UrlGuard

__all__ = ["Decision", "RequestPolicy", "document_url"]

_SCHEMES = frozenset({"http", "https"})
_NOT_NETWORK = frozenset({"data", "blob", "about"})  # served by the browser itself


def document_url(filename: str) -> str:
    """A URL no network can answer, for an uploaded document (a fresh host per task)."""
    name = urllib.parse.quote(filename.replace("/", "_")) or "document.html"
    return f"http://document-{secrets.token_hex(8)}.invalid/{name}"


@dataclass(frozen=True, slots=True)
class Decision:
    """A DevTools command answering one paused request."""

    method: str
    params: dict[str, Any]


@dataclass
class RequestPolicy:
    """The rules of one task's page: ``guard`` (None: any http(s) address) and its documents."""

    guard: UrlGuard | None
    documents: dict[str, tuple[bytes, str]] = field(default_factory=dict)  # url -> (body, type)
    refused: list[str] = field(default_factory=list)  # what was failed, for the task's log
    page_frame: str | None = None  # the page's own (top) frame: its target id
    navigation: set[str] = field(default_factory=set)  # the first navigation's requests, redirect hops too
    navigation_hosts: set[str] = field(default_factory=set)  # the hosts those requests went to
    refused_hosts: set[str] = field(default_factory=set)  # hosts the pinning proxy refused to dial
    left: bool = False  # an uploaded document tried to navigate away (and stayed)

    def refused_at_connect(self, host: str, port: int, reason: str) -> None:
        """The task's pinning proxy refused ``host``: the guard approved its name, then the name
        resolved to a refused address (DNS rebinding). Called from the proxy's threads."""
        self.refused_hosts.add(host.lower())
        self.refused.append(f"{host}:{port}: {reason} (at connect: its address changed after it was checked)")

    def navigation_refused_at_connect(self) -> bool:
        """Whether the proxy refused a host the page's first navigation went to (the page itself or
        a redirect): then what the browser shows is the proxy's refusal, not the page."""
        return bool(self.navigation_hosts & self.refused_hosts)

    def decide(
        self,
        request_id: str,
        url: str,
        resource_type: str = "",
        frame_id: str = "",
        redirected_from: str = "",
    ) -> Decision:
        """How to answer the paused request ``request_id`` for ``url``, asked by ``frame_id`` for a
        ``resource_type`` (the DevTools names: Document, Stylesheet, Image, Fetch...), a redirect hop
        of the request ``redirected_from`` when that is set.

        The page's first navigation is its first top-frame document request and that request's
        redirect hops; a later top-frame document request that is no such hop is the page leaving.
        Told apart by the requests alone, not by when the navigation's answer reached the task's
        thread: a meta refresh can be paused before that (seen under load)."""
        key = url.split("#", 1)[0]
        top = resource_type == "Document" and bool(frame_id) and frame_id == self.page_frame
        leaving = False
        if top:
            if not self.navigation or redirected_from in self.navigation:
                self.navigation.add(request_id)
                with contextlib.suppress(ValueError):
                    self.navigation_hosts.add((urllib.parse.urlsplit(url).hostname or "").lower())
            else:
                leaving = True
        if leaving and key not in self.documents:
            reason = "the document may not leave itself" if self.documents else self.refusal(url)
            self.left = self.left or bool(self.documents)
            if reason is None:
                return Decision("Fetch.continueRequest", {"requestId": request_id})
            self.refused.append(f"{_shown(url)}: {reason} (the page stays)")
            return Decision("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": 204, "responseHeaders": [], "body": "",
            })  # fmt: skip
        document = self.documents.get(key)
        if document is not None:
            body, content_type = document
            return Decision("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": 200,
                "responseHeaders": [{"name": "Content-Type", "value": content_type}],
                "body": base64.b64encode(body).decode(),
            })  # fmt: skip
        reason = self.refusal(url)
        if reason is None:
            return Decision("Fetch.continueRequest", {"requestId": request_id})
        self.refused.append(f"{_shown(url)}: {reason}")
        return Decision("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be requested, or None."""
        try:
            parts = urllib.parse.urlsplit(url)
            port = parts.port
        except ValueError:
            return "not a valid URL"
        if parts.scheme in _NOT_NETWORK:
            return None
        if parts.scheme not in _SCHEMES:
            return f"{parts.scheme or 'no'} scheme is not allowed"
        host = parts.hostname
        if not host:
            return "no host"
        if host.endswith(".invalid"):
            return "not a document of this task"
        if self.guard is None:
            return None
        try:
            self.guard.addresses(host, port or (443 if parts.scheme == "https" else 80))
        except ForbiddenAddress as exc:
            return str(exc)
        except UnresolvedHost as exc:
            return str(exc)
        return None


def _shown(url: str) -> str:
    """The URL without query or credentials, short enough for a log line."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}{parts.path}"[:200]
