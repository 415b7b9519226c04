"""Read SCXML into the model (as in XState's own `scxml.ts`, with the differences noted here).

The XML is parsed by `defusedxml` with DTDs forbidden, so entity expansion (billion laughs)
and external entities (XXE) are refused before any expansion happens.

Mapping (see docs/formats.md): every `<state>`/`<parallel>`/`<final>`/`<history>` becomes a
state node whose key is its SCXML id (`.` becomes `$`, as XState's `sanitizeStateId` does).
Targets are written as XState writes them by hand: a sibling key, `.child.path` for a
descendant, and `#id` otherwise (the target node then gets `id: <key>`). Executable content
becomes XState built-in actions where the model can hold it exactly; anything else is kept
verbatim as a named action `scxml.<element>` with `params.xml` (written back unchanged), and
reported as a warning, so nothing is dropped silently.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

import defusedxml.ElementTree as SafeET
from defusedxml.common import DefusedXmlException

from statekit.errors import MachineDefinitionError, ToolError
from statekit.formats import FormatWarning, warning
from statekit.formats.scxml_expr import (
    parse_call,
    parse_delay_ms,
    parse_guard_expr,
    parse_literal,
    prefix_conflicts,
)
from statekit.model import MachineModel, parse_machine

SCXML_NS = "http://www.w3.org/2005/07/scxml"
_Q = "{" + SCXML_NS + "}"
STATE_TAGS = ("state", "parallel", "final", "history")
SCXML_EVENT_PROCESSOR = "http://www.w3.org/TR/scxml/#SCXMLEventProcessor"
_PLATFORM_EVENTS = ("error.execution", "error.communication", "error.platform")
_AFTER_EVENT = re.compile(r"^xstate\.after\.(\d+(?:\.\d+)?)\.(.+)$")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")
MAX_XML_CHARS = 5_000_000

# Serialize SCXML elements with SCXML as the default namespace (`<state>`, not `<ns0:state>`).
# ElementTree's `default_namespace=` option cannot be used: it rejects un-prefixed attributes.
ET.register_namespace("", SCXML_NS)

#: statekit's own attributes (SCXML's ##other-namespace extension point): what SCXML ids cannot
#: carry, so a statekit-written document reads back as the machine it came from. Other SCXML
#: processors ignore them; the document means the same without them.
STATEKIT_NS = "https://statekit.dev/ns/scxml"
_S = "{" + STATEKIT_NS + "}"
#: On a state: its XState key, when the SCXML id is not that key.
KEY_ATTRIBUTE = _S + "key"
#: On a state: its explicit XState id.
ID_ATTRIBUTE = _S + "id"
#: On a transition: its targets as written in XState (a JSON list), when the reader would
#: otherwise write them differently.
TARGET_ATTRIBUTE = _S + "target"
#: On a history state's default transition: XState's implicit default (the history state had
#: no `target`; SCXML requires one, so it is written as XState's default).
IMPLICIT_ATTRIBUTE = _S + "implicit"
#: On the one top-level <parallel>: the machine root itself is parallel (<scxml> cannot be).
ROOT_ATTRIBUTE = _S + "root"
ET.register_namespace("statekit", STATEKIT_NS)


def local(tag: Any) -> str:
    """The local name of an element tag (`{ns}state` -> `state`); '' for comments."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def is_scxml(element: ET.Element, name: str) -> bool:
    return element.tag == _Q + name


