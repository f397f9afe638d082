"""A starter: one program's process before it is that program (issue 37); run by starter.py only.

    python -I -S starter_main.py CONTROL_FD SYSTEM_RULES_JSON

Started ahead of time, it builds the Landlock ruleset of the system's trees and the seccomp filter,
then waits on its control socket for one request (JSON: argv, env, cwd, the task's rules or null for
no task, the limits). It sets the limits, adds the task's rules, restricts itself, installs the
filter and becomes the program (execve, same pid): the service's Popen of the starter is the
program's. The control socket closes on exec; a failure is told on it instead, and the starter exits.

It imports only landlock.py and seccomp.py beside it (the standard library otherwise), so it starts
without the package: about 25 ms of CPU, spent before a program needs it.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcv_pipelines.service.engines import landlock, seccomp
else:  # beside this file, not the package (see above)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import landlock
    import seccomp


def main() -> int:
    control = socket.socket(fileno=int(sys.argv[1]))
    control.set_inheritable(False)  # closes on exec: the service reads that as "started"
    try:
        files = landlock.Builder(files=True)
        ruleset = files.create()
        files.add(ruleset, [(path, int(rights)) for path, rights in json.loads(sys.argv[2])])
        program = seccomp.filter_program()
        if program is None:
            raise OSError("seccomp: no filter for this architecture")
        install = seccomp.Installer(program)
    except OSError as exc:
        return _fail(control, exc)
    request = control.recv(1 << 20)
    if not request:  # the service closed it: no program wanted
        return 0
    try:
        asked = json.loads(request)
        for which, soft, hard in asked["limits"]:
            resource.setrlimit(which, (soft, hard))
        if asked["cwd"] is not None:
            os.chdir(asked["cwd"])
        if asked["rules"] is None:  # no task: the file system as it is, only the network taken away
            os.close(ruleset)
            files = landlock.Builder(files=False)
            ruleset = files.create()
        else:
            files.add(ruleset, [(path, int(rights)) for path, rights in asked["rules"]])
        files.restrict(ruleset)
        install()
        os.execvpe(asked["argv"][0], asked["argv"], asked["env"])  # noqa: S606 - argv, no shell
    except OSError as exc:  # execvpe returns only by raising
        return _fail(control, exc)


def _fail(control: socket.socket, exc: OSError) -> int:
    with contextlib.suppress(OSError):
        control.send(json.dumps({"errno": exc.errno or 0, "message": exc.strerror or str(exc)}).encode())
    return 127


if __name__ == "__main__":
    raise SystemExit(main())
