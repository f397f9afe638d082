"""No page of the docs cites an issue number: the evidence a page leans on is in the page itself, or in a
bench or test a reader can run. (The source code may name issues; docs/ is for readers who cannot
read the tracker.)"""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[3] / "docs"
# "issue 24", "issues 23 and 37", "the issue\n  24", "issue #24", "(issue", "#24" alone; not a link's own
# anchor, "[602](#602)": formats named by numbers (T602, Composer 669) have sections of their own
CITATION = re.compile(r"\bissues?\s*#?\s*\d+|\(issues?\b|(?<![\w&/#])(?<!\]\()#\d+\b", re.IGNORECASE)


def citations(text: str) -> list[str]:
    return [match.group(0) for match in CITATION.finditer(text)]


def test_the_pattern_finds_the_forms_of_a_citation() -> None:
    cited_forms = ("closing notes of issue 24.", "(`bench/seal.py`, Issue 37)", "issues 23 and 37",
                   "the issue\n  24", "see #48", "(issue: the tracker)", "Issue #7")  # fmt: skip
    for cited in cited_forms:
        assert citations(cited), cited
    for fine in ("an issue with the seal", "`#ffffff`", "[docx](#docx)", "page 3", "&#8212;", "a/#2",
                 "[602](#602)"):
        assert not citations(fine), fine


def test_no_docs_page_cites_an_issue_number() -> None:
    pages = sorted(DOCS.rglob("*.md"))
    assert len(pages) > 10
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for match in CITATION.finditer(text):  # the whole text: a citation may break across lines
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{page.relative_to(DOCS)}:{line}: {' '.join(match.group(0).split())}")
    assert found == []
