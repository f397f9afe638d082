"""A passwd entry for programs that ask who runs them, where the seal hides /etc/passwd.

GNUstep's programs (The Unarchiver's ``lsar`` and ``unar``) look up the user's passwd entry while
they read an archive's dates and fail without one. Landlock hides /etc/passwd on purpose (it lists
every account of the machine), and nss-systemd makes up an entry for root alone, so as any other user
an iso or cpio was refused under Landlock. nss_wrapper (Debian's libnss-wrapper), preloaded, answers
those lookups from files of the task's own: one line for the user that runs the service, home in the
task's work directory. Where it is not installed nothing changes (the program runs as before).
"""

from __future__ import annotations

import functools
import os
import pwd
from pathlib import Path

__all__ = ["nss_wrapper", "user_entry_environment"]

_SEARCHED = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib")


@functools.cache
def nss_wrapper() -> str | None:
    """The nss_wrapper library to preload, None where it is not installed."""
    for directory in _SEARCHED:
        path = Path(directory) / "libnss_wrapper.so"
        if path.is_file():
            return str(path)
    return None


def user_entry_environment(work_dir: Path) -> dict[str, str]:
    """The variables that give a program a passwd and group entry of the current user (files written
    in ``work_dir``), or none where nss_wrapper is not installed."""
    library = nss_wrapper()
    if library is None:
        return {}
    uid, gid = os.geteuid(), os.getegid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:  # a container's user without an entry: any name will do
        name = f"user{uid}"
    work_dir.mkdir(parents=True, exist_ok=True)
    passwd, group = work_dir / ".mcv-passwd", work_dir / ".mcv-group"
    passwd.write_text(f"{name}:x:{uid}:{gid}::{work_dir}:/bin/false\n")
    group.write_text(f"{name}:x:{gid}:\n")
    return {"LD_PRELOAD": library, "NSS_WRAPPER_PASSWD": str(passwd), "NSS_WRAPPER_GROUP": str(group)}
