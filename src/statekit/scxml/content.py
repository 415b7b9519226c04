"""Values written in a document: `<content>`, `<param>`, `<data>` children and CSS2 delays."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import defusedxml.ElementTree as SafeET
from defusedxml.common import DefusedXmlException

from statekit.formats.scxml_expr import parse_delay_ms
from statekit.formats.scxml_read import element_xml, is_scxml
from statekit.scxml.datamodel import UNDEFINED, Datamodel, ExecutionError

#: The marker XML content crosses the datamodel boundary under (the ECMAScript datamodel turns
#: it into a DOM document, and a DOM node back into it).
XML_KEY = "__statekit_xml__"


def text_value(text: str) -> Any:
    """Content as a value (Appendix B.2): JSON if it is JSON, a DOM if it is an XML document
    (parsed with DTDs and entities refused), else a space-normalized string."""
    stripped = text.strip()
    if not stripped:
        return UNDEFINED
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    if stripped.startswith("<"):
        try:
            root = SafeET.fromstring(stripped, forbid_dtd=True, forbid_entities=True, forbid_external=True)
        except (ET.ParseError, DefusedXmlException):
            pass
        else:
            return xml_value(root)
    return " ".join(stripped.split())


def xml_value(element: ET.Element) -> dict[str, Any]:
    """An XML element as the datamodel's XML value."""
    return {XML_KEY: _tree(element)}


def _tree(element: ET.Element) -> dict[str, Any]:
    tag = element.tag if isinstance(element.tag, str) else ""
    namespace, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    children: list[Any] = [element.text] if element.text else []
    for child in element:
        if isinstance(child.tag, str):
            children.append(_tree(child))
        if child.tail:
            children.append(child.tail)
    tree: dict[str, Any] = {"tag": name, "attrs": dict(element.attrib), "children": children}
    if namespace:
        tree["ns"] = namespace
    return tree


def xml_element(value: Any) -> ET.Element | None:
    """The XML element a datamodel XML value stands for, or None if `value` is none."""
    if not isinstance(value, dict) or set(value) != {XML_KEY} or not isinstance(value[XML_KEY], dict):
        return None
    return _element(value[XML_KEY])


def _element(tree: dict[str, Any]) -> ET.Element:
    tag = str(tree.get("tag", ""))
    namespace = tree.get("ns")
    element = ET.Element(f"{{{namespace}}}{tag}" if namespace else tag,
                         {str(k): str(v) for k, v in dict(tree.get("attrs") or {}).items()})
    last: ET.Element | None = None
    for child in tree.get("children") or []:
        if isinstance(child, str):
            if last is None:
                element.text = (element.text or "") + child
            else:
                last.tail = (last.tail or "") + child
        elif isinstance(child, dict):
            last = _element(child)
            element.append(last)
    return element


def inline_value(element: ET.Element) -> Any:
    """The value of an element's inline children: its text; one child element is an XML
    document (a DOM in the ECMAScript datamodel); several are their XML text."""
    elements = [child for child in element if isinstance(child.tag, str)]
    if len(elements) == 1 and not (element.text or "").strip() and not (elements[0].tail or "").strip():
        return xml_value(elements[0])
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
