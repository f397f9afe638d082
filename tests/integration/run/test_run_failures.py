"""What a user meets when things go wrong: failed tasks, faults, lost answers, timeouts, refusals."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from run_helpers import REMOTE_KEY, Faulty, asset, pipeline, write_slow_pipeline

from mcv_pipelines.api import ApiClient, Settings
from mcv_pipelines.cli import connection
from mcv_pipelines.cli.main import main
from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.state.lock import DataDirLock


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv, "--progress", "plain"])
    out, err = capsys.readouterr()
    return code, out, err


def events(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def jobs_tagged(service: LocalService, prefix: str) -> list[str]:
    async def listing() -> list[str]:
        settings = Settings.build(api_key=service.api_key, base_url=service.base_url)
        async with ApiClient(settings) as client:
            return [job.tag or "" async for job in client.list_jobs() if (job.tag or "").startswith(prefix)]

    return asyncio.run(listing())


@pytest.fixture
def faulty(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Faulty]:
    """Install a ``Faulty`` transport (configured by the test) under the CLI's client."""
    made: list[Faulty] = []

    def install(**faults: bool) -> Faulty:
        transport = Faulty(**faults)
        made.append(transport)
        monkeypatch.setattr(connection, "CLIENT_FACTORY", lambda s: ApiClient(s, transport=transport))
        return transport

    return install  # type: ignore[return-value]  # the fixture hands out a function


def test_failed_task_exit_1_with_code_and_location(isolated: Path, remote: LocalService, capsys) -> None:
    slow, text = write_slow_pipeline(isolated)
    code, out, err = run(capsys, str(slow), "-p", f"text={text}", "-p", "fail=BROKEN_INPUT")
    assert code == 1
    assert f"{slow}:13:3: task md failed BROKEN_INPUT: The slow text engine was told to fail." in err
    assert "error" in out.splitlines()[0]


def test_keep_going_downloads_what_finished(isolated: Path, capsys) -> None:
    bad = isolated / "broken.jpg"
    bad.write_bytes(b"not an image at all")
    recipe = isolated / "two.yaml"
    recipe.write_text(
        f"""version: 1
tasks:
  good:
    operation: import/upload
    upload_from: {asset("logo.png")}
  bad:
    operation: import/upload
    upload_from: {bad}
  small:
    operation: thumbnail
    input: good
    output_format: png
    width: 16
    height: 16
  broken:
    operation: convert
    input: bad
    input_format: jpg
    output_format: png
  publish-good:
    operation: export/url
    input: small
    download_to: good/
  publish-bad:
    operation: export/url
    input: broken
    download_to: bad/
"""
    )
    code, _out, err = run(capsys, str(recipe), "--keep-going")
    assert code == 1
    assert f"{recipe}:15:3: task broken failed" in err
    with Image.open(isolated / "good" / "logo.png") as image:
        assert image.size == (16, 16)
    assert not (isolated / "bad").exists()


@pytest.mark.parametrize("remote", ["429=0.25,503=0.25,seed=3"], indirect=True)
def test_rate_limits_and_unavailable_answers_are_ridden_out(
    isolated: Path, remote: LocalService, capsys, faulty
) -> None:
    transport = faulty()  # no faults of its own: it records the statuses the service answered
    slow, text = write_slow_pipeline(isolated)
    log = isolated / "events.jsonl"
    code, _out, err = run(capsys, str(slow), "-p", f"text={text}", "--wait", "poll", "--events", str(log))
    assert code == 0, err
    assert (isolated / "out" / "slow" / "note.md").read_text() == text.read_text()
    # one job for the run even if a creation was answered 503 and had to be looked up
    assert len(jobs_tagged(remote, "slow-text~")) == 1
    assert 429 in transport.statuses, transport.statuses
    assert 503 in transport.statuses


def test_upload_redirect_is_followed(isolated: Path, remote: LocalService, capsys, faulty) -> None:
    transport = faulty(redirect_uploads=True)
    code, _, err = run(capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}")
    assert code == 0, err
    assert len(transport.redirected) == 1
    with Image.open(isolated / "out" / "thumbnails" / "logo" / "logo-256.webp") as image:
        assert image.size == (256, 256)


