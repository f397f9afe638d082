"""Issue 25: the API's rate limit is counted in PostgreSQL, so it holds across API processes: two
processes with `--rate-limit 3` let a key create 3 jobs in all, not 3 each."""

from __future__ import annotations

from pathlib import Path

import httpx

from mcv_pipelines.service.server import LocalService

KEY = "sk-shared-rate-0123456789abcdef"
RAW = {"operation": "import/raw", "file": "x", "filename": "a.txt"}


def test_the_rate_limit_holds_across_api_processes(pg_url: str, tmp_path: Path) -> None:
    def api(name: str) -> LocalService:
        return LocalService(
            data_dir=tmp_path / name, api_key=KEY, database=pg_url, role="api", settings={"rate_limit": 3}
        )

    with api("a") as first, api("b") as second:
        statuses = []
        for service in (first, second, first, second):
            answer = httpx.post(
                f"{service.base_url}/v2/jobs",
                json={"tasks": {"in": RAW}},
                headers={"Authorization": f"Bearer {KEY}"},
                timeout=30,
            )
            statuses.append(answer.status_code)
        assert statuses == [201, 201, 201, 429]
        assert answer.headers["x-ratelimit-limit"] == "3"
        assert answer.headers["x-ratelimit-remaining"] == "0"
        assert int(answer.headers["retry-after"]) >= 1
