"""A small, fixed sample of the routed pairs that covers every input and output format that a route
takes or makes and every chain of engines: what CI proves on every run (the full proof of every pair
is bench/formats.py, by hand). The same listing always gives the same sample."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["route_sample"]


def route_sample(pairs: Mapping[tuple[str, str], str]) -> list[tuple[str, str]]:
    """Routed pairs (engine named ``a+b``) chosen greedily: each adds the most formats and engine
    chains not covered yet, the first in sorted order on a tie."""
    routed = sorted(pair for pair, engine in pairs.items() if "+" in engine)
    wanted = {("in", s) for s, _ in routed} | {("out", t) for _, t in routed}
    wanted |= {("by", pairs[p]) for p in routed}
    chosen: list[tuple[str, str]] = []
    while wanted:
        best = max(routed, key=lambda p: len(wanted & {("in", p[0]), ("out", p[1]), ("by", pairs[p])}))
        gained = wanted & {("in", best[0]), ("out", best[1]), ("by", pairs[best])}
        if not gained:
            break
        chosen.append(best)
        wanted -= gained
    return sorted(chosen)
