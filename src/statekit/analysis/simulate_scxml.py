"""`simulate_machine` on an SCXML document: the document runs with SCXML's own semantics.

The interpreter (`statekit.scxml`) runs the document itself: conditions, assignments, scripts
and sends are evaluated by its datamodel (ECMAScript in QuickJS, or the null datamodel), so
nothing is assumed. Each step reports the configuration (and the XState-style state value
derived from it), the datamodel's variables, the events raised and sent, and what was logged.
Delayed sends wait on a virtual clock: an `{"advanceMs": n}` item lets n ms pass (delivering
what falls due), and `runUntilIdle` runs the clock on until no delayed event is pending.

`file:` sources are refused here (there is no base directory a tool call may name); such a
document gets `error.execution`, which the steps show.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from statekit.budget import charge_output, current_budget
from statekit.engine.evaluation import plain_json
from statekit.errors import ToolError
from statekit.scxml import DocumentError, ScxmlRunError, ScxmlSystem, Session
from statekit.scxml.datamodel import UNDEFINED, Event
from statekit.scxml.document import State

MAX_ITEMS = 100
#: External events one tool call may process (sessions that keep sending each other events).
MAX_EXTERNAL_EVENTS = 10_000
#: Virtual time one `advanceMs` item or `runUntilIdle` may let pass.
MAX_ADVANCE_MS = 24 * 60 * 60 * 1000
ENGINE_INFO = {"engine": "statekit", "semantics": "scxml", "reference": "W3C SCXML 1.0, Appendix D"}


def normalize_scxml_items(items: Any) -> list[dict[str, Any]]:
    """Events (`"name"` or `{type, data?}`) and clock items (`{advanceMs}`), checked."""
    if not isinstance(items, list):
        raise ToolError("invalid_input", "`events` must be a list of events or {advanceMs} items")
    if len(items) > MAX_ITEMS:
        raise ToolError("invalid_input", f"at most {MAX_ITEMS} events per simulation; got {len(items)}")
    result: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if isinstance(item, str):
            item = {"type": item}
        if isinstance(item, Mapping) and "advanceMs" in item:
            ms = item["advanceMs"]
            if isinstance(ms, bool) or not isinstance(ms, int | float) or not 0 <= ms <= MAX_ADVANCE_MS:
                raise ToolError("invalid_input", f"events[{index}].advanceMs must be a number of ms from 0 to "
                                                 f"{MAX_ADVANCE_MS}")
            result.append({"advanceMs": ms})
            continue
        if not isinstance(item, Mapping) or not isinstance(item.get("type"), str) or not item["type"]:
            raise ToolError("invalid_input", f"events[{index}] must be an event name, an object with a non-empty "
                                             "string `type`, or {advanceMs}")
        result.append(dict(item))
    return result


def state_value(session: Session) -> Any:
    """The configuration as an XState state value: `"a"`, `{"p": {"x": "x1", "y": "y1"}}`."""
    active = session.reported_configuration()

    def value_of(state: State) -> Any:
        children = [c for c in state.children if c in active]
        if not children:
            return state.id
        if state.kind == "parallel":
            return {state.id: {c.id: _inner(value_of(c), c) for c in children}}
        return {state.id: value_of(children[0])}

    top = [c for c in session.doc.root.children if c in active]
    return value_of(top[0]) if top else {}


def _inner(value: Any, state: State) -> Any:
    """Inside a parallel state, a region's value without its own key (as XState writes it)."""
    if isinstance(value, dict) and set(value) == {state.id}:
        return value[state.id]
    return value


