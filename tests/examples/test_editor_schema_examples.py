"""The editor's schema agrees with `mcv validate`: check-jsonschema, run with schemas/pipeline.schema.json
(the file the yaml-language-server modeline names), flags the option errors `mcv validate` flags in the
negative examples, on the same line, flags nothing on a line `mcv validate` finds sound, and passes
every pipeline in pipelines/ and every positive example.

A case with its own catalog (``"catalog"`` in expected.json) is checked against a schema made for that
catalog with `mcv schema --catalog`, as a user of another service would make it.

Two kinds of finding are out of a file schema's reach, and are left out here on purpose:
- a value that is a template on the line (``"{{ params.fmt }}"``): only rendering gives its value;
- YAML 1.1 booleans (``name: no``): mcv reads YAML 1.1 and says so; check-jsonschema and
  yaml-language-server read YAML 1.2, where ``no`` is the string "no".
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from engine_needs import unavailable
from mcv_pipelines.catalog.snapshot import load_catalog, load_default_catalog
from mcv_pipelines.cli.main import main
from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.pipeline import check_pipeline, load_document
from mcv_pipelines.pipeline.discover import find_pipelines

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCHEMA = ROOT / "schemas" / "pipeline.schema.json"
# What `mcv validate` says about options and the file's shape: the findings the schema must share.
OPTION_RULES = frozenset({"file-schema", "op-unknown-option", "op-option-type", "op-option-value"})
_TOKEN = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\[\"((?:[^\"\\]|\\.)*)\"\]|\['((?:[^'\\]|\\.)*)'\]")
_UNEXPECTED = re.compile(r"\('(.+)' (?:was|were) unexpected\)")


def _check_jsonschema(schema: Path, files: list[Path]) -> dict[str, Any]:
    if importlib.util.find_spec("check_jsonschema") is None:
        unavailable("needs check-jsonschema (a dev dependency: pip install -e '.[dev]')")
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "-o", "json", "--schemafile", str(schema)]
        + [str(file) for file in files],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _path(text: str) -> tuple[str | int, ...]:
    """check-jsonschema's ``$.tasks.web.fit`` (or ``$.tasks["a b"][0]``) as a key path."""
    assert text.startswith("$"), text
    keys: list[str | int] = []
    for match in _TOKEN.finditer(text[1:]):
        name, index, double, single = match.groups()
        keys.append(int(index) if index is not None else (name or double or single))
    return tuple(keys)


def _flagged_lines(report: dict[str, Any], file: Path) -> set[int]:
    """The lines of ``file`` check-jsonschema flags (an unexpected key: the key's own line)."""
    document = load_document(file)
    lines: set[int] = set()
    for error in report["errors"]:
        if Path(error["filename"]).resolve() != file.resolve():
            continue
        path = _path(error["path"])
        unexpected = _UNEXPECTED.search(error["message"])
        if unexpected:
            for key in re.split(r"', '", unexpected.group(1)):
                lines.add(document.locate_key((*path, key)).line)
        else:
            lines.add(document.locate(path).line)
    return lines


def _rejected(report: dict[str, Any], file: Path) -> bool:
    errors = [*report["errors"], *report.get("parse_errors", [])]
    return any(Path(e["filename"]).resolve() == file.resolve() for e in errors)


def _beyond_a_file_schema(diagnostic: Diagnostic, source: list[str]) -> bool:
    line = source[diagnostic.location.line - 1] if diagnostic.location else ""
    return "{{" in line or "(unquoted)" in diagnostic.message


def _negative_cases() -> dict[str, list[Path]]:
    """Negative cases by the catalog they are checked with ("default" or a fixture path)."""
    groups: dict[str, list[Path]] = defaultdict(list)
    for case in sorted((HERE / "negative").iterdir()):
        if (case / "pipeline.yaml").exists():
            expected = json.loads((case / "expected.json").read_text())
            groups[expected.get("catalog", "default")].append(case)
    return groups


def _schema_for(catalog: str, tmp_path: Path) -> Path:
    if catalog == "default":
        return SCHEMA
    out = tmp_path / (Path(catalog).stem + ".schema.json")
    assert main(["schema", "--catalog", str(HERE / catalog), "-o", str(out)]) == 0
    return out


def test_check_jsonschema_flags_the_option_errors_mcv_validate_flags(tmp_path: Path) -> None:
    compared: set[str] = set()
    beyond: set[tuple[str, int]] = set()
    for catalog_name, cases in _negative_cases().items():
        catalog = load_default_catalog() if catalog_name == "default" else load_catalog(HERE / catalog_name)
        report = _check_jsonschema(_schema_for(catalog_name, tmp_path), [c / "pipeline.yaml" for c in cases])
        for case in cases:
            file = case / "pipeline.yaml"
            params = json.loads((case / "expected.json").read_text()).get("params", {})
            # what `mcv validate -p ... FILE` finds: the shipped operation schemas and this catalog
            found = check_pipeline(file, params, catalog=catalog).diagnostics
            errors = [d for d in found if d.is_error]
            if any(d.rule.startswith("yaml-") for d in errors):  # no document to compare lines in
                assert _rejected(report, file), f"{case.name}: check-jsonschema passes what mcv cannot read"
                continue
            source = file.read_text(encoding="utf-8").splitlines()
            shared = [d for d in errors if d.rule in OPTION_RULES and d.location]
            wanted = {d.location.line for d in shared if d.location and not _beyond_a_file_schema(d, source)}
            beyond |= {(case.name, d.location.line) for d in shared if d.location} - {
                (case.name, line) for line in wanted
            }
            flagged = _flagged_lines(report, file)
            assert wanted <= flagged, f"{case.name}: mcv validate flags lines {sorted(wanted - flagged)}"
            if wanted:
                compared.add(case.name)
            # and nothing where mcv finds no error, unless mcv could not know a task's input format
            # (it then leaves that task's options unchecked and says so with a warning)
            blind = any(d.rule == "op-format-unknown" for d in found)
            sound = flagged - {d.location.line for d in errors if d.location}
            assert blind or not sound, f"{case.name}: the schema flags lines {sorted(sound)}"
    # the cases with option findings within a file schema's reach: a case that lost them shows up here
    assert compared >= {
        "catalog-deprecated",
        "catalog-format-inferred",
        "catalog-option-enum",
        "catalog-unknown-option",
        "merge-one-input",
        "unknown-top-level-key",
    }, compared
    # and the findings left to mcv are the two kinds the module docstring names, no others
    assert beyond == {("param-injection", 11), ("unquoted-no", 2), ("unquoted-no", 10)}, beyond


def test_check_jsonschema_passes_every_example_pipeline() -> None:
    files, _ = find_pipelines([str(ROOT / "pipelines")])
    positives = sorted((HERE / "positive").glob("*/pipeline.yaml"))
    assert files
    assert positives
    report = _check_jsonschema(SCHEMA, [*map(Path, files), *positives])
    assert report["status"] == "ok", json.dumps(report["errors"] + report.get("parse_errors", []), indent=2)
