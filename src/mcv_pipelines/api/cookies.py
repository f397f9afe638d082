"""The client's cookie jar: httpx's, minus the work of scanning answers that set no cookie.

httpx hands every answer to its jar, which wraps request and answer in urllib shims and walks the
headers even when no ``Set-Cookie`` is there: ~6% of ``mcv batch``'s CPU per row (issue 15), for a
service that sets none. Answers that do set cookies (a load balancer's sticky session) are kept as before.
"""

from __future__ import annotations

import httpx

__all__ = ["SetCookieJar", "use_set_cookie_jar"]


class SetCookieJar(httpx.Cookies):
    def extract_cookies(self, response: httpx.Response) -> None:
        if "set-cookie" in response.headers:
            super().extract_cookies(response)


def use_set_cookie_jar(http: httpx.AsyncClient) -> None:
    """Give ``http`` a ``SetCookieJar`` holding the cookies it has (httpx's setter would copy them into
    a plain jar, hence the attribute; if a future httpx names it differently, nothing changes)."""
    if type(getattr(http, "_cookies", None)) is httpx.Cookies:
        http._cookies = SetCookieJar(http.cookies)
