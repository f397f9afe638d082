"""A real Azure Blob server for the tests: Azurite (npm ``azurite``), in memory, on a free loopback port.

Found as MCV_AZURITE (its dist/src/blob/main.js or an ``azurite-blob`` program), else ``azurite-blob``
on PATH, else where scripts/install-azurite.sh puts it (the user cache, as the Node SDK test's).
It serves the well-known development account, whose key Azurite and the Azure docs publish; clients
address it path-style: ``http://127.0.0.1:PORT/devstoreaccount1``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

import httpx
import platformdirs

from engine_needs import unavailable

__all__ = ["ACCOUNT", "AZURITE_VERSION", "KEY", "Azurite", "find_azurite", "need_azurite"]

AZURITE_VERSION = "3.37.0"  # what scripts/install-azurite.sh installs
ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
_MAIN = Path("node_modules") / "azurite" / "dist" / "src" / "blob" / "main.js"


def _installed() -> Path:
    base = os.environ.get("MCV_AZURITE_DIR") or Path(platformdirs.user_cache_dir("mcv-pipelines")) / "azurite"
    return Path(base) / AZURITE_VERSION


def find_azurite() -> list[str] | None:
    """The command that starts Azurite's blob service, before its options; None when not found."""
    named = os.environ.get("MCV_AZURITE")
    if named:
        return ["node", named] if named.endswith(".js") else [named]
    on_path = shutil.which("azurite-blob")
    if on_path:
        return [on_path]
    main = _installed() / _MAIN
    node = shutil.which("node")
    return [node, str(main)] if main.is_file() and node else None


def need_azurite() -> list[str]:
    command = find_azurite()
    if command is None:
        unavailable(
            "needs Azurite, the Azure Storage emulator (scripts/install-azurite.sh, or "
            "npm install -g azurite; run .ci/run)"
        )
    return command


class Azurite:
    """Azurite's blob service on 127.0.0.1:``port``; ``endpoint`` is the service's endpoint template."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """The account's URL (path-style, as an emulator is addressed)."""
        return f"http://127.0.0.1:{self.port}/{ACCOUNT}"

    @property
    def endpoint(self) -> str:
        """The --azure-blob-endpoint that reaches it."""
        return f"http://127.0.0.1:{self.port}/{{account}}"

    @property
    def connection_string(self) -> str:
        return (
            f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};BlobEndpoint={self.url};"
        )

    def start(self, timeout: float = 30.0) -> Azurite:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        argv = [
            *self.command, "--blobHost", "127.0.0.1", "--blobPort", str(self.port), "--inMemoryPersistence",
            "--silent", "--disableTelemetry", "--skipApiVersionCheck",
        ]  # fmt: skip
        env = {key: value for key, value in os.environ.items() if not key.startswith("AZURITE_")}
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - kept open while the server runs
        self.process = subprocess.Popen(
            argv, stdout=self._log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._log.seek(0)
                output = self._log.read().decode(errors="replace")
                raise RuntimeError(f"Azurite exited with {self.process.returncode}: {output[-2000:]}")
            try:
                httpx.get(f"{self.url}?comp=list", timeout=1.0, trust_env=False)
                return self
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"Azurite did not listen on port {self.port} within {timeout:g} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None
