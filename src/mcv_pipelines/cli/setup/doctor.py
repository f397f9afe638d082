"""`mcv doctor`: is this machine ready? Engines, the configured service, the data directory.

Lists the engines found (program, version, path, the conversions each brings), the engines missing with
what they would bring and the package to install on Debian/Ubuntu, Fedora and macOS (Homebrew), the
configured service (base URL, answering, key taken, version; never the key) and the data directory with
its free space. Exit 0 when all is well, 1 when something needs attention; ``--format json`` for scripts.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from mcv_pipelines.cli.connection import add_connection_options, emit, emit_json, resolve_settings
from mcv_pipelines.cli.setup.doctor_checks import (
    DoctorReport,
    EngineFound,
    build_report,
    check_data_dir,
    check_engines,
    check_service,
)

__all__ = ["doctor_text", "register"]

_INSTALL = {
    "debian/ubuntu": "sudo apt-get install --no-install-recommends {}",
    "fedora": "sudo dnf install {}",
    "macos homebrew": "brew install {}",
}


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "doctor",
        help="check engines, the configured service and the data dir",
        description="Check this machine: engines found (program, version, path, conversions), engines "
        "missing (what they would bring, the package to install), the configured service (base URL, "
        "answering, key accepted, version) and the data directory (free space). Exit 0 when all is "
        "well, 1 when something needs attention.",
    )
    add_connection_options(parser)
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from mcv_pipelines.run.embedded import default_data_dir

    settings = resolve_settings(args)
    found, missing = check_engines()
    service = asyncio.run(check_service(settings))
    data_dir = check_data_dir(args.data_dir or default_data_dir())
    report = build_report(found, missing, service, data_dir)
    emit_json(report.to_json()) if args.format == "json" else emit(doctor_text(report))
    return 1 if report.attention else 0


def _conversions(engine: EngineFound) -> str:
    listed = ", ".join(f"{operation} {count}" for operation, count in engine.conversions.items())
    noun = "conversion" if engine.total == 1 else "conversions"
    return f"{engine.total} {noun} ({listed})" if listed else "no conversions listed"


def _size(free: int | None) -> str:
    if free is None:
        return "free space unknown"
    return f"{free / (1 << 30):.1f} GiB free"


def doctor_text(report: DoctorReport) -> str:
    """The report as a person reads it: one section per thing checked, what to do at the end."""
    total = len(report.found) + len(report.missing)
    lines = [f"engines: {len(report.found)} of {total} found"]
    width = max((len(e.name) for e in report.found), default=0)
    version_width = max((len(e.version) for e in report.found), default=0)
    for engine in report.found:
        where = engine.path or "Python library, installed with mcv"
        lines.append(f"  ok  {engine.name:<{width}}  {engine.version:<{version_width}}  {where}")
        lines.append(f"      {' ' * width}  {_conversions(engine)}")
    if report.missing:
        lines.append("")
        lines.append(f"engines missing: {len(report.missing)} (what each would bring; how to install it)")
        for missing in report.missing:
            joined = (" and " if missing.needs_all else " or ").join(missing.programs)
            programs = f" (needs {joined} on PATH)" if missing.programs else ""
            lines.append(f"  --  {missing.name}: {missing.brings}{programs}")
            for system, packages in missing.packages.items():
                lines.append(f"        {system + ':':<16} {_INSTALL[system].format(packages)}")
    lines.append("")
    lines.extend(_service_lines(report))
    lines.append("")
    data = report.data_dir
    state = "" if data.exists else " (not created yet: the first run makes it)"
    lines.append("data directory")
    lines.append(f"  {data.path}{state}")
    lines.append(f"  {_size(data.free_bytes)}{'' if data.writable else ', NOT writable'}")
    lines.append("")
    if report.attention:
        lines.append(f"{len(report.attention)} thing(s) need attention:")
        lines.extend(f"  - {item}" for item in report.attention)
    else:
        lines.append("all well")
    return "\n".join(lines)


def _service_lines(report: DoctorReport) -> list[str]:
    service = report.service
    if not service.configured:
        return [
            "service: none configured",
            "  runs use the embedded local service on this machine (set MCV_BASE_URL, or MCV_API_KEY "
            "for the public service, to use another)",
        ]
    answers = {True: "yes", False: "NO", None: "unknown"}
    key = "none given" if not service.key_given else {True: "accepted", False: "REFUSED", None: "unknown"}[
        service.key_valid
    ]
    return [
        "service",
        f"  base URL  {service.base_url}",
        f"  answers   {answers[service.reachable]}",
        f"  API key   {key}",
        f"  version   {service.version or 'not stated by the service'}",
    ]
