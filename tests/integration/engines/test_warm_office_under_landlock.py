"""The warm LibreOffice under the landlock seal reads nothing outside its own directory (issue 37).

Where namespaces are refused (a container's default seccomp profile, Kubernetes) bubblewrap cannot
give the warm soffice a view of its own; Landlock does instead. An RTF whose ``INCLUDEPICTURE`` field
names a picture planted outside the task (the host's /tmp, /var/tmp, another key's upload in the data
directory), and a docx whose picture is linked to one, convert without it: the output holds none of
the planted bytes. With Landlock taken off the warm process the RTF embeds every one of them.

The module has services of its own, so each warm process they start is started under this seal: once
inside ``unshare`` (as on this machine) and once without it (as in a container that refuses namespaces).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named
from own_processes import named, seal_status
from planted_secrets import Planted, all_bytes, planted

from engine_needs import unavailable
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset
from mcv_pipelines.service.server import LocalService
from office_samples import include_picture_rtf, linked_picture_docx

RequireEngine = Callable[..., Engine]


@pytest.fixture(scope="module", params=["with-unshare", "landlock-alone"])
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalService]:
    """A service whose warm processes start under the landlock seal: inside ``unshare`` (network and
    PID namespaces) where this machine allows it, and alone, as in a container that refuses them."""
    if not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(seal.FORCE_VARIABLE, "landlock")  # read when each warm process starts
        if request.param == "landlock-alone":
            patch.setattr(seal, "unshare_prefix", lambda: ())
        with LocalService(data_dir=tmp_path_factory.mktemp("data"), settings={"rate_limit": 10_000}) as svc:
            yield svc


@pytest.fixture
def secrets(
    service: LocalService, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Planted]:
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


def test_the_warm_soffice_runs_sealed(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    """The seal is on the warm process itself: no new privileges, the seccomp filter, no capability."""
    require_engine("libreoffice", "convert", "rtf", "pdf")
    _convert(client, include_picture_rtf(tmp_path / "plain.rtf", "missing.png"), ("pdf",), tmp_path / "out")
    processes = named({"soffice.bin"})
    assert processes, "no warm soffice.bin is running for this service"
    for pid in processes:
        sealed = seal_status(pid, ("NoNewPrivs", "Seccomp", "CapEff"))
        assert sealed == {"NoNewPrivs": "1", "Seccomp": "2", "CapEff": "0000000000000000"}, pid


_KILLED_SERVICE = """
import base64, os, signal, sys
from pathlib import Path
from mcv_pipelines.service.engines import seal
os.environ[seal.FORCE_VARIABLE] = "landlock"
if sys.argv[2] == "landlock-alone":
    seal.unshare_prefix = lambda: ()
from mcv_pipelines.service.server import LocalService
import httpx
svc = LocalService(data_dir=Path(sys.argv[1]), settings={"rate_limit": 10000}).__enter__()
client = httpx.Client(
    base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}, trust_env=False, timeout=120
)
rtf = base64.b64encode(b"{\\\\rtf1\\\\ansi warm}").decode()
tasks = {
    "in": {"operation": "import/base64", "file": rtf, "filename": "a.rtf"},
    "c": {"operation": "convert", "input": "in", "output_format": "docx", "engine": "libreoffice"},
}
job = client.post("/v2/jobs", json={"tasks": tasks}).json()["data"]
ended = client.get(f"/sync/v2/jobs/{job['id']}").json()["data"]
print(ended["status"], flush=True)
from mcv_pipelines.service.engines.proc_tree import descendants, name
# This service's own warm soffice.bin only: other tests' may run beside it (issue 50: workers).
print(" ".join(str(p) for p in descendants(os.getpid()) if name(p) == "soffice.bin"), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("how", ["with-unshare", "landlock-alone"])
def test_no_warm_soffice_outlives_a_killed_service(
    how: str, require_engine: RequireEngine, tmp_path: Path
) -> None:
    """A service under the landlock seal, SIGKILLed with its warm LibreOffice running: nothing of it
    is left, inside unshare's PID namespace or without one (soffice.bin is then started itself, with
    the parent-death signal, since nothing would end a child of the launcher)."""
    require_engine("libreoffice", "convert", "rtf", "docx")
    before = set(named({"soffice.bin"}, under=0))
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_SERVICE, str(tmp_path / "data"), how],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = done.stdout.split("\n")
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
    assert lines[0] == "finished", done.stdout + done.stderr
    warm = {int(pid) for pid in lines[1].split()} - before
    assert warm, "the service had no warm soffice.bin to leave behind"
    deadline = time.monotonic() + 15
    while (left := warm & set(named({"soffice.bin"}, under=0))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, f"soffice.bin {sorted(left)} outlived the killed service"
