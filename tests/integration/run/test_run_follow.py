"""Following modes, Ctrl-C with the resume hint, and state shared across commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from run_helpers import asset, pipeline, write_slow_pipeline

from mcv_pipelines.cli.main import main
from mcv_pipelines.service.server import LocalService


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv, "--progress", "plain"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("wait", ["sync", "poll", "webhook"])
def test_every_wait_mode_on_the_embedded_service(isolated: Path, capsys, wait: str) -> None:
    log = isolated / "events.jsonl"
    code, _, err = run(
        capsys,
        pipeline("thumbnails"),
        "-p",
        f"image={asset('logo.png')}",
        "--wait",
        wait,
        "--events",
        str(log),
    )
    assert code == 0, err
    records = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = [r["event"] for r in records]
    assert kinds[0] == "submitted"
    assert kinds[-1] == "finished"
    assert kinds.count("uploaded") == 1
    assert kinds.count("downloaded") == 3
    finished = {r["task"] for r in records if r["event"] == "task" and r["status"] == "finished"}
    assert finished == {"source", "thumb-0", "thumb-1", "thumb-2", "publish"}
    assert all("time" in r for r in records)
    if wait == "webhook":
        assert "no webhook yet" not in err  # the signed webhook arrived; polling never took over


def test_webhook_mode_against_a_remote_service(isolated: Path, remote: LocalService, capsys) -> None:
    slow, text = write_slow_pipeline(isolated)
    code, _, err = run(capsys, str(slow), "-p", f"text={text}", "-p", "sleep=1", "--wait", "webhook")
    assert code == 0, err
    assert (isolated / "out" / "slow" / "note.md").is_file()


def test_jobs_commands_see_the_embedded_runs(isolated: Path, capsys) -> None:
    code, out, err = run(
        capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}", "--format", "json"
    )
    assert code == 0, err
    job_id = json.loads(out)["job_id"]
    assert main(["jobs", "show", job_id, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "finished"
    assert main(["jobs", "wait", job_id, "--download", "again"]) == 0
    assert sorted(p.name for p in (isolated / "again").iterdir()) == [
        "logo-256.webp",
        "logo-48.png",
        "logo-96.png",
    ]
    capsys.readouterr()
    assert main(["jobs", "list"]) == 0
    listed = capsys.readouterr().out
    assert job_id in listed
    assert "5 task(s)" in listed  # source, three thumbnails, publish: the list asks for its tasks


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mcv_pipelines", *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def _wait_for_line(proc: subprocess.Popen[str], needle: str, limit: float = 30.0) -> list[str]:
    assert proc.stderr is not None
    seen: list[str] = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return seen
    raise AssertionError(f"{needle!r} not seen in {seen}")


def test_ctrl_c_leaves_the_job_and_prints_how_to_resume(isolated: Path, remote: LocalService, capsys) -> None:
    slow, text = write_slow_pipeline(isolated)
    proc = _start(["run", str(slow), "-p", f"text={text}", "-p", "sleep=4", "--progress", "plain"], isolated)
    try:
        _wait_for_line(proc, "task md processing")
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, rest
    job_id = rest.split("interrupted; job ", 1)[1].split()[0]
    assert f"Resume following it with: mcv jobs wait {job_id} --download" in rest
    assert "Traceback" not in rest
    # the job was left alone: it finishes, and the hint works
    assert main(["jobs", "wait", job_id, "--download", "later"]) == 0
    assert (isolated / "later" / "note.md").read_text() == text.read_text()


def test_ctrl_c_with_cancel_on_interrupt(isolated: Path, remote: LocalService, capsys) -> None:
    slow, text = write_slow_pipeline(isolated)
    argv = [
        "run",
        str(slow),
        "-p",
        f"text={text}",
        "-p",
        "sleep=30",
        "--progress",
        "plain",
        "--cancel-on-interrupt",
    ]
    proc = _start(argv, isolated)
    try:
        _wait_for_line(proc, "task md processing")
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, rest
    assert "interrupted; cancelled" in rest
    job_id = rest.split("of job ", 1)[1].split()[0]
    assert main(["jobs", "show", job_id, "--format", "json"]) == 0
    tasks = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tasks"]}
    assert tasks["md"]["code"] == "CANCELLED"
    assert tasks["publish"]["status"] in {"cancelled", "error"}  # never ran
