"""`mcv init`: a project from an example that validates, whose test cases pass with the golden files it
wrote, that commits through the hook, never overwrites (issues 26 and 51)."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from PIL import Image

from mcv_pipelines.cli.main import main
from mcv_pipelines.cli.setup.init_files import example_files, examples

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = "pipelines/product-images.golden/two-webp-renditions-and-a-one-page-sheet/web-320/photo-320w.webp"
WRITTEN = {
    "pipelines/product-images.yaml",
    "pipelines/assets/photo.jpg",
    GOLDEN,
    "schemas/pipeline.schema.json",
    ".pre-commit-config.yaml",
    ".github/workflows/pipelines.yml",
}


def _mcv(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """mcv as a user runs it from a script: stdin is not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "mcv_pipelines", *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=cwd, env=env, check=False, timeout=300,
    )


def _no_service_configured(tmp_path: Path) -> dict[str, str]:
    """The environment of a user with no service configured: `mcv test` starts the embedded one, with
    a data directory of this test's own."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("MCV_")}
    env.update(MCV_CONFIG=str(tmp_path / "no-config.toml"), MCV_DATA_DIR=str(tmp_path / "data"))
    env["MCV_CACHE_DIR"] = os.environ.get("MCV_CACHE_DIR", str(tmp_path / "cache"))
    return env


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_an_empty_directory_gets_files_that_validate_without_a_question(tmp_path: Path) -> None:
    done = _mcv("init", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "?" not in done.stdout  # nothing asked
    assert _files(tmp_path) == WRITTEN
    pipeline = tmp_path / "pipelines" / "product-images.yaml"
    modeline = pipeline.read_text().splitlines()[0]
    schema = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", modeline)
    assert schema is not None
    assert (pipeline.parent / schema.group(1)).resolve() == (tmp_path / "schemas/pipeline.schema.json")
    checked = _mcv("validate", "pipelines", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip() == "1 file valid"


def test_the_ci_files_name_the_hook_and_the_action_this_repository_ships(tmp_path: Path) -> None:
    assert _mcv("init", str(tmp_path)).returncode == 0
    config = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text())
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [hook["id"] for hook in config["repos"][0]["hooks"]] == [hooks[0]["id"]]
    workflow = yaml.safe_load((tmp_path / ".github/workflows/pipelines.yml").read_text())
    step = workflow["jobs"]["validate"]["steps"][-1]
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert set(step["with"]) <= set(action["inputs"])
    assert step["with"]["test"] is True  # CI runs the recipe's test cases too


def test_the_recipe_s_test_cases_pass_in_the_new_project_golden_file_included(tmp_path: Path) -> None:
    project = tmp_path / "project"
    done = _mcv("init", str(project))
    assert done.returncode == 0, done.stderr
    assert f"mcv test {project / 'pipelines'}/" in done.stdout  # the way to run them, said
    recipe = yaml.safe_load((project / "pipelines/product-images.yaml").read_text())
    assert any(
        expected.get("golden") is True for case in recipe["tests"] for expected in case["expect"].values()
    )
    assert (project / GOLDEN).read_bytes() == (ROOT / GOLDEN).read_bytes()
    env = _no_service_configured(tmp_path)

    checked = _mcv("validate", "pipelines/", cwd=project, env=env)
    assert (checked.returncode, checked.stdout.strip(), checked.stderr) == (0, "1 file valid", "")

    tested = _mcv("test", "pipelines/", cwd=project, env=env)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.splitlines()[-1].startswith("2 passed in ")
    assert "PASS    pipelines/product-images.yaml::two webp renditions and a one-page sheet" in tested.stdout

    # The golden file is compared, not just present: one that no longer looks like the output fails
    # the case at the line of its `golden: true`.
    with Image.open(project / GOLDEN) as picture:
        picture.transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(project / GOLDEN, format="WEBP")
    golden_line = next(
        number
        for number, line in enumerate((project / "pipelines/product-images.yaml").read_text().splitlines(), 1)
        if line.strip().startswith("golden: true")
    )
    failed = _mcv("test", "pipelines/", cwd=project, env=env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert f"pipelines/product-images.yaml:{golden_line}:" in failed.stdout
    assert "web-320: golden: expected like" in failed.stdout
    assert "1 passed, 1 failed in " in failed.stdout


@pytest.mark.parametrize("name", [example.name for example in examples()])
def test_every_example_s_project_has_the_fixtures_and_golden_files_its_cases_name(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mcv validate` checks a case's fixtures and golden folders offline: in the project `mcv init`
    writes (its own repository), none is missing."""
    example = next(example for example in examples() if example.name == name)
    for relative, content in example_files(example).items():
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    monkeypatch.chdir(tmp_path)  # no .git above: the folder the command runs in is the repository
    code = main(["validate", "pipelines/"])
    said = capsys.readouterr()
    assert code == 0, said.out + said.err
    assert "test-fixture" not in said.out + said.err
    assert "test-golden-missing" not in said.out + said.err


