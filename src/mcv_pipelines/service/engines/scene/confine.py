"""Running Assimp with a file system narrowed to its own directory.

Assimp opens whatever path an input names relative to the input's directory: an OBJ's
``mtllib ../../etc/passwd`` is read, a glTF buffer ``"uri": "../../x"`` becomes vertex data in the
output. The seal (seal.py) already keeps the network away and shows only a view of the system
(system_view.py). Inside ``confined`` a sealed program also finds every top-level directory
but /usr, /dev, /proc and the seal's private /tmp empty (the view's /etc and /var too), and may
use only its working directory (the isolated input and the output), bound back in by the seal.
Its environment is a minimal one, so ``/proc/self/environ`` holds nothing of the service's.

Without bubblewrap (seal ``unshare`` or ``none``) the file system is not narrowed; the seal's banner
says so for every engine.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from mcv_pipelines.service.engines.seal import TaskScope, current_scope, task_scope

__all__ = ["confined", "program_env", "program_prefix"]

# What a program linked to system libraries needs; /tmp is the seal's fresh one, the rest are virtual.
_KEPT = frozenset({"usr", "dev", "proc", "tmp"})


@functools.cache
def _top_directories() -> tuple[Path, ...]:
    """Every real directory at / but the kept ones (bin, lib are links into /usr on current systems)."""
    root = Path("/")
    found = []
    for entry in sorted(root.iterdir()):
        with contextlib.suppress(OSError):
            if entry.name not in _KEPT and entry.is_dir() and not entry.is_symlink():
                found.append(entry)
    return tuple(found)


def program_prefix(program: str) -> Path | None:
    """Where a program installed outside /usr lives (``/opt/assimp`` for ``/opt/assimp/bin/assimp``,
    Homebrew's prefix on Linux): kept readable, or it could not start. None for one under /usr."""
    prefix = Path(program).resolve().parent.parent
    return None if prefix == Path("/usr") or Path("/usr") in prefix.parents else prefix


@contextlib.contextmanager
def confined(keep: Sequence[Path] = ()) -> Iterator[None]:
    """Programs started in this block see only /usr, /dev, /proc, an empty /tmp, their ``cwd`` and,
    read-only, ``keep``."""
    scope = current_scope()
    hidden = (*(scope.hidden if scope is not None else ()), *_top_directories())
    with task_scope(TaskScope(hidden=hidden, readable=tuple(keep))):
        yield


def program_env(home: Path) -> dict[str, str]:
    """A minimal environment: no variable of the service's (keys, storage credentials) reaches it."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C"}
