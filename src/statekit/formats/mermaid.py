"""Mermaid `stateDiagram-v2`: read and write (format `mermaid`), structure only.

Mermaid carries states, nesting (`state X { ... }`), concurrent regions (`--` inside a
composite), start and end pseudo-states (`[*]`), choice/fork/join stereotypes, notes and
labelled transitions. Everything else of a machine (actions, context, invokes, tags, meta,
guards beyond a name) has no place in it: the writer reports each loss as a warning, and the
reader fills in what a diagram does not say (initial states, eventless transitions, final
states) and reports each assumption as an `assumed_*` warning.

Writing:

* state ids are global in Mermaid and may only hold `[^:\\s-{]`; the writer derives a safe
  id from each key (`[A-Za-z0-9_]`, unique in the diagram) and keeps the real key in
  `state "key" as id`;
* a parallel state is a composite whose regions (its children) are separated by `--`, each
  region written as its own composite (or plain state);
* `[*] --> child` gives a compound state's initial child, `final --> [*]` marks a final state;
* a transition label is `EVENT [guard] / action, action` (eventless transitions have no label);
* descriptions become notes (`note right of id : text`); history states are plain states
  (Mermaid has no history stereotype; a warning says so).

Reading: `state "key" as id` gives the key; `[*] --> x` the initial child of the enclosing
composite (else the first child, `assumed_initial`); an unlabelled `x --> [*]` from a state
with no other transitions marks `x` final (`assumed_final`), any other `x --> [*]` goes to a
new final child (`assumed_final_state`); a label is parsed back into event, guard name and
action names; an unlabelled transition is eventless (`assumed_always`); a `<<choice>>` state's
transitions are eventless with their labels as guard names, a `<<fork>>` is one eventless
transition to all its targets, a `<<join>>` an ordinary state (`assumed_choice` / `assumed_fork` /
`assumed_join`); a composite with `--` regions is a parallel state whose regions are the
compound states (a region holding a single state is that state, else a new `regionN`
compound, `assumed_region`). Notes become the state's description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from statekit.budget import check_budget
from statekit.errors import ToolError
from statekit.formats import FormatWarning, Source, register_format, warning
from statekit.formats.diagram import (
    MAX_DEPTH,
    MAX_TEXT,
    Edge,
    REdge,
    RNode,
    build_model,
    common_scope,
    config_path,
    dedupe_keys,
    edges_of,
    node_losses,
    safe_ids,
)
from statekit.model import MachineModel, StateNode
from statekit.model.parse import DEFAULT_MACHINE_ID

# --- Mermaid writer -------------------------------------------------------------------------

_MERMAID_ENTITY = re.compile(r"#(?:(?P<code>\d+)|(?P<name>[A-Za-z]+));")
_MERMAID_NAMED = {"quot": '"', "amp": "&", "lt": "<", "gt": ">", "apos": "'", "nbsp": "\u00a0"}


def mermaid_text(text: str) -> str:
    """Text in Mermaid's own entity codes: `#` (it starts a code), `"` (it ends a name) and the HTML
    specials `&`, `<`, `>` (Mermaid renders text as HTML and drops tags), and `%%`."""
    return (text.replace("#", "#35;").replace('"', "#quot;").replace("&", "#amp;")
            .replace("<", "#lt;").replace(">", "#gt;").replace("%%", "#37;%"))  # `%%` starts a comment


def mermaid_unescape(text: str) -> str:
    """Mermaid's entity codes (`#quot;`, `#59;`) as the characters they stand for."""
    def replace(match: re.Match[str]) -> str:
        if match["code"] is not None:
            code = int(match["code"])
            return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match[0]
        return _MERMAID_NAMED.get(match["name"], match[0])

    return _MERMAID_ENTITY.sub(replace, text)


def strip_comment(line: str) -> str:
    """The line without a trailing `%%` comment, as mermaid's lexer reads it.

    `%%` starts a comment anywhere outside a quoted name, except in text after a `:` (a
    transition label, a description, a one-line note), which runs to the end of the line.
    """
    in_quote = False
    index = 0
    while index < len(line):
        char = line[index]
        if char == '"':
            in_quote = not in_quote
        elif not in_quote:
            if line.startswith(":::", index):  # the class shorthand `a:::name`
                index += 3
                continue
            if char == ":":
                return line
            if line.startswith("%%", index):
                return line[:index].rstrip()
        index += 1
    return line


