"""Reading a tool's `machine` argument: a config object, or text in any registered format.

Loading text (limits, safe YAML, nesting and surrogate checks) is `statekit.formats.documents`;
here the argument becomes what a tool works on. One `Source` per argument: detection and the
reader share a single parse.
"""

from __future__ import annotations

from typing import Any

from statekit.analysis.implemented import ImplementedMachine
from statekit.errors import ToolError
from statekit.formats import Source, detect_format, read_any
from statekit.formats.documents import load_config_document
from statekit.model import MachineModel, machine_to_config


def load_machine_document(machine: Any) -> Any:
    """The machine argument as config data (`{"machine": config}` unwrapped later by the parser).

    A machine in another registered format (SCXML, XGraph, DigraphDef, Mermaid, ...) is read
    into the model by its format and given back as the model's XState config.
    """
    source = Source.of(machine)
    try:
        detected = detect_format(source)
    except ToolError:
        detected = "xstate"
    if detected != "xstate":
        return machine_to_config(read_any(source, detected).model)
    given = source.value
    return load_config_document(source.document if isinstance(given, str) else given)


def load_model(machine: Any, from_format: str | None = None) -> MachineModel:
    """Read the machine argument (any registered format; detected when `from_format` is None)."""
    return load_model_with_normalization(machine, from_format)[0]


def load_model_with_normalization(machine: Any, from_format: str | None = None) -> tuple[MachineModel, dict[str, Any]]:
    """The model plus `{format, assumed: [...], warnings: [...]}`: the source format, the defaults
    a structure-only format filled in (`assumed_*` warnings), and every reader warning."""
    outcome = read_any(machine, from_format)
    return outcome.model, {**outcome.normalization, "warnings": list(outcome.warnings)}


def load_implemented(machine: Any, from_format: str | None = None) -> ImplementedMachine:
    """The machine argument with every implementation its input defines, read once: what every
    tool that runs a machine (simulation, paths, properties, live machines, verification) takes.

    XState source gives its `setup({...})` / second-argument implementations from the same parse
    as its config; a config carries its inline code; other formats read into the model.
    """
    outcome = read_any(machine, from_format)
    return ImplementedMachine(
        model=outcome.model,
        implementations=outcome.implementations,
        format=outcome.format,
        warnings=tuple(outcome.warnings),
        assumed=tuple(w for w in outcome.warnings if w["code"].startswith("assumed_")),
    )
