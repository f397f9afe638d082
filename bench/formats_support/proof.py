"""The proof of bench/formats.py as data: one outcome per pair, the listing's entry of each pair, the
counts with aliases counted once, and the proof rows read back from a page (this layout or the old one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from formats_support.families import canonical

__all__ = ["Counts", "Listed", "Outcome", "counts", "listing_of", "per_input", "proof_cell", "read_proof"]


@dataclass
class Outcome:
    source: str
    target: str
    engine: str
    seconds: float
    error: str | None


@dataclass(frozen=True)
class Listed:
    """One pair as the listing gives it: its default engine and its options (the listing's dicts)."""

    engine: str
    options: tuple[dict[str, Any], ...] = field(default=())
    route: str = ""  # a routed pair's formats in order ("docx -> pdf -> png -> webp"), else empty

    def option_names(self) -> list[str]:
        return [str(o["name"]) for o in self.options]


@dataclass(frozen=True)
class Counts:
    inputs: int  # aliases counted once
    input_names: int
    outputs: int
    output_names: int
    pairs: int
    proven: int

    @property
    def failed(self) -> int:
        return self.pairs - self.proven

    def line(self) -> str:
        return (
            f"{self.inputs} input formats ({self.input_names} names), {self.outputs} output formats "
            f"({self.output_names} names), aliases counted once; {self.pairs} pairs listed, "
            f"{self.proven} proven, {self.failed} failed"
        )


def counts(outcomes: Iterable[Outcome]) -> Counts:
    """The formats of the proven pairs, with and without aliases counted once; the pairs."""
    every = list(outcomes)
    proven = [o for o in every if o.error is None]
    sources = {o.source for o in proven}
    targets = {o.target for o in proven}
    return Counts(
        inputs=len({canonical(f) for f in sources}),
        input_names=len(sources),
        outputs=len({canonical(f) for f in targets}),
        output_names=len(targets),
        pairs=len(every),
        proven=len(proven),
    )


# --- the proof rows as the page writes them, and back --------------------------------------------------
# Under "### <input>": "- **proof**: ... <details><summary>...</summary>ENGINE: OUT SECONDS, ...</details>"
_HEADING = re.compile(r"^### (\S+)\s*$")
_PROOF = re.compile(r"^- \*\*proof\*\*: .*<details><summary>[^<]*</summary>(.*)</details>\s*$")
_OLD_ROW = re.compile(r"^\|([^|]+)\|([^|]+)\|([^|]+)\|([^|]+)\| ok \|\s*$")


def proof_cell(proven: Iterable[Outcome]) -> str:
    """The proven pairs of one input, by engine: ``pillow: gif 0.12, png 0.10; ffmpeg: mp4 1.30``."""
    by_engine: dict[str, list[Outcome]] = {}
    for o in sorted(proven, key=lambda o: o.target):
        by_engine.setdefault(o.engine, []).append(o)
    return "; ".join(
        f"{engine}: " + ", ".join(f"{o.target} {o.seconds:.2f}" for o in rows)
        for engine, rows in sorted(by_engine.items(), key=lambda item: (-len(item[1]), item[0]))
    )


def read_proof(text: str) -> dict[tuple[str, str], Outcome]:
    """(input, output) -> its proven outcome, from a page this module's writer wrote or from the one
    table of the layout before it (``| input | output | engine | seconds | ok |``)."""
    rows: dict[tuple[str, str], Outcome] = {}
    source = None
    for line in text.splitlines():
        if old := _OLD_ROW.match(line):
            src, dst, engine, seconds = (cell.strip() for cell in old.groups())
            rows[(src, dst)] = Outcome(src, dst, engine, float(seconds), None)
        elif heading := _HEADING.match(line):
            source = heading.group(1)
        elif source is not None and (proof := _PROOF.match(line)):
            for group in proof.group(1).split("; "):
                engine, _, pairs = group.partition(": ")
                for pair in pairs.split(", "):
                    target, _, seconds = pair.rpartition(" ")
                    rows[(source, target)] = Outcome(source, target, engine, float(seconds), None)
    return rows


def per_input(outcomes: Iterable[Outcome]) -> dict[str, list[Outcome]]:
    grouped: dict[str, list[Outcome]] = {}
    for o in sorted(outcomes, key=lambda o: (o.source, o.target)):
        grouped.setdefault(o.source, []).append(o)
    return grouped


def listing_of(
    outcomes: Iterable[Outcome], listing: Mapping[tuple[str, str], Listed]
) -> dict[tuple[str, str], Listed]:
    """Every outcome's listing entry (one the listing lacks: its engine, no options)."""
    return {(o.source, o.target): listing.get((o.source, o.target), Listed(o.engine)) for o in outcomes}
