"""deploy/Dockerfile and its entry point, checked offline (issue 38): a wheel built in one stage and
installed in a lean runtime stage with only the runtime engines, a pinned base, a health check, a
non-root user; `IMAGE bash` gives a shell while `IMAGE` and `IMAGE serve ...` run mcv."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from mcv_pipelines.cli.main import build_parser

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
DOCKERFILE = (DEPLOY / "Dockerfile").read_text()
ENTRYPOINT = DEPLOY / "entrypoint.sh"


def stages() -> list[str]:
    """The Dockerfile's stages, each from its FROM line on."""
    return re.split(r"^(?=FROM )", DOCKERFILE, flags=re.MULTILINE)[1:]


def test_the_runtime_stage_installs_a_wheel_and_only_the_runtime_engines() -> None:
    build, runtime = stages()
    assert re.match(r"FROM \$\{BASE\} AS build\n", build)
    assert "pip wheel" in build
    assert "--wheel-dir /wheels ." in build
    assert "install-engines.sh --runtime" in runtime
    # with every kind of the caller's storage (the [storage] extra, whose wheels the build stage made)
    assert re.search(
        r"pip install .*--no-index\s.*--find-links /wheels 'mcv-pipelines\[storage\]'", runtime, re.DOTALL
    )
    assert "['optional-dependencies']['storage']" in build
    assert "COPY src" not in runtime
    assert "COPY schemas" not in runtime
    assert "tini" in runtime


def test_the_base_is_a_dated_debian_tag() -> None:
    (base,) = re.findall(r"^ARG BASE=(\S+)$", DOCKERFILE, re.MULTILINE)
    assert re.fullmatch(r"debian:bookworm-20\d{6}", base), base
    assert all(line.startswith("FROM ${BASE}") for line in re.findall(r"^FROM .*$", DOCKERFILE, re.MULTILINE))


def test_the_image_runs_as_a_user_and_checks_its_health_with_python() -> None:
    users = re.findall(r"^USER (\S+)$", stages()[1], re.MULTILINE)
    assert users
    assert users[-1].split(":")[0] not in ("0", "root")
    (check,) = re.findall(r"^HEALTHCHECK .*?CMD (\[.*\])$", DOCKERFILE, re.MULTILINE | re.DOTALL)
    assert check.startswith('["python3", "-c"')
    assert "/healthz" in check


def test_every_file_the_dockerfile_copies_is_in_the_build_context() -> None:
    allowed = [line[1:].rstrip("/") for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
               if line.startswith("!")]  # fmt: skip
    sources = [words[1] for words in (line.split() for line in DOCKERFILE.splitlines())
               if words[:1] == ["COPY"] and not words[1].startswith("--")]  # fmt: skip
    assert sources
    for source in sources:
        assert source.rstrip("/") in allowed, f"COPY {source}: left out of the context by the dockerignore"


def entrypoint(tmp_path: Path, *argv: str) -> str:
    """What the entry point runs for ``argv``, with a stand-in mcv that says how it was called."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "mcv").write_text('#!/bin/sh\necho "mcv $*"\n')
    (bin_dir / "mcv").chmod(0o755)
    done = subprocess.run(["sh", str(ENTRYPOINT), *argv], capture_output=True, text=True, timeout=30,
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin"}, check=True)  # fmt: skip
    return done.stdout.strip()


def test_the_entry_point_runs_mcv_for_its_commands_and_any_other_program_as_asked(tmp_path: Path) -> None:
    assert entrypoint(tmp_path, "serve", "--port", "8080") == "mcv serve --port 8080"
    assert entrypoint(tmp_path, "--version") == "mcv --version"
    assert entrypoint(tmp_path, "jobs", "list") == "mcv jobs list"  # not the shell's builtin
    assert entrypoint(tmp_path, "sh", "-c", "echo a shell") == "a shell"
    assert entrypoint(tmp_path, "/bin/sh", "-c", "echo by its path") == "by its path"
    assert entrypoint(tmp_path) == "mcv"


def test_the_entry_point_knows_every_mcv_command() -> None:
    (listed,) = re.findall(r'^MCV_COMMANDS="([^"]*)"', ENTRYPOINT.read_text(), re.MULTILINE)
    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(listed.split()) == set(commands.choices)
