"""What a sealed program sees of the machine under bubblewrap (issue 37): the system, not the host.

The seal once bound the whole host read-only (``--ro-bind / /``): a converter told to read a file it
was not given (Calibre following a docx's linked picture to ``file:///etc/passwd``) read it, and as
root /etc/shadow and /root too. The view is built instead from:

- /usr read-only, and what links into it as on the host (/bin, /sbin, /lib, /lib64: merged-usr
  symlinks on current Debian, bound where they are real directories);
- a copy of the few files of /etc that programs read (``ETC``: fonts, certificates, the loader's
  cache, mime types, time zone, alternatives, the engines' own configuration such as ImageMagick's
  policy), with a passwd and group of its own holding only the running user and nobody;
- a copy of what /usr links to under /var (``VAR``: Ghostscript's CMaps, LibreOffice's registered
  extensions, fontconfig's cache);
- where a program lives outside /usr (/opt, a Python of its own), that program's tree, read-only.

Not /root, /home, /srv, the rest of /var or /etc, the host's /tmp, the service's data directory or
another task: the seal adds the task's inputs, work and output directories on top (seal.py).

The copies are made once per process into a private directory and bound whole: each bind costs
bubblewrap half a millisecond (it reads the mount table again), so one bind for /etc and one for
/var instead of one per file (bench/seal.py). They are a snapshot: a change to ImageMagick's policy
or the certificates takes a restart of the service. Where a task's own directory lies under one of
these trees (a data directory under /var), that tree is built from its children instead, so the
task's directory can be made inside it.

A process removes its copies as it exits; one killed (``kill -9``, the OOM killer) cannot, so each
copy holds a lock (``.held``, flock) for as long as its process runs, and the next process to make
its own removes every copy whose lock nobody holds: a machine whose service restarts after kills does
not fill its temporary directory with them (5 MB each).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import os
import pwd
import shutil
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["ETC", "NETWORK_ETC", "VAR", "in_view", "program_tree", "view_args"]

# Patterns under /etc: what the engines' programs and their libraries read.
ETC = (
    "alternatives", "fonts", "ssl/certs", "ssl/openssl.cnf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
    "mime.types", "localtime", "timezone", "locale.alias", "os-release", "papersize", "libpaper.d", "magic",
    "magic.mime", "ImageMagick-*", "GraphicsMagick*", "ghostscript", "libreoffice", "python3*",
    "chromium", "chromium.d", "X11/rgb.txt", "nsswitch.conf",
)  # fmt: skip
# Name resolution, for the one program that has the network (Chromium, behind the request guard).
NETWORK_ETC = ("hosts", "host.conf", "gai.conf", "resolv.conf", "services", "protocols")
# Under /var: what files under /usr link to.
VAR = ("lib/ghostscript", "lib/libreoffice", "spool/libreoffice", "cache/fontconfig")
_MERGED = ("bin", "sbin", "lib", "lib64", "lib32", "libx32")
_USR = Path("/usr")
_PREFIX = "mcv-system-view-"
_HELD = ".held"  # flock'ed by the process whose copy it is, for as long as it runs


class _Copies:
    """The private copies of /etc and /var, made on first use and again if they disappear (a
    cleaner of /tmp); removed when the process that made them ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._root: Path | None = None
        self._owner = 0
        self._held = -1  # the open lock of this process's copy

    def root(self) -> Path:
        with self._lock:
            if self._root is None or not (self._root / "etc" / "passwd").exists():
                root = Path(tempfile.mkdtemp(prefix=_PREFIX))
                if self._held >= 0:
                    os.close(self._held)
                self._held = _hold(root)
                _remove_orphans(root.parent, root)
                _copy_items(Path("/etc"), root / "etc", (*ETC, *NETWORK_ETC))
                _copy_items(Path("/var"), root / "var", VAR)
                _write_accounts(root / "etc")
                if self._root is None:
                    atexit.register(self.remove)
                self._root, self._owner = root, os.getpid()
            return self._root

    def remove(self) -> None:
        if self._root is not None and self._owner == os.getpid():  # not a forked child's
            shutil.rmtree(self._root, ignore_errors=True)


_COPIES = _Copies()


