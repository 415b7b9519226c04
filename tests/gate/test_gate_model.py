"""The gate against its reference model (`gate_model.py`): every server kind, every store.

Each of the nine (kind, store) runs draws `EXAMPLES_EACH` random workflows with random
bindings and call sequences through a real client (fastmcp's, or the SDK's over memory streams
in either protocol era); together at least 2,000 examples. A planted fail-open decision (an
unbound name passes while a binding names a tool the server does not serve) is caught.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio.from_thread
import pytest
from gate_model import running
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

KINDS = ("fastmcp", "mcpserver", "lowlevel")
STORES = ("memory", "sqlite", "redis")
EXAMPLES_EACH = 225  # x 9 runs = 2,025 examples
SETTINGS = settings(
    max_examples=EXAMPLES_EACH,
    stateful_step_count=8,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.fixture(scope="module")
def loop_portal() -> Iterator[Any]:
    """One event loop thread for every example's client and store."""
    with anyio.from_thread.start_blocking_portal() as running:
        yield running


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("kind", KINDS)
def test_the_gate_allows_exactly_what_the_model_allows(
    kind: str, store: str, loop_portal: Any, request: pytest.FixtureRequest
) -> None:
    redis_url = request.getfixturevalue("redis_url") if store == "redis" else None
    with running(kind, store, loop_portal, redis_url) as machine:
        run_state_machine_as_test(machine, settings=SETTINGS)


@pytest.mark.parametrize("kind", KINDS)
def test_the_model_test_catches_a_fail_open_decision(
    kind: str, loop_portal: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from statekit.gate import decision

    original = decision.admit

    async def fail_open(world: decision.World, name: str, catalog: decision.Catalog) -> Any:
        if name not in world.bound:  # issue 22's bug: unbound names pass straight through
            return decision.Allow(bound=False)
        return await original(world, name, catalog)

    monkeypatch.setattr("statekit.gate.pipeline.admit", fail_open)
    # Caught as a handler the model refuses, or as a refusal that is not the gate's (coded) one.
    with (
        running(kind, "memory", loop_portal, None) as machine,
        pytest.raises(AssertionError, match=r"the model refuses it|refused without a gate code"),
    ):
        run_state_machine_as_test(
            machine,
            # Generation only: the first counterexample is enough, shrinking it is not needed.
            settings=settings(SETTINGS, max_examples=100, phases=[Phase.generate]),
        )
