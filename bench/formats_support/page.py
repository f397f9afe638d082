"""docs/formats.md from the proof of bench/formats.py: counts, how to run the proof, then a section per
family and a subsection per input format (its outputs by engine, its options, caveats and proof).

Each input's subsection is ``### <format>``, so its anchor is what the site's Markdown (Python-Markdown's
toc, the slug of mkdocs) makes of the name: ``#docx``, ``#targz`` for tar.gz. The proof rows stay on the
page, one line per input (proof.py reads them back for ``--update``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from formats_support.caveats import caveats_for
from formats_support.families import ALIAS_REASONS, ALIASES, NOT_ALIASES, canonical, families_of, family_table
from formats_support.proof import Listed, Outcome, counts, listing_of, per_input, proof_cell

__all__ = ["input_families", "render_page", "slug", "unique", "write_page"]

TITLE = "The proven format matrix"
OPTIONS = "Options"  # the last section's heading (formats are lowercase: no format takes its key)
_IDCOUNT = re.compile(r"^(.*)_([0-9]+)$")


def slug(text: str) -> str:
    """The anchor Python-Markdown's toc extension gives a heading (its default ``slugify``)."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def unique(anchor: str, taken: set[str]) -> str:
    """``anchor``, or with ``_1``, ``_2``... when a heading before took it, as the toc extension does."""
    while anchor in taken or not anchor:
        found = _IDCOUNT.match(anchor)
        anchor = f"{found.group(1)}_{int(found.group(2)) + 1}" if found else f"{anchor}_1"
    taken.add(anchor)
    return anchor


def input_families(
    outcomes: Iterable[Outcome], listing: Mapping[tuple[str, str], Listed]
) -> dict[str, list[str]]:
    """Input format -> its families, its own first."""
    entries = listing_of(list(outcomes), listing)
    conversions: dict[str, list[tuple[str, str, list[str]]]] = {}
    for (source, target), entry in sorted(entries.items()):
        conversions.setdefault(source, []).append((entry.engine, target, entry.option_names()))
    return {source: families_of(source, rows) for source, rows in conversions.items()}


def _outputs(targets: Iterable[str], every: set[str]) -> str:
    """Some of an input's outputs, briefly ("to png, jpg"); all of them go without saying ("")."""
    chosen = set(targets)
    if chosen == every:
        return ""
    if len(chosen) <= 5:
        return "to " + ", ".join(sorted(chosen))
    if len(every - chosen) <= 5:
        return "not to " + ", ".join(sorted(every - chosen))
    return f"to {len(chosen)} of {len(every)} outputs"


def _by_engine(rows: list[Outcome], entries: Mapping[tuple[str, str], Listed]) -> list[tuple[str, list[str]]]:
    engines: dict[str, list[str]] = {}
    for o in rows:
        engines.setdefault(entries[(o.source, o.target)].engine, []).append(o.target)
    return sorted(engines.items(), key=lambda item: (-len(item[1]), item[0]))


def _via(source: str, targets: list[str], entries: Mapping[tuple[str, str], Listed]) -> str:
    """`` (via pdf, png)`` for a group of routed pairs: the formats between, as the listing's route says."""
    between: list[str] = []
    for target in targets:
        for fmt in entries[(source, target)].route.split(" -> ")[1:-1]:
            if fmt not in between:
                between.append(fmt)
    return f" (via {', '.join(between)})" if between else ""


def _options_line(
    source: str, groups: list[tuple[str, list[str]]], entries: Mapping[tuple[str, str], Listed]
) -> str:
    parts = []
    for engine, targets in groups:
        taking: dict[str, set[str]] = {}
        for target in targets:
            for name in entries[(source, target)].option_names():
                taking.setdefault(name, set()).add(target)
        scopes: dict[frozenset[str], list[str]] = {}
        for name, outs in taking.items():
            scopes.setdefault(frozenset(outs), []).append(f"`{name}`")
        every = set(targets)
        said = []
        for outs, names in sorted(scopes.items(), key=lambda item: -len(item[0])):
            scope = _outputs(outs, every)
            said.append(", ".join(names) + (f" ({scope})" if scope else ""))
        if said:
            parts.append(f"**{engine}** " + "; ".join(said))
    return "- **options**: " + (" · ".join(parts) if parts else "none")


