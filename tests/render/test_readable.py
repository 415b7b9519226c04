"""Drawings a person can read, asserted on the geometry the layout engine reports (`-Tjson` of
the very run that draws the image): no edge label on a state, a frame's title or border, another
label or an arrow; wide parallel states wrapped near a screen's shape; piles of self-loops
turned into lists; compound states showing what they do. Inputs include every machine of
XState's own test suite (tests/oracle/inline/xstate) nobody here wrote."""

from __future__ import annotations

from typing import Any

import pytest
from machines import PLAYER, chain_machine, many_loops, wide_parallel, xstate_suite_machines

from statekit.model import parse_machine
from statekit.model.core import MachineModel
from statekit.render import DrawOptions, find_engine, machine_dot, parent_node_ids
from statekit.render.collisions import label_collisions
from statekit.render.draw import parent_view
from statekit.render.engine import LayoutEngine
from statekit.render.geometry import Box, LaidEdge, LaidNode, Layout
from statekit.render.layout import MAX_ASPECT, lay_out
from statekit.render.placement import PlacedLabel, place_labels

needs_engine = pytest.mark.needs(find_engine(), "a layout engine (graphviz-pure or dot)", "pip install -e '.[render]'")


def _engine() -> LayoutEngine:
    engine = find_engine()
    assert engine is not None
    return engine


def _laid_out(model: MachineModel, options: DrawOptions | None = None) -> Layout:
    return lay_out(model, options or DrawOptions(), _engine(), ()).layout


def test_the_xstate_suite_is_here() -> None:
    assert len(xstate_suite_machines()) >= 100


# ---------------------------------------------------------------- (b) label geometry


def test_the_collision_check_finds_each_kind_of_overlap() -> None:
    """The checker is not vacuous: a label on a state, on an arrow, on another label."""
    layout = Layout(width=200, height=200)
    layout.nodes["a"] = LaidNode("a", Box(10, 10, 60, 40), True)
    layout.edges.append(LaidEdge("e0", "a", "b", ((0, 100), (50, 100), (100, 100), (150, 100)), Box(40, 30, 90, 45), "ON_A"))
    layout.edges.append(LaidEdge("e1", "a", "b", ((0, 0), (0, 1), (0, 2), (0, 3)), Box(60, 95, 110, 105), "ON_ARROW"))
    layout.edges.append(LaidEdge("e2", "a", "b", ((0, 0), (0, 1), (0, 2), (0, 3)), Box(70, 90, 120, 104), "ON_LABEL"))
    problems = label_collisions(layout)
    assert "label 'ON_A' overlaps state a" in problems
    assert "label 'ON_ARROW' lies on the arrow a->b" in problems
    assert "label 'ON_ARROW' overlaps label 'ON_LABEL'" in problems


def test_a_label_touching_its_own_arrow_with_no_room_beside_it_is_nudged_off() -> None:
    """dot's own spot 1 point from its own arrow (placement keeps 1.6), every spot beside the
    arrow blocked by states: the label moves the least that frees it, with no new layout."""
    layout = Layout(width=300, height=300)
    layout.nodes["left"] = LaidNode("left", Box(-100, 0, 98, 300), True)
    layout.nodes["above"] = LaidNode("above", Box(101, 0, 300, 99.5), True)
    layout.nodes["below"] = LaidNode("below", Box(101, 111, 300, 300), True)
    layout.nodes["right"] = LaidNode("right", Box(143, 99, 300, 112), True)
    arrow = ((99.0, 0.0), (99.0, 100.0), (99.0, 200.0), (99.0, 300.0))
    layout.edges.append(LaidEdge("e0", "a", "b", arrow, Box(100, 100, 140, 110), "NEXT0"))
    assert label_collisions(layout) == ["label 'NEXT0' lies on its own arrow"]
    (placed,) = place_labels(layout)
    assert placed == PlacedLabel("e0", Box(101, 100, 141, 110), crowded=False)
    layout.edges[0] = LaidEdge("e0", "a", "b", arrow, placed.box, "NEXT0")
    assert label_collisions(layout) == []


@needs_engine
def test_graphviz_alone_puts_labels_on_arrows_and_frames() -> None:
    """Without statekit's label placement, dot's own layout of a machine from XState's suite
    has labels that collide: what the placement fixes."""
    from statekit.render.engine import run_engine
    from statekit.render.geometry import parse_layout

    raw = 0
    for _name, model in xstate_suite_machines():
        raw += bool(label_collisions(parse_layout(run_engine(_engine(), machine_dot(model), "json"))))
    assert raw >= 5


@needs_engine
@pytest.mark.parametrize("direction", ["down", "right"])
def test_no_label_collides_in_whole_drawings_of_the_xstate_suite(direction: str) -> None:
    failures = {}
    for name, model in xstate_suite_machines():
        problems = label_collisions(_laid_out(model, DrawOptions(direction=direction)))
        if problems:
            failures[name] = problems
    assert failures == {}


@needs_engine
def test_no_label_collides_in_the_per_parent_images_of_the_xstate_suite() -> None:
    failures = {}
    largest = sorted(xstate_suite_machines(), key=lambda item: -len(item[1].nodes))[:40]
    for name, model in largest:
        for parent in parent_node_ids(model):
            problems = label_collisions(_laid_out(model, parent_view(model, parent)))
            if problems:
                failures[f"{name} {parent}"] = problems
    assert failures == {}


