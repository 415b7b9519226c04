"""SCXML: mapping, the lossless subset (property), XSD validity, warnings, safe parsing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from format_strategies import any_machine_configs, scxml_subset_configs
from hypothesis import HealthCheck, assume, given, settings
from lxml import etree

from statekit.errors import ToolError
from statekit.formats import convert, read_any, write_format
from statekit.model import machine_to_config, parse_machine

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "data" / "scxml-schema" / "scxml.xsd"
SCHEMA = etree.XMLSchema(etree.parse(str(SCHEMA_PATH)))

PLAYER_SCXML = """<scxml xmlns="http://www.w3.org/2005/07/scxml" name="player" initial="paused">
  <state id="paused">
    <transition event="PLAY" target="playing" />
  </state>
  <state id="playing">
    <transition event="STOP" target="stopped" />
  </state>
  <final id="stopped" />
</scxml>"""

PLAYER_CONFIG = {
    "id": "player",
    "initial": "paused",
    "states": {
        "paused": {"on": {"PLAY": "playing"}},
        "playing": {"on": {"STOP": "stopped"}},
        "stopped": {"type": "final"},
    },
}


def to_scxml(config: dict[str, Any]) -> tuple[str, list[dict[str, str]]]:
    _, content, warnings = write_format(parse_machine(config), "scxml")
    assert isinstance(content, str)
    return content, [dict(w) for w in warnings]


def assert_schema_valid(text: str) -> None:
    document = etree.fromstring(text.encode("utf-8"))
    assert SCHEMA.validate(document), SCHEMA.error_log.last_error


def codes(warnings: list[Any]) -> set[str]:
    return {w["code"] for w in warnings}


# --- the mapping ------------------------------------------------------------------------------


def test_the_spec_example_reads_as_the_config_people_write() -> None:
    outcome = read_any(PLAYER_SCXML)
    assert outcome.format == "scxml"
    assert machine_to_config(outcome.model) == PLAYER_CONFIG
    assert outcome.warnings == []


def test_the_spec_example_writes_valid_scxml_that_reads_back() -> None:
    text, warnings = to_scxml(PLAYER_CONFIG)
    assert warnings == []
    assert_schema_valid(text)
    assert 'name="player"' in text and 'initial="paused"' in text and '<final id="stopped"' in text
    assert machine_to_config(read_any(text, "scxml").model) == PLAYER_CONFIG


def test_targets_become_sibling_keys_child_paths_or_ids() -> None:
    text = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">
      <state id="a" initial="a1">
        <transition event="IN" target="a2"/>
        <transition event="OUT" target="b"/>
        <state id="a1"><transition event="UP" target="b1"/><transition event="SELF" target="a1"/></state>
        <state id="a2"/>
      </state>
      <state id="b" initial="b1"><state id="b1"/></state>
    </scxml>"""
    config = machine_to_config(read_any(text, "scxml").model)
    a = config["states"]["a"]
    assert a["on"] == {"IN": {"target": ".a2", "reenter": True}, "OUT": "b"}
    assert a["states"]["a1"]["on"] == {"UP": "#b1", "SELF": {"target": "a1", "reenter": True}}
    assert config["states"]["b"]["states"]["b1"]["id"] == "b1"
    assert "id" not in a["states"]["a2"]


