"""The grid-bucketed collision check finds exactly what the pair-by-pair check finds, in the same
order: on random drawings (hypothesis: boxes of any size including none and inside-out ones,
on and across cell boundaries, at negative coordinates; arrows of every length) and on the raw
engine layouts of XState's test suite, which hold every kind of overlap."""

from __future__ import annotations

import pytest
from collision_reference import reference_collisions
from hypothesis import given, settings
from hypothesis import strategies as st
from machines import PLAYER, chain_machine, many_loops, wide_parallel, xstate_suite_machines

from statekit.model import parse_machine
from statekit.render import DrawOptions, find_engine, machine_dot
from statekit.render.collisions import label_collisions
from statekit.render.engine import run_engine
from statekit.render.geometry import Box, LaidEdge, LaidFrame, LaidNode, Layout, parse_layout
from statekit.render.spatial import CELL

needs_engine = pytest.mark.needs(find_engine(), "a layout engine (graphviz-pure or dot)", "pip install -e '.[render]'")

#: Coordinates near cell boundaries (multiples of CELL) as well as anywhere in a few cells.
_coordinate = st.one_of(
    st.floats(min_value=-2 * CELL, max_value=5 * CELL, allow_nan=False, allow_infinity=False),
    st.integers(min_value=-2, max_value=5).map(lambda k: k * CELL),
    st.tuples(st.integers(min_value=-2, max_value=5), st.sampled_from([-1.0, -0.5, 0.5, 1.0])).map(
        lambda pair: pair[0] * CELL + pair[1]
    ),
)
_extent = st.one_of(
    st.floats(min_value=0, max_value=3 * CELL, allow_nan=False, allow_infinity=False),
    st.just(0.0),
    st.floats(min_value=-3.0, max_value=0.0),  # inside out, as a tiny box shrunk past its size is
)


@st.composite
def _box(draw: st.DrawFn) -> Box:
    x, y = draw(_coordinate), draw(_coordinate)
    return Box(x, y, x + draw(_extent), y + draw(_extent))


@st.composite
def _layout(draw: st.DrawFn) -> Layout:
    layout = Layout(width=5 * CELL, height=5 * CELL)
    for index in range(draw(st.integers(min_value=0, max_value=8))):
        name = f"n{index}"
        layout.nodes[name] = LaidNode(name, draw(_box()), draw(st.booleans()))
    for index in range(draw(st.integers(min_value=0, max_value=5))):
        name = f"cluster_{index}"
        layout.frames[name] = LaidFrame(name, draw(_box()), draw(st.none() | _box()))
    point = st.tuples(_coordinate, _coordinate)
    for index in range(draw(st.integers(min_value=0, max_value=10))):
        # 0, 1, 2 points; a curve (1 + 3k); a curve with its arrowhead tip (2 + 3k)
        count = draw(st.sampled_from([0, 1, 2, 4, 5, 7, 8, 10]))
        points = tuple(draw(st.lists(point, min_size=count, max_size=count)))
        label = draw(st.none() | _box())
        text = draw(st.sampled_from(["", "GO", "GO", "BACK"]))  # repeated texts: order matters
        layout.edges.append(LaidEdge(f"e{index}", f"n{index % 3}", f"n{index % 4}", points, label, text))
    return layout


@settings(max_examples=400, deadline=None)
@given(_layout())
def test_the_grid_check_finds_what_the_pairwise_check_finds(layout: Layout) -> None:
    assert label_collisions(layout) == reference_collisions(layout)


def test_a_label_touching_a_border_on_a_cell_boundary_is_found() -> None:
    """A label whose box crosses a frame's border exactly where two cells meet."""
    layout = Layout(width=200, height=200)
    layout.frames["cluster_a"] = LaidFrame("cluster_a", Box(CELL, CELL, 3 * CELL, 3 * CELL), None)
    layout.edges.append(LaidEdge("e0", "a", "b", (), Box(CELL - 10, CELL + 5, CELL + 10, CELL + 15), "ACROSS"))
    assert label_collisions(layout) == reference_collisions(layout) == ["label 'ACROSS' crosses the border of cluster_a"]


def test_every_kind_of_overlap_is_found_by_both() -> None:
    layout = Layout(width=300, height=300)
    layout.nodes["a"] = LaidNode("a", Box(10, 10, 60, 40), True)
    layout.nodes["hidden"] = LaidNode("hidden", Box(10, 10, 60, 40), False)
    layout.frames["cluster_f"] = LaidFrame("cluster_f", Box(100, 100, 250, 250), Box(105, 105, 140, 118))
    arrow = ((0.0, 100.0), (50.0, 100.0), (100.0, 100.0), (150.0, 100.0))
    layout.edges.append(LaidEdge("e0", "a", "b", arrow, Box(40, 30, 90, 45), "ON_STATE"))
    layout.edges.append(LaidEdge("e1", "a", "b", ((0, 0), (0, 1), (0, 2), (0, 3)), Box(60, 95, 110, 105), "ON_ARROW"))
    layout.edges.append(LaidEdge("e2", "a", "b", ((0, 0), (0, 1), (0, 2), (0, 3)), Box(70, 90, 120, 104), "ON_LABEL"))
    layout.edges.append(LaidEdge("e3", "a", "b", ((0, 0), (0, 1), (0, 2), (0, 3)), Box(110, 106, 130, 116), "ON_TITLE"))
    found = label_collisions(layout)
    assert found == reference_collisions(layout)
    assert found == [
        "label 'ON_STATE' overlaps state a",
        "label 'ON_ARROW' crosses the border of cluster_f",
        "label 'ON_ARROW' overlaps label 'ON_LABEL'",
        "label 'ON_ARROW' lies on the arrow a->b",
        "label 'ON_LABEL' crosses the border of cluster_f",
        "label 'ON_LABEL' lies on the arrow a->b",
        "label 'ON_TITLE' overlaps the title of cluster_f",
    ]


@needs_engine
def test_the_grid_check_agrees_on_raw_engine_layouts() -> None:
    """dot's own label spots (before statekit places them) on XState's suite and the shared
    machines, both directions: labels across frame borders, on other labels and on arrows."""
    engine = find_engine()
    assert engine is not None
    models = [model for _name, model in xstate_suite_machines()]
    models += [parse_machine(machine) for machine in (PLAYER, chain_machine(60), many_loops(), wide_parallel(8))]
    kinds: set[str] = set()
    for model in models:
        for direction in ("down", "right"):
            layout = parse_layout(run_engine(engine, machine_dot(model, DrawOptions(direction=direction)), "json"))
            found = label_collisions(layout)
            assert found == reference_collisions(layout)
            kinds |= {kind for kind in _KINDS for problem in found if kind in problem}
    assert {"crosses the border", "overlaps label", "lies on"} <= kinds


_KINDS = ("overlaps state", "the title of", "crosses the border", "overlaps label", "lies on")
