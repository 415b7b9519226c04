"""`generate_graph_paths`: agreement with real @xstate/graph 3.0.4, coverage, limits, errors.

The agreement test runs every case of tests/oracle/graph/corpus.py through
tests/oracle/graph/paths.mjs (real XState in node) and through statekit, and compares every
path: its end state, its steps (event and state) and its weight, in XState's order. It skips
without tests/oracle/node_modules unless CI is set.
"""

from __future__ import annotations

import copy
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from node_oracle import node_ready, oracle_module, run_node
from statekit import create_machine, initial_transition, transition
from statekit.analysis.implemented import ImplementedMachine
from statekit.analysis.paths import (
    DEFAULT_LIMIT,
    MAX_MAX_PATHS,
    EventEnumerator,
    explore,
    explore_model,
    generate_graph_paths,
)
from statekit.analysis.paths_trace import initial_transitions, step_transitions
from statekit.analysis.simulate import build_simulation_machine
from statekit.budget import CallBudget
from statekit.engine.evaluation import plain_json
from statekit.errors import ToolError
from statekit.model import parse_machine
from statekit.tools import call

ORACLE = Path(__file__).resolve().parents[1] / "oracle"
GRAPH = ORACLE / "graph"
sys.path.insert(0, str(GRAPH))
import corpus  # noqa: E402

CASES = corpus.cases()
GRAPH_PACKAGE = ORACLE / "node_modules" / "@xstate" / "graph"
HAVE_ORACLE = node_ready([GRAPH_PACKAGE])
needs_oracle = pytest.mark.needs(HAVE_ORACLE, "node and @xstate/graph", "cd tests/oracle && npm ci")

PLAYER = corpus.PLAYER


@cache
def xstate_results() -> dict[str, dict[str, Any]]:
    """Every corpus case through @xstate/graph, by name."""
    results = run_node(GRAPH / "paths.mjs", stdin=json.dumps(CASES), packages=[GRAPH_PACKAGE],
                       development=False, cwd=ORACLE, timeout=300)
    return {result["name"]: result for result in results}


