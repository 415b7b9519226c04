"""Workflows and servers the gate tests share."""

from __future__ import annotations

from typing import Any

INVOICE: dict[str, Any] = {
    "id": "invoice",
    "initial": "draft",
    "states": {
        "draft": {"on": {"SUBMIT": "review"}},
        "review": {"on": {"APPROVE": "approved", "REJECT": "draft"}},
        "approved": {"on": {"DISCHARGE": "discharged"}},
        "discharged": {"type": "final"},
    },
}

#: Nested and parallel states plus a guard on the event payload.
SHIPMENT: dict[str, Any] = {
    "id": "shipment",
    "initial": "packing",
    "states": {
        "packing": {
            "initial": "picking",
            "states": {
                "picking": {"on": {"PICKED": "boxing"}},
                "boxing": {"on": {"BOXED": "#shipment.checks"}},
            },
        },
        "checks": {
            "type": "parallel",
            "states": {
                "customs": {
                    "initial": "pending",
                    "states": {
                        "pending": {"on": {"CLEARED": "cleared"}},
                        "cleared": {},
                    },
                },
                "payment": {
                    "initial": "pending",
                    "states": {
                        "pending": {
                            "on": {
                                "PAID": {"target": "paid", "guard": "fullAmount"},
                            }
                        },
                        "paid": {},
                    },
                },
            },
            "on": {"DISPATCH": "dispatched"},
        },
        "dispatched": {"type": "final"},
    },
}