def _hold(root: Path) -> int:
    """Lock a new copy as this process's: the lock file appears under its name already locked, so
    no other process can find it unheld."""
    making = root / f"{_HELD}.new"
    held = os.open(making, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    making.rename(root / _HELD)
    return held


def _remove_orphans(parent: Path, keep: Path) -> None:
    """Remove the copies under ``parent`` whose process ended without removing them: their lock is
    free. One still being made has no lock file yet, another user's cannot be opened: both left."""
    for found in parent.glob(f"{_PREFIX}*"):
        if found == keep:
            continue
        try:
            lock = os.open(found / _HELD, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # held: its process runs
        else:
            shutil.rmtree(found, ignore_errors=True)
        finally:
            os.close(lock)


def _copy_items(source_root: Path, target_root: Path, patterns: Iterable[str]) -> None:
    target_root.mkdir(parents=True, exist_ok=True)
    for pattern in patterns:
        for source in sorted(source_root.glob(pattern)):
            with contextlib.suppress(OSError):  # unreadable or gone: the program does without it
                _copy_one(source, target_root / source.relative_to(source_root))


def _copy_one(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        resolved = source.resolve()
        if resolved == _USR or _USR in resolved.parents:  # /etc/localtime: kept as the link it is
            target.symlink_to(os.readlink(source))
            return
        source = resolved  # a link elsewhere (/etc/resolv.conf into /run): its content
    if source.is_dir():
        # Links inside (certificates, fontconfig's conf.d, alternatives) point into /usr: kept as links.
        shutil.copytree(source, target, symlinks=True, ignore_dangling_symlinks=True)
    else:
        shutil.copyfile(source, target)


def _write_accounts(etc: Path) -> None:
    """A passwd and group naming only the running user (home: the seal's private /tmp) and nobody."""
    uid, gid = os.getuid(), os.getgid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = "mcv"
    users = [f"{name}:x:{uid}:{gid}::/tmp:/usr/sbin/nologin"]
    groups = [f"{name}:x:{gid}:"]
    if uid != 65534:
        users.append("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin")
    if gid != 65534:
        groups.append("nogroup:x:65534:")
    (etc / "passwd").write_text("\n".join(users) + "\n")
    (etc / "group").write_text("\n".join(groups) + "\n")


@functools.cache
def _merged_usr() -> tuple[str, ...]:
    """/bin, /lib ... as on the host: symlinks into /usr where they are, read-only binds otherwise."""
    args: list[str] = []
    for name in _MERGED:
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return tuple(args)


@functools.lru_cache(maxsize=256)
def program_tree(program: str) -> Path | None:
    """The tree a program installed outside /usr lives in (``/opt/tool`` for ``/opt/tool/bin/x``, a
    Python's prefix), for the view to show read-only; None for one under /usr. Looked up once per
    program: the seal asks for every start."""
    found = shutil.which(program)
    if found is None:
        return None
    resolved = Path(found).resolve()
    if _USR in resolved.parents:
        return None
    prefix = resolved.parent.parent
    return resolved.parent if prefix == Path("/") else prefix


def _under(path: Path | str, root: Path | str) -> bool:
    """``path`` is ``root`` or inside it (as strings: Path.parents cost the seal a millisecond)."""
    text, top = os.fspath(path), os.fspath(root).rstrip("/")
    return text == top or text.startswith(top + "/")


def in_view(path: Path, trees: Sequence[Path] = ()) -> bool:
    """Whether ``path`` is shown by the system view (with ``trees`` added): only those need hiding."""
    roots: list[Path | str] = ["/usr", "/etc", "/var", *trees]
    return any(_under(path, root) for root in roots)


def view_args(task_paths: Sequence[Path] = (), trees: Sequence[Path] = ()) -> list[str]:
    """bubblewrap's options for the system view, ``trees`` (programs' own trees) added read-only.
    ``task_paths`` are the directories and files the seal binds on top: a tree that holds one is
    built from its children, so the mount point can be made."""
    copies = _COPIES.root()
    roots = ((_USR, _USR), (copies / "etc", Path("/etc")), (copies / "var", Path("/var")))
    inside = [path for path in task_paths if any(_under(path, target) for _, target in roots)]
    if not inside:  # the usual case: made once per set of trees
        return list(_plain_view(copies, tuple(trees)))
    args = list(_merged_usr())
    for source, target in roots:
        args += _bind_tree(source, target, inside)
    return args + [item for tree in trees for item in ("--ro-bind", str(tree), str(tree))]


@functools.lru_cache(maxsize=64)
def _plain_view(copies: Path, trees: tuple[Path, ...]) -> tuple[str, ...]:
    binds = (
        (_USR, _USR),
        (copies / "etc", Path("/etc")),
        (copies / "var", Path("/var")),
        *((tree, tree) for tree in trees),
    )
    return (
        *_merged_usr(),
        *(item for source, target in binds for item in ("--ro-bind", str(source), str(target))),
    )


def _bind_tree(source: Path, target: Path, inside: Sequence[Path]) -> list[str]:
    if not any(_under(path, target) for path in inside):
        return ["--ro-bind", str(source), str(target)]
    args = ["--dir", str(target)]  # on the seal's own root: the task's mount point can be made in it
    for child in sorted(source.iterdir()):
        where = target / child.name
        if child.is_symlink():
            args += ["--symlink", os.readlink(child), str(where)]
        elif child.is_dir():
            args += _bind_tree(child, where, inside)
        else:
            args += ["--ro-bind", str(child), str(where)]
    return args
