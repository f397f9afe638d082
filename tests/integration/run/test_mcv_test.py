"""`mcv test` on the real embedded service: what a user sees when a case passes, fails, is skipped or
cannot run, and what it writes (golden files, reports). Each test works in its own folder (conftest's
``isolated``), which is the repository the fixtures must live in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image
from run_helpers import REMOTE_KEY

from mcv_pipelines.cli.main import main
from mcv_pipelines.service.engines import available_engines
from mcv_pipelines.service.server import LocalService

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"

RECIPE = """\
version: 1
params:
  image: {type: string, example: logo.png}
  width: {type: integer, default: 64}
tasks:
  original: {operation: import/upload, upload_from: "{{ params.image }}"}
  small: {operation: convert, input: original, output_format: webp, width: "{{ params.width }}"}
  sheet: {operation: convert, input: original, output_format: pdf}
  out: {operation: export/url, input: [small, sheet]}
tests:
"""

PASSING = """\
  - name: a small webp and a sheet
    expect:
      small:
        files: 1
        format: webp
        width: 64
      sheet: {format: pdf, pages: 1}
      out: {files: 2, format: [webp, pdf], names: [logo.webp, logo.pdf]}
"""


def _write(folder: Path, cases: str, recipe: str = RECIPE) -> Path:
    shutil.copy(ASSETS / "logo.png", folder / "logo.png")
    path = folder / "recipe.yaml"
    path.write_text(recipe + cases)
    return path


def _mcv_test(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["test", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_passing_cases_print_a_line_each_and_exit_0(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(isolated, PASSING)
    code, out, err = _mcv_test(capsys)
    assert code == 0, out + err
    assert "PASS    recipe.yaml::a small webp and a sheet" in out
    assert out.rstrip().splitlines()[-1].startswith("1 passed in ")
    assert "embedded local service" in err


def test_a_changed_format_fails_at_the_expectation_line_with_expected_and_found(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(isolated, PASSING, RECIPE.replace("output_format: webp", "output_format: png"))
    code, out, _ = _mcv_test(capsys, path.name)
    assert code == 1
    assert "FAIL    recipe.yaml::a small webp and a sheet" in out
    # line 15 is `format: webp` under `small:`; line 18 the export's list of formats
    assert "recipe.yaml:15:17: small: format: expected webp, found png (logo.png)" in out
    assert "recipe.yaml:18:31: out: format: expected webp or pdf, found png (logo.png)" in out
    assert "out: names: expected logo.pdf, logo.webp, found logo.pdf, logo.png" in out


def test_github_format_annotates_the_expectation_line(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(isolated, PASSING.replace("width: 64", "width: 65"))
    code, out, _ = _mcv_test(capsys, "--format", "github")
    assert code == 1
    assert (
        "::error file=recipe.yaml,line=16,col=16,title=mcv test%3A a small webp and a sheet::"
        "small: width: expected 65, found 64 (logo.webp)"
    ) in out


def test_expected_failures_pass_with_their_code_and_say_the_real_code_otherwise(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated / "broken.png").write_text("not a picture")
    cases = """\
  - name: a broken picture is refused
    params: {image: broken.png}
    expect:
      small: {fails: INVALID_INPUT_FILE}
      sheet: {fails: INVALID_INPUT_FILE}
  - name: the job fails
    params: {image: broken.png}
    fails: INVALID_INPUT_FILE
  - name: wrong code
    params: {image: broken.png}
    fails: TIMEOUT
  - name: a good picture does not fail
    expect:
      small: {fails: INVALID_INPUT_FILE}
