"""The few ways a caller's storage fails, each with its own code, and hiding the task's secrets.

Every kind maps its store's own errors onto these, so a user reads the same codes whatever the store:

- STORAGE_ACCESS_DENIED: the credentials were refused, or do not allow the call;
- STORAGE_BUCKET_NOT_FOUND: no such bucket or container;
- STORAGE_FILE_NOT_FOUND: no such key or path (or nothing under a prefix);
- STORAGE_UNREACHABLE: the host did not answer (after the retries of transient faults);
- STORAGE_FORBIDDEN_ADDRESS: a served instance does not connect there (the import/url guard);
- STORAGE_FAILED: anything else the store answered, with its own code;
- STORAGE_CLIENT_MISSING: the kind's vendor client is not installed where the service runs (an extra).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

from mcv_pipelines.redact import MASK
from mcv_pipelines.service.engines.url_guard import ForbiddenAddress
from mcv_pipelines.service.state.tasks import TaskFailed

__all__ = [
    "ACCESS_DENIED",
    "BUCKET_NOT_FOUND",
    "CLIENT_MISSING",
    "FAILED",
    "FILE_NOT_FOUND",
    "FORBIDDEN_ADDRESS",
    "UNREACHABLE",
    "ReadAgain",
    "Secrets",
    "SendAgain",
    "forbidden_address",
]

ACCESS_DENIED = "STORAGE_ACCESS_DENIED"
BUCKET_NOT_FOUND = "STORAGE_BUCKET_NOT_FOUND"
FILE_NOT_FOUND = "STORAGE_FILE_NOT_FOUND"
UNREACHABLE = "STORAGE_UNREACHABLE"
FORBIDDEN_ADDRESS = "STORAGE_FORBIDDEN_ADDRESS"
FAILED = "STORAGE_FAILED"
CLIENT_MISSING = "STORAGE_CLIENT_MISSING"


class SendAgain(TaskFailed):
    """A write refused for a reason its store has since put right (a token that ended, renewed):
    the file may be sent again from its start, once. Its code and message are what the user reads
    if the second sending is refused too."""


class ReadAgain(TaskFailed):
    """A writer whose store lost part of what was sent, and told how much it holds: the file is read
    again from its start into the same writer, which skips what the store holds. The writer raises
    it only while its retry time allows; its code and message are what a user would read."""


class Secrets:
    """The credential values of one task, hidden from any text built while it runs: as they are,
    URL-encoded and JSON-escaped (a store may echo a signed URL or a JSON body). ``add`` hides values
    that come later (a token received)."""

    def __init__(self, values: Iterable[object]) -> None:
        self._values: set[str] = set()
        self._forms: list[str] = []
        self._lock = threading.Lock()
        self.add(*values)

    def add(self, *values: object) -> None:
        with self._lock:
            new = {value for value in values if isinstance(value, str) and len(value) >= 3} - self._values
            if not new:  # every call names its token: known ones cost no encoding
                return
            forms = set(self._forms)
            for value in new:
                forms.update({value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1]})
                for line in value.splitlines():  # a PEM key shows up a line at a time
                    if len(line.strip()) >= 8:
                        forms.add(line.strip())
            self._values |= new
            self._forms = sorted(forms, key=len, reverse=True)

    def hide(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def failed(self, code: str, message: str) -> TaskFailed:
        return TaskFailed(code, self.hide(message))


def forbidden_address(exc: ForbiddenAddress, what: str) -> TaskFailed:
    """A served instance refusing the address a caller named for ``what`` ("the S3 endpoint")."""
    return TaskFailed(
        FORBIDDEN_ADDRESS,
        f"The address of {what} is not allowed: {exc.host} resolves to a {exc.kind} address, and this "
        "service does not connect to private networks (its operator can allow a network with "
        "--allow-private-network).",
    )
