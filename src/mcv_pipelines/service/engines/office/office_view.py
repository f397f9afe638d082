"""A warm LibreOffice inside a view of its own, fed through an exchange directory (issue 37).

A warm soffice outlives the tasks it converts, so it cannot be given one task's files the way a
sealed program is (seal.py). It ran under ``unshare --net`` only, seeing the whole machine: an RTF
field ``INCLUDEPICTURE "<path>"`` embedded any local picture into a docx or odt, another key's upload
in the data directory included (LibreOffice's untrusted-link blocking does not cover that field).

Under bubblewrap each soffice now sees the system view (system_view.py) read-only and, of its own,
only its process directory, mounted at ``/office``:

- ``/office/profile``: its LibreOffice profile;
- ``/office/exchange``: a task's input is placed in ``in/`` (a hard link, or a copy across file
  systems), LibreOffice writes into ``out/``, the pool takes the outputs out to where the task wanted
  them, and the directory is emptied before the next task;
- ``/office/run``, which is the view's /tmp: LibreOffice's temporary files and the UNO pipe, a
  socket file at ``/tmp/OSL_PIPE_<uid>_<name>`` (LibreOffice puts it there, whatever TMPDIR says).

The UNO bridge runs in a view of its own with the same ``run`` directory as its /tmp, so it reaches
the pipe and nothing else of soffice's. Both get their own network, IPC and process namespaces and
``--die-with-parent``: bubblewrap ties that to the thread that started it, so the pool starts them
from the service's launcher thread, which lives as long as the service (launcher.py). A parent-death
signal set on bwrap alone did not hold: with four office jobs running, SIGTERM, SIGINT or SIGKILL of
the service left every bwrap, oosplash and soffice.bin (or bridge) running.

Without bubblewrap (seal ``landlock``, ``unshare`` or ``none``) soffice keeps ``unshare --net --pid``
where it works and the exchange directory still carries every task's files, at the same paths on both
sides. Both are started by the pool from the service's launcher thread with a parent-death signal
(launcher.py), so none outlives the service; under bubblewrap its PID namespace's init goes with it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines import seal, system_view

__all__ = ["OfficeView"]

_INSIDE = Path("/office")
_TMP = "/tmp"  # noqa: S108 - the view's own /tmp, the run directory of this process
# The seal's namespaces and devices, --die-with-parent included (see above).
_BASE = seal.BWRAP_BASE


class OfficeView:
    """What one warm soffice and its bridge see; ``root`` is the process's own directory."""

    def __init__(self, root: Path, method: seal.Method) -> None:
        self.root = root
        self.sealed = method == "bwrap"
        self.method = method
        for name in ("profile", "run", "exchange/in", "exchange/out"):
            (root / name).mkdir(parents=True, exist_ok=True)
        self.inside = _INSIDE if self.sealed else root  # where soffice finds ``root``

    @property
    def profile_uri(self) -> str:
        return (self.inside / "profile").as_uri()

    def office_argv(self, argv: Sequence[str]) -> list[str]:
        """soffice's command line in its view (or with no network only, without bubblewrap)."""
        if not self.sealed:
            return [*_no_network(self.method), *argv]
        binds = ["--bind", str(self.root), str(_INSIDE), "--bind", str(self.root / "run"), _TMP]
        return [*self._wrapper(argv[0]), *binds, "--setenv", "HOME", str(_INSIDE), "--", *argv]

    def bridge_argv(self, argv: Sequence[str], script: Path) -> list[str]:
        """The UNO bridge's command line: the pipe's directory as its /tmp, its script read-only."""
        if not self.sealed:
            return list(argv)
        binds = ["--bind", str(self.root / "run"), _TMP, "--ro-bind", str(script), str(script)]
        return [*self._wrapper(argv[0]), *binds, "--setenv", "HOME", _TMP, "--", *argv]

    def _wrapper(self, program: str) -> list[str]:
        tree = system_view.program_tree(program)
        view = system_view.view_args(trees=[tree] if tree is not None else [])
        return [shutil.which("bwrap") or "/usr/bin/bwrap", *view, *_BASE]

    def place(self, job: dict[str, Any]) -> dict[str, Any]:
        """``job`` as soffice must see it: its source placed in the exchange, its target there too."""
        source, target = Path(job["source"]), Path(job["target"])
        placed = self.root / "exchange" / "in" / source.name
        try:
            os.link(source, placed)
        except OSError:  # another file system, or a link refused: a copy
            shutil.copyfile(source, placed)
        inside = self.inside / "exchange"
        source_inside, target_inside = inside / "in" / source.name, inside / "out" / target.name
        return {**job, "source": str(source_inside), "target": str(target_inside)}

    def take(self, answer: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
        """``answer`` with its files moved out of the exchange to the directory ``job`` named."""
        if not answer.get("files"):
            return answer
        out, wanted = self.root / "exchange" / "out", Path(job["target"]).parent
        files = []
        for name in answer["files"]:
            produced = out / Path(name).name
            if produced.is_file():
                files.append(str(shutil.move(produced, wanted / produced.name)))
        return {**answer, "files": files}

    def empty(self) -> None:
        """Nothing of one task is left for the next."""
        if not self.root.is_dir():  # the process was killed and its directory removed
            return
        for name in ("in", "out"):
            directory = self.root / "exchange" / name
            shutil.rmtree(directory, ignore_errors=True)
            with contextlib.suppress(OSError):
                directory.mkdir(parents=True, exist_ok=True)

    def worker(self, pid: int) -> int | None:
        """The soffice.bin that converts, among the processes under ``pid`` (bubblewrap, the
        launcher oosplash): the pool measures and kills it."""
        found = _descendants(pid)
        named = [child for child in found if _name(child) == "soffice.bin"]
        chosen = named or found[-1:]
        return chosen[0] if chosen else None


def _no_network(method: seal.Method) -> tuple[str, ...]:
    """Without bubblewrap, soffice in network and PID namespaces of its own where unshare can make
    them: the bridge already removes LibreOffice's network content providers and this holds whatever
    it missed; the PID namespace's init dies with unshare, so soffice.bin (a child of the launcher
    oosplash, which a parent-death signal does not reach) goes with it, even on SIGKILL."""
    prefix = seal.unshare_prefix() if method != "none" else ()
    return (*prefix[:-1], "--pid", "--fork", "--kill-child", "--") if prefix else ()


def _descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        children = sorted(parents.get(queue.pop(0), []))
        found += children
        queue += children
    return found


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
