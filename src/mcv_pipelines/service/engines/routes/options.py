"""Which hop of a route takes which of the task's options, and what the route lists.

The options that shape the file a task hands back (its size, quality, fit, background, name ...) go to
the last hop, and are listed only where the last hop takes them: a document's page renderer is not
asked for a JPEG quality it would spend on the pictures inside an intermediate PDF. Every other option
goes to the first hop that lists it: pages, density and slides to the renderer of pages, a web page's
screen size to the browser, except the few that only shape how an intermediate file is encoded (a PDF/A
flag): a route neither lists nor passes them. An option no hop lists is not listed, so validation
refuses it as it refuses any unknown option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcv_pipelines.service.engines.base import OptionSpec
from mcv_pipelines.service.engines.routes.planner import Route

__all__ = ["INTERMEDIATE_ONLY", "LAST_HOP_ONLY", "hop_options", "route_options"]

LAST_HOP_ONLY = frozenset({
    "filename", "width", "height", "fit", "quality", "strip", "auto_orient", "background", "lossless",
    "compression", "bit_depth", "audio_bitrate", "audio_codec", "audio_frequency", "audio_channels",
    "sample_rate", "channels",
})  # fmt: skip
# Options of an earlier hop that only shape the encoding of the file it hands on
INTERMEDIATE_ONLY = frozenset({"pdf_a"})


def route_options(route: Route) -> tuple[OptionSpec, ...]:
    """The options a route lists: the last hop's, then those of earlier hops not only for the last."""
    specs: dict[str, OptionSpec] = {spec.name: spec for spec in route.hops[-1].conversion.options}
    for hop in route.hops[:-1]:
        for spec in hop.conversion.options:
            if spec.name not in LAST_HOP_ONLY | INTERMEDIATE_ONLY:
                specs.setdefault(spec.name, spec)
    return tuple(specs.values())


def hop_options(route: Route, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The task's ``options`` shared out among the hops (one mapping per hop); unlisted ones dropped."""
    shares: list[dict[str, Any]] = [{} for _ in route.hops]
    last = {spec.name for spec in route.hops[-1].conversion.options}
    for name, value in options.items():
        if name in last:
            shares[-1][name] = value
            continue
        if name in LAST_HOP_ONLY | INTERMEDIATE_ONLY:
            continue
        for share, hop in zip(shares, route.hops, strict=True):
            if any(spec.name == name for spec in hop.conversion.options):
                share[name] = value
                break
    return shares
