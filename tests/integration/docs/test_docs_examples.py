"""Every shell example of the README and the documentation site runs, and does what the page says
(the `install` ones: test_docs_install_examples.py).

An example that stops working (a renamed flag, a moved file, a changed exit code) fails here, with the
page and line, the block and its output.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from doc_blocks import ROOT, DocBlock
from docs_runner import BLOCKS, NOT_RUN, database, run_example, served
from docs_runner import _repository_untouched as _repository_untouched

__all__ = ["database", "served"]  # fixtures, used by name


@pytest.mark.parametrize(
    "block",
    [b for b in BLOCKS if "not-run" not in b.options and "install" not in b.options],
    ids=lambda b: b.where,
)
def test_the_example_runs(
    block: DocBlock,
    tmp_path: Path,
    served: Callable[[dict[str, str]], None],
    database: Callable[[], str],
) -> None:
    run_example(block, tmp_path, served, database)


def test_only_the_suite_is_not_run() -> None:
    not_run = {str(b.path.relative_to(ROOT)): b.text.strip() for b in BLOCKS if "not-run" in b.options}
    assert not_run == NOT_RUN
    assert all(b.options["not-run"] for b in BLOCKS if "not-run" in b.options), "give the reason"


def test_the_pages_have_shell_examples() -> None:
    # A parser that found nothing would make the test above pass by running nothing.
    pages = {b.path for b in BLOCKS}
    assert ROOT / "README.md" in pages
    assert len(pages) >= 10
    assert len(BLOCKS) >= 25
