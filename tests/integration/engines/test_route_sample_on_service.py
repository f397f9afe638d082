"""CI's proof of the routes: a fixed sample of the routed pairs the service lists, covering every input
and output format of a route and every chain of engines (bench/formats_support/route_sample.py), each
converted from a sample another program made and checked by the same independent readers as
bench/formats.py (which proves every pair, by hand)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import httpx

from engine_needs import ENGINES_REQUIRED, unavailable

_BENCH = Path(__file__).resolve().parents[3] / "bench"


def _bench() -> ModuleType:
    """bench/formats.py as a module (it puts bench/ and tests/ on the path for its samples)."""
    spec = importlib.util.spec_from_file_location("bench_formats", _BENCH / "formats.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_sample_of_every_route_converts_and_reads_back(client: httpx.Client, tmp_path: Path) -> None:
    bench = _bench()
    from formats_support.route_sample import route_sample  # on the path once bench/formats.py is loaded

    pairs = {pair: entry.engine for pair, entry in bench.listed(client).items()}
    chosen = route_sample(pairs)
    if not chosen:
        unavailable("needs routed pairs, and the engines here list none (install them, or run .ci/run)")
    samples, worded = bench.make_inputs(client, pairs, tmp_path, {source for source, _ in chosen})
    outcomes = [bench.run_pair(client, samples, worded, pair, pairs[pair], tmp_path) for pair in chosen]
    missing = [o for o in outcomes if o.error == "no sample of the input format"]
    if missing and not ENGINES_REQUIRED:  # a sample made through an engine that is not here
        outcomes = [o for o in outcomes if o not in missing]
    failed = [f"{o.source} -> {o.target} ({o.engine}): {o.error}" for o in outcomes if o.error]
    assert failed == []
    routed = {pair for pair, engine in pairs.items() if "+" in engine}
    if not missing:
        assert {o.source for o in outcomes} == {source for source, _ in routed}
        assert {o.target for o in outcomes} == {target for _, target in routed}
        assert {o.engine for o in outcomes} == {pairs[pair] for pair in routed}
