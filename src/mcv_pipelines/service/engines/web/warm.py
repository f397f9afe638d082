"""One Chromium kept running per worker process, a fresh browser context per task (issue 24).

Starting Chromium costs more than most captures (a cold ``--print-to-pdf`` of a loopback page takes
about half a second), so the engine keeps one browser and gives each task its own browser context
(``Target.createBrowserContext``): no cookies, cache, storage or service workers shared between
tasks; the context is disposed when the task ends, which closes its renderers.

The browser is started on first use and replaced when it died, or when it grew past
``memory_bound`` of resident memory (all its processes): a browser past the bound takes no new task
and is closed once its running tasks are done. Between tasks it must stay small: the window a
headless Chromium opens at start (a new-tab page and the omnibox's own pages, two renderers of some
140 MB each) is closed, and a browser past ``idle_memory_bound`` with no task for ``idle_check_seconds`` is
closed (the next task starts a fresh one), so what it kept from past pages is given back. A task that
overruns its deadline loses its context; a browser that does not even answer the disposal is
killed, never the service.

Every request of a task's page, and of the frames and workers it starts (auto-attached, paused
until they are guarded too), is decided by the task's ``RequestPolicy`` (request_guard.py). A
guarded task's context then reaches the network only through a pinning proxy holding the same
guard (pinning_proxy.py): the address the proxy checked is the address dialled, so a name that
resolves again differently gets nowhere. The proxy is the task's own (started with its context,
closed with it): what it refuses is told to the task's policy, and no connection of a task outlives
the task.

The browser does not outlive the service (issue 37): it is started from the service's launcher
thread with a parent-death signal (launcher.py), under bubblewrap in a PID namespace of its own that
ends with it, with an environment of its own (environment.py); its profile and singleton socket are
swept by the next browser of a service killed outright (leftovers.py). Under the landlock seal (no
namespaces) Landlock keeps its file system to the system's trees read-only and its profile (also its
TMPDIR); its TCP is left to the guard and the proxies, whose ports each task picks.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.environment import program_environment
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.leftovers import HeldDirectory, sweep
from mcv_pipelines.service.engines.seal import networked_argv, seal_method
from mcv_pipelines.service.engines.web.dead_end import proxy_flags, websocket_rule
from mcv_pipelines.service.engines.web.devtools_pipe import DevToolsPipe, Message
from mcv_pipelines.service.engines.web.pinning_proxy import PinningProxy
from mcv_pipelines.service.engines.web.request_guard import RequestPolicy

__all__ = ["DEFAULT_IDLE_MEMORY_BOUND", "DEFAULT_MEMORY_BOUND", "Page", "WarmBrowser"]

DEFAULT_MEMORY_BOUND = 1024**3
# A warm browser with no page holds some 100-140 MB (proportional set size, Debian's headless shell;
# about 260 MB for the full chromium; bench/memory.py).
DEFAULT_IDLE_MEMORY_BOUND = 384 * 1024**2
MEMORY_CHECK_SECONDS = 5.0
_ALL_REQUESTS = {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}
_AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
_PREFERENCES = {"net": {"network_prediction_options": 2}, "dns_prefetching": {"enabled": False}}
_WORKERS = [{"type": "service_worker"}, {"type": "shared_worker"}]
_PREFIX = "mcv-chromium-"


def _singleton_files(profile: Path) -> list[Path]:
    """Chromium's singleton socket directory outside the profile (in /tmp, where no seal hides it)."""
    target = profile / "SingletonSocket"
    try:
        directory = Path(os.readlink(target)).parent
    except OSError:
        return []
    return [directory] if directory.name.startswith(".org.chromium.") else []


