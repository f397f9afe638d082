"""Reporters: one diagnostics list, printed as text, json, github annotations, junit, sarif or a GitLab
Code Quality report.

Chosen from the table ``REPORTERS`` by ``--format``; ``render_report`` masks secrets in every one.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.redact import redact
from mcv_pipelines.reporters import github, gitlab, json_report, junit, sarif, text
from mcv_pipelines.reporters.summary import Reporter, summary

__all__ = ["REPORTERS", "REPORTER_NAMES", "Reporter", "render_report", "summary"]

REPORTERS: dict[str, Reporter] = {
    "text": text.report,
    "json": json_report.report,
    "github": github.report,
    "junit": junit.report,
    "sarif": sarif.report,
    "gitlab": gitlab.report,
}
REPORTER_NAMES = tuple(REPORTERS)


def render_report(fmt: str, diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    """The report in format ``fmt`` with every registered secret shown as ``***``."""
    return redact(REPORTERS[fmt](diagnostics, files))
