"""The Jinja environment pipelines are rendered in: sandboxed, strict, with path filters.

Jinja's immutable sandbox refuses attribute tricks (``''.__class__``) and calls that change data;
``*`` and ``**`` are limited here so a template cannot exhaust memory or time.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

__all__ = ["ENV", "FILTERS", "make_environment"]


def _basename(value: str) -> str:
    return posixpath.basename(str(value).rstrip("/"))


def _stem(value: str) -> str:
    name = _basename(value)
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def _suffix(value: str) -> str:
    """The extension without its dot: ``photo.JPG`` -> ``JPG``."""
    name = _basename(value)
    dot = name.rfind(".")
    return name[dot + 1 :] if dot > 0 else ""


def _dirname(value: str) -> str:
    return posixpath.dirname(str(value))


def _slug(value: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(value).lower()).strip("-")


FILTERS: dict[str, Callable[[Any], Any]] = {
    "basename": _basename,
    "stem": _stem,
    "suffix": _suffix,
    "dirname": _dirname,
    "slug": _slug,
}
_MAX_SIZE = 1_000_000


class _Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's sandbox, plus limits on ``*`` and ``**`` so a template cannot exhaust memory or time."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**":
            if isinstance(right, (int, float)) and abs(right) > 100:
                raise SecurityError("exponent too large (limit 100)")
            return left**right
        for sized, count in ((left, right), (right, left)):
            if isinstance(sized, (str, list)) and isinstance(count, int) and len(sized) * count > _MAX_SIZE:
                raise SecurityError(f"result too large (limit {_MAX_SIZE} items)")
        return left * right


def make_environment() -> jinja2.Environment:
    """The one sandboxed, strict environment every pipeline template is compiled in."""
    env = _Sandbox(undefined=jinja2.StrictUndefined, autoescape=False)
    env.filters.update(FILTERS)
    return env


ENV = make_environment()
