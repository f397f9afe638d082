"""A throwaway PostgreSQL server for tests: initdb + pg_ctl of the Debian ``postgresql`` package in a
temporary directory, on a free loopback port, its unix socket in that directory too.

As root the server must run as the ``postgres`` user, so the directory is handed to that user.
Missing binaries: ``find_bin_dir`` returns None and the fixture skips (or fails under
MCV_REQUIRE_ENGINES=1).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
from pathlib import Path

__all__ = ["PgServer", "find_bin_dir"]

USER = "mcv"


def find_bin_dir() -> Path | None:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        path = Path(candidate)
        if (path / "initdb").exists() and (path / "pg_ctl").exists():
            return path
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgServer:
    def __init__(self, bin_dir: Path, root: Path) -> None:
        self.bin_dir = bin_dir
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self._as_root = os.geteuid() == 0
        self._counter = 0
        if self._as_root:
            owner = pwd.getpwnam("postgres")
            shutil.chown(root, owner.pw_uid, owner.pw_gid)
            root.chmod(0o700)
        self._run("initdb", "-D", str(self.data), "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync")

    def _run(self, program: str, *args: str) -> None:
        argv = [str(self.bin_dir / program), *args]
        if self._as_root:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every connection is cut, the server is back with the same options."""
        # -l again: without it the server would keep pg_ctl's captured output open
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-l", str(self.root / "log"), "-w", "restart")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        auth = f"{USER}:{password}" if password else USER
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database; its name."""
        import psycopg

        self._counter += 1
        name = f"test_{os.getpid()}_{self._counter}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name
