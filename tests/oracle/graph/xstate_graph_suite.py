"""@xstate/graph's own test suite as path cases (issue 23, item 2).

Translated by hand from statelyai/xstate `packages/xstate-graph/test/*.test.ts` at the tag
`@xstate/graph@3.0.4` (the version tests/oracle/package.json installs). For every test, the machine
it builds, as XState source with its own guards and actions (each case's `source` is an ES module
exporting `machine`), and the traversal it asks @xstate/graph for: `getShortestPaths` or
`getSimplePaths` with the test's `toState` / `fromState` / `events` / `input` / `limit`. The test's
assertions are not copied: `source_paths.mjs` runs each case through real @xstate/graph 3.0.4 and
its answer is the expectation; `tests/analysis/test_xstate_graph_suite.py` holds generate_graph_paths
(reading the same source) to it: path count, order, states and events.

Tests that call `createTestModel(machine).getShortestPaths(options)` are translated to the
traversal the model runs, `getShortestPaths(machine, options)`: a TestModel then keys states by the
transition that reached them (`serializeTransition`) and drops paths that are prefixes of others
(`deduplicatePaths`), two TestModel features generate_graph_paths does not have (listed in
`NOT_EXPRESSIBLE` with every other part of the suite that is not a path query statekit can make).
A `toState` given as a function is translated when it is `state.matches(value)`.
"""

from __future__ import annotations

from typing import Any

TAG = "@xstate/graph@3.0.4"

LIGHT = """import { createMachine } from 'xstate';
const pedestrianStates = {
  initial: 'walk',
  states: {
    walk: { on: { PED_COUNTDOWN: { target: 'wait', actions: ['startCountdown'] } } },
    wait: { on: { PED_COUNTDOWN: 'stop' } },
    stop: {},
    flashing: {},
  },
};
export const machine = createMachine({
  id: 'light',
  initial: 'green',
  states: {
    green: { on: { TIMER: 'yellow', POWER_OUTAGE: 'red.flashing', PUSH_BUTTON: [{ actions: ['doNothing'] }] } },
    yellow: { on: { TIMER: 'red', POWER_OUTAGE: 'red.flashing' } },
    red: { on: { TIMER: 'green', POWER_OUTAGE: 'red.flashing' }, ...pedestrianStates },
  },
});
"""

COND = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'pending',
  context: { id: CONTEXT_ID },
  states: {
    pending: {
      on: {
        EVENT: [{ target: 'foo', guard: ({ event }) => event.id === 'foo' }, { target: 'bar' }],
        STATE: [{ target: 'foo', guard: ({ context }) => context.id === 'foo' }, { target: 'bar' }],
      },
    },
    foo: {},
    bar: {},
  },
});
"""

PARALLEL = """import { createMachine } from 'xstate';
export const machine = createMachine({
  type: 'parallel',
  id: 'p',
  states: {
    a: { initial: 'a1', states: { a1: { on: { 2: 'a2', 3: 'a3' } }, a2: { on: { 3: 'a3', 1: 'a1' } }, a3: {} } },
    b: { initial: 'b1', states: { b1: { on: { 2: 'b2', 3: 'b3' } }, b2: { on: { 3: 'b3', 1: 'b1' } }, b3: {} } },
  },
});
"""

EQUIVALENT = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: { a: { on: { FOO: 'b', BAR: 'b' } }, b: { on: { FOO: 'a', BAR: 'a' } } },
});
"""

COUNT = """import { createMachine, assign } from 'xstate';
export const machine = createMachine({
  id: 'count',
  initial: 'start',
  context: { count: 0 },
  states: {
    start: {
      always: { target: 'finish', guard: ({ context }) => context.count === 3 },
      on: { INC: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
    },
    finish: {},
  },
});
"""

STOP_AT_C = """import { createMachine, assign } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  context: { count: 0 },
  states: {
    a: { on: { NEXT: 'b' } },
    b: { on: { NEXT: 'c' } },
    c: { on: { NEXT: 'd' } },
    d: { on: { NEXT: { target: 'd', actions: assign({ count: ({ context }) => context.count + 1 }) } } },
  },
});
"""