def js_json(value: Any) -> str:
    """`JSON.stringify(value)` for the plain data of the corpus."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def statekit_result(case: dict[str, Any]) -> dict[str, Any]:
    """The case through statekit with every path returned, or `{error}` as the driver reports it."""
    options: dict[str, Any] = {
        "events": case.get("events") and [{"type": e} if isinstance(e, str) else e for e in case["events"]],
        "to_state": case.get("toState"), "from_state": case.get("fromState"), "limit": case.get("limit"),
        "guards": case.get("guards"), "input_value": case.get("input"),
    }
    model = ImplementedMachine.of_config(parse_machine(case["config"]))
    try:
        result = generate_graph_paths(model, case["algorithm"], max_paths=10**9, **options)
        graph = explore_model(model, **options).graph
    except ToolError as error:
        return {"name": case["name"], "error": error.message}
    adjacency = [
        [js_json({"value": state.value, "context": plain_json(state.context)} if state.context else {"value": state.value}),
         [js_json(edge.event) for edge in edges]]
        for state, edges in zip(graph.states, graph.edges, strict=True)
    ]
    return {"name": case["name"], "paths": result["paths"], "totalCount": result["totalCount"], "adjacency": adjacency,
            "truncatedReason": result["truncatedReason"]}


def test_corpus_is_large_enough() -> None:
    assert len(corpus.MACHINES) >= 60
    assert len({case["name"] for case in CASES}) == len(CASES)


@needs_oracle
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_agrees_with_xstate_graph(case: dict[str, Any]) -> None:
    expected = xstate_results()[case["name"]]
    actual = statekit_result(case)
    if "error" in expected and "Traversal limit exceeded" in expected["error"]:
        # XState throws; statekit answers with the paths of the states it explored.
        assert actual.get("truncatedReason") == "limit", actual
        return
    if "error" in expected:
        assert "error" in actual, f"XState threw {expected['error']!r}; statekit found paths"
        assert expected["error"] in actual["error"]
        return
    assert "error" not in actual, actual.get("error")
    # The same states explored, in the same order, with the same events tried in each.
    assert actual["adjacency"] == expected["adjacency"]
    assert actual["totalCount"] == len(expected["paths"])
    # Same reachable states, same lengths, same paths, in the same order.
    assert [p["state"] for p in actual["paths"]] == [p["state"] for p in expected["paths"]]
    assert [p["weight"] for p in actual["paths"]] == [p["weight"] for p in expected["paths"]]
    assert actual["paths"] == expected["paths"]


@needs_oracle
def test_the_tool_returns_xstates_first_five() -> None:
    for case in CASES:
        expected = xstate_results()[case["name"]]
        if "error" in expected or case.get("input") is not None:
            continue
        arguments: dict[str, Any] = {"machine": case["config"], "algorithm": case["algorithm"]}
        for option in ("events", "toState", "fromState", "limit", "guards"):
            if option in case:
                arguments[option] = case[option]
        result = call("generate_graph_paths", arguments)
        assert result["paths"] == expected["paths"][:5], case["name"]
        assert result["totalCount"] == len(expected["paths"])
        assert result["truncated"] == (len(expected["paths"]) > 5)


# -- the traced macrostep used for transition coverage -----------------------------------


def test_traced_steps_end_where_the_engine_does() -> None:
    """paths_trace replays the engine's macrostep; on every corpus edge it must agree with it."""
    checked = 0
    for name, entry in corpus.MACHINES.items():
        config = {key: value for key, value in entry.items() if key not in corpus.OPTION_KEYS}
        model = ImplementedMachine.of_config(parse_machine(config))
        machine, _ = build_simulation_machine(model, entry.get("guards"))
        initial, _actions = initial_transition(machine, entry.get("input"))
        context = copy.deepcopy(model.model.context) if model.model.context else {}
        traced_initial, _taken = initial_transitions(machine, context, entry.get("input"))
        assert (traced_initial.value, traced_initial.context) == (initial.value, initial.context), name
        if name.startswith(("wildcard_star", "limit_")):
            continue
        graph = explore(machine, initial, EventEnumerator(), DEFAULT_LIMIT, None)
        for state, edges in zip(graph.states, graph.edges, strict=True):
            for edge in edges:
                expected, _ = transition(machine, state, edge.event)
                traced, _ = step_transitions(state, edge.event)
                assert (traced.value, traced.context, traced.status) == (expected.value, expected.context, expected.status)
                checked += 1
    assert checked > 300


def _without_actions(config: Any) -> Any:
    """The config with every action and eventless transition removed: most steps become pure."""
    if isinstance(config, list):
        return [_without_actions(item) for item in config]
    if not isinstance(config, dict):
        return config
    return {key: _without_actions(value) for key, value in config.items()
            if key not in ("entry", "exit", "actions", "always")}


