"""The canonical statechart: immutable nodes holding everything an XState v5 config says.

Every format reads into these classes and writes from them. Values that XState allows to be
functions (context, output, invoke input, assignment values) may be Python callables when a
machine is built in Python; every other field is plain JSON data.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

StateType = Literal["atomic", "compound", "parallel", "final", "history"]
TransitionKind = Literal["on", "always", "after", "onDone", "invoke.onDone", "invoke.onError", "invoke.onSnapshot"]

# XState's own names, all in one place. Code elsewhere may spell them as string literals (they
# are XState's wire names, read in configs and events); tests/model/test_builtin_names.py checks
# that every "xstate.*" literal in src/ is one of these.

#: The built-in guard types that combine or inspect other guards and states.
BuiltinGuardType = Literal["xstate.and", "xstate.or", "xstate.not", "xstate.stateIn"]
#: The built-in action types (`assign`, `raise`, `sendTo`, ... as action objects).
BuiltinActionType = Literal[
    "xstate.assign", "xstate.raise", "xstate.sendTo", "xstate.sendParent", "xstate.emit", "xstate.log",
    "xstate.cancel", "xstate.spawnChild", "xstate.stopChild", "xstate.enqueueActions",
]
#: Event types XState sends itself, whole or as the prefix of the full type.
BuiltinEventType = Literal[
    "xstate.init", "xstate.stop", "xstate.after.", "xstate.done.state.", "xstate.done.actor.",
    "xstate.done.actor", "xstate.error.actor.", "xstate.error.actor", "xstate.snapshot.", "xstate.snapshot",
    "xstate.route",
]
#: What every built-in name starts with; `xstate.invoke.` begins the ids XState gives inline actors.
XSTATE_PREFIX: Final = "xstate."
INLINE_ACTOR_PREFIX: Final = "xstate.invoke."

BUILTIN_GUARDS: frozenset[str] = frozenset(get_args(BuiltinGuardType))

#: The built-in action types, with the fields each one takes besides `type`.
BUILTIN_ACTIONS: Mapping[BuiltinActionType, frozenset[str]] = {
    "xstate.assign": frozenset({"assignment"}),
    "xstate.raise": frozenset({"event", "delay", "id"}),
    "xstate.sendTo": frozenset({"to", "event", "delay", "id"}),
    "xstate.sendParent": frozenset({"event", "delay", "id"}),
    "xstate.emit": frozenset({"event"}),
    "xstate.log": frozenset({"value", "label"}),
    "xstate.cancel": frozenset({"sendId"}),
    "xstate.spawnChild": frozenset({"src", "id", "input", "systemId", "syncSnapshot"}),
    "xstate.stopChild": frozenset({"actorRef"}),
    "xstate.enqueueActions": frozenset({"actions"}),
}


@dataclass(frozen=True, slots=True)
class Guard:
    """A guard reference: a named guard (with params) or a built-in combinator."""

    type: str
    params: Any = None
    has_params: bool = False
    #: Operands of `xstate.and` / `xstate.or` (several) and `xstate.not` (one).
    guards: tuple[Guard, ...] = ()
    #: The state of `xstate.stateIn`: a `#id` string, a state path or a state value.
    state: Any = None
    #: Source text of an inline guard function (kept, never executed by Python).
    code: str | None = None

    @property
    def is_builtin(self) -> bool:
        return self.type in BUILTIN_GUARDS

    def names(self) -> Iterator[str]:
        """Every named (user-implemented) guard this guard refers to."""
        if self.type in BUILTIN_GUARDS:
            for operand in self.guards:
                yield from operand.names()
        elif self.code is None:
            yield self.type


@dataclass(frozen=True, slots=True)
class EnqueueBranch:
    """One `{"if": guard, "then": [...], "else": [...]}` item of `xstate.enqueueActions`."""

    guard: Guard
    then: tuple[Action | EnqueueBranch, ...]
    otherwise: tuple[Action | EnqueueBranch, ...] = ()


@dataclass(frozen=True, slots=True)
class Action:
    """An action reference: a named action (with params) or a built-in with its fields."""

    type: str
    params: Any = None
    has_params: bool = False
    #: The fields of a built-in action (`event`, `delay`, `assignment`, ...), as given.
    fields: Mapping[str, Any] = field(default_factory=dict)
    #: The items of `xstate.enqueueActions`.
    enqueued: tuple[Action | EnqueueBranch, ...] = ()
    #: Source text of an inline action function (kept, never executed by Python).
    code: str | None = None

    @property
    def is_builtin(self) -> bool:
        return self.type in BUILTIN_ACTIONS

    def names(self) -> Iterator[str]:
        """Every named (user-implemented) action this action refers to, enqueued ones included."""
        if self.type == "xstate.enqueueActions":
            yield from _enqueued_names(self.enqueued)
        elif self.type not in BUILTIN_ACTIONS and self.code is None:
            yield self.type


def _enqueued_names(items: tuple[Action | EnqueueBranch, ...]) -> Iterator[str]:
    for item in items:
        if isinstance(item, Action):
            yield from item.names()
        else:
            yield from _enqueued_names(item.then)
            yield from _enqueued_names(item.otherwise)


@dataclass(frozen=True, slots=True)
class Transition:
    """One transition of a state node, wherever it was written (`on`, `always`, `after`, ...)."""

    source_id: str
    kind: TransitionKind
    #: The event descriptor that selects it: an event type, `*`, `prefix.*`, `""` for
    #: `always`, or the synthetic `xstate.after.*` / `xstate.done.*` / `xstate.error.*` type.
    event: str
    #: Target strings as written (`sibling`, `.child`, `#id`); `None` when targetless.
    targets: tuple[str, ...] | None
    guard: Guard | None = None
    actions: tuple[Action, ...] = ()
    reenter: bool = False
    reenter_given: bool = False
    description: str | None = None
    meta: Any = None
    #: `after` transitions: the delay as written (milliseconds or a named delay).
    delay: int | float | str | None = None
    #: The `after` key as written ("1000", "1e3", "short"), kept for a lossless round trip.
    delay_key: str | None = None
    #: `invoke.*` transitions: the index of the invoke in its state's list.
    invoke_index: int | None = None
    #: Position among the transitions of the same source and descriptor (priority order).
    index: int = 0
    #: Config keys statekit does not interpret, kept for a lossless round trip.
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """Stable id: `<source id>:<descriptor or kind>:<index>` (`invoke.<i>.onDone` for invokes)."""
        if self.kind in ("on", "after"):
            label = self.event
        elif self.invoke_index is not None:
            label = f"invoke.{self.invoke_index}.{self.kind.split('.')[1]}"
        else:
            label = self.kind
        return f"{self.source_id}:{label}:{self.index}"


@dataclass(frozen=True, slots=True)
class Invoke:
    """An invoked actor of a state node."""

    src: str
    id: str
    id_given: bool = False
    input: Any = None
    has_input: bool = False
    system_id: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StateNode:
    """A state node of the tree; `children` are in document (JavaScript key) order."""

    key: str
    id: str
    path: tuple[str, ...]
    type: StateType
    parent_id: str | None = None
    explicit_id: str | None = None
    type_given: bool = False
    initial: str | None = None
    #: The actions of the initial transition (`initial: {target, actions}`), run when the state
    #: is entered by default (XState's `initial.actions`).
    initial_actions: tuple[Action, ...] = ()
    children: tuple[StateNode, ...] = ()
    transitions: tuple[Transition, ...] = ()
    entry: tuple[Action, ...] = ()
    exit: tuple[Action, ...] = ()
    invoke: tuple[Invoke, ...] = ()
    tags: tuple[str, ...] = ()
    meta: Any = None
    description: str | None = None
    output: Any = None
    has_output: bool = False
    history: Literal["shallow", "deep"] | None = None
    history_given: Any = None
    #: A history state's default target, as written.
    target: tuple[str, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: `children` by key (derived; a lookup instead of a scan on wide machines).
    children_by_key: Mapping[str, StateNode] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "children_by_key", {node.key: node for node in reversed(self.children)})

    def child(self, key: str) -> StateNode | None:
        """The direct child called `key`, if any (the first one, should keys repeat)."""
        return self.children_by_key.get(key)

    def walk(self) -> Iterator[StateNode]:
        """This node and all its descendants, in document order (pre-order)."""
        yield self
        for node in self.children:
            yield from node.walk()


@dataclass(frozen=True)
class MachineModel:
    """A whole machine: the root node plus machine-level data."""

    root: StateNode
    context: Any = None
    has_context: bool = False
    #: Root-level keys statekit does not interpret (`version`, `types`, `schemas`, ...).
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: The variable or export the machine was read from (XState source), so a writer of source
    #: keeps it; not part of the machine (ignored by equality).
    source_name: str | None = field(default=None, compare=False)

    @property
    def id(self) -> str:
        return self.root.key

    @property
    def id_given(self) -> bool:
        return self.root.explicit_id is not None

    @property
    def nodes(self) -> dict[str, StateNode]:
        """Every state node by id, in document order (cached)."""
        cached: dict[str, StateNode] | None = self.__dict__.get("_nodes")
        if cached is None:
            cached = {}
            for node in self.root.walk():
                cached.setdefault(node.id, node)
            self.__dict__["_nodes"] = cached
        return cached

    def transitions(self) -> Iterator[Transition]:
        """Every transition, in document order of their source nodes."""
        for node in self.root.walk():
            yield from node.transitions
