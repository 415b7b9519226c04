"""Unit rules of the observer delivery and of schema messages that never echo content."""

from __future__ import annotations

import asyncio
import gc
import warnings
from typing import Any

import pytest

from statekit.server.observer import build_event, deliver, trace_context
from statekit.tools.schema_check import SchemaCheck, check_schema

SECRET = "SECRET-VALUE-77"


def test_trace_context_keeps_only_well_formed_reserved_keys() -> None:
    meta = {
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "tracestate": "x" * 513,
        "baggage": 42,
        "progressToken": "p",
        "other": SECRET,
    }
    assert trace_context(meta) == {"traceparent": meta["traceparent"]}
    assert trace_context(None) == {}
    assert trace_context({"traceparent": ""}) == {}


def test_build_event_shapes() -> None:
    ok = build_event("t", duration_ms=1.23456, error_code=None, trace={})
    assert ok == {"tool": "t", "outcome": "success", "durationMs": 1.235}
    failed = build_event("t", duration_ms=0.5, error_code="invalid_input", trace={"baggage": "a=b"})
    assert failed == {
        "tool": "t",
        "outcome": "error",
        "durationMs": 0.5,
        "errorCode": "invalid_input",
        "baggage": "a=b",
    }


def test_deliver_calls_a_sync_observer_and_swallows_its_exception() -> None:
    seen: list[Any] = []

    def observer(event: Any) -> None:
        seen.append(event)
        raise RuntimeError("bug")

    event = build_event("t", duration_ms=1, error_code=None, trace={})
    deliver(observer, event)
    assert seen == [event]


def test_deliver_outside_a_loop_closes_the_coroutine_instead_of_leaking_it() -> None:
    started: list[bool] = []

    async def observer(event: Any) -> None:
        started.append(True)

    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        deliver(observer, build_event("t", duration_ms=1, error_code=None, trace={}))
        gc.collect()
    assert started == []
    assert [r for r in records if "never awaited" in str(r.message)] == []


async def test_deliver_schedules_an_awaitable_without_awaiting_it() -> None:
    gate = asyncio.Event()
    finished: list[str] = []

    async def observer(event: Any) -> None:
        await gate.wait()
        finished.append(event["tool"])

    deliver(observer, build_event("t", duration_ms=1, error_code=None, trace={}))
    assert finished == []  # deliver returned while the observer is still waiting
    gate.set()
    async with asyncio.timeout(5):
        while not finished:
            await asyncio.sleep(0)
    assert finished == ["t"]


SCHEMA = {
    "type": "object",
    "properties": {
        "source": {"type": "string", "maxLength": 10},
        "format": {"enum": ["json", "yaml"]},
        "items": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["source"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("instance", "pointer", "keyword", "reason"),
    [
        ({"source": SECRET * 3}, "/source", "maxLength", "violates maxLength 10"),
        ({"source": "a", "format": SECRET}, "/format", "enum", 'must be one of "json", "yaml"'),
        ({"source": "a", "items": [1, SECRET]}, "/items/1", "type", "must be of type integer"),
        (
            {"source": "a", "extra": SECRET},
            "",
            "additionalProperties",
            "unexpected property 'extra'",
        ),
        ({}, "", "required", "missing required property 'source'"),
        (SECRET, "", "type", "must be of type object"),
    ],
)
def test_schema_violations_name_place_and_rule_but_never_the_value(
    instance: Any, pointer: str, keyword: str, reason: str
) -> None:
    violation = SchemaCheck(SCHEMA).first_violation(instance)
    assert violation is not None
    assert (violation.pointer, violation.keyword, violation.reason) == (pointer, keyword, reason)
    assert SECRET not in violation.describe()


def test_conforming_document_has_no_violation() -> None:
    assert SchemaCheck(SCHEMA).first_violation({"source": "ok", "items": [1, 2]}) is None


def test_pointer_escapes_slashes_and_tildes() -> None:
    schema = {"type": "object", "properties": {"a/b~c": {"type": "string"}}}
    violation = SchemaCheck(schema).first_violation({"a/b~c": 1})
    assert violation is not None and violation.pointer == "/a~1b~0c"


def test_check_schema_rejects_a_broken_schema() -> None:
    from jsonschema import SchemaError

    check_schema(SCHEMA)
    with pytest.raises(SchemaError):
        check_schema({"type": "no-such-type"})