def _pure_step_machines() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(name, config, options): the paths corpus, generated machines, and both without actions."""
    random_machines = oracle_module("random_machines.py")
    found: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for name, entry in corpus.MACHINES.items():
        if name.startswith(("wildcard_star", "limit_")):
            continue
        config = {key: value for key, value in entry.items() if key not in corpus.OPTION_KEYS}
        options = {"guards": entry.get("guards"), "input": entry.get("input")}
        found += [(name, config, options), (f"{name} without actions", _without_actions(config), options)]
    for seed in range(80):  # with their actions, most generated machines' steps run something
        case = random_machines.random_case(seed)
        options = {"guards": case.get("guards"), "input": case.get("input")}
        found.append((f"{case['name']} without actions", _without_actions(case["config"]), options))
    return found


def test_pure_steps_are_the_engines_steps() -> None:
    """paths_step's cheap step must give what `transition()` gives, object for object, on every edge."""
    from collections import deque

    from statekit.analysis.paths_step import Moved, PureSteps
    from statekit.errors import EngineError

    checked = {"same": 0, "moved": 0}
    for name, config, options in _pure_step_machines():
        try:
            model = ImplementedMachine.of_config(parse_machine(config))
            machine, _ = build_simulation_machine(model, options["guards"])
        except Exception:  # a generated machine the engine refuses is no test of the step
            continue
        machine.max_iterations = 50  # a generated eventless or raised cycle fails fast
        start, _actions = initial_transition(machine, options["input"])
        if start.status == "error":
            continue
        steps = PureSteps(machine)
        seen = {start.node_set}
        queue = deque([start])
        while queue and len(seen) < 200:
            state = queue.popleft()
            for _key, event in EventEnumerator()(state):
                if event["type"] == "*":
                    continue
                try:
                    expected, _ = transition(machine, state, event)
                except EngineError:
                    continue
                got = steps.step(state, event)
                if got is not None:
                    result, taken = got
                    _traced, expected_taken = step_transitions(state, event)
                    assert list(taken) == expected_taken, (name, state.value, event)
                    if expected is state:
                        assert result is state, (name, state.value, event)
                        checked["same"] += 1
                    else:
                        checked["moved"] += 1
                        assert isinstance(result, Moved), (name, state.value, event)
                        built = result.snapshot()
                        assert built.nodes == expected.nodes, (name, state.value, event)
                        assert (built.value, built.is_proper(), built.status) == \
                            (expected.value, expected.is_proper(), expected.status), (name, state.value, event)
                        assert built.context is expected.context and built.history == expected.history
                        assert built.children == expected.children
                if expected.node_set not in seen:
                    seen.add(expected.node_set)
                    queue.append(expected)
    assert checked["same"] > 200 and checked["moved"] > 800, checked


# -- the tool ------------------------------------------------------------------------------


def paths(machine: Any, algorithm: str = "shortest", **options: Any) -> dict[str, Any]:
    return call("generate_graph_paths", {"machine": machine, "algorithm": algorithm, **options})


def test_player_shortest_paths_shape() -> None:
    result = paths(PLAYER)
    assert [p["state"]["value"] for p in result["paths"]] == ["paused", "playing", "stopped"]
    stopped = result["paths"][2]
    assert stopped["weight"] == 2
    assert stopped["steps"] == [
        {"state": {"value": "paused", "context": {}}, "event": {"type": "xstate.init"}},
        {"state": {"value": "playing", "context": {}}, "event": {"type": "PLAY"}},
        {"state": {"value": "stopped", "context": {}}, "event": {"type": "STOP"}},
    ]
    assert result["totalCount"] == 3 and result["truncated"] is False
    assert result["execution"]["statesExplored"] == 3
    assert result["execution"]["events"] == "machine"


def test_at_most_five_paths_and_the_rest_counted() -> None:
    result = paths(corpus.chain(12))
    assert len(result["paths"]) == 5
    assert [p["weight"] for p in result["paths"]] == [0, 1, 2, 3, 4]
    assert result["totalCount"] == 12 and result["truncated"] is True


def test_algorithm_defaults_to_shortest() -> None:
    """Issue 23.6: the tool needs no `algorithm` (the CLI already defaulted to shortest)."""
    result = call("generate_graph_paths", {"machine": PLAYER})
    assert result == paths(PLAYER, "shortest")
    assert result["execution"]["algorithm"] == "shortest"


def test_max_paths_raises_the_cap_of_five() -> None:
    result = paths(corpus.chain(12), maxPaths=12)
    assert [p["weight"] for p in result["paths"]] == list(range(12))
    assert result["totalCount"] == 12 and result["truncated"] is False and result["truncatedReason"] is None
    result = paths(corpus.MACHINES["complete_graph_4"], "simple", maxPaths=7)
    assert len(result["paths"]) == 7 and result["totalCount"] == 16 and result["truncatedReason"] == "paths"


