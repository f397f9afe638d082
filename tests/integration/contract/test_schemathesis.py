"""Schemathesis against the running service with its own document: every check but one named in
schemathesis.toml, over the examples, coverage and stateful phases (create a job, read its task,
upload to its form, ...), bounded examples.

Knobs: MCV_SCHEMATHESIS_EXAMPLES (examples per operation, default 5) and MCV_SCHEMATHESIS_SEED
(default 1, so a failure reproduces; any integer, or "random").
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import schemathesis
from schemathesis.specs.openapi import checks as openapi_checks

from mcv_pipelines.service.server import LocalService

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
        "PYTHONIOENCODING": "utf-8",
        "MCV_TEST_API_KEY": contract_service.api_key,
        "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p),
    }
    # In a scratch directory: Schemathesis keeps a cache folder where it runs.
    run = subprocess.run(
        command,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,
        check=False,
    )
    output = run.stdout + run.stderr
    assert contract_service.api_key not in output
    assert run.returncode == 0, f"Schemathesis {schemathesis.__version__}:\n{_tail(output)}"
    for phase in ("Examples", "Coverage", "Stateful"):
        assert f"✅ {phase}" in output, _tail(output, "SUMMARY")
    assert " errored" not in output or " 0 errored" in output, _tail(output, "SUMMARY")


def test_the_run_uses_every_check_but_the_one_named_exclusion() -> None:
    config = tomllib.loads((HERE / "schemathesis.toml").read_text(encoding="utf-8"))
    checks = config["checks"]
    assert checks.pop("enabled") is True
    assert checks == {"positive_data_acceptance": {"enabled": False}}
    # Still a check Schemathesis has: a renamed one would make the exclusion exclude nothing.
    assert callable(openapi_checks.positive_data_acceptance)
    assert not config.get("phases", {}).get("coverage", {}).get("unexpected-methods")
    for phase in ("examples", "coverage", "stateful"):
        assert config.get("phases", {}).get(phase, {}).get("enabled", True) is True