def test_internal_transitions_to_descendants_do_not_reenter() -> None:
    text = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="a">
      <state id="a" initial="a1">
        <transition event="IN" type="internal" target="a2"/>
        <transition event="SELF" type="internal" target="a"/>
        <state id="a1"/><state id="a2"/>
      </state>
    </scxml>"""
    on = machine_to_config(read_any(text, "scxml").model)["states"]["a"]["on"]
    assert on["IN"] == ".a2"
    # SCXML treats an internal transition that targets its own source as external.
    assert on["SELF"] == {"target": "a", "reenter": True}


def test_events_done_events_after_and_conditions() -> None:
    text = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="p">
      <state id="p" initial="c">
        <onentry><send event="xstate.after.250.p" delay="250ms" id="xstate.after.250.p"/></onentry>
        <onexit><cancel sendid="xstate.after.250.p"/></onexit>
        <transition event="done.state.p" target="end"/>
        <transition event="done.state.c" target="end"/>
        <transition event="xstate.after.250.p" target="end"/>
        <transition event="A B" cond="isOk &amp;&amp; !In('c')" target="end"/>
        <transition cond="x &gt; 1" target="end"/>
        <state id="c"/>
      </state>
      <final id="end"/>
    </scxml>"""
    outcome = read_any(text, "scxml")
    config = machine_to_config(outcome.model)
    p = config["states"]["p"]
    guard = {"type": "xstate.and", "guards": ["isOk", {"type": "xstate.not", "guard": {"type": "xstate.stateIn", "state": "#c"}}]}
    assert p["on"] == {"xstate.done.state.c": "end", "A": {"target": "end", "guard": guard},
                       "B": {"target": "end", "guard": guard}}
    assert p["onDone"] == "end"
    assert p["after"] == {"250": "end"}
    assert p["always"] == {"target": "end", "guard": {"type": "scxml.cond", "params": {"expr": "x > 1"}}}
    assert "entry" not in p and "exit" not in p  # the delayed send and cancel are the `after`
    assert codes(outcome.warnings) == {"expression_kept"}


def test_executable_content_maps_to_builtin_actions() -> None:
    text = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript">
      <datamodel><data id="count" expr="0"/><data id="name" expr="'ann'"/><data id="items">[1, 2]</data></datamodel>
      <state id="s"><onentry>
        <raise event="go"/>
        <send event="later" delay="1.5s" id="t1"/>
        <send event="up" target="#_parent"><param name="n" expr="1"/></send>
        <send event="work" target="#_worker"/>
        <log label="Outcome" expr="'pass'"/>
        <assign location="count" expr="2"/>
        <cancel sendid="t1"/>
        <script>notify({"level": 2})</script>
        <if cond="isOk"><raise event="a"/><elseif cond="In('s')"/><raise event="b"/><else/><raise event="c"/></if>
      </onentry></state>
    </scxml>"""
    outcome = read_any(text, "scxml")
    config = machine_to_config(outcome.model)
    assert config["context"] == {"count": 0, "name": "ann", "items": [1, 2]}
    assert config["states"]["s"]["entry"] == [
        {"type": "xstate.raise", "event": {"type": "go"}},
        {"type": "xstate.raise", "event": {"type": "later"}, "delay": 1500, "id": "t1"},
        {"type": "xstate.sendParent", "event": {"type": "up", "n": 1}},
        {"type": "xstate.sendTo", "to": "worker", "event": {"type": "work"}},
        {"type": "xstate.log", "value": "pass", "label": "Outcome"},
        {"type": "xstate.assign", "assignment": {"count": 2}},
        {"type": "xstate.cancel", "sendId": "t1"},
        {"type": "notify", "params": {"level": 2}},
        {"type": "xstate.enqueueActions", "actions": [{
            "if": "isOk", "then": [{"type": "xstate.raise", "event": {"type": "a"}}],
            "else": [{"if": {"type": "xstate.stateIn", "state": "#s"},
                      "then": [{"type": "xstate.raise", "event": {"type": "b"}}],
                      "else": [{"type": "xstate.raise", "event": {"type": "c"}}]}],
        }]},
    ]
    assert outcome.warnings == []


def test_a_descriptor_that_prefixes_a_known_event_is_widened() -> None:
    outcome = read_any('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"><onentry>'
                       '<raise event="go.x"/></onentry><transition event="go" target="s"/>'
                       '<transition event="go.*" target="s"/></state></scxml>', "scxml")
    assert machine_to_config(outcome.model)["states"]["s"]["on"] == {"go.*": [{"target": "s", "reenter": True}] * 2}
    assert codes(outcome.warnings) == {"event_prefix"}


def test_content_the_model_cannot_hold_is_kept_verbatim_with_a_warning() -> None:
    text = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">
      <state id="s">
        <onentry><foreach array="items" item="x"><log expr="x"/></foreach><send eventexpr="name"/></onentry>
        <invoke type="scxml" id="kid"><content><scxml version="1.0"><final id="k"/></scxml></content></invoke>
        <transition event="done.invoke.kid" target="s"/>
      </state>
    </scxml>"""
    outcome = read_any(text, "scxml")
    state = machine_to_config(outcome.model)["states"]["s"]
    assert [a["type"] for a in state["entry"]] == ["scxml.foreach", "scxml.send"]
    assert state["entry"][0]["params"]["xml"].startswith("<foreach")
    assert state["invoke"]["onDone"] == {"target": "s", "reenter": True}
    assert state["invoke"]["scxml"].startswith("<invoke")
    assert codes(outcome.warnings) == {"executable_kept", "invoke_kept"}
    written, _ = to_scxml(machine_to_config(outcome.model))
    assert "<foreach" in written and "<content>" in written and 'eventexpr="name"' in written
    assert machine_to_config(read_any(written, "scxml").model) == machine_to_config(outcome.model)


