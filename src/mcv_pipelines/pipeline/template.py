"""Templating of string scalars: sandboxed Jinja, strict about undefined names, types kept.

A string that is exactly one ``{{ expression }}`` compiles that expression alone and takes its value
(an int stays an int, a list a list, the string "007" stays a string); never ``literal_eval`` on
rendered text. Anything else renders to a string. Templates are compiled once per document and
rendered many times; values produced by rendering are never rendered again, so a parameter cannot
inject YAML or Jinja.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import meta, nodes
from jinja2.exceptions import SecurityError

from mcv_pipelines.diagnostics import Diagnostic, Severity
from mcv_pipelines.pipeline.document import Document, PathKey
from mcv_pipelines.pipeline.fastpath import Miss, fast_evaluator
from mcv_pipelines.pipeline.sandbox import ENV, FILTERS
from mcv_pipelines.pipeline.suggest import did_you_mean
from mcv_pipelines.redact import MASK, register_secret

__all__ = [
    "CONTEXT_NAMES",
    "Compiled",
    "Problem",
    "RenderContext",
    "TemplateCompiler",
]

CONTEXT_NAMES = ("params", "item", "index", "row", "env", "secret")
_LOOP_NAMES = frozenset({"item", "index"})
_SINGLE = re.compile(r"^\{\{-?(?P<expr>(?:(?!\{\{|\}\}).)*?)-?\}\}$", re.DOTALL)
_MARKERS = ("{{", "{%", "{#")
_NO_DEFAULT = object()


class Problem(Exception):
    """A rendering problem of one scalar; turned into a diagnostic at the scalar's location."""

    def __init__(self, rule: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.hint = hint


@dataclass(frozen=True, slots=True)
class RenderContext:
    """What templates see. ``placeholders`` makes a missing env var or secret a stand-in value
    instead of an error, so a recipe can be validated offline (CI has no secrets)."""

    params: Mapping[str, Any]
    row: Mapping[str, Any] | None = None
    environ: Mapping[str, str] | None = None
    placeholders: bool = False

    def variables(self) -> dict[str, Any]:
        environ = os.environ if self.environ is None else self.environ
        placeholders = self.placeholders

        def env(name: str, default: Any = _NO_DEFAULT) -> Any:
            value = environ.get(name)
            if value is not None:
                return value
            if default is not _NO_DEFAULT:
                return default
            if placeholders:
                return f"<env {name}>"
            raise Problem(
                "template-env",
                f"environment variable {name} is not set",
                hint=f"set {name}, or give a default: env({name!r}, 'value')",
            )

        def secret(name: str) -> str:
            value = environ.get(name)
            if value is not None:
                register_secret(value)
                return value
            if placeholders:
                return MASK
            raise Problem(
                "secret-missing",
                f"secret {name} is not set",
                hint=f"export {name} in the environment that runs mcv",
            )

        variables: dict[str, Any] = {"params": dict(self.params), "env": env, "secret": secret}
        if self.row is not None:
            variables["row"] = dict(self.row)
        return variables


def _plain(value: Any) -> Any:
    """Turn an expression's value into JSON-like data, or refuse what cannot be sent."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, jinja2.Undefined):
        str(value)  # StrictUndefined raises UndefinedError with Jinja's own explanation
    raise Problem("template-type", f"the expression gives a {type(value).__name__}, which cannot be sent")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


Sink = list[tuple[PathKey, Problem]]
Renderer = Callable[[dict[str, Any], Sink], Any]


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled value: a constant, or a renderer that builds a fresh value for each context."""

    constant: bool
    value: Any = None
    renderer: Renderer | None = None

    def render(self, variables: dict[str, Any], sink: Sink) -> Any:
        if self.renderer is None:
            return self.value  # a constant scalar; constant containers have a copying renderer
        return self.renderer(variables, sink)


def _constant_container(value: Any) -> Compiled:
    """Each render gets its own copy, so no caller can change the document through a body."""
    return Compiled(True, value, renderer=lambda variables, sink: _copy(value))


def _run(path: PathKey, fn: Callable[[dict[str, Any]], Any], variables: dict[str, Any], sink: Sink) -> Any:
    try:
        return fn(variables)
    except Problem as problem:
        sink.append((path, problem))
    except SecurityError as exc:
        sink.append((path, Problem("template-unsafe", f"unsafe template: {exc}")))
    except jinja2.UndefinedError as exc:
        rule = "template-unsafe" if "unsafe" in str(exc) else "template-undefined"
        sink.append((path, Problem(rule, f"undefined in template: {exc}")))
    except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, LookupError, AttributeError) as exc:
        sink.append((path, Problem("template-error", f"template failed: {exc}")))
    return None


