"""The evaluation seam: the one place where the engine runs a machine's code.

The algorithm (`algorithm.py`, `actions.py`, `guards.py`) follows XState and decides *what*
is evaluated and *when*; an `Evaluator` decides *how*. The algorithm never looks inside
code: it hands the evaluator a guard, an assignment, a value that may be code (a raised
event, a delay, an output, params, an invoke input), a named action, or the source of an
inline `enqueueActions(...)` body, together with a `Scope` (context, event, params), and uses
what comes back. The built-in guards (`and`, `or`, `not`, `stateIn`) are XState semantics,
not code, and stay in the algorithm; the evaluator reaches them through `Scope.check`.

Two evaluators ship:

- `PythonEvaluator(implementations)`: the named implementations of `setup(...)` written in
  Python. Inline code in the machine (`{"$js": source}`, `Guard.code`) is an `EngineError`.
- `JsEvaluator(implementations, sandbox)`: the same, and inline JavaScript runs in one
  persistent QuickJS context per run (`statekit.engine.sandbox.JsSandbox`), whose total
  time budget (`total_time_limit`, default 10 s) and per-call limit are set per run. JS
  `undefined` crosses the boundary both ways as `UNDEFINED` (never as `null`).

`Machine` builds its evaluator from its `Implementations` (a JS evaluator when they carry a
sandbox); a caller may also pass one explicitly:

    >>> from statekit.engine import setup
    >>> from statekit.engine.evaluation import PythonEvaluator, Scope
    >>> from statekit.model.core import Guard
    >>> impl = setup(guards={"isAdult": lambda args, params: args.context["age"] >= 18}).implementations
    >>> PythonEvaluator(impl).guard(Guard("isAdult"), Scope({"age": 20}, {"type": "GO"}))
    True

SCXML's datamodels are not evaluators of this protocol: an `Evaluator` answers for one
XState scope (context, event, params) and returns the next context, while an SCXML datamodel
is one persistent environment per session that executable content reads and writes by
location. `statekit.scxml.datamodel.Datamodel` is that protocol; its ECMAScript datamodel runs
in the same QuickJS sandbox, with the same limits, as `JsEvaluator`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from statekit.engine.implementations import (
    ActionArgs,
    ActionImplementation,
    Assign,
    Implementations,
)
from statekit.engine.inline import JS_MARKER, CodeEvaluator, InlineGuard, is_inline
from statekit.errors import EngineError
from statekit.model.core import Guard
from statekit.model.parse import parse_guard
from statekit.model.unresolved import unresolved_marker

if TYPE_CHECKING:
    from statekit.engine.machine import Machine
    from statekit.engine.sandbox import JsSandbox


def _sandbox_type() -> type:
    from statekit.engine.sandbox import JsSandbox

    return JsSandbox


def _snapshot_wanted() -> type[Exception]:
    from statekit.engine.sandbox import SnapshotWanted

    return SnapshotWanted


def _marker(value: Any) -> Any:
    """JSON for the sandbox: `UNDEFINED` as its marker (see the sandbox's `UNDEFINED_KEY`)."""
    if value is UNDEFINED:
        return {"__statekit_undefined__": 0}
    raise TypeError(f"{type(value).__name__} is not JSON")


class _Undefined:
    """JavaScript's `undefined`, distinct from `None` (`null`); falsy, one instance."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __reduce__(self) -> str:
        return "UNDEFINED"


#: A value inline JavaScript produced as `undefined`. JSON drops object keys holding it
#: (as `JSON.stringify` does); `plain_json` turns it into what JSON shows.
UNDEFINED: Final = _Undefined()


def plain_json(value: Any) -> Any:
    """`value` as `JSON.stringify` would show it: `UNDEFINED` keys dropped, in lists `null`."""
    if value is UNDEFINED:
        return None
    if isinstance(value, Mapping):
        return {key: plain_json(item) for key, item in value.items() if item is not UNDEFINED}
    if isinstance(value, list | tuple):
        return [plain_json(item) for item in value]
    return value


@dataclass(slots=True)  # not frozen: one per guard and assign, and a frozen init costs 4x (treat as immutable)
class Scope:
    """What code sees: XState's `{context, event}` and the resolved `params`."""

    context: Any
    event: Mapping[str, Any]
    params: Any = None
    #: Evaluates any guard with the algorithm's full semantics (built-ins included): used for a
    #: guard implemented as another guard, and for `check(...)` inside `enqueueActions`.
    check: Callable[[Guard], bool] | None = None
    #: Whether the machine is in a state (`#id`, a path or a value): `stateIn`, SCXML's `In()`.
    in_state: Callable[[Any], bool] | None = None

    @property
    def args(self) -> ActionArgs:
        return ActionArgs(self.context, self.event)


class Evaluator(Protocol):
    """What the algorithm asks of a machine's code. Failures raise (`EngineError` or the
    implementation's own exception, which the algorithm words as XState does)."""

    def guard(self, guard: Guard, scope: Scope) -> bool:
        """A named or inline guard (never a built-in combinator); `scope.params` resolved."""
        ...

    def assignment(self, assignment: Any, scope: Scope) -> Mapping[str, Any]:
        """The partial context an `assign` sets: its `assignment` field or an `Assign`."""
        ...

    def value(self, value: Any, scope: Scope, *, where: str = "") -> Any:
        """A field that may be code (event, output, params, input, log value, actor id): its value."""
        ...

    def delay(self, delay: Any, scope: Scope) -> int | float | None:
        """Milliseconds for a delay (a number, a named delay or code); None when not a number."""
        ...

    def action(self, name: str) -> ActionImplementation | None:
        """The implementation of a named action: a function the actor runs later, an `Assign`,
        a built-in action written as config data, or None (reported by name only)."""
        ...

    def enqueued(self, code: str, scope: Scope) -> list[Any]:
        """Run an inline `enqueueActions(({enqueue, check, ...}) => ...)` body: the actions it
        enqueued, in order, as action configs (names, `{type, params}`, `xstate.*` objects)."""
        ...

    def initial_context(self, context: Any, input_value: Any) -> Any:
        """The machine's context: the config's data, or its factory run on `{input}`."""
        ...

    def knows_actor(self, src: str) -> bool:
        """Whether `src` names actor logic (which makes an invoked or spawned child exist)."""
        ...

    def take_spawned(self) -> list[Mapping[str, Any]]:
        """The actors the last assignment or context factory spawned (`spawn(...)` in inline
        code), in order, each `{id, src, input, systemId}`; they become the snapshot's children."""
        ...


class PythonEvaluator:
    """Runs the Python implementations given to `setup(...)`; refuses inline code."""

    def __init__(self, implementations: Implementations) -> None:
        self.implementations = implementations

    # -- guards ---------------------------------------------------------------------------

    def guard(self, guard: Guard, scope: Scope) -> bool:
        implementation = self.implementations.guards.get(guard.type)
        if implementation is None:
            if guard.code is not None:
                return bool(self.run_code(guard.code, scope, "a guard"))
            raise EngineError(f"Guard '{guard.type}' is not implemented.'.")
        if not callable(implementation):
            # A guard implemented as another guard (a name or a guard object).
            if scope.check is None:
                raise EngineError(f"guard '{guard.type}' is written as another guard, which needs the algorithm")
            return scope.check(parse_guard(implementation, guard.type))
        return bool(implementation(scope.args, scope.params))

    # -- values ---------------------------------------------------------------------------

    def assignment(self, assignment: Any, scope: Scope) -> Mapping[str, Any]:
        if isinstance(assignment, Assign):
            if callable(assignment.assignment):
                return _mapping(assignment.assignment(scope.args, scope.params), scope.context)
            return {key: self.value(item, scope, where=f"assign of '{key}'")
                    for key, item in assignment.assignment.items()}
        if is_inline(assignment):  # assign(({context, event}) => ({...}))
            return _assigned(self.run_code(assignment[JS_MARKER], scope, "assign"), scope.context)
        if callable(assignment):
            return _mapping(assignment(scope.args, scope.params), scope.context)
        if not isinstance(assignment, Mapping):
            raise EngineError("an assign needs an object of context keys or a function")
        return {key: self.value(item, scope, where=f"assign of '{key}'") for key, item in assignment.items()}

    def value(self, value: Any, scope: Scope, *, where: str = "") -> Any:
        if callable(value):
            return value(scope.args, scope.params)
        if is_inline(value):
            return self.run_code(value[JS_MARKER], scope, where)
        if isinstance(value, Mapping | list):
            _refuse_unresolved(value, where)
        return value

    def delay(self, delay: Any, scope: Scope) -> int | float | None:
        if isinstance(delay, str):
            configured = self.implementations.delays.get(delay)
            resolved = configured(scope.args, scope.params) if callable(configured) else configured
        else:
            resolved = self.value(delay, scope, where="a delay")
        if isinstance(resolved, bool) or not isinstance(resolved, int | float):
            return None
        return resolved

    def action(self, name: str) -> ActionImplementation | None:
        return self.implementations.actions.get(name)

    def enqueued(self, code: str, scope: Scope) -> list[Any]:
        raise EngineError(_needs_sandbox("an enqueueActions function"))

    def initial_context(self, context: Any, input_value: Any) -> Any:
        if is_inline(context):
            return self.run_code(context[JS_MARKER], Scope(UNDEFINED, _input_args(input_value)), "context",
                                 whole_args=True)
        if callable(context):
            return context(ActionArgs(None, {"input": input_value}), None)
        _refuse_unresolved(context, "context")
        return context if context else {}

    def knows_actor(self, src: str) -> bool:
        return src in self.implementations.actors

    def take_spawned(self) -> list[Mapping[str, Any]]:
        return []  # Python implementations have no `spawn`

    # -- code -----------------------------------------------------------------------------

    def run_code(self, code: str, scope: Scope, where: str, *, whole_args: bool = False) -> Any:
        """Inline code: this evaluator has no JavaScript, so it says so."""
        raise EngineError(_needs_sandbox(where))


#: Whose actor inline code sees (`self`, `system`; see the sandbox's prelude): "inert", the actor
#: XState's pure `initialTransition` / `transition` make per call and never start; "running", a
#: running actor (statekit's `Actor`, simulate_machine), which statekit does not run, so what would
#: act on it (`self.send`, `self.getSnapshot()`, `system.get`) is refused.
ActorScope = Literal["inert", "running"]


class JsEvaluator(PythonEvaluator):
    """Python implementations plus inline JavaScript in one persistent QuickJS context."""

    def __init__(self, implementations: Implementations, sandbox: JsSandbox | CodeEvaluator,
                 machine_id: str = "(machine)") -> None:
        super().__init__(implementations)
        self.sandbox = sandbox
        self.machine_id = machine_id
        #: The machine this evaluator runs (set by `Machine`): the inert actor's snapshot is its own.
        self.machine: Machine | None = None
        self._actor_json: dict[tuple[str, int, bool], str] = {}
        #: The scope of a call no `begin` announced: a running actor's (refuse, do not guess).
        self.default_scope: ActorScope = "running" if getattr(sandbox, "running_actor", False) else "inert"
        self._scope: ActorScope = "running"
        self._call = 0
        self._ctx: Any = None
        self._initializing = False
        self._inert_snapshot: str | None = None
        #: The sandbox's own path for guards (`JsSandbox.guard_passes`), when it has one.
        self._guard_passes: Callable[[str, Any, Any, Any, str], bool] | None = getattr(sandbox, "guard_passes", None)

    def begin(self, ctx: Any, scope: ActorScope | None) -> None:
        """A call of the pure API (or a running actor's step) starts; `ctx` is its ActionContext
        (whose `system_ids` is the call's system)."""
        self._scope = self.default_scope if scope is None else scope
        if self._scope == "inert":
            self._call += 1  # a new inert actor (and `self`) per call, as XState's createInertActorScope
        self._ctx = ctx
        self._inert_snapshot = None
        self._initializing = False
        self._actor_json.clear()
        if self._scope == "inert" and self.machine is not None and getattr(self.sandbox, "has_mutable_state", False):
            # XState's inert actor computes the machine's initial snapshot when it is made, on every
            # call: code that changes module state (`LIST.push(...)`) runs again each time, which later
            # code can see. Only then is it worth doing here (it is the snapshot `self.getSnapshot()` gives).
            try:
                self._inert_snapshot = self._initial_snapshot_json()
            except EngineError:
                self._inert_snapshot = None  # not JSON: asking for it fails where it is asked

    def guard(self, guard: Guard, scope: Scope) -> bool:
        # A guard read from code, or written inline, goes straight to the sandbox's guard path,
        # which answers by JavaScript's truthiness (XState: `if (guardPassed)`), as a boolean.
        implementation = self.implementations.guards.get(guard.type)
        if type(implementation) is InlineGuard:
            return implementation.guard_passes(implementation.code, scope.context, scope.event, scope.params,
                                               implementation.where)
        if implementation is None and guard.code is not None and self._guard_passes is not None:
            return self._guard_passes(guard.code, scope.context, scope.event, scope.params, "a guard")
        return super().guard(guard, scope)

    def run_code(self, code: str, scope: Scope, where: str, *, whole_args: bool = False) -> Any:
        args: Mapping[str, Any] = scope.event if whole_args else {"context": scope.context, "event": scope.event}
        if isinstance(self.sandbox, _sandbox_type()):
            sandbox: Any = self.sandbox
            try:
                return sandbox.evaluate(code, args, scope.params, where=where, actor=self._actor(where))
            except _snapshot_wanted():
                self._inert_snapshot = self._initial_snapshot_json()
                self._actor_json.clear()
                return sandbox.evaluate(code, args, scope.params, where=where, actor=self._actor(where))
        return self.sandbox.evaluate(code, args, scope.params, where=where)

    def _initial_snapshot_json(self) -> str:
        """What `self.getSnapshot()` gives in XState's pure API: the inert actor's own snapshot,
        which its constructor computed as the machine's initial snapshot without input (and
        while computing it, reading it threw, which XState's getInitialSnapshot caught into an
        error snapshot). Computed in the same context, with the same `self`, its own system."""
        from statekit.engine.actions import ActionContext
        from statekit.engine.algorithm import initial_snapshot

        if self.machine is None:
            raise EngineError("self.getSnapshot() needs the machine the evaluator runs")
        saved = (self._ctx, self._initializing, dict(self._actor_json))
        nested = ActionContext()
        self._ctx, self._initializing = nested, True
        self._actor_json.clear()
        try:
            snapshot = initial_snapshot(self.machine, nested, None)
        finally:
            self._ctx, self._initializing = saved[0], saved[1]
            self._actor_json.clear()
            self._actor_json.update(saved[2])
            self.take_spawned()
        try:
            # (XState's output is undefined until done; statekit's None there may be null or undefined)
            output = snapshot.output if snapshot.status == "done" else UNDEFINED
            return json.dumps({"status": snapshot.status, "value": snapshot.value, "context": snapshot.context,
                               "output": output, "children": list(snapshot.children),
                               "tags": sorted(snapshot.tags)}, ensure_ascii=False, allow_nan=False, default=_marker)
        except (TypeError, ValueError):
            raise EngineError("self.getSnapshot(): the machine's initial snapshot is not JSON data") from None

    def _actor(self, where: str) -> str | None:
        """What of the actor XState gives the code at `where` (see `_actor_kind`), as the JSON
        the sandbox takes; None for a guard."""
        kind = _actor_kind(where)
        if kind is None:
            return None
        system = self._ctx.system_ids if self._ctx is not None else None
        whole = where == "assign"  # `assign(fn)`: its context may come back changed (WholeContext)
        key = (kind, len(system) if system else 0, whole)
        cached = self._actor_json.get(key)
        if cached is None:
            env: dict[str, Any] = {"kind": kind, "machine": self.machine_id,
                                   "actors": sorted(str(name) for name in self.implementations.actors),
                                   "scope": self._scope, "call": self._call}
            if whole:
                env["assigns"] = True
            if self._scope == "inert":
                env["initializing"] = self._initializing
                if system:
                    env["system"] = dict(system)
                if self._inert_snapshot is not None:
                    env["snapshot"] = self._inert_snapshot
            cached = json.dumps(env, ensure_ascii=False)
            self._actor_json[key] = cached
        return cached

    def assignment(self, assignment: Any, scope: Scope) -> Mapping[str, Any]:
        self.take_spawned()  # what a failed call left
        return super().assignment(assignment, scope)

    def initial_context(self, context: Any, input_value: Any) -> Any:
        self.take_spawned()
        return super().initial_context(context, input_value)

    def take_spawned(self) -> list[Mapping[str, Any]]:
        if not getattr(self.sandbox, "spawned", None):  # the common case: nothing was spawned
            return []
        spawned: list[Mapping[str, Any]] = self.sandbox.take_spawned()  # type: ignore[union-attr,assignment]
        return spawned

    def enqueued(self, code: str, scope: Scope) -> list[Any]:
        enqueue = getattr(self.sandbox, "enqueue", None)
        if enqueue is None:
            raise EngineError(_needs_sandbox("an enqueueActions function"))
        args = {"context": scope.context, "event": scope.event}
        if not isinstance(self.sandbox, _sandbox_type()):
            result: list[Any] = enqueue(code, args, scope.params, check=scope.check)
            return result
        try:
            result = enqueue(code, args, scope.params, check=scope.check, actor=self._actor("an enqueueActions function"))
        except _snapshot_wanted():
            self._inert_snapshot = self._initial_snapshot_json()
            self._actor_json.clear()
            result = enqueue(code, args, scope.params, check=scope.check, actor=self._actor("an enqueueActions function"))
        return result


def evaluator_for(implementations: Implementations, machine_id: str = "(machine)") -> Evaluator:
    """The evaluator a machine with `implementations` runs with (JS when they carry a sandbox)."""
    code_evaluator = implementations.evaluator
    if code_evaluator is None:
        return PythonEvaluator(implementations)
    if hasattr(code_evaluator, "guard"):
        explicit: Evaluator = code_evaluator  # an Evaluator given directly
        return explicit
    return JsEvaluator(implementations, code_evaluator, machine_id)


def _actor_kind(where: str) -> str | None:
    """Which of the running actor's parts XState hands the code at `where`: an assignment gets
    `{spawn, self, system}`, a context factory `{spawn, self}` (and `input`), an output or an
    actor's input `{self}`, any other action field (a target, an event, a delay, an id)
    `{self, system}`; a guard and params written as a function get only context and event."""
    if where.startswith(("a guard", "guard")) or where == "params":
        return None
    if where.startswith("assign"):
        return "assign"
    if where == "context":
        return "context"
    if where in ("output", "an actor's input"):
        return "output"
    return "action"


def _refuse_unresolved(value: Any, where: str) -> None:
    """Fail closed on a value the source reader could not evaluate (never use the marker as data)."""
    source = unresolved_marker(value)
    if source is not None:
        raise EngineError(f"`{source}`{f' in {where}' if where else ''} could not be evaluated statically "
                          "(statekit reads XState source without running it), so the machine cannot be simulated "
                          "faithfully past this point")


class WholeContext(dict[str, Any]):
    """What an assign function that changed `context` in place gives: the whole next context.

    XState's assign computes `Object.assign({}, context, returned)` with the `context` object the
    function received, so a function that mutates it and returns nothing (or returns only some
    keys) leaves the mutated context; `apply_assign` takes this one as it is."""


#: The key under which the sandbox hands back the context an assign function received, when the
#: function may have changed it in place (see the sandbox's prelude, `assigned`).
ASSIGNED_CONTEXT_KEY: Final = "xstate$$assignedContext"


def _assigned(result: Any, context: Any) -> Mapping[str, Any]:
    """The update an inline assign function gave: with the context it received when it may have
    changed it in place (the sandbox's `assigned`), the whole next context."""
    if type(result) is dict and ASSIGNED_CONTEXT_KEY in result:
        changed = result[ASSIGNED_CONTEXT_KEY]
        value = result.get("value")
        merged = {**changed, **value} if isinstance(value, Mapping) else dict(changed)
        return WholeContext(merged)
    return _mapping(result, context)


def _mapping(update: Any, context: Any) -> Mapping[str, Any]:
    if type(update) is dict:  # (no ABC check for a dict: every assign)
        return update
    if update is None or update is UNDEFINED:
        # A Python function that changed `context` in place and returned nothing (as in XState).
        return WholeContext(context if isinstance(context, Mapping) else {})
    if not isinstance(update, Mapping):
        raise TypeError("an assign function must return a mapping of context keys")
    return update


def _input_args(input_value: Any) -> Mapping[str, Any]:
    return {} if input_value is None else {"input": input_value}


def _needs_sandbox(where: str) -> str:
    return (f"inline JavaScript{f' in {where}' if where else ''} needs a code evaluator "
            "(statekit runs inline functions only in its JavaScript sandbox)")