_MERMAID_RESERVED = frozenset({
    "state", "note", "end", "as", "direction", "classdef", "class", "style", "click", "left", "right", "of",
    "hide", "scale", "fork", "join", "choice", "tb", "bt", "lr", "rl", "acctitle", "accdescr", "default",
    "statediagram", "statediagram-v2",
})


def write_mermaid(model: MachineModel) -> tuple[str | dict[str, Any], list[FormatWarning]]:
    """The model as a Mermaid `stateDiagram-v2` (structure only; every loss is a warning)."""
    warnings = node_losses(model, "Mermaid")
    ids = safe_ids(model, r"[^A-Za-z0-9_]", _MERMAID_RESERVED, case_insensitive=False, per_parent=False)
    edges = edges_of(model, warnings, "Mermaid")
    # All edges of a source go in one place (the shallowest scope any of them needs), so that
    # reading them back keeps their order, which is their priority.
    scope_of: dict[str, tuple[str, ...]] = {}
    for edge in edges:
        scope = common_scope(edge)
        known = scope_of.get(edge.source.id)
        scope_of[edge.source.id] = scope if known is None or len(scope) < len(known) else known
    by_scope: dict[tuple[str, ...], list[Edge]] = {}
    for edge in edges:
        by_scope.setdefault(scope_of[edge.source.id], []).append(edge)
    lines = ["stateDiagram-v2"]

    def node_id(node: StateNode) -> str:
        return ids[".".join(node.path)]

    def declare(node: StateNode, indent: str) -> None:
        sid = node_id(node)
        key = node.key
        if "\n" in key or "\r" in key:
            key = key.replace("\n", " ").replace("\r", " ")
            warnings.append(warning("key_renamed", f"Mermaid labels are one line; {node.key!r} is written as {key!r}",
                                    config_path(node)))
        key = mermaid_text(key)
        # `state id` alone confuses Mermaid's lexer when a composite follows: a bare id is safe.
        head = sid if key == sid else f'state "{key}" as {sid}'
        if not node.children:
            lines.append(f"{indent}{head}")
        if node.type == "history":
            warnings.append(warning("history_as_state", f"Mermaid has no history state; {node.key!r} is written as a "
                                    "plain state", config_path(node)))
        if node.description is not None:
            text = mermaid_text(node.description)
            # A one-line note ends its state name at the first `:` and loses a trailing `;` (a
            # statement end, which entity codes have); a note block takes any line.
            if "\n" in text or "\r" in text or ":" in text or ";" in text or text != text.strip():
                body = [line.strip() for line in text.splitlines()]
                # A line starting `end note` ends the block: its `e` is written as an entity code.
                body = ["#101;" + line[1:] if line.lower().startswith("end note") else line for line in body]
                # A first line starting with `:` joins `note right of id` as a one-line note
                # (mermaid's lexer skips the line break): its `:` is an entity code too.
                body = ["#58;" + line[1:] if line.startswith(":") else line for line in body]
                lines.append(f"{indent}note right of {sid}")
                lines.extend(f"{indent}  {line}" for line in body)
                lines.append(f"{indent}end note")
            else:
                lines.append(f"{indent}note right of {sid} : {text}")
        if node.children:
            lines.append(f"{indent}{'state ' + sid if key == sid else head} {{")
            body_of(node, indent + "  ")
            lines.append(f"{indent}}}")
        if node.type == "final":
            lines.append(f"{indent}{sid} --> [*]")

    def transitions_of(node: StateNode, indent: str) -> None:
        for edge in by_scope.get(node.path, []):
            suffix = f" : {edge.label}" if edge.label else ""
            lines.append(f"{indent}{node_id(edge.source)} --> {node_id(edge.target)}{suffix}")

    def body_of(node: StateNode, indent: str) -> None:
        if node.type == "parallel":
            for number, region in enumerate(node.children):
                if number:
                    lines.append(f"{indent}--")
                declare(region, indent)
            if len(node.children) < 2:
                lines.append(f"{indent}--")  # an empty region: still a parallel state when read back
            transitions_of(node, indent)
            return
        for child in node.children:  # declared first: a state's first mention places it
            declare(child, indent)
        initial = node.child(node.initial) if node.initial else None
        if initial is not None:
            lines.append(f"{indent}[*] --> {node_id(initial)}")
        transitions_of(node, indent)

    if model.root.description is not None:
        warnings.append(warning("description_lost", "Mermaid cannot note the machine itself; its description is "
                                "dropped", "description"))
    if model.root.type == "parallel":
        warnings.append(warning("parallel_root", "the machine is parallel: written as a top-level composite", ""))
        lines.append(f'  state "{DEFAULT_MACHINE_ID}" as machine_root')
        lines.append("  state machine_root {")
        body_of(model.root, "    ")
        lines.append("  }")
    else:
        body_of(model.root, "  ")
    return "\n".join(lines) + "\n", warnings


