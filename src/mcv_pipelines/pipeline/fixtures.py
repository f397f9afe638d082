"""Where a recipe's test fixtures may come from: inside the repository that holds the recipe.

A recipe under review in a pull request must not make `mcv test` upload a file from elsewhere on the
runner (a key in the home directory, another checkout): every fixture path is resolved, symbolic
links followed, and refused unless it lands inside the repository's root.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FixtureRefused", "repository_root", "resolve_fixture"]


class FixtureRefused(ValueError):
    """A fixture path that is missing or outside the repository; the message says which."""


def repository_root(pipeline: str | Path, explicit: str | Path | None = None) -> Path:
    """The root fixtures resolve against: ``explicit`` when given, else the nearest folder above the
    pipeline holding ``.git``, else the current folder when it holds the pipeline, else the pipeline's
    own folder."""
    if explicit is not None:
        return Path(explicit).resolve()
    here = Path(pipeline).resolve().parent
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    cwd = Path.cwd().resolve()
    return cwd if here == cwd or cwd in here.parents else here


def resolve_fixture(value: str, root: Path) -> Path:
    """``value`` (as written: relative to the root, or absolute) as a real path inside ``root``."""
    path = Path(os.path.expanduser(value))
    full = (path if path.is_absolute() else root / path).resolve()
    if full != root and root not in full.parents:
        raise FixtureRefused(f"{value} is outside the repository ({root}); fixtures must live inside it")
    if not full.is_file():
        raise FixtureRefused(f"{value} is not a file (looked for {full})")
    return full
