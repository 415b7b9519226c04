"""simulate_machine on SCXML: the document's own semantics, through the real tool call."""

from __future__ import annotations

import jsonschema
import pytest

from statekit import tools
from statekit.errors import ToolError
from statekit.tools.registry import get

DOOR = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="closed">
  <datamodel><data id="opened" expr="0"/><data id="locked" expr="true"/></datamodel>
  <state id="closed">
    <transition event="open" cond="locked" target="closed"><log label="refused" expr="'locked'"/></transition>
    <transition event="open" target="open"><assign location="opened" expr="opened + 1"/></transition>
    <transition event="unlock" type="internal"><assign location="locked" expr="_event.data.code !== 42"/></transition>
  </state>
  <state id="open">
    <onentry><send event="autoclose" delay="30s" id="auto"/></onentry>
    <transition event="autoclose" target="closed"/>
    <transition event="close" target="closed"><cancel sendid="auto"/></transition>
  </state>
</scxml>"""


def _simulate(events: list[object], **extra: object) -> dict[str, object]:
    result = tools.call("simulate_machine", {"machine": DOOR, "events": events, **extra})
    assert isinstance(result, dict)
    return result


def test_conditions_are_evaluated_not_assumed() -> None:
    result = _simulate(["open", {"type": "unlock", "data": {"code": 42}}, "open"])
    steps = result["steps"]
    assert isinstance(steps, list)
    assert [s["value"] for s in steps] == ["closed", "closed", "closed", "open"]
    assert steps[1]["logs"] == [{"label": "refused", "value": "locked"}]
    assert steps[2]["context"] == {"opened": 0, "locked": False}
    assert steps[3]["context"] == {"opened": 1, "locked": False}
    assert steps[3]["sent"] == [{"event": "autoclose", "target": None, "delay": 30000.0, "sendid": "auto"}]
    assert result["normalization"] == {"format": "scxml", "assumedGuards": [], "assumedActors": [],
                                       "datamodel": "ecmascript"}
    jsonschema.validate(result, get("simulate_machine").output_schema)


def test_delayed_events_fire_when_the_clock_is_advanced() -> None:
    unlocked = {"type": "unlock", "data": {"code": 42}}
    steps = _simulate([unlocked, "open", {"advanceMs": 29_999}, {"advanceMs": 1}])["steps"]
    assert isinstance(steps, list)
    assert [s["value"] for s in steps] == ["closed", "closed", "open", "open", "closed"]
    assert steps[-1]["clockMs"] == 30_000 and steps[-1]["pending"] == []
    idle = _simulate([unlocked, "open"], runUntilIdle=True)["steps"]
    assert isinstance(idle, list)
    assert idle[-1]["event"] == {"type": "scxml.idle", "ms": 30_000} and idle[-1]["value"] == "closed"
    cancelled = _simulate([unlocked, "open", "close", {"advanceMs": 60_000}])["steps"]
    assert isinstance(cancelled, list)
    assert cancelled[-1]["value"] == "closed" and cancelled[-1]["pending"] == []


def test_static_guards_do_not_apply_to_scxml() -> None:
    with pytest.raises(ToolError, match="does not apply to SCXML"):
        _simulate(["open"], guards={"locked": False})


def test_file_sources_are_refused_in_a_tool_call() -> None:
    doc = DOOR.replace('<data id="opened" expr="0"/>', '<data id="opened" src="file:/etc/hostname"/>')
    steps = tools.call("simulate_machine", {"machine": doc, "events": []})["steps"]
    assert steps[0]["raised"] == ["error.execution"]
    assert "file sources are off unless a base directory is given" in steps[0]["errors"][0]
    assert steps[0]["context"] == {"locked": True}  # `opened` exists, undefined
