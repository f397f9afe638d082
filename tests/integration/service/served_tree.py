"""A served `mcv serve` with a mixed load of engine jobs, and the tree of processes below it (issue 37).

Used by the tests of what engine processes hold (their environment) and how long they live."""

from __future__ import annotations

import contextlib
import io
import math
import os
import signal
import struct
import subprocess
import sys
import threading
import time
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from PIL import Image
from test_serve_command import SCRIPT

import engine_needs

__all__ = [
    "CANARIES",
    "Served",
    "TreeWatch",
    "alive",
    "mixed_tasks",
    "process_tree",
    "serve",
    "slow_sound_tasks",
]

# Secrets the served process holds; no program of an engine may hold them.
CANARIES = {
    "AWS_SECRET_ACCESS_KEY": "canary-aws-4c1e0b7d9a",
    "MCV_DATABASE_URL": "postgresql://svc:canary-db-8e2f61@db.internal/mcv",
}


@dataclass
class Served:
    process: subprocess.Popen[str]
    base_url: str
    api_key: str
    data_dir: Path

    def client(self) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.api_key}"}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=180.0)

    def stop(self, how: signal.Signals = signal.SIGINT) -> None:
        """Send ``how`` and wait for the end (kill it after a minute: a test never hangs on it)."""
        if self.process.poll() is None:
            self.process.send_signal(how)
        try:
            self.process.wait(60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            if self.process.stdout is not None:
                with contextlib.suppress(OSError, ValueError):
                    self.process.stdout.close()

    def submit(self, client: httpx.Client, tasks: dict[str, Any]) -> str:
        created = client.post("/v2/jobs", json={"tasks": tasks})
        assert created.status_code == 201, created.text
        return str(created.json()["data"]["id"])


def serve(data_dir: Path, **variables: str) -> Served:
    """`mcv serve` in a process of its own, the canaries and ``variables`` in its environment, ready
    to serve."""
    command = [sys.executable, "-c", SCRIPT, "serve", "--port", "0", "--data-dir", str(data_dir)]
    env = {**os.environ, **CANARIES, **variables}
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert child.stdout is not None
    lines = dict(child.stdout.readline().split(":", 1) for _ in range(4))
    threading.Thread(target=child.stdout.read, daemon=True).start()  # the banner's rest, the log
    return Served(child, lines["base URL"].strip(), lines["API key"].strip(), data_dir)


def _inline(name: str, data: bytes) -> dict[str, str]:
    import base64

    return {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name}


def _wav(seconds: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(22050)
        frames = (int(8000 * math.sin(i / 10)) for i in range(22050 * seconds))
        sound.writeframes(b"".join(struct.pack("<h", frame) for frame in frames))
    return out.getvalue()


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1600, 1200), (200, 30, 90)).save(out, "PNG")
    return out.getvalue()


def mixed_tasks(index: int, families: tuple[str, ...]) -> dict[str, Any]:
    """One job's tasks: each of ``families`` (office, web, ffmpeg, pandoc, imagemagick) on a small input."""
    text = f"Quarterly memo {index}\n\n" + "A line of the memo.\n" * 400
    tasks: dict[str, Any] = {}
    if "office" in families:
        tasks["memo"] = _inline(f"memo{index}.txt", text.encode())
        tasks["odt"] = {"operation": "convert", "input": "memo", "output_format": "odt",
                        "engine": "libreoffice"}  # fmt: skip
    if "web" in families:
        page = f"<html><body><h1>Page {index}</h1>{'<p>paragraph</p>' * 200}</body></html>"
        tasks["page"] = _inline(f"page{index}.html", page.encode())
        tasks["pdf"] = {"operation": "convert", "input": "page", "output_format": "pdf", "engine": "chromium"}
    if "ffmpeg" in families:
        tasks["sound"] = _inline(f"sound{index}.wav", _wav(20))
        tasks["mp3"] = {"operation": "convert", "input": "sound", "output_format": "mp3", "engine": "ffmpeg"}
    if "pandoc" in families:
        tasks["notes"] = _inline(f"notes{index}.md", ("# Notes\n\n" + "* item\n" * 2000).encode())
        tasks["html"] = {"operation": "convert", "input": "notes", "output_format": "html",
                         "engine": "pandoc"}  # fmt: skip
    if "imagemagick" in families:
        tasks["picture"] = _inline(f"picture{index}.png", _png())
        tasks["miff"] = {"operation": "convert", "input": "picture", "output_format": "miff",
                        "engine": "imagemagick"}  # fmt: skip
    return tasks


