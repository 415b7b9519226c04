"""A machine and its implementations: the one object every analysis that runs a machine takes.

XState source defines guards, actions, delays and actors beside the config (`setup({...})`,
`createMachine`'s second argument); a config alone carries only its inline code. Simulation,
paths, properties, live machines and verification all run the machine, so they all take an
`ImplementedMachine`, built once from the tool's input (`tools.inputs.load_implemented`), never
a bare model: a path that handed the analysis the config without the implementations its source
gave would assume those guards true and answer what XState does not. `build` is the only way
from here to a running `engine.Machine`; a guard is assumed only where no implementation exists
anywhere (not in the config, not in the source, not in the caller's static `guards`), and the
normalization lists it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from statekit.analysis.scxml_code import with_scxml_code
from statekit.engine.implementations import ActionArgs, Implementations
from statekit.engine.inline import implementations_from_code
from statekit.engine.machine import Machine
from statekit.engine.sandbox import JsSandbox
from statekit.errors import MachineDefinitionError, ToolError
from statekit.model.core import Action, EnqueueBranch, MachineModel

#: Microsteps one event may take when the machine sets no `options.maxIterations`.
DEFAULT_MAX_MICROSTEPS = 10_000


@dataclass(frozen=True)
class ImplementedMachine:
    """The model of a machine with every implementation its input defines.

    `implementations` is what the source reader extracted beside the config (see
    `engine.inline.implementations_from_code` for its shape); empty for a config or a format
    that has none. `format` and `warnings` say how the input was read; `assumed` lists the
    defaults a structure-only format filled in.
    """

    model: MachineModel
    implementations: Mapping[str, Any] = field(default_factory=dict)
    format: str = "xstate-config"
    warnings: tuple[Mapping[str, Any], ...] = ()
    assumed: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def of_config(cls, model: MachineModel) -> ImplementedMachine:
        """A machine given as a config alone: its only implementations are its inline code."""
        return cls(model)

    def with_model(self, model: MachineModel) -> ImplementedMachine:
        """The same input read as another model (its implementations kept)."""
        return replace(self, model=model)

    def without_implementations(self, model: MachineModel) -> ImplementedMachine:
        """`model` with none of the source's implementations: the structural traversal, for
        machines whose code cannot run, which assumes every guard and says so."""
        return replace(self, model=model, implementations={})

    def implemented_names(self, kind: str) -> frozenset[str]:
        """The names the source implements in `kind` (guards, actions, delays, actors); a group
        that cannot be read statically (`{"$ref": ...}`) implements nothing statekit can name."""
        group = self.implementations.get(kind)
        if not isinstance(group, Mapping) or "$ref" in group:
            return frozenset()
        return frozenset(name for name, item in group.items()
                         if isinstance(item, Mapping) and "$ref" not in item)

    @property
    def opaque_values(self) -> list[str]:
        """Values the source defines elsewhere (an imported tag, id or description) that run as
        the opaque text of their reference: each with where it is and what it is."""
        return [f"{w.get('path', '')}: {w['message']}" for w in self.warnings if w["code"] == "unresolved_reference"
                and "opaque name" in w["message"]]

    @property
    def runnable_model(self) -> MachineModel:
        """The model as it runs: an SCXML document's ECMAScript conditions and assignments as
        the inline code that implements them (`scxml_code`); `model` keeps them as read, for
        what is written back."""
        cached: MachineModel | None = self.__dict__.get("_runnable")
        if cached is None:
            cached = with_scxml_code(self.model) if self.format == "scxml" else self.model
            object.__setattr__(self, "_runnable", cached)
        return cached

    def build(self, guards: Mapping[str, bool] | None = None) -> tuple[Machine, dict[str, Any]]:
        """The running machine and `{assumedGuards, assumedActors, format}`.

        The source's implementations run in the QuickJS sandbox (for a running actor, not
        XState's pure transition), never in Python; `guards` gives static results that
        override any guard; a guard used but implemented nowhere is assumed true and listed.
        """
        return _build(self, guards)


def require_implemented(machine: Any, who: str) -> ImplementedMachine:
    """`machine`, or a TypeError when a caller hands over a bare model or config: the analysis
    would run it without the implementations its source gave (the guarantee of this module)."""
    if not isinstance(machine, ImplementedMachine):
        raise TypeError(f"{who} takes an ImplementedMachine (the machine with its implementations, "
                        f"see statekit.analysis.implemented), not {type(machine).__name__}")
    return machine


def guard_names(model: MachineModel) -> set[str]:
    """Every named guard the machine uses (transitions, `enqueueActions` branches)."""
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


def _build(source: ImplementedMachine, guards: Mapping[str, bool] | None) -> tuple[Machine, dict[str, Any]]:
    model = source.runnable_model
    supplied = dict(guards or {})
    for name, value in supplied.items():
        if not isinstance(value, bool):
            raise ToolError("invalid_input", f"guards.{name} must be true or false")
    sandbox = JsSandbox(running_actor=True)
    from_source = implementations_from_code(source.implementations, sandbox)
    used = guard_names(model)
    implemented = set(from_source.guards) - supplied.keys()
    assumed = sorted(used - supplied.keys() - implemented)
    # Actors the source names exist as given; any other the model names is assumed.
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
        from statekit.analysis.validate import validate_model

        issues = [i.to_json() for i in validate_model(model) if i.severity == "error"]
        raise ToolError("invalid_input", f"the machine cannot run: {error.message}", {"issues": issues}) from None
    normalization: dict[str, Any] = {"assumedGuards": assumed, "assumedActors": actors, "format": source.format}
    if source.opaque_values:
        normalization["opaqueValues"] = source.opaque_values
    return machine, normalization
