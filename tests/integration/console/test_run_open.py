"""`mcv run --open` on the embedded service, where no display is: nothing opens, the page is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.cli.main import main

ROOT = Path(__file__).resolve().parents[3]


def test_run_open_without_a_display_names_the_job_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "MCV_API_KEY", "MCV_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    code = main(
        [
            "run",
            str(ROOT / "pipelines" / "thumbnails.yaml"),
            "-p",
            f"image={ROOT / 'pipelines' / 'assets' / 'logo.png'}",
            "--data-dir",
            str(tmp_path / "data"),
            "--out",
            str(tmp_path / "out"),
            "--open",
            "--progress",
            "none",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert "mcv: --open: no browser could be shown here; the job page is http://127.0.0.1:" in err
    assert "/console/#/job/" in err
    key = (tmp_path / "data" / "api-key").read_text().strip()
    assert key not in err
