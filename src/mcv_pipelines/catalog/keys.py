"""Task keys that are not engine options: the one list every catalog check consults.

A task's own fields (``operation``, ``input``, formats, engine, ...), the runner's keys, and the keys
an operation takes as its payload (``url`` of capture-website, ``command`` of command, ...) are never
reported as unknown options.
"""

from __future__ import annotations

__all__ = ["RUNNER_KEYS", "STRUCTURAL_KEYS", "TASK_KEYS", "is_option_key"]

# Fields every processing task may carry (spec 4.3 common parameters).
TASK_KEYS = frozenset(
    {"operation", "input", "input_format", "output_format", "engine", "engine_version", "filename",
     "timeout"}
)
# Keys the runner takes off a task before it is sent (DESIGN.md section 2).
RUNNER_KEYS = frozenset({"upload_from", "download_to", "for_each", "when"})
# Per-operation payload keys that are not listed as engine options.
STRUCTURAL_KEYS: dict[str, frozenset[str]] = {
    "capture-website": frozenset({"url"}),
    "watermark": frozenset({"text", "image"}),
    "metadata/write": frozenset({"metadata"}),
    "command": frozenset({"command", "arguments", "capture_output"}),
}


def is_option_key(operation: str, key: str) -> bool:
    """True when ``key`` on a task of ``operation`` is meant as an engine option."""
    if key in TASK_KEYS or key in RUNNER_KEYS:
        return False
    return key not in STRUCTURAL_KEYS.get(operation, frozenset())
