"""The caller's storage clients are extras (issue 49): ``storage`` is exactly the three kinds' extras
together, the test command's ``dev`` brings it, and the CLI, the local service and the caller's
storage package import with every one of those clients missing (the lazy opener imports a kind's
client only when a task of that kind runs)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def test_the_storage_extra_is_every_kinds_clients_and_nothing_else() -> None:
    kinds = {requirement for kind in ("azure", "gcs", "openstack") for requirement in EXTRAS[kind]}
    assert sorted(EXTRAS["storage"]) == sorted(kinds)


def test_the_test_command_installs_every_kind() -> None:
    assert "mcv-pipelines[storage]" in EXTRAS["dev"]


def test_mcv_and_its_service_import_without_any_storage_client() -> None:
    blocked = ["azure", "google.cloud", "google.auth", "keystoneauth1", "swiftclient", "requests"]
    code = (
        f"import sys\nfor name in {blocked!r}:\n    sys.modules[name] = None\n"
        "import mcv_pipelines.cli.main, mcv_pipelines.service.server\n"
        "from mcv_pipelines.service.work import caller_storage\n"
        "print(sorted(caller_storage.KINDS))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "'azure/blob'" in done.stdout
