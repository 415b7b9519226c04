"""The XGraph the interactive app reads: the canonical writer's output (`statekit.formats.xgraph`).

The app takes what it shows from the canonical fields only: node `id`, `parentId`,
`initialNodeId`, `data.key`, `data.type`, `data.history`, `data.entry` / `data.exit`; edge
`sourceId`, `targetId`, `label`, `data.kind`, `data.event`, `data.targets` (null: targetless),
`data.guard`, `data.actions`, `data.reenter`.
"""

from __future__ import annotations

from typing import Any

from statekit.formats import write_format
from statekit.model.core import MachineModel


def machine_xgraph(model: MachineModel) -> dict[str, Any]:
    """The canonical XGraph object of `model`."""
    _name, graph, _warnings = write_format(model, "xgraph")  # warnings only concern non-JSON Python values
    if not isinstance(graph, dict):
        raise TypeError("the XGraph writer returned text instead of an object")
    return graph