@dataclass
class Page:
    """A task's page: its DevTools ``session`` on ``browser``, and its queue of events."""

    browser: DevToolsPipe
    session: str
    deadline: float
    cancelled: threading.Event

    def call(self, method: str, params: Message | None = None) -> Message:
        return self.browser.call(method, params, self.session, self.deadline, self.cancelled)

    def wait_event(self, method: str, until: float) -> bool:
        """Wait for ``method`` on this page until the monotonic ``until``; False if it did not come."""
        return self.wait_until(lambda event: event.get("method") == method, method, until)

    def wait_loaded(self, frame: str, until: float) -> bool:
        """Wait until the document just navigated to in ``frame`` (the top frame) is done loading.

        That is its load event, or the frame stopping without one: a page that starts leaving before
        it has loaded (``location = ...`` run at once) has its load abandoned, and when the leaving is
        refused (the page stays) no load event ever comes; waiting for one cost every such page 30 s.
        """
        committed = False

        def done(event: Message) -> bool:
            nonlocal committed
            method, params = event.get("method"), event.get("params") or {}
            if method == "Page.loadEventFired":
                return True
            if method == "Page.frameNavigated" and (params.get("frame") or {}).get("id") == frame:
                committed = True  # a stop before this one was the blank page's, not the document's
            return committed and method == "Page.frameStoppedLoading" and params.get("frameId") == frame

        return self.wait_until(done, "the page to load", until)

    def wait_until(self, done: Callable[[Message], bool], what: str, until: float) -> bool:
        """Wait for an event of this page that is ``done`` until the monotonic ``until``; False if none."""
        events = self.browser.events(self.session)
        while True:
            if self.cancelled.is_set():
                raise EngineError("CANCELLED", f"waiting for {what} was cancelled")
            left = min(until, self.deadline) - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(Exception):
                if done(events.get(timeout=min(left, 0.2))):
                    return True
            if not self.browser.alive:
                raise EngineError("CONVERSION_FAILED", f"Chromium ended unexpectedly waiting for {what}")


