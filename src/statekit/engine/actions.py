"""Action resolution (XState's `resolveAndExecuteActionsWithContext` and the built-ins).

Resolving an action updates the snapshot (assign, spawn, stop) and/or records an executable
action. The pure engine never runs implementations; it returns them, with what they need,
in `ExecutableAction.run`, and the actor runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from statekit.engine.evaluation import Scope, WholeContext
from statekit.engine.guards import evaluate_guard
from statekit.engine.implementations import ActionArgs, Assign
from statekit.errors import EngineError
from statekit.model.core import Action, EnqueueBranch
from statekit.model.inline import JS_MARKER
from statekit.model.parse import parse_action
from statekit.model.unresolved import (
    STARTS_ACTIVE,
    UNREAD_ACTION,
    UNRENDERED,
    child_machine_definition,
    is_inline_logic,
    unresolved_marker,
)

if TYPE_CHECKING:
    from statekit.engine.snapshot import ChildRef, Snapshot

Event = Mapping[str, Any]
UNREAD_EXPRESSION = UNREAD_ACTION


_NOT_RESOLVED: Any = object()


class ExecutableAction:
    """An action a step produced, in execution order (XState's executable action record).

    Treat it as immutable. `type`, `params`; `args`, the context and event the action was
    resolved with; `run`, the implementation to run, for named actions that have one. The
    engine makes several per event and most are never asked for `args` (an actor runs only
    named implementations), so it gives the context and event and `args` is built on first use.
    """

    __slots__ = ("_args", "_context", "_event", "params", "run", "type")

    def __init__(self, type: str, params: Any = None, args: ActionArgs | None = None,
                 run: Callable[[ActionArgs, Any], None] | None = None, context: Any = _NOT_RESOLVED,
                 event: Event | None = None) -> None:
        self.type = type
        self.params = params
        self.run = run
        self._args = args
        self._context = context
        self._event = event

    @property
    def args(self) -> ActionArgs | None:
        if self._args is None and self._context is not _NOT_RESOLVED:
            self._args = ActionArgs(self._context, self._event or {})
        return self._args

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecutableAction):
            return NotImplemented
        return (self.type, self.params, self.args, self.run) == (other.type, other.params, other.args, other.run)

    __hash__ = None  # type: ignore[assignment]  # (params are usually dicts)

    def __repr__(self) -> str:
        return f"ExecutableAction(type={self.type!r}, params={self.params!r}, args={self.args!r}, run={self.run!r})"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        if self.params is not None:
            data["params"] = _jsonable(self.params)
        return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    return repr(value)


class ActionContext:
    """The mutable state of one macrostep: the executable actions and the internal queue.

    (A plain slotted class: one is made per event, and a dataclass's factories cost more.)"""

    __slots__ = ("actions", "internal_queue", "system_ids")

    def __init__(self, actions: list[ExecutableAction] | None = None, internal_queue: list[Event] | None = None,
                 system_ids: dict[str, str | None] | None = None) -> None:
        self.actions: list[ExecutableAction] = [] if actions is None else actions
        self.internal_queue: list[Event] = [] if internal_queue is None else internal_queue
        #: The system ids of actors spawned in this step (XState's system refuses a second one),
        #: each with the id of its actor, or None where statekit cannot tell whether XState's system
        #: kept it (it drops an actor that does not start active; `system.get` then refuses).
        self.system_ids: dict[str, str | None] = {} if system_ids is None else system_ids


def resolve_actions(
    snapshot: Snapshot,
    event: Event,
    ctx: ActionContext,
    actions: Sequence[Action],
    deferred_actor_ids: Sequence[str] | None,
) -> Snapshot:
    """Resolve `actions` in order against an evolving snapshot (each through its `Resolver`).

    The resolvers are kept per action list: the lists the engine resolves are the machine's
    own (a state's entry and exit actions, a transition's actions), made once."""
    entry = snapshot.machine.resolvers.get(id(actions))
    if entry is None or entry[0] is not actions or len(entry[1]) != len(actions):
        entry = _remember_resolvers(snapshot.machine, actions)
    for resolve in entry[1]:
        snapshot = resolve(snapshot, event, ctx, deferred_actor_ids)
    return snapshot


# -- resolvers: what resolving one action does, worked out once per machine ---------------------
#
# XState resolves every action from scratch each time: is it built-in, which implementation
# does its name have, are its params code, is each field of a built-in data or code. For one
# machine the answers never change (its implementations are fixed when it is created, as in
# XState), so each action is compiled once into a `Resolver` that does only what depends on
# the snapshot and the event. Whatever might be code still goes to the evaluator every time;
# an evaluator given from outside (not statekit's own) is asked everything every time.

#: Resolves one action: `(snapshot, event, ctx, deferred actor ids) -> snapshot`.
Resolver = Callable[["Snapshot", Event, ActionContext, "Sequence[str] | None"], "Snapshot"]

#: Action lists whose resolvers are kept per machine (keyed by the list object, which the
#: entry keeps alive so its id is not reused). The machine's own lists are a fixed set; lists
#: built while running (an inline `enqueueActions`, stopping children) are new objects each
#: time: the bound keeps them from growing the cache without end.
MAX_RESOLVERS = 4096


def _remember_resolvers(machine: Any, actions: Sequence[Action]) -> tuple[Sequence[Action], tuple[Resolver, ...]]:
    resolvers = machine.resolvers
    if len(resolvers) >= MAX_RESOLVERS:
        resolvers.clear()
    entry = (actions, tuple(_compile_or_defer(machine, action) for action in actions))
    resolvers[id(actions)] = entry
    return entry


def _generic(action: Action) -> Resolver:
    """Resolve `action` the long way every time (`_resolve_action`)."""

    def resolve(snapshot: Snapshot, event: Event, ctx: ActionContext, deferred: Sequence[str] | None) -> Snapshot:
        return _resolve_action(snapshot, event, ctx, action, deferred)

    return resolve


def _is_data(value: Any, machine: Any) -> bool:
    """Whether `value` is plain data, that no evaluator would compute (see `_value`)."""
    kind = type(value)
    if value is None or kind in _LITERAL_TYPES:
        return True
    if kind is dict or kind is list:
        if kind is dict and JS_MARKER in value:
            return False
        return not machine.has_unresolved or unresolved_marker(value) is None
    return False


def _compile_or_defer(machine: Any, action: Action) -> Resolver:
    """`_compile`; an action that cannot be compiled (a built-in given as malformed data) is
    resolved the long way, so that it fails where XState fails: when it is resolved."""
    try:
        return _compile(machine, action)
    except Exception:
        return _generic(action)


def _compile(machine: Any, action: Action) -> Resolver:
    from statekit.engine.evaluation import JsEvaluator, PythonEvaluator

    if action.is_builtin:
        return _compile_builtin(machine, action, None)
    if type(machine.evaluator) not in (PythonEvaluator, JsEvaluator):
        return _generic(action)
    if action.type == UNREAD_EXPRESSION and action.code is not None:
        return _generic(action)  # refused when resolved
    params = action.params if action.has_params else None
    if not _is_data(params, machine):
        return _generic(action)
    implementation = machine.evaluator.action(action.type)
    if isinstance(implementation, Assign):
        def resolve_assign(snapshot: Snapshot, event: Event, ctx: ActionContext,
                           deferred: Sequence[str] | None) -> Snapshot:
            return apply_assign(snapshot, event, implementation, params, ctx)

        return resolve_assign
    if isinstance(implementation, Mapping):
        return _compile_builtin(machine, _parsed_implementation(machine, action.type, implementation), params)
    name = action.type
    run = _to_run(machine.evaluator, action, implementation)

    def resolve_named(snapshot: Snapshot, event: Event, ctx: ActionContext, deferred: Sequence[str] | None) -> Snapshot:
        ctx.actions.append(ExecutableAction(name, params, None, run, snapshot.context, event))
        return snapshot

    return resolve_named


def _compile_builtin(machine: Any, action: Action, params: Any) -> Resolver:
    """A built-in action whose fields are data: `cancel`, `raise`, `assign`; the rest generic."""
    fields = action.fields
    kind = action.type
    if kind == "xstate.assign":
        assignment = fields["assignment"]

        def resolve_assign(snapshot: Snapshot, event: Event, ctx: ActionContext,
                           deferred: Sequence[str] | None) -> Snapshot:
            return apply_assign(snapshot, event, assignment, params, ctx)

        return resolve_assign
    if kind == "xstate.cancel" and type(fields.get("sendId")) is str:
        send_id = fields["sendId"]

        def resolve_cancel(snapshot: Snapshot, event: Event, ctx: ActionContext,
                           deferred: Sequence[str] | None) -> Snapshot:
            ctx.actions.append(ExecutableAction(kind, {"sendId": send_id}, None, None, snapshot.context, event))
            return snapshot

        return resolve_cancel
    raised = fields.get("event")
    if kind == "xstate.raise" and type(raised) is dict and _is_data(raised, machine):
        delay = _fixed_delay(machine, fields.get("delay"))
        base = _defined(event=raised, id=fields.get("id"))
        if delay is _NOT_RESOLVED or delay is None:
            fixed_delay = delay is None  # (no delay: raised now)
            delay = fields.get("delay")

            def resolve_raise(snapshot: Snapshot, event: Event, ctx: ActionContext,
                              deferred: Sequence[str] | None) -> Snapshot:
                resolved_delay = None if fixed_delay else _resolve_delay(snapshot, delay, event, params)
                executable = dict(base)
                if resolved_delay is None:
                    ctx.internal_queue.append(raised)
                else:
                    executable["delay"] = resolved_delay
                ctx.actions.append(ExecutableAction(kind, executable, None, None, snapshot.context, event))
                return snapshot

            return resolve_raise
        delayed = {**base, "delay": delay}  # (copied per raise: the engine's results are not shared)

        def resolve_delayed_raise(snapshot: Snapshot, event: Event, ctx: ActionContext,
                                  deferred: Sequence[str] | None) -> Snapshot:
            ctx.actions.append(ExecutableAction(kind, dict(delayed), None, None, snapshot.context, event))
            return snapshot

        return resolve_delayed_raise

    def resolve_builtin(snapshot: Snapshot, event: Event, ctx: ActionContext, deferred: Sequence[str] | None) -> Snapshot:
        return _resolve_builtin(snapshot, event, ctx, action, params, deferred)

    return resolve_builtin


def _resolve_action(
    snapshot: Snapshot, event: Event, ctx: ActionContext, action: Action, deferred_actor_ids: Sequence[str] | None
) -> Snapshot:
    if action.is_builtin:
        return _resolve_builtin(snapshot, event, ctx, action, None, deferred_actor_ids)
    if action.type == UNREAD_EXPRESSION and action.code is not None:
        raise EngineError(f"the action `{action.code}` is an expression statekit cannot evaluate without running the "
                          "source (a call that builds an action); the machine cannot be simulated faithfully")
    evaluator = snapshot.machine.evaluator
    params = resolve_params(action.params if action.has_params else None, snapshot.context, event, evaluator)
    implementation = evaluator.action(action.type)
    if isinstance(implementation, Assign):
        return apply_assign(snapshot, event, implementation, params, ctx)
    if isinstance(implementation, Mapping):
        builtin = _parsed_implementation(snapshot.machine, action.type, implementation)
        return _resolve_builtin(snapshot, event, ctx, builtin, params, deferred_actor_ids)
    args = ActionArgs(snapshot.context, event)
    ctx.actions.append(ExecutableAction(action.type, params, args, _to_run(evaluator, action, implementation)))
    return snapshot


def _to_run(evaluator: Any, action: Action, implementation: Any) -> Callable[[ActionArgs, Any], None] | None:
    """What an actor runs for a custom action: its named implementation, or the action's own
    inline function (`entry: ({ context, self }) => ...`), which XState's actor runs as it runs a
    named one: through the machine's evaluator, with the actor's `self` and `system` (code acting on
    the running actor is refused there); without a sandbox, running it is an error, never a skip."""
    if callable(implementation):
        return cast(Callable[[ActionArgs, Any], None], implementation)
    if implementation is None and action.code is not None:
        code, where, run_code = action.code, f"action '{action.type}'", evaluator.run_code

        def run_inline(args: ActionArgs, params: Any) -> None:
            run_code(code, Scope(args.context, args.event, params), where)

        return run_inline
    return None


def _parsed_implementation(machine: Any, name: str, implementation: Mapping[str, Any]) -> Action:
    """A built-in action given as config data in `setup(actions=...)`, parsed once per machine."""
    cached = machine.parsed_actions.get(name)
    if cached is not None and cached[0] is implementation:
        parsed: Action = cached[1]
        return parsed
    parsed = parse_action(implementation, name)
    machine.parsed_actions[name] = (implementation, parsed)  # bounded by the machine's action names
    return parsed


def resolve_params(params: Any, context: Any, event: Event, evaluator: Any) -> Any:
    """Params written as a function (`params: ({context, event}) => ...`) are computed first."""
    if params is None:
        return None
    return evaluator.value(params, Scope(context, event), where="params")


def apply_assign(snapshot: Snapshot, event: Event, assignment: Any, params: Any,
                 ctx: ActionContext | None = None) -> Snapshot:
    """`assign`: merge the partial update into context (always a new snapshot, as in XState);
    the actors its code spawned join the children (XState's `createSpawner`)."""
    if snapshot.context is None:
        raise EngineError("Cannot assign to undefined `context`. Ensure that `context` is defined in the machine config.")
    evaluator = snapshot.machine.evaluator
    update = evaluator.assignment(assignment, Scope(snapshot.context, event, params))
    spawned = evaluator.take_spawned()
    # A function that changed the context in place gives the whole next context (WholeContext).
    context = dict(update) if isinstance(update, WholeContext) else {**snapshot.context, **update}
    if spawned:
        return snapshot.clone(context=context, children=with_spawned(snapshot.children, spawned, ctx))
    return snapshot.with_context(context)


def with_spawned(children: Mapping[str, ChildRef | None], spawned: Sequence[Mapping[str, Any]],
                 ctx: ActionContext | None) -> dict[str, ChildRef | None]:
    """`children` and the actors inline code spawned (`{id, src, input, systemId}`), by id."""
    from statekit.engine.snapshot import ChildRef

    out = dict(children)
    # The system ids of this step (each pure transition has a fresh system, as in XState).
    system_ids: dict[str, str | None] = ctx.system_ids if ctx is not None else {}
    for actor in spawned:
        system_id = actor.get("systemId")
        key = str(actor["id"])
        if isinstance(system_id, str):
            if system_id in system_ids:  # XState's system refuses a second actor under one system id
                raise EngineError(f"Actor with system ID '{system_id}' already exists.")
            system_ids[system_id] = key if actor.get("logic") in STARTS_ACTIVE else None
        src = actor.get("src")
        out[key] = ChildRef(id=key, src=src if isinstance(src, str) else None, input=actor.get("input"),
                            system_id=system_id if isinstance(system_id, str) else None)
    return out


#: Values that are never code in a machine's data (code is a function or a `{"$js": ...}`).
_LITERAL_TYPES = frozenset({str, int, float, bool})


def _value(field_value: Any, snapshot: Snapshot, event: Event, params: Any, where: str = "") -> Any:
    if field_value is None:
        return None
    kind = type(field_value)
    if kind in _LITERAL_TYPES or (kind is dict and JS_MARKER not in field_value and not snapshot.machine.has_unresolved):
        return field_value  # data: nothing for the evaluator to run
    return snapshot.machine.evaluator.value(field_value, Scope(snapshot.context, event, params), where=where)


def _fixed_delay(machine: Any, delay: Any) -> Any:
    """A raise's delay when it is the same on every resolution: milliseconds as data, or the
    name of a delay that statekit's own Python evaluator has as a number (`setup(delays=...)`
    is fixed when the machine is made, as in XState). `_NOT_RESOLVED` when it must be resolved
    each time (code, a delay function, an evaluator given from outside)."""
    from statekit.engine.evaluation import PythonEvaluator

    if delay is None or type(delay) in (int, float):
        return delay
    evaluator = machine.evaluator
    if type(delay) is str and type(evaluator) is PythonEvaluator:
        configured = evaluator.implementations.delays.get(delay)
        if type(configured) in (int, float):
            return configured
    return _NOT_RESOLVED


def _resolve_delay(snapshot: Snapshot, delay: Any, event: Event, params: Any) -> int | float | None:
    if delay is None:
        return None
    if type(delay) in (int, float):  # milliseconds as data (a string names a delay)
        resolved: int | float = delay
        return resolved
    return snapshot.machine.evaluator.delay(delay, Scope(snapshot.context, event, params))


def _resolve_builtin(
    snapshot: Snapshot,
    event: Event,
    ctx: ActionContext,
    action: Action,
    params: Any,
    deferred_actor_ids: Sequence[str] | None,
) -> Snapshot:
    fields = action.fields
    args = ActionArgs(snapshot.context, event)
    kind = action.type
    if kind == "xstate.assign":
        return apply_assign(snapshot, event, fields["assignment"], params, ctx)
    if kind == "xstate.raise":
        raised = _value(_event_object(fields["event"], "raise"), snapshot, event, params, "a raised event")
        delay = _resolve_delay(snapshot, fields.get("delay"), event, params)
        if delay is None:
            ctx.internal_queue.append(raised)
        ctx.actions.append(ExecutableAction(kind, _defined(event=raised, id=fields.get("id"), delay=delay), args))
        return snapshot
    if kind in ("xstate.sendTo", "xstate.sendParent"):
        return _resolve_send(snapshot, event, ctx, action, params, deferred_actor_ids)
    if kind == "xstate.emit":
        ctx.actions.append(ExecutableAction(kind, {"event": _value(fields["event"], snapshot, event, params,
                                                                   "an emitted event")}, args))
        return snapshot
    if kind == "xstate.log":
        value = (_value(fields["value"], snapshot, event, params, "a log value") if "value" in fields
                 else {"context": snapshot.context, "event": event})
        ctx.actions.append(ExecutableAction(kind, _defined(value=value, label=fields.get("label")), args))
        return snapshot
    if kind == "xstate.cancel":
        ctx.actions.append(ExecutableAction(kind, {"sendId": _value(fields["sendId"], snapshot, event, params,
                                                                    "a cancelled send id")}, args))
        return snapshot
    if kind == "xstate.spawnChild":
        return _resolve_spawn(snapshot, ctx, fields, event, params)
    if kind == "xstate.stopChild":
        reference = _value(fields["actorRef"], snapshot, event, params, "stopChild")
        ref_id = actor_ref_id(reference)  # a reference held in context (XState: the actor itself)
        key = ref_id if ref_id is not None else reference
        child = snapshot.children.get(key) if isinstance(key, str) else None
        children = snapshot.children
        if child is not None:
            children = {key: value for key, value in children.items() if key != child.id}
        stopped = child.to_json() if child is not None else ({"id": ref_id} if ref_id is not None else None)
        ctx.actions.append(ExecutableAction(kind, stopped, args))
        return snapshot.clone(children=children)
    if kind == "xstate.enqueueActions":
        collected: list[Action] = []
        code = fields.get("code")
        if isinstance(code, str):  # enqueueActions(({enqueue, check, ...}) => ...): the evaluator runs it
            scope = Scope(snapshot.context, event, params,
                          check=lambda guard: evaluate_guard(guard, snapshot.context, event, snapshot))
            collected = [parse_action(item, "enqueueActions") for item in snapshot.machine.evaluator.enqueued(code, scope)]
        else:
            _collect(action.enqueued, snapshot, event, collected)
        return resolve_actions(snapshot, event, ctx, collected, deferred_actor_ids)
    raise EngineError(f"unknown built-in action {kind!r}")


def _collect(items: tuple[Action | EnqueueBranch, ...], snapshot: Snapshot, event: Event, out: list[Action]) -> None:
    for item in items:
        if isinstance(item, Action):
            out.append(item)
        elif evaluate_guard(item.guard, snapshot.context, event, snapshot):
            _collect(item.then, snapshot, event, out)
        else:
            _collect(item.otherwise, snapshot, event, out)


def _event_object(value: Any, action_name: str) -> Any:
    """XState refuses an event given as a string when the action is resolved."""
    if isinstance(value, str):
        raise EngineError(f'Only event objects may be used with {action_name}; use {action_name}({{ type: "{value}" }}) '
                          "instead")
    return value


def _defined(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


def _resolve_send(
    snapshot: Snapshot, event: Event, ctx: ActionContext, action: Action, params: Any, deferred: Sequence[str] | None
) -> Snapshot:
    fields = action.fields
    args = ActionArgs(snapshot.context, event)
    sent = _value(_event_object(fields["event"], "sendTo"), snapshot, event, params, "a sent event")  # sendParent too
    delay = _resolve_delay(snapshot, fields.get("delay"), event, params)
    to = "#_parent" if action.type == "xstate.sendParent" else _value(fields.get("to"), snapshot, event, params,
                                                                          "sendTo's target")
    if not isinstance(to, str):
        return _send_to_reference(snapshot, ctx, action, to, sent, delay, args)
    target: Any = None
    if to == "#_parent":
        target = None  # the pure engine's root actor has no parent
    elif to == "#_internal":
        target = "#_internal"
    elif isinstance(to, str) and to.startswith("#_"):
        target = snapshot.children.get(to[2:])
    elif deferred is not None and to in deferred:
        target = to
    else:
        target = snapshot.children.get(to)
    if target is None:
        raise EngineError(f"Unable to send event to actor '{to}' from machine '{snapshot.machine.id}'.")
    ctx.actions.append(
        ExecutableAction("xstate.sendTo", _defined(targetId=to, event=sent, id=fields.get("id"), delay=delay), args)
    )
    return snapshot


#: A reference to an actor as XState persists it in context, and as statekit's snapshots hold one.
ACTOR_REF_TYPE = "xstate$$type"
#: The event function `forwardTo` hands `sendTo` (statekit.extract.config.FORWARD_EVENT).
_FORWARD_EVENT = {"$js": "({ event }) => event"}


def actor_ref_id(value: Any) -> str | None:
    """The id of an actor reference (`{"xstate$$type": 1, "id": ...}`), None for anything else."""
    if isinstance(value, Mapping) and value.get(ACTOR_REF_TYPE) == 1 and isinstance(value.get("id"), str) \
            and len(value) == 2:
        return str(value["id"])
    return None


def _send_to_reference(snapshot: Snapshot, ctx: ActionContext, action: Action, to: Any, sent: Any,
                       delay: int | float | None, args: ActionArgs) -> Snapshot:
    """`sendTo` whose target is not an id: an actor reference is the target itself (XState does
    not look it up among the children); a missing target XState's `forwardTo` refuses, and
    `sendTo` sends to the machine itself, which statekit does not simulate."""
    if actor_ref_id(to) is not None:
        ctx.actions.append(ExecutableAction("xstate.sendTo", _defined(to=to, event=sent, id=action.fields.get("id"),
                                                                      delay=delay), args))
        return snapshot
    if not to and action.fields.get("event") == _FORWARD_EVENT:
        raise EngineError("Attempted to forward event to undefined actor. This risks an infinite loop in the sender.")
    if not to:
        raise EngineError("sendTo's target is undefined, which XState takes as the machine itself; statekit's "
                          "simulation does not send to itself, so it cannot be run faithfully")
    raise EngineError(f"sendTo's target must be an actor or the id of one, not {to!r}")


def _resolve_spawn(snapshot: Snapshot, ctx: ActionContext, fields: Mapping[str, Any], event: Event,
                   params: Any) -> Snapshot:
    from statekit.engine.snapshot import ChildRef

    src = fields["src"]
    if not isinstance(src, str):
        return _spawn_inline_logic(snapshot, ctx, fields, event, params)
    args = ActionArgs(snapshot.context, event)
    spawn_id = _value(fields.get("id"), snapshot, event, params, "a spawned actor's id")
    key = spawn_id if isinstance(spawn_id, str) else "undefined"  # JS: children[undefined]
    ref: ChildRef | None = None
    resolved_input = None
    system_id = fields.get("systemId")
    if isinstance(system_id, str):
        if system_id in ctx.system_ids:
            raise EngineError(f"Actor with system ID '{system_id}' already exists.")
        ctx.system_ids[system_id] = None  # named logic: whether it starts active is its own affair
    if snapshot.machine.evaluator.knows_actor(src):
        resolved_input = _value(fields.get("input"), snapshot, event, params, "an actor's input")
        ref = ChildRef(id=key, src=src, input=resolved_input, system_id=fields.get("systemId"))
    children: dict[str, ChildRef | None] = {**snapshot.children, key: ref}
    ctx.actions.append(
        ExecutableAction(
            "xstate.spawnChild",
            _defined(id=spawn_id, systemId=fields.get("systemId"), actorRef=ref.to_json() if ref else None,
                     src=src, input=resolved_input),
            args,
        )
    )
    return snapshot.clone(children=children)


def _spawn_inline_logic(snapshot: Snapshot, ctx: ActionContext, fields: Mapping[str, Any], event: Event,
                        params: Any) -> Snapshot:
    """`spawnChild(fromPromise(...), {...})` or `spawnChild(createMachine({...}), {...})`: logic
    written in place, which the pure transition never runs (XState makes the child but never starts
    it). JSON shows logic as `{}` and a child machine as its definition (the reader renders it,
    `statekit.extract.definition`), as XState's."""
    from statekit.engine.snapshot import ChildRef

    src = fields["src"]
    code = src.get("$expr") if isinstance(src, Mapping) else None
    child_machine = child_machine_definition(src)
    if child_machine is None and (not isinstance(code, str) or not is_inline_logic(src)):
        unrendered = src.get(UNRENDERED) if isinstance(src, Mapping) else None
        why = f" ({unrendered})" if isinstance(unrendered, str) else ""
        raise EngineError(f"`spawnChild({code if isinstance(code, str) else repr(src)})`: statekit spawns an actor named "
                          "in setup(), inline logic made by fromPromise, fromCallback, fromObservable, "
                          "fromEventObservable or fromTransition, or a child machine whose definition it can "
                          f"render{why}; other logic cannot be simulated faithfully")
    args = ActionArgs(snapshot.context, event)
    spawn_id = _value(fields.get("id"), snapshot, event, params, "a spawned actor's id")
    key = spawn_id if isinstance(spawn_id, str) else "undefined"  # JS: children[undefined]
    system_id = fields.get("systemId")
    if isinstance(system_id, str):
        if system_id in ctx.system_ids:
            raise EngineError(f"Actor with system ID '{system_id}' already exists.")
        # An actor spawned without an id has a session id statekit does not know; a child machine
        # may not start active (XState's system then drops it): `system.get` refuses both.
        ctx.system_ids[system_id] = key if child_machine is None and isinstance(spawn_id, str) else None
    resolved_input = _value(fields.get("input"), snapshot, event, params, "an actor's input")
    ref = ChildRef(id=key, src=None, input=resolved_input, system_id=system_id if isinstance(system_id, str) else None)
    ctx.actions.append(ExecutableAction(
        "xstate.spawnChild",
        _defined(id=spawn_id, systemId=system_id, actorRef=ref.to_json(),
                 src=child_machine if child_machine is not None else {}, input=resolved_input), args))
    return snapshot.clone(children={**snapshot.children, key: ref})
