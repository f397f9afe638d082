"""A program under the Landlock seal asks who runs it and is answered from the task's own passwd file
(engines/user_entry.py, nss_wrapper preloaded), not from /etc/passwd, which the seal hides: what lets
GNUstep's lsar and unar read an archive's dates as a user other than root. The entry is renamed here
so that the answer can only have come from the task's file, whoever runs the test (root included)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine_needs import require_program, unavailable
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.seal import TaskScope, task_scope
from mcv_pipelines.service.engines.user_entry import nss_wrapper, user_entry_environment


def test_the_entry_names_the_user_with_a_home_in_the_work_directory(tmp_path: Path) -> None:
    if nss_wrapper() is None:
        unavailable("nss_wrapper (libnss-wrapper) is not installed")
    env = user_entry_environment(tmp_path / "work")
    assert env["LD_PRELOAD"] == nss_wrapper()
    [line] = Path(env["NSS_WRAPPER_PASSWD"]).read_text().splitlines()
    name, _, uid, gid, _, home, _ = line.split(":")
    assert (int(uid), int(gid), home) == (os.geteuid(), os.getegid(), str(tmp_path / "work"))
    assert Path(env["NSS_WRAPPER_GROUP"]).read_text() == f"{name}:x:{gid}:\n"


def test_a_sealed_program_learns_its_user_from_the_tasks_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    if nss_wrapper() is None:
        unavailable("nss_wrapper (libnss-wrapper) is not installed")
    whoami = require_program("id")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "landlock")
    work = tmp_path / "work"
    env = user_entry_environment(work)
    passwd = Path(env["NSS_WRAPPER_PASSWD"])
    passwd.write_text("mcv-task-user" + passwd.read_text()[passwd.read_text().index(":") :])
    with task_scope(TaskScope(writable=(work,))):
        outcome = run_program([shutil.which(whoami) or whoami, "-un"], cwd=work, env=env)
    assert (outcome.returncode, outcome.output.strip()) == (0, "mcv-task-user"), outcome.output
