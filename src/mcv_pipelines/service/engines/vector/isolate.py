"""Copying a task's one input alone into a fresh scratch directory before a program reads it.

librsvg loads an SVG's external images only from the SVG's own directory (and below it); a directory
that holds nothing but the input leaves ``href="passwd"`` or ``file:///etc/passwd`` nothing to find.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineRequest
from mcv_pipelines.service.engines.naming import single_input

__all__ = ["isolated_input"]


def isolated_input(request: EngineRequest, folder: str) -> Path:
    """The task's input, copied as ``input.<format>`` into ``work_dir/<folder>/``, a directory of its own."""
    source = single_input(request)
    alone = request.work_dir / folder
    alone.mkdir(parents=True, exist_ok=True)
    copy = alone / f"input.{request.input_format}"
    shutil.copyfile(source, copy)
    return copy