def test_dropped_download_resumes(isolated: Path, remote: LocalService, capsys, faulty) -> None:
    transport = faulty(cut_downloads=True)
    code, _, err = run(capsys, pipeline("product-images"), "-p", f"photo={asset('photo.jpg')}")
    assert code == 0, err
    assert len(transport.cut) == 3
    assert len(transport.ranges) >= 3
    for width in (320, 640):
        with Image.open(isolated / "out" / "product-images" / "photo" / f"photo-{width}w.webp") as image:
            image.load()  # the whole file decodes: the resumed halves fit
            assert image.width == width


def test_lost_creation_answer_is_reconciled_by_tag(
    isolated: Path, remote: LocalService, capsys, faulty
) -> None:
    transport = faulty(lose_create=True)
    log = isolated / "events.jsonl"
    code, _, err = run(
        capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}", "--events", str(log)
    )
    assert code == 0, err
    assert transport.creates == 1  # never sent twice
    assert len(jobs_tagged(remote, "thumbnails-logo~")) == 1
    kinds = [e["event"] for e in events(log)]
    assert "reconciled" in kinds
    assert "submitted" not in kinds
    assert (isolated / "out" / "thumbnails" / "logo" / "logo-48.png").is_file()


def test_timeout_leaves_the_job_and_says_how_to_resume(isolated: Path, remote: LocalService, capsys) -> None:
    slow, text = write_slow_pipeline(isolated)
    code, _, err = run(capsys, str(slow), "-p", f"text={text}", "-p", "sleep=30", "--timeout", "1.5")
    assert code == 3
    job_id = err.split("job ", 1)[1].split()[0]
    assert "did not end within 1.5 s" in err
    assert f"mcv jobs wait {job_id} --download" in err
    assert main(["jobs", "show", job_id, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "processing"


def test_existing_file_refused_before_any_request(isolated: Path, capsys) -> None:
    target = isolated / "out" / "thumbnails" / "logo" / "logo-96.png"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"mine")
    code, _, err = run(capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}")
    assert code == 2
    assert f"{target} already exists; pass --overwrite" in err
    assert target.read_bytes() == b"mine"
    assert not (isolated.parent / "data").exists()  # no service was even started
    code, _, err = run(capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}", "--overwrite")
    assert code == 0, err
    with Image.open(target) as image:
        assert image.size == (96, 96)


def test_invalid_pipeline_exit_2_without_a_request(isolated: Path, capsys, monkeypatch) -> None:
    def no_client(settings: Settings) -> ApiClient:
        raise AssertionError("a request was about to be made")

    monkeypatch.setattr(connection, "CLIENT_FACTORY", no_client)
    code, _out, err = run(
        capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}", "-p", "fit=stretch"
    )
    assert code == 2
    assert "thumbnails.yaml:" in err
    assert "error[param-" in err
    assert "stretch" in err
    code, _, err = run(capsys, pipeline("product-images"))  # a required param without a value
    assert code == 2
    assert "photo" in err
    assert not (isolated.parent / "data").exists()


def test_dry_run_prints_the_body(isolated: Path, capsys) -> None:
    code, out, _ = run(capsys, pipeline("product-images"), "-p", f"photo={asset('photo.jpg')}", "--dry-run")
    assert code == 0
    body = json.loads(out)
    assert list(body["tasks"]) == ["original", "web-320", "web-640", "sheet", "publish"]
    assert "upload_from" not in body["tasks"]["original"]
    assert "download_to" not in body["tasks"]["publish"]
    assert body["tag"] == "product-photo~RUN-ID"
    assert not (isolated.parent / "data").exists()


def test_busy_data_dir_is_a_clear_error(isolated: Path, capsys) -> None:
    with DataDirLock(isolated.parent / "data"):
        code, _, err = run(capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}")
    assert code == 2
    assert "in use by another mcv command" in err
    assert "mcv serve" in err
    assert "MCV_BASE_URL" in err


def test_the_api_key_never_shows(isolated: Path, remote: LocalService, capsys) -> None:
    log = isolated / "events.jsonl"
    slow, text = write_slow_pipeline(isolated)
    code, out, err = run(capsys, str(slow), "-p", f"text={text}", "--events", str(log), "--format", "json")
    assert code == 0, err
    code2, out2, err2 = run(capsys, str(slow), "-p", f"text={text}", "-p", "fail=X_FAIL", "--overwrite")
    assert code2 == 1
    for text_seen in (out, err, out2, err2, log.read_text()):
        assert REMOTE_KEY not in text_seen
    assert json.loads(out)["status"] == "finished"
