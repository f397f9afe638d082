"""A real OpenStack Swift for the tests: Debian's swift-proxy, swift-account, swift-container and
swift-object servers on loopback ports, one process each (``workers = 0``), with a private swift_dir,
rings built by swift-ring-builder and devices in a temporary directory.

The proxy's pipeline has no auth middleware, so any ``/v1/AUTH_<project>`` account is open and made on
first use (``account_autocreate``): Keystone, the part a caller talks to first, is ``keystone_stub.py``
(the test's own token answer, with a catalog pointing here). Tokens written to ``revoked`` are refused
401, as an ended token is (swift_middleware/cluster_filters.py). The cluster's ``max_file_size`` is
``LARGEST`` (12 MiB instead of 5 GiB), so that a file too large for one object, written as a Static
Large Object through the proxy's ``slo`` middleware, takes megabytes rather than gigabytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from engine_needs import unavailable

__all__ = ["SwiftServer", "need_swift"]

_PROGRAMS = (
    "swift-ring-builder",
    "swift-proxy-server",
    "swift-account-server",
    "swift-container-server",
    "swift-object-server",
)
_BACKENDS = ("account", "container", "object")
LARGEST = 12 * 1024 * 1024


def need_swift() -> None:
    missing = [name for name in _PROGRAMS if shutil.which(name) is None]
    if missing:
        unavailable(
            f"needs OpenStack Swift ({', '.join(missing)} missing: apt-get install --no-install-recommends "
            "swift-proxy swift-account swift-container swift-object, or run .ci/run)"
        )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SwiftServer:
    """Swift's proxy on ``http://127.0.0.1:<port>``; ``account_url(project)`` is a project's storage URL."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="mcv-swift-"))
        self.port = _free_port()
        self.ports = {name: _free_port() for name in _BACKENDS}
        self.processes: list[subprocess.Popen[bytes]] = []
        self.revoked = self.root / "revoked"  # tokens the proxy refuses, one a line

    def revoke(self, token: str) -> None:
        with self.revoked.open("a") as out:
            out.write(token + "\n")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def account_url(self, project: str) -> str:
        return f"{self.url}/v1/AUTH_{project}"

    def _write_configs(self) -> None:
        devices = self.root / "devices"
        (devices / "d1").mkdir(parents=True, exist_ok=True)
        (self.root / "swift.conf").write_text(
            "[swift-hash]\nswift_hash_path_suffix = mcv-tests\nswift_hash_path_prefix = mcv-tests\n\n"
            "[storage-policy:0]\nname = Policy-0\ndefault = yes\n\n"
            f"[swift-constraints]\nmax_file_size = {LARGEST}\n"
        )
        common = (
            f"[DEFAULT]\nbind_ip = 127.0.0.1\nworkers = 0\nswift_dir = {self.root}\nuser = {_user()}\n"
            f"log_address = /nonexistent\nlog_level = WARNING\n"
        )
        for name in _BACKENDS:
            (self.root / f"{name}-server.conf").write_text(
                f"{common}bind_port = {self.ports[name]}\ndevices = {devices}\nmount_check = false\n\n"
                f"[pipeline:main]\npipeline = {name}-server\n\n"
                f"[app:{name}-server]\nuse = egg:swift#{name}\n"
            )
        (self.root / "proxy-server.conf").write_text(
            f"{common}bind_port = {self.port}\n\n"
            "[pipeline:main]\npipeline = catch_errors proxy-logging revoked-tokens slo own-constraints "
            "proxy-server\n\n"
            "[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n\n"
            "[filter:catch_errors]\nuse = egg:swift#catch_errors\n\n"
            "[filter:proxy-logging]\nuse = egg:swift#proxy_logging\n\n"
            "[filter:slo]\nuse = egg:swift#slo\n\n"
            "[filter:revoked-tokens]\npaste.filter_factory = cluster_filters:revoked_tokens\n"
            f"revoked_file = {self.revoked}\n\n"
            "[filter:own-constraints]\npaste.filter_factory = cluster_filters:own_constraints\n"
        )

    def _build_rings(self) -> None:
        """One ring per backend with one device, made by swift-ring-builder's own ``main`` called
        nine times in one process of its interpreter (nine program starts took 20 s on a busy CI)."""
        program = shutil.which("swift-ring-builder")
        assert program is not None
        interpreter = Path(program).read_text().splitlines()[0].removeprefix("#!").strip().split()
        commands = []
        for name in _BACKENDS:
            builder = str(self.root / f"{name}.builder")
            device = f"r1z1-127.0.0.1:{self.ports[name]}/d1"
            commands += [
                [builder, "create", "10", "1", "1"],
                [builder, "add", device, "100"],
                [builder, "rebalance"],
            ]
        script = (
            "import json, sys\n"
            "from swift.cli.ringbuilder import main\n"
            "for args in json.loads(sys.argv[1]):\n"
            "    try:\n"
            "        main(['swift-ring-builder', *args])\n"
            "    except SystemExit as exc:\n"
            "        if exc.code not in (None, 0, 1):  # 1: done with a warning\n"
            "            raise\n"
        )
        done = subprocess.run(
            [*interpreter, "-c", script, json.dumps(commands)],
            capture_output=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0 or not all((self.root / f"{n}.ring.gz").exists() for n in _BACKENDS):
            raise RuntimeError(
                f"swift-ring-builder failed: {(done.stdout + done.stderr).decode(errors='replace')}"
            )

    def start(self) -> SwiftServer:
        self._write_configs()
        self._build_rings()
        log = (self.root / "servers.log").open("ab")
        for name in (*_BACKENDS, "proxy"):
            self.processes.append(
                subprocess.Popen(
                    [f"swift-{name}-server", str(self.root / f"{name}-server.conf")],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env={**os.environ, "PYTHONPATH": str(Path(__file__).parent / "swift_middleware")},
                )
            )
        log.close()
        self._wait_ready()
        return self

    def _wait_ready(self, timeout: float = 180.0) -> None:  # four Python servers on a busy CI machine
        deadline = time.monotonic() + timeout
        checks = [
            f"{self.url}/healthcheck",
            *(f"http://127.0.0.1:{p}/healthcheck" for p in self.ports.values()),
        ]
        waiting = list(checks)
        while waiting:
            for process in self.processes:
                if process.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"a Swift server stopped at start: {self._log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(waiting[0], timeout=2.0, trust_env=False).status_code < 500:
                    waiting.pop(0)
                    continue
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"Swift did not answer {waiting[0]} in {timeout:g} s: {self._log_tail()}")
            time.sleep(0.1)

    def _log_tail(self) -> str:
        path = self.root / "servers.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> SwiftServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name
