"""Named implementations (guards, actions, delays, actors) and the `setup(...)` API."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statekit.engine.machine import Machine


@dataclass(slots=True)  # not frozen: one per implementation call, and a frozen init costs 4x (treat as immutable)
class ActionArgs:
    """What a guard, action or assigner receives: the current context and the event."""

    context: Any
    event: Mapping[str, Any]


GuardFunction = Callable[[ActionArgs, Any], bool]
ActionFunction = Callable[[ActionArgs, Any], None]
Assigner = Callable[[ActionArgs, Any], Any]


@dataclass(frozen=True, slots=True)
class Assign:
    """An assignment of context, like XState's `assign(...)`.

    Either one function returning a partial context, or a mapping from context keys to
    values or functions of `(args, params)`.
    """

    assignment: Assigner | Mapping[str, Any]

    def partial_update(self, args: ActionArgs, params: Any) -> Mapping[str, Any]:
        """The keys this assignment sets, computed from `args` and `params`."""
        if callable(self.assignment):
            update = self.assignment(args, params)
            if not isinstance(update, Mapping):
                raise TypeError("an assign function must return a mapping of context keys")
            return update
        return {
            key: value(args, params) if callable(value) else value for key, value in self.assignment.items()
        }


def assign(assignment: Assigner | Mapping[str, Any]) -> Assign:
    """Build a context assignment for `setup(actions=...)` (XState's `assign`)."""
    return Assign(assignment)


#: What `setup(actions=...)` accepts for one name: a side effect, an assignment, or a
#: built-in action written as config data (`{"type": "xstate.raise", ...}`).
ActionImplementation = ActionFunction | Assign | Mapping[str, Any]
#: A guard function, or another guard written as config data (a name or an object).
GuardImplementation = GuardFunction | str | Mapping[str, Any]
#: Milliseconds, or a function of `(args, params)` giving them.
DelayImplementation = int | float | Callable[[ActionArgs, Any], int | float]


@dataclass(frozen=True)
class Implementations:
    """The named implementations a machine runs with."""

    guards: Mapping[str, GuardImplementation] = field(default_factory=dict)
    actions: Mapping[str, ActionImplementation] = field(default_factory=dict)
    delays: Mapping[str, DelayImplementation] = field(default_factory=dict)
    #: Actor logic by `src` name. The pure engine never runs actors; a known name is what
    #: makes an invoked or spawned child exist (as in XState's inert actor scope).
    actors: Mapping[str, Any] = field(default_factory=dict)
    #: Runs inline JavaScript functions (see `statekit.engine.inline`); None: none allowed.
    evaluator: Any = None

    def merged(self, other: Implementations) -> Implementations:
        """These implementations with `other`'s taking precedence (XState's `provide`)."""
        return Implementations(
            guards={**self.guards, **other.guards},
            actions={**self.actions, **other.actions},
            delays={**self.delays, **other.delays},
            actors={**self.actors, **other.actors},
            evaluator=other.evaluator if other.evaluator is not None else self.evaluator,
        )


@dataclass(frozen=True)
class Setup:
    """The result of `setup(...)`; `create_machine(config)` binds a config to it."""

    implementations: Implementations

    def create_machine(self, config: Any, *, max_iterations: int | None = None) -> Machine:
        """Build a machine from `config` with these implementations."""
        from statekit.engine.machine import Machine

        return Machine.from_config(config, self.implementations, max_iterations=max_iterations)


def setup(
    *,
    guards: Mapping[str, GuardImplementation] | None = None,
    actions: Mapping[str, ActionImplementation] | None = None,
    delays: Mapping[str, DelayImplementation] | None = None,
    actors: Mapping[str, Any] | None = None,
) -> Setup:
    """Name the implementations a machine config refers to (XState's `setup`)."""
    return Setup(Implementations(guards=dict(guards or {}), actions=dict(actions or {}),
                                 delays=dict(delays or {}), actors=dict(actors or {})))
