"""The canonical model: JS key order, parse errors with paths, the round trip, the graph view."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from statekit.errors import MachineDefinitionError
from statekit.model import machine_graph, machine_to_config, parse_machine, unwrap_document
from statekit.model.jsorder import is_array_index, js_items, js_keys

# -- JavaScript key order ---------------------------------------------------------------------


def test_integer_like_keys_come_first_in_ascending_order() -> None:
    assert js_keys(["b", "10", "a", "2", "0"]) == ["0", "2", "10", "b", "a"]


@pytest.mark.parametrize("key", ["01", "00", "4294967295", "-1", "1.5", "1e3", " 1", "", "+1", "\u0661"])
def test_keys_that_are_not_array_indices(key: str) -> None:
    assert not is_array_index(key)


@pytest.mark.parametrize("key", ["0", "7", "10", "4294967294"])
def test_keys_that_are_array_indices(key: str) -> None:
    assert is_array_index(key)


def test_non_index_numeric_keys_keep_document_order() -> None:
    keys = ["z", "4294967295", "01", "3", "a", "4294967294"]
    assert js_keys(keys) == ["3", "4294967294", "z", "4294967295", "01", "a"]


def test_js_items_follow_js_keys() -> None:
    mapping = {"b": 1, "1": 2, "a": 3, "0": 4}
    assert js_items(mapping) == [("0", 4), ("1", 2), ("b", 1), ("a", 3)]


def test_state_children_are_in_js_key_order() -> None:
    model = parse_machine({"id": "m", "initial": "b", "states": {"b": {}, "10": {}, "01": {}, "2": {}}})
    assert [child.key for child in model.root.children] == ["2", "10", "b", "01"]


def test_event_descriptors_are_in_js_key_order() -> None:
    model = parse_machine({"id": "m", "initial": "a", "states": {"a": {"on": {"GO": "a", "5": "a", "1": "a"}}}})
    assert [t.event for t in model.nodes["m.a"].transitions] == ["1", "5", "GO"]


# -- parse errors carry config paths ----------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "path"),
    [
        ({"id": 5}, "id"),
        ({"states": []}, "states"),
        ({"initial": "a", "states": {"a": {"states": 3}}}, "states.a.states"),
        ({"initial": "a", "states": {"a": {"type": "weird"}}}, "states.a.type"),
        ({"initial": "a", "states": {"a": {"on": []}}}, "states.a.on"),
        ({"initial": "a", "states": {"a": {"on": {"GO": 5}}}}, "states.a.on.GO"),
        ({"initial": "a", "states": {"a": {"on": {"GO": ["a", 5]}}}}, "states.a.on.GO[1]"),
        ({"initial": "a", "states": {"a": {"on": {"GO": {"target": 3}}}}}, "states.a.on.GO.target"),
        ({"initial": "a", "states": {"a": {"on": {"GO": {"reenter": "yes"}}}}}, "states.a.on.GO.reenter"),
        ({"initial": "a", "states": {"a": {"on": {"GO": {"guard": 4}}}}}, "states.a.on.GO.guard"),
        (
            {"initial": "a", "states": {"a": {"on": {"GO": {"guard": {"type": "xstate.and", "guards": ["g", 1]}}}}}},
            "states.a.on.GO.guard.guards[1]",
        ),
        ({"initial": "a", "states": {"a": {"entry": ["ok", 7]}}}, "states.a.entry[1]"),
        ({"initial": "a", "states": {"a": {"exit": {"type": "xstate.sendTo", "to": 7, "event": {"type": "E"}}}}}, "states.a.exit.to"),
        ({"initial": "a", "states": {"a": {"entry": {"type": "xstate.raise"}}}}, "states.a.entry.event"),
        ({"initial": "a", "states": {"a": {"entry": {"type": "xstate.assign"}}}}, "states.a.entry.assignment"),
        ({"initial": "a", "states": {"a": {"after": [1]}}}, "states.a.after"),
        ({"initial": "a", "states": {"a": {"after": {"100": 3}}}}, "states.a.after.100"),
        ({"initial": "a", "states": {"a": {"invoke": {"id": "x"}}}}, "states.a.invoke[0].src"),
        ({"initial": "a", "states": {"a": {"invoke": [{"src": "s"}, 3]}}}, "states.a.invoke[1]"),
        ({"initial": "a", "states": {"a": {"invoke": {"src": "s", "onDone": 3}}}}, "states.a.invoke[0].onDone"),
        ({"initial": "a", "states": {"a": {"tags": ["x", 1]}}}, "states.a.tags"),
        ({"initial": "a", "states": {"a": {"description": 1}}}, "states.a.description"),
        ({"initial": "a", "states": {"a": {"type": "history", "history": "sideways"}}}, "states.a.history"),
        ({"initial": 3, "states": {"a": {}}}, "initial"),
    ],
)
def test_parse_errors_name_the_config_path(config: dict[str, Any], path: str) -> None:
    with pytest.raises(MachineDefinitionError) as raised:
        parse_machine(config)
    assert raised.value.path == path
    assert raised.value.message
    assert str(raised.value).startswith(f"{path}: ")


@pytest.mark.parametrize("document", [None, 3, "text", ["a"], {"machine": ["a"]}])
def test_non_object_documents_are_refused(document: Any) -> None:
    with pytest.raises(MachineDefinitionError) as raised:
        parse_machine(document if not isinstance(document, dict) else document["machine"])
    assert raised.value.path == ""


def test_states_nested_too_deep_are_refused_with_a_path() -> None:
    config: dict[str, Any] = {}
    inner = config
    for _ in range(250):
        inner["initial"] = "s"
        inner["states"] = {"s": {}}
        inner = inner["states"]["s"]
    with pytest.raises(MachineDefinitionError) as raised:
        parse_machine(config)
    assert raised.value.path.startswith("states.s.states.s")


# -- {"machine": config} wrapping -------------------------------------------------------------


def test_machine_wrapper_is_unwrapped() -> None:
    config = {"id": "w", "initial": "a", "states": {"a": {}}}
    assert parse_machine({"machine": config}) == parse_machine(config)
    assert unwrap_document({"machine": config}) is config


def test_machine_key_beside_other_keys_is_not_a_wrapper() -> None:
    document = {"machine": {"id": "w"}, "version": "1"}
    assert unwrap_document(document) is document
    model = parse_machine(document)
    assert model.id != "w"
    assert model.extra == {"machine": {"id": "w"}, "version": "1"}


def test_machine_wrapper_around_a_non_object_is_not_unwrapped() -> None:
    document = {"machine": "id: w"}
    assert unwrap_document(document) is document


# -- the round trip on hand-written machines --------------------------------------------------

EVERY_FEATURE: dict[str, Any] = {
    "id": "shop",
    "version": "2",
    "context": {"items": [], "total": 0, "nested": {"a": [1, 2.5, None, True]}},
    "initial": "browsing",
    "description": "a shop",
    "meta": {"owner": "team"},
    "output": {"done": True},
    "entry": ["boot", {"type": "track", "params": {"page": "home"}}],
    "exit": {"type": "xstate.log", "label": "bye"},
    "on": {"RESET": {"target": ".browsing", "reenter": True}, "*": {"actions": "logAny"}, "ui.*": "#shop.browsing"},
    "states": {
        "10": {"type": "final", "output": {"code": 10}},
        "2": {"description": "integer-like keys come first"},
        "browsing": {
            "tags": "open",
            "meta": {"view": "list"},
            "on": {
                "ADD": [
                    {
                        "target": "browsing",
                        "guard": {"type": "hasStock", "params": {"min": 1}},
                        "actions": [
                            {"type": "xstate.assign", "assignment": {"total": 1}},
                            {"type": "xstate.raise", "event": {"type": "ADDED"}, "delay": 10, "id": "added"},
                        ],
                        "description": "add an item",
                        "meta": {"x": 1},
                        "custom": "kept",
                    },
                    {"actions": {"type": "xstate.emit", "event": {"type": "OUT_OF_STOCK"}}},
                ],
                "CHECKOUT": {
                    "target": "checkout",
                    "guard": {
                        "type": "xstate.and",
                        "guards": [
                            "hasItems",
                            {"type": "xstate.not", "guard": {"type": "xstate.stateIn", "state": "#shop.browsing"}},
                            {"type": "xstate.or", "guards": ["a", {"type": "xstate.stateIn", "state": {"checkout": "form"}}]},
                        ],
                    },
                },
                "": "browsing",
            },
            "always": [{"target": "10", "guard": "isClosed"}, {"actions": "tick"}],
            "after": {"1000": "2", "slowDelay": {"target": "checkout", "actions": "warn"}, "1.5": "browsing"},
        },
        "checkout": {
            "id": "co",
            "type": "parallel",
            "entry": {
                "type": "xstate.enqueueActions",
                "actions": [
                    "first",
                    {"if": "paid", "then": [{"type": "xstate.sendParent", "event": {"type": "PAID"}}],
                     "else": [{"if": {"type": "xstate.not", "guard": "x"}, "then": ["nested"]}]},
                    {"if": "other", "then": []},
                ],
            },
            "invoke": [
                {
                    "src": "payment",
                    "id": "pay",
                    "input": {"amount": 3},
                    "systemId": "payments",
                    "onDone": {"target": "#shop.10", "actions": {"type": "xstate.stopChild", "actorRef": "pay"}},
                    "onError": ["#shop.browsing", {"target": "#shop.2"}],
                    "onSnapshot": {"actions": "progress"},
                    "extraInvokeKey": [1],
                },
                {"src": "audit"},
            ],
            "onDone": {"target": "10"},
            "states": {
                "form": {
                    "initial": "editing",
                    "states": {
                        "editing": {"on": {"SUBMIT": "submitted", "SEND": {
                            "actions": [
                                {"type": "xstate.sendTo", "to": "pay", "event": {"type": "GO"}, "delay": "later", "id": "s1"},
                                {"type": "xstate.cancel", "sendId": "s1"},
                                {"type": "xstate.spawnChild", "src": "helper", "id": "h", "input": {"n": 1}, "systemId": "hs"},
                            ]
                        }}},
                        "submitted": {"type": "final"},
                        "hist": {"type": "history", "history": "deep", "target": "submitted"},
                        "shallowHist": {"history": True},
                        "plainHist": {"type": "history"},
                    },
                },
                "shipping": {"initial": {"target": "home"}, "states": {"home": {}, "away": {"type": "atomic"}}},
            },
        },
    },
}


@pytest.mark.parametrize(
    "config",
    [
        EVERY_FEATURE,
        {"initial": "a", "states": {"a": {}}},
        {},
        {"type": "parallel", "states": {"x": {}, "y": {"type": "final"}}},
        {"id": "solo", "context": None},
        {"id": "t", "initial": "a", "states": {"a": {"on": {"GO": ["b", "c"]}}, "b": {}, "c": {}}},
        {"id": "t", "initial": "a", "states": {"a": {"on": {"GO": {"target": ["b", "c"]}}}, "b": {}, "c": {}}},
        {"id": "t", "initial": "a", "states": {"a": {"on": {"GO": {"target": ""}}, "after": {"named": None}}}},
    ],
)
def test_round_trip_of_hand_written_machines(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    written = machine_to_config(model)
    assert parse_machine(written) == model
    # The written config is plain JSON, and writing is a fixed point.
    assert parse_machine(json.loads(json.dumps(written))) == model
    assert machine_to_config(parse_machine(written)) == written


def test_round_trip_keeps_every_feature_visible_in_the_model() -> None:
    model = parse_machine(EVERY_FEATURE)
    nodes = model.nodes
    assert model.id == "shop" and model.has_context and model.extra == {"version": "2"}
    assert [c.key for c in model.root.children] == ["2", "10", "browsing", "checkout"]
    assert nodes["co"].type == "parallel" and nodes["co"].explicit_id == "co"
    assert nodes["shop.checkout.form.hist"].history == "deep"
    assert nodes["shop.checkout.form.shallowHist"].type == "history"
    assert nodes["shop.checkout.form.shallowHist"].history == "shallow"
    assert nodes["shop.checkout.shipping"].initial == "home"
    assert nodes["shop.browsing"].tags == ("open",)
    kinds = {t.kind for t in model.transitions()}
    assert kinds == {"on", "always", "after", "onDone", "invoke.onDone", "invoke.onError", "invoke.onSnapshot"}
    add = [t for t in nodes["shop.browsing"].transitions if t.event == "ADD"]
    assert [t.index for t in add] == [0, 1] and add[0].extra == {"custom": "kept"}
    delays = [t.delay for t in nodes["shop.browsing"].transitions if t.kind == "after"]
    assert delays == [1000, "slowDelay", 1.5]
    assert nodes["co"].invoke[0].extra == {"extraInvokeKey": [1]}
    assert nodes["co"].invoke[1].id == "1.co"


def test_round_trip_keeps_history_key_on_a_non_history_state() -> None:
    # `history` on a state that is not a history state is recorded in the model
    # (`history_given`) but never written back, so the round trip loses it.
    model = parse_machine({"initial": "a", "states": {"a": {"type": "atomic", "history": "deep"}}})
    assert parse_machine(machine_to_config(model)) == model


def test_round_trip_keeps_after_order_for_non_canonical_numeric_delays() -> None:
    # `1e3` is not an array index, so it keeps its document place after `slow`;
    # written back as "1000" it becomes an array index and moves first.
    model = parse_machine({"initial": "a", "states": {"a": {"after": {"slow": "a", "1e3": "a"}}}})
    assert parse_machine(machine_to_config(model)) == model


# -- the round trip as a property ------------------------------------------------------------

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-1000, 1000), st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=6),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)
names = st.sampled_from(["go", "check", "isOk", "notify", "x.y", "0", "7", "üñí", "a b"])
state_keys = st.sampled_from(["a", "b", "c", "0", "1", "10", "01", "idle", "x.y", "#h", "ü", "4294967295"])
targets = st.sampled_from(["a", "b", ".c", "#m", "#m.a", "#h", "a.b", "0", "x\\.y"])
descriptors = st.sampled_from(["GO", "STOP", "*", "ui.*", "1", "0", "10", "a.b", "ü"])
delay_keys = st.sampled_from(["0", "100", "1000", "1.5", "slow", "fast"])
events = st.builds(lambda t, extra: {"type": t, **extra}, names, st.dictionaries(st.sampled_from(["v", "n"]), json_scalars, max_size=2))

guards = st.recursive(
    st.one_of(
        names,
        st.builds(lambda n, p: {"type": n, "params": p}, names, json_values),
        st.builds(lambda s: {"type": "xstate.stateIn", "state": s}, st.one_of(targets, st.just({"a": "b"}))),
    ),
    lambda inner: st.one_of(
        st.builds(lambda gs: {"type": "xstate.and", "guards": gs}, st.lists(inner, max_size=3)),
        st.builds(lambda gs: {"type": "xstate.or", "guards": gs}, st.lists(inner, max_size=3)),
        st.builds(lambda g: {"type": "xstate.not", "guard": g}, inner),
    ),
    max_leaves=4,
)

optional_delay = st.one_of(st.just({}), st.builds(lambda d: {"delay": d}, st.one_of(st.integers(0, 5000), st.just("slow"))))
optional_id = st.one_of(st.just({}), st.builds(lambda i: {"id": i}, names))

builtin_actions = st.one_of(
    st.builds(lambda a: {"type": "xstate.assign", "assignment": a}, st.dictionaries(names, json_values, max_size=3)),
    st.builds(lambda e, d, i: {"type": "xstate.raise", "event": e, **d, **i}, events, optional_delay, optional_id),
    st.builds(lambda to, e, d: {"type": "xstate.sendTo", "to": to, "event": e, **d}, names, events, optional_delay),
    st.builds(lambda e: {"type": "xstate.sendParent", "event": e}, events),
    st.builds(lambda e: {"type": "xstate.emit", "event": e}, events),
    st.builds(lambda v, lab: {"type": "xstate.log", **v, **lab},
              st.one_of(st.just({}), st.builds(lambda x: {"value": x}, json_values)),
              st.one_of(st.just({}), st.builds(lambda x: {"label": x}, names))),
    st.builds(lambda s: {"type": "xstate.cancel", "sendId": s}, names),
    st.builds(lambda s, i, inp: {"type": "xstate.spawnChild", "src": s, **i, **inp}, names, optional_id,
              st.one_of(st.just({}), st.builds(lambda x: {"input": x}, json_values))),
    st.builds(lambda r: {"type": "xstate.stopChild", "actorRef": r}, names),
)
simple_actions = st.one_of(names, st.builds(lambda n, p: {"type": n, "params": p}, names, json_values), builtin_actions)
enqueued_items = st.recursive(
    simple_actions,
    lambda inner: st.builds(
        lambda g, then, otherwise: {"if": g, "then": then, **({"else": otherwise} if otherwise else {})},
        guards, st.lists(inner, max_size=2), st.lists(inner, max_size=2),
    ),
    max_leaves=4,
)
actions = st.one_of(
    simple_actions,
    st.builds(lambda items: {"type": "xstate.enqueueActions", "actions": items}, st.lists(enqueued_items, max_size=3)),
)
action_lists = st.one_of(actions, st.lists(actions, min_size=1, max_size=3))


@st.composite
def transition_objects(draw: st.DrawFn) -> Any:
    item: dict[str, Any] = {}
    target = draw(st.one_of(st.none(), targets, st.lists(targets, min_size=2, max_size=3)))
    if target is not None:
        item["target"] = target
    if draw(st.booleans()):
        item["guard"] = draw(guards)
    if draw(st.booleans()):
        item["actions"] = draw(action_lists)
    if draw(st.booleans()):
        item["reenter"] = draw(st.booleans())
    if draw(st.booleans()):
        item["description"] = draw(st.text(max_size=8))
    if draw(st.booleans()):
        item["meta"] = draw(st.dictionaries(st.text(max_size=3), json_values, min_size=1, max_size=2))
    if draw(st.integers(0, 5)) == 0:
        item["x-extra"] = draw(json_values)
    return item


transition_values = st.one_of(targets, transition_objects(), st.lists(st.one_of(targets, transition_objects()), min_size=1, max_size=3))


@st.composite
def invoke_configs(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {"src": draw(names)}
    if draw(st.booleans()):
        item["id"] = draw(names)
    if draw(st.booleans()):
        item["input"] = draw(json_values)
    if draw(st.booleans()):
        item["systemId"] = draw(names)
    for key in ("onDone", "onError", "onSnapshot"):
        if draw(st.booleans()):
            item[key] = draw(transition_values)
    return item


@st.composite
def state_configs(draw: st.DrawFn, depth: int) -> dict[str, Any]:
    kinds = ["atomic", "final", "history"] + (["compound", "parallel"] * 2 if depth < 3 else [])
    kind = draw(st.sampled_from(kinds))
    config: dict[str, Any] = {}
    if kind in ("compound", "parallel"):
        keys = draw(st.lists(state_keys, min_size=1, max_size=3 - depth, unique=True))
        config["states"] = {key: draw(state_configs(depth + 1)) for key in keys}
        if kind == "compound":
            config["initial"] = draw(st.sampled_from(keys))
            if draw(st.booleans()):
                config["type"] = "compound"
        else:
            config["type"] = "parallel"
        if draw(st.booleans()):
            config["onDone"] = draw(transition_values)
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
                config["type"] = "history"
        if draw(st.booleans()):
            config["target"] = draw(st.one_of(targets, st.lists(targets, min_size=1, max_size=2)))
        return config
    elif draw(st.booleans()):
        config["type"] = "atomic"
    if draw(st.booleans()):
        config["on"] = draw(st.dictionaries(descriptors, transition_values, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        config["always"] = draw(transition_values)
    if draw(st.integers(0, 3)) == 0:
        config["after"] = draw(st.dictionaries(delay_keys, transition_values, min_size=1, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        invokes = draw(st.lists(invoke_configs(), min_size=1, max_size=2))
        config["invoke"] = invokes[0] if len(invokes) == 1 and draw(st.booleans()) else invokes
    for key in ("entry", "exit"):
        if draw(st.integers(0, 2)) == 0:
            config[key] = draw(action_lists)
    if draw(st.booleans()):
        config["tags"] = draw(st.one_of(names, st.lists(names, max_size=3)))
    if draw(st.integers(0, 3)) == 0:
        config["meta"] = draw(st.dictionaries(st.text(max_size=3), json_values, min_size=1, max_size=2))
    if draw(st.integers(0, 3)) == 0:
        config["description"] = draw(st.text(max_size=10))
    if draw(st.integers(0, 4)) == 0:
        config["id"] = draw(st.sampled_from(["h", "custom", "m"]))
    return config


@st.composite
def machine_configs(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(state_configs(0))
    config.pop("id", None)
    if draw(st.booleans()):
        config["id"] = draw(st.sampled_from(["m", "machine", "x.y"]))
    if draw(st.booleans()):
        config["context"] = draw(json_values)
    if draw(st.integers(0, 3)) == 0:
        config["version"] = "1"
    return config


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(machine_configs())
def test_round_trip_property(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    written = machine_to_config(model)
    assert parse_machine(written) == model
    assert parse_machine(json.loads(json.dumps(written))) == model
    assert machine_to_config(parse_machine(written)) == written
    assert parse_machine({"machine": config}) == model


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(machine_configs())
def test_graph_is_derived_consistently_from_the_tree(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    graph = machine_graph(model)
    assert [n.id for n in graph.nodes] == [n.id for n in model.root.walk()]
    node_ids = {n.id for n in graph.nodes}
    for node in graph.nodes:
        assert node.parent_id is None or node.parent_id in node_ids
    transition_ids = {t.id for t in model.transitions()}
    for edge in graph.edges:
        assert edge.transition_id in transition_ids
        assert edge.source_id in node_ids and edge.target_id in node_ids
        if edge.targetless:
            assert edge.target_id == edge.source_id
    # Graph and transition ids do not depend on how the config was written.
    rewritten = machine_graph(parse_machine(machine_to_config(model)))
    assert rewritten == graph


# -- graph view -------------------------------------------------------------------------------

GRAPH_MACHINE: dict[str, Any] = {
    "id": "g",
    "initial": "a",
    "states": {
        "a": {
            "on": {
                "GO": [{"target": "b", "guard": "ok"}, {"target": ["#g.p.x.x2", "#g.p.y"]}],
                "PING": {"actions": "pong"},
                "BAD": "nowhere",
            },
            "always": {"target": "b", "guard": "auto"},
            "after": {"500": "b"},
        },
        "b": {"invoke": {"src": "svc", "id": "job", "onDone": "p", "onError": ".inner"}, "initial": "inner", "states": {"inner": {}}},
        "p": {
            "type": "parallel",
            "onDone": "a",
            "states": {"x": {"initial": "x1", "states": {"x1": {}, "x2": {}}}, "y": {}},
        },
    },
}


def test_graph_nodes_have_parent_ids_and_initial_ids() -> None:
    graph = machine_graph(parse_machine(GRAPH_MACHINE))
    by_id = {n.id: n for n in graph.nodes}
    assert by_id["g"].parent_id is None and by_id["g"].initial_id == "g.a"
    assert by_id["g.p.x.x1"].parent_id == "g.p.x"
    assert by_id["g.p"].type == "parallel" and by_id["g.p"].initial_id is None
    assert by_id["g.b"].initial_id == "g.b.inner"
    assert [n.key for n in graph.nodes][:3] == ["g", "a", "b"]


def test_graph_edges_cover_targetless_multi_target_and_unresolved() -> None:
    graph = machine_graph(parse_machine(GRAPH_MACHINE))
    edges = {e.id: e for e in graph.edges}
    assert edges["g.a:GO:0"].target_id == "g.b" and not edges["g.a:GO:0"].targetless
    # A transition with two targets gives one edge per target, sharing the transition id.
    assert edges["g.a:GO:1/0"].target_id == "g.p.x.x2"
    assert edges["g.a:GO:1/1"].target_id == "g.p.y"
    assert edges["g.a:GO:1/0"].transition_id == edges["g.a:GO:1/1"].transition_id == "g.a:GO:1"
    # A targetless transition points at its own source.
    assert edges["g.a:PING:0"].targetless and edges["g.a:PING:0"].target_id == "g.a"
    # An unresolvable target is left out; the validator reports it.
    assert not any(e.transition_id == "g.a:BAD:0" for e in graph.edges)
    assert edges["g.a:always:0"].kind == "always" and edges["g.a:always:0"].event == ""
    assert edges["g.a:xstate.after.500.g.a:0"].kind == "after"
    by_kind = {e.kind: e for e in graph.edges if e.source_id == "g.b"}
    assert by_kind["invoke.onDone"].event == "xstate.done.actor.job" and by_kind["invoke.onDone"].target_id == "g.p"
    assert by_kind["invoke.onError"].event == "xstate.error.actor.job" and by_kind["invoke.onError"].target_id == "g.b.inner"
    assert edges["g.p:onDone:0"].event == "xstate.done.state.g.p"


def test_transition_ids_are_stable_across_parses_and_key_orders() -> None:
    first = [t.id for t in parse_machine(GRAPH_MACHINE).transitions()]
    reordered = json.loads(json.dumps(GRAPH_MACHINE))
    reordered["states"]["a"] = dict(reversed(list(reordered["states"]["a"].items())))
    second = [t.id for t in parse_machine(reordered).transitions()]
    assert first == second
    assert len(set(first)) == len(first)


def test_transition_ids_are_unique_with_several_invokes() -> None:
    # Two invokes of one state each with an `onDone` get the same id
    # `<state>:invoke.onDone:0`, because the invoke index is not part of the id.
    model = parse_machine(
        {"initial": "a", "states": {"a": {"invoke": [{"src": "x", "onDone": "a"}, {"src": "y", "onDone": "a"}]}}}
    )
    ids = [t.id for t in model.transitions()]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize(("field", "name", "missing"), [
    ("guard", "xstate.not", "guard"), ("guard", "xstate.and", "guards"), ("guard", "xstate.stateIn", "state"),
    ("actions", "xstate.assign", "assignment"), ("actions", "xstate.raise", "event"),
])
def test_a_builtins_bare_name_is_refused_as_its_object_would_be(field: str, name: str, missing: str) -> None:
    """`guard: "xstate.not"` has no operand (a diagram label can say it; the model must not hold it)."""
    with pytest.raises(MachineDefinitionError, match=missing):
        parse_machine({"initial": "a", "states": {"a": {"on": {"GO": {"target": "b", field: name}}}, "b": {}}})


def test_a_builtin_without_fields_by_its_name_is_still_that_builtin() -> None:
    model = parse_machine({"initial": "a", "states": {"a": {"entry": "xstate.log"}}})
    assert model.root.children[0].entry[0].is_builtin
