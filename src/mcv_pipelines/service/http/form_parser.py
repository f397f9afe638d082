"""A push parser of multipart/form-data bodies (RFC 7578, framed as RFC 2046 says), for the upload form.

The body is fed in pieces as it arrives (``write``); the parser tells its listener where each part
begins (with the part's headers), hands over the part's bytes as they come, and says where it ends.
Only the delimiter's search runs per byte, and it runs in C (``bytearray.find``): a part's bytes are
passed on as whole runs, never looked at one by one, and at most a delimiter's length of them is held
back between two writes (it may be the start of the next delimiter). Memory stays flat whatever the
file's size.

The framing it holds a body to, and the ValueError it raises otherwise (the upload answers 422):

- the preamble before the first delimiter and the epilogue after the closing one are ignored;
- a delimiter is ``CRLF--boundary``, then optional spaces or tabs (transport padding), then CRLF (a
  part follows) or ``--`` (the body ends); anything else means the boundary occurs in a part's
  content, which RFC 2046 forbids the sender;
- a part's headers end at an empty line and hold at most ``HEADER_LIMIT`` bytes, each line a
  ``name: value`` (a line starting with a space or tab continues the previous value);
- ``finalize`` refuses a body that ended before its closing delimiter.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["HEADER_LIMIT", "FormListener", "FormParser", "MultipartError"]

HEADER_LIMIT = 16 * 1024  # bytes of one part's header block
_PADDING_LIMIT = 1024


class MultipartError(ValueError):
    """The body is not multipart/form-data as its boundary frames it."""


class FormListener(Protocol):
    def part_begin(self, headers: dict[bytes, bytes]) -> None:
        """A part begins; ``headers`` by lower-case name."""

    def part_data(self, data: bytes) -> None:
        """The part's next bytes (never empty)."""

    def part_end(self) -> None:
        """The part's last bytes were handed over."""


class FormParser:
    """Feeds ``listener`` from the pieces of one body whose boundary is ``boundary``."""

    def __init__(self, boundary: bytes, listener: FormListener) -> None:
        if not 1 <= len(boundary) <= 200:  # RFC 2046: 1 to 70 characters; some senders use more
            raise MultipartError("the boundary must be 1 to 200 characters long")
        self._delimiter = b"\r\n--" + boundary
        # a body starts with "--boundary": a line break in front makes that a delimiter like the rest
        self._buffer = bytearray(b"\r\n")
        self._state = "preamble"
        self._listener = listener

    @property
    def done(self) -> bool:
        """The closing delimiter has been read."""
        return self._state == "done"

    def write(self, data: bytes) -> None:
        if self._state == "done":
            return  # the epilogue
        self._buffer += data
        while self._step():
            pass

    def finalize(self) -> None:
        """The body has ended: raise MultipartError unless it ended as a multipart body should."""
        if self._state != "done":
            raise MultipartError("the body ended before its closing boundary")

    def _step(self) -> bool:
        """One move of the parser; False when it needs more of the body."""
        buffer, delimiter = self._buffer, self._delimiter
        state = self._state
        if state == "data":
            found = buffer.find(delimiter)
            if found < 0:
                held = len(delimiter) - 1  # may be the start of a delimiter that the next write ends
                if len(buffer) > held:
                    self._listener.part_data(bytes(buffer[: len(buffer) - held]))
                    del buffer[: len(buffer) - held]
                return False
            if found:
                self._listener.part_data(bytes(buffer[:found]))
            del buffer[: found + len(delimiter)]
            self._listener.part_end()
            self._state = "boundary"
            return True
        if state == "preamble":
            found = buffer.find(delimiter)
            if found < 0:
                del buffer[: max(0, len(buffer) - len(delimiter) + 1)]
                return False
            del buffer[: found + len(delimiter)]
            self._state = "boundary"
            return True
        if state == "boundary":
            padding = len(buffer) - len(buffer.lstrip(b" \t"))
            if padding > _PADDING_LIMIT:
                raise MultipartError("too much padding after a boundary")
            if len(buffer) < padding + 2:
                return False
            ending = bytes(buffer[padding : padding + 2])
            if ending == b"--":
                self._state = "done"
                buffer.clear()
                return False
            if ending != b"\r\n":
                raise MultipartError("the boundary occurs inside a part, or no line break follows it")
            del buffer[: padding + 2]
            self._state = "headers"
            return True
        if state == "headers":
            if buffer.startswith(b"\r\n"):  # no headers at all
                headers: dict[bytes, bytes] = {}
                del buffer[:2]
            else:
                end = buffer.find(b"\r\n\r\n")
                if end < 0 or end > HEADER_LIMIT:
                    if len(buffer) > HEADER_LIMIT or end > HEADER_LIMIT:
                        raise MultipartError(f"a part's headers are longer than {HEADER_LIMIT} bytes")
                    return False
                headers = _headers(bytes(buffer[:end]))
                del buffer[: end + 4]
            self._state = "data"
            self._listener.part_begin(headers)
            return True
        return False  # done


def _headers(block: bytes) -> dict[bytes, bytes]:
    headers: dict[bytes, bytes] = {}
    last: bytes | None = None
    for line in block.split(b"\r\n"):
        if line[:1] in (b" ", b"\t") and last is not None:  # a folded line continues the value
            headers[last] += b" " + line.strip()
            continue
        name, colon, value = line.partition(b":")
        name = name.strip().lower()
        if not colon or not name:
            raise MultipartError("a part's header line is not 'name: value'")
        headers[name] = value.strip()
        last = name
    return headers
