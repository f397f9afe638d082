"""A worker process with slow_worker.py's slow engine, a store of the test's choosing and a clean stop
on SIGTERM (its running work is finished or dropped before it exits), run as
``python paused_worker.py DATABASE_URL DATA_DIR LEASE_SECONDS STORAGE_URL`` by the chaos tests that
SIGSTOP it. The engine appends ``start PID`` and ``end PID`` lines to DATA_DIR/runs.log."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

from slow_worker import SlowEngine

from mcv_pipelines.service.engines.base import EngineRequest, EngineResult
from mcv_pipelines.service.server import LocalService


class CountedEngine(SlowEngine):
    def run(self, request: EngineRequest) -> EngineResult:
        try:
            return super().run(request)
        finally:
            with self.runs.open("a") as log:
                log.write(f"end {os.getpid()}\n")


def main() -> None:
    url, data_dir, lease, storage = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    service = LocalService(
        data_dir=data_dir,
        engines=[CountedEngine(data_dir / "runs.log")],
        database=url,
        role="worker",
        lease_seconds=lease,
        settings={"storage": storage},
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    service.start()
    print(f"base URL: {service.base_url}", flush=True)
    print("serving", flush=True)
    while not stop.wait(0.2):
        pass
    service.stop()


if __name__ == "__main__":
    main()