@pytest.mark.parametrize(
    ("scxml", "code"),
    [
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><datamodel><data id="x" expr="a + 1"/>'
         '</datamodel><state id="s"/></scxml>', "data_expression"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><datamodel><data id="x" src="x.json"/>'
         '</datamodel><state id="s"/></scxml>', "data_src_lost"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="a b"><parallel id="p">'
         '<state id="a"/><state id="b"/></parallel></scxml>', "multiple_initial"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="a1"><state id="a"><state id="a1"/>'
         '</state></scxml>', "initial_descendant"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"><transition event="error.execution"'
         ' target="s"/></state></scxml>', "platform_event"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"><transition event="*" target="s"/>'
         '<transition event="go" target="s"/></state></scxml>', "transition_order"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><final id="f"><donedata><content expr="a+1"/>'
         '</donedata></final></scxml>', "donedata_lost"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><script>var x = 1;</script><state id="s"/></scxml>',
         "script_lost"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"><initial><transition target="a">'
         '<log expr="1"/></transition></initial><state id="a"/></state></scxml>', "initial_actions_lost"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"><transition target="nowhere"/>'
         '</state></scxml>', "unknown_target"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state><state id="a"/></state></scxml>',
         "generated_id"),

    ],
)
def test_reading_what_the_model_cannot_hold_warns(scxml: str, code: str) -> None:
    assert code in codes(read_any(scxml, "scxml").warnings)