FROM_B_TO_Y = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  context: { count: 0 },
  states: {
    a: { on: { TO_Y: 'y', TO_B: 'b' } },
    b: { on: { NEXT_B_TO_X: 'x' } },
    x: { on: { NEXT_X_TO_Y: 'y' } },
    y: {},
  },
});
"""

DELAYS = """import { createMachine } from 'xstate';
export const machine = createMachine({ initial: 'a', states: { a: { after: { 1000: 'b' } }, b: {} } });
"""

FEEDBACK = """import { createMachine } from 'xstate';
export const machine = createMachine({
  id: 'feedback',
  initial: 'question',
  states: {
    question: { on: { CLICK_GOOD: 'thanks', CLICK_BAD: 'form', CLOSE: 'closed', ESC: 'closed' } },
    form: {
      on: {
        SUBMIT: [{ target: 'thanks', guard: ({ event }) => !!event.value.length }, { target: '.invalid' }],
        CLOSE: 'closed',
        ESC: 'closed',
      },
      initial: 'valid',
      states: { valid: {}, invalid: {} },
    },
    thanks: { on: { CLOSE: 'closed', ESC: 'closed' } },
    closed: { type: 'final' },
  },
});
"""

IDLE_ACTIVE = """import { createMachine } from 'xstate';
export const machine = createMachine({ initial: 'idle', states: { idle: { on: { ACTIVATE: 'active' } }, active: {} } });
"""

VALUES = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  context: { values: [1, 2, 3] },
  states: {
    a: {
      on: {
        EVENT: [
          { guard: ({ event }) => event.value === 1, target: 'b' },
          { guard: ({ event }) => event.value === 2, target: 'c' },
          { guard: ({ event }) => event.value === 3, target: 'd' },
        ],
      },
    },
    b: {},
    c: {},
    d: {},
  },
});
"""

COUNTING = """import { createMachine, assign } from 'xstate';
export const machine = createMachine({
  initial: 'counting',
  context: { count: 0 },
  states: { counting: { on: { INC: { actions: assign({ count: ({ context }) => context.count + 1 }) } } } },
});
"""

TOGGLE_COUNT = """import { createMachine, assign } from 'xstate';
export const machine = createMachine({
  id: 'machine',
  context: { count: 0 },
  on: { TOGGLE: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
});
"""

FIRST_SECOND = """import { createMachine } from 'xstate';
export const machine = createMachine({ initial: 'first', states: { first: { on: { NEXT: 'second' } }, second: {} } });
"""

A_B = """import { createMachine } from 'xstate';
export const machine = createMachine({ initial: 'a', states: { a: { on: { NEXT: 'b' } }, b: {} } });
"""

A_B_C = """import { createMachine } from 'xstate';
export const machine = createMachine({ initial: 'a', states: { a: { on: { NEXT: 'b', OTHER: 'c' } }, b: {}, c: {} } });
"""

NESTED_B1 = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: { a: { on: { NEXT: 'b' } }, b: { initial: 'b1', states: { b1: {} } } },
});
"""

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

DIE_HARD = """import { createMachine, assign } from 'xstate';
export const machine = createMachine(
  {
    id: 'dieHard',
    initial: 'pending',
    context: { three: 0, five: 0 },
    states: {
      pending: {
        always: { target: 'success', guard: 'weHave4Gallons' },
        on: {
          POUR_3_TO_5: {
            actions: assign(({ context }) => {
              const poured = Math.min(5 - context.five, context.three);
              return { three: context.three - poured, five: context.five + poured };
            }),
          },
          POUR_5_TO_3: {
            actions: assign(({ context }) => {
              const poured = Math.min(3 - context.three, context.five);
              const res = { three: context.three + poured, five: context.five - poured };
              return res;
            }),
          },
          FILL_3: { actions: assign({ three: 3 }) },
          FILL_5: { actions: assign({ five: 5 }) },
          EMPTY_3: { actions: assign({ three: 0 }) },
          EMPTY_5: { actions: assign({ five: 0 }) },
        },
      },
      success: { type: 'final' },
    },
  },
  { guards: { weHave4Gallons: ({ context }) => context.five === 4 } },
);
"""

FIRST_THIRD = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'first',
  states: { first: { on: { NEXT_1: 'second' } }, second: { on: { NEXT_2: 'third' } }, third: {} },
});
"""

