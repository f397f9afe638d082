"""The proven format matrix: every convert pair the local service lists, run and checked.

    .venv/bin/python bench/formats.py [--jobs N] [--engine NAME ...] [--format EXT ...] [--update]
                                      [--out docs/formats.md]

A local service runs in this process (loopback). Seeds are written by hand or with installed programs
(formats_support/samples.py); every other input format is made by converting a seed through the
service itself, with a listed conversion. Each listed pair (input, output; its default engine) then
runs as one job (import/base64 -> convert -> export/url), ``--jobs`` at a time; the output is
downloaded and checked with a decoder or its magic bytes (formats_support/check.py), text outputs also
for the sample's word. The results are printed and written in the pairs' sorted order whatever
``--jobs`` is: a table by engine, every failure, the counts (aliases counted once) and the run's time.
A failing pair is printed: fix it or drop it from its engine's listing.

Writes docs/formats.md (formats_support/page.py): counts, how to run this, then a section per family
and one per input format with its outputs, options, caveats and proof (each pair's seconds: the job's
wall time on this machine). The whole run took 21 minutes here (--jobs 2, a shared 2-core machine).

``--update`` proves only what changed since the page at ``--out`` was written (it reads this layout
and the one table of the layout before): pairs it has no proven row for under the same default engine
(new pairs, or a new default engine), and every pair of the ``--engine`` engines; the other rows are
kept as they were and rows of pairs no longer listed go.
"""

from __future__ import annotations

import argparse
import base64
import collections
import platform
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the tests' hand-written samples
from formats_support.check import check_output
from formats_support.families import OTHER
from formats_support.page import input_families, write_page
from formats_support.proof import Listed, Outcome, counts, read_proof
from formats_support.samples import WORD, office_from, write_seeds
from formats_support.samples_breadth import BREADTH_WORDED
from formats_support.samples_data import DATA_WORDED, data_pair_sample
from formats_support.samples_docs import DOCS_WORDED
from formats_support.samples_gps import gps_pair_sample
from formats_support.samples_pages import PAGES_WORDED
from formats_support.samples_subtitle import pair_sample

from mcv_pipelines.service.server import LocalService
from office_samples import MACRO_VARIANTS, macro_variant

ROOT = Path(__file__).resolve().parents[1]
# Where a derived input is made from, best first: the seeds that carry the sample's word.
PREFERRED_SOURCES = ("md", "png", "mp4", "wav", "ttf", "zip", "epub", "csv", "svg", "pdf")
WORDED_SEEDS = {
    "md", "rst", "org", "html", "tex", "textile", "mediawiki", "dokuwiki", "t2t", "opml", "fb2", "rtf", "txt",
    "csv", "ipynb", "xlsx", "xls", "ods", "creole", "vimwiki", "twiki", "tikiwiki",
}  # fmt: skip
# Formats only read, never written by the listing: a copy of a file of the same container.
SAME_CONTAINER = {"mts": "m2ts", "azw": "mobi", "prc": "mobi"}
# Formats only LibreOffice writes, and only from its own family: made by soffice itself from a sample
# of a format it reads (a drawing from the SVG seed, the flat XML formats from their zipped kin).
OFFICE_DERIVED = {
    "doc": "docx", "ppt": "pptx", "odp": "pptx", "fodt": "odt", "fods": "ods", "fodp": "odp",
    "odg": "svg", "fodg": "odg", "emf": "odg", "wmf": "odg",
}  # fmt: skip


def listed(client: httpx.Client) -> dict[tuple[str, str], Listed]:
    """(input, output) -> its default engine and options, from the service's own listing."""
    answer = client.get("/v2/operations", params={"filter[operation]": "convert", "include": "options"})
    answer.raise_for_status()
    pairs: dict[tuple[str, str], Listed] = {}
    for entry in answer.json()["data"]:
        key = (entry["input_format"], entry["output_format"])
        route = str((entry.get("meta") or {}).get("route") or "")
        pairs.setdefault(key, Listed(entry["engine"], tuple(entry.get("options") or ()), route))
    return pairs