def test_many_paths_stay_within_the_output_budget() -> None:
    """A large maxPaths gives as many paths as fit in half the call's output budget, each
    charged as it is built: a shorter list (truncatedReason paths), never output_too_large."""
    limit = 64 * 1024
    budget = CallBudget(seconds=None, max_output_bytes=limit)
    result = call("generate_graph_paths", {"machine": corpus.chain(300), "maxPaths": MAX_MAX_PATHS}, budget=budget)
    returned = len(result["paths"])
    assert 0 < returned < 300 and result["totalCount"] == 300
    assert result["truncated"] is True and result["truncatedReason"] == "paths"
    assert [p["weight"] for p in result["paths"]] == list(range(returned))
    size = sum(len(json.dumps(path, ensure_ascii=False, separators=(",", ":"))) for path in result["paths"])
    assert size <= limit // 2  # the rest of the result has room
    assert budget.output_bytes >= size  # the paths were charged as they were built


def test_simple_paths_count_every_path() -> None:
    result = paths(corpus.MACHINES["complete_graph_4"], "simple")
    # From a in K4: 1 + 3 + 3*2 + 3*2*1 simple paths.
    assert result["totalCount"] == 16
    assert len(result["paths"]) == 5


def test_coverage_counts_all_paths_not_only_the_returned_ones() -> None:
    result = paths(corpus.chain(12, final=True))
    states = result["coverage"]["states"]
    assert (states["covered"], states["total"], states["percent"]) == (12, 12, 100.0)
    transitions = result["coverage"]["transitions"]
    assert (transitions["covered"], transitions["total"]) == (11, 11)


def test_shortest_paths_cover_only_tree_transitions() -> None:
    result = paths(PLAYER)
    # PAUSE leads back to an already reached state: no shortest path takes it.
    assert result["coverage"]["transitions"]["uncovered"] == ["player.playing:PAUSE:0"]
    assert result["coverage"]["transitions"]["percent"] == 66.7
    simple = paths(corpus.MACHINES["traffic_light"], "simple")
    assert simple["coverage"]["transitions"]["covered"] == 2


def test_coverage_includes_eventless_and_raised_transitions() -> None:
    result = paths(corpus.MACHINES["always_chain"])
    covered = set(t for t in result["coverage"]["transitions"]["uncovered"])
    assert "al.b:always:0" not in covered and "al.c:always:0" not in covered
    raised = paths(corpus.MACHINES["raise_internal"])
    assert "r.b:NEXT:0" not in raised["coverage"]["transitions"]["uncovered"]
    start = paths(corpus.MACHINES["always_on_start"])
    assert "als.boot:always:0" not in start["coverage"]["transitions"]["uncovered"]


def test_state_coverage_excludes_root_and_history() -> None:
    result = paths(corpus.MACHINES["history_shallow"])
    states = result["coverage"]["states"]
    assert states["total"] == 5  # on, on.one, on.two, on.three, off
    assert "hs.on.hist" not in states["uncovered"]


def test_unreachable_states_are_uncovered() -> None:
    result = paths(corpus.MACHINES["unreachable"], "simple")
    assert result["coverage"]["states"]["uncovered"] == ["u.island"]
    assert result["coverage"]["transitions"]["uncovered"] == ["u.island:BACK:0"]


def test_to_state_filters_paths_and_coverage() -> None:
    result = paths(PLAYER, toState="stopped")
    assert result["totalCount"] == 1
    assert [s["event"]["type"] for s in result["paths"][0]["steps"]] == ["xstate.init", "PLAY", "STOP"]
    assert result["coverage"]["transitions"]["covered"] == 2
    by_id = paths(PLAYER, toState="#player.playing")
    assert [p["state"]["value"] for p in by_id["paths"]] == ["playing"]


def test_from_state_starts_there() -> None:
    result = paths(PLAYER, fromState="playing")
    assert result["paths"][0]["steps"][0] == {"state": {"value": "playing", "context": {}}, "event": {"type": "xstate.init"}}
    assert {p["state"]["value"] for p in result["paths"]} == {"playing", "paused", "stopped"}