MARIO = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'standing',
  states: {
    standing: { on: { left: 'walking', right: 'walking', down: 'crouching', up: 'jumping' } },
    walking: { on: { up: 'jumping', stop: 'standing' } },
    jumping: { on: { land: 'standing' } },
    crouching: { on: { release_down: 'standing' } },
  },
});
"""

A_TO_B_EVENT = """import { createMachine } from 'xstate';
export const machine = createMachine({ initial: 'a', states: { a: { on: { EVENT: 'b' } }, b: {} } });
"""

STATES_BY_KEY = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: {
    a: { on: { EVENT: 'b' } },
    b: { initial: 'b1', states: { b1: { on: { NEXT: 'b2' } }, b2: {} } },
  },
});
"""

STATES_BY_ID = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: {
    a: { on: { EVENT: 'b' } },
    b: { id: 'state_b', initial: 'b1', states: { b1: { id: 'state_b1', on: { NEXT: 'b2' } }, b2: { id: 'state_b2' } } },
  },
});
"""

MULTI_PATH = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: {
    a: { on: { EVENT: 'b' } },
    b: { on: { EVENT: 'c' } },
    c: { on: { EVENT: 'd', EVENT_2: 'e' } },
    d: {},
    e: {},
  },
});
"""

ONE_PATH = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: { a: { on: { EVENT: 'b' } }, b: { on: { EVENT: 'c' } }, c: {} },
});
"""

ALL_TRANSITIONS = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: { a: { on: { NEXT: 'b', END: 'b' } }, b: { on: { PREV: 'a', RESTART: 'a' } } },
});
"""

GUARDED = """import { createMachine } from 'xstate';
export const machine = createMachine(
  { initial: 'a', states: { a: { on: { NEXT: [{ guard: 'valid', target: 'b' }, { target: 'b' }] } }, b: {} } },
  { guards: { valid: ({ event }) => event.value > 10 } },
);
"""

SAME_TARGET = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: { a: { on: { GO_TO_B: 'b', GO_TO_C: 'c' } }, b: { on: { GO_TO_A: 'a' } }, c: { on: { GO_TO_A: 'a' } } },
});
"""

OPEN_CLOSED = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'open',
  states: { open: { on: { CLOSE: 'closed' } }, closed: { on: { OPEN: 'open' } } },
});
"""

PATHS_FROM = """import { createMachine } from 'xstate';
export const machine = createMachine({
  initial: 'a',
  states: {
    a: { on: { NEXT: 'b', OTHER: 'b', TO_C: 'c', TO_D: 'd', TO_E: 'e' } },
    b: { on: { TO_C: 'c', TO_D: 'd' } },
    c: {},
    d: {},
    e: {},
  },
});
"""


def _case(name: str, test: str, source: str, algorithm: str, **options: Any) -> dict[str, Any]:
    return {"name": name, "from": test, "source": source, "algorithm": algorithm, **options}


