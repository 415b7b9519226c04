"""A machine ready to run: the model compiled into linked runtime nodes, plus implementations.

Compilation does what XState's `StateNode` constructor and `_initialize` do: document
order, ids, initial transitions, resolved targets, and the `after` bookkeeping (a delayed
`raise` appended to entry, a `cancel` appended to exit). A config XState would refuse
(no initial state, an unknown target) raises `MachineDefinitionError` with XState's message.
"""

from __future__ import annotations

from typing import Any

from statekit.engine.evaluation import Evaluator, JsEvaluator, evaluator_for
from statekit.engine.implementations import Implementations
from statekit.engine.snapshot import to_state_value
from statekit.errors import MachineDefinitionError
from statekit.model.core import Action, Guard, MachineModel, StateNode, Transition
from statekit.model.jsorder import is_array_index
from statekit.model.parse import parse_action, parse_guard, parse_machine
from statekit.model.resolve import Resolver
from statekit.model.unresolved import unresolved_state, unresolved_values


class Node:
    """A runtime state node. Fields mirror XState's `StateNode`."""

    __slots__ = (
        "always",
        "ancestor_set",
        "ancestors",
        "candidates",
        "children",
        "descendants",
        "entry",
        "exit",
        "exit_actions",
        "handled",
        "has_output",
        "history",
        "history_children",
        "id",
        "index_keyed_children",
        "initial_actions",
        "initial_target",
        "invoke",
        "key",
        "machine",
        "meta",
        "model",
        "order",
        "output",
        "parent",
        "regions",
        "tags",
        "transitions",
        "type",
        "wildcard_below",
        "wildcards",
    )

    def __init__(self, machine: Machine, model: StateNode, parent: Node | None, order: int) -> None:
        self.machine = machine
        self.model = model
        self.id = model.id
        self.key = model.key
        self.type = model.type
        self.parent = parent
        self.order = order
        self.children: dict[str, Node] = {}
        self.regions: list[Node] = []  # children that are not history states (`getChildren`)
        self.history_children: list[Node] = []
        self.ancestors: tuple[Node, ...] = (parent, *parent.ancestors) if parent else ()
        self.ancestor_set = frozenset(self.ancestors)
        self.entry: list[Action] = list(model.entry)
        self.exit: list[Action] = list(model.exit)
        self.invoke = model.invoke
        self.tags = model.tags
        self.meta = model.meta
        # XState keeps `output` only on final states and the root.
        self.has_output = model.has_output and (model.type == "final" or parent is None)
        self.output = model.output if self.has_output else None
        self.history = model.history
        self.transitions: dict[str, list[RuntimeTransition]] = {}
        self.always: list[RuntimeTransition] | None = None
        self.initial_target: list[Node] = []
        self.initial_actions: list[Action] = []
        #: Candidates per event type, for nodes with wildcard descriptors only (bounded).
        self.candidates: dict[str, list[RuntimeTransition]] = {}
        # Per-machine facts the algorithm would otherwise recompute per event (see
        # `Machine._precompute`): proper descendants, the event types some transition of this
        # node or a descendant is declared for, this node's wildcard descriptors.
        self.descendants: frozenset[Node] = frozenset()
        self.handled: frozenset[str] = frozenset()
        self.wildcards: tuple[str, ...] = ()
        self.wildcard_below = False
        #: Whether a child key is an array index (then JS lists it first in a state value).
        self.index_keyed_children = False
        #: What exiting this node runs: its exit actions, then a stopChild per invoke.
        self.exit_actions: tuple[Action, ...] = ()

    def __repr__(self) -> str:
        return f"<Node {self.id}>"

    def is_descendant_of(self, other: Node | None) -> bool:
        """XState's `isDescendant(self, other)`: strictly below `other` (`None` is above the root)."""
        if other is None:
            return True
        return other in self.ancestor_set


#: XState's route transitions (`route: {...}` on a state with an id): the event and the built-in
#: guard `event.to === '#id'` (an inline function in XState; `Guard.state` holds the `#id`).
ROUTE_EVENT = "xstate.route"
ROUTE_GUARD = "(route matches)"


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


