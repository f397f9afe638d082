"""The vendors' clients of Azure Blob, Google Cloud Storage and OpenStack Swift are extras (issue 49:
a plain install stays as quick as the README promises). On a service where a kind's client is not
installed, a task of that kind fails at once with its own code and the pip command that adds it, on
the real local service; the kinds that come with every install (S3, SFTP) never say so. The missing
client is made missing by hiding its package from the import system for the test's length."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from caller_jobs import error_of
from mcv_pipelines.service.server import LocalService

PACKAGE = "mcv_pipelines.service.work.caller_storage"
KINDS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    # extra: (the client's package hidden, its module here, the operation, a payload that validates)
    "azure": ("azure.storage.blob", "azure_blob", "import/azure/blob",
              {"storage_account": "acct", "container": "box", "storage_access_key": "a2V5", "blob": "x"}),
    "gcs": ("google.auth", "gcs", "import/google-cloud-storage",
            {"project_id": "p", "bucket": "b", "client_email": "a@b.c", "private_key": "k", "file": "x"}),
    "openstack": ("swiftclient", "swift", "import/openstack",
                  {"auth_url": "http://127.0.0.1:9/v3", "username": "u", "password": "pw", "region": "r",
                   "container": "box", "file": "x"}),
}  # fmt: skip


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LocalService]:
    with LocalService(data_dir=tmp_path / "data", engines=[]) as svc:
        yield svc


@pytest.mark.parametrize("extra", sorted(KINDS))
def test_a_kind_whose_client_is_missing_names_the_extra_to_install(
    extra: str, service: LocalService, monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden, module, operation, payload = KINDS[extra]
    monkeypatch.setitem(sys.modules, hidden, None)  # an import of it raises ModuleNotFoundError
    monkeypatch.delitem(sys.modules, f"{PACKAGE}.{module}", raising=False)  # imported earlier: again
    ended = error_of(service, {"operation": operation, **payload})
    assert ended["code"] == "STORAGE_CLIENT_MISSING", ended
    assert f"pip install 'mcv-pipelines[{extra}]'" in ended["message"]
    assert hidden in ended["message"]
