"""Hypothesis strategies for random XState machine configs (used by the diff/patch properties)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

KEYS = ["a", "b", "c", "d", "e"]
EVENTS = ["GO", "STOP", "NEXT", "task.*"]
GUARDS: list[Any] = [None, None, "isReady", "isLate", {"type": "hasRole", "params": {"role": "admin"}}]
ACTIONS: list[Any] = ["log", "save", {"type": "track", "params": {"k": 1}}, {"type": "track"}]


@st.composite
def machine_configs(draw: st.DrawFn, max_depth: int = 2) -> dict[str, Any]:
    """A random but well-formed machine: ids `m.<path>`, targets written as siblings or `#id`."""
    root: dict[str, Any] = {"id": "m"}
    ids: list[tuple[str, ...]] = []
    _fill_children(draw, root, (), max_depth, ids)
    _add_transitions(draw, root, (), ids)
    if draw(st.booleans()):
        root["context"] = draw(st.sampled_from([{"count": 0}, {"count": 1, "name": "x"}, {}]))
    if draw(st.integers(0, 3)) == 0:
        root["schemas"] = {"context": {"type": "object"}}
    if draw(st.integers(0, 3)) == 0:
        root["description"] = draw(st.sampled_from(["A machine", "Another"]))
    if draw(st.integers(0, 4)) == 0:
        _state_data(draw, root)
    if draw(st.integers(0, 5)) == 0:
        root["output"] = {"result": draw(st.integers(0, 2))}
    for path in ids:
        config = _node(root, path)
        if config.get("type") == "history" and draw(st.booleans()):
            siblings = [p for p in ids if p[:-1] == path[:-1] and p != path and _node(root, p).get("type") != "history"]
            if siblings:
                config["target"] = draw(st.sampled_from(siblings))[-1]
    return root


def _fill_children(draw: st.DrawFn, config: dict[str, Any], path: tuple[str, ...], depth: int,
                   ids: list[tuple[str, ...]]) -> None:
    count = draw(st.integers(1 if not path else 0, 3 if depth > 0 else 0))
    if count == 0:
        return
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=count, max_size=count, unique=True))
    parallel = bool(path) and draw(st.integers(0, 4)) == 0
    if parallel:
        config["type"] = "parallel"
    states: dict[str, Any] = {}
    for key in keys:
        child: dict[str, Any] = {}
        child_path = (*path, key)
        if draw(st.integers(0, 7)) == 0:
            child["id"] = "id_" + "_".join(child_path)
        ids.append(child_path)
        kind = draw(st.integers(0, 9))
        if kind == 0 and not parallel:
            child["type"] = "final"
            if draw(st.booleans()):
                child["output"] = {"done": True}
        elif kind == 1 and not parallel:
            child["type"] = "history"
            child["history"] = draw(st.sampled_from(["shallow", "deep"]))
        else:
            _fill_children(draw, child, child_path, depth - 1, ids)
            if kind == 2 and "states" in child:
                child["type"] = "compound"
        _state_data(draw, child)
        states[key] = child
    config["states"] = states
    if not parallel:
        candidates = [k for k in keys if states[k].get("type") != "history"] or keys
        config["initial"] = draw(st.sampled_from(candidates))


def _state_data(draw: st.DrawFn, child: dict[str, Any]) -> None:
    if draw(st.integers(0, 3)) == 0:
        child["entry"] = draw(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=3))
    if draw(st.integers(0, 4)) == 0:
        child["exit"] = draw(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=2))
    if draw(st.integers(0, 4)) == 0:
        child["tags"] = draw(st.lists(st.sampled_from(["busy", "idle", "error"]), min_size=1, max_size=2, unique=True))
    if draw(st.integers(0, 5)) == 0:
        child["meta"] = {"note": draw(st.sampled_from(["x", "y"]))}
    if draw(st.integers(0, 5)) == 0:
        child["description"] = draw(st.sampled_from(["Waiting", "Working"]))
    if child.get("type") not in ("final", "history") and draw(st.integers(0, 5)) == 0:
        invokes = []
        for index in range(draw(st.integers(1, 2))):
            invoke: dict[str, Any] = {"src": draw(st.sampled_from(["fetcher", "timer"]))}
            if draw(st.booleans()):
                invoke["id"] = f"job{index}"
            if draw(st.booleans()):
                invoke["input"] = {"n": index}
            invokes.append(invoke)
        child["invoke"] = invokes


def _node(root: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    config = root
    for key in path:
        config = config["states"][key]
    return config


def _target(draw: st.DrawFn, source: tuple[str, ...], ids: list[tuple[str, ...]]) -> str:
    target = draw(st.sampled_from(ids))
    if len(source) >= 1 and target[:-1] == source[:-1] and draw(st.booleans()):
        return target[-1]
    return "#" + ".".join(("m", *target))


def _transition(draw: st.DrawFn, source: tuple[str, ...], ids: list[tuple[str, ...]]) -> Any:
    item: dict[str, Any] = {}
    if draw(st.integers(0, 5)) != 0:
        item["target"] = _target(draw, source, ids)
    guard = draw(st.sampled_from(GUARDS))
    if guard is not None:
        item["guard"] = guard
    if draw(st.integers(0, 2)) == 0:
        item["actions"] = draw(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=3))
    if draw(st.integers(0, 6)) == 0:
        item["reenter"] = draw(st.booleans())
    if draw(st.integers(0, 8)) == 0:
        item["description"] = "why"
    return item


def _add_transitions(draw: st.DrawFn, root: dict[str, Any], _: tuple[str, ...], ids: list[tuple[str, ...]]) -> None:
    for path in ids:
        config = _node(root, path)
        if config.get("type") in ("final", "history"):
            continue
        for event in draw(st.lists(st.sampled_from(EVENTS), max_size=2, unique=True)):
            config.setdefault("on", {})[event] = [_transition(draw, path, ids)
                                                 for _ in range(draw(st.integers(1, 2)))]
        if draw(st.integers(0, 6)) == 0:
            config["always"] = [_transition(draw, path, ids)]
        if draw(st.integers(0, 5)) == 0:
            config["after"] = {draw(st.sampled_from(["100", "200"])): _transition(draw, path, ids)}
        if "states" in config and draw(st.integers(0, 5)) == 0:
            config["onDone"] = _transition(draw, path, ids)
        for invoke in config.get("invoke", []):
            if draw(st.booleans()):
                invoke["onDone"] = _transition(draw, path, ids)
            if draw(st.integers(0, 3)) == 0:
                invoke["onError"] = [_transition(draw, path, ids), _transition(draw, path, ids)]
