"""Issue 25: a key revoked with `mcv serve keys revoke` stays revoked when a later start names it again
(MCV_SERVE_API_KEY, --api-key, a key file): the start is refused with a clear message, never a revival.
And a worker clears what a worker killed mid-task left in its data directory, but not the directories of
tasks another live worker holds."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from team_helpers import MCV

from mcv_pipelines.service.server import KeyRevoked, LocalService
from mcv_pipelines.service.state.database import open_database
from mcv_pipelines.service.state.store import Store, hash_key

KEY = "sk-revoked-later-0123456789abcdef"
OTHER = "sk-still-good-0123456789abcdef"


def _mcv(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env or {})}
    return subprocess.run([*MCV, *args], capture_output=True, text=True, timeout=60, check=False, env=env)


def _status(service: LocalService, key: str) -> int:
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.get(f"{service.base_url}/v2/users/me", headers=headers, timeout=30).status_code


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
def test_a_revoked_key_is_refused_at_start_not_revived(backend: str, pg_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    url = pg_url if backend == "postgresql" else f"sqlite:///{data / 'service.sqlite3'}"
    data.mkdir()
    where = ["--database", url, "--data-dir", str(data)]
    with LocalService(data_dir=data, api_key=KEY, database=url) as service:
        assert _status(service, KEY) == 200
    revoked = _mcv("serve", *where, "keys", "revoke", hash_key(KEY)[:12])
    assert revoked.returncode == 0, revoked.stderr

    started = _mcv("serve", "--port", "0", *where, env={"MCV_SERVE_API_KEY": KEY})
    assert started.returncode == 2
    key_id = hash_key(KEY)[:12]
    assert f"was revoked with `mcv serve keys revoke {key_id}` and stays revoked" in started.stderr
    assert KEY not in started.stdout + started.stderr
    with pytest.raises(KeyRevoked):
        LocalService(data_dir=data, api_key=KEY, database=url).start()

    keys = tmp_path / "keys.txt"
    keys.write_text(f"{KEY}\n{OTHER}\n")
    with LocalService(data_dir=data, database=url, make_key=False) as service:
        assert service.ctx is not None
        from mcv_pipelines.service.state.keyfile import apply_keys, read_key_file

        apply_keys(service.ctx.store, read_key_file(keys), f"file:{keys}", 10)
        assert _status(service, OTHER) == 200
        assert _status(service, KEY) == 401  # listed in a key file: still revoked


def test_a_worker_clears_stale_staging_but_not_a_live_lease(pg_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = Store(open_database(pg_url, tmp_path / "unused"))
    with store.transaction() as tx:  # a task another live worker holds, and one whose worker died
        for task_id, expires in (("t-live", time.time() + 600), ("t-dead", time.time() - 600)):
            tx.execute(
                "INSERT INTO tasks (id, job_id, user_id, operation, status, seq, doc, lease_owner,"
                " lease_expires) VALUES (?, 'j', 1, 'convert', 'processing', 1, '{}', 'w', ?)",
                (task_id, expires),
            )
    store.close()
    for task_id in ("t-live", "t-dead", "t-unknown"):
        for sub in ("work", "tasks"):
            (data / sub / task_id).mkdir(parents=True)
            (data / sub / task_id / "part.png").write_bytes(b"staged")
    storage = f"file://{tmp_path / 'store'}"
    settings = {"storage": storage}
    with LocalService(data_dir=data, database=pg_url, role="worker", make_key=False, settings=settings):
        for sub in ("work", "tasks"):
            assert sorted(p.name for p in (data / sub).iterdir()) == ["t-live"], sub
