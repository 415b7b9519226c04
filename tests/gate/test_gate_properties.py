"""`Gate(..., properties=[...])`: a workflow that breaks a required property is refused when the gate is made."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import statekit
from statekit.gate import Gate, GateConfigError

INVOICE: dict[str, Any] = {
    "id": "invoice",
    "initial": "draft",
    "context": {"total": 50},
    "states": {
        "draft": {"on": {"SUBMIT": "review"}},
        "review": {"on": {"APPROVE": "approved", "REJECT": "draft"}},
        "approved": {"on": {"DISCHARGE": "discharged"}},
        "discharged": {"type": "final"},
    },
}
APPROVED_FIRST = [
    {"type": "precedes", "first": "approved", "then": "discharged"},
    {"type": "deadlockFree"},
]


def with_shortcut(guard: str | None = None) -> dict[str, Any]:
    edited = copy.deepcopy(INVOICE)
    edited["states"]["review"]["on"]["PAY_NOW"] = {
        "target": "discharged",
        **({"guard": guard} if guard else {}),
    }
    return edited


def test_a_workflow_that_keeps_the_property_is_accepted() -> None:
    gate = Gate(INVOICE, properties=APPROVED_FIRST)
    assert gate.workflow_id == "invoice"


def test_a_shortcut_is_refused_with_its_counterexample() -> None:
    with pytest.raises(GateConfigError) as raised:
        Gate(with_shortcut(), properties=APPROVED_FIRST)
    message = str(raised.value)
    assert "precedes" in message and "SUBMIT -> PAY_NOW" in message


def test_the_gates_own_guards_run_nothing_is_assumed() -> None:
    # The shortcut is guarded by a Python guard that reads the context: it never opens for this
    # workflow (total 50), so the property holds; assumed true, it would not.
    never = statekit.setup(guards={"isLarge": lambda args, params: args.context["total"] > 1000})
    assert Gate(never.create_machine(with_shortcut("isLarge")), properties=APPROVED_FIRST)
    always = statekit.setup(guards={"isLarge": lambda args, params: args.context["total"] > 10})
    with pytest.raises(GateConfigError, match="violates"):
        Gate(always.create_machine(with_shortcut("isLarge")), properties=APPROVED_FIRST)


def test_an_unknown_state_in_a_property_is_a_config_error() -> None:
    with pytest.raises(GateConfigError, match="cannot be checked"):
        Gate(INVOICE, properties=[{"type": "reachable", "state": "paid"}])


def test_an_undecided_property_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import statekit.gate.properties as gate_properties

    monkeypatch.setattr(gate_properties, "MAX_STATES", 20)
    counting = {
        "id": "c",
        "initial": "on",
        "context": {"n": 0},
        "states": {"on": {"on": {"INC": {"actions": "inc"}}}},
    }
    machine = statekit.setup(
        actions={"inc": statekit.assign(lambda args, params: {"n": args.context["n"] + 1})}
    ).create_machine(counting)
    with pytest.raises(GateConfigError, match="undecided after 20 states"):
        Gate(machine, properties=[{"type": "deadlockFree"}])
