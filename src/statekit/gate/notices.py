"""Telling the world a workflow moved: transition hooks, and `tools/list_changed` to its clients."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import mcp_types as types

from statekit.gate.core import GateCore, listen_identity
from statekit.gate.hooks import TransitionHook, TransitionInfo, run_hooks
from statekit.gate.keys import (
    WorkflowKey,
    is_modern,
)

logger = logging.getLogger("statekit.gate")

#: Legacy sessions remembered per workflow, and workflows with remembered sessions.
_SESSIONS_PER_KEY = 8
_SESSION_KEYS = 10_000


class GateNotices(GateCore):
    """Transition hooks and list-change notifications."""

    def add_transition_hook(self, hook: TransitionHook) -> Callable[[], bool]:
        """Call `hook(TransitionInfo)` after every committed transition (its failures are logged only).

        Returns a function that removes the hook again (as MCP Fusion's `onTransition` does).
        """
        self._hooks.append(hook)
        return lambda: self.remove_transition_hook(hook)

    def remove_transition_hook(self, hook: TransitionHook) -> bool:
        """Stop calling `hook`; False when it was not registered (or already removed)."""
        try:
            self._hooks.remove(hook)
        except ValueError:
            return False
        return True

    def _remember_session(self, ctx: Any, key: WorkflowKey) -> None:
        if self.mode != "session" or is_modern(ctx):
            return
        session = getattr(ctx, "session", None)
        if session is None:
            return
        store_key = self.store_key(key)
        sessions = self._sessions.setdefault(store_key, {})
        self._sessions.move_to_end(store_key)
        # The SDK builds one session proxy per request; keep the latest per connection.
        sessions[id(getattr(session, "_connection", session))] = session
        while len(sessions) > _SESSIONS_PER_KEY:
            sessions.pop(next(iter(sessions)))
        while len(self._sessions) > _SESSION_KEYS:
            self._sessions.popitem(last=False)

    async def _notify_list_changed(self, ctx: Any, key: WorkflowKey) -> None:
        """Tell the clients of `key` that their tool list changed.

        Legacy: on the triggering request's stream when there is one, else on the
        standalone stream of every session seen for the key. 2026-07-28: on the key's
        listen streams, here and (through the relay) on other replicas.
        """
        try:
            if ctx is not None and not is_modern(ctx) and getattr(ctx, "session", None) is not None:
                await ctx.session.send_notification(
                    types.ToolListChangedNotification(), related_request_id=ctx.request_id
                )
            elif ctx is None:
                sessions = self._sessions.get(self.store_key(key), {})
                for connection, session in list(sessions.items()):
                    try:
                        await session.send_tool_list_changed()
                    except Exception:  # a closed session: nothing to tell, forget it
                        sessions.pop(connection, None)
            if self.modern_list == "by_state":
                # A static 2026-07-28 list did not change: nothing to tell its listen streams.
                await self._listen.publish_tools_changed(listen_identity(key))
        except Exception:  # a lost notification must not fail a call that already committed
            logger.exception("statekit.gate: could not send tools/list_changed")

    async def _run_hooks(self, info: TransitionInfo) -> None:
        await run_hooks(self._hooks, info)
