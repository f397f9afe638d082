"""What a page may request (request_guard.py): http(s) only, the service's guard on every host, an
uploaded document answered by the service itself."""

from __future__ import annotations

import pytest

from mcv_pipelines.service.engines.url_guard import NoNetworkGuard, UrlGuard, parse_networks
from mcv_pipelines.service.engines.web.request_guard import RequestPolicy, document_url


def resolve_to(address: str) -> UrlGuard:
    return UrlGuard(resolver=lambda host, port: [address], allowed_networks=parse_networks(["127.0.0.2/32"]))


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/x", "chrome://settings", "filesystem:http://a/x", "gopher://a/"]
)
def test_only_http_and_https_go_out(url: str) -> None:
    policy = RequestPolicy(guard=None)
    assert policy.decide("1", url).method == "Fetch.failRequest"
    assert "scheme is not allowed" in policy.refused[0]


def test_without_a_guard_any_http_address_goes_out() -> None:
    assert RequestPolicy(guard=None).decide("1", "http://127.0.0.1:9/x").method == "Fetch.continueRequest"


@pytest.mark.parametrize(
    ("address", "method"),
    [("127.0.0.1", "Fetch.failRequest"), ("10.0.0.7", "Fetch.failRequest"),
     ("169.254.169.254", "Fetch.failRequest"), ("::ffff:127.0.0.1", "Fetch.failRequest"),
     ("127.0.0.2", "Fetch.continueRequest"),
     ("93.184.215.14", "Fetch.continueRequest")],
)  # fmt: skip
def test_the_guard_judges_the_address_a_name_resolves_to(address: str, method: str) -> None:
    policy = RequestPolicy(guard=resolve_to(address))
    assert policy.decide("7", "https://pictures.example.com/cat.png").method == method


def test_an_uploaded_document_is_answered_here_and_nothing_else_of_its_host() -> None:
    policy = RequestPolicy(guard=None)
    url = document_url("report.html")
    policy.documents[url] = (b"<p>hi</p>", "text/html")
    answer = policy.decide("3", url)
    assert answer.method == "Fetch.fulfillRequest"
    assert answer.params["responseCode"] == 200
    sibling = url.rsplit("/", 1)[0] + "/other.png"
    assert policy.decide("4", sibling).method == "Fetch.failRequest"
    assert document_url("report.html") != url  # a fresh host per task


def test_a_page_that_fetches_nothing_gets_no_address_public_or_private() -> None:
    # Pandoc's printed page (text/pandoc_pdf.py): every host refused, none resolved.
    asked: list[str] = []
    guard = NoNetworkGuard(resolver=lambda host, port: asked.append(host) or ["93.184.215.14"])
    policy = RequestPolicy(guard=guard)
    for url in ("https://example.com/a.css", "http://93.184.215.14/", "http://127.0.0.1:9/x"):
        assert policy.decide("1", url).method == "Fetch.failRequest"
    assert asked == []
    assert "this document fetches nothing" in policy.refused[0]
    assert policy.decide("2", "data:image/png;base64,AAAA").method == "Fetch.continueRequest"


def test_a_loaded_page_refused_a_navigation_stays_where_it_is() -> None:
    # A meta refresh or `location = ...` toward a refused address, after the page's first navigation:
    # answered 204 (the browser keeps the page) rather than failed (Chromium's error page would
    # replace it). The first navigation and its redirect hops are failed as before.
    policy = RequestPolicy(guard=resolve_to("127.0.0.1"), page_frame="F1")
    assert policy.decide("1", "https://site.example/", "Document", "F1").method == "Fetch.failRequest"
    hop = policy.decide("2", "https://moved.example/", "Document", "F1", redirected_from="1")
    assert hop.method == "Fetch.failRequest"
    policy.refused.clear()
    answer = policy.decide("3", "https://elsewhere.example/", "Document", "F1")
    assert (answer.method, answer.params["responseCode"]) == ("Fetch.fulfillRequest", 204)
    assert "(the page stays)" in policy.refused[0]
    # A frame inside the page, and what is not a navigation, are failed as any request is.
    assert policy.decide("4", "https://elsewhere.example/", "Document", "F2").method == "Fetch.failRequest"
    assert policy.decide("5", "https://elsewhere.example/a.png", "Image", "F1").method == "Fetch.failRequest"


def test_a_loaded_page_may_go_where_the_guard_allows() -> None:
    policy = RequestPolicy(guard=resolve_to("93.184.215.14"), page_frame="F1")
    policy.decide("1", "https://site.example/", "Document", "F1")
    assert policy.decide("2", "https://site.example/en/", "Document", "F1").method == "Fetch.continueRequest"


def test_an_uploaded_document_never_leaves_itself() -> None:
    policy = RequestPolicy(guard=None, page_frame="F1")  # even where any address is allowed
    url = document_url("report.html")
    policy.documents[url] = (b"<p>hi</p>", "text/html")
    assert policy.decide("1", url, "Document", "F1").params["responseCode"] == 200
    answer = policy.decide("2", "https://example.com/", "Document", "F1")
    assert (answer.method, answer.params["responseCode"]) == ("Fetch.fulfillRequest", 204)
    assert "may not leave itself" in policy.refused[0]
    assert policy.decide("3", url + "#part", "Document", "F1").params["responseCode"] == 200  # a reload


def test_a_first_navigation_refused_at_connect_is_known() -> None:
    # The page and its redirects are the navigation; when the task's pinning proxy refused one of
    # their hosts, the browser holds the proxy's 403, not the page.
    policy = RequestPolicy(guard=resolve_to("93.184.215.14"), page_frame="F1")
    policy.decide("1", "http://start.example/", "Document", "F1")
    policy.decide("2", "http://moved.example/", "Document", "F1", redirected_from="1")  # a redirect hop
    policy.decide("3", "http://framed.example/", "Document", "F2")  # an iframe: not the page
    policy.decide("4", "http://later.example/", "Document", "F1")  # a later navigation: not the first
    policy.refused_at_connect("framed.example", 80, "127.0.0.1 is a loopback address")
    policy.refused_at_connect("later.example", 80, "127.0.0.1 is a loopback address")
    assert not policy.navigation_refused_at_connect()
    policy.refused_at_connect("moved.example", 80, "127.0.0.1 is a loopback address")
    assert policy.navigation_refused_at_connect()
    assert "moved.example:80: 127.0.0.1 is a loopback address (at connect" in policy.refused[-1]