# --- writing: lossy parts are warnings ----------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "code", "path"),
    [
        ({"states": {"a": {"tags": ["busy"]}}}, "tags_lost", "states.a.tags"),
        ({"states": {"a": {"meta": {"x": 1}}}}, "meta_lost", "states.a.meta"),
        ({"states": {"a": {"description": "A"}}}, "description_lost", "states.a.description"),
        ({"states": {"a": {"on": {"GO": {"target": "a", "description": "d"}}}}}, "description_lost",
         "states.a.on.GO[0].description"),
        ({"on": {"GO": ".a"}, "states": {"a": {}}}, "root_transitions_lost", "transitions"),
        ({"entry": "x", "states": {"a": {}}}, "root_entry_lost", "entry"),
        ({"invoke": {"src": "x"}, "states": {"a": {}}}, "root_invoke_lost", "invoke"),
        ({"output": 1, "states": {"a": {}}}, "root_output_lost", "output"),
        ({"states": {"a": {"entry": {"type": "xstate.emit", "event": {"type": "E"}}}}}, "action_not_expressible",
         "states.a.entry[0]"),
        ({"states": {"a": {"entry": {"type": "xstate.spawnChild", "src": "c"}}}}, "action_not_expressible",
         "states.a.entry[0]"),
        ({"states": {"a": {"after": {"slow": "a"}}}}, "named_delay", "states.a.after.slow[0]"),
        ({"states": {"a": {"entry": {"type": "xstate.raise", "event": {"type": "E"}, "delay": "slow"}}}}, "named_delay",
         "states.a.entry[0].delay"),
        ({"states": {"a": {"invoke": {"src": "x", "input": {"n": 1}}}}}, "invoke_input_lost", "states.a.invoke[0].input"),
        ({"states": {"a": {"invoke": {"src": "x", "systemId": "s"}}}}, "invoke_system_id_lost",
         "states.a.invoke[0].systemId"),
        ({"context": [1, 2], "states": {"a": {}}}, "context_lost", "context"),
        ({"context": {"not a name": 1}, "states": {"a": {}}}, "context_lost", "context.not a name"),
        ({"initial": "a", "states": {"a": {"on": {"GO": {"target": "a", "reenter": False}}}}}, "self_transition_reenters",
         "states.a.on.GO[0]"),
        ({"states": {"a": {"on": {"my event": "a"}}}}, "event_renamed", "states.a.on.my event[0]"),
        ({"states": {"a": {"on": {"GO": {"target": "a", "guard": {"type": "g", "code": "() => true"}}}}}},
         "inline_guard", "states.a.on.GO[0].guard"),
        ({"states": {"a": {"on": {"GO": {"target": "a", "guard": "is ready"}}}}}, "guard_renamed", "states.a.on.GO[0].guard"),
        ({"states": {"a": {"entry": "do it"}}}, "action_renamed", "states.a.entry[0]"),
        ({"states": {"a": {"on": {"GO": "nowhere"}}}}, "unknown_target", "states.a.on.GO[0].target"),
        ({"states": {"a": {"x-custom": 1}}}, "field_lost", "states.a.x-custom"),
        ({"version": "2", "states": {"a": {}}}, "field_lost", "version"),
        ({"states": {"a": {"states": {"b": {}}}}}, "missing_initial", "states.a"),
        ({"states": {"a": {"output": 1}}}, "output_lost", "states.a.output"),
        ({"initial": "a", "states": {"a": {}, "h": {"type": "history"}}}, "history_at_root", "states.h"),
        ({"states": {"f": {"type": "final", "initial": "x", "states": {"x": {}}}}}, "final_with_children", "states.f"),
        ({"id": "m", "states": {"a": {"on": {"UP": "#m"}}}}, "root_target_lost", "states.a.on.UP[0].target"),
        ({"states": {"a": {"entry": {"type": "xstate.raise", "event": {"type": "E"}, "delay": 5, "id": "a b"}}}},
         "send_id_changed", ""),
        ({"states": {"a": {"on": {"go": "a", "go.fast": "a"}}}}, "event_prefix", ""),
        ({"states": {"a": {"on": {"go": "a"}, "entry": {"type": "xstate.raise", "event": {"type": "go.x"}}}}},
         "event_prefix", ""),
        ({"states": {"f": {"type": "final", "on": {"GO": "f"}}}}, "final_transition_lost", "states.f.on.GO[0]"),
        ({"type": "parallel", "states": {"r": {"type": "parallel", "states": {"f": {"type": "final"}}}}},
         "final_in_parallel", "states.r.states.f"),
        ({"states": {"a": {"invoke": [{"src": "x", "onDone": "a"}, {"src": "y"}]}}}, "invoke_event_ambiguous",
         "states.a.invoke[0].onDone[0]"),
        ({"states": {"a": {"on": {"GO": {"target": "a", "guard": {"type": "xstate.stateIn", "state": {"x": {"y": "z"}}}}}}}},
         "guard_not_expressible", "states.a.on.GO[0].guard"),
    ],
)
def test_writing_what_scxml_cannot_express_warns(config: dict[str, Any], code: str, path: str) -> None:
    text, warnings = to_scxml(config)
    assert {"code": code, "path": path} in [{"code": w["code"], "path": w["path"]} for w in warnings], warnings
    etree.fromstring(text.encode("utf-8"))  # still well-formed XML


def test_python_callables_are_reported_not_written() -> None:
    from statekit.model.core import MachineModel

    model = parse_machine({"states": {"a": {}}})
    model = MachineModel(root=model.root, context={"f": len}, has_context=True)
    _, content, warnings = write_format(model, "scxml")
    assert "not_serializable" in codes(warnings)
    assert isinstance(content, str) and 'id="f"' in content


