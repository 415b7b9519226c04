"""Values written in a document: `<content>`, `<param>`, `<data>` children and CSS2 delays."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from statekit.formats.scxml_expr import parse_delay_ms
from statekit.formats.scxml_read import element_xml, is_scxml
from statekit.scxml.datamodel import UNDEFINED, Datamodel, ExecutionError


def text_value(text: str) -> Any:
    """Inline content as a value (Appendix B.2): JSON if it is JSON, else a space-normalized string."""
    stripped = text.strip()
    if not stripped:
        return UNDEFINED
    try:
        return json.loads(stripped)
    except ValueError:
        return " ".join(stripped.split())


def inline_value(element: ET.Element) -> Any:
    """The value of an element's inline children: its text, or its child elements as XML text."""
    elements = [child for child in element if isinstance(child.tag, str)]
    if elements:
        return "".join(element_xml(child) for child in elements)
    return text_value(element.text or "")


def content_value(element: ET.Element, datamodel: Datamodel) -> Any:
    """The value of a `<content>` element: its `expr`, else its inline content."""
    expr = element.get("expr")
    if expr is not None:
        return datamodel.evaluate(expr)
    return inline_value(element)


def param_values(element: ET.Element, datamodel: Datamodel, into: dict[str, Any]) -> None:
    """Add the `<param>` children of `element` to `into` (name -> value)."""
    for param in element:
        if not is_scxml(param, "param"):
            continue
        name = param.get("name")
        if not name:
            raise ExecutionError("<param> has no name")
        expr = param.get("expr")
        location = param.get("location")
        if expr is not None:
            into[name] = datamodel.evaluate(expr)
        elif location is not None:
            into[name] = datamodel.evaluate(location)
        else:
            raise ExecutionError(f"<param name={name!r}> has neither expr nor location")


def namelist_values(namelist: str | None, datamodel: Datamodel, into: dict[str, Any]) -> None:
    for name in (namelist or "").split():
        into[name] = datamodel.evaluate(name)


def delay_ms(value: Any) -> float:
    """A CSS2 time (`1s`, `500ms`, `.5s`) as milliseconds; ExecutionError when it is none."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    parsed = parse_delay_ms(str(value).strip()) if isinstance(value, str) else None
    if parsed is None:
        raise ExecutionError(f"delay {value!r} is not a CSS2 time such as '1s' or '500ms'")
    return float(parsed)
