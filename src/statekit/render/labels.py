"""Human-readable text for transitions and states, shared by the drawings and the XGraph view.

A transition reads the way statechart diagrams write it: `EVENT [guard] / action, action`.
Delayed transitions read `after 1s`, eventless ones `always`, done/error ones name what finished.
"""

from __future__ import annotations

from statekit.model.core import Action, Guard, Invoke, StateNode, Transition

#: Longest label drawn; longer ones are cut with an ellipsis so one label cannot swamp a drawing.
MAX_LABEL_CHARS = 80


def delay_text(delay: int | float | str | None) -> str:
    """`1000` -> `1s`, `1500` -> `1.5s`, `250` -> `250ms`, a named delay stays as written."""
    if delay is None:
        return "?"
    if isinstance(delay, str):
        return delay
    if delay >= 1000 and delay % 100 == 0:
        seconds = delay / 1000
        return f"{seconds:g}s"
    return f"{delay:g}ms"


def guard_text(guard: Guard) -> str:
    """A guard as a short expression: `isValid`, `!a`, `a && b`, `in(#id)`, `inline`."""
    if guard.code is not None:
        return "inline"
    if guard.type == "xstate.not":
        inner = guard.guards[0] if guard.guards else None
        return f"!{_operand(inner)}" if inner is not None else "!?"
    if guard.type in ("xstate.and", "xstate.or"):
        joiner = " && " if guard.type == "xstate.and" else " || "
        return joiner.join(_operand(operand) for operand in guard.guards)
    if guard.type == "xstate.stateIn":
        return f"in({guard.state})"
    return guard.type


def _operand(guard: Guard | None) -> str:
    if guard is None:
        return "?"
    text = guard_text(guard)
    return f"({text})" if guard.type in ("xstate.and", "xstate.or") else text


def action_text(action: Action) -> str:
    """`name`, or the built-in's short name (`assign`, `raise`), or `inline` for a function."""
    if action.code is not None:
        return "inline"
    if action.type.startswith("xstate."):
        return action.type.removeprefix("xstate.")
    return action.type


def trigger_text(transition: Transition, invokes: tuple[Invoke, ...] = ()) -> str:
    """What selects the transition: the event, `after 1s`, `always`, `done`, `done: src`, ..."""
    kind = transition.kind
    if kind == "on":
        return transition.event
    if kind == "after":
        return f"after {delay_text(transition.delay)}"
    if kind == "always":
        return "always"
    if kind == "onDone":
        return "done"
    index = transition.invoke_index
    src = invokes[index].src if index is not None and index < len(invokes) else "invoke"
    suffix = {"invoke.onDone": "done", "invoke.onError": "error", "invoke.onSnapshot": "snapshot"}
    return f"{suffix.get(kind, kind)}: {src}"


def transition_label(transition: Transition, invokes: tuple[Invoke, ...] = ()) -> str:
    """`EVENT [guard] / a, b`, cut to MAX_LABEL_CHARS."""
    text = trigger_text(transition, invokes)
    if transition.guard is not None:
        text += f" [{guard_text(transition.guard)}]"
    if transition.actions:
        text += " / " + ", ".join(action_text(action) for action in transition.actions)
    return clip(text)


def clip(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def state_title(node: StateNode) -> str:
    """The name drawn for a state: its key (history states show H / H*)."""
    if node.type == "history":
        return "H*" if node.history == "deep" else "H"
    return clip(node.key)


def state_details(node: StateNode) -> list[str]:
    """Extra lines under a state's name: entry/exit actions, invoked actors and tags."""
    lines: list[str] = []
    if node.entry:
        lines.append("entry / " + ", ".join(action_text(action) for action in node.entry))
    if node.exit:
        lines.append("exit / " + ", ".join(action_text(action) for action in node.exit))
    lines.extend(f"invoke {invoke.src}" for invoke in node.invoke)
    if node.tags:
        lines.append("tags: " + ", ".join(node.tags))
    return [clip(line) for line in lines]


def loop_line(
    transition: Transition, invokes: tuple[Invoke, ...] = (), *, target: StateNode | None, source_id: str
) -> str:
    """A transition that stays on its state as a line in that state's list: `EVENT [guard] / a`
    for a targetless one; `(to self)` / `(re-enters)` for one that targets the state, `(to x)`
    for one that targets a child drawn collapsed inside it."""
    text = transition_label(transition, invokes)
    if target is None:
        return text
    if target.id != source_id:
        return clip(f"{text} (to {target.key})")
    return clip(text + (" (re-enters)" if transition.reenter else " (to self)"))


#: Edge labels longer than this are broken into lines (a long one-line label needs a wide gap
#: between states, and finds no free spot in a narrow frame).
LINE_CHARS = 30
#: The line length of a label that found no free spot at LINE_CHARS (tried again narrower).
NARROW_LINE_CHARS = 14


def wrapped(text: str, width: int = LINE_CHARS) -> list[str]:
    """`text` broken at spaces into lines of at most `width` characters (longer words stay whole)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
