"""The README's and the site's `install` examples run: each pip-installs the project into a fresh venv
in a copy of the checkout, as a new user does, and runs what the page says (the other examples:
test_docs_examples.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from doc_blocks import DocBlock
from docs_runner import BLOCKS, database, run_example, served
from docs_runner import _repository_untouched as _repository_untouched

__all__ = ["database", "served"]  # fixtures, used by name

INSTALL = [b for b in BLOCKS if "not-run" not in b.options and "install" in b.options]


@pytest.mark.parametrize("block", INSTALL, ids=lambda b: b.where)
def test_the_install_example_runs(
    block: DocBlock,
    tmp_path: Path,
    served: Callable[[dict[str, str]], None],
    database: Callable[[], str],
) -> None:
    run_example(block, tmp_path, served, database)


def test_the_readme_opens_with_an_install_example() -> None:
    # The README's first command is how a new user starts: it must be among those run here.
    assert INSTALL
    assert INSTALL[0].where.startswith("README.md:")
