"""API keys per user: another key's resources are 404, a revoked key 401, a missing scope 403; the
database-backed list (`mcv serve keys`) and the key file (--api-key-file, re-read on SIGHUP)."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

import httpx
from pg_server import PgServer
from team_helpers import MCV, Serve, wait_until

from mcv_pipelines.service.server import LocalService

OWNER = "sk-owner-key-0123456789abcdef"
PASSWORD = "pw-never-shown-81f2"
RAW = {"operation": "import/raw", "file": "some text", "filename": "a.txt"}


def _mcv(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCV, *args], capture_output=True, text=True, timeout=60, check=False)


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_keys_from_the_database_see_only_their_own_jobs(postgres: PgServer, tmp_path: Path) -> None:
    url = postgres.url(postgres.new_database(), password=PASSWORD)
    data = ["--database", url, "--data-dir", str(tmp_path / "data")]
    created = _mcv("serve", *data, "keys", "create", "--user", "bob", "--rate-limit", "3")
    assert created.returncode == 0, created.stderr
    bob = re.search(r"^key:\s+(\S+)$", created.stdout, re.MULTILINE)
    bob_id = re.search(r"^id:\s+(\S+)$", created.stdout, re.MULTILINE)
    assert bob is not None
    assert bob_id is not None
    listed = _mcv("serve", *data, "keys", "list")
    assert listed.returncode == 0
    assert bob_id[1] in listed.stdout
    assert "bob" in listed.stdout
    assert bob[1] not in listed.stdout  # never the key itself
    for out in (created, listed):
        assert PASSWORD not in out.stdout + out.stderr

    with LocalService(data_dir=tmp_path / "data", api_key=OWNER, database=url, role="all") as service:
        base = service.base_url
        reader = service.add_api_key(["task.read"])
        job = httpx.post(f"{base}/v2/jobs", json={"tasks": {"in": RAW}}, headers=_auth(OWNER)).json()["data"]
        task_id = job["tasks"][0]["id"]
        assert httpx.get(f"{base}/v2/jobs/{job['id']}", headers=_auth(OWNER)).status_code == 200
        assert httpx.get(f"{base}/v2/jobs/{job['id']}", headers=_auth(bob[1])).status_code == 404
        assert httpx.get(f"{base}/v2/tasks/{task_id}", headers=_auth(bob[1])).status_code == 404
        assert httpx.get(f"{base}/v2/jobs", headers=_auth(bob[1])).json()["data"] == []
        own = [
            httpx.post(f"{base}/v2/jobs", json={"tasks": {"in": RAW}}, headers=_auth(bob[1]))
            for _ in range(4)
        ]
        assert [r.status_code for r in own] == [201, 201, 201, 429]  # bob's own limit: 3 a minute
        assert own[0].headers["x-ratelimit-limit"] == "3"
        assert (
            httpx.post(f"{base}/v2/jobs", json={"tasks": {"in": RAW}}, headers=_auth(OWNER)).status_code
            == 201
        )
        forbidden = httpx.post(f"{base}/v2/jobs", json={"tasks": {"in": RAW}}, headers=_auth(reader))
        assert forbidden.status_code == 403
        assert httpx.get(f"{base}/v2/jobs", headers=_auth(reader)).status_code == 200

        revoked = _mcv("serve", *data, "keys", "revoke", bob_id[1])
        assert revoked.returncode == 0, revoked.stderr
        assert httpx.get(f"{base}/v2/jobs", headers=_auth(bob[1])).status_code == 401


def test_the_key_file_is_checked_and_reread_on_sighup(tmp_path: Path) -> None:
    first, second, third = (
        "sk-file-first-0123456789",
        "sk-file-second-0123456789",
        "sk-file-third-0123456789",
    )
    keys = tmp_path / "keys.txt"
    keys.write_text(f"# team keys\n{first}\n{second} task.read\nshort\n")
    bad = _mcv("serve", "--port", "0", "--data-dir", str(tmp_path / "data"), "--api-key-file", str(keys))
    assert bad.returncode == 2
    assert f"{keys}:4: the key is shorter than 16 characters" in bad.stderr

    keys.write_text(f"# team keys\n{first}\n{second} task.read\n")
    serve = Serve(["--data-dir", str(tmp_path / "data"), "--api-key-file", str(keys)], tmp_path / "serve.log")
    try:
        assert "API key" not in serve.printed  # no key generated when a key file is given
        assert serve.get("/v2/users/me", first).status_code == 200
        assert serve.get("/v2/users/me", second).status_code == 403  # task.read only
        assert serve.get("/v2/jobs", second).status_code == 200
        keys.write_text(f"{third}\n{second} task.read,user.read\n")
        serve.signal(signal.SIGHUP)
        wait_until(lambda: serve.get("/v2/users/me", third).status_code == 200, 10, "the re-read key file")
        assert serve.get("/v2/users/me", first).status_code == 401  # removed from the file: revoked
        assert serve.get("/v2/users/me", second).status_code == 200  # its new scope counts
        keys.write_text("x\n")
        serve.signal(signal.SIGHUP)
        wait_until(lambda: ":1: the key is shorter" in serve.log.read_text(), 10, "the reload error")
        assert serve.get("/v2/users/me", third).status_code == 200  # a bad file keeps the keys read before
    finally:
        serve.stop()
    shown = serve.log.read_text()
    for key in (first, second, third):
        assert key not in shown
