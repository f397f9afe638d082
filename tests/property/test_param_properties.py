"""Param values from the command line (-p name=value) and from a params file, whatever they hold, give
diagnostics or a clean error, never a traceback; they are checked against every example pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import run_cli
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import EXAMPLES, example_data, json_values, nasty_text

PARAMS = {path: sorted(example_data(path).get("params") or {}) for path in EXAMPLES}


@pytest.fixture(scope="module")
def params_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("params")


@given(data=st.data(), path=st.sampled_from(EXAMPLES))
@example(data=None, path=EXAMPLES[0])
def test_any_command_line_values_validate_cleanly(data: st.DataObject | None, path: Path) -> None:
    names = PARAMS[path]
    argv = ["validate", str(path)]
    if data is None:  # every param given the empty string
        argv += [a for name in names for a in ("-p", f"{name}=")]
    else:
        for name in data.draw(st.lists(st.sampled_from([*names, "unknown", ""]), max_size=4)):
            argv += ["-p", f"{name}={data.draw(nasty_text)}"]
    code, _, _ = run_cli(argv)
    assert code in (0, 2)


@given(values=st.one_of(json_values, st.dictionaries(st.sampled_from(["photo", "widths", "quality",
                                                                       "sheet", "image", "sizes"]),
                                                      json_values, max_size=4)),
       suffix=st.sampled_from([".yaml", ".json"]))
@example(values={"widths": [1e309]}, suffix=".json")
@example(values={"sizes": [{"size": True, "format": None}]}, suffix=".yaml")
def test_any_params_file_validates_cleanly(params_dir: Path, values: Any, suffix: str) -> None:
    file = params_dir / f"values{suffix}"
    text = json.dumps(values) if suffix == ".json" else yaml.safe_dump(values, allow_unicode=True)
    file.write_text(text, encoding="utf-8", errors="surrogatepass")
    for path in [p for p in EXAMPLES if p.stem in ("product-images", "thumbnails")]:
        code, _, _ = run_cli(["validate", str(path), "--params-file", str(file)])
        assert code in (0, 2)
