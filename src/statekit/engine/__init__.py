"""The engine: XState v5's algorithm over the canonical model, pure and deterministic."""

from statekit.engine.actions import ExecutableAction
from statekit.engine.actor import Actor
from statekit.engine.api import create_machine, initial_transition, restore_snapshot, transition
from statekit.engine.clock import VirtualClock
from statekit.engine.implementations import ActionArgs, Assign, Implementations, assign, setup
from statekit.engine.machine import Machine
from statekit.engine.snapshot import ChildRef, Snapshot

__all__ = [
    "ActionArgs",
    "Actor",
    "Assign",
    "ChildRef",
    "ExecutableAction",
    "Implementations",
    "Machine",
    "Snapshot",
    "VirtualClock",
    "assign",
    "create_machine",
    "initial_transition",
    "restore_snapshot",
    "setup",
    "transition",
]
