"""Assimp's confinement: a program started in ``confined()`` finds nothing of the system but /usr,
and nothing of the service's environment, yet reads and writes its own directory."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.scene.confine import confined, program_env, program_prefix


def test_a_confined_program_sees_its_directory_and_not_the_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> None:
    require_program("bwrap")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "bwrap")
    (tmp_path / "model.obj").write_text("v 0 0 0\n")
    assert Path("/etc/passwd").read_text().startswith("root:")  # readable outside, by this test
    with confined():
        outcome = run_program(
            [require_program("sh"), "-c", "cat model.obj /etc/passwd; echo made > out.txt"],
            cwd=tmp_path,
            env=program_env(tmp_path),
        )
    assert "v 0 0 0" in outcome.output
    assert "root:" not in outcome.output
    assert (tmp_path / "out.txt").read_text() == "made\n"


def test_a_confined_program_gets_none_of_the_services_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> None:
    monkeypatch.setenv("MCV_API_KEY", "key-of-the-service")
    with confined():
        outcome = run_program([require_program("env")], cwd=tmp_path, env=program_env(tmp_path))
    assert outcome.returncode == 0
    assert "key-of-the-service" not in outcome.output
    assert f"HOME={tmp_path}" in outcome.output


def test_a_program_installed_outside_usr_still_runs_confined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> None:
    require_program("bwrap")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "bwrap")
    program = tmp_path / "prefix" / "bin" / "echo"  # as Homebrew on Linux or /opt would install it
    program.parent.mkdir(parents=True)
    shutil.copy2(require_program("echo"), program)
    work = tmp_path / "work"
    prefix = program_prefix(str(program))
    assert prefix == tmp_path / "prefix"
    with confined(keep=(prefix,)):
        outcome = run_program([str(program), "converted"], cwd=work, env=program_env(work))
    assert (outcome.returncode, outcome.output) == (0, "converted\n")
    with confined():  # its prefix hidden like the rest: it cannot start
        assert run_program([str(program), "converted"], cwd=work, env=program_env(work)).returncode != 0