def convert(client: httpx.Client, path: Path, source: str, target: str, dest: Path) -> tuple[Path, float]:
    """Run one conversion job; the downloaded output and the job's wall time."""
    started = time.perf_counter()
    tasks: dict[str, Any] = {
        "in": {"operation": "import/base64", "file": base64.b64encode(path.read_bytes()).decode(),
               "filename": f"sample.{source}"},
        "convert": {"operation": "convert", "input": "in", "input_format": source, "output_format": target},
        "out": {"operation": "export/url", "input": "convert"},
    }  # fmt: skip
    created = client.post("/v2/jobs", json={"tasks": tasks})
    created.raise_for_status()
    job = client.get(f"/sync/v2/jobs/{created.json()['data']['id']}").json()["data"]
    seconds = time.perf_counter() - started
    failed = [t for t in job["tasks"] if t["status"] == "error"]
    if failed:
        raise RuntimeError(f"{failed[0].get('code')}: {failed[0].get('message')}")
    files = next(t for t in job["tasks"] if t["name"] == "out")["result"]["files"]
    if len(files) != 1:
        dest.mkdir(parents=True, exist_ok=True)
    # a conversion that makes a file per page is checked on its first file; a mail's attachments
    # beside its pages are not the conversion's output
    item = next((f for f in files if f["filename"].lower().endswith("." + target)), files[0])
    response = client.get(item["url"])
    response.raise_for_status()
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / f"{source.replace('.', '_')}-to-{item['filename']}"
    out.write_bytes(response.content)
    return out, seconds


def make_inputs(
    client: httpx.Client, pairs: dict[tuple[str, str], str], work: Path, needed: set[str] | None = None
) -> tuple[dict[str, Path], set[str]]:
    """A sample of every input format (of ``needed`` first, when given: the others only if one of
    those cannot be made without them); and the formats whose sample carries the word."""
    every = {source for source, _ in pairs}
    samples = write_seeds(work / "seeds", every)
    worded = set(samples) & (WORDED_SEEDS | BREADTH_WORDED | DATA_WORDED | DOCS_WORDED | PAGES_WORDED)
    tried: set[tuple[str, str]] = set()  # a derivation that failed is not tried again
    for wanted in [needed, every] if needed else [every]:
        if not wanted - set(samples):
            break
        _derive(client, pairs, work, wanted, samples, worded, tried)
    return samples, worded


def _derive(client: httpx.Client, pairs: dict[tuple[str, str], str], work: Path, wanted: set[str],
            samples: dict[str, Path], worded: set[str], tried: set[tuple[str, str]]) -> None:  # fmt: skip
    changed = True
    while changed:
        changed = False
        for fmt in sorted(wanted - set(samples)):
            sources = [s for s, t in pairs if t == fmt and s in samples and (fmt, s) not in tried]
            sources.sort(key=lambda s: PREFERRED_SOURCES.index(s) if s in PREFERRED_SOURCES else 99)
            for source in sources:
                tried.add((fmt, source))
                try:
                    made, _ = convert(client, samples[source], source, fmt, work / "derived")
                    check_output(made, fmt, None)
                except Exception as exc:
                    print(f"  deriving {fmt} from {source} failed: {exc}", file=sys.stderr)
                    continue
                samples[fmt] = made
                if source in worded:
                    worded.add(fmt)
                changed = True
                break
        for fmt, base in SAME_CONTAINER.items():
            if fmt in wanted and fmt not in samples and base in samples:
                samples[fmt] = work / "derived" / f"sample.{fmt}"
                shutil.copyfile(samples[base], samples[fmt])
                changed = True
        for fmt, base in OFFICE_DERIVED.items():
            if fmt in wanted and fmt not in samples and base in samples:
                samples[fmt] = office_from(samples[base], fmt, work)
                worded |= {fmt} if base in worded else set()
                changed = True
        for fmt, (base, _) in MACRO_VARIANTS.items():
            if fmt in wanted and fmt not in samples and base in samples:
                samples[fmt] = macro_variant(samples[base], fmt)
                worded |= {fmt} if base in worded else set()
                changed = True


