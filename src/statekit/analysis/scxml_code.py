"""An SCXML document's conditions and assignments as the code that implements them.

The SCXML reader keeps an ECMAScript `cond` it cannot read as a guard expression as the guard
`scxml.cond` (`params.expr`) and an `<assign>` of an expression as the action `scxml.assign`
(`params.xml`), never evaluating them. Those expressions are the machine's implementations: a
tool that runs the machine (paths, properties, simulation of the model) must evaluate them rather
than assume the conditions true. Here each becomes inline code the sandbox runs: the document's
data are the context's keys, bound as names as the ECMAScript datamodel binds them, `_event` is
`{name, data}`. An expression that needs what the model does not hold (`In(...)`, a location
that is not a plain data name, data names that are not identifiers) stays as it was, and is
listed in `assumedGuards` as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from statekit.model import machine_to_config, parse_machine
from statekit.model.core import MachineModel

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
#: SCXML system functions and variables the model has no value for.
_NEEDS_INTERPRETER = re.compile(r"\bIn\s*\(|\b_sessionid\b|\b_name\b|\b_ioprocessors\b|\b_x\b")


def with_scxml_code(model: MachineModel) -> MachineModel:
    """`model` with its `scxml.cond` guards and `scxml.assign` actions as inline code, where the
    document's data are plain names (else `model` unchanged)."""
    context = model.context
    if not isinstance(context, Mapping) or not all(isinstance(k, str) and _IDENTIFIER.match(k) for k in context):
        return model
    names = list(context)
    config = machine_to_config(model)
    changed = _rewrite(config, names)
    return parse_machine(config) if changed else model


def _prelude(names: list[str]) -> str:
    bound = f"const {{ {', '.join(names)} }} = context; " if names else ""
    return f"({{ context, event }}) => {{ {bound}const _event = {{ name: event.type, data: event }}; return "


def _rewrite(config: Any, names: list[str]) -> bool:
    """Rewrite `config` in place; whether anything changed."""
    changed = False
    if isinstance(config, list):
        for item in config:
            changed = _rewrite(item, names) or changed
        return changed
    if not isinstance(config, dict):
        return False
    for key, value in list(config.items()):
        if key in ("context", "meta", "params", "input", "output"):
            continue
        if key == "guard" and isinstance(value, dict) and value.get("type") == "scxml.cond":
            code = _cond_code(value, names)
            if code is not None:
                config[key] = {"type": "scxml.cond", "code": code}
                changed = True
            continue
        if isinstance(value, dict) and value.get("type") == "scxml.assign":
            assign = _assign_action(value, names)
            if assign is not None:
                config[key] = assign
                changed = True
                continue
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict) and item.get("type") == "scxml.assign":
                    assign = _assign_action(item, names)
                    if assign is not None:
                        value[index] = assign
                        changed = True
                        continue
                changed = _rewrite(item, names) or changed
            continue
        changed = _rewrite(value, names) or changed
    return changed


def _cond_code(guard: Mapping[str, Any], names: list[str]) -> str | None:
    params = guard.get("params")
    expr = params.get("expr") if isinstance(params, Mapping) else None
    if not isinstance(expr, str) or _NEEDS_INTERPRETER.search(expr):
        return None
    return f"{_prelude(names)}({expr}); }}"


def _assign_action(action: Mapping[str, Any], names: list[str]) -> dict[str, Any] | None:
    params = action.get("params")
    xml = params.get("xml") if isinstance(params, Mapping) else None
    if not isinstance(xml, str):
        return None
    from defusedxml.ElementTree import (  # the SCXML reader's parser (formats extra)
        ParseError,
        fromstring,
    )

    try:
        element = fromstring(xml)  # the reader's own serialisation of one element
    except ParseError:
        return None
    location, expr = element.get("location"), element.get("expr")
    if location not in names or not isinstance(expr, str) or len(element) or (element.text or "").strip():
        return None
    if _NEEDS_INTERPRETER.search(expr):
        return None
    return {"type": "xstate.assign", "assignment": {location: {"$js": f"{_prelude(names)}({expr}); }}"}}}
