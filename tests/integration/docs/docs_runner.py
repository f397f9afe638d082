"""Running one shell example of the README or the site as the page says (imported by name by the two
test modules: pytest puts this folder on sys.path). See doc_blocks.py for how a page says what an
example needs.

Two modules run them, so that pytest-xdist (one file a worker) runs the three `install` examples,
which pip-install the project and take a minute each under load, beside the others rather than after.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from doc_blocks import ROOT, DocBlock, doc_blocks, documents

from engine_needs import require_engine, require_program
from mcv_pipelines.service.engines import ENGINE_FACTORIES

BLOCKS = [block for path in documents() for block in doc_blocks(path)]
API_KEY = "docs-example-key"
# The examples never run, and why: the suite itself, on the README and on the page about running it.
# Any other `not-run` fails test_only_the_suite_is_not_run.
NOT_RUN = {"README.md": "bash scripts/test.sh", "docs/how-to/run-the-tests.md": "bash scripts/test.sh"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _environment(home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("MCV_", "AWS_")) or key == "MCV_REQUIRE_ENGINES"
    }
    bin_dir = str(Path(sys.executable).parent)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(home),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        NO_COLOR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def _project(block: DocBlock, where: Path) -> Path:
    """The directory an example runs in: a copy of what a user's checkout has."""
    project = where / "project"
    if "install" in block.options:
        tracked = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split("\0")
        for name in filter(None, tracked):
            source = ROOT / name
            wanted = not name.startswith(("tests/", "bench/", "docs/"))
            if wanted and (source.is_symlink() or source.is_file()):
                target = project / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target, follow_symlinks=False)
    else:
        project.mkdir()
        shutil.copytree(ROOT / "pipelines", project / "pipelines")
        shutil.copytree(ROOT / "schemas", project / "schemas")
    return project


def _wait_healthy(url: str, process: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output, _ = process.communicate()
            pytest.fail(f"{what} exited {process.returncode} before answering {url}:\n{output}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"{what} did not answer {url} within 120 s")


def _stop(process: subprocess.Popen[str]) -> str:
    """Ctrl-C for the process group (a SIGKILL after a minute); what it printed."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
    try:
        output, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    return output or ""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], None]]:
    """Starts a `mcv serve` on request and points the example's environment at it."""
    processes: list[subprocess.Popen[str]] = []

    def start(env: dict[str, str]) -> None:
        port = _free_port()
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "mcv"),
                "serve",
                "--port",
                str(port),
                "--data-dir",
                str(tmp_path / "served"),
            ],
            env={**env, "MCV_SERVE_API_KEY": API_KEY},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        processes.append(process)
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(f"{base}/healthz", process, "mcv serve")
        env.update(MCV_BASE_URL=base, MCV_API_KEY=API_KEY)

    yield start
    for process in processes:
        _stop(process)


@pytest.fixture
def database(request: pytest.FixtureRequest) -> Callable[[], str]:
    """A fresh PostgreSQL database's URL, from the team tests' throwaway server (started on first use)."""

    def make() -> str:
        sys.path.insert(0, str(ROOT / "tests" / "integration" / "team"))
        from pg_server import PgServer, find_bin_dir

        if find_bin_dir() is None:
            request.getfixturevalue("require_program")("initdb", "pg_ctl")  # skips or fails with the reason
        root = Path(tempfile.mkdtemp(prefix="mcv-docs-pg-"))
        bin_dir = find_bin_dir()
        assert bin_dir is not None
        server = PgServer(bin_dir, root)
        server.start()

        def stop() -> None:
            server.stop()
            shutil.rmtree(root, ignore_errors=True)

        request.addfinalizer(stop)
        return server.url(server.new_database())

    return make


def _tracked_changes() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True
    ).stdout


@pytest.fixture(autouse=True)
def _repository_untouched() -> Iterator[None]:
    # An example runs on copies: one that writes into the checkout (the package's bundled files reach it
    # through the editable install) would change what the suite tests.
    before = _tracked_changes()
    yield
    assert _tracked_changes() == before, "an example changed files of the repository"


def run_example(
    block: DocBlock,
    tmp_path: Path,
    served: Callable[[dict[str, str]], None],
    database: Callable[[], str],
) -> None:
    """Run ``block`` in a copy of a user's checkout; fails with the page, the block and its output."""
    if block.options.get("engines") == "all":
        for factory in ENGINE_FACTORIES:
            require_engine(factory().name)
    for program in filter(None, block.options.get("needs", "").split(",")):
        require_program(program)
    env = _environment(tmp_path / "home")
    project = _project(block, tmp_path)
    if "service" in block.options:
        served(env)
    if "postgres" in block.options:
        env["DB"] = database()
    script = "\n".join([*block.setup, block.text])
    expected = int(block.options.get("exit", "0"))
    if "serve-port" in block.options:
        port = str(_free_port())
        process = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", script.replace(block.options["serve-port"], port)],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            _wait_healthy(f"http://127.0.0.1:{port}/healthz", process, block.where)
        finally:
            output = _stop(process)
        assert process.returncode in (0, 130, -signal.SIGINT), f"{block.where}\n{block.text}\n{output}"
        return
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == expected, (
        f"{block.where} exited {done.returncode}, the page shows {expected}:\n{block.text}\n"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    )
