"""Mutated documents of every readable format: a reader refuses with ToolError, never crashes."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from typing import Any

from format_strategies import any_machine_configs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_digraph_format import DIGRAPH

from statekit.errors import ToolError
from statekit.formats import read_any, write_format
from statekit.model import parse_machine

VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 5),
    st.sampled_from(["", "a", "state-1", "block-0", "named", "after", "x.y", "#a", "on", "invoke.onDone"]),
    st.lists(st.sampled_from(["state-1", "block-0", "x", 1]), max_size=2),
    st.dictionaries(st.sampled_from(["type", "eventType", "delay", "src", "id", "name", "params", "key"]),
                    st.one_of(st.integers(), st.sampled_from(["named", "x", "fetcher"]), st.none()), max_size=3),
)


def mutate(value: Any, data: st.DataObject, depth: int = 0) -> None:
    if isinstance(value, dict) and value:
        key = data.draw(st.sampled_from(sorted(value, key=str)))
        if depth < 3 and isinstance(value[key], dict | list) and data.draw(st.booleans()):
            mutate(value[key], data, depth + 1)
        else:
            value[key] = data.draw(VALUES)
    elif isinstance(value, list) and value:
        index = data.draw(st.integers(0, len(value) - 1))
        if depth < 3 and isinstance(value[index], dict | list) and data.draw(st.booleans()):
            mutate(value[index], data, depth + 1)
        else:
            value[index] = data.draw(VALUES)


def read_and_write_everything(document: Any, source_format: str) -> None:
    try:
        model = read_any(document, source_format).model
    except ToolError as error:
        assert error.code in ("invalid_input", "input_too_large")
        return
    for target in ("xstate", "scxml", "xgraph"):
        write_format(model, target)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_machine_configs(), st.data())
def test_mutated_xgraphs(config: dict[str, Any], data: st.DataObject) -> None:
    _, graph, _ = write_format(parse_machine(config), "xgraph")
    graph = copy.deepcopy(graph)
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(graph, data)
    read_and_write_everything(graph, "xgraph")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_digraphs_and_structural_graphs(data: st.DataObject) -> None:
    structural = {"id": "g", "initialNodeId": "a",
                  "nodes": [{"id": "a", "data": {"type": "atomic", "tags": ["t"]}}, {"id": "b", "label": "B"},
                            {"id": "b.c", "parentId": "b"}],
                  "edges": [{"id": "e", "sourceId": "a", "targetId": "b.c", "label": "GO", "data": {"guard": "g"}},
                            {"sourceId": "b", "targetId": "a", "label": "after 5"}]}
    source_format = data.draw(st.sampled_from(["digraph", "xgraph"]))
    document = copy.deepcopy(DIGRAPH if source_format == "digraph" else structural)
    for _ in range(data.draw(st.integers(1, 4))):
        mutate(document, data)
    read_and_write_everything(document, source_format)


SCXML_SEED = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="s0" name="m">
  <datamodel><data id="v" expr="1"/></datamodel>
  <state id="s0" initial="s01">
    <onentry><send event="xstate.after.5.s0" delay="5ms" id="xstate.after.5.s0"/><raise event="go"/></onentry>
    <onexit><cancel sendid="xstate.after.5.s0"/></onexit>
    <transition event="xstate.after.5.s0" target="s1"/>
    <transition event="go" cond="In('s01') &amp;&amp; ok" target="s02" type="internal"><log expr="'x'"/></transition>
    <invoke id="i" src="child"/>
    <transition event="done.invoke.i" target="s1"/>
    <state id="s01"/><state id="s02"/><history id="h" type="deep"><transition target="s01"/></history>
  </state>
  <parallel id="s1"><state id="r1"/><state id="r2"><final id="f"/></state></parallel>
  <final id="end"><donedata><content expr="1"/></donedata></final>
</scxml>"""
TAGS = ["state", "history", "final", "parallel", "initial", "if", "send", "transition", "invoke", "data"]
ATTRIBUTE_VALUES = st.sampled_from(["", "s0", "s01 s02", "h", "end", "1s", "#_parent", "#_internal", "In('h')",
                                    "done.state.s0", "done.invoke", "foo.*", "*", "internal", "deep", "'x'", "{", "$"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_scxml(data: st.DataObject) -> None:
    root = ET.fromstring(SCXML_SEED)
    elements = list(root.iter())
    for _ in range(data.draw(st.integers(1, 5))):
        element = data.draw(st.sampled_from(elements))
        if element is not root and data.draw(st.integers(0, 4)) == 0:
            element.tag = "{http://www.w3.org/2005/07/scxml}" + data.draw(st.sampled_from(TAGS))
        else:
            name = data.draw(st.sampled_from(["id", "target", "event", "cond", "type", "initial", "delay", "sendid",
                                              "expr", "location", "src"]))
            element.set(name, data.draw(ATTRIBUTE_VALUES))
    read_and_write_everything(ET.tostring(root, encoding="unicode"), "scxml")
