"""import/url on a guarded service: private addresses are refused after resolution and on every
redirect hop, and the connection goes to the address that was checked.

Everything stays on loopback: names are made to resolve to 127.0.0.x by an injected resolver, and
the "allowed" origins are loopback addresses the guard is told to allow (as an operator allows an
internal file server with --allow-private-network).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from origins import Origin
from service_helpers import task_named, wait_job

from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.server import LocalService

ServiceFactory = Callable[[UrlGuard], httpx.Client]


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[ServiceFactory]:
    """Start a service with the given guard; returns a client of it."""
    started: list[tuple[LocalService, httpx.Client]] = []

    def start(guard: UrlGuard) -> httpx.Client:
        service = LocalService(
            data_dir=tmp_path / f"data{len(started)}", engines=[], settings={"url_guard": guard}
        )
        service.start()
        client = httpx.Client(
            base_url=service.base_url, timeout=30.0, headers={"Authorization": f"Bearer {service.api_key}"}
        )
        started.append((service, client))
        return client

    yield start
    for service, client in started:
        client.close()
        service.stop()


def resolving(
    table: dict[str, Sequence[str]], calls: list[str] | None = None
) -> Callable[[str, int], Sequence[str]]:
    def resolve(host: str, port: int) -> Sequence[str]:
        if calls is not None:
            calls.append(host)
        return table[host]

    return resolve


def import_task(client: httpx.Client, url: str) -> dict[str, Any]:
    created = client.post("/v2/jobs", json={"tasks": {"in": {"operation": "import/url", "url": url}}})
    assert created.status_code == 201, created.text
    return task_named(wait_job(client, created.json()["data"]["id"]), "in")


def test_a_loopback_address_is_refused(guarded: ServiceFactory) -> None:
    client = guarded(UrlGuard())
    with Origin("127.0.0.1") as origin:
        origin.files["/a.txt"] = b"private bytes"
        task = import_task(client, f"http://127.0.0.1:{origin.port}/a.txt")
    assert task["status"] == "error"
    assert task["code"] == "IMPORT_FORBIDDEN_ADDRESS"
    assert "The host 127.0.0.1 resolves to a loopback address" in task["message"]
    assert "--allow-private-urls" in task["message"]
    assert origin.requests == []


def test_a_public_looking_name_that_resolves_to_loopback_is_refused(guarded: ServiceFactory) -> None:
    client = guarded(UrlGuard(resolver=resolving({"files.example.com": ["127.0.0.1"]})))
    with Origin("127.0.0.1") as origin:
        origin.files["/a.txt"] = b"private bytes"
        task = import_task(client, f"http://files.example.com:{origin.port}/a.txt?signature=s3cr3t-sig")
    assert task["code"] == "IMPORT_FORBIDDEN_ADDRESS"
    assert "The host files.example.com resolves to a loopback address" in task["message"]
    assert "s3cr3t-sig" not in task["message"]  # the host is named, never the query
    assert "127.0.0.1" not in task["message"]  # where a name points is for the operator's log
    assert origin.requests == []


@pytest.mark.parametrize("target_host", ["127.0.0.1", "internal.example"])
def test_a_redirect_from_an_allowed_host_to_loopback_is_refused(
    guarded: ServiceFactory, target_host: str
) -> None:
    table = {"cdn.example.com": ["127.0.0.2"], "internal.example": ["127.0.0.1"]}
    guard = UrlGuard(resolver=resolving(table), allowed_networks=parse_networks(["127.0.0.2/32"]))
    client = guarded(guard)
    with Origin("127.0.0.2") as allowed, Origin("127.0.0.1") as private:
        private.files["/secret.txt"] = b"admin page"
        allowed.redirects["/a.txt"] = f"http://{target_host}:{private.port}/secret.txt"
        task = import_task(client, f"http://cdn.example.com:{allowed.port}/a.txt")
    assert task["code"] == "IMPORT_FORBIDDEN_ADDRESS"
    assert (
        f"The host {target_host} (redirected from cdn.example.com) resolves to a loopback address"
        in (task["message"])
    )
    assert [path for path, _ in allowed.requests] == ["/a.txt"]
    assert private.requests == []


def test_an_allowed_host_is_fetched_from_the_address_that_was_checked(guarded: ServiceFactory) -> None:
    # The name answers 127.0.0.2 (allowed) first and 127.0.0.1 (refused) afterwards, the way a
    # rebinding attacker's DNS would: the service resolves once and connects to what it checked.
    answers = iter([["127.0.0.2"], ["127.0.0.1"], ["127.0.0.1"]])
    calls: list[str] = []

    def rebinding(host: str, port: int) -> Sequence[str]:
        calls.append(host)
        return next(answers)

    client = guarded(UrlGuard(resolver=rebinding, allowed_networks=parse_networks(["127.0.0.2"])))
    with Origin("127.0.0.2") as origin:
        origin.files["/report.txt"] = b"public report"
        task = import_task(client, f"http://rebind.example:{origin.port}/report.txt")
    assert task["status"] == "finished", task
    assert task["result"]["files"][0]["md5"] == hashlib.md5(b"public report").hexdigest()  # noqa: S324 - the API reports md5
    assert calls == ["rebind.example"]
    assert origin.requests[0][1]["host"] == f"rebind.example:{origin.port}"  # the name, not the address


def test_the_embedded_default_has_no_guard(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path / "data", engines=[]) as service:
        assert service.ctx is not None
        assert service.ctx.config.url_guard is None
