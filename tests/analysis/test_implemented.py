"""One machine with its implementations for every tool (issue 23, item 1).

The guards and actions XState source defines beside its config (`setup({...})`, `createMachine`'s
second argument) are part of the machine: paths and properties run them as simulation does, and
as @xstate/graph does on the same source. A tool path that hands the analysis the config alone
(and so assumes those guards true) fails here.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from node_oracle import ORACLE_DIR, node_ready, run_node
from statekit.analysis.implemented import ImplementedMachine
from statekit.analysis.paths import explore_model, generate_graph_paths
from statekit.analysis.properties import check_machine_properties, explore_state_space
from statekit.analysis.simulate import build_simulation_machine, simulate
from statekit.model import parse_machine
from statekit.tools import call
from statekit.tools.inputs import load_implemented
from statekit.tools.registry import default_context, tools
from statekit.verify.planner import plan_paths

GRAPH_PACKAGE = ORACLE_DIR / "node_modules" / "@xstate" / "graph"
needs_oracle = pytest.mark.needs(node_ready([GRAPH_PACKAGE]), "node and @xstate/graph", "cd tests/oracle && npm ci")

#: The repro of issue 23: the guard is given in setup(), its code right there.
IS_FOUR = """import { setup, assign } from 'xstate';
export const machine = setup({ guards: { isFour: ({ context }) => context.n === 4 } }).createMachine({
  initial: 'pending', context: { n: 0 },
  states: {
    pending: {
      always: { target: 'success', guard: 'isFour' },
      on: { INC: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
    },
    success: { type: 'final' },
  },
});
"""

#: @xstate/graph's "should test with input": the context factory reads input, an eventless guard the context.
WITH_INPUT = """import { setup } from 'xstate';
export const machine = setup({}).createMachine({
  context: (x) => ({ name: x.input.name }),
  initial: 'checking',
  states: {
    checking: { always: [{ guard: (x) => x.context.name.length > 3, target: 'longName' }, { target: 'shortName' }] },
    longName: {},
    shortName: {},
  },
});
"""

#: The guard in createMachine's second argument (@xstate/graph's Die Hard test).
DIE_HARD = """import { createMachine, assign } from 'xstate';
export const machine = createMachine({
  id: 'dieHard', initial: 'pending', context: { three: 0, five: 0 },
  states: {
    pending: {
      always: { target: 'success', guard: 'weHave4Gallons' },
      on: {
        POUR_3_TO_5: { actions: assign(({ context }) => {
          const poured = Math.min(5 - context.five, context.three);
          return { three: context.three - poured, five: context.five + poured };
        }) },
        POUR_5_TO_3: { actions: assign(({ context }) => {
          const poured = Math.min(3 - context.three, context.five);
          return { three: context.three + poured, five: context.five - poured };
        }) },
        FILL_3: { actions: assign({ three: 3 }) },
        FILL_5: { actions: assign({ five: 5 }) },
        EMPTY_3: { actions: assign({ three: 0 }) },
        EMPTY_5: { actions: assign({ five: 0 }) },
      },
    },
    success: { type: 'final' },
  },
}, { guards: { weHave4Gallons: ({ context }) => context.five === 4 } });
"""


def source_paths(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Each case's source through real @xstate/graph, by name."""
    results = run_node(ORACLE_DIR / "graph" / "source_paths.mjs", stdin=json.dumps(cases), packages=[GRAPH_PACKAGE],
                       development=False, cwd=ORACLE_DIR, timeout=300)
    return {result["name"]: result for result in results}


def statekit_paths(case: dict[str, Any]) -> list[dict[str, Any]]:
    result = generate_graph_paths(load_implemented(case["source"]), case["algorithm"], max_paths=10**9,
                                  to_state=case.get("toState"), input_value=case.get("input"))
    assert result["normalization"]["mode"] == "native", result["normalization"]
    assert result["normalization"]["assumedGuards"] == [], "a guard the source implements was assumed"
    paths: list[dict[str, Any]] = result["paths"]
    return paths


ORACLE_CASES = [
    {"name": "is_four_shortest", "source": IS_FOUR, "algorithm": "shortest"},
    {"name": "is_four_simple", "source": IS_FOUR, "algorithm": "simple"},
    {"name": "die_hard_shortest", "source": DIE_HARD, "algorithm": "shortest"},
    {"name": "die_hard_simple_to_success", "source": DIE_HARD, "algorithm": "simple", "toState": "success"},
    {"name": "die_hard_shortest_to_success", "source": DIE_HARD, "algorithm": "shortest", "toState": "success"},
    {"name": "input_short", "source": WITH_INPUT, "algorithm": "shortest", "input": {"name": "ed"}},
    {"name": "input_long", "source": WITH_INPUT, "algorithm": "shortest", "input": {"name": "edward"}},
]


@cache
def oracle_results() -> dict[str, Any]:
    return source_paths(ORACLE_CASES)


@needs_oracle
@pytest.mark.parametrize("case", ORACLE_CASES, ids=[case["name"] for case in ORACLE_CASES])
def test_source_guards_give_xstate_graphs_paths(case: dict[str, Any]) -> None:
    expected = oracle_results()[case["name"]]
    assert "error" not in expected, expected
    assert statekit_paths(case) == expected["paths"]


def test_the_repro_through_the_tools_gives_xstates_answer() -> None:
    """On e361e51 isFour was assumed true: one path, `success` at the start, and `success`
    reachable with no event; XState stays in `pending` until the fourth INC."""
    paths = call("generate_graph_paths", {"machine": IS_FOUR, "algorithm": "shortest"})
    assert paths["normalization"]["assumedGuards"] == []
    assert [(p["state"]["value"], p["weight"]) for p in paths["paths"]] == [
        ("pending", 0), ("pending", 1), ("pending", 2), ("pending", 3), ("success", 4)]
    checked = call("check_machine_properties", {"machine": IS_FOUR, "properties": [
        {"type": "reachable", "state": "success"}, {"type": "deadlockFree"}]})
    reachable = checked["results"][0]
    assert reachable["holds"] and [e["type"] for e in reachable["witness"]["events"]] == ["INC"] * 4
    assert checked["normalization"]["assumedGuards"] == []


def test_paths_with_input_read_by_the_context_factory() -> None:
    """On e361e51: internal_error (cannot read property 'length' of undefined)."""
    for name, end in (("ed", "shortName"), ("edward", "longName")):
        result = call("generate_graph_paths", {"machine": WITH_INPUT, "algorithm": "shortest", "input": {"name": name}})
        assert [[step["state"]["value"] for step in path["steps"]] for path in result["paths"]] == [[end]]


# -- the guarantee: no tool runs the config without its implementations -----------------------------

#: Every tool that runs the machine argument, with the arguments that make it answer on IS_FOUR.
RUNNING_TOOLS: dict[str, dict[str, Any]] = {
    "simulate_machine": {"events": ["INC"] * 4},
    "generate_graph_paths": {"algorithm": "shortest"},
    "check_machine_properties": {"properties": [{"type": "reachable", "state": "success"}]},
    "start_machine": {},
}


def test_every_tool_that_runs_a_machine_is_listed_here() -> None:
    """A new tool that runs machines must join the check below."""
    running = {name for name, spec in tools().items()
               if "machine" in spec.input_schema.get("properties", {}) and _runs(spec.function)}
    assert running <= set(RUNNING_TOOLS) | {"validate_machine"}, running - set(RUNNING_TOOLS)


def _runs(function: Any) -> bool:
    import inspect

    text = inspect.getsource(inspect.getmodule(function))  # type: ignore[arg-type]
    return any(name in text for name in ("simulate(", "generate_graph_paths(", "check_machine_properties(",
                                         "build_simulation_machine(", "runnable_machine"))


@pytest.mark.parametrize("tool", sorted(RUNNING_TOOLS))
def test_no_tool_assumes_a_guard_its_source_implements(tool: str) -> None:
    context = default_context()
    result = call(tool, {"machine": IS_FOUR, **RUNNING_TOOLS[tool]}, context=context)
    normalization = result["normalization"]
    assert normalization["assumedGuards"] == [], f"{tool} ran the config without the source's guards"
    if tool == "start_machine":
        sent = call("send_events", {"machineHandle": result["machineHandle"], "events": ["INC"] * 3}, context=context)
        assert sent["snapshot"]["value"] == "pending"
        sent = call("send_events", {"machineHandle": result["machineHandle"], "events": ["INC"]}, context=context)
        assert sent["snapshot"]["value"] == "success"
    if tool == "simulate_machine":
        assert [step["value"] for step in result["steps"]] == ["pending"] * 4 + ["success"]


BARE = parse_machine({"initial": "a", "states": {"a": {}}})


@pytest.mark.parametrize("entry", [
    lambda m: simulate(m, []), lambda m: build_simulation_machine(m), lambda m: explore_model(m),
    lambda m: generate_graph_paths(m, "shortest"), lambda m: check_machine_properties(m, []),
    lambda m: explore_state_space(m), lambda m: plan_paths(m),
], ids=["simulate", "build", "explore_model", "paths", "properties", "state_space", "verify_plan"])
def test_the_analysis_refuses_a_bare_model(entry: Any) -> None:
    """The planted forgetting: a tool that handed the analysis its model alone (dropping the
    source's implementations) would run it with those guards assumed; it cannot even call it."""
    with pytest.raises(TypeError, match="ImplementedMachine"):
        entry(BARE)
    entry(ImplementedMachine.of_config(BARE))  # the same machine with its implementations runs


def test_a_guard_is_assumed_only_where_nothing_implements_it() -> None:
    source = IS_FOUR.replace("guard: 'isFour' }", "guard: 'isFour' }, on: { GO: { target: 'success', guard: 'other' } }")
    source = source.replace("on: { INC:", "on: { GO: { target: 'success', guard: 'other' }, INC:")
    result = call("generate_graph_paths", {"machine": source, "algorithm": "shortest"})
    assert result["normalization"]["assumedGuards"] == ["other"]


# -- drawn machines: paths and properties agree with simulation on every witness ---------------------


@st.composite
def guarded_sources(draw: st.DrawFn) -> str:
    """A machine over a bounded counter with source guards (setup) on events and eventless moves."""
    count = draw(st.integers(2, 4))
    guards = {f"g{index}": draw(st.sampled_from([f"context.n === {v}" for v in range(4)] + [f"context.n > {v}" for v in range(3)]
                                                + ["event.type === 'INC'", "true", "false"]))
              for index in range(draw(st.integers(1, 3)))}
    names = sorted(guards)
    states: list[str] = []
    for index in range(count):
        on: list[str] = ["INC: { actions: 'inc' }", "DEC: { actions: 'dec' }"]
        for event in ("GO", "BACK"):
            if draw(st.booleans()):
                target = draw(st.integers(0, count - 1))
                guard = draw(st.sampled_from([None, *names]))
                on.append(f"{event}: {{ target: 's{target}'{f', guard: {json.dumps(guard)}' if guard else ''} }}")
        always = ""
        if draw(st.booleans()):
            target = draw(st.integers(0, count - 1))
            if target != index:
                always = f"always: {{ target: 's{target}', guard: {json.dumps(draw(st.sampled_from(names)))} }}, "
        states.append(f"s{index}: {{ {always}on: {{ {', '.join(on)} }} }}")
    guard_code = ", ".join(f"{name}: ({{ context, event }}) => {code}" for name, code in guards.items())
    return (
        "import { setup, assign } from 'xstate';\n"
        f"export const machine = setup({{ guards: {{ {guard_code} }}, actions: {{\n"
        "  inc: assign({ n: ({ context }) => Math.min(context.n + 1, 3) }),\n"
        "  dec: assign({ n: ({ context }) => Math.max(context.n - 1, 0) }) } }).createMachine({\n"
        f"  initial: 's0', context: {{ n: 0 }}, states: {{ {', '.join(states)} }} }});\n"
    )


def _replayed_end(source: str, events: list[dict[str, Any]]) -> tuple[Any, Any]:
    steps = call("simulate_machine", {"machine": source, "events": events})["steps"]
    assert steps[-1]["status"] != "error", steps[-1]
    return steps[-1]["value"], steps[-1]["context"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(guarded_sources(), st.sampled_from(["shortest", "simple"]))
def test_paths_and_properties_agree_with_simulation(source: str, algorithm: str) -> None:
    """Every path's end and every property's witness is where simulate_machine goes with the
    same events on the same source: all three run the source's guards."""
    try:
        paths = call("generate_graph_paths", {"machine": source, "algorithm": algorithm})
    except Exception as error:  # an eventless cycle the engine refuses is refused alike by simulation
        with pytest.raises(type(error)):
            call("simulate_machine", {"machine": source, "events": []})
        return
    if paths["normalization"]["mode"] == "structural":
        # The source's guards make an eventless cycle XState throws on: the result says the
        # structure was traversed instead (no silent answer), and simulation meets the throw.
        assert "cannot run natively" in paths["normalization"]["reason"]
        assert "Infinite loop" in paths["normalization"]["reason"]
        return
    assert paths["normalization"]["assumedGuards"] == []
    for path in paths["paths"]:
        events = [step["event"] for step in path["steps"][1:]]
        assert _replayed_end(source, events) == (path["state"]["value"], path["state"]["context"])
    properties = [{"type": "reachable", "state": f"s{index}"} for index in range(4)
                  if f"s{index}:" in source]
    checked = call("check_machine_properties", {"machine": source, "properties": properties})
    assert checked["normalization"]["assumedGuards"] == []
    everything = generate_graph_paths(load_implemented(source), "shortest", max_paths=10**9)["paths"]
    reached = {path["state"]["value"] for path in everything}
    for result in checked["results"]:
        witness = result.get("witness")
        if witness is not None:
            value, _context = _replayed_end(source, witness["events"])
            assert value == result["property"]["state"] == witness["states"][-1]
        if result["holds"] is False:
            assert result["property"]["state"] not in reached


#: An SCXML document: its ECMAScript cond and <assign> expression are its implementations.
SCXML = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="a">
  <datamodel><data id="n" expr="0"/></datamodel>
  <state id="a">
    <transition event="INC"><assign location="n" expr="n + 1"/></transition>
    <transition cond="n &gt;= 2 &amp;&amp; n % 2 == 0" target="b"/>
  </state>
  <final id="b"/>
</scxml>"""


def test_scxml_conditions_run_in_paths_and_properties_as_in_the_scxml_interpreter() -> None:
    """On e361e51 the cond was the guard `scxml.cond`, assumed true: `b` at the start."""
    paths = call("generate_graph_paths", {"machine": SCXML, "algorithm": "shortest"})
    assert paths["normalization"]["assumedGuards"] == []
    assert [(p["state"]["value"], p["state"]["context"], p["weight"]) for p in paths["paths"]] == [
        ("a", {"n": 0}, 0), ("a", {"n": 1}, 1), ("b", {"n": 2}, 2)]
    checked = call("check_machine_properties", {"machine": SCXML, "properties": [{"type": "reachable", "state": "b"}]})
    witness = checked["results"][0]["witness"]["events"]
    assert checked["normalization"]["assumedGuards"] == []
    # The W3C interpreter (simulate_machine's SCXML semantics) takes the same events to `b`.
    scxml_run = call("simulate_machine", {"machine": SCXML, "events": witness})["steps"]
    assert [step["configuration"] for step in scxml_run] == [["a"], ["a"], ["b"]]


def test_an_scxml_cond_that_needs_the_interpreter_stays_assumed_and_says_so() -> None:
    source = SCXML.replace("n &gt;= 2 &amp;&amp; n % 2 == 0", "In('a') &amp;&amp; n &gt; 1")
    paths = call("generate_graph_paths", {"machine": source, "algorithm": "shortest"})
    assert paths["normalization"]["assumedGuards"] == ["scxml.cond"]
