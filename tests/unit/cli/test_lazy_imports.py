"""Each command imports only what it uses (issue 15), checked in a fresh interpreter's ``sys.modules``.

Start-up time is measured by bench/cli_start.py; these tests pin the cause of a slow start instead:
a module that a command has no use for showing up in the process.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcv_pipelines.cli.main import COMMANDS, Command, build_parser

ROOT = Path(__file__).resolve().parents[3]
PIPELINE = ROOT / "pipelines" / "product-images.yaml"

# Runs `mcv ARGS...` in-process and writes the exit code and every imported module's name as JSON.
_PROBE = """
import json, sys
from mcv_pipelines.cli.main import main
try:
    code = main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
with open(sys.argv[1], "w") as out:
    # a None entry is an import blocked on purpose (httpx._main), not a module loaded
    json.dump({"code": code, "modules": sorted(k for k, v in sys.modules.items() if v is not None)}, out)
"""

SERVICE_SIDE = ("httpx", "starlette", "uvicorn", "rich", "mcv_pipelines.service", "mcv_pipelines.run")
COMMAND_MODULES = {row.module for row in COMMANDS}


def _imported(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    out = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", _PROBE, str(out), *args],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
    )
    result = json.loads(out.read_text())
    return int(result["code"] or 0), set(result["modules"])


def _loaded(modules: set[str], *packages: str) -> list[str]:
    """Which of ``packages`` (or a module inside one) were imported."""
    return [p for p in packages if any(m == p or m.startswith(p + ".") for m in modules)]


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_no_command(tmp_path: Path, flag: str) -> None:
    code, modules = _imported(tmp_path, flag)
    assert code == 0
    assert not modules & COMMAND_MODULES
    heavy = ("yaml", "jinja2", "jsonschema", "networkx", "mcv_pipelines.diagnostics", *SERVICE_SIDE)
    assert _loaded(modules, *heavy) == []


def test_validate_imports_no_client_service_or_console(tmp_path: Path) -> None:
    code, modules = _imported(tmp_path, "validate", str(PIPELINE))
    assert code == 0
    assert _loaded(modules, *SERVICE_SIDE, "mcv_pipelines.api", "mcv_pipelines.batch", "networkx") == []
    assert modules & COMMAND_MODULES == {"mcv_pipelines.cli.validate"}


def test_api_commands_start_no_local_service_until_one_is_needed(tmp_path: Path) -> None:
    """`mcv jobs` against a configured service needs the client only, not starlette or the runner."""
    code, modules = _imported(tmp_path, "jobs", "--help")
    assert code == 0
    assert "httpx" in modules
    assert _loaded(modules, "starlette", "uvicorn", "mcv_pipelines.service", "mcv_pipelines.run") == []


@pytest.mark.parametrize("command", ["run", "batch"])
def test_run_and_batch_load_the_web_server_only_to_embed_it(tmp_path: Path, command: str) -> None:
    """With MCV_BASE_URL set, `mcv batch` talks to that service: starlette and the engines are dead
    weight at its start (they were ~1.5 s of a 400-row batch's run as a subprocess)."""
    code, modules = _imported(tmp_path, command, "--help")
    assert code == 0
    assert _loaded(modules, "starlette", "uvicorn", "mcv_pipelines.service.server") == []


def test_mcv_batch_leaves_out_httpxs_own_command_line(tmp_path: Path) -> None:
    """`import httpx` would bring click, rich's progress and pygments for httpx's CLI (~40 ms)."""
    code, modules = _imported(tmp_path, "batch", "--help")
    assert code == 0
    assert "httpx" in modules
    assert _loaded(modules, "click", "pygments", "rich.syntax") == []


@pytest.mark.parametrize("command", ["run", "batch"])
def test_run_and_batch_import_rich_only_for_the_live_view(tmp_path: Path, command: str) -> None:
    """Progress piped to a log, plain or off needs no rich (about 15 ms of every start)."""
    code, modules = _imported(tmp_path, command, "--help")
    assert code == 0
    assert _loaded(modules, "rich") == []


@pytest.mark.parametrize("row", COMMANDS, ids=[row.name for row in COMMANDS])
def test_a_command_imports_no_other_command(tmp_path: Path, row: Command) -> None:
    name = row.name
    code, modules = _imported(tmp_path, name, "--help")
    assert code == 0
    others = (modules & COMMAND_MODULES) - {row.module}
    # `mcv batch` shares the run command's options on purpose (a batch row is one run).
    assert others <= ({"mcv_pipelines.cli.run"} if name == "batch" else set())


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:  # argparse keeps its subcommands here and nowhere public
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]  # type: ignore[no-any-return]  # argparse types its choices loosely
    raise AssertionError("mcv has no subcommands")


@pytest.mark.parametrize("row", COMMANDS, ids=[row.name for row in COMMANDS])
def test_the_table_names_what_each_module_registers(row: Command) -> None:
    """`mcv NAME` gets the module's own parser (not the placeholder), listed with the table's help."""
    registered = build_parser(row.name)
    placeholder = _subparser(build_parser(None), row.name)
    assert _subparser(registered, row.name).format_usage() != placeholder.format_usage()
    assert row.help in " ".join(registered.format_help().split())


def test_python_dash_m_runs_the_cli() -> None:
    version = subprocess.run(
        [sys.executable, "-m", "mcv_pipelines", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert version.returncode == 0
    assert version.stdout.strip().startswith("mcv ")
    checked = subprocess.run(
        [sys.executable, "-m", "mcv_pipelines", "validate", str(PIPELINE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=ROOT,
    )
    assert checked.returncode == 0, checked.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "mcv_pipelines", "no-such-command"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "invalid choice" in bad.stderr
