"""`mcv doctor` against a real service over loopback: answering, key taken or refused, its version;
the key never printed (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines import __version__
from mcv_pipelines.cli.main import main
from mcv_pipelines.service.server import LocalService


def _doctor(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    base_url: str,
    key: str,
) -> tuple[int, dict[str, Any], str]:
    monkeypatch.setenv("MCV_BASE_URL", base_url)
    monkeypatch.setenv("MCV_API_KEY", key)
    monkeypatch.setenv("MCV_DATA_DIR", str(tmp_path / "embedded"))
    monkeypatch.setenv("MCV_CONFIG", str(tmp_path / "no-config.toml"))
    code = main(["doctor", "--format", "json"])
    as_json = capsys.readouterr().out
    main(["doctor"])
    text = capsys.readouterr().out
    return code, json.loads(as_json), as_json + text


def test_a_service_that_takes_the_key_is_reported_with_its_version(
    service: LocalService, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, report, printed = _doctor(monkeypatch, capsys, tmp_path, service.base_url, service.api_key)
    assert report["service"] == {
        "configured": True, "base_url": service.base_url.rstrip("/"), "reachable": True, "key_given": True,
        "key_valid": True, "version": __version__, "problem": None,
    }
    assert not [item for item in report["attention"] if item.startswith("service")]
    assert "API key   accepted" in printed
    assert service.api_key not in printed


def test_a_refused_key_needs_attention_and_is_not_printed(
    service: LocalService, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wrong = "wrong-key-" + "x" * 24
    code, report, printed = _doctor(monkeypatch, capsys, tmp_path, service.base_url, wrong)
    assert code == 1
    assert report["service"]["reachable"] is True
    assert report["service"]["key_valid"] is False
    assert "service: the API key was refused" in report["attention"]
    assert "API key   REFUSED" in printed
    assert wrong not in printed


def test_a_service_that_does_not_answer_needs_attention(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with LocalService(data_dir=tmp_path / "gone", engines=[]) as gone:
        base_url, key = gone.base_url, gone.api_key
    # stopped: its port refuses connections now
    code, report, printed = _doctor(monkeypatch, capsys, tmp_path, base_url, key)
    assert code == 1
    assert report["service"]["reachable"] is False
    assert "answers   NO" in printed
    assert key not in printed