class _Running:
    """One started browser, its profile and who uses it."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.held = HeldDirectory.make(_PREFIX)
        self.profile = self.held.path
        # No preconnecting or prefetching: a connection the request guard never saw (issue 24).
        (self.profile / "Default").mkdir()
        (self.profile / "Default" / "Preferences").write_text(json.dumps(_PREFERENCES))
        self.policies: dict[str, RequestPolicy] = {}  # by DevTools session
        self.context_policies: dict[str, RequestPolicy] = {}  # by browser context (service workers)
        self.in_flight = 0
        self.tasks = 0  # tasks given this browser so far
        self.idle_timer: threading.Timer | None = None  # the idle memory check (WarmBrowser._release)
        self.retired = False
        self.checked = time.monotonic()
        handlers = {"Fetch.requestPaused": self._paused, "Target.attachedToTarget": self._attached}
        try:
            # WebSockets escape the Fetch domain: they go to a proxy that drops them (dead_end.py).
            flags = [*argv, *proxy_flags(), f"--user-data-dir={self.profile}"]
            method = seal_method()
            own = {"HOME": str(self.profile)}
            sealing = None
            if method == "landlock":  # no namespaces: Landlock keeps it to the system and its profile
                program = shutil.which(flags[0]) or flags[0]
                sealing = landlock_rules.files_only(program, [self.profile])
                own["TMPDIR"] = str(self.profile)  # its shared memory too (--disable-dev-shm-usage)
            env = program_environment(own)
            self.pipe = DevToolsPipe(networked_argv(flags, [self.profile], method), handlers, env, sealing)
        except EngineError:
            self.held.remove()
            raise
        # Service and shared workers belong to no page: the browser's own auto-attach catches them.
        try:
            deadline = time.monotonic() + 60
            self.pipe.call("Target.setAutoAttach", {**_AUTO_ATTACH, "filter": _WORKERS}, None, deadline)
            self._close_start_window(deadline)
        except EngineError:
            self.close()
            raise

    def _close_start_window(self, deadline: float) -> None:
        """Close what the browser opened by itself: each task brings its own context and page."""
        found = self.pipe.call("Target.getTargets", {}, None, deadline).get("targetInfos", [])
        for target in found:
            if target.get("type") == "page":  # its window goes with it, and the omnibox pages too
                self.pipe.call("Target.closeTarget", {"targetId": target["targetId"]}, None, deadline)

    def _paused(self, event: Message) -> None:
        params = event.get("params", {})
        session = event.get("sessionId")
        policy = self.policies.get(str(session))
        request_id = str(params.get("requestId"))
        url = str(params.get("request", {}).get("url", ""))
        if policy is None:  # a target of no task (or of one that ended): nothing goes out
            self.pipe.call("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"},
                           session, time.monotonic() + 10)  # fmt: skip
            return
        kind, frame = str(params.get("resourceType", "")), str(params.get("frameId", ""))
        decision = policy.decide(request_id, url, kind, frame, str(params.get("redirectedRequestId") or ""))
        self.pipe.call(decision.method, decision.params, session, time.monotonic() + 10)

    def _attached(self, event: Message) -> None:
        """A frame or worker of a task's page: guard it like the page before it runs."""
        params = event.get("params", {})
        child = str(params.get("sessionId"))
        if event.get("sessionId"):
            policy = self.policies.get(str(event["sessionId"]))
        else:
            policy = self.context_policies.get(str(params.get("targetInfo", {}).get("browserContextId")))
        deadline = time.monotonic() + 10
        if policy is None:
            with contextlib.suppress(EngineError):
                self.pipe.call("Target.detachFromTarget", {"sessionId": child}, None, deadline)
            return
        self.policies[child] = policy
        self.pipe.call("Fetch.enable", _ALL_REQUESTS, child, deadline)
        with contextlib.suppress(EngineError):  # a worker has no frames to auto-attach
            self.pipe.call("Target.setAutoAttach", _AUTO_ATTACH, child, deadline)
        self.pipe.call("Runtime.runIfWaitingForDebugger", {}, child, deadline)

    @staticmethod
    def context_parameters(proxy: PinningProxy | None) -> Message:
        """``Target.createBrowserContext`` parameters: through ``proxy`` when the task is guarded."""
        if proxy is None:  # an unguarded service: the browser's own rules (direct, no WebSocket)
            return {"disposeOnDetach": True}
        return {
            "disposeOnDetach": True,
            "proxyServer": f"http={proxy.address};https={proxy.address};{websocket_rule()}",
            "proxyBypassList": "<-loopback>",  # loopback goes through the proxy too
        }

    def resident_memory(self) -> int:
        """Bytes of RAM the browser's processes (its process group) hold: their proportional set
        size, so the libraries and memory they share count once, not once per process."""
        group, total = self.pipe.process.pid, 0
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                if int(fields[2]) == group:  # pgrp, the 5th field; 0-based after the command
                    total += _proportional_size(entry.name)
        return total

    def close(self) -> None:
        if self.idle_timer is not None:
            self.idle_timer.cancel()
        self.pipe.close()
        for extra in _singleton_files(self.profile):
            shutil.rmtree(extra, ignore_errors=True)
        self.held.remove()


def _proportional_size(pid: str) -> int:
    with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
        for line in handle:
            if line.startswith(b"Pss:"):
                return int(line.split()[1]) * 1024
    return 0


