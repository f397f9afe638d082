"""List pages over the real service: a next link carries where its page ended (``seq_below``), so
following links costs one page each and never shows an item twice when new items arrive between
pages; page numbers alone still work; per_page has a documented maximum."""

from __future__ import annotations

from typing import Any

import httpx
from service_helpers import wait_job

RAW = {"operation": "import/raw", "file": "some text", "filename": "a.txt"}


def _job(client: httpx.Client, tag: str) -> str:
    created = client.post("/v2/jobs", json={"tasks": {"in": RAW}, "tag": tag})
    assert created.status_code == 201, created.text
    job_id: str = created.json()["data"]["id"]
    wait_job(client, job_id)
    return job_id


def _follow(client: httpx.Client, url: str) -> list[dict[str, Any]]:
    """Every page from ``url`` on, by links.next."""
    pages = []
    next_url: str | None = url
    while next_url:
        answer = client.get(next_url)
        assert answer.status_code == 200, answer.text
        pages.append(answer.json())
        next_url = pages[-1]["links"]["next"]
    return pages


def test_following_next_links_lists_every_job_once_newest_first(client: httpx.Client) -> None:
    ids = [_job(client, "walk") for _ in range(5)]
    _job(client, "elsewhere")
    pages = _follow(client, "/v2/jobs?filter[tag]=walk&per_page=2")
    assert [[j["id"] for j in p["data"]] for p in pages] == [ids[4:2:-1], ids[2:0:-1], ids[:1]]
    assert [(p["meta"]["current_page"], p["meta"]["from"], p["meta"]["to"]) for p in pages] == [
        (1, 1, 2),
        (2, 3, 4),
        (3, 5, 5),
    ]
    second = httpx.URL(pages[0]["links"]["next"]).params
    assert (second["page"], second["per_page"], second["filter[tag]"]) == ("2", "2", "walk")
    assert second["seq_below"].isdigit()
    assert pages[1]["links"]["prev"].endswith("page=1&per_page=2")
    by_number = client.get("/v2/jobs", params={"filter[tag]": "walk", "per_page": 2, "page": 2}).json()
    assert by_number["data"] == pages[1]["data"]  # a page number alone: the same page, by offset


def test_a_job_created_between_pages_does_not_repeat_an_item_on_the_next(client: httpx.Client) -> None:
    ids = [_job(client, "moving") for _ in range(3)]
    first = client.get("/v2/jobs", params={"filter[tag]": "moving", "per_page": 2}).json()
    assert [j["id"] for j in first["data"]] == [ids[2], ids[1]]
    newest = _job(client, "moving")
    rest = client.get(first["links"]["next"]).json()
    assert [j["id"] for j in rest["data"]] == [ids[0]]
    assert rest["links"]["next"] is None
    shifted = client.get("/v2/jobs", params={"filter[tag]": "moving", "per_page": 2, "page": 2}).json()
    assert [j["id"] for j in shifted["data"]] == [ids[1], ids[0]]  # what a bare page number shows now
    assert newest not in [j["id"] for p in (first, rest) for j in p["data"]]


def test_task_pages_follow_the_same_links(client: httpx.Client) -> None:
    job_ids = [_job(client, "tasks") for _ in range(3)]
    pages = _follow(client, "/v2/tasks?per_page=2&filter[operation]=import/raw")
    listed = [t["job_id"] for p in pages for t in p["data"]]
    assert listed == job_ids[::-1]
    assert all("seq_below=" in p["links"]["next"] for p in pages[:-1])


def test_per_page_has_a_maximum_and_a_bad_bound_is_refused(client: httpx.Client) -> None:
    assert client.get("/v2/jobs", params={"per_page": 1000}).status_code == 200
    too_many = client.get("/v2/tasks", params={"per_page": 1001})
    assert too_many.status_code == 422
    assert too_many.json()["errors"]["per_page"] == ["The per_page must be an integer from 1 to 1000."]
    bad = client.get("/v2/jobs", params={"seq_below": "x1"})
    assert bad.status_code == 422
    assert "seq_below" in bad.json()["errors"]


def test_deleting_the_last_task_of_an_ended_job_removes_the_job(client: httpx.Client) -> None:
    job_id = _job(client, "lone")
    task_id = client.get(f"/v2/jobs/{job_id}").json()["data"]["tasks"][0]["id"]
    assert client.delete(f"/v2/tasks/{task_id}").status_code == 204
    assert client.get(f"/v2/jobs/{job_id}").status_code == 404
