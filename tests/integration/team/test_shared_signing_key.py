"""Issue 25's operator trap: a team (one `--role api`, one `--role worker`, each with a data directory
of its own, PostgreSQL + S3) started without MCV_SIGNING_KEY serves its downloads, because the signing
key is made once and kept in the shared database. Rotating it (`mcv serve signing-key rotate`) refuses
the old links with a message that says what to do."""

from __future__ import annotations

import secrets
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from pg_server import PgServer
from team_helpers import MCV, Serve, wait_until

from mcv_pipelines.service.files.signing import file_url
from mcv_pipelines.service.server import LocalService
from seaweed import SeaweedS3

KEY = "sk-signing-team-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}


def _export_link(api: Serve, text: str) -> str:
    """Run import/raw -> export/url through the team; the export's download link."""
    tasks = {
        "in": {"operation": "import/raw", "file": text, "filename": "note.txt"},
        "out": {"operation": "export/url", "input": "in"},
    }
    job = httpx.post(f"{api.base}/v2/jobs", json={"tasks": tasks}, headers=AUTH, timeout=30).json()["data"]
    done: dict[str, Any] = {}

    def ended() -> bool:
        done.update(httpx.get(f"{api.base}/v2/jobs/{job['id']}", headers=AUTH, timeout=30).json()["data"])
        return done["status"] in ("finished", "error")

    wait_until(ended, 120, "the job to end")
    assert done["status"] == "finished", done
    out = next(t for t in done["tasks"] if t["name"] == "out")
    return str(out["result"]["files"][0]["url"])


def test_a_team_without_a_signing_key_serves_its_downloads(
    postgres: PgServer, seaweed: SeaweedS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCV_SIGNING_KEY", raising=False)
    url = postgres.url(postgres.new_database())
    storage = f"s3://{seaweed.bucket}/signing-{secrets.token_hex(4)}"
    shared = ["--database", url, "--storage", storage, "--s3-endpoint", seaweed.endpoint]
    env = {"MCV_SERVE_API_KEY": KEY, **seaweed.env}
    api_args = ["--role", "api", *shared, "--data-dir", str(tmp_path / "api")]
    api = Serve(api_args, tmp_path / "api.log", env)
    worker_args = ["--role", "worker", *shared, "--data-dir", str(tmp_path / "worker")]
    worker = Serve(worker_args, tmp_path / "w.log", env)
    try:
        link = _export_link(api, "signed by the worker, checked by the api")
        assert link.startswith(api.base)  # the worker signed it (export/url ran there)
        got = httpx.get(link, timeout=30)
        assert got.status_code == 200, got.text
        assert got.text == "signed by the worker, checked by the api"

        admin = ["--database", url, "--data-dir", str(tmp_path / "admin")]
        rotated = subprocess.run(
            [*MCV, "serve", *admin, "signing-key", "rotate"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert rotated.returncode == 0, rotated.stderr
        assert "restart every api and worker process" in rotated.stdout
        api.stop()
        worker.stop()
        api = Serve(api_args, tmp_path / "api.log", env)
        worker = Serve(worker_args, tmp_path / "w.log", env)
        old = httpx.get(link.replace(link.split("/files/")[0], api.base), timeout=30)
        assert old.status_code == 403
        assert old.json()["code"] == "INVALID_SIGNATURE"
        assert "rotated" in old.json()["message"]
        assert "get a fresh link" in old.json()["message"]
        fresh = _export_link(api, "after the rotation")
        assert httpx.get(fresh, timeout=30).text == "after the rotation"
    finally:
        api.stop()
        worker.stop()
    for log in ("api.log", "w.log"):
        assert "MCV_SIGNING_KEY" not in (tmp_path / log).read_text()  # no warning: nothing to configure
    assert not (tmp_path / "api" / "secret").exists()
    assert not (tmp_path / "worker" / "secret").exists()


def test_a_data_dir_from_before_keeps_its_links_valid(tmp_path: Path) -> None:
    """The `secret` file an older mcv made is adopted once by the database: links it signed still
    pass the signature check (here 404, a file never made, rather than 403)."""
    data = tmp_path / "data"
    data.mkdir()
    old_key = secrets.token_bytes(32)
    (data / "secret").write_bytes(old_key)
    with LocalService(data_dir=data, api_key=KEY) as service:
        signed = file_url(old_key, service.base_url, "t-gone", "a.txt", 60, inline=False)
        assert httpx.get(signed, timeout=30).status_code == 404
        forged = file_url(b"x" * 32, service.base_url, "t-gone", "a.txt", 60, inline=False)
        assert httpx.get(forged, timeout=30).status_code == 403
    (data / "secret").unlink()  # adopted: the database keeps it from now on
    with LocalService(data_dir=data, api_key=KEY) as service:
        signed = file_url(old_key, service.base_url, "t-gone", "a.txt", 60, inline=False)
        assert httpx.get(signed, timeout=30).status_code == 404
