"""Package namespaces that import a name's module only when the name is first used.

A package ``__init__`` that imports every module makes ``import mcv_pipelines.catalog.index`` (all
``mcv validate`` needs) pay for the pull, diff and plan modules too (issue 15). With ``lazy_exports``
the package lists where each public name lives and Python's module ``__getattr__`` (PEP 562) imports
it on first access; ``from package import name`` and ``import *`` work as before.

>>> getattr_ = lazy_exports("json", {"JSONDecoder": "decoder"})
>>> getattr_("JSONDecoder").__module__
'json.decoder'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``homes`` maps each public name to its submodule."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            # AttributeError (not ImportError) lets `from package import submodule` import the module.
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{home}"), name)

    return __getattr__
