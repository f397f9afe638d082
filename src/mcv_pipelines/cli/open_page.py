"""`mcv run --open`: show the run's job page of the web console in a browser, when there is a display.

An event sink: on the run's first ``submitted`` (or ``reconciled``) event it opens
``<base URL>/console/#/job/<id>``. The key never goes into that address: the console asks for it
(the embedded service's key is in its data directory's ``api-key`` file). Without a display (a CI
job, an SSH session) it opens nothing and says where the page is.
"""

from __future__ import annotations

import os
import sys
import webbrowser
from collections.abc import Callable, Mapping
from typing import IO, Any

__all__ = ["JobPageOpener", "console_url", "has_display"]


def console_url(base_url: str, job_id: str | None = None) -> str:
    """The console's address on a service, or one job's page there."""
    url = f"{base_url.rstrip('/')}/console/"
    return f"{url}#/job/{job_id}" if job_id else url


def has_display(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether a browser can be shown: always on macOS and Windows, else with an X11 or Wayland display."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform in ("darwin", "win32"):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


class JobPageOpener:
    """Opens the job page once the job exists; ``open`` is webbrowser.open (tests give their own).

    ``base_url`` None is the hosted service of the public SDKs, which has no such console.
    """

    def __init__(
        self,
        base_url: str | None,
        *,
        stream: IO[str] | None = None,
        display: bool | None = None,
        open: Callable[[str], bool] = webbrowser.open,
    ) -> None:
        self.base_url = base_url
        self.stream = stream or sys.stderr
        self.display = has_display() if display is None else display
        self.opener = open
        self.opened = False

    def emit(self, kind: str, /, **data: Any) -> None:
        if self.opened or kind not in ("submitted", "reconciled") or not data.get("job_id"):
            return
        self.opened = True
        if self.base_url is None:
            print(
                "mcv: --open: the hosted service has no console of ours; it is served by `mcv serve` "
                "and the embedded service",
                file=self.stream,
            )
            return
        url = console_url(self.base_url, str(data["job_id"]))
        if self.display and self.opener(url):
            print(f"mcv: opened the job page {url} (log in there with your API key)", file=self.stream)
        else:
            print(
                f"mcv: --open: no browser could be shown here; the job page is {url}",
                file=self.stream,
            )
