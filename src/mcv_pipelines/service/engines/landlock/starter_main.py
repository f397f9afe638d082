"""The starter: a small process that makes the service's sealed programs (issue 37); starter.py runs it.

    python -I -S starter_main.py CONTROL_FD SYSTEM_RULES_JSON SERVICE_PID

It builds the Landlock ruleset of the system's trees and the seccomp filter ahead of each request,
then waits on its control socket. A request (JSON: argv, env, cwd, the task's rules or null for no
task, the limits; with the program's stdin, stdout, stderr and an error pipe as SCM_RIGHTS) gets a
clone with CLONE_PARENT: the new process is the *service's* child, so the service's Popen of it waits,
kills and reads it as any other. The clone makes its own session, asks SIGKILL when the service ends
(``PR_SET_PDEATHSIG``, kept across exec: the starter too has it), takes its descriptors, sets the
limits, adds the task's rules, restricts itself, drops its capabilities, installs the filter and
executes the program; a failure is written to the error pipe (``errno-in-hex:message``), whose
closing on exec tells success. The starter answers the clone's pid and builds the next ruleset.

It holds a few MB (a fork of it is cheap, unlike one of the service) and imports only ruleset.py,
privileges.py and seccomp.py beside it, not the package.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import platform
import resource
import select
import signal
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcv_pipelines.service.engines.landlock import privileges, ruleset, seccomp
else:  # beside this file, not the package (see above)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import privileges
    import ruleset
    import seccomp

_CLONE = {"x86_64": 56, "aarch64": 220}
_CLONE_PARENT = 0x00008000
_SIGCHLD = 17
_FDS = 4  # stdin, stdout, stderr, the error pipe
_HEAD_START = 0.05
_PR_SET_PDEATHSIG = 1


def _die_with_service(prctl: Any, service: int) -> None:
    """SIGKILL for this process when the service's launcher thread (its parent's) ends; at once if it
    ended already. A clone of CLONE_PARENT has the starter's parent, so the same holds for it."""
    prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != service:
        os._exit(1)


def main() -> int:
    control = socket.socket(fileno=int(sys.argv[1]))
    control.set_inheritable(False)
    system = [(path, int(rights)) for path, rights in json.loads(sys.argv[2])]
    libc = ctypes.CDLL(None, use_errno=True)
    service = int(sys.argv[3])
    _die_with_service(libc.prctl, service)
    clone = libc.syscall
    clone.restype = ctypes.c_long
    number = _CLONE[platform.machine()]
    program = seccomp.filter_program()
    if program is None:
        return 2
    filters, drop = seccomp.Installer(program), privileges.dropper()

    def install() -> None:
        drop()
        filters()

    files, unhandled = ruleset.Builder(files=True), ruleset.Builder(files=False)
    while True:
        # The next program's ruleset, built once the last one has had a moment to start: on two
        # busy cores building it beside a starting program made that program 5 ms later.
        select.select([control], [], [], _HEAD_START)
        prepared = files.create()
        files.add(prepared, system)
        try:
            request, fds, _, _ = socket.recv_fds(control, 1 << 20, _FDS, socket.MSG_CMSG_CLOEXEC)
        except OSError:
            return 0
        for fd in fds:  # recv_fds drops its flags (MSG_CMSG_CLOEXEC): only 0, 1 and 2 may reach the program
            os.set_inheritable(fd, False)
        if not request:
            return 0
        if len(fds) != _FDS:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"errno": 22, "message": "descriptors missing"}).encode())
            continue
        pid = clone(number, ctypes.c_ulong(_CLONE_PARENT | _SIGCHLD), None, None, None, None)
        if pid == 0:
            _die_with_service(libc.prctl, service)
            _become(json.loads(request), fds, prepared, files, unhandled, install)
        for fd in (*fds, prepared):
            os.close(fd)
        answer = {"pid": pid} if pid > 0 else {"errno": ctypes.get_errno(), "message": "clone failed"}
        control.send(json.dumps(answer).encode())


def _become(
    asked: dict[str, Any],  # the service's request, decoded from JSON
    fds: list[int],
    ruleset: int,
    files: ruleset.Builder,
    unhandled: ruleset.Builder,
    install: Callable[[], None],
) -> None:
    """In the clone: become the program, or tell why not on the error pipe and exit."""
    error = fds[3]
    try:
        for number in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores them; exec would keep that
            signal.signal(number, signal.SIG_DFL)
        os.setsid()
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)  # inheritable: the program's own
        for which, soft, hard in asked["limits"]:
            resource.setrlimit(which, (soft, hard))
        if asked["cwd"] is not None:
            os.chdir(str(asked["cwd"]))
        if asked["rules"] is None:  # no task: the file system as it is, only the network taken away
            os.close(ruleset)
            files, ruleset = unhandled, unhandled.create()
        else:
            files.add(ruleset, [(path, int(rights)) for path, rights in asked["rules"]])
        files.restrict(ruleset)
        install()
        argv = [str(part) for part in asked["argv"]]
        os.execvpe(argv[0], argv, asked["env"])  # noqa: S606 - an argv, no shell
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.write(error, f"{exc.errno or 0:x}:{exc.strerror or exc}".encode())
    except BaseException as exc:  # whatever it is, the clone must not go on as a starter
        with contextlib.suppress(OSError):
            os.write(error, f"0:{type(exc).__name__}: {exc}".encode())
    os._exit(127)


if __name__ == "__main__":
    raise SystemExit(main())
