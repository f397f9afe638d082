"""Hypothesis strategies for the property suite: text that users (and attackers) put in pipelines,
params, manifests and catalog listings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "pipelines").glob("*.yaml"))
OPERATION_SCHEMAS = sorted((ROOT / "schemas" / "operations").glob("*.schema.json"))

# Pieces that have broken parsers and template engines before: YAML indicators, Jinja delimiters,
# sandbox escapes, huge numbers, control characters, byte-order marks, quotes of every kind.
NASTY = [
    "", " ", "\t", "\n", "\r\n", "\x00", "\ufeff", "\u2028", "'", '"', "\\", "{{", "}}", "{%", "%}", "{#",
    "{{ 7 * 7 }}", "{{ ''.__class__.__mro__ }}", "{{ params }}", "{{ undefined_name }}", "{{ 1/0 }}",
    "{% for x in range(99999999) %}x{% endfor %}", "{{ 'a' * 99999999 }}", "{{ row.key }}",
    "{{ secret('') }}", "{{ env('HOME') }}", "- a", ": b", "? c", "&anchor", "*alias", "!!python/object",
    "!tag", "|", ">", "%YAML 1.2", "---", "...", "#", "yes", "no", "on", "off", "null", "~", "NaN",
    ".inf", "-.inf", "0x1F", "0o17", "1e309", "9" * 400, "-0", "007", "[", "]", "{", "}", ",", "é", "😀",
    "../../etc/passwd", "/abs/path.png", "C:\\x.png", "a" * 5000,
]

nasty_text = st.one_of(
    st.sampled_from(NASTY),
    st.text(max_size=40),
    st.lists(st.sampled_from(NASTY), min_size=1, max_size=4).map("".join),
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    nasty_text,
)

json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(nasty_text, children, max_size=4)
    ),
    max_leaves=12,
)


def example_data(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@st.composite
def mutated_pipeline(draw: st.DrawFn) -> dict[str, Any]:
    """An example pipeline with a few random edits: a key dropped, a value replaced, a key added."""
    data: Any = example_data(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        containers = _containers(data)
        parent = draw(st.sampled_from(containers))
        if isinstance(parent, dict):
            action = draw(st.sampled_from(["drop", "replace", "add"] if parent else ["add"]))
            if action == "add":
                parent[draw(nasty_text)] = draw(json_values)
                continue
            key = draw(st.sampled_from(sorted(parent, key=repr)))
            if action == "drop":
                del parent[key]
            else:
                parent[key] = draw(json_values)
        elif parent:
            index = draw(st.integers(min_value=0, max_value=len(parent) - 1))
            parent[index] = draw(json_values)
        else:
            parent.append(draw(json_values))
    return data


def _containers(value: Any) -> list[Any]:
    found: list[Any] = []
    if isinstance(value, dict):
        found.append(value)
        for child in value.values():
            found.extend(_containers(child))
    elif isinstance(value, list):
        found.append(value)
        for child in value:
            found.extend(_containers(child))
    return found


def dump(data: Any) -> bytes:
    """YAML text of ``data`` (any JSON-like value), as a user would have written it."""
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8")