def _proof_line(source: str, rows: list[Outcome]) -> str:
    proven = [o for o in rows if o.error is None]
    failed = [o for o in rows if o.error is not None]
    if not failed:
        # by the seconds as the page shows them: a page read back (--update) names the same pair
        slowest = max(proven, key=lambda o: (round(o.seconds, 2), o.target))
        said = f"all {len(rows)} pairs, the slowest to {slowest.target} in {slowest.seconds:.2f} s"
    else:
        said = f"{len(proven)} of {len(rows)} pairs; FAILED " + "; ".join(
            f"to {o.target} ({o.engine}): {html.escape(o.error or '')}" for o in failed
        )
    if not proven:
        return f"- **proof**: {said}"
    return f"- **proof**: {said} <details><summary>seconds per pair</summary>{proof_cell(proven)}</details>"


def render_page(outcomes: list[Outcome], listing: Mapping[tuple[str, str], Listed], machine: str) -> str:
    entries = listing_of(outcomes, listing)
    inputs = per_input(outcomes)
    families = input_families(outcomes, listing)
    table = family_table(families)
    own = {family: [f for f in formats if families[f][0] == family] for family, formats in table.items()}
    # The anchors, in the order of the headings on the page (a later equal one gets _1).
    taken: set[str] = set()
    for heading in (TITLE, "Counts", "Run the proof"):
        unique(slug(heading), taken)
    anchors: dict[str, str] = {}
    for family in table:
        anchors[family] = unique(slug(family), taken)
        for fmt in own[family]:
            anchors[fmt] = unique(slug(fmt), taken)
    anchors[OPTIONS] = unique(slug(OPTIONS), taken)

    def link(fmt: str) -> str:
        return f"[{fmt}](#{anchors[fmt]})" if fmt in inputs else fmt

    lines = [*_head(outcomes, machine, own, inputs, anchors), *_run_section()]
    for family, formats in table.items():
        mine = own[family]
        linked = [f for f in formats if f not in mine]
        pairs = [o for f in mine for o in inputs[f]]
        lines += [f"## {family}", ""]
        if mine:
            said = f"{len(mine)} input format{'s' if len(mine) > 1 else ''}, {len(pairs)} pairs"
            lines += [f"{said}: " + " · ".join(map(link, mine)), ""]
        if linked:
            lines += ["Also converted by this family's engines: " + ", ".join(map(link, linked)) + ".", ""]
        for fmt in mine:
            rows = inputs[fmt]
            groups = _by_engine(rows, entries)
            lines.append(f"### {fmt}")
            lines.append("- **to**: " + " · ".join(
                f"**{engine}**{_via(fmt, targets, entries)} " + ", ".join(link(t) for t in targets)
                for engine, targets in groups
            ))  # fmt: skip
            lines.append(_options_line(fmt, groups, entries))
            pairs_of = {o.target: entries[(fmt, o.target)].engine for o in rows}
            caveats = caveats_for(fmt, pairs_of)
            if caveats:
                lines.append("- **caveats**: " + "; ".join(
                    (f"{scope}: {text}" if (scope := _outputs(targets, set(pairs_of))) else text)
                    for text, targets in caveats
                ))  # fmt: skip
            lines += [_proof_line(fmt, rows), ""]
    lines += _options_section(entries.values())
    return "\n".join(lines).rstrip("\n") + "\n"


def write_page(
    outcomes: list[Outcome], listing: Mapping[tuple[str, str], Listed], out: Path, machine: str
) -> None:
    out.write_text(render_page(outcomes, listing, machine), encoding="utf-8")


