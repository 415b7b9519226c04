"""Hypothesis strategies for the format tests.

`any_machine_configs` draws XState configs with every feature the model holds (odd keys,
duplicate ids, unresolvable targets, Python-free data only): XGraph must be lossless on all
of them.

`scxml_subset_configs` draws machines in the subset SCXML expresses exactly, written the way
the SCXML reader writes them (docs/formats.md, "Lossless subset"):

* state keys are XML names, unique in the machine (SCXML ids are global);
* targets are a sibling key, `.child.path` for a descendant, or `#key` with `id: key` on the
  target (and only targeted states have an explicit id);
* `reenter: true` only where it matters (every target is the source or inside it), and an
  internal transition (`reenter` absent) only when every target is a proper descendant;
* compound states name their initial child; `type` is written for parallel, final and
  history states only;
* guards: named (with JSON params or not), `and`/`or` (two or more operands), `not`,
  `stateIn('#key')`, or `scxml.cond` expressions outside that grammar;
* actions: named (params or not), raise / sendTo / sendParent with static events, log,
  single-key assign, cancel, enqueueActions with one `if` branch;
* `after` with millisecond delays, `always`, `onDone`, invokes (`src` and an id, or one
  invoke without id), static context and final output;
* no tags, meta, descriptions or unknown keys; nothing on the root but states and context.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["", "x", "a b", "ü"]))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["k", "v", "n"]), inner, max_size=3)),
    max_leaves=5,
)

# --- any machine (for lossless XGraph) ------------------------------------------------------

_names = st.sampled_from(["go", "check", "isOk", "notify", "x.y", "0", "7", "üñí", "a b"])
_keys = st.sampled_from(["a", "b", "c", "0", "1", "10", "idle", "x.y", "#h", "ü"])
_targets = st.sampled_from(["a", "b", ".c", "#m", "#m.a", "#h", "a.b", "0", "x\\.y", "nowhere"])
_descriptors = st.sampled_from(["GO", "STOP", "*", "ui.*", "1", "a.b", "ü"])
_delay_keys = st.sampled_from(["0", "100", "1000", "1.5", "slow"])
_events = st.builds(lambda t, extra: {"type": t, **extra}, _names, st.dictionaries(st.sampled_from(["v", "n"]), json_scalars, max_size=2))

_any_guards = st.recursive(
    st.one_of(
        _names,
        st.builds(lambda n, p: {"type": n, "params": p}, _names, json_values),
        st.builds(lambda s: {"type": "xstate.stateIn", "state": s}, st.one_of(_targets, st.just({"a": "b"}))),
    ),
    lambda inner: st.one_of(
        st.builds(lambda gs: {"type": "xstate.and", "guards": gs}, st.lists(inner, max_size=3)),
        st.builds(lambda gs: {"type": "xstate.or", "guards": gs}, st.lists(inner, max_size=3)),
        st.builds(lambda g: {"type": "xstate.not", "guard": g}, inner),
    ),
    max_leaves=4,
)
_any_builtin_actions = st.one_of(
    st.builds(lambda a: {"type": "xstate.assign", "assignment": a}, st.dictionaries(_names, json_values, max_size=2)),
    st.builds(lambda e, d: {"type": "xstate.raise", "event": e, **d}, _events,
              st.one_of(st.just({}), st.builds(lambda d: {"delay": d}, st.one_of(st.integers(0, 5000), st.just("slow"))))),
    st.builds(lambda to, e: {"type": "xstate.sendTo", "to": to, "event": e}, _names, _events),
    st.builds(lambda e: {"type": "xstate.emit", "event": e}, _events),
    st.builds(lambda v: {"type": "xstate.log", "value": v}, json_values),
    st.builds(lambda s: {"type": "xstate.cancel", "sendId": s}, _names),
    st.builds(lambda s: {"type": "xstate.spawnChild", "src": s}, _names),
)
_any_simple_actions = st.one_of(_names, st.builds(lambda n, p: {"type": n, "params": p}, _names, json_values), _any_builtin_actions)
_any_actions = st.one_of(
    _any_simple_actions,
    st.builds(lambda g, then: {"type": "xstate.enqueueActions", "actions": [{"if": g, "then": then}]},
              _any_guards, st.lists(_any_simple_actions, max_size=2)),
)
_any_action_lists = st.one_of(_any_actions, st.lists(_any_actions, min_size=1, max_size=3))


@st.composite
def _any_transition(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 3)) == 0:
        return draw(_targets)
    item: dict[str, Any] = {}
    target = draw(st.one_of(st.none(), _targets, st.lists(_targets, min_size=2, max_size=3)))
    if target is not None:
        item["target"] = target
    if draw(st.booleans()):
        item["guard"] = draw(_any_guards)
    if draw(st.booleans()):
        item["actions"] = draw(_any_action_lists)
    if draw(st.booleans()):
        item["reenter"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        item["description"] = draw(st.text(max_size=6))
    if draw(st.integers(0, 3)) == 0:
        item["meta"] = {"k": draw(json_values)}
    if draw(st.integers(0, 5)) == 0:
        item["x-extra"] = draw(json_values)
    return item


_any_transitions = st.one_of(_any_transition(), st.lists(_any_transition(), min_size=1, max_size=3))


@st.composite
def _any_state(draw: st.DrawFn, depth: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(["atomic", "final", "history"] + (["compound", "parallel"] * 2 if depth < 3 else [])))
    config: dict[str, Any] = {}
    if kind in ("compound", "parallel"):
        keys = draw(st.lists(_keys, min_size=1, max_size=3 - depth, unique=True))
        config["states"] = {key: draw(_any_state(depth + 1)) for key in keys}
        if kind == "compound":
            if draw(st.integers(0, 4)):
                config["initial"] = draw(st.sampled_from(keys))
        else:
            config["type"] = "parallel"
        if draw(st.booleans()):
            config["onDone"] = draw(_any_transitions)
    elif kind == "final":
        config["type"] = "final"
        if draw(st.booleans()):
            config["output"] = draw(json_values)
    elif kind == "history":
        style = draw(st.sampled_from(["type", "shallow", "deep", "true"]))
        if style == "type":
            config["type"] = "history"
        else:
            config["history"] = True if style == "true" else style
        if draw(st.booleans()):
            config["target"] = draw(st.one_of(_targets, st.lists(_targets, min_size=1, max_size=2)))
        return config
    elif draw(st.booleans()):
        config["type"] = "atomic"
    if draw(st.booleans()):
        config["on"] = draw(st.dictionaries(_descriptors, _any_transitions, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        config["always"] = draw(_any_transitions)
    if draw(st.integers(0, 3)) == 0:
        config["after"] = draw(st.dictionaries(_delay_keys, _any_transitions, min_size=1, max_size=2))
    if draw(st.integers(0, 3)) == 0:
        invokes = []
        for _ in range(draw(st.integers(1, 2))):
            invoke: dict[str, Any] = {"src": draw(_names)}
            if draw(st.booleans()):
                invoke["id"] = draw(_names)
            if draw(st.booleans()):
                invoke["input"] = draw(json_values)
            for key in ("onDone", "onError", "onSnapshot"):
                if draw(st.integers(0, 2)) == 0:
                    invoke[key] = draw(_any_transitions)
            invokes.append(invoke)
        config["invoke"] = invokes[0] if len(invokes) == 1 and draw(st.booleans()) else invokes
    for key in ("entry", "exit"):
        if draw(st.integers(0, 2)) == 0:
            config[key] = draw(_any_action_lists)
    if draw(st.booleans()):
        config["tags"] = draw(st.lists(_names, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        config["meta"] = {"k": draw(json_values)}
    if draw(st.integers(0, 3)) == 0:
        config["description"] = draw(st.text(max_size=8))
    if draw(st.integers(0, 4)) == 0:
        config["id"] = draw(st.sampled_from(["h", "custom", "m"]))
    if draw(st.integers(0, 6)) == 0:
        config["x-extra"] = draw(json_values)
    return config


@st.composite
def any_machine_configs(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(_any_state(0))
    config.pop("id", None)
    if draw(st.booleans()):
        config["id"] = draw(st.sampled_from(["m", "machine"]))
    if draw(st.booleans()):
        config["context"] = draw(json_values)
    if draw(st.integers(0, 3)) == 0:
        config["version"] = "1"
    return config


# --- the SCXML subset -----------------------------------------------------------------------

_SUBSET_KEYS = ["idle", "busy", "s1", "s-2", "_x", "ü", "done", "wait", "a", "b", "c", "d", "e", "f"]
_SUBSET_EVENTS = ["GO", "STOP", "a.b", "*", "ui.*", "error-x", "ui.x.*"]
_IDENTIFIERS = st.sampled_from(["isOk", "check", "hasRole", "ready_2"])
_EVENT_NAMES = st.sampled_from(["PING", "a.b", "x-y"])


class _Tree:
    """The drawn state tree: paths of states and what kind each is."""

    def __init__(self) -> None:
        self.kinds: dict[tuple[str, ...], str] = {}
        self.order: list[tuple[str, ...]] = []

    def children(self, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        return [p for p in self.order if len(p) == len(path) + 1 and p[: len(path)] == path]


def _draw_tree(draw: st.DrawFn, tree: _Tree, path: tuple[str, ...], depth: int, pool: list[str]) -> None:
    count = draw(st.integers(1 if not path else 0, 3 if depth < 3 else 0))
    for _ in range(count):
        if not pool:
            return
        key = pool.pop(draw(st.integers(0, len(pool) - 1)))
        child = (*path, key)
        tree.order.append(child)
        parent_kind = tree.kinds.get(path, "compound")
        kinds = ["atomic", "atomic"] + (["final"] if parent_kind != "parallel" else []) + (
            ["compound", "parallel"] if depth < 2 else [])
        has_sibling = any(tree.kinds[p] != "history" for p in tree.children(path) if p != child)
        if parent_kind in ("compound", "parallel") and path and has_sibling:
            kinds.append("history")
        kind = draw(st.sampled_from(kinds))
        tree.kinds[child] = kind
        if kind in ("compound", "parallel"):
            _draw_tree(draw, tree, child, depth + 1, pool)
            if not tree.children(child):
                tree.kinds[child] = "atomic"


class _SubsetBuilder:
    def __init__(self, draw: st.DrawFn, tree: _Tree) -> None:
        self.draw = draw
        self.tree = tree
        self.needs_id: set[tuple[str, ...]] = set()
        self.transition_states = [p for p in tree.order if tree.kinds[p] not in ("final", "history")]

    def target(self, source: tuple[str, ...], target: tuple[str, ...]) -> str:
        if source[:-1] == target[:-1]:
            return target[-1]
        if target[: len(source)] == source and len(target) > len(source):
            return "." + ".".join(target[len(source):])
        self.needs_id.add(target)
        return "#" + target[-1]

    def transition(self, source: tuple[str, ...], allow_targetless: bool = True) -> dict[str, Any]:
        draw = self.draw
        item: dict[str, Any] = {}
        candidates = [p for p in self.tree.order if self.tree.kinds[p] != "history"] or [source]
        count = draw(st.integers(0 if allow_targetless else 1, 2))
        chosen = list(dict.fromkeys(draw(st.sampled_from(candidates)) for _ in range(count)))
        if chosen:
            written = [self.target(source, t) for t in chosen]
            item["target"] = written[0] if len(written) == 1 else written
            inside = all(t[: len(source)] == source for t in chosen)
            proper = all(t[: len(source)] == source and len(t) > len(source) for t in chosen)
            if inside and (not proper or draw(st.booleans())):
                item["reenter"] = True
        if draw(st.booleans()):
            item["guard"] = self.guard(2)
        if draw(st.booleans()):
            item["actions"] = [self.action(2) for _ in range(draw(st.integers(1, 3)))]
        return item

    def guard(self, depth: int) -> Any:
        draw = self.draw
        choice = draw(st.integers(0, 6 if depth > 0 else 3))
        if choice == 0:
            return draw(_IDENTIFIERS)
        if choice == 1:
            return {"type": draw(_IDENTIFIERS), "params": draw(json_values)}
        if choice == 2:
            state = draw(st.sampled_from(self.tree.order))
            self.needs_id.add(state)
            return {"type": "xstate.stateIn", "state": "#" + state[-1]}
        if choice == 3:
            return {"type": "scxml.cond", "params": {"expr": draw(st.sampled_from(["x > 1", "Var1 == 2", "a.b"]))}}
        if choice in (4, 5):
            kind = "xstate.and" if choice == 4 else "xstate.or"
            return {"type": kind, "guards": [self.guard(depth - 1) for _ in range(draw(st.integers(2, 3)))]}
        return {"type": "xstate.not", "guard": self.guard(depth - 1)}

    def event(self) -> dict[str, Any]:
        event: dict[str, Any] = {"type": self.draw(_EVENT_NAMES)}
        if self.draw(st.booleans()):
            event["n"] = self.draw(json_values)
        return event

    def action(self, depth: int) -> Any:
        draw = self.draw
        choice = draw(st.integers(0, 9 if depth > 0 else 8))
        if choice == 0:
            return draw(_IDENTIFIERS)
        if choice == 1:
            return {"type": draw(_IDENTIFIERS), "params": draw(json_values)}
        if choice == 2:
            return {"type": "xstate.raise", "event": {"type": draw(_EVENT_NAMES)}}
        if choice == 3:
            action: dict[str, Any] = {"type": "xstate.raise", "event": self.event()}
            if draw(st.booleans()):
                action["delay"] = draw(st.integers(0, 5000))
            return action
        if choice == 4:
            return {"type": "xstate.sendTo", "to": draw(st.sampled_from(["child", "worker"])), "event": self.event()}
        if choice == 5:
            return {"type": "xstate.sendParent", "event": self.event()}
        if choice == 6:
            log: dict[str, Any] = {"type": "xstate.log"}
            if draw(st.booleans()):
                log["value"] = draw(json_values)
            if draw(st.booleans()):
                log["label"] = draw(st.sampled_from(["Outcome", "a b"]))
            return log
        if choice == 7:
            return {"type": "xstate.assign", "assignment": {draw(st.sampled_from(["count", "name"])): draw(json_values)}}
        if choice == 8:
            return {"type": "xstate.cancel", "sendId": draw(st.sampled_from(["t1", "t2"]))}
        branch = self.branch(depth - 1)
        return {"type": "xstate.enqueueActions", "actions": [branch]}

    def branch(self, depth: int) -> dict[str, Any]:
        draw = self.draw
        branch: dict[str, Any] = {"if": self.guard(1), "then": [self.action(depth) for _ in range(draw(st.integers(0, 2)))]}
        otherwise = draw(st.integers(0, 2))
        if otherwise == 1:
            branch["else"] = [self.action(depth) for _ in range(draw(st.integers(1, 2)))]
        elif otherwise == 2 and depth > 0:
            branch["else"] = [self.branch(depth - 1)]
        return branch


@st.composite
def scxml_subset_configs(draw: st.DrawFn) -> dict[str, Any]:
    tree = _Tree()
    _draw_tree(draw, tree, (), 0, list(_SUBSET_KEYS))
    builder = _SubsetBuilder(draw, tree)
    configs: dict[tuple[str, ...], dict[str, Any]] = {(): {}}
    for path in tree.order:
        configs[path] = {}
    for path in tree.order:
        config, kind = configs[path], tree.kinds[path]
        if kind in ("parallel", "final", "history"):
            config["type"] = kind
        if kind == "compound":
            config["initial"] = draw(st.sampled_from(tree.children(path)))[-1]
        if kind == "history":
            if draw(st.booleans()):
                config["history"] = draw(st.sampled_from(["deep", "shallow"]))
            # SCXML writes a history's default transition always, so the subset names it.
            siblings = [p for p in tree.children(path[:-1]) if p != path and tree.kinds[p] != "history"]
            config["target"] = builder.target(path, draw(st.sampled_from(siblings)))
            continue
        if kind == "final":
            if draw(st.booleans()):
                config["output"] = draw(json_values)
            continue
        if draw(st.booleans()):
            events = draw(st.lists(st.sampled_from(_SUBSET_EVENTS), min_size=1, max_size=3, unique=True))
            # XState's selection order (exact names, longer wildcards, `*`), which SCXML output keeps.
            events.sort(key=lambda e: (2, 0) if e == "*" else (1, -len(e)) if e.endswith(".*") else (0, 0))
            config["on"] = {e: [builder.transition(path) for _ in range(draw(st.integers(1, 2)))] for e in events}
        if draw(st.integers(0, 3)) == 0:
            config["always"] = [builder.transition(path, allow_targetless=False)]
        if draw(st.integers(0, 3)) == 0:
            delays = draw(st.lists(st.integers(0, 9000), min_size=1, max_size=2, unique=True))
            config["after"] = {str(d): builder.transition(path) for d in delays}
        if kind in ("compound", "parallel") and draw(st.integers(0, 2)) == 0:
            config["onDone"] = builder.transition(path)
        if draw(st.integers(0, 3)) == 0:
            ids = draw(st.lists(st.sampled_from(["fetcher", "timer", "poller"]), min_size=1, max_size=2, unique=True))
            invokes: list[dict[str, Any]] = []
            if draw(st.integers(0, 2)) == 0:
                ids = [""]
            for invoke_id in ids:
                invoke: dict[str, Any] = {"src": draw(st.sampled_from(["fetchUser", "timer.js", "child"]))}
                if invoke_id:
                    invoke["id"] = f"{invoke_id}_{path[-1].replace('ü', 'u')}"
                for key in ("onDone", "onError"):
                    if draw(st.booleans()):
                        invoke[key] = builder.transition(path)
                invokes.append(invoke)
            config["invoke"] = invokes
        for key in ("entry", "exit"):
            if draw(st.integers(0, 2)) == 0:
                config[key] = [builder.action(2) for _ in range(draw(st.integers(1, 3)))]
    for path in builder.needs_id:
        configs[path]["id"] = path[-1]
    for path in reversed(tree.order):
        parent = configs[path[:-1]]
        parent.setdefault("states", {})
        parent["states"] = {path[-1]: configs[path], **parent["states"]}
    root = configs[()]
    root["initial"] = draw(st.sampled_from(tree.children(())))[-1]
    if draw(st.booleans()):
        root = {"id": "m", **root}
    if draw(st.booleans()):
        root["context"] = draw(st.dictionaries(st.sampled_from(["count", "name", "items"]), json_values, max_size=3))
    return root