def run_pair(client: httpx.Client, samples: dict[str, Path], worded: set[str], pair: tuple[str, str],
             engine: str, work: Path) -> Outcome:  # fmt: skip
    source, target = pair
    # a video's subtitled seed where subtitles come out; a csv of points where a GPS format does
    sample = (
        gps_pair_sample(samples, source, target)
        or data_pair_sample(samples, source, target)  # contacts to vcf, events to ics
        or pair_sample(samples, source, target)
    )
    if sample is None:
        return Outcome(source, target, engine, 0.0, "no sample of the input format")
    try:
        out, seconds = convert(client, sample, source, target, work / "outputs")
        check_output(out, target, WORD if source in worded else None)
    except Exception as exc:
        return Outcome(source, target, engine, 0.0, " ".join(str(exc).split())[:200])
    return Outcome(source, target, engine, seconds, None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="conversions at a time; same output order")
    parser.add_argument("--engine", action="append", help="only the pairs of these default engines")
    parser.add_argument(
        "--format", action="append", help="only the pairs with one of these formats as input or output"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "formats.md")
    parser.add_argument("--update", action="store_true", help="prove only what changed since --out")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mcv-formats-") as tmp:
        work = Path(tmp)
        settings = {"rate_limit": 1_000_000, "workers": max(2, args.jobs)}
        with LocalService(data_dir=work / "data", settings=settings) as service, httpx.Client(
            base_url=service.base_url, timeout=600,
            headers={"Authorization": f"Bearer {service.api_key}"},
        ) as client:  # fmt: skip
            listing = listed(client)
            pairs = {p: entry.engine for p, entry in listing.items()}
            kept: dict[tuple[str, str], Outcome] = {}
            if args.update:
                earlier = read_proof(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
                kept = {
                    p: earlier[p]
                    for p, e in pairs.items()
                    if p in earlier and earlier[p].engine == e and e not in (args.engine or ())
                }
                chosen = {p: e for p, e in pairs.items() if p not in kept}
            else:
                chosen = {
                    p: e
                    for p, e in pairs.items()
                    if (not args.engine or e in args.engine)
                    and (not args.format or set(p) & set(args.format))
                }
            print(f"{len(chosen)} pairs to prove ({len(pairs)} listed)", file=sys.stderr)
            samples: dict[str, Path] = {}
            worded: set[str] = set()
            if chosen:
                samples, worded = make_inputs(client, pairs, work, {source for source, _ in chosen})

            def one(item: tuple[tuple[str, str], str]) -> Outcome:
                return run_pair(client, samples, worded, item[0], item[1], work)

            with ThreadPoolExecutor(args.jobs) as pool:  # map keeps the order of the sorted pairs
                outcomes = list(pool.map(one, sorted(chosen.items())))
    report(outcomes)
    every = sorted([*kept.values(), *outcomes], key=lambda o: (o.source, o.target))
    if args.update or (not args.engine and not args.format):
        write_page(every, listing, args.out, platform.machine())
        print(f"wrote {args.out} ({len(kept)} pairs' proof kept from before, {len(outcomes)} run now)")
        others = sorted(f for f, families in input_families(every, listing).items() if families[0] == OTHER)
        if others:
            print(f"in no family (add them to formats_support/families.py): {', '.join(others)}")
        print(f"all listed: {counts(every).line()}")
    print(f"run now: {counts(outcomes).line()}")
    minutes, seconds = divmod(round(time.monotonic() - started), 60)
    print(f"took {minutes} min {seconds} s (--jobs {args.jobs})")
    return 1 if any(o.error for o in outcomes) else 0


def report(outcomes: list[Outcome]) -> None:
    """Pairs and failures by engine, then every failure, in the pairs' order."""
    failed = [o for o in outcomes if o.error]
    by_engine = collections.Counter(o.engine for o in outcomes)
    print(f"{'engine':<16}{'pairs':>7}{'failed':>8}")
    for engine, count in sorted(by_engine.items()):
        print(f"{engine:<16}{count:>7}{sum(1 for o in failed if o.engine == engine):>8}")
    for o in failed:
        print(f"FAILED {o.source} -> {o.target} ({o.engine}): {o.error}")


if __name__ == "__main__":
    raise SystemExit(main())