def _jinja(text: str, match: re.Match[str] | None) -> Callable[[dict[str, Any]], Any]:
    """Jinja's own evaluation of ``text``: the single expression's value, or the rendered string."""
    if match is not None:
        expression = ENV.compile_expression(match.group("expr"), undefined_to_none=False)

        def evaluate(variables: dict[str, Any]) -> Any:
            return _plain(expression(**variables))

        return evaluate
    template = ENV.from_string(text)

    def render(variables: dict[str, Any]) -> Any:
        return template.render(variables)

    return render


class _LazyJinja:
    """``_jinja(text, match)``, compiled on the first call."""

    __slots__ = ("_fn", "_match", "_text")

    def __init__(self, text: str, match: re.Match[str] | None) -> None:
        self._text = text
        self._match = match
        self._fn: Callable[[dict[str, Any]], Any] | None = None

    def __call__(self, variables: dict[str, Any]) -> Any:
        if self._fn is None:
            self._fn = _jinja(self._text, self._match)
        return self._fn(variables)


def _with_fallback(
    fast: Callable[[dict[str, Any]], Any], slow: Callable[[dict[str, Any]], Any], *, single: bool
) -> Callable[[dict[str, Any]], Any]:
    to_value = _plain if single else str

    def evaluate(variables: dict[str, Any]) -> Any:
        try:
            return to_value(fast(variables))
        except Miss:
            return slow(variables)  # Jinja gives the value, or words the error

    return evaluate


