"""The keys XState v5's config types define, and what validation says about any other key.

The sets are those of `xstate@5.33.3`'s declarations (`dist/declarations/src/types.d.ts`:
`StateNodeConfig`, `MachineConfig`, `TransitionConfig`, `InvokeConfig`; `createMachine.d.ts`
adds `types` and `schemas`); `tests/analysis/test_config_keys.py` reads them from the installed
package so that they stay XState's. XState ignores a key it does not know, so a typo such as
`taget` silently makes a targetless transition: validation names it, with the key it likely meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: `StateNodeConfig`: every state node, the root included.
STATE_NODE_KEYS = frozenset({
    "initial", "type", "history", "states", "invoke", "on", "entry", "exit", "onDone", "after", "always",
    "parent", "meta", "output", "id", "order", "tags", "description", "target", "route",
})
#: `MachineConfig` (StateNodeConfig with the machine's `output`, `version`, `options`, `context`)
#: and what `createMachine` / `setup().createMachine` add (`types`, `schemas`).
MACHINE_KEYS = STATE_NODE_KEYS | frozenset({"context", "version", "options", "types", "schemas"})
#: `TransitionConfig`: a transition in `on`, `after`, `always`, `onDone`, `onError`, `onSnapshot`.
TRANSITION_KEYS = frozenset({"guard", "actions", "reenter", "target", "meta", "description"})
#: `InvokeConfig`.
INVOKE_KEYS = frozenset({"id", "systemId", "src", "input", "onDone", "onError", "onSnapshot"})
#: XState v4 keys renamed in v5, with what to write instead.
V4_KEYS = {
    "cond": "guard", "internal": "reenter (inverted)", "data": "output", "predictableActionArguments": "(remove it)",
    "preserveActionOrder": "(remove it)", "tsTypes": "types", "schema": "types", "activities": "invoke",
    "strict": "(remove it)", "delimiter": "(remove it)", "in": "guard: stateIn(...)",
}


def unknown_key_message(key: str, known: Iterable[str], what: str) -> str:
    """What to say about `key` where XState's type for `what` does not define it."""
    if key in V4_KEYS:
        return f"`{key}` is not a key of an XState v5 {what} (XState v4's; v5: {V4_KEYS[key]}); XState ignores it"
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return f"`{key}` is not a key of an XState v5 {what}, so XState ignores it{hint}"