# --- Mermaid reader -------------------------------------------------------------------------

_ID = r"[^:\s\-{}\"]+|\[\*\]"
_RE_CLASS_SHORTHAND = re.compile(r":::[\w-]+")
_RE_HEADER = re.compile(r"^stateDiagram(?:-v2)?\b")
_RE_COMPOSITE = re.compile(r'^state\s+(?:"(?P<desc>[^"]*)"\s+as\s+)?(?P<id>[^:\s\-{}"]+)\s*\{$')
_RE_STATE_AS = re.compile(r'^state\s+"(?P<desc>[^"]*)"\s+as\s+(?P<id>[^:\s\-{}"]+)$')
_RE_STEREOTYPE = re.compile(r"^state\s+(?P<id>[^:\s\-{}\"]+)\s*<<(?P<kind>choice|fork|join)>>$")
_RE_STATE_DESC = re.compile(r"^(?:state\s+)?(?P<id>[^:\s\-{}\"]+)\s*:\s*(?P<desc>.*)$")
_RE_STATE = re.compile(r"^(?:state\s+)?(?P<id>[^:\s\-{}\"]+)$")
_RE_TRANSITION = re.compile(rf"^(?P<src>{_ID})\s*-->\s*(?P<dst>{_ID})\s*(?::\s*(?P<label>.*))?$")
_RE_NOTE = re.compile(r"^note\s+(?:left|right)\s+of\s+(?P<id>[^:\s\-{}\"]+)\s*(?::\s*(?P<text>.*))?$")
_RE_IGNORED = re.compile(r"^(?:direction\s+\w+|classDef\s|class\s|style\s|click\s|accTitle\s*:|accDescr\s*[:{]|hide\s+empty)")


@dataclass(eq=False)
class _Scope:
    node: RNode
    regions: list[list[RNode]] = field(default_factory=lambda: [[]])
    initials: list[RNode | None] = field(default_factory=lambda: [None])


