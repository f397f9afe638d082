"""The GitHub Action (action.yml) and the GitLab snippet (docs/how-to/validate-in-ci.md) run as CI would
run them (issues 26 and 51).

The action's `run:` steps are taken from action.yml and run by bash with their `env:` filled in from
the test's inputs (defaults from the file), as the runner does: a step whose `if:` is false is skipped,
and the steps after a failed one are too; `uses:` steps (setup-python, the SARIF upload) are GitHub's
own and are left out, and so is the install step: mcv is this checkout's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
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


def _runs(step: dict[str, Any], inputs: dict[str, str]) -> bool:
    """A `run:` step's ``if:``, of the one form action.yml uses there: ``${{ inputs.NAME == 'VALUE' }}``."""
    if "if" not in step:
        return True
    condition = re.fullmatch(r"\$\{\{\s*inputs\.([\w-]+) == '([^']*)'\s*\}\}", step["if"])
    assert condition is not None, f"the test cannot read the condition {step['if']!r}"
    return inputs[condition.group(1)] == condition.group(2)


def _run_action(inputs: dict[str, str], cwd: Path, bash: str) -> tuple[int, str]:
    """Run the steps of action.yml after the install with ``inputs``, as far as the first that fails;
    its exit code (or the last one's), all they printed."""
    action = _action()
    given = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(given)
    assert not unknown, f"action.yml has no inputs {unknown}"
    given.update(inputs)
    printed, code = "", 0
    for step in action["runs"]["steps"]:
        if "run" not in step or step.get("name") == "Install mcv" or not _runs(step, given):
            continue
        assert step["shell"] == "bash"
        # mcv test starts the embedded service with its data under HOME, as on a runner
        env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(cwd)}
        env.update({key: _expand(str(value), given) for key, value in step.get("env", {}).items()})
        assert "${{" not in step["run"], "inputs reach the script through env only"
        done = subprocess.run(
            [bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120,
        )
        printed += done.stdout + done.stderr
        code = done.returncode
        if code != 0:
            break
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
    shutil.copy(ROOT / "pipelines/assets/photo.jpg", tmp_path / "pipelines/assets/photo.jpg")
    # ...and the golden files of its cases, beside it under its own name.
    shutil.copytree(ROOT / "pipelines/product-images.golden", tmp_path / "pipelines/good.golden")
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


def test_with_test_true_a_failing_expectation_is_annotated_on_its_line_and_fails_the_step(
    repository: Path, bash: str
) -> None:
    (repository / "pipelines" / "broken.yaml").unlink()
    recipe = repository / "pipelines" / "good.yaml"
    lines = recipe.read_text().splitlines(keepends=True)
    wrong = lines.index("        width: 640\n")
    lines[wrong] = "        width: 600\n"  # the web-640 rendition is 640 pixels wide: this expectation fails
    recipe.write_text("".join(lines))

    code, printed = _run_action({"test": "true", "test-report": "cases.xml"}, repository, bash)

    assert code == 1, printed
    errors = [line for line in printed.splitlines() if line.startswith("::error")]
    assert len(errors) == 1, printed
    assert errors[0].startswith(f"::error file=pipelines/good.yaml,line={wrong + 1},col=16,"), errors
    assert errors[0].endswith("::web-640: width: expected 600, found 640 (photo-640w.webp)")
    assert "FAIL    pipelines/good.yaml::two webp renditions and a one-page sheet" in printed
    suite = ET.parse(repository / "cases.xml").getroot()  # noqa: S314 - the report mcv test wrote
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")


def test_with_test_true_a_passing_repository_passes(repository: Path, bash: str) -> None:
    (repository / "pipelines" / "broken.yaml").unlink()
    code, printed = _run_action({"test": "true"}, repository, bash)
    assert code == 0, printed
    assert not [line for line in printed.splitlines() if line.startswith("::error")]
    assert re.search(r"^2 passed in ", printed, re.MULTILINE), printed


def test_tests_run_only_on_valid_pipelines_and_only_when_asked(repository: Path, bash: str) -> None:
    code, printed = _run_action({"test": "true"}, repository, bash)
    assert code == 2  # broken.yaml: validation fails, and the test step does not run
    assert "passed in" not in printed
    (repository / "pipelines" / "broken.yaml").unlink()
    code, printed = _run_action({}, repository, bash)
    assert code == 0
    assert "passed in" not in printed  # test defaults to false


def test_a_report_name_with_shell_characters_stays_a_name(repository: Path, bash: str) -> None:
    (repository / "pipelines" / "broken.yaml").unlink()
    inputs = {"test": "true", "test-report": "cases.xml $(touch injected)"}
    code, printed = _run_action(inputs, repository, bash)
    assert not (repository / "injected").exists()
    assert code == 2  # not a .xml or .jsonl name: refused by mcv test, not run by the shell
    assert "--report cases.xml $(touch injected): give a .jsonl or .xml (JUnit) file" in printed


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
def test_the_install_step_installs_an_mcv_that_can_init_validate_and_test(tmp_path: Path, bash: str) -> None:
    """The action's own install step, into a fresh virtual environment standing in for setup-python:
    pip builds mcv from this checkout (the action's path), with the examples, their golden files and
    the schema as package data: the project `mcv init` writes validates and its cases pass.
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
    assert "::warning" not in checked.stdout  # no golden folder missing: the package carries them
    env["MCV_DATA_DIR"] = str(tmp_path / "data")
    tested = subprocess.run([str(mcv), "test", "--format", "github", "pipelines"], cwd=project, env=env,
                            capture_output=True, text=True, check=False, timeout=300)
    assert tested.returncode == 0, tested.stdout + tested.stderr