class WarmBrowser:
    """Hands out pages in fresh contexts of one long-running Chromium; see the module docstring."""

    def __init__(
        self,
        argv: Sequence[str],
        memory_bound: int = DEFAULT_MEMORY_BOUND,
        idle_memory_bound: int = DEFAULT_IDLE_MEMORY_BOUND,
    ) -> None:
        self.argv = list(argv)
        self.memory_bound = memory_bound
        self.idle_memory_bound = idle_memory_bound
        self.memory_check_seconds = MEMORY_CHECK_SECONDS  # a /proc walk: not before every task
        self.idle_check_seconds = MEMORY_CHECK_SECONDS  # after its last task, how soon it is measured
        self.starts = 0  # browsers started so far (tests and the bench read it)
        self._lock = threading.Lock()
        self._current: _Running | None = None
        sweep(_PREFIX, _singleton_files)  # what a service killed outright left behind

    def _acquire(self) -> _Running:
        with self._lock:
            running = self._current
            if running is not None and not running.pipe.alive:
                self._retire(running)
                running = None
            elif running is not None and time.monotonic() - running.checked >= self.memory_check_seconds:
                running.checked = time.monotonic()
                if running.resident_memory() > self.memory_bound:
                    self._retire(running)
                    running = None
            if running is None:
                running = self._current = _Running(self.argv)
                self.starts += 1
            running.in_flight += 1
            running.tasks += 1
            return running

    def _retire(self, running: _Running) -> None:
        """Takes no new task; closed now if idle, else when its last task ends (``_release``)."""
        running.retired = True
        if self._current is running:
            self._current = None
        if running.in_flight == 0:
            running.close()

    def _release(self, running: _Running) -> None:
        with self._lock:
            running.in_flight -= 1
            if running.in_flight == 0 and not running.retired:
                # Measured once the browser has settled: the renderers of a context just disposed
                # are still exiting now, and would count as if the browser kept them.
                if running.idle_timer is not None:
                    running.idle_timer.cancel()
                token = running.tasks
                running.idle_timer = threading.Timer(self.idle_check_seconds, self._check_idle,
                                                     (running, token))  # fmt: skip
                running.idle_timer.daemon = True
                running.idle_timer.start()
            if running.retired and running.in_flight == 0:
                running.close()

    def _check_idle(self, running: _Running, token: int) -> None:
        """Close ``running`` if it is still idle since its task ``token`` and past the idle bound."""
        with self._lock:
            if running is not self._current or running.in_flight or running.tasks != token:
                return
            if running.resident_memory() > self.idle_memory_bound:
                self._retire(running)

    @contextlib.contextmanager
    def page(
        self,
        policy: RequestPolicy,
        deadline: float,
        cancelled: threading.Event,
        metrics: Message,
    ) -> Iterator[Page]:
        """A blank page in a new browser context, guarded by ``policy``, with device ``metrics``."""
        running = self._acquire()
        pipe, context, session, proxy = running.pipe, None, None, None
        try:
            if policy.guard is not None:
                proxy = PinningProxy(policy.guard, on_refused=policy.refused_at_connect)
            parameters = running.context_parameters(proxy)
            context = str(pipe.call("Target.createBrowserContext", parameters, None, deadline,
                                    cancelled)["browserContextId"])  # fmt: skip
            running.context_policies[context] = policy
            target = pipe.call("Target.createTarget", {"url": "about:blank", "browserContextId": context},
                               None, deadline, cancelled)["targetId"]  # fmt: skip
            policy.page_frame = str(target)  # a page target's id is its top frame's
            session = str(pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True}, None,
                                    deadline, cancelled)["sessionId"])  # fmt: skip
            running.policies[session] = policy
            # Hear the page's events from now on: a local document can be loaded before the caller
            # waits for its load event, and an event with no queue yet was dropped (a 30 s wait).
            pipe.events(session)
            page = Page(pipe, session, deadline, cancelled)
            page.call("Fetch.enable", _ALL_REQUESTS)
            page.call("Target.setAutoAttach", _AUTO_ATTACH)
            page.call("Page.enable")
            page.call("Emulation.setDeviceMetricsOverride", metrics)
            yield page
        finally:
            self._dispose(running, context, session, policy)
            self._release(running)
            if proxy is not None:
                proxy.close()

    def _dispose(
        self, running: _Running, context: str | None, session: str | None, policy: RequestPolicy
    ) -> None:
        for table in (running.policies, running.context_policies):
            for key in [key for key, value in table.items() if value is policy]:
                table.pop(key, None)
        if session is not None:
            running.pipe.forget(session)
        if context is None:
            return
        try:
            running.pipe.call("Target.disposeBrowserContext", {"browserContextId": context}, None,
                              time.monotonic() + 10)  # fmt: skip
        except EngineError:  # a browser that cannot even drop a context is not kept
            with self._lock:
                self._retire(running)

    def close(self) -> None:
        """Stop the browser (the service is stopping); a later task would start a new one."""
        with self._lock:
            if self._current is not None:
                self._retire(self._current)