#: One case per traversal a test asks for (a test asking for two gives two cases).
CASES: list[dict[str, Any]] = [
    # graph.test.ts
    _case("light_shortest", "graph > getShortestPaths() > should return a mapping of shortest paths to all states "
          "(also: the initial state should have a single-length path)", LIGHT, "shortest"),
    _case("parallel_shortest", "graph > getShortestPaths() > ... (parallel)", PARALLEL, "shortest"),
    _case("cond_shortest", "graph > getShortestPaths() > should not throw when a condition is present (xit)",
          COND.replace("CONTEXT_ID", "undefined"), "shortest"),
    _case("cond_context_shortest", "graph > getShortestPaths() > should represent conditional paths based on "
          "context (it.skip)", COND.replace("CONTEXT_ID", "'foo'"), "shortest",
          events=[{"type": "EVENT", "id": "whatever"}, {"type": "STATE"}]),
    _case("light_simple", "graph > getSimplePaths() > should return a mapping of arrays of simple paths to all "
          "states (also: a single-length path for the initial state)", LIGHT, "simple"),
    _case("parallel_simple", "graph > getSimplePaths() > ... (parallel)", PARALLEL, "simple"),
    _case("equivalent_simple", "graph > getSimplePaths() > should return multiple paths for equivalent transitions "
          "(also: a single-length path for the initial state)", EQUIVALENT, "simple"),
    _case("count_simple", "graph > getSimplePaths() > should return value-based paths", COUNT, "simple",
          events=[{"type": "INC", "value": 1}]),
    # shortestPaths.test.ts
    _case("stop_at_c", "getShortestPaths > finds the shortest paths to a state without continuing traversal from "
          "that state", STOP_AT_C, "shortest", toState="c"),
    _case("to_b", "getShortestPaths > finds the shortest paths from a state to another state (first query)",
          FROM_B_TO_Y, "shortest", toState="b"),
    _case("from_b_to_y", "getShortestPaths > finds the shortest paths from a state to another state (second "
          "query: fromState the state reached, b with the initial context)", FROM_B_TO_Y, "shortest",
          fromState="b", toState="y"),
    _case("delays", "getShortestPaths > should work for machines with delays", DELAYS, "shortest"),
    # index.test.ts
    _case("feedback", "events > should allow for representing many cases (the machine's own events: a bare "
          "SUBMIT makes the guard read `undefined.length`, so XState throws)", FEEDBACK, "shortest"),
    _case("feedback_event_cases", "events > should allow for representing many cases (the test's SUBMIT cases "
          "beside the machine's other events, tried in every state)", FEEDBACK, "shortest",
          events=[{"type": "CLICK_GOOD"}, {"type": "CLICK_BAD"}, {"type": "CLOSE"}, {"type": "ESC"},
                  {"type": "SUBMIT", "value": "something"}, {"type": "SUBMIT", "value": ""}]),
    _case("idle_active", "events > should not throw an error for unimplemented events", IDLE_ACTIVE, "shortest"),
    _case("values_given_events", "events > should allow for dynamic generation of cases based on state (the "
          "events the generator gives in every state: values 1, 2, 3)", VALUES, "shortest",
          events=[{"type": "EVENT", "value": 1}, {"type": "EVENT", "value": 2}, {"type": "EVENT", "value": 3}]),
    _case("limit_100", "prevents infinite recursion based on a provided limit", TOGGLE_COUNT, "shortest", limit=100),
    _case("tests_transitions", "tests transitions", FIRST_SECOND, "shortest", toState="second"),
    _case("state_tests", "state tests > should test states", A_B, "shortest"),
    _case("wildcard_state", "state tests > should test wildcard state for non-matching states", A_B_C, "shortest"),
    _case("nested_states", "state tests > should test nested states", NESTED_B1, "shortest"),
    _case("input_short", "state tests > should test with input (ed)", WITH_INPUT, "shortest", input={"name": "ed"}),
    _case("input_long", "state tests > should test with input (edward)", WITH_INPUT, "shortest",
          input={"name": "edward"}),
    # dieHard.test.ts
    _case("die_hard_shortest", "die hard example > testing a model (getShortestPaths) to success",
          DIE_HARD, "shortest", toState="success"),
    _case("die_hard_simple", "die hard example > testing a model (getSimplePaths) to success",
          DIE_HARD, "simple", toState="success"),
    _case("die_hard_all_shortest", "die hard example (the machine's whole state space)", DIE_HARD, "shortest"),
    _case("error_path_trace", "error path trace > should return trace for failed state", FIRST_THIRD, "shortest",
          toState="third"),
    # adjacency.test.ts, events.test.ts, states.test.ts (their TestModel's shortest paths)
    _case("mario", "adjacency maps > model generates an adjacency map (the machine's shortest paths)",
          MARIO, "shortest"),
    _case("mario_simple", "adjacency maps (the machine's simple paths)", MARIO, "simple"),
    _case("events_exec", "events > should execute events (`exec` property) and (function)", A_TO_B_EVENT, "shortest"),
    _case("states_by_key", "states > should test states by key", STATES_BY_KEY, "shortest"),
    _case("states_by_id", "states > should test states by ID", STATES_BY_ID, "shortest"),
    # paths.test.ts
    _case("one_path", "When the machine only has one path > Should only follow that path", ONE_PATH, "shortest"),
    _case("multi_path_simple", "getSimplePaths > Should dedup simple path paths / Should not dedup ... "
          "(deduplicate: false)", MULTI_PATH, "simple"),
    _case("multi_path_shortest", "Should write a readable description including the target state and the path",
          MULTI_PATH, "shortest"),
    _case("all_transitions", "path generation should cover all transitions by default", ALL_TRANSITIONS, "shortest"),
    _case("guarded_transitions", "transition coverage should consider guarded transitions", GUARDED, "shortest",
          events=[{"type": "NEXT", "value": 0}, {"type": "NEXT", "value": 100}, {"type": "NEXT", "value": 1000}]),
    _case("same_target", "transition coverage should consider multiple transitions with the same target",
          SAME_TARGET, "shortest"),
    _case("to_closed", "getShortestPathsTo > Should find a path to a non-initial target state", OPEN_CLOSED,
          "shortest", toState="closed"),
    _case("to_open", "getShortestPathsTo > Should find a path to an initial target state", OPEN_CLOSED,
          "shortest", toState="open"),
    _case("from_paths_shortest", "getShortestPathsFrom > should get shortest paths from array of paths (paths to "
          "b)", PATHS_FROM, "shortest", toState="b"),
    _case("from_b_shortest", "getShortestPathsFrom (from b, as getShortestPathsFrom asks)", PATHS_FROM, "shortest",
          fromState="b"),
    _case("from_paths_simple", "getSimplePathsFrom > should get simple paths from array of paths (paths to b)",
          PATHS_FROM, "simple", toState="b"),
    _case("from_b_simple", "getSimplePathsFrom (from b, as getSimplePathsFrom asks)", PATHS_FROM, "simple",
          fromState="b"),
]

