"""A convenient actor around the pure engine: it keeps the snapshot, runs actions, owns a clock."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from statekit.engine.actions import ExecutableAction
from statekit.engine.api import event_object, initial_transition, run_macrostep
from statekit.engine.clock import VirtualClock
from statekit.engine.machine import Machine
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError

Listener = Callable[[Snapshot], None]
_session_ids = itertools.count()
EmitListener = Callable[[Mapping[str, Any]], None]


class Actor:
    """Runs a machine: `start()`, `send(event)`, `get_snapshot()`, delayed events on `clock`.

    Named action implementations run after each step, in order. Delayed `raise` actions are
    scheduled on the (virtual) clock and `cancel` drops them, as in XState's scheduler.
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
        # Timers are keyed by session and send id, so actors can share one clock (as in XState).
        self.session_id = f"x:{next(_session_ids)}"

    def start(self) -> Actor:
        """Compute the initial snapshot and run its actions."""
        if self._snapshot is None:
            snapshot, actions = initial_transition(self.machine, self.input)
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
            next_snapshot, actions = run_macrostep(snapshot, event)
        except EngineError as error:
            self._commit(snapshot.clone(status="error", error=str(error)), [])
            return
        self._commit(next_snapshot, actions)

    def _commit(self, snapshot: Snapshot, actions: list[ExecutableAction]) -> None:
        self._snapshot = snapshot
        if actions:
            for action in actions:
                try:
                    self._execute(action)
                except Exception as error:  # XState: a throwing action puts the actor in error
                    self._snapshot = snapshot = snapshot.clone(status="error", error=str(error) or type(error).__name__)
                    break
        if self._listeners:
            for listener in list(self._listeners):
                listener(snapshot)

    def _execute(self, action: ExecutableAction) -> None:
        run = action.run
        if run is not None:  # a named implementation (built-in actions have none)
            args = action.args
            if args is not None:
                run(args, action.params)
            return
        kind = action.type
        params = action.params
        if type(params) is not dict:  # (the engine gives built-ins dict params)
            params = params if isinstance(params, Mapping) else {}
        if kind == "xstate.cancel":
            self.clock.cancel(f"{self.session_id}.{params.get('sendId')}")
        elif kind == "xstate.raise":
            if "delay" in params:
                event = params["event"]
                key = f"{self.session_id}.{params.get('id') or event.get('type')}"
                self.clock.schedule(key, params["delay"], lambda: self.send(event))
        elif kind == "xstate.emit":
            emitted = params["event"]
            for listener in [*self._emit_listeners.get(emitted.get("type"), ()), *self._emit_listeners.get("*", ())]:
                listener(emitted)
