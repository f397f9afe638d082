#!/usr/bin/env python3
"""Print, as Markdown, every operation and format pair the embedded local service runs on this machine.

Starts the service with every engine found here, reads ``GET /v2/operations?alternatives=true`` (so
engines that are not the default for a pair appear too), and groups rows compactly: the input formats
of one operation and engine that share the same output formats make one row. Run it on a machine with
every engine installed (``scripts/install-engines.sh``) to regenerate the README section::

    .venv/bin/python scripts/operations-table.py
"""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Any

import httpx

from mcv_pipelines.service.server import LocalService


def fetch_listing() -> list[dict[str, Any]]:
    with LocalService() as service:
        headers = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=headers, timeout=120) as client:
            answer = client.get(
                "/v2/operations", params={"alternatives": "true", "include": "engine_versions"}
            )
            answer.raise_for_status()
            data: list[dict[str, Any]] = answer.json()["data"]
            return data


def rows(listing: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """One row per operation, engine and set of outputs; 'same as input' when each keeps its format."""
    outputs: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for entry in listing:
        outputs[(entry["operation"], entry["engine"])][entry["input_format"]].add(entry["output_format"])
    table = []
    for (operation, engine), by_input in sorted(outputs.items()):
        if all(formats == {source} != {"any"} for source, formats in by_input.items()):
            table.append((operation, engine, ", ".join(sorted(by_input)), "same as input"))
            continue
        universe = set().union(*by_input.values())
        # Inputs whose outputs differ only by excluding their own format share a row.
        grouped: dict[frozenset[str], list[str]] = defaultdict(list)
        for source, formats in by_input.items():
            grouped[frozenset(formats | ({source} & universe))].append(source)
        for key, inputs in sorted(grouped.items(), key=lambda item: sorted(item[1])):
            text = ", ".join(sorted(key))
            if any(source in key and source not in by_input[source] for source in inputs):
                text += " (each to another format)"
            table.append((operation, engine, ", ".join(sorted(inputs)), text))
    return table


def versions(listing: list[dict[str, Any]]) -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in listing:
        for version in entry.get("engine_versions") or []:
            if version.get("default") or entry["engine"] not in found:
                found[entry["engine"]] = str(version["version"])
    return found


def main() -> int:
    listing = fetch_listing()
    print("| operation | engine | input formats | output formats |")
    print("|---|---|---|---|")
    for row in rows(listing):
        print("| " + " | ".join(row) + " |")
    print()
    print("| engine | version |")
    print("|---|---|")
    for engine, version in sorted(versions(listing).items()):
        print(f"| {engine} | {version} |")
    print()
    print(f"{len(listing)} operation and format pairs in all.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
