"""@xstate/graph's own tests as an oracle for generate_graph_paths (issue 23, item 2).

`tests/oracle/graph/xstate_graph_suite.py` translates packages/xstate-graph/test (@xstate/graph
3.0.4) into path cases over XState source; `source_paths.mjs` runs each through real @xstate/graph
3.0.4 and here generate_graph_paths, reading the same source with its own guards and actions,
must give the same paths: count, order, states (value and context), events and weights. What of
the suite is not such a query is listed in the suite's NOT_EXPRESSIBLE with why.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from typing import Any

import pytest

from node_oracle import ORACLE_DIR, node_ready, run_node
from statekit.analysis.paths import generate_graph_paths
from statekit.errors import ToolError
from statekit.tools.inputs import load_implemented

sys.path.insert(0, str(ORACLE_DIR / "graph"))
import xstate_graph_suite as suite

GRAPH_PACKAGE = ORACLE_DIR / "node_modules" / "@xstate" / "graph"
needs_oracle = pytest.mark.needs(node_ready([GRAPH_PACKAGE]), "node and @xstate/graph", "cd tests/oracle && npm ci")


@cache
def xstate_graph() -> dict[str, Any]:
    results = run_node(ORACLE_DIR / "graph" / "source_paths.mjs", stdin=json.dumps(suite.CASES),
                       packages=[GRAPH_PACKAGE], development=False, cwd=ORACLE_DIR, timeout=300)
    return {result["name"]: result for result in results}


def statekit(case: dict[str, Any]) -> dict[str, Any]:
    try:
        return generate_graph_paths(
            load_implemented(case["source"]), case["algorithm"], events=case.get("events"),
            to_state=case.get("toState"), from_state=case.get("fromState"), limit=case.get("limit"),
            input_value=case.get("input"), max_paths=10**9)
    except ToolError as error:
        return {"error": error.message}


def test_the_suite_is_translated() -> None:
    assert len(suite.CASES) >= 40
    assert len({case["name"] for case in suite.CASES}) == len(suite.CASES)
    assert all(reason for reason in suite.NOT_EXPRESSIBLE.values())


@needs_oracle
@pytest.mark.parametrize("case", suite.CASES, ids=[case["name"] for case in suite.CASES])
def test_generate_graph_paths_gives_xstate_graphs_answer(case: dict[str, Any]) -> None:
    expected = xstate_graph()[case["name"]]
    actual = statekit(case)
    if expected.get("error") == "Traversal limit exceeded":
        # XState throws past the traversal limit; statekit answers what it explored, and says so.
        assert actual.get("truncatedReason") == "limit", actual
        return
    if "error" in expected:
        # XState throws where the machine's code throws; statekit traverses the structure instead
        # and says so, naming XState's error (generate_graph_paths' documented fallback).
        assert actual["normalization"]["mode"] == "structural", actual
        assert expected["error"].split(":")[0] in actual["normalization"]["reason"]
        return
    assert "error" not in actual, actual
    assert actual["normalization"]["mode"] == "native", actual["normalization"]
    assert actual["normalization"]["assumedGuards"] == [], "a guard the source implements was assumed"
    assert actual["totalCount"] == len(expected["paths"])
    assert actual["paths"] == expected["paths"]