"""
    _write(isolated, cases)
    code, out, _ = _mcv_test(capsys, "-j", "2")
    assert code == 1
    assert "PASS    recipe.yaml::a broken picture is refused" in out
    assert "PASS    recipe.yaml::the job fails" in out
    assert (
        "recipe.yaml:21:12: job: fails: expected a failure with TIMEOUT, found task small failed with "
        "INVALID_INPUT_FILE: broken.png is not a png file"
    ) in out
    assert (
        "recipe.yaml:24:22: small: fails: expected a failure with INVALID_INPUT_FILE, found it finished"
        in out
    )
    assert out.rstrip().splitlines()[-1].startswith("2 passed, 2 failed in ")


def test_an_unexpected_task_failure_fails_the_case_with_the_service_message(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated / "broken.png").write_text("not a picture")
    _write(isolated, PASSING.replace("expect:", "params: {image: broken.png}\n    expect:", 1))
    code, out, _ = _mcv_test(capsys)
    assert code == 1
    assert "small: status: expected finished, found task small failed with INVALID_INPUT_FILE" in out
    assert "files: expected" not in out  # a failed task's files are not counted as missing too


def test_golden_files_are_written_then_held_to(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(isolated, PASSING.replace("width: 64\n", "width: 64\n        golden: true\n"))
    code, out, _ = _mcv_test(capsys)
    assert code == 1
    assert "small: golden: expected golden files in" in out
    assert "run `mcv test --update-golden`" in out

    code, out, _ = _mcv_test(capsys, "--update-golden")
    assert code == 0, out
    golden = isolated / "recipe.golden" / "a-small-webp-and-a-sheet" / "small" / "logo.webp"
    assert "wrote recipe.golden/a-small-webp-and-a-sheet/small/logo.webp" in out
    with Image.open(golden) as picture:
        assert (picture.format, picture.width) == ("WEBP", 64)

    code, out, _ = _mcv_test(capsys)
    assert code == 0, out  # the same conversion again is alike, whatever the encoder's bytes

    with Image.open(ASSETS / "photo.jpg") as other:
        other.convert("RGB").resize((64, 64)).save(golden, "WEBP")
    code, out, _ = _mcv_test(capsys)
    assert code == 1
    assert "small: golden: expected like" in out
    assert "< 0.95" in out

    (golden.parent / "gone.webp").write_bytes(golden.read_bytes())
    code, out, _ = _mcv_test(capsys, "--update-golden")
    assert code == 0
    assert not (golden.parent / "gone.webp").exists()  # a file the task no longer makes is removed
    assert "removed recipe.golden/a-small-webp-and-a-sheet/small/gone.webp" in out


def test_a_fixture_outside_the_repository_is_refused_before_any_job(
    isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "elsewhere.png"
    shutil.copy(ASSETS / "logo.png", secret)
    (isolated / "inside.png").symlink_to(secret)  # a link inside that leads out counts as outside
    cases = PASSING.replace("expect:", f"params: {{image: {secret}}}\n    expect:", 1)
    cases += (
        "  - name: through a link\n    params: {image: inside.png}\n    expect:\n      small: {files: 1}\n"
    )
    _write(isolated, cases)
    code, out, err = _mcv_test(capsys)
    assert code == 2
    assert (
        f"recipe.yaml:12:21: error[test-fixture]: case 'a small webp and a sheet': task original: "
        f"upload_from {secret} is outside the repository" in err
    )
    assert (
        "recipe.yaml:21:21: error[test-fixture]: case 'through a link': task original: "
        "upload_from inside.png is outside" in err
    )
    assert out == ""
    assert not (tmp_path / "data").exists()  # no service was started, so nothing was uploaded


def test_a_case_needing_an_unset_variable_is_skipped_with_its_name(
    isolated: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = PASSING + (
        "  - name: from the environment\n"
        "    requires_env: [MCV_TEST_TOKEN]\n"
        "    params: {width: {env: MCV_TEST_WIDTH}}\n"
        "    expect:\n"
        "      small: {width: 48}\n"
    )
    _write(isolated, cases)
    monkeypatch.delenv("MCV_TEST_TOKEN", raising=False)
    monkeypatch.delenv("MCV_TEST_WIDTH", raising=False)
    code, out, _ = _mcv_test(capsys)
    assert code == 0
    assert (
        "SKIP    recipe.yaml::from the environment: "
        "needs the environment variables MCV_TEST_TOKEN, MCV_TEST_WIDTH" in out
    )
    code, out, _ = _mcv_test(capsys, "--fail-on-skip")
    assert code == 1

    monkeypatch.setenv("MCV_TEST_TOKEN", "x")
    monkeypatch.setenv("MCV_TEST_WIDTH", "48")  # coerced to the declared integer, as -p width=48 is
    code, out, _ = _mcv_test(capsys, "-k", "environment")
    assert code == 0, out
    assert "PASS    recipe.yaml::from the environment" in out
    assert "a small webp" not in out


def test_reports_list_every_case_as_batch_reports_do(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = PASSING + PASSING.replace("a small webp and a sheet", "too wide").replace(
        "width: 64", "width: 99"
    )
    _write(isolated, cases)
    code, _, _ = _mcv_test(capsys, "--report", "out/report.xml")
    assert code == 1
    suite = ET.parse(isolated / "out" / "report.xml").getroot()  # noqa: S314  # our own report
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failure = suite.find("testcase[@name='too wide']/failure")
    assert failure is not None
    assert failure.get("message") == "small: width: expected 99, found 64 (logo.webp)"

    code, _, _ = _mcv_test(capsys, "--report", "report.jsonl")
    records = [json.loads(line) for line in (isolated / "report.jsonl").read_text().splitlines()]
    assert [(r["case"], r["status"]) for r in records] == [
        ("a small webp and a sheet", "passed"),
        ("too wide", "failed"),
    ]
    assert records[1]["failures"][0] | {"location": ""} == {
        "location": "",
        "task": "small",
        "key": "width",
        "expected": "99",
        "actual": "64",
        "file": "logo.webp",
    }
    assert records[1]["failures"][0]["location"] == "recipe.yaml:24:16"


def test_an_invalid_recipe_exits_2_and_runs_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(isolated, PASSING.replace("small:\n        files", "smal:\n        files"))
    code, out, err = _mcv_test(capsys)
    assert code == 2
    assert (
        "error[test-unknown-task]: case 'a small webp and a sheet': no task or for_each group named 'smal'"
        in err
    )
    assert "did you mean 'small'?" in err
    assert out == ""


def test_no_cases_anywhere_is_said_and_exits_2(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(isolated, "", RECIPE.replace("tests:\n", ""))
    code, _, err = _mcv_test(capsys)
    assert code == 2
    assert "no test cases found" in err


def test_on_a_configured_service_a_case_whose_engine_is_missing_is_skipped_with_the_pair(
    isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    only_pillow = [engine for engine in available_engines() if engine.name == "pillow"]
    with LocalService(data_dir=tmp_path / "remote", api_key=REMOTE_KEY, engines=only_pillow) as service:
        monkeypatch.setenv("MCV_BASE_URL", service.base_url)
        monkeypatch.setenv("MCV_API_KEY", REMOTE_KEY)
        recipe = RECIPE.replace("output_format: pdf", "output_format: svg")  # png -> svg needs potrace
        _write(isolated, "  - name: traced\n    expect:\n      sheet: {format: svg}\n" + PASSING, recipe)
        code, out, err = _mcv_test(capsys, "--no-catalog")
    assert "embedded" not in err
    lines = {line.split("::")[1].split(":")[0]: line for line in out.splitlines() if "::" in line}
    assert lines["traced"].startswith("SKIP    recipe.yaml::traced: the service cannot run it: recipe.yaml:")
    assert "svg" in lines["traced"]
    assert code == 0, out
    assert os.environ["MCV_API_KEY"] not in out + err


def test_what_a_library_of_an_engine_logs_stays_off_the_terminal(isolated: Path) -> None:
    # fontTools warns about the sample font's timestamps; those lines came out between mcv's own. A
    # process of its own: in this one pytest's log capture would take them.
    shutil.copytree(ASSETS.parent, isolated / "pipelines")
    done = subprocess.run(
        [sys.executable, "-m", "mcv_pipelines", "test", "pipelines/web-fonts.yaml"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS    pipelines/web-fonts.yaml::" in done.stdout
    assert [line for line in done.stderr.splitlines() if not line.startswith("mcv: ")] == []


def test_a_secret_the_environment_lacks_skips_the_case_naming_it(
    isolated: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # as in a pull request from a fork, where the repository's secrets are not given
    recipe = RECIPE.replace(
        'width: "{{ params.width }}"}',
        'width: "{{ params.width }}", filename: "{{ secret(\'MCV_TEST_STAMP\') }}.webp"}',
    )
    _write(isolated, "  - name: stamped\n    expect:\n      small: {names: [s3cr3t-stamp.webp]}\n", recipe)
    monkeypatch.delenv("MCV_TEST_STAMP", raising=False)
    code, out, _ = _mcv_test(capsys)
    assert code == 0
    assert "SKIP    recipe.yaml::stamped: needs the environment variable MCV_TEST_STAMP" in out
    monkeypatch.setenv("MCV_TEST_STAMP", "s3cr3t-stamp")
    code, out, err = _mcv_test(capsys)
    assert code == 0, out + err
    assert "PASS    recipe.yaml::stamped" in out
    assert "s3cr3t-stamp" not in out + err  # a secret's value is shown nowhere, not even as a name