def test_given_events_replace_enumeration() -> None:
    result = paths(PLAYER, events=["PLAY"])
    assert [p["state"]["value"] for p in result["paths"]] == ["paused", "playing"]
    assert result["execution"]["events"] == "given"


def test_guards_argument_sets_static_results() -> None:
    machine = corpus.MACHINES["guards_default_true"]
    assert paths(machine)["paths"][1]["state"]["value"] == "b"
    assert paths(machine, guards={"canGo": False})["paths"][1]["state"]["value"] == "c"
    assert paths(machine)["execution"]["assumedGuards"] == ["canGo"]


def test_context_distinguishes_states() -> None:
    result = paths(corpus.MACHINES["context_flag"])
    assert [p["state"] for p in result["paths"]] == [
        {"value": "a", "context": {"visited": False}},
        {"value": "b", "context": {"visited": True}},
        {"value": "a", "context": {"visited": True}},
    ]


def test_output_is_deterministic_and_json() -> None:
    first = paths(corpus.MACHINES["parallel_nested"], "simple")
    second = paths(corpus.MACHINES["parallel_nested"], "simple")
    assert json.dumps(first) == json.dumps(second)


def test_output_is_a_copy() -> None:
    machine = corpus.MACHINES["context_flag"]
    first = paths(machine)
    first["paths"][0]["state"]["context"]["visited"] = "changed"
    assert paths(machine)["paths"][0]["state"]["context"] == {"visited": False}


