"""`mcv serve` as an operator runs it: the private-address guard on unless --allow-private-urls, the
request/task log on stderr as JSON or text, /metrics answered."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from origins import Origin
from service_helpers import task_named, wait_job

from mcv_pipelines.cli.main import main

SCRIPT = "from mcv_pipelines.cli.main import main; raise SystemExit(main())"


def start(
    tmp_path: Path, *options: str, port: int = 0, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], dict[str, str], list[str]]:
    command = [sys.executable, "-c", SCRIPT, "serve", "--port", str(port), "--data-dir", str(tmp_path)]
    environment = {**os.environ, **(env or {})}
    child = subprocess.Popen(
        [*command, *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
    )
    assert child.stdout is not None
    banner: list[str] = []
    while not banner or not banner[-1].startswith("serving"):
        line = child.stdout.readline()
        assert line, f"mcv serve stopped: {child.communicate()[1]}"
        banner.append(line.rstrip("\n"))
    values = dict(line.split(":", 1) for line in banner if line.split(":", 1)[0] in ("base URL", "API key"))
    return child, {k: v.strip() for k, v in values.items()}, banner


def stop(child: subprocess.Popen[str], how: signal.Signals = signal.SIGINT) -> str:
    child.send_signal(how)
    _, err = child.communicate(timeout=20)
    assert child.returncode == 0, err
    return err


def import_from(base: str, key: str, url: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
        created = client.post("/v2/jobs", json={"tasks": {"in": {"operation": "import/url", "url": url}}})
        assert created.status_code == 201, created.text
        return task_named(wait_job(client, created.json()["data"]["id"]), "in")


def test_serve_refuses_private_imports_by_default_and_logs_json(tmp_path: Path) -> None:
    child, values, banner = start(tmp_path, "--log-format", "json")
    try:
        assert "import/url refuses private and loopback addresses; --allow-private-urls allows them" in banner
        with Origin("127.0.0.1") as origin:
            origin.files["/a.txt"] = b"local file"
            task = import_from(values["base URL"], values["API key"], f"http://127.0.0.1:{origin.port}/a.txt")
        assert task["code"] == "IMPORT_FORBIDDEN_ADDRESS"
        assert origin.requests == []
        metrics = httpx.get(f"{values['base URL']}/metrics").text
        assert 'mcv_tasks_ended_total{engine="",operation="import/url",status="error"} 1.0' in metrics
    finally:
        err = stop(child, signal.SIGTERM)  # how a container runtime stops it: cleanly, exit 0
    records = [json.loads(line) for line in err.splitlines()]  # every line is one JSON object
    events = {(r["event"], r.get("route") or r.get("operation")) for r in records}
    assert {("request", "/v2/jobs"), ("task", "import/url"), ("request", "/metrics")} <= events
    # the refusal among the log records (a machine without bubblewrap also warns how engines are sealed)
    refusals = [r for r in records if r["event"] == "log" and r["message"].startswith("import/url refused")]
    assert [r["level"] for r in refusals] == ["warning"], refusals
    assert refusals[0]["message"].startswith(
        "import/url refused: 127.0.0.1 resolves to 127.0.0.1, a loopback"
    )
    assert values["API key"] not in err


def test_serve_says_how_many_tasks_it_runs_at_once(tmp_path: Path) -> None:
    child, _, banner = start(tmp_path / "default")
    stop(child)
    assert "tasks:    up to 4 at once (--workers)" in banner
    child, values, banner = start(tmp_path / "two", "--workers", "2")
    try:
        assert "tasks:    up to 2 at once (--workers)" in banner
        auth = {"Authorization": f"Bearer {values['API key']}"}
        small = {"operation": "import/base64", "file": "aGk=", "filename": "a.txt"}
        tasks = {f"t{n}": small for n in range(3)}
        with httpx.Client(base_url=values["base URL"], headers=auth, timeout=30) as client:
            done = wait_job(client, client.post("/v2/jobs", json={"tasks": tasks}).json()["data"]["id"])
        assert done["status"] == "finished"  # three tasks through two workers
    finally:
        stop(child)


def test_serve_with_allow_private_urls_imports_from_loopback_and_logs_text(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port, so that --public-url can name it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    public = f"http://localhost:{port}"
    signing_key = "shared-by-api-and-workers-" + "k" * 16
    options = ("--allow-private-urls", "--public-url", public + "/")
    child, values, banner = start(tmp_path, *options, port=port, env={"MCV_SIGNING_KEY": signing_key})
    try:
        assert not any("--allow-private-urls" in line for line in banner)
        assert values["base URL"] == public  # links and forms name the public URL
        with Origin("127.0.0.1") as origin:
            origin.files["/a.txt"] = b"local file"
            task = import_from(public, values["API key"], f"http://127.0.0.1:{origin.port}/a.txt?k=v")
        assert task["status"] == "finished", task
    finally:
        err = stop(child)
    assert " INFO POST /v2/jobs 201 " in err
    assert " INFO task " in err
    assert " import/url finished" in err
    assert "k=v" not in err
    assert not (tmp_path / "secret").exists()  # the key from the environment signs the links
    assert signing_key not in err


def test_serve_takes_the_public_url_from_the_environment_and_the_option_first(tmp_path: Path) -> None:
    # An image sets MCV_PUBLIC_URL where it runs; its CMD cannot know the published address.
    env = {"MCV_PUBLIC_URL": "https://mcv.example.com/"}
    child, values, _ = start(tmp_path / "env", env=env)
    stop(child)
    assert values["base URL"] == "https://mcv.example.com"
    child, values, _ = start(tmp_path / "option", "--public-url", "http://localhost:9999", env=env)
    stop(child)
    assert values["base URL"] == "http://localhost:9999"


def test_serve_names_a_bad_public_url_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCV_PUBLIC_URL", "mcv.example.com")
    assert main(["serve", "--port", "0", "--data-dir", str(tmp_path)]) == 2
    assert "MCV_PUBLIC_URL 'mcv.example.com': expected http(s)://HOST" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--allow-private-network", "10.0.0.0/33"],
            "--allow-private-network: '10.0.0.0/33' is not an IP network",
        ),
        (["--public-url", "mcv.example.com"], "--public-url 'mcv.example.com': expected http(s)://HOST"),
    ],
)
def test_serve_names_a_bad_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert main(["serve", "--port", "0", "--data-dir", str(tmp_path), *options]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "internal error" not in err


def test_serve_refuses_a_short_signing_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCV_SIGNING_KEY", "too-short")
    assert main(["serve", "--port", "0", "--data-dir", str(tmp_path)]) == 2
    assert "MCV_SIGNING_KEY is too short: use at least 32 characters" in capsys.readouterr().err


def test_serve_refuses_an_unknown_log_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--log-format", "xml"])
    assert stopped.value.code == 2
    assert "--log-format: invalid choice: 'xml'" in capsys.readouterr().err
