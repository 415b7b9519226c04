"""XState v5's transition algorithm (`stateUtils.ts`), step for step.

Each function here mirrors the XState function of the same name; the order of every loop
and the identity of every snapshot object follow XState, because observable behaviour
depends on them (document order, conflict resolution, whether an eventless pass runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from statekit.budget import current_budget
from statekit.engine.actions import ActionContext, resolve_actions, with_spawned
from statekit.engine.evaluation import UNDEFINED, Scope
from statekit.engine.guards import evaluate_guard
from statekit.engine.machine import _HISTORY_DEPENDENT, _UNKNOWN, Machine, Node, RuntimeTransition
from statekit.engine.plan import ADMIT_CHEAP_BELOW, MAX_PLANS, build_plan
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError
from statekit.model.core import Action

Event = Mapping[str, Any]
HistoryValue = Mapping[str, tuple[Node, ...]]

WILDCARD = "*"
XSTATE_INIT = "xstate.init"
XSTATE_STOP = "xstate.stop"


# -- selection -----------------------------------------------------------------------------


def matches_event_descriptor(event_type: str, descriptor: str) -> bool:
    """`matchesEventDescriptor`: exact, `*`, or a `prefix.*` that also matches `prefix`."""
    if descriptor in (event_type, WILDCARD):
        return True
    if not descriptor.endswith(".*"):
        return False
    partial_tokens = descriptor.split(".")
    event_tokens = event_type.split(".")
    for index, token in enumerate(partial_tokens):
        if token == "*":
            return index == len(partial_tokens) - 1
        if index >= len(event_tokens) or token != event_tokens[index]:
            return False
    return True


#: Candidate lists kept per node with wildcard descriptors before its cache is cleared: event
#: types can be unbounded (`order.<id>.updated`), the memory must not be.
MAX_CANDIDATE_TYPES = 256
_NO_CANDIDATES: list[RuntimeTransition] = []


def candidates(node: Node, event_type: str) -> list[RuntimeTransition]:
    """`getCandidates`: the exact match first, then wildcards, longest descriptor first."""
    if not node.wildcards:  # only an exact descriptor can match: nothing to compute or keep
        return node.transitions.get(event_type) or _NO_CANDIDATES
    cache = node.candidates
    cached = cache.get(event_type)
    if cached is not None:
        return cached
    wildcard_keys = [
        key for key in node.wildcards if key != event_type and matches_event_descriptor(event_type, key)
    ]
    wildcard_keys.sort(key=len, reverse=True)  # stable, like Array.prototype.sort
    result = list(node.transitions.get(event_type) or ())
    for key in wildcard_keys:
        result.extend(node.transitions[key])
    if len(cache) >= MAX_CANDIDATE_TYPES:
        cache.clear()
    cache[event_type] = result
    return result


def node_next(node: Node, snapshot: Snapshot, event: Event, probe: list[bool]) -> list[RuntimeTransition] | None:
    """`StateNode.next`: the first candidate whose guard passes.

    `probe[0]` is set when a guard was evaluated: the selection then depends on context
    and the event's payload and must not be cached.
    """
    event_type = event["type"]
    for candidate in candidates(node, event_type):
        guard = candidate.guard
        if guard is None:
            return [candidate]
        probe[0] = True
        try:
            passed = evaluate_guard(guard, snapshot.context, event, snapshot)
        except Exception as error:
            # Built-in guards are inline functions in XState, which have no name to show.
            label = "" if guard.is_builtin or guard.code is not None else f"'{guard.type}' "
            raise EngineError(
                f"Unable to evaluate guard {label}in transition for event '{event_type}' "
                f"in state node '{node.id}':\n{_message(error)}"
            ) from error
        if passed:
            return [candidate]
    return None


def _message(error: BaseException) -> str:
    return str(error) or type(error).__name__


def _child_by_key(node: Node, key: str) -> Node:
    """`getStateNode(stateNode, key)` for a key of a state value."""
    child = node.children.get(key)
    if child is None:
        if key.startswith("#"):
            return node.machine.node_by_id(key)
        raise EngineError(f"Child state '{key}' does not exist on '{node.id}'")
    return child


def transition_node(node: Node, value: Any, snapshot: Snapshot, event: Event,
                    probe: list[bool]) -> list[RuntimeTransition] | None:
    """`transitionNode`: walk the state value, deepest first; parallel regions in value order.

    The walk follows the value, not the node tree: after a machine is done its node list is
    reversed, and a corrupted configuration (two active children of one compound state) reads
    as a parallel value; XState selects by the value in both cases, and so does this.
    A subtree where no transition is declared for the event has no candidate to find: it is
    skipped (the value's keys are always child keys, as the value is read from the nodes).
    """
    if not node.wildcard_below and event["type"] not in node.handled:
        return None
    if isinstance(value, str):  # transitionAtomicNode
        inner = node_next(_child_by_key(node, value), snapshot, event, probe)
        return inner or node_next(node, snapshot, event, probe)
    keys = list(value)
    if len(keys) == 1:  # transitionCompoundNode
        inner = transition_node(_child_by_key(node, keys[0]), value[keys[0]], snapshot, event, probe)
        return inner or node_next(node, snapshot, event, probe)
    collected: list[RuntimeTransition] = []  # transitionParallelNode
    for key in keys:
        sub_value = value[key]
        if sub_value is None or sub_value == "":  # JS `!subStateValue` ({} is truthy)
            continue
        inner = transition_node(_child_by_key(node, key), sub_value, snapshot, event, probe)
        if inner:
            collected.extend(inner)
    return collected or node_next(node, snapshot, event, probe)


def _lone_handler(snapshot: Snapshot, event_type: str) -> tuple[Node, ...] | None:
    """The active node with a transition declared for `event_type`, if it is the only one (or
    none); None if there are more (or wildcards, or an improper configuration).

    With a single such node, `transitionNode`'s walk meets candidates there only, so it selects
    that node's first enabled candidate whatever the order of the walk; with a proper
    configuration the walk visits every active node.
    """
    if snapshot.machine.root.wildcard_below:
        return None
    proper = snapshot._proper
    if proper is None:
        proper = snapshot.is_proper()
    if not proper:
        return None
    found: tuple[Node, ...] = ()
    for node in snapshot.nodes:
        if event_type in node.transitions:
            if found:
                return None
            found = (node,)
    return found


#: `node_next`'s probe where nothing is cached (what it records is not read).
_UNREAD_PROBE = [False]


def select_transitions(snapshot: Snapshot, event: Event) -> list[RuntimeTransition]:
    """`selectTransitions` / `machine.getTransitionData`.

    With one active handler of the event type (`_lone_handler`) the answer is that node's
    first enabled candidate, found in a few steps: nothing to cache. Otherwise it is
    `transitionNode`'s walk, cached when no guard was consulted.
    """
    event_type = event["type"]
    machine = snapshot.machine
    key = (snapshot.nodes, event_type)
    cached = machine.selections.get(key)
    if cached is not None:
        return cached
    probe = [False]
    handler = _lone_handler(snapshot, event_type)
    if handler is None:
        result = transition_node(machine.root, snapshot.value, snapshot, event, probe) or []
        admit = True
    else:
        result = (node_next(handler[0], snapshot, event, probe) or []) if handler else []
        admit = len(machine.selections) < ADMIT_CHEAP_BELOW
    if admit and not probe[0]:
        if len(machine.selections) >= MAX_PLANS:
            machine.selections.clear()
        machine.selections[key] = result
    return result


def select_eventless_transitions(snapshot: Snapshot, event: Event) -> list[RuntimeTransition]:
    """`selectEventlessTransitions`: per atomic state, the first passing `always` up the tree."""
    if not snapshot.machine.has_always:
        return []
    enabled: dict[RuntimeTransition, None] = {}
    for node in snapshot.nodes:
        if node.type not in ("atomic", "final"):
            continue
        for candidate_node in (node, *node.ancestors):
            if candidate_node.always is None:
                continue
            chosen = next(
                (t for t in candidate_node.always
                 if t.guard is None or evaluate_guard(t.guard, snapshot.context, event, snapshot)),
                None,
            )
            if chosen is not None:
                enabled[chosen] = None
                break
    return remove_conflicting_transitions(list(enabled), snapshot.nodes, snapshot.history)


# -- sets -----------------------------------------------------------------------------------


def effective_target_states(transition: RuntimeTransition, history: HistoryValue) -> list[Node]:
    """`getEffectiveTargetStates`: history states replaced by what they restore."""
    if not transition.target:
        return []
    targets: dict[Node, None] = {}
    for target in transition.target:
        if target.type == "history":
            recorded = history.get(target.id)
            if recorded:
                for node in recorded:
                    targets[node] = None
            else:
                for node in _history_default_targets(target, history):
                    targets[node] = None
        else:
            targets[target] = None
    return list(targets)


def _history_default_targets(history_node: Node, history: HistoryValue) -> list[Node]:
    default_targets = history_node.machine.history_default_target(history_node)
    default = RuntimeTransition(history_node, "", default_targets, None, [], False, None)
    return effective_target_states(default, history)


def transition_domain(transition: RuntimeTransition, history: HistoryValue) -> Node | None:
    """`getTransitionDomain` (memoised on the transition when history cannot change it)."""
    cached = transition.domain
    if cached is _UNKNOWN:
        domain = _transition_domain(transition, history)
        transition.domain = domain
        return domain
    if cached is _HISTORY_DEPENDENT:
        return _transition_domain(transition, history)
    result: Node | None = cached
    return result


def _transition_domain(transition: RuntimeTransition, history: HistoryValue) -> Node | None:
    targets = effective_target_states(transition, history)
    source = transition.source
    if not transition.reenter and all(t is source or t.is_descendant_of(source) for t in targets):
        return source
    lca = _least_common_ancestor([*targets, source])
    if lca is not None:
        return lca
    if transition.reenter:
        return None
    return source.machine.root


def _least_common_ancestor(nodes: list[Node]) -> Node | None:
    head, *tail = nodes
    for ancestor in head.ancestors:
        if all(node.is_descendant_of(ancestor) for node in tail):
            return ancestor
    return None


def compute_exit_set(transitions: Iterable[RuntimeTransition], node_set: Iterable[Node], history: HistoryValue) -> list[Node]:
    """`computeExitSet` (insertion order, as XState's Set)."""
    to_exit: dict[Node, None] = {}
    nodes = list(node_set)
    for transition in transitions:
        if transition.target:
            domain = transition_domain(transition, history)
            if transition.reenter and transition.source is domain:
                to_exit[domain] = None
            for node in nodes:
                if node.is_descendant_of(domain):
                    to_exit[node] = None
    return list(to_exit)


def remove_conflicting_transitions(
    enabled: list[RuntimeTransition], node_set: Iterable[Node], history: HistoryValue
) -> list[RuntimeTransition]:
    """`removeConflictingTransitions`: a descendant's transition preempts; otherwise the earlier wins."""
    if len(enabled) < 2:
        return enabled
    nodes = list(node_set)
    exit_sets: dict[RuntimeTransition, set[Node]] = {}

    def exit_set(transition: RuntimeTransition) -> set[Node]:
        cached = exit_sets.get(transition)
        if cached is None:
            cached = set(compute_exit_set([transition], nodes, history))
            exit_sets[transition] = cached
        return cached

    filtered: dict[RuntimeTransition, None] = {}
    for t1 in enabled:
        preempted = False
        to_remove: list[RuntimeTransition] = []
        for t2 in filtered:
            if exit_set(t1) & exit_set(t2):
                if t1.source.is_descendant_of(t2.source):
                    to_remove.append(t2)
                else:
                    preempted = True
                    break
        if not preempted:
            for t3 in to_remove:
                del filtered[t3]
            filtered[t1] = None
    return list(filtered)


def initial_nodes(node: Node) -> list[Node]:
    """`getInitialStateNodes`: the node and its default descendants, pre-order."""
    found: dict[Node, None] = {}

    def visit(current: Node) -> None:
        if current in found:
            return
        found[current] = None
        if current.type == "compound":
            visit(current.initial_target[0])
        elif current.type == "parallel":
            for child in current.regions:
                visit(child)

    visit(node)
    return list(found)


def initial_nodes_with_ancestors(node: Node) -> list[Node]:
    """`getInitialStateNodesWithTheirAncestors`."""
    found = dict.fromkeys(initial_nodes(node))
    for initial in list(found):
        for ancestor in initial.ancestors:
            if ancestor is node:
                break
            found[ancestor] = None
    return list(found)


def all_state_nodes(nodes: Iterable[Node]) -> tuple[Node, ...]:
    """`getAllStateNodes`: complete a set of nodes with default descendants and all ancestors."""
    node_set: dict[Node, None] = dict.fromkeys(nodes)
    has_active_child = {node.parent for node in node_set if node.parent is not None}
    pending = list(node_set)
    while pending:  # XState iterates its Set while adding to it
        node = pending.pop(0)
        if node.type == "compound" and node not in has_active_child:
            additions = initial_nodes_with_ancestors(node)
        elif node.type == "parallel":
            additions = [added for region in node.regions if region not in node_set
                         for added in initial_nodes_with_ancestors(region)]
        else:
            additions = []
        for added in additions:
            if added not in node_set:
                node_set[added] = None
                pending.append(added)
    for node in list(node_set):
        for ancestor in node.ancestors:
            node_set.setdefault(ancestor)
    return tuple(node_set)


class EntrySet(dict[Node, None]):
    """XState's `statesToEnter` Set, which also knows which nodes have an entered descendant.

    XState asks "is any state to enter below this region?" by scanning the whole set, which
    makes entering a parallel state with N regions cost N^3; the `covered` set answers it in
    one lookup and gives the same answers.
    """

    def __init__(self) -> None:
        super().__init__()
        self.covered: set[Node] = set()

    def add(self, node: Node) -> None:
        if node not in self:
            self[node] = None
            self.covered.update(node.ancestors)


def compute_entry_set(
    transitions: list[RuntimeTransition],
    history: HistoryValue,
    for_default_entry: dict[Node, None],
    to_enter: EntrySet,
) -> None:
    """`computeEntrySet`."""
    for transition in transitions:
        domain = transition_domain(transition, history)
        for target in transition.target or ():
            if target.type != "history" and (
                transition.source is not target or transition.source is not domain or transition.reenter
            ):
                to_enter.add(target)
                for_default_entry[target] = None
            _add_descendants_to_enter(target, history, for_default_entry, to_enter)
        for target in effective_target_states(transition, history):
            ancestors = _proper_ancestors(target, domain)
            if domain is not None and domain.type == "parallel":
                ancestors.append(domain)
            reentrancy_domain = None if (transition.source.parent is None and transition.reenter) else domain
            _add_ancestors_to_enter(to_enter, history, for_default_entry, ancestors, reentrancy_domain)


def _proper_ancestors(node: Node, up_to: Node | None) -> list[Node]:
    """`getProperAncestors(node, upTo)`: from the parent up, excluding `up_to`."""
    if up_to is node:
        return []
    result: list[Node] = []
    for ancestor in node.ancestors:
        if ancestor is up_to:
            break
        result.append(ancestor)
    return result


def _add_descendants_to_enter(
    node: Node, history: HistoryValue, for_default_entry: dict[Node, None], to_enter: EntrySet
) -> None:
    if node.type == "history":
        recorded = history.get(node.id)
        parent = node.parent
        if recorded:
            for state in recorded:
                to_enter.add(state)
                _add_descendants_to_enter(state, history, for_default_entry, to_enter)
            for state in recorded:
                _add_ancestors_to_enter(to_enter, history, for_default_entry, _proper_ancestors(state, parent), None)
        else:
            machine = node.machine
            default_targets = machine.history_default_target(node)
            is_parent_initial = machine.history_default_is_parent_initial(node)
            for state in default_targets:
                to_enter.add(state)
                if is_parent_initial and parent is not None:
                    for_default_entry[parent] = None
                _add_descendants_to_enter(state, history, for_default_entry, to_enter)
            for state in default_targets:
                _add_ancestors_to_enter(to_enter, history, for_default_entry, _proper_ancestors(state, parent), None)
    elif node.type == "compound":
        initial = node.initial_target[0]
        if initial.type != "history":
            to_enter.add(initial)
            for_default_entry[initial] = None
        _add_descendants_to_enter(initial, history, for_default_entry, to_enter)
        _add_ancestors_to_enter(to_enter, history, for_default_entry, _proper_ancestors(initial, node), None)
    elif node.type == "parallel":
        for child in node.regions:
            if child not in to_enter.covered:  # no entered state lies below child
                to_enter.add(child)
                for_default_entry[child] = None
                _add_descendants_to_enter(child, history, for_default_entry, to_enter)


def _add_ancestors_to_enter(
    to_enter: EntrySet,
    history: HistoryValue,
    for_default_entry: dict[Node, None],
    ancestors: list[Node],
    reentrancy_domain: Node | None,
) -> None:
    for ancestor in ancestors:
        if reentrancy_domain is None or ancestor.is_descendant_of(reentrancy_domain):
            to_enter.add(ancestor)
        if ancestor.type == "parallel":
            for child in ancestor.regions:
                if child not in to_enter.covered:  # no entered state lies below child
                    to_enter.add(child)
                    _add_descendants_to_enter(child, history, for_default_entry, to_enter)


def is_in_final_state(node_set: Mapping[Node, None] | frozenset[Node], node: Node) -> bool:
    """`isInFinalState`."""
    if node.type == "compound":
        return any(child.type == "final" and child in node_set for child in node.regions)
    if node.type == "parallel":
        return all(is_in_final_state(node_set, child) for child in node.regions)
    return node.type == "final"


# -- microstep and macrostep ------------------------------------------------------------------


def microstep(
    transitions: list[RuntimeTransition],
    snapshot: Snapshot,
    ctx: ActionContext,
    event: Event,
    is_initial: bool,
) -> Snapshot:
    """`microstep`: exit, transition actions, enter; record history; detect done.

    The structural work is a cached `MicrostepPlan`; the actions are resolved live.
    """
    if not transitions:
        return snapshot
    machine = snapshot.machine
    history = snapshot.history
    key = (tuple(transitions), snapshot.nodes, tuple(history.items()) if machine.has_history and history else (),
           is_initial)  # recorded history counts only in machines that have history states
    plan = machine.plans.get(key)
    if plan is None:
        plan = build_plan(transitions, snapshot.nodes, history, is_initial)
        if not plan.shortcut or len(machine.plans) < ADMIT_CHEAP_BELOW:
            if len(machine.plans) >= MAX_PLANS:
                machine.plans.clear()
            machine.plans[key] = plan
    next_snapshot = snapshot
    for exiting, exit_actions in plan.exits:
        if exit_actions:
            next_snapshot = _resolve_located(next_snapshot, event, ctx, exit_actions, None, "exit", exiting)
    if plan.history_updates is not None:
        history = {**history, **dict(plan.history_updates)}
    for taken in plan.filtered:
        if taken.actions:
            next_snapshot = _resolve_located(next_snapshot, event, ctx, taken.actions, None, "transition", taken)
    for entry in plan.entries:
        if entry.actions:
            next_snapshot = _resolve_located(next_snapshot, event, ctx, entry.actions, entry.deferred_actor_ids,
                                             "entry", entry.node)
        final = entry.final
        if final is not None:
            if final.parent_done_id is not None:
                node = entry.node
                done_event: dict[str, Any] = {"type": f"xstate.done.state.{final.parent_done_id}"}
                if node.has_output:  # JS: `output: undefined` otherwise, which JSON and Python omit
                    done_event["output"] = _resolve_output(node.output, next_snapshot, event)
                ctx.internal_queue.append(done_event)
            for parallel_id in final.parallel_done_ids:
                ctx.internal_queue.append({"type": f"xstate.done.state.{parallel_id}"})
            if final.machine_done:
                next_snapshot = next_snapshot.clone(
                    status="done", output=_machine_output(next_snapshot, event, final.completion)
                )
    next_nodes = plan.next_nodes
    if next_snapshot.status == "done":
        next_nodes = tuple(sorted(next_nodes, key=lambda n: -n.order))
        exits = [action for node in next_nodes for action in node.exit]
        next_snapshot = resolve_actions(next_snapshot, event, ctx, exits, None)
    if plan.history_updates is None and plan.same_nodes:
        return next_snapshot
    if next_snapshot is snapshot:
        result = snapshot.clone(nodes=next_nodes, history=history)
    else:  # a snapshot this microstep's actions made, which nothing else holds: no second copy
        result = next_snapshot
        result.replace_nodes(next_nodes, history)
    if next_nodes is plan.next_nodes and (plan.value_root is not None or plan.part_is_proper):
        result.derive(snapshot, plan.value_root, plan.part_is_proper)
    return result


def _resolve_located(snapshot: Snapshot, event: Event, ctx: ActionContext, actions: Sequence[Action],
                     deferred_actor_ids: Sequence[str] | None, kind: str,
                     subject: Node | RuntimeTransition) -> Snapshot:
    """`resolve_actions`, saying where an action failed (the state or transition), as XState's
    messages do not. (A plain try costs nothing when nothing fails; the text is built then.)"""
    try:
        return resolve_actions(snapshot, event, ctx, actions, deferred_actor_ids)
    except EngineError as error:
        if error.where is None:
            error.where = _where(kind, subject)
        raise
    except RecursionError:
        raise
    except Exception as error:  # a Python implementation raised
        wrapped = EngineError(str(error) or type(error).__name__)
        wrapped.where = _where(kind, subject)
        raise wrapped from error


def _where(kind: str, subject: Node | RuntimeTransition) -> str:
    if isinstance(subject, RuntimeTransition):
        return f"the actions of transition '{_transition_label(subject)}'"
    return f"the {kind} actions of state '{subject.id}'"


def _transition_label(transition: RuntimeTransition) -> str:
    return transition.model.id if transition.model is not None else f"{transition.source.id}:{transition.event}"


def _resolve_output(mapper: Any, snapshot: Snapshot, event: Event) -> Any:
    """`resolveOutput`: a final state's or the machine's `output` (data or code)."""
    return snapshot.machine.evaluator.value(mapper, Scope(snapshot.context, event), where="output")


def _machine_output(snapshot: Snapshot, event: Event, completion: Node) -> Any:
    """`getMachineOutput`: the root's `output` given the done event of the completing node."""
    root = snapshot.machine.root
    if not root.has_output:
        return None
    # XState's createDoneStateEvent always sets `output` (undefined when the completing node has
    # none, or is the root): the root's output code sees `'output' in event` as true.
    done_event: dict[str, Any] = {"type": f"xstate.done.state.{completion.id}", "output": UNDEFINED}
    if completion.has_output and completion.parent is not None:
        done_event["output"] = _resolve_output(completion.output, snapshot, event)
    return _resolve_output(root.output, snapshot, done_event)


def macrostep(snapshot: Snapshot, event: Event, ctx: ActionContext) -> Snapshot:
    """`macrostep`: the event's microstep, then eventless transitions and the internal queue."""
    event_type = event.get("type")
    if event_type == WILDCARD:
        raise EngineError(f"An event cannot have the wildcard type ('{WILDCARD}')")
    if event_type == XSTATE_STOP:
        return _stop_children(snapshot, event, ctx).clone(status="stopped")
    next_event = event
    next_snapshot = snapshot
    if event_type != XSTATE_INIT:
        transitions = select_transitions(next_snapshot, next_event)
        if isinstance(event_type, str) and event_type.startswith("xstate.error.actor") and not transitions:
            return _stop_children(next_snapshot, next_event, ctx).clone(status="error", error=event.get("error"))
        next_snapshot = microstep(transitions, snapshot, ctx, next_event, False)
    should_select_eventless = True
    machine = snapshot.machine
    has_always = machine.has_always
    max_iterations = machine.max_iterations
    budget = current_budget()  # the tool call's deadline and cancellation (None outside a call)
    iterations = 0
    while next_snapshot.status == "active":
        iterations += 1
        if budget is not None:
            budget.check()
        if max_iterations is not None and iterations > max_iterations:
            raise EngineError(
                f"Infinite loop detected: the machine has processed more than {max_iterations} microsteps "
                "without reaching a stable state. This usually happens when there's a cycle of transitions "
                "(e.g., eventless transitions or raised events causing state A -> B -> C -> A)."
            )
        enabled = (select_eventless_transitions(next_snapshot, next_event) if has_always and should_select_eventless
                   else [])
        previous: Snapshot | None = next_snapshot if enabled else None
        if not enabled:
            if not ctx.internal_queue:
                break
            next_event = ctx.internal_queue.pop(0)
            enabled = select_transitions(next_snapshot, next_event)
        next_snapshot = microstep(enabled, next_snapshot, ctx, next_event, False)
        should_select_eventless = next_snapshot is not previous
    if next_snapshot.status != "active":
        # XState resolves the stop actions here but keeps the snapshot it had (children stay listed).
        _stop_children(next_snapshot, next_event, ctx)
    return next_snapshot


def _stop_children(snapshot: Snapshot, event: Event, ctx: ActionContext) -> Snapshot:
    actions = [Action(type="xstate.stopChild", fields={"actorRef": key}) for key in snapshot.children]
    saved_queue = ctx.internal_queue
    ctx.internal_queue = []
    try:
        return resolve_actions(snapshot, event, ctx, actions, None)
    finally:
        ctx.internal_queue = saved_queue


def initial_snapshot(machine: Machine, ctx: ActionContext, input_value: Any) -> Snapshot:
    """`getInitialSnapshot`: the pre-initial snapshot, the initial microstep, then a macrostep."""
    # JS leaves `input` undefined when none is given, and JSON then omits it.
    init_event: dict[str, Any] = {"type": XSTATE_INIT} if input_value is None else {"type": XSTATE_INIT, "input": input_value}
    config_context = machine.model.context
    is_data = not callable(config_context) and not (isinstance(config_context, Mapping) and "$js" in config_context)
    snapshot = Snapshot(machine, (machine.root,), (config_context or {}) if is_data else {})
    try:
        # Data, or a factory `({input}) => ...`: the evaluator runs (or checks) it.
        snapshot = snapshot.clone(context=machine.evaluator.initial_context(config_context, input_value))
        spawned = machine.evaluator.take_spawned()  # `spawn(...)` in the context factory
        if spawned:
            snapshot = snapshot.clone(children=with_spawned(snapshot.children, spawned, ctx))
        root_transition = RuntimeTransition(machine.root, "", initial_nodes(machine.root), None, [], True, None)
        snapshot_after = microstep([root_transition], snapshot, ctx, init_event, True)
        return macrostep(snapshot_after, init_event, ctx)
    except EngineError as error:
        return snapshot.clone(status="error", error=str(error))
    except RecursionError:
        return snapshot.clone(status="error", error="the machine recursed too deeply while starting")
    except Exception as error:  # an implementation raised; XState's getInitialSnapshot catches all
        return snapshot.clone(status="error", error=str(error) or type(error).__name__)
