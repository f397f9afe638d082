"""Schemathesis hooks (loaded by SCHEMATHESIS_HOOKS): keep every generated request on loopback.

Generated bodies carry URLs the service would fetch (import/url, capture-website), PUT to
(export/upload) or post webhooks to. Each is pointed at a closed loopback port before the request
is sent, so the service fails those tasks cleanly and nothing leaves this machine.
"""

from __future__ import annotations

from typing import Any

import schemathesis

NOWHERE = "http://127.0.0.1:9/nowhere"  # the discard port: nothing listens on loopback
_URL_KEYS = frozenset({"url", "webhook_url", "redirect", "endpoint"})


def _grounded(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: NOWHERE if key in _URL_KEYS and isinstance(item, str) and item else _grounded(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_grounded(item) for item in value]
    return value


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    if isinstance(case.body, dict | list):
        case.body = _grounded(case.body)