def _head(outcomes: list[Outcome], machine: str, own: dict[str, list[str]], inputs: dict[str, list[Outcome]],
          anchors: dict[str, str]) -> list[str]:  # fmt: skip
    c = counts(outcomes)
    names = {o.source for o in outcomes} | {o.target for o in outcomes}
    read = {o.source for o in outcomes}
    aliases = sorted((a, b) for a, b in ALIASES.items() if a in names and b in names)
    apart = [(group, why) for group, why in NOT_ALIASES if sum(f in names for f in group) > 1]
    written_only = sorted(names - read)
    lines = [
        f"# {TITLE}",
        "",
        "Every `convert` pair the local service lists with every engine installed "
        "(`scripts/install-engines.sh`), run by `bench/formats.py` on a small sample and its output checked "
        "by a reader that is not the engine (a decoder, ffprobe, pdfinfo and pdftotext, a parser of the "
        "format, or its magic bytes; a text output also for the sample's word). Seconds are the job's wall "
        f"time on the machine that ran it ({machine}, shared, 2 cores). Each input format has a section "
        "you can link to (`formats.md#docx`): what it converts to, by engine; the options the listing "
        f"gives (see [Options](#{anchors[OPTIONS]})); caveats; and its proof.",
        "",
        "## Counts",
        "",
        "| | formats | names in the listing |",
        "|---|---:|---:|",
        f"| read | {c.inputs} | {c.input_names} |",
        f"| written | {c.outputs} | {c.output_names} |",
        "",
        f"- convert pairs listed: {c.pairs}; proven: {c.proven}; failed: {c.failed}",
        f"- of them routed, one task through two or three engines (named `a+b`, the formats between in "
        f"brackets): {sum('+' in o.engine for o in outcomes)}; which pairs are routed and why: "
        "[Routes](explanation/routes.md)",
    ]
    if aliases:
        lines.append("- one format under two names, counted once: " + ", ".join(
            f"{a} = {b}" + (f" ({ALIAS_REASONS[a]})" if a in ALIAS_REASONS else "") for a, b in aliases
        ))  # fmt: skip
    if apart:
        lines.append("- close but counted apart: " + "; ".join(f"{', '.join(g)}: {why}" for g, why in apart))
    if written_only:
        lines.append("- written, never read (no section of their own): " + ", ".join(written_only))
    lines += [
        "",
        "| family | input formats | pairs | proven | slowest pair (s) |",
        "|---|---:|---:|---:|---|",
    ]
    for family, mine in own.items():
        rows = [o for f in mine for o in inputs[f]]
        if rows:
            slowest = max(rows, key=lambda o: (round(o.seconds, 2), o.source, o.target))
            proven = sum(o.error is None for o in rows)
            lines.append(
                f"| [{family}](#{anchors[family]}) | {len({canonical(f) for f in mine})} | {len(rows)} "
                f"| {proven} | {slowest.source} -> {slowest.target} {slowest.seconds:.2f} |"
            )
    return [*lines, ""]


def _run_section() -> list[str]:
    return [
        "## Run the proof",
        "",
        "| command | proves |",
        "|---|---|",
        "| `.venv/bin/python bench/formats.py --jobs 2` | every pair; writes this page again |",
        "| `.venv/bin/python bench/formats.py --update` | only new pairs and new default engines |",
        "| `.venv/bin/python bench/formats.py --format docx` | one format's pairs; the page is left alone |",
        "| `.venv/bin/python bench/formats.py --update --engine pandoc` | again every pair of one engine |",
        "",
        "A local service runs inside the bench (loopback). Seeds are written by hand or made by programs "
        "other than the engine under test (`bench/formats_support/samples*.py`); every other input is "
        "made by converting a seed through a listed conversion. Each pair runs as one job (import, "
        "convert, export) and its output is checked (`bench/formats_support/check*.py`). The bench "
        "prints a table by engine, every failure, the counts and how long it took. Families and aliases "
        "are in `bench/formats_support/families.py`, caveats in `caveats.py`.",
        "",
    ]


def _options_section(entries: Iterable[Listed]) -> list[str]:
    options: dict[tuple[str, str, str], tuple[set[str], set[str]]] = {}
    for entry in entries:
        for o in entry.options:
            key = (str(o["name"]), str(o["type"]), str(o.get("description") or ""))
            engines, values = options.setdefault(key, (set(), set()))
            engines.add(entry.engine)
            values.update(str(v) for v in o.get("possible_values") or ())
    lines = [f"## {OPTIONS}", "",
             "As the listing describes them (the pairs taking each: `GET /v2/operations?include=options`).",
             "",
             "| option | type | engines | what it does |", "|---|---|---|---|"]  # fmt: skip
    for (name, kind, description), (engines, values) in sorted(options.items()):
        said = description or ""
        if values:
            shown = sorted(values)
            values_said = ", ".join(shown[:16]) + (", ..." if len(shown) > 16 else "")
            said = f"{said.rstrip('.')} (values: {values_said})" if said else f"one of: {values_said}"
        lines.append(f"| `{name}` | {kind} | {', '.join(sorted(engines))} | {_cell(said)} |")
    return lines


def _cell(text: Any) -> str:
    return html.escape(" ".join(str(text).split())).replace("|", "\\|")