def test_output_matches_its_schema() -> None:
    import jsonschema  # a dependency of the mcp SDK, so of every install

    from statekit.tools import get

    spec = get("generate_graph_paths")
    jsonschema.validate(paths(corpus.MACHINES["history_deep"], "simple"), spec.output_schema)
    jsonschema.Draft202012Validator.check_schema(spec.input_schema)


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(("arguments", "message"), [
    ({"machine": PLAYER, "algorithm": "longest"}, "algorithm"),
    ({"machine": PLAYER, "maxPaths": 0}, "maxPaths"),
    ({"machine": PLAYER, "maxPaths": MAX_MAX_PATHS + 1}, "maxPaths"),
    ({"machine": PLAYER, "algorithm": "shortest", "limit": 0}, "limit"),
    ({"machine": PLAYER, "algorithm": "shortest", "limit": "10"}, "limit"),
    ({"machine": PLAYER, "algorithm": "shortest", "limit": True}, "limit"),
    ({"machine": PLAYER, "algorithm": "shortest", "toState": "nowhere"}, "toState"),
    ({"machine": PLAYER, "algorithm": "shortest", "toState": "#player.nowhere"}, "toState"),
    ({"machine": PLAYER, "algorithm": "shortest", "fromState": "nowhere"}, "fromState"),
    ({"machine": PLAYER, "algorithm": "shortest", "toState": 3}, "toState"),
    ({"machine": PLAYER, "algorithm": "shortest", "events": "PLAY"}, "events"),
    ({"machine": PLAYER, "algorithm": "shortest", "guards": {"x": "yes"}}, "guards"),
    ({"machine": PLAYER, "algorithm": "shortest", "depth": 3}, "unknown argument"),
    ({"algorithm": "shortest"}, "machine"),
    ({"machine": "{not json", "algorithm": "shortest"}, "JSON"),
])
def test_bad_input_is_invalid_input(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as raised:
        call("generate_graph_paths", arguments)
    assert raised.value.code == "invalid_input"
    assert message in raised.value.message


def test_traversal_limit_returns_what_was_explored() -> None:
    result = paths(corpus.grid(3, 3), limit=10)
    assert result["truncated"] and result["truncatedReason"] == "limit"
    assert "Traversal limit exceeded" in result["normalization"]["truncation"]
    assert 0 < result["execution"]["statesExplored"] < 9
    # The paths found are the full answer's paths to the states explored.
    full = paths(corpus.grid(3, 3))
    assert result["paths"] == full["paths"][:len(result["paths"])]


def test_limit_counts_state_event_pairs() -> None:
    # A 4-state chain explores 3 (state, event) pairs: a limit of 3 passes, 2 does not.
    complete = paths(corpus.chain(4), limit=3)
    assert complete["execution"]["iterations"] == 4 and complete["truncatedReason"] is None
    assert paths(corpus.chain(4), limit=2)["truncatedReason"] == "limit"
    cut = paths(corpus.grid(40, 40), limit=1000)
    assert cut["truncatedReason"] == "limit" and cut["execution"]["statesExplored"] < 1600


def test_unbounded_context_answers_within_the_limit() -> None:
    counter = {"id": "counter", "initial": "on", "context": {"n": 0}, "states": {"on": {"on": {
        "INC": {"actions": {"type": "xstate.assign", "assignment": {"n": {"$js": "({context}) => context.n + 1"}}}}}}}}
    result = paths(counter, limit=200)
    assert result["truncatedReason"] == "limit"
    assert result["execution"]["statesExplored"] == 201
    assert result["normalization"]["mode"] == "native"


def test_state_budget_stops_wide_parallel_machines() -> None:
    from statekit.analysis.budget import Budget
    from statekit.analysis.paths import generate_graph_paths

    # 20 parallel toggles have 2**20 states: without a budget this grows past gigabytes.
    result = generate_graph_paths(ImplementedMachine.of_config(parse_machine(_toggles(20))), "shortest", limit=10**6, budget=Budget(max_states=500))
    assert result["truncatedReason"] == "states"
    assert result["execution"]["statesExplored"] == 500
    memory = generate_graph_paths(ImplementedMachine.of_config(parse_machine(_toggles(20))), "shortest", limit=10**6,
                                  budget=Budget(max_states=None, max_bytes=1_000_000))
    assert memory["truncatedReason"] == "memory"


def _toggles(regions: int) -> dict[str, Any]:
    return {"id": "toggles", "type": "parallel", "states": {
        f"r{i}": {"initial": "off", "states": {"off": {"on": {f"T{i}": "on"}}, "on": {"on": {f"T{i}": "off"}}}}
        for i in range(regions)}}


def test_the_calls_deadline_and_cancel_callback_stop_the_traversal() -> None:
    import time

    from statekit.analysis.budget import bounded_call

    with bounded_call(deadline=time.monotonic() - 1):
        late = paths(_toggles(20), limit=10**6)
    assert late["truncatedReason"] == "time"
    checks: list[int] = []

    def cancelled() -> bool:
        checks.append(1)
        return len(checks) > 2

    with bounded_call(cancelled=cancelled):
        stopped = paths(_toggles(20), "simple", limit=10**6)
    assert stopped["truncatedReason"] == "cancelled"
    assert paths(corpus.chain(4))["truncatedReason"] is None  # outside the block: no limits


def test_the_collector_pause_nests_and_restores_the_collectors_state() -> None:
    import gc

    from statekit.analysis.budget import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer traversal still runs
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("a traversal that fails")
    assert gc.isenabled()
    paths(corpus.chain(4))
    assert gc.isenabled()


def test_wildcard_event_is_taken_as_xstates_production_build_does() -> None:
    result = paths(corpus.MACHINES["wildcard_star_throws"])
    assert result["totalCount"] >= 2
    assert any(step["event"]["type"] == "*" for p in result["paths"] for step in p["steps"])
    given = paths(corpus.MACHINES["wildcard_star_throws"], events=["GO", "OTHER"])
    assert {p["state"]["value"] for p in given["paths"]} == {"a", "b", "c"}


def test_inline_code_that_cannot_run_is_traversed_structurally() -> None:
    machine = {
        "id": "flow", "initial": "loading",
        "context": {"$js": "({ input }) => ({ user: input.user, retries: helper() })"},
        "states": {
            "loading": {"entry": {"type": "xstate.assign", "assignment": {"x": {"$js": "() => imported()"}}},
                        "on": {"LOADED": [{"target": "ready", "guard": {"type": "guard", "code": "({context}) => context.user.ok"}},
                                          {"target": "failed"}]}},
            "ready": {"on": {"RESET": "loading"}},
            "failed": {"type": "final"},
        },
    }
    result = paths(machine)
    normalization = result["normalization"]
    assert normalization["mode"] == "structural"
    assert "inline code in context failed" in normalization["reason"]
    assert normalization["contextDropped"] is True
    assert normalization["droppedActions"] == ["flow.loading entry: xstate.assign"]
    (inline_guard,) = normalization["inlineGuards"]
    assert inline_guard in normalization["assumedGuards"]
    assert {p["state"]["value"] for p in result["paths"]} == {"loading", "ready"}
    assert result["coverage"]["states"]["uncovered"] == ["flow.failed"]
    # The inline guard is named: `guards` can set it, and the other branch is taken.
    other = paths(machine, guards={inline_guard: False})
    assert {p["state"]["value"] for p in other["paths"]} == {"loading", "failed"}


def test_eventless_guards_that_loop_when_assumed_true_are_assumed_false() -> None:
    """@portabletext/plugin-emoji-picker's shape: 'has matches' and 'no matches' both assumed
    true chase each other for ever; assumed false, the structure settles and still moves on events."""
    machine = {
        "id": "picker", "initial": "idle", "context": {"$js": "({ input }) => ({ editor: input.editor })"},
        "states": {
            "idle": {"on": {"found": "searching"}},
            "searching": {
                "on": {"dismiss": "idle"}, "initial": "none",
                "states": {"none": {"always": {"guard": "has matches", "target": "some"}},
                           "some": {"always": {"guard": "no matches", "target": "none"}, "on": {"down": {}}}},
            },
        },
    }
    result = paths(machine)
    normalization = result["normalization"]
    assert normalization["mode"] == "structural"
    assert normalization["eventlessGuardsAssumedFalse"] == ["has matches", "no matches"]
    assert "Infinite loop" in normalization["reason"]
    assert {json.dumps(p["state"]["value"]) for p in result["paths"]} == {'"idle"', '{"searching": "none"}'}
    # A guard the caller sets is the caller's: here the structure reaches 'some' and settles.
    reached = paths(machine, guards={"has matches": True, "no matches": False})
    assert reached["normalization"]["eventlessGuardsAssumedFalse"] == []
    assert {json.dumps(p["state"]["value"]) for p in reached["paths"]} == {'"idle"', '{"searching": "some"}'}


def test_the_structure_leaves_out_sends_to_a_parent_it_does_not_have() -> None:
    """sanity's deletionMachine: inline code that cannot run, and `sendParent` on entry/exit."""
    machine = {
        "id": "deletion", "initial": "idle", "context": {"$js": "({ input }) => ({ ids: [...input.ids] })"},
        "states": {
            "idle": {"on": {"delete.request": {"guard": "canRequestDeletion", "target": "active"}}},
            "active": {"entry": {"type": "xstate.sendParent", "event": {"type": "deletion.activated"}},
                       "exit": {"type": "xstate.sendParent", "event": {"type": "deletion.deactivated"}},
                       "on": {"delete.cancel": "idle"}},
        },
    }
    result = paths(machine)
    assert result["normalization"]["mode"] == "structural"
    assert {p["state"]["value"] for p in result["paths"]} == {"idle", "active"}
    assert "deletion.active entry: xstate.sendParent" in result["normalization"]["droppedActions"]


def test_a_machine_without_code_that_throws_is_still_an_error() -> None:
    machine = {"id": "loop", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {"always": "c"}, "c": {"always": "b"}}}
    with pytest.raises(ToolError, match="Infinite loop"):
        paths(machine)


