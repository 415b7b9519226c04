"""Routes: the shortest sequence of tool calls (and timers) from a workflow's state to a tool.

A client that never re-lists (most do not refresh on `list_changed`) learns what to do
next only from what the server tells it in results. So a refusal, and the opt-in status
tool, say not just which tools are allowed now but how to get to the one that was asked
for: a breadth-first search over the workflow, run on statekit's engine WITH its guards
and `assign` actions, from the stored snapshot and its pending timers.

An edge of the search is one of:

- a call of a tool bound to an event, allowed in that state and callable by the client:
  the engine takes the event with its real guards and actions;
- waiting for the earliest pending `after` timer (the engine fires it at its due time).

The arguments of a future call are unknown, so a guard (or an `assign`) that reads the
event's payload cannot be decided. The engine is run with a probe event that refuses to
show its payload; a guard that reads it is *assumed*, once passing and once failing, and
the route names the assumption (`assumes guard validDocument passes`). A guard that reads
only the context and the state is decided by the engine as it will be at the call. Inline
JavaScript guards cannot be probed from Python: one whose source mentions `event` is assumed,
one that does not is run. The search is bounded (`MAX_STATES` distinct states); a route it
cannot find within the bound says so rather than claiming there is none.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict, deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from statekit.engine import Machine, restore_snapshot, transition
from statekit.engine.evaluation import Scope
from statekit.errors import StatekitError
from statekit.gate.bindings import Binding
from statekit.gate.record import Timer
from statekit.gate.results import state_label
from statekit.gate.timers import apply_timer_actions, fire_due
from statekit.model.core import Guard

#: Distinct (snapshot, pending timers) states one search may visit. A search runs on the
#: event loop when a call is refused, so it is bounded (a counter in the context makes the
#: state space endless) and its answers are kept (`ROUTE_CACHE_SIZE`): a client repeating a
#: refused call does not repeat the search.
MAX_STATES = 500
ROUTE_CACHE_SIZE = 256
#: Outcomes tried per event: each undecidable guard doubles them (passes, fails).
MAX_ASSUMPTION_RUNS = 16

_MENTIONS_EVENT = re.compile(r"\bevent\b")


class PayloadUnknown(Exception):
    """A guard or action read the payload of a call that has not been made yet."""


class ProbeEvent(Mapping[str, Any]):
    """An event whose type is known and whose payload (the future call's arguments) is not.

    Reading anything but `type` raises `PayloadUnknown`, so code that depends on the
    payload is found rather than fed a guess.
    """

    __slots__ = ("_type",)

    def __init__(self, event_type: str) -> None:
        self._type = event_type

    def __getitem__(self, key: str) -> Any:
        if key == "type":
            return self._type
        raise PayloadUnknown(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key]

    def __contains__(self, key: object) -> bool:
        if key == "type":
            return True
        raise PayloadUnknown(key)

    def __iter__(self) -> Iterator[str]:
        raise PayloadUnknown("*")

    def __len__(self) -> int:
        raise PayloadUnknown("*")


def _guard_label(guard: Guard) -> str:
    if guard.code is not None:
        return "(inline guard)"
    if guard.has_params:
        return f"{guard.type}({json.dumps(guard.params, sort_keys=True, default=str)})"
    return guard.type


class _ProbingEvaluator:
    """The machine's evaluator, except where code reads the payload of a probe event.

    There a guard answers from `assume` (default: passes) and is recorded in `asked`;
    an assignment leaves the context as it was and is recorded in `unknown_effects`.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.assume: dict[str, bool] = {}
        self.asked: list[str] = []
        self.unknown_effects: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def guard(self, guard: Guard, scope: Scope) -> bool:
        if not isinstance(scope.event, ProbeEvent):
            return bool(self._inner.guard(guard, scope))
        code = guard.code
        if code is None:
            implementation = self._inner.implementations.guards.get(guard.type)
            code = getattr(implementation, "code", None)
        if isinstance(code, str):
            # JavaScript sees a copy of the event, which cannot refuse to be read.
            if _MENTIONS_EVENT.search(code):
                return self._assumed(guard)
            plain = Scope(scope.context, {"type": scope.event["type"]}, scope.params,
                          scope.check, scope.in_state)
            return bool(self._inner.guard(guard, plain))
        try:
            return bool(self._inner.guard(guard, scope))
        except PayloadUnknown:
            return self._assumed(guard)

    def _assumed(self, guard: Guard) -> bool:
        label = _guard_label(guard)
        if label not in self.asked:
            self.asked.append(label)
        return self.assume.get(label, True)

    def assignment(self, assignment: Any, scope: Scope) -> Mapping[str, Any]:
        if not isinstance(scope.event, ProbeEvent):
            result: Mapping[str, Any] = self._inner.assignment(assignment, scope)
            return result
        try:
            result = self._inner.assignment(assignment, scope)
        except PayloadUnknown:
            self.unknown_effects.append(str(scope.event["type"]))
            return {}
        return result


@dataclass(frozen=True)
class Step:
    """One step of a route: a tool call (its event) or waiting for a timer."""

    kind: Literal["call", "wait"]
    event: str
    #: The state value the step leads to.
    to: Any
    tool: str | None = None
    #: For a wait: seconds from now until the timer is due (0 when it is due already).
    wait_seconds: float | None = None
    #: Guards that read the call's arguments, with the outcome this route assumes.
    assumes: tuple[tuple[str, bool], ...] = ()
    #: The step runs an `assign` that reads the call's arguments: the context after it is not known.
    context_unknown: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": self.event, "to": self.to}
        if self.kind == "call":
            data = {"call": self.tool, **data}
        else:
            data = {"wait": self.wait_seconds, **data}
        if self.assumes:
            data["assumes"] = [{"guard": name, "passes": passes} for name, passes in self.assumes]
        if self.context_unknown:
            data["contextUnknown"] = True
        return data

    def phrase(self) -> str:
        if self.kind == "call":
            text = f"call {self.tool} (-> {state_label(self.to)})"
        elif self.wait_seconds:
            text = f"wait {_seconds(self.wait_seconds)} for the timer (-> {state_label(self.to)})"
        else:
            text = f"let the due timer fire (any call does it) (-> {state_label(self.to)})"
        for name, passes in self.assumes:
            text += f", assuming guard {name} {'passes' if passes else 'fails'}"
        return text


def _seconds(value: float) -> str:
    return f"{value:.3g} s" if value < 100 else f"{round(value)} s"


@dataclass(frozen=True)
class Route:
    """How to get from the current state to a state where `tool` is allowed."""

    tool: str
    #: The steps, in order (empty: allowed now); None when no route was found.
    steps: tuple[Step, ...] | None
    #: Why there is no route: the search covered every reachable state, or hit its bound.
    exhausted: bool = True

    @property
    def found(self) -> bool:
        return self.steps is not None

    @property
    def assumed(self) -> bool:
        return self.steps is not None and any(step.assumes for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        if self.steps is None:
            return {
                "tool": self.tool,
                "reachable": False,
                "reason": self._no_route_reason(),
            }
        return {"tool": self.tool, "reachable": True, "steps": [step.to_json() for step in self.steps]}

    def _no_route_reason(self) -> str:
        if self.exhausted:
            return (
                "no sequence of tool calls and timers from the current state reaches a state "
                "where it is allowed"
            )
        return f"no route found within the first {MAX_STATES} workflow states searched"

    def sentence(self) -> str:
        """The route for the model to read."""
        if self.steps is None:
            return f'"{self.tool}" cannot be reached from here: {self._no_route_reason()}.'
        if not self.steps:
            return f'"{self.tool}" is allowed now.'
        phrases = [step.phrase() for step in self.steps]
        return f'Next step toward "{self.tool}": {phrases[0]}' + "".join(
            f"; then {phrase}" for phrase in phrases[1:]
        ) + f"; then call {self.tool}."


@dataclass
class _Node:
    snapshot: Any
    timers: tuple[Timer, ...]
    #: Epoch seconds at which the node is reached (calls take no time, timers their due time).
    clock: float
    steps: tuple[Step, ...] = field(default=())


class RouteFinder:
    """Routes over one gate's workflow and bindings (one per gate; it keeps no per-call state)."""

    def __init__(
        self,
        machine: Machine,
        bindings: Callable[[], Sequence[Binding]],
        is_visible: Callable[[str, Any], bool],
        creators: Callable[[], Collection[str]],
    ) -> None:
        # A twin of the gate's machine whose evaluator probes, so the gate's own never changes.
        twin = Machine(machine.model, machine.implementations, max_iterations=machine.max_iterations)
        self._evaluator = _ProbingEvaluator(twin.evaluator)
        twin.evaluator = self._evaluator
        self._machine = twin
        self._bindings = bindings
        self._is_visible = is_visible
        self._creators = creators
        #: Routes from states with no pending timer (no wait, so nothing depends on the clock).
        self._cache: OrderedDict[tuple[str, str, tuple[str, ...]], Route] = OrderedDict()

    def routes(
        self,
        snapshot: Any,
        timers: Sequence[Timer],
        now: float,
        targets: Sequence[str],
        callable_tools: Collection[str],
    ) -> dict[str, Route]:
        """A route to each of `targets` from `snapshot` (with its pending `timers`, at `now`).

        Only tools in `callable_tools` (what the client can list) are used as steps.
        """
        wanted = list(dict.fromkeys(targets))
        if timers:
            return self._search(snapshot, timers, now, wanted, callable_tools)
        state = json.dumps(snapshot.to_json(), sort_keys=True, default=str)
        names = tuple(sorted(callable_tools))
        routes = {tool: self._cache.get((state, tool, names)) for tool in wanted}
        missing = [tool for tool, route in routes.items() if route is None]
        if missing:
            for tool, route in self._search(snapshot, (), now, missing, callable_tools).items():
                routes[tool] = route
                self._cache[state, tool, names] = route
                while len(self._cache) > ROUTE_CACHE_SIZE:
                    self._cache.popitem(last=False)
        return {tool: route for tool, route in routes.items() if route is not None}

    def _search(
        self,
        snapshot: Any,
        timers: Sequence[Timer],
        now: float,
        wanted: list[str],
        callable_tools: Collection[str],
    ) -> dict[str, Route]:
        start = _Node(restore_snapshot(self._machine, snapshot.to_json()), tuple(timers), now)
        found: dict[str, Route] = {}
        seen = {self._node_key(start)}
        queue: deque[_Node] = deque([start])
        exhausted = True
        while queue and len(found) < len(wanted):
            node = queue.popleft()
            for tool in wanted:
                if tool not in found and self._is_visible(tool, node.snapshot):
                    found[tool] = Route(tool, node.steps)
            if len(found) == len(wanted):
                break
            for step, snapshot_after, timers_after, clock in self._edges(node, now, callable_tools):
                following = _Node(snapshot_after, timers_after, clock, (*node.steps, step))
                key = self._node_key(following)
                if key in seen:
                    continue
                if len(seen) >= MAX_STATES:
                    exhausted = False
                    continue
                seen.add(key)
                queue.append(following)
        return {tool: found.get(tool, Route(tool, None, exhausted)) for tool in wanted}

    @staticmethod
    def _node_key(node: _Node) -> tuple[str, tuple[str, ...]]:
        snapshot_json = json.dumps(node.snapshot.to_json(), sort_keys=True, default=str)
        pending = tuple(sorted(str(timer.event.get("type")) for timer in node.timers))
        return snapshot_json, pending

    def _edges(
        self, node: _Node, now: float, callable_tools: Collection[str]
    ) -> Iterator[tuple[Step, Any, tuple[Timer, ...], float]]:
        snapshot = node.snapshot
        if snapshot.status != "active":
            return
        creators = self._creators()
        for binding in self._bindings():
            if (
                binding.event is None
                or binding.tool in creators
                or binding.tool not in callable_tools
                or not self._is_visible(binding.tool, snapshot)
            ):
                continue
            for after, actions, assumes, unknown in self._outcomes(snapshot, binding.event):
                timers = apply_timer_actions(node.timers, actions, node.clock)
                step = Step("call", binding.event, after.value, binding.tool,
                            assumes=assumes, context_unknown=unknown)
                yield step, after, timers, node.clock
        if node.timers:
            due = min(node.timers, key=lambda timer: (timer.due_at, timer.sequence)).due_at
            try:
                after, timers, fired = fire_due(self._machine, snapshot, node.timers, due)
            except StatekitError:
                return
            if fired and after.status != "error":
                wait = max(0.0, due - now)
                yield Step("wait", fired[0].event, after.value, wait_seconds=wait), after, timers, max(due, node.clock)

    def _outcomes(
        self, snapshot: Any, event_type: str
    ) -> Iterator[tuple[Any, Any, tuple[tuple[str, bool], ...], bool]]:
        """What `event_type` can do at `snapshot`: one outcome per assumption on undecidable guards."""
        before = json.dumps(snapshot.to_json(), sort_keys=True, default=str)
        pending: list[dict[str, bool]] = [{}]
        tried: list[dict[str, bool]] = []
        results: set[str] = set()
        evaluator = self._evaluator
        while pending and len(tried) < MAX_ASSUMPTION_RUNS:
            assume = pending.pop(0)
            tried.append(assume)
            evaluator.assume, evaluator.asked, evaluator.unknown_effects = assume, [], []
            try:
                after, actions = transition(self._machine, snapshot, ProbeEvent(event_type))
            except (StatekitError, PayloadUnknown):
                continue  # code the probe cannot run without the arguments: no route through here
            finally:
                asked, unknown = list(evaluator.asked), bool(evaluator.unknown_effects)
                evaluator.assume, evaluator.asked, evaluator.unknown_effects = {}, [], []
            for name in asked:
                if name not in assume:
                    branch = {**assume, name: False}
                    if branch not in pending and branch not in tried:
                        pending.append(branch)
            if after.status == "error":
                continue
            text = json.dumps(after.to_json(), sort_keys=True, default=str)
            if text == before or text in results:
                continue  # ignored by the state (or a guard failed): no progress
            results.add(text)
            assumes = tuple((name, assume.get(name, True)) for name in asked)
            yield after, actions, assumes, unknown
