"""`mcv lsp` is a row of the command table, and only it pays for importing the language server."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcv_pipelines.cli.main import COMMANDS, main


def test_lsp_is_listed_and_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert "lsp" in [row.name for row in COMMANDS]
    with pytest.raises(SystemExit) as done:
        main(["lsp", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--log-file" in out
    assert "--debounce-ms" in out


def test_validate_does_not_import_the_language_server() -> None:
    script = (
        "import sys\nfrom mcv_pipelines.cli.main import build_parser\n"
        "build_parser('validate')\nprint(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pygls', 'lsprotocol') or m.startswith('mcv_pipelines.lsp')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
