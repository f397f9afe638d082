"""A worker process with one slow, countable engine (txt -> md, sleeping ``sleep`` seconds), run as
``python slow_worker.py DATABASE_URL DATA_DIR LEASE_SECONDS`` by the lease tests so that they can
SIGKILL it mid-task. It appends a line to DATA_DIR/runs.log each time it starts the task."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.server import LocalService


class SlowEngine:
    name = "slow"

    def __init__(self, runs: Path) -> None:
        self.runs = runs

    def version(self) -> str | None:
        return "1.0"

    def conversion_types(self) -> Iterable[ConversionType]:
        options = (OptionSpec("sleep", "float", 0.0),)
        yield ConversionType("convert", "txt", "md", "slow", 1, options, (EngineVersion("1.0"),))

    def run(self, request: EngineRequest) -> EngineResult:
        with self.runs.open("a") as log:
            log.write(f"{os.getpid()}\n")
        deadline = time.monotonic() + float(request.options.get("sleep") or 0)
        while time.monotonic() < deadline:
            if request.cancelled.is_set():
                raise EngineError("CANCELLED", "stopped")
            time.sleep(0.02)
        outputs = []
        for item in request.inputs:
            target = request.output_dir / (item.path.stem + ".md")
            shutil.copyfile(item.path, target)
            outputs.append(target)
        return EngineResult(outputs, {})


def main() -> None:
    url, data_dir, lease = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    service = LocalService(
        data_dir=data_dir,
        engines=[SlowEngine(data_dir / "runs.log")],
        database=url,
        role="worker",
        lease_seconds=lease,
    )
    service.start()
    print(f"base URL: {service.base_url}", flush=True)
    print("serving", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
