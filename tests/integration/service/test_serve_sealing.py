"""`mcv serve` and the engine seal (issue 24): the banner says which seal engine programs run under,
and a served instance refuses to start where programs could reach the network, unless told."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from test_serve_command import SCRIPT

from engine_needs import unavailable
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.seal import FORCE_VARIABLE


def serve(tmp_path: Path, seal: str, *extra: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", SCRIPT, "serve", "--port", "0", "--data-dir", str(tmp_path), *extra]
    env = {**os.environ, FORCE_VARIABLE: seal}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def banner(child: subprocess.Popen[str]) -> dict[str, str]:
    """The banner's lines up to "serving", by label; then stops the service."""
    with child:
        assert child.stdout is not None
        lines: dict[str, str] = {}
        for line in child.stdout:
            if line.startswith("serving"):
                break
            label, _, value = line.partition(":")
            lines[label.strip()] = value.strip()
        child.send_signal(signal.SIGINT)
        child.communicate(timeout=30)
    assert child.returncode == 0
    return lines


def test_a_machine_without_a_seal_does_not_serve(tmp_path: Path) -> None:
    with serve(tmp_path, "none") as child:
        _, errors = child.communicate(timeout=60)
    assert child.returncode == 2
    assert "cannot be sealed off the network" in errors
    assert "--allow-engine-network" in errors


def test_allow_engine_network_serves_and_says_so(tmp_path: Path) -> None:
    lines = banner(serve(tmp_path, "none", "--allow-engine-network"))
    assert lines["engines"].startswith("NOT sealed")


def test_the_banner_names_bubblewrap(tmp_path: Path, require_program: Callable[..., str]) -> None:
    require_program("bwrap")
    lines = banner(serve(tmp_path, "bwrap"))
    assert lines["engines"].startswith("bubblewrap (no network")


def test_the_banner_names_landlock_and_its_layers(tmp_path: Path) -> None:
    if not landlock_rules.available():
        unavailable("Landlock or seccomp cannot be set on this machine")
    lines = banner(serve(tmp_path, "landlock"))
    assert lines["engines"].startswith("Landlock ABI")
    assert "seccomp" in lines["engines"]


def test_the_refusal_says_whether_bubblewrap_is_missing_or_blocked(tmp_path: Path) -> None:
    with serve(tmp_path, "none") as child:
        _, errors = child.communicate(timeout=60)
    assert child.returncode == 2
    assert seal.bubblewrap_state() in errors