@needs_engine
def test_no_label_collides_on_the_shared_machines() -> None:
    for machine in (PLAYER, chain_machine(60), many_loops(), wide_parallel(8)):
        assert label_collisions(_laid_out(parse_machine(machine))) == []


# ---------------------------------------------------------------- (a) compound details


DETAILED: dict[str, Any] = {
    "id": "upload",
    "initial": "working",
    "states": {
        "working": {
            "entry": ["startSpinner"],
            "exit": ["stopSpinner"],
            "invoke": {"src": "uploader", "onDone": "done"},
            "tags": ["busy"],
            "initial": "sending",
            "states": {"sending": {"on": {"PAUSE": "paused"}}, "paused": {"on": {"RESUME": "sending"}}},
        },
        "done": {"type": "final"},
    },
}


def _frame_text(layout: Layout, document_name: str) -> list[str]:
    for item in layout.document["objects"]:
        if item.get("name") == document_name:
            return [op["text"] for op in item.get("_ldraw_", []) if op.get("op") == "T"]
    raise AssertionError(document_name)


@needs_engine
def test_compound_states_show_entry_exit_invoke_and_tags_in_the_whole_drawing() -> None:
    model = parse_machine(DETAILED)
    drawing = lay_out(model, DrawOptions(), _engine(), ())
    working = drawing.names["upload.working"]
    lines = _frame_text(drawing.layout, f"cluster_{working}")
    assert lines == ["working", "entry / startSpinner", "exit / stopSpinner", "invoke uploader", "tags: busy"]
    title = drawing.layout.frames[f"cluster_{working}"].title
    assert title is not None and title.inside(drawing.layout.frames[f"cluster_{working}"].box)
    # the states inside stay clear of the longer title block
    for state in ("upload.working.sending", "upload.working.paused"):
        assert not drawing.layout.nodes[drawing.names[state]].box.overlaps(title)


# ---------------------------------------------------------------- (c) wide parallel machines


@needs_engine
@pytest.mark.parametrize(("regions", "direction"), [(4, "down"), (8, "down"), (12, "down"), (8, "right")])
def test_wide_parallel_states_wrap_to_a_readable_aspect_ratio(regions: int, direction: str) -> None:
    model = parse_machine(wide_parallel(regions))
    layout = _laid_out(model, DrawOptions(direction=direction))
    aspect = layout.width / layout.height
    assert 1 / MAX_ASPECT <= aspect <= MAX_ASPECT, (layout.width, layout.height)
    # every region is still drawn, whole and apart from the others
    names = lay_out(model, DrawOptions(direction=direction), _engine(), ()).names
    boxes = [layout.frames[f"cluster_{names[f'wide.region{n}']}"].box for n in range(regions)]
    assert all(not a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


@needs_engine
def test_xstate_suite_machines_with_wide_parallel_states_stay_readable() -> None:
    """Every machine of XState's suite with a parallel state of three or more regions."""
    checked = {}
    for name, model in xstate_suite_machines():
        if any(node.type == "parallel" and len(node.children) >= 3 for node in model.nodes.values()):
            layout = _laid_out(model)
            checked[name] = round(layout.width / layout.height, 2)
    assert len(checked) >= 5
    assert {name: aspect for name, aspect in checked.items() if not 1 / MAX_ASPECT <= aspect <= MAX_ASPECT} == {}


@needs_engine
def test_a_parallel_state_that_fits_stays_in_one_row() -> None:
    layout = _laid_out(parse_machine(wide_parallel(2)))
    assert layout.width > layout.height  # two regions side by side


# ---------------------------------------------------------------- (d) self and targetless lists


@needs_engine
def test_many_self_and_targetless_transitions_become_one_list() -> None:
    model = parse_machine(many_loops())
    drawing = lay_out(model, DrawOptions(), _engine(), ())
    names = drawing.names
    loops = [edge for edge in drawing.layout.edges if edge.tail == edge.head]
    # `loading` keeps its single targetless loop; `ready`'s seven become lines in its box
    assert [(edge.tail, edge.text) for edge in loops] == [(names["todos.loading"], "PING / pong")]
    ready = next(item for item in drawing.layout.document["objects"] if item.get("name") == names["todos.ready"])
    lines = [op["text"] for op in ready["_ldraw_"] if op.get("op") == "T"]
    assert lines[0] == "ready"
    assert "newTodo.change / assign" in lines and "REFRESH (re-enters)" in lines and len(lines) == 8
    # on a frame even one targetless transition is listed (a loop would cross its contents)
    assert "CLEAR / clearAll" in _frame_text(drawing.layout, f"cluster_{names['todos']}")
    assert label_collisions(drawing.layout) == []


@needs_engine
def test_many_transitions_between_two_states_share_one_arrow() -> None:
    machine = {
        "id": "m",
        "initial": "a",
        "states": {"a": {"on": {f"GO_{n}": "b" for n in range(5)}}, "b": {"on": {"BACK": "a"}}},
    }
    layout = _laid_out(parse_machine(machine))
    labelled = sorted([line.text.strip() for line in edge.lines] for edge in layout.edges if edge.text)
    assert labelled == [["BACK"], ["GO_0", "GO_1", "GO_2", "GO_3", "GO_4"]]
