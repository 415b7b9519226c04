"""D2 (terrastruct's diagram language): read and write (format `d2`), structure only.

Writing: a state is an object (`id: "key"`, the id made of `[A-Za-z0-9_]` and unique in its
container, since D2 keys are case-insensitive), a compound or parallel state a container, a
parallel one drawn with `style.stroke-dash`; a compound state's initial child is pointed at by
a small filled circle with an empty label; final states have `style.double-border: true`;
history states are circles labelled `H` (`H*` when deep); descriptions become tooltips; every
transition is an edge between full paths labelled `EVENT [guard] / action, action` (eventless
transitions have no label). What D2 cannot express (actions beyond their names, context,
invokes, tags, meta, guard code or params, ...) is reported as a warning.

Reading a subset of D2 (objects, containers `a: { ... }` and `a.b`, labels, `shape`, `style.*`,
`tooltip`, edges `->`, `<-`, `<->`, `--` with labels, relative to their container (`_` climbs
to the parent), `;` separators, comments): the writer's
conventions above are read back; anything else is a state. A label is parsed back into event,
guard name and action names; defaults are reported as `assumed_*` warnings (initial states,
eventless transitions). Imports, globs, edge references, `vars`, `classes`, `layers`,
`scenarios` and `steps` are skipped with a warning (imports are `invalid_input`: no files are read).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from statekit.budget import check_budget
from statekit.errors import ToolError
from statekit.formats import FormatWarning, Source, register_format, warning
from statekit.formats.diagram import (
    MAX_DEPTH,
    MAX_TEXT,
    REdge,
    RNode,
    build_model,
    config_path,
    dedupe_keys,
    edges_of,
    node_losses,
    safe_ids,
)
from statekit.model import MachineModel, StateNode
from statekit.model.parse import DEFAULT_MACHINE_ID

_D2_RESERVED = frozenset({
    "shape", "style", "label", "icon", "near", "width", "height", "direction", "tooltip", "link", "constraint",
    "class", "classes", "vars", "layers", "scenarios", "steps", "top", "left", "grid-rows", "grid-columns",
    "grid-gap", "vertical-gap", "horizontal-gap", "source-arrowhead", "target-arrowhead", "filled", "null",
    "true", "false", "_", "imports", "suspend", "unsuspend",
    # The style keywords: D2 refuses them as names outside `style` ("bold must be style.bold").
    "opacity", "stroke", "fill", "fill-pattern", "stroke-width", "stroke-dash", "border-radius", "font",
    "font-size", "font-color", "bold", "italic", "underline", "shadow", "multiple", "double-border", "3d",
    "animated", "text-transform", "legend-label",
})
_SKIPPED_BLOCKS = frozenset({"vars", "classes", "layers", "scenarios", "steps"})


def _quote(text: str) -> str:
    """A D2 double-quoted string (`$` escaped: D2 substitutes `${var}` inside double quotes)."""
    return json.dumps(text, ensure_ascii=False).replace("$", "\\$")


# --- writer ---------------------------------------------------------------------------------


def write_d2(model: MachineModel) -> tuple[str | dict[str, Any], list[FormatWarning]]:
    """The model as D2 text (structure only; every loss is a warning)."""
    warnings = node_losses(model, "D2")
    ids = safe_ids(model, r"[^A-Za-z0-9_]", _D2_RESERVED, case_insensitive=True, per_parent=True)
    edges = edges_of(model, warnings, "D2")
    lines = ["direction: right"]
    prefix: tuple[str, ...] = ()
    if model.root.type == "parallel":
        warnings.append(warning("parallel_root", "the machine is parallel: written as a top-level container", ""))
        prefix = ("machine_root",)

    def full(node: StateNode) -> str:
        parts = [*prefix, *(ids[".".join(node.path[: i + 1])] for i in range(len(node.path)))]
        return ".".join(parts)

    def clean(text: str, node: StateNode, what: str) -> str:
        if "\n" in text or "\r" in text:
            code = "description_changed" if what == "the description" else "key_changed"
            warnings.append(warning(code, f"D2 labels are one line; the line breaks of {what} {text!r} "
                                    "became spaces", config_path(node)))
            return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
        return text

    def body(node: StateNode, indent: str) -> None:
        if node.type == "parallel" and node is not model.root:
            lines.append(f"{indent}style.stroke-dash: 4")
        initial = node.child(node.initial) if node.initial and node.type != "parallel" else None
        if initial is not None:
            taken = {ids[".".join(child.path)].lower() for child in node.children}
            start, number = "start", 2
            while start in taken:
                start, number = f"start_{number}", number + 1
        for child in node.children:  # declared first: a state's first mention places it
            declare(child, indent)
        if initial is not None:
            lines.append(f'{indent}{start}: "" {{shape: circle; width: 14; height: 14; style.fill: "#222222"}}')
            lines.append(f"{indent}{start} -> {ids['.'.join(initial.path)]}")

    def declare(node: StateNode, indent: str) -> None:
        sid = ids[".".join(node.path)]
        attributes: list[str] = []
        if node.type == "history":
            label = "H*" if node.history == "deep" else "H"
            attributes.append("shape: circle")
            if sid != node.key:
                warnings.append(warning("key_renamed", f"a D2 history state shows `{label}`; its key {node.key!r} is "
                                        f"written as the id {sid!r}", config_path(node)))
        else:
            label = clean(node.key, node, "the key")
        if node.type == "final":
            attributes.append("style.double-border: true")
        if node.description is not None:
            # D2 reads a tooltip as Markdown, where `<tag>` is HTML: `&`, `<` and `>` are written as entities.
            tooltip = html.escape(clean(node.description, node, "the description"), quote=False)
            attributes.append(f"tooltip: {_quote(tooltip)}")
        if not node.children and not attributes:
            lines.append(f"{indent}{sid}: {_quote(label)}")
            return
        lines.append(f"{indent}{sid}: {_quote(label)} {{")
        lines.extend(f"{indent}  {attribute}" for attribute in attributes)
        if node.children:
            body(node, indent + "  ")
        lines.append(f"{indent}}}")

    if model.root.description is not None:
        warnings.append(warning("description_lost", "D2 has no place for the machine's description; dropped",
                                "description"))
    if prefix:
        lines.append(f"machine_root: {_quote(DEFAULT_MACHINE_ID)} {{")
        lines.append("  style.stroke-dash: 4")
        body(model.root, "  ")
        lines.append("}")
    else:
        body(model.root, "")
    for edge in edges:
        label = f": {_quote(edge.label)}" if edge.label else ""
        lines.append(f"{full(edge.source)} -> {full(edge.target)}{label}")
    return "\n".join(lines) + "\n", warnings


# --- reader ---------------------------------------------------------------------------------


@dataclass(eq=False)
class _Object:
    key: str
    path: tuple[str, ...]
    where: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[_Object] = field(default_factory=list)


class _D2Reader:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.warnings: list[FormatWarning] = []
        self.root = _Object(DEFAULT_MACHINE_ID, (), "")
        self.objects: dict[tuple[str, ...], _Object] = {(): self.root}
        self.edges: list[tuple[tuple[str, ...], tuple[str, ...], str, str]] = []
        self._line_at, self._line = 0, 1

    # scanning

    def line(self) -> int:
        """The line of the current position (counted incrementally: linear on long texts)."""
        if self.i < self._line_at:
            self._line_at, self._line = 0, 1
        self._line += self.s.count("\n", self._line_at, self.i)
        self._line_at = self.i
        return self._line

    def fail(self, message: str) -> ToolError:
        return ToolError("invalid_input", f"D2 line {self.line()}: {message}")

    def peek(self, length: int = 1) -> str:
        return self.s[self.i:self.i + length]

    def skip_inline(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r":
            self.i += 1
        if self.peek() == "#":
            while self.i < len(self.s) and self.s[self.i] != "\n":
                self.i += 1

    def skip_blank(self) -> None:
        while self.i < len(self.s):
            self.skip_inline()
            if self.peek(3) == '"""':
                end = self.s.find('"""', self.i + 3)
                if end < 0:
                    raise self.fail("a block comment is not closed")
                self.i = end + 3
            elif self.peek() in ("\n", ";"):
                self.i += 1
            else:
                return

    def quoted(self) -> str:
        quote = self.s[self.i]
        self.i += 1
        out: list[str] = []
        while self.i < len(self.s):
            char = self.s[self.i]
            if char == "\\" and self.i + 1 < len(self.s):
                nxt = self.s[self.i + 1]
                out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                self.i += 2
                continue
            if char == quote:
                self.i += 1
                return "".join(out)
            if char == "\n":
                break
            out.append(char)
            self.i += 1
        raise self.fail("a string is not closed")

    def arrow_ahead(self) -> str | None:
        for arrow in ("<->", "->", "<-", "--"):
            if self.s.startswith(arrow, self.i):
                return arrow
        return None

    def segment(self) -> str:
        self.skip_inline()
        if self.peek() in ('"', "'"):
            return self.quoted()
        start = self.i
        while self.i < len(self.s):
            char = self.s[self.i]
            if char in ".:;{}\n#\"'|[]()" or self.arrow_ahead() is not None:
                break
            self.i += 1
        text = self.s[start:self.i].strip()
        if not text:
            raise self.fail(f"expected a name, found {self.s[self.i:self.i + 20]!r}")
        if "*" in text:
            raise _Skip("globs are not supported")
        return text

    def keypath(self) -> list[str]:
        parts = [self.segment()]
        while True:
            self.skip_inline()
            if self.peek() != ".":
                break
            self.i += 1
            parts.append(self.segment())
            if len(parts) > MAX_DEPTH:
                raise self.fail(f"a key path is longer than {MAX_DEPTH} parts")
        return parts

    def value(self) -> str | None:
        """The value after `:` (None when a map `{` follows directly)."""
        self.skip_inline()
        char = self.peek()
        if char in ("{", "") or char in "\n;}":
            return None
        if char in ('"', "'"):
            return self.quoted()
        if char == "|":
            match = re.compile(r"(\|+)[^\s|]*").match(self.s, self.i)
            assert match is not None
            end = self.s.find(match.group(1), match.end())
            if end < 0:
                raise self.fail("a block string is not closed")
            text = self.s[match.end():end]
            self.i = end + len(match.group(1))
            return text.strip()
        if char == "[":
            depth = 0
            while self.i < len(self.s):
                if self.s[self.i] == "[":
                    depth += 1
                elif self.s[self.i] == "]":
                    depth -= 1
                    if depth == 0:
                        self.i += 1
                        return None
                elif self.s[self.i] == "\n":
                    break
                self.i += 1
            raise self.fail("an array is not closed")
        start = self.i
        while self.i < len(self.s) and self.s[self.i] not in ";\n{}#":
            self.i += 1
        return self.s[start:self.i].strip()

    def skip_statement(self) -> None:
        depth = 0
        while self.i < len(self.s):
            char = self.s[self.i]
            if char in ('"', "'"):
                self.quoted()
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0:
                    return
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return
            elif char in "\n;" and depth == 0:
                return
            self.i += 1
        if depth:
            raise self.fail("a map is not closed")

    # structure

    def obj(self, path: tuple[str, ...]) -> _Object:
        lowered = tuple(part.lower() for part in path)
        found = self.objects.get(lowered)
        if found is None:
            parent = self.obj(path[:-1])
            found = _Object(path[-1], lowered, f"line {self.line()}")
            self.objects[lowered] = found
            parent.children.append(found)
        return found

    def block(self, container: tuple[str, ...], depth: int, mode: str, attr_prefix: str = "",
              edge_labels: list[str] | None = None) -> None:
        if depth > MAX_DEPTH:
            raise self.fail(f"maps nest deeper than {MAX_DEPTH} levels")
        while True:
            self.skip_blank()
            if self.i >= len(self.s):
                if depth:
                    raise self.fail("a map is not closed with `}`")
                return
            if self.peek() == "}":
                if not depth:
                    raise self.fail("`}` without a map to close")
                self.i += 1
                return
            start = self.i
            try:
                self.statement(container, depth, mode, attr_prefix, edge_labels)
            except _Skip as skip:
                self.i = start
                self.skip_statement()
                self.warnings.append(warning("ignored_statement", f"{skip}; skipped", f"line {self.line()}"))
            self.skip_inline()
            if self.i < len(self.s) and self.peek() not in "\n;}":
                raise self.fail(f"unexpected {self.s[self.i:self.i + 20]!r}")

    def statement(self, container: tuple[str, ...], depth: int, mode: str, attr_prefix: str,
                  edge_labels: list[str] | None) -> None:
        check_budget()  # per statement: a huge D2 text stops with the call
        if self.peek() == "(":
            raise _Skip("edge references `(a -> b)[0]` are not supported")
        if self.peek() == "@" or self.s.startswith("...@", self.i):
            raise ToolError("invalid_input", f"D2 line {self.line()}: imports are not supported (no files are read)")
        if self.s.startswith("...$", self.i):
            raise _Skip("spread substitutions are not supported")
        path = self.keypath()
        self.skip_inline()
        if mode == "skip":
            if self.peek() == ":":
                self.i += 1
                self.value()
                self.skip_inline()
            if self.peek() == "{":
                self.i += 1
                self.block(container, depth + 1, "skip")
            return
        if mode in ("attrs", "edge"):
            name = attr_prefix + ".".join(part.lower() for part in path)
            value: str | None = None
            if self.peek() == ":":
                self.i += 1
                value = self.value()
                self.skip_inline()
            if mode == "edge" and name == "label" and value is not None and edge_labels is not None:
                edge_labels.append(value)
            elif mode == "attrs" and container in self.objects:
                self.objects[container].attrs[name] = value
            if self.peek() == "{":
                self.i += 1
                self.block(container, depth + 1, mode, name + ".", edge_labels)
            return
        arrow = self.arrow_ahead()
        if arrow is not None:
            self.edge_statement(container, depth, path, arrow)
            return
        lowered = [part.lower() for part in path]
        split = next((index for index, part in enumerate(lowered) if part in _D2_RESERVED), None)
        if split is not None and split + 1 == len(path) and lowered[split] in _SKIPPED_BLOCKS:
            self.warnings.append(warning("ignored_statement", f"`{lowered[split]}` is not read; skipped",
                                         f"line {self.line()}"))
            if self.peek() == ":":
                self.i += 1
                self.value()
                self.skip_inline()
            if self.peek() == "{":
                self.i += 1
                self.block(container, depth + 1, "skip")
            return
        if split is not None:
            if lowered[split] == "_":
                raise _Skip("`_` parent references are not supported")
            owner = (*self.original(container), *path[:split])
            target = self.obj(owner).path
            name = ".".join(lowered[split:])
            value = None
            if self.peek() == ":":
                self.i += 1
                value = self.value()
                self.skip_inline()
            self.objects[target].attrs[name] = value
            if self.peek() == "{":
                self.i += 1
                self.block(target, depth + 1, "attrs", name + ".")
            return
        if len(container) + len(path) > MAX_DEPTH:
            raise self.fail(f"objects nest deeper than {MAX_DEPTH} levels")
        node = self.obj((*self.original(container), *path))
        if self.peek() == ":":
            self.i += 1
            self.skip_inline()
            quoted = self.peek() in ('"', "'")  # "null" in quotes is the label null, not a deletion
            value = self.value()
            self.skip_inline()
            if value is not None:
                if value.lower() == "null" and not quoted:
                    raise _Skip("`null` deletions are not supported")
                node.attrs["label"] = value
        if self.peek() == "{":
            self.i += 1
            self.block(node.path, depth + 1, "container")

    def original(self, container: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(self.objects[container[:i + 1]].key for i in range(len(container)))

    def relative(self, container: tuple[str, ...], parts: list[str]) -> tuple[str, ...]:
        """The full (original-case) path of an edge end written in `container`; `_` is the parent."""
        base = list(self.original(container))
        rest = list(parts)
        while rest and rest[0] == "_":
            if not base:
                raise self.fail("`_` above the top level")
            base.pop()
            rest.pop(0)
        if not rest or any(part.lower() in _D2_RESERVED for part in rest):
            raise self.fail(f"an edge cannot end at {'.'.join(parts)!r}")
        return (*base, *rest)

    def edge_statement(self, container: tuple[str, ...], depth: int, first: list[str], arrow: str) -> None:
        ends = [first]
        arrows: list[str] = []
        while arrow is not None:
            self.i += len(arrow)
            arrows.append(arrow)
            self.skip_inline()
            ends.append(self.keypath())
            self.skip_inline()
            arrow = self.arrow_ahead()  # type: ignore[assignment]
        labels: list[str] = []
        if self.peek() == ":":
            self.i += 1
            value = self.value()
            self.skip_inline()
            if value is not None:
                labels.append(value)
        if self.peek() == "{":
            self.i += 1
            self.block(container, depth + 1, "edge", edge_labels=labels)
        label = labels[-1] if labels else ""
        where = f"line {self.line()}"
        for index, arrow_text in enumerate(arrows):
            left = self.obj(self.relative(container, ends[index])).path
            right = self.obj(self.relative(container, ends[index + 1])).path
            if len(left) > MAX_DEPTH or len(right) > MAX_DEPTH:
                raise self.fail(f"objects nest deeper than {MAX_DEPTH} levels")
            if arrow_text == "->":
                self.edges.append((left, right, label, where))
            elif arrow_text == "<-":
                self.edges.append((right, left, label, where))
            else:
                self.warnings.append(warning("assumed_direction", f"the undirected edge `{arrow_text}` is read as "
                                             f"{'both directions' if arrow_text == '<->' else 'left to right'}", where))
                self.edges.append((left, right, label, where))
                if arrow_text == "<->":
                    self.edges.append((right, left, label, where))

    # model

    def read(self) -> MachineModel:
        if len(self.s) > MAX_TEXT:
            raise ToolError("invalid_input", f"the D2 text is longer than {MAX_TEXT} characters")
        self.s = self.s.lstrip("\ufeff")
        if not self.s.strip():
            raise ToolError("invalid_input", "the D2 text is empty")
        try:
            self.block((), 0, "container")
            return self.build()
        except RecursionError:
            raise ToolError("invalid_input", "the D2 text nests too deeply") from None

    def build(self) -> MachineModel:
        nodes: dict[tuple[str, ...], RNode] = {}
        incoming: dict[tuple[str, ...], int] = {}
        outgoing: dict[tuple[str, ...], list[tuple[tuple[str, ...], str, str]]] = {}
        for left, right, label, where in self.edges:
            incoming[right] = incoming.get(right, 0) + 1
            outgoing.setdefault(left, []).append((right, label, where))

        def is_start(item: _Object) -> bool:
            return (item.attrs.get("shape") or "").lower() == "circle" and item.attrs.get("label") == "" and (
                not item.children and len(outgoing.get(item.path, [])) == 1 and not incoming.get(item.path))

        starts: set[tuple[str, ...]] = set()

        def convert(item: _Object, parent: RNode | None) -> RNode:
            label = item.attrs.get("label")
            shape = (item.attrs.get("shape") or "").lower()
            node = RNode(item.key, item.where, parent=parent)
            if shape == "circle" and label in ("H", "H*") and not item.children:
                node.kind = "deep_history" if label == "H*" else "history"
            else:
                if label:
                    node.key = label
                if (item.attrs.get("style.double-border") or "").lower() == "true" and not item.children:
                    node.kind = "final"
                dash = item.attrs.get("style.stroke-dash") or ""
                if item.children and dash not in ("", "0"):
                    node.kind = "parallel"
            tooltip = item.attrs.get("tooltip")
            if tooltip:
                node.description = html.unescape(tooltip)  # Markdown: entities are the characters
            nodes[item.path] = node
            for child in item.children:
                if is_start(child):
                    starts.add(child.path)
                    target = outgoing[child.path][0][0]
                    if target[:-1] == item.path:
                        pending_initial.append((node, target))
                    else:
                        self.warnings.append(warning("initial_elsewhere", "a start circle points outside its "
                                                     "container; ignored", child.where))
                    continue
                node.children.append(convert(child, node))
            dedupe_keys(node, self.warnings)
            return node

        pending_initial: list[tuple[RNode, tuple[str, ...]]] = []
        root = convert(self.root, None)
        for owner, target in pending_initial:
            if owner.kind != "parallel":
                owner.initial = nodes.get(target)
        edges: list[REdge] = []
        for left, right, label, where in self.edges:
            if left in starts:
                continue
            if right in starts:
                self.warnings.append(warning("edge_to_start", "an edge into a start circle is dropped", where))
                continue
            edges.append(REdge(nodes[left], [nodes[right]], label, where))
        return build_model(root, edges, self.warnings, "D2")


class _Skip(Exception):
    """A statement the reader skips with a warning."""


def read_d2(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
    """D2 text -> (model, warnings)."""
    if not isinstance(value, str):
        raise ToolError("invalid_input", "a D2 diagram is text")
    reader = _D2Reader(value)
    model = reader.read()
    return model, reader.warnings


_D2_EDGE = re.compile(r"^[^\s:{}#\"<>-][^:{}#\"<>]*?\s*(?:->|<-|<->)\s*\S", re.M)
_D2_ATTR = re.compile(r"(?:^|[{;])\s*(?:[\w.\"]+\.)?(?:shape|style\.[\w-]+|direction)\s*:\s*\S", re.M)


def detect(source: Source) -> float:
    text = source.stripped
    if not text or source.data is not None or text.startswith("<"):
        return 0.0
    head = text[:20000]
    if any(line.strip().startswith(("stateDiagram", "digraph", "graph ", "flowchart")) for line in head.splitlines()[:5]):
        return 0.0
    score = 0.0
    if _D2_EDGE.search(head):
        score += 0.3
    if _D2_ATTR.search(head) and "{" in head:
        score += 0.3
    if "-->" in head:
        score -= 0.2
    return max(score, 0.0)


register_format(
    "d2",
    read=read_d2,
    write=write_d2,
    detect=detect,
    aliases=("terrastruct-d2",),
    media_type="text/vnd.d2",
    description="D2 diagram (structure only: containers, labelled edges, start/final/history shapes)",
    title="D2",
)