def slow_sound_tasks(index: int) -> dict[str, Any]:
    """A job whose ffmpeg runs some 20 s whatever the machine (it reads its input at its own pace, -re),
    silent: a program that writes nothing lives on after its reader is gone (no SIGPIPE ends it)."""
    return {
        "sound": _inline(f"sound{index}.wav", _wav(20)),
        "mp3": {"operation": "command", "input": "sound", "engine": "ffmpeg", "command": "ffmpeg",
                "arguments": f"-nostats -loglevel error -re -i /input/sound/sound{index}.wav "
                             f"/output/sound{index}.mp3"},
    }  # fmt: skip


def require_families() -> None:
    engine_needs.require_engine("libreoffice", "convert", "txt", "odt")
    engine_needs.require_engine("chromium", "convert", "html", "pdf")
    engine_needs.require_engine("ffmpeg", "convert", "wav", "mp3")
    engine_needs.require_engine("pandoc", "convert", "md", "html")
    engine_needs.require_engine("imagemagick", "convert", "png", "miff")


def _stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, name, state) of ``pid``, None once gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = text.split("(", 1)[1].rsplit(")", 1)[0]
    state, parent = text.rsplit(")", 1)[1].split()[:2]
    return int(parent), name, state


def process_tree(root: int) -> dict[int, str]:
    """The processes below ``root`` now, by pid, with their names."""
    parents: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            found = _stat(int(entry.name))
            if found is not None:
                parents.setdefault(found[0], []).append(int(entry.name))
                names[int(entry.name)] = found[1]
    below, tree = list(parents.get(root, [])), {}
    while below:
        pid = below.pop()
        tree[pid] = names.get(pid, "?")
        below += parents.get(pid, [])
    return tree


def alive(pid: int) -> bool:
    """Running, not a zombie (an orphan may wait for a reaper that never comes in a container)."""
    found = _stat(pid)
    return found is not None and found[2] != "Z"


def _start_time(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


@dataclass
class TreeWatch:
    """Samples the processes below ``root`` every few milliseconds: names, and each one's environment."""

    root: int
    seen: dict[tuple[int, str], str] = field(default_factory=dict)  # (pid, start time) -> name
    read: set[tuple[int, str]] = field(default_factory=set)  # whose environment was read
    leaks: dict[tuple[int, str], str] = field(default_factory=dict)  # which held a canary
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None

    def __enter__(self) -> TreeWatch:
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def _watch(self) -> None:
        service = Path(f"/proc/{self.root}/cmdline").read_bytes()
        while not self._stop.is_set():
            for pid, name in process_tree(self.root).items():
                started = _start_time(pid)
                if started is None:
                    continue
                try:  # the service forked, not yet exec'd: still the service (and not an engine)
                    if Path(f"/proc/{pid}/cmdline").read_bytes() == service:
                        continue
                except OSError:
                    continue
                key = (pid, started)
                with self._lock:
                    self.seen[key] = name
                try:  # read again each time: a program that execs another may change it
                    environ = Path(f"/proc/{pid}/environ").read_bytes()
                except OSError:
                    continue
                with self._lock:
                    if any(secret.encode() in environ for secret in CANARIES.values()):
                        self.leaks[key] = name
                    self.read.add(key)
            time.sleep(0.005)

    def snapshot(self) -> dict[tuple[int, str], str]:
        """The processes seen so far, by (pid, start time), with their names."""
        with self._lock:
            return dict(self.seen)

    def left(self) -> dict[int, str]:
        """The processes seen that still run (the same process: its start time unchanged)."""
        return {pid: name for (pid, started), name in self.snapshot().items()
                if alive(pid) and _start_time(pid) == started}  # fmt: skip