def test_eventless_cycle_is_an_error_not_a_hang() -> None:
    machine = {"id": "loop", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {"always": "c"}, "c": {"always": "b"}}}
    with pytest.raises(ToolError) as raised:
        paths(machine)
    assert raised.value.code == "invalid_input"
    assert "Infinite loop" in raised.value.message


def test_too_many_simple_paths_are_cut_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from statekit.analysis import paths as paths_module

    monkeypatch.setattr(paths_module, "MAX_SIMPLE_PATHS", 50)
    result = paths(corpus.grid(3, 3), "simple")
    assert result["truncatedReason"] == "simplePaths"
    assert 0 < result["totalCount"] <= 50
    assert paths(corpus.grid(3, 3), "shortest")["totalCount"] == 9


# -- large machines ------------------------------------------------------------------------


def test_thousand_state_chain() -> None:
    result = paths(corpus.chain(1000, back=True))
    assert result["totalCount"] == 1000
    assert result["coverage"]["states"]["covered"] == 1000
    assert result["execution"]["statesExplored"] == 1000
    to_last = paths(corpus.chain(1000), "simple", toState="s999")
    assert to_last["totalCount"] == 1 and to_last["paths"][0]["weight"] == 999


def test_thousand_state_grid_shortest() -> None:
    result = paths(corpus.grid(32, 32), toState="r31c31")
    assert result["totalCount"] == 1
    assert result["paths"][0]["weight"] == 62
    assert result["execution"]["statesExplored"] == 1024


