"""What Schemathesis found against the contract, each fixed in the service; one test per finding."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.server import LocalService


@pytest.fixture
def client(contract_service: LocalService) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {contract_service.api_key}"}
    with httpx.Client(base_url=contract_service.base_url, headers=headers, timeout=30) as c:
        yield c


def test_download_link_with_a_non_ascii_signature_is_403_not_500(client: httpx.Client) -> None:
    answer = client.get("/files/some-task/a.png", params={"expires": "1", "signature": "å"})
    assert answer.status_code == 403
    assert answer.json()["code"] == "INVALID_SIGNATURE"


def test_a_job_deleted_while_a_wait_blocks_on_it_is_404_not_500(tmp_path: Path) -> None:
    # A bound far beyond the test: the wait must end because of the delete, not its 409.
    settings = {"sync_max_wait": 600.0}
    with (
        LocalService(data_dir=tmp_path / "data", engines=[PillowEngine()], settings=settings) as service,
        httpx.Client(
            base_url=service.base_url, headers={"Authorization": f"Bearer {service.api_key}"}, timeout=60
        ) as client,
    ):
        assert service.ctx is not None
        feed = service.ctx.changes
        job = client.post("/v2/jobs", json={"tasks": {"up": {"operation": "import/upload"}}}).json()["data"]
        before = feed.subscribers()
        answers: list[httpx.Response] = []
        waiter = threading.Thread(target=lambda: answers.append(client.get(f"/v2/jobs/{job['id']}/wait")))
        waiter.start()  # blocks: the upload never comes
        # The wait has found the job and subscribed to its changes: it blocks on them now.
        _until(lambda: feed.subscribers() > before)
        assert answers == []
        assert client.delete(f"/v2/jobs/{job['id']}").status_code == 204
        waiter.join(timeout=60)
    assert [a.status_code for a in answers] == [404]
    assert answers[0].json()["code"] == "NOT_FOUND"


def _until(condition: Callable[[], bool], bound: float = 60.0) -> None:
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, "the event did not happen"
        time.sleep(0.01)


def test_a_standalone_body_naming_another_operation_is_refused(client: httpx.Client) -> None:
    answer = client.post("/v2/import/upload", json={"operation": "import/url", "url": "http://127.0.0.1:9/"})
    assert answer.status_code == 422
    assert "import/upload" in answer.json()["errors"]["operation"][0]
    assert client.post("/v2/import/upload", json={"operation": "import/upload"}).status_code == 201


def test_import_url_headers_that_http_cannot_carry_are_refused_up_front(client: httpx.Client) -> None:
    # Was accepted, then the task crashed inside httpx ("failed unexpectedly").
    for headers in ({"\U000fcf9e": "x"}, {"X-Token": "café"}, {"X-Token": "a\r\nInjected: 1"}):
        answer = client.post("/v2/import/url", json={"url": "http://127.0.0.1:9/a.png", "headers": headers})
        assert answer.status_code == 422, headers
        assert any(field.startswith("headers") for field in answer.json()["errors"])


def test_bodies_are_checked_against_the_operation_schemas(client: httpx.Client) -> None:
    unknown = client.post("/v2/import/url", json={"url": "http://127.0.0.1:9/a.png", "colour": "red"})
    assert unknown.status_code == 422
    assert unknown.json()["errors"] == {"colour": ["The field colour is unknown to import/url."]}
    job = {
        "tasks": {
            "in": {"operation": "import/raw", "file": "x", "filename": "a.txt"},
            "small": {"operation": "convert", "input": "in", "output_format": "png", "width": 0},
        }
    }
    answer = client.post("/v2/jobs", json=job)
    assert answer.status_code == 422
    assert answer.json()["errors"] == {"tasks.small.width": ["The value must be at least 1."]}


def test_a_huge_value_is_never_quoted_back(client: httpx.Client) -> None:
    big = "A" * 14_000_000  # over the 10 MiB base64 limit
    answer = client.post("/v2/import/base64", json={"file": big, "filename": "a.png"})
    assert answer.status_code == 422
    assert len(answer.text) < 1000


def test_an_enormous_timeout_neither_crashes_the_timer_nor_the_task(client: httpx.Client) -> None:
    # A timeout of 1e300 s crashed the task's timer thread (OverflowError; the task then had none).
    job = {
        "tasks": {
            "in": {"operation": "import/raw", "file": "x", "filename": "a.txt"},
            "zip": {"operation": "archive", "input": "in", "output_format": "zip", "timeout": 1e300},
        }
    }
    created = client.post("/v2/jobs", json=job)
    assert created.status_code == 201, created.text
    done = client.get(f"/v2/jobs/{created.json()['data']['id']}/wait").json()["data"]
    assert done["status"] == "finished"
