"""The service on a directory store other than the data directory: files land there, the data
directory keeps none, links stream them out (ranges too), and deleting a task removes them."""

from __future__ import annotations

from pathlib import Path

import httpx

from mcv_pipelines.service.server import LocalService


def test_a_file_store_outside_the_data_dir_holds_every_file(tmp_path: Path) -> None:
    store = tmp_path / "files"
    settings = {"storage": store.as_uri()}
    with LocalService(data_dir=tmp_path / "data", engines=[], settings=settings) as service:
        auth = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=auth, timeout=30) as http:
            tasks = {
                "in": {"operation": "import/raw", "file": "hello, store", "filename": "hello.txt"},
                "out": {"operation": "export/url", "input": "in"},
            }
            job = http.post("/v2/jobs", json={"tasks": tasks}).json()["data"]
            done = http.get(f"/sync/v2/jobs/{job['id']}").json()["data"]
            assert done["status"] == "finished", done
            export = next(t for t in done["tasks"] if t["name"] == "out")
            (link,) = export["result"]["files"]
            assert httpx.get(link["url"]).content == b"hello, store"
            assert httpx.get(link["url"], headers={"Range": "bytes=7-"}).content == b"store"
            stored = sorted(p.relative_to(store).parts[2] for p in store.rglob("*") if p.is_file())
            assert stored == ["hello.txt", "hello.txt"]
            assert list((service.data_dir / "tasks").iterdir()) == []
            assert http.delete(f"/v2/jobs/{job['id']}").status_code == 204
            assert not any(p.is_file() for p in store.rglob("*"))
