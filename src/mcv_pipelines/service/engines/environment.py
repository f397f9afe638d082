"""The environment of every program an engine starts, built from an allow-list (issue 37).

The service holds secrets in its environment (a database URL, storage credentials, ``MCV_*``
settings); a program that converts a stranger's file must hold none of them, or one reader bug turns
``/proc/self/environ`` or an ``${ENV}`` expansion into a leak. So no program inherits the service's
environment: ``program_environment`` is the one place that says what a program gets, and every start
(``process.run_program``, the warm LibreOffice and Chromium, the seal's probes) goes through it.

A program gets:
- ``PATH`` and the locale (``LANG``, ``LANGUAGE``, ``LC_*`` by their standard names, ``TZ``) of the
  service, ``LANG=C.UTF-8`` where it sets none;
- ``HOME`` (and ``TMPDIR`` where given) of its task: what the engine passes, else /tmp (a private one
  under bubblewrap);
- what the engine itself adds (fontconfig, ImageMagick's policy, LibreOffice's or Calibre's own
  variables), given as ``own``: an engine names each variable it passes, nothing is copied wholesale.

Example::

    env = program_environment({"HOME": str(work), "MAGICK_TEMPORARY_PATH": str(work / "tmp")})
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["INHERITED", "program_environment"]

_LOCALE = ("LANG", "LANGUAGE", "LC_ALL", "LC_ADDRESS", "LC_COLLATE", "LC_CTYPE", "LC_IDENTIFICATION",
           "LC_MEASUREMENT", "LC_MESSAGES", "LC_MONETARY", "LC_NAME", "LC_NUMERIC", "LC_PAPER",
           "LC_TELEPHONE", "LC_TIME", "TZ")  # fmt: skip
# The only variables a program takes from the service: where programs are, and how text is read.
INHERITED: tuple[str, ...] = ("PATH", *_LOCALE)
_DEFAULTS = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}  # noqa: S108 - private under bwrap


def program_environment(own: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allow-listed variables of the service, defaults for what it lacks, then ``own`` on top."""
    env = {name: os.environ[name] for name in INHERITED if os.environ.get(name)}
    for name, value in _DEFAULTS.items():
        env.setdefault(name, value)
    if own:
        env.update(own)
    return env
