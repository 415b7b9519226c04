"""The canonical statechart model: parse XState configs, write them back, derive the graph."""

from statekit.model.core import (
    Action,
    EnqueueBranch,
    Guard,
    Invoke,
    MachineModel,
    StateNode,
    Transition,
)
from statekit.model.graph import GraphEdge, GraphNode, MachineGraph, machine_graph
from statekit.model.parse import parse_machine, unwrap_document
from statekit.model.write import machine_to_config

__all__ = [
    "Action",
    "EnqueueBranch",
    "GraphEdge",
    "GraphNode",
    "Guard",
    "Invoke",
    "MachineGraph",
    "MachineModel",
    "StateNode",
    "Transition",
    "machine_graph",
    "machine_to_config",
    "parse_machine",
    "unwrap_document",
]
