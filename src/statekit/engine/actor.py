"""A convenient actor around the pure engine: it keeps the snapshot, runs actions, owns a clock."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from statekit.engine.actions import ExecutableAction
from statekit.engine.api import event_object, run_macrostep, start_transition
from statekit.engine.clock import Timer, VirtualClock
from statekit.engine.machine import Machine
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError

Listener = Callable[[Snapshot], None]
_session_ids = itertools.count()
EmitListener = Callable[[Mapping[str, Any]], None]


class Actor:
    """Runs a machine: `start()`, `send(event)`, `get_snapshot()`, delayed events on `clock`.

    Custom actions (named implementations and inline functions) run after each step, in order.
    Delayed `raise` actions are scheduled on the (virtual) clock and `cancel` drops them, as in
    XState's scheduler. Child actors never run (invoked and spawned children are references), so
    `sendTo` / `forwardTo` and starting a child whose logic is missing put the actor in error
    rather than being dropped (tests/engine/test_actor_oracle.py holds it to XState's createActor).
    """

    def __init__(self, machine: Machine, *, input: Any = None, clock: VirtualClock | None = None) -> None:
        self.machine = machine
        self.input = input
        self.clock = clock or VirtualClock()
        self._snapshot: Snapshot | None = None
        self._listeners: list[Listener] = []
        self._emit_listeners: dict[str, list[EmitListener]] = {}
        self._queue: list[Mapping[str, Any]] = []
        self._processing = False
        #: Labels this actor's timers on the clock (XState's `sessionId`), which actors can share.
        self.session_id = f"x:{next(_session_ids)}"
        #: XState's scheduler `timerMap`, this actor's part: send id -> its timer on the clock.
        #: (XState keys it by `${sessionId}.${id}` because one map serves a whole system; one per
        #: actor needs no key to be built for every delayed raise and cancel.)
        self._timers: dict[Any, Timer] = {}
        self._unnamed_timers = itertools.count()
        self._on_timeout = self._timeout  # bound once: every timer calls it

    def start(self) -> Actor:
        """Compute the initial snapshot and run its actions."""
        if self._snapshot is None:
            snapshot, actions = start_transition(self.machine, self.input, "running")
            self._commit(snapshot, actions)
        return self

    def get_snapshot(self) -> Snapshot:
        if self._snapshot is None:
            raise EngineError("the actor has not been started")
        return self._snapshot

    @property
    def snapshot(self) -> Snapshot:
        return self.get_snapshot()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every new snapshot; returns an unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def on(self, event_type: str, listener: EmitListener) -> None:
        """Listen to events the machine emits with `xstate.emit` (`*` for all)."""
        self._emit_listeners.setdefault(event_type, []).append(listener)

    def send(self, event: Mapping[str, Any] | str) -> None:
        """Process `event` (events sent while processing are queued, as in XState's mailbox)."""
        event = event_object(event)
        if self._processing:
            self._queue.append(event)
            return
        self._processing = True
        try:
            self._process(event)
            while self._queue:
                self._process(self._queue.pop(0))
        finally:
            self._processing = False

    def _process(self, event: Mapping[str, Any]) -> None:
        snapshot = self._snapshot if self._snapshot is not None else self.get_snapshot()
        if snapshot.status != "active":
            return
        try:
            next_snapshot, actions = run_macrostep(snapshot, event, "running")
        except EngineError as error:
            self._commit(snapshot.clone(status="error", error=str(error)), [])
            return
        self._commit(next_snapshot, actions, snapshot)

    def _commit(self, snapshot: Snapshot, actions: list[ExecutableAction], before: Snapshot | None = None) -> None:
        """XState's `actor.update`: the new snapshot, its actions run in order (the deferred ones
        included: scheduling and cancelling timers), then the listeners. `before`: the snapshot
        the event was sent to; if an action throws, the actor is in error with it (XState runs a
        running actor's actions within the step, which the error abandons), while at start (no
        `before`) the error comes with the new snapshot (XState defers those actions to `update`)."""
        self._snapshot = snapshot
        if actions:
            snapshot = self._execute(snapshot, actions, before)
        if snapshot.status != "active":  # XState's `_stopProcedure`: a done actor keeps no timers
            self._cancel_all()
        if self._listeners:
            for listener in list(self._listeners):
                listener(snapshot)

    def _execute(self, snapshot: Snapshot, actions: list[ExecutableAction], before: Snapshot | None = None) -> Snapshot:
        """The actions, in order: XState's `executeAction` for each, inline, with its scheduler's
        `schedule` and `cancel` (an event has several: the cancel and the raise of every `after`
        it leaves or enters, and a call per action is a good part of an actor's own time).
        Returns the snapshot, in error if an action threw (the rest do not run)."""
        clock, timers, on_timeout, session_id = self.clock, self._timers, self._on_timeout, self.session_id
        for action in actions:
            try:
                run = action.run
                if run is not None:  # a named implementation (built-in actions have none)
                    args = action.args
                    if args is not None:
                        run(args, action.params)
                    continue
                kind = action.type
                params = action.params
                if type(params) is not dict:  # (the engine gives built-ins dict params)
                    params = params if isinstance(params, Mapping) else {}
                if kind == "xstate.cancel":  # `scheduler.cancel`: clear the timer the id names, if any
                    timer = timers.pop(params.get("sendId"), None)
                    if timer is not None:
                        clock.clear_timeout(timer)
                elif kind == "xstate.raise":
                    if "delay" in params:  # `scheduler.schedule`: the event, to this actor, later
                        send_id = params.get("id")
                        if send_id is None:  # XState draws a random id: nothing can cancel it
                            clock.set_timeout(params["delay"], on_timeout, params["event"], session_id,
                                              f"~{next(self._unnamed_timers)}")
                        else:  # takes the id's entry; a timer the id named before is not cleared
                            timers[send_id] = clock.set_timeout(params["delay"], on_timeout, params["event"],
                                                                session_id, send_id)
                elif kind == "xstate.emit":
                    self._emit(params["event"])
                elif kind == "xstate.sendTo":
                    raise EngineError(_unsendable(params))
                elif kind == "xstate.spawnChild":
                    src = params.get("src")
                    if isinstance(src, str) and not self.machine.evaluator.knows_actor(src):
                        # XState's actor fails to start a child whose logic is missing (its pure
                        # transition never starts one); a reference to nothing would hide that.
                        raise EngineError(f"spawnChild: no actor logic named {src!r} is provided (setup's "
                                          "`actors`), so a running actor cannot start it")
            except Exception as error:  # XState: a throwing action puts the actor in error
                failed = snapshot if before is None else before
                self._snapshot = snapshot = failed.clone(status="error", error=str(error) or type(error).__name__)
                break
        return snapshot

    def _timeout(self, event: Mapping[str, Any], send_id: Any) -> None:
        """The callback of a timer `scheduler.schedule` set: the id's entry goes (whichever timer
        it names by now, as in XState), then the event goes to the mailbox (`system._relay`)."""
        self._timers.pop(send_id, None)
        self.send(event)  # (`send` checks the event again: one check, and no second entry point)

    def _cancel_all(self) -> None:
        """XState's `scheduler.cancelAll`: every timer of this actor."""
        self._timers.clear()
        self.clock.clear_timeouts_of(self.session_id)

    def _emit(self, emitted: Mapping[str, Any]) -> None:
        for listener in [*self._emit_listeners.get(emitted.get("type", ""), ()), *self._emit_listeners.get("*", ())]:
            listener(emitted)


def _unsendable(params: Mapping[str, Any]) -> str:
    """Why the Actor refuses `sendTo` (and `forwardTo`): the event would go to another actor, which
    this Actor does not run (an invoked or spawned child is a reference only), so dropping it would
    give a plausible trace where XState's child answers."""
    to = params.get("targetId") or params.get("to")
    target = to if isinstance(to, str) else getattr(to, "id", None) or (to.get("id") if isinstance(to, Mapping) else None)
    event = params.get("event")
    event_type = event.get("type") if isinstance(event, Mapping) else None
    return (f"sendTo: the event {event_type!r} goes to the actor {target!r}, which statekit's Actor does not run "
            "(invoked and spawned children are references only): the machine cannot be run faithfully here")

