"""A fast evaluator for the templates most pipelines use: ``{{ params.x }}``, ``{{ item }}``,
``out/{{ params.photo | stem }}/``. It gives the same values as Jinja; anything it does not handle
(or any miss, so that Jinja can word the error) goes to the compiled Jinja template instead.

Jinja builds a new context for every call, which costs more than the lookups themselves; a batch
renders the same few templates thousands of times.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from jinja2 import nodes

__all__ = ["Miss", "fast_evaluator"]

Evaluator = Callable[[Mapping[str, Any]], Any]


class Miss(Exception):
    """The fast path cannot answer; ask Jinja."""


def _expression(node: nodes.Node, filters: Mapping[str, Callable[[Any], Any]]) -> Evaluator | None:
    if isinstance(node, nodes.Name) and node.ctx == "load":
        name = node.name

        def load(variables: Mapping[str, Any]) -> Any:
            try:
                return variables[name]
            except KeyError:
                raise Miss from None

        return load
    if isinstance(node, nodes.Const):
        value = node.value
        return lambda variables: value
    if isinstance(node, nodes.Getattr) and not hasattr(dict, node.attr):
        found = _expression(node.node, filters)
        if found is None:
            return None
        source: Evaluator = found
        attr = node.attr

        def getattr_(variables: Mapping[str, Any]) -> Any:
            obj = source(variables)
            if type(obj) is not dict or attr not in obj:
                raise Miss
            return obj[attr]

        return getattr_
    if (
        isinstance(node, nodes.Filter)
        and node.name in filters
        and node.node is not None
        and not node.args
        and not node.kwargs
        and node.dyn_args is None
        and node.dyn_kwargs is None
    ):
        argument = _expression(node.node, filters)
        if argument is None:
            return None
        function = filters[node.name]
        return lambda variables: function(argument(variables))
    return None


def fast_evaluator(
    ast: nodes.Template, single: bool, filters: Mapping[str, Callable[[Any], Any]]
) -> Evaluator | None:
    """An evaluator for ``ast`` when it is simple enough, else None.

    ``single``: the string is one ``{{ expression }}`` and keeps the expression's type.
    """
    if len(ast.body) != 1 or not isinstance(ast.body[0], nodes.Output):
        return None
    parts: list[Evaluator | str] = []
    for node in ast.body[0].nodes:
        if isinstance(node, nodes.TemplateData):
            parts.append(node.data)
            continue
        evaluator = _expression(node, filters)
        if evaluator is None:
            return None
        parts.append(evaluator)
    if single:
        if len(parts) != 1 or isinstance(parts[0], str):
            return None
        return parts[0]
    pieces = tuple(parts)

    def concatenate(variables: Mapping[str, Any]) -> str:
        return "".join(p if isinstance(p, str) else str(p(variables)) for p in pieces)

    return concatenate
