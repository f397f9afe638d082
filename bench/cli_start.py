"""CLI cold start: `mcv validate F`, `mcv --help`, `mcv --version` against check-jsonschema on F.

    .venv/bin/python bench/cli_start.py [FILE] [--rounds 7]

Each round runs the four commands once, one after the other (the order turns every round), so a busy
machine slows them alike; the table shows each command's median wall-clock and CPU (user + system)
time over the rounds and its ratio to check-jsonschema's run
(`check-jsonschema --schemafile schemas/pipeline.schema.json FILE`). Targets (issue 15):
`mcv validate` <= 1.2x, `mcv --help` and `mcv --version` <= 0.6x.

Both programs run as installed ones do, from bytecode: the children run without
PYTHONDONTWRITEBYTECODE and one uncounted warm-up round writes the `__pycache__` files first (a pip
install compiles them; a source checkout gets them on its first run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"validate": 1.2, "--help": 0.6, "--version": 0.6}


def _program(name: str) -> str:
    """A console script of the running interpreter's environment, else one on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"cli_start: {name} not found beside {sys.executable} or on PATH")
    return found


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run; a failing command ends the bench."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if process.stderr:
        process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"cli_start: {' '.join(command)} exited {process.returncode}\n{stderr}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "file", nargs="?", default=str(ROOT / "pipelines" / "product-images.yaml"), help="a pipeline file"
    )
    parser.add_argument("--rounds", type=int, default=7, help="measured rounds (default 7)")
    parser.add_argument(
        "--schema",
        default=str(ROOT / "schemas" / "pipeline.schema.json"),
        help="the schema check-jsonschema checks FILE against (default: the committed pipeline schema)",
    )
    args = parser.parse_args()

    mcv = _program("mcv")
    commands: dict[str, list[str]] = {
        "check-jsonschema": [_program("check-jsonschema"), "--schemafile", args.schema, args.file],
        "validate": [mcv, "validate", args.file],
        "--help": [mcv, "--help"],
        "--version": [mcv, "--version"],
    }
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for command in commands.values():  # warm-up: bytecode written, files in the page cache
        _run(command, env)

    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for round_no in range(args.rounds):
        turn = round_no % len(names)
        for name in names[turn:] + names[:turn]:
            wall, cpu = _run(commands[name], env)
            walls[name].append(wall)
            cpus[name].append(cpu)

    base_wall = statistics.median(walls["check-jsonschema"])
    base_cpu = statistics.median(cpus["check-jsonschema"])
    print(f"file   {args.file}\nschema {args.schema}\nmcv    {mcv}\nrounds {args.rounds}\n")
    header = f"{'command':<22} {'wall (median)':>13} {'ratio':>6} {'cpu (median)':>13} {'ratio':>6}  target"
    print(header)
    print("-" * len(header))
    for name in names:
        wall = statistics.median(walls[name])
        cpu = statistics.median(cpus[name])
        label = "check-jsonschema" if name == "check-jsonschema" else f"mcv {name}"
        target = TARGETS.get(name)
        verdict = ""
        if target is not None:
            verdict = f"<= {target}x  {'ok' if wall / base_wall <= target else 'MISSED'}"
        print(
            f"{label:<22} {wall * 1000:>10.0f} ms {wall / base_wall:>5.2f}x "
            f"{cpu * 1000:>10.0f} ms {cpu / base_cpu:>5.2f}x  {verdict}"
        )


if __name__ == "__main__":
    main()
