"""Schemathesis against the running service with its own document: every operation, the stateful
links (create a job, read its task, upload to its form, ...), bounded examples.

Knobs: MCV_SCHEMATHESIS_EXAMPLES (examples per operation, default 5) and MCV_SCHEMATHESIS_SEED
(default 1, so a failure reproduces; any integer, or "random").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcv_pipelines.service.server import LocalService

pytest.importorskip("schemathesis", reason="needs the dev extra: pip install -e '.[dev]'")

HERE = Path(__file__).resolve().parent


def _tail(text: str, marker: str = "FAILURES") -> str:
    start = text.find(marker)
    return text[start:] if start >= 0 else text[-6000:]


@pytest.mark.slow
def test_schemathesis_finds_no_5xx_no_contract_violation(
    contract_service: LocalService, tmp_path: Path
) -> None:
    examples = os.environ.get("MCV_SCHEMATHESIS_EXAMPLES", "5")
    seed = os.environ.get("MCV_SCHEMATHESIS_SEED", "1")
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(HERE / "schemathesis.toml"),
        "run",
        f"{contract_service.base_url}/openapi.json",
        "--max-examples",
        examples,
        # An event stream never ends by itself: every request to it would wait out the timeout.
        # tests/integration/console drives it with a real browser instead.
        "--exclude-path",
        "/console/api/events",
    ]
    if seed != "random":
        command += ["--seed", seed]
    env = {
        **os.environ,
        "MCV_TEST_API_KEY": contract_service.api_key,
        "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p),
    }
    # In a scratch directory: Schemathesis keeps a cache folder where it runs.
    run = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    output = run.stdout + run.stderr
    assert contract_service.api_key not in output
    assert run.returncode == 0, _tail(output)
    assert "Stateful" in output