#: What of the suite is not a path query generate_graph_paths can make, and why.
NOT_EXPRESSIBLE: dict[str, str] = {
    "graph > getStateNodes()": "returns state nodes, not paths (statekit's model lists them)",
    "graph > getPathsFromEvents() (3 tests), dieHard > getPathsFromEvents (2 tests), joinPaths() (2 tests)":
        "a path for a given event sequence: simulate_machine's job, not a path search",
    "graph > toDirectedGraph": "a graph document, not paths (visualize_machine / the xgraph format)",
    "graph > simple / shortest paths for transition functions": "the logic is fromTransition(...), not a machine, "
        "with a custom serializeState",
    "graph > filtering > should not traverse past filtered states; shortestPaths > handles event cases; "
    "index > state limiting": "stopWhen (a function of the state): generate_graph_paths has no such option",
    "graph > should provide previous state for serializeState()": "a custom serializeState",
    "dieHard > .testPath(path) (toState: success and three === 0)": "toState is a predicate on context, not a "
        "state value",
    "index > Event in event executor should contain payload from case": "an event carries a function (not JSON)",
    "index > options.testState(...) should test state; events > exec; states > state tests": "run a system under "
        "test along the paths (TestModel.testPath); only the paths are compared (cases above)",
    "forbiddenAttributes (3 tests)": "createTestModel refuses machines with invoke / after / delayed actions; "
        "statekit has no TestModel",
    "paths > custom path generators can be provided": "a user-written path generator",
    "testModel > tests any logic; tests states for any logic": "fromTransition logic with a predicate toState",
    "types.test.ts (11 tests)": "TypeScript type checks, no traversal",
    "TestModel's own path post-processing": "a TestModel keys states by the transition that reached them "
        "(serializeTransition) and drops paths contained in others (deduplicatePaths); tests written on a "
        "TestModel are compared on the traversal it runs, getShortestPaths / getSimplePaths with its options",
}
