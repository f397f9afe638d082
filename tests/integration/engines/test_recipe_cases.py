"""The recipes of pipelines/ pass their own test cases with `mcv test pipelines/`, as a user of this
repository runs them, on the embedded service; and every recipe has a case that counts the files of
every output and says their format."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from engine_needs import ENGINES_REQUIRED, unavailable
from mcv_pipelines.cli.main import main
from mcv_pipelines.pipeline.casecheck import render_case
from mcv_pipelines.pipeline.cases import read_cases
from mcv_pipelines.pipeline.document import load_document

REPO = Path(__file__).resolve().parents[3]
RECIPES = sorted((REPO / "pipelines").glob("*.yaml"))
# Their cases need a server of the caller's storage: tests/integration/storage/test_recipe_cases_on_storage.py
# runs them on real ones; here they must be skipped, naming what they need.
STORAGE = {"s3-roundtrip", "azure-roundtrip", "gcs-roundtrip", "swift-thumbnails", "sftp-thumbnails"}


def _covered(recipe: Path) -> set[str]:
    """The export tasks some case counts the files of and says the format of (on the export itself,
    or on every task it exports)."""
    document = load_document(recipe)
    cases, problems = read_cases(document)
    assert problems == []
    covered: set[str] = set()
    for case in cases:
        pipeline = render_case(document, case, {}, placeholders=True).pipeline
        assert pipeline is not None, case.name
        said = {e.task: {item.key for item in e.items} for e in case.expect}
        for task in pipeline.tasks.values():
            if not task.operation.startswith("export/"):
                continue
            own = said.get(task.name, set())
            sources = {pipeline.tasks[name].group for name in task.input_names}
            typed = "format" in own or all(
                "format" in said.get(s, set())
                or all("format" in said.get(n, set()) for n in pipeline.tasks if pipeline.tasks[n].group == s)
                for s in sources
            )
            if "files" in own and typed:
                covered.add(task.name)
    return covered


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.stem)
def test_every_output_of_a_recipe_is_counted_and_typed_by_a_case(recipe: Path) -> None:
    document = load_document(recipe)
    exports = {
        name for name, task in document.data["tasks"].items() if task["operation"].startswith("export/")
    }
    assert exports, recipe
    assert _covered(recipe) >= exports


@pytest.fixture
def page_url() -> Iterator[str]:
    """pipelines/assets/ over http on loopback: what website-capture's case captures."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(Quiet, directory=str(REPO / "pipelines" / "assets"))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/capture.html"
    server.shutdown()
    server.server_close()


@pytest.mark.engines
def test_the_recipes_pass_their_cases_with_mcv_test(
    page_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("MCV_API_KEY", "MCV_BASE_URL", "MCV_SYNC_URL", "MCV_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    for variable in (
        "MCV_TEST_S3_ENDPOINT",
        "AWS_ACCESS_KEY_ID",
        "AZURE_STORAGE_KEY",
        "OS_PASSWORD",
        "SFTP_PASSWORD",
    ):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("MCV_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("MCV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MCV_TEST_PAGE_URL", page_url)
    monkeypatch.chdir(REPO)
    report = tmp_path / "report.jsonl"
    code = main(["test", "pipelines/", "--report", str(report)])
    out, err = capsys.readouterr()
    records = [json.loads(line) for line in report.read_text().splitlines()]
    assert {Path(r["file"]).stem for r in records} == {p.stem for p in RECIPES}
    for record in records:
        stem = Path(record["file"]).stem
        if stem in STORAGE:
            assert record["status"] == "skipped", record
            assert record["reason"].startswith("needs the environment variable"), record
    failed = [r for r in records if r["status"] not in ("passed", "skipped")]
    assert failed == [], out + err
    assert code == 0, out + err
    missing = [r for r in records if r["status"] == "skipped" and Path(r["file"]).stem not in STORAGE]
    if missing:
        said = "; ".join(f"{r['case']}: {r['reason']}" for r in missing)
        message = f"recipes whose engine is missing here were skipped by mcv test: {said}"
        if ENGINES_REQUIRED:
            pytest.fail(message)
        unavailable(message)
