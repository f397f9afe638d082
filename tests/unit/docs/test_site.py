"""The documentation site builds strictly, and its generated references cover what the code has."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[3]


def _reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "scripts" / "docs_reference.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    # --strict turns a broken link, a page missing from the nav or a failing hook into an error.
    mkdocs = Path(sys.executable).parent / "mkdocs"
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, check=False,
    )
    assert done.returncode == 0, done.stderr
    for page in ("cli", "operations", "http-api", "pipeline-format", "metrics", "conversions"):
        assert (tmp_path / "site" / "reference" / page / "index.html").stat().st_size > 2000, page
    # The tutorial's graph is drawn from the pipeline itself, not pasted.
    first = (tmp_path / "site" / "tutorial" / "first-recipe" / "index.html").read_text(encoding="utf-8")
    assert "flowchart LR" in first
    assert "web-320" in first


def test_the_cli_page_lists_every_command_and_flag() -> None:
    reference = _reference()
    page = reference.cli_page()
    parser = reference.full_parser()
    missing = []
    for path, _help, sub in reference.walk(parser):
        heading = "mcv " + " ".join(path)
        if f"# {heading}\n" not in page:
            missing.append(heading)
        for flag in reference.parser_flags(sub):
            if flag not in ("-h", "--help") and f"`{flag}`" not in page:
                missing.append(f"{heading} {flag}")
    assert missing == []
    from mcv_pipelines.cli.main import COMMANDS

    assert {row.name for row in COMMANDS} <= {path[0] for path, _h, _s in reference.walk(parser)}


def test_the_http_page_lists_every_path_of_the_contract() -> None:
    import json

    page = _reference().http_api_page()
    document = json.loads((ROOT / "schemas" / "openapi.json").read_text(encoding="utf-8"))
    for path, methods in document["paths"].items():
        for method in methods:
            if method in {"get", "post", "put", "patch", "delete"}:
                assert f"## {method.upper()} {path}\n" in page


def test_the_readme_is_a_landing_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 120
    assert "docs/tutorial/first-recipe.md" in "\n".join(lines)
