"""The GitHub Action (action.yml) and the GitLab snippet (docs/how-to/validate-in-ci.md) run as CI would
run them (issue 26).

The action's `run:` steps are taken from action.yml and run by bash with their `env:` filled in from
the test's inputs (defaults from the file), as the runner does; `uses:` steps (setup-python, the SARIF
upload) are GitHub's own and are left out, and so is the install step: mcv is this checkout's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcv_pipelines import __version__

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
BROKEN = """\
version: 1
name: broken
tasks:
  original: {operation: import/url, url: "https://example.com/a.jpg"}
  web: {operation: convert, input: orignal, output_format: webp}
  publish: {operation: export/url, input: web}
"""


def _action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return loaded


def _expand(value: str, inputs: dict[str, str]) -> str:
    """GitHub's ``${{ inputs.NAME }}`` and ``${{ github.action_path }}`` in an env value."""

    def one(match: re.Match[str]) -> str:
        expression = match.group(1).strip()
        if expression == "github.action_path":
            return str(ROOT)
        name = expression.removeprefix("inputs.")
        assert name != expression, f"unexpected expression {expression!r}"
        return inputs[name]

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def _run_action(inputs: dict[str, str], cwd: Path, bash: str) -> tuple[int, str]:
    """Run the validate step(s) of action.yml with ``inputs``; exit code of the last, all stdout."""
    action = _action()
    given = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(given)
    assert not unknown, f"action.yml has no inputs {unknown}"
    given.update(inputs)
    printed, code = "", 0
    for step in action["runs"]["steps"]:
        if "run" not in step or step.get("name") == "Install mcv":
            continue
        assert step["shell"] == "bash"
        env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(cwd)}
        env.update({key: _expand(str(value), given) for key, value in step.get("env", {}).items()})
        assert "${{" not in step["run"], "inputs reach the script through env only"
        done = subprocess.run(
            [bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120,
        )
        printed += done.stdout + done.stderr
        code = done.returncode
    return code, printed


@pytest.fixture
def bash(require_program: Callable[..., str]) -> str:
    return require_program("bash")


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    (tmp_path / "pipelines").mkdir()
    (tmp_path / "pipelines" / "good.yaml").write_text((ROOT / "pipelines/product-images.yaml").read_text())
    (tmp_path / "pipelines" / "broken.yaml").write_text(BROKEN)
    # The recipe's test cases name their fixture: a repository that holds the recipe holds it too.
    (tmp_path / "pipelines" / "assets").mkdir()
    (tmp_path / "pipelines" / "assets" / "photo.jpg").write_bytes((ROOT / "pipelines/assets/photo.jpg").read_bytes())
    return tmp_path


def test_problems_come_out_as_annotations_and_fail_the_step(repository: Path, bash: str) -> None:
    code, printed = _run_action({}, repository, bash)
    assert code == 2
    annotations = [line for line in printed.splitlines() if line.startswith("::")]
    assert annotations
    assert any(
        line.startswith("::error file=pipelines/broken.yaml,line=5,") and "title=graph-dangling-input" in line
        for line in annotations
    ), annotations
    assert not [line for line in annotations if "good.yaml" in line]


def test_a_clean_repository_passes_and_writes_the_sarif_report(repository: Path, bash: str) -> None:
    (repository / "pipelines" / "broken.yaml").unlink()
    code, printed = _run_action({"sarif": "true", "paths": "pipelines/good.yaml"}, repository, bash)
    assert code == 0, printed
    assert not [line for line in printed.splitlines() if line.startswith("::error")]
    sarif = json.loads((repository / "mcv-validate.sarif").read_text())
    assert sarif["runs"][0]["results"] == []


def test_sarif_lists_the_problems_checked_against_the_catalog_given(repository: Path, bash: str) -> None:
    catalog = repository / "prod.json"
    catalog.write_text((ROOT / "schemas/catalog/local.json").read_text())
    inputs = {"sarif": "true", "sarif-file": "out.sarif", "catalog": "prod.json"}
    code, _ = _run_action(inputs, repository, bash)
    assert code == 2
    results = json.loads((repository / "out.sarif").read_text())["runs"][0]["results"]
    assert "graph-dangling-input" in {result["ruleId"] for result in results}
    code, printed = _run_action({"catalog": "no-such.json"}, repository, bash)
    assert code == 2
    assert "no-such.json: no such catalog snapshot" in printed  # the input reached mcv


def test_paths_with_shell_characters_stay_paths(repository: Path, bash: str) -> None:
    code, printed = _run_action({"paths": "pipelines/good.yaml $(touch injected)"}, repository, bash)
    assert not (repository / "injected").exists()
    assert code == 2  # the second "path" does not exist: reported, not run
    del printed


def test_the_docs_gitlab_snippet_writes_a_code_quality_report(repository: Path, bash: str) -> None:
    page = (ROOT / "docs" / "how-to" / "validate-in-ci.md").read_text()
    block = re.search(r"```yaml\n(# \.gitlab-ci\.yml.*?)```", page, re.DOTALL)
    assert block is not None, "docs/how-to/validate-in-ci.md has no GitLab CI snippet"
    job = next(iter(yaml.safe_load(block.group(1)).values()))
    report = job["artifacts"]["reports"]["codequality"]
    commands = [line for line in job["script"] if line.startswith("mcv ")]
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(repository)}
    for command in commands:
        subprocess.run([bash, "--norc", "-c", command], cwd=repository, env=env, check=False, timeout=120)
    issues = json.loads((repository / report).read_text())
    assert {issue["location"]["path"] for issue in issues} == {"pipelines/broken.yaml"}
    assert job["artifacts"]["when"] == "always"
    assert os.path.basename(report) == report


@pytest.mark.slow
def test_the_install_step_installs_an_mcv_that_can_init_and_validate(tmp_path: Path, bash: str) -> None:
    """The action's own install step, into a fresh virtual environment standing in for setup-python:
    pip builds mcv from this checkout (the action's path), with the examples and schema as package data.
    """
    step = next(s for s in _action()["runs"]["steps"] if s.get("name") == "Install mcv")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {**os.environ, "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    env.pop("VIRTUAL_ENV", None)
    env.update({key: _expand(str(value), {"version": ""}) for key, value in step["env"].items()})
    installed = subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=1200,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert installed.stdout.strip().endswith(f"mcv {__version__}")
    mcv = venv / "bin" / "mcv"
    project = tmp_path / "project"
    made = subprocess.run([str(mcv), "init", str(project)], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, check=False, timeout=120)
    assert made.returncode == 0, made.stderr
    checked = subprocess.run([str(mcv), "validate", "--format", "github", "pipelines"], cwd=project, env=env,
                             capture_output=True, text=True, check=False, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
