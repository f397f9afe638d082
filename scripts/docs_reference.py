"""The site's reference pages, made from the code at build time (an MkDocs hook; see mkdocs.yml).

Nothing here is written by hand: each page is read off the thing it describes, so it cannot drift.

- reference/cli.md: every command, subcommand, flag, default and choice, from `mcv`'s own argparse
  parsers; the environment variables the package reads; the exit codes (errors.ExitCode).
- reference/operations.md: every operation's options, from schemas/operations/.
- reference/http-api.md: every path and method of schemas/openapi.json, with parameters and answers.
- reference/pipeline-format.md: the pipeline file's keys, from schemas/pipeline.schema.json.
- reference/metrics.md: every metric of /metrics with its type, labels and meaning.
- reference/conversions.md: the embedded service's conversion table, from the committed catalog.
- In any page, a line ``<!-- mcv-graph: pipelines/X.yaml -->`` becomes the pipeline's task graph
  (what `mcv graph --format mermaid` prints), drawn by the site.

Run it alone to print one page: ``.venv/bin/python scripts/docs_reference.py cli``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GRAPH_MARK = re.compile(r"^<!-- mcv-graph: (\S+) -->$", re.MULTILINE)


def _cell(text: object) -> str:
    """A value fit for one Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _code(text: object) -> str:
    return "`" + str(text).replace("`", "'") + "`"


# --- the command line -------------------------------------------------------------------------