class TemplateCompiler:
    """Compiles the string scalars of one document; static problems land in ``diagnostics``."""

    def __init__(self, document: Document, param_names: frozenset[str]) -> None:
        self.document = document
        self.param_names = param_names
        self.diagnostics: list[Diagnostic] = []

    def compile(self, value: Any, path: PathKey, *, loop: bool = False, row: bool = True) -> Compiled:
        """Compile ``value`` found at ``path``; ``loop`` says whether ``item``/``index`` exist there."""
        if isinstance(value, str):
            return self._string(value, path, loop=loop, row=row)
        if isinstance(value, dict):
            children = {k: self.compile(v, (*path, k), loop=loop, row=row) for k, v in value.items()}
            if all(c.constant for c in children.values()):
                return _constant_container(value)
            items = tuple(children.items())

            def render_dict(variables: dict[str, Any], sink: Sink) -> Any:
                return {k: c.render(variables, sink) for k, c in items}

            return Compiled(False, renderer=render_dict)
        if isinstance(value, list):
            elements = [self.compile(v, (*path, i), loop=loop, row=row) for i, v in enumerate(value)]
            if all(c.constant for c in elements):
                return _constant_container(value)
            seq = tuple(elements)

            def render_list(variables: dict[str, Any], sink: Sink) -> Any:
                return [c.render(variables, sink) for c in seq]

            return Compiled(False, renderer=render_list)
        return Compiled(True, value)

    def _static_problems(self, ast: nodes.Template, loop: bool, row: bool, *, simple: bool) -> list[Problem]:
        """Unsafe attributes, undeclared params, unknown filters and names, before anything runs.

        ``simple``: the template is only text and lookups (what the fast evaluator takes), so its free
        names are its Name nodes; Jinja's own analysis compiles the template, a cost paid for nothing
        there (issue 15).
        """
        problems: list[Problem] = []
        for node in ast.find_all((nodes.Getattr, nodes.Getitem)):
            assert isinstance(node, (nodes.Getattr, nodes.Getitem))
            attr = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
            if isinstance(attr, str) and attr.startswith("_"):
                if any(p.rule == "template-unsafe" for p in problems):
                    continue  # one per scalar: ''.__class__.__mro__ is one escape attempt
                problems.append(
                    Problem(
                        "template-unsafe",
                        f"access to {attr!r} is not allowed in a template",
                        hint="templates may use params, item, index, row, env() and secret() only",
                    )
                )
            elif (
                isinstance(attr, str)
                and isinstance(node.node, nodes.Name)
                and node.node.name == "params"
                and attr not in self.param_names
            ):
                problems.append(
                    Problem(
                        "template-undefined",
                        f"params.{attr} is not a declared parameter",
                        hint=did_you_mean(attr, self.param_names) or "declare it under `params:`",
                    )
                )
        for kind, table, word in ((nodes.Filter, ENV.filters, "filter"), (nodes.Test, ENV.tests, "test")):
            for found in ast.find_all(kind):
                assert isinstance(found, (nodes.Filter, nodes.Test))
                if found.name not in table:
                    problems.append(
                        Problem(
                            "template-undefined",
                            f"unknown {word} {found.name!r}",
                            hint=did_you_mean(found.name, table) or f"see the {word}s of Jinja and mcv",
                        )
                    )
        if problems:
            return problems  # name analysis compiles the template, which unknown filters stop
        allowed = (
            {"params", "env", "secret"} | (set(_LOOP_NAMES) if loop else set()) | ({"row"} if row else set())
        )
        names = {n.name for n in ast.find_all(nodes.Name)} if simple else meta.find_undeclared_variables(ast)
        for name in sorted(names):
            if name in allowed:
                continue
            if name in _LOOP_NAMES:
                hint = f"{name} exists only inside a task with for_each"
            elif name == "row":
                hint = "row exists only in a batch run"
            else:
                hint = did_you_mean(name, sorted(allowed)) or f"names available: {', '.join(sorted(allowed))}"
            problems.append(Problem("template-undefined", f"{name!r} is undefined", hint=hint))
        return problems

    def _string(self, text: str, path: PathKey, *, loop: bool, row: bool) -> Compiled:
        if not any(marker in text for marker in _MARKERS):
            return Compiled(True, text)
        location = self.document.locate(path)
        match = _SINGLE.match(text)
        try:
            ast = ENV.parse(text)
        except jinja2.TemplateSyntaxError as exc:
            self.diagnostics.append(
                Diagnostic(
                    "template-syntax", Severity.ERROR, f"template syntax error: {exc.message}", location
                )
            )
            return Compiled(False, renderer=lambda variables, sink: None)
        fast = fast_evaluator(ast, match is not None, FILTERS)
        problems = self._static_problems(ast, loop, row, simple=fast is not None)
        if problems:
            for problem in problems:
                self.diagnostics.append(
                    Diagnostic(problem.rule, Severity.ERROR, problem.message, location, hint=problem.hint)
                )
            return Compiled(False, renderer=lambda variables, sink: None)
        fn: Callable[[dict[str, Any]], Any]
        if fast is None:
            try:
                fn = _jinja(text, match)
            except jinja2.TemplateSyntaxError as exc:  # what only compiling finds
                self.diagnostics.append(
                    Diagnostic("template-syntax", Severity.ERROR, f"template error: {exc.message}", location)
                )
                return Compiled(False, renderer=lambda variables, sink: None)
        else:
            # Text and lookups compile without fail; Jinja compiles them only when the fast path
            # misses (to give the value, or word the error), which most runs never do.
            fn = _with_fallback(fast, _LazyJinja(text, match), single=match is not None)

        def render_scalar(variables: dict[str, Any], sink: Sink) -> Any:
            return _run(path, fn, variables, sink)

        return Compiled(False, renderer=render_scalar)