_UNKNOWN = object()
_HISTORY_DEPENDENT = object()


class RuntimeTransition:
    """A transition with resolved targets (XState's `TransitionDefinition`)."""

    __slots__ = ("actions", "delay", "domain", "entry_template", "event", "guard", "model", "reenter", "source",
                 "target")

    def __init__(
        self,
        source: Node,
        event: str,
        target: list[Node] | None,
        guard: Guard | None,
        actions: list[Action],
        reenter: bool,
        model: Transition | None,
        delay: Any = None,
    ) -> None:
        self.source = source
        self.event = event
        self.target = target
        self.guard = guard
        self.actions = actions
        self.reenter = reenter
        self.model = model
        self.delay = delay
        #: The transition domain, memoised when no target is a history state (then it does
        #: not depend on recorded history); `_UNKNOWN` until first computed.
        history_target = any(t.type == "history" for t in target or ())
        self.domain: Any = _HISTORY_DEPENDENT if history_target else _UNKNOWN
        #: What taking this transition alone enters, when that depends on nothing but the
        #: transition (see `plan.entry_template`); `_UNKNOWN` until first needed.
        self.entry_template: Any = _UNKNOWN

    def __repr__(self) -> str:
        targets = [t.id for t in self.target] if self.target else None
        return f"<Transition {self.source.id} {self.event!r} -> {targets}>"


