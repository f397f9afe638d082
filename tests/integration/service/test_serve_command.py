"""`mcv serve` in a real process: prints the URLs and the generated key, serves, stops on Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx

from mcv_pipelines.service.server import LocalService

# Builds the parser from the serve module alone, so this test does not depend on other commands.
SCRIPT = textwrap.dedent("""
    import argparse, sys
    from mcv_pipelines.cli import serve
    from mcv_pipelines.errors import McvError
    parser = argparse.ArgumentParser(prog="mcv")
    serve.register(parser.add_subparsers())
    args = parser.parse_args(sys.argv[1:])
    try:
        raise SystemExit(args.handler(args))
    except McvError as exc:
        print(f"mcv: error: {exc}", file=sys.stderr)
        raise SystemExit(int(exc.exit_code))
""")


def test_serve_prints_urls_and_key_and_stops_on_interrupt(tmp_path: Path) -> None:
    command = [sys.executable, "-c", SCRIPT, "serve", "--port", "0", "--data-dir", str(tmp_path)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None
            lines = dict(child.stdout.readline().split(":", 1) for _ in range(4))
            base, key = lines["base URL"].strip(), lines["API key"].strip()
            assert lines["sync URL"].strip() == base + "/sync"
            assert base.startswith("http://127.0.0.1:")
            me = httpx.get(f"{base}/v2/users/me", headers={"Authorization": f"Bearer {key}"})
            assert me.status_code == 200
            child.send_signal(signal.SIGINT)
            assert child.wait(timeout=30) == 0, "mcv serve did not stop within 30 s of SIGINT"
        finally:  # a failed test must not leave the with block waiting for the child for ever
            if child.poll() is None:
                child.kill()
    assert (tmp_path / "service.sqlite3").exists()


def test_serve_rejects_a_bad_fault_spec(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-c",
        SCRIPT,
        "serve",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path),
        "--faults",
        "teapot=1",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith("mcv: error: --faults: bad fault 'teapot=1'")


def test_serve_rejects_a_missing_sandbox_file(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-c",
        SCRIPT,
        "serve",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path),
        "--sandbox",
        "--sandbox-allow",
        str(tmp_path / "missing.png"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert "--sandbox-allow" in result.stderr
    assert "No such file" in result.stderr


def test_a_port_in_use_is_a_usage_error(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path / "a", engines=[]) as svc:
        port = svc.base_url.rsplit(":", 1)[1]
        command = [sys.executable, "-c", SCRIPT, "serve", "--port", port, "--data-dir", str(tmp_path / "b")]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