# --- what SCXML ids cannot carry: statekit's namespaced attributes -------------------------------

KEPT = [
    # Keys that are no XML names, repeat in two parents, or hold dots; explicit ids; cross-tree targets.
    {"id": "editor", "initial": "editing", "states": {
        "editing": {"type": "parallel", "states": {
            "editing.italic.off": {"on": {"TOGGLE": "#editor.editing.bold"}},
            "2fa_sent": {"id": "custom id", "initial": "idle", "states": {"idle": {"on": {"GO": "#custom id"}}}},
            "bold": {"initial": "idle", "states": {"idle": {"on": {"UP": "#editor.editing.2fa_sent.idle"}}}},
        }},
        "a b": {"on": {"BACK": "editing.bold"}},
    }},
    # A history state without a default: SCXML requires one, XState has an implicit one.
    {"id": "h", "initial": "p", "states": {
        "p": {"initial": "x", "states": {"x": {"on": {"N": "y"}}, "y": {}, "hist": {"type": "history"}}},
        "q": {"on": {"BACK": "p.hist"}}}},
    # A parallel root: SCXML's <scxml> is compound, so it is written as one top-level <parallel>.
    {"id": "toggles", "type": "parallel", "states": {
        "r0": {"initial": "off", "states": {"off": {"on": {"T0": "on"}}, "on": {"on": {"T0": "off"}}}},
        "r1": {"initial": "off", "states": {"off": {"on": {"T1": "on"}}, "on": {"on": {"T1": "off"}}}}}},
]


@pytest.mark.parametrize("config", KEPT, ids=["keys-ids-targets", "history-default", "parallel-root"])
def test_keys_ids_targets_history_defaults_and_parallel_roots_read_back_losslessly(config: dict[str, Any]) -> None:
    text, warnings = to_scxml(config)
    assert not codes(warnings) & {"state_id_changed", "state_id_lost"}
    assert_schema_valid(text)
    outcome = read_any(text, "scxml")
    assert codes(outcome.warnings) <= {"expression_kept"}
    assert machine_to_config(outcome.model) == machine_to_config(parse_machine(config))


def test_a_parallel_root_is_a_parallel_state_for_other_processors() -> None:
    text, _ = to_scxml(KEPT[2])
    document = etree.fromstring(text.encode("utf-8"))
    (top,) = [child for child in document if etree.QName(child).localname in ("state", "parallel")]
    assert etree.QName(top).localname == "parallel"
    assert [etree.QName(c).localname for c in top] == ["state", "state"]


def test_an_edited_target_wins_over_the_kept_one() -> None:
    text, _ = to_scxml(KEPT[0])
    kept = 'target="bold" statekit:target="[&quot;editing.bold&quot;]"'
    assert kept in text
    assert read_any(text, "scxml").model.nodes["editor.a b"].transitions[0].targets == ("editing.bold",)
    # Another tool retargets the transition in SCXML without knowing statekit's attribute.
    outcome = read_any(text.replace(kept, 'target="a_b" statekit:target="[&quot;editing.bold&quot;]"'), "scxml")
    assert "target_attribute_ignored" in codes(outcome.warnings)
    assert outcome.model.nodes["editor.a b"].transitions[0].targets == ("a b",)


# --- properties -----------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scxml_subset_configs())
def test_round_trip_is_lossless_on_the_subset(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    text, warnings = to_scxml(config)
    assert warnings == []
    outcome = read_any(text)
    assert outcome.format == "scxml"
    # Only the note that an ECMAScript condition needs an implementation to run.
    assert codes(outcome.warnings) <= {"expression_kept"}
    assert machine_to_config(outcome.model) == machine_to_config(model)
    assert outcome.model == model


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scxml_subset_configs())
def test_output_is_valid_against_the_scxml_schema(config: dict[str, Any]) -> None:
    # `<cancel sendid>` is an IDREF: it must name a `<send id>` of the same document.
    assume("xstate.cancel" not in json.dumps(config))
    text, _ = to_scxml(config)
    assert_schema_valid(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_machine_configs())
