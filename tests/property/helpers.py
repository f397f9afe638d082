"""Running the CLI in process for the property suite: a crash is raised (so Hypothesis shrinks it),
not turned into "internal error" and a log file."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from unittest import mock

from mcv_pipelines.cli import main as cli_main

CLEAN_EXITS = (0, 1, 2, 3)


def _raise(exc: BaseException) -> int:
    raise exc


def run_cli(argv: Sequence[str]) -> tuple[int, str, str]:
    """``mcv ARGV`` in this process: (exit code, stdout, stderr); an unexpected exception propagates."""
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.object(cli_main, "_report_bug", _raise),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = cli_main.main(list(argv))
        except SystemExit as exc:  # argparse refusing a flag
            code = exc.code if isinstance(exc.code, int) else 2
    assert code in CLEAN_EXITS, (code, err.getvalue()[-2000:])
    assert "Traceback" not in err.getvalue()
    return code, out.getvalue(), err.getvalue()
