"""What `mcv doctor` looks at: the engines of the registry, the configured service, the data directory.

Each check returns a plain frozen value; ``DoctorReport.attention`` lists what needs the user's action
(an engine missing, a service that does not answer or refuses the key, a data directory that cannot be
written or is nearly full). The API key is never part of any value here.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mcv_pipelines.api.settings import Settings

__all__ = [
    "LOW_SPACE",
    "DataDirCheck",
    "DoctorReport",
    "EngineFound",
    "EngineMissing",
    "ServiceCheck",
    "build_report",
    "check_data_dir",
    "check_engines",
    "check_service",
]

LOW_SPACE = 1 << 30  # below 1 GiB free, a few video conversions fill the disk


@dataclass(frozen=True)
class EngineFound:
    """An engine that can run here: its version, the program it runs, its conversions per operation."""

    name: str
    version: str
    path: str | None  # the program run; None for a Python library
    conversions: dict[str, int]  # operation -> conversion types listed
    problem: str | None = None  # listing its conversions failed

    @property
    def total(self) -> int:
        return sum(self.conversions.values())


@dataclass(frozen=True)
class EngineMissing:
    """An engine of the registry that cannot run here, with what installing it would bring."""

    name: str
    brings: str
    programs: tuple[str, ...]
    needs_all: bool  # every one of programs is needed (else any one)
    packages: dict[str, str]  # system -> package names


@dataclass(frozen=True)
class ServiceCheck:
    """The configured service as seen from here (None: not known, e.g. nothing answered)."""

    configured: bool
    base_url: str | None = None
    reachable: bool | None = None
    key_given: bool = False
    key_valid: bool | None = None
    version: str | None = None
    problem: str | None = None


@dataclass(frozen=True)
class DataDirCheck:
    """Where the embedded service keeps jobs and files, and whether there is room to do so."""

    path: str
    exists: bool
    writable: bool
    free_bytes: int | None
    problem: str | None = None


@dataclass(frozen=True)
class DoctorReport:
    """Everything checked; ``attention`` lists what the user should act on (empty: exit 0)."""

    found: list[EngineFound]
    missing: list[EngineMissing]
    service: ServiceCheck
    data_dir: DataDirCheck
    attention: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        engines = [{**asdict(e), "conversions_total": e.total} for e in self.found]
        return {
            "ok": not self.attention,
            "attention": self.attention,
            "engines": engines,
            "missing_engines": [asdict(m) for m in self.missing],
            "service": asdict(self.service),
            "data_dir": asdict(self.data_dir),
        }


def build_report(
    found: list[EngineFound], missing: list[EngineMissing], service: ServiceCheck, data_dir: DataDirCheck
) -> DoctorReport:
    """The report with what needs attention, in the order the sections print."""
    attention = [f"engine {m.name} is not installed (what it brings and how to install it: above)"
                 for m in missing]
    attention += [f"engine {e.name}: {e.problem}" for e in found if e.problem]
    if service.problem:
        attention.append(f"service: {service.problem}")
    if data_dir.problem:
        attention.append(f"data directory: {data_dir.problem}")
    return DoctorReport(found, missing, service, data_dir, attention)


def check_engines() -> tuple[list[EngineFound], list[EngineMissing]]:
    """Every engine of the registry, found (with its version and conversions) or missing (with hints)."""
    from mcv_pipelines.service.engines import registered_engines
    from mcv_pipelines.service.engines.install_hints import InstallHint, install_hint

    found: list[EngineFound] = []
    missing: list[EngineMissing] = []
    for engine in registered_engines():  # composed as the service has them: Pandoc prints with Chromium
        hint = install_hint(engine.name) or InstallHint("(no install hint recorded for this engine)")
        version = engine.version()
        if version is None:
            missing.append(
                EngineMissing(engine.name, hint.brings, hint.programs, hint.needs_all, hint.packages)
            )
            continue
        path = next((p for name in hint.programs if (p := shutil.which(name))), None)
        problem = None
        try:
            counts = Counter(conversion.operation for conversion in engine.conversion_types())
        except Exception as exc:  # a program that runs but answers oddly: say so, check the rest
            counts, problem = Counter(), f"listing its conversions failed: {exc}"
        found.append(EngineFound(engine.name, version, path, dict(sorted(counts.items())), problem))
    return found, missing


def check_data_dir(path: Path) -> DataDirCheck:
    """Free space and write access where the embedded service keeps its state (or would create it)."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    # A file where a directory of the path should be blocks it as surely as a read-only directory.
    writable = existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)
    try:
        free: int | None = shutil.disk_usage(existing).free
    except OSError:
        free = None
    problem = None
    if not writable:
        problem = f"{existing} is not writable: runs on the embedded service cannot keep their state"
    elif free is not None and free < LOW_SPACE:
        problem = f"only {free / (1 << 20):.0f} MiB free on the disk of {path}"
    return DataDirCheck(str(path), path.exists(), writable, free, problem)


async def check_service(settings: Settings) -> ServiceCheck:
    """Whether the configured service answers, takes the key, and which version it says it runs.

    One try per request, no retries: a doctor reports a fault rather than waiting it out.
    """
    if not settings.is_configured:
        return ServiceCheck(configured=False)
    from mcv_pipelines.api.client import ApiClient
    from mcv_pipelines.api.errors import ApiError, Forbidden, NetworkError, Unauthorized
    from mcv_pipelines.api.retry import RetryPolicy
    from mcv_pipelines.redact import redact

    base = settings.base_url
    key_given = bool(settings.api_key)
    async with ApiClient(settings, retry=RetryPolicy(attempts=1, rate_limited_attempts=1)) as client:
        base = client.base_url
        try:
            await client.me()
        except NetworkError as exc:
            problem = f"{base} does not answer: {redact(str(exc))}"
            return ServiceCheck(True, base, reachable=False, key_given=key_given, problem=problem)
        except (Unauthorized, Forbidden):
            problem = (
                "the API key was refused" if key_given else "the service wants an API key (set MCV_API_KEY)"
            )
            return ServiceCheck(True, base, True, key_given, False, await _version(client), problem)
        except ApiError as exc:
            problem = f"{base} answered with an error: {redact(str(exc))}"
            return ServiceCheck(True, base, True, key_given, None, await _version(client), problem)
        return ServiceCheck(True, base, True, key_given, True, await _version(client))


async def _version(client: Any) -> str | None:
    """The version a service states on its health endpoint (`mcv serve` does; others may not)."""
    try:
        answer = await client.http.get(f"{client.base_url}/healthz")
        version = answer.json().get("version") if answer.status_code == 200 else None
    except Exception:  # no health endpoint, or not JSON: the version is simply unknown
        return None
    return str(version) if version else None
