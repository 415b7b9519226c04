"""The call pipeline: every `tools/call` the gate sees, from admission to the committed transition.

`handle_call` is the one entry of every server kind (FastMCP's middleware, the SDK
servers' `tools/call` handler): it asks `decision.admit` first, and nothing runs unless it
allows.

The gate fails closed: wherever it cannot tell that a call is allowed (no key
for the workflow, an unreadable record, a store outage, bindings that do not
match the server) it refuses with a coded, explained `isError` result and never
runs the handler.

How a transitioning call stays exactly-once across processes
------------------------------------------------------------
1. Under the in-process lock of the workflow key, load the record (version v),
   firing any `after` timer that fell due (a compare-and-set write of its own).
2. Refuse (FORBIDDEN) if the tool is not allowed in that state, or (CONFLICT)
   if another call holds an unexpired lease on the workflow.
3. Reserve: save the same snapshot plus a lease, compare-and-set on v. Only one
   caller can win this write; a loser gets CONFLICT and its handler never runs.
   (A store that declares `process_local = True`, like `MemoryStore`, has no
   other writer: the lock held until step 5 is the reservation, and no lease
   is written.)
4. Run the handler.
5. Commit the new snapshot (success) or drop the lease (error), compare-and-set
   on the reserved version.

The lease expires after `lease_seconds` so a crashed process cannot freeze a
workflow. A handler that outlives its lease can lose the workflow to another
caller; the late commit then fails its compare-and-set and the call reports
CONFLICT, so choose `lease_seconds` above your slowest handler.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio
import mcp_types as types

from statekit.engine import transition
from statekit.engine.algorithm import candidates
from statekit.errors import EngineError
from statekit.gate.bindings import Binding
from statekit.gate.calls import GateCall, run_with_call
from statekit.gate.core import GateTool, default_event_data
from statekit.gate.decision import Catalog, Refuse, admit, in_state
from statekit.gate.errors import (
    CONFLICT,
    FORBIDDEN,
    HANDLE_REQUIRED,
    NO_WORKFLOW_KEY,
    NOT_FOUND,
    STORE_UNAVAILABLE,
)
from statekit.gate.hooks import TransitionInfo
from statekit.gate.keys import (
    NoWorkflowKey,
    WorkflowKey,
)
from statekit.gate.listing import GateListing
from statekit.gate.record import (
    AuditEntry,
)
from statekit.gate.results import (
    error_result,
    refusal,
    state_label,
    store_fault,
    to_call_result,
)
from statekit.gate.state import _Loaded
from statekit.gate.store import (
    StoreConflict,
    StoreConflictLoop,
    StoreError,
)
from statekit.gate.surfaces import _SDK, Surface
from statekit.gate.timers import apply_timer_actions
from statekit.gate.wayfinding import guided_refusal

if TYPE_CHECKING:
    from statekit.gate.gate import Gate

logger = logging.getLogger("statekit.gate")


class GateCallPipeline(GateListing):
    """Checks, runs and commits calls."""

    # ------------------------------------------------------------------ the entry of every call

    async def handle_call(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        passthrough: Callable[[], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        """Every `tools/call`, on every server kind: admit it (`decision.admit`), then run or guard it.

        `passthrough()` runs a tool this gate does not bind, as the server would without
        the gate; `run(call, arguments)` runs a bound one (see `guard`).
        """
        decision = await admit(self._world, name, catalog)
        if isinstance(decision, Refuse):
            return surface.refusal(
                refusal(
                    decision.code,
                    decision.message,
                    state=None,
                    allowed_tools=[],
                    details={"blockedTool": name, "unmatchedBindings": list(decision.unmatched)},
                )
            )
        if not decision.bound:
            return await passthrough()
        return await self.guard(ctx, name, arguments, catalog, run, surface)

    # ------------------------------------------------------------------ low-level tools/call

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        """The `tools/call` handler of an SDK server (low-level `Server`, `MCPServer`)."""
        name = params.name
        gate_tool = self._tools.get(name)

        async def passthrough() -> Any:
            if self._inner_call is not None:
                return await self._inner_call(ctx, params)
            return error_result(f"Unknown tool: {name}")

        async def run(call: GateCall, stripped: dict[str, Any]) -> Any:
            if gate_tool is not None:
                return await self._run_gate_tool(gate_tool, call)
            assert self._inner_call is not None
            inner_params = params.model_copy(update={"arguments": stripped})
            return await self._inner_call(ctx, inner_params)

        return await self.handle_call(
            ctx,
            name,
            dict(params.arguments or {}),
            Catalog(lambda: self._catalog_names(ctx)),
            run,
            passthrough,
            _SDK,
        )

    @staticmethod
    async def _run_gate_tool(gate_tool: GateTool, call: GateCall) -> types.CallToolResult:
        try:
            return to_call_result(await gate_tool.handler(call.arguments, call))
        except Exception as error:  # the tool boundary: a raising handler is an isError result
            logger.exception("statekit.gate: tool %s raised", call.tool)
            return error_result(f"Error executing tool {call.tool}: {error}")

    # ------------------------------------------------------------------ the guard (any server kind)

    async def guard(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        """Check, run and commit one call of a tool this gate binds, once `handle_call` admitted it.

        `run(call, arguments)` runs the tool with the handle argument taken out (the gate
        owns it) and `call` visible through `current_call()`.
        """
        binding = self._bindings[name]
        stripped = dict(arguments)
        handle = None
        if self.state_handle_key is not None:
            handle = self._keys.handle_from(arguments)
            stripped.pop(self.state_handle_key, None)
        if name in self._creators:
            return await self._create_workflow(
                ctx, name, arguments, stripped, binding, catalog, run, surface
            )
        gated = binding.is_state_bound or binding.event is not None
        try:
            if self.mode == "handle":
                if handle is None:
                    if gated:
                        return surface.refusal(self._handle_required(name, arguments))
                    key = None
                else:
                    key = WorkflowKey("handle", handle)
            else:
                key = self._keys.resolve_without_handle(ctx)
        except NoWorkflowKey as error:
            if not gated:
                # An always-visible tool needs no workflow: it runs, seeing none.
                call = GateCall(name, arguments, "", None, None, ctx)
                return await run_with_call(call, lambda: run(call, stripped))
            return surface.refusal(
                refusal(
                    NO_WORKFLOW_KEY,
                    f"Tool {name!r} refused: {error}",
                    state=None,
                    allowed_tools=[],
                    details={"blockedTool": name},
                )
            )
        if key is None:
            # An ungated tool called without a handle: no workflow worth reporting.
            call = GateCall(name, arguments, "", None, None, ctx)
            return await run_with_call(call, lambda: run(call, stripped))
        self._remember_session(ctx, key)
        if not gated:
            return await self._ungated(
                ctx, name, arguments, stripped, key, handle, catalog, run, surface
            )
        async with self._locks.hold(self.store_key(key)):
            try:
                return await self._gated(
                    ctx, name, arguments, stripped, key, handle, binding, catalog, run, surface
                )
            except StoreError as error:
                return surface.refusal(store_fault(error, self.store_key(key)))
            except StoreConflictLoop:
                return surface.refusal(self._busy(name, None, []))

    def _committed_record(self, store_key: str, name: str, binding: Binding) -> _Loaded | None:
        """This process's last commit to the workflow, when the call can reserve a transition on it.

        The reservation's compare-and-set proves it current; anything else (a refusal, a call
        that writes nothing, a lease, a due timer) reads the store (see gate/committed.py).
        """
        known = self._committed.get(store_key)
        if known is None:
            return None
        record, version = known
        now = self.clock()
        due = record.next_due()
        if record.active_lease(now) is not None or (due is not None and due.due_at <= now):
            return None
        snapshot = record.snapshot
        if not in_state(name, self._bound_visible(snapshot), binding.is_state_bound):
            return None
        if binding.event is None or not declares_event(snapshot, binding.event):
            return None
        return _Loaded(record, version)

    def _handle_required(self, name: str, arguments: Mapping[str, Any]) -> types.CallToolResult:
        given = arguments.get(self.state_handle_key or "")
        what = "no" if given is None else f"an invalid ({type(given).__name__})"
        return refusal(
            HANDLE_REQUIRED,
            f"Tool {name!r} needs the workflow handle {self.state_handle_key!r} and the call "
            f"passed {what} one; call {' or '.join(sorted(self._creators))} to start a "
            f"workflow and pass its {self.state_handle_key}.",
            state=None,
            allowed_tools=sorted(self._creators),
            details={"blockedTool": name},
        )

    def _busy(self, name: str, state: Any, allowed: list[str]) -> types.CallToolResult:
        return refusal(
            CONFLICT,
            "The workflow changed while this call was being checked (a concurrent call won); "
            "list the tools again before retrying.",
            state=state,
            allowed_tools=allowed,
            details={"blockedTool": name},
        )

    async def _ungated(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        stripped: dict[str, Any],
        key: WorkflowKey,
        handle: str | None,
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        """An always-visible tool: no lock, no check, but it sees (and reports) the state."""
        try:
            loaded = await self._load(key, ctx)
        except (StoreError, StoreConflictLoop):
            loaded = None  # an always-visible tool does not depend on the state
        snapshot = None if loaded is None else loaded.record.snapshot
        call = GateCall(name, arguments, self.store_key(key), snapshot, handle, ctx)
        result = await run_with_call(call, lambda: run(call, stripped))
        if snapshot is None or not self.state_note or name == self.status_tool:
            return result
        return await self._noted(ctx, result, snapshot, catalog, surface, handle)

    async def _noted(self, ctx: Any, result: Any, snapshot: Any, catalog: Catalog, surface: Surface,
                     handle: str | None) -> Any:
        """`result` with the state note: the state at `snapshot` and the tools allowed there."""
        return surface.note(
            result,
            state=snapshot.value,
            allowed=await self.allowed_now(ctx, snapshot, catalog),
            handle_argument=self.state_handle_key,
            handle=handle,
        )

    async def _gated(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        stripped: dict[str, Any],
        key: WorkflowKey,
        handle: str | None,
        binding: Binding,
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        store_key = self.store_key(key)
        guessed = self._committed_record(store_key, name, binding)
        loaded = guessed or await self._load(key, ctx, holding_lock=True)
        if loaded is None:
            return surface.refusal(
                refusal(
                    NOT_FOUND,
                    f"No workflow has {self.state_handle_key}={handle!r} (unknown or expired); "
                    f"call {' or '.join(sorted(self._creators))} to start one.",
                    state=None,
                    allowed_tools=await self.allowed_now(ctx, None, catalog),
                )
            )
        record, version = loaded.record, loaded.version
        snapshot = record.snapshot
        lease = record.active_lease(self.clock())
        if lease is not None:
            return surface.refusal(
                refusal(
                    CONFLICT,
                    f'Another call ("{lease.tool}") is moving this workflow right now; '
                    "retry after it finishes.",
                    state=snapshot.value,
                    allowed_tools=await self.allowed_now(ctx, snapshot, catalog),
                    details={"blockedTool": name},
                )
            )
        if not in_state(name, self._bound_visible(snapshot), binding.is_state_bound):
            forbidden = refusal(
                FORBIDDEN,
                f'Tool "{name}" is not available in the current workflow state '
                f'"{state_label(snapshot.value)}".',
                state=snapshot.value,
                allowed_tools=await self.allowed_now(ctx, snapshot, catalog),
                details={"blockedTool": name},
            )
            return surface.refusal(
                await guided_refusal(cast("Gate", self), forbidden, snapshot, record.timers, name, catalog)
            )
        # An event no active state declares cannot move the workflow: the call runs as a
        # read (no lease, no transition id), and nothing is recorded for it.
        event_type = binding.event if declares_event(snapshot, binding.event) else None
        transition_id = None if event_type is None else f"{store_key}#{record.step + 1}"
        call = GateCall(name, arguments, store_key, snapshot, handle, ctx, transition_id)
        if event_type is None:
            result = await run_with_call(call, lambda: run(call, stripped))
            if not self.state_note:
                return result
            return await self._noted(ctx, result, snapshot, catalog, surface, handle)
        try:
            reserved_version = await self._reserve(store_key, record, version, name, event_type)
        except StoreConflict:
            if guessed is not None:
                # Someone else wrote since this process's commit: decide again from the store.
                self._committed.forget(store_key)
                return await self._gated(
                    ctx, name, arguments, stripped, key, handle, binding, catalog, run, surface
                )
            return surface.refusal(
                self._busy(name, snapshot.value, await self.allowed_now(ctx, snapshot, catalog))
            )
        try:
            result = await run_with_call(call, lambda: run(call, stripped))
        except BaseException:
            # Shielded: a cancelled call must still drop its lease, or the workflow
            # stays blocked until the lease expires.
            with anyio.CancelScope(shield=True):
                await self._release(store_key, record, reserved_version)
            raise
        if not surface.is_success(result):
            await self._release(store_key, record, reserved_version)
            return result
        event = {
            **self._event_data.get(name, default_event_data)(stripped, result),
            "type": event_type,
        }
        try:
            # XState's `snapshot.can`: whether a transition is taken (guards see the event).
            enabled = snapshot.can(event)
            if enabled:
                next_snapshot, actions = transition(self.machine, snapshot, event)
        except EngineError as error:
            # e.g. a guard raised. The handler ran; the workflow stays where it was.
            logger.exception("statekit.gate: event %s from %s failed", event_type, name)
            with anyio.CancelScope(shield=True):
                await self._release(store_key, record, reserved_version)
            return surface.refusal(
                error_result(
                    f'Tool "{name}" ran, but the workflow could not take event {event_type}: {error}'
                )
            )
        if not enabled:
            # The state ignores the event (a guard said no, or no transition does anything):
            # not a transition, so no hook, no audit entry, no step, no transition id used.
            with anyio.CancelScope(shield=True):
                await self._release(store_key, record, reserved_version)
            if not self.state_note:
                return result
            return await self._noted(ctx, result, snapshot, catalog, surface, handle)
        now = self.clock()
        timers = apply_timer_actions(record.timers, actions, now)
        assert transition_id is not None
        entry = AuditEntry(
            snapshot.value, next_snapshot.value, event_type, name, transition_id, now
        )
        try:
            # Shielded: the handler's side effect happened, so the transition must be
            # recorded even if the client cancels now; otherwise a later caller could
            # take over the expired lease and repeat the side effect.
            with anyio.CancelScope(shield=True):
                text, saved = self._encode(
                    next_snapshot,
                    None,
                    record.step + 1,
                    None,
                    timers=timers,
                    history=[*record.history, entry],
                )
                committed_version = await self.store.save(store_key, text, reserved_version)
                self._decoder.remember(text, saved)
                if not self._process_local_store:
                    self._committed.put(store_key, saved, committed_version)
        except StoreConflict:
            logger.error(
                "statekit.gate: %s on %s ran but its lease expired before the commit; "
                "the workflow did not move (raise lease_seconds above the handler's duration)",
                name,
                store_key,
            )
            return surface.refusal(
                refusal(
                    CONFLICT,
                    f'Tool "{name}" ran, but the workflow was taken over before its transition was '
                    "saved; the state did not change.",
                    state=snapshot.value,
                    allowed_tools=await self.allowed_now(ctx, snapshot, catalog),
                )
            )
        except StoreError as error:
            logger.error(
                "statekit.gate: %s on %s ran but its commit failed: %s", name, store_key, error
            )
            return surface.refusal(
                refusal(
                    STORE_UNAVAILABLE,
                    f'Tool "{name}" ran, but its transition could not be saved ({error.reason}); '
                    f"the state did not change. Retry with the same transition id {transition_id}.",
                    state=snapshot.value,
                    allowed_tools=[],
                    details={
                        "workflow": store_key,
                        "retryable": True,
                        "transitionId": transition_id,
                    },
                )
            )
        await self._run_hooks(
            TransitionInfo(
                store_key, snapshot.value, next_snapshot.value, event_type, name, transition_id, now
            )
        )
        if self.mode == "session" and self._bound_visible(snapshot) != self._bound_visible(
            next_snapshot
        ):
            await self._notify_list_changed(ctx, key)
        if not self.state_note:
            return result
        return await self._noted(ctx, result, next_snapshot, catalog, surface, handle)

    async def _create_workflow(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        stripped: dict[str, Any],
        binding: Binding,
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        """Run a creating tool: mint a handle, and store the new workflow if the handler succeeds."""
        handle = self._handle_factory()
        key = WorkflowKey("handle", handle)
        store_key = self.store_key(key)
        call = GateCall(
            name, arguments, store_key, self._initial_snapshot, handle, ctx, f"{store_key}#0"
        )
        result = await run_with_call(call, lambda: run(call, stripped))
        if not surface.is_success(result):
            return result
        now = self.clock()
        snapshot = self._initial_snapshot
        timers = apply_timer_actions((), self._initial_actions, now)
        history: list[AuditEntry] = []
        step = 0
        if binding.event is not None:
            event_data = self._event_data.get(name, default_event_data)
            event = {**event_data(stripped, result), "type": binding.event}
            if snapshot.can(event):
                before = snapshot.value
                snapshot, actions = transition(self.machine, snapshot, event)
                timers = apply_timer_actions(timers, actions, now)
                step = 1
                history.append(
                    AuditEntry(before, snapshot.value, binding.event, name, f"{store_key}#1", now)
                )
        # A fresh random handle: nobody else can be writing it, so "absent" is the expected version.
        try:
            text, saved = self._encode(snapshot, None, step, None, timers=timers, history=history)
            await self.store.save(store_key, text, None)
            self._decoder.remember(text, saved)
        except (StoreError, StoreConflict) as error:
            logger.error("statekit.gate: could not store the new workflow %s: %s", store_key, error)
            fault = error if isinstance(error, StoreError) else StoreError(store_key, str(error))
            return surface.refusal(store_fault(fault, store_key))
        if not self.state_note:
            return result
        return await self._noted(ctx, result, snapshot, catalog, surface, handle)


def declares_event(snapshot: Any, event_type: str | None) -> bool:
    """Whether some active state declares a transition for `event_type` (guards not asked)."""
    if event_type is None:
        return False
    return any(candidates(node, event_type) for node in snapshot.nodes)
