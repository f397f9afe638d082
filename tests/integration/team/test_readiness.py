"""/healthz and /readyz: readiness follows the database (503 naming it while PostgreSQL is stopped,
200 again once it is back, without restarting the service)."""

from __future__ import annotations

from pathlib import Path

import httpx
from pg_server import PgServer
from team_helpers import wait_until

from mcv_pipelines.service.server import LocalService

KEY = "sk-ready-test-0123456789abcd"


def test_readyz_follows_the_database_without_a_restart(postgres: PgServer, tmp_path: Path) -> None:
    url = postgres.url(postgres.new_database())
    with LocalService(data_dir=tmp_path / "data", api_key=KEY, database=url, role="all") as service:
        base = service.base_url
        ready = httpx.get(f"{base}/readyz")
        assert ready.status_code == 200
        assert ready.json()["checks"] == {"database": "ok", "storage": "ok"}
        postgres.stop()
        try:
            down = httpx.get(f"{base}/readyz", timeout=30)
            assert down.status_code == 503
            assert down.json()["failed"][0]["check"] == "database"
            assert "cannot reach the database" in down.json()["failed"][0]["reason"]
            assert httpx.get(f"{base}/healthz").status_code == 200  # alive, only not ready
        finally:
            postgres.start()
        wait_until(lambda: httpx.get(f"{base}/readyz", timeout=30).status_code == 200, 20, "ready again")
        created = httpx.post(
            f"{base}/v2/jobs",
            json={"tasks": {"in": {"operation": "import/raw", "file": "x", "filename": "a.txt"}}},
            headers={"Authorization": f"Bearer {KEY}"},
        )
        assert created.status_code == 201  # the API works again, on a new connection