def test_from_picks_the_example_and_its_assets(tmp_path: Path) -> None:
    done = _mcv("init", str(tmp_path), "--from", "thumbnails")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pipelines/thumbnails.yaml").is_file()
    copied = (tmp_path / "pipelines/assets/logo.png").read_bytes()
    assert copied == (ROOT / "pipelines/assets/logo.png").read_bytes()
    assert not (tmp_path / "pipelines/product-images.yaml").exists()


def test_it_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    mine = tmp_path / ".pre-commit-config.yaml"
    mine.write_text("repos: []\n")
    done = _mcv("init", str(tmp_path))
    assert done.returncode == 2
    assert str(mine) in done.stderr
    assert mine.read_text() == "repos: []\n"
    assert _files(tmp_path) == {".pre-commit-config.yaml"}


def test_on_a_terminal_it_offers_a_numbered_choice(tmp_path: Path) -> None:
    import pty

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcv_pipelines", "init", str(tmp_path)],
        stdin=terminal, stdout=terminal, stderr=terminal,
    )
    os.close(terminal)
    try:
        shown = _read_until(controller, "number [")
        listed = dict(re.findall(r"^\s*(\d+)\. (\S+)", shown, re.MULTILINE))
        assert "product-images" in listed.values()
        number = next(n for n, name in listed.items() if name == "thumbnails")
        os.write(controller, f"{number}\n".encode())
        assert process.wait(timeout=120) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    assert (tmp_path / "pipelines/thumbnails.yaml").is_file()


def _read_until(fd: int, text: str, bound: float = 60.0) -> str:
    seen = ""
    deadline = time.monotonic() + bound
    while text not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 1.0)[0]:
            seen += os.read(fd, 4096).decode(errors="replace").replace("\r", "")
    assert text in seen, seen
    return seen


@pytest.mark.slow
def test_the_hook_passes_on_what_init_wrote(tmp_path: Path, require_program: Callable[..., str]) -> None:
    """`pre-commit try-repo` on this repository, in a git repository holding only what init wrote.

    pre-commit installs the hook's environment from this checkout (pip, from the configured indexes);
    a private PRE_COMMIT_HOME keeps the user's cache out of it.
    """
    git = require_program("git")
    pre_commit = Path(sys.executable).with_name("pre-commit")
    project = tmp_path / "project"
    assert _mcv("init", str(project)).returncode == 0
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    subprocess.run([git, "init", "-q"], cwd=project, check=True, env=env, timeout=60)
    subprocess.run([git, "add", "-A"], cwd=project, check=True, env=env, timeout=60)
    valid = subprocess.run(
        [str(pre_commit), "validate-config", ".pre-commit-config.yaml"],
        cwd=project, env=env, capture_output=True, text=True, check=False, timeout=60,
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    ran = subprocess.run(
        [str(pre_commit), "try-repo", str(ROOT), "mcv-validate", "--all-files"],
        cwd=project, env=env, capture_output=True, text=True, check=False, timeout=900,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert re.search(r"^mcv validate\.+Passed$", ran.stdout, re.MULTILINE), ran.stdout
    # The same hook fails a commit of a broken pipeline, naming the problem (environment now cached).
    broken = project / "pipelines" / "broken.yaml"
    broken.write_text((project / "pipelines" / "product-images.yaml").read_text().replace(
        "input: original", "input: orignal", 1
    ))
    subprocess.run([git, "add", "-A"], cwd=project, check=True, env=env, timeout=60)
    failed = subprocess.run(
        [str(pre_commit), "try-repo", str(ROOT), "mcv-validate", "--all-files"],
        cwd=project, env=env, capture_output=True, text=True, check=False, timeout=900,
    )
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "graph-dangling-input" in failed.stdout