def full_parser() -> argparse.ArgumentParser:
    """`mcv`'s parser with every command registered (the program itself registers only the one it runs)."""
    from mcv_pipelines.cli.main import COMMANDS, build_parser

    parser = build_parser(None)
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for row in COMMANDS:
        # Replace the placeholder with the command's real parser.
        subparsers._name_parser_map.pop(row.name, None)
        subparsers._choices_actions = [c for c in subparsers._choices_actions if c.dest != row.name]
        importlib.import_module(row.module).register(subparsers)
    return parser


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def parser_flags(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string of a parser (what `--help` shows), e.g. ``["-h", "--help", "--format"]``."""
    return [flag for action in parser._actions for flag in action.option_strings]


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
    tuple[tuple[str, ...], str, argparse.ArgumentParser]
]:
    """Every parser of the tree with its command path and help, depth first."""
    for name, help_text, sub in _subcommands(parser):
        yield (*path, name), help_text, sub
        yield from walk(sub, (*path, name))


def _argument_row(action: argparse.Action) -> str | None:
    if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
        return None
    if action.help == argparse.SUPPRESS:
        return None
    if action.option_strings:
        name = ", ".join(_code(s) for s in action.option_strings)
        if action.nargs != 0:
            name += " " + _code(action.metavar or action.dest.upper())
    else:
        name = _code(action.metavar or action.dest)
    default = action.default
    if default in (None, argparse.SUPPRESS, False) or (action.nargs == 0 and default is False):
        shown = ""
    else:
        shown = _code(default)
    choices = ", ".join(_code(c) for c in action.choices) if action.choices else ""
    positional = not action.option_strings and action.nargs not in ("?", "*")
    needed = "yes" if action.required or positional else ""
    return f"| {name} | {_cell(action.help or '')} | {shown} | {choices} | {needed} |"


def _environment() -> list[tuple[str, list[str]]]:
    """The MCV_* variables the package's source names, with the modules that read them."""
    package = ROOT / "src" / "mcv_pipelines"
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(package.rglob("*.py")):
        for name in re.findall(r"[\"'](MCV_[A-Z0-9_]+)[\"']", path.read_text(encoding="utf-8")):
            found[name].add(".".join(path.relative_to(package.parent).with_suffix("").parts))
    return sorted((name, sorted(modules)) for name, modules in found.items())


def cli_page() -> str:
    from mcv_pipelines.errors import ExitCode

    parser = full_parser()
    out = [
        "# Command line",
        "",
        "Every command of `mcv`, read from its own parsers when this site was built. "
        "`mcv COMMAND --help` prints the same.",
        "",
        "```text",
        parser.format_usage().strip(),
        "```",
        "",
    ]
    for path, help_text, sub in walk(parser):
        depth = min(len(path) + 1, 4)
        out += [f"{'#' * depth} mcv {' '.join(path)}", ""]
        if help_text or sub.description:
            out += [_cell(sub.description or help_text), ""]
        out += ["```text", sub.format_usage().strip(), "```", ""]
        rows = [row for action in sub._actions if (row := _argument_row(action))]
        if rows:
            out += ["| argument | meaning | default | choices | required |", "|---|---|---|---|---|"]
            out += [*rows, ""]
    out += ["## Environment variables", "", "| variable | read by |", "|---|---|"]
    out += [f"| {_code(name)} | {', '.join(_code(m) for m in modules)} |" for name, modules in _environment()]
    out += ["", "## Exit codes", "", "| code | name |", "|---|---|"]
    out += [f"| {int(code)} | {code.name.lower()} |" for code in ExitCode]
    return "\n".join(out) + "\n"


# --- operations and the pipeline file -----------------------------------------------------------


def _type_of(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(_code(v) for v in schema["enum"])
    if "const" in schema:
        return _code(schema["const"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind:
        return str(kind)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_type_of(s) for s in schema[key])
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "any"


def _properties_table(schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    rows = ["| key | type | required | default | meaning |", "|---|---|---|---|---|"]
    for name, prop in schema.get("properties", {}).items():
        prop = prop if isinstance(prop, dict) else {}
        default = _code(json.dumps(prop["default"])) if "default" in prop else ""
        rows.append(
            f"| {_code(name)} | {_cell(_type_of(prop))} | {'yes' if name in required else ''} | {default} "
            f"| {_cell(prop.get('description', ''))} |"
        )
    return rows


def operations_page() -> str:
    out = [
        "# Operations",
        "",
        "The options of every operation, from the schemas in `schemas/operations/` (the ones the service "
        "enforces and its OpenAPI document publishes). Options that depend on the formats and the engine "
        "(a quality, a page range) are in the [conversions](conversions.md) listing.",
        "",
    ]
    for path in sorted((ROOT / "schemas" / "operations").glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        name = schema.get("title") or path.name.removesuffix(".schema.json")
        out += [f"## {name}", ""]
        if schema.get("description"):
            out += [_cell(schema["description"]), ""]
        out += [*_properties_table(schema), ""]
    return "\n".join(out) + "\n"


def pipeline_format_page() -> str:
    schema = json.loads((ROOT / "schemas" / "pipeline.schema.json").read_text(encoding="utf-8"))
    out = [
        "# The pipeline file",
        "",
        "The keys of a pipeline file (format version 1), from `schemas/pipeline.schema.json`, the schema "
        "editors read through the file's modeline. Each task also takes its operation's options "
        "([operations](operations.md)).",
        "",
        "## Top level",
        "",
        *_properties_table(schema),
        "",
    ]
    for name, definition in sorted(schema.get("$defs", schema.get("definitions", {})).items()):
        if not isinstance(definition, dict) or not definition.get("properties"):
            continue
        if name.startswith(("op_", "op-")) or ("operation" in definition.get("properties", {}) and len(
            definition["properties"]
        ) > 12):
            continue
        out += [f"## {name}", ""]
        if definition.get("description"):
            out += [_cell(definition["description"]), ""]
        out += [*_properties_table(definition), ""]
    return "\n".join(out) + "\n"


# --- the HTTP interface -------------------------------------------------------------------------


def http_api_page() -> str:
    document = json.loads((ROOT / "schemas" / "openapi.json").read_text(encoding="utf-8"))
    info = document.get("info", {})
    out = [
        "# HTTP API",
        "",
        f"{_cell(info.get('title', ''))} {info.get('version', '')}: every path of `schemas/openapi.json` "
        "(served by any `mcv serve` at `GET /openapi.json`). "
        "Requests carry `Authorization: Bearer <API key>`.",
        "",
    ]
    if info.get("description"):
        out += [info["description"].strip(), ""]
    for path, methods in document.get("paths", {}).items():
        for method, operation in methods.items():
            if method not in {"get", "post", "put", "patch", "delete", "head", "options"}:
                continue
            out += [f"## {method.upper()} {path}", ""]
            summary = operation.get("summary") or ""
            if summary:
                out += [_cell(summary), ""]
            if operation.get("description"):
                out += [operation["description"].strip(), ""]
            parameters = operation.get("parameters", [])
            if parameters:
                out += ["| parameter | in | required | meaning |", "|---|---|---|---|"]
                for parameter in parameters:
                    if "$ref" in parameter:
                        ref = parameter["$ref"].rsplit("/", 1)[-1]
                        parameter = document.get("components", {}).get("parameters", {}).get(ref, {})
                    out.append(
                        f"| {_code(parameter.get('name', '?'))} | {parameter.get('in', '')} | "
                        f"{'yes' if parameter.get('required') else ''} | "
                        f"{_cell(parameter.get('description', ''))} |"
                    )
                out.append("")
            answers = operation.get("responses", {})
            if answers:
                out += ["| answer | meaning |", "|---|---|"]
                for status, answer in answers.items():
                    if "$ref" in answer:
                        ref = answer["$ref"].rsplit("/", 1)[-1]
                        answer = document.get("components", {}).get("responses", {}).get(ref, {})
                    out.append(f"| {status} | {_cell(answer.get('description', ''))} |")
                out.append("")
    return "\n".join(out) + "\n"


# --- what the service offers ---------------------------------------------------------------------


def metrics_page() -> str:
    from mcv_pipelines.service.http.metrics import Metrics

    out = [
        "# Metrics",
        "",
        "What `GET /metrics` of every service process exposes (Prometheus text format), read from the "
        "service's own registry. Counters show with a `_total` suffix; histograms as `_bucket`, `_sum` "
        "and `_count`. Each process counts what it did itself: sum over processes, except the queue "
        "depth, which is the same database-wide number everywhere (take its max).",
        "",
        "| metric | type | labels | meaning |",
        "|---|---|---|---|",
    ]
    registry = Metrics(queue_depth=lambda: 0).registry
    # Each collector's label names (a labelled metric shows no sample until a label value is used).
    label_names = {
        name: tuple(getattr(collector, "_labelnames", ()))
        for collector, names in registry._collector_to_names.items()
        for name in names
    }
    for family in registry.collect():
        labels = label_names.get(family.name) or label_names.get(family.name + "_total", ())
        out.append(
            f"| {_code(family.name)} | {family.type} | {', '.join(_code(x) for x in labels)} "
            f"| {_cell(family.documentation)} |"
        )
    return "\n".join(out) + "\n"


def conversions_page() -> str:
    table_script = ROOT / "scripts" / "operations-table.py"
    spec = importlib.util.spec_from_file_location("operations_table", table_script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    snapshot = json.loads((ROOT / "schemas" / "catalog" / "local.json").read_text(encoding="utf-8"))
    listing = snapshot["data"]
    rows = module.rows(listing)
    versions = module.versions(listing)
    out = [
        "# Conversions",
        "",
        "What the embedded local service lists on a machine with every engine installed "
        "(`scripts/install-engines.sh`), from the committed catalog snapshot `schemas/catalog/local.json` "
        "(`mcv catalog pull --local` remakes it). Without a program its rows are absent; Pillow, pypdf "
        "and the archive formats need nothing outside Python. An engine listed after another for the same "
        "pair is an alternative, chosen with the task's `engine` option.",
        "",
        f"{len(listing)} operation and format pairs in all.",
        "",
        "| operation | engine | input formats | output formats |",
        "|---|---|---|---|",
        *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows),
        "",
        "| engine | version |",
        "|---|---|",
        *(f"| {engine} | {version} |" for engine, version in sorted(versions.items())),
    ]
    return "\n".join(out) + "\n"


PAGES: dict[str, Callable[[], str]] = {
    "cli": cli_page,
    "operations": operations_page,
    "http-api": http_api_page,
    "pipeline-format": pipeline_format_page,
    "metrics": metrics_page,
    "conversions": conversions_page,
}


def graph_block(pipeline: str) -> str:
    """The task graph of a pipeline (params' examples fill the gaps), as a Mermaid block."""
    from mcv_pipelines.pipeline.check import check_pipeline
    from mcv_pipelines.pipeline.diagram import to_mermaid

    result = check_pipeline(str(ROOT / pipeline), {}, source="docs", use_examples=True)
    if result.pipeline is None:
        raise ValueError(f"{pipeline}: does not render; `mcv validate {pipeline}` says why")
    return "```mermaid\n" + to_mermaid(result.pipeline) + "```"


# --- the MkDocs hook --------------------------------------------------------------------------------


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for name, make in PAGES.items():
        files.append(File.generated(config, f"reference/{name}.md", content=make()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return GRAPH_MARK.sub(lambda match: graph_block(match.group(1)), markdown)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    names = sys.argv[1:] or sorted(PAGES)
    for page_name in names:
        sys.stdout.write(PAGES[page_name]())