def test_deep_machine_does_not_recurse() -> None:
    # A simple path of 3000 steps: the search is iterative.
    result = paths(corpus.chain(3000), "simple", toState="s2999")
    assert result["paths"][0]["weight"] == 2999


def test_engine_api_agrees_with_tool_on_a_chain() -> None:
    machine = create_machine(corpus.chain(5))
    snapshot, _ = initial_transition(machine)
    for _ in range(4):
        snapshot, _ = transition(machine, snapshot, {"type": "NEXT"})
    assert paths(corpus.chain(5))["paths"][4]["state"]["value"] == snapshot.value


# -- the CLI -------------------------------------------------------------------------------


def test_paths_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from statekit.cli.paths import add_commands as add_paths_command

    parser = argparse.ArgumentParser()
    add_paths_command(parser.add_subparsers(dest="command"))
    machine_file = tmp_path / "player.json"
    machine_file.write_text(json.dumps(PLAYER))
    args = parser.parse_args(["paths", str(machine_file), "--algorithm", "simple", "--to", "stopped"])
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    assert "stopped [2]: PLAY -> STOP" in out
    args = parser.parse_args(["paths", str(machine_file), "--json", "--event", "PLAY"])
    assert args.handler(args) == 0
    assert json.loads(capsys.readouterr().out)["totalCount"] == 2


def test_context_extraction_could_not_evaluate_is_traversed_structurally() -> None:
    machine = {"id": "tiles", "initial": "idle", "context": {"tiles": {"$expr": "range(16)"}},
               "states": {"idle": {"on": {"START": "playing"}}, "playing": {}}}
    result = paths(machine)
    assert result["normalization"]["mode"] == "structural"
    assert {p["state"]["value"] for p in result["paths"]} == {"idle", "playing"}


def test_a_path_too_large_for_its_room_is_given_up_while_it_is_built() -> None:
    from statekit.analysis.paths import path_json, shortest_paths

    explored = explore_model(ImplementedMachine.of_config(parse_machine(corpus.chain(400))))
    found = shortest_paths(explored.graph, explored.matches, keep=400)
    target, edges = found.returned[-1]
    whole = path_json(explored.graph, target, edges)
    assert whole is not None and whole["weight"] == 399
    size = len(json.dumps(whole, ensure_ascii=False, separators=(",", ":")))
    assert path_json(explored.graph, target, edges, room=size // 4) is None
    assert path_json(explored.graph, target, edges, room=size + 1000) == whole
