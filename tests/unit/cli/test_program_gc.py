"""The `mcv` program keeps the cyclic garbage collector off while a command's modules import, freezes
what they built, and runs the command with the collector on (issue 15: a quarter of `mcv batch`'s
start-up went to collections over objects that live until exit). ``main`` called in-process leaves
the caller's collector as it was."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from mcv_pipelines.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
PIPELINE = ROOT / "pipelines" / "product-images.yaml"

# Runs the program as `python -m mcv_pipelines` does, and records the collector's state at exit.
_PROBE = """
import atexit, gc, json, sys
seen, path = {}, sys.argv[1]
def record():
    seen.update(enabled_at_exit=gc.isenabled(), frozen_at_exit=gc.get_freeze_count())
    with open(path, "w") as out:
        json.dump(seen, out)
atexit.register(record)
from mcv_pipelines.cli.main import program
sys.argv = ["mcv", *sys.argv[2:]]
raise SystemExit(program())
"""


def _probe(tmp_path: Path, *args: str) -> tuple[int, dict[str, int]]:
    out = tmp_path / "gc.json"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(out), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=ROOT,
    )
    return done.returncode, json.loads(out.read_text())


def test_the_program_runs_its_command_with_the_collector_on_and_start_up_frozen(tmp_path: Path) -> None:
    code, seen = _probe(tmp_path, "validate", str(PIPELINE))
    assert code == 0
    assert seen["enabled_at_exit"] is True
    assert seen["frozen_at_exit"] > 10_000  # the command's modules: classes, functions, constants


def test_an_error_in_argument_parsing_still_leaves_the_collector_on(tmp_path: Path) -> None:
    code, seen = _probe(tmp_path, "validate", "--no-such-option")
    assert code == 2
    assert seen["enabled_at_exit"] is True


def test_main_in_process_leaves_the_callers_collector_alone() -> None:
    frozen = gc.get_freeze_count()
    assert main(["validate", str(PIPELINE)]) == 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
