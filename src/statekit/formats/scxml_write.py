"""Write the model as SCXML (W3C SCXML 1.0, valid against its XML Schema).

The writer is the inverse of `scxml_read` on the subset SCXML can express (docs/formats.md
defines it); everything else becomes a warning naming the config path that was not carried.
`after` transitions are written the SCXML way: a delayed `<send>` on entry, a `<cancel>` on
exit, and a transition on the delayed event; the reader recognises the pattern and gives the
`after` transition back.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from typing import Any

import defusedxml.ElementTree as SafeET

from statekit.errors import MachineDefinitionError
from statekit.formats import FormatWarning, warning
from statekit.formats.scxml_expr import call_expr, format_delay, literal_expr, prefix_conflicts
from statekit.formats.scxml_read import (
    ID_ATTRIBUTE,
    IMPLICIT_ATTRIBUTE,
    KEY_ATTRIBUTE,
    ROOT_ATTRIBUTE,
    SCXML_NS,
    TARGET_ATTRIBUTE,
)
from statekit.model import Action, EnqueueBranch, Guard, MachineModel, StateNode, Transition
from statekit.model.inline import is_inline
from statekit.model.resolve import Resolver
from statekit.model.unresolved import unresolved_marker

_Q = "{" + SCXML_NS + "}"
_NCNAME_START = re.compile(r"^[^\W\d]", re.UNICODE)
_NCNAME_BAD = re.compile(r"[^\w.\-]", re.UNICODE)
_EVENT_TOKEN = re.compile(r"^(?:\.?\*|[\w:\-]+(?:\.[\w:\-]+)*(?:\.\*)?)$", re.UNICODE)
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")
_RESERVED = frozenset({"true", "false", "null", "undefined", "In"})


def ncname(text: str) -> str:
    """`text` made into an XML NCName (`$` back to `.`, the reader's inverse of XState's sanitizing)."""
    name = _NCNAME_BAD.sub("_", text.replace("$", "."))
    if not name or not (_NCNAME_START.match(name) or name[0] == "_"):
        name = "_" + name
    return name


def _is_descendant(node: StateNode, ancestor: StateNode) -> bool:
    return len(node.path) > len(ancestor.path) and node.path[: len(ancestor.path)] == ancestor.path


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


class ScxmlWriter:
    def __init__(self, model: MachineModel) -> None:
        self.model = model
        self.resolver = Resolver(model)
        self.warnings: list[FormatWarning] = []
        self.sids: dict[tuple[str, ...], str] = {}
        self.invoke_ids: dict[tuple[tuple[str, ...], int], str | None] = {}
        self.where: dict[tuple[str, ...], str] = {}
        self._assign_ids()

    def warn(self, code: str, message: str, path: str = "") -> None:
        self.warnings.append(warning(code, message, path))

    # --- ids ------------------------------------------------------------------------------
    def _assign_ids(self) -> None:
        # XML ids share one namespace: data ids (variable names, never renamed) come first.
        context = self.model.context if self.model.has_context else None
        used: set[str] = {str(k) for k in context if ncname(str(k)) == str(k)} if isinstance(context, Mapping) else set()
        self.parents: dict[tuple[str, ...], StateNode] = {}
        for node in self.model.root.walk():
            for child in node.children:
                self.parents[child.path] = node

        def unique(candidates: list[str]) -> str:
            for candidate in candidates:
                if candidate not in used:
                    return candidate
            base, number = candidates[-1], 2
            while f"{base}_{number}" in used:
                number += 1
            return f"{base}_{number}"

        self.where[()] = ""
        for node in self.model.root.walk():
            for child in node.children:
                self.where[child.path] = _join(_join(self.where[node.path], "states"), child.key)
            if node is self.model.root:
                continue
            candidates = [ncname(node.key)]
            if node.explicit_id:
                candidates.append(ncname(node.explicit_id))
            candidates.append(ncname("_".join(node.path)))
            sid = unique(candidates)
            used.add(sid)
            # A key that is not its SCXML id is kept in statekit:key, an explicit id in statekit:id.
            self.sids[node.path] = sid
        # A parallel root is written as one top-level <parallel> (<scxml> itself is compound).
        self.root_sid = unique([ncname(self.model.root.key), "_machine"])
        used.add(self.root_sid)
        for node in self.model.root.walk():
            for index, invoke in enumerate(node.invoke):
                if not invoke.id_given:
                    self.invoke_ids[(node.path, index)] = None
                    continue
                invoke_id = unique([ncname(invoke.id)])
                used.add(invoke_id)
                self.invoke_ids[(node.path, index)] = invoke_id
                if invoke_id != invoke.id:
                    self.warn("invoke_id_changed", f"invoke id {invoke.id!r} is written as {invoke_id!r}",
                              f"{self.where[node.path]}.invoke[{index}]")

    # --- document -------------------------------------------------------------------------
    def write(self) -> str:
        model, root = self.model, self.model.root
        scxml = ET.Element(_Q + "scxml", {"version": "1.0", "datamodel": "ecmascript"})
        if model.id_given:
            scxml.set("name", re.sub(r"[^\w.\-:]", "_", root.key) or "_")
        if root.initial is not None:
            initial = root.child(root.initial)
            if initial is not None:
                scxml.set("initial", self.sids[initial.path])
            else:
                self.warn("unknown_target", f"the initial state {root.initial!r} does not exist", "initial")
        self._context(scxml)
        self._root_losses(root)
        container = scxml
        if root.type == "parallel":
            container = ET.SubElement(scxml, _Q + "parallel", {"id": self.root_sid, ROOT_ATTRIBUTE: "parallel"})
        for child in root.children:
            container.append(self._state(child))
        for key in model.extra:
            self.warn("field_lost", f"the machine's {key!r} has no SCXML equivalent", key)
        self._prefix_warnings()
        self._fix_send_ids(scxml)
        ET.indent(scxml, space="  ")
        body = ET.tostring(scxml, encoding="unicode")
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"

    def _fix_send_ids(self, scxml: ET.Element) -> None:
        """`<send id>` is an XML ID (unique name) and `<cancel sendid>` must name one: rename
        what is not (with a warning), and cancel other ids through a literal `sendidexpr`."""
        used = {e.get("id", "") for e in scxml.iter() if e.tag != _Q + "send" and e.get("id") is not None}
        renamed: dict[str, str] = {}
        for send in scxml.iter(_Q + "send"):
            send_id = send.get("id")
            if send_id is None:
                continue
            fixed, number = ncname(send_id), 2
            while fixed in used:
                fixed, number = f"{ncname(send_id)}_{number}", number + 1
            used.add(fixed)
            if fixed != send_id:
                self.warn("send_id_changed", f"send id {send_id!r} is written as {fixed!r} (ids must be unique XML "
                          "names)")
                renamed.setdefault(send_id, fixed)
                send.set("id", fixed)
        send_ids = {e.get("id") for e in scxml.iter(_Q + "send")}
        for cancel in scxml.iter(_Q + "cancel"):
            if cancel.get("sendid") is None:
                continue  # `sendidexpr` (kept content)
            send_id = cancel.get("sendid", "")
            send_id = renamed.get(send_id, send_id)
            if send_id in send_ids:
                cancel.set("sendid", send_id)
            else:
                del cancel.attrib["sendid"]
                cancel.set("sendidexpr", literal_expr(send_id))

    def _prefix_warnings(self) -> None:
        descriptors = {t.event for t in self.model.transitions() if t.kind == "on"}
        names = set(descriptors)
        for node in self.model.root.walk():
            for action in (*node.entry, *node.exit, *(a for t in node.transitions for a in t.actions)):
                event = action.fields.get("event") if action.is_builtin else None
                if isinstance(event, Mapping) and isinstance(event.get("type"), str):
                    names.add(event["type"])
                elif isinstance(event, str):
                    names.add(event)
        for descriptor, name in prefix_conflicts(descriptors, names):
            self.warn("event_prefix", f"XState's {descriptor!r} matches only itself, SCXML's also matches {name!r} "
                      "(prefix matching); use distinct event names or a wildcard descriptor")

    def _context(self, scxml: ET.Element) -> None:
        if not self.model.has_context or self.model.context is None:
            return
        context = self.model.context
        if not isinstance(context, Mapping):
            self.warn("context_lost", "the context is not an object of named values; SCXML data needs names", "context")
            return
        datamodel = ET.SubElement(scxml, _Q + "datamodel")
        for key, value in context.items():
            name = str(key)
            if ncname(name) != name:
                self.warn("context_lost", f"context key {name!r} is not an XML name; dropped", f"context.{name}")
                continue
            data = ET.SubElement(datamodel, _Q + "data", {"id": name})
            expr = self._literal(value, f"context.{name}")
            if expr is not None:
                data.set("expr", expr)

    def _literal(self, value: Any, where: str) -> str | None:
        try:
            return literal_expr(value)
        except (TypeError, ValueError):
            self.warn("not_serializable", f"{type(value).__name__} is Python code or not JSON; dropped", where)
            return None

    def _root_losses(self, root: StateNode) -> None:
        losses = {
            "entry": bool(root.entry), "exit": bool(root.exit), "transitions": bool(root.transitions),
            "invoke": bool(root.invoke), "output": root.has_output,
        }
        for name, lost in losses.items():
            if lost:
                self.warn("root_" + name + "_lost", f"the machine root's {name} has no SCXML equivalent (<scxml> "
                          "holds no transitions, entry/exit actions, invokes or output); wrap the states in a "
                          "compound state to keep them", name)
        self._annotation_losses(root, "")

    def _annotation_losses(self, node: StateNode, where: str) -> None:
        if node.tags:
            self.warn("tags_lost", f"tags {list(node.tags)} have no SCXML equivalent", _join(where, "tags"))
        if node.meta is not None:
            self.warn("meta_lost", "meta has no SCXML equivalent", _join(where, "meta"))
        if node.description is not None:
            self.warn("description_lost", "description has no SCXML equivalent", _join(where, "description"))
        for key in node.extra:
            self.warn("field_lost", f"{key!r} has no SCXML equivalent", _join(where, key))

    # --- states ---------------------------------------------------------------------------
    def _state(self, node: StateNode) -> ET.Element:
        where = self.where[node.path]
        tag = {"parallel": "parallel", "final": "final", "history": "history"}.get(node.type, "state")
        parent = self.parents.get(node.path)
        if tag == "final" and parent is not None and parent.type == "parallel":
            self.warn("final_in_parallel", "SCXML allows no <final> directly inside <parallel>; written as an atomic "
                      "<state>", where)
            tag = "state"
        if tag == "final" and node.children:
            self.warn("final_with_children", "a final state has no children in SCXML; written as a <state>", where)
            tag = "state"
        if tag == "history" and (parent is None or parent.parent_id is None):
            self.warn("history_at_root", "SCXML has no history state directly in <scxml>; written as an atomic "
                      "<state>", where)
            tag = "state"
        element = ET.Element(_Q + tag, {"id": self.sids[node.path]})
        if self.sids[node.path].replace(".", "$") != node.key:
            element.set(KEY_ATTRIBUTE, node.key)
        if node.explicit_id is not None:
            element.set(ID_ATTRIBUTE, node.explicit_id)
        self._annotation_losses(node, where)
        if tag == "history":
            if node.history_given in ("deep", "shallow"):
                element.set("type", str(node.history_given))
            elif node.history == "deep":
                element.set("type", "deep")
            # SCXML requires the default transition; XState's default is the parent's initial state.
            default = ET.SubElement(element, _Q + "transition")
            targets = self._targets(node, node.target, _join(where, "target")) if node.target else (
                self._parent_initial(node))
            if targets:
                default.set("target", " ".join(self.sids[t.path] for t in targets))
            if not node.target:
                default.set(IMPLICIT_ATTRIBUTE, "true")
            elif targets:
                self._keep_written_targets(default, node, node.target, targets)
            self._history_losses(node, where)
            return element
        if node.type == "compound":
            initial = node.child(node.initial) if node.initial else None
            if initial is not None:
                element.set("initial", self.sids[initial.path])
            elif node.initial is not None:
                self.warn("unknown_target", f"the initial state {node.initial!r} does not exist", _join(where, "initial"))
            else:
                self.warn("missing_initial", "no initial state: SCXML enters the first child", where)
        after_events: dict[str, int | float] = {}
        # SCXML picks the first enabled transition in document order; XState tries exact event
        # names first, then longer wildcard descriptors. Writing the transitions in XState's
        # order keeps the selection the same (a stable sort: same-rank order is kept).
        ordered = sorted(node.transitions, key=_selection_rank)
        transitions = [self._transition(node, t, after_events) for t in ordered]
        entry = self._actions(node.entry, _join(where, "entry"))
        exit_ = self._actions(node.exit, _join(where, "exit"))
        for event, delay in after_events.items():
            entry.append(ET.Element(_Q + "send", {"event": event, "delay": format_delay(delay), "id": event}))
            exit_.append(ET.Element(_Q + "cancel", {"sendid": event}))
        if entry:
            ET.SubElement(element, _Q + "onentry").extend(entry)
        if exit_:
            ET.SubElement(element, _Q + "onexit").extend(exit_)
        if tag == "final":
            if node.has_output:
                donedata = ET.SubElement(element, _Q + "donedata")
                content = ET.SubElement(donedata, _Q + "content")
                expr = self._literal(node.output, _join(where, "output"))
                if expr is not None:
                    content.set("expr", expr)
            for transition, item in zip(ordered, transitions, strict=True):
                if item is not None:
                    self.warn("final_transition_lost", "a final state has no transitions in SCXML",
                              self._transition_where(node, transition))
            if node.invoke:
                self.warn("final_invoke_lost", "a final state cannot invoke in SCXML", _join(where, "invoke"))
            return element
        if node.has_output:
            self.warn("output_lost", "only final states have output in SCXML", _join(where, "output"))
        element.extend(item for item in transitions if item is not None)
        for index, invoke in enumerate(node.invoke):
            element.append(self._invoke(node, index, invoke))
        for child in node.children:
            element.append(self._state(child))
        return element

    def _parent_initial(self, node: StateNode) -> list[StateNode]:
        parent = self.parents.get(node.path)
        if parent is None:
            return []
        if parent.type == "parallel":
            return [child for child in parent.children if child.type != "history"]
        initial = parent.child(parent.initial) if parent.initial else None
        return [initial] if initial is not None and initial.type != "history" else []

    def _history_losses(self, node: StateNode, where: str) -> None:
        if node.entry or node.exit:
            self.warn("history_actions_lost", "a history state has no entry or exit actions in SCXML", where)
        for transition in node.transitions:
            self.warn("history_transition_lost", "a history state has no transitions in SCXML",
                      self._transition_where(node, transition))

    def _invoke(self, node: StateNode, index: int, invoke: Any) -> ET.Element:
        where = f"{self.where[node.path]}.invoke[{index}]"
        kept = invoke.extra.get("scxml")
        if isinstance(kept, str):
            element = self._parse_fragment(kept, where)
            if element is not None:
                return element
        for key in invoke.extra:
            if key != "scxml":
                self.warn("field_lost", f"invoke {key!r} has no SCXML equivalent", _join(where, key))
        element = ET.Element(_Q + "invoke", {"src": invoke.src})
        invoke_id = self.invoke_ids[(node.path, index)]
        if invoke_id is not None:
            element.set("id", invoke_id)
        if invoke.has_input:
            self.warn("invoke_input_lost", "invoke input is not written (SCXML passes <param> expressions)",
                      _join(where, "input"))
        if invoke.system_id is not None:
            self.warn("invoke_system_id_lost", "systemId has no SCXML equivalent", _join(where, "systemId"))
        return element

    def _parse_fragment(self, text: str, where: str) -> ET.Element | None:
        try:
            element: ET.Element = SafeET.fromstring(text, forbid_dtd=True)
            return element
        except Exception:  # kept XML that no longer parses: report, never crash the writer
            self.warn("kept_xml_invalid", "kept SCXML could not be parsed and was dropped", where)
            return None

    # --- transitions ----------------------------------------------------------------------
    def _transition_where(self, node: StateNode, transition: Transition) -> str:
        where = self.where[node.path]
        if transition.kind == "on":
            return _join(_join(where, "on"), transition.event) + f"[{transition.index}]"
        if transition.kind == "after":
            return _join(_join(where, "after"), str(transition.delay)) + f"[{transition.index}]"
        if transition.kind.startswith("invoke."):
            return f"{_join(where, 'invoke')}[{transition.invoke_index}].{transition.kind[7:]}[{transition.index}]"
        return _join(where, transition.kind) + f"[{transition.index}]"

    def _transition(self, node: StateNode, transition: Transition, after_events: dict[str, int | float]) -> ET.Element | None:
        where = self._transition_where(node, transition)
        element = ET.Element(_Q + "transition")
        event = self._event(node, transition, after_events, where)
        if event:
            element.set("event", event)
        if transition.guard is not None:
            element.set("cond", self._guard(transition.guard, _join(where, "guard")))
        if transition.targets is not None:
            targets = self._targets(node, transition.targets, _join(where, "target"))
            if targets:
                element.set("target", " ".join(self.sids[t.path] for t in targets))
                self._keep_written_targets(element, node, transition.targets, targets)
                inside = all(t is node or _is_descendant(t, node) for t in targets)
                proper = all(_is_descendant(t, node) for t in targets)
                if inside and not transition.reenter:
                    element.set("type", "internal")
                    if not proper:
                        self.warn("self_transition_reenters", "SCXML always exits and re-enters the source of a "
                                  "self-transition; XState without reenter does not", where)
        element.extend(self._actions(transition.actions, _join(where, "actions")))
        if transition.description is not None:
            self.warn("description_lost", "description has no SCXML equivalent", _join(where, "description"))
        if transition.meta is not None:
            self.warn("meta_lost", "meta has no SCXML equivalent", _join(where, "meta"))
        for key in transition.extra:
            self.warn("field_lost", f"{key!r} has no SCXML equivalent", _join(where, key))
        return element

    def _keep_written_targets(self, element: ET.Element, source: StateNode, written: tuple[str, ...],
                              resolved: list[StateNode]) -> None:
        """statekit:target, when the reader would write these targets differently than XState had them."""
        if len(resolved) == len(written) and all(
                self._reader_target(source, target) == text for target, text in zip(resolved, written, strict=True)):
            return
        element.set(TARGET_ATTRIBUTE, json.dumps(list(written), ensure_ascii=False))

    def _reader_target(self, source: StateNode, target: StateNode) -> str | None:
        """The target string `scxml_read` gives `target` (sibling key, `.child.path`, `#id`); None: `#key` + an id."""
        source_parent, target_parent = self.parents.get(source.path), self.parents.get(target.path)
        if source.type == "history":
            source_parent = self.parents.get(source.path)
        if source_parent is target_parent:
            return target.key
        if target.explicit_id is not None:
            return "#" + target.explicit_id
        if _is_descendant(target, source):
            return "." + ".".join(target.path[len(source.path):])
        return None

    def _targets(self, node: StateNode, targets: tuple[str, ...], where: str) -> list[StateNode]:
        result: list[StateNode] = []
        for target in targets:
            try:
                resolved = self.resolver.resolve_target(node, target)
            except MachineDefinitionError:
                self.warn("unknown_target", f"target {target!r} does not resolve; dropped", where)
                continue
            if resolved.path not in self.sids:
                self.warn("root_target_lost", f"target {target!r} is the machine root, which SCXML cannot target; "
                          "dropped", where)
                continue
            result.append(resolved)
        return result

    def _event(self, node: StateNode, transition: Transition, after_events: dict[str, int | float], where: str) -> str:
        kind = transition.kind
        sid = self.sids.get(node.path, "")
        if kind == "always":
            return ""
        if kind == "onDone":
            return f"done.state.{sid}"
        if kind == "after":
            delay = transition.delay
            if isinstance(delay, int | float) and not isinstance(delay, bool):
                event = f"xstate.after.{format_delay(delay)[:-2]}.{sid}"
                after_events[event] = delay
                return event
            self.warn("named_delay", f"the named delay {delay!r} has no value in the machine; the delayed event "
                      "is written but nothing sends it", where)
            return self._token(f"xstate.after.{delay}.{sid}", where)
        if kind.startswith("invoke."):
            invoke_id = self.invoke_ids.get((node.path, transition.invoke_index or 0))
            base = {"invoke.onDone": "done.invoke", "invoke.onError": "xstate.error.actor",
                    "invoke.onSnapshot": "xstate.snapshot"}[kind]
            if invoke_id is None and len(node.invoke) > 1:
                self.warn("invoke_event_ambiguous", f"the invoke has no id, so {base} matches every invoke of the "
                          "state; give it an id", where)
            return base if invoke_id is None else f"{base}.{invoke_id}"
        event = transition.event
        if event.startswith("xstate.done.state."):
            target = self.model.nodes.get(event[len("xstate.done.state."):])
            if target is not None and target.path in self.sids:
                return f"done.state.{self.sids[target.path]}"
        if event == "xstate.done.actor.*":
            return "done.invoke"  # SCXML's prefix matching: any invoke's done event
        if event.startswith("xstate.done.actor."):
            return self._token("done.invoke." + event[len("xstate.done.actor."):], where)
        return self._token(event, where)

    def _token(self, event: str, where: str) -> str:
        if _EVENT_TOKEN.match(event):
            return event
        fixed = ".".join(re.sub(r"[^\w:\-*]", "_", part) or "_" for part in event.split("."))
        self.warn("event_renamed", f"event {event!r} is not an SCXML event name; written as {fixed!r}", where)
        return fixed

    # --- guards ---------------------------------------------------------------------------
    def _guard(self, guard: Guard, where: str) -> str:
        if guard.type in ("xstate.and", "xstate.or"):
            joiner = " && " if guard.type == "xstate.and" else " || "
            return joiner.join(self._operand(g, where) for g in guard.guards) or (
                "true" if guard.type == "xstate.and" else "false")
        if guard.type == "xstate.not":
            return "!" + self._operand(guard.guards[0], where)
        if guard.type == "xstate.stateIn":
            return self._state_in(guard.state, where)
        if guard.type == "scxml.cond" and isinstance(guard.params, Mapping) and isinstance(guard.params.get("expr"), str):
            return str(guard.params["expr"])
        if guard.code is not None:
            self.warn("inline_guard", f"the inline guard {guard.type!r} is code; written as a call by name", where)
        if not _IDENT.match(guard.type) or guard.type in _RESERVED:
            self.warn("guard_renamed", f"guard name {guard.type!r} is not an ECMAScript identifier; the cond will not "
                      "read back as a named guard", where)
        if guard.has_params:
            params = self._literal(guard.params, _join(where, "params"))
            return f"{guard.type}({params or 'null'})"
        return guard.type

    def _operand(self, guard: Guard, where: str) -> str:
        text = self._guard(guard, where)
        composite = guard.type in ("xstate.and", "xstate.or") or guard.type == "scxml.cond"
        return f"({text})" if composite else text

    def _state_in(self, state: Any, where: str) -> str:
        node: StateNode | None = None
        try:
            if isinstance(state, str):
                node = self.resolver.node_by_path(self.model.root, state) if not state.startswith("#") else (
                    self.resolver.node_by_id(state))
            elif isinstance(state, Mapping):
                path: list[str] = []
                value: Any = state
                while isinstance(value, Mapping) and len(value) == 1:
                    key = next(iter(value))
                    path.append(str(key))
                    value = value[key]
                if isinstance(value, str):
                    path.append(value)
                node = self.resolver.node_by_path(self.model.root, path) if value is None or isinstance(value, str) else None
        except MachineDefinitionError:
            node = None
        if node is None or node.path not in self.sids:
            self.warn("guard_not_expressible", f"stateIn({state!r}) does not name one state; written as false", where)
            return "false"
        return f"In('{self.sids[node.path]}')"

    # --- actions --------------------------------------------------------------------------
    def _actions(self, actions: tuple[Action | EnqueueBranch, ...], where: str) -> list[ET.Element]:
        result: list[ET.Element] = []
        for index, item in enumerate(actions):
            item_where = f"{where}[{index}]"
            if isinstance(item, EnqueueBranch):
                result.append(self._branch(item, item_where))
            else:
                result.extend(self._action(item, item_where))
        return result

    def _branch(self, branch: EnqueueBranch, where: str) -> ET.Element:
        element = ET.Element(_Q + "if", {"cond": self._guard(branch.guard, _join(where, "if"))})
        element.extend(self._actions(branch.then, _join(where, "then")))
        otherwise = branch.otherwise
        while len(otherwise) == 1 and isinstance(otherwise[0], EnqueueBranch):
            nested = otherwise[0]
            ET.SubElement(element, _Q + "elseif", {"cond": self._guard(nested.guard, _join(where, "else"))})
            element.extend(self._actions(nested.then, _join(where, "else.then")))
            otherwise = nested.otherwise
        if otherwise:
            ET.SubElement(element, _Q + "else")
            element.extend(self._actions(otherwise, _join(where, "else")))
        return element

    def _action(self, action: Action, where: str) -> list[ET.Element]:
        writer = _BUILTIN_WRITERS.get(action.type)
        if writer is not None:
            return writer(self, action, where)
        if action.type.startswith("scxml.") and isinstance(action.params, Mapping) and isinstance(
                action.params.get("xml"), str):
            kept = self._parse_fragment(str(action.params["xml"]), where)
            return [kept] if kept is not None else []
        if action.is_builtin:
            self.warn("action_not_expressible", f"{action.type} has no SCXML equivalent; dropped", where)
            return []
        script = ET.Element(_Q + "script")
        if action.code is not None:
            self.warn("inline_action", f"the inline action {action.type!r} is code; written as a <script> call", where)
        if not _IDENT.match(action.type) or action.type in _RESERVED:
            self.warn("action_renamed", f"action name {action.type!r} is not an ECMAScript identifier; the <script> "
                      "will not read back as a named action", where)
        params = action.params
        if action.has_params and self._literal(params, _join(where, "params")) is None:
            params = None
        script.text = call_expr(action.type, params, action.has_params)
        return [script]

    def _event_of(self, action: Action, where: str) -> dict[str, Any] | None:
        event = action.fields.get("event")
        if isinstance(event, str):
            return {"type": event}
        if isinstance(event, Mapping) and isinstance(event.get("type"), str):
            return dict(event)
        self.warn("action_not_expressible", f"{action.type} with a computed event cannot be written; dropped", where)
        return None

    def _send(self, action: Action, where: str, target: str | None) -> list[ET.Element]:
        event = self._event_of(action, where)
        if event is None:
            return []
        name = self._token(event["type"], _join(where, "event"))
        data = {k: v for k, v in event.items() if k != "type"}
        delay = action.fields.get("delay")
        if delay is not None and not (isinstance(delay, int | float) and not isinstance(delay, bool)):
            self.warn("named_delay", f"the delay {delay!r} is not a number of milliseconds; written without delay",
                      _join(where, "delay"))
            delay = None
        send_id = action.fields.get("id")
        if action.type == "xstate.raise" and not data and delay is None and send_id is None:
            return [ET.Element(_Q + "raise", {"event": name})]
        element = ET.Element(_Q + "send", {"event": name})
        if target is not None:
            element.set("target", target)
        elif delay is None:
            element.set("target", "#_internal")  # raise: the internal queue
        # A send without target and delay is the external queue, which is XState's delay 0.
        if delay is not None and not (target is None and delay == 0):
            element.set("delay", format_delay(delay))
        if isinstance(send_id, str):
            element.set("id", send_id)
        for key, value in data.items():
            expr = self._literal(value, _join(where, f"event.{key}"))
            if expr is not None:
                ET.SubElement(element, _Q + "param", {"name": str(key), "expr": expr})
        return [element]


def _selection_rank(transition: Transition) -> tuple[int, int]:
    if transition.kind != "on":
        return (0, 0)
    event = transition.event
    if event == "*":
        return (2, 0)
    if event.endswith(".*"):
        return (1, -len(event))
    return (0, 0)


def _raise(writer: ScxmlWriter, action: Action, where: str) -> list[ET.Element]:
    return writer._send(action, where, None)


def _send_to(writer: ScxmlWriter, action: Action, where: str) -> list[ET.Element]:
    to = action.fields.get("to")
    if not isinstance(to, str):
        writer.warn("action_not_expressible", "sendTo an actor reference that is not an id cannot be written; dropped",
                    where)
        return []
    return writer._send(action, where, "#_" + to)


def _send_parent(writer: ScxmlWriter, action: Action, where: str) -> list[ET.Element]:
    return writer._send(action, where, "#_parent")


def _log(writer: ScxmlWriter, action: Action, where: str) -> list[ET.Element]:
    element = ET.Element(_Q + "log")
    label = action.fields.get("label")
    if isinstance(label, str):
        element.set("label", label)
    if "value" in action.fields:
        expr = writer._literal(action.fields["value"], _join(where, "value"))
        if expr is not None:
            element.set("expr", expr)
    return [element]


def _assign(writer: ScxmlWriter, action: Action, where: str) -> list[ET.Element]:
    assignment = action.fields.get("assignment")
    if not isinstance(assignment, Mapping):
        writer.warn("action_not_expressible", "an assignment function cannot be written; dropped", where)
        return []
    if len(assignment) > 1:
        writer.warn("assign_split", f"an assignment of {len(assignment)} keys is written as {len(assignment)} "
                    "<assign> elements, which read back as as many assign actions (each one sees the context "
                    "the one before made)", where)
    result = []
    for key, value in assignment.items():
        if is_inline(value) or unresolved_marker(value) is not None:
            writer.warn("inline_value", f"the value assigned to {str(key)!r} is code statekit keeps, not a value; "
                        "written as its JSON encoding, which another SCXML processor reads as an object",
                        _join(where, f"assignment.{key}"))
        expr = writer._literal(value, _join(where, f"assignment.{key}"))
        if expr is not None:
            result.append(ET.Element(_Q + "assign", {"location": str(key), "expr": expr}))
    return result


def _cancel(writer: ScxmlWriter, action: Action, where: str) -> list[ET.Element]:
    send_id = action.fields.get("sendId")
    if not isinstance(send_id, str):
        writer.warn("action_not_expressible", "cancel of a computed send id cannot be written; dropped", where)
        return []
    return [ET.Element(_Q + "cancel", {"sendid": send_id})]


def _enqueue(writer: ScxmlWriter, action: Action, where: str) -> list[ET.Element]:
    return writer._actions(action.enqueued, _join(where, "actions"))


_BUILTIN_WRITERS: dict[str, Callable[[ScxmlWriter, Action, str], list[ET.Element]]] = {
    "xstate.raise": _raise,
    "xstate.sendTo": _send_to,
    "xstate.sendParent": _send_parent,
    "xstate.log": _log,
    "xstate.assign": _assign,
    "xstate.cancel": _cancel,
    "xstate.enqueueActions": _enqueue,
}


def write_scxml(model: MachineModel) -> tuple[str, list[FormatWarning]]:
    """The model as SCXML text, plus warnings for what SCXML cannot express."""
    writer = ScxmlWriter(model)
    return writer.write(), writer.warnings
