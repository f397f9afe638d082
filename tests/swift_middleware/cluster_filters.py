"""WSGI filters for the test Swift proxy, loaded by Debian's swift-proxy-server from this directory.

``revoked_tokens``: a request whose X-Auth-Token is listed in the ``revoked_file`` is refused 401, as
Swift's Keystone middleware refuses a token that has ended; requests without a token (the tests' own
set-up) pass. It stands in for keystonemiddleware's token check only.

``own_constraints``: Swift reads its constraints (``max_file_size``, ...) from /etc/swift/swift.conf
when it is imported, before the proxy's ``swift_dir`` is known; this reads them again from the test
cluster's own swift.conf and says them at ``/info``, as a cluster configured in /etc/swift would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

App = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def revoked_tokens(global_conf: dict[str, str], **local_conf: str) -> Callable[[App], App]:
    revoked = Path(local_conf["revoked_file"])

    def make(app: App) -> App:
        def check(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            token = environ.get("HTTP_X_AUTH_TOKEN")
            if token and revoked.exists() and token in revoked.read_text().split():
                start_response("401 Unauthorized", [("Content-Length", "0")])
                return [b""]
            return app(environ, start_response)

        return check

    return make


def own_constraints(global_conf: dict[str, str], **local_conf: str) -> Callable[[App], App]:
    def make(app: App) -> App:
        from swift.common import constraints, utils  # Swift's own modules, in its interpreter

        utils.set_swift_dir(global_conf.get("swift_dir") or local_conf.get("swift_dir"))
        constraints.reload_constraints()
        utils.register_swift_info("swift", **constraints.EFFECTIVE_CONSTRAINTS)
        return app

    return make
