"""What both oracle suites compare of a statekit step, shaped like the traces node prints.

`tests/engine/test_oracle.py` (JSON configs through trace.mjs) and `tests/engine/test_inline_oracle.py`
(XState source through inline/run.mjs) describe statekit's steps with these functions, so the two
comparisons cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from statekit.engine.evaluation import UNDEFINED


def plain(value: Any) -> Any:
    """A JSON-shaped copy: mappings to dicts, sequences to lists, integral floats to ints,
    JS `undefined` dropped from objects and `null` in arrays (as `JSON.stringify` does)."""
    if value is UNDEFINED:
        return None
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items() if item is not UNDEFINED}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # JSON.stringify(1.0) is "1"
    return value


GENERATED_ACTOR_ID = "(generated)"


def actor_id(ref: Any) -> Any:
    if isinstance(ref, Mapping):
        return ref.get("id")
    return getattr(ref, "id", ref)


def action_params(action_type: str, params: Any) -> Any:
    """The comparable part of an action's params, made like `actionParams` in trace.mjs / run.mjs."""
    if params is None:
        return None
    if not isinstance(params, Mapping):
        return plain(params)
    rest = dict(params)
    if action_type == "xstate.sendTo":
        target_id = rest.pop("targetId", None)
        to = rest.pop("to", None)
        return plain({"to": target_id if target_id is not None else actor_id(to), **rest})
    if action_type == "xstate.spawnChild":
        rest.pop("actorRef", None)
        return plain(rest)
    if action_type == "xstate.stopChild":
        ref = actor_id(rest.get("actorRef", rest.get("id")))
        # XState names a child spawned without an id by a session id (`x:4`), and trace.mjs
        # reports it as "(generated)"; statekit keeps a spawnChild child without an id under
        # "undefined", the key XState's `children` uses for it, and one `spawn(...)` made in
        # inline code under a session id of its own.
        generated = ref == "undefined" or (isinstance(ref, str) and re.match(r"^x:\d+$", ref) is not None)
        return {"actorRef": GENERATED_ACTOR_ID if generated else ref}
    return plain(rest)


def describe_step(event: Mapping[str, Any], snapshot: Any, actions: list[Any]) -> dict[str, Any]:
    return {
        "event": dict(event),
        "value": plain(snapshot.value),
        "context": plain(snapshot.context),
        "status": snapshot.status,
        "tags": sorted(snapshot.tags),
        "output": plain(snapshot.output),
        "actions": [action.type for action in actions],
        "action_params": [action_params(action.type, action.params) for action in actions],
        "children": sorted(snapshot.children),
        "snapshot_error": plain(snapshot.error) if snapshot.status == "error" else None,
    }
