"""An SCXML document as the interpreter reads it: the state tree in document order.

`formats/scxml_read.py` translates SCXML into an XState model, which cannot hold SCXML's
executable content faithfully; the interpreter needs the document itself. So this module reads
the same safely parsed XML (`parse_xml`: defusedxml, DTDs refused) into states and transitions
that keep their executable content as the XML elements it was written as, interpreted as such
by `statekit.scxml.executable`. Nothing here evaluates an expression.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Literal

from statekit.formats.scxml_read import is_scxml, local, parse_xml

StateKind = Literal["scxml", "state", "parallel", "final", "history"]
_STATE_TAGS = ("state", "parallel", "final", "history")
#: How deep elements may nest: the interpreter recurses along states and nested `<if>`s, and a
#: document must not be able to exhaust Python's stack.
MAX_DEPTH = 200


class DocumentError(Exception):
    """The document is not SCXML the interpreter can run (a missing target, a bad initial)."""


@dataclass(eq=False)
class Transition:
    source: State
    events: tuple[str, ...]
    cond: str | None
    target_ids: tuple[str, ...]
    internal: bool
    content: list[ET.Element]
    order: int
    targets: list[State] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<Transition {self.source.id} {' '.join(self.events)} -> {' '.join(self.target_ids)}>"


@dataclass(eq=False)
class State:
    id: str
    kind: StateKind
    element: ET.Element
    parent: State | None
    order: int
    depth: int
    children: list[State] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    onentry: list[list[ET.Element]] = field(default_factory=list)
    onexit: list[list[ET.Element]] = field(default_factory=list)
    invokes: list[ET.Element] = field(default_factory=list)
    data: list[ET.Element] = field(default_factory=list)
    donedata: ET.Element | None = None
    #: The initial transition: of a compound state (its `initial` attribute or `<initial>`,
    #: else its first child) and of a history state (its default transition).
    initial: Transition | None = None
    deep: bool = False  # a history state's type

    @property
    def is_atomic(self) -> bool:
        return self.kind in ("final", "history") or not any(c.kind != "history" for c in self.children)

    @property
    def is_compound(self) -> bool:
        return self.kind in ("state", "scxml") and not self.is_atomic

    def proper_ancestors(self, stop: State | None = None) -> list[State]:
        """Ancestors from the parent up, excluding `stop` and everything above it."""
        result: list[State] = []
        node = self.parent
        while node is not None and node is not stop:
            result.append(node)
            node = node.parent
        return result

    def is_descendant(self, other: State) -> bool:
        node = self.parent
        while node is not None:
            if node is other:
                return True
            node = node.parent
        return False

    def __repr__(self) -> str:
        return f"<State {self.id}>"


@dataclass(eq=False)
class Document:
    root: State
    element: ET.Element
    name: str | None
    datamodel: str
    binding: Literal["early", "late"]
    states: dict[str, State]
    #: Every state in document order (the root first).
    ordered: list[State]
    scripts: list[ET.Element]  # top-level <script>, run once after the datamodel is created


def children(element: ET.Element, name: str) -> list[ET.Element]:
    return [child for child in element if is_scxml(child, name)]


def executable(element: ET.Element) -> list[ET.Element]:
    """The executable content under `element` (elements only; comments and text dropped)."""
    return [child for child in element if isinstance(child.tag, str)]


def read_document(source: str | bytes | ET.Element) -> Document:
    """Read an SCXML document (text or a parsed `<scxml>` element)."""
    root_element = parse_xml(source) if isinstance(source, (str, bytes)) else source
    _check_depth(root_element)
    return _Reader(root_element).read()


def _check_depth(root: ET.Element) -> None:
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DocumentError(f"elements nest deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in element)


class _Reader:
    def __init__(self, root: ET.Element) -> None:
        self.root = root
        self.states: dict[str, State] = {}
        self.ordered: list[State] = []
        self.transitions: list[Transition] = []
        self.order = 0
        self.generated = 0

    def _next(self) -> int:
        self.order += 1
        return self.order

    def read(self) -> Document:
        root = self.root
        binding = root.get("binding", "early")
        if binding not in ("early", "late"):
            raise DocumentError(f"binding={binding!r} is neither 'early' nor 'late'")
        scxml = State(id=root.get("name") or "__scxml_root", kind="scxml", element=root, parent=None,
                      order=0, depth=0)
        self.ordered.append(scxml)
        self._fill(scxml, root)
        for transition in self.transitions:
            transition.targets = [self._lookup(t, transition.source) for t in transition.target_ids]
        scripts = children(root, "script")
        return Document(root=scxml, element=root, name=root.get("name"),
                        # SCXML leaves the default datamodel to the platform; statekit's (as SCION's)
                        # is ECMAScript, so a document that omits the attribute still has its data.
                        datamodel=root.get("datamodel", "ecmascript"), binding=binding,  # type: ignore[arg-type]
                        states=self.states, ordered=self.ordered, scripts=scripts)

    def _lookup(self, target: str, where: State) -> State:
        state = self.states.get(target)
        if state is None:
            raise DocumentError(f"transition in state {where.id!r} targets {target!r}, which is no state")
        return state

    def _state(self, element: ET.Element, parent: State) -> State:
        kind: StateKind = local(element.tag)  # type: ignore[assignment]
        sid = element.get("id")
        if not sid:
            self.generated += 1
            sid = f"__state{self.generated}"
        if sid in self.states:
            raise DocumentError(f"two states have the id {sid!r}")
        state = State(id=sid, kind=kind, element=element, parent=parent, order=self._next(),
                      depth=parent.depth + 1)
        self.states[sid] = state
        self.ordered.append(state)
        parent.children.append(state)
        self._fill(state, element)
        return state

    def _fill(self, state: State, element: ET.Element) -> None:
        initial_element: ET.Element | None = None
        for child in element:
            name = local(child.tag) if is_scxml(child, local(child.tag)) else ""
            if name in _STATE_TAGS:
                self._state(child, state)
            elif name == "transition":
                state.transitions.append(self._transition(child, state))
            elif name == "initial":
                initial_element = child
            elif name == "onentry":
                state.onentry.append(executable(child))
            elif name == "onexit":
                state.onexit.append(executable(child))
            elif name == "invoke":
                state.invokes.append(child)
            elif name == "datamodel":
                state.data.extend(children(child, "data"))
            elif name == "donedata":
                state.donedata = child
        if state.kind == "history":
            state.deep = element.get("type", "shallow") == "deep"
            defaults = state.transitions
            state.transitions = []
            if defaults:
                state.initial = defaults[0]
            return
        if state.kind in ("state", "scxml"):
            real = [c for c in state.children if c.kind != "history"]
            if initial_element is not None:
                inner = children(initial_element, "transition")
                if not inner:
                    raise DocumentError(f"<initial> of state {state.id!r} has no <transition>")
                state.initial = self._transition(inner[0], state)
            elif element.get("initial"):
                state.initial = self._synthetic(state, tuple(element.get("initial", "").split()))
            elif real:
                state.initial = self._synthetic(state, (real[0].id,))

    def _synthetic(self, state: State, targets: tuple[str, ...]) -> Transition:
        transition = Transition(source=state, events=(), cond=None, target_ids=targets, internal=False,
                                content=[], order=self._next())
        self.transitions.append(transition)
        return transition

    def _transition(self, element: ET.Element, state: State) -> Transition:
        transition = Transition(
            source=state,
            events=tuple(_normalize_descriptor(e) for e in element.get("event", "").split()),
            cond=element.get("cond"),
            target_ids=tuple(element.get("target", "").split()),
            internal=element.get("type", "external") == "internal",
            content=executable(element),
            order=self._next(),
        )
        self.transitions.append(transition)
        return transition


def _normalize_descriptor(descriptor: str) -> str:
    """`foo.*` and `foo.` mean the same as `foo` (an event-name prefix)."""
    if descriptor == "*":
        return descriptor
    while descriptor.endswith(".*"):
        descriptor = descriptor[:-2]
    return descriptor.rstrip(".")


def name_matches(descriptors: tuple[str, ...], name: str) -> bool:
    """SCXML 3.12.1: a descriptor matches an event name equal to it or starting with it plus `.`."""
    for descriptor in descriptors:
        if descriptor == "*" or name == descriptor or name.startswith(descriptor + "."):
            return True
    return False
