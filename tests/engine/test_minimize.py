"""The minimizer (tests/oracle/minimize.py) shrinks a disagreement with XState to what causes it.

It is how a failing differential case becomes a small one worth reading, so it is held to a
planted disagreement: statekit's side is made to report a wrong value whenever the machine has
a state named `planted`. Starting from a generated machine of dozens of states with a script of
events, real XState judging every candidate, the minimizer must keep that state and drop most of
the rest.
"""

from __future__ import annotations

import json
from typing import Any

from node_oracle import ORACLE_DIR, oracle_module, require_node


def _has_planted_state(config: Any) -> bool:
    states = config.get("states") if isinstance(config, dict) else None
    return isinstance(states, dict) and ("planted" in states or any(map(_has_planted_state, states.values())))


def test_minimizer_shrinks_a_planted_disagreement_to_its_cause() -> None:
    require_node([ORACLE_DIR / "node_modules" / "xstate"])
    minimize = oracle_module("minimize.py")
    case = oracle_module("random_machines.py").random_case(7)
    case["config"]["states"]["planted"] = {"on": {"GO": "a"}}
    judge = minimize.Judge()
    real_steps = judge.statekit_steps

    def planted_steps(candidate: dict[str, Any]) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = real_steps(candidate)
        if _has_planted_state(candidate["config"]) and "error" not in steps[0]:
            steps[0] = {**steps[0], "value": "(planted)"}
        return steps

    judge.statekit_steps = planted_steps  # type: ignore[method-assign]
    smallest = minimize.minimize(case, judge)

    assert _has_planted_state(smallest["config"])
    assert smallest["events"] == []
    assert len(json.dumps(smallest)) < len(json.dumps(case)) / 5
    # And the real statekit agrees with XState once the planted state is gone.
    judge.statekit_steps = real_steps  # type: ignore[method-assign]
    del smallest["config"]["states"]["planted"]
    assert judge.signature(smallest, minimize._xstate_traces([smallest])[0]) is None
