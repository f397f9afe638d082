"""`mcv completion`: the scripts complete in a real shell (issue 26).

The bash tests type into an interactive bash on a pseudo-terminal, so readline, `complete -F` and the
generated script all take part, exactly as for a user who ran the README's one line. The function-level
tests drive the script's completion function with COMP_WORDS/COMP_CWORD set, for the cases that have
several answers (a TAB in a terminal shows them only on the second press).
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mcv_pipelines.cli.main import main
from mcv_pipelines.cli.setup.complete_params import declared_params

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def _env(tmp_path: Path) -> dict[str, str]:
    """Only this environment's mcv on PATH (beside bash's own directories); no user files read."""
    return {
        "PATH": f"{BIN}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HISTFILE": "/dev/null",
        "TERM": "dumb",
        "INPUTRC": "/dev/null",
        "PS1": "$ ",
        "LANG": "C.UTF-8",
    }


@pytest.fixture
def bash_script(tmp_path: Path, require_program: Callable[..., str]) -> tuple[str, Path]:
    bash = require_program("bash")
    script = tmp_path / "mcv.bash"
    completed = subprocess.run(
        [str(BIN / "mcv"), "completion", "bash"], capture_output=True, text=True, check=True, timeout=120
    )
    script.write_text(completed.stdout)
    return bash, script


def _typed_in_bash(bash: str, script: Path, keys: str, env: dict[str, str]) -> str:
    return _typed_in_shell([bash, "--norc", "--noprofile", "-i"], f"source {script}", keys, env)


def _typed_in_shell(command: list[str], setup: str, keys: str, env: dict[str, str]) -> str:
    """The command line an interactive shell holds after ``keys`` (with their TABs) are typed into it.

    After the keys, Ctrl-A and ``echo @@`` go in front of the line and Enter runs it, so the shell
    prints the completed line itself; the function waits for that output (a generous bound, not a
    timing).
    """
    pid, fd = pty.fork()
    if pid == 0:  # the child: an interactive shell with no rc file, set up by ``setup`` only
        os.execve(command[0], command, env)  # noqa: S606  # no shell in between
    try:
        os.write(fd, f"{setup}\n".encode())
        # One key at a time after the source finished: bash reads the TAB only once the line is there.
        os.write(fd, b"echo sourced-$((40+2))\n")
        _read_until(fd, re.compile(r"sourced-42"))
        os.write(fd, keys.encode())
        os.write(fd, b"\x01echo @@\n")
        return _read_until(fd, re.compile(r"^@@(.*?)\s*$", re.MULTILINE)).group(1)
    finally:
        os.write(fd, b"exit\n")
        os.close(fd)
        os.waitpid(pid, 0)


def _read_until(fd: int, pattern: re.Pattern[str], bound: float = 60.0) -> re.Match[str]:
    seen = ""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the terminal closed: bash exited
            break
        seen += ANSI.sub("", chunk.decode(errors="replace")).replace("\r", "")
        found = pattern.search(seen)
        if found:
            return found
    raise AssertionError(f"bash never printed {pattern.pattern!r}; it printed:\n{seen}")


def test_bash_completes_a_command_name(bash_script: tuple[str, Path], tmp_path: Path) -> None:
    bash, script = bash_script
    line = _typed_in_bash(bash, script, "mcv va\t", _env(tmp_path))
    assert line == "mcv validate"


def test_bash_completes_a_param_the_pipeline_declares(
    bash_script: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bash, script = bash_script
    env = _env(tmp_path)
    monkeypatch.chdir(ROOT)  # the pipeline path is relative, as a user in the repository types it
    line = _typed_in_bash(bash, script, "mcv run pipelines/product-images.yaml -p ph\t", env)
    assert line == "mcv run pipelines/product-images.yaml -p photo="


def _candidates(bash: str, script: Path, words: list[str], env: dict[str, str], cwd: Path) -> list[str]:
    """COMPREPLY of the script's completion function for ``words`` (the last one being typed)."""
    quoted = " ".join("'" + word.replace("'", "'\\''") + "'" for word in words)
    program = (
        f"source {script}\n"
        "function_name=$(complete -p mcv | sed -E 's/.* -F ([^ ]+) .*/\\1/')\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n"
        'COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}\n'
        '"$function_name" mcv "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        [bash, "--norc", "--noprofile", "-c", program],
        capture_output=True, text=True, env=env, cwd=cwd, check=True, timeout=60,
    )
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completes_choices_files_and_engines(bash_script: tuple[str, Path], tmp_path: Path) -> None:
    bash, script = bash_script
    env = _env(tmp_path)
    assert _candidates(bash, script, ["mcv", "validate", "x.yaml", "--format", ""], env, ROOT) == [
        "text", "json", "github", "junit", "sarif", "gitlab",
    ]
    assert _candidates(bash, script, ["mcv", "completion", ""], env, ROOT) == ["bash", "zsh", "fish"]
    assert "ffmpeg" in _candidates(bash, script, ["mcv", "operations", "--engine", "ff"], env, ROOT)
    assert _candidates(bash, script, ["mcv", "run", "--dry"], env, ROOT) == ["--dry-run"]
    project = tmp_path / "project"
    project.mkdir()
    for name in ("a.yaml", "b.yml", "notes.txt", "rows.csv"):
        (project / name).write_text("x")
    pipelines = _candidates(bash, script, ["mcv", "run", ""], env, project)
    assert sorted(pipelines) == ["a.yaml", "b.yml"]
    manifests = _candidates(bash, script, ["mcv", "batch", "a.yaml", "--manifest", ""], env, project)
    assert "rows.csv" in manifests
    assert "notes.txt" not in manifests
    params = _candidates(
        bash, script, ["mcv", "batch", str(ROOT / "pipelines/product-images.yaml"), "-p", ""], env, ROOT
    )
    assert params == ["photo=", "widths=", "quality=", "sheet="]


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def test_zsh_completes_a_command_name_and_a_param(
    tmp_path: Path,
    require_program: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """zsh loads the script from fpath as `_mcv`, where the README's line puts it."""
    zsh = require_program("zsh")
    functions = tmp_path / "functions"
    functions.mkdir()
    (functions / "_mcv").write_text(_script("zsh", capsys))
    setup = f"fpath=({functions} $fpath); autoload -Uz compinit && compinit -u -D"
    env = {**_env(tmp_path), "TERM": "xterm"}  # zsh's line editor stays off on a dumb terminal
    monkeypatch.chdir(ROOT)
    assert _typed_in_shell([zsh, "-f", "-i"], setup, "mcv va\t", env) == "mcv validate"
    typed = "mcv run pipelines/product-images.yaml -p ph\t"
    assert _typed_in_shell([zsh, "-f", "-i"], setup, typed, env) == (
        "mcv run pipelines/product-images.yaml -p photo="
    )


def test_fish_completes_commands_params_engines_and_formats(
    tmp_path: Path, require_program: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    fish = require_program("fish")
    script = tmp_path / "mcv.fish"
    script.write_text(_script("fish", capsys))

    def completions(line: str) -> list[str]:
        done = subprocess.run(
            [fish, "--no-config", "-c", f"source {script}; complete --do-complete '{line}'"],
            capture_output=True, text=True, env=_env(tmp_path), cwd=ROOT, check=True, timeout=60,
        )
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert completions("mcv va") == ["validate"]
    assert completions("mcv run pipelines/product-images.yaml -p ph") == ["photo="]
    assert "ffmpeg" in completions("mcv operations --engine ff")
    assert "gitlab" in completions("mcv validate --format ")


def test_complete_params_prints_declared_names_and_nothing_for_a_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["__complete-params", str(ROOT / "pipelines" / "thumbnails.yaml")]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed
    assert all(line.endswith("=") for line in listed)
    broken = tmp_path / "broken.yaml"
    broken.write_text("params: [unclosed\n")
    assert main(["__complete-params", str(broken)]) == 0
    assert main(["__complete-params", str(tmp_path / "missing.yaml")]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ""
    assert declared_params("- a list\n") == []


def test_the_helper_is_not_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = capsys.readouterr().out
    assert "completion" in listing
    assert "__complete-params" not in listing