def test_any_machine_writes_schema_valid_scxml_that_reads_back(config: dict[str, Any]) -> None:
    # Whatever SCXML cannot express is a warning; the document itself is always valid.
    text, warnings = to_scxml(config)
    assert_schema_valid(text)
    assert all(w["code"] and w["message"] for w in warnings)
    model = read_any(text, "scxml").model
    assert len(list(model.root.walk())) == len(list(parse_machine(config).root.walk()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scxml_subset_configs())
def test_scxml_to_xstate_json_and_back_is_the_same_machine(config: dict[str, Any]) -> None:
    text, _ = to_scxml(config)
    as_xstate = convert(text, "xstate")
    assert as_xstate["from"] == "scxml"
    again = convert(json.dumps(as_xstate["content"]), "scxml")
    assert again["warnings"] == []
    assert again["content"] == text


# --- safe parsing ---------------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="&lol3;"/></scxml>"""

XXE = """<?xml version="1.0"?>
<!DOCTYPE scxml [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"><onentry><log expr="&secret;"/></onentry>
</state></scxml>"""

EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE scxml SYSTEM "http://example.invalid/scxml.dtd">
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"/></scxml>"""

PARAMETER_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE scxml [<!ENTITY % remote SYSTEM "http://example.invalid/x.dtd"> %remote;]>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="s"/></scxml>"""


@pytest.mark.parametrize("document", [BILLION_LAUGHS, XXE, EXTERNAL_DTD, PARAMETER_ENTITY],
                         ids=["billion-laughs", "xxe", "external-dtd", "parameter-entity"])
def test_entity_attacks_are_refused_with_invalid_input(document: str) -> None:
    import statekit.tools as tools

    with pytest.raises(ToolError) as raised:
        tools.call("convert_machine", {"machine": document, "to": "xstate"})
    assert raised.value.code == "invalid_input"
    with pytest.raises(ToolError) as raised_bytes:
        read_any(document.encode("utf-8"), "scxml")
    assert raised_bytes.value.code == "invalid_input"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("<scxml", "invalid XML"),
        ("<statechart/>", "not <scxml>"),
        ('<scxml xmlns="http://www.w3.org/2005/07/scxml"><state id="a"/><state id="a"/></scxml>', "duplicate"),
    ],
)
def test_malformed_scxml_is_invalid_input(document: str, message: str) -> None:
    with pytest.raises(ToolError) as raised:
        read_any(document, "scxml")
    assert raised.value.code == "invalid_input"
    assert message in raised.value.message


def test_scxml_without_namespace_is_read_as_scxml() -> None:
    outcome = read_any('<scxml version="1.0"><state id="a"><transition event="GO" target="b"/></state><state id="b"/></scxml>')
    assert outcome.format == "scxml"
    assert machine_to_config(outcome.model)["states"]["a"] == {"on": {"GO": "b"}}


def test_an_assign_of_several_keys_or_of_code_is_written_with_warnings() -> None:
    """statelyai/xstate's trivia example: `assign({homePageCharacters: ({event}) => event.output, hasLoaded: true})`."""
    config = {"id": "m", "initial": "a", "states": {
        "a": {"on": {"GO": {"target": "b", "actions": {"type": "xstate.assign", "assignment": {
            "chars": {"$js": "({ event }) => event.output"}, "hasLoaded": True}}}}},
        "b": {}}}
    text, warnings = to_scxml(config)
    assert_schema_valid(text)
    assert {"assign_split", "inline_value"} <= codes(warnings)
    back = read_any(text, "scxml").model
    assert len(back.root.children[0].transitions[0].actions) == 2
    _, single_warnings = to_scxml({**config, "states": {**config["states"], "a": {"on": {"GO": {
        "target": "b", "actions": {"type": "xstate.assign", "assignment": {"hasLoaded": True}}}}}}})
    assert not {"assign_split", "inline_value"} & codes(single_warnings)
