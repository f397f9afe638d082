"""Reading a recipe's `tests:` cases: bounds and sizes as a user writes them, fixtures kept inside the
repository, and the job a case sends (an export for each expected task that has none of its own)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcv_pipelines.pipeline.casecheck import golden_dir, render_case
from mcv_pipelines.pipeline.cases import TestCase, read_cases
from mcv_pipelines.pipeline.document import parse_document
from mcv_pipelines.pipeline.fixtures import FixtureRefused, repository_root, resolve_fixture
from mcv_pipelines.testing.plan import plan_case

RECIPE = """\
version: 1
params:
  photo: {type: string, example: photo.jpg}
  widths: {type: array, items: {type: integer}, default: [320, 640]}
tasks:
  original: {operation: import/upload, upload_from: "{{ params.photo }}"}
  web:
    for_each: "{{ params.widths }}"
    operation: convert
    input: original
    output_format: webp
    width: "{{ item }}"
  sheet: {operation: convert, input: original, output_format: pdf}
  publish: {operation: export/url, input: [web, sheet]}
  store: {operation: export/s3, input: sheet, bucket: b}
tests:
"""


def _cases(text: str) -> list[TestCase]:
    document = parse_document((RECIPE + text).encode(), "recipe.yaml")
    cases, problems = read_cases(document)
    assert problems == []
    return cases


@pytest.mark.parametrize(
    ("written", "inside", "outside", "said"),
    [
        ("200 KB", 200_000, 200_001, "200 KB"),
        ("1 MiB", 1_048_576, 1_048_577, "1 MiB"),
        ("{max: 2.5 MB}", 2_500_000, 2_500_001, "<= 2.5 MB"),
        ("{min: 10, max: 20}", 15, 21, "between 10 and 20"),
        ("{value: 100, tolerance: 5}", 105, 106, "100 +- 5"),
    ],
)
def test_sizes_and_bounds_mean_what_they_say(written: str, inside: int, outside: int, said: str) -> None:
    (case,) = _cases(f"  - name: c\n    expect:\n      sheet: {{size: {written}}}\n")
    bound = case.expect[0].get("size").value
    assert bound.holds(inside)
    assert not bound.holds(outside)
    assert bound.text == said


def test_a_plain_duration_allows_a_tenth_of_a_second_either_side() -> None:
    (case,) = _cases("  - name: c\n    expect:\n      sheet: {duration: 1.5}\n")
    bound = case.expect[0].get("duration").value
    assert bound.holds(1.41)
    assert bound.holds(1.59)
    assert not bound.holds(1.65)
    assert bound.text == "1.5 s +- 0.1 s"


def test_expectations_remember_their_lines() -> None:
    (case,) = _cases("  - name: c\n    expect:\n      web:\n        files: 2\n        format: WEBP\n")
    web = case.expect[0]
    assert (web.get("files").location.line, web.get("format").location.line) == (20, 21)
    assert web.get("format").value == ("webp",)  # formats are compared as the service names them


def test_the_repository_root_is_the_nearest_git_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    nested = tmp_path / "team" / "pipelines"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    assert repository_root(nested / "recipe.yaml") == tmp_path.resolve()
    assert repository_root(nested / "recipe.yaml", explicit=nested) == nested.resolve()


def test_without_git_the_root_is_the_current_folder_holding_the_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside_git = not any((parent / ".git").exists() for parent in tmp_path.resolve().parents)
    assert outside_git, "the temporary folder must not lie inside a git checkout for this test"
    (tmp_path / "pipelines").mkdir()
    monkeypatch.chdir(tmp_path)
    assert repository_root("pipelines/recipe.yaml") == tmp_path.resolve()


def test_fixtures_outside_the_root_are_refused_links_included(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "photo.jpg").write_bytes(b"x")
    (tmp_path / "key").write_text("secret")
    (root / "innocent.jpg").symlink_to(tmp_path / "key")
    assert resolve_fixture("photo.jpg", root.resolve()) == (root / "photo.jpg").resolve()
    for value in (
        "../key",
        str(tmp_path / "key"),
        "innocent.jpg",
        "~/" + os.path.relpath(tmp_path / "key", Path.home()),
    ):
        with pytest.raises(FixtureRefused, match="outside the repository"):
            resolve_fixture(value, root.resolve())
    with pytest.raises(FixtureRefused, match="is not a file"):
        resolve_fixture("missing.jpg", root.resolve())


def test_a_case_job_exports_each_expected_task_that_has_no_export_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "photo.jpg").write_bytes(b"x")
    document = parse_document(
        (
            RECIPE + "  - name: c\n    expect:\n      web: {files: 2}\n      publish: {files: 3}\n"
            "      store: {files: 1}\n      web-320: {width: 320}\n"
        ).encode(),
        str(tmp_path / "recipe.yaml"),
    )
    (case,), _ = read_cases(document)
    rendered = render_case(document, case, {}, placeholders=True)
    assert rendered.pipeline is not None
    plan = plan_case(case, rendered.pipeline, tmp_path, tmp_path / "out")
    tasks = plan.pipeline.tasks
    assert plan.sources == {
        "web": "mcv-test-web",
        "publish": "publish",
        "store": "mcv-test-store",
        "web-320": "mcv-test-web-320",
    }
    assert tasks["mcv-test-web"].body["input"] == ["web-320", "web-640"]
    assert tasks["mcv-test-store"].body["input"] == ["sheet"]  # an export stores its inputs' files
    assert tasks["publish"].download_to == f"{tmp_path / 'out' / 'publish'}/"  # never the recipe's own
    assert tasks["original"].upload_from == str((tmp_path / "photo.jpg").resolve())
    assert plan.members["web"] == ("web-320", "web-640")


def test_golden_files_live_beside_the_recipe_by_case_and_task() -> None:
    (case,) = _cases("  - name: Two renditions, one sheet!\n    expect:\n      web: {golden: true}\n")
    assert golden_dir("pipelines/x.yaml", case, "web", True) == Path(
        "pipelines/x.golden/two-renditions-one-sheet/web"
    )
    assert golden_dir("pipelines/x.yaml", case, "web", "golden/web") == Path("pipelines/golden/web")