class Machine:
    """A compiled machine: `root`, nodes by id, and the implementations it runs with."""

    def __init__(self, model: MachineModel, implementations: Implementations | None = None,
                 *, max_iterations: int | None = None) -> None:
        self.model = model
        self.implementations = implementations or Implementations()
        #: Runs the machine's code: guards, assignments, delays, outputs, actions (evaluation.py).
        self.evaluator: Evaluator = evaluator_for(self.implementations, model.id)
        if isinstance(self.evaluator, JsEvaluator):
            self.evaluator.machine = self  # `self.getSnapshot()` in the pure API is this machine's initial snapshot
        options = model.extra.get("options")
        configured = options.get("maxIterations") if isinstance(options, dict) else None
        # XState's `options.maxIterations` in the config; an explicit argument wins.
        self.max_iterations = max_iterations if max_iterations is not None else (
            configured if isinstance(configured, int) and not isinstance(configured, bool) else None)
        self.id = model.id
        self.id_map: dict[str, Node] = {}
        self._runtime_of: dict[int, Node] = {}
        self.nodes: list[Node] = []
        self.root = self._build(model.root, None)
        self.has_history = any(node.type == "history" for node in self.nodes)
        self.has_always = any(node.model.transitions and any(t.kind == "always" for t in node.model.transitions)
                              for node in self.nodes)
        #: Caches of structural results (see plan.py and algorithm.select_transitions).
        self.plans: dict[tuple[object, ...], Any] = {}
        self.selections: dict[tuple[object, ...], list[RuntimeTransition]] = {}
        self.values: dict[tuple[Node, ...], Any] = {}
        #: Per (transition, active nodes below its domain): see `plan.LocalPart`.
        self.local_parts: dict[tuple[object, ...], Any] = {}
        #: Built-in actions given as data in `setup(actions=...)`, parsed: name -> (data, Action).
        self.parsed_actions: dict[str, tuple[Any, Action]] = {}
        #: The resolvers of each action list, compiled on first use (bounded; see `actions.resolve_actions`).
        self.resolvers: dict[int, tuple[Any, tuple[Any, ...]]] = {}
        self._resolver = Resolver(model)
        for node in self.nodes:
            self._initialize(node)
        self._format_route_transitions()
        #: Whether some value is one the source reader could not evaluate (`$ref`/`$expr`): then
        #: every data value is checked before use (see evaluation.py), else data is used as is.
        self.has_unresolved = any(True for _ in unresolved_values(model))
        self._precompute()

    @classmethod
    def from_config(cls, config: Any, implementations: Implementations | None = None,
                    *, max_iterations: int | None = None) -> Machine:
        """Parse an XState config and compile it."""
        return cls(parse_machine(config), implementations, max_iterations=max_iterations)

    def provide(self, implementations: Implementations) -> Machine:
        """The same machine with more (or other) implementations."""
        return Machine(self.model, self.implementations.merged(implementations), max_iterations=self.max_iterations)

    # -- construction -------------------------------------------------------------------

    def _build(self, model: StateNode, parent: Node | None) -> Node:
        unread = unresolved_state(model)
        if unread is not None:  # its children, transitions and actions are unknown: refuse
            raise MachineDefinitionError(
                f"state '{model.id}' is written as `{unread}`, which statekit cannot evaluate without running "
                "the source; the machine cannot be run faithfully")
        node = Node(self, model, parent, len(self.id_map))  # XState: order = idMap.size
        # Like XState's idMap, a later duplicate id replaces the earlier one.
        self.id_map[node.id] = node
        # Resolution maps model nodes to runtime nodes by identity, not by id: a key with an
        # escaped period (`"foo.bar"`) has the same id as the child `bar` of `foo`.
        self._runtime_of[id(model)] = node
        self.nodes.append(node)
        for child_model in model.children:
            child = self._build(child_model, node)
            node.children[child.key] = child
            if child.type == "history":
                node.history_children.append(child)
            else:
                node.regions.append(child)
        if node.type == "compound" and not model.initial:
            first = model.children[0].key if model.children else ""
            raise MachineDefinitionError(
                f'No initial state specified for compound state node "#{node.id}". '
                f'Try adding {{ initial: "{first}" }} to the state config.'
            )
        return node

    def _initialize(self, node: Node) -> None:
        model = node.model
        if model.initial is not None:
            target = node.children.get(model.initial)
            if target is None:
                raise MachineDefinitionError(
                    f'Initial state node "{model.initial}" not found on parent state node #{node.id}'
                )
            node.initial_target = [target]
        node.initial_actions = list(model.initial_actions)
        for transition in model.transitions:
            if transition.kind == "on" and transition.event == "":
                raise MachineDefinitionError(
                    'Null events ("") cannot be specified as a transition key. Use `always: { ... }` instead.'
                )
            runtime = self._runtime_transition(node, transition)
            if transition.kind == "always":
                if node.always is None:
                    node.always = []
                node.always.append(runtime)
            elif transition.kind != "after":
                if transition.index == 0:
                    node.transitions[transition.event] = []  # a later duplicate key replaces
                node.transitions[transition.event].append(runtime)
        # Delayed transitions come last, after `on`, `onDone` and invoke transitions.
        seen_delays: list[str] = []
        for transition in model.transitions:
            if transition.kind != "after":
                continue
            if transition.event not in seen_delays:
                seen_delays.append(transition.event)
                node.entry.append(
                    Action(type="xstate.raise",
                           fields={"event": {"type": transition.event}, "id": transition.event, "delay": transition.delay})
                )
                node.exit.append(Action(type="xstate.cancel", fields={"sendId": transition.event}))
            node.transitions.setdefault(transition.event, []).append(
                self._runtime_transition(node, transition)
            )

    def _precompute(self) -> None:
        """Facts about the tree that XState recomputes per event, computed once, leaves first."""
        for node in reversed(self.nodes):  # pre-order reversed: children before parents
            handled = set(node.transitions)
            descendants: set[Node] = set()
            node.wildcards = tuple(key for key in node.transitions if key == "*" or key.endswith(".*"))
            below = bool(node.wildcards)
            for child in node.children.values():
                handled |= child.handled
                descendants.add(child)
                descendants |= child.descendants
                below = below or child.wildcard_below
            node.handled = frozenset(handled)
            node.descendants = frozenset(descendants)
            node.wildcard_below = below
            node.index_keyed_children = any(is_array_index(key) for key in node.children)
            stops = tuple(Action(type="xstate.stopChild", fields={"actorRef": inv.id}) for inv in node.invoke)
            node.exit_actions = (*node.exit, *stops)

    def _format_route_transitions(self) -> None:
        """`formatRouteTransitions`: a state with an explicit id and `route: {...}` can be reached
        from anywhere by the event `{type: "xstate.route", to: "#id"}` (a root transition)."""
        routes: list[RuntimeTransition] = []
        for node in self.nodes[1:]:
            route = node.model.extra.get("route")
            if route is None or node.model.explicit_id is None:
                continue
            config = route if isinstance(route, dict) else {}
            where = f"{node.id}.route"
            route_id = f"#{node.model.explicit_id}"
            # `code` marks it inline, as XState's guard is (errors then name no guard).
            matches = Guard(type=ROUTE_GUARD, state=route_id, code=f"({{ event }}) => event.to === '{route_id}'")
            user_guard = config.get("guard")
            guard = matches if user_guard is None else Guard(
                type="xstate.and", guards=(matches, parse_guard(user_guard, f"{where}.guard")))
            actions = [parse_action(item, f"{where}.actions") for item in _as_list(config.get("actions"))]
            reenter = bool(config.get("reenter", False))
            routes.append(RuntimeTransition(self.root, ROUTE_EVENT, [node], guard, actions, reenter, None))
        if routes:
            self.root.transitions[ROUTE_EVENT] = routes

    def _runtime_transition(self, node: Node, transition: Transition) -> RuntimeTransition:
        if transition.extra.get("cond"):
            raise MachineDefinitionError(
                f'State "{node.id}" has declared `cond` for one of its transitions. '
                "This property has been renamed to `guard`. Please update your code."
            )
        target: list[Node] | None = None
        if transition.targets is not None:
            target = [self._runtime(self._resolver.resolve_target(node.model, t)) for t in transition.targets]
        return RuntimeTransition(
            node, transition.event, target, transition.guard, list(transition.actions),
            transition.reenter, transition, transition.delay,
        )

    # -- lookups --------------------------------------------------------------------------

    def _runtime(self, model: StateNode) -> Node:
        """The runtime node compiled from the model node `model`."""
        return self._runtime_of[id(model)]

    def node(self, state_id: str) -> Node:
        """The runtime node with id `state_id` (no `#`)."""
        return self.id_map[state_id]

    def node_by_id(self, state_id: str) -> Node:
        """`getStateNodeById('#id.child')` on the runtime nodes."""
        return self._runtime(self._resolver.node_by_id(state_id))

    def history_default_target(self, history: Node) -> list[Node]:
        """`resolveHistoryDefaultTransition(...).target`."""
        parent = history.parent
        assert parent is not None
        if history.model.target is None:
            if parent.type == "parallel":
                return [parent]
            return parent.initial_target
        return [self._runtime(self._resolver.node_by_path(parent.model, t)) for t in history.model.target]

    def history_default_is_parent_initial(self, history: Node) -> bool:
        """Whether the default is the parent's own initial transition (then initial actions run)."""
        parent = history.parent
        return history.model.target is None and parent is not None and parent.type != "parallel"

    def state_path_nodes(self, value: Any) -> list[Node]:
        """XState's `getStateNodes(root, value)` for a state value or a dotted path."""
        return _state_nodes(self, self.root, to_state_value(value))


def _state_nodes(machine: Machine, node: Node, value: Any) -> list[Node]:
    if isinstance(value, str):
        child = node.children.get(value)
        if child is None:
            raise MachineDefinitionError(f"State '{value}' does not exist on '{node.id}'")
        return [node, child]
    result: list[Node] = [machine.root, node]
    children = [_child(machine, node, key) for key in value]
    result.extend(children)
    for key, child in zip(value, children, strict=True):
        result.extend(_state_nodes(machine, child, value[key]))
    return result


def _child(machine: Machine, node: Node, key: str) -> Node:
    if key.startswith("#"):
        return machine.node_by_id(key)
    child = node.children.get(key)
    if child is None:
        raise MachineDefinitionError(f"Child state '{key}' does not exist on '{node.id}'")
    return child
