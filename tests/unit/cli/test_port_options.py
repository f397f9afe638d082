"""Out-of-range ports are usage errors that name the option, not internal errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.cli.main import main

PIPELINES = Path(__file__).resolve().parents[3] / "pipelines"


def test_serve_refuses_a_port_above_65535(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", "99999"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "--port: '99999' is not a port number (0 to 65535)" in err
    assert "internal error" not in err


def test_run_refuses_a_listen_port_above_65535(capsys: pytest.CaptureFixture[str]) -> None:
    code = main([
        "run", str(PIPELINES / "product-images.yaml"), "-p", f"photo={PIPELINES / 'assets' / 'photo.jpg'}",
        "--dry-run", "--wait", "webhook", "--listen", "127.0.0.1:99999",
    ])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "--listen '127.0.0.1:99999': expected HOST:PORT with a port up to 65535" in err
