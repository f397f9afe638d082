"""A 15 MB value in a pipeline gives short diagnostics in every format (issue 14)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from mcv_pipelines.cli.main import main
from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.redact import register_secret
from mcv_pipelines.reporters import REPORTER_NAMES
from mcv_pipelines.shorten import shorten, shorten_message

ELEVEN_MIB = base64.b64encode(b"\x00hello\xff" * (11 * 1024 * 1024 // 7)).decode("ascii")


def _pipeline(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "big.yaml"
    path.write_text(
        "version: 1\n"
        "tasks:\n"
        "  embedded:\n"
        "    operation: import/base64\n"
        "    filename: photo.png\n"
        f"    file: {content}\n"
        "  out:\n"
        "    operation: export/url\n"
        "    input: embedded\n",
        encoding="ascii",
    )
    return path


@pytest.mark.parametrize("fmt", REPORTER_NAMES)
def test_eleven_mib_base64_gives_one_short_diagnostic_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    path = _pipeline(tmp_path, ELEVEN_MIB)
    assert main(["validate", "--format", fmt, str(path)]) == 2
    out = capsys.readouterr().out
    assert len(out) < 5000, "no report holds the whole value"
    assert ELEVEN_MIB[:1000] not in out
    assert "op-content-too-large" in out
    assert "is too long" not in out, "the size is said once"
    if fmt == "json":
        found = json.loads(out)["diagnostics"]
        assert [(d["rule"], d["line"], d["column"]) for d in found] == [("op-content-too-large", 6, 11)]
    if fmt == "text":
        assert f"{path}:6:11: error[op-content-too-large]" in out


@pytest.mark.parametrize("fmt", REPORTER_NAMES)
def test_a_long_value_in_a_message_is_quoted_head_and_tail_with_its_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    bad = ELEVEN_MIB[: 2 * 1024 * 1024] + "!!" + "QUJD" * 1000  # not base64: the pattern quotes the value
    path = _pipeline(tmp_path, bad)
    assert main(["validate", "--format", fmt, str(path)]) == 2
    out = capsys.readouterr().out
    assert len(out) < 5000
    assert bad[:24] + "..." + bad[-12:] in out
    assert f"({len(bad):,} characters)" in out


def test_short_messages_are_left_alone_and_long_words_are_cut() -> None:
    assert shorten_message("task 'web': unknown option 'widht'") == "task 'web': unknown option 'widht'"
    long_list = "[" + ",".join(["1"] * 500) + "]"
    expected = f"got {long_list[:24]}...{long_list[-12:]} (1,001 characters)"
    assert shorten_message(f"got {long_list}") == expected
    assert shorten("abc") == "'abc'"
    assert shorten("x" * 100) == f"'{'x' * 24}...{'x' * 12}' (100 characters)"


def test_every_diagnostic_is_short_whoever_built_it() -> None:
    d = Diagnostic("x", Severity.ERROR, "v " * 5000, Location("p.yaml", 1, 1), hint="h" * 10_000)
    assert len(d.message) <= 2100
    assert d.hint is not None
    assert len(d.hint) < 100


def test_a_long_secret_is_masked_before_it_is_shortened() -> None:
    secret = "s3cr3t-" + "k" * 150 + "-tail"
    register_secret(secret)
    d = Diagnostic("op-option-value", Severity.ERROR, f"option 'url': {secret!r} is not a 'uri'", hint=secret)
    assert secret[:20] not in d.message
    assert "'***' is not a 'uri'" in d.message
    assert d.hint == "***"
