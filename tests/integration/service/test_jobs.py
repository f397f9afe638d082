"""Jobs over loopback: creation and validation, states, scheduling, listing, waiting, deletion."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import Receiver, TextEngine, task_named, upload, wait_job

from mcv_pipelines.service.engines.base import EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.server import LocalService
from waiting import wait_until

RAW = {"operation": "import/raw", "file": "some text", "filename": "a.txt"}


def job(client: httpx.Client, tasks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    response = client.post("/v2/jobs", json={"tasks": tasks, **extra})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_created_job_matches_the_spec_shape(client: httpx.Client, service: LocalService) -> None:
    created = job(
        client,
        {"in": RAW, "md": {"operation": "convert", "input": ["in"], "output_format": "md"}},
        tag="shape",
    )
    assert created["tag"] == "shape"
    assert created["links"]["self"] == f"{service.base_url}/v2/jobs/{created['id']}"
    assert created["created_at"].endswith("+00:00")
    done = wait_job(client, created["id"])
    md = task_named(done, "md")
    assert md["status"] == "finished"
    assert md["depends_on_task_ids"] == [task_named(done, "in")["id"]]
    assert md["engine"] == "text"
    assert md["engine_version"] == "1.0"
    assert md["credits"] == 2
    assert md["percent"] == 100
    assert md["result"]["files"] == [{"filename": "a.md", "size": 9}]
    assert md["result"]["engine_note"] == "copied"
    assert md["started_at"]
    assert md["ended_at"]
    assert md["retry_of_task_id"] is None
    assert "payload" not in md
    imported = task_named(done, "in")["result"]["files"][0]
    assert imported["filename"] == "a.txt"
    assert len(imported["md5"]) == 32
    assert done["status"] == "finished"
    assert done["ended_at"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tasks": {}}, "tasks"),
        ({"tasks": {"bad name!": RAW}}, "tasks.bad name!"),
        ({"tasks": {"a": {"input": "x"}}}, "tasks.a.operation"),
        ({"tasks": {"a": {"operation": "transmogrify"}}}, "tasks.a.operation"),
        (
            {"tasks": {"a": RAW, "b": {"operation": "convert", "input": "nope", "output_format": "md"}}},
            "tasks.b.input",
        ),
        (
            {
                "tasks": {
                    "a": {"operation": "convert", "input": "b", "output_format": "md"},
                    "b": {"operation": "convert", "input": "a", "output_format": "md"},
                }
            },
            "tasks",
        ),
        ({"tasks": {"a": RAW, "b": {"operation": "convert", "input": "a"}}}, "tasks.b.output_format"),
        ({"tasks": {"a": {**RAW, "input": "a"}}}, "tasks.a.input"),
        ({"tasks": {"a": {"operation": "import/url", "url": "ftp://x"}}}, "tasks.a.url"),
        ({"tasks": {"a": {**RAW, "filename": "../etc/passwd"}}}, "tasks.a.filename"),
        ({"tasks": {"a": RAW}, "ignore_error": "yes"}, "ignore_error"),
        ({"tasks": {"a": RAW}, "tag": 5}, "tag"),
        (
            {"tasks": {"a": RAW, "m": {"operation": "merge", "input": "a", "output_format": "pdf"}}},
            "tasks.m.input",
        ),
        ({"tasks": {"a": {**RAW, "file": "x" * (10 * 1024 * 1024 + 1)}}}, "tasks.a.file"),
        (
            {"tasks": {"a": RAW, "b": {"operation": "export/url", "input": "a", "timeout": -1}}},
            "tasks.b.timeout",
        ),
    ],
)
def test_bad_job_bodies_answer_422_with_field_errors(
    client: httpx.Client, body: dict[str, Any], field: str
) -> None:
    response = client.post("/v2/jobs", json=body)
    assert response.status_code == 422
    answer = response.json()
    assert answer["code"] == "INVALID_DATA"
    assert answer["message"] == "The given data was invalid."
    assert field in answer["errors"], answer["errors"]
    assert all(isinstance(m, str) for m in answer["errors"][field])


def test_invalid_json_is_a_422(client: httpx.Client) -> None:
    response = client.post("/v2/jobs", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert "body" in response.json()["errors"]


def test_cycle_error_names_the_path(client: httpx.Client) -> None:
    response = client.post(
        "/v2/jobs",
        json={
            "tasks": {
                "a": {"operation": "convert", "input": "b", "output_format": "md"},
                "b": {"operation": "convert", "input": "a", "output_format": "md"},
            }
        },
    )
    assert "a -> b -> a" in response.json()["errors"]["tasks"][0]


def test_failed_input_fails_dependants_unless_ignore_error(client: httpx.Client) -> None:
    tasks = {
        "in": RAW,
        "bad": {"operation": "convert", "input": "in", "output_format": "md", "fail": "BROKEN"},
        "good": {"operation": "convert", "input": "in", "output_format": "md"},
        "out": {"operation": "export/url", "input": ["bad", "good"]},
    }
    done = wait_job(client, job(client, tasks)["id"])
    assert done["status"] == "error"
    bad = task_named(done, "bad")
    assert (bad["status"], bad["code"], bad["message"]) == (
        "error",
        "BROKEN",
        "The text engine was told to fail.",
    )
    assert task_named(done, "good")["status"] == "finished"
    out = task_named(done, "out")
    assert (out["status"], out["code"], out["message"]) == (
        "error",
        "INPUT_TASK_FAILED",
        "Input task has failed",
    )

    done = wait_job(client, job(client, tasks, ignore_error=True)["id"])
    assert done["status"] == "finished"
    out = task_named(done, "out")
    assert out["status"] == "finished"
    assert [f["filename"] for f in out["result"]["files"]] == ["a.md"]


def test_unexpected_engine_exception_is_internal_error_and_the_service_lives_on(client: httpx.Client) -> None:
    done = wait_job(
        client,
        job(
            client,
            {"in": RAW, "c": {"operation": "convert", "input": "in", "output_format": "md", "crash": True}},
        )["id"],
    )
    crashed = task_named(done, "c")
    assert crashed["code"] == "INTERNAL_ERROR"
    assert "RuntimeError" in crashed["message"]
    assert client.get("/v2/users/me").status_code == 200


def test_no_engine_for_the_conversion_is_a_task_error(client: httpx.Client) -> None:
    done = wait_job(
        client,
        job(client, {"in": RAW, "c": {"operation": "convert", "input": "in", "output_format": "stl"}})["id"],
    )  # no local engine makes a 3D model (txt -> docx is Calibre's since issue 23)
    failed = task_named(done, "c")
    assert failed["code"] == "UNSUPPORTED_CONVERSION"
    assert "txt" in failed["message"]
    assert "stl" in failed["message"]


def test_engine_choice_follows_the_task_engine_field(client: httpx.Client) -> None:
    done = wait_job(
        client,
        job(
            client,
            {
                "in": RAW,
                "c": {"operation": "convert", "input": "in", "output_format": "md", "engine": "text2"},
            },
        )["id"],
    )
    assert task_named(done, "c")["engine"] == "text2"
    assert task_named(done, "c")["credits"] == 3


class MeetingEngine(TextEngine):
    """The text engine, whose conversions each wait until three of them are running at once."""

    def __init__(self) -> None:
        self.meeting = threading.Barrier(3, timeout=30)  # generous: the three meet within milliseconds

    def run(self, request: EngineRequest) -> EngineResult:
        try:
            self.meeting.wait()
        except threading.BrokenBarrierError:
            raise EngineError("NOT_PARALLEL", "waited 30 s for three conversions to run at once") from None
        return super().run(request)


def test_independent_tasks_run_in_parallel(tmp_path: Path) -> None:
    # Each conversion waits for the other two: one after another, they fail instead of finishing.
    with LocalService(data_dir=tmp_path / "data", engines=[MeetingEngine()]) as svc, httpx.Client(
        base_url=svc.base_url, timeout=60, headers={"Authorization": f"Bearer {svc.api_key}"}
    ) as client:
        tasks: dict[str, Any] = {"in": RAW}
        for n in range(3):
            tasks[f"c{n}"] = {"operation": "convert", "input": "in", "output_format": "md"}
        done = wait_job(client, job(client, tasks)["id"])
    assert [task_named(done, f"c{n}")["status"] for n in range(3)] == ["finished"] * 3, done


def test_timeout_cancels_a_running_task(client: httpx.Client) -> None:
    done = wait_job(
        client,
        job(
            client,
            {
                "in": RAW,
                "slow": {
                    "operation": "convert",
                    "input": "in",
                    "output_format": "md",
                    "sleep": 5,
                    "timeout": 1,
                },
            },
        )["id"],
    )
    slow = task_named(done, "slow")
    assert slow["status"] == "error"
    assert slow["code"] == "TIMEOUT"


def test_cancel_retry_and_delete_a_task(client: httpx.Client) -> None:
    created = job(
        client,
        {"in": RAW, "slow": {"operation": "convert", "input": "in", "output_format": "md", "sleep": 5}},
    )
    slow_id = task_named(created, "slow")["id"]
    wait_until(
        lambda: client.get(f"/v2/tasks/{slow_id}").json()["data"]["status"] == "processing",
        what="the slow task to start",
    )
    cancelled = client.post(f"/v2/tasks/{slow_id}/cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["data"]["status"] == "error"
    assert cancelled.json()["data"]["code"] == "CANCELLED"
    assert wait_job(client, created["id"])["status"] == "error"
    assert client.post(f"/v2/tasks/{slow_id}/cancel").status_code == 422

    retried = client.post(f"/v2/tasks/{slow_id}/retry")
    assert retried.status_code == 201
    new = retried.json()["data"]
    assert new["id"] != slow_id
    assert new["retry_of_task_id"] == slow_id
    assert new["name"] == "slow"
    shown = client.get(f"/v2/tasks/{slow_id}", params={"include": "retries,depends_on_tasks,payload,job"})
    data = shown.json()["data"]
    assert [r["id"] for r in data["retries"]] == [new["id"]]
    assert data["depends_on_tasks"] == {"in": task_named(created, "in")["id"]}
    assert data["payload"]["sleep"] == 5
    assert data["job"]["id"] == created["id"]
    assert client.get(f"/v2/jobs/{created['id']}").json()["data"]["status"] == "processing"
    client.post(f"/v2/tasks/{new['id']}/cancel")

    deleted = client.delete(f"/v2/tasks/{slow_id}")
    assert deleted.status_code == 204
    assert deleted.content == b""
    assert client.get(f"/v2/tasks/{slow_id}").status_code == 404


def test_list_jobs_filters_and_paginates(client: httpx.Client) -> None:
    ids = [job(client, {"in": RAW}, tag="page")["id"] for _ in range(3)]
    job(client, {"in": RAW}, tag="other")
    for job_id in ids:
        wait_job(client, job_id)
    first = client.get("/v2/jobs", params={"filter[tag]": "page", "per_page": 2}).json()
    assert [j["id"] for j in first["data"]] == ids[::-1][:2]
    assert first["meta"] == {
        "current_page": 1,
        "from": 1,
        "path": first["meta"]["path"],
        "per_page": 2,
        "to": 2,
    }
    assert first["links"]["last"] is None
    assert first["links"]["prev"] is None
    second = client.get(first["links"]["next"]).json()
    assert [j["id"] for j in second["data"]] == [ids[0]]
    assert second["links"]["next"] is None
    finished = client.get(
        "/v2/jobs", params={"filter[status]": "finished", "filter[tag]": "page", "include": "tasks"}
    ).json()
    assert len(finished["data"]) == 3
    assert finished["data"][0]["tasks"][0]["name"] == "in"
    assert client.get("/v2/jobs", params={"per_page": "x"}).status_code == 422


def test_list_tasks_with_filters(client: httpx.Client) -> None:
    created = job(client, {"in": RAW, "md": {"operation": "convert", "input": "in", "output_format": "md"}})
    wait_job(client, created["id"])
    listed = client.get(
        "/v2/tasks",
        params={
            "filter[job_id]": created["id"],
            "filter[operation]": "convert",
            "filter[status]": "finished",
            "include": "depends_on_tasks",
        },
    ).json()
    assert [t["name"] for t in listed["data"]] == ["md"]
    assert listed["data"][0]["links"]["self"].endswith(listed["data"][0]["id"])
    assert listed["data"][0]["depends_on_tasks"] == {"in": task_named(created, "in")["id"]}


def test_delete_job_and_wait_endpoints(client: httpx.Client) -> None:
    created = job(client, {"in": RAW})
    waited = client.get(f"/v2/jobs/{created['id']}/wait")
    assert waited.json()["data"]["status"] == "finished"
    task_id = created["tasks"][0]["id"]
    assert client.get(f"/sync/v2/tasks/{task_id}").json()["data"]["status"] == "finished"
    assert client.delete(f"/v2/jobs/{created['id']}").status_code == 204
    assert client.get(f"/v2/jobs/{created['id']}").json()["code"] == "NOT_FOUND"


def test_sync_job_creation_and_redirect_to_the_export(client: httpx.Client) -> None:
    tasks = {"in": RAW, "out": {"operation": "export/url", "input": "in"}}
    created = client.post("/sync/v2/jobs", json={"tasks": tasks})
    assert created.status_code == 201
    assert created.json()["data"]["status"] == "finished"
    redirected = client.post("/sync/v2/jobs", json={"tasks": tasks, "redirect": True})
    assert redirected.status_code == 302
    assert httpx.get(redirected.headers["location"]).content == b"some text"
    job_id = created.json()["data"]["id"]
    shown = client.get(f"/v2/jobs/{job_id}", params={"redirect": "true"})
    assert shown.status_code == 302
    assert "/files/" in shown.headers["location"]


def test_upload_task_waits_then_finishes_on_upload(client: httpx.Client) -> None:
    created = job(client, {"up": {"operation": "import/upload"}})
    up = task_named(created, "up")
    assert up["status"] == "waiting"
    assert up["message"] == "Waiting for upload"
    assert set(up["result"]["form"]["parameters"]) >= {
        "expires",
        "max_file_count",
        "max_file_size",
        "signature",
    }
    assert upload(up["result"]["form"], b"x").status_code == 201
    assert wait_job(client, created["id"])["status"] == "finished"
    again = upload(up["result"]["form"], b"x")
    assert again.status_code == 409
    assert again.json()["code"] == "TASK_NOT_WAITING"


def test_credits_decrease_with_use(client: httpx.Client) -> None:
    before = client.get("/v2/users/me").json()["data"]
    assert {"id", "username", "email", "credits", "created_at", "links"} <= set(before)
    wait_job(
        client,
        job(client, {"in": RAW, "md": {"operation": "convert", "input": "in", "output_format": "md"}})["id"],
    )
    assert client.get("/v2/users/me").json()["data"]["credits"] == before["credits"] - 2


def test_standalone_processing_endpoints_take_task_ids(client: httpx.Client) -> None:
    imported = client.post("/v2/import/raw", json={"file": "abc", "filename": "s.txt"})
    assert imported.status_code == 201
    task = imported.json()["data"]
    assert "name" not in task
    assert task["job_id"] is None
    converted = client.post("/v2/convert", json={"input": task["id"], "output_format": "md"})
    assert converted.status_code == 201
    done = client.get(f"/sync/v2/tasks/{converted.json()['data']['id']}").json()["data"]
    assert done["status"] == "finished"
    assert done["depends_on_task_ids"] == [task["id"]]
    exported = client.post("/v2/export/url", json={"input": [done["id"]]}).json()["data"]
    url = client.get(f"/sync/v2/tasks/{exported['id']}").json()["data"]["result"]["files"][0]["url"]
    assert httpx.get(url).content == b"abc"
    unknown = client.post("/v2/convert", json={"input": "no-such-task", "output_format": "md"})
    assert unknown.status_code == 422
    assert "input" in unknown.json()["errors"]
    missing = client.post("/v2/merge", json={"input": [task["id"]]})
    assert set(missing.json()["errors"]) >= {"input", "output_format"}


def test_a_successful_retry_finishes_the_job(client: httpx.Client) -> None:
    with Receiver() as origin:
        failed = job(client, {"in": {"operation": "import/url", "url": f"{origin.url}/late.txt"}})
        assert wait_job(client, failed["id"])["status"] == "error"
        origin.files["/late.txt"] = b"now here"
        source_id = task_named(failed, "in")["id"]
        retried = client.post(f"/v2/tasks/{source_id}/retry").json()["data"]
        assert retried["retry_of_task_id"] == source_id
        done = client.get(f"/sync/v2/tasks/{retried['id']}").json()["data"]
    assert done["status"] == "finished"
    assert client.get(f"/v2/jobs/{failed['id']}").json()["data"]["status"] == "finished"


def test_unknown_engine_version_is_a_task_error(client: httpx.Client) -> None:
    done = wait_job(
        client,
        job(
            client,
            {
                "in": RAW,
                "c": {"operation": "convert", "input": "in", "output_format": "md", "engine_version": "9.9"},
            },
        )["id"],
    )
    failed = task_named(done, "c")
    assert failed["code"] == "UNSUPPORTED_ENGINE_VERSION"
    assert "1.0" in failed["message"]


async def test_async_context_manager(tmp_path: Path) -> None:
    async with LocalService(data_dir=tmp_path, engines=[]) as svc, httpx.AsyncClient() as client:
        answer = await client.get(
            f"{svc.base_url}/v2/users/me", headers={"Authorization": f"Bearer {svc.api_key}"}
        )
        assert answer.status_code == 200


def test_task_list_pages_follow_links_next(client: httpx.Client) -> None:
    created = job(client, {f"t{n}": {**RAW, "filename": f"{n}.txt"} for n in range(5)})
    wait_job(client, created["id"])
    seen: list[str] = []
    url: str | None = f"/v2/tasks?filter[job_id]={created['id']}&per_page=2"
    pages = 0
    while url:
        page = client.get(url).json()
        seen += [t["name"] for t in page["data"]]
        url = page["links"]["next"]
        pages += 1
    assert pages == 3
    assert sorted(seen) == [f"t{n}" for n in range(5)]


def test_many_jobs_with_parallel_tasks_all_end(tmp_path: Path) -> None:
    # Tasks of one job ending at the same moment must not leave the job's status behind.
    from service_helpers import TextEngine

    tasks: dict[str, Any] = {"in": RAW}
    tasks.update({f"c{n}": {"operation": "convert", "input": "in", "output_format": "md"} for n in range(4)})
    with (
        LocalService(data_dir=tmp_path, engines=[TextEngine()], settings={"sync_max_wait": 10.0}) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        ids = [job(client, tasks)["id"] for _ in range(25)]
        statuses = [wait_job(client, job_id)["status"] for job_id in ids]
    assert statuses == ["finished"] * 25


def test_the_creation_answer_is_the_job_as_stored_and_shows_tasks_that_started_at_once(
    client: httpx.Client,
) -> None:
    waiting = job(
        client,
        {
            "in": {"operation": "import/upload"},
            "md": {"operation": "convert", "input": "in", "output_format": "md"},
        },
        tag="stored",
    )
    read_back = client.get(f"/v2/jobs/{waiting['id']}").json()["data"]
    assert waiting == read_back  # nothing moved: the answer is what the store holds, form included
    assert [t["status"] for t in waiting["tasks"]] == ["waiting", "waiting"]
    assert task_named(waiting, "in")["result"]["form"]["url"]
    started = job(client, {"in": RAW})
    assert task_named(started, "in")["status"] in ("processing", "finished")  # never a stale "waiting"


def test_a_body_that_is_not_json_or_not_unicode_is_refused_saying_why(client: httpx.Client) -> None:
    headers = {"Content-Type": "application/json"}
    broken = client.post("/v2/jobs", content=b'{"tasks": ', headers=headers)
    assert broken.status_code == 422
    assert "The body is not valid JSON: Expecting value: line 1 column 11" in broken.text
    # a lone surrogate escape parses as JSON but is no text: it failed the database write with a 500
    odd = b'{"tag": "odd \\ud800", "tasks": {"in": {"operation": "import/upload"}}}'
    refused = client.post("/v2/jobs", content=odd, headers=headers)
    assert refused.status_code == 422, refused.text
    assert "lone surrogate" in refused.text
