"""Run coroutines together; the first failure cancels the rest and is raised as itself."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

__all__ = ["all_or_first_error"]

T = TypeVar("T")


async def all_or_first_error(coros: Iterable[Coroutine[Any, Any, T]]) -> list[T]:
    """Like ``gather`` but a failure stops the others, and callers see one plain exception."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(c) for c in coros]
    except BaseExceptionGroup as grouped:
        first = grouped.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None
    return [t.result() for t in tasks]
