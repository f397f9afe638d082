"""Latency of `mcv lsp` over stdio, against the real subprocess: diagnostics after a change to a large
pipeline, and completion inside it.

    .venv/bin/python bench/lsp.py [--tasks 200] [--changes 60] [--completions 300] [--debounce-ms 50]
                                  [--pause-ms 200]

Diagnostics latency is from sending textDocument/didChange (one edited value) to receiving the
publishDiagnostics of that version: any debounce wait, the full check (the same one `mcv validate`
runs, catalog included) and both pipes. Two kinds of change are timed: an edit after a pause
(--pause-ms of quiet before it: the server checks at once) and an edit right after the previous
answer (as while typing: the server waits for the debounce). Completion latency is one request's
round trip, alternating option names in a task and the output formats of a task (inferred along
the graph). "server's checks" are the times the server logged for each check it ran (the rest of
a diagnostics latency is the debounce, waiting for a turn on the CPU, and the pipes);
"checker alone" is the same check in this process, without the protocol, for scale.
Targets: diagnostics p95 <= 100 ms, completion p95 <= 30 ms. The load average is printed: the
machine is shared, and every number here is CPU time.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcv_pipelines.lsp.checking import check_text
from mcv_pipelines.lsp.settings import load_tools, parse_settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "integration" / "lsp"))

from lsp_client import LspClient  # noqa: E402 - the test helpers' client, found through the path above


def pipeline(tasks: int) -> str:
    """An upload, ``tasks - 2`` conversions of it, and an export of them all."""
    lines = [
        "version: 1",
        "params:",
        "  photo: {type: string, example: photos/photo.jpg}",
        "tasks:",
        "  original:",
        "    operation: import/upload",
        '    upload_from: "{{ params.photo }}"',
    ]
    names = [f"web{i}" for i in range(tasks - 2)]
    for i, name in enumerate(names):
        lines += [
            f"  {name}:",
            "    operation: convert",
            "    input: original",
            "    output_format: webp",
            f"    width: {100 + i}",
            "    quality: 80",
        ]
    lines += ["  publish:", "    operation: export/url", f"    input: [{', '.join(names)}]", ""]
    return "\n".join(lines)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def server_checks(log: str) -> tuple[list[float], list[float]]:
    """The wall and CPU time of each check after the first, as the server logged them."""
    found = re.findall(r"diagnostics in ([0-9.]+) ms \(([0-9.]+) ms CPU\)", log)[1:]
    return [float(wall) for wall, _ in found], [float(cpu) for _, cpu in found]


def checker_alone(text: str, runs: int) -> tuple[list[float], list[float]]:
    """The server's check of the same edits in this process (wall and CPU milliseconds): what the
    protocol adds is the rest, and CPU time shows what the check costs whatever else the machine runs."""
    tools = load_tools(parse_settings(None), None)
    gc.collect()
    gc.freeze()  # as the server does once its catalog is loaded
    lines = text.split("\n")
    at = lines.index("    quality: 80")
    wall: list[float] = []
    cpu: list[float] = []
    for i in range(runs):
        lines[at] = f"    quality: {50 + i % 40}"
        started, cpu_started = time.perf_counter(), time.thread_time()
        check_text("big.yaml", "\n".join(lines), tools)
        cpu.append((time.thread_time() - cpu_started) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=200, help="tasks in the pipeline (default 200)")
    parser.add_argument("--changes", type=int, default=40, help="changes of each kind to time (default 40)")
    parser.add_argument("--completions", type=int, default=300, help="completions to time (default 300)")
    parser.add_argument("--debounce-ms", type=int, default=50, help="the server's debounce (default 50)")
    parser.add_argument("--pause-ms", type=int, default=200, help="quiet before an edit after a pause")
    args = parser.parse_args()

    text = pipeline(args.tasks)
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        log_file = root / "lsp.log"
        server_args = ["--debounce-ms", str(args.debounce_ms), "--log-file", str(log_file)]
        with LspClient(server_args, cwd=root) as client:
            started = time.perf_counter()
            client.initialize(root)
            uri = client.open(root / "big.yaml", text)
            first = client.diagnostics(uri, version=1, timeout=60)
            opened = time.perf_counter() - started
            assert not any(d["severity"] == 1 for d in first), first[:3]

            quality_line = text.split("\n").index("    quality: 80")  # the first conversion's
            paused: list[float] = []
            typing: list[float] = []
            for version in range(2, 2 * args.changes + 2):
                after_pause = version % 2 == 0
                if after_pause:
                    time.sleep(args.pause_ms / 1000)
                sent = time.perf_counter()
                client.edit(uri, version, quality_line, 13, 15, str(50 + version % 40))
                client.diagnostics(uri, version=version, timeout=30)
                (paused if after_pause else typing).append((time.perf_counter() - sent) * 1000)

            output_line = quality_line - 2  # "    output_format: webp"
            completions: list[float] = []
            for i in range(args.completions):
                position = (quality_line, 4) if i % 2 else (output_line, 19)
                sent = time.perf_counter()
                result = client.at("textDocument/completion", uri, *position)
                completions.append((time.perf_counter() - sent) * 1000)
                assert result["items"], position

        server_wall, server_cpu = server_checks(log_file.read_text(encoding="utf-8"))
    alone, alone_cpu = checker_alone(text, args.changes)
    rows = [
        ("diagnostics, edit after pause", paused, 100.0),
        ("diagnostics, edit while typing", typing, 100.0),
        ("completion", completions, 30.0),
        ("server's checks, wall time", server_wall, 100.0),
        ("server's checks, CPU time", server_cpu, 100.0),
        ("checker alone (no protocol)", alone, 100.0),
        ("checker alone, CPU time", alone_cpu, 100.0),
    ]
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"pipeline: {args.tasks} tasks, {len(text.splitlines())} lines; debounce {args.debounce_ms} ms")
    print(f"load average (1, 5, 15 min) after the run: {load} on {os.cpu_count()} CPUs")
    print(f"first open to first diagnostics (server start included): {opened * 1000:.0f} ms\n")
    print(f"{'measure':<28} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'target p95':>11}  ok")
    for name, values, target in rows:
        p95 = percentile(values, 0.95)
        print(
            f"{name:<28} {len(values):>5} {statistics.median(values):>8.1f} {p95:>8.1f} "
            f"{max(values):>8.1f} {target:>8.0f} ms  {'yes' if p95 <= target else 'NO'}"
        )


if __name__ == "__main__":
    main()