class _MermaidReader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.warnings: list[FormatWarning] = []
        self.root = RNode(DEFAULT_MACHINE_ID, "")
        self.states: dict[str, RNode] = {}
        self.scopes: dict[int, _Scope] = {id(self.root): _Scope(self.root)}
        self.region_of: dict[int, tuple[_Scope, int]] = {}
        self.raw_edges: list[tuple[str, str, str, _Scope, int, str]] = []
        #: Notes (state id, where, text), attached once every state is known.
        self.notes: list[tuple[str, str, str]] = []

    def fail(self, line: int, message: str) -> ToolError:
        return ToolError("invalid_input", f"Mermaid line {line}: {message}")

    def state(self, sid: str, scope: _Scope, line: int) -> RNode:
        node = self.states.get(sid)
        if node is None:
            node = RNode(sid, f"line {line}", parent=scope.node)
            self.states[sid] = node
            region = len(scope.regions) - 1
            scope.regions[region].append(node)
            self.region_of[id(node)] = (scope, region)
        return node

    def read(self) -> MachineModel:
        if len(self.text) > MAX_TEXT:
            raise ToolError("invalid_input", f"the Mermaid text is longer than {MAX_TEXT} characters")
        lines = self.text.lstrip("\ufeff").splitlines()
        number = 0
        seen_header = False
        in_front_matter = False
        stack = [self.scopes[id(self.root)]]
        note: tuple[str, str, list[str]] | None = None
        for number, raw in enumerate(lines, 1):
            check_budget()
            line = raw.strip()
            if note is not None:
                if line.startswith("%%"):
                    continue  # a comment, inside a note block too
                if line.lower().startswith("end note"):  # as mermaid's lexer: the rest is not note text
                    self.notes.append((note[0], note[1], mermaid_unescape("\n".join(note[2]))))
                    note = None
                else:
                    note[2].append(line)
                continue
            if not seen_header and line == "---":
                in_front_matter = not in_front_matter
                continue
            if in_front_matter or not line or line.startswith("%%"):
                continue
            if not seen_header:
                if not _RE_HEADER.match(line):
                    raise self.fail(number, "a Mermaid state diagram starts with `stateDiagram-v2`")
                seen_header = True
                rest = _RE_HEADER.sub("", line, count=1).strip()
                if rest:
                    raise self.fail(number, "put the statements after the header on their own lines")
                continue
            line = strip_comment(line).rstrip(";").strip()
            if not line.startswith("note "):
                line = _RE_CLASS_SHORTHAND.sub("", line)  # `a:::style` only styles
            scope = stack[-1]
            if line == "}":
                if len(stack) == 1:
                    raise self.fail(number, "`}` without a composite state to close")
                stack.pop()
            elif line == "--":
                if scope.node is self.root and len(stack) == 1 and not scope.regions[0]:
                    raise self.fail(number, "`--` before any state")
                scope.regions.append([])
                scope.initials.append(None)
            elif match := _RE_COMPOSITE.match(line):
                if len(stack) > MAX_DEPTH:
                    raise self.fail(number, f"composite states nest deeper than {MAX_DEPTH} levels")
                node = self.state(match["id"], scope, number)
                if match["desc"] is not None:
                    node.key = mermaid_unescape(match["desc"])
                inner = self.scopes.setdefault(id(node), _Scope(node))
                stack.append(inner)
            elif match := _RE_STEREOTYPE.match(line):
                node = self.state(match["id"], scope, number)
                node.kind = match["kind"]
            elif match := _RE_STATE_AS.match(line):
                self.state(match["id"], scope, number).key = mermaid_unescape(match["desc"])
            elif match := _RE_TRANSITION.match(line):
                self.raw_edges.append((match["src"], match["dst"], mermaid_unescape((match["label"] or "").strip()), scope,
                                       len(scope.regions) - 1, f"line {number}"))
                for end in (match["src"], match["dst"]):
                    if end != "[*]":
                        self.state(end, scope, number)
            elif match := _RE_NOTE.match(line):
                if match["text"] is None:
                    note = (match["id"], f"line {number}", [])
                else:
                    self.notes.append((match["id"], f"line {number}", mermaid_unescape(match["text"].strip())))
            elif _RE_IGNORED.match(line):
                continue
            elif match := _RE_STATE_DESC.match(line):
                node = self.state(match["id"], scope, number)
                self.add_note(node, mermaid_unescape(match["desc"].strip()))
            elif match := _RE_STATE.match(line):
                self.state(match["id"], scope, number)
            else:
                raise self.fail(number, f"not a state diagram statement: {line[:80]!r}")
        if not seen_header:
            raise ToolError("invalid_input", "a Mermaid state diagram starts with `stateDiagram-v2`")
        if note is not None:
            raise self.fail(number, "a `note` block without `end note`")
        if len(stack) > 1:
            raise self.fail(number, "a composite state is not closed with `}`")
        try:
            return self.build()
        except RecursionError:
            raise ToolError("invalid_input", "the Mermaid states nest too deeply") from None

    def add_note(self, node: RNode, text: str) -> None:
        node.description = text if node.description is None else f"{node.description}\n{text}"

    def build(self) -> MachineModel:
        for sid, where, text in self.notes:
            node = self.states.get(sid)
            if node is None:
                self.warnings.append(warning("note_lost", f"a note on {sid!r}, which is no state; dropped", where))
            else:
                self.add_note(node, text)
        edges: list[REdge] = []
        outgoing: dict[int, int] = {}
        for src, dst, _label, _, _, _ in self.raw_edges:
            if src != "[*]" and dst != "[*]":
                outgoing[id(self.states[src])] = outgoing.get(id(self.states[src]), 0) + 1
        pending_finals: list[tuple[RNode, _Scope, int, str, str]] = []
        for src, dst, label, scope, region, where in self.raw_edges:
            if src == "[*]" and dst == "[*]":
                raise ToolError("invalid_input", f"Mermaid {where}: `[*] --> [*]` is not a transition")
            if src == "[*]":
                target = self.states[dst]
                if scope.initials[region] is not None and scope.initials[region] is not target:
                    self.warnings.append(warning("extra_initial", "a second `[*] -->` in the same composite; the first "
                                                 "one is the initial state", where))
                elif scope.initials[region] is None:
                    scope.initials[region] = target
                if label:
                    self.warnings.append(warning("initial_label_lost", "the label of an initial transition is dropped",
                                                 where))
                continue
            source = self.states[src]
            if dst == "[*]":
                if not label and source.kind == "state" and outgoing.get(id(source), 0) == 0 and (
                        id(source) not in self.scopes):
                    source.kind = "final"
                    self.warnings.append(warning("assumed_final", f"{source.key!r} --> [*]: {source.key!r} is a final "
                                                 "state", where))
                else:
                    pending_finals.append((source, scope, region, label, where))
                continue
            edges.append(REdge(source, [self.states[dst]], label, where))
        finals: dict[tuple[int, int], RNode] = {}
        for source, scope, region, label, where in pending_finals:
            final = finals.get((id(scope), region))
            if final is None:
                final = RNode("final", where, parent=scope.node, kind="final")
                scope.regions[region].append(final)
                finals[(id(scope), region)] = final
                self.warnings.append(warning("assumed_final_state", "`--> [*]` goes to a new final state", where))
            edges.append(REdge(source, [final], label, where))
        self.arrange(self.scopes[id(self.root)])
        edges = self.merge_forks(edges)
        return build_model(self.root, edges, self.warnings, "Mermaid")

    def arrange(self, scope: _Scope) -> None:
        node = scope.node
        regions = [region for region in scope.regions]
        if len(regions) > 1:
            kept = [(members, initial) for members, initial in zip(regions, scope.initials, strict=True) if members]
            regions, scope.initials = [members for members, _ in kept], [initial for _, initial in kept]
            node.kind = "parallel"
            node.children = []
            for number, (members, initial) in enumerate(zip(regions, scope.initials, strict=True), 1):
                if len(members) == 1 and initial in (None, members[0]):
                    node.children.append(members[0])
                    continue
                region = RNode(f"region{number}", node.where, parent=node, children=list(members), initial=initial)
                for member in members:
                    member.parent = region
                self.warnings.append(warning("assumed_region", f"a concurrent region of {node.key!r} is the compound "
                                             f"state {region.key!r}", node.where))
                node.children.append(region)
                dedupe_keys(region, self.warnings)
                self.arrange_children(region)
        else:
            node.children = list(regions[0])
            node.initial = scope.initials[0]
        dedupe_keys(node, self.warnings)
        self.arrange_children(node)

    def arrange_children(self, node: RNode) -> None:
        for child in node.children:
            inner = self.scopes.get(id(child))
            if inner is not None:
                self.arrange(inner)

    def merge_forks(self, edges: list[REdge]) -> list[REdge]:
        merged: list[REdge] = []
        forks: dict[int, REdge] = {}
        for edge in edges:
            if edge.source.kind == "fork":
                existing = forks.get(id(edge.source))
                if existing is not None:
                    existing.targets.extend(edge.targets)
                    continue
                forks[id(edge.source)] = edge
            merged.append(edge)
        return merged


def read_mermaid(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
    """Mermaid `stateDiagram-v2` text -> (model, warnings)."""
    if not isinstance(value, str):
        raise ToolError("invalid_input", "a Mermaid state diagram is text")
    reader = _MermaidReader(value)
    model = reader.read()
    return model, reader.warnings


def detect(source: Source) -> float:
    if source.data is not None:
        return 0.0
    text = source.stripped
    for line in text.splitlines()[:40]:
        line = line.strip()
        if not line or line.startswith("%%") or line == "---":
            continue
        if _RE_HEADER.match(line):
            return 1.0
    return 0.0


register_format(
    "mermaid",
    read=read_mermaid,
    write=write_mermaid,
    detect=detect,
    aliases=("mermaid-state", "statediagram", "mmd"),
    media_type="text/vnd.mermaid",
    description="Mermaid stateDiagram-v2 (structure only: states, nesting, regions, labelled transitions)",
    title="Mermaid",
)
