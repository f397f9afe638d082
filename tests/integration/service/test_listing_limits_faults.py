"""The operations listing, the rate limit, fault injection."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from service_helpers import AltTextEngine, TextEngine

from mcv_pipelines.service.server import LocalService


def test_listing_needs_no_key_and_filters(service: LocalService) -> None:
    listed = httpx.get(f"{service.base_url}/v2/operations").json()["data"]
    keys = {(d["operation"], d["input_format"], d["output_format"], d["engine"]) for d in listed}
    assert ("convert", "txt", "md", "text") in keys
    assert ("convert", "txt", "md", "text2") not in keys  # the default engine only
    first = next(d for d in listed if d["engine"] == "text" and d["output_format"] == "md")
    assert first == {
        "operation": "convert",
        "input_format": "txt",
        "output_format": "md",
        "engine": "text",
        "credits": 2,
        "deprecated": False,
        "experimental": False,
        "meta": {"group": "text"},
    }
    alternatives = httpx.get(
        f"{service.base_url}/v2/operations",
        params={"alternatives": "true", "filter[input_format]": "txt", "filter[output_format]": "md"},
    ).json()["data"]
    assert [d["engine"] for d in alternatives] == ["text", "text2"]
    detailed = httpx.get(
        f"{service.base_url}/v2/operations",
        params={"filter[operation]": "merge", "include": "options,engine_versions"},
    ).json()["data"]
    assert len(detailed) == 1
    options = {o["name"]: o for o in detailed[0]["options"]}
    assert options["mode"] == {
        "name": "mode",
        "type": "enum",
        "default": "copy",
        "possible_values": ["copy", "upper"],
    }
    assert detailed[0]["engine_versions"] == [
        {"version": "1.0", "default": True, "latest": True, "deprecated": False, "experimental": False}
    ]
    assert (
        httpx.get(f"{service.base_url}/v2/operations", params={"filter[engine_version]": "9"}).json()["data"]
        == []
    )
    formats = httpx.get(f"{service.base_url}/v2/convert/formats").json()["data"]
    assert {d["operation"] for d in formats} == {"convert"}


def test_rate_limit_headers_and_429(tmp_path: Path) -> None:
    with (
        LocalService(
            data_dir=tmp_path, engines=[TextEngine()], settings={"rate_limit": 2, "rate_period": 60.0}
        ) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        shown = client.get("/v2/users/me")
        assert shown.headers["X-RateLimit-Limit"] == "2"
        assert shown.headers["X-RateLimit-Remaining"] == "2"
        body = {"tasks": {"in": {"operation": "import/raw", "file": "x", "filename": "a.txt"}}}
        assert client.post("/v2/jobs", json=body).headers["X-RateLimit-Remaining"] == "1"
        assert client.post("/v2/import/raw", json={"file": "x", "filename": "b.txt"}).status_code == 201
        limited = client.post("/v2/jobs", json=body)
        assert limited.status_code == 429
        assert limited.json() == {"message": limited.json()["message"], "code": "TOO_MANY_REQUESTS"}
        assert int(limited.headers["Retry-After"]) >= 1
        assert limited.headers["X-RateLimit-Remaining"] == "0"
        assert client.get("/v2/jobs").status_code == 200  # reading is not limited


def test_faults_are_seeded_and_cover_statuses_and_drops(tmp_path: Path) -> None:
    spec = "429=0.2,503=0.2,drop=0.1,seed=3"
    outcomes = []
    for run in range(2):
        with (
            LocalService(data_dir=tmp_path / str(run), engines=[AltTextEngine()], faults=spec) as svc,
            httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
        ):
            seen = []
            for _ in range(40):
                try:
                    seen.append(str(client.get("/v2/users/me").status_code))
                except httpx.RemoteProtocolError:
                    seen.append("drop")
            assert httpx.get(f"{svc.base_url}/files/x/y").status_code == 403  # only API paths get faults
            outcomes.append(seen)
    assert outcomes[0] == outcomes[1]  # the same seed, the same faults
    assert {"200", "429", "503", "drop"} <= set(outcomes[0])


def test_delay_fault_slows_answers(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path, engines=[TextEngine()], faults="delay=1:0.3") as svc:
        started = time.monotonic()
        assert httpx.get(f"{svc.base_url}/v2/operations").status_code == 200
        assert time.monotonic() - started >= 0.3
