"""Run a sequence of events through a machine and report every step, as XState would."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from statekit.analysis.validate import validate_model
from statekit.budget import charge_output, check_budget, report_progress
from statekit.engine.api import initial_transition, transition
from statekit.engine.evaluation import plain_json
from statekit.engine.implementations import ActionArgs, Implementations
from statekit.engine.inline import implementations_from_code
from statekit.engine.machine import Machine
from statekit.engine.sandbox import JsSandbox
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError, MachineDefinitionError, ToolError
from statekit.model.core import Action, EnqueueBranch, MachineModel

MAX_EVENTS = 100
#: Microsteps one event may take when the machine sets no `options.maxIterations`.
DEFAULT_MAX_MICROSTEPS = 10_000
ENGINE_INFO = {"engine": "statekit", "semantics": "xstate@5", "referenceVersion": "5.33.3"}


def normalize_events(events: Any, allow_wildcard: bool = False) -> list[dict[str, Any]]:
    """`[{type, ...payload} | "TYPE"]` -> event objects; `invalid_input` on anything else.

    An event of type `*` is refused (XState's development build throws for it) unless
    `allow_wildcard`: path finding takes it as XState's production build does.
    """
    if not isinstance(events, list):
        raise ToolError("invalid_input", "`events` must be a list of event objects or event type strings")
    if len(events) > MAX_EVENTS:
        raise ToolError("invalid_input", f"at most {MAX_EVENTS} events per simulation; got {len(events)}")
    result: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        if isinstance(event, str):
            event = {"type": event}
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str) or not event["type"]:
            raise ToolError("invalid_input", f"events[{index}] must be an event type or an object with a non-empty string `type`")
        if event["type"] == "*" and not allow_wildcard:
            raise ToolError("invalid_input", f"events[{index}]: an event cannot have the wildcard type ('*')")
        result.append(dict(event))
    return result


def _guard_names(model: MachineModel) -> set[str]:
    names: set[str] = set()

    def from_items(items: tuple[Action | EnqueueBranch, ...]) -> None:
        for item in items:
            if isinstance(item, Action):
                from_items(item.enqueued)
            else:
                names.update(item.guard.names())
                from_items(item.then)
                from_items(item.otherwise)

    for node in model.root.walk():
        for transition_model in node.transitions:
            if transition_model.guard is not None:
                names.update(transition_model.guard.names())
            from_items(transition_model.actions)
        from_items(node.entry)
        from_items(node.exit)
    return names


def child_actor_names(model: MachineModel) -> set[str]:
    """The `src` of every actor the machine invokes, or spawns by name."""
    names = {invoke.src for node in model.root.walk() for invoke in node.invoke}

    def from_actions(actions: tuple[Action | EnqueueBranch, ...]) -> None:
        for item in actions:
            if isinstance(item, Action):
                if item.type == "xstate.spawnChild" and isinstance(item.fields.get("src"), str):
                    names.add(item.fields["src"])
                from_actions(item.enqueued)
            else:
                from_actions(item.then)
                from_actions(item.otherwise)

    for node in model.root.walk():
        from_actions(node.entry)
        from_actions(node.exit)
        for transition_model in node.transitions:
            from_actions(transition_model.actions)
    return names


def _constant(value: bool) -> Any:
    def guard(args: ActionArgs, params: Any) -> bool:
        return value

    return guard


def build_simulation_machine(model: MachineModel, guards: Mapping[str, bool] | None,
                             source_implementations: Mapping[str, Any] | None = None) -> tuple[Machine, dict[str, Any]]:
    """The machine with static guard results and assumed actors, and what was assumed.

    `source_implementations` are the `setup({...})` implementations read from XState source:
    they run in the sandbox; `guards` still overrides any guard with a static result.
    """
    supplied = dict(guards or {})
    for name, value in supplied.items():
        if not isinstance(value, bool):
            raise ToolError("invalid_input", f"guards.{name} must be true or false")
    # Inline functions (from XState source) run in the QuickJS sandbox, never in Python; for a
    # running actor (what a simulation or a live session is), not XState's pure transition.
    sandbox = JsSandbox(running_actor=True)
    from_source = implementations_from_code(source_implementations or {}, sandbox)
    used = _guard_names(model)
    implemented = set(from_source.guards) - supplied.keys()
    assumed = sorted(used - supplied.keys() - implemented)
    # Actors setup() names in the source exist as given; any other the model names is assumed.
    actors = sorted(child_actor_names(model) - set(from_source.actors))
    implementations = Implementations(
        guards={**{name: _constant(supplied.get(name, True)) for name in used | supplied.keys()},
                **{name: from_source.guards[name] for name in implemented}},
        actions=dict(from_source.actions),
        delays=dict(from_source.delays),
        actors={**from_source.actors, **{name: {"assumed": True} for name in actors}},
        evaluator=sandbox,
    )
    try:
        machine = Machine(model, implementations)
        if machine.max_iterations is None:
            # XState loops for ever on an eventless cycle; a tool must answer instead.
            machine.max_iterations = DEFAULT_MAX_MICROSTEPS
    except MachineDefinitionError as error:
        issues = [i.to_json() for i in validate_model(model) if i.severity == "error"]
        raise ToolError("invalid_input", f"the machine cannot run: {error.message}", {"issues": issues}) from None
    normalization = {"assumedGuards": assumed, "assumedActors": actors, "format": "xstate-config"}
    return machine, normalization


def step_record(event: Mapping[str, Any], snapshot: Snapshot, action_types: list[str]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "event": dict(event),
        "value": snapshot.value,
        "context": plain_json(snapshot.context),
        "status": snapshot.status,
        "tags": sorted(snapshot.tags),
        "output": plain_json(snapshot.output) if snapshot.status == "done" else None,
        "actions": action_types,
    }
    if snapshot.status == "error" and snapshot.error is not None:
        record["error"] = str(snapshot.error)
    return record


def _charged(record: dict[str, Any]) -> dict[str, Any]:
    """`record`, counted toward the call's output limit as it is made: a machine whose actions
    grow its context (a 4 MB string per event) is refused before its steps fill the memory."""
    charge_output(len(json.dumps(record, ensure_ascii=False, default=str)))
    return record


def simulate(model: MachineModel, events: Sequence[Mapping[str, Any]], input_value: Any = None,
             guards: Mapping[str, bool] | None = None,
             source_implementations: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run `events` and return `{steps, normalization, execution}`."""
    machine, normalization = build_simulation_machine(model, guards, source_implementations)
    snapshot, actions = initial_transition(machine, input_value)
    steps = [_charged(step_record({"type": "xstate.init"}, snapshot, [a.type for a in actions]))]
    stopped: str | None = None
    for number, event in enumerate(events, start=1):
        check_budget()
        try:
            snapshot, actions = transition(machine, snapshot, event)
        except EngineError as error:
            errored = snapshot.clone(status="error", error=error.describe())
            steps.append(_charged(step_record(event, errored, [])))
            stopped = f"the machine threw on event '{event['type']}': {error.describe()}"
            break
        steps.append(_charged(step_record(event, snapshot, [a.type for a in actions])))
        report_progress(number, len(events), f"event {number} of {len(events)}")
    execution = {**ENGINE_INFO, "eventsProcessed": len(steps) - 1, "eventsGiven": len(events), "stopped": stopped}
    return {"steps": steps, "normalization": normalization, "execution": execution}
