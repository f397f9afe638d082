"""The warm LibreOffice under the landlock seal reads nothing outside its own directory (issue 37).

Where namespaces are refused (a container's default seccomp profile, Kubernetes) bubblewrap cannot
give the warm soffice a view of its own; Landlock does instead. An RTF whose ``INCLUDEPICTURE`` field
names a picture planted outside the task (the host's /tmp, /var/tmp, another key's upload in the data
directory), and a docx whose picture is linked to one, convert without it: the output holds none of
the planted bytes. With Landlock taken off the warm process the RTF embeds every one of them.

The module has a service of its own, so each warm process it starts is started under this seal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named
from planted_secrets import Planted, all_bytes, planted

from engine_needs import unavailable
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset
from mcv_pipelines.service.server import LocalService
from office_samples import include_picture_rtf, linked_picture_docx

RequireEngine = Callable[..., Engine]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    if not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(seal.FORCE_VARIABLE, "landlock")  # read when each warm process starts
        with LocalService(data_dir=tmp_path_factory.mktemp("data"), settings={"rate_limit": 10_000}) as svc:
            yield svc


@pytest.fixture
def secrets(service: LocalService, client: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> Iterator[Planted]:
    with planted(service, client, monkeypatch) as found:
        yield found


def _convert(client: httpx.Client, source: Path, formats: tuple[str, ...], out: Path) -> dict[str, Path]:
    job = run_job(
        client,
        {
            "in": b64_import(source),
            **{
                fmt: {"operation": "convert", "input": "in", "output_format": fmt, "engine": "libreoffice"}
                for fmt in formats
            },
            "export": {"operation": "export/url", "input": list(formats)},
        },
    )
    for fmt in formats:
        done = task_named(job, fmt)
        assert done["status"] == "finished", json.dumps(done)
        assert done["engine"] == "libreoffice"
    return download_all(job, out)


@pytest.mark.parametrize("place", ["tmp", "var-tmp", "upload"])
def test_an_included_picture_from_outside_stays_out(
    place: str, secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "rtf", "odt")
    rtf = include_picture_rtf(tmp_path / "included.rtf", str(secrets.pictures[place]))
    files = _convert(client, rtf, ("docx", "odt"), tmp_path / "out")
    assert sorted(files) == ["included.docx", "included.odt"]
    for path in files.values():
        assert secrets.found_in(all_bytes(path)) == [], path.name


@pytest.mark.parametrize("place", ["tmp", "upload"])
def test_a_linked_picture_from_outside_stays_out(
    place: str, secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "docx", "odt")
    docx = linked_picture_docx(tmp_path / "linked.docx", secrets.pictures[place].as_uri())
    files = _convert(client, docx, ("odt", "pdf"), tmp_path / "out")
    assert sorted(files) == ["linked.odt", "linked.pdf"]
    for path in files.values():
        assert secrets.found_in(all_bytes(path)) == [], path.name
