"""A small Mermaid `stateDiagram-v2` renderer for the behaviour review.

Mermaid state names must be plain identifiers (a hyphen or a dot in a name breaks the
parser), so every state gets a generated identifier and shows its key through
`state "label" as id`. Labels are escaped with Mermaid's `#code;` entities, which is the only
escape its state-diagram grammar understands.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from statekit.analysis.draft import resolve_or_none
from statekit.analysis.matching import event_label
from statekit.model import MachineModel, StateNode, Transition
from statekit.model.resolve import Resolver

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
#: Characters that end or confuse a label in Mermaid's state grammar, as entity codes.
_ESCAPES = {'"': "#quot;", ";": "#59;", "#": "#35;", ":": "#58;", "{": "#123;", "}": "#125;",
            "<": "#lt;", ">": "#gt;", "\n": " "}
_LABEL_CHARS = re.compile("|".join(re.escape(c) for c in _ESCAPES))

CLASS_STYLES = {
    "added": "fill:#dcfce7,stroke:#15803d,color:#14532d",
    "removed": "fill:#fee2e2,stroke:#b91c1c,color:#7f1d1d",
    "changed": "fill:#fef9c3,stroke:#a16207,color:#713f12",
}


def escape_label(text: str) -> str:
    """`text` made safe inside a Mermaid state label or transition label."""
    return _LABEL_CHARS.sub(lambda m: _ESCAPES[m.group(0)], text)


class _Names:
    """Stable Mermaid identifiers for state ids (unique even when sanitising collides)."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._used: set[str] = set()

    def __call__(self, state_id: str) -> str:
        if state_id not in self._names:
            base = "s_" + _UNSAFE.sub("_", state_id)
            name, number = base, 2
            while name in self._used:
                name, number = f"{base}_{number}", number + 1
            self._names[state_id] = name
            self._used.add(name)
        return self._names[state_id]


def render_state_diagram(model: MachineModel, highlight: dict[str, str] | None = None) -> str:
    """The machine as `stateDiagram-v2` text; `highlight` maps state ids to a class in CLASS_STYLES."""
    names = _Names()
    lines = ["stateDiagram-v2"]
    root = model.root
    if root.type == "parallel":
        # Mermaid separates concurrent regions (`--`) only inside a composite state.
        lines.append(f'    state "{escape_label(root.key)}" as {names(root.id)}')
        lines.append(f"    state {names(root.id)} {{")
        lines.extend(_children(root, names, 2))
        lines.append("    }")
    else:
        lines.extend(_children(root, names, 1))
    resolver = Resolver(model)
    for node in root.walk():
        for transition in node.transitions:
            label = escape_label(_transition_label(node, transition))
            if transition.targets is None:
                lines.append(f"    {names(node.id)} --> {names(node.id)} : {label}")
                continue
            for target in transition.targets:
                resolved = resolve_or_none(resolver, node, target)
                if resolved is not None and resolved.parent_id is not None:
                    lines.append(f"    {names(node.id)} --> {names(resolved.id)} : {label}")
    used = sorted(set((highlight or {}).values()))
    for style in used:
        lines.append(f"    classDef {style} {CLASS_STYLES[style]}")
    for state_id, style in sorted((highlight or {}).items()):
        if state_id in model.nodes and model.nodes[state_id].parent_id is not None:
            lines.append(f"    class {names(state_id)} {style}")
    return "\n".join(lines)


def _transition_label(node: StateNode, transition: Transition) -> str:
    text = event_label(node, transition) or "always"
    if transition.guard is not None:
        text += f" [{transition.guard.type}]"
    return text


def _children(node: StateNode, names: _Names, depth: int) -> Iterable[str]:
    indent = "    " * depth
    initial = node.child(node.initial) if node.initial else None
    if initial is not None and node.type != "parallel":
        yield f"{indent}[*] --> {names(initial.id)}"
    for index, child in enumerate(node.children):
        if node.type == "parallel" and index > 0:
            yield f"{indent}--"
        label = child.key if child.type != "history" else f"{child.key} (H{'*' if child.history == 'deep' else ''})"
        yield f'{indent}state "{escape_label(label)}" as {names(child.id)}'
        if child.children:
            yield f"{indent}state {names(child.id)} {{"
            yield from _children(child, names, depth + 1)
            yield f"{indent}}}"
        if child.type == "final":
            yield f"{indent}{names(child.id)} --> [*]"
