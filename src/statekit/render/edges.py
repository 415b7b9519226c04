"""The transitions a drawing needs, resolved once per machine and reused across images.

Drawing one image per parent state would otherwise resolve every transition again for each image;
here one resolver serves every transition, and the result is shared by all the images of a call.
"""

from __future__ import annotations

from dataclasses import dataclass

from statekit.errors import MachineDefinitionError
from statekit.model.core import MachineModel, Transition
from statekit.model.resolve import Resolver


@dataclass(frozen=True, slots=True)
class DrawnEdge:
    transition: Transition
    source_id: str
    #: The resolved target (the source itself for a targetless transition).
    target_id: str
    targetless: bool


def drawn_edges(model: MachineModel) -> tuple[DrawnEdge, ...]:
    """One edge per resolved target of every transition, in document order; unresolvable
    targets are left out (the validator reports them)."""
    resolver = Resolver(model)
    edges: list[DrawnEdge] = []
    for transition in model.transitions():
        if transition.targets is None:
            edges.append(DrawnEdge(transition, transition.source_id, transition.source_id, True))
            continue
        source = model.nodes[transition.source_id]
        for target in transition.targets:
            try:
                resolved = resolver.resolve_target(source, target)
            except MachineDefinitionError:
                continue
            edges.append(DrawnEdge(transition, transition.source_id, resolved.id, False))
    return tuple(edges)