def parse_xml(value: str | bytes) -> ET.Element:
    """Parse SCXML text safely, or raise `invalid_input`."""
    if len(value) > MAX_XML_CHARS:
        raise ToolError("input_too_large", f"the SCXML document is over {MAX_XML_CHARS} characters")
    try:
        root = SafeET.fromstring(value, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as error:
        raise ToolError(
            "invalid_input",
            f"SCXML with a DTD or entity declarations is refused (entity expansion and external entities are "
            f"disabled): {type(error).__name__}",
        ) from None
    except ET.ParseError as error:
        raise ToolError("invalid_input", f"invalid XML: {error}") from None
    if root.tag == "scxml":  # no namespace: treat every un-namespaced element as SCXML
        for element in root.iter():
            if isinstance(element.tag, str) and not element.tag.startswith("{"):
                element.tag = _Q + element.tag
    if root.tag != _Q + "scxml":
        raise ToolError("invalid_input", f"the root element is <{local(root.tag)}>, not <scxml>")
    return root


def element_xml(element: ET.Element) -> str:
    """One element as standalone XML text (no tail), SCXML as the default namespace."""
    copy = deepcopy(element)
    copy.tail = None
    # Indentation is layout, not content: normalize it so that the kept text is the same
    # whatever the surrounding document's indentation (a read-write-read round trip).
    for item in copy.iter():
        if item.text is not None and not item.text.strip():
            item.text = None
        if item.tail is not None and not item.tail.strip():
            item.tail = None
    ET.indent(copy, space="  ")
    return ET.tostring(copy, encoding="unicode")


def sanitize_key(state_id: str) -> str:
    return state_id.replace(".", "$")


@dataclass
class _RawState:
    sid: str
    key: str
    element: ET.Element
    parent: _RawState | None
    where: str
    children: list[_RawState] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    #: The explicit XState id a statekit-written document kept (statekit:id).
    explicit_id: str | None = None

    def ancestors(self) -> list[_RawState]:
        result: list[_RawState] = []
        node = self.parent
        while node is not None:
            result.append(node)
            node = node.parent
        return result


class ScxmlReader:
    """One read of one document; collects warnings as it goes."""

    def __init__(self, root: ET.Element) -> None:
        self.root = root
        self.warnings: list[FormatWarning] = []
        self.by_sid: dict[str, _RawState] = {}
        self.needs_id: set[str] = set()
        self.context: dict[str, Any] = {}
        self.has_datamodel = False
        self._generated = 0
        #: Event descriptors of transitions and event names raised or sent, for `event_prefix`.
        self.descriptors: set[str] = set()
        self.event_names: set[str] = set()
        self._warned: set[str] = set()
        name = root.get("name")
        self.machine_key = sanitize_key(name) if name else None
        self.top: list[_RawState] = []
        #: Whether the machine root is parallel (a statekit:root <parallel> wrapper).
        self.root_parallel = False

    def warn(self, code: str, message: str, path: str = "") -> None:
        self.warnings.append(warning(code, message, path))

    def warn_once(self, code: str, message: str, path: str = "") -> None:
        if code not in self._warned:
            self._warned.add(code)
            self.warn(code, message, path)

    # --- pass 1: the state tree -----------------------------------------------------------
    def _collect(self, element: ET.Element, parent: _RawState | None, where: str) -> list[_RawState]:
        states: list[_RawState] = []
        for child in element:
            tag = local(child.tag)
            if not child.tag.startswith(_Q) or tag not in STATE_TAGS:
                continue
            if parent is None and tag == "parallel" and child.get(ROOT_ATTRIBUTE) == "parallel" and not states \
                    and len([e for e in element if local(e.tag) in STATE_TAGS]) == 1:
                # statekit's wrapper for a parallel machine root: its regions are the root's states.
                self.root_parallel = True
                if child.get("id"):
                    self.by_sid[child.get("id", "")] = _RawState(child.get("id", ""), "", child, None, "")
                return self._collect(child, None, where)
            sid = child.get("id")
            if not sid:
                sid = self._generate_id()
                self.warn("generated_id", f"a <{tag}> without an id was given the id {sid!r}", where)
            if sid in self.by_sid:
                raise ToolError("invalid_input", f"duplicate SCXML state id {sid!r}")
            key = child.get(KEY_ATTRIBUTE) or sanitize_key(sid)
            child_where = f"{where}.states.{key}" if where else f"states.{key}"
            raw = _RawState(sid, key, child, parent, child_where, explicit_id=child.get(ID_ATTRIBUTE) or None)
            self.by_sid[sid] = raw
            raw.children = self._collect(child, raw, child_where)
            states.append(raw)
        return states

    def _generate_id(self) -> str:
        while True:
            self._generated += 1
            candidate = f"state{self._generated}"
            if self.root.find(f".//*[@id='{candidate}']") is None and candidate not in self.by_sid:
                return candidate

    # --- pass 2: configs ------------------------------------------------------------------
    def machine_config(self) -> dict[str, Any]:
        self.top = self._collect(self.root, None, "")
        config: dict[str, Any] = {}
        if self.machine_key is not None:
            config["id"] = self.machine_key
        if self.root_parallel:
            config["type"] = "parallel"
        for element in self.root:
            if is_scxml(element, "datamodel"):
                self._datamodel(element, "context")
            elif is_scxml(element, "script"):
                self.warn("script_lost", "a top-level <script> has no XState equivalent and was dropped", "")
        if self.root.get("binding") == "late":
            self.warn("late_binding", "binding=\"late\" is not kept: XState context is bound when the machine starts")
        initial = None if self.root_parallel else self._initial(self.root, self.top, "")
        if initial is not None:
            config["initial"] = initial
        config["states"] = {raw.key: self._state_config(raw) for raw in self.top}
        if self.has_datamodel:  # after the states: their <datamodel>s join the context
            config = {**{k: v for k, v in config.items() if k != "states"}, "context": self.context,
                      "states": config["states"]}
        for sid in self.needs_id:
            raw = self.by_sid[sid]
            # `id` first, as people write it; `_rebuild` re-links the replaced dict.
            raw.config = {"id": raw.key, **{k: v for k, v in raw.config.items() if k != "id"}}
        widened = set()
        for descriptor, name in prefix_conflicts(self.descriptors, self.event_names):
            widened.add(descriptor)
            self.warn("event_prefix", f"SCXML's {descriptor!r} also matches {name!r} (prefix matching), XState's "
                      f"{descriptor!r} only itself: read as {descriptor + '.*'!r}, which matches both")
        if widened:
            for raw in self.by_sid.values():
                if "on" in raw.config:
                    raw.config["on"] = _widen(raw.config["on"], widened)
        return self._rebuild(config)

    def _rebuild(self, config: dict[str, Any]) -> dict[str, Any]:
        """Re-link child configs (their dicts were replaced when ids were added)."""

        def link(raw: _RawState) -> dict[str, Any]:
            if raw.children:
                raw.config["states"] = {child.key: link(child) for child in raw.children}
            return raw.config

        config["states"] = {raw.key: link(raw) for raw in self.top}
        if not config["states"]:
            del config["states"]
        return config

    def _initial(self, element: ET.Element, children: list[_RawState], where: str) -> str | None:
        targets: list[str] = []
        if element.get("initial"):
            targets = element.get("initial", "").split()
        else:
            for item in element:
                if is_scxml(item, "initial"):
                    transition = item.find(_Q + "transition")
                    if transition is not None:
                        targets = transition.get("target", "").split()
                        if len(transition):
                            self.warn("initial_actions_lost", "executable content of an <initial> transition has no "
                                      "XState equivalent and was dropped", where)
        if not targets:
            return children[0].key if children else None
        if len(targets) > 1:
            self.warn("multiple_initial", f"several initial states ({' '.join(targets)}) are not supported by XState; "
                      f"only the first path is kept", where)
        target = self.by_sid.get(targets[0])
        if target is None:
            self.warn("unknown_target", f"initial state {targets[0]!r} does not exist", where)
            return sanitize_key(targets[0])
        for child in children:
            if child is target:
                return child.key
            if child in target.ancestors():
                self.warn("initial_descendant", f"the initial state {targets[0]!r} is not a direct child; XState starts "
                          f"in {child.key!r} and its own initial state instead", where)
                return child.key
        self.warn("unknown_target", f"initial state {targets[0]!r} is not a descendant", where)
        return children[0].key if children else None

    def _datamodel(self, element: ET.Element, where: str) -> None:
        self.has_datamodel = True
        for data in element:
            if not is_scxml(data, "data"):
                continue
            data_id = data.get("id", "")
            if data.get("src") is not None:
                self.warn("data_src_lost", f"data {data_id!r} loads from src={data.get('src')!r}; the value is unknown "
                          "to XState and is set to null", where)
                self.context[data_id] = None
                continue
            expr = data.get("expr")
            text = (data.text or "").strip()
            literal = parse_literal(expr) if expr is not None else parse_literal(text) if text else None
            if literal is not None:
                self.context[data_id] = literal.value
            elif expr is None and not text and len(data) == 0:
                self.context[data_id] = None
            else:
                shown = expr if expr is not None else text or "(XML content)"
                self.warn("data_expression", f"data {data_id!r} is the expression {shown!r}; XState context is static "
                          "data, so it is set to null", where)
                self.context[data_id] = None

    def _state_config(self, raw: _RawState) -> dict[str, Any]:
        element, tag, where = raw.element, local(raw.element.tag), raw.where
        config = raw.config
        if raw.explicit_id is not None:
            config["id"] = raw.explicit_id
        for child in raw.children:
            self._state_config(child)
        if tag in ("parallel", "final", "history"):
            config["type"] = tag
        if tag == "history" and element.get("type"):
            config["history"] = element.get("type")
        if tag == "state" and raw.children:
            initial = self._initial(element, raw.children, where)
            if initial is not None:
                config["initial"] = initial
        elif tag == "state" and (element.get("initial") or element.find(_Q + "initial") is not None):
            self.warn("unknown_target", "an atomic state names an initial state", where)
        entry: list[Any] = []
        exit_: list[Any] = []
        after_sends: dict[str, int | float] = {}
        for item in element:
            if is_scxml(item, "onentry"):
                entry.extend(self._actions(item, f"{where}.entry" if where else "entry", after_sends))
            elif is_scxml(item, "onexit"):
                exit_.extend(self._actions(item, f"{where}.exit" if where else "exit", None))
            elif is_scxml(item, "datamodel"):
                self.warn_once("nested_datamodel", "data declared in states is merged into the machine context", where)
                self._datamodel(item, where)
            elif tag == "final" and is_scxml(item, "donedata"):
                self._donedata(item, config, where)
        invokes = [self._invoke(item, f"{where}.invoke[{i}]") for i, item in enumerate(element.findall(_Q + "invoke"))]
        self._transitions(raw, config, invokes, after_sends)
        if after_sends:
            # The delayed sends that implement `after` are not actions of their own.
            entry = [a for a in entry if not _is_after_send(a, after_sends)]
            exit_ = [a for a in exit_ if not _is_after_cancel(a, after_sends)]
        if entry:
            config["entry"] = entry
        if exit_:
            config["exit"] = exit_
        if invokes:
            config["invoke"] = invokes
        return config

    def _donedata(self, element: ET.Element, config: dict[str, Any], where: str) -> None:
        content = element.find(_Q + "content")
        if content is not None:
            expr = content.get("expr")
            literal = parse_literal(expr) if expr is not None else parse_literal((content.text or "").strip())
            if literal is not None:
                config["output"] = literal.value
                return
        params = element.findall(_Q + "param")
        if params and content is None:
            output: dict[str, Any] = {}
            for param in params:
                literal = parse_literal(param.get("expr"))
                if literal is None or param.get("location") is not None:
                    break
                output[param.get("name", "")] = literal.value
            else:
                config["output"] = output
                return
        self.warn("donedata_lost", f"<donedata> with expressions has no static XState output and was dropped: "
                  f"{element_xml(element)}", where)

    def _invoke(self, element: ET.Element, where: str) -> dict[str, Any]:
        invoke: dict[str, Any] = {"src": element.get("src") or element.get("type") or "scxml.invoke"}
        if element.get("id"):
            invoke["id"] = element.get("id")
        simple = set(element.attrib) <= {"src", "id"} and len(element) == 0
        if not simple:
            invoke["scxml"] = element_xml(element)
            self.warn("invoke_kept", "this <invoke> has content, parameters or expressions XState cannot hold; it is "
                      "kept verbatim under invoke.scxml and written back unchanged", where)
        return invoke

    # --- transitions ----------------------------------------------------------------------
    def _transitions(
        self, raw: _RawState, config: dict[str, Any], invokes: list[dict[str, Any]], after_sends: dict[str, int | float]
    ) -> None:
        on: dict[str, list[Any]] = {}
        always: list[Any] = []
        after: dict[str, list[Any]] = {}
        done: list[Any] = []
        invoke_handlers: list[dict[str, list[Any]]] = [{} for _ in invokes]
        seen: list[str] = []
        for index, element in enumerate(raw.element.findall(_Q + "transition")):
            where = f"{raw.where}.transition[{index}]"
            transition = self._transition(raw, element, where)
            if local(raw.element.tag) == "history":
                self._history_default(raw, element, transition, where)
                continue
            events = (element.get("event") or "").split()
            if not events:
                always.append(transition)
                continue
            for event in events:
                self.descriptors.add(event)
                self.event_names.add(event)
                self._check_order(seen, event, where)
                seen.append(event)
                handler = self._event_handler(raw, event, invokes, after_sends, where)
                kind, key = handler
                if kind == "on":
                    on.setdefault(key, []).append(transition)
                elif kind == "after":
                    after.setdefault(key, []).append(transition)
                elif kind == "onDone":
                    done.append(transition)
                else:  # invoke.onDone / invoke.onError / invoke.onSnapshot
                    invoke_handlers[int(key)].setdefault(kind.split(".", 1)[1], []).append(transition)
        if on:
            config["on"] = on
        if always:
            config["always"] = always
        if after:
            config["after"] = after
            after_sends_used = {event for event in after_sends if any(event.startswith(f"xstate.after.{k}.") for k in after)}
            for event in list(after_sends):
                if event not in after_sends_used:
                    del after_sends[event]
        else:
            after_sends.clear()
        if done:
            config["onDone"] = done
        for invoke, handlers in zip(invokes, invoke_handlers, strict=True):
            invoke.update(handlers)

    def _check_order(self, seen: list[str], event: str, where: str) -> None:
        for earlier in seen:
            if earlier != event and _descriptor_covers(earlier, event):
                self.warn("transition_order", f"{earlier!r} comes before the more specific {event!r}; SCXML picks by "
                          "document order, XState picks exact event names before wildcards", where)
                return

    def _event_handler(
        self, raw: _RawState, event: str, invokes: list[dict[str, Any]], after_sends: dict[str, int | float], where: str
    ) -> tuple[str, str]:
        if event.startswith("done.state."):
            target_sid = event[len("done.state."):]
            if target_sid == raw.sid:
                return "onDone", ""
            target = self.by_sid.get(target_sid)
            if target is not None:
                self.needs_id.add(target.sid)
                return "on", f"xstate.done.state.{target.key}"
            return "on", f"xstate.done.state.{target_sid}"
        invoke_ids = [inv.get("id") for inv in invokes]
        for prefix, kind, xstate_prefix in (
            ("done.invoke", "invoke.onDone", "xstate.done.actor"),
            ("xstate.error.actor", "invoke.onError", "xstate.error.actor"),
            ("xstate.snapshot", "invoke.onSnapshot", "xstate.snapshot"),
        ):
            if event == prefix:
                if len(invokes) == 1 and "id" not in invokes[0]:
                    return kind, "0"
                # Any invoke's event, as SCXML's prefix matching means: XState's wildcard.
                return "on", f"{xstate_prefix}.*"
            if event.startswith(prefix + "."):
                invoke_id = event[len(prefix) + 1:]
                if invoke_id in invoke_ids:
                    return kind, str(invoke_ids.index(invoke_id))
                if prefix == "done.invoke":
                    return "on", f"{xstate_prefix}.{invoke_id}"
        after = _AFTER_EVENT.match(event)
        if after and after.group(2) == raw.sid and event in after_sends:
            delay = after_sends[event]
            return "after", str(int(delay)) if float(delay).is_integer() else str(delay)
        if event in _PLATFORM_EVENTS or event.startswith("error."):
            self.warn_once("platform_event", f"{event!r} is raised by SCXML processors; XState never raises it", where)
        return "on", event

    def _transition(self, raw: _RawState, element: ET.Element, where: str) -> dict[str, Any]:
        transition: dict[str, Any] = {}
        target_sids = (element.get("target") or "").split()
        if target_sids:
            targets = self._written_targets(raw, element, target_sids)
            if targets is None:
                targets = [self._target(raw, sid, where) for sid in target_sids]
            transition["target"] = targets[0] if len(targets) == 1 else targets
            resolved = [self.by_sid.get(sid) for sid in target_sids]
            inside = all(t is not None and (t is raw or raw in t.ancestors()) for t in resolved)
            proper = all(t is not None and raw in t.ancestors() for t in resolved)
            internal = element.get("type") == "internal"
            if inside and not (internal and proper):
                transition["reenter"] = True
        cond = element.get("cond")
        if cond is not None:
            transition["guard"] = self._guard(cond, f"{where}.guard")
        actions = self._actions(element, f"{where}.actions", None)
        if actions:
            transition["actions"] = actions
        return transition

    def _written_targets(self, source: _RawState, element: ET.Element, target_sids: list[str]) -> list[str] | None:
        """The XState targets statekit wrote (statekit:target), if they still name the SCXML targets."""
        written = element.get(TARGET_ATTRIBUTE)
        if written is None:
            return None
        try:
            targets = json.loads(written)
        except ValueError:
            targets = None
        if not isinstance(targets, list) or len(targets) != len(target_sids) \
                or not all(isinstance(t, str) for t in targets):
            self.warn("target_attribute_ignored", "a statekit:target attribute is not a JSON list of the targets; "
                      "the SCXML target is read instead")
            return None
        for target, sid in zip(targets, target_sids, strict=True):
            if self._resolve_written(source, target) is not self.by_sid.get(sid):
                # Edited by something that did not know statekit's attribute: SCXML's target wins.
                self.warn("target_attribute_ignored", f"statekit:target {target!r} no longer names the SCXML "
                          f"target {sid!r}; the SCXML target is read instead")
                return None
        return targets

    def _resolve_written(self, source: _RawState, target: str) -> _RawState | None:
        """XState's target resolution on the document's states (`#id`, `.child`, `sibling.child`)."""
        if target.startswith("#"):
            wanted = target[1:]
            for raw in self.by_sid.values():
                if raw.key and (raw.explicit_id == wanted or self._default_id(raw) == wanted):
                    return raw
            return None
        if target.startswith("."):
            node: _RawState | None = source
            keys = target[1:].split(".")
        else:
            node = source.parent
            keys = target.split(".")
        for key in keys:
            children = node.children if node is not None else self.top
            node = next((child for child in children if child.key == key), None)
            if node is None:
                return None
        return node

    def _default_id(self, raw: _RawState) -> str:
        keys = [raw.key, *(node.key for node in raw.ancestors())]
        return ".".join([self.machine_key or "(machine)", *reversed(keys)])

    def _history_default(self, raw: _RawState, element: ET.Element, transition: dict[str, Any], where: str) -> None:
        if element.get(IMPLICIT_ATTRIBUTE) == "true":
            return  # XState's implicit default, written only because SCXML requires one
        if "target" in transition:
            raw.config["target"] = transition["target"]
        if "actions" in transition:
            self.warn("history_actions_lost", "executable content of a history default transition has no XState "
                      "equivalent and was dropped", where)

    def _target(self, source: _RawState, target_sid: str, where: str) -> str:
        target = self.by_sid.get(target_sid)
        if target is None:
            self.warn("unknown_target", f"target {target_sid!r} does not exist", where)
            return "#" + sanitize_key(target_sid)
        if source.parent is target.parent:
            return target.key
        if target.explicit_id is not None:
            return "#" + target.explicit_id
        ancestors = target.ancestors()
        if source in ancestors:
            chain = [target.key]
            for node in ancestors:
                if node is source:
                    break
                chain.append(node.key)
            return "." + ".".join(reversed(chain))
        self.needs_id.add(target.sid)
        return "#" + target.key

    def _guard(self, cond: str, where: str) -> Any:
        parsed = parse_guard_expr(cond)
        if parsed is None:
            self.warn("expression_kept", f"cond {cond!r} is kept as the guard scxml.cond (params.expr); it needs an "
                      "implementation, statekit never evaluates ECMAScript", where)
            return {"type": "scxml.cond", "params": {"expr": cond}}
        return self._resolve_state_refs(parsed, where)

    def _resolve_state_refs(self, guard: Any, where: str) -> Any:
        if not isinstance(guard, dict):
            return guard
        if guard["type"] == "xstate.stateIn":
            sid = guard["state"][1]
            target = self.by_sid.get(sid)
            if target is None:
                self.warn("unknown_target", f"In({sid!r}) names no state", where)
                return {"type": "xstate.stateIn", "state": "#" + sanitize_key(sid)}
            self.needs_id.add(sid)
            return {"type": "xstate.stateIn", "state": "#" + target.key}
        if guard["type"] in ("xstate.and", "xstate.or"):
            return {**guard, "guards": [self._resolve_state_refs(g, where) for g in guard["guards"]]}
        if guard["type"] == "xstate.not":
            return {**guard, "guard": self._resolve_state_refs(guard["guard"], where)}
        return guard

    # --- executable content ---------------------------------------------------------------
    def _actions(self, parent: ET.Element, where: str, after_sends: dict[str, int | float] | None) -> list[Any]:
        result: list[Any] = []
        for element in parent:
            if not isinstance(element.tag, str):
                continue
            index = len(result)
            action = self._action(element, f"{where}[{index}]", after_sends)
            if action is not None:
                result.append(action)
        return result

    def _keep(self, element: ET.Element, where: str, why: str) -> dict[str, Any]:
        name = local(element.tag) if element.tag.startswith(_Q) else "element"
        self.warn("executable_kept", f"<{local(element.tag)}> {why}; kept verbatim as the action scxml.{name} "
                  "(params.xml), written back unchanged; it needs an implementation to run in XState", where)
        return {"type": f"scxml.{name}", "params": {"xml": element_xml(element)}}

    def _action(self, element: ET.Element, where: str, after_sends: dict[str, int | float] | None) -> Any:
        if not element.tag.startswith(_Q):
            return self._keep(element, where, "is not SCXML")
        tag = local(element.tag)
        if tag == "raise":
            self.event_names.add(element.get("event", ""))
            return {"type": "xstate.raise", "event": {"type": element.get("event", "")}}
        if tag == "send":
            return self._send(element, where, after_sends)
        if tag == "log":
            return self._log(element, where)
        if tag == "assign":
            location = element.get("location", "")
            literal = parse_literal(element.get("expr")) if len(element) == 0 and not (element.text or "").strip() else None
            if literal is not None and _IDENT.match(location):
                return {"type": "xstate.assign", "assignment": {location: literal.value}}
            return self._keep(element, where, "assigns an expression")
        if tag == "cancel":
            if element.get("sendid") is not None and element.get("sendidexpr") is None:
                return {"type": "xstate.cancel", "sendId": element.get("sendid")}
            literal = parse_literal(element.get("sendidexpr")) if element.get("sendid") is None else None
            if literal is not None and isinstance(literal.value, str):  # the writer's form for any id
                return {"type": "xstate.cancel", "sendId": literal.value}
            return self._keep(element, where, "uses an expression")
        if tag == "if":
            branch = self._if(element, where)
            if branch is not None:
                return {"type": "xstate.enqueueActions", "actions": [branch]}
            return self._keep(element, where, "has a condition outside the guard grammar")
        if tag == "script":
            call = parse_call(element.text or "") if element.get("src") is None else None
            if call is not None:
                name, params = call
                return name if params is None else {"type": name, "params": params.value}
            return self._keep(element, where, "runs ECMAScript")
        return self._keep(element, where, "has no XState equivalent")

    def _log(self, element: ET.Element, where: str) -> Any:
        action: dict[str, Any] = {"type": "xstate.log"}
        expr = element.get("expr")
        if expr is not None:
            literal = parse_literal(expr)
            if literal is None:
                return self._keep(element, where, "logs an expression")
            action["value"] = literal.value
        if element.get("label") is not None:
            action["label"] = element.get("label")
        return action

    def _send(self, element: ET.Element, where: str, after_sends: dict[str, int | float] | None) -> Any:
        attributes = set(element.attrib)
        dynamic = attributes & {"eventexpr", "targetexpr", "typeexpr", "idlocation", "delayexpr", "namelist"}
        send_type = element.get("type")
        if dynamic or element.get("event") is None or element.find(_Q + "content") is not None:
            return self._keep(element, where, "uses expressions or content")
        if send_type not in (None, SCXML_EVENT_PROCESSOR, "scxml"):
            return self._keep(element, where, f"uses the event processor {send_type!r}")
        event: dict[str, Any] = {"type": element.get("event", "")}
        self.event_names.add(event["type"])
        for param in element:
            if not is_scxml(param, "param"):
                continue
            literal = parse_literal(param.get("expr"))
            if literal is None or param.get("location") is not None:
                return self._keep(element, where, "sends data computed by expressions")
            event[param.get("name", "")] = literal.value
        delay_text = element.get("delay")
        delay = parse_delay_ms(delay_text)
        if delay_text is not None and delay is None:
            return self._keep(element, where, f"has a delay {delay_text!r} that is not a time")
        target = element.get("target")
        action: dict[str, Any]
        if target is None and delay is None:
            # A plain <send> goes to the external queue: after the current macrostep, as an
            # XState `raise` with a delay (of 0) is; `raise` without delay is the internal queue.
            delay = 0
        if target in (None, "#_internal"):
            action = {"type": "xstate.raise", "event": event}
        elif target == "#_parent":
            action = {"type": "xstate.sendParent", "event": event}
        elif target.startswith("#_") and not target.startswith("#_scxml_") and _IDENT.match(target[2:].replace(".", "_")):
            action = {"type": "xstate.sendTo", "to": target[2:], "event": event}
        else:
            return self._keep(element, where, f"sends to {target!r}")
        if delay is not None:
            action["delay"] = delay
        if element.get("id") is not None:
            action["id"] = element.get("id")
        if (after_sends is not None and delay is not None and target is None and set(event) == {"type"}
                and _AFTER_EVENT.match(event["type"])):
            after_sends[event["type"]] = delay
        return action

    def _if(self, element: ET.Element, where: str) -> dict[str, Any] | None:
        """`<if>/<elseif>/<else>` as nested `{"if", "then", "else"}` branches."""
        branches: list[tuple[str | None, list[ET.Element]]] = [(element.get("cond"), [])]
        for child in element:
            if is_scxml(child, "elseif"):
                branches.append((child.get("cond"), []))
            elif is_scxml(child, "else"):
                branches.append((None, []))
            else:
                branches[-1][1].append(child)
        otherwise: list[Any] = []
        result: dict[str, Any] | None = None
        for cond, body in reversed(branches):
            holder = ET.Element("body")
            holder.extend(body)
            actions = self._actions(holder, f"{where}.then", None)
            if cond is None:
                otherwise = actions
                continue
            guard = parse_guard_expr(cond)
            if guard is None:
                guard = {"type": "scxml.cond", "params": {"expr": cond}}
                self.warn("expression_kept", f"cond {cond!r} is kept as the guard scxml.cond (params.expr)", where)
            branch: dict[str, Any] = {"if": self._resolve_state_refs(guard, where), "then": actions}
            if otherwise:
                branch["else"] = otherwise
            result = branch
            otherwise = [branch]
        return result


def _widen(on: dict[str, list[Any]], descriptors: set[str]) -> dict[str, list[Any]]:
    """`on` with each of `descriptors` replaced by its `.*` form, in place (merged if both exist)."""
    result: dict[str, list[Any]] = {}
    for key, transitions in on.items():
        result.setdefault(f"{key}.*" if key in descriptors else key, []).extend(transitions)
    return result


def _descriptor_covers(broad: str, narrow: str) -> bool:
    if broad in ("*", ".*"):
        return narrow not in ("*", ".*")
    stem = broad[:-2] if broad.endswith(".*") else broad
    narrow_stem = narrow[:-2] if narrow.endswith(".*") else narrow
    return narrow_stem.startswith(stem + ".")  # `a` and `a.*` are the same SCXML descriptor


def _is_after_send(action: Any, after_sends: dict[str, int | float]) -> bool:
    return (
        isinstance(action, dict)
        and action.get("type") == "xstate.raise"
        and isinstance(action.get("event"), dict)
        and action["event"].get("type") in after_sends
        and action.get("id") in (None, action["event"]["type"])
    )


def _is_after_cancel(action: Any, after_sends: dict[str, int | float]) -> bool:
    return isinstance(action, dict) and action.get("type") == "xstate.cancel" and action.get("sendId") in after_sends


def read_scxml(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
    """SCXML text (str or bytes) -> (model, warnings)."""
    if not isinstance(value, str | bytes):
        raise ToolError("invalid_input", "SCXML must be given as XML text")
    reader = ScxmlReader(parse_xml(value))
    config = reader.machine_config()
    try:
        return parse_machine(config), reader.warnings
    except MachineDefinitionError as error:
        raise ToolError("invalid_input", f"the SCXML does not make a valid machine: {error}") from None