class _Cursor:
    """What a session did since the last step (its raised/sent/log lists only grow)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.raised = self.sent = self.logs = self.errors = 0

    def record(self, event: dict[str, Any]) -> dict[str, Any]:
        session = self.session
        raised = session.raised[self.raised:]
        sent = session.sent[self.sent:]
        logs = session.logs[self.logs:]
        errors = session.errors[self.errors:]
        self.raised, self.sent, self.logs = len(session.raised), len(session.sent), len(session.logs)
        self.errors = len(session.errors)
        status = "error" if session.error else "active" if session.running else "done"
        actions = ([f"raise {name}" for name in raised]
                   + [f"send {s['event']}" + (f" to {s['target']}" if s["target"] else "")
                      + (f" after {s['delay']:g} ms" if s["delay"] else "") for s in sent]
                   + [f"log {label}" if label else "log" for label, _ in logs])
        record: dict[str, Any] = {
            "event": event,
            "value": state_value(session),
            "configuration": [s.id for s in sorted(session.reported_configuration(), key=lambda s: s.order)],
            "context": plain_json(_variables(session)),
            "status": status,
            "tags": [],
            "output": None,
            "actions": actions,
            "raised": raised,
            "sent": [plain_json(s) for s in sent],
            "logs": [{"label": label, "value": plain_json(value)} for label, value in logs],
            "errors": errors,
            "clockMs": session.system.clock.now,
            "pending": [{"dueMs": due} for due, _ in session.system.clock.pending()],
        }
        if session.final is not None:
            record["final"] = session.final
        if session.error:
            record["error"] = session.error
        _charge_record(record)
        return record


#: The parts of a step the session counted toward the output limit as it made them (`Session._keep`).
_COUNTED_AS_MADE = frozenset({"raised", "sent", "logs", "errors"})


def _charge_record(record: dict[str, Any]) -> None:
    """Count a step (its datamodel snapshot above all) toward the output limit as it is added."""
    if current_budget() is not None:
        rest = {key: value for key, value in record.items() if key not in _COUNTED_AS_MADE}
        charge_output(len(json.dumps(rest, ensure_ascii=False, default=str)))


def _variables(session: Session) -> dict[str, Any]:
    try:
        return session.datamodel.variables()
    except Exception:  # a closed or broken datamodel has nothing more to show
        return {}


def simulate_scxml(text: str, items: Any, *, run_until_idle: bool = False) -> dict[str, Any]:
    """Run an SCXML document on `items` and return `{steps, normalization, execution}`."""
    plan = normalize_scxml_items(items)
    system = ScxmlSystem(base_dir=None, record_steps=False, max_external_events=MAX_EXTERNAL_EVENTS)
    try:
        session = system.create_session(text)
    except DocumentError as error:
        raise ToolError("invalid_input", f"the SCXML document cannot run: {error}") from None
    cursor = _Cursor(session)
    stopped: str | None = None
    steps: list[dict[str, Any]] = []
    processed = 0
    try:
        system.start_session(session)
        system.run_until_quiescent()
        steps.append(cursor.record({"type": "scxml.start"}))
        for item in plan:
            if not session.running:
                stopped = f"the session ended ({session.error or 'final state ' + str(session.final)})"
                break
            if "advanceMs" in item:
                system.advance(item["advanceMs"])
                steps.append(cursor.record({"type": "scxml.advance", "ms": item["advanceMs"]}))
            else:
                rest = {k: v for k, v in item.items() if k != "type"}
                payload = item["data"] if set(rest) == {"data"} else rest or UNDEFINED
                system.deliver(session, Event(item["type"], "external", data=payload))
                system.run_until_quiescent()
                steps.append(cursor.record(dict(item)))
            processed += 1
        if run_until_idle and session.running:
            before = system.clock.now
            system.run_until_idle(session, max_virtual_ms=MAX_ADVANCE_MS)
            steps.append(cursor.record({"type": "scxml.idle", "ms": system.clock.now - before}))
    except ScxmlRunError as error:
        stopped = str(error)
        steps.append(cursor.record({"type": "scxml.stopped"}))
    finally:
        session.datamodel.close()
        system.close()  # sessions a stopped run left alive (invoked children) free their contexts
    return {
        "steps": steps,
        "normalization": {"format": "scxml", "assumedGuards": [], "assumedActors": [],
                          "datamodel": session.doc.datamodel},
        "execution": {**ENGINE_INFO, "eventsProcessed": processed, "eventsGiven": len(plan), "stopped": stopped},
    }
