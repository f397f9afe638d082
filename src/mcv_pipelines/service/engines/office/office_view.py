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

Under the ``landlock`` seal (no namespaces: a container's default profile, Kubernetes) soffice gets
Landlock and the seccomp filter (landlock/rules.py) before it runs: the system's trees and what
LibreOffice reads under /var read-only, its process directory writable (profile, exchange, and ``run``
as its ``TMPDIR``), nothing else of the machine: not the data directory, another task, /root or the
host's /tmp. One exception: LibreOffice puts its pipes in /tmp whenever ``access("/tmp", W_OK)``
answers yes (sal's pipe.cxx), which Landlock does not answer, and the single-instance pipe's name is
fixed; so soffice may make a socket file in /tmp, and nothing else there (no read, write or removal;
the pool removes the pipes). Nor may it remove one, so it must not restart itself: a first start with
a fresh profile asks for a restart (exit 81) when the profile's ``user/extensions/buildid`` is not this
LibreOffice's, and the restarted soffice.bin found its own single-instance pipe still there and gave
up; so the profile is given that file before the first start. The bridge, which parses no document,
stays outside the seal.

Without bubblewrap soffice also keeps ``unshare --net --pid`` where it works (its capabilities,
which unshare needs, are then dropped by ``setpriv`` after it) and the exchange directory still
carries every task's files, at the same paths on both sides. Both are started by the pool from the
service's launcher thread with a parent-death signal (launcher.py), so none outlives the service;
under bubblewrap its PID namespace's init goes with it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines import proc_tree, seal, system_view
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset

__all__ = ["OfficeView"]

_INSIDE = Path("/office")
_TMP = "/tmp"  # noqa: S108 - the view's own /tmp, the run directory of this process
# The seal's namespaces and devices, --die-with-parent included (see above).
_BASE = seal.BWRAP_BASE
# Under the landlock seal: what /usr/lib/libreoffice links to under /var (extensions, their cache),
# and the directory of LibreOffice's pipes (see above).
_LANDLOCK_EXTRA = (
    ("/var/lib/libreoffice", ruleset.READ_DIR_ONLY),
    ("/var/spool/libreoffice", ruleset.READ_DIR_ONLY),
    (_TMP, ruleset.MAKE_SOCK),
)
_DROP_ALL = ("--bounding-set", "-all", "--inh-caps", "-all", "--ambient-caps", "-all")


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
        if self.landlocked:
            _skip_first_restart(self.root / "profile", argv[0])
        if not self.sealed:
            namespaces = self._namespaces()
            if namespaces and self.landlocked:  # unshare needs root's capabilities; soffice gets none
                setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
                return [*namespaces, setpriv, *_DROP_ALL, "--", *argv]
            if self.landlocked:  # no PID namespace to end soffice.bin: it is started itself
                return [_converter(argv[0]), *argv[1:]]
            return [*namespaces, *argv]
        binds = ["--bind", str(self.root), str(_INSIDE), "--bind", str(self.root / "run"), _TMP]
        return [*self._wrapper(argv[0]), *binds, "--setenv", "HOME", str(_INSIDE), "--", *argv]

    def _namespaces(self) -> tuple[str, ...]:
        """unshare's prefix for soffice, if any. Under the landlock seal, none where unshare needs a
        user namespace (a service not run as root): Landlock, set before unshare runs, keeps it from
        writing its /proc/self/uid_map, and the seccomp filter closes the network there already."""
        prefix = _no_network(self.method)
        if self.landlocked and "--map-current-user" in prefix:
            return ()
        return prefix

    @property
    def landlocked(self) -> bool:
        return self.method == "landlock"

    def office_preexec(
        self, argv: Sequence[str], first: Callable[[], None] | None
    ) -> Callable[[], None] | None:
        """soffice's ``preexec_fn``: ``first`` (its parent-death signal), then under the landlock seal
        Landlock and seccomp on its process directory (see above). ``argv`` is ``office_argv``'s."""
        if not self.landlocked:
            return first
        # Through unshare (office_argv), setpriv drops the capabilities once the namespaces are made.
        through_unshare = bool(self._namespaces())
        seal_it = landlock_rules.prepare(
            argv, (), [self.root], extra=_LANDLOCK_EXTRA, drop_capabilities=not through_unshare
        )

        def preexec() -> None:
            if first is not None:
                first()
            seal_it()

        return preexec

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        """soffice's environment: under the landlock seal its temporary files in its ``run``
        directory (under bubblewrap that directory is its /tmp already)."""
        return {**env, "TMPDIR": str(self.root / "run")} if self.landlocked else env

    def bridge_preexec(
        self, python: str, script: Path, first: Callable[[], None] | None
    ) -> Callable[[], None] | None:
        """The UNO bridge's ``preexec_fn``: ``first``, then under the landlock seal Landlock on its file
        system alone (no seccomp: it connects to soffice's pipe). It parses no document; it is sealed
        so that it sees the machine as soffice does: without /etc/passwd neither finds the user, and
        both name the pipe alike (an unsealed bridge of a user other than root looked for
        ``OSL_PIPE_<uid>_<name>`` while soffice made ``OSL_PIPE_<name>``, and the pool never started)."""
        if not self.landlocked:
            return first
        seal_it = landlock_rules.files_only(
            python, [self.root], readable=[script.parent], extra=_LANDLOCK_EXTRA[:2]
        )

        def preexec() -> None:
            if first is not None:
                first()
            seal_it()

        return preexec

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
        found = proc_tree.descendants(pid)
        named = [child for child in found if proc_tree.name(child) == "soffice.bin"]
        chosen = named or found[-1:]
        return chosen[0] if chosen else None


def _converter(soffice: str) -> str:
    """soffice.bin beside the ``soffice`` launcher, else the launcher. Under the landlock seal without
    namespaces nothing ends a child of the launcher (oosplash) when the service is killed: a SIGKILLed
    service left soffice.bin running. Started itself, soffice.bin gets the parent-death signal; the
    launcher's one other duty, starting it again when a fresh profile asks (exit 81), is spared by
    ``_skip_first_restart``."""
    found = Path(os.path.realpath(shutil.which(soffice) or soffice)).with_name("soffice.bin")
    return str(found) if os.access(found, os.X_OK) else soffice


def _skip_first_restart(profile: Path, soffice: str) -> None:
    """Write the build id a fresh profile lacks, which makes LibreOffice restart itself (see above)."""
    versionrc = Path(os.path.realpath(shutil.which(soffice) or soffice)).with_name("versionrc")
    with contextlib.suppress(OSError):
        for line in versionrc.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("buildid="):
                extensions = profile / "user" / "extensions"
                extensions.mkdir(parents=True, exist_ok=True)
                (extensions / "buildid").write_text(line.partition("=")[2], encoding="utf-8")
                return


def _no_network(method: seal.Method) -> tuple[str, ...]:
    """Without bubblewrap, soffice in network and PID namespaces of its own where unshare can make
    them: the bridge already removes LibreOffice's network content providers and this holds whatever
    it missed; the PID namespace's init dies with unshare, so soffice.bin (a child of the launcher
    oosplash, which a parent-death signal does not reach) goes with it, even on SIGKILL."""
    prefix = seal.unshare_prefix() if method != "none" else ()
    return (*prefix[:-1], "--pid", "--fork", "--kill-child", "--") if prefix else ()
